//! The JSON functions, over the JSONPath of `json_path` (Jayway's syntax and results):
//!
//! * `jsonExtractScalar(json, path, type[, default])` and its `jsonExtractScalarFast`,
//!   `jsonExtractScalarFirstMatch`, `jsonExtractScalarFory` variants (Pinot's faster parsers,
//!   same results on well-formed documents): the value at `path` as `type` — `INT`, `LONG`,
//!   `FLOAT`, `DOUBLE`, `BIG_DECIMAL`, `BOOLEAN`, `TIMESTAMP`, `STRING`, `JSON`, `BYTES` or an
//!   `*_ARRAY` of one of them (a literal). A path that finds nothing (or `null`) yields the
//!   default when one is given and is an error otherwise; an array result is empty when the
//!   path finds no array, and its `null` elements take the default (else an error);
//! * `jsonExtractIndex(json, path, type[, default])`: Pinot reads it from the JSON index; here
//!   it is evaluated on the document with the same results (values as their text, parsed to
//!   `type`; `[*]` only for `*_ARRAY` types, whose default is a JSON array). The fifth
//!   argument, a `JSON_MATCH` filter, keeps the flattened records (array elements) it matches,
//!   and the values are read from those, as from Pinot's JSON index;
//! * `jsonExtractKey(json, path[, 'maxDepth=n;dotNotation=true'])`: the paths (`$['a'][0]`, or
//!   `a.0` in dot notation) of the values `path` matches; `''`, `'$..**'` and `'$..'` list every
//!   key, depth first;
//! * `jsonPath(json, path)` (JSON), `jsonPathString`, `jsonPathLong`, `jsonPathDouble` (with an
//!   optional default; without one, a missing value is NULL, `Long.MIN_VALUE` and NaN) and their
//!   `…Fast`, `…FirstMatch`, `…Fory` variants (three arguments), `jsonPathArray`,
//!   `jsonPathArrayDefaultEmpty` (STRING arrays: text as it is, other values as JSON),
//!   `jsonPathExists`;
//! * `jsonFormat(value)`, `toJsonMapStr(map)`: JSON text as Pinot's Jackson writes it;
//! * `jsonKeyValueArrayToMap(array[, keyName, valueName])`, `jsonStringToArray`,
//!   `jsonStringToMap`, `jsonStringToListOrMap`, `jsonExtractObject`: Pinot returns Java maps and
//!   lists, Tessera their JSON text (type JSON);
//! * `isJson(text)`: whether the text starts with one well-formed JSON value (or is blank).
//!
//! Documents are text (STRING, JSON, or UTF-8 BYTES) parsed as Jackson parses them: the first
//! value counts and anything after it is ignored. Other values (numbers, arrays) are documents
//! themselves. JSON is written as Jackson writes it: compact, doubles as Java prints them
//! (`1.0E10`).

use super::coerce::{int, num, parse_f64, text};
use super::def::{ArgType, Arity, FunctionDef, Param, Returns};
use super::error::{FunctionError, clip};
use super::json_path::JsonPath;
use crate::plan::json_eval::DocumentRecords;
use crate::plan::json_match::{JsonKey, JsonMatch, JsonOp, JsonPredicate};
use segments::index::json::JsonIndexConfig;
use segments::index::json::flatten::Flattener;
use segments::types::java_text::{java_double_text, java_float_text};
use segments::types::time::parse_timestamp;
use segments::types::value::canonical_decimal;
use segments::types::{ColumnType, DataType, Value};
use serde_json::Value as Json;
use std::borrow::Cow;

const T: Param = Param::Text;
const A: Param = Param::Any;
const JSON: Returns = Returns::Fixed(DataType::Json);
const STR: Returns = Returns::Fixed(DataType::String);
const STRINGS: Returns = Returns::FixedArray(DataType::String);

/// A `jsonExtractScalar`-like function under one of its names.
const fn extract_scalar_def(
    name: &'static str,
    infer: fn(&[ArgType]) -> Result<ColumnType, FunctionError>,
    kernel: fn(&[Value]) -> Result<Value, FunctionError>,
) -> FunctionDef {
    FunctionDef::new(
        name,
        Arity::Range(3, 4),
        &[T, T, T, A],
        Returns::InferColumn(infer),
        kernel,
    )
}

/// The JSON functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    extract_scalar_def(
        "jsonExtractScalar",
        |a| extract_type("jsonExtractScalar", a),
        |a| extract_scalar("jsonExtractScalar", a),
    ),
    extract_scalar_def(
        "jsonExtractScalarFast",
        |a| extract_type("jsonExtractScalarFast", a),
        |a| extract_scalar("jsonExtractScalarFast", a),
    ),
    extract_scalar_def(
        "jsonExtractScalarFirstMatch",
        |a| extract_type("jsonExtractScalarFirstMatch", a),
        |a| extract_scalar("jsonExtractScalarFirstMatch", a),
    ),
    extract_scalar_def(
        "jsonExtractScalarFory",
        |a| extract_type("jsonExtractScalarFory", a),
        |a| extract_scalar("jsonExtractScalarFory", a),
    ),
    FunctionDef::new(
        INDEX,
        Arity::Range(3, 5),
        &[T],
        Returns::InferColumn(index_type),
        extract_index,
    ),
    FunctionDef::new(KEY, Arity::Range(2, 3), &[A, T], STRINGS, extract_key),
    FunctionDef::new("jsonFormat", Arity::Exact(1), &[A], STR, json_format),
    FunctionDef::new("jsonPath", Arity::Exact(2), &[A, T], JSON, json_path),
    FunctionDef::new(
        "jsonPathArray",
        Arity::Exact(2),
        &[A, T],
        STRINGS,
        json_path_array,
    ),
    FunctionDef::new(
        "jsonPathArrayDefaultEmpty",
        Arity::Exact(2),
        &[A, T],
        STRINGS,
        json_path_array_default_empty,
    )
    .handles_nulls(),
    FunctionDef::new(
        "jsonPathExists",
        Arity::Exact(2),
        &[A, T],
        Returns::Fixed(DataType::Boolean),
        json_path_exists,
    ),
    FunctionDef::new(
        "jsonPathString",
        Arity::Range(2, 3),
        &[A, T],
        STR,
        json_path_string,
    )
    .handles_nulls(),
    FunctionDef::new(
        "jsonPathStringFast",
        Arity::Exact(3),
        &[A, T],
        STR,
        json_path_string,
    )
    .handles_nulls(),
    FunctionDef::new(
        "jsonPathStringFirstMatch",
        Arity::Exact(3),
        &[A, T],
        STR,
        json_path_string,
    )
    .handles_nulls(),
    FunctionDef::new(
        "jsonPathStringFory",
        Arity::Exact(3),
        &[A, T],
        STR,
        json_path_string,
    )
    .handles_nulls(),
    FunctionDef::new(
        "jsonPathLong",
        Arity::Range(2, 3),
        &[A, T, Param::Number],
        Returns::Fixed(DataType::Long),
        json_path_long,
    )
    .handles_nulls(),
    FunctionDef::new(
        "jsonPathLongFast",
        Arity::Exact(3),
        &[A, T, Param::Number],
        Returns::Fixed(DataType::Long),
        json_path_long,
    )
    .handles_nulls(),
    FunctionDef::new(
        "jsonPathLongFirstMatch",
        Arity::Exact(3),
        &[A, T, Param::Number],
        Returns::Fixed(DataType::Long),
        json_path_long,
    )
    .handles_nulls(),
    FunctionDef::new(
        "jsonPathLongFory",
        Arity::Exact(3),
        &[A, T, Param::Number],
        Returns::Fixed(DataType::Long),
        json_path_long,
    )
    .handles_nulls(),
    FunctionDef::new(
        "jsonPathDouble",
        Arity::Range(2, 3),
        &[A, T, Param::Number],
        Returns::Fixed(DataType::Double),
        json_path_double,
    )
    .handles_nulls(),
    FunctionDef::new(
        "jsonPathDoubleFast",
        Arity::Exact(3),
        &[A, T, Param::Number],
        Returns::Fixed(DataType::Double),
        json_path_double,
    )
    .handles_nulls(),
    FunctionDef::new(
        "jsonPathDoubleFirstMatch",
        Arity::Exact(3),
        &[A, T, Param::Number],
        Returns::Fixed(DataType::Double),
        json_path_double,
    )
    .handles_nulls(),
    FunctionDef::new(
        "jsonPathDoubleFory",
        Arity::Exact(3),
        &[A, T, Param::Number],
        Returns::Fixed(DataType::Double),
        json_path_double,
    )
    .handles_nulls(),
    FunctionDef::new(
        "jsonKeyValueArrayToMap",
        Arity::OneOf(&[1, 3]),
        &[A, T],
        JSON,
        key_value_array_to_map,
    ),
    FunctionDef::new("jsonStringToArray", Arity::Exact(1), &[T], JSON, |a| {
        Ok(string_to_container(&a[0], true, false))
    }),
    FunctionDef::new("jsonStringToMap", Arity::Exact(1), &[T], JSON, |a| {
        Ok(string_to_container(&a[0], false, true))
    }),
    FunctionDef::new("jsonStringToListOrMap", Arity::Exact(1), &[T], JSON, |a| {
        Ok(string_to_container(&a[0], true, true))
    }),
    FunctionDef::new(
        "jsonExtractObject",
        Arity::Exact(1),
        &[A],
        JSON,
        json_extract_object,
    )
    .handles_nulls(),
    FunctionDef::new("toJsonMapStr", Arity::Exact(1), &[A], STR, to_json_map_str).handles_nulls(),
    FunctionDef::new(
        "isJson",
        Arity::Exact(1),
        &[T],
        Returns::Fixed(DataType::Boolean),
        is_json,
    ),
];

