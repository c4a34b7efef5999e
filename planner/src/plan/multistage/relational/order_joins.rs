//! The join-order rule: each block's inner joins, bound as one [`JoinsRequest`] (Calcite's
//! `MultiJoin`), become a tree of joins.
//!
//! Binding flattens a block's inner and comma joins into their inputs — each already filtered
//! by its own conjuncts — and the conjuncts that read several of them, bound over the inputs'
//! columns side by side, and leaves the order to this rule. It runs on the bound tree, after
//! binding and before the distribution pass ([`super::placement`]), and for each request:
//! - chooses the tree: by estimated rows ([`best_order`]) when some input has statistics and no
//!   hint chose the strategy; otherwise in `FROM` order, an input joined to the ones before it
//!   by an equality first ([`from_order`]). An input's estimate is what its operators yield by
//!   [`plan_estimate`] from the estimates of the leaves below (a derived table's grouping, a
//!   semi join pushed onto a table), or binding's guess where none is known;
//! - gives each join the conjuncts whose inputs it is the first to hold: an equality between a
//!   column of each side is a hash key, anything else is the join's condition;
//! - drops after each join the columns nothing above reads (neither the block, named in the
//!   request's output, nor a conjunct still to come), unless the block lists every column;
//! - returns the request's output columns in their bound order, whatever order the tree
//!   joined them in.
//!
//! The joins it makes are requests for the distribution pass, numbered as binding reserved
//! them (in the order the tree's joins complete), and placed as the block's hints say.

use super::Planner;
use super::join_order::{Edge, JoinTree, best_order, from_order};
use crate::plan::error::PlanError;
use crate::plan::expr::Expr;
use crate::plan::multistage::estimate::plan_estimate;
use crate::plan::multistage::rel::{
    ConjunctKind, JoinConjunct, JoinKind, JoinsRequest, Place, RelNode, Request,
};
use crate::plan::multistage::relation::input;
use crate::plan::multistage::rows_estimate::RowsEstimate;
use segments::types::ColumnType;
use std::collections::BTreeSet;

/// One request's state while its tree is built.
struct Build {
    nodes: Vec<Option<RelNode>>,
    /// Where each input's columns start among all inputs' columns.
    start: Vec<usize>,
    widths: Vec<usize>,
    /// Every input's column types, side by side.
    types: Vec<ColumnType>,
    /// Conjuncts no join has taken yet.
    pending: Vec<JoinConjunct>,
    /// The columns read above the joins (by position among all inputs' columns).
    output: BTreeSet<usize>,
    prune: bool,
    /// The number of the next join request.
    next_order: usize,
}

impl Build {
    /// The columns the joins still to come or the block read.
    fn live(&self) -> BTreeSet<usize> {
        let mut live = self.output.clone();
        for c in &self.pending {
            c.columns(&mut live);
        }
        live
    }
}

