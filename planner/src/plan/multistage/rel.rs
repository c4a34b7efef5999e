//! Relational operators of a stage.
//!
//! Conventions every operator follows (the engine relies on them):
//! * a node's output row is a list of columns with known types ([`RelNode::output_types`]);
//! * expressions over a node's input use [`Expr::Input`] with the input column's index;
//! * [`RelNode::Join`]'s output is the left row followed by the right row (for `Semi`/`Anti`,
//!   the left row only); its `condition` reads that concatenated row;
//! * [`RelNode::Aggregate`]'s output is the group keys followed by one column per aggregate:
//!   the final value in [`AggMode::Direct`]/[`AggMode::Final`], the aggregation state in
//!   [`AggMode::Partial`]. In `Final` mode the input is a partial row: keys, then one state
//!   column per aggregate (`aggregates[i]` reads column `group_keys.len() + i`), which is
//!   exactly what a [`RelNode::Leaf`] with a v1 group-by or aggregation plan produces;
//! * [`RelNode::Window`]'s output is the input row followed by one column per window call.
//!
//! Two kinds of node exist only while a query is planned, never in a stage the engine runs (they
//! are here because a node holds them and they hold nodes): an [`Exchange`], a stage boundary,
//! and a [`Place`], what binding asks the distribution pass. Binding knows what each operator
//! computes, not where its rows are: that depends on the operators below and on the estimates
//! of what they output. So a join, a grouping, an operator that needs every row in one place and
//! a set operation's input are planned as requests, which
//! [`super::relational::placement`] resolves bottom-up into operators and exchanges;
//! [`super::split`] then cuts the tree at the exchanges. A block's inner joins are one request
//! ([`JoinsRequest`]) whose order is not chosen either: the rules on the bound tree before the
//! distribution pass move semi joins onto its inputs ([`super::relational::semi_pushdown`]),
//! filters below the semi joins above it ([`super::relational::filter_pushdown`]) and make it a
//! tree of join requests ([`super::relational::order_joins`]).

use super::hints::JoinHints;
use super::rows_estimate::RowsEstimate;
use crate::plan::aggregate::AggregateCall;
use crate::plan::expr::Expr;
use crate::plan::query_plan::{ServerQueryPlan, SortKey};
use segments::types::ColumnType;
use segments::types::{DataType, Value};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A stage's number: its index in [`MultiStagePlan::stages`](super::MultiStagePlan::stages); 0 is the root.
pub type StageId = usize;

/// Join kinds, as Calcite names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Full,
    /// Left rows with at least one match (`IN`, `EXISTS`); output is the left row.
    Semi,
    /// Left rows with no match (`NOT EXISTS`, a correlated `NOT IN`); output is the left row.
    Anti,
    /// An uncorrelated `x NOT IN (subquery)` on its one key, with SQL's NULL rules: every left
    /// row when the right side is empty, else none when the right side holds a NULL key, else
    /// the left rows whose key is not NULL and matches none. Every worker sees the whole right
    /// side (broadcast). Output is the left row.
    NotIn,
}

/// `MATCH_CONDITION(left_column op right_column)` of an ASOF join.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AsofMatch {
    /// The compared column of the left input.
    pub left: usize,
    /// The compared column of the right input (an index into the right input's columns).
    pub right: usize,
    /// How the left value compares with the right one it matches.
    pub op: AsofOp,
}

/// The comparison of an ASOF match condition, left value first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AsofOp {
    /// `left > right`: the largest right value below the left one.
    Greater,
    /// `left >= right`: the largest right value not above the left one.
    GreaterOrEqual,
    /// `left < right`: the smallest right value above the left one.
    Less,
    /// `left <= right`: the smallest right value not below the left one.
    LessOrEqual,
}

impl AsofOp {
    /// The same condition with its sides swapped (`r < l` is `l > r`).
    pub fn flipped(self) -> AsofOp {
        match self {
            AsofOp::Greater => AsofOp::Less,
            AsofOp::GreaterOrEqual => AsofOp::LessOrEqual,
            AsofOp::Less => AsofOp::Greater,
            AsofOp::LessOrEqual => AsofOp::GreaterOrEqual,
        }
    }
}

