//! Sketch functions as Pinot's `SketchFunctions`: `toThetaSketch`, `getThetaSketchEstimate`,
//! `thetaSketchUnion`/`Intersect`/`Diff`, `thetaSketchToString`, `toCpcSketch`,
//! `getCpcSketchEstimate`, `cpcSketchUnion`, `cpcSketchToString`, `toULL`, `fromULL`, `toHLL`,
//! and `inIdSet` (membership in an `IDSET` result).
//!
//! `toULL` and `toHLL` return Pinot's serialized UltraLogLog (`[p] ++ registers`) and
//! HyperLogLog (stream-lib's bytes), which `DISTINCTCOUNTULL` and `DISTINCTCOUNTHLL` merge
//! from a BYTES column; `fromULL` turns a ULL's bare registers (`DISTINCTCOUNTRAWULL`'s
//! base64) into that form.
//!
//! Sketch arguments are BYTES (a serialized Apache DataSketches sketch, as a BYTES column or
//! `toThetaSketch` holds) or text, read as base64 (what the RAW aggregations return). Set
//! operations return the serialized compact sketch as BYTES, which the other functions and the
//! sketch aggregations read back. Hashing follows DataSketches Java (see
//! [`segments::sketch::datasketch`]).

use super::coerce::int;
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::sketch::datasketch::{self as ds, CompactThetaSketch};
use segments::sketch::id_set::IdSet;
use segments::sketch::ull::{self, UltraLogLog};
use segments::sketch::{DEFAULT_LOG2M, HyperLogLog, SketchError};
use segments::types::{DataType, Value};
use std::cell::RefCell;
use std::rc::Rc;

const L: Returns = Returns::Fixed(DataType::Long);
const S: Returns = Returns::Fixed(DataType::String);
const BY: Returns = Returns::Fixed(DataType::Bytes);

/// The sketch functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new(
        "toThetaSketch",
        Arity::Range(1, 2),
        &[Param::Any, Param::Number],
        BY,
        to_theta_sketch,
    )
    .handles_nulls(),
    FunctionDef::new(
        "getThetaSketchEstimate",
        Arity::Exact(1),
        &[Param::Any],
        L,
        theta_estimate,
    ),
    FunctionDef::new(
        "thetaSketchUnion",
        Arity::Range(2, 5),
        &[Param::Any],
        BY,
        theta_union,
    ),
    FunctionDef::new(
        "thetaSketchIntersect",
        Arity::Range(2, 5),
        &[Param::Any],
        BY,
        theta_intersect,
    ),
    FunctionDef::new(
        "thetaSketchDiff",
        Arity::Exact(2),
        &[Param::Any],
        BY,
        theta_diff,
    ),
    FunctionDef::new(
        "thetaSketchToString",
        Arity::Exact(1),
        &[Param::Any],
        S,
        theta_to_string,
    ),
    FunctionDef::new(
        "toCpcSketch",
        Arity::Range(1, 2),
        &[Param::Any, Param::Number],
        BY,
        to_cpc_sketch,
    )
    .handles_nulls(),
    FunctionDef::new(
        "getCpcSketchEstimate",
        Arity::Exact(1),
        &[Param::Any],
        L,
        cpc_estimate,
    ),
    FunctionDef::new(
        "cpcSketchUnion",
        Arity::Range(2, 5),
        &[Param::Any],
        BY,
        cpc_union,
    ),
    FunctionDef::new(
        "cpcSketchToString",
        Arity::Exact(1),
        &[Param::Any],
        S,
        cpc_to_string,
    ),
    FunctionDef::new(
        "toULL",
        Arity::Range(1, 2),
        &[Param::Any, Param::Number],
        BY,
        to_ull,
    )
    .handles_nulls(),
    FunctionDef::new("fromULL", Arity::Exact(1), &[Param::Any], BY, from_ull),
    FunctionDef::new(
        "inIdSet",
        Arity::Exact(2),
        &[Param::Any, Param::Text],
        Returns::Fixed(DataType::Boolean),
        in_id_set,
    ),
    FunctionDef::new(
        "toHLL",
        Arity::Range(1, 2),
        &[Param::Any, Param::Number],
        BY,
        to_hll,
    )
    .handles_nulls(),
];

fn failed(function: &'static str, arg: &Value, e: SketchError) -> FunctionError {
    FunctionError::invalid(function, arg, e.to_string())
}

