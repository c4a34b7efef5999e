//! Argument conversion at evaluation time, the way Pinot converts a value to a function's
//! parameter type (`PinotDataType` conversions): numbers from any numeric value or numeric text,
//! text from any value, BYTES from hex text, epoch millis from numbers or timestamp text.

use super::error::FunctionError;
use segments::types::time::parse_timestamp;
use segments::types::value::decode_hex;
use segments::types::{DataType, Value};
use std::borrow::Cow;

/// The value's type for the type rules (text for values that have none, such as NULL).
pub(crate) fn type_of(v: &Value) -> DataType {
    v.data_type().unwrap_or(DataType::String)
}

/// Parses Java-style floating point text (`NaN`, `Infinity`, `-Infinity` included).
pub(crate) fn parse_f64(text: &str) -> Option<f64> {
    match text.trim() {
        "NaN" => Some(f64::NAN),
        "Infinity" | "+Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        t if t.eq_ignore_ascii_case("nan") || t.to_ascii_lowercase().contains("inf") => None,
        t => t.parse().ok(),
    }
}

/// A number as a double.
pub(crate) fn num(function: &'static str, v: &Value) -> Result<f64, FunctionError> {
    let parsed = match v {
        Value::String(s) | Value::Json(s) | Value::BigDecimal(s) => parse_f64(s),
        Value::Array(_) | Value::Bytes(_) | Value::Null => None,
        other => other.as_f64(),
    };
    parsed.ok_or_else(|| FunctionError::invalid(function, v, "not a number"))
}

/// A number as a whole number: integers as they are, floating point truncated toward zero
/// (saturating, as Java's `(long)` cast), numeric text parsed.
pub(crate) fn int(function: &'static str, v: &Value) -> Result<i64, FunctionError> {
    if let Some(i) = v.as_i64() {
        return Ok(i);
    }
    if let Value::String(s) | Value::Json(s) | Value::BigDecimal(s) = v
        && let Ok(i) = s.trim().parse::<i64>()
    {
        return Ok(i);
    }
    let f = num(function, v)?;
    if f.is_nan() {
        return Err(FunctionError::invalid(function, v, "not a whole number"));
    }
    Ok(f as i64)
}

/// A whole number that must fit an INT parameter.
pub(crate) fn int32(function: &'static str, v: &Value) -> Result<i32, FunctionError> {
    let i = int(function, v)?;
    i32::try_from(i).map_err(|_| FunctionError::invalid(function, v, "out of INT range"))
}

/// Epoch milliseconds: a whole number, or timestamp text (`2020-01-01 00:00:00`).
pub(crate) fn millis(function: &'static str, v: &Value) -> Result<i64, FunctionError> {
    match v {
        Value::String(s) | Value::Json(s) => parse_timestamp(s)
            .or_else(|| parse_f64(s).filter(|f| f.is_finite()).map(|f| f as i64))
            .ok_or_else(|| FunctionError::invalid(function, v, "not a timestamp")),
        other => int(function, other),
    }
}

/// Text: strings as they are, anything else in its display form (BYTES as hex).
pub(crate) fn text(v: &Value) -> Cow<'_, str> {
    match v {
        Value::String(s) | Value::Json(s) | Value::BigDecimal(s) => Cow::Borrowed(s),
        other => Cow::Owned(other.to_string()),
    }
}

/// Bytes: BYTES as they are, text as hex digits.
pub(crate) fn bytes<'a>(
    function: &'static str,
    v: &'a Value,
) -> Result<Cow<'a, [u8]>, FunctionError> {
    match v {
        Value::Bytes(b) => Ok(Cow::Borrowed(b)),
        Value::String(s) | Value::Json(s) => decode_hex(s.trim())
            .map(Cow::Owned)
            .ok_or_else(|| FunctionError::invalid(function, v, "not hex-encoded bytes")),
        _ => Err(FunctionError::invalid(function, v, "not bytes")),
    }
}

/// A truth value: BOOLEAN, a non-zero number, or `true`/`false` text.
pub(crate) fn boolean(function: &'static str, v: &Value) -> Result<bool, FunctionError> {
    match v {
        Value::Boolean(b) => Ok(*b),
        Value::String(s) | Value::Json(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            t => parse_f64(t)
                .map(|f| f != 0.0)
                .ok_or_else(|| FunctionError::invalid(function, v, "not a boolean")),
        },
        other => num(function, other).map(|f| f != 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(num("f", &Value::String(" 2.5 ".into())).unwrap(), 2.5);
        assert!(num("f", &Value::String("abc".into())).is_err());
        assert!(num("f", &Value::String("inf".into())).is_err());
        assert!(num("f", &Value::Bytes(vec![1])).is_err());
        assert_eq!(int("f", &Value::Double(-2.9)).unwrap(), -2);
        assert_eq!(int("f", &Value::Double(1e300)).unwrap(), i64::MAX);
        assert!(int("f", &Value::Double(f64::NAN)).is_err());
        assert_eq!(int("f", &Value::String("12".into())).unwrap(), 12);
        assert!(int32("f", &Value::Long(1 << 40)).is_err());
        assert_eq!(
            millis("f", &Value::String("1970-01-02".into())).unwrap(),
            86_400_000
        );
        assert_eq!(millis("f", &Value::Timestamp(5)).unwrap(), 5);
        assert_eq!(text(&Value::Int(3)), "3");
        assert_eq!(text(&Value::Bytes(vec![0xab])), "ab");
        assert_eq!(
            bytes("f", &Value::String("0aff".into())).unwrap().as_ref(),
            &[10, 255]
        );
        assert!(bytes("f", &Value::String("xyz".into())).is_err());
        assert!(boolean("f", &Value::String("TRUE".into())).unwrap());
        assert!(!boolean("f", &Value::Int(0)).unwrap());
    }
}
