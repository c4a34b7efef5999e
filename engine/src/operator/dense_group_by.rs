//! Fused GROUP BY for a dictionary key space that fits in a table (TPC-H Q1's shape, and a
//! group by supplier): single-value dictionary keys whose cardinalities multiply to at most
//! [`MAX_KEY_SPACE`] (beyond 256, only over enough rows to pay for the table), and only
//! `COUNT`, `SUM` and `AVG` of plain numeric columns, without `FILTER (WHERE …)` and without
//! NULLs to skip.
//!
//! It replaces projection → key evaluation → per-aggregate accumulation with one typed loop
//! per block. A block of documents dense enough ([`DENSE_SPAN`]) is read as the whole range
//! it spans (a bitmap selecting most of its range goes in fixed windows, with the unselected
//! documents listed rather than the selected ones): every column's dict ids are
//! bulk-unpacked for the range, the keys combine into dictionary-space ids, and the rows the
//! filter did not select go to a dump slot past the real groups instead of being gathered
//! out (no per-column doc-id gathers). States are indexed by that combined id; the ids are
//! listed in the order of their first rows, and groups get their slots from that list when
//! the scan ends.
//!
//! A scan's state tables ([`Scan`]) are indexed alike whatever documents it read, so a
//! segment cut into parts ([`DenseGroupBy::run_parts`]) scans them in parallel and adds the
//! tables up element by element, in part order: no group is merged by key.
//!
//! Rows are counted in one histogram per (combined id, folded argument ids). An argument
//! column with a small dictionary (TPC-H Q1's quantity and discount) is *folded* into it:
//! instead of gathering and adding each row's value, the kernel counts the row under its
//! dictionary id and multiplies counts by values once at the end, so one increment per row
//! serves `COUNT(*)` and every folded `SUM`/`AVG` ([`FOLD_BUCKETS`] bounds the table). Other
//! argument columns are *gathered*: values from the dictionary by id (a `DOUBLE` dictionary
//! in place, no decoding; a large one prefetched ahead) or raw columns read in bulk, added to
//! lane-split sums ([`crate::aggregate::lanes`]) so a handful of hot groups does not
//! serialise on one add chain; a histogram with few buckets is lane-split the same way.
//! Every argument column is read once however many aggregates use it.
//!
//! Anything else — other functions, expressions, multi-value or nullable columns under null
//! handling, larger key spaces — takes the general path in [`super::group_by`]. Groups get
//! their slots from the same [`GroupKeys`] in the same (first-row) order, so results match
//! the general path except for the last bits of floating sums (lanes and folding change the
//! order of the additions).

use super::aggregation::needed_columns;
use super::doc_set::DocSet;
use super::group_keys::GroupKeys;
use super::projection::{DECODE_ALWAYS, DENSE_SPAN};
use super::{SegmentOutput, plain_column};
use crate::aggregate::AggState;
use crate::aggregate::lanes::{LANES, LaneSums};
use crate::block::BLOCK_SIZE;
use crate::context::QueryContext;
use crate::error::EngineError;
use crate::server::result::IntermediateData;
use planner::plan::{AggregateCall, AggregateFunction, Expr};
use rayon::prelude::*;
use roaring::RoaringBitmap;
use segments::dictionary::Dictionary;
use segments::forward::{DictIds, ForwardIndex, RawCursor, RawForward};
use segments::segment::{ColumnReader, ImmutableSegment};
use segments::types::{DocId, StoredType};
use std::ops::Range;

/// Largest key space (product of the keys' cardinalities) the kernel serves.
pub const MAX_KEY_SPACE: u64 = 1 << 16;
/// Key spaces up to this size are served whatever the number of rows; a larger one only when
/// the rows are at least [`ROWS_PER_KEY`] times as many (its zeroed state tables — a cache line
/// per key and aggregate — must pay for themselves; a few rows take the general path).
const SMALL_KEY_SPACE: u64 = 256;
/// Rows per possible key a large key space needs (see [`SMALL_KEY_SPACE`]).
const ROWS_PER_KEY: u64 = 16;

/// Largest histogram (combined ids × folded dictionaries' sizes) an argument is folded into.
pub const FOLD_BUCKETS: u64 = 1 << 14;
/// Histograms of at most this many buckets are lane-split ([`LANES`] counts per bucket).
const LANED_BUCKETS: usize = 1 << 10;

/// Dictionary tables of at least this many values are prefetched ahead of the gather.
const PREFETCH_TABLE: usize = 1 << 16;
/// Rows between a value's prefetch and its use.
const PREFETCH_ROWS: usize = 64;

/// Hints the CPU to load the cache line of `p` (no effect where unsupported).
#[inline(always)]
fn prefetch(p: *const f64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no architectural effect and cannot fault, whatever the address.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Where an argument column's numbers come from.
#[derive(Clone, Copy)]
enum Numbers<'s> {
    /// Dictionary values by id (`ColumnReader::dictionary_numbers`: a `DOUBLE` dictionary in
    /// place, others widened once and kept with the segment).
    Table(&'s [f64], &'s DictIds),
    /// A large dictionary read id by id (few documents to read).
    Dict(&'s Dictionary, &'s DictIds),
    /// Raw fixed-width numbers.
    Raw(&'s RawForward),
}

/// One argument column of the plan.
struct ArgColumn<'s> {
    name: &'s str,
    numbers: Numbers<'s>,
    /// Folded into the histogram: the column's dictionary id is the histogram index's digit
    /// of this weight (its numbers are a [`Numbers::Table`]). `None`: gathered row by row
    /// into lane-split sums per combined id.
    fold_stride: Option<u32>,
}

