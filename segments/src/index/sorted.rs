//! [`SortedIndexReader`]: for a physically sorted single-value column, the doc range of each
//! dictionary id (Pinot's `.sv.sorted.fwd`) — it doubles as an inverted index.
//!
//! Layout: `u64 cardinality`, then `cardinality + 1` little-endian `u32` starts: dict id `i`
//! holds docs `start[i]..start[i + 1]` (the column is sorted, so ranges are adjacent).

use crate::format::{ByteReader, Bytes};
use crate::types::{DictId, DocId};
use std::ops::Range;

/// Builds the entry from the dict ids of a sorted column (non-decreasing `ids`, each below
/// `cardinality`).
pub fn encode(ids: &[u32], cardinality: u32) -> Vec<u8> {
    let mut starts = vec![0u32; cardinality as usize + 1];
    for &id in ids {
        if let Some(s) = starts.get_mut(id as usize + 1) {
            *s += 1;
        }
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut out = Vec::with_capacity(8 + starts.len() * 4);
    out.extend_from_slice(&(cardinality as u64).to_le_bytes());
    for s in starts {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out
}

/// Doc ranges per dict id of a sorted column.
#[derive(Clone, Debug)]
pub struct SortedIndexReader {
    starts: Bytes,
    len: u32,
}

impl SortedIndexReader {
    /// Parses an entry written by [`encode`], checking the starts are ordered and within
    /// `total_docs`.
    pub fn from_bytes(bytes: Bytes, total_docs: u32) -> Result<SortedIndexReader, String> {
        let mut r = ByteReader::new(&bytes);
        let n = r.len_at_most((r.remaining() / 4).saturating_sub(1), "range count")?;
        let starts = bytes.slice(8, (n + 1) * 4).ok_or("ranges out of bounds")?;
        let reader = SortedIndexReader {
            starts,
            len: n as u32,
        };
        let mut prev = 0;
        for id in 0..=n {
            let s = reader.start(id);
            if s < prev || s > total_docs {
                return Err(format!(
                    "doc range start {s} of dict id {id} is out of order or past {total_docs} docs"
                ));
            }
            prev = s;
        }
        Ok(reader)
    }

    #[inline]
    fn start(&self, i: usize) -> u32 {
        let b = &self.starts[i * 4..i * 4 + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    /// Number of dict ids.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether there are no dict ids.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The docs holding dict id `id` (empty if none). Panics if `id >= len()`.
    #[inline]
    pub fn doc_range(&self, id: DictId) -> Range<DocId> {
        assert!(id < self.len, "dict id {id} out of range 0..{}", self.len);
        self.start(id as usize)..self.start(id as usize + 1)
    }

    /// The docs holding any dict id in `ids` (contiguous, since the column is sorted).
    pub fn doc_range_of(&self, ids: Range<DictId>) -> Range<DocId> {
        let (a, b) = (ids.start.min(self.len), ids.end.min(self.len));
        if a >= b {
            return 0..0;
        }
        self.start(a as usize)..self.start(b as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn ranges_match_brute_force(mut ids in proptest::collection::vec(0u32..30, 0..500), a in 0u32..31, b in 0u32..31) {
            ids.sort();
            let r = SortedIndexReader::from_bytes(Bytes::from_vec(encode(&ids, 30)), ids.len() as u32).unwrap();
            for id in 0..30 {
                let docs: Vec<u32> = (0..ids.len() as u32).filter(|&d| ids[d as usize] == id).collect();
                prop_assert_eq!(r.doc_range(id).collect::<Vec<_>>(), docs);
            }
            let docs: Vec<u32> = (0..ids.len() as u32).filter(|&d| (a..b).contains(&ids[d as usize])).collect();
            prop_assert_eq!(r.doc_range_of(a..b).collect::<Vec<_>>(), docs);
        }
    }

    #[test]
    fn rejects_ranges_past_the_end() {
        let e = encode(&[0, 0, 1], 2);
        assert!(SortedIndexReader::from_bytes(Bytes::from_vec(e.clone()), 3).is_ok());
        assert!(SortedIndexReader::from_bytes(Bytes::from_vec(e.clone()), 2).is_err());
        let mut unordered = e.clone();
        unordered[8..12].copy_from_slice(&3u32.to_le_bytes()); // id 0 starts after id 1
        assert!(SortedIndexReader::from_bytes(Bytes::from_vec(unordered), 3).is_err());
        for n in 0..e.len() {
            assert!(SortedIndexReader::from_bytes(Bytes::from_vec(e[..n].to_vec()), 3).is_err());
        }
    }
}
