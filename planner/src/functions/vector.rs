//! Vector functions over numeric multi-value arguments (Pinot's `VectorFunctions`, on `float[]`:
//! elements are read as FLOATs, products and differences taken in FLOAT and summed in DOUBLE).
//!
//! * `cosineDistance(a, b[, default])`: `1 - a·b / (|a| |b|)`, `default` (NaN when not given)
//!   when either vector is all zeros.
//! * `innerProduct(a, b)` and `dotProduct(a, b)`: `a·b`.
//! * `l1Distance(a, b)`: the sum of absolute differences; `l2Distance(a, b)`: the Euclidean
//!   distance; `euclideanDistance(a, b)`: its square (Pinot's definition, no square root).
//! * `vectorDims(a)` (INT) and `vectorNorm(a)`: the element count and the Euclidean norm; an
//!   empty vector is an error.
//!
//! Two vectors of different lengths are an error, as in Pinot.

use super::coerce::num;
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::types::{DataType, Value};

use Param::{Number as N, NumberArray as V};

const D: Returns = Returns::Fixed(DataType::Double);

/// The vector functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new(
        "cosineDistance",
        Arity::Range(2, 3),
        &[V, V, N],
        D,
        cosine_distance,
    ),
    FunctionDef::new("innerProduct", Arity::Exact(2), &[V], D, inner_product),
    FunctionDef::new("dotProduct", Arity::Exact(2), &[V], D, dot_product),
    FunctionDef::new("l1Distance", Arity::Exact(2), &[V], D, l1_distance),
    FunctionDef::new("l2Distance", Arity::Exact(2), &[V], D, l2_distance),
    FunctionDef::new(
        "euclideanDistance",
        Arity::Exact(2),
        &[V],
        D,
        euclidean_distance,
    ),
    FunctionDef::new(
        "vectorDims",
        Arity::Exact(1),
        &[V],
        Returns::Fixed(DataType::Int),
        vector_dims,
    ),
    FunctionDef::new("vectorNorm", Arity::Exact(1), &[V], D, vector_norm),
];

/// The elements of a multi-value argument as FLOATs.
fn vector(function: &'static str, v: &Value) -> Result<Vec<f32>, FunctionError> {
    match v {
        Value::Array(items) => items.iter().map(|x| Ok(num(function, x)? as f32)).collect(),
        other => Err(FunctionError::invalid(function, other, "not a multi-value")),
    }
}

/// Two vectors of one length.
fn pair(function: &'static str, args: &[Value]) -> Result<(Vec<f32>, Vec<f32>), FunctionError> {
    let (a, b) = (vector(function, &args[0])?, vector(function, &args[1])?);
    if a.len() != b.len() {
        return Err(FunctionError::invalid(
            function,
            format!("{} and {} elements", a.len(), b.len()),
            "vector lengths do not match",
        ));
    }
    Ok((a, b))
}

/// A vector that must not be empty.
fn non_empty(function: &'static str, v: &Value) -> Result<Vec<f32>, FunctionError> {
    let elements = vector(function, v)?;
    if elements.is_empty() {
        return Err(FunctionError::invalid(function, v, "empty vector"));
    }
    Ok(elements)
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from(x * y)).sum()
}

fn squared_norm(a: &[f32]) -> f64 {
    a.iter().map(|x| f64::from(*x).powi(2)).sum()
}

fn squared_distance(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from(x - y).powi(2)).sum()
}

fn cosine_distance(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = pair("cosineDistance", args)?;
    let (norm_a, norm_b) = (squared_norm(&a), squared_norm(&b));
    if norm_a == 0.0 || norm_b == 0.0 {
        return Ok(Value::Double(match args.get(2) {
            Some(default) => num("cosineDistance", default)?,
            None => f64::NAN,
        }));
    }
    Ok(Value::Double(
        1.0 - dot(&a, &b) / (norm_a.sqrt() * norm_b.sqrt()),
    ))
}

fn inner_product(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = pair("innerProduct", args)?;
    Ok(Value::Double(dot(&a, &b)))
}

fn dot_product(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = pair("dotProduct", args)?;
    Ok(Value::Double(dot(&a, &b)))
}

fn l1_distance(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = pair("l1Distance", args)?;
    Ok(Value::Double(
        a.iter()
            .zip(&b)
            .map(|(x, y)| f64::from((x - y).abs()))
            .sum(),
    ))
}

