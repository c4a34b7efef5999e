//! `FROM` and `WHERE` of a block as a join tree, each predicate placed as low as it goes.
//!
//! Inner and comma joins are flattened into their inputs and the conjuncts of their `ON`s and
//! the block's `WHERE`. Then:
//! * a conjunct naming one table only goes into that table's leaf as its v1 filter, so v2
//!   joins use every index v1 uses (a conjunct over one derived input filters that input);
//! * the inputs, each estimated, and the conjuncts over several of them, bound over the inputs'
//!   columns side by side (`a.x = b.y` as a key), are one [`JoinsRequest`]: the join-order rule
//!   ([`super::order_joins`]) chooses the tree and gives each join its keys and condition;
//! * each leaf reads only the columns the block names ([`Needed`]), and the joins' output only
//!   those the block reads above them.
//!
//! Conjuncts holding a subquery, and those whose columns do not resolve to exactly one input
//! (aliases of the select list, unknown or ambiguous names) stay in `WHERE` for
//! [`Planner::upper`], which plans or reports them.

use super::or_factors::{implied_for, pull_common_factors};
use super::query_walk::{self, QueryVisitor};
use super::{Planner, and_all, conjuncts, equi_pair, resolve};
use crate::plan::binder::rewrite::{canonicalize_columns, expand_wildcards};
use crate::plan::binder::scope::Scope;
use crate::plan::binder::select::plan_select;
use crate::plan::error::PlanError;
use crate::plan::multistage::estimate::{Estimate, UNKNOWN_ROWS};
use crate::plan::multistage::hints::JoinStrategy;
use crate::plan::multistage::rel::{
    ConjunctKind, Exchange, JoinConjunct, JoinInput, JoinsRequest, Place, RelNode, Request,
};
use crate::plan::multistage::relation::{Col, Rel, StageOrder};
use crate::plan::multistage::rows_estimate::RowsEstimate;
use crate::plan::query_plan::{ResultLayout, ServerQueryPlan};
use crate::sql::ast::{self, Select, SelectItem, TableRef};
use std::collections::{BTreeSet, HashMap, HashSet};

/// The columns a block may read: every name it mentions anywhere (select list, `WHERE`,
/// `GROUP BY`, `HAVING`, `ORDER BY`, `ON`, `USING` and inside its subqueries, which may be
/// correlated), all columns for `*`, all of a qualifier's for `q.*`. What a query nested in the
/// block (a subquery, a derived table) reads of its own `FROM` is not the block's: its `*`, and
/// a column it qualifies with one of its own relations (`EXISTS (SELECT * FROM lineitem l2
/// WHERE l2.l_orderkey = …)`), are left out; its unqualified names count (they may be
/// correlated).
#[derive(Clone, Debug, Default)]
pub struct Needed {
    all: bool,
    /// The nested queries the walk is in, innermost last.
    nested: Vec<NestedRefs>,
    /// How often each (lower-case) name is mentioned.
    names: HashMap<String, usize>,
    qualifiers: HashSet<String>,
}

impl Needed {
    /// What `s` reads.
    pub fn of(s: &Select) -> Needed {
        let mut n = Needed::default();
        n.select(s);
        n
    }

    /// Whether a column `name` of the input qualified `qualifier` is read.
    pub fn wants(&self, qualifier: &str, name: &str) -> bool {
        self.all
            || self
                .names
                .get(&name.to_ascii_lowercase())
                .is_some_and(|n| *n > 0)
            || self.qualifiers.contains(&qualifier.to_ascii_lowercase())
    }

    /// What is read apart from the conjuncts `placed` (a leaf evaluates its own filter on the
    /// segment, so a column named only there need not be projected).
    fn without<'e>(&self, placed: impl Iterator<Item = &'e ast::Expr>) -> Needed {
        let mut rest = self.clone();
        for e in placed {
            let mut cols = Vec::new();
            columns(e, &mut cols);
            for (_, name) in cols {
                if let Some(n) = rest.names.get_mut(&name.to_ascii_lowercase()) {
                    *n = n.saturating_sub(1);
                }
            }
        }
        rest
    }

    fn mention(&mut self, name: &str) {
        *self.names.entry(name.to_ascii_lowercase()).or_default() += 1;
    }

    fn select(&mut self, s: &Select) {
        query_walk::select(self, s);
    }
}

