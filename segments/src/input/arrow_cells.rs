//! Decoded Arrow columns into cell sinks: how the columnar inputs — Parquet and ORC, which their
//! crates decode into Arrow arrays — hand a batch of one column to the column's sink.
//!
//! A run of non-null cells of the common types goes to the sink in one call: numbers as a typed
//! slice ([`CellSink::numbers`]), text and dates-as-text as the cells the CSV fast path takes
//! ([`CellSink::plain_cells`]), dictionary-encoded text as codes into its dictionary
//! ([`CellSink::coded_texts`], so a sink converts each distinct text once). Every other cell
//! goes one at a time, as a typed value. Types map as Pinot's Parquet and ORC readers map them:
//!
//! | Arrow | value |
//! |---|---|
//! | Boolean, Int8–Int64, UInt8–UInt32, Float32, Float64 | the number (UInt32 as a LONG) |
//! | UInt64 | a LONG (its bits, as Java reads an unsigned 64-bit integer) |
//! | Utf8, LargeUtf8, Dictionary(Int32, Utf8) | text, parsed as the column's type (like a CSV cell) |
//! | Binary, LargeBinary, FixedSizeBinary | bytes (a Parquet `UUID` as its canonical text) |
//! | Date32 | `yyyy-MM-dd` in a STRING column, epoch millis in a TIMESTAMP, else days |
//! | Timestamp (any unit) | a timestamp (epoch millis in a LONG column) |
//! | Time32, Time64 | the number in the file's unit |
//! | Decimal32–Decimal256 | BIG_DECIMAL (exact, with the column's scale) |
//! | List, LargeList | a multi-value cell (null items skipped; an empty list is null) |
//! | Struct, Map | its JSON text (for a JSON or STRING column) |

use super::typed::{civil_text, date_value, decimal, decimal_text};
use super::{CellSink, Numbers};
use crate::error::SegmentError;
use crate::types::value::uuid_text;
use crate::types::{DataType, DocId, FieldSpec, Value};
use arrow::array::{Array, ArrayRef, AsArray, GenericStringArray, OffsetSizeTrait};
use arrow::datatypes::{
    DataType as ArrowType, Date32Type, Decimal32Type, Decimal64Type, Decimal128Type,
    Decimal256Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimeUnit,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use serde_json::{Map, Value as Json};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where a batch of one column comes from, for its doc ids and error messages.
pub(super) struct Place<'a> {
    pub path: &'a Path,
    pub field: &'a FieldSpec,
    /// The Parquet row group (0 for ORC).
    pub row_group: usize,
    /// The file row (from 0) of the batch's first row.
    pub first_row: u64,
    /// The doc of the batch's first row.
    pub first_doc: DocId,
    /// Fixed-size binary values are UUIDs (a Parquet `UUID` column): written as their text.
    pub uuid: bool,
}

impl Place<'_> {
    fn bad(&self, row: usize, reason: String) -> SegmentError {
        SegmentError::InputRecord {
            file: self.path.to_path_buf(),
            row_group: self.row_group,
            row: self.first_row + row as u64 + 1,
            column: self.field.name.clone(),
            reason,
        }
    }

    fn doc(&self, row: usize) -> DocId {
        self.first_doc + row as DocId
    }
}

/// Names the dictionaries of a column's dictionary-encoded batches for
/// [`CellSink::coded_texts`]: batches sharing a dictionary array share its name, and no two
/// dictionaries of the process get the same one (the last is held, so its address is not
/// reused while it names one).
/// A date column fed to a text sink that prefers codes gets one such dictionary too: the
/// `yyyy-MM-dd` texts of a window of [`DATE_WINDOW`] days, so each day is formatted and
/// interned once per column rather than once per row.
#[derive(Default)]
pub(super) struct Dictionaries {
    last: Option<(ArrayRef, u64)>,
    dates: Option<DateTexts>,
}

/// Days in a window of date texts (about 45 years).
const DATE_WINDOW: i32 = 1 << 14;

/// The texts of the days `first..first + DATE_WINDOW`, named as a dictionary.
struct DateTexts {
    first: i32,
    name: u64,
    /// `yyyy-MM-dd` by day (a day outside years 0–9999 has no text and is never coded).
    texts: Vec<[u8; 10]>,
}