fn l2_distance(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = pair("l2Distance", args)?;
    Ok(Value::Double(squared_distance(&a, &b).sqrt()))
}

fn euclidean_distance(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = pair("euclideanDistance", args)?;
    Ok(Value::Double(squared_distance(&a, &b)))
}

fn vector_dims(args: &[Value]) -> Result<Value, FunctionError> {
    let len = non_empty("vectorDims", &args[0])?.len();
    Ok(Value::Int(i32::try_from(len).unwrap_or(i32::MAX)))
}

fn vector_norm(args: &[Value]) -> Result<Value, FunctionError> {
    let a = non_empty("vectorNorm", &args[0])?;
    Ok(Value::Double(squared_norm(&a).sqrt()))
}

#[cfg(test)]
mod tests {
    use super::super::{ArgType, lookup};
    use super::*;

    fn call(name: &str, args: &[Value]) -> Result<Value, FunctionError> {
        lookup(name).unwrap().eval(args)
    }

    fn v(items: &[f64]) -> Value {
        Value::Array(items.iter().map(|x| Value::Double(*x)).collect())
    }

    fn d(x: f64) -> Value {
        Value::Double(x)
    }

    #[test]
    fn products_and_distances() {
        // VectorFunctionsTest: [0.1, 0.2, 0.3] and [0.4, 0.5, 0.6].
        let (a, b) = (v(&[0.1, 0.2, 0.3]), v(&[0.4, 0.5, 0.6]));
        let close = |name: &str, args: &[Value], want: f64| match call(name, args).unwrap() {
            Value::Double(x) => assert!((x - want).abs() < 1e-6, "{name}: {x} != {want}"),
            other => panic!("{name}: {other:?}"),
        };
        close("cosineDistance", &[a.clone(), b.clone()], 0.025_368_153);
        close("innerProduct", &[a.clone(), b.clone()], 0.32);
        close("dotProduct", &[a.clone(), b.clone()], 0.32);
        close("l1Distance", &[a.clone(), b.clone()], 0.9);
        close("l2Distance", &[a.clone(), b.clone()], 0.519_615_24);
        close("euclideanDistance", &[a.clone(), b.clone()], 0.27);
        close("vectorNorm", std::slice::from_ref(&a), 0.374_165_74);
        assert_eq!(
            call("vectorDims", std::slice::from_ref(&a)).unwrap(),
            Value::Int(3)
        );
        assert_eq!(
            call("l1Distance", &[v(&[1.0, 2.0]), v(&[4.0, -2.0])]).unwrap(),
            d(7.0)
        );
        assert_eq!(
            call("l2Distance", &[v(&[0.0, 0.0]), v(&[3.0, 4.0])]).unwrap(),
            d(5.0)
        );
        assert_eq!(
            call("euclideanDistance", &[v(&[0.0, 0.0]), v(&[3.0, 4.0])]).unwrap(),
            d(25.0)
        );
        assert_eq!(
            call("innerProduct", &[a, Value::Null]).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn zero_vectors_and_errors() {
        let zero = v(&[0.0, 0.0]);
        assert!(
            matches!(call("cosineDistance", &[zero.clone(), v(&[1.0, 2.0])]).unwrap(), Value::Double(x) if x.is_nan())
        );
        assert_eq!(
            call("cosineDistance", &[zero, v(&[1.0, 2.0]), d(1.0)]).unwrap(),
            d(1.0)
        );
        assert_eq!(
            call("cosineDistance", &[v(&[1.0, 0.0]), v(&[2.0, 0.0])]).unwrap(),
            d(0.0)
        );
        assert!(call("l2Distance", &[v(&[1.0]), v(&[1.0, 2.0])]).is_err());
        assert!(call("vectorDims", &[v(&[])]).is_err());
        assert!(call("vectorNorm", &[Value::Double(1.0)]).is_err());
        let f = lookup("l2Distance").unwrap();
        assert_eq!(
            f.resolve(&[ArgType::mv(DataType::Float), ArgType::mv(DataType::Float)])
                .unwrap(),
            DataType::Double
        );
        assert!(
            f.resolve(&[ArgType::of(DataType::Float), ArgType::mv(DataType::Float)])
                .is_err()
        );
    }
}
