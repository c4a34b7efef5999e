//! [`DataBlock`]: the rows a stage worker sends to another, column by column.

use crate::aggregate::AggState;
use segments::types::Value;

/// One cell: a value, or the aggregation state of a partial aggregate.
#[derive(Clone, Debug, PartialEq)]
pub enum Datum {
    Value(Value),
    State(AggState),
}

impl Datum {
    /// The value (a state reads as NULL: states are only read by a final aggregate).
    pub fn value(&self) -> &Value {
        match self {
            Datum::Value(v) => v,
            Datum::State(_) => &Value::Null,
        }
    }
}

/// Rows in columns: `columns[c][r]` is row `r`'s cell in column `c`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DataBlock {
    pub columns: Vec<Vec<Datum>>,
    pub num_rows: usize,
}

/// The rows a block holds at most.
pub const MAX_BLOCK_ROWS: usize = 10_000;

impl DataBlock {
    /// A block of `rows` (all of the same width).
    pub fn from_rows(rows: Vec<Vec<Datum>>) -> DataBlock {
        let num_rows = rows.len();
        let width = rows.first().map_or(0, Vec::len);
        let mut columns: Vec<Vec<Datum>> =
            (0..width).map(|_| Vec::with_capacity(num_rows)).collect();
        for row in rows {
            for (c, cell) in row.into_iter().enumerate() {
                if let Some(col) = columns.get_mut(c) {
                    col.push(cell);
                }
            }
        }
        DataBlock { columns, num_rows }
    }

    /// The block's rows.
    pub fn into_rows(self) -> Vec<Vec<Datum>> {
        let mut rows: Vec<Vec<Datum>> = (0..self.num_rows)
            .map(|_| Vec::with_capacity(self.columns.len()))
            .collect();
        for col in self.columns {
            for (r, cell) in col.into_iter().enumerate() {
                if let Some(row) = rows.get_mut(r) {
                    row.push(cell);
                }
            }
        }
        rows
    }
}
