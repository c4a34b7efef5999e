//! Selection and DISTINCT over one segment.
//!
//! * Selection without ORDER BY reads blocks until `limit` rows are collected (documents in
//!   ascending order) and stops; with ORDER BY it keeps the segment's top `limit` rows,
//!   trimming as it goes.
//! * DISTINCT collects distinct rows in first-seen order; without ORDER BY it stops at
//!   `limit`, with ORDER BY it keeps the top `limit`.

use super::doc_set::DocSet;
use super::projection::{ColumnSource, ProjectionOperator};
use super::transform::evaluate;
use super::{Operator, SegmentOutput};
use crate::context::QueryContext;
use crate::error::EngineError;
use crate::key::RowKey;
use crate::server::result::IntermediateData;
use crate::sort::{TopK, sort_and_truncate};
use planner::plan::{ColumnRef, Expr, SortKey};
use segments::segment::ImmutableSegment;
use segments::types::Value;
use std::collections::{HashMap, HashSet};

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
    let sources = columns_of(exprs)
        .iter()
        .map(|c| ColumnSource::new(segment, c, None, &ctx.options))
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
/// rows are read for the `k` winners alone.
fn select_ordered(
    exprs: &[Expr],
    order_by: &[SortKey],
    limit: usize,
    segment: &ImmutableSegment,
    docs: &DocSet,
    ctx: &QueryContext,
) -> Result<SegmentOutput, EngineError> {
    let key_exprs: Vec<Expr> = order_by
        .iter()
        .map(|k| {
            exprs.get(k.column).cloned().ok_or_else(|| {
                EngineError::execution(format!("ORDER BY column {} is not projected", k.column))
            })
        })
        .collect::<Result<_, _>>()?;
    let heap_keys: Vec<SortKey> = order_by
        .iter()
        .enumerate()
        .map(|(i, k)| SortKey {
            column: i,
            ..k.clone()
        })
        .collect();
    let mut top = TopK::new(&heap_keys, limit);
    let mut proj = projection(&key_exprs, segment, docs, ctx);
    let key_width = proj.num_columns() as u64;
    let mut docs_scanned = 0u64;
    while let Some(block) = proj.next()? {
        docs_scanned += block.len() as u64;
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
    let winner_set = DocSet::Bitmap(winners.iter().copied().collect());
    let mut full = projection(exprs, segment, &winner_set, ctx);
    let full_width = full.num_columns() as u64;
    let mut by_doc: HashMap<u32, Vec<Value>> = HashMap::with_capacity(winners.len());
    while let Some(block) = full.next()? {
        let rows = block_rows(exprs, &block, block.len())?;
        by_doc.extend(block.docs.iter().copied().zip(rows));
    }
    let rows = winners.iter().filter_map(|d| by_doc.remove(d)).collect();
    Ok(SegmentOutput {
        data: IntermediateData::Rows(rows),
        docs_scanned,
        entries_scanned_post_filter: docs_scanned * key_width
            + winners.len() as u64 * full_width.saturating_sub(key_width),
        groups_limit_reached: false,
    })
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
