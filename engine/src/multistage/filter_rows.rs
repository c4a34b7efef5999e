//! [`kept_rows`]: the rows of a [`DataBlock`] an aggregate's `FILTER (WHERE …)` keeps, for
//! aggregations over joined rows (a leaf stage's aggregation filters inside its v1 plan).
//!
//! The filter is the v1 binder's [`FilterExpr`] with its columns turned into the block's inputs.
//! It is evaluated in SQL's three-valued logic — a predicate over a NULL is unknown, `NOT`
//! unknown is unknown, and only rows where the filter is true are kept — as the v1 filter
//! treats a NULL (a LEFT join's missing side reads NULL, and so does a column with null
//! handling on).

use super::block::DataBlock;
use super::evaluate::evaluate;
use crate::error::EngineError;
use crate::operator::filter::value_test::{ValueTest, positive_form};
use planner::plan::eval::truth;
use planner::plan::{FilterExpr, PredicateOp};

/// The positions of the rows of `block` that `filter` keeps, in order.
pub fn kept_rows(filter: &FilterExpr, block: &DataBlock) -> Result<Vec<u32>, EngineError> {
    Ok(truths(filter, block)?
        .into_iter()
        .enumerate()
        .filter(|(_, t)| *t == Some(true))
        .map(|(r, _)| r as u32)
        .collect())
}

/// Per row: true, false, or unknown (`None`).
fn truths(filter: &FilterExpr, block: &DataBlock) -> Result<Vec<Option<bool>>, EngineError> {
    let n = block.num_rows;
    Ok(match filter {
        FilterExpr::Constant(b) => vec![Some(*b); n],
        FilterExpr::Not(inner) => truths(inner, block)?
            .into_iter()
            .map(|t| t.map(|b| !b))
            .collect(),
        FilterExpr::And(parts) => combine(parts, block, false)?,
        FilterExpr::Or(parts) => combine(parts, block, true)?,
        FilterExpr::Expr(e) => {
            let column = evaluate(e, block)?;
            (0..n).map(|r| truth(&column.value(r))).collect()
        }
        FilterExpr::Predicate(p) => {
            let column = evaluate(&p.lhs, block)?;
            let (positive, negated) = positive_form(&p.op);
            let positive = &*positive;
            if *positive == PredicateOp::IsNull {
                return Ok((0..n).map(|r| Some(column.is_null(r) != negated)).collect());
            }
            let test = ValueTest::new(positive)?;
            (0..n)
                .map(|r| {
                    let v = column.value(r);
                    (!v.is_null()).then(|| test.test(&v) != negated)
                })
                .collect()
        }
    })
}

/// `AND` (`any_true` false) or `OR` (`any_true` true) of the parts: a part equal to
/// `any_true` decides the row, else an unknown part makes it unknown.
fn combine(
    parts: &[FilterExpr],
    block: &DataBlock,
    any_true: bool,
) -> Result<Vec<Option<bool>>, EngineError> {
    let mut out = vec![Some(!any_true); block.num_rows];
    for part in parts {
        for (o, t) in out.iter_mut().zip(truths(part, block)?) {
            *o = match (*o, t) {
                (Some(decided), _) if decided == any_true => Some(decided),
                (_, Some(decided)) if decided == any_true => Some(decided),
                (None, _) | (_, None) => None,
                _ => Some(!any_true),
            };
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::plan::expr::InputRef;
    use planner::plan::{ColumnType, Expr, Predicate};
    use segments::types::{DataType, Value};

    fn block() -> DataBlock {
        DataBlock::from_rows(
            vec![
                vec![Value::Int(1), Value::String("a".into())],
                vec![Value::Null, Value::String("b".into())],
                vec![Value::Int(3), Value::Null],
                vec![Value::Int(4), Value::String("a".into())],
            ],
            &[DataType::Int, DataType::String],
        )
    }

    fn pred(index: usize, data_type: DataType, op: PredicateOp) -> FilterExpr {
        FilterExpr::Predicate(Predicate {
            lhs: Expr::Input(InputRef {
                index,
                name: format!("c{index}"),
                column_type: ColumnType::sv(data_type),
            }),
            op,
        })
    }

    #[test]
    fn keeps_only_rows_where_the_filter_is_true() {
        let b = block();
        let gt1 = || {
            pred(
                0,
                DataType::Int,
                PredicateOp::Range {
                    lower: Some(planner::plan::RangeBound::exclusive(Value::Int(1))),
                    upper: None,
                },
            )
        };
        let is_a = || {
            pred(
                1,
                DataType::String,
                PredicateOp::Eq(Value::String("a".into())),
            )
        };
        assert_eq!(kept_rows(&gt1(), &b).unwrap(), vec![2, 3]);
        // NOT over a NULL stays unknown: row 1 is not kept by either side.
        let not = FilterExpr::Not(Box::new(gt1()));
        assert_eq!(kept_rows(&not, &b).unwrap(), vec![0]);
        let ne = pred(
            1,
            DataType::String,
            PredicateOp::NotEq(Value::String("a".into())),
        );
        assert_eq!(kept_rows(&ne, &b).unwrap(), vec![1]);
        // OR: a true part decides over an unknown one; AND: a false part does.
        let or = FilterExpr::Or(vec![gt1(), is_a()]);
        assert_eq!(kept_rows(&or, &b).unwrap(), vec![0, 2, 3]);
        let and = FilterExpr::And(vec![gt1(), is_a()]);
        assert_eq!(kept_rows(&and, &b).unwrap(), vec![3]);
        let not_and = FilterExpr::Not(Box::new(FilterExpr::And(vec![gt1(), is_a()])));
        // Row 1: unknown AND false = false, negated true; row 2: true AND unknown = unknown.
        assert_eq!(kept_rows(&not_and, &b).unwrap(), vec![0, 1]);
        let null = pred(0, DataType::Int, PredicateOp::IsNull);
        assert_eq!(kept_rows(&null, &b).unwrap(), vec![1]);
        let not_null = pred(1, DataType::String, PredicateOp::IsNotNull);
        assert_eq!(kept_rows(&not_null, &b).unwrap(), vec![0, 1, 3]);
    }
}