/// What a query nested in the block names, kept until its relations are all known (its
/// `FROM` comes after its select list in the walk).
#[derive(Clone, Debug, Default)]
struct NestedRefs {
    /// Its relations' names (lower-case).
    relations: HashSet<String>,
    columns: Vec<(Option<String>, String)>,
}

impl QueryVisitor for Needed {
    fn column(&mut self, table: Option<&str>, name: &str) {
        match self.nested.last_mut() {
            Some(n) => n
                .columns
                .push((table.map(str::to_string), name.to_string())),
            None => self.mention(name),
        }
    }

    fn relation(&mut self, name: &str) {
        if let Some(n) = self.nested.last_mut() {
            n.relations.insert(name.to_ascii_lowercase());
        }
    }

    fn wildcard(&mut self, qualifier: Option<&str>) {
        if !self.nested.is_empty() {
            return;
        }
        match qualifier {
            None => self.all = true,
            Some(q) => {
                self.qualifiers.insert(q.to_ascii_lowercase());
            }
        }
    }

    fn nested(&mut self, entering: bool) {
        if entering {
            self.nested.push(NestedRefs::default());
            return;
        }
        let Some(done) = self.nested.pop() else {
            return;
        };
        // A column of the nested query's own relations is its business; the rest may be an
        // enclosing query's (resolved when that one ends) or the block's.
        for (table, name) in done.columns {
            if table
                .as_ref()
                .is_some_and(|t| done.relations.contains(&t.to_ascii_lowercase()))
            {
                continue;
            }
            self.column(table.as_deref(), &name);
        }
    }
}

/// Whether `e` holds a subquery or a window call (planned by [`Planner::upper`], not here).
fn is_complex(e: &ast::Expr) -> bool {
    matches!(
        e,
        ast::Expr::InSubquery { .. }
            | ast::Expr::Exists { .. }
            | ast::Expr::ScalarSubquery(_)
            | ast::Expr::Function { over: Some(_), .. }
    ) || e.children().into_iter().any(is_complex)
}

/// The columns of a catalog table read as `alias` (else by its name).
fn table_cols(info: &crate::plan::catalog::TableInfo, alias: Option<&str>) -> Vec<Col> {
    let qualifier = alias.unwrap_or(&info.name);
    info.schema
        .fields
        .iter()
        .map(|f| Col {
            qualifier: Some(qualifier.to_string()),
            name: f.name.clone(),
            hidden: false,
            ty: f.column_type(),
        })
        .collect()
}

/// Every column reference in `e`.
pub(super) fn columns(e: &ast::Expr, out: &mut Vec<(Option<String>, String)>) {
    if let ast::Expr::Column { table, name } = e {
        out.push((table.clone(), name.clone()));
    }
    for c in e.children() {
        columns(c, out);
    }
}

/// One input of a flattened join before it is planned.
pub(super) enum Input<'t> {
    /// A table (not a CTE), planned as a leaf once its own conjuncts are known.
    Table {
        name: &'t str,
        alias: Option<&'t str>,
        info: crate::plan::catalog::TableInfo,
        cols: Vec<Col>,
    },
    /// Anything else, already planned.
    Planned(Rel),
}

impl Input<'_> {
    pub(super) fn cols(&self) -> &[Col] {
        match self {
            Input::Table { cols, .. } => cols,
            Input::Planned(rel) => &rel.cols,
        }
    }
}

/// A conjunct and the inputs it reads.
struct Conjunct {
    expr: ast::Expr,
    inputs: BTreeSet<usize>,
    /// Implied by another conjunct, which stays (see [`implied_for`]).
    implied: bool,
}

