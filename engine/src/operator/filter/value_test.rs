//! [`ValueTest`]: the positive form of a predicate (`=`, `IN`, range, `LIKE`, `REGEXP_LIKE`,
//! `TEXT_MATCH`, or plain truth) compiled once and applied to values — dictionary entries
//! when building dictionary-id sets, raw values when scanning, expression results.
//!
//! Negative predicates (`!=`, `NOT IN`) are evaluated as the complement of their positive
//! form, which is also Pinot's multi-value semantics (no value may match).

use crate::error::EngineError;
use crate::key::Key;
use planner::plan::eval::{compare, truth};
use planner::plan::filter::in_range;
use planner::plan::like::LikePattern;
use planner::plan::{PlanError, PredicateOp, RangeBound};
use regex::Regex;
use segments::hash::FxBuildHasher;
use segments::types::Value;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashSet;

/// A compiled positive predicate over values.
#[derive(Clone, Debug)]
pub enum ValueTest {
    Eq(Value),
    In(Box<InList>),
    Range {
        lower: Option<RangeBound>,
        upper: Option<RangeBound>,
    },
    Like(LikePattern),
    Regex(Regex),
    /// `TEXT_MATCH` over a column without a text index: the query on each value's tokens (a
    /// multi-value cell's together), analyzed as a default text index would.
    Text(std::sync::Arc<super::text_match::CompiledText>),
    /// The value is boolean TRUE (a boolean expression used as a filter).
    Truth,
}

/// The values of an `IN` list, for membership tests.
#[derive(Clone, Debug)]
pub struct InList {
    keys: HashSet<Key>,
    values: Vec<Value>,
    /// The list when all of it is text: text is looked up by its own bytes (no key built;
    /// text equals text only when identical).
    texts: Option<HashSet<String, FxBuildHasher>>,
}

impl InList {
    fn new(values: &[Value]) -> InList {
        let texts = values
            .iter()
            .map(|v| match v {
                Value::String(s) => Some(s.clone()),
                _ => None,
            })
            .collect();
        InList {
            keys: values.iter().cloned().map(Key).collect(),
            values: values.to_vec(),
            texts,
        }
    }

    fn contains(&self, v: &Value) -> bool {
        match (&self.texts, v) {
            (Some(texts), Value::String(s)) => texts.contains(s.as_str()),
            _ => self.keys.contains(&Key(v.clone())) || self.values.iter().any(|x| eq(v, x)),
        }
    }
}

/// The positive form of a predicate operator and whether the predicate negates it.
pub fn positive_form(op: &PredicateOp) -> (Cow<'_, PredicateOp>, bool) {
    match op {
        PredicateOp::NotEq(v) => (Cow::Owned(PredicateOp::Eq(v.clone())), true),
        PredicateOp::NotIn(v) => (Cow::Owned(PredicateOp::In(v.clone())), true),
        PredicateOp::IsNotNull => (Cow::Owned(PredicateOp::IsNull), true),
        other => (Cow::Borrowed(other), false),
    }
}

impl ValueTest {
    /// Compiles a positive predicate operator (`IS NULL` has no value test).
    pub fn new(op: &PredicateOp) -> Result<ValueTest, EngineError> {
        Ok(match op {
            PredicateOp::Eq(v) => ValueTest::Eq(v.clone()),
            PredicateOp::In(vs) => ValueTest::In(Box::new(InList::new(vs))),
            PredicateOp::Range { lower, upper } => ValueTest::Range {
                lower: lower.clone(),
                upper: upper.clone(),
            },
            PredicateOp::Like { pattern, escape } => {
                ValueTest::Like(LikePattern::new(pattern, *escape))
            }
            PredicateOp::RegexpLike {
                pattern,
                case_insensitive,
            } => {
                let p = if *case_insensitive {
                    format!("(?i){pattern}")
                } else {
                    pattern.clone()
                };
                ValueTest::Regex(Regex::new(&p).map_err(|e| {
                    EngineError::Plan(PlanError::Validation(format!(
                        "invalid regular expression '{pattern}': {e}"
                    )))
                })?)
            }
            PredicateOp::TextMatch(m) => ValueTest::Text(std::sync::Arc::new(
                super::text_match::CompiledText::new(m, &Default::default())?,
            )),
            PredicateOp::JsonMatch(_) => {
                return Err(EngineError::Plan(PlanError::planning(
                    "JSON_MATCH applies to a column with a json index, not to an expression",
                )));
            }
            PredicateOp::NotEq(_)
            | PredicateOp::NotIn(_)
            | PredicateOp::IsNull
            | PredicateOp::IsNotNull => {
                return Err(EngineError::execution(format!(
                    "{} has no positive value test",
                    op.kind_name()
                )));
            }
        })
    }

