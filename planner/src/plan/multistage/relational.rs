//! The relational binder: any query (joins, subqueries in `FROM`, `WITH`, set operations,
//! `IN`/`EXISTS` subqueries, `ORDER BY`/`LIMIT` over them) to one tree of operators, then the
//! distribution pass ([`placement`]) over it; [`super::split`] then cuts it into stages.
//!
//! Binding plans a query bottom-up into [`Rel`]s — operators with their columns — and decides
//! what each computes, not where its rows are: every table is a leaf stage (an [`Exchange`] not
//! placed yet) whose v1 server plan filters by the table's own predicates and projects the
//! columns the block reads ([`joins`] places the predicates of `FROM` and `WHERE`); a join, a
//! grouping, an operator that needs every row (sorting, windows, the root) and a set
//! operation's input are [`Request`]s. The pass then resolves them, bottom-up: a join's sides
//! hashed on its keys or one broadcast, a grouping of spread rows in two phases around a hash
//! exchange on its keys, spread rows gathered to one worker. Expressions above the leaves are
//! bound by the v1 expression binder over a synthetic scope whose columns are the relation's
//! positions (`__c<i>`), then read as [`Expr::Input`]s.
//!
//! Each question has its file: `joins` (with `join_order`, `or_factors`,
//! `semi_pushdown`) where `FROM` and `WHERE` become a join tree; `filter_pushdown` where a filter
//! above a semi join goes; `subqueries` where `IN`,
//! `EXISTS` and scalar subqueries become semi, anti and single-row joins; `windows` where
//! `OVER (…)` calls become window operators; `set_ops` `UNION`/`INTERSECT`/`EXCEPT`; `using`
//! `USING` and `NATURAL` joins; `upper` the select list, grouping, `HAVING`, `DISTINCT`,
//! `ORDER BY` and `LIMIT`; `placement` where rows move, with `eager_aggregate` where grouping
//! goes below a join, `sized_broadcast` where a small side is broadcast and `grouped_leaf` where
//! a single table's grouping joined on its keys runs on every worker; this file the blocks
//! themselves — `WITH`, `VALUES`, `FROM` items and lateral joins, the join strategies hints ask
//! for.

use super::hints::{AggHints, BlockHints, JoinHints, JoinStrategy, SideDistribution, WindowHints};
use super::rel::{AsofMatch, AsofOp, Exchange, JoinKind, RelNode, SetOpKind};
use super::rel::{JoinRequest, Place, Request, Side};
use super::relation::{Col, Rel, StageOrder, input};
use super::single_table::single_table_rel;
use super::stage::StageKind;
use crate::plan::binder::expr::{ExprBinder, Mode, contains_aggregate, fold, unify_types};
use crate::plan::binder::scope::Scope;
use crate::plan::catalog::{Catalog, TableInfo};
use crate::plan::error::PlanError;
use crate::plan::eval::coerce;
use crate::plan::expr::Expr;
use crate::plan::query_plan::{ExecutionOptions, ServerQueryKind, ServerQueryPlan};
use crate::sql::ast::{self, BinaryOp, Query, Select, SelectItem, TableRef};
use crate::sql::tree::list_exprs_mut;
use segments::types::ColumnType;
use segments::types::{DataType, FieldSpec, Schema, Value};

mod eager_aggregate;
pub mod filter_pushdown;
mod grouped_leaf;
mod join_order;
mod joins;
mod or_factors;
pub mod order_joins;
mod outer_refs;
pub mod placement;
mod query_walk;
pub mod semi_pushdown;
mod set_ops;
mod sized_broadcast;
mod subqueries;
mod upper;
mod using;
mod windows;

#[cfg(test)]
pub(crate) mod test_plans;
use joins::Needed;
use subqueries::{Decorrelated, decorrelate};

/// Plans one query into a tree of operators and exchanges.
pub struct Planner<'a> {
    pub catalog: &'a dyn Catalog,
    pub options: &'a ExecutionOptions,
    pub explain: bool,
    /// The steps that make stages so far: leaves bound, requests made ([`Exchange::order`]).
    steps: usize,
    ctes: Vec<(String, Query)>,
    /// Queries being planned inside each other (bounded: each level is a stage or more).
    depth: usize,
    /// The join hints of the `SELECT` block being planned.
    join_hints: JoinHints,
    /// The aggregation hints of the `SELECT` block being planned.
    agg_hints: AggHints,
    /// `errorOnNumGroupsLimit`, or the last block hint `aggOptions(error_on_num_groups_limit=…)`.
    pub error_on_num_groups_limit: bool,
    /// Join limits some block's hints set (they override the query options').
    pub hinted_limits: JoinHints,
    /// Window limits some block's hints set.
    pub hinted_window: WindowHints,
}

/// How deeply queries may nest (subqueries in FROM, set operations, CTE references).
pub const MAX_QUERY_DEPTH: usize = 16;

