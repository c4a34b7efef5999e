//! [`SortedIndexReader`]: for a physically sorted single-value column, the doc range of each
//! dictionary id (Pinot's `.sv.sorted.fwd`) — it doubles as an inverted index.
//!
//! Layout: `u64 cardinality`, then per dict id `u32 start`, `u32 end` (end exclusive).

use crate::format::{ByteReader, Bytes};
use crate::types::{DictId, DocId};
use std::ops::Range;

/// Builds the entry from the dict ids of a sorted column (non-decreasing `ids`).
pub fn encode(ids: &[u32], cardinality: u32) -> Vec<u8> {
    let mut ranges = vec![(0u32, 0u32); cardinality as usize];
    let mut start = 0usize;
    while start < ids.len() {
        let id = ids[start];
        let mut end = start + 1;
        while end < ids.len() && ids[end] == id {
            end += 1;
        }
        if let Some(r) = ranges.get_mut(id as usize) {
            *r = (start as u32, end as u32);
        }
        start = end;
    }
    let mut out = Vec::with_capacity(8 + ranges.len() * 8);
    out.extend_from_slice(&(cardinality as u64).to_le_bytes());
    for (s, e) in ranges {
        out.extend_from_slice(&s.to_le_bytes());
        out.extend_from_slice(&e.to_le_bytes());
    }
    out
}

/// Doc ranges per dict id of a sorted column.
#[derive(Clone, Debug)]
pub struct SortedIndexReader {
    ranges: Bytes,
    len: u32,
}

impl SortedIndexReader {
    /// Parses an entry written by [`encode`], checking every range lies within `total_docs`.
    pub fn from_bytes(bytes: Bytes, total_docs: u32) -> Result<SortedIndexReader, String> {
        let mut r = ByteReader::new(&bytes);
        let n = r.len_at_most(r.remaining() / 8, "range count")?;
        let ranges = bytes.slice(8, n * 8).ok_or("ranges out of bounds")?;
        let reader = SortedIndexReader {
            ranges,
            len: n as u32,
        };
        for id in 0..n as u32 {
            let d = reader.doc_range(id);
            if d.start > d.end || d.end > total_docs {
                return Err(format!("doc range {d:?} of dict id {id} is invalid"));
            }
        }
        Ok(reader)
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
        let b = &self.ranges[id as usize * 8..id as usize * 8 + 8];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])..u32::from_le_bytes([b[4], b[5], b[6], b[7]])
    }

    /// The docs holding any dict id in `ids` (contiguous, since the column is sorted).
    pub fn doc_range_of(&self, ids: Range<DictId>) -> Range<DocId> {
        let ids = ids.start..ids.end.min(self.len);
        let first = ids
            .clone()
            .map(|i| self.doc_range(i))
            .find(|r| !r.is_empty());
        let last = ids.rev().map(|i| self.doc_range(i)).find(|r| !r.is_empty());
        match (first, last) {
            (Some(f), Some(l)) => f.start..l.end,
            _ => 0..0,
        }
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
        assert!(SortedIndexReader::from_bytes(Bytes::from_vec(e), 2).is_err());
    }
}
