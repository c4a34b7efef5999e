//! `fieldConfigList` entries (`FieldConfig.java`, `TimestampConfig.java`,
//! `TimestampIndexGranularity.java`): per-column encoding, index types, compression and the
//! timestamp index's granularities.
//!
//! Pinot reads both the legacy single `indexType` and the list `indexTypes`, and writes both
//! back (`indexType` is the first of `indexTypes`), which this type reproduces.

use super::coerce;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value as Json};

/// Forward-index encoding of a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EncodingType {
    Raw,
    Dictionary,
}

/// Index kinds named by `indexType` / `indexTypes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum IndexType {
    Inverted,
    Sorted,
    Text,
    Fst,
    Ifst,
    H3,
    Json,
    /// Ignored by Pinot: the timestamp index is driven by `timestampConfig`.
    Timestamp,
    Vector,
    Range,
    OpenStruct,
}

/// Forward-index compression codecs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CompressionCodec {
    #[serde(rename = "PASS_THROUGH")]
    PassThrough,
    #[serde(rename = "SNAPPY")]
    Snappy,
    #[serde(rename = "ZSTANDARD")]
    Zstandard,
    #[serde(rename = "LZ4")]
    Lz4,
    #[serde(rename = "GZIP")]
    Gzip,
    #[serde(rename = "MV_ENTRY_DICT")]
    MvEntryDict,
    #[serde(rename = "CLP")]
    Clp,
    #[serde(rename = "CLPV2")]
    ClpV2,
    #[serde(rename = "CLPV2_ZSTD")]
    ClpV2Zstd,
    #[serde(rename = "CLPV2_LZ4")]
    ClpV2Lz4,
    #[serde(rename = "DELTA")]
    Delta,
    #[serde(rename = "DELTADELTA")]
    DeltaDelta,
}

/// A granularity of the timestamp index; each adds a derived `$col$GRANULARITY` column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TimestampGranularity {
    Millisecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

impl TimestampGranularity {
    /// Pinot's name (`"DAY"`), as used in `dateTrunc('DAY', ts)`.
    pub fn name(self) -> &'static str {
        match self {
            TimestampGranularity::Millisecond => "MILLISECOND",
            TimestampGranularity::Second => "SECOND",
            TimestampGranularity::Minute => "MINUTE",
            TimestampGranularity::Hour => "HOUR",
            TimestampGranularity::Day => "DAY",
            TimestampGranularity::Week => "WEEK",
            TimestampGranularity::Month => "MONTH",
            TimestampGranularity::Quarter => "QUARTER",
            TimestampGranularity::Year => "YEAR",
        }
    }

    /// Parses a granularity name case-insensitively.
    pub fn parse(name: &str) -> Option<TimestampGranularity> {
        use TimestampGranularity::*;
        [
            Millisecond,
            Second,
            Minute,
            Hour,
            Day,
            Week,
            Month,
            Quarter,
            Year,
        ]
        .into_iter()
        .find(|g| g.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The derived column holding `dateTrunc(<granularity>, column)`: `$ts$DAY`.
    pub fn derived_column(self, column: &str) -> String {
        format!("${column}${}", self.name())
    }

    /// The derived column's DATE_TIME granularity (`TimestampIndexUtils`): DAY → `1:DAYS`,
    /// WEEK → `7:DAYS`, MONTH → `30:DAYS`, QUARTER → `90:DAYS`, YEAR → `365:DAYS`.
    pub fn granularity_spec(self) -> &'static str {
        match self {
            TimestampGranularity::Millisecond => "1:MILLISECONDS",
            TimestampGranularity::Second => "1:SECONDS",
            TimestampGranularity::Minute => "1:MINUTES",
            TimestampGranularity::Hour => "1:HOURS",
            TimestampGranularity::Day => "1:DAYS",
            TimestampGranularity::Week => "7:DAYS",
            TimestampGranularity::Month => "30:DAYS",
            TimestampGranularity::Quarter => "90:DAYS",
            TimestampGranularity::Year => "365:DAYS",
        }
    }
}