const INDEX: &str = "jsonExtractIndex";
const KEY: &str = "jsonExtractKey";

// ---------------------------------------------------------------------------------------------
// Documents and JSON text

/// Parses the first JSON value of the text, as Jackson does (trailing text is ignored).
fn parse_lenient(text: &str) -> Result<Json, String> {
    if text.trim().is_empty() {
        return Err("json string can not be null or empty".into());
    }
    match serde_json::Deserializer::from_str(text)
        .into_iter::<Json>()
        .next()
    {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(format!("invalid JSON: {e}")),
        None => Err("json string can not be null or empty".into()),
    }
}

/// The text of a document argument: BYTES as UTF-8.
fn document_text(v: &Value) -> Cow<'_, str> {
    match v {
        Value::Bytes(b) => String::from_utf8_lossy(b),
        other => text(other),
    }
}

/// A value as a JSON document: text is parsed, other values are documents themselves.
fn document(v: &Value) -> Result<Json, String> {
    match v {
        Value::String(_) | Value::Json(_) | Value::Bytes(_) => parse_lenient(&document_text(v)),
        other => Ok(value_json(other)),
    }
}

/// A value as a JSON value (JSON text parsed, other text a string).
fn value_json(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Int(i) => Json::from(*i),
        Value::Long(i) | Value::Timestamp(i) => Json::from(*i),
        Value::Float(f) => float_json(*f as f64),
        Value::Double(f) => float_json(*f),
        Value::BigDecimal(s) => s
            .parse::<f64>()
            .map(float_json)
            .unwrap_or_else(|_| Json::String(s.clone())),
        Value::Boolean(b) => Json::Bool(*b),
        Value::String(s) => Json::String(s.clone()),
        Value::Json(s) | Value::Map(s) => {
            parse_lenient(s).unwrap_or_else(|_| Json::String(s.clone()))
        }
        Value::Bytes(b) => Json::String(base64(b)),
        Value::Array(items) => Json::Array(items.iter().map(value_json).collect()),
    }
}

fn float_json(f: f64) -> Json {
    serde_json::Number::from_f64(f)
        .map(Json::Number)
        .unwrap_or_else(|| Json::String(java_double_text(f)))
}

fn base64(b: &[u8]) -> String {
    super::bytes::encode_base64(b)
}

/// JSON text as Jackson writes it (compact; doubles as Java prints them).
fn render(v: &Json) -> String {
    let mut out = String::new();
    write_json(v, &mut out);
    out
}

fn write_json(v: &Json, out: &mut String) {
    match v {
        Json::Number(n) if !(n.is_i64() || n.is_u64()) => {
            out.push_str(&java_double_text(n.as_f64().unwrap_or(f64::NAN)));
        }
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out);
            }
            out.push(']');
        }
        Json::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Json::String(k.clone()).to_string());
                out.push(':');
                write_json(item, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// A found value as text: strings as they are, anything else as JSON.
fn value_text(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => render(other),
    }
}

/// Pinot's `canExtractJsonPath`: false for NULL and text that cannot start a JSON value.
fn can_extract(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::String(s) | Value::Json(s) => s
            .chars()
            .find(|c| !matches!(c, ' ' | '\t' | '\n' | '\r'))
            .is_some_and(|c| matches!(c, '{' | '[' | '"' | '-' | '0'..='9' | 't' | 'f' | 'n')),
        _ => true,
    }
}

fn compile(function: &'static str, path: &Value) -> Result<JsonPath, FunctionError> {
    let path = text(path);
    JsonPath::parse(&path).map_err(|reason| FunctionError::invalid(function, &path, reason))
}

/// `jsonPath` without its error handling: the value found (NULL for none or `null`).
fn find(
    function: &'static str,
    object: &Value,
    path: &Value,
) -> Result<Option<Json>, FunctionError> {
    let path = compile(function, path)?;
    let root =
        document(object).map_err(|reason| FunctionError::invalid(function, object, reason))?;
    Ok(path.read(&root).filter(|v| !v.is_null()))
}

// ---------------------------------------------------------------------------------------------
// jsonExtractScalar and jsonExtractIndex

/// A result type literal: the element type and whether it is an array.
fn result_type(name: &str) -> Result<ColumnType, String> {
    let upper = name.trim().to_ascii_uppercase();
    let (element, single) = match upper.strip_suffix("_ARRAY") {
        Some(element) => (element, false),
        None => (upper.as_str(), true),
    };
    let data_type = DataType::parse(element)
        .filter(|t| *t != DataType::Map)
        .ok_or_else(|| {
            "not a result type: INT, LONG, FLOAT, DOUBLE, BIG_DECIMAL, BOOLEAN, TIMESTAMP, STRING, \
         JSON, BYTES or one of them with _ARRAY"
                .to_string()
        })?;
    if !single && matches!(data_type, DataType::Json | DataType::Bytes) {
        return Err("JSON and BYTES arrays are not supported".into());
    }
    Ok(ColumnType {
        data_type,
        single_value: single,
        map_value: None,
    })
}

fn literal_result_type(
    function: &'static str,
    args: &[ArgType],
) -> Result<ColumnType, FunctionError> {
    if let Some(path) = args[1].literal_text() {
        JsonPath::parse(&path)
            .map_err(|reason| FunctionError::invalid_literal(function, &path, reason))?;
    }
    let Some(name) = args[2].literal_text() else {
        return Err(FunctionError::NeedsLiteral {
            function,
            position: 3,
        });
    };
    result_type(&name).map_err(|reason| FunctionError::invalid_literal(function, name, reason))
}

fn extract_type(function: &'static str, args: &[ArgType]) -> Result<ColumnType, FunctionError> {
    literal_result_type(function, args)
}

fn index_type(args: &[ArgType]) -> Result<ColumnType, FunctionError> {
    let column = literal_result_type(INDEX, args)?;
    if let Some(filter) = args.get(4).and_then(ArgType::literal_text)
        && let Err(e) = JsonMatch::parse(&filter)
    {
        return Err(FunctionError::invalid_literal(
            INDEX,
            &filter,
            e.to_string(),
        ));
    }
    if column.single_value
        && let Some(path) = args[1].literal_text()
        && path.contains("[*]")
    {
        return Err(FunctionError::invalid_literal(
            INDEX,
            path,
            "[*] in the json path needs an _ARRAY result type",
        ));
    }
    Ok(column)
}

