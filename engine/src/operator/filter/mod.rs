//! Filtering one segment: a bound [`FilterExpr`] becomes a [`FilterNode`] tree whose leaves
//! each say how they will be answered, then runs to a [`DocSet`].
//!
//! Index choice per predicate on a column (Pinot's `FilterOperatorUtils` order):
//! 1. the predicate's dictionary ids are computed once ([`IdSet`]); none → empty, all →
//!    match-all;
//! 2. a sorted column answers with doc ranges (`FILTER_SORTED_INDEX`);
//! 3. a range predicate with a range index uses it (`FILTER_RANGE_INDEX`);
//! 4. an inverted index unions per-id bitmaps (`FILTER_INVERTED_INDEX`);
//! 5. otherwise the forward index is scanned comparing dictionary ids — or raw values for
//!    no-dictionary columns (`FILTER_FULL_SCAN`).
//!
//! Predicates on expressions (`FILTER_EXPRESSION`) evaluate the expression per candidate
//! document — or, over one dictionary column, per dictionary entry ([`dict_expr`]). `skipIndexes` removes indexes from consideration. Negative predicates run as the
//! complement of their positive form; with null handling on, NULL documents never match a
//! comparison (nor its negation), and `NOT` keeps where its child is false ([`falses`]).

pub mod dict_expr;
pub mod exec;
pub mod falses;
pub mod id_compare;
pub mod id_set;
pub mod json_match;
pub mod prune;
pub mod raw_test;
pub mod text_match;
pub mod value_test;
pub mod zones;

use crate::context::QueryContext;
use crate::error::EngineError;
use id_set::{IdLookup, IdSet};
use planner::plan::json_match::JsonMatch;
use planner::plan::{Expr, FilterExpr, Predicate, PredicateOp};
use raw_test::RawTest;
use roaring::RoaringBitmap;
use segments::index::{
    Inverted, InvertedIndexReader, Json, JsonIndexReader, Range as RangeIdx, RangeIndexReader,
    Sorted, SortedIndexReader, Text, TextIndexReader,
};
use segments::segment::{ColumnReader, ImmutableSegment};
use segments::types::Value;

/// Ids of a sorted column from which their doc ranges are found in parts ([`Leaf::splits`]).
const MANY_SORTED_IDS: usize = 4096;
use std::ops::{Bound, Range};
use value_test::{ValueTest, positive_form};

pub use exec::{FilterExecutor, SharedIndexAnswers};

/// How a leaf predicate is answered.
pub enum Access<'s> {
    /// The positive form matches every document (`true`) or none (`false`).
    Constant(bool),
    Sorted {
        reader: &'s SortedIndexReader,
        ids: IdSet,
    },
    Inverted {
        reader: &'s InvertedIndexReader,
        ids: IdSet,
        /// The indexed column, scanned instead when the candidates are few ([`exec`]).
        column: &'s ColumnReader,
    },
    /// Range index over dictionary ids.
    RangeIndex {
        reader: &'s RangeIndexReader,
        ids: Range<u32>,
        column: &'s ColumnReader,
    },
    /// Range index over raw values; partial matches are confirmed with `test`.
    RangeIndexRaw {
        reader: &'s RangeIndexReader,
        lower: Bound<Value>,
        upper: Bound<Value>,
        column: &'s ColumnReader,
        test: RawTest,
    },
    /// Scan the forward index comparing dictionary ids.
    DictScan {
        column: &'s ColumnReader,
        lookup: IdLookup,
    },
    /// Scan raw values.
    RawScan {
        column: &'s ColumnReader,
        test: RawTest,
    },
    /// `JSON_MATCH` over the column's JSON index.
    JsonIndex {
        reader: &'s JsonIndexReader,
        filter: &'s JsonMatch,
        total_docs: u32,
    },
    /// `TEXT_MATCH` over the column's text index (phrases confirmed on the column's values).
    TextIndex {
        reader: &'s TextIndexReader,
        query: std::sync::Arc<text_match::CompiledText>,
        segment: &'s ImmutableSegment,
        column: &'s planner::plan::ColumnRef,
    },
    /// `IS NULL` from the null bitmap.
    NullVector(Option<&'s RoaringBitmap>),
    /// Evaluate an expression per document; `None` tests for NULL.
    Expression { expr: Expr, test: Option<ValueTest> },
    /// An expression over one dictionary column, evaluated per dictionary entry at planning
    /// ([`dict_expr`]): scan the column's ids for those whose value passed.
    ExpressionIds {
        expr: Expr,
        column: &'s ColumnReader,
        lookup: IdLookup,
    },
    /// `a op b` over two dictionary-encoded columns of one type, on their ids: per id of `a`,
    /// the ids of `b` that pass ([`id_compare::IdCompare`]).
    ColumnCompare {
        left: &'s ColumnReader,
        right: &'s ColumnReader,
        test: id_compare::IdCompare,
    },
}

