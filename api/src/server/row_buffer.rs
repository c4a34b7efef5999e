//! A consuming segment's rows, columnar as they fill, and what queries read of them.
//!
//! Rows arrive in batches (one stream fetch each) and go straight into the columns of the next
//! *chunk*: the first pass of the ordinary segment builder ([`segments::RowBuilder`]) runs as
//! they arrive, interning each value in its column's dictionary. Publishing finishes the chunk:
//! an immutable segment — so a consuming segment has the dictionaries, inverted, range and
//! other indexes its table config asks for, and the v1 and v2 engines read it in place exactly
//! as they read a committed segment. Rows are never held as rows: what queries read is a
//! *snapshot*, the short list of chunks that together hold every row so far.
//!
//! The consumer publishes after each batch once it has caught up with the stream, at most
//! every half second while it catches up (so a backlog is indexed in few large chunks). Two
//! neighbouring chunks within 2x of each other are merged into one, column by column
//! ([`segments::build_segment_from_segments`]: dictionary entries and ids, typed number runs —
//! no row is read back as values), on a thread of their own, one merge at a time, while the
//! consumer goes on reading and publishing; a finished merge replaces its two chunks at the
//! next publish. Chunk sizes so stay about geometric and a snapshot holds about log2(rows)
//! chunks (past [`MAX_CHUNKS`] the consumer merges itself); when the stream is quiet the
//! chunks become one. The commit merges the chunks the same way with the table's own config
//! (sorted column, star-trees, trained dictionaries). A snapshot is swapped in whole, so a
//! query sees every row of a batch or none of it, never a row twice.

use crate::common::clock::now_ms;
use segments::types::{Schema, Value};
use segments::{
    BuildConfig, ConsumingPart, ImmutableSegment, RowBuilder, SegmentError,
    build_segment_from_segments,
};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};

/// One chunk: an immutable segment over rows `rows` of the consuming segment, in its own
/// directory.
struct Chunk {
    rows: Range<usize>,
    segment: Arc<ImmutableSegment>,
    dir: PathBuf,
    /// The size of its files.
    bytes: u64,
}

