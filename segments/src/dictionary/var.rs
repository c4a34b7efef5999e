//! [`VarDictionary`]: the sorted distinct values of a STRING/JSON/BYTES/BIG_DECIMAL column.
//!
//! Layout: `u64 count`, `u32 encoding`, `u32 block length`, then per encoding:
//! - plain (0, dictionaries under [`BLOCK_MIN_BYTES`] of values): `count + 1` little-endian
//!   `u32` end offsets (the first is 0), padding to 8 bytes, then the concatenated value bytes;
//!   lookups read the memory map directly.
//! - blocks (1): [`ValueBlocks`] — front-coded zstd blocks of `block length` values whose first
//!   values stay uncompressed. A search binary-searches those heads, then decodes one block;
//!   `value(id)` decodes the id's block (the last decoded block is cached).
//!
//! Strings sort by UTF-8 bytes (which is code-point order), bytes by bytes, decimals numerically
//! ([`VarOrder::Decimal`]).

use super::blocks::{BlocksWriter, ValueBlocks, train_ranked};
use crate::format::{ByteReader, Bytes};
use crate::types::decimal::compare_texts;
use crate::types::{DataType, DictId, StoredType, Value};
use std::borrow::Cow;
use std::cmp::Ordering;

/// The order values of a var-width column sort in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarOrder {
    /// Lexicographic bytes (STRING, JSON, BYTES).
    Bytes,
    /// Exact numeric value of decimal text, ties broken by text (BIG_DECIMAL).
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
                let text = |s| std::str::from_utf8(s).ok();
                match text(a).zip(text(b)).and_then(|(x, y)| compare_texts(x, y)) {
                    Some(o) => o.then_with(|| a.cmp(b)),
                    None => a.cmp(b),
                }
            }
        }
    }
}

/// Plain encoding: every value uncompressed, found through an offset table.
const ENCODING_PLAIN: u32 = 0;
/// Block encoding ([`ValueBlocks`]).
const ENCODING_BLOCKS: u32 = 1;
/// Values per block of the block encoding: a lookup decodes up to this many values.
pub const BLOCK_LEN: u32 = 64;
/// Dictionaries with fewer value bytes than this stay plain (cheap lookups, little to save).
pub const BLOCK_MIN_BYTES: usize = 1 << 20;

#[derive(Clone, Debug)]
enum Values {
    Plain { offsets: Bytes, data: Bytes },
    Blocks(ValueBlocks),
}

/// Sorted distinct var-width values; the dict id of a value is its rank.
#[derive(Clone, Debug)]
pub struct VarDictionary {
    values: Values,
    len: u32,
    data_type: DataType,
}

impl VarDictionary {
    /// Whether `other` is a view of the same stored dictionary (same memory), so that ids of
    /// one are ids of the other.
    pub fn same_as(&self, other: &VarDictionary) -> bool {
        self.len == other.len
            && match (&self.values, &other.values) {
                (Values::Plain { data: a, .. }, Values::Plain { data: b, .. }) => {
                    std::ptr::eq(a.as_ptr(), b.as_ptr()) && a.len() == b.len()
                }
                (Values::Blocks(a), Values::Blocks(b)) => a.same_as(b),
                _ => false,
            }
    }

    /// Parses the entry written by [`VarDictionary::encode`], validating every offset (and
    /// decoding every block once).
    pub fn from_bytes(bytes: Bytes, data_type: DataType) -> Result<VarDictionary, String> {
        let mut r = ByteReader::new(&bytes);
        let count = r.u64()?;
        let encoding = r.u32()?;
        let block_len = r.u32()?;
        let utf8 = data_type.stored() == StoredType::String
            || data_type.stored() == StoredType::BigDecimal;
        let values = match encoding {
            ENCODING_PLAIN => {
                let count = usize::try_from(count)
                    .ok()
                    .filter(|&c| c < r.remaining() / 4)
                    .ok_or_else(|| format!("dictionary length {count} exceeds the entry"))?;
                let values = Self::plain_from(&bytes, &mut r, count, utf8)?;
                return Ok(VarDictionary {
                    values,
                    len: count as u32,
                    data_type,
                });
            }
            ENCODING_BLOCKS => {
                let blocks = count.div_ceil(block_len.max(1) as u64);
                if count > u32::MAX as u64 || blocks > (r.remaining() / 12) as u64 {
                    return Err(format!("dictionary length {count} exceeds the entry"));
                }
                Values::Blocks(ValueBlocks::from_bytes(
                    &bytes,
                    &mut r,
                    count as u32,
                    block_len,
                    utf8,
                )?)
            }
            other => return Err(format!("unknown dictionary encoding {other}")),
        };
        Ok(VarDictionary {
            values,
            len: count as u32,
            data_type,
        })
    }