/// The process's next dictionary name.
fn next_name() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Dictionaries {
    /// One for each of `columns` columns, kept for the whole file: a date column's window of
    /// texts is then formatted and interned once, not once per batch or row group.
    pub(super) fn per_column(columns: usize) -> Vec<Dictionaries> {
        std::iter::repeat_with(Dictionaries::default)
            .take(columns)
            .collect()
    }

    fn name(&mut self, values: &ArrayRef) -> u64 {
        match &self.last {
            Some((last, name)) if Arc::ptr_eq(last, values) => *name,
            _ => {
                let name = next_name();
                self.last = Some((Arc::clone(values), name));
                name
            }
        }
    }

    /// The window of date texts holding every day of `days`, if one does and every one of
    /// them has a text.
    fn date_window(&mut self, days: &[i32]) -> Option<&DateTexts> {
        let (lo, hi) = days
            .iter()
            .fold((i32::MAX, i32::MIN), |(lo, hi), &d| (lo.min(d), hi.max(d)));
        civil_text(i64::from(lo))?;
        civil_text(i64::from(hi))?;
        let first = lo.div_euclid(DATE_WINDOW) * DATE_WINDOW;
        if i64::from(hi) - i64::from(first) >= i64::from(DATE_WINDOW) {
            return None;
        }
        if self.dates.as_ref().is_none_or(|w| w.first != first) {
            let texts = (0..DATE_WINDOW)
                .map(|k| civil_text(i64::from(first) + i64::from(k)).unwrap_or([b'?'; 10]))
                .collect();
            self.dates = Some(DateTexts {
                first,
                name: next_name(),
                texts,
            });
        }
        self.dates.as_ref()
    }
}

/// Feeds rows `0..rows` of one column of a batch to its sink (`None`: the file lacks the column,
/// every cell is null).
pub(super) fn feed<S: CellSink>(
    place: &Place<'_>,
    column: Option<&ArrayRef>,
    rows: usize,
    dictionaries: &mut Dictionaries,
    sink: &mut S,
) -> Result<(), SegmentError> {
    let Some(column) = column else {
        for row in 0..rows {
            sink.null(place.doc(row))?;
        }
        return Ok(());
    };
    let mut scratch = Scratch {
        dictionaries,
        numbers: Vec::new(),
        dates: Vec::new(),
        keys: Vec::new(),
    };
    match column.logical_nulls() {
        None => run(place, column, 0, rows, sink, &mut scratch),
        Some(nulls) => {
            let mut at = 0;
            for (start, end) in nulls.valid_slices() {
                for row in at..start {
                    sink.null(place.doc(row))?;
                }
                run(place, column, start, end, sink, &mut scratch)?;
                at = end;
            }
            for row in at..rows {
                sink.null(place.doc(row))?;
            }
            Ok(())
        }
    }
}

/// Reused buffers for values converted before they go to a sink as a run, and the column's
/// dictionary names.
struct Scratch<'d> {
    dictionaries: &'d mut Dictionaries,
    numbers: Vec<i64>,
    dates: Vec<[u8; 10]>,
    keys: Vec<i32>,
}

