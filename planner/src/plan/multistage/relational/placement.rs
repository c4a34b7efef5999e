//! The distribution pass: where rows move between the operators binding planned (DataFusion's
//! `EnforceDistribution`, Calcite's exchange rules).
//!
//! Binding plans what each operator computes and leaves every decision about where rows are to
//! [`Request`]s in the tree. This pass resolves them bottom-up, knowing of each input whether
//! its rows are spread over a stage's workers and, from [`distribution::hash_partitionings`], on
//! which columns:
//! - a **join** hashes both sides on its keys, keeps a side already hashed on them where it is,
//!   broadcasts a side a hint names or one small enough by estimate
//!   (`sized_broadcast`), broadcasts the right side of a lookup join and of `NOT IN`,
//!   and sends both sides to one worker without keys; a single table's grouping on a side of a
//!   keyed join is grouped on every worker first (`grouped_leaf`);
//! - a **grouping** of spread rows runs in two phases around an exchange hashed on its keys,
//!   unless the rows are already hashed on some of them; of rows in one place, in one phase.
//!   Before that its aggregates may go into a leaf below a join (`eager_aggregate`);
//! - an operator that needs **every row** in one place gathers spread rows to one worker;
//! - a **set operation's input** is sent to one worker from a stage of its own.
//!
//! An exchange over a leaf just bound sets how the leaf sends ([`Exchange::undecided`]); any
//! other input becomes a stage of its own. Each exchange is numbered by the request that made
//! it, so stages keep the order in which binding asked for them.

use super::super::distribution;
use super::super::rel::{AggMode, Exchange, JoinKind, RelNode};
use super::super::rel::{AggregateRequest, JoinRequest, Place, Request, Side};
use super::super::relation::{Col, Rel, input};
use super::super::stage::{Distribution, StageKind};
use super::grouped_leaf::partition_grouping;
use super::{Planner, columns_into_leaf};
use crate::plan::aggregate::AggregateCall;
use crate::plan::expr::Expr;
use segments::types::DataType;

/// Rows placed by the pass: their operators, and whether they are spread over the workers of
/// a stage still being planned.
pub struct Placed {
    pub node: RelNode,
    pub partitioned: bool,
}

impl Placed {
    /// The column lists the rows are hashed on where they are (none unless spread).
    fn partitionings(&self) -> Vec<Vec<usize>> {
        if self.partitioned {
            distribution::hash_partitionings(&self.node)
        } else {
            Vec::new()
        }
    }
}

