//! Filters: a `WHERE` clause (or an aggregate's `FILTER (WHERE …)`) as a tree of
//! AND/OR/NOT over [`Predicate`]s, the unit an index can answer.
//!
//! A predicate is `lhs op literal(s)` where `lhs` is a column or any expression over columns.
//! Literals are already converted to the type of `lhs` (so a dictionary lookup needs no
//! conversion) — with one exception: range bounds keep their own numeric type when conversion
//! would change them (`intCol > 5.5`), and comparisons use [`Value::sql_cmp`].
//! Anything that is not of that shape (`a = b`, `f(a) OR g(b)` as one expression) is an
//! [`FilterExpr::Expr`], evaluated row by row.
//!
//! `Display` follows Pinot's EXPLAIN text: `x = '1.1'`, `x BETWEEN '0' AND '5'`,
//! `x NOT IN ('a','b')`.

use super::expr::{Expr, quote_literal};
use segments::types::Value;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A bound filter tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FilterExpr {
    And(Vec<FilterExpr>),
    Or(Vec<FilterExpr>),
    Not(Box<FilterExpr>),
    Predicate(Predicate),
    /// A boolean expression no index can answer; evaluated per row (NULL counts as false).
    Expr(Expr),
    /// Folded to a constant.
    Constant(bool),
}

/// `lhs op …`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Predicate {
    pub lhs: Expr,
    pub op: PredicateOp,
}

/// One end of a range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RangeBound {
    pub value: Value,
    pub inclusive: bool,
}

/// The predicate kinds Pinot distinguishes (`Predicate.Type`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PredicateOp {
    Eq(Value),
    NotEq(Value),
    In(Vec<Value>),
    NotIn(Vec<Value>),
    /// `<`, `<=`, `>`, `>=`, `BETWEEN`; at least one bound is present.
    Range {
        lower: Option<RangeBound>,
        upper: Option<RangeBound>,
    },
    /// SQL `LIKE` (`%`, `_`, optional escape character).
    Like {
        pattern: String,
        escape: Option<char>,
    },
    /// `REGEXP_LIKE(lhs, pattern[, 'i'])`.
    RegexpLike {
        pattern: String,
        case_insensitive: bool,
    },
    /// `TEXT_MATCH(lhs, query[, options])`, its query read at planning.
    TextMatch(Box<super::text_match::TextMatch>),
    /// `JSON_MATCH(lhs, filter)`, its filter read at planning.
    JsonMatch(Box<super::json_match::JsonMatch>),
    IsNull,
    IsNotNull,
}

impl PredicateOp {
    /// Pinot's operator name in EXPLAIN (`EQ`, `NOT_IN`, `RANGE`, …).
    pub fn kind_name(&self) -> &'static str {
        match self {
            PredicateOp::Eq(_) => "EQ",
            PredicateOp::NotEq(_) => "NOT_EQ",
            PredicateOp::In(_) => "IN",
            PredicateOp::NotIn(_) => "NOT_IN",
            PredicateOp::Range { .. } => "RANGE",
            PredicateOp::Like { .. } => "LIKE",
            PredicateOp::RegexpLike { .. } => "REGEXP_LIKE",
            PredicateOp::TextMatch(_) => "TEXT_MATCH",
            PredicateOp::JsonMatch(_) => "JSON_MATCH",
            PredicateOp::IsNull => "IS_NULL",
            PredicateOp::IsNotNull => "IS_NOT_NULL",
        }
    }

    /// Whether the predicate can use a value-pruning structure (bloom filter, min/max).
    pub fn prunable(&self) -> bool {
        matches!(
            self,
            PredicateOp::Eq(_) | PredicateOp::In(_) | PredicateOp::Range { .. }
        )
    }

    /// The negation, when it is itself a predicate.
    pub fn negate(&self) -> Option<PredicateOp> {
        Some(match self {
            PredicateOp::Eq(v) => PredicateOp::NotEq(v.clone()),
            PredicateOp::NotEq(v) => PredicateOp::Eq(v.clone()),
            PredicateOp::In(v) => PredicateOp::NotIn(v.clone()),
            PredicateOp::NotIn(v) => PredicateOp::In(v.clone()),
            PredicateOp::IsNull => PredicateOp::IsNotNull,
            PredicateOp::IsNotNull => PredicateOp::IsNull,
            _ => return None,
        })
    }
}

