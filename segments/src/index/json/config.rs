//! [`JsonIndexConfig`]: what a JSON index keeps of each document — Pinot's `JsonIndexConfig`,
//! read from `fieldConfigList[].indexes.json`, `tableIndexConfig.jsonIndexConfigs` or (with
//! every default) `jsonIndexColumns` / `indexTypes: ["JSON"]`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The options of one column's JSON index, with Pinot's defaults (`{}` is every default).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct JsonIndexConfig {
    /// Containers (objects, arrays) deeper than this are dropped; 0 or less: no limit. An
    /// array counts as a level.
    pub max_levels: i32,
    /// Drop every array, a top-level one too.
    pub exclude_array: bool,
    /// Sibling arrays give records of their own instead of their cartesian product.
    pub disable_cross_array_unnest: bool,
    /// Paths (`$.a.b`, `$.a[*]`) to keep, with everything below them; others are dropped.
    pub include_paths: Option<BTreeSet<String>>,
    /// Paths dropped (exact match), when no `includePaths` are given.
    pub exclude_paths: Option<BTreeSet<String>>,
    /// Field names dropped at any depth.
    pub exclude_fields: Option<BTreeSet<String>>,
    /// Schema-tree paths kept (`a.**`, `*.*`, `addresses..*`: `*` any one key or element, `**`
    /// the whole subtree, an empty segment an array element); none given means `**`.
    pub index_paths: Option<BTreeSet<String>>,
    /// A value longer than this (UTF-16 units, as Java counts) is stored as `$SKIPPED$`; 0: off.
    pub max_value_length: i32,
    /// A document that is not JSON is indexed as `{"": "$SKIPPED$"}` instead of failing the
    /// build.
    pub skip_invalid_json: bool,
    /// Size cap of Pinot's mutable index; accepted (consuming segments here are built in chunks).
    pub max_bytes_size: Option<i64>,
    /// `IndexConfig.disabled`.
    pub disabled: bool,
}

impl Default for JsonIndexConfig {
    fn default() -> Self {
        JsonIndexConfig {
            max_levels: -1,
            exclude_array: false,
            disable_cross_array_unnest: false,
            include_paths: None,
            exclude_paths: None,
            exclude_fields: None,
            index_paths: None,
            max_value_length: 0,
            skip_invalid_json: false,
            max_bytes_size: None,
            disabled: false,
        }
    }
}

impl JsonIndexConfig {
    /// Reads a config object (`{}`, or with any of Pinot's fields); `null` is every default.
    pub fn from_json(json: &serde_json::Value) -> Result<JsonIndexConfig, String> {
        if json.is_null() {
            return Ok(JsonIndexConfig::default());
        }
        serde_json::from_value(json.clone()).map_err(|e| format!("invalid json index config: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empty_is_every_default() {
        let c = JsonIndexConfig::from_json(&json!({})).unwrap();
        assert_eq!(c, JsonIndexConfig::default());
        assert_eq!(c.max_levels, -1);
        let c = JsonIndexConfig::from_json(&json!({
            "maxLevels": 2, "excludeArray": true, "disableCrossArrayUnnest": true,
            "includePaths": ["$.a"], "excludeFields": ["b"], "maxValueLength": 6,
            "skipInvalidJson": true, "indexPaths": ["a.**"]
        }))
        .unwrap();
        assert_eq!(c.max_levels, 2);
        assert!(c.exclude_array && c.disable_cross_array_unnest && c.skip_invalid_json);
        assert_eq!(c.max_value_length, 6);
        assert!(c.include_paths.unwrap().contains("$.a"));
        assert!(JsonIndexConfig::from_json(&json!({"maxLevels": "x"})).is_err());
    }
}
