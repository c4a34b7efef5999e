//! Expressions over a [`DataBlock`] above the leaf stage, where rows have no table columns —
//! only the stage's inputs: [`evaluate`] a whole column at a time (arithmetic on unboxed numbers
//! in one pass, anything else row by row through the planner's evaluator, a morsel of rows per
//! pool thread), [`selected`] rows of
//! a condition, [`eval_on`] one row of a row-oriented input.

use super::block::{Cells, Column, DataBlock};
use crate::error::EngineError;
use planner::plan::Expr;
use planner::plan::eval::{EvalError, RowSource, arith, eval};
use planner::plan::expr::{ArithOp, CmpOp, ColumnRef};
use segments::types::{DataType, Value};

/// One row of a row-oriented input.
struct RowView<'a>(&'a [Value]);

fn outside_leaf(column: &ColumnRef) -> EvalError {
    EvalError(format!(
        "column '{}' read outside a leaf stage",
        column.name
    ))
}

impl RowSource for RowView<'_> {
    fn column(&self, column: &ColumnRef) -> Result<Value, EvalError> {
        Err(outside_leaf(column))
    }
    fn input(&self, index: usize) -> Result<Value, EvalError> {
        self.0
            .get(index)
            .cloned()
            .ok_or_else(|| EvalError(format!("input {index} is out of range")))
    }
}

/// One row of a block.
struct BlockRow<'a> {
    block: &'a DataBlock,
    row: usize,
}

impl RowSource for BlockRow<'_> {
    fn column(&self, column: &ColumnRef) -> Result<Value, EvalError> {
        Err(outside_leaf(column))
    }
    fn input(&self, index: usize) -> Result<Value, EvalError> {
        self.block
            .columns
            .get(index)
            .map(|c| c.value(self.row))
            .ok_or_else(|| EvalError(format!("input {index} is out of range")))
    }
}

pub(super) fn eval_on(expr: &Expr, row: &[Value]) -> Result<Value, EngineError> {
    eval(expr, &RowView(row)).map_err(|e| EngineError::execution(e.0))
}

/// The numbers of a numeric column, if it holds unboxed ones.
fn numbers(c: &Column) -> Option<Vec<f64>> {
    if !matches!(
        c.data_type,
        DataType::Int | DataType::Long | DataType::Float | DataType::Double
    ) {
        return None;
    }
    match &c.cells {
        Cells::I64(v) => Some(v.iter().map(|&x| x as f64).collect()),
        Cells::F64(v) => Some(v.clone()),
        _ => None,
    }
}

/// `expr` over every row of `block`.
pub fn evaluate(expr: &Expr, block: &DataBlock) -> Result<Column, EngineError> {
    let n = block.num_rows;
    match expr {
        Expr::Input(r) => {
            return block.columns.get(r.index).cloned().ok_or_else(|| {
                EngineError::execution(format!("input {} is out of range", r.index))
            });
        }
        Expr::Literal { value, .. } => {
            return Ok(Column::constant(expr.column_type().data_type, value, n));
        }
        Expr::Arith {
            op,
            left,
            right,
            return_type,
        } if return_type.data_type == DataType::Double => {
            let (l, r) = (evaluate(left, block)?, evaluate(right, block)?);
            if let (Some(a), Some(b)) = (numbers(&l), numbers(&r)) {
                let values = a.iter().zip(&b).map(|(x, y)| arith(*op, *x, *y)).collect();
                let nulls = crate::block::either_null(l.nulls.as_deref(), r.nulls.as_deref(), n);
                return Ok(Column {
                    cells: Cells::F64(values),
                    data_type: DataType::Double,
                    nulls,
                });
            }
        }
        Expr::Arith {
            op,
            left,
            right,
            return_type,
        } if matches!(return_type.data_type, DataType::Int | DataType::Long) => {
            let (l, r) = (evaluate(left, block)?, evaluate(right, block)?);
            if let (Cells::I64(a), Cells::I64(b)) = (&l.cells, &r.cells) {
                let nulls = crate::block::either_null(l.nulls.as_deref(), r.nulls.as_deref(), n);
                let values = exact_integers(*op, a, b, return_type.data_type, nulls.as_deref())?;
                return Ok(Column {
                    cells: Cells::I64(values),
                    data_type: return_type.data_type,
                    nulls,
                });
            }
        }
        Expr::Compare { op, left, right } => {
            let (l, r) = (evaluate(left, block)?, evaluate(right, block)?);
            if let Some(c) = compare_numbers(*op, &l, &r, n) {
                return Ok(c);
            }
        }
        _ => {}
    }
    let morsels = super::morsels::map_morsels(n, |rows| {
        rows.map(|row| eval(expr, &BlockRow { block, row }))
            .collect::<Result<Vec<Value>, EvalError>>()
    });
    let mut values = Vec::with_capacity(n);
    for m in morsels {
        values.extend(m.map_err(|e| EngineError::execution(e.0))?);
    }
    Ok(Column::from_values(expr.column_type().data_type, values))
}

