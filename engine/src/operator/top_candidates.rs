//! Typed first-key pre-pass of `ORDER BY … LIMIT k` selections: narrows a segment's documents
//! to those that can still be among its top `k` rows, without building a row per document.
//!
//! It applies when the first sort key is a plain single-value column stored as dictionary ids
//! (ids are ranks in the sorted dictionary, so they compare in value order; BIG_DECIMAL is
//! left out because its dictionary can hold distinct texts of equal value) or as raw
//! INT/LONG/BOOLEAN/TIMESTAMP/FLOAT/DOUBLE values. The column is read alone, block by block,
//! and each row becomes one `u128` rank — NULL class (null handling only), then the value
//! mapped to an unsigned order-preserving integer, flipped for DESC — so that a smaller rank is
//! a better row exactly as [`crate::sort::compare_key`] orders them (floats by `total_cmp`).
//! Over a whole range of documents, dictionary ids without NULLs that matter (a top-k over
//! an unfiltered segment) are read in bulk into one buffer, and once a bound is set rows are
//! passed over 16 at a time by one branch-free test on the 32-bit ids.
//!
//! Candidates are `(rank, doc)` pairs; every so often the `k`-th best one sets a bound and
//! worse ones are dropped. With a single sort key ties go to the lower doc (arrival order), so
//! exactly `k` survive; with later sort keys every row tying the `k`-th best first key
//! survives, for the later keys to decide. The survivors are then ordered by the general row
//! path, which therefore returns the same rows as it would over all documents.

use super::doc_set::DocSet;
use super::plain_column;
use super::projection::ColumnSource;
use crate::block::{BLOCK_SIZE, ColumnData};
use crate::context::QueryContext;
use crate::error::EngineError;
use planner::plan::{Expr, SortKey};
use roaring::RoaringBitmap;
use segments::dictionary::Dictionary;
use segments::forward::ForwardIndex;
use segments::segment::ImmutableSegment;
use segments::types::{DataType, DocId, StoredType};

/// The documents the pre-pass kept.
pub struct Candidates {
    /// A superset of the segment's top `limit` rows.
    pub docs: DocSet,
    /// Documents read for the first key (all of the input).
    pub docs_scanned: u64,
}

/// How the first key's stored values become ranks.
#[derive(Clone, Copy, Debug, PartialEq)]
enum KeyKind {
    /// Dictionary ids.
    DictId,
    /// Raw integral values (BOOLEAN as 0/1).
    Integral { boolean: bool },
    /// Raw floating values (FLOAT compared as `f32`).
    Floating { float32: bool },
}

fn key_kind(segment: &ImmutableSegment, column: &str) -> Option<KeyKind> {
    let reader = segment.column(column)?;
    if !reader.is_single_value() {
        return None;
    }
    match (reader.forward(), reader.dictionary()) {
        (ForwardIndex::Dict(_), Some(Dictionary::BigDecimal(_))) => None,
        (ForwardIndex::Dict(_), Some(_)) => Some(KeyKind::DictId),
        (ForwardIndex::Raw(_), _) => {
            let data_type = reader.data_type();
            match data_type.stored() {
                StoredType::Int | StoredType::Long => Some(KeyKind::Integral {
                    boolean: data_type == DataType::Boolean,
                }),
                StoredType::Float | StoredType::Double => Some(KeyKind::Floating {
                    float32: data_type == DataType::Float,
                }),
                _ => None,
            }
        }
        _ => None,
    }
}

/// An `i64` as an unsigned integer of the same order.
fn ordered_i64(v: i64) -> u64 {
    (v as u64) ^ (1 << 63)
}

