//! Running a [`FilterNode`] tree to a [`DocSet`].
//!
//! Every node is evaluated against a candidate set and returns the matching subset. `AND`
//! narrows the candidates child by child — index-answered children first, the fewest
//! estimated documents first among them ([`FilterNode::share`]) — so a scan only reads
//! documents the indexes left, and a range or inverted index that meets candidates much
//! thinner than the documents its ids hold is not asked: the candidates' ids are scanned
//! instead ([`scan_instead`]); `OR` unions its children over the same candidates; `NOT`
//! subtracts. Scans count the entries they read
//! (`numEntriesScannedInFilter`) and check the query deadline once per block.
//!
//! A scan over dense candidates (a range, or a bitmap filling half its span) of a dictionary
//! or raw numeric column reads the span in bulk, turns each verdict into one bit and builds the
//! bitmap from the bits, then intersects with the candidates ([`FilterExecutor::span_bits`]);
//! a run of documents whose zone bounds (the column's zone map) say none or all of them pass
//! is skipped or accepted unread ([`zones`]). Sparse candidates are read document by document,
//! kept without a branch per document, each block of them settled by its zones first.

use super::RawTest;
use super::id_compare::IdCompare;
use super::id_set::IdLookup;
use super::zones::{self, Verdict};
use super::{Access, FilterNode, Leaf};
use crate::block::Block;
use crate::context::QueryContext;
use crate::error::EngineError;
use crate::operator::doc_set::DocSet;
use crate::operator::projection::ColumnSource;
use crate::operator::transform::evaluate;
use crate::pool_once::PoolOnce;
use roaring::RoaringBitmap;
use segments::forward::raw::RawForward;
use segments::forward::{DictIds, ForwardIndex};
use segments::index::{ZoneMap, Zones};
use segments::segment::{ColumnReader, ImmutableSegment};
use segments::types::{DocId, StoredType, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

/// Runs filter trees of one segment.
pub struct FilterExecutor<'s, 'q> {
    pub segment: &'s ImmutableSegment,
    pub ctx: &'q QueryContext,
    /// Entries read by scans so far.
    pub entries_scanned: u64,
    /// Index answers computed once for the whole segment (when its parts are filtered apart).
    shared: Option<&'q SharedIndexAnswers>,
}

/// The answers of a filter's index accesses over a whole segment — an inverted index's posting
/// lists, a range index's buckets — computed once, by the first part that asks, so executors
/// filtering the segment's parts in parallel cut their range from them instead of each
/// building the union over every document again; a part whose candidates are few scans
/// instead ([`scan_instead`]) and never asks. A part asking while another computes an answer
/// helps with the union's own parallel work ([`PoolOnce`]). Keyed by the leaf's access (the
/// tree outlives the executors).
#[derive(Default)]
pub struct SharedIndexAnswers {
    answers: HashMap<usize, PoolOnce<Result<Option<IndexAnswer>, EngineError>>>,
}

/// One index access's documents over the whole segment.
#[derive(Clone)]
enum IndexAnswer {
    Docs(DocSet),
    /// A range index's: matching for sure, and to confirm by a scan.
    Range {
        exact: DocSet,
        partial: DocSet,
    },
}

fn access_key(access: &Access<'_>) -> usize {
    access as *const Access<'_> as usize
}

/// The documents an index access answers over its whole segment (an inverted index's posting
/// lists, a range index's match); `None` for an access no index answers.
fn index_answer(access: &Access<'_>) -> Result<Option<IndexAnswer>, EngineError> {
    Ok(Some(match access {
        Access::Inverted { reader, ids, .. } => IndexAnswer::Docs(match ids {
            // One value: the index's decoded posting list, shared, not copied.
            super::IdSet::Ids(v) => DocSet::Bitmap(reader.union_shared(v)),
            super::IdSet::Range(r) if r.len() == 1 => DocSet::Bitmap(reader.shared(r.start)),
            super::IdSet::Range(_) => DocSet::bitmap(reader.union(ids.iter())),
        }),
        Access::RangeIndex { reader, ids, .. } => {
            let m = reader.matching(ids.clone());
            IndexAnswer::Range {
                exact: DocSet::bitmap(m.exact),
                partial: DocSet::bitmap(m.partial),
            }
        }
        Access::RangeIndexRaw {
            reader,
            lower,
            upper,
            ..
        } => {
            let m = reader.matching_values(lower.as_ref(), upper.as_ref());
            IndexAnswer::Range {
                exact: DocSet::bitmap(m.exact),
                partial: DocSet::bitmap(m.partial),
            }
        }
        Access::JsonIndex {
            reader,
            filter,
            total_docs,
        } => IndexAnswer::Docs(DocSet::bitmap(super::json_match::matching_docs(
            reader,
            filter,
            *total_docs,
        )?)),
        Access::TextIndex {
            reader,
            query,
            segment,
            column,
        } => {
            let options = planner::plan::ExecutionOptions::default();
            let mut source = ColumnSource::new(segment, column, None, &options);
            let mut texts = |docs: &RoaringBitmap| -> Result<Vec<(u32, Vec<String>)>, EngineError> {
                let docs: Vec<DocId> = docs.iter().collect();
                let values = source.read(&docs);
                Ok(docs
                    .iter()
                    .enumerate()
                    .map(|(i, &d)| (d, text_values(values.value(i))))
                    .collect())
            };
            IndexAnswer::Docs(DocSet::bitmap(query.docs(
                reader,
                segment.total_docs(),
                &mut texts,
            )?))
        }
        _ => return Ok(None),
    }))
}

/// A value as the texts a text index analyzed: a multi-value cell's values, NULL as `null` (the
/// default value stored for it).
fn text_values(v: Value) -> Vec<String> {
    match v {
        Value::Array(items) => items.iter().map(Value::to_string).collect(),
        Value::Null => vec!["null".to_string()],
        other => vec![other.to_string()],
    }
}

impl SharedIndexAnswers {
    /// Room for the index answers of `node`'s leaves over their whole segment.
    pub fn of(node: &FilterNode<'_>) -> SharedIndexAnswers {
        let answers = node
            .leaves()
            .into_iter()
            .map(|leaf| (access_key(&leaf.access), PoolOnce::new()))
            .collect();
        SharedIndexAnswers { answers }
    }
}

/// How much thinner than the documents an index's ids hold the candidates must be spread for
/// a scan of their ids to beat the index: reading a candidate's id costs about what an index
/// union spends on a couple of documents.
const SCAN_OVER_INDEX: f64 = 2.0;

/// The column and ids to scan the candidates for instead of asking the index of `access`. An
/// index answers over the whole segment, in work about the documents its ids hold (taken as
/// the ids' share of the dictionary), while a scan reads the candidates' ids only; when the
/// candidates fill their span more than [`SCAN_OVER_INDEX`] times more thinly than that share,
/// the scan costs less: a join's key filter leaving a few documents of every block, against a
/// date range holding half the table. One inverted id is its posting list as stored (nothing
/// to build), so it stays with the index.
fn scan_instead<'s>(
    access: &Access<'s>,
    candidates: &DocSet,
) -> Option<(&'s ColumnReader, IdLookup)> {
    let (column, ids) = match access {
        Access::RangeIndex { ids, column, .. } => {
            (*column, Cow::Owned(super::IdSet::Range(ids.clone())))
        }
        Access::Inverted { ids, column, .. } if ids.len() > 1 => (*column, Cow::Borrowed(ids)),
        _ => return None,
    };
    let cardinality = column.dictionary()?.len();
    let share = access.share()?;
    let span = candidates.span()?;
    let thin = candidates.len() as f64 * SCAN_OVER_INDEX < share * span.len() as f64;
    thin.then(|| (column, ids.lookup(cardinality)))
}