/// Feeds the non-null rows `start..end` of `column`.
fn run<S: CellSink>(
    place: &Place<'_>,
    column: &ArrayRef,
    start: usize,
    end: usize,
    sink: &mut S,
    scratch: &mut Scratch<'_>,
) -> Result<(), SegmentError> {
    let dt = place.field.data_type;
    let numbers = |sink: &mut S, values: Numbers<'_>| -> Result<(), SegmentError> {
        sink.numbers(place.doc(start), values)
            .map_err(|e| e.locate(|(i, reason)| place.bad(start + i, reason)))
    };
    match column.data_type() {
        ArrowType::Int32 => {
            let v = &column.as_primitive::<Int32Type>().values()[start..end];
            numbers(sink, Numbers::I32(v))
        }
        ArrowType::Int64 => {
            let v = &column.as_primitive::<Int64Type>().values()[start..end];
            numbers(sink, Numbers::I64(v))
        }
        ArrowType::Float32 => {
            let v = &column.as_primitive::<Float32Type>().values()[start..end];
            numbers(sink, Numbers::F32(v))
        }
        ArrowType::Float64 => {
            let v = &column.as_primitive::<Float64Type>().values()[start..end];
            numbers(sink, Numbers::F64(v))
        }
        ArrowType::Timestamp(unit, _) => {
            let millis = &mut scratch.numbers;
            millis.clear();
            millis.extend((start..end).map(|row| timestamp_millis(column, *unit, row)));
            numbers(sink, Numbers::Millis(millis))
        }
        ArrowType::Date32 => {
            let days = &column.as_primitive::<Date32Type>().values()[start..end];
            if matches!(dt, DataType::String | DataType::Json)
                && sink.prefers_coded_texts()
                && let Some(window) = scratch.dictionaries.date_window(days)
            {
                // Codes into the window's texts: each day is formatted and interned once.
                let keys = &mut scratch.keys;
                keys.clear();
                keys.extend(days.iter().map(|&d| d - window.first));
                sink.coded_texts(
                    place.doc(start),
                    window.name,
                    window.texts.len(),
                    |k| &window.texts[k],
                    keys,
                )
                .map_err(|e| e.locate(|(i, reason)| place.bad(start + i, reason)))
            } else if matches!(dt, DataType::String | DataType::Json) {
                // `yyyy-MM-dd` text, as a CSV date cell; a year beyond 9999 goes alone.
                let texts = &mut scratch.dates;
                texts.clear();
                texts.extend(days.iter().map_while(|&d| civil_text(i64::from(d))));
                let taken = texts.len();
                texts_run(place, start, taken, |k| &texts[k], true, sink)?;
                for row in start + taken..end {
                    cell_by_cell(place, column, row, sink)?;
                }
                Ok(())
            } else {
                let out = &mut scratch.numbers;
                out.clear();
                out.extend(days.iter().map(|&d| i64::from(d)));
                if dt == DataType::Timestamp {
                    out.iter_mut().for_each(|d| *d *= 86_400_000);
                    numbers(sink, Numbers::Millis(out))
                } else {
                    numbers(sink, Numbers::I64(out))
                }
            }
        }
        ArrowType::Utf8 => strings_run(place, column.as_string::<i32>(), start, end, sink),
        ArrowType::LargeUtf8 => strings_run(place, column.as_string::<i64>(), start, end, sink),
        // Parquet's reader keeps a dictionary-encoded text column's codes when asked to.
        ArrowType::Dictionary(key, value)
            if **key == ArrowType::Int32 && **value == ArrowType::Utf8 =>
        {
            let a = column.as_dictionary::<Int32Type>();
            let entries = a.values().as_string::<i32>();
            let name = scratch.dictionaries.name(a.values());
            sink.coded_texts(
                place.doc(start),
                name,
                entries.len(),
                |k| entries.value(k).as_bytes(),
                &a.keys().values()[start..end],
            )
            .map_err(|e| e.locate(|(i, reason)| place.bad(start + i, reason)))
        }
        _ => (start..end).try_for_each(|row| cell_by_cell(place, column, row, sink)),
    }
}

/// Feeds the non-null rows `start..end` of a string array.
fn strings_run<O: OffsetSizeTrait, S: CellSink>(
    place: &Place<'_>,
    a: &GenericStringArray<O>,
    start: usize,
    end: usize,
    sink: &mut S,
) -> Result<(), SegmentError> {
    // The run's bytes only: a column with nulls is fed a run at a time.
    let offsets = a.value_offsets();
    let ascii = a.values()[offsets[start].as_usize()..offsets[end].as_usize()].is_ascii();
    let text = |k: usize| a.value(start + k).as_bytes();
    texts_run(place, start, end - start, text, ascii, sink)
}

/// Feeds `n` non-null text cells `text(0..n)` of the docs from `start`: runs the sink's fast
/// path takes whole, and each cell it stops at (an empty string, text it must check or parse
/// the slow way) alone.
fn texts_run<'t, S: CellSink>(
    place: &Place<'_>,
    start: usize,
    n: usize,
    text: impl Fn(usize) -> &'t [u8] + Copy,
    ascii: bool,
    sink: &mut S,
) -> Result<(), SegmentError> {
    let mut i = 0;
    while i < n {
        let from = i;
        i += sink.plain_cells(n - from, ascii, |k| text(from + k))?;
        if i == n {
            break;
        }
        let doc = place.doc(start + i);
        match text(i) {
            [] => sink.value(doc, &Value::String(String::new())),
            t => sink.text(doc, t),
        }
        .map_err(|e| e.locate(|reason| place.bad(start + i, reason)))?;
        i += 1;
    }
    Ok(())
}

/// Feeds the non-null cell at `row` on its own.
fn cell_by_cell<S: CellSink>(
    place: &Place<'_>,
    column: &ArrayRef,
    row: usize,
    sink: &mut S,
) -> Result<(), SegmentError> {
    let doc = place.doc(row);
    let cell = cell(column, row, place.field.data_type, place.uuid)
        .map_err(|reason| place.bad(row, reason))?;
    match cell {
        Cell::Text([]) => sink.value(doc, &Value::String(String::new())),
        Cell::Text(t) => sink.text(doc, t),
        Cell::Value(Value::Array(items)) if items.is_empty() => return sink.null(doc),
        Cell::Value(v) => sink.value(doc, &v),
    }
    .map_err(|e| e.locate(|reason| place.bad(row, reason)))
}

/// One decoded value: text to parse as the column's type, or a typed value.
enum Cell<'a> {
    Text(&'a [u8]),
    Value(Value),
}

