//! Pinot's hashes. The 32-bit one HyperLogLog uses (stream-lib's `MurmurHash.hash(Object)`,
//! MurmurHash2), so a sketch built here has the very registers Pinot's would and
//! `DISTINCTCOUNTHLL` / `DISTINCTCOUNTRAWHLL` answers match Pinot's. Per value kind, as Pinot
//! offers it:
//! * whole numbers (INT, LONG, TIMESTAMP, BOOLEAN as 0/1) — `hashLong` of the value;
//! * FLOAT — `hashLong` of its raw `int` bits (sign-extended), DOUBLE — of its raw `long` bits;
//! * STRING, JSON and BIG_DECIMAL — MurmurHash2 (seed −1) of the UTF-8 text; BYTES — of the bytes.
//!
//! And the byte hashes the scalar hash functions and other sketches share: MurmurHash64A
//! ([`murmur2_64`], HyperLogLog++) and Guava's MurmurHash3 x64 128 ([`murmur3_x64_128`], the
//! Bloom filters of id sets).
use crate::types::Value;

const M: i32 = 0x5bd1_e995;
const R: u32 = 24;

/// MurmurHash2 of `data` with seed −1 (stream-lib's `MurmurHash.hash(byte[])`).
pub fn murmur2(data: &[u8]) -> u32 {
    let len = data.len();
    let mut h: i32 = -1 ^ (len as i32);
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        let mut k = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(M);
        k ^= ((k as u32) >> R) as i32;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        // Java sign-extends each byte before shifting.
        let b = |i: usize| tail[i] as i8 as i32;
        if tail.len() >= 3 {
            h ^= b(tail.len() - 3) << 16;
        }
        if tail.len() >= 2 {
            h ^= b(tail.len() - 2) << 8;
        }
        h ^= b(tail.len() - 1);
        h = h.wrapping_mul(M);
    }
    finish(h)
}

/// stream-lib's `MurmurHash.hashLong`.
pub fn murmur2_long(data: i64) -> u32 {
    let mut k = (data as i32).wrapping_mul(M);
    k ^= ((k as u32) >> R) as i32;
    let mut h = k.wrapping_mul(M);
    k = ((data >> 32) as i32).wrapping_mul(M);
    k ^= ((k as u32) >> R) as i32;
    h = h.wrapping_mul(M);
    h ^= k.wrapping_mul(M);
    finish(h)
}

fn finish(mut h: i32) -> u32 {
    h ^= ((h as u32) >> 13) as i32;
    h = h.wrapping_mul(M);
    h ^= ((h as u32) >> 15) as i32;
    h as u32
}

/// The sketch hash of a single value (see the module docs); `None` for NULL and arrays, whose
/// elements are hashed one by one.
pub fn hash_value(value: &Value) -> Option<u32> {
    Some(match value {
        Value::Null | Value::Array(_) => return None,
        Value::Int(v) => murmur2_long(*v as i64),
        Value::Long(v) | Value::Timestamp(v) => murmur2_long(*v),
        Value::Boolean(b) => murmur2_long(*b as i64),
        Value::Float(v) => murmur2_long(v.to_bits() as i32 as i64),
        Value::Double(v) => murmur2_long(v.to_bits() as i64),
        Value::BigDecimal(s) | Value::String(s) | Value::Json(s) | Value::Map(s) => {
            murmur2(s.as_bytes())
        }
        Value::Bytes(b) => murmur2(b),
    })
}