/// A leaf predicate of one segment.
pub struct Leaf<'s> {
    /// What the leaf tests, for Pinot's predicate text (`x = '1'`), rendered only by EXPLAIN
    /// (a runtime key filter's `IN` list can hold a million values).
    pub source: LeafSource<'s>,
    /// Pinot's predicate type (`EQ`, `RANGE`, …).
    pub operator: &'static str,
    pub access: Access<'s>,
    /// The predicate is the complement of `access` (`!=`, `NOT IN`, `IS NOT NULL`).
    pub negated: bool,
    /// NULL documents to remove from the result (null handling on).
    pub nulls: Option<&'s RoaringBitmap>,
}

/// The predicate or expression a [`Leaf`] tests.
#[derive(Clone, Copy)]
pub enum LeafSource<'s> {
    Predicate(&'s Predicate),
    Expr(&'s Expr),
}

impl std::fmt::Display for LeafSource<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LeafSource::Predicate(p) => p.fmt(f),
            LeafSource::Expr(e) => e.fmt(f),
        }
    }
}

/// A segment's filter tree.
pub enum FilterNode<'s> {
    MatchAll,
    Empty,
    And(Vec<FilterNode<'s>>),
    Or(Vec<FilterNode<'s>>),
    Not {
        child: Box<FilterNode<'s>>,
        /// NULL documents of the columns under the NOT (null handling on).
        nulls: Vec<&'s RoaringBitmap>,
    },
    Leaf(Leaf<'s>),
}

impl Access<'_> {
    /// About which share of the segment's documents the positive form matches, from its ids
    /// against its dictionary (documents taken as spread evenly over the ids, a sorted range
    /// counted exactly); `None` when the access says nothing of it.
    pub fn share(&self) -> Option<f64> {
        let of = |n: usize, of: u32| n as f64 / of.max(1) as f64;
        match self {
            Access::Constant(all) => Some(if *all { 1.0 } else { 0.0 }),
            Access::Sorted {
                reader,
                ids: IdSet::Range(r),
            } => Some(of(reader.doc_range_of(r.clone()).len(), reader.num_docs())),
            Access::Sorted { reader, ids } => Some(of(ids.len(), reader.len())),
            Access::Inverted { reader, ids, .. } => Some(of(ids.len(), reader.len())),
            Access::RangeIndex { ids, column, .. } => {
                column.dictionary().map(|d| of(ids.len(), d.len()))
            }
            _ => None,
        }
    }
}

impl Leaf<'_> {
    /// Which structure answers the leaf: `sorted`, `inverted`, `range`, `scan`,
    /// `expression`, `null_vector` or `constant`.
    pub fn index_used(&self) -> &'static str {
        match &self.access {
            Access::Constant(_) => "constant",
            Access::Sorted { .. } => "sorted",
            Access::Inverted { .. } => "inverted",
            Access::JsonIndex { .. } => "json",
            Access::TextIndex { .. } => "text",
            Access::RangeIndex { .. } | Access::RangeIndexRaw { .. } => "range",
            Access::DictScan { .. } | Access::RawScan { .. } => "scan",
            Access::NullVector(_) => "null_vector",
            Access::Expression { .. }
            | Access::ExpressionIds { .. }
            | Access::ColumnCompare { .. } => "expression",
        }
    }

    /// About which share of the segment's documents the leaf matches ([`Access::share`], or
    /// the rest of it when negated); `None` when its access says nothing of it.
    pub fn share(&self) -> Option<f64> {
        let positive = self.access.share()?;
        Some(if self.negated {
            1.0 - positive
        } else {
            positive
        })
    }

    /// Whether answering the leaf reads documents one by one.
    pub fn is_scan(&self) -> bool {
        matches!(
            self.access,
            Access::DictScan { .. }
                | Access::RawScan { .. }
                | Access::Expression { .. }
                | Access::ExpressionIds { .. }
                | Access::ColumnCompare { .. }
        )
    }

    /// Whether answering the leaf is worth splitting over doc-range parts: it scans, or it turns
    /// many ids of a sorted column into their doc ranges (a key filter's `IN` list), which each
    /// part does for the ids whose documents it holds.
    pub fn splits(&self) -> bool {
        self.is_scan()
            || matches!(&self.access, Access::Sorted { ids: IdSet::Ids(v), .. } if v.len() >= MANY_SORTED_IDS)
    }

    /// Pinot's EXPLAIN text for the leaf.
    pub fn explain(&self) -> String {
        let (name, lookup) = match &self.access {
            Access::Sorted { .. } => ("FILTER_SORTED_INDEX", Some("sorted_index")),
            Access::Inverted { .. } => ("FILTER_INVERTED_INDEX", Some("inverted_index")),
            Access::JsonIndex { .. } => ("FILTER_JSON_INDEX", Some("json_index")),
            Access::TextIndex { .. } => ("FILTER_TEXT_INDEX", Some("text_index")),
            Access::RangeIndex { .. } | Access::RangeIndexRaw { .. } => {
                ("FILTER_RANGE_INDEX", Some("range_index"))
            }
            Access::NullVector(_) => ("FILTER_NULL_VALUE_INDEX", Some("null_value_vector")),
            Access::Expression { .. }
            | Access::ExpressionIds { .. }
            | Access::ColumnCompare { .. } => ("FILTER_EXPRESSION", None),
            Access::Constant(_) | Access::DictScan { .. } | Access::RawScan { .. } => {
                ("FILTER_FULL_SCAN", None)
            }
        };
        match lookup {
            Some(l) => format!(
                "{name}(indexLookUp:{l},operator:{},predicate:{})",
                self.operator, self.source
            ),
            None => format!(
                "{name}(operator:{},predicate:{})",
                self.operator, self.source
            ),
        }
    }
}

