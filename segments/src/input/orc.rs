//! ORC files (`.orc`, any codec ORC writers use: none, zlib, snappy, lz4, zstd), read with
//! `orc-rust` into Arrow record batches, a stripe at a time, only the schema's columns decoded. A
//! schema column takes the top-level field of the same name; types map as Pinot's ORC reader maps
//! them:
//!
//! | ORC | value |
//! |---|---|
//! | boolean, tinyint, smallint, int, bigint, float, double | the number |
//! | string, varchar, char | text, parsed as the column's type (like a CSV cell) |
//! | binary | bytes |
//! | date | `yyyy-MM-dd` in a STRING column, epoch millis in a TIMESTAMP, else days |
//! | timestamp | a timestamp (epoch millis in a LONG) |
//! | decimal | BIG_DECIMAL (exact, with the column's scale) |
//! | list | a multi-value cell (null items skipped) |
//! | map, struct | its JSON text (for a JSON or STRING column) |
//!
//! A missing field is null. A cell the column cannot hold is an error naming the file, the stripe
//! batch's row and the column.

use super::CellSink;
use super::arrow_cells::{Dictionaries, Place, feed, json_of};
use crate::error::SegmentError;
use crate::types::{DataType, DocId, Schema};
use arrow::datatypes::DataType as ArrowType;
use orc_rust::ArrowReaderBuilder;
use orc_rust::projection::ProjectionMask;
use rayon::prelude::*;
use serde_json::{Map, Value as Json};
use std::fs::File;
use std::path::Path;

/// Rows per decoded batch.
const BATCH_ROWS: usize = 8192;

fn file_error(path: &Path, reason: impl Into<String>) -> SegmentError {
    SegmentError::InputFile {
        file: path.to_path_buf(),
        reason: reason.into(),
    }
}

fn builder(path: &Path, file: File) -> Result<ArrowReaderBuilder<File>, SegmentError> {
    ArrowReaderBuilder::try_new(file)
        .map_err(|e| file_error(path, format!("not a readable ORC file: {e}")))
}

/// The staging type of an Arrow type (for ingestion transforms) and whether it is single-value.
fn staging_type(t: &ArrowType) -> (DataType, bool) {
    match t {
        ArrowType::Boolean => (DataType::Boolean, true),
        ArrowType::Int8 | ArrowType::Int16 | ArrowType::Int32 | ArrowType::Int64 => {
            (DataType::Long, true)
        }
        ArrowType::Date32 | ArrowType::Date64 => (DataType::Long, true),
        ArrowType::Timestamp(..) => (DataType::Timestamp, true),
        ArrowType::Float32 | ArrowType::Float64 | ArrowType::Decimal128(..) => {
            (DataType::Double, true)
        }
        ArrowType::Binary | ArrowType::LargeBinary => (DataType::Bytes, true),
        ArrowType::List(f) | ArrowType::LargeList(f) => (staging_type(f.data_type()).0, false),
        _ => (DataType::String, true),
    }
}

/// The top-level columns of the ORC file `path` as staging columns: name, type, single-value.
pub fn orc_columns(path: &Path) -> Result<Vec<(String, DataType, bool)>, SegmentError> {
    let file = File::open(path).map_err(|e| SegmentError::io(path, e))?;
    let schema = builder(path, file)?.schema();
    Ok(schema
        .fields()
        .iter()
        .map(|f| {
            let (dt, single) = staging_type(f.data_type());
            (f.name().clone(), dt, single)
        })
        .collect())
}

/// Reads the ORC file `path` into one sink per schema column; returns the number of rows.
pub fn read_orc<S: CellSink>(
    path: &Path,
    file: File,
    schema: &Schema,
    sinks: &mut [S],
    progress: &mut dyn FnMut(u64),
) -> Result<u32, SegmentError> {
    let b = builder(path, file)?;
    let total = b.file_metadata().number_of_rows();
    if total >= u64::from(u32::MAX) {
        return Err(file_error(path, "a segment holds at most 2^32 - 2 rows"));
    }
    // Decode only the columns the table keeps (by their ORC column index).
    let root = b.file_metadata().root_data_type();
    let wanted: Vec<usize> = root
        .children()
        .iter()
        .filter(|c| schema.fields.iter().any(|s| s.name == c.name()))
        .map(|c| c.data_type().column_index())
        .collect();
    let mask = ProjectionMask::roots(root, wanted);
    let reader = b.with_projection(mask).with_batch_size(BATCH_ROWS).build();
    let mut docs: u64 = 0;
    let mut dictionaries = Dictionaries::per_column(schema.fields.len());
    for batch in reader {
        let batch = batch.map_err(|e| file_error(path, format!("cannot decode: {e}")))?;
        let first = docs;
        let results: Vec<Result<(), SegmentError>> = sinks
            .par_iter_mut()
            .zip(dictionaries.par_iter_mut())
            .zip(schema.fields.par_iter())
            .map(|((sink, dictionaries), field)| {
                let place = Place {
                    path,
                    field,
                    row_group: 0,
                    first_row: first,
                    first_doc: first as DocId,
                    uuid: false,
                };
                let column = batch.column_by_name(&field.name);
                feed(&place, column, batch.num_rows(), dictionaries, sink)?;
                if first == 0 {
                    // After the first batch, so the sink judges its column by values it has
                    // seen (a free-text column then keeps every value instead of hashing each).
                    sink.expect_rows(total);
                }
                Ok(())
            })
            .collect();
        results.into_iter().collect::<Result<(), _>>()?;
        docs += batch.num_rows() as u64;
        progress(docs);
    }
    progress(docs);
    Ok(docs as u32)
}

/// The ORC file's rows as JSON objects, for inputs that need whole records
/// (`complexTypeConfig`).
pub(super) fn records(
    path: &Path,
    file: File,
) -> Result<impl Iterator<Item = Result<Map<String, Json>, String>> + Send + use<>, SegmentError> {
    let reader = builder(path, file)?.with_batch_size(BATCH_ROWS).build();
    Ok(reader.flat_map(|batch| {
        let rows: Vec<Result<Map<String, Json>, String>> = match batch {
            Err(e) => vec![Err(format!("cannot decode: {e}"))],
            Ok(batch) => {
                let schema = batch.schema();
                (0..batch.num_rows())
                    .map(|row| {
                        Ok(schema
                            .fields()
                            .iter()
                            .zip(batch.columns())
                            .map(|(f, c)| (f.name().clone(), json_of(c, row)))
                            .collect())
                    })
                    .collect()
            }
        };
        rows
    }))
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
        let path = dir.path().join("t.orc");
        let mut writer =
            orc_rust::ArrowWriterBuilder::new(File::create(&path).unwrap(), batch.schema())
                .try_build()
                .unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();

        let mut sinks = vec![RecordingSink::default(), RecordingSink::default()];
        let file = File::open(&path).unwrap();
        let docs = read_orc(&path, file, &schema, &mut sinks, &mut |_| {}).unwrap();
        assert_eq!(docs as usize, ROWS);
        // Three batches, one window of date texts.
        check_comments_and_days(&sinks, Some(BATCH_ROWS));
    }
}
