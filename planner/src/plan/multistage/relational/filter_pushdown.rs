//! Filter pushdown below semi joins, a rule on the bound tree: a filter above a semi, anti or
//! `NOT IN` join goes onto the join's left side, and a join to a single row (an uncorrelated
//! scalar subquery's) above such a join goes below it first, so that a filter comparing the
//! left rows with that row goes there too.
//!
//! Binding plans a block's `IN` and `EXISTS` conjuncts first, then its scalar subqueries, then
//! what is left of its `WHERE`: TPC-H Q22's `c_acctbal > (SELECT AVG(c_acctbal) …)` filtered
//! the customers that `NOT EXISTS (… orders …)` had kept, so the anti join tested every
//! customer of the chosen countries and the orders' key filter carried all their keys. Below
//! it, the anti join tests the customers the comparison keeps, less than half of them.
//!
//! Both moves keep the answer. A semi-like join keeps or drops each left row by that row alone
//! (its output is the left row), so it commutes with a filter of the left rows. It commutes
//! with an inner or left join of its output too, the semi join's keys and condition reading the
//! same left columns either way, when that join neither multiplies nor drops rows by a column
//! the semi join reads: a join without keys to at most one row. A semi join that moves down
//! multiplies nothing, so only a filter above it makes the move worth it.

use crate::plan::expr::Expr;
use crate::plan::multistage::rel::{JoinKind, JoinRequest, Place, RelNode, Request};

/// `node` with every filter above a semi-like join moved below it, as far as it goes.
pub fn push_filters(mut node: RelNode) -> RelNode {
    for i in node.inputs_mut() {
        *i = push_filters(i.take());
    }
    match node {
        RelNode::Filter { input, condition } => filtered(*input, condition),
        other => other,
    }
}

/// `input` filtered by `condition`, the filter as deep as it may go.
fn filtered(input: RelNode, condition: Expr) -> RelNode {
    match below_semi_joins(input) {
        RelNode::Place(mut semi) if is_semi_like(&semi) => {
            if let Some(left) = left_mut(&mut semi) {
                *left = filtered(left.take(), condition);
            }
            RelNode::Place(semi)
        }
        RelNode::Filter {
            input,
            condition: first,
        } => RelNode::Filter {
            input,
            condition: both(first, condition),
        },
        other => RelNode::Filter {
            input: Box::new(other),
            condition,
        },
    }
}

/// `a AND b`, one flat conjunction.
fn both(a: Expr, b: Expr) -> Expr {
    let mut all = Vec::new();
    for e in [a, b] {
        match e {
            Expr::And(v) => all.extend(v),
            other => all.push(other),
        }
    }
    Expr::And(all)
}

/// `node`, a join to one row over semi-like joins, as those semi joins over the join to one row
/// (on their innermost left side); `node` unchanged when it is not that.
fn below_semi_joins(node: RelNode) -> RelNode {
    let RelNode::Place(mut join) = node else {
        return node;
    };
    if !joins_one_row(&join) {
        return RelNode::Place(join);
    }
    let Some(left) = left_mut(&mut join) else {
        return RelNode::Place(join);
    };
    let RelNode::Place(mut semi) = left.take() else {
        unreachable!("joins_one_row checked the left side")
    };
    let width = right_width(&join);
    // The semi join's left side becomes the join's; its condition's right columns move past
    // the joined row's.
    let (Some(semi_left), Some(join_left)) = (left_mut(&mut semi), left_mut(&mut join)) else {
        unreachable!("both are joins")
    };
    *join_left = semi_left.take();
    let left_width = join_left.output_types().len();
    if let Request::Join(JoinRequest {
        join: RelNode::Join { condition, .. },
        ..
    }) = &mut semi.request
        && let Some(c) = condition
    {
        c.rewrite(&mut |e| {
            if let Expr::Input(i) = e
                && i.index >= left_width
            {
                i.index += width;
            }
        });
    }
    if let Some(semi_left) = left_mut(&mut semi) {
        *semi_left = below_semi_joins(RelNode::Place(join));
    }
    RelNode::Place(semi)
}

/// Whether `p` is a semi, anti or `NOT IN` join.
fn is_semi_like(p: &Place) -> bool {
    matches!(
        &p.request,
        Request::Join(JoinRequest {
            join: RelNode::Join {
                kind: JoinKind::Semi | JoinKind::Anti | JoinKind::NotIn,
                asof: None,
                ..
            },
            ..
        })
    )
}

/// Whether `p` is an inner or left join without keys or condition of a semi-like join's rows to
/// at most one row, no hint asking for a lookup.
fn joins_one_row(p: &Place) -> bool {
    let Request::Join(JoinRequest {
        join:
            RelNode::Join {
                kind: JoinKind::Inner | JoinKind::Left,
                left,
                right,
                left_keys,
                condition: None,
                asof: None,
                ..
            },
        lookup: false,
        ..
    }) = &p.request
    else {
        return false;
    };
    left_keys.is_empty()
        && matches!(&**left, RelNode::Place(semi) if is_semi_like(semi))
        && at_most_one_row(right)
}

