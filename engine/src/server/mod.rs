//! The server side of a single-stage query: run a [`ServerQueryPlan`] over a table's
//! segments and merge the segment results into one [`ServerResult`].
//!
//! Segments run in parallel on rayon's global pool (`par_iter`, one task per segment; a lone
//! segment runs on the calling thread, itself a rayon worker on a server); their results are
//! merged in segment order, so the answer does not depend on scheduling. When there are fewer
//! segments than threads, each segment's scan is split into doc-range parts that share the
//! rest ([`segment`]). A failing segment (including a timeout) becomes an exception in the
//! result; the others still count. The parts of a consuming segment count as the one segment
//! they are ([`ExecutionStats::add_part`]). An inline attempt ([`QueryContext::inline`]) runs
//! segments and parts one after another on the calling thread.

pub mod result;
pub mod segment;

use crate::context::QueryContext;
use crate::error::EngineError;
use crate::response::QueryException;
use crate::stats::ExecutionStats;
use planner::plan::ServerQueryPlan;
use rayon::prelude::*;
use result::{Combiner, ServerResult};
use segment::execute_segment;
use segments::segment::ImmutableSegment;
use std::sync::Arc;

/// Runs `plan` over `segments`.
pub fn execute_server(
    plan: &ServerQueryPlan,
    segments: &[Arc<ImmutableSegment>],
    ctx: &QueryContext,
) -> ServerResult {
    // Each segment's share of the pool's threads, for its scan's parts.
    let parts = if ctx.is_inline() {
        1
    } else {
        rayon::current_num_threads() / segments.len().max(1)
    };
    // One segment runs on the calling thread: handing it to the pool would only add a
    // cross-thread wake-up (the servers' callers are rayon workers already).
    let results: Vec<_> = if segments.len() == 1 || ctx.is_inline() {
        segments
            .iter()
            .map(|s| execute_segment(plan, s, parts, ctx))
            .collect()
    } else {
        segments
            .par_iter()
            .map(|s| execute_segment(plan, s, parts, ctx))
            .collect()
    };
    let mut combiner = Combiner::new(plan);
    let mut stats = ExecutionStats::default();
    let mut exceptions: Vec<QueryException> = Vec::new();
    let record = |e: &EngineError, exceptions: &mut Vec<QueryException>| {
        let ex = QueryException::from(e);
        if !exceptions.contains(&ex) {
            exceptions.push(ex);
        }
    };
    let mut groups_limit_reached = false;
    // The parts of one consuming segment (next to each other, of its name) count as it.
    let mut consuming: Option<(&str, ExecutionStats)> = None;
    for (segment, r) in segments.iter().zip(results) {
        let segment_stats = match r {
            Ok(r) => {
                groups_limit_reached |= r.groups_limit_reached;
                if let Err(e) = combiner.add(r.data) {
                    record(&e, &mut exceptions);
                }
                r.stats
            }
            Err(e) => {
                record(&e, &mut exceptions);
                ExecutionStats {
                    num_segments_queried: 1,
                    total_docs: segment.total_docs() as u64,
                    ..ExecutionStats::default()
                }
            }
        };
        let name = segment.metadata().segment_name.as_str();
        let part = segment.consuming_part();
        match (&mut consuming, part) {
            (Some((open, so_far)), Some(part)) if *open == name => {
                so_far.add_part(&segment_stats.of_consuming_part(part))
            }
            _ => {
                if let Some((_, done)) = consuming.take() {
                    stats.add(&done);
                }
                match part {
                    Some(part) => consuming = Some((name, segment_stats.of_consuming_part(part))),
                    None => stats.add(&segment_stats),
                }
            }
        }
    }
    if let Some((_, done)) = consuming {
        stats.add(&done);
    }
    groups_limit_reached |= combiner.groups_limit_reached;
    ServerResult {
        data: combiner.finish(),
        stats,
        num_groups_limit_reached: groups_limit_reached,
        exceptions,
        trace: None,
        over_budget: false,
    }
}
