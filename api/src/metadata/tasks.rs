//! Minion tasks as the controller keeps them: a task (`Task_<type>_<uuid>_<ms>`) of one table
//! holds subtasks (`<task>_<i>`), each a typed [`SubtaskSpec`] a minion runs — which segments to
//! read, how to merge their rows, where the result goes — with its state, the minion running
//! it and how many times it was tried. Per table and task type, [`TaskMetadata`] keeps the
//! watermarks the generators advance (Pinot's `MINION_TASK_METADATA` ZNRecord).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The task types a minion runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TaskType {
    MergeRollupTask,
    RealtimeToOfflineSegmentsTask,
    PurgeTask,
}

impl TaskType {
    pub const ALL: [TaskType; 3] = [
        TaskType::MergeRollupTask,
        TaskType::RealtimeToOfflineSegmentsTask,
        TaskType::PurgeTask,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TaskType::MergeRollupTask => "MergeRollupTask",
            TaskType::RealtimeToOfflineSegmentsTask => "RealtimeToOfflineSegmentsTask",
            TaskType::PurgeTask => "PurgeTask",
        }
    }

    pub fn parse(name: &str) -> Option<TaskType> {
        TaskType::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// A task's state (Helix's `TaskState` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TaskState {
    NotStarted,
    InProgress,
    Completed,
    Failed,
}

/// A subtask's state (Helix's `TaskPartitionState` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SubtaskState {
    /// Waiting for a minion.
    Init,
    Running,
    Completed,
    TaskError,
}

impl SubtaskState {
    pub fn is_done(self) -> bool {
        matches!(self, SubtaskState::Completed | SubtaskState::TaskError)
    }
}

/// How the rows of the input segments become the output's (`mergeType`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MergeType {
    /// Every row, as it is.
    #[default]
    Concat,
    /// Rows equal in every dimension (and the rounded time) become one, metrics aggregated.
    Rollup,
    /// Rows equal in every column become one.
    Dedup,
}

impl MergeType {
    pub fn parse(text: &str) -> Option<MergeType> {
        match text.trim().to_ascii_uppercase().as_str() {
            "CONCAT" => Some(MergeType::Concat),
            "ROLLUP" => Some(MergeType::Rollup),
            "DEDUP" => Some(MergeType::Dedup),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MergeType::Concat => "concat",
            MergeType::Rollup => "rollup",
            MergeType::Dedup => "dedup",
        }
    }
}

/// How a rollup aggregates a metric (`<column>.aggregationType`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AggregationType {
    #[default]
    Sum,
    Min,
    Max,
}

impl AggregationType {
    pub fn parse(text: &str) -> Option<AggregationType> {
        match text.trim().to_ascii_uppercase().as_str() {
            "SUM" => Some(AggregationType::Sum),
            "MIN" => Some(AggregationType::Min),
            "MAX" => Some(AggregationType::Max),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            AggregationType::Sum => "sum",
            AggregationType::Min => "min",
            AggregationType::Max => "max",
        }
    }
}

/// How a minion turns input rows into output rows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MergeSpec {
    pub merge_type: MergeType,
    /// Time values are rounded down to this period before rows are merged (rollup).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_bucket_ms: Option<i64>,
    /// Output segments hold at most this many rows.
    pub max_records_per_segment: u64,
    /// Metric → aggregation (rollup); a metric not named is summed.
    #[serde(default)]
    pub aggregations: BTreeMap<String, AggregationType>,
    /// Only rows whose time (epoch millis) is in `[start, end)` (real-time to offline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_ms: Option<(i64, i64)>,
    /// Rows this SQL predicate is true for are dropped (purge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purge_filter: Option<String>,
}

/// What a subtask's output segments do to the output table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OutputMode {
    /// They replace the input segments atomically (segment lineage): merge and rollup.
    Replace,
    /// They are added atomically (segment lineage from nothing): real-time to offline.
    Add,
    /// The one output refreshes the one input in place, if its CRC is still the task's: purge.
    Refresh,
}

/// What one subtask does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubtaskSpec {
    /// The typed table read.
    pub table: String,
    /// The typed table written (the OFFLINE table for real-time to offline).
    pub output_table: String,
    /// The segments read, with the CRC each had when the task was made: a segment refreshed
    /// or gone since fails the subtask instead of replacing newer data.
    pub input_segments: Vec<(String, u32)>,
    /// Output segments are `<prefix>_<i>`.
    pub output_prefix: String,
    pub merge: MergeSpec,
    /// What the outputs do to the output table.
    pub output: OutputMode,
    /// `MergeRollupTask`'s level (`1day`): recorded on the outputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge_level: Option<String>,
    /// The watermark this subtask's success sets (`watermarkMs`, `watermarkMs_<level>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watermark: Option<(String, i64)>,
}

/// One subtask and where it stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subtask {
    /// `<task>_<i>`.
    pub id: String,
    pub spec: SubtaskSpec,
    pub state: SubtaskState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minion: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_ms: Option<i64>,
    /// Times a minion took it (a minion lost while running it gives it back).
    #[serde(default)]
    pub attempts: u32,
    /// Why it failed, or what it made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<String>,
    /// The segment lineage entry its replacement runs under, once started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lineage_entry: Option<String>,
}

