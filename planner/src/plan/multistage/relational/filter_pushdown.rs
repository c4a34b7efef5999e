//! Where a filter binding left above a join to a scalar subquery's row or above a semi join
//! goes, a rule on the bound tree: below semi joins, and onto the one input of a block's inner
//! joins it reads.
//!
//! Binding plans a block's `IN` and `EXISTS` conjuncts first, then its scalar subqueries, then
//! what is left of its `WHERE` (the comparisons with those subqueries), above them all:
//! - TPC-H Q22's `c_acctbal > (SELECT AVG(c_acctbal) …)` filtered the customers that
//!   `NOT EXISTS (… orders …)` had kept, so the anti join tested every customer of the chosen
//!   countries and the orders' key filter carried all their keys. Below it, the anti join tests
//!   the customers the comparison keeps, less than half of them.
//! - Q15's `total_revenue = (SELECT MAX(total_revenue) …)` filtered the revenue view's rows after
//!   they had joined `supplier`. On the view's input, one row joins `supplier` (and its key
//!   filter reads one key).
//!
//! So a filter above a semi, anti or `NOT IN` join goes onto the join's left side; a join to at
//! most one row above such a join goes below it first, so that a filter comparing the left
//! rows with that row goes there too; and a filter reading one input of a block's inner joins
//! (and the row of a join to one row above them) goes onto that input, with the join to the
//! row, whose columns the inner joins then output last.
//!
//! Each move keeps the answer. A semi-like join keeps or drops each left row by that row alone
//! (its output is the left row), so it commutes with a filter of the left rows. It commutes
//! with an inner or left join of its output too, the semi join's keys and condition reading the
//! same left columns either way, when that join neither multiplies nor drops rows by a column
//! the semi join reads: a join without keys to at most one row. Such a join adds the same
//! columns to every row wherever it runs under the inner joins, so a filter of one input's
//! columns and the row's may run before them. Only a filter makes a move worth it: a semi join
//! that moves down multiplies nothing, a filtered input joins fewer rows.

use crate::plan::expr::Expr;
use crate::plan::multistage::rel::{ConjunctKind, JoinKind, JoinRequest, Place, RelNode, Request};
use crate::plan::multistage::rows_estimate::RowsEstimate;
use std::collections::BTreeSet;

/// The share of an input's rows a filter moved onto it is assumed to keep (as
/// `estimate::plan_estimate` reads a filter above the leaves).
const FILTER_SELECTIVITY: f64 = 0.5;

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
        RelNode::Place(join) if joins_inputs_to_one_row(&join) => {
            match onto_joins_input(join, condition) {
                Ok(joins) => joins,
                Err((join, condition)) => RelNode::Filter {
                    input: Box::new(RelNode::Place(join)),
                    condition,
                },
            }
        }
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
        shift_inputs(c, left_width, width);
    }
    if let Some(semi_left) = left_mut(&mut semi) {
        *semi_left = below_semi_joins(RelNode::Place(join));
    }
    RelNode::Place(semi)
}

/// `e` with every input column at or past `from` read `by` columns further on.
fn shift_inputs(e: &mut Expr, from: usize, by: usize) {
    e.rewrite(&mut |n| {
        if let Expr::Input(i) = n
            && i.index >= from
        {
            i.index += by;
        }
    });
}

/// `condition` over `join`, a join to one row above a block's inner joins, as those inner joins
/// with the join to one row on the one input `condition` reads, filtered there (the input's
/// columns, then the row's, which the inner joins now output last); `Err` with both unchanged
/// when `condition` reads no input or several.
fn onto_joins_input(mut join: Box<Place>, condition: Expr) -> Result<RelNode, (Box<Place>, Expr)> {
    let row_width = right_width(&join);
    let Some(RelNode::Place(joins)) = left_mut(&mut join) else {
        return Err((join, condition));
    };
    let Request::Joins(request) = &mut joins.request else {
        return Err((join, condition));
    };
    let width = request.output.len();
    let mut read = BTreeSet::new();
    condition.visit(&mut |e| {
        if let Expr::Input(i) = e
            && i.index < width
        {
            read.insert(request.input_of(i.index).map(|(input, _)| input));
        }
    });
    let mut read = read.into_iter();
    let (Some(Some(target)), None) = (read.next(), read.next()) else {
        return Err((join, condition));
    };
    let widths: Vec<usize> = request
        .inputs
        .iter()
        .map(|i| i.node.output_types().len())
        .collect();
    let (offset, input_width) = (widths[..target].iter().sum::<usize>(), widths[target]);
    // The condition over the input's columns and then the row's (every column it reads below
    // the row's is the target's, checked above).
    let mut local = condition;
    local.rewrite(&mut |e| {
        if let Expr::Input(i) = e {
            match i.index.checked_sub(width) {
                Some(row_column) => i.index = input_width + row_column,
                None => {
                    if let Some((_, at)) = request.input_of(i.index) {
                        i.index = at;
                    }
                }
            }
        }
    });
    // The row's columns come right after the input's among all inputs' columns.
    let end = offset + input_width;
    let shift = |p: &mut usize| {
        if *p >= end {
            *p += row_width;
        }
    };
    request.output.iter_mut().for_each(shift);
    for c in &mut request.conjuncts {
        match &mut c.kind {
            ConjunctKind::Key(a, b) => {
                shift(a);
                shift(b);
            }
            ConjunctKind::Condition(e) => shift_inputs(e, end, row_width),
        }
    }
    request.output.extend(end..end + row_width);
    let input = &mut request.inputs[target];
    let mut distinct = input.estimate.columns(input_width);
    distinct.extend(std::iter::repeat_n(1.0, row_width));
    input.estimate = RowsEstimate::new(
        (input.estimate.rows * FILTER_SELECTIVITY).max(1.0),
        distinct,
    );
    let input_node = input.node.take();
    let Some(left) = left_mut(&mut join) else {
        unreachable!("a join's left input was read above")
    };
    let mut joins = std::mem::replace(left, input_node);
    let filtered_input = filtered(RelNode::Place(join), local);
    if let RelNode::Place(p) = &mut joins
        && let Request::Joins(request) = &mut p.request
    {
        request.inputs[target].node = filtered_input;
    }
    Ok(joins)
}

