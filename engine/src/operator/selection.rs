//! Selection and DISTINCT over one segment.
//!
//! * Selection without ORDER BY reads blocks until `limit` rows are collected (documents in
//!   ascending order) and stops; with ORDER BY it keeps the segment's top `limit` rows in a
//!   heap over the sort keys, after a typed pre-pass on a plain first key has narrowed the
//!   documents ([`super::top_candidates`]), and reads full rows for the winners only.
//! * DISTINCT collects distinct rows in first-seen order; without ORDER BY it stops at
//!   `limit`, with ORDER BY it keeps the top `limit`.

use super::doc_set::DocSet;
use super::projection::{ColumnSource, ProjectionOperator};
use super::top_candidates;
use super::transform::evaluate;
use super::{Operator, SegmentOutput};
use crate::block::{ColumnData, Projected};
use crate::code_book::CodeBook;
use crate::column::{Cells, Column};
use crate::context::QueryContext;
use crate::error::EngineError;
use crate::key::RowKey;
use crate::server::result::IntermediateData;
use crate::sort::{TopK, sort_and_truncate};
use planner::plan::{ColumnRef, Expr, ResultLayout, SortKey};
use segments::dictionary::Dictionary;
use segments::segment::ImmutableSegment;
use segments::types::{DataType, Value};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

fn columns_of(exprs: &[Expr]) -> Vec<ColumnRef> {
    let mut out: Vec<ColumnRef> = Vec::new();
    for e in exprs {
        for c in e.columns() {
            if !out.iter().any(|o| o.name == c.name) {
                out.push(c);
            }
        }
    }
    out
}

fn projection<'s, 'q>(
    exprs: &[Expr],
    segment: &'s ImmutableSegment,
    docs: &'q DocSet,
    ctx: &'q QueryContext,
) -> ProjectionOperator<'s, 'q> {
    // A column an expression computes from is read as values row by row; a column sent as it
    // is stays dictionary ids (decoded only for the rows that reach the answer).
    let computed: Vec<ColumnRef> = exprs
        .iter()
        .filter(|e| !matches!(e, Expr::Column(_)))
        .flat_map(Expr::columns)
        .collect();
    let sources = columns_of(exprs)
        .iter()
        .map(|c| {
            let mut s = ColumnSource::new(segment, c, None, &ctx.options);
            if computed.iter().any(|x| x.name == c.name) {
                s.decode_text_for(docs.len());
            }
            s
        })
        .collect();
    ProjectionOperator::new(docs, sources, ctx)
}

/// Rows of a block (only the first `take` rows).
fn block_rows(
    exprs: &[Expr],
    block: &crate::block::Block<'_>,
    take: usize,
) -> Result<Vec<Vec<Value>>, EngineError> {
    let columns = exprs
        .iter()
        .map(|e| evaluate(e, block))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((0..take.min(block.len()))
        .map(|r| columns.iter().map(|c| c.value(r)).collect())
        .collect())
}

/// A block's projected column as a typed column of its first `take` rows: numbers unboxed
/// (dictionary ids decoded to numbers), everything else as values; `None` for dictionary-encoded
/// text, which [`Recoder`] takes.
fn to_column(p: &Projected<'_>, take: usize) -> Option<Column> {
    let n = take.min(p.len());
    let nulls = p.nulls.as_ref().map(|v| v[..n].to_vec());
    let kind = numeric_kind(p.data_type);
    let integral = kind == Some(NumberKind::Integral);
    let floating = kind == Some(NumberKind::Floating);
    let cells = match &p.data {
        ColumnData::I64(v) => Cells::I64(v[..n].to_vec()),
        ColumnData::F64(v) => Cells::F64(v[..n].to_vec()),
        ColumnData::Dict { ids, dict, .. } if integral => Cells::I64(dict.i64s(&ids[..n])),
        ColumnData::Dict { ids, dict, .. } if floating => Cells::F64(dict.f64s(&ids[..n])),
        ColumnData::Dict { .. } => return None,
        _ => {
            return Some(Column::from_values(
                p.data_type,
                (0..n).map(|i| p.value(i)).collect(),
            ));
        }
    };
    Some(Column {
        cells,
        data_type: p.data_type,
        nulls,
    })
}