fn runtime_type(function: &'static str, v: &Value) -> Result<ColumnType, FunctionError> {
    let name = text(v);
    result_type(&name).map_err(|reason| FunctionError::invalid(function, &name, reason))
}

fn missing(path: &Value, document: &Value) -> FunctionError {
    FunctionError::JsonPath {
        path: text(path).into_owned(),
        json: clip(&document_text(document)),
    }
}

fn extract_scalar(function: &'static str, args: &[Value]) -> Result<Value, FunctionError> {
    let path = compile(function, &args[1])?;
    let column = runtime_type(function, &args[2])?;
    let target = column.data_type;
    let found = parse_lenient(&document_text(&args[0]))
        .ok()
        .and_then(|root| path.read(&root));
    let default = args.get(3);
    let fallback = || -> Result<Value, FunctionError> {
        match default {
            Some(Value::Null) => Ok(Value::Null),
            Some(d) => d
                .cast(target)
                .map_err(|e| FunctionError::invalid(function, d, e.to_string())),
            None => Err(missing(&args[1], &args[0])),
        }
    };
    if column.single_value {
        return match found.filter(|v| !v.is_null()) {
            Some(v) => convert(function, &v, target),
            None => fallback(),
        };
    }
    let Some(Json::Array(items)) = found else {
        return Ok(Value::Array(Vec::new()));
    };
    let mut values = Vec::with_capacity(items.len());
    for item in &items {
        values.push(if item.is_null() {
            if default.is_none() {
                return Err(FunctionError::invalid(
                    function,
                    clip(&render(&Json::Array(items.clone()))),
                    "at least one of the resolved JSON arrays includes nulls; consider a default \
                     value as the fourth argument",
                ));
            }
            fallback()?
        } else {
            convert(function, item, target)?
        });
    }
    Ok(Value::Array(values))
}

/// Converts a found JSON value to the requested type, as Pinot's transform does.
fn convert(function: &'static str, v: &Json, target: DataType) -> Result<Value, FunctionError> {
    let fail = |reason: &str| FunctionError::invalid(function, clip(&render(v)), reason);
    let as_text = || value_text(v);
    let whole = |fits_int: bool| -> Result<i64, FunctionError> {
        match v {
            Json::Number(n) => Ok(match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => i,
                (None, Some(u)) => u as i64,
                _ if fits_int => n.as_f64().unwrap_or(0.0) as i32 as i64,
                _ => n.as_f64().unwrap_or(0.0) as i64,
            }),
            Json::Bool(b) => Ok(*b as i64),
            Json::String(s) => s.parse().map_err(|_| fail("not a whole number")),
            _ => Err(fail("not a number")),
        }
    };
    let real = || -> Result<f64, FunctionError> {
        match v {
            Json::Number(n) => n.as_f64().ok_or_else(|| fail("not a number")),
            Json::Bool(b) => Ok(*b as i64 as f64),
            Json::String(s) => parse_f64(s).ok_or_else(|| fail("not a number")),
            _ => Err(fail("not a number")),
        }
    };
    Ok(match target {
        DataType::Int => Value::Int(whole(true)? as i32),
        DataType::Long => Value::Long(whole(false)?),
        DataType::Float => Value::Float(real()? as f32),
        DataType::Double => Value::Double(real()?),
        DataType::BigDecimal => match v {
            Json::Bool(b) => Value::BigDecimal(if *b { "1" } else { "0" }.into()),
            Json::Number(n) => Value::BigDecimal(canonical_decimal(&n.to_string())),
            Json::String(s) => {
                Value::parse(DataType::BigDecimal, s.trim()).map_err(|_| fail("not a decimal"))?
            }
            _ => return Err(fail("not a decimal")),
        },
        DataType::Boolean => Value::Boolean(match v {
            Json::Bool(b) => *b,
            Json::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
            other => {
                let t = value_text(other);
                t.eq_ignore_ascii_case("true") || t == "1"
            }
        }),
        DataType::Timestamp => match v {
            Json::Number(_) => Value::Timestamp(whole(false)?),
            other => Value::Timestamp(
                parse_timestamp(&value_text(other)).ok_or_else(|| fail("not a timestamp"))?,
            ),
        },
        DataType::String => Value::String(as_text()),
        DataType::Json => Value::Json(as_text()),
        DataType::Map => match v {
            Json::Object(_) => Value::Map(v.to_string()),
            _ => return Err(fail("not an object")),
        },
        DataType::Bytes => Value::Bytes(
            super::bytes::decode_base64(as_text().as_bytes())
                .ok_or_else(|| fail("not base64-encoded bytes"))?,
        ),
    })
}

/// A leaf value as the JSON index stores it: its text (containers and `null` are not stored).
fn index_text(v: &Json) -> Option<String> {
    match v {
        Json::Null | Json::Array(_) | Json::Object(_) => None,
        other => Some(value_text(other)),
    }
}

/// The values at `path` of the document's flattened records that `filter` keeps (a JSON index
/// filter, per array element: `'"$.items[*].n" > 2'` keeps the elements whose `n` is above 2),
/// in record order — what Pinot reads from the JSON index.
fn filtered_index_texts(
    document: &str,
    path: &Value,
    filter: &Value,
) -> Result<Vec<String>, FunctionError> {
    let bad = |reason: String| FunctionError::invalid(INDEX, filter, reason);
    let filter = JsonMatch::parse(&text(filter)).map_err(|e| bad(e.to_string()))?;
    let key = JsonKey::of_path(&text(path))
        .map_err(|e| FunctionError::invalid(INDEX, path, e.to_string()))?;
    let records = Flattener::new(&JsonIndexConfig::default())
        .flatten(document)
        .unwrap_or_default();
    let doc = DocumentRecords::new(&records);
    let mut kept = filter.filter.records(&doc).map_err(bad)?;
    if filter.is_null_test() {
        let mut all = roaring::RoaringBitmap::new();
        all.insert_range(0..records.len() as u32);
        kept = all - kept;
    }
    let at_path = JsonPredicate {
        key: key.clone(),
        op: JsonOp::IsNotNull,
    }
    .records(&doc)
    .map_err(bad)?;
    Ok((kept & at_path)
        .iter()
        .filter_map(|i| {
            records[i as usize]
                .iter()
                .find(|(k, _)| *k == key.key)
                .map(|(_, v)| v.clone())
        })
        .collect())
}

fn extract_index(args: &[Value]) -> Result<Value, FunctionError> {
    let column = runtime_type(INDEX, &args[2])?;
    let target = column.data_type;
    let parse = |t: &str| {
        Value::parse(target, t).map_err(|e| FunctionError::invalid(INDEX, t, e.to_string()))
    };
    let filtered = match args.get(4) {
        Some(filter) => Some(filtered_index_texts(
            &document_text(&args[0]),
            &args[1],
            filter,
        )?),
        None => None,
    };
    let path = compile(INDEX, &args[1])?;
    let found = match filtered {
        Some(_) => None,
        None => parse_lenient(&document_text(&args[0]))
            .ok()
            .and_then(|root| path.read(&root)),
    };
    if column.single_value {
        let first = match &filtered {
            Some(texts) => texts.first().cloned(),
            None => found.as_ref().and_then(index_text),
        };
        if let Some(t) = first {
            return parse(&t);
        }
        return match args.get(3) {
            Some(Value::Null) => Ok(Value::Null),
            Some(d) => parse(&text(d)),
            None => Err(missing(&args[1], &args[0])),
        };
    }
    let texts: Vec<String> = match (filtered, &found) {
        (Some(texts), _) => texts,
        (None, Some(Json::Array(items))) => items.iter().filter_map(index_text).collect(),
        (None, Some(other)) => index_text(other).into_iter().collect(),
        (None, None) => Vec::new(),
    };
    if !texts.is_empty() {
        return texts
            .iter()
            .map(|t| parse(t))
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    match args.get(3) {
        Some(Value::Null) => Ok(Value::Null),
        Some(d) => {
            let bad = || FunctionError::invalid(INDEX, d, "the default must be a JSON array");
            let Ok(Json::Array(items)) = parse_lenient(&text(d)) else {
                return Err(bad());
            };
            items
                .iter()
                .map(|item| parse(&value_text(item)))
                .collect::<Result<_, _>>()
                .map(Value::Array)
        }
        None => Err(missing(&args[1], &args[0])),
    }
}

// ---------------------------------------------------------------------------------------------
// jsonExtractKey

struct KeyOptions {
    max_depth: usize,
    dot_notation: bool,
}

fn key_options(params: &str) -> Result<KeyOptions, String> {
    let mut options = KeyOptions {
        max_depth: usize::MAX,
        dot_notation: false,
    };
    for pair in params.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let parts: Vec<&str> = pair.split('=').filter(|p| !p.is_empty()).collect();
        let [key, value] = parts[..] else {
            return Err(format!("invalid parameter: {pair}"));
        };
        match key.trim().to_ascii_uppercase().as_str() {
            "MAXDEPTH" => {
                let depth: i32 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("invalid maxDepth: {value}"))?;
                options.max_depth = usize::try_from(depth).unwrap_or(usize::MAX);
            }
            "DOTNOTATION" => options.dot_notation = value.trim().eq_ignore_ascii_case("true"),
            _ => return Err(format!("invalid parameter key: {key}")),
        }
    }
    Ok(options)
}

