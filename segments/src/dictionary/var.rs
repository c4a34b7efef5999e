//! [`VarDictionary`]: the sorted distinct values of a STRING/JSON/BYTES/BIG_DECIMAL column.
//!
//! Layout: `u64 count`, `count + 1` little-endian `u32` end offsets (the first is 0), padding to
//! 8 bytes, then the concatenated value bytes. Strings sort by UTF-8 bytes (which is code-point
//! order), bytes by bytes, decimals numerically ([`VarOrder::Decimal`]).

use crate::format::{ByteReader, Bytes};
use crate::types::{DataType, DictId, StoredType, Value};
use std::cmp::Ordering;

/// The order values of a var-width column sort in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarOrder {
    /// Lexicographic bytes (STRING, JSON, BYTES).
    Bytes,
    /// Numeric value of decimal text, ties broken by text (BIG_DECIMAL).
    Decimal,
}

impl VarOrder {
    /// The order of a data type's values.
    pub fn of(data_type: DataType) -> VarOrder {
        if data_type.stored() == StoredType::BigDecimal {
            VarOrder::Decimal
        } else {
            VarOrder::Bytes
        }
    }

    /// Compares two stored values.
    pub fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        match self {
            VarOrder::Bytes => a.cmp(b),
            VarOrder::Decimal => {
                let num = |s: &[u8]| std::str::from_utf8(s).ok()?.parse::<f64>().ok();
                match (num(a), num(b)) {
                    (Some(x), Some(y)) => x.total_cmp(&y).then_with(|| a.cmp(b)),
                    _ => a.cmp(b),
                }
            }
        }
    }
}

/// Sorted distinct var-width values; the dict id of a value is its rank.
#[derive(Clone, Debug)]
pub struct VarDictionary {
    offsets: Bytes,
    data: Bytes,
    len: u32,
    data_type: DataType,
}

impl VarDictionary {
    /// Parses the entry written by [`VarDictionary::encode`], validating every offset.
    pub fn from_bytes(bytes: Bytes, data_type: DataType) -> Result<VarDictionary, String> {
        let mut r = ByteReader::new(&bytes);
        let count = r.len_at_most((r.remaining() / 4).saturating_sub(1), "dictionary length")?;
        let offsets_at = r.pos();
        r.take((count + 1) * 4)?;
        r.align(8)?;
        let data_at = r.pos();
        let offsets = bytes
            .slice(offsets_at, (count + 1) * 4)
            .ok_or("offsets out of bounds")?;
        let data = bytes
            .slice(data_at, bytes.len() - data_at)
            .ok_or("dictionary data out of bounds")?;
        let mut prev = 0u32;
        for (i, c) in offsets.chunks_exact(4).enumerate() {
            let off = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            if (i == 0 && off != 0) || off < prev || off as usize > data.len() {
                return Err(format!(
                    "dictionary offset {i} ({off}) is out of order or bounds"
                ));
            }
            prev = off;
        }
        if data_type.stored() == StoredType::String || data_type.stored() == StoredType::BigDecimal
        {
            std::str::from_utf8(&data[..prev as usize])
                .map_err(|e| format!("dictionary text is not utf-8: {e}"))?;
        }
        Ok(VarDictionary {
            offsets,
            data,
            len: count as u32,
            data_type,
        })
    }

    /// Serializes values already in dictionary order. Fails if they exceed 4 GiB in total.
    pub fn encode<'a>(sorted: impl ExactSizeIterator<Item = &'a [u8]>) -> Result<Vec<u8>, String> {
        let count = sorted.len();
        let mut offsets = Vec::with_capacity(8 + (count + 1) * 4);
        offsets.extend_from_slice(&(count as u64).to_le_bytes());
        offsets.extend_from_slice(&0u32.to_le_bytes());
        let mut data = Vec::new();
        for v in sorted {
            data.extend_from_slice(v);
            let end = u32::try_from(data.len())
                .map_err(|_| "dictionary values exceed 4 GiB".to_string())?;
            offsets.extend_from_slice(&end.to_le_bytes());
        }
        crate::format::bytes::pad_to(&mut offsets, 8);
        offsets.extend_from_slice(&data);
        Ok(offsets)
    }

    #[inline]
    fn offset(&self, i: usize) -> usize {
        let c = &self.offsets[i * 4..i * 4 + 4];
        u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize
    }

    /// The stored bytes of `id` (UTF-8 for STRING/JSON/BIG_DECIMAL).
    #[inline]
    pub fn get(&self, id: DictId) -> &[u8] {
        let i = id as usize;
        &self.data[self.offset(i)..self.offset(i + 1)]
    }

    /// Number of values.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the dictionary is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The logical data type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The value of `id`, typed per the logical data type.
    pub fn value(&self, id: DictId) -> Value {
        bytes_to_value(self.data_type, self.get(id))
    }

    /// The stored bytes `v` would have in this column; `None` if it cannot be converted.
    pub fn probe(&self, v: &Value) -> Option<Vec<u8>> {
        value_to_bytes(self.data_type, v)
    }

    /// Like `slice::binary_search` over the values; `None` when `v` cannot be converted.
    pub fn search(&self, v: &Value) -> Option<Result<DictId, DictId>> {
        let key = self.probe(v)?;
        let order = VarOrder::of(self.data_type);
        let (mut lo, mut hi) = (0u32, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match order.compare(self.get(mid), &key) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Some(Ok(mid)),
            }
        }
        Some(Err(lo))
    }
}

/// A var-width column's value from its stored bytes.
pub fn bytes_to_value(data_type: DataType, b: &[u8]) -> Value {
    let text = || String::from_utf8_lossy(b).into_owned();
    match data_type {
        DataType::Json => Value::Json(text()),
        DataType::BigDecimal => Value::BigDecimal(text()),
        DataType::Bytes => Value::Bytes(b.to_vec()),
        _ => Value::String(text()),
    }
}

/// The stored bytes of `v` in a var-width column of `data_type`; `None` if not convertible.
pub fn value_to_bytes(data_type: DataType, v: &Value) -> Option<Vec<u8>> {
    match (data_type, v) {
        (_, Value::Null | Value::Array(_)) => None,
        (DataType::Bytes, Value::Bytes(b)) => Some(b.clone()),
        (DataType::Bytes, _) => match v.cast(DataType::Bytes).ok()? {
            Value::Bytes(b) => Some(b),
            _ => None,
        },
        (DataType::BigDecimal, _) => match v.cast(DataType::BigDecimal).ok()? {
            Value::BigDecimal(s) => Some(s.into_bytes()),
            _ => None,
        },
        (_, Value::String(s) | Value::Json(s)) => Some(s.as_bytes().to_vec()),
        (_, other) => Some(other.to_string().into_bytes()),
    }
}
