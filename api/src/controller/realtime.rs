//! Real-time tables on the controller: which segment of each stream partition is consuming,
//! and the commit that turns a consuming segment into a stored one.
//!
//! A consuming segment is a segment record with a [`StreamRange`] in `IN_PROGRESS` and no
//! archive: its servers consume it from `start_offset` ([`crate::server::consuming`]). When one
//! of them reaches the flush threshold (or the table is paused) it builds the segment and
//! commits it here; [`commit`] stores the archive in the deep store and, in one metadata
//! transaction, marks the record `DONE` with its end offset and creates the partition's next
//! consuming segment starting at that offset. So each stream offset belongs to exactly one
//! segment whatever crashes: a server restarting re-consumes its consuming segments from their
//! start offsets, and a commit is all or nothing.
//!
//! [`ensure_consuming`] gives every partition without a consuming segment a new one (at table
//! creation, on resume, after a topic change, and every [`VALIDATION_INTERVAL`] in
//! [`validate`], run by the periodic `RealtimeSegmentValidationManager` for partitions added to the topic or a stream unreachable earlier), unless
//! the table is paused.

use super::archive_store::remove_archive;
use super::assignment;
use super::catalog::encode;
use super::placement::{placement_servers, server_load};
use super::responses::json;
use super::segment_commit::{Scratch, scratch_dir};
use super::table_config::{self, server_tag};
use super::{Controller, ControllerState};
use crate::common::archive;
use crate::common::clock::now_ms;
use crate::http::body::{path_param, query_param, read_bounded};
use crate::http::routes::Routes;
use crate::http::{ApiError, on_rayon};
use crate::metadata::records::{SegmentRecord, StreamRange, StreamStatus, new_incarnation};
use crate::metadata::table_name::{self, TableType};
use crate::metadata::{Op, keys};
use crate::stream::{self, StartFrom, StreamError};
use crate::transport::consumer_info::{
    ConsumingSegmentInfo, ConsumingSegmentsInfoMap, SegmentConsumerInfo,
};
use crate::transport::{CommitOutcome, RealtimeSetup, SegmentCommit};
use segments::types::table_config::TableConfig;
use std::collections::BTreeMap;
use std::time::Duration;
use tide::Request;

/// How often partitions without a consuming segment are looked for.
pub const VALIDATION_INTERVAL: Duration = Duration::from_secs(5);

/// The metadata key holding a real-time table's pause flag.
pub fn pause_key(typed: &str) -> String {
    format!("paused/{typed}")
}

/// Whether consumption of a real-time table is paused.
pub fn is_paused(c: &Controller, typed: &str) -> Result<bool, ApiError> {
    Ok(pause_reason(c, typed)?.is_some())
}

/// Why consumption of a real-time table was paused (Pinot's `PauseState.ReasonCode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PauseReason {
    /// `pauseConsumption` by an operator.
    Administrative,
    /// The validation manager found the table past its storage quota.
    StorageQuotaExceeded,
}

impl PauseReason {
    pub fn code(self) -> &'static str {
        match self {
            PauseReason::Administrative => "ADMINISTRATIVE",
            PauseReason::StorageQuotaExceeded => "STORAGE_QUOTA_EXCEEDED",
        }
    }
}

/// Why the table is paused, if it is (a flag stored before reasons were kept reads as an
/// operator's).
pub fn pause_reason(c: &Controller, typed: &str) -> Result<Option<PauseReason>, ApiError> {
    Ok(c.store.get(&pause_key(typed))?.map(|v| {
        if v == PauseReason::StorageQuotaExceeded.code().as_bytes() {
            PauseReason::StorageQuotaExceeded
        } else {
            PauseReason::Administrative
        }
    }))
}

