//! From a statement to a [`MultiStagePlan`]: a query without a table stays the v1 literal plan;
//! every other query is planned by the [`relational`](super::relational) binder, single-table
//! blocks taking the [`single_table`](super::single_table) shape, and the result is gathered
//! into the root stage on the broker; the planned tree is then [`split`] into its stages.

use super::limit_pushdown::push_limits;
use super::rel::Request;
use super::relational::Planner;
use super::relational::filter_pushdown::push_filters;
use super::relational::semi_pushdown::push_semi_joins;
use super::split::split;
use super::stage::{MultiStageOptions, MultiStagePlan};
use crate::plan::catalog::Catalog;
use crate::plan::error::PlanError;
use crate::plan::query_plan::{ExecutionOptions, QueryPlan};
use crate::sql::ast::{Query, Statement};

/// Plans a statement for the multi-stage engine.
pub fn bind_multistage(
    stmt: &Statement,
    catalog: &dyn Catalog,
    options: &ExecutionOptions,
    mut v2_options: MultiStageOptions,
) -> Result<QueryPlan, PlanError> {
    if let Query::Select(select) = &stmt.query
        && select.from.is_none()
    {
        return crate::plan::binder::bind_statement(stmt, catalog, options);
    }
    let mut planner = Planner::new(catalog, options, stmt.explain);
    let (rel, names) = planner.query(&stmt.query)?;
    let columns = names
        .into_iter()
        .zip(rel.cols.iter().map(|c| c.ty))
        .collect();
    // The rows gathered on the broker; then the rules on the bound tree: semi joins onto the
    // inputs of inner joins, filters below the semi joins left above them, the order of each
    // block's joins; then where every operator's rows move.
    let root = planner.request(Request::Gather(rel.node));
    let root = planner.order_joins(push_filters(push_semi_joins(root)))?;
    let mut root = planner.place(root).node;
    push_limits(&mut root);
    // `joinOptions(max_rows_in_join=…, join_overflow_mode=…)` hints win over the options.
    if let Some(m) = planner.hinted_limits.max_rows_in_join {
        v2_options.max_rows_in_join = m;
    }
    if let Some(m) = planner.hinted_limits.join_overflow_mode {
        v2_options.join_overflow_mode = m;
    }
    if let Some(m) = planner.hinted_window.max_rows_in_window {
        v2_options.max_rows_in_window = m;
    }
    if let Some(m) = planner.hinted_window.window_overflow_mode {
        v2_options.window_overflow_mode = m;
    }
    let mut options = options.clone();
    options.error_on_num_groups_limit = planner.error_on_num_groups_limit;
    let mut stages = split(root);
    super::key_filter::add_key_filters(&mut stages);
    Ok(QueryPlan::MultiStage(MultiStagePlan {
        stages,
        columns,
        options,
        v2_options,
        explain: stmt.explain,
        worker_identity: false,
    }))
}