impl Subtask {
    /// A subtask waiting for a minion.
    pub fn new(id: String, spec: SubtaskSpec) -> Subtask {
        Subtask {
            id,
            spec,
            state: SubtaskState::Init,
            minion: None,
            started_ms: None,
            finished_ms: None,
            attempts: 0,
            info: None,
            lineage_entry: None,
        }
    }
}

/// A task: subtasks of one type over one table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    pub name: String,
    pub task_type: TaskType,
    /// The typed table.
    pub table: String,
    pub created_ms: i64,
    /// `MANUAL_TRIGGER` (`POST /tasks/schedule`) or `CRON_TRIGGER` (the periodic scheduler).
    pub triggered_by: String,
    pub subtasks: Vec<Subtask>,
}

impl TaskRecord {
    /// The task's state from its subtasks'.
    pub fn state(&self) -> TaskState {
        let done = self.subtasks.iter().filter(|s| s.state.is_done()).count();
        let failed = self
            .subtasks
            .iter()
            .any(|s| s.state == SubtaskState::TaskError);
        if done == self.subtasks.len() {
            if failed {
                TaskState::Failed
            } else {
                TaskState::Completed
            }
        } else if done == 0 && self.subtasks.iter().all(|s| s.state == SubtaskState::Init) {
            TaskState::NotStarted
        } else {
            TaskState::InProgress
        }
    }

    /// Whether some subtask is yet to finish.
    pub fn is_incomplete(&self) -> bool {
        self.subtasks.iter().any(|s| !s.state.is_done())
    }

    /// Pinot's flat string configs of subtask `s` (`GET /tasks/task/{t}/config`).
    pub fn configs(&self, s: &Subtask) -> BTreeMap<String, String> {
        let spec = &s.spec;
        let mut c = BTreeMap::new();
        c.insert("tableName".into(), spec.table.clone());
        c.insert(
            "segmentName".into(),
            spec.input_segments
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(","),
        );
        c.insert("mergeType".into(), spec.merge.merge_type.name().into());
        c.insert(
            "maxNumRecordsPerSegment".into(),
            spec.merge.max_records_per_segment.to_string(),
        );
        for (column, agg) in &spec.merge.aggregations {
            c.insert(format!("{column}.aggregationType"), agg.name().into());
        }
        if let Some(r) = spec.merge.round_bucket_ms {
            c.insert("roundBucketTimePeriod".into(), format!("{r}ms"));
        }
        if let Some((start, end)) = spec.merge.window_ms {
            c.insert("windowStartMs".into(), start.to_string());
            c.insert("windowEndMs".into(), end.to_string());
        }
        if let Some(level) = &spec.merge_level {
            c.insert("mergeLevel".into(), level.clone());
        }
        if let Some(f) = &spec.merge.purge_filter {
            c.insert("filterFunction".into(), f.clone());
        }
        c.insert("segmentNamePrefix".into(), spec.output_prefix.clone());
        c.insert(
            "enableReplaceSegments".into(),
            (spec.output == OutputMode::Replace).to_string(),
        );
        c.insert("triggeredBy".into(), self.triggered_by.clone());
        c.insert("TASK_ID".into(), s.id.clone());
        c
    }
}

/// A table's metadata for one task type (Pinot's ZNRecord: watermarks in `simpleFields`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskMetadata {
    pub id: String,
    #[serde(default)]
    pub simple_fields: BTreeMap<String, String>,
    #[serde(default)]
    pub map_fields: BTreeMap<String, BTreeMap<String, String>>,
    #[serde(default)]
    pub list_fields: BTreeMap<String, Vec<String>>,
}

impl TaskMetadata {
    /// A watermark (`watermarkMs`, `watermarkMs_<level>`).
    pub fn watermark(&self, key: &str) -> Option<i64> {
        self.simple_fields.get(key)?.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subtask(state: SubtaskState) -> Subtask {
        let spec = SubtaskSpec {
            table: "t_OFFLINE".into(),
            output_table: "t_OFFLINE".into(),
            input_segments: vec![("a".into(), 1)],
            output_prefix: "merged".into(),
            merge: MergeSpec::default(),
            output: OutputMode::Replace,
            merge_level: None,
            watermark: None,
        };
        Subtask {
            state,
            ..Subtask::new("t_0".into(), spec)
        }
    }

    #[test]
    fn a_task_is_as_far_as_its_subtasks() {
        let mut t = TaskRecord {
            name: "Task_MergeRollupTask_x_1".into(),
            task_type: TaskType::MergeRollupTask,
            table: "t_OFFLINE".into(),
            created_ms: 1,
            triggered_by: "MANUAL_TRIGGER".into(),
            subtasks: vec![subtask(SubtaskState::Init), subtask(SubtaskState::Init)],
        };
        assert_eq!(t.state(), TaskState::NotStarted);
        t.subtasks[0].state = SubtaskState::Running;
        assert_eq!(t.state(), TaskState::InProgress);
        t.subtasks[0].state = SubtaskState::Completed;
        assert_eq!(t.state(), TaskState::InProgress);
        t.subtasks[1].state = SubtaskState::Completed;
        assert_eq!(t.state(), TaskState::Completed);
        t.subtasks[1].state = SubtaskState::TaskError;
        assert_eq!(t.state(), TaskState::Failed);
        assert_eq!(TaskType::parse("PurgeTask"), Some(TaskType::PurgeTask));
        assert_eq!(MergeType::parse("rollup"), Some(MergeType::Rollup));
    }
}
