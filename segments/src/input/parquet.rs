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
use super::arrow_cells::{Dictionaries, Place, feed};
use crate::error::SegmentError;
use crate::types::{DataType, DocId, FieldSpec, Schema};
use arrow::datatypes::{DataType as ArrowType, Field};
use bytes::Bytes;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::basic::{ConvertedType, Encoding, LogicalType, Type as PhysicalType};
use parquet::file::metadata::ColumnChunkMetaData;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::schema::types::{ColumnDescriptor, SchemaDescriptor};
use rayon::prelude::*;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

/// Records decoded per read call.
const BATCH_RECORDS: usize = 8192;

/// What a Parquet leaf holds, from its physical and logical types: its staging type for
/// ingestion transforms, and whether it is text (read as dictionary codes where it can be) or
/// a UUID (written as its text). Decoding itself is the Arrow reader's.
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
    /// INT64 in milli-, micro- or nanoseconds.
    Timestamp,
    Int96,
    /// An unscaled integer (INT32, INT64 or big-endian two's-complement bytes) and a scale.
    Decimal,
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

/// A leaf column (of values, or a list of values), decoded by Parquet's Arrow reader.
struct LeafSource {
    /// The leaf column's index in the file.
    leaf: usize,
    kind: Kind,
    /// A single UTF-8 value per row: read as dictionary codes from a chunk whose pages are all
    /// dictionary-encoded.
    codes: bool,
}

fn file_error(path: &Path, reason: impl Into<String>) -> SegmentError {
    SegmentError::InputFile {
        file: path.to_path_buf(),
        reason: reason.into(),
    }
}