    /// Whether UTF-8 text passes a pattern test (`LIKE`, `REGEXP_LIKE`), an equality to text or
    /// an `IN` list of text — read straight from a dictionary's bytes, no value built; `None`
    /// for any other test (or a regular expression or list over bytes that are not UTF-8).
    pub fn test_text(&self, text: &[u8]) -> Option<bool> {
        match self {
            ValueTest::Like(p) => Some(p.matches_utf8(text)),
            ValueTest::Regex(r) => std::str::from_utf8(text).ok().map(|s| r.is_match(s)),
            // Text equals text only when identical.
            ValueTest::Eq(Value::String(s)) => Some(s.as_bytes() == text),
            ValueTest::In(list) => {
                let texts = list.texts.as_ref()?;
                std::str::from_utf8(text).ok().map(|s| texts.contains(s))
            }
            _ => None,
        }
    }

    /// Whether a single (non-array) value passes; NULL never does.
    pub fn test_scalar(&self, v: &Value) -> bool {
        if v.is_null() {
            return false;
        }
        match self {
            ValueTest::Eq(x) => eq(v, x),
            ValueTest::In(list) => list.contains(v),
            ValueTest::Range { lower, upper } => in_range(v, lower, upper),
            ValueTest::Like(p) => match v {
                Value::String(text) => p.matches(text),
                other => p.matches(&other.to_string()),
            },
            ValueTest::Regex(r) => match v {
                Value::String(text) => r.is_match(text),
                other => r.is_match(&other.to_string()),
            },
            ValueTest::Text(query) => match v {
                Value::String(text) => query.matches_values([text.as_str()]),
                other => query.matches_values([other.to_string().as_str()]),
            },
            ValueTest::Truth => truth(v) == Some(true),
        }
    }

    /// Whether a value passes; an array passes if any element does.
    pub fn test(&self, v: &Value) -> bool {
        match (v, self) {
            // A text query reads a multi-value cell's values as one text, as a text index does.
            (Value::Array(items), ValueTest::Text(q)) => {
                let texts: Vec<String> = items.iter().map(Value::to_string).collect();
                q.matches_values(texts.iter().map(String::as_str))
            }
            (Value::Array(items), _) => items.iter().any(|i| self.test_scalar(i)),
            (other, _) => self.test_scalar(other),
        }
    }
}

fn eq(a: &Value, b: &Value) -> bool {
    a == b || compare(a, b) == Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_values() {
        let texts = ValueTest::new(&PredicateOp::In(vec![
            Value::String("13".into()),
            Value::String("31".into()),
        ]))
        .unwrap();
        assert!(texts.test(&Value::String("31".into())));
        assert!(!texts.test(&Value::String("3".into())));
        let t = ValueTest::new(&PredicateOp::In(vec![Value::Int(1), Value::Int(3)])).unwrap();
        assert!(t.test(&Value::Int(3)));
        assert!(!t.test(&Value::Int(2)));
        assert!(t.test(&Value::Array(vec![Value::Int(2), Value::Int(1)])));
        assert!(!t.test(&Value::Null));
        let r = ValueTest::new(&PredicateOp::Range {
            lower: Some(RangeBound::exclusive(Value::Int(1))),
            upper: None,
        })
        .unwrap();
        assert!(r.test(&Value::Int(2)));
        assert!(!r.test(&Value::Int(1)));
        let re = ValueTest::new(&PredicateOp::RegexpLike {
            pattern: "^ab".into(),
            case_insensitive: true,
        })
        .unwrap();
        assert!(re.test(&Value::String("ABc".into())));
        let bad = ValueTest::new(&PredicateOp::RegexpLike {
            pattern: "(".into(),
            case_insensitive: false,
        });
        assert_eq!(bad.unwrap_err().code().code(), 700);
        let like = ValueTest::new(&PredicateOp::Like {
            pattern: "a%".into(),
            escape: None,
        })
        .unwrap();
        assert!(like.test(&Value::String("abc".into())));
        let m = planner::plan::text_match::TextMatch::parse("c", "Quick AND fox", None).unwrap();
        let text = ValueTest::new(&PredicateOp::TextMatch(Box::new(m))).unwrap();
        assert!(text.test(&Value::String("the quick brown fox".into())));
        assert!(!text.test(&Value::String("the quick brown dog".into())));
        assert!(ValueTest::Truth.test(&Value::Boolean(true)));
        let m = planner::plan::json_match::JsonMatch::parse("\"$.a\" = 1").unwrap();
        assert!(ValueTest::new(&PredicateOp::JsonMatch(Box::new(m))).is_err());
        assert_eq!(
            positive_form(&PredicateOp::NotEq(Value::Int(1))),
            (Cow::Owned(PredicateOp::Eq(Value::Int(1))), true)
        );
    }
}
