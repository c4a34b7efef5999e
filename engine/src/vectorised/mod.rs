//! The one expression evaluator of both engines: a bound [`Expr`] over a batch of rows, a
//! column at a time, so a function's or an operator's semantics live in one place.
//!
//! A batch is a v1 segment [`Block`](crate::block::Block) (its leaves are projected table
//! columns) or a v2 stage [`DataBlock`](crate::multistage::DataBlock) (its leaves are the
//! stage's inputs); each says through [`Batch`] how its leaves read, how an expression over one
//! dictionary-coded leaf is evaluated once per entry, and how rows read one at a time. What
//! the evaluator produces is the batch's own column type ([`Vector`]). In order, the first
//! that applies:
//!
//! 1. a leaf is the batch's column itself (borrowed, never copied);
//! 2. a literal repeats ([`Vector::constant`]: numbers unboxed);
//! 3. arithmetic over unboxed numbers runs as one loop: DOUBLE in `f64`, INT and LONG exactly
//!    (past the type's range, Java's "integer overflow" / "long overflow");
//! 4. an expression over one coded leaf is evaluated once per entry ([`crate::per_entry`]);
//! 5. comparisons of unboxed numbers, `AND`/`OR`/`NOT` of unboxed BOOLEANs and `CASE` over
//!    them run a column at a time ([`logic`]); a child that fails leaves the expression to the
//!    row evaluator, which evaluates only what a row's value depends on;
//! 6. a scalar function call evaluates its arguments a column at a time, finds its definition
//!    once, then calls it per row;
//! 7. anything else goes row by row through the planner's evaluator ([`eval`]).
//!
//! Rows evaluated one at a time are cut into morsels for the pool ([`crate::morsels`]) when
//! the batch is large (a v2 block); a v1 block (at most 10,000 documents) is one morsel.

pub mod logic;

use crate::block::either_null;
use crate::error::EngineError;
use crate::morsels::map_morsels;
use planner::plan::Expr;
use planner::plan::eval::{EvalError, arith};
use planner::plan::expr::{ArithOp, CmpOp};
use segments::types::{DataType, Value};
use std::borrow::Cow;

/// A column of a batch, as the evaluator reads and builds it.
pub trait Vector: Clone + Send + Sync {
    /// Its logical type.
    fn data_type(&self) -> DataType;
    /// Its rows as doubles, when it is numeric and holds them unboxed (or decodes them so).
    fn numbers(&self) -> Option<Cow<'_, [f64]>>;
    /// Its rows as unboxed integers (INT, LONG, TIMESTAMP, BOOLEAN as 0/1), if held so.
    fn integers(&self) -> Option<&[i64]>;
    /// Which rows are NULL, when any is.
    fn nulls(&self) -> Option<Cow<'_, [bool]>>;
    /// Row `row`'s value.
    fn value(&self, row: usize) -> Value;
    /// The same rows in a form cheap to read one at a time, when this one is not (text of a
    /// block-compressed dictionary, decoded in bulk).
    fn for_rows(&self) -> Option<Self> {
        None
    }
    /// A column of unboxed integers of type `data_type`.
    fn unboxed_integers(data_type: DataType, values: Vec<i64>, nulls: Option<Vec<bool>>) -> Self;
    /// A column of unboxed doubles of type `data_type`.
    fn unboxed_doubles(data_type: DataType, values: Vec<f64>, nulls: Option<Vec<bool>>) -> Self;
    /// A column of `values` of type `data_type`.
    fn boxed(data_type: DataType, values: Vec<Value>) -> Self;
    /// `n` copies of `value` as a column of `data_type` (numbers unboxed).
    fn constant(data_type: DataType, value: &Value, n: usize) -> Self;
}

