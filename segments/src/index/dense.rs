//! [`DenseBits`]: a build-time bit array of doc ids, turned into a [`RoaringBitmap`] in one pass.
//!
//! Building a roaring bitmap doc by doc costs a container lookup and a store push per doc; for
//! the dense doc sets that range and low-cardinality inverted indexes hold, setting bits in a
//! flat array and converting it once ([`RoaringBitmap::from_lsb0_bytes`], which picks array or
//! bitmap containers by count) is several times faster.

use roaring::RoaringBitmap;

/// A bit per doc of `0..len`.
#[derive(Clone, Debug)]
pub struct DenseBits {
    words: Vec<u64>,
}

impl DenseBits {
    /// All-zero bits for docs `0..len`.
    pub fn new(len: usize) -> DenseBits {
        DenseBits {
            words: vec![0; len.div_ceil(64)],
        }
    }

    /// All bits of docs `0..len` set.
    pub fn full(len: usize) -> DenseBits {
        let mut words = vec![u64::MAX; len.div_ceil(64)];
        if let Some(last) = words.last_mut().filter(|_| !len.is_multiple_of(64)) {
            *last = (1u64 << (len % 64)) - 1;
        }
        DenseBits { words }
    }

    /// Sets the bit of `doc` (which must be below the length given to [`DenseBits::new`]).
    #[inline]
    pub fn set(&mut self, doc: u32) {
        self.words[(doc >> 6) as usize] |= 1u64 << (doc & 63);
    }

    /// The set docs as a roaring bitmap.
    pub fn to_roaring(&self) -> RoaringBitmap {
        let bytes: Vec<u8> = self.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        RoaringBitmap::from_lsb0_bytes(0, &bytes)
    }
}

/// Whether a set of `count` docs out of `docs` is dense enough for [`DenseBits`] to beat
/// building the bitmap doc by doc (roaring switches to bitmap containers at 1/16 density).
pub fn is_dense(count: usize, docs: usize) -> bool {
    count.saturating_mul(64) >= docs
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn matches_roaring_built_doc_by_doc(docs in proptest::collection::btree_set(0u32..200_000, 0..3000), len in 200_000usize..300_000) {
            let mut d = DenseBits::new(len);
            docs.iter().for_each(|&x| d.set(x));
            let expected: RoaringBitmap = docs.iter().copied().collect();
            prop_assert_eq!(d.to_roaring(), expected);
        }

        #[test]
        fn full_holds_every_doc(len in 0usize..5_200) {
            let expected: RoaringBitmap = (0..len as u32).collect();
            prop_assert_eq!(DenseBits::full(len).to_roaring(), expected);
        }
    }
}