impl RangeBound {
    /// An inclusive bound.
    pub fn inclusive(value: Value) -> RangeBound {
        RangeBound {
            value,
            inclusive: true,
        }
    }

    /// An exclusive bound.
    pub fn exclusive(value: Value) -> RangeBound {
        RangeBound {
            value,
            inclusive: false,
        }
    }

    /// Whether `v` is above (for a lower bound) the bound.
    pub fn admits_above(&self, v: &Value) -> bool {
        match v.sql_cmp(&self.value) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => self.inclusive,
            std::cmp::Ordering::Less => false,
        }
    }

    /// Whether `v` is below (for an upper bound) the bound.
    pub fn admits_below(&self, v: &Value) -> bool {
        match v.sql_cmp(&self.value) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => self.inclusive,
            std::cmp::Ordering::Greater => false,
        }
    }
}

/// Whether a (non-null) value lies in a range.
pub fn in_range(v: &Value, lower: &Option<RangeBound>, upper: &Option<RangeBound>) -> bool {
    lower.as_ref().is_none_or(|b| b.admits_above(v))
        && upper.as_ref().is_none_or(|b| b.admits_below(v))
}

/// The tighter of two bounds on one side of a range (`lower`: the larger value, else the
/// smaller); at one value, inclusive only when both are.
fn tighter(a: Option<RangeBound>, b: Option<RangeBound>, lower: bool) -> Option<RangeBound> {
    use std::cmp::Ordering;
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => Some(match (a.value.sql_cmp(&b.value), lower) {
            (Ordering::Equal, _) => RangeBound {
                inclusive: a.inclusive && b.inclusive,
                value: a.value,
            },
            (Ordering::Greater, true) | (Ordering::Less, false) => a,
            _ => b,
        }),
    }
}

/// The single-value column a range predicate bounds, when `f` is one.
fn ranged_column(f: &FilterExpr) -> Option<String> {
    match f {
        FilterExpr::Predicate(Predicate {
            lhs: Expr::Column(c),
            op: PredicateOp::Range { .. },
        }) if c.column_type.single_value => Some(c.name.clone()),
        _ => None,
    }
}

/// The expression an `=` or `IN` predicate tests, when `f` is one.
fn equality_lhs(f: &FilterExpr) -> Option<Expr> {
    match f {
        FilterExpr::Predicate(Predicate {
            lhs,
            op: PredicateOp::Eq(_) | PredicateOp::In(_),
        }) => Some(lhs.clone()),
        _ => None,
    }
}

/// The range both ranges hold (each bound the tighter).
fn intersect(a: PredicateOp, b: PredicateOp) -> PredicateOp {
    match (a, b) {
        (PredicateOp::Range { lower, upper }, PredicateOp::Range { lower: l, upper: u }) => {
            PredicateOp::Range {
                lower: tighter(lower, l, true),
                upper: tighter(upper, u, false),
            }
        }
        (a, _) => a,
    }
}

/// The values of both `=`/`IN` predicates, each once in order of first mention: an `IN`, or an
/// `=` when one value is left.
fn union_of_values(a: PredicateOp, b: PredicateOp) -> PredicateOp {
    let values = |op| match op {
        PredicateOp::Eq(v) => vec![v],
        PredicateOp::In(vs) => vs,
        _ => Vec::new(),
    };
    let mut all = values(a);
    for v in values(b) {
        if !all.contains(&v) {
            all.push(v);
        }
    }
    match all.len() {
        1 => PredicateOp::Eq(all.remove(0)),
        _ => PredicateOp::In(all),
    }
}

/// `parts` with the predicates `key` names, when some key names more than one, merged into one
/// predicate per key by `combine`: the other parts first, then the merged predicates in order of
/// their key's first mention. `Err(parts)` as they were when no key repeats.
fn merged_by_key<K: PartialEq>(
    parts: Vec<FilterExpr>,
    key: fn(&FilterExpr) -> Option<K>,
    combine: fn(PredicateOp, PredicateOp) -> PredicateOp,
) -> Result<Vec<FilterExpr>, Vec<FilterExpr>> {
    let keys: Vec<K> = parts.iter().filter_map(key).collect();
    if !keys.iter().enumerate().any(|(i, k)| keys[..i].contains(k)) {
        return Err(parts);
    }
    let mut others = Vec::new();
    let mut merged: Vec<(K, Predicate)> = Vec::new();
    for p in parts {
        match (key(&p), p) {
            (Some(k), FilterExpr::Predicate(predicate)) => {
                match merged.iter_mut().find(|(m, _)| *m == k) {
                    Some((_, into)) => {
                        let op = std::mem::replace(&mut into.op, PredicateOp::In(Vec::new()));
                        into.op = combine(op, predicate.op);
                    }
                    None => merged.push((k, predicate)),
                }
            }
            (_, p) => others.push(p),
        }
    }
    others.extend(merged.into_iter().map(|(_, p)| FilterExpr::Predicate(p)));
    Ok(others)
}

