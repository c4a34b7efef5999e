//! Dictionaries: a column's sorted distinct values, where a value's dict id is its rank.
//!
//! [`Dictionary`] is the enum the engine holds, one variant per stored type. Fixed-width
//! dictionaries ([`NumericDictionary`]) are zero-copy slices of the memory map; var-width ones
//! ([`VarDictionary`]) are offsets plus bytes, or front-coded zstd blocks when large
//! ([`blocks::ValueBlocks`]), which [`decoded`] keeps decoded when read whole often. Because ids are ranks, a range predicate becomes
//! a dict-id range once ([`Dictionary::id_range`]) and everything after works on `u32` ids.

pub mod blocks;
pub mod decoded;
pub mod numeric;
pub mod var;

pub use numeric::NumericDictionary;
pub use var::{VarDictionary, VarOrder};

use blocks::Block;
use std::sync::{Arc, OnceLock};

use crate::format::Bytes;
use crate::types::decimal::compare_texts;
use crate::types::{DataType, DictId, StoredType, Value};
use std::cmp::Ordering;
use std::ops::{Bound, Range};

/// A column's dictionary.
#[derive(Clone, Debug)]
pub enum Dictionary {
    Int(NumericDictionary<i32>),
    Long(NumericDictionary<i64>),
    Float(NumericDictionary<f32>),
    Double(NumericDictionary<f64>),
    BigDecimal(VarDictionary),
    String(VarDictionary),
    Bytes(VarDictionary),
}

/// Dispatches `$body` over the variants of a [`Dictionary`], binding the inner dictionary.
macro_rules! with_dict {
    ($d:expr, $x:ident => $body:expr) => {
        match $d {
            Dictionary::Int($x) => $body,
            Dictionary::Long($x) => $body,
            Dictionary::Float($x) => $body,
            Dictionary::Double($x) => $body,
            Dictionary::BigDecimal($x) => $body,
            Dictionary::String($x) => $body,
            Dictionary::Bytes($x) => $body,
        }
    };
}

