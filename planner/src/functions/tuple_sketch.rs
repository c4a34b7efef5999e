//! Integer tuple sketch functions as Pinot's `SketchFunctions`: `toIntegerSumTupleSketch`,
//! `intSumTupleSketchUnion` / `intMinTupleSketchUnion` / `intMaxTupleSketchUnion` (optionally
//! with the nominal entries first), the matching `…Intersect`, `intSumTupleSketchDiff` and
//! `getIntTupleSketchEstimate`.
//!
//! Sketch arguments are BYTES or base64 text (what `DISTINCTCOUNTRAWINTEGERSUMTUPLESKETCH`
//! returns); results are the serialized compact sketch as BYTES
//! ([`segments::sketch::integer_tuple`]).

use super::coerce::int;
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::sketch::integer_tuple::{
    self as tuple, DEFAULT_TUPLE_LG_K, IntegerTupleSketch, SummaryMode,
};
use segments::types::{DataType, Value};

const L: Returns = Returns::Fixed(DataType::Long);
const BY: Returns = Returns::Fixed(DataType::Bytes);

macro_rules! set_operation {
    ($name:literal, $arity:expr, $f:ident) => {
        FunctionDef::new($name, $arity, &[Param::Any], BY, |args| $f($name, args))
    };
}

/// The integer tuple sketch functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new(
        "toIntegerSumTupleSketch",
        Arity::Range(2, 3),
        &[Param::Any, Param::Number, Param::Number],
        BY,
        to_integer_sum_tuple_sketch,
    )
    .handles_nulls(),
    set_operation!("intSumTupleSketchUnion", Arity::Range(2, 3), union),
    set_operation!("intMinTupleSketchUnion", Arity::Range(2, 3), union),
    set_operation!("intMaxTupleSketchUnion", Arity::Range(2, 3), union),
    set_operation!("intSumTupleSketchIntersect", Arity::Exact(2), intersect),
    set_operation!("intMinTupleSketchIntersect", Arity::Exact(2), intersect),
    set_operation!("intMaxTupleSketchIntersect", Arity::Exact(2), intersect),
    set_operation!("intSumTupleSketchDiff", Arity::Exact(2), diff),
    FunctionDef::new(
        "getIntTupleSketchEstimate",
        Arity::Exact(1),
        &[Param::Any],
        L,
        estimate,
    ),
];

/// The summary mode a function's name says (`intMin…`, `intMax…`, else sum).
fn mode(function: &str) -> SummaryMode {
    if function.starts_with("intMin") {
        SummaryMode::Min
    } else if function.starts_with("intMax") {
        SummaryMode::Max
    } else {
        SummaryMode::Sum
    }
}

fn sketch(function: &'static str, v: &Value) -> Result<IntegerTupleSketch, FunctionError> {
    tuple::integer_tuple_from_value(v)
        .map_err(|e| FunctionError::invalid(function, v, e.to_string()))
}

fn sketches(
    function: &'static str,
    args: &[Value],
) -> Result<Vec<IntegerTupleSketch>, FunctionError> {
    args.iter().map(|v| sketch(function, v)).collect()
}

fn to_integer_sum_tuple_sketch(args: &[Value]) -> Result<Value, FunctionError> {
    let f = "toIntegerSumTupleSketch";
    let value = match &args[1] {
        Value::Null => None,
        v => Some(
            i32::try_from(int(f, v)?)
                .map_err(|_| FunctionError::invalid(f, v, "the value must be an INT"))?,
        ),
    };
    let lg_k = match args.get(2) {
        None => i64::from(DEFAULT_TUPLE_LG_K),
        Some(Value::Null) => {
            return Err(FunctionError::invalid(f, "NULL", "lgK must not be NULL"));
        }
        Some(v) => int(f, v)?,
    };
    tuple::integer_sum_tuple_of(&args[0], value, lg_k)
        .map(Value::Bytes)
        .map_err(|e| FunctionError::invalid(f, lg_k, e.to_string()))
}

/// `(a, b)` with the default nominal entries, or `(nominalEntries, a, b)`.
fn union(f: &'static str, args: &[Value]) -> Result<Value, FunctionError> {
    let (nominal_entries, rest) = match args {
        [n, rest @ ..] if args.len() == 3 => (int(f, n)?, rest),
        _ => (1i64 << DEFAULT_TUPLE_LG_K, args),
    };
    let lg_k = tuple::tuple_lg_k(nominal_entries)
        .map_err(|e| FunctionError::invalid(f, nominal_entries, e.to_string()))?;
    let result = tuple::integer_tuple_union_all(mode(f), lg_k, &sketches(f, rest)?)
        .map_err(|e| FunctionError::invalid(f, &rest[0], e.to_string()))?;
    Ok(Value::Bytes(result.serialize()))
}

