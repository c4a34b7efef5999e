//! Where a single table's grouping runs on every worker: a join side that is a single-table
//! block with `GROUP BY` (`o_orderkey IN (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey
//! HAVING SUM(l_quantity) > 300)`, TPC-H Q18) is planned as Pinot's leaf shape — partial groups
//! in the leaf, gathered to one worker for the final aggregate ([`super::super::single_table`]).
//! As the input of a keyed join that one worker would merge every server's groups alone (Q18:
//! 1.5M on two servers), and its output would be hashed again for the join.
//!
//! So before a keyed join places its sides, such a side — operators that keep rows where they
//! are (projections, filters such as `HAVING`) over a final aggregate with group keys over the
//! leaf's receive, not yet placed — has its leaf hash the partial groups on the group keys:
//! each group's partial states meet on one worker, which merges them as the one worker did, and
//! the side is partitioned on its group keys. The join then keeps it where it is when its keys
//! are the group keys, or hashes it on its keys from every worker. On one server nothing moves
//! differently (one worker either way).

use crate::plan::multistage::rel::{AggMode, Exchange, RelNode};
use crate::plan::multistage::stage::Distribution;

/// Makes `node`, when it is a single table's grouping gathered to one worker, grouped on every
/// worker: its leaf sends hashed on the group keys. Returns whether it did (the rows are then
/// spread over the workers).
pub(super) fn partition_grouping(node: &mut RelNode) -> bool {
    match grouped_leaf(node) {
        Some((leaf, keys)) => {
            leaf.distribution = Some(Distribution::Hash(keys));
            true
        }
        None => false,
    }
}

/// The leaf's exchange, not placed yet, and the group keys of a final aggregate over it,
/// under operators that keep each row where it is.
fn grouped_leaf(node: &mut RelNode) -> Option<(&mut Exchange, Vec<usize>)> {
    match node {
        RelNode::Project { input, .. } | RelNode::Filter { input, .. } => grouped_leaf(input),
        RelNode::Aggregate {
            input,
            group_keys,
            mode: AggMode::Final | AggMode::Direct,
            ..
        } => {
            let keys = group_keys.clone();
            Exchange::undecided(input)
                .filter(|_| !keys.is_empty())
                .map(|x| (x, keys))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_plans::stage_shapes;

    #[test]
    fn a_grouping_joined_on_its_keys_is_final_in_the_join_stage() {
        // The derived table's final aggregate and HAVING run in the join's stage, over the
        // leaf's partial groups hashed on `k`: no stage of its own.
        let sql = "SELECT f.d, t.n FROM f JOIN \
                   (SELECT k, COUNT(*) AS n FROM g GROUP BY k HAVING COUNT(*) > 1) t ON f.k = t.k";
        let shapes = stage_shapes(sql);
        assert_eq!(shapes.len(), 4, "{shapes:?}");
        let join = shapes
            .iter()
            .find(|s| s.contains("JOIN/Inner"))
            .expect("a join stage");
        assert!(join.contains("AGGREGATE/Final(RECEIVE"), "{shapes:?}");
        // An IN subquery's grouping too.
        let sql = "SELECT f.d FROM f WHERE f.k IN (SELECT k FROM g GROUP BY k HAVING SUM(d) > 1)";
        let shapes = stage_shapes(sql);
        assert_eq!(shapes.len(), 4, "{shapes:?}");
        // A grouping with ORDER BY and LIMIT needs all groups on one worker: it keeps its
        // stage.
        let sql = "SELECT f.d FROM f JOIN \
                   (SELECT k, COUNT(*) AS n FROM g GROUP BY k ORDER BY n DESC LIMIT 5) t ON f.k = t.k";
        assert_eq!(stage_shapes(sql).len(), 5);
    }
}
