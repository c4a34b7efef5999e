//! The columns of a `USING` (or `NATURAL`) join as SQL shows them: each joined name once, first
//! and unqualified, then both sides' columns, whose joined ones are reached only qualified.

use crate::plan::expr::{Expr, InputRef};
use crate::plan::multistage::rel::JoinKind;
use crate::plan::multistage::relation::{Col, Rel};

/// A `USING` (or `NATURAL`) join's columns as SQL shows them: each joined name once, first and
/// unqualified — the left side's value, the right's for a RIGHT join, the one not NULL for a
/// FULL join — then both sides' columns, whose joined ones are reached only qualified
/// (`e.dept`) and are not in `*`.
pub(super) fn using_columns(
    rel: Rel,
    kind: JoinKind,
    names: &[String],
    lk: &[usize],
    rk: &[usize],
    width: usize,
) -> Rel {
    let input = |cols: &[Col], i: usize| {
        Expr::Input(InputRef {
            index: i,
            name: cols[i].name.clone(),
            column_type: cols[i].ty,
        })
    };
    let mut exprs = Vec::with_capacity(names.len() + rel.cols.len());
    let mut cols = Vec::with_capacity(exprs.capacity());
    for ((name, &a), &b) in names.iter().zip(lk).zip(rk) {
        let b = width + b;
        let (left, right) = (input(&rel.cols, a), input(&rel.cols, b));
        let ty = rel.cols[a].ty;
        exprs.push(match kind {
            JoinKind::Right => right,
            JoinKind::Full => Expr::Call {
                name: "coalesce".into(),
                args: vec![left, right],
                return_type: ty,
            },
            _ => left,
        });
        let ty = if kind == JoinKind::Right {
            rel.cols[b].ty
        } else {
            ty
        };
        cols.push(Col::new(name.clone(), ty));
    }
    for (i, c) in rel.cols.iter().enumerate() {
        exprs.push(input(&rel.cols, i));
        let joined = if i < width {
            lk.contains(&i)
        } else {
            rk.contains(&(i - width))
        };
        cols.push(Col {
            hidden: c.hidden || joined,
            ..c.clone()
        });
    }
    rel.project(exprs, cols)
}