/// Pauses a table past its storage quota, and resumes one the quota paused once it fits again
/// (retention deleted segments, the quota was raised). Returns whether it is paused now.
async fn apply_storage_quota(c: &Controller, typed: &str) -> Result<bool, ApiError> {
    let reason = pause_reason(c, typed)?;
    if reason == Some(PauseReason::Administrative) {
        return Ok(true);
    }
    let Some(config) = c
        .table_config(typed)?
        .and_then(|j| TableConfig::from_value(j).ok())
    else {
        return Ok(reason.is_some());
    };
    let over = {
        let committed: Vec<SegmentRecord> = c
            .segments(typed)?
            .into_iter()
            .filter(|s| !s.is_consuming())
            .collect();
        super::storage_quota::over_quota(&config, &committed)
    };
    if over == reason.is_some() {
        return Ok(over);
    }
    let _guard = c.lock_writes().await?;
    c.commit(vec![if over {
        log::warn!("{typed} is past its storage quota: pausing consumption");
        Op::Put(
            pause_key(typed),
            PauseReason::StorageQuotaExceeded.code().as_bytes().to_vec(),
        )
    } else {
        log::info!("{typed} fits its storage quota again: resuming consumption");
        Op::Delete(pause_key(typed))
    }])?;
    Ok(over)
}

/// Pinot's name of a consuming segment: `<table>__<partition>__<sequence>__<yyyyMMdd'T'HHmm'Z'>`.
pub fn llc_segment_name(raw: &str, partition: i32, sequence: u32, created_ms: i64) -> String {
    let days = created_ms.div_euclid(86_400_000);
    let minutes = created_ms.rem_euclid(86_400_000) / 60_000;
    let (y, m, d) = segments::types::time::civil_from_days(days);
    format!(
        "{raw}__{partition}__{sequence}__{y:04}{m:02}{d:02}T{:02}{:02}Z",
        minutes / 60,
        minutes % 60
    )
}

fn config_error(typed: &str, e: impl std::fmt::Display) -> ApiError {
    ApiError::bad_request(format!("Invalid stream config of table {typed}: {e}"))
}

fn stream_error(e: StreamError) -> ApiError {
    ApiError::internal(format!("Failed to fetch the stream's partitions: {e}"))
}

/// A partition needing a consuming segment, with where it starts.
struct Start {
    partition: i32,
    sequence: u32,
    offset: Option<i64>,
}

/// Creates a consuming segment for every partition of the table's topic that has none (not
/// while paused). `consume_from` overrides the committed offsets (`resumeConsumption`'s
/// `consumeFrom`). Returns how many were created.
pub async fn ensure_consuming(
    c: &Controller,
    typed: &str,
    consume_from: Option<StartFrom>,
) -> Result<usize, ApiError> {
    if table_name::split(typed).1 != Some(TableType::Realtime) || is_paused(c, typed)? {
        return Ok(0);
    }
    let Some(json) = c.table_config(typed)? else {
        return Ok(0);
    };
    let config = TableConfig::from_value(json.clone()).map_err(|e| config_error(typed, e))?;
    // Opening a stream does no I/O: the partitions and offsets below are its blocking calls,
    // made off the async threads on the one stream.
    let (topic, fallback, stream) = {
        let streams = config
            .stream_configs()
            .map_err(|e| config_error(typed, e))?;
        let s = streams
            .first()
            .ok_or_else(|| config_error(typed, "no stream config"))?;
        stream::check_consumable(s).map_err(|e| config_error(typed, e))?;
        let opened = stream::open(s).map_err(|e| config_error(typed, e))?;
        (s.topic_name().to_string(), StartFrom::of_config(s), opened)
    };
    let (partitions, stream) = stream::run_blocking(move || (stream.partitions(), stream)).await;
    let partitions = partitions.map_err(stream_error)?;
    let starts = missing_partitions(c, typed, &topic, &partitions, consume_from)?;
    if starts.is_empty() {
        return Ok(0);
    }
    // Offsets from the stream for partitions without a committed one.
    let wanted: Vec<(i32, StartFrom)> = starts
        .iter()
        .filter(|s| s.offset.is_none())
        .map(|s| (s.partition, consume_from.unwrap_or(fallback)))
        .collect();
    let offsets: BTreeMap<i32, i64> = stream::run_blocking(move || {
        wanted
            .into_iter()
            .map(|(p, at)| Ok((p, stream.offset(p, at)?)))
            .collect::<Result<_, StreamError>>()
    })
    .await
    .map_err(stream_error)?;

    let _guard = c.lock_writes().await?;
    // Checked again under the lock: a commit may have created some meanwhile.
    let still = missing_partitions(c, typed, &topic, &partitions, consume_from)?;
    let servers = placement_servers(c, &server_tag(&json))?;
    let mut load = server_load(c)?;
    let replication = table_config::replication(&json);
    let now = now_ms();
    let raw = table_name::split(typed).0;
    let mut ops = Vec::new();
    for s in still {
        let Some(offset) = s.offset.or_else(|| offsets.get(&s.partition).copied()) else {
            continue;
        };
        let name = llc_segment_name(raw, s.partition, s.sequence, now);
        let record = consuming_record(
            typed,
            name,
            assignment::place(replication, &[], &servers, &mut load),
            StreamRange {
                status: StreamStatus::InProgress,
                topic: topic.clone(),
                partition: s.partition,
                sequence: s.sequence,
                start_offset: offset,
                end_offset: None,
                creation_time_ms: now,
                committer: None,
            },
        );
        ops.push(Op::Put(
            keys::segment(typed, &record.segment_name),
            encode(&record),
        ));
    }
    let n = ops.len();
    if n > 0 {
        c.commit(ops)?;
    }
    Ok(n)
}