/// The (non-null) cell at `row` of `a` for a column of type `dt`.
fn cell(a: &ArrayRef, row: usize, dt: DataType, uuids: bool) -> Result<Cell<'_>, String> {
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
                out.push(match cell(&items, i, dt, uuids)? {
                    Cell::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
                    Cell::Value(v) => v,
                });
            }
            Cell::Value(Value::Array(out))
        }
        ArrowType::Struct(_) | ArrowType::Map(..) => {
            Cell::Value(Value::String(json_of(a, row).to_string()))
        }
        ArrowType::Date32 => Cell::Value(date_value(
            i64::from(a.as_primitive::<Date32Type>().value(row)),
            dt,
        )),
        ArrowType::FixedSizeBinary(16) if uuids => Cell::Value(Value::String(uuid_text(
            a.as_fixed_size_binary().value(row),
        ))),
        _ => Cell::Value(scalar(a, row)?),
    })
}

/// Epoch milliseconds of the timestamp at `row` (floored, as Pinot's readers).
fn timestamp_millis(a: &ArrayRef, unit: TimeUnit, row: usize) -> i64 {
    match unit {
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
    }
}

/// A scalar cell as a typed value.
fn scalar(a: &ArrayRef, row: usize) -> Result<Value, String> {
    Ok(match a.data_type() {
        ArrowType::Boolean => Value::Boolean(a.as_boolean().value(row)),
        ArrowType::Int8 => Value::Int(i32::from(a.as_primitive::<Int8Type>().value(row))),
        ArrowType::Int16 => Value::Int(i32::from(a.as_primitive::<Int16Type>().value(row))),
        ArrowType::Int32 => Value::Int(a.as_primitive::<Int32Type>().value(row)),
        ArrowType::Int64 => Value::Long(a.as_primitive::<Int64Type>().value(row)),
        ArrowType::UInt8 => Value::Int(i32::from(a.as_primitive::<UInt8Type>().value(row))),
        ArrowType::UInt16 => Value::Int(i32::from(a.as_primitive::<UInt16Type>().value(row))),
        ArrowType::UInt32 => Value::Long(i64::from(a.as_primitive::<UInt32Type>().value(row))),
        ArrowType::UInt64 => Value::Long(a.as_primitive::<UInt64Type>().value(row) as i64),
        ArrowType::Float32 => Value::Float(a.as_primitive::<Float32Type>().value(row)),
        ArrowType::Float64 => Value::Double(a.as_primitive::<Float64Type>().value(row)),
        ArrowType::Time32(TimeUnit::Second) => {
            Value::Int(a.as_primitive::<Time32SecondType>().value(row))
        }
        ArrowType::Time32(_) => Value::Int(a.as_primitive::<Time32MillisecondType>().value(row)),
        ArrowType::Time64(TimeUnit::Microsecond) => {
            Value::Long(a.as_primitive::<Time64MicrosecondType>().value(row))
        }
        ArrowType::Time64(_) => Value::Long(a.as_primitive::<Time64NanosecondType>().value(row)),
        ArrowType::Decimal32(_, scale) => Value::BigDecimal(decimal(
            i128::from(a.as_primitive::<Decimal32Type>().value(row)),
            i32::from(*scale),
        )),
        ArrowType::Decimal64(_, scale) => Value::BigDecimal(decimal(
            i128::from(a.as_primitive::<Decimal64Type>().value(row)),
            i32::from(*scale),
        )),
        ArrowType::Decimal128(_, scale) => Value::BigDecimal(decimal(
            a.as_primitive::<Decimal128Type>().value(row),
            i32::from(*scale),
        )),
        ArrowType::Decimal256(_, scale) => {
            let v = a.as_primitive::<Decimal256Type>().value(row);
            Value::BigDecimal(match v.to_i128() {
                Some(v) => decimal(v, i32::from(*scale)),
                None => decimal_text(&v.to_string(), i32::from(*scale)),
            })
        }
        ArrowType::Timestamp(unit, _) => Value::Timestamp(timestamp_millis(a, *unit, row)),
        ArrowType::Binary => Value::Bytes(a.as_binary::<i32>().value(row).to_vec()),
        ArrowType::LargeBinary => Value::Bytes(a.as_binary::<i64>().value(row).to_vec()),
        ArrowType::FixedSizeBinary(_) => Value::Bytes(a.as_fixed_size_binary().value(row).to_vec()),
        other => return Err(format!("unsupported type {other}")),
    })
}

/// The cell at `row` of `a` as JSON (structs and maps as objects, lists as arrays, decimals and
/// dates as text, timestamps as epoch millis).
pub(super) fn json_of(a: &ArrayRef, row: usize) -> Json {
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
