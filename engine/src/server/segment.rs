//! One segment's part of a server plan: prune → filter → terminal operator, or — for
//! `EXPLAIN PLAN FOR` — the operator tree the segment would run, without running it.
//!
//! A scan (an aggregation or group-by that reads values, an ordered selection) over many
//! documents runs in parts: the filter's documents are cut into doc ranges
//! ([`DocSet::split`]), one rayon task each, and the parts' outputs merged by the same
//! [`Combiner`] that merges segments — except a group-by the fused kernel serves, whose
//! parts' state tables add up element by element ([`group_segment_parts`]). The caller says
//! how many parts a segment may use — its share of the pool's threads — so a query over
//! fewer segments than threads still uses every core. A filter that scans (or turns many ids of a
//! sorted column into doc ranges) runs in parts too: each doc range of the segment filtered by
//! its own executor ([`filter_in_parts`]).

use crate::context::QueryContext;
use crate::error::EngineError;
use crate::operator::SegmentOutput;
use crate::operator::aggregation::{aggregate_segment, strategy};
use crate::operator::doc_set::DocSet;
use crate::operator::filter::prune::may_match;
use crate::operator::filter::{FilterExecutor, FilterNode, SharedIndexAnswers, plan_filter};
use crate::operator::group_by::{group_segment, group_segment_parts};
use crate::operator::selection::{distinct_segment, select_segment_as};
use crate::operator::star_tree::{self, StarTreeChoice};
use crate::server::result::{Combiner, IntermediateData, SegmentExplain};
use crate::stats::ExecutionStats;
use planner::plan::binder::timestamp_rewrite::rewrite_for_segment;
use planner::plan::{AggregateCall, Expr, ServerQueryKind, ServerQueryPlan};
use rayon::prelude::*;
use segments::segment::ImmutableSegment;

/// A part of a split scan has at least this many documents: below it, a task's start and the
/// merge of one more output cost more than the thread saves.
pub const MIN_PART_DOCS: u64 = 1 << 13;

/// A segment's result.
#[derive(Debug)]
pub struct SegmentResult {
    pub data: IntermediateData,
    pub stats: ExecutionStats,
    pub groups_limit_reached: bool,
}

