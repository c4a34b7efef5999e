//! Where a block's rows become its answer: the select list, `GROUP BY` (two-phase aggregation
//! around a hash exchange when the rows are partitioned) and `HAVING`, window functions over the
//! groups, `DISTINCT`, `ORDER BY` and `LIMIT`/`OFFSET`, with Calcite's names for the columns.

use super::{
    Planner, column_to_input, has_aggregate_call, has_window, input, rewrite_columns, synthetic,
    synthetic_table, to_inputs,
};
use crate::plan::binder::expr::{Mode, contains_aggregate};
use crate::plan::binder::rewrite::{apply_ordinals_and_aliases, rewrite_count_distinct};
use crate::plan::error::PlanError;
use crate::plan::expr::Expr;
use crate::plan::multistage::rel::{AggMode, JoinKind, RelNode};
use crate::plan::multistage::rel::{AggregateRequest, Request};
use crate::plan::multistage::relation::{Col, Rel};
use crate::plan::multistage::single_table::{aggregate_type, calcite_names};
use crate::plan::query_plan::SortKey;
use crate::sql::ast::{self, Select, SelectItem};
use segments::types::ColumnType;

impl Planner<'_> {
    /// `SELECT … [WHERE] [GROUP BY] [HAVING] [ORDER BY] [LIMIT]` over `rel`.
    pub fn upper(&mut self, select: &Select, rel: Rel) -> Result<(Rel, Vec<String>), PlanError> {
        let mut sel = select.clone();
        sel.from = None;
        let rel = self.subquery_predicates(rel, &mut sel)?;
        let grouped = !sel.group_by.is_empty() || has_aggregate_call(&sel);
        let (rel, late) = self.scalar_subqueries(rel, &mut sel, grouped)?;
        if has_window(&sel) && grouped {
            if !late.is_empty() {
                return Err(PlanError::Planning(
                    "scalar subqueries beside window functions over groups are not supported"
                        .into(),
                ));
            }
            return self.windows_over_groups(sel, rel);
        }
        self.upper_rows(sel, rel, late)
    }

    /// `late`: one-column relations (scalar subqueries of a grouped block) joined after the
    /// aggregate; their columns follow `rel`'s and read as group keys.
    pub(super) fn upper_rows(
        &mut self,
        mut sel: Select,
        rel: Rel,
        late: Vec<Rel>,
    ) -> Result<(Rel, Vec<String>), PlanError> {
        let mut rel = rel;
        // `*` and `t.*` are the relation's columns, named by their own names.
        let mut items = Vec::with_capacity(sel.projection.len());
        for item in std::mem::take(&mut sel.projection) {
            let pick = |q: Option<&str>| -> Vec<SelectItem> {
                rel.cols
                    .iter()
                    .filter(|c| {
                        !c.name.starts_with('$')
                            && (q.is_some() || !c.hidden)
                            && q.is_none_or(|q| {
                                c.qualifier
                                    .as_deref()
                                    .is_some_and(|cq| cq.eq_ignore_ascii_case(q))
                            })
                    })
                    .map(|c| SelectItem::Expr {
                        expr: ast::Expr::Column {
                            table: c.qualifier.clone(),
                            name: c.name.clone(),
                        },
                        alias: None,
                    })
                    .collect()
            };
            match item {
                SelectItem::Wildcard => items.extend(pick(None)),
                SelectItem::QualifiedWildcard(q) => {
                    let found = pick(Some(&q));
                    if found.is_empty() {
                        return Err(PlanError::UnknownColumn(format!("{q}.*")));
                    }
                    items.extend(found);
                }
                other => items.push(other),
            }
        }
        sel.projection = items;
        let names = calcite_names(&sel.projection);
        // The late columns resolve by name like the relation's own, behind them.
        let width = rel.cols.len();
        rel.cols
            .extend(late.iter().flat_map(|l| l.cols.iter().cloned()));
        for e in sel.exprs_mut() {
            rewrite_columns(e, &rel.cols)?;
        }
        rewrite_count_distinct(&mut sel);
        apply_ordinals_and_aliases(&mut sel)?;
        let late_cols = rel.cols.split_off(width);
        if let Some(w) = &sel.selection {
            if contains_aggregate(w) {
                return Err(PlanError::Compilation(
                    "aggregation functions are not allowed in the WHERE clause".into(),
                ));
            }
            let condition = self.bind_synthetic(w, &rel.cols)?;
            rel.node = RelNode::Filter {
                input: Box::new(rel.node),
                condition,
            };
        }
        rel = self.windows(rel, &mut sel)?;
        let visible: Vec<Col> = rel.cols.iter().chain(&late_cols).cloned().collect();
        let info = synthetic_table(&visible);
        let scope = self.synthetic_scope(&info);
        let mut b = self.binder(&scope);
        let exprs: Vec<&ast::Expr> = sel
            .projection
            .iter()
            .filter_map(|i| match i {
                SelectItem::Expr { expr, .. } => Some(expr),
                _ => None,
            })
            .collect();
        let has_agg = exprs.iter().any(|e| contains_aggregate(e))
            || sel.having.as_ref().is_some_and(contains_aggregate)
            || sel.order_by.iter().any(|o| contains_aggregate(&o.expr));
        let nulls_last = |o: &ast::OrderByExpr| o.nulls_first.map_or(o.asc, |first| !first);
        let (mut node, outputs, sort_exprs, types) = if has_agg || !sel.group_by.is_empty() {
            for g in &sel.group_by {
                let key = b.bind(g, Mode::Row)?;
                if !b.keys.contains(&key) {
                    b.keys.push(key);
                }
            }
            // Keys [0, g) group; the late columns [g, g + late) are constants joined after.
            let group_width = b.keys.len();
            for i in 0..late_cols.len() {
                let column = ast::Expr::Column {
                    table: None,
                    name: synthetic(width + i),
                };
                let key = b.bind(&column, Mode::Row)?;
                b.keys.push(key);
            }
            let outputs: Vec<Expr> = exprs
                .iter()
                .map(|e| b.bind(e, Mode::PostAggregate))
                .collect::<Result<_, _>>()?;
            let having = match &sel.having {
                Some(h) => Some(b.bind(h, Mode::PostAggregate)?),
                None => None,
            };
            let sorts: Vec<(Expr, bool, bool)> = sel
                .order_by
                .iter()
                .map(|o| Ok((b.bind(&o.expr, Mode::PostAggregate)?, o.asc, nulls_last(o))))
                .collect::<Result<_, PlanError>>()?;
            let mut keys: Vec<Expr> = std::mem::take(&mut b.keys)
                .into_iter()
                .map(to_inputs)
                .collect();
            let aggregates: Vec<_> = std::mem::take(&mut b.aggregates)
                .into_iter()
                .map(|mut a| {
                    a.arg = a.arg.map(to_inputs);
                    a.second = a.second.map(to_inputs);
                    if let Some(f) = &mut a.filter {
                        f.rewrite_exprs(&mut column_to_input);
                    }
                    a
                })
                .collect();
            let mut output_types: Vec<ColumnType> =
                keys[..group_width].iter().map(Expr::column_type).collect();
            // Types in the binder's order: group keys, late columns, aggregates.
            let mut agg_types: Vec<ColumnType> = keys.iter().map(Expr::column_type).collect();
            for a in &aggregates {
                let v1 = a.result_column_type();
                output_types.push(v1);
                agg_types.push(aggregate_type(
                    &a.function,
                    a.arg.as_ref().map(Expr::column_type),
                    v1,
                ));
            }
            let num_aggregates = aggregates.len();
            // Where it runs — one phase or two, a leaf below a join — is the distribution
            // pass's ([`super::placement`]).
            keys.truncate(group_width);
            let mut node = self.request(Request::Aggregate(AggregateRequest {
                input: rel.node,
                keys,
                aggregates,
                output_types,
                groups_limit: self.groups_limit(),
                eager: late.is_empty(),
            }));
            if !late.is_empty() {
                let mut grouped = Rel {
                    node,
                    cols: Vec::new(),
                };
                for sub in late {
                    grouped = self.join(grouped, sub, JoinKind::Left, Vec::new(), Vec::new(), None);
                }
                // [keys, aggregates, late] → [keys, late, aggregates], the binder's order.
                let node_types = grouped.node.output_types();
                let after = group_width + num_aggregates;
                let order = (0..group_width)
                    .chain(after..node_types.len())
                    .chain(group_width..after);
                node = RelNode::Project {
                    exprs: order.map(|i| input(i, node_types[i])).collect(),
                    input: Box::new(grouped.node),
                };
            }
            if let Some(h) = having {
                node = RelNode::Filter {
                    input: Box::new(node),
                    condition: h,
                };
            }
            let types = outputs
                .iter()
                .map(|o| match o {
                    Expr::Input(r) => agg_types.get(r.index).copied().unwrap_or(r.column_type),
                    other => other.column_type(),
                })
                .collect();
            (node, outputs, sorts, types)
        } else {
            let outputs: Vec<Expr> = exprs
                .iter()
                .map(|e| b.bind(e, Mode::Row).map(to_inputs))
                .collect::<Result<_, _>>()?;
            let sorts: Vec<(Expr, bool, bool)> = sel
                .order_by
                .iter()
                .map(|o| Ok((to_inputs(b.bind(&o.expr, Mode::Row)?), o.asc, nulls_last(o))))
                .collect::<Result<_, PlanError>>()?;
            let types = outputs.iter().map(Expr::column_type).collect();
            (rel.node, outputs, sorts, types)
        };
        // Outputs first; sort keys behind them.
        let n = outputs.len();
        let mut projected = outputs;
        let mut keys = Vec::new();
        for (e, asc, nulls_last) in sort_exprs {
            let column = match projected[..n].iter().position(|p| *p == e) {
                Some(c) if sel.distinct => c,
                _ => {
                    projected.push(e);
                    projected.len() - 1
                }
            };
            keys.push(SortKey {
                column,
                asc,
                nulls_last,
            });
        }
        if sel.distinct && projected.len() > n {
            return Err(PlanError::Compilation(
                "ORDER BY expressions must be selected with SELECT DISTINCT".into(),
            ));
        }
        node = RelNode::Project {
            input: Box::new(node),
            exprs: projected,
        };
        let needs_all =
            sel.distinct || !keys.is_empty() || sel.limit.is_some() || sel.offset.is_some();
        if needs_all {
            // Each worker's own first rows of an `ORDER BY … LIMIT` are sent alone
            // ([`super::super::limit_pushdown`]).
            node = self.request(Request::Gather(node));
        }
        if sel.distinct {
            let width = node.output_types().len();
            node = RelNode::Aggregate {
                output_types: node.output_types(),
                input: Box::new(node),
                group_keys: (0..width).collect(),
                aggregates: Vec::new(),
                mode: AggMode::Direct,
                groups_limit: self.groups_limit(),
            };
        }
        if !keys.is_empty() || sel.limit.is_some() || sel.offset.is_some() {
            node = RelNode::Sort {
                input: Box::new(node),
                keys,
                offset: sel
                    .offset
                    .map_or(0, |o| usize::try_from(o).unwrap_or(usize::MAX)),
                limit: sel.limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX)),
            };
        }
        let out_types: Vec<ColumnType> = types;
        if node.output_types().len() > n {
            node = RelNode::Project {
                exprs: out_types
                    .iter()
                    .enumerate()
                    .map(|(i, t)| input(i, *t))
                    .collect(),
                input: Box::new(node),
            };
        }
        let cols = names
            .iter()
            .zip(&out_types)
            .map(|(n, t)| Col::new(n.clone(), *t))
            .collect();
        Ok((Rel { node, cols }, names))
    }
}
