//! Pinot's column data types and how each is stored.
//!
//! A [`DataType`] is what the schema declares (`"dataType": "TIMESTAMP"`); its
//! [`StoredType`] is what the segment physically keeps: BOOLEAN is stored as INT,
//! TIMESTAMP as LONG, JSON as STRING, exactly as Pinot does.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A column's logical data type, spelled as in Pinot's schema JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DataType {
    Int,
    Long,
    Float,
    Double,
    BigDecimal,
    Boolean,
    Timestamp,
    String,
    Json,
    Bytes,
    /// A map from STRING keys to values of one type (a `complexFieldSpecs` entry whose
    /// `childFieldSpecs` name the key and value types); stored as its JSON object text.
    Map,
}

/// The physical representation a [`DataType`] is stored as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StoredType {
    Int,
    Long,
    Float,
    Double,
    BigDecimal,
    String,
    Bytes,
}

impl DataType {
    /// Every data type, in Pinot's declaration order.
    pub const ALL: [DataType; 11] = [
        DataType::Int,
        DataType::Long,
        DataType::Float,
        DataType::Double,
        DataType::BigDecimal,
        DataType::Boolean,
        DataType::Timestamp,
        DataType::String,
        DataType::Json,
        DataType::Bytes,
        DataType::Map,
    ];

    /// Pinot's name for the type (`"BIG_DECIMAL"`).
    pub fn name(self) -> &'static str {
        match self {
            DataType::Int => "INT",
            DataType::Long => "LONG",
            DataType::Float => "FLOAT",
            DataType::Double => "DOUBLE",
            DataType::BigDecimal => "BIG_DECIMAL",
            DataType::Boolean => "BOOLEAN",
            DataType::Timestamp => "TIMESTAMP",
            DataType::String => "STRING",
            DataType::Json => "JSON",
            DataType::Bytes => "BYTES",
            DataType::Map => "MAP",
        }
    }

    /// Parses a type name case-insensitively; `None` for an unknown name.
    pub fn parse(name: &str) -> Option<DataType> {
        let upper = name.trim().to_ascii_uppercase();
        DataType::ALL.into_iter().find(|t| t.name() == upper)
    }

    /// How values of this type are physically stored.
    pub fn stored(self) -> StoredType {
        match self {
            DataType::Int | DataType::Boolean => StoredType::Int,
            DataType::Long | DataType::Timestamp => StoredType::Long,
            DataType::Float => StoredType::Float,
            DataType::Double => StoredType::Double,
            DataType::BigDecimal => StoredType::BigDecimal,
            DataType::String | DataType::Json | DataType::Map => StoredType::String,
            DataType::Bytes => StoredType::Bytes,
        }
    }

    /// True for the types with numeric storage (INT, LONG, FLOAT, DOUBLE, BIG_DECIMAL, BOOLEAN, TIMESTAMP).
    pub fn is_numeric(self) -> bool {
        !matches!(
            self,
            DataType::String | DataType::Json | DataType::Bytes | DataType::Map
        )
    }

    /// True when values are fixed-width primitives (usable with zero-copy slices).
    pub fn is_fixed_width(self) -> bool {
        matches!(
            self.stored(),
            StoredType::Int | StoredType::Long | StoredType::Float | StoredType::Double
        )
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_parse_and_serde() {
        for t in DataType::ALL {
            assert_eq!(DataType::parse(t.name()), Some(t));
            assert_eq!(DataType::parse(&t.name().to_lowercase()), Some(t));
            let json = serde_json::to_string(&t).unwrap();
            assert_eq!(json, format!("\"{}\"", t.name()));
            assert_eq!(serde_json::from_str::<DataType>(&json).unwrap(), t);
        }
        assert_eq!(DataType::parse("VARCHAR"), None);
    }

    #[test]
    fn storage_follows_pinot() {
        assert_eq!(DataType::Boolean.stored(), StoredType::Int);
        assert_eq!(DataType::Timestamp.stored(), StoredType::Long);
        assert_eq!(DataType::Json.stored(), StoredType::String);
        assert!(!DataType::Bytes.is_numeric());
    }
}
