//! An expression over one dictionary-coded column evaluated once per dictionary entry instead
//! of once per row: `o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH'` over 30,000
//! joined rows is five evaluations and a lookup per row, `year(o_orderdate)` over a block is
//! one per distinct date. Both engines use it where their columns are dictionary ids — the
//! multi-stage engine's coded columns ([`Cells::Coded`](crate::column::Cells::Coded)), a leaf's
//! dictionary-encoded block columns — and map each row's id to its entry's result.
//!
//! Only deterministic expressions qualify (`rand()` per entry would give every row of an entry
//! the same draw), and only where the entries are no more than the rows: never more work than
//! per row. The entries' results come from the planner's row evaluator, so they are exactly
//! the per-row results; an entry whose evaluation fails makes the caller evaluate per row,
//! where only a row that has the failing value reports it.

use planner::functions;
use planner::plan::Expr;
use planner::plan::eval::{EvalError, RowSource, eval};
use planner::plan::expr::ColumnRef;
use segments::types::Value;

/// The one column or input an expression reads.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Column(String),
    Input(usize),
}

/// The one column or input `expr` reads, when it reads exactly one and calls only
/// deterministic functions; `None` otherwise.
pub fn single_source(expr: &Expr) -> Option<Source> {
    let mut source: Option<Source> = None;
    let mut qualifies = true;
    expr.visit(&mut |e| {
        let this = match e {
            Expr::Column(c) => Source::Column(c.name.clone()),
            Expr::Input(i) => Source::Input(i.index),
            Expr::Call { name, .. } => {
                qualifies &= functions::lookup(name).is_some_and(|d| d.is_deterministic());
                return;
            }
            _ => return,
        };
        match &source {
            Some(s) if *s != this => qualifies = false,
            Some(_) => {}
            None => source = Some(this),
        }
    });
    source.filter(|_| qualifies)
}

/// One entry's value, as whichever column or input the expression reads.
struct Entry<'v>(&'v Value);

impl RowSource for Entry<'_> {
    fn column(&self, _: &ColumnRef) -> Result<Value, EvalError> {
        Ok(self.0.clone())
    }
    fn input(&self, _: usize) -> Result<Value, EvalError> {
        Ok(self.0.clone())
    }
}

/// `expr` (reading one source, [`single_source`]) for each of `entries`, then for NULL (the
/// result of a NULL row) last; `None` when an evaluation fails.
pub fn results<'v>(expr: &Expr, entries: impl Iterator<Item = &'v Value>) -> Option<Vec<Value>> {
    static NULL: Value = Value::Null;
    entries
        .chain(std::iter::once(&NULL))
        .map(|v| eval(expr, &Entry(v)).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::plan::expr::{CmpOp, InputRef};
    use segments::types::{ColumnType, DataType};

    fn input(index: usize) -> Expr {
        Expr::Input(InputRef {
            index,
            name: format!("${index}"),
            column_type: ColumnType::sv(DataType::String),
        })
    }

    fn call(name: &str, args: Vec<Expr>) -> Expr {
        Expr::Call {
            name: name.into(),
            args,
            return_type: ColumnType::sv(DataType::Double),
        }
    }

    #[test]
    fn one_source_and_deterministic_calls_only() {
        let eq = |e: Expr| Expr::Compare {
            op: CmpOp::Eq,
            left: Box::new(e),
            right: Box::new(Expr::literal(Value::String("a".into()))),
        };
        assert_eq!(
            single_source(&Expr::Or(vec![eq(input(2)), eq(input(2))])),
            Some(Source::Input(2))
        );
        assert_eq!(
            single_source(&Expr::Or(vec![eq(input(2)), eq(input(1))])),
            None
        );
        assert_eq!(single_source(&Expr::literal(Value::Int(1))), None);
        assert_eq!(
            single_source(&call("upper", vec![input(0)])),
            Some(Source::Input(0))
        );
        let random = Expr::Arith {
            op: planner::plan::expr::ArithOp::Add,
            left: Box::new(call("rand", vec![])),
            right: Box::new(call("length", vec![input(0)])),
            return_type: ColumnType::sv(DataType::Double),
        };
        assert_eq!(single_source(&random), None);
    }

    #[test]
    fn results_per_entry_then_null_or_none_on_failure() {
        let upper = call("upper", vec![input(0)]);
        let entries = [Value::String("a".into()), Value::String("b".into())];
        assert_eq!(
            results(&upper, entries.iter()),
            Some(vec![
                Value::String("A".into()),
                Value::String("B".into()),
                Value::Null
            ])
        );
        let cast = Expr::Cast {
            expr: Box::new(input(0)),
            to: DataType::Int,
        };
        assert_eq!(results(&cast, entries.iter()), None);
    }
}
