//! Running a multi-stage (v2) query: the broker places every stage on workers, sends each
//! server its share, runs the root stage itself and answers.
//!
//! Placement, per stage kind:
//! * **leaf** — one worker per server chosen (one replica per segment, as v1 routes) for the
//!   stage's table, with that server's segments;
//! * **intermediate** — `stageParallelism` workers (default 1) per server taking part in any
//!   leaf (hash exchanges split rows over them), or just the first of them for a singleton
//!   stage;
//! * **root** — this broker.
//!
//! Each server gets a [`StageRequest`] per stage through its [`ServerClient`]
//! (in-process or HTTP); stage workers send blocks to each other's mailboxes, and the root's
//! arrive in this process's [`Mailboxes`]. A failed submission, an error from any worker or
//! the deadline stops the query on every server it was sent to, and its mailboxes are dropped.

use super::Broker;
use super::routing_cache;
use super::scatter::{Plan, choose_replicas};
use crate::transport::{StageRequest, TimeBound, TransportError, WorkerAddress};
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

/// The most workers per server a stage gets.
const MAX_STAGE_PARALLELISM: usize = 64;

/// The typed table a leaf worker reads, and its time bound in a hybrid table.
#[derive(Clone, Debug, PartialEq)]
struct LeafPart {
    typed: String,
    bound: Option<TimeBound>,
}

/// What one server runs of one stage: the stage, the leaf part (typed table and time bound) of
/// a leaf stage, and its workers with their segments.
type StageShare = (usize, Option<LeafPart>, Vec<(usize, Vec<String>)>);

/// Where each stage runs.
struct Placement {
    /// Per stage, its workers.
    workers: Vec<Vec<WorkerAddress>>,
    /// Per stage, per worker, the leaf segments (leaf stages only).
    segments: Vec<Vec<Vec<String>>>,
    /// Per stage, per worker, the typed table a leaf worker reads and, for a half of a
    /// hybrid table, its time bound (leaf stages only).
    parts: Vec<Vec<LeafPart>>,
    /// Segments without an online replica (error 305).
    unavailable: Vec<String>,
}

/// Routes one typed table of a leaf (a routing table cached with a segment no server has is
/// fetched again once).
async fn leaf_routing(broker: &Broker, typed: &str) -> Result<Plan, QueryException> {
    let mut allow_cached = true;
    loop {
        match routing_cache::routing(broker, typed, allow_cached).await {
            Ok((routing, from_cache)) => {
                let plan = choose_replicas(&routing, &broker.servers.health);
                if from_cache && !plan.unavailable.is_empty() {
                    broker.routing.expire(typed);
                    allow_cached = false;
                    continue;
                }
                return Ok(plan);
            }
            Err(e) => {
                return Err(QueryException {
                    error_code: e.code().code(),
                    message: e.code().message(&e.detail()),
                });
            }
        }
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
        parts: vec![Vec::new(); n],
        unavailable: Vec::new(),
    };
    let mut servers: BTreeMap<String, WorkerAddress> = BTreeMap::new();
    // Leaves of tables without a segment, each with the typed table its empty worker reads.
    let mut empty_leaves: Vec<(usize, String)> = Vec::new();
    for stage in &plan.stages {
        if let StageKind::Leaf { table } = &stage.kind {
            // A hybrid table's leaf has workers for both halves, each bounded in time.
            let parts = super::table_parts::table_parts(broker, table).await?;
            if let Some((typed, _)) = parts.first() {
                empty_leaves.push((stage.id, typed.clone()));
            }
            for (typed, bound) in parts {
                let routed = leaf_routing(broker, &typed).await?;
                for (server, (url, segs)) in routed.per_server {
                    let address = WorkerAddress {
                        channel: routed.routing.query_addresses.get(&server).cloned(),
                        instance: server,
                        url,
                    };
                    servers.insert(address.instance.clone(), address.clone());
                    p.workers[stage.id].push(address);
                    p.segments[stage.id].push(segs);
                    p.parts[stage.id].push(LeafPart {
                        typed: typed.clone(),
                        bound: bound.clone(),
                    });
                }
                p.unavailable.extend(routed.unavailable);
            }
        }
    }
    let pool: Vec<WorkerAddress> = servers.into_values().collect();
    // Workers per server of a partitioned intermediate stage: `stageParallelism`, 1 by default
    // as in Pinot. More did not pay on TPC-H at sf1 on two cores (the 22 queries' total 0.92x
    // with two per server: a leaf stage's one worker scans and sends, and the joins above it
    // wait on it), so it is the user's choice.
    let parallelism = plan
        .v2_options
        .stage_parallelism
        .clamp(1, MAX_STAGE_PARALLELISM);
    if pool.is_empty() {
        return Ok(None);
    }
    // A leaf over a table without segments still answers (no rows, its columns typed): one
    // worker with no segments, so its parent stage hears the end of its input from it.
    for (stage, typed) in empty_leaves {
        if p.workers[stage].is_empty() {
            p.workers[stage].push(pool[0].clone());
            p.segments[stage].push(Vec::new());
            p.parts[stage].push(LeafPart { typed, bound: None });
        }
    }
    for stage in &plan.stages {
        match &stage.kind {
            StageKind::Root => {
                p.workers[stage.id] = vec![WorkerAddress {
                    instance: broker.config.instance_id.clone(),
                    url: broker.config.url.clone(),
                    channel: broker.config.query_address.clone(),
                }]
            }
            StageKind::Intermediate { singleton: true } => p.workers[stage.id] = pool[..1].to_vec(),
            StageKind::Intermediate { singleton: false } => {
                p.workers[stage.id] = (0..parallelism)
                    .flat_map(|_| pool.iter().cloned())
                    .collect()
            }
            StageKind::Leaf { .. } => {}
        }
    }
    Ok(Some(p))
}

