//! Minion tasks on the controller (Pinot's `PinotTaskManager` and `PinotHelixTaskResourceManager`):
//! scheduling — the periodic `PinotTaskManager` and `POST /tasks/schedule` run the generators
//! ([`super::task_generators`]) of every task type a table enables and store each table's
//! subtasks as one task — handing subtasks to minions one at a time, taking their results, and
//! Pinot's task views (`GET /tasks/…`).
//!
//! A minion's result lands atomically: the outputs of a merge replace their inputs through a
//! segment lineage entry ([`super::lineage`]) whose end also marks the subtask completed and
//! moves the watermark, in one commit; outputs of a real-time-to-offline move are added the same
//! way (replacing nothing); a purge refreshes its segment only if the segment is still the one
//! the task read (its CRC). A minion that stops heartbeating gives its subtasks back (at most
//! [`MAX_ATTEMPTS`] tries), and a replacement it left in progress is reverted first, so a kill
//! -9 of a minion or of the controller loses or doubles nothing.

use super::catalog::encode;
use super::error::ControllerError;
use super::responses::{Status, json};
use super::task_generators::{self, Generated, Inputs};
use super::{Controller, ControllerState, segment_commit};
use crate::common::clock::now_ms;
use crate::http::ApiError;
use crate::http::body::{path_param, query_param};
use crate::http::routes::Routes;
use crate::metadata::records::SegmentRecord;
use crate::metadata::table_name;
use crate::metadata::tasks::{
    OutputMode, Subtask, SubtaskState, TaskMetadata, TaskRecord, TaskState, TaskType,
};
use crate::metadata::{Op, keys};
use crate::transport::minion_tasks::{TaskAssignment, TaskReport};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use tide::{Request, Response, StatusCode};

/// Times a subtask is handed out before a lost minion fails it.
pub const MAX_ATTEMPTS: u32 = 3;

/// How long a finished task stays listed (Helix's job expiry).
pub const FINISHED_TASK_EXPIRY_MS: i64 = 86_400_000;

/// Every task of `task_type`, oldest first.
pub fn tasks(c: &Controller, task_type: TaskType) -> Result<Vec<TaskRecord>, ApiError> {
    let mut all: Vec<TaskRecord> = c.read_all(&keys::tasks_of(task_type.name()))?;
    all.sort_by(|a, b| (a.created_ms, &a.name).cmp(&(b.created_ms, &b.name)));
    Ok(all)
}

fn task(c: &Controller, name: &str) -> Result<Option<TaskRecord>, ApiError> {
    let Some(t) = task_type_of(name) else {
        return Ok(None);
    };
    c.read(&keys::task(t.name(), name))
}

/// The type a task name carries (`Task_<type>_…`).
fn task_type_of(name: &str) -> Option<TaskType> {
    TaskType::parse(name.strip_prefix("Task_")?.split('_').next()?)
}

fn put_task(t: &TaskRecord) -> Op {
    Op::Put(keys::task(t.task_type.name(), &t.name), encode(t))
}

fn metadata(c: &Controller, typed: &str, t: TaskType) -> Result<TaskMetadata, ApiError> {
    Ok(c.read(&keys::task_metadata(typed, t.name()))?
        .unwrap_or_else(|| TaskMetadata {
            id: typed.to_string(),
            ..TaskMetadata::default()
        }))
}

/// A task name as Pinot makes them: `Task_<type>_<uuid>_<ms>`.
fn new_task_name(t: TaskType, now: i64) -> String {
    format!("Task_{}_{}_{now}", t.name(), crate::common::ids::uuid_v4())
}

/// What one scheduling run made: task type → task names, and the errors.
#[derive(Debug, Default)]
pub struct Scheduled {
    pub tasks: BTreeMap<TaskType, Vec<String>>,
    pub generation_errors: Vec<String>,
}

