//! Comparison and logic functions (Pinot's `ComparisonFunctions`, `LogicalFunctions`):
//! `equals`, `notEquals`, `greaterThan`, `greaterThanOrEqual`, `lessThan`,
//! `lessThanOrEqual`, `between`, and three-valued `and`, `or`, `not`.
//!
//! Numbers compare numerically across types, text compares by code point, and text against a
//! number is read as a number. A comparison with `NaN` is false (`notEquals` true), as Java's.

use super::coerce::{boolean, num, parse_f64};
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use super::typing::is_integral;
use segments::types::{DataType, Value};
use std::cmp::Ordering;

const B: Returns = Returns::Fixed(DataType::Boolean);

/// The comparison and logic functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new("equals", Arity::Exact(2), &[Param::Any], B, equals),
    FunctionDef::new("notEquals", Arity::Exact(2), &[Param::Any], B, not_equals),
    FunctionDef::new(
        "greaterThan",
        Arity::Exact(2),
        &[Param::Any],
        B,
        greater_than,
    ),
    FunctionDef::new(
        "greaterThanOrEqual",
        Arity::Exact(2),
        &[Param::Any],
        B,
        greater_than_or_equal,
    )
    .with_aliases(&["gte", "greaterThanOrEquals"]),
    FunctionDef::new("lessThan", Arity::Exact(2), &[Param::Any], B, less_than),
    FunctionDef::new(
        "lessThanOrEqual",
        Arity::Exact(2),
        &[Param::Any],
        B,
        less_than_or_equal,
    )
    .with_aliases(&["lte", "lessThanOrEquals"]),
    FunctionDef::new("between", Arity::Exact(3), &[Param::Any], B, between),
    FunctionDef::new("and", Arity::AtLeast(1), &[Param::Any], B, and).handles_nulls(),
    FunctionDef::new("or", Arity::AtLeast(1), &[Param::Any], B, or).handles_nulls(),
    FunctionDef::new("not", Arity::Exact(1), &[Param::Any], B, not),
];

/// Orders two non-NULL values the way Pinot's comparison functions do; `None` when either
/// side is NaN.
pub(crate) fn compare(
    function: &'static str,
    a: &Value,
    b: &Value,
) -> Result<Option<Ordering>, FunctionError> {
    let text = |v: &Value| matches!(v, Value::String(_) | Value::Json(_));
    let number = |v: &Value| {
        !matches!(
            v,
            Value::String(_) | Value::Json(_) | Value::Bytes(_) | Value::Array(_) | Value::Null
        )
    };
    if text(a) && text(b) || matches!((a, b), (Value::Bytes(_), Value::Bytes(_))) {
        return Ok(Some(a.total_cmp(b)));
    }
    if matches!(a, Value::Array(_)) || matches!(b, Value::Array(_)) {
        let shown = if matches!(a, Value::Array(_)) { a } else { b };
        return Err(FunctionError::invalid(
            function,
            shown,
            "cannot compare a multi-value",
        ));
    }
    if number(a) && number(b) {
        let integral = |v: &Value| v.data_type().is_some_and(is_integral);
        if integral(a) && integral(b) {
            return Ok(a.as_i64().zip(b.as_i64()).map(|(x, y)| x.cmp(&y)));
        }
    }
    let (x, y) = (as_number(function, a)?, as_number(function, b)?);
    Ok(x.partial_cmp(&y))
}

fn as_number(function: &'static str, v: &Value) -> Result<f64, FunctionError> {
    match v {
        Value::String(s) | Value::Json(s) => {
            parse_f64(s).ok_or_else(|| FunctionError::invalid(function, v, "not a number"))
        }
        other => num(function, other),
    }
}

fn cmp_holds(
    function: &'static str,
    args: &[Value],
    holds: fn(Ordering) -> bool,
) -> Result<Value, FunctionError> {
    Ok(Value::Boolean(
        compare(function, &args[0], &args[1])?.is_some_and(holds),
    ))
}

fn equals(args: &[Value]) -> Result<Value, FunctionError> {
    cmp_holds("equals", args, Ordering::is_eq)
}

fn not_equals(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Boolean(
        !compare("notEquals", &args[0], &args[1])?.is_some_and(Ordering::is_eq),
    ))
}