/// A choice of columns over a leaf stage's rows (`SELECT k FROM t` as an `IN` or `EXISTS`
/// subquery) made by the leaf itself: it sends only those columns, and no stage is cut to
/// pick them (a singleton stage would handle every row on one worker).
fn columns_into_leaf(node: RelNode) -> RelNode {
    let RelNode::Project { mut input, exprs } = node else {
        return node;
    };
    let picks: Option<Vec<usize>> = exprs
        .iter()
        .map(|e| match e {
            Expr::Input(i) => Some(i.index),
            _ => None,
        })
        .collect();
    if let Some(picks) = picks
        && !picks.is_empty()
        && let Some(x) = Exchange::undecided(&mut input)
        && matches!(x.kind, StageKind::Leaf { .. })
        && let RelNode::Leaf {
            plan:
                ServerQueryPlan {
                    kind:
                        ServerQueryKind::Selection {
                            exprs: leaf_exprs,
                            order_by,
                            ..
                        },
                    ..
                },
            key_filters,
        } = &mut x.input
        && key_filters.is_empty()
        && order_by.is_empty()
        && picks.iter().all(|&p| p < leaf_exprs.len())
    {
        *leaf_exprs = picks
            .iter()
            .map(|&p| leaf_exprs[p].clone())
            .collect::<Vec<_>>();
        return *input;
    }
    RelNode::Project { input, exprs }
}

fn synthetic(i: usize) -> String {
    format!("__c{i}")
}

/// `Column(__c<i>)` → `Input(i)` everywhere in `e`.
fn to_inputs(mut e: Expr) -> Expr {
    e.rewrite(&mut column_to_input);
    e
}

/// `Column(__c<i>)` → `Input(i)`, one node.
fn column_to_input(n: &mut Expr) {
    if let Expr::Column(c) = n
        && let Some(i) = c
            .name
            .strip_prefix("__c")
            .and_then(|i| i.parse::<usize>().ok())
    {
        *n = input(i, c.column_type);
    }
}

/// The position of `table.name` (or an unqualified `name`) among `cols`.
fn resolve(cols: &[Col], table: Option<&str>, name: &str) -> Result<Option<usize>, PlanError> {
    let matches: Vec<usize> = cols
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            c.name.eq_ignore_ascii_case(name)
                && (table.is_some() || !c.hidden)
                && table.is_none_or(|t| {
                    c.qualifier.as_deref().is_some_and(|q| {
                        q.eq_ignore_ascii_case(t)
                            || t.rsplit('.')
                                .next()
                                .is_some_and(|t| q.eq_ignore_ascii_case(t))
                    })
                })
        })
        .map(|(i, _)| i)
        .collect();
    match matches.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(*one)),
        _ => Err(PlanError::Validation(format!(
            "column '{name}' is ambiguous"
        ))),
    }
}

impl StageOrder for Planner<'_> {
    fn next_stage(&mut self) -> usize {
        self.steps += 1;
        self.steps
    }
}