/// A leaf's runtime filter (see [`super::key_filter`]): its rows must have `column` among the keys every worker of stage
/// `from_stage` (its parent, where the join runs) publishes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyFilter {
    pub from_stage: StageId,
    /// The leaf table's column (as the schema spells it).
    pub column: String,
    pub data_type: DataType,
}

/// A join's side to evaluate first and publish the keys of.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishKeys {
    /// `true`: the left input is the source (and the right one is filtered).
    pub source_left: bool,
    /// The key column of the source input.
    pub key: usize,
    /// The leaf stage that waits for the keys.
    pub to_stage: StageId,
}

/// How an aggregate node treats its input and output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AggMode {
    /// Raw rows in, final values out (one node does all).
    Direct,
    /// Raw rows in, aggregation states out.
    Partial,
    /// States in (one column per aggregate after the keys), final values out.
    Final,
}

/// Set operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SetOpKind {
    Union,
    Intersect,
    Except,
}

/// Window functions beyond the aggregates. (A plan is built once per query: the size
/// difference of the variants does not matter.)
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum WindowFunction {
    RowNumber,
    Rank,
    DenseRank,
    Ntile(u64),
    /// `LAG(arg, offset, default)`.
    Lag {
        offset: u64,
        default: Option<Value>,
    },
    /// `LEAD(arg, offset, default)`.
    Lead {
        offset: u64,
        default: Option<Value>,
    },
    FirstValue,
    LastValue,
    /// An aggregate over the frame (`SUM(x) OVER (...)`); its `arg` reads the input row.
    Aggregate(AggregateCall),
}

/// One end of a window frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(u64),
    CurrentRow,
    Following(u64),
    UnboundedFollowing,
}

/// `ROWS` or `RANGE` frame (SQL's default with ORDER BY: `RANGE UNBOUNDED PRECEDING` to the
/// current row's peers; without ORDER BY: the whole partition).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowFrame {
    pub rows: bool,
    pub start: FrameBound,
    pub end: FrameBound,
    /// Rows left out of the frame (`EXCLUDE CURRENT ROW | GROUP | TIES`).
    #[serde(default)]
    pub exclude: FrameExclude,
}

pub use crate::sql::ast::FrameExclude;

/// One window function call of a [`RelNode::Window`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowCall {
    pub function: WindowFunction,
    /// The argument (for LAG/LEAD/FIRST_VALUE/LAST_VALUE; aggregates carry theirs).
    pub arg: Option<Expr>,
    pub frame: WindowFrame,
    pub output_type: ColumnType,
    /// `IGNORE NULLS` (FIRST_VALUE, LAST_VALUE, LAG, LEAD skip NULL arguments).
    #[serde(default)]
    pub ignore_nulls: bool,
}

/// A stage boundary in a tree being planned: `input` runs in a stage of its own (`kind`), whose
/// rows reach the operator above as `distribution` spreads them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// When planning made this stage: the planning step, then the stage's place among that
    /// step's; [`super::split`] numbers the stages in this order.
    pub order: (usize, usize),
    pub kind: StageKind,
    pub input: RelNode,
    /// How the rows are spread over the receiving workers; `None` while no operator above has
    /// asked (a leaf just bound), which ends as a singleton.
    pub distribution: Option<Distribution>,
    /// What a leaf stage is estimated to send (see [`Stage::estimate`](super::stage::Stage::estimate)).
    pub estimate: Option<RowsEstimate>,
}

impl Exchange {
    /// A leaf stage reading `table` through `leaf`, its exchange not chosen yet.
    pub fn leaf(
        order: usize,
        table: String,
        leaf: RelNode,
        estimate: Option<RowsEstimate>,
    ) -> RelNode {
        RelNode::Exchange(Box::new(Exchange {
            order: (order, 0),
            kind: StageKind::Leaf { table },
            input: leaf,
            distribution: None,
            estimate,
        }))
    }

    /// The exchange at `node`, when the rows there cross one whose distribution is not chosen
    /// yet (a leaf just bound).
    pub fn undecided(node: &mut RelNode) -> Option<&mut Exchange> {
        match node {
            RelNode::Exchange(x) if x.distribution.is_none() => Some(x),
            _ => None,
        }
    }