/// Runs the generators of `task_type` (every type a table enables when `None`) over table
/// `typed` (every table when `None`) and stores what they make.
pub async fn schedule(
    c: &Controller,
    task_type: Option<TaskType>,
    typed: Option<&str>,
    trigger: &str,
) -> Result<Scheduled, ApiError> {
    let tables = match typed {
        Some(t) => vec![t.to_string()],
        None => c.table_names()?,
    };
    let mut out = Scheduled::default();
    let _guard = c.lock_writes().await?;
    recover_lost(c)?;
    expire_finished(c)?;
    for typed in &tables {
        let Some(config) = c
            .table_config(typed)?
            .as_ref()
            .and_then(super::table_config::parse_config)
        else {
            continue;
        };
        for t in task_generators::enabled_types(&config) {
            if task_type.is_some_and(|want| want != t) {
                continue;
            }
            out.tasks.entry(t).or_default();
            let configs = task_generators::type_configs(&config, t).unwrap_or_default();
            let running: Vec<TaskRecord> = tasks(c, t)?
                .into_iter()
                .filter(|r| &r.table == typed && r.is_incomplete())
                .collect();
            let lineage = super::lineage::lineage(c, typed)?;
            let locked = lineage.locked();
            let segments: Vec<SegmentRecord> = super::lineage::visible_segments(c, typed)?
                .into_iter()
                .filter(|s| !locked.contains(s.segment_name.as_str()))
                .collect();
            let now = now_ms();
            let inputs = Inputs {
                typed,
                config: &config,
                configs: &configs,
                segments: &segments,
                metadata: metadata(c, typed, t)?,
                running: &running,
                now,
            };
            let Generated { subtasks, metadata } = match task_generators::generate(c, t, &inputs) {
                Ok(g) => g,
                Err(e) => {
                    out.generation_errors
                        .push(format!("{} of {typed}: {e}", t.name()));
                    continue;
                }
            };
            let mut ops = Vec::new();
            if let Some(m) = &metadata {
                ops.push(Op::Put(keys::task_metadata(typed, t.name()), encode(m)));
            }
            if !subtasks.is_empty() {
                let name = new_task_name(t, now);
                let record = TaskRecord {
                    subtasks: subtasks
                        .into_iter()
                        .enumerate()
                        .map(|(n, spec)| Subtask::new(format!("{name}_{n}"), spec))
                        .collect(),
                    name: name.clone(),
                    task_type: t,
                    table: typed.clone(),
                    created_ms: now,
                    triggered_by: trigger.to_string(),
                };
                log::info!(
                    "scheduled {name} on {typed}: {} subtask(s)",
                    record.subtasks.len()
                );
                ops.push(put_task(&record));
                out.tasks.entry(t).or_default().push(name);
            }
            if !ops.is_empty() {
                c.commit(ops)?;
            }
        }
    }
    Ok(out)
}

/// Gives back the subtasks of minions no longer online (failing those tried
/// [`MAX_ATTEMPTS`] times), reverting the replacements they left in progress — not in a
/// controller's first moments, before live minions had a chance to heartbeat. Call with the
/// write lock held.
fn recover_lost(c: &Controller) -> Result<(), ApiError> {
    if !c.knows_liveness() {
        return Ok(());
    }
    give_back(c, |s| s.minion.as_deref().is_none_or(|m| !c.is_online(m)))
}

/// Gives back the subtasks minion `minion` was running (it has just started, so it runs
/// none). Call with the write lock held.
pub fn release(c: &Controller, minion: &str) -> Result<(), ApiError> {
    give_back(c, |s| s.minion.as_deref() == Some(minion))
}

/// Gives back the running subtasks `lost` selects (see [`recover_lost`]), unless their result
/// is being applied here right now.
fn give_back(c: &Controller, lost: impl Fn(&Subtask) -> bool) -> Result<(), ApiError> {
    let applying = c.finishing.lock().map(|f| f.clone()).unwrap_or_default();
    for t in TaskType::ALL {
        for mut record in tasks(c, t)? {
            let mut changed = false;
            for s in record.subtasks.iter_mut() {
                if s.state != SubtaskState::Running || applying.contains(&s.id) || !lost(s) {
                    continue;
                }
                if let Some(id) = s.lineage_entry.take() {
                    revert_unfinished(c, &s.spec.output_table, &id)?;
                }
                log::warn!(
                    "minion {} of subtask {} is gone: {}",
                    s.minion.as_deref().unwrap_or("?"),
                    s.id,
                    if s.attempts < MAX_ATTEMPTS {
                        "giving it back"
                    } else {
                        "failing it"
                    }
                );
                if s.attempts < MAX_ATTEMPTS {
                    s.state = SubtaskState::Init;
                    s.minion = None;
                } else {
                    s.state = SubtaskState::TaskError;
                    s.finished_ms = Some(now_ms());
                    s.info = Some(format!("its minion was lost {MAX_ATTEMPTS} times"));
                }
                changed = true;
            }
            if changed {
                c.commit(vec![put_task(&record)])?;
            }
        }
    }
    Ok(())
}