/// The first id in `0..len` for which `before` is false (`before` true on a prefix).
fn partition_ids(len: DictId, before: impl Fn(DictId) -> bool) -> DictId {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

impl Dictionary {
    /// Every entry as a number, in id order: fixed-width entries widened, text parsed (NaN
    /// where not numeric).
    pub fn to_numbers(&self) -> Vec<f64> {
        fn widen<T: Copy + Into<f64>>(values: &[T]) -> Vec<f64> {
            values.iter().map(|&v| v.into()).collect()
        }
        match self {
            Dictionary::Int(d) => widen(d.values()),
            Dictionary::Long(d) => d.values().iter().map(|&v| v as f64).collect(),
            Dictionary::Float(d) => widen(d.values()),
            Dictionary::Double(d) => d.values().to_vec(),
            Dictionary::BigDecimal(_) | Dictionary::String(_) | Dictionary::Bytes(_) => (0..self
                .len())
                .map(|id| self.value(id).as_f64().unwrap_or(f64::NAN))
                .collect(),
        }
    }

    /// Parses a dictionary entry of a column of `data_type`.
    pub fn from_bytes(bytes: Bytes, data_type: DataType) -> Result<Dictionary, String> {
        Ok(match data_type.stored() {
            StoredType::Int => Dictionary::Int(NumericDictionary::from_bytes(bytes, data_type)?),
            StoredType::Long => Dictionary::Long(NumericDictionary::from_bytes(bytes, data_type)?),
            StoredType::Float => {
                Dictionary::Float(NumericDictionary::from_bytes(bytes, data_type)?)
            }
            StoredType::Double => {
                Dictionary::Double(NumericDictionary::from_bytes(bytes, data_type)?)
            }
            StoredType::BigDecimal => {
                Dictionary::BigDecimal(VarDictionary::from_bytes(bytes, data_type)?)
            }
            StoredType::String => Dictionary::String(VarDictionary::from_bytes(bytes, data_type)?),
            StoredType::Bytes => Dictionary::Bytes(VarDictionary::from_bytes(bytes, data_type)?),
        })
    }

    /// Number of distinct values.
    pub fn len(&self) -> u32 {
        with_dict!(self, d => d.len())
    }

    /// Whether the dictionary is empty (a segment with no rows).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The logical data type (BOOLEAN, TIMESTAMP and JSON are kept).
    pub fn data_type(&self) -> DataType {
        with_dict!(self, d => d.data_type())
    }

    /// The value of `id`, typed per the logical type. Panics if `id >= len()`.
    pub fn value(&self, id: DictId) -> Value {
        with_dict!(self, d => d.value(id))
    }

    /// Whether reading values out of id order costs a block decode each (text in compressed
    /// blocks): such reads should go through [`Dictionary::values`].
    pub fn is_blocked(&self) -> bool {
        matches!(
            self,
            Dictionary::BigDecimal(d) | Dictionary::String(d) | Dictionary::Bytes(d) if d.is_blocked()
        )
    }

    /// The values of `ids`, in their order. A blocked dictionary reads them in id order, so each
    /// block is decoded once (rows in document order hit blocks at random: one decode per
    /// value, ~8 µs, otherwise); ids already ascending (a dictionary read in order) are read as
    /// they come. Panics if an id is `>= len()`.
    pub fn values(&self, ids: &[DictId]) -> Vec<Value> {
        if !self.is_blocked() {
            return ids.iter().map(|&id| self.value(id)).collect();
        }
        if ids.is_sorted() {
            let mut out: Vec<Value> = Vec::with_capacity(ids.len());
            for (i, &id) in ids.iter().enumerate() {
                let v = match out.last() {
                    Some(v) if ids[i - 1] == id => v.clone(),
                    _ => self.value(id),
                };
                out.push(v);
            }
            return out;
        }
        let mut order: Vec<u32> = (0..ids.len() as u32).collect();
        order.sort_unstable_by_key(|&i| ids[i as usize]);
        let mut out = vec![Value::Null; ids.len()];
        let mut last: Option<(DictId, usize)> = None;
        for i in order {
            let (id, i) = (ids[i as usize], i as usize);
            out[i] = match last {
                Some((l, at)) if l == id => out[at].clone(),
                _ => self.value(id),
            };
            last = Some((id, i));
        }
        out
    }

    fn search(&self, v: &Value) -> Option<Result<DictId, DictId>> {
        with_dict!(self, d => d.search(v))
    }

    /// The ids of the values SQL counts equal to `v` (for a float zero, `-0.0` and `0.0`): an
    /// empty range at its insertion point when none is; `None` when `v` cannot be compared.
    pub fn equal_range(&self, v: &Value) -> Option<Range<DictId>> {
        match self {
            Dictionary::Int(d) => d.equal_range(v),
            Dictionary::Long(d) => d.equal_range(v),
            Dictionary::Float(d) => d.equal_range(v),
            Dictionary::Double(d) => d.equal_range(v),
            // Sorted by number, ties by text: the entries numerically equal to `v` (`1.5`,
            // `1.50`) are one run.
            Dictionary::BigDecimal(_) => {
                let probe = v.cast(DataType::BigDecimal).ok()?;
                let probe = probe.as_str()?;
                let order = |id: DictId| match self.value(id) {
                    Value::BigDecimal(s) => compare_texts(&s, probe),
                    _ => None,
                };
                let first = partition_ids(self.len(), |id| order(id) == Some(Ordering::Less));
                let end = partition_ids(self.len(), |id| order(id) != Some(Ordering::Greater));
                Some(first..end.max(first))
            }
            _ => self.search(v).map(|r| match r {
                Ok(i) => i..i + 1,
                Err(i) => i..i,
            }),
        }
    }

    /// The ids of those of `values` present (ascending values are looked up in about one pass
    /// over a numeric dictionary).
    pub fn ids_of(&self, values: &[Value]) -> Vec<DictId> {
        match self {
            Dictionary::Int(d) => d.ids_of(values),
            Dictionary::Long(d) => d.ids_of(values),
            Dictionary::Float(d) => d.ids_of(values),
            Dictionary::Double(d) => d.ids_of(values),
            _ => values.iter().filter_map(|v| self.index_of(v)).collect(),
        }
    }

    /// The id of a value equal to `v` (converted to the column type first).
    pub fn index_of(&self, v: &Value) -> Option<DictId> {
        self.search(v)?.ok()
    }

    /// Like `slice::binary_search`: `Ok(id)` for an exact match, else `Err(id)` where `id` is the
    /// number of values smaller than `v`. A value that cannot be compared with the column gives
    /// `Err(0)`.
    pub fn insertion_point(&self, v: &Value) -> Result<DictId, DictId> {
        self.search(v).unwrap_or(Err(0))
    }

    /// The ids whose values lie between the bounds (empty if a bound cannot be compared).
    pub fn id_range(&self, lower: Bound<&Value>, upper: Bound<&Value>) -> Range<DictId> {
        let lo = match lower {
            Bound::Unbounded => Some(0),
            Bound::Included(v) => self.equal_range(v).map(|r| r.start),
            Bound::Excluded(v) => self.equal_range(v).map(|r| r.end),
        };
        let hi = match upper {
            Bound::Unbounded => Some(self.len()),
            Bound::Included(v) => self.equal_range(v).map(|r| r.end),
            Bound::Excluded(v) => self.equal_range(v).map(|r| r.start),
        };
        match (lo, hi) {
            (Some(lo), Some(hi)) if lo < hi => lo..hi,
            (Some(lo), Some(_)) => lo..lo,
            _ => 0..0,
        }
    }

    /// Numeric value of `id` (decimals parsed; BOOLEAN 0/1); NaN for non-numeric columns.
    pub fn f64_at(&self, id: DictId) -> f64 {
        let i = id as usize;
        match self {
            Dictionary::Int(d) => d.values()[i] as f64,
            Dictionary::Long(d) => d.values()[i] as f64,
            Dictionary::Float(d) => d.values()[i] as f64,
            Dictionary::Double(d) => d.values()[i],
            Dictionary::BigDecimal(d) => d.with_bytes(id, |b| {
                std::str::from_utf8(b)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(f64::NAN)
            }),
            Dictionary::String(_) | Dictionary::Bytes(_) => f64::NAN,
        }
    }

    /// [`Self::f64_at`] of every id, the dictionary's kind matched once for the whole run.
    pub fn f64s(&self, ids: &[DictId]) -> Vec<f64> {
        let mut out = Vec::with_capacity(ids.len());
        self.extend_f64s(ids, &mut out);
        out
    }

    /// [`Self::f64s`] appended to `out` (a caller gathering many runs into one vector).
    pub fn extend_f64s(&self, ids: &[DictId], out: &mut Vec<f64>) {
        match self {
            Dictionary::Int(d) => {
                let v = d.values();
                out.extend(ids.iter().map(|&i| v[i as usize] as f64))
            }
            Dictionary::Long(d) => {
                let v = d.values();
                out.extend(ids.iter().map(|&i| v[i as usize] as f64))
            }
            Dictionary::Float(d) => {
                let v = d.values();
                out.extend(ids.iter().map(|&i| v[i as usize] as f64))
            }
            Dictionary::Double(d) => {
                let v = d.values();
                out.extend(ids.iter().map(|&i| v[i as usize]))
            }
            _ => out.extend(ids.iter().map(|&i| self.f64_at(i))),
        }
    }

    /// [`Self::i64_at`] of every id, the dictionary's kind matched once for the whole run.
    pub fn i64s(&self, ids: &[DictId]) -> Vec<i64> {
        let mut out = Vec::with_capacity(ids.len());
        self.extend_i64s(ids, &mut out);
        out
    }

    /// [`Self::i64s`] appended to `out`.
    pub fn extend_i64s(&self, ids: &[DictId], out: &mut Vec<i64>) {
        match self {
            Dictionary::Int(d) => {
                let v = d.values();
                out.extend(ids.iter().map(|&i| v[i as usize] as i64))
            }
            Dictionary::Long(d) => {
                let v = d.values();
                out.extend(ids.iter().map(|&i| v[i as usize]))
            }
            _ => out.extend(ids.iter().map(|&i| self.i64_at(i))),
        }
    }

    /// Integer value of `id` for integral columns (floats truncate; 0 for var-width columns).
    pub fn i64_at(&self, id: DictId) -> i64 {
        let i = id as usize;
        match self {
            Dictionary::Int(d) => d.values()[i] as i64,
            Dictionary::Long(d) => d.values()[i],
            Dictionary::Float(d) => d.values()[i] as i64,
            Dictionary::Double(d) => d.values()[i] as i64,
            _ => 0,
        }
    }

    /// Stored bytes of `id` for var-width columns (UTF-8 for STRING/JSON/BIG_DECIMAL); empty for
    /// fixed-width columns. Borrowed for plain dictionaries, decoded for blocked ones.
    pub fn bytes_at(&self, id: DictId) -> std::borrow::Cow<'_, [u8]> {
        match self {
            Dictionary::BigDecimal(d) | Dictionary::String(d) | Dictionary::Bytes(d) => d.bytes(id),
            _ => std::borrow::Cow::Borrowed(&[]),
        }
    }
}

