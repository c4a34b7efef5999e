//! Where a filter is *unknown* under null handling (SQL's third truth value: a comparison with a
//! NULL), which `NOT` must leave out besides the filter's matches: `NOT f` keeps the documents
//! where `f` is false, not all those where it is not true.
//!
//! A predicate over a column is unknown on the column's NULL documents, but `IS [NOT] NULL` is
//! never unknown; `NOT` is unknown where its child is; an `AND` where no child is false and one
//! is unknown; an `OR` where no child is true and one is unknown. So
//! `NOT (score IS NOT NULL OR status = 'RETURNED')` keeps the null scores of other statuses,
//! which taking out every NULL document of the columns under the `NOT` would lose.

use super::{Access, FilterNode, Leaf, LeafSource, plan_node};
use crate::context::QueryContext;
use crate::error::EngineError;
use planner::plan::{Expr, FilterExpr, PredicateOp};
use roaring::RoaringBitmap;
use segments::segment::ImmutableSegment;

/// The documents where a filter is unknown.
pub enum Unknown<'s> {
    /// Nowhere: the filter is true or false on every document.
    Never,
    /// On the NULL documents of these columns (each with the expression it is read in).
    Nulls(Vec<(&'s Expr, &'s RoaringBitmap)>),
    /// Where this filter tree matches.
    Docs(FilterNode<'s>),
}

impl<'s> Unknown<'s> {
    /// The documents as a filter tree.
    pub fn into_node(self) -> FilterNode<'s> {
        match self {
            Unknown::Never => FilterNode::Empty,
            Unknown::Nulls(nulls) => {
                let mut leaves: Vec<FilterNode<'s>> = nulls
                    .into_iter()
                    .map(|(expr, nulls)| {
                        FilterNode::Leaf(Leaf {
                            source: LeafSource::Expr(expr),
                            operator: "IS_NULL",
                            access: Access::NullVector(Some(nulls)),
                            negated: false,
                            nulls: None,
                        })
                    })
                    .collect();
                match leaves.len() {
                    1 => leaves.pop().unwrap_or(FilterNode::Empty),
                    _ => FilterNode::Or(leaves),
                }
            }
            Unknown::Docs(node) => node,
        }
    }
}

/// Where `f` is unknown on `segment` (null handling on).
pub fn unknown<'s>(
    f: &'s FilterExpr,
    segment: &'s ImmutableSegment,
    ctx: &QueryContext,
) -> Result<Unknown<'s>, EngineError> {
    Ok(match f {
        FilterExpr::Constant(_) => Unknown::Never,
        FilterExpr::Not(child) => unknown(child, segment, ctx)?,
        FilterExpr::Predicate(p)
            if matches!(p.op, PredicateOp::IsNull | PredicateOp::IsNotNull) =>
        {
            Unknown::Never
        }
        // A column the segment predates is NULL on every document.
        FilterExpr::Predicate(p)
            if matches!(&p.lhs, Expr::Column(c)
                if !c.name.starts_with('$') && segment.column(&c.name).is_none()) =>
        {
            Unknown::Docs(FilterNode::MatchAll)
        }
        FilterExpr::Predicate(p) => nulls_read(&p.lhs, segment),
        FilterExpr::Expr(e) => nulls_read(e, segment),
        FilterExpr::And(children) | FilterExpr::Or(children) => {
            let is_and = matches!(f, FilterExpr::And(_));
            let mut any_unknown = Vec::new();
            for c in children {
                match unknown(c, segment, ctx)? {
                    Unknown::Never => {}
                    u => any_unknown.push(u.into_node()),
                }
            }
            if any_unknown.is_empty() {
                return Ok(Unknown::Never);
            }
            let mut all = vec![FilterNode::Or(any_unknown)];
            for c in children {
                let matches = plan_node(c, segment, ctx)?;
                all.push(if is_and {
                    // Not false: true or unknown.
                    match unknown(c, segment, ctx)? {
                        Unknown::Never => matches,
                        u => FilterNode::Or(vec![matches, u.into_node()]),
                    }
                } else {
                    // Not true.
                    FilterNode::Not {
                        child: Box::new(matches),
                        nulls: Vec::new(),
                    }
                });
            }
            Unknown::Docs(FilterNode::And(all))
        }
    })
}

