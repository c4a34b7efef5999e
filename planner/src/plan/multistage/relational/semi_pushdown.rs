//! Semi-join pushdown, a rule on the bound tree: a semi or anti join on one key and no other
//! condition (an `IN` subquery, `NOT IN`, or an `[NOT] EXISTS` correlated by one equality) whose
//! left side is a block's inner joins ([`JoinsRequest`]) and whose key is a column of one of
//! their inputs filters that input before it joins, instead of the joined rows.
//!
//! TPC-H Q18's `o_orderkey IN (SELECT l_orderkey … HAVING SUM(l_quantity) > 300)` keeps 57 of
//! 1.5 M orders; above `customer ⋈ orders ⋈ lineitem` it tested six million joined rows, on
//! `orders` it leaves 57 order keys for the joins (and their key filters) to start from. Such a
//! join keeps or drops each left row by its key alone, against a set of keys computed once, so
//! it drops the same rows wherever it runs under the block's `WHERE`, a conjunction over the
//! inner joins' rows. A semi join with a condition over the pairs it matches (Q21's
//! `l2.l_suppkey <> l1.l_suppkey`) stays where binding put it: its cost grows with the rows it
//! meets, and above the joins it meets the fewest (Q21's two `EXISTS`, pushed onto `l1`, took
//! 11 s instead of 0.3 s).
//!
//! The input's estimate keeps [`SEMI_JOIN_SELECTIVITY`] of its rows per join pushed onto it,
//! which the join-order rule ([`super::order_joins`], run next) reads.

use crate::plan::multistage::rel::{JoinKind, JoinRequest, Place, RelNode, Request};

/// The share of rows an `IN` / `EXISTS` subquery is assumed to keep.
pub const SEMI_JOIN_SELECTIVITY: f64 = 0.25;

/// `node` with every semi join that can go onto an input of the inner joins below it there.
pub fn push_semi_joins(mut node: RelNode) -> RelNode {
    for i in node.inputs_mut() {
        *i = push_semi_joins(i.take());
    }
    match node {
        RelNode::Place(semi) => pushed(semi),
        other => other,
    }
}

/// `semi` moved onto the input of the inner joins on its left whose column its key is, and
/// those joins in its place; `semi` unchanged when it cannot go there. Everything is checked
/// before anything moves.
fn pushed(mut semi: Box<Place>) -> RelNode {
    let Request::Join(JoinRequest {
        join:
            RelNode::Join {
                kind: JoinKind::Semi | JoinKind::Anti | JoinKind::NotIn,
                left,
                left_keys,
                condition: None,
                asof: None,
                ..
            },
        ..
    }) = &mut semi.request
    else {
        return RelNode::Place(semi);
    };
    let [key] = left_keys[..] else {
        return RelNode::Place(semi);
    };
    // The input takes the semi join's left side; the inner joins come out.
    let moved = if let RelNode::Place(joins) = &mut **left
        && let Request::Joins(request) = &mut joins.request
        && let Some((input, at)) = request.input_of(key)
        && let Some(target) = request.inputs.get_mut(input)
    {
        let rows = (target.estimate.rows * SEMI_JOIN_SELECTIVITY).max(1.0);
        target.estimate = target.estimate.with_rows(rows);
        let input_node = target.node.take();
        *left_keys = vec![at];
        Some((std::mem::replace(&mut **left, input_node), input))
    } else {
        None
    };
    let Some((mut joins, input)) = moved else {
        return RelNode::Place(semi);
    };
    if let RelNode::Place(p) = &mut joins
        && let Request::Joins(request) = &mut p.request
        && let Some(target) = request.inputs.get_mut(input)
    {
        target.node = RelNode::Place(semi);
    }
    joins
}

#[cfg(test)]
mod tests {
    use super::super::test_plans::joins;
    use crate::plan::multistage::rel::JoinKind;

    /// The leaves under the plan's semi (or anti) join.
    fn semi_leaves(sql: &str) -> usize {
        let all = joins(sql);
        let semi = all
            .iter()
            .find(|j| matches!(j.kind, JoinKind::Semi | JoinKind::Anti | JoinKind::NotIn))
            .expect("a semi join");
        semi.leaf_filters.len()
    }

    #[test]
    fn a_subquery_reading_one_input_filters_it_before_the_joins() {
        // f's IN, NOT IN and NOT EXISTS (correlated by one equality): on f's leaf and the
        // subquery's, under the join with g.
        for sql in [
            "SELECT COUNT(*) FROM f, g WHERE f.k = g.k AND f.s IN (SELECT s FROM g WHERE d > 1)",
            "SELECT COUNT(*) FROM f JOIN g ON f.k = g.k WHERE f.s NOT IN (SELECT x.s FROM g x WHERE x.d > 1)",
            "SELECT COUNT(*) FROM f JOIN g ON f.k = g.k WHERE NOT EXISTS (SELECT 1 FROM g x WHERE x.k = f.k)",
        ] {
            assert_eq!(semi_leaves(sql), 2, "{sql}");
        }
    }

    #[test]
    fn a_subquery_matched_on_several_inputs_keys_or_with_a_condition_stays_above_the_joins() {
        for sql in [
            // A condition over the pairs (Q21's shape).
            "SELECT COUNT(*) FROM f JOIN g ON f.k = g.k WHERE NOT EXISTS (SELECT 1 FROM g x WHERE x.k = f.k AND x.d <> f.d)",
            // `g.s` inside names the outer g: `FROM g x` hides the name.
            "SELECT COUNT(*) FROM f, g WHERE f.k = g.k AND EXISTS (SELECT 1 FROM g x WHERE x.k = f.k AND x.s = g.s)",
            "SELECT COUNT(*) FROM f, g WHERE f.k = g.k AND f.s IN (SELECT s FROM g x WHERE x.d = g.d)",
            // Two keys of one input.
            "SELECT COUNT(*) FROM f, g WHERE f.k = g.k AND f.s IN (SELECT s FROM g x WHERE x.d = f.d)",
        ] {
            assert_eq!(semi_leaves(sql), 3, "{sql}");
        }
    }
}
