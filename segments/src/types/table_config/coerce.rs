//! Jackson-style scalar coercion for serde (`deserialize_with` helpers).
//!
//! Pinot reads its configs with Jackson's defaults, which are lenient about scalars: a JSON
//! number or boolean is accepted where a string is declared (`"replication": 1` becomes `"1"`),
//! a numeric or boolean string is accepted where a number or boolean is declared
//! (`"enableSnapshot": "true"`), and `null` for a primitive means the primitive's zero value.
//! These helpers give the table-config structs the same tolerance, so every config Pinot
//! accepts parses here too and is written back with Pinot's types.

use serde::Deserialize;
use serde::de::{Deserializer, Error};
use serde_json::{Map, Value as Json};

/// A JSON scalar as Jackson would bind it to a `String`; `None` for `null`.
fn scalar_to_string(value: Json) -> Result<Option<String>, String> {
    match value {
        Json::Null => Ok(None),
        Json::String(s) => Ok(Some(s)),
        Json::Number(n) => Ok(Some(n.to_string())),
        Json::Bool(b) => Ok(Some(b.to_string())),
        other => Err(format!("expected a string, found {}", kind(&other))),
    }
}

/// Names the JSON kind of a value for error messages.
pub(super) fn kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

fn to_bool(value: Json) -> Result<Option<bool>, String> {
    match value {
        Json::Null => Ok(None),
        Json::Bool(b) => Ok(Some(b)),
        Json::Number(n) => Ok(Some(n.as_f64().is_some_and(|f| f != 0.0))),
        Json::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(Some(true)),
            "false" | "" => Ok(Some(false)),
            _ => Err(format!("cannot coerce string '{s}' to a boolean")),
        },
        other => Err(format!("expected a boolean, found {}", kind(&other))),
    }
}

fn to_i64(value: Json) -> Result<Option<i64>, String> {
    match value {
        Json::Null => Ok(None),
        Json::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Ok(Some(i)),
            // Jackson truncates a float bound to an int.
            (None, Some(f)) if f.is_finite() => Ok(Some(f.trunc() as i64)),
            _ => Err(format!("number {n} is out of range")),
        },
        Json::String(s) => {
            let t = s.trim();
            if t.is_empty() {
                return Ok(None);
            }
            t.parse::<i64>()
                .map(Some)
                .map_err(|_| format!("cannot coerce string '{s}' to an integer"))
        }
        other => Err(format!("expected an integer, found {}", kind(&other))),
    }
}

fn to_f64(value: Json) -> Result<Option<f64>, String> {
    match value {
        Json::Null => Ok(None),
        Json::Number(n) => n
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("number {n} is out of range")),
        Json::String(s) => {
            let t = s.trim();
            if t.is_empty() {
                return Ok(None);
            }
            t.parse::<f64>()
                .map(Some)
                .map_err(|_| format!("cannot coerce string '{s}' to a number"))
        }
        other => Err(format!("expected a number, found {}", kind(&other))),
    }
}

/// `Option<String>` from any scalar.
pub(super) fn opt_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    scalar_to_string(Json::deserialize(d)?).map_err(D::Error::custom)
}

/// `bool` from a boolean, a `"true"`/`"false"` string or a number; `null` is `false`.
pub(super) fn bool_or_false<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(to_bool(Json::deserialize(d)?)
        .map_err(D::Error::custom)?
        .unwrap_or(false))
}

/// `Option<bool>` with the same coercions as [`bool_or_false`].
pub(super) fn opt_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    to_bool(Json::deserialize(d)?).map_err(D::Error::custom)
}

/// `i32` from a number or numeric string; `null` is `0`.
pub(super) fn i32_or_zero<'de, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
    let v = to_i64(Json::deserialize(d)?).map_err(D::Error::custom)?;
    i32::try_from(v.unwrap_or(0))
        .map_err(|_| D::Error::custom(format!("integer {} is out of range", v.unwrap_or(0))))
}

/// `Option<i64>` from a number or numeric string.
pub(super) fn opt_i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    to_i64(Json::deserialize(d)?).map_err(D::Error::custom)
}

/// `f64` from a number or numeric string; `null` is `0.0`.
pub(super) fn f64_or_zero<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(to_f64(Json::deserialize(d)?)
        .map_err(D::Error::custom)?
        .unwrap_or(0.0))
}

/// `Option<f64>` from a number or numeric string.
pub(super) fn opt_f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    to_f64(Json::deserialize(d)?).map_err(D::Error::custom)
}

