//! Reload jobs: what `POST /segments/{t}/reload` (all segments) and
//! `POST /segments/{t}/{segment}/reload` start, and what
//! `GET /segments/segmentReloadStatus/{jobId}` answers about them, in Pinot's shape.
//!
//! A reload rebuilds each segment with the table's current config and schema and stores it like a
//! refresh (servers swap the new copy in), one segment at a time in the background. A job counts
//! its segments as they finish: `successCount`, `failureCount`, the failures with their reasons,
//! and `status` derived as Pinot derives it (`IN_PROGRESS` until every segment is processed, then
//! `COMPLETED` or `COMPLETED_WITH_ERRORS`). Jobs live in the controller's memory: a restarted
//! controller no longer knows earlier jobs (404), as it no longer runs them.

use crate::common::clock::now_ms;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Most jobs kept; the oldest finished ones are forgotten first.
const KEEP: usize = 1000;

/// One reload job.
#[derive(Clone, Debug)]
struct Job {
    table: String,
    segment: Option<String>,
    job_type: &'static str,
    submission_ms: i64,
    message_count: usize,
    total: usize,
    success: usize,
    failures: Vec<SegmentFailure>,
}

/// A segment a job could not reload, and why.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentFailure {
    pub segment_name: String,
    pub error_message: String,
}

/// The jobs of this controller.
#[derive(Default)]
pub struct ReloadJobs {
    jobs: Mutex<HashMap<String, Job>>,
}

/// Pinot's `PinotControllerJobMetadataDto`, as a status answer carries it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JobMetadata {
    pub job_id: String,
    #[serde(rename = "tableName")]
    pub table_name_with_type: String,
    pub job_type: &'static str,
    pub submission_time_ms: i64,
    pub message_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment_name: Option<String>,
}

/// Pinot's `PinotTableReloadStatusResponse`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReloadStatus {
    pub status: &'static str,
    pub time_elapsed_in_minutes: f64,
    pub estimated_time_remaining_in_minutes: f64,
    pub total_segment_count: usize,
    pub success_count: usize,
    pub total_servers_queried: usize,
    pub total_server_calls_failed: usize,
    pub failure_count: usize,
    pub metadata: JobMetadata,
    pub segment_reload_failures: Vec<SegmentFailure>,
}

/// A UUID-shaped job id (time + counter; unique within a controller's life).
pub fn job_id() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    let t = now_ms() as u64;
    let n = N.fetch_add(1, Ordering::Relaxed);
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        (t >> 16) as u32,
        (t & 0xffff) as u16,
        n & 0xfff,
        (n >> 12) & 0xfff,
        t.wrapping_mul(0x9e37_79b9) & 0xffff_ffff_ffff
    )
}

impl ReloadJobs {
    /// Registers a job over `total` segments of `table` (one `segment` for a single-segment
    /// reload), `servers` told to reopen; returns its id.
    pub fn start(
        &self,
        table: &str,
        segment: Option<&str>,
        total: usize,
        servers: usize,
    ) -> String {
        let id = job_id();
        let job = Job {
            table: table.to_string(),
            segment: segment.map(str::to_string),
            job_type: if segment.is_some() {
                "RELOAD_SEGMENT"
            } else {
                "RELOAD_ALL_SEGMENTS"
            },
            submission_ms: now_ms(),
            message_count: servers,
            total,
            success: 0,
            failures: Vec::new(),
        };
        let mut jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        if jobs.len() >= KEEP {
            let oldest = jobs
                .iter()
                .min_by_key(|(_, j)| (j.success + j.failures.len() < j.total, j.submission_ms))
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                jobs.remove(&k);
            }
        }
        jobs.insert(id.clone(), job);
        id
    }

    /// One segment of job `id` reloaded (`Ok`) or not (`Err(reason)`).
    pub fn finished(&self, id: &str, segment: &str, outcome: Result<(), String>) {
        let mut jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(job) = jobs.get_mut(id) {
            match outcome {
                Ok(()) => job.success += 1,
                Err(error_message) => job.failures.push(SegmentFailure {
                    segment_name: segment.to_string(),
                    error_message,
                }),
            }
        }
    }

    /// The status of job `id`, if this controller knows it.
    pub fn status(&self, id: &str) -> Option<ReloadStatus> {
        let jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        let job = jobs.get(id)?.clone();
        let processed = job.success + job.failures.len();
        let elapsed = (now_ms() - job.submission_ms).max(0) as f64 / 60_000.0;
        let remaining = if processed == 0 {
            -1.0
        } else {
            elapsed / processed as f64 * job.total.saturating_sub(processed) as f64
        };
        Some(ReloadStatus {
            status: match (processed >= job.total, job.failures.is_empty()) {
                (false, _) => "IN_PROGRESS",
                (true, true) => "COMPLETED",
                (true, false) => "COMPLETED_WITH_ERRORS",
            },
            time_elapsed_in_minutes: elapsed,
            estimated_time_remaining_in_minutes: remaining,
            total_segment_count: job.total,
            success_count: job.success,
            total_servers_queried: job.message_count,
            total_server_calls_failed: 0,
            failure_count: job.failures.len(),
            metadata: JobMetadata {
                job_id: id.to_string(),
                table_name_with_type: job.table,
                job_type: job.job_type,
                submission_time_ms: job.submission_ms,
                message_count: job.message_count,
                segment_name: job.segment,
            },
            segment_reload_failures: job.failures,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_counts_its_segments_to_completion() {
        let jobs = ReloadJobs::default();
        let id = jobs.start("t_OFFLINE", None, 2, 1);
        let s = jobs.status(&id).unwrap();
        assert_eq!(
            (s.status, s.total_segment_count, s.success_count),
            ("IN_PROGRESS", 2, 0)
        );
        jobs.finished(&id, "a", Ok(()));
        assert_eq!(jobs.status(&id).unwrap().status, "IN_PROGRESS");
        jobs.finished(&id, "b", Err("boom".into()));
        let s = jobs.status(&id).unwrap();
        assert_eq!(s.status, "COMPLETED_WITH_ERRORS");
        assert_eq!((s.success_count, s.failure_count), (1, 1));
        assert_eq!(s.segment_reload_failures[0].segment_name, "b");
        assert_eq!(s.metadata.job_type, "RELOAD_ALL_SEGMENTS");
        let one = jobs.start("t_OFFLINE", Some("a"), 1, 1);
        jobs.finished(&one, "a", Ok(()));
        let s = jobs.status(&one).unwrap();
        assert_eq!(
            (s.status, s.metadata.job_type),
            ("COMPLETED", "RELOAD_SEGMENT")
        );
        assert!(jobs.status("nope").is_none());
        assert_ne!(id, one);
    }
}
