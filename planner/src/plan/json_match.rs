//! `JSON_MATCH(column, 'filter')`: the filter string read once, at planning, into a typed
//! [`JsonFilter`] over the JSON index's keys — as Pinot's JSON index reader reads it.
//!
//! The filter is SQL: `"$.a.b" = 'x'`, `!=`, `IN`, `NOT IN`, `<`/`<=`/`>`/`>=`/`BETWEEN`,
//! `IS [NOT] NULL`, `REGEXP_LIKE("$.a", 'pattern'[, 'i'])`, `LIKE`, joined by `AND`/`OR`. Each
//! left-hand side is a path (`$.a[*].b`, or `a.b` without the `$`) that becomes an index key
//! ([`JsonKey`]): `[*]` any element, `[n]` element `n`. Right-hand values are compared as text
//! (`1`, `1.5`, `true` as Java prints them), ranges as numbers when the bound is a number.
//! Everything ANDed must hold in one flattened record (one array element). As in Pinot, `IS NULL`
//! only stands as the whole filter, `NOT` is refused, `REGEXP_LIKE` matches the whole value and
//! `LIKE` becomes Pinot's LIKE regular expression matched the same way (`'New%'` matches `New`
//! only).

use super::error::PlanError;
use crate::sql::ast::{BinaryOp, Expr, Literal, UnaryOp};
use segments::types::java_text::java_double_text;
use serde::{Deserialize, Serialize};

/// A `JSON_MATCH` filter: the text as written and what it means.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonMatch {
    pub text: String,
    pub filter: JsonFilter,
}

/// A filter over the flattened records of a JSON index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum JsonFilter {
    And(Vec<JsonFilter>),
    Or(Vec<JsonFilter>),
    Predicate(JsonPredicate),
}

/// One test of one path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonPredicate {
    pub key: JsonKey,
    pub op: JsonOp,
}

/// A path as index keys: the key of its values (`.a..b` for `$.a[*].b`) and, per `[n]`, the
/// `$index` key and element number the record must also hold (`.a.$index` = `0` for `$.a[0].b`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonKey {
    /// The path as written.
    pub path: String,
    pub key: String,
    pub elements: Vec<(String, String)>,
}

/// What a [`JsonPredicate`] asks of its key's values (texts).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum JsonOp {
    Eq(String),
    /// The key holds a value other than this (in the same record).
    NotEq(String),
    In(Vec<String>),
    NotIn(Vec<String>),
    IsNotNull,
    /// No record of the document holds the key; only as the whole filter.
    IsNull,
    Range {
        lower: Option<JsonBound>,
        upper: Option<JsonBound>,
    },
    /// The whole value matches (a `LIKE` is Pinot's LIKE expression, case-insensitive).
    Regexp {
        pattern: String,
        case_insensitive: bool,
    },
}

/// One end of a range: numbers compare as numbers (each value must read as a DOUBLE), text as
/// text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonBound {
    pub value: JsonRangeValue,
    pub inclusive: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum JsonRangeValue {
    Number(f64),
    Text(String),
}

impl JsonFilter {
    /// Every predicate, pre-order.
    pub fn predicates(&self) -> Vec<&JsonPredicate> {
        match self {
            JsonFilter::And(v) | JsonFilter::Or(v) => {
                v.iter().flat_map(|f| f.predicates()).collect()
            }
            JsonFilter::Predicate(p) => vec![p],
        }
    }
}

impl JsonMatch {
    /// Whether the filter is one `IS NULL` (true of a document with no record).
    pub fn is_null_test(&self) -> bool {
        matches!(
            &self.filter,
            JsonFilter::Predicate(JsonPredicate {
                op: JsonOp::IsNull,
                ..
            })
        )
    }

    /// Reads the filter string of `JSON_MATCH(column, text)`. Pinot unescapes a string
    /// literal's doubled quotes a second time (its default "legacy" literal mode), so that is
    /// done here too: `'"$.a" = ''''x'''''` reads as `"$.a" = 'x'`.
    pub fn parse(text: &str) -> Result<JsonMatch, PlanError> {
        let invalid = || PlanError::Validation(format!("Invalid json match filter: {text}"));
        let unescaped = text.replace("''", "'");
        let expr = crate::sql::parse_expr(&unescaped).map_err(|_| invalid())?;
        let filter = filter(&expr, true, &invalid)?;
        Ok(JsonMatch {
            text: text.to_string(),
            filter,
        })
    }
}

