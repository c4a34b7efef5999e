//! Star-tree index configs (`StarTreeIndexConfig.java`, `StarTreeAggregationConfig.java`) and
//! their `FUNCTION__column` pairs (`AggregationFunctionColumnPair.java`).
//!
//! A star-tree pre-aggregates over `dimensionsSplitOrder`; each pair names one pre-aggregated
//! value, e.g. `COUNT__*` or `MAX__ArrDelay`. Pairs are given either as strings in
//! `functionColumnPairs` or as objects in `aggregationConfigs` (exactly one of the two).

use super::coerce;
use super::error::TableConfigError;
use super::field_config::CompressionCodec;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::fmt;

/// Pinot's default leaf size when `maxLeafRecords` is absent or not positive.
pub const DEFAULT_MAX_LEAF_RECORDS: u32 = 10_000;

/// The column of `COUNT__*`.
pub const STAR: &str = "*";

/// Declares [`StarTreeFunction`] from `(variant, Pinot constant name, Pinot getName())`.
macro_rules! star_tree_functions {
    ($(($variant:ident, $constant:literal, $camel:literal)),* $(,)?) => {
        /// An aggregation a star-tree can pre-compute (Pinot's value aggregators,
        /// `ValueAggregatorFactory.java`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum StarTreeFunction { $($variant),* }

        impl StarTreeFunction {
            /// Every supported function.
            pub const ALL: &'static [StarTreeFunction] = &[$(StarTreeFunction::$variant),*];

            /// The `AggregationFunctionType` constant name (`"DISTINCTCOUNTHLL"`).
            pub fn name(self) -> &'static str {
                match self { $(StarTreeFunction::$variant => $constant),* }
            }

            /// Pinot's `getName()` (`"distinctCountHLL"`), used in star-tree column names.
            pub fn camel_name(self) -> &'static str {
                match self { $(StarTreeFunction::$variant => $camel),* }
            }
        }
    };
}

star_tree_functions! {
    (Count, "COUNT", "count"),
    (Sum, "SUM", "sum"),
    (Min, "MIN", "min"),
    (Max, "MAX", "max"),
    (Avg, "AVG", "avg"),
    (MinMaxRange, "MINMAXRANGE", "minMaxRange"),
    (SumPrecision, "SUMPRECISION", "sumPrecision"),
    (DistinctCountBitmap, "DISTINCTCOUNTBITMAP", "distinctCountBitmap"),
    (DistinctCountHll, "DISTINCTCOUNTHLL", "distinctCountHLL"),
    (DistinctCountRawHll, "DISTINCTCOUNTRAWHLL", "distinctCountRawHLL"),
    (DistinctCountHllPlus, "DISTINCTCOUNTHLLPLUS", "distinctCountHLLPlus"),
    (DistinctCountRawHllPlus, "DISTINCTCOUNTRAWHLLPLUS", "distinctCountRawHLLPlus"),
    (DistinctCountUll, "DISTINCTCOUNTULL", "distinctCountULL"),
    (DistinctCountRawUll, "DISTINCTCOUNTRAWULL", "distinctCountRawULL"),
    (DistinctCountThetaSketch, "DISTINCTCOUNTTHETASKETCH", "distinctCountThetaSketch"),
    (DistinctCountRawThetaSketch, "DISTINCTCOUNTRAWTHETASKETCH", "distinctCountRawThetaSketch"),
    (DistinctCountTupleSketch, "DISTINCTCOUNTTUPLESKETCH", "distinctCountTupleSketch"),
    (DistinctCountRawIntegerSumTupleSketch, "DISTINCTCOUNTRAWINTEGERSUMTUPLESKETCH", "distinctCountRawIntegerSumTupleSketch"),
    (SumValuesIntegerSumTupleSketch, "SUMVALUESINTEGERSUMTUPLESKETCH", "sumValuesIntegerSumTupleSketch"),
    (AvgValueIntegerSumTupleSketch, "AVGVALUEINTEGERSUMTUPLESKETCH", "avgValueIntegerSumTupleSketch"),
    (DistinctCountCpcSketch, "DISTINCTCOUNTCPCSKETCH", "distinctCountCPCSketch"),
    (DistinctCountRawCpcSketch, "DISTINCTCOUNTRAWCPCSKETCH", "distinctCountRawCPCSketch"),
    (PercentileEst, "PERCENTILEEST", "percentileEst"),
    (PercentileRawEst, "PERCENTILERAWEST", "percentileRawEst"),
    (PercentileTDigest, "PERCENTILETDIGEST", "percentileTDigest"),
    (PercentileRawTDigest, "PERCENTILERAWTDIGEST", "percentileRawTDigest"),
    (PercentileKll, "PERCENTILEKLL", "percentileKLL"),
    (PercentileRawKll, "PERCENTILERAWKLL", "percentileRawKLL"),
    (CountMv, "COUNTMV", "countMV"),
    (SumMv, "SUMMV", "sumMV"),
    (AvgMv, "AVGMV", "avgMV"),
}

