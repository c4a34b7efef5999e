//! `ingestionConfig` (`IngestionConfig.java` and `ingestion/*`): batch and stream sources,
//! row filter, column transforms and ingestion-time aggregation.
//!
//! `transformConfigs`, `filterConfig` and the primitives are modelled exactly (unknown keys
//! there are reported). The batch and stream source configs keep keys this model does not
//! name in `extra` and write them back, because Pinot grows them release by release.

use super::coerce;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

/// `ingestionConfig`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestionConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_ingestion_config: Option<BatchIngestionConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_ingestion_config: Option<StreamIngestionConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_config: Option<FilterConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform_configs: Option<Vec<TransformConfig>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complex_type_config: Option<ComplexTypeConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_conforming_transformer_config: Option<Json>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregation_configs: Option<Vec<AggregationConfig>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enrichment_configs: Option<Json>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_field_configs: Option<Json>,
    #[serde(default, deserialize_with = "coerce::bool_or_false")]
    pub continue_on_error: bool,
    #[serde(default, deserialize_with = "coerce::bool_or_false")]
    pub row_time_value_check: bool,
    /// Defaults to `true` in Pinot.
    #[serde(default = "coerce::yes", deserialize_with = "coerce::bool_or_false")]
    pub segment_time_value_check: bool,
}

impl Default for IngestionConfig {
    fn default() -> Self {
        IngestionConfig {
            batch_ingestion_config: None,
            stream_ingestion_config: None,
            filter_config: None,
            transform_configs: None,
            complex_type_config: None,
            schema_conforming_transformer_config: None,
            aggregation_configs: None,
            enrichment_configs: None,
            source_field_configs: None,
            continue_on_error: false,
            row_time_value_check: false,
            segment_time_value_check: true,
        }
    }
}

impl IngestionConfig {
    /// The transform configs (empty when none).
    pub fn transforms(&self) -> &[TransformConfig] {
        self.transform_configs.as_deref().unwrap_or_default()
    }

    /// The row filter expression (rows for which it is true are dropped).
    pub fn filter_function(&self) -> Option<&str> {
        self.filter_config.as_ref()?.filter_function.as_deref()
    }
}

/// `batchIngestionConfig`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchIngestionConfig {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_map_list"
    )]
    pub batch_config_maps: Option<Vec<Map<String, Json>>>,
    /// `APPEND` or `REFRESH`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub segment_ingestion_type: Option<String>,
    /// `HOURLY` or `DAILY`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub segment_ingestion_frequency: Option<String>,
    /// Keys not modelled here, written back unchanged.
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

/// `streamIngestionConfig`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamIngestionConfig {
    /// One string map per stream; see [`super::StreamConfig`].
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_map_list"
    )]
    pub stream_config_maps: Option<Vec<Map<String, Json>>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_bool"
    )]
    pub column_major_segment_builder_enabled: Option<bool>,
    /// Keys not modelled here (`pauselessConsumptionEnabled`, …), written back unchanged.
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

impl StreamIngestionConfig {
    /// Whether pauseless consumption is switched on.
    pub fn pauseless_consumption_enabled(&self) -> bool {
        self.extra
            .get("pauselessConsumptionEnabled")
            .is_some_and(|v| v.as_bool() == Some(true) || v.as_str() == Some("true"))
    }
}

/// `filterConfig`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterConfig {
    /// An expression; rows where it is true are dropped (`Groovy({...}, col)` or a function).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub filter_function: Option<String>,
}

/// `complexTypeConfig`: how nested input records become columns (applied by
/// [`crate::input::complex`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComplexTypeConfig {
    /// Array fields (flattened paths) unnested into one row per element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields_to_unnest: Option<Vec<String>>,
    /// Joins flattened names (default `.`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delimiter: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection_not_unnested_to_json: Option<CollectionNotUnnestedToJson>,
    /// Prefix → replacement for flattened names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefixes_to_rename: Option<std::collections::BTreeMap<String, String>>,
}

/// `complexTypeConfig.collectionNotUnnestedToJson`: which arrays that are not unnested become
/// their JSON text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CollectionNotUnnestedToJson {
    /// Arrays whose (first) element is a record or an array (Pinot's default).
    #[default]
    NonPrimitive,
    All,
    None,
}

/// One element of `transformConfigs`: a column computed from source columns.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TransformConfig {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub column_name: Option<String>,
    /// A function expression over source columns (`fromEpochDays(DaysSinceEpoch)`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub transform_function: Option<String>,
}