    fn plain_from(
        bytes: &Bytes,
        r: &mut ByteReader,
        count: usize,
        utf8: bool,
    ) -> Result<Values, String> {
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
        if utf8 {
            std::str::from_utf8(&data[..prev as usize])
                .map_err(|e| format!("dictionary text is not utf-8: {e}"))?;
        }
        Ok(Values::Plain { offsets, data })
    }

    /// Serializes values already in dictionary order: plainly when they total less than
    /// [`BLOCK_MIN_BYTES`], else in compressed blocks of [`BLOCK_LEN`]. Fails if they exceed
    /// 4 GiB.
    pub fn encode<'a>(
        sorted: impl ExactSizeIterator<Item = &'a [u8]> + Clone,
    ) -> Result<Vec<u8>, String> {
        let total: usize = sorted.clone().map(|v| v.len()).sum();
        Self::encode_with(sorted, Self::block_len_for(total))
    }

    /// The block length [`VarDictionary::encode`] gives values of `total` bytes (`None`: plain).
    pub fn block_len_for(total: usize) -> Option<u32> {
        (total >= BLOCK_MIN_BYTES).then_some(BLOCK_LEN)
    }

    /// Serializes values already in dictionary order, in blocks of `block_len` values when
    /// given (at least 1), else plainly.
    pub fn encode_with<'a>(
        sorted: impl ExactSizeIterator<Item = &'a [u8]>,
        block_len: Option<u32>,
    ) -> Result<Vec<u8>, String> {
        let sorted: Vec<&[u8]> = sorted.collect();
        Self::encode_ranked(sorted.len(), |i| sorted[i], block_len)
    }

    /// Serializes `count` values in dictionary order, the `i`th given by `value(i)` (blocks
    /// ask for a sample first, then every value in order), in blocks of `block_len` values
    /// when given (at least 1), else plainly.
    pub fn encode_ranked<'a>(
        count: usize,
        value: impl Fn(usize) -> &'a [u8],
        block_len: Option<u32>,
    ) -> Result<Vec<u8>, String> {
        let dict = match block_len {
            Some(len) => train_ranked(count, len, &value),
            None => Vec::new(),
        };
        let mut w = VarDictionaryWriter::new(block_len, dict)?;
        for i in 0..count {
            w.push(value(i))?;
        }
        w.finish()
    }

    /// The compressed blocks, if the values are stored in blocks.
    pub fn value_blocks(&self) -> Option<&ValueBlocks> {
        match &self.values {
            Values::Blocks(b) => Some(b),
            Values::Plain { .. } => None,
        }
    }

    /// Whether the values are stored in compressed blocks.
    pub fn is_blocked(&self) -> bool {
        matches!(self.values, Values::Blocks(_))
    }

    /// Calls `f` with the stored bytes of `id` (UTF-8 for STRING/JSON/BIG_DECIMAL). Panics if
    /// `id >= len()`.
    #[inline]
    pub fn with_bytes<R>(&self, id: DictId, f: impl FnOnce(&[u8]) -> R) -> R {
        assert!(id < self.len, "dict id {id} out of range 0..{}", self.len);
        match &self.values {
            Values::Plain { offsets, data } => f(plain_get(offsets, data, id)),
            Values::Blocks(b) => {
                let len = b.block_len();
                f(b.block(id / len).get((id % len) as usize))
            }
        }
    }

    /// The stored bytes of `id` (borrowed from the map for plain dictionaries, copied out of
    /// the decoded block otherwise).
    pub fn bytes(&self, id: DictId) -> Cow<'_, [u8]> {
        match &self.values {
            Values::Plain { offsets, data } => Cow::Borrowed(plain_get(offsets, data, id)),
            Values::Blocks(_) => Cow::Owned(self.with_bytes(id, |b| b.to_vec())),
        }
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
        self.with_bytes(id, |b| bytes_to_value(self.data_type, b))
    }

    /// The stored bytes `v` would have in this column; `None` if it cannot be converted.
    pub fn probe(&self, v: &Value) -> Option<Vec<u8>> {
        value_to_bytes(self.data_type, v)
    }

    /// Like `slice::binary_search` over the values; `None` when `v` cannot be converted.
    pub fn search(&self, v: &Value) -> Option<Result<DictId, DictId>> {
        let key = self.probe(v)?;
        let order = VarOrder::of(self.data_type);
        // `(lo, hi)` of the ids to binary-search; blocks first narrow it by their heads.
        let (mut lo, mut hi) = (0u32, self.len);
        if let Values::Blocks(b) = &self.values {
            let (mut blo, mut bhi) = (0u32, b.blocks());
            // Find the last block whose head is <= key.
            while blo < bhi {
                let mid = blo + (bhi - blo) / 2;
                match order.compare(b.head(mid), &key) {
                    Ordering::Less => blo = mid + 1,
                    Ordering::Greater => bhi = mid,
                    Ordering::Equal => return Some(Ok(mid * b.block_len())),
                }
            }
            if blo == 0 {
                return Some(Err(0));
            }
            let block = blo - 1;
            let first = block * b.block_len();
            let decoded = b.block(block);
            let (mut l, mut h) = (1usize, decoded.len());
            while l < h {
                let mid = l + (h - l) / 2;
                match order.compare(decoded.get(mid), &key) {
                    Ordering::Less => l = mid + 1,
                    Ordering::Greater => h = mid,
                    Ordering::Equal => return Some(Ok(first + mid as u32)),
                }
            }
            return Some(Err(first + l as u32));
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.with_bytes(mid, |m| order.compare(m, &key)) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Some(Ok(mid)),
            }
        }
        Some(Err(lo))
    }
}

