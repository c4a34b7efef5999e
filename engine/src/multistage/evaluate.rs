//! Expressions over a [`DataBlock`] above the leaf stage, where rows have no table columns —
//! only the stage's inputs: [`evaluate`] a whole column at a time (arithmetic on unboxed numbers
//! in one pass, anything else row by row through the planner's evaluator, a morsel of rows per
//! pool thread), [`selected`] rows of
//! a condition, [`eval_on`] one row of a row-oriented input.

use super::block::{Cells, Column, DataBlock};
use super::logic;
use crate::code_book::CodeBook;
use crate::error::EngineError;
use crate::per_entry;
use planner::plan::Expr;
use planner::plan::eval::{EvalError, RowSource, arith, eval};
use planner::plan::expr::{ArithOp, CmpOp, ColumnRef};
use segments::types::{DataType, Value};
use std::collections::HashMap;
use std::sync::Arc;

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
            if let (Some(a), Some(b)) = (l.numbers(), r.numbers()) {
                let values = a
                    .iter()
                    .zip(b.iter())
                    .map(|(x, y)| arith(*op, *x, *y))
                    .collect();
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
        _ => {}
    }
    // One coded input: once per entry of its book.
    if let Some(c) = per_code(expr, block) {
        return Ok(c);
    }
    // Children that fail are left to the row evaluator, which evaluates only those a row's
    // value depends on (a CASE branch its condition guards).
    let all = |parts: &[&Expr]| -> Option<Vec<Column>> {
        parts.iter().map(|p| evaluate(p, block).ok()).collect()
    };
    let vectorised = match expr {
        Expr::Compare { op, left, right } => {
            let (l, r) = (evaluate(left, block)?, evaluate(right, block)?);
            compare_numbers(*op, &l, &r, n)
        }
        Expr::And(parts) | Expr::Or(parts) => all(&parts.iter().collect::<Vec<_>>())
            .and_then(|c| logic::junction(matches!(expr, Expr::And(_)), &c, n)),
        Expr::Not(e) => all(&[e]).and_then(|c| logic::not(&c[0], n)),
        Expr::Case {
            branches,
            else_result,
            return_type,
        } => {
            let conditions = all(&branches.iter().map(|(c, _)| c).collect::<Vec<_>>());
            let values = all(&branches.iter().map(|(_, v)| v).collect::<Vec<_>>());
            let otherwise = all(&[else_result]);
            match (conditions, values, otherwise) {
                (Some(c), Some(v), Some(o)) => logic::case(&c, &v, &o[0], return_type.data_type, n),
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(c) = vectorised {
        return Ok(c);
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

/// `expr` over the rows of its one coded input, evaluated once per entry of the input's book
/// ([`crate::per_entry`]) when the book has no more entries than the block has rows: text
/// results coded again (deduplicated into a book of their own), others as values.
fn per_code(expr: &Expr, block: &DataBlock) -> Option<Column> {
    if matches!(expr, Expr::Input(_) | Expr::Literal { .. }) {
        return None;
    }
    let per_entry::Source::Input(index) = per_entry::single_source(expr)? else {
        return None;
    };
    let column = block.columns.get(index)?;
    let Cells::Coded { ids, dict } = &column.cells else {
        return None;
    };
    let n = block.num_rows;
    if dict.len() > n {
        return None;
    }
    let results = per_entry::results(expr, dict.iter())?;
    let null = results.len() - 1;
    let entry = |i: usize| match column.nulls.as_ref().is_some_and(|f| f[i]) {
        true => null,
        false => (ids[i] as usize).min(null),
    };
    let data_type = expr.column_type().data_type;
    let text = |v: &Value| matches!(v, Value::String(_) | Value::Null);
    if data_type != DataType::String || !results.iter().all(text) {
        return Some(Column::from_values(
            data_type,
            (0..n).map(|i| results[entry(i)].clone()).collect(),
        ));
    }
    // Equal results share a code: a coded column's distinct codes are distinct values.
    let mut book: Vec<Value> = Vec::new();
    let mut codes: HashMap<&str, u32> = HashMap::new();
    let recoded: Vec<Option<u32>> = results
        .iter()
        .map(|v| match v {
            Value::String(s) => Some(*codes.entry(s.as_str()).or_insert_with(|| {
                book.push(v.clone());
                book.len() as u32 - 1
            })),
            _ => None,
        })
        .collect();
    let nulls: Vec<bool> = (0..n).map(|i| recoded[entry(i)].is_none()).collect();
    Some(Column {
        cells: Cells::Coded {
            ids: (0..n).map(|i| recoded[entry(i)].unwrap_or(0)).collect(),
            dict: Arc::new(CodeBook::from_values(book)),
        },
        data_type,
        nulls: nulls.contains(&true).then_some(nulls),
    })
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
            ArithOp::Mod if *y == 0 && !nulls.is_some_and(|n| n[i]) => {
                return Err(EngineError::execution("division by zero"));
            }
            // Java's remainder: `MIN % -1` is 0.
            ArithOp::Mod => (*y != 0).then(|| x.wrapping_rem(*y)),
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
            let (a, b) = (l.numbers()?, r.numbers()?);
            a.iter()
                .zip(b.iter())
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
    use planner::plan::expr::CmpOp;
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
    fn boolean_block() -> DataBlock {
        let b = |v: Option<bool>| v.map_or(Value::Null, Value::Boolean);
        let t = [Some(true), Some(false), None];
        // Every pair of TRUE/FALSE/NULL, a text column coded (with a NULL row), a double.
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for a in t {
            for c in t {
                x.push(b(a));
                y.push(b(c));
            }
        }
        let words = ["ab", "ac", "ab", "b", "ac", "b", "ab", "ac", "ab"];
        let book = CodeBook::from_values(vec![
            Value::String("ab".into()),
            Value::String("ac".into()),
            Value::String("b".into()),
        ]);
        let ids: Vec<u32> = words
            .iter()
            .map(|w| ["ab", "ac", "b"].iter().position(|x| x == w).unwrap() as u32)
            .collect();
        let mut nulls = vec![false; 9];
        nulls[4] = true;
        let coded = Column {
            cells: Cells::Coded {
                ids,
                dict: Arc::new(book),
            },
            data_type: DataType::String,
            nulls: Some(nulls),
        };
        let doubles = (0..9)
            .map(|i| match i {
                5 => Value::Null,
                _ => Value::Double(i as f64 - 2.5),
            })
            .collect();
        let texts = ["1", "x", "2", "3", "x", "4", "5", "6", "x"]
            .map(|t| Value::String(t.into()))
            .to_vec();
        DataBlock::new(
            vec![
                Column::from_values(DataType::Boolean, x),
                Column::from_values(DataType::Boolean, y),
                coded,
                Column::from_values(DataType::Double, doubles),
                Column::from_values(DataType::String, texts),
            ],
            9,
        )
    }

    fn agrees(e: &Expr, block: &DataBlock) -> Column {
        let fast = evaluate(e, block).unwrap();
        for row in 0..block.num_rows {
            let slow = eval(e, &BlockRow { block, row }).unwrap();
            assert_eq!(fast.value(row), slow, "{e:?} row {row}");
        }
        fast
    }

    /// AND, OR, NOT and CASE over whole columns agree with the row evaluator on every
    /// TRUE/FALSE/NULL combination, and stay unboxed.
    #[test]
    fn logic_and_case_agree_with_the_row_evaluator() {
        let block = boolean_block();
        let (x, y) = (input(0, DataType::Boolean), input(1, DataType::Boolean));
        for e in [
            Expr::And(vec![*x.clone(), *y.clone()]),
            Expr::Or(vec![*x.clone(), *y.clone()]),
            Expr::Not(x.clone()),
        ] {
            let c = agrees(&e, &block);
            assert!(matches!(c.cells, Cells::I64(_)), "{e:?} unboxed");
        }
        let case = Expr::Case {
            branches: vec![
                (*x.clone(), *input(3, DataType::Double)),
                (*y.clone(), Expr::literal(Value::Int(7))),
            ],
            else_result: Box::new(Expr::literal(Value::Double(-1.0))),
            return_type: ColumnType::sv(DataType::Double),
        };
        assert!(matches!(agrees(&case, &block).cells, Cells::F64(_)));
        let texts = Expr::Case {
            branches: vec![(*x.clone(), Expr::literal(Value::String("t".into())))],
            else_result: input(2, DataType::String),
            return_type: ColumnType::sv(DataType::String),
        };
        agrees(&texts, &block);
    }

    /// A branch that fails on rows its condition does not choose leaves the CASE to the row
    /// evaluator, which never evaluates it there.
    #[test]
    fn a_guarded_failure_is_not_raised() {
        let block = boolean_block();
        let text = input(4, DataType::String);
        let guarded = Expr::Case {
            branches: vec![(
                Expr::And(vec![
                    *input(0, DataType::Boolean),
                    Expr::Compare {
                        op: CmpOp::NotEq,
                        left: text.clone(),
                        right: Box::new(Expr::literal(Value::String("x".into()))),
                    },
                ]),
                Expr::Cast {
                    expr: text,
                    to: DataType::Int,
                },
            )],
            else_result: Box::new(Expr::literal(Value::Int(0))),
            return_type: ColumnType::sv(DataType::Int),
        };
        agrees(&guarded, &block);
    }

    /// An expression over one coded input is evaluated per entry: equal to the row evaluator,
    /// NULL rows included, text results coded again with equal values sharing a code.
    #[test]
    fn one_coded_input_per_entry() {
        let block = boolean_block();
        let word = input(2, DataType::String);
        let eq = |w: &str| Expr::Compare {
            op: CmpOp::Eq,
            left: word.clone(),
            right: Box::new(Expr::literal(Value::String(w.into()))),
        };
        let c = agrees(&Expr::Or(vec![eq("ab"), eq("b")]), &block);
        assert!(matches!(c.cells, Cells::I64(_)));
        let first = Expr::Call {
            name: "substr".into(),
            args: vec![
                *word.clone(),
                Expr::literal(Value::Int(0)),
                Expr::literal(Value::Int(1)),
            ],
            return_type: ColumnType::sv(DataType::String),
        };
        let c = agrees(&first, &block);
        let Cells::Coded { dict, .. } = &c.cells else {
            panic!("coded: {c:?}")
        };
        assert_eq!(dict.len(), 2, "'ab' and 'ac' share 'a'");
    }
}
