//! A `SELECT` block's query hints as types (Pinot's `PinotHintOptions`):
//!
//! * `joinOptions(join_strategy='hash'|'lookup', max_rows_in_join=N,
//!   join_overflow_mode='THROW'|'BREAK')` — `lookup` joins without moving the left side: the
//!   right side (a dimension table, `isDimTable`, small by design) is broadcast to every worker
//!   of the join, each left worker's rows stay with one worker; like Pinot, the planner refuses
//!   it without equality keys, for RIGHT and FULL joins, and over anything but a dimension
//!   table's scan. It applies to the joins written in the block's `FROM`, not to those the
//!   planner makes for subqueries. The limits override the query options'.
//! * `aggOptions(is_skip_leaf_stage_group_by='true', num_groups_limit=N)` — the block's
//!   aggregation runs above the leaf stage instead of in it (the leaf sends rows, not groups),
//!   and keeps at most N groups in each of its aggregates (leaf and final; the query's
//!   `numGroupsLimit` otherwise), as Pinot's. `is_skip_leaf_stage_aggregate`,
//!   `is_partitioned_by_group_by_keys`, `is_enable_group_trim`,
//!   `max_initial_result_holder_capacity` and `tableOptions(…)` are read and checked: they tune
//!   Pinot's partitioning and memory, which changes no answer here.
//!
//! * `joinOptions(join_strategy='dynamic_broadcast')` — the right side's keys are sent to the
//!   leaf reading the left side before it scans (a runtime key filter, see `key_filter`), also
//!   where the planner would not think it worth the wait; it applies to the block's semi joins
//!   (`IN (subquery)`) as well. `left_distribution_type` / `right_distribution_type`
//!   (`'local'`, `'random'`, `'hash'`, `'broadcast'`) place a side's rows: one side broadcast,
//!   the other stays where it is (refused where the join would then answer wrongly: a
//!   broadcast side must be one whose unmatched rows are not output).
//!   `is_colocated_by_join_keys` and `append_distinct_to_semi_join_project` are read and
//!   checked.
//! * `aggOptions(error_on_num_groups_limit='true')` — reaching the groups limit fails the
//!   query ("NUM_GROUPS_LIMIT has been reached", as Pinot's), instead of answering with the
//!   groups kept; the query option `errorOnNumGroupsLimit` does the same for every aggregate.
//!   `is_leaf_return_final_result`, `mse_min_group_trim_size` and
//!   `mse_max_initial_result_holder_capacity` are read and checked.
//! * `windowOptions(is_partitioned_by_window_keys=…)`, `setOpOptions(is_colocated_by_set_op_keys
//!   =…)` and `tableOptions(partition_key, partition_function, partition_size,
//!   partition_parallelism, is_replicated)` are read and checked: they tell Pinot how data is
//!   already placed, which changes no answer here.
//!
//! Other hint names are ignored, as Calcite ignores hints it has no strategy for; a known option
//! with a value that does not read fails the query.

use crate::options::JoinOverflowMode;
use crate::plan::error::PlanError;
use crate::sql::ast::Hint;

/// How a hinted join moves its inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JoinStrategy {
    /// Both sides hashed on the join keys (or, without keys, gathered on one worker).
    #[default]
    Hash,
    /// The right side broadcast to the join's workers, the left side left where it is.
    Lookup,
    /// A hash join whose left leaf is filtered by the right side's keys first.
    DynamicBroadcast,
}

/// Where a hinted join sends one side's rows (`left_distribution_type` /
/// `right_distribution_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideDistribution {
    /// Stays with the worker that produced it (`'local'`, `'random'`).
    Local,
    /// Hashed on the join keys (`'hash'`, the default).
    Hash,
    /// Every join worker gets all of it (`'broadcast'`).
    Broadcast,
}

/// `joinOptions(…)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JoinHints {
    pub strategy: JoinStrategy,
    pub max_rows_in_join: Option<usize>,
    pub join_overflow_mode: Option<JoinOverflowMode>,
    pub left_distribution: Option<SideDistribution>,
    pub right_distribution: Option<SideDistribution>,
}

/// `windowOptions(max_rows_in_window=N, window_overflow_mode='THROW'|'BREAK')`: they override
/// the query options'.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowHints {
    pub max_rows_in_window: Option<usize>,
    pub window_overflow_mode: Option<JoinOverflowMode>,
}

/// `aggOptions(…)` that change the plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AggHints {
    /// `is_skip_leaf_stage_group_by`: group above the leaf stage, not in it.
    pub skip_leaf_group_by: bool,
    /// `num_groups_limit`: groups each aggregate keeps (the query's `numGroupsLimit` otherwise).
    pub num_groups_limit: Option<usize>,
    /// `error_on_num_groups_limit`: reaching the limit fails the query (the query's
    /// `errorOnNumGroupsLimit` otherwise).
    pub error_on_num_groups_limit: Option<bool>,
}

/// The hints of one `SELECT` block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockHints {
    pub join: JoinHints,
    pub window: WindowHints,
    pub agg: AggHints,
}

fn invalid(hint: &str, key: &str, value: &str) -> PlanError {
    PlanError::Planning(format!(
        "Invalid value '{value}' for hint option '{key}' of '{hint}'"
    ))
}

fn boolean(hint: &str, key: &str, value: &str) -> Result<bool, PlanError> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(invalid(hint, key, value)),
    }
}

fn overflow(hint: &str, key: &str, value: &str) -> Result<JoinOverflowMode, PlanError> {
    JoinOverflowMode::parse(value).ok_or_else(|| invalid(hint, key, value))
}

