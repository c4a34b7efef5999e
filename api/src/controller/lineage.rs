//! Replacing segments atomically (Pinot's segment lineage, [`SegmentLineage`]): start a
//! replacement naming the old and the new segments (the new ones, uploaded next, stay out of
//! routing), end it once every new segment is loaded on an online replica — one commit marks the
//! entry `COMPLETED` and removes the old segments' records, so a query routes to the old set or
//! to the new one — or revert it (the new segments are deleted). Minion tasks replace segments
//! through it, and so can users: `POST /segments/{t}/startReplaceSegments`,
//! `…/endReplaceSegments`, `…/revertReplaceSegments`, `GET /segments/{t}/lineage`.

use super::catalog::encode;
use super::error::ControllerError;
use super::responses::json;
use super::{Controller, ControllerState};
use crate::common::clock::now_ms;
use crate::http::ApiError;
use crate::http::body::{path_param, query_param, read_text};
use crate::http::routes::Routes;
use crate::metadata::lineage::{LineageEntry, LineageState, SegmentLineage};
use crate::metadata::records::SegmentRecord;
use crate::metadata::table_name::{self, TableType};
use crate::metadata::{Op, keys};
use std::collections::HashSet;
use std::time::{Duration, Instant};
use tide::{Request, Response, StatusCode};

/// How long an end waits for the new segments to load before it gives up.
pub const LOAD_WAIT: Duration = Duration::from_secs(120);

/// The lineage of table `typed` (empty when it has none).
pub fn lineage(c: &Controller, typed: &str) -> Result<SegmentLineage, ApiError> {
    Ok(c.read::<SegmentLineage>(&keys::lineage(typed))?
        .unwrap_or_else(|| SegmentLineage {
            table_name_with_type: typed.to_string(),
            ..SegmentLineage::default()
        }))
}

/// The segments of table `typed` queries may see: all but those its lineage hides.
pub fn visible_segments(c: &Controller, typed: &str) -> Result<Vec<SegmentRecord>, ApiError> {
    let segments = c.segments(typed)?;
    let l = lineage(c, typed)?;
    if l.lineage_entries.is_empty() {
        return Ok(segments);
    }
    let hidden = l.hidden();
    Ok(segments
        .into_iter()
        .filter(|s| !hidden.contains(s.segment_name.as_str()))
        .collect())
}

fn put_lineage(l: &SegmentLineage) -> Op {
    Op::Put(keys::lineage(&l.table_name_with_type), encode(l))
}

/// Starts replacing `from` with `to` in table `typed`: every `from` segment must exist, no `to`
/// segment may, and neither may take part in another unfinished replacement. Returns the
/// entry's id. Call with the write lock held.
pub fn start(
    c: &Controller,
    typed: &str,
    from: Vec<String>,
    to: Vec<String>,
) -> Result<String, ControllerError> {
    let (id, ops) = start_ops(c, typed, from, to)?;
    c.commit(ops)?;
    Ok(id)
}