impl Planner<'_> {
    /// Resolves every request in `node`, bottom-up.
    pub fn place(&mut self, node: RelNode) -> Placed {
        match node {
            RelNode::Place(p) => {
                let Place { order, request } = *p;
                match request {
                    Request::Join(j) => self.place_join(order, j),
                    Request::Aggregate(a) => self.place_aggregate(order, a),
                    Request::Gather(n) => {
                        let rows = self.place(n);
                        if rows.partitioned {
                            exchange((order, 0), rows, Distribution::Singleton)
                        } else {
                            rows
                        }
                    }
                    Request::Alone(n) => {
                        let rows = self.place(n);
                        exchange((order, 0), rows, Distribution::Singleton)
                    }
                    Request::Joins(_) => {
                        unreachable!("the join-order rule resolves every joins request first")
                    }
                }
            }
            mut other => {
                let mut partitioned = false;
                for i in other.inputs_mut() {
                    let placed = self.place(i.take());
                    partitioned |= placed.partitioned;
                    *i = placed.node;
                }
                Placed {
                    node: other,
                    partitioned,
                }
            }
        }
    }

    /// A join's sides placed: hashed on the keys, one broadcast, or both on one worker.
    fn place_join(&mut self, order: usize, request: JoinRequest) -> Placed {
        let JoinRequest {
            join,
            lookup,
            broadcast,
            unhinted,
        } = request;
        let mut join = join;
        let RelNode::Join {
            left,
            right,
            kind,
            left_keys: lk,
            right_keys: rk,
            ..
        } = &mut join
        else {
            unreachable!("a join request holds a join")
        };
        let (kind, lk, rk) = (*kind, &*lk, &*rk);
        let mut l = self.place(left.take());
        let mut r = self.place(right.take());
        // A single table's grouping on either side of a keyed join runs on every worker.
        if !lk.is_empty() && broadcast.is_none() && kind != JoinKind::NotIn && unhinted {
            for side in [&mut l, &mut r] {
                if !side.partitioned && partition_grouping(&mut side.node) {
                    side.partitioned = true;
                }
            }
        }
        // A side already hashed on join keys (a join or aggregate below, in a stage not cut
        // yet) stays where it is; without keys both sides go to one worker.
        let keyed = if lk.is_empty() {
            (Some(Distribution::Singleton), Some(Distribution::Singleton))
        } else {
            distribution::keyed_join(&l.partitionings(), &r.partitionings(), lk, rk)
        };
        // A lookup join, and NOT IN, which answers by the whole right side (is it empty, does
        // it hold a NULL); else the hinted side, or one small enough to broadcast by estimate.
        let broadcast = if lookup || kind == JoinKind::NotIn {
            Some(Side::Right)
        } else if broadcast.is_none() && unhinted {
            let moves = (keyed.0.is_some(), keyed.1.is_some());
            self.sized_broadcast(&l.node, &r.node, kind, moves)
        } else {
            broadcast
        };
        let partitioned = !lk.is_empty() || broadcast.is_some();
        let (ld, rd) = match broadcast {
            // Each left worker's rows stay with one join worker; every worker sees all right
            // rows, so each left row meets all its matches exactly once.
            Some(Side::Right) => (Some(Distribution::Random), Some(Distribution::Broadcast)),
            Some(Side::Left) => (Some(Distribution::Broadcast), Some(Distribution::Random)),
            None => keyed,
        };
        **left = exchanged((order, 0), l, ld).node;
        **right = exchanged((order, 1), r, rd).node;
        Placed {
            node: join,
            partitioned,
        }
    }

    /// A grouping placed: over spread rows, partial states where they are and the final
    /// aggregate after an exchange hashed on the keys (one worker without keys), as in Pinot —
    /// unless the rows are already hashed on some of the keys; else in one phase.
    fn place_aggregate(&mut self, order: usize, request: AggregateRequest) -> Placed {
        let AggregateRequest {
            input: rows,
            mut keys,
            mut aggregates,
            mut output_types,
            groups_limit,
            eager,
        } = request;
        // What binding read of the operator: its placement changes none of it.
        let asked = output_types.clone();
        let rows = self.place(rows);
        let partitioned = rows.partitioned;
        let mut rel = Rel {
            cols: (rows.node.output_types().into_iter())
                .map(|t| Col::new("", t))
                .collect(),
            node: rows.node,
        };
        let group_width = keys.len();
        // Aggregates of one join side's rows may be made by that side's leaf, per group.
        let counts = match eager {
            true => self.eager_aggregate(&mut rel, &mut keys, &mut aggregates),
            false => None,
        };
        if counts.is_some() {
            output_types.truncate(group_width);
            output_types.extend(aggregates.iter().map(AggregateCall::result_column_type));
        }
        // The relation's width again: the aggregates' partial values may have joined it.
        let width = rel.cols.len();
        let mut projected: Vec<Expr> = rel.inputs();
        projected.extend(keys.iter().cloned());
        // Rows already hashed on some of the group keys are grouped where they are.
        let key_columns: Vec<usize> = keys
            .iter()
            .filter_map(|k| match k {
                Expr::Input(i) => Some(i.index),
                _ => None,
            })
            .collect();
        let placed = Placed {
            node: rel.node,
            partitioned,
        };
        let in_place = group_width > 0
            && distribution::grouped_in_place(&placed.partitionings(), &key_columns);
        let rows = Box::new(RelNode::Project {
            input: Box::new(placed.node),
            exprs: projected,
        });
        let mut partitioned_out = in_place;
        let mut node = if partitioned && !in_place {
            let partial = RelNode::Aggregate {
                input: rows,
                group_keys: (width..width + group_width).collect(),
                aggregates: aggregates.clone(),
                mode: AggMode::Partial,
                output_types: output_types.clone(),
                groups_limit,
            };
            let dist = if group_width > 0 {
                Distribution::Hash((0..group_width).collect())
            } else {
                Distribution::Singleton
            };
            let states = Placed {
                node: partial,
                partitioned: true,
            };
            let received = exchange((order, 0), states, dist);
            partitioned_out = received.partitioned;
            RelNode::Aggregate {
                input: Box::new(received.node),
                group_keys: (0..group_width).collect(),
                aggregates,
                mode: AggMode::Final,
                output_types,
                groups_limit,
            }
        } else {
            RelNode::Aggregate {
                input: rows,
                group_keys: (width..width + group_width).collect(),
                aggregates,
                mode: AggMode::Direct,
                output_types,
                groups_limit,
            }
        };
        if let Some(counts) = counts.filter(|c| !c.is_empty()) {
            // Counts merged as DOUBLE sums, LONG again.
            let types = node.output_types();
            let exprs = types
                .iter()
                .enumerate()
                .map(|(i, t)| match i.checked_sub(group_width) {
                    Some(a) if counts.contains(&a) => Expr::Cast {
                        expr: Box::new(input(i, *t)),
                        to: DataType::Long,
                    },
                    _ => input(i, *t),
                })
                .collect();
            node = RelNode::Project {
                input: Box::new(node),
                exprs,
            };
        }
        debug_assert_eq!(node.output_types(), asked);
        Placed {
            node,
            partitioned: partitioned_out,
        }
    }
}

