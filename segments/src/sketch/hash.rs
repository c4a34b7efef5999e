//! The 64-bit hash sketches use: xxHash64 (Yann Collet's XXH64), over a canonical byte form of
//! a [`Value`] — whole numbers (INT, LONG, TIMESTAMP, BOOLEAN) as their `i64`, floating point
//! as its `f64` bits (`-0.0` as `0.0`, one NaN), text and decimals as UTF-8, BYTES as is — with
//! the kind as the seed, so `1` and `"1"` differ but `Int(1)` and `Long(1)` agree.

use crate::types::Value;

const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;
const P5: u64 = 0x27D4_EB2F_1656_67C5;

fn read_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

fn read_u32(b: &[u8]) -> u64 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[..4]);
    u32::from_le_bytes(a) as u64
}

fn round(acc: u64, input: u64) -> u64 {
    acc.wrapping_add(input.wrapping_mul(P2))
        .rotate_left(31)
        .wrapping_mul(P1)
}

fn merge_round(acc: u64, value: u64) -> u64 {
    (acc ^ round(0, value)).wrapping_mul(P1).wrapping_add(P4)
}

/// XXH64 of `input` with `seed`.
pub fn xxhash64(input: &[u8], seed: u64) -> u64 {
    let mut rest = input;
    let mut h = if input.len() >= 32 {
        let mut v = [
            seed.wrapping_add(P1).wrapping_add(P2),
            seed.wrapping_add(P2),
            seed,
            seed.wrapping_sub(P1),
        ];
        while rest.len() >= 32 {
            for (i, lane) in v.iter_mut().enumerate() {
                *lane = round(*lane, read_u64(&rest[i * 8..]));
            }
            rest = &rest[32..];
        }
        let mut h = v[0]
            .rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18));
        for lane in v {
            h = merge_round(h, lane);
        }
        h
    } else {
        seed.wrapping_add(P5)
    };
    h = h.wrapping_add(input.len() as u64);
    while rest.len() >= 8 {
        h ^= round(0, read_u64(rest));
        h = h.rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
        rest = &rest[8..];
    }
    if rest.len() >= 4 {
        h ^= read_u32(rest).wrapping_mul(P1);
        h = h.rotate_left(23).wrapping_mul(P2).wrapping_add(P3);
        rest = &rest[4..];
    }
    for byte in rest {
        h ^= (*byte as u64).wrapping_mul(P5);
        h = h.rotate_left(11).wrapping_mul(P1);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

/// The sketch hash of a value (see the module docs for the canonical form).
pub fn hash_value(value: &Value) -> u64 {
    match value {
        Value::Null => xxhash64(&[], 0),
        Value::Int(v) => xxhash64(&(*v as i64).to_le_bytes(), 1),
        Value::Long(v) | Value::Timestamp(v) => xxhash64(&v.to_le_bytes(), 1),
        Value::Boolean(b) => xxhash64(&(*b as i64).to_le_bytes(), 1),
        Value::Float(v) => hash_f64(*v as f64),
        Value::Double(v) => hash_f64(*v),
        Value::BigDecimal(s) => xxhash64(s.as_bytes(), 3),
        Value::String(s) | Value::Json(s) => xxhash64(s.as_bytes(), 4),
        Value::Bytes(b) => xxhash64(b, 5),
        Value::Array(items) => {
            let mut bytes = Vec::with_capacity(items.len() * 8);
            for item in items {
                bytes.extend_from_slice(&hash_value(item).to_le_bytes());
            }
            xxhash64(&bytes, 6)
        }
    }
}

fn hash_f64(v: f64) -> u64 {
    let canonical = if v == 0.0 {
        0.0
    } else if v.is_nan() {
        f64::NAN
    } else {
        v
    };
    xxhash64(&canonical.to_bits().to_le_bytes(), 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_reference_vectors() {
        assert_eq!(xxhash64(b"", 0), 0xEF46_DB37_51D8_E999);
        assert_eq!(xxhash64(b"a", 0), 0xD24E_C4F1_A98C_6E5B);
        assert_eq!(xxhash64(b"abc", 0), 0x44BC_2CF5_AD77_0999);
        assert_eq!(xxhash64(b"xxhash", 0), 0x32DD_3895_2C4B_C720);
        assert_eq!(xxhash64(b"xxhash", 20_141_025), 0xB559_B98D_844E_0635);
        assert_eq!(
            xxhash64(b"Nobody inspects the spammish repetition", 0),
            0xFBCE_A83C_8A37_8BF1
        );
    }

    #[test]
    fn canonical_forms() {
        assert_eq!(hash_value(&Value::Int(7)), hash_value(&Value::Long(7)));
        assert_eq!(
            hash_value(&Value::Float(1.5)),
            hash_value(&Value::Double(1.5))
        );
        assert_eq!(
            hash_value(&Value::Double(-0.0)),
            hash_value(&Value::Double(0.0))
        );
        assert_ne!(
            hash_value(&Value::Long(1)),
            hash_value(&Value::String("1".into()))
        );
        assert_ne!(hash_value(&Value::Long(1)), hash_value(&Value::Double(1.0)));
        assert_eq!(
            hash_value(&Value::String("x".into())),
            hash_value(&Value::Json("x".into()))
        );
    }
}
