//! The controller's periodic tasks (Pinot's `ControllerPeriodicTask`s): each runs on a timer in
//! the lead controller ([`run_loop`]: under ZooKeeper only the leader's timers act) and on
//! demand through Pinot's API — `GET /periodictask/names`, and
//! `GET /periodictask/run?taskname=…[&tableName=…][&type=OFFLINE|REALTIME]`, which runs the task
//! now, over one table or all, on the controller that receives it.
//!
//! * `RetentionManager` ([`super::retention`]) — segments past retention, the deleted area.
//! * `SegmentRelocator` ([`super::tiers`]) — segments aged into a storage tier.
//! * `RealtimeSegmentValidationManager` ([`super::realtime`]) — a consuming segment for every
//!   stream partition.
//! * `PinotTaskManager` ([`super::minion_tasks`]) — minion tasks from tables' task configs.

use super::responses::json;
use super::{Controller, ControllerState, changes};
use crate::common::clock::sleep_unless_stopped;
use crate::http::ApiError;
use crate::http::routes::Routes;
use crate::metadata::table_name::{self, TableType};
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tide::Request;

/// A periodic task of the controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeriodicTask {
    RetentionManager,
    SegmentRelocator,
    RealtimeSegmentValidationManager,
    PinotTaskManager,
}

impl PeriodicTask {
    pub const ALL: [PeriodicTask; 4] = [
        PeriodicTask::RetentionManager,
        PeriodicTask::SegmentRelocator,
        PeriodicTask::RealtimeSegmentValidationManager,
        PeriodicTask::PinotTaskManager,
    ];

    /// Pinot's name of the task.
    pub fn name(self) -> &'static str {
        match self {
            PeriodicTask::RetentionManager => "RetentionManager",
            PeriodicTask::SegmentRelocator => "SegmentRelocator",
            PeriodicTask::RealtimeSegmentValidationManager => "RealtimeSegmentValidationManager",
            PeriodicTask::PinotTaskManager => "PinotTaskManager",
        }
    }

    /// The task called `name` (case as Pinot writes it).
    pub fn parse(name: &str) -> Option<PeriodicTask> {
        PeriodicTask::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Runs the task once over table `typed` (every table when `None`), then publishes what it
    /// changed.
    pub async fn run(self, c: &Controller, typed: Option<&str>) -> Result<(), ApiError> {
        let done = match self {
            PeriodicTask::RetentionManager => super::retention::run(c, typed).await.map(|r| {
                if r != Default::default() {
                    log::info!(
                        "RetentionManager: {} segment(s) deleted, {} deleted archive(s) purged",
                        r.deleted,
                        r.purged
                    );
                }
            }),
            PeriodicTask::SegmentRelocator => match typed {
                Some(t) => {
                    let _guard = c.lock_writes().await?;
                    super::tiers::relocate_table(c, t).map(drop)
                }
                None => super::tiers::relocate_all(c).await.map(drop),
            },
            PeriodicTask::RealtimeSegmentValidationManager => {
                super::realtime::validate(c, typed).await;
                Ok(())
            }
            PeriodicTask::PinotTaskManager => {
                super::minion_tasks::schedule(c, None, typed, "CRON_TRIGGER")
                    .await
                    .map(|s| {
                        for e in s.generation_errors {
                            log::warn!("PinotTaskManager: {e}");
                        }
                    })
            }
        };
        changes::publish(c).await;
        done
    }
}

/// How often each periodic task runs (Pinot's `controller.*.frequencyPeriod` settings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intervals {
    /// `controller.retention.frequencyPeriod` (6h).
    pub retention: Duration,
    /// `controller.segment.relocator.frequencyPeriod` (Tessera: 60 s).
    pub relocation: Duration,
    /// `controller.realtime.segment.validation.frequencyPeriod` (Tessera: 5 s).
    pub realtime_validation: Duration,
    /// `controller.task.frequencyPeriod` (Tessera: 1h).
    pub task_scheduling: Duration,
}

impl Default for Intervals {
    fn default() -> Intervals {
        Intervals {
            retention: Duration::from_secs(6 * 3600),
            relocation: Duration::from_secs(60),
            realtime_validation: super::realtime::VALIDATION_INTERVAL,
            task_scheduling: Duration::from_secs(3600),
        }
    }
}

impl Intervals {
    /// The interval of `task`.
    pub fn of(&self, task: PeriodicTask) -> Duration {
        match task {
            PeriodicTask::RetentionManager => self.retention,
            PeriodicTask::SegmentRelocator => self.relocation,
            PeriodicTask::RealtimeSegmentValidationManager => self.realtime_validation,
            PeriodicTask::PinotTaskManager => self.task_scheduling,
        }
    }

