//! Parquet input, read a column at a time with Parquet's own typed column readers (no row
//! assembly): each row group's schema columns are decoded in parallel (a column per task), each
//! into its column's sink, in doc order. The file is memory-mapped, so the tasks read their
//! column chunks without sharing a file offset.
//!
//! A schema column matches the top-level Parquet column of the same name; only the columns the
//! schema names are read. Types map as Pinot's Parquet reader maps them:
//!
//! | Parquet | value |
//! |---|---|
//! | BOOLEAN, INT32, INT64, FLOAT, DOUBLE | the number (unsigned INT32 as a LONG) |
//! | INT32 `DATE` | `yyyy-MM-dd` in a STRING column, epoch millis in a TIMESTAMP, else days |
//! | INT64 `TIMESTAMP(MILLIS/MICROS/NANOS)`, INT96 | a timestamp (epoch millis in a LONG column) |
//! | `DECIMAL` on INT32, INT64, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY | BIG_DECIMAL (exact) |
//! | BYTE_ARRAY `STRING`/`ENUM`/`JSON` | text, parsed as the column's type (like a CSV cell) |
//! | FIXED_LEN_BYTE_ARRAY `UUID` | its canonical text |
//! | other BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY | bytes |
//! | a `LIST` of one of the above | a multi-value cell (null elements skipped) |
//! | another group (struct, map, list of structs) | its JSON text, into a JSON or STRING column |
//!
//! A null (or an empty list) is a null cell; a schema column the file lacks is null in every row
//! (its default null value). A list into a single-value column, a nested group into anything
//! but a JSON or STRING column, or a value the column's type cannot hold is an error naming the file, the row group, the row and the column.

use super::CellSink;
use super::typed::{civil_text, date_value, decimal, unscaled, uuid};
use crate::error::SegmentError;
use crate::types::{DataType, DocId, FieldSpec, Schema, Value};
use bytes::Bytes;
use parquet::basic::{ConvertedType, LogicalType, TimeUnit, Type as PhysicalType};
use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{ByteArray, DataType as ParquetType, FixedLenByteArray, Int96};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::schema::types::{ColumnDescriptor, SchemaDescriptor};
use rayon::prelude::*;
use std::fs::File;
use std::path::Path;

/// Records decoded per read call.
const BATCH_RECORDS: usize = 8192;

/// How a Parquet column's values become cells.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Bool,
    Int32,
    UInt32,
    Int64,
    Float,
    Double,
    /// INT32 days since the epoch.
    Date,
    /// INT64 in units of `1 / per_milli` milliseconds (MILLIS 1, MICROS 1000, NANOS 10^6).
    Timestamp {
        per_milli: i64,
    },
    Int96,
    /// An unscaled integer (INT32, INT64 or big-endian two's-complement bytes) and its scale.
    Decimal {
        scale: i32,
    },
    Utf8,
    Uuid,
    Binary,
}

/// What a top-level Parquet column is.
enum Shape {
    /// One leaf of values, one per row.
    Values(usize),
    /// One leaf repeated once: a list of values per row.
    List(usize),
    /// Anything else (a struct, a map, a list of structs or of lists).
    Group,
}

/// The shape of the top-level column `name`, if the file has it.
fn shape_of(descr: &SchemaDescriptor, name: &str) -> Option<Shape> {
    let mut leaves = (0..descr.num_columns()).filter(|&i| {
        descr
            .column(i)
            .path()
            .parts()
            .first()
            .is_some_and(|p| p == name)
    });
    let first = leaves.next()?;
    if leaves.next().is_some() {
        return Some(Shape::Group);
    }
    let c = descr.column(first);
    Some(match (c.max_rep_level(), c.path().parts().len()) {
        (0, 1) => Shape::Values(first),
        (1, _) => Shape::List(first),
        _ => Shape::Group,
    })
}

/// Where a schema column's cells come from.
enum Source {
    /// A leaf, read by Parquet's typed column reader.
    Leaf(LeafSource),
    /// A nested group (or a list into a single-value JSON column) read into a JSON or STRING
    /// column as its JSON text, by Parquet's record reader.
    Group,
}

/// A leaf column and how its values become cells.
struct LeafSource {
    /// The leaf column's index in the file.
    leaf: usize,
    kind: Kind,
    /// The column is a list (one repetition level): each record is a multi-value cell.
    list: bool,
    /// The leaf's maximum definition and repetition levels.
    max_def: i16,
    max_rep: i16,
}