/// The values of many ids of one dictionary, in any order and from any thread: each
/// compressed block of a blocked dictionary is decoded once and kept while the decoder lives
/// (the dictionary's own cache holds only the last block, which random ids — a join leaf reading
/// high-cardinality text in document order — would decode again for almost every value). The
/// decoder holds its own handle on the dictionary (a view of the same memory map), so it may
/// outlive the borrow it was made from: a multi-stage query decodes text after its join.
#[derive(Debug)]
pub struct ValueDecoder {
    dict: Dictionary,
    /// Decoded blocks by block number.
    blocks: Vec<OnceLock<Arc<Block>>>,
}

impl Dictionary {
    /// A decoder for many ids of this dictionary.
    pub fn decoder(&self) -> ValueDecoder {
        let blocks = match self {
            Dictionary::BigDecimal(d) | Dictionary::String(d) | Dictionary::Bytes(d) => d
                .value_blocks()
                .map_or(0, |b| self.len().div_ceil(b.block_len().max(1))),
            _ => 0,
        };
        ValueDecoder {
            dict: self.clone(),
            blocks: (0..blocks).map(|_| OnceLock::new()).collect(),
        }
    }
}

impl ValueDecoder {
    /// Whether `other` decodes the same stored dictionary (its ids are this one's ids). Only
    /// text, decimal and bytes dictionaries are told apart; numeric ones never are the same.
    pub fn same_dictionary(&self, other: &ValueDecoder) -> bool {
        match (&self.dict, &other.dict) {
            (Dictionary::BigDecimal(a), Dictionary::BigDecimal(b))
            | (Dictionary::String(a), Dictionary::String(b))
            | (Dictionary::Bytes(a), Dictionary::Bytes(b)) => a.same_as(b),
            _ => false,
        }
    }

