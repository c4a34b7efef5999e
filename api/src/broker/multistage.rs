//! Running a multi-stage (v2) query: the broker places every stage on workers, sends each
//! server its share, runs the root stage itself and answers.
//!
//! Placement, per stage kind:
//! * **leaf** — one worker per server chosen (one replica per segment, as v1 routes) for the
//!   stage's table, with that server's segments;
//! * **intermediate** — one worker per server taking part in any leaf (hash exchanges split rows
//!   over them), or just the first of them for a singleton stage;
//! * **root** — this broker.
//!
//! Each server gets a [`StageRequest`] per stage through its [`ServerClient`]
//! (in-process or HTTP); stage workers send blocks to each other's mailboxes, and the root's
//! arrive in this process's [`Mailboxes`]. A failed submission, an error from any worker or
//! the deadline stops the query on every server it was sent to, and its mailboxes are dropped.

use super::Broker;
use super::routing_cache;
use super::scatter::{Plan, choose_replicas};
use crate::metadata::table_name::{TableType, with_type};
use crate::transport::{RoutingError, StageRequest, WorkerAddress};
use engine::response::QueryException;
use engine::{BrokerResponse, QueryContext};
use planner::plan::multistage::{MultiStagePlan, StageKind};
use segments::types::ErrorCode;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A query id unique in this process (and, with the start time in its high bits, in practice
/// across the cluster).
fn next_query_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let base = (crate::common::clock::now_ms() as u64 & 0xFFFF_FFFF) << 24;
    base.wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed) & 0xFF_FFFF)
}

/// Where each stage runs.
struct Placement {
    /// Per stage, its workers.
    workers: Vec<Vec<WorkerAddress>>,
    /// Per stage, per worker, the leaf segments (leaf stages only).
    segments: Vec<Vec<Vec<String>>>,
    /// Per stage, the typed table of a leaf.
    tables: Vec<Option<String>>,
    /// Segments without an online replica (error 305).
    unavailable: Vec<String>,
}

async fn leaf_routing(broker: &Broker, raw: &str) -> Result<(String, Plan), QueryException> {
    let mut allow_cached = true;
    // A hybrid table's two halves split at the time boundary are the single-stage engine's
    // (`query::table_parts`); a leaf here reads one typed table, so rather than answer with
    // half the rows, say so.
    let offline = routing_cache::routing(broker, &with_type(raw, TableType::Offline), true).await;
    let realtime = routing_cache::routing(broker, &with_type(raw, TableType::Realtime), true).await;
    if offline.is_ok() && realtime.is_ok() {
        return Err(QueryException {
            error_code: ErrorCode::QueryPlanning.code(),
            message: ErrorCode::QueryPlanning.message(&format!(
                "table '{raw}' is a hybrid table (OFFLINE and REALTIME): the multi-stage engine does not read hybrid tables yet; query it without useMultistageEngine"
            )),
        });
    }
    loop {
        for t in [TableType::Offline, TableType::Realtime] {
            let typed = with_type(raw, t);
            match routing_cache::routing(broker, &typed, allow_cached).await {
                Ok((routing, from_cache)) => {
                    let plan = choose_replicas(&routing);
                    if from_cache && !plan.unavailable.is_empty() {
                        broker.routing.invalidate(&typed);
                        allow_cached = false;
                        break;
                    }
                    return Ok((typed, plan));
                }
                Err(RoutingError::TableMissing(_)) => continue,
                Err(e) => {
                    return Err(QueryException {
                        error_code: e.code().code(),
                        message: e.code().message(&e.detail()),
                    });
                }
            }
        }
        if allow_cached {
            return Err(QueryException {
                error_code: ErrorCode::TableDoesNotExist.code(),
                message: ErrorCode::TableDoesNotExist.message(&format!("Unknown table '{raw}'")),
            });
        }
        allow_cached = false;
    }
}

/// Places every stage; `None` when no table of the query has a segment on any server.
async fn place(
    broker: &Broker,
    plan: &MultiStagePlan,
) -> Result<Option<Placement>, QueryException> {
    let n = plan.stages.len();
    let mut p = Placement {
        workers: vec![Vec::new(); n],
        segments: vec![Vec::new(); n],
        tables: vec![None; n],
        unavailable: Vec::new(),
    };
    let mut servers: BTreeMap<String, String> = BTreeMap::new();
    for stage in &plan.stages {
        if let StageKind::Leaf { table } = &stage.kind {
            let (typed, routed) = leaf_routing(broker, table).await?;
            for (server, (url, segs)) in routed.per_server {
                servers.insert(server.clone(), url.clone());
                p.workers[stage.id].push(WorkerAddress {
                    instance: server,
                    url,
                });
                p.segments[stage.id].push(segs);
            }
            p.unavailable.extend(routed.unavailable);
            p.tables[stage.id] = Some(typed);
        }
    }
    let pool: Vec<WorkerAddress> = servers
        .into_iter()
        .map(|(instance, url)| WorkerAddress { instance, url })
        .collect();
    if pool.is_empty() {
        return Ok(None);
    }
    for stage in &plan.stages {
        match &stage.kind {
            StageKind::Root => {
                p.workers[stage.id] = vec![WorkerAddress {
                    instance: broker.config.instance_id.clone(),
                    url: broker.config.url.clone(),
                }]
            }
            StageKind::Intermediate { singleton: true } => p.workers[stage.id] = pool[..1].to_vec(),
            StageKind::Intermediate { singleton: false } => p.workers[stage.id] = pool.clone(),
            StageKind::Leaf { .. } => {}
        }
    }
    Ok(Some(p))
}

