//! One `SELECT` block over one table to a [`SingleStagePlan`].
//!
//! The block's shape picks the server kind:
//! * `SELECT DISTINCT …` → [`ServerQueryKind::Distinct`] (ORDER BY keys must be selected);
//! * any aggregate (in the select list, `HAVING` or `ORDER BY`) or a `GROUP BY` →
//!   [`ServerQueryKind::Aggregation`] / [`ServerQueryKind::GroupBy`], with the select list,
//!   `HAVING` and `ORDER BY` bound over the group row;
//! * otherwise → [`ServerQueryKind::Selection`]; ORDER BY expressions that are not selected
//!   are projected as hidden trailing columns.

use super::expr::{ExprBinder, Mode, contains_aggregate};
use super::filter::bind_filter;
use super::names::v1_name;
use super::rewrite::{
    apply_ordinals_and_aliases, canonicalize_columns, expand_wildcards, rewrite_count_distinct,
};
use super::scope::Scope;
use crate::plan::error::PlanError;
use crate::plan::expr::{Expr, InputRef};
use crate::plan::query_plan::{
    BrokerReducePlan, DEFAULT_LIMIT, ExecutionOptions, OutputColumn, ResultLayout, ServerQueryKind,
    ServerQueryPlan, SingleStagePlan, SortExpr, SortKey,
};
use crate::sql::ast::{self, Select, SelectItem};
use segments::types::ColumnType;
use segments::types::DataType;