/// Removes tasks finished longer than [`FINISHED_TASK_EXPIRY_MS`] ago. Call with the write
/// lock held.
fn expire_finished(c: &Controller) -> Result<(), ApiError> {
    let now = now_ms();
    let mut ops = Vec::new();
    for t in TaskType::ALL {
        for r in tasks(c, t)? {
            let finished = r.subtasks.iter().filter_map(|s| s.finished_ms).max();
            if !r.is_incomplete() && finished.is_some_and(|f| now - f > FINISHED_TASK_EXPIRY_MS) {
                ops.push(Op::Delete(keys::task(t.name(), &r.name)));
            }
        }
    }
    if !ops.is_empty() {
        c.commit(ops)?;
    }
    Ok(())
}

/// Reverts lineage entry `id` of `typed` if it is still in progress.
fn revert_unfinished(c: &Controller, typed: &str, id: &str) -> Result<(), ControllerError> {
    let l = super::lineage::lineage(c, typed)?;
    if l.lineage_entries
        .get(id)
        .is_some_and(|e| e.state == crate::metadata::lineage::LineageState::InProgress)
    {
        super::lineage::revert(c, typed, id, true)?;
    }
    Ok(())
}

/// Hands minion `minion` the oldest subtask waiting, if any.
pub async fn next(c: &Controller, minion: &str) -> Result<Option<TaskAssignment>, ApiError> {
    // Most polls find nothing to do: they look first without the (cluster-wide) write lock.
    let mut work = false;
    for t in TaskType::ALL {
        work |= tasks(c, t)?.iter().any(|r| {
            r.subtasks.iter().any(|s| {
                s.state == SubtaskState::Init
                    || (s.state == SubtaskState::Running
                        && s.minion.as_deref().is_none_or(|m| !c.is_online(m)))
            })
        });
    }
    if !work {
        return Ok(None);
    }
    let _guard = c.lock_writes().await?;
    recover_lost(c)?;
    for t in TaskType::ALL {
        for mut record in tasks(c, t)? {
            let Some(s) = record
                .subtasks
                .iter_mut()
                .find(|s| s.state == SubtaskState::Init)
            else {
                continue;
            };
            s.state = SubtaskState::Running;
            s.minion = Some(minion.to_string());
            s.started_ms = Some(now_ms());
            s.attempts += 1;
            let (subtask_id, spec) = (s.id.clone(), s.spec.clone());
            let raw = table_name::split(&spec.output_table).0;
            let schema = c.schema_json(raw)?;
            let output_config = c.table_config(&spec.output_table)?;
            let (Some(schema), Some(output_config)) = (schema, output_config) else {
                // Its table is gone: the subtask cannot run.
                s.state = SubtaskState::TaskError;
                s.info = Some(format!("table {} does not exist", spec.output_table));
                s.finished_ms = Some(now_ms());
                c.commit(vec![put_task(&record)])?;
                continue;
            };
            c.commit(vec![put_task(&record)])?;
            log::info!("{subtask_id} goes to {minion}");
            return Ok(Some(TaskAssignment {
                task_name: record.name.clone(),
                task_type: t,
                subtask_id,
                spec,
                schema,
                output_config,
            }));
        }
    }
    Ok(None)
}

/// The subtask `report` names, if `report.minion` still runs it.
fn running_subtask(
    c: &Controller,
    report: &TaskReport,
) -> Result<(TaskRecord, usize), ControllerError> {
    let record = task(c, &report.task_name)?.ok_or_else(|| {
        ControllerError::missing(format!("Task: {} does not exist", report.task_name))
    })?;
    let at = record
        .subtasks
        .iter()
        .position(|s| s.id == report.subtask_id)
        .ok_or_else(|| {
            ControllerError::missing(format!("Subtask: {} does not exist", report.subtask_id))
        })?;
    let s = &record.subtasks[at];
    if s.state != SubtaskState::Running || s.minion.as_deref() != Some(report.minion.as_str()) {
        return Err(ControllerError::conflict(format!(
            "Subtask {} is not running on {} (it is {:?})",
            s.id, report.minion, s.state
        )));
    }
    Ok((record, at))
}

