//! [`SortedIndexReader`]: for a physically sorted single-value column, the doc range of each
//! dictionary id (Pinot's `.sv.sorted.fwd`). It doubles as an inverted index and as the
//! column's forward index: a sorted column stores no bit-packed forward index, its dict id at a
//! doc is the run that holds the doc.
//!
//! Layout: `u64 cardinality`, then the `cardinality + 1` starts delta-packed
//! ([`crate::format::deltas`]): dict id `i` holds docs `start[i]..start[i + 1]` (the column is
//! sorted, so ranges are adjacent). The starts are decoded into memory when the segment opens.

use crate::format::{ByteReader, Bytes, deltas};
use crate::types::{DictId, DocId};
use std::ops::Range;
use std::sync::Arc;

/// Builds the entry from the dict ids of a sorted column (non-decreasing `ids`, each below
/// `cardinality`).
pub fn encode(ids: &[u32], cardinality: u32) -> Vec<u8> {
    let mut starts = vec![0u64; cardinality as usize + 1];
    for &id in ids {
        if let Some(s) = starts.get_mut(id as usize + 1) {
            *s += 1;
        }
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut out = Vec::with_capacity(16 + starts.len() / 2);
    out.extend_from_slice(&(cardinality as u64).to_le_bytes());
    deltas::encode(&starts, &mut out);
    out
}

/// Doc ranges per dict id of a sorted column.
#[derive(Clone, Debug)]
pub struct SortedIndexReader {
    /// `len + 1` non-decreasing starts, the last one the segment's doc count.
    starts: Arc<Vec<u32>>,
}

impl SortedIndexReader {
    /// Parses an entry written by [`encode`], checking the starts are ordered and cover
    /// exactly `total_docs`.
    pub fn from_bytes(bytes: Bytes, total_docs: u32) -> Result<SortedIndexReader, String> {
        let mut r = ByteReader::new(&bytes);
        // Every dict id holds at least one doc (the dictionary is this segment's values), so
        // there are at most `total_docs` of them.
        let n = r.len_at_most(total_docs as usize, "range count")?;
        let starts = deltas::decode(&mut r, n + 1)?;
        if starts.first() != Some(&0) || starts.last() != Some(&(total_docs as u64)) {
            return Err(format!(
                "doc ranges run from {:?} to {:?}, not over the {total_docs} docs",
                starts.first(),
                starts.last()
            ));
        }
        // Non-decreasing by construction of the deltas, and bounded by the last start.
        let starts = starts.into_iter().map(|s| s as u32).collect();
        Ok(SortedIndexReader {
            starts: Arc::new(starts),
        })
    }

    /// Number of dict ids.
    pub fn len(&self) -> u32 {
        self.starts.len() as u32 - 1
    }

    /// Whether there are no dict ids.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of docs.
    pub fn num_docs(&self) -> u32 {
        self.starts[self.starts.len() - 1]
    }

    /// The docs holding dict id `id` (empty if none). Panics if `id >= len()`.
    #[inline]
    pub fn doc_range(&self, id: DictId) -> Range<DocId> {
        assert!(
            id < self.len(),
            "dict id {id} out of range 0..{}",
            self.len()
        );
        self.starts[id as usize]..self.starts[id as usize + 1]
    }

    /// The docs holding any dict id in `ids` (contiguous, since the column is sorted).
    pub fn doc_range_of(&self, ids: Range<DictId>) -> Range<DocId> {
        let (a, b) = (ids.start.min(self.len()), ids.end.min(self.len()));
        if a >= b {
            return 0..0;
        }
        self.starts[a as usize]..self.starts[b as usize]
    }

    /// The dict id at `doc`. Panics if `doc >= num_docs()`.
    #[inline]
    pub fn get(&self, doc: DocId) -> DictId {
        assert!(
            doc < self.num_docs(),
            "doc {doc} out of range {}",
            self.num_docs()
        );
        // The last run whose start is at or before `doc` (empty runs share a start).
        self.starts.partition_point(|&s| s <= doc) as DictId - 1
    }

    /// The dict ids of docs `start .. start + out.len()`, run by run. Panics if that exceeds
    /// `num_docs()`.
    pub fn read_range(&self, start: DocId, out: &mut [DictId]) {
        if out.is_empty() {
            return;
        }
        let mut id = self.get(start);
        let end = start as usize + out.len();
        assert!(
            end <= self.num_docs() as usize,
            "range {start}+{} out of {}",
            out.len(),
            self.num_docs()
        );
        let mut doc = start as usize;
        while doc < end {
            let run_end = (self.starts[id as usize + 1] as usize).min(end);
            out[doc - start as usize..run_end - start as usize].fill(id);
            doc = run_end;
            id += 1;
        }
    }

    /// Gathers the dict ids of `docs` into `out` (same length), walking runs forward while the
    /// docs ascend.
    pub fn read_docs(&self, docs: &[DocId], out: &mut [DictId]) {
        let mut run = 0..0;
        let mut id = 0;
        for (o, &d) in out.iter_mut().zip(docs) {
            if !run.contains(&d) {
                id = if run.end > 0 && d >= run.end {
                    self.run_after(id, d)
                } else {
                    self.get(d)
                };
                run = self.doc_range(id);
            }
            *o = id;
        }
    }

    /// The run holding `doc`, known to lie after run `from`: searched forward from `from` in
    /// growing steps, so docs a few runs apart cost a few reads, not a binary search of every
    /// run start.
    fn run_after(&self, from: DictId, doc: DocId) -> DictId {
        let s = &self.starts;
        // `s[lo] <= doc` holds throughout; `hi` is where the search looks next.
        let mut lo = from as usize + 1;
        let mut step = 1;
        let mut hi = lo + step;
        while hi < s.len() && s[hi] <= doc {
            lo = hi;
            step *= 2;
            hi = lo + step;
        }
        let hi = hi.min(s.len());
        (lo + s[lo + 1..hi].partition_point(|&x| x <= doc)) as DictId
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reader(ids: &[u32], card: u32) -> SortedIndexReader {
        SortedIndexReader::from_bytes(Bytes::from_vec(encode(ids, card)), ids.len() as u32).unwrap()
    }

    proptest! {
        #[test]
        fn ranges_match_brute_force(mut ids in proptest::collection::vec(0u32..30, 30..500), a in 0u32..31, b in 0u32..31) {
            ids.sort();
            let r = reader(&ids, 30);
            for id in 0..30 {
                let docs: Vec<u32> = (0..ids.len() as u32).filter(|&d| ids[d as usize] == id).collect();
                prop_assert_eq!(r.doc_range(id).collect::<Vec<_>>(), docs);
            }
            let docs: Vec<u32> = (0..ids.len() as u32).filter(|&d| (a..b).contains(&ids[d as usize])).collect();
            prop_assert_eq!(r.doc_range_of(a..b).collect::<Vec<_>>(), docs);
        }

        #[test]
        fn reads_ids_like_a_forward_index(mut ids in proptest::collection::vec(0u32..40, 40..600), a in any::<u32>(), b in any::<u32>()) {
            ids.sort();
            let r = reader(&ids, 40);
            for (d, &id) in ids.iter().enumerate() {
                prop_assert_eq!(r.get(d as u32), id);
            }
            let s = a as usize % ids.len();
            let len = b as usize % (ids.len() - s + 1);
            let mut part = vec![0; len];
            r.read_range(s as u32, &mut part);
            prop_assert_eq!(&part[..], &ids[s..s + len]);
            let docs: Vec<u32> = (0..ids.len() as u32).filter(|d| (d ^ a) % 3 != 0).chain([0, s as u32]).collect();
            let mut g = vec![0; docs.len()];
            r.read_docs(&docs, &mut g);
            for (d, v) in docs.iter().zip(g) { prop_assert_eq!(ids[*d as usize], v); }
            // Ascending docs far apart: the forward search crosses many runs at once.
            let sparse: Vec<u32> = (0..ids.len() as u32).filter(|d| d % (1 + b % 60) == 0).collect();
            let mut g = vec![0; sparse.len()];
            r.read_docs(&sparse, &mut g);
            for (d, v) in sparse.iter().zip(g) { prop_assert_eq!(ids[*d as usize], v); }
        }
    }

    #[test]
    fn rejects_ranges_not_covering_the_docs() {
        let e = encode(&[0, 0, 1], 2);
        assert!(SortedIndexReader::from_bytes(Bytes::from_vec(e.clone()), 3).is_ok());
        assert!(SortedIndexReader::from_bytes(Bytes::from_vec(e.clone()), 2).is_err());
        assert!(SortedIndexReader::from_bytes(Bytes::from_vec(e.clone()), 4).is_err());
        for n in 0..e.len() {
            assert!(SortedIndexReader::from_bytes(Bytes::from_vec(e[..n].to_vec()), 3).is_err());
        }
        let mut huge = e.clone();
        huge[0..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(SortedIndexReader::from_bytes(Bytes::from_vec(huge), 3).is_err());
    }

    #[test]
    #[should_panic(expected = "out of")]
    fn read_past_end_panics_not_ub() {
        let mut out = [0; 3];
        reader(&[0, 1, 1], 2).read_range(1, &mut out);
    }
}