/// `timestampConfig`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimestampConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularities: Option<Vec<TimestampGranularity>>,
}

/// One element of `fieldConfigList`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "FieldConfigJson")]
pub struct FieldConfig {
    pub name: String,
    /// `None` means dictionary-encoded.
    pub encoding_type: Option<EncodingType>,
    /// From `indexTypes`, or the legacy single `indexType`.
    pub index_types: Vec<IndexType>,
    pub compression_codec: Option<CompressionCodec>,
    pub timestamp_config: Option<TimestampConfig>,
    /// The newer per-index object form, keyed by index id (`inverted`, `range`, `bloom`,
    /// `dictionary`, …); opaque, see [`FieldConfig::index_enabled`].
    pub indexes: Option<Json>,
    /// String properties (`forwardIndexDisabled`, text-index options, …).
    pub properties: Option<Map<String, Json>>,
    /// Per-tier overrides of this field config; opaque.
    pub tier_overwrites: Option<Json>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FieldConfigJson {
    #[serde(default, deserialize_with = "coerce::opt_string")]
    name: Option<String>,
    #[serde(default)]
    encoding_type: Option<EncodingType>,
    #[serde(default)]
    index_type: Option<IndexType>,
    #[serde(default)]
    index_types: Option<Vec<IndexType>>,
    #[serde(default)]
    compression_codec: Option<CompressionCodec>,
    #[serde(default)]
    timestamp_config: Option<TimestampConfig>,
    #[serde(default)]
    indexes: Option<Json>,
    #[serde(default, deserialize_with = "coerce::opt_string_map")]
    properties: Option<Map<String, Json>>,
    #[serde(default)]
    tier_overwrites: Option<Json>,
}

impl TryFrom<FieldConfigJson> for FieldConfig {
    type Error = String;

    fn try_from(j: FieldConfigJson) -> Result<Self, String> {
        let name = j.name.ok_or("'name' must be configured")?;
        let index_types = j
            .index_types
            .unwrap_or_else(|| j.index_type.into_iter().collect());
        Ok(FieldConfig {
            name,
            encoding_type: j.encoding_type,
            index_types,
            compression_codec: j.compression_codec,
            timestamp_config: j.timestamp_config,
            indexes: j.indexes.filter(|v| !v.is_null()),
            properties: j.properties,
            tier_overwrites: j.tier_overwrites.filter(|v| !v.is_null()),
        })
    }
}

/// Pinot's output shape: `name, encodingType, indexType, indexTypes, compressionCodec,
/// timestampConfig, indexes, properties, tierOverwrites`, nulls omitted, `indexTypes` always.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FieldConfigOut<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding_type: Option<EncodingType>,
    #[serde(skip_serializing_if = "Option::is_none")]
    index_type: Option<IndexType>,
    index_types: &'a [IndexType],
    #[serde(skip_serializing_if = "Option::is_none")]
    compression_codec: Option<CompressionCodec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp_config: Option<&'a TimestampConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    indexes: Option<&'a Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<&'a Map<String, Json>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tier_overwrites: Option<&'a Json>,
}

impl Serialize for FieldConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        FieldConfigOut {
            name: &self.name,
            encoding_type: self.encoding_type,
            index_type: self.index_types.first().copied(),
            index_types: &self.index_types,
            compression_codec: self.compression_codec,
            timestamp_config: self.timestamp_config.as_ref(),
            indexes: self.indexes.as_ref(),
            properties: self.properties.as_ref(),
            tier_overwrites: self.tier_overwrites.as_ref(),
        }
        .serialize(s)
    }
}

impl FieldConfig {
    /// A dictionary-encoded field config with no indexes.
    pub fn new(name: &str) -> FieldConfig {
        FieldConfig {
            name: name.to_string(),
            encoding_type: Some(EncodingType::Dictionary),
            index_types: Vec::new(),
            compression_codec: None,
            timestamp_config: None,
            indexes: None,
            properties: None,
            tier_overwrites: None,
        }
    }

