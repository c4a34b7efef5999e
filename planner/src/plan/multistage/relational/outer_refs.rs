//! Correlated references written without a qualifier: in
//! `… FROM orders WHERE EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey)`, the
//! subquery's `o_orderkey` names the outer row's column, as SQL scoping says (a name belongs to
//! the innermost `FROM` that offers it). [`Planner::qualify_outer_refs`] qualifies such names
//! of the subquery's `WHERE` with the outer column's table, so the decorrelation, which
//! recognises qualified outer references, sees them.

use super::{Planner, resolve};
use crate::plan::multistage::relation::Col;
use crate::sql::ast::{self, Query, SelectItem, TableRef};

impl Planner<'_> {
    /// `query` with each unqualified column of its `WHERE` that names no column of its own
    /// `FROM`, and exactly one qualified column of `outer`, qualified by that column's table.
    /// Unchanged where the `FROM`'s names cannot be told before planning it (`*` in a derived
    /// table) or the query is not one `SELECT`.
    pub(super) fn qualify_outer_refs(&self, query: &Query, outer: &[Col]) -> Query {
        let Query::Select(select) = query else {
            return query.clone();
        };
        let (Some(from), Some(_)) = (&select.from, &select.selection) else {
            return query.clone();
        };
        let Some(inner) = self.offered_names(from) else {
            return query.clone();
        };
        let mut s = (**select).clone();
        if let Some(w) = s.selection.as_mut() {
            w.walk_mut(&mut |e| {
                if let ast::Expr::Column {
                    table: t @ None,
                    name,
                } = e
                    && !inner.iter().any(|n| n.eq_ignore_ascii_case(name))
                    && let Ok(Some(i)) = resolve(outer, None, name)
                    && let Some(q) = &outer[i].qualifier
                {
                    *t = Some(q.clone());
                }
            });
        }
        Query::Select(Box::new(s))
    }

    /// The column names a `FROM` item offers, or `None` where they cannot be told without
    /// planning it.
    pub(super) fn offered_names(&self, t: &TableRef) -> Option<Vec<String>> {
        match t {
            TableRef::Table { name, .. } if self.is_cte(name) => {
                output_names(self.cte_query(name)?)
            }
            TableRef::Table { name, .. } => {
                let table = self.catalog.resolve_table(name)?;
                Some(table.schema.column_names().map(str::to_string).collect())
            }
            TableRef::Subquery { columns, .. } if !columns.is_empty() => Some(columns.clone()),
            TableRef::Subquery { query, .. } => output_names(query),
            TableRef::Join { left, right, .. } => {
                let mut names = self.offered_names(left)?;
                names.extend(self.offered_names(right)?);
                Some(names)
            }
        }
    }
}

/// The names of a query's output columns (an unnamed expression's is empty: nothing refers to
/// it by name), or `None` with a `*` among them.
fn output_names(q: &Query) -> Option<Vec<String>> {
    match q {
        Query::Select(s) => s
            .projection
            .iter()
            .map(|i| match i {
                SelectItem::Expr { alias: Some(a), .. } => Some(a.clone()),
                SelectItem::Expr {
                    expr: ast::Expr::Column { name, .. },
                    ..
                } => Some(name.clone()),
                SelectItem::Expr { .. } => Some(String::new()),
                SelectItem::Wildcard | SelectItem::QualifiedWildcard(_) => None,
            })
            .collect(),
        Query::SetOp { left, .. } => output_names(left),
        Query::With { body, .. } => output_names(body),
        Query::Ordered { query, .. } => output_names(query),
        Query::Values(_) => None,
    }
}