impl Planner<'_> {
    /// Resolves every [`Request::Joins`] in `node` into joins, bottom-up.
    pub fn order_joins(&mut self, mut node: RelNode) -> Result<RelNode, PlanError> {
        for i in node.inputs_mut() {
            *i = self.order_joins(i.take())?;
        }
        match node {
            RelNode::Place(p) => match *p {
                Place {
                    order,
                    request: Request::Joins(joins),
                } => self.joins(order, joins),
                other => Ok(RelNode::Place(Box::new(other))),
            },
            other => Ok(other),
        }
    }

    /// The tree of joins of `request`, its joins numbered from `order`.
    fn joins(&mut self, order: usize, request: JoinsRequest) -> Result<RelNode, PlanError> {
        let JoinsRequest {
            inputs,
            conjuncts,
            output,
            prune,
            by_estimate,
            hints,
        } = request;
        let n = inputs.len();
        let mut start = Vec::with_capacity(n);
        let mut widths = Vec::with_capacity(n);
        let mut types = Vec::new();
        for i in &inputs {
            start.push(types.len());
            let t = i.node.output_types();
            widths.push(t.len());
            types.extend(t);
        }
        let tree = if by_estimate {
            // What each input's operators are estimated to yield, from the estimates of the
            // leaves below; binding's guess where none is known.
            let estimates: Vec<RowsEstimate> = inputs
                .iter()
                .map(|i| plan_estimate(&i.node, &[]).unwrap_or_else(|| i.estimate.clone()))
                .collect();
            let rows: Vec<f64> = estimates.iter().map(|e| e.rows).collect();
            let owner = |column: usize| start.iter().rposition(|&s| s <= column).unwrap_or(0);
            let edges: Vec<Edge> = conjuncts
                .iter()
                .filter_map(|c| match c.kind {
                    ConjunctKind::Key(x, y) => {
                        let (a, b) = (owner(x), owner(y));
                        Some(Edge {
                            a,
                            b,
                            distinct_a: estimates[a].distinct(x - start[a]),
                            distinct_b: estimates[b].distinct(y - start[b]),
                        })
                    }
                    ConjunctKind::Condition(_) => None,
                })
                .collect();
            best_order(&rows, &edges)
        } else {
            let links: Vec<(&BTreeSet<usize>, bool)> =
                conjuncts.iter().map(|c| (&c.inputs, c.equality)).collect();
            from_order(n, &links)
        };
        let mut b = Build {
            nodes: inputs.into_iter().map(|i| Some(i.node)).collect(),
            start,
            widths,
            types,
            pending: conjuncts,
            output: output.iter().copied().collect(),
            prune,
            next_order: order,
        };
        // The block's hints place these joins, as they did the joins of its `FROM`.
        let outer = std::mem::replace(&mut self.join_hints, hints);
        let built = self.join_subtree(&tree, &mut b);
        self.join_hints = outer;
        let (node, layout, _) = built?;
        if layout == output {
            return Ok(node);
        }
        pick(node, &layout, &output, &b.types)
    }

    /// The joins of `tree`: the node, the columns it outputs (positions among all inputs'
    /// columns) and the inputs it holds.
    fn join_subtree(
        &mut self,
        tree: &JoinTree,
        b: &mut Build,
    ) -> Result<(RelNode, Vec<usize>, BTreeSet<usize>), PlanError> {
        let (l, r) = match tree {
            JoinTree::Input(i) => {
                let node = b.nodes[*i]
                    .take()
                    .ok_or_else(|| PlanError::Planning("a join input was planned twice".into()))?;
                let layout = (b.start[*i]..b.start[*i] + b.widths[*i]).collect();
                return Ok((node, layout, BTreeSet::from([*i])));
            }
            JoinTree::Join(l, r) => (l, r),
        };
        let (left, left_layout, mut joined) = self.join_subtree(l, b)?;
        let (right, right_layout, right_inputs) = self.join_subtree(r, b)?;
        joined.extend(right_inputs);
        let mut layout = left_layout;
        let width = layout.len();
        layout.extend(right_layout);
        let at = |column: usize| layout.iter().position(|&c| c == column);
        let (mut lk, mut rk, mut residual) = (Vec::new(), Vec::new(), Vec::new());
        let mut rest = Vec::with_capacity(b.pending.len());
        for c in std::mem::take(&mut b.pending) {
            if !c.inputs.is_subset(&joined) {
                rest.push(c);
                continue;
            }
            match c.kind {
                ConjunctKind::Key(x, y) => {
                    let (x, y) = (at(x), at(y));
                    let (Some(x), Some(y)) = (x, y) else {
                        return Err(PlanError::Planning(
                            "a join key was dropped below its join".into(),
                        ));
                    };
                    // Each side's own column: the left's position, the right's index in it.
                    let (l, r) = if x < width { (x, y) } else { (y, x) };
                    lk.push(l);
                    rk.push(r - width);
                }
                ConjunctKind::Condition(mut e) => {
                    let mut dropped = false;
                    e.rewrite(&mut |n| {
                        if let Expr::Input(i) = n {
                            match at(i.index) {
                                Some(p) => {
                                    i.index = p;
                                    i.name = format!("${p}");
                                }
                                None => dropped = true,
                            }
                        }
                    });
                    if dropped {
                        return Err(PlanError::Planning(
                            "a join condition's column was dropped below its join".into(),
                        ));
                    }
                    residual.push(e);
                }
            }
        }
        b.pending = rest;
        let condition = match residual.len() {
            0 => None,
            1 => residual.pop(),
            _ => Some(Expr::And(residual)),
        };
        let request = self.hinted_request(left, right, JoinKind::Inner, lk, rk, condition)?;
        let order = b.next_order;
        b.next_order += 1;
        let mut node = RelNode::Place(Box::new(Place { order, request }));
        if b.prune {
            let live = b.live();
            let mut keep: Vec<usize> = layout
                .iter()
                .copied()
                .filter(|c| live.contains(c))
                .collect();
            // A relation keeps a column (a block counts its rows by one).
            if keep.is_empty() {
                keep.push(layout[0]);
            }
            if keep.len() < layout.len() {
                node = pick(node, &layout, &keep, &b.types)?;
                layout = keep;
            }
        }
        Ok((node, layout, joined))
    }
}