fn file_error(path: &Path, reason: impl Into<String>) -> SegmentError {
    SegmentError::InputFile {
        file: path.to_path_buf(),
        reason: reason.into(),
    }
}

fn kind_of(c: &ColumnDescriptor) -> Result<Kind, String> {
    let logical = c.logical_type_ref();
    if let Some(LogicalType::Decimal(d)) = logical {
        return Ok(Kind::Decimal { scale: d.scale });
    }
    if c.converted_type() == ConvertedType::DECIMAL {
        return Ok(Kind::Decimal {
            scale: c.type_scale(),
        });
    }
    Ok(match c.physical_type() {
        PhysicalType::BOOLEAN => Kind::Bool,
        PhysicalType::INT32 => match logical {
            Some(LogicalType::Date) => Kind::Date,
            Some(LogicalType::Integer(i)) if !i.is_signed && i.bit_width == 32 => Kind::UInt32,
            _ if c.converted_type() == ConvertedType::DATE => Kind::Date,
            _ if c.converted_type() == ConvertedType::UINT_32 => Kind::UInt32,
            _ => Kind::Int32,
        },
        PhysicalType::INT64 => {
            let unit = match logical {
                Some(LogicalType::Timestamp(t)) => Some(match t.unit {
                    TimeUnit::MILLIS => 1,
                    TimeUnit::MICROS => 1_000,
                    TimeUnit::NANOS => 1_000_000,
                }),
                _ => match c.converted_type() {
                    ConvertedType::TIMESTAMP_MILLIS => Some(1),
                    ConvertedType::TIMESTAMP_MICROS => Some(1_000),
                    _ => None,
                },
            };
            match unit {
                Some(per_milli) => Kind::Timestamp { per_milli },
                None => Kind::Int64,
            }
        }
        PhysicalType::INT96 => Kind::Int96,
        PhysicalType::FLOAT => Kind::Float,
        PhysicalType::DOUBLE => Kind::Double,
        PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY => match logical {
            Some(LogicalType::String | LogicalType::Enum | LogicalType::Json) => Kind::Utf8,
            Some(LogicalType::Uuid) => Kind::Uuid,
            _ => match c.converted_type() {
                ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON => Kind::Utf8,
                _ => Kind::Binary,
            },
        },
    })
}

/// Where the cells of `field` come from.
fn source_of(
    path: &Path,
    reader: &SerializedFileReader<Bytes>,
    field: &FieldSpec,
) -> Result<Option<Source>, SegmentError> {
    let descr = reader.metadata().file_metadata().schema_descr();
    let bad = |reason: String| file_error(path, format!("column '{}': {reason}", field.name));
    let json_text =
        field.single_value_field && matches!(field.data_type, DataType::Json | DataType::String);
    let (leaf, list) = match shape_of(descr, &field.name) {
        None => return Ok(None),
        Some(Shape::Values(leaf)) => (leaf, false),
        // A list into a single-value JSON column is its JSON array.
        Some(Shape::List(_)) if field.single_value_field && field.data_type == DataType::Json => {
            return Ok(Some(Source::Group));
        }
        Some(Shape::List(_)) if field.single_value_field => {
            return Err(bad(
                "a Parquet list cannot fill a single-value column".into()
            ));
        }
        Some(Shape::List(leaf)) => (leaf, true),
        Some(Shape::Group) if json_text => return Ok(Some(Source::Group)),
        Some(Shape::Group) => {
            return Err(bad(
                "a nested Parquet group fills a single-value JSON or STRING column only (as its \
                 JSON text)"
                    .into(),
            ));
        }
    };
    let c = descr.column(leaf);
    let kind = kind_of(&c).map_err(bad)?;
    Ok(Some(Source::Leaf(LeafSource {
        leaf,
        kind,
        list,
        max_def: c.max_def_level(),
        max_rep: c.max_rep_level(),
    })))
}

/// A reader over the memory-mapped `file`.
fn open(path: &Path, file: File) -> Result<SerializedFileReader<Bytes>, SegmentError> {
    // SAFETY: the map is only read. A build input is not modified while the build runs; one
    // truncated under the map would fault the process, as would a segment file Tessera maps.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| SegmentError::io(path, e))?;
    SerializedFileReader::new(Bytes::from_owner(map))
        .map_err(|e| file_error(path, format!("not a readable Parquet file: {e}")))
}