fn greater_than(args: &[Value]) -> Result<Value, FunctionError> {
    cmp_holds("greaterThan", args, Ordering::is_gt)
}

fn greater_than_or_equal(args: &[Value]) -> Result<Value, FunctionError> {
    cmp_holds("greaterThanOrEqual", args, Ordering::is_ge)
}

fn less_than(args: &[Value]) -> Result<Value, FunctionError> {
    cmp_holds("lessThan", args, Ordering::is_lt)
}

fn less_than_or_equal(args: &[Value]) -> Result<Value, FunctionError> {
    cmp_holds("lessThanOrEqual", args, Ordering::is_le)
}

fn between(args: &[Value]) -> Result<Value, FunctionError> {
    let low = compare("between", &args[0], &args[1])?.is_some_and(Ordering::is_ge);
    let high = compare("between", &args[0], &args[2])?.is_some_and(Ordering::is_le);
    Ok(Value::Boolean(low && high))
}

/// Three-valued AND: false if any argument is false, else NULL if any is NULL, else true.
fn and(args: &[Value]) -> Result<Value, FunctionError> {
    let mut saw_null = false;
    for v in args {
        if v.is_null() {
            saw_null = true;
        } else if !boolean("and", v)? {
            return Ok(Value::Boolean(false));
        }
    }
    Ok(if saw_null {
        Value::Null
    } else {
        Value::Boolean(true)
    })
}

/// Three-valued OR: true if any argument is true, else NULL if any is NULL, else false.
fn or(args: &[Value]) -> Result<Value, FunctionError> {
    let mut saw_null = false;
    for v in args {
        if v.is_null() {
            saw_null = true;
        } else if boolean("or", v)? {
            return Ok(Value::Boolean(true));
        }
    }
    Ok(if saw_null {
        Value::Null
    } else {
        Value::Boolean(false)
    })
}

fn not(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Boolean(!boolean("not", &args[0])?))
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Value {
        lookup(name).unwrap().eval(args).unwrap()
    }

    const T: Value = Value::Boolean(true);
    const F: Value = Value::Boolean(false);

    #[test]
    fn comparisons_mix_numeric_types() {
        assert_eq!(call("equals", &[Value::Int(1), Value::Double(1.0)]), T);
        assert_eq!(
            call(
                "equals",
                &[Value::Long(i64::MAX), Value::Long(i64::MAX - 1)]
            ),
            F
        );
        assert_eq!(call("not_equals", &[Value::Int(1), Value::Int(2)]), T);
        assert_eq!(
            call("greater_than", &[Value::String("10".into()), Value::Int(9)]),
            T
        );
        assert_eq!(
            call(
                "less_than",
                &[Value::String("a".into()), Value::String("b".into())]
            ),
            T
        );
        assert_eq!(call("lte", &[Value::Int(2), Value::Int(2)]), T);
        assert_eq!(call("gte", &[Value::Int(1), Value::Int(2)]), F);
        assert_eq!(
            call(
                "equals",
                &[Value::Double(f64::NAN), Value::Double(f64::NAN)]
            ),
            F
        );
        assert_eq!(
            call(
                "notEquals",
                &[Value::Double(f64::NAN), Value::Double(f64::NAN)]
            ),
            T
        );
        assert_eq!(
            call("between", &[Value::Int(5), Value::Int(1), Value::Int(5)]),
            T
        );
        assert_eq!(call("equals", &[Value::Null, Value::Int(1)]), Value::Null);
        assert!(
            lookup("equals")
                .unwrap()
                .eval(&[Value::String("x".into()), Value::Int(1)])
                .is_err()
        );
    }

    #[test]
    fn logic_is_three_valued() {
        assert_eq!(call("and", &[T, Value::Null]), Value::Null);
        assert_eq!(call("and", &[F, Value::Null]), F);
        assert_eq!(call("and", &[T, T]), T);
        assert_eq!(call("or", &[Value::Null, T]), T);
        assert_eq!(call("or", &[Value::Null, F]), Value::Null);
        assert_eq!(call("or", &[F, F]), F);
        assert_eq!(call("not", &[T]), F);
        assert_eq!(call("not", &[Value::Null]), Value::Null);
        assert_eq!(call("not", &[Value::Int(0)]), T);
    }
}