const NO_LOCAL: u32 = u32::MAX;

/// Dictionary-encoded text of one segment column as a coded column: each segment id used gets a
/// code, rows are codes, and the column's [`CodeBook`] decodes a code's text only when something
/// reads it (each dictionary block once, by a [`ValueDecoder`](segments::dictionary::ValueDecoder)).
struct Recoder<'a> {
    segment_dict: &'a Dictionary,
    /// Segment id → code ([`NO_LOCAL`] until used).
    local: Vec<u32>,
    /// Code → segment id.
    used: Vec<u32>,
    ids: Vec<u32>,
    nulls: Vec<bool>,
    data_type: DataType,
}

impl<'a> Recoder<'a> {
    fn new(dict: &'a Dictionary, data_type: DataType) -> Recoder<'a> {
        Recoder {
            segment_dict: dict,
            local: vec![NO_LOCAL; dict.len() as usize],
            used: Vec::new(),
            ids: Vec::new(),
            nulls: Vec::new(),
            data_type,
        }
    }

    fn add(&mut self, ids: &[u32], nulls: Option<&[bool]>) {
        for (i, &id) in ids.iter().enumerate() {
            let slot = &mut self.local[id as usize];
            if *slot == NO_LOCAL {
                self.used.push(id);
                *slot = (self.used.len() - 1) as u32;
            }
            let local = *slot;
            self.ids.push(local);
            self.nulls.push(nulls.is_some_and(|n| n[i]));
        }
    }

    fn finish(self) -> Column {
        let any_null = self.nulls.iter().any(|n| *n);
        Column {
            cells: Cells::Coded {
                ids: self.ids,
                dict: Arc::new(CodeBook::lazy(
                    Arc::new(self.segment_dict.decoder()),
                    self.used,
                )),
            },
            data_type: self.data_type,
            nulls: any_null.then_some(self.nulls),
        }
    }
}

/// A numeric column gathered straight into one vector, reserved for every selected document:
/// no per-block column, no copy to join them.
struct Numbers {
    cells: Cells,
    nulls: Option<Vec<bool>>,
    rows: usize,
}

impl Numbers {
    /// Gathering for `p`'s kind of numbers; `None` when `p` holds no plain numbers.
    fn start(p: &Projected<'_>, capacity: usize) -> Option<Numbers> {
        let cells = match (&p.data, numeric_kind(p.data_type)?) {
            (ColumnData::I64(_), NumberKind::Integral)
            | (ColumnData::Dict { .. }, NumberKind::Integral) => {
                Cells::I64(Vec::with_capacity(capacity))
            }
            (ColumnData::F64(_), NumberKind::Floating)
            | (ColumnData::Dict { .. }, NumberKind::Floating) => {
                Cells::F64(Vec::with_capacity(capacity))
            }
            _ => return None,
        };
        Some(Numbers {
            cells,
            nulls: None,
            rows: 0,
        })
    }