/// What one scan of documents accumulated: states indexed by combined id, so the scans of
/// a segment's parts add up element by element.
struct Scan {
    /// Row counts per (combined id, folded ids) bucket, `lanes` counts per bucket.
    histogram: Vec<u32>,
    /// Per argument column: its sums when gathered (`None` when folded).
    sums: Vec<Option<LaneSums>>,
    /// Combined ids in the order of their first rows.
    first_seen: Vec<u32>,
}

impl Scan {
    /// Adds a later part's scan to this one.
    fn absorb(&mut self, later: Scan) {
        for (h, n) in self.histogram.iter_mut().zip(later.histogram) {
            *h += n;
        }
        for (mine, theirs) in self.sums.iter_mut().zip(later.sums) {
            if let (Some(mine), Some(theirs)) = (mine, theirs) {
                mine.absorb(&theirs);
            }
        }
        self.first_seen.extend(later.first_seen);
    }
}

/// Reusable buffers for reading a gathered argument column (one per scan), and a raw
/// column's cursor.
#[derive(Default)]
struct ArgReader<'s> {
    cursor: Option<RawCursor<'s>>,
    ids: Vec<u32>,
    values: Vec<f64>,
}

impl<'s> ArgReader<'s> {
    /// Adds `numbers` for the rows of `chunk` to `sums`, row `i` to group `slots[i]`.
    fn add_to(&mut self, numbers: Numbers<'s>, sums: &mut LaneSums, chunk: &Chunk, slots: &[u32]) {
        let n = slots.len();
        let ids = &mut self.ids;
        match numbers {
            Numbers::Table(table, fwd) => {
                chunk.read_ids(fwd, ids);
                // The loads do not depend on each other or on the adds, so a large
                // dictionary's cache misses overlap.
                let ids = &ids[..n];
                if table.len() < PREFETCH_TABLE {
                    sums.add_with(slots, |i| table[ids[i] as usize]);
                } else {
                    // A table past the L2 cache: prefetch the value `PREFETCH_ROWS` rows ahead
                    // so more misses overlap than the out-of-order window alone allows.
                    sums.add_with(slots, |i| {
                        if let Some(&ahead) = ids.get(i + PREFETCH_ROWS) {
                            prefetch(table.as_ptr().wrapping_add(ahead as usize));
                        }
                        table[ids[i] as usize]
                    });
                }
            }
            Numbers::Dict(dict, fwd) => {
                chunk.read_ids(fwd, ids);
                let ids = &ids[..n];
                sums.add_with(slots, |i| dict.f64_at(ids[i]));
            }
            Numbers::Raw(raw) => {
                let cursor = self.cursor.get_or_insert_with(|| raw.cursor());
                self.values.resize(n, 0.0);
                match chunk {
                    Chunk::Span { first, .. } => cursor.read_f64_range(*first, &mut self.values),
                    Chunk::Docs(docs) => {
                        for (v, &d) in self.values.iter_mut().zip(docs) {
                            *v = cursor.f64(d);
                        }
                    }
                }
                sums.add(slots, &self.values);
            }
        }
    }
}

/// One block of rows.
enum Chunk {
    /// Row `i` is document `first + i`; the documents of `skipped` were not selected.
    Span {
        first: DocId,
        len: usize,
        skipped: Vec<DocId>,
    },
    /// Row `i` is document `docs[i]` (a sparse block).
    Docs(Vec<DocId>),
}

impl Chunk {
    /// Number of rows.
    fn len(&self) -> usize {
        match self {
            Chunk::Span { len, .. } => *len,
            Chunk::Docs(docs) => docs.len(),
        }
    }

    /// A block of ascending documents: its span if dense enough, else the documents.
    fn of_block(docs: Vec<DocId>) -> Chunk {
        let (first, last) = (docs[0], docs[docs.len() - 1]);
        let len = (last - first) as usize + 1;
        if len > docs.len() * DENSE_SPAN {
            return Chunk::Docs(docs);
        }
        let mut skipped = Vec::with_capacity(len - docs.len());
        let mut next = first;
        for &d in &docs {
            skipped.extend(next..d);
            next = d + 1;
        }
        Chunk::Span {
            first,
            len,
            skipped,
        }
    }

    /// Reads the dict ids of the block's rows.
    fn read_ids(&self, fwd: &DictIds, ids: &mut Vec<u32>) {
        ids.resize(self.len(), 0);
        match self {
            Chunk::Span { first, .. } => fwd.read_range(*first, ids),
            Chunk::Docs(docs) => fwd.read_docs(docs, ids),
        }
    }
}