/// The inputs whose columns `expr` reads; `None` when it holds a subquery or a column that
/// resolves to no input or to several.
pub(super) fn inputs_read(expr: &ast::Expr, inputs: &[Input<'_>]) -> Option<BTreeSet<usize>> {
    if is_complex(expr) {
        return None;
    }
    let mut cols = Vec::new();
    columns(expr, &mut cols);
    let mut reads = BTreeSet::new();
    for (table, name) in &cols {
        let mut found = None;
        for (i, input) in inputs.iter().enumerate() {
            if let Ok(Some(_)) = resolve(input.cols(), table.as_deref(), name) {
                if found.is_some() {
                    return None;
                }
                found = Some(i);
            }
        }
        reads.insert(found?);
    }
    (!reads.is_empty()).then_some(reads)
}

/// The inputs and conditions of inner and comma joins, down to the first other join.
fn flatten<'t>(t: &'t TableRef, inputs: &mut Vec<&'t TableRef>, on: &mut Vec<ast::Expr>) {
    match t {
        TableRef::Join {
            left,
            right,
            kind: ast::JoinKind::Inner | ast::JoinKind::Cross,
            on: condition,
            using,
            natural: false,
            ..
        } if using.is_empty() && !matches!(**right, TableRef::Subquery { lateral: true, .. }) => {
            flatten(left, inputs, on);
            flatten(right, inputs, on);
            if let Some(c) = condition {
                on.extend(conjuncts(c).into_iter().cloned());
            }
        }
        other => inputs.push(other),
    }
}