/// Value `id` of a plain dictionary.
#[inline]
fn plain_get<'a>(offsets: &Bytes, data: &'a Bytes, id: DictId) -> &'a [u8] {
    let at = |i: usize| {
        let c = &offsets[i * 4..i * 4 + 4];
        u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize
    };
    let i = id as usize;
    &data[at(i)..at(i + 1)]
}

/// A var-width column's value from its stored bytes.
pub fn bytes_to_value(data_type: DataType, b: &[u8]) -> Value {
    // Valid UTF-8 (every value Tessera writes) takes the fast validator; anything else is
    // repaired as Java's decoder would.
    let text = || match std::str::from_utf8(b) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(b).into_owned(),
    };
    match data_type {
        DataType::Json => Value::Json(text()),
        DataType::Map => Value::Map(text()),
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
        (_, Value::String(s) | Value::Json(s) | Value::Map(s)) => Some(s.as_bytes().to_vec()),
        (_, other) => Some(other.to_string().into_bytes()),
    }
}

/// Writes a [`VarDictionary`] entry from values pushed one at a time in dictionary order, for a
/// caller that learns the values (and how many there are) as it goes.
pub struct VarDictionaryWriter {
    count: usize,
    values: WriterValues,
}

enum WriterValues {
    /// The end offsets so far (little-endian `u32`s), and the bytes.
    Plain {
        ends: Vec<u8>,
        data: Vec<u8>,
    },
    Blocks(BlocksWriter),
}

impl VarDictionaryWriter {
    /// Blocks of `block_len` values compressed with `dict` (from
    /// [`train`](super::blocks::train); empty for none) when given, else plain.
    pub fn new(block_len: Option<u32>, dict: Vec<u8>) -> Result<VarDictionaryWriter, String> {
        Ok(VarDictionaryWriter {
            count: 0,
            values: match block_len {
                Some(len) => WriterValues::Blocks(BlocksWriter::new(len, dict)?),
                None => WriterValues::Plain {
                    ends: Vec::new(),
                    data: Vec::new(),
                },
            },
        })
    }

    /// Appends the next value.
    pub fn push(&mut self, v: &[u8]) -> Result<(), String> {
        match &mut self.values {
            WriterValues::Plain { ends, data } => {
                data.extend_from_slice(v);
                let end = u32::try_from(data.len())
                    .map_err(|_| "dictionary values exceed 4 GiB".to_string())?;
                ends.extend_from_slice(&end.to_le_bytes());
            }
            WriterValues::Blocks(w) => w.push(v)?,
        }
        self.count += 1;
        Ok(())
    }

    /// Number of values pushed.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no value was pushed.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The entry's bytes.
    pub fn finish(self) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        out.extend_from_slice(&(self.count as u64).to_le_bytes());
        match self.values {
            WriterValues::Blocks(w) => {
                out.extend_from_slice(&ENCODING_BLOCKS.to_le_bytes());
                out.extend_from_slice(&w.block_len().to_le_bytes());
                w.finish(&mut out)?;
            }
            WriterValues::Plain { ends, data } => {
                out.extend_from_slice(&ENCODING_PLAIN.to_le_bytes());
                out.extend_from_slice(&0u32.to_le_bytes());
                out.extend_from_slice(&0u32.to_le_bytes());
                out.extend_from_slice(&ends);
                crate::format::bytes::pad_to(&mut out, 8);
                out.extend_from_slice(&data);
            }
        }
        Ok(out)
    }
}