/// [`start`]'s checks, and the entry's id with the ops that record it (for a caller that
/// commits them with its own).
pub fn start_ops(
    c: &Controller,
    typed: &str,
    from: Vec<String>,
    to: Vec<String>,
) -> Result<(String, Vec<Op>), ControllerError> {
    if from.is_empty() && to.is_empty() {
        return Err(ControllerError::invalid(
            "'segmentsFrom' and 'segmentsTo' cannot both be empty",
        ));
    }
    let existing: HashSet<String> = c
        .segments(typed)?
        .into_iter()
        .map(|s| s.segment_name)
        .collect();
    if let Some(s) = from.iter().find(|s| !existing.contains(*s)) {
        return Err(ControllerError::invalid(format!(
            "Segment: {s} from 'segmentsFrom' does not exist in table: {typed}"
        )));
    }
    if let Some(s) = to.iter().find(|s| existing.contains(*s)) {
        return Err(ControllerError::invalid(format!(
            "Segment: {s} from 'segmentsTo' exists in table: {typed}"
        )));
    }
    let mut l = lineage(c, typed)?;
    {
        let locked = l.locked();
        let unfinished_to: HashSet<&str> = l
            .lineage_entries
            .values()
            .filter(|e| e.state == LineageState::InProgress)
            .flat_map(|e| e.segments_to.iter().map(String::as_str))
            .collect();
        if from.iter().any(|s| locked.contains(s.as_str()))
            || to.iter().any(|s| unfinished_to.contains(s.as_str()))
        {
            return Err(ControllerError::conflict(format!(
                "Failed to update the segment lineage during startReplaceSegments. (tableName = \
                 {typed}, segmentsFrom = [{}], segmentsTo = [{}])",
                from.join(", "),
                to.join(", ")
            )));
        }
    }
    let id = crate::common::ids::uuid_v4();
    l.lineage_entries.insert(
        id.clone(),
        LineageEntry {
            segments_from: from,
            segments_to: to,
            state: LineageState::InProgress,
            timestamp: now_ms(),
        },
    );
    Ok((id, vec![put_lineage(&l)]))
}

/// The unfinished entry `id` of table `typed`.
fn in_progress(c: &Controller, typed: &str, id: &str) -> Result<LineageEntry, ControllerError> {
    let l = lineage(c, typed)?;
    match l.lineage_entries.get(id) {
        None => Err(ControllerError::missing(format!(
            "Segment lineage entry {id} does not exist in table: {typed}"
        ))),
        Some(e) if e.state == LineageState::Reverted => Err(ControllerError::conflict(format!(
            "Failed to update the segment lineage during endReplaceSegments. (tableName = \
             {typed}, segmentLineageEntryId = {id}): the entry is REVERTED"
        ))),
        Some(e) => Ok(e.clone()),
    }
}

