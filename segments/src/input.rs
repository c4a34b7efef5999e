//! Input files for segment builds: CSV (header row; multi-value cells split on `;`; an empty
//! cell is null), JSON lines (one object per line; a missing key or `null` is null; arrays
//! for multi-value cells), each also gzip- or zstd-compressed ([`compression`]), Parquet
//! ([`parquet`], read a column at a time), Avro ([`avro`]) and ORC ([`orc`]).
//!
//! Readers stream rows once, handing each cell to its column's [`CellSink`]. CSV rows are split
//! in batches straight over the read buffer ([`csv_split`]); while one thread splits the next
//! batch, the columns of the current one are fed to their sinks in parallel (a column per task,
//! up to four threads), and the first bad cell in row order is reported. Input columns the
//! schema does not know are ignored; schema columns missing from the input are null.
//! Every error names the file, the line and (for a cell) the column.

mod arrow_cells;
mod avro;
pub mod complex;
mod compression;
mod csv_split;
mod orc;
mod parquet;
#[cfg(test)]
mod recording_sink;
pub mod records;
mod typed;

pub use compression::Compression;

/// The text of a CSV or JSON-lines file at `path`, decompressed if it is gzip or zstd.
pub fn open_text(path: &Path) -> Result<Box<dyn Read + Send>, SegmentError> {
    let file = File::open(path).map_err(|e| SegmentError::io(path, e))?;
    compression::decoded(path, file)
}

/// 16 bytes as a UUID's text (`8-4-4-4-12` hex digits), as Parquet and Avro UUIDs are read.
pub use crate::types::value::uuid_text;
pub use avro::{avro_columns, datum_record as avro_datum_record};
pub use orc::orc_columns;
pub use parquet::parquet_columns;

use crate::error::SegmentError;
use crate::types::{DocId, Schema, Value};
use csv_split::{CsvBatch, CsvSplitter};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// An input file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    Csv,
    /// JSON lines: one object per line.
    Json,
    /// Apache Parquet (see [`parquet`]).
    Parquet,
    /// Avro object container files (see [`avro`]).
    Avro,
    /// Apache ORC (see [`orc`]).
    Orc,
}

impl InputFormat {
    /// Parses Pinot's `inputFormat` names: `csv`, `json` (also `jsonl`, `ndjson`), `parquet`,
    /// `avro`, `orc`, case-insensitively.
    pub fn parse(name: &str) -> Option<InputFormat> {
        match name.to_ascii_lowercase().as_str() {
            "csv" => Some(InputFormat::Csv),
            "json" | "jsonl" | "ndjson" => Some(InputFormat::Json),
            "parquet" => Some(InputFormat::Parquet),
            "avro" => Some(InputFormat::Avro),
            "orc" => Some(InputFormat::Orc),
            _ => None,
        }
    }

    /// The format implied by a file's extension, under a compression extension if any
    /// (`orders.csv.gz` is CSV).
    pub fn from_path(path: &Path) -> Option<InputFormat> {
        let ext = path.extension()?.to_str()?;
        if Compression::of_extension(ext).is_some() {
            return InputFormat::from_path(Path::new(path.file_stem()?));
        }
        InputFormat::parse(ext)
    }
}

/// A file to build a segment from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputSource {
    pub path: PathBuf,
    pub format: InputFormat,
    pub options: InputOptions,
}

/// How to read a file: Pinot's CSV record reader configs (`delimiter`, `multiValueDelimiter`,
/// `header`, `quoteCharacter`, `nullStringValue`) and the table's `complexTypeConfig`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputOptions {
    /// The field delimiter of CSV files.
    pub delimiter: u8,
    /// What separates the values of a multi-value CSV cell.
    pub multi_value_delimiter: u8,
    /// The column names, `delimiter`-separated, of a CSV file without a header row (its first
    /// line is then data).
    pub header: Option<String>,
    /// The character that quotes CSV fields (Pinot's `quoteCharacter`, `"` by default).
    pub quote: u8,
    /// A CSV cell of exactly this text is null (Pinot's `nullStringValue`), besides an empty
    /// one.
    pub null_string: Option<String>,
    /// The table's `complexTypeConfig`: JSON, Avro and Parquet records are flattened and
    /// unnested before their fields reach the columns (CSV cells are flat already).
    pub complex: Option<complex::ComplexTypes>,
}

