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
//! out (no per-column doc-id gathers). Values are gathered from the dictionary by id (a
//! `DOUBLE` dictionary in place, no decoding; a large one prefetched ahead), raw columns
//! read in bulk, and sums and counts go to lane-split states ([`crate::aggregate::lanes`]) so
//! a handful of hot groups does not serialise on one add chain. Every argument column is
//! read once however many aggregates use it; `COUNT(*)` and `AVG`'s counts share one count.
//!
//! Anything else — other functions, expressions, multi-value or nullable columns under null
//! handling, larger key spaces — takes the general path in [`super::group_by`]. Groups get
//! their slots from the same [`GroupKeys`] in the same (first-row) order, so results match
//! the general path except for the last bits of floating sums (lanes change the order).

use super::SegmentOutput;
use super::aggregation::needed_columns;
use super::doc_set::DocSet;
use super::group_keys::GroupKeys;
use super::projection::{DECODE_ALWAYS, DENSE_SPAN};
use crate::aggregate::AggState;
use crate::aggregate::lanes::{LaneCounts, LaneSums};
use crate::block::BLOCK_SIZE;
use crate::context::QueryContext;
use crate::error::EngineError;
use crate::server::result::IntermediateData;
use planner::plan::{AggregateCall, AggregateFunction, Expr};
use roaring::RoaringBitmap;
use segments::dictionary::Dictionary;
use segments::forward::{DictIds, ForwardIndex, RawCursor};
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
enum Numbers<'s> {
    /// Dictionary values by id (`ColumnReader::dictionary_numbers`: a `DOUBLE` dictionary in
    /// place, others widened once and kept with the segment).
    Table(&'s [f64], &'s DictIds),
    /// A large dictionary read id by id (few documents to read).
    Dict(&'s Dictionary, &'s DictIds),
    /// Raw fixed-width numbers.
    Raw(RawCursor<'s>),
}

/// One argument column: its reader and one lane-split sum.
struct ArgColumn<'s> {
    name: &'s str,
    reader: ArgReader<'s>,
    sums: LaneSums,
}

/// An argument column's numbers with reusable buffers.
struct ArgReader<'s> {
    numbers: Numbers<'s>,
    ids: Vec<u32>,
    values: Vec<f64>,
}

