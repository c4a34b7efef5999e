//! The minion role (Pinot's minion): runs the controller's background tasks — merge/rollup,
//! real-time to offline, purge — off the query path. It registers as `Minion_<host>_<port>`
//! (tag `minion_untagged`), heartbeats on its own timer (so a long task never looks like a lost
//! minion), and asks the controller for one subtask at a time: the inputs come from the
//! controller ([`ControllerClient::download_segment`]), the work runs on rayon
//! ([`executor::run`]), and the result goes back with the archives built
//! ([`ControllerClient::finish_task`]), which the controller applies atomically. A result the
//! controller cannot take now (it is restarting) is offered again for a while; one it refuses
//! for good (the subtask was given to another minion) is dropped.
//!
//! * [`executor`] — one subtask: read, merge, build.
//! * [`merge`] — concat, rollup and dedup of rows.

pub mod executor;
pub mod merge;

use crate::common::clock::sleep_unless_stopped;
use crate::common::loggers::{self, LoggerState};
use crate::http::routes::Routes;
use crate::http::{ErrorStyle, new_app};
use crate::logging::LoggingHandle;
use crate::transport::minion_tasks::{TaskAssignment, TaskReport};
use crate::transport::{ControllerClient, Registration, TransportError};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Minion settings.
#[derive(Clone, Debug)]
pub struct MinionConfig {
    pub instance_id: String,
    /// Scratch space for the segments a task reads and builds.
    pub work_dir: PathBuf,
    pub heartbeat_interval: Duration,
    /// How long an idle minion waits before asking for work again.
    pub poll_interval: Duration,
}

/// The minion role.
pub struct Minion {
    pub config: MinionConfig,
    pub controller: Arc<dyn ControllerClient>,
    pub logging: LoggingHandle,
    /// Set once registered: registering gives back what this minion ran before, so no work is
    /// asked for until then.
    pub registered: AtomicBool,
}

impl Minion {
    pub fn new(
        config: MinionConfig,
        controller: Arc<dyn ControllerClient>,
        logging: LoggingHandle,
    ) -> Minion {
        Minion {
            config,
            controller,
            logging,
            registered: AtomicBool::new(false),
        }
    }
}

pub type MinionState = Arc<Minion>;

impl LoggerState for MinionState {
    fn logging(&self) -> &LoggingHandle {
        &self.logging
    }
}

/// The minion's tide app: health and loggers.
pub fn app(state: MinionState) -> tide::Server<MinionState> {
    let mut app = new_app(state, ErrorStyle::CodeError);
    let mut r = Routes::new(&mut app);
    r.group("Health")
        .get("/health", "OK when the minion is up", |_| async {
            Ok("OK")
        });
    loggers::routes(&mut r);
    r.document("Tessera minion API");
    app
}

/// Registers, then heartbeats every interval (registering again when the controller forgot
/// this minion) until `stop`.
pub async fn heartbeat_loop(m: MinionState, registration: Registration, stop: Arc<AtomicBool>) {
    let id = m.config.instance_id.clone();
    let mut registered = false;
    while !stop.load(Ordering::Relaxed) {
        if !registered {
            registered = m
                .controller
                .register(&registration)
                .await
                .map_err(|e| log::warn!("{id}: registration failed: {e}"))
                .is_ok();
        }
        m.registered.store(registered, Ordering::Release);
        if registered {
            match m.controller.heartbeat(&id, None).await {
                Ok(None) => registered = false,
                Ok(Some(_)) => {}
                Err(e) => log::debug!("{id}: heartbeat failed: {e}"),
            }
        }
        sleep_unless_stopped(&stop, m.config.heartbeat_interval).await;
    }
}

