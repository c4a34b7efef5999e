//! [`DocSet`]: the documents of one segment a filter selected — a contiguous range (sorted
//! index, match-all) or a roaring bitmap — with the set algebra filters need and iteration in
//! blocks.

use crate::block::BLOCK_SIZE;
use roaring::RoaringBitmap;
use segments::types::DocId;
use std::ops::Range;
use std::sync::Arc;

/// A set of document ids.
#[derive(Clone, Debug, PartialEq)]
pub enum DocSet {
    /// `start..end`.
    Range(Range<DocId>),
    /// Shared, so an index's cached posting list is used without a copy.
    Bitmap(Arc<RoaringBitmap>),
}

impl DocSet {
    /// A set of the docs of `b`.
    pub fn bitmap(b: RoaringBitmap) -> DocSet {
        DocSet::Bitmap(Arc::new(b))
    }

    /// The documents of `ranges`, in any order (empty ones allowed). One range stays a range.
    /// Many ascending ones — a sorted column's documents of many values — are set as bits over
    /// their span and the bitmap is built from the bits, a few instructions per document
    /// instead of one bitmap insertion each; a few ranges, or ranges spread thin over a wide
    /// span, are inserted one by one.
    pub fn of_ranges(ranges: impl IntoIterator<Item = Range<DocId>>) -> DocSet {
        let mut merged: Vec<Range<DocId>> = Vec::new();
        let mut ascending = true;
        for r in ranges.into_iter().filter(|r| r.start < r.end) {
            match merged.last_mut() {
                Some(last) if last.end == r.start => last.end = r.end,
                Some(last) => {
                    ascending &= last.end < r.start;
                    merged.push(r);
                }
                None => merged.push(r),
            }
        }
        let (Some(first), Some(last)) = (merged.first(), merged.last()) else {
            return DocSet::empty();
        };
        if merged.len() == 1 {
            return DocSet::Range(first.clone());
        }
        let start = first.start & !7;
        let span = last.end.saturating_sub(start) as usize;
        if !ascending || merged.len() <= FEW_RANGES || span / SPARSE_BITS_PER_RANGE > merged.len() {
            let mut b = RoaringBitmap::new();
            for r in merged {
                b.insert_range(r);
            }
            return DocSet::bitmap(b);
        }
        let mut bits = vec![0u8; span.div_ceil(8)];
        for r in &merged {
            set_bits(
                &mut bits,
                (r.start - start) as usize..(r.end - start) as usize,
            );
        }
        DocSet::bitmap(RoaringBitmap::from_lsb0_bytes(start, &bits))
    }

    /// The documents of `docs`, ascending: set as bits over their span when they are dense
    /// enough that the span's bytes cost less than a bitmap insertion per document.
    pub fn of_ascending(docs: Vec<DocId>) -> DocSet {
        let (Some(&first), Some(&last)) = (docs.first(), docs.last()) else {
            return DocSet::empty();
        };
        let start = first & !7;
        let span = (last - start) as usize + 1;
        if docs.len() < FEW_RANGES || span / SPARSE_BITS_PER_DOC > docs.len() {
            return DocSet::bitmap(
                RoaringBitmap::from_sorted_iter(docs.iter().copied())
                    .unwrap_or_else(|_| docs.into_iter().collect()),
            );
        }
        let mut bits = vec![0u8; span.div_ceil(8)];
        for &doc in &docs {
            let i = (doc - start) as usize;
            bits[i >> 3] |= 1 << (i & 7);
        }
        DocSet::bitmap(RoaringBitmap::from_lsb0_bytes(start, &bits))
    }

    /// Every document of a segment with `n` documents.
    pub fn all(n: u32) -> DocSet {
        DocSet::Range(0..n)
    }

    /// No document.
    pub fn empty() -> DocSet {
        DocSet::Range(0..0)
    }

