//! [`Value`]: one typed cell, as rows enter a segment builder, literals enter a plan,
//! and results leave the engine.
//!
//! Values of one [`DataType`] have a total order ([`Value::total_cmp`]) that matches
//! dictionary order, so a sorted dictionary and a literal compare the same way.

use super::data_type::{DataType, StoredType};
use super::decimal::{Decimal, DecimalError};
use super::java_text;
use super::time::{format_timestamp, parse_timestamp};
use std::cmp::Ordering;
use std::fmt;

/// One cell. Multi-value cells are [`Value::Array`]. Serde (externally tagged) lets typed
/// literals travel inside query plans and values inside intermediate results.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Value {
    Null,
    Int(i32),
    Long(i64),
    Float(#[serde(with = "non_finite")] f32),
    Double(#[serde(with = "non_finite")] f64),
    /// A decimal kept in its canonical plain-string form (`toPlainString`).
    BigDecimal(String),
    Boolean(bool),
    /// Epoch milliseconds, UTC.
    Timestamp(i64),
    String(String),
    Json(String),
    Bytes(Vec<u8>),
    Array(Vec<Value>),
    /// A MAP cell: the text of a JSON object from keys to values of the map's value type; a
    /// result shows it as that object.
    Map(String),
}

/// Serde for float cells that keeps NaN and ±infinity (JSON has no literal for them; Pinot's
/// default null value of a FLOAT/DOUBLE dimension is `-Infinity`): finite values are numbers,
/// the others the strings `"NaN"`, `"Infinity"`, `"-Infinity"`, as Java prints them.
pub mod non_finite {
    use serde::{Deserialize, Deserializer, Serializer};

    /// A float type that travels through `f64`.
    pub trait Float: Copy {
        fn to_f64(self) -> f64;
        fn from_f64(v: f64) -> Self;
    }
    impl Float for f64 {
        fn to_f64(self) -> f64 {
            self
        }
        fn from_f64(v: f64) -> f64 {
            v
        }
    }
    impl Float for f32 {
        fn to_f64(self) -> f64 {
            f64::from(self)
        }
        fn from_f64(v: f64) -> f32 {
            v as f32
        }
    }

    /// A float that (de)serializes through this module; for containers of floats.
    #[derive(Clone, Copy, Debug)]
    pub struct Wrap<F>(pub F);

    impl<F: Float> serde::Serialize for Wrap<F> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            serialize(&self.0, s)
        }
    }

    impl<'de, F: Float> Deserialize<'de> for Wrap<F> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            deserialize(d).map(Wrap)
        }
    }

    /// `Option<f64>` fields.
    pub mod option {
        use super::Wrap;
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
            v.map(Wrap).serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
            Ok(Option::<Wrap<f64>>::deserialize(d)?.map(|w| w.0))
        }
    }

    /// `Option<(f64, f64)>` fields.
    pub mod option_pair {
        use super::Wrap;
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        pub fn serialize<S: Serializer>(v: &Option<(f64, f64)>, s: S) -> Result<S::Ok, S::Error> {
            v.map(|(a, b)| (Wrap(a), Wrap(b))).serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<(f64, f64)>, D::Error> {
            Ok(Option::<(Wrap<f64>, Wrap<f64>)>::deserialize(d)?.map(|(a, b)| (a.0, b.0)))
        }
    }

    /// `Vec<f64>` fields.
    pub mod vec {
        use super::Wrap;
        use serde::{Deserialize, Deserializer, Serializer};

        pub fn serialize<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(v.iter().map(|x| Wrap(*x)))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
            Ok(Vec::<Wrap<f64>>::deserialize(d)?
                .into_iter()
                .map(|w| w.0)
                .collect())
        }
    }

    /// Serializes `v`, non-finite values as text.
    pub fn serialize<F: Float, S: Serializer>(v: &F, s: S) -> Result<S::Ok, S::Error> {
        let v = v.to_f64();
        if v.is_nan() {
            s.serialize_str("NaN")
        } else if v.is_infinite() {
            s.serialize_str(if v > 0.0 { "Infinity" } else { "-Infinity" })
        } else {
            s.serialize_f64(v)
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum NumberOrText {
        Number(f64),
        Text(String),
    }

    /// Deserializes a number or one of the three non-finite texts.
    pub fn deserialize<'de, F: Float, D: Deserializer<'de>>(d: D) -> Result<F, D::Error> {
        let v = match NumberOrText::deserialize(d)? {
            NumberOrText::Number(v) => v,
            NumberOrText::Text(t) => match t.as_str() {
                "NaN" => f64::NAN,
                "Infinity" => f64::INFINITY,
                "-Infinity" => f64::NEG_INFINITY,
                other => {
                    return Err(serde::de::Error::custom(format!(
                        "expected a number, NaN or Infinity, found '{other}'"
                    )));
                }
            },
        };
        Ok(F::from_f64(v))
    }
}

/// Why a text could not become a value of a type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot parse '{text}' as {data_type}")]
pub struct ValueParseError {
    pub text: String,
    pub data_type: DataType,
}

impl Value {
    /// The value's data type; `None` for NULL and arrays of NULL.
    pub fn data_type(&self) -> Option<DataType> {
        Some(match self {
            Value::Null => return None,
            Value::Int(_) => DataType::Int,
            Value::Long(_) => DataType::Long,
            Value::Float(_) => DataType::Float,
            Value::Double(_) => DataType::Double,
            Value::BigDecimal(_) => DataType::BigDecimal,
            Value::Boolean(_) => DataType::Boolean,
            Value::Timestamp(_) => DataType::Timestamp,
            Value::String(_) => DataType::String,
            Value::Json(_) => DataType::Json,
            Value::Map(_) => DataType::Map,
            Value::Bytes(_) => DataType::Bytes,
            Value::Array(items) => return items.iter().find_map(Value::data_type),
        })
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Parses text as a value of `data_type` (CSV cells, config literals, SQL casts).
    /// Booleans accept `true/false/1/0` (case-insensitive); timestamps accept epoch millis
    /// and `yyyy-MM-dd[ HH:mm:ss[.S]]`; bytes are hex.
    pub fn parse(data_type: DataType, text: &str) -> Result<Value, ValueParseError> {
        let err = || ValueParseError {
            text: text.to_string(),
            data_type,
        };
        let t = text.trim();
        Ok(match data_type {
            DataType::Int => Value::Int(
                parse_integer(t)
                    .and_then(|v| i32::try_from(v).ok())
                    .ok_or_else(err)?,
            ),
            DataType::Long => Value::Long(parse_integer(t).ok_or_else(err)?),
            DataType::Float => Value::Float(parse_float(t).ok_or_else(err)? as f32),
            DataType::Double => Value::Double(parse_float(t).ok_or_else(err)?),
            DataType::BigDecimal => {
                t.parse::<f64>().map_err(|_| err())?;
                Value::BigDecimal(canonical_decimal(t))
            }
            DataType::Boolean => match t.to_ascii_lowercase().as_str() {
                "true" | "1" => Value::Boolean(true),
                "false" | "0" => Value::Boolean(false),
                _ => return Err(err()),
            },
            DataType::Timestamp => Value::Timestamp(parse_timestamp(t).ok_or_else(err)?),
            DataType::String => Value::String(text.to_string()),
            DataType::Json => Value::Json(text.to_string()),
            DataType::Map => Value::Map(map_text(text).ok_or_else(err)?),
            DataType::Bytes => Value::Bytes(decode_hex(t).ok_or_else(err)?),
        })
    }

    /// `self` as `data_type` ([`Value::cast`]), kept as it is when it is a single value of that
    /// type already (no copy) or does not convert.
    pub fn cast_into(self, data_type: DataType) -> Value {
        if !matches!(self, Value::Array(_)) && self.data_type() == Some(data_type) {
            return self;
        }
        self.cast(data_type).unwrap_or(self)
    }

    /// Converts this value to `data_type` (SQL CAST semantics for the supported pairs).
    pub fn cast(&self, data_type: DataType) -> Result<Value, ValueParseError> {
        let err = || ValueParseError {
            text: self.to_string(),
            data_type,
        };
        Ok(match (self, data_type) {
            (Value::Null, _) => Value::Null,
            (Value::Array(items), _) => Value::Array(
                items
                    .iter()
                    .map(|v| v.cast(data_type))
                    .collect::<Result<_, _>>()?,
            ),
            (v, t) if v.data_type() == Some(t) => v.clone(),
            // Java's narrowing of a floating-point number: toward zero, saturating at the type's
            // bounds, NaN 0 (`(int) Double.NEGATIVE_INFINITY` is Integer.MIN_VALUE), as Rust's.
            (Value::Float(f), DataType::Int) => Value::Int(*f as i32),
            (Value::Double(f), DataType::Int) => Value::Int(*f as i32),
            (Value::Float(f), DataType::Long) => Value::Long(*f as i64),
            (Value::Double(f), DataType::Long) => Value::Long(*f as i64),
            (v, DataType::Int) => match v.as_f64() {
                Some(f) if f.is_finite() => Value::Int(f.trunc() as i32),
                _ => return Value::parse(DataType::Int, &v.to_string()),
            },
            (v, DataType::Long) => match v {
                Value::Int(i) => Value::Long(*i as i64),
                Value::Long(i) | Value::Timestamp(i) => Value::Long(*i),
                Value::Boolean(b) => Value::Long(*b as i64),
                _ => match v.as_f64() {
                    Some(f) if f.is_finite() => Value::Long(f.trunc() as i64),
                    _ => return Value::parse(DataType::Long, &v.to_string()),
                },
            },
            (v, DataType::Float) => Value::Float(v.as_f64().ok_or_else(err)? as f32),
            (v, DataType::Double) => Value::Double(v.as_f64().ok_or_else(err)?),
            (v, DataType::BigDecimal) => match v {
                Value::Double(d) => Value::BigDecimal(canonical_decimal(&d.to_string())),
                Value::Float(d) => Value::BigDecimal(canonical_decimal(&d.to_string())),
                _ => Value::parse(DataType::BigDecimal, &v.to_string())?,
            },
            (v, DataType::Boolean) => match v {
                Value::String(s) => Value::parse(DataType::Boolean, s)?,
                _ => Value::Boolean(v.as_f64().ok_or_else(err)? != 0.0),
            },
            (v, DataType::Timestamp) => match v {
                Value::Int(i) => Value::Timestamp(*i as i64),
                Value::Long(i) => Value::Timestamp(*i),
                Value::String(s) => Value::parse(DataType::Timestamp, s)?,
                _ => Value::Timestamp(v.as_f64().ok_or_else(err)? as i64),
            },
            (Value::Bytes(b), DataType::String) => Value::String(encode_hex(b)),
            (v, DataType::String) => Value::String(v.to_string()),
            (v, DataType::Json) => Value::Json(v.to_string()),
            (Value::String(s) | Value::Json(s), DataType::Map) => Value::parse(DataType::Map, s)?,
            (_, DataType::Map) => return Err(err()),
            (Value::String(s), DataType::Bytes) => Value::parse(DataType::Bytes, s)?,
            (_, DataType::Bytes) => return Err(err()),
        })
    }

    /// Numeric view (booleans are 0/1, timestamps millis, decimals parsed).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(v) => Some(*v as f64),
            Value::Long(v) | Value::Timestamp(v) => Some(*v as f64),
            Value::Float(v) => Some(*v as f64),
            Value::Double(v) => Some(*v),
            Value::Boolean(b) => Some(*b as i64 as f64),
            Value::BigDecimal(s) => s.parse().ok(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// Integer view of integral values (INT, LONG, BOOLEAN, TIMESTAMP).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v as i64),
            Value::Long(v) | Value::Timestamp(v) => Some(*v),
            Value::Boolean(b) => Some(*b as i64),
            _ => None,
        }
    }

    /// String view of STRING and JSON values.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) | Value::Json(s) | Value::BigDecimal(s) | Value::Map(s) => Some(s),
            _ => None,
        }
    }

    /// A total order: NULL first, then by stored representation; floats by `total_cmp`;
    /// decimals numerically; values of different kinds numerically when both are numbers,
    /// else by their text.
    pub fn total_cmp(&self, other: &Value) -> Ordering {
        use Value::*;
        match (self, other) {
            (Null, Null) => Ordering::Equal,
            (Null, _) => Ordering::Less,
            (_, Null) => Ordering::Greater,
            (Int(a), Int(b)) => a.cmp(b),
            (Long(a), Long(b)) | (Timestamp(a), Timestamp(b)) => a.cmp(b),
            (Float(a), Float(b)) => a.total_cmp(b),
            (Double(a), Double(b)) => a.total_cmp(b),
            (Boolean(a), Boolean(b)) => a.cmp(b),
            (String(a), String(b)) | (Json(a), Json(b)) => a.cmp(b),
            (Bytes(a), Bytes(b)) => a.cmp(b),
            // Equal decimals of different scales (`1.5`, `1.50`) ordered by text: a total order.
            (BigDecimal(a), BigDecimal(b)) => compare_decimal(a, b).then_with(|| a.cmp(b)),
            (Array(a), Array(b)) => {
                for (x, y) in a.iter().zip(b) {
                    let o = x.total_cmp(y);
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                a.len().cmp(&b.len())
            }
            (a, b) => match (a.as_i64(), b.as_i64()) {
                (Some(x), Some(y)) => x.cmp(&y),
                _ => match (a.as_f64(), b.as_f64()) {
                    (Some(x), Some(y)) if !matches!(a, String(_)) && !matches!(b, String(_)) => {
                        x.total_cmp(&y)
                    }
                    _ => a.to_string().cmp(&b.to_string()),
                },
            },
        }
    }

    /// SQL's comparison of two non-null values: [`Value::total_cmp`], except that a negative
    /// zero equals zero (`-0.0 < 0` is false, `-0.0 = 0` true), as Java's primitive comparisons
    /// that Pinot's predicates use, and decimals of different scales are equal (`1.5 = 1.50`,
    /// `BigDecimal.compareTo`). Sorting and dictionaries keep the total order.
    pub fn sql_cmp(&self, other: &Value) -> Ordering {
        let zero = |v: &Value| {
            !matches!(v, Value::String(_) | Value::Json(_) | Value::Map(_))
                && v.as_f64() == Some(0.0)
        };
        if let (Value::BigDecimal(a), Value::BigDecimal(b)) = (self, other) {
            return compare_decimal(a, b);
        }
        match self.total_cmp(other) {
            Ordering::Equal => Ordering::Equal,
            _ if zero(self) && zero(other) => Ordering::Equal,
            o => o,
        }
    }

    /// Pinot's JSON rendering in a result row: TIMESTAMP as `yyyy-MM-dd HH:mm:ss.S`,
    /// BIG_DECIMAL as a string, BYTES as lower-case hex, NaN/±Infinity as strings.
    pub fn into_json(self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::BigDecimal(s) | Value::String(s) | Value::Json(s) => J::String(s),
            Value::Array(items) => J::Array(items.into_iter().map(Value::into_json).collect()),
            other => other.to_json(),
        }
    }

    /// [`Value::into_json`] of a borrowed value (its text copied).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Null => J::Null,
            Value::Int(v) => J::from(*v),
            Value::Long(v) => J::from(*v),
            Value::Float(v) => float_json(*v as f64),
            Value::Double(v) => float_json(*v),
            Value::BigDecimal(s) => J::String(s.clone()),
            Value::Boolean(b) => J::Bool(*b),
            Value::Timestamp(ms) => J::String(format_timestamp(*ms)),
            Value::String(s) | Value::Json(s) => J::String(s.clone()),
            Value::Bytes(b) => J::String(encode_hex(b)),
            Value::Array(items) => J::Array(items.iter().map(Value::to_json).collect()),
            Value::Map(s) => serde_json::from_str(s).unwrap_or_else(|_| J::String(s.clone())),
        }
    }

    /// Type default used when a cell is null in the input (Pinot's dimension defaults).
    pub fn default_null(data_type: DataType, is_metric: bool) -> Value {
        match data_type {
            DataType::Int if is_metric => Value::Int(0),
            DataType::Long if is_metric => Value::Long(0),
            DataType::Float if is_metric => Value::Float(0.0),
            DataType::Double if is_metric => Value::Double(0.0),
            DataType::Int => Value::Int(i32::MIN),
            DataType::Long => Value::Long(i64::MIN),
            DataType::Float => Value::Float(f32::NEG_INFINITY),
            DataType::Double => Value::Double(f64::NEG_INFINITY),
            DataType::BigDecimal => Value::BigDecimal("0".into()),
            DataType::Boolean => Value::Boolean(false),
            DataType::Timestamp => Value::Timestamp(0),
            DataType::String => Value::String("null".into()),
            DataType::Json => Value::Json("null".into()),
            DataType::Bytes => Value::Bytes(Vec::new()),
            DataType::Map => Value::Map("{}".into()),
        }
    }

    /// Whether values of `data_type` are stored as the given physical type.
    pub fn stored_as(data_type: DataType) -> StoredType {
        data_type.stored()
    }
}