fn distribution(hint: &str, key: &str, value: &str) -> Result<SideDistribution, PlanError> {
    match value.to_ascii_lowercase().as_str() {
        "local" | "random" => Ok(SideDistribution::Local),
        "hash" => Ok(SideDistribution::Hash),
        "broadcast" => Ok(SideDistribution::Broadcast),
        _ => Err(invalid(hint, key, value)),
    }
}

fn count(hint: &str, key: &str, value: &str) -> Result<usize, PlanError> {
    value
        .parse::<usize>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| invalid(hint, key, value))
}

impl BlockHints {
    /// The typed hints of `hints` (as written after `SELECT`).
    pub fn from_ast(hints: &[Hint]) -> Result<BlockHints, PlanError> {
        let mut out = BlockHints::default();
        for h in hints {
            for (key, value) in &h.options {
                let name = h.name.as_str();
                match (name, key.as_str()) {
                    ("joinOptions", "join_strategy") => {
                        out.join.strategy = match value.to_ascii_lowercase().as_str() {
                            "hash" => JoinStrategy::Hash,
                            "lookup" => JoinStrategy::Lookup,
                            "dynamic_broadcast" => JoinStrategy::DynamicBroadcast,
                            _ => return Err(invalid(name, key, value)),
                        }
                    }
                    ("joinOptions", "left_distribution_type") => {
                        out.join.left_distribution = Some(distribution(name, key, value)?)
                    }
                    ("joinOptions", "right_distribution_type") => {
                        out.join.right_distribution = Some(distribution(name, key, value)?)
                    }
                    (
                        "joinOptions",
                        "is_colocated_by_join_keys" | "append_distinct_to_semi_join_project",
                    )
                    | ("windowOptions", "is_partitioned_by_window_keys")
                    | ("setOpOptions", "is_colocated_by_set_op_keys")
                    | ("tableOptions", "is_replicated")
                    | ("aggOptions", "is_leaf_return_final_result") => {
                        boolean(name, key, value)?;
                    }
                    ("aggOptions", "error_on_num_groups_limit") => {
                        out.agg.error_on_num_groups_limit = Some(boolean(name, key, value)?)
                    }
                    (
                        "aggOptions",
                        "mse_min_group_trim_size" | "mse_max_initial_result_holder_capacity",
                    )
                    | ("tableOptions", "partition_size" | "partition_parallelism") => {
                        count(name, key, value)?;
                    }
                    ("joinOptions", "max_rows_in_join") => {
                        out.join.max_rows_in_join = Some(count(name, key, value)?)
                    }
                    ("joinOptions", "join_overflow_mode") => {
                        out.join.join_overflow_mode = Some(overflow(name, key, value)?)
                    }
                    ("windowOptions", "max_rows_in_window") => {
                        out.window.max_rows_in_window = Some(count(name, key, value)?)
                    }
                    ("windowOptions", "window_overflow_mode") => {
                        out.window.window_overflow_mode = Some(overflow(name, key, value)?)
                    }
                    ("aggOptions", "is_skip_leaf_stage_group_by") => {
                        out.agg.skip_leaf_group_by = boolean(name, key, value)?
                    }
                    ("aggOptions", "num_groups_limit") => {
                        out.agg.num_groups_limit = Some(count(name, key, value)?)
                    }
                    (
                        "aggOptions",
                        "is_skip_leaf_stage_aggregate"
                        | "is_partitioned_by_group_by_keys"
                        | "is_enable_group_trim",
                    ) => {
                        boolean(name, key, value)?;
                    }
                    ("aggOptions", "max_initial_result_holder_capacity") => {
                        count(name, key, value)?;
                    }
                    _ => {}
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(name: &str, options: &[(&str, &str)]) -> Hint {
        Hint {
            name: name.into(),
            options: options
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn join_options_read_and_bad_values_fail() {
        let h = BlockHints::from_ast(&[hint(
            "joinOptions",
            &[
                ("join_strategy", "lookup"),
                ("max_rows_in_join", "10"),
                ("join_overflow_mode", "BREAK"),
            ],
        )])
        .unwrap();
        assert_eq!(h.join.strategy, JoinStrategy::Lookup);
        assert_eq!(h.join.max_rows_in_join, Some(10));
        assert_eq!(h.join.join_overflow_mode, Some(JoinOverflowMode::Break));
        assert!(BlockHints::from_ast(&[hint("joinOptions", &[("join_strategy", "x")])]).is_err());
        assert!(
            BlockHints::from_ast(&[hint("aggOptions", &[("is_skip_leaf_stage_group_by", "1")])])
                .is_err()
        );
        assert_eq!(
            BlockHints::from_ast(&[hint("someOtherHint", &[("a", "b")])]).unwrap(),
            BlockHints::default()
        );
    }

    #[test]
    fn agg_options_read() {
        let h = BlockHints::from_ast(&[hint(
            "aggOptions",
            &[
                ("is_skip_leaf_stage_group_by", "TRUE"),
                ("num_groups_limit", "3"),
                ("is_partitioned_by_group_by_keys", "false"),
            ],
        )])
        .unwrap();
        assert_eq!(
            h.agg,
            AggHints {
                skip_leaf_group_by: true,
                num_groups_limit: Some(3),
                error_on_num_groups_limit: None,
            }
        );
        assert!(BlockHints::from_ast(&[hint("aggOptions", &[("num_groups_limit", "0")])]).is_err());
    }
}