    /// The value of `id` (as [`Dictionary::value`]).
    pub fn value(&self, id: DictId) -> Value {
        self.with_stored(id, var::bytes_to_value)
            .unwrap_or_else(|| self.dict.value(id))
    }

    /// `f` over the stored bytes of `id` and the dictionary's type, no value made of them (a
    /// value only written out elsewhere need not be): for a text, decimal or bytes dictionary;
    /// `None` for the others.
    pub fn with_stored<R>(&self, id: DictId, f: impl FnOnce(DataType, &[u8]) -> R) -> Option<R> {
        let var = match &self.dict {
            Dictionary::BigDecimal(d) | Dictionary::String(d) | Dictionary::Bytes(d) => d,
            _ => return None,
        };
        let t = var.data_type();
        let Some(blocks) = var.value_blocks() else {
            return Some(var.with_bytes(id, |b| f(t, b)));
        };
        let len = blocks.block_len().max(1);
        let b = (id / len) as usize;
        let Some(slot) = self.blocks.get(b) else {
            return Some(var.with_bytes(id, |b| f(t, b)));
        };
        let block = slot.get_or_init(|| blocks.block(b as u32));
        Some(f(t, block.get((id % len) as usize)))
    }

    /// Ids in the dictionary.
    pub fn len(&self) -> u32 {
        self.dict.len()
    }

