//! Segment build: rows in → per-column dictionaries, forward indexes and indexes → a segment
//! directory, written atomically.
//!
//! Two passes, so memory stays at the dictionaries plus one column:
//!
//! 1. **Collect** ([`collector`]): the input is parsed once; each cell gets a provisional
//!    dictionary id from the column's interner (raw columns keep the value) and is appended to
//!    the column's spill file; nulls are recorded.
//! 2. **Write** ([`column_writer`]), one column at a time: sort the dictionary, map provisional
//!    ids to ranks, put docs in the segment's order (sorted by the declared `sortedColumn`, if
//!    any), then write the dictionary, forward index and indexes to `columns.bin`.
//!
//! Everything is written into a hidden temp directory beside the destination and renamed into
//! place at the end; on any error the temp directory is removed, so no partial segment is ever
//! visible.

pub mod collector;
pub mod column_writer;
pub mod from_segments;
pub mod interner;
pub mod json_cell;
pub mod scalar;
pub mod spill;
pub mod typed;

use crate::build_config::BuildConfig;
use crate::error::SegmentError;
use crate::format::{
    COLUMNS_FILE, DataFileWriter, FormatVersion, INDEX_MAP_FILE, IndexMap, METADATA_FILE,
    write_text,
};
use crate::input::{CellError, CellSink, InputSource, Numbers, RunError, build_threads};
use crate::metadata::SegmentMetadata;
use crate::types::{DocId, Schema, StoredType, Value};
use collector::ColumnCollector;
use column_writer::{ColumnPlan, DocOrder, encode_column, sort_permutation};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// What a build produced.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildSummary {
    /// The segment directory (`out_dir/<segment_name>`).
    pub segment_dir: PathBuf,
    pub segment_name: String,
    pub total_docs: u32,
    pub columns: usize,
    /// Bytes of all files in the segment directory.
    pub size_bytes: u64,
    /// Total build time.
    pub seconds: f64,
    /// Time spent in pass 1 (reading and parsing the input).
    pub read_seconds: f64,
}

/// The hidden build directory; removed on drop unless committed.
struct Staging {
    tmp: PathBuf,
    dest: PathBuf,
    committed: bool,
}