fn intersect(f: &'static str, args: &[Value]) -> Result<Value, FunctionError> {
    let result = tuple::integer_tuple_intersect_all(mode(f), &sketches(f, args)?)
        .map_err(|e| FunctionError::invalid(f, &args[0], e.to_string()))?;
    Ok(Value::Bytes(result.serialize()))
}

fn diff(f: &'static str, args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = (sketch(f, &args[0])?, sketch(f, &args[1])?);
    let result = tuple::integer_tuple_diff(&a, &b)
        .map_err(|e| FunctionError::invalid(f, &args[0], e.to_string()))?;
    Ok(Value::Bytes(result.serialize()))
}

fn estimate(args: &[Value]) -> Result<Value, FunctionError> {
    let s = sketch("getIntTupleSketchEstimate", &args[0])?;
    Ok(Value::Long(s.estimate().round() as i64))
}

#[cfg(test)]
mod tests {
    use crate::functions::lookup;
    use segments::sketch::integer_tuple::{integer_tuple_from_value, sum_values_estimate};
    use segments::types::Value;

    fn call(name: &str, args: &[Value]) -> Value {
        lookup(name).unwrap().eval(args).unwrap()
    }

    fn sum(v: &Value) -> i64 {
        sum_values_estimate(&integer_tuple_from_value(v).unwrap())
    }

    #[test]
    fn tuple_functions() {
        let a = call(
            "toIntegerSumTupleSketch",
            &[Value::String("k".into()), Value::Int(3)],
        );
        let b = call(
            "TO_INTEGER_SUM_TUPLE_SKETCH",
            &[Value::String("k".into()), Value::Int(5), Value::Int(12)],
        );
        let c = call("toIntegerSumTupleSketch", &[Value::Long(7), Value::Int(10)]);
        let union = call("intSumTupleSketchUnion", &[a.clone(), b.clone()]);
        assert_eq!(sum(&union), 8);
        assert_eq!(
            sum(&call("intMinTupleSketchUnion", &[a.clone(), b.clone()])),
            3
        );
        assert_eq!(
            sum(&call(
                "intMaxTupleSketchUnion",
                &[Value::Int(4096), a.clone(), b.clone()]
            )),
            5
        );
        let all = call("intSumTupleSketchUnion", &[union.clone(), c.clone()]);
        assert_eq!(
            call("getIntTupleSketchEstimate", std::slice::from_ref(&all)),
            Value::Long(2)
        );
        assert_eq!(
            sum(&call(
                "intSumTupleSketchIntersect",
                &[all.clone(), a.clone()]
            )),
            11
        );
        assert_eq!(
            sum(&call(
                "intMaxTupleSketchIntersect",
                &[all.clone(), a.clone()]
            )),
            8
        );
        assert_eq!(
            sum(&call(
                "intMinTupleSketchIntersect",
                &[all.clone(), a.clone()]
            )),
            3
        );
        let diff = call("intSumTupleSketchDiff", &[all.clone(), a.clone()]);
        assert_eq!(call("getIntTupleSketchEstimate", &[diff]), Value::Long(1));
        // Base64 text is read too; a NULL key or value makes an empty sketch.
        let Value::Bytes(bytes) = &all else { panic!() };
        let text = Value::String(segments::sketch::datasketch::base64(bytes));
        assert_eq!(call("getIntTupleSketchEstimate", &[text]), Value::Long(2));
        let empty = call("toIntegerSumTupleSketch", &[Value::Null, Value::Int(1)]);
        assert_eq!(call("getIntTupleSketchEstimate", &[empty]), Value::Long(0));
        let empty = call("toIntegerSumTupleSketch", &[Value::Int(1), Value::Null]);
        assert_eq!(call("getIntTupleSketchEstimate", &[empty]), Value::Long(0));
        // Errors, not panics.
        let f = lookup("getIntTupleSketchEstimate").unwrap();
        assert!(f.eval(&[Value::Bytes(vec![1, 2, 3])]).is_err());
        assert!(f.eval(&[Value::Int(3)]).is_err());
        let to = lookup("toIntegerSumTupleSketch").unwrap();
        assert!(
            to.eval(&[Value::Int(1), Value::Int(1), Value::Int(40)])
                .is_err()
        );
        assert!(to.eval(&[Value::Int(1), Value::Long(1 << 40)]).is_err());
        let u = lookup("intSumTupleSketchUnion").unwrap();
        assert!(u.eval(&[Value::Int(3), a.clone(), b]).is_err());
        // A theta sketch is not a tuple sketch.
        let theta = call("toThetaSketch", &[Value::Int(1)]);
        assert!(f.eval(&[theta]).is_err());
    }
}