    /// Whether the dictionary is empty.
    pub fn is_empty(&self) -> bool {
        self.dict.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn numeric<T: crate::native::NativeType>(mut vals: Vec<T>, dt: DataType) -> Dictionary {
        vals.sort_by(|a, b| a.total_cmp(b));
        vals.dedup_by(|a, b| a.to_bits64() == b.to_bits64());
        let mut bytes = vec![0u8; 8];
        bytes.extend(NumericDictionary::encode(&vals));
        let all = Bytes::from_vec(bytes);
        let entry = all.slice(8, all.len() - 8).unwrap();
        let d = Dictionary::from_bytes(entry, dt).unwrap();
        assert_eq!(d.len() as usize, vals.len());
        d
    }

    fn strings(vals: Vec<String>, dt: DataType) -> (Vec<String>, Dictionary) {
        strings_in(vals, dt, None)
    }

    /// Like [`strings`], in blocks of `block_len` values when given.
    fn strings_in(
        mut vals: Vec<String>,
        dt: DataType,
        block_len: Option<u32>,
    ) -> (Vec<String>, Dictionary) {
        let order = VarOrder::of(dt);
        vals.sort_by(|a, b| order.compare(a.as_bytes(), b.as_bytes()));
        vals.dedup();
        let bytes =
            VarDictionary::encode_with(vals.iter().map(|s| s.as_bytes()), block_len).unwrap();
        (
            vals,
            Dictionary::from_bytes(Bytes::from_vec(bytes), dt).unwrap(),
        )
    }

    /// Lookups of each entry find the run of entries SQL counts equal to it (for floats,
    /// `-0.0` and `0.0` are one run).
    fn check_lookups(d: &Dictionary, expected: &[Value]) {
        for (i, v) in expected.iter().enumerate() {
            assert_eq!(&d.value(i as u32), v);
            let equal = |e: &Value| e.sql_cmp(v).is_eq();
            let first = expected.iter().position(equal).unwrap() as u32;
            let end = expected.iter().rposition(equal).unwrap() as u32 + 1;
            assert_eq!(d.index_of(v), Some(first), "{v:?}");
            assert_eq!(d.insertion_point(v), Ok(first));
            assert_eq!(d.equal_range(v), Some(first..end), "{v:?}");
            assert_eq!(
                d.id_range(Bound::Included(v), Bound::Unbounded),
                first..d.len()
            );
            assert_eq!(d.id_range(Bound::Unbounded, Bound::Excluded(v)), 0..first);
            assert_eq!(d.id_range(Bound::Excluded(v), Bound::Included(v)), end..end);
        }
    }

    proptest! {
        #[test]
        fn int_dictionary(vals in proptest::collection::vec(any::<i32>(), 0..200)) {
            let d = numeric(vals.clone(), DataType::Int);
            let mut s = vals; s.sort(); s.dedup();
            let expected: Vec<Value> = s.iter().map(|&v| Value::Int(v)).collect();
            check_lookups(&d, &expected);
            for (i, v) in s.iter().enumerate() { prop_assert_eq!(d.i64_at(i as u32), *v as i64); }
        }

        #[test]
        fn long_dictionary(vals in proptest::collection::vec(any::<i64>(), 0..200), probe: i64) {
            let d = numeric(vals.clone(), DataType::Long);
            let mut s = vals; s.sort(); s.dedup();
            let expected: Vec<Value> = s.iter().map(|&v| Value::Long(v)).collect();
            check_lookups(&d, &expected);
            let ip = d.insertion_point(&Value::Long(probe));
            prop_assert_eq!(ip, s.binary_search(&probe).map(|i| i as u32).map_err(|i| i as u32));
        }

        #[test]
        fn float_dictionary(vals in proptest::collection::vec(any::<f32>().prop_filter("nan", |f| !f.is_nan()), 0..200)) {
            let d = numeric(vals.clone(), DataType::Float);
            let mut s = vals; s.sort_by(|a, b| a.total_cmp(b)); s.dedup_by(|a, b| a.to_bits() == b.to_bits());
            let expected: Vec<Value> = s.iter().map(|&v| Value::Float(v)).collect();
            check_lookups(&d, &expected);
        }

        #[test]
        fn double_dictionary(vals in proptest::collection::vec(-1e6f64..1e6, 0..200), lo in -1e6f64..1e6, hi in -1e6f64..1e6) {
            let d = numeric(vals.clone(), DataType::Double);
            let mut s = vals; s.sort_by(|a, b| a.total_cmp(b)); s.dedup_by(|a, b| a.to_bits() == b.to_bits());
            let expected: Vec<Value> = s.iter().map(|&v| Value::Double(v)).collect();
            check_lookups(&d, &expected);
            let r = d.id_range(Bound::Included(&Value::Double(lo)), Bound::Excluded(&Value::Double(hi)));
            let brute: Vec<u32> = (0..s.len() as u32).filter(|&i| s[i as usize] >= lo && s[i as usize] < hi).collect();
            prop_assert_eq!(r.collect::<Vec<_>>(), brute);
        }

        #[test]
        fn string_dictionary(vals in proptest::collection::vec(".{0,12}", 0..100), probe in ".{0,12}") {
            let (s, d) = strings(vals, DataType::String);
            let expected: Vec<Value> = s.iter().map(|v| Value::String(v.clone())).collect();
            check_lookups(&d, &expected);
            let ip = d.insertion_point(&Value::String(probe.clone()));
            prop_assert_eq!(ip, s.binary_search(&probe).map(|i| i as u32).map_err(|i| i as u32));
        }

        #[test]
        fn blocked_string_dictionary(vals in proptest::collection::vec("[a-c]{0,6}", 0..100), probe in "[a-c]{0,6}", block_len in 1u32..9) {
            let (s, d) = strings_in(vals, DataType::String, Some(block_len));
            let expected: Vec<Value> = s.iter().map(|v| Value::String(v.clone())).collect();
            check_lookups(&d, &expected);
            let ip = d.insertion_point(&Value::String(probe.clone()));
            prop_assert_eq!(ip, s.binary_search(&probe).map(|i| i as u32).map_err(|i| i as u32));
            for (i, v) in s.iter().enumerate() {
                prop_assert_eq!(&*d.bytes_at(i as u32), v.as_bytes());
            }
            // Ids out of order (and repeated) read in bulk give each id's value.
            let ids: Vec<u32> = (0..s.len() as u32 * 2).map(|i| (i * 7 + 3) % s.len().max(1) as u32).take(if s.is_empty() { 0 } else { s.len() * 2 }).collect();
            let want: Vec<Value> = ids.iter().map(|&i| expected[i as usize].clone()).collect();
            prop_assert!(d.is_blocked());
            prop_assert_eq!(d.values(&ids), want);
            // Ascending ids with repeats (a dictionary read in order) too.
            let mut ascending = ids.clone();
            ascending.sort_unstable();
            let want: Vec<Value> = ascending.iter().map(|&i| expected[i as usize].clone()).collect();
            prop_assert_eq!(d.values(&ascending), want);
        }

        #[test]
        fn blocked_decimal_dictionary(vals in proptest::collection::vec(-100000i64..100000, 0..60), block_len in 1u32..6) {
            let texts: Vec<String> = vals.iter().map(|v| crate::types::value::canonical_decimal(&format!("{}.{:02}", v / 100, (v % 100).abs()))).collect();
            let (s, d) = strings_in(texts, DataType::BigDecimal, Some(block_len));
            let expected: Vec<Value> = s.iter().map(|v| Value::BigDecimal(v.clone())).collect();
            check_lookups(&d, &expected);
        }

        #[test]
        fn bytes_dictionary(vals in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..10), 0..100)) {
            let mut s = vals; s.sort(); s.dedup();
            let bytes = VarDictionary::encode(s.iter().map(|v| v.as_slice())).unwrap();
            let d = Dictionary::from_bytes(Bytes::from_vec(bytes), DataType::Bytes).unwrap();
            let expected: Vec<Value> = s.iter().map(|v| Value::Bytes(v.clone())).collect();
            check_lookups(&d, &expected);
        }