fn consuming_record(
    typed: &str,
    segment_name: String,
    servers: Vec<String>,
    range: StreamRange,
) -> SegmentRecord {
    SegmentRecord {
        statistics: None,
        segment_name,
        table_name_with_type: typed.to_string(),
        crc: 0,
        size_bytes: 0,
        data_bytes: 0,
        total_docs: 0,
        push_time_ms: range.creation_time_ms,
        refresh_time_ms: None,
        archive: String::new(),
        download_uri: None,
        servers,
        reload_version: 0,
        start_time_ms: None,
        end_time_ms: None,
        custom: Default::default(),
        tier_tag: None,
        incarnation: new_incarnation(),
        stream: Some(range),
    }
}

/// Partitions of `topic` with no consuming segment, each with its next sequence number and,
/// when the partition's last segment of this topic was committed (and `consume_from` does not
/// override it), the offset it ended at.
fn missing_partitions(
    c: &Controller,
    typed: &str,
    topic: &str,
    partitions: &[i32],
    consume_from: Option<StartFrom>,
) -> Result<Vec<Start>, ApiError> {
    let records = c.segments(typed)?;
    let mut out = Vec::new();
    for &p in partitions {
        let of_partition: Vec<&StreamRange> = records
            .iter()
            .filter_map(|r| r.stream.as_ref())
            .filter(|s| s.partition == p)
            .collect();
        if of_partition
            .iter()
            .any(|s| s.status == StreamStatus::InProgress)
        {
            continue;
        }
        let sequence = of_partition
            .iter()
            .map(|s| s.sequence + 1)
            .max()
            .unwrap_or(0);
        let offset = of_partition
            .iter()
            .filter(|s| s.topic == topic)
            .max_by_key(|s| s.sequence)
            .and_then(|s| s.end_offset)
            .filter(|_| consume_from.is_none());
        out.push(Start {
            partition: p,
            sequence,
            offset,
        });
    }
    Ok(out)
}