/// Runs `plan` over one segment, its scan in up to `parts` parallel parts.
pub fn execute_segment(
    plan: &ServerQueryPlan,
    segment: &ImmutableSegment,
    parts: usize,
    ctx: &QueryContext,
) -> Result<SegmentResult, EngineError> {
    // Timestamp index: `dateTrunc('DAY', ts)` reads `$ts$DAY` where this segment has it.
    let rewritten = rewrite_for_segment(plan, &|c| {
        segment.column(c).is_some_and(|r| {
            r.data_type() == segments::types::DataType::Long && r.metadata().single_value
        })
    });
    let plan = rewritten.as_ref().unwrap_or(plan);
    let mut stats = ExecutionStats {
        num_segments_queried: 1,
        total_docs: segment.total_docs() as u64,
        ..ExecutionStats::default()
    };
    let pruned =
        segment.total_docs() == 0 || plan.filter.as_ref().is_some_and(|f| !may_match(f, segment));
    if pruned {
        stats.num_segments_pruned_by_server = 1;
        if segment.total_docs() > 0 {
            stats.num_segments_pruned_by_value = 1;
        }
        return Ok(SegmentResult {
            data: IntermediateData::empty(plan),
            stats,
            groups_limit_reached: false,
        });
    }
    stats.num_segments_processed = 1;
    ctx.check()?;
    // Docs hidden from queries (an upsert table's older rows of a key): no answer from
    // metadata, dictionaries or pre-aggregated trees, and the filter's docs are cut to the rest.
    let queryable = ctx
        .queryable_docs(segment)
        .filter(|_| !ctx.options.skip_upsert);
    // As in Pinot, answers from metadata or dictionaries alone beat a tree.
    let non_scan = queryable.is_none()
        && plan.filter.is_none()
        && matches!(&plan.kind, ServerQueryKind::Aggregation { aggregates } if matches!(
            strategy(aggregates, segment, &DocSet::all(segment.total_docs()), ctx.null_handling()),
            crate::operator::aggregation::Strategy::Metadata
                | crate::operator::aggregation::Strategy::Dictionary
        ));
    if let Some(choice) = (!non_scan && queryable.is_none())
        .then(|| star_tree::choose(plan, segment, ctx))
        .flatten()
    {
        if plan.explain {
            return Ok(SegmentResult {
                data: IntermediateData::Explain(vec![SegmentExplain {
                    rows: star_tree_explain_rows(plan, &choice),
                    num_segments: 1,
                }]),
                stats,
                groups_limit_reached: false,
            });
        }
        let output = star_tree::execute(&choice, plan, segment, ctx)?;
        stats.num_docs_scanned = output.docs_scanned;
        stats.num_entries_scanned_post_filter = output.entries_scanned_post_filter;
        stats.num_segments_matched = u64::from(output.docs_scanned > 0);
        return Ok(SegmentResult {
            data: output.data,
            stats,
            groups_limit_reached: output.groups_limit_reached,
        });
    }
    let node = plan_filter(plan.filter.as_ref(), segment, ctx)?;
    if plan.explain {
        match node {
            FilterNode::Empty => stats.explain_num_empty_filter_segments = 1,
            FilterNode::MatchAll => stats.explain_num_match_all_filter_segments = 1,
            _ => {}
        }
        let rows = explain_rows(plan, segment, &node, ctx);
        return Ok(SegmentResult {
            data: IntermediateData::Explain(vec![SegmentExplain {
                rows,
                num_segments: 1,
            }]),
            stats,
            groups_limit_reached: false,
        });
    }
    let traced = ctx.trace.as_ref().map(|_| std::time::Instant::now());
    let mut exec = FilterExecutor::new(segment, ctx);
    let mut docs = if parts > 1 && node.splits() {
        let (docs, entries) = filter_in_parts(&node, segment, parts, ctx)?;
        exec.entries_scanned += entries;
        docs
    } else {
        exec.run(&node)?
    };
    if let Some(q) = &queryable {
        docs = docs.and(&DocSet::Bitmap(q.clone()));
    }
    let filtered = traced.map(|t0| (t0.elapsed(), std::time::Instant::now()));
    let split = if parts > 1 && is_scan(plan, segment, &docs, ctx) {
        docs.split(parts, MIN_PART_DOCS)
    } else {
        Vec::new()
    };
    let fused = match &plan.kind {
        ServerQueryKind::GroupBy { keys, aggregates } if split.len() > 1 => group_segment_parts(
            keys,
            aggregates,
            segment,
            &docs,
            &split,
            plan.options.num_groups_limit,
            ctx,
        )?,
        _ => None,
    };
    let output = if let Some(output) = fused {
        output
    } else if split.len() > 1 {
        let (output, entries) = run_parts(plan, segment, &split, ctx)?;
        exec.entries_scanned += entries;
        output
    } else {
        run_operator(plan, segment, &docs, &mut exec, ctx)?
    };
    stats.num_entries_scanned_in_filter = exec.entries_scanned;
    stats.num_docs_scanned = output.docs_scanned;
    stats.num_entries_scanned_post_filter = output.entries_scanned_post_filter;
    stats.num_segments_matched = u64::from(!docs.is_empty());
    if let (Some(collector), Some((filter_time, t1))) = (&ctx.trace, filtered) {
        collector.record(crate::trace::SegmentTrace {
            segment: segment.name().to_string(),
            operators: vec![
                crate::trace::OperatorTrace {
                    operator: "FilterOperator".into(),
                    time_ns: filter_time.as_nanos() as u64,
                    rows: docs.len(),
                },
                crate::trace::OperatorTrace {
                    operator: operator_name(&plan.kind).into(),
                    time_ns: t1.elapsed().as_nanos() as u64,
                    rows: output.docs_scanned,
                },
            ],
        });
    }
    Ok(SegmentResult {
        data: output.data,
        stats,
        groups_limit_reached: output.groups_limit_reached,
    })
}

/// The terminal operator of `plan` over `docs`.
fn run_operator<'s>(
    plan: &'s ServerQueryPlan,
    segment: &'s ImmutableSegment,
    docs: &DocSet,
    exec: &mut FilterExecutor<'s, '_>,
    ctx: &QueryContext,
) -> Result<SegmentOutput, EngineError> {
    match &plan.kind {
        ServerQueryKind::Selection {
            exprs,
            order_by,
            limit,
        } => select_segment_as(plan.layout, exprs, order_by, *limit, segment, docs, ctx),
        ServerQueryKind::Distinct {
            exprs,
            order_by,
            limit,
        } => distinct_segment(exprs, order_by, *limit, segment, docs, ctx),
        ServerQueryKind::Aggregation { aggregates } => {
            aggregate_segment(aggregates, segment, docs, exec, ctx)
        }
        ServerQueryKind::GroupBy { keys, aggregates } => group_segment(
            keys,
            aggregates,
            plan.layout,
            segment,
            docs,
            exec,
            plan.options.num_groups_limit,
            ctx,
        ),
    }
}

