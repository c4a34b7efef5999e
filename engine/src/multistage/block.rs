//! [`DataBlock`]: the unit v2 operators pass along and stage workers send each other — up to
//! [`MAX_BLOCK_ROWS`] rows, as typed [`Column`]s (see [`crate::column`]).

pub use crate::column::{Cells, Column, NO_ROW};
use crate::morsels::map_items;
use segments::types::{DataType, Value};

/// The rows a block holds at most.
pub const MAX_BLOCK_ROWS: usize = 10_000;

/// Rows in columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DataBlock {
    pub columns: Vec<Column>,
    pub num_rows: usize,
}

impl DataBlock {
    /// A block of `columns` (all of `num_rows` rows).
    pub fn new(columns: Vec<Column>, num_rows: usize) -> DataBlock {
        DataBlock { columns, num_rows }
    }

    /// A block of value rows typed by `types`.
    pub fn from_rows(rows: Vec<Vec<Value>>, types: &[DataType]) -> DataBlock {
        let num_rows = rows.len();
        let mut columns: Vec<Vec<Value>> = (0..types.len())
            .map(|_| Vec::with_capacity(num_rows))
            .collect();
        for row in rows {
            for (c, cell) in row.into_iter().enumerate() {
                if let Some(col) = columns.get_mut(c) {
                    col.push(cell);
                }
            }
        }
        DataBlock {
            columns: columns
                .into_iter()
                .zip(types)
                .map(|(v, t)| Column::from_values(*t, v))
                .collect(),
            num_rows,
        }
    }

    /// Row `r` as values.
    pub fn row(&self, r: usize) -> Vec<Value> {
        self.columns.iter().map(|c| c.value(r)).collect()
    }

    /// The block's rows as values.
    pub fn rows(&self) -> Vec<Vec<Value>> {
        (0..self.num_rows).map(|r| self.row(r)).collect()
    }

    /// The rows at `indices`.
    pub fn take(&self, indices: &[u32]) -> DataBlock {
        DataBlock {
            columns: self.columns.iter().map(|c| c.take(indices)).collect(),
            num_rows: indices.len(),
        }
    }

    /// [`DataBlock::take`] of rows few and final: see [`Column::take_few`].
    pub fn take_few(&self, indices: &[u32]) -> DataBlock {
        DataBlock {
            columns: self.columns.iter().map(|c| c.take_few(indices)).collect(),
            num_rows: indices.len(),
        }
    }

    /// Rows `rows` of the columns `read` marks, copied; the others left empty — a morsel for
    /// work that reads only those columns, taken on the thread that does it.
    pub fn morsel_of(&self, read: &[bool], rows: std::ops::Range<usize>) -> DataBlock {
        let columns = self
            .columns
            .iter()
            .zip(read)
            .map(|(c, r)| match r {
                true => c.slice(rows.start, rows.end),
                false => Column::empty(c.data_type),
            })
            .collect();
        DataBlock::new(columns, rows.len())
    }

    /// The blocks one after the other (all of the same width and types); `types` gives an
    /// empty result its width.
    pub fn concat(mut blocks: Vec<DataBlock>, types: &[DataType]) -> DataBlock {
        if blocks.len() == 1
            && let Some(only) = blocks.pop()
        {
            return only;
        }
        let num_rows = blocks.iter().map(|b| b.num_rows).sum();
        let mut per_column: Vec<Vec<Column>> = (0..types.len()).map(|_| Vec::new()).collect();
        for b in blocks {
            for (c, col) in b.columns.into_iter().enumerate() {
                if let Some(p) = per_column.get_mut(c) {
                    p.push(col);
                }
            }
        }
        let columns: Vec<(Vec<Column>, DataType)> =
            per_column.into_iter().zip(types.iter().copied()).collect();
        DataBlock {
            // Column by column, in parallel when the rows are many (a receive of a large input).
            columns: map_items(columns, num_rows, |(parts, t)| Column::concat(parts, t)),
            num_rows,
        }
    }

    /// The block cut into blocks of at most [`MAX_BLOCK_ROWS`] rows.
    pub fn split(self) -> Vec<DataBlock> {
        if self.num_rows <= MAX_BLOCK_ROWS {
            return vec![self];
        }
        let mut out = Vec::new();
        let mut start = 0;
        while start < self.num_rows {
            let end = (start + MAX_BLOCK_ROWS).min(self.num_rows);
            out.push(DataBlock {
                columns: self.columns.iter().map(|c| c.slice(start, end)).collect(),
                num_rows: end - start,
            });
            start = end;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::Value;

    #[test]
    fn concat_mixed_and_split() {
        let a = Column::from_values(DataType::Long, vec![Value::Long(1)]);
        let b = Column::from_values(DataType::Long, vec![Value::String("x".into())]);
        let c = Column::concat(vec![a, b], DataType::Long);
        assert_eq!(c.value(0), Value::Long(1));
        assert_eq!(c.value(1), Value::String("x".into()));
        let rows: Vec<Vec<Value>> = (0..25_000).map(|i| vec![Value::Long(i)]).collect();
        let block = DataBlock::from_rows(rows, &[DataType::Long]);
        let parts = block.split();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[2].num_rows, 5_000);
        assert_eq!(parts[2].row(0), vec![Value::Long(20_000)]);
    }
}