    /// The leaf this exchange sends from directly, when its stage is a table's leaf.
    pub fn leaf_node(&self) -> Option<&RelNode> {
        match (&self.kind, &self.input) {
            (StageKind::Leaf { .. }, leaf @ RelNode::Leaf { .. }) => Some(leaf),
            _ => None,
        }
    }
}

/// A relational operator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum RelNode {
    /// A v1 server plan over one table's segments (filter, projection and partial
    /// aggregation pushed down). Output: the plan's intermediate row (`row_types`). Its kind is
    /// never limited by v1's implicit `LIMIT 10`: the binder sets the limit it needs.
    Leaf {
        plan: ServerQueryPlan,
        /// Rows only whose keys are among those the joins above publish (runtime filters,
        /// each from a different stage).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        key_filters: Vec<KeyFilter>,
    },
    /// Planning only: where a stage boundary goes ([`Exchange`]). [`super::split`] cuts the
    /// planned tree at each into a stage of its own and a [`RelNode::Receive`] of its rows; no
    /// stage the engine runs holds one.
    Exchange(Box<Exchange>),
    /// Planning only: an operator binding asked for whose placement the distribution pass
    /// decides ([`Place`]); none is left once it has run.
    #[serde(skip)]
    Place(Box<Place>),
    /// The rows child stage `stage` sends to this worker.
    Receive {
        stage: StageId,
        types: Vec<ColumnType>,
    },
    /// Computed columns.
    Project {
        input: Box<RelNode>,
        exprs: Vec<Expr>,
    },
    /// Rows for which `condition` is TRUE.
    Filter {
        input: Box<RelNode>,
        condition: Expr,
    },
    /// Grouping and aggregation (see the module docs for the row layout per mode).
    Aggregate {
        input: Box<RelNode>,
        group_keys: Vec<usize>,
        aggregates: Vec<AggregateCall>,
        mode: AggMode,
        /// Output types: keys then aggregates (states count as their function's type).
        output_types: Vec<ColumnType>,
        /// Groups kept (`numGroupsLimit`, or the block's `aggOptions(num_groups_limit=…)`):
        /// rows of later groups are dropped and the answer says `numGroupsLimitReached`.
        #[serde(default = "default_groups_limit")]
        groups_limit: usize,
    },
    /// A hash join on `left_keys = right_keys` (empty: a nested-loop/cross join), then
    /// `condition` over the joined row.
    Join {
        left: Box<RelNode>,
        right: Box<RelNode>,
        kind: JoinKind,
        left_keys: Vec<usize>,
        right_keys: Vec<usize>,
        condition: Option<Expr>,
        /// An ASOF join's match condition: each left row joins only its closest right row
        /// among those with equal keys (kind `Inner`, or `Left` for `LEFT ASOF JOIN`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        asof: Option<AsofMatch>,
        /// Evaluate one side first and publish its distinct keys to the leaf stage that feeds
        /// the other side (a runtime filter).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        publish_keys: Option<PublishKeys>,
        /// `joinOptions(join_strategy='dynamic_broadcast')`: the left leaf is filtered by the
        /// right side's keys wherever a key filter can apply, worth the wait or not.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        dynamic_broadcast: bool,
    },
    /// Window functions over partitions of the input.
    Window {
        input: Box<RelNode>,
        partition_by: Vec<usize>,
        order_by: Vec<SortKey>,
        calls: Vec<WindowCall>,
    },
    /// Sort by `keys` (may be empty), skip `offset`, keep `limit` (None: all).
    Sort {
        input: Box<RelNode>,
        keys: Vec<SortKey>,
        offset: usize,
        limit: Option<usize>,
    },
    /// UNION / INTERSECT / EXCEPT of inputs with the same row types; `all` keeps duplicates.
    SetOp {
        kind: SetOpKind,
        all: bool,
        inputs: Vec<RelNode>,
    },
    /// Literal rows.
    Values {
        rows: Vec<Vec<Value>>,
        types: Vec<ColumnType>,
    },
}

fn default_groups_limit() -> usize {
    crate::plan::query_plan::DEFAULT_NUM_GROUPS_LIMIT
}

impl RelNode {
    /// This node, moved out; an empty `VALUES` stays in its place until the caller puts back
    /// what it builds around it.
    pub fn take(&mut self) -> RelNode {
        std::mem::replace(
            self,
            RelNode::Values {
                rows: Vec::new(),
                types: Vec::new(),
            },
        )
    }

