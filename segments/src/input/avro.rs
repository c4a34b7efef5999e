//! Avro object container files (`.avro`, any codec Avro writers use by default: null, deflate,
//! snappy), read record by record with `apache-avro`. A schema column takes the top-level record
//! field of the same name; types map as Pinot's Avro reader maps them:
//!
//! | Avro | value |
//! |---|---|
//! | boolean, int, long, float, double | the number |
//! | string, enum | text, parsed as the column's type (like a CSV cell) |
//! | bytes, fixed | bytes |
//! | `date` | `yyyy-MM-dd` in a STRING column, epoch millis in a TIMESTAMP, else days |
//! | `timestamp-millis/micros/nanos` (also `local-`) | a timestamp (epoch millis in a LONG) |
//! | `decimal` | BIG_DECIMAL (exact, with the field's scale) |
//! | `uuid` | its text |
//! | array | a multi-value cell (null items skipped) |
//! | map, record | its JSON text (for a JSON or STRING column) |
//! | union | its branch; `null` is a null cell |
//!
//! A missing field is null (the column's default null value). A cell the column cannot hold is an
//! error naming the file, the record (1-based) and the column.

use super::CellSink;
use super::typed::{date_value, decimal, unscaled};
use crate::error::SegmentError;
use crate::types::{DataType, DocId, Schema, Value};
use apache_avro::Reader;
use apache_avro::schema::Schema as AvroSchema;
use apache_avro::types::Value as Avro;
use std::io::Read;
use std::path::Path;

/// Records between progress calls.
const PROGRESS_EVERY: u64 = 65_536;

