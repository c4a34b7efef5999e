//! The retention manager (Pinot's `RetentionManager`, a periodic task of the lead controller):
//! a table whose `segmentsConfig` sets `retentionTimeUnit` and `retentionTimeValue` loses every
//! segment whose end time is older than that — committed real-time segments too, never a
//! consuming one or the last committed one of a partition, and never a segment without a valid
//! end time. An OFFLINE table pushed with `REFRESH` is left alone (its pushes replace its data),
//! as Pinot does.
//!
//! A deletion — by this task or by `DELETE /segments/…` — commits the records' removal first (so
//! brokers stop routing to the segments as soon as the change is published) and then retires
//! each archive to the deep store's deleted-segments area ([`super::deep_store::DELETED_SEGMENTS`]),
//! where it waits `deletedSegmentsRetentionPeriod` (the table's, else the controller's 7 days;
//! `0d` removes it at once). Each run also purges the area's archives older than their table's
//! period; an area left by a deleted table is purged after the controller's default.

use super::Controller;
use super::archive_store::remove_archive;
use super::table_config::parse_config;
use crate::common::clock::now_ms;
use crate::http::ApiError;
use crate::metadata::records::SegmentRecord;
use crate::metadata::table_name;
use crate::metadata::{Op, keys};
use segments::types::TableConfig;
use segments::types::TableType;
use segments::types::table_config::parse_period_millis;
use std::time::{Duration, SystemTime};

/// How long a replacement may stay in progress before the retention manager reverts it
/// (Pinot's `lineageEntryCleanupRetentionPeriod` default).
pub const LINEAGE_STALE: Duration = Duration::from_secs(86_400);

/// How long a deleted segment's archive is kept when the table does not say
/// (`controller.deleted.segments.retentionInDays`, 7).
pub const DEFAULT_DELETED_RETENTION: Duration = Duration::from_secs(7 * 86_400);

/// How long the deleted-segments area keeps an archive of the table `config` describes.
pub fn deleted_retention(config: Option<&TableConfig>) -> Duration {
    config
        .and_then(|c| {
            c.segments_config
                .deleted_segments_retention_period
                .as_deref()
        })
        .and_then(parse_period_millis)
        .map(|ms| Duration::from_millis(ms.max(0) as u64))
        .unwrap_or(DEFAULT_DELETED_RETENTION)
}

/// End times Pinot trusts: from 1971-01-01 to 2071-01-01 (`TimeUtils.timeValueInValidRange`).
const VALID_END_MS: std::ops::RangeInclusive<i64> = 31_536_000_000..=3_187_296_000_000;

/// The segments of a table past its retention at `now` (epoch millis), as Pinot's
/// `TimeRetentionStrategy`: committed segments whose valid end time is more than the retention
/// ago. None when the table sets no valid retention or is an OFFLINE table not pushed with
/// `APPEND`; a real-time table keeps the last committed segment of every partition (its end
/// offset is where the next consuming segment starts).
pub fn expired<'a>(
    config: &TableConfig,
    segments: &'a [SegmentRecord],
    now: i64,
) -> Vec<&'a SegmentRecord> {
    let Some(retention) = config.segments_config.retention_millis() else {
        return Vec::new();
    };
    let not_append = config.table_type == TableType::Offline
        && config
            .batch_ingestion_type()
            .is_some_and(|t| !t.eq_ignore_ascii_case("APPEND"));
    if not_append || retention < 0 {
        return Vec::new();
    }
    // The newest committed segment of each partition.
    let mut last: std::collections::HashMap<i32, u32> = std::collections::HashMap::new();
    for s in segments.iter().filter(|s| !s.is_consuming()) {
        if let Some(r) = &s.stream {
            let seq = last.entry(r.partition).or_insert(r.sequence);
            *seq = (*seq).max(r.sequence);
        }
    }
    segments
        .iter()
        .filter(|s| !s.is_consuming())
        .filter(|s| {
            s.stream
                .as_ref()
                .is_none_or(|r| last.get(&r.partition) != Some(&r.sequence))
        })
        .filter(|s| {
            s.end_time_ms.is_some_and(|end| {
                VALID_END_MS.contains(&end) && now.saturating_sub(end) > retention
            })
        })
        .collect()
}

