//! Evaluating a [`JsonFilter`] over flattened JSON records ([`JsonRecords`]): a segment's JSON
//! index (the engine's `JSON_MATCH`), or one document's records (`jsonExtractIndex`'s filter).
//!
//! Predicates and `AND`/`OR` combine flattened record ids, so conditions ANDed hold in one record
//! (one array element). `NOT_EQ`/`NOT_IN` keep records that hold the key with another value;
//! `IS NULL` is answered as "holds the key" here and flipped by the caller over documents.

use super::json_match::{JsonBound, JsonFilter, JsonOp, JsonPredicate, JsonRangeValue};
use regex::RegexBuilder;
use roaring::RoaringBitmap;
use segments::index::json::flatten::Record;
use std::cmp::Ordering;
use std::collections::HashMap;

/// Flattened records, looked up by posting key (`key` and `key\0value`, as the index stores
/// them).
pub trait JsonRecords {
    /// The records holding `key`.
    fn key(&self, key: &str) -> Option<RoaringBitmap>;
    /// The records whose `key` has the text `value`.
    fn key_value(&self, key: &str, value: &str) -> Option<RoaringBitmap>;
    /// Calls `f` with each value of `key` and its records.
    fn each_value(&self, key: &str, f: &mut dyn FnMut(&str, &RoaringBitmap));
}

impl JsonFilter {
    /// The records matching the filter (an `IS NULL` predicate: those holding its key).
    pub fn records(&self, r: &dyn JsonRecords) -> Result<RoaringBitmap, String> {
        match self {
            JsonFilter::And(parts) => {
                let mut out: Option<RoaringBitmap> = None;
                for p in parts {
                    let next = p.records(r)?;
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
                    out |= p.records(r)?;
                }
                Ok(out)
            }
            JsonFilter::Predicate(p) => p.records(r),
        }
    }
}

impl JsonPredicate {
    /// The records the predicate holds in (for `IS NULL`: those holding the key).
    pub fn records(&self, r: &dyn JsonRecords) -> Result<RoaringBitmap, String> {
        let mut elements: Option<RoaringBitmap> = None;
        for (index_key, n) in &self.key.elements {
            let Some(b) = r.key_value(index_key, n) else {
                return Ok(RoaringBitmap::new());
            };
            elements = Some(match elements {
                None => b,
                Some(e) => e & b,
            });
        }
        let key = self.key.key.as_str();
        let value = |v: &str| r.key_value(key, v).unwrap_or_default();
        let present = || r.key(key).unwrap_or_default();
        let any_of = |vs: &[String]| {
            let mut out = RoaringBitmap::new();
            for v in vs {
                if let Some(b) = r.key_value(key, v) {
                    out |= b;
                }
            }
            out
        };
        let mut hits = match &self.op {
            JsonOp::Eq(v) => value(v),
            JsonOp::NotEq(v) => present() - value(v),
            JsonOp::In(vs) => any_of(vs),
            JsonOp::NotIn(vs) => present() - any_of(vs),
            JsonOp::IsNotNull | JsonOp::IsNull => present(),
            JsonOp::Range { lower, upper } => {
                values_passing(r, key, |v| in_range(v, lower, upper))?
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
                        format!(
                            "invalid regular expression '{pattern}': {}",
                            e.to_string().lines().last().unwrap_or("invalid").trim()
                        )
                    })?;
                values_passing(r, key, |v| Ok(re.is_match(v)))?
            }
        };
        if let Some(e) = elements {
            hits &= e;
        }
        Ok(hits)
    }
}

/// The records whose `key` holds a value passing `test`.
fn values_passing(
    r: &dyn JsonRecords,
    key: &str,
    test: impl Fn(&str) -> Result<bool, String>,
) -> Result<RoaringBitmap, String> {
    let mut out = RoaringBitmap::new();
    let mut failed = None;
    r.each_value(key, &mut |v, records| match test(v) {
        Ok(true) => out |= records,
        Ok(false) => {}
        Err(e) => {
            failed.get_or_insert(e);
        }
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Whether `value` lies in the range: as a number when a bound is one (a value that is no
/// number is an error, as in Pinot), else as text.
fn in_range(
    value: &str,
    lower: &Option<JsonBound>,
    upper: &Option<JsonBound>,
) -> Result<bool, String> {
    let numeric = [lower, upper]
        .into_iter()
        .flatten()
        .any(|b| matches!(b.value, JsonRangeValue::Number(_)));
    let number = if numeric {
        Some(
            value
                .trim()
                .parse::<f64>()
                .map_err(|_| format!("Cannot convert value: '{value}' to type: DOUBLE"))?,
        )
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

/// One document's flattened records, record `i` being flattened id `i`.
pub struct DocumentRecords {
    postings: HashMap<String, RoaringBitmap>,
}

impl DocumentRecords {
    pub fn new(records: &[Record]) -> DocumentRecords {
        let mut postings: HashMap<String, RoaringBitmap> = HashMap::new();
        for (i, r) in records.iter().enumerate() {
            for (k, v) in r {
                postings.entry(k.clone()).or_default().insert(i as u32);
                postings
                    .entry(format!("{k}\0{v}"))
                    .or_default()
                    .insert(i as u32);
            }
        }
        DocumentRecords { postings }
    }
}

impl JsonRecords for DocumentRecords {
    fn key(&self, key: &str) -> Option<RoaringBitmap> {
        self.postings.get(key).cloned()
    }

    fn key_value(&self, key: &str, value: &str) -> Option<RoaringBitmap> {
        self.postings.get(&format!("{key}\0{value}")).cloned()
    }

    fn each_value(&self, key: &str, f: &mut dyn FnMut(&str, &RoaringBitmap)) {
        let prefix = format!("{key}\0");
        for (k, records) in &self.postings {
            if let Some(v) = k.strip_prefix(&prefix) {
                f(v, records);
            }
        }
    }
}
