//! Where aggregation is pushed below a join ("eager aggregation", Yan and Larson's group-by
//! before join): `SELECT d.g, SUM(f.x) FROM f JOIN d ON f.k = d.k GROUP BY d.g` groups `f`'s
//! rows by `k` — and by every other column of `f` read outside the aggregates — in `f`'s leaf,
//! so the join meets one row per group instead of every row of `f`; the aggregate above the
//! join merges what the groups carry: the sum of their sums, the sum of their counts (`$SUM0`,
//! so a count over no rows stays 0), the least of their minimums, the greatest of their
//! maximums. A group joined with n rows of the other side counts n times, as each of its rows
//! would have, so the answer is the same.
//!
//! Legal when every aggregate is a plain `COUNT`, `SUM`, `MIN` or `MAX` (not distinct, one
//! argument, not multi-value) reading only columns of one side of an equi-join (the aggregated
//! side), and that side is
//! - kept whole by the join (either side of an inner join, the outer side of a left or right
//!   join): every row of it reaches the join's output as itself; or
//! - the side an outer join fills with NULLs, when no aggregate counts rows (`COUNT(*)`): an
//!   unmatched row of the other side then carries NULL sums, counts and extremes, which the
//!   aggregates ignore as they ignored its NULL values.
//!
//! Done when the aggregated side is a leaf's rows sent hashed on the join keys and its leaf is
//! estimated to make at most [`GROUPS_SHARE`] as many groups as it reads rows (TPC-H Q13's
//! orders: 1.5M rows, 100K customers): grouping costs a hash per row where it is read, and pays
//! in the rows it keeps from the exchange, the join and the aggregate above.

use super::Planner;
use crate::plan::aggregate::{AggregateCall, AggregateFunction};
use crate::plan::expr::Expr;
use crate::plan::multistage::rel::{AggMode, JoinKind, RelNode};
use crate::plan::multistage::relation::{Col, Rel, input};
use crate::plan::multistage::rows_estimate::RowsEstimate;
use crate::plan::multistage::stage::{Distribution, StageKind};
use crate::plan::query_plan::{ResultLayout, ServerQueryKind};
use segments::types::ColumnType;
use std::collections::BTreeSet;

/// Groups at most this share of the rows they are made of: worth making before the join.
const GROUPS_SHARE: f64 = 0.2;

/// An operator between the aggregate and the join below it.
enum Layer {
    Filter(Expr),
    /// A projection that only picks input columns.
    Pick(Vec<usize>),
}

/// Which input of the join the aggregates read.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Left,
    Right,
}

/// What pushing the aggregates into one side's leaf takes.
struct Push {
    side: Side,
    /// The side's columns the groups are made by, ascending (its join keys among them).
    group: Vec<usize>,
    /// Each of those columns' estimated distinct values.
    distinct: Vec<f64>,
    groups: f64,
}

