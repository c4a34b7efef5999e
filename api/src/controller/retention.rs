//! The retention manager (Pinot's `RetentionManager`, a periodic task of the lead controller):
//! a table whose `segmentsConfig` sets `retentionTimeUnit` and `retentionTimeValue` loses every
//! segment whose end time is older than that — committed real-time segments too, never a
//! consuming one or the last committed one of a partition, and never a segment without a valid
//! end time. An OFFLINE table pushed with `REFRESH` is left alone (its pushes replace its data),
//! as Pinot does.
//!
//! Deleting goes through [`super::deleted_segments`] (records first, then the archives to the
//! deleted-segments area); each run also purges that area, and first tidies the table's segment
//! lineage ([`super::lineage::clean_up`]) as Pinot's does.

use super::table_config::parse_config;
use super::{Controller, deleted_segments};
use crate::common::clock::now_ms;
use crate::http::ApiError;
use crate::metadata::records::SegmentRecord;
use crate::metadata::table_name;
use segments::types::TableConfig;
use segments::types::TableType;
use std::time::Duration;

/// How long a replacement may stay in progress before the retention manager reverts it
/// (Pinot's `lineageEntryCleanupRetentionPeriod` default).
pub const LINEAGE_STALE: Duration = Duration::from_secs(86_400);

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
    let keep = deleted_segments::keep_for(c, typed, None)?;
    deleted_segments::delete_segments(c, typed, &gone, keep)?;
    Ok(gone.len())
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
    done.purged += deleted_segments::purge_deleted(c, raw)?;
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
            statistics: None,
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
}