fn filter(e: &Expr, top: bool, invalid: &dyn Fn() -> PlanError) -> Result<JsonFilter, PlanError> {
    let leaf = |lhs: &Expr, op: JsonOp| -> Result<JsonFilter, PlanError> {
        Ok(JsonFilter::Predicate(JsonPredicate { key: key(lhs)?, op }))
    };
    match e {
        Expr::Binary {
            op: op @ (BinaryOp::And | BinaryOp::Or),
            left,
            right,
        } => {
            let mut parts = Vec::new();
            for side in [left, right] {
                match (filter(side, false, invalid)?, op) {
                    (JsonFilter::And(v), BinaryOp::And) | (JsonFilter::Or(v), BinaryOp::Or) => {
                        parts.extend(v)
                    }
                    (f, _) => parts.push(f),
                }
            }
            Ok(if *op == BinaryOp::And {
                JsonFilter::And(parts)
            } else {
                JsonFilter::Or(parts)
            })
        }
        Expr::Binary { op, left, right } => {
            let value = || text(right, invalid);
            let bound = |inclusive| -> Result<Option<JsonBound>, PlanError> {
                Ok(Some(JsonBound {
                    value: range_value(right, invalid)?,
                    inclusive,
                }))
            };
            let op = match op {
                BinaryOp::Eq => JsonOp::Eq(value()?),
                BinaryOp::NotEq => JsonOp::NotEq(value()?),
                BinaryOp::Gt | BinaryOp::GtEq => JsonOp::Range {
                    lower: bound(*op == BinaryOp::GtEq)?,
                    upper: None,
                },
                BinaryOp::Lt | BinaryOp::LtEq => JsonOp::Range {
                    lower: None,
                    upper: bound(*op == BinaryOp::LtEq)?,
                },
                _ => return Err(unsupported(e)),
            };
            leaf(left, op)
        }
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            let values = list
                .iter()
                .map(|v| text(v, invalid))
                .collect::<Result<Vec<_>, _>>()?;
            leaf(
                expr,
                if *negated {
                    JsonOp::NotIn(values)
                } else {
                    JsonOp::In(values)
                },
            )
        }
        Expr::IsNull {
            expr,
            negated: false,
        } if !top => Err(PlanError::Validation(format!(
            "Exclusive predicate: {} IS NULL cannot be nested",
            path_text(expr)
        ))),
        Expr::IsNull { expr, negated } => leaf(
            expr,
            if *negated {
                JsonOp::IsNotNull
            } else {
                JsonOp::IsNull
            },
        ),
        Expr::Between {
            expr,
            low,
            high,
            negated: false,
        } => {
            let bound = |b: &Expr| -> Result<Option<JsonBound>, PlanError> {
                Ok(Some(JsonBound {
                    value: range_value(b, invalid)?,
                    inclusive: true,
                }))
            };
            leaf(
                expr,
                JsonOp::Range {
                    lower: bound(low)?,
                    upper: bound(high)?,
                },
            )
        }
        Expr::Like {
            expr,
            pattern,
            negated: false,
            escape: None,
        } => leaf(
            expr,
            JsonOp::Regexp {
                pattern: crate::functions::like_to_regex(&text(pattern, invalid)?),
                case_insensitive: true,
            },
        ),
        Expr::Function { name, args, .. }
            if crate::functions::canonical_name(name) == "regexplike"
                && (2..=3).contains(&args.len()) =>
        {
            let case_insensitive = match args.get(2) {
                Some(flag) => text(flag, invalid)?.eq_ignore_ascii_case("i"),
                None => false,
            };
            leaf(
                &args[0],
                JsonOp::Regexp {
                    pattern: text(&args[1], invalid)?,
                    case_insensitive,
                },
            )
        }
        Expr::Unary {
            op: UnaryOp::Not, ..
        }
        | Expr::Between { negated: true, .. }
        | Expr::Like { negated: true, .. } => Err(PlanError::Validation(format!(
            "NOT is not supported in a json match filter (as in Pinot's JSON index): {}",
            crate::sql::naming::filter_name(e)
        ))),
        Expr::Literal(_) => Err(invalid()),
        other => Err(unsupported(other)),
    }
}