    /// Reads Pinot's frequency properties (`6h`, `30m`, `90s`; a bare number is seconds).
    pub fn with_properties(
        mut self,
        props: &std::collections::BTreeMap<String, String>,
    ) -> Result<Intervals, String> {
        let keys = [
            ("controller.retention.frequencyPeriod", &mut self.retention),
            (
                "controller.segment.relocator.frequencyPeriod",
                &mut self.relocation,
            ),
            (
                "controller.realtime.segment.validation.frequencyPeriod",
                &mut self.realtime_validation,
            ),
            ("controller.task.frequencyPeriod", &mut self.task_scheduling),
        ];
        for (key, slot) in keys {
            if let Some(text) = props.get(key) {
                let ms = text
                    .trim()
                    .parse::<i64>()
                    .ok()
                    .map(|s| s.saturating_mul(1000))
                    .or_else(|| segments::types::table_config::parse_period_millis(text))
                    .filter(|ms| *ms > 0)
                    .ok_or_else(|| format!("{key}: '{text}' is not a period such as 6h"))?;
                *slot = Duration::from_millis(ms as u64);
            }
        }
        Ok(self)
    }
}

/// Runs `task` every `interval` while this controller leads, until `stop`.
pub async fn run_loop(
    c: Arc<Controller>,
    task: PeriodicTask,
    interval: Duration,
    stop: Arc<AtomicBool>,
) {
    while !stop.load(Ordering::Relaxed) {
        sleep_unless_stopped(&stop, interval).await;
        if stop.load(Ordering::Relaxed) || !c.is_leader() {
            // Another controller leads: its timers act.
            continue;
        }
        if let Err(e) = task.run(&c, None).await {
            log::warn!("periodic task {} failed: {}", task.name(), e.message);
        }
    }
}

pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.get(
        "/periodictask/names",
        "The periodic tasks this controller runs",
        names,
    );
    r.get(
        "/periodictask/run",
        "Run a periodic task now, over one table (tableName, type) or all",
        run_now,
    );
}

async fn names(_req: Request<ControllerState>) -> tide::Result {
    let names: Vec<&str> = PeriodicTask::ALL.iter().map(|t| t.name()).collect();
    json(&names)
}

/// The answer of `GET /periodictask/run`, as Pinot's `PeriodicTaskInvocationResponse`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunAnswer {
    task_id: String,
    is_successful: bool,
}

#[derive(serde::Deserialize)]
struct RunParams {
    taskname: Option<String>,
    #[serde(rename = "tableName")]
    table_name: Option<String>,
    #[serde(rename = "type")]
    table_type: Option<String>,
}

async fn run_now(req: Request<ControllerState>) -> tide::Result {
    let params: RunParams = req
        .query()
        .map_err(|e| ApiError::bad_request(format!("Invalid query parameters: {e}")))?;
    let c = req.state();
    let name = params.taskname.unwrap_or_default();
    let Some(task) = PeriodicTask::parse(&name) else {
        return Err(ApiError::not_found(format!("Periodic task '{name}' not found.")).into());
    };
    let table_type = match params.table_type.as_deref().filter(|t| !t.is_empty()) {
        None => None,
        Some(t) => Some(
            TableType::parse(t)
                .ok_or_else(|| ApiError::bad_request(format!("Illegal table type '{t}'")))?,
        ),
    };
    let tables: Vec<Option<String>> = match params.table_name.as_deref().filter(|t| !t.is_empty()) {
        None => vec![None],
        Some(name) => {
            let found = c.existing_tables(table_name::split(name).0, table_type)?;
            if found.is_empty() {
                return Err(ApiError::not_found(format!("Table '{name}' not found.")).into());
            }
            found.into_iter().map(|(_, typed)| Some(typed)).collect()
        }
    };
    // Pinot's: "api-" and the first 8 digits of a UUID.
    let id = format!("api-{}", &crate::common::ids::uuid_v4()[..8]);
    log::info!(
        "[TaskRequestId: {id}] running periodic task {} on {}",
        task.name(),
        params.table_name.as_deref().unwrap_or("all tables")
    );
    for typed in &tables {
        task.run(c, typed.as_deref()).await?;
    }
    json(&RunAnswer {
        task_id: id,
        is_successful: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_intervals_read_properties() {
        for t in PeriodicTask::ALL {
            assert_eq!(PeriodicTask::parse(t.name()), Some(t));
        }
        assert_eq!(PeriodicTask::parse("retentionmanager"), None);
        let props = [
            ("controller.retention.frequencyPeriod", "30m"),
            ("controller.segment.relocator.frequencyPeriod", "90"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let i = Intervals::default().with_properties(&props).unwrap();
        assert_eq!(i.retention, Duration::from_secs(1800));
        assert_eq!(i.relocation, Duration::from_secs(90));
        let bad = [("controller.retention.frequencyPeriod", "often")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert!(Intervals::default().with_properties(&bad).is_err());
    }
}
