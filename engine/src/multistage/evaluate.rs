//! Expressions over a [`DataBlock`] above the leaf stage, where rows have no table columns —
//! only the stage's inputs: [`evaluate`] a whole column at a time (arithmetic on unboxed numbers
//! in one pass, anything else row by row through the planner's evaluator), [`selected`] rows of
//! a condition, [`eval_on`] one row of a row-oriented input.

use super::block::{Cells, Column, DataBlock};
use crate::error::EngineError;
use planner::plan::Expr;
use planner::plan::eval::{EvalError, RowSource, arith, eval};
use planner::plan::expr::ColumnRef;
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
        _ => {}
    }
    let mut values = Vec::with_capacity(n);
    for row in 0..n {
        values.push(eval(expr, &BlockRow { block, row }).map_err(|e| EngineError::execution(e.0))?);
    }
    Ok(Column::from_values(expr.column_type().data_type, values))
}

/// The rows of `block` for which `condition` is TRUE.
pub(super) fn selected(condition: &Expr, block: &DataBlock) -> Result<Vec<u32>, EngineError> {
    let c = evaluate(condition, block)?;
    Ok((0..block.num_rows)
        .filter(|&i| c.value(i) == Value::Boolean(true))
        .map(|i| i as u32)
        .collect())
}