/// An `f64` as an unsigned integer ordered like `f64::total_cmp`.
fn ordered_f64(v: f64) -> u64 {
    let bits = v.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// An `f32` as an unsigned integer ordered like `f32::total_cmp`.
fn ordered_f32(v: f32) -> u64 {
    let bits = v.to_bits();
    (if bits >> 31 == 1 {
        !bits
    } else {
        bits | (1 << 31)
    }) as u64
}

/// The running set of candidates.
struct Narrower {
    limit: usize,
    /// Only one sort key: ties go by doc, so exactly `limit` candidates are needed.
    single_key: bool,
    /// XOR applied to value ranks (all ones for DESC).
    flip: u64,
    /// Rank class of non-NULL and NULL rows (the high 64 bits).
    value_class: u128,
    null_class: u128,
    /// Rows with a rank `< bound` are kept.
    bound: u128,
    candidates: Vec<(u128, DocId)>,
    /// Prune when this many candidates are held.
    capacity: usize,
}

impl Narrower {
    fn new(key: &SortKey, limit: usize, single_key: bool) -> Narrower {
        let (value_class, null_class) = if key.nulls_last { (0, 1) } else { (1, 0) };
        Narrower {
            limit,
            single_key,
            flip: if key.asc { 0 } else { u64::MAX },
            value_class: value_class << 64,
            null_class: null_class << 64,
            bound: u128::MAX,
            candidates: Vec::with_capacity(limit.saturating_mul(2).max(BLOCK_SIZE)),
            capacity: limit.saturating_mul(2).max(BLOCK_SIZE),
        }
    }

    /// Offers the rows of a block: `keys` yields each row's order-preserving value.
    #[inline]
    fn offer(&mut self, docs: &[DocId], keys: impl Iterator<Item = u64>, nulls: Option<&[bool]>) {
        match nulls {
            None => {
                // Every rank has the value class: compare the low 64 bits alone.
                if self.bound <= self.value_class {
                    return;
                }
                let below = self.bound - self.value_class;
                let (flip, class) = (self.flip, self.value_class);
                if below > u64::MAX as u128 {
                    for (&doc, k) in docs.iter().zip(keys) {
                        self.candidates.push((class | (k ^ flip) as u128, doc));
                    }
                } else {
                    let below = below as u64;
                    for (&doc, k) in docs.iter().zip(keys) {
                        let low = k ^ flip;
                        if low < below {
                            self.candidates.push((class | low as u128, doc));
                        }
                    }
                }
            }
            Some(nulls) => {
                for ((&doc, k), &null) in docs.iter().zip(keys).zip(nulls) {
                    let rank = if null {
                        self.null_class
                    } else {
                        self.value_class | (k ^ self.flip) as u128
                    };
                    if rank < self.bound {
                        self.candidates.push((rank, doc));
                    }
                }
            }
        }
        self.settle();
    }

    /// Offers a run of rows by dictionary id, without NULLs: row `i` is doc `first + i`.
    /// Ids are 32 bits, so a rank's low half is `offset + (id ^ flip32)`, and rows that cannot
    /// be kept are passed over [`SKIP`] at a time with one branch-free test.
    fn offer_ids(&mut self, first: DocId, ids: &[u32]) {
        /// Rows tested together.
        const SKIP: usize = 16;
        if self.bound <= self.value_class {
            return;
        }
        let below = self.bound - self.value_class;
        let (flip, class) = (self.flip as u32, self.value_class);
        let offset = if flip == 0 {
            0
        } else {
            u64::MAX - u32::MAX as u64
        };
        let below = (below.min(u64::MAX as u128) as u64).saturating_sub(offset);
        if below > u32::MAX as u64 {
            let ranks = ids
                .iter()
                .map(|&id| class | (offset + (id ^ flip) as u64) as u128);
            self.candidates.extend(ranks.zip(first..));
        } else {
            let below = below as u32;
            for (run, chunk) in (first..).step_by(SKIP).zip(ids.chunks(SKIP)) {
                if chunk
                    .iter()
                    .fold(false, |any, &id| any | ((id ^ flip) < below))
                {
                    for (doc, &id) in (run..).zip(chunk) {
                        let low = id ^ flip;
                        if low < below {
                            self.candidates
                                .push((class | (offset + low as u64) as u128, doc));
                        }
                    }
                }
            }
        }
        self.settle();
    }

    /// Prunes once enough candidates are held.
    fn settle(&mut self) {
        if self.candidates.len() >= self.capacity {
            self.prune();
            if self.candidates.len() * 2 > self.capacity {
                // Many ties at the bound: grow rather than prune again and again.
                self.capacity *= 2;
            }
        }
    }

    /// Drops the candidates worse than the `limit`-th best.
    fn prune(&mut self) {
        if self.candidates.len() <= self.limit {
            return;
        }
        let nth = self.limit - 1;
        self.candidates.select_nth_unstable(nth);
        let (rank, _) = self.candidates[nth];
        if self.single_key {
            // Later documents tying the bound arrive after it and lose.
            self.candidates.truncate(self.limit);
            self.bound = rank;
        } else {
            self.bound = rank + 1;
            let bound = self.bound;
            self.candidates.retain(|&(r, _)| r < bound);
        }
    }

    fn finish(mut self) -> RoaringBitmap {
        self.prune();
        let mut docs: Vec<DocId> = self.candidates.into_iter().map(|(_, d)| d).collect();
        docs.sort_unstable();
        RoaringBitmap::from_sorted_iter(docs).unwrap_or_default()
    }
}

/// Narrows `docs` to the candidates for the top `limit` rows by `order_by`, whose first key is
/// `first_expr`; `None` if the first key is not a plain typed column (or narrowing cannot help).
pub fn narrow(
    first_expr: &Expr,
    order_by: &[SortKey],
    limit: usize,
    segment: &ImmutableSegment,
    docs: &DocSet,
    ctx: &QueryContext,
) -> Result<Option<Candidates>, EngineError> {
    let (Expr::Column(column), Some(first)) = (first_expr, order_by.first()) else {
        return Ok(None);
    };
    if limit == 0 || docs.len() <= limit as u64 || !column.column_type.single_value {
        return Ok(None);
    }
    let Some(kind) = key_kind(segment, &column.name) else {
        return Ok(None);
    };
    let mut narrower = Narrower::new(first, limit, order_by.len() == 1);
    if let (KeyKind::DictId, DocSet::Range(range)) = (kind, docs)
        && let Some(col) = plain_column(segment, &column.name, ctx.null_handling())
        && let ForwardIndex::Dict(fwd) = col.forward()
    {
        // All documents of a range, ids without NULLs that matter: read in bulk into one
        // buffer, each row's doc is its place in the range (no doc lists, no projection).
        let mut ids = Vec::with_capacity(BLOCK_SIZE);
        for first in range.clone().step_by(BLOCK_SIZE) {
            ctx.check()?;
            let end = first.saturating_add(BLOCK_SIZE as DocId).min(range.end);
            ids.resize((end - first) as usize, 0);
            fwd.read_range(first, &mut ids);
            narrower.offer_ids(first, &ids);
        }
        return Ok(Some(Candidates {
            docs: DocSet::bitmap(narrower.finish()),
            docs_scanned: docs.len(),
        }));
    }
    let mut source = ColumnSource::new(segment, column, None, &ctx.options);
    let mut docs_scanned = 0u64;
    for block in docs.blocks() {
        ctx.check()?;
        docs_scanned += block.len() as u64;
        let projected = source.read(&block);
        let nulls = projected.nulls.as_deref();
        match (&projected.data, kind) {
            (ColumnData::Dict { ids, .. }, KeyKind::DictId) => {
                narrower.offer(&block, ids.iter().map(|&id| id as u64), nulls)
            }
            (ColumnData::I64(v), KeyKind::Integral { boolean: false }) => {
                narrower.offer(&block, v.iter().map(|&x| ordered_i64(x)), nulls)
            }
            (ColumnData::I64(v), KeyKind::Integral { boolean: true }) => {
                narrower.offer(&block, v.iter().map(|&x| (x != 0) as u64), nulls)
            }
            (ColumnData::F64(v), KeyKind::Floating { float32: false }) => {
                narrower.offer(&block, v.iter().map(|&x| ordered_f64(x)), nulls)
            }
            (ColumnData::F64(v), KeyKind::Floating { float32: true }) => {
                narrower.offer(&block, v.iter().map(|&x| ordered_f32(x as f32)), nulls)
            }
            _ => {
                return Err(EngineError::execution(format!(
                    "column '{}' read in an unexpected form",
                    column.name
                )));
            }
        }
    }
    Ok(Some(Candidates {
        docs: DocSet::bitmap(narrower.finish()),
        docs_scanned,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_ranks_follow_total_cmp() {
        let xs = [
            f64::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            1e-300,
            2.0,
            f64::INFINITY,
            f64::NAN,
        ];
        for w in xs.windows(2) {
            assert!(ordered_f64(w[0]) < ordered_f64(w[1]), "{w:?}");
            assert!(
                ordered_f32(w[0] as f32) <= ordered_f32(w[1] as f32),
                "{w:?}"
            );
        }
        assert!(ordered_i64(i64::MIN) < ordered_i64(-1));
        assert!(ordered_i64(-1) < ordered_i64(0));
        assert!(ordered_i64(0) < ordered_i64(i64::MAX));
    }
}
