//! [`MvForward`]: multi-value dictionary ids — per-doc offsets plus one bit-packed id stream.
//!
//! Layout: `u64 docs`, `u64 entries`, `u32 bits`, `u32 reserved`, `docs + 1` little-endian `u32`
//! offsets into the id stream (first 0, last `entries`), padding to 8 bytes, then the packed
//! stream of all ids in doc order ([`super::bitpacked`] format, with its padding).

use super::bitpacked::{BitPackedForward, pack_into};
use crate::format::{ByteReader, Bytes, bytes::pad_to};
use crate::types::{DictId, DocId};
use std::ops::Range;

/// Serializes multi-value ids: `values[offsets[d]..offsets[d+1]]` are the ids of doc `d`.
pub fn encode(offsets: &[u32], values: &[u32], bits: u8) -> Vec<u8> {
    let docs = offsets.len().saturating_sub(1);
    let mut out =
        Vec::with_capacity(24 + offsets.len() * 4 + values.len() * bits as usize / 8 + 16);
    out.extend_from_slice(&(docs as u64).to_le_bytes());
    out.extend_from_slice(&(values.len() as u64).to_le_bytes());
    out.extend_from_slice(&(bits as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    for o in offsets {
        out.extend_from_slice(&o.to_le_bytes());
    }
    pad_to(&mut out, 8);
    pack_into(values, bits, &mut out);
    out
}

/// Multi-value dict ids.
#[derive(Clone, Debug)]
pub struct MvForward {
    offsets: Bytes,
    ids: BitPackedForward,
    docs: u32,
}

impl MvForward {
    /// Parses an entry written by [`encode`], validating the offsets.
    pub fn from_bytes(bytes: Bytes) -> Result<MvForward, String> {
        let mut r = ByteReader::new(&bytes);
        let docs = r.len_at_most(u32::MAX as usize - 1, "doc count")?;
        let entries = r.len_at_most(u32::MAX as usize, "entry count")?;
        let bits = r.u32()?;
        r.u32()?;
        let offsets_at = r.pos();
        r.take((docs + 1) * 4)?;
        r.align(8)?;
        let stream_at = r.pos();
        let offsets = bytes
            .slice(offsets_at, (docs + 1) * 4)
            .ok_or("offsets out of bounds")?;
        let mut prev = 0u32;
        for (i, c) in offsets.chunks_exact(4).enumerate() {
            let o = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            if (i == 0 && o != 0) || o < prev {
                return Err(format!("multi-value offset {i} ({o}) is out of order"));
            }
            prev = o;
        }
        if prev as usize != entries {
            return Err(format!(
                "multi-value offsets end at {prev}, expected {entries}"
            ));
        }
        let stream = bytes
            .slice(stream_at, bytes.len() - stream_at)
            .ok_or("id stream out of bounds")?;
        Ok(MvForward {
            offsets,
            ids: BitPackedForward::from_stream(stream, bits, entries as u64)?,
            docs: docs as u32,
        })
    }

    #[inline]
    fn offset(&self, i: usize) -> u32 {
        let c = &self.offsets[i * 4..i * 4 + 4];
        u32::from_le_bytes([c[0], c[1], c[2], c[3]])
    }

    /// Number of docs.
    pub fn len(&self) -> u32 {
        self.docs
    }

    /// Whether there are no docs.
    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// Bits per id.
    pub fn bits(&self) -> u8 {
        self.ids.bits()
    }

    /// Positions of `doc`'s ids in the flat id stream ([`MvForward::ids`]).
    #[inline]
    pub fn entry_range(&self, doc: DocId) -> Range<u32> {
        self.offset(doc as usize)..self.offset(doc as usize + 1)
    }

    /// Number of values of `doc`.
    #[inline]
    pub fn num_values(&self, doc: DocId) -> u32 {
        let r = self.entry_range(doc);
        r.end - r.start
    }

    /// Replaces `out` with the dict ids of `doc`.
    pub fn read(&self, doc: DocId, out: &mut Vec<DictId>) {
        let r = self.entry_range(doc);
        out.clear();
        out.resize((r.end - r.start) as usize, 0);
        self.ids.read_range(r.start, out);
    }

    /// The flat stream of all ids in doc order (for batch decoding with [`MvForward::entry_range`]).
    pub fn ids(&self) -> &BitPackedForward {
        &self.ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn round_trips(bits in 1u8..=20, docs in proptest::collection::vec(proptest::collection::vec(any::<u32>(), 0..6), 0..100)) {
            let max = (1u32 << bits) - 1;
            let docs: Vec<Vec<u32>> = docs.into_iter().map(|d| d.into_iter().map(|v| v & max).collect()).collect();
            let mut offsets = vec![0u32];
            let mut flat = Vec::new();
            for d in &docs { flat.extend_from_slice(d); offsets.push(flat.len() as u32); }
            let f = MvForward::from_bytes(Bytes::from_vec(encode(&offsets, &flat, bits))).unwrap();
            prop_assert_eq!(f.len() as usize, docs.len());
            let mut out = Vec::new();
            for (i, d) in docs.iter().enumerate() {
                prop_assert_eq!(f.num_values(i as u32) as usize, d.len());
                f.read(i as u32, &mut out);
                prop_assert_eq!(&out, d);
            }
        }
    }

    #[test]
    fn rejects_bad_offsets() {
        let good = encode(&[0, 2, 3], &[1, 2, 3], 2);
        assert!(MvForward::from_bytes(Bytes::from_vec(good.clone())).is_ok());
        let mut bad = good.clone();
        bad[28] = 5; // offsets[1] = 5 > offsets[2]
        assert!(MvForward::from_bytes(Bytes::from_vec(bad)).is_err());
        assert!(MvForward::from_bytes(Bytes::from_vec(good[..30].to_vec())).is_err());
    }
}