/// Waits (without the write lock) until every segment of `names` is loaded on an online
/// replica, at most `within`.
pub async fn wait_loaded(
    c: &Controller,
    typed: &str,
    names: &[String],
    within: Duration,
) -> Result<(), ControllerError> {
    let deadline = Instant::now() + within;
    loop {
        let records = c.segments(typed)?;
        let missing: Vec<&String> = names
            .iter()
            .filter(|n| {
                !records.iter().any(|r| {
                    &r.segment_name == *n
                        && r.servers
                            .iter()
                            .any(|s| c.is_online(s) && c.has_loaded(s, typed, n))
                })
            })
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(ControllerError::Unavailable(format!(
                "Segments [{}] of table {typed} were not loaded by any online server within {within:?}",
                missing
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        async_std::task::sleep(Duration::from_millis(50)).await;
    }
}

/// Ends replacement `id` of table `typed`: once its new segments are loaded, one commit marks it
/// `COMPLETED`, removes the old segments' records and applies `more` (a task's own bookkeeping);
/// the old archives then go to the deleted-segments area. Takes the write lock itself.
pub async fn end(
    c: &Controller,
    typed: &str,
    id: &str,
    more: impl FnOnce() -> Result<Vec<Op>, ControllerError>,
) -> Result<(), ControllerError> {
    let entry = in_progress(c, typed, id)?;
    if entry.state == LineageState::Completed {
        return Ok(());
    }
    wait_loaded(c, typed, &entry.segments_to, LOAD_WAIT).await?;
    let _guard = c.lock_writes().await?;
    let entry = in_progress(c, typed, id)?;
    if entry.state == LineageState::Completed {
        return Ok(());
    }
    let records = c.segments(typed)?;
    if let Some(s) = entry
        .segments_to
        .iter()
        .find(|s| !records.iter().any(|r| &r.segment_name == *s))
    {
        return Err(ControllerError::conflict(format!(
            "Segment: {s} from 'segmentsTo' does not exist in table: {typed}"
        )));
    }
    let old: Vec<SegmentRecord> = records
        .into_iter()
        .filter(|r| entry.segments_from.contains(&r.segment_name))
        .collect();
    let mut l = lineage(c, typed)?;
    if let Some(e) = l.lineage_entries.get_mut(id) {
        e.state = LineageState::Completed;
        e.timestamp = now_ms();
    }
    let mut ops = vec![put_lineage(&l)];
    ops.extend(
        old.iter()
            .map(|r| Op::Delete(keys::segment(typed, &r.segment_name))),
    );
    ops.extend(more()?);
    c.commit(ops)?;
    retire(c, typed, &old);
    Ok(())
}

/// Reverts replacement `id` of table `typed`: the entry becomes `REVERTED` and its new
/// segments are deleted (a completed one is reverted only when `force`, and only while its
/// old segments still exist). Call with the write lock held.
pub fn revert(c: &Controller, typed: &str, id: &str, force: bool) -> Result<(), ControllerError> {
    let mut l = lineage(c, typed)?;
    let Some(entry) = l.lineage_entries.get(id).cloned() else {
        return Err(ControllerError::missing(format!(
            "Segment lineage entry {id} does not exist in table: {typed}"
        )));
    };
    let records = c.segments(typed)?;
    match entry.state {
        LineageState::Reverted => {
            return Err(ControllerError::conflict(format!(
                "Failed to update the segment lineage during revertReplaceSegments. (tableName \
                 = {typed}, segmentLineageEntryId = {id}): the entry is already REVERTED"
            )));
        }
        LineageState::Completed
            if !entry
                .segments_from
                .iter()
                .all(|s| records.iter().any(|r| &r.segment_name == s)) =>
        {
            return Err(ControllerError::conflict(format!(
                "Failed to update the segment lineage during revertReplaceSegments. (tableName \
                 = {typed}, segmentLineageEntryId = {id}): its segmentsFrom are gone"
            )));
        }
        LineageState::InProgress if !force => {
            return Err(ControllerError::conflict(format!(
                "Failed to update the segment lineage during revertReplaceSegments. (tableName \
                 = {typed}, segmentLineageEntryId = {id}): the entry is IN_PROGRESS (use \
                 forceRevert=true)"
            )));
        }
        _ => {}
    }
    let new: Vec<SegmentRecord> = records
        .into_iter()
        .filter(|r| entry.segments_to.contains(&r.segment_name))
        .collect();
    if let Some(e) = l.lineage_entries.get_mut(id) {
        e.state = LineageState::Reverted;
        e.timestamp = now_ms();
    }
    let mut ops = vec![put_lineage(&l)];
    ops.extend(
        new.iter()
            .map(|r| Op::Delete(keys::segment(typed, &r.segment_name))),
    );
    c.commit(ops)?;
    retire(c, typed, &new);
    Ok(())
}

fn retire(c: &Controller, typed: &str, gone: &[SegmentRecord]) {
    let config = c.table_config(typed).ok().flatten();
    let keep = super::deleted_segments::deleted_retention(
        config
            .as_ref()
            .and_then(super::table_config::parse_config)
            .as_ref(),
    );
    for r in gone {
        super::deleted_segments::retire_archive(c, typed, &r.archive, keep);
    }
}

/// Drops finished entries that no longer matter (a completed one a day after it completed —
/// its old segments are gone — a reverted one whose new segments are gone) and reverts
/// entries left in progress longer than `stale` (a replacement whose driver died). Call with
/// the write lock held. Returns how many entries changed.
pub fn clean_up(c: &Controller, typed: &str, stale: Duration) -> Result<usize, ControllerError> {
    let l = lineage(c, typed)?;
    let now = now_ms();
    let stale_ms = stale.as_millis() as i64;
    let mut changed = 0;
    for (id, e) in &l.lineage_entries {
        if e.state == LineageState::InProgress && now - e.timestamp > stale_ms {
            revert(c, typed, id, true)?;
            changed += 1;
        }
    }
    let mut l = lineage(c, typed)?;
    let names: HashSet<String> = c
        .segments(typed)?
        .into_iter()
        .map(|s| s.segment_name)
        .collect();
    let before = l.lineage_entries.len();
    l.lineage_entries.retain(|_, e| match e.state {
        LineageState::InProgress => true,
        LineageState::Completed => now - e.timestamp <= 86_400_000,
        LineageState::Reverted => e.segments_to.iter().any(|s| names.contains(s)),
    });
    if l.lineage_entries.len() != before {
        changed += before - l.lineage_entries.len();
        c.commit(vec![if l.lineage_entries.is_empty() {
            Op::Delete(keys::lineage(typed))
        } else {
            put_lineage(&l)
        }])?;
    }
    Ok(changed)
}

pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.post(
        "/segments/:table/startReplaceSegments",
        "Start replacing segmentsFrom with segmentsTo (type=OFFLINE|REALTIME)",
        start_endpoint,
    );
    r.post(
        "/segments/:table/endReplaceSegments",
        "Finish a replacement once its new segments are loaded (segmentLineageEntryId)",
        end_endpoint,
    );
    r.post(
        "/segments/:table/revertReplaceSegments",
        "Revert a replacement: its new segments are deleted (segmentLineageEntryId, forceRevert)",
        revert_endpoint,
    );
    r.get(
        "/segments/:table/lineage",
        "A table's segment lineage (type=OFFLINE|REALTIME)",
        get_endpoint,
    );
}

/// The typed table a lineage request names (`type` is required, as Pinot's).
fn addressed(req: &Request<ControllerState>) -> Result<String, ApiError> {
    let name = path_param(req, "table")?;
    let Some(t) = query_param(req, "type").and_then(|t| TableType::parse(&t)) else {
        return Err(ApiError::bad_request(
            "Table type should either be offline or realtime",
        ));
    };
    let typed = table_name::with_type(table_name::split(&name).0, t);
    if req.state().table_config(&typed)?.is_none() {
        return Err(ApiError::not_found(format!("Table '{typed}' not found.")));
    }
    Ok(typed)
}

fn entry_id(req: &Request<ControllerState>) -> Result<String, ApiError> {
    query_param(req, "segmentLineageEntryId")
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ApiError::bad_request("'segmentLineageEntryId' should not be null"))
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct StartBody {
    #[serde(default)]
    segments_from: Option<Vec<String>>,
    #[serde(default)]
    segments_to: Option<Vec<String>>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Started {
    segment_lineage_entry_id: String,
}

async fn start_endpoint(mut req: Request<ControllerState>) -> tide::Result {
    let typed = addressed(&req)?;
    let text = read_text(&mut req, 1 << 20).await?;
    let body: StartBody = crate::http::body::parse_json(&text, "Invalid request body")?;
    let c = req.state();
    let _guard = c.lock_writes().await?;
    let id = start(
        c,
        &typed,
        body.segments_from.unwrap_or_default(),
        body.segments_to.unwrap_or_default(),
    )?;
    json(&Started {
        segment_lineage_entry_id: id,
    })
}

async fn end_endpoint(req: Request<ControllerState>) -> tide::Result {
    let typed = addressed(&req)?;
    let id = entry_id(&req)?;
    end(req.state(), &typed, &id, || Ok(Vec::new())).await?;
    Ok(Response::new(StatusCode::Ok))
}

async fn revert_endpoint(req: Request<ControllerState>) -> tide::Result {
    let typed = addressed(&req)?;
    let id = entry_id(&req)?;
    let force = query_param(&req, "forceRevert").is_some_and(|f| f.eq_ignore_ascii_case("true"));
    let c = req.state();
    let _guard = c.lock_writes().await?;
    revert(c, &typed, &id, force)?;
    Ok(Response::new(StatusCode::Ok))
}

async fn get_endpoint(req: Request<ControllerState>) -> tide::Result {
    let typed = addressed(&req)?;
    let l = lineage(req.state(), &typed)?;
    if l.lineage_entries.is_empty() {
        return Ok(Response::new(StatusCode::Ok));
    }
    json(&l)
}