impl ArgReader<'_> {
    /// Adds the column's numbers for the rows of `chunk` to `sums`, row `i` to group `slots[i]`.
    fn add_to(&mut self, sums: &mut LaneSums, chunk: &Chunk, slots: &[u32]) {
        let n = slots.len();
        let ids = &mut self.ids;
        match &mut self.numbers {
            Numbers::Table(table, fwd) => {
                chunk.read_ids(fwd, ids);
                // The loads do not depend on each other or on the adds, so a large
                // dictionary's cache misses overlap.
                let (table, ids) = (*table, &ids[..n]);
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
            Numbers::Raw(cursor) => {
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

/// A combined id whose slot is not known yet.
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
    args: Vec<ArgColumn<'s>>,
    outputs: Vec<Output>,
    counts: Option<LaneCounts>,
    /// Columns the general path would project (for the scan statistics).
    num_columns: usize,
}

/// A single-value dictionary column, if `name` is one and holds no NULL that matters.
fn plain_column<'s>(
    segment: &'s ImmutableSegment,
    name: &str,
    null_handling: bool,
) -> Option<&'s ColumnReader> {
    let col = segment.column(name)?;
    let nullable = null_handling && col.nulls().is_some_and(|n| !n.is_empty());
    (col.is_single_value() && !nullable).then_some(col)
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
        Some(DenseGroupBy {
            keys: key_fwd,
            args,
            outputs,
            counts: counted.then(LaneCounts::default),
            num_columns: needed_columns(aggregates, keys).len(),
        })
    }

    /// Runs the kernel over the documents `docs`, slotting groups through `group_keys`.
    pub fn run(
        mut self,
        mut group_keys: GroupKeys<'s>,
        docs: &DocSet,
        ctx: &QueryContext,
    ) -> Result<SegmentOutput, EngineError> {
        // Real slots are below the key space; the dump slot (= the key space) takes skipped
        // rows and rows of groups dropped by the groups limit.
        let dump = group_keys.dense_key_space().unwrap_or(0) as u32;
        let states = dump as usize + 1;
        let strides: Vec<u32> = group_keys.strides().iter().map(|&s| s as u32).collect();
        if let Some(c) = &mut self.counts {
            *c = LaneCounts::new(states);
        }
        for a in &mut self.args {
            a.sums = LaneSums::new(states);
        }
        let (mut ids, mut combined, mut slots) = (Vec::new(), Vec::new(), Vec::new());
        // Combined id → slot, [`UNMAPPED`] until its first row; the id `dump` (past the key
        // space) marks skipped rows.
        let mut map = vec![UNMAPPED; states];
        map[dump as usize] = dump;
        for chunk in chunks(docs) {
            ctx.check()?;
            // The first key's ids are read straight into the combined ids.
            chunk.read_ids(self.keys[0], &mut combined);
            if strides[0] != 1 {
                combined.iter_mut().for_each(|c| *c *= strides[0]);
            }
            for (fwd, &stride) in self.keys.iter().zip(&strides).skip(1) {
                chunk.read_ids(fwd, &mut ids);
                for (c, &id) in combined.iter_mut().zip(&ids) {
                    *c += id * stride;
                }
            }
            if let Chunk::Span { first, skipped, .. } = &chunk {
                // Documents the filter skipped inside the span go to the dump slot.
                for &d in skipped {
                    combined[(d - first) as usize] = dump;
                }
            }
            slots.clear();
            let mut new_groups = false;
            slots.extend(combined.iter().map(|&c| {
                let slot = map[c as usize];
                new_groups |= slot == UNMAPPED;
                slot
            }));
            if new_groups {
                // New groups, slotted in row order (the general path's order).
                for (s, &c) in slots.iter_mut().zip(&combined) {
                    if map[c as usize] == UNMAPPED {
                        map[c as usize] = match group_keys.slot_of(c as u64) {
                            u32::MAX => dump,
                            slot => slot,
                        };
                    }
                    *s = map[c as usize];
                }
            }
            if let Some(c) = &mut self.counts {
                c.add(&slots);
            }
            for a in &mut self.args {
                a.reader.add_to(&mut a.sums, &chunk, &slots);
            }
        }
        let zero = LaneCounts::new(0);
        let counts = self.counts.as_ref().unwrap_or(&zero);
        let out = (0..group_keys.len())
            .map(|g| {
                let states = self
                    .outputs
                    .iter()
                    .map(|o| match *o {
                        Output::Count => AggState::Count(counts.total(g)),
                        Output::Sum(a) => AggState::Sum(Some(self.args[a].sums.total(g))),
                        Output::Avg(a) => AggState::Avg {
                            sum: self.args[a].sums.total(g),
                            count: counts.total(g),
                        },
                    })
                    .collect();
                (group_keys.key_values(g), states)
            })
            .collect();
        Ok(SegmentOutput {
            data: IntermediateData::Groups(out),
            docs_scanned: docs.len(),
            entries_scanned_post_filter: docs.len() * self.num_columns as u64,
            groups_limit_reached: group_keys.limit_reached,
        })
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
                Numbers::Raw(raw.cursor())
            }
            _ => return None,
        },
        _ => return None,
    };
    args.push(ArgColumn {
        name: col.name(),
        reader: ArgReader {
            numbers,
            ids: Vec::new(),
            values: Vec::new(),
        },
        sums: LaneSums::default(),
    });
    Some(args.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::super::filter::FilterExecutor;
    use super::super::group_by::{group_rows, group_segment};
    use super::*;
    use planner::plan::{ColumnRef, ColumnType, ExecutionOptions, FilterExpr};
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
            let mut exec = FilterExecutor::new(segment, &ctx);
            let general = group_rows(
                &keys,
                aggregates,
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
        let out = group_segment(&keys, &aggs, segment, &docs, &mut exec, &nh).unwrap();
        let gk = GroupKeys::new(&keys, segment, true, 100_000);
        let general = group_rows(&keys, &aggs, segment, &docs, &mut exec, &nh, gk).unwrap();
        assert_eq!(out.data, general.data);
    }
}