fn theta(function: &'static str, v: &Value) -> Result<CompactThetaSketch, FunctionError> {
    ds::theta_from_value(v).map_err(|e| failed(function, v, e))
}

fn thetas(
    function: &'static str,
    args: &[Value],
) -> Result<Vec<CompactThetaSketch>, FunctionError> {
    args.iter().map(|v| theta(function, v)).collect()
}

/// The optional second argument: NULL-tolerant (the first argument may be NULL, the
/// parameter may not).
fn parameter(function: &'static str, args: &[Value], default: i64) -> Result<i64, FunctionError> {
    match args.get(1) {
        None => Ok(default),
        Some(Value::Null) => Err(FunctionError::invalid(
            function,
            "NULL",
            "the sketch size must not be NULL",
        )),
        Some(v) => int(function, v),
    }
}

fn to_theta_sketch(args: &[Value]) -> Result<Value, FunctionError> {
    let f = "toThetaSketch";
    let n = parameter(f, args, i64::from(ds::DEFAULT_THETA_SCALAR_NOMINAL_ENTRIES))?;
    ds::theta_of_value(&args[0], n)
        .map(Value::Bytes)
        .map_err(|e| FunctionError::invalid(f, n, e.to_string()))
}

fn theta_estimate(args: &[Value]) -> Result<Value, FunctionError> {
    let s = theta("getThetaSketchEstimate", &args[0])?;
    Ok(Value::Long(s.estimate().round() as i64))
}

fn theta_union(args: &[Value]) -> Result<Value, FunctionError> {
    let f = "thetaSketchUnion";
    let result = ds::theta_union_all(&thetas(f, args)?).map_err(|e| failed(f, &args[0], e))?;
    Ok(Value::Bytes(result.serialize()))
}

fn theta_intersect(args: &[Value]) -> Result<Value, FunctionError> {
    let f = "thetaSketchIntersect";
    let result = ds::theta_intersect_all(&thetas(f, args)?).map_err(|e| failed(f, &args[0], e))?;
    Ok(Value::Bytes(result.serialize()))
}

fn theta_diff(args: &[Value]) -> Result<Value, FunctionError> {
    let f = "thetaSketchDiff";
    let (a, b) = (theta(f, &args[0])?, theta(f, &args[1])?);
    let result = ds::theta_diff(&a, &b).map_err(|e| failed(f, &args[0], e))?;
    Ok(Value::Bytes(result.serialize()))
}

fn theta_to_string(args: &[Value]) -> Result<Value, FunctionError> {
    let s = theta("thetaSketchToString", &args[0])?;
    Ok(Value::String(ds::theta_summary(&s)))
}

fn to_cpc_sketch(args: &[Value]) -> Result<Value, FunctionError> {
    let f = "toCpcSketch";
    let lg_k = parameter(f, args, i64::from(ds::DEFAULT_CPC_LG_K))?;
    ds::cpc_of_value(&args[0], lg_k)
        .map(Value::Bytes)
        .map_err(|e| FunctionError::invalid(f, lg_k, e.to_string()))
}

fn cpc_estimate(args: &[Value]) -> Result<Value, FunctionError> {
    let f = "getCpcSketchEstimate";
    let s = ds::cpc_from_value(&args[0]).map_err(|e| failed(f, &args[0], e))?;
    Ok(Value::Long(s.estimate().round() as i64))
}

fn cpc_union(args: &[Value]) -> Result<Value, FunctionError> {
    let f = "cpcSketchUnion";
    let sketches = args
        .iter()
        .map(|v| ds::cpc_from_value(v).map_err(|e| failed(f, v, e)))
        .collect::<Result<Vec<_>, _>>()?;
    let result = ds::cpc_union_all(&sketches).map_err(|e| failed(f, &args[0], e))?;
    Ok(Value::Bytes(result.serialize()))
}

fn cpc_to_string(args: &[Value]) -> Result<Value, FunctionError> {
    let f = "cpcSketchToString";
    let s = ds::cpc_from_value(&args[0]).map_err(|e| failed(f, &args[0], e))?;
    Ok(Value::String(ds::cpc_summary(&s)))
}

