//! Functions over multi-value arguments (`Value::Array`): `arrayLength/cardinality` (INT),
//! `arrayMin`, `arrayMax` (the element type), `arraySum`, `arrayAverage` (DOUBLE). NULL
//! elements are skipped; the minimum, maximum and average of no elements are NULL. A
//! single-value argument is an error (the argument kind cannot tell at bind time).

use super::coerce::num;
use super::def::{ArgType, Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::types::{DataType, Value};
use std::cmp::Ordering;

const D: Returns = Returns::Fixed(DataType::Double);

/// The array functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new(
        "arrayLength",
        Arity::Exact(1),
        &[Param::Any],
        Returns::Fixed(DataType::Int),
        array_length,
    )
    .with_aliases(&["cardinality"]),
    FunctionDef::new(
        "arrayMin",
        Arity::Exact(1),
        &[Param::Any],
        Returns::Infer(element_type),
        array_min,
    ),
    FunctionDef::new(
        "arrayMax",
        Arity::Exact(1),
        &[Param::Any],
        Returns::Infer(element_type),
        array_max,
    ),
    FunctionDef::new("arraySum", Arity::Exact(1), &[Param::Number], D, array_sum),
    FunctionDef::new(
        "arrayAverage",
        Arity::Exact(1),
        &[Param::Number],
        D,
        array_average,
    ),
];

fn element_type(args: &[ArgType]) -> Result<DataType, FunctionError> {
    Ok(args[0].data_type.unwrap_or(DataType::Double))
}

fn items<'a>(
    function: &'static str,
    v: &'a Value,
) -> Result<impl Iterator<Item = &'a Value>, FunctionError> {
    match v {
        Value::Array(items) => Ok(items.iter().filter(|v| !v.is_null())),
        other => Err(FunctionError::invalid(function, other, "not a multi-value")),
    }
}

fn array_length(args: &[Value]) -> Result<Value, FunctionError> {
    match &args[0] {
        Value::Array(items) => Ok(Value::Int(i32::try_from(items.len()).unwrap_or(i32::MAX))),
        other => Err(FunctionError::invalid(
            "arrayLength",
            other,
            "not a multi-value",
        )),
    }
}

fn extreme(function: &'static str, args: &[Value], keep: Ordering) -> Result<Value, FunctionError> {
    let best = items(function, &args[0])?.fold(None::<&Value>, |best, v| match best {
        Some(b) if v.total_cmp(b) != keep => Some(b),
        _ => Some(v),
    });
    Ok(best.cloned().unwrap_or(Value::Null))
}

fn array_min(args: &[Value]) -> Result<Value, FunctionError> {
    extreme("arrayMin", args, Ordering::Less)
}

fn array_max(args: &[Value]) -> Result<Value, FunctionError> {
    extreme("arrayMax", args, Ordering::Greater)
}

fn array_sum(args: &[Value]) -> Result<Value, FunctionError> {
    let mut sum = 0.0;
    for v in items("arraySum", &args[0])? {
        sum += num("arraySum", v)?;
    }
    Ok(Value::Double(sum))
}

fn array_average(args: &[Value]) -> Result<Value, FunctionError> {
    let (mut sum, mut count) = (0.0, 0u64);
    for v in items("arrayAverage", &args[0])? {
        sum += num("arrayAverage", v)?;
        count += 1;
    }
    Ok(if count == 0 {
        Value::Null
    } else {
        Value::Double(sum / count as f64)
    })
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Result<Value, FunctionError> {
        lookup(name).unwrap().eval(args)
    }

    #[test]
    fn array_functions() {
        let a = Value::Array(vec![
            Value::Int(3),
            Value::Null,
            Value::Int(1),
            Value::Int(2),
        ]);
        assert_eq!(
            call("arrayLength", std::slice::from_ref(&a)).unwrap(),
            Value::Int(4)
        );
        assert_eq!(
            call("cardinality", std::slice::from_ref(&a)).unwrap(),
            Value::Int(4)
        );
        assert_eq!(
            call("arrayMin", std::slice::from_ref(&a)).unwrap(),
            Value::Int(1)
        );
        assert_eq!(
            call("arrayMax", std::slice::from_ref(&a)).unwrap(),
            Value::Int(3)
        );
        assert_eq!(
            call("arraySum", std::slice::from_ref(&a)).unwrap(),
            Value::Double(6.0)
        );
        assert_eq!(call("arrayAverage", &[a]).unwrap(), Value::Double(2.0));
        let strings = Value::Array(vec![Value::String("b".into()), Value::String("a".into())]);
        assert_eq!(
            call("arrayMin", &[strings]).unwrap(),
            Value::String("a".into())
        );
        let empty = Value::Array(vec![]);
        assert_eq!(
            call("arrayMax", std::slice::from_ref(&empty)).unwrap(),
            Value::Null
        );
        assert_eq!(
            call("arrayAverage", std::slice::from_ref(&empty)).unwrap(),
            Value::Null
        );
        assert_eq!(call("arraySum", &[empty]).unwrap(), Value::Double(0.0));
        assert!(call("arrayLength", &[Value::Int(1)]).is_err());
        assert_eq!(
            lookup("arrayMax")
                .unwrap()
                .return_type(&[DataType::Long])
                .unwrap(),
            DataType::Long
        );
    }
}