/// `rows` read through an exchange with `dist`: a leaf just bound sends that way, any other
/// operators become a stage of their own, numbered `order`.
fn exchange(order: (usize, usize), mut rows: Placed, dist: Distribution) -> Placed {
    let partitioned = matches!(dist, Distribution::Hash(_));
    if !rows.partitioned {
        rows.node = columns_into_leaf(rows.node);
    }
    let node = match Exchange::undecided(&mut rows.node) {
        Some(x) if !rows.partitioned => {
            x.distribution = Some(dist);
            rows.node
        }
        _ => RelNode::Exchange(Box::new(Exchange {
            order,
            kind: StageKind::Intermediate {
                singleton: !rows.partitioned,
            },
            input: rows.node,
            distribution: Some(dist),
            estimate: None,
        })),
    };
    Placed { node, partitioned }
}

/// `rows` through an exchange with `dist`, or where they are (`None`).
fn exchanged(order: (usize, usize), rows: Placed, dist: Option<Distribution>) -> Placed {
    match dist {
        Some(d) => exchange(order, rows, d),
        None => rows,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_plans::catalog_over;
    use super::*;
    use crate::plan::query_plan::ExecutionOptions;
    use crate::sql::parse_statement;

    /// The requests and exchanges of `node`, bottom-up, as text.
    fn placements(node: &RelNode, out: &mut Vec<String>) {
        for i in node.inputs() {
            placements(i, out);
        }
        match node {
            RelNode::Place(p) => out.push(
                match &p.request {
                    Request::Join(_) => "join",
                    Request::Aggregate(_) => "aggregate",
                    Request::Gather(_) => "gather",
                    Request::Alone(_) => "alone",
                    Request::Joins(_) => "joins",
                }
                .to_string(),
            ),
            RelNode::Exchange(x) => out.push(format!("{:?} {:?}", x.kind, x.distribution)),
            _ => {}
        }
    }

    #[test]
    fn binding_asks_and_the_pass_places() {
        let catalog = catalog_over(&["k LONG", "s STRING", "d DOUBLE"]);
        let options = ExecutionOptions::default();
        let sql = "SELECT f.s, SUM(g.d) FROM f JOIN g ON f.k = g.k GROUP BY f.s ORDER BY 2 LIMIT 3";
        let stmt = parse_statement(sql).unwrap();
        let mut planner = Planner::new(&catalog, &options, false);
        let (rel, _) = planner.query(&stmt.query).unwrap();
        // Binding decided no exchange and no join order: the leaves' are not placed, the rest
        // are requests; the join-order rule makes the block's joins requests of joins.
        let mut asked = Vec::new();
        placements(&rel.node, &mut asked);
        let leaf = |t: &str| format!("Leaf {{ table: \"{t}\" }} None");
        assert_eq!(
            asked,
            [
                leaf("f"),
                leaf("g"),
                "joins".into(),
                "aggregate".into(),
                "gather".into()
            ]
        );
        let ordered = planner.order_joins(rel.node).unwrap();
        let mut asked = Vec::new();
        placements(&ordered, &mut asked);
        assert_eq!(asked[2], "join");
        // The pass: both sides hashed on the key, partial groups hashed on `f.s` to the final
        // phase, its rows gathered for the sort; no request left.
        let placed = planner.place(ordered);
        assert!(!placed.partitioned);
        let mut done = Vec::new();
        placements(&placed.node, &mut done);
        let hashed = |t: &str| format!("Leaf {{ table: \"{t}\" }} Some(Hash([0]))");
        let between = |d: &str| format!("Intermediate {{ singleton: false }} Some({d})");
        assert_eq!(
            done,
            [
                hashed("f"),
                hashed("g"),
                between("Hash([0])"),
                between("Singleton")
            ]
        );
    }
}