impl<'s, 'q> FilterExecutor<'s, 'q> {
    /// An executor for `segment`.
    pub fn new(segment: &'s ImmutableSegment, ctx: &'q QueryContext) -> FilterExecutor<'s, 'q> {
        FilterExecutor {
            segment,
            ctx,
            entries_scanned: 0,
            shared: None,
        }
    }

    /// An executor for a part of `segment` that takes index unions from `shared`.
    pub fn sharing(
        segment: &'s ImmutableSegment,
        ctx: &'q QueryContext,
        shared: &'q SharedIndexAnswers,
    ) -> FilterExecutor<'s, 'q> {
        FilterExecutor {
            shared: Some(shared),
            ..FilterExecutor::new(segment, ctx)
        }
    }

    /// The documents of the segment matching `node`.
    pub fn run(&mut self, node: &FilterNode<'s>) -> Result<DocSet, EngineError> {
        let all = DocSet::all(self.segment.total_docs());
        self.run_within(node, &all)
    }

    /// The documents of `candidates` matching `node`.
    pub fn run_within(
        &mut self,
        node: &FilterNode<'s>,
        candidates: &DocSet,
    ) -> Result<DocSet, EngineError> {
        Ok(match node {
            FilterNode::MatchAll => candidates.clone(),
            FilterNode::Empty => DocSet::empty(),
            FilterNode::And(children) => {
                // Index answers before scans (as planned), and among them the fewest estimated
                // documents first: a later index then meets few candidates and may scan them
                // instead (a join's key filter before a date range holding half the table).
                let mut order: Vec<&FilterNode<'s>> = children.iter().collect();
                order.sort_by(|a, b| {
                    (a.scans().cmp(&b.scans())).then(a.share().total_cmp(&b.share()))
                });
                let mut current = candidates.clone();
                for c in order {
                    if current.is_empty() {
                        break;
                    }
                    current = self.run_within(c, &current)?;
                }
                current
            }
            FilterNode::Or(children) => {
                let mut out = DocSet::empty();
                for c in children {
                    let m = self.run_within(c, candidates)?;
                    out = out.or(&m);
                }
                out
            }
            FilterNode::Not { child, nulls } => {
                let m = self.run_within(child, candidates)?.to_bitmap();
                let mut out = candidates.clone().minus(&m);
                for n in nulls {
                    out = out.minus(n);
                }
                out
            }
            FilterNode::Leaf(leaf) => self.run_leaf(leaf, candidates)?,
        })
    }