    /// Number of documents.
    pub fn len(&self) -> u64 {
        match self {
            DocSet::Range(r) => r.end.saturating_sub(r.start) as u64,
            DocSet::Bitmap(b) => b.len(),
        }
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the set is every document of an `n`-document segment.
    pub fn is_all(&self, n: u32) -> bool {
        self.len() == n as u64
    }

    /// The smallest range holding every document of the set; `None` when it is empty.
    pub fn span(&self) -> Option<Range<DocId>> {
        match self {
            DocSet::Range(r) => (r.start < r.end).then(|| r.clone()),
            DocSet::Bitmap(b) => Some(b.min()?..b.max()? + 1),
        }
    }

    /// The span a bulk pass should read for this set: the range itself, or the span of a
    /// bitmap that fills more than half of it (reading the span and skipping the few absent
    /// documents beats visiting the present ones one by one); `None` for a sparse bitmap or an
    /// empty one.
    pub fn dense_span(&self) -> Option<Range<DocId>> {
        match self {
            DocSet::Range(r) => Some(r.clone()),
            DocSet::Bitmap(b) => match (b.min(), b.max()) {
                (Some(lo), Some(hi)) if ((hi - lo) as u64) < b.len() * 2 => Some(lo..hi + 1),
                _ => None,
            },
        }
    }

    /// The set as a bitmap.
    pub fn to_bitmap(&self) -> RoaringBitmap {
        match self {
            DocSet::Range(r) => {
                let mut b = RoaringBitmap::new();
                if r.start < r.end {
                    b.insert_range(r.clone());
                }
                b
            }
            DocSet::Bitmap(b) => (**b).clone(),
        }
    }

    /// Whether `doc` is in the set.
    pub fn contains(&self, doc: DocId) -> bool {
        match self {
            DocSet::Range(r) => r.contains(&doc),
            DocSet::Bitmap(b) => b.contains(doc),
        }
    }

    /// Intersection.
    pub fn and(self, other: &DocSet) -> DocSet {
        match (self, other) {
            (DocSet::Range(a), DocSet::Range(b)) => {
                let start = a.start.max(b.start);
                let end = a.end.min(b.end).max(start);
                DocSet::Range(start..end)
            }
            (DocSet::Range(r), DocSet::Bitmap(b)) if within(b, &r) => DocSet::Bitmap(b.clone()),
            (DocSet::Range(r), DocSet::Bitmap(b)) => DocSet::bitmap(clip((**b).clone(), &r)),
            (DocSet::Bitmap(b), DocSet::Range(r)) if within(&b, r) => DocSet::Bitmap(b),
            (DocSet::Bitmap(b), DocSet::Range(r)) => {
                DocSet::bitmap(clip(Arc::unwrap_or_clone(b), r))
            }
            (DocSet::Bitmap(a), DocSet::Bitmap(b)) => DocSet::bitmap(&*a & &**b),
        }
    }

    /// Union.
    pub fn or(self, other: &DocSet) -> DocSet {
        match (&self, other) {
            (DocSet::Range(a), DocSet::Range(b)) if a.start <= b.end && b.start <= a.end => {
                if a.start >= a.end {
                    return other.clone();
                }
                if b.start >= b.end {
                    return self;
                }
                DocSet::Range(a.start.min(b.start)..a.end.max(b.end))
            }
            _ => DocSet::bitmap(self.to_bitmap() | other.to_bitmap()),
        }
    }

    /// Complement within an `n`-document segment.
    pub fn not(self, n: u32) -> DocSet {
        match self {
            DocSet::Range(r) if r.start >= r.end => DocSet::all(n),
            DocSet::Range(r) if r.start == 0 => DocSet::Range(r.end.min(n)..n),
            DocSet::Range(r) if r.end >= n => DocSet::Range(0..r.start.min(n)),
            other => {
                let mut all = RoaringBitmap::new();
                all.insert_range(0..n);
                DocSet::bitmap(all - other.to_bitmap())
            }
        }
    }

    /// Removes the documents of `b`.
    pub fn minus(self, b: &RoaringBitmap) -> DocSet {
        if b.is_empty() {
            return self;
        }
        DocSet::bitmap(self.to_bitmap() - b)
    }

    /// The set cut into at most `n` disjoint parts in doc order, of about equal size and each of
    /// at least `min_docs` documents (the whole set, as one part, when it is smaller than two):
    /// the units one segment's scan is spread over threads in.
    pub fn split(&self, n: usize, min_docs: u64) -> Vec<DocSet> {
        let len = self.len();
        let n = (n as u64).min(len / min_docs.max(1)).max(1);
        if n == 1 {
            return vec![self.clone()];
        }
        // Part `i` holds the docs of rank `cut(i)..cut(i + 1)`.
        let cut = |i: u64| (i * len / n) as u32;
        match self {
            DocSet::Range(r) => (0..n)
                .map(|i| DocSet::Range(r.start + cut(i)..r.start + cut(i + 1)))
                .collect(),
            DocSet::Bitmap(b) => {
                let Some(bounds) = (1..n).map(|i| b.select(cut(i))).collect::<Option<Vec<_>>>()
                else {
                    return vec![self.clone()];
                };
                let mut parts = Vec::with_capacity(n as usize);
                let mut lo = 0;
                for hi in bounds.into_iter().map(Some).chain([None]) {
                    let mut part = (**b).clone();
                    part.remove_range(..lo);
                    if let Some(hi) = hi {
                        part.remove_range(hi..);
                        lo = hi;
                    }
                    parts.push(DocSet::bitmap(part));
                }
                parts
            }
        }
    }

    /// The documents in ascending order, in chunks of at most [`BLOCK_SIZE`].
    pub fn blocks(&self) -> DocBlocks<'_> {
        DocBlocks {
            set: self,
            next_range: match self {
                DocSet::Range(r) => r.start,
                DocSet::Bitmap(_) => 0,
            },
            window: None,
            next_window: 0,
        }
    }
}