impl Default for InputOptions {
    fn default() -> InputOptions {
        InputOptions {
            delimiter: b',',
            multi_value_delimiter: b';',
            header: None,
            quote: b'"',
            null_string: None,
            complex: None,
        }
    }
}

impl InputOptions {
    /// Reads a delimiter as Pinot's configs write it: one character (`|`), or `\t` / a tab.
    pub fn parse_delimiter(text: &str) -> Option<u8> {
        let d = match text {
            "\\t" | "\t" | "tab" => b'\t',
            t if t.len() == 1 => t.as_bytes()[0],
            _ => return None,
        };
        (!matches!(d, b'"' | b'\n' | b'\r')).then_some(d)
    }

    /// Applies one of Pinot's CSV record reader configs (`recordReaderSpec.configs` of a job
    /// spec, `recordReader.prop.*` of a batch config): `Ok(true)` when applied, `Ok(false)` for
    /// a key that changes nothing here (file encodings Tessera reads anyway), `Err(why)` for a
    /// bad value or a config Tessera cannot honour (rather than reading rows wrongly).
    pub fn set_csv_config(&mut self, key: &str, value: &str) -> Result<bool, String> {
        let one_char = |what: &str| {
            InputOptions::parse_delimiter(value)
                .ok_or_else(|| format!("{key} '{value}' is not one character ({what})"))
        };
        match key {
            "delimiter" => self.delimiter = one_char("a delimiter")?,
            "multiValueDelimiter" => self.multi_value_delimiter = one_char("a delimiter")?,
            "header" => self.header = Some(value.to_string()),
            "quoteCharacter" => {
                let q = match value.as_bytes() {
                    [q] if !matches!(q, b'\n' | b'\r') => *q,
                    _ => return Err(format!("{key} '{value}' is not one character")),
                };
                self.quote = q;
            }
            "nullStringValue" => self.null_string = Some(value.to_string()),
            "escapeCharacter" | "commentMarker" => {
                return Err(format!(
                    "{key} is not supported (delimiter, multiValueDelimiter, header, \
                     quoteCharacter and nullStringValue are)"
                ));
            }
            _ => return Ok(false),
        }
        if self.quote == self.delimiter {
            return Err(format!(
                "the quote character and the delimiter are both '{}'",
                char::from(self.quote)
            ));
        }
        Ok(true)
    }
}

/// Why a sink did not take a cell (or a run of cells: `B` is then where in the run, and why).
#[derive(Debug)]
pub enum CellError<B = String> {
    /// The input's fault: the column cannot hold the cell, for this reason (the reader adds
    /// file, line and column).
    Bad(B),
    /// A failure that is not the input's (I/O, a limit).
    Failed(SegmentError),
}

impl<B> From<SegmentError> for CellError<B> {
    fn from(e: SegmentError) -> CellError<B> {
        CellError::Failed(e)
    }
}

impl<B> CellError<B> {
    /// The build's error: a bad cell as `locate` places it in the input, a failure as it is.
    pub fn locate(self, locate: impl FnOnce(B) -> SegmentError) -> SegmentError {
        match self {
            CellError::Bad(b) => locate(b),
            CellError::Failed(e) => e,
        }
    }
}

impl CellError {
    /// A bad cell's error as the `i`-th of a run.
    pub fn in_run(self, i: usize) -> CellError<(usize, String)> {
        match self {
            CellError::Bad(reason) => CellError::Bad((i, reason)),
            CellError::Failed(e) => CellError::Failed(e),
        }
    }
}