/// Rows an expression is evaluated over.
pub trait Batch: Sync {
    type Vector: Vector;
    /// How many rows.
    fn rows(&self) -> usize;
    /// The column a leaf expression (a table column, a stage input) reads; `None` for any
    /// other expression.
    fn leaf(&self, expr: &Expr) -> Option<Result<Cow<'_, Self::Vector>, EngineError>>;
    /// `expr` over the rows of its one dictionary-coded leaf, evaluated once per entry, when
    /// it has one and that pays.
    fn per_entry(&self, expr: &Expr) -> Option<Self::Vector>;
    /// `expr` over row `row` alone, through the planner's evaluator.
    fn eval_row(&self, expr: &Expr, row: usize) -> Result<Value, EvalError>;
    /// The batch in a form cheap to read one row at a time, when this one is not.
    fn for_rows(&self) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
}

/// `expr` over every row of `batch`.
pub fn evaluate<'b, B: Batch>(
    expr: &Expr,
    batch: &'b B,
) -> Result<Cow<'b, B::Vector>, EngineError> {
    if let Some(leaf) = batch.leaf(expr) {
        return leaf;
    }
    let n = batch.rows();
    match expr {
        Expr::Literal { value, data_type } => {
            return Ok(Cow::Owned(B::Vector::constant(*data_type, value, n)));
        }
        Expr::Arith {
            op,
            left,
            right,
            return_type,
        } => {
            let (l, r) = (evaluate(left, batch)?, evaluate(right, batch)?);
            let nulls = || either_null(l.nulls().as_deref(), r.nulls().as_deref(), n);
            let t = return_type.data_type;
            if t == DataType::Double
                && let (Some(a), Some(b)) = (l.numbers(), r.numbers())
            {
                let values = a.iter().zip(b.iter()).map(|(x, y)| arith(*op, *x, *y));
                return Ok(Cow::Owned(B::Vector::unboxed_doubles(
                    t,
                    values.collect(),
                    nulls(),
                )));
            }
            if matches!(t, DataType::Int | DataType::Long)
                && let (Some(a), Some(b)) = (l.integers(), r.integers())
            {
                let nulls = nulls();
                let values = exact_integers(*op, a, b, t, nulls.as_deref())?;
                return Ok(Cow::Owned(B::Vector::unboxed_integers(t, values, nulls)));
            }
        }
        // A floating number to an integer: Java's narrowing (toward zero, saturating, NaN 0),
        // as `Value::cast` does it.
        Expr::Cast {
            expr: inner,
            to: to @ (DataType::Long | DataType::Int),
        } => {
            let v = evaluate(inner, batch)?;
            if matches!(v.data_type(), DataType::Double | DataType::Float)
                && let Some(x) = v.numbers()
            {
                let values = match to {
                    DataType::Long => x.iter().map(|f| *f as i64).collect(),
                    _ => x.iter().map(|f| i64::from(*f as i32)).collect(),
                };
                let nulls = v.nulls().map(Cow::into_owned);
                return Ok(Cow::Owned(B::Vector::unboxed_integers(*to, values, nulls)));
            }
        }
        _ => {}
    }
    if let Some(v) = batch.per_entry(expr) {
        return Ok(Cow::Owned(v));
    }
    // Children that fail are left to the row evaluator, which evaluates only those a row's
    // value depends on (a CASE branch its condition guards).
    let all = |parts: &[&Expr]| -> Option<Vec<Cow<'b, B::Vector>>> {
        parts.iter().map(|p| evaluate(p, batch).ok()).collect()
    };
    if let Expr::Compare { op, left, right } = expr
        && let Some(v) = compare_with_literal(*op, left, right, batch)?
    {
        return Ok(Cow::Owned(v));
    }
    let vectorised = match expr {
        Expr::Compare { op, left, right } => {
            let (l, r) = (evaluate(left, batch)?, evaluate(right, batch)?);
            compare_numbers(*op, l.as_ref(), r.as_ref(), n)
        }
        Expr::And(parts) | Expr::Or(parts) => all(&parts.iter().collect::<Vec<_>>())
            .and_then(|c| logic::junction(matches!(expr, Expr::And(_)), &c, n)),
        Expr::Not(e) => all(&[e]).and_then(|c| logic::not(c[0].as_ref(), n)),
        Expr::Case {
            branches,
            else_result,
            return_type,
        } => {
            let conditions = all(&branches.iter().map(|(c, _)| c).collect::<Vec<_>>());
            let values = all(&branches.iter().map(|(_, v)| v).collect::<Vec<_>>());
            let otherwise = all(&[else_result]);
            match (conditions, values, otherwise) {
                (Some(c), Some(v), Some(o)) => {
                    logic::case(&c, &v, o[0].as_ref(), return_type.data_type, n)
                }
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(v) = vectorised {
        return Ok(Cow::Owned(v));
    }
    let data_type = expr.column_type().data_type;
    if let Expr::Call { name, args, .. } = expr
        && let Some(def) = planner::functions::lookup(name)
    {
        let values = call(def, args, batch)?;
        return Ok(Cow::Owned(B::Vector::boxed(data_type, values)));
    }
    let prepared = batch.for_rows();
    let batch = prepared.as_ref().unwrap_or(batch);
    let values = in_morsels(n, |rows| {
        let mut values = Vec::with_capacity(rows.len());
        for row in rows {
            values.push(batch.eval_row(expr, row)?);
        }
        Ok(values)
    })?;
    Ok(Cow::Owned(B::Vector::boxed(data_type, values)))
}

/// A scalar function's values over the batch: its arguments evaluated a column at a time
/// (literals as they are), then the function called per row.
fn call<B: Batch>(
    def: &planner::functions::FunctionDef,
    args: &[Expr],
    batch: &B,
) -> Result<Vec<Value>, EngineError> {
    /// An argument: a literal, or a column evaluated over the batch.
    enum Arg<'b, V: Clone> {
        Literal(&'b Value),
        Column(Cow<'b, V>),
    }
    let args = args
        .iter()
        .map(|a| match a {
            Expr::Literal { value, .. } => Ok(Arg::Literal(value)),
            other => {
                let column = evaluate(other, batch)?;
                Ok(Arg::Column(match column.for_rows() {
                    Some(decoded) => Cow::Owned(decoded),
                    None => column,
                }))
            }
        })
        .collect::<Result<Vec<_>, EngineError>>()?;
    in_morsels(batch.rows(), |rows| {
        let mut row_args = Vec::with_capacity(args.len());
        let mut values = Vec::with_capacity(rows.len());
        for row in rows {
            row_args.clear();
            row_args.extend(args.iter().map(|a| match a {
                Arg::Literal(v) => (*v).clone(),
                Arg::Column(c) => c.value(row),
            }));
            values.push(def.eval(&row_args).map_err(|e| EvalError(e.to_string()))?);
        }
        Ok(values)
    })
}

/// `f` over the morsels of `0..n`, their values concatenated in row order.
fn in_morsels(
    n: usize,
    f: impl Fn(std::ops::Range<usize>) -> Result<Vec<Value>, EvalError> + Sync + Send,
) -> Result<Vec<Value>, EngineError> {
    let morsels = map_morsels(n, f);
    if morsels.len() == 1 {
        return morsels
            .into_iter()
            .next()
            .unwrap_or_else(|| Ok(Vec::new()))
            .map_err(|e| EngineError::execution(e.0));
    }
    let mut values = Vec::with_capacity(n);
    for m in morsels {
        values.extend(m.map_err(|e| EngineError::execution(e.0))?);
    }
    Ok(values)
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
/// A number column compared with a number literal, the literal read once instead of repeated
/// into a column: the truths [`compare_numbers`] gives over the repeated literal, or `None`
/// where it gives none (not a number on either side, a NaN).
fn compare_with_literal<B: Batch>(
    op: CmpOp,
    left: &Expr,
    right: &Expr,
    batch: &B,
) -> Result<Option<B::Vector>, EngineError> {
    let (column, (value, data_type), op) = match (left, right) {
        (Expr::Literal { .. }, Expr::Literal { .. }) => return Ok(None),
        (e, Expr::Literal { value, data_type }) => (e, (value, data_type), op),
        (Expr::Literal { value, data_type }, e) => (e, (value, data_type), op.flip()),
        _ => return Ok(None),
    };
    // The literal as the repeated column would hold it.
    let one = B::Vector::constant(*data_type, value, 1);
    if value.is_null() || one.nulls().is_some_and(|n| n[0]) {
        return Ok(None);
    }
    let values = evaluate(column, batch)?;
    let truths: Vec<i64> = match (values.integers(), one.integers()) {
        (Some(a), Some(k)) => a
            .iter()
            .map(|x| i64::from(op.holds(x.cmp(&k[0]))))
            .collect(),
        _ => {
            let (Some(a), Some(k)) = (values.numbers(), one.numbers()) else {
                return Ok(None);
            };
            let k = k[0];
            let mut truths = Vec::with_capacity(a.len());
            for x in a.iter() {
                let Some(o) = x.partial_cmp(&k) else {
                    return Ok(None);
                };
                truths.push(i64::from(op.holds(o)));
            }
            truths
        }
    };
    let nulls = values.nulls().map(Cow::into_owned);
    Ok(Some(B::Vector::unboxed_integers(
        DataType::Boolean,
        truths,
        nulls,
    )))
}

fn compare_numbers<V: Vector>(op: CmpOp, l: &V, r: &V, n: usize) -> Option<V> {
    let holds = |o: Option<std::cmp::Ordering>| o.map(|o| i64::from(op.holds(o)));
    let truths: Option<Vec<i64>> = match (l.integers(), r.integers()) {
        (Some(a), Some(b)) => Some(
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
    let nulls = either_null(l.nulls().as_deref(), r.nulls().as_deref(), n);
    Some(V::unboxed_integers(DataType::Boolean, truths?, nulls))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::{Block, ColumnData, Projected};
    use crate::multistage::{Column, DataBlock};
    use planner::plan::eval::{RowSource, eval};
    use planner::plan::expr::{ColumnRef, InputRef};
    use planner::plan::{ColumnType, Expr};

    /// Column `i` of the test tables: a name for a v1 block, an input for a v2 block.
    fn col(i: usize, t: DataType, v2: bool) -> Box<Expr> {
        let column_type = ColumnType::sv(t);
        let name = ["a", "b", "x", "s"][i].to_string();
        Box::new(match v2 {
            false => Expr::Column(ColumnRef { name, column_type }),
            true => Expr::Input(InputRef {
                index: i,
                name,
                column_type,
            }),
        })
    }

    fn table() -> Vec<(DataType, Vec<Value>)> {
        let b = |v: Option<bool>| v.map_or(Value::Null, Value::Boolean);
        vec![
            (
                DataType::Long,
                [5, -2, 0, 7, 0, i64::MAX].map(Value::Long).to_vec(),
            ),
            (
                DataType::Double,
                vec![
                    Value::Double(1.5),
                    Value::Null,
                    Value::Double(-0.0),
                    Value::Double(7.0),
                    Value::Double(2.0),
                    Value::Double(0.5),
                ],
            ),
            (
                DataType::Boolean,
                [Some(true), Some(false), None, Some(true), None, Some(false)]
                    .map(b)
                    .to_vec(),
            ),
            (
                DataType::String,
                ["ab", "c", "", "ab", "d", "e"]
                    .map(|s| Value::String(s.into()))
                    .to_vec(),
            ),
        ]
    }

    struct Row<'t>(&'t [(DataType, Vec<Value>)], usize);

    impl RowSource for Row<'_> {
        fn column(&self, c: &ColumnRef) -> Result<Value, EvalError> {
            let i = ["a", "b", "x", "s"]
                .iter()
                .position(|n| *n == c.name)
                .unwrap();
            Ok(self.0[i].1[self.1].clone())
        }
        fn input(&self, index: usize) -> Result<Value, EvalError> {
            Ok(self.0[index].1[self.1].clone())
        }
    }

    /// The expressions of the test, over v1 column names or v2 inputs.
    fn expressions(v2: bool) -> Vec<Expr> {
        let (a, b, x, s) = (
            col(0, DataType::Long, v2),
            col(1, DataType::Double, v2),
            col(2, DataType::Boolean, v2),
            col(3, DataType::String, v2),
        );
        let lit = |v: Value| Box::new(Expr::literal(v));
        let cmp = |op, l: &Expr, r: Box<Expr>| Expr::Compare {
            op,
            left: Box::new(l.clone()),
            right: r,
        };
        let arith = |op, l: &Expr, r: Box<Expr>, t| Expr::Arith {
            op,
            left: Box::new(l.clone()),
            right: r,
            return_type: ColumnType::sv(t),
        };
        vec![
            arith(ArithOp::Mul, &a, b.clone(), DataType::Double),
            arith(ArithOp::Sub, &a, lit(Value::Long(1)), DataType::Long),
            cmp(CmpOp::Lt, &b, lit(Value::Double(0.0))),
            cmp(CmpOp::GtEq, &a, b.clone()),
            // A literal on the left, of the other number type, past 2^53.
            cmp(CmpOp::LtEq, &Expr::literal(Value::Long(5)), a.clone()),
            cmp(CmpOp::Eq, &a, lit(Value::Double(7.0))),
            cmp(CmpOp::GtEq, &b, lit(Value::Long(2))),
            cmp(CmpOp::NotEq, &a, lit(Value::Long(i64::MAX - 1))),
            cmp(CmpOp::Gt, &Expr::literal(Value::Double(1.0)), b.clone()),
            Expr::And(vec![*x.clone(), cmp(CmpOp::Gt, &a, lit(Value::Long(0)))]),
            Expr::Or(vec![
                *x.clone(),
                cmp(CmpOp::Eq, &s, lit(Value::String("ab".into()))),
            ]),
            Expr::Not(x.clone()),
            Expr::Case {
                branches: vec![(*x.clone(), *b.clone())],
                else_result: lit(Value::Double(-1.0)),
                return_type: ColumnType::sv(DataType::Double),
            },
            Expr::Call {
                name: "upper".into(),
                args: vec![*s.clone()],
                return_type: ColumnType::sv(DataType::String),
            },
            Expr::Literal {
                value: Value::Int(3),
                data_type: DataType::Int,
            },
        ]
    }

    /// Both engines' batches evaluate each expression to the same values, equal to the row
    /// evaluator's, row by row.
    #[test]
    fn both_engines_agree_with_the_row_evaluator() {
        let table = table();
        let v1 = Block {
            docs: (0..6).collect(),
            columns: table
                .iter()
                .zip(["a", "b", "x", "s"])
                .map(|((t, values), name)| {
                    let column = Column::from_values(*t, values.clone());
                    let data = match column.cells {
                        crate::column::Cells::I64(v) => ColumnData::I64(v),
                        crate::column::Cells::F64(v) => ColumnData::F64(v),
                        _ => ColumnData::Values(values.clone()),
                    };
                    let projected = Projected {
                        data,
                        data_type: *t,
                        nulls: column.nulls,
                    };
                    (name.to_string(), projected)
                })
                .collect(),
        };
        let v2 = DataBlock::new(
            table
                .iter()
                .map(|(t, values)| Column::from_values(*t, values.clone()))
                .collect(),
            6,
        );
        for (e1, e2) in expressions(false).into_iter().zip(expressions(true)) {
            let (c1, c2) = (evaluate(&e1, &v1).unwrap(), evaluate(&e2, &v2).unwrap());
            for row in 0..6 {
                let slow = eval(&e1, &Row(&table, row)).unwrap();
                assert_eq!(Vector::value(c1.as_ref(), row), slow, "v1 {e1:?} row {row}");
                assert_eq!(Vector::value(c2.as_ref(), row), slow, "v2 {e2:?} row {row}");
            }
        }
        // Past LONG's range: Java's error, from both.
        let overflow = |v2| Expr::Arith {
            op: ArithOp::Add,
            left: col(0, DataType::Long, v2),
            right: Box::new(Expr::literal(Value::Long(1))),
            return_type: ColumnType::sv(DataType::Long),
        };
        for err in [
            evaluate(&overflow(false), &v1).map(|_| ()),
            evaluate(&overflow(true), &v2).map(|_| ()),
        ] {
            assert!(err.unwrap_err().to_string().contains("long overflow"));
        }
    }
}
