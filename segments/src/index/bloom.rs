//! [`BloomFilterReader`]: a bloom filter over a column's distinct values, used to prune segments
//! on equality predicates (no false negatives; false-positive rate ≈ the configured `fpp`,
//! default 0.05).
//!
//! Values are hashed by their stored form ([`value_hash`]: the bit pattern of fixed-width values,
//! the bytes of var-width ones) with [`crate::hash`]; the `k` probe positions come from double
//! hashing. Layout: `u32 k`, `u32 reserved`, `u64 bits`, then `ceil(bits / 64)` little-endian
//! `u64` words.

use crate::dictionary::var::value_to_bytes;
use crate::format::{ByteReader, Bytes, TypedSlice};
use crate::hash::{hash_bytes, hash_u64, mix64};
use crate::native::NativeType;
use crate::types::{DataType, StoredType, Value};
use crate::with_native_type;

/// Default false-positive probability.
pub const DEFAULT_FPP: f64 = 0.05;

/// The hash of a fixed-width stored value.
#[inline]
pub fn native_hash<T: NativeType>(v: T) -> u64 {
    hash_u64(v.to_bits64())
}

/// The hash `v` has as a value of a column of `data_type`; `None` if it cannot be converted
/// (then no stored value can equal it).
pub fn value_hash(data_type: DataType, v: &Value) -> Option<u64> {
    with_native_type!(data_type.stored(), T => {
        let t = T::from_value(v).or_else(|| T::from_value(&v.cast(data_type).ok()?))?;
        Some(native_hash(t))
    }, _ => value_to_bytes(data_type, v).map(|b| hash_bytes(&b)))
}

/// Accumulates hashes into a filter sized for `expected` distinct values at `fpp`.
pub struct BloomBuilder {
    k: u32,
    bits: u64,
    words: Vec<u64>,
}

impl BloomBuilder {
    /// A filter for `expected` distinct values with false-positive probability `fpp`.
    pub fn new(expected: u64, fpp: f64) -> BloomBuilder {
        let n = expected.max(1) as f64;
        let p = if fpp > 0.0 && fpp < 1.0 {
            fpp
        } else {
            DEFAULT_FPP
        };
        let ln2 = std::f64::consts::LN_2;
        let bits = ((-n * p.ln() / (ln2 * ln2)).ceil() as u64).max(64);
        let k = ((bits as f64 / n * ln2).round() as u32).clamp(1, 30);
        BloomBuilder {
            k,
            bits,
            words: vec![0; bits.div_ceil(64) as usize],
        }
    }

    /// Adds a value hash.
    pub fn insert_hash(&mut self, h: u64) {
        for pos in positions(h, self.k, self.bits) {
            self.words[(pos / 64) as usize] |= 1 << (pos % 64);
        }
    }

    /// Serializes the filter.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.words.len() * 8);
        out.extend_from_slice(&self.k.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&self.bits.to_le_bytes());
        for w in &self.words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }
}

fn positions(h: u64, k: u32, bits: u64) -> impl Iterator<Item = u64> {
    let h2 = mix64(h) | 1;
    (0..k as u64).map(move |i| h.wrapping_add(i.wrapping_mul(h2)) % bits)
}

/// A column's bloom filter.
#[derive(Clone, Debug)]
pub struct BloomFilterReader {
    k: u32,
    bits: u64,
    words: TypedSlice<i64>,
    data_type: DataType,
}

impl BloomFilterReader {
    /// Parses an entry written by [`BloomBuilder::encode`] for a column of `data_type`.
    pub fn from_bytes(bytes: Bytes, data_type: DataType) -> Result<BloomFilterReader, String> {
        let mut r = ByteReader::new(&bytes);
        let k = r.u32()?;
        r.u32()?;
        let bits = r.u64()?;
        if !(1..=30).contains(&k) || bits == 0 {
            return Err(format!("invalid bloom filter parameters k={k} bits={bits}"));
        }
        let words = usize::try_from(bits.div_ceil(64)).map_err(|_| "bloom filter too large")?;
        if words.checked_mul(8) != Some(r.remaining()) {
            return Err(format!(
                "bloom filter of {bits} bits has {} bytes of words",
                r.remaining()
            ));
        }
        Ok(BloomFilterReader {
            k,
            bits,
            words: TypedSlice::new(bytes.slice(16, words * 8).ok_or("words out of bounds")?)?,
            data_type,
        })
    }