impl StarTreeFunction {
    /// Parses a function name as Pinot does: case-insensitive, underscores ignored
    /// (`distinct_count_hll` is `DISTINCTCOUNTHLL`).
    pub fn parse(name: &str) -> Option<StarTreeFunction> {
        let canonical: String = name
            .chars()
            .filter(|c| *c != '_')
            .map(|c| c.to_ascii_uppercase())
            .collect();
        StarTreeFunction::ALL
            .iter()
            .copied()
            .find(|f| f.name() == canonical)
    }
}

impl fmt::Display for StarTreeFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One pre-aggregated value of a star-tree: a function over a column (`*` only for COUNT).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FunctionColumnPair {
    pub function: StarTreeFunction,
    pub column: String,
}

impl FunctionColumnPair {
    /// Parses `<FUNCTION>__<column>`. As in Pinot, a COUNT pair always counts `*`, whatever
    /// column it names. `None` when the text has no `__` or names no star-tree function.
    pub fn parse(text: &str) -> Option<FunctionColumnPair> {
        let (function, column) = text.split_once("__")?;
        FunctionColumnPair::new(StarTreeFunction::parse(function)?, column)
    }

    pub fn new(function: StarTreeFunction, column: &str) -> Option<FunctionColumnPair> {
        let column = if function == StarTreeFunction::Count {
            STAR
        } else {
            column
        };
        Some(FunctionColumnPair {
            function,
            column: column.to_string(),
        })
    }

    /// Whether the pair aggregates `*` (only COUNT may).
    pub fn is_star(&self) -> bool {
        self.column == STAR
    }

    /// The pre-aggregated column's name inside a star-tree (`count__*`, `max__ArrDelay`).
    pub fn to_column_name(&self) -> String {
        format!("{}__{}", self.function.camel_name(), self.column)
    }
}

impl fmt::Display for FunctionColumnPair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}__{}", self.function.name(), self.column)
    }
}

impl Serialize for FunctionColumnPair {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for FunctionColumnPair {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        FunctionColumnPair::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!("invalid function column pair '{text}'"))
        })
    }
}

/// One element of `starTreeIndexConfigs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "StarTreeIndexConfigJson")]
pub struct StarTreeIndexConfig {
    /// Split order (non-empty); the time column is treated as a dimension.
    pub dimensions_split_order: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_star_node_creation_for_dimensions: Option<Vec<String>>,
    /// `<FUNCTION>__<column>` strings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function_column_pairs: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aggregation_configs: Option<Vec<StarTreeAggregationConfig>>,
    /// As written (0 when absent); see [`StarTreeIndexConfig::effective_max_leaf_records`].
    pub max_leaf_records: i32,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StarTreeIndexConfigJson {
    #[serde(default, deserialize_with = "coerce::opt_string_list")]
    dimensions_split_order: Option<Vec<String>>,
    #[serde(default, deserialize_with = "coerce::opt_string_list")]
    skip_star_node_creation_for_dimensions: Option<Vec<String>>,
    #[serde(default, deserialize_with = "coerce::opt_string_list")]
    function_column_pairs: Option<Vec<String>>,
    #[serde(default)]
    aggregation_configs: Option<Vec<StarTreeAggregationConfig>>,
    #[serde(default, deserialize_with = "coerce::i32_or_zero")]
    max_leaf_records: i32,
}

impl TryFrom<StarTreeIndexConfigJson> for StarTreeIndexConfig {
    type Error = String;

