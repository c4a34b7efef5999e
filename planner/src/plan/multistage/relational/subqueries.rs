//! Where subqueries of `WHERE` and the select list are planned: `IN (subquery)` and `EXISTS`
//! conjuncts become semi and anti joins (correlated ones decorrelated into join keys and
//! conditions), and a scalar subquery becomes a join to its one row — per key, when it is
//! correlated.

use super::joins;
use super::{
    Planner, and_all, calls_count, conjuncts, contains_subquery, post_aggregate_exprs, resolve,
};
use crate::plan::binder::expr::contains_aggregate;
use crate::plan::error::PlanError;
use crate::plan::expr::Expr;
use crate::plan::multistage::rel::{JoinKind, RelNode};
use crate::plan::multistage::relation::{Col, Rel};
use crate::sql::ast::{self, BinaryOp, Query, Select, SelectItem};

impl Planner<'_> {
    /// `IN (subquery)` / `EXISTS (subquery)` conjuncts of `WHERE` as semi and anti joins.
    pub(super) fn subquery_predicates(
        &mut self,
        mut rel: Rel,
        select: &mut Select,
    ) -> Result<Rel, PlanError> {
        let Some(w) = select.selection.take() else {
            return Ok(rel);
        };
        let mut rest = Vec::new();
        for c in conjuncts(&w) {
            match c {
                ast::Expr::InSubquery {
                    expr,
                    query,
                    negated,
                } => {
                    let query = self.qualify_outer_refs(query, &rel.cols);
                    let d = decorrelate(&query, &rel.cols, 1, false, true)?;
                    let (sub, _) = self.query(&d.query)?;
                    if sub.cols.len() != 1 + d.outer_keys.len() + d.condition_columns {
                        return Err(PlanError::Validation(
                            "an IN subquery must select one column".into(),
                        ));
                    }
                    // The tested value as a column of the left side.
                    let key = self.key_column(&mut rel, expr)?;
                    let mut lk = vec![key];
                    for e in &d.outer_keys {
                        lk.push(self.key_column(&mut rel, e)?);
                    }
                    let rk = (0..lk.len()).collect();
                    rel = if *negated && lk.len() == 1 && d.conditions.is_empty() {
                        // Uncorrelated: NULLs on either side count, as SQL says.
                        self.join(rel, sub, JoinKind::NotIn, lk, rk, None)
                    } else {
                        self.semi(rel, sub, lk, rk, &d.conditions, *negated)?
                    };
                }
                ast::Expr::Exists { query, negated } => {
                    let query = self.qualify_outer_refs(query, &rel.cols);
                    let d = decorrelate(&query, &rel.cols, 0, false, true)?;
                    let (sub, _) = self.query(&d.query)?;
                    let mut lk = Vec::new();
                    for e in &d.outer_keys {
                        lk.push(self.key_column(&mut rel, e)?);
                    }
                    let rk = (0..lk.len()).collect();
                    rel = self.semi(rel, sub, lk, rk, &d.conditions, *negated)?;
                }
                other => rest.push(other.clone()),
            }
        }
        select.selection = and_all(rest);
        Ok(rel)
    }

    /// The position of `e` among `rel`'s columns: a column it names, or a computed column added.
    pub(super) fn key_column(&mut self, rel: &mut Rel, e: &ast::Expr) -> Result<usize, PlanError> {
        if let ast::Expr::Column { table, name } = e
            && let Some(k) = resolve(&rel.cols, table.as_deref(), name)?
        {
            return Ok(k);
        }
        let bound = self.bind_row(e, &rel.cols)?;
        let width = rel.cols.len();
        let mut exprs: Vec<Expr> = rel.inputs();
        let ty = bound.column_type();
        exprs.push(bound);
        rel.cols.push(Col::new(format!("$key{width}"), ty));
        let node = rel.node.take();
        rel.node = RelNode::Project {
            input: Box::new(node),
            exprs,
        };
        Ok(width)
    }

    /// Plans the uncorrelated scalar subqueries of `sel` as one-row relations joined on (LEFT, no
    /// keys) and replaces each by a column reading it. In a grouped block those outside WHERE
    /// are returned instead, to be joined after the aggregate ([`Self::upper_rows`]): they are
    /// constants of the result, not of the rows grouped.
    pub(super) fn scalar_subqueries(
        &mut self,
        mut rel: Rel,
        sel: &mut Select,
        grouped: bool,
    ) -> Result<(Rel, Vec<Rel>), PlanError> {
        let mut found: Vec<(ast::Expr, bool)> = Vec::new();
        {
            let mut collect = |e: &mut ast::Expr, late: bool| {
                e.walk_mut(&mut |n| {
                    if matches!(n, ast::Expr::ScalarSubquery(_))
                        && !found.iter().any(|(f, _)| f == n)
                    {
                        found.push((n.clone(), late));
                    }
                })
            };
            for e in sel.selection.iter_mut() {
                collect(e, false);
            }
            for e in post_aggregate_exprs(sel) {
                collect(e, grouped);
            }
        }
        let mut late_subs = Vec::new();
        for (k, (sq, late)) in found.iter().enumerate() {
            let ast::Expr::ScalarSubquery(q) = sq else {
                continue;
            };
            let name = format!("$sq{k}_{}", rel.cols.len());
            // The value of a subquery that sees no row: NULL, or 0 for a COUNT.
            let mut empty: Option<ast::Literal> = None;
            let q = self.qualify_outer_refs(q, &rel.cols);
            let Decorrelated {
                query: grouped_query,
                outer_keys: outer,
                outer_only,
                ..
            } = decorrelate(&q, &rel.cols, 1, true, false)?;
            if !outer.is_empty() {
                // Correlated: the aggregate per value of the inner side of its correlating
                // equalities, joined (LEFT) on them.
                if *late {
                    return Err(PlanError::Planning(
                        "a correlated scalar subquery after GROUP BY is not supported by Tessera's multi-stage engine yet".into(),
                    ));
                }
                let (mut sub, counts) = self.correlated_scalar(grouped_query, outer.len())?;
                empty = counts.then_some(ast::Literal::Long(0));
                for (i, c) in sub.cols.iter_mut().enumerate() {
                    c.qualifier = None;
                    c.name = if i == 0 {
                        name.clone()
                    } else {
                        format!("{name}_key{i}")
                    };
                }
                let mut lk = Vec::with_capacity(outer.len());
                for e in &outer {
                    lk.push(self.key_column(&mut rel, e)?);
                }
                let rk = (1..=outer.len()).collect();
                rel = self.join(rel, sub, JoinKind::Left, lk, rk, None);
            } else {
                let (mut sub, _) = self.query(&q)?;
                if sub.cols.len() != 1 {
                    return Err(PlanError::Validation(
                        "a scalar subquery must select one column".into(),
                    ));
                }
                if let Some(last) = sub.cols.last_mut() {
                    last.qualifier = None;
                    last.name = name.clone();
                }
                if *late {
                    late_subs.push(sub);
                } else {
                    rel = self.join(rel, sub, JoinKind::Left, Vec::new(), Vec::new(), None);
                }
            }
            let mut column = ast::Expr::Column { table: None, name };
            if let Some(zero) = &empty {
                column =
                    ast::Expr::function("COALESCE", vec![column, ast::Expr::Literal(zero.clone())]);
            }
            // Conjuncts of the subquery over the outer row alone: where they fail, the
            // subquery sees no row and its aggregate is NULL (a COUNT 0).
            if let Some(p) = and_all(outer_only) {
                column = ast::Expr::Case {
                    operand: None,
                    branches: vec![(p, column)],
                    else_result: Some(Box::new(ast::Expr::Literal(
                        empty.clone().unwrap_or(ast::Literal::Null),
                    ))),
                };
            }
            let replace = |e: &mut ast::Expr| {
                e.walk_mut(&mut |n| {
                    if n == sq {
                        *n = column.clone();
                    }
                })
            };
            for e in sel.selection.iter_mut() {
                replace(e);
            }
            for e in post_aggregate_exprs(sel) {
                replace(e);
            }
        }
        Ok((rel, late_subs))
    }

    /// A correlated scalar subquery, decorrelated (its value first, then the inner sides of its
    /// correlating equalities), as one row per value of those: grouped by them; and whether its
    /// value is a bare COUNT. Its value must be an aggregate: a LEFT JOIN gives a missing group
    /// NULL, which is right for every aggregate but COUNT, whose empty group the caller reads
    /// as 0 (an expression over a COUNT is refused).
    pub(super) fn correlated_scalar(
        &mut self,
        q: Query,
        keys: usize,
    ) -> Result<(Rel, bool), PlanError> {
        let Query::Select(mut s) = q else {
            return Err(PlanError::Planning(
                "a correlated scalar subquery must be a single SELECT".into(),
            ));
        };
        let value = match s.projection.first() {
            Some(SelectItem::Expr { expr, .. }) => expr.clone(),
            _ => {
                return Err(PlanError::Validation(
                    "a scalar subquery must select one column".into(),
                ));
            }
        };
        let bare_count = matches!(&value, ast::Expr::Function { name, over: None, .. }
            if crate::plan::aggregate::canonical_name(name) == "count");
        if s.projection.len() != 1 + keys
            || !contains_aggregate(&value)
            || (calls_count(&value) && !bare_count)
        {
            return Err(PlanError::Planning(
                "a correlated scalar subquery must select one aggregate, COUNT only on its own, in Tessera's multi-stage engine".into(),
            ));
        }
        s.group_by = s
            .projection
            .iter()
            .skip(1)
            .filter_map(|i| match i {
                SelectItem::Expr { expr, .. } => Some(expr.clone()),
                _ => None,
            })
            .collect();
        let (rel, _) = self.query(&Query::Select(s))?;
        Ok((rel, bare_count))
    }

    /// `left`'s rows with (or, `anti`, without) a row of `right` whose keys equal theirs and
    /// that meets `conditions`, which read both sides' columns (`left`'s, then `right`'s).
    pub(super) fn semi(
        &mut self,
        left: Rel,
        right: Rel,
        lk: Vec<usize>,
        rk: Vec<usize>,
        conditions: &[ast::Expr],
        anti: bool,
    ) -> Result<Rel, PlanError> {
        let kind = if anti { JoinKind::Anti } else { JoinKind::Semi };
        let condition = match and_all(conditions.to_vec()) {
            Some(c) => {
                let mut cols = left.cols.clone();
                cols.extend(right.cols.iter().cloned());
                Some(self.bind_row(&c, &cols)?)
            }
            None => None,
        };
        Ok(self.join(left, right, kind, lk, rk, condition))
    }
}