/// At most this many ranges or documents go into a bitmap one by one.
const FEW_RANGES: usize = 16;
/// Ranges spread wider than this many bits apart, on average, go into a bitmap one by one.
const SPARSE_BITS_PER_RANGE: usize = 256;
/// Documents spread wider than this many bits apart, on average, go into a bitmap one by one.
const SPARSE_BITS_PER_DOC: usize = 64;

/// Sets bits `r` of `bits` (bit `i` is bit `i % 8` of byte `i / 8`): whole bytes at once
/// between the partial ones at the ends.
fn set_bits(bits: &mut [u8], r: Range<usize>) {
    let (mut i, end) = (r.start, r.end);
    while i < end && i & 7 != 0 {
        bits[i >> 3] |= 1 << (i & 7);
        i += 1;
    }
    let whole = (end - i) >> 3;
    bits[i >> 3..(i >> 3) + whole].fill(0xff);
    i += whole << 3;
    while i < end {
        bits[i >> 3] |= 1 << (i & 7);
        i += 1;
    }
}

/// Whether every doc of `b` is in `r` (an intersection that changes nothing).
fn within(b: &RoaringBitmap, r: &Range<DocId>) -> bool {
    match (b.min(), b.max()) {
        (Some(lo), Some(hi)) => r.start <= lo && hi < r.end,
        _ => true,
    }
}

fn clip(mut b: RoaringBitmap, r: &Range<DocId>) -> RoaringBitmap {
    if r.start > 0 {
        b.remove_range(0..r.start);
    }
    b.remove_range(r.end..);
    b
}

/// Docs of a bitmap one container (2^16 docs) at a time: roaring's bulk `next_many` loses a
/// run that fills a whole container (its length, 65,536, overflows a `u16`: the run is skipped in
/// release builds), so a full container is emitted here as a range and only the others go
/// through `next_many`.
const WINDOW_BITS: u32 = 16;

/// The rest of the bitmap's current container.
enum Window<'a> {
    /// Every doc of the container: those not emitted yet.
    Full(Range<DocId>),
    /// Some docs of the container.
    Part(roaring::bitmap::Iter<'a>),
}