impl FilterExpr {
    /// The range predicates of each `AND` on one single-value column merged into one range, as
    /// Pinot's `MergeRangeFilterOptimizer` does: `d >= '1995-09-01' AND d < '1995-10-01'` is one
    /// lookup of a month's values, not two of half the table's each, intersected. When any
    /// merge happens the `AND`'s other parts come first, then the ranges, a column each in
    /// order of first mention. A multi-value column keeps its ranges (a row of values 0 and 10
    /// passes `x < 1 AND x > 9`, not `x > 9 AND x < 1` merged).
    pub fn merge_ranges(self) -> FilterExpr {
        self.merged_within(true, ranged_column, intersect)
    }

    /// The `=` and `IN` predicates of each `OR` on one expression merged into one `IN` (an `=`
    /// when one value is left), as Pinot's `MergeEqInFilterOptimizer` does: `c = 'a' OR c = 'b'`
    /// is one lookup of two values, not two lookups unioned. When any merge happens the `OR`'s
    /// other parts come first, then the merged predicates, an expression each in order of first
    /// mention, their values in order of first mention.
    pub fn merge_eq_in(self) -> FilterExpr {
        self.merged_within(false, equality_lhs, union_of_values)
    }

    /// Each `AND` (`in_and`, else each `OR`) of this filter, however deep, with its predicates
    /// merged by [`merged_by_key`].
    fn merged_within<K: PartialEq>(
        self,
        in_and: bool,
        key: fn(&FilterExpr) -> Option<K>,
        combine: fn(PredicateOp, PredicateOp) -> PredicateOp,
    ) -> FilterExpr {
        let inside = |parts: Vec<FilterExpr>| -> Vec<FilterExpr> {
            parts
                .into_iter()
                .map(|p| p.merged_within(in_and, key, combine))
                .collect()
        };
        match self {
            FilterExpr::And(parts) if in_and => match merged_by_key(inside(parts), key, combine) {
                Ok(merged) => FilterExpr::and(merged),
                Err(parts) => FilterExpr::And(parts),
            },
            FilterExpr::Or(parts) if !in_and => match merged_by_key(inside(parts), key, combine) {
                Ok(merged) => FilterExpr::or(merged),
                Err(parts) => FilterExpr::Or(parts),
            },
            FilterExpr::And(parts) => FilterExpr::And(inside(parts)),
            FilterExpr::Or(parts) => FilterExpr::Or(inside(parts)),
            FilterExpr::Not(inner) => {
                FilterExpr::Not(Box::new(inner.merged_within(in_and, key, combine)))
            }
            other => other,
        }
    }

    /// `AND` of the parts, flattened and with constants folded.
    pub fn and(parts: Vec<FilterExpr>) -> FilterExpr {
        let mut out = Vec::new();
        for p in parts {
            match p {
                FilterExpr::Constant(true) => {}
                FilterExpr::Constant(false) => return FilterExpr::Constant(false),
                FilterExpr::And(inner) => out.extend(inner),
                other => out.push(other),
            }
        }
        match out.len() {
            0 => FilterExpr::Constant(true),
            1 => out.pop().unwrap_or(FilterExpr::Constant(true)),
            _ => FilterExpr::And(out),
        }
    }

    /// `OR` of the parts, flattened and with constants folded.
    pub fn or(parts: Vec<FilterExpr>) -> FilterExpr {
        let mut out = Vec::new();
        for p in parts {
            match p {
                FilterExpr::Constant(false) => {}
                FilterExpr::Constant(true) => return FilterExpr::Constant(true),
                FilterExpr::Or(inner) => out.extend(inner),
                other => out.push(other),
            }
        }
        match out.len() {
            0 => FilterExpr::Constant(false),
            1 => out.pop().unwrap_or(FilterExpr::Constant(false)),
            _ => FilterExpr::Or(out),
        }
    }

