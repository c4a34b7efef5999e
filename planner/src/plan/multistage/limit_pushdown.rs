//! Where a `LIMIT` goes below the gather (Pinot's `PinotSortExchangeCopyRule`): a rewrite of
//! the planned tree, before it is split into stages.
//!
//! `ORDER BY … LIMIT n OFFSET m` (or a bare `LIMIT`) over rows spread over a stage's workers is
//! answered by the one worker that gathers them. The rows it keeps are among each worker's own
//! first `n + m` rows in that order, so each worker sorts its rows and sends only those; the sort
//! after the gather picks among them.
//!
//! ```text
//!   SORT(k, limit 5) ◄─singleton─ JOIN        ►   SORT(k, limit 5) ◄─singleton─ SORT(k, limit 5) ◄ JOIN
//! ```
//!
//! Only a sort directly over the gather is copied: under `SELECT DISTINCT` the distinct rows are
//! made after the gather, and a worker's first rows need not be distinct ones.

use super::rel::RelNode;
use super::stage::{Distribution, StageKind};

/// Copies each sort with a limit that reads a gather of partitioned rows below it.
pub fn push_limits(node: &mut RelNode) {
    if let RelNode::Sort {
        input,
        keys,
        offset,
        limit: Some(limit),
    } = node
        && let RelNode::Exchange(gather) = &mut **input
        && gather.kind == (StageKind::Intermediate { singleton: false })
        && gather.distribution == Some(Distribution::Singleton)
        && !matches!(gather.input, RelNode::Sort { .. })
    {
        let rows = gather.input.take();
        gather.input = RelNode::Sort {
            input: Box::new(rows),
            keys: keys.clone(),
            offset: 0,
            limit: Some(limit.saturating_add(*offset)),
        };
    }
    for i in node.inputs_mut() {
        push_limits(i);
    }
}

#[cfg(test)]
mod tests {
    use super::super::relational::test_plans::stage_shapes;

    #[test]
    fn a_limit_over_a_join_is_applied_by_each_worker_before_the_gather_too() {
        // The join's stage sorts and keeps its first rows; the root sorts those again.
        let stages =
            stage_shapes("SELECT f.k, g.d FROM f JOIN g ON f.k = g.k ORDER BY g.d LIMIT 5");
        assert!(
            stages[0].contains("SORT(RECEIVE") && stages[3].contains("SORT(PROJECT(JOIN"),
            "{stages:?}"
        );
        let stages = stage_shapes("SELECT f.k FROM f JOIN g ON f.k = g.k LIMIT 5");
        assert!(stages[3].starts_with("SORT("), "{stages:?}");
        // Without a limit, or under DISTINCT, every row goes to the root.
        for sql in [
            "SELECT f.k FROM f JOIN g ON f.k = g.k ORDER BY f.k",
            "SELECT DISTINCT f.k FROM f JOIN g ON f.k = g.k LIMIT 5",
        ] {
            let stages = stage_shapes(sql);
            assert!(!stages[3].contains("SORT"), "{sql}: {stages:?}");
        }
    }
}
