//! How values and sketch arguments enter the Apache DataSketches sketches
//! ([`super::datasketch`], [`super::integer_tuple`]): values as DataSketches Java hashes them
//! ([`Item`]), serialized sketches from BYTES or base64 text, and the errors of both.

use super::error::SketchError;
use crate::types::Value;
use base64::Engine;

/// A parameter the sketch does not accept.
pub fn invalid(sketch: &'static str, value: impl ToString, reason: &'static str) -> SketchError {
    SketchError::InvalidParameter {
        sketch,
        value: value.to_string(),
        reason,
    }
}

/// Bytes that are not a sketch of the kind.
pub fn corrupt(sketch: &'static str, e: impl std::fmt::Display) -> SketchError {
    SketchError::corrupt(sketch, e.to_string())
}

/// `lgK` for a theta-family sketch of `nominal_entries` (Java's `setNominalEntries(n)`, and
/// the tuple union's constructor): the log2 of `n` rounded up to a power of two.
pub fn nominal_lg_k(sketch: &'static str, nominal_entries: i64) -> Result<u8, SketchError> {
    if !(32..=(1 << 26)).contains(&nominal_entries) {
        return Err(invalid(
            sketch,
            nominal_entries,
            "nominalEntries must be between 32 and 67108864",
        ));
    }
    Ok((nominal_entries as u64)
        .next_power_of_two()
        .trailing_zeros() as u8)
}

/// A value as DataSketches Java hashes it.
pub enum Item<'a> {
    Long(i64),
    Double(f64),
    Bytes(std::borrow::Cow<'a, [u8]>),
}

pub fn item(v: &Value) -> Option<Item<'_>> {
    use std::borrow::Cow;
    Some(match v {
        Value::Null | Value::Array(_) => return None,
        Value::Int(x) => Item::Long(i64::from(*x)),
        Value::Long(x) | Value::Timestamp(x) => Item::Long(*x),
        Value::Boolean(b) => Item::Long(i64::from(*b)),
        Value::Float(x) => Item::Double(f64::from(*x)),
        Value::Double(x) => Item::Double(*x),
        Value::String(s) | Value::Json(s) | Value::BigDecimal(s) if !s.is_empty() => {
            Item::Bytes(Cow::Borrowed(s.as_bytes()))
        }
        Value::Bytes(b) if !b.is_empty() => Item::Bytes(Cow::Borrowed(b)),
        _ => return None,
    })
}

/// Bytes of a sketch argument: BYTES as they are, text as base64 (Pinot's scalar functions
/// take both).
pub fn sketch_bytes(v: &Value, sketch: &'static str) -> Result<Vec<u8>, SketchError> {
    match v {
        Value::Bytes(b) => Ok(b.clone()),
        Value::String(s) => base64::engine::general_purpose::STANDARD
            .decode(s.trim())
            .map_err(|e| corrupt(sketch, format!("not base64: {e}"))),
        other => Err(corrupt(sketch, format!("not a serialized sketch: {other}"))),
    }
}

/// Standard base64 (Java's `Base64.getEncoder()`), the text form of Pinot's RAW results.
pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