/// Receives the cells of one column in doc order. Cell methods fail with [`CellError::Bad`]
/// for a bad cell and [`CellError::Failed`] for a failure that is not the input's fault. Each
/// column's sink is used by one thread at a time, so columns of a batch of CSV rows are
/// processed in parallel.
pub trait CellSink: Send {
    /// A non-empty CSV cell.
    fn text(&mut self, doc: DocId, text: &[u8]) -> Result<(), CellError>;
    /// A JSON cell (never `null`: nulls come through [`CellSink::null`]).
    fn json(&mut self, doc: DocId, v: &serde_json::Value) -> Result<(), CellError>;
    /// A typed cell of a columnar or typed input (Parquet): never `Value::Null` (nulls come
    /// through [`CellSink::null`]); `Value::Array` for a multi-value cell.
    fn value(&mut self, doc: DocId, v: &Value) -> Result<(), CellError>;
    /// A null cell.
    fn null(&mut self, doc: DocId) -> Result<(), SegmentError>;
    /// A fast path for a run of CSV cells `cell(0..n)` (the next docs): takes as many leading
    /// cells as it can, each exactly as [`CellSink::text`] would, and returns how many. It
    /// never takes an empty (null) cell nor reports a bad one: the reader passes the cell it
    /// stopped at to [`CellSink::text`] or [`CellSink::null`] and then calls this again.
    /// `all_ascii` says every cell is ASCII (so valid UTF-8).
    fn plain_cells<'c>(
        &mut self,
        n: usize,
        all_ascii: bool,
        cell: impl Fn(usize) -> &'c [u8],
    ) -> Result<usize, SegmentError> {
        let _ = (n, all_ascii, cell);
        Ok(0)
    }
    /// A run of non-null single values for the docs from `first`, decoded typed by a columnar
    /// input: taken as [`CellSink::value`] would take each (the default does just that), but in
    /// one call. `CellError::Bad((i, reason))` at the first value the column cannot hold (those
    /// before it are taken).
    fn numbers(&mut self, first: DocId, values: Numbers<'_>) -> Result<(), RunError>
    where
        Self: Sized,
    {
        numbers_one_by_one(self, first, values)
    }
    /// Whether [`CellSink::coded_texts`] is cheaper here than the same cells as text (the sink
    /// keeps what it made of each entry): a columnar input may then code repeating values it
    /// would otherwise format cell by cell.
    fn prefers_coded_texts(&self) -> bool {
        false
    }
    /// A run of non-null text cells for the docs from `first`, given as `keys` into a
    /// dictionary of `entries` texts (`entry(k)`), as a columnar input decodes a
    /// dictionary-encoded column: `dictionary` names the dictionary (while it repeats, so do its
    /// entries, and a sink may keep what it made of each). Taken as [`CellSink::text`] takes
    /// each cell (the default does just that; an empty text is an empty string, not a null).
    fn coded_texts<'e>(
        &mut self,
        first: DocId,
        dictionary: u64,
        entries: usize,
        entry: impl Fn(usize) -> &'e [u8],
        keys: &[i32],
    ) -> Result<(), RunError>
    where
        Self: Sized,
    {
        let _ = dictionary;
        coded_texts_one_by_one(self, first, entries, entry, keys)
    }
    /// A hint, given once after the first batch: the input holds about `rows` rows in all.
    fn expect_rows(&mut self, rows: u64) {
        let _ = rows;
    }
}

/// A run of typed numbers a columnar input decoded ([`CellSink::numbers`]).
#[derive(Clone, Copy, Debug)]
pub enum Numbers<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    /// Timestamps, as epoch milliseconds.
    Millis(&'a [i64]),
}