/// The size of the files under `dir`.
fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_bytes(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

impl Drop for Chunk {
    fn drop(&mut self) {
        // Queries still reading it keep its mapping; the files go now.
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A chunk directory under `dir` not used before (`next` counts them).
fn fresh_dir(dir: &Path, next: &mut u64) -> PathBuf {
    *next += 1;
    dir.join(format!("chunk-{}", *next - 1))
}

/// The next chunk, filling.
struct Filling {
    builder: RowBuilder,
    dir: PathBuf,
    /// The newest stream timestamp of its rows.
    ingested_ms: Option<i64>,
}

/// A merge of `chunks[from..from + n]` running on its own thread.
struct Merging {
    from: usize,
    n: usize,
    done: Receiver<Result<Chunk, String>>,
}

/// More chunks than this and the consumer merges the newest itself instead of waiting for the
/// background merges to catch up.
const MAX_CHUNKS: usize = 16;

/// The rows of a consuming segment: the chunks, and the next one filling.
pub struct RowBuffer {
    schema: Arc<Schema>,
    config: BuildConfig,
    chunk_config: Arc<BuildConfig>,
    dir: PathBuf,
    /// Rows after the last chunk's.
    filling: Option<Filling>,
    chunks: Vec<Chunk>,
    /// The merge under way, if any (one at a time; only it replaces chunks before the last).
    merging: Option<Merging>,
    next_dir: u64,
    /// Why rows were lost (a chunk that could not be written): the segment can no longer be
    /// committed from here.
    lost: Option<String>,
}

impl RowBuffer {
    /// An empty buffer whose chunks are built with `config` under `dir` (created, emptied).
    /// Chunks keep arrival order (a `sortedColumn` orders the committed segment only) and, as
    /// Pinot's consuming segments, have no star-trees; their var-width dictionaries are plain
    /// (a chunk lives seconds: build time matters, not size).
    pub fn new(schema: Schema, config: BuildConfig, dir: &Path) -> std::io::Result<RowBuffer> {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir)?;
        let chunk_config = BuildConfig {
            sorted_column: None,
            star_trees: Vec::new(),
            default_star_tree: false,
            plain_dictionaries: true,
            ..config.clone()
        };
        Ok(RowBuffer {
            schema: Arc::new(schema),
            config,
            chunk_config: Arc::new(chunk_config),
            dir: dir.to_path_buf(),
            filling: None,
            chunks: Vec::new(),
            merging: None,
            next_dir: 0,
            lost: None,
        })
    }

    /// Rows so far.
    pub fn len(&self) -> usize {
        self.indexed() + self.pending()
    }

    /// Whether no row arrived yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rows in chunks.
    fn indexed(&self) -> usize {
        self.chunks.last().map_or(0, |c| c.rows.end)
    }

    /// Adds rows (schema field order, already typed; the decoder checked each value fits its
    /// column) whose newest stream timestamp is `ingested_ms`; queries see them after the next
    /// [`RowBuffer::refresh`]. An error (the next chunk's files cannot be written) loses the
    /// rows not yet published: the consumer must stop, and the segment cannot be committed
    /// from this buffer.
    pub fn push(&mut self, batch: &[Vec<Value>], ingested_ms: Option<i64>) -> Result<(), String> {
        self.usable()?;
        if batch.is_empty() {
            return Ok(());
        }
        let filling = match &mut self.filling {
            Some(f) => f,
            None => {
                let dir = fresh_dir(&self.dir, &mut self.next_dir);
                let builder = RowBuilder::new(&self.schema, &self.chunk_config, &dir)
                    .map_err(|e| self.lose(e.to_string()))?;
                self.filling.insert(Filling {
                    builder,
                    dir,
                    ingested_ms: None,
                })
            }
        };
        filling.ingested_ms = filling.ingested_ms.max(ingested_ms);
        for row in batch {
            if let Err(e) = filling.builder.push(row) {
                return Err(self.lose(e.to_string()));
            }
        }
        Ok(())
    }

    /// Rows not yet in the snapshot.
    pub fn pending(&self) -> usize {
        self.filling
            .as_ref()
            .map_or(0, |f| f.builder.rows() as usize)
    }

    /// Records why rows were lost, dropping the filling chunk; returns the reason.
    fn lose(&mut self, reason: String) -> String {
        if let Some(f) = self.filling.take() {
            drop(f.builder);
            let _ = std::fs::remove_dir_all(&f.dir);
        }
        let reason = format!("consuming rows were lost: {reason}");
        self.lost = Some(reason.clone());
        reason
    }

    /// An error once rows were lost.
    fn usable(&self) -> Result<(), String> {
        match &self.lost {
            Some(reason) => Err(reason.clone()),
            None => Ok(()),
        }
    }

    /// Makes the rows added since the last refresh a chunk, takes in a finished merge and
    /// starts the next: two neighbouring chunks within 2x of each other are merged on a thread
    /// of their own, so new rows are published while it runs (past [`MAX_CHUNKS`] the consumer
    /// merges the newest itself). If the chunk cannot be written its rows are lost (the error
    /// says so; see [`RowBuffer::push`]); a merge that fails leaves its chunks as they are
    /// (logged: they hold the same rows).
    pub fn refresh(&mut self) -> Result<(), String> {
        self.finish_filling()?;
        self.take_merge(false);
        // Merges falling behind: the consumer merges the newest chunks itself, never those the
        // merge under way reads (it is not waited for).
        while self.chunks.len() > MAX_CHUNKS {
            let reading = self.merging.as_ref().map_or(0, |m| m.from + m.n);
            let n = self.chunks.len();
            if n < reading + 2 || !self.merge_now(n - 2, 2) {
                break;
            }
        }
        if self.merging.is_none()
            && let Some(from) = self.mergeable()
        {
            self.start_merge(from, 2);
        }
        Ok(())
    }

    /// For a quiet stream: takes in a finished merge, and with no merge under way starts one of
    /// every chunk (a query then reads one segment, as after the commit). Never waits: rows
    /// that arrive meanwhile are published as usual. Whether the chunks changed.
    pub fn compact(&mut self) -> bool {
        let merged = self.take_merge(false);
        if self.merging.is_none() && self.chunks.len() > 1 {
            self.start_merge(0, self.chunks.len());
        }
        merged
    }

    /// The last two neighbouring chunks within 2x of each other: the first one's index.
    fn mergeable(&self) -> Option<usize> {
        self.chunks
            .windows(2)
            .rposition(|w| w[0].rows.len() <= 2 * w[1].rows.len())
    }

    /// What merging `chunks[from..from + n]` reads, the rows it covers and a fresh directory
    /// for it.
    fn merge_inputs(
        &mut self,
        from: usize,
        n: usize,
    ) -> (Vec<Arc<ImmutableSegment>>, Range<usize>, PathBuf) {
        let dir = fresh_dir(&self.dir, &mut self.next_dir);
        let merging = &self.chunks[from..from + n];
        let parts = merging.iter().map(|c| c.segment.clone()).collect();
        (parts, merging[0].rows.start..merging[n - 1].rows.end, dir)
    }

    /// Merges `chunks[from..from + n]` on a thread of its own, which hands its freed pages back
    /// to the process's arenas at its end.
    fn start_merge(&mut self, from: usize, n: usize) {
        let (parts, rows, dir) = self.merge_inputs(from, n);
        let (schema, config) = (self.schema.clone(), self.chunk_config.clone());
        let (tx, done) = std::sync::mpsc::channel();
        let started = std::thread::Builder::new()
            .name("merge-chunks".into())
            .spawn(move || {
                let _ = tx.send(merge(&schema, &config, &parts, rows, dir));
                crate::heap::release_freed(false);
            });
        match started {
            Ok(_) => self.merging = Some(Merging { from, n, done }),
            Err(e) => log::warn!("cannot start a merge of consuming chunks: {e}"),
        }
    }

    /// Takes in the merge under way if it finished (or, with `wait`, once it does). Whether
    /// the chunks changed.
    fn take_merge(&mut self, wait: bool) -> bool {
        let Some(m) = self.merging.take() else {
            return false;
        };
        let result = if wait {
            m.done.recv().map_err(|e| e.to_string())
        } else {
            match m.done.try_recv() {
                Ok(r) => Ok(r),
                Err(TryRecvError::Empty) => {
                    self.merging = Some(m);
                    return false;
                }
                Err(e) => Err(e.to_string()),
            }
        };
        self.install(m.from, m.n, result.and_then(|r| r))
    }

    /// Merges `chunks[from..from + n]` here. Whether they were merged.
    fn merge_now(&mut self, from: usize, n: usize) -> bool {
        let (parts, rows, dir) = self.merge_inputs(from, n);
        let merged = merge(&self.schema, &self.chunk_config, &parts, rows, dir);
        self.install(from, n, merged)
    }

    /// Puts a merge of `chunks[from..from + n]` in their place; a merge that failed leaves
    /// them (logged: they hold the same rows). Whether they were replaced.
    fn install(&mut self, from: usize, n: usize, merged: Result<Chunk, String>) -> bool {
        match merged {
            Ok(merged) => {
                self.chunks.splice(from..from + n, [merged]);
                true
            }
            Err(e) => {
                log::warn!("cannot merge consuming chunks: {e}");
                false
            }
        }
    }

    /// The size of the snapshot's segment files: what the committed segment will about weigh
    /// (for size-based flushing).
    pub fn bytes(&self) -> u64 {
        self.chunks.iter().map(|c| c.bytes).sum()
    }

    /// What a query reads now.
    pub fn snapshot(&self) -> Vec<Arc<ImmutableSegment>> {
        self.chunks.iter().map(|c| c.segment.clone()).collect()
    }

    /// The chunks with the row number of their first doc (a chunk's doc `d` is row
    /// `first + d`: chunks are built in arrival order, never sorted).
    pub fn chunk_views(&self) -> Vec<(u32, Arc<ImmutableSegment>)> {
        self.chunks
            .iter()
            .map(|c| (c.rows.start as u32, c.segment.clone()))
            .collect()
    }

    /// Builds every row into one segment directory under `out_dir` (the committed segment):
    /// the rows not yet in a chunk become one, then the chunks are merged with the table's
    /// config. An error if rows were lost.
    pub fn build_all(&mut self, out_dir: &Path) -> Result<PathBuf, String> {
        self.finish_filling()?;
        self.take_merge(true);
        let parts: Vec<&ImmutableSegment> = self.chunks.iter().map(|c| &*c.segment).collect();
        build_segment_from_segments(&self.schema, &self.config, &parts, out_dir)
            .map_err(|e| e.to_string())?;
        Ok(out_dir.join(&self.config.segment_name))
    }

    /// Finishes the filling chunk.
    fn finish_filling(&mut self) -> Result<(), String> {
        self.usable()?;
        let Some(Filling {
            builder,
            dir,
            ingested_ms,
        }) = self.filling.take()
        else {
            return Ok(());
        };
        let first = self.indexed();
        let rows = first..first + builder.rows() as usize;
        let built = builder.finish().map(|_| ());
        let part = ConsumingPart {
            indexed_ms: now_ms(),
            ingested_ms,
        };
        match open_chunk(&self.config.segment_name, built, part, rows, dir) {
            Ok(chunk) => {
                self.chunks.push(chunk);
                Ok(())
            }
            Err(e) => Err(self.lose(e)),
        }
    }
}

/// Merges `parts` (rows `rows` of the consuming segment) into a chunk under `dir`.
fn merge(
    schema: &Schema,
    config: &BuildConfig,
    parts: &[Arc<ImmutableSegment>],
    rows: Range<usize>,
    dir: PathBuf,
) -> Result<Chunk, String> {
    let part = parts
        .iter()
        .filter_map(|p| p.consuming_part())
        .reduce(ConsumingPart::merged)
        .unwrap_or(ConsumingPart {
            indexed_ms: now_ms(),
            ingested_ms: None,
        });
    let parts: Vec<&ImmutableSegment> = parts.iter().map(|p| &**p).collect();
    let built = build_segment_from_segments(schema, config, &parts, &dir).map(|_| ());
    open_chunk(&config.segment_name, built, part, rows, dir)
}

/// Opens the chunk segment `name` a build wrote under `dir`, stamped `part` (removed if the
/// build or the opening failed).
fn open_chunk(
    name: &str,
    built: Result<(), SegmentError>,
    part: ConsumingPart,
    rows: Range<usize>,
    dir: PathBuf,
) -> Result<Chunk, String> {
    match built.and_then(|()| ImmutableSegment::open(&dir.join(name))) {
        Ok(segment) => Ok(Chunk {
            rows,
            segment: Arc::new(segment.into_consuming_part(part)),
            bytes: dir_bytes(&dir),
            dir,
        }),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            Err(e.to_string())
        }
    }
}

impl Drop for RowBuffer {
    fn drop(&mut self) {
        // A merge under way writes below `dir`: it ends first (its chunk removes itself).
        self.take_merge(true);
        self.chunks.clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::DataType;
    use segments::types::FieldSpec;

    fn buffer(dir: &Path) -> RowBuffer {
        let schema = Schema {
            schema_name: "t".into(),
            fields: vec![
                FieldSpec::dimension("k", DataType::String),
                FieldSpec::dimension("v", DataType::Long),
            ],
            ..Schema::default()
        };
        RowBuffer::new(
            schema,
            BuildConfig::new("t", "t__0__0__20240101T0000Z"),
            dir,
        )
        .unwrap()
    }

    fn rows(from: i64, n: i64) -> Vec<Vec<Value>> {
        (from..from + n)
            .map(|i| vec![Value::String(format!("k{}", i % 7)), Value::Long(i)])
            .collect()
    }

    /// Compacts `b` as a quiet stream's consumer does, until one chunk is left.
    fn compacted(b: &mut RowBuffer) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while b.snapshot().len() > 1 {
            assert!(
                std::time::Instant::now() < deadline,
                "compaction never ended"
            );
            b.compact();
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(!b.compact(), "one chunk stays one");
    }

    /// Every row is in exactly one chunk of a snapshot, and chunks stay few.
    #[test]
    fn snapshots_hold_every_row_once_in_few_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = buffer(&dir.path().join("buf"));
        let mut total = 0;
        for batch in 1..=40 {
            b.push(&rows(total, batch), None).unwrap();
            total += batch;
            assert_eq!(b.pending() as i64, batch);
            b.refresh().unwrap();
            assert_eq!(b.pending(), 0);
            let snap = b.snapshot();
            let docs: i64 = snap.iter().map(|s| i64::from(s.total_docs())).sum();
            assert_eq!(docs, total);
            assert!(
                snap.len() <= MAX_CHUNKS + 1,
                "{} chunks for {total} rows",
                snap.len()
            );
            // A chunk's doc d is row first + d.
            for (first, chunk) in b.chunk_views() {
                let v = chunk.column("v").unwrap().values(chunk.total_docs());
                let want: Vec<Value> = (0..chunk.total_docs())
                    .map(|d| Value::Long(i64::from(first + d)))
                    .collect();
                assert_eq!(v, want);
            }
        }
        // Compaction makes one chunk of them all, rows in order.
        assert!(b.snapshot().len() > 1, "40 batches leave several chunks");
        compacted(&mut b);
        // Merged-away chunks leave no directories behind.
        let chunk_dirs = std::fs::read_dir(dir.path().join("buf")).unwrap().count();
        assert_eq!(chunk_dirs, 1);
        let (first, all) = b.chunk_views().remove(0);
        assert_eq!(first, 0);
        let v = all.column("v").unwrap().values(all.total_docs());
        assert_eq!(v, (0..total).map(Value::Long).collect::<Vec<_>>());
        // Rows not yet published are committed with the rest.
        b.push(&rows(total, 5), None).unwrap();
        total += 5;
        assert_eq!(b.len() as i64, total);
        let built = b.build_all(&dir.path().join("final")).unwrap();
        let seg = ImmutableSegment::open(&built).unwrap();
        assert_eq!(i64::from(seg.total_docs()), total);
        let want: Vec<Vec<Value>> = rows(0, total);
        let k = seg.column("k").unwrap().values(seg.total_docs());
        let v = seg.column("v").unwrap().values(seg.total_docs());
        let got: Vec<Vec<Value>> = k.into_iter().zip(v).map(|(k, v)| vec![k, v]).collect();
        assert_eq!(got, want);
    }

    /// Many small batches: merges on their thread fall behind and the consumer merges the
    /// newest itself; chunks stay few and every row stays in order.
    #[test]
    fn small_batches_stay_few_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = buffer(&dir.path().join("buf"));
        for i in 0..300 {
            b.push(&rows(2 * i, 2), None).unwrap();
            b.refresh().unwrap();
            let snap = b.snapshot();
            assert!(snap.len() <= MAX_CHUNKS + 1, "{} chunks", snap.len());
            let docs: i64 = snap.iter().map(|s| i64::from(s.total_docs())).sum();
            assert_eq!(docs, 2 * (i + 1));
        }
        compacted(&mut b);
        let (_, all) = b.chunk_views().remove(0);
        let v = all.column("v").unwrap().values(all.total_docs());
        assert_eq!(v, (0..600).map(Value::Long).collect::<Vec<_>>());
    }

    /// A consuming segment paused before any row arrived commits an empty segment.
    #[test]
    fn builds_an_empty_segment() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = buffer(&dir.path().join("buf"));
        assert!(b.snapshot().is_empty());
        let built = b.build_all(&dir.path().join("final")).unwrap();
        assert_eq!(ImmutableSegment::open(&built).unwrap().total_docs(), 0);
    }
}
