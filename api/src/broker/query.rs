//! One query, from request to response: plan (on rayon, over the broker's catalog), route,
//! scatter the serialized server plan, gather, reduce (on rayon), and Pinot's response JSON.
//!
//! Literal-only queries (`SELECT 1`) are answered by the broker itself. A table query fetches
//! the table's routing table from the controller, sends each chosen server its segments with
//! the [`ServerQueryPlan`](planner::plan::ServerQueryPlan), and reduces the servers'
//! [`ServerResult`]s with the engine's broker half. Segments no online server has are reported
//! as error 305; servers that fail or miss the deadline as 427, with the rest of the result
//! kept.

use super::Broker;
use super::admission::Refused;
use super::catalog;
use super::plan_cache::Planned;
use super::request::QueryRequest;
use super::routing_cache;
use super::scatter::{Gathered, choose_replicas, reroute, scatter};
use crate::auth::Principal;
use crate::http::on_rayon;
use crate::transport::Ask;
use engine::aggregate::state::AggState;
use engine::response::QueryException;
use engine::server::result::IntermediateData;
use engine::{BrokerResponse, EngineError, execute_plan, plan_sql, reduce_response};
use planner::plan::{QueryIdentity, QueryPlan, ServerQueryPlan};
use segments::types::ErrorCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs `query` for `who` (the authenticated principal when access control is on) and returns
/// the complete response.
pub async fn run(broker: &Broker, query: &QueryRequest, who: Option<&Principal>) -> BrokerResponse {
    let started = Instant::now();
    // A query slot, waited for no longer than the query may take (before planning, only its
    // `queryOptions` say).
    let wait = query
        .option("timeoutMs")
        .and_then(|t| t.trim().parse::<u64>().ok())
        .map_or(broker.config.server_timeout, |ms| {
            Duration::from_millis(ms.max(1))
        });
    let request_id = engine::execute::next_request_id();
    let identity = identity(broker, query, &request_id, wait);
    let mut r = match broker.admission.enter(wait).await {
        Ok(_slot) => execute(broker, query, who, &identity).await,
        Err(refused) => {
            let code = match refused {
                Refused::Full { .. } => ErrorCode::ServerOutOfCapacity,
                Refused::TimedOut(_) => ErrorCode::QuerySchedulingTimeout,
            };
            BrokerResponse::from_exception(code, &refused.to_string())
        }
    };
    r.time_used_ms = started.elapsed().as_millis() as u64;
    r.request_id = request_id;
    r.broker_id = broker.config.instance_id.clone();
    r.partial_result |= !r.exceptions.is_empty() || r.num_groups_limit_reached;
    let code = r.error_code() as i64;
    broker
        .metrics
        .record_query(started.elapsed(), (code >= 0).then_some(code));
    // Pinot's broker meter DOCUMENTS_SCANNED: what the servers reported for this query.
    broker.metrics.add_docs_scanned(r.num_docs_scanned);
    r
}

/// What the query knows about itself (Pinot's internal functions read it): its request id,
/// the client's `clientQueryId` (else the request id), this broker, its start and deadline.
fn identity(
    broker: &Broker,
    query: &QueryRequest,
    request_id: &str,
    timeout: Duration,
) -> QueryIdentity {
    QueryIdentity::starting_now(
        request_id,
        query.option("clientQueryId"),
        broker.config.instance_id.clone(),
        timeout.as_millis() as u64,
    )
}

/// The plan of `query`, from the plan cache or made (and then cached), its rows capped at the
/// broker's response limit. A plan that may not be cached (it calls a nondeterministic
/// function) has this run's identity bound into it.
async fn plan(
    broker: &Broker,
    query: &QueryRequest,
    identity: &QueryIdentity,
) -> Result<Planned, EngineError> {
    let key = super::plan_cache::key(query);
    let generation = broker.catalog.generation();
    if let Some(plan) = key.as_ref().and_then(|k| broker.plans.get(k, generation)) {
        return Ok(plan);
    }
    let mut plan = make_plan(broker, query).await?;
    plan.limit_rows(broker.config.query_response_limit);
    if key.is_none() {
        plan.bind_identity(identity);
    }
    let plan = Planned::new(Arc::new(plan));
    if let Some(key) = key {
        broker.plans.put(key, generation, plan.clone());
    }
    Ok(plan)
}