    /// True unless the column is RAW-encoded or `indexes.dictionary` is disabled.
    pub fn has_dictionary(&self) -> bool {
        self.encoding_type != Some(EncodingType::Raw) && !self.index_disabled("dictionary")
    }

    /// Whether `indexes.<id>` is present and not `"disabled": true`.
    pub fn index_enabled(&self, id: &str) -> bool {
        self.index_object(id).is_some() && !self.index_disabled(id)
    }

    /// The `indexes.<id>` object (e.g. `bloom` with its `fpp`).
    pub fn index_object(&self, id: &str) -> Option<&Json> {
        self.indexes.as_ref()?.get(id).filter(|v| !v.is_null())
    }

    fn index_disabled(&self, id: &str) -> bool {
        self.index_object(id)
            .and_then(|o| o.get("disabled"))
            .is_some_and(|d| d.as_bool() == Some(true) || d.as_str() == Some("true"))
    }

    /// The timestamp index granularities (empty without `timestampConfig`).
    pub fn timestamp_granularities(&self) -> &[TimestampGranularity] {
        self.timestamp_config
            .as_ref()
            .and_then(|t| t.granularities.as_deref())
            .unwrap_or_default()
    }

    /// One string property.
    pub fn property(&self, key: &str) -> Option<&str> {
        self.properties.as_ref()?.get(key)?.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn index_type_is_written_alongside_index_types() {
        let f: FieldConfig = serde_json::from_value(json!({
            "name": "ts", "encodingType": "DICTIONARY", "indexTypes": ["TIMESTAMP"],
            "timestampConfig": {"granularities": ["DAY", "WEEK", "MONTH"]}
        }))
        .unwrap();
        assert_eq!(
            serde_json::to_value(&f).unwrap(),
            json!({"name": "ts", "encodingType": "DICTIONARY", "indexType": "TIMESTAMP",
                   "indexTypes": ["TIMESTAMP"],
                   "timestampConfig": {"granularities": ["DAY", "WEEK", "MONTH"]}})
        );
        assert_eq!(f.timestamp_granularities()[2], TimestampGranularity::Month);
        let legacy: FieldConfig = serde_json::from_value(json!({
            "name": "location", "encodingType": "RAW", "indexType": "H3",
            "properties": {"resolutions": 5}
        }))
        .unwrap();
        assert_eq!(legacy.index_types, vec![IndexType::H3]);
        assert_eq!(legacy.property("resolutions"), Some("5"));
        assert!(!legacy.has_dictionary());
        let bare: FieldConfig = serde_json::from_value(json!({"name": "c"})).unwrap();
        assert_eq!(
            serde_json::to_value(&bare).unwrap(),
            json!({"name": "c", "indexTypes": []})
        );
    }

    #[test]
    fn indexes_object_form() {
        let f: FieldConfig = serde_json::from_value(json!({
            "name": "c", "indexes": {"inverted": {"enabled": "true"}, "range": {"disabled": true},
                                     "dictionary": {"disabled": "true"}}
        }))
        .unwrap();
        assert!(f.index_enabled("inverted"));
        assert!(!f.index_enabled("range"));
        assert!(!f.index_enabled("bloom"));
        assert!(!f.has_dictionary());
    }

    #[test]
    fn bad_values_are_rejected() {
        let err = |v: Json| {
            serde_json::from_value::<FieldConfig>(v)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(json!({"encodingType": "RAW"})),
            "'name' must be configured"
        );
        assert!(err(json!({"name": "c", "encodingType": "FANCY"})).contains("FANCY"));
        assert!(err(json!({"name": "c", "indexTypes": ["BTREE"]})).contains("BTREE"));
        assert!(
            err(json!({"name": "c", "timestampConfig": {"granularities": ["DECADE"]}}))
                .contains("DECADE")
        );
    }

    #[test]
    fn granularity_helpers() {
        assert_eq!(TimestampGranularity::Day.derived_column("ts"), "$ts$DAY");
        assert_eq!(TimestampGranularity::Week.granularity_spec(), "7:DAYS");
        assert_eq!(
            TimestampGranularity::parse("quarter"),
            Some(TimestampGranularity::Quarter)
        );
    }
}
