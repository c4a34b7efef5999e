//! The 32-bit hash HyperLogLog uses: Pinot's (stream-lib's `MurmurHash.hash(Object)`, MurmurHash2),
//! so a sketch built here has the very registers Pinot's would and `DISTINCTCOUNTHLL` /
//! `DISTINCTCOUNTRAWHLL` answers match Pinot's. Per value kind, as Pinot offers it:
//! * whole numbers (INT, LONG, TIMESTAMP, BOOLEAN as 0/1) — `hashLong` of the value;
//! * FLOAT — `hashLong` of its raw `int` bits (sign-extended), DOUBLE — of its raw `long` bits;
//! * STRING, JSON and BIG_DECIMAL — MurmurHash2 (seed −1) of the UTF-8 text; BYTES — of the bytes.

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
        Value::BigDecimal(s) | Value::String(s) | Value::Json(s) => murmur2(s.as_bytes()),
        Value::Bytes(b) => murmur2(b),
    })
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
