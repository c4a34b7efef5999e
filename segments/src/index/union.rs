//! [`union`]: the docs of many bitmaps (a range index's buckets, an inverted index's posting
//! lists for an `IN`), computed on the rayon pool when there are enough of them.
//!
//! An index's answer is asked for once per segment, before the segment's scan is cut into
//! parts, so a serial union is a query's serial step while the other cores wait. The bitmaps
//! are cut into one group per pool thread, each group unioned on its own thread, and the
//! groups' unions (a few bitmaps) unioned last.

use super::dense::is_dense;
use rayon::prelude::*;
use roaring::{MultiOps, RoaringBitmap};

/// Below this many docs in all bitmaps together, one thread unions them: a task's start and
/// the last union of the groups (over the whole span) cost more than the second thread saves —
/// at 65,536 a range filter matching nearly every doc (its few "other" docs unioned) was 5%
/// slower on two threads.
const MIN_PARALLEL_DOCS: u64 = 1 << 18;

/// The union of `maps`, merged k-way when it is dense (see [`serial`]).
pub fn union(maps: &[&RoaringBitmap]) -> RoaringBitmap {
    let docs = total_docs(maps);
    let span = maps
        .iter()
        .filter_map(|m| m.max())
        .max()
        .map_or(0, |m| m as usize + 1);
    grouped(maps, is_dense(docs as usize, span), docs)
}

/// The union of `maps`, merged k-way when `dense` says so (see [`serial`]).
pub fn union_with(maps: &[&RoaringBitmap], dense: bool) -> RoaringBitmap {
    grouped(maps, dense, total_docs(maps))
}

fn total_docs(maps: &[&RoaringBitmap]) -> u64 {
    maps.iter().map(|m| m.len()).sum()
}

/// The union of `maps` (`docs` in all), a group of them per pool thread when they are many.
fn grouped(maps: &[&RoaringBitmap], dense: bool, docs: u64) -> RoaringBitmap {
    let threads = rayon::current_num_threads().min(maps.len() / 2);
    if threads < 2 || docs < MIN_PARALLEL_DOCS {
        return serial(maps, dense);
    }
    let size = maps.len().div_ceil(threads);
    let groups: Vec<RoaringBitmap> = maps
        .par_chunks(size)
        .map(|group| serial(group, dense))
        .collect();
    groups.union()
}

/// `dense`: the union holds at least a sixteenth of the docs it spans, where a k-way merge
/// ([`MultiOps::union`], bitmap containers) beats folding one map at a time into the result
/// (array containers grown in place).
fn serial(maps: &[&RoaringBitmap], dense: bool) -> RoaringBitmap {
    if dense {
        maps.iter().copied().union()
    } else {
        maps.iter().fold(RoaringBitmap::new(), |acc, m| acc | *m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn many_docs_are_unioned_in_groups_on_the_pool() {
        // Eight maps of 100,000 docs each (overlapping strides): past `MIN_PARALLEL_DOCS`.
        let maps: Vec<RoaringBitmap> = (1..=8u32)
            .map(|k| (0..100_000u32).map(|i| i * k * 3 % 2_000_000).collect())
            .collect();
        let refs: Vec<&RoaringBitmap> = maps.iter().collect();
        assert!(maps.iter().map(|m| m.len()).sum::<u64>() >= MIN_PARALLEL_DOCS);
        let expected = maps.iter().fold(RoaringBitmap::new(), |acc, m| acc | m);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        for dense in [true, false] {
            assert_eq!(pool.install(|| union_with(&refs, dense)), expected);
        }
        assert_eq!(pool.install(|| union(&refs)), expected);
    }

    proptest! {
        #[test]
        fn equals_the_serial_union(
            sets in proptest::collection::vec(proptest::collection::vec(0u32..400_000, 0..3_000), 0..40),
        ) {
            let maps: Vec<RoaringBitmap> = sets.iter().map(|s| s.iter().copied().collect()).collect();
            let refs: Vec<&RoaringBitmap> = maps.iter().collect();
            let expected: RoaringBitmap = sets.iter().flatten().copied().collect();
            prop_assert_eq!(union(&refs), expected.clone());
            prop_assert_eq!(union_with(&refs, true), expected.clone());
            prop_assert_eq!(union_with(&refs, false), expected);
        }
    }
}
