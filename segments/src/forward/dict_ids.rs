//! [`DictIds`]: the dict id of each doc of a single-value dictionary-encoded column, read from
//! the bit-packed forward index or, for a sorted column, from its doc runs (a sorted column
//! stores no bit-packed forward index; the runs are far smaller and decode just as fast).

use super::BitPackedForward;
use crate::index::SortedIndexReader;
use crate::types::{DictId, DocId};

/// Single-value dict ids by doc.
#[derive(Clone, Debug)]
pub enum DictIds {
    /// Bit-packed, one id per doc.
    Packed(BitPackedForward),
    /// Runs of equal ids of a physically sorted column.
    Sorted(SortedIndexReader),
}

/// Dispatches `$body` over the variants, binding the inner reader.
macro_rules! with_ids {
    ($s:expr, $f:ident => $body:expr) => {
        match $s {
            DictIds::Packed($f) => $body,
            DictIds::Sorted($f) => $body,
        }
    };
}

impl DictIds {
    /// Number of docs.
    pub fn len(&self) -> u32 {
        match self {
            DictIds::Packed(f) => f.len(),
            DictIds::Sorted(s) => s.num_docs(),
        }
    }

    /// Whether there are no docs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bit-packed index, unless the column is sorted.
    pub fn packed(&self) -> Option<&BitPackedForward> {
        match self {
            DictIds::Packed(f) => Some(f),
            DictIds::Sorted(_) => None,
        }
    }

    /// The dict id of `doc`. Panics if `doc >= len()`.
    #[inline]
    pub fn get(&self, doc: DocId) -> DictId {
        with_ids!(self, f => f.get(doc))
    }

    /// Decodes the dict ids of docs `start .. start + out.len()`. Panics if that exceeds `len()`.
    #[inline]
    pub fn read_range(&self, start: DocId, out: &mut [DictId]) {
        with_ids!(self, f => f.read_range(start, out))
    }

    /// Gathers the dict ids of `docs` into `out` (same length).
    pub fn read_docs(&self, docs: &[DocId], out: &mut [DictId]) {
        with_ids!(self, f => f.read_docs(docs, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Bytes;
    use crate::forward::bitpacked;
    use crate::index::sorted;

    #[test]
    fn both_encodings_read_the_same_ids() {
        let ids: Vec<u32> = (0..1000u32).map(|d| d / 7).collect();
        let card = 1000 / 7 + 1;
        let bits = bitpacked::bits_for_cardinality(card);
        let packed = DictIds::Packed(
            BitPackedForward::from_bytes(Bytes::from_vec(bitpacked::pack(&ids, bits))).unwrap(),
        );
        let runs = DictIds::Sorted(
            SortedIndexReader::from_bytes(Bytes::from_vec(sorted::encode(&ids, card)), 1000)
                .unwrap(),
        );
        for f in [&packed, &runs] {
            assert_eq!(f.len(), 1000);
            assert_eq!(f.get(999), ids[999]);
            let mut out = vec![0; 300];
            f.read_range(450, &mut out);
            assert_eq!(out, ids[450..750]);
            let docs = [3, 5, 90, 91, 400, 2];
            let mut got = [0; 6];
            f.read_docs(&docs, &mut got);
            assert_eq!(got, docs.map(|d| ids[d as usize]));
        }
        assert!(runs.packed().is_none() && packed.packed().is_some());
    }
}