/// The documents matching `node`, a filter that splits, found over the segment cut into up to
/// `parts` doc ranges in parallel (each range its own executor, indexes answering within it),
/// with the entries the scans read.
fn filter_in_parts<'s>(
    node: &FilterNode<'s>,
    segment: &'s ImmutableSegment,
    parts: usize,
    ctx: &QueryContext,
) -> Result<(DocSet, u64), EngineError> {
    let ranges = DocSet::all(segment.total_docs()).split(parts, MIN_PART_DOCS);
    // Index unions once for the segment; the parts split the scans.
    let shared = SharedIndexAnswers::of(node);
    let found: Vec<Result<(DocSet, u64), EngineError>> = ranges
        .par_iter()
        .map(|range| {
            let mut exec = FilterExecutor::sharing(segment, ctx, &shared);
            let docs = exec.run_within(node, range)?;
            Ok((docs, exec.entries_scanned))
        })
        .collect();
    let mut docs = DocSet::empty();
    let mut entries = 0;
    for f in found {
        let (part, scanned) = f?;
        docs = docs.or(&part);
        entries += scanned;
    }
    Ok((docs, entries))
}

/// Whether the terminal operator reads every document of `docs` — the work that parts
/// share. Not: answers from metadata, dictionaries or a doc count, selections without order
/// that stop at a limit below the documents, and distinct (its early stop and dedup cross
/// parts). A selection without order that keeps every document (a multi-stage leaf's) does
/// share: its parts' rows concatenate in part order.
fn is_scan(
    plan: &ServerQueryPlan,
    segment: &ImmutableSegment,
    docs: &DocSet,
    ctx: &QueryContext,
) -> bool {
    match &plan.kind {
        ServerQueryKind::Selection {
            order_by, limit, ..
        } => !order_by.is_empty() || *limit as u64 >= docs.len(),
        ServerQueryKind::Distinct { .. } => false,
        ServerQueryKind::Aggregation { aggregates } => {
            strategy(aggregates, segment, docs, ctx.null_handling())
                == crate::operator::aggregation::Strategy::Scan
        }
        ServerQueryKind::GroupBy { .. } => true,
    }
}

/// The terminal operator over each part in parallel, merged in part order (so the answer
/// does not depend on scheduling), with the filter entries the parts' own executors scanned
/// (aggregation `FILTER` clauses).
fn run_parts(
    plan: &ServerQueryPlan,
    segment: &ImmutableSegment,
    parts: &[DocSet],
    ctx: &QueryContext,
) -> Result<(SegmentOutput, u64), EngineError> {
    let outputs: Vec<Result<(SegmentOutput, u64), EngineError>> = parts
        .par_iter()
        .map(|docs| {
            let mut exec = FilterExecutor::new(segment, ctx);
            let out = run_operator(plan, segment, docs, &mut exec, ctx)?;
            Ok((out, exec.entries_scanned))
        })
        .collect();
    let mut combiner = Combiner::new(plan);
    let mut merged = SegmentOutput {
        data: IntermediateData::empty(plan),
        docs_scanned: 0,
        entries_scanned_post_filter: 0,
        groups_limit_reached: false,
    };
    let mut entries = 0;
    for out in outputs {
        let (out, scanned) = out?;
        merged.docs_scanned += out.docs_scanned;
        merged.entries_scanned_post_filter += out.entries_scanned_post_filter;
        merged.groups_limit_reached |= out.groups_limit_reached;
        entries += scanned;
        combiner.add(out.data)?;
    }
    merged.groups_limit_reached |= combiner.groups_limit_reached;
    merged.data = combiner.finish();
    Ok((merged, entries))
}

/// Pinot's name for the operator that runs a server query kind (tracing).
fn operator_name(kind: &ServerQueryKind) -> &'static str {
    match kind {
        ServerQueryKind::Selection { order_by, .. } if order_by.is_empty() => {
            "SelectionOnlyOperator"
        }
        ServerQueryKind::Selection { .. } => "SelectionOrderByOperator",
        ServerQueryKind::Distinct { .. } => "DistinctOperator",
        ServerQueryKind::Aggregation { .. } => "AggregationOperator",
        ServerQueryKind::GroupBy { .. } => "GroupByOperator",
    }
}

fn join(parts: impl IntoIterator<Item = String>) -> String {
    parts.into_iter().collect::<Vec<_>>().join(", ")
}

