//! The vocabulary of planning above the leaves: a relation's columns ([`Col`]), a relation
//! being planned ([`Rel`]), and how the steps that make stages are numbered ([`StageOrder`]).

use super::rel::RelNode;
use crate::plan::expr::{Expr, InputRef};
use segments::types::ColumnType;

/// Column `index` of an operator's input, typed `column_type` (named `$index`).
pub fn input(index: usize, column_type: ColumnType) -> Expr {
    Expr::Input(InputRef {
        index,
        name: format!("${index}"),
        column_type,
    })
}

/// A column of a relation being planned.
#[derive(Clone, Debug)]
pub struct Col {
    pub qualifier: Option<String>,
    pub name: String,
    pub ty: ColumnType,
    /// Reached only by its qualified name and `t.*`, not by its bare name nor `*`: a `USING`
    /// column of either side, which the join shows once, merged, under its bare name.
    pub hidden: bool,
}

impl Col {
    /// An unqualified column anyone can name.
    pub fn new(name: impl Into<String>, ty: ColumnType) -> Col {
        Col {
            qualifier: None,
            name: name.into(),
            ty,
            hidden: false,
        }
    }
}

/// Operators being planned, and their columns.
pub struct Rel {
    pub node: RelNode,
    pub cols: Vec<Col>,
}

/// How a planner numbers the steps that make stages — a leaf bound, a request made — so the
/// stages are numbered in the order binding made them
/// ([`Exchange::order`](super::rel::Exchange::order)).
pub trait StageOrder {
    /// The number of a new step.
    fn next_stage(&mut self) -> usize;
}

impl Rel {
    /// Each of this relation's columns, as its operator's input: the start of a projection
    /// that keeps them and adds more.
    pub fn inputs(&self) -> Vec<Expr> {
        self.cols
            .iter()
            .enumerate()
            .map(|(i, c)| input(i, c.ty))
            .collect()
    }

    /// `exprs` computed over this relation's rows, as the columns `cols`.
    pub fn project(self, exprs: Vec<Expr>, cols: Vec<Col>) -> Rel {
        Rel {
            node: RelNode::Project {
                input: Box::new(self.node),
                exprs,
            },
            cols,
        }
    }
}
