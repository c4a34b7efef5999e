//! Where window functions are planned: each `OVER (…)` call of the select list and `ORDER BY`
//! becomes a [`RelNode::Window`] over every row (a singleton exchange first), its value appended
//! as a hidden column the expression then reads; over a grouped block, the window runs above the
//! aggregate, over the groups.

use super::{
    Planner, is_aggregate_call, list_and_order_mut, requalify, resolve, synthetic, synthetic_table,
    to_inputs,
};
use crate::plan::binder::expr::{Mode, contains_aggregate};
use crate::plan::binder::rewrite::apply_ordinals_and_aliases;
use crate::plan::error::PlanError;
use crate::plan::expr::Expr;
use crate::plan::multistage::rel::Request;
use crate::plan::multistage::rel::{FrameBound, RelNode, WindowCall, WindowFrame, WindowFunction};
use crate::plan::multistage::relation::{Col, Rel};
use crate::plan::multistage::single_table::{aggregate_type, calcite_names};
use crate::plan::query_plan::SortKey;
use crate::sql::ast::{self, Select, SelectItem};
use segments::types::ColumnType;

impl Planner<'_> {
    /// Window functions of the select list and ORDER BY: each becomes a [`RelNode::Window`]
    /// over every row (gathered), appending its value as a hidden column the expression then
    /// reads.
    pub(super) fn windows(&mut self, mut rel: Rel, sel: &mut Select) -> Result<Rel, PlanError> {
        let mut calls: Vec<ast::Expr> = Vec::new();
        let mut collect = |e: &mut ast::Expr| {
            e.walk_mut(&mut |n| {
                if matches!(n, ast::Expr::Function { over: Some(_), .. }) && !calls.contains(n) {
                    calls.push(n.clone());
                }
            })
        };
        for e in list_and_order_mut(sel) {
            collect(e);
        }
        if calls.is_empty() {
            return Ok(rel);
        }
        if !sel.group_by.is_empty()
            || sel
                .projection
                .iter()
                .any(|i| matches!(i, SelectItem::Expr { expr, .. } if contains_aggregate(expr)))
        {
            return Err(PlanError::Planning(
                "window functions over grouped rows are not supported by Tessera's multi-stage engine yet".into(),
            ));
        }
        rel.node = self.request(Request::Gather(rel.node));
        for call in calls {
            let ast::Expr::Function {
                name,
                args,
                distinct,
                filter,
                over: Some(spec),
            } = &call
            else {
                continue;
            };
            let width = rel.cols.len();
            let mut projected: Vec<Expr> = rel.inputs();
            let mut partition_by = Vec::new();
            for p in &spec.partition_by {
                partition_by.push(projected.len());
                // The OVER clause is not reached by the select list's column rewrite.
                projected.push(self.bind_row(p, &rel.cols)?);
            }
            let mut order_by = Vec::new();
            for o in &spec.order_by {
                order_by.push(SortKey {
                    column: projected.len(),
                    asc: o.asc,
                    nulls_last: o.nulls_first.map_or(o.asc, |first| !first),
                });
                projected.push(self.bind_row(&o.expr, &rel.cols)?);
            }
            let window_call =
                self.window_call(name, args, *distinct, filter.is_some(), spec, &rel.cols)?;
            let mut cols = rel.cols.clone();
            for (i, e) in projected[width..].iter().enumerate() {
                cols.push(Col::new(format!("$wkey{}_{i}", width), e.column_type()));
            }
            cols.push(Col::new(
                format!("$window{}", cols.len()),
                window_call.output_type,
            ));
            let index = cols.len() - 1;
            rel = Rel {
                node: RelNode::Window {
                    input: Box::new(RelNode::Project {
                        input: Box::new(rel.node),
                        exprs: projected,
                    }),
                    partition_by,
                    order_by,
                    calls: vec![window_call],
                },
                cols,
            };
            let replacement = ast::Expr::Column {
                table: None,
                name: synthetic(index),
            };
            let replace = |e: &mut ast::Expr| {
                e.walk_mut(&mut |n| {
                    if *n == call {
                        *n = replacement.clone();
                    }
                })
            };
            for e in list_and_order_mut(sel) {
                replace(e);
            }
        }
        Ok(rel)
    }

    /// One window function call over `cols`.
    pub(super) fn window_call(
        &self,
        name: &str,
        args: &[ast::Expr],
        distinct: bool,
        filtered: bool,
        spec: &ast::WindowSpec,
        cols: &[Col],
    ) -> Result<WindowCall, PlanError> {
        let canonical = crate::plan::aggregate::canonical_name(name);
        if let Some(f) = &spec.frame
            && f.units == ast::FrameUnits::Range
            && [f.start, f.end].iter().any(|b| {
                matches!(
                    b,
                    ast::FrameBound::Preceding(_) | ast::FrameBound::Following(_)
                )
            })
        {
            return Err(PlanError::Planning(
                "RANGE window frame with offset PRECEDING / FOLLOWING is not supported".into(),
            ));
        }
        let frame = match &spec.frame {
            Some(f) => WindowFrame {
                rows: f.units == ast::FrameUnits::Rows,
                start: bound(f.start),
                end: bound(f.end),
                exclude: f.exclude,
            },
            None if spec.order_by.is_empty() => WindowFrame {
                rows: true,
                start: FrameBound::UnboundedPreceding,
                end: FrameBound::UnboundedFollowing,
                exclude: ast::FrameExclude::NoOthers,
            },
            None => WindowFrame {
                rows: false,
                start: FrameBound::UnboundedPreceding,
                end: FrameBound::CurrentRow,
                exclude: ast::FrameExclude::NoOthers,
            },
        };
        let long = ColumnType::sv(segments::types::DataType::Long);
        let literal_u64 = |e: Option<&ast::Expr>, default: u64| -> Result<u64, PlanError> {
            match e {
                None => Ok(default),
                Some(ast::Expr::Literal(ast::Literal::Long(n))) if *n >= 0 => Ok(*n as u64),
                Some(_) => Err(PlanError::Validation(format!(
                    "the offset of {name} must be a non-negative integer literal"
                ))),
            }
        };
        let arg = |i: usize| -> Result<Expr, PlanError> {
            let a = args
                .get(i)
                .ok_or_else(|| PlanError::Validation(format!("{name} needs an argument")))?;
            self.bind_synthetic(a, cols)
        };
        let (function, arg_expr, output_type) = match canonical.as_str() {
            "rownumber" => (WindowFunction::RowNumber, None, long),
            "rank" => (WindowFunction::Rank, None, long),
            "denserank" => (WindowFunction::DenseRank, None, long),
            "ntile" => (
                WindowFunction::Ntile(literal_u64(args.first(), 1)?.max(1)),
                None,
                long,
            ),
            "lag" | "lead" => {
                let a = arg(0)?;
                let offset = literal_u64(args.get(1), 1)?;
                let default = match args.get(2) {
                    Some(d) => Some(
                        self.bind_synthetic(d, cols)?
                            .as_literal()
                            .cloned()
                            .ok_or_else(|| {
                                PlanError::Validation(format!(
                                    "the default of {name} must be a literal"
                                ))
                            })?,
                    ),
                    None => None,
                };
                let t = a.column_type();
                let f = if canonical == "lag" {
                    WindowFunction::Lag { offset, default }
                } else {
                    WindowFunction::Lead { offset, default }
                };
                (f, Some(a), t)
            }
            "firstvalue" | "lastvalue" => {
                let a = arg(0)?;
                let t = a.column_type();
                let f = if canonical == "firstvalue" {
                    WindowFunction::FirstValue
                } else {
                    WindowFunction::LastValue
                };
                (f, Some(a), t)
            }
            _ => {
                if filtered || distinct {
                    return Err(PlanError::Planning(format!(
                        "{name}(DISTINCT …)/FILTER over a window is not supported by Tessera's multi-stage engine yet"
                    )));
                }
                let info = synthetic_table(cols);
                let scope = self.synthetic_scope(&info);
                let mut b = self.binder(&scope);
                let plain = ast::Expr::Function {
                    name: name.to_string(),
                    args: args.to_vec(),
                    distinct: false,
                    filter: None,
                    over: None,
                };
                b.bind(&plain, Mode::PostAggregate)?;
                let mut call = b.aggregates.pop().ok_or_else(|| {
                    PlanError::Validation(format!("'{name}' is not a window function"))
                })?;
                call.arg = call.arg.map(to_inputs);
                call.second = call.second.map(to_inputs);
                let v1 = call.result_column_type();
                let t =
                    aggregate_type(&call.function, call.arg.as_ref().map(Expr::column_type), v1);
                (WindowFunction::Aggregate(call), None, t)
            }
        };
        let treats_nulls = matches!(
            function,
            WindowFunction::FirstValue
                | WindowFunction::LastValue
                | WindowFunction::Lag { .. }
                | WindowFunction::Lead { .. }
        );
        if spec.ignore_nulls && !treats_nulls {
            return Err(PlanError::Validation(format!(
                "Cannot specify IGNORE NULLS or RESPECT NULLS following '{}'",
                name.to_ascii_uppercase()
            )));
        }
        Ok(WindowCall {
            function,
            arg: arg_expr,
            frame,
            output_type,
            ignore_nulls: spec.ignore_nulls,
        })
    }

    /// A grouped block with window functions, as SQL evaluates it: the grouping first (an inner
    /// block of the group keys and every aggregate), then the windows over the groups.
    pub(super) fn windows_over_groups(
        &mut self,
        mut sel: Select,
        rel: Rel,
    ) -> Result<(Rel, Vec<String>), PlanError> {
        let names = calcite_names(&sel.projection);
        apply_ordinals_and_aliases(&mut sel)?;
        // One spelling per column (`t.c` and `c` alike), so group keys are found by equality.
        let mut failure = None;
        let mut synthesize = |e: &mut ast::Expr| {
            e.walk_mut(&mut |n| {
                if let ast::Expr::Column { table, name } = n {
                    match resolve(&rel.cols, table.as_deref(), name) {
                        Ok(Some(i)) => {
                            *n = ast::Expr::Column {
                                table: None,
                                name: synthetic(i),
                            }
                        }
                        Ok(None) => {}
                        Err(e) => failure = Some(e),
                    }
                }
            })
        };
        for e in sel.exprs_mut() {
            synthesize(e);
        }
        if let Some(e) = failure {
            return Err(e);
        }
        let mut aggregates: Vec<ast::Expr> = Vec::new();
        let mut collect = |e: &mut ast::Expr| {
            e.walk_mut(&mut |n| {
                if is_aggregate_call(n) && !aggregates.contains(n) {
                    aggregates.push(n.clone());
                }
            })
        };
        for e in list_and_order_mut(&mut sel) {
            collect(e);
        }
        let column = |name: String| ast::Expr::Column { table: None, name };
        let mut inner_items: Vec<SelectItem> = Vec::new();
        for (i, g) in sel.group_by.iter().enumerate() {
            inner_items.push(SelectItem::Expr {
                expr: g.clone(),
                alias: Some(format!("$g{i}")),
            });
        }
        for (i, a) in aggregates.iter().enumerate() {
            inner_items.push(SelectItem::Expr {
                expr: a.clone(),
                alias: Some(format!("$a{i}")),
            });
        }
        let inner = Select {
            projection: inner_items,
            selection: sel.selection.take(),
            group_by: sel.group_by.clone(),
            having: sel.having.take(),
            ..Select::default()
        };
        let keys = std::mem::take(&mut sel.group_by);
        let replace = |e: &mut ast::Expr| {
            e.walk_mut(&mut |n| {
                if let Some(i) = aggregates.iter().position(|a| a == n) {
                    *n = column(format!("$a{i}"));
                } else if let Some(i) = keys.iter().position(|k| k == n) {
                    *n = column(format!("$g{i}"));
                }
            })
        };
        for e in list_and_order_mut(&mut sel) {
            replace(e);
        }
        let (inner_rel, inner_names) = self.upper_rows(inner, rel, Vec::new())?;
        let inner_rel = requalify(inner_rel, inner_names, None);
        let (rel, _) = self.upper_rows(sel, inner_rel, Vec::new())?;
        Ok((rel, names))
    }
}

fn bound(b: ast::FrameBound) -> FrameBound {
    match b {
        ast::FrameBound::UnboundedPreceding => FrameBound::UnboundedPreceding,
        ast::FrameBound::Preceding(n) => FrameBound::Preceding(n),
        ast::FrameBound::CurrentRow => FrameBound::CurrentRow,
        ast::FrameBound::Following(n) => FrameBound::Following(n),
        ast::FrameBound::UnboundedFollowing => FrameBound::UnboundedFollowing,
    }
}
