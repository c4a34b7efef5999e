//! A consuming segment's rows, and what queries read of them.
//!
//! Rows arrive in batches (one stream fetch each) and are kept in memory in arrival order, packed
//! ([`super::row_bytes`]). What
//! queries read is a *snapshot*: a short list of immutable segments ("chunks") that together
//! hold every row so far, each built by the ordinary segment builder from a run of rows — so a
//! consuming segment has the dictionaries, inverted, range and other indexes its table config
//! asks for, and the v1 and v2 engines read it exactly as they read a committed segment.
//!
//! Rows added since the last snapshot become a new chunk when the consumer publishes (after
//! each batch once it has caught up with the stream, at most every half second while it catches
//! up, so a backlog is indexed in few large chunks); then, while the chunk before the newest
//! holds at most twice the rows of the newest, the two are rebuilt as one. Chunk sizes so stay geometric (each more
//! than twice the next), a snapshot has at most about log2(rows) chunks, and each row is
//! rebuilt O(log rows) times over the segment's life. A snapshot is swapped in whole after
//! each batch, so a query sees every row of a batch or none of it, never a row twice.

use super::row_bytes::PackedRows;
use segments::types::{Schema, Value};
use segments::{BuildConfig, ImmutableSegment, SegmentError, build_segment_from_rows};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One chunk: an immutable segment over `rows` of the buffer, in its own directory.
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

/// The rows of a consuming segment and the chunks built over them.
pub struct RowBuffer {
    schema: Schema,
    config: BuildConfig,
    chunk_config: BuildConfig,
    dir: PathBuf,
    rows: PackedRows,
    chunks: Vec<Chunk>,
    next_dir: u64,
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
            schema,
            config,
            chunk_config,
            dir: dir.to_path_buf(),
            rows: PackedRows::default(),
            chunks: Vec::new(),
            next_dir: 0,
        })
    }

    /// Rows so far.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row arrived yet.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Adds rows (schema field order, already typed; the decoder checked each value fits its
    /// column); queries see them after the next [`RowBuffer::refresh`].
    pub fn push(&mut self, batch: Vec<Vec<Value>>) {
        for row in &batch {
            self.rows.push(row);
        }
    }

    /// Rows not yet in the snapshot.
    pub fn pending(&self) -> usize {
        self.rows.len() - self.chunks.last().map_or(0, |c| c.rows.end)
    }

    /// Builds the rows added since the last refresh into a chunk and rebuilds the chunks that
    /// are then within 2x of each other. On a build failure the snapshot stays as it was (the
    /// rows stay too: a commit builds them with everything else).
    pub fn refresh(&mut self) -> Result<(), String> {
        let start = self.chunks.last().map_or(0, |c| c.rows.end);
        if start == self.rows.len() {
            return Ok(());
        }
        let chunk = self.build(start..self.rows.len())?;
        self.chunks.push(chunk);
        while let [.., older, newer] = self.chunks.as_slice() {
            if older.rows.len() > 2 * newer.rows.len() {
                break;
            }
            let merged = self.build(older.rows.start..newer.rows.end)?;
            self.chunks.truncate(self.chunks.len() - 2);
            self.chunks.push(merged);
        }
        Ok(())
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

    /// The rows from row number `first` on.
    pub fn rows_from(&self, first: usize) -> Result<Vec<Vec<Value>>, String> {
        (first.min(self.rows.len())..self.rows.len())
            .map(|i| self.rows.get(i, self.schema.fields.len()))
            .collect()
    }

    /// Rows `range`, unpacked one at a time, as the builder reads them.
    fn unpacked(
        &self,
        range: Range<usize>,
    ) -> impl Iterator<Item = Result<Vec<Value>, SegmentError>> + '_ {
        let width = self.schema.fields.len();
        range.map(move |i| {
            self.rows
                .get(i, width)
                .map_err(|reason| SegmentError::InputRow {
                    file: PathBuf::from("<consuming rows>"),
                    line: i as u64 + 1,
                    reason,
                })
        })
    }

    /// Builds every row into one segment directory under `out_dir` (the committed segment).
    pub fn build_all(&self, out_dir: &Path) -> Result<PathBuf, String> {
        build_segment_from_rows(
            &self.schema,
            &self.config,
            self.unpacked(0..self.rows.len()),
            out_dir,
        )
        .map_err(|e| e.to_string())?;
        Ok(out_dir.join(&self.config.segment_name))
    }

    fn build(&mut self, rows: Range<usize>) -> Result<Chunk, String> {
        let dir = self.dir.join(format!("chunk-{}", self.next_dir));
        self.next_dir += 1;
        let built = build_segment_from_rows(
            &self.schema,
            &self.chunk_config,
            self.unpacked(rows.clone()),
            &dir,
        )
        .and_then(|_| ImmutableSegment::open(&dir.join(&self.config.segment_name)));
        match built {
            Ok(segment) => Ok(Chunk {
                rows,
                segment: Arc::new(segment),
                bytes: dir_bytes(&dir),
                dir,
            }),
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                Err(e.to_string())
            }
        }
    }
}

impl Drop for RowBuffer {
    fn drop(&mut self) {
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

    /// Every row is in exactly one chunk of a snapshot, and chunks stay few.
    #[test]
    fn snapshots_hold_every_row_once_in_few_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = buffer(&dir.path().join("buf"));
        let mut total = 0;
        for batch in 1..=40 {
            b.push(rows(total, batch));
            total += batch;
            assert_eq!(b.pending() as i64, batch);
            b.refresh().unwrap();
            assert_eq!(b.pending(), 0);
            let snap = b.snapshot();
            let docs: i64 = snap.iter().map(|s| i64::from(s.total_docs())).sum();
            assert_eq!(docs, total);
            assert!(snap.len() <= 12, "{} chunks for {total} rows", snap.len());
        }
        assert_eq!(b.len() as i64, total);
        let built = b.build_all(&dir.path().join("final")).unwrap();
        let seg = ImmutableSegment::open(&built).unwrap();
        assert_eq!(i64::from(seg.total_docs()), total);
        // Merged-away chunks leave no directories behind.
        let chunk_dirs = std::fs::read_dir(dir.path().join("buf")).unwrap().count();
        assert_eq!(chunk_dirs, b.snapshot().len());
    }

    /// A consuming segment paused before any row arrived commits an empty segment.
    #[test]
    fn builds_an_empty_segment() {
        let dir = tempfile::tempdir().unwrap();
        let b = buffer(&dir.path().join("buf"));
        assert!(b.snapshot().is_empty());
        let built = b.build_all(&dir.path().join("final")).unwrap();
        assert_eq!(ImmutableSegment::open(&built).unwrap().total_docs(), 0);
    }
}