/// The blocks of a doc set. A bitmap selecting most of the range it spans is cut into
/// fixed windows with the (few) unselected documents listed, instead of listing the
/// selected ones; other bitmaps go block by block ([`Chunk::of_block`]).
fn chunks(docs: &DocSet) -> Box<dyn Iterator<Item = Chunk> + '_> {
    let windows = |range: Range<DocId>, skipped: Option<RoaringBitmap>| {
        let (step, stop) = (BLOCK_SIZE as DocId, range.end);
        Box::new(range.step_by(BLOCK_SIZE).map(move |first| {
            let end = first.saturating_add(step).min(stop);
            Chunk::Span {
                first,
                len: (end - first) as usize,
                skipped: skipped
                    .as_ref()
                    .map_or_else(Vec::new, |s| s.range(first..end).collect()),
            }
        })) as Box<dyn Iterator<Item = Chunk>>
    };
    match (docs, docs.dense_span()) {
        (DocSet::Range(r), _) => windows(r.clone(), None),
        (DocSet::Bitmap(b), Some(span)) => {
            let mut skipped = RoaringBitmap::new();
            skipped.insert_range(span.clone());
            skipped -= b.as_ref();
            windows(span, Some(skipped))
        }
        (DocSet::Bitmap(_), None) => Box::new(docs.blocks().map(Chunk::of_block)),
    }
}

/// The slot of a combined id without a kept group (not seen yet, or dropped by the groups
/// limit).
const UNMAPPED: u32 = u32::MAX;

/// What one aggregate reads from the kernel's states.
#[derive(Clone, Copy, Debug)]
enum Output {
    Count,
    Sum(usize),
    Avg(usize),
}

/// The fused plan for one segment.
pub struct DenseGroupBy<'s> {
    keys: Vec<&'s DictIds>,
    /// Each key's weight in the combined id.
    strides: Vec<u32>,
    /// Product of the keys' cardinalities; combined ids are below it, and the dump state
    /// is this id.
    key_space: u64,
    args: Vec<ArgColumn<'s>>,
    outputs: Vec<Output>,
    /// Whether rows are counted (a `COUNT` or `AVG`, or a folded argument).
    counted: bool,
    /// Histogram buckets per combined id: the product of the folded dictionaries' sizes.
    fold_space: u32,
    /// Columns the general path would project (for the scan statistics).
    num_columns: usize,
}