    fn run_leaf(&mut self, leaf: &Leaf<'s>, candidates: &DocSet) -> Result<DocSet, EngineError> {
        let positive = self.positive(&leaf.access, candidates)?;
        let mut out = if leaf.negated {
            candidates.clone().minus(&positive.to_bitmap())
        } else {
            positive
        };
        if let Some(n) = leaf.nulls {
            out = out.minus(n);
        }
        Ok(out)
    }

    /// The candidates in an index's `answer` for `access`: a range index's partial buckets
    /// confirmed by scanning them.
    fn answer_within(
        &mut self,
        answer: IndexAnswer,
        access: &Access<'s>,
        candidates: &DocSet,
    ) -> Result<DocSet, EngineError> {
        let (exact, partial) = match answer {
            IndexAnswer::Docs(docs) => return Ok(docs.and(candidates)),
            IndexAnswer::Range { exact, partial } => (exact, partial),
        };
        let out = exact.and(candidates);
        let partial = partial.and(candidates);
        if partial.is_empty() {
            return Ok(out);
        }
        let confirmed = match access {
            Access::RangeIndex { ids, column, .. } => {
                let lookup = super::IdSet::Range(ids.clone())
                    .lookup(column.dictionary().map_or(0, |d| d.len()));
                self.scan_dict(column, &lookup, &partial)?
            }
            Access::RangeIndexRaw { column, test, .. } => self.scan_raw(column, test, &partial)?,
            _ => return Err(EngineError::execution("a range answer of another access")),
        };
        Ok(out.or(&confirmed))
    }

