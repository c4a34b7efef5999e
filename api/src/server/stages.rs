//! The server's share of multi-stage queries: each stage worker a broker assigns to this server
//! runs on a thread of the server's [`WorkerPool`](super::worker_pool::WorkerPool) (workers block
//! on their mailboxes, so they stay off the rayon pool, which their leaf segments' work uses), reading its segments' rows or its child stages'
//! blocks and sending its output through the process's [`Mailboxes`](crate::transport::Mailboxes).
//! A cancelled query stops every worker here: their contexts are cancelled and their mailboxes
//! woken.

use super::Server;
use crate::http::ApiError;
use crate::transport::StageRequest;
use engine::QueryContext;
use engine::multistage::run_worker;
use segments::types::ErrorCode;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The contexts of the workers running here, per query.
#[derive(Default)]
pub struct RunningStages {
    queries: Mutex<HashMap<u64, Vec<Arc<QueryContext>>>>,
    /// Rows the workers of this server received from other stages (`/metrics`).
    pub rows_received: std::sync::atomic::AtomicU64,
}

impl RunningStages {
    fn add(&self, query_id: u64, ctx: Arc<QueryContext>) {
        if let Ok(mut q) = self.queries.lock() {
            q.entry(query_id).or_default().push(ctx);
        }
    }

    fn done(&self, query_id: u64, ctx: &Arc<QueryContext>) {
        if let Ok(mut q) = self.queries.lock()
            && let Some(list) = q.get_mut(&query_id)
        {
            list.retain(|c| !Arc::ptr_eq(c, ctx));
            if list.is_empty() {
                q.remove(&query_id);
            }
        }
    }

    /// Workers still running (all queries).
    pub fn len(&self) -> usize {
        self.queries
            .lock()
            .map(|q| q.values().map(Vec::len).sum())
            .unwrap_or(0)
    }

    /// Whether no worker runs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Starts the workers of `r` assigned to this server. A leaf segment this server does not host
/// fails the submission (the broker then cancels the query): a worker never answers with part of
/// its segments.
pub fn submit(server: &Arc<Server>, r: StageRequest) -> Result<(), ApiError> {
    let mut work = Vec::with_capacity(r.assigned.len());
    for (worker, names) in &r.assigned {
        let mut resolved = Vec::with_capacity(names.len());
        let (mut segments, mut docs) = (Vec::new(), None);
        if let Some(table) = &r.table_name_with_type {
            for name in names {
                let found = server.resolve(table, name, None, None).map_err(|_| {
                    ApiError::new(
                        404,
                        ErrorCode::ServerSegmentMissing.message(&format!(
                            "segment '{name}' of table '{table}' is not hosted on {}",
                            server.config.instance_id
                        )),
                    )
                })?;
                resolved.push((name.as_str(), found));
            }
            (segments, docs) = server.query_segments(table, &r.plan.options.upsert_view, resolved);
        }
        work.push((*worker, segments, docs));
    }
    let counts = r.worker_counts();
    let mut plan = r.plan;
    // Half of a hybrid table: the leaf reads its rows on its side of the time boundary.
    if let Some(bound) = &r.time_bound
        && let Some(stage) = plan.stages.iter_mut().find(|s| s.id == r.stage)
    {
        for leaf in stage.root.leaf_plans_mut() {
            bound.restrict(leaf);
        }
    }
    let plan = Arc::new(plan);
    let sink = Arc::new(server.mailboxes.sink(r.workers));
    for (worker, segments, docs) in work {
        let ctx = Arc::new(QueryContext::new(plan.options.clone()).with_docs(docs));
        server.stages.add(r.query_id, ctx.clone());
        let (pool, server, plan, sink, counts) = (
            &server.workers,
            server.clone(),
            plan.clone(),
            sink.clone(),
            counts.clone(),
        );
        let (query_id, stage) = (r.query_id, r.stage);
        let spawned = pool.execute(move || {
            let service = &server.mailboxes.service;
            match run_worker(
                &plan, stage, worker, &counts, query_id, &segments, service, &*sink, &ctx,
            ) {
                Ok(stats) => {
                    server
                        .stages
                        .rows_received
                        .fetch_add(stats.rows_received, std::sync::atomic::Ordering::Relaxed);
                }
                Err(e) => log::debug!("query {query_id} stage {stage} worker {worker}: {e}"),
            }
            server.stages.done(query_id, &ctx);
        });
        if let Err(e) = spawned {
            return Err(ApiError::internal(format!(
                "cannot start a stage worker: {e}"
            )));
        }
    }
    Ok(())
}

/// Cancels every worker of `query_id` on this server.
pub fn cancel(server: &Server, query_id: u64) {
    if let Ok(q) = server.stages.queries.lock()
        && let Some(list) = q.get(&query_id)
    {
        for ctx in list {
            ctx.cancel();
        }
    }
    server.mailboxes.service.cancel(query_id);
}
