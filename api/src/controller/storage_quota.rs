//! The storage quota (`quota.storage`, Pinot's `StorageQuotaChecker`): a table may hold at most
//! its quota per replica. An upload, refresh or ingest that would take the table past
//! `quota × replicas` is refused (403, Pinot's message) before anything is stored. Sizes are the
//! segments' unpacked sizes (what servers hold; the archive's size for a metadata push), over
//! all replicas; a refresh counts the new size in place of the old, and one no larger than the
//! segment it replaces always passes.

use super::error::ControllerError;
use crate::metadata::records::SegmentRecord;
use segments::types::TableConfig;
use segments::types::table_config::format_data_size;

/// Checks that segment `segment` of table `typed`, `incoming` bytes unpacked (replacing
/// `existing`, if any), fits the table's storage quota next to `segments`.
pub fn check(
    config: &TableConfig,
    typed: &str,
    segment: &str,
    existing: Option<&SegmentRecord>,
    segments: &[SegmentRecord],
    incoming: u64,
) -> Result<(), ControllerError> {
    let Some(quota) = config.quota.as_ref() else {
        return Ok(());
    };
    let Some(per_replica) = quota.storage_bytes() else {
        return Ok(());
    };
    if existing.is_some_and(|e| incoming <= e.stored_bytes()) {
        return Ok(());
    }
    let replicas = u64::from(config.replication().max(1));
    let allowed = per_replica.saturating_mul(replicas);
    let current: u64 = segments
        .iter()
        .map(|s| s.stored_bytes().saturating_mul(replicas))
        .sum();
    let replaced = existing.map_or(0, |e| e.stored_bytes().saturating_mul(replicas));
    let new = current
        .saturating_sub(replaced)
        .saturating_add(incoming.saturating_mul(replicas));
    if new <= allowed {
        return Ok(());
    }
    let q = quota.storage.as_deref().unwrap_or_default();
    let reason = format!(
        "Storage quota exceeded for Table {typed}. New estimated size: {} > total allowed storage \
         size: {}, where new estimated size = existing estimated uncompressed size of all \
         replicas: {} - existing segment sizes of all replicas: {} + (incoming uncompressed \
         segment size: {} * number replicas: {replicas}), total allowed storage size = \
         configured quota: {q} * number replicas: {replicas}",
        format_data_size(new),
        format_data_size(allowed),
        format_data_size(current),
        format_data_size(replaced),
        format_data_size(incoming),
    );
    Err(ControllerError::refused(format!(
        "Storage quota check failed for segment: {segment} of table: {typed}, reason: {reason}"
    )))
}

/// Whether table `typed` holds more than its storage quota (real-time consumption pauses
/// then, as Pinot's validation manager pauses it).
pub fn over_quota(config: &TableConfig, segments: &[SegmentRecord]) -> bool {
    let Some(per_replica) = config.quota.as_ref().and_then(|q| q.storage_bytes()) else {
        return false;
    };
    let held: u64 = segments.iter().map(SegmentRecord::stored_bytes).sum();
    held > per_replica
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(name: &str, bytes: u64) -> SegmentRecord {
        serde_json::from_value(
            json!({"segmentName": name, "tableNameWithType": "t_OFFLINE",
            "crc": 1, "sizeBytes": bytes / 3, "dataBytes": bytes, "totalDocs": 1,
            "pushTimeMs": 0, "archive": "a", "servers": []}),
        )
        .unwrap()
    }

    fn config(quota: serde_json::Value) -> TableConfig {
        TableConfig::from_value(
            json!({"tableName": "t", "tableType": "OFFLINE", "tenants": {},
            "tableIndexConfig": {}, "segmentsConfig": {"replication": "2"}, "quota": quota}),
        )
        .unwrap()
    }

    #[test]
    fn uploads_fit_the_quota_per_replica_or_are_refused() {
        let c = config(json!({"storage": "1K"}));
        let held = [record("a", 600)];
        assert!(check(&c, "t_OFFLINE", "b", None, &held, 424).is_ok());
        let e = check(&c, "t_OFFLINE", "b", None, &held, 425).unwrap_err();
        assert!(matches!(e, ControllerError::Refused(_)));
        assert!(
            e.message().starts_with(
                "Storage quota check failed for segment: b of table: t_OFFLINE, reason: \
                 Storage quota exceeded for Table t_OFFLINE. New estimated size: 2K > total \
                 allowed storage size: 2K"
            ),
            "{e}"
        );
        // A refresh counts its new size in place of the old one; a smaller one always passes.
        assert!(check(&c, "t_OFFLINE", "a", Some(&held[0]), &held, 1024).is_ok());
        assert!(check(&c, "t_OFFLINE", "a", Some(&held[0]), &held, 1025).is_err());
        let big = [record("a", 5000)];
        assert!(check(&c, "t_OFFLINE", "a", Some(&big[0]), &big, 4000).is_ok());
        // No quota, no limit.
        assert!(check(&config(json!({})), "t_OFFLINE", "b", None, &big, 1 << 40).is_ok());
        assert!(over_quota(&c, &big) && !over_quota(&c, &held));
    }
}
