//! Stages and the exchanges between them.

use super::rel::RelNode;
pub use super::rel::{Distribution, StageId, StageKind};
use super::rows_estimate::RowsEstimate;
use crate::plan::query_plan::ExecutionOptions;
use segments::types::ColumnType;
use serde::{Deserialize, Serialize};

/// One stage: a tree of operators run by one or more workers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stage {
    pub id: StageId,
    pub kind: StageKind,
    pub root: RelNode,
    /// The stage this one sends its rows to (`None` for the root).
    pub parent: Option<StageId>,
    /// How the rows this stage *receives* from each child are spread over its workers, per
    /// child stage id (the distribution is decided by the receiving side of an exchange, as in
    /// Pinot's `PinotLogicalExchange` above the sender).
    pub input_distribution: Vec<(StageId, Distribution)>,
    /// Types of the rows this stage outputs.
    pub output_types: Vec<ColumnType>,
    /// What a leaf stage is estimated to send: its table's statistics after its filter (none
    /// without statistics). The key filters and `EXPLAIN` read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<RowsEstimate>,
}

/// A planned multi-stage query.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MultiStagePlan {
    /// All stages; `stages[i].id == i`; `stages[0]` is the root.
    pub stages: Vec<Stage>,
    /// Result column names and types, in order (the root's output).
    pub columns: Vec<(String, ColumnType)>,
    /// Options every stage honours (timeout, null handling, join limits).
    pub options: ExecutionOptions,
    /// Options of the v2 engine only.
    pub v2_options: MultiStageOptions,
    /// `EXPLAIN PLAN FOR`: describe the stages instead of running them.
    pub explain: bool,
    /// Some stage evaluates `stageId(col)` or `workerId(col)` per row: each worker binds its
    /// own ids into its stage ([`crate::plan::identity::bind_worker`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub worker_identity: bool,
}

pub use crate::options::JoinOverflowMode;

/// Typed v2 query options (`maxRowsInJoin`, `joinOverflowMode`, …).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MultiStageOptions {
    /// Pinot's default: 1,048,576 rows.
    pub max_rows_in_join: usize,
    pub join_overflow_mode: JoinOverflowMode,
    /// Rows a window operator may hold (Pinot's `maxRowsInWindow`, default 1,048,576).
    pub max_rows_in_window: usize,
    /// `windowOverflowMode`: what a window past `max_rows_in_window` does.
    #[serde(default)]
    pub window_overflow_mode: JoinOverflowMode,
    /// `stageParallelism`: workers per server of a partitioned intermediate stage (Pinot's
    /// default 1).
    #[serde(default = "one")]
    pub stage_parallelism: usize,
}

fn one() -> usize {
    1
}

impl Default for MultiStageOptions {
    fn default() -> MultiStageOptions {
        MultiStageOptions {
            max_rows_in_join: 1 << 20,
            join_overflow_mode: JoinOverflowMode::Throw,
            max_rows_in_window: 1 << 20,
            window_overflow_mode: JoinOverflowMode::Throw,
            stage_parallelism: 1,
        }
    }
}

impl MultiStagePlan {
    /// The stages that send to `id`.
    pub fn children(&self, id: StageId) -> impl Iterator<Item = &Stage> {
        self.stages.iter().filter(move |s| s.parent == Some(id))
    }

    /// Whether stage `upper` is an ancestor of stage `lower`: `lower`'s rows reach `upper`
    /// through the stages between (a join there may filter the leaf `lower` with its keys).
    pub fn is_above(&self, upper: StageId, lower: StageId) -> bool {
        let mut at = self.stages.get(lower).and_then(|s| s.parent);
        for _ in 0..self.stages.len() {
            match at {
                Some(p) if p == upper => return true,
                Some(p) => at = self.stages.get(p).and_then(|s| s.parent),
                None => return false,
            }
        }
        false
    }
}