impl<'s> FilterNode<'s> {
    /// Whether any leaf scans documents.
    pub fn scans(&self) -> bool {
        self.any_leaf(&Leaf::is_scan)
    }

    /// About which share of the documents the node matches ([`Leaf::share`]; 1 when unknown).
    pub fn share(&self) -> f64 {
        match self {
            FilterNode::MatchAll => 1.0,
            FilterNode::Empty => 0.0,
            FilterNode::And(v) => v.iter().map(FilterNode::share).product(),
            FilterNode::Or(v) => v.iter().map(FilterNode::share).sum::<f64>().min(1.0),
            FilterNode::Not { child, .. } => match child.share() {
                s if s < 1.0 => 1.0 - s,
                _ => 1.0,
            },
            FilterNode::Leaf(l) => l.share().unwrap_or(1.0),
        }
    }

    /// Whether finding the node's documents is worth splitting over doc-range parts
    /// ([`Leaf::splits`]).
    pub fn splits(&self) -> bool {
        self.any_leaf(&Leaf::splits)
    }

    /// Whether some leaf meets `test`.
    fn any_leaf(&self, test: &impl Fn(&Leaf<'s>) -> bool) -> bool {
        match self {
            FilterNode::MatchAll | FilterNode::Empty => false,
            FilterNode::And(v) | FilterNode::Or(v) => v.iter().any(|c| c.any_leaf(test)),
            FilterNode::Not { child, .. } => child.any_leaf(test),
            FilterNode::Leaf(l) => test(l),
        }
    }

    /// Every leaf, pre-order.
    pub fn leaves(&self) -> Vec<&Leaf<'s>> {
        let mut out = Vec::new();
        fn walk<'a, 's>(n: &'a FilterNode<'s>, out: &mut Vec<&'a Leaf<'s>>) {
            match n {
                FilterNode::And(v) | FilterNode::Or(v) => v.iter().for_each(|c| walk(c, out)),
                FilterNode::Not { child, .. } => walk(child, out),
                FilterNode::Leaf(l) => out.push(l),
                FilterNode::MatchAll | FilterNode::Empty => {}
            }
        }
        walk(self, &mut out);
        out
    }

