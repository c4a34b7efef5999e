//! A JSONPath subset for the JSON functions: `$`, `.key`, `['key']` / `["key"]`, `[n]`
//! (negative counts from the end), and the wildcards `.*` / `[*]`. Deep scans (`..`),
//! filters, slices and unions are refused. A path with a wildcard is indefinite and yields the
//! list of its matches, as Jayway JsonPath (Pinot's library) does.

use serde_json::Value as Json;

#[derive(Clone, Debug, PartialEq)]
enum Step {
    Key(String),
    Index(i64),
    Wildcard,
}

/// A compiled JSONPath.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct JsonPath {
    steps: Vec<Step>,
}

impl JsonPath {
    /// Compiles a path; the error is the reason it is unsupported or malformed.
    pub(crate) fn parse(path: &str) -> Result<JsonPath, String> {
        let path = path.trim();
        let mut rest = path
            .strip_prefix('$')
            .ok_or("a json path must start with '$'")?;
        let mut steps = Vec::new();
        while !rest.is_empty() {
            if rest.starts_with("..") {
                return Err("deep scan '..' is not supported".into());
            }
            if let Some(after) = rest.strip_prefix('.') {
                if let Some(after) = after.strip_prefix('*') {
                    steps.push(Step::Wildcard);
                    rest = after;
                    continue;
                }
                let end = after.find(['.', '[']).unwrap_or(after.len());
                if end == 0 {
                    return Err("empty property name".into());
                }
                steps.push(Step::Key(after[..end].to_string()));
                rest = &after[end..];
            } else if let Some(after) = rest.strip_prefix('[') {
                let (step, after) = parse_bracket(after.trim_start())?;
                steps.push(step);
                rest = after.trim_start().strip_prefix(']').ok_or("missing ']'")?;
            } else {
                return Err(format!(
                    "unexpected '{}'",
                    rest.chars().next().unwrap_or(' ')
                ));
            }
        }
        Ok(JsonPath { steps })
    }

    /// Whether the path names at most one value (no wildcard).
    pub(crate) fn is_definite(&self) -> bool {
        !self.steps.contains(&Step::Wildcard)
    }

    /// The value the path names (`None` when missing), or the array of matches for an
    /// indefinite path.
    pub(crate) fn read(&self, root: &Json) -> Option<Json> {
        let mut current = vec![root];
        for step in &self.steps {
            let mut next = Vec::new();
            for node in current {
                match (step, node) {
                    (Step::Key(key), Json::Object(map)) => next.extend(map.get(key)),
                    (Step::Index(i), Json::Array(items)) => {
                        let at = if *i < 0 { items.len() as i64 + i } else { *i };
                        next.extend(usize::try_from(at).ok().and_then(|at| items.get(at)));
                    }
                    (Step::Wildcard, Json::Object(map)) => next.extend(map.values()),
                    (Step::Wildcard, Json::Array(items)) => next.extend(items.iter()),
                    _ => {}
                }
            }
            current = next;
        }
        if self.is_definite() {
            current.first().map(|v| (*v).clone())
        } else {
            Some(Json::Array(current.into_iter().cloned().collect()))
        }
    }
}

/// Parses the inside of `[...]` up to (not including) the closing bracket.
fn parse_bracket(text: &str) -> Result<(Step, &str), String> {
    if let Some(rest) = text.strip_prefix('*') {
        return Ok((Step::Wildcard, rest));
    }
    if let Some(quote) = text.chars().next().filter(|c| *c == '\'' || *c == '"') {
        let mut key = String::new();
        let mut chars = text[1..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, escaped)) => key.push(escaped),
                    None => break,
                },
                c if c == quote => return Ok((Step::Key(key), &text[1 + i + 1..])),
                c => key.push(c),
            }
        }
        return Err("unterminated quoted property name".into());
    }
    let end = text.find(']').ok_or("missing ']'")?;
    let index = text[..end].trim();
    let index: i64 = index
        .parse()
        .map_err(|_| format!("unsupported array selector '{index}'"))?;
    Ok((Step::Index(index), &text[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(path: &str, doc: &Json) -> Option<Json> {
        JsonPath::parse(path).unwrap().read(doc)
    }

    #[test]
    fn reads_definite_paths() {
        let doc = json!({"a": {"b": [10, {"c": "x"}], "d e": 1}, "n": null});
        assert_eq!(read("$", &doc), Some(doc.clone()));
        assert_eq!(read("$.a.b[0]", &doc), Some(json!(10)));
        assert_eq!(read("$.a.b[1].c", &doc), Some(json!("x")));
        assert_eq!(read("$.a.b[-1]['c']", &doc), Some(json!("x")));
        assert_eq!(read("$['a'][\"d e\"]", &doc), Some(json!(1)));
        assert_eq!(read("$.n", &doc), Some(Json::Null));
        assert_eq!(read("$.missing", &doc), None);
        assert_eq!(read("$.a.b[5]", &doc), None);
        assert_eq!(read("$.a.b.c", &doc), None);
    }

    #[test]
    fn wildcards_collect_matches() {
        let doc = json!({"items": [{"v": 1}, {"v": 2}, {"w": 3}]});
        assert_eq!(read("$.items[*].v", &doc), Some(json!([1, 2])));
        assert_eq!(read("$.items[0].*", &doc), Some(json!([1])));
    }

    #[test]
    fn refuses_unsupported_syntax() {
        for path in [
            "a.b",
            "$..a",
            "$.a[?(@.b)]",
            "$.a[0:2]",
            "$.a[1,2]",
            "$.",
            "$[",
            "$['a",
            "$x",
        ] {
            assert!(JsonPath::parse(path).is_err(), "{path}");
        }
    }
}