fn column_names(exprs: &[&Expr]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in exprs {
        for c in e.columns() {
            if !out.contains(&c.name) {
                out.push(c.name);
            }
        }
    }
    out
}

/// The operator rows of a query answered by a star-tree.
fn star_tree_explain_rows(
    plan: &ServerQueryPlan,
    choice: &StarTreeChoice<'_>,
) -> Vec<(usize, String)> {
    let aggs = |a: &[AggregateCall]| join(a.iter().map(|a| a.name.clone()));
    let head = match &plan.kind {
        ServerQueryKind::GroupBy { keys, aggregates } => format!(
            "GROUP_BY(groupKeys:{}, aggregations:{})",
            join(keys.iter().map(|k| k.to_string())),
            aggs(aggregates)
        ),
        ServerQueryKind::Aggregation { aggregates } => {
            format!("AGGREGATE(aggregations:{})", aggs(aggregates))
        }
        _ => String::new(),
    };
    vec![
        (0, head),
        (
            1,
            format!("PROJECT({})", join(star_tree::explain_columns(choice))),
        ),
        (2, "DOC_ID_SET".to_string()),
        (3, star_tree::explain_filter(choice)),
    ]
}

/// The operator rows of one segment (depth relative to the plan start).
fn explain_rows(
    plan: &ServerQueryPlan,
    segment: &ImmutableSegment,
    node: &FilterNode<'_>,
    ctx: &QueryContext,
) -> Vec<(usize, String)> {
    let mut rows: Vec<(usize, String)> = Vec::new();
    let agg_text = |aggs: &[AggregateCall]| join(aggs.iter().map(|a| a.name.clone()));
    let (head, exprs): (String, Vec<&Expr>) = match &plan.kind {
        ServerQueryKind::Selection {
            exprs, order_by, ..
        } => {
            let name = if order_by.is_empty() {
                "SELECT"
            } else {
                "SELECT_ORDERBY"
            };
            (
                format!(
                    "{name}(selectList:{})",
                    join(exprs.iter().map(|e| e.to_string()))
                ),
                exprs.iter().collect(),
            )
        }
        ServerQueryKind::Distinct { exprs, .. } => (
            format!(
                "DISTINCT(keyColumns:{})",
                join(exprs.iter().map(|e| e.to_string()))
            ),
            exprs.iter().collect(),
        ),
        ServerQueryKind::Aggregation { aggregates } => {
            let all = DocSet::all(segment.total_docs());
            let none = DocSet::empty();
            let whole = matches!(node, FilterNode::MatchAll);
            let s = strategy(
                aggregates,
                segment,
                if whole { &all } else { &none },
                ctx.null_handling(),
            );
            let s = if !whole && s == crate::operator::aggregation::Strategy::Metadata {
                crate::operator::aggregation::Strategy::FastFilteredCount
            } else {
                s
            };
            match s {
                crate::operator::aggregation::Strategy::Metadata
                | crate::operator::aggregation::Strategy::Dictionary => {
                    return vec![(0, s.name().to_string())];
                }
                crate::operator::aggregation::Strategy::FastFilteredCount => {
                    rows.push((0, s.name().to_string()));
                    rows.extend(
                        node.explain(segment.total_docs())
                            .into_iter()
                            .map(|(d, t)| (d + 1, t)),
                    );
                    return rows;
                }
                crate::operator::aggregation::Strategy::Scan => (
                    format!("AGGREGATE(aggregations:{})", agg_text(aggregates)),
                    aggregates.iter().flat_map(|a| a.args()).collect(),
                ),
            }
        }
        ServerQueryKind::GroupBy { keys, aggregates } => (
            format!(
                "GROUP_BY(groupKeys:{}, aggregations:{})",
                join(keys.iter().map(|k| k.to_string())),
                agg_text(aggregates)
            ),
            keys.iter()
                .chain(aggregates.iter().flat_map(|a| a.args()))
                .collect(),
        ),
    };
    rows.push((0, head));
    let mut depth = 1;
    let transforms: Vec<String> = exprs
        .iter()
        .filter(|e| !matches!(e, Expr::Column(_)))
        .map(|e| e.to_string())
        .collect();
    if !transforms.is_empty() {
        rows.push((depth, format!("TRANSFORM({})", join(transforms))));
        depth += 1;
    }
    rows.push((depth, format!("PROJECT({})", join(column_names(&exprs)))));
    rows.push((depth + 1, "DOC_ID_SET".to_string()));
    rows.extend(
        node.explain(segment.total_docs())
            .into_iter()
            .map(|(d, t)| (d + depth + 2, t)),
    );
    rows
}
