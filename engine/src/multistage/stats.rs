//! `stageStats`: what each operator of each stage did, as the tree Pinot's v2 broker response
//! carries — the root stage's operators, and under each `MAILBOX_RECEIVE` the sending stage's
//! tree, rooted at its `MAILBOX_SEND`.
//!
//! Every operator a worker evaluates records its wall time and the rows it emitted
//! ([`StatsRecorder`]); a worker sends its stage's tree to the first worker of the parent stage
//! with its end-of-stream message (only to the first, so nothing is counted twice), and the
//! trees of a stage's workers are merged (rows summed, time the slowest, parallelism counted).

pub use crate::stats::OperatorStats;
use planner::plan::multistage::{RelNode, SetOpKind};
use std::time::Instant;

/// Pinot's type name of an operator.
pub fn operator_type(node: &RelNode) -> &'static str {
    match node {
        RelNode::Leaf { .. } => "LEAF",
        RelNode::Receive { .. } => "MAILBOX_RECEIVE",
        RelNode::Exchange(_) => "EXCHANGE",
        RelNode::Place(_) => "PLACE",
        RelNode::Project { .. } => "TRANSFORM",
        RelNode::Filter { .. } => "FILTER",
        RelNode::Aggregate { .. } => "AGGREGATE",
        RelNode::Join { .. } => "HASH_JOIN",
        RelNode::Window { .. } => "WINDOW",
        RelNode::Sort { .. } => "SORT_OR_LIMIT",
        RelNode::SetOp { kind, .. } => match kind {
            SetOpKind::Union => "UNION",
            SetOpKind::Intersect => "INTERSECT",
            SetOpKind::Except => "MINUS",
        },
        RelNode::Values { .. } => "LITERAL",
    }
}

/// Collects the operator tree of one worker as its operators run (each operator opens a frame
/// for its inputs' stats, then closes it with its own).
#[derive(Debug, Default)]
pub struct StatsRecorder {
    /// Open operators' children, innermost last; the bottom frame holds the finished roots.
    frames: Vec<Vec<OperatorStats>>,
    /// Open operators that stopped at their row limit.
    limited: Vec<bool>,
}

impl StatsRecorder {
    /// A recorder with no operator open.
    pub fn new() -> StatsRecorder {
        StatsRecorder {
            frames: vec![Vec::new()],
            limited: Vec::new(),
        }
    }

    /// An operator starts: its inputs' stats go into a new frame.
    pub fn open(&mut self) -> Instant {
        self.frames.push(Vec::new());
        self.limited.push(false);
        Instant::now()
    }

    /// The innermost open operator stopped at its row limit (`maxRowsInJoin`, `maxRowsInWindow`,
    /// `numGroupsLimit`).
    pub fn mark_limit_reached(&mut self) {
        if let Some(l) = self.limited.last_mut() {
            *l = true;
        }
    }

    /// The operator opened at `started` ends having emitted `rows`; `extra` are children from
    /// elsewhere (a receive's sending stage).
    pub fn close(
        &mut self,
        node: &RelNode,
        started: Instant,
        rows: usize,
        extra: Option<OperatorStats>,
    ) {
        let mut children = self.frames.pop().unwrap_or_default();
        let limited = self.limited.pop().unwrap_or(false);
        children.extend(extra);
        let stats = OperatorStats {
            kind: operator_type(node).to_string(),
            execution_time_ms: started.elapsed().as_millis() as u64,
            emitted_rows: rows as u64,
            table: match node {
                RelNode::Leaf { plan, .. } => Some(plan.table.clone()),
                _ => None,
            },
            children,
            max_rows_in_join_reached: limited && matches!(node, RelNode::Join { .. }),
            max_rows_in_window_reached: limited && matches!(node, RelNode::Window { .. }),
            num_groups_limit_reached: limited
                && matches!(node, RelNode::Aggregate { .. } | RelNode::Leaf { .. }),
            ..OperatorStats::default()
        };
        match self.frames.last_mut() {
            Some(parent) => parent.push(stats),
            None => self.frames.push(vec![stats]),
        }
    }

    /// The finished tree (the stage's root operator), if any.
    pub fn finish(mut self) -> Option<OperatorStats> {
        self.frames.first_mut().and_then(Vec::pop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(kind: &str, rows: u64, ms: u64, children: Vec<OperatorStats>) -> OperatorStats {
        OperatorStats {
            kind: kind.into(),
            emitted_rows: rows,
            execution_time_ms: ms,
            children,
            ..OperatorStats::default()
        }
    }

    #[test]
    fn workers_merge_rows_summed_time_slowest() {
        let a = OperatorStats {
            parallelism: Some(1),
            ..op("MAILBOX_SEND", 5, 3, vec![op("LEAF", 5, 2, vec![])])
        };
        let b = OperatorStats {
            parallelism: Some(1),
            ..op("MAILBOX_SEND", 7, 9, vec![op("LEAF", 7, 1, vec![])])
        };
        let m = OperatorStats::merged(vec![a, b]).unwrap();
        assert_eq!(
            (m.emitted_rows, m.execution_time_ms, m.parallelism),
            (12, 9, Some(2))
        );
        assert_eq!(m.children[0].emitted_rows, 12);
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["type"], "MAILBOX_SEND");
        assert_eq!(json["children"][0]["emittedRows"], 12);
    }
}
