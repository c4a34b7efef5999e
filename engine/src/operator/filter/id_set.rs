//! [`IdSet`]: the dictionary ids a predicate accepts, computed once per segment. `=`/`IN`
//! are dictionary lookups, ranges are one binary search per bound ([`Dictionary::id_range`]),
//! pattern predicates test each dictionary entry once. Scans then compare ids, never values.

use super::value_test::ValueTest;
use crate::context::QueryContext;
use crate::error::EngineError;
use planner::plan::PredicateOp;
use segments::dictionary::Dictionary;
use segments::types::{DataType, DictId};
use std::ops::{Bound, Range};

/// Dictionary entries tested between two checks of the query's context.
const CHECK_EVERY: u32 = 4096;

/// Accepted dictionary ids.
#[derive(Clone, Debug, PartialEq)]
pub enum IdSet {
    /// A contiguous run of ids.
    Range(Range<DictId>),
    /// Sorted, distinct ids.
    Ids(Vec<DictId>),
}

/// A membership test over ids, built for scans.
pub enum IdLookup {
    Range(Range<DictId>),
    Bits(Vec<bool>),
}

impl IdLookup {
    /// Whether `id` is accepted.
    #[inline]
    pub fn contains(&self, id: DictId) -> bool {
        match self {
            IdLookup::Range(r) => r.contains(&id),
            IdLookup::Bits(b) => b.get(id as usize).copied().unwrap_or(false),
        }
    }
}

impl IdSet {
    /// Number of accepted ids.
    pub fn len(&self) -> usize {
        match self {
            IdSet::Range(r) => r.len(),
            IdSet::Ids(v) => v.len(),
        }
    }

    /// Whether no id is accepted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether every id of a `cardinality`-entry dictionary is accepted.
    pub fn covers(&self, cardinality: u32) -> bool {
        self.len() == cardinality as usize
    }

    /// The ids, ascending.
    pub fn iter(&self) -> Box<dyn Iterator<Item = DictId> + '_> {
        match self {
            IdSet::Range(r) => Box::new(r.clone()),
            IdSet::Ids(v) => Box::new(v.iter().copied()),
        }
    }

    /// A lookup table for scans over a `cardinality`-entry dictionary.
    pub fn lookup(&self, cardinality: u32) -> IdLookup {
        match self {
            IdSet::Range(r) => IdLookup::Range(r.clone()),
            IdSet::Ids(v) => {
                let mut bits = vec![false; cardinality as usize];
                for &id in v {
                    if let Some(b) = bits.get_mut(id as usize) {
                        *b = true;
                    }
                }
                IdLookup::Bits(bits)
            }
        }
    }

    /// The ids of `dict` a positive predicate accepts.
    pub fn for_predicate(
        op: &PredicateOp,
        dict: &Dictionary,
        ctx: &QueryContext,
    ) -> Result<IdSet, EngineError> {
        Ok(match op {
            PredicateOp::Eq(v) => IdSet::Range(dict.equal_range(v).unwrap_or(0..0)),
            PredicateOp::In(values) => {
                let mut ids = dict.ids_of(values);
                if !ids.is_sorted_by(|a, b| a < b) {
                    ids.sort_unstable();
                    ids.dedup();
                }
                IdSet::Ids(ids)
            }
            PredicateOp::Range { lower, upper } => {
                let bound = |b: &Option<planner::plan::RangeBound>| match b {
                    None => Bound::Unbounded,
                    Some(b) if b.inclusive => Bound::Included(b.value.clone()),
                    Some(b) => Bound::Excluded(b.value.clone()),
                };
                let (lo, hi) = (bound(lower), bound(upper));
                IdSet::Range(dict.id_range(lo.as_ref(), hi.as_ref()))
            }
            other => {
                // A test per entry (LIKE, REGEXP_LIKE, …): a large dictionary takes a while,
                // so the query's deadline (and an inline budget) is checked as it goes.
                let test = ValueTest::new(other)?;
                let text = dict.data_type() == DataType::String;
                let mut ids = Vec::new();
                for id in 0..dict.len() {
                    if id % CHECK_EVERY == 0 {
                        ctx.check()?;
                    }
                    let passes = match text {
                        true => {
                            let bytes = dict.bytes_at(id);
                            let s = std::str::from_utf8(&bytes).ok();
                            s.and_then(|s| test.test_text(s))
                        }
                        false => None,
                    };
                    if passes.unwrap_or_else(|| test.test_scalar(&dict.value(id))) {
                        ids.push(id);
                    }
                }
                IdSet::Ids(ids)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups() {
        let s = IdSet::Ids(vec![1, 3]);
        let l = s.lookup(5);
        assert!(l.contains(1) && l.contains(3) && !l.contains(2) && !l.contains(9));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![1, 3]);
        let r = IdSet::Range(2..4);
        assert!(r.lookup(5).contains(3));
        assert!(!r.covers(5));
        assert!(IdSet::Range(0..5).covers(5));
        assert!(IdSet::Ids(vec![]).is_empty());
    }
}