/// `toULL(x[, p])`: the UltraLogLog of one value (an empty one for NULL), `[p] ++ registers`.
fn to_ull(args: &[Value]) -> Result<Value, FunctionError> {
    let f = "toULL";
    let p = parameter(f, args, i64::from(ull::DEFAULT_ULL_P))?;
    // Out of a byte's range is out of the sketch's too: its own error says the bounds.
    let mut sketch = UltraLogLog::new(u8::try_from(p).unwrap_or(u8::MAX))
        .map_err(|e| FunctionError::invalid(f, p, e.to_string()))?;
    sketch.add_value(&args[0]);
    Ok(Value::Bytes(sketch.to_pinot_bytes()))
}

/// `fromULL(registers)`: bare registers (BYTES, or base64 text) as `[p] ++ registers`.
fn from_ull(args: &[Value]) -> Result<Value, FunctionError> {
    let f = "fromULL";
    let sketch = ds::sketch_bytes(&args[0], "ultraloglog")
        .and_then(UltraLogLog::wrap)
        .map_err(|e| failed(f, &args[0], e))?;
    Ok(Value::Bytes(sketch.to_pinot_bytes()))
}

/// `inIdSet(x, idSet)`: whether `x` is in the id set `IDSET` returned (base64; a Bloom
/// filter may answer true for an id never added). An id of another type than the set's is an
/// error, as Pinot's.
fn in_id_set(args: &[Value]) -> Result<Value, FunctionError> {
    let f = "inIdSet";
    let Value::String(text) = &args[1] else {
        return Err(FunctionError::invalid(
            f,
            &args[1],
            "the id set must be base64 text",
        ));
    };
    let set = parsed_id_set(text).map_err(|e| failed(f, &args[1], e))?;
    set.contains(&args[0])
        .map(Value::Boolean)
        .map_err(|e| failed(f, &args[0], e))
}

/// How many parsed id sets each thread keeps.
const ID_SET_CACHE: usize = 4;

/// The id set of `text` (cached per thread: `inIdSet` runs per row with one set). A lookup
/// compares the whole text (lengths first), which costs far less than parsing it again.
fn parsed_id_set(text: &str) -> Result<Rc<IdSet>, SketchError> {
    thread_local! {
        static CACHE: RefCell<Vec<(String, Rc<IdSet>)>> = const { RefCell::new(Vec::new()) };
    }
    CACHE.with(|cache| {
        if let Some((_, set)) = cache.borrow().iter().find(|(t, _)| t == text) {
            return Ok(Rc::clone(set));
        }
        let set = Rc::new(IdSet::from_base64(text)?);
        let mut cache = cache.borrow_mut();
        if cache.len() >= ID_SET_CACHE {
            cache.remove(0);
        }
        cache.push((text.to_string(), Rc::clone(&set)));
        Ok(set)
    })
}

/// `toHLL(x[, log2m])`: the HyperLogLog `DISTINCTCOUNTHLL` builds, of one value (an empty one
/// for NULL), in stream-lib's bytes.
fn to_hll(args: &[Value]) -> Result<Value, FunctionError> {
    let f = "toHLL";
    let log2m = parameter(f, args, i64::from(DEFAULT_LOG2M))?;
    let mut sketch = HyperLogLog::new(u8::try_from(log2m).unwrap_or(u8::MAX))
        .map_err(|e| FunctionError::invalid(f, log2m, e.to_string()))?;
    sketch.add(&args[0]);
    Ok(Value::Bytes(sketch.to_pinot_bytes()))
}

#[cfg(test)]
mod tests {
    use crate::functions::lookup;
    use segments::types::{DataType, Value};

    fn call(name: &str, args: &[Value]) -> Value {
        lookup(name).unwrap().eval(args).unwrap()
    }

