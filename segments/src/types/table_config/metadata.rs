//! `metadata` (`TableCustomConfig.java`): free-form string key/values under `customConfigs`.
//!
//! Pinot always writes `metadata`: a config without one gets `{"customConfigs": {}}` (the
//! [`Default`]), while `"metadata": {}` is kept and echoed as `{}`.

use super::coerce;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

/// `metadata`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TableCustomConfig {
    /// String values (numbers and booleans are coerced to strings).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_map"
    )]
    pub custom_configs: Option<Map<String, Json>>,
}

impl Default for TableCustomConfig {
    /// What Pinot substitutes for an absent `metadata`: `{"customConfigs": {}}`.
    fn default() -> Self {
        TableCustomConfig {
            custom_configs: Some(Map::new()),
        }
    }
}

impl TableCustomConfig {
    /// One custom config value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.custom_configs.as_ref()?.get(key)?.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn default_and_empty_object_differ_as_in_pinot() {
        assert_eq!(
            serde_json::to_value(TableCustomConfig::default()).unwrap(),
            json!({"customConfigs": {}})
        );
        let empty: TableCustomConfig = serde_json::from_value(json!({})).unwrap();
        assert_eq!(serde_json::to_value(&empty).unwrap(), json!({}));
        let c: TableCustomConfig =
            serde_json::from_value(json!({"customConfigs": {"k": "v", "n": 3}})).unwrap();
        assert_eq!(c.get("k"), Some("v"));
        assert_eq!(c.get("n"), Some("3"));
    }
}