/// Whether `p` is a join to one row (see [`joins_one_row`]) of a block's inner joins' rows.
fn joins_inputs_to_one_row(p: &Place) -> bool {
    one_row_join(p).is_some_and(
        |left| matches!(left, RelNode::Place(joins) if matches!(joins.request, Request::Joins(_))),
    )
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

/// Whether `p` is a join to one row (see [`one_row_join`]) of a semi-like join's rows.
fn joins_one_row(p: &Place) -> bool {
    one_row_join(p).is_some_and(|left| matches!(left, RelNode::Place(semi) if is_semi_like(semi)))
}

/// The left input of `p` when it is an inner or left join without keys or condition to at most
/// one row, no hint asking for a lookup.
fn one_row_join(p: &Place) -> Option<&RelNode> {
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
        return None;
    };
    (left_keys.is_empty() && at_most_one_row(right)).then_some(&**left)
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

    /// Whether the plan's semi-like join sits above the join to the scalar subquery's row
    /// (which has no keys): it reads more leaves.
    fn semi_above_scalar(sql: &str) -> bool {
        let all = joins(sql);
        let anti = all
            .iter()
            .find(|j| matches!(j.kind, JoinKind::Semi | JoinKind::Anti | JoinKind::NotIn))
            .expect("a semi join");
        let scalar = all
            .iter()
            .find(|j| j.left_keys.is_empty() && !matches!(j.kind, JoinKind::NotIn))
            .expect("the scalar's join");
        anti.leaf_filters.len() > scalar.leaf_filters.len()
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
            assert!(semi_above_scalar(sql), "{sql}: {:?}", stage_shapes(sql));
        }
    }

    #[test]
    fn a_semi_join_with_a_condition_keeps_reading_its_own_columns() {
        // The anti join's condition reads f's d and g's d: after the move its left row is f's
        // columns and the scalar's, so g's columns are read one column further on.
        let sql = "SELECT COUNT(*) FROM f WHERE d > (SELECT AVG(d) FROM g) \
                   AND NOT EXISTS (SELECT * FROM g WHERE g.k = f.k AND g.d <> f.d)";
        assert!(semi_above_scalar(sql), "{:?}", stage_shapes(sql));
        let plan = stage_shapes(sql).join(" ");
        assert!(plan.contains("JOIN/Anti"), "{plan}");
    }

    #[test]
    fn a_comparison_of_one_input_with_a_scalar_subquery_filters_it_before_the_joins() {
        // Q15's shape: g's rows equal to the maximum join f, not all of them. The join to the
        // scalar's row is below the inner join, which reads its leaves too.
        for sql in [
            "SELECT f.s FROM f, g WHERE f.k = g.k AND g.d = (SELECT MAX(d) FROM g)",
            "SELECT f.s, g.d FROM f JOIN g ON f.k = g.k WHERE f.d > (SELECT AVG(d) FROM f)",
        ] {
            let all = joins(sql);
            let inner = all
                .iter()
                .find(|j| j.kind == JoinKind::Inner)
                .expect("inner");
            let scalar = all
                .iter()
                .find(|j| j.left_keys.is_empty())
                .expect("the scalar's join");
            assert!(
                inner.leaf_filters.len() > scalar.leaf_filters.len(),
                "{sql}: {:?}",
                stage_shapes(sql)
            );
        }
        // A comparison reading both inputs stays above their join.
        let sql = "SELECT f.s FROM f, g WHERE f.k = g.k AND f.d + g.d > (SELECT AVG(d) FROM g)";
        let all = joins(sql);
        let inner = all
            .iter()
            .find(|j| j.kind == JoinKind::Inner)
            .expect("inner");
        let scalar = all.iter().find(|j| j.left_keys.is_empty()).expect("scalar");
        assert!(
            scalar.leaf_filters.len() > inner.leaf_filters.len(),
            "{:?}",
            stage_shapes(sql)
        );
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
