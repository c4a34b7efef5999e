//! [`RangeIndexReader`]: Pinot's range index version 2 — ranges of keys to bitmaps, answering
//! `<, <=, >, >=, BETWEEN` with exact and partial matches.
//!
//! Each doc gets an unsigned key whose order is the value order: its dict id for dictionary
//! columns, or for raw numeric columns the order-preserving encoding of its value
//! ([`NativeType::order_key`]) minus the column minimum. Three layouts:
//!
//! * **bucketed** (single-value dictionary columns): the dict ids are cut into consecutive
//!   ranges holding about [`BUCKET_DOCS`] docs each (an id is never split), with one bitmap
//!   per range. Buckets inside a queried range match exactly; the at most two buckets it cuts
//!   through are [`RangeMatch::partial`], confirmed by the caller from the bit-packed forward
//!   index, which reads a doc's id at random cheaply. A narrow range costs two buckets' worth
//!   of docs whatever the column's cardinality; a wide one is built as all docs minus the
//!   buckets outside it, so it costs the docs it does *not* match.
//! * **bit-sliced** (raw numeric columns, whose zstd-chunked forward index is costly to read
//!   at random, so every answer must be exact): slice `b` is the bitmap of docs whose key has
//!   bit `b` set; "key ≤ c" is computed from the slices with O'Neil & Quass's algorithm, and a
//!   range is `le(hi) − lt(lo)`. Segments written before the bucketed layout existed also
//!   carry it for dictionary columns, and are read as they are.
//! * **per id** (multi-value columns, where a doc matches if any of its values does): one
//!   bitmap per dict id, and a range is the union of the bitmaps of its ids.
//!
//! Layout: `u32 mode` (0 bit-sliced, 1 per-id, 2 bucketed), `u32 count` (bitmaps), `u64 base
//! key`, `u64 docs`, `count + 1` `u64` end offsets (first 0), for the bucketed mode `count + 1`
//! `u64` bucket bounds (bucket `b` holds keys `bounds[b] .. bounds[b + 1]`), then the
//! serialized bitmaps.

use super::dense::DenseBits;
use super::union::{union, union_with};
use crate::format::{ByteReader, Bytes};
use crate::native::{NativeType, sql_cmp_f64};
use crate::types::{DataType, DictId, Value};
use crate::with_native_type;
use roaring::RoaringBitmap;
use std::cmp::Ordering;
use std::ops::{Bound, Range};
use std::sync::OnceLock;

/// Docs matching a range: `exact` certainly match; `partial` need a scan to confirm.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RangeMatch {
    pub exact: RoaringBitmap,
    pub partial: RoaringBitmap,
}

const MODE_BIT_SLICED: u32 = 0;
const MODE_PER_ID: u32 = 1;
const MODE_BUCKETED: u32 = 2;

/// Docs per bucket the bucketed layout aims for: a range confirms at most two buckets doc by
/// doc, each doc a random read of the forward index (a cache miss when the query comes cold),
/// so fewer docs per bucket make narrow ranges cheaper; more buckets make the index larger and
/// wide ranges union more bitmaps. At 4,096 (sf1 lineitem, 6M docs), a 101-value `l_partkey`
/// range takes 0.11 ms instead of 0.24 warm and 0.59 instead of 1.27 cold, a 25% range costs
/// the same, and the segment grows by 1 MB of 157.
pub const BUCKET_DOCS: u64 = 4_096;

/// Writes the header, the offsets, `bounds` (bucketed mode only) and the bitmaps.
fn encode_bitmaps(
    mode: u32,
    base: u64,
    docs: u32,
    maps: Vec<RoaringBitmap>,
    bounds: &[u64],
) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&mode.to_le_bytes());
    out.extend_from_slice(&(maps.len() as u32).to_le_bytes());
    out.extend_from_slice(&base.to_le_bytes());
    out.extend_from_slice(&(docs as u64).to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes());
    let mut data = Vec::new();
    for mut m in maps {
        m.optimize();
        // Writing into a Vec cannot fail.
        let _ = m.serialize_into(&mut data);
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    }
    for b in bounds {
        out.extend_from_slice(&b.to_le_bytes());
    }
    out.extend_from_slice(&data);
    out
}