/// The columns `wanted` (positions among all inputs' columns) of `node`, whose columns are
/// `layout`: a projection of its inputs, merged into `node` when that is one already.
fn pick(
    node: RelNode,
    layout: &[usize],
    wanted: &[usize],
    types: &[ColumnType],
) -> Result<RelNode, PlanError> {
    let positions: Vec<usize> = wanted
        .iter()
        .map(|w| layout.iter().position(|c| c == w))
        .collect::<Option<_>>()
        .ok_or_else(|| PlanError::Planning("a column read above the joins was dropped".into()))?;
    Ok(match node {
        RelNode::Project {
            input: below,
            exprs,
        } if exprs.iter().all(|e| matches!(e, Expr::Input(_))) => {
            let exprs = positions.iter().map(|&p| exprs[p].clone()).collect();
            RelNode::Project {
                input: below,
                exprs,
            }
        }
        node => {
            let exprs = positions
                .iter()
                .zip(wanted)
                .map(|(&p, &w)| input(p, types[w]))
                .collect();
            RelNode::Project {
                input: Box::new(node),
                exprs,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_plans::{catalog_over, statistics_catalog};
    use super::*;
    use crate::plan::catalog::Catalog;
    use crate::plan::query_plan::ExecutionOptions;
    use crate::sql::parse_statement;

    /// The block of `sql` bound, and its joins request's output; then the rule's tree.
    fn bound_and_ordered(catalog: &dyn Catalog, sql: &str) -> (Vec<usize>, RelNode) {
        let options = ExecutionOptions::default();
        let stmt = parse_statement(sql).unwrap();
        let mut planner = Planner::new(catalog, &options, false);
        let (rel, _) = planner.query(&stmt.query).unwrap();
        let mut node = &rel.node;
        // Under the block's projection, if any.
        while let RelNode::Project { input, .. } = node {
            node = input;
        }
        let RelNode::Place(p) = node else {
            panic!("{sql}: no request at the top: {node:?}")
        };
        let Request::Joins(j) = &p.request else {
            panic!("{sql}: not a joins request")
        };
        let output = j.output.clone();
        (output, planner.order_joins(rel.node).unwrap())
    }

    /// The tables of the leaves under `node`, left to right.
    fn leaves(node: &RelNode, out: &mut Vec<String>) {
        if let RelNode::Exchange(x) = node
            && let crate::plan::multistage::stage::StageKind::Leaf { table } = &x.kind
        {
            out.push(table.clone());
            return;
        }
        for i in node.inputs() {
            leaves(i, out);
        }
    }

    #[test]
    fn the_tree_is_chosen_after_binding_and_the_columns_come_out_as_bound() {
        // FROM lists g (1K rows), f (1M), h (10K). f ⋈ g keeps about 1K rows, so it comes
        // first, f probing; h (10K, one row per `s`) is then the larger side, on the left.
        let sql = "SELECT * FROM g, f, h WHERE f.k = g.k AND f.s = h.s";
        let (output, node) = bound_and_ordered(&statistics_catalog(), sql);
        assert_eq!(
            output,
            (0..12).collect::<Vec<_>>(),
            "every column, as bound"
        );
        let mut tables = Vec::new();
        leaves(&node, &mut tables);
        assert_eq!(tables, ["h", "f", "g"]);
        // The joins output h's, f's, then g's four columns; a projection puts them in the
        // bound order again: g's, f's, h's.
        let mut top = &node;
        // Below the block's select list.
        while let RelNode::Project { input, .. } = top
            && matches!(**input, RelNode::Project { .. })
        {
            top = input;
        }
        let RelNode::Project { exprs, .. } = top else {
            panic!("no projection back to the bound order: {node:?}")
        };
        let picked: Vec<usize> = exprs
            .iter()
            .map(|e| match e {
                Expr::Input(i) => i.index,
                other => panic!("{other:?}"),
            })
            .collect();
        let expected: Vec<usize> = (8..12).chain(4..8).chain(0..4).collect();
        assert_eq!(picked, expected);
    }

    #[test]
    fn a_derived_input_is_estimated_from_its_operators() {
        // x groups g (1K rows) by `s` (10 values): 10 rows, not an unknown million. h (10K
        // rows) is the larger side, on the left, and x builds.
        let sql = "SELECT h.d, x.c FROM h, (SELECT s, COUNT(*) AS c FROM g GROUP BY s) x \
                   WHERE h.s = x.s";
        let (_, node) = bound_and_ordered(&statistics_catalog(), sql);
        let mut tables = Vec::new();
        leaves(&node, &mut tables);
        assert_eq!(tables, ["h", "g"]);
        // The same through requests not placed yet: x groups a join of g and f.
        let sql = "SELECT h.d, x.c FROM h, (SELECT g.s, COUNT(*) AS c FROM g JOIN f \
                   ON g.k = f.k GROUP BY g.s) x WHERE h.s = x.s";
        let (_, node) = bound_and_ordered(&statistics_catalog(), sql);
        let mut tables = Vec::new();
        leaves(&node, &mut tables);
        assert_eq!(tables[0], "h", "{tables:?}");
    }

    #[test]
    fn a_join_keeps_only_the_columns_read_above_it() {
        // Without statistics, FROM order. Each leaf reads `k` and `d` (the names the block
        // mentions); the block reads every `d` above the joins (it knows names, not inputs).
        // After f ⋈ g, g.k is read by the next join but f.k by none: it is dropped.
        let catalog = catalog_over(&["k LONG", "s STRING", "d DOUBLE"]);
        let sql = "SELECT f.d FROM f JOIN g ON f.k = g.k JOIN f f2 ON g.k = f2.k";
        let (output, node) = bound_and_ordered(&catalog, sql);
        assert_eq!(output, [1, 3, 5]);
        let mut first_join_kept = None;
        let mut stack = vec![&node];
        while let Some(n) = stack.pop() {
            if let RelNode::Project { input, exprs } = n
                && let RelNode::Place(p) = &**input
                && let Request::Join(j) = &p.request
                && let RelNode::Join { left, .. } = &j.join
                && matches!(**left, RelNode::Exchange(_))
            {
                first_join_kept = Some(exprs.len());
            }
            stack.extend(n.inputs());
        }
        assert_eq!(first_join_kept, Some(3), "{node:?}");
    }
}
