//! Transform: evaluates bound expressions over a [`Block`].
//!
//! Column references return the projected column itself (no copy). Arithmetic over numeric
//! inputs runs as a vectorised `f64` loop. An expression over one dictionary column is
//! evaluated once per distinct id of the block when they are few ([`crate::per_entry`]). A
//! scalar function call evaluates its arguments
//! column by column (literals as they are) and finds its definition once per block, then
//! calls it per row; everything else is evaluated row by row with the planner's evaluator
//! ([`planner::plan::eval`]), reading the block's columns.

use crate::block::{Block, ColumnData, Projected, dict_numbers};
use crate::error::EngineError;
use crate::per_entry;
use planner::plan::eval::{EvalError, RowSource, arith, eval};
use planner::plan::{ColumnRef, Expr};
use segments::types::{DataType, Value};
use std::borrow::Cow;

/// One row of a block, as the row-at-a-time evaluator sees it.
pub struct BlockRow<'b, 'a> {
    pub block: &'b Block<'a>,
    pub row: usize,
}

impl RowSource for BlockRow<'_, '_> {
    fn column(&self, column: &ColumnRef) -> Result<Value, EvalError> {
        self.block
            .column(&column.name)
            .map(|p| p.value(self.row))
            .ok_or_else(|| EvalError(format!("column '{}' was not projected", column.name)))
    }

    fn input(&self, index: usize) -> Result<Value, EvalError> {
        Err(EvalError(format!("input {index} read inside a segment")))
    }
}

/// Numbers of a numeric single-value column, with its null flags; `None` if not numeric.
fn numbers(p: &Projected<'_>) -> Option<Vec<f64>> {
    if !p.data_type.is_numeric() || p.data_type == DataType::BigDecimal {
        return None;
    }
    Some(match &p.data {
        ColumnData::F64(v) => v.clone(),
        ColumnData::I64(v) => v.iter().map(|&x| x as f64).collect(),
        ColumnData::Dict { ids, dict, decoded } => dict_numbers(ids, dict, *decoded),
        ColumnData::Values(v) => {
            if v.iter()
                .any(|x| matches!(x, Value::Array(_) | Value::String(_)))
            {
                return None;
            }
            v.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect()
        }
        ColumnData::DictMv { .. } => return None,
    })
}

fn null_flags(p: &Projected<'_>) -> Option<Vec<bool>> {
    match (&p.nulls, &p.data) {
        (Some(n), _) => Some(n.clone()),
        (None, ColumnData::Values(v)) if v.iter().any(Value::is_null) => {
            Some(v.iter().map(Value::is_null).collect())
        }
        _ => None,
    }
}

