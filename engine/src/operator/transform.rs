//! Transform: evaluates bound expressions over a [`Block`], as the shared evaluator
//! ([`crate::vectorised`]) reads a block: column references are its leaves (the projected
//! column itself, no copy); an expression over one dictionary column is evaluated once per
//! distinct id of the block when they are few ([`crate::per_entry`]); rows read one at a time
//! ([`planner::plan::eval`]) see block-compressed dictionary text decoded in bulk first.

use crate::block::{Block, ColumnData, Projected, dict_numbers};
use crate::error::EngineError;
use crate::per_entry;
use crate::vectorised::{self, Batch, Vector};
use planner::plan::eval::{EvalError, RowSource, eval};
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

/// Evaluates `expr` for every row of `block` ([`crate::vectorised::evaluate`]).
pub fn evaluate<'b, 'a>(
    expr: &Expr,
    block: &'b Block<'a>,
) -> Result<Cow<'b, Projected<'a>>, EngineError> {
    vectorised::evaluate(expr, block)
}

impl Vector for Projected<'_> {
    fn data_type(&self) -> DataType {
        self.data_type
    }
    /// Numbers of a numeric single-value column (dictionary ids decoded; a boxed NULL as NaN,
    /// which [`Vector::nulls`] marks).
    fn numbers(&self) -> Option<Cow<'_, [f64]>> {
        if !self.data_type.is_numeric() || self.data_type == DataType::BigDecimal {
            return None;
        }
        Some(match &self.data {
            ColumnData::F64(v) => Cow::Borrowed(v),
            ColumnData::I64(v) => Cow::Owned(v.iter().map(|&x| x as f64).collect()),
            ColumnData::Dict { ids, dict, decoded } => {
                Cow::Owned(dict_numbers(ids, dict, *decoded))
            }
            ColumnData::Values(v) => {
                if v.iter()
                    .any(|x| matches!(x, Value::Array(_) | Value::String(_)))
                {
                    return None;
                }
                Cow::Owned(v.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect())
            }
            ColumnData::DictMv { .. } => return None,
        })
    }
    fn integers(&self) -> Option<&[i64]> {
        match &self.data {
            ColumnData::I64(v) => Some(v),
            _ => None,
        }
    }
    fn nulls(&self) -> Option<Cow<'_, [bool]>> {
        match (&self.nulls, &self.data) {
            (Some(n), _) => Some(Cow::Borrowed(n)),
            (None, ColumnData::Values(v)) if v.iter().any(Value::is_null) => {
                Some(Cow::Owned(v.iter().map(Value::is_null).collect()))
            }
            _ => None,
        }
    }
    fn value(&self, row: usize) -> Value {
        Projected::value(self, row)
    }
    fn for_rows(&self) -> Option<Self> {
        self.is_blocked_dict().then(|| self.decoded_blocked_dict())
    }
    fn unboxed_integers(data_type: DataType, values: Vec<i64>, nulls: Option<Vec<bool>>) -> Self {
        Projected {
            data: ColumnData::I64(values),
            data_type,
            nulls,
        }
    }
    fn unboxed_doubles(data_type: DataType, values: Vec<f64>, nulls: Option<Vec<bool>>) -> Self {
        Projected {
            data: ColumnData::F64(values),
            data_type,
            nulls,
        }
    }
    fn boxed(data_type: DataType, values: Vec<Value>) -> Self {
        Projected::values(data_type, values)
    }
    /// A number of the column's own type repeats unboxed (`1 - l_discount`); anything else as
    /// values.
    fn constant(data_type: DataType, value: &Value, n: usize) -> Self {
        let data = match (value, data_type) {
            (Value::Int(v), DataType::Int) => ColumnData::I64(vec![i64::from(*v); n]),
            (Value::Long(v), DataType::Long) => ColumnData::I64(vec![*v; n]),
            (Value::Float(v), DataType::Float) => ColumnData::F64(vec![f64::from(*v); n]),
            (Value::Double(v), DataType::Double) => ColumnData::F64(vec![*v; n]),
            _ => return Projected::values(data_type, vec![value.clone(); n]),
        };
        Projected {
            data,
            data_type,
            nulls: None,
        }
    }
}

/// A segment's block: its leaves are the projected columns.
impl<'a> Batch for Block<'a> {
    type Vector = Projected<'a>;
    fn rows(&self) -> usize {
        self.len()
    }
    fn leaf(&self, expr: &Expr) -> Option<Result<Cow<'_, Projected<'a>>, EngineError>> {
        let Expr::Column(c) = expr else {
            return None;
        };
        Some(self.column(&c.name).map(Cow::Borrowed).ok_or_else(|| {
            EngineError::execution(format!("column '{}' was not projected", c.name))
        }))
    }
    fn per_entry(&self, expr: &Expr) -> Option<Projected<'a>> {
        per_dict_entry(expr, self)
    }
    fn eval_row(&self, expr: &Expr, row: usize) -> Result<Value, EvalError> {
        eval(expr, &BlockRow { block: self, row })
    }
    /// Rows read a column's values one at a time: text of a block-compressed dictionary is
    /// decoded for all rows at once first, each block once.
    fn for_rows(&self) -> Option<Self> {
        self.columns
            .iter()
            .any(|(_, p)| p.is_blocked_dict())
            .then(|| Block {
                docs: self.docs.clone(),
                columns: self
                    .columns
                    .iter()
                    .map(|(name, p)| (name.clone(), p.decoded_blocked_dict()))
                    .collect(),
            })
    }
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
