//! Cardinality estimates: how many rows a table yields after its own conjuncts, and how many a
//! join of two estimated inputs yields, from the table's [`Statistics`].
//!
//! The textbook rules (System R's, as DuckDB and DataFusion keep them): `col = literal` keeps
//! `1 / distinct(col)`, a range keeps the share of `[min, max]` it covers (numbers by value,
//! text by its leading bytes after the prefix the bounds share, so `'1995-03-15'` falls between
//! `'1992-01-02'` and `'1998-12-01'`), `IN` a share per listed value, `LIKE` a tenth, conjuncts
//! multiply and `OR` adds as independent events. An equi-join yields `|L| · |R| / max(distinct
//! of the keys)`. Without statistics a table counts [`UNKNOWN_ROWS`]; the estimates only order
//! joins and pick sides, so they need to be right in magnitude, not exact.

use super::rel::{JoinKind, RelNode, Request, SetOpKind};
use super::rows_estimate::RowsEstimate;
use super::stage::{Stage, StageKind};
use crate::plan::expr::Expr as PlanExpr;
use crate::plan::query_plan::ServerQueryKind;
use crate::sql::ast::{BinaryOp, Expr, Literal, UnaryOp};
use segments::statistics::{ColumnStatistics, Statistics};
use segments::types::Value;

/// Rows assumed for an input nothing is known of.
pub const UNKNOWN_ROWS: f64 = 1_000_000.0;

/// What a predicate the rules cannot read keeps.
const DEFAULT_SELECTIVITY: f64 = 0.25;

/// The estimated rows of one input, with its columns' distinct counts.
#[derive(Clone, Debug)]
pub struct Estimate {
    pub rows: f64,
    statistics: Option<std::sync::Arc<Statistics>>,
}

impl Estimate {
    /// An input nothing is known of (a derived table, a table without statistics).
    pub fn unknown(rows: f64) -> Estimate {
        Estimate {
            rows,
            statistics: None,
        }
    }

    /// Whether the estimate rests on statistics.
    pub fn known(&self) -> bool {
        self.statistics.is_some()
    }

    /// A table with `statistics` after the conjuncts `filters` of its own.
    pub fn table<'e>(
        statistics: Option<std::sync::Arc<Statistics>>,
        filters: impl Iterator<Item = &'e Expr>,
    ) -> Estimate {
        let Some(s) = statistics else {
            return Estimate::unknown(UNKNOWN_ROWS);
        };
        let base = s.rows as f64;
        let mut parts = Vec::new();
        for f in filters {
            flatten_and(f, &mut parts);
        }
        let kept = conjunction(&parts, &s);
        // A filtered table keeps at least one row in the estimate (an empty guess would make
        // every join above it free).
        let rows = if s.rows == 0 {
            0.0
        } else {
            (base * kept).max(1.0)
        };
        Estimate {
            rows,
            statistics: Some(s),
        }
    }

    /// Distinct values of column `name` among the estimated rows (the rows themselves when
    /// unknown: a key).
    pub fn distinct(&self, name: &str) -> f64 {
        let d = self
            .statistics
            .as_deref()
            .and_then(|s| column(s, name))
            .map_or(self.rows, |c| c.distinct as f64);
        d.min(self.rows).max(1.0)
    }

    /// What a leaf running `kind` over this table's estimated rows sends: its rows, projected
    /// (a column keeps its distinct values, a literal has one), made distinct, or grouped (at
    /// most the product of the keys' distinct counts).
    pub fn of_leaf(&self, kind: &ServerQueryKind) -> RowsEstimate {
        let distinct = |e: &PlanExpr| match e {
            PlanExpr::Column(c) => self.distinct(&c.name),
            PlanExpr::Literal { .. } => 1.0,
            _ => self.rows,
        };
        let groups = |d: &[f64]| d.iter().product::<f64>().min(self.rows).max(1.0);
        match kind {
            ServerQueryKind::Selection { exprs, limit, .. } => RowsEstimate::new(
                self.rows.min(*limit as f64),
                exprs.iter().map(distinct).collect(),
            ),
            ServerQueryKind::Distinct { exprs, limit, .. } => {
                let d: Vec<f64> = exprs.iter().map(distinct).collect();
                RowsEstimate::new(groups(&d).min(*limit as f64), d)
            }
            ServerQueryKind::Aggregation { aggregates } => {
                RowsEstimate::new(1.0, vec![1.0; aggregates.len()])
            }
            ServerQueryKind::GroupBy { keys, aggregates } => {
                let mut d: Vec<f64> = keys.iter().map(distinct).collect();
                let g = groups(&d);
                d.extend(aggregates.iter().map(|_| g));
                RowsEstimate::new(g, d)
            }
        }
    }
}