/// Builds a bit-sliced index over per-doc keys (already relative to `base`).
pub fn encode_bit_sliced(keys: &[u64], base: u64) -> Vec<u8> {
    let max = keys.iter().copied().max().unwrap_or(0);
    let slices = (64 - max.leading_zeros()) as usize;
    // Slices are dense (about half the docs each): set bits flat, convert each slice once.
    let mut bits = vec![DenseBits::new(keys.len()); slices];
    for (doc, &k) in keys.iter().enumerate() {
        let mut k = k;
        while k != 0 {
            bits[k.trailing_zeros() as usize].set(doc as u32);
            k &= k - 1;
        }
    }
    let maps = bits.iter().map(DenseBits::to_roaring).collect();
    encode_bitmaps(MODE_BIT_SLICED, base, keys.len() as u32, maps, &[])
}

/// Builds the bucketed index over the dict ids of a single-value column of `cardinality`
/// values: consecutive ids go to one bucket until it holds [`BUCKET_DOCS`] docs.
pub fn encode_dict_ids(ids: &[u32], cardinality: u32) -> Vec<u8> {
    encode_buckets(ids, cardinality, BUCKET_DOCS)
}

/// [`encode_dict_ids`] with buckets of `bucket_docs` docs.
fn encode_buckets(ids: &[u32], cardinality: u32, bucket_docs: u64) -> Vec<u8> {
    let mut counts = vec![0u64; cardinality as usize];
    for &id in ids {
        counts[id as usize] += 1;
    }
    let mut bounds = vec![0u64];
    let mut bucket_of = Vec::with_capacity(counts.len());
    let mut held = 0;
    for (id, &n) in counts.iter().enumerate() {
        bucket_of.push((bounds.len() - 1) as u32);
        held += n;
        if held >= bucket_docs && id + 1 < counts.len() {
            bounds.push(id as u64 + 1);
            held = 0;
        }
    }
    if cardinality > 0 {
        bounds.push(cardinality as u64);
    }
    let mut maps = vec![RoaringBitmap::new(); bounds.len() - 1];
    for (doc, &id) in ids.iter().enumerate() {
        // Docs arrive in increasing order, so each push appends.
        let _ = maps[bucket_of[id as usize] as usize].try_push(doc as u32);
    }
    encode_bitmaps(MODE_BUCKETED, 0, ids.len() as u32, maps, &bounds)
}

/// Builds a bit-sliced index over the values of a raw numeric column.
pub fn encode_values<T: NativeType>(values: &[T]) -> Vec<u8> {
    let base = values.iter().map(|v| v.order_key()).min().unwrap_or(0);
    let keys: Vec<u64> = values.iter().map(|v| v.order_key() - base).collect();
    encode_bit_sliced(&keys, base)
}

/// Builds the per-dict-id form (multi-value columns).
pub fn encode_per_id(bitmaps: Vec<RoaringBitmap>, docs: u32) -> Vec<u8> {
    encode_bitmaps(MODE_PER_ID, 0, docs, bitmaps, &[])
}

/// A range index.
#[derive(Debug)]
pub struct RangeIndexReader {
    mode: u32,
    base: u64,
    docs: u32,
    offsets: Bytes,
    data: Bytes,
    count: usize,
    /// Bucketed mode: bucket `b` holds keys `bounds[b] .. bounds[b + 1]` (empty otherwise).
    bounds: Vec<u64>,
    /// The raw column's logical type (`None` for dictionary columns: keys are dict ids).
    value_type: Option<DataType>,
    decoded: OnceLock<Vec<RoaringBitmap>>,
}