    /// EXPLAIN rows: (depth, text), pre-order.
    pub fn explain(&self, total_docs: u32) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        self.explain_into(0, total_docs, &mut out);
        out
    }

    fn explain_into(&self, depth: usize, total_docs: u32, out: &mut Vec<(usize, String)>) {
        match self {
            FilterNode::MatchAll => out.push((
                depth,
                format!("FILTER_MATCH_ENTIRE_SEGMENT(docs:{total_docs})"),
            )),
            FilterNode::Empty => out.push((depth, "FILTER_EMPTY".into())),
            FilterNode::And(v) | FilterNode::Or(v) => {
                out.push((
                    depth,
                    if matches!(self, FilterNode::And(_)) {
                        "FILTER_AND"
                    } else {
                        "FILTER_OR"
                    }
                    .into(),
                ));
                v.iter()
                    .for_each(|c| c.explain_into(depth + 1, total_docs, out));
            }
            FilterNode::Not { child, .. } => {
                out.push((depth, "FILTER_NOT".into()));
                child.explain_into(depth + 1, total_docs, out);
            }
            FilterNode::Leaf(l) => out.push((depth, l.explain())),
        }
    }
}

/// Plans the filter of one segment.
pub fn plan_filter<'s>(
    filter: Option<&'s FilterExpr>,
    segment: &'s ImmutableSegment,
    ctx: &QueryContext,
) -> Result<FilterNode<'s>, EngineError> {
    match filter {
        None => Ok(FilterNode::MatchAll),
        Some(f) => plan_node(f, segment, ctx),
    }
}

fn plan_node<'s>(
    f: &'s FilterExpr,
    segment: &'s ImmutableSegment,
    ctx: &QueryContext,
) -> Result<FilterNode<'s>, EngineError> {
    Ok(match f {
        FilterExpr::Constant(true) => FilterNode::MatchAll,
        FilterExpr::Constant(false) => FilterNode::Empty,
        FilterExpr::And(children) => all_of(children, |c| plan_node(c, segment, ctx))?,
        FilterExpr::Or(children) => any_of(children, |c| plan_node(c, segment, ctx))?,
        // Under null handling `NOT` keeps where its child is false: not where it is true, nor
        // where it is unknown (see [`falses`]).
        FilterExpr::Not(child) if ctx.options.enable_null_handling => {
            falses::plan_false(child, segment, ctx)?
        }
        FilterExpr::Not(child) => complement(plan_node(child, segment, ctx)?, Vec::new()),
        FilterExpr::Predicate(p) => plan_predicate(p, segment, ctx)?,
        FilterExpr::Expr(e) => FilterNode::Leaf(Leaf {
            source: LeafSource::Expr(e),
            operator: "EQ",
            access: id_compare::access(e, segment, ctx)
                .unwrap_or_else(|| expression(e, Some(ValueTest::Truth), segment, ctx)),
            negated: false,
            nulls: None,
        }),
    })
}

/// How a test of an expression's value is answered: per dictionary entry where the expression
/// reads one dictionary column ([`dict_expr`]), else per document.
fn expression<'s>(
    expr: &Expr,
    test: Option<ValueTest>,
    segment: &'s ImmutableSegment,
    ctx: &QueryContext,
) -> Access<'s> {
    if let Some(t) = &test
        && let Some((column, lookup)) = dict_expr::ids_passing(expr, t, segment, ctx)
    {
        return Access::ExpressionIds {
            expr: expr.clone(),
            column,
            lookup,
        };
    }
    Access::Expression {
        expr: expr.clone(),
        test,
    }
}