/// Rows of an equi-join of `left` and `right` rows whose key pairs have these distinct counts
/// (each side's): every pair divides by its larger count; together they divide by at most
/// the larger input (the keys of a side are at most its rows).
pub fn join_rows(left: f64, right: f64, key_distincts: &[(f64, f64)]) -> f64 {
    if key_distincts.is_empty() {
        return left * right;
    }
    let divisor: f64 = key_distincts
        .iter()
        .map(|(l, r)| l.max(*r).max(1.0))
        .product();
    let divisor = divisor.min(left.max(right)).max(1.0);
    left * right / divisor
}

/// The rows `node` is estimated to yield (none where a leaf below has no estimate).
pub fn plan_rows(node: &RelNode, stages: &[Stage]) -> Option<f64> {
    plan_estimate(node, stages).map(|e| e.rows)
}

/// What `node` is estimated to yield, from its leaves' estimates, by the textbook rules: an
/// equi-join [`join_rows`], a semi join its left rows whose keys the right side's cover (the
/// smaller key set contained in the larger), an anti join the rest, a grouping at most the
/// product of its keys' distinct counts, a filter above the leaves half its input. `stages` are
/// the stages `node` receives from once a plan is split; a tree still being planned holds its
/// exchanges instead (and passes none), and its requests count as the operators they ask for.
pub fn plan_estimate(node: &RelNode, stages: &[Stage]) -> Option<RowsEstimate> {
    Some(match node {
        RelNode::Exchange(x) => match x.kind {
            StageKind::Leaf { .. } => x.estimate.clone()?,
            _ => plan_estimate(&x.input, stages)?,
        },
        RelNode::Receive { stage, .. } => {
            let s = stages.get(*stage)?;
            match s.kind {
                StageKind::Leaf { .. } => s.estimate.clone()?,
                _ => plan_estimate(&s.root, stages)?,
            }
        }
        // A leaf's estimate is on its exchange.
        RelNode::Leaf { .. } => return None,
        // A request is estimated as the operator it asks for, however it is placed.
        RelNode::Place(p) => match &p.request {
            Request::Join(j) => plan_estimate(&j.join, stages)?,
            Request::Gather(n) | Request::Alone(n) => plan_estimate(n, stages)?,
            Request::Aggregate(a) => {
                let i = plan_estimate(&a.input, stages)?;
                let keys = a.keys.iter().map(|k| distinct_of(&i, k)).collect();
                grouped(&i, keys, a.aggregates.len())
            }
            Request::Joins(_) => return None,
        },
        RelNode::Values { rows, types } => {
            let n = rows.len() as f64;
            RowsEstimate::new(n, vec![n; types.len()])
        }
        RelNode::Project { input, exprs } => {
            let i = plan_estimate(input, stages)?;
            let distinct = exprs.iter().map(|e| distinct_of(&i, e)).collect();
            RowsEstimate::new(i.rows, distinct)
        }
        RelNode::Window { input, calls, .. } => {
            let i = plan_estimate(input, stages)?;
            let width = input.output_types().len();
            let mut distinct = i.columns(width);
            distinct.extend(calls.iter().map(|_| i.rows));
            RowsEstimate::new(i.rows, distinct)
        }
        RelNode::Filter { input, .. } => {
            let i = plan_estimate(input, stages)?;
            i.with_rows(i.rows * 0.5)
        }
        RelNode::Aggregate {
            input,
            group_keys,
            aggregates,
            ..
        } => {
            let i = plan_estimate(input, stages)?;
            let keys: Vec<f64> = group_keys.iter().map(|k| i.distinct(*k)).collect();
            grouped(&i, keys, aggregates.len())
        }
        RelNode::Sort { input, limit, .. } => {
            let i = plan_estimate(input, stages)?;
            i.with_rows(limit.map_or(i.rows, |l| i.rows.min(l as f64)))
        }
        RelNode::Join {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            condition,
            asof,
            ..
        } => {
            let (l, r) = (plan_estimate(left, stages)?, plan_estimate(right, stages)?);
            let pairs: Vec<(f64, f64)> = left_keys
                .iter()
                .zip(right_keys)
                .map(|(a, b)| (l.distinct(*a), r.distinct(*b)))
                .collect();
            // The share of left rows some right row matches: each key's right values cover
            // their share of the left's (the smaller set inside the larger); a condition on the
            // pair halves it.
            let covered: f64 = pairs.iter().map(|(a, b)| (b / a).min(1.0)).product();
            let covered = if condition.is_some() {
                covered * 0.5
            } else {
                covered
            };
            let inner = if asof.is_some() {
                l.rows * covered
            } else {
                join_rows(l.rows, r.rows, &pairs)
            };
            let (lw, rw) = (left.output_types().len(), right.output_types().len());
            let mut distinct = l.columns(lw);
            let rows = match kind {
                JoinKind::Semi => (l.rows * covered).max(1.0),
                JoinKind::Anti | JoinKind::NotIn => (l.rows * (1.0 - covered)).max(1.0),
                JoinKind::Inner => inner,
                JoinKind::Left => inner.max(l.rows),
                JoinKind::Right => inner.max(r.rows),
                JoinKind::Full => inner.max(l.rows).max(r.rows),
            };
            if !matches!(kind, JoinKind::Semi | JoinKind::Anti | JoinKind::NotIn) {
                distinct.extend(r.columns(rw));
            }
            // An inner join's key holds only values both sides have.
            if *kind == JoinKind::Inner {
                for (a, b) in left_keys.iter().zip(right_keys) {
                    let both = l.distinct(*a).min(r.distinct(*b));
                    distinct[*a] = both;
                    distinct[lw + b] = both;
                }
            }
            RowsEstimate::new(rows, distinct)
        }
        RelNode::SetOp { kind, inputs, .. } => {
            let each: Vec<RowsEstimate> = inputs
                .iter()
                .map(|i| plan_estimate(i, stages))
                .collect::<Option<_>>()?;
            let width = inputs.first().map_or(0, |i| i.output_types().len());
            let first = each.first()?;
            match kind {
                SetOpKind::Union => {
                    let rows = each.iter().map(|e| e.rows).sum();
                    let distinct = (0..width)
                        .map(|c| each.iter().map(|e| e.distinct(c)).sum())
                        .collect();
                    RowsEstimate::new(rows, distinct)
                }
                SetOpKind::Intersect => {
                    let rows = each.iter().map(|e| e.rows).fold(f64::INFINITY, f64::min);
                    RowsEstimate::new(rows, first.columns(width))
                }
                SetOpKind::Except => first.clone(),
            }
        }
    })
}

