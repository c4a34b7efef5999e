//! `upsertConfig` and `dedupConfig` (`UpsertConfig.java`, `DedupConfig.java`): primary-key
//! tables that keep only the latest row per key, or drop repeated keys.
//!
//! The fields Tessera reads are typed; the many tuning knobs Pinot keeps adding are carried
//! in `extra` and written back unchanged.

use super::coerce;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

/// How rows with the same primary key are merged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum UpsertMode {
    /// The latest row replaces the whole previous row.
    #[default]
    Full,
    /// Per-column merge strategies (`partialUpsertStrategies`).
    Partial,
    /// Upsert disabled.
    None,
}

/// How queries see an upsert table's rows while they change (`consistencyMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ConsistencyMode {
    /// Each segment's docs as they are when the query reaches it: while a key's row moves, a
    /// query can see it twice or not at all.
    #[default]
    None,
    /// Every segment's docs taken at one instant, under the lock ingestion updates them with.
    Sync,
    /// Every segment's docs from one view refreshed at most every `upsertViewRefreshIntervalMs`
    /// (or as fresh as the query's `upsertViewFreshnessMs` asks): ingestion never waits on
    /// queries, newer rows show once the view is refreshed.
    Snapshot,
}

/// `upsertConfig`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpsertConfig {
    #[serde(default)]
    pub mode: UpsertMode,
    /// Columns deciding which row is latest (default: the time column).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_list"
    )]
    pub comparison_columns: Option<Vec<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub delete_record_column: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub out_of_order_record_column: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_bool"
    )]
    pub drop_out_of_order_record: Option<bool>,
    /// Column → `APPEND | IGNORE | INCREMENT | MAX | MIN | OVERWRITE | FORCE_OVERWRITE | UNION`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_map"
    )]
    pub partial_upsert_strategies: Option<Map<String, Json>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub default_partial_upsert_strategy: Option<String>,
    /// `NONE`, `MD5`, `MURMUR3`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub hash_function: Option<String>,
    #[serde(
        default,
        rename = "metadataTTL",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_f64"
    )]
    pub metadata_ttl: Option<f64>,
    #[serde(
        default,
        rename = "deletedKeysTTL",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_f64"
    )]
    pub deleted_keys_ttl: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_bool"
    )]
    pub enable_snapshot: Option<bool>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_bool"
    )]
    pub enable_preload: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consistency_mode: Option<ConsistencyMode>,
    /// How old a `SNAPSHOT` view may grow before a query refreshes it (Pinot's default 3000).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_i64"
    )]
    pub upsert_view_refresh_interval_ms: Option<i64>,
    /// Keys not modelled here, written back unchanged.
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

impl UpsertConfig {
    /// Whether upsert is on (mode other than `NONE`).
    pub fn enabled(&self) -> bool {
        self.mode != UpsertMode::None
    }
}

/// `dedupConfig`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DedupConfig {
    #[serde(default, deserialize_with = "coerce::bool_or_false")]
    pub dedup_enabled: bool,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub hash_function: Option<String>,
    #[serde(
        default,
        rename = "metadataTTL",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_f64"
    )]
    pub metadata_ttl: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub dedup_time_column: Option<String>,
    /// Keys not modelled here, written back unchanged.
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn coerces_and_keeps_extras() {
        let u: UpsertConfig = serde_json::from_value(json!({
            "mode": "FULL", "enableSnapshot": "true", "enablePreload": "true", "metadataTTL": 0,
            "snapshotConcurrency": 4
        }))
        .unwrap();
        assert!(u.enabled());
        assert_eq!(
            serde_json::to_value(&u).unwrap(),
            json!({"mode": "FULL", "metadataTTL": 0.0, "enableSnapshot": true,
                   "enablePreload": true, "snapshotConcurrency": 4})
        );
        let none: UpsertConfig = serde_json::from_value(json!({"mode": "NONE"})).unwrap();
        assert!(!none.enabled());
        assert!(serde_json::from_value::<UpsertConfig>(json!({"mode": "SOMETIMES"})).is_err());
        let d: DedupConfig = serde_json::from_value(json!({"dedupEnabled": "true"})).unwrap();
        assert!(d.dedup_enabled);
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            json!({"dedupEnabled": true})
        );
    }
}