    /// The candidates matching the positive form of an access.
    fn positive(
        &mut self,
        access: &Access<'s>,
        candidates: &DocSet,
    ) -> Result<DocSet, EngineError> {
        // Index answers: shared by the segment's parts, or computed here; few candidates are
        // scanned instead, unless another part has already paid for the answer.
        let shared = self.shared.and_then(|s| s.answers.get(&access_key(access)));
        if shared.is_none_or(|a| a.get().is_none())
            && let Some((column, lookup)) = scan_instead(access, candidates)
        {
            return self.scan_dict(column, &lookup, candidates);
        }
        let answer = match shared {
            Some(a) => a.get_or_compute(|| index_answer(access)).clone()?,
            None => index_answer(access)?,
        };
        if let Some(answer) = answer {
            return self.answer_within(answer, access, candidates);
        }
        Ok(match access {
            Access::Constant(true) => candidates.clone(),
            Access::Constant(false) => DocSet::empty(),
            Access::Sorted { reader, ids } => {
                let set = match ids {
                    super::IdSet::Range(r) => DocSet::Range(reader.doc_range_of(r.clone())),
                    super::IdSet::Ids(v) => {
                        // Only the ids whose docs meet the candidates' span (a part of the
                        // segment when it is filtered in parts): ascending ids, ascending docs.
                        let v = match candidates.span() {
                            Some(span) => {
                                let a =
                                    v.partition_point(|&id| reader.doc_range(id).end <= span.start);
                                let n = v[a..]
                                    .partition_point(|&id| reader.doc_range(id).start < span.end);
                                &v[a..a + n]
                            }
                            None => &v[..0],
                        };
                        DocSet::of_ranges(v.iter().map(|&id| reader.doc_range(id)))
                    }
                };
                set.and(candidates)
            }
            Access::Inverted { .. }
            | Access::RangeIndex { .. }
            | Access::RangeIndexRaw { .. }
            | Access::JsonIndex { .. }
            | Access::TextIndex { .. } => {
                return Err(EngineError::execution("an index access without its answer"));
            }
            Access::DictScan { column, lookup } => self.scan_dict(column, lookup, candidates)?,
            Access::ColumnCompare { left, right, test } => {
                self.scan_compare(left, right, test, candidates)?
            }
            Access::RawScan { column, test } => self.scan_raw(column, test, candidates)?,
            Access::ExpressionIds { column, lookup, .. } => {
                self.scan_dict(column, lookup, candidates)?
            }
            Access::NullVector(nulls) => match nulls {
                Some(b) => DocSet::bitmap((*b).clone()).and(candidates),
                None => DocSet::empty(),
            },
            Access::Expression { expr, test } => {
                let segment = self.segment;
                let mut sources: Vec<ColumnSource<'s>> = expr
                    .columns()
                    .iter()
                    .map(|c| {
                        let mut s = ColumnSource::new(segment, c, None, &self.ctx.options);
                        s.decode_text_for(candidates.len());
                        s
                    })
                    .collect();
                let mut hits: Vec<DocId> = Vec::new();
                for docs in candidates.blocks() {
                    self.ctx.check()?;
                    self.entries_scanned += docs.len() as u64;
                    let columns = sources
                        .iter_mut()
                        .map(|s| (s.name.clone(), s.read(&docs)))
                        .collect();
                    let block = Block { docs, columns };
                    let values = evaluate(expr, &block)?;
                    for (i, &doc) in block.docs.iter().enumerate() {
                        let hit = match test {
                            None => values.is_null(i),
                            Some(t) => !values.is_null(i) && t.test(&values.value(i)),
                        };
                        if hit {
                            hits.push(doc);
                        }
                    }
                }
                DocSet::of_ascending(hits)
            }
        })
    }

