//! Blocks: the unit operators pass along — up to [`BLOCK_SIZE`] documents of one segment and
//! the values of the columns (or expressions) the query needs for them.
//!
//! Dictionary-encoded columns stay as dictionary ids ([`ColumnData::Dict`]) so filters,
//! group keys and distinct counts work in id space; values are decoded only when a row is
//! materialised. Raw numeric columns arrive as `i64`/`f64` vectors; everything else (raw
//! strings, computed expressions) as [`Value`]s.

use segments::dictionary::Dictionary;
use segments::types::{DataType, DictId, DocId, Value};

/// Row `i` is NULL where either input's row `i` is (absent when neither has NULLs): the null
/// flags of a binary operation's result.
pub fn either_null(a: Option<&[bool]>, b: Option<&[bool]>, n: usize) -> Option<Vec<bool>> {
    match (a, b) {
        (None, None) => None,
        (x, y) => Some(
            (0..n)
                .map(|i| x.is_some_and(|v| v[i]) || y.is_some_and(|v| v[i]))
                .collect(),
        ),
    }
}

/// Documents per block (Pinot's `DocIdSetPlanNode.MAX_DOC_PER_CALL`).
pub const BLOCK_SIZE: usize = 10_000;

/// The numbers of dictionary ids (a [`ColumnData::Dict`]'s): from `decoded` when the column's
/// dictionary was decoded, else from the dictionary, in one loop of independent loads either way
/// (a large dictionary misses the cache on most ids, and a cold one on every id).
pub fn dict_numbers(ids: &[DictId], dict: &Dictionary, decoded: Option<&[f64]>) -> Vec<f64> {
    match decoded {
        Some(d) => ids.iter().map(|&id| d[id as usize]).collect(),
        None => dict.f64s(ids),
    }
}

/// The values of one column or expression for the rows of a block.
#[derive(Clone, Debug)]
pub enum ColumnData<'a> {
    /// Single-value dictionary ids; `decoded` is the dictionary as numbers when the column
    /// feeds a numeric aggregation ([`ColumnReader::dictionary_numbers`], kept with the
    /// segment).
    ///
    /// [`ColumnReader::dictionary_numbers`]: segments::segment::ColumnReader::dictionary_numbers
    Dict {
        ids: Vec<DictId>,
        dict: &'a Dictionary,
        decoded: Option<&'a [f64]>,
    },
    /// Multi-value dictionary ids: row `i` has `ids[offsets[i]..offsets[i + 1]]`.
    DictMv {
        ids: Vec<DictId>,
        offsets: Vec<u32>,
        dict: &'a Dictionary,
        decoded: Option<&'a [f64]>,
    },
    /// Raw integral values (INT, LONG, BOOLEAN, TIMESTAMP).
    I64(Vec<i64>),
    /// Raw floating values (FLOAT, DOUBLE).
    F64(Vec<f64>),
    /// Anything else (raw var-width columns, computed expressions); MV rows are arrays.
    Values(Vec<Value>),
}

/// One projected column: its values, logical type and (with null handling) null flags.
#[derive(Clone, Debug)]
pub struct Projected<'a> {
    pub data: ColumnData<'a>,
    pub data_type: DataType,
    /// `nulls[i]`: row `i` is NULL (only filled when null handling is on).
    pub nulls: Option<Vec<bool>>,
}

impl<'a> Projected<'a> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match &self.data {
            ColumnData::Dict { ids, .. } => ids.len(),
            ColumnData::DictMv { offsets, .. } => offsets.len().saturating_sub(1),
            ColumnData::I64(v) => v.len(),
            ColumnData::F64(v) => v.len(),
            ColumnData::Values(v) => v.len(),
        }
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether row `i` is NULL.
    pub fn is_null(&self, i: usize) -> bool {
        self.nulls.as_ref().is_some_and(|n| n[i])
            || matches!(&self.data, ColumnData::Values(v) if v[i].is_null())
    }

    /// The value of row `i` (an array for multi-value rows; NULL for null rows).
    pub fn value(&self, i: usize) -> Value {
        if self.nulls.as_ref().is_some_and(|n| n[i]) {
            return Value::Null;
        }
        match &self.data {
            ColumnData::Dict { ids, dict, .. } => dict.value(ids[i]),
            ColumnData::DictMv {
                ids, offsets, dict, ..
            } => Value::Array(
                ids[offsets[i] as usize..offsets[i + 1] as usize]
                    .iter()
                    .map(|&id| dict.value(id))
                    .collect(),
            ),
            ColumnData::I64(v) => integral_value(v[i], self.data_type),
            ColumnData::F64(v) => match self.data_type {
                DataType::Float => Value::Float(v[i] as f32),
                _ => Value::Double(v[i]),
            },
            ColumnData::Values(v) => v[i].clone(),
        }
    }

    /// Whether the column is single-value ids of a block-compressed dictionary (see
    /// [`Dictionary::is_blocked`](segments::dictionary::Dictionary::is_blocked)).
    pub fn is_blocked_dict(&self) -> bool {
        matches!(&self.data, ColumnData::Dict { dict, .. } if dict.is_blocked())
    }

    /// The column with the ids of a block-compressed dictionary replaced by their values,
    /// decoded in bulk; any other column as it is.
    pub fn decoded_blocked_dict(&self) -> Projected<'a> {
        match &self.data {
            ColumnData::Dict { ids, dict, .. } if dict.is_blocked() => Projected {
                data: ColumnData::Values(dict.values(ids)),
                data_type: self.data_type,
                nulls: self.nulls.clone(),
            },
            _ => self.clone(),
        }
    }

    /// A column of values.
    pub fn values(data_type: DataType, values: Vec<Value>) -> Projected<'a> {
        Projected {
            data: ColumnData::Values(values),
            data_type,
            nulls: None,
        }
    }
}

/// The logical value of a raw integral.
pub fn integral_value(v: i64, data_type: DataType) -> Value {
    match data_type {
        DataType::Int => Value::Int(v as i32),
        DataType::Boolean => Value::Boolean(v != 0),
        DataType::Timestamp => Value::Timestamp(v),
        _ => Value::Long(v),
    }
}

/// Up to [`BLOCK_SIZE`] documents of one segment and their projected columns.
#[derive(Clone, Debug, Default)]
pub struct Block<'a> {
    pub docs: Vec<DocId>,
    /// Projected columns by name.
    pub columns: Vec<(String, Projected<'a>)>,
}

impl<'a> Block<'a> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether the block has no rows.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The projected column `name`.
    pub fn column(&self, name: &str) -> Option<&Projected<'a>> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, p)| p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_nulls() {
        let p = Projected {
            data: ColumnData::I64(vec![1, 0, 7]),
            data_type: DataType::Boolean,
            nulls: Some(vec![false, false, true]),
        };
        assert_eq!(p.len(), 3);
        assert_eq!(p.value(0), Value::Boolean(true));
        assert_eq!(p.value(1), Value::Boolean(false));
        assert_eq!(p.value(2), Value::Null);
        assert!(p.is_null(2));
        let f = Projected {
            data: ColumnData::F64(vec![1.5]),
            data_type: DataType::Float,
            nulls: None,
        };
        assert_eq!(f.value(0), Value::Float(1.5));
        let v = Projected::values(
            DataType::String,
            vec![Value::Null, Value::String("a".into())],
        );
        assert!(v.is_null(0));
        assert!(!v.is_null(1));
        assert_eq!(integral_value(5, DataType::Timestamp), Value::Timestamp(5));
    }
}
