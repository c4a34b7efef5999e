//! A single-table `SELECT` block (no subquery, no window) as Pinot's v2 runs it: a **leaf
//! stage** whose v1 server plan holds the filter, the projection and the partial aggregation (so
//! every index v1 uses is used), one exchange, and above it the final aggregation over the
//! partial states, `HAVING`, `ORDER BY`/`OFFSET`/`LIMIT` and the output expressions:
//!
//! ```text
//! Project(outputs) ← Sort ← Project(row ++ sort keys) ← Filter(HAVING)
//!   ← Aggregate(FINAL) ← Receive(leaf, SINGLETON)
//! [leaf]  v1 server plan (filter, group keys, partial aggregates | projected rows)
//! ```
//!
//! The block is bound by the v1 binder (the same functions, filters, aggregates and errors),
//! then given v2's shape: no implicit `LIMIT`, Calcite's column names (`EXPR$<i>` for an
//! unaliased expression) and result types (`COUNT` and `SUM` of integers are `LONG`, `MIN`/`MAX`
//! keep an integral argument's type).

use super::estimate::Estimate;
use super::rel::{AggMode, Exchange, RelNode};
use super::relation::{Col, Rel, StageOrder, input};
use super::rows_estimate::RowsEstimate;
use crate::plan::aggregate::{AggregateCall, AggregateFunction};
use crate::plan::binder::rewrite::{canonicalize_columns, expand_wildcards};
use crate::plan::binder::scope::Scope;
use crate::plan::binder::select::plan_select;
use crate::plan::catalog::Catalog;
use crate::plan::error::PlanError;
use crate::plan::expr::Expr;
use crate::plan::query_plan::{
    ExecutionOptions, ResultLayout, ServerQueryKind, SingleStagePlan, SortKey,
};
use crate::sql::ast::{self, SelectItem};
use segments::types::ColumnType;
use segments::types::DataType;

/// `column IS [NOT] NULL` as Calcite plans it over a table without column-based null handling:
/// its columns are typed NOT NULL, so the test folds to `FALSE` (`TRUE`) whatever the stored
/// null vectors hold — Pinot's v2 answers so, and only tables that declare
/// `enableColumnBasedNullHandling` test their nulls.
fn fold_null_tests(select: &mut ast::Select) {
    let mut fold = |e: &mut ast::Expr| {
        e.walk_mut(&mut |x| {
            if let ast::Expr::IsNull { expr, negated } = x
                && matches!(**expr, ast::Expr::Column { .. })
            {
                *x = ast::Expr::Literal(ast::Literal::Bool(*negated));
            }
        })
    };
    for item in &mut select.projection {
        if let SelectItem::Expr { expr, .. } = item {
            fold(expr);
        }
    }
    select.selection.iter_mut().for_each(&mut fold);
    select.group_by.iter_mut().for_each(&mut fold);
    select.having.iter_mut().for_each(&mut fold);
    select.order_by.iter_mut().for_each(|o| fold(&mut o.expr));
}

/// A single-table block (no subquery): the leaf stage with the v1 server plan, and the
/// operators above its exchange.
pub fn single_table_rel(
    stages: &mut dyn StageOrder,
    catalog: &dyn Catalog,
    options: &ExecutionOptions,
    explain: bool,
    select: &ast::Select,
    name: &str,
    alias: Option<&str>,
) -> Result<(Rel, Vec<String>), PlanError> {
    let info = catalog
        .resolve_table(name)
        .ok_or_else(|| PlanError::TableNotFound(name.to_string()))?;
    let scope = Scope {
        table: Some(&info),
        catalog: Some(catalog),
        alias: alias.map(str::to_string),
    };
    let mut select = select.clone();
    canonicalize_columns(&mut select, &scope)?;
    if !info.schema.enable_column_based_null_handling {
        fold_null_tests(&mut select);
    }
    expand_wildcards(&mut select, &scope)?;
    let names = calcite_names(&select.projection);
    let (limit, offset) = (select.limit, select.offset.unwrap_or(0));
    if select.limit.is_none() {
        select.limit = Some(u64::MAX);
    }
    let estimate = info
        .statistics
        .is_some()
        .then(|| Estimate::table(info.statistics.clone(), select.selection.iter()));
    let single = plan_select(select, &scope, options, explain)?;
    let estimate = estimate.map(|e| e.of_leaf(&single.server.kind));
    let (node, columns) = single_table(
        stages,
        estimate,
        single,
        &names,
        limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX)),
        usize::try_from(offset).unwrap_or(usize::MAX),
    );
    let cols = columns.into_iter().map(|(n, ty)| Col::new(n, ty)).collect();
    Ok((Rel { node, cols }, names))
}

/// Calcite's result names: the alias, a plain column's name, else `EXPR$<position>`.
pub fn calcite_names(items: &[SelectItem]) -> Vec<String> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            SelectItem::Expr { alias: Some(a), .. } => a.clone(),
            SelectItem::Expr {
                expr: ast::Expr::Column { name, .. },
                ..
            } => name.clone(),
            _ => format!("EXPR${i}"),
        })
        .collect()
}