impl Numbers<'_> {
    pub fn len(&self) -> usize {
        match self {
            Numbers::I32(v) => v.len(),
            Numbers::I64(v) | Numbers::Millis(v) => v.len(),
            Numbers::F32(v) => v.len(),
            Numbers::F64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th number as a typed value.
    pub fn value(&self, i: usize) -> Value {
        match self {
            Numbers::I32(v) => Value::Int(v[i]),
            Numbers::I64(v) => Value::Long(v[i]),
            Numbers::F32(v) => Value::Float(v[i]),
            Numbers::F64(v) => Value::Double(v[i]),
            Numbers::Millis(v) => Value::Timestamp(v[i]),
        }
    }
}

/// Why a sink did not take a run of cells: which one, and why.
pub type RunError = CellError<(usize, String)>;

/// [`CellSink::numbers`] a value at a time.
pub fn numbers_one_by_one<S: CellSink>(
    sink: &mut S,
    first: DocId,
    values: Numbers<'_>,
) -> Result<(), RunError> {
    for i in 0..values.len() {
        sink.value(first + i as DocId, &values.value(i))
            .map_err(|e| e.in_run(i))?;
    }
    Ok(())
}

/// [`CellSink::coded_texts`] a cell at a time.
pub fn coded_texts_one_by_one<'e, S: CellSink>(
    sink: &mut S,
    first: DocId,
    entries: usize,
    entry: impl Fn(usize) -> &'e [u8],
    keys: &[i32],
) -> Result<(), RunError> {
    for (i, &k) in keys.iter().enumerate() {
        let doc = first + i as DocId;
        let Some(text) = usize::try_from(k).ok().filter(|&k| k < entries).map(&entry) else {
            return Err(CellError::Bad((
                i,
                format!("dictionary key {k} is out of range"),
            )));
        };
        match text {
            [] => sink.value(doc, &Value::String(String::new())),
            t => sink.text(doc, t),
        }
        .map_err(|e| e.in_run(i))?;
    }
    Ok(())
}

/// Rows per CSV batch: small enough that a batch's bytes and field ranges (about 0.5 MB for
/// TPC-H lineitem) stay in the L2 cache while each column's pass reads its cells.
const BATCH_ROWS: usize = 2048;

fn next_doc(file: &Path, line: u64, docs: u64) -> Result<DocId, SegmentError> {
    DocId::try_from(docs)
        .ok()
        .filter(|&d| d < u32::MAX)
        .ok_or_else(|| SegmentError::InputRow {
            file: file.to_path_buf(),
            line,
            reason: "a segment holds at most 2^32 - 2 rows".into(),
        })
}

/// Threads used to process a batch's columns (the reader's own thread included): the CPU
/// budget of the current rayon pool (so `RAYON_NUM_THREADS=1` builds on one thread), at most 4.
fn worker_threads(columns: usize) -> usize {
    build_threads().min(columns.max(1))
}

/// Reads `source` into one sink per schema column; returns the number of rows. `progress` is
/// called with the rows read so far (every batch and at the end).
pub fn read_input<S: CellSink>(
    source: &InputSource,
    schema: &Schema,
    sinks: &mut [S],
    progress: &mut dyn FnMut(u64),
) -> Result<u32, SegmentError> {
    assert_eq!(
        sinks.len(),
        schema.fields.len(),
        "one sink per schema column"
    );
    let file = File::open(&source.path).map_err(|e| SegmentError::io(&source.path, e))?;
    match source.format {
        InputFormat::Csv => {
            let text = compression::decoded(&source.path, file)?;
            read_csv(&source.path, text, &source.options, schema, sinks, progress)
        }
        // Whole records: JSON lines always, the others when their records are reshaped.
        InputFormat::Json => read_records(
            &source.path,
            records::records(source)?,
            schema,
            sinks,
            progress,
        ),
        _ if source.options.complex.is_some() => read_records(
            &source.path,
            records::records(source)?,
            schema,
            sinks,
            progress,
        ),
        InputFormat::Parquet => parquet::read_parquet(&source.path, file, schema, sinks, progress),
        InputFormat::Avro => avro::read_avro(&source.path, file, schema, sinks, progress),
        InputFormat::Orc => orc::read_orc(&source.path, file, schema, sinks, progress),
    }
}

fn cell_error(path: &Path, line: u64, column: &str, reason: String) -> SegmentError {
    SegmentError::Input {
        file: path.to_path_buf(),
        line,
        column: column.to_string(),
        reason,
    }
}

/// Fills `batch` with up to [`BATCH_ROWS`] records of `width` fields.
fn fill_batch<R: Read>(
    path: &Path,
    rdr: &mut CsvSplitter<'_, R>,
    width: usize,
    batch: &mut CsvBatch,
    first_doc: u64,
) -> Result<(), SegmentError> {
    rdr.fill(batch, Some(width), BATCH_ROWS, first_doc)?;
    if let Some(&line) = batch.lines.last() {
        next_doc(path, line, first_doc + batch.len as u64 - 1)?;
    }
    Ok(())
}