async fn make_plan(broker: &Broker, query: &QueryRequest) -> Result<QueryPlan, EngineError> {
    let mut refreshed = false;
    loop {
        let catalog = broker.catalog.clone();
        let sql = query.sql.clone();
        let options = query.options_string();
        let work = move || plan_sql(&sql, Some(&options), &*catalog).map(|(p, _)| p);
        // Planning a short statement costs about as much as reading its JSON body: it runs
        // here; long ones (huge IN lists) go to rayon.
        let planned = if query.sql.len() <= INLINE_PLAN_SQL_BYTES {
            work()
        } else {
            on_rayon(work)
                .await
                .map_err(|e| EngineError::execution(format!("planner failed: {e}")))?
        };
        match planned {
            Err(e) if e.code() == ErrorCode::TableDoesNotExist && !refreshed => {
                refreshed = true;
                if let Err(why) = catalog::refresh(broker).await {
                    log::warn!("cannot refresh the table catalog: {why}");
                }
            }
            other => return other,
        }
    }
}

async fn execute(
    broker: &Broker,
    query: &QueryRequest,
    who: Option<&Principal>,
    identity: &QueryIdentity,
) -> BrokerResponse {
    log::debug!("query: {} (options: {})", query.sql, query.options_string());
    let planned = match plan(broker, query, identity).await {
        Ok(p) => p,
        Err(e) => return BrokerResponse::from_error(&e),
    };
    // Pinot's table authorization: every table the query reads.
    if let Some(who) = who {
        let denied = who.denied_tables(plan_tables(&planned.plan));
        if !denied.is_empty() {
            return BrokerResponse::from_exception(
                ErrorCode::AccessDenied,
                &format!(
                    "Permission denied.Reason: Authorization Failed for tables: [{}]",
                    denied.join(", ")
                ),
            );
        }
    }
    // Pinot's query quota: every table the query reads must admit it.
    let tables = plan_tables(&planned.plan);
    if let Some(refused) = super::query_quota::admit(
        broker,
        &planned.plan,
        &tables,
        &identity.request_id.to_string(),
        &query.sql,
    )
    .await
    {
        return refused;
    }
    match &*planned.plan {
        QueryPlan::SingleStage(_) => scatter_gather(broker, &planned, query.traced()).await,
        QueryPlan::MultiStage(p) => super::multistage::run(broker, p.clone()).await,
        QueryPlan::Literal(_) => {
            let (plan, catalog) = (planned.plan.clone(), broker.catalog.clone());
            match on_rayon(move || execute_plan(&plan, &*catalog)).await {
                Ok(r) => r,
                Err(e) => BrokerResponse::from_error(&EngineError::execution(e)),
            }
        }
    }
}

