//! [`SegmentMetadata`] and [`ColumnMetadata`]: what a segment and each column hold, written as
//! `metadata.json` (Pinot's `metadata.properties`, in JSON).
//!
//! Typed values (min, max, default null) are stored as `{"type": "LONG", "value": "42"}` — the
//! data type plus an exact text form (integers and timestamps as integers, floats in shortest
//! round-trip form, bytes as hex) — so they round-trip bit-exactly; NULL is JSON `null`.

use crate::error::SegmentError;
use crate::index::IndexKind;
use crate::types::{DataType, FieldType, Value};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One index of a column and its size on disk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexInfo {
    pub kind: IndexKind,
    pub size_bytes: u64,
}

/// Per-column statistics and layout facts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ColumnMetadata {
    pub name: String,
    pub data_type: DataType,
    pub field_type: FieldType,
    pub single_value: bool,
    /// Distinct values (for raw columns: distinct 64-bit value hashes, exact in practice).
    pub cardinality: u32,
    /// Bits per dictionary id in the forward index (0 for raw columns).
    pub bits_per_element: u8,
    #[serde(with = "typed_value")]
    pub min_value: Value,
    #[serde(with = "typed_value")]
    pub max_value: Value,
    /// The column's values are non-decreasing in doc order (single-value columns only).
    pub sorted: bool,
    pub has_dictionary: bool,
    pub max_num_multi_values: u32,
    /// Number of values (docs for single-value columns, all entries for multi-value).
    pub total_number_of_entries: u64,
    pub has_nulls: bool,
    #[serde(with = "typed_value")]
    pub default_null_value: Value,
    pub indexes: Vec<IndexInfo>,
}

impl ColumnMetadata {
    /// Whether the column has an index of `kind` (dictionary and forward included).
    pub fn has_index(&self, kind: IndexKind) -> bool {
        self.indexes.iter().any(|i| i.kind == kind)
    }

    /// Bytes of all of the column's entries.
    pub fn size_bytes(&self) -> u64 {
        self.indexes.iter().map(|i| i.size_bytes).sum()
    }
}

/// Segment-level metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentMetadata {
    pub segment_name: String,
    /// Raw table name (no `_OFFLINE`).
    pub table_name: String,
    pub total_docs: u32,
    pub creation_time_ms: i64,
    pub format_version: u32,
    pub time_column: Option<String>,
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    /// Columns in schema order.
    pub columns: Vec<ColumnMetadata>,
    /// Star-trees, in build order (tree `i` is index-map target `startree:<i>`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub star_trees: Vec<crate::startree::StarTreeInfo>,
}

impl SegmentMetadata {
    /// The metadata of column `name`.
    pub fn column(&self, name: &str) -> Option<&ColumnMetadata> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// Parses `metadata.json`.
    pub fn parse(file: &Path, text: &[u8]) -> Result<SegmentMetadata, SegmentError> {
        serde_json::from_slice(text)
            .map_err(|e| SegmentError::corrupt(file, format!("invalid segment metadata: {e}")))
    }

    /// Pretty JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Serde for a [`Value`] as `{"type", "value"}` (see the module docs).
pub mod typed_value {
    use crate::types::{DataType, Value};
    use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error};

    #[derive(Serialize, Deserialize)]
    struct Typed {
        #[serde(rename = "type")]
        data_type: DataType,
        value: String,
    }

    /// Exact text of a non-null value, parseable back by [`Value::parse`].
    pub fn exact_text(v: &Value) -> String {
        match v {
            Value::Float(f) => format!("{f:?}"),
            Value::Double(f) => format!("{f:?}"),
            Value::Timestamp(ms) => ms.to_string(),
            other => other.to_string(),
        }
    }

    /// Serializes `v`.
    pub fn serialize<S: Serializer>(v: &Value, s: S) -> Result<S::Ok, S::Error> {
        match v.data_type() {
            None => s.serialize_none(),
            Some(data_type) => Typed {
                data_type,
                value: exact_text(v),
            }
            .serialize(s),
        }
    }

    /// Deserializes what [`serialize`] wrote.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        match Option::<Typed>::deserialize(d)? {
            None => Ok(Value::Null),
            Some(t) => {
                let text = match t.value.as_str() {
                    "inf" => "Infinity",
                    "-inf" => "-Infinity",
                    "NaN" | "nan" => "NaN",
                    other => other,
                };
                if t.data_type == DataType::Float {
                    // Parse as f32 directly: going through f64 could round twice.
                    if let Ok(f) = text.parse::<f32>() {
                        return Ok(Value::Float(f));
                    }
                }
                Value::parse(t.data_type, text).map_err(D::Error::custom)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Wrap(#[serde(with = "typed_value")] Value);

    fn round_trip(v: Value) {
        let json = serde_json::to_string(&Wrap(v.clone())).unwrap();
        let back: Wrap = serde_json::from_str(&json).unwrap();
        match (&v, &back.0) {
            (Value::Double(a), Value::Double(b)) => assert_eq!(a.to_bits(), b.to_bits(), "{json}"),
            (Value::Float(a), Value::Float(b)) => assert_eq!(a.to_bits(), b.to_bits(), "{json}"),
            _ => assert_eq!(back.0, v, "{json}"),
        }
    }

    #[test]
    fn typed_values_round_trip() {
        for v in [
            Value::Null,
            Value::Int(i32::MIN),
            Value::Long(i64::MAX),
            Value::Float(f32::NEG_INFINITY),
            Value::Double(f64::INFINITY),
            Value::Double(0.1),
            Value::Float(1e-40),
            Value::BigDecimal("-12.50".into()),
            Value::Boolean(true),
            Value::Timestamp(-1),
            Value::String("null".into()),
            Value::String(" spaced ".into()),
            Value::Json("{\"a\":1}".into()),
            Value::Bytes(vec![0, 255]),
        ] {
            round_trip(v);
        }
    }

    proptest! {
        #[test]
        fn doubles_round_trip(d: f64) {
            prop_assume!(!d.is_nan());
            round_trip(Value::Double(d));
        }
        #[test]
        fn floats_round_trip(d: f32) {
            prop_assume!(!d.is_nan());
            round_trip(Value::Float(d));
        }
    }
}