impl Planner<'_> {
    /// Pushes `aggregates` (over `rel`'s columns, grouped by `keys`) into the leaf feeding one
    /// side of the join under `rel` when that is legal and estimated to pay (see the module
    /// docs). Then `rel` is rebuilt over the grouped side: its columns only the aggregates read
    /// are gone, one column per aggregate follows the others — its partial value per group,
    /// carried through the join — `keys` read the columns where they went, and each aggregate
    /// merges its column. A count is merged by `$SUM0`, a DOUBLE the caller casts back to a
    /// count's LONG: returns which aggregates those are, or `None` when nothing was pushed.
    pub(super) fn eager_aggregate(
        &mut self,
        rel: &mut Rel,
        keys: &mut [Expr],
        aggregates: &mut [AggregateCall],
    ) -> Option<Vec<usize>> {
        let (layers, push, at) = self.eager_plan(rel, keys, aggregates)?;
        let counts = (0..aggregates.len())
            .filter(|&i| aggregates[i].function == AggregateFunction::Count)
            .collect();
        self.push(rel, layers, push, keys, aggregates, &at);
        Some(counts)
    }

    /// What [`Planner::eager_aggregate`] does, when it does: the layers between the aggregate
    /// and the join, the push, and the join column each of `rel`'s columns is.
    fn eager_plan(
        &self,
        rel: &Rel,
        keys: &[Expr],
        aggregates: &[AggregateCall],
    ) -> Option<(Vec<Layer>, Push, Vec<usize>)> {
        if aggregates.is_empty() || !aggregates.iter().all(mergeable) {
            return None;
        }
        // From the aggregate down to the join: the layers and where each column comes from.
        let mut layers = Vec::new();
        let mut node = &rel.node;
        let join = loop {
            match node {
                RelNode::Filter { input, condition } => {
                    layers.push(Layer::Filter(condition.clone()));
                    node = input;
                }
                RelNode::Project { input, exprs } => {
                    let picks = exprs
                        .iter()
                        .map(|e| match e {
                            Expr::Input(i) => Some(i.index),
                            _ => None,
                        })
                        .collect::<Option<Vec<usize>>>()?;
                    layers.push(Layer::Pick(picks));
                    node = input;
                }
                RelNode::Join { .. } => break node,
                _ => return None,
            }
        };
        let RelNode::Join {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            condition,
            asof: None,
            publish_keys: None,
            dynamic_broadcast: false,
        } = join
        else {
            return None;
        };
        if left_keys.is_empty() {
            return None;
        }
        let left_width = left.output_types().len();
        let join_width = left_width + right.output_types().len();
        // The join's columns each of `rel`'s is, and those read above the join other than by
        // the aggregates (the join's own condition among them).
        let mut used = BTreeSet::new();
        let mut at: Vec<usize> = (0..join_width).collect();
        if let Some(c) = condition {
            inputs(c, &mut |i| used.insert(i));
        }
        for layer in layers.iter().rev() {
            match layer {
                Layer::Filter(c) => inputs(c, &mut |i| used.insert(at[i])),
                Layer::Pick(picks) => at = picks.iter().map(|&p| at[p]).collect(),
            }
        }
        for k in keys {
            inputs(k, &mut |i| used.insert(at[i]));
        }
        let mut read = BTreeSet::new();
        for a in aggregates.iter() {
            a.args()
                .for_each(|e| inputs(e, &mut |i| read.insert(at[i])));
        }
        let counts_rows = aggregates.iter().any(|a| a.arg.is_none());
        let sides: &[Side] = match (read.first(), read.last()) {
            (Some(_), Some(&hi)) if hi < left_width => &[Side::Left],
            (Some(&lo), Some(_)) if lo >= left_width => &[Side::Right],
            (Some(_), Some(_)) => return None,
            _ => &[Side::Left, Side::Right],
        };
        let push = sides
            .iter()
            .filter(|&&side| {
                let kept = match side {
                    Side::Left => matches!(kind, JoinKind::Inner | JoinKind::Left),
                    Side::Right => matches!(kind, JoinKind::Inner | JoinKind::Right),
                };
                matches!(
                    kind,
                    JoinKind::Inner | JoinKind::Left | JoinKind::Right | JoinKind::Full
                ) && (kept || !counts_rows)
            })
            .filter_map(|&side| {
                let (node, offset, join_keys) = match side {
                    Side::Left => (&**left, 0, left_keys),
                    Side::Right => (&**right, left_width, right_keys),
                };
                let width = node.output_types().len();
                let mut group: BTreeSet<usize> = join_keys.iter().copied().collect();
                group.extend(
                    used.iter()
                        .filter(|&&c| c >= offset && c < offset + width)
                        .map(|c| c - offset),
                );
                self.pushable(node, join_keys, group.into_iter().collect(), side)
            })
            .min_by(|a, b| a.groups.total_cmp(&b.groups))?;
        Some((layers, push, at))
    }

    /// The push into the leaf `node` receives from, grouped by its columns `group`, when that
    /// leaf sends every row it reads hashed on `join_keys`, the columns are single values and it
    /// is estimated to make few enough groups.
    fn pushable(
        &self,
        node: &RelNode,
        join_keys: &[usize],
        group: Vec<usize>,
        side: Side,
    ) -> Option<Push> {
        let RelNode::Exchange(x) = node else {
            return None;
        };
        let RelNode::Leaf { plan, key_filters } = &x.input else {
            return None;
        };
        let ServerQueryKind::Selection {
            exprs,
            order_by,
            limit,
        } = &plan.kind
        else {
            return None;
        };
        // A group key of many values groups by each value (v1's group-by of a multi-value
        // column): the rows the join meets would not be the side's rows.
        let single_values = group
            .iter()
            .all(|&c| exprs.get(c).is_some_and(|e| e.column_type().single_value));
        let sent_hashed = matches!(&x.distribution, Some(Distribution::Hash(k)) if k == join_keys);
        if !matches!(x.kind, StageKind::Leaf { .. })
            || !key_filters.is_empty()
            || !order_by.is_empty()
            || *limit < u32::MAX as usize
            || !sent_hashed
            || !single_values
        {
            return None;
        }
        let estimate = x.estimate.as_ref()?;
        let distinct: Vec<f64> = group.iter().map(|&c| estimate.distinct(c)).collect();
        let groups = distinct.iter().product::<f64>().min(estimate.rows);
        (groups <= estimate.rows * GROUPS_SHARE).then_some(Push {
            side,
            group,
            distinct,
            groups,
        })
    }

    /// Makes `push`'s leaf group its rows and `rel` carry each group's partial values; see
    /// [`Planner::eager_aggregate`].
    fn push(
        &mut self,
        rel: &mut Rel,
        layers: Vec<Layer>,
        push: Push,
        keys: &mut [Expr],
        aggregates: &mut [AggregateCall],
        at: &[usize],
    ) {
        // Peel `rel` down to its join.
        let mut node = std::mem::replace(
            &mut rel.node,
            RelNode::Values {
                rows: Vec::new(),
                types: Vec::new(),
            },
        );
        for _ in &layers {
            node = match node {
                RelNode::Filter { input, .. } | RelNode::Project { input, .. } => *input,
                other => other,
            };
        }
        let RelNode::Join {
            left,
            right,
            left_keys,
            right_keys,
            condition,
            ..
        } = &mut node
        else {
            unreachable!("eager_aggregate found a join under the layers")
        };
        let left_types = left.output_types();
        let right_types = right.output_types();
        let (left_width, right_width) = (left_types.len(), right_types.len());
        let offset = match push.side {
            Side::Left => 0,
            Side::Right => left_width,
        };
        let position = |c: usize| push.group.iter().position(|&g| g == c);
        let (side, side_keys) = match push.side {
            Side::Left => (left, left_keys),
            Side::Right => (right, right_keys),
        };

        // The leaf groups by `group` and makes each aggregate's partial state; its rows read
        // table columns, so the aggregates' arguments are rewritten onto the leaf's expressions.
        let RelNode::Exchange(leaf) = &mut **side else {
            unreachable!("pushable checked the leaf's exchange")
        };
        let RelNode::Leaf { plan, .. } = &mut leaf.input else {
            unreachable!("pushable checked the leaf")
        };
        let ServerQueryKind::Selection { exprs, .. } = &plan.kind else {
            unreachable!("pushable checked the selection")
        };
        let leaf_exprs = exprs.clone();
        let leaf_calls: Vec<AggregateCall> = aggregates
            .iter()
            .map(|a| {
                let mut call = a.clone();
                for e in call.args_mut() {
                    e.rewrite(&mut |n| {
                        if let Expr::Input(i) = n {
                            *n = leaf_exprs[at[i.index] - offset].clone();
                        }
                    });
                }
                // Named over the table's columns, as the leaf's EXPLAIN shows them.
                let arg = call.arg.as_ref().map_or("*".to_string(), Expr::to_string);
                call.name = format!("{}({arg})", call.function.name());
                call
            })
            .collect();
        plan.kind = ServerQueryKind::GroupBy {
            keys: push.group.iter().map(|&c| leaf_exprs[c].clone()).collect(),
            aggregates: leaf_calls.clone(),
        };
        plan.layout = ResultLayout::Columns;
        // These groups are the planner's, not the query's: `numGroupsLimit` bounds the groups
        // the query asks for (the aggregate above), never these, which stand for rows the leaf
        // would have sent anyway.
        plan.options.num_groups_limit = usize::MAX;
        plan.options.error_on_num_groups_limit = false;
        let received_types = leaf.input.output_types();
        let partial_types: Vec<ColumnType> = leaf_calls
            .iter()
            .map(AggregateCall::result_column_type)
            .collect();
        let mut distinct = push.distinct;
        distinct.extend(std::iter::repeat_n(push.groups, partial_types.len()));
        leaf.estimate = Some(RowsEstimate {
            rows: push.groups,
            distinct,
        });
        let width = push.group.len();
        for k in side_keys.iter_mut() {
            *k = position(*k).expect("join keys are grouped");
        }
        leaf.distribution = Some(Distribution::Hash(side_keys.clone()));
        let mut output_types = received_types[..width].to_vec();
        output_types.extend(partial_types.iter().copied());
        let leaf = side.take();
        **side = RelNode::Aggregate {
            input: Box::new(leaf),
            group_keys: (0..width).collect(),
            aggregates: leaf_calls
                .into_iter()
                .map(|a| AggregateCall { filter: None, ..a })
                .collect(),
            mode: AggMode::Final,
            output_types,
            groups_limit: usize::MAX,
        };
        let grouped_width = width + partial_types.len();

        // The join's output positions, old → new (a column only the aggregates read is gone),
        // and where the partial values land.
        let new_position = |c: usize| -> Option<usize> {
            match push.side {
                Side::Left if c < left_width => position(c),
                Side::Left => Some(c - left_width + grouped_width),
                Side::Right if c < left_width => Some(c),
                Side::Right => position(c - left_width).map(|p| p + left_width),
            }
        };
        let partials = partial_types.len();
        let mut partial_at: Vec<usize> = (0..partials)
            .map(|i| match push.side {
                Side::Left => width + i,
                Side::Right => left_width + width + i,
            })
            .collect();
        let mut moved: Vec<Option<usize>> =
            (0..left_width + right_width).map(new_position).collect();
        let remap = |e: &mut Expr, moved: &[Option<usize>]| {
            e.rewrite(&mut |n| {
                if let Expr::Input(i) = n {
                    i.index = moved[i.index].expect("columns read above the join are grouped");
                }
            });
        };
        if let Some(c) = condition {
            remap(c, &moved);
        }
        // The layers again over the new positions, each passing the partial values on.
        for layer in layers.into_iter().rev() {
            node = match layer {
                Layer::Filter(mut condition) => {
                    remap(&mut condition, &moved);
                    RelNode::Filter {
                        input: Box::new(node),
                        condition,
                    }
                }
                Layer::Pick(picks) => {
                    let types = node.output_types();
                    let mut exprs = Vec::with_capacity(picks.len() + partials);
                    let mut next = Vec::with_capacity(picks.len());
                    for p in picks {
                        next.push(moved[p].map(|q| {
                            exprs.push(input(q, types[q]));
                            exprs.len() - 1
                        }));
                    }
                    for at in &mut partial_at {
                        exprs.push(input(*at, types[*at]));
                        *at = exprs.len() - 1;
                    }
                    moved = next;
                    RelNode::Project {
                        input: Box::new(node),
                        exprs,
                    }
                }
            };
        }
        // `rel`'s columns: those still there, where they went, then the partial values.
        let mut cols: Vec<Option<Col>> = vec![None; node.output_types().len()];
        for (c, col) in moved.iter().zip(std::mem::take(&mut rel.cols)) {
            if let Some(q) = c {
                cols[*q] = Some(col);
            }
        }
        for (i, &at) in partial_at.iter().enumerate() {
            cols[at] = Some(Col::new(format!("$partial{i}"), partial_types[i]));
        }
        rel.cols = cols
            .into_iter()
            .map(|c| c.expect("every column of the rebuilt relation is named"))
            .collect();
        rel.node = node;
        for k in keys.iter_mut() {
            remap(k, &moved);
        }

        // Each aggregate merges its column of partial values; counts add up, 0 over none (a
        // group of the kept side's rows that met none of the filled side's).
        for (a, (&at, ty)) in aggregates
            .iter_mut()
            .zip(partial_at.iter().zip(partial_types))
        {
            if a.function == AggregateFunction::Count {
                a.function = AggregateFunction::Sum0;
            }
            a.arg = Some(input(at, ty));
            a.multi_value = false;
            a.second = None;
            a.filter = None;
        }
    }
}