/// Plans a select block over the table in `scope`.
pub fn plan_select(
    mut select: Select,
    scope: &Scope<'_>,
    options: &ExecutionOptions,
    explain: bool,
) -> Result<SingleStagePlan, PlanError> {
    let table = scope
        .table
        .map(|t| t.name.clone())
        .ok_or_else(|| PlanError::planning("a table is required"))?;
    canonicalize_columns(&mut select, scope)?;
    expand_wildcards(&mut select, scope)?;
    rewrite_count_distinct(&mut select);
    apply_ordinals_and_aliases(&mut select)?;

    let items: Vec<(ast::Expr, String)> = select
        .projection
        .iter()
        .filter_map(|item| match item {
            SelectItem::Expr { expr, alias } => {
                Some((expr.clone(), alias.clone().unwrap_or_else(|| v1_name(expr))))
            }
            _ => None,
        })
        .collect();
    if items.is_empty() {
        return Err(PlanError::Compilation("the select list is empty".into()));
    }
    let limit = select
        .limit
        .map_or(DEFAULT_LIMIT, |l| usize::try_from(l).unwrap_or(usize::MAX));
    let offset = select
        .offset
        .map_or(0, |o| usize::try_from(o).unwrap_or(usize::MAX));
    let server_limit = limit.saturating_add(offset);
    let order_by_text: Vec<String> = select
        .order_by
        .iter()
        .map(|o| {
            format!(
                "{} {}",
                v1_name(&o.expr),
                if o.asc { "ASC" } else { "DESC" }
            )
        })
        .collect();

    let mut b = ExprBinder::new(scope);
    b.null_handling = options.enable_null_handling;
    b.auto_rewrite_aggregation_type = options.auto_rewrite_aggregation_type;
    b.multi_stage = options.multi_stage;
    let filter = match &select.selection {
        Some(w) => {
            if contains_aggregate(w) {
                return Err(PlanError::Compilation(
                    "aggregation functions are not allowed in the WHERE clause".into(),
                ));
            }
            Some(bind_filter(&mut b, w)?.merge_eq_in().merge_ranges())
        }
        None => None,
    };
    let has_aggregate = items.iter().any(|(e, _)| contains_aggregate(e))
        || select.having.as_ref().is_some_and(contains_aggregate)
        || select.order_by.iter().any(|o| contains_aggregate(&o.expr));
    let nulls_last = |o: &ast::OrderByExpr| o.nulls_first.map_or(o.asc, |first| !first);

    let (kind, reduce) = if select.distinct {
        if !select.group_by.is_empty() || has_aggregate {
            return Err(PlanError::Compilation(
                "DISTINCT with GROUP BY or aggregation is not supported".into(),
            ));
        }
        let exprs: Vec<Expr> = items
            .iter()
            .map(|(e, _)| b.bind(e, Mode::Row))
            .collect::<Result<_, _>>()?;
        let mut keys = Vec::new();
        for o in &select.order_by {
            let bound = b.bind(&o.expr, Mode::Row)?;
            let column = exprs.iter().position(|e| *e == bound).ok_or_else(|| {
                PlanError::Compilation(format!(
                    "ORDER BY expression '{}' must be one of the DISTINCT expressions",
                    v1_name(&o.expr)
                ))
            })?;
            keys.push(SortKey {
                column,
                asc: o.asc,
                nulls_last: nulls_last(o),
            });
        }
        let reduce = passthrough_reduce(&exprs, &items, &keys, offset, limit, order_by_text);
        (
            ServerQueryKind::Distinct {
                exprs,
                order_by: keys,
                limit: server_limit,
            },
            reduce,
        )
    } else if has_aggregate
        || !select.group_by.is_empty()
        // Calcite: HAVING alone makes the whole input one group (`SELECT 1 FROM t HAVING 1 > 2`
        // answers no row, `… HAVING 1 < 2` one).
        || (options.multi_stage && select.having.is_some())
    {
        for g in &select.group_by {
            if contains_aggregate(g) {
                return Err(PlanError::Compilation(
                    "aggregation functions are not allowed in GROUP BY".into(),
                ));
            }
            let key = b.bind(g, Mode::Row)?;
            if !b.keys.contains(&key) {
                b.keys.push(key);
            }
        }
        let mut columns = Vec::with_capacity(items.len());
        for ((e, name), item) in items.iter().zip(&select.projection) {
            let expr = b.bind(e, Mode::PostAggregate)?;
            let aliased = matches!(item, SelectItem::Expr { alias: Some(_), .. });
            // A bare aggregation is named by its function (`percentile(x, 95.0)`).
            let name = match &expr {
                Expr::Input(i) if !aliased && i.index >= b.keys.len() => {
                    b.aggregates[i.index - b.keys.len()].name.clone()
                }
                _ => name.clone(),
            };
            columns.push(OutputColumn {
                name,
                column_type: expr.column_type(),
                expr,
            });
        }
        let having = match &select.having {
            Some(h) => Some(b.bind(h, Mode::PostAggregate)?),
            None => None,
        };
        let mut order_by = Vec::new();
        for o in &select.order_by {
            order_by.push(SortExpr {
                expr: b.bind(&o.expr, Mode::PostAggregate)?,
                asc: o.asc,
                nulls_last: nulls_last(o),
            });
        }
        let reduce = BrokerReducePlan {
            columns,
            having,
            order_by,
            offset,
            limit,
            order_by_text,
        };
        let kind = if b.keys.is_empty() {
            ServerQueryKind::Aggregation {
                aggregates: std::mem::take(&mut b.aggregates),
            }
        } else {
            ServerQueryKind::GroupBy {
                keys: std::mem::take(&mut b.keys),
                aggregates: std::mem::take(&mut b.aggregates),
            }
        };
        (kind, reduce)
    } else {
        if select.having.is_some() {
            return Err(PlanError::Compilation(
                "HAVING needs GROUP BY or an aggregation".into(),
            ));
        }
        let mut exprs: Vec<Expr> = items
            .iter()
            .map(|(e, _)| b.bind(e, Mode::Row))
            .collect::<Result<_, _>>()?;
        let mut keys = Vec::new();
        for o in &select.order_by {
            let bound = b.bind(&o.expr, Mode::Row)?;
            let column = match exprs.iter().position(|e| *e == bound) {
                Some(c) => c,
                None => {
                    exprs.push(bound);
                    exprs.len() - 1
                }
            };
            keys.push(SortKey {
                column,
                asc: o.asc,
                nulls_last: nulls_last(o),
            });
        }
        let reduce = passthrough_reduce(&exprs, &items, &keys, offset, limit, order_by_text);
        (
            ServerQueryKind::Selection {
                exprs,
                order_by: keys,
                limit: server_limit,
            },
            reduce,
        )
    };
    Ok(SingleStagePlan {
        server: std::sync::Arc::new(ServerQueryPlan {
            table,
            filter,
            kind,
            options: ExecutionOptions {
                column_defaults: scope
                    .table
                    .map(|t| {
                        t.schema
                            .fields
                            .iter()
                            .map(|f| (f.name.clone(), f.default_null()))
                            .collect()
                    })
                    .unwrap_or_default(),
                ..options.clone()
            },
            explain,
            layout: ResultLayout::Rows,
        }),
        reduce,
    })
}

/// The reduce plan of selection/distinct: output columns read the first `items.len()` row
/// columns; sorting reads the keys' columns.
fn passthrough_reduce(
    exprs: &[Expr],
    items: &[(ast::Expr, String)],
    keys: &[SortKey],
    offset: usize,
    limit: usize,
    order_by_text: Vec<String>,
) -> BrokerReducePlan {
    let input = |i: usize, name: &str| {
        Expr::Input(InputRef {
            index: i,
            name: name.to_string(),
            column_type: exprs
                .get(i)
                .map_or(ColumnType::sv(DataType::String), Expr::column_type),
        })
    };
    let columns = items
        .iter()
        .enumerate()
        .map(|(i, (_, name))| OutputColumn {
            name: name.clone(),
            column_type: exprs
                .get(i)
                .map_or(ColumnType::sv(DataType::String), Expr::column_type),
            expr: input(i, name),
        })
        .collect();
    let order_by = keys
        .iter()
        .map(|k| SortExpr {
            expr: input(
                k.column,
                &exprs
                    .get(k.column)
                    .map(|e| e.to_string())
                    .unwrap_or_default(),
            ),
            asc: k.asc,
            nulls_last: k.nulls_last,
        })
        .collect();
    BrokerReducePlan {
        columns,
        having: None,
        order_by,
        offset,
        limit,
        order_by_text,
    }
}
