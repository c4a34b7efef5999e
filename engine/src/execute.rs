//! The engine's entry points.
//!
//! * [`execute_sql`] — SQL text (+ the request's `queryOptions` string) over a
//!   [`TableProvider`], answered as a Pinot [`BrokerResponse`]. This is what the broker's
//!   `/query/sql` handler and `tessera query` call. It never panics: every failure — parse,
//!   options, planning, execution, even an internal panic — becomes an entry of
//!   `exceptions`.
//! * [`plan_sql`], [`execute_plan`] — the same in two steps, for callers that ship the
//!   [`ServerQueryPlan`](planner::plan::ServerQueryPlan) to remote servers
//!   ([`crate::server::execute_server`] there) and reduce at the broker
//!   ([`reduce_response`]).

use crate::context::QueryContext;
use crate::error::EngineError;
use crate::provider::{ProviderCatalog, TableProvider};
use crate::reduce::{explain_rows_to_table, reduce};
use crate::response::{BrokerResponse, ResultTable};
use crate::server::execute_server;
use crate::server::result::ServerResult;
use planner::options::QueryOptions;
use planner::plan::{QueryIdentity, QueryPlan, SingleStagePlan, plan_statement};
use planner::sql::parse_statement;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

static REQUEST_IDS: AtomicU64 = AtomicU64::new(1);

/// A fresh request id.
pub fn next_request_id() -> String {
    REQUEST_IDS.fetch_add(1, Ordering::Relaxed).to_string()
}

/// Parses, resolves options and plans a query.
pub fn plan_sql(
    sql: &str,
    request_options: Option<&str>,
    tables: &dyn TableProvider,
) -> Result<(QueryPlan, QueryOptions), EngineError> {
    let stmt = parse_statement(sql).map_err(|e| EngineError::Parse {
        sql: sql.to_string(),
        message: e.to_string(),
    })?;
    let options = QueryOptions::resolve(&stmt.set_options, request_options)
        .map_err(|e| EngineError::Options(e.to_string()))?;
    let plan = plan_statement(&stmt, &ProviderCatalog(tables), &options)?;
    Ok((plan, options))
}

/// Runs SQL over `tables` and answers like Pinot's broker.
pub fn execute_sql(
    sql: &str,
    request_options: Option<&str>,
    tables: &dyn TableProvider,
) -> BrokerResponse {
    let start = Instant::now();
    let request_id = next_request_id();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        plan_sql(sql, request_options, tables).map(|(mut plan, options)| {
            plan.bind_identity(&local_identity(&request_id, &options));
            execute_plan(&plan, tables)
        })
    }));
    let mut response = match outcome {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => BrokerResponse::from_error(&e),
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".to_string());
            BrokerResponse::from_error(&EngineError::execution(format!("internal error: {what}")))
        }
    };
    response.request_id = request_id;
    response.time_used_ms = start.elapsed().as_millis() as u64;
    response
}

/// The identity of a query answered in this process without a broker (`brokerId` is
/// `unknown`, as on a Pinot worker that was given none).
fn local_identity(request_id: &str, options: &QueryOptions) -> QueryIdentity {
    let timeout_ms = planner::plan::ExecutionOptions::from_query_options(options).timeout_ms;
    QueryIdentity::starting_now(request_id, None, "unknown".into(), timeout_ms)
}

/// Executes a plan over local segments (one in-process "server").
pub fn execute_plan(plan: &QueryPlan, tables: &dyn TableProvider) -> BrokerResponse {
    match plan {
        QueryPlan::Literal(lit) => {
            let mut r = BrokerResponse::default();
            if lit.explain {
                r.set_result(explain_rows_to_table(&[
                    (0, "BROKER_REDUCE(limit:1)".into()),
                    (1, "LITERAL_ONLY_QUERY".into()),
                ]));
            } else {
                let columns: Vec<_> = lit
                    .columns
                    .iter()
                    .map(|(n, t, _)| (n.clone(), *t))
                    .collect();
                let row: Vec<_> = lit.columns.iter().map(|(_, _, v)| v.clone()).collect();
                r.set_result(ResultTable::new(&columns, &[row]));
            }
            r
        }
        QueryPlan::SingleStage(p) => {
            let ctx = QueryContext::new(p.server.options.clone());
            let segments = tables.segments(&p.server.table);
            let server = execute_server(&p.server, &segments, &ctx);
            let mut r = reduce_response(p, vec![server]);
            r.num_servers_queried = 1;
            r.num_servers_responded = 1;
            r
        }
        QueryPlan::MultiStage(p) => {
            let mut r = crate::multistage::run_local(p, tables, LOCAL_WORKERS_PER_STAGE);
            r.num_servers_queried = 1;
            r.num_servers_responded = 1;
            r
        }
    }
}

/// Workers per stage when a multi-stage plan runs in one process.
const LOCAL_WORKERS_PER_STAGE: usize = 2;

/// The broker's half: reduces server results into a response (stats summed, exceptions
/// collected; the result table is kept even when some segments failed).
pub fn reduce_response(plan: &SingleStagePlan, results: Vec<ServerResult>) -> BrokerResponse {
    let reduce_start = Instant::now();
    let mut r = BrokerResponse {
        tables_queried: vec![plan.server.table.clone()],
        ..BrokerResponse::default()
    };
    let mut stats = crate::stats::ExecutionStats::default();
    for s in &results {
        stats.add(&s.stats);
        for e in &s.exceptions {
            if !r.exceptions.contains(e) {
                r.exceptions.push(e.clone());
            }
        }
    }
    r.set_stats(&stats);
    if !r.exceptions.is_empty() {
        // A failed server part (timeout, bad value, unreadable segment) fails the query: Pinot
        // then answers with the exceptions and no result table.
        r.partial_result = true;
        r.broker_reduce_time_ms = reduce_start.elapsed().as_millis() as u64;
        return r;
    }
    match reduce(plan, results) {
        Ok(reduced)
            if reduced.num_groups_limit_reached
                && plan.server.options.error_on_num_groups_limit =>
        {
            r.num_groups_limit_reached = true;
            r.push_exception(&EngineError::groups_limit());
        }
        Ok(reduced) => {
            r.num_groups_limit_reached = reduced.num_groups_limit_reached;
            if reduced.num_groups_limit_reached {
                r.partial_result = true;
            }
            r.set_result(reduced.table);
        }
        Err(e) => r.push_exception(&e),
    }
    r.broker_reduce_time_ms = reduce_start.elapsed().as_millis() as u64;
    r
}
