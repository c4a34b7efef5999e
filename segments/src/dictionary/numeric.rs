//! [`NumericDictionary`]: the sorted distinct values of an INT/LONG/FLOAT/DOUBLE column (and of
//! BOOLEAN and TIMESTAMP, stored as INT and LONG), a zero-copy `&[T]` over the memory map.
//!
//! Layout: `u64 count`, `u32 encoding`, `u32 scale`, then the values in one of two encodings,
//! whichever is smaller:
//! * `0` plain: `count` little-endian values (8-byte aligned, so the slice is viewed in place);
//! * `1` deltas: integers `k` delta-packed ([`crate::format::deltas`]) as `order_key(k) - rank`,
//!   non-decreasing because the values are distinct and sorted. Integer columns store their
//!   values; float columns whose every value is exactly `k / 10^scale` (prices, rates: decimal
//!   data) store `k`. Decoded into memory when the segment opens, after which lookups are the
//!   same array reads as the plain encoding.

use crate::format::{ByteReader, Bytes, TypedSlice, deltas};
use crate::native::{NativeType, sql_cmp_f64};
use crate::types::{DataType, DictId, Value};
use rayon::prelude::*;
use std::ops::Range;

/// Below this many values, [`NumericDictionary::ids_of`] looks them up on one thread.
const MIN_PARALLEL_LOOKUPS: usize = 1 << 13;

/// Sorted distinct fixed-width values; the dict id of a value is its rank.
#[derive(Clone, Debug)]
pub struct NumericDictionary<T: NativeType> {
    values: TypedSlice<T>,
    data_type: DataType,
}

const PLAIN: u32 = 0;
const DELTAS: u32 = 1;
/// Largest decimal scale tried for float dictionaries.
const MAX_SCALE: u32 = 6;
/// Flips the sign bit: an order-preserving map from `i64` to `u64`.
const SIGN: u64 = 1 << 63;

/// The value `k / 10^scale` (floats) or `k` (integers, `scale` 0).
#[inline]
fn from_scaled<T: NativeType>(k: i64, scale: u32) -> T {
    if T::INTEGRAL {
        T::from_bits64(k as u64)
    } else {
        T::from_f64(k as f64 / 10f64.powi(scale as i32))
    }
}

/// Whether `k` fits the integer type `T` (floats take any decoded integer).
fn in_range<T: NativeType>(k: i64) -> bool {
    !T::INTEGRAL || T::from_bits64(k as u64).to_i64() == k
}

