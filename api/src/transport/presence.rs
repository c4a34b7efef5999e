//! [`Announcing`]: a broker's or server's controller client that also keeps the instance in the
//! metadata store's live instances (a ZooKeeper ephemeral node) — announced when it registers,
//! updated with a server's report on each heartbeat (only when it changed), and gone when the
//! process dies. Every controller reads who is live and what each server holds from there, not
//! from the heartbeats one of them happened to receive.

use super::controller_client::{
    CommitOutcome, ControllerClient, RealtimeSetup, Registration, RoutingError, SegmentCommit,
};
use super::minion_tasks::{TaskAssignment, TaskReport};
use super::{BoxFuture, TransportError};
use crate::metadata::MetadataStore;
use crate::metadata::records::{
    AssignedSegment, InstanceType, LiveAnnouncement, RoutingTable, SegmentReport,
};
use planner::plan::TableInfo;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A controller client whose registrations and heartbeats also announce the instance live.
pub struct Announcing {
    inner: Arc<dyn ControllerClient>,
    store: Arc<dyn MetadataStore>,
    /// Each registered instance's URL and type.
    registered: Mutex<HashMap<String, (String, InstanceType)>>,
}

impl Announcing {
    /// Wraps `inner`, announcing into `store`.
    pub fn new(inner: Arc<dyn ControllerClient>, store: Arc<dyn MetadataStore>) -> Announcing {
        Announcing {
            inner,
            store,
            registered: Mutex::default(),
        }
    }

    async fn announce(&self, id: &str, report: Option<SegmentReport>) {
        let Some((url, t)) = self.registered.lock().ok().and_then(|r| r.get(id).cloned()) else {
            return;
        };
        let a = LiveAnnouncement {
            url,
            instance_type: Some(t),
            report,
        };
        let bytes = serde_json::to_vec(&a).unwrap_or_default();
        let (store, id) = (self.store.clone(), id.to_string());
        let done = async_std::task::spawn_blocking(move || store.announce(&id, &bytes)).await;
        if let Err(e) = done {
            log::warn!("cannot announce the instance live: {e}");
        }
    }
}

impl ControllerClient for Announcing {
    fn routing<'a>(
        &'a self,
        typed: &'a str,
        broker: &'a str,
    ) -> BoxFuture<'a, Result<RoutingTable, RoutingError>> {
        self.inner.routing(typed, broker)
    }

    fn catalog(&self) -> BoxFuture<'_, Result<Vec<TableInfo>, TransportError>> {
        self.inner.catalog()
    }

    fn register<'a>(&'a self, r: &'a Registration) -> BoxFuture<'a, Result<(), TransportError>> {
        Box::pin(async move {
            self.inner.register(r).await?;
            if let Some(id) = &r.instance_name {
                if let Ok(mut reg) = self.registered.lock() {
                    reg.insert(
                        id.clone(),
                        (crate::tls::url(&r.host, r.port), r.instance_type),
                    );
                }
                self.announce(id, None).await;
            }
            Ok(())
        })
    }

    fn heartbeat<'a>(
        &'a self,
        id: &'a str,
        report: Option<SegmentReport>,
    ) -> BoxFuture<'a, Result<Option<Vec<AssignedSegment>>, TransportError>> {
        Box::pin(async move {
            self.announce(id, report.clone()).await;
            self.inner.heartbeat(id, report).await
        })
    }

    fn download_segment<'a>(
        &'a self,
        typed: &'a str,
        segment: &'a str,
    ) -> BoxFuture<'a, Result<Vec<u8>, TransportError>> {
        self.inner.download_segment(typed, segment)
    }

    fn commit_segment<'a>(
        &'a self,
        commit: &'a SegmentCommit,
        archive: Vec<u8>,
    ) -> BoxFuture<'a, Result<CommitOutcome, TransportError>> {
        self.inner.commit_segment(commit, archive)
    }

    fn realtime_setup<'a>(
        &'a self,
        typed: &'a str,
    ) -> BoxFuture<'a, Result<Option<RealtimeSetup>, TransportError>> {
        self.inner.realtime_setup(typed)
    }

    fn next_task<'a>(
        &'a self,
        minion: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskAssignment>, TransportError>> {
        self.inner.next_task(minion)
    }

    fn finish_task<'a>(
        &'a self,
        report: &'a TaskReport,
        archives: Arc<Vec<Vec<u8>>>,
    ) -> BoxFuture<'a, Result<(), TransportError>> {
        self.inner.finish_task(report, archives)
    }
}