/// Iterator over a [`DocSet`] in blocks.
pub struct DocBlocks<'a> {
    set: &'a DocSet,
    next_range: DocId,
    window: Option<Window<'a>>,
    /// The first doc of the containers not started yet.
    next_window: u64,
}

impl<'a> DocBlocks<'a> {
    /// The container holding the bitmap's next doc at or after `next_window`, if any.
    fn open_window(&mut self, b: &'a RoaringBitmap) -> Option<Window<'a>> {
        let from = u32::try_from(self.next_window).ok()?;
        let first = b.range(from..).next()?;
        let lo = first >> WINDOW_BITS << WINDOW_BITS;
        let hi = lo | ((1 << WINDOW_BITS) - 1);
        self.next_window = u64::from(hi) + 1;
        Some(if first == lo && b.contains_range(lo..=hi) {
            Window::Full(lo..hi + 1)
        } else {
            Window::Part(b.range(first..=hi))
        })
    }
}

impl Iterator for DocBlocks<'_> {
    type Item = Vec<DocId>;

    fn next(&mut self) -> Option<Vec<DocId>> {
        match self.set {
            DocSet::Range(r) => {
                if self.next_range >= r.end {
                    return None;
                }
                let end = (self.next_range as u64 + BLOCK_SIZE as u64).min(r.end as u64) as DocId;
                let docs: Vec<DocId> = (self.next_range..end).collect();
                self.next_range = end;
                Some(docs)
            }
            DocSet::Bitmap(b) => {
                let mut docs = vec![0; BLOCK_SIZE];
                let mut n = 0;
                while n < BLOCK_SIZE {
                    if self.window.is_none() {
                        self.window = self.open_window(b);
                    }
                    match &mut self.window {
                        None => break,
                        Some(Window::Full(r)) => {
                            let take = (r.len()).min(BLOCK_SIZE - n);
                            for (slot, doc) in docs[n..n + take].iter_mut().zip(r.start..) {
                                *slot = doc;
                            }
                            r.start += take as DocId;
                            n += take;
                            if r.start >= r.end {
                                self.window = None;
                            }
                        }
                        Some(Window::Part(it)) => {
                            let got = it.next_many(&mut docs[n..]).len();
                            n += got;
                            if got == 0 {
                                self.window = None;
                            }
                        }
                    }
                }
                docs.truncate(n);
                (n > 0).then_some(docs)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bm(v: &[u32]) -> DocSet {
        DocSet::bitmap(v.iter().copied().collect())
    }

    #[test]
    fn algebra() {
        let r = DocSet::Range(2..6);
        assert_eq!(r.clone().and(&DocSet::Range(4..10)), DocSet::Range(4..6));
        assert_eq!(r.clone().and(&DocSet::Range(7..10)).len(), 0);
        assert_eq!(
            r.clone().and(&bm(&[1, 3, 5, 7])).to_bitmap(),
            bm(&[3, 5]).to_bitmap()
        );
        assert_eq!(r.clone().or(&DocSet::Range(6..8)), DocSet::Range(2..8));
        assert_eq!(r.clone().or(&bm(&[9])).len(), 5);
        assert_eq!(r.clone().not(8).to_bitmap(), bm(&[0, 1, 6, 7]).to_bitmap());
        assert_eq!(DocSet::Range(0..3).not(8), DocSet::Range(3..8));
        assert_eq!(DocSet::empty().not(4), DocSet::all(4));
        assert!(DocSet::all(4).is_all(4));
        let nulls: RoaringBitmap = [3u32].into_iter().collect();
        assert_eq!(r.minus(&nulls).len(), 3);
    }

    #[test]
    fn blocks_cover_everything_in_order() {
        let r = DocSet::Range(5..25_005);
        let blocks: Vec<Vec<u32>> = r.blocks().collect();
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0].len(), BLOCK_SIZE);
        assert_eq!(blocks[2].last(), Some(&25_004));
        let b = bm(&[1, 4, 9]);
        assert_eq!(b.blocks().collect::<Vec<_>>(), vec![vec![1, 4, 9]]);
        assert_eq!(DocSet::empty().blocks().count(), 0);
    }

    #[test]
    fn blocks_of_a_bitmap_of_runs_hold_every_doc() {
        let mut b = RoaringBitmap::new();
        for run in 0..40u32 {
            b.insert_range(run * 9_000..run * 9_000 + 4_000);
        }
        b.optimize();
        let set = DocSet::bitmap(b.clone());
        let got: Vec<u32> = set.blocks().flatten().collect();
        assert_eq!(got.len() as u64, b.len());
        assert_eq!(got, b.iter().collect::<Vec<_>>());
        // Runs filling whole containers (roaring's `next_many` skips those), next to partial ones.
        for (a, lo, hi) in [
            (25u32, 2_400_000u32, 2_688_655u32),
            (0, 65_536, 200_000),
            (10, 70_000, 300_001),
            (65_536, 131_072, 131_073),
            (1, u32::MAX - 70_000, u32::MAX),
        ] {
            let set = DocSet::Range(0..a).or(&DocSet::Range(lo..hi));
            let got: Vec<u32> = set.blocks().flatten().collect();
            assert_eq!(
                got,
                set.to_bitmap().iter().collect::<Vec<_>>(),
                "{a} {lo} {hi}"
            );
            assert!(set.blocks().all(|b| !b.is_empty() && b.len() <= BLOCK_SIZE));
        }
    }

    proptest! {
        #[test]
        fn built_from_ranges_or_docs_as_inserted_one_by_one(
            starts in proptest::collection::vec((0u32..20_000, 0u32..40), 0..300),
            wide in any::<bool>(),
            shuffle in any::<bool>(),
        ) {
            // Dense (set as bits) or spread over a wide span (inserted one by one).
            let scale = if wide { 50 } else { 1 };
            let mut ranges: Vec<Range<u32>> =
                starts.iter().map(|&(s, l)| s * scale..s * scale + l).collect();
            ranges.sort_by_key(|r| r.start);
            // Disjoint (touching allowed): each range starts at or after the previous end.
            let mut end = 0;
            for r in &mut ranges {
                let len = r.len() as u32;
                r.start = r.start.max(end);
                r.end = r.start + len;
                end = r.end;
            }
            let mut expected = RoaringBitmap::new();
            for r in &ranges {
                expected.insert_range(r.clone());
            }
            if shuffle {
                ranges.reverse();
            }
            prop_assert_eq!(DocSet::of_ranges(ranges).to_bitmap(), expected.clone());
            let docs: Vec<u32> = expected.iter().collect();
            prop_assert_eq!(DocSet::of_ascending(docs).to_bitmap(), expected);
        }

        #[test]
        fn set_ops_match_bitmaps(a in proptest::collection::vec(0u32..200, 0..50), lo in 0u32..200, len in 0u32..100) {
            let n = 200;
            let x = bm(&a);
            let y = DocSet::Range(lo..(lo + len).min(n));
            let xb = x.to_bitmap();
            let yb = y.to_bitmap();
            prop_assert_eq!(x.clone().and(&y).to_bitmap(), &xb & &yb);
            prop_assert_eq!(y.clone().and(&x).to_bitmap(), &xb & &yb);
            prop_assert_eq!(x.clone().or(&y).to_bitmap(), &xb | &yb);
            let mut all = RoaringBitmap::new();
            all.insert_range(0..n);
            prop_assert_eq!(y.clone().not(n).to_bitmap(), &all - &yb);
            prop_assert_eq!(x.not(n).to_bitmap(), &all - &xb);
        }

        #[test]
        fn split_parts_are_disjoint_ordered_and_cover_the_set(
            a in proptest::collection::vec(0u32..5000, 0..400),
            lo in 0u32..3000,
            len in 0u32..3000,
            n in 1usize..6,
            min_docs in 1u64..60,
        ) {
            for set in [bm(&a), DocSet::Range(lo..lo + len)] {
                let parts = set.split(n, min_docs);
                prop_assert!(!parts.is_empty() && parts.len() <= n);
                if parts.len() > 1 {
                    prop_assert!(parts.iter().all(|p| p.len() >= min_docs));
                }
                let docs: Vec<u32> = parts.iter().flat_map(|p| p.to_bitmap()).collect();
                prop_assert_eq!(docs, set.to_bitmap().iter().collect::<Vec<_>>());
            }
        }
    }

    proptest! {
        // Each case checks six sets over four containers, a flag per doc: fewer cases.
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Against a plain model (one flag per doc), over four containers and ranges whose ends
        /// fall on or next to container bounds (where roaring's run containers hold whole
        /// containers): a bug in the bitmap library shows here too.
        #[test]
        fn set_ops_blocks_and_parts_match_a_model(
            x_runs in proptest::collection::vec((0u32..5, 0u32..5, 0u32..4, 0u32..4), 1..4),
            y_runs in proptest::collection::vec((0u32..5, 0u32..5, 0u32..4, 0u32..4), 1..4),
            points in proptest::collection::vec(0u32..(4 << 16), 0..40),
            optimize in any::<bool>(),
        ) {
            const N: u32 = 4 << 16;
            // A bound near container `k`'s start: one of k·2^16 − 1, k·2^16, k·2^16 + 1, +777.
            let bound = |k: u32, d: u32| (k << 16).wrapping_add([0, 1, 777, u32::MAX][d as usize]).min(N);
            let build = |runs: &[(u32, u32, u32, u32)], extra: &[u32]| {
                let mut model = vec![false; N as usize];
                let mut set = DocSet::empty();
                for &(k1, k2, d1, d2) in runs {
                    let (a, b) = (bound(k1.min(k2), d1), bound(k1.max(k2), d2));
                    let r = a.min(b)..a.max(b);
                    model[r.start as usize..r.end as usize].fill(true);
                    set = set.or(&DocSet::Range(r));
                }
                if !extra.is_empty() {
                    extra.iter().for_each(|&p| model[p as usize] = true);
                    set = set.or(&bm(extra));
                }
                if optimize && let DocSet::Bitmap(b) = &set {
                    let mut b = (**b).clone();
                    b.optimize();
                    set = DocSet::bitmap(b);
                }
                (set, model)
            };
            let (x, xm) = build(&x_runs, &points);
            let (y, ym) = build(&y_runs, &[]);
            let docs = |m: &[bool]| -> Vec<u32> {
                m.iter().enumerate().filter(|(_, f)| **f).map(|(d, _)| d as u32).collect()
            };
            let both: Vec<bool> = xm.iter().zip(&ym).map(|(a, b)| *a && *b).collect();
            let either: Vec<bool> = xm.iter().zip(&ym).map(|(a, b)| *a || *b).collect();
            let not_x: Vec<bool> = xm.iter().map(|a| !a).collect();
            let x_minus_y: Vec<bool> = xm.iter().zip(&ym).map(|(a, b)| *a && !b).collect();
            for (set, model) in [
                (x.clone(), &xm),
                (x.clone().and(&y), &both),
                (y.clone().and(&x), &both),
                (x.clone().or(&y), &either),
                (x.clone().not(N), &not_x),
                (x.clone().minus(&y.to_bitmap()), &x_minus_y),
            ] {
                let want = docs(model);
                prop_assert_eq!(set.len(), want.len() as u64);
                prop_assert_eq!(set.blocks().flatten().collect::<Vec<_>>(), want.clone());
                prop_assert_eq!(set.to_bitmap().iter().collect::<Vec<_>>(), want.clone());
                let parts = set.split(3, 1000);
                let joined: Vec<u32> = parts.iter().flat_map(|p| p.blocks().flatten()).collect();
                prop_assert_eq!(joined, want);
            }
        }
    }
}
