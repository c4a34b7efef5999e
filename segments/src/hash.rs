//! A small, fast, non-cryptographic 64-bit hash (FxHash-style word mixing plus the murmur3
//! finaliser) used by the builder's interners and by bloom filters.
//!
//! The bloom filter stores hashes on disk, so these functions are part of the format: changing
//! them changes which bloom bits are set and breaks old segments (the golden-segment test
//! catches that).

use std::hash::{BuildHasherDefault, Hasher};

const K: u64 = 0x517c_c1b7_2722_0a95;

/// murmur3's 64-bit finaliser: every input bit affects every output bit.
#[inline]
pub fn mix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h
}

/// Hash of a fixed-width value's bit pattern.
#[inline]
pub fn hash_u64(v: u64) -> u64 {
    mix64(v ^ K)
}

/// The bytes of `s` (at most 8) as a little-endian word, zero-padded: `u64::from_le_bytes` of
/// `s` padded with zeros, built from overlapping fixed-size loads instead of a `memcpy` call
/// (hashing and comparing short strings would otherwise spend most of their time in one).
#[inline(always)]
pub fn load_le_padded(s: &[u8]) -> u64 {
    let n = s.len();
    debug_assert!(n <= 8);
    if n == 8 {
        u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]])
    } else if n >= 4 {
        let lo = u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as u64;
        let hi = u32::from_le_bytes([s[n - 4], s[n - 3], s[n - 2], s[n - 1]]) as u64;
        // The overlapping bytes are the same in both words.
        lo | hi << (8 * (n - 4))
    } else if n > 0 {
        s[0] as u64 | (s[n / 2] as u64) << (8 * (n / 2)) | (s[n - 1] as u64) << (8 * (n - 1))
    } else {
        0
    }
}

/// The first 16 bytes of `v` as two zero-padded little-endian words: what the builder's
/// interner compares and, byte-swapped, the prefix its string sort orders by.
#[inline(always)]
pub fn head_words(v: &[u8]) -> [u64; 2] {
    let n = v.len();
    let load8 = |b: &[u8]| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    if n >= 16 {
        [load8(v), load8(&v[8..])]
    } else if n > 8 {
        // The last eight bytes hold bytes 8.. in their top `n - 8`.
        [load8(v), load8(&v[n - 8..]) >> (8 * (16 - n))]
    } else {
        [load_le_padded(v), 0]
    }
}

/// Hash of a byte string.
#[inline]
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        h = (h.rotate_left(5) ^ load_le_padded(rest)).wrapping_mul(K);
    }
    mix64(h)
}

/// A `std` [`Hasher`] over the same mixing, for `HashMap`/`HashSet` keys that are already
/// well-distributed or short.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    h: u64,
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.h = (self.h.rotate_left(5) ^ hash_bytes(bytes)).wrapping_mul(K);
    }
    fn write_u64(&mut self, v: u64) {
        self.h = (self.h.rotate_left(5) ^ v).wrapping_mul(K);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn finish(&self) -> u64 {
        mix64(self.h)
    }
}

/// `BuildHasher` for [`FxHasher`].
pub type FxBuildHasher = BuildHasherDefault<FxHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn padded_loads_match_a_padded_copy(s in proptest::collection::vec(proptest::num::u8::ANY, 0..=8)) {
            let mut w = [0u8; 8];
            w[..s.len()].copy_from_slice(&s);
            proptest::prop_assert_eq!(load_le_padded(&s), u64::from_le_bytes(w));
        }

        #[test]
        fn hash_bytes_is_unchanged(s in proptest::collection::vec(proptest::num::u8::ANY, 0..40)) {
            // The hash as first written (a padded copy of the tail): bloom filters on disk use it.
            let mut h = (s.len() as u64).wrapping_mul(K);
            let mut chunks = s.chunks_exact(8);
            for c in &mut chunks {
                h = (h.rotate_left(5) ^ u64::from_le_bytes(c.try_into().unwrap())).wrapping_mul(K);
            }
            let rest = chunks.remainder();
            if !rest.is_empty() {
                let mut tail = [0u8; 8];
                tail[..rest.len()].copy_from_slice(rest);
                h = (h.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
            }
            proptest::prop_assert_eq!(hash_bytes(&s), mix64(h));
        }
    }

    #[test]
    fn stable_values_and_spread() {
        // Part of the on-disk format (bloom filters): these must never change.
        assert_eq!(hash_bytes(b""), mix64(0));
        assert_ne!(hash_bytes(b"a"), hash_bytes(b"b"));
        assert_ne!(hash_bytes(b"abcdefgh"), hash_bytes(b"abcdefgh\0"));
        assert_ne!(hash_u64(1), hash_u64(2));
        // Low bits of sequential keys are well spread.
        let mut buckets = [0u32; 16];
        for i in 0..16_000u64 {
            buckets[(hash_u64(i) & 15) as usize] += 1;
        }
        assert!(
            buckets.iter().all(|&b| (800..1200).contains(&b)),
            "{buckets:?}"
        );
    }
}