impl<'a> Planner<'a> {
    pub fn new(
        catalog: &'a dyn Catalog,
        options: &'a ExecutionOptions,
        explain: bool,
    ) -> Planner<'a> {
        Planner {
            catalog,
            options,
            explain,
            steps: 0,
            ctes: Vec::new(),
            depth: 0,
            join_hints: JoinHints::default(),
            agg_hints: AggHints::default(),
            error_on_num_groups_limit: options.error_on_num_groups_limit,
            hinted_limits: JoinHints::default(),
            hinted_window: WindowHints::default(),
        }
    }

    /// `request` in the tree, numbered after the requests and leaves planned before it.
    pub fn request(&mut self, request: Request) -> RelNode {
        RelNode::Place(Box::new(Place {
            order: self.next_stage(),
            request,
        }))
    }

    /// Plans a query; returns the relation and its result names.
    pub fn query(&mut self, q: &Query) -> Result<(Rel, Vec<String>), PlanError> {
        if self.depth >= MAX_QUERY_DEPTH {
            return Err(PlanError::Planning(format!(
                "queries nested more than {MAX_QUERY_DEPTH} deep are not supported"
            )));
        }
        self.depth += 1;
        let out = self.query_at_depth(q);
        self.depth -= 1;
        out
    }

    fn query_at_depth(&mut self, q: &Query) -> Result<(Rel, Vec<String>), PlanError> {
        match q {
            Query::Select(s) => self.select(s),
            Query::Values(rows) => self.values(rows),
            Query::With { ctes, body } => {
                let before = self.ctes.len();
                self.ctes.extend(ctes.iter().cloned());
                let out = self.query(body);
                self.ctes.truncate(before);
                out
            }
            Query::SetOp {
                op,
                all,
                left,
                right,
            } => {
                let (l, names) = self.query(left)?;
                let (r, _) = self.query(right)?;
                if l.cols.len() != r.cols.len() {
                    return Err(PlanError::Validation(
                        "the inputs of a set operation must have the same number of columns".into(),
                    ));
                }
                // Numbers of different types meet in the least restrictive one (Calcite's):
                // `INT UNION ALL BIGINT` is BIGINT, not the first input's INT.
                let types: Vec<Option<DataType>> = l
                    .cols
                    .iter()
                    .zip(&r.cols)
                    .map(|(a, b)| set_ops::set_op_type(a.ty.data_type, b.ty.data_type))
                    .collect();
                let (l, r) = (set_ops::widened(l, &types), set_ops::widened(r, &types));
                let kind = match op {
                    ast::SetOperator::Union => SetOpKind::Union,
                    ast::SetOperator::Intersect => SetOpKind::Intersect,
                    ast::SetOperator::Except => SetOpKind::Except,
                };
                let cols = l
                    .cols
                    .iter()
                    .map(|c| Col {
                        qualifier: None,
                        ..c.clone()
                    })
                    .collect();
                // Each input on one worker, from a stage of its own.
                let inputs = vec![
                    self.request(Request::Alone(l.node)),
                    self.request(Request::Alone(r.node)),
                ];
                Ok((
                    Rel {
                        node: RelNode::SetOp {
                            kind,
                            all: *all,
                            inputs,
                        },
                        cols,
                    },
                    names,
                ))
            }
            Query::Ordered {
                query,
                order_by,
                limit,
                offset,
            } => {
                let (rel, names) = self.query(query)?;
                let select = Select {
                    projection: vec![SelectItem::Wildcard],
                    order_by: order_by.clone(),
                    limit: *limit,
                    offset: *offset,
                    ..Select::default()
                };
                let (rel, _) = self.upper(&select, rel)?;
                Ok((rel, names))
            }
        }
    }

    fn select(&mut self, s: &Select) -> Result<(Rel, Vec<String>), PlanError> {
        let hints = BlockHints::from_ast(&s.hints)?;
        if hints.join.max_rows_in_join.is_some() {
            self.hinted_limits.max_rows_in_join = hints.join.max_rows_in_join;
        }
        if hints.join.join_overflow_mode.is_some() {
            self.hinted_limits.join_overflow_mode = hints.join.join_overflow_mode;
        }
        if hints.window.max_rows_in_window.is_some() {
            self.hinted_window.max_rows_in_window = hints.window.max_rows_in_window;
        }
        if hints.window.window_overflow_mode.is_some() {
            self.hinted_window.window_overflow_mode = hints.window.window_overflow_mode;
        }
        // `aggOptions(error_on_num_groups_limit=…)`: the query fails where a limit is reached.
        if let Some(e) = hints.agg.error_on_num_groups_limit {
            self.error_on_num_groups_limit = e;
        }
        let outer = std::mem::replace(&mut self.join_hints, hints.join);
        let outer_agg = std::mem::replace(&mut self.agg_hints, hints.agg);
        let planned = self.select_block(s);
        self.join_hints = outer;
        self.agg_hints = outer_agg;
        planned
    }

    /// Groups an aggregate of the current block keeps.
    fn groups_limit(&self) -> usize {
        self.agg_hints
            .num_groups_limit
            .unwrap_or(self.options.num_groups_limit)
    }

    fn select_block(&mut self, s: &Select) -> Result<(Rel, Vec<String>), PlanError> {
        // `aggOptions(is_skip_leaf_stage_group_by='true')`: the leaf reads rows and the
        // aggregation runs above it, as for a join.
        let skip_leaf_grouping =
            self.agg_hints.skip_leaf_group_by && (!s.group_by.is_empty() || has_aggregate_call(s));
        if let Some(TableRef::Table { name, alias }) = &s.from
            && !self.is_cte(name)
            && !has_subquery_predicates(s)
            && !has_window(s)
            && !skip_leaf_grouping
        {
            let (catalog, explain) = (self.catalog, self.explain);
            let options = ExecutionOptions {
                num_groups_limit: self.groups_limit(),
                ..self.options.clone()
            };
            return single_table_rel(self, catalog, &options, explain, s, name, alias.as_deref());
        }
        let mut block = s.clone();
        let rel = match block.from.take() {
            Some(t) => {
                let needed = Needed::of(s);
                let filters = block
                    .selection
                    .take()
                    .map(|w| conjuncts(&w).into_iter().cloned().collect())
                    .unwrap_or_default();
                let (rel, rest) = self.join_tree(&t, filters, &needed)?;
                block.selection = and_all(rest);
                rel
            }
            None => Rel {
                node: RelNode::Values {
                    rows: vec![Vec::new()],
                    types: Vec::new(),
                },
                cols: Vec::new(),
            },
        };
        self.upper(&block, rel)
    }

    /// `VALUES (…), (…)`: constant rows, each column typed as its values' common type and
    /// named `EXPR$<i>` as Calcite names them.
    fn values(&mut self, rows: &[Vec<ast::Expr>]) -> Result<(Rel, Vec<String>), PlanError> {
        let width = rows.first().map_or(0, Vec::len);
        if rows.iter().any(|r| r.len() != width) {
            return Err(PlanError::Validation(
                "Values passed to VALUES operator must have compatible types".into(),
            ));
        }
        let info = synthetic_table(&[]);
        let scope = self.synthetic_scope(&info);
        let mut b = ExprBinder::new(&scope);
        let mut bound = Vec::with_capacity(rows.len());
        for row in rows {
            let row: Vec<Expr> = row
                .iter()
                .map(|e| b.bind(e, Mode::Row).map(fold))
                .collect::<Result<_, _>>()?;
            bound.push(row);
        }
        let types: Vec<ColumnType> = (0..width)
            .map(|c| {
                let typed: Vec<ColumnType> = bound
                    .iter()
                    .filter(|r| {
                        !matches!(
                            r[c],
                            Expr::Literal {
                                value: Value::Null,
                                ..
                            }
                        )
                    })
                    .map(|r| r[c].column_type())
                    .collect();
                unify_types(&typed)
            })
            .collect();
        let mut out = Vec::with_capacity(bound.len());
        for row in bound {
            let mut values = Vec::with_capacity(width);
            for (e, t) in row.into_iter().zip(&types) {
                let Expr::Literal { value, .. } = e else {
                    return Err(PlanError::Validation(
                        "VALUES takes constant expressions only".into(),
                    ));
                };
                values.push(coerce(value, t.data_type).map_err(|e| PlanError::Validation(e.0))?);
            }
            out.push(values);
        }
        let names: Vec<String> = (0..width).map(|i| format!("EXPR${i}")).collect();
        let cols = names
            .iter()
            .zip(&types)
            .map(|(n, t)| Col::new(n.clone(), *t))
            .collect();
        let node = RelNode::Values { rows: out, types };
        Ok((Rel { node, cols }, names))
    }

    fn is_cte(&self, name: &str) -> bool {
        self.cte_query(name).is_some()
    }

    /// The query of the innermost CTE named `name`, if any.
    fn cte_query(&self, name: &str) -> Option<&Query> {
        self.ctes
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, q)| q)
    }

    /// A CTE read as a table.
    fn cte(&mut self, name: &str, alias: Option<&str>) -> Result<Rel, PlanError> {
        let q = self
            .cte_query(name)
            .cloned()
            .ok_or_else(|| PlanError::TableNotFound(name.to_string()))?;
        let (rel, names) = self.query(&q)?;
        Ok(requalify(rel, names, Some(alias.unwrap_or(name))))
    }

    /// Plans a `FROM` item reading the columns `needed`; tables and inner joins go through
    /// [`Self::join_tree`], which places their `ON` conditions.
    fn from(&mut self, t: &TableRef, needed: &Needed) -> Result<Rel, PlanError> {
        match t {
            TableRef::Table { name, alias } if self.is_cte(name) => {
                self.cte(name, alias.as_deref())
            }
            TableRef::Join {
                left,
                right,
                kind: kind @ (ast::JoinKind::Inner | ast::JoinKind::Cross | ast::JoinKind::Left),
                on,
                ..
            } if matches!(**right, TableRef::Subquery { lateral: true, .. }) => self.lateral_join(
                left,
                right,
                *kind == ast::JoinKind::Left,
                on.as_ref(),
                needed,
            ),
            TableRef::Subquery {
                query,
                alias,
                columns,
                ..
            } => {
                let (rel, mut names) = self.query(query)?;
                if !columns.is_empty() {
                    if columns.len() != names.len() {
                        return Err(PlanError::Validation(format!(
                            "List of column aliases must have same degree as table; table has {} columns {:?}, whereas alias list has {} columns",
                            names.len(),
                            names,
                            columns.len()
                        )));
                    }
                    names.clone_from(columns);
                }
                Ok(requalify(rel, names, alias.as_deref()))
            }
            TableRef::Join {
                left,
                right,
                kind: kind @ (ast::JoinKind::Asof | ast::JoinKind::LeftAsof),
                on,
                match_condition,
                ..
            } => {
                let l = self.from(left, needed)?;
                let r = self.from(right, needed)?;
                let mut lk = Vec::new();
                let mut rk = Vec::new();
                for c in on.iter().flat_map(conjuncts) {
                    if matches!(c, ast::Expr::Literal(ast::Literal::Bool(true))) {
                        continue;
                    }
                    let (a, b) = equi_pair(c, &l.cols, &r.cols)?.ok_or_else(|| {
                        PlanError::Planning(
                            "ASOF JOIN condition must be a conjunction of equality comparisons"
                                .into(),
                        )
                    })?;
                    lk.push(a);
                    rk.push(b);
                }
                let m = match match_condition {
                    Some(m) => asof_match(m, &l.cols, &r.cols)?,
                    None => {
                        return Err(PlanError::Planning(
                            "ASOF JOIN needs a MATCH_CONDITION".into(),
                        ));
                    }
                };
                let kind = if *kind == ast::JoinKind::LeftAsof {
                    JoinKind::Left
                } else {
                    JoinKind::Inner
                };
                let mut rel = self.join(l, r, kind, lk, rk, None);
                if let RelNode::Place(p) = &mut rel.node
                    && let Request::Join(JoinRequest {
                        join: RelNode::Join { asof, .. },
                        ..
                    }) = &mut p.request
                {
                    *asof = Some(m);
                }
                Ok(rel)
            }
            TableRef::Join {
                left,
                right,
                kind,
                on,
                using,
                natural,
                ..
            } if !using.is_empty()
                || *natural
                || !matches!(kind, ast::JoinKind::Inner | ast::JoinKind::Cross) =>
            {
                let on: Vec<ast::Expr> = on
                    .as_ref()
                    .map(|e| conjuncts(e).into_iter().cloned().collect())
                    .unwrap_or_default();
                // An ON conjunct over the null-producing side alone filters that side's rows
                // before the join (into its leaf); the preserved side is planned first.
                let (l, r, on) = match kind {
                    ast::JoinKind::Left if using.is_empty() => {
                        let l = self.from(left, needed)?;
                        let (pushed, on) = self.null_side_conjuncts(right, &l.cols, on);
                        let r = self.filtered_from(right, pushed, needed)?;
                        (l, r, on)
                    }
                    ast::JoinKind::Right if using.is_empty() => {
                        let r = self.from(right, needed)?;
                        let (pushed, on) = self.null_side_conjuncts(left, &r.cols, on);
                        let l = self.filtered_from(left, pushed, needed)?;
                        (l, r, on)
                    }
                    _ => (self.from(left, needed)?, self.from(right, needed)?, on),
                };
                let kind = match kind {
                    ast::JoinKind::Inner | ast::JoinKind::Cross => JoinKind::Inner,
                    ast::JoinKind::Left => JoinKind::Left,
                    ast::JoinKind::Right => JoinKind::Right,
                    ast::JoinKind::Full => JoinKind::Full,
                    ast::JoinKind::Semi => JoinKind::Semi,
                    ast::JoinKind::Anti => JoinKind::Anti,
                    ast::JoinKind::Asof | ast::JoinKind::LeftAsof => {
                        unreachable!("ASOF joins take the arm above")
                    }
                };
                let mut lk = Vec::new();
                let mut rk = Vec::new();
                let mut residual = Vec::new();
                // NATURAL: every name both sides have, in the left side's order.
                let common: Vec<String>;
                let using = if *natural {
                    common = l
                        .cols
                        .iter()
                        .map(|c| c.name.clone())
                        .filter(|n| r.cols.iter().any(|c| c.name.eq_ignore_ascii_case(n)))
                        .fold(Vec::new(), |mut v, n| {
                            if !v.iter().any(|x: &String| x.eq_ignore_ascii_case(&n)) {
                                v.push(n);
                            }
                            v
                        });
                    &common
                } else {
                    using
                };
                for name in using {
                    let a = resolve(&l.cols, None, name)?
                        .ok_or_else(|| PlanError::UnknownColumn(name.clone()))?;
                    let b = resolve(&r.cols, None, name)?
                        .ok_or_else(|| PlanError::UnknownColumn(name.clone()))?;
                    lk.push(a);
                    rk.push(b);
                }
                let merged = (!using.is_empty()
                    && !matches!(kind, JoinKind::Semi | JoinKind::Anti))
                .then(|| (using.clone(), lk.clone(), rk.clone(), l.cols.len()));
                for c in on {
                    match equi_pair(&c, &l.cols, &r.cols)? {
                        Some((a, b)) => {
                            lk.push(a);
                            rk.push(b);
                        }
                        None => residual.push(c),
                    }
                }
                let mut cols = l.cols.clone();
                cols.extend(r.cols.iter().cloned());
                let condition = match and_all(residual) {
                    Some(e) => Some(self.bind_row(&e, &cols)?),
                    None => None,
                };
                let joined = self.hinted_join(l, r, kind, lk, rk, condition)?;
                Ok(match merged {
                    Some((names, lk, rk, width)) => {
                        using::using_columns(joined, kind, &names, &lk, &rk, width)
                    }
                    None => joined,
                })
            }
            _ => self.filtered_from(t, Vec::new(), needed),
        }
    }

    /// `left [LEFT] JOIN LATERAL (query) alias ON cond`, the query correlated with `left` by
    /// equalities in its `WHERE`: it runs once per value of its inner sides of those (grouped
    /// by them when it aggregates — an aggregate without GROUP BY is one row per outer row, so
    /// that join is LEFT), and is joined on them; `cond` then filters (or, LEFT, matches).
    fn lateral_join(
        &mut self,
        left: &TableRef,
        right: &TableRef,
        left_join: bool,
        on: Option<&ast::Expr>,
        needed: &Needed,
    ) -> Result<Rel, PlanError> {
        let TableRef::Subquery {
            query,
            alias,
            columns,
            ..
        } = right
        else {
            return Err(PlanError::Planning("LATERAL needs a subquery".into()));
        };
        let l = self.from(left, needed)?;
        let width = match &**query {
            Query::Select(s) => s.projection.len(),
            _ => 0,
        };
        let query = self.qualify_outer_refs(query, &l.cols);
        let Decorrelated {
            query: inner,
            outer_keys: outer,
            ..
        } = decorrelate(&query, &l.cols, width, false, false)?;
        let Query::Select(mut s) = inner else {
            return Err(PlanError::Planning(
                "a LATERAL subquery must be a single SELECT".into(),
            ));
        };
        let aggregates = s
            .projection
            .iter()
            .take(width)
            .any(|i| matches!(i, SelectItem::Expr { expr, .. } if contains_aggregate(expr)));
        let counts = s
            .projection
            .iter()
            .take(width)
            .any(|i| matches!(i, SelectItem::Expr { expr, .. } if calls_count(expr)));
        if aggregates && counts && !outer.is_empty() {
            return Err(PlanError::Planning(
                "a correlated LATERAL subquery may not COUNT in Tessera's multi-stage engine (a row with no match would read NULL, not 0)".into(),
            ));
        }
        if aggregates {
            s.group_by = s
                .projection
                .iter()
                .skip(width)
                .filter_map(|i| match i {
                    SelectItem::Expr { expr, .. } => Some(expr.clone()),
                    _ => None,
                })
                .collect();
        }
        let (sub, mut names) = self.query(&Query::Select(s))?;
        if !columns.is_empty() {
            if columns.len() != width {
                return Err(PlanError::Validation(format!(
                    "List of column aliases must have same degree as table; table has {width} columns, whereas alias list has {} columns",
                    columns.len()
                )));
            }
            names.splice(..width, columns.iter().cloned());
        }
        for (k, n) in names.iter_mut().enumerate().skip(width) {
            *n = format!("$lateral_key{k}");
        }
        let sub = requalify(sub, names, alias.as_deref());
        let mut l = l;
        let mut lk = Vec::with_capacity(outer.len());
        for e in &outer {
            lk.push(self.key_column(&mut l, e)?);
        }
        let rk: Vec<usize> = (width..width + outer.len()).collect();
        let kind = if left_join || (aggregates && !outer.is_empty()) {
            JoinKind::Left
        } else {
            JoinKind::Inner
        };
        let on = on.filter(|c| !matches!(c, ast::Expr::Literal(ast::Literal::Bool(true))));
        let mut cols = l.cols.clone();
        cols.extend(sub.cols.iter().cloned());
        let condition = match on {
            Some(c) if left_join => Some(self.bind_row(c, &cols)?),
            _ => None,
        };
        let mut rel = self.join(l, sub, kind, lk, rk, condition);
        if let (Some(c), false) = (on, left_join) {
            let condition = self.bind_row(c, &rel.cols)?;
            rel.node = RelNode::Filter {
                input: Box::new(rel.node),
                condition,
            };
        }
        Ok(rel)
    }

    /// Binds a row expression over `cols`.
    /// The scope of a synthetic table (a relation's columns, [`synthetic_table`]).
    fn synthetic_scope<'s>(&'s self, info: &'s TableInfo) -> Scope<'s> {
        Scope {
            table: Some(info),
            catalog: Some(self.catalog),
            alias: None,
        }
    }

    /// The expression binder over `scope`, with the query's options.
    fn binder<'s>(&self, scope: &'s Scope<'s>) -> ExprBinder<'s> {
        let mut b = ExprBinder::new(scope);
        b.null_handling = self.options.enable_null_handling;
        b.auto_rewrite_aggregation_type = self.options.auto_rewrite_aggregation_type;
        b.multi_stage = self.options.multi_stage;
        b
    }

    fn bind_row(&self, e: &ast::Expr, cols: &[Col]) -> Result<Expr, PlanError> {
        let mut e = e.clone();
        rewrite_columns(&mut e, cols)?;
        self.bind_synthetic(&e, cols)
    }

    /// Binds a row expression whose columns are already synthetic names of `cols`.
    fn bind_synthetic(&self, e: &ast::Expr, cols: &[Col]) -> Result<Expr, PlanError> {
        let info = synthetic_table(cols);
        let scope = self.synthetic_scope(&info);
        let mut b = self.binder(&scope);
        Ok(to_inputs(b.bind(e, Mode::Row)?))
    }

    /// A join written in `FROM`: the block's `joinOptions(join_strategy=…)` hint applies (a
    /// lookup join passes Pinot's checks first); see [`Self::join_request`].
    fn hinted_join(
        &mut self,
        left: Rel,
        right: Rel,
        kind: JoinKind,
        lk: Vec<usize>,
        rk: Vec<usize>,
        condition: Option<Expr>,
    ) -> Result<Rel, PlanError> {
        let cols = joined_cols(left.cols, right.cols, kind);
        let request = self.hinted_request(left.node, right.node, kind, lk, rk, condition)?;
        Ok(Rel {
            node: self.request(request),
            cols,
        })
    }

    /// The request for a join of `left` and `right` as the block's hints place it (see
    /// [`Self::hinted_join`]).
    fn hinted_request(
        &self,
        left: RelNode,
        right: RelNode,
        kind: JoinKind,
        lk: Vec<usize>,
        rk: Vec<usize>,
        condition: Option<Expr>,
    ) -> Result<Request, PlanError> {
        let strategy = self.join_hints.strategy;
        if strategy == JoinStrategy::Lookup {
            self.check_lookup(&right, kind, &lk)?;
        }
        let broadcast = self.hinted_broadcast(kind, strategy)?;
        Ok(self.join_request(left, right, kind, lk, rk, condition, strategy, broadcast))
    }

    /// The side `left_distribution_type` / `right_distribution_type` broadcast, checked: one
    /// the join kind may broadcast ([`Side::may_broadcast`]), and only one side.
    fn hinted_broadcast(
        &self,
        kind: JoinKind,
        strategy: JoinStrategy,
    ) -> Result<Option<Side>, PlanError> {
        let hints = &self.join_hints;
        let is = |d: Option<SideDistribution>| d == Some(SideDistribution::Broadcast);
        let (left, right) = (is(hints.left_distribution), is(hints.right_distribution));
        let kind_name = || format!("{kind:?}").to_uppercase();
        match (left, right) {
            (true, true) => Err(PlanError::Planning(
                "Cannot broadcast both sides of a join".into(),
            )),
            (true, false) if strategy == JoinStrategy::Lookup => Err(PlanError::Planning(
                "A lookup join broadcasts its right side, not its left".into(),
            )),
            (true, false) if Side::Left.may_broadcast(kind) => Ok(Some(Side::Left)),
            (false, true) if !Side::Right.may_broadcast(kind) => Err(PlanError::Planning(format!(
                "Join type: {} cannot broadcast its right side",
                kind_name()
            ))),
            (true, false) => Err(PlanError::Planning(format!(
                "Join type: {} cannot broadcast its left side",
                kind_name()
            ))),
            (false, true) => Ok(Some(Side::Right)),
            (false, false) => Ok(None),
        }
    }

    /// Pinot's conditions for a lookup join: equality keys, a kind each left row can answer
    /// alone (INNER, LEFT, SEMI, ANTI), and on the right the rows of a dimension table
    /// (`isDimTable`, replicated to every server) read by a leaf.
    fn check_lookup(&self, right: &RelNode, kind: JoinKind, lk: &[usize]) -> Result<(), PlanError> {
        if lk.is_empty() {
            return Err(PlanError::Planning("Lookup join requires join keys".into()));
        }
        if matches!(kind, JoinKind::Right | JoinKind::Full) {
            return Err(PlanError::Planning(format!(
                "Join type: {} is not supported for lookup join",
                format!("{kind:?}").to_uppercase()
            )));
        }
        let table = match right {
            RelNode::Exchange(x) => match (&x.kind, &x.input) {
                (
                    StageKind::Leaf { table },
                    RelNode::Leaf {
                        plan:
                            ServerQueryPlan {
                                kind: ServerQueryKind::Selection { .. },
                                ..
                            },
                        ..
                    },
                ) => Some(table),
                _ => None,
            },
            _ => None,
        };
        let Some(table) = table else {
            return Err(PlanError::Planning(
                "Right input for lookup join must be a table scan".into(),
            ));
        };
        if !self.catalog.table(table).is_some_and(|t| t.dim_table) {
            return Err(PlanError::Planning(format!(
                "Failed to find dimension table for name: {table}_OFFLINE"
            )));
        }
        Ok(())
    }

    /// A join the planner makes (subqueries, ASOF): always a hash join.
    fn join(
        &mut self,
        left: Rel,
        right: Rel,
        kind: JoinKind,
        lk: Vec<usize>,
        rk: Vec<usize>,
        condition: Option<Expr>,
    ) -> Rel {
        // The block's dynamic broadcast applies to the semi joins of its `IN (subquery)`s.
        let strategy = match (self.join_hints.strategy, kind) {
            (JoinStrategy::DynamicBroadcast, JoinKind::Semi) => JoinStrategy::DynamicBroadcast,
            _ => JoinStrategy::Hash,
        };
        let cols = joined_cols(left.cols, right.cols, kind);
        let request = self.join_request(
            left.node, right.node, kind, lk, rk, condition, strategy, None,
        );
        Rel {
            node: self.request(request),
            cols,
        }
    }

    /// The request for `left` joined with `right` on `lk = rk` then `condition` (over the joined
    /// row), placed by the distribution pass ([`placement`]) as `strategy` and a hinted
    /// `broadcast` side allow.
    #[allow(clippy::too_many_arguments)]
    fn join_request(
        &self,
        left: RelNode,
        right: RelNode,
        kind: JoinKind,
        lk: Vec<usize>,
        rk: Vec<usize>,
        condition: Option<Expr>,
        strategy: JoinStrategy,
        broadcast: Option<Side>,
    ) -> Request {
        let join = RelNode::Join {
            left: Box::new(left),
            right: Box::new(right),
            kind,
            left_keys: lk,
            right_keys: rk,
            condition,
            asof: None,
            publish_keys: None,
            dynamic_broadcast: strategy == JoinStrategy::DynamicBroadcast,
        };
        Request::Join(JoinRequest {
            join,
            lookup: strategy == JoinStrategy::Lookup,
            broadcast,
            unhinted: self.placement_unhinted(strategy),
        })
    }

    /// Whether the block's hints leave a join's exchanges to the planner: no strategy but the
    /// default hash join, no side's distribution.
    fn placement_unhinted(&self, strategy: JoinStrategy) -> bool {
        strategy == JoinStrategy::Hash
            && self.join_hints.left_distribution.is_none()
            && self.join_hints.right_distribution.is_none()
    }
}

