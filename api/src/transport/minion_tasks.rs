//! What a minion and the controller exchange about tasks: the controller hands a minion one
//! subtask at a time ([`TaskAssignment`], with the schema and the output table's config it
//! builds with), and the minion reports it done — with the segment archives it built — or
//! failed ([`TaskReport`]). Over HTTP: `POST /tessera/tasks/next?minion=…` (204: nothing to do)
//! and `POST /tessera/tasks/finish` (multipart: the report as field `report`, each archive as a
//! `segment` file part).

use crate::metadata::tasks::{SubtaskSpec, TaskType};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// A subtask for a minion to run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskAssignment {
    pub task_name: String,
    pub task_type: TaskType,
    pub subtask_id: String,
    pub spec: SubtaskSpec,
    /// The raw table's schema, as stored.
    pub schema: Json,
    /// The output table's config, as stored.
    pub output_config: Json,
}

/// How a minion's subtask ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskReport {
    pub minion: String,
    pub task_type: TaskType,
    pub task_name: String,
    pub subtask_id: String,
    /// Why it failed (`None`: done, its archives attached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
