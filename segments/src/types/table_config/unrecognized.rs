//! Unknown-key reporting as Pinot does it (`JsonUtils#stringToObjectAndUnrecognizedProperties`).
//!
//! Pinot parses a config leniently, writes the parsed object back to JSON, flattens both the
//! input and that output into `"/a/b/0/c" → leaf value` maps, and reports the paths present
//! only in the input. So a path names a leaf: an unknown key holding an object is reported
//! once per leaf inside it, and empty objects or arrays report nothing. Values that changed
//! (a raw table name given a type suffix, `"1"` for `1`) are not reported, only missing paths.
//! The same works for any config with a JSON writer, e.g. schemas.

use serde_json::{Map, Value as Json};

/// Paths of `input` leaves that `output` lacks, with the input's values, in input order.
pub fn unrecognized_properties(input: &Json, output: &Json) -> Map<String, Json> {
    let mut known = Vec::new();
    flatten(output, String::new(), &mut |path, _| known.push(path));
    let known: std::collections::HashSet<String> = known.into_iter().collect();
    let mut out = Map::new();
    flatten(input, String::new(), &mut |path, value| {
        if !known.contains(&path) {
            out.insert(path, value.clone());
        }
    });
    out
}

/// Every leaf of `value` with its path (`/a/0/b`), in document order.
#[cfg(test)]
pub(super) fn leaves(value: &Json) -> Vec<(String, &Json)> {
    let mut out = Vec::new();
    flatten(value, String::new(), &mut |path, leaf| {
        out.push((path, leaf))
    });
    out
}

/// Calls `visit(path, leaf)` for every non-container value under `value`.
fn flatten<'a>(value: &'a Json, path: String, visit: &mut dyn FnMut(String, &'a Json)) {
    match value {
        Json::Object(map) => {
            for (k, v) in map {
                flatten(v, format!("{path}/{k}"), visit);
            }
        }
        Json::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(v, format!("{path}/{i}"), visit);
            }
        }
        leaf => visit(path, leaf),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reports_leaf_paths_only_on_the_input_side() {
        let input = json!({
            "tableName": "t", "fooBar": 1,
            "tableIndexConfig": {"loadMode": "MMAP", "bogus": {"a": [1, {"b": null}], "e": {}}},
            "list": [], "fieldConfigList": [{"name": "c", "typo": "x"}]
        });
        let output = json!({
            "tableName": "t_OFFLINE", "tableIndexConfig": {"loadMode": "MMAP", "rangeIndexVersion": 2},
            "fieldConfigList": [{"name": "c", "indexTypes": []}]
        });
        let got = unrecognized_properties(&input, &output);
        assert_eq!(
            Json::Object(got),
            json!({"/fooBar": 1, "/tableIndexConfig/bogus/a/0": 1, "/tableIndexConfig/bogus/a/1/b": null,
                   "/fieldConfigList/0/typo": "x"})
        );
        assert!(unrecognized_properties(&output, &output).is_empty());
    }
}
