//! GROUP BY over one segment: rows → group slots ([`super::group_keys`]) → accumulators.
//!
//! A small dictionary key space with only counts and sums runs fused instead
//! ([`super::dense_group_by`]), through the same [`GroupKeys`].

use super::aggregation::{accumulate_block, agg_slots, needed_columns};
use super::dense_group_by::DenseGroupBy;
use super::doc_set::DocSet;
use super::filter::FilterExecutor;
use super::group_keys::GroupKeys;
use super::projection::{ColumnSource, ProjectionOperator};
use super::transform::evaluate;
use super::{Operator, SegmentOutput};
use crate::aggregate::GroupMap;
use crate::block::Projected;
use crate::column::Column;
use crate::context::QueryContext;
use crate::error::EngineError;
use crate::server::result::IntermediateData;
use planner::plan::{AggregateCall, Expr, ResultLayout};
use segments::segment::ImmutableSegment;

/// Runs GROUP BY over the documents `docs` of a segment, keeping at most `groups_limit` groups
/// (the plan's `numGroupsLimit`); the general path answers groups as columns under
/// [`ResultLayout::Columns`] (a multi-stage leaf), the fused kernel as rows.
#[allow(clippy::too_many_arguments)]
pub fn group_segment<'s>(
    keys: &[Expr],
    aggregates: &'s [AggregateCall],
    layout: ResultLayout,
    segment: &'s ImmutableSegment,
    docs: &DocSet,
    exec: &mut FilterExecutor<'s, '_>,
    groups_limit: usize,
    ctx: &QueryContext,
) -> Result<SegmentOutput, EngineError> {
    let (group_keys, kernel) = fused(keys, aggregates, segment, docs, groups_limit, ctx);
    match kernel {
        Some(kernel) => kernel.run(group_keys, docs, ctx),
        None => group_rows(
            keys, aggregates, layout, segment, docs, exec, ctx, group_keys,
        ),
    }
}

/// Runs GROUP BY over the documents `docs` of a segment cut into `parts` (in order, covering
/// `docs`) when the fused kernel applies: it scans the parts in parallel into state tables
/// indexed alike and adds them up. `None` when it does not apply (the caller runs the parts
/// and merges their outputs by key).
pub fn group_segment_parts<'s>(
    keys: &[Expr],
    aggregates: &'s [AggregateCall],
    segment: &'s ImmutableSegment,
    docs: &DocSet,
    parts: &[DocSet],
    groups_limit: usize,
    ctx: &QueryContext,
) -> Result<Option<SegmentOutput>, EngineError> {
    match fused(keys, aggregates, segment, docs, groups_limit, ctx) {
        (group_keys, Some(kernel)) => kernel.run_parts(group_keys, docs, parts, ctx).map(Some),
        (_, None) => Ok(None),
    }
}

/// The segment's group keys, and the fused kernel if it serves the query over `docs`.
fn fused<'s>(
    keys: &[Expr],
    aggregates: &'s [AggregateCall],
    segment: &'s ImmutableSegment,
    docs: &DocSet,
    groups_limit: usize,
    ctx: &QueryContext,
) -> (GroupKeys<'s>, Option<DenseGroupBy<'s>>) {
    let mut group_keys = GroupKeys::new(keys, segment, ctx.null_handling(), groups_limit);
    let kernel = DenseGroupBy::new(keys, aggregates, segment, &group_keys, docs, ctx);
    if kernel.is_none() {
        group_keys.dense_for_rows(docs.len());
    }
    (group_keys, kernel)
}

/// The general GROUP BY path: projected blocks, evaluated keys, one accumulator per aggregate.
#[allow(clippy::too_many_arguments)]
pub(super) fn group_rows<'s>(
    keys: &[Expr],
    aggregates: &'s [AggregateCall],
    layout: ResultLayout,
    segment: &'s ImmutableSegment,
    docs: &DocSet,
    exec: &mut FilterExecutor<'s, '_>,
    ctx: &QueryContext,
    mut group_keys: GroupKeys<'s>,
) -> Result<SegmentOutput, EngineError> {
    let mut slots = agg_slots(aggregates, segment, docs, exec)?;
    let sources: Vec<ColumnSource<'s>> = needed_columns(aggregates, keys)
        .iter()
        .map(|(c, numeric)| {
            ColumnSource::new(segment, c, numeric.then_some(docs.len()), &ctx.options)
        })
        .collect();
    let mut projection = ProjectionOperator::new(docs, sources, ctx);
    while let Some(block) = projection.next()? {
        let key_values = keys
            .iter()
            .map(|k| evaluate(k, &block))
            .collect::<Result<Vec<_>, _>>()?;
        let key_refs: Vec<&Projected<'_>> = key_values.iter().map(|k| k.as_ref()).collect();
        let (rows, groups) = group_keys.assign(&key_refs, block.len());
        let map = if rows.is_empty() && groups.len() == block.len() {
            GroupMap::PerRow(&groups)
        } else {
            GroupMap::Pairs {
                rows: &rows,
                groups: &groups,
            }
        };
        accumulate_block(&mut slots, &block, map, group_keys.len())?;
    }
    let n = group_keys.len();
    let data = match layout {
        // A multi-stage leaf's groups, column by column: no row of keys and states is built.
        ResultLayout::Columns => {
            let mut columns: Vec<Column> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| group_keys.key_column(i, k.column_type().data_type))
                .collect();
            columns.extend(slots.iter_mut().zip(aggregates).map(|(s, call)| {
                let data_type = call.result_column_type().data_type;
                s.acc.number_column(n, data_type).unwrap_or_else(|| {
                    Column::states(data_type, (0..n).map(|g| s.acc.take_state(g)).collect())
                })
            }));
            IntermediateData::Columns(columns)
        }
        ResultLayout::Rows => IntermediateData::Groups(
            (0..n)
                .map(|g| {
                    let states = slots.iter_mut().map(|s| s.acc.take_state(g)).collect();
                    (group_keys.key_values(g), states)
                })
                .collect(),
        ),
    };
    Ok(SegmentOutput {
        data,
        docs_scanned: projection.docs_scanned,
        entries_scanned_post_filter: projection.docs_scanned * projection.num_columns() as u64,
        groups_limit_reached: group_keys.limit_reached,
    })
}