/// The top-level columns of the Parquet file `path` as staging columns (for ingestion
/// transforms): name, the type their values take (integers and timestamps LONG, floating point
/// and decimals DOUBLE, booleans BOOLEAN, the rest STRING), and whether each is single-value.
pub fn parquet_columns(path: &Path) -> Result<Vec<(String, DataType, bool)>, SegmentError> {
    let file = File::open(path).map_err(|e| SegmentError::io(path, e))?;
    let reader = open(path, file)?;
    let descr = reader.metadata().file_metadata().schema_descr();
    let mut out: Vec<(String, DataType, bool)> = Vec::new();
    for top in descr.root_schema().get_fields() {
        let name = top.name();
        let (leaf, single) = match shape_of(descr, name) {
            Some(Shape::Values(leaf)) => (leaf, true),
            Some(Shape::List(leaf)) => (leaf, false),
            // A group stages as its JSON text.
            Some(Shape::Group) | None => {
                out.push((name.to_string(), DataType::String, true));
                continue;
            }
        };
        let dt = match kind_of(&descr.column(leaf)).map_err(|e| file_error(path, e))? {
            Kind::Bool => DataType::Boolean,
            Kind::Int32 | Kind::UInt32 | Kind::Int64 | Kind::Date => DataType::Long,
            Kind::Timestamp { .. } | Kind::Int96 => DataType::Timestamp,
            Kind::Float | Kind::Double | Kind::Decimal { .. } => DataType::Double,
            Kind::Utf8 | Kind::Uuid => DataType::String,
            Kind::Binary => DataType::Bytes,
        };
        out.push((name.to_string(), dt, single));
    }
    Ok(out)
}

/// Reads the Parquet file `path` into one sink per schema column; returns the number of rows.
pub fn read_parquet<S: CellSink>(
    path: &Path,
    file: File,
    schema: &Schema,
    sinks: &mut [S],
    progress: &mut dyn FnMut(u64),
) -> Result<u32, SegmentError> {
    let reader = open(path, file)?;
    let sources: Vec<Option<Source>> = schema
        .fields
        .iter()
        .map(|f| source_of(path, &reader, f))
        .collect::<Result<_, _>>()?;
    let meta = reader.metadata();
    let total = u64::try_from(meta.file_metadata().num_rows()).unwrap_or(0);
    if total >= u64::from(u32::MAX) {
        return Err(file_error(path, "a segment holds at most 2^32 - 2 rows"));
    }
    let mut docs: u64 = 0;
    for rg in 0..meta.num_row_groups() {
        let rows = u64::try_from(meta.row_group(rg).num_rows()).unwrap_or(0);
        let first = docs as DocId;
        let results: Vec<Result<(), SegmentError>> = sinks
            .par_iter_mut()
            .zip(sources.par_iter())
            .zip(schema.fields.par_iter())
            .map(|((sink, source), field)| {
                let mut column = ColumnRun {
                    path,
                    field,
                    row_group: rg,
                    first,
                    file_row: docs,
                    expect_rows: (rg == 0).then_some(total),
                };
                match source {
                    Some(Source::Group) => column.read_nested(&reader, sink),
                    Some(Source::Leaf(s)) => column.read(&reader, s, sink),
                    None => (0..rows).try_for_each(|r| sink.null(first + r as DocId)),
                }
            })
            .collect();
        results.into_iter().collect::<Result<(), _>>()?;
        docs += rows;
        progress(docs);
    }
    Ok(docs as u32)
}

/// One schema column of one row group.
struct ColumnRun<'a> {
    path: &'a Path,
    field: &'a FieldSpec,
    row_group: usize,
    /// The row group's first doc.
    first: DocId,
    /// Rows of the file before the row group.
    file_row: u64,
    /// The file's rows, told to the sink after the first batch (as the CSV reader does, so a
    /// column sees some values before it sizes itself).
    expect_rows: Option<u64>,
}