    #[test]
    fn ull_and_hll_functions() {
        use segments::sketch::HyperLogLog;
        use segments::sketch::ull::UltraLogLog;
        let Value::Bytes(b) = call("toULL", &[Value::Int(42)]) else {
            panic!("bytes")
        };
        // p = 12 by default; 42 sets register 2353 (hash4j on the JVM).
        assert_eq!((b.len(), b[0], b[1 + 2353]), (4097, 12, 0x38));
        let Value::Bytes(small) = call("TO_ULL", &[Value::Int(42), Value::Int(4)]) else {
            panic!("bytes")
        };
        let mut state = vec![0u8; 16];
        state[9] = 0x14;
        assert_eq!(small, [&[4u8][..], &state].concat());
        // NULL: an empty sketch; fromULL adds the precision to bare registers (BYTES or base64).
        let Value::Bytes(empty) = call("toULL", &[Value::Null]) else {
            panic!("bytes")
        };
        assert!(UltraLogLog::from_pinot_bytes(&empty).unwrap().is_empty());
        assert_eq!(
            call("fromULL", &[Value::Bytes(state.clone())]),
            Value::Bytes(small.clone())
        );
        let text = segments::sketch::datasketch::base64(&state);
        assert_eq!(call("fromULL", &[Value::String(text)]), Value::Bytes(small));
        assert!(
            lookup("fromULL")
                .unwrap()
                .eval(&[Value::Bytes(vec![0; 12])])
                .is_err()
        );
        assert!(
            lookup("toULL")
                .unwrap()
                .eval(&[Value::Int(1), Value::Int(30)])
                .is_err()
        );
        // toHLL: DISTINCTCOUNTHLL's sketch of the value.
        let Value::Bytes(h) = call("toHLL", &[Value::String("a".into())]) else {
            panic!("bytes")
        };
        let mut expected = HyperLogLog::new(8).unwrap();
        expected.add(&Value::String("a".into()));
        assert_eq!(h, expected.to_pinot_bytes());
        assert!(matches!(
            call("toHLL", &[Value::Null, Value::Int(10)]),
            Value::Bytes(_)
        ));
    }

    #[test]
    fn theta_functions() {
        let a = call("toThetaSketch", &[Value::String("a".into())]);
        let b = call("TO_THETA_SKETCH", &[Value::Long(2), Value::Int(1024)]);
        assert!(matches!(a, Value::Bytes(_)));
        assert_eq!(
            call("getThetaSketchEstimate", std::slice::from_ref(&a)),
            Value::Long(1)
        );
        let union = call("thetaSketchUnion", &[a.clone(), b.clone(), a.clone()]);
        assert_eq!(
            call("getThetaSketchEstimate", std::slice::from_ref(&union)),
            Value::Long(2)
        );
        let inter = call("thetaSketchIntersect", &[union.clone(), a.clone()]);
        assert_eq!(call("getThetaSketchEstimate", &[inter]), Value::Long(1));
        let diff = call("thetaSketchDiff", &[union.clone(), a.clone()]);
        assert_eq!(call("getThetaSketchEstimate", &[diff]), Value::Long(1));
        // Base64 text (a RAW aggregation's result) is read too.
        let Value::Bytes(bytes) = &union else {
            panic!()
        };
        let text = Value::String(segments::sketch::datasketch::base64(bytes));
        assert_eq!(call("getThetaSketchEstimate", &[text]), Value::Long(2));
        let Value::String(summary) = call("thetaSketchToString", &[union]) else {
            panic!()
        };
        assert!(summary.contains("Retained Entries        : 2"), "{summary}");
        // NULL input: an empty sketch.
        let empty = call("toThetaSketch", &[Value::Null]);
        assert_eq!(call("getThetaSketchEstimate", &[empty]), Value::Long(0));
        // Errors, not panics.
        let f = lookup("getThetaSketchEstimate").unwrap();
        assert!(f.eval(&[Value::Bytes(vec![1, 2, 3])]).is_err());
        assert!(f.eval(&[Value::String("%%%".into())]).is_err());
        assert!(f.eval(&[Value::Int(3)]).is_err());
        let to = lookup("toThetaSketch").unwrap();
        assert!(to.eval(&[Value::Int(1), Value::Int(3)]).is_err());
        assert_eq!(
            to.return_type(&[DataType::String]).unwrap(),
            DataType::Bytes
        );
    }

    #[test]
    fn cpc_functions() {
        let a = call("toCpcSketch", &[Value::Double(1.5)]);
        let b = call("toCpcSketch", &[Value::Float(2.5), Value::Int(10)]);
        assert_eq!(
            call("getCpcSketchEstimate", std::slice::from_ref(&a)),
            Value::Long(1)
        );
        let u = call("cpcSketchUnion", &[a.clone(), b, a]);
        assert_eq!(
            call("getCpcSketchEstimate", std::slice::from_ref(&u)),
            Value::Long(2)
        );
        let Value::String(summary) = call("cpcSketchToString", &[u]) else {
            panic!()
        };
        assert!(summary.contains("LgK"), "{summary}");
        let f = lookup("getCpcSketchEstimate").unwrap();
        assert!(f.eval(&[Value::Bytes(vec![9; 40])]).is_err());
        assert!(
            lookup("toCpcSketch")
                .unwrap()
                .eval(&[Value::Int(1), Value::Int(99)])
                .is_err()
        );
    }
}
