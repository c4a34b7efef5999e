//! Zone skipping in scans: what a zone's bounds ([`segments::index::Zones`]) say of a scan's
//! predicate over its documents — none can pass, all must, or only reading them tells.
//!
//! The answer comes from the predicate's own form, never from reading values: an id range or a
//! raw integer range against the zone's least and greatest value; a set of ids when the zone's
//! ids are few enough to look up each (cheaper than the read it may save). Anything else reads.

use super::id_set::IdLookup;
use super::raw_test::RawTest;
use segments::index::Zones;
use segments::types::DocId;
use std::ops::Range;

/// What a zone's bounds say of a predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No value in the bounds passes: the zone is skipped.
    NoneMatch,
    /// Every value in the bounds passes: the zone's documents are accepted unread.
    AllMatch,
    /// The zone is read.
    Read,
}

/// At most this many ids of a zone's range are looked up in an id set (a zone read unpacks
/// 8,192 ids).
const MAX_LOOKUPS: u32 = 1024;

/// The verdict of `lookup` on the documents `docs` by their zones' ids (without a zone map,
/// or past the column's documents: read).
pub fn of_id_zones(zones: Option<&Zones<u32>>, docs: Range<DocId>, lookup: &IdLookup) -> Verdict {
    zones
        .and_then(|z| z.bounds(docs))
        .map_or(Verdict::Read, |b| of_ids(lookup, b))
}

/// The verdict of `test` on the documents `docs` by their zones' raw integers.
pub fn of_int_zones(zones: Option<&Zones<i64>>, docs: Range<DocId>, test: &RawTest) -> Verdict {
    zones
        .and_then(|z| z.bounds(docs))
        .map_or(Verdict::Read, |b| of_ints(test, b))
}

/// The verdict of `lookup` on a zone whose ids lie in `lo..=hi`.
pub fn of_ids(lookup: &IdLookup, (lo, hi): (u32, u32)) -> Verdict {
    match lookup {
        IdLookup::Range(r) if hi < r.start || lo >= r.end => Verdict::NoneMatch,
        IdLookup::Range(r) if r.start <= lo && hi < r.end => Verdict::AllMatch,
        IdLookup::Range(_) => Verdict::Read,
        IdLookup::Bits(bits) if hi - lo < MAX_LOOKUPS => {
            let accepted = (lo..=hi).filter(|id| bits.get(*id as usize).copied().unwrap_or(false));
            match accepted.count() as u32 {
                0 => Verdict::NoneMatch,
                n if n == hi - lo + 1 => Verdict::AllMatch,
                _ => Verdict::Read,
            }
        }
        IdLookup::Bits(_) => Verdict::Read,
    }
}

/// The verdict of `test` on a zone of raw integers in `lo..=hi`.
pub fn of_ints(test: &RawTest, (lo, hi): (i64, i64)) -> Verdict {
    match test {
        RawTest::IntRange(a, b) if hi < *a || lo > *b => Verdict::NoneMatch,
        RawTest::IntRange(a, b) if *a <= lo && hi <= *b => Verdict::AllMatch,
        RawTest::IntSet(set) if set.len() as u32 <= MAX_LOOKUPS => {
            if set.iter().any(|v| lo <= *v && *v <= hi) {
                Verdict::Read
            } else {
                Verdict::NoneMatch
            }
        }
        _ => Verdict::Read,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn id_ranges_and_sets_against_zone_bounds() {
        let range = IdLookup::Range(10..20);
        assert_eq!(of_ids(&range, (0, 9)), Verdict::NoneMatch);
        assert_eq!(of_ids(&range, (20, 30)), Verdict::NoneMatch);
        assert_eq!(of_ids(&range, (10, 19)), Verdict::AllMatch);
        assert_eq!(of_ids(&range, (12, 12)), Verdict::AllMatch);
        assert_eq!(of_ids(&range, (9, 10)), Verdict::Read);
        assert_eq!(of_ids(&range, (19, 20)), Verdict::Read);
        let mut bits = vec![false; 50];
        bits[5] = true;
        bits[6] = true;
        let set = IdLookup::Bits(bits);
        assert_eq!(of_ids(&set, (7, 40)), Verdict::NoneMatch);
        assert_eq!(of_ids(&set, (5, 6)), Verdict::AllMatch);
        assert_eq!(of_ids(&set, (0, 5)), Verdict::Read);
        // Ids past the lookup's end are not accepted.
        assert_eq!(of_ids(&set, (60, 70)), Verdict::NoneMatch);
        // A zone too wide to look up each id is read.
        assert_eq!(of_ids(&set, (7, 7 + MAX_LOOKUPS)), Verdict::Read);
    }

    #[test]
    fn integer_ranges_and_sets_against_zone_bounds() {
        let range = RawTest::IntRange(-5, 5);
        assert_eq!(of_ints(&range, (6, 100)), Verdict::NoneMatch);
        assert_eq!(of_ints(&range, (i64::MIN, -6)), Verdict::NoneMatch);
        assert_eq!(of_ints(&range, (-5, 5)), Verdict::AllMatch);
        assert_eq!(of_ints(&range, (-6, 0)), Verdict::Read);
        let set = RawTest::IntSet(HashSet::from([3, 1000]));
        assert_eq!(of_ints(&set, (4, 999)), Verdict::NoneMatch);
        assert_eq!(of_ints(&set, (0, 3)), Verdict::Read);
        assert_eq!(
            of_ints(&RawTest::FloatSet(vec![1.0]), (5, 9)),
            Verdict::Read
        );
    }
}
