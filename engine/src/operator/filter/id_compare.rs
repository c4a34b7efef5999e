//! `a op b` between two columns of a segment (TPC-H's `l_commitdate < l_receiptdate`) answered
//! on dictionary ids, with no value read per document.
//!
//! Both dictionaries are sorted. For each id of `a`, the ids of `b` whose values pass `op` form
//! one run of `b`'s dictionary: with `lo` the count of `b`'s values below `a`'s value and `hi`
//! the count not above it, `a < b` holds for ids from `hi` up, `a <= b` from `lo`, `a > b` below
//! `lo`, `a >= b` below `hi`, `a = b` in `[lo, hi)` and `a != b` outside it. The table is built
//! once per segment (one binary search per id of `a`), then each document costs two id reads
//! and one unsigned comparison. It applies to single-value dictionary columns of one data type;
//! with null handling on, only where neither column holds a NULL (a NULL's comparison is
//! unknown, not the default value's).

use super::Access;
use crate::context::QueryContext;
use planner::plan::Expr;
use planner::plan::expr::CmpOp;
use segments::forward::ForwardIndex;
use segments::segment::ImmutableSegment;

/// Per id of the left column, the run of right ids that pass.
#[derive(Clone, Debug)]
pub struct IdCompare {
    /// Per left id: (first right id of the run, its length).
    runs: Vec<(u32, u32)>,
    /// The test is outside the run (`!=`).
    outside: bool,
}

impl IdCompare {
    /// Whether left id `a` and right id `b` pass.
    #[inline]
    pub fn test(&self, a: u32, b: u32) -> bool {
        let (start, width) = self.runs.get(a as usize).copied().unwrap_or((0, 0));
        (b.wrapping_sub(start) < width) != self.outside
    }
}

/// The id comparison for `e` on `segment`, when `e` is `column op column` it applies to.
pub fn access<'s>(
    e: &Expr,
    segment: &'s ImmutableSegment,
    ctx: &QueryContext,
) -> Option<Access<'s>> {
    let Expr::Compare { op, left, right } = e else {
        return None;
    };
    let (Expr::Column(a), Expr::Column(b)) = (&**left, &**right) else {
        return None;
    };
    let (left, right) = (segment.column(&a.name)?, segment.column(&b.name)?);
    let (ForwardIndex::Dict(_), ForwardIndex::Dict(_)) = (left.forward(), right.forward()) else {
        return None;
    };
    if ctx.options.enable_null_handling && (left.nulls().is_some() || right.nulls().is_some()) {
        return None;
    }
    let (da, db) = (left.dictionary()?, right.dictionary()?);
    if da.data_type() != db.data_type() {
        return None;
    }
    let n = db.len();
    let runs = (0..da.len())
        .map(|id| {
            let v = da.value(id);
            let (lo, hi) = match db.insertion_point(&v) {
                Ok(i) => (i, i + 1),
                Err(i) => (i, i),
            };
            match op {
                CmpOp::Lt => (hi, n - hi),
                CmpOp::LtEq => (lo, n - lo),
                CmpOp::Gt => (0, lo),
                CmpOp::GtEq => (0, hi),
                CmpOp::Eq | CmpOp::NotEq => (lo, hi - lo),
            }
        })
        .collect();
    Some(Access::ColumnCompare {
        left,
        right,
        test: IdCompare {
            runs,
            outside: *op == CmpOp::NotEq,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Access, FilterExecutor, FilterNode, plan_filter};
    use crate::context::QueryContext;
    use planner::plan::expr::{CmpOp, ColumnRef};
    use planner::plan::{ColumnType, ExecutionOptions, Expr, FilterExpr};
    use segments::build_config::BuildConfig;
    use segments::builder::build_segment_from_rows;
    use segments::segment::ImmutableSegment;
    use segments::types::{DataType, FieldSpec, Schema, Value};

    fn col(name: &str, t: DataType) -> Box<Expr> {
        Box::new(Expr::Column(ColumnRef {
            name: name.into(),
            column_type: ColumnType::sv(t),
        }))
    }

    /// Dates as text and numbers, each pair of columns with values the other lacks, equal
    /// values and values beyond the other's range.
    #[test]
    fn id_comparisons_keep_what_value_comparisons_keep() {
        let dir = tempfile::tempdir().unwrap();
        let schema = Schema {
            schema_name: "t".into(),
            fields: vec![
                FieldSpec::dimension("c", DataType::String),
                FieldSpec::dimension("r", DataType::String),
                FieldSpec::dimension("x", DataType::Long),
                FieldSpec::dimension("y", DataType::Long),
            ],
            ..Schema::default()
        };
        let cfg = BuildConfig::new("t", "t_0");
        let day = |d: i64| format!("1995-{:02}-{:02}", 1 + d / 28 % 12, 1 + d % 28);
        let rows: Vec<(String, String, i64, i64)> = (0..3000i64)
            .map(|i| {
                (
                    day(i * 7 % 97),
                    day(i * 13 % 89 + 5),
                    i % 50,
                    (i * 31) % 70 - 10,
                )
            })
            .collect();
        let built = build_segment_from_rows(
            &schema,
            &cfg,
            rows.iter().map(|(c, r, x, y)| {
                Ok(vec![
                    Value::String(c.clone()),
                    Value::String(r.clone()),
                    Value::Long(*x),
                    Value::Long(*y),
                ])
            }),
            dir.path(),
        )
        .unwrap();
        let segment = ImmutableSegment::open(&built.segment_dir).unwrap();
        let ctx = QueryContext::new(ExecutionOptions::default());
        for op in [
            CmpOp::Lt,
            CmpOp::LtEq,
            CmpOp::Gt,
            CmpOp::GtEq,
            CmpOp::Eq,
            CmpOp::NotEq,
        ] {
            let holds = |o: std::cmp::Ordering| match op {
                CmpOp::Lt => o.is_lt(),
                CmpOp::LtEq => o.is_le(),
                CmpOp::Gt => o.is_gt(),
                CmpOp::GtEq => o.is_ge(),
                CmpOp::Eq => o.is_eq(),
                CmpOp::NotEq => o.is_ne(),
            };
            for (a, b, t) in [("c", "r", DataType::String), ("x", "y", DataType::Long)] {
                let f = FilterExpr::Expr(Expr::Compare {
                    op,
                    left: col(a, t),
                    right: col(b, t),
                });
                let node = plan_filter(Some(&f), &segment, &ctx).unwrap();
                assert!(
                    matches!(&node, FilterNode::Leaf(l) if matches!(l.access, Access::ColumnCompare { .. })),
                    "{op:?} on {a}, {b} is answered on ids"
                );
                let got: Vec<u32> = FilterExecutor::new(&segment, &ctx)
                    .run(&node)
                    .unwrap()
                    .to_bitmap()
                    .iter()
                    .collect();
                let want: Vec<u32> = rows
                    .iter()
                    .enumerate()
                    .filter(|(_, (c, r, x, y))| holds(if a == "c" { c.cmp(r) } else { x.cmp(y) }))
                    .map(|(i, _)| i as u32)
                    .collect();
                assert_eq!(got, want, "{op:?} on {a}, {b}");
            }
        }
    }
}
