//! `tableIndexConfig` (`IndexingConfig.java`) with its bloom-filter and partition sub-configs.
//!
//! Fields are declared in the order Pinot writes them. Java primitives (`rangeIndexVersion`,
//! `aggregateMetrics`, `noDictionarySizeRatioThreshold`, …) are always written, with Pinot's
//! defaults when absent; everything else is omitted when unset.

use super::coerce;
use super::keyed::Keyed;
use super::star_tree::StarTreeIndexConfig;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

/// Pinot's default `rangeIndexVersion` (2; see `segments::index::range` for Tessera's layouts).
pub const DEFAULT_RANGE_INDEX_VERSION: i32 = 2;
/// Pinot's default `noDictionarySizeRatioThreshold`.
pub const DEFAULT_NO_DICTIONARY_SIZE_RATIO_THRESHOLD: f64 = 0.85;
/// Pinot's default bloom filter false-positive probability.
pub const DEFAULT_BLOOM_FILTER_FPP: f64 = 0.05;

fn default_range_index_version() -> i32 {
    DEFAULT_RANGE_INDEX_VERSION
}

fn default_no_dictionary_size_ratio_threshold() -> f64 {
    DEFAULT_NO_DICTIONARY_SIZE_RATIO_THRESHOLD
}

/// How a server loads segments: memory-mapped or on the heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadMode {
    Mmap,
    Heap,
}

/// `tableIndexConfig`. `{}` is valid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexingConfig {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_list"
    )]
    pub inverted_index_columns: Option<Vec<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_list"
    )]
    pub range_index_columns: Option<Vec<String>>,
    #[serde(
        default = "default_range_index_version",
        deserialize_with = "coerce::i32_or_zero"
    )]
    pub range_index_version: i32,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_list"
    )]
    pub json_index_columns: Option<Vec<String>>,
    /// Column → JSON index config; opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_index_configs: Option<Map<String, Json>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_list"
    )]
    pub map_index_columns: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map_index_configs: Option<Json>,
    #[serde(default, deserialize_with = "coerce::bool_or_false")]
    pub auto_generated_inverted_index: bool,
    #[serde(default, deserialize_with = "coerce::bool_or_false")]
    pub create_inverted_index_during_segment_generation: bool,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_list"
    )]
    pub h3_index_columns: Option<Vec<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_list"
    )]
    pub vector_index_columns: Option<Vec<String>>,
    #[serde(
        default,
        rename = "fstTypeForFSTIndex",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub fst_type_for_fst_index: Option<String>,
    /// At most one column in practice; a list in Pinot's JSON.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_list"
    )]
    pub sorted_column: Option<Vec<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_list"
    )]
    pub bloom_filter_columns: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bloom_filter_configs: Option<Keyed<BloomFilterConfig>>,
    /// `MMAP` or `HEAP`; omitted when unset (see [`IndexingConfig::load_mode`]).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub load_mode: Option<String>,
    /// Legacy location of the stream config map (string values).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_map"
    )]
    pub stream_configs: Option<Map<String, Json>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub segment_format_version: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub column_min_max_value_generator_mode: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_list"
    )]
    pub no_dictionary_columns: Option<Vec<String>>,
    /// Column → raw-encoding option (string values).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_map"
    )]
    pub no_dictionary_config: Option<Map<String, Json>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_list"
    )]
    pub on_heap_dictionary_columns: Option<Vec<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_list"
    )]
    pub var_length_dictionary_columns: Option<Vec<String>>,
    #[serde(default, deserialize_with = "coerce::bool_or_false")]
    pub enable_default_star_tree: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub star_tree_index_configs: Option<Vec<StarTreeIndexConfig>>,
    /// Per-tier overrides of this config; opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier_overwrites: Option<Json>,
    #[serde(default, deserialize_with = "coerce::bool_or_false")]
    pub enable_dynamic_star_tree_creation: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment_partition_config: Option<SegmentPartitionConfig>,
    #[serde(default, deserialize_with = "coerce::bool_or_false")]
    pub aggregate_metrics: bool,
    #[serde(default, deserialize_with = "coerce::bool_or_false")]
    pub null_handling_enabled: bool,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_bool"
    )]
    pub column_major_segment_builder_enabled: Option<bool>,
    #[serde(default, deserialize_with = "coerce::bool_or_false")]
    pub optimize_dictionary: bool,
    #[serde(default, deserialize_with = "coerce::bool_or_false")]
    pub optimize_dictionary_for_metrics: bool,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_bool"
    )]
    pub optimize_dictionary_type: Option<bool>,
    #[serde(
        default = "default_no_dictionary_size_ratio_threshold",
        deserialize_with = "coerce::f64_or_zero"
    )]
    pub no_dictionary_size_ratio_threshold: f64,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_f64"
    )]
    pub no_dictionary_cardinality_ratio_threshold: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub segment_name_generator_type: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_bool"
    )]
    pub skip_segment_preprocess: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi_column_text_index_config: Option<Json>,
}

