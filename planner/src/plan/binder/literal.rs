//! Literals: AST constants to typed [`Value`]s, SQL type names to [`DataType`]s, and the
//! conversion of a predicate's literal to the type of the column it is compared with.
//!
//! Pinot v1 converts the literal of `col op literal` to the column's type once, so that
//! dictionaries and indexes can be probed directly. Values the column type cannot hold
//! exactly are reported as such (`intCol = 5.5` matches nothing) and range bounds move to
//! the nearest representable value (`intCol > 5.5` ⇔ `intCol >= 6`).

use crate::plan::error::PlanError;
use crate::plan::filter::RangeBound;
use crate::sql::ast::{Literal, TypedLiteral};
use segments::types::{DataType, Value};

/// The value of an AST literal. Integers that fit an INT are INT (Pinot 1.x), larger ones
/// LONG, integers beyond LONG and `DECIMAL`-looking text BIG_DECIMAL.
pub fn literal_value(lit: &Literal) -> Result<Value, PlanError> {
    Ok(match lit {
        Literal::Null => Value::Null,
        Literal::Bool(b) => Value::Boolean(*b),
        Literal::Long(v) => match i32::try_from(*v) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Long(*v),
        },
        Literal::Double(d) => Value::Double(*d),
        Literal::Decimal(text) => Value::parse(DataType::BigDecimal, text)
            .map_err(|e| PlanError::Validation(e.to_string()))?,
        Literal::String(s) => Value::String(s.clone()),
        Literal::Typed { kind, value } => match kind {
            TypedLiteral::Timestamp | TypedLiteral::Date => {
                Value::parse(DataType::Timestamp, value)
                    .map_err(|e| PlanError::Validation(e.to_string()))?
            }
            TypedLiteral::Time => Value::String(value.clone()),
        },
    })
}

/// A SQL type name (`BIGINT`, `VARCHAR(10)`, `DECIMAL(15,2)`, Pinot's `LONG`, …).
pub fn parse_type_name(name: &str) -> Result<DataType, PlanError> {
    let base = name
        .split('(')
        .next()
        .unwrap_or(name)
        .trim()
        .to_ascii_uppercase();
    Ok(match base.as_str() {
        "INT" | "INTEGER" | "SMALLINT" | "TINYINT" => DataType::Int,
        "BIGINT" | "LONG" => DataType::Long,
        "FLOAT" | "REAL" => DataType::Float,
        "DOUBLE" | "DOUBLE PRECISION" => DataType::Double,
        "DECIMAL" | "NUMERIC" | "BIG_DECIMAL" | "BIGDECIMAL" => DataType::BigDecimal,
        "BOOLEAN" | "BOOL" => DataType::Boolean,
        "TIMESTAMP" => DataType::Timestamp,
        "VARCHAR" | "CHAR" | "STRING" | "TEXT" | "CHARACTER" => DataType::String,
        "JSON" => DataType::Json,
        "BYTES" | "VARBINARY" | "BINARY" => DataType::Bytes,
        other => {
            return Err(PlanError::Validation(format!(
                "unsupported cast type '{other}'"
            )));
        }
    })
}

/// How a literal fits a column type.
#[derive(Debug, Clone, PartialEq)]
pub enum Fitted {
    /// Exactly representable; the converted value.
    Exact(Value),
    /// A valid value the column can never hold (`5.5` for an INT column).
    Unrepresentable,
}

fn mismatch(column: &str, data_type: DataType, v: &Value) -> PlanError {
    PlanError::Validation(format!(
        "cannot compare '{column}' of type {data_type} with '{v}'"
    ))
}

/// Numeric view of a literal for numeric columns (strings are parsed, as Pinot does).
fn numeric(v: &Value) -> Option<f64> {
    match v {
        Value::String(s) => s.trim().parse().ok(),
        Value::Bytes(_) | Value::Json(_) | Value::Array(_) | Value::Null => None,
        other => other.as_f64(),
    }
}