fn kind_of(c: &ColumnDescriptor) -> Result<Kind, String> {
    let logical = c.logical_type_ref();
    if matches!(logical, Some(LogicalType::Decimal(_)))
        || c.converted_type() == ConvertedType::DECIMAL
    {
        return Ok(Kind::Decimal);
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
        PhysicalType::INT64 => match logical {
            Some(LogicalType::Timestamp(_)) => Kind::Timestamp,
            _ if matches!(
                c.converted_type(),
                ConvertedType::TIMESTAMP_MILLIS | ConvertedType::TIMESTAMP_MICROS
            ) =>
            {
                Kind::Timestamp
            }
            _ => Kind::Int64,
        },
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
    let json_text = field.single_value_field
        && matches!(
            field.data_type,
            DataType::Json | DataType::String | DataType::Map
        );
    let leaf = match shape_of(descr, &field.name) {
        None => return Ok(None),
        Some(Shape::Values(leaf)) => leaf,
        // A list into a single-value JSON column is its JSON array.
        Some(Shape::List(_)) if field.single_value_field && field.data_type == DataType::Json => {
            return Ok(Some(Source::Group));
        }
        Some(Shape::List(_)) if field.single_value_field => {
            return Err(bad(
                "a Parquet list cannot fill a single-value column".into()
            ));
        }
        Some(Shape::List(leaf)) => leaf,
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
    let codes = kind == Kind::Utf8 && c.max_rep_level() == 0 && c.path().parts().len() == 1;
    Ok(Some(Source::Leaf(LeafSource { leaf, kind, codes })))
}

/// The memory-mapped `file` and a reader over it.
fn open(path: &Path, file: File) -> Result<(Bytes, SerializedFileReader<Bytes>), SegmentError> {
    // SAFETY: the map is only read. A build input is not modified while the build runs; one
    // truncated under the map would fault the process, as would a segment file Tessera maps.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| SegmentError::io(path, e))?;
    let bytes = Bytes::from_owner(map);
    let reader = SerializedFileReader::new(bytes.clone())
        .map_err(|e| file_error(path, format!("not a readable Parquet file: {e}")))?;
    Ok((bytes, reader))
}

/// The top-level columns of the Parquet file `path` as staging columns (for ingestion
/// transforms): name, the type their values take (integers and timestamps LONG, floating point
/// and decimals DOUBLE, booleans BOOLEAN, the rest STRING), and whether each is single-value.
pub fn parquet_columns(path: &Path) -> Result<Vec<(String, DataType, bool)>, SegmentError> {
    let file = File::open(path).map_err(|e| SegmentError::io(path, e))?;
    let (_, reader) = open(path, file)?;
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
            Kind::Timestamp | Kind::Int96 => DataType::Timestamp,
            Kind::Float | Kind::Double | Kind::Decimal => DataType::Double,
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
    let (bytes, reader) = open(path, file)?;
    let sources: Vec<Option<Source>> = schema
        .fields
        .iter()
        .map(|f| source_of(path, &reader, f))
        .collect::<Result<_, _>>()?;
    // Types come from the Parquet schema alone (not from an Arrow schema a writer embedded,
    // which could ask for dictionary or view arrays), so they map as the table above says.
    let arrow = sources
        .iter()
        .any(|s| matches!(s, Some(Source::Leaf(_))))
        .then(|| ArrowReaders::new(path, &reader, &sources))
        .transpose()?;
    let meta = reader.metadata();
    let total = u64::try_from(meta.file_metadata().num_rows()).unwrap_or(0);
    if total >= u64::from(u32::MAX) {
        return Err(file_error(path, "a segment holds at most 2^32 - 2 rows"));
    }
    let mut docs: u64 = 0;
    let mut dictionaries = Dictionaries::per_column(schema.fields.len());
    for rg in 0..meta.num_row_groups() {
        let rows = u64::try_from(meta.row_group(rg).num_rows()).unwrap_or(0);
        let first = docs as DocId;
        let results: Vec<Result<(), SegmentError>> = sinks
            .par_iter_mut()
            .zip(dictionaries.par_iter_mut())
            .zip(sources.par_iter())
            .zip(schema.fields.par_iter())
            .map(|(((sink, dictionaries), source), field)| {
                let mut column = ColumnRun {
                    path,
                    field,
                    row_group: rg,
                    first,
                    file_row: docs,
                    expect_rows: (rg == 0).then_some(total),
                };
                match (source, &arrow) {
                    (Some(Source::Group), _) => column.read_nested(&reader, sink),
                    (Some(Source::Leaf(s)), Some(arrow)) => {
                        let codes = s.codes && all_dictionary(meta.row_group(rg).column(s.leaf));
                        let arrow = if codes { &arrow.codes } else { &arrow.values };
                        column.read(&bytes, arrow, s, dictionaries, sink)
                    }
                    _ => (0..rows).try_for_each(|r| sink.null(first + r as DocId)),
                }
            })
            .collect();
        results.into_iter().collect::<Result<(), _>>()?;
        docs += rows;
        progress(docs);
    }
    Ok(docs as u32)
}

/// How Parquet's Arrow reader decodes the file's columns: UTF-8 columns as their values, or as
/// dictionary codes. Types come from the Parquet schema alone (not from an Arrow schema a
/// writer embedded, which could ask for other dictionary or view arrays), so they map as the
/// table above says.
struct ArrowReaders {
    values: ArrowReaderMetadata,
    codes: ArrowReaderMetadata,
}

impl ArrowReaders {
    fn new(
        path: &Path,
        reader: &SerializedFileReader<Bytes>,
        sources: &[Option<Source>],
    ) -> Result<ArrowReaders, SegmentError> {
        let unreadable = |e: parquet::errors::ParquetError| {
            file_error(path, format!("not a readable Parquet file: {e}"))
        };
        let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
        let metadata = Arc::new(reader.metadata().clone());
        let values = ArrowReaderMetadata::try_new(Arc::clone(&metadata), options.clone())
            .map_err(unreadable)?;
        let descr = metadata.file_metadata().schema_descr();
        let coded: Vec<String> = sources
            .iter()
            .filter_map(|s| match s {
                Some(Source::Leaf(l)) if l.codes => Some(descr.column(l.leaf).name().to_string()),
                _ => None,
            })
            .collect();
        let fields: Vec<Field> = values
            .schema()
            .fields()
            .iter()
            .map(|f| match f.data_type() {
                ArrowType::Utf8 if coded.contains(f.name()) => f.as_ref().clone().with_data_type(
                    ArrowType::Dictionary(Box::new(ArrowType::Int32), Box::new(ArrowType::Utf8)),
                ),
                _ => f.as_ref().clone(),
            })
            .collect();
        let schema = Arc::new(arrow::datatypes::Schema::new_with_metadata(
            fields,
            values.schema().metadata().clone(),
        ));
        let codes = ArrowReaderMetadata::try_new(metadata, options.with_schema(schema))
            .map_err(unreadable)?;
        Ok(ArrowReaders { values, codes })
    }
}

/// Whether every data page of the column chunk is dictionary-encoded (so its values decode to
/// codes into one dictionary page, never spilled into plain values).
fn all_dictionary(chunk: &ColumnChunkMetaData) -> bool {
    chunk.dictionary_page_offset().is_some()
        && chunk.page_encoding_stats_mask().is_some_and(|mask| {
            mask.is_only(Encoding::PLAIN_DICTIONARY) || mask.is_only(Encoding::RLE_DICTIONARY)
        })
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
    fn unreadable(&self, e: impl std::fmt::Display) -> SegmentError {
        file_error(
            self.path,
            format!(
                "row group {}, column '{}': {e}",
                self.row_group, self.field.name
            ),
        )
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
                sink.text(doc, value.to_string().as_bytes()).map_err(|e| {
                    e.locate(|reason| SegmentError::InputRecord {
                        file: self.path.to_path_buf(),
                        row_group: self.row_group,
                        row: self.file_row + i as u64 + 1,
                        column: self.field.name.clone(),
                        reason,
                    })
                })?;
            }
            if let Some(rows) = self.expect_rows.take() {
                sink.expect_rows(rows);
            }
        }
        Ok(())
    }

    /// A leaf column of the row group, decoded by Parquet's Arrow reader in batches of
    /// [`BATCH_RECORDS`] records (only this leaf projected), each batch fed to `sink`.
    fn read<S: CellSink>(
        &mut self,
        bytes: &Bytes,
        arrow: &ArrowReaderMetadata,
        source: &LeafSource,
        dictionaries: &mut Dictionaries,
        sink: &mut S,
    ) -> Result<(), SegmentError> {
        let mask = ProjectionMask::leaves(arrow.parquet_schema(), [source.leaf]);
        let batches =
            ParquetRecordBatchReaderBuilder::new_with_metadata(bytes.clone(), arrow.clone())
                .with_row_groups(vec![self.row_group])
                .with_projection(mask)
                .with_batch_size(BATCH_RECORDS)
                .build()
                .map_err(|e| self.unreadable(e))?;
        let mut row = 0usize;
        for batch in batches {
            let batch = batch.map_err(|e| self.unreadable(e))?;
            let place = Place {
                path: self.path,
                field: self.field,
                row_group: self.row_group,
                first_row: self.file_row + row as u64,
                first_doc: self.first + row as DocId,
                uuid: source.kind == Kind::Uuid,
            };
            feed(
                &place,
                batch.columns().first(),
                batch.num_rows(),
                dictionaries,
                sink,
            )?;
            row += batch.num_rows();
            if let Some(rows) = self.expect_rows.take() {
                sink.expect_rows(rows);
            }
        }
        Ok(())
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
    let (_, reader) = open(path, file)?;
    let rows = parquet::record::reader::RowIter::from_file_into(Box::new(reader));
    Ok(rows.map(
        |row| match row.map_err(|e| e.to_string())?.to_json_value() {
            serde_json::Value::Object(m) => Ok(m),
            other => Err(format!("a row is not a record: {other}")),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::recording_sink::{
        ROWS, RecordingSink, check_comments_and_days, comments_and_days,
    };

    #[test]
    fn sinks_hear_the_row_count_after_a_batch_and_a_date_column_gets_one_window() {
        let (schema, batch) = comments_and_days();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let props = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_row_count(Some(5_000))
            .build();
        let mut writer = parquet::arrow::ArrowWriter::try_new(
            File::create(&path).unwrap(),
            batch.schema(),
            Some(props),
        )
        .unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();

        let mut sinks = vec![RecordingSink::default(), RecordingSink::default()];
        let file = File::open(&path).unwrap();
        let docs = read_parquet(&path, file, &schema, &mut sinks, &mut |_| {}).unwrap();
        assert_eq!(docs as usize, ROWS);
        // Four row groups, one window of date texts.
        check_comments_and_days(&sinks, None);
    }
}