        #[test]
        fn decimal_dictionary(vals in proptest::collection::vec(-100000i64..100000, 0..100)) {
            let texts: Vec<String> = vals.iter().map(|v| crate::types::value::canonical_decimal(&format!("{}.{:02}", v / 100, (v % 100).abs()))).collect();
            let (s, d) = strings(texts, DataType::BigDecimal);
            let expected: Vec<Value> = s.iter().map(|v| Value::BigDecimal(v.clone())).collect();
            check_lookups(&d, &expected);
            for w in s.windows(2) {
                prop_assert!(w[0].parse::<f64>().unwrap() <= w[1].parse::<f64>().unwrap());
            }
        }
    }

    #[test]
    fn logical_types_and_cross_type_probes() {
        let d = numeric(vec![0i32, 1], DataType::Boolean);
        assert_eq!(d.value(1), Value::Boolean(true));
        assert_eq!(d.index_of(&Value::Boolean(false)), Some(0));
        assert_eq!(d.index_of(&Value::String("true".into())), Some(1));

        let d = numeric(vec![0i64, 1_577_836_800_000], DataType::Timestamp);
        assert_eq!(d.value(1), Value::Timestamp(1_577_836_800_000));
        assert_eq!(d.index_of(&Value::String("2020-01-01".into())), Some(1));

        let d = numeric(vec![1i32, 2, 3, 5], DataType::Int);
        assert_eq!(d.index_of(&Value::Double(2.0)), Some(1));
        assert_eq!(d.index_of(&Value::Double(2.5)), None);
        assert_eq!(d.insertion_point(&Value::Double(2.5)), Err(2));
        assert_eq!(d.index_of(&Value::Long(1 << 40)), None);
        assert_eq!(d.insertion_point(&Value::Long(1 << 40)), Err(4));
        assert_eq!(
            d.id_range(
                Bound::Excluded(&Value::Double(1.5)),
                Bound::Included(&Value::Double(4.9))
            ),
            1..3
        );
        assert_eq!(
            d.id_range(
                Bound::Included(&Value::String("abc".into())),
                Bound::Unbounded
            ),
            0..0
        );
        assert_eq!(
            d.id_range(
                Bound::Included(&Value::Int(9)),
                Bound::Included(&Value::Int(0))
            ),
            4..4
        );
        assert!(d.f64_at(3) == 5.0 && d.bytes_at(0).is_empty());

        let d = numeric(vec![0.1f32, 0.5], DataType::Float);
        assert_eq!(d.index_of(&Value::Double(0.1)), Some(0));

        let (_, d) = strings(
            vec!["10".into(), "9.5".into(), "-1".into()],
            DataType::BigDecimal,
        );
        assert_eq!(d.value(0), Value::BigDecimal("-1".into()));
        assert_eq!(d.value(2), Value::BigDecimal("10".into()));
        assert_eq!(d.index_of(&Value::Double(9.5)), Some(1));
        assert_eq!(d.f64_at(1), 9.5);
    }

    #[test]
    fn rejects_corrupt_var_offsets() {
        let mut bytes = VarDictionary::encode([b"ab".as_slice(), b"cd"].into_iter()).unwrap();
        assert!(
            VarDictionary::from_bytes(Bytes::from_vec(bytes.clone()), DataType::String).is_ok()
        );
        bytes[20] = 9; // offset 1 beyond the data
        assert!(
            VarDictionary::from_bytes(Bytes::from_vec(bytes.clone()), DataType::String).is_err()
        );
        bytes[0] = 200; // count larger than the entry
        assert!(VarDictionary::from_bytes(Bytes::from_vec(bytes), DataType::String).is_err());
    }

    #[test]
    fn decoder_reads_ids_in_any_order() {
        let vals: Vec<String> = (0..100).map(|i| format!("text {i:03}")).collect();
        for block_len in [None, Some(8)] {
            let (sorted, d) = strings_in(vals.clone(), DataType::String, block_len);
            let decoder = d.decoder();
            // Strided ids jump between blocks on every read.
            for k in 0..300u32 {
                let id = (k * 37) % 100;
                assert_eq!(
                    decoder.value(id),
                    Value::String(sorted[id as usize].clone())
                );
            }
        }
    }

    fn blocked_entry() -> Vec<u8> {
        let vals: Vec<String> = (0..40).map(|i| format!("comment {i:02} text")).collect();
        VarDictionary::encode_with(vals.iter().map(|s| s.as_bytes()), Some(8)).unwrap()
    }

    fn parse(bytes: &[u8]) -> Result<VarDictionary, String> {
        VarDictionary::from_bytes(Bytes::from_vec(bytes.to_vec()), DataType::String)
    }

    #[test]
    fn large_dictionaries_are_blocked_small_ones_plain() {
        let big: Vec<String> = (0..70_000)
            .map(|i| format!("value number {i:08}"))
            .collect();
        let bytes = VarDictionary::encode(big.iter().map(|s| s.as_bytes())).unwrap();
        let raw: usize = big.iter().map(|s| s.len()).sum();
        assert!(bytes.len() < raw / 4, "{} vs {raw}", bytes.len());
        let d = parse(&bytes).unwrap();
        assert!(d.is_blocked());
        for i in [0u32, 1, 63, 64, 65, 69_999] {
            assert_eq!(d.value(i), Value::String(big[i as usize].clone()));
            let v = Value::String(big[i as usize].clone());
            assert_eq!(Dictionary::String(d.clone()).index_of(&v), Some(i));
        }
        let small = VarDictionary::encode([b"a".as_slice(), b"b"].into_iter()).unwrap();
        assert!(!parse(&small).unwrap().is_blocked());
    }

    #[test]
    fn rejects_corrupt_blocks() {
        let good = blocked_entry();
        let d = parse(&good).unwrap();
        assert!(d.is_blocked());
        assert_eq!(d.value(17), Value::String("comment 17 text".into()));
        // Every truncation is an error, never a panic.
        for n in 0..good.len() {
            assert!(parse(&good[..n]).is_err(), "truncated to {n}");
        }
        // Flipping any byte is an error or (e.g. in a head's text) still parses — never a panic.
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x5a;
            let _ = parse(&bad);
        }
        let mut bad = good.clone();
        bad[12..16].copy_from_slice(&0u32.to_le_bytes()); // block length 0
        assert!(parse(&bad).is_err());
        let mut bad = good.clone();
        bad[8..12].copy_from_slice(&7u32.to_le_bytes()); // unknown encoding
        assert!(parse(&bad).unwrap_err().contains("encoding"));
        let mut bad = good.clone();
        let last = bad.len() - 3;
        bad[last] ^= 0xff; // inside the last zstd frame
        assert!(parse(&bad).is_err());
        let mut bad = good;
        bad.push(0); // trailing bytes after the last frame
        assert!(parse(&bad).unwrap_err().contains("trailing"));
    }
}
