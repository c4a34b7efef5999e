//! JSON functions: `jsonExtractScalar(json, path, resultType[, default])` (Pinot's transform
//! function) over the JSONPath subset of `json_path`.
//!
//! The result type is a literal — `INT`, `LONG`, `FLOAT`, `DOUBLE`, `BIG_DECIMAL`, `BOOLEAN`,
//! `TIMESTAMP`, `STRING`, `JSON` or `BYTES` (the `*_ARRAY` types are not supported) — so the
//! call can only be typed with it as an [`ArgType::literal`]. A path that finds nothing (or
//! `null`) yields the default when one is given and is an error otherwise, as in Pinot
//! (`Illegal Json Path`). Numbers convert like Java's `Number.intValue()` and friends; text
//! parses; STRING results of objects and arrays are their JSON text.

use super::coerce::text;
use super::def::{ArgType, Arity, FunctionDef, Param, Returns};
use super::error::{FunctionError, clip};
use super::json_path::JsonPath;
use segments::types::time::parse_timestamp;
use segments::types::value::canonical_decimal;
use segments::types::{DataType, Value};
use serde_json::Value as Json;

const F: &str = "jsonExtractScalar";

/// The JSON functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[FunctionDef::new(
    F,
    Arity::Range(3, 4),
    &[Param::Text],
    Returns::Infer(extract_type),
    json_extract_scalar,
)];

fn result_type(name: &str) -> Result<DataType, String> {
    let upper = name.trim().to_ascii_uppercase();
    if upper.ends_with("_ARRAY") {
        return Err("multi-value result types are not supported".into());
    }
    DataType::parse(&upper).ok_or_else(|| "not a data type".to_string())
}

fn extract_type(args: &[ArgType]) -> Result<DataType, FunctionError> {
    if let Some(path) = args[1].literal_text() {
        JsonPath::parse(&path)
            .map_err(|reason| FunctionError::invalid_literal(F, &path, reason))?;
    }
    let Some(name) = args[2].literal_text() else {
        return Err(FunctionError::NeedsLiteral {
            function: F,
            position: 3,
        });
    };
    result_type(&name).map_err(|reason| FunctionError::invalid_literal(F, name, reason))
}

fn json_extract_scalar(args: &[Value]) -> Result<Value, FunctionError> {
    let document = text(&args[0]);
    let path_text = text(&args[1]);
    let path = JsonPath::parse(&path_text)
        .map_err(|reason| FunctionError::invalid(F, &path_text, reason))?;
    let type_name = text(&args[2]);
    let target =
        result_type(&type_name).map_err(|reason| FunctionError::invalid(F, &type_name, reason))?;
    let found = serde_json::from_str::<Json>(&document)
        .ok()
        .and_then(|root| path.read(&root))
        .filter(|v| !v.is_null());
    match (found, args.get(3)) {
        (Some(v), _) => convert(&v, target),
        (None, Some(Value::Null)) => Ok(Value::Null),
        (None, Some(default)) => default
            .cast(target)
            .map_err(|e| FunctionError::invalid(F, default, e.to_string())),
        (None, None) => Err(FunctionError::JsonPath {
            path: path_text.into_owned(),
            json: clip(&document),
        }),
    }
}

