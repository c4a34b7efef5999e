//! Expressions over a [`DataBlock`] above the leaf stage, where rows have no table columns —
//! only the stage's inputs: [`evaluate`] a whole column at a time (the block as the shared
//! evaluator [`crate::vectorised`] reads it: inputs are its leaves, an expression over one
//! coded input is evaluated once per entry of its book), [`selected`] rows of a condition,
//! [`eval_on`] one row of a row-oriented input.

use super::block::{Cells, Column, DataBlock};
use crate::code_book::CodeBook;
use crate::error::EngineError;
use crate::morsels::{map_morsels, morsels};
use crate::per_entry;
use crate::vectorised::{self, Batch, Vector};
use planner::plan::Expr;
use planner::plan::eval::{EvalError, RowSource, eval};
use planner::plan::expr::ColumnRef;
use segments::types::{DataType, Value};
use std::borrow::Cow;
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

/// `expr` over every row of `block` ([`crate::vectorised::evaluate`]).
pub fn evaluate(expr: &Expr, block: &DataBlock) -> Result<Column, EngineError> {
    vectorised::evaluate(expr, block).map(Cow::into_owned)
}

impl Vector for Column {
    fn data_type(&self) -> DataType {
        self.data_type
    }
    fn numbers(&self) -> Option<Cow<'_, [f64]>> {
        Column::numbers(self)
    }
    fn integers(&self) -> Option<&[i64]> {
        match &self.cells {
            Cells::I64(v) => Some(v),
            _ => None,
        }
    }
    fn nulls(&self) -> Option<Cow<'_, [bool]>> {
        self.nulls.as_deref().map(Cow::Borrowed)
    }
    fn value(&self, row: usize) -> Value {
        Column::value(self, row)
    }
    fn unboxed_integers(data_type: DataType, values: Vec<i64>, nulls: Option<Vec<bool>>) -> Self {
        Column {
            cells: Cells::I64(values),
            data_type,
            nulls,
        }
    }
    fn unboxed_doubles(data_type: DataType, values: Vec<f64>, nulls: Option<Vec<bool>>) -> Self {
        Column {
            cells: Cells::F64(values),
            data_type,
            nulls,
        }
    }
    fn boxed(data_type: DataType, values: Vec<Value>) -> Self {
        Column::from_values(data_type, values)
    }
    fn constant(data_type: DataType, value: &Value, n: usize) -> Self {
        Column::constant(data_type, value, n)
    }
}

/// A stage's block: its leaves are the stage's inputs.
impl Batch for DataBlock {
    type Vector = Column;
    fn rows(&self) -> usize {
        self.num_rows
    }
    fn leaf(&self, expr: &Expr) -> Option<Result<Cow<'_, Column>, EngineError>> {
        let Expr::Input(r) = expr else {
            return None;
        };
        Some(
            self.columns.get(r.index).map(Cow::Borrowed).ok_or_else(|| {
                EngineError::execution(format!("input {} is out of range", r.index))
            }),
        )
    }
    fn per_entry(&self, expr: &Expr) -> Option<Column> {
        per_code(expr, self)
    }
    fn eval_row(&self, expr: &Expr, row: usize) -> Result<Value, EvalError> {
        eval(expr, &BlockRow { block: self, row })
    }
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

/// The rows of `block` for which `condition` is TRUE.
///
/// A large block whose condition reads only number columns is tested a morsel per pool thread,
/// each on a block of its slice of those columns (a condition over coded text is evaluated once
/// per entry of the text's book, which every morsel would repeat).
pub(super) fn selected(condition: &Expr, block: &DataBlock) -> Result<Vec<u32>, EngineError> {
    let mut reads = vec![false; block.columns.len()];
    let mut numbers = true;
    condition.visit(&mut |e| {
        if let Expr::Input(i) = e {
            match block.columns.get(i.index) {
                Some(c) if matches!(c.cells, Cells::I64(_) | Cells::F64(_)) => {
                    reads[i.index] = true
                }
                _ => numbers = false,
            }
        }
    });
    if !numbers || morsels(block.num_rows).len() < 2 {
        return selected_in(condition, block);
    }
    let kept = map_morsels(block.num_rows, |rows| {
        let start = rows.start as u32;
        let kept = selected_in(condition, &block.morsel_of(&reads, rows))?;
        Ok::<_, EngineError>(kept.into_iter().map(|k| k + start).collect::<Vec<u32>>())
    });
    let mut all = Vec::new();
    for k in kept {
        all.extend(k?);
    }
    Ok(all)
}