    /// Whether a value with hash `h` may be present.
    pub fn might_contain_hash(&self, h: u64) -> bool {
        let words = self.words.as_slice();
        positions(h, self.k, self.bits)
            .all(|p| (words[(p / 64) as usize] as u64 >> (p % 64)) & 1 == 1)
    }

    /// Whether `v` may be one of the column's values (`false` means certainly not).
    pub fn might_contain(&self, v: &Value) -> bool {
        let hit =
            |v: &Value| value_hash(self.data_type, v).is_some_and(|h| self.might_contain_hash(h));
        // Floats hash by their bits, and SQL counts a negative zero equal to zero.
        let float_column = matches!(
            self.data_type.stored(),
            StoredType::Float | StoredType::Double
        );
        if float_column && !matches!(v, Value::String(_)) && v.as_f64() == Some(0.0) {
            return hit(&Value::Double(0.0)) || hit(&Value::Double(-0.0));
        }
        hit(v)
    }

    /// Size of the bit array in bits.
    pub fn num_bits(&self) -> u64 {
        self.bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn filter(dt: DataType, vals: &[Value], fpp: f64) -> BloomFilterReader {
        let mut b = BloomBuilder::new(vals.len() as u64, fpp);
        for v in vals {
            b.insert_hash(value_hash(dt, v).unwrap());
        }
        BloomFilterReader::from_bytes(Bytes::from_vec(b.encode()), dt).unwrap()
    }

    proptest! {
        #[test]
        fn no_false_negatives_strings(vals in proptest::collection::vec(".{0,10}", 1..300)) {
            let vals: Vec<Value> = vals.into_iter().map(Value::String).collect();
            let f = filter(DataType::String, &vals, 0.05);
            for v in &vals { prop_assert!(f.might_contain(v)); }
        }

        #[test]
        fn no_false_negatives_numbers(vals in proptest::collection::vec(any::<i64>(), 1..300), d in proptest::collection::vec(any::<f64>(), 1..50)) {
            let lv: Vec<Value> = vals.iter().map(|&v| Value::Long(v)).collect();
            let f = filter(DataType::Long, &lv, 0.01);
            for v in &lv { prop_assert!(f.might_contain(v)); }
            let dv: Vec<Value> = d.iter().map(|&v| Value::Double(v)).collect();
            let f = filter(DataType::Double, &dv, 0.01);
            for v in &dv { prop_assert!(f.might_contain(v)); }
        }
    }

    #[test]
    fn false_positive_rate_is_near_fpp() {
        let vals: Vec<Value> = (0..10_000).map(Value::Int).collect();
        let f = filter(DataType::Int, &vals, 0.05);
        assert!(
            f.might_contain(&Value::Long(5)),
            "probe converted to the column type"
        );
        assert!(f.might_contain(&Value::String("17".into())));
        assert!(!f.might_contain(&Value::String("abc".into())));
        let fp = (10_000..110_000)
            .filter(|&i| f.might_contain(&Value::Int(i)))
            .count();
        let rate = fp as f64 / 100_000.0;
        assert!(rate < 0.08, "false-positive rate {rate}");
        assert!(
            rate > 0.01,
            "suspiciously low rate {rate}: filter oversized?"
        );
    }

    #[test]
    fn rejects_bad_entries() {
        let mut b = BloomBuilder::new(10, 0.05);
        b.insert_hash(1);
        let e = b.encode();
        assert!(
            BloomFilterReader::from_bytes(
                Bytes::from_vec(e[..e.len() - 8].to_vec()),
                DataType::Int
            )
            .is_err()
        );
        let mut bad = e.clone();
        bad[0] = 0;
        assert!(BloomFilterReader::from_bytes(Bytes::from_vec(bad), DataType::Int).is_err());
    }
}