    /// Types of the rows this node outputs.
    pub fn output_types(&self) -> Vec<ColumnType> {
        match self {
            RelNode::Leaf { plan, .. } => plan.kind.row_types(),
            RelNode::Receive { types, .. } | RelNode::Values { types, .. } => types.clone(),
            RelNode::Exchange(x) => x.input.output_types(),
            RelNode::Place(p) => p.request.output_types(),
            RelNode::Project { exprs, .. } => exprs.iter().map(Expr::column_type).collect(),
            RelNode::Filter { input, .. } | RelNode::Sort { input, .. } => input.output_types(),
            RelNode::Aggregate { output_types, .. } => output_types.clone(),
            RelNode::Join {
                left, right, kind, ..
            } => {
                let mut t = left.output_types();
                if !matches!(kind, JoinKind::Semi | JoinKind::Anti | JoinKind::NotIn) {
                    t.extend(right.output_types());
                }
                t
            }
            RelNode::Window { input, calls, .. } => {
                let mut t = input.output_types();
                t.extend(calls.iter().map(|c| c.output_type));
                t
            }
            RelNode::SetOp { inputs, .. } => inputs
                .first()
                .map(RelNode::output_types)
                .unwrap_or_default(),
        }
    }

    /// The direct inputs of this node.
    pub fn inputs(&self) -> Vec<&RelNode> {
        match self {
            RelNode::Leaf { .. } | RelNode::Receive { .. } | RelNode::Values { .. } => vec![],
            RelNode::Project { input, .. }
            | RelNode::Filter { input, .. }
            | RelNode::Aggregate { input, .. }
            | RelNode::Window { input, .. }
            | RelNode::Sort { input, .. } => vec![input],
            RelNode::Join { left, right, .. } => vec![left, right],
            RelNode::SetOp { inputs, .. } => inputs.iter().collect(),
            RelNode::Exchange(x) => vec![&x.input],
            RelNode::Place(p) => p.request.inputs(),
        }
    }

    /// The v1 plans of the leaves under this node, to change.
    pub fn leaf_plans_mut(&mut self) -> Vec<&mut ServerQueryPlan> {
        match self {
            RelNode::Leaf { plan, .. } => vec![plan],
            other => other
                .inputs_mut()
                .into_iter()
                .flat_map(RelNode::leaf_plans_mut)
                .collect(),
        }
    }

    /// The direct inputs of this node, to change.
    pub fn inputs_mut(&mut self) -> Vec<&mut RelNode> {
        match self {
            RelNode::Leaf { .. } | RelNode::Receive { .. } | RelNode::Values { .. } => vec![],
            RelNode::Project { input, .. }
            | RelNode::Filter { input, .. }
            | RelNode::Aggregate { input, .. }
            | RelNode::Window { input, .. }
            | RelNode::Sort { input, .. } => vec![input],
            RelNode::Join { left, right, .. } => vec![left, right],
            RelNode::SetOp { inputs, .. } => inputs.iter_mut().collect(),
            RelNode::Exchange(x) => vec![&mut x.input],
            RelNode::Place(p) => p.request.inputs_mut(),
        }
    }
}

/// How a sending stage's rows are spread over the workers of the stage that receives them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Distribution {
    /// Row goes to worker `hash(columns) % workers` (equal keys meet on one worker).
    Hash(Vec<usize>),
    /// Every row to every worker (the small side of a broadcast join).
    Broadcast,
    /// Every row to the one worker of the receiver (the root, a global sort or aggregate).
    Singleton,
    /// Rows spread evenly, no placement guarantee.
    Random,
}

/// Where a stage runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StageKind {
    /// The broker (stage 0 only).
    Root,
    /// The servers hosting `table_name`'s segments (raw name), one worker per server with
    /// that server's segments; the stage's tree bottoms out in a [`RelNode::Leaf`].
    Leaf { table: String },
    /// Servers, one worker each (or one worker in all when `singleton`).
    Intermediate { singleton: bool },
}

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
    /// A block's inner joins, whose order and sides the join-order rule chooses; none is left
    /// once it has run, before the distribution pass.
    Joins(JoinsRequest),
}