impl RangeIndexReader {
    /// Parses an entry. `value_type` is the column's data type for raw columns, `None` for
    /// dictionary-encoded ones.
    pub fn from_bytes(
        bytes: Bytes,
        total_docs: u32,
        value_type: Option<DataType>,
    ) -> Result<RangeIndexReader, String> {
        let mut r = ByteReader::new(&bytes);
        let mode = r.u32()?;
        let count = r.u32()? as usize;
        let base = r.u64()?;
        let docs = r.u64()?;
        if ![MODE_BIT_SLICED, MODE_PER_ID, MODE_BUCKETED].contains(&mode) {
            return Err(format!("unknown range index mode {mode}"));
        }
        if mode == MODE_BIT_SLICED && count > 64 {
            return Err(format!("{count} bit slices exceed 64"));
        }
        if docs != total_docs as u64 {
            return Err(format!(
                "range index covers {docs} docs, segment has {total_docs}"
            ));
        }
        let offsets_at = r.pos();
        r.take((count + 1) * 8)?;
        let mut bounds = Vec::new();
        if mode == MODE_BUCKETED {
            if count == 0 && docs != 0 {
                return Err("a bucketed range index without buckets".into());
            }
            for _ in 0..=count {
                let b = r.u64()?;
                if bounds.last().is_some_and(|&p| p >= b) {
                    return Err(format!("bucket bound {b} is out of order"));
                }
                bounds.push(b);
            }
        }
        let data_at = r.pos();
        let reader = RangeIndexReader {
            mode,
            base,
            docs: total_docs,
            offsets: bytes
                .slice(offsets_at, (count + 1) * 8)
                .ok_or("offsets out of bounds")?,
            data: bytes
                .slice(data_at, bytes.len() - data_at)
                .ok_or("bitmaps out of bounds")?,
            count,
            bounds,
            value_type,
            decoded: OnceLock::new(),
        };
        let mut prev = 0;
        for i in 0..=count {
            let o = reader.offset(i);
            if (i == 0 && o != 0) || o < prev || o > reader.data.len() {
                return Err(format!("bitmap offset {i} ({o}) is out of order or bounds"));
            }
            prev = o;
        }
        Ok(reader)
    }

    fn offset(&self, i: usize) -> usize {
        let b = &self.offsets[i * 8..i * 8 + 8];
        u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as usize
    }

    fn bitmap(&self, i: usize) -> RoaringBitmap {
        RoaringBitmap::deserialize_from(&self.data[self.offset(i)..self.offset(i + 1)])
            .unwrap_or_default()
    }

    fn bitmaps(&self) -> &[RoaringBitmap] {
        self.decoded
            .get_or_init(|| (0..self.count).map(|i| self.bitmap(i)).collect())
    }

    fn all_docs(&self) -> RoaringBitmap {
        let mut b = RoaringBitmap::new();
        b.insert_range(0..self.docs);
        b
    }

    /// Docs of `base` whose key, restricted to its low `bits` bits, is `<= c` (O'Neil &
    /// Quass over slices `bits-1 ..= 0`).
    fn le_within(&self, base: &RoaringBitmap, c: u64, bits: usize) -> RoaringBitmap {
        let slices = self.bitmaps();
        let mut lt = RoaringBitmap::new();
        let mut eq = base.clone();
        for b in (0..bits).rev() {
            if eq.is_empty() {
                break;
            }
            let slice = &slices[b];
            if c >> b & 1 == 1 {
                lt |= &eq - slice;
                eq &= slice;
            } else {
                eq -= slice;
            }
        }
        lt | eq
    }