/// Removes the records of `segments` of table `typed` in one commit, then retires their
/// archives (or removes them, when the table keeps no deleted segments). Call with the write
/// lock held; the caller publishes the change.
pub fn delete_segments(
    c: &Controller,
    typed: &str,
    segments: &[SegmentRecord],
) -> Result<(), ApiError> {
    if segments.is_empty() {
        return Ok(());
    }
    c.commit(
        segments
            .iter()
            .map(|s| Op::Delete(keys::segment(typed, &s.segment_name)))
            .collect(),
    )?;
    let config = c.table_config(typed).ok().flatten();
    let keep = deleted_retention(config.as_ref().and_then(parse_config).as_ref());
    for s in segments {
        retire_archive(c, typed, &s.archive, keep);
    }
    Ok(())
}

/// Moves a deleted segment's archive to the deleted-segments area (removes it when `keep` is
/// zero). A failure only leaves the archive where it was, for the start-up sweep.
pub fn retire_archive(c: &Controller, typed: &str, file: &str, keep: Duration) {
    if file.is_empty() {
        // A metadata-pushed segment: its archive is the pusher's.
        return;
    }
    if keep.is_zero() {
        remove_archive(c, typed, file);
    } else if let Err(e) = c.deep.retire(typed, file) {
        log::warn!(
            "cannot move the archive '{file}' of {typed} to {} in {}: {e}",
            super::deep_store::DELETED_SEGMENTS,
            c.deep.describe()
        );
    }
}

/// What one run did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Retained {
    /// Segments deleted for being past retention.
    pub deleted: usize,
    /// Archives purged from the deleted-segments area.
    pub purged: usize,
}

/// Applies retention to table `typed` now. Takes the write lock; the caller publishes.
pub async fn retain_table(c: &Controller, typed: &str) -> Result<usize, ApiError> {
    let _guard = c.lock_writes().await?;
    let Some(config) = c.table_config(typed)?.as_ref().and_then(parse_config) else {
        return Ok(0);
    };
    // Lineage first: entries that no longer matter go, a replacement stuck in progress for a
    // day is reverted (its driver died).
    super::lineage::clean_up(c, typed, LINEAGE_STALE).map_err(ApiError::from)?;
    let segments = c.segments(typed)?;
    // Segments a replacement holds on to are left to it.
    let locked: std::collections::HashSet<String> = super::lineage::lineage(c, typed)?
        .locked()
        .into_iter()
        .map(str::to_string)
        .collect();
    let gone: Vec<SegmentRecord> = expired(&config, &segments, now_ms())
        .into_iter()
        .filter(|s| !locked.contains(&s.segment_name))
        .cloned()
        .collect();
    if !gone.is_empty() {
        log::info!(
            "retention of {typed}: deleting {} segment(s) past {} {}",
            gone.len(),
            config
                .segments_config
                .retention_time_value
                .as_deref()
                .unwrap_or(""),
            config
                .segments_config
                .retention_time_unit
                .as_deref()
                .unwrap_or("")
        );
    }
    delete_segments(c, typed, &gone)?;
    Ok(gone.len())
}

/// Purges the deleted-segments area of raw table `raw` (every raw table when `None`): archives
/// retired longer ago than their table keeps them.
pub fn purge_deleted(c: &Controller, raw: Option<&str>) -> Result<usize, ApiError> {
    let raws = match raw {
        Some(r) => vec![r.to_string()],
        None => c.deep.retired_tables().map_err(store_error)?,
    };
    let now = SystemTime::now();
    let mut purged = 0;
    for raw in raws {
        // The shortest period of the raw table's typed tables decides.
        let keep = [TableType::Offline, TableType::Realtime]
            .into_iter()
            .filter_map(|t| {
                c.table_config(&table_name::with_type(&raw, t))
                    .ok()
                    .flatten()
            })
            .map(|j| deleted_retention(parse_config(&j).as_ref()))
            .min()
            .unwrap_or(DEFAULT_DELETED_RETENTION);
        for (file, retired) in c.deep.retired(&raw).map_err(store_error)? {
            let age = now.duration_since(retired).unwrap_or_default();
            if age >= keep {
                match c.deep.purge(&raw, &file) {
                    Ok(()) => purged += 1,
                    Err(e) => log::warn!("cannot purge the deleted archive '{file}' of {raw}: {e}"),
                }
            }
        }
    }
    Ok(purged)
}