impl Staging {
    fn create(out_dir: &Path, name: &str) -> Result<Staging, SegmentError> {
        std::fs::create_dir_all(out_dir).map_err(|e| SegmentError::io(out_dir, e))?;
        let dest = out_dir.join(name);
        if dest.exists() {
            return Err(SegmentError::Config(format!(
                "segment directory '{}' already exists",
                dest.display()
            )));
        }
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = out_dir.join(format!(".{name}.tmp-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(tmp.join("spill")).map_err(|e| SegmentError::io(&tmp, e))?;
        Ok(Staging {
            tmp,
            dest,
            committed: false,
        })
    }

    fn commit(mut self) -> Result<PathBuf, SegmentError> {
        let _ = std::fs::remove_dir_all(self.tmp.join("spill"));
        std::fs::rename(&self.tmp, &self.dest).map_err(|e| SegmentError::io(&self.dest, e))?;
        self.committed = true;
        Ok(self.dest.clone())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// Pass-1 state: one collector per schema column.
struct Collectors(Vec<ColumnCollector>);

impl CellSink for ColumnCollector {
    #[inline]
    fn text(&mut self, doc: DocId, text: &[u8]) -> Result<(), CellError> {
        self.push_text(doc, text)
    }
    fn json(&mut self, doc: DocId, v: &serde_json::Value) -> Result<(), CellError> {
        self.push_json(doc, v)
    }
    fn value(&mut self, doc: DocId, v: &Value) -> Result<(), CellError> {
        self.push_value(doc, v)
    }
    #[inline]
    fn null(&mut self, doc: DocId) -> Result<(), SegmentError> {
        self.push_null(doc)
    }
    fn plain_cells<'c>(
        &mut self,
        n: usize,
        all_ascii: bool,
        cell: impl Fn(usize) -> &'c [u8],
    ) -> Result<usize, SegmentError> {
        self.push_plain_cells(n, all_ascii, cell)
    }
    fn numbers(&mut self, first: DocId, values: Numbers<'_>) -> Result<(), RunError> {
        self.push_numbers(first, values)
    }
    fn prefers_coded_texts(&self) -> bool {
        self.takes_coded_texts()
    }
    fn coded_texts<'e>(
        &mut self,
        first: DocId,
        dictionary: u64,
        entries: usize,
        entry: impl Fn(usize) -> &'e [u8],
        keys: &[i32],
    ) -> Result<(), RunError> {
        if !self.takes_coded_texts() {
            return crate::input::coded_texts_one_by_one(self, first, entries, entry, keys);
        }
        self.push_coded_texts(dictionary, entries, entry, keys)
    }
    fn expect_rows(&mut self, rows: u64) {
        self.expect_rows(rows);
    }
}

fn check_schema(schema: &Schema, config: &BuildConfig) -> Result<(), SegmentError> {
    if schema.fields.is_empty() {
        return Err(SegmentError::Schema("schema has no columns".into()));
    }
    let mut seen = std::collections::HashSet::new();
    for f in &schema.fields {
        if !seen.insert(f.name.as_str()) {
            return Err(SegmentError::Schema(format!(
                "duplicate column '{}'",
                f.name
            )));
        }
        f.validate_default_null().map_err(SegmentError::Schema)?;
    }
    config.validate(schema)
}

fn collectors(
    schema: &Schema,
    config: &BuildConfig,
    staging: &Staging,
) -> Result<Collectors, SegmentError> {
    let mut out = Vec::with_capacity(schema.fields.len());
    for (i, f) in schema.fields.iter().enumerate() {
        let spill = spill::SpillWriter::create(staging.tmp.join("spill").join(format!("{i}.bin")))?;
        let dict = config.has_dictionary(&f.name, f.single_value_field);
        let mut c = ColumnCollector::new(f, dict, spill)?;
        c.plain_dictionary = config.plain_dictionaries;
        out.push(c);
    }
    Ok(Collectors(out))
}

/// The start of every build: the schema and config checked, the written schema (the input's
/// columns and the timestamp index's derived ones), the hidden build directory and a collector
/// per written column.
fn begin(
    schema: &Schema,
    config: &BuildConfig,
    out_dir: &Path,
) -> Result<(Schema, Staging, Collectors), SegmentError> {
    check_schema(schema, config)?;
    let full = config.build_schema(schema)?;
    let staging = Staging::create(out_dir, &config.segment_name)?;
    let cols = collectors(&full, config, &staging)?;
    Ok((full, staging, cols))
}

/// Builds `out_dir/<config.segment_name>/` from an input file. `progress` is called with the
/// number of rows read so far (every 65,536 rows and at the end).
pub fn build_segment(
    schema: &Schema,
    config: &BuildConfig,
    input: &InputSource,
    out_dir: &Path,
    progress: &mut dyn FnMut(u64),
) -> Result<BuildSummary, SegmentError> {
    let started = Instant::now();
    // The written schema adds the timestamp index's derived columns, computed while reading.
    let (full, staging, mut cols) = begin(schema, config, out_dir)?;
    let derived = config.derived_columns();
    for c in &mut cols.0 {
        c.set_multi_value_delimiter(input.options.multi_value_delimiter);
    }
    let docs = crate::timestamp_index::read_input(input, schema, &derived, &mut cols.0, progress)?;
    let read = started.elapsed().as_secs_f64();
    finish(&full, config, cols, docs, staging, started, read)
}

/// Builds `out_dir/<config.segment_name>/` from rows of values in schema field order
/// (`Value::Null` for nulls, `Value::Array` for multi-value cells), owned or borrowed.
pub fn build_segment_from_rows<R: AsRef<[Value]>>(
    schema: &Schema,
    config: &BuildConfig,
    rows: impl Iterator<Item = Result<R, SegmentError>>,
    out_dir: &Path,
) -> Result<BuildSummary, SegmentError> {
    let mut builder = RowBuilder::new(schema, config, out_dir)?;
    for row in rows {
        builder.push(row?.as_ref())?;
    }
    builder.finish()
}

/// A segment built from rows given one at a time, in schema field order (`Value::Null` for
/// nulls, `Value::Array` for multi-value cells): pass 1 runs as they arrive, so the rows are
/// never held — a consuming segment's rows go straight into its next chunk's columns.
pub struct RowBuilder {
    schema: Schema,
    config: BuildConfig,
    /// The written schema (with the timestamp index's derived columns).
    full: Schema,
    derived: Vec<crate::timestamp_index::DerivedColumn>,
    staging: Staging,
    cols: Collectors,
    docs: u32,
    started: Instant,
}

impl RowBuilder {
    /// A build of `out_dir/<config.segment_name>/` with no rows yet.
    pub fn new(
        schema: &Schema,
        config: &BuildConfig,
        out_dir: &Path,
    ) -> Result<RowBuilder, SegmentError> {
        let started = Instant::now();
        let (full, staging, cols) = begin(schema, config, out_dir)?;
        Ok(RowBuilder {
            schema: schema.clone(),
            config: config.clone(),
            full,
            derived: config.derived_columns(),
            staging,
            cols,
            docs: 0,
            started,
        })
    }

    /// Rows so far.
    pub fn rows(&self) -> u32 {
        self.docs
    }

    /// Adds the next row. After an error the build is unusable (the row's earlier columns
    /// took their values): drop it.
    pub fn push(&mut self, row: &[Value]) -> Result<(), SegmentError> {
        let file = || PathBuf::from("<rows>");
        let line = u64::from(self.docs) + 1;
        if row.len() != self.schema.fields.len() {
            return Err(SegmentError::InputRow {
                file: file(),
                line,
                reason: format!(
                    "expected {} values, found {}",
                    self.schema.fields.len(),
                    row.len()
                ),
            });
        }
        if self.docs == u32::MAX - 1 {
            return Err(SegmentError::InputRow {
                file: file(),
                line,
                reason: "a segment holds at most 2^32 - 2 rows".into(),
            });
        }
        for (c, v) in self.cols.0.iter_mut().zip(row) {
            c.push_value(self.docs, v).map_err(|e| {
                e.locate(|reason| SegmentError::Input {
                    file: file(),
                    line,
                    column: c.spec.name.clone(),
                    reason,
                })
            })?;
        }
        if !self.derived.is_empty() {
            let extra = &mut self.cols.0[self.schema.fields.len()..];
            crate::timestamp_index::push_row(&self.schema, &self.derived, extra, self.docs, row)?;
        }
        self.docs += 1;
        Ok(())
    }

    /// Pass 2: writes the segment.
    pub fn finish(self) -> Result<BuildSummary, SegmentError> {
        let read = self.started.elapsed().as_secs_f64();
        finish(
            &self.full,
            &self.config,
            self.cols,
            self.docs,
            self.staging,
            self.started,
            read,
        )
    }
}

/// Renames the built segment at `dir` to `name`: its metadata's segment name and its directory
/// (`<parent>/<name>`), for names that depend on what the build found (the time range).
pub fn rename_segment(dir: &Path, name: &str) -> Result<PathBuf, SegmentError> {
    let meta_path = dir.join(METADATA_FILE);
    let text = std::fs::read(&meta_path).map_err(|e| SegmentError::io(&meta_path, e))?;
    let mut meta = SegmentMetadata::parse(&meta_path, &text)?;
    meta.segment_name = name.to_string();
    write_text(&meta_path, &meta.to_json())?;
    let dest = dir.with_file_name(name);
    if dest != dir {
        if dest.exists() {
            return Err(SegmentError::Config(format!(
                "segment directory '{}' already exists",
                dest.display()
            )));
        }
        std::fs::rename(dir, &dest).map_err(|e| SegmentError::io(&dest, e))?;
    }
    Ok(dest)
}

/// Writes a small text file of a segment directory.
fn finish(
    schema: &Schema,
    config: &BuildConfig,
    mut cols: Collectors,
    docs: u32,
    staging: Staging,
    started: Instant,
    read_seconds: f64,
) -> Result<BuildSummary, SegmentError> {
    for c in &mut cols.0 {
        c.finish()?;
    }
    let sorted_at = config
        .sorted_column
        .as_ref()
        .and_then(|s| cols.0.iter().position(|c| &c.spec.name == s));
    let (order, mut sorted_ids) = match sorted_at {
        Some(at) => {
            let bloom = config.bloom.contains_key(&cols.0[at].spec.name);
            sort_permutation(&mut cols.0[at], docs, bloom)?
        }
        None => (DocOrder::default(), None),
    };
    let mut data = DataFileWriter::create(&staging.tmp, COLUMNS_FILE)?;
    let mut columns = Vec::with_capacity(cols.0.len());
    // Columns are encoded a group at a time in parallel (memory: one column per thread) and
    // written in schema order, so the file is the same whatever the thread count.
    let threads = build_threads();
    let mut pending = cols.0.into_iter().enumerate();
    loop {
        let group: Vec<_> = pending
            .by_ref()
            .take(threads)
            .map(|(i, c)| {
                let sorted = if Some(i) == sorted_at {
                    sorted_ids.take()
                } else {
                    None
                };
                (c, sorted)
            })
            .collect();
        if group.is_empty() {
            break;
        }
        let encode = |(c, sorted): (ColumnCollector, _)| {
            let name = c.spec.name.clone();
            let plan = ColumnPlan {
                inverted: config.inverted.contains(&name),
                range: config.range.contains(&name),
                bloom: config.bloom.get(&name).copied(),
                nulls: config.records_nulls(schema, &c.spec),
                json: config.json.get(&name).cloned(),
                text: config.text.get(&name).cloned(),
            };
            encode_column(c, &plan, docs, &order, sorted)
        };
        let results: Vec<_> = if group.len() == 1 {
            group.into_iter().map(encode).collect()
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = group
                    .into_iter()
                    .map(|c| s.spawn(move || encode(c)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            })
        };
        for r in results {
            let (meta, entries) = r?;
            entries.write_to(&meta.name, &mut data)?;
            columns.push(meta);
        }
    }
    let (entries, _) = data.finish()?;
    let index_map = IndexMap {
        format_version: FormatVersion::CURRENT.0,
        entries,
    };
    write_text(&staging.tmp.join(INDEX_MAP_FILE), &index_map.to_json())?;

    let time_range = config.time_column.as_ref().and_then(|t| {
        let c = columns.iter().find(|c| &c.name == t)?;
        if !matches!(c.data_type.stored(), StoredType::Int | StoredType::Long) {
            return None;
        }
        Some((c.min_value.as_i64()?, c.max_value.as_i64()?))
    });
    let metadata = SegmentMetadata {
        segment_name: config.segment_name.clone(),
        table_name: config.table_name.clone(),
        total_docs: docs,
        creation_time_ms: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64),
        format_version: FormatVersion::CURRENT.0,
        time_column: config.time_column.clone(),
        start_time: time_range.map(|r| r.0),
        end_time: time_range.map(|r| r.1),
        columns,
        star_trees: Vec::new(),
    };
    write_text(&staging.tmp.join(METADATA_FILE), &metadata.to_json())?;
    if !config.star_trees.is_empty() || config.default_star_tree {
        crate::startree::writer::write_star_trees(
            &staging.tmp,
            &config.star_trees,
            config.default_star_tree,
        )?;
    }
    let dir = staging.commit()?;
    let size_bytes = std::fs::read_dir(&dir)
        .map_err(|e| SegmentError::io(&dir, e))?
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    Ok(BuildSummary {
        segment_dir: dir,
        segment_name: config.segment_name.clone(),
        total_docs: docs,
        columns: metadata.columns.len(),
        size_bytes,
        seconds: started.elapsed().as_secs_f64(),
        read_seconds,
    })
}
