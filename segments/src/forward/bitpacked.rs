//! [`BitPackedForward`]: single-value dictionary ids packed with `bits` bits each.
//!
//! Layout: `u32 bits`, `u32 reserved`, `u64 count`, then the packed stream — value `i` occupies
//! bits `i*bits .. (i+1)*bits`, least-significant bit first, little-endian — followed by 8 zero
//! bytes of padding so every value can be read with one unaligned 64-bit load.
//!
//! [`BitPackedForward::read_range`] is the engine's hot path: it is monomorphised per width
//! (1..=32) and decodes 8 values per step: with AVX2 (widths up to 25,
//! [`super::unpack_avx2`]) in a few vector instructions, else with compile-time shifts.

use crate::format::{ByteReader, Bytes};
use crate::types::{DictId, DocId};

/// Bits needed for dict ids of a dictionary of `cardinality` values: `ceil(log2(cardinality))`,
/// at least 1.
pub fn bits_for_cardinality(cardinality: u32) -> u8 {
    if cardinality <= 2 {
        1
    } else {
        (32 - (cardinality - 1).leading_zeros()) as u8
    }
}

/// Packs `values` (each `< 2^bits`) into the entry format.
pub fn pack(values: &[u32], bits: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + values.len() * bits as usize / 8 + 16);
    out.extend_from_slice(&(bits as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(values.len() as u64).to_le_bytes());
    pack_into(values, bits, &mut out);
    out
}

/// Appends the packed stream (plus padding) of `values` to `out`.
pub fn pack_into(values: &[u32], bits: u8, out: &mut Vec<u8>) {
    let bits = bits as u32;
    let mask = if bits == 32 {
        u32::MAX as u64
    } else {
        (1u64 << bits) - 1
    };
    let mut acc: u64 = 0;
    let mut filled: u32 = 0;
    for &v in values {
        let v = v as u64 & mask;
        acc |= v << filled;
        filled += bits;
        if filled >= 64 {
            out.extend_from_slice(&acc.to_le_bytes());
            filled -= 64;
            acc = if filled == 0 { 0 } else { v >> (bits - filled) };
        }
    }
    let tail = filled.div_ceil(8) as usize;
    out.extend_from_slice(&acc.to_le_bytes()[..tail]);
    out.extend_from_slice(&[0u8; 8]);
}

/// Length in bytes of a packed stream of `count` values of `bits` bits, without padding.
pub fn packed_len(count: usize, bits: u8) -> Option<usize> {
    count.checked_mul(bits as usize).map(|b| b.div_ceil(8))
}

/// Single-value dict ids, bit-packed.
#[derive(Clone, Debug)]
pub struct BitPackedForward {
    data: Bytes,
    bits: u8,
    count: u32,
}

impl BitPackedForward {
    /// Parses an entry written by [`pack`], checking it holds `count` values.
    pub fn from_bytes(bytes: Bytes) -> Result<BitPackedForward, String> {
        let mut r = ByteReader::new(&bytes);
        let bits = r.u32()?;
        r.u32()?;
        let count = r.u64()?;
        let data = bytes
            .slice(16, bytes.len() - 16.min(bytes.len()))
            .ok_or("truncated header")?;
        BitPackedForward::from_stream(data, bits, count)
    }

    /// Wraps a packed stream (with its padding) of `count` values of `bits` bits.
    pub fn from_stream(data: Bytes, bits: u32, count: u64) -> Result<BitPackedForward, String> {
        if !(1..=32).contains(&bits) {
            return Err(format!("bits per element {bits} is not in 1..=32"));
        }
        let count = u32::try_from(count).map_err(|_| format!("count {count} exceeds u32"))?;
        let need = packed_len(count as usize, bits as u8).ok_or("size overflow")? + 8;
        if data.len() < need {
            return Err(format!(
                "packed stream of {count} x {bits} bits needs {need} bytes, has {}",
                data.len()
            ));
        }
        Ok(BitPackedForward {
            data,
            bits: bits as u8,
            count,
        })
    }

    /// Bits per value.
    pub fn bits(&self) -> u8 {
        self.bits
    }

