//! [`NumericDictionary`]: the sorted distinct values of an INT/LONG/FLOAT/DOUBLE column (and of
//! BOOLEAN and TIMESTAMP, stored as INT and LONG), a zero-copy `&[T]` over the memory map.
//!
//! Layout: `u64 count`, then `count` little-endian values (8-byte aligned, so the slice is
//! viewed in place).

use crate::format::{ByteReader, Bytes, TypedSlice};
use crate::native::NativeType;
use crate::types::{DataType, DictId, Value};
use std::cmp::Ordering;

/// Sorted distinct fixed-width values; the dict id of a value is its rank.
#[derive(Clone, Debug)]
pub struct NumericDictionary<T: NativeType> {
    values: TypedSlice<T>,
    data_type: DataType,
}

/// How a probe value compares against a numeric dictionary.
enum Probe<T> {
    /// The value converted exactly (or, for float columns, by rounding) to `T`.
    Native(T),
    /// A number not representable as `T` (e.g. 2.5 against INT), compared as `f64`.
    F64(f64),
    /// Not comparable with this column.
    None,
}

impl<T: NativeType> NumericDictionary<T> {
    /// Parses the entry written by [`NumericDictionary::encode`].
    pub fn from_bytes(bytes: Bytes, data_type: DataType) -> Result<NumericDictionary<T>, String> {
        let mut r = ByteReader::new(&bytes);
        let count = r.len_at_most(r.remaining() / T::WIDTH, "dictionary length")?;
        let start = r.pos();
        let values = bytes
            .slice(start, count * T::WIDTH)
            .ok_or("dictionary values out of bounds")?;
        Ok(NumericDictionary {
            values: TypedSlice::new(values)?,
            data_type,
        })
    }

    /// Serializes sorted distinct values.
    pub fn encode(sorted: &[T]) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + sorted.len() * T::WIDTH);
        out.extend_from_slice(&(sorted.len() as u64).to_le_bytes());
        for v in sorted {
            v.write_le(&mut out);
        }
        out
    }

    /// The values in dict-id order (zero-copy).
    #[inline]
    pub fn values(&self) -> &[T] {
        self.values.as_slice()
    }

    /// Whether the values are viewed in place in the memory map.
    pub fn is_zero_copy(&self) -> bool {
        self.values.is_zero_copy()
    }

    /// The logical data type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// Number of values.
    pub fn len(&self) -> u32 {
        self.values().len() as u32
    }

    /// Whether the dictionary is empty (a segment with no rows).
    pub fn is_empty(&self) -> bool {
        self.values().is_empty()
    }

    /// The value of `id`, typed per the logical data type.
    pub fn value(&self, id: DictId) -> Value {
        self.values()[id as usize].to_value(self.data_type)
    }

    fn probe(&self, v: &Value) -> Probe<T> {
        if T::INTEGRAL {
            if let Some(t) = T::from_value(v) {
                return Probe::Native(t);
            }
        } else if let Value::Float(_) | Value::Double(_) = v
            && let Some(t) = T::from_value(v)
        {
            return Probe::Native(t);
        }
        if let Some(f) = match v {
            Value::Int(_) | Value::Long(_) | Value::Float(_) | Value::Double(_) => v.as_f64(),
            _ => None,
        } {
            return Probe::F64(f);
        }
        if v.is_null() {
            return Probe::None;
        }
        match v.cast(self.data_type) {
            Ok(c) => match T::from_value(&c) {
                Some(t) => Probe::Native(t),
                None => c.as_f64().map_or(Probe::None, Probe::F64),
            },
            Err(_) => v.as_f64().map_or(Probe::None, Probe::F64),
        }
    }

    /// Like `slice::binary_search`: `Ok(id)` on an exact match, `Err(number of smaller values)`
    /// otherwise; `None` when `v` cannot be compared with this column.
    pub fn search(&self, v: &Value) -> Option<Result<DictId, DictId>> {
        let values = self.values();
        let r = match self.probe(v) {
            Probe::Native(t) => values.binary_search_by(|x| x.total_cmp(&t)),
            Probe::F64(f) if f.is_nan() => return None,
            Probe::F64(f) => {
                values.binary_search_by(|x| x.to_f64().partial_cmp(&f).unwrap_or(Ordering::Greater))
            }
            Probe::None => return None,
        };
        Some(r.map(|i| i as DictId).map_err(|i| i as DictId))
    }
}
