//! Segment pruning: skip a whole segment when its metadata proves the filter cannot match —
//! an `=`/`IN`/range predicate on a column whose `[min, max]` excludes every literal, or an
//! `=`/`IN` literal the column's bloom filter rules out (Pinot's server-side value pruner).

use planner::plan::filter::in_range;
use planner::plan::{Expr, FilterExpr, PredicateOp};
use segments::index::Bloom;
use segments::segment::ImmutableSegment;
use segments::types::Value;
use std::cmp::Ordering;

/// Whether `filter` may match documents of `segment`; `false` prunes it.
pub fn may_match(filter: &FilterExpr, segment: &ImmutableSegment) -> bool {
    match filter {
        FilterExpr::Constant(b) => *b,
        FilterExpr::And(children) => children.iter().all(|c| may_match(c, segment)),
        FilterExpr::Or(children) => children.iter().any(|c| may_match(c, segment)),
        FilterExpr::Not(_) | FilterExpr::Expr(_) => true,
        FilterExpr::Predicate(p) => {
            let Expr::Column(c) = &p.lhs else { return true };
            let Some(column) = segment.column(&c.name) else {
                return true;
            };
            let meta = column.metadata();
            let (min, max) = (&meta.min_value, &meta.max_value);
            let bounded = !min.is_null() && !max.is_null();
            let within = |v: &Value| {
                !bounded
                    || (v.sql_cmp(min) != Ordering::Less && v.sql_cmp(max) != Ordering::Greater)
            };
            let bloom = column.index::<Bloom>();
            let maybe_present = |v: &Value| within(v) && bloom.is_none_or(|b| b.might_contain(v));
            match &p.op {
                PredicateOp::Eq(v) => maybe_present(v),
                PredicateOp::In(vs) => vs.iter().any(maybe_present),
                PredicateOp::Range { lower, upper } => {
                    if !bounded {
                        return true;
                    }
                    // The column's [min, max] must overlap the range.
                    let above_lower = lower
                        .as_ref()
                        .is_none_or(|l| in_range(max, &Some(l.clone()), &None));
                    let below_upper = upper
                        .as_ref()
                        .is_none_or(|u| in_range(min, &None, &Some(u.clone())));
                    above_lower && below_upper
                }
                _ => true,
            }
        }
    }
}
