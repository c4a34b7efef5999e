//! What happens to a deleted segment (Pinot's `SegmentDeletionManager`): a deletion — by the
//! retention manager, `DELETE /segments/…`, `DELETE /tables/…`, a replacement — commits the records' removal first
//! (brokers stop routing to the segments as soon as the change is published), then retires each
//! archive to the deep store's deleted-segments area ([`super::deep_store::DELETED_SEGMENTS`]),
//! where it waits `deletedSegmentsRetentionPeriod` (the table's, else the controller's 7 days;
//! `0d` removes it at once) until [`purge_deleted`] removes it; an area left by a deleted table is
//! purged after the controller's default.

use super::Controller;
use super::archive_store::remove_archive;
use super::table_config::parse_config;
use crate::http::ApiError;
use crate::metadata::records::SegmentRecord;
use crate::metadata::table_name;
use crate::metadata::{Op, keys};
use segments::types::TableConfig;
use segments::types::TableType;
use segments::types::table_config::parse_period_millis;
use std::time::{Duration, SystemTime};

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

/// How long table `typed`'s deleted archives are kept: the request's `retention` period
/// (`DELETE …?retention=0d`, as Pinot's), else the table's, else the default.
pub fn keep_for(
    c: &Controller,
    typed: &str,
    retention: Option<&str>,
) -> Result<Duration, ApiError> {
    if let Some(text) = retention.filter(|t| !t.trim().is_empty()) {
        let ms = parse_period_millis(text).ok_or_else(|| {
            ApiError::bad_request(format!(
                "Invalid retention time: {text} (Valid examples: '0d', '7d', '4h30m')"
            ))
        })?;
        return Ok(Duration::from_millis(ms.max(0) as u64));
    }
    let config = c.table_config(typed)?;
    Ok(deleted_retention(
        config.as_ref().and_then(parse_config).as_ref(),
    ))
}

/// Removes the records of `segments` of table `typed` in one commit, then retires their
/// archives for `keep` (removes them when it is zero). Call with the write lock held; the
/// caller publishes the change.
pub fn delete_segments(
    c: &Controller,
    typed: &str,
    segments: &[SegmentRecord],
    keep: Duration,
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(extra: serde_json::Value) -> TableConfig {
        let mut j = json!({"tableName": "t", "tableType": "OFFLINE", "tenants": {},
            "tableIndexConfig": {}, "segmentsConfig": {}});
        for (k, v) in extra.as_object().unwrap() {
            j[k] = v.clone();
        }
        TableConfig::from_value(j).unwrap()
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
