//! Java properties files as Pinot's configs are written (`key=value` or `key: value` lines, `#`
//! and `!` comments): the auth config and the `--config` file of `tessera start`.

use std::collections::BTreeMap;

/// The keys and values of a properties text (a later key wins).
pub fn parse(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('!'))
        .filter_map(|l| {
            let (k, v) = l.split_once('=').or_else(|| l.split_once(':'))?;
            Some((k.trim().to_string(), v.trim().to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_java_properties() {
        let p = super::parse("# c\n! c\na = 1\nb: two\n\nc=x=y\nnoise\n");
        assert_eq!(p.len(), 3);
        assert_eq!(
            (p["a"].as_str(), p["b"].as_str(), p["c"].as_str()),
            ("1", "two", "x=y")
        );
    }
}