impl ColumnRun<'_> {
    /// The column chunk cannot be decoded.
    fn unreadable(&self, e: parquet::errors::ParquetError) -> SegmentError {
        file_error(
            self.path,
            format!(
                "row group {}, column '{}': {e}",
                self.row_group, self.field.name
            ),
        )
    }

    fn error(&self, record: usize, reason: String) -> SegmentError {
        SegmentError::InputRecord {
            file: self.path.to_path_buf(),
            row_group: self.row_group,
            row: self.file_row + record as u64 + 1,
            column: self.field.name.clone(),
            reason,
        }
    }

    /// A nested group's values as JSON text, row by row through Parquet's record reader with
    /// only this column projected.
    fn read_nested<S: CellSink>(
        &mut self,
        reader: &SerializedFileReader<Bytes>,
        sink: &mut S,
    ) -> Result<(), SegmentError> {
        let unreadable = |e| self.unreadable(e);
        let root = reader
            .metadata()
            .file_metadata()
            .schema_descr()
            .root_schema();
        let Some(group) = root
            .get_fields()
            .iter()
            .find(|f| f.name() == self.field.name)
        else {
            return Ok(());
        };
        let projection = parquet::schema::types::Type::group_type_builder(root.name())
            .with_fields(vec![group.clone()])
            .build()
            .map_err(unreadable)?;
        let row_group = reader.get_row_group(self.row_group).map_err(unreadable)?;
        let rows = row_group
            .get_row_iter(Some(projection))
            .map_err(unreadable)?;
        for (i, row) in rows.enumerate() {
            let row = row.map_err(|e| self.unreadable(e))?;
            let doc = self.first + i as DocId;
            let value = row
                .get_column_iter()
                .next()
                .map(|(_, f)| f.to_json_value())
                .unwrap_or(serde_json::Value::Null);
            if value.is_null() {
                sink.null(doc)?;
            } else {
                self.push(sink, doc, i, Cell::Text(value.to_string().as_bytes()))?;
            }
            if let Some(rows) = self.expect_rows.take() {
                sink.expect_rows(rows);
            }
        }
        Ok(())
    }

    fn read<S: CellSink>(
        &mut self,
        reader: &SerializedFileReader<Bytes>,
        source: &LeafSource,
        sink: &mut S,
    ) -> Result<(), SegmentError> {
        let unreadable = |e| self.unreadable(e);
        let column = reader
            .get_row_group(self.row_group)
            .and_then(|g| g.get_column_reader(source.leaf))
            .map_err(unreadable)?;
        match column {
            ColumnReader::BoolColumnReader(r) => {
                self.cells(r, source, sink, |v: &bool| Cell::Value(Value::Boolean(*v)))
            }
            ColumnReader::Int32ColumnReader(r) => self.cells(r, source, sink, |v: &i32| {
                if source.kind == Kind::Date {
                    return Cell::Day(i64::from(*v));
                }
                Cell::Value(match source.kind {
                    Kind::UInt32 => Value::Long(i64::from(*v as u32)),
                    Kind::Decimal { scale } => Value::BigDecimal(decimal(i128::from(*v), scale)),
                    _ => Value::Int(*v),
                })
            }),
            ColumnReader::Int64ColumnReader(r) => self.cells(r, source, sink, |v: &i64| {
                Cell::Value(match source.kind {
                    Kind::Timestamp { per_milli } => Value::Timestamp(v.div_euclid(per_milli)),
                    Kind::Decimal { scale } => Value::BigDecimal(decimal(i128::from(*v), scale)),
                    _ => Value::Long(*v),
                })
            }),
            ColumnReader::Int96ColumnReader(r) => self.cells(r, source, sink, |v: &Int96| {
                Cell::Value(Value::Timestamp(v.to_nanos().div_euclid(1_000_000)))
            }),
            ColumnReader::FloatColumnReader(r) => {
                self.cells(r, source, sink, |v: &f32| Cell::Value(Value::Float(*v)))
            }
            ColumnReader::DoubleColumnReader(r) => {
                self.cells(r, source, sink, |v: &f64| Cell::Value(Value::Double(*v)))
            }
            ColumnReader::ByteArrayColumnReader(r) => {
                self.cells(r, source, sink, |v: &ByteArray| {
                    bytes_cell(v.data(), source.kind)
                })
            }
            ColumnReader::FixedLenByteArrayColumnReader(r) => {
                self.cells(r, source, sink, |v: &FixedLenByteArray| {
                    bytes_cell(v.data(), source.kind)
                })
            }
        }
    }

    /// Decodes the column in batches of records and hands each record's cell to `sink`.
    fn cells<T, S, F>(
        &mut self,
        mut reader: ColumnReaderImpl<T>,
        source: &LeafSource,
        sink: &mut S,
        cell: F,
    ) -> Result<(), SegmentError>
    where
        T: ParquetType,
        S: CellSink,
        F: Fn(&T::T) -> Cell<'_>,
        T::T: Default + Clone,
    {
        let (max_def, max_rep) = (source.max_def, source.max_rep);
        let mut defs: Vec<i16> = Vec::new();
        let mut reps: Vec<i16> = Vec::new();
        let mut values: Vec<T::T> = Vec::new();
        let mut record = 0usize;
        let mut items: Vec<Value> = Vec::new();
        loop {
            defs.clear();
            reps.clear();
            values.clear();
            let (records, _, levels) = reader
                .read_records(
                    BATCH_RECORDS,
                    (max_def > 0).then_some(&mut defs),
                    (max_rep > 0).then_some(&mut reps),
                    &mut values,
                )
                .map_err(|e| self.unreadable(e))?;
            if records == 0 {
                return Ok(());
            }
            let mut next_value = values.iter();
            let told = self.expect_rows.take();
            if !source.list {
                let n = if max_def > 0 { levels } else { records };
                for i in 0..n {
                    let doc = self.first + (record + i) as DocId;
                    if defs.get(i).is_some_and(|d| *d < max_def) {
                        sink.null(doc)?;
                        continue;
                    }
                    let Some(v) = next_value.next() else {
                        return Err(self.error(record + i, "fewer values than rows".into()));
                    };
                    self.push(sink, doc, record + i, cell(v))?;
                }
                record += n;
            } else {
                // A list: a record starts at repetition level 0; a level at the full definition
                // level is an element, a lower one an empty or null list or a null element.
                let mut open = false;
                for (rep, def) in reps.iter().zip(&defs).take(levels) {
                    if *rep == 0 {
                        if open {
                            self.push_list(sink, record, &mut items)?;
                            record += 1;
                        }
                        open = true;
                    }
                    if *def == max_def {
                        let Some(v) = next_value.next() else {
                            return Err(self.error(record, "fewer values than levels".into()));
                        };
                        items.push(match cell(v) {
                            Cell::Value(v) => v,
                            Cell::Day(d) => date_value(d, self.field.data_type),
                            Cell::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
                        });
                    }
                }
                if open {
                    self.push_list(sink, record, &mut items)?;
                    record += 1;
                }
            }
            if let Some(rows) = told {
                sink.expect_rows(rows);
            }
        }
    }

    fn push<S: CellSink>(
        &self,
        sink: &mut S,
        doc: DocId,
        record: usize,
        cell: Cell<'_>,
    ) -> Result<(), SegmentError> {
        let dt = self.field.data_type;
        let outcome = match cell {
            Cell::Text([]) => sink.value(doc, &Value::String(String::new()))?,
            Cell::Text(t) => sink.text(doc, t)?,
            // A date into a STRING column is its `yyyy-MM-dd` text, written without allocating.
            Cell::Day(d) => match civil_text(d) {
                Some(text) if matches!(dt, DataType::String | DataType::Json) => {
                    sink.text(doc, &text)?
                }
                _ => sink.value(doc, &date_value(d, dt))?,
            },
            Cell::Value(v) => sink.value(doc, &v)?,
        };
        outcome.map_err(|reason| self.error(record, reason))
    }

    fn push_list<S: CellSink>(
        &self,
        sink: &mut S,
        record: usize,
        items: &mut Vec<Value>,
    ) -> Result<(), SegmentError> {
        let doc = self.first + record as DocId;
        if items.is_empty() {
            return sink.null(doc);
        }
        let cell = Value::Array(std::mem::take(items));
        sink.value(doc, &cell)?
            .map_err(|reason| self.error(record, reason))
    }
}