impl Default for IndexingConfig {
    fn default() -> Self {
        // `{}` parses to Pinot's defaults; the object literal cannot fail.
        serde_json::from_value(Json::Object(Map::new())).unwrap_or_else(|_| unreachable!())
    }
}

/// `true` when `list` holds `column`.
fn listed(list: &Option<Vec<String>>, column: &str) -> bool {
    list.as_ref().is_some_and(|l| l.iter().any(|c| c == column))
}

impl IndexingConfig {
    /// The load mode, `MMAP` unless `HEAP` is configured.
    pub fn load_mode(&self) -> LoadMode {
        match self.load_mode.as_deref() {
            Some(m) if m.eq_ignore_ascii_case("heap") => LoadMode::Heap,
            _ => LoadMode::Mmap,
        }
    }

    /// The first sorted column, if any.
    pub fn sorted_column(&self) -> Option<&str> {
        self.sorted_column
            .as_ref()?
            .iter()
            .map(String::as_str)
            .find(|c| !c.is_empty())
    }

    /// Whether the legacy lists make `column` raw (`noDictionaryColumns`/`noDictionaryConfig`).
    pub fn is_no_dictionary(&self, column: &str) -> bool {
        listed(&self.no_dictionary_columns, column)
            || self
                .no_dictionary_config
                .as_ref()
                .is_some_and(|m| m.contains_key(column))
    }

    pub fn is_inverted(&self, column: &str) -> bool {
        listed(&self.inverted_index_columns, column)
    }

    pub fn is_range(&self, column: &str) -> bool {
        listed(&self.range_index_columns, column)
    }

    pub fn is_json(&self, column: &str) -> bool {
        listed(&self.json_index_columns, column)
            || self
                .json_index_configs
                .as_ref()
                .is_some_and(|m| m.contains_key(column))
    }

    pub fn is_h3(&self, column: &str) -> bool {
        listed(&self.h3_index_columns, column)
    }

    pub fn is_vector(&self, column: &str) -> bool {
        listed(&self.vector_index_columns, column)
    }

    pub fn is_on_heap_dictionary(&self, column: &str) -> bool {
        listed(&self.on_heap_dictionary_columns, column)
    }

    pub fn is_var_length_dictionary(&self, column: &str) -> bool {
        listed(&self.var_length_dictionary_columns, column)
    }

    /// The bloom filter for `column` from `bloomFilterConfigs` or `bloomFilterColumns`
    /// (the latter with default settings).
    pub fn bloom_filter(&self, column: &str) -> Option<BloomFilterConfig> {
        if let Some(c) = self
            .bloom_filter_configs
            .as_ref()
            .and_then(|m| m.get(column))
        {
            return Some(c.clone());
        }
        listed(&self.bloom_filter_columns, column).then(BloomFilterConfig::default)
    }

    /// Columns with a bloom filter, list first then configs, without repeats.
    pub fn bloom_filter_column_names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        let listed = self
            .bloom_filter_columns
            .iter()
            .flatten()
            .map(String::as_str);
        let configured = self.bloom_filter_configs.iter().flat_map(Keyed::keys);
        for c in listed.chain(configured) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    /// The star-tree configs (empty when none).
    pub fn star_trees(&self) -> &[StarTreeIndexConfig] {
        self.star_tree_index_configs.as_deref().unwrap_or_default()
    }
}

/// One value of `bloomFilterConfigs`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BloomFilterConfig {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_f64"
    )]
    pub fpp: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_i64"
    )]
    pub max_size_in_bytes: Option<i64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_bool"
    )]
    pub load_on_heap: Option<bool>,
}

impl BloomFilterConfig {
    /// The false-positive probability, Pinot's 0.05 when unset or not in (0, 1).
    pub fn effective_fpp(&self) -> f64 {
        self.fpp
            .filter(|f| *f > 0.0 && *f < 1.0)
            .unwrap_or(DEFAULT_BLOOM_FILTER_FPP)
    }
}