impl Planner<'_> {
    /// Plans `t` (a table or inner joins) with the conjuncts `filters` placed as low as they go
    /// ([`Self::join_tree`]) and those that go nowhere lower as a filter over it.
    pub(super) fn filtered_from(
        &mut self,
        t: &TableRef,
        filters: Vec<ast::Expr>,
        needed: &Needed,
    ) -> Result<Rel, PlanError> {
        let (mut rel, rest) = self.join_tree(t, filters, needed)?;
        if let Some(c) = and_all(rest) {
            let condition = self.bind_row(&c, &rel.cols)?;
            rel.node = RelNode::Filter {
                input: Box::new(rel.node),
                condition,
            };
        }
        Ok(rel)
    }

    /// Splits an outer join's `ON` conjuncts into those that read only the null-producing side
    /// `side` — a table of the catalog — and the rest. The first only decide which of that side's
    /// rows can match, so they may filter it before the join (TPC-H Q13's `customer LEFT JOIN
    /// orders ON c_custkey = o_custkey AND o_comment NOT LIKE …` reads only the orders that
    /// pass, in their leaf). A column of `preserved` (the other side) named without a qualifier
    /// keeps a conjunct where it was.
    pub(super) fn null_side_conjuncts(
        &self,
        side: &TableRef,
        preserved: &[Col],
        on: Vec<ast::Expr>,
    ) -> (Vec<ast::Expr>, Vec<ast::Expr>) {
        let TableRef::Table { name, alias } = side else {
            return (Vec::new(), on);
        };
        let Some(info) = (!self.is_cte(name))
            .then(|| self.catalog.resolve_table(name))
            .flatten()
        else {
            return (Vec::new(), on);
        };
        let cols = table_cols(&info, alias.as_deref());
        let own = |e: &ast::Expr| {
            let mut names = Vec::new();
            columns(e, &mut names);
            !is_complex(e)
                && !names.is_empty()
                && names.iter().all(|(table, name)| {
                    matches!(resolve(&cols, table.as_deref(), name), Ok(Some(_)))
                        && (table.is_some() || matches!(resolve(preserved, None, name), Ok(None)))
                })
        };
        on.into_iter().partition(own)
    }

    /// Plans `t` with the conjuncts `filters` (of a `WHERE` above it) placed as low as they go;
    /// returns the relation and the conjuncts left for the caller (see the module docs).
    pub(super) fn join_tree(
        &mut self,
        t: &TableRef,
        filters: Vec<ast::Expr>,
        needed: &Needed,
    ) -> Result<(Rel, Vec<ast::Expr>), PlanError> {
        let mut refs = Vec::new();
        let mut on = Vec::new();
        flatten(t, &mut refs, &mut on);
        let mut inputs: Vec<Input<'_>> = Vec::with_capacity(refs.len());
        for r in refs.iter().copied() {
            inputs.push(match r {
                TableRef::Table { name, alias } if !self.is_cte(name) => {
                    let info = self
                        .catalog
                        .resolve_table(name)
                        .ok_or_else(|| PlanError::TableNotFound(name.to_string()))?;
                    let all = table_cols(&info, alias.as_deref());
                    Input::Table {
                        name,
                        alias: alias.as_deref(),
                        info,
                        // Every column while conjuncts resolve; pruned before the leaf is cut.
                        cols: all,
                    }
                }
                other => Input::Planned(self.from(other, needed)?),
            });
        }
        // Each conjunct with the inputs it reads; the unplaceable ones go back.
        let mut left_over = Vec::new();
        let mut placed: Vec<Conjunct> = Vec::new();
        // A conjunct shared by every branch of an `OR` (TPC-H Q19's join key) is one of its own.
        let conjuncts = on.into_iter().chain(filters).flat_map(pull_common_factors);
        for expr in conjuncts {
            match inputs_read(&expr, &inputs) {
                Some(reads) => placed.push(Conjunct {
                    expr,
                    inputs: reads,
                    implied: false,
                }),
                None => left_over.push(expr),
            }
        }
        // What an `OR` over several inputs implies for each of them filters that input early.
        let mut implied = Vec::new();
        for c in placed.iter().filter(|c| c.inputs.len() > 1) {
            for &i in &c.inputs {
                let own = |e: &ast::Expr| {
                    inputs_read(e, &inputs).is_some_and(|r| r.len() == 1 && r.contains(&i))
                };
                if let Some(expr) = implied_for(&c.expr, own) {
                    implied.push(Conjunct {
                        expr,
                        inputs: BTreeSet::from([i]),
                        implied: true,
                    });
                }
            }
        }
        placed.extend(implied);
        // A table's own conjuncts run in its leaf: columns named only there are not projected
        // (implied conjuncts copy columns the conjunct they come from still reads).
        let in_leaves = placed.iter().filter(|c| {
            !c.implied
                && c.inputs.len() == 1
                && c.inputs
                    .first()
                    .is_some_and(|i| matches!(inputs[*i], Input::Table { .. }))
        });
        let projected = needed.without(in_leaves.map(|c| &c.expr));
        // One input's own conjuncts: into a table's leaf, or a filter over a planned input.
        let mut rels: Vec<Rel> = Vec::with_capacity(inputs.len());
        let mut estimates: Vec<Estimate> = Vec::with_capacity(inputs.len());
        for (i, input) in inputs.into_iter().enumerate() {
            let own: Vec<ast::Expr> = placed
                .iter()
                .filter(|c| c.inputs.len() == 1 && c.inputs.contains(&i))
                .map(|c| c.expr.clone())
                .collect();
            let rel = match input {
                Input::Table {
                    name,
                    alias,
                    info,
                    cols,
                } => {
                    estimates.push(Estimate::table(info.statistics.clone(), own.iter()));
                    let qualifier = alias.unwrap_or(&info.name).to_string();
                    let mut kept: Vec<Col> = cols
                        .iter()
                        .filter(|c| projected.wants(&qualifier, &c.name))
                        .cloned()
                        .collect();
                    // A leaf reads at least one column (its rows are counted by it).
                    if kept.is_empty()
                        && let Some(first) = cols.into_iter().next()
                    {
                        kept.push(first);
                    }
                    self.leaf(name, alias, &info, kept, and_all(own))?
                }
                Input::Planned(mut rel) => {
                    estimates.push(Estimate::unknown(UNKNOWN_ROWS));
                    if let Some(c) = and_all(own) {
                        let condition = self.bind_row(&c, &rel.cols)?;
                        rel.node = RelNode::Filter {
                            input: Box::new(rel.node),
                            condition,
                        };
                    }
                    rel
                }
            };
            rels.push(rel);
        }
        // What the block reads beyond the conjuncts (each placed exactly once; implied ones
        // copy columns and were never counted): the joins' output keeps only those columns,
        // unless `*` or `q.*` lists every column.
        let beyond = needed.without(placed.iter().filter(|c| !c.implied).map(|c| &c.expr));
        placed.retain(|c| c.inputs.len() > 1);
        if rels.len() == 1
            && let Some(rel) = rels.pop()
        {
            return Ok((rel, left_over));
        }
        // The inputs' columns side by side; the conjuncts over several inputs bound over them.
        let mut inputs = Vec::with_capacity(rels.len());
        let mut cols: Vec<Col> = Vec::new();
        for (rel, e) in rels.into_iter().zip(&estimates) {
            let distinct = rel.cols.iter().map(|c| e.distinct(&c.name)).collect();
            inputs.push(JoinInput {
                node: rel.node,
                estimate: RowsEstimate::new(e.rows, distinct),
            });
            cols.extend(rel.cols);
        }
        let mut conjuncts = Vec::with_capacity(placed.len());
        for c in placed {
            let kind = match equi_pair(&c.expr, &cols, &cols)? {
                Some((a, b)) => ConjunctKind::Key(a, b),
                None => ConjunctKind::Condition(self.bind_row(&c.expr, &cols)?),
            };
            conjuncts.push(JoinConjunct {
                equality: matches!(
                    c.expr,
                    ast::Expr::Binary {
                        op: ast::BinaryOp::Eq,
                        ..
                    }
                ),
                inputs: c.inputs,
                kind,
            });
        }
        let prune = !needed.all && needed.qualifiers.is_empty();
        let mut output: Vec<usize> = (0..cols.len())
            .filter(|&p| {
                let c = &cols[p];
                !prune || beyond.wants(c.qualifier.as_deref().unwrap_or(""), &c.name)
            })
            .collect();
        // A relation keeps a column (a block counts its rows by one).
        if output.is_empty() {
            output.push(0);
        }
        // By estimated rows when some input has statistics and no hint chose the strategy;
        // otherwise in FROM order, an equi-joined input first.
        let by_estimate =
            estimates.iter().any(Estimate::known) && self.join_hints.strategy == JoinStrategy::Hash;
        // The joins' numbers: the rule numbers them in the order the tree completes them.
        let order = self.next_stage();
        for _ in 2..inputs.len() {
            self.next_stage();
        }
        let out_cols = output.iter().map(|&p| cols[p].clone()).collect();
        let request = JoinsRequest {
            inputs,
            conjuncts,
            output,
            prune,
            by_estimate,
            hints: self.join_hints,
        };
        let node = RelNode::Place(Box::new(Place {
            order,
            request: Request::Joins(request),
        }));
        Ok((
            Rel {
                node,
                cols: out_cols,
            },
            left_over,
        ))
    }

    /// A leaf stage reading `cols` of table `info` where `filter` holds, with v1's planning of
    /// the filter (indexes, pruning) and the projection.
    fn leaf(
        &mut self,
        name: &str,
        alias: Option<&str>,
        info: &crate::plan::catalog::TableInfo,
        cols: Vec<Col>,
        filter: Option<ast::Expr>,
    ) -> Result<Rel, PlanError> {
        let scope = Scope {
            table: Some(info),
            catalog: Some(self.catalog),
            alias: alias.map(str::to_string),
        };
        let mut select = Select {
            projection: cols
                .iter()
                .map(|c| SelectItem::Expr {
                    expr: ast::Expr::Column {
                        table: None,
                        name: c.name.clone(),
                    },
                    alias: None,
                })
                .collect(),
            from: Some(TableRef::Table {
                name: name.to_string(),
                alias: alias.map(str::to_string),
            }),
            selection: filter,
            limit: Some(u64::MAX),
            ..Select::default()
        };
        let estimate = info
            .statistics
            .is_some()
            .then(|| Estimate::table(info.statistics.clone(), select.selection.iter()));
        canonicalize_columns(&mut select, &scope)?;
        expand_wildcards(&mut select, &scope)?;
        let single = plan_select(select, &scope, self.options, self.explain)?;
        let estimate = estimate.map(|e| e.of_leaf(&single.server.kind));
        let leaf = RelNode::Leaf {
            plan: ServerQueryPlan {
                layout: ResultLayout::Columns,
                ..std::sync::Arc::unwrap_or_clone(single.server)
            },
            key_filters: Vec::new(),
        };
        Ok(Rel {
            node: Exchange::leaf(self.next_stage(), info.name.clone(), leaf, estimate),
            cols,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_plans::{joins, leaf_columns};
    use crate::plan::multistage::rel::JoinKind;

    #[test]
    fn an_outer_joins_on_filter_of_its_null_producing_side_goes_into_that_sides_leaf() {
        // LEFT: g's own conjunct filters g's leaf; the join keeps only its key.
        let j = joins("SELECT f.k, g.d FROM f LEFT JOIN g ON f.k = g.k AND g.s LIKE '%x%'");
        assert_eq!(j.len(), 1);
        assert_eq!((j[0].kind, j[0].has_condition), (JoinKind::Left, false));
        assert_eq!(j[0].leaf_filters.len(), 2);
        assert!(j[0].leaf_filters[0].is_empty(), "{:?}", j[0].leaf_filters);
        assert!(
            j[0].leaf_filters[1].contains("LIKE") || j[0].leaf_filters[1].contains("like"),
            "{:?}",
            j[0].leaf_filters
        );
        // RIGHT: f's own conjunct filters f.
        let j = joins("SELECT f.k, g.d FROM f RIGHT JOIN g ON f.k = g.k AND f.d > 3");
        assert_eq!((j[0].kind, j[0].has_condition), (JoinKind::Right, false));
        assert!(!j[0].leaf_filters[0].is_empty(), "{:?}", j[0].leaf_filters);
        assert!(j[0].leaf_filters[1].is_empty(), "{:?}", j[0].leaf_filters);
        // The preserved side's own conjunct and FULL's stay conditions of the join.
        for sql in [
            "SELECT f.k FROM f LEFT JOIN g ON f.k = g.k AND f.d > 3",
            "SELECT f.k FROM f FULL JOIN g ON f.k = g.k AND g.d > 3",
            "SELECT f.k FROM f LEFT JOIN g ON f.k = g.k AND g.d > f.d",
        ] {
            let j = joins(sql);
            assert!(j[0].has_condition, "{sql}");
            assert!(
                j[0].leaf_filters.iter().all(String::is_empty),
                "{sql}: {:?}",
                j[0].leaf_filters
            );
        }
    }

    #[test]
    fn a_subquery_reads_its_own_star_and_columns_not_the_outer_tables() {
        // `l1`'s leaf reads `k` and `d` (the join and the correlation), not `s2` — filtered in
        // the leaf and named again only by `l3`, qualified — nor `c` (the subqueries' `*`).
        let sql = "SELECT g.s, COUNT(*) FROM g, f l1 WHERE g.k = l1.k AND l1.s > l1.s2 \
                   AND EXISTS (SELECT * FROM f l2 WHERE l2.k = l1.k AND l2.d <> l1.d) \
                   AND NOT EXISTS (SELECT * FROM f l3 WHERE l3.k = l1.k AND l3.d <> l1.d \
                   AND l3.s2 > l3.c) GROUP BY g.s";
        assert_eq!(
            leaf_columns(sql),
            ["g: k,s,d", "f: k,s,d", "f: k,d", "f: k,d"],
            "{sql}"
        );
        // An unqualified name in a subquery may be the outer block's: still read.
        let sql = "SELECT g.s FROM g WHERE EXISTS (SELECT * FROM f WHERE f.k = g.k AND c > 'x')";
        assert_eq!(leaf_columns(sql)[0], "g: k,s,c", "{sql}");
        // The block's own `*` reads everything.
        let sql = "SELECT * FROM g WHERE EXISTS (SELECT f.k FROM f WHERE f.k = g.k)";
        assert_eq!(leaf_columns(sql)[0], "g: k,s,d,s2,c", "{sql}");
    }
}
