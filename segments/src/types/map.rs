//! MAP cells (Pinot's `ComplexFieldSpec` of data type MAP): a map from text keys to values of
//! one declared type, kept as the text of a JSON object — `{"k0":5,"k1":7}` — which is what a
//! segment stores (a STRING-stored column, dictionary-encoded like any text) and what a result
//! shows (the object itself, as Pinot's broker renders a MAP column).
//!
//! Rows bring a map as a JSON object, an Avro or Parquet map (read as an object) or the text of
//! one; [`typed_map`] coerces each value to the declared type, so a value is stored once in
//! its typed form and [`item`] reads it back without guessing. A key whose value is null is
//! left out: a missing key and a null value read the same, as the value type's default null
//! value (Pinot's `NullDataSource` for a key no row has).

use super::data_type::DataType;
use super::value::Value;
use serde_json::{Map, Value as Json};

/// A row's map (a JSON object, or the text of one) with every value coerced to `value_type`;
/// the error says which entry does not fit.
pub fn typed_map(input: &Json, value_type: DataType) -> Result<Value, String> {
    let object = match input {
        Json::Object(o) => o,
        Json::String(s) => return typed_map_text(s, value_type),
        other => return Err(format!("cannot read '{other}' as a MAP: not a JSON object")),
    };
    let mut out = Map::with_capacity(object.len());
    for (key, value) in object {
        if value.is_null() {
            continue;
        }
        let cell = match value {
            Json::String(s) => Value::parse(value_type, s),
            Json::Bool(b) => Value::Boolean(*b).cast(value_type),
            Json::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => Value::Long(i).cast(value_type),
                (None, Some(f)) => Value::Double(f).cast(value_type),
                _ => Value::parse(value_type, &n.to_string()),
            },
            other => Value::parse(value_type, &other.to_string()),
        }
        .map_err(|e| format!("MAP entry '{key}': {e}"))?;
        out.insert(key.clone(), stored_json(&cell));
    }
    Ok(Value::Map(Json::Object(out).to_string()))
}

/// [`typed_map`] of the text of a JSON object.
pub fn typed_map_text(text: &str, value_type: DataType) -> Result<Value, String> {
    match serde_json::from_str::<Json>(text.trim()) {
        Ok(parsed @ Json::Object(_)) => typed_map(&parsed, value_type),
        _ => Err(format!("cannot read '{text}' as a MAP: not a JSON object")),
    }
}

/// How a typed value sits in the object: numbers as numbers (a TIMESTAMP as its epoch
/// millis, so it reads back exactly), the rest as [`Value::to_json`] renders them.
fn stored_json(value: &Value) -> Json {
    match value {
        Value::Timestamp(ms) => Json::from(*ms),
        Value::Boolean(b) => Json::Bool(*b),
        other => other.to_json(),
    }
}

/// `item(map, key)`: the value stored under `key`, as `value_type`; the type's default null
/// value when the key is absent; NULL when the map itself is.
pub fn item(map: &Value, key: &str, value_type: DataType) -> Result<Value, String> {
    let text = match map {
        Value::Null => return Ok(Value::Null),
        Value::Map(s) | Value::Json(s) | Value::String(s) => s,
        other => return Err(format!("item() needs a MAP, not '{other}'")),
    };
    let object: Map<String, Json> =
        serde_json::from_str(text).map_err(|_| format!("cannot read '{text}' as a MAP"))?;
    let absent = || Value::default_null(value_type, false);
    let Some(found) = object.get(key).filter(|v| !v.is_null()) else {
        return Ok(absent());
    };
    let value = match found {
        Json::String(s) => Value::parse(value_type, s),
        Json::Bool(b) => Value::Boolean(*b).cast(value_type),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Long(i).cast(value_type),
            None => Value::Double(n.as_f64().unwrap_or(f64::NAN)).cast(value_type),
        },
        other => Value::parse(value_type, &other.to_string()),
    };
    value.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_stored_typed_and_read_back() {
        let m = typed_map(&json!({"a": "5", "b": 7.0, "c": null}), DataType::Int).unwrap();
        assert_eq!(m, Value::Map(r#"{"a":5,"b":7}"#.into()));
        assert_eq!(item(&m, "a", DataType::Int).unwrap(), Value::Int(5));
        assert_eq!(item(&m, "c", DataType::Int).unwrap(), Value::Int(i32::MIN));
        assert_eq!(item(&Value::Null, "a", DataType::Int).unwrap(), Value::Null);

        let s = typed_map(&json!(r#"{"k": 1}"#), DataType::String).unwrap();
        assert_eq!(
            item(&s, "k", DataType::String).unwrap(),
            Value::String("1".into())
        );
        assert_eq!(
            item(&s, "x", DataType::String).unwrap(),
            Value::String("null".into())
        );

        let t = typed_map(&json!({"t": "2024-01-02 00:00:00"}), DataType::Timestamp).unwrap();
        assert_eq!(
            item(&t, "t", DataType::Timestamp).unwrap(),
            Value::Timestamp(1_704_153_600_000)
        );
    }

    #[test]
    fn what_is_not_a_map_is_refused() {
        assert!(typed_map(&json!([1, 2]), DataType::Int).is_err());
        assert!(typed_map(&json!("nope"), DataType::Int).is_err());
        let err = typed_map(&json!({"a": "x"}), DataType::Int).unwrap_err();
        assert!(err.contains("MAP entry 'a'"), "{err}");
        assert_eq!(
            Value::parse(DataType::Map, " {\"a\": 1} "),
            Ok(Value::Map(r#"{"a":1}"#.into()))
        );
        assert!(Value::parse(DataType::Map, "[1]").is_err());
    }
}
