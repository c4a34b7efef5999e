//! The binder: a parsed [`Statement`] plus a [`Catalog`] to a typed [`QueryPlan`].
//!
//! Steps, in order:
//! 1. reject what only the multi-stage engine runs ([`multi_stage`]);
//! 2. resolve the `FROM` table (none → a [`LiteralPlan`] of constants);
//! 3. syntax rewrites: column spelling, `*`, ordinals, aliases, `COUNT(DISTINCT)` ([`rewrite`]);
//! 4. bind expressions ([`expr`]) and filters ([`filter`]) and pick the server kind
//!    ([`select`]).
//!
//! Servers then apply [`timestamp_rewrite`] per segment (`dateTrunc` → timestamp-index
//! columns).

pub mod expr;
pub mod filter;
pub mod literal;
pub mod lookup;
pub mod map_item;
pub mod multi_stage;
pub mod names;
pub mod rewrite;
pub mod scope;
pub mod select;
pub mod timestamp_rewrite;

use super::catalog::Catalog;
use super::error::PlanError;
use super::query_plan::{ExecutionOptions, IdentityColumn, LiteralPlan, QueryPlan};
use crate::sql::ast::{Query, SelectItem, Statement, TableRef};
use expr::{ExprBinder, Mode};
use scope::Scope;
use segments::types::ColumnType;
use segments::types::{DataType, Value};

/// Binds a statement for the single-stage engine.
pub fn bind_statement(
    stmt: &Statement,
    catalog: &dyn Catalog,
    options: &ExecutionOptions,
) -> Result<QueryPlan, PlanError> {
    if let Some(construct) = multi_stage::v2_only_construct(&stmt.query) {
        return Err(PlanError::MultiStageOnly(construct.to_string()));
    }
    let Query::Select(select) = &stmt.query else {
        return Err(PlanError::MultiStageOnly("query".into()));
    };
    match &select.from {
        None => bind_literal_query(select, stmt.explain),
        Some(TableRef::Table { name, alias }) => {
            let info = catalog
                .resolve_table(name)
                .ok_or_else(|| PlanError::TableNotFound(name.clone()))?;
            let scope = Scope {
                table: Some(&info),
                catalog: Some(catalog),
                alias: alias.clone(),
            };
            let plan = select::plan_select((**select).clone(), &scope, options, stmt.explain)?;
            Ok(QueryPlan::SingleStage(plan))
        }
        Some(_) => Err(PlanError::MultiStageOnly("JOIN".into())),
    }
}