/// Converts a JSON value to the requested type.
fn convert(v: &Json, target: DataType) -> Result<Value, FunctionError> {
    let fail = |reason: &str| FunctionError::invalid(F, clip(&v.to_string()), reason.to_string());
    let as_text = || match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    };
    let whole = || -> Result<i64, FunctionError> {
        match v {
            Json::Number(n) => n
                .as_i64()
                .or_else(|| n.as_f64().map(|f| f as i64))
                .ok_or_else(|| fail("not a number")),
            Json::Bool(b) => Ok(*b as i64),
            Json::String(s) => s.trim().parse().map_err(|_| fail("not a whole number")),
            _ => Err(fail("not a number")),
        }
    };
    let real = || -> Result<f64, FunctionError> {
        match v {
            Json::Number(n) => n.as_f64().ok_or_else(|| fail("not a number")),
            Json::String(s) => s.trim().parse().map_err(|_| fail("not a number")),
            _ => Err(fail("not a number")),
        }
    };
    Ok(match target {
        DataType::Int => Value::Int(whole()? as i32),
        DataType::Long => Value::Long(whole()?),
        DataType::Float => Value::Float(real()? as f32),
        DataType::Double => Value::Double(real()?),
        DataType::BigDecimal => {
            let t = as_text();
            t.trim().parse::<f64>().map_err(|_| fail("not a decimal"))?;
            Value::BigDecimal(canonical_decimal(&t))
        }
        DataType::Boolean => match v {
            Json::Bool(b) => Value::Boolean(*b),
            Json::Number(_) => Value::Boolean(real()? != 0.0),
            Json::String(s) if s.eq_ignore_ascii_case("true") => Value::Boolean(true),
            Json::String(s) if s.eq_ignore_ascii_case("false") => Value::Boolean(false),
            _ => return Err(fail("not a boolean")),
        },
        DataType::Timestamp => match v {
            Json::String(s) => {
                Value::Timestamp(parse_timestamp(s).ok_or_else(|| fail("not a timestamp"))?)
            }
            _ => Value::Timestamp(whole()?),
        },
        DataType::String => Value::String(as_text()),
        DataType::Json => Value::Json(v.to_string()),
        DataType::Bytes => {
            Value::parse(DataType::Bytes, &as_text()).map_err(|_| fail("not hex bytes"))?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    const REPO: &str = r#"{"id":115911530,"name":"LimeVista/Tapes","url":"https://api.github.com/repos/LimeVista/Tapes","stars":4.5,"tags":["a","b"],"ok":true,"when":"2020-01-01 00:00:00"}"#;

    fn s(text: &str) -> Value {
        Value::String(text.into())
    }

    fn extract(path: &str, ty: &str) -> Result<Value, FunctionError> {
        lookup("json_extract_scalar")
            .unwrap()
            .eval(&[Value::Json(REPO.into()), s(path), s(ty)])
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
        let f = lookup("jsonExtractScalar").unwrap();
        assert_eq!(
            f.eval(&[
                Value::Json(REPO.into()),
                s("$.foo"),
                s("STRING"),
                s("dummyValue")
            ])
            .unwrap(),
            s("dummyValue")
        );
        assert_eq!(
            f.eval(&[Value::Json(REPO.into()), s("$.foo"), s("INT"), s("-1")])
                .unwrap(),
            Value::Int(-1)
        );
    }

    #[test]
    fn converts_to_each_type() {
        assert_eq!(extract("$.id", "INT").unwrap(), Value::Int(115_911_530));
        assert_eq!(extract("$.id", "LONG").unwrap(), Value::Long(115_911_530));
        assert_eq!(extract("$.stars", "LONG").unwrap(), Value::Long(4));
        assert_eq!(extract("$.stars", "DOUBLE").unwrap(), Value::Double(4.5));
        assert_eq!(extract("$.stars", "FLOAT").unwrap(), Value::Float(4.5));
        assert_eq!(
            extract("$.stars", "BIG_DECIMAL").unwrap(),
            Value::BigDecimal("4.5".into())
        );
        assert_eq!(extract("$.ok", "BOOLEAN").unwrap(), Value::Boolean(true));
        assert_eq!(extract("$.id", "STRING").unwrap(), s("115911530"));
        assert_eq!(extract("$.tags", "STRING").unwrap(), s(r#"["a","b"]"#));
        assert_eq!(
            extract("$.tags[1]", "JSON").unwrap(),
            Value::Json(r#""b""#.into())
        );
        assert_eq!(
            extract("$.when", "TIMESTAMP").unwrap(),
            Value::Timestamp(1_577_836_800_000)
        );
        assert!(extract("$.name", "INT").is_err());
        assert!(extract("$.name", "INT_ARRAY").is_err());
        assert!(
            lookup("jsonExtractScalar")
                .unwrap()
                .eval(&[s("not json"), s("$.a"), s("INT")])
                .is_err()
        );
    }

    #[test]
    fn typing_needs_the_result_type_literal() {
        let f = lookup("JSONEXTRACTSCALAR").unwrap();
        let (path, ty, bad) = (s("$.a"), s("double"), s("DECIMAL128"));
        let json = ArgType::of(DataType::Json);
        assert_eq!(
            f.resolve(&[json, ArgType::literal(&path), ArgType::literal(&ty)])
                .unwrap(),
            DataType::Double
        );
        assert!(matches!(
            f.resolve(&[json, ArgType::literal(&path), ArgType::of(DataType::String)]),
            Err(FunctionError::NeedsLiteral { .. })
        ));
        assert!(matches!(
            f.resolve(&[json, ArgType::literal(&path), ArgType::literal(&bad)]),
            Err(FunctionError::InvalidLiteral { .. })
        ));
        let bad_path = s("$..a");
        assert!(
            f.resolve(&[json, ArgType::literal(&bad_path), ArgType::literal(&ty)])
                .is_err()
        );
    }
}
