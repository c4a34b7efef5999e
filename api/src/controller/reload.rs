//! Reloading segments: `POST /segments/{t}/reload` (every segment of the table, or of one type
//! with `type=`), `POST /segments/{t}/{segment}/reload` (one segment) and
//! `GET /segments/segmentReloadStatus/{jobId}` (the job's progress, see [`super::reload_jobs`]).
//!
//! A reload bumps each segment's `reload_version` (servers reopen their copy at once) and starts a
//! background job that rebuilds each segment with the current table config and schema and stores
//! it like a refresh — skipped, as a failure of the job, if the segment changed meanwhile.

use super::ControllerState;
use super::archive_store::read_archive;
use super::catalog::encode;
use super::responses::{Entries, ReloadJob, Status, json};
use super::segment_commit::{Scratch, scratch_dir, store_archive_if};
use super::segments::{addressed_tables, find_segment};
use crate::http::body::path_param;
use crate::http::routes::Routes;
use crate::http::{ApiError, on_rayon};
use crate::metadata::records::SegmentRecord;
use crate::metadata::table_name;
use crate::metadata::{Op, keys};
use std::collections::BTreeSet;
use tide::Request;

/// Mounts the reload endpoints.
pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.group("Segment")
        .post(
            "/segments/:table/reload",
            "Reloads every segment of a table (type=) with its current config",
            reload_table,
        )
        .post(
            "/segments/:table/:segment/reload",
            "Reloads one segment",
            reload_segment,
        )
        .get(
            "/segments/segmentReloadStatus/:job",
            "The progress of a reload job",
            status,
        );
}

async fn reload_table(req: Request<ControllerState>) -> tide::Result {
    let c = req.state();
    let _guard = c.lock_writes().await?;
    let (name, tables) = addressed_tables(&req)?;
    let mut ops = Vec::new();
    let mut status = Entries::default();
    let mut jobs = Vec::new();
    for (_, typed) in tables {
        let segments = c.segments(&typed)?;
        let servers: BTreeSet<&String> = segments.iter().flat_map(|s| &s.servers).collect();
        if servers.is_empty() {
            continue;
        }
        let id = c
            .reload_jobs
            .start(&typed, None, segments.len(), servers.len());
        status.0.push((
            typed.clone(),
            ReloadJob {
                num_messages_sent: servers.len().to_string(),
                reload_job_id: id.clone(),
                reload_job_meta_zk_storage_status: "SUCCESS",
            },
        ));
        for mut s in segments.clone() {
            s.reload_version += 1;
            ops.push(Op::Put(keys::segment(&typed, &s.segment_name), encode(&s)));
        }
        jobs.push((id, typed, segments));
    }
    if status.0.is_empty() {
        let raw = table_name::split(&name).0;
        return Err(ApiError::not_found(format!(
            "Failed to find any segments in table: {raw} on every instance"
        ))
        .into());
    }
    c.commit(ops)?;
    async_std::task::spawn(rebuild(c.clone(), jobs));
    // Pinot's reload answer is a status whose text is the JSON of the per-table jobs.
    json(&Status::new(serde_json::to_string(&status)?))
}

async fn reload_segment(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "table")?;
    let segment = path_param(&req, "segment")?;
    let c = req.state();
    let _guard = c.lock_writes().await?;
    let mut record = find_segment(c, &name, &segment).map_err(|_| {
        ApiError::not_found(format!(
            "Failed to find segment: {segment} in table: {} on every instance",
            table_name::split(&name).0
        ))
    })?;
    let typed = record.table_name_with_type.clone();
    let servers = record.servers.len();
    let id = c.reload_jobs.start(&typed, Some(&segment), 1, servers);
    let before = record.clone();
    record.reload_version += 1;
    c.commit(vec![Op::Put(
        keys::segment(&typed, &segment),
        encode(&record),
    )])?;
    async_std::task::spawn(rebuild(c.clone(), vec![(id.clone(), typed, vec![before])]));
    json(&Status::new(format!(
        "Submitted reload job id: {id}, sent {servers} reload messages. Job meta ZK storage status: SUCCESS"
    )))
}

async fn status(req: Request<ControllerState>) -> tide::Result {
    let id = path_param(&req, "job")?;
    match req.state().reload_jobs.status(&id) {
        Some(s) => json(&s),
        None => Err(ApiError::not_found(format!("Failed to find controller job id: {id}")).into()),
    }
}

/// The jobs' work: rebuilds each listed segment of each table with the current config and schema
/// and stores it like a refresh, counting each one in its job.
async fn rebuild(c: ControllerState, jobs: Vec<(String, String, Vec<SegmentRecord>)>) {
    for (id, typed, segments) in jobs {
        let raw = table_name::split(&typed).0.to_string();
        let (config, schema) = match (c.table_config(&typed), c.schema(&raw)) {
            (Ok(Some(config)), Ok(Some(schema))) => (config, schema),
            _ => {
                for s in &segments {
                    c.reload_jobs.finished(
                        &id,
                        &s.segment_name,
                        Err("the table config or schema is gone".into()),
                    );
                }
                continue;
            }
        };
        for s in segments {
            let outcome = rebuild_one(&c, &typed, &s, &config, &schema)
                .await
                .map_err(|e| e.to_string());
            if let Err(e) = &outcome {
                log::warn!("reload of {typed}/{}: {e}", s.segment_name);
            }
            c.reload_jobs.finished(&id, &s.segment_name, outcome);
        }
        log::info!("reload job {id} of {typed} finished");
    }
}

async fn rebuild_one(
    c: &ControllerState,
    typed: &str,
    record: &SegmentRecord,
    config: &serde_json::Value,
    schema: &segments::types::Schema,
) -> Result<(), ApiError> {
    // A refresh committed since the job listed the segment is what gets rebuilt.
    let (record, old) = read_archive(c, record.clone()).await?;
    let scratch = Scratch(scratch_dir(c)?);
    let work = scratch.0.clone();
    let (config, schema) = (config.clone(), schema.clone());
    let bytes = on_rayon(move || -> Result<Vec<u8>, ApiError> {
        super::rebuild::rebuild_archive(&old, &schema, &config, &work).map_err(ApiError::internal)
    })
    .await
    .map_err(ApiError::internal)??;
    store_archive_if(c, Some(typed), None, bytes, Some(record.crc))
        .await
        .map(|_| ())
        .map_err(ApiError::from)
}