/// The docs every child matches, each child planned by `plan` (none planned past an empty one).
fn all_of<'s>(
    children: &'s [FilterExpr],
    plan: impl Fn(&'s FilterExpr) -> Result<FilterNode<'s>, EngineError>,
) -> Result<FilterNode<'s>, EngineError> {
    let mut out = Vec::new();
    for c in children {
        match plan(c)? {
            FilterNode::Empty => return Ok(FilterNode::Empty),
            FilterNode::MatchAll => {}
            n => out.push(n),
        }
    }
    // Index-answered children first: scans then only read their candidates.
    out.sort_by_key(FilterNode::scans);
    Ok(match out.len() {
        0 => FilterNode::MatchAll,
        1 => out.pop().unwrap_or(FilterNode::MatchAll),
        _ => FilterNode::And(out),
    })
}

/// The docs some child matches, each child planned by `plan` (none planned past a match-all).
fn any_of<'s>(
    children: &'s [FilterExpr],
    plan: impl Fn(&'s FilterExpr) -> Result<FilterNode<'s>, EngineError>,
) -> Result<FilterNode<'s>, EngineError> {
    let mut out = Vec::new();
    for c in children {
        match plan(c)? {
            FilterNode::MatchAll => return Ok(FilterNode::MatchAll),
            FilterNode::Empty => {}
            n => out.push(n),
        }
    }
    Ok(match out.len() {
        0 => FilterNode::Empty,
        1 => out.pop().unwrap_or(FilterNode::Empty),
        _ => FilterNode::Or(out),
    })
}

/// The docs `node` does not match, less `nulls`.
fn complement<'s>(node: FilterNode<'s>, nulls: Vec<&'s RoaringBitmap>) -> FilterNode<'s> {
    match node {
        FilterNode::MatchAll => FilterNode::Empty,
        FilterNode::Empty if nulls.is_empty() => FilterNode::MatchAll,
        child => FilterNode::Not {
            child: Box::new(child),
            nulls,
        },
    }
}