/// Ops marking subtask `at` of the current record of `name` done (`error`: failed).
fn finish_ops(
    c: &Controller,
    report: &TaskReport,
    error: Option<String>,
    info: Option<String>,
) -> Result<Vec<Op>, ControllerError> {
    let (mut record, at) = running_subtask(c, report)?;
    let s = &mut record.subtasks[at];
    s.state = if error.is_some() {
        SubtaskState::TaskError
    } else {
        SubtaskState::Completed
    };
    s.finished_ms = Some(now_ms());
    s.info = error.or(info);
    s.lineage_entry = None;
    let mut ops = vec![put_task(&record)];
    let spec = &record.subtasks[at].spec;
    if record.subtasks[at].state == SubtaskState::Completed
        && let Some((key, value)) = &spec.watermark
    {
        let mut m = metadata(c, &record.table, record.task_type)?;
        m.simple_fields.insert(key.clone(), value.to_string());
        ops.push(Op::Put(
            keys::task_metadata(&record.table, record.task_type.name()),
            encode(&m),
        ));
    }
    Ok(ops)
}

/// Takes a minion's result: see the module docs.
pub async fn finish(
    c: &Controller,
    report: &TaskReport,
    archives: Arc<Vec<Vec<u8>>>,
) -> Result<(), ControllerError> {
    if let Some(e) = &report.error {
        let _guard = c.lock_writes().await?;
        log::warn!("{} failed on {}: {e}", report.subtask_id, report.minion);
        let ops = finish_ops(c, report, Some(e.clone()), None)?;
        c.commit(ops)?;
        return Ok(());
    }
    // One application of a subtask's result at a time (a minion that timed out and offered it
    // again while the first is still being applied is told so).
    let _applying = Applying::enter(c, &report.subtask_id)?;
    let result = apply(c, report, archives).await;
    if let Err(e) = &result {
        // The subtask failed here; what it started is undone.
        log::warn!("{} of {} failed: {e}", report.subtask_id, report.minion);
        let _guard = c.lock_writes().await?;
        if let Ok((record, at)) = running_subtask(c, report) {
            if let Some(id) = &record.subtasks[at].lineage_entry {
                revert_unfinished(c, &record.subtasks[at].spec.output_table, id)?;
            }
            let ops = finish_ops(c, report, Some(e.message().to_string()), None)?;
            c.commit(ops)?;
        }
    }
    result
}

/// Marks a subtask's result as being applied by this controller while it lives.
struct Applying<'a> {
    c: &'a Controller,
    id: String,
}

impl<'a> Applying<'a> {
    fn enter(c: &'a Controller, id: &str) -> Result<Applying<'a>, ControllerError> {
        let mut f = c
            .finishing
            .lock()
            .map_err(|_| ControllerError::internal("task bookkeeping poisoned"))?;
        if !f.insert(id.to_string()) {
            return Err(ControllerError::conflict(format!(
                "The result of {id} is already being applied"
            )));
        }
        Ok(Applying {
            c,
            id: id.to_string(),
        })
    }
}

impl Drop for Applying<'_> {
    fn drop(&mut self) {
        if let Ok(mut f) = self.c.finishing.lock() {
            f.remove(&self.id);
        }
    }
}