/// `a op b` over integer cells typed INT or LONG (the multi-stage engine's integer `+`, `-`,
/// `*`), exactly; a result out of the type's range on a non-NULL row is Java's "integer
/// overflow" / "long overflow".
fn exact_integers(
    op: ArithOp,
    a: &[i64],
    b: &[i64],
    data_type: DataType,
    nulls: Option<&[bool]>,
) -> Result<Vec<i64>, EngineError> {
    let (lo, hi, what) = match data_type {
        DataType::Int => (i64::from(i32::MIN), i64::from(i32::MAX), "integer overflow"),
        _ => (i64::MIN, i64::MAX, "long overflow"),
    };
    let mut out = Vec::with_capacity(a.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let v = match op {
            ArithOp::Add => x.checked_add(*y),
            ArithOp::Sub => x.checked_sub(*y),
            ArithOp::Mul => x.checked_mul(*y),
            ArithOp::Div => x.checked_div(*y),
            ArithOp::Mod => x.checked_rem(*y),
        };
        match v {
            Some(v) if (lo..=hi).contains(&v) => out.push(v),
            _ if nulls.is_some_and(|n| n[i]) => out.push(0),
            _ => return Err(EngineError::execution(what)),
        }
    }
    Ok(out)
}

/// `l op r` row by row over unboxed numbers (Q18's `HAVING SUM(l_quantity) > 300` over 1.5 M
/// groups): integers exactly, anything with a floating side as doubles; `None` when a side is
/// not unboxed numbers or holds a NaN (the row evaluator's ordering decides then).
fn compare_numbers(op: CmpOp, l: &Column, r: &Column, n: usize) -> Option<Column> {
    let holds = |o: Option<std::cmp::Ordering>| o.map(|o| i64::from(op.holds(o)));
    let cells: Option<Vec<i64>> = match (&l.cells, &r.cells) {
        (Cells::I64(a), Cells::I64(b)) => Some(
            a.iter()
                .zip(b)
                .map(|(x, y)| i64::from(op.holds(x.cmp(y))))
                .collect(),
        ),
        _ => {
            let (a, b) = (numbers(l)?, numbers(r)?);
            a.iter()
                .zip(&b)
                .map(|(x, y)| holds(x.partial_cmp(y)))
                .collect()
        }
    };
    Some(Column {
        cells: Cells::I64(cells?),
        data_type: DataType::Boolean,
        nulls: crate::block::either_null(l.nulls.as_deref(), r.nulls.as_deref(), n),
    })
}

/// The rows of `block` for which `condition` is TRUE.
pub(super) fn selected(condition: &Expr, block: &DataBlock) -> Result<Vec<u32>, EngineError> {
    let c = evaluate(condition, block)?;
    if let (Cells::I64(v), DataType::Boolean) = (&c.cells, c.data_type) {
        let null = |i: usize| c.nulls.as_ref().is_some_and(|n| n[i]);
        return Ok((0..block.num_rows)
            .filter(|&i| v[i] != 0 && !null(i))
            .map(|i| i as u32)
            .collect());
    }
    Ok((0..block.num_rows)
        .filter(|&i| c.value(i) == Value::Boolean(true))
        .map(|i| i as u32)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::plan::{ColumnType, InputRef};

    fn input(index: usize, t: DataType) -> Box<Expr> {
        Box::new(Expr::Input(InputRef {
            index,
            name: format!("${index}"),
            column_type: ColumnType::sv(t),
        }))
    }

    /// The unboxed comparison agrees with the row evaluator, NULLs, negative zero and
    /// integers past 2^53 included.
    #[test]
    fn numeric_comparisons_agree_with_the_row_evaluator() {
        let longs = vec![
            Value::Long(1),
            Value::Null,
            Value::Long(i64::MAX),
            Value::Long(i64::MAX - 1),
            Value::Long(-3),
        ];
        let other = vec![
            Value::Long(1),
            Value::Long(2),
            Value::Long(i64::MAX - 1),
            Value::Long(i64::MAX),
            Value::Long(-4),
        ];
        let doubles = vec![
            Value::Double(-0.0),
            Value::Double(1.5),
            Value::Null,
            Value::Double(2.0),
            Value::Double(-7.0),
        ];
        let block = DataBlock::new(
            vec![
                Column::from_values(DataType::Long, longs),
                Column::from_values(DataType::Long, other),
                Column::from_values(DataType::Double, doubles),
            ],
            5,
        );
        for op in [
            CmpOp::Eq,
            CmpOp::NotEq,
            CmpOp::Lt,
            CmpOp::LtEq,
            CmpOp::Gt,
            CmpOp::GtEq,
        ] {
            for (a, b) in [(0, 1), (0, 2), (2, 0), (1, 2)] {
                let t = |i| {
                    if i == 2 {
                        DataType::Double
                    } else {
                        DataType::Long
                    }
                };
                let e = Expr::Compare {
                    op,
                    left: input(a, t(a)),
                    right: input(b, t(b)),
                };
                let fast = evaluate(&e, &block).unwrap();
                assert!(matches!(fast.cells, Cells::I64(_)), "{op:?} unboxed");
                for row in 0..5 {
                    let slow = eval(&e, &BlockRow { block: &block, row }).unwrap();
                    assert_eq!(fast.value(row), slow, "{op:?} ${a} ${b} row {row}");
                }
            }
        }
    }
}