impl TransformConfig {
    /// A transform of `column` by `function`.
    pub fn new(column: &str, function: &str) -> TransformConfig {
        TransformConfig {
            column_name: Some(column.to_string()),
            transform_function: Some(function.to_string()),
        }
    }

    /// The source columns the expression reads, in order of first use: identifiers that are
    /// not function names, string literals or numbers. For `Groovy({script}, a, b)` these are
    /// the arguments after the script. An approximation of Pinot's `FunctionEvaluator`
    /// arguments, good enough for the config checks.
    pub fn arguments(&self) -> Vec<String> {
        self.transform_function
            .as_deref()
            .map(expression_arguments)
            .unwrap_or_default()
    }
}

/// Words that are never column references in an expression.
const KEYWORDS: [&str; 16] = [
    "true", "false", "null", "and", "or", "not", "is", "in", "between", "like", "case", "when",
    "then", "else", "end", "as",
];

/// Identifiers an expression reads (see [`TransformConfig::arguments`]).
pub fn expression_arguments(expr: &str) -> Vec<String> {
    let trimmed = expr.trim();
    let body = match trimmed.get(..7) {
        Some(head) if head.eq_ignore_ascii_case("groovy(") => match trimmed.rfind('}') {
            Some(end) => &trimmed[end + 1..],
            None => trimmed,
        },
        _ => trimmed,
    };
    let chars: Vec<char> = body.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' || c == '"' {
            // Skip a literal ('' escapes a quote inside single quotes); "quoted" identifiers count.
            let quote = c;
            let start = i + 1;
            i += 1;
            while i < chars.len() && !(chars[i] == quote && chars.get(i + 1) != Some(&quote)) {
                i += if chars[i] == quote { 2 } else { 1 };
            }
            if quote == '"' {
                let ident: String = chars[start..i.min(chars.len())].iter().collect();
                if !ident.is_empty() && !out.contains(&ident) {
                    out.push(ident);
                }
            }
            i += 1;
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '$' | '.'))
            {
                i += 1;
            }
            let ident: String = chars[start..i].iter().collect();
            let mut j = i;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            let is_call = chars.get(j) == Some(&'(');
            let is_keyword = KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(&ident));
            if !is_call && !is_keyword && !out.contains(&ident) {
                out.push(ident);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// One element of `ingestionConfig.aggregationConfigs` (ingestion-time rollup).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AggregationConfig {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub column_name: Option<String>,
    /// `SUM(col)`, `MAX(col)`, `DISTINCTCOUNTHLL(col, 12)`, …
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub aggregation_function: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn primitives_written_and_extras_kept() {
        let c: IngestionConfig = serde_json::from_value(json!({
            "streamIngestionConfig": {"streamConfigMaps": [{"streamType": "kafka", "n": 30}],
                                      "pauselessConsumptionEnabled": true},
            "transformConfigs": [{"columnName": "ts", "transformFunction": "fromEpochDays(DaysSinceEpoch)"}]
        }))
        .unwrap();
        assert_eq!(c.transforms()[0].arguments(), vec!["DaysSinceEpoch"]);
        let stream = c.stream_ingestion_config.as_ref().unwrap();
        assert!(stream.pauseless_consumption_enabled());
        assert_eq!(
            serde_json::to_value(&c).unwrap(),
            json!({
                "streamIngestionConfig": {"streamConfigMaps": [{"streamType": "kafka", "n": "30"}],
                                          "pauselessConsumptionEnabled": true},
                "transformConfigs": [{"columnName": "ts", "transformFunction": "fromEpochDays(DaysSinceEpoch)"}],
                "continueOnError": false, "rowTimeValueCheck": false, "segmentTimeValueCheck": true
            })
        );
        assert_eq!(
            IngestionConfig::default(),
            serde_json::from_value(json!({})).unwrap()
        );
    }

    #[test]
    fn expression_arguments_skip_functions_and_literals() {
        assert_eq!(
            expression_arguments("concat(first, \"last name\", '-x''y', 3.5, first)"),
            vec!["first", "last name"]
        );
        assert_eq!(
            expression_arguments("Groovy({a + b}, a, b)"),
            vec!["a", "b"]
        );
        assert_eq!(
            expression_arguments("jsonPathString(payload, '$.a.b', null)"),
            vec!["payload"]
        );
        assert_eq!(
            expression_arguments("dateTrunc('DAY', ts) > 0 AND flag = true"),
            vec!["ts", "flag"]
        );
        assert!(expression_arguments("now()").is_empty());
    }
}