/// Runs a planned multi-stage query.
pub async fn run(broker: &Broker, plan: MultiStagePlan) -> BrokerResponse {
    let query_id = next_query_id();
    let ctx = Arc::new(QueryContext::new(plan.options.clone()));
    let mailboxes = broker.mailboxes.clone();
    if plan.explain {
        let counts = vec![1; plan.stages.len()];
        return engine::multistage::run_root(&plan, &counts, query_id, &mailboxes.service, &ctx);
    }
    let placement = match place(broker, &plan).await {
        Ok(Some(p)) => p,
        Ok(None) => {
            // No rows anywhere: the stages run here, over tables without segments.
            let catalog = broker.catalog.clone();
            let plan = planner::plan::QueryPlan::MultiStage(plan);
            return async_std::task::spawn_blocking(move || engine::execute_plan(&plan, &*catalog))
                .await;
        }
        Err(e) => {
            let mut r = BrokerResponse::default();
            r.add_exception(e);
            return r;
        }
    };
    // Every instance that runs a worker, for submission and cancellation.
    let mut by_instance: BTreeMap<String, (String, Vec<(usize, usize)>)> = BTreeMap::new();
    for stage in plan.stages.iter().filter(|s| s.id != 0) {
        for (w, addr) in placement.workers[stage.id].iter().enumerate() {
            by_instance
                .entry(addr.instance.clone())
                .or_insert_with(|| (addr.url.clone(), Vec::new()))
                .1
                .push((stage.id, w));
        }
    }
    let mut submitted: BTreeSet<String> = BTreeSet::new();
    let mut failure: Option<QueryException> = None;
    'submit: for (instance, (url, work)) in &by_instance {
        let client = broker.servers.client(instance, url);
        let stages: BTreeSet<usize> = work.iter().map(|(s, _)| *s).collect();
        for stage in stages {
            let assigned = work
                .iter()
                .filter(|(s, _)| *s == stage)
                .map(|(_, w)| {
                    let segs = placement.segments[stage]
                        .get(*w)
                        .cloned()
                        .unwrap_or_default();
                    (*w, segs)
                })
                .collect();
            let request = StageRequest {
                query_id,
                plan: plan.clone(),
                stage,
                workers: placement.workers.clone(),
                assigned,
                table_name_with_type: placement.tables[stage].clone(),
            };
            submitted.insert(instance.clone());
            if let Err(e) = client.submit_stage(request).await {
                failure = Some(QueryException {
                    error_code: ErrorCode::ServerNotResponding.code(),
                    message: ErrorCode::ServerNotResponding
                        .message(&format!("{instance}: cannot start stage {stage}: {e}")),
                });
                break 'submit;
            }
        }
    }
    let counts: Vec<usize> = placement.workers.iter().map(Vec::len).collect();
    let mut response = match failure {
        Some(e) => {
            let mut r = BrokerResponse::default();
            r.add_exception(e);
            r
        }
        None => {
            let timeout = Duration::from_millis(plan.options.timeout_ms.max(1))
                .min(broker.config.server_timeout);
            let (plan2, ctx2, service) = (plan.clone(), ctx.clone(), mailboxes.service.clone());
            let root = async_std::task::spawn_blocking(move || {
                engine::multistage::run_root(&plan2, &counts, query_id, &service, &ctx2)
            });
            match async_std::future::timeout(timeout + Duration::from_millis(200), root).await {
                Ok(r) => r,
                Err(_) => {
                    ctx.cancel();
                    BrokerResponse::from_exception(
                        ErrorCode::ExecutionTimeout,
                        &format!(
                            "query {query_id} timed out after {} ms",
                            timeout.as_millis()
                        ),
                    )
                }
            }
        }
    };
    // Nothing keeps running after the answer: on failure every worker is told to stop.
    if !response.exceptions.is_empty() {
        ctx.cancel();
        mailboxes.service.cancel(query_id);
        for instance in &submitted {
            if let Some((url, _)) = by_instance.get(instance) {
                let _ = broker
                    .servers
                    .client(instance, url)
                    .cancel_query(query_id)
                    .await;
            }
        }
    }
    mailboxes.service.finish(query_id);
    if !placement.unavailable.is_empty() {
        response.add_exception(QueryException {
            error_code: 305,
            message: format!(
                "{} segments {:?} unavailable",
                placement.unavailable.len(),
                placement.unavailable
            ),
        });
    }
    response.num_servers_queried = by_instance
        .keys()
        .filter(|i| **i != broker.config.instance_id)
        .count() as u64;
    response.num_servers_responded = response.num_servers_queried;
    response
}