fn list_of_strings(value: Json) -> Result<Option<Vec<String>>, String> {
    match value {
        Json::Null => Ok(None),
        Json::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                if let Some(s) = scalar_to_string(item)? {
                    out.push(s);
                }
            }
            Ok(Some(out))
        }
        // Jackson's ACCEPT_SINGLE_VALUE_AS_ARRAY is off: a lone string is an error.
        other => Err(format!(
            "expected an array of strings, found {}",
            kind(&other)
        )),
    }
}

/// `Option<Vec<String>>` whose elements may be any scalar (nulls are dropped).
pub(super) fn opt_string_list<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<String>>, D::Error> {
    list_of_strings(Json::deserialize(d)?).map_err(D::Error::custom)
}

fn map_of_strings(value: Json) -> Result<Option<Map<String, Json>>, String> {
    match value {
        Json::Null => Ok(None),
        Json::Object(entries) => {
            let mut out = Map::new();
            for (k, v) in entries {
                if let Some(s) = scalar_to_string(v).map_err(|e| format!("key '{k}': {e}"))? {
                    out.insert(k, Json::String(s));
                }
            }
            Ok(Some(out))
        }
        other => Err(format!("expected an object, found {}", kind(&other))),
    }
}

/// A `Map<String, String>` (kept as a JSON map of strings so key order survives); values may be
/// any scalar and are stored as strings, `null` values are dropped.
pub(super) fn opt_string_map<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Map<String, Json>>, D::Error> {
    map_of_strings(Json::deserialize(d)?).map_err(D::Error::custom)
}

/// A list of string maps (`streamConfigMaps`, `batchConfigMaps`).
pub(super) fn opt_string_map_list<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<Map<String, Json>>>, D::Error> {
    match Json::deserialize(d)? {
        Json::Null => Ok(None),
        Json::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(
                    map_of_strings(item)
                        .map_err(D::Error::custom)?
                        .unwrap_or_default(),
                );
            }
            Ok(Some(out))
        }
        other => Err(D::Error::custom(format!(
            "expected an array of objects, found {}",
            kind(&other)
        ))),
    }
}

/// Serde `skip_serializing_if` for empty strings (Pinot's `NON_EMPTY` inclusion).
pub(super) fn is_empty_str(s: &Option<String>) -> bool {
    s.as_deref().is_none_or(str::is_empty)
}

/// Serde `skip_serializing_if` for empty lists (Pinot's `NON_EMPTY` inclusion).
pub(super) fn is_empty_list(list: &Option<Vec<String>>) -> bool {
    list.as_ref().is_none_or(Vec::is_empty)
}

/// Serde default for fields whose Java primitive starts `true`.
pub(super) fn yes() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Probe {
        #[serde(default, deserialize_with = "opt_string")]
        s: Option<String>,
        #[serde(default, deserialize_with = "bool_or_false")]
        b: bool,
        #[serde(default, deserialize_with = "i32_or_zero")]
        i: i32,
        #[serde(default, deserialize_with = "opt_f64")]
        f: Option<f64>,
        #[serde(default, deserialize_with = "opt_string_map")]
        m: Option<Map<String, Json>>,
    }

    fn probe(v: Json) -> Result<Probe, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn scalars_coerce_like_jackson() {
        let p =
            probe(json!({"s": 1, "b": "TRUE", "i": "7", "f": "0.5", "m": {"a": 30, "b": null}}))
                .unwrap();
        assert_eq!(p.s.as_deref(), Some("1"));
        assert!(p.b);
        assert_eq!(p.i, 7);
        assert_eq!(p.f, Some(0.5));
        assert_eq!(
            p.m.unwrap(),
            json!({"a": "30"}).as_object().unwrap().clone()
        );
        let nulls = probe(json!({"s": null, "b": null, "i": null, "f": null})).unwrap();
        assert_eq!(
            nulls,
            Probe {
                s: None,
                b: false,
                i: 0,
                f: None,
                m: None
            }
        );
        assert_eq!(probe(json!({"i": 2.9})).unwrap().i, 2);
    }

    #[test]
    fn wrong_shapes_are_errors_naming_the_value() {
        assert!(
            probe(json!({"s": {"x": 1}}))
                .unwrap_err()
                .contains("expected a string")
        );
        assert!(probe(json!({"b": "yes"})).unwrap_err().contains("'yes'"));
        assert!(probe(json!({"i": "abc"})).unwrap_err().contains("'abc'"));
        assert!(
            probe(json!({"i": 9_999_999_999i64}))
                .unwrap_err()
                .contains("out of range")
        );
        assert!(
            probe(json!({"m": [1]}))
                .unwrap_err()
                .contains("expected an object")
        );
    }
}