/// Commits a consuming segment a server built: see the module docs. A segment already
/// committed (by another replica), gone, or not assigned to the server is not committed again:
/// the server drops its copy and loads the stored one.
pub async fn commit(
    c: &Controller,
    req: &SegmentCommit,
    archive_bytes: Vec<u8>,
) -> Result<CommitOutcome, ApiError> {
    let typed = req.table_name_with_type.as_str();
    let scratch = Scratch(scratch_dir(c)?);
    let unpack_dir = scratch.0.join("unpacked");
    let archive_path = scratch.0.join("segment.tar.gz");
    let (facts, crc, size, data_bytes) = on_rayon(move || -> Result<_, ApiError> {
        let crc = crc32fast::hash(&archive_bytes);
        std::fs::write(&archive_path, &archive_bytes).map_err(|e| {
            ApiError::internal(format!("cannot write '{}': {e}", archive_path.display()))
        })?;
        let seg = archive::unpack(&archive_bytes, &unpack_dir)
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        Ok((seg.facts, crc, archive_bytes.len() as u64, seg.data_bytes))
    })
    .await
    .map_err(ApiError::internal)??;
    if facts.segment_name != req.segment_name {
        return Err(ApiError::bad_request(format!(
            "the archive holds segment '{}', not '{}'",
            facts.segment_name, req.segment_name
        )));
    }
    let end_time_ms = super::tiers::end_time_ms(c, typed, &facts);
    let start_time_ms = super::tiers::start_time_ms(c, typed, &facts);

    let _guard = c.lock_writes().await?;
    let Some(old) = c.segment(typed, &req.segment_name)? else {
        return Ok(CommitOutcome::Discard {
            reason: format!(
                "segment {} of table {typed} does not exist",
                req.segment_name
            ),
        });
    };
    let Some(range) = old.stream.clone().filter(|_| old.is_consuming()) else {
        return Ok(CommitOutcome::Discard {
            reason: format!("segment {} is already committed", req.segment_name),
        });
    };
    if !old.servers.contains(&req.instance) {
        return Ok(CommitOutcome::Discard {
            reason: format!(
                "segment {} is not assigned to {}",
                req.segment_name, req.instance
            ),
        });
    }
    if req.end_offset < range.start_offset {
        return Err(ApiError::bad_request(format!(
            "end offset {} is before the segment's start offset {}",
            req.end_offset, range.start_offset
        )));
    }
    let file_name = format!("{}.{crc:08x}.{}.tar.gz", req.segment_name, now_ms());
    c.deep
        .put(typed, &file_name, &scratch.0.join("segment.tar.gz"))
        .map_err(|e| ApiError::internal(format!("cannot move segment into the deep store: {e}")))?;
    let now = now_ms();
    let done = SegmentRecord {
        crc,
        size_bytes: size,
        data_bytes,
        total_docs: facts.total_docs,
        statistics: Some(facts.statistics.clone()),
        archive: file_name.clone(),
        start_time_ms,
        end_time_ms,
        stream: Some(StreamRange {
            status: StreamStatus::Done,
            end_offset: Some(req.end_offset),
            committer: Some(req.instance.clone()),
            ..range.clone()
        }),
        ..old.clone()
    };
    let mut ops = vec![Op::Put(
        keys::segment(typed, &done.segment_name),
        encode(&done),
    )];
    // The partition goes on from where this segment ended, on the same servers — unless the
    // table is paused (resume creates it) or its topic changed (the next validation does).
    let same_topic = c
        .table_config(typed)?
        .and_then(|j| TableConfig::from_value(j).ok())
        .and_then(|t| {
            t.stream_configs()
                .ok()
                .and_then(|s| s.first().map(|s| s.topic_name() == range.topic))
        })
        .unwrap_or(false);
    if !is_paused(c, typed)? && same_topic {
        let sequence = range.sequence + 1;
        let raw = table_name::split(typed).0;
        let next = consuming_record(
            typed,
            llc_segment_name(raw, range.partition, sequence, now),
            old.servers.clone(),
            StreamRange {
                status: StreamStatus::InProgress,
                sequence,
                start_offset: req.end_offset,
                end_offset: None,
                creation_time_ms: now,
                committer: None,
                ..range
            },
        );
        if c.segment(typed, &next.segment_name)?.is_none() {
            ops.push(Op::Put(
                keys::segment(typed, &next.segment_name),
                encode(&next),
            ));
        }
    }
    if let Err(e) = c.try_commit(ops) {
        // Kept when the commit may have been applied: the record may name it.
        if !matches!(e, crate::metadata::StoreError::Indeterminate(_)) {
            remove_archive(c, typed, &file_name);
        }
        return Err(e.into());
    }
    log::info!(
        "committed segment {} of {typed}: {} rows, offsets {}..{} (by {})",
        req.segment_name,
        facts.total_docs,
        range.start_offset,
        req.end_offset,
        req.instance
    );
    Ok(CommitOutcome::Committed { crc })
}

/// The config and schema a server consumes a real-time table with.
pub fn setup(c: &Controller, typed: &str) -> Result<Option<RealtimeSetup>, ApiError> {
    let Some(table_config) = c.table_config(typed)? else {
        return Ok(None);
    };
    let Some(schema) = c.schema_json(table_name::split(typed).0)? else {
        return Ok(None);
    };
    Ok(Some(RealtimeSetup {
        table_config,
        schema,
    }))
}

/// The internal endpoints servers call.
pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.group("Internal")
        .post(
            "/tessera/segmentCommit",
            "Commits a consuming segment a server built (the archive as the body)",
            post_commit,
        )
        .get(
            "/tables/:table/consumingSegmentsInfo",
            "Consuming segments of a real-time table with each server's offsets, lag and last consumed time",
            consuming_segments_info,
        )
        .get(
            "/tessera/realtime/:table",
            "The config and schema a server consumes a real-time table with",
            get_setup,
        );
}