/// Asks for subtasks and runs them, one at a time, until `stop`.
pub async fn work_loop(m: MinionState, stop: Arc<AtomicBool>) {
    let id = m.config.instance_id.clone();
    while !stop.load(Ordering::Relaxed) {
        if !m.registered.load(Ordering::Acquire) {
            sleep_unless_stopped(&stop, Duration::from_millis(20)).await;
            continue;
        }
        match m.controller.next_task(&id).await {
            Ok(Some(a)) => run_one(&m, a, &stop).await,
            Ok(None) => sleep_unless_stopped(&stop, m.config.poll_interval).await,
            Err(e) => {
                log::debug!("{id}: cannot ask for tasks: {e}");
                sleep_unless_stopped(&stop, m.config.poll_interval).await;
            }
        }
    }
}

/// How long a finished subtask's result is offered to a controller that cannot take it.
const REPORT_RETRY: Duration = Duration::from_secs(120);

async fn run_one(m: &Minion, a: TaskAssignment, stop: &AtomicBool) {
    let id = &m.config.instance_id;
    log::info!("{id}: running {} on {}", a.subtask_id, a.spec.table);
    let started = Instant::now();
    let outcome = execute(m, &a).await;
    let built = started.elapsed();
    let (error, archives) = match outcome {
        Ok(archives) => (None, Arc::new(archives)),
        Err(e) => (Some(e), Arc::default()),
    };
    let report = TaskReport {
        minion: id.clone(),
        task_type: a.task_type,
        task_name: a.task_name.clone(),
        subtask_id: a.subtask_id.clone(),
        error,
    };
    let deadline = Instant::now() + REPORT_RETRY;
    loop {
        match m.controller.finish_task(&report, archives.clone()).await {
            Ok(()) => {
                log::info!(
                    "{id}: {} {} in {:?} ({} segment(s); fetched and built in {built:?})",
                    a.subtask_id,
                    if report.error.is_some() {
                        "failed"
                    } else {
                        "done"
                    },
                    started.elapsed(),
                    archives.len()
                );
                return;
            }
            // Answered and refused: the controller's decision stands.
            Err(TransportError::Status { status, message }) if status != 503 => {
                log::warn!("{id}: {} not taken ({status}): {message}", a.subtask_id);
                return;
            }
            Err(e) if Instant::now() < deadline && !stop.load(Ordering::Relaxed) => {
                log::debug!("{id}: cannot report {} yet: {e}", a.subtask_id);
                async_std::task::sleep(Duration::from_millis(500)).await;
            }
            Err(e) => {
                log::warn!("{id}: gave up reporting {}: {e}", a.subtask_id);
                return;
            }
        }
    }
}

/// Fetches the inputs and runs the subtask on rayon.
async fn execute(m: &Minion, a: &TaskAssignment) -> Result<Vec<Vec<u8>>, String> {
    let mut inputs = Vec::new();
    for (name, crc) in &a.spec.input_segments {
        let archive = m
            .controller
            .download_segment(&a.spec.table, name)
            .await
            .map_err(|e| format!("cannot download segment {name}: {e}"))?;
        if crc32fast::hash(&archive) != *crc {
            return Err(format!("segment {name} changed since the task was made"));
        }
        inputs.push(executor::Input {
            name: name.clone(),
            archive,
        });
    }
    let schema = segments::types::Schema::from_json(&a.schema.to_string())
        .map_err(|e| format!("invalid schema: {e}"))?;
    let work = m.config.work_dir.join(&a.subtask_id);
    let _ = std::fs::remove_dir_all(&work);
    let (spec, config, dir) = (a.spec.clone(), a.output_config.clone(), work.clone());
    log::info!(
        "{}: fetched {} input segment(s) for {}",
        m.config.instance_id,
        a.spec.input_segments.len(),
        a.subtask_id
    );
    let result = crate::http::blocking::on_rayon(move || {
        executor::run(&spec, &schema, &config, inputs, &dir)
    })
    .await
    .map_err(|e| format!("the task panicked: {e}"))
    .and_then(|r| r);
    let _ = std::fs::remove_dir_all(&work);
    result
}