/// Feeds one column of a batch to its sink; the first bad cell is returned as
/// `(row in batch, error)`.
fn column_task<S: CellSink>(
    path: &Path,
    name: &str,
    position: Option<usize>,
    null_text: Option<&[u8]>,
    batch: &CsvBatch,
    sink: &mut S,
) -> Result<(), (usize, SegmentError)> {
    let mut i = 0;
    while i < batch.len {
        // The fast path takes any non-empty cell as a value, so not when a text means null.
        if let Some(p) = position.filter(|_| null_text.is_none()) {
            let start = i;
            i += sink
                .plain_cells(batch.len - start, batch.ascii, |k| batch.cell(start + k, p))
                .map_err(|e| (start, e))?;
            if i == batch.len {
                break;
            }
        }
        let doc = (batch.first_doc + i as u64) as DocId;
        let cell = position.map_or(&b""[..], |p| batch.cell(i, p));
        let r = if cell.is_empty() || null_text == Some(cell) {
            sink.null(doc)
        } else {
            sink.text(doc, cell)
                .map_err(|e| e.locate(|reason| cell_error(path, batch.lines[i], name, reason)))
        };
        r.map_err(|e| (i, e))?;
        i += 1;
    }
    Ok(())
}

fn read_csv<S: CellSink>(
    path: &Path,
    file: impl Read + Send,
    options: &InputOptions,
    schema: &Schema,
    sinks: &mut [S],
    progress: &mut dyn FnMut(u64),
) -> Result<u32, SegmentError> {
    let mut rdr = CsvSplitter::new(path, file)
        .with_delimiter(options.delimiter)
        .with_quote(options.quote);
    let headers = match &options.header {
        Some(h) => h
            .as_bytes()
            .split(|&b| b == options.delimiter)
            .map(<[u8]>::to_vec)
            .collect(),
        None => rdr.header()?.unwrap_or_default(),
    };
    if headers.is_empty() {
        return Err(SegmentError::InputRow {
            file: path.to_path_buf(),
            line: 1,
            reason: "missing header row".into(),
        });
    }
    let names: Vec<String> = headers
        .iter()
        .map(|h| String::from_utf8_lossy(h).trim().to_string())
        .collect();
    // Schema column -> input position (None: missing, all null).
    let positions: Vec<Option<usize>> = schema
        .fields
        .iter()
        .map(|f| names.iter().position(|n| *n == f.name))
        .collect();
    let width = headers.len();
    let threads = worker_threads(sinks.len());
    let mut batches = [CsvBatch::default(), CsvBatch::default()];
    fill_batch(path, &mut rdr, width, &mut batches[0], 0)?;
    let mut cur = 0;
    let mut docs: u64 = 0;
    let sinks: Vec<std::sync::Mutex<&mut S>> =
        sinks.iter_mut().map(std::sync::Mutex::new).collect();
    while batches[cur].len > 0 {
        let (a, b) = batches.split_at_mut(1);
        let (batch, next) = if cur == 0 {
            (&a[0], &mut b[0])
        } else {
            (&b[0], &mut a[0])
        };
        let next_first = docs + batch.len as u64;
        let more = batch.len == BATCH_ROWS;
        // Tasks: 0 = parse the next batch, 1.. = one column each.
        let ticket = std::sync::atomic::AtomicUsize::new(if more { 0 } else { 1 });
        let parse = std::sync::Mutex::new((&mut rdr, next, None::<SegmentError>));
        let failure = std::sync::Mutex::new(None::<(usize, usize, SegmentError)>);
        let run = || loop {
            let t = ticket.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if t > sinks.len() {
                break;
            }
            if t == 0 {
                let mut guard = parse.lock().unwrap_or_else(|p| p.into_inner());
                let (rdr, next, err) = &mut *guard;
                if let Err(e) = fill_batch(path, rdr, width, next, next_first) {
                    next.len = 0;
                    *err = Some(e);
                }
                continue;
            }
            let col = t - 1;
            let mut sink = sinks[col].lock().unwrap_or_else(|p| p.into_inner());
            if let Err((row, e)) = column_task(
                path,
                &schema.fields[col].name,
                positions[col],
                options.null_string.as_deref().map(str::as_bytes),
                batch,
                &mut **sink,
            ) {
                let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
                if f.as_ref().is_none_or(|(r, c, _)| (row, col) < (*r, *c)) {
                    *f = Some((row, col, e));
                }
            }
        };
        if threads > 1 {
            std::thread::scope(|s| {
                for _ in 1..threads {
                    s.spawn(run);
                }
                run();
            });
        } else {
            run();
        }
        if let Some((_, _, e)) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        let (_, next, parse_err) = parse.into_inner().unwrap_or_else(|p| p.into_inner());
        if !more {
            next.len = 0;
        }
        if let Some(e) = parse_err {
            return Err(e);
        }
        if docs == 0 && more {
            // Size the inputs' tables once for the whole file, judged by the first batch.
            let file_bytes = std::fs::metadata(path).map_or(0, |m| m.len());
            let rows = file_bytes.saturating_mul(batch.len as u64) / batch.bytes().max(1) as u64;
            for sink in &sinks {
                sink.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .expect_rows(rows);
            }
        }
        docs = next_first;
        progress(docs);
        cur = 1 - cur;
    }
    progress(docs);
    Ok(docs as u32)
}

