//! Zone maps: the least and greatest stored value of each run of [`ZONE_DOCS`] documents of a
//! single-value column — dictionary ids of a dictionary-encoded column, integers of a raw INT,
//! LONG or TIMESTAMP one (DuckDB's and Parquet's row-group statistics, at a scan's step).
//!
//! A scan asks the bounds of the documents it is about to read ([`Zones::bounds`]): when no
//! value there can pass its predicate it skips them, when every value must it accepts them all,
//! unread. Rows that arrive roughly in time order (events, logs: a Pinot table's usual shape) keep
//! each zone's range of a time column narrow, so a time window reads the zones that overlap it
//! and no others; on a column whose values are spread evenly over the documents every zone spans
//! nearly the whole range and the check costs one comparison per 8,192 documents.
//!
//! Nothing is stored: a column's zones are computed from its forward index on first use (one read
//! of the column, as one scan) and kept with the segment ([`ColumnReader::zone_map`](
//! crate::segment::ColumnReader::zone_map)).

use crate::forward::ForwardIndex;
use crate::types::{DocId, StoredType};
use std::ops::Range;

/// Documents per zone: a scan's step, so a skipped zone is a skipped read.
pub const ZONE_DOCS: DocId = 8192;

/// The bounds of each zone of one column's values of type `T`.
#[derive(Debug)]
pub struct Zones<T> {
    bounds: Vec<(T, T)>,
}

impl<T: Copy + Ord + Default> Zones<T> {
    /// The zones of `docs` documents whose values `read(first, out)` fills in bulk.
    pub fn build(docs: DocId, mut read: impl FnMut(DocId, &mut [T])) -> Zones<T> {
        let mut values = vec![T::default(); ZONE_DOCS.min(docs) as usize];
        let mut bounds = Vec::with_capacity(docs.div_ceil(ZONE_DOCS) as usize);
        let mut first: DocId = 0;
        while first < docs {
            let n = (docs - first).min(ZONE_DOCS) as usize;
            let zone = &mut values[..n];
            read(first, zone);
            let seed = (zone[0], zone[0]);
            bounds.push(
                zone.iter()
                    .fold(seed, |(lo, hi), &v| (lo.min(v), hi.max(v))),
            );
            first += n as DocId;
        }
        Zones { bounds }
    }

    /// The least and greatest values of the zones `docs` touch (so of `docs` and maybe a few
    /// documents around them); `None` for no documents or documents past the column.
    pub fn bounds(&self, docs: Range<DocId>) -> Option<(T, T)> {
        if docs.is_empty() {
            return None;
        }
        let first = (docs.start / ZONE_DOCS) as usize;
        let last = ((docs.end - 1) / ZONE_DOCS) as usize;
        self.bounds
            .get(first..=last)?
            .iter()
            .copied()
            .reduce(|(lo, hi), (l, h)| (lo.min(l), hi.max(h)))
    }
}

/// A column's zones, by what its forward index stores.
#[derive(Debug)]
pub enum ZoneMap {
    /// Dictionary ids (single-value, dictionary-encoded).
    Ids(Zones<u32>),
    /// Integers (single-value, raw INT, LONG, TIMESTAMP, BOOLEAN).
    Ints(Zones<i64>),
}

impl ZoneMap {
    /// The zones of `forward`, when it stores one id or integer per document.
    pub fn of(forward: &ForwardIndex, stored: StoredType) -> Option<ZoneMap> {
        match forward {
            ForwardIndex::Dict(f) => Some(ZoneMap::Ids(Zones::build(f.len(), |first, out| {
                f.read_range(first, out)
            }))),
            ForwardIndex::Raw(r) if matches!(stored, StoredType::Int | StoredType::Long) => {
                let mut cursor = r.cursor();
                Some(ZoneMap::Ints(Zones::build(r.len(), |first, out| {
                    cursor.read_i64_range(first, out)
                })))
            }
            ForwardIndex::Raw(_) | ForwardIndex::DictMv(_) => None,
        }
    }

    /// The id zones, for a dictionary-encoded column.
    pub fn ids(&self) -> Option<&Zones<u32>> {
        match self {
            ZoneMap::Ids(z) => Some(z),
            ZoneMap::Ints(_) => None,
        }
    }

    /// The integer zones, for a raw integral column.
    pub fn ints(&self) -> Option<&Zones<i64>> {
        match self {
            ZoneMap::Ints(z) => Some(z),
            ZoneMap::Ids(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zones_of(values: &[i64]) -> Zones<i64> {
        Zones::build(values.len() as DocId, |first, out| {
            let at = first as usize;
            out.copy_from_slice(&values[at..at + out.len()]);
        })
    }

    #[test]
    fn each_zone_bounds_its_documents_and_a_span_the_zones_it_touches() {
        let zone = ZONE_DOCS as usize;
        // Three full zones and a short last one: 0.., 100.., 200.. and 300.. shuffled within.
        let values: Vec<i64> = (0..3 * zone + 10)
            .map(|i| (i / zone) as i64 * 100 + ((i * 7) % 50) as i64)
            .collect();
        let z = zones_of(&values);
        let docs = |a: usize, b: usize| a as DocId..b as DocId;
        assert_eq!(z.bounds(docs(0, zone)), Some((0, 49)));
        assert_eq!(z.bounds(docs(5, 6)), Some((0, 49)));
        assert_eq!(z.bounds(docs(zone - 1, zone + 1)), Some((0, 149)));
        let last = &values[3 * zone..];
        let last_bounds = (*last.iter().min().unwrap(), *last.iter().max().unwrap());
        assert_eq!(z.bounds(docs(3 * zone, 3 * zone + 10)), Some(last_bounds));
        assert_eq!(z.bounds(docs(0, values.len())), Some((0, last_bounds.1)));
        assert_eq!(z.bounds(docs(7, 7)), None);
        assert_eq!(z.bounds(docs(4 * zone, 4 * zone + 1)), None);
        // Every value lies within its zone's bounds, and the bounds are reached.
        for (i, v) in values.iter().enumerate() {
            let (lo, hi) = z.bounds(docs(i, i + 1)).unwrap();
            assert!(lo <= *v && *v <= hi);
        }
    }

    #[test]
    fn no_documents_no_zones() {
        let z = zones_of(&[]);
        assert_eq!(z.bounds(0..1), None);
    }
}