    /// Scans dictionary ids of `candidates`.
    fn scan_dict(
        &mut self,
        column: &'s ColumnReader,
        lookup: &IdLookup,
        candidates: &DocSet,
    ) -> Result<DocSet, EngineError> {
        if let (ForwardIndex::Dict(f), Some(span)) = (column.forward(), candidates.dense_span()) {
            let zones = column.zone_map().and_then(ZoneMap::ids);
            let (hits, read) = self.scan_span(f, lookup, zones, span)?;
            self.entries_scanned += read.min(candidates.len());
            return Ok(within_candidates(hits, candidates));
        }
        let mut hits: Vec<DocId> = Vec::new();
        let mut ids: Vec<u32> = Vec::new();
        let zones = column.zone_map().and_then(ZoneMap::ids);
        for docs in candidates.blocks() {
            self.ctx.check()?;
            let verdict = zones::of_id_zones(zones, span_of(&docs), lookup);
            if settled(verdict, &docs, &mut hits) {
                continue;
            }
            self.entries_scanned += docs.len() as u64;
            match column.forward() {
                ForwardIndex::Dict(f) => {
                    ids.resize(docs.len(), 0);
                    if is_contiguous(&docs) {
                        f.read_range(docs[0], &mut ids);
                    } else {
                        f.read_docs(&docs, &mut ids);
                    }
                    let keep = ids.iter().map(|&id| lookup.contains(id));
                    extend_kept(&mut hits, &docs, keep);
                }
                ForwardIndex::DictMv(f) => {
                    for &doc in &docs {
                        f.read(doc, &mut ids);
                        if ids.iter().any(|&id| lookup.contains(id)) {
                            hits.push(doc);
                        }
                    }
                }
                ForwardIndex::Raw(_) => {
                    return Err(EngineError::execution(format!(
                        "column '{}' has no dictionary to scan",
                        column.name()
                    )));
                }
            }
        }
        Ok(DocSet::of_ascending(hits))
    }

    /// Scans the dictionary ids of two columns of `candidates`, keeping the documents whose
    /// pair `test` accepts.
    fn scan_compare(
        &mut self,
        left: &'s ColumnReader,
        right: &'s ColumnReader,
        test: &IdCompare,
        candidates: &DocSet,
    ) -> Result<DocSet, EngineError> {
        let (ForwardIndex::Dict(l), ForwardIndex::Dict(r)) = (left.forward(), right.forward())
        else {
            return Err(EngineError::execution(format!(
                "columns '{}' and '{}' have no dictionary ids to compare",
                left.name(),
                right.name()
            )));
        };
        self.entries_scanned += 2 * candidates.len();
        if let Some(span) = candidates.dense_span() {
            let run = SPAN_STEP.min(span.len());
            let (mut a, mut b) = (vec![0u32; run], vec![0u32; run]);
            let (hits, _) = self.span_bits(
                span,
                |_| Verdict::Read,
                |first, n, out| {
                    l.read_range(first, &mut a[..n]);
                    r.read_range(first, &mut b[..n]);
                    for (byte, (x8, y8)) in
                        out.iter_mut().zip(a[..n].chunks(8).zip(b[..n].chunks(8)))
                    {
                        let mut bits = 0u8;
                        for (j, (&x, &y)) in x8.iter().zip(y8).enumerate() {
                            bits |= (test.test(x, y) as u8) << j;
                        }
                        *byte = bits;
                    }
                },
            )?;
            return Ok(within_candidates(hits, candidates));
        }
        let mut hits: Vec<DocId> = Vec::new();
        let (mut a, mut b): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
        for docs in candidates.blocks() {
            self.ctx.check()?;
            a.resize(docs.len(), 0);
            b.resize(docs.len(), 0);
            l.read_docs(&docs, &mut a);
            r.read_docs(&docs, &mut b);
            let keep = a.iter().zip(&b).map(|(&x, &y)| test.test(x, y));
            extend_kept(&mut hits, &docs, keep);
        }
        Ok(DocSet::of_ascending(hits))
    }