fn file_error(path: &Path, reason: impl Into<String>) -> SegmentError {
    SegmentError::InputFile {
        file: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// The decimal scale of a field's schema (through a nullable union), if it is a decimal.
fn decimal_scale(schema: &AvroSchema) -> Option<usize> {
    match schema {
        AvroSchema::Decimal(d) => Some(d.scale),
        AvroSchema::Union(u) => u.variants().iter().find_map(decimal_scale),
        AvroSchema::Array(a) => decimal_scale(&a.items),
        _ => None,
    }
}

/// The staging type of a field's schema (for ingestion transforms) and whether it is
/// single-value.
fn staging_type(schema: &AvroSchema) -> (DataType, bool) {
    match schema {
        AvroSchema::Union(u) => u
            .variants()
            .iter()
            .find(|v| !matches!(v, AvroSchema::Null))
            .map_or((DataType::String, true), staging_type),
        AvroSchema::Array(a) => (staging_type(&a.items).0, false),
        AvroSchema::Boolean => (DataType::Boolean, true),
        AvroSchema::Int
        | AvroSchema::Long
        | AvroSchema::Date
        | AvroSchema::TimeMillis
        | AvroSchema::TimeMicros => (DataType::Long, true),
        AvroSchema::TimestampMillis
        | AvroSchema::TimestampMicros
        | AvroSchema::TimestampNanos
        | AvroSchema::LocalTimestampMillis
        | AvroSchema::LocalTimestampMicros
        | AvroSchema::LocalTimestampNanos => (DataType::Timestamp, true),
        AvroSchema::Float
        | AvroSchema::Double
        | AvroSchema::Decimal(_)
        | AvroSchema::BigDecimal => (DataType::Double, true),
        AvroSchema::Bytes | AvroSchema::Fixed(_) => (DataType::Bytes, true),
        _ => (DataType::String, true),
    }
}

/// The top-level fields of the Avro file `path` as staging columns: name, type, single-value.
pub fn avro_columns(path: &Path) -> Result<Vec<(String, DataType, bool)>, SegmentError> {
    let file = std::fs::File::open(path).map_err(|e| SegmentError::io(path, e))?;
    let reader = Reader::new(std::io::BufReader::new(file))
        .map_err(|e| file_error(path, format!("not a readable Avro file: {e}")))?;
    let AvroSchema::Record(record) = reader.writer_schema() else {
        return Err(file_error(path, "the Avro file's schema is not a record"));
    };
    Ok(record
        .fields
        .iter()
        .map(|f| {
            let (dt, single) = staging_type(&f.schema);
            (f.name.clone(), dt, single)
        })
        .collect())
}

/// Reads the Avro file `path` into one sink per schema column; returns the number of rows.
pub fn read_avro<S: CellSink>(
    path: &Path,
    file: impl Read,
    schema: &Schema,
    sinks: &mut [S],
    progress: &mut dyn FnMut(u64),
) -> Result<u32, SegmentError> {
    let reader = Reader::new(std::io::BufReader::with_capacity(1 << 20, file))
        .map_err(|e| file_error(path, format!("not a readable Avro file: {e}")))?;
    let AvroSchema::Record(record) = reader.writer_schema() else {
        return Err(file_error(path, "the Avro file's schema is not a record"));
    };
    // Each schema column's position among the record's fields, and its decimal scale.
    let slots: Vec<Option<(usize, Option<usize>)>> = schema
        .fields
        .iter()
        .map(|f| {
            record
                .fields
                .iter()
                .position(|r| r.name == f.name)
                .map(|i| (i, decimal_scale(&record.fields[i].schema)))
        })
        .collect();
    let mut docs: u64 = 0;
    for row in reader {
        let row = row.map_err(|e| file_error(path, format!("record {}: {e}", docs + 1)))?;
        let Avro::Record(fields) = row else {
            return Err(file_error(
                path,
                format!("record {} is not an Avro record", docs + 1),
            ));
        };
        if docs >= u64::from(u32::MAX - 1) {
            return Err(file_error(path, "a segment holds at most 2^32 - 2 rows"));
        }
        let doc = docs as DocId;
        for ((slot, sink), field) in slots.iter().zip(sinks.iter_mut()).zip(&schema.fields) {
            let bad = |reason: String| SegmentError::InputRecord {
                file: path.to_path_buf(),
                row_group: 0,
                row: docs + 1,
                column: field.name.clone(),
                reason,
            };
            let Some((at, scale)) = slot else {
                sink.null(doc)?;
                continue;
            };
            let Some((_, v)) = fields.get(*at) else {
                sink.null(doc)?;
                continue;
            };
            let outcome = match cell(v, field.data_type, *scale) {
                None => {
                    sink.null(doc)?;
                    continue;
                }
                Some(Cell::Text(t)) if !t.is_empty() => sink.text(doc, t.as_bytes()),
                Some(Cell::Text(t)) => sink.value(doc, &Value::String(t.to_string())),
                Some(Cell::Value(Value::Array(items))) if items.is_empty() => {
                    sink.null(doc)?;
                    continue;
                }
                Some(Cell::Value(v)) => sink.value(doc, &v),
            };
            outcome.map_err(|e| e.locate(bad))?;
        }
        docs += 1;
        if docs.is_multiple_of(PROGRESS_EVERY) {
            progress(docs);
        }
    }
    progress(docs);
    Ok(docs as u32)
}

/// One Avro value as a cell: text to parse as the column's type, or a typed value.
enum Cell<'a> {
    Text(&'a str),
    Value(Value),
}

/// The cell of `v` for a column of `dt` (None: null).
fn cell(v: &Avro, dt: DataType, scale: Option<usize>) -> Option<Cell<'_>> {
    Some(match v {
        Avro::Null => return None,
        Avro::Union(_, inner) => return cell(inner, dt, scale),
        Avro::String(s) | Avro::Enum(_, s) => Cell::Text(s),
        Avro::Array(items) => Cell::Value(Value::Array(
            items
                .iter()
                .filter_map(|i| match cell(i, dt, scale)? {
                    Cell::Text(t) => Some(Value::String(t.to_string())),
                    Cell::Value(v) => Some(v),
                })
                .collect(),
        )),
        other => Cell::Value(scalar(other, dt, scale)),
    })
}

/// A non-null, non-text Avro value.
fn scalar(v: &Avro, dt: DataType, scale: Option<usize>) -> Value {
    match v {
        Avro::Boolean(b) => Value::Boolean(*b),
        Avro::Int(i) | Avro::TimeMillis(i) => Value::Int(*i),
        Avro::Long(l) | Avro::TimeMicros(l) => Value::Long(*l),
        Avro::Float(f) => Value::Float(*f),
        Avro::Double(d) => Value::Double(*d),
        Avro::Bytes(b) | Avro::Fixed(_, b) => match scale {
            Some(s) => bytes_decimal(b, s),
            None => Value::Bytes(b.clone()),
        },
        Avro::Date(days) => date_value(i64::from(*days), dt),
        Avro::TimestampMillis(ms) | Avro::LocalTimestampMillis(ms) => Value::Timestamp(*ms),
        Avro::TimestampMicros(us) | Avro::LocalTimestampMicros(us) => {
            Value::Timestamp(us.div_euclid(1_000))
        }
        Avro::TimestampNanos(ns) | Avro::LocalTimestampNanos(ns) => {
            Value::Timestamp(ns.div_euclid(1_000_000))
        }
        Avro::Decimal(d) => match Vec::<u8>::try_from(d) {
            Ok(b) => bytes_decimal(&b, scale.unwrap_or(0)),
            Err(_) => Value::Null,
        },
        Avro::BigDecimal(d) => Value::BigDecimal(d.to_string()),
        Avro::Uuid(u) => Value::String(u.to_string()),
        Avro::Map(_) | Avro::Record(_) | Avro::Duration(_) => {
            let json = serde_json::Value::try_from(v.clone())
                .map(|j| j.to_string())
                .unwrap_or_default();
            if dt == DataType::Json {
                Value::Json(json)
            } else {
                Value::String(json)
            }
        }
        // Text, arrays, unions and null are handled by `cell`.
        Avro::Null | Avro::String(_) | Avro::Enum(..) | Avro::Union(..) | Avro::Array(_) => {
            Value::Null
        }
    }
}

fn bytes_decimal(b: &[u8], scale: usize) -> Value {
    match unscaled(b) {
        Some(u) => Value::BigDecimal(decimal(u, i32::try_from(scale).unwrap_or(i32::MAX))),
        None => Value::Bytes(b.to_vec()),
    }
}

/// The Avro file's records as JSON objects (Avro's own JSON form: records and maps as objects,
/// arrays as arrays, unions as their branch), for inputs that need whole records
/// (`complexTypeConfig`).
pub(super) fn records<R: Read + Send + 'static>(
    path: &Path,
    file: R,
) -> Result<
    impl Iterator<Item = Result<serde_json::Map<String, serde_json::Value>, String>> + Send + use<R>,
    SegmentError,
