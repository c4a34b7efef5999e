//! A [`CellSink`] for reader tests that records how a reader fed it: the cells it got, how many
//! it had when told the file's row count, and the dictionaries its coded texts named.

use super::{CellError, CellSink, RunError};
use crate::error::SegmentError;
use crate::types::{DocId, Value};
use std::collections::BTreeSet;

#[derive(Default)]
pub struct RecordingSink {
    /// Every cell, as text (numbers formatted, nulls as `None`), in the order fed.
    pub cells: Vec<Option<String>>,
    /// For each `expect_rows(rows)`: the cells fed before it, and `rows`.
    pub expected: Vec<(usize, u64)>,
    /// The names of the dictionaries coded texts came from.
    pub dictionaries: BTreeSet<u64>,
}

impl CellSink for RecordingSink {
    fn text(&mut self, _: DocId, text: &[u8]) -> Result<(), CellError> {
        self.cells
            .push(Some(String::from_utf8_lossy(text).into_owned()));
        Ok(())
    }
    fn json(&mut self, _: DocId, v: &serde_json::Value) -> Result<(), CellError> {
        self.cells.push(Some(v.to_string()));
        Ok(())
    }
    fn value(&mut self, _: DocId, v: &Value) -> Result<(), CellError> {
        self.cells.push(Some(v.to_string()));
        Ok(())
    }
    fn null(&mut self, _: DocId) -> Result<(), SegmentError> {
        self.cells.push(None);
        Ok(())
    }
    fn prefers_coded_texts(&self) -> bool {
        true
    }
    fn coded_texts<'e>(
        &mut self,
        first: DocId,
        dictionary: u64,
        entries: usize,
        entry: impl Fn(usize) -> &'e [u8],
        keys: &[i32],
    ) -> Result<(), RunError> {
        self.dictionaries.insert(dictionary);
        super::coded_texts_one_by_one(self, first, entries, entry, keys)
    }
    fn expect_rows(&mut self, rows: u64) {
        self.expected.push((self.cells.len(), rows));
    }
}

/// The rows of [`comments_and_days`].
pub const ROWS: usize = 20_000;

/// [`ROWS`] rows for reader tests: `comment`, a text distinct in every row, and `day`, a date
/// (days 9000, 9001, … 11999, 9000, …: 1994-08-23 onwards), both read into STRING columns.
pub fn comments_and_days() -> (crate::types::Schema, arrow::array::RecordBatch) {
    let rows = ROWS;
    use arrow::array::{Date32Array, RecordBatch, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};
    use std::sync::Arc;
    let schema = crate::types::Schema::from_json(
        r#"{"schemaName": "t", "dimensionFieldSpecs": [
            {"name": "comment", "dataType": "STRING"}, {"name": "day", "dataType": "STRING"}]}"#,
    )
    .expect("schema");
    let arrow = Arc::new(Schema::new(vec![
        Field::new("comment", DataType::Utf8, false),
        Field::new("day", DataType::Date32, false),
    ]));
    let batch = RecordBatch::try_new(
        arrow,
        vec![
            Arc::new(StringArray::from_iter_values(
                (0..rows).map(|i| format!("comment number {i}")),
            )),
            Arc::new(Date32Array::from_iter_values(
                (0..rows).map(|i| 9000 + (i % 3000) as i32),
            )),
        ],
    )
    .expect("batch");
    (schema, batch)
}

/// Checks what a reader fed two sinks of [`comments_and_days`]: every cell, the row count told
/// once after a first batch of `first_batch` values (`None`: some batch), and one window of date
/// texts for the whole file.
pub fn check_comments_and_days(sinks: &[RecordingSink], first_batch: Option<usize>) {
    let rows = ROWS;
    for sink in sinks {
        assert_eq!(sink.cells.len(), rows);
        assert_eq!(sink.expected.len(), 1, "told once: {:?}", sink.expected);
        let (fed, told) = sink.expected[0];
        // After values were fed: a sink judges its column by them.
        assert!(fed >= 1024, "told after {fed} values");
        if let Some(batch) = first_batch {
            assert_eq!(fed, batch);
        }
        assert_eq!(told, rows as u64);
    }
    let (comments, days) = (&sinks[0], &sinks[1]);
    assert_eq!(
        comments.cells[rows - 1].as_deref(),
        Some("comment number 19999")
    );
    // Days 9000 and 9000 + 19999 % 3000.
    assert_eq!(days.cells[0].as_deref(), Some("1994-08-23"));
    assert_eq!(days.cells[rows - 1].as_deref(), Some("2000-02-12"));
    assert_eq!(days.dictionaries.len(), 1, "one window of date texts");
}