    /// Number of values.
    pub fn len(&self) -> u32 {
        self.count
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The dict id of `doc`. Panics if `doc >= len()`.
    #[inline]
    pub fn get(&self, doc: DocId) -> DictId {
        assert!(doc < self.count, "doc {doc} out of range {}", self.count);
        let bit = doc as usize * self.bits as usize;
        let b = &self.data[bit / 8..bit / 8 + 8];
        let w = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        ((w >> (bit % 8)) & mask(self.bits as u32)) as u32
    }

    /// Decodes the dict ids of docs `start .. start + out.len()`. Panics if that exceeds `len()`.
    #[inline]
    pub fn read_range(&self, start: DocId, out: &mut [DictId]) {
        let end = (start as usize).checked_add(out.len());
        assert!(
            end.is_some_and(|e| e <= self.count as usize),
            "range {start}+{} out of {}",
            out.len(),
            self.count
        );
        macro_rules! dispatch {
            ($($b:literal)*) => {
                match self.bits {
                    $($b => unpack::<$b>(&self.data, start as usize, out),)*
                    _ => unreachable!("bits validated at open"),
                }
            };
        }
        dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
    }

    /// Gathers the dict ids of `docs` into `out` (same length).
    pub fn read_docs(&self, docs: &[DocId], out: &mut [DictId]) {
        for (o, &d) in out.iter_mut().zip(docs) {
            *o = self.get(d);
        }
    }
}

#[inline(always)]
fn mask(bits: u32) -> u64 {
    (1u64 << bits) - 1
}

/// Unpacks `out.len()` values of `B` bits starting at value `start`.
///
/// The caller guarantees `start + out.len() <= count` and that `data` holds the packed stream
/// of `count` values plus 8 bytes of padding, so every 8-byte load below is in bounds.
#[inline(always)]
fn unpack<const B: usize>(data: &[u8], start: usize, out: &mut [u32]) {
    let m = mask(B as u32);
    let ptr = data.as_ptr();
    let limit = data.len();
    let load = |byte: usize| -> u64 {
        debug_assert!(byte + 8 <= limit);
        // SAFETY: byte + 8 <= data.len(): the largest byte read is that of the last value,
        // which is < packed_len, and the stream is followed by 8 bytes of padding (checked in
        // `from_stream`); the caller checked the range against `count`.
        u64::from_le(unsafe { ptr.add(byte).cast::<u64>().read_unaligned() })
    };
    let mut i = 0;
    let mut doc = start;
    // Head: up to the next multiple of 8 values (byte-aligned group start).
    while i < out.len() && !doc.is_multiple_of(8) {
        let bit = doc * B;
        out[i] = ((load(bit / 8) >> (bit % 8)) & m) as u32;
        i += 1;
        doc += 1;
    }
    // Body: groups of 8 values occupy exactly B bytes; AVX2 takes the groups it can.
    #[cfg(target_arch = "x86_64")]
    {
        let n = super::unpack_avx2::unpack_groups::<B>(data, doc / 8 * B, &mut out[i..]);
        i += n;
        doc += n;
    }
    let body = (out.len() - i) / 8 * 8;
    for chunk in out[i..i + body].chunks_exact_mut(8) {
        let base = doc / 8 * B;
        for (j, o) in chunk.iter_mut().enumerate() {
            let bit = j * B;
            *o = ((load(base + bit / 8) >> (bit % 8)) & m) as u32;
        }
        doc += 8;
    }
    i += body;
    while i < out.len() {
        let bit = doc * B;
        out[i] = ((load(bit / 8) >> (bit % 8)) & m) as u32;
        i += 1;
        doc += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bits_follow_cardinality() {
        assert_eq!(bits_for_cardinality(0), 1);
        assert_eq!(bits_for_cardinality(1), 1);
        assert_eq!(bits_for_cardinality(2), 1);
        assert_eq!(bits_for_cardinality(3), 2);
        assert_eq!(bits_for_cardinality(4), 2);
        assert_eq!(bits_for_cardinality(5), 3);
        assert_eq!(bits_for_cardinality(1 << 20), 20);
        assert_eq!(bits_for_cardinality((1 << 20) + 1), 21);
        assert_eq!(bits_for_cardinality(u32::MAX), 32);
    }

    fn values_strategy() -> impl Strategy<Value = (u8, Vec<u32>, u32, u32)> {
        (1u8..=32).prop_flat_map(|bits| {
            let max = if bits == 32 {
                u32::MAX
            } else {
                (1u32 << bits) - 1
            };
            (
                Just(bits),
                proptest::collection::vec(0..=max, 0..300),
                any::<u32>(),
                any::<u32>(),
            )
        })
    }

    proptest! {
        #[test]
        fn round_trips_every_width((bits, vals, a, b) in values_strategy()) {
            let f = BitPackedForward::from_bytes(Bytes::from_vec(pack(&vals, bits))).unwrap();
            prop_assert_eq!(f.len() as usize, vals.len());
            for (i, &v) in vals.iter().enumerate() {
                prop_assert_eq!(f.get(i as u32), v);
            }
            let mut all = vec![0; vals.len()];
            f.read_range(0, &mut all);
            prop_assert_eq!(&all, &vals);
            if !vals.is_empty() {
                let s = a as usize % vals.len();
                let len = b as usize % (vals.len() - s + 1);
                let mut part = vec![0; len];
                f.read_range(s as u32, &mut part);
                prop_assert_eq!(&part[..], &vals[s..s + len]);
                let docs: Vec<u32> = (0..vals.len() as u32).rev().step_by(3).collect();
                let mut g = vec![0; docs.len()];
                f.read_docs(&docs, &mut g);
                for (d, v) in docs.iter().zip(g) { prop_assert_eq!(vals[*d as usize], v); }
            }
        }
    }

    #[test]
    fn rejects_short_or_bad_entries() {
        let packed = pack(&[1, 2, 3, 4, 5, 6, 7], 3);
        assert!(
            BitPackedForward::from_bytes(Bytes::from_vec(packed[..packed.len() - 1].to_vec()))
                .is_err()
        );
        let mut bad = packed.clone();
        bad[0] = 33;
        assert!(BitPackedForward::from_bytes(Bytes::from_vec(bad)).is_err());
        assert!(BitPackedForward::from_bytes(Bytes::from_vec(packed[..5].to_vec())).is_err());
    }

    #[test]
    #[should_panic(expected = "out of")]
    fn read_past_end_panics_not_ub() {
        let f = BitPackedForward::from_bytes(Bytes::from_vec(pack(&[1, 2, 3], 2))).unwrap();
        let mut out = [0; 3];
        f.read_range(1, &mut out);
    }
}
