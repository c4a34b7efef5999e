//! A JSON cell as a [`Value`] for a column of a given type — the one definition of that
//! reading, whether the cell is a parsed [`serde_json::Value`] ([`json_to_value`],
//! [`json_into_value`]) or is read straight from a message's bytes by a deserializer
//! ([`JsonCell`], what a consuming segment does for every member of every JSON message, so no
//! `serde_json::Value` is built for it).
//!
//! Numbers become `LONG` when they are integers that fit and `DOUBLE` otherwise; text is the
//! column's own text for STRING and JSON columns and is parsed as the column's type for the
//! others (so `"2020-01-01"` fills a TIMESTAMP); `true`/`false` are BOOLEAN; arrays are
//! multi-value cells (a JSON column keeps an array's text); objects are kept as text by MAP,
//! JSON and STRING columns and are an error for the others. Whether the value then fits the
//! column (an `INT` out of range, an array in a single-value column) is the collector's
//! question, not this one's.

use crate::types::{DataType, Value};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value as Json;
use std::borrow::Cow;
use std::fmt;

/// Reads one JSON cell for a column of type `.0`. Its outcome is the cell's value, or why the
/// cell cannot be one — a cell that is well-formed JSON but not a value of the column is not a
/// deserialization error, so the rest of the message is still read.
#[derive(Debug, Clone, Copy)]
pub struct JsonCell(pub DataType);

/// Converts one JSON cell to a [`Value`] for a column of `dt`.
pub fn json_to_value(dt: DataType, v: &Json) -> Result<Value, String> {
    JsonCell(dt)
        .deserialize(v)
        .unwrap_or_else(|e| Err(e.to_string()))
}

/// [`json_to_value`] taking the value: its text moves into the value instead of being copied.
pub fn json_into_value(dt: DataType, v: Json) -> Result<Value, String> {
    JsonCell(dt)
        .deserialize(v)
        .unwrap_or_else(|e| Err(e.to_string()))
}

impl<'de> DeserializeSeed<'de> for JsonCell {
    type Value = Result<Value, String>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl JsonCell {
    fn text(self, s: Cow<'_, str>) -> Result<Value, String> {
        match self.0 {
            DataType::String => Ok(Value::String(s.into_owned())),
            DataType::Json => Ok(Value::Json(s.into_owned())),
            dt => Value::parse(dt, &s).map_err(|e| e.to_string()),
        }
    }
}

impl<'de> Visitor<'de> for JsonCell {
    type Value = Result<Value, String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a JSON cell for a {} column", self.0)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
        Ok(Ok(Value::Boolean(b)))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Self::Value, E> {
        Ok(Ok(Value::Long(i)))
    }

    fn visit_u64<E>(self, u: u64) -> Result<Self::Value, E> {
        Ok(Ok(
            i64::try_from(u).map_or(Value::Double(u as f64), Value::Long)
        ))
    }

    fn visit_f64<E>(self, f: f64) -> Result<Self::Value, E> {
        Ok(Ok(Value::Double(f)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(self.text(Cow::Borrowed(s)))
    }

    fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
        Ok(self.text(Cow::Owned(s)))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Ok(Value::Null))
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Ok(Value::Null))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        if self.0 == DataType::Json {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element::<Json>()? {
                items.push(item);
            }
            return Ok(Ok(Value::Json(Json::Array(items).to_string())));
        }
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut bad = None;
        while let Some(item) = seq.next_element_seed(self)? {
            match item {
                Ok(v) => items.push(v),
                Err(e) => {
                    bad.get_or_insert(e);
                }
            }
        }
        Ok(bad.map_or(Ok(Value::Array(items)), Err))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let object = Json::deserialize(MapAccessDeserializer::new(map))?;
        Ok(match self.0 {
            DataType::Map => Ok(Value::Map(object.to_string())),
            DataType::Json | DataType::String => Ok(Value::Json(object.to_string())),
            dt => Err(format!("cannot convert '{object}' to {dt}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cells_of_each_kind() {
        assert_eq!(
            json_to_value(DataType::Int, &json!([1, 2])).unwrap(),
            Value::Array(vec![Value::Long(1), Value::Long(2)])
        );
        assert_eq!(
            json_to_value(DataType::Json, &json!({"a": 1})).unwrap(),
            Value::Json("{\"a\":1}".into())
        );
        assert_eq!(
            json_to_value(DataType::Json, &json!([1, "x"])).unwrap(),
            Value::Json("[1,\"x\"]".into())
        );
        assert_eq!(
            json_to_value(DataType::String, &json!({"b": [true]})).unwrap(),
            Value::Json("{\"b\":[true]}".into())
        );
        assert_eq!(
            json_to_value(DataType::Map, &json!({"k": 1})).unwrap(),
            Value::Map("{\"k\":1}".into())
        );
        assert_eq!(
            json_to_value(DataType::Timestamp, &json!("1970-01-01 00:00:01")).unwrap(),
            Value::Timestamp(1000)
        );
        assert_eq!(
            json_to_value(DataType::Long, &json!(u64::MAX)).unwrap(),
            Value::Double(u64::MAX as f64)
        );
        assert_eq!(
            json_to_value(DataType::Double, &json!(-2.5)).unwrap(),
            Value::Double(-2.5)
        );
        assert_eq!(
            json_into_value(DataType::String, json!("owned")).unwrap(),
            Value::String("owned".into())
        );
        assert_eq!(
            json_to_value(DataType::Int, &Json::Null).unwrap(),
            Value::Null
        );
        assert_eq!(
            json_to_value(DataType::Int, &json!({"a": 1})).unwrap_err(),
            "cannot convert '{\"a\":1}' to INT"
        );
        assert!(json_to_value(DataType::Int, &json!(["1", "x"])).is_err());
    }

    /// Read from bytes, a cell that is not a value of its column leaves the reader able to go
    /// on: the next member is still read.
    #[test]
    fn a_bad_cell_is_not_a_parse_error() {
        let mut de = serde_json::Deserializer::from_slice(br#"["x", {"a": [1]}, 7] 8"#);
        let cell = JsonCell(DataType::Int).deserialize(&mut de).unwrap();
        assert!(cell.unwrap_err().contains("INT"));
        let next = JsonCell(DataType::Long).deserialize(&mut de).unwrap();
        assert_eq!(next, Ok(Value::Long(8)));
    }
}