/// [`selected`] in one pass over the whole block.
fn selected_in(condition: &Expr, block: &DataBlock) -> Result<Vec<u32>, EngineError> {
    let c = vectorised::evaluate(condition, block)?;
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
    /// A number condition over a large block on a pool of three keeps the rows one pass keeps,
    /// in order; one over coded text too (in one pass).
    #[test]
    fn large_blocks_are_tested_in_morsels_as_in_one_pass() {
        let rows = crate::morsels::MIN_MORSEL_ROWS * 5 + 7;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let sums: Vec<Value> = (0..rows)
            .map(|i| match i % 13 {
                0 => Value::Null,
                _ => Value::Double((i * 37 % 1000) as f64),
            })
            .collect();
        let keys: Vec<Value> = (0..rows).map(|i| Value::Long(i as i64)).collect();
        let book = CodeBook::from_values((0..7).map(|t| Value::String(format!("t{t}"))).collect());
        let text = Column {
            cells: Cells::Coded {
                ids: (0..rows as u32).map(|i| i % 7).collect(),
                dict: Arc::new(book),
            },
            data_type: DataType::String,
            nulls: None,
        };
        let block = DataBlock::new(
            vec![
                Column::from_values(DataType::Long, keys),
                Column::from_values(DataType::Double, sums),
                text,
            ],
            rows,
        );
        let over = |op, left: Box<Expr>, value: Value| Expr::Compare {
            op,
            left,
            right: Box::new(Expr::literal(value)),
        };
        let conditions = [
            over(CmpOp::Gt, input(1, DataType::Double), Value::Double(300.0)),
            Expr::And(vec![
                over(CmpOp::Gt, input(1, DataType::Double), Value::Double(300.0)),
                over(
                    CmpOp::Lt,
                    input(0, DataType::Long),
                    Value::Long(rows as i64 / 2),
                ),
            ]),
            over(
                CmpOp::Eq,
                input(2, DataType::String),
                Value::String("t3".into()),
            ),
        ];
        assert!(pool.install(|| morsels(rows).len()) > 1);
        for c in &conditions {
            let one = selected_in(c, &block).unwrap();
            assert!(!one.is_empty() && one.len() < rows);
            let rows_kept: Vec<u32> = (0..rows)
                .filter(|&row| {
                    eval(c, &BlockRow { block: &block, row }).unwrap() == Value::Boolean(true)
                })
                .map(|r| r as u32)
                .collect();
            assert_eq!(one, rows_kept);
            assert_eq!(pool.install(|| selected(c, &block)).unwrap(), one, "{c:?}");
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

    /// A floating column cast to an integer type agrees with the row evaluator — toward zero,
    /// saturating, NaN 0, NULL kept — and stays unboxed.
    #[test]
    fn floating_numbers_cast_to_integers_as_rows_do() {
        let values = [
            Value::Double(2.9),
            Value::Double(-2.9),
            Value::Null,
            Value::Double(f64::NAN),
            Value::Double(1e300),
            Value::Double(f64::NEG_INFINITY),
            Value::Double(-0.0),
        ];
        let block = DataBlock::new(
            vec![Column::from_values(DataType::Double, values.to_vec())],
            values.len(),
        );
        for to in [DataType::Long, DataType::Int] {
            let cast = Expr::Cast {
                expr: input(0, DataType::Double),
                to,
            };
            let c = agrees(&cast, &block);
            assert!(matches!(c.cells, Cells::I64(_)), "{to:?} unboxed");
        }
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