/// `segmentPartitionConfig`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentPartitionConfig {
    #[serde(default)]
    pub column_partition_map: Keyed<ColumnPartitionConfig>,
}

/// How one column is partitioned (`ColumnPartitionConfig.java`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "ColumnPartitionConfigJson")]
pub struct ColumnPartitionConfig {
    /// `Murmur`, `Modulo`, `HashCode`, `ByteArray`, …
    pub function_name: String,
    pub num_partitions: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function_config: Option<Map<String, Json>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ColumnPartitionConfigJson {
    #[serde(default, deserialize_with = "coerce::opt_string")]
    function_name: Option<String>,
    #[serde(default, deserialize_with = "coerce::i32_or_zero")]
    num_partitions: i32,
    #[serde(default, deserialize_with = "coerce::opt_string_map")]
    function_config: Option<Map<String, Json>>,
}

impl TryFrom<ColumnPartitionConfigJson> for ColumnPartitionConfig {
    type Error = String;

    fn try_from(j: ColumnPartitionConfigJson) -> Result<Self, String> {
        let function_name = j.function_name.ok_or("'functionName' must be configured")?;
        if j.num_partitions <= 0 {
            return Err("'numPartitions' must be positive".into());
        }
        Ok(ColumnPartitionConfig {
            function_name,
            num_partitions: j.num_partitions,
            function_config: j.function_config,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empty_object_gets_pinot_primitives() {
        let c: IndexingConfig = serde_json::from_value(json!({})).unwrap();
        assert_eq!(c, IndexingConfig::default());
        assert_eq!(
            serde_json::to_value(&c).unwrap(),
            json!({"rangeIndexVersion": 2, "autoGeneratedInvertedIndex": false,
                   "createInvertedIndexDuringSegmentGeneration": false, "enableDefaultStarTree": false,
                   "enableDynamicStarTreeCreation": false, "aggregateMetrics": false,
                   "nullHandlingEnabled": false, "optimizeDictionary": false,
                   "optimizeDictionaryForMetrics": false, "noDictionarySizeRatioThreshold": 0.85})
        );
        assert_eq!(c.load_mode(), LoadMode::Mmap);
    }

    #[test]
    fn column_lookups() {
        let c: IndexingConfig = serde_json::from_value(json!({
            "loadMode": "heap", "sortedColumn": ["", "Carrier"], "invertedIndexColumns": ["Origin"],
            "noDictionaryConfig": {"Blob": "SNAPPY"}, "bloomFilterColumns": ["Dest", "Origin"],
            "bloomFilterConfigs": {"Dest": {"fpp": 0.01}, "Tail": {"fpp": "2"}},
            "jsonIndexConfigs": {"payload": {}}
        }))
        .unwrap();
        assert_eq!(c.load_mode(), LoadMode::Heap);
        assert_eq!(c.sorted_column(), Some("Carrier"));
        assert!(c.is_inverted("Origin") && !c.is_inverted("Dest"));
        assert!(c.is_no_dictionary("Blob"));
        assert!(c.is_json("payload"));
        assert_eq!(c.bloom_filter("Dest").unwrap().effective_fpp(), 0.01);
        assert_eq!(c.bloom_filter("Origin").unwrap().effective_fpp(), 0.05);
        assert_eq!(c.bloom_filter("Tail").unwrap().effective_fpp(), 0.05);
        assert_eq!(c.bloom_filter("Nope"), None);
        assert_eq!(
            c.bloom_filter_column_names(),
            vec!["Dest", "Origin", "Tail"]
        );
    }

    #[test]
    fn partition_config_checks() {
        let ok: SegmentPartitionConfig = serde_json::from_value(json!({
            "columnPartitionMap": {"event_id": {"functionName": "Murmur", "numPartitions": "4"}}
        }))
        .unwrap();
        assert_eq!(
            ok.column_partition_map
                .get("event_id")
                .unwrap()
                .num_partitions,
            4
        );
        let err = |v: Json| {
            serde_json::from_value::<SegmentPartitionConfig>(v)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(json!({"columnPartitionMap": {"c": {"numPartitions": 4}}})),
            "'functionName' must be configured"
        );
        assert_eq!(
            err(json!({"columnPartitionMap": {"c": {"functionName": "Murmur"}}})),
            "'numPartitions' must be positive"
        );
    }
}