fn store_error(e: std::io::Error) -> ApiError {
    ApiError::internal(format!("Deep store unavailable: {e}"))
}

/// One run of the retention manager over table `typed` (every table when `None`): expired
/// segments deleted, the deleted-segments area purged.
pub async fn run(c: &Controller, typed: Option<&str>) -> Result<Retained, ApiError> {
    let tables = match typed {
        Some(t) => vec![t.to_string()],
        None => c.table_names()?,
    };
    let mut done = Retained::default();
    for t in &tables {
        done.deleted += retain_table(c, t).await?;
    }
    let raw = typed.map(|t| table_name::split(t).0);
    done.purged += purge_deleted(c, raw)?;
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::records::{StreamRange, StreamStatus};
    use serde_json::json;

    fn committed(name: &str, end: i64, partition: i32, sequence: u32) -> SegmentRecord {
        let mut s = segment(name, Some(end), true);
        let r = s.stream.as_mut().unwrap();
        (r.status, r.partition, r.sequence) = (StreamStatus::Done, partition, sequence);
        s
    }

    fn segment(name: &str, end: Option<i64>, consuming: bool) -> SegmentRecord {
        SegmentRecord {
            segment_name: name.into(),
            table_name_with_type: "t_REALTIME".into(),
            crc: 1,
            size_bytes: 1,
            data_bytes: 0,
            total_docs: 1,
            push_time_ms: 0,
            refresh_time_ms: None,
            archive: format!("{name}.tar.gz"),
            download_uri: None,
            servers: vec![],
            reload_version: 0,
            start_time_ms: None,
            end_time_ms: end,
            custom: Default::default(),
            tier_tag: None,
            incarnation: 1,
            stream: consuming.then(|| StreamRange {
                status: StreamStatus::InProgress,
                topic: "x".into(),
                partition: 0,
                sequence: 0,
                start_offset: 0,
                end_offset: None,
                creation_time_ms: 0,
                committer: None,
            }),
        }
    }

    fn config(extra: serde_json::Value) -> TableConfig {
        let mut j = json!({"tableName": "t", "tableType": "OFFLINE", "tenants": {},
            "tableIndexConfig": {},
            "segmentsConfig": {"retentionTimeUnit": "DAYS", "retentionTimeValue": "2"}});
        for (k, v) in extra.as_object().unwrap() {
            j[k] = v.clone();
        }
        TableConfig::from_value(j).unwrap()
    }

    #[test]
    fn past_retention_goes_unless_consuming_or_timeless() {
        let day = 86_400_000;
        let now = 20_000 * day;
        let segs = [
            segment("old", Some(now - 3 * day), false),
            segment("edge", Some(now - 2 * day), false),
            segment("young", Some(now - day), false),
            segment("timeless", None, false),
            segment("consuming", Some(now - 30 * day), true),
            segment("1970", Some(day), false),
            committed("p0_0", now - 9 * day, 0, 0),
            committed("p0_1", now - 8 * day, 0, 1),
            committed("p1_0", now - 9 * day, 1, 0),
        ];
        let names: Vec<&str> = expired(&config(json!({})), &segs, now)
            .iter()
            .map(|s| s.segment_name.as_str())
            .collect();
        // Not the last committed segment of a partition, nor an end time out of Pinot's range.
        assert_eq!(names, ["old", "p0_0"]);
        let refresh = config(json!({"ingestionConfig": {"batchIngestionConfig":
            {"segmentIngestionType": "REFRESH"}}}));
        assert!(expired(&refresh, &segs, now).is_empty());
        let none = config(json!({"segmentsConfig": {}}));
        assert!(expired(&none, &segs, now).is_empty());
    }

    #[test]
    fn deleted_retention_defaults_to_seven_days() {
        assert_eq!(deleted_retention(None), DEFAULT_DELETED_RETENTION);
        let c = config(json!({"segmentsConfig": {"deletedSegmentsRetentionPeriod": "0d"}}));
        assert_eq!(deleted_retention(Some(&c)), Duration::ZERO);
        let c = config(json!({"segmentsConfig": {"deletedSegmentsRetentionPeriod": "2s"}}));
        assert_eq!(deleted_retention(Some(&c)), Duration::from_secs(2));
    }
}