    /// `NOT` of a filter, pushed into predicates that have a negated form.
    pub fn negate(inner: FilterExpr) -> FilterExpr {
        match inner {
            FilterExpr::Constant(b) => FilterExpr::Constant(!b),
            FilterExpr::Not(e) => *e,
            FilterExpr::Predicate(p) => match p.op.negate() {
                Some(op) => FilterExpr::Predicate(Predicate { lhs: p.lhs, op }),
                None => FilterExpr::Not(Box::new(FilterExpr::Predicate(p))),
            },
            other => FilterExpr::Not(Box::new(other)),
        }
    }

    /// Every predicate in the tree, pre-order.
    pub fn predicates(&self) -> Vec<&Predicate> {
        let mut out = Vec::new();
        self.collect_predicates(&mut out);
        out
    }

    fn collect_predicates<'a>(&'a self, out: &mut Vec<&'a Predicate>) {
        match self {
            FilterExpr::And(v) | FilterExpr::Or(v) => {
                v.iter().for_each(|f| f.collect_predicates(out))
            }
            FilterExpr::Not(f) => f.collect_predicates(out),
            FilterExpr::Predicate(p) => out.push(p),
            FilterExpr::Expr(_) | FilterExpr::Constant(_) => {}
        }
    }

    /// The table columns the filter reads.
    pub fn columns(&self) -> Vec<super::expr::ColumnRef> {
        let mut out: Vec<super::expr::ColumnRef> = Vec::new();
        let mut add = |e: &Expr| {
            for c in e.columns() {
                if !out.iter().any(|o| o.name == c.name) {
                    out.push(c);
                }
            }
        };
        self.walk_exprs(&mut add);
        out
    }

    /// Rewrites every expression of the filter in place (each as [`Expr::rewrite`] does).
    pub fn rewrite_exprs(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        match self {
            FilterExpr::And(v) | FilterExpr::Or(v) => v.iter_mut().for_each(|x| x.rewrite_exprs(f)),
            FilterExpr::Not(x) => x.rewrite_exprs(f),
            FilterExpr::Predicate(p) => p.lhs.rewrite(f),
            FilterExpr::Expr(e) => e.rewrite(f),
            FilterExpr::Constant(_) => {}
        }
    }

    /// Calls `f` on each expression of the filter (a predicate's left side, a per-row boolean).
    pub fn walk_exprs(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            FilterExpr::And(v) | FilterExpr::Or(v) => v.iter().for_each(|x| x.walk_exprs(f)),
            FilterExpr::Not(x) => x.walk_exprs(f),
            FilterExpr::Predicate(p) => f(&p.lhs),
            FilterExpr::Expr(e) => f(e),
            FilterExpr::Constant(_) => {}
        }
    }
}

fn write_list(f: &mut fmt::Formatter<'_>, values: &[Value]) -> fmt::Result {
    f.write_str("(")?;
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        f.write_str(&quote_literal(v))?;
    }
    f.write_str(")")
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lhs = &self.lhs;
        match &self.op {
            PredicateOp::Eq(v) => write!(f, "{lhs} = {}", quote_literal(v)),
            PredicateOp::NotEq(v) => write!(f, "{lhs} != {}", quote_literal(v)),
            PredicateOp::In(vs) => {
                write!(f, "{lhs} IN ")?;
                write_list(f, vs)
            }
            PredicateOp::NotIn(vs) => {
                write!(f, "{lhs} NOT IN ")?;
                write_list(f, vs)
            }
            PredicateOp::Range { lower, upper } => match (lower, upper) {
                (Some(l), Some(u)) if l.inclusive && u.inclusive => write!(
                    f,
                    "{lhs} BETWEEN {} AND {}",
                    quote_literal(&l.value),
                    quote_literal(&u.value)
                ),
                (Some(l), Some(u)) => write!(
                    f,
                    "({lhs} {} {} AND {lhs} {} {})",
                    if l.inclusive { ">=" } else { ">" },
                    quote_literal(&l.value),
                    if u.inclusive { "<=" } else { "<" },
                    quote_literal(&u.value)
                ),
                (Some(l), None) => write!(
                    f,
                    "{lhs} {} {}",
                    if l.inclusive { ">=" } else { ">" },
                    quote_literal(&l.value)
                ),
                (None, Some(u)) => write!(
                    f,
                    "{lhs} {} {}",
                    if u.inclusive { "<=" } else { "<" },
                    quote_literal(&u.value)
                ),
                (None, None) => write!(f, "{lhs} IS NOT NULL"),
            },
            PredicateOp::Like { pattern, .. } => write!(f, "{lhs} LIKE '{pattern}'"),
            PredicateOp::RegexpLike { pattern, .. } => write!(f, "regexp_like({lhs},'{pattern}')"),
            PredicateOp::TextMatch(m) => match &m.options_text {
                None => write!(f, "text_match({lhs},'{}')", m.text),
                Some(o) => write!(f, "text_match({lhs},'{}','{o}')", m.text),
            },
            PredicateOp::JsonMatch(m) => write!(f, "json_match({lhs},'{}')", m.text),
            PredicateOp::IsNull => write!(f, "{lhs} IS NULL"),
            PredicateOp::IsNotNull => write!(f, "{lhs} IS NOT NULL"),
        }
    }
}