impl<'s> DenseGroupBy<'s> {
    /// The kernel for `keys`/`aggregates` over `segment`, or `None` when the general path
    /// must run (see the module docs). `group_keys` is the segment's key assignment.
    pub fn new(
        keys: &[Expr],
        aggregates: &[AggregateCall],
        segment: &'s ImmutableSegment,
        group_keys: &GroupKeys<'s>,
        docs: &DocSet,
        ctx: &QueryContext,
    ) -> Option<DenseGroupBy<'s>> {
        let key_space = group_keys.dense_key_space()?;
        if keys.is_empty()
            || key_space > MAX_KEY_SPACE
            || (key_space > SMALL_KEY_SPACE && docs.len() < key_space * ROWS_PER_KEY)
        {
            return None;
        }
        let null_handling = ctx.null_handling();
        let key_fwd = keys
            .iter()
            .map(|k| match k {
                Expr::Column(c) => match plain_column(segment, &c.name, null_handling)?.forward() {
                    ForwardIndex::Dict(f) => Some(f),
                    _ => None,
                },
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        let mut args: Vec<ArgColumn<'s>> = Vec::new();
        let mut outputs = Vec::with_capacity(aggregates.len());
        let mut counted = false;
        for call in aggregates {
            if call.filter.is_some() || call.multi_value {
                return None;
            }
            let column = match &call.arg {
                None => None,
                Some(Expr::Column(c)) => Some(plain_column(segment, &c.name, null_handling)?),
                Some(_) => return None,
            };
            let output = match (&call.function, column) {
                (AggregateFunction::Count, _) => Output::Count,
                (AggregateFunction::Sum, Some(col)) => {
                    Output::Sum(arg_index(&mut args, col, docs)?)
                }
                (AggregateFunction::Avg, Some(col)) => {
                    Output::Avg(arg_index(&mut args, col, docs)?)
                }
                _ => return None,
            };
            counted |= matches!(output, Output::Count | Output::Avg(_));
            outputs.push(output);
        }
        // Fold the smallest dictionaries while the histogram stays within bounds and no
        // larger than the rows it counts (its final pass must not outweigh them).
        let states = key_space + 1;
        let limit = FOLD_BUCKETS.min(docs.len());
        let mut tables: Vec<(usize, u64)> = (args.iter().enumerate())
            .filter_map(|(i, a)| match a.numbers {
                Numbers::Table(table, _) => Some((i, table.len() as u64)),
                _ => None,
            })
            .collect();
        tables.sort_by_key(|&(i, len)| (len, i));
        let mut fold_space = 1u64;
        for (i, len) in tables {
            if len == 0 || states * fold_space * len > limit {
                break;
            }
            args[i].fold_stride = Some(fold_space as u32);
            fold_space *= len;
            counted = true;
        }
        Some(DenseGroupBy {
            keys: key_fwd,
            strides: group_keys.strides().iter().map(|&s| s as u32).collect(),
            key_space,
            args,
            outputs,
            counted,
            fold_space: fold_space as u32,
            num_columns: needed_columns(aggregates, keys).len(),
        })
    }

    /// Runs the kernel over the documents `docs`, slotting groups through `group_keys`.
    pub fn run(
        &self,
        group_keys: GroupKeys<'s>,
        docs: &DocSet,
        ctx: &QueryContext,
    ) -> Result<SegmentOutput, EngineError> {
        let scan = self.scan(docs, ctx)?;
        Ok(self.finish(group_keys, scan, docs))
    }

    /// Runs the kernel over `docs` cut into `parts` (in order, covering it), the parts in
    /// parallel: their state tables are indexed alike and add up element by element, in part
    /// order, so the answer does not depend on scheduling and no group is merged by key.
    pub fn run_parts(
        &self,
        group_keys: GroupKeys<'s>,
        docs: &DocSet,
        parts: &[DocSet],
        ctx: &QueryContext,
    ) -> Result<SegmentOutput, EngineError> {
        let scans: Vec<Scan> = (parts.par_iter())
            .map(|part| self.scan(part, ctx))
            .collect::<Result<_, _>>()?;
        let total = scans.into_iter().reduce(|mut total, later| {
            total.absorb(later);
            total
        });
        let total = match total {
            Some(total) => total,
            None => self.scan(&DocSet::empty(), ctx)?,
        };
        Ok(self.finish(group_keys, total, docs))
    }

    /// Accumulates the documents `docs` into fresh state tables.
    fn scan(&self, docs: &DocSet, ctx: &QueryContext) -> Result<Scan, EngineError> {
        // States are indexed by combined id; the dump state (= the key space) takes the rows
        // the filter skipped inside a span.
        let dump = self.key_space as u32;
        let states = dump as usize + 1;
        let fold = self.fold_space;
        let (buckets, lanes) = self.histogram_shape();
        let mut histogram = vec![0u32; if self.counted { buckets * lanes } else { 0 }];
        let mut gathered: Vec<Option<(ArgReader<'s>, LaneSums)>> = (self.args.iter())
            .map(|a| match a.fold_stride {
                None => Some((ArgReader::default(), LaneSums::new(states))),
                Some(_) => None,
            })
            .collect();
        let (mut combined, mut ids, mut index) = (Vec::new(), Vec::new(), Vec::new());
        // 1 for the combined ids not seen yet (never the dump).
        let mut unseen = vec![1u8; states];
        unseen[dump as usize] = 0;
        let mut first_seen = Vec::new();
        for chunk in chunks(docs) {
            ctx.check()?;
            // The first key's ids are read straight into the combined ids.
            chunk.read_ids(self.keys[0], &mut combined);
            if self.strides[0] != 1 {
                combined.iter_mut().for_each(|c| *c *= self.strides[0]);
            }
            for (fwd, &stride) in self.keys.iter().zip(&self.strides).skip(1) {
                chunk.read_ids(fwd, &mut ids);
                for (c, &id) in combined.iter_mut().zip(&ids) {
                    *c += id * stride;
                }
            }
            if let Chunk::Span { first, skipped, .. } = &chunk {
                // Documents the filter skipped inside the span go to the dump state.
                for &d in skipped {
                    combined[(d - first) as usize] = dump;
                }
            }
            if any_unseen(&unseen, &combined) {
                for &c in &combined {
                    if unseen[c as usize] != 0 {
                        unseen[c as usize] = 0;
                        first_seen.push(c);
                    }
                }
            }
            if self.counted {
                let index: &[u32] = if fold == 1 {
                    &combined
                } else {
                    index.clear();
                    index.extend(combined.iter().map(|&c| c * fold));
                    for a in &self.args {
                        if let (Some(stride), Numbers::Table(_, fwd)) = (a.fold_stride, a.numbers) {
                            chunk.read_ids(fwd, &mut ids);
                            for (h, &id) in index.iter_mut().zip(&ids) {
                                *h += id * stride;
                            }
                        }
                    }
                    &index
                };
                count_rows(&mut histogram, lanes, index);
            }
            for (a, gathered) in self.args.iter().zip(&mut gathered) {
                if let Some((reader, sums)) = gathered {
                    reader.add_to(a.numbers, sums, &chunk, &combined);
                }
            }
        }
        Ok(Scan {
            histogram,
            sums: gathered.into_iter().map(|g| g.map(|(_, s)| s)).collect(),
            first_seen,
        })
    }

    /// Histogram buckets (combined ids × folded ids) and counts per bucket.
    fn histogram_shape(&self) -> (usize, usize) {
        let buckets = (self.key_space as usize + 1) * self.fold_space as usize;
        (buckets, if buckets <= LANED_BUCKETS { LANES } else { 1 })
    }

    /// The segment output of a finished scan of `docs`: groups are slotted through
    /// `group_keys` in the order of their first rows (the general path's order).
    fn finish(&self, mut group_keys: GroupKeys<'s>, scan: Scan, docs: &DocSet) -> SegmentOutput {
        let mut slot_states = Vec::new();
        let mut taken = vec![false; self.key_space as usize + 1];
        for &c in &scan.first_seen {
            if !std::mem::replace(&mut taken[c as usize], true) {
                let slot = group_keys.slot_of(c as u64);
                if slot != UNMAPPED {
                    debug_assert_eq!(slot as usize, slot_states.len());
                    slot_states.push(c);
                }
            }
        }
        let (counts, folded) = self.fold_histogram(&scan.histogram, &slot_states);
        let out = slot_states
            .iter()
            .enumerate()
            .map(|(g, &c)| {
                let sum = |a: usize| match (&scan.sums[a], &folded[a]) {
                    (Some(sums), _) => sums.total(c as usize),
                    (None, sums) => sums[g],
                };
                let states = self
                    .outputs
                    .iter()
                    .map(|o| match *o {
                        Output::Count => AggState::Count(counts[g]),
                        Output::Sum(a) => AggState::Sum(Some(sum(a))),
                        Output::Avg(a) => AggState::Avg {
                            sum: sum(a),
                            count: counts[g],
                        },
                    })
                    .collect();
                (group_keys.key_values(g), states)
            })
            .collect();
        SegmentOutput {
            data: IntermediateData::Groups(out),
            docs_scanned: docs.len(),
            entries_scanned_post_filter: docs.len() * self.num_columns as u64,
            groups_limit_reached: group_keys.limit_reached,
        }
    }

    /// Each kept group's row count from the histogram, and per argument column the folded
    /// sums by slot (count × value per dictionary id; empty for a gathered column).
    /// `slot_states[g]` is group `g`'s combined id.
    fn fold_histogram(&self, histogram: &[u32], slot_states: &[u32]) -> (Vec<i64>, Vec<Vec<f64>>) {
        let mut folded: Vec<Vec<f64>> = (self.args.iter())
            .map(|a| match a.fold_stride {
                Some(_) => vec![0.0; slot_states.len()],
                None => Vec::new(),
            })
            .collect();
        if histogram.is_empty() {
            return (Vec::new(), folded);
        }
        let fold = self.fold_space as usize;
        let (_, lanes) = self.histogram_shape();
        let counts = slot_states
            .iter()
            .enumerate()
            .map(|(g, &c)| {
                let first = c as usize * fold;
                let mut count = 0i64;
                for f in 0..fold {
                    let bucket = &histogram[(first + f) * lanes..(first + f + 1) * lanes];
                    let n: u64 = bucket.iter().map(|&n| n as u64).sum();
                    if n == 0 {
                        continue;
                    }
                    count += n as i64;
                    for (a, sums) in self.args.iter().zip(&mut folded) {
                        if let (Some(stride), Numbers::Table(table, _)) = (a.fold_stride, a.numbers)
                        {
                            let id = f / stride as usize % table.len();
                            sums[g] += n as f64 * table[id];
                        }
                    }
                }
                count
            })
            .collect();
        (counts, folded)
    }
}

/// Whether any of the combined ids `ids` is marked in `unseen` (every id must be in range).
/// Four independent accumulators, so the loads are not chained through one register.
#[inline(never)]
fn any_unseen(unseen: &[u8], ids: &[u32]) -> bool {
    let mut quads = ids.chunks_exact(4);
    let mut acc = [0u8; 4];
    for q in &mut quads {
        for j in 0..4 {
            acc[j] |= unseen[q[j] as usize];
        }
    }
    let rest = quads
        .remainder()
        .iter()
        .fold(0, |a, &c| a | unseen[c as usize]);
    (acc[0] | acc[1] | acc[2] | acc[3] | rest) != 0
}

/// Counts each row in its histogram bucket `index[i]` ([`LANES`] counts per bucket when
/// `lanes` says so: few buckets mean consecutive rows often share one).
#[inline(never)]
fn count_rows(histogram: &mut [u32], lanes: usize, index: &[u32]) {
    if lanes == 1 {
        for &h in index {
            histogram[h as usize] += 1;
        }
        return;
    }
    let mut chunks = index.chunks_exact(LANES);
    for c in &mut chunks {
        for j in 0..LANES {
            histogram[c[j] as usize * LANES + j] += 1;
        }
    }
    for (j, &h) in chunks.remainder().iter().enumerate() {
        histogram[h as usize * LANES + j] += 1;
    }
}

/// The index in `args` of column `col` (added if new), or `None` if its numbers cannot be
/// read by the kernel.
fn arg_index<'s>(
    args: &mut Vec<ArgColumn<'s>>,
    col: &'s ColumnReader,
    docs: &DocSet,
) -> Option<usize> {
    if let Some(i) = args.iter().position(|a| a.name == col.name()) {
        return Some(i);
    }
    let numbers = match (col.forward(), col.dictionary()) {
        (ForwardIndex::Dict(fwd), Some(dict)) => match dict {
            Dictionary::Double(d) => Numbers::Table(d.values(), fwd),
            Dictionary::Int(_) | Dictionary::Long(_) | Dictionary::Float(_) => {
                if dict.len() <= DECODE_ALWAYS || dict.len() as u64 <= docs.len() {
                    Numbers::Table(col.dictionary_numbers()?, fwd)
                } else {
                    Numbers::Dict(dict, fwd)
                }
            }
            _ => return None,
        },
        (ForwardIndex::Raw(raw), _) => match col.data_type().stored() {
            StoredType::Int | StoredType::Long | StoredType::Float | StoredType::Double => {
                Numbers::Raw(raw)
            }
            _ => return None,
        },
        _ => return None,
    };
    args.push(ArgColumn {
        name: col.name(),
        numbers,
        fold_stride: None,
    });
    Some(args.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::super::filter::FilterExecutor;
    use super::super::group_by::{group_rows, group_segment};
    use super::*;
    use planner::plan::{ColumnRef, ColumnType, ExecutionOptions, FilterExpr, ResultLayout};
    use segments::build_config::BuildConfig;
    use segments::builder::build_segment_from_rows;
    use segments::types::{DataType, FieldSpec, Schema, Value};
    use std::sync::OnceLock;

    const DOCS: u32 = 25_000;
    const COLUMNS: [(&str, DataType); 7] = [
        ("rf", DataType::String),
        ("ls", DataType::Int),
        ("x", DataType::Double),
        ("y", DataType::Long),
        ("z", DataType::Double),
        ("n", DataType::Int),
        ("nk", DataType::String),
    ];

    /// Values are multiples of 1/4, so every sum is exact in any order and the kernel must
    /// match the general path bit for bit.
    fn row(i: u32) -> Vec<Value> {
        let h = i.wrapping_mul(2_654_435_761);
        vec![
            Value::String(["A", "N", "R"][(h >> 7) as usize % 3].into()),
            Value::Int((h >> 13) as i32 & 1),
            Value::Double((h >> 5) as f64 % 997.0 * 0.25),
            Value::Long((i as i64 * 31) % 500 - 100),
            Value::Double((i % 113) as f64 * 0.5),
            if i.is_multiple_of(7) {
                Value::Null
            } else {
                Value::Int((i % 50) as i32)
            },
            if i.is_multiple_of(11) {
                Value::Null
            } else {
                Value::String(format!("k{}", i % 4))
            },
        ]
    }

    fn segment() -> &'static ImmutableSegment {
        static SEGMENT: OnceLock<(tempfile::TempDir, ImmutableSegment)> = OnceLock::new();
        &SEGMENT
            .get_or_init(|| {
                let dir = tempfile::tempdir().unwrap();
                let mut schema = Schema {
                    schema_name: "t".into(),
                    ..Schema::default()
                };
                for (name, dt) in COLUMNS {
                    schema.fields.push(FieldSpec::dimension(name, dt));
                }
                let mut cfg = BuildConfig::new("t", "t_0");
                cfg.null_handling = true;
                cfg.no_dictionary.insert("z".into());
                let rows = (0..DOCS).map(|i| Ok(row(i)));
                let summary = build_segment_from_rows(&schema, &cfg, rows, dir.path()).unwrap();
                let segment = ImmutableSegment::open(&summary.segment_dir).unwrap();
                (dir, segment)
            })
            .1
    }

    fn col(name: &str) -> Expr {
        let dt = COLUMNS.iter().find(|(n, _)| *n == name).unwrap().1;
        Expr::Column(ColumnRef {
            name: name.into(),
            column_type: ColumnType::sv(dt),
        })
    }

    fn agg(function: AggregateFunction, arg: Option<&str>) -> AggregateCall {
        AggregateCall {
            function,
            arg: arg.map(col),
            second: None,
            multi_value: false,
            filter: None,
            name: "a".into(),
        }
    }

    fn doc_sets() -> Vec<DocSet> {
        vec![
            DocSet::all(DOCS),
            DocSet::Range(5_003..17_011),
            // Dense: spans read whole with partial masks, one block with a long gap.
            DocSet::bitmap(
                (0..DOCS)
                    .filter(|d| d % 7 != 3 && !(12_000..12_500).contains(d))
                    .collect(),
            ),
            // Sparse overall, so block by block: a dense-enough block read as its span.
            DocSet::bitmap(
                (0..12_000)
                    .filter(|d| d % 3 != 0)
                    .chain((20_000..DOCS).filter(|d| d % 50 == 0))
                    .collect(),
            ),
            // Sparse: read document by document.
            DocSet::bitmap((0..DOCS).filter(|d| d % 13 == 0).collect()),
            DocSet::empty(),
        ]
    }

    /// A multi-stage leaf's groups (the column layout) have the keys of the row layout, each key
    /// column typed as its dictionary (numbers unboxed, read by id).
    #[test]
    fn group_columns_have_the_keys_of_group_rows() {
        let segment = segment();
        let ctx = QueryContext::new(ExecutionOptions::default());
        let keys: Vec<Expr> = ["ls", "y", "x", "rf"].iter().map(|k| col(k)).collect();
        let aggregates = [agg(AggregateFunction::Count, None)];
        let run = |layout| {
            let mut exec = FilterExecutor::new(segment, &ctx);
            let groups = GroupKeys::new(&keys, segment, false, usize::MAX);
            let docs = DocSet::Range(1_000..9_000);
            group_rows(
                &keys,
                &aggregates,
                layout,
                segment,
                &docs,
                &mut exec,
                &ctx,
                groups,
            )
            .unwrap()
            .data
        };
        let (IntermediateData::Columns(columns), IntermediateData::Groups(rows)) =
            (run(ResultLayout::Columns), run(ResultLayout::Rows))
        else {
            panic!("a column and a row layout");
        };
        assert!(rows.len() > 100);
        for (k, (_, data_type)) in ["ls", "y", "x", "rf"]
            .iter()
            .map(|k| COLUMNS.iter().find(|(n, _)| n == k).unwrap())
            .enumerate()
        {
            assert_eq!(columns[k].data_type, *data_type);
            let want: Vec<Value> = rows.iter().map(|(key, _)| key[k].clone()).collect();
            let got: Vec<Value> = (0..rows.len()).map(|g| columns[k].value(g)).collect();
            assert_eq!(got, want, "key {k}");
        }
        assert!(matches!(columns[0].cells, crate::column::Cells::I64(_)));
        assert!(matches!(columns[2].cells, crate::column::Cells::F64(_)));
    }

    /// Runs the kernel (which must apply) and the general path; they must agree.
    fn check(keys: &[&str], aggregates: &[AggregateCall], options: ExecutionOptions) {
        check_over(keys, aggregates, options, doc_sets());
    }

    /// [`check`] over the given document sets.
    fn check_over(
        keys: &[&str],
        aggregates: &[AggregateCall],
        options: ExecutionOptions,
        sets: Vec<DocSet>,
    ) {
        let segment = segment();
        let keys: Vec<Expr> = keys.iter().map(|k| col(k)).collect();
        let ctx = QueryContext::new(options);
        for docs in sets {
            let new_keys = || {
                GroupKeys::new(
                    &keys,
                    segment,
                    ctx.null_handling(),
                    ctx.options.num_groups_limit,
                )
            };
            let kernel = DenseGroupBy::new(&keys, aggregates, segment, &new_keys(), &docs, &ctx)
                .expect("the kernel applies");
            let fused = kernel.run(new_keys(), &docs, &ctx).unwrap();
            // In parts (scanned in parallel, states added up), the same answer.
            let parts = docs.split(3, 1);
            let in_parts = kernel.run_parts(new_keys(), &docs, &parts, &ctx).unwrap();
            assert_eq!(
                in_parts.data,
                fused.data,
                "{keys:?} in {} parts",
                parts.len()
            );
            assert_eq!(in_parts.groups_limit_reached, fused.groups_limit_reached);
            assert_eq!(in_parts.docs_scanned, fused.docs_scanned);
            let mut exec = FilterExecutor::new(segment, &ctx);
            let general = group_rows(
                &keys,
                aggregates,
                ResultLayout::Rows,
                segment,
                &docs,
                &mut exec,
                &ctx,
                new_keys(),
            )
            .unwrap();
            assert_eq!(
                fused.data,
                general.data,
                "{keys:?} over {} docs",
                docs.len()
            );
            assert_eq!(fused.docs_scanned, general.docs_scanned);
            assert_eq!(
                fused.entries_scanned_post_filter,
                general.entries_scanned_post_filter
            );
            assert_eq!(fused.groups_limit_reached, general.groups_limit_reached);
        }
    }

    fn q1_aggregates() -> Vec<AggregateCall> {
        use AggregateFunction::*;
        vec![
            agg(Count, None),
            agg(Sum, Some("x")),
            agg(Avg, Some("x")),
            agg(Sum, Some("y")),
            agg(Avg, Some("z")),
            agg(Sum, Some("z")),
            agg(Count, Some("x")),
        ]
    }

    #[test]
    fn matches_the_general_path() {
        check(&["rf", "ls"], &q1_aggregates(), ExecutionOptions::default());
        check(&["ls"], &q1_aggregates(), ExecutionOptions::default());
        // Without null handling, stored NULLs are their default values for keys and
        // arguments alike.
        check(
            &["nk", "rf"],
            &[agg(AggregateFunction::Sum, Some("n"))],
            ExecutionOptions::default(),
        );
        // With null handling, columns without NULLs still take the kernel.
        let nh = ExecutionOptions {
            enable_null_handling: true,
            ..Default::default()
        };
        check(&["rf", "ls"], &q1_aggregates(), nh);
        // A key space past 256 (x: 997 values) over enough rows: one state table of 998.
        let enough: Vec<DocSet> = doc_sets()
            .into_iter()
            .filter(|d| d.len() >= 997 * ROWS_PER_KEY)
            .collect();
        assert_eq!(enough.len(), 2);
        check_over(
            &["x"],
            &q1_aggregates(),
            ExecutionOptions::default(),
            enough,
        );
    }

    #[test]
    fn folds_small_dictionaries_into_the_histogram_and_gathers_the_rest() {
        let segment = segment();
        let ctx = QueryContext::new(ExecutionOptions::default());
        let keys = vec![col("rf"), col("ls")];
        let folded = |docs: &DocSet| {
            let gk = GroupKeys::new(&keys, segment, false, 100_000);
            let kernel = DenseGroupBy::new(&keys, &q1_aggregates(), segment, &gk, docs, &ctx)
                .expect("the kernel applies");
            let mut names: Vec<&str> = (kernel.args.iter())
                .filter(|a| a.fold_stride.is_some())
                .map(|a| a.name)
                .collect();
            names.sort();
            (names, kernel.fold_space)
        };
        // 7 states (6 keys and the dump): y's 500 values fold (3,500 buckets); x's 997 would
        // take the histogram past FOLD_BUCKETS, and z is raw.
        assert_eq!(folded(&DocSet::all(DOCS)), (vec!["y"], 500));
        // Fewer rows than buckets: nothing folds.
        let few = DocSet::bitmap((0..DOCS).filter(|d| d % 13 == 0).collect());
        assert_eq!(folded(&few), (vec![], 1));
        // Alone, x folds too (and a small key space with only gathered sums is unchanged).
        let gk = GroupKeys::new(&keys, segment, false, 100_000);
        let aggs = [agg(AggregateFunction::Avg, Some("x"))];
        let kernel = DenseGroupBy::new(&keys, &aggs, segment, &gk, &DocSet::all(DOCS), &ctx);
        assert_eq!(kernel.map(|k| k.fold_space), Some(997));
        check(&["rf", "ls"], &aggs, ExecutionOptions::default());
        // Two folded columns (ls: stride 1, n: stride 2) and a gathered one.
        let two = [
            agg(AggregateFunction::Sum, Some("n")),
            agg(AggregateFunction::Avg, Some("ls")),
            agg(AggregateFunction::Sum, Some("y")),
            agg(AggregateFunction::Count, None),
        ];
        let keys = vec![col("rf")];
        let gk = GroupKeys::new(&keys, segment, false, 100_000);
        let kernel = DenseGroupBy::new(&keys, &two, segment, &gk, &DocSet::all(DOCS), &ctx);
        assert_eq!(kernel.map(|k| k.fold_space), Some(2 * 51));
        check(&["rf"], &two, ExecutionOptions::default());
    }

    #[test]
    fn groups_limit_drops_rows_like_the_general_path() {
        let limited = ExecutionOptions {
            num_groups_limit: 2,
            ..Default::default()
        };
        check(&["ls", "rf"], &q1_aggregates(), limited);
    }

    #[test]
    fn falls_back_where_it_does_not_apply() {
        use AggregateFunction::*;
        let segment = segment();
        let nh = QueryContext::new(ExecutionOptions {
            enable_null_handling: true,
            ..Default::default()
        });
        let plain = QueryContext::new(ExecutionOptions::default());
        let docs = DocSet::all(DOCS);
        let applies = |keys: &[&str], aggs: &[AggregateCall], ctx: &QueryContext| {
            let keys: Vec<Expr> = keys.iter().map(|k| col(k)).collect();
            let gk = GroupKeys::new(&keys, segment, ctx.null_handling(), 100_000);
            DenseGroupBy::new(&keys, aggs, segment, &gk, &docs, ctx).is_some()
        };
        assert!(applies(&["rf"], &[agg(Sum, Some("n"))], &plain));
        // NULLs that matter: a nullable argument or key under null handling.
        assert!(!applies(&["rf"], &[agg(Sum, Some("n"))], &nh));
        assert!(!applies(&["rf"], &[agg(Count, Some("n"))], &nh));
        assert!(!applies(&["nk"], &[agg(Count, None)], &nh));
        // FILTER (WHERE …), other functions, raw or large keys.
        let mut filtered = agg(Sum, Some("x"));
        filtered.filter = Some(FilterExpr::Constant(true));
        assert!(!applies(&["rf"], &[filtered], &plain));
        assert!(!applies(&["rf"], &[agg(Max, Some("x"))], &plain));
        assert!(!applies(&["z"], &[agg(Count, None)], &plain));
        // A large key space over too few rows for its state table.
        assert!(applies(&["x"], &[agg(Count, None)], &plain));
        let few = DocSet::bitmap((0..DOCS).filter(|d| d % 13 == 0).collect());
        let keys = vec![col("x")];
        let gk = GroupKeys::new(&keys, segment, false, 100_000);
        assert!(
            DenseGroupBy::new(&keys, &[agg(Count, None)], segment, &gk, &few, &plain).is_none()
        );
        // The fallback gives the general path's answer through `group_segment`.
        let keys = vec![col("rf"), col("ls")];
        let aggs = [
            agg(Sum, Some("n")),
            agg(Avg, Some("n")),
            agg(Count, Some("n")),
        ];
        let mut exec = FilterExecutor::new(segment, &nh);
        let out = group_segment(
            &keys,
            &aggs,
            ResultLayout::Rows,
            segment,
            &docs,
            &mut exec,
            nh.options.num_groups_limit,
            &nh,
        )
        .unwrap();
        let gk = GroupKeys::new(&keys, segment, true, 100_000);
        let general = group_rows(
            &keys,
            &aggs,
            ResultLayout::Rows,
            segment,
            &docs,
            &mut exec,
            &nh,
            gk,
        )
        .unwrap();
        assert_eq!(out.data, general.data);
    }
}
