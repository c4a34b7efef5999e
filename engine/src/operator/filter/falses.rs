//! Where a filter is *false* under null handling, which is what `NOT` keeps: not every document
//! where the filter is not true, since a comparison with a NULL is *unknown* (SQL's third truth
//! value), and `NOT unknown` is unknown too. So `NOT (score IS NOT NULL OR status = 'RETURNED')`
//! keeps the null scores of other statuses, and `NOT (score > 5)` no null score.
//!
//! De Morgan's laws hold in three-valued logic, so the `NOT` is pushed down: `AND` is false where
//! some child is false, `OR` where every child is, `NOT x` where `x` is true; a predicate is false
//! where it does not match, less the NULL documents of the columns it reads (`IS [NOT] NULL` is
//! never unknown; a column the segment predates is NULL everywhere). Each node is planned once:
//! the work is linear in the filter, however deeply `NOT`, `AND` and `OR` nest.

use super::{FilterNode, all_of, any_of, complement, plan_node};
use crate::context::QueryContext;
use crate::error::EngineError;
use planner::plan::{Expr, FilterExpr, PredicateOp};
use roaring::RoaringBitmap;
use segments::segment::ImmutableSegment;

/// The documents of `segment` where `f` is false (null handling on).
pub fn plan_false<'s>(
    f: &'s FilterExpr,
    segment: &'s ImmutableSegment,
    ctx: &QueryContext,
) -> Result<FilterNode<'s>, EngineError> {
    Ok(match f {
        FilterExpr::Constant(true) => FilterNode::Empty,
        FilterExpr::Constant(false) => FilterNode::MatchAll,
        FilterExpr::Not(child) => plan_node(child, segment, ctx)?,
        FilterExpr::And(children) => any_of(children, |c| plan_false(c, segment, ctx))?,
        FilterExpr::Or(children) => all_of(children, |c| plan_false(c, segment, ctx))?,
        FilterExpr::Predicate(p)
            if matches!(p.op, PredicateOp::IsNull | PredicateOp::IsNotNull) =>
        {
            complement(plan_node(f, segment, ctx)?, Vec::new())
        }
        // A column the segment predates is NULL on every document: the predicate is unknown.
        FilterExpr::Predicate(p)
            if matches!(&p.lhs, Expr::Column(c)
                if !c.name.starts_with('$') && segment.column(&c.name).is_none()) =>
        {
            FilterNode::Empty
        }
        FilterExpr::Predicate(p) => {
            complement(plan_node(f, segment, ctx)?, nulls_read(&p.lhs, segment))
        }
        FilterExpr::Expr(e) => complement(plan_node(f, segment, ctx)?, nulls_read(e, segment)),
    })
}

/// The NULL documents of the columns `e` reads: an expression over a NULL is NULL (an
/// approximation for the few that are not, such as `COALESCE`).
fn nulls_read<'s>(e: &'s Expr, segment: &'s ImmutableSegment) -> Vec<&'s RoaringBitmap> {
    e.columns()
        .iter()
        .filter_map(|c| segment.column(&c.name).and_then(|r| r.nulls()))
        .filter(|b| !b.is_empty())
        .collect()
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
        // Each node is planned once, however deep the nesting (planning a child twice per
        // level, as a first version did, grows as ~2.4^depth and would not finish here).
        // NOT (x AND a >= 10) turns `a < 10` into every doc and back, level by level.
        let mut deep = a_below_10();
        for _ in 0..40 {
            deep = not(FilterExpr::And(vec![deep, not(a_below_10())]));
        }
        assert_eq!(count(deep), 10);
    }
}