async fn post_commit(mut req: Request<ControllerState>) -> tide::Result {
    let param = |name: &str| {
        query_param(&req, name)
            .ok_or_else(|| ApiError::bad_request(format!("missing query parameter '{name}'")))
    };
    let request = SegmentCommit {
        table_name_with_type: param("table")?,
        segment_name: param("segment")?,
        instance: param("instance")?,
        end_offset: param("endOffset")?
            .parse()
            .map_err(|_| ApiError::bad_request("'endOffset' must be an integer"))?,
    };
    let limit = req.state().config.max_upload_bytes;
    let body = read_bounded(&mut req, limit).await?;
    let outcome = commit(req.state(), &request, body).await?;
    json(&outcome)
}

/// `GET /tables/{t}/consumingSegmentsInfo`: asks every server hosting a consuming segment.
async fn consuming_segments_info(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "table")?;
    let c = req.state();
    let typed = table_name::with_type(table_name::split(&name).0, TableType::Realtime);
    if c.table_config(&typed)?.is_none() {
        return Err(ApiError::not_found(format!("Table {typed} not found!")).into());
    }
    let mut out = ConsumingSegmentsInfoMap::default();
    let mut servers = std::collections::BTreeSet::new();
    for s in c.segments(&typed)?.into_iter().filter(|s| s.is_consuming()) {
        servers.extend(s.servers.iter().cloned());
        out.segments.insert(s.segment_name, Vec::new());
    }
    for server in servers {
        let Some(instance) = c.instance(&server)? else {
            out.servers_failing_to_respond += 1;
            continue;
        };
        let url = format!(
            "{}/tables/{typed}/consumingSegmentsInfo",
            instance.base_url()
        );
        let answer = async_std::future::timeout(Duration::from_secs(5), async {
            let mut res = c.client.get(&url).await.ok()?;
            res.status().is_success().then_some(())?;
            Some(res.body_string().await.ok())
        })
        .await
        .ok()
        .flatten();
        match answer {
            None => out.servers_failing_to_respond += 1,
            Some(text) => {
                match serde_json::from_str::<Vec<SegmentConsumerInfo>>(&text.unwrap_or_default()) {
                    Ok(infos) => {
                        for info in infos {
                            if let Some(list) = out.segments.get_mut(&info.segment_name) {
                                list.push(ConsumingSegmentInfo::from_server(&server, info));
                            }
                        }
                    }
                    Err(_) => out.servers_unparsable_respond += 1,
                }
            }
        }
    }
    json(&out)
}

async fn get_setup(req: Request<ControllerState>) -> tide::Result {
    let typed = path_param(&req, "table")?;
    match setup(req.state(), &typed)? {
        Some(s) => json(&s),
        None => Err(ApiError::not_found(format!("Table {typed} not found")).into()),
    }
}

/// Gives every stream partition of real-time table `typed` (of every real-time table when
/// `None`) a consuming segment, unless paused — pausing a table past its storage quota and
/// resuming it when it fits again: one pass of Pinot's
/// `RealtimeSegmentValidationManager`. A stream that does not answer within the validation
/// interval holds up neither the other tables nor a shutdown.
pub async fn validate(c: &Controller, typed: Option<&str>) {
    let tables = match typed {
        Some(t) => vec![t.to_string()],
        None => c.table_names().unwrap_or_default(),
    };
    for typed in tables
        .iter()
        .filter(|t| table_name::split(t).1 == Some(TableType::Realtime))
    {
        match apply_storage_quota(c, typed).await {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) => log::debug!("cannot check the storage quota of {typed}: {}", e.message),
        }
        match async_std::future::timeout(VALIDATION_INTERVAL, ensure_consuming(c, typed, None))
            .await
        {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => log::info!("created {n} consuming segments of {typed}"),
            Ok(Err(e)) => {
                log::debug!("cannot create consuming segments of {typed}: {}", e.message)
            }
            Err(_) => {
                log::debug!("the stream of {typed} did not answer within {VALIDATION_INTERVAL:?}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_segments_as_pinot() {
        // 2024-03-05T07:09:30Z
        assert_eq!(
            llc_segment_name("events", 3, 12, 1_709_622_570_000),
            "events__3__12__20240305T0709Z"
        );
    }
}
