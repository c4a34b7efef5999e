//! [`RawTest`]: a positive predicate compiled for scanning a raw (no-dictionary) column —
//! integer or float comparisons on the native values for numeric columns, generic value
//! tests otherwise.

use super::value_test::ValueTest;
use crate::error::EngineError;
use planner::plan::PredicateOp;
use segments::types::{StoredType, Value};
use std::collections::HashSet;

/// A scan test over raw values.
pub enum RawTest {
    /// Inclusive `i64` bounds (`=` is `lo == hi`).
    IntRange(i64, i64),
    IntSet(HashSet<i64>),
    FloatRange(Option<(f64, bool)>, Option<(f64, bool)>),
    FloatSet(Vec<f64>),
    Value(ValueTest),
}

impl RawTest {
    /// Compiles a positive predicate for a raw column stored as `stored`.
    pub fn new(op: &PredicateOp, stored: StoredType) -> Result<RawTest, EngineError> {
        let integral = matches!(stored, StoredType::Int | StoredType::Long);
        let floating = matches!(stored, StoredType::Float | StoredType::Double);
        let as_i64 = |v: &Value| match v {
            Value::Boolean(b) => Some(*b as i64),
            other => other.as_i64(),
        };
        match op {
            PredicateOp::Eq(v) if integral => {
                if let Some(i) = as_i64(v) {
                    return Ok(RawTest::IntRange(i, i));
                }
            }
            PredicateOp::In(vs) if integral => {
                if let Some(set) = vs.iter().map(as_i64).collect::<Option<HashSet<i64>>>() {
                    return Ok(RawTest::IntSet(set));
                }
            }
            PredicateOp::Range { lower, upper } if integral => {
                let lo = match lower {
                    None => Some(i64::MIN),
                    Some(b) => as_i64(&b.value)
                        .map(|x| {
                            if b.inclusive {
                                Some(x)
                            } else {
                                x.checked_add(1)
                            }
                        })
                        .unwrap_or(None),
                };
                let hi = match upper {
                    None => Some(i64::MAX),
                    Some(b) => as_i64(&b.value)
                        .map(|x| {
                            if b.inclusive {
                                Some(x)
                            } else {
                                x.checked_sub(1)
                            }
                        })
                        .unwrap_or(None),
                };
                match (lo, hi) {
                    (Some(lo), Some(hi)) => return Ok(RawTest::IntRange(lo, hi)),
                    _ => return Ok(RawTest::IntSet(HashSet::new())),
                }
            }
            PredicateOp::Eq(v) if floating => {
                if let Some(f) = v.as_f64() {
                    return Ok(RawTest::FloatSet(vec![f]));
                }
            }
            PredicateOp::In(vs) if floating => {
                if let Some(list) = vs.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>() {
                    return Ok(RawTest::FloatSet(list));
                }
            }
            PredicateOp::Range { lower, upper } if floating => {
                let b = |x: &Option<planner::plan::RangeBound>| {
                    x.as_ref()
                        .and_then(|b| b.value.as_f64().map(|f| (f, b.inclusive)))
                };
                return Ok(RawTest::FloatRange(b(lower), b(upper)));
            }
            _ => {}
        }
        Ok(RawTest::Value(ValueTest::new(op)?))
    }

    /// Tests an integer value.
    #[inline]
    pub fn test_i64(&self, x: i64) -> bool {
        match self {
            RawTest::IntRange(lo, hi) => *lo <= x && x <= *hi,
            RawTest::IntSet(s) => s.contains(&x),
            RawTest::Value(t) => t.test(&Value::Long(x)),
            other => other.test_f64(x as f64),
        }
    }

    /// Tests a floating value.
    #[inline]
    pub fn test_f64(&self, x: f64) -> bool {
        match self {
            RawTest::FloatRange(lo, hi) => {
                lo.is_none_or(|(l, inc)| if inc { x >= l } else { x > l })
                    && hi.is_none_or(|(h, inc)| if inc { x <= h } else { x < h })
            }
            RawTest::FloatSet(list) => list.contains(&x),
            RawTest::IntRange(lo, hi) => x.fract() == 0.0 && (*lo as f64) <= x && x <= (*hi as f64),
            RawTest::IntSet(s) => x.fract() == 0.0 && s.contains(&(x as i64)),
            RawTest::Value(t) => t.test(&Value::Double(x)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::plan::RangeBound;

    #[test]
    fn integral_and_floating_tests() {
        let t = RawTest::new(
            &PredicateOp::Range {
                lower: Some(RangeBound::exclusive(Value::Long(5))),
                upper: Some(RangeBound::inclusive(Value::Long(7))),
            },
            StoredType::Long,
        )
        .unwrap();
        assert!(!t.test_i64(5) && t.test_i64(6) && t.test_i64(7) && !t.test_i64(8));
        let t = RawTest::new(
            &PredicateOp::In(vec![Value::Int(1), Value::Int(4)]),
            StoredType::Int,
        )
        .unwrap();
        assert!(t.test_i64(4) && !t.test_i64(2));
        let t = RawTest::new(
            &PredicateOp::Range {
                lower: None,
                upper: Some(RangeBound::exclusive(Value::Double(1.5))),
            },
            StoredType::Double,
        )
        .unwrap();
        assert!(t.test_f64(1.4) && !t.test_f64(1.5));
        let t = RawTest::new(&PredicateOp::Eq(Value::Float(1.1)), StoredType::Float).unwrap();
        assert!(t.test_f64(1.1f32 as f64));
        let t = RawTest::new(
            &PredicateOp::Like {
                pattern: "1%".into(),
                escape: None,
            },
            StoredType::Int,
        )
        .unwrap();
        assert!(matches!(t, RawTest::Value(_)));
        let never = RawTest::new(
            &PredicateOp::Range {
                lower: Some(RangeBound::exclusive(Value::Long(i64::MAX))),
                upper: None,
            },
            StoredType::Long,
        )
        .unwrap();
        assert!(!never.test_i64(i64::MAX));
    }
}