fn unsupported(e: &Expr) -> PlanError {
    PlanError::Validation(format!(
        "Unsupported json_match predicate type: {}",
        crate::sql::naming::filter_name(e)
    ))
}

fn path_text(e: &Expr) -> String {
    match e {
        Expr::Column { table: None, name } => name.clone(),
        Expr::Column {
            table: Some(t),
            name,
        } => format!("{t}.{name}"),
        other => crate::sql::naming::filter_name(other),
    }
}

fn key(lhs: &Expr) -> Result<JsonKey, PlanError> {
    let Expr::Column { .. } = lhs else {
        return Err(PlanError::Validation(format!(
            "Left-hand side of the predicate must be an identifier, got: {}. Put double quotes around the identifier if needed.",
            crate::sql::naming::filter_name(lhs)
        )));
    };
    JsonKey::of_path(&path_text(lhs))
}

impl JsonKey {
    /// The index keys of a path: a leading `$` dropped (else `.` put before it), then each
    /// `[x]` taken left to right — `[*]` becomes `.`, `[n]` too, adding that the element's
    /// `$index` is `n`.
    pub fn of_path(path: &str) -> Result<JsonKey, PlanError> {
        let path = path.to_string();
        let mut key = match path.strip_prefix('$') {
            Some(rest) => rest.to_string(),
            None => format!(".{path}"),
        };
        let mut elements = Vec::new();
        while let Some(open) = key.find('[') {
            let close = key
                .get(open + 2..)
                .and_then(|rest| rest.find(']'))
                .map(|i| open + 2 + i)
                .ok_or_else(|| {
                    PlanError::Validation(format!("Missing right bracket in key: {key}"))
                })?;
            let (left, index, right) = (&key[..open], &key[open + 1..close], &key[close + 1..]);
            if index != "*" {
                elements.push((format!("{left}.$index"), index.to_string()));
            }
            key = format!("{left}.{right}");
        }
        Ok(JsonKey {
            path,
            key,
            elements,
        })
    }
}

/// A right-hand value as the index's text: numbers and booleans as Java prints them.
fn text(e: &Expr, invalid: &dyn Fn() -> PlanError) -> Result<String, PlanError> {
    Ok(match e {
        Expr::Literal(Literal::String(s)) => s.clone(),
        Expr::Literal(Literal::Bool(b)) => b.to_string(),
        Expr::Literal(Literal::Long(i)) => i.to_string(),
        Expr::Literal(Literal::Decimal(d)) => d.clone(),
        Expr::Literal(Literal::Double(d)) => java_double_text(*d),
        Expr::Unary {
            op: UnaryOp::Neg,
            expr,
        } => match &**expr {
            Expr::Literal(Literal::Long(i)) => (-i).to_string(),
            Expr::Literal(Literal::Decimal(d)) => format!("-{d}"),
            Expr::Literal(Literal::Double(d)) => java_double_text(-d),
            _ => return Err(invalid()),
        },
        _ => return Err(invalid()),
    })
}

