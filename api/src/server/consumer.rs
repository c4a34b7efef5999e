//! The consumer of one consuming segment: a thread that reads the segment's stream partition
//! from its start offset, decodes each batch into rows ([`super::stream_rows`]), adds them to
//! the segment's [`RowBuffer`] and publishes the new snapshot, until a flush threshold is
//! reached (rows, or time with at least one row) or its table is paused. Then it builds the
//! segment, commits it to the controller with the offset it ended at and, when the controller
//! accepts, installs the built copy in place of the consuming one — queries go from the
//! snapshot to the stored segment, which holds the same rows. When another replica committed
//! first the consumer holds its snapshot until the stored copy is downloaded (the assignment
//! does that) and the segment is dropped here.
//!
//! It runs on its own thread (it mostly waits on the stream); building chunks is the only CPU
//! work, small batches at a time.

use super::ServerState;
use super::consuming::{Consuming, Phase};
use super::hosting::SegmentCopy;
use super::row_buffer::RowBuffer;
use super::stream_rows::Decoder;
use super::upsert::{UpsertSpec, UpsertTable};
use crate::common::archive;
use crate::common::clock::now_ms;
use crate::stream::decoder::MessageDecoder;
use crate::stream::{self, PartitionConsumer, StartFrom, StreamError};
use crate::transport::{CommitOutcome, RealtimeSetup, SegmentCommit};
use segments::BuildConfig;
use segments::types::table_config::{StreamConfig, TableConfig};
use segments::types::{Schema, Value};
use serde_json::{Map, Value as Json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// How long one fetch waits for messages.
const FETCH_WAIT: Duration = Duration::from_millis(100);
/// Pause after a failure before trying again.
const RETRY: Duration = Duration::from_millis(500);
/// While catching up with a backlog, rows become queryable at least this often (once caught
/// up, after every batch).
const CATCH_UP_PUBLISH: Duration = Duration::from_millis(500);

/// The upsert spec of a real-time table's config and schema (None: not an upsert table).
pub fn upsert_spec(setup: &RealtimeSetup) -> Result<Option<UpsertSpec>, String> {
    let schema = Schema::from_json(&setup.schema.to_string())?;
    let config = TableConfig::from_value(setup.table_config.clone()).map_err(|e| e.to_string())?;
    UpsertSpec::new(&schema, &config)
}

/// What a consumer needs, read from the table's config and schema.
struct Plan {
    schema: Schema,
    build: BuildConfig,
    decoder: Decoder,
    stream: Map<String, Json>,
    /// Rows per segment; None for size-based flushing (`flush.threshold.rows: 0`): commit when
    /// the indexed rows weigh `flush_bytes` (`flush.threshold.segment.size`).
    flush_rows: Option<u64>,
    flush_bytes: u64,
    flush_ms: i64,
    creation_ms: i64,
}

impl Plan {
    fn new(setup: &RealtimeSetup, segment: &str, creation_ms: i64) -> Result<Plan, String> {
        let schema = Schema::from_json(&setup.schema.to_string())?;
        let config =
            TableConfig::from_value(setup.table_config.clone()).map_err(|e| e.to_string())?;
        let streams = config.stream_configs().map_err(|e| e.to_string())?;
        let s = streams.first().ok_or("the table has no stream config")?;
        stream::check_consumable(s).map_err(|e| e.to_string())?;
        let build =
            BuildConfig::from_table_config_json(&setup.table_config, &schema, Some(segment))
                .map_err(|e| e.to_string())?;
        let flush_rows = Some(s.flush_threshold_rows()).filter(|n| *n > 0);
        let messages = MessageDecoder::new(s, &schema).map_err(|e| e.to_string())?;
        Ok(Plan {
            decoder: Decoder::new(messages, schema.clone(), &setup.table_config),
            schema,
            build,
            stream: s.map().clone(),
            flush_rows,
            flush_bytes: s.flush_threshold_segment_size_bytes(),
            flush_ms: s.flush_threshold_time_millis(),
            creation_ms,
        })
    }
}

/// Starts consuming `c` on a new thread.
pub fn start(
    server: ServerState,
    c: Arc<Consuming>,
    setup: &RealtimeSetup,
    creation_ms: i64,
) -> Result<(), String> {
    let plan = Plan::new(setup, &c.segment, creation_ms)?;
    let dir = server
        .config
        .segment_dir
        .join(super::hosting::CONSUMING_DIR)
        .join(&c.table)
        .join(&c.segment);
    let buffer = RowBuffer::new(plan.schema.clone(), plan.build.clone(), &dir.join("rows"))
        .map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
    let upsert = server.upsert.get(&c.table);
    std::thread::Builder::new()
        .name(format!("consume-{}", c.segment))
        .spawn(move || {
            let mut consumer = Consumer {
                server,
                c,
                plan,
                buffer,
                dir,
                upsert,
                unpublished: Vec::new(),
            };
            consumer.run();
        })
        .map(|_| ())
        .map_err(|e| format!("cannot start a consumer thread: {e}"))
}

struct Consumer {
    server: ServerState,
    c: Arc<Consuming>,
    plan: Plan,
    buffer: RowBuffer,
    dir: PathBuf,
    /// The table's keys, for an upsert or dedup table.
    upsert: Option<Arc<UpsertTable>>,
    /// An upsert or dedup table's rows not yet published, as admitted (their keys are read
    /// from them when they are).
    unpublished: Vec<Vec<Value>>,
}

impl Consumer {
    fn run(&mut self) {
        let end = self.consume();
        if let Some(end_offset) = end {
            self.c.update(|p| p.phase = Phase::Committing);
            // Every row up to the end offset answers queries while the commit is under way
            // (the routing names this replica for the segment until its stored copy is reported).
            match self.refresh() {
                Ok(()) => self.commit(end_offset),
                Err(e) => self.hold(e),
            }
        }
        let _ = std::fs::remove_dir_all(self.dir.join("work"));
        let _ = std::fs::remove_dir_all(self.dir.join("final"));
    }

    /// Makes the rows added since the last refresh queryable (for an upsert table, with the rows
    /// they replace hidden first). An error when rows were lost.
    fn refresh(&mut self) -> Result<(), String> {
        let first = self.buffer.len() - self.buffer.pending();
        self.buffer.refresh()?;
        if let Some(u) = &self.upsert {
            u.publish_rows(
                &self.c.segment,
                first as u32,
                &self.unpublished,
                self.buffer.chunk_views(),
            );
            self.unpublished.clear();
        }
        self.c.publish(self.buffer.snapshot());
        Ok(())
    }

    /// With nothing to read, the chunks become one segment (merged in the background), so
    /// queries read one as they will after the commit; published once merged, when the memory
    /// the builds freed goes back to the kernel (this thread's pages and the merges').
    fn compact(&mut self) {
        if self.buffer.pending() == 0 && self.buffer.compact() {
            if let Some(u) = &self.upsert {
                u.publish_rows(&self.c.segment, 0, &[], self.buffer.chunk_views());
            }
            self.c.publish(self.buffer.snapshot());
            crate::heap::release_freed(true);
        }
    }

    /// Stops on an error this consumer cannot get past (rows it could not index): nothing past
    /// the last commit is acknowledged, so the rows are read again when the segment is.
    fn hold(&self, e: String) {
        log::error!("consuming {}: {e}", self.c.segment);
        self.c.update(|p| {
            p.phase = Phase::Holding;
            p.error = Some(e);
        });
    }

    fn fail(&self, e: impl std::fmt::Display) {
        let text = e.to_string();
        if self.c.progress().error.as_deref() != Some(text.as_str()) {
            log::warn!("consuming {}: {text}", self.c.segment);
        }
        self.c.update(|p| p.error = Some(text));
        std::thread::sleep(RETRY);
    }

    /// Reads until a threshold; the end offset to commit, or None when stopped.
    fn consume(&mut self) -> Option<i64> {
        let mut partition: Option<Box<dyn PartitionConsumer>> = None;
        let mut offset = self.c.start_offset;
        let mut published = std::time::Instant::now();
        loop {
            if self.c.stopped() {
                return None;
            }
            let rows = self.buffer.len() as u64;
            let aged = now_ms().saturating_sub(self.plan.creation_ms) >= self.plan.flush_ms;
            let full = match self.plan.flush_rows {
                Some(n) => rows >= n,
                None => self.buffer.bytes() >= self.plan.flush_bytes,
            };
            if full || (aged && rows > 0) || self.c.commit_requested() {
                return Some(offset);
            }
            let p = match partition.as_mut() {
                Some(p) => p,
                None => match self.open() {
                    Ok(p) => partition.insert(p),
                    Err(e) => {
                        self.fail(e);
                        continue;
                    }
                },
            };
            let fetched = match p.fetch(offset, FETCH_WAIT) {
                Ok(f) => f,
                Err(StreamError::OffsetOutOfRange { .. }) => {
                    offset = self.skip_to_earliest(offset);
                    continue;
                }
                Err(e) => {
                    partition = None;
                    self.fail(e);
                    continue;
                }
            };
            // Up to the row threshold: the rest of the batch belongs to the next segment.
            let room = self
                .plan
                .flush_rows
                .map_or(usize::MAX, |n| n.saturating_sub(rows) as usize);
            let batch = &fetched.messages[..fetched.messages.len().min(room)];
            let next = batch.last().map_or(offset, |m| m.offset + 1);
            let decoded = self
                .plan
                .decoder
                .decode(batch, self.c.partition, &self.dir.join("work"));
            if let Some(e) = &decoded.first_error {
                log::warn!(
                    "consuming {}: dropped {} of {} messages at offsets {offset}..{next}: {e}",
                    self.c.segment,
                    decoded.dropped,
                    batch.len()
                );
            }
            let added = decoded.rows.len() as u64;
            let rows = match &self.upsert {
                Some(u) => u.admit(decoded.rows),
                None => decoded.rows,
            };
            let ingested_ms = batch
                .iter()
                .map(|m| m.timestamp_ms)
                .filter(|&t| t > 0)
                .max();
            if let Err(e) = self.buffer.push(&rows, ingested_ms) {
                self.hold(e);
                return None;
            }
            if self.upsert.is_some() {
                self.unpublished.extend(rows);
            }
            offset = next;
            // An upsert or dedup table publishes every batch: admitting the next reads its keys.
            let caught_up = offset >= fetched.high_watermark || self.upsert.is_some();
            if self.buffer.pending() > 0 && (caught_up || published.elapsed() >= CATCH_UP_PUBLISH) {
                if let Err(e) = self.refresh() {
                    self.hold(e);
                    return None;
                }
                published = std::time::Instant::now();
            }
            let read = !batch.is_empty();
            if !read && offset >= fetched.high_watermark {
                self.compact();
            }
            self.c.update(|p| {
                p.current_offset = offset;
                p.high_watermark = Some(fetched.high_watermark);
                p.rows += added;
                p.dropped += decoded.dropped as u64;
                p.error = None;
                if read {
                    p.last_consumed_ms = Some(now_ms());
                }
            });
        }
    }

    fn stream_config(&self) -> Result<StreamConfig<'_>, StreamError> {
        StreamConfig::new(&self.plan.stream).map_err(|e| StreamError::Config(e.to_string()))
    }

    fn open(&self) -> Result<Box<dyn PartitionConsumer>, StreamError> {
        stream::open(&self.stream_config()?)?.consumer(self.c.partition)
    }

    /// The partition no longer holds `offset` (retention): go on from its smallest offset.
    fn skip_to_earliest(&self, offset: i64) -> i64 {
        let earliest = self
            .stream_config()
            .and_then(|s| stream::open(&s))
            .and_then(|s| s.offset(self.c.partition, StartFrom::Smallest));
        match earliest {
            Ok(e) if e > offset => {
                log::warn!(
                    "consuming {}: offset {offset} is gone from partition {}; continuing at {e}",
                    self.c.segment,
                    self.c.partition
                );
                e
            }
            Ok(_) => {
                self.fail(format!("offset {offset} is out of range"));
                offset
            }
            Err(e) => {
                self.fail(e);
                offset
            }
        }
    }

    /// Builds the segment and commits it, retrying while the controller cannot be reached.
    fn commit(&mut self, end_offset: i64) {
        let out = self.dir.join("final");
        let _ = std::fs::remove_dir_all(&out);
        let built = self
            .buffer
            .build_all(&out)
            .and_then(|dir| archive::pack(&dir).map_err(|e| e.to_string()));
        let bytes = match built {
            Ok(b) => b,
            Err(e) => {
                self.hold(format!("cannot build the segment: {e}"));
                return;
            }
        };
        let request = SegmentCommit {
            table_name_with_type: self.c.table.clone(),
            segment_name: self.c.segment.clone(),
            instance: self.server.config.instance_id.clone(),
            end_offset,
        };
        while !self.c.stopped() {
            let outcome = async_std::task::block_on(
                self.server
                    .controller
                    .commit_segment(&request, bytes.clone()),
            );
            match outcome {
                Ok(CommitOutcome::Committed { crc }) => {
                    let copy = SegmentCopy {
                        crc,
                        reload_version: 0,
                        incarnation: self.c.incarnation,
                    };
                    let upsert = self.upsert.clone();
                    let name = self.c.segment.clone();
                    let prepare = move |seg: &Arc<segments::ImmutableSegment>| match &upsert {
                        Some(u) => u.add_stored(&name, seg.clone()),
                        None => Ok(()),
                    };
                    match self.server.hosted.install_with(
                        &self.c.table,
                        &self.c.segment,
                        &bytes,
                        copy,
                        &prepare,
                    ) {
                        // The stored copy answers from now on; the snapshot goes.
                        Ok(()) => {
                            self.server.consuming.remove(
                                &self.c.table,
                                &self.c.segment,
                                Some(&self.c),
                            );
                            if let Some(u) = &self.upsert {
                                u.snapshot();
                            }
                        }
                        Err(e) => {
                            // The assignment downloads it instead.
                            log::warn!("cannot install committed {}: {e}", self.c.segment);
                            self.c.update(|p| p.phase = Phase::Holding);
                        }
                    }
                    return;
                }
                Ok(CommitOutcome::Discard { reason: why }) => {
                    log::info!("not committing {}: {why}", self.c.segment);
                    self.c.update(|p| p.phase = Phase::Holding);
                    return;
                }
                Err(e) => self.fail(format!("commit failed: {e}")),
            }
        }
    }
}
