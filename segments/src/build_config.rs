//! [`BuildConfig`]: what to build for each column — taken from a Pinot table config.
//!
//! [`BuildConfig::from_table_config_json`] reads the fields a segment build needs straight from
//! the table-config JSON (plain or wrapped as `{"OFFLINE": {...}}`): `tableName`,
//! `tableIndexConfig.{sortedColumn, invertedIndexColumns, rangeIndexColumns, noDictionaryColumns,
//! bloomFilterColumns, bloomFilterConfigs, jsonIndexColumns, jsonIndexConfigs,
//! nullHandlingEnabled}`, `fieldConfigList[].{name,
//! encodingType, indexTypes, indexes, timestampConfig}` and `segmentsConfig.timeColumnName`.
//! A `timestampConfig` adds the timestamp index's derived `$col$GRANULARITY` columns, each
//! with a range index (see [`crate::timestamp_index`]).
//! [`BuildConfig::validate`] checks the result against the schema.
//!
//! Multi-value columns are always dictionary-encoded: listing one in `noDictionaryColumns` is
//! accepted and ignored.

use crate::error::SegmentError;
use crate::index::bloom::DEFAULT_FPP;
use crate::index::json::JsonIndexConfig;
use crate::index::text::TextIndexConfig;
use crate::startree::StarTreeSpec;
use crate::timestamp_index::{DerivedColumn, TimestampGranularity};
use crate::types::table_config::StarTreeIndexConfig;
use crate::types::{DataType, Schema};
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};

/// What a segment build produces.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildConfig {
    /// Raw table name (no `_OFFLINE`).
    pub table_name: String,
    pub segment_name: String,
    pub time_column: Option<String>,
    /// Declared `sortedColumn`: the builder sorts rows by it.
    pub sorted_column: Option<String>,
    /// Raw forward index (zstd chunks) instead of a dictionary.
    pub no_dictionary: BTreeSet<String>,
    pub inverted: BTreeSet<String>,
    pub range: BTreeSet<String>,
    /// Column → bloom filter false-positive probability.
    pub bloom: BTreeMap<String, f64>,
    /// Column → its JSON index's options.
    pub json: BTreeMap<String, JsonIndexConfig>,
    /// Column → its text index's options.
    pub text: BTreeMap<String, TextIndexConfig>,
    /// `tableIndexConfig.nullHandlingEnabled`: record a null vector for every column (unless
    /// the schema enables column-based null handling, see [`BuildConfig::records_nulls`]).
    pub null_handling: bool,
    /// Timestamp index: source column → granularities; each adds a derived
    /// `$col$GRANULARITY` column (listed in `range` too).
    pub timestamp_index: BTreeMap<String, BTreeSet<TimestampGranularity>>,
    /// `tableIndexConfig.starTreeIndexConfigs`, in order.
    pub star_trees: Vec<StarTreeSpec>,
    /// `tableIndexConfig.enableDefaultStarTree`: add Pinot's default tree
    /// ([`crate::startree::writer::default_spec`]) after the configured ones.
    pub default_star_tree: bool,
    /// `tableIndexConfig.enableDynamicStarTreeCreation`: a reload builds, rebuilds or drops
    /// trees per the config; without it, segments keep the trees they have.
    pub dynamic_star_trees: bool,
    /// A short-lived segment (a consuming segment's chunk, rebuilt or dropped within seconds):
    /// var-width dictionaries are written plainly instead of in trained-zstd blocks, trading
    /// size for build time.
    pub plain_dictionaries: bool,
}

impl BuildConfig {
    /// Whether the builder keeps a null vector for `field`, as Pinot decides it: with the
    /// schema's `enableColumnBasedNullHandling`, for every column not declared `notNull`;
    /// otherwise for every column iff the table's `nullHandlingEnabled`. A column without a
    /// null vector stores its default null value and is never NULL to `IS NULL`.
    pub fn records_nulls(
        &self,
        schema: &crate::types::Schema,
        field: &crate::types::FieldSpec,
    ) -> bool {
        if schema.enable_column_based_null_handling {
            !field.not_null
        } else {
            self.null_handling
        }
    }
}

fn config_err(msg: impl Into<String>) -> SegmentError {
    SegmentError::Config(msg.into())
}