    /// The documents of `span` whose dictionary id `lookup` accepts, skipping or accepting
    /// whole zones by their bounds (see [`Self::span_bits`]).
    fn scan_span(
        &self,
        f: &DictIds,
        lookup: &IdLookup,
        zones: Option<&Zones<u32>>,
        span: Range<DocId>,
    ) -> Result<(RoaringBitmap, u64), EngineError> {
        let mut ids = vec![0u32; SPAN_STEP.min(span.len())];
        let verdict = |docs| zones::of_id_zones(zones, docs, lookup);
        self.span_bits(span, verdict, |first, n, out| {
            let ids = &mut ids[..n];
            f.read_range(first, ids);
            match lookup {
                IdLookup::Range(r) => {
                    // One unsigned comparison: ids below the start wrap past the width.
                    let (start, width) = (r.start, r.end.saturating_sub(r.start));
                    pack_bits(ids, out, |id| id.wrapping_sub(start) < width);
                }
                IdLookup::Bits(b) => {
                    pack_bits(ids, out, |id| b.get(id as usize).copied().unwrap_or(false));
                }
            }
        })
    }

    /// The documents of `span` whose raw number `test` accepts (see [`Self::span_bits`]).
    fn scan_raw_span(
        &self,
        raw: &RawForward,
        stored: StoredType,
        test: &RawTest,
        zones: Option<&Zones<i64>>,
        span: Range<DocId>,
    ) -> Result<(RoaringBitmap, u64), EngineError> {
        let mut cursor = raw.cursor();
        let run = SPAN_STEP.min(span.len());
        if matches!(stored, StoredType::Int | StoredType::Long) {
            let mut values = vec![0i64; run];
            let verdict = |docs| zones::of_int_zones(zones, docs, test);
            self.span_bits(span, verdict, |first, n, out| {
                cursor.read_i64_range(first, &mut values[..n]);
                pack_bits(&values[..n], out, |x| test.test_i64(x));
            })
        } else {
            let mut values = vec![0f64; run];
            self.span_bits(
                span,
                |_| Verdict::Read,
                |first, n, out| {
                    cursor.read_f64_range(first, &mut values[..n]);
                    pack_bits(&values[..n], out, |x| test.test_f64(x));
                },
            )
        }
    }

    /// The documents of `span` a scan accepts, with how many it read: `run(first, n, bits)`
    /// reads the `n` ([`SPAN_STEP`] at most) documents from `first` in bulk and sets bit `i` of
    /// `bits` for each accepted one (no document list, no branch per document) — unless
    /// `verdict` of those documents (their zones' bounds against the predicate) says none or
    /// all pass. The bitmap is built from the bits, so a dense result goes into bitmap
    /// containers whole instead of one document at a time.
    fn span_bits(
        &self,
        span: Range<DocId>,
        verdict: impl Fn(Range<DocId>) -> Verdict,
        mut run: impl FnMut(DocId, usize, &mut [u8]),
    ) -> Result<(RoaringBitmap, u64), EngineError> {
        let mut bits = vec![0u8; span.len().div_ceil(8)];
        let mut first = span.start;
        let mut read = 0u64;
        for out in bits.chunks_mut(SPAN_STEP / 8) {
            self.ctx.check()?;
            let n = ((span.end - first) as usize).min(SPAN_STEP);
            match verdict(first..first + n as DocId) {
                Verdict::NoneMatch => {}
                Verdict::AllMatch => set_first_bits(out, n),
                Verdict::Read => {
                    run(first, n, out);
                    read += n as u64;
                }
            }
            first += n as DocId;
        }
        Ok((RoaringBitmap::from_lsb0_bytes(span.start, &bits), read))
    }

