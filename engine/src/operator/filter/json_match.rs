//! `JSON_MATCH` answered by a column's JSON index: the planned [`JsonFilter`] evaluated over
//! the index's flattened records, then mapped to their documents (Pinot's
//! `JsonMatchFilterOperator` over `ImmutableJsonIndexReader`).
//!
//! Predicates and `AND`/`OR` combine flattened ids, so conditions ANDed hold in one record (one
//! array element). `NOT_EQ`/`NOT_IN` keep records that hold the key with another value; an
//! `IS NULL` filter (only ever the whole filter) is the documents with no record holding the key.

use crate::error::EngineError;
use planner::plan::error::PlanError;
use planner::plan::json_match::{
    JsonBound, JsonFilter, JsonMatch, JsonOp, JsonPredicate, JsonRangeValue,
};
use regex::RegexBuilder;
use roaring::RoaringBitmap;
use segments::index::JsonIndexReader;
use std::cmp::Ordering;

/// The documents (of a segment of `total_docs`) matching `m`.
pub fn matching_docs(
    reader: &JsonIndexReader,
    m: &JsonMatch,
    total_docs: u32,
) -> Result<RoaringBitmap, EngineError> {
    if let (true, JsonFilter::Predicate(p)) = (m.is_null_test(), &m.filter) {
        let present = reader.docs_of(&records(reader, p)?);
        let mut all = RoaringBitmap::new();
        all.insert_range(0..total_docs);
        return Ok(all - present);
    }
    Ok(reader.docs_of(&flattened(reader, &m.filter)?))
}

/// The flattened ids matching `f`.
fn flattened(reader: &JsonIndexReader, f: &JsonFilter) -> Result<RoaringBitmap, EngineError> {
    match f {
        JsonFilter::And(parts) => {
            let mut out: Option<RoaringBitmap> = None;
            for p in parts {
                let next = flattened(reader, p)?;
                let merged = match out {
                    None => next,
                    Some(acc) => acc & next,
                };
                if merged.is_empty() {
                    return Ok(merged);
                }
                out = Some(merged);
            }
            Ok(out.unwrap_or_default())
        }
        JsonFilter::Or(parts) => {
            let mut out = RoaringBitmap::new();
            for p in parts {
                out |= flattened(reader, p)?;
            }
            Ok(out)
        }
        JsonFilter::Predicate(p) => records(reader, p),
    }
}

/// The records a predicate holds in (for `IS NULL`: those holding the key).
fn records(reader: &JsonIndexReader, p: &JsonPredicate) -> Result<RoaringBitmap, EngineError> {
    let mut elements: Option<RoaringBitmap> = None;
    for (index_key, n) in &p.key.elements {
        let Some(b) = reader.key_value(index_key, n) else {
            return Ok(RoaringBitmap::new());
        };
        elements = Some(match elements {
            None => (*b).clone(),
            Some(e) => e & &*b,
        });
    }
    let key = p.key.key.as_str();
    let value = |v: &str| {
        reader
            .key_value(key, v)
            .map(|b| (*b).clone())
            .unwrap_or_default()
    };
    let present = || reader.key(key).map(|b| (*b).clone()).unwrap_or_default();
    let any_of = |vs: &[String]| {
        let mut out = RoaringBitmap::new();
        for v in vs {
            if let Some(b) = reader.key_value(key, v) {
                out |= &*b;
            }
        }
        out
    };
    let mut hits = match &p.op {
        JsonOp::Eq(v) => value(v),
        JsonOp::NotEq(v) => present() - value(v),
        JsonOp::In(vs) => any_of(vs),
        JsonOp::NotIn(vs) => present() - any_of(vs),
        JsonOp::IsNotNull | JsonOp::IsNull => present(),
        JsonOp::Range { lower, upper } => {
            values_passing(reader, key, |v| in_range(v, lower, upper))?
        }
        JsonOp::Regexp {
            pattern,
            case_insensitive,
        } => {
            let re = RegexBuilder::new(&format!("^(?:{pattern})$"))
                .case_insensitive(*case_insensitive)
                .size_limit(1 << 22)
                .build()
                .map_err(|e| {
                    EngineError::Plan(PlanError::Validation(format!(
                        "invalid regular expression '{pattern}': {}",
                        e.to_string().lines().last().unwrap_or("invalid").trim()
                    )))
                })?;
            values_passing(reader, key, |v| Ok(re.is_match(v)))?
        }
    };
    if let Some(e) = elements {
        hits &= e;
    }
    Ok(hits)
}

/// The records whose `key` holds a value passing `test`.
fn values_passing(
    reader: &JsonIndexReader,
    key: &str,
    test: impl Fn(&str) -> Result<bool, EngineError>,
) -> Result<RoaringBitmap, EngineError> {
    let mut out = RoaringBitmap::new();
    for id in reader.values_of(key) {
        if test(&reader.value(key, id))? {
            out |= &*reader.posting(id);
        }
    }
    Ok(out)
}

/// Whether `value` lies in the range: as a number when a bound is one (a value that is no
/// number is an error, as in Pinot), else as text.
fn in_range(
    value: &str,
    lower: &Option<JsonBound>,
    upper: &Option<JsonBound>,
) -> Result<bool, EngineError> {
    let numeric = [lower, upper]
        .into_iter()
        .flatten()
        .any(|b| matches!(b.value, JsonRangeValue::Number(_)));
    let number = if numeric {
        Some(value.trim().parse::<f64>().map_err(|_| {
            EngineError::execution(format!("Cannot convert value: '{value}' to type: DOUBLE"))
        })?)
    } else {
        None
    };
    let compare = |b: &JsonBound| -> Ordering {
        match (&b.value, number) {
            (JsonRangeValue::Number(n), Some(v)) => v.total_cmp(n),
            (JsonRangeValue::Text(t), Some(v)) => match t.parse::<f64>() {
                Ok(n) => v.total_cmp(&n),
                Err(_) => value.cmp(t.as_str()),
            },
            (JsonRangeValue::Text(t), None) => value.cmp(t.as_str()),
            (JsonRangeValue::Number(n), None) => value.cmp(n.to_string().as_str()),
        }
    };
    let above = lower.as_ref().is_none_or(|b| match compare(b) {
        Ordering::Greater => true,
        Ordering::Equal => b.inclusive,
        Ordering::Less => false,
    });
    let below = upper.as_ref().is_none_or(|b| match compare(b) {
        Ordering::Less => true,
        Ordering::Equal => b.inclusive,
        Ordering::Greater => false,
    });
    Ok(above && below)
}
