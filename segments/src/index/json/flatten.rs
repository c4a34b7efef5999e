//! Flattening a JSON document into the records a JSON index stores, as Pinot's
//! `JsonUtils.flatten` does.
//!
//! A document becomes a list of flat records, each a set of `key → value` pairs. A scalar is
//! `{"": text}`; an object's field `f` prefixes its child's keys with `.f`; an array's element
//! `i` prefixes its child's keys with `.` and adds `.$index → i`. A field whose child gives one
//! record merges it into the object's shared record; a child giving several (an array of
//! several elements) keeps them apart, and several such siblings multiply out (the cartesian
//! product, first sibling outermost; or each on its own with `disableCrossArrayUnnest`), every
//! result holding the shared record. So
//! `{"name":"adam","addresses":[{"number":1},{"number":2}]}` gives two records,
//! `{.name: adam, .addresses.$index: 0, .addresses..number: 1}` and the same with `1`, `2`:
//! conditions ANDed in one `JSON_MATCH` must hold in one record, i.e. one array element.
//!
//! Values are the text Jackson's `asText` gives (`1`, `true`, doubles as Java prints them:
//! `1e2` is `100.0`); `null`, empty arrays and empty objects give no record.

use super::config::JsonIndexConfig;
use crate::types::java_text::java_double_text;
use serde_json::Value as Json;
use std::collections::HashMap;

/// One flat record: distinct keys with their values.
pub type Record = Vec<(String, String)>;

/// What a document that is not JSON (with `skipInvalidJson`) or a too-long value is stored as.
pub const SKIPPED: &str = "$SKIPPED$";

/// The cartesian product of sibling arrays stops at this many records.
const MAX_COMBINATIONS: usize = 100_000;

/// A node of `indexPaths`' tree: its children by path segment (`*` any one, `**` everything
/// below, `""` an array element).
#[derive(Debug, Default)]
struct PathTree {
    children: HashMap<String, PathTree>,
    /// This node is `**`: it is its own child, whatever the key.
    everything: bool,
}

impl PathTree {
    fn of(paths: &std::collections::BTreeSet<String>) -> PathTree {
        let mut root = PathTree::default();
        for p in paths {
            let mut node = &mut root;
            for segment in p.split('.') {
                node = node.children.entry(segment.to_string()).or_default();
                if segment == "**" {
                    node.everything = true;
                    break;
                }
            }
        }
        root
    }

    fn child(&self, key: &str) -> Option<&PathTree> {
        if self.everything {
            return Some(self);
        }
        self.children
            .get("**")
            .or_else(|| self.children.get(key))
            .or_else(|| self.children.get("*"))
    }
}

/// Whether a path is kept under `includePaths`: fully (everything below too) or perhaps (some
/// include path lies below it).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Include {
    Everything,
    Maybe,
}

/// Flattens documents per one column's [`JsonIndexConfig`].
#[derive(Debug)]
pub struct Flattener {
    config: JsonIndexConfig,
    index_paths: Option<PathTree>,
}

impl Flattener {
    pub fn new(config: &JsonIndexConfig) -> Flattener {
        Flattener {
            index_paths: config.index_paths.as_ref().map(PathTree::of),
            config: config.clone(),
        }
    }

    /// The records of the document `text` (its first JSON value; blank text has none). Text
    /// that is not JSON, or a document with too many combinations, is an error — or, with
    /// `skipInvalidJson`, the record `{"": "$SKIPPED$"}`.
    pub fn flatten(&self, text: &str) -> Result<Vec<Record>, String> {
        let parsed = match serde_json::Deserializer::from_str(text)
            .into_iter::<Json>()
            .next()
        {
            None => return Ok(Vec::new()),
            Some(r) => r.map_err(|e| format!("invalid JSON: {e}")),
        };
        let records = parsed
            .and_then(|doc| self.node(&doc, 0, "$", self.index_paths.as_ref(), Include::Maybe));
        match records {
            Err(_) if self.config.skip_invalid_json => {
                Ok(vec![vec![(String::new(), SKIPPED.to_string())]])
            }
            other => other,
        }
    }