fn plan_predicate<'s>(
    p: &'s Predicate,
    segment: &'s ImmutableSegment,
    ctx: &QueryContext,
) -> Result<FilterNode<'s>, EngineError> {
    let (positive, negated) = positive_form(&p.op);
    let positive = &*positive;
    let operator = p.op.kind_name();
    let leaf = |access: Access<'s>, nulls: Option<&'s RoaringBitmap>| Leaf {
        source: LeafSource::Predicate(p),
        operator,
        access,
        negated,
        nulls,
    };
    let column = match &p.lhs {
        // `$`-columns are virtual (`$docId` …) unless the segment stores them (`$ts$DAY`).
        Expr::Column(c) if !c.name.starts_with('$') || segment.column(&c.name).is_some() => Some(c),
        _ => None,
    };
    let Some(c) = column else {
        let test = match positive {
            PredicateOp::IsNull => None,
            op => Some(ValueTest::new(op)?),
        };
        return Ok(FilterNode::Leaf(leaf(
            expression(&p.lhs, test, segment, ctx),
            None,
        )));
    };
    let Some(reader) = segment.column(&c.name) else {
        // The segment predates the column: every document holds the default value, which with
        // null handling is NULL — only `IS NULL` is true; a comparison is unknown, negated or
        // not (`!=`, `NOT IN`), as on the NULL documents of a column that exists.
        if let PredicateOp::JsonMatch(m) = &p.op {
            // The default JSON value `null` has no record: only an `IS NULL` filter holds.
            return Ok(if m.is_null_test() {
                FilterNode::MatchAll
            } else {
                FilterNode::Empty
            });
        }
        if ctx.options.enable_null_handling {
            let is_null = matches!(positive, PredicateOp::IsNull) && !negated;
            return Ok(if is_null {
                FilterNode::MatchAll
            } else {
                FilterNode::Empty
            });
        }
        let matches = match positive {
            PredicateOp::IsNull => false,
            op => ValueTest::new(op)?
                .test(&ctx.options.column_default(&c.name, c.column_type.data_type)),
        };
        return Ok(if matches != negated {
            FilterNode::MatchAll
        } else {
            FilterNode::Empty
        });
    };
    let skip = |kind: &str| ctx.options.skips_index(&c.name, kind);
    if let PredicateOp::JsonMatch(m) = &p.op {
        let json = reader
            .index::<Json>()
            .filter(|_| !skip("json"))
            .ok_or_else(|| no_json_index(&c.name))?;
        let access = Access::JsonIndex {
            reader: json,
            filter: m,
            total_docs: segment.total_docs(),
        };
        return Ok(FilterNode::Leaf(leaf(access, None)));
    }
    if let (PredicateOp::TextMatch(m), Some(text)) = (&p.op, reader.index::<Text>())
        && !skip("text")
    {
        let access = Access::TextIndex {
            reader: text,
            query: std::sync::Arc::new(text_match::CompiledText::new(m, text.config())?),
            segment,
            column: c,
        };
        return Ok(FilterNode::Leaf(leaf(access, None)));
    }
    if matches!(positive, PredicateOp::IsNull) {
        let nulls = reader.nulls().filter(|b| !b.is_empty());
        if nulls.is_none() {
            return Ok(if negated {
                FilterNode::MatchAll
            } else {
                FilterNode::Empty
            });
        }
        return Ok(FilterNode::Leaf(leaf(Access::NullVector(nulls), None)));
    }
    let nulls = if ctx.options.enable_null_handling {
        reader.nulls().filter(|b| !b.is_empty())
    } else {
        None
    };
    let access = match reader.dictionary() {
        Some(dict) => {
            let ids = IdSet::for_predicate(positive, dict, ctx)?;
            let cardinality = dict.len();
            let is_range = matches!(positive, PredicateOp::Range { .. });
            if ids.is_empty() {
                Access::Constant(false)
            } else if ids.covers(cardinality) {
                Access::Constant(true)
            } else if let (true, Some(sorted)) = (
                reader.is_single_value() && !skip("sorted"),
                reader.index::<Sorted>(),
            ) {
                Access::Sorted {
                    reader: sorted,
                    ids,
                }
            } else if let (true, Some(range), IdSet::Range(r)) =
                (is_range && !skip("range"), reader.index::<RangeIdx>(), &ids)
            {
                Access::RangeIndex {
                    reader: range,
                    ids: r.clone(),
                    column: reader,
                }
            } else if let (true, Some(inv)) = (
                !skip("inverted") && (!is_range || ids.len() <= 64),
                reader.index::<Inverted>(),
            ) {
                Access::Inverted {
                    reader: inv,
                    ids,
                    column: reader,
                }
            } else {
                Access::DictScan {
                    column: reader,
                    lookup: ids.lookup(cardinality),
                }
            }
        }
        None => {
            let test = RawTest::new(positive, reader.data_type().stored())?;
            match (&positive, reader.index::<RangeIdx>()) {
                (PredicateOp::Range { lower, upper }, Some(range)) if !skip("range") => {
                    let bound = |b: &Option<planner::plan::RangeBound>| match b {
                        None => Bound::Unbounded,
                        Some(b) if b.inclusive => Bound::Included(b.value.clone()),
                        Some(b) => Bound::Excluded(b.value.clone()),
                    };
                    Access::RangeIndexRaw {
                        reader: range,
                        lower: bound(lower),
                        upper: bound(upper),
                        column: reader,
                        test,
                    }
                }
                _ => Access::RawScan {
                    column: reader,
                    test,
                },
            }
        }
    };
    if let (Access::Constant(all), None) = (&access, nulls) {
        return Ok(if *all != negated {
            FilterNode::MatchAll
        } else {
            FilterNode::Empty
        });
    }
    Ok(FilterNode::Leaf(leaf(access, nulls)))
}

/// Pinot's error for `JSON_MATCH` on a column without a JSON index (or one `skipIndexes` hides).
fn no_json_index(column: &str) -> EngineError {
    EngineError::execution(format!(
        "Cannot apply JSON_MATCH on column: {column} without json index"
    ))
}