/// The distinct values of `e` over rows estimated as `input`: an input column keeps its own, a
/// literal has one, anything else counts as many as the rows.
fn distinct_of(input: &RowsEstimate, e: &PlanExpr) -> f64 {
    match e {
        PlanExpr::Input(r) => input.distinct(r.index),
        PlanExpr::Literal { .. } => 1.0,
        _ => input.rows,
    }
}

/// `input` grouped by keys with `keys` distinct values each, with `aggregates` aggregates: at
/// most the product of the keys' distinct counts (one group without keys).
fn grouped(input: &RowsEstimate, keys: Vec<f64>, aggregates: usize) -> RowsEstimate {
    let groups = if keys.is_empty() {
        1.0
    } else {
        keys.iter().product::<f64>().min(input.rows).max(1.0)
    };
    let mut distinct = keys;
    distinct.extend((0..aggregates).map(|_| groups));
    RowsEstimate::new(groups, distinct)
}

/// The statistics of column `name` (case-insensitive).
fn column<'s>(s: &'s Statistics, name: &str) -> Option<&'s ColumnStatistics> {
    s.columns.get(name).or_else(|| {
        s.columns
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, c)| c)
    })
}

/// The column an expression is, if it is one.
fn column_of<'s>(e: &Expr, s: &'s Statistics) -> Option<&'s ColumnStatistics> {
    match e {
        Expr::Column { name, .. } => column(s, name),
        Expr::Cast { expr, .. } => column_of(expr, s),
        _ => None,
    }
}

/// The conjuncts of nested `AND`s.
fn flatten_and<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => {
            flatten_and(left, out);
            flatten_and(right, out);
        }
        other => out.push(other),
    }
}