    fn try_from(j: StarTreeIndexConfigJson) -> Result<Self, String> {
        let dimensions_split_order = j
            .dimensions_split_order
            .filter(|d| !d.is_empty())
            .ok_or("'dimensionsSplitOrder' must be configured")?;
        Ok(StarTreeIndexConfig {
            dimensions_split_order,
            skip_star_node_creation_for_dimensions: j.skip_star_node_creation_for_dimensions,
            function_column_pairs: j.function_column_pairs,
            aggregation_configs: j.aggregation_configs,
            max_leaf_records: j.max_leaf_records,
        })
    }
}

impl StarTreeIndexConfig {
    /// `maxLeafRecords`, or Pinot's default 10000 when it is not positive.
    pub fn effective_max_leaf_records(&self) -> u32 {
        u32::try_from(self.max_leaf_records)
            .ok()
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_MAX_LEAF_RECORDS)
    }

    /// Dimensions for which no star node is built.
    pub fn skipped_dimensions(&self) -> &[String] {
        self.skip_star_node_creation_for_dimensions
            .as_deref()
            .unwrap_or_default()
    }

    /// The pre-aggregations, from whichever of `functionColumnPairs` / `aggregationConfigs`
    /// is given, in order and without duplicates; errors as Pinot's validation words them.
    pub fn function_column_pairs(&self) -> Result<Vec<FunctionColumnPair>, TableConfigError> {
        let mut pairs: Vec<FunctionColumnPair> = Vec::new();
        match (&self.function_column_pairs, &self.aggregation_configs) {
            (Some(texts), None) => {
                for text in texts {
                    let pair = FunctionColumnPair::parse(text)
                        .ok_or_else(|| TableConfigError::InvalidFunctionColumnPair(text.clone()))?;
                    if pairs.contains(&pair) {
                        return Err(TableConfigError::DuplicateFunctionColumnPair(text.clone()));
                    }
                    if pair.is_star() && pair.function != StarTreeFunction::Count {
                        return Err(TableConfigError::StarColumnForNonCount(text.clone()));
                    }
                    pairs.push(pair);
                }
            }
            (None, Some(configs)) => {
                for config in configs {
                    let pair = config.function_column_pair()?;
                    if pairs.contains(&pair) {
                        return Err(TableConfigError::DuplicateFunctionColumnPair(
                            pair.to_string(),
                        ));
                    }
                    if pair.is_star() && pair.function != StarTreeFunction::Count {
                        return Err(TableConfigError::StarColumnForNonCount(pair.to_string()));
                    }
                    pairs.push(pair);
                }
            }
            _ => return Err(TableConfigError::StarTreeAggregationsUnspecified),
        }
        Ok(pairs)
    }
}

/// One element of a star-tree's `aggregationConfigs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "StarTreeAggregationConfigJson")]
pub struct StarTreeAggregationConfig {
    pub column_name: String,
    pub aggregation_function: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compression_codec: Option<CompressionCodec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub derive_num_docs_per_chunk: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_version: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_max_chunk_size: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_docs_per_chunk: Option<i64>,
    /// Opaque function parameters (e.g. sketch sizes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function_parameters: Option<Json>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StarTreeAggregationConfigJson {
    #[serde(default, deserialize_with = "coerce::opt_string")]
    column_name: Option<String>,
    #[serde(default, deserialize_with = "coerce::opt_string")]
    aggregation_function: Option<String>,
    #[serde(default)]
    compression_codec: Option<CompressionCodec>,
    #[serde(default, deserialize_with = "coerce::opt_bool")]
    derive_num_docs_per_chunk: Option<bool>,
    #[serde(default, deserialize_with = "coerce::opt_i64")]
    index_version: Option<i64>,
    #[serde(default, deserialize_with = "coerce::opt_string")]
    target_max_chunk_size: Option<String>,
    #[serde(default, deserialize_with = "coerce::opt_i64")]
    target_docs_per_chunk: Option<i64>,
    #[serde(default)]
    function_parameters: Option<Json>,
}

impl TryFrom<StarTreeAggregationConfigJson> for StarTreeAggregationConfig {
    type Error = String;

    fn try_from(j: StarTreeAggregationConfigJson) -> Result<Self, String> {
        Ok(StarTreeAggregationConfig {
            column_name: j.column_name.ok_or("'columnName' must be configured")?,
            aggregation_function: j
                .aggregation_function
                .ok_or("'aggregationFunction' must be configured")?,
            compression_codec: j.compression_codec,
            derive_num_docs_per_chunk: j.derive_num_docs_per_chunk,
            index_version: j.index_version,
            target_max_chunk_size: j.target_max_chunk_size,
            target_docs_per_chunk: j.target_docs_per_chunk,
            function_parameters: j.function_parameters.filter(|p| !p.is_null()),
        })
    }
}

