//! One aggregate's states per group over a column of a block: the single-stage engine's
//! accumulators (so the same semantics, sketches and hashing) driven by group ids, for the
//! multi-stage aggregate and window operators.

use super::block::{Cells, Column};
use crate::aggregate::AggState;
use crate::aggregate::accumulator::{GroupAccumulator, GroupMap};
use crate::block::Projected;
use crate::error::EngineError;
use planner::plan::AggregateCall;
use planner::plan::aggregate::AggregateFunction;

/// One aggregate's states per group, with the single-stage engine's accumulators (so the same
/// semantics, sketches and hashing) over an argument column.
pub fn accumulate(
    call: &AggregateCall,
    groups: &[u32],
    num_groups: usize,
    arg: Option<&Column>,
    second: Option<&Column>,
) -> Result<Vec<AggState>, EngineError> {
    let mut acc = GroupAccumulator::new(call, None);
    acc.resize(num_groups.max(1));
    let n = groups.len();
    // A count of single values reads only which rows are NULL.
    let counts_rows = matches!(call.function, AggregateFunction::Count) && !call.multi_value;
    let projected: Option<Projected<'static>> = arg.filter(|_| !counts_rows).map(Column::projected);
    let second: Option<Projected<'static>> = second.map(Column::projected);
    let valid: Option<Vec<bool>> = arg.and_then(valid_rows);
    if n > 0 {
        acc.accumulate(
            GroupMap::PerRow(groups),
            projected.as_ref(),
            second.as_ref(),
            n,
            valid.as_deref(),
        )?;
    }
    Ok((0..num_groups).map(|g| acc.take_state(g)).collect())
}

/// Which rows of `column` are not NULL, or `None` when all are.
fn valid_rows(column: &Column) -> Option<Vec<bool>> {
    match (&column.cells, &column.nulls) {
        (Cells::I64(_) | Cells::F64(_), None) => None,
        (Cells::I64(_) | Cells::F64(_), Some(nulls)) => Some(nulls.iter().map(|n| !n).collect()),
        _ => Some((0..column.len()).map(|i| !column.is_null(i)).collect()),
    }
}