/// Stores the outputs of a successful subtask and ends it.
async fn apply(
    c: &Controller,
    report: &TaskReport,
    archives: Arc<Vec<Vec<u8>>>,
) -> Result<(), ControllerError> {
    // Names first (validated again when each is stored).
    let mut outputs = Vec::new();
    for a in archives.iter() {
        let name = crate::common::archive::segment_name_of(a)
            .map_err(|e| ControllerError::invalid(e.to_string()))?;
        outputs.push(name);
    }
    let (record, at) = {
        let _guard = c.lock_writes().await?;
        let (mut record, at) = running_subtask(c, report)?;
        let spec = record.subtasks[at].spec.clone();
        // A finish retried after a controller restart: undo the first attempt's start.
        if let Some(id) = record.subtasks[at].lineage_entry.take() {
            revert_unfinished(c, &spec.output_table, &id)?;
        }
        let current: BTreeMap<String, u32> = c
            .segments(&spec.table)?
            .into_iter()
            .map(|s| (s.segment_name, s.crc))
            .collect();
        if let Some((n, _)) = spec
            .input_segments
            .iter()
            .find(|(n, crc)| current.get(n) != Some(crc))
        {
            return Err(ControllerError::conflict(format!(
                "Segment {n} of {} changed or went away while the task ran",
                spec.table
            )));
        }
        if spec.output == OutputMode::Add && outputs.is_empty() {
            // A window without rows: nothing to add, the watermark moves on past it.
            let ops = finish_ops(c, report, None, Some("no rows to move".into()))?;
            c.commit(ops)?;
            return Ok(());
        }
        if spec.output != OutputMode::Refresh {
            let from: Vec<String> = match spec.output {
                OutputMode::Replace => spec.input_segments.iter().map(|(n, _)| n.clone()).collect(),
                _ => Vec::new(),
            };
            let (id, mut ops) =
                super::lineage::start_ops(c, &spec.output_table, from, outputs.clone())?;
            record.subtasks[at].lineage_entry = Some(id);
            ops.push(put_task(&record));
            c.commit(ops)?;
        }
        (record, at)
    };
    let spec = record.subtasks[at].spec.clone();
    match spec.output {
        OutputMode::Refresh => {
            let [archive] = archives.as_slice() else {
                return Err(ControllerError::invalid(format!(
                    "a purge makes one segment, not {}",
                    archives.len()
                )));
            };
            let archive = archive.clone();
            let (name, crc) = spec.input_segments[0].clone();
            if outputs[0] != name {
                return Err(ControllerError::invalid(format!(
                    "a purge of {name} made segment {}",
                    outputs[0]
                )));
            }
            segment_commit::store_archive_if(c, Some(&spec.table), None, archive, Some(crc))
                .await?;
            let _guard = c.lock_writes().await?;
            let mut ops = finish_ops(c, report, None, Some(format!("purged {name}")))?;
            if let Some(mut r) = c.segment(&spec.table, &name)? {
                r.custom
                    .insert("PurgeTask.time".into(), now_ms().to_string());
                ops.push(Op::Put(keys::segment(&spec.table, &name), encode(&r)));
            }
            c.commit(ops)?;
        }
        OutputMode::Replace | OutputMode::Add => {
            for archive in archives.iter() {
                segment_commit::store_archive(c, Some(&spec.output_table), None, archive.clone())
                    .await?;
            }
            // Servers learn of the new segments now, not at their next heartbeat: the end
            // below waits for them to be loaded.
            super::changes::publish(c).await;
            let id = record.subtasks[at]
                .lineage_entry
                .clone()
                .unwrap_or_default();
            let level = spec.merge_level.clone();
            let made: HashSet<String> = outputs.iter().cloned().collect();
            let info = format!("made [{}]", outputs.join(", "));
            super::lineage::end(c, &spec.output_table, &id, || {
                let mut ops = finish_ops(c, report, None, Some(info))?;
                if let Some(level) = &level {
                    let now = now_ms().to_string();
                    for mut r in c.segments(&spec.output_table)? {
                        if made.contains(&r.segment_name) {
                            r.custom
                                .insert("MergeRollupTask.mergeLevel".into(), level.clone());
                            r.custom.insert("MergeRollupTask.time".into(), now.clone());
                            ops.push(Op::Put(
                                keys::segment(&spec.output_table, &r.segment_name),
                                encode(&r),
                            ));
                        }
                    }
                }
                Ok(ops)
            })
            .await?;
        }
    }
    log::info!(
        "{} of {} done: {outputs:?}",
        report.subtask_id,
        report.minion
    );
    Ok(())
}

pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.post(
        "/tasks/schedule",
        "Run the task generators now (taskType, tableName)",
        schedule_endpoint,
    );
    r.get("/tasks/tasktypes", "The task types with tasks", task_types);
    r.get("/tasks/:taskType/state", "A task type's state", type_state);
    r.get("/tasks/:taskType/tasks", "A task type's tasks", type_tasks);
    r.get(
        "/tasks/:taskType/taskstates",
        "A task type's tasks with their states",
        type_task_states,
    );
    r.get(
        "/tasks/:taskType/:table/state",
        "A table's tasks of a type with their states",
        table_task_states,
    );
    r.get(
        "/tasks/:taskType/:table/metadata",
        "A table's task metadata (watermarks)",
        table_metadata,
    );
    r.get("/tasks/task/:name/state", "A task's state", task_state);
    r.get(
        "/tasks/subtask/:name/state",
        "A task's subtasks with their states",
        subtask_states,
    );
    r.get(
        "/tasks/task/:name/config",
        "A task's subtask configs",
        task_config,
    );
    r.get(
        "/tasks/task/:name/debug",
        "A task's subtasks: state, minion, times, info",
        task_debug,
    );
    r.post(
        "/tessera/tasks/next",
        "Internal: the next subtask for a minion",
        next_endpoint,
    );
    r.post(
        "/tessera/tasks/finish",
        "Internal: a minion's result",
        finish_endpoint,
    );
}

fn task_type_param(req: &Request<ControllerState>) -> Result<TaskType, ApiError> {
    let name = path_param(req, "taskType")?;
    TaskType::parse(&name).ok_or_else(|| ApiError::not_found(format!("Unknown task type: {name}")))
}

async fn schedule_endpoint(req: Request<ControllerState>) -> tide::Result {
    let c = req.state();
    let task_type = match query_param(&req, "taskType").filter(|t| !t.is_empty()) {
        None => None,
        Some(t) => match TaskType::parse(&t) {
            Some(t) => Some(t),
            // Pinot answers an unknown type with nothing scheduled.
            None => {
                return json(&BTreeMap::from([
                    ("generationErrors", String::new()),
                    ("schedulingErrors", String::new()),
                ]));
            }
        },
    };
    let tables: Vec<Option<String>> = match query_param(&req, "tableName").filter(|t| !t.is_empty())
    {
        None => vec![None],
        Some(name) => {
            let found =
                c.existing_tables(table_name::split(&name).0, table_name::split(&name).1)?;
            found.into_iter().map(|(_, t)| Some(t)).collect()
        }
    };
    let mut made: BTreeMap<TaskType, Vec<String>> = BTreeMap::new();
    let mut errors = Vec::new();
    for t in &tables {
        let s = schedule(c, task_type, t.as_deref(), "MANUAL_TRIGGER").await?;
        for (k, v) in s.tasks {
            made.entry(k).or_default().extend(v);
        }
        errors.extend(s.generation_errors);
    }
    let mut out: BTreeMap<String, String> = made
        .into_iter()
        .map(|(k, v)| (k.name().to_string(), v.join(",")))
        .collect();
    out.insert("generationErrors".into(), errors.join(","));
    out.insert("schedulingErrors".into(), String::new());
    json(&out)
}

async fn task_types(req: Request<ControllerState>) -> tide::Result {
    let mut out = Vec::new();
    for t in TaskType::ALL {
        if !tasks(req.state(), t)?.is_empty() {
            out.push(t.name());
        }
    }
    json(&out)
}

/// Pinot's queue state of a task type: in progress while a task is, else not started when
/// none ever ran, else the last task's.
async fn type_state(req: Request<ControllerState>) -> tide::Result {
    let t = task_type_param(&req)?;
    let all = tasks(req.state(), t)?;
    if all.is_empty() {
        return Ok(Response::new(StatusCode::NoContent));
    }
    let state = if all.iter().any(|r| r.state() == TaskState::InProgress) {
        TaskState::InProgress
    } else {
        all.last().map_or(TaskState::NotStarted, TaskRecord::state)
    };
    json(&state)
}

async fn type_tasks(req: Request<ControllerState>) -> tide::Result {
    let t = task_type_param(&req)?;
    let all = tasks(req.state(), t)?;
    if all.is_empty() {
        return Err(
            ApiError::not_found(format!("No tasks found for task type: {}", t.name())).into(),
        );
    }
    let names: Vec<&str> = all.iter().map(|r| r.name.as_str()).collect();
    json(&names)
}

/// Task name → state, in task order.
fn states(tasks: impl Iterator<Item = TaskRecord>) -> super::responses::Entries<TaskState> {
    super::responses::Entries(tasks.map(|r| (r.name.clone(), r.state())).collect())
}

async fn type_task_states(req: Request<ControllerState>) -> tide::Result {
    let t = task_type_param(&req)?;
    let all = tasks(req.state(), t)?;
    json(&states(all.into_iter()))
}

