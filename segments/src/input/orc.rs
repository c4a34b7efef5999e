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
use super::typed::{civil_text, date_value, decimal};
use crate::error::SegmentError;
use crate::types::{DataType, DocId, Schema, Value};
use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{
    DataType as ArrowType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type,
    Int16Type, Int32Type, Int64Type, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
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
    for batch in reader {
        let batch = batch.map_err(|e| file_error(path, format!("cannot decode: {e}")))?;
        let first = docs;
        let results: Vec<Result<(), SegmentError>> = sinks
            .par_iter_mut()
            .zip(schema.fields.par_iter())
            .map(|(sink, field)| {
                if first == 0 {
                    sink.expect_rows(total);
                }
                feed(
                    path,
                    field,
                    batch.column_by_name(&field.name),
                    first,
                    batch.num_rows(),
                    sink,
                )
            })
            .collect();
        results.into_iter().collect::<Result<(), _>>()?;
        docs += batch.num_rows() as u64;
        progress(docs);
    }
    progress(docs);
    Ok(docs as u32)
}

/// Feeds rows `0..rows` of one column of a batch (doc ids from `first`) to its sink: text and
/// the common scalar types in one typed loop each, the rest cell by cell.
fn feed<S: CellSink>(
    path: &Path,
    field: &crate::types::FieldSpec,
    column: Option<&ArrayRef>,
    first: u64,
    rows: usize,
    sink: &mut S,
) -> Result<(), SegmentError> {
    let bad = |row: usize, reason: String| SegmentError::InputRecord {
        file: path.to_path_buf(),
        row_group: 0,
        row: first + row as u64 + 1,
        column: field.name.clone(),
        reason,
    };
    let doc = |row: usize| (first + row as u64) as DocId;
    let Some(column) = column else {
        for row in 0..rows {
            sink.null(doc(row))?;
        }
        return Ok(());
    };
    // One loop per type: `$push` hands each non-null cell to the sink.
    macro_rules! typed {
        ($array:expr, |$a:ident, $row:ident| $push:expr) => {{
            let $a = $array;
            for $row in 0..rows {
                if $a.is_null($row) {
                    sink.null(doc($row))?;
                } else {
                    let outcome = $push;
                    outcome.map_err(|e| bad($row, e))?;
                }
            }
            return Ok(());
        }};
    }
    match column.data_type() {
        ArrowType::Utf8 => typed!(column.as_string::<i32>(), |a, row| match a.value(row) {
            "" => sink.value(doc(row), &Value::String(String::new()))?,
            t => sink.text(doc(row), t.as_bytes())?,
        }),
        ArrowType::Int32 => typed!(column.as_primitive::<Int32Type>(), |a, row| sink
            .value(doc(row), &Value::Int(a.value(row)))?),
        ArrowType::Int64 => typed!(column.as_primitive::<Int64Type>(), |a, row| sink
            .value(doc(row), &Value::Long(a.value(row)))?),
        ArrowType::Float64 => typed!(column.as_primitive::<Float64Type>(), |a, row| sink
            .value(doc(row), &Value::Double(a.value(row)))?),
        ArrowType::Float32 => typed!(column.as_primitive::<Float32Type>(), |a, row| sink
            .value(doc(row), &Value::Float(a.value(row)))?),
        // A date into a STRING column: its `yyyy-MM-dd` text, without allocating.
        ArrowType::Date32 if matches!(field.data_type, DataType::String | DataType::Json) => {
            typed!(column.as_primitive::<Date32Type>(), |a, row| {
                let days = i64::from(a.value(row));
                match civil_text(days) {
                    Some(text) => sink.text(doc(row), &text)?,
                    None => sink.value(doc(row), &date_value(days, field.data_type))?,
                }
            })
        }
        _ => {}
    }
    for row in 0..rows {
        if column.is_null(row) {
            sink.null(doc(row))?;
            continue;
        }
        let outcome = match cell(column, row, field.data_type).map_err(|e| bad(row, e))? {
            Cell::Text([]) => sink.value(doc(row), &Value::String(String::new()))?,
            Cell::Text(t) => sink.text(doc(row), t)?,
            Cell::Value(Value::Array(items)) if items.is_empty() => {
                sink.null(doc(row))?;
                continue;
            }
            Cell::Value(v) => sink.value(doc(row), &v)?,
        };
        outcome.map_err(|e| bad(row, e))?;
    }
    Ok(())
}

/// One decoded value: text to parse as the column's type, or a typed value.
enum Cell<'a> {
    Text(&'a [u8]),
    Value(Value),
}

