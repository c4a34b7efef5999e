//! AVX2 unpacking of bit-packed dict ids, 8 values per instruction sequence.
//!
//! A group of 8 values of `B` bits is `B` bytes long and starts byte-aligned. With `B ≤ 25`
//! each value, at its bit offset (`j·B mod 8 ≤ 7`) within the 4 bytes from its first byte,
//! fits one 32-bit lane, so a group decodes as: load 16 bytes at the group's start (values
//! 0–3) and 16 at its middle byte (values 4–7: `vpshufb` cannot cross 128-bit lanes), shuffle
//! each value's 4 bytes into its lane, shift each lane right by its bit offset, mask. The
//! shuffle and shift controls are computed at compile time per width. The scalar loop of
//! [`super::bitpacked`] decodes 8 values with 8 loads, shifts and masks; this takes 2 loads and
//! 4 vector instructions.
//!
//! [`unpack_groups`] is safe: it checks the CPU once per call (the standard library caches the
//! answer) and decodes only the groups whose two 16-byte loads stay inside `data`, leaving the
//! rest (and every width above [`MAX_BITS`]) to the scalar loop.

use std::arch::x86_64::{
    __m128i, __m256i, _mm_loadu_si128, _mm256_and_si256, _mm256_loadu_si256, _mm256_set_m128i,
    _mm256_set1_epi32, _mm256_shuffle_epi8, _mm256_srlv_epi32, _mm256_storeu_si256,
};

/// Widest value width served: a value at bit offset 7 must fit in 32 bits.
pub const MAX_BITS: usize = 25;

/// Byte offset within a group of its upper four values' load.
const fn upper_offset(bits: usize) -> usize {
    4 * bits / 8
}

/// The `vpshufb` control (per 128-bit lane, relative to that lane's load) and the per-value
/// right shifts for groups of 8 values of `bits` bits.
const fn controls(bits: usize) -> ([u8; 32], [u32; 8]) {
    let mut shuffle = [0u8; 32];
    let mut shifts = [0u32; 8];
    let mut j = 0;
    while j < 8 {
        let bit = j * bits;
        let load_start = if j < 4 { 0 } else { upper_offset(bits) };
        let first = bit / 8 - load_start;
        let mut k = 0;
        while k < 4 {
            shuffle[j * 4 + k] = (first + k) as u8;
            k += 1;
        }
        shifts[j] = (bit % 8) as u32;
        j += 1;
    }
    (shuffle, shifts)
}

/// Decodes whole groups of 8 values of `B` bits into `out`, the first group starting at byte
/// `first_byte` of `data`, for as many groups as `out` holds and `data` can be loaded for.
/// Returns the number of values written (a multiple of 8; 0 without AVX2 or for `B` above
/// [`MAX_BITS`]).
#[inline(always)]
pub fn unpack_groups<const B: usize>(data: &[u8], first_byte: usize, out: &mut [u32]) -> usize {
    if B > MAX_BITS || !std::arch::is_x86_feature_detected!("avx2") {
        return 0;
    }
    // Group g's loads end at first_byte + g·B + upper_offset(B) + 16.
    let reach = first_byte + upper_offset(B) + 16;
    let Some(room) = data.len().checked_sub(reach) else {
        return 0;
    };
    let groups = (out.len() / 8).min(room / B + 1);
    // SAFETY: AVX2 was detected above; every group's loads end within `data` (`groups`
    // is bounded by `room`), and its store is one of the first `groups` chunks of `out`.
    unsafe { unpack_avx2::<B>(data, first_byte, &mut out[..groups * 8]) };
    groups * 8
}

/// The vector loop of [`unpack_groups`].
///
/// # Safety
/// AVX2 must be available, and for every group `g < out.len() / 8`,
/// `first_byte + g·B + upper_offset(B) + 16 <= data.len()`.
#[target_feature(enable = "avx2")]
unsafe fn unpack_avx2<const B: usize>(data: &[u8], first_byte: usize, out: &mut [u32]) {
    let (shuffle, shifts) = const { controls(B) };
    let upper = upper_offset(B);
    // SAFETY: the controls are plain arrays of 32 bytes; the group loads are in bounds by the
    // function's contract and the stores write one 8-value chunk of `out` each.
    unsafe {
        let shuffle = _mm256_loadu_si256(shuffle.as_ptr().cast::<__m256i>());
        let shifts = _mm256_loadu_si256(shifts.as_ptr().cast::<__m256i>());
        let mask = _mm256_set1_epi32(((1u64 << B) - 1) as u32 as i32);
        let mut group = data.as_ptr().add(first_byte);
        for chunk in out.chunks_exact_mut(8) {
            let low = _mm_loadu_si128(group.cast::<__m128i>());
            let high = _mm_loadu_si128(group.add(upper).cast::<__m128i>());
            let v = _mm256_shuffle_epi8(_mm256_set_m128i(high, low), shuffle);
            let v = _mm256_and_si256(_mm256_srlv_epi32(v, shifts), mask);
            _mm256_storeu_si256(chunk.as_mut_ptr().cast::<__m256i>(), v);
            group = group.add(B);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forward::bitpacked::pack_into;

    /// Every width the kernel serves, every start group, and a stream end right at the last
    /// load's reach: the decoded values are the packed ones, and nothing past the loads'
    /// reach is decoded.
    #[test]
    fn decodes_what_was_packed() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        fn check<const B: usize>() {
            let values: Vec<u32> = (0..203u32)
                .map(|i| i.wrapping_mul(2_654_435_761) & ((1u64 << B) - 1) as u32)
                .collect();
            let mut data = Vec::new();
            pack_into(&values, B as u8, &mut data);
            for start_group in [0usize, 1, 5] {
                let mut out = vec![u32::MAX; values.len() - start_group * 8];
                let n = unpack_groups::<B>(&data, start_group * B, &mut out);
                assert_eq!(n % 8, 0);
                assert!(n > 0, "B={B}: no group decoded");
                let groups = n / 8;
                // The last decoded group's loads fit; one more group's would not, unless
                // `out` ran out first.
                let reach = |g: usize| (start_group + g) * B + upper_offset(B) + 16;
                assert!(reach(groups - 1) <= data.len());
                assert!(groups == out.len() / 8 || reach(groups) > data.len());
                let from = start_group * 8;
                assert_eq!(
                    out[..n],
                    values[from..from + n],
                    "B={B} start {start_group}"
                );
                assert!(out[n..].iter().all(|&v| v == u32::MAX));
            }
        }
        macro_rules! widths {
            ($($b:literal)*) => { $(check::<$b>();)* };
        }
        widths!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25);
        let mut out = [0u32; 8];
        assert_eq!(unpack_groups::<26>(&[0u8; 64], 0, &mut out), 0);
        assert_eq!(unpack_groups::<8>(&[0u8; 8], 0, &mut out), 0);
    }
}
