//! The multi-stage (v2) plan: what the broker runs when a query asks for
//! `useMultistageEngine=true`.
//!
//! ```text
//! Statement ──bind──► RelNode tree (one per query: leaves as RelNode::Exchange; each block's
//!                      inner joins, groupings, gathers as RelNode::Place requests)
//!           ──semi_pushdown──► semi joins on one key onto the input of inner joins they test
//!           ──filter_pushdown──► filters (with a join to one row they read) below semi joins
//!                                and onto the one input of inner joins they read
//!           ──order_joins──► each block's inner joins a tree of join requests, by estimate
//!           ──placement──► the same tree, every request resolved into operators and exchanges
//!           ──limit_pushdown──► each worker's first rows of a LIMIT sent alone
//!           ──split──► MultiStagePlan { stages: [Stage 0 (broker root), Stage 1.., leaf stages] }
//!           ──key_filter──► runtime key filters between the stages
//! ```
//!
//! A [`MultiStagePlan`] is a tree of [`Stage`]s (Pinot's `PlanFragment`s) cut at exchanges
//! (Pinot's `PinotLogicalExchange`). Each stage is a tree of relational operators
//! ([`RelNode`]); a stage reads its children's output through [`RelNode::Receive`] and sends
//! its own output to its parent stage as the parent's [`Stage::input_distribution`] says: hashed on
//! key columns, broadcast to every worker, all to one worker (singleton), or spread at random.
//!
//! * Stage 0 is the root: it runs on the broker, receives the final rows and shapes the result
//!   (names in [`MultiStagePlan::columns`]).
//! * A **leaf** stage ([`RelNode::Leaf`]) is a v1 [`ServerQueryPlan`](crate::plan::ServerQueryPlan) run by the servers that
//!   host the table's segments: filters, projections and partial aggregations are pushed into
//!   it, so v2 uses every index v1 uses. Its output rows are the v1 intermediate row layout
//!   (selection columns; or group keys followed by one aggregation state per aggregate).
//! * **Intermediate** stages (joins, final aggregations, windows, set operations) run on the
//!   servers, each worker receiving one hash partition of its inputs.
//!
//! Every value between operators is a row column of a known [`ColumnType`](crate::plan::ColumnType); expressions over
//! a node's input read it through [`Expr::Input`](crate::plan::Expr::Input) (index into the input row). Column names of
//! intermediate rows exist only for EXPLAIN; the result's names are
//! [`MultiStagePlan::columns`].
//!
//! Everything derives serde: the broker ships each stage to the servers that run it.
//!
//! * [`bind`] — statements to multi-stage plans.
//! * [`relational`] — any query cut into stages: joins, subqueries, `WITH`, set operations,
//!   windows, and the distribution pass; [`relation`] its vocabulary.
//! * [`single_table`] — a single-table block as leaf (v1 server plan) → final aggregation.
//! * [`rel`] — the relational operators, and the planning-only exchanges and requests.
//! * [`stage`] — stages, exchanges, distributions; [`split`] cuts a planned tree into them.
//! * [`distribution`] — where rows already are, so no exchange repeats a placement.
//! * [`limit_pushdown`] — a sort's limit copied below the gather.
//! * [`key_filter`] — runtime key filters from a join to the leaf feeding its other side.
//! * [`estimate`] — cardinality estimates from table statistics; [`rows_estimate`] what an
//!   operator is estimated to output (rows, each column's distinct values).

pub mod bind;
pub mod distribution;
pub mod estimate;
pub mod hints;
pub mod key_filter;
pub mod limit_pushdown;
pub mod rel;
pub mod relation;
pub mod relational;
pub mod rows_estimate;
pub mod single_table;
pub mod split;
pub mod stage;

pub use rel::{
    AggMode, AsofMatch, AsofOp, JoinKind, KeyFilter, PublishKeys, RelNode, SetOpKind, WindowCall,
    WindowFrame, WindowFunction,
};
pub use stage::{Distribution, MultiStagePlan, Stage, StageId, StageKind};