/// The share of rows all of `parts` keep: one-sided ranges on a column (`d >= '1994-01-01' AND
/// d < '1995-01-01'`) narrow one interval of it, the rest multiply as independent.
fn conjunction(parts: &[&Expr], s: &Statistics) -> f64 {
    // Per column: the interval of its range, as shares of `[min, max]`.
    let mut ranges: Vec<(&str, f64, f64, f64)> = Vec::new();
    let mut kept = 1.0;
    for e in parts {
        if let Expr::Binary { op, left, right } = e
            && let (Expr::Column { name, .. }, Some(lit)) = (&**left, literal(right))
            && matches!(
                op,
                BinaryOp::Lt | BinaryOp::LtEq | BinaryOp::Gt | BinaryOp::GtEq
            )
            && let Some(c) = column(s, name)
            && let Some(at) = below(c, &lit)
        {
            let (lo, hi) = match op {
                BinaryOp::Lt | BinaryOp::LtEq => (0.0, at),
                _ => (at, 1.0),
            };
            let floor = 1.0 / (c.distinct.max(1) as f64);
            match ranges.iter_mut().find(|r| r.0 == name.as_str()) {
                Some(r) => {
                    r.1 = r.1.max(lo);
                    r.2 = r.2.min(hi);
                }
                None => ranges.push((name, lo, hi, floor)),
            }
            continue;
        }
        kept *= selectivity(e, s);
    }
    for (_, lo, hi, floor) in ranges {
        kept *= (hi - lo).max(floor);
    }
    kept.clamp(0.0, 1.0)
}

/// The share of rows `e` keeps, in `[0, 1]`.
pub fn selectivity(e: &Expr, s: &Statistics) -> f64 {
    let eq = |c: &ColumnStatistics| 1.0 / (c.distinct.max(1) as f64);
    let sel = match e {
        Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => selectivity(left, s) * selectivity(right, s),
        Expr::Binary {
            op: BinaryOp::Or,
            left,
            right,
        } => {
            let (a, b) = (selectivity(left, s), selectivity(right, s));
            a + b - a * b
        }
        Expr::Unary {
            op: UnaryOp::Not,
            expr,
        } => 1.0 - selectivity(expr, s),
        Expr::Binary { op, left, right } => {
            let (col, lit, op) = match (column_of(left, s), literal(right)) {
                (Some(c), Some(l)) => (c, l, *op),
                _ => match (column_of(right, s), literal(left)) {
                    (Some(c), Some(l)) => (c, l, op.flipped()),
                    _ => return DEFAULT_SELECTIVITY,
                },
            };
            match op {
                BinaryOp::Eq => eq(col),
                BinaryOp::NotEq => 1.0 - eq(col),
                BinaryOp::Lt | BinaryOp::LtEq => below(col, &lit).unwrap_or(1.0 / 3.0),
                BinaryOp::Gt | BinaryOp::GtEq => below(col, &lit).map_or(1.0 / 3.0, |b| 1.0 - b),
                _ => DEFAULT_SELECTIVITY,
            }
        }
        Expr::Between {
            expr,
            low,
            high,
            negated,
        } => {
            let inside = match (column_of(expr, s), literal(low), literal(high)) {
                (Some(c), Some(lo), Some(hi)) => match (below(c, &lo), below(c, &hi)) {
                    (Some(a), Some(b)) => (b - a).max(eq(c)),
                    _ => DEFAULT_SELECTIVITY,
                },
                _ => DEFAULT_SELECTIVITY,
            };
            if *negated { 1.0 - inside } else { inside }
        }
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            let inside = column_of(expr, s).map_or(DEFAULT_SELECTIVITY, |c| {
                (list.len() as f64 * eq(c)).min(1.0)
            });
            if *negated { 1.0 - inside } else { inside }
        }
        Expr::Like { negated, .. } => {
            if *negated {
                0.9
            } else {
                0.1
            }
        }
        Expr::IsNull { expr, negated } => {
            let nulls = match column_of(expr, s) {
                Some(c) if !c.has_nulls => 0.0,
                _ => 0.05,
            };
            if *negated { 1.0 - nulls } else { nulls }
        }
        _ => DEFAULT_SELECTIVITY,
    };
    sel.clamp(0.0, 1.0)
}

/// A literal operand (numbers, text, typed literals by their text).
fn literal(e: &Expr) -> Option<Value> {
    match e {
        Expr::Literal(Literal::Long(v)) => Some(Value::Long(*v)),
        Expr::Literal(Literal::Double(v)) => Some(Value::Double(*v)),
        Expr::Literal(Literal::String(t)) => Some(Value::String(t.clone())),
        Expr::Literal(Literal::Typed { value, .. }) => Some(Value::String(value.clone())),
        Expr::Unary {
            op: UnaryOp::Neg,
            expr,
        } => match literal(expr)? {
            Value::Long(v) => Some(Value::Long(-v)),
            Value::Double(v) => Some(Value::Double(-v)),
            _ => None,
        },
        Expr::Cast { expr, .. } => literal(expr),
        _ => None,
    }
}