/// The columns of a `kind` join of relations with columns `left` and `right`.
fn joined_cols(mut left: Vec<Col>, right: Vec<Col>, kind: JoinKind) -> Vec<Col> {
    if !matches!(kind, JoinKind::Semi | JoinKind::Anti | JoinKind::NotIn) {
        left.extend(right);
    }
    left
}

/// Names a planned query's columns and qualifies them with `alias`.
fn requalify(rel: Rel, names: Vec<String>, alias: Option<&str>) -> Rel {
    let cols = rel
        .cols
        .into_iter()
        .zip(names)
        .map(|(c, n)| Col {
            qualifier: alias.map(str::to_string),
            name: n,
            ty: c.ty,
            hidden: false,
        })
        .collect();
    Rel { cols, ..rel }
}

fn synthetic_table(cols: &[Col]) -> TableInfo {
    let mut schema = Schema::default();
    for (i, c) in cols.iter().enumerate() {
        schema.fields.push(FieldSpec::of_type(&synthetic(i), c.ty));
    }
    TableInfo::new("$relation", schema)
}

/// Replaces every column reference that names one of `cols` by its synthetic name; names
/// that match none are left for the alias rules (and then the binder's unknown-column error).
fn rewrite_columns(e: &mut ast::Expr, cols: &[Col]) -> Result<(), PlanError> {
    let mut failure = None;
    e.walk_mut(&mut |n| {
        if let ast::Expr::Column { table, name } = n {
            match resolve(cols, table.as_deref(), name) {
                Ok(Some(i)) => {
                    *n = ast::Expr::Column {
                        table: None,
                        name: synthetic(i),
                    }
                }
                Ok(None) if table.is_some() => {
                    failure = Some(PlanError::UnknownColumn(format!(
                        "{}.{name}",
                        table.as_deref().unwrap_or_default()
                    )))
                }
                Ok(None) => {}
                Err(e) => failure = Some(e),
            }
        }
    });
    failure.map_or(Ok(()), Err)
}