/// Every key path of the document up to `max_depth` levels, depth first.
fn all_keys(node: &Json, path: &str, depth: usize, options: &KeyOptions, out: &mut Vec<String>) {
    if depth > options.max_depth {
        return;
    }
    let mut visit = |segment_dot: String, segment_bracket: String, child: &Json| {
        let child_path = if options.dot_notation {
            if path.is_empty() {
                segment_dot
            } else {
                format!("{path}.{segment_dot}")
            }
        } else {
            format!("{path}{segment_bracket}")
        };
        out.push(child_path.clone());
        if depth < options.max_depth && (child.is_object() || child.is_array()) {
            all_keys(child, &child_path, depth + 1, options, out);
        }
    };
    match node {
        Json::Object(map) => {
            for (key, child) in map {
                visit(key.clone(), format!("['{key}']"), child);
            }
        }
        Json::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                visit(i.to_string(), format!("[{i}]"), child);
            }
        }
        _ => {}
    }
}

/// Pinot's `getKeyDepth` of a `$['a'][0]` path: the number of `[`.
fn key_depth(key: &str) -> usize {
    if key.is_empty() {
        0
    } else if key.starts_with("$[") {
        key.matches('[').count()
    } else if key.contains('.') {
        key.split('.').filter(|s| !s.is_empty()).count()
    } else {
        1
    }
}

/// Pinot's `convertToDotNotation`: `$['a'][0]['b']` → `a.0.b`.
fn dot_notation(path: &str) -> String {
    let Some(rest) = path.strip_prefix('$') else {
        return path.to_string();
    };
    let chars: Vec<char> = rest.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '[' && chars.get(i + 1) == Some(&'\'') {
            let close = (i + 2..chars.len()).find(|&k| chars[k] == '\'');
            if let Some(close) = close.filter(|&c| chars.get(c + 1) == Some(&']')) {
                out.push('.');
                out.extend(&chars[i + 2..close]);
                i = close + 2;
                continue;
            }
        } else if chars[i] == '['
            && let Some(close) = (i..chars.len()).find(|&k| chars[k] == ']')
            && chars[i + 1..close].iter().all(char::is_ascii_digit)
        {
            out.push('.');
            out.extend(&chars[i + 1..close]);
            i = close + 1;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    match out.strip_prefix('.') {
        Some(s) => s.to_string(),
        None => out,
    }
}

fn extract_key(args: &[Value]) -> Result<Value, FunctionError> {
    let path_text = text(&args[1]);
    let options = match args.get(2) {
        Some(p) => {
            key_options(&text(p)).map_err(|reason| FunctionError::invalid(KEY, p, reason))?
        }
        None => KeyOptions {
            max_depth: usize::MAX,
            dot_notation: false,
        },
    };
    let strings = |keys: Vec<String>| Value::Array(keys.into_iter().map(Value::String).collect());
    if options.max_depth == 0 {
        return Ok(Value::Array(Vec::new()));
    }
    if matches!(path_text.as_ref(), "" | "$..**" | "$..") {
        let mut keys = Vec::new();
        if let Ok(root) = document(&args[0]) {
            let start = if options.dot_notation { "" } else { "$" };
            all_keys(&root, start, 1, &options, &mut keys);
        }
        return Ok(strings(keys));
    }
    let path = compile(KEY, &args[1])?;
    let root =
        document(&args[0]).map_err(|reason| FunctionError::invalid(KEY, &args[0], reason))?;
    let keys = path
        .paths(&root)
        .into_iter()
        .filter(|k| key_depth(k) <= options.max_depth)
        .map(|k| {
            if options.dot_notation {
                dot_notation(&k)
            } else {
                k
            }
        })
        .collect();
    Ok(strings(keys))
}

// ---------------------------------------------------------------------------------------------
// jsonPath…

fn json_path(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(find("jsonPath", &args[0], &args[1])?
        .map(|v| Value::Json(render(&v)))
        .unwrap_or(Value::Null))
}

fn array_items(found: Json) -> Vec<Value> {
    let items = match found {
        Json::Array(items) => items,
        other => vec![other],
    };
    items
        .iter()
        .map(|v| match v {
            Json::Null => Value::Null,
            other => Value::String(value_text(other)),
        })
        .collect()
}

fn json_path_array(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(find("jsonPathArray", &args[0], &args[1])?
        .map(|v| Value::Array(array_items(v)))
        .unwrap_or(Value::Null))
}

fn json_path_array_default_empty(args: &[Value]) -> Result<Value, FunctionError> {
    if !can_extract(&args[0]) || args[1].is_null() {
        return Ok(Value::Array(Vec::new()));
    }
    let found = find("jsonPathArrayDefaultEmpty", &args[0], &args[1])
        .ok()
        .flatten();
    Ok(Value::Array(found.map(array_items).unwrap_or_default()))
}

fn json_path_exists(args: &[Value]) -> Result<Value, FunctionError> {
    let found = find("jsonPathExists", &args[0], &args[1]).ok().flatten();
    Ok(Value::Boolean(found.is_some()))
}

/// The found value of the default-taking variants: `None` (use the default) for NULL or
/// non-JSON input and for any error.
fn find_or_default(args: &[Value]) -> Option<Json> {
    if !can_extract(&args[0]) || args[1].is_null() {
        return None;
    }
    find("jsonPath", &args[0], &args[1]).ok().flatten()
}

fn json_path_string(args: &[Value]) -> Result<Value, FunctionError> {
    if args.len() == 2 {
        if args.iter().any(Value::is_null) {
            return Ok(Value::Null);
        }
        return Ok(find("jsonPathString", &args[0], &args[1])?
            .map(|v| Value::String(value_text(&v)))
            .unwrap_or(Value::Null));
    }
    Ok(match find_or_default(args) {
        Some(v) => Value::String(value_text(&v)),
        None if args[2].is_null() => Value::Null,
        None => Value::String(text(&args[2]).into_owned()),
    })
}

fn json_long(v: &Json) -> Option<i64> {
    match v {
        Json::Number(n) => n
            .as_i64()
            .or_else(|| n.as_u64().map(|u| u as i64))
            .or_else(|| n.as_f64().map(|f| f as i64)),
        Json::Bool(b) => Some(*b as i64),
        Json::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn json_double(v: &Json) -> Option<f64> {
    match v {
        Json::Number(n) => n.as_f64(),
        Json::Bool(b) => Some(*b as i64 as f64),
        Json::String(s) => parse_f64(s),
        _ => None,
    }
}

fn json_path_long(args: &[Value]) -> Result<Value, FunctionError> {
    if args.len() == 2 && args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    if let Some(v) = find_or_default(args).as_ref().and_then(json_long) {
        return Ok(Value::Long(v));
    }
    match args.get(2) {
        None => Ok(Value::Long(i64::MIN)),
        Some(Value::Null) => Ok(Value::Null),
        Some(d) => Ok(Value::Long(int("jsonPathLong", d)?)),
    }
}

fn json_path_double(args: &[Value]) -> Result<Value, FunctionError> {
    if args.len() == 2 && args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    if let Some(v) = find_or_default(args).as_ref().and_then(json_double) {
        return Ok(Value::Double(v));
    }
    match args.get(2) {
        None => Ok(Value::Double(f64::NAN)),
        Some(Value::Null) => Ok(Value::Null),
        Some(d) => Ok(Value::Double(num("jsonPathDouble", d)?)),
    }
}

// ---------------------------------------------------------------------------------------------
// Conversions

/// Jackson's `asText`: strings as they are, numbers and booleans as text, `null` as `null`,
/// containers as the empty string.
fn as_text(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        Json::Array(_) | Json::Object(_) => String::new(),
        other => render(other),
    }
}

fn key_value_array_to_map(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "jsonKeyValueArrayToMap";
    let (key, value) = match args {
        [_, k, v] => (text(k), text(v)),
        _ => (Cow::Borrowed("key"), Cow::Borrowed("value")),
    };
    let entries: Vec<Json> = match &args[0] {
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::String(_) | Value::Json(_) | Value::Bytes(_) => document(item),
                other => Ok(value_json(other)),
            })
            .collect::<Result<_, _>>()
            .map_err(|reason| FunctionError::invalid(F, &args[0], reason))?,
        other => {
            match document(other).map_err(|reason| FunctionError::invalid(F, other, reason))? {
                Json::Array(items) => items,
                Json::Object(map) if map.is_empty() => Vec::new(),
                Json::Object(_) => {
                    return Err(FunctionError::invalid(F, other, "not a JSON array"));
                }
                _ => Vec::new(),
            }
        }
    };
    let mut map = serde_json::Map::new();
    for entry in &entries {
        let field = |name: &str| {
            entry.get(name).map(as_text).ok_or_else(|| {
                FunctionError::invalid(F, clip(&render(entry)), format!("no field '{name}'"))
            })
        };
        map.insert(field(&key)?, Json::String(field(&value)?));
    }
    Ok(Value::Json(render(&Json::Object(map))))
}