/// A block's inner joins before their order is chosen (Calcite's `MultiJoin`): the inputs,
/// each filtered by its own conjuncts, and the conjuncts over several of them. The join-order
/// rule ([`super::relational::order_joins`]) makes it a tree of [`Request::Join`]s. Its output
/// is the columns `output` of the inputs' columns side by side (in the inputs' order).
#[derive(Clone, Debug, PartialEq)]
pub struct JoinsRequest {
    pub inputs: Vec<JoinInput>,
    pub conjuncts: Vec<JoinConjunct>,
    /// The columns read above the joins, as positions among all inputs' columns, in order.
    pub output: Vec<usize>,
    /// Each join drops the columns nothing above it reads (the block lists no `*`).
    pub prune: bool,
    /// The order is chosen by estimated rows (some input has statistics, no hint chose the
    /// strategy); else it follows `FROM`.
    pub by_estimate: bool,
    /// The block's hints, which place each join.
    pub hints: JoinHints,
}

/// One input of a [`JoinsRequest`] and what binding estimated it outputs (its table's
/// statistics after its own conjuncts; a derived input's is unknown), which the join-order rule
/// reads where the input's operators give no estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct JoinInput {
    pub node: RelNode,
    pub estimate: RowsEstimate,
}

/// A conjunct over several inputs of a [`JoinsRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct JoinConjunct {
    /// The inputs it reads (by index).
    pub inputs: BTreeSet<usize>,
    /// It is an equality (`=`), of columns or not.
    pub equality: bool,
    pub kind: ConjunctKind,
}

/// What a conjunct of a [`JoinsRequest`] is to the join that takes it.
#[derive(Clone, Debug, PartialEq)]
pub enum ConjunctKind {
    /// A column of one input equals one of another (positions among all inputs' columns):
    /// a hash key.
    Key(usize, usize),
    /// Anything else, over all inputs' columns side by side: part of the join's condition.
    Condition(Expr),
}

impl JoinsRequest {
    /// The input output column `column` comes from, and its index among that input's columns.
    pub fn input_of(&self, column: usize) -> Option<(usize, usize)> {
        let mut at = *self.output.get(column)?;
        for (i, input) in self.inputs.iter().enumerate() {
            let width = input.node.output_types().len();
            if at < width {
                return Some((i, at));
            }
            at -= width;
        }
        None
    }
}

impl JoinConjunct {
    /// Adds the columns it reads (positions among all inputs' columns) to `out`.
    pub fn columns(&self, out: &mut BTreeSet<usize>) {
        match &self.kind {
            ConjunctKind::Key(a, b) => {
                out.insert(*a);
                out.insert(*b);
            }
            ConjunctKind::Condition(e) => e.visit(&mut |n| {
                if let Expr::Input(i) = n {
                    out.insert(i.index);
                }
            }),
        }
    }
}

/// A join and what the block's hints say of its placement.
#[derive(Clone, Debug, PartialEq)]
pub struct JoinRequest {
    pub join: RelNode,
    /// A lookup join (`joinOptions(join_strategy='lookup')`): the right side, a dimension
    /// table, broadcast to the left side's workers.
    pub lookup: bool,
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
            Request::Joins(j) => j.inputs.iter().map(|i| &i.node).collect(),
        }
    }

    /// The inputs of the operator asked for, to change.
    pub fn inputs_mut(&mut self) -> Vec<&mut RelNode> {
        match self {
            Request::Join(j) => j.join.inputs_mut(),
            Request::Aggregate(a) => vec![&mut a.input],
            Request::Gather(n) | Request::Alone(n) => vec![n],
            Request::Joins(j) => j.inputs.iter_mut().map(|i| &mut i.node).collect(),
        }
    }

    /// The types of the rows the operator outputs, however it is placed.
    pub fn output_types(&self) -> Vec<ColumnType> {
        match self {
            Request::Join(j) => j.join.output_types(),
            Request::Aggregate(a) => a.output_types.clone(),
            Request::Gather(n) | Request::Alone(n) => n.output_types(),
            Request::Joins(j) => {
                let all: Vec<ColumnType> = j
                    .inputs
                    .iter()
                    .flat_map(|i| i.node.output_types())
                    .collect();
                j.output
                    .iter()
                    .filter_map(|&p| all.get(p).copied())
                    .collect()
            }
        }
    }
}