/// Converts a literal to a column's type (for EQ / IN and friends).
pub fn fit_literal(column: &str, data_type: DataType, v: &Value) -> Result<Fitted, PlanError> {
    let err = || mismatch(column, data_type, v);
    if v.is_null() {
        return Ok(Fitted::Unrepresentable);
    }
    Ok(match data_type {
        DataType::Int | DataType::Long => {
            let exact_int = match v {
                Value::Int(i) => Some(*i as i64),
                Value::Long(i) | Value::Timestamp(i) => Some(*i),
                Value::Boolean(b) => Some(*b as i64),
                Value::String(s) if s.trim().parse::<i64>().is_ok() => s.trim().parse::<i64>().ok(),
                _ => None,
            };
            let i = match exact_int {
                Some(i) => i,
                None => {
                    let f = numeric(v).ok_or_else(err)?;
                    if f.fract() != 0.0 || !f.is_finite() || f.abs() > 9.2e18 {
                        return Ok(Fitted::Unrepresentable);
                    }
                    f as i64
                }
            };
            if data_type == DataType::Int {
                match i32::try_from(i) {
                    Ok(x) => Fitted::Exact(Value::Int(x)),
                    Err(_) => Fitted::Unrepresentable,
                }
            } else {
                Fitted::Exact(Value::Long(i))
            }
        }
        DataType::Float => Fitted::Exact(Value::Float(numeric(v).ok_or_else(err)? as f32)),
        DataType::Double => Fitted::Exact(Value::Double(numeric(v).ok_or_else(err)?)),
        DataType::BigDecimal => match v {
            Value::BigDecimal(_) => Fitted::Exact(v.clone()),
            _ => Fitted::Exact(v.cast(DataType::BigDecimal).map_err(|_| err())?),
        },
        DataType::Boolean => match v {
            Value::Boolean(_) => Fitted::Exact(v.clone()),
            Value::String(s) => {
                Fitted::Exact(Value::parse(DataType::Boolean, s).map_err(|_| err())?)
            }
            other => {
                let f = other.as_f64().ok_or_else(err)?;
                if f == 0.0 || f == 1.0 {
                    Fitted::Exact(Value::Boolean(f == 1.0))
                } else {
                    Fitted::Unrepresentable
                }
            }
        },
        DataType::Timestamp => match v {
            Value::Timestamp(_) => Fitted::Exact(v.clone()),
            Value::String(s) => {
                Fitted::Exact(Value::parse(DataType::Timestamp, s).map_err(|_| err())?)
            }
            other => match other.as_f64() {
                Some(f) if f.fract() == 0.0 => Fitted::Exact(Value::Timestamp(f as i64)),
                Some(_) => Fitted::Unrepresentable,
                None => return Err(err()),
            },
        },
        DataType::String => Fitted::Exact(Value::String(v.to_string())),
        DataType::Json => Fitted::Exact(Value::Json(v.to_string())),
        DataType::Map => return Err(err()),
        DataType::Bytes => match v {
            Value::Bytes(_) => Fitted::Exact(v.clone()),
            Value::String(s) => Fitted::Exact(Value::parse(DataType::Bytes, s).map_err(|_| err())?),
            _ => return Err(err()),
        },
    })
}

/// How a range bound fits a column type.
#[derive(Debug, Clone, PartialEq)]
pub enum FittedBound {
    /// The bound, converted.
    Bound(RangeBound),
    /// The bound excludes nothing the column can hold (`intCol > -1e20`).
    Unbounded,
    /// The bound excludes everything the column can hold (`intCol > 1e20`).
    Empty,
}