    /// Docs whose key lies in `lo..=hi`. The bits above the highest bit where `lo` and `hi`
    /// differ must equal theirs: those slices are intersected first, so a narrow range
    /// shrinks the candidate set before the comparisons on the low bits run.
    fn key_range(&self, lo: u64, hi: u64) -> RoaringBitmap {
        let slices = self.bitmaps();
        let n = slices.len();
        let max = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        let hi = hi.min(max);
        if lo > hi {
            return RoaringBitmap::new();
        }
        let low_bits = (64 - (lo ^ hi).leading_zeros()) as usize;
        let mut prefix: Option<RoaringBitmap> = None;
        for b in (low_bits..n).rev() {
            let slice = &slices[b];
            let set = lo >> b & 1 == 1;
            prefix = Some(match prefix {
                None if set => slice.clone(),
                None => self.all_docs() - slice,
                Some(p) if set => p & slice,
                Some(p) => p - slice,
            });
            if prefix.as_ref().is_some_and(RoaringBitmap::is_empty) {
                return RoaringBitmap::new();
            }
        }
        let base = prefix.unwrap_or_else(|| self.all_docs());
        let mask = if low_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << low_bits) - 1
        };
        let (lo_low, hi_low) = (lo & mask, hi & mask);
        let upto = if hi_low == mask {
            base
        } else {
            self.le_within(&base, hi_low, low_bits)
        };
        if lo_low == 0 {
            upto
        } else {
            let below = self.le_within(&upto, lo_low - 1, low_bits);
            upto - below
        }
    }

    /// Docs whose dict id is in `ids` (dictionary columns). Exact.
    pub fn matching(&self, ids: Range<DictId>) -> RangeMatch {
        let exact = if ids.is_empty() {
            RoaringBitmap::new()
        } else if self.mode == MODE_PER_ID {
            let end = (ids.end as usize).min(self.count);
            let maps: Vec<&RoaringBitmap> = self.bitmaps()[(ids.start as usize).min(end)..end]
                .iter()
                .collect();
            union(&maps)
        } else if self.mode == MODE_BUCKETED {
            return self.bucket_range(ids.start as u64, ids.end as u64 - 1);
        } else {
            self.key_range(ids.start as u64, ids.end as u64 - 1)
        };
        RangeMatch {
            exact,
            partial: RoaringBitmap::new(),
        }
    }

    /// Bucketed mode: docs whose key lies in `lo..=hi`, exact for the buckets inside the range
    /// and partial for the ones it cuts through.
    fn bucket_range(&self, lo: u64, hi: u64) -> RangeMatch {
        let mut m = RangeMatch::default();
        let (Some(&first_key), Some(&end_key)) = (self.bounds.first(), self.bounds.last()) else {
            return m;
        };
        let Some(last_key) = end_key.checked_sub(1) else {
            return m;
        };
        let (lo, hi) = (lo.max(first_key), hi.min(last_key));
        if lo > hi {
            return m;
        }
        // The buckets holding `lo` and `hi`.
        let bucket = |k: u64| self.bounds.partition_point(|&b| b <= k) - 1;
        let (first, last) = (bucket(lo), bucket(hi));
        let maps = self.bitmaps();
        let inside = |b: usize| lo <= self.bounds[b] && self.bounds[b + 1] - 1 <= hi;
        let mut exact_docs = 0;
        for (b, map) in maps.iter().enumerate().take(last + 1).skip(first) {
            if inside(b) {
                exact_docs += map.len();
            } else {
                m.partial |= map;
            }
        }
        m.exact = if exact_docs <= self.docs as u64 / 2 {
            let exact: Vec<&RoaringBitmap> = (first..=last)
                .filter(|&b| inside(b))
                .map(|b| &maps[b])
                .collect();
            union(&exact)
        } else {
            // Most docs match: remove the docs of the other buckets from all docs instead. All
            // docs as bitmap containers (not `all_docs`' run containers, which a subtraction
            // splits run by run) keep the subtraction word-wise.
            let others: Vec<&RoaringBitmap> = (0..maps.len())
                .filter(|&b| !(first..=last).contains(&b) || !inside(b))
                .map(|b| &maps[b])
                .collect();
            let others = union_with(&others, true);
            DenseBits::full(self.docs as usize).to_roaring() - others
        };
        m
    }

    /// Docs whose value lies between the bounds (raw numeric columns). Exact. On a dictionary
    /// column (use [`Dictionary::id_range`](crate::dictionary::Dictionary::id_range) +
    /// [`RangeIndexReader::matching`] there) every doc is returned as partial.
    pub fn matching_values(&self, lower: Bound<&Value>, upper: Bound<&Value>) -> RangeMatch {
        let Some(dt) = self.value_type.filter(|_| self.mode == MODE_BIT_SLICED) else {
            return RangeMatch {
                exact: RoaringBitmap::new(),
                partial: self.all_docs(),
            };
        };
        let keys =
            with_native_type!(dt.stored(), T => key_bounds::<T>(dt, lower, upper), _ => None);
        let exact = match keys {
            Some((lo, hi)) if hi >= self.base => {
                self.key_range(lo.saturating_sub(self.base), hi - self.base)
            }
            _ => RoaringBitmap::new(),
        };
        RangeMatch {
            exact,
            partial: RoaringBitmap::new(),
        }
    }
}

