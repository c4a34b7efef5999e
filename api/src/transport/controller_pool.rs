//! [`ControllerPool`]: the controller as a broker or server reaches it when several controllers
//! share a ZooKeeper store — any live one answers, so a call that cannot reach one (killed,
//! restarting) goes to the next at once. The live controllers are those the store lists under
//! its live instances, each with the URL it announced; `--controller-url`, when given, is tried
//! first.

use super::controller_client::{
    CommitOutcome, ControllerClient, HttpControllerClient, RealtimeSetup, Registration,
    RoutingError, SegmentCommit,
};
use super::minion_tasks::{TaskAssignment, TaskReport};
use super::{BoxFuture, TransportError};
use crate::metadata::MetadataStore;
use crate::metadata::records::{
    AssignedSegment, InstanceType, LiveAnnouncement, RoutingTable, SegmentReport,
};
use planner::plan::TableInfo;
use std::sync::{Arc, Mutex};

/// Live controllers, tried in turn.
pub struct ControllerPool {
    store: Arc<dyn MetadataStore>,
    preferred: Option<String>,
    client: surf::Client,
    /// The controllers known now, the one that answered last first.
    known: Mutex<Vec<Arc<HttpControllerClient>>>,
}

/// Whether a failed call may succeed on another controller.
fn worth_another(e: &TransportError) -> bool {
    match e {
        TransportError::Unreachable(_) => true,
        // The controller's store is unavailable, or it is shutting down.
        TransportError::Status { status, .. } => *status == 503,
        TransportError::Unreadable(_) => false,
    }
}

impl ControllerPool {
    /// A pool over the controllers `store` lists live (and `preferred` first).
    pub fn new(
        store: Arc<dyn MetadataStore>,
        preferred: Option<String>,
        client: surf::Client,
    ) -> ControllerPool {
        let preferred = preferred.map(|u| u.trim_end_matches('/').to_string());
        let known = preferred
            .iter()
            .map(|u| Arc::new(HttpControllerClient::new(u, client.clone())))
            .collect();
        ControllerPool {
            store,
            preferred,
            client,
            known: Mutex::new(known),
        }
    }

    /// The controllers to try: the known ones, refreshed from the store when `refresh`.
    async fn candidates(&self, refresh: bool) -> Vec<Arc<HttpControllerClient>> {
        let known = self.known.lock().map(|k| k.clone()).unwrap_or_default();
        if !refresh && !known.is_empty() {
            return known;
        }
        let store = self.store.clone();
        let live = async_std::task::spawn_blocking(move || store.live_instances()).await;
        let mut urls: Vec<String> = match live {
            Ok(Some(live)) => live
                .values()
                .filter_map(|b| serde_json::from_slice::<LiveAnnouncement>(b).ok())
                .filter(|a| a.instance_type == Some(InstanceType::Controller))
                .map(|a| a.url.trim_end_matches('/').to_string())
                .collect(),
            Ok(None) => Vec::new(),
            Err(e) => {
                log::warn!("cannot list the live controllers: {e}");
                return known;
            }
        };
        if let Some(p) = &self.preferred {
            urls.retain(|u| u != p);
            urls.insert(0, p.clone());
        }
        let fresh: Vec<_> = urls
            .iter()
            .map(|u| {
                known
                    .iter()
                    .find(|k| k.base_url() == u)
                    .cloned()
                    .unwrap_or_else(|| Arc::new(HttpControllerClient::new(u, self.client.clone())))
            })
            .collect();
        if let Ok(mut k) = self.known.lock() {
            *k = fresh.clone();
        }
        fresh
    }

    /// Moves the controller that answered to the front.
    fn answered(&self, c: &Arc<HttpControllerClient>) {
        if let Ok(mut k) = self.known.lock()
            && let Some(i) = k.iter().position(|x| Arc::ptr_eq(x, c))
            && i > 0
        {
            let c = k.remove(i);
            k.insert(0, c);
        }
    }

