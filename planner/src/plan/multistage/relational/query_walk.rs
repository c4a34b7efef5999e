//! One walk over everything a query names, at every depth (select lists, conditions, `ON`,
//! `USING`, window specs, derived tables, CTEs, nested subqueries): what the block reads
//! ([`Needed`](super::joins::Needed)) and what a subquery reads of its outer inputs
//! (`semi_pushdown`) are both visitors of it.

use crate::sql::ast::{self, Query, Select, SelectItem, TableRef};

/// What a walk reports.
pub(super) trait QueryVisitor {
    /// A column reference, `table.name` or `name` (a `USING` name comes unqualified).
    fn column(&mut self, table: Option<&str>, name: &str);
    /// `*` (no qualifier) or `q.*` in a select list.
    fn wildcard(&mut self, _qualifier: Option<&str>) {}
    /// A name a `FROM` gives its rows: a table's alias (its own name without one), a derived
    /// table's alias, a CTE's name.
    fn relation(&mut self, _name: &str) {}
    /// Entering (`true`) or leaving a query nested in the one walked: a subquery, a derived
    /// table, a CTE. A `*` there expands the nested query's own `FROM`.
    fn nested(&mut self, _entering: bool) {}
}

pub(super) fn query(v: &mut dyn QueryVisitor, q: &Query) {
    v.nested(true);
    query_body(v, q);
    v.nested(false);
}

fn query_body(v: &mut dyn QueryVisitor, q: &Query) {
    match q {
        Query::Select(s) => select(v, s),
        Query::SetOp { left, right, .. } => {
            query(v, left);
            query(v, right);
        }
        Query::With { ctes, body } => {
            for (name, c) in ctes {
                v.relation(name);
                query(v, c);
            }
            query(v, body);
        }
        Query::Values(rows) => {
            for e in rows.iter().flatten() {
                expr(v, e);
            }
        }
        Query::Ordered {
            query: inner,
            order_by,
            ..
        } => {
            query(v, inner);
            for o in order_by {
                expr(v, &o.expr);
            }
        }
    }
}

pub(super) fn select(v: &mut dyn QueryVisitor, s: &Select) {
    for item in &s.projection {
        match item {
            SelectItem::Wildcard => v.wildcard(None),
            SelectItem::QualifiedWildcard(q) => v.wildcard(Some(q)),
            SelectItem::Expr { expr: e, .. } => expr(v, e),
        }
    }
    for e in s.selection.iter().chain(&s.group_by).chain(&s.having) {
        expr(v, e);
    }
    for o in &s.order_by {
        expr(v, &o.expr);
    }
    if let Some(t) = &s.from {
        table(v, t);
    }
}

pub(super) fn table(v: &mut dyn QueryVisitor, t: &TableRef) {
    match t {
        // An alias hides the table's name: `FROM g x … g.k` names an outer `g`.
        TableRef::Table { name, alias } => v.relation(alias.as_deref().unwrap_or(name)),
        TableRef::Subquery {
            query: inner,
            alias,
            ..
        } => {
            if let Some(a) = alias {
                v.relation(a);
            }
            query(v, inner);
        }
        TableRef::Join {
            left,
            right,
            on,
            using,
            natural,
            match_condition,
            ..
        } => {
            // A natural join reads the names both sides share, known once they are planned.
            if *natural {
                v.wildcard(None);
            }
            table(v, left);
            table(v, right);
            for e in on.iter().chain(match_condition.as_deref()) {
                expr(v, e);
            }
            for u in using {
                v.column(None, u);
            }
        }
    }
}

pub(super) fn expr(v: &mut dyn QueryVisitor, e: &ast::Expr) {
    match e {
        ast::Expr::Column { table, name } => v.column(table.as_deref(), name),
        ast::Expr::InSubquery { query: q, .. }
        | ast::Expr::Exists { query: q, .. }
        | ast::Expr::ScalarSubquery(q) => query(v, q),
        ast::Expr::Function {
            over: Some(spec), ..
        } => {
            for p in spec
                .partition_by
                .iter()
                .chain(spec.order_by.iter().map(|o| &o.expr))
            {
                expr(v, p);
            }
        }
        _ => {}
    }
    for c in e.children() {
        expr(v, c);
    }
}