/// The left input of the join `p` asks for.
fn left_mut(p: &mut Place) -> Option<&mut RelNode> {
    match &mut p.request {
        Request::Join(JoinRequest {
            join: RelNode::Join { left, .. },
            ..
        }) => Some(left),
        _ => None,
    }
}

/// The number of columns of the right input of the join `p` asks for.
fn right_width(p: &Place) -> usize {
    match &p.request {
        Request::Join(JoinRequest {
            join: RelNode::Join { right, .. },
            ..
        }) => right.output_types().len(),
        _ => 0,
    }
}

/// Whether `node` outputs one row or none, whatever its input: a grouping without keys, or
/// literal rows no more than one, under operators that never add rows.
fn at_most_one_row(node: &RelNode) -> bool {
    match node {
        RelNode::Values { rows, .. } => rows.len() <= 1,
        RelNode::Aggregate { group_keys, .. } => group_keys.is_empty(),
        RelNode::Place(p) => match &p.request {
            Request::Aggregate(a) => a.keys.is_empty(),
            Request::Gather(n) | Request::Alone(n) => at_most_one_row(n),
            _ => false,
        },
        RelNode::Exchange(x) => at_most_one_row(&x.input),
        RelNode::Project { input, .. }
        | RelNode::Filter { input, .. }
        | RelNode::Sort { input, .. } => at_most_one_row(input),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_plans::{joins, stage_shapes};
    use crate::plan::multistage::rel::JoinKind;

    /// The filters of the leaves under the plan's semi-like join, and whether that join sits
    /// above the join to the scalar subquery's row (which has no keys).
    fn anti_join(sql: &str) -> (Vec<String>, bool) {
        let all = joins(sql);
        let anti = all
            .iter()
            .find(|j| matches!(j.kind, JoinKind::Semi | JoinKind::Anti | JoinKind::NotIn))
            .expect("a semi join");
        let scalar = all
            .iter()
            .find(|j| j.left_keys.is_empty() && !matches!(j.kind, JoinKind::NotIn))
            .expect("the scalar's join");
        (
            anti.leaf_filters.clone(),
            anti.leaf_filters.len() > scalar.leaf_filters.len(),
        )
    }

    #[test]
    fn a_comparison_with_a_scalar_subquery_filters_below_the_semi_join() {
        // Q22's shape: the anti join tests the rows the comparison keeps.
        for sql in [
            "SELECT s, COUNT(*) FROM f WHERE d > (SELECT AVG(d) FROM f WHERE d > 0) \
             AND NOT EXISTS (SELECT * FROM g WHERE g.k = f.k) GROUP BY s",
            "SELECT COUNT(*) FROM f WHERE k IN (SELECT k FROM g) AND d < (SELECT MAX(d) FROM g)",
            "SELECT COUNT(*) FROM f WHERE s NOT IN (SELECT s FROM g) AND d < (SELECT MAX(d) FROM g)",
        ] {
            let (_, above) = anti_join(sql);
            assert!(above, "{sql}: {:?}", stage_shapes(sql));
        }
    }

    #[test]
    fn a_semi_join_with_a_condition_keeps_reading_its_own_columns() {
        // The anti join's condition reads f's d and g's d: after the move its left row is f's
        // columns and the scalar's, so g's columns are read one column further on.
        let sql = "SELECT COUNT(*) FROM f WHERE d > (SELECT AVG(d) FROM g) \
                   AND NOT EXISTS (SELECT * FROM g WHERE g.k = f.k AND g.d <> f.d)";
        let (_, above) = anti_join(sql);
        assert!(above, "{:?}", stage_shapes(sql));
        let plan = stage_shapes(sql).join(" ");
        assert!(plan.contains("JOIN/Anti"), "{plan}");
    }

    #[test]
    fn a_join_to_many_rows_or_on_keys_stays_above_the_semi_join() {
        for sql in [
            // A correlated scalar subquery: one row per key, joined on it.
            "SELECT COUNT(*) FROM f WHERE d > (SELECT AVG(g.d) FROM g WHERE g.s = f.s) \
             AND NOT EXISTS (SELECT * FROM g WHERE g.k = f.k)",
            // A subquery's rows not known to be one.
            "SELECT COUNT(*) FROM f WHERE d > (SELECT d FROM g WHERE k = 1) \
             AND NOT EXISTS (SELECT * FROM g WHERE g.k = f.k)",
        ] {
            let all = joins(sql);
            let anti = all.iter().find(|j| j.kind == JoinKind::Anti).expect("anti");
            let left = all.iter().find(|j| j.kind == JoinKind::Left).expect("left");
            // The join above reads the leaves of the join below.
            assert!(
                left.leaf_filters.len() > anti.leaf_filters.len(),
                "{sql}: {:?}",
                stage_shapes(sql)
            );
        }
    }
}