/// A plain `COUNT`, `SUM`, `MIN` or `MAX` of one value per row.
fn mergeable(a: &AggregateCall) -> bool {
    matches!(
        a.function,
        AggregateFunction::Count
            | AggregateFunction::Sum
            | AggregateFunction::Min
            | AggregateFunction::Max
    ) && !a.multi_value
        && a.second.is_none()
        && a.filter.is_none()
}

/// Calls `f` with every input column `e` reads.
fn inputs(e: &Expr, f: &mut dyn FnMut(usize) -> bool) {
    e.visit(&mut |n| {
        if let Expr::Input(i) = n {
            f(i.index);
        }
    });
}

#[cfg(test)]
mod tests {
    use crate::plan::QueryPlan;
    use crate::plan::multistage::bind::bind_multistage;
    use crate::plan::multistage::rel::{AggMode, RelNode};
    use crate::plan::multistage::relational::test_plans::statistics_catalog;
    use crate::plan::query_plan::{ExecutionOptions, ServerQueryKind};
    use crate::sql::parse_statement;

    /// Each leaf as `table: keys / aggregates` when it groups, `table` when it selects rows;
    /// then the functions of every final or direct aggregate above the leaves.
    fn shape(sql: &str) -> (Vec<String>, Vec<String>) {
        let stmt = parse_statement(sql).unwrap();
        let QueryPlan::MultiStage(plan) = bind_multistage(
            &stmt,
            &statistics_catalog(),
            &ExecutionOptions::default(),
            Default::default(),
        )
        .unwrap() else {
            panic!("not multi-stage")
        };
        let mut leaves = Vec::new();
        let mut merges = Vec::new();
        for s in &plan.stages {
            let mut stack = vec![&s.root];
            while let Some(n) = stack.pop() {
                match n {
                    RelNode::Leaf { plan, .. } => leaves.push(match &plan.kind {
                        ServerQueryKind::GroupBy { keys, aggregates } => {
                            let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
                            let calls: Vec<String> =
                                aggregates.iter().map(|a| a.name.clone()).collect();
                            format!("{}: {} / {}", plan.table, keys.join(","), calls.join(","))
                        }
                        _ => plan.table.clone(),
                    }),
                    RelNode::Aggregate {
                        aggregates, mode, ..
                    } if *mode != AggMode::Partial => {
                        merges.extend(aggregates.iter().map(|a| a.function.name().to_string()))
                    }
                    _ => {}
                }
                stack.extend(n.inputs());
            }
        }
        leaves.sort();
        (leaves, merges)
    }

