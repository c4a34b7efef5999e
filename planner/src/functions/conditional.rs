//! NULL-aware conditional functions (Pinot's `ObjectFunctions`): `coalesce`, `nullIf`,
//! `isNull`, `isNotNull`, `isDistinctFrom`, `isNotDistinctFrom`. `CASE` is bound by the binder,
//! not here. All of them see NULL arguments instead of propagating them.

use super::coerce::type_of;
use super::comparison::compare;
use super::def::{ArgType, Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use super::typing::common_type;
use segments::types::{DataType, Value};

const B: Returns = Returns::Fixed(DataType::Boolean);

/// The conditional functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new(
        "coalesce",
        Arity::AtLeast(1),
        &[Param::Any],
        Returns::Infer(coalesce_type),
        coalesce,
    )
    .handles_nulls(),
    FunctionDef::new(
        "nullIf",
        Arity::Exact(2),
        &[Param::Any],
        Returns::Infer(null_if_type),
        null_if,
    )
    .handles_nulls(),
    FunctionDef::new("isNull", Arity::Exact(1), &[Param::Any], B, is_null).handles_nulls(),
    FunctionDef::new("isNotNull", Arity::Exact(1), &[Param::Any], B, is_not_null).handles_nulls(),
    FunctionDef::new(
        "isDistinctFrom",
        Arity::Exact(2),
        &[Param::Any],
        B,
        is_distinct_from,
    )
    .handles_nulls(),
    FunctionDef::new(
        "isNotDistinctFrom",
        Arity::Exact(2),
        &[Param::Any],
        B,
        is_not_distinct_from,
    )
    .handles_nulls(),
];

fn coalesce_type(args: &[ArgType]) -> Result<DataType, FunctionError> {
    let types: Vec<DataType> = args.iter().filter_map(|a| a.data_type).collect();
    if types.is_empty() {
        return Err(FunctionError::IncompatibleTypes {
            function: "coalesce",
            types: "only NULL".into(),
        });
    }
    common_type(&types).ok_or_else(|| FunctionError::IncompatibleTypes {
        function: "coalesce",
        types: types
            .iter()
            .map(|t| t.name())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// The first non-NULL argument, read as the common type of the non-NULL arguments.
fn coalesce(args: &[Value]) -> Result<Value, FunctionError> {
    let Some(first) = args.iter().find(|v| !v.is_null()) else {
        return Ok(Value::Null);
    };
    let types: Vec<DataType> = args.iter().filter(|v| !v.is_null()).map(type_of).collect();
    match common_type(&types) {
        Some(t) if Some(t) != first.data_type() && !matches!(first, Value::Array(_)) => first
            .cast(t)
            .map_err(|e| FunctionError::invalid("coalesce", first, e.to_string())),
        _ => Ok(first.clone()),
    }
}

fn null_if_type(args: &[ArgType]) -> Result<DataType, FunctionError> {
    Ok(args[0]
        .data_type
        .or(args[1].data_type)
        .unwrap_or(DataType::String))
}

/// NULL when the arguments are equal, else the first.
fn null_if(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = (&args[0], &args[1]);
    if a.is_null() || b.is_null() {
        return Ok(a.clone());
    }
    Ok(if compare("nullIf", a, b)?.is_some_and(|o| o.is_eq()) {
        Value::Null
    } else {
        a.clone()
    })
}

fn is_null(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Boolean(args[0].is_null()))
}

fn is_not_null(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Boolean(!args[0].is_null()))
}

/// NULL-safe inequality: two NULLs are not distinct, NULL and a value are.
fn distinct(a: &Value, b: &Value) -> Result<bool, FunctionError> {
    Ok(match (a.is_null(), b.is_null()) {
        (true, true) => false,
        (true, false) | (false, true) => true,
        (false, false) => !compare("isDistinctFrom", a, b)?.is_some_and(|o| o.is_eq()),
    })
}

fn is_distinct_from(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Boolean(distinct(&args[0], &args[1])?))
}

fn is_not_distinct_from(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Boolean(!distinct(&args[0], &args[1])?))
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Value {
        lookup(name).unwrap().eval(args).unwrap()
    }

    #[test]
    fn coalesce_takes_the_first_value_in_the_common_type() {
        assert_eq!(
            call("coalesce", &[Value::Null, Value::Int(2), Value::Int(3)]),
            Value::Int(2)
        );
        assert_eq!(
            call("coalesce", &[Value::Int(2), Value::Double(1.5)]),
            Value::Double(2.0)
        );
        assert_eq!(call("coalesce", &[Value::Null, Value::Null]), Value::Null);
        let f = lookup("COALESCE").unwrap();
        assert_eq!(
            f.resolve(&[ArgType::null(), ArgType::of(DataType::Long)])
                .unwrap(),
            DataType::Long
        );
        assert_eq!(
            f.return_type(&[DataType::Int, DataType::Long]).unwrap(),
            DataType::Long
        );
        assert!(f.resolve(&[ArgType::null()]).is_err());
        assert!(f.return_type(&[DataType::Int, DataType::String]).is_err());
        assert!(f.return_type(&[]).is_err());
    }

    #[test]
    fn null_predicates() {
        assert_eq!(call("nullif", &[Value::Int(1), Value::Int(1)]), Value::Null);
        assert_eq!(
            call("nullif", &[Value::Int(1), Value::Int(2)]),
            Value::Int(1)
        );
        assert_eq!(call("nullif", &[Value::Int(1), Value::Null]), Value::Int(1));
        assert_eq!(call("isNull", &[Value::Null]), Value::Boolean(true));
        assert_eq!(call("is_not_null", &[Value::Null]), Value::Boolean(false));
        assert_eq!(
            call("isDistinctFrom", &[Value::Null, Value::Null]),
            Value::Boolean(false)
        );
        assert_eq!(
            call("isDistinctFrom", &[Value::Null, Value::Int(1)]),
            Value::Boolean(true)
        );
        assert_eq!(
            call("isNotDistinctFrom", &[Value::Int(1), Value::Long(1)]),
            Value::Boolean(true)
        );
    }
}
