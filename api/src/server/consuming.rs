//! The consuming segments of a server: for each, what queries read now (a snapshot of its
//! [`super::row_buffer::RowBuffer`]) and where its consumer stands. The consumer itself is a
//! thread ([`super::consumer`]); this module is what the rest of the server sees of it —
//! queries resolve a consuming segment's name to its snapshot, heartbeats report it loaded,
//! the assignment starts, pauses and stops it.

use segments::ImmutableSegment;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// Where a consumer is in a segment's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Phase {
    /// Reading the stream.
    Consuming,
    /// Building and committing the segment (the stream is no longer read).
    Committing,
    /// Another replica committed first, or the consumer stopped: waiting for the stored copy.
    Holding,
}

/// A consumer's progress, as `consumingSegmentsInfo` reports it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    pub phase: Phase,
    /// The next offset to read.
    pub current_offset: i64,
    /// The partition's high watermark at the last fetch.
    pub high_watermark: Option<i64>,
    /// Rows indexed so far.
    pub rows: u64,
    /// Messages dropped (not JSON, values that do not fit).
    pub dropped: u64,
    /// When the last message was read (epoch millis).
    pub last_consumed_ms: Option<i64>,
    /// The last error, if consumption is failing.
    pub error: Option<String>,
}

/// One consuming segment.
pub struct Consuming {
    pub table: String,
    pub segment: String,
    pub incarnation: u64,
    pub partition: i32,
    pub start_offset: i64,
    snapshot: RwLock<Vec<Arc<ImmutableSegment>>>,
    progress: Mutex<Progress>,
    stop: AtomicBool,
    commit_now: AtomicBool,
}

impl Consuming {
    /// A consuming segment that has read nothing yet.
    pub fn new(
        table: &str,
        segment: &str,
        incarnation: u64,
        partition: i32,
        start_offset: i64,
    ) -> Consuming {
        Consuming {
            table: table.to_string(),
            segment: segment.to_string(),
            incarnation,
            partition,
            start_offset,
            snapshot: RwLock::new(Vec::new()),
            progress: Mutex::new(Progress {
                phase: Phase::Consuming,
                current_offset: start_offset,
                high_watermark: None,
                rows: 0,
                dropped: 0,
                last_consumed_ms: None,
                error: None,
            }),
            stop: AtomicBool::new(false),
            commit_now: AtomicBool::new(false),
        }
    }

    /// The segments a query reads for this consuming segment now.
    pub fn snapshot(&self) -> Vec<Arc<ImmutableSegment>> {
        self.snapshot.read().map(|s| s.clone()).unwrap_or_default()
    }

    /// Replaces what queries read.
    pub fn publish(&self, segments: Vec<Arc<ImmutableSegment>>) {
        if let Ok(mut s) = self.snapshot.write() {
            *s = segments;
        }
    }

    /// Rows queries can see now.
    pub fn total_docs(&self) -> u64 {
        self.snapshot()
            .iter()
            .map(|s| u64::from(s.total_docs()))
            .sum()
    }

    /// Whether this copy may answer for the routed incarnation.
    pub fn answers_for(&self, incarnation: Option<u64>) -> bool {
        incarnation.is_none_or(|i| i == 0 || i == self.incarnation)
    }

    /// The consumer's progress.
    pub fn progress(&self) -> Progress {
        self.progress
            .lock()
            .map(|p| p.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }

    /// Updates the progress.
    pub fn update(&self, f: impl FnOnce(&mut Progress)) {
        if let Ok(mut p) = self.progress.lock() {
            f(&mut p);
        }
    }

    /// Asks the consumer to stop reading and commit what it has (its table was paused).
    pub fn request_commit(&self) {
        self.commit_now.store(true, Ordering::Relaxed);
    }

    /// Whether a commit was asked for.
    pub fn commit_requested(&self) -> bool {
        self.commit_now.load(Ordering::Relaxed)
    }

    /// Asks the consumer to end (the segment was unassigned or replaced).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether the consumer must end.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Every consuming segment of a server: table → segment → state.
#[derive(Default)]
pub struct ConsumingSegments {
    map: RwLock<BTreeMap<String, BTreeMap<String, Arc<Consuming>>>>,
}

impl ConsumingSegments {
    /// One consuming segment.
    pub fn get(&self, table: &str, segment: &str) -> Option<Arc<Consuming>> {
        self.map.read().ok()?.get(table)?.get(segment).cloned()
    }

    /// The consuming segments of a table.
    pub fn of_table(&self, table: &str) -> Vec<Arc<Consuming>> {
        self.map
            .read()
            .ok()
            .and_then(|m| m.get(table).map(|s| s.values().cloned().collect()))
            .unwrap_or_default()
    }

    /// Adds (or replaces, stopping the old one) a consuming segment.
    pub fn insert(&self, c: Arc<Consuming>) {
        if let Ok(mut m) = self.map.write()
            && let Some(old) = m
                .entry(c.table.clone())
                .or_default()
                .insert(c.segment.clone(), c)
        {
            old.stop();
        }
    }

    /// Stops and forgets a consuming segment — only `which` if given (a consumer removing
    /// itself must not remove its replacement).
    pub fn remove(&self, table: &str, segment: &str, which: Option<&Arc<Consuming>>) {
        if let Ok(mut m) = self.map.write()
            && let Some(segs) = m.get_mut(table)
        {
            let matches = segs
                .get(segment)
                .is_some_and(|c| which.is_none_or(|w| Arc::ptr_eq(c, w)));
            if matches && let Some(c) = segs.remove(segment) {
                c.stop();
            }
            if segs.is_empty() {
                m.remove(table);
            }
        }
    }

    /// Table → names of consuming segments.
    pub fn loaded(&self) -> BTreeMap<String, Vec<String>> {
        self.map
            .read()
            .map(|m| {
                m.iter()
                    .map(|(t, s)| (t.clone(), s.keys().cloned().collect()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Stops every consumer (the server is stopping).
    pub fn stop_all(&self) {
        if let Ok(mut m) = self.map.write() {
            for c in m.values().flat_map(|s| s.values()) {
                c.stop();
            }
            m.clear();
        }
    }
}