    /// Runs `call` on the live controllers in turn until one answers (or fails in a way
    /// another would too).
    async fn attempt<'a, T: 'a>(
        &'a self,
        call: impl Fn(Arc<HttpControllerClient>) -> BoxFuture<'a, Result<T, TransportError>>,
    ) -> Result<T, TransportError> {
        let none = TransportError::Unreachable("no live controller".into());
        self.attempt_with(none, worth_another, call).await
    }

    /// [`ControllerPool::attempt`] for any error type: `retry` says which errors another
    /// controller may not have; `none` is the error when no controller is known.
    async fn attempt_with<'a, T: 'a, E: std::fmt::Display + 'a>(
        &'a self,
        none: E,
        retry: impl Fn(&E) -> bool,
        call: impl Fn(Arc<HttpControllerClient>) -> BoxFuture<'a, Result<T, E>>,
    ) -> Result<T, E> {
        let mut last = none;
        for refresh in [false, true] {
            for c in self.candidates(refresh).await {
                match call(c.clone()).await {
                    Err(e) if retry(&e) => {
                        log::debug!("controller {} failed: {e}", c.base_url());
                        last = e;
                    }
                    other => {
                        self.answered(&c);
                        return other;
                    }
                }
            }
        }
        Err(last)
    }
}

impl ControllerClient for ControllerPool {
    fn routing<'a>(
        &'a self,
        typed: &'a str,
        broker: &'a str,
    ) -> BoxFuture<'a, Result<RoutingTable, RoutingError>> {
        // Routing reports its own errors; only an unreachable controller tries the next.
        let none = RoutingError::Controller {
            table: typed.to_string(),
            reason: "no live controller".into(),
        };
        Box::pin(self.attempt_with(
            none,
            |e| matches!(e, RoutingError::Controller { .. }),
            move |c| Box::pin(async move { c.routing(typed, broker).await }),
        ))
    }

    fn catalog(&self) -> BoxFuture<'_, Result<Vec<TableInfo>, TransportError>> {
        Box::pin(self.attempt(|c| Box::pin(async move { c.catalog().await })))
    }

    fn register<'a>(&'a self, r: &'a Registration) -> BoxFuture<'a, Result<(), TransportError>> {
        Box::pin(self.attempt(move |c| Box::pin(async move { c.register(r).await })))
    }

    fn heartbeat<'a>(
        &'a self,
        id: &'a str,
        report: Option<SegmentReport>,
    ) -> BoxFuture<'a, Result<Option<Vec<AssignedSegment>>, TransportError>> {
        Box::pin(self.attempt(move |c| {
            let report = report.clone();
            Box::pin(async move { c.heartbeat(id, report).await })
        }))
    }

    fn download_segment<'a>(
        &'a self,
        typed: &'a str,
        segment: &'a str,
    ) -> BoxFuture<'a, Result<Vec<u8>, TransportError>> {
        Box::pin(
            self.attempt(move |c| {
                Box::pin(async move { c.download_segment(typed, segment).await })
            }),
        )
    }

    fn commit_segment<'a>(
        &'a self,
        commit: &'a SegmentCommit,
        archive: Vec<u8>,
    ) -> BoxFuture<'a, Result<CommitOutcome, TransportError>> {
        Box::pin(self.attempt(move |c| {
            let archive = archive.clone();
            Box::pin(async move { c.commit_segment(commit, archive).await })
        }))
    }

    fn realtime_setup<'a>(
        &'a self,
        typed: &'a str,
    ) -> BoxFuture<'a, Result<Option<RealtimeSetup>, TransportError>> {
        Box::pin(self.attempt(move |c| Box::pin(async move { c.realtime_setup(typed).await })))
    }

    fn next_task<'a>(
        &'a self,
        minion: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskAssignment>, TransportError>> {
        Box::pin(self.attempt(move |c| Box::pin(async move { c.next_task(minion).await })))
    }

    fn finish_task<'a>(
        &'a self,
        report: &'a TaskReport,
        archives: Arc<Vec<Vec<u8>>>,
    ) -> BoxFuture<'a, Result<(), TransportError>> {
        Box::pin(self.attempt(move |c| {
            let archives = archives.clone();
            Box::pin(async move { c.finish_task(report, archives).await })
        }))
    }
}