/// Sorted distinct `values` as the integers they are `k / 10^scale` of, with the smallest such
/// scale: the integers themselves for integer columns; for float columns, only when every value
/// is finite, below 2^53 once scaled, and exactly recovered (bit for bit) by [`from_scaled`].
fn as_scaled_integers<T: NativeType>(values: &[T]) -> Option<(u32, Vec<i64>)> {
    if T::INTEGRAL {
        return Some((0, values.iter().map(|v| v.to_i64()).collect()));
    }
    (0..=MAX_SCALE).find_map(|scale| {
        let p = 10f64.powi(scale as i32);
        values
            .iter()
            .map(|&v| {
                let x = (v.to_f64() * p).round();
                let k = x as i64;
                (x.abs() < (1u64 << 53) as f64
                    && from_scaled::<T>(k, scale).to_bits64() == v.to_bits64())
                .then_some(k)
            })
            .collect::<Option<Vec<i64>>>()
            .map(|ks| (scale, ks))
    })
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
        let count = r.u64()?;
        let encoding = r.u32()?;
        let scale = r.u32()?;
        let values = match encoding {
            PLAIN => {
                let count = usize::try_from(count)
                    .ok()
                    .filter(|&n| n <= r.remaining() / T::WIDTH)
                    .ok_or_else(|| format!("dictionary length {count} exceeds the entry"))?;
                let values = bytes
                    .slice(r.pos(), count * T::WIDTH)
                    .ok_or("dictionary values out of bounds")?;
                TypedSlice::new(values)?
            }
            DELTAS => {
                // A block of 128 deltas takes at least one byte.
                let count = usize::try_from(count)
                    .ok()
                    .filter(|&n| n <= 1 + r.remaining().saturating_sub(8) * 128)
                    .ok_or_else(|| format!("dictionary length {count} exceeds the entry"))?;
                if scale > MAX_SCALE || (T::INTEGRAL && scale != 0) {
                    return Err(format!(
                        "decimal scale {scale} is not valid for this column"
                    ));
                }
                let keys = deltas::decode(&mut r, count)?;
                let values = keys
                    .iter()
                    .enumerate()
                    .map(|(rank, &key)| {
                        let k = (key.checked_add(rank as u64)? ^ SIGN) as i64;
                        in_range::<T>(k).then(|| from_scaled::<T>(k, scale))
                    })
                    .collect::<Option<Vec<T>>>()
                    .ok_or("delta-packed dictionary value out of range")?;
                TypedSlice::Owned(std::sync::Arc::new(values))
            }
            e => return Err(format!("unknown dictionary encoding {e}")),
        };
        Ok(NumericDictionary { values, data_type })
    }

    /// Serializes sorted distinct values, delta-packed when that is smaller.
    pub fn encode(sorted: &[T]) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + sorted.len() * T::WIDTH);
        out.extend_from_slice(&(sorted.len() as u64).to_le_bytes());
        if let Some((scale, ints)) = as_scaled_integers(sorted) {
            let keys: Vec<u64> = ints
                .iter()
                .enumerate()
                .map(|(rank, &k)| ((k as u64) ^ SIGN) - rank as u64)
                .collect();
            out.extend_from_slice(&DELTAS.to_le_bytes());
            out.extend_from_slice(&scale.to_le_bytes());
            deltas::encode(&keys, &mut out);
            if out.len() < 16 + sorted.len() * T::WIDTH {
                return out;
            }
            out.truncate(8);
        }
        out.extend_from_slice(&PLAIN.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
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

    /// The ids of those of `values` present, in the order of `values`. Each search starts at
    /// the previous hit and gallops forward, so ascending values (a runtime key filter's sorted
    /// keys) cost about one pass over the dictionary instead of a binary search each; any order
    /// is still answered correctly. Many values are cut into one run per pool thread, each
    /// looked up on its own thread.
    pub fn ids_of(&self, values: &[Value]) -> Vec<DictId> {
        let threads = rayon::current_num_threads();
        if threads < 2 || values.len() < MIN_PARALLEL_LOOKUPS {
            return self.ids_of_run(values);
        }
        let runs: Vec<Vec<DictId>> = values
            .par_chunks(values.len().div_ceil(threads))
            .map(|run| self.ids_of_run(run))
            .collect();
        runs.concat()
    }

    fn ids_of_run(&self, values: &[Value]) -> Vec<DictId> {
        let dict = self.values();
        let n = dict.len();
        let mut out = Vec::with_capacity(values.len());
        let mut from = 0usize;
        let mut last: Option<T> = None;
        for v in values {
            let Probe::Native(t) = self.probe(v) else {
                if let Some(Ok(id)) = self.search(v) {
                    out.push(id);
                }
                continue;
            };
            if last.is_some_and(|l| l.sql_cmp(&t).is_gt()) {
                from = 0;
            }
            last = Some(t);
            // Gallop: the first window [lo, hi) whose end is past `t`, then search inside it.
            let (mut lo, mut step) = (from, 1usize);
            let mut hi = (from + step).min(n);
            while hi < n && dict[hi - 1].sql_cmp(&t).is_lt() {
                lo = hi;
                step *= 2;
                hi = (lo + step).min(n);
            }
            // Every entry SQL counts equal (a zero is `-0.0` and `0.0`, adjacent).
            let first = lo + dict[lo..hi].partition_point(|x| x.sql_cmp(&t).is_lt());
            let mut end = first;
            while end < n && dict[end].sql_cmp(&t).is_eq() {
                out.push(end as DictId);
                end += 1;
            }
            from = end;
        }
        out
    }

    /// The ids of the values SQL counts equal to `v` (a zero matches both `-0.0` and `0.0`,
    /// two adjacent entries): an empty range at the number of smaller values when none is;
    /// `None` when `v` cannot be compared with this column.
    pub fn equal_range(&self, v: &Value) -> Option<Range<DictId>> {
        let values = self.values();
        let (lo, hi) = match self.probe(v) {
            Probe::Native(t) => (
                values.partition_point(|x| x.sql_cmp(&t).is_lt()),
                values.partition_point(|x| x.sql_cmp(&t).is_le()),
            ),
            Probe::F64(f) if f.is_nan() => return None,
            Probe::F64(f) => (
                values.partition_point(|x| sql_cmp_f64(x.to_f64(), f).is_lt()),
                values.partition_point(|x| sql_cmp_f64(x.to_f64(), f).is_le()),
            ),
            Probe::None => return None,
        };
        Some(lo as DictId..hi as DictId)
    }

    /// Like `slice::binary_search`: `Ok(id)` on a match (the first of SQL-equal entries),
    /// `Err(number of smaller values)` otherwise; `None` when `v` cannot be compared.
    pub fn search(&self, v: &Value) -> Option<Result<DictId, DictId>> {
        let r = self.equal_range(v)?;
        Some(if r.is_empty() {
            Err(r.start)
        } else {
            Ok(r.start)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A LONG dictionary of `v` (ascending, distinct).
    fn longs(v: Vec<i64>) -> NumericDictionary<i64> {
        NumericDictionary::<i64>::from_bytes(
            Bytes::from_vec(NumericDictionary::<i64>::encode(&v)),
            DataType::Long,
        )
        .unwrap()
    }

    #[test]
    fn ids_of_gallops_over_sorted_values_and_answers_any_order() {
        let d = longs((0..1000).map(|i| i * 3).collect());
        let ask: Vec<Value> = [0, 1, 3, 2997, 2998, 3000, 6, 9, -5, 1500]
            .into_iter()
            .map(Value::Long)
            .collect();
        assert_eq!(d.ids_of(&ask), vec![0, 1, 999, 2, 3, 500]);
        let all: Vec<Value> = (0..3000).map(Value::Long).collect();
        assert_eq!(d.ids_of(&all), (0..1000).collect::<Vec<DictId>>());
        assert_eq!(d.ids_of(&[Value::Long(2997)]), vec![999]);
    }

    #[test]
    fn many_values_are_looked_up_in_runs_with_the_same_answer() {
        let d = longs((0..50_000).map(|i| i * 2).collect());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        // Ascending, then descending: runs cut anywhere give each value's own id, in order.
        for ask in [
            (0..40_000).collect::<Vec<i64>>(),
            (0..40_000).rev().collect(),
        ] {
            let values: Vec<Value> = ask.iter().copied().map(Value::Long).collect();
            let expected: Vec<DictId> = ask
                .iter()
                .filter(|x| *x % 2 == 0)
                .map(|x| (x / 2) as DictId)
                .collect();
            assert!(values.len() >= MIN_PARALLEL_LOOKUPS);
            assert_eq!(pool.install(|| d.ids_of(&values)), expected);
            assert_eq!(d.ids_of_run(&values), expected);
        }
    }

    fn round_trip<T: NativeType>(mut v: Vec<T>, dt: DataType) -> (Vec<T>, u32) {
        v.sort_by(|a, b| a.total_cmp(b));
        v.dedup_by(|a, b| a.total_cmp(b).is_eq());
        let bytes = NumericDictionary::<T>::encode(&v);
        let encoding = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
        let d = NumericDictionary::<T>::from_bytes(Bytes::from_vec(bytes.clone()), dt).unwrap();
        let bits = |s: &[T]| s.iter().map(|x| x.to_bits64()).collect::<Vec<_>>();
        assert_eq!(bits(d.values()), bits(&v));
        for n in 0..bytes.len() {
            // Truncation is an error or (plain, cut inside the values) fewer values; never a panic.
            let _ = NumericDictionary::<T>::from_bytes(Bytes::from_vec(bytes[..n].to_vec()), dt);
        }
        (v, encoding)
    }

    proptest! {
        #[test]
        fn integers_round_trip(v in proptest::collection::vec(any::<i64>(), 0..400), dense in any::<bool>()) {
            let v = if dense { v.iter().map(|x| x % 5000).collect() } else { v };
            let (v, enc) = round_trip::<i64>(v, DataType::Long);
            if dense && v.len() > 8 {
                prop_assert_eq!(enc, DELTAS);
            }
        }

        #[test]
        fn ints_round_trip(v in proptest::collection::vec(any::<i32>(), 0..400)) {
            round_trip::<i32>(v, DataType::Int);
        }

        #[test]
        fn decimal_doubles_are_delta_packed(k in proptest::collection::vec(-10_000_000i64..10_000_000, 20..400), scale in 0u32..4) {
            let p = 10f64.powi(scale as i32);
            let v: Vec<f64> = k.iter().map(|&k| k as f64 / p).filter(|x| *x != 0.0).collect();
            let (v, enc) = round_trip::<f64>(v, DataType::Double);
            prop_assume!(v.len() > 16);
            prop_assert_eq!(enc, DELTAS);
        }

        #[test]
        fn any_doubles_and_floats_round_trip(v in proptest::collection::vec(any::<f64>(), 0..200), f in proptest::collection::vec(any::<f32>(), 0..200)) {
            round_trip::<f64>(v, DataType::Double);
            round_trip::<f32>(f, DataType::Float);
        }
    }

    #[test]
    fn signed_zero_and_huge_values_stay_plain() {
        assert_eq!(
            round_trip(vec![-0.0f64, 0.0, 1.5, 2.25], DataType::Double).1,
            PLAIN
        );
        let (_, enc) = round_trip(vec![1e300f64, 2e300], DataType::Double);
        assert_eq!(enc, PLAIN);
        let (_, enc) = round_trip(
            (0..100).map(|i| i as f64 * 0.25).collect(),
            DataType::Double,
        );
        assert_eq!(enc, DELTAS);
    }

    #[test]
    fn rejects_bad_headers() {
        let mut b = NumericDictionary::<i64>::encode(&(0..100).collect::<Vec<_>>());
        b[8] = 9;
        assert!(
            NumericDictionary::<i64>::from_bytes(Bytes::from_vec(b.clone()), DataType::Long)
                .is_err()
        );
        b[8] = DELTAS as u8;
        b[12] = 1; // a scale on an integer column
        assert!(NumericDictionary::<i64>::from_bytes(Bytes::from_vec(b), DataType::Long).is_err());
        // Keys that decode outside INT.
        let wide = NumericDictionary::<i64>::encode(&[0, 1, 1 << 40]);
        assert!(
            NumericDictionary::<i32>::from_bytes(Bytes::from_vec(wide), DataType::Int).is_err()
        );
    }
}