/// Converts a range bound to a column's type; `lower` tells which end it is.
pub fn fit_bound(
    column: &str,
    data_type: DataType,
    v: &Value,
    inclusive: bool,
    lower: bool,
) -> Result<FittedBound, PlanError> {
    if v.is_null() {
        return Ok(FittedBound::Empty);
    }
    let integral = matches!(
        data_type,
        DataType::Int | DataType::Long | DataType::Timestamp
    );
    if integral
        && !matches!(
            v,
            Value::Int(_) | Value::Long(_) | Value::Timestamp(_) | Value::Boolean(_)
        )
    {
        let f = match (data_type, v) {
            (DataType::Timestamp, Value::String(s)) if s.trim().parse::<f64>().is_err() => {
                let ts = Value::parse(DataType::Timestamp, s)
                    .map_err(|_| mismatch(column, data_type, v))?;
                return Ok(FittedBound::Bound(RangeBound {
                    value: ts,
                    inclusive,
                }));
            }
            _ => numeric(v).ok_or_else(|| mismatch(column, data_type, v))?,
        };
        if f.is_nan() {
            return Ok(FittedBound::Empty);
        }
        let (min, max) = match data_type {
            DataType::Int => (i32::MIN as f64, i32::MAX as f64),
            _ => (i64::MIN as f64, i64::MAX as f64),
        };
        // Move a fractional bound to the nearest integer inside the range; it becomes inclusive.
        let (f, inclusive) = if f.fract() != 0.0 {
            (if lower { f.ceil() } else { f.floor() }, true)
        } else {
            (f, inclusive)
        };
        if lower && f > max || !lower && f < min {
            return Ok(FittedBound::Empty);
        }
        if lower && f < min || !lower && f > max {
            return Ok(FittedBound::Unbounded);
        }
        let value = match data_type {
            DataType::Int => Value::Int(f as i32),
            DataType::Long => Value::Long(f as i64),
            _ => Value::Timestamp(f as i64),
        };
        return Ok(FittedBound::Bound(RangeBound { value, inclusive }));
    }
    match fit_literal(column, data_type, v)? {
        Fitted::Exact(value) => Ok(FittedBound::Bound(RangeBound { value, inclusive })),
        Fitted::Unrepresentable => {
            // Integral literal outside INT range for an INT column.
            let f = v.as_f64().unwrap_or(0.0);
            let above = f > 0.0;
            Ok(if above == lower {
                FittedBound::Empty
            } else {
                FittedBound::Unbounded
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_values() {
        assert_eq!(literal_value(&Literal::Long(5)).unwrap(), Value::Int(5));
        assert_eq!(
            literal_value(&Literal::Long(1 << 40)).unwrap(),
            Value::Long(1 << 40)
        );
        assert_eq!(
            literal_value(&Literal::Typed {
                kind: TypedLiteral::Timestamp,
                value: "1970-01-01 00:00:01".into()
            })
            .unwrap(),
            Value::Timestamp(1000)
        );
        assert_eq!(parse_type_name("VARCHAR(20)").unwrap(), DataType::String);
        assert_eq!(parse_type_name("bigint").unwrap(), DataType::Long);
        assert_eq!(
            parse_type_name("DECIMAL(15,2)").unwrap(),
            DataType::BigDecimal
        );
        assert!(parse_type_name("GEOGRAPHY").is_err());
    }

    #[test]
    fn fits_literals_to_columns() {
        assert_eq!(
            fit_literal("x", DataType::Int, &Value::Double(5.0)).unwrap(),
            Fitted::Exact(Value::Int(5))
        );
        assert_eq!(
            fit_literal("x", DataType::Int, &Value::Double(5.5)).unwrap(),
            Fitted::Unrepresentable
        );
        assert_eq!(
            fit_literal("x", DataType::Int, &Value::Long(1 << 40)).unwrap(),
            Fitted::Unrepresentable
        );
        assert_eq!(
            fit_literal("x", DataType::Int, &Value::String("7".into())).unwrap(),
            Fitted::Exact(Value::Int(7))
        );
        assert!(fit_literal("x", DataType::Int, &Value::String("abc".into())).is_err());
        assert_eq!(
            fit_literal("s", DataType::String, &Value::Int(5)).unwrap(),
            Fitted::Exact(Value::String("5".into()))
        );
        assert_eq!(
            fit_literal("f", DataType::Float, &Value::Double(1.1)).unwrap(),
            Fitted::Exact(Value::Float(1.1))
        );
        assert_eq!(
            fit_literal(
                "t",
                DataType::Timestamp,
                &Value::String("1970-01-01 00:00:01".into())
            )
            .unwrap(),
            Fitted::Exact(Value::Timestamp(1000))
        );
        assert_eq!(
            fit_literal("b", DataType::Boolean, &Value::Int(1)).unwrap(),
            Fitted::Exact(Value::Boolean(true))
        );
        assert_eq!(
            fit_literal("y", DataType::Bytes, &Value::String("0aff".into())).unwrap(),
            Fitted::Exact(Value::Bytes(vec![10, 255]))
        );
    }

    #[test]
    fn fits_range_bounds() {
        assert_eq!(
            fit_bound("x", DataType::Int, &Value::Double(5.5), false, true).unwrap(),
            FittedBound::Bound(RangeBound::inclusive(Value::Int(6)))
        );
        assert_eq!(
            fit_bound("x", DataType::Int, &Value::Double(5.5), false, false).unwrap(),
            FittedBound::Bound(RangeBound::inclusive(Value::Int(5)))
        );
        assert_eq!(
            fit_bound("x", DataType::Int, &Value::Int(5), false, true).unwrap(),
            FittedBound::Bound(RangeBound::exclusive(Value::Int(5)))
        );
        assert_eq!(
            fit_bound("x", DataType::Int, &Value::Double(1e20), false, true).unwrap(),
            FittedBound::Empty
        );
        assert_eq!(
            fit_bound("x", DataType::Int, &Value::Long(1 << 40), false, false).unwrap(),
            FittedBound::Unbounded
        );
        assert_eq!(
            fit_bound("x", DataType::Int, &Value::Long(-(1 << 40)), true, true).unwrap(),
            FittedBound::Unbounded
        );
        assert_eq!(
            fit_bound("d", DataType::Double, &Value::Int(3), true, true).unwrap(),
            FittedBound::Bound(RangeBound::inclusive(Value::Double(3.0)))
        );
    }
}
