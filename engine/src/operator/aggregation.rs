//! Aggregation without GROUP BY over one segment (Pinot's `AggregationOperator` and its
//! shortcuts).
//!
//! Strategies, cheapest first:
//! * `AGGREGATE_METADATA` / `FAST_FILTERED_COUNT` — only counts: answered from doc-set
//!   cardinalities (bitmap sizes), no column is read;
//! * `AGGREGATE_DICTIONARY` — counts plus MIN/MAX/MINMAXRANGE/DISTINCTCOUNT of plain
//!   dictionary columns over the whole segment: answered from the dictionaries;
//! * `AGGREGATE` — blocks are projected and fed to [`GroupAccumulator`]s (one group).
//!
//! An aggregate's `FILTER (WHERE …)` is planned and run like the query filter (indexes
//! included) to a doc set once per segment; per block it becomes the aggregate's row mask.

use super::doc_set::DocSet;
use super::filter::{FilterExecutor, plan_filter};
use super::projection::{ColumnSource, ProjectionOperator};
use super::transform::evaluate;
use super::{Operator, SegmentOutput};
use crate::aggregate::{AggState, GroupAccumulator, GroupMap};
use crate::block::{Block, ColumnData, Projected};
use crate::context::QueryContext;
use crate::error::EngineError;
use crate::key::Key;
use crate::server::result::IntermediateData;
use planner::plan::{AggregateCall, AggregateFunction, ColumnRef, Expr};
use segments::segment::ImmutableSegment;
use segments::types::Value;

/// One aggregation of a segment: its call, filter doc set and accumulator.
pub struct AggSlot<'s, 'q> {
    pub call: &'q AggregateCall,
    /// Documents the aggregate's `FILTER` admits (already within the query's doc set).
    pub filter_docs: Option<DocSet>,
    pub acc: GroupAccumulator<'s>,
}

/// The argument is a plain column of the segment with a dictionary.
fn plain_dict_column<'s>(
    call: &AggregateCall,
    segment: &'s ImmutableSegment,
) -> Option<&'s segments::dictionary::Dictionary> {
    match &call.arg {
        Some(Expr::Column(c)) => segment.column(&c.name).and_then(|r| r.dictionary()),
        _ => None,
    }
}

/// Builds the aggregation slots of a segment, running each aggregate's filter.
pub fn agg_slots<'s, 'q: 's>(
    aggregates: &'q [AggregateCall],
    segment: &'s ImmutableSegment,
    docs: &DocSet,
    exec: &mut FilterExecutor<'s, '_>,
) -> Result<Vec<AggSlot<'s, 'q>>, EngineError> {
    let mut out = Vec::with_capacity(aggregates.len());
    for call in aggregates {
        let filter_docs = match &call.filter {
            Some(f) => {
                let node = plan_filter(Some(f), segment, exec.ctx)?;
                Some(exec.run_within(&node, docs)?)
            }
            None => None,
        };
        let dict = match call.function {
            AggregateFunction::DistinctCount
            | AggregateFunction::DistinctCountHll { .. }
            | AggregateFunction::DistinctCountRawHll { .. }
            | AggregateFunction::DistinctCountSmartHll { .. }
            | AggregateFunction::DistinctCountSmartUll { .. }
            | AggregateFunction::DistinctCountSmartHllPlus { .. }
            | AggregateFunction::SegmentPartitionedDistinctCount => {
                plain_dict_column(call, segment).filter(|_| {
                    // With null handling, NULL documents must not contribute their default value:
                    // the id path cannot see nulls, so only use it when the column has none.
                    !exec.ctx.null_handling()
                        || matches!(&call.arg, Some(Expr::Column(c)) if segment.column(&c.name).and_then(|r| r.nulls()).is_none_or(|n| n.is_empty()))
                })
            }
            _ => None,
        };
        out.push(AggSlot {
            call,
            filter_docs,
            acc: GroupAccumulator::new(call, dict),
        });
    }
    Ok(out)
}

/// The columns the aggregates' arguments (and `extra` expressions) read, with a flag for
/// columns fed directly to numeric aggregations (their dictionaries get decoded once).
pub fn needed_columns(aggregates: &[AggregateCall], extra: &[Expr]) -> Vec<(ColumnRef, bool)> {
    let mut out: Vec<(ColumnRef, bool)> = Vec::new();
    let mut add = |c: ColumnRef, numeric: bool| match out.iter_mut().find(|(o, _)| o.name == c.name)
    {
        Some((_, n)) => *n |= numeric,
        None => out.push((c, numeric)),
    };
    for e in extra {
        for c in e.columns() {
            add(c, false);
        }
    }
    for a in aggregates {
        if let Some(second) = &a.second {
            for c in second.columns() {
                add(c, false);
            }
        }
        if let Some(arg) = &a.arg {
            let numeric = a.function.needs_numeric()
                || matches!(
                    a.function,
                    AggregateFunction::BoolAnd | AggregateFunction::BoolOr
                );
            let direct = matches!(arg, Expr::Column(_));
            for c in arg.columns() {
                add(c, numeric && direct);
            }
        }
    }
    out
}