/// A MAP cell's text: the compact text of a JSON object given as text; `None` when the text is not an object.
fn map_text(text: &str) -> Option<String> {
    match serde_json::from_str::<serde_json::Value>(text.trim()).ok()? {
        serde_json::Value::Object(o) => Some(serde_json::Value::Object(o).to_string()),
        _ => None,
    }
}

fn float_json(v: f64) -> serde_json::Value {
    if v.is_nan() {
        serde_json::Value::String("NaN".into())
    } else if v.is_infinite() {
        serde_json::Value::String(if v > 0.0 { "Infinity" } else { "-Infinity" }.into())
    } else {
        serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number)
    }
}

/// Integer text, also accepting a float text with no fractional part (`"3.0"`).
fn parse_integer(t: &str) -> Option<i64> {
    t.parse::<i64>().ok().or_else(|| {
        let f: f64 = t.parse().ok()?;
        (f.fract() == 0.0 && f.abs() < 9.2e18).then_some(f as i64)
    })
}

fn parse_float(t: &str) -> Option<f64> {
    match t {
        "Infinity" | "+Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ => t.parse().ok(),
    }
}

/// Plain decimal text without exponent or superfluous leading zeros (Java's `toPlainString`
/// of the parsed value); text that is no decimal is kept, trimmed, without leading zeros.
pub fn canonical_decimal(t: &str) -> String {
    let t = t.trim();
    if let Ok(d) = Decimal::parse(t) {
        return d.to_plain_string();
    }
    let (sign, digits) = match t.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// Decimals in numeric order (`1.50` = `1.5`, exact beyond a double's digits), as BIG_DECIMAL
/// dictionaries order them; a pair holding text that is no decimal by its text.
fn compare_decimal(a: &str, b: &str) -> Ordering {
    super::decimal::compare_texts(a, b).unwrap_or_else(|| a.cmp(b))
}

/// A UUID's 16 bytes as its text (`8-4-4-4-12` lower-case hex groups); other lengths as plain hex.
pub fn uuid_text(bytes: &[u8]) -> String {
    let hex = encode_hex(bytes);
    if bytes.len() != 16 {
        return hex;
    }
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// Lower-case hex, as Pinot renders BYTES.
pub fn encode_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// Decodes hex text (either case); `None` on odd length or a non-hex digit.
pub fn decode_hex(text: &str) -> Option<Vec<u8>> {
    let b = text.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    let nib = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    b.chunks(2)
        .map(|p| Some(nib(p[0])? << 4 | nib(p[1])?))
        .collect()
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Long(v) => write!(f, "{v}"),
            Value::Float(v) => f.write_str(&java_text::java_float_text(*v)),
            Value::Double(v) => f.write_str(&java_text::java_double_text(*v)),
            Value::BigDecimal(s) => f.write_str(s),
            Value::Boolean(b) => write!(f, "{b}"),
            Value::Timestamp(ms) => f.write_str(&format_timestamp(*ms)),
            Value::String(s) | Value::Json(s) | Value::Map(s) => f.write_str(s),
            Value::Bytes(b) => f.write_str(&encode_hex(b)),
            Value::Array(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// The decimal of a double as `BigDecimal.valueOf(v)` makes it (from its Java text: `3.0`,
/// `0.1`); an error for NaN and infinities.
pub fn decimal_of_f64(v: f64) -> Result<Decimal, DecimalError> {
    if !v.is_finite() {
        return Err(DecimalError::Parse(v.to_string()));
    }
    Decimal::parse(&java_text::java_double_text(v))
}

impl Value {
    /// The exact decimal of a numeric value: integers with scale 0, floats as
    /// `BigDecimal.valueOf` (their Java text), decimals and numeric text parsed; `None` for
    /// NaN, infinities and anything else.
    pub fn to_decimal(&self) -> Option<Decimal> {
        match self {
            Value::Float(f) => decimal_of_f64(*f as f64).ok(),
            Value::Double(f) => decimal_of_f64(*f).ok(),
            Value::BigDecimal(s) | Value::String(s) | Value::Json(s) => Decimal::parse(s).ok(),
            other => other.as_i64().map(Decimal::from_i64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_become_decimals_as_java_writes_them() {
        assert_eq!(decimal_of_f64(0.1).unwrap().to_plain_string(), "0.1");
        assert_eq!(decimal_of_f64(3.0).unwrap().to_plain_string(), "3.0");
        assert!(decimal_of_f64(f64::NAN).is_err());
        assert_eq!(Value::Int(7).to_decimal().unwrap().to_plain_string(), "7");
        assert_eq!(Value::Null.to_decimal(), None);
    }

    #[test]
    fn parses_each_type() {
        assert_eq!(Value::parse(DataType::Int, " 42 ").unwrap(), Value::Int(42));
        assert_eq!(Value::parse(DataType::Int, "3.0").unwrap(), Value::Int(3));
        assert!(Value::parse(DataType::Int, "3.5").is_err());
        assert!(Value::parse(DataType::Int, "9999999999").is_err());
        assert_eq!(
            Value::parse(DataType::Boolean, "TRUE").unwrap(),
            Value::Boolean(true)
        );
        assert_eq!(
            Value::parse(DataType::Bytes, "0aFF").unwrap(),
            Value::Bytes(vec![10, 255])
        );
        assert_eq!(
            Value::parse(DataType::BigDecimal, "007.50").unwrap(),
            Value::BigDecimal("7.50".into())
        );
        let e = Value::parse(DataType::Long, "x1").unwrap_err();
        assert_eq!(e.to_string(), "cannot parse 'x1' as LONG");
    }

    #[test]
    fn json_rendering_follows_pinot() {
        assert_eq!(
            Value::Timestamp(0).to_json(),
            serde_json::json!("1970-01-01 00:00:00.0")
        );
        assert_eq!(Value::Bytes(vec![0xab]).to_json(), serde_json::json!("ab"));
        assert_eq!(Value::Double(f64::NAN).to_json(), serde_json::json!("NaN"));
        assert_eq!(Value::Double(2.5).to_json(), serde_json::json!(2.5));
    }

    #[test]
    fn non_finite_floats_survive_serde() {
        for v in [
            Value::Double(f64::NEG_INFINITY),
            Value::Double(f64::INFINITY),
            Value::Float(f32::NEG_INFINITY),
            Value::Double(-0.5),
            Value::Float(1.25),
        ] {
            let text = serde_json::to_string(&v).unwrap();
            assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v, "{text}");
        }
        let nan: Value =
            serde_json::from_str(&serde_json::to_string(&Value::Double(f64::NAN)).unwrap())
                .unwrap();
        assert!(matches!(nan, Value::Double(v) if v.is_nan()));
        assert!(serde_json::from_str::<Value>(r#"{"Double":"lots"}"#).is_err());
    }

    #[test]
    fn ordering_is_total() {
        assert_eq!(Value::Null.total_cmp(&Value::Int(1)), Ordering::Less);
        assert_eq!(Value::Int(2).total_cmp(&Value::Long(10)), Ordering::Less);
        assert_eq!(
            Value::BigDecimal("10".into()).total_cmp(&Value::BigDecimal("9.5".into())),
            Ordering::Greater
        );
        assert_eq!(
            Value::Double(1.0).total_cmp(&Value::Int(1)),
            Ordering::Equal
        );
    }

    #[test]
    fn casts() {
        assert_eq!(
            Value::Double(3.9).cast(DataType::Int).unwrap(),
            Value::Int(3)
        );
        assert_eq!(
            Value::String("12".into()).cast(DataType::Long).unwrap(),
            Value::Long(12)
        );
        assert_eq!(
            Value::Int(5).cast(DataType::String).unwrap(),
            Value::String("5".into())
        );
        assert!(Value::String("abc".into()).cast(DataType::Int).is_err());
    }
}