    /// Scans raw values of `candidates`.
    fn scan_raw(
        &mut self,
        column: &'s ColumnReader,
        test: &RawTest,
        candidates: &DocSet,
    ) -> Result<DocSet, EngineError> {
        let ForwardIndex::Raw(raw) = column.forward() else {
            return Err(EngineError::execution(format!(
                "column '{}' is not raw",
                column.name()
            )));
        };
        let stored = column.data_type().stored();
        let numeric = matches!(
            stored,
            StoredType::Int | StoredType::Long | StoredType::Float | StoredType::Double
        );
        if let (true, Some(span)) = (numeric, candidates.dense_span()) {
            let zones = column.zone_map().and_then(ZoneMap::ints);
            let (hits, read) = self.scan_raw_span(raw, stored, test, zones, span)?;
            self.entries_scanned += read.min(candidates.len());
            return Ok(within_candidates(hits, candidates));
        }
        let mut cursor = raw.cursor();
        let mut hits: Vec<DocId> = Vec::new();
        let zones = column.zone_map().and_then(ZoneMap::ints);
        for docs in candidates.blocks() {
            self.ctx.check()?;
            let verdict = zones::of_int_zones(zones, span_of(&docs), test);
            if settled(verdict, &docs, &mut hits) {
                continue;
            }
            self.entries_scanned += docs.len() as u64;
            let keep = docs.iter().map(|&doc| match (stored, test) {
                (StoredType::Int | StoredType::Long, t) => t.test_i64(cursor.i64(doc)),
                (StoredType::Float | StoredType::Double, t) => t.test_f64(cursor.f64(doc)),
                (_, RawTest::Value(t)) => t.test(&cursor.value(doc)),
                (_, t) => t.test_f64(cursor.f64(doc)),
            });
            extend_kept(&mut hits, &docs, keep);
        }
        Ok(DocSet::of_ascending(hits))
    }
}

/// The hits of a span scan that are candidates: all of them over a range (the span is the
/// range), the intersection over a bitmap.
fn within_candidates(hits: RoaringBitmap, candidates: &DocSet) -> DocSet {
    match candidates {
        DocSet::Range(_) => DocSet::bitmap(hits),
        DocSet::Bitmap(b) => DocSet::bitmap(hits & &**b),
    }
}

/// Appends to `hits` each document of `docs` whose verdict in `keep` (one per document, in
/// order) is true. Every document is written and kept by advancing past it: no branch to
/// mispredict on a predicate that holds for about half the documents.
#[inline(always)]
fn extend_kept(hits: &mut Vec<DocId>, docs: &[DocId], keep: impl Iterator<Item = bool>) {
    let mut n = hits.len();
    hits.resize(n + docs.len(), 0);
    for (&doc, kept) in docs.iter().zip(keep) {
        hits[n] = doc;
        n += kept as usize;
    }
    hits.truncate(n);
}

/// Documents [`FilterExecutor::span_bits`] reads per run (a multiple of 8: each run fills
/// whole bytes of the result's bits).
const SPAN_STEP: usize = 8192;

/// Sets the first `n` bits of `out` (bit `i % 8` of `out[i / 8]`).
fn set_first_bits(out: &mut [u8], n: usize) {
    out[..n / 8].fill(u8::MAX);
    if !n.is_multiple_of(8) {
        out[n / 8] = (1u8 << (n % 8)) - 1;
    }
}

/// Sets bit `i % 8` of `out[i / 8]` for every value `values[i]` that `accept`s.
#[inline(always)]
fn pack_bits<T: Copy>(values: &[T], out: &mut [u8], accept: impl Fn(T) -> bool) {
    for (byte, eight) in out.iter_mut().zip(values.chunks(8)) {
        let mut b = 0u8;
        for (j, &v) in eight.iter().enumerate() {
            b |= (accept(v) as u8) << j;
        }
        *byte = b;
    }
}

/// The documents from the first of `docs` (ascending) to the last.
fn span_of(docs: &[DocId]) -> Range<DocId> {
    match (docs.first(), docs.last()) {
        (Some(first), Some(last)) => *first..last + 1,
        _ => 0..0,
    }
}

/// Whether `verdict` settles `docs` without reading them: none pass, or all do (added to
/// `hits`).
fn settled(verdict: Verdict, docs: &[DocId], hits: &mut Vec<DocId>) -> bool {
    match verdict {
        Verdict::NoneMatch => true,
        Verdict::AllMatch => {
            hits.extend_from_slice(docs);
            true
        }
        Verdict::Read => false,
    }
}

fn is_contiguous(docs: &[DocId]) -> bool {
    !docs.is_empty() && docs[docs.len() - 1] - docs[0] == docs.len() as u32 - 1
}