/// `jsonStringToArray` / `jsonStringToMap` / `jsonStringToListOrMap`: the JSON text of the
/// array or object the text holds, else NULL.
fn string_to_container(v: &Value, list: bool, map: bool) -> Value {
    let t = text(v);
    let t = t.trim();
    let wanted = (list && t.starts_with('[')) || (map && t.starts_with('{'));
    match parse_lenient(t) {
        Ok(parsed) if wanted && (parsed.is_array() || parsed.is_object()) => {
            Value::Json(render(&parsed))
        }
        _ => Value::Null,
    }
}

fn json_extract_object(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(match &args[0] {
        Value::String(_) | Value::Json(_) => string_to_container(&args[0], true, true),
        Value::Array(_) => Value::Json(render(&value_json(&args[0]))),
        _ => Value::Null,
    })
}

fn to_json_map_str(args: &[Value]) -> Result<Value, FunctionError> {
    match &args[0] {
        Value::Null => Ok(Value::String("null".into())),
        v => match document(v) {
            Ok(map @ Json::Object(_)) => Ok(Value::String(render(&map))),
            _ => Err(FunctionError::invalid(
                "toJsonMapStr",
                v,
                "not a JSON object",
            )),
        },
    }
}

/// Jackson's rendering of a value: text quoted, JSON text embedded, BIG_DECIMAL as written,
/// TIMESTAMP as epoch millis, BYTES as base64.
fn json_format(args: &[Value]) -> Result<Value, FunctionError> {
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::BigDecimal(s) => out.push_str(s),
            Value::Float(f) if f.is_finite() => out.push_str(&java_float_text(*f)),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            other => out.push_str(&render(&value_json(other))),
        }
    }
    let mut out = String::new();
    write(&args[0], &mut out);
    Ok(Value::String(out))
}