impl StarTreeAggregationConfig {
    /// The pair this config pre-aggregates.
    pub fn function_column_pair(&self) -> Result<FunctionColumnPair, TableConfigError> {
        StarTreeFunction::parse(&self.aggregation_function)
            .and_then(|f| FunctionColumnPair::new(f, &self.column_name))
            .ok_or_else(|| {
                TableConfigError::InvalidStarTreeAggregation(
                    serde_json::to_string(self).unwrap_or_default(),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pairs_parse_like_pinot() {
        let p = FunctionColumnPair::parse("MAX__ArrDelay").unwrap();
        assert_eq!(
            (p.function, p.column.as_str()),
            (StarTreeFunction::Max, "ArrDelay")
        );
        assert_eq!(p.to_column_name(), "max__ArrDelay");
        let hll = FunctionColumnPair::parse("distinct_count_hll__user").unwrap();
        assert_eq!(hll.function, StarTreeFunction::DistinctCountHll);
        assert_eq!(hll.to_string(), "DISTINCTCOUNTHLL__user");
        assert_eq!(FunctionColumnPair::parse("COUNT__x").unwrap().column, "*");
        assert_eq!(
            FunctionColumnPair::parse("COUNT__*")
                .unwrap()
                .to_column_name(),
            "count__*"
        );
        assert!(FunctionColumnPair::parse("MAX_ArrDelay").is_none());
        assert!(FunctionColumnPair::parse("MEDIAN__x").is_none());
        for f in StarTreeFunction::ALL {
            assert_eq!(StarTreeFunction::parse(f.name()), Some(*f));
            assert_eq!(StarTreeFunction::parse(f.camel_name()), Some(*f));
        }
    }

    #[test]
    fn config_round_trips_and_defaults_leaf_records() {
        let input = json!({"dimensionsSplitOrder": ["a", "b"], "skipStarNodeCreationForDimensions": [],
                           "functionColumnPairs": ["COUNT__*", "SUM__m"]});
        let c: StarTreeIndexConfig = serde_json::from_value(input.clone()).unwrap();
        assert_eq!(c.effective_max_leaf_records(), 10_000);
        let mut expected = input;
        expected["maxLeafRecords"] = json!(0);
        assert_eq!(serde_json::to_value(&c).unwrap(), expected);
        assert_eq!(c.function_column_pairs().unwrap().len(), 2);
        let err =
            serde_json::from_value::<StarTreeIndexConfig>(json!({"dimensionsSplitOrder": []}))
                .unwrap_err();
        assert_eq!(err.to_string(), "'dimensionsSplitOrder' must be configured");
    }

    #[test]
    fn pair_list_errors() {
        let make = |v: Json| serde_json::from_value::<StarTreeIndexConfig>(v).unwrap();
        let both = make(
            json!({"dimensionsSplitOrder": ["a"], "functionColumnPairs": ["COUNT__*"],
            "aggregationConfigs": [{"columnName": "m", "aggregationFunction": "SUM"}]}),
        );
        assert_eq!(
            both.function_column_pairs(),
            Err(TableConfigError::StarTreeAggregationsUnspecified)
        );
        let neither = make(json!({"dimensionsSplitOrder": ["a"]}));
        assert_eq!(
            neither.function_column_pairs(),
            Err(TableConfigError::StarTreeAggregationsUnspecified)
        );
        let star = make(json!({"dimensionsSplitOrder": ["a"], "functionColumnPairs": ["SUM__*"]}));
        assert_eq!(
            star.function_column_pairs(),
            Err(TableConfigError::StarColumnForNonCount("SUM__*".into()))
        );
        let dup = make(
            json!({"dimensionsSplitOrder": ["a"], "functionColumnPairs": ["SUM__m", "sum__m"]}),
        );
        assert_eq!(
            dup.function_column_pairs(),
            Err(TableConfigError::DuplicateFunctionColumnPair(
                "sum__m".into()
            ))
        );
        let agg = make(json!({"dimensionsSplitOrder": ["a"],
            "aggregationConfigs": [{"columnName": "m", "aggregationFunction": "NOPE"}]}));
        assert_eq!(
            agg.function_column_pairs(),
            Err(TableConfigError::InvalidStarTreeAggregation(
                r#"{"columnName":"m","aggregationFunction":"NOPE"}"#.into()
            ))
        );
    }
}
