//! One aggregate's states per group over a column of a block: the single-stage engine's
//! accumulators (so the same semantics, sketches and hashing) driven by group ids, for the
//! multi-stage aggregate and window operators.

use super::block::Column;
use crate::aggregate::AggState;
use crate::aggregate::accumulator::{GroupAccumulator, GroupMap};
use crate::block::Projected;
use crate::error::EngineError;
use planner::plan::AggregateCall;

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
    let projected: Option<Projected<'static>> = arg.map(Column::projected);
    let second: Option<Projected<'static>> = second.map(Column::projected);
    let valid: Option<Vec<bool>> = arg.map(|c| (0..c.len()).map(|i| !c.is_null(i)).collect());
    if n > 0 {
        acc.accumulate(
            GroupMap::PerRow(groups),
            projected.as_ref(),
            second.as_ref(),
            n,
            valid.as_deref(),
        )?;
    }
    Ok((0..num_groups).map(|g| acc.state(g)).collect())
}