/// The share of the column's range `[min, max]` below `v`; `None` without a usable range.
fn below(c: &ColumnStatistics, v: &Value) -> Option<f64> {
    let (min, max) = (c.min_value()?, c.max_value()?);
    let (lo, hi, x) = match (&min, &max, v) {
        (Value::String(a), Value::String(b), Value::String(x)) => {
            let shared = common_prefix(a.as_bytes(), b.as_bytes());
            (
                text_position(a.as_bytes(), shared),
                text_position(b.as_bytes(), shared),
                text_position(x.as_bytes(), shared),
            )
        }
        _ => (min.as_f64()?, max.as_f64()?, v.as_f64()?),
    };
    if hi <= lo {
        return Some(if x < lo { 0.0 } else { 1.0 });
    }
    Some(((x - lo) / (hi - lo)).clamp(0.0, 1.0))
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Text as a number: its (up to) seven bytes after `skip`, in order.
fn text_position(t: &[u8], skip: usize) -> f64 {
    let mut n = 0u64;
    for i in 0..7 {
        n = (n << 8) | u64::from(t.get(skip + i).copied().unwrap_or(0));
    }
    n as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::parse_expr;
    use segments::types::DataType;
    use std::collections::BTreeMap;

    fn stats() -> Statistics {
        let col = |t: DataType, d: u64, min: &str, max: &str| ColumnStatistics {
            data_type: t,
            distinct: d,
            min: Some(min.into()),
            max: Some(max.into()),
            sorted: false,
            has_nulls: false,
        };
        Statistics {
            rows: 1000,
            columns: BTreeMap::from([
                ("k".into(), col(DataType::Long, 1000, "1", "1000")),
                ("flag".into(), col(DataType::String, 4, "A", "D")),
                (
                    "day".into(),
                    col(DataType::String, 500, "1992-01-01", "1998-12-31"),
                ),
            ]),
        }
    }

    fn sel(text: &str) -> f64 {
        selectivity(&parse_expr(text).unwrap(), &stats())
    }

    #[test]
    fn equality_keeps_one_value_in_distinct() {
        assert!((sel("flag = 'B'") - 0.25).abs() < 1e-9);
        assert!((sel("k = 5") - 0.001).abs() < 1e-9);
        assert!((sel("flag IN ('A', 'B')") - 0.5).abs() < 1e-9);
    }

    #[test]
    fn ranges_interpolate_numbers_and_dates_as_text() {
        assert!((sel("k < 251") - 0.25).abs() < 0.01);
        assert!((sel("k >= 251") - 0.75).abs() < 0.01);
        let mid = sel("day < '1995-07-01'");
        assert!((0.4..0.6).contains(&mid), "{mid}");
        let late = sel("day > '1998-06-01'");
        assert!(late < 0.15, "{late}");
        assert!(sel("day BETWEEN '1994-01-01' AND '1994-12-31'") < 0.25);
    }

    #[test]
    fn two_bounds_of_one_column_make_one_interval() {
        let s = std::sync::Arc::new(stats());
        let year = parse_expr("day >= '1994-01-01' AND day < '1995-01-01'").unwrap();
        let e = Estimate::table(Some(s.clone()), [&year].into_iter());
        assert!((100.0..200.0).contains(&e.rows), "{}", e.rows);
        let k = parse_expr("k > 100").unwrap();
        let both = Estimate::table(Some(s), [&year, &k].into_iter());
        assert!(both.rows < e.rows);
    }

    #[test]
    fn conjuncts_multiply_and_disjuncts_add() {
        let both = sel("flag = 'A' AND k < 501");
        assert!((both - 0.125).abs() < 0.01, "{both}");
        let either = sel("flag = 'A' OR flag = 'B'");
        assert!((either - 0.4375).abs() < 1e-9);
    }

    #[test]
    fn a_key_join_yields_the_larger_side_and_many_keys_do_not_shrink_it_further() {
        assert_eq!(join_rows(6e6, 1.5e6, &[(1.5e6, 1.5e6)]), 6e6);
        let composite = join_rows(6e6, 8e5, &[(2e5, 2e5), (1e4, 1e4)]);
        assert_eq!(composite, 8e5);
        assert_eq!(join_rows(10.0, 20.0, &[]), 200.0);
    }
}