async fn table_task_states(req: Request<ControllerState>) -> tide::Result {
    let t = task_type_param(&req)?;
    let table = path_param(&req, "table")?;
    let all = tasks(req.state(), t)?;
    json(&states(all.into_iter().filter(|r| r.table == table)))
}

async fn table_metadata(req: Request<ControllerState>) -> tide::Result {
    let t = task_type_param(&req)?;
    let table = path_param(&req, "table")?;
    match req
        .state()
        .read::<TaskMetadata>(&keys::task_metadata(&table, t.name()))?
    {
        Some(m) => json(&m),
        None => json(&serde_json::json!({})),
    }
}

async fn task_state(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "name")?;
    match task(req.state(), &name)? {
        Some(r) => json(&r.state()),
        None => Ok(Response::new(StatusCode::NoContent)),
    }
}

fn existing_task(req: &Request<ControllerState>) -> Result<TaskRecord, ApiError> {
    let name = path_param(req, "name")?;
    task(req.state(), &name)?
        .ok_or_else(|| ApiError::not_found(format!("Task: {name} does not exist")))
}

async fn subtask_states(req: Request<ControllerState>) -> tide::Result {
    let r = existing_task(&req)?;
    json(&super::responses::Entries(
        r.subtasks.iter().map(|s| (s.id.clone(), s.state)).collect(),
    ))
}

/// Pinot's `PinotTaskConfig`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskConfigView {
    task_type: &'static str,
    configs: BTreeMap<String, String>,
    task_id: String,
    table_name: String,
}

async fn task_config(req: Request<ControllerState>) -> tide::Result {
    let r = existing_task(&req)?;
    let views: Vec<TaskConfigView> = r
        .subtasks
        .iter()
        .map(|s| TaskConfigView {
            task_type: r.task_type.name(),
            configs: r.configs(s),
            task_id: s.id.clone(),
            table_name: r.table.clone(),
        })
        .collect();
    json(&views)
}

async fn task_debug(req: Request<ControllerState>) -> tide::Result {
    json(&existing_task(&req)?)
}

#[derive(serde::Deserialize)]
struct NextParams {
    minion: String,
}

async fn next_endpoint(req: Request<ControllerState>) -> tide::Result {
    let p: NextParams = req
        .query()
        .map_err(|e| ApiError::bad_request(format!("Invalid query parameters: {e}")))?;
    match next(req.state(), &p.minion).await? {
        Some(a) => json(&a),
        None => Ok(Response::new(StatusCode::NoContent)),
    }
}

async fn finish_endpoint(mut req: Request<ControllerState>) -> tide::Result {
    let content_type = req
        .content_type()
        .map(|m| m.to_string())
        .unwrap_or_default();
    let boundary = crate::http::multipart::boundary(&content_type)
        .ok_or_else(|| ApiError::bad_request("Expected a multipart/form-data body"))?;
    let limit = req.state().config.max_upload_bytes;
    let body = crate::http::body::read_bounded(&mut req, limit).await?;
    let parts = crate::http::multipart::parse(&body, &boundary)?;
    drop(body);
    let mut report = None;
    let mut archives = Vec::new();
    for p in parts {
        match p.name.as_str() {
            "report" => {
                report = Some(
                    serde_json::from_slice::<TaskReport>(&p.data)
                        .map_err(|e| ApiError::bad_request(format!("Invalid task report: {e}")))?,
                )
            }
            _ => archives.push(p.data),
        }
    }
    let report = report.ok_or_else(|| ApiError::bad_request("Missing the task report"))?;
    finish(req.state(), &report, Arc::new(archives)).await?;
    json(&Status::new(format!("{} finished", report.subtask_id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_names_carry_their_type() {
        let name = new_task_name(TaskType::MergeRollupTask, 1_700_000_000_000);
        assert!(name.starts_with("Task_MergeRollupTask_"), "{name}");
        assert!(name.ends_with("_1700000000000"), "{name}");
        assert_eq!(task_type_of(&name), Some(TaskType::MergeRollupTask));
        let name = new_task_name(TaskType::RealtimeToOfflineSegmentsTask, 5);
        assert_eq!(
            task_type_of(&name),
            Some(TaskType::RealtimeToOfflineSegmentsTask)
        );
        assert_eq!(task_type_of("Task_Nope_x_1"), None);
        assert_eq!(task_type_of("MergeRollupTask"), None);
    }
}