/// The expressions of a block read after its aggregate: SELECT list, HAVING, ORDER BY.
fn post_aggregate_exprs(sel: &mut Select) -> impl Iterator<Item = &mut ast::Expr> {
    list_exprs_mut(&mut sel.projection)
        .chain(sel.having.iter_mut())
        .chain(sel.order_by.iter_mut().map(|o| &mut o.expr))
}

fn conjuncts(e: &ast::Expr) -> Vec<&ast::Expr> {
    match e {
        ast::Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => {
            let mut v = conjuncts(left);
            v.extend(conjuncts(right));
            v
        }
        other => vec![other],
    }
}

fn and_all(parts: Vec<ast::Expr>) -> Option<ast::Expr> {
    parts
        .into_iter()
        .reduce(|a, b| ast::Expr::binary(BinaryOp::And, a, b))
}

/// `l.x = r.y` (either way round) as a pair of key positions.
fn equi_pair(e: &ast::Expr, l: &[Col], r: &[Col]) -> Result<Option<(usize, usize)>, PlanError> {
    let ast::Expr::Binary {
        op: BinaryOp::Eq,
        left,
        right,
    } = e
    else {
        return Ok(None);
    };
    let (ast::Expr::Column { table: ta, name: a }, ast::Expr::Column { table: tb, name: b }) =
        (&**left, &**right)
    else {
        return Ok(None);
    };
    let (la, rb) = (resolve(l, ta.as_deref(), a)?, resolve(r, tb.as_deref(), b)?);
    if let (Some(x), Some(y)) = (la, rb) {
        return Ok(Some((x, y)));
    }
    let (lb, ra) = (resolve(l, tb.as_deref(), b)?, resolve(r, ta.as_deref(), a)?);
    Ok(match (lb, ra) {
        (Some(x), Some(y)) => Some((x, y)),
        _ => None,
    })
}