/// The strings of an optional JSON array field.
fn string_list(obj: &Json, key: &str) -> Result<Vec<String>, SegmentError> {
    match obj.get(key) {
        None | Some(Json::Null) => Ok(Vec::new()),
        Some(Json::String(s)) => Ok(vec![s.clone()]),
        Some(Json::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str().map(str::to_string).ok_or_else(|| {
                    config_err(format!(
                        "'{key}' must be a list of column names, found '{i}'"
                    ))
                })
            })
            .collect(),
        Some(other) => Err(config_err(format!(
            "'{key}' must be a list of column names, found '{other}'"
        ))),
    }
}

fn fpp_of(cfg: &Json, column: &str) -> Result<f64, SegmentError> {
    match cfg.get("fpp") {
        None | Some(Json::Null) => Ok(DEFAULT_FPP),
        Some(v) => v.as_f64().ok_or_else(|| {
            config_err(format!(
                "bloom filter fpp of column '{column}' must be a number, found '{v}'"
            ))
        }),
    }
}

fn json_config(cfg: &Json, column: &str) -> Result<JsonIndexConfig, SegmentError> {
    JsonIndexConfig::from_json(cfg).map_err(|e| config_err(format!("column '{column}': {e}")))
}

/// Whether an `indexes.<kind>` entry is enabled (`{}` or `{"enabled": true}`; not
/// `{"disabled": true}` / `{"enabled": false}`).
fn enabled(cfg: &Json) -> bool {
    cfg.get("disabled").and_then(Json::as_bool) != Some(true)
        && cfg.get("enabled").and_then(Json::as_bool) != Some(false)
}

/// Strips a `_OFFLINE` / `_REALTIME` suffix.
pub fn raw_table_name(name: &str) -> &str {
    name.strip_suffix("_OFFLINE")
        .or_else(|| name.strip_suffix("_REALTIME"))
        .unwrap_or(name)
}

impl BuildConfig {
    /// A config with no indexes.
    pub fn new(table_name: &str, segment_name: &str) -> BuildConfig {
        BuildConfig {
            table_name: raw_table_name(table_name).to_string(),
            segment_name: segment_name.to_string(),
            ..BuildConfig::default()
        }
    }

    /// Reads a Pinot table config (plain or `{"OFFLINE": {...}}`) and validates it against the
    /// schema. The segment name defaults to `<rawTable>_0`.
    pub fn from_table_config_json(
        json: &Json,
        schema: &Schema,
        segment_name: Option<&str>,
    ) -> Result<BuildConfig, SegmentError> {
        let cfg = if json.get("tableName").is_some() {
            json
        } else {
            json.get("OFFLINE")
                .or_else(|| json.get("REALTIME"))
                .filter(|c| c.is_object())
                .ok_or_else(|| config_err("table config has no 'tableName'"))?
        };
        let table = cfg
            .get("tableName")
            .and_then(Json::as_str)
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| config_err("'tableName' must be a non-empty string"))?;
        let raw = raw_table_name(table);
        let mut c = BuildConfig::new(raw, segment_name.unwrap_or(&format!("{raw}_0")));

        let empty = Json::Object(Default::default());
        let idx = cfg.get("tableIndexConfig").unwrap_or(&empty);
        let sorted = string_list(idx, "sortedColumn")?;
        if sorted.len() > 1 {
            return Err(config_err(format!(
                "only one sorted column is supported, found {sorted:?}"
            )));
        }
        c.sorted_column = sorted.into_iter().next();
        c.inverted.extend(string_list(idx, "invertedIndexColumns")?);
        c.range.extend(string_list(idx, "rangeIndexColumns")?);
        c.no_dictionary
            .extend(string_list(idx, "noDictionaryColumns")?);
        for col in string_list(idx, "bloomFilterColumns")? {
            c.bloom.insert(col, DEFAULT_FPP);
        }
        if let Some(cfgs) = idx.get("bloomFilterConfigs").filter(|v| !v.is_null()) {
            let map = cfgs
                .as_object()
                .ok_or_else(|| config_err("'bloomFilterConfigs' must be an object"))?;
            for (col, b) in map {
                c.bloom.insert(col.clone(), fpp_of(b, col)?);
            }
        }
        for col in string_list(idx, "jsonIndexColumns")? {
            c.json.insert(col, JsonIndexConfig::default());
        }
        if let Some(cfgs) = idx.get("jsonIndexConfigs").filter(|v| !v.is_null()) {
            let map = cfgs
                .as_object()
                .ok_or_else(|| config_err("'jsonIndexConfigs' must be an object"))?;
            for (col, j) in map {
                c.json.insert(col.clone(), json_config(j, col)?);
            }
        }
        c.null_handling = idx
            .get("nullHandlingEnabled")
            .and_then(Json::as_bool)
            .unwrap_or(false);
        if let Some(trees) = idx.get("starTreeIndexConfigs").filter(|v| !v.is_null()) {
            let configs: Vec<StarTreeIndexConfig> = serde_json::from_value(trees.clone())
                .map_err(|e| config_err(format!("invalid 'starTreeIndexConfigs': {e}")))?;
            for t in &configs {
                c.star_trees.push(StarTreeSpec::from_config(t)?);
            }
        }
        c.default_star_tree = idx
            .get("enableDefaultStarTree")
            .and_then(Json::as_bool)
            .unwrap_or(false);
        c.dynamic_star_trees = idx
            .get("enableDynamicStarTreeCreation")
            .and_then(Json::as_bool)
            .unwrap_or(false);