    #[test]
    fn aggregates_of_many_rows_per_join_key_are_made_in_their_leaf() {
        let (leaves, merges) = shape(
            "SELECT g.k, COUNT(*), SUM(f.d), MAX(f.d) FROM f JOIN g ON f.s = g.s GROUP BY g.k",
        );
        assert_eq!(
            leaves,
            ["f: s / count(*),sum(d),max(d)", "g"],
            "f grouped by its join key"
        );
        // The leaf's states merged per key under the join, the groups' values above it.
        assert!(merges.contains(&"$sum0".to_string()), "{merges:?}");
        // Columns of the side read outside the aggregates group it too.
        let (leaves, _) = shape(
            "SELECT f.k % 2, SUM(f.d) FROM f JOIN g ON f.s = g.s WHERE f.k + g.d > 3 GROUP BY f.k % 2",
        );
        assert_eq!(
            leaves,
            ["f", "g"],
            "f grouped by its key k is no fewer rows"
        );
    }

    /// The pushed groups are not the query's: `numGroupsLimit` does not cut them.
    #[test]
    fn pushed_groups_are_not_bounded_by_the_groups_limit() {
        let stmt = parse_statement("SELECT g.k, SUM(f.d) FROM f JOIN g ON f.s = g.s GROUP BY g.k")
            .unwrap();
        let options = ExecutionOptions {
            num_groups_limit: 100,
            ..ExecutionOptions::default()
        };
        let QueryPlan::MultiStage(plan) =
            bind_multistage(&stmt, &statistics_catalog(), &options, Default::default()).unwrap()
        else {
            panic!("not multi-stage")
        };
        let mut limits = Vec::new();
        for s in &plan.stages {
            let mut stack = vec![&s.root];
            while let Some(n) = stack.pop() {
                match n {
                    RelNode::Leaf { plan, .. }
                        if matches!(plan.kind, ServerQueryKind::GroupBy { .. }) =>
                    {
                        limits.push(("leaf", plan.options.num_groups_limit))
                    }
                    RelNode::Aggregate {
                        groups_limit, mode, ..
                    } => limits.push((
                        if *mode == AggMode::Final {
                            "final"
                        } else {
                            "other"
                        },
                        *groups_limit,
                    )),
                    _ => {}
                }
                stack.extend(n.inputs());
            }
        }
        assert!(limits.contains(&("leaf", usize::MAX)), "{limits:?}");
        // The merge under the join is unbounded, the query's own aggregate keeps the limit.
        assert!(limits.contains(&("final", usize::MAX)), "{limits:?}");
        assert!(limits.iter().any(|(_, l)| *l == 100), "{limits:?}");
    }