fn range_value(e: &Expr, invalid: &dyn Fn() -> PlanError) -> Result<JsonRangeValue, PlanError> {
    let number = |e: &Expr| match e {
        Expr::Literal(Literal::Long(i)) => Some(*i as f64),
        Expr::Literal(Literal::Double(d)) => Some(*d),
        Expr::Literal(Literal::Decimal(d)) => d.parse().ok(),
        _ => None,
    };
    Ok(match e {
        Expr::Unary {
            op: UnaryOp::Neg,
            expr,
        } => JsonRangeValue::Number(-number(expr).ok_or_else(invalid)?),
        e => match number(e) {
            Some(n) => JsonRangeValue::Number(n),
            None => JsonRangeValue::Text(text(e, invalid)?),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> JsonFilter {
        JsonMatch::parse(s).unwrap().filter
    }

    fn err(s: &str) -> String {
        JsonMatch::parse(s).unwrap_err().to_string()
    }

    fn key_of(s: &str) -> JsonKey {
        match parse(&format!("{s} IS NOT NULL")) {
            JsonFilter::Predicate(p) => p.key,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn paths_become_index_keys() {
        let k = key_of(r#""$.addresses[*].number""#);
        assert_eq!(
            (k.key.as_str(), k.elements.len()),
            (".addresses..number", 0)
        );
        let k = key_of(r#""$.foo[0].bar[1].foobar""#);
        assert_eq!(k.key, ".foo..bar..foobar");
        assert_eq!(
            k.elements,
            [
                (".foo.$index".to_string(), "0".to_string()),
                (".foo..bar.$index".to_string(), "1".to_string())
            ]
        );
        assert_eq!(key_of(r#""$[0]""#).key, ".");
        assert_eq!(
            key_of(r#""$[0]""#).elements,
            [(".$index".to_string(), "0".to_string())]
        );
        assert_eq!(key_of(r#""$""#).key, "");
        assert_eq!(key_of("key").key, ".key");
        assert_eq!(key_of("a.b").key, ".a.b");
        assert_eq!(key_of(r#""key[1][*]""#).key, ".key..");
        assert!(err(r#""$.a[" = 1"#).contains("Missing right bracket in key: .a["));
    }

    #[test]
    fn values_are_java_texts() {
        let op = |s: &str| match parse(s) {
            JsonFilter::Predicate(p) => p.op,
            other => panic!("{other:?}"),
        };
        assert_eq!(op(r#""$.a" = 1"#), JsonOp::Eq("1".into()));
        assert_eq!(op(r#""$.a" = 0.90"#), JsonOp::Eq("0.9".into()));
        assert_eq!(op(r#""$.a" = 1.0"#), JsonOp::Eq("1.0".into()));
        assert_eq!(op(r#""$.a" = -2"#), JsonOp::Eq("-2".into()));
        assert_eq!(op(r#""$.a" = true"#), JsonOp::Eq("true".into()));
        assert_eq!(op(r#""$.a" <> 'x'"#), JsonOp::NotEq("x".into()));
        assert_eq!(
            op(r#""$.a" IN (1, 'foo')"#),
            JsonOp::In(vec!["1".into(), "foo".into()])
        );
        assert_eq!(
            op(r#""$.a" > 25"#),
            JsonOp::Range {
                lower: Some(JsonBound {
                    value: JsonRangeValue::Number(25.0),
                    inclusive: false
                }),
                upper: None
            }
        );
        assert_eq!(
            op(r#""$.a" LIKE 'New%'"#),
            JsonOp::Regexp {
                pattern: "^New".into(),
                case_insensitive: true
            }
        );
        // Doubled quotes are read twice, as in Pinot's default literal mode.
        assert_eq!(op(r#""$.name" = ''John''"#), JsonOp::Eq("John".into()));
    }

    #[test]
    fn structure_and_refusals() {
        match parse(r#""$.a" = 1 AND "$.b" = 2 AND ("$.c" = 3 OR "$.d" = 4)"#) {
            JsonFilter::And(v) => {
                assert_eq!(v.len(), 3);
                assert!(matches!(&v[2], JsonFilter::Or(o) if o.len() == 2));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse(r#""$.a" IS NULL"#),
            JsonFilter::Predicate(JsonPredicate {
                op: JsonOp::IsNull,
                ..
            })
        ));
        assert_eq!(
            err(r#""$.a" IS NULL AND "$.b" = 1"#),
            "Exclusive predicate: $.a IS NULL cannot be nested"
        );
        assert_eq!(err("\"$.a\" = "), "Invalid json match filter: \"$.a\" = ");
        assert_eq!(err("true"), "Invalid json match filter: true");
        assert!(err(r#"NOT "$.a" = 1"#).contains("NOT is not supported"));
        assert!(err("1 = 2").contains("Left-hand side of the predicate must be an identifier"));
        assert!(err(r#""$.a" = "$.b""#).contains("Invalid json match filter"));
    }
}