/// The v2 result type of an aggregate: Calcite's where it differs from v1's.
pub fn aggregate_type(
    f: &AggregateFunction,
    arg: Option<ColumnType>,
    v1: ColumnType,
) -> ColumnType {
    let integral = arg
        .is_some_and(|t| t.single_value && matches!(t.data_type, DataType::Int | DataType::Long));
    match f {
        AggregateFunction::Count => ColumnType::sv(DataType::Long),
        AggregateFunction::Sum | AggregateFunction::Sum0 | AggregateFunction::DistinctSum
            if integral =>
        {
            ColumnType::sv(DataType::Long)
        }
        AggregateFunction::Min | AggregateFunction::Max if integral => arg.unwrap_or(v1),
        _ => v1,
    }
}

fn single_table(
    stages: &mut dyn StageOrder,
    estimate: Option<RowsEstimate>,
    p: SingleStagePlan,
    names: &[String],
    limit: Option<usize>,
    offset: usize,
) -> (RelNode, Vec<(String, ColumnType)>) {
    let row_types = p.server.kind.row_types();
    let table = p.server.table.clone();
    let mut plan = (*p.server).clone();
    // Unordered rows and groups reach the columnar operators as columns.
    if matches!(&plan.kind, ServerQueryKind::Selection { order_by, .. } if order_by.is_empty())
        || matches!(plan.kind, ServerQueryKind::GroupBy { .. })
    {
        plan.layout = ResultLayout::Columns;
    }
    let leaf = RelNode::Leaf {
        plan,
        key_filters: Vec::new(),
    };
    let received = Exchange::leaf(stages.next_stage(), table, leaf, estimate);
    let mut agg_types: Vec<Option<ColumnType>> = vec![None; row_types.len()];
    let mut node = match &p.server.kind {
        ServerQueryKind::GroupBy { aggregates, .. }
        | ServerQueryKind::Aggregation { aggregates } => {
            let k = keys_of(&p.server.kind).len();
            let mut output_types: Vec<ColumnType> = row_types[..k].to_vec();
            for (i, a) in aggregates.iter().enumerate() {
                let v1 = a.result_column_type();
                let t = aggregate_type(&a.function, a.arg.as_ref().map(Expr::column_type), v1);
                agg_types[k + i] = Some(t);
                output_types.push(v1);
            }
            // The leaf applied each call's `FILTER (WHERE …)` to the rows it aggregated: the
            // final aggregation merges the states it sends, all of them.
            let merged = aggregates
                .iter()
                .map(|a| AggregateCall {
                    filter: None,
                    ..a.clone()
                })
                .collect();
            RelNode::Aggregate {
                input: Box::new(received),
                group_keys: (0..k).collect(),
                aggregates: merged,
                mode: AggMode::Final,
                output_types,
                groups_limit: p.server.options.num_groups_limit,
            }
        }
        ServerQueryKind::Distinct { exprs, .. } => RelNode::Aggregate {
            input: Box::new(received),
            group_keys: (0..exprs.len()).collect(),
            aggregates: Vec::new(),
            mode: AggMode::Direct,
            output_types: row_types.clone(),
            groups_limit: p.server.options.num_groups_limit,
        },
        _ => received,
    };
    if let Some(having) = p.reduce.having.clone() {
        node = RelNode::Filter {
            input: Box::new(node),
            condition: having,
        };
    }
    if !p.reduce.order_by.is_empty() || limit.is_some() || offset > 0 {
        let base: Vec<Expr> = node
            .output_types()
            .into_iter()
            .enumerate()
            .map(|(i, t)| input(i, t))
            .collect();
        let mut exprs = base;
        let mut keys = Vec::new();
        for o in &p.reduce.order_by {
            keys.push(SortKey {
                column: exprs.len(),
                asc: o.asc,
                nulls_last: o.nulls_last,
            });
            exprs.push(o.expr.clone());
        }
        node = RelNode::Sort {
            input: Box::new(RelNode::Project {
                input: Box::new(node),
                exprs,
            }),
            keys,
            offset,
            limit,
        };
    }
    let outputs: Vec<Expr> = p.reduce.columns.iter().map(|c| c.expr.clone()).collect();
    let columns: Vec<(String, ColumnType)> = p
        .reduce
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let t = match &c.expr {
                Expr::Input(r) => agg_types
                    .get(r.index)
                    .copied()
                    .flatten()
                    .unwrap_or(c.column_type),
                _ => c.column_type,
            };
            (names.get(i).cloned().unwrap_or_else(|| c.name.clone()), t)
        })
        .collect();
    let root = RelNode::Project {
        input: Box::new(node),
        exprs: outputs,
    };
    (root, columns)
}

fn keys_of(kind: &ServerQueryKind) -> &[Expr] {
    match kind {
        ServerQueryKind::GroupBy { keys, .. } => keys,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::ast::Query;
    use crate::sql::parse_statement;

    fn select(sql: &str) -> ast::Select {
        match parse_statement(sql).unwrap().query {
            Query::Select(s) => *s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn null_tests_of_columns_fold_and_others_stay() {
        let mut s = select(
            "SELECT a IS NULL, COUNT(*) FROM t WHERE b IS NOT NULL AND (a + 1) IS NULL GROUP BY a IS NULL",
        );
        fold_null_tests(&mut s);
        let folded =
            select("SELECT FALSE, COUNT(*) FROM t WHERE TRUE AND (a + 1) IS NULL GROUP BY FALSE");
        assert_eq!(s.projection, folded.projection);
        assert_eq!(s.selection, folded.selection);
        assert_eq!(s.group_by, folded.group_by);
    }
}