    #[test]
    fn not_pushed_where_groups_are_nearly_rows_or_both_sides_are_read() {
        let (leaves, _) = shape("SELECT g.s, SUM(f.d) FROM f JOIN g ON f.k = g.k GROUP BY g.s");
        assert_eq!(leaves, ["f", "g"], "a key of f makes a group per row");
        let (leaves, _) =
            shape("SELECT g.k, SUM(f.d + g.d) FROM f JOIN g ON f.s = g.s GROUP BY g.k");
        assert_eq!(leaves, ["f", "g"], "one sum reads both sides");
        let (leaves, _) =
            shape("SELECT g.k, COUNT(DISTINCT f.d) FROM f JOIN g ON f.s = g.s GROUP BY g.k");
        assert_eq!(leaves, ["f", "g"], "distinct values do not add up");
        // Grouped by a multi-value column, f's leaf would make a group per value.
        let (leaves, _) = shape("SELECT f.m, SUM(f.d) FROM f JOIN g ON f.s = g.s GROUP BY f.m");
        assert_eq!(
            leaves,
            ["f", "g"],
            "a multi-value column groups by its values"
        );
    }

    #[test]
    fn an_outer_joins_filled_side_is_pushed_only_without_row_counts() {
        // h keeps every row; f's are NULL where no f matches: COUNT(f.d) is 0 there, as
        // the merged NULL count is.
        let (leaves, merges) =
            shape("SELECT h.s, COUNT(f.d) FROM h LEFT JOIN f ON h.s = f.s GROUP BY h.s");
        assert_eq!(leaves, ["f: s / count(d)", "h"]);
        assert!(merges.contains(&"$sum0".to_string()), "{merges:?}");
        // COUNT(*) counts h's unmatched rows, which no group of f holds.
        let (leaves, _) =
            shape("SELECT h.s, COUNT(*) FROM h LEFT JOIN f ON h.s = f.s GROUP BY h.s");
        assert_eq!(leaves, ["f", "h"]);
        // The kept side is grouped whatever it counts.
        let (leaves, _) =
            shape("SELECT f.s, COUNT(*) FROM f LEFT JOIN h ON f.s = h.s GROUP BY f.s");
        assert_eq!(leaves, ["f: s / count(*)", "h"]);
    }
}
