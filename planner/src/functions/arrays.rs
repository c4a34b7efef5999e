//! Functions over multi-value arguments (`Value::Array`), as Pinot's `ArrayFunctions`, its
//! class-based array functions and its array transform functions define them.
//!
//! * Aggregates of one array: `arrayLength/cardinality` (INT), `arrayMin`, `arrayMax` (the
//!   element type), `arraySum`, `arrayAverage` (DOUBLE; NULL elements skipped, the minimum,
//!   maximum and average of no elements NULL), `arraySumInt` (INT), `arraySumLong` (LONG; both
//!   wrap on overflow as Java's sums do).
//! * Typed array functions, whose suffix names the element type the argument is read as
//!   (elements of other types are converted: `arrayReverseInt` of a STRING array parses its
//!   elements) and the result's element type: `arrayReverseInt/String`, `arraySortInt/String`,
//!   `arrayIndexOfInt/String` (0-based, -1 when absent), `arrayIndexesOfInt/Long/Float/Double/
//!   String` (every 0-based position), `intersectIndices`, `arrayContainsInt/String`,
//!   `arraySliceInt/Long/String` (`[start, end)`, 0-based, padded with 0/NULL past the end),
//!   `arrayDistinctInt/String`, `arrayRemoveInt/String` (the first occurrence),
//!   `arrayUnionInt/String`, `arrayConcatInt/Long/Float/Double/String`,
//!   `arrayPushBack…`/`arrayPushFront…` (Int/Long/Float/Double/String),
//!   `arrayElementAtInt/Long/Float/Double/String` (1-based; out of range gives Pinot's
//!   placeholder 0 or `''`), `arrayToString(values, delimiter[, nullString])`.
//! * Constructors: `array/arrayValueConstructor(v, …)` (an array of the arguments' common
//!   type), `generateIntArray/LongArray/FloatArray/DoubleArray(start, end, step)`.
//! * `arraysOverlap(a, b)`: whether the arrays share an element.
//! * The multi-value transforms: `valueIn(mv, literal, …)` (the elements equal to one of the
//!   literals), `mapValue(keys, keyLiteral, values)` (the value paired with the first key equal
//!   to the literal, NULL when there is none), `filterMv(mv, predicate)` (the elements matching
//!   a predicate over the placeholder `v`: `=`, `!=`/`<>`, `<`, `<=`, `>`, `>=`, `[NOT] IN`,
//!   `[NOT] BETWEEN`, `[NOT] LIKE`, `REGEXP_LIKE(v, pattern[, 'i'])`, `AND`, `OR`, `NOT`).
//!
//! A single-value argument where an array is expected is an error. Arrays that Pinot would
//! allocate from a count (`generate…Array`, a slice padded past the end) are limited to
//! [`MAX_ELEMENTS`] elements.

use super::coerce::{boolean, bytes, int, int32, millis, num, parse_f64, text};
use super::def::{ArgType, Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use super::regexp::like_to_regex;
use super::typing::common_type;
use crate::sql::{self, BinaryOp, Expr, Literal, UnaryOp};
use regex::{Regex, RegexBuilder};
use segments::types::{ColumnType, DataType, Value};
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use DataType::{Double as DBL, Float as FLT, Int as INT, Long as LNG, String as STR};
use Param::{Any as A, Array as AR, Number as N, NumberArray as NA, Text as T};

/// The most elements an array built from a count (`generateIntArray`, a padded slice) may have.
pub(crate) const MAX_ELEMENTS: usize = 1 << 20;

const D: Returns = Returns::Fixed(DataType::Double);

const fn def(
    name: &'static str,
    arity: usize,
    params: &'static [Param],
    returns: Returns,
    kernel: super::def::Kernel,
) -> FunctionDef {
    FunctionDef::new(name, Arity::Exact(arity), params, returns, kernel)
}

const fn arr(t: DataType) -> Returns {
    Returns::FixedArray(t)
}

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
    def("arraySumInt", 1, &[NA], Returns::Fixed(INT), sum_int),
    def("arraySumLong", 1, &[NA], Returns::Fixed(LNG), sum_long),
    def("arrayReverseInt", 1, &[NA], arr(INT), reverse_int),
    def("arrayReverseString", 1, &[AR], arr(STR), reverse_string),
    def("arraySortInt", 1, &[NA], arr(INT), sort_int),
    def("arraySortString", 1, &[AR], arr(STR), sort_string),
    def(
        "arrayIndexOfInt",
        2,
        &[NA, N],
        Returns::Fixed(INT),
        index_of_int,
    ),
    def(
        "arrayIndexOfString",
        2,
        &[AR, T],
        Returns::Fixed(INT),
        index_of_string,
    ),
    def("arrayIndexesOfInt", 2, &[NA, N], arr(INT), indexes_of_int),
    def("arrayIndexesOfLong", 2, &[NA, N], arr(INT), indexes_of_long),
    def(
        "arrayIndexesOfFloat",
        2,
        &[NA, N],
        arr(INT),
        indexes_of_float,
    ),
    def(
        "arrayIndexesOfDouble",
        2,
        &[NA, N],
        arr(INT),
        indexes_of_double,
    ),
    def(
        "arrayIndexesOfString",
        2,
        &[AR, T],
        arr(INT),
        indexes_of_string,
    ),
    def(
        "intersectIndices",
        2,
        &[NA, NA],
        arr(INT),
        intersect_indices,
    ),
    def(
        "arrayContainsInt",
        2,
        &[NA, N],
        Returns::Fixed(DataType::Boolean),
        contains_int,
    ),
    def(
        "arrayContainsString",
        2,
        &[AR, T],
        Returns::Fixed(DataType::Boolean),
        contains_string,
    ),
    def("arraySliceInt", 3, &[NA, N], arr(INT), slice_int),
    def("arraySliceLong", 3, &[NA, N], arr(LNG), slice_long),
    def("arraySliceString", 3, &[AR, N], arr(STR), slice_string),
    def("arrayDistinctInt", 1, &[NA], arr(INT), distinct_int),
    def("arrayDistinctString", 1, &[AR], arr(STR), distinct_string),
    def("arrayRemoveInt", 2, &[NA, N], arr(INT), remove_int),
    def("arrayRemoveString", 2, &[AR, T], arr(STR), remove_string),
    def("arrayUnionInt", 2, &[NA, NA], arr(INT), union_int),
    def("arrayUnionString", 2, &[AR, AR], arr(STR), union_string),
    def("arrayConcatInt", 2, &[NA, NA], arr(INT), concat_int),
    def("arrayConcatLong", 2, &[NA, NA], arr(LNG), concat_long),
    def("arrayConcatFloat", 2, &[NA, NA], arr(FLT), concat_float),
    def("arrayConcatDouble", 2, &[NA, NA], arr(DBL), concat_double),
    def("arrayConcatString", 2, &[AR, AR], arr(STR), concat_string),
    def("arrayPushBackInt", 2, &[NA, N], arr(INT), push_back_int),
    def("arrayPushBackLong", 2, &[NA, N], arr(LNG), push_back_long),
    def("arrayPushBackFloat", 2, &[NA, N], arr(FLT), push_back_float),
    def(
        "arrayPushBackDouble",
        2,
        &[NA, N],
        arr(DBL),
        push_back_double,
    ),
    def(
        "arrayPushBackString",
        2,
        &[AR, T],
        arr(STR),
        push_back_string,
    ),
    def("arrayPushFrontInt", 2, &[NA, N], arr(INT), push_front_int),
    def("arrayPushFrontLong", 2, &[NA, N], arr(LNG), push_front_long),
    def(
        "arrayPushFrontFloat",
        2,
        &[NA, N],
        arr(FLT),
        push_front_float,
    ),
    def(
        "arrayPushFrontDouble",
        2,
        &[NA, N],
        arr(DBL),
        push_front_double,
    ),
    def(
        "arrayPushFrontString",
        2,
        &[AR, T],
        arr(STR),
        push_front_string,
    ),
    def(
        "arrayElementAtInt",
        2,
        &[NA, N],
        Returns::Fixed(INT),
        element_at_int,
    ),
    def(
        "arrayElementAtLong",
        2,
        &[NA, N],
        Returns::Fixed(LNG),
        element_at_long,
    ),
    def(
        "arrayElementAtFloat",
        2,
        &[NA, N],
        Returns::Fixed(FLT),
        element_at_float,
    ),
    def(
        "arrayElementAtDouble",
        2,
        &[NA, N],
        Returns::Fixed(DBL),
        element_at_double,
    ),
    def(
        "arrayElementAtString",
        2,
        &[AR, N],
        Returns::Fixed(STR),
        element_at_string,
    ),
    FunctionDef::new(
        "arrayToString",
        Arity::Range(2, 3),
        &[AR, T],
        Returns::Fixed(STR),
        array_to_string,
    ),
    FunctionDef::new(
        "array",
        Arity::AtLeast(1),
        &[A],
        Returns::InferColumn(constructor_type),
        array_constructor,
    )
    .with_aliases(&["arrayValueConstructor"]),
    def("generateIntArray", 3, &[N], arr(INT), generate_int),
    def("generateLongArray", 3, &[N], arr(LNG), generate_long),
    def("generateFloatArray", 3, &[N], arr(FLT), generate_float),
    def("generateDoubleArray", 3, &[N], arr(DBL), generate_double),
    def(
        "arraysOverlap",
        2,
        &[AR, AR],
        Returns::Fixed(DataType::Boolean),
        arrays_overlap,
    ),
    FunctionDef::new(
        "valueIn",
        Arity::AtLeast(2),
        &[AR, A],
        Returns::InferColumn(value_in_type),
        value_in,
    ),
    def(
        "mapValue",
        3,
        &[AR, A, AR],
        Returns::InferColumn(map_value_type),
        map_value,
    ),
    def(
        "filterMv",
        2,
        &[AR, T],
        Returns::InferColumn(filter_mv_type),
        filter_mv,
    ),
];