        if let Some(list) = cfg.get("fieldConfigList").filter(|v| !v.is_null()) {
            let list = list
                .as_array()
                .ok_or_else(|| config_err("'fieldConfigList' must be a list"))?;
            for f in list {
                let name = f
                    .get("name")
                    .and_then(Json::as_str)
                    .ok_or_else(|| config_err(format!("field config without a 'name': {f}")))?
                    .to_string();
                if f.get("encodingType").and_then(Json::as_str) == Some("RAW") {
                    c.no_dictionary.insert(name.clone());
                }
                // `indexTypes` (a list), or the older single `indexType`.
                let mut kinds = string_list(f, "indexTypes")?;
                kinds.extend(string_list(f, "indexType")?);
                for t in kinds {
                    match t.to_ascii_uppercase().as_str() {
                        "INVERTED" => {
                            c.inverted.insert(name.clone());
                        }
                        "RANGE" => {
                            c.range.insert(name.clone());
                        }
                        "BLOOM" | "BLOOM_FILTER" => {
                            c.bloom.entry(name.clone()).or_insert(DEFAULT_FPP);
                        }
                        "JSON" => {
                            c.json.entry(name.clone()).or_default();
                        }
                        "TEXT" => {
                            let props = f.get("properties").unwrap_or(&Json::Null);
                            c.text
                                .insert(name.clone(), TextIndexConfig::from_properties(props));
                        }
                        _ => {}
                    }
                }
                for g in string_list(
                    f.get("timestampConfig").unwrap_or(&Json::Null),
                    "granularities",
                )? {
                    let g = TimestampGranularity::parse(&g).ok_or_else(|| {
                        config_err(format!(
                            "unknown timestamp index granularity '{g}' of column '{name}'"
                        ))
                    })?;
                    c.add_timestamp_index(&name, g);
                }
                if let Some(indexes) = f.get("indexes").and_then(Json::as_object) {
                    for (kind, cfg) in indexes.iter().filter(|(_, v)| enabled(v)) {
                        match kind.as_str() {
                            "inverted" => {
                                c.inverted.insert(name.clone());
                            }
                            "range" => {
                                c.range.insert(name.clone());
                            }
                            "bloom" => {
                                c.bloom.insert(name.clone(), fpp_of(cfg, &name)?);
                            }
                            "json" => {
                                c.json.insert(name.clone(), json_config(cfg, &name)?);
                            }
                            "text" => {
                                let t = TextIndexConfig::from_json(cfg)
                                    .map_err(|e| config_err(format!("column '{name}': {e}")))?;
                                c.text.insert(name.clone(), t);
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        c.time_column = cfg
            .get("segmentsConfig")
            .and_then(|s| s.get("timeColumnName"))
            .and_then(Json::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        c.validate(schema)?;
        Ok(c)
    }

    /// Adds a timestamp index granularity on `column`: the derived column and its range index.
    pub fn add_timestamp_index(&mut self, column: &str, granularity: TimestampGranularity) {
        self.timestamp_index
            .entry(column.to_string())
            .or_default()
            .insert(granularity);
        self.range.insert(granularity.derived_column(column));
    }

    /// The timestamp index's derived columns, by source column then granularity.
    pub fn derived_columns(&self) -> Vec<DerivedColumn> {
        self.timestamp_index
            .iter()
            .flat_map(|(col, gs)| gs.iter().map(move |g| DerivedColumn::new(col, *g)))
            .collect()
    }

    /// The schema a build writes: `schema` plus the derived timestamp-index columns.
    pub fn build_schema(&self, schema: &Schema) -> Result<Schema, SegmentError> {
        crate::timestamp_index::extend_schema(schema, &self.derived_columns())
    }

    /// Whether `column` (of the schema) is dictionary-encoded.
    pub fn has_dictionary(&self, column: &str, single_value: bool) -> bool {
        !single_value || !self.no_dictionary.contains(column)
    }

    /// Checks every referenced column exists and every index is possible for its column.
    pub fn validate(&self, schema: &Schema) -> Result<(), SegmentError> {
        if self.segment_name.is_empty()
            || self.segment_name.contains(['/', '\\'])
            || self.segment_name.starts_with('.')
        {
            return Err(config_err(format!(
                "invalid segment name '{}'",
                self.segment_name
            )));
        }
        let full = self.build_schema(schema)?;
        let schema = &full;
        let field = |col: &str, what: &str| {
            schema
                .field(col)
                .ok_or_else(|| config_err(format!("column '{col}' in {what} is not in the schema")))
        };
        if let Some(t) = &self.time_column {
            field(t, "timeColumnName")?;
        }
        if let Some(s) = &self.sorted_column
            && !field(s, "sortedColumn")?.single_value_field
        {
            return Err(config_err(format!(
                "sorted column '{s}' must be single-value"
            )));
        }
        for c in &self.no_dictionary {
            field(c, "noDictionaryColumns")?;
        }
        for c in &self.inverted {
            let f = field(c, "invertedIndexColumns")?;
            if !self.has_dictionary(c, f.single_value_field) {
                return Err(config_err(format!(
                    "cannot create an inverted index on no-dictionary column '{c}'"
                )));
            }
        }
        for c in &self.range {
            let f = field(c, "rangeIndexColumns")?;
            if !self.has_dictionary(c, f.single_value_field) && !f.data_type.is_fixed_width() {
                return Err(config_err(format!(
                    "range index on no-dictionary column '{c}' needs a numeric type, not {}",
                    f.data_type
                )));
            }
        }
        for t in &self.star_trees {
            for d in &t.dimensions {
                let f = schema.field(d).ok_or_else(|| {
                    config_err(format!(
                        "Failed to find dimension column: {d} specified in star-tree index config in schema"
                    ))
                })?;
                if !self.has_dictionary(d, f.single_value_field) {
                    return Err(config_err(format!(
                        "Cannot create star-tree index on dimension column: {d} without dictionary"
                    )));
                }
                if !f.single_value_field {
                    return Err(config_err(format!(
                        "Cannot create star-tree index on multi-value dimension column: {d}"
                    )));
                }
            }
            for d in &t.skip_star_node_creation {
                if !t.dimensions.contains(d) {
                    return Err(config_err(format!(
                        "Cannot skip star node creation for dimension: {d} not in the dimensions split order"
                    )));
                }
            }
            for p in t.function_column_pairs.iter().filter(|p| !p.is_star()) {
                let f = field(&p.column, "a star-tree function column pair")?;
                let hashes = crate::startree::values::reads_hashes(p.function);
                if !f.single_value_field || (!hashes && !f.data_type.is_numeric()) {
                    return Err(config_err(format!(
                        "star-tree pair '{p}' needs a single-value{} column, '{}' is {}{}",
                        if hashes { "" } else { " numeric" },
                        p.column,
                        if f.single_value_field {
                            ""
                        } else {
                            "multi-value "
                        },
                        f.data_type
                    )));
                }
            }
        }
        for c in self.text.keys() {
            let f = field(c, "a text index config")?;
            if f.data_type.stored() != crate::types::StoredType::String {
                return Err(config_err(format!(
                    "Cannot create TEXT index on column: {c} of stored type other than STRING"
                )));
            }
        }
        for c in self.json.keys() {
            let f = field(c, "jsonIndexConfigs")?;
            if !f.single_value_field {
                return Err(config_err(format!(
                    "Cannot create JSON index on multi-value column: {c}"
                )));
            }
            if f.data_type.stored() != crate::types::StoredType::String {
                return Err(config_err(format!(
                    "Cannot create JSON index on column: {c} of stored type other than STRING or MAP"
                )));
            }
        }
        for (c, fpp) in &self.bloom {
            field(c, "bloomFilterConfigs")?;
            if !(*fpp > 0.0 && *fpp < 1.0) {
                return Err(config_err(format!(
                    "bloom filter fpp {fpp} of column '{c}' must be in (0, 1)"
                )));
            }
        }
        if schema
            .fields
            .iter()
            .any(|f| f.data_type == DataType::Json && !f.single_value_field)
        {
            return Err(SegmentError::Schema(
                "JSON columns must be single-value".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Schema {
        Schema::from_json(
            r#"{"schemaName":"t","dimensionFieldSpecs":[
                {"name":"a","dataType":"STRING"},{"name":"tags","dataType":"STRING","singleValueField":false},
                {"name":"s","dataType":"STRING"}],
              "metricFieldSpecs":[{"name":"m","dataType":"DOUBLE"}],
              "dateTimeFieldSpecs":[{"name":"ts","dataType":"TIMESTAMP","format":"TIMESTAMP","granularity":"1:MILLISECONDS"}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn reads_all_index_settings() {
        let cfg = json!({"OFFLINE": {
        "tableName": "t_OFFLINE",
        "segmentsConfig": {"timeColumnName": "ts"},
        "tableIndexConfig": {
            "sortedColumn": ["a"], "invertedIndexColumns": ["a"], "rangeIndexColumns": ["m"],
            "noDictionaryColumns": ["m", "tags"], "bloomFilterColumns": ["a"],
            "bloomFilterConfigs": {"ts": {"fpp": 0.01}}, "nullHandlingEnabled": true},
        "fieldConfigList": [
            {"name": "s", "encodingType": "DICTIONARY", "indexTypes": ["INVERTED"]},
            {"name": "tags", "indexes": {"range": {}, "bloom": {"fpp": 0.2}, "inverted": {"enabled": false}}}
        ]}});
        let c = BuildConfig::from_table_config_json(&cfg, &schema(), None).unwrap();
        assert_eq!(c.table_name, "t");
        assert_eq!(c.segment_name, "t_0");
        assert_eq!(c.time_column.as_deref(), Some("ts"));
        assert_eq!(c.sorted_column.as_deref(), Some("a"));
        assert_eq!(c.inverted, ["a", "s"].map(String::from).into());
        assert_eq!(c.range, ["m", "tags"].map(String::from).into());
        assert_eq!(
            c.bloom,
            [
                ("a".to_string(), 0.05),
                ("tags".into(), 0.2),
                ("ts".into(), 0.01)
            ]
            .into()
        );
        assert!(c.null_handling);
        assert!(!c.has_dictionary("m", true));
        assert!(
            c.has_dictionary("tags", false),
            "multi-value columns keep their dictionary"
        );
    }

    #[test]
    fn rejects_impossible_configs() {
        let s = schema();
        let err = |v: serde_json::Value| {
            BuildConfig::from_table_config_json(&v, &s, Some("x"))
                .unwrap_err()
                .to_string()
        };
        assert!(
            err(json!({"tableName": "t", "tableIndexConfig": {"invertedIndexColumns": ["nope"]}}))
                .contains("column 'nope' in invertedIndexColumns is not in the schema")
        );
        assert!(err(json!({"tableName": "t", "tableIndexConfig": {"noDictionaryColumns": ["a"], "invertedIndexColumns": ["a"]}}))
            .contains("no-dictionary column 'a'"));
        assert!(err(json!({"tableName": "t", "tableIndexConfig": {"noDictionaryColumns": ["s"], "rangeIndexColumns": ["s"]}}))
            .contains("needs a numeric type"));
        assert!(
            err(json!({"tableName": "t", "tableIndexConfig": {"sortedColumn": ["tags"]}}))
                .contains("single-value")
        );
        assert!(
            err(json!({"tableName": "t", "tableIndexConfig": {"invertedIndexColumns": "a b"}}))
                .contains("not in the schema")
        );
        assert!(
            err(json!({"tableName": "t", "tableIndexConfig": {"rangeIndexColumns": 5}}))
                .contains("list of column names")
        );
        assert!(err(json!({"tableIndexConfig": {}})).contains("tableName"));
        assert!(err(json!({"tableName": "t", "tableIndexConfig": {"bloomFilterConfigs": {"a": {"fpp": 2}}}})).contains("fpp"));
        let bad_name =
            BuildConfig::from_table_config_json(&json!({"tableName": "t"}), &s, Some("../x"));
        assert!(bad_name.is_err());
    }
}
