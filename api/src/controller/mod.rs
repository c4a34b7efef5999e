//! The controller role: the cluster's metadata (schemas, table configs, segments and their
//! assignment, instances) behind Pinot's admin REST API, plus the deep store of uploaded segment
//! archives that servers download from.
//!
//! * [`catalog`] — typed reads and writes over the [`MetadataStore`].
//! * [`changes`] — publishing each committed change to brokers and servers.
//! * [`schemas`], [`tables`], [`segments`], [`instances`], [`query`] — the endpoints.
//! * [`responses`] — the response bodies they answer, as types in Pinot's field order.
//! * [`segment_metadata`] — what one segment holds, read from its archive.
//! * [`reload`] — reloading segments, as background jobs ([`reload_jobs`]) with their status.
//! * [`console`] — the web console at `/`, a page app over those endpoints.
//! * [`table_config`], [`follow_up`] — config checks.
//! * [`periodic`] — the periodic tasks and their API; [`retention`] — the retention manager;
//!   [`deleted_segments`] — deleting segments and the deleted-segments area.
//! * [`lineage`] — replacing segments atomically; [`task_generators`], [`minion_tasks`] — minion
//!   tasks made, handed out and applied; [`storage_quota`] — `quota.storage`.
//! * [`assignment`] — balanced replica placement; [`placement`] — the candidate servers and
//!   topping up under-replicated segments.

pub mod archive_store;
pub mod assignment;
pub mod catalog;
pub mod changes;
pub mod console;
pub mod deep_store;
pub mod deleted_segments;
pub mod error;
pub mod follow_up;
pub mod fresh_reads;
pub mod helix_views;
pub mod ingest;
pub mod instances;
pub mod lineage;
pub mod local_client;
pub mod minion_tasks;
pub mod periodic;
pub mod placement;
pub mod query;
pub mod realtime;
pub mod rebuild;
pub mod recovery;
pub mod reload;
pub mod reload_jobs;
pub mod responses;
pub mod retention;
pub mod schemas;
pub mod segment_commit;
pub mod segment_metadata;
pub mod segments;
pub mod storage_quota;
pub mod table_config;
pub mod table_views;
pub mod tables;
pub mod task_generators;
pub mod tenants;
pub mod tiers;
pub mod time_boundary;

use crate::common::loggers::{self, InstanceEndpoint, LoggerState, RemoteLoggerState};
use crate::http::metrics::{self, Metrics};
use crate::http::routes::Routes;
use crate::http::{ErrorStyle, new_app};
use crate::logging::LoggingHandle;
use crate::metadata::MetadataStore;
use crate::metadata::changes::{ChangeListener, ChangeLog};
use crate::metadata::records::{LiveAnnouncement, LoadedSegments, SegmentReport};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Controller settings.
#[derive(Clone, Debug)]
pub struct ControllerConfig {
    /// Where the metadata file, the deep store and temp files live.
    pub data_dir: PathBuf,
    /// This controller's instance id (`Controller_<host>_<port>`).
    pub instance_id: String,
    /// An instance that has not sent a heartbeat for this long is offline.
    pub heartbeat_timeout: Duration,
    /// Largest accepted segment upload / ingestion file, in bytes (larger → 413).
    pub max_upload_bytes: u64,
    /// Access control: the controller calls brokers and servers with its internal credentials.
    pub auth: Option<Arc<crate::auth::Auth>>,
    /// Clients of object storage: a deep store there, and `s3://` (…) URIs users give.
    pub cloud: Arc<crate::cloud::ObjectStores>,
}

/// What the controller knows about live instances: from heartbeats to this controller (memory
/// only: after a restart every instance is offline until its next heartbeat), or — when the
/// metadata store keeps live instances (ZooKeeper) — from the store's live list, which every
/// controller sees alike and which loses a dead instance as soon as its session ends.
#[derive(Debug, Default)]
pub struct Liveness {
    /// The store's live instances, when it keeps them; then they alone decide who is online.
    present: Option<HashSet<String>>,
    last_seen: HashMap<String, Instant>,
    loaded: HashMap<String, LoadedSegments>,
    /// Real-time segments each server reports consuming.
    consuming: HashMap<String, LoadedSegments>,
    /// `(table, segment)` pairs some server has reported loaded since this controller started:
    /// a segment not in here is *new* in Pinot's sense (see [`instances::routing_table`]).
    ever_loaded: HashSet<(String, String)>,
}