/// The NULL documents of the columns `e` reads: an expression over a NULL is NULL (an
/// approximation for the few that are not, such as `COALESCE`).
fn nulls_read<'s>(e: &'s Expr, segment: &'s ImmutableSegment) -> Unknown<'s> {
    let nulls: Vec<(&'s Expr, &'s RoaringBitmap)> = e
        .columns()
        .iter()
        .filter_map(|c| segment.column(&c.name).and_then(|r| r.nulls()))
        .filter(|b| !b.is_empty())
        .map(|b| (e, b))
        .collect();
    if nulls.is_empty() {
        Unknown::Never
    } else {
        Unknown::Nulls(nulls)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FilterExecutor, plan_filter};
    use crate::context::QueryContext;
    use planner::plan::{ColumnType, ExecutionOptions, Expr, FilterExpr, Predicate, PredicateOp};
    use segments::build_config::BuildConfig;
    use segments::builder::build_segment_from_rows;
    use segments::segment::ImmutableSegment;
    use segments::types::{DataType, FieldSpec, Schema, Value};

    fn column(name: &str) -> Expr {
        Expr::Column(planner::plan::expr::ColumnRef {
            name: name.into(),
            column_type: ColumnType::sv(DataType::Int),
        })
    }

    fn pred(name: &str, op: PredicateOp) -> FilterExpr {
        FilterExpr::Predicate(Predicate {
            lhs: column(name),
            op,
        })
    }

    #[test]
    fn a_column_the_segment_predates_is_null_on_every_document() {
        let dir = tempfile::tempdir().unwrap();
        let schema = Schema {
            schema_name: "t".into(),
            fields: vec![FieldSpec::dimension("a", DataType::Int)],
            ..Schema::default()
        };
        let mut cfg = BuildConfig::new("t", "t_0");
        cfg.null_handling = true;
        let rows = (0..100).map(|i| Ok(vec![Value::Int(i)]));
        let built = build_segment_from_rows(&schema, &cfg, rows, dir.path()).unwrap();
        let segment = ImmutableSegment::open(&built.segment_dir).unwrap();
        let ctx = QueryContext::new(ExecutionOptions {
            enable_null_handling: true,
            ..ExecutionOptions::default()
        });
        let count = |f: FilterExpr| {
            let node = plan_filter(Some(&f), &segment, &ctx).unwrap();
            FilterExecutor::new(&segment, &ctx)
                .run(&node)
                .unwrap()
                .len()
        };
        let b_is_5 = || pred("b", PredicateOp::Eq(Value::Int(5)));
        let a_below_10 = || {
            pred(
                "a",
                PredicateOp::Range {
                    lower: None,
                    upper: Some(planner::plan::RangeBound::exclusive(Value::Int(10))),
                },
            )
        };
        let not = |f: FilterExpr| FilterExpr::Not(Box::new(f));
        assert_eq!(count(b_is_5()), 0);
        assert_eq!(count(pred("b", PredicateOp::NotEq(Value::Int(5)))), 0);
        assert_eq!(count(pred("b", PredicateOp::IsNull)), 100);
        assert_eq!(count(pred("b", PredicateOp::IsNotNull)), 0);
        assert_eq!(count(not(b_is_5())), 0);
        assert_eq!(count(not(pred("b", PredicateOp::IsNull))), 0);
        // a < 10 is true on 10 docs: OR is true there (NOT false), unknown elsewhere.
        assert_eq!(count(not(FilterExpr::Or(vec![b_is_5(), a_below_10()]))), 0);
        // a < 10 is false on 90 docs: AND is false there (NOT true), unknown elsewhere.
        assert_eq!(
            count(not(FilterExpr::And(vec![b_is_5(), a_below_10()]))),
            90
        );
    }
}