/// The raw tables a plan reads.
fn plan_tables(plan: &QueryPlan) -> Vec<&str> {
    match plan {
        QueryPlan::SingleStage(p) => vec![p.server.table.as_str()],
        QueryPlan::MultiStage(p) => p
            .stages
            .iter()
            .filter_map(|s| match &s.kind {
                planner::plan::multistage::StageKind::Leaf { table } => Some(table.as_str()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

async fn scatter_gather(broker: &Broker, planned: &Planned, trace: bool) -> BrokerResponse {
    let ask = planned.ask(trace);
    let QueryPlan::SingleStage(plan) = &*planned.plan else {
        return BrokerResponse::from_error(&EngineError::execution("not a single-stage plan"));
    };
    let timeout = broker.config.query_timeout(&plan.server.options);
    let parts = match super::table_parts::table_parts(broker, &plan.server.table).await {
        Ok(p) => p,
        Err(e) => {
            let mut r = BrokerResponse::default();
            r.add_exception(e);
            return r;
        }
    };
    let mut gathered = Gathered::default();
    let mut unavailable = Vec::new();
    for (typed, bound) in parts {
        let mut server_plan = plan.server.clone();
        if let Some(b) = &bound {
            b.restrict(Arc::make_mut(&mut server_plan));
        }
        let (replicas, g) = gather_table(broker, &typed, &server_plan, ask, timeout).await;
        unavailable.extend(replicas.unavailable);
        gathered.absorb(g);
    }
    planned.learn(ask, gathered.responses.iter().map(|(_, r)| r));
    let mut extra = gathered.exceptions;
    let mut results = Vec::new();
    let mut trace_info = serde_json::Map::new();
    for (server, mut result) in gathered.responses {
        if let Some(t) = result.trace.take() {
            trace_info.insert(server, super::trace::server_trace(&t).into());
        }
        results.push(result);
    }
    if !unavailable.is_empty() {
        extra.push(QueryException {
            error_code: 305,
            message: format!(
                "{} segments {:?} unavailable",
                unavailable.len(),
                unavailable
            ),
        });
    }
    let (queried, responded) = (gathered.servers_queried, gathered.servers_responded);
    // Merging a few small answers costs less than a hop to rayon (whose idle workers spin);
    // sketches and large answers are merged there.
    let small = results.iter().map(|r| r.data.entries()).sum::<usize>() <= INLINE_REDUCE_ENTRIES
        && !results.iter().any(|r| has_sketches(&r.data));
    let reduced = if small {
        Ok(reduce_response(plan, results))
    } else {
        let query = planned.plan.clone();
        on_rayon(move || match &*query {
            QueryPlan::SingleStage(plan) => reduce_response(plan, results),
            _ => BrokerResponse::from_error(&EngineError::execution("not a single-stage plan")),
        })
        .await
    };
    let mut r = match reduced {
        Ok(r) => r,
        Err(e) => {
            BrokerResponse::from_error(&EngineError::execution(format!("reduce failed: {e}")))
        }
    };
    if trace {
        r.trace_info = trace_info;
    }
    r.num_servers_queried = queried as u64;
    r.num_servers_responded = responded as u64;
    for e in extra {
        r.add_exception(e);
    }
    r
}

/// Routes, scatters and gathers one typed table's part of a query. A routing table that turns
/// out stale (a segment gone from its server, a server gone, a segment with no live replica in
/// it) is dropped and the part asked again with the controller's current routing — twice at
/// most: a routing fetched just before a change committed (a segment deleted between the fetch
/// and the scatter) is stale too.
async fn gather_table(
    broker: &Broker,
    typed: &str,
    plan: &Arc<ServerQueryPlan>,
    ask: Ask,
    timeout: Duration,
) -> (super::scatter::Plan, Gathered) {
    let mut allow_cached = true;
    let mut retries = 0;
    loop {
        let (routing, from_cache) = match routing_cache::routing(broker, typed, allow_cached).await
        {
            Ok(r) => r,
            Err(e) => {
                let mut g = Gathered::default();
                g.exceptions.push(QueryException {
                    error_code: e.code().code(),
                    message: e.code().message(&e.detail()),
                });
                return (super::scatter::Plan::default(), g);
            }
        };
        let replicas = choose_replicas(&routing, &broker.servers.health);
        let mut gathered = scatter(broker, &replicas, typed, plan, ask, timeout).await;
        // A server that cannot be reached (killed, restarting) is routed around at once: its
        // segments go to their other replicas, if every one of them has one.
        if !gathered.unreachable.is_empty()
            && let Some(retry) = reroute(&routing, &gathered, &broker.servers.health)
        {
            let again = scatter(broker, &retry, typed, plan, ask, timeout).await;
            gathered.merge_retry(again);
        }
        let stale = looks_stale(&gathered) || !replicas.unavailable.is_empty();
        if stale && (from_cache || retries < 2) {
            broker.routing.expire(typed);
            allow_cached = false;
            retries += 1;
            continue;
        }
        return (replicas, gathered);
    }
}

/// Statements up to this length are planned on the async thread.
const INLINE_PLAN_SQL_BYTES: usize = 4096;

/// Server answers with at most this many rows/groups in all are reduced on the async thread.
const INLINE_REDUCE_ENTRIES: usize = 256;

/// Whether the answer holds per-group sketches or value lists, whose merge is not trivial.
fn has_sketches(data: &IntermediateData) -> bool {
    let heavy = |s: &AggState| {
        matches!(
            s,
            AggState::Distinct(_)
                | AggState::Hll(_)
                | AggState::Values(_)
                | AggState::TDigest(_)
                | AggState::QDigest(_)
                | AggState::Mode(_)
        )
    };
    match data {
        IntermediateData::Aggregates(a) => a.iter().any(heavy),
        IntermediateData::Groups(g) => g.iter().any(|(_, a)| a.iter().any(heavy)),
        IntermediateData::Rows(_) | IntermediateData::Columns(_) | IntermediateData::Explain(_) => {
            false
        }
    }
}

/// Whether an answer gathered with a cached routing table suggests the table was stale: a
/// server did not answer, or answered that it does not host a segment it was sent.
fn looks_stale(g: &Gathered) -> bool {
    let missing = ErrorCode::ServerSegmentMissing.code();
    !g.exceptions.is_empty()
        || g.responses
            .iter()
            .any(|(_, r)| r.exceptions.iter().any(|e| e.error_code == missing))
}