> {
    let reader = Reader::new(std::io::BufReader::with_capacity(1 << 20, file))
        .map_err(|e| file_error(path, format!("not a readable Avro file: {e}")))?;
    Ok(reader.map(|row| {
        let row = row.map_err(|e| e.to_string())?;
        match serde_json::Value::try_from(row).map_err(|e| e.to_string())? {
            serde_json::Value::Object(m) => Ok(m),
            other => Err(format!("not an Avro record: {other}")),
        }
    }))
}

/// One Avro datum written with `schema` — a stream message's body, without a container file's
/// header — as the JSON record the stream decoders hand on. Values map as the table above says,
/// written so a column parses them back: bytes and fixed as hex, decimals as their exact text,
/// timestamps as epoch millis, records and maps as objects, unions as their branch.
pub fn datum_record(
    schema: &AvroSchema,
    mut bytes: &[u8],
) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    let datum = apache_avro::reader::datum::GenericDatumReader::builder(schema)
        .build()
        .and_then(|r| r.read_value(&mut bytes))
        .map_err(|e| format!("not an Avro record of the schema: {e}"))?;
    match datum_json(&datum, Some(schema)) {
        serde_json::Value::Object(m) => Ok(m),
        other => Err(format!("the Avro message is not a record: {other}")),
    }
}

/// `v` (of `schema`, where known) as JSON.
fn datum_json(v: &Avro, schema: Option<&AvroSchema>) -> serde_json::Value {
    use serde_json::Value as J;
    let number = |f: f64| serde_json::Number::from_f64(f).map_or(J::Null, J::Number);
    let scale = schema.and_then(decimal_scale);
    match v {
        Avro::Null => J::Null,
        Avro::Boolean(b) => J::Bool(*b),
        Avro::Int(i) | Avro::Date(i) | Avro::TimeMillis(i) => J::from(*i),
        Avro::Long(l) | Avro::TimeMicros(l) => J::from(*l),
        Avro::TimestampMillis(ms) | Avro::LocalTimestampMillis(ms) => J::from(*ms),
        Avro::TimestampMicros(us) | Avro::LocalTimestampMicros(us) => J::from(us.div_euclid(1_000)),
        Avro::TimestampNanos(ns) | Avro::LocalTimestampNanos(ns) => {
            J::from(ns.div_euclid(1_000_000))
        }
        Avro::Float(f) => number(f64::from(*f)),
        Avro::Double(d) => number(*d),
        Avro::String(s) | Avro::Enum(_, s) => J::String(s.clone()),
        Avro::Uuid(u) => J::String(u.to_string()),
        Avro::Bytes(b) | Avro::Fixed(_, b) => match scale.map(|s| bytes_decimal(b, s)) {
            Some(Value::BigDecimal(text)) => J::String(text),
            _ => J::String(crate::types::value::encode_hex(b)),
        },
        Avro::Decimal(d) => match Vec::<u8>::try_from(d) {
            Ok(b) => match bytes_decimal(&b, scale.unwrap_or(0)) {
                Value::BigDecimal(text) => J::String(text),
                _ => J::Null,
            },
            Err(_) => J::Null,
        },
        Avro::BigDecimal(d) => J::String(d.to_string()),
        Avro::Duration(_) => J::try_from(v.clone()).unwrap_or(J::Null),
        Avro::Union(i, inner) => {
            let branch = match schema {
                Some(AvroSchema::Union(u)) => u.variants().get(*i as usize),
                _ => None,
            };
            datum_json(inner, branch)
        }
        Avro::Array(items) => {
            let of = match schema {
                Some(AvroSchema::Array(a)) => Some(&*a.items),
                _ => None,
            };
            J::Array(items.iter().map(|i| datum_json(i, of)).collect())
        }
        Avro::Map(entries) => {
            let of = match schema {
                Some(AvroSchema::Map(m)) => Some(&*m.types),
                _ => None,
            };
            J::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), datum_json(v, of)))
                    .collect(),
            )
        }
        Avro::Record(fields) => {
            let record = match schema {
                Some(AvroSchema::Record(r)) => Some(r),
                _ => None,
            };
            J::Object(
                fields
                    .iter()
                    .map(|(name, v)| {
                        let of = record
                            .and_then(|r| r.lookup.get(name))
                            .and_then(|&i| record?.fields.get(i))
                            .map(|f| &f.schema);
                        (name.clone(), datum_json(v, of))
                    })
                    .collect(),
            )
        }
    }
}