// ---------------------------------------------------------------------------------------------
// Reading arguments

fn element_type(args: &[ArgType]) -> Result<DataType, FunctionError> {
    Ok(args[0].data_type.unwrap_or(DataType::Double))
}

/// The elements of a multi-value argument.
fn array_of<'a>(function: &'static str, v: &'a Value) -> Result<&'a [Value], FunctionError> {
    match v {
        Value::Array(items) => Ok(items),
        other => Err(FunctionError::invalid(function, other, "not a multi-value")),
    }
}

fn items<'a>(
    function: &'static str,
    v: &'a Value,
) -> Result<impl Iterator<Item = &'a Value>, FunctionError> {
    Ok(array_of(function, v)?.iter().filter(|v| !v.is_null()))
}

/// Whole-number text as Java parses it for an `int`/`long` parameter: an integer, or a number
/// whose value is then cast.
fn integer_text(function: &'static str, v: &Value, s: &str) -> Result<i128, FunctionError> {
    let t = s.trim();
    if let Ok(i) = t.parse::<i64>() {
        return Ok(i128::from(i));
    }
    match parse_f64(t) {
        Some(f) => Ok(f as i64 as i128),
        None => Err(FunctionError::invalid(function, v, "not a number")),
    }
}

/// One value as the element type `t` of a typed array function (INT, LONG, FLOAT, DOUBLE or
/// STRING), converted as Java converts the boxed value: whole numbers narrowed with
/// wrap-around, floating point cast (saturating, NaN to 0), text parsed. NULL stays NULL.
fn typed(function: &'static str, t: DataType, v: &Value) -> Result<Value, FunctionError> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    if matches!(v, Value::Array(_)) {
        return Err(FunctionError::invalid(function, v, "not a single value"));
    }
    Ok(match t {
        DataType::Int | DataType::Long => {
            let whole: i128 = match v {
                Value::Float(f) if t == DataType::Int => i128::from(*f as i32),
                Value::Double(f) if t == DataType::Int => i128::from(*f as i32),
                Value::Float(f) => i128::from(*f as i64),
                Value::Double(f) => i128::from(*f as i64),
                Value::String(s) | Value::Json(s) | Value::BigDecimal(s) => {
                    integer_text(function, v, s)?
                }
                other => i128::from(int(function, other)?),
            };
            if t == DataType::Int {
                Value::Int(whole as i32)
            } else {
                Value::Long(whole as i64)
            }
        }
        DataType::Float => Value::Float(num(function, v)? as f32),
        DataType::Double => Value::Double(num(function, v)?),
        _ => Value::String(text(v).into_owned()),
    })
}

/// The elements of a multi-value argument, each converted to the element type `t`.
fn elements(function: &'static str, t: DataType, v: &Value) -> Result<Vec<Value>, FunctionError> {
    array_of(function, v)?
        .iter()
        .map(|e| typed(function, t, e))
        .collect()
}

/// A 0-based position as an INT value.
fn position(function: &'static str, i: usize) -> Result<Value, FunctionError> {
    i32::try_from(i)
        .map(Value::Int)
        .map_err(|_| FunctionError::invalid(function, i, "position out of INT range"))
}

fn too_large(function: &'static str, size: u64) -> FunctionError {
    FunctionError::ResultTooLarge { function, size }
}

// ---------------------------------------------------------------------------------------------
// Equality and order of elements

/// Java's `String.compareTo`: UTF-16 code unit order.
fn java_cmp(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Element order of the sort functions: NULL first, text as Java orders it.
fn element_cmp(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::String(x), Value::String(y)) => java_cmp(x, y),
        _ => a.total_cmp(b),
    }
}

/// Commons-lang `ArrayUtils` search equality: `==` on numbers (so `-0.0` finds `0.0`), a NaN
/// finds a NaN, `equals` on text.
fn search_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::Double(x), Value::Double(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

/// A hash key with the equality of Java's hash sets: floating point by bits (NaNs alike),
/// decimals by text (scale-sensitive, as `BigDecimal.equals`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Null,
    Whole(i64),
    Bits(u64),
    Text(String),
    Bytes(Vec<u8>),
    Bool(bool),
    Nested,
}

fn key(v: &Value) -> Key {
    match v {
        Value::Null => Key::Null,
        Value::Int(i) => Key::Whole(i64::from(*i)),
        Value::Long(i) | Value::Timestamp(i) => Key::Whole(*i),
        Value::Float(f) if f.is_nan() => Key::Bits(u64::from(f32::NAN.to_bits())),
        Value::Float(f) => Key::Bits(u64::from(f.to_bits())),
        Value::Double(f) if f.is_nan() => Key::Bits(f64::NAN.to_bits()),
        Value::Double(f) => Key::Bits(f.to_bits()),
        Value::BigDecimal(s) | Value::String(s) | Value::Json(s) | Value::Map(s) => {
            Key::Text(s.clone())
        }
        Value::Bytes(b) => Key::Bytes(b.clone()),
        Value::Boolean(b) => Key::Bool(*b),
        Value::Array(_) => Key::Nested,
    }
}

/// The values in first-seen order, each once.
fn distinct(values: impl IntoIterator<Item = Value>) -> Vec<Value> {
    let mut seen = HashSet::new();
    values.into_iter().filter(|v| seen.insert(key(v))).collect()
}

// ---------------------------------------------------------------------------------------------
// Kernels

