//! The key layout of the controller's metadata (one place, so a new store backend or a
//! migration reads it here):
//!
//! | key | value |
//! |---|---|
//! | `schemas/<schemaName>` | schema JSON |
//! | `tables/<tableNameWithType>` | table config JSON |
//! | `segments/<tableNameWithType>/<segmentName>` | segment record JSON (incl. assignment) |
//! | `instances/<instanceId>` | instance record JSON |
//! | `version` | the metadata version, bumped by every commit (decimal text) |
//! | `idealstates/<tableNameWithType>` | Helix's ideal state of the table (a view, ZooKeeper only) |
//! | `externalview/<tableNameWithType>` | Helix's external view of the table (a view, ZooKeeper only) |
//! | `lastChange` | the last commit's [`super::changes::Change`] (JSON), which brokers and servers watch |
//! | `lineage/<tableNameWithType>` | the table's [`super::lineage::SegmentLineage`] |
//! | `tasks/<taskType>/<taskName>` | a minion task's [`super::tasks::TaskRecord`] |
//! | `minion_task_metadata/<tableNameWithType>/<taskType>` | the table's [`super::tasks::TaskMetadata`] for a task type |

/// Key of a schema.
pub fn schema(name: &str) -> String {
    format!("schemas/{name}")
}
/// Prefix of all schemas.
pub const SCHEMAS: &str = "schemas/";

/// Key of a table config.
pub fn table(name_with_type: &str) -> String {
    format!("tables/{name_with_type}")
}
/// Prefix of all table configs.
pub const TABLES: &str = "tables/";

/// Key of a segment record.
pub fn segment(table_with_type: &str, segment: &str) -> String {
    format!("segments/{table_with_type}/{segment}")
}
/// Prefix of a table's segment records.
pub fn segments_of(table_with_type: &str) -> String {
    format!("segments/{table_with_type}/")
}
/// Prefix of all segment records.
pub const SEGMENTS: &str = "segments/";

/// Key of an instance record.
pub fn instance(id: &str) -> String {
    format!("instances/{id}")
}
/// Prefix of all instances.
pub const INSTANCES: &str = "instances/";

/// Key of the metadata version.
pub const VERSION: &str = "version";

/// Key of the last commit's change.
pub const LAST_CHANGE: &str = "lastChange";

/// Key of a table's ideal-state view.
pub fn ideal_state(table_with_type: &str) -> String {
    format!("{IDEAL_STATES}{table_with_type}")
}
/// Prefix of the ideal-state views.
pub const IDEAL_STATES: &str = "idealstates/";

/// Key of a table's external view.
pub fn external_view(table_with_type: &str) -> String {
    format!("{EXTERNAL_VIEWS}{table_with_type}")
}
/// Prefix of the external views.
pub const EXTERNAL_VIEWS: &str = "externalview/";

/// Key of a table's segment lineage.
pub fn lineage(table_with_type: &str) -> String {
    format!("{LINEAGE}{table_with_type}")
}
/// Prefix of the segment lineages.
pub const LINEAGE: &str = "lineage/";

/// Key of a minion task.
pub fn task(task_type: &str, name: &str) -> String {
    format!("{TASKS}{task_type}/{name}")
}
/// Prefix of the minion tasks of one type.
pub fn tasks_of(task_type: &str) -> String {
    format!("{TASKS}{task_type}/")
}
/// Prefix of all minion tasks.
pub const TASKS: &str = "tasks/";

/// Key of a table's metadata for one minion task type (its watermarks).
pub fn task_metadata(table_with_type: &str, task_type: &str) -> String {
    format!("{TASK_METADATA}{table_with_type}/{task_type}")
}
/// Prefix of a table's minion task metadata.
pub fn task_metadata_of(table_with_type: &str) -> String {
    format!("{TASK_METADATA}{table_with_type}/")
}
/// Prefix of all minion task metadata.
pub const TASK_METADATA: &str = "minion_task_metadata/";