/// Runs a planned multi-stage query. When its stages cannot be submitted as placed — a server
/// cannot be reached (gone, or silent: it is then known down,
/// [`crate::transport::ServerHealth`]), or no longer hosts a segment it was routed (the routing
/// was stale) — the query is placed again with fresh routing and run once more: nothing of it
/// has run to completion, so the second try goes to the replicas.
pub async fn run(broker: &Broker, plan: MultiStagePlan) -> BrokerResponse {
    match run_once(broker, &plan).await {
        (_, Some(tables)) => {
            for typed in &tables {
                broker.routing.expire(typed);
            }
            run_once(broker, &plan).await.0
        }
        (response, None) => response,
    }
}

/// The workers one server runs: (stage, worker) pairs.
type StageWork = Vec<(usize, usize)>;

/// How often a running query's servers are asked for a sign of life.
const WATCH_EVERY: Duration = Duration::from_millis(250);

/// While a query runs, asks each server running its stages for a sign of life every
/// [`WATCH_EVERY`]: the first that cannot be reached (gone, or silent past the query channel's
/// limit) ends the watch, recorded as down, with its id. A query that ends sooner never pings.
async fn first_unreachable(
    broker: &Broker,
    servers: &BTreeMap<String, (WorkerAddress, StageWork)>,
) -> String {
    loop {
        async_std::task::sleep(WATCH_EVERY).await;
        for (instance, (addr, _)) in servers {
            let client = broker
                .servers
                .client(instance, &addr.url, addr.channel.as_deref());
            if let Err(TransportError::Unreachable(_)) = client.ping().await {
                let health = &broker.servers.health;
                health.mark_unreachable(instance, addr.reached_at(), client);
                return instance.clone();
            }
        }
    }
}