/// One decoded value: text to parse as the column's type, a `DATE`'s day number, or a typed
/// value.
enum Cell<'a> {
    Text(&'a [u8]),
    Day(i64),
    Value(Value),
}

fn bytes_cell(b: &[u8], kind: Kind) -> Cell<'_> {
    match kind {
        Kind::Utf8 => Cell::Text(b),
        Kind::Decimal { scale } => match unscaled(b) {
            Some(u) => Cell::Value(Value::BigDecimal(decimal(u, scale))),
            None => Cell::Value(Value::Bytes(b.to_vec())),
        },
        Kind::Uuid if b.len() == 16 => Cell::Value(Value::String(uuid(b))),
        _ => Cell::Value(Value::Bytes(b.to_vec())),
    }
}

/// The Parquet file's rows as JSON objects (its record reader's JSON form: nested groups as
/// objects, lists as arrays), for inputs that need whole records (`complexTypeConfig`).
pub(super) fn records(
    path: &Path,
    file: File,
) -> Result<
    impl Iterator<Item = Result<serde_json::Map<String, serde_json::Value>, String>> + Send + use<>,
    SegmentError,
> {
    let reader = open(path, file)?;
    let rows = parquet::record::reader::RowIter::from_file_into(Box::new(reader));
    Ok(rows.map(
        |row| match row.map_err(|e| e.to_string())?.to_json_value() {
            serde_json::Value::Object(m) => Ok(m),
            other => Err(format!("a row is not a record: {other}")),
        },
    ))
}
