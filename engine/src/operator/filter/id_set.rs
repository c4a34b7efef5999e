//! [`IdSet`]: the dictionary ids a predicate accepts, computed once per segment. `=`/`IN`
//! are dictionary lookups, ranges are one binary search per bound ([`Dictionary::id_range`]),
//! pattern predicates test each dictionary entry once (a large dictionary's entries in runs,
//! one per pool thread). Scans then compare ids, never values.

use super::value_test::ValueTest;
use crate::context::QueryContext;
use crate::error::EngineError;
use planner::plan::PredicateOp;
use rayon::prelude::*;
use segments::dictionary::Dictionary;
use segments::dictionary::blocks::ValueBlocks;
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
                // so its entries are cut into runs tested in parallel (whole compressed blocks
                // each), and the query's deadline (and an inline budget) is checked as it goes.
                let test = ValueTest::new(other)?;
                IdSet::Ids(entries_passing(dict, &test, None, ctx)?)
            }
        })
    }
}

/// A text function's view of an entry's bytes (`substring(c_phone, 1, 2)`, borrowed from the
/// entry); `None` where it cannot be taken.
pub type EntryView<'v> = &'v (dyn for<'b> Fn(&'b [u8]) -> Option<&'b [u8]> + Sync);

/// The ids of `dict` whose entry — or its `view` — passes `test`, ascending: a large dictionary
/// is cut into runs tested in parallel (whole compressed blocks each), and the query's
/// deadline (and an inline budget) is checked as it goes. With a view, text tests only
/// (`ValueTest::test_text`), and an entry without a view fails it.
pub fn entries_passing(
    dict: &Dictionary,
    test: &ValueTest,
    view: Option<EntryView<'_>>,
    ctx: &QueryContext,
) -> Result<Vec<DictId>, EngineError> {
    let runs = entry_runs(dict);
    let found: Vec<Result<Vec<DictId>, EngineError>> = if runs.len() > 1 {
        runs.into_par_iter()
            .map(|r| passing(dict, test, view, r, ctx))
            .collect()
    } else {
        runs.into_iter()
            .map(|r| passing(dict, test, view, r, ctx))
            .collect()
    };
    let mut ids = Vec::new();
    for f in found {
        ids.extend(f?);
    }
    Ok(ids)
}

/// Entries a run of a per-entry test has at least (below, one run).
const MIN_RUN_ENTRIES: u32 = 1 << 16;

/// A dictionary's ids cut into runs, one per pool thread, each of at least
/// [`MIN_RUN_ENTRIES`] entries and starting on a compressed block's first entry.
fn entry_runs(dict: &Dictionary) -> Vec<Range<DictId>> {
    let n = dict.len();
    let runs = (rayon::current_num_threads() as u32)
        .min(n / MIN_RUN_ENTRIES)
        .max(1);
    let align = block_values(dict).map_or(1, |b| b.block_len().max(1));
    let cut = |i: u32| (u64::from(n) * u64::from(i) / u64::from(runs)) as u32 / align * align;
    (0..runs)
        .map(|i| cut(i)..if i + 1 == runs { n } else { cut(i + 1) })
        .filter(|r| !r.is_empty())
        .collect()
}

/// The compressed blocks of a text dictionary's values, if it has them.
fn block_values(dict: &Dictionary) -> Option<&ValueBlocks> {
    match dict {
        Dictionary::String(d) => d.value_blocks(),
        _ => None,
    }
}

/// The ids of `run` whose entry (or its view) passes `test`: text tested on its bytes (a
/// compressed block decoded once for its entries), anything else as a value.
fn passing(
    dict: &Dictionary,
    test: &ValueTest,
    view: Option<EntryView<'_>>,
    run: Range<DictId>,
    ctx: &QueryContext,
) -> Result<Vec<DictId>, EngineError> {
    let text = dict.data_type() == DataType::String;
    let passes = |id: DictId, bytes: &[u8]| match view {
        Some(view) => view(bytes).and_then(|b| test.test_text(b)) == Some(true),
        None => text
            .then(|| test.test_text(bytes))
            .flatten()
            .unwrap_or_else(|| test.test_scalar(&dict.value(id))),
    };
    let mut ids = Vec::new();
    if let Some(blocks) = block_values(dict) {
        let len = blocks.block_len().max(1);
        let mut id = run.start;
        while id < run.end {
            ctx.check()?;
            let b = id / len;
            let block = blocks.block(b);
            let first = b * len;
            let last = (first + block.len() as u32).min(run.end);
            for at in id..last {
                if passes(at, block.get((at - first) as usize)) {
                    ids.push(at);
                }
            }
            id = last.max(id + 1);
        }
        return Ok(ids);
    }
    for id in run {
        if id % CHECK_EVERY == 0 {
            ctx.check()?;
        }
        if passes(id, &dict.bytes_at(id)) {
            ids.push(id);
        }
    }
    Ok(ids)
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