/// The rows of a block an aggregate may see: its filter's documents and, with null handling,
/// rows whose argument is not NULL. `None` means every row.
pub fn valid_rows(
    block: &Block<'_>,
    filter_docs: Option<&DocSet>,
    arg: Option<&Projected<'_>>,
) -> Option<Vec<bool>> {
    let mut mask: Option<Vec<bool>> =
        filter_docs.map(|f| block.docs.iter().map(|&d| f.contains(d)).collect());
    if let Some(nulls) = arg.and_then(|a| a.nulls.as_ref()) {
        let m = mask.get_or_insert_with(|| vec![true; block.len()]);
        for (v, &n) in m.iter_mut().zip(nulls) {
            *v &= !n;
        }
    }
    // Computed arguments carry NULL results as values (a function of a NULL input).
    if let Some(Projected {
        data: ColumnData::Values(values),
        ..
    }) = arg
        && values.iter().any(Value::is_null)
    {
        let m = mask.get_or_insert_with(|| vec![true; block.len()]);
        for (v, x) in m.iter_mut().zip(values) {
            *v &= !x.is_null();
        }
    }
    mask
}

/// Feeds one block to every slot.
pub fn accumulate_block(
    slots: &mut [AggSlot<'_, '_>],
    block: &Block<'_>,
    groups: GroupMap<'_>,
    num_groups: usize,
) -> Result<(), EngineError> {
    for slot in slots.iter_mut() {
        slot.acc.resize(num_groups);
        let arg = match &slot.call.arg {
            Some(e) => Some(evaluate(e, block)?),
            None => None,
        };
        let second = match &slot.call.second {
            Some(e) => Some(evaluate(e, block)?),
            None => None,
        };
        let valid = valid_rows(block, slot.filter_docs.as_ref(), arg.as_deref());
        slot.acc.accumulate(
            groups,
            arg.as_deref(),
            second.as_deref(),
            block.len(),
            valid.as_deref(),
        )?;
    }
    Ok(())
}

/// How a segment's aggregation is answered (also its EXPLAIN name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Metadata,
    FastFilteredCount,
    Dictionary,
    Scan,
}

impl Strategy {
    /// Pinot's operator name.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Metadata => "AGGREGATE_METADATA",
            Strategy::FastFilteredCount => "FAST_FILTERED_COUNT",
            Strategy::Dictionary => "AGGREGATE_DICTIONARY",
            Strategy::Scan => "AGGREGATE",
        }
    }
}

fn has_nulls(segment: &ImmutableSegment, e: &Expr) -> bool {
    e.columns().iter().any(|c| {
        segment
            .column(&c.name)
            .and_then(|r| r.nulls())
            .is_some_and(|n| !n.is_empty())
    })
}

/// A count that needs no column: `COUNT(*)`, or `COUNT(col)` when NULLs cannot matter.
fn is_doc_count(call: &AggregateCall, segment: &ImmutableSegment, null_handling: bool) -> bool {
    call.function == AggregateFunction::Count
        && match &call.arg {
            None => true,
            Some(a) => !call.multi_value && (!null_handling || !has_nulls(segment, a)),
        }
}

/// Answerable from the dictionary of its plain column over a whole segment.
fn is_dictionary_answer(
    call: &AggregateCall,
    segment: &ImmutableSegment,
    null_handling: bool,
) -> bool {
    let numeric_fn = matches!(
        call.function,
        AggregateFunction::Min | AggregateFunction::Max | AggregateFunction::MinMaxRange
    );
    let distinct_fn = matches!(
        call.function,
        AggregateFunction::DistinctCount
            | AggregateFunction::DistinctCountSmartHll { .. }
            | AggregateFunction::DistinctCountSmartUll { .. }
            | AggregateFunction::DistinctCountSmartHllPlus { .. }
            | AggregateFunction::SegmentPartitionedDistinctCount
    );
    if call.filter.is_some() || !(numeric_fn || distinct_fn) {
        return false;
    }
    let Some(Expr::Column(c)) = &call.arg else {
        return false;
    };
    let Some(col) = segment.column(&c.name) else {
        return false;
    };
    let Some(dict) = col.dictionary() else {
        return false;
    };
    if dict.is_empty() || (null_handling && col.nulls().is_some_and(|n| !n.is_empty())) {
        return false;
    }
    !numeric_fn
        || (dict.data_type().is_numeric()
            && dict.data_type() != segments::types::DataType::BigDecimal)
}

