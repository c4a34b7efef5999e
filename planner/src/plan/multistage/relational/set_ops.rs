//! The types of a set operation's columns: where its inputs' numbers differ, the least
//! restrictive one, each input cast to it below the exchange.

use crate::plan::expr::{Expr, InputRef};
use crate::plan::multistage::relation::Rel;
use segments::types::DataType;

/// The type two inputs' columns meet in, where it differs from both or one: numbers widen to the
/// least restrictive number (Calcite's `leastRestrictive`: INT < BIGINT < REAL < DOUBLE <
/// DECIMAL); `None` where nothing changes (same types, or not two numbers).
pub(super) fn set_op_type(a: DataType, b: DataType) -> Option<DataType> {
    let rank = |t: DataType| match t {
        DataType::Int => Some(0),
        DataType::Long => Some(1),
        DataType::Float => Some(2),
        DataType::Double => Some(3),
        DataType::BigDecimal => Some(4),
        _ => None,
    };
    match (rank(a), rank(b)) {
        (Some(x), Some(y)) if x != y => Some(if x > y { a } else { b }),
        _ => None,
    }
}

/// `rel` with its columns cast where `types` says, by a projection over it (unchanged when no
/// column is).
pub(super) fn widened(rel: Rel, types: &[Option<DataType>]) -> Rel {
    let changes = rel
        .cols
        .iter()
        .zip(types)
        .any(|(c, t)| t.is_some_and(|t| t != c.ty.data_type));
    if !changes {
        return rel;
    }
    let mut cols = rel.cols.clone();
    let exprs = cols
        .iter_mut()
        .enumerate()
        .map(|(index, c)| {
            let input = Expr::Input(InputRef {
                index,
                name: c.name.clone(),
                column_type: c.ty,
            });
            match types.get(index).copied().flatten() {
                Some(to) if to != c.ty.data_type => {
                    c.ty.data_type = to;
                    Expr::Cast {
                        expr: Box::new(input),
                        to,
                    }
                }
                _ => input,
            }
        })
        .collect();
    rel.project(exprs, cols)
}
