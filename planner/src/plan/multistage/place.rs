//! What binding leaves to the distribution pass: an operator whose rows may have to move
//! before it runs ([`Place`]), written into the planned tree as [`RelNode::Place`].
//!
//! Binding knows what each operator computes, not where its rows are: that depends on the
//! operators below and on the estimates of what they output. So a join, a grouping, an operator
//! that needs every row in one place, and a set operation's input are planned as requests, and
//! [`super::relational::placement`] resolves them bottom-up into exchanges and operators. No
//! request is left once it has run.

use super::hints::JoinStrategy;
use super::rel::{JoinKind, RelNode};
use crate::plan::aggregate::AggregateCall;
use crate::plan::expr::Expr;
use segments::types::ColumnType;

/// One request, and when binding made it.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    /// The planning step that made it: the stages it cuts are numbered after those of the steps
    /// before ([`super::rel::Exchange::order`]).
    pub order: usize,
    pub request: Request,
}

/// What is asked for.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// A join (`join` is a [`RelNode::Join`] over its unplaced sides): the sides hashed on the
    /// keys, or one broadcast, or both on one worker without keys.
    Join(JoinRequest),
    /// A grouping of `input`'s rows: in one phase where they are, or partial states hashed on
    /// the keys to a final phase, or pushed into a leaf below a join.
    Aggregate(AggregateRequest),
    /// Every row of the input on one worker (sorting, windows, the root), when they are spread.
    Gather(RelNode),
    /// The input on one worker in a stage of its own (a set operation's input).
    Alone(RelNode),
}

/// A join and what the block's hints say of its placement.
#[derive(Clone, Debug, PartialEq)]
pub struct JoinRequest {
    pub join: RelNode,
    pub strategy: JoinStrategy,
    /// The side a hint broadcasts.
    pub broadcast: Option<Side>,
    /// No hint chose the strategy or a side's distribution: the placement is the planner's.
    pub unhinted: bool,
}

/// `aggregates` of `input`'s rows grouped by `keys` (expressions over them): the operator's
/// output is the keys, then one column per aggregate, typed `output_types`.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregateRequest {
    pub input: RelNode,
    pub keys: Vec<Expr>,
    pub aggregates: Vec<AggregateCall>,
    pub output_types: Vec<ColumnType>,
    pub groups_limit: usize,
    /// The aggregates may be pushed into a leaf below a join (eager aggregation).
    pub eager: bool,
}

/// One side of a join.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    /// Whether a `kind` join may broadcast this side: a broadcast side's rows meet every worker
    /// of the join, so it must be a side whose unmatched rows are not output (the right of
    /// INNER, LEFT, SEMI, ANTI and NOT IN joins, the left of INNER and RIGHT joins).
    pub fn may_broadcast(self, kind: JoinKind) -> bool {
        match self {
            Side::Left => matches!(kind, JoinKind::Inner | JoinKind::Right),
            Side::Right => !matches!(kind, JoinKind::Right | JoinKind::Full),
        }
    }
}

impl Request {
    /// The inputs of the operator asked for.
    pub fn inputs(&self) -> Vec<&RelNode> {
        match self {
            Request::Join(j) => j.join.inputs(),
            Request::Aggregate(a) => vec![&a.input],
            Request::Gather(n) | Request::Alone(n) => vec![n],
        }
    }

    /// The inputs of the operator asked for, to change.
    pub fn inputs_mut(&mut self) -> Vec<&mut RelNode> {
        match self {
            Request::Join(j) => j.join.inputs_mut(),
            Request::Aggregate(a) => vec![&mut a.input],
            Request::Gather(n) | Request::Alone(n) => vec![n],
        }
    }

    /// The types of the rows the operator outputs, however it is placed.
    pub fn output_types(&self) -> Vec<ColumnType> {
        match self {
            Request::Join(j) => j.join.output_types(),
            Request::Aggregate(a) => a.output_types.clone(),
            Request::Gather(n) | Request::Alone(n) => n.output_types(),
        }
    }
}