    /// The path of an array's elements (`field` `None`) or of a field, when include or exclude
    /// paths need it; empty otherwise (formatting every path was a tenth of an index build).
    fn child_path(&self, path: &str, field: Option<&str>) -> String {
        if self.config.include_paths.is_none() && self.config.exclude_paths.is_none() {
            return String::new();
        }
        match field {
            None => format!("{path}[*]"),
            Some(f) => format!("{path}.{f}"),
        }
    }

    /// Whether the child at `path` is kept, and how, below a parent kept `as_parent`.
    fn include(&self, path: &str, as_parent: Include) -> Option<Include> {
        if as_parent == Include::Everything {
            return Some(Include::Everything);
        }
        if let Some(paths) = &self.config.include_paths {
            if paths.contains(path) {
                return Some(Include::Everything);
            }
            return paths
                .iter()
                .any(|p| p.starts_with(path))
                .then_some(Include::Maybe);
        }
        match &self.config.exclude_paths {
            Some(paths) if paths.contains(path) => None,
            _ => Some(Include::Maybe),
        }
    }

    fn scalar_text(&self, node: &Json) -> String {
        let text = match node {
            Json::String(s) => s.clone(),
            Json::Bool(b) => b.to_string(),
            Json::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => i.to_string(),
                (_, Some(u)) => u.to_string(),
                _ => java_double_text(n.as_f64().unwrap_or(f64::NAN)),
            },
            _ => String::new(),
        };
        let max = self.config.max_value_length;
        if max > 0 && text.encode_utf16().count() > max as usize {
            SKIPPED.to_string()
        } else {
            text
        }
    }

    fn node(
        &self,
        node: &Json,
        level: i32,
        path: &str,
        tree: Option<&PathTree>,
        include: Include,
    ) -> Result<Vec<Record>, String> {
        let (at_limit, tree_child) = (
            self.config.max_levels > 0 && level == self.config.max_levels,
            |key: &str| match (&self.index_paths, tree) {
                (None, _) => Some(None),
                (Some(_), Some(t)) => t.child(key).map(Some),
                (Some(_), None) => None,
            },
        );
        match node {
            Json::Null => Ok(Vec::new()),
            Json::Array(items) => {
                if at_limit || self.config.exclude_array || items.is_empty() {
                    return Ok(Vec::new());
                }
                let child_path = self.child_path(path, None);
                let (Some(child_include), Some(child_tree)) =
                    (self.include(&child_path, include), tree_child(""))
                else {
                    return Ok(Vec::new());
                };
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    for record in
                        self.node(item, level + 1, &child_path, child_tree, child_include)?
                    {
                        let mut r: Record = record
                            .into_iter()
                            .map(|(mut k, v)| {
                                k.insert(0, '.');
                                (k, v)
                            })
                            .collect();
                        r.push((".$index".to_string(), i.to_string()));
                        out.push(r);
                    }
                }
                Ok(out)
            }
            Json::Object(fields) => {
                if at_limit {
                    return Ok(Vec::new());
                }
                let mut shared: Record = Vec::new();
                let mut nested: Vec<Vec<Record>> = Vec::new();
                for (field, child) in fields {
                    if self
                        .config
                        .exclude_fields
                        .as_ref()
                        .is_some_and(|f| f.contains(field))
                    {
                        continue;
                    }
                    let child_path = self.child_path(path, Some(field));
                    let (Some(child_include), Some(child_tree)) =
                        (self.include(&child_path, include), tree_child(field))
                    else {
                        continue;
                    };
                    let mut records =
                        self.node(child, level + 1, &child_path, child_tree, child_include)?;
                    for r in &mut records {
                        for (k, _) in r.iter_mut() {
                            k.insert_str(0, field);
                            k.insert(0, '.');
                        }
                    }
                    match records.len() {
                        0 => {}
                        1 => shared.extend(records.pop().unwrap_or_default()),
                        _ => nested.push(records),
                    }
                }
                Ok(self.combine(shared, nested)?)
            }
            scalar => Ok(vec![vec![(String::new(), self.scalar_text(scalar))]]),
        }
    }

    /// An object's records from its shared record and its fields' lists of several records.
    fn combine(&self, shared: Record, nested: Vec<Vec<Record>>) -> Result<Vec<Record>, String> {
        let with_shared = |mut r: Record| {
            r.extend(shared.iter().cloned());
            r
        };
        match nested.len() {
            0 if shared.is_empty() => Ok(Vec::new()),
            0 => Ok(vec![shared.clone()]),
            1 => Ok(nested.into_iter().flatten().map(with_shared).collect()),
            _ if self.config.disable_cross_array_unnest => {
                Ok(nested.into_iter().flatten().map(with_shared).collect())
            }
            _ => {
                let mut count = 1usize;
                for list in &nested {
                    count = count.saturating_mul(list.len());
                    if count >= MAX_COMBINATIONS {
                        return Err("Got too many combinations".to_string());
                    }
                }
                let mut product: Vec<Record> = vec![Vec::new()];
                for list in &nested {
                    product = product
                        .iter()
                        .flat_map(|prefix| {
                            list.iter().map(move |r| {
                                let mut p = prefix.clone();
                                p.extend(r.iter().cloned());
                                p
                            })
                        })
                        .collect();
                }
                Ok(product.into_iter().map(with_shared).collect())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    fn flat(config: serde_json::Value, doc: &str) -> Vec<BTreeMap<String, String>> {
        let c = JsonIndexConfig::from_json(&config).unwrap();
        Flattener::new(&c)
            .flatten(doc)
            .unwrap()
            .into_iter()
            .map(|r| r.into_iter().collect())
            .collect()
    }

    fn rec(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn scalars_arrays_and_empties() {
        for empty in [
            "null",
            "[]",
            "{}",
            r#"{"key":{}}"#,
            "[{},{},{}]",
            r#"{"key":[]}"#,
            "  ",
        ] {
            assert!(flat(json!({}), empty).is_empty(), "{empty}");
        }
        assert_eq!(flat(json!({}), "123"), vec![rec(&[("", "123")])]);
        assert_eq!(flat(json!({}), "1e2"), vec![rec(&[("", "100.0")])]);
        assert_eq!(
            flat(json!({}), "[1,2,3]"),
            vec![
                rec(&[(".$index", "0"), (".", "1")]),
                rec(&[(".$index", "1"), (".", "2")]),
                rec(&[(".$index", "2"), (".", "3")]),
            ]
        );
        let nested = flat(json!({}), "[1,[2,3],[4,[5,6]]]");
        assert_eq!(nested.len(), 6);
        assert_eq!(
            nested[4],
            rec(&[
                (".$index", "2"),
                ("..$index", "1"),
                ("...$index", "0"),
                ("...", "5")
            ])
        );
        assert_eq!(
            flat(
                json!({}),
                r#"{"name":"bob","age":null,"addresses":[{"country":"us","street":"main st"}],"skills":[],"hobbies":[null,"football"]}"#
            ),
            vec![rec(&[
                (".name", "bob"),
                (".addresses.$index", "0"),
                (".addresses..country", "us"),
                (".addresses..street", "main st"),
                (".hobbies.$index", "1"),
                (".hobbies.", "football"),
            ])]
        );
    }

    const ADAM: &str = r#"{"name":"adam","age":20,"addresses":[{"country":"us","street":"main st","number":1},{"country":"ca","street":"second st","number":2}],"skills":["english","programming"]}"#;
    const CHARLES: &str = r#"{"name":"charles","addresses":[{"country":"us","street":"main st","types":["home","office"]},{"country":"ca","street":"second st"}]}"#;

    #[test]
    fn sibling_arrays_multiply_or_stay_apart() {
        let all = flat(json!({}), ADAM);
        assert_eq!(all.len(), 4);
        assert_eq!(all[1][".addresses..country"], "us");
        assert_eq!(all[1][".skills."], "programming");
        assert_eq!(all[2][".addresses..country"], "ca");
        assert_eq!(all[2][".skills."], "english");
        assert!(
            all.iter()
                .all(|r| r[".name"] == "adam" && r[".age"] == "20")
        );
        let apart = flat(json!({"disableCrossArrayUnnest": true}), ADAM);
        assert_eq!(apart.len(), 4);
        assert!(
            apart[..2]
                .iter()
                .all(|r| r.contains_key(".addresses..street") && !r.contains_key(".skills."))
        );
        assert!(
            apart[2..]
                .iter()
                .all(|r| !r.contains_key(".addresses..street") && r.contains_key(".skills."))
        );
        assert!(apart.iter().all(|r| r[".name"] == "adam"));
        let many = format!(
            r#"{{"a":[{}],"b":[{}],"c":[{}]}}"#,
            vec!["1"; 100].join(","),
            vec!["1"; 100].join(","),
            ["1"; 10].join(",")
        );
        let c = JsonIndexConfig::default();
        assert_eq!(
            Flattener::new(&c).flatten(&many).unwrap_err(),
            "Got too many combinations"
        );
    }

    #[test]
    fn levels_paths_and_fields() {
        assert_eq!(flat(json!({}), CHARLES).len(), 3);
        assert_eq!(flat(json!({"maxLevels": 3}), CHARLES).len(), 2);
        let addresses = r#"{"name":"adam","addresses":[{"country":"us","number":1},{"country":"ca","number":2}]}"#;
        for levels in [1, 2] {
            assert_eq!(
                flat(json!({"maxLevels": levels}), addresses),
                vec![rec(&[(".name", "adam")])]
            );
        }
        assert_eq!(flat(json!({"maxLevels": 3}), addresses).len(), 2);
        assert_eq!(
            flat(json!({"maxLevels": 1}), "[1,[2,3]]"),
            vec![rec(&[(".$index", "0"), (".", "1")])]
        );
        assert_eq!(
            flat(json!({"includePaths": ["$.name"]}), CHARLES),
            vec![rec(&[(".name", "charles")])]
        );
        for p in ["$.addresses", "$.addresses[*]"] {
            let r = flat(json!({"includePaths": [p]}), CHARLES);
            assert_eq!(r.len(), 3, "{p}");
            assert!(r.iter().all(|r| !r.contains_key(".name")));
        }
        let types = flat(json!({"includePaths": ["$.addresses[*].types"]}), CHARLES);
        assert_eq!(types.len(), 2);
        assert!(types.iter().all(|r| r.len() == 3));
        assert!(flat(json!({"includePaths": ["$.no_match"]}), CHARLES).is_empty());
        for c in [
            json!({"excludeArray": true}),
            json!({"excludePaths": ["$.addresses"]}),
            json!({"excludePaths": ["$.addresses[*]"]}),
            json!({"excludeFields": ["addresses"]}),
        ] {
            assert_eq!(
                flat(c.clone(), CHARLES),
                vec![rec(&[(".name", "charles")])],
                "{c}"
            );
        }
        let some = flat(json!({"indexPaths": ["addresses..*"]}), CHARLES);
        assert_eq!(some.len(), 2);
        assert!(some.iter().all(|r| r.len() == 3));
        let all = flat(json!({}), addresses);
        for same in [
            json!(["**"]),
            json!(["*.*.*"]),
            json!(["name", "addresses.**"]),
        ] {
            assert_eq!(flat(json!({"indexPaths": same}), addresses), all, "{same}");
        }
        for one in [json!(["*.*"]), json!(["name.**"])] {
            assert_eq!(
                flat(json!({"indexPaths": one}), addresses),
                vec![rec(&[(".name", "adam")])],
                "{one}"
            );
        }
    }

    #[test]
    fn long_values_and_invalid_documents() {
        let r = flat(
            json!({"maxValueLength": 6}),
            r#"{"key1":"value1","key2":"longValue2"}"#,
        );
        assert_eq!(r, vec![rec(&[(".key1", "value1"), (".key2", SKIPPED)])]);
        let c = JsonIndexConfig::default();
        assert!(Flattener::new(&c).flatten(r#"{"key1":"va""#).is_err());
        assert_eq!(
            flat(json!({"skipInvalidJson": true}), r#"{"key1":"va""#),
            vec![rec(&[("", SKIPPED)])]
        );
    }
}
