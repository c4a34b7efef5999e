//! Detects the constructs only Pinot's multi-stage (v2) engine runs — joins, subqueries, set
//! operations, CTEs and window functions — so the v1 binder can answer with Pinot's
//! "only supported by the multi-stage query engine" error.

use crate::sql::ast::{Expr, Query, Select, SelectItem, TableRef};

/// The first v2-only construct in `query`, by name (`JOIN`, `UNION`, `subquery`, …).
pub fn v2_only_construct(query: &Query) -> Option<&'static str> {
    match query {
        Query::Select(select) => in_select(select),
        Query::SetOp { op, .. } => Some(match op {
            crate::sql::ast::SetOperator::Union => "UNION",
            crate::sql::ast::SetOperator::Intersect => "INTERSECT",
            crate::sql::ast::SetOperator::Except => "EXCEPT",
        }),
        Query::With { .. } => Some("WITH"),
        Query::Values(_) => Some("VALUES"),
        Query::Ordered { query, .. } => match query.as_ref() {
            Query::Select(_) => Some("ordered subquery"),
            other => v2_only_construct(other),
        },
    }
}

fn in_select(select: &Select) -> Option<&'static str> {
    match &select.from {
        Some(TableRef::Join { .. }) => return Some("JOIN"),
        Some(TableRef::Subquery { .. }) => return Some("subquery"),
        _ => {}
    }
    let mut exprs: Vec<&Expr> = Vec::new();
    for item in &select.projection {
        if let SelectItem::Expr { expr, .. } = item {
            exprs.push(expr);
        }
    }
    exprs.extend(select.selection.iter());
    exprs.extend(select.group_by.iter());
    exprs.extend(select.having.iter());
    exprs.extend(select.order_by.iter().map(|o| &o.expr));
    exprs.into_iter().find_map(in_expr)
}

fn in_expr(e: &Expr) -> Option<&'static str> {
    let found = match e {
        Expr::InSubquery { .. } | Expr::Exists { .. } | Expr::ScalarSubquery(_) => Some("subquery"),
        Expr::Function { over: Some(_), .. } => Some("window function"),
        _ => None,
    };
    found.or_else(|| e.children().into_iter().find_map(in_expr))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::ast::{JoinKind, WindowSpec};

    fn select_from(from: TableRef) -> Query {
        Query::Select(Box::new(Select {
            projection: vec![SelectItem::Wildcard],
            from: Some(from),
            ..Select::default()
        }))
    }

    fn table(name: &str) -> TableRef {
        TableRef::Table {
            name: name.into(),
            alias: None,
        }
    }

    #[test]
    fn finds_v2_constructs() {
        assert_eq!(v2_only_construct(&select_from(table("t"))), None);
        let join = TableRef::Join {
            left: Box::new(table("a")),
            right: Box::new(table("b")),
            kind: JoinKind::Inner,
            on: None,
            using: vec![],
            natural: false,
            match_condition: None,
        };
        assert_eq!(v2_only_construct(&select_from(join)), Some("JOIN"));
        let mut s = Select {
            projection: vec![SelectItem::Expr {
                expr: Expr::Function {
                    name: "ROW_NUMBER".into(),
                    args: vec![],
                    distinct: false,
                    filter: None,
                    over: Some(WindowSpec::default()),
                },
                alias: None,
            }],
            from: Some(table("t")),
            ..Select::default()
        };
        assert_eq!(
            v2_only_construct(&Query::Select(Box::new(s.clone()))),
            Some("window function")
        );
        s.projection = vec![SelectItem::Wildcard];
        s.selection = Some(Expr::InSubquery {
            expr: Box::new(Expr::column("a")),
            query: Box::new(select_from(table("u"))),
            negated: false,
        });
        assert_eq!(
            v2_only_construct(&Query::Select(Box::new(s))),
            Some("subquery")
        );
        let union = Query::SetOp {
            op: crate::sql::ast::SetOperator::Union,
            all: true,
            left: Box::new(select_from(table("a"))),
            right: Box::new(select_from(table("b"))),
        };
        assert_eq!(v2_only_construct(&union), Some("UNION"));
    }
}