/// The controller's state, shared by its handlers.
pub struct Controller {
    pub config: ControllerConfig,
    pub store: Arc<dyn MetadataStore>,
    liveness: Mutex<Liveness>,
    /// Serialises this process's read-check-write sequences (create table, upload,
    /// assignment); [`Controller::lock_writes`] adds the store's cluster-wide lease.
    write_lock: async_std::sync::Mutex<()>,
    pub client: surf::Client,
    pub logging: LoggingHandle,
    pub metrics: Arc<Metrics>,
    /// The metadata version and the changes not yet published.
    pub changes: ChangeLog,
    /// Roles of this process told of every change before the answer returns, by instance id.
    pub listeners: std::sync::RwLock<Vec<(String, Arc<dyn ChangeListener>)>>,
    /// Reload jobs started here and their progress.
    pub reload_jobs: reload_jobs::ReloadJobs,
    /// Where segment archives are kept.
    pub deep: Arc<dyn deep_store::DeepStore>,
    /// When this controller started: until a heartbeat timeout has passed, an instance it has
    /// not heard from yet may well be alive.
    pub started: Instant,
    /// Minion subtasks whose results this controller is applying now.
    pub finishing: Mutex<HashSet<String>>,
}

impl Liveness {
    /// What server `id` reports holding; the tables with a segment loaded for the first time.
    fn report(&mut self, id: &str, report: SegmentReport) -> Vec<String> {
        let mut first = Vec::new();
        for (table, segments) in report.hosted.iter().chain(&report.consuming) {
            for segment in segments {
                if self.ever_loaded.insert((table.clone(), segment.clone()))
                    && first.last() != Some(table)
                {
                    first.push(table.clone());
                }
            }
        }
        self.loaded.insert(id.to_string(), report.hosted);
        self.consuming.insert(id.to_string(), report.consuming);
        first
    }
}

/// Held while a read-check-write sequence runs ([`Controller::lock_writes`]).
pub struct WriteGuard<'a> {
    // Released in field order: the cluster lease before this process's lock.
    _lease: Option<crate::metadata::WriteLease>,
    _local: async_std::sync::MutexGuard<'a, ()>,
}

/// The tide state of the controller app.
pub type ControllerState = Arc<Controller>;

impl Controller {
    /// A controller over `store`, keeping archives in `deep` ([`deep_store::open`]).
    pub fn new(
        config: ControllerConfig,
        store: Arc<dyn MetadataStore>,
        logging: LoggingHandle,
        deep: Arc<dyn deep_store::DeepStore>,
    ) -> Controller {
        let client = crate::auth::internal_client(config.auth.as_deref());
        Controller {
            changes: ChangeLog::new(Controller::stored_version(&*store)),
            listeners: std::sync::RwLock::default(),
            reload_jobs: reload_jobs::ReloadJobs::default(),
            deep,
            config,
            store,
            logging,
            liveness: Mutex::new(Liveness::default()),
            write_lock: async_std::sync::Mutex::new(()),
            client,
            metrics: Arc::new(Metrics::new("controller")),
            started: Instant::now(),
            finishing: Mutex::default(),
        }
    }

    /// Whether this controller has run long enough to call an instance it has not heard from
    /// lost (after a restart every instance is offline until its next heartbeat).
    pub fn knows_liveness(&self) -> bool {
        self.started.elapsed() > self.config.heartbeat_timeout * 2
    }

    /// A scratch directory for uploads: on the deep store's filesystem (so moving an archive
    /// in is a rename), one per controller, so controllers sharing it never sweep each other's
    /// work.
    pub fn temp_dir(&self) -> PathBuf {
        self.deep.scratch(&self.config.instance_id)
    }