    /// Appends `p`'s first `n` rows; false (nothing appended) when `p` does not fit.
    fn append(&mut self, p: &Projected<'_>, n: usize) -> bool {
        match (&mut self.cells, &p.data) {
            (Cells::I64(out), ColumnData::I64(v)) => out.extend_from_slice(&v[..n]),
            (Cells::F64(out), ColumnData::F64(v)) => out.extend_from_slice(&v[..n]),
            (Cells::I64(out), ColumnData::Dict { ids, dict, .. })
                if numeric_kind(p.data_type) == Some(NumberKind::Integral) =>
            {
                dict.extend_i64s(&ids[..n], out)
            }
            (Cells::F64(out), ColumnData::Dict { ids, dict, .. })
                if numeric_kind(p.data_type) == Some(NumberKind::Floating) =>
            {
                dict.extend_f64s(&ids[..n], out)
            }
            _ => return false,
        }
        match (&mut self.nulls, &p.nulls) {
            (Some(all), Some(block)) => all.extend_from_slice(&block[..n]),
            (Some(all), None) => all.extend(std::iter::repeat_n(false, n)),
            (None, Some(block)) if block[..n].iter().any(|b| *b) => {
                let mut all = vec![false; self.rows];
                all.extend_from_slice(&block[..n]);
                self.nulls = Some(all);
            }
            (None, _) => {}
        }
        self.rows += n;
        true
    }