/// Feeds whole records (JSON lines; Avro and Parquet under a `complexTypeConfig`) to the
/// sinks: a schema column takes the record's field of its name.
fn read_records<S: CellSink>(
    path: &Path,
    records: records::Records,
    schema: &Schema,
    sinks: &mut [S],
    progress: &mut dyn FnMut(u64),
) -> Result<u32, SegmentError> {
    let mut docs: u64 = 0;
    for record in records {
        let (line, row) = record?;
        let doc = next_doc(path, line, docs)?;
        for (f, sink) in schema.fields.iter().zip(sinks.iter_mut()) {
            match row.get(&f.name) {
                None | Some(serde_json::Value::Null) => sink.null(doc)?,
                Some(v) => sink
                    .json(doc, v)
                    .map_err(|e| e.locate(|reason| cell_error(path, line, &f.name, reason)))?,
            }
        }
        docs += 1;
        if docs.is_multiple_of(BATCH_ROWS as u64) {
            progress(docs);
        }
    }
    progress(docs);
    Ok(docs as u32)
}

/// Threads a segment build uses at most: the current rayon pool's size (which honours
/// `RAYON_NUM_THREADS`), capped at 4 because memory grows with each column in flight.
pub fn build_threads() -> usize {
    rayon::current_num_threads().clamp(1, 4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{DataType, FieldSpec};

    /// Records `(doc, text)` per column; `bad` cells are input errors.
    #[derive(Default)]
    struct Record(Vec<(u32, String)>);

    impl CellSink for Record {
        fn text(&mut self, doc: DocId, text: &[u8]) -> Result<(), CellError> {
            if text == b"bad" {
                return Err(CellError::Bad("cannot parse 'bad' as INT".into()));
            }
            self.0
                .push((doc, String::from_utf8_lossy(text).into_owned()));
            Ok(())
        }
        fn json(&mut self, doc: DocId, v: &serde_json::Value) -> Result<(), CellError> {
            self.0.push((doc, v.to_string()));
            Ok(())
        }
        fn value(&mut self, doc: DocId, v: &Value) -> Result<(), CellError> {
            self.0.push((doc, v.to_string()));
            Ok(())
        }
        fn null(&mut self, doc: DocId) -> Result<(), SegmentError> {
            self.0.push((doc, "NULL".into()));
            Ok(())
        }
    }

    fn schema() -> Schema {
        Schema {
            schema_name: "t".into(),
            fields: vec![
                FieldSpec::dimension("a", DataType::Int),
                FieldSpec::dimension("b", DataType::String),
            ],
            ..Schema::default()
        }
    }

    fn run(name: &str, text: &str) -> (Result<u32, SegmentError>, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let format = InputFormat::from_path(&path).unwrap();
        let mut sinks = vec![Record::default(), Record::default()];
        let mut last = 0;
        let r = read_input(
            &InputSource {
                path,
                format,
                options: Default::default(),
            },
            &schema(),
            &mut sinks,
            &mut |n| last = n,
        );
        if let Ok(n) = &r {
            assert_eq!(last, *n as u64);
        }
        let cells = sinks
            .iter()
            .enumerate()
            .flat_map(|(c, s)| s.0.iter().map(move |(d, t)| format!("{c}:{d}:{t}")))
            .collect();
        (r, cells)
    }

    #[test]
    fn csv_maps_columns_and_nulls() {
        let (r, cells) = run("x.csv", "extra,a\n1,5\n2,\n");
        assert_eq!(r.unwrap(), 2);
        assert_eq!(cells, ["0:0:5", "0:1:NULL", "1:0:NULL", "1:1:NULL"]);
    }

    #[test]
    fn csv_batches_keep_doc_order_and_earliest_error() {
        let rows = BATCH_ROWS * 2 + 17;
        let mut text = String::from("a,b\n");
        for i in 0..rows {
            text.push_str(&format!("{i},s{i}\n"));
        }
        let (r, cells) = run("x.csv", &text);
        assert_eq!(r.unwrap() as usize, rows);
        let want: Vec<String> = (0..rows)
            .map(|i| format!("0:{i}:{i}"))
            .chain((0..rows).map(|i| format!("1:{i}:s{i}")))
            .collect();
        assert_eq!(cells, want);
        // A bad cell in one batch and a short row in the next: the earlier line wins.
        let bad = BATCH_ROWS + 5;
        let mut text = String::from("a,b\n");
        for i in 0..rows {
            if i == bad {
                text.push_str("bad,x\n");
            } else if i == BATCH_ROWS * 2 + 3 {
                text.push_str("1\n");
            } else {
                text.push_str(&format!("{i},s{i}\n"));
            }
        }
        let msg = run("x.csv", &text).0.unwrap_err().to_string();
        let line = bad + 2;
        assert!(
            msg.ends_with(&format!(
                "x.csv line {line}, column 'a': cannot parse 'bad' as INT"
            )),
            "{msg}"
        );
    }

    #[test]
    fn csv_errors_name_file_line_and_column() {
        let (r, _) = run("x.csv", "a,b\n1,x\n2\n");
        let msg = r.unwrap_err().to_string();
        assert!(
            msg.ends_with("x.csv line 3: expected 2 fields, found 1"),
            "{msg}"
        );
        let (r, _) = run("x.csv", "a,b\n1,x\nbad,y\n");
        let msg = r.unwrap_err().to_string();
        assert!(
            msg.ends_with("x.csv line 3, column 'a': cannot parse 'bad' as INT"),
            "{msg}"
        );
    }

    #[test]
    fn json_lines() {
        let (r, cells) = run(
            "x.json",
            "{\"a\": 1, \"b\": null, \"z\": 3}\n\n{\"b\": [\"p\"]}\n",
        );
        assert_eq!(r.unwrap(), 2);
        assert_eq!(cells, ["0:0:1", "0:1:NULL", "1:0:NULL", "1:1:[\"p\"]"]);
        let (r, _) = run("x.json", "{\"a\": 1}\n[1]\n");
        let msg = r.unwrap_err().to_string();
        assert!(msg.contains("x.json line 2: not a JSON object"), "{msg}");
    }

    #[test]
    fn formats_from_names() {
        assert_eq!(
            InputFormat::from_path(Path::new("a/b.CSV")),
            Some(InputFormat::Csv)
        );
        assert_eq!(
            InputFormat::from_path(Path::new("b.ndjson")),
            Some(InputFormat::Json)
        );
        assert_eq!(
            InputFormat::from_path(Path::new("b.parquet")),
            Some(InputFormat::Parquet)
        );
        assert_eq!(
            InputFormat::from_path(Path::new("x/b.csv.GZ")),
            Some(InputFormat::Csv)
        );
        assert_eq!(
            InputFormat::from_path(Path::new("b.jsonl.zst")),
            Some(InputFormat::Json)
        );
        assert_eq!(
            InputFormat::from_path(Path::new("b.orc")),
            Some(InputFormat::Orc)
        );
        assert_eq!(InputFormat::from_path(Path::new("b.xlsx")), None);
        assert_eq!(InputFormat::from_path(Path::new("b.gz")), None);
        assert_eq!(InputFormat::from_path(Path::new("b")), None);
    }
}