fn array_length(args: &[Value]) -> Result<Value, FunctionError> {
    let n = array_of("arrayLength", &args[0])?.len();
    Ok(Value::Int(i32::try_from(n).unwrap_or(i32::MAX)))
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

fn sum_int(args: &[Value]) -> Result<Value, FunctionError> {
    let mut sum = 0i32;
    for v in elements("arraySumInt", INT, &args[0])? {
        if let Value::Int(i) = v {
            sum = sum.wrapping_add(i);
        }
    }
    Ok(Value::Int(sum))
}

fn sum_long(args: &[Value]) -> Result<Value, FunctionError> {
    let mut sum = 0i64;
    for v in elements("arraySumLong", LNG, &args[0])? {
        if let Value::Long(i) = v {
            sum = sum.wrapping_add(i);
        }
    }
    Ok(Value::Long(sum))
}

fn reverse(function: &'static str, t: DataType, args: &[Value]) -> Result<Value, FunctionError> {
    let mut values = elements(function, t, &args[0])?;
    values.reverse();
    Ok(Value::Array(values))
}

fn sort(function: &'static str, t: DataType, args: &[Value]) -> Result<Value, FunctionError> {
    let mut values = elements(function, t, &args[0])?;
    values.sort_by(element_cmp);
    Ok(Value::Array(values))
}

fn index_of(function: &'static str, t: DataType, args: &[Value]) -> Result<Value, FunctionError> {
    let values = elements(function, t, &args[0])?;
    let wanted = typed(function, t, &args[1])?;
    match values.iter().position(|v| search_eq(v, &wanted)) {
        Some(i) => position(function, i),
        None => Ok(Value::Int(-1)),
    }
}

fn indexes_of(function: &'static str, t: DataType, args: &[Value]) -> Result<Value, FunctionError> {
    let values = elements(function, t, &args[0])?;
    let wanted = typed(function, t, &args[1])?;
    let found = values
        .iter()
        .enumerate()
        .filter(|(_, v)| search_eq(v, &wanted))
        .map(|(i, _)| position(function, i))
        .collect::<Result<_, _>>()?;
    Ok(Value::Array(found))
}

/// Pinot's merge of two increasing index lists: walks the first list, advancing in the
/// second only on a match (so it finds the common indexes of increasing lists whose
/// second list holds no index missing from the first).
fn intersect_indices(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "intersectIndices";
    let first = elements(F, INT, &args[0])?;
    let second = elements(F, INT, &args[1])?;
    let mut j = 0;
    let mut common = Vec::new();
    for v in first {
        let Some(other) = second.get(j) else { break };
        if v == *other {
            common.push(v);
            j += 1;
        }
    }
    Ok(Value::Array(common))
}

fn contains(function: &'static str, t: DataType, args: &[Value]) -> Result<Value, FunctionError> {
    let values = elements(function, t, &args[0])?;
    let wanted = typed(function, t, &args[1])?;
    Ok(Value::Boolean(values.iter().any(|v| search_eq(v, &wanted))))
}

/// `Arrays.copyOfRange(values, start, end)`: `0 <= start <= length`, `start <= end`; past
/// the end the copy is padded with the type's default (0, or NULL for text).
fn slice(function: &'static str, t: DataType, args: &[Value]) -> Result<Value, FunctionError> {
    let values = elements(function, t, &args[0])?;
    let start = int32(function, &args[1])?;
    let end = int32(function, &args[2])?;
    let from = usize::try_from(start)
        .ok()
        .filter(|s| *s <= values.len())
        .ok_or_else(|| FunctionError::invalid(function, start, "start index out of bounds"))?;
    if start > end {
        return Err(FunctionError::invalid(
            function,
            format!("{start} > {end}"),
            "start index after end index",
        ));
    }
    let size = (i64::from(end) - i64::from(start)) as usize;
    if size > MAX_ELEMENTS.max(values.len()) {
        return Err(too_large(function, size as u64));
    }
    let pad = match t {
        DataType::Int => Value::Int(0),
        DataType::Long => Value::Long(0),
        _ => Value::Null,
    };
    let mut out: Vec<Value> = values.into_iter().skip(from).take(size).collect();
    out.resize(size, pad);
    Ok(Value::Array(out))
}

fn distinct_of(
    function: &'static str,
    t: DataType,
    args: &[Value],
) -> Result<Value, FunctionError> {
    Ok(Value::Array(distinct(elements(function, t, &args[0])?)))
}

/// Removes the first element equal to the second argument.
fn remove(function: &'static str, t: DataType, args: &[Value]) -> Result<Value, FunctionError> {
    let mut values = elements(function, t, &args[0])?;
    let unwanted = typed(function, t, &args[1])?;
    if let Some(i) = values.iter().position(|v| search_eq(v, &unwanted)) {
        values.remove(i);
    }
    Ok(Value::Array(values))
}

fn union(function: &'static str, t: DataType, args: &[Value]) -> Result<Value, FunctionError> {
    let mut values = elements(function, t, &args[0])?;
    values.extend(elements(function, t, &args[1])?);
    Ok(Value::Array(distinct(values)))
}

fn concat(function: &'static str, t: DataType, args: &[Value]) -> Result<Value, FunctionError> {
    let mut values = elements(function, t, &args[0])?;
    values.extend(elements(function, t, &args[1])?);
    Ok(Value::Array(values))
}

fn push_back(function: &'static str, t: DataType, args: &[Value]) -> Result<Value, FunctionError> {
    let mut values = elements(function, t, &args[0])?;
    values.push(typed(function, t, &args[1])?);
    Ok(Value::Array(values))
}

fn push_front(function: &'static str, t: DataType, args: &[Value]) -> Result<Value, FunctionError> {
    let mut values = elements(function, t, &args[0])?;
    values.insert(0, typed(function, t, &args[1])?);
    Ok(Value::Array(values))
}

/// The element at a 1-based index; out of range, Pinot's placeholder for the type (0, `''`).
fn element_at(function: &'static str, t: DataType, args: &[Value]) -> Result<Value, FunctionError> {
    let values = array_of(function, &args[0])?;
    let index = int32(function, &args[1])?;
    let found = usize::try_from(index)
        .ok()
        .and_then(|i| i.checked_sub(1))
        .and_then(|i| values.get(i));
    match found {
        Some(v) => typed(function, t, v),
        None => Ok(match t {
            DataType::Int => Value::Int(0),
            DataType::Long => Value::Long(0),
            DataType::Float => Value::Float(0.0),
            DataType::Double => Value::Double(0.0),
            _ => Value::String(String::new()),
        }),
    }
}

/// `arrayToString(values, delimiter)` joins the elements (a NULL element as `null`);
/// `arrayToString(values, delimiter, nullString)` writes NULL and empty elements as
/// `nullString`, and an empty array as `''`.
fn array_to_string(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "arrayToString";
    let values = elements(F, STR, &args[0])?;
    let delimiter = text(&args[1]);
    let null_text = args.get(2).map(text);
    let parts: Vec<&str> = values
        .iter()
        .map(|v| match (v, &null_text) {
            (Value::String(s), Some(n)) if s.is_empty() => n.as_ref(),
            (Value::String(s), _) => s.as_str(),
            (_, Some(n)) => n.as_ref(),
            (_, None) => "null",
        })
        .collect();
    Ok(Value::String(parts.join(&delimiter)))
}

fn constructor_type(args: &[ArgType]) -> Result<ColumnType, FunctionError> {
    if let Some(position) = args.iter().position(|a| !a.single_value) {
        return Err(FunctionError::ArgumentType {
            function: "array",
            position: position + 1,
            column_type: ColumnType::mv(args[position].data_type.unwrap_or(STR)),
        });
    }
    let types: Vec<DataType> = args.iter().filter_map(|a| a.data_type).collect();
    if types.is_empty() {
        return Ok(ColumnType::mv(STR));
    }
    common_type(&types)
        .map(ColumnType::mv)
        .ok_or_else(|| FunctionError::IncompatibleTypes {
            function: "array",
            types: describe(&types),
        })
}

fn describe(types: &[DataType]) -> String {
    types
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `array(v, …)`: the arguments as one array of their common type.
fn array_constructor(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "array";
    if let Some(nested) = args.iter().find(|v| matches!(v, Value::Array(_))) {
        return Err(FunctionError::invalid(F, nested, "not a single value"));
    }
    let types: Vec<DataType> = args.iter().filter_map(Value::data_type).collect();
    let Some(t) = common_type(&types) else {
        if types.is_empty() {
            return Ok(Value::Array(args.to_vec()));
        }
        return Err(FunctionError::IncompatibleTypes {
            function: F,
            types: describe(&types),
        });
    };
    args.iter()
        .map(|v| {
            v.cast(t)
                .map_err(|e| FunctionError::invalid(F, v, e.to_string()))
        })
        .collect::<Result<_, _>>()
        .map(Value::Array)
}

/// The element count Pinot computes for a generated array, checked: a zero step divides by
/// zero, a negative count is an error, and the count is bounded by [`MAX_ELEMENTS`].
fn generated_size(function: &'static str, size: i64) -> Result<usize, FunctionError> {
    let size = usize::try_from(size)
        .map_err(|_| FunctionError::invalid(function, size, "negative array size"))?;
    if size > MAX_ELEMENTS {
        return Err(too_large(function, size as u64));
    }
    Ok(size)
}

/// `generateIntArray(start, end, step)`: `(end - start) / step + 1` values from `start`, in
/// Java's wrapping INT arithmetic.
fn generate_int(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "generateIntArray";
    let [start, end, step] = [0, 1, 2].map(|i| typed(F, INT, &args[i]));
    let (Value::Int(start), Value::Int(end), Value::Int(step)) = (start?, end?, step?) else {
        return Err(FunctionError::invalid(F, &args[0], "not a number"));
    };
    if step == 0 {
        return Err(FunctionError::DivisionByZero { function: F });
    }
    let size = end.wrapping_sub(start).wrapping_div(step).wrapping_add(1);
    let size = generated_size(F, i64::from(size))?;
    let mut value = start;
    let mut out = Vec::with_capacity(size);
    for _ in 0..size {
        out.push(Value::Int(value));
        value = value.wrapping_add(step);
    }
    Ok(Value::Array(out))
}

fn generate_long(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "generateLongArray";
    let [start, end, step] = [0, 1, 2].map(|i| typed(F, LNG, &args[i]));
    let (Value::Long(start), Value::Long(end), Value::Long(step)) = (start?, end?, step?) else {
        return Err(FunctionError::invalid(F, &args[0], "not a number"));
    };
    if step == 0 {
        return Err(FunctionError::DivisionByZero { function: F });
    }
    let size = end.wrapping_sub(start).wrapping_div(step).wrapping_add(1) as i32;
    let size = generated_size(F, i64::from(size))?;
    let mut value = start;
    let mut out = Vec::with_capacity(size);
    for _ in 0..size {
        out.push(Value::Long(value));
        value = value.wrapping_add(step);
    }
    Ok(Value::Array(out))
}

fn generate_float(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "generateFloatArray";
    let [start, end, step] = [0, 1, 2].map(|i| num(F, &args[i]).map(|f| f as f32));
    let (mut value, end, step) = (start?, end?, step?);
    let size = generated_size(F, i64::from(((end - value) / step + 1.0) as i32))?;
    let mut out = Vec::with_capacity(size);
    for _ in 0..size {
        out.push(Value::Float(value));
        value += step;
    }
    Ok(Value::Array(out))
}

fn generate_double(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "generateDoubleArray";
    let [start, end, step] = [0, 1, 2].map(|i| num(F, &args[i]));
    let (mut value, end, step) = (start?, end?, step?);
    let size = generated_size(F, i64::from(((end - value) / step + 1.0) as i32))?;
    let mut out = Vec::with_capacity(size);
    for _ in 0..size {
        out.push(Value::Double(value));
        value += step;
    }
    Ok(Value::Array(out))
}

/// Whether two arrays share an element: elements of one type compare as Java's hash sets
/// do; arrays of different types compare the elements' text (Pinot's STRING_ARRAY fallback).
fn arrays_overlap(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "arraysOverlap";
    let a = array_of(F, &args[0])?;
    let b = array_of(F, &args[1])?;
    let kind = |v: &Value| std::mem::discriminant(v);
    let first = a.iter().chain(b).find(|v| !v.is_null()).map(kind);
    let one_type = a
        .iter()
        .chain(b)
        .all(|v| v.is_null() || Some(kind(v)) == first);
    let key_of = |v: &Value| match v {
        Value::Null => Key::Null,
        _ if one_type => key(v),
        _ => Key::Text(text(v).into_owned()),
    };
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let set: HashSet<Key> = small.iter().map(key_of).collect();
    Ok(Value::Boolean(
        large.iter().any(|v| set.contains(&key_of(v))),
    ))
}

/// How an element compares with a literal, the literal read as the element's type (a number
/// for numbers, millis for timestamps, hex for bytes, text for text); `None` for a NULL
/// element, which matches nothing.
fn compare_literal(
    function: &'static str,
    element: &Value,
    literal: &Value,
) -> Result<Option<Ordering>, FunctionError> {
    Ok(Some(match element {
        Value::Null => return Ok(None),
        Value::String(s) | Value::Json(s) => java_cmp(s, &text(literal)),
        Value::Bytes(b) => b.as_slice().cmp(bytes(function, literal)?.as_ref()),
        Value::Boolean(b) => b.cmp(&boolean(function, literal)?),
        Value::Timestamp(ms) => ms.cmp(&millis(function, literal)?),
        Value::Array(_) => return Err(FunctionError::invalid(function, element, "nested array")),
        Value::Float(_) => element.sql_cmp(&Value::Float(num(function, literal)? as f32)),
        _ => {
            let number = match literal {
                Value::String(s) | Value::Json(s) => match s.trim().parse::<i64>() {
                    Ok(i) => Value::Long(i),
                    Err(_) => Value::Double(num(function, literal)?),
                },
                Value::Int(_) | Value::Long(_) | Value::Float(_) | Value::Double(_) => {
                    literal.clone()
                }
                Value::BigDecimal(_) => literal.clone(),
                other => Value::Double(num(function, other)?),
            };
            element.sql_cmp(&number)
        }
    }))
}

fn equals_literal(
    function: &'static str,
    element: &Value,
    literal: &Value,
) -> Result<bool, FunctionError> {
    Ok(compare_literal(function, element, literal)? == Some(Ordering::Equal))
}

/// Arguments from position `from` on must be literals (Pinot reads them once, at planning).
fn needs_literals(
    function: &'static str,
    args: &[ArgType],
    from: usize,
    to: usize,
) -> Result<(), FunctionError> {
    match (from..to.min(args.len())).find(|i| args[*i].literal.is_none()) {
        Some(i) => Err(FunctionError::NeedsLiteral {
            function,
            position: i + 1,
        }),
        None => Ok(()),
    }
}

fn value_in_type(args: &[ArgType]) -> Result<ColumnType, FunctionError> {
    needs_literals("valueIn", args, 1, args.len())?;
    Ok(ColumnType::mv(args[0].data_type.unwrap_or(STR)))
}

/// `valueIn(mv, literal, …)`: the elements equal to one of the literals, in order.
fn value_in(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "valueIn";
    let mut kept = Vec::new();
    for v in array_of(F, &args[0])? {
        let mut matched = false;
        for literal in &args[1..] {
            if equals_literal(F, v, literal)? {
                matched = true;
                break;
            }
        }
        if matched {
            kept.push(v.clone());
        }
    }
    Ok(Value::Array(kept))
}

fn map_value_type(args: &[ArgType]) -> Result<ColumnType, FunctionError> {
    needs_literals("mapValue", args, 1, 2)?;
    Ok(ColumnType::sv(args[2].data_type.unwrap_or(STR)))
}

/// `mapValue(keys, key, values)`: the value at the position of the first key equal to `key`;
/// NULL when no key is.
fn map_value(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "mapValue";
    let keys = array_of(F, &args[0])?;
    let values = array_of(F, &args[2])?;
    for (i, k) in keys.iter().enumerate() {
        if equals_literal(F, k, &args[1])? {
            return Ok(values.get(i).cloned().unwrap_or(Value::Null));
        }
    }
    Ok(Value::Null)
}

fn filter_mv_type(args: &[ArgType]) -> Result<ColumnType, FunctionError> {
    if let Some(Value::String(predicate)) = args[1].literal {
        compiled(predicate)
            .map_err(|reason| FunctionError::invalid_literal("filterMv", predicate, reason))?;
    }
    Ok(ColumnType::mv(args[0].data_type.unwrap_or(STR)))
}

/// `filterMv(mv, predicate)`: the elements for which the predicate over `v` holds.
fn filter_mv(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "filterMv";
    let source = text(&args[1]);
    let predicate =
        compiled(&source).map_err(|reason| FunctionError::invalid(F, &source, reason))?;
    let mut kept = Vec::new();
    for v in array_of(F, &args[0])? {
        if !v.is_null() && predicate.matches(v)? {
            kept.push(v.clone());
        }
    }
    Ok(Value::Array(kept))
}

// ---------------------------------------------------------------------------------------------
// filterMv predicates

/// A compiled `filterMv` predicate over the placeholder `v`.
#[derive(Debug)]
enum Predicate {
    Constant(bool),
    Compare(BinaryOp, Value),
    In(Vec<Value>),
    Between(Value, Value),
    Regex(Regex),
    And(Vec<Predicate>),
    Or(Vec<Predicate>),
    Not(Box<Predicate>),
}

impl Predicate {
    fn matches(&self, v: &Value) -> Result<bool, FunctionError> {
        const F: &str = "filterMv";
        Ok(match self {
            Predicate::Constant(b) => *b,
            Predicate::Compare(op, literal) => {
                let Some(o) = compare_literal(F, v, literal)? else {
                    return Ok(false);
                };
                match op {
                    BinaryOp::Eq => o == Ordering::Equal,
                    BinaryOp::NotEq => o != Ordering::Equal,
                    BinaryOp::Lt => o == Ordering::Less,
                    BinaryOp::LtEq => o != Ordering::Greater,
                    BinaryOp::Gt => o == Ordering::Greater,
                    _ => o != Ordering::Less,
                }
            }
            Predicate::In(list) => {
                for literal in list {
                    if equals_literal(F, v, literal)? {
                        return Ok(true);
                    }
                }
                false
            }
            Predicate::Between(low, high) => {
                compare_literal(F, v, low)?.is_some_and(|o| o != Ordering::Less)
                    && compare_literal(F, v, high)?.is_some_and(|o| o != Ordering::Greater)
            }
            Predicate::Regex(re) => re.is_match(&text(v)),
            Predicate::And(all) => {
                for p in all {
                    if !p.matches(v)? {
                        return Ok(false);
                    }
                }
                true
            }
            Predicate::Or(any) => {
                for p in any {
                    if p.matches(v)? {
                        return Ok(true);
                    }
                }
                false
            }
            Predicate::Not(p) => !p.matches(v)?,
        })
    }
}

/// How many compiled predicates each thread keeps.
const CACHE_SIZE: usize = 64;

/// The compiled predicate (cached per thread: `filterMv` runs per row with one predicate).
fn compiled(source: &str) -> Result<Rc<Predicate>, String> {
    thread_local! {
        static CACHE: RefCell<HashMap<String, Rc<Predicate>>> = RefCell::new(HashMap::new());
    }
    CACHE.with(|cache| {
        if let Some(p) = cache.borrow().get(source) {
            return Ok(Rc::clone(p));
        }
        let p = Rc::new(compile_predicate(source)?);
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHE_SIZE {
            cache.clear();
        }
        cache.insert(source.to_string(), Rc::clone(&p));
        Ok(p)
    })
}

fn compile_predicate(source: &str) -> Result<Predicate, String> {
    if source.trim().is_empty() {
        return Err("filterMv predicate must be a non-empty string".into());
    }
    let expr = sql::parse_expr(source).map_err(|e| e.to_string())?;
    compile(&expr)
}

fn compile(e: &Expr) -> Result<Predicate, String> {
    Ok(match e {
        Expr::Literal(Literal::Bool(b)) => Predicate::Constant(*b),
        Expr::Unary {
            op: UnaryOp::Not,
            expr,
        } => Predicate::Not(Box::new(compile(expr)?)),
        Expr::Binary {
            op: op @ (BinaryOp::And | BinaryOp::Or),
            left,
            right,
        } => {
            let both = vec![compile(left)?, compile(right)?];
            if *op == BinaryOp::And {
                Predicate::And(both)
            } else {
                Predicate::Or(both)
            }
        }
        Expr::Binary {
            op:
                op @ (BinaryOp::Eq
                | BinaryOp::NotEq
                | BinaryOp::Lt
                | BinaryOp::LtEq
                | BinaryOp::Gt
                | BinaryOp::GtEq),
            left,
            right,
        } => {
            placeholder(left)?;
            Predicate::Compare(*op, literal(right)?)
        }
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            placeholder(expr)?;
            let list = Predicate::In(list.iter().map(literal).collect::<Result<_, _>>()?);
            negate(list, *negated)
        }
        Expr::Between {
            expr,
            low,
            high,
            negated,
        } => {
            placeholder(expr)?;
            negate(Predicate::Between(literal(low)?, literal(high)?), *negated)
        }
        Expr::Like {
            expr,
            pattern,
            negated,
            escape,
        } => {
            placeholder(expr)?;
            if escape.is_some() {
                return Err("filterMv does not support LIKE … ESCAPE".into());
            }
            let pattern = text(&literal(pattern)?).into_owned();
            negate(regex(&like_to_regex(&pattern), true)?, *negated)
        }
        Expr::Function { name, args, .. } if super::canonical_name(name) == "regexplike" => {
            let [subject, rest @ ..] = args.as_slice() else {
                return Err("REGEXP_LIKE requires 2 or 3 arguments".into());
            };
            placeholder(subject)?;
            let ignore_case = match rest {
                [_] => false,
                [_, option] => match text(&literal(option)?).to_ascii_lowercase().as_str() {
                    "i" => true,
                    "c" => false,
                    other => return Err(format!("unsupported REGEXP_LIKE option '{other}'")),
                },
                _ => return Err("REGEXP_LIKE requires 2 or 3 arguments".into()),
            };
            regex(&text(&literal(&rest[0])?), ignore_case)?
        }
        other => {
            return Err(format!(
                "filterMv does not support the predicate '{}'",
                sql::naming::filter_name(other)
            ));
        }
    })
}

fn negate(p: Predicate, negated: bool) -> Predicate {
    if negated {
        Predicate::Not(Box::new(p))
    } else {
        p
    }
}

fn regex(pattern: &str, ignore_case: bool) -> Result<Predicate, String> {
    RegexBuilder::new(pattern)
        .case_insensitive(ignore_case)
        .size_limit(1 << 22)
        .build()
        .map(Predicate::Regex)
        .map_err(|e| format!("invalid regular expression '{pattern}': {e}"))
}

/// The left side of a predicate must be the placeholder `v` itself.
fn placeholder(e: &Expr) -> Result<(), String> {
    match e {
        Expr::Column { table: None, name } if name.eq_ignore_ascii_case("v") => Ok(()),
        Expr::Column { name, .. } => Err(format!(
            "filterMv predicate must reference placeholder 'v', but found '{name}'"
        )),
        _ => Err("filterMv only supports predicates on placeholder 'v' without functions".into()),
    }
}

/// A literal of the predicate (negative numbers included).
fn literal(e: &Expr) -> Result<Value, String> {
    match e {
        Expr::Literal(l) => Ok(match l {
            Literal::Null => return Err("filterMv does not support NULL literals".into()),
            Literal::Bool(b) => Value::Boolean(*b),
            Literal::Long(i) => Value::Long(*i),
            Literal::Double(f) => Value::Double(*f),
            Literal::Decimal(s) => Value::BigDecimal(s.clone()),
            Literal::String(s) | Literal::Typed { value: s, .. } => Value::String(s.clone()),
        }),
        Expr::Unary {
            op: UnaryOp::Neg,
            expr,
        } => match literal(expr)? {
            Value::Long(i) => Ok(i
                .checked_neg()
                .map_or_else(|| Value::BigDecimal(format!("-{i}")), Value::Long)),
            Value::Double(f) => Ok(Value::Double(-f)),
            Value::BigDecimal(s) => Ok(match s.parse::<i128>().ok().map(|i| -i) {
                Some(i) if i64::try_from(i).is_ok() => Value::Long(i as i64),
                _ => Value::BigDecimal(format!("-{s}")),
            }),
            other => Err(format!("cannot negate '{other}'")),
        },
        Expr::Unary {
            op: UnaryOp::Plus,
            expr,
        } => literal(expr),
        _ => Err("filterMv predicates compare 'v' with literals only".into()),
    }
}

// ---------------------------------------------------------------------------------------------
// One kernel per typed function: the shared bodies above with the function's name and
// element type.

macro_rules! kernels {
    ($($kernel:ident = $body:ident($name:literal, $t:expr);)*) => {
        $(
            fn $kernel(args: &[Value]) -> Result<Value, FunctionError> {
                $body($name, $t, args)
            }
        )*
    };
}

kernels! {
    reverse_int = reverse("arrayReverseInt", INT);
    reverse_string = reverse("arrayReverseString", STR);
    sort_int = sort("arraySortInt", INT);
    sort_string = sort("arraySortString", STR);
    index_of_int = index_of("arrayIndexOfInt", INT);
    index_of_string = index_of("arrayIndexOfString", STR);
    indexes_of_int = indexes_of("arrayIndexesOfInt", INT);
    indexes_of_long = indexes_of("arrayIndexesOfLong", LNG);
    indexes_of_float = indexes_of("arrayIndexesOfFloat", FLT);
    indexes_of_double = indexes_of("arrayIndexesOfDouble", DBL);
    indexes_of_string = indexes_of("arrayIndexesOfString", STR);
    contains_int = contains("arrayContainsInt", INT);
    contains_string = contains("arrayContainsString", STR);
    slice_int = slice("arraySliceInt", INT);
    slice_long = slice("arraySliceLong", LNG);
    slice_string = slice("arraySliceString", STR);
    distinct_int = distinct_of("arrayDistinctInt", INT);
    distinct_string = distinct_of("arrayDistinctString", STR);
    remove_int = remove("arrayRemoveInt", INT);
    remove_string = remove("arrayRemoveString", STR);
    union_int = union("arrayUnionInt", INT);
    union_string = union("arrayUnionString", STR);
    concat_int = concat("arrayConcatInt", INT);
    concat_long = concat("arrayConcatLong", LNG);
    concat_float = concat("arrayConcatFloat", FLT);
    concat_double = concat("arrayConcatDouble", DBL);
    concat_string = concat("arrayConcatString", STR);
    push_back_int = push_back("arrayPushBackInt", INT);
    push_back_long = push_back("arrayPushBackLong", LNG);
    push_back_float = push_back("arrayPushBackFloat", FLT);
    push_back_double = push_back("arrayPushBackDouble", DBL);
    push_back_string = push_back("arrayPushBackString", STR);
    push_front_int = push_front("arrayPushFrontInt", INT);
    push_front_long = push_front("arrayPushFrontLong", LNG);
    push_front_float = push_front("arrayPushFrontFloat", FLT);
    push_front_double = push_front("arrayPushFrontDouble", DBL);
    push_front_string = push_front("arrayPushFrontString", STR);
    element_at_int = element_at("arrayElementAtInt", INT);
    element_at_long = element_at("arrayElementAtLong", LNG);
    element_at_float = element_at("arrayElementAtFloat", FLT);
    element_at_double = element_at("arrayElementAtDouble", DBL);
    element_at_string = element_at("arrayElementAtString", STR);
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Result<Value, FunctionError> {
        lookup(name).unwrap().eval(args)
    }

    fn ok(name: &str, args: &[Value]) -> Value {
        call(name, args).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn ints(values: &[i32]) -> Value {
        Value::Array(values.iter().map(|i| Value::Int(*i)).collect())
    }

    fn longs(values: &[i64]) -> Value {
        Value::Array(values.iter().map(|i| Value::Long(*i)).collect())
    }

    fn floats(values: &[f32]) -> Value {
        Value::Array(values.iter().map(|f| Value::Float(*f)).collect())
    }

    fn doubles(values: &[f64]) -> Value {
        Value::Array(values.iter().map(|f| Value::Double(*f)).collect())
    }

    fn strings(values: &[&str]) -> Value {
        Value::Array(values.iter().map(|s| s_(s)).collect())
    }

    fn s_(text: &str) -> Value {
        Value::String(text.into())
    }

    /// Pinot's `ArrayFunctionsTest` row: the same numbers as INT, LONG and STRING arrays.
    fn row() -> (Value, Value, Value) {
        let n = [3, 2, 10, 6, 1, 12];
        (
            ints(&n),
            longs(&n.map(i64::from)),
            strings(&["3", "2", "10", "6", "1", "12"]),
        )
    }

    fn return_type(name: &str, args: &[ArgType]) -> Result<ColumnType, FunctionError> {
        lookup(name).unwrap().resolve_column(args)
    }

    #[test]
    fn aggregates() {
        let a = Value::Array(vec![
            Value::Int(3),
            Value::Null,
            Value::Int(1),
            Value::Int(2),
        ]);
        assert_eq!(ok("arrayLength", std::slice::from_ref(&a)), Value::Int(4));
        assert_eq!(ok("cardinality", std::slice::from_ref(&a)), Value::Int(4));
        assert_eq!(ok("arrayMin", std::slice::from_ref(&a)), Value::Int(1));
        assert_eq!(ok("arrayMax", std::slice::from_ref(&a)), Value::Int(3));
        assert_eq!(ok("arraySum", std::slice::from_ref(&a)), Value::Double(6.0));
        assert_eq!(ok("arrayAverage", &[a]), Value::Double(2.0));
        let words = strings(&["b", "a"]);
        assert_eq!(ok("arrayMin", &[words]), s_("a"));
        let empty = Value::Array(vec![]);
        assert_eq!(ok("arrayMax", std::slice::from_ref(&empty)), Value::Null);
        assert_eq!(
            ok("arrayAverage", std::slice::from_ref(&empty)),
            Value::Null
        );
        assert_eq!(
            ok("arraySum", std::slice::from_ref(&empty)),
            Value::Double(0.0)
        );
        assert!(call("arrayLength", &[Value::Int(1)]).is_err());
        assert_eq!(
            lookup("arrayMax")
                .unwrap()
                .return_type(&[DataType::Long])
                .unwrap(),
            DataType::Long
        );
    }

    #[test]
    fn typed_sums_wrap_like_java() {
        let (i, l, s) = row();
        assert_eq!(ok("arraySumInt", std::slice::from_ref(&i)), Value::Int(34));
        assert_eq!(ok("array_sum_int", &[s]), Value::Int(34));
        assert_eq!(ok("arraySumLong", &[l]), Value::Long(34));
        assert_eq!(
            ok("arraySumInt", &[ints(&[i32::MAX, 1])]),
            Value::Int(i32::MIN)
        );
        assert_eq!(
            ok("arraySumLong", &[longs(&[i64::MAX, 1])]),
            Value::Long(i64::MIN)
        );
        // Longs read as INT elements narrow with wrap-around, as Java's `(int)` cast.
        assert_eq!(ok("arraySumInt", &[longs(&[1 << 32, 5])]), Value::Int(5));
        assert_eq!(ok("arraySumInt", &[Value::Null]), Value::Null);
        assert!(call("arraySumInt", &[strings(&["x"])]).is_err());
        assert_eq!(
            return_type("arraySumLong", &[ArgType::mv(DataType::Int)]).unwrap(),
            ColumnType::sv(DataType::Long)
        );
        assert!(return_type("arraySumInt", &[ArgType::of(DataType::Int)]).is_err());
    }

    #[test]
    fn reverse_and_sort_follow_pinot_tests() {
        let (i, l, s) = row();
        let reversed = ints(&[12, 1, 6, 10, 2, 3]);
        assert_eq!(ok("array_reverse_int", std::slice::from_ref(&i)), reversed);
        assert_eq!(ok("arrayReverseInt", std::slice::from_ref(&s)), reversed);
        assert_eq!(ok("arrayReverseInt", std::slice::from_ref(&l)), reversed);
        let reversed_text = strings(&["12", "1", "6", "10", "2", "3"]);
        assert_eq!(
            ok("array_reverse_string", std::slice::from_ref(&i)),
            reversed_text
        );
        assert_eq!(
            ok("arrayReverseString", std::slice::from_ref(&s)),
            reversed_text
        );
        assert_eq!(
            ok("array_sort_int", std::slice::from_ref(&s)),
            ints(&[1, 2, 3, 6, 10, 12])
        );
        let sorted_text = strings(&["1", "10", "12", "2", "3", "6"]);
        assert_eq!(
            ok("array_sort_string", std::slice::from_ref(&i)),
            sorted_text
        );
        assert_eq!(ok("arraySortString", &[s]), sorted_text);
        // Java orders text by UTF-16 code units: U+1F600 (lead surrogate 0xD83D) sorts before
        // U+FF5E, unlike code point order.
        assert_eq!(
            ok("arraySortString", &[strings(&["\u{ff5e}", "\u{1f600}"])]),
            strings(&["\u{1f600}", "\u{ff5e}"])
        );
        assert!(call("arrayReverseInt", &[strings(&["a"])]).is_err());
        assert!(call("arraySortInt", &[Value::Int(1)]).is_err());
        assert_eq!(
            return_type("arrayReverseString", &[ArgType::mv(DataType::Int)]).unwrap(),
            ColumnType::mv(DataType::String)
        );
        assert_eq!(
            return_type("arraySortInt", &[ArgType::mv(DataType::Long)]).unwrap(),
            ColumnType::mv(DataType::Int)
        );
    }

    #[test]
    fn searches() {
        let (i, l, s) = row();
        assert_eq!(
            ok("array_index_of_int", &[i.clone(), Value::Long(2)]),
            Value::Int(1)
        );
        assert_eq!(
            ok("arrayIndexOfInt", &[s.clone(), Value::Int(2)]),
            Value::Int(1)
        );
        assert_eq!(
            ok("arrayIndexOfInt", &[i.clone(), Value::Int(7)]),
            Value::Int(-1)
        );
        assert_eq!(
            ok("array_index_of_string", &[i.clone(), s_("2")]),
            Value::Int(1)
        );
        assert_eq!(
            ok("arrayIndexOfString", &[s.clone(), s_("12")]),
            Value::Int(5)
        );
        assert_eq!(
            ok("array_contains_int", &[s.clone(), Value::Int(2)]),
            Value::Boolean(true)
        );
        assert_eq!(
            ok("arrayContainsInt", &[l.clone(), Value::Int(4)]),
            Value::Boolean(false)
        );
        assert_eq!(
            ok("array_contains_string", &[i.clone(), s_("2")]),
            Value::Boolean(true)
        );
        assert_eq!(
            ok("arrayContainsString", &[s.clone(), s_("x")]),
            Value::Boolean(false)
        );
        let repeated = ints(&[1, 2, 1, 3, 1]);
        assert_eq!(
            ok("arrayIndexesOfInt", &[repeated.clone(), Value::Int(1)]),
            ints(&[0, 2, 4])
        );
        assert_eq!(
            ok("arrayIndexesOfLong", &[repeated, Value::Long(5)]),
            ints(&[])
        );
        // ArrayUtils finds NaN and treats -0.0 as 0.0.
        let fs = floats(&[f32::NAN, -0.0, 1.5]);
        assert_eq!(
            ok("arrayIndexesOfFloat", &[fs.clone(), Value::Float(f32::NAN)]),
            ints(&[0])
        );
        assert_eq!(
            ok("arrayIndexesOfFloat", &[fs, Value::Double(0.0)]),
            ints(&[1])
        );
        assert_eq!(
            ok(
                "arrayIndexesOfDouble",
                &[doubles(&[2.5, 1.0, 2.5]), s_("2.5")]
            ),
            ints(&[0, 2])
        );
        assert_eq!(
            ok(
                "arrayIndexesOfString",
                &[strings(&["a", "b", "a"]), s_("a")]
            ),
            ints(&[0, 2])
        );
        assert_eq!(
            ok("arrayIndexOfInt", &[i.clone(), Value::Null]),
            Value::Null
        );
        assert!(call("arrayIndexOfInt", &[i, s_("two")]).is_err());
    }

    #[test]
    fn intersect_indices_walks_like_pinot() {
        assert_eq!(
            ok("intersectIndices", &[ints(&[0, 2, 3, 5]), ints(&[2, 5])]),
            ints(&[2, 5])
        );
        // The second list only advances on a match (Pinot's walk).
        assert_eq!(
            ok("intersectIndices", &[ints(&[1, 3]), ints(&[2, 3])]),
            ints(&[])
        );
        assert_eq!(ok("intersectIndices", &[ints(&[]), ints(&[1])]), ints(&[]));
        assert!(call("intersectIndices", &[ints(&[1]), Value::Int(1)]).is_err());
    }

    #[test]
    fn slices() {
        let (i, l, s) = row();
        assert_eq!(
            ok(
                "array_slice_int",
                &[i.clone(), Value::Int(1), Value::Int(2)]
            ),
            ints(&[2])
        );
        assert_eq!(
            ok("arraySliceLong", &[l, Value::Int(1), Value::Int(3)]),
            longs(&[2, 10])
        );
        assert_eq!(
            ok(
                "arraySliceString",
                &[s.clone(), Value::Int(1), Value::Int(2)]
            ),
            strings(&["2"])
        );
        // copyOfRange pads past the end with the type's default.
        assert_eq!(
            ok(
                "arraySliceInt",
                &[ints(&[7, 8]), Value::Int(1), Value::Int(4)]
            ),
            ints(&[8, 0, 0])
        );
        assert_eq!(
            ok(
                "arraySliceString",
                &[strings(&["a"]), Value::Int(0), Value::Int(2)]
            ),
            Value::Array(vec![s_("a"), Value::Null])
        );
        assert_eq!(
            ok("arraySliceInt", &[i.clone(), Value::Int(6), Value::Int(6)]),
            ints(&[])
        );
        assert!(call("arraySliceInt", &[i.clone(), Value::Int(-1), Value::Int(2)]).is_err());
        assert!(call("arraySliceInt", &[i.clone(), Value::Int(7), Value::Int(8)]).is_err());
        assert!(call("arraySliceInt", &[i.clone(), Value::Int(3), Value::Int(2)]).is_err());
        assert!(matches!(
            call("arraySliceInt", &[i, Value::Int(0), Value::Int(i32::MAX)]),
            Err(FunctionError::ResultTooLarge { .. })
        ));
    }

    #[test]
    fn set_like_functions() {
        let (i, _, s) = row();
        assert_eq!(
            ok("array_distinct_int", &[ints(&[3, 1, 3, 2, 1])]),
            ints(&[3, 1, 2])
        );
        assert_eq!(ok("arrayDistinctString", std::slice::from_ref(&s)), s);
        assert_eq!(
            ok("arrayDistinctString", &[strings(&["b", "a", "b"])]),
            strings(&["b", "a"])
        );
        assert_eq!(
            ok("array_remove_int", &[i.clone(), Value::Int(2)]),
            ints(&[3, 10, 6, 1, 12])
        );
        // Only the first occurrence goes.
        assert_eq!(
            ok("arrayRemoveInt", &[ints(&[1, 2, 1]), Value::Int(1)]),
            ints(&[2, 1])
        );
        assert_eq!(
            ok("array_remove_string", &[s.clone(), Value::Int(2)]),
            strings(&["3", "10", "6", "1", "12"])
        );
        assert_eq!(ok("array_union_int", &[i.clone(), i.clone()]), i);
        assert_eq!(
            ok("arrayUnionInt", &[ints(&[1, 2, 1]), ints(&[3, 2])]),
            ints(&[1, 2, 3])
        );
        assert_eq!(
            ok("arrayUnionString", &[strings(&["a"]), strings(&["b", "a"])]),
            strings(&["a", "b"])
        );
        assert!(call("arrayUnionInt", &[i, s_("1")]).is_err());
    }

    #[test]
    fn concat_and_push() {
        let (i, _, s) = row();
        assert_eq!(
            ok("array_concat_int", &[i.clone(), i.clone()]),
            ints(&[3, 2, 10, 6, 1, 12, 3, 2, 10, 6, 1, 12])
        );
        assert_eq!(
            ok("arrayConcatString", &[strings(&["a"]), ints(&[1])]),
            strings(&["a", "1"])
        );
        assert_eq!(
            ok("arrayConcatLong", &[ints(&[1]), longs(&[2])]),
            longs(&[1, 2])
        );
        assert_eq!(
            ok("arrayConcatFloat", &[doubles(&[1.5]), ints(&[2])]),
            floats(&[1.5, 2.0])
        );
        assert_eq!(
            ok("arrayConcatDouble", &[ints(&[1]), floats(&[0.5])]),
            doubles(&[1.0, 0.5])
        );
        assert_eq!(
            ok("array_push_back_int", &[i.clone(), Value::Int(7)]),
            ints(&[3, 2, 10, 6, 1, 12, 7])
        );
        assert_eq!(
            ok("array_push_back_string", &[s.clone(), s_("x")]),
            strings(&["3", "2", "10", "6", "1", "12", "x"])
        );
        assert_eq!(
            ok("array_push_front_int", &[i.clone(), Value::Int(7)]),
            ints(&[7, 3, 2, 10, 6, 1, 12])
        );
        assert_eq!(
            ok("array_push_front_string", &[s, s_("x")]),
            strings(&["x", "3", "2", "10", "6", "1", "12"])
        );
        assert_eq!(
            ok("arrayPushBackLong", &[longs(&[1]), Value::Int(2)]),
            longs(&[1, 2])
        );
        assert_eq!(
            ok("arrayPushFrontLong", &[longs(&[1]), Value::Int(2)]),
            longs(&[2, 1])
        );
        assert_eq!(
            ok("arrayPushBackFloat", &[floats(&[1.0]), s_("2.5")]),
            floats(&[1.0, 2.5])
        );
        assert_eq!(
            ok("arrayPushFrontFloat", &[floats(&[1.0]), Value::Int(2)]),
            floats(&[2.0, 1.0])
        );
        assert_eq!(
            ok("arrayPushBackDouble", &[doubles(&[]), Value::Int(2)]),
            doubles(&[2.0])
        );
        assert_eq!(
            ok("arrayPushFrontDouble", &[doubles(&[1.0]), Value::Int(2)]),
            doubles(&[2.0, 1.0])
        );
        assert_eq!(
            ok("arrayPushBackInt", &[i.clone(), Value::Null]),
            Value::Null
        );
        assert!(call("arrayPushBackInt", &[i, s_("x")]).is_err());
        assert_eq!(
            return_type(
                "arrayConcatFloat",
                &[ArgType::mv(DataType::Int), ArgType::mv(DataType::Int)]
            )
            .unwrap(),
            ColumnType::mv(DataType::Float)
        );
    }

    #[test]
    fn element_at_is_one_based_with_placeholders() {
        let (i, l, s) = row();
        assert_eq!(
            ok("arrayElementAtInt", &[i.clone(), Value::Int(1)]),
            Value::Int(3)
        );
        assert_eq!(
            ok("array_element_at_int", &[i.clone(), Value::Int(6)]),
            Value::Int(12)
        );
        assert_eq!(
            ok("arrayElementAtInt", &[i.clone(), Value::Int(0)]),
            Value::Int(0)
        );
        assert_eq!(
            ok("arrayElementAtInt", &[i.clone(), Value::Int(7)]),
            Value::Int(0)
        );
        assert_eq!(
            ok("arrayElementAtLong", &[l.clone(), Value::Int(3)]),
            Value::Long(10)
        );
        assert_eq!(
            ok("arrayElementAtLong", &[l, Value::Int(-1)]),
            Value::Long(0)
        );
        assert_eq!(
            ok("arrayElementAtFloat", &[i.clone(), Value::Int(2)]),
            Value::Float(2.0)
        );
        assert_eq!(
            ok("arrayElementAtFloat", &[i.clone(), Value::Int(9)]),
            Value::Float(0.0)
        );
        assert_eq!(
            ok("arrayElementAtDouble", &[i.clone(), Value::Int(2)]),
            Value::Double(2.0)
        );
        assert_eq!(
            ok("arrayElementAtDouble", &[i, Value::Int(9)]),
            Value::Double(0.0)
        );
        assert_eq!(
            ok("arrayElementAtString", &[s.clone(), Value::Int(5)]),
            s_("1")
        );
        assert_eq!(
            ok("arrayElementAtString", &[s.clone(), Value::Int(50)]),
            s_("")
        );
        assert!(call("arrayElementAtString", &[s, s_("first")]).is_err());
        assert_eq!(
            return_type(
                "arrayElementAtLong",
                &[ArgType::mv(DataType::Int), ArgType::of(DataType::Int)]
            )
            .unwrap(),
            ColumnType::sv(DataType::Long)
        );
    }

    #[test]
    fn array_to_string_joins() {
        let (i, _, s) = row();
        assert_eq!(
            ok("array_to_string", &[s, s_("::")]),
            s_("3::2::10::6::1::12")
        );
        assert_eq!(ok("arrayToString", &[i, s_(",")]), s_("3,2,10,6,1,12"));
        let with_nulls = Value::Array(vec![s_("3"), s_("2"), s_(""), Value::Null]);
        assert_eq!(
            ok("array_to_string", &[with_nulls.clone(), s_("::"), s_("*")]),
            s_("3::2::*::*")
        );
        assert_eq!(ok("arrayToString", &[with_nulls, s_("-")]), s_("3-2--null"));
        assert_eq!(
            ok("arrayToString", &[strings(&[]), s_("-"), s_("*")]),
            s_("")
        );
        assert_eq!(
            ok("arrayToString", &[strings(&["a"]), Value::Null]),
            Value::Null
        );
        assert!(call("arrayToString", &[s_("a"), s_("-")]).is_err());
    }

    #[test]
    fn constructor() {
        assert_eq!(ok("array", &[Value::Int(1), Value::Int(2)]), ints(&[1, 2]));
        assert_eq!(
            ok("arrayValueConstructor", &[Value::Int(1), Value::Long(2)]),
            longs(&[1, 2])
        );
        assert_eq!(
            ok("ARRAY", &[Value::Int(1), Value::Double(0.5)]),
            doubles(&[1.0, 0.5])
        );
        assert_eq!(ok("array", &[s_("a"), s_("b")]), strings(&["a", "b"]));
        assert_eq!(ok("array", &[s_("a"), Value::Null]), Value::Null);
        assert!(call("array", &[s_("a"), Value::Int(1)]).is_err());
        assert!(call("array", &[ints(&[1])]).is_err());
        let args = [ArgType::of(DataType::Int), ArgType::of(DataType::Long)];
        assert_eq!(
            return_type("array", &args).unwrap(),
            ColumnType::mv(DataType::Long)
        );
        let mixed = [ArgType::of(DataType::Int), ArgType::of(DataType::String)];
        assert!(matches!(
            return_type("array", &mixed),
            Err(FunctionError::IncompatibleTypes { .. })
        ));
        assert!(return_type("array", &[ArgType::mv(DataType::Int)]).is_err());
    }

    #[test]
    fn generators() {
        let gen_ints = |a: i32, b: i32, c: i32| {
            call(
                "generateIntArray",
                &[Value::Int(a), Value::Int(b), Value::Int(c)],
            )
        };
        assert_eq!(gen_ints(1, 5, 1).unwrap(), ints(&[1, 2, 3, 4, 5]));
        assert_eq!(gen_ints(1, 6, 2).unwrap(), ints(&[1, 3, 5]));
        assert_eq!(gen_ints(5, 1, -2).unwrap(), ints(&[5, 3, 1]));
        // (0 - 1) / 2 + 1 = 1 in integer arithmetic.
        assert_eq!(gen_ints(1, 0, 2).unwrap(), ints(&[1]));
        assert!(gen_ints(5, 0, 1).is_err());
        assert!(matches!(
            gen_ints(1, 2, 0),
            Err(FunctionError::DivisionByZero { .. })
        ));
        assert!(matches!(
            gen_ints(0, 1 << 24, 1),
            Err(FunctionError::ResultTooLarge { .. })
        ));
        // The count overflows to a negative size, as in Java.
        assert!(matches!(
            gen_ints(0, i32::MAX, 1),
            Err(FunctionError::InvalidArgument { .. })
        ));
        assert_eq!(
            ok(
                "generateLongArray",
                &[
                    Value::Long(1 << 40),
                    Value::Long((1 << 40) + 2),
                    Value::Int(1)
                ]
            ),
            longs(&[1 << 40, (1 << 40) + 1, (1 << 40) + 2])
        );
        assert_eq!(
            ok(
                "generateFloatArray",
                &[Value::Double(0.5), Value::Int(2), Value::Double(0.5)]
            ),
            floats(&[0.5, 1.0, 1.5, 2.0])
        );
        assert_eq!(
            ok(
                "generateDoubleArray",
                &[Value::Int(1), Value::Int(2), Value::Double(0.25)]
            ),
            doubles(&[1.0, 1.25, 1.5, 1.75, 2.0])
        );
        // A zero step makes an infinite count in floating point.
        assert!(
            call(
                "generateDoubleArray",
                &[Value::Int(1), Value::Int(2), Value::Int(0)]
            )
            .is_err()
        );
        assert_eq!(
            call(
                "generateIntArray",
                &[Value::Int(1), Value::Null, Value::Int(1)]
            ),
            Ok(Value::Null)
        );
    }

    #[test]
    fn overlap() {
        let t = Value::Boolean(true);
        let f = Value::Boolean(false);
        assert_eq!(ok("arraysOverlap", &[ints(&[1, 2]), ints(&[3, 2])]), t);
        assert_eq!(ok("ARRAYS_OVERLAP", &[ints(&[1, 2]), ints(&[3])]), f);
        assert_eq!(
            ok("arraysoverlap", &[strings(&["a"]), strings(&["b", "a"])]),
            t
        );
        assert_eq!(ok("arraysOverlap", &[ints(&[]), ints(&[1])]), f);
        assert_eq!(
            ok(
                "arraysOverlap",
                &[doubles(&[f64::NAN]), doubles(&[f64::NAN])]
            ),
            t
        );
        // Arrays of different types compare as text.
        assert_eq!(ok("arraysOverlap", &[ints(&[1]), longs(&[1])]), t);
        assert_eq!(ok("arraysOverlap", &[ints(&[1]), doubles(&[1.0])]), f);
        assert!(call("arraysOverlap", &[ints(&[1]), Value::Int(1)]).is_err());
    }

    #[test]
    fn value_in_keeps_listed_elements() {
        let (i, l, s) = row();
        assert_eq!(
            ok(
                "valueIn",
                &[i.clone(), Value::Long(10), Value::Long(1), Value::Long(99)]
            ),
            ints(&[10, 1])
        );
        assert_eq!(ok("value_in", &[l, s_("12")]), longs(&[12]));
        assert_eq!(ok("valueIn", &[s, s_("3"), s_("6")]), strings(&["3", "6"]));
        assert_eq!(
            ok("valueIn", &[floats(&[1.1, 2.0]), s_("1.1")]),
            floats(&[1.1])
        );
        assert!(call("valueIn", &[i.clone(), s_("abc")]).is_err());
        assert!(call("valueIn", &[Value::Int(1), Value::Int(1)]).is_err());
        let lit = Value::Long(1);
        let typed = [ArgType::mv(DataType::Int), ArgType::literal(&lit)];
        assert_eq!(
            return_type("valueIn", &typed).unwrap(),
            ColumnType::mv(DataType::Int)
        );
        let column = [ArgType::mv(DataType::Int), ArgType::of(DataType::Int)];
        assert!(matches!(
            return_type("valueIn", &column),
            Err(FunctionError::NeedsLiteral { position: 2, .. })
        ));
        assert!(
            return_type(
                "valueIn",
                &[ArgType::of(DataType::Int), ArgType::literal(&lit)]
            )
            .is_err()
        );
    }

    #[test]
    fn map_value_pairs_keys_and_values() {
        let keys = strings(&["k1", "k2"]);
        let values = ints(&[9, 5]);
        assert_eq!(
            ok("mapValue", &[keys.clone(), s_("k2"), values.clone()]),
            Value::Int(5)
        );
        assert_eq!(
            ok("map_value", &[keys.clone(), s_("k3"), values.clone()]),
            Value::Null
        );
        assert_eq!(
            ok(
                "mapValue",
                &[ints(&[1, 2]), Value::Long(2), strings(&["a", "b"])]
            ),
            s_("b")
        );
        assert_eq!(ok("mapValue", &[keys, s_("k2"), ints(&[9])]), Value::Null);
        assert!(call("mapValue", &[s_("k1"), s_("k1"), values]).is_err());
        let key = s_("k1");
        let args = [
            ArgType::mv(DataType::String),
            ArgType::literal(&key),
            ArgType::mv(DataType::Long),
        ];
        assert_eq!(
            return_type("mapValue", &args).unwrap(),
            ColumnType::sv(DataType::Long)
        );
        let args = [
            ArgType::mv(DataType::String),
            ArgType::of(DataType::String),
            ArgType::mv(DataType::Long),
        ];
        assert!(return_type("mapValue", &args).is_err());
    }

    #[test]
    fn filter_mv_predicates_follow_pinot_tests() {
        let values: Vec<i32> = (0..12).collect();
        let column = ints(&values);
        let filter = |predicate: &str| {
            call("filterMv", &[column.clone(), s_(predicate)])
                .unwrap_or_else(|e| panic!("{predicate}: {e}"))
        };
        let expect = |keep: &dyn Fn(i32) -> bool| {
            ints(
                &values
                    .iter()
                    .copied()
                    .filter(|v| keep(*v))
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(filter("v = 5"), ints(&[5]));
        assert_eq!(filter("v != 5"), expect(&|v| v != 5));
        assert_eq!(filter("v <> 5"), expect(&|v| v != 5));
        assert_eq!(filter("v > 5"), expect(&|v| v > 5));
        assert_eq!(filter("v >= 5"), expect(&|v| v >= 5));
        assert_eq!(filter("v < 5"), expect(&|v| v < 5));
        assert_eq!(filter("v <= 5"), expect(&|v| v <= 5));
        assert_eq!(filter("v IN (1, 3, 5)"), ints(&[1, 3, 5]));
        assert_eq!(
            filter("v NOT IN (1, 3, 5)"),
            expect(&|v| ![1, 3, 5].contains(&v))
        );
        assert_eq!(
            filter("v BETWEEN 3 AND 7"),
            expect(&|v| (3..=7).contains(&v))
        );
        assert_eq!(
            filter("v NOT BETWEEN 3 AND 7"),
            expect(&|v| !(3..=7).contains(&v))
        );
        assert_eq!(filter("v > 3 AND v < 7"), ints(&[4, 5, 6]));
        assert_eq!(filter("v < 2 OR v > 9"), ints(&[0, 1, 10, 11]));
        assert_eq!(filter("NOT (v = 1)"), expect(&|v| v != 1));
        assert_eq!(filter("V > -1 AND v < 1.5"), ints(&[0, 1]));
        assert_eq!(filter("true"), column);
        let words = strings(&["a", "ab", "b"]);
        let on_words = |predicate: &str| call("filterMv", &[words.clone(), s_(predicate)]).unwrap();
        assert_eq!(on_words("v = 'a'"), strings(&["a"]));
        assert_eq!(on_words("REGEXP_LIKE(v, '^a$')"), strings(&["a"]));
        assert_eq!(on_words("regexp_like(v, 'a')"), strings(&["a", "ab"]));
        assert_eq!(on_words("REGEXP_LIKE(v, '^A', 'i')"), strings(&["a", "ab"]));
        assert_eq!(on_words("v LIKE 'A%'"), strings(&["a", "ab"]));
        assert_eq!(on_words("v NOT LIKE 'a%'"), strings(&["b"]));
        assert_eq!(on_words("v > 'a'"), strings(&["ab", "b"]));
        assert_eq!(
            call(
                "filterMv",
                &[
                    Value::Array(vec![s_("a"), Value::Null]),
                    s_("NOT (v = 'b')")
                ]
            )
            .unwrap(),
            strings(&["a"])
        );
        assert_eq!(
            call("filterMv", &[floats(&[1.1, 2.5]), s_("v = 1.1")]).unwrap(),
            floats(&[1.1])
        );
        for bad in [
            "",
            "x > 1",
            "abs(v) > 1",
            "v IS NULL",
            "v = NULL",
            "v > w",
            "REGEXP_LIKE(v, '(')",
        ] {
            assert!(
                call("filterMv", &[column.clone(), s_(bad)]).is_err(),
                "{bad}"
            );
        }
        assert!(call("filterMv", &[column.clone(), s_("v = 'x'")]).is_err());
        let good = s_("v > 1");
        let args = [ArgType::mv(DataType::Long), ArgType::literal(&good)];
        assert_eq!(
            return_type("filterMv", &args).unwrap(),
            ColumnType::mv(DataType::Long)
        );
        let bad = s_("w > 1");
        let args = [ArgType::mv(DataType::Long), ArgType::literal(&bad)];
        assert!(matches!(
            return_type("filterMv", &args),
            Err(FunctionError::InvalidLiteral { .. })
        ));
    }
}