    fn finish(self, data_type: DataType) -> Column {
        Column {
            cells: self.cells,
            data_type,
            nulls: self.nulls,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum NumberKind {
    Integral,
    Floating,
}

fn numeric_kind(t: DataType) -> Option<NumberKind> {
    match t {
        DataType::Int | DataType::Long | DataType::Boolean | DataType::Timestamp => {
            Some(NumberKind::Integral)
        }
        DataType::Float | DataType::Double => Some(NumberKind::Floating),
        _ => None,
    }
}

/// One output column being gathered over a segment's blocks.
enum Gathered<'a> {
    Columns(Vec<Column>),
    Numbers(Numbers),
    Coded(Recoder<'a>),
}

/// Runs a selection without ORDER BY over `docs` into typed columns (a multi-stage leaf): no
/// row of values is built, and text read from a dictionary stays coded.
fn select_columns(
    exprs: &[Expr],
    limit: usize,
    segment: &ImmutableSegment,
    docs: &DocSet,
    ctx: &QueryContext,
) -> Result<SegmentOutput, EngineError> {
    let mut gathered: Vec<Gathered<'_>> = exprs
        .iter()
        .map(|_| Gathered::Columns(Vec::new()))
        .collect();
    let mut rows = 0usize;
    let capacity = (docs.len() as usize).min(limit);
    let mut proj = projection(exprs, segment, docs, ctx);
    let width = proj.num_columns() as u64;
    while rows < limit
        && let Some(block) = proj.next()?
    {
        let take = (limit - rows).min(block.len());
        for (e, g) in exprs.iter().zip(gathered.iter_mut()) {
            let p = evaluate(e, &block)?;
            if let Gathered::Columns(parts) = g
                && parts.is_empty()
                && let Some(numbers) = Numbers::start(p.as_ref(), capacity)
            {
                *g = Gathered::Numbers(numbers);
            }
            if let Gathered::Numbers(numbers) = g
                && numbers.append(p.as_ref(), take)
            {
                continue;
            }
            match (to_column(p.as_ref(), take), &mut *g, &p.data) {
                (Some(c), Gathered::Columns(parts), _) => parts.push(c),
                (None, Gathered::Columns(parts), ColumnData::Dict { ids, dict, .. })
                    if parts.is_empty() =>
                {
                    let mut r = Recoder::new(dict, p.data_type);
                    r.add(&ids[..take], p.nulls.as_ref().map(|n| &n[..take]));
                    *g = Gathered::Coded(r);
                }
                (None, Gathered::Coded(r), ColumnData::Dict { ids, .. }) => {
                    r.add(&ids[..take], p.nulls.as_ref().map(|n| &n[..take]));
                }
                // A column that changes form between blocks (never for one segment column):
                // plain values.
                (_, g, _) => {
                    let values =
                        Column::from_values(p.data_type, (0..take).map(|i| p.value(i)).collect());
                    let parts = match std::mem::replace(g, Gathered::Columns(Vec::new())) {
                        Gathered::Columns(parts) => parts,
                        Gathered::Numbers(n) => vec![n.finish(p.data_type)],
                        Gathered::Coded(r) => vec![r.finish()],
                    };
                    let mut parts = parts;
                    parts.push(values);
                    *g = Gathered::Columns(parts);
                }
            }
        }
        rows += take;
    }
    let columns = gathered
        .into_iter()
        .zip(exprs)
        .map(|(g, e)| match g {
            Gathered::Columns(parts) => Column::concat(parts, e.column_type().data_type),
            Gathered::Numbers(n) => n.finish(e.column_type().data_type),
            Gathered::Coded(r) => r.finish(),
        })
        .collect();
    Ok(SegmentOutput {
        data: IntermediateData::Columns(columns),
        docs_scanned: rows as u64,
        entries_scanned_post_filter: rows as u64 * width,
        groups_limit_reached: false,
    })
}

/// Runs a selection over `docs` (rows or columns by `layout`).
#[allow(clippy::too_many_arguments)]
pub fn select_segment_as(
    layout: ResultLayout,
    exprs: &[Expr],
    order_by: &[SortKey],
    limit: usize,
    segment: &ImmutableSegment,
    docs: &DocSet,
    ctx: &QueryContext,
) -> Result<SegmentOutput, EngineError> {
    if layout == ResultLayout::Columns && order_by.is_empty() {
        return select_columns(exprs, limit, segment, docs, ctx);
    }
    select_segment(exprs, order_by, limit, segment, docs, ctx)
}

/// Runs a selection over `docs`.
pub fn select_segment(
    exprs: &[Expr],
    order_by: &[SortKey],
    limit: usize,
    segment: &ImmutableSegment,
    docs: &DocSet,
    ctx: &QueryContext,
) -> Result<SegmentOutput, EngineError> {
    if limit > 0 && !order_by.is_empty() {
        return select_ordered(exprs, order_by, limit, segment, docs, ctx);
    }
    let mut rows: Vec<Vec<Value>> = Vec::new();
    let mut docs_scanned = 0u64;
    let mut proj = projection(exprs, segment, docs, ctx);
    let width = proj.num_columns() as u64;
    if limit > 0 {
        while let Some(block) = proj.next()? {
            let take = (limit - rows.len()).min(block.len());
            docs_scanned += take as u64;
            rows.extend(block_rows(exprs, &block, take)?);
            if rows.len() >= limit {
                break;
            }
        }
    }
    Ok(SegmentOutput {
        data: IntermediateData::Rows(rows),
        docs_scanned,
        entries_scanned_post_filter: docs_scanned * width,
        groups_limit_reached: false,
    })
}

/// `ORDER BY … LIMIT k` in two passes (Pinot's `SelectionOrderByOperator`): every document
/// is read for the sort keys only and offered to a top-k heap with its doc id; then the full
/// rows are read for the `k` winners alone. When the first sort key is a plain typed column,
/// a typed pre-pass over that column alone ([`super::top_candidates`]) first narrows the
/// documents the heap sees to the few that can still win.
fn select_ordered(
    exprs: &[Expr],
    order_by: &[SortKey],
    limit: usize,
    segment: &ImmutableSegment,
    docs: &DocSet,
    ctx: &QueryContext,
) -> Result<SegmentOutput, EngineError> {
    select_ordered_with(exprs, order_by, limit, segment, docs, ctx, true)
}

/// [`select_ordered`], with the typed pre-pass allowed or not (tests compare both).
fn select_ordered_with(
    exprs: &[Expr],
    order_by: &[SortKey],
    limit: usize,
    segment: &ImmutableSegment,
    docs: &DocSet,
    ctx: &QueryContext,
    typed: bool,
) -> Result<SegmentOutput, EngineError> {
    let key_exprs: Vec<Expr> = order_by
        .iter()
        .map(|k| {
            exprs.get(k.column).cloned().ok_or_else(|| {
                EngineError::execution(format!("ORDER BY column {} is not projected", k.column))
            })
        })
        .collect::<Result<_, _>>()?;
    let key_width = columns_of(&key_exprs).len() as u64;
    let full_width = columns_of(exprs).len() as u64;
    let narrowed = match key_exprs.first() {
        Some(first) if typed => top_candidates::narrow(first, order_by, limit, segment, docs, ctx)?,
        _ => None,
    };
    let (heap_docs, docs_scanned) = match &narrowed {
        Some(c) => (&c.docs, c.docs_scanned),
        None => (docs, docs.len()),
    };
    let rows = top_rows(exprs, &key_exprs, order_by, limit, segment, heap_docs, ctx)?;
    Ok(SegmentOutput {
        entries_scanned_post_filter: docs_scanned * key_width
            + rows.len() as u64 * full_width.saturating_sub(key_width),
        data: IntermediateData::Rows(rows),
        docs_scanned,
        groups_limit_reached: false,
    })
}

/// The top `limit` rows of `docs` by `order_by` (over `key_exprs`, the sort keys' expressions),
/// best first: sort keys into the heap, then the winners' full rows.
fn top_rows(
    exprs: &[Expr],
    key_exprs: &[Expr],
    order_by: &[SortKey],
    limit: usize,
    segment: &ImmutableSegment,
    docs: &DocSet,
    ctx: &QueryContext,
) -> Result<Vec<Vec<Value>>, EngineError> {
    let heap_keys: Vec<SortKey> = order_by
        .iter()
        .enumerate()
        .map(|(i, k)| SortKey {
            column: i,
            ..k.clone()
        })
        .collect();
    let mut top = TopK::new(&heap_keys, limit);
    let mut proj = projection(key_exprs, segment, docs, ctx);
    while let Some(block) = proj.next()? {
        let columns = key_exprs
            .iter()
            .map(|e| evaluate(e, &block))
            .collect::<Result<Vec<_>, _>>()?;
        let mut row: Vec<Value> = Vec::with_capacity(columns.len() + 1);
        for (r, &doc) in block.docs.iter().enumerate() {
            row.clear();
            row.extend(columns.iter().map(|c| c.value(r)));
            if top.would_accept(&row) {
                let mut kept = row.clone();
                kept.push(Value::Long(doc as i64));
                top.push(kept);
            }
        }
    }
    let winners: Vec<u32> = top
        .into_sorted()
        .iter()
        .filter_map(|r| r.last().and_then(Value::as_i64).map(|d| d as u32))
        .collect();
    // Second pass: the full rows of the winners, read in doc order, emitted in sort order.
    let winner_set = DocSet::bitmap(winners.iter().copied().collect());
    let mut full = projection(exprs, segment, &winner_set, ctx);
    let mut by_doc: HashMap<u32, Vec<Value>> = HashMap::with_capacity(winners.len());
    while let Some(block) = full.next()? {
        let rows = block_rows(exprs, &block, block.len())?;
        by_doc.extend(block.docs.iter().copied().zip(rows));
    }
    Ok(winners.iter().filter_map(|d| by_doc.remove(d)).collect())
}

/// Runs a DISTINCT over `docs`.
pub fn distinct_segment(
    exprs: &[Expr],
    order_by: &[SortKey],
    limit: usize,
    segment: &ImmutableSegment,
    docs: &DocSet,
    ctx: &QueryContext,
) -> Result<SegmentOutput, EngineError> {
    let mut seen: HashSet<RowKey> = HashSet::new();
    let mut rows: Vec<Vec<Value>> = Vec::new();
    let mut proj = projection(exprs, segment, docs, ctx);
    let width = proj.num_columns() as u64;
    let mut docs_scanned = 0u64;
    if limit > 0 {
        'blocks: while let Some(block) = proj.next()? {
            let block_values = block_rows(exprs, &block, block.len())?;
            for row in block_values {
                docs_scanned += 1;
                if seen.insert(RowKey(row.clone())) {
                    rows.push(row);
                    if order_by.is_empty() && rows.len() >= limit {
                        break 'blocks;
                    }
                }
            }
            if !order_by.is_empty()
                && rows.len() > limit.saturating_mul(2).max(crate::block::BLOCK_SIZE)
            {
                sort_and_truncate(&mut rows, order_by, limit);
                seen = rows.iter().map(|r| RowKey(r.clone())).collect();
            }
        }
        if !order_by.is_empty() {
            sort_and_truncate(&mut rows, order_by, limit);
        }
    }
    Ok(SegmentOutput {
        data: IntermediateData::Rows(rows),
        docs_scanned,
        entries_scanned_post_filter: docs_scanned * width,
        groups_limit_reached: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort::compare_all;
    use planner::plan::{ColumnType, ExecutionOptions};
    use proptest::prelude::*;
    use segments::build_config::BuildConfig;
    use segments::builder::build_segment_from_rows;
    use segments::types::{DataType, FieldSpec, Schema};
    use std::ops::Not;
    use std::sync::{Arc, OnceLock};

    const COLUMNS: [(&str, DataType); 6] = [
        ("a", DataType::Int),
        ("b", DataType::Double),
        ("c", DataType::Long),
        ("s", DataType::String),
        ("f", DataType::Float),
        ("t", DataType::Boolean),
    ];
    const DOCS: usize = 23_000;

    /// A deterministic pseudo-random row with many ties, NULLs, ±0.0 and NaN.
    fn row(i: usize) -> Vec<Value> {
        let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let pick = |shift: u32, m: u64| (h >> shift) % m;
        let null = |shift: u32| pick(shift, 13) == 0;
        let b = match pick(8, 50) {
            0 => -0.0,
            1 => 0.0,
            2 => f64::NAN,
            x => (x as f64 - 25.0) * 1.25,
        };
        vec![
            if null(1) {
                Value::Null
            } else {
                Value::Int(pick(3, 20) as i32 - 5)
            },
            if null(5) {
                Value::Null
            } else {
                Value::Double(b)
            },
            Value::Long((h >> 11) as i64 - (1 << 52)),
            if null(17) {
                Value::Null
            } else {
                Value::String(format!("s{}", pick(21, 30)))
            },
            Value::Float(pick(27, 40) as f32 / 8.0 - 2.0),
            Value::Boolean(pick(33, 2) == 1),
        ]
    }

    /// Segments with dictionaries and without (raw), built once.
    fn segments() -> &'static [Arc<ImmutableSegment>] {
        static SEGMENTS: OnceLock<(tempfile::TempDir, Vec<Arc<ImmutableSegment>>)> =
            OnceLock::new();
        let (_, segs) = SEGMENTS.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let mut schema = Schema {
                schema_name: "t".into(),
                ..Schema::default()
            };
            for (name, dt) in COLUMNS {
                schema.fields.push(FieldSpec::dimension(name, dt));
            }
            let segs = [false, true]
                .into_iter()
                .map(|raw| {
                    let mut cfg = BuildConfig::new("t", if raw { "t_raw" } else { "t_dict" });
                    cfg.null_handling = true;
                    if raw {
                        cfg.no_dictionary
                            .extend(COLUMNS.iter().map(|(n, _)| n.to_string()));
                    }
                    let rows = (0..DOCS).map(|i| Ok(row(i)));
                    let summary = build_segment_from_rows(&schema, &cfg, rows, dir.path()).unwrap();
                    Arc::new(ImmutableSegment::open(&summary.segment_dir).unwrap())
                })
                .collect();
            (dir, segs)
        });
        segs
    }

    fn exprs() -> Vec<Expr> {
        COLUMNS
            .iter()
            .map(|(name, dt)| {
                Expr::Column(ColumnRef {
                    name: name.to_string(),
                    column_type: ColumnType::sv(*dt),
                })
            })
            .collect()
    }

    /// Raw strings are the one first key the typed pre-pass leaves to the row path.
    fn raw_string_first(raw: bool, column: usize) -> bool {
        raw && COLUMNS[column].1 == DataType::String
    }

    fn rows_of(out: &SegmentOutput) -> &Vec<Vec<Value>> {
        match &out.data {
            IntermediateData::Rows(r) => r,
            other => panic!("unexpected {other:?}"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        #[test]
        fn typed_first_key_matches_the_row_path(
            raw in any::<bool>(),
            null_handling in any::<bool>(),
            keys in proptest::collection::vec((0usize..6, any::<bool>(), any::<bool>()), 1..3),
            limit in prop_oneof![1usize..12, 12usize..400],
            filtered in any::<bool>(),
            seed in any::<u32>(),
        ) {
            let segment = &segments()[raw as usize];
            let order_by: Vec<SortKey> = keys
                .iter()
                .map(|&(column, asc, nulls_last)| SortKey { column, asc, nulls_last })
                .collect();
            let docs = if filtered {
                DocSet::bitmap((0..DOCS as u32).filter(|d| (d ^ seed) % 3 != 0).collect())
            } else {
                DocSet::all(DOCS as u32)
            };
            let options = ExecutionOptions { enable_null_handling: null_handling, ..Default::default() };
            let ctx = QueryContext::new(options);
            let exprs = exprs();
            let typed = select_ordered_with(&exprs, &order_by, limit, segment, &docs, &ctx, true).unwrap();
            let plain = select_ordered_with(&exprs, &order_by, limit, segment, &docs, &ctx, false).unwrap();
            let first = &exprs[order_by[0].column];
            let narrowed = top_candidates::narrow(first, &order_by, limit, segment, &docs, &ctx).unwrap();
            prop_assert_eq!(narrowed.is_some(), raw_string_first(raw, order_by[0].column).not());
            let (t, p) = (rows_of(&typed), rows_of(&plain));
            prop_assert_eq!(t.len(), p.len());
            for (x, y) in t.iter().zip(p) {
                // NaN != NaN: compare with the total order.
                prop_assert!(compare_all(x, y) == std::cmp::Ordering::Equal, "{:?} vs {:?}", x, y);
            }
            prop_assert_eq!(typed.docs_scanned, plain.docs_scanned);
            prop_assert_eq!(typed.entries_scanned_post_filter, plain.entries_scanned_post_filter);
        }

        /// A multi-stage leaf's columns hold exactly the rows the row layout gives.
        #[test]
        fn columns_layout_matches_rows(
            raw in any::<bool>(),
            null_handling in any::<bool>(),
            limit in prop_oneof![1usize..12, 12usize..400, Just(usize::MAX)],
            seed in any::<u32>(),
        ) {
            let segment = &segments()[raw as usize];
            let docs = DocSet::bitmap((0..DOCS as u32).filter(|d| (d ^ seed) % 3 != 0).collect());
            let options = ExecutionOptions { enable_null_handling: null_handling, ..Default::default() };
            let ctx = QueryContext::new(options);
            let exprs = exprs();
            let rows = select_segment_as(ResultLayout::Rows, &exprs, &[], limit, segment, &docs, &ctx).unwrap();
            let cols = select_segment_as(ResultLayout::Columns, &exprs, &[], limit, segment, &docs, &ctx).unwrap();
            let IntermediateData::Columns(columns) = &cols.data else {
                panic!("columns expected, got {:?}", cols.data);
            };
            let expected = rows_of(&rows);
            prop_assert!(columns.iter().all(|c| c.len() == expected.len()));
            for (r, row) in expected.iter().enumerate() {
                let got: Vec<Value> = columns.iter().map(|c| c.value(r)).collect();
                prop_assert!(compare_all(&got, row) == std::cmp::Ordering::Equal, "{:?} vs {:?}", got, row);
            }
            prop_assert_eq!(cols.docs_scanned, rows.docs_scanned);
        }
    }
}