/// A bound value as a number to compare `T`s against.
#[derive(Clone, Copy)]
enum Num {
    I(i128),
    F(f64),
}

fn to_num(dt: DataType, v: &Value) -> Option<Num> {
    let v = match v {
        Value::String(_) | Value::Json(_) => v.cast(dt).ok()?,
        _ => v.clone(),
    };
    match v.as_i64() {
        Some(i) => Some(Num::I(i as i128)),
        None => v.as_f64().filter(|f| !f.is_nan()).map(Num::F),
    }
}

fn cmp_num<T: NativeType>(x: T, n: Num) -> Ordering {
    match n {
        Num::I(i) if T::INTEGRAL => (x.to_i64() as i128).cmp(&i),
        Num::I(i) => sql_cmp_f64(x.to_f64(), i as f64),
        Num::F(f) => sql_cmp_f64(x.to_f64(), f),
    }
}

fn num_to_t<T: NativeType>(n: Num) -> T {
    match n {
        Num::I(i) if T::INTEGRAL => {
            let (min, max) = if T::WIDTH == 4 {
                (i32::MIN as i128, i32::MAX as i128)
            } else {
                (i64::MIN as i128, i64::MAX as i128)
            };
            T::from_bits64(i.clamp(min, max) as i64 as u64)
        }
        Num::I(i) => T::from_f64(i as f64),
        Num::F(f) => T::from_f64(f),
    }
}

/// A float zero as `+0.0` (`positive`) or `-0.0`, the two ends of the zeros' run in the total
/// order; any other value as it is.
fn signed_zero<T: NativeType>(x: T, positive: bool) -> T {
    if T::INTEGRAL || x.to_f64() != 0.0 {
        x
    } else if positive {
        T::from_f64(0.0)
    } else {
        T::from_f64(-0.0)
    }
}