/// Runs a planned multi-stage query once: its answer and, when it failed because its stages
/// could not be submitted as placed, the typed tables whose routing to fetch again.
async fn run_once(broker: &Broker, plan: &MultiStagePlan) -> (BrokerResponse, Option<Vec<String>>) {
    let query_id = next_query_id();
    let ctx = Arc::new(QueryContext::new(plan.options.clone()));
    let mailboxes = broker.mailboxes.clone();
    if plan.explain {
        let counts = vec![1; plan.stages.len()];
        let answer =
            engine::multistage::run_root(plan, &counts, query_id, &mailboxes.service, &ctx);
        return (answer, None);
    }
    let placement = match place(broker, plan).await {
        Ok(Some(p)) => p,
        Ok(None) => {
            // No rows anywhere: the stages run here, over tables without segments.
            let catalog = broker.catalog.clone();
            let plan = planner::plan::QueryPlan::MultiStage(plan.clone());
            let answer =
                async_std::task::spawn_blocking(move || engine::execute_plan(&plan, &*catalog))
                    .await;
            return (answer, None);
        }
        Err(e) => {
            let mut r = BrokerResponse::default();
            r.add_exception(e);
            return (r, None);
        }
    };
    // Every instance that runs a worker, for submission and cancellation.
    let mut by_instance: BTreeMap<String, (WorkerAddress, StageWork)> = BTreeMap::new();
    for stage in plan.stages.iter().filter(|s| s.id != 0) {
        for (w, addr) in placement.workers[stage.id].iter().enumerate() {
            by_instance
                .entry(addr.instance.clone())
                .or_insert_with(|| (addr.clone(), Vec::new()))
                .1
                .push((stage.id, w));
        }
    }
    let mut submitted: BTreeSet<String> = BTreeSet::new();
    let mut failure: Option<QueryException> = None;
    let mut misplaced = false;
    'submit: for (instance, (addr, work)) in &by_instance {
        let client = broker
            .servers
            .client(instance, &addr.url, addr.channel.as_deref());
        // One request per stage, and per typed table of a hybrid table's leaf.
        let mut requests: Vec<StageShare> = Vec::new();
        for &(stage, w) in work {
            let part = placement.parts[stage].get(w).cloned();
            let segs = placement.segments[stage]
                .get(w)
                .cloned()
                .unwrap_or_default();
            match requests
                .iter_mut()
                .find(|(s, p, _)| *s == stage && *p == part)
            {
                Some((_, _, assigned)) => assigned.push((w, segs)),
                None => requests.push((stage, part, vec![(w, segs)])),
            }
        }
        for (stage, part, assigned) in requests {
            let (table_name_with_type, time_bound) = match part {
                Some(p) => (Some(p.typed), p.bound),
                None => (None, None),
            };
            let request = StageRequest {
                query_id,
                plan: plan.clone(),
                stage,
                workers: placement.workers.clone(),
                assigned,
                table_name_with_type,
                time_bound,
            };
            submitted.insert(instance.clone());
            if let Err(e) = client.submit_stage(request).await {
                // A server without a segment it was routed: the routing was stale.
                let missing = ErrorCode::ServerSegmentMissing.message("");
                misplaced |= matches!(&e, TransportError::Status { status: 404, message }
                    if message.starts_with(&missing));
                if matches!(e, TransportError::Unreachable(_)) {
                    misplaced = true;
                    let health = &broker.servers.health;
                    health.mark_unreachable(instance, addr.reached_at(), client.clone());
                }
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
            let timeout = broker.config.query_timeout(&plan.options);
            let (plan2, ctx2, service) = (plan.clone(), ctx.clone(), mailboxes.service.clone());
            let root = async_std::task::spawn_blocking(move || {
                engine::multistage::run_root(&plan2, &counts, query_id, &service, &ctx2)
            });
            let root = async_std::future::timeout(timeout + Duration::from_millis(200), root);
            let watched = futures_lite::future::or(async { Ok(root.await) }, async {
                Err(first_unreachable(broker, &by_instance).await)
            });
            match watched.await {
                Ok(Ok(r)) => r,
                Err(instance) => {
                    // Its stages' rows will never come: stop now, and place the query again.
                    ctx.cancel();
                    misplaced = true;
                    BrokerResponse::from_exception(
                        ErrorCode::ServerNotResponding,
                        &format!("{instance}: unreachable while running query {query_id}"),
                    )
                }
                Ok(Err(_)) => {
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
            if let Some((addr, _)) = by_instance.get(instance) {
                // A server found unreachable would only make the cancellation wait.
                if broker.servers.health.is_down(addr.reached_at()) {
                    continue;
                }
                let _ = broker
                    .servers
                    .client(instance, &addr.url, addr.channel.as_deref())
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
    let again = misplaced.then(|| {
        let mut tables: Vec<String> = placement
            .parts
            .iter()
            .flatten()
            .map(|p| p.typed.clone())
            .collect();
        tables.sort();
        tables.dedup();
        tables
    });
    (response, again)
}