    /// Waits until this controller may run a read-check-write sequence alone: its own lock,
    /// then the store's cluster-wide lease when several controllers share the store.
    pub async fn lock_writes(&self) -> Result<WriteGuard<'_>, crate::http::ApiError> {
        let local = self.write_lock.lock().await;
        let store = self.store.clone();
        let lease = async_std::task::spawn_blocking(move || store.lock_writes()).await?;
        Ok(WriteGuard {
            _lease: lease,
            _local: local,
        })
    }

    /// Whether this controller leads the cluster: runs the periodic tasks (tier moves, real-time
    /// segment validation). The only controller of an embedded store always does.
    pub fn is_leader(&self) -> bool {
        self.store.is_leader()
    }

    /// Records a heartbeat from `id`, with what a server reports holding. A segment reported
    /// loaded for the first time changes its table's routing: brokers are told when the
    /// request is done (they may have fetched the routing while the segment was loading).
    pub fn heartbeat(&self, id: &str, report: Option<SegmentReport>) {
        let mut first_loaded = Vec::new();
        if let Ok(mut l) = self.liveness.lock() {
            l.last_seen.insert(id.to_string(), Instant::now());
            if let Some(report) = report {
                first_loaded = l.report(id, report);
            }
        }
        for typed in first_loaded {
            self.changes
                .touch(crate::metadata::table_name::split(&typed).0);
        }
    }

    /// Takes the store's live instances (each announcing a [`LiveAnnouncement`]) as who is
    /// online and what each server holds.
    pub fn apply_live(&self, live: &crate::metadata::LiveInstances) {
        let Ok(mut l) = self.liveness.lock() else {
            return;
        };
        let present: HashSet<String> = live.keys().cloned().collect();
        l.loaded.retain(|id, _| present.contains(id));
        l.consuming.retain(|id, _| present.contains(id));
        for (id, bytes) in live {
            match serde_json::from_slice::<LiveAnnouncement>(bytes) {
                Ok(a) => {
                    if let Some(report) = a.report {
                        l.report(id, report);
                    }
                }
                Err(e) => log::warn!("live instance {id} announced unreadable data: {e}"),
            }
        }
        l.present = Some(present);
    }

    /// Whether online server `id` reports consuming `segment` of `table`.
    pub fn is_consuming(&self, id: &str, table: &str, segment: &str) -> bool {
        self.liveness
            .lock()
            .ok()
            .and_then(|l| {
                l.consuming
                    .get(id)
                    .and_then(|t| t.get(table))
                    .map(|s| s.iter().any(|x| x == segment))
            })
            .unwrap_or(false)
    }

    /// Whether `id` is live: in the store's live instances when it keeps them, else sent a
    /// heartbeat within the timeout (the controller itself is always online).
    pub fn is_online(&self, id: &str) -> bool {
        if id == self.config.instance_id {
            return true;
        }
        self.liveness
            .lock()
            .ok()
            .and_then(|l| match &l.present {
                Some(present) => Some(present.contains(id)),
                None => l
                    .last_seen
                    .get(id)
                    .map(|t| t.elapsed() < self.config.heartbeat_timeout),
            })
            .unwrap_or(false)
    }

    /// Whether any server has reported `segment` of `table` loaded since this controller started.
    pub fn was_ever_loaded(&self, table: &str, segment: &str) -> bool {
        self.liveness.lock().is_ok_and(|l| {
            l.ever_loaded
                .contains(&(table.to_string(), segment.to_string()))
        })
    }

    /// Whether online server `id` reports `segment` of `table` loaded.
    pub fn has_loaded(&self, id: &str, table: &str, segment: &str) -> bool {
        self.liveness
            .lock()
            .ok()
            .and_then(|l| {
                l.loaded
                    .get(id)
                    .and_then(|t| t.get(table))
                    .map(|s| s.iter().any(|x| x == segment))
            })
            .unwrap_or(false)
    }
}

/// The controller's tide app.
pub fn app(state: ControllerState) -> tide::Server<ControllerState> {
    let mut app = new_app(state, ErrorStyle::CodeError);
    app.with(changes::PublishChanges);
    app.with(fresh_reads::FreshReads);
    let m = app.state().metrics.clone();
    let mut r = Routes::new(&mut app);
    r.group("Health")
        .get("/health", "OK when the controller is up", |_| async {
            Ok("OK")
        })
        .get(
            "/pinot-controller/admin",
            "GOOD when the controller is up",
            |_| async { Ok("GOOD") },
        );
    schemas::routes(&mut r);
    tables::routes(&mut r);
    table_views::routes(&mut r);
    reload::routes(&mut r);
    segment_metadata::routes(&mut r);
    segments::routes(&mut r);
    lineage::routes(&mut r);
    realtime::routes(&mut r);
    instances::routes(&mut r);
    tenants::routes(&mut r);
    query::routes(&mut r);
    ingest::routes(&mut r);
    periodic::routes(&mut r);
    minion_tasks::routes(&mut r);
    loggers::routes(&mut r);
    loggers::remote_routes(&mut r);
    crate::auth::routes::routes(&mut r);
    console::routes(&mut r);
    metrics::mount(&mut r, m, |_| Vec::new());
    r.document("Tessera controller API");
    app
}

impl crate::auth::routes::AuthState for ControllerState {
    fn auth(&self) -> Option<&Arc<crate::auth::Auth>> {
        self.config.auth.as_ref()
    }
}

impl LoggerState for ControllerState {
    fn logging(&self) -> &LoggingHandle {
        &self.logging
    }
}

impl RemoteLoggerState for ControllerState {
    fn instances(&self) -> Vec<InstanceEndpoint> {
        match Controller::instances(self) {
            Ok(list) => list
                .into_iter()
                .map(|i| InstanceEndpoint {
                    online: self.is_online(&i.instance_name),
                    base_url: i.base_url(),
                    name: i.instance_name,
                })
                .collect(),
            Err(e) => {
                log::warn!("cannot list instances: {e}");
                Vec::new()
            }
        }
    }
}