/// Inclusive order-key bounds of the `T` values between the bounds; `None` if none can match.
fn key_bounds<T: NativeType>(
    dt: DataType,
    lower: Bound<&Value>,
    upper: Bound<&Value>,
) -> Option<(u64, u64)> {
    let lo = match lower {
        Bound::Unbounded => 0,
        Bound::Included(v) | Bound::Excluded(v) => {
            let n = to_num(dt, v)?;
            // SQL counts both zeros equal: an inclusive lower bound starts at -0.0.
            let x = signed_zero(num_to_t::<T>(n), matches!(lower, Bound::Excluded(_)));
            let k = x.order_key();
            let c = cmp_num(x, n);
            let bump = match lower {
                Bound::Included(_) => c == Ordering::Less,
                _ => c != Ordering::Greater,
            };
            if bump { k.checked_add(1)? } else { k }
        }
    };
    let hi = match upper {
        Bound::Unbounded => u64::MAX,
        Bound::Included(v) | Bound::Excluded(v) => {
            let n = to_num(dt, v)?;
            // An inclusive upper bound ends at +0.0.
            let x = signed_zero(num_to_t::<T>(n), matches!(upper, Bound::Included(_)));
            let k = x.order_key();
            let c = cmp_num(x, n);
            let drop = match upper {
                Bound::Included(_) => c == Ordering::Greater,
                _ => c != Ordering::Less,
            };
            if drop { k.checked_sub(1)? } else { k }
        }
    };
    (lo <= hi).then_some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bound(kind: u8, v: &Value) -> Bound<&Value> {
        match kind % 3 {
            0 => Bound::Unbounded,
            1 => Bound::Included(v),
            _ => Bound::Excluded(v),
        }
    }

    fn in_bounds(x: f64, lo: Bound<&Value>, hi: Bound<&Value>) -> bool {
        let f = |v: &Value| v.as_f64().unwrap();
        (match lo {
            Bound::Unbounded => true,
            Bound::Included(v) => x >= f(v),
            Bound::Excluded(v) => x > f(v),
        }) && (match hi {
            Bound::Unbounded => true,
            Bound::Included(v) => x <= f(v),
            Bound::Excluded(v) => x < f(v),
        })
    }

    proptest! {
        #[test]
        fn dict_id_buckets_match_brute_force(ids in proptest::collection::vec(0u32..1000, 0..600), a in 0u32..1100, b in 0u32..1100, bucket_docs in 1u64..200) {
            let card = ids.iter().max().map_or(0, |m| m + 1);
            let r = RangeIndexReader::from_bytes(Bytes::from_vec(encode_buckets(&ids, card, bucket_docs)), ids.len() as u32, None).unwrap();
            let m = r.matching(a..b);
            let brute: RoaringBitmap = (0..ids.len() as u32).filter(|&d| (a..b).contains(&ids[d as usize])).collect();
            // Exact docs all match, partial ones are disjoint from them, and together they
            // hold every match.
            prop_assert!(m.exact.is_subset(&brute));
            prop_assert!(m.exact.is_disjoint(&m.partial));
            prop_assert_eq!(&(&m.exact | &(&m.partial & &brute)), &brute);
            // Only the (at most two) buckets the range cuts through are partial.
            let mut counts = [0u64; 1000];
            ids.iter().for_each(|&i| counts[i as usize] += 1);
            let heaviest = counts.iter().copied().max().unwrap_or(0);
            prop_assert!(m.partial.len() <= 2 * (bucket_docs - 1 + heaviest));
        }

        #[test]
        fn dict_id_bit_slices_match_brute_force(ids in proptest::collection::vec(0u32..1000, 0..600), a in 0u32..1100, b in 0u32..1100) {
            // Segments written before the bucketed layout carry bit slices over dict ids.
            let keys: Vec<u64> = ids.iter().map(|&i| i as u64).collect();
            let r = RangeIndexReader::from_bytes(Bytes::from_vec(encode_bit_sliced(&keys, 0)), ids.len() as u32, None).unwrap();
            let m = r.matching(a..b);
            let brute: RoaringBitmap = (0..ids.len() as u32).filter(|&d| (a..b).contains(&ids[d as usize])).collect();
            prop_assert_eq!(m.exact, brute);
            prop_assert!(m.partial.is_empty());
        }

        #[test]
        fn raw_long_ranges_match_brute_force(vals in proptest::collection::vec(-1000i64..1000, 0..500), lo in -1100i64..1100, hi in -1100i64..1100, lk: u8, hk: u8, float_bounds: bool) {
            let r = RangeIndexReader::from_bytes(Bytes::from_vec(encode_values(&vals)), vals.len() as u32, Some(DataType::Long)).unwrap();
            let (lv, hv) = if float_bounds {
                (Value::Double(lo as f64 + 0.5), Value::Double(hi as f64 - 0.25))
            } else {
                (Value::Long(lo), Value::Int(hi as i32))
            };
            let (l, h) = (bound(lk, &lv), bound(hk, &hv));
            let brute: RoaringBitmap = (0..vals.len() as u32).filter(|&d| in_bounds(vals[d as usize] as f64, l, h)).collect();
            prop_assert_eq!(r.matching_values(l, h).exact, brute);
        }

        #[test]
        fn raw_double_ranges_match_brute_force(vals in proptest::collection::vec(-1e3f64..1e3, 0..500), lo in -1.1e3f64..1.1e3, hi in -1.1e3f64..1.1e3, lk: u8, hk: u8, pick: usize) {
            let lo = if vals.is_empty() { lo } else { vals[pick % vals.len()] };
            let r = RangeIndexReader::from_bytes(Bytes::from_vec(encode_values(&vals)), vals.len() as u32, Some(DataType::Double)).unwrap();
            let (lv, hv) = (Value::Double(lo), Value::Double(hi));
            let (l, h) = (bound(lk, &lv), bound(hk, &hv));
            let brute: RoaringBitmap = (0..vals.len() as u32).filter(|&d| in_bounds(vals[d as usize], l, h)).collect();
            prop_assert_eq!(r.matching_values(l, h).exact, brute);
        }

        #[test]
        fn raw_float_and_int_columns(vals in proptest::collection::vec(any::<i32>(), 0..300), fl in proptest::collection::vec(-10f32..10.0, 0..300), p in -12f64..12.0, q in any::<i64>()) {
            let r = RangeIndexReader::from_bytes(Bytes::from_vec(encode_values(&fl)), fl.len() as u32, Some(DataType::Float)).unwrap();
            let pv = Value::Double(p);
            let brute: RoaringBitmap = (0..fl.len() as u32).filter(|&d| (fl[d as usize] as f64) > p).collect();
            prop_assert_eq!(r.matching_values(Bound::Excluded(&pv), Bound::Unbounded).exact, brute);
            let r = RangeIndexReader::from_bytes(Bytes::from_vec(encode_values(&vals)), vals.len() as u32, Some(DataType::Int)).unwrap();
            let qv = Value::Long(q);
            let brute: RoaringBitmap = (0..vals.len() as u32).filter(|&d| (vals[d as usize] as i64) <= q).collect();
            prop_assert_eq!(r.matching_values(Bound::Unbounded, Bound::Included(&qv)).exact, brute);
        }

        #[test]
        fn per_id_mode_unions(docs in proptest::collection::vec(proptest::collection::vec(0u32..20, 0..4), 0..200), a in 0u32..21, b in 0u32..21) {
            let mut maps = vec![RoaringBitmap::new(); 20];
            for (d, vs) in docs.iter().enumerate() { for &v in vs { maps[v as usize].insert(d as u32); } }
            let r = RangeIndexReader::from_bytes(Bytes::from_vec(encode_per_id(maps, docs.len() as u32)), docs.len() as u32, None).unwrap();
            let brute: RoaringBitmap = (0..docs.len() as u32).filter(|&d| docs[d as usize].iter().any(|v| (a..b).contains(v))).collect();
            prop_assert_eq!(r.matching(a..b).exact, brute);
        }
    }

    #[test]
    fn extremes_and_dictionary_fallback() {
        let vals = [i64::MIN, -1, 0, i64::MAX];
        let r = RangeIndexReader::from_bytes(
            Bytes::from_vec(encode_values(&vals)),
            4,
            Some(DataType::Long),
        )
        .unwrap();
        let all = r.matching_values(Bound::Unbounded, Bound::Unbounded).exact;
        assert_eq!(all.len(), 4);
        let m = r.matching_values(Bound::Excluded(&Value::Long(i64::MAX)), Bound::Unbounded);
        assert!(m.exact.is_empty());
        let m = r.matching_values(Bound::Included(&Value::Double(1e300)), Bound::Unbounded);
        assert!(m.exact.is_empty());
        let m = r.matching_values(Bound::Unbounded, Bound::Excluded(&Value::Long(i64::MIN)));
        assert!(m.exact.is_empty());
        let m = r.matching_values(Bound::Included(&Value::Double(f64::NAN)), Bound::Unbounded);
        assert!(m.exact.is_empty());

        let ts = [0i64, 1_577_836_800_000];
        let r = RangeIndexReader::from_bytes(
            Bytes::from_vec(encode_values(&ts)),
            2,
            Some(DataType::Timestamp),
        )
        .unwrap();
        let m = r.matching_values(
            Bound::Included(&Value::String("2020-01-01".into())),
            Bound::Unbounded,
        );
        assert_eq!(m.exact.iter().collect::<Vec<_>>(), vec![1]);

        let r = RangeIndexReader::from_bytes(Bytes::from_vec(encode_dict_ids(&[0, 1], 2)), 2, None)
            .unwrap();
        let m = r.matching_values(Bound::Unbounded, Bound::Unbounded);
        assert_eq!((m.exact.len(), m.partial.len()), (0, 2));
        assert!(
            RangeIndexReader::from_bytes(Bytes::from_vec(encode_dict_ids(&[0, 1], 2)), 3, None)
                .is_err()
        );
        // Bucket bounds out of order are refused.
        let mut bytes = encode_buckets(&[0, 1, 2, 3], 4, 1);
        let bounds_at = 24 + 5 * 8;
        bytes[bounds_at..bounds_at + 8].copy_from_slice(&9u64.to_le_bytes());
        assert!(RangeIndexReader::from_bytes(Bytes::from_vec(bytes), 4, None).is_err());
    }
}