/// Picks the strategy for a segment whose filter selected `docs`.
pub fn strategy(
    aggregates: &[AggregateCall],
    segment: &ImmutableSegment,
    docs: &DocSet,
    null_handling: bool,
) -> Strategy {
    let whole = docs.is_all(segment.total_docs());
    if aggregates
        .iter()
        .all(|a| is_doc_count(a, segment, null_handling))
    {
        return if whole && aggregates.iter().all(|a| a.filter.is_none()) {
            Strategy::Metadata
        } else {
            Strategy::FastFilteredCount
        };
    }
    if whole
        && aggregates.iter().all(|a| {
            (is_doc_count(a, segment, null_handling) && a.filter.is_none())
                || is_dictionary_answer(a, segment, null_handling)
        })
    {
        return Strategy::Dictionary;
    }
    Strategy::Scan
}

/// The state of an aggregate answered from its column's dictionary.
fn dictionary_state(call: &AggregateCall, segment: &ImmutableSegment) -> Option<AggState> {
    let Some(Expr::Column(c)) = &call.arg else {
        return None;
    };
    let dict = segment.column(&c.name)?.dictionary()?;
    let n = dict.len();
    let last = n.checked_sub(1)?;
    let (lo, hi) = (dict.f64_at(0), dict.f64_at(last));
    Some(match call.function {
        AggregateFunction::Min => AggState::Min(Some(lo)),
        AggregateFunction::Max => AggState::Max(Some(hi)),
        AggregateFunction::MinMaxRange => AggState::MinMax(Some((lo, hi))),
        AggregateFunction::DistinctCount
        | AggregateFunction::DistinctCountSmartHll { .. }
        | AggregateFunction::DistinctCountSmartUll { .. }
        | AggregateFunction::DistinctCountSmartHllPlus { .. } => {
            let mut state = AggState::Distinct((0..n).map(|id| Key(dict.value(id))).collect());
            state.convert_past_threshold(&call.function);
            state
        }
        AggregateFunction::SegmentPartitionedDistinctCount => AggState::Count(n as i64),
        _ => return None,
    })
}

/// Runs an aggregation (no GROUP BY) over the documents `docs` of a segment.
pub fn aggregate_segment<'s>(
    aggregates: &'s [AggregateCall],
    segment: &'s ImmutableSegment,
    docs: &DocSet,
    exec: &mut FilterExecutor<'s, '_>,
    ctx: &QueryContext,
) -> Result<SegmentOutput, EngineError> {
    let null_handling = ctx.null_handling();
    let chosen = strategy(aggregates, segment, docs, null_handling);
    let mut states = Vec::with_capacity(aggregates.len());
    match chosen {
        Strategy::Metadata | Strategy::FastFilteredCount | Strategy::Dictionary => {
            for call in aggregates {
                if is_doc_count(call, segment, null_handling) {
                    let n = match &call.filter {
                        Some(f) => {
                            let node = plan_filter(Some(f), segment, ctx)?;
                            exec.run_within(&node, docs)?.len()
                        }
                        None => docs.len(),
                    };
                    states.push(AggState::Count(n as i64));
                } else {
                    let s = dictionary_state(call, segment).ok_or_else(|| {
                        EngineError::execution(format!(
                            "'{}' cannot be answered from a dictionary",
                            call.name
                        ))
                    })?;
                    states.push(s);
                }
            }
            return Ok(SegmentOutput {
                data: IntermediateData::Aggregates(states),
                docs_scanned: docs.len(),
                entries_scanned_post_filter: 0,
                groups_limit_reached: false,
            });
        }
        Strategy::Scan => {}
    }
    let mut slots = agg_slots(aggregates, segment, docs, exec)?;
    let sources: Vec<ColumnSource<'s>> = needed_columns(aggregates, &[])
        .iter()
        .map(|(c, numeric)| {
            ColumnSource::new(segment, c, numeric.then_some(docs.len()), &ctx.options)
        })
        .collect();
    let mut projection = ProjectionOperator::new(docs, sources, ctx);
    while let Some(block) = projection.next()? {
        accumulate_block(&mut slots, &block, GroupMap::Single, 1)?;
    }
    for slot in &slots {
        states.push(slot.acc.state(0));
    }
    Ok(SegmentOutput {
        data: IntermediateData::Aggregates(states),
        docs_scanned: projection.docs_scanned,
        entries_scanned_post_filter: projection.docs_scanned * projection.num_columns() as u64,
        groups_limit_reached: false,
    })
}