/// MurmurHash64A (Pinot's `murmurHash2Bit64`, stream-lib's `MurmurHash.hash64` with its seed
/// `0xe17a1465`); the seed is taken as an unsigned 32-bit value.
pub fn murmur2_64(data: &[u8], seed: u32) -> u64 {
    const M: u64 = 0xc6a4_a793_5bd1_e995;
    const R: u32 = 47;
    let mut h = seed as u64 ^ (data.len() as u64).wrapping_mul(M);
    let mut blocks = data.chunks_exact(8);
    for block in &mut blocks {
        let mut k = u64::from_le_bytes(block.try_into().unwrap_or([0; 8]));
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        for (i, b) in tail.iter().enumerate() {
            h ^= (*b as u64) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// MurmurHash3_x64_128 as Guava's `murmur3_128(seed)` (Pinot's `murmurHash3Bit64/128`, Guava's
/// Bloom filters in id sets): both halves start from the seed
/// sign-extended to 64 bits.
pub fn murmur3_x64_128(data: &[u8], seed: i32) -> (u64, u64) {
    const C1: u64 = 0x87c3_7b91_1142_53d5;
    const C2: u64 = 0x4cf5_ad43_2745_937f;
    let mix1 = |k: u64| k.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
    let mix2 = |k: u64| k.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
    let mut h1 = seed as i64 as u64;
    let mut h2 = h1;
    let mut blocks = data.chunks_exact(16);
    for block in &mut blocks {
        let (lo, hi) = block.split_at(8);
        let k1 = u64::from_le_bytes(lo.try_into().unwrap_or([0; 8]));
        let k2 = u64::from_le_bytes(hi.try_into().unwrap_or([0; 8]));
        h1 ^= mix1(k1);
        h1 = h1.rotate_left(27).wrapping_add(h2);
        h1 = h1.wrapping_mul(5).wrapping_add(0x52dc_e729);
        h2 ^= mix2(k2);
        h2 = h2.rotate_left(31).wrapping_add(h1);
        h2 = h2.wrapping_mul(5).wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    let lane = |bytes: &[u8]| {
        bytes
            .iter()
            .enumerate()
            .fold(0u64, |k, (i, b)| k | (*b as u64) << (8 * i))
    };
    if tail.len() > 8 {
        h2 ^= mix2(lane(&tail[8..]));
    }
    if !tail.is_empty() {
        h1 ^= mix1(lane(&tail[..tail.len().min(8)]));
    }
    let len = data.len() as u64;
    h1 ^= len;
    h2 ^= len;
    murmur3_finish(h1, h2)
}

/// MurmurHash3 x64 128's last step over the two lanes (the length already folded in): each
/// lane absorbs the other, is finalized ([`fmix64`]), and absorbs the other again.
pub fn murmur3_finish(mut h1: u64, mut h2: u64) -> (u64, u64) {
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1, h2)
}

/// MurmurHash3's 64-bit finalizer.
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values from stream-lib's `MurmurHash` run on a JVM.
    #[test]
    fn matches_stream_lib() {
        for (s, h) in [
            ("", 3_008_980_656u32),
            ("a", 713_507_990),
            ("foo", 1_741_070_284),
            ("bar", 1_297_951_713),
            ("baz", 2_870_078_482),
            ("hello world", 1_964_480_955),
            ("\u{e9}t\u{e9}!", 4_145_939_645),
        ] {
            assert_eq!(murmur2(s.as_bytes()), h, "{s:?}");
        }
        assert_eq!(
            murmur2(&[0x80, 0xff, 0x7f]),
            3_771_828_455,
            "sign-extended tail bytes"
        );
        for (v, h) in [
            (0i64, 0u32),
            (1, 1_527_037_976),
            (-1, 2_257_181_111),
            (7, 3_529_359_273),
            (1 << 40, 3_357_743_195),
            (i64::MIN, 630_388_283),
        ] {
            assert_eq!(murmur2_long(v), h, "{v}");
        }
        assert_eq!(hash_value(&Value::Float(1.5)), Some(2_837_477_805));
        assert_eq!(hash_value(&Value::Float(-2.5)), Some(4_261_392_926));
        assert_eq!(hash_value(&Value::Double(1.5)), Some(2_606_208_351));
        assert_eq!(hash_value(&Value::Int(7)), Some(3_529_359_273));
        assert_eq!(hash_value(&Value::Timestamp(7)), Some(3_529_359_273));
        assert_ne!(
            hash_value(&Value::Double(-0.0)),
            hash_value(&Value::Double(0.0)),
            "raw bits, as Java's doubleToRawLongBits"
        );
        assert_eq!(
            hash_value(&Value::String("x".into())),
            hash_value(&Value::Json("x".into()))
        );
        assert_eq!(hash_value(&Value::Null), None);
    }
}