/// Evaluates `expr` for every row of `block`.
pub fn evaluate<'b, 'a>(
    expr: &Expr,
    block: &'b Block<'a>,
) -> Result<Cow<'b, Projected<'a>>, EngineError> {
    let n = block.len();
    match expr {
        Expr::Column(c) => {
            return block.column(&c.name).map(Cow::Borrowed).ok_or_else(|| {
                EngineError::execution(format!("column '{}' was not projected", c.name))
            });
        }
        Expr::Literal { value, data_type } => {
            // A number repeated unboxed (`1 - l_discount`): no value built per row.
            let data = match (value, data_type) {
                (Value::Int(v), DataType::Int) => Some(ColumnData::I64(vec![i64::from(*v); n])),
                (Value::Long(v), DataType::Long) => Some(ColumnData::I64(vec![*v; n])),
                (Value::Float(v), DataType::Float) => Some(ColumnData::F64(vec![f64::from(*v); n])),
                (Value::Double(v), DataType::Double) => Some(ColumnData::F64(vec![*v; n])),
                _ => None,
            };
            return Ok(Cow::Owned(match data {
                Some(data) => Projected {
                    data,
                    data_type: *data_type,
                    nulls: None,
                },
                None => Projected::values(*data_type, vec![value.clone(); n]),
            }));
        }
        Expr::Arith {
            op,
            left,
            right,
            return_type,
        } if return_type.data_type == DataType::Double => {
            let l = evaluate(left, block)?;
            let r = evaluate(right, block)?;
            if let (Some(a), Some(b)) = (numbers(&l), numbers(&r)) {
                let values: Vec<f64> = a.iter().zip(&b).map(|(x, y)| arith(*op, *x, *y)).collect();
                let (x, y) = (null_flags(&l), null_flags(&r));
                let nulls = crate::block::either_null(x.as_deref(), y.as_deref(), n);
                return Ok(Cow::Owned(Projected {
                    data: ColumnData::F64(values),
                    data_type: DataType::Double,
                    nulls,
                }));
            }
        }
        _ => {}
    }
    if let Some(p) = per_dict_entry(expr, block) {
        return Ok(Cow::Owned(p));
    }
    let data_type = expr.column_type().data_type;
    // Rows read a column's values one at a time: text of a block-compressed dictionary is
    // decoded for all rows at once first, each block once.
    let decoded;
    let block = if block.columns.iter().any(|(_, p)| p.is_blocked_dict()) {
        decoded = Block {
            docs: block.docs.clone(),
            columns: block
                .columns
                .iter()
                .map(|(name, p)| (name.clone(), p.decoded_blocked_dict()))
                .collect(),
        };
        &decoded
    } else {
        block
    };
    let mut values = Vec::with_capacity(n);
    if let Expr::Call { name, args, .. } = expr
        && let Some(def) = planner::functions::lookup(name)
    {
        /// An argument: a literal, or a column evaluated over the block.
        enum Arg<'b, 'a> {
            Literal(&'b Value),
            Column(Cow<'b, Projected<'a>>),
        }
        let args = args
            .iter()
            .map(|a| match a {
                Expr::Literal { value, .. } => Ok(Arg::Literal(value)),
                other => evaluate(other, block).map(Arg::Column),
            })
            .collect::<Result<Vec<_>, EngineError>>()?;
        let mut row_args = Vec::with_capacity(args.len());
        for row in 0..n {
            row_args.clear();
            row_args.extend(args.iter().map(|a| match a {
                Arg::Literal(v) => (*v).clone(),
                Arg::Column(p) => p.value(row),
            }));
            values.push(def.eval(&row_args).map_err(|e| EvalError(e.to_string()))?);
        }
        return Ok(Cow::Owned(Projected::values(data_type, values)));
    }
    for row in 0..n {
        values.push(eval(expr, &BlockRow { block, row })?);
    }
    Ok(Cow::Owned(Projected::values(data_type, values)))
}

/// Ids of a block sampled to tell whether its distinct ids are few.
const SAMPLE_IDS: usize = 256;

/// `expr` over one single-value dictionary column, evaluated once per distinct id of the
/// block ([`crate::per_entry`]) when those are at most half the rows; each row takes its id's
/// result. A NULL row (null handling on) takes the result for NULL.
fn per_dict_entry<'a>(expr: &Expr, block: &Block<'a>) -> Option<Projected<'a>> {
    if matches!(expr, Expr::Column(_) | Expr::Literal { .. }) {
        return None;
    }
    let per_entry::Source::Column(name) = per_entry::single_source(expr)? else {
        return None;
    };
    let p = block.column(&name)?;
    let ColumnData::Dict { ids, dict, .. } = &p.data else {
        return None;
    };
    // Distinct ids of a sample first: a column of mostly distinct values (a key, a phone
    // number) is told apart without sorting every block's ids.
    let few = |ids: &[u32]| {
        let mut distinct = ids.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        (distinct.len() * 2 <= ids.len()).then_some(distinct)
    };
    if dict.len() as usize * 2 > ids.len() {
        few(&ids[..ids.len().min(SAMPLE_IDS)])?;
    }
    let distinct = few(ids)?;
    let results = per_entry::results(expr, dict.values(&distinct).iter())?;
    let null = &results[distinct.len()];
    let values = ids
        .iter()
        .enumerate()
        .map(|(i, id)| match p.nulls.as_ref().is_some_and(|n| n[i]) {
            true => null.clone(),
            false => distinct
                .binary_search(id)
                .map_or_else(|_| null.clone(), |k| results[k].clone()),
        })
        .collect();
    Some(Projected::values(expr.column_type().data_type, values))
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::plan::ColumnType;
    use planner::plan::expr::ArithOp;

    fn block() -> Block<'static> {
        Block {
            docs: vec![0, 1, 2],
            columns: vec![
                (
                    "a".into(),
                    Projected {
                        data: ColumnData::I64(vec![1, 2, 3]),
                        data_type: DataType::Int,
                        nulls: Some(vec![false, true, false]),
                    },
                ),
                (
                    "s".into(),
                    Projected::values(DataType::String, vec![Value::String("x".into()); 3]),
                ),
            ],
        }
    }

    fn col(name: &str, t: DataType) -> Expr {
        Expr::Column(ColumnRef {
            name: name.into(),
            column_type: ColumnType::sv(t),
        })
    }

    #[test]
    fn vectorised_arithmetic_keeps_nulls() {
        let b = block();
        let e = Expr::Arith {
            op: ArithOp::Mul,
            left: Box::new(col("a", DataType::Int)),
            right: Box::new(Expr::literal(Value::Int(10))),
            return_type: ColumnType::sv(DataType::Double),
        };
        let out = evaluate(&e, &b).unwrap();
        assert_eq!(out.value(0), Value::Double(10.0));
        assert_eq!(out.value(1), Value::Null);
        assert_eq!(out.value(2), Value::Double(30.0));
    }

    #[test]
    fn row_path_and_missing_columns() {
        let b = block();
        let e = Expr::Concat(
            Box::new(col("s", DataType::String)),
            Box::new(Expr::literal(Value::String("!".into()))),
        );
        let out = evaluate(&e, &b).unwrap();
        assert_eq!(out.value(2), Value::String("x!".into()));
        assert!(matches!(
            evaluate(&col("a", DataType::Int), &b).unwrap(),
            Cow::Borrowed(_)
        ));
        assert!(evaluate(&col("zz", DataType::Int), &b).is_err());
    }

    /// An expression over one dictionary column is evaluated per distinct id of the block and
    /// agrees with the row evaluator, NULL rows included.
    #[test]
    fn one_dictionary_column_per_distinct_id() {
        let words = ["apple", "banana", "cherry"];
        let bytes =
            segments::dictionary::var::VarDictionary::encode(words.iter().map(|w| w.as_bytes()))
                .unwrap();
        let dict = segments::dictionary::Dictionary::from_bytes(
            segments::format::Bytes::from_vec(bytes),
            DataType::String,
        )
        .unwrap();
        let ids = vec![0, 1, 0, 0, 2, 1, 0, 0];
        let b = Block {
            docs: (0..8).collect(),
            columns: vec![(
                "w".into(),
                Projected {
                    data: ColumnData::Dict {
                        ids,
                        dict: &dict,
                        decoded: None,
                    },
                    data_type: DataType::String,
                    nulls: Some(vec![false, false, false, true, false, false, false, false]),
                },
            )],
        };
        let e = Expr::Call {
            name: "upper".into(),
            args: vec![col("w", DataType::String)],
            return_type: ColumnType::sv(DataType::String),
        };
        let fast = per_dict_entry(&e, &b).expect("three ids in eight rows");
        for row in 0..8 {
            let slow = eval(&e, &BlockRow { block: &b, row }).unwrap();
            assert_eq!(fast.value(row), slow, "row {row}");
        }
        assert_eq!(fast.value(4), Value::String("CHERRY".into()));
        assert_eq!(fast.value(3), Value::Null);
    }

    /// A number literal repeats unboxed and reads as the same value; text stays a value.
    #[test]
    fn number_literals_repeat_unboxed() {
        let b = block();
        for (value, t) in [
            (Value::Int(3), DataType::Int),
            (Value::Long(-4), DataType::Long),
            (Value::Float(1.5), DataType::Float),
            (Value::Double(0.25), DataType::Double),
        ] {
            let e = Expr::Literal {
                value: value.clone(),
                data_type: t,
            };
            let out = evaluate(&e, &b).unwrap();
            assert!(matches!(out.data, ColumnData::I64(_) | ColumnData::F64(_)));
            assert!((0..3).all(|i| out.value(i) == value && !out.is_null(i)));
        }
        let text = Expr::literal(Value::String("x".into()));
        assert!(matches!(
            evaluate(&text, &b).unwrap().data,
            ColumnData::Values(_)
        ));
    }
}