/// `SELECT 1, 'a' AS x` without a table: every item must fold to a constant. Pinot names
/// such columns by the constant's text (`1`, `a`) unless aliased.
fn bind_literal_query(
    select: &crate::sql::ast::Select,
    explain: bool,
) -> Result<QueryPlan, PlanError> {
    let scope = Scope {
        table: None,
        catalog: None,
        alias: None,
    };
    let mut b = ExprBinder::new(&scope);
    let mut columns = Vec::new();
    let mut identity_columns = Vec::new();
    for item in &select.projection {
        let SelectItem::Expr { expr, alias } = item else {
            return Err(PlanError::Compilation("'*' needs a FROM clause".into()));
        };
        let bound = b.bind(expr, Mode::Row)?;
        // Non-deterministic calls (`now()`) are not folded while binding; a query without a
        // table evaluates them once, here, as Pinot's broker does — or, when they read the
        // query's identity, once it is bound.
        let reads_identity = crate::plan::identity::reads_identity(&bound);
        let value = match bound.as_literal() {
            Some(v) => v.clone(),
            None if reads_identity && bound.columns().is_empty() => {
                identity_columns.push(IdentityColumn {
                    column: columns.len(),
                    expr: bound.clone(),
                    aliased: alias.is_some(),
                });
                Value::Null
            }
            None if bound.columns().is_empty() => {
                crate::plan::eval::eval(&bound, &crate::plan::eval::NoRow)
                    .map_err(|e| PlanError::Validation(e.to_string()))?
            }
            None => {
                return Err(PlanError::Compilation(format!(
                    "'{bound}' is not a constant; queries without FROM may only select constants"
                )));
            }
        };
        let data_type = bound.column_type().data_type;
        let name = alias.clone().unwrap_or_else(|| value.to_string());
        let column_type = match &value {
            _ if reads_identity => bound.column_type(),
            Value::Array(_) => ColumnType::mv(data_type),
            Value::Null => ColumnType::sv(DataType::String),
            _ => ColumnType::sv(data_type),
        };
        columns.push((name, column_type, value));
    }
    Ok(QueryPlan::Literal(LiteralPlan {
        columns,
        explain,
        identity_columns,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::aggregate::AggregateFunction;
    use crate::plan::catalog::MemoryCatalog;
    use crate::plan::expr::Expr;
    use crate::plan::query_plan::ServerQueryKind;
    use crate::sql::ast::{self, BinaryOp, Literal, OrderByExpr, Select};
    use segments::types::{FieldSpec, Schema};

    fn catalog() -> MemoryCatalog {
        let mut schema = Schema::default();
        schema
            .fields
            .push(FieldSpec::dimension("team", DataType::String));
        schema.fields.push(FieldSpec::metric("runs", DataType::Int));
        let mut c = MemoryCatalog::new();
        c.add("stats", schema);
        c
    }

    fn stmt(select: Select) -> Statement {
        Statement {
            set_options: vec![],
            explain: false,
            query: Query::Select(Box::new(select)),
        }
    }

    fn from(name: &str) -> Option<TableRef> {
        Some(TableRef::Table {
            name: name.into(),
            alias: None,
        })
    }

    fn item(expr: ast::Expr, alias: Option<&str>) -> SelectItem {
        SelectItem::Expr {
            expr,
            alias: alias.map(String::from),
        }
    }

    fn bind(select: Select) -> Result<QueryPlan, PlanError> {
        bind_statement(&stmt(select), &catalog(), &ExecutionOptions::default())
    }

    #[test]
    fn literal_queries_fold() {
        let plan = bind(Select {
            projection: vec![
                item(ast::Expr::Literal(Literal::Long(1)), None),
                item(
                    ast::Expr::binary(
                        BinaryOp::Add,
                        ast::Expr::Literal(Literal::Long(1)),
                        ast::Expr::Literal(Literal::Long(2)),
                    ),
                    Some("three"),
                ),
            ],
            ..Select::default()
        })
        .unwrap();
        let QueryPlan::Literal(l) = plan else {
            panic!("not literal")
        };
        assert_eq!(
            l.columns[0],
            (
                "1".to_string(),
                ColumnType::sv(DataType::Int),
                Value::Int(1)
            )
        );
        assert_eq!(
            l.columns[1],
            (
                "three".to_string(),
                ColumnType::sv(DataType::Double),
                Value::Double(3.0)
            )
        );
        let err = bind(Select {
            projection: vec![item(ast::Expr::column("x"), None)],
            ..Select::default()
        })
        .unwrap_err();
        assert_eq!(err, PlanError::UnknownColumn("x".into()));
    }

    #[test]
    fn unknown_table_and_v2_constructs() {
        let err = bind(Select {
            projection: vec![SelectItem::Wildcard],
            from: from("nope"),
            ..Select::default()
        })
        .unwrap_err();
        assert_eq!(err.code().code(), 190);
        let err = bind(Select {
            projection: vec![SelectItem::Wildcard],
            from: Some(TableRef::Join {
                left: Box::new(TableRef::Table {
                    name: "a".into(),
                    alias: None,
                }),
                right: Box::new(TableRef::Table {
                    name: "b".into(),
                    alias: None,
                }),
                kind: ast::JoinKind::Inner,
                on: None,
                using: vec![],
                natural: false,
                match_condition: None,
            }),
            ..Select::default()
        })
        .unwrap_err();
        assert_eq!(err.code().code(), 150);
    }

    #[test]
    fn selection_with_hidden_order_by_column_and_default_limit() {
        let plan = bind(Select {
            projection: vec![item(ast::Expr::column("team"), None)],
            from: from("STATS"),
            order_by: vec![OrderByExpr {
                expr: ast::Expr::column("runs"),
                asc: false,
                nulls_first: None,
            }],
            ..Select::default()
        })
        .unwrap();
        let QueryPlan::SingleStage(p) = plan else {
            panic!()
        };
        assert_eq!(p.server.table, "stats");
        let ServerQueryKind::Selection {
            exprs,
            order_by,
            limit,
        } = &p.server.kind
        else {
            panic!()
        };
        assert_eq!(exprs.len(), 2);
        assert_eq!(order_by[0].column, 1);
        assert!(!order_by[0].nulls_last);
        assert_eq!(*limit, 10);
        assert_eq!(p.reduce.columns.len(), 1);
        assert_eq!(p.reduce.columns[0].name, "team");
    }

    #[test]
    fn group_by_with_alias_having_and_ordinal() {
        let sum = ast::Expr::function("SUM", vec![ast::Expr::column("runs")]);
        let plan = bind(Select {
            projection: vec![
                item(ast::Expr::column("team"), None),
                item(sum, Some("total")),
            ],
            from: from("stats"),
            group_by: vec![ast::Expr::Literal(Literal::Long(1))],
            having: Some(ast::Expr::binary(
                BinaryOp::Gt,
                ast::Expr::column("total"),
                ast::Expr::Literal(Literal::Long(5)),
            )),
            order_by: vec![OrderByExpr {
                expr: ast::Expr::function("count", vec![ast::Expr::Star]),
                asc: true,
                nulls_first: None,
            }],
            limit: Some(3),
            ..Select::default()
        })
        .unwrap();
        let QueryPlan::SingleStage(p) = plan else {
            panic!()
        };
        let ServerQueryKind::GroupBy { keys, aggregates } = &p.server.kind else {
            panic!()
        };
        assert_eq!(keys.len(), 1);
        assert_eq!(aggregates.len(), 2);
        assert_eq!(aggregates[0].function, AggregateFunction::Sum);
        assert_eq!(aggregates[0].name, "sum(runs)");
        assert_eq!(aggregates[1].name, "count(*)");
        assert_eq!(p.reduce.columns[1].name, "total");
        assert_eq!(
            p.reduce.columns[1].column_type,
            ColumnType::sv(DataType::Double)
        );
        assert!(p.reduce.having.is_some());
        assert!(matches!(&p.reduce.order_by[0].expr, Expr::Input(i) if i.index == 2));
        assert_eq!(p.reduce.limit, 3);
    }

    #[test]
    fn non_grouped_column_is_rejected() {
        let err = bind(Select {
            projection: vec![
                item(ast::Expr::column("team"), None),
                item(ast::Expr::function("count", vec![ast::Expr::Star]), None),
            ],
            from: from("stats"),
            ..Select::default()
        })
        .unwrap_err();
        assert_eq!(err.code().code(), 150);
    }

    fn plan_sql(sql: &str) -> Result<QueryPlan, PlanError> {
        let stmt = crate::sql::parse_statement(sql).expect("parses");
        bind_statement(&stmt, &catalog(), &ExecutionOptions::default())
    }

    fn single(sql: &str) -> crate::plan::SingleStagePlan {
        match plan_sql(sql).unwrap() {
            QueryPlan::SingleStage(p) => p,
            other => panic!("not single-stage: {other:?}"),
        }
    }

    #[test]
    fn parsed_queries_bind_end_to_end() {
        let p = single(
            "SELECT team, SUM(runs) FILTER (WHERE runs > 1) AS s, PERCENTILE95(runs), COUNT(DISTINCT team) FROM stats GROUP BY team HAVING s > 10 ORDER BY 2 DESC LIMIT 5",
        );
        let names: Vec<&str> = p.reduce.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            vec!["team", "s", "percentile95(runs)", "distinctcount(team)"]
        );
        let ServerQueryKind::GroupBy { aggregates, .. } = &p.server.kind else {
            panic!()
        };
        assert_eq!(aggregates[0].name, "sum(runs) FILTER(WHERE runs > '1')");
        assert!(aggregates[0].filter.is_some());
        assert_eq!(aggregates[2].function, AggregateFunction::DistinctCount);
        assert_eq!(
            p.reduce.order_by_text,
            vec!["sum(runs) FILTER(WHERE runs > '1') DESC"]
        );
        let p = single(
            "SELECT runs + 1, UPPER(team) FROM stats WHERE team IN ('a', 'b') AND runs BETWEEN 1 AND 5",
        );
        assert_eq!(p.reduce.columns[0].name, "plus(runs,'1')");
        assert_eq!(p.reduce.columns[1].name, "upper(team)");
        assert_eq!(
            p.reduce.columns[1].column_type,
            ColumnType::sv(DataType::String)
        );
        assert!(
            matches!(p.server.filter, Some(crate::plan::FilterExpr::And(ref v)) if v.len() == 2)
        );
        let p = single("SELECT COUNT(*) FROM stats WHERE 1 = 1");
        assert_eq!(
            p.server.filter,
            Some(crate::plan::FilterExpr::Constant(true))
        );
        let p = single("SELECT DATE_TRUNC('DAY', runs) FROM stats");
        assert_eq!(p.reduce.columns[0].name, "datetrunc('DAY',runs)");
        let err = plan_sql("SELECT nosuchfn(runs) FROM stats").unwrap_err();
        assert_eq!(err.code().code(), 700);
        let err = plan_sql("SELECT runs FROM stats UNION SELECT runs FROM stats").unwrap_err();
        assert_eq!(err.code().code(), 150);
        let err = plan_sql("SELECT ROW_NUMBER() OVER (ORDER BY runs) FROM stats").unwrap_err();
        assert_eq!(err.code().code(), 150);
        let QueryPlan::Literal(l) = plan_sql("SELECT now() AS t, 'x'").unwrap() else {
            panic!()
        };
        assert_eq!(l.columns[0].0, "t");
        assert_eq!(l.columns[1].0, "x");
    }

    #[test]
    fn distinct_requires_selected_order_keys() {
        let base = Select {
            distinct: true,
            projection: vec![item(ast::Expr::column("team"), None)],
            from: from("stats"),
            ..Select::default()
        };
        let plan = bind(base.clone()).unwrap();
        assert!(
            matches!(plan, QueryPlan::SingleStage(ref p) if matches!(p.server.kind, ServerQueryKind::Distinct { .. }))
        );
        let err = bind(Select {
            order_by: vec![OrderByExpr {
                expr: ast::Expr::column("runs"),
                asc: true,
                nulls_first: None,
            }],
            ..base
        })
        .unwrap_err();
        assert_eq!(err.code().code(), 150);
    }
}