fn is_json(args: &[Value]) -> Result<Value, FunctionError> {
    let t = text(&args[0]);
    let first = serde_json::Deserializer::from_str(&t)
        .into_iter::<serde::de::IgnoredAny>()
        .next();
    Ok(Value::Boolean(!matches!(first, Some(Err(_)))))
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    const REPO: &str = r#"{"id":115911530,"name":"LimeVista/Tapes","url":"https://api.github.com/repos/LimeVista/Tapes","stars":4.5,"tags":["a","b"],"ok":true,"when":"2020-01-01 00:00:00","nums":[1,2,null]}"#;

    const GITHUB: &str = r#"{"id": "7044885078", "type": "CreateEvent",
        "actor": {"id": 33500718, "login": "dipper-github-icn-bom-cdg", "gravatar_id": ""},
        "payload": {"ref_type": "branch", "description": null}, "public": true}"#;

    const SUBJECTS: &str = r#"{"name": "Pete", "age": 24, "subjects": [
        {"name": "maths", "homework_grades": [80, 85, 90, 95, 100], "grade": "A"},
        {"name": "english", "homework_grades": [60, 65, 70, 85, 90], "grade": "B"}]}"#;

    fn s(text: &str) -> Value {
        Value::String(text.into())
    }

    fn call(name: &str, args: &[Value]) -> Result<Value, FunctionError> {
        lookup(name).unwrap_or_else(|| panic!("{name}")).eval(args)
    }

    fn strings(items: &[&str]) -> Value {
        Value::Array(items.iter().map(|t| s(t)).collect())
    }

    fn extract(path: &str, ty: &str) -> Result<Value, FunctionError> {
        call(
            "json_extract_scalar",
            &[Value::Json(REPO.into()), s(path), s(ty)],
        )
    }

    #[test]
    fn extracts_like_the_pinot_docs() {
        assert_eq!(extract("$.name", "STRING").unwrap(), s("LimeVista/Tapes"));
        let missing = extract("$.foo", "STRING").unwrap_err();
        assert!(matches!(missing, FunctionError::JsonPath { .. }));
        assert!(
            missing
                .to_string()
                .starts_with("illegal json path '$.foo' when reading '{\"id\"")
        );
        let doc = Value::Json(REPO.into());
        let f = lookup("jsonExtractScalar").unwrap();
        assert_eq!(
            f.eval(&[doc.clone(), s("$.foo"), s("STRING"), s("dummyValue")])
                .unwrap(),
            s("dummyValue")
        );
        assert_eq!(
            f.eval(&[doc.clone(), s("$.foo"), s("INT"), s("-1")])
                .unwrap(),
            Value::Int(-1)
        );
        assert_eq!(
            f.eval(&[doc, s("$.foo"), s("INT"), Value::Null]).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn converts_to_each_type() {
        assert_eq!(extract("$.id", "INT").unwrap(), Value::Int(115_911_530));
        assert_eq!(extract("$.id", "LONG").unwrap(), Value::Long(115_911_530));
        assert_eq!(extract("$.stars", "LONG").unwrap(), Value::Long(4));
        assert_eq!(extract("$.stars", "DOUBLE").unwrap(), Value::Double(4.5));
        assert_eq!(extract("$.stars", "FLOAT").unwrap(), Value::Float(4.5));
        assert_eq!(extract("$.ok", "DOUBLE").unwrap(), Value::Double(1.0));
        assert_eq!(
            extract("$.stars", "BIG_DECIMAL").unwrap(),
            Value::BigDecimal("4.5".into())
        );
        assert_eq!(extract("$.ok", "BOOLEAN").unwrap(), Value::Boolean(true));
        assert_eq!(extract("$.name", "BOOLEAN").unwrap(), Value::Boolean(false));
        assert_eq!(extract("$.id", "STRING").unwrap(), s("115911530"));
        assert_eq!(extract("$.tags", "STRING").unwrap(), s(r#"["a","b"]"#));
        // JSON results are stored as text: a string leaf is its text.
        assert_eq!(
            extract("$.tags[1]", "JSON").unwrap(),
            Value::Json("b".into())
        );
        assert_eq!(
            extract("$.when", "TIMESTAMP").unwrap(),
            Value::Timestamp(1_577_836_800_000)
        );
        assert!(extract("$.name", "INT").is_err());
        assert!(extract("$.name", "DECIMAL").is_err());
        assert!(call("jsonExtractScalar", &[s("not json"), s("$.a"), s("INT")]).is_err());
        // BYTES documents are UTF-8 JSON.
        assert_eq!(
            call(
                "jsonExtractScalarFast",
                &[
                    Value::Bytes(br#"{"k1":"v"}"#.to_vec()),
                    s("$.k1"),
                    s("STRING")
                ]
            )
            .unwrap(),
            s("v")
        );
    }

    #[test]
    fn extracts_arrays() {
        let ints = |v: &[i32]| Value::Array(v.iter().map(|i| Value::Int(*i)).collect());
        assert_eq!(
            extract("$.tags", "STRING_ARRAY").unwrap(),
            strings(&["a", "b"])
        );
        assert_eq!(extract("$.nums[0:2]", "INT_ARRAY").unwrap(), ints(&[1, 2]));
        assert_eq!(extract("$.name", "INT_ARRAY").unwrap(), ints(&[]));
        assert_eq!(extract("$.missing", "INT_ARRAY").unwrap(), ints(&[]));
        let nulls = extract("$.nums", "INT_ARRAY").unwrap_err();
        assert!(nulls.to_string().contains("nulls"), "{nulls}");
        assert_eq!(
            call(
                "jsonExtractScalarFirstMatch",
                &[
                    Value::Json(REPO.into()),
                    s("$.nums"),
                    s("INT_ARRAY"),
                    s("0")
                ]
            )
            .unwrap(),
            ints(&[1, 2, 0])
        );
    }

    #[test]
    fn typing_needs_the_result_type_literal() {
        let f = lookup("JSONEXTRACTSCALARFORY").unwrap();
        assert_eq!(f.name(), "jsonExtractScalarFory");
        let (path, ty, bad, arr) = (s("$.a"), s("double"), s("DECIMAL128"), s("long_array"));
        let json = ArgType::of(DataType::Json);
        assert_eq!(
            f.resolve(&[json, ArgType::literal(&path), ArgType::literal(&ty)])
                .unwrap(),
            DataType::Double
        );
        assert_eq!(
            f.resolve_column(&[json, ArgType::literal(&path), ArgType::literal(&arr)])
                .unwrap(),
            ColumnType::mv(DataType::Long)
        );
        assert!(matches!(
            f.resolve(&[json, ArgType::literal(&path), ArgType::of(DataType::String)]),
            Err(FunctionError::NeedsLiteral { .. })
        ));
        assert!(matches!(
            f.resolve(&[json, ArgType::literal(&path), ArgType::literal(&bad)]),
            Err(FunctionError::InvalidLiteral { .. })
        ));
        let bad_path = s("$.a b");
        assert!(
            f.resolve(&[json, ArgType::literal(&bad_path), ArgType::literal(&ty)])
                .is_err()
        );
    }

    #[test]
    fn extract_index_reads_leaf_text() {
        let f = lookup("json_extract_index").unwrap();
        let doc = Value::Json(REPO.into());
        assert_eq!(
            f.eval(&[doc.clone(), s("$.id"), s("LONG")]).unwrap(),
            Value::Long(115_911_530)
        );
        assert_eq!(
            f.eval(&[doc.clone(), s("$.name"), s("STRING")]).unwrap(),
            s("LimeVista/Tapes")
        );
        assert_eq!(
            f.eval(&[doc.clone(), s("$.nonexistent"), s("STRING"), s("N/A")])
                .unwrap(),
            s("N/A")
        );
        assert!(matches!(
            f.eval(&[doc.clone(), s("$.tags"), s("STRING")]),
            Err(FunctionError::JsonPath { .. })
        ));
        assert_eq!(
            f.eval(&[doc.clone(), s("$.tags[*]"), s("STRING_ARRAY")])
                .unwrap(),
            strings(&["a", "b"])
        );
        assert_eq!(
            f.eval(&[doc.clone(), s("$.none[*]"), s("INT_ARRAY"), s("[1, 2]")])
                .unwrap(),
            Value::Array(vec![Value::Int(1), Value::Int(2)])
        );
        // A filter no record of the document passes: the default.
        assert_eq!(
            f.eval(&[doc.clone(), s("$.id"), s("INT"), s("0"), s("\"$.a\" = 1")])
                .unwrap(),
            Value::Int(0)
        );
        let (path, ty) = (s("$.tags[*]"), s("STRING"));
        assert!(
            f.resolve(&[
                ArgType::of(DataType::Json),
                ArgType::literal(&path),
                ArgType::literal(&ty)
            ])
            .is_err()
        );
    }

    #[test]
    fn json_path_functions_follow_pinot_tests() {
        let doc = s(GITHUB);
        assert_eq!(
            call("jsonPathExists", &[doc.clone(), s("$.actor.id")]).unwrap(),
            Value::Boolean(true)
        );
        assert_eq!(
            call("jsonPathString", &[doc.clone(), s("$.actor.id")]).unwrap(),
            s("33500718")
        );
        assert_eq!(
            call("jsonPathLong", &[doc.clone(), s("$.actor.id")]).unwrap(),
            Value::Long(33_500_718)
        );
        assert_eq!(
            call("jsonPathDouble", &[doc.clone(), s("$.actor.id")]).unwrap(),
            Value::Double(33_500_718.0)
        );
        assert_eq!(
            call("jsonPathExists", &[doc.clone(), s("$.actor.aaa")]).unwrap(),
            Value::Boolean(false)
        );
        assert_eq!(
            call(
                "jsonPathString",
                &[doc.clone(), s("$.actor.aaa"), s("null")]
            )
            .unwrap(),
            s("null")
        );
        assert_eq!(
            call(
                "jsonPathString",
                &[s("not json"), s("$.actor.aaa"), s("null")]
            )
            .unwrap(),
            s("null")
        );
        assert_eq!(
            call(
                "jsonPathString",
                &[Value::Null, s("$.actor.aaa"), s("null")]
            )
            .unwrap(),
            s("null")
        );
        assert_eq!(
            call("jsonPathString", &[doc.clone(), s("$.actor.aaa")]).unwrap(),
            Value::Null
        );
        assert_eq!(
            call("jsonPathString", &[doc.clone(), s("$.payload.description")]).unwrap(),
            Value::Null
        );
        assert_eq!(
            call(
                "jsonPathLong",
                &[doc.clone(), s("$.actor.aaa"), Value::Long(100)]
            )
            .unwrap(),
            Value::Long(100)
        );
        assert_eq!(
            call("jsonPathLong", &[doc.clone(), s("$.actor.aaa")]).unwrap(),
            Value::Long(i64::MIN)
        );
        assert_eq!(
            call("jsonPathLong", &[Value::Null, s("$.a"), Value::Long(-1)]).unwrap(),
            Value::Long(-1)
        );
        assert_eq!(
            call("jsonPathLong", &[Value::Null, s("$.a")]).unwrap(),
            Value::Null
        );
        assert_eq!(
            call("jsonPathLong", &[s("{\"v\":true}"), s("$.v")]).unwrap(),
            Value::Long(1)
        );
        assert_eq!(
            call(
                "jsonPathLong",
                &[s("{\"v\":{\"k\":1}}"), s("$.v"), Value::Long(-1)]
            )
            .unwrap(),
            Value::Long(-1)
        );
        assert_eq!(
            call(
                "jsonPathDouble",
                &[doc.clone(), s("$.actor.aaa"), Value::Double(53.2)]
            )
            .unwrap(),
            Value::Double(53.2)
        );
        assert_eq!(
            call(
                "jsonPathDouble",
                &[s("not json"), s("$.a"), Value::Double(53.2)]
            )
            .unwrap(),
            Value::Double(53.2)
        );
        let Value::Double(nan) = call("jsonPathDouble", &[doc.clone(), s("$.actor.aaa")]).unwrap()
        else {
            panic!()
        };
        assert!(nan.is_nan());
        // Without a default, bad input is an error.
        assert!(call("jsonPathString", &[s("not json"), s("$.anything")]).is_err());
        assert!(call("jsonPath", &[doc.clone(), s("$.a b")]).is_err());
        // The default-taking variants skip text that cannot be JSON.
        for (input, path) in [
            ("INFO request done", "$"),
            ("", "$.x"),
            ("+5", "$"),
            ("NaN", "$"),
        ] {
            assert_eq!(
                call("jsonPathString", &[s(input), s(path), s("def")]).unwrap(),
                s("def")
            );
        }
        assert_eq!(
            call("jsonPathString", &[s("12345"), s("$"), s("def")]).unwrap(),
            s("12345")
        );
        assert_eq!(
            call("jsonPathString", &[s("\"hello\""), s("$"), s("def")]).unwrap(),
            s("hello")
        );
        assert_eq!(
            call(
                "jsonPathString",
                &[s("[{\"k\":\"v\"}]"), s("$[0].k"), s("def")]
            )
            .unwrap(),
            s("v")
        );
        let bar = s(r#"{"foo":"x","bar":{"foo":"y"}}"#);
        assert_eq!(
            call("jsonPathString", &[bar.clone(), s("$.bar")]).unwrap(),
            s(r#"{"foo":"y"}"#)
        );
        assert_eq!(
            call("jsonPath", &[bar.clone(), s("$.bar")]).unwrap(),
            Value::Json(r#"{"foo":"y"}"#.into())
        );
        assert_eq!(call("jsonPath", &[bar, s("$.qux")]).unwrap(), Value::Null);
        // The Fast / FirstMatch / Fory variants give the base function's results.
        for name in [
            "jsonPathStringFast",
            "jsonPathStringFirstMatch",
            "jsonPathStringFory",
        ] {
            assert_eq!(
                call(name, &[doc.clone(), s("$.actor.login"), s("d")]).unwrap(),
                s("dipper-github-icn-bom-cdg")
            );
            assert_eq!(
                call(name, &[doc.clone(), s("$.nope"), s("d")]).unwrap(),
                s("d")
            );
        }
        for name in [
            "jsonPathLongFast",
            "jsonPathLongFirstMatch",
            "jsonPathLongFory",
        ] {
            assert_eq!(
                call(name, &[doc.clone(), s("$.actor.id"), Value::Long(-1)]).unwrap(),
                Value::Long(33_500_718)
            );
        }
        for name in [
            "jsonPathDoubleFast",
            "jsonPathDoubleFirstMatch",
            "jsonPathDoubleFory",
        ] {
            assert_eq!(
                call(name, &[doc.clone(), s("$.public"), Value::Double(-1.0)]).unwrap(),
                Value::Double(1.0)
            );
        }
    }

    #[test]
    fn json_path_arrays() {
        let doc = s(SUBJECTS);
        assert_eq!(
            call("jsonPathExists", &[doc.clone(), s("$.subjects[*].name")]).unwrap(),
            Value::Boolean(true)
        );
        assert_eq!(
            call("jsonPathArray", &[doc.clone(), s("$.subjects[*].name")]).unwrap(),
            strings(&["maths", "english"])
        );
        assert_eq!(
            call(
                "jsonPathArray",
                &[doc.clone(), s("$.subjects[*].homework_grades")]
            )
            .unwrap(),
            strings(&["[80,85,90,95,100]", "[60,65,70,85,90]"])
        );
        assert_eq!(
            call("jsonPathArray", &[doc.clone(), s("$.name")]).unwrap(),
            strings(&["Pete"])
        );
        assert_eq!(
            call("jsonPathArray", &[doc.clone(), s("$.qux")]).unwrap(),
            Value::Null
        );
        assert_eq!(
            call("jsonPathArray", &[s("{\"a\":1}"), s("$.subjects[*].name")]).unwrap(),
            strings(&[])
        );
        assert_eq!(
            call("jsonPathExists", &[doc.clone(), s("$.subjects[*].missing")]).unwrap(),
            Value::Boolean(true)
        );
        assert_eq!(
            call("jsonPathExists", &[doc.clone(), s("not json")]).unwrap(),
            Value::Boolean(false)
        );
        for (input, path) in [
            (doc.clone(), s("not json")),
            (doc.clone(), Value::Null),
            (Value::Null, s("$.a")),
            (s("plain text"), s("$.a")),
        ] {
            assert_eq!(
                call("jsonPathArrayDefaultEmpty", &[input, path]).unwrap(),
                strings(&[])
            );
        }
        assert_eq!(
            call(
                "jsonPathArrayDefaultEmpty",
                &[doc.clone(), s("$.subjects[*].grade")]
            )
            .unwrap(),
            strings(&["A", "B"])
        );
        let top = s(r#"[{"sha": 123, "name": "k"}, {"sha": 456, "name": "j"}]"#);
        assert_eq!(
            call("jsonPathArray", &[top.clone(), s("$.[*].sha")]).unwrap(),
            strings(&["123", "456"])
        );
        assert_eq!(
            call("jsonPathArray", &[top, s("$.[1].sha")]).unwrap(),
            strings(&["456"])
        );
    }

    #[test]
    fn extract_key_lists_paths() {
        let key = |doc: &str, path: &str, params: Option<&str>| {
            let mut args = vec![s(doc), s(path)];
            args.extend(params.map(s));
            call("jsonExtractKey", &args).unwrap()
        };
        let nested = r#"{"a":1,"b":{"c":2,"d":{"e":3}}}"#;
        assert_eq!(key(nested, "$.*", None), strings(&["$['a']", "$['b']"]));
        assert_eq!(
            key(nested, "$.b.*", Some("maxDepth=-1")),
            strings(&["$['b']['c']", "$['b']['d']"])
        );
        assert_eq!(
            key(nested, "$..**", Some("maxDepth=3;dotNotation=true")),
            strings(&["a", "b", "b.c", "b.d", "b.d.e"])
        );
        assert_eq!(
            key(nested, "$..", Some("maxDepth=2")),
            strings(&["$['a']", "$['b']", "$['b']['c']", "$['b']['d']"])
        );
        assert_eq!(
            key(nested, "", None),
            key(
                nested,
                "$..**",
                Some("maxDepth=2147483647;dotNotation=false")
            )
        );
        assert_eq!(
            key(
                r#"[{"a":1},{"b":2},{"c":{"d":3}}]"#,
                "$..**",
                Some("maxDepth=3; dotNotation=true")
            ),
            strings(&["0", "0.a", "1", "1.b", "2", "2.c", "2.c.d"])
        );
        assert_eq!(
            key(
                r#"{"k4":{"x":1,"met":2}}"#,
                "$.k4.*",
                Some("maxDepth=2; dotNotation=true")
            ),
            strings(&["k4.x", "k4.met"])
        );
        assert_eq!(
            key(r#"{"k4":{"x":1}}"#, "$.k4.*", Some("maxDepth=1")),
            strings(&[])
        );
        assert_eq!(key("{\"a\":1}", "$..**", Some("maxDepth=0")), strings(&[]));
        assert_eq!(key("not a json", "$..**", Some("maxDepth=2")), strings(&[]));
        assert_eq!(key("{}", "$..**", Some("maxDepth=1")), strings(&[]));
        assert_eq!(
            key(
                r#"{"field with spaces":4}"#,
                "$..**",
                Some("dotNotation=true")
            ),
            strings(&["field with spaces"])
        );
        assert!(call("jsonExtractKey", &[s("{}"), s("$.*"), s("unknownKey=abc")]).is_err());
        assert!(call("jsonExtractKey", &[s("not json"), s("$.*")]).is_err());
        assert_eq!(dot_notation("$['a'][0]['b']"), "a.0.b");
        assert_eq!(key_depth("$['a'][0]"), 2);
    }

    #[test]
    fn conversions_to_and_from_text() {
        let kv = r#"[{"key": "k1", "value": "v1"}, {"key": "k2", "value": 2}]"#;
        assert_eq!(
            call("jsonKeyValueArrayToMap", &[s(kv)]).unwrap(),
            Value::Json(r#"{"k1":"v1","k2":"2"}"#.into())
        );
        let items = Value::Array(vec![s(r#"{"k": "a", "v": "b"}"#)]);
        assert_eq!(
            call("jsonKeyValueArrayToMap", &[items, s("k"), s("v")]).unwrap(),
            Value::Json(r#"{"a":"b"}"#.into())
        );
        assert!(call("jsonKeyValueArrayToMap", &[s(r#"[{"k":1}]"#)]).is_err());
        let array = r#"[{"k1":"v1"}, {"k2":"v2"}]"#;
        assert_eq!(
            call("jsonStringToArray", &[s(array)]).unwrap(),
            Value::Json(r#"[{"k1":"v1"},{"k2":"v2"}]"#.into())
        );
        assert_eq!(
            call("jsonStringToListOrMap", &[s(array)]).unwrap(),
            Value::Json(r#"[{"k1":"v1"},{"k2":"v2"}]"#.into())
        );
        assert_eq!(call("jsonStringToMap", &[s(array)]).unwrap(), Value::Null);
        assert_eq!(
            call("jsonStringToMap", &[s(" {\"k1\":\"v1\", \"k2\":2.50}")]).unwrap(),
            Value::Json(r#"{"k1":"v1","k2":2.5}"#.into())
        );
        assert_eq!(
            call("jsonStringToListOrMap", &[s("[\"k1\":\"v1\"}")]).unwrap(),
            Value::Null
        );
        assert_eq!(
            call("jsonExtractObject", &[s("{\"level\":\"info\"}")]).unwrap(),
            Value::Json("{\"level\":\"info\"}".into())
        );
        for input in [Value::Null, s("INFO plain text"), s("12345"), s("")] {
            assert_eq!(call("jsonExtractObject", &[input]).unwrap(), Value::Null);
        }
        assert_eq!(call("toJsonMapStr", &[Value::Null]).unwrap(), s("null"));
        assert_eq!(
            call("toJsonMapStr", &[Value::Json("{\"a\": [1, 2.0]}".into())]).unwrap(),
            s("{\"a\":[1,2.0]}")
        );
        assert!(call("toJsonMapStr", &[s("[1]")]).is_err());
        assert_eq!(call("jsonFormat", &[s("a\"b")]).unwrap(), s("\"a\\\"b\""));
        assert_eq!(
            call("jsonFormat", &[Value::Double(1e10)]).unwrap(),
            s("1.0E10")
        );
        assert_eq!(call("jsonFormat", &[Value::Float(0.1)]).unwrap(), s("0.1"));
        assert_eq!(
            call("jsonFormat", &[Value::BigDecimal("1.50".into())]).unwrap(),
            s("1.50")
        );
        assert_eq!(
            call(
                "jsonFormat",
                &[Value::Array(vec![
                    Value::Int(1),
                    s("x"),
                    Value::Bytes(vec![1, 2])
                ])]
            )
            .unwrap(),
            s("[1,\"x\",\"AQI=\"]")
        );
        assert_eq!(call("jsonFormat", &[Value::Null]).unwrap(), Value::Null);
        assert_eq!(java_double_text(100.0), "100.0");
        assert_eq!(java_double_text(1.0e-5), "1.0E-5");
        assert_eq!(java_double_text(1.2345e7), "1.2345E7");
    }

    #[test]
    fn is_json_follows_jackson() {
        for (input, expected) in [
            ("", true),
            ("{\"key\": \"value\"}", true),
            ("{\"key\": \"value\", }", false),
            ("{\"key\": \"va", false),
            ("[1, 2] trailing", true),
            ("abc", false),
            ("5", true),
        ] {
            assert_eq!(
                call("is_json", &[s(input)]).unwrap(),
                Value::Boolean(expected),
                "{input}"
            );
        }
        assert_eq!(call("isJson", &[Value::Null]).unwrap(), Value::Null);
    }

    #[test]
    fn extract_index_filters_per_array_element() {
        // Pinot's JsonIndexTest.testGetValueToFlattenedDocIdsMap documents 0 and 2.
        let d0 = r#"{"arrField":[{"intKey01":1,"stringKey01":"abc"},{"intKey01":1,"stringKey01":"foo"},{"intKey01":3,"stringKey01":"bar"},{"intKey01":5,"stringKey01":"fuzz"}]}"#;
        let d2 = r#"{"arrField":[{"intKey01":1,"stringKey01":"pqr"},{"intKey01":1,"stringKey01":"foo"},{"intKey01":6,"stringKey01":"test"},{"intKey01":3,"stringKey01":"testf2"}]}"#;
        let ints = |v: &[i32]| Value::Array(v.iter().map(|&i| Value::Int(i)).collect());
        let run = |doc: &str, path: &str, ty: &str, filter: &str| {
            call(
                "jsonExtractIndex",
                &[Value::Json(doc.into()), s(path), s(ty), s("[]"), s(filter)],
            )
            .unwrap()
        };
        let int_path = "$.arrField[*].intKey01";
        let str_path = "$.arrField[*].stringKey01";
        let regex = r#"REGEXP_LIKE("arrField..stringKey01", '.*f.*')"#;
        assert_eq!(run(d0, int_path, "INT_ARRAY", regex), ints(&[1, 5]));
        assert_eq!(run(d2, int_path, "INT_ARRAY", regex), ints(&[1, 3]));
        let above = r#""arrField..intKey01" > 2"#;
        assert_eq!(
            run(d0, str_path, "STRING_ARRAY", above),
            strings(&["bar", "fuzz"])
        );
        assert_eq!(
            run(d2, str_path, "STRING_ARRAY", above),
            strings(&["test", "testf2"])
        );
        let both = r#""arrField[*].intKey01" > 2 AND REGEXP_LIKE("arrField[*].stringKey01", '[a-b][a-b].*')"#;
        assert_eq!(run(d0, int_path, "INT_ARRAY", both), ints(&[3]));
        assert_eq!(run(d2, int_path, "INT_ARRAY", both), ints(&[]));
        let not_bar = r#""arrField[*].stringKey01" != 'bar'"#;
        assert_eq!(run(d0, int_path, "INT_ARRAY", not_bar), ints(&[1, 1, 5]));
        assert_eq!(run(d2, int_path, "INT_ARRAY", not_bar), ints(&[1, 1, 6, 3]));
        let not_3 = r#""arrField[*].intKey01" != '3'"#;
        assert_eq!(
            run(d0, str_path, "STRING_ARRAY", not_3),
            strings(&["abc", "foo", "fuzz"])
        );
        // Pinot's JsonPathTest: a single value with a default when the filter keeps nothing.
        let sv = |doc: &str, filter: &str| {
            call(
                "jsonExtractIndex",
                &[
                    Value::Json(doc.into()),
                    s("$.k1"),
                    s("STRING"),
                    s("missing"),
                    s(filter),
                ],
            )
            .unwrap()
        };
        let doc = r#"{"k1":"value-k1-0","k2":"value-k2-0"}"#;
        assert_eq!(sv(doc, r#""$.k1" = 'value-k1-0'"#), s("value-k1-0"));
        assert_eq!(sv(doc, r#""$.k1" != 'value-k1-0'"#), s("missing"));
        assert_eq!(
            sv(doc, r#"REGEXP_LIKE("$.k1", 'value-k1-[0-9]')"#),
            s("value-k1-0")
        );
        assert_eq!(sv(doc, r#""$.k2" = 'value-k2-1'"#), s("missing"));
        assert_eq!(sv(doc, r#""$.k1" IS NOT NULL"#), s("value-k1-0"));
        let bad = call(
            "jsonExtractIndex",
            &[
                Value::Json(doc.into()),
                s("$.k1"),
                s("STRING"),
                s("missing"),
                s("\"$.k1\" ="),
            ],
        );
        assert!(
            bad.unwrap_err()
                .to_string()
                .contains("Invalid json match filter")
        );
    }
}