/// `MATCH_CONDITION(a op b)`: one of `< <= > >=` between a column of the left input and one of
/// the right input (either way round), as the left column's comparison with the right one.
fn asof_match(e: &ast::Expr, l: &[Col], r: &[Col]) -> Result<AsofMatch, PlanError> {
    let refused = || {
        PlanError::Planning(
            "ASOF JOIN MATCH_CONDITION must be a comparison between columns from the two inputs"
                .into(),
        )
    };
    let ast::Expr::Binary { op, left, right } = e else {
        return Err(refused());
    };
    let op = match op {
        BinaryOp::Gt => AsofOp::Greater,
        BinaryOp::GtEq => AsofOp::GreaterOrEqual,
        BinaryOp::Lt => AsofOp::Less,
        BinaryOp::LtEq => AsofOp::LessOrEqual,
        _ => return Err(refused()),
    };
    let (ast::Expr::Column { table: ta, name: a }, ast::Expr::Column { table: tb, name: b }) =
        (&**left, &**right)
    else {
        return Err(refused());
    };
    if let (Some(x), Some(y)) = (resolve(l, ta.as_deref(), a)?, resolve(r, tb.as_deref(), b)?) {
        return Ok(AsofMatch {
            left: x,
            right: y,
            op,
        });
    }
    match (resolve(l, tb.as_deref(), b)?, resolve(r, ta.as_deref(), a)?) {
        (Some(x), Some(y)) => Ok(AsofMatch {
            left: x,
            right: y,
            op: op.flipped(),
        }),
        _ => Err(refused()),
    }
}