/// A correlated subquery made uncorrelated by [`decorrelate`].
pub(super) struct Decorrelated {
    /// The subquery without its correlating conjuncts, selecting (after the columns it keeps)
    /// the inner side of each correlating equality, then each inner column of `conditions`.
    pub(super) query: Query,
    /// The outer side of each correlating equality, in the order their inner sides are selected.
    pub(super) outer_keys: Vec<ast::Expr>,
    /// Conjuncts over the outer row alone (when asked to lift them).
    pub(super) outer_only: Vec<ast::Expr>,
    /// Conjuncts reading both the outer row and the subquery's own columns other than as an
    /// equality of the two (TPC-H Q21's `l2.l_suppkey <> l1.l_suppkey`), when asked for: each
    /// inner column replaced by the unqualified name the subquery now selects it as
    /// ([`INNER_COLUMN`] and its number) — a condition on the semi join's pairs.
    pub(super) conditions: Vec<ast::Expr>,
    /// How many inner columns `conditions` read (selected last).
    pub(super) condition_columns: usize,
}

/// The name a decorrelated subquery selects the `k`th inner column of its conditions as.
const INNER_COLUMN: &str = "$inner";

/// A subquery correlated to the outer row by `inner = outer` equalities in its `WHERE` (the
/// outer side an expression over qualified outer columns only), as an uncorrelated one: those
/// equalities are removed and their inner sides selected (after the subquery's first `keep`
/// columns: its own column for `IN`, none for `EXISTS`). With `lift_outer_only`, conjuncts over
/// the outer row alone are lifted out too; with `conditions`, so are conjuncts reading both
/// sides otherwise (see [`Decorrelated::conditions`]).
pub(super) fn decorrelate(
    query: &Query,
    outer: &[Col],
    keep: usize,
    lift_outer_only: bool,
    conditions: bool,
) -> Result<Decorrelated, PlanError> {
    let unchanged = || Decorrelated {
        query: query.clone(),
        outer_keys: Vec::new(),
        outer_only: Vec::new(),
        conditions: Vec::new(),
        condition_columns: 0,
    };
    let Query::Select(select) = query else {
        return Ok(unchanged());
    };
    let Some(w) = &select.selection else {
        return Ok(unchanged());
    };
    let outer_ref = |table: &Option<String>, name: &str| {
        table
            .as_deref()
            .is_some_and(|t| matches!(resolve(outer, Some(t), name), Ok(Some(_))))
    };
    // How many columns of `e` are qualified references to the outer row, and how many not.
    let sides = |e: &ast::Expr| -> (usize, usize) {
        let mut cols = Vec::new();
        joins::columns(e, &mut cols);
        let outer_cols = cols.iter().filter(|(t, n)| outer_ref(t, n)).count();
        (outer_cols, cols.len() - outer_cols)
    };
    // Whether every column of `e` is a qualified reference to the outer row (and it has one).
    let is_outer = |e: &ast::Expr| matches!(sides(e), (o, 0) if o > 0);
    let mut kept = Vec::new();
    let mut inner_exprs = Vec::new();
    let mut outer_exprs = Vec::new();
    let mut outer_only = Vec::new();
    let mut mixed = Vec::new();
    let mut mixed_columns: Vec<ast::Expr> = Vec::new();
    for c in conjuncts(w) {
        if lift_outer_only && is_outer(c) {
            outer_only.push(c.clone());
            continue;
        }
        if let ast::Expr::Binary {
            op: BinaryOp::Eq,
            left,
            right,
        } = c
        {
            match (is_outer(left), is_outer(right)) {
                (true, false) => {
                    outer_exprs.push((**left).clone());
                    inner_exprs.push((**right).clone());
                    continue;
                }
                (false, true) => {
                    outer_exprs.push((**right).clone());
                    inner_exprs.push((**left).clone());
                    continue;
                }
                _ => {}
            }
        }
        if conditions && matches!(sides(c), (o, i) if o > 0 && i > 0) && !contains_subquery(c) {
            let mut condition = c.clone();
            condition.walk_mut(&mut |n| {
                if let ast::Expr::Column { table, name } = n
                    && !outer_ref(table, name)
                {
                    let k = match mixed_columns.iter().position(|m| m == n) {
                        Some(k) => k,
                        None => {
                            mixed_columns.push(n.clone());
                            mixed_columns.len() - 1
                        }
                    };
                    *n = ast::Expr::Column {
                        table: None,
                        name: format!("{INNER_COLUMN}{k}"),
                    };
                }
            });
            mixed.push(condition);
            continue;
        }
        kept.push(c.clone());
    }
    if outer_exprs.is_empty() && mixed.is_empty() {
        return Ok(unchanged());
    }
    let mut s = (**select).clone();
    if s.distinct || !s.group_by.is_empty() {
        return Err(PlanError::Planning(
            "a correlated subquery with DISTINCT or GROUP BY is not supported by Tessera's multi-stage engine yet".into(),
        ));
    }
    s.selection = and_all(kept);
    let condition_columns = mixed_columns.len();
    let extra = inner_exprs
        .into_iter()
        .map(|expr| SelectItem::Expr { expr, alias: None })
        .chain(
            mixed_columns
                .into_iter()
                .enumerate()
                .map(|(k, expr)| SelectItem::Expr {
                    expr,
                    alias: Some(format!("{INNER_COLUMN}{k}")),
                }),
        );
    // IN and scalar: the tested value first; LATERAL: every column; EXISTS: none.
    s.projection = s
        .projection
        .iter()
        .take(keep)
        .cloned()
        .chain(extra)
        .collect();
    Ok(Decorrelated {
        query: Query::Select(Box::new(s)),
        outer_keys: outer_exprs,
        outer_only,
        conditions: mixed,
        condition_columns,
    })
}