/// The (non-null) cell at `row` of `a` for a column of type `dt`.
fn cell(a: &ArrayRef, row: usize, dt: DataType) -> Result<Cell<'_>, String> {
    Ok(match a.data_type() {
        ArrowType::Utf8 => Cell::Text(a.as_string::<i32>().value(row).as_bytes()),
        ArrowType::LargeUtf8 => Cell::Text(a.as_string::<i64>().value(row).as_bytes()),
        ArrowType::List(_) | ArrowType::LargeList(_) => {
            let items = match a.data_type() {
                ArrowType::List(_) => a.as_list::<i32>().value(row),
                _ => a.as_list::<i64>().value(row),
            };
            let mut out = Vec::with_capacity(items.len());
            for i in 0..items.len() {
                if items.is_null(i) {
                    continue;
                }
                out.push(match cell(&items, i, dt)? {
                    Cell::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
                    Cell::Value(v) => v,
                });
            }
            Cell::Value(Value::Array(out))
        }
        ArrowType::Struct(_) | ArrowType::Map(..) => {
            Cell::Value(Value::String(json_of(a, row).to_string()))
        }
        ArrowType::Date32 => {
            let days = i64::from(a.as_primitive::<Date32Type>().value(row));
            match civil_text(days) {
                Some(t) if matches!(dt, DataType::String | DataType::Json) => {
                    Cell::Value(Value::String(String::from_utf8_lossy(&t).into_owned()))
                }
                _ => Cell::Value(date_value(days, dt)),
            }
        }
        _ => Cell::Value(scalar(a, row)?),
    })
}

/// A scalar cell as a typed value.
fn scalar(a: &ArrayRef, row: usize) -> Result<Value, String> {
    Ok(match a.data_type() {
        ArrowType::Boolean => Value::Boolean(a.as_boolean().value(row)),
        ArrowType::Int8 => Value::Int(i32::from(a.as_primitive::<Int8Type>().value(row))),
        ArrowType::Int16 => Value::Int(i32::from(a.as_primitive::<Int16Type>().value(row))),
        ArrowType::Int32 => Value::Int(a.as_primitive::<Int32Type>().value(row)),
        ArrowType::Int64 => Value::Long(a.as_primitive::<Int64Type>().value(row)),
        ArrowType::Float32 => Value::Float(a.as_primitive::<Float32Type>().value(row)),
        ArrowType::Float64 => Value::Double(a.as_primitive::<Float64Type>().value(row)),
        ArrowType::Decimal128(_, scale) => Value::BigDecimal(decimal(
            a.as_primitive::<Decimal128Type>().value(row),
            i32::from(*scale),
        )),
        ArrowType::Timestamp(unit, _) => Value::Timestamp(match unit {
            TimeUnit::Second => a
                .as_primitive::<TimestampSecondType>()
                .value(row)
                .saturating_mul(1000),
            TimeUnit::Millisecond => a.as_primitive::<TimestampMillisecondType>().value(row),
            TimeUnit::Microsecond => a
                .as_primitive::<TimestampMicrosecondType>()
                .value(row)
                .div_euclid(1000),
            TimeUnit::Nanosecond => a
                .as_primitive::<TimestampNanosecondType>()
                .value(row)
                .div_euclid(1_000_000),
        }),
        ArrowType::Binary => Value::Bytes(a.as_binary::<i32>().value(row).to_vec()),
        ArrowType::LargeBinary => Value::Bytes(a.as_binary::<i64>().value(row).to_vec()),
        other => return Err(format!("unsupported ORC type {other}")),
    })
}

/// The cell at `row` of `a` as JSON (structs and maps as objects, lists as arrays, decimals and
/// dates as text, timestamps as epoch millis).
fn json_of(a: &ArrayRef, row: usize) -> Json {
    if a.is_null(row) {
        return Json::Null;
    }
    match a.data_type() {
        ArrowType::Utf8 => Json::from(a.as_string::<i32>().value(row)),
        ArrowType::LargeUtf8 => Json::from(a.as_string::<i64>().value(row)),
        ArrowType::Struct(fields) => {
            let s = a.as_struct();
            let mut m = Map::new();
            for (i, f) in fields.iter().enumerate() {
                m.insert(f.name().clone(), json_of(s.column(i), row));
            }
            Json::Object(m)
        }
        ArrowType::Map(..) => {
            let entries = a.as_map().value(row);
            let (keys, values) = (entries.column(0), entries.column(1));
            let mut m = Map::new();
            for i in 0..entries.len() {
                let key = match json_of(keys, i) {
                    Json::String(s) => s,
                    other => other.to_string(),
                };
                m.insert(key, json_of(values, i));
            }
            Json::Object(m)
        }
        ArrowType::List(_) | ArrowType::LargeList(_) => {
            let items = match a.data_type() {
                ArrowType::List(_) => a.as_list::<i32>().value(row),
                _ => a.as_list::<i64>().value(row),
            };
            Json::Array((0..items.len()).map(|i| json_of(&items, i)).collect())
        }
        ArrowType::Date32 => {
            let days = i64::from(a.as_primitive::<Date32Type>().value(row));
            civil_text(days).map_or(Json::from(days), |t| {
                Json::from(String::from_utf8_lossy(&t).into_owned())
            })
        }
        _ => match scalar(a, row) {
            Ok(Value::Boolean(b)) => Json::from(b),
            Ok(Value::Int(v)) => Json::from(v),
            Ok(Value::Long(v)) | Ok(Value::Timestamp(v)) => Json::from(v),
            Ok(Value::Float(v)) => Json::from(f64::from(v)),
            Ok(Value::Double(v)) => Json::from(v),
            Ok(Value::BigDecimal(d)) => Json::from(d),
            Ok(Value::Bytes(b)) => {
                Json::from(b.iter().map(|x| format!("{x:02x}")).collect::<String>())
            }
            Ok(other) => Json::from(other.to_string()),
            Err(e) => Json::from(e),
        },
    }
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