/// Whether `e` calls COUNT anywhere (a decorrelated COUNT would read NULL, not 0, for no match).
fn calls_count(e: &ast::Expr) -> bool {
    e.any(&mut |n| {
        matches!(n, ast::Expr::Function { name, .. }
            if crate::plan::aggregate::canonical_name(name) == "count")
    })
}

/// Whether `e` holds an IN, EXISTS or scalar subquery.
fn contains_subquery(e: &ast::Expr) -> bool {
    e.any(&mut |n| {
        matches!(
            n,
            ast::Expr::InSubquery { .. } | ast::Expr::Exists { .. } | ast::Expr::ScalarSubquery(_)
        )
    })
}

/// Whether a block's `WHERE`, `HAVING`, `ORDER BY` or select list holds a subquery.
fn has_subquery_predicates(s: &Select) -> bool {
    s.selection.iter().chain(&s.having).any(contains_subquery)
        || s.order_by.iter().any(|o| contains_subquery(&o.expr))
        || s.projection
            .iter()
            .any(|i| matches!(i, SelectItem::Expr { expr, .. } if contains_subquery(expr)))
}

/// Whether a block's select list or ORDER BY holds a window function.
fn has_window(s: &Select) -> bool {
    let any =
        |e: &ast::Expr| e.any(&mut |n| matches!(n, ast::Expr::Function { over: Some(_), .. }));
    s.projection
        .iter()
        .any(|i| matches!(i, SelectItem::Expr { expr, .. } if any(expr)))
        || s.order_by.iter().any(|o| any(&o.expr))
}

/// Whether `e` itself is an aggregate call (not a window).
fn is_aggregate_call(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Function { name, over: None, .. }
        if crate::plan::aggregate::is_aggregate_name(name))
}

/// Whether the select list, HAVING or ORDER BY calls an aggregate.
fn has_aggregate_call(s: &Select) -> bool {
    s.projection
        .iter()
        .any(|i| matches!(i, SelectItem::Expr { expr, .. } if contains_aggregate(expr)))
        || s.having.as_ref().is_some_and(contains_aggregate)
        || s.order_by.iter().any(|o| contains_aggregate(&o.expr))
}

/// The select list's and ORDER BY's expressions.
fn list_and_order_mut(sel: &mut Select) -> impl Iterator<Item = &mut ast::Expr> {
    list_exprs_mut(&mut sel.projection).chain(sel.order_by.iter_mut().map(|o| &mut o.expr))
}