impl fmt::Display for FilterExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |f: &mut fmt::Formatter<'_>, parts: &[FilterExpr], sep: &str| -> fmt::Result {
            f.write_str("(")?;
            for (i, p) in parts.iter().enumerate() {
                if i > 0 {
                    f.write_str(sep)?;
                }
                write!(f, "{p}")?;
            }
            f.write_str(")")
        };
        match self {
            FilterExpr::And(v) => join(f, v, " AND "),
            FilterExpr::Or(v) => join(f, v, " OR "),
            FilterExpr::Not(x) => write!(f, "NOT {x}"),
            FilterExpr::Predicate(p) => write!(f, "{p}"),
            FilterExpr::Expr(e) => write!(f, "{e}"),
            FilterExpr::Constant(b) => write!(f, "{b}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::expr::ColumnRef;
    use super::*;
    use segments::types::ColumnType;
    use segments::types::DataType;

    fn pred(op: PredicateOp) -> FilterExpr {
        FilterExpr::Predicate(Predicate {
            lhs: Expr::Column(ColumnRef {
                name: "x".into(),
                column_type: ColumnType::sv(DataType::Int),
            }),
            op,
        })
    }

    #[test]
    fn folds_and_flattens() {
        let a = pred(PredicateOp::Eq(Value::Int(1)));
        assert_eq!(
            FilterExpr::and(vec![FilterExpr::Constant(true), a.clone()]),
            a
        );
        assert_eq!(
            FilterExpr::and(vec![a.clone(), FilterExpr::Constant(false)]),
            FilterExpr::Constant(false)
        );
        assert_eq!(
            FilterExpr::or(vec![a.clone(), FilterExpr::Constant(true)]),
            FilterExpr::Constant(true)
        );
        let nested = FilterExpr::and(vec![FilterExpr::and(vec![a.clone(), a.clone()]), a.clone()]);
        assert!(matches!(nested, FilterExpr::And(ref v) if v.len() == 3));
        assert_eq!(
            FilterExpr::negate(a.clone()),
            pred(PredicateOp::NotEq(Value::Int(1)))
        );
        assert_eq!(
            FilterExpr::negate(FilterExpr::negate(pred(PredicateOp::Like {
                pattern: "a%".into(),
                escape: None
            }))),
            pred(PredicateOp::Like {
                pattern: "a%".into(),
                escape: None
            })
        );
    }

    /// Ranges of one single-value column in an `AND` are one range, after the other parts;
    /// elsewhere, and on a multi-value column, they stay as written.
    #[test]
    fn ranges_of_a_column_merge_within_an_and() {
        let column = |name: &str, single_value: bool| {
            Expr::Column(ColumnRef {
                name: name.into(),
                column_type: ColumnType {
                    single_value,
                    ..ColumnType::sv(DataType::Int)
                },
            })
        };
        let range = |lhs: Expr, lower: Option<(i32, bool)>, upper: Option<(i32, bool)>| {
            let bound = |(v, inclusive): (i32, bool)| RangeBound {
                value: Value::Int(v),
                inclusive,
            };
            FilterExpr::Predicate(Predicate {
                lhs,
                op: PredicateOp::Range {
                    lower: lower.map(bound),
                    upper: upper.map(bound),
                },
            })
        };
        let x = || column("x", true);
        let eq = pred(PredicateOp::Eq(Value::Int(7)));
        let merged = FilterExpr::And(vec![
            range(x(), Some((1, true)), None),
            eq.clone(),
            range(x(), None, Some((9, false))),
            range(x(), Some((1, false)), Some((20, true))),
        ])
        .merge_ranges();
        assert_eq!(merged.to_string(), "(x = '7' AND (x > '1' AND x < '9'))");
        // The tighter bound wins; at one value, exclusive wins.
        let both = FilterExpr::And(vec![
            range(x(), Some((3, true)), None),
            range(x(), Some((3, false)), Some((4, true))),
        ]);
        assert_eq!(both.merge_ranges().to_string(), "(x > '3' AND x <= '4')");
        // One range of a column, a range under OR, a multi-value column: as they were.
        let kept = FilterExpr::And(vec![
            range(x(), Some((1, true)), None),
            eq.clone(),
            FilterExpr::Or(vec![range(x(), None, Some((0, true))), eq.clone()]),
            range(column("m", false), Some((9, false)), None),
            range(column("m", false), None, Some((1, false))),
        ]);
        assert_eq!(kept.clone().merge_ranges(), kept);
        // Inside an OR, an AND's ranges merge.
        let nested = FilterExpr::Or(vec![
            eq.clone(),
            FilterExpr::And(vec![
                range(x(), Some((1, true)), None),
                range(x(), None, Some((2, true))),
            ]),
        ]);
        assert_eq!(
            nested.merge_ranges().to_string(),
            "(x = '7' OR x BETWEEN '1' AND '2')"
        );
    }

    /// `=` and `IN` of one expression in an `OR` are one `IN`, after the other parts, values
    /// once each; a lone value is an `=`.
    #[test]
    fn equalities_of_an_expression_merge_within_an_or() {
        let int = |v: i32| Value::Int(v);
        let like = pred(PredicateOp::Like {
            pattern: "1%".into(),
            escape: None,
        });
        let merged = FilterExpr::Or(vec![
            pred(PredicateOp::Eq(int(1))),
            like.clone(),
            pred(PredicateOp::In(vec![int(2), int(1)])),
            pred(PredicateOp::Eq(int(3))),
        ])
        .merge_eq_in();
        assert_eq!(merged.to_string(), "(x LIKE '1%' OR x IN ('1','2','3'))");
        let one = FilterExpr::Or(vec![
            pred(PredicateOp::Eq(int(1))),
            pred(PredicateOp::In(vec![int(1)])),
        ]);
        assert_eq!(one.merge_eq_in().to_string(), "x = '1'");
        // Under AND, or an OR of one equality and others: as written.
        let kept = FilterExpr::And(vec![
            pred(PredicateOp::Eq(int(1))),
            FilterExpr::Or(vec![pred(PredicateOp::Eq(int(2))), like.clone()]),
            pred(PredicateOp::Eq(int(3))),
        ]);
        assert_eq!(kept.clone().merge_eq_in(), kept);
    }

    #[test]
    fn displays_like_pinot_explain() {
        assert_eq!(
            pred(PredicateOp::Eq(Value::Double(1.1))).to_string(),
            "x = '1.1'"
        );
        assert_eq!(
            pred(PredicateOp::Range {
                lower: Some(RangeBound::inclusive(Value::Int(0))),
                upper: Some(RangeBound::inclusive(Value::Int(5)))
            })
            .to_string(),
            "x BETWEEN '0' AND '5'"
        );
        assert_eq!(
            pred(PredicateOp::NotIn(vec![
                Value::String("foo".into()),
                Value::String("mickey".into())
            ]))
            .to_string(),
            "x NOT IN ('foo','mickey')"
        );
        assert_eq!(
            pred(PredicateOp::Range {
                lower: Some(RangeBound::exclusive(Value::Int(20))),
                upper: None
            })
            .to_string(),
            "x > '20'"
        );
    }

    #[test]
    fn ranges_admit_the_right_values() {
        let lower = Some(RangeBound::exclusive(Value::Double(5.5)));
        let upper = Some(RangeBound::inclusive(Value::Int(10)));
        assert!(!in_range(&Value::Int(5), &lower, &upper));
        assert!(in_range(&Value::Int(6), &lower, &upper));
        assert!(in_range(&Value::Int(10), &lower, &upper));
        assert!(!in_range(&Value::Int(11), &lower, &upper));
    }
}
