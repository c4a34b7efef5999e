//! [`PairValues`]: the pre-aggregated values of one `FUNCTION__column` pair, one per record,
//! as a typed column — how they are accumulated from documents, merged across records, and
//! encoded.
//!
//! Values follow the engine's accumulators exactly, so a tree answers what a scan answers:
//! numbers are read as `f64` (`PERCENTILEEST` as `i64` of that), `DISTINCTCOUNTHLL` hashes the
//! typed value ([`crate::sketch::hash_value`]) into a HyperLogLog of the default size.

use crate::format::bytes::ByteReader as Reader;
use crate::sketch::{HyperLogLog, QuantileDigest, TDigest};
use crate::types::table_config::StarTreeFunction;

/// What a document contributes to a pair.
#[derive(Clone, Copy, Debug)]
pub enum DocInput<'a> {
    /// `COUNT__*`: every document counts one.
    Ones,
    /// Numeric values, one per document of the block.
    Numbers(&'a [f64]),
    /// Sketch hashes of the values, one per document of the block.
    Hashes(&'a [Option<u32>]),
}

/// One pair's values, one per record.
#[derive(Clone, Debug, PartialEq)]
pub enum PairValues {
    Count(Vec<i64>),
    Sum(Vec<f64>),
    Min(Vec<f64>),
    Max(Vec<f64>),
    Avg(Vec<f64>, Vec<i64>),
    MinMaxRange(Vec<f64>, Vec<f64>),
    Hll(Vec<HyperLogLog>),
    QDigest(Vec<QuantileDigest>),
    TDigest(Vec<TDigest>),
}

/// Whether `function` reads hashes (rather than numbers) from its column.
pub fn reads_hashes(function: StarTreeFunction) -> bool {
    function == StarTreeFunction::DistinctCountHll
}

impl PairValues {
    /// An empty column for `function` (one of [`super::SUPPORTED_FUNCTIONS`]).
    pub fn new(function: StarTreeFunction) -> PairValues {
        match function {
            StarTreeFunction::Count => PairValues::Count(Vec::new()),
            StarTreeFunction::Sum => PairValues::Sum(Vec::new()),
            StarTreeFunction::Min => PairValues::Min(Vec::new()),
            StarTreeFunction::Max => PairValues::Max(Vec::new()),
            StarTreeFunction::Avg => PairValues::Avg(Vec::new(), Vec::new()),
            StarTreeFunction::MinMaxRange => PairValues::MinMaxRange(Vec::new(), Vec::new()),
            StarTreeFunction::DistinctCountHll => PairValues::Hll(Vec::new()),
            StarTreeFunction::PercentileEst => PairValues::QDigest(Vec::new()),
            _ => PairValues::TDigest(Vec::new()),
        }
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        match self {
            PairValues::Count(v) => v.len(),
            PairValues::Sum(v) | PairValues::Min(v) | PairValues::Max(v) => v.len(),
            PairValues::Avg(v, _) | PairValues::MinMaxRange(v, _) => v.len(),
            PairValues::Hll(v) => v.len(),
            PairValues::QDigest(v) => v.len(),
            PairValues::TDigest(v) => v.len(),
        }
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends an empty record (the identity of the function).
    pub fn push_empty(&mut self) {
        match self {
            PairValues::Count(v) => v.push(0),
            PairValues::Sum(v) => v.push(0.0),
            PairValues::Min(v) => v.push(f64::INFINITY),
            PairValues::Max(v) => v.push(f64::NEG_INFINITY),
            PairValues::Avg(s, c) => {
                s.push(0.0);
                c.push(0);
            }
            PairValues::MinMaxRange(lo, hi) => {
                lo.push(f64::INFINITY);
                hi.push(f64::NEG_INFINITY);
            }
            PairValues::Hll(v) => v.push(HyperLogLog::default()),
            PairValues::QDigest(v) => v.push(QuantileDigest::default()),
            PairValues::TDigest(v) => v.push(TDigest::default()),
        }
    }

    /// Adds document `i` of a block to record `r`.
    #[inline]
    pub fn add_doc(&mut self, r: usize, input: DocInput<'_>, i: usize) {
        let x = match input {
            DocInput::Numbers(xs) => xs[i],
            _ => 0.0,
        };
        match self {
            PairValues::Count(v) => v[r] += 1,
            PairValues::Sum(v) => v[r] += x,
            PairValues::Min(v) => v[r] = v[r].min(x),
            PairValues::Max(v) => v[r] = v[r].max(x),
            PairValues::Avg(s, c) => {
                s[r] += x;
                c[r] += 1;
            }
            PairValues::MinMaxRange(lo, hi) => {
                lo[r] = lo[r].min(x);
                hi[r] = hi[r].max(x);
            }
            PairValues::Hll(v) => {
                if let DocInput::Hashes(h) = input
                    && let Some(h) = h[i]
                {
                    v[r].add_hash(h);
                }
            }
            PairValues::QDigest(v) => v[r].add(x as i64),
            PairValues::TDigest(v) => v[r].add(x),
        }
    }

    /// Folds record `from` into record `into` of the same column.
    pub fn merge_within(&mut self, into: usize, from: usize) {
        match self {
            PairValues::Count(v) => v[into] += v[from],
            PairValues::Sum(v) => v[into] += v[from],
            PairValues::Min(v) => v[into] = v[into].min(v[from]),
            PairValues::Max(v) => v[into] = v[into].max(v[from]),
            PairValues::Avg(s, c) => {
                s[into] += s[from];
                c[into] += c[from];
            }
            PairValues::MinMaxRange(lo, hi) => {
                lo[into] = lo[into].min(lo[from]);
                hi[into] = hi[into].max(hi[from]);
            }
            PairValues::Hll(v) => {
                let src = v[from].clone();
                v[into].merge(&src);
            }
            PairValues::QDigest(v) => {
                let src = v[from].clone();
                v[into].merge(&src);
            }
            PairValues::TDigest(v) => {
                let src = v[from].clone();
                v[into].merge(&src);
            }
        }
    }

    /// Appends a copy of record `from`.
    pub fn push_copy(&mut self, from: usize) {
        self.push_empty();
        let into = self.len() - 1;
        self.merge_within(into, from);
    }

    /// The records in the order `perm` (new record `k` is old record `perm[k]`).
    pub fn permuted(&self, perm: &[u32]) -> PairValues {
        fn pick<T: Clone>(v: &[T], perm: &[u32]) -> Vec<T> {
            perm.iter().map(|&i| v[i as usize].clone()).collect()
        }
        match self {
            PairValues::Count(v) => PairValues::Count(pick(v, perm)),
            PairValues::Sum(v) => PairValues::Sum(pick(v, perm)),
            PairValues::Min(v) => PairValues::Min(pick(v, perm)),
            PairValues::Max(v) => PairValues::Max(pick(v, perm)),
            PairValues::Avg(s, c) => PairValues::Avg(pick(s, perm), pick(c, perm)),
            PairValues::MinMaxRange(lo, hi) => {
                PairValues::MinMaxRange(pick(lo, perm), pick(hi, perm))
            }
            PairValues::Hll(v) => PairValues::Hll(pick(v, perm)),
            PairValues::QDigest(v) => PairValues::QDigest(pick(v, perm)),
            PairValues::TDigest(v) => PairValues::TDigest(pick(v, perm)),
        }
    }

    /// Appends the encoding: fixed-width little-endian arrays, or for sketches `n + 1` u32
    /// offsets followed by the serialized sketches.
    pub fn encode(&self, out: &mut Vec<u8>) {
        fn f64s(v: &[f64], out: &mut Vec<u8>) {
            v.iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        }
        fn i64s(v: &[i64], out: &mut Vec<u8>) {
            v.iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        }
        fn blobs(items: Vec<Vec<u8>>, out: &mut Vec<u8>) {
            let mut offset = 0u32;
            out.extend_from_slice(&0u32.to_le_bytes());
            for b in &items {
                offset += b.len() as u32;
                out.extend_from_slice(&offset.to_le_bytes());
            }
            items.iter().for_each(|b| out.extend_from_slice(b));
        }
        match self {
            PairValues::Count(v) => i64s(v, out),
            PairValues::Sum(v) | PairValues::Min(v) | PairValues::Max(v) => f64s(v, out),
            PairValues::Avg(s, c) => {
                f64s(s, out);
                i64s(c, out);
            }
            PairValues::MinMaxRange(lo, hi) => {
                f64s(lo, out);
                f64s(hi, out);
            }
            PairValues::Hll(v) => blobs(v.iter().map(HyperLogLog::to_bytes).collect(), out),
            PairValues::QDigest(v) => blobs(v.iter().map(QuantileDigest::to_bytes).collect(), out),
            PairValues::TDigest(v) => blobs(v.iter().map(TDigest::to_bytes).collect(), out),
        }
    }

    /// Decodes `n` records of `function` written by [`PairValues::encode`].
    pub fn decode(
        function: StarTreeFunction,
        r: &mut Reader<'_>,
        n: usize,
    ) -> Result<PairValues, String> {
        fn f64s(r: &mut Reader<'_>, n: usize) -> Result<Vec<f64>, String> {
            (0..n).map(|_| r.u64().map(f64::from_bits)).collect()
        }
        fn i64s(r: &mut Reader<'_>, n: usize) -> Result<Vec<i64>, String> {
            (0..n).map(|_| r.u64().map(|x| x as i64)).collect()
        }
        fn blobs<T>(
            r: &mut Reader<'_>,
            n: usize,
            parse: impl Fn(&[u8]) -> Result<T, String>,
        ) -> Result<Vec<T>, String> {
            let offsets = (0..=n).map(|_| r.u32()).collect::<Result<Vec<_>, _>>()?;
            let total = *offsets.last().unwrap_or(&0) as usize;
            let data = r.take(total)?;
            offsets
                .windows(2)
                .map(|w| {
                    let (a, b) = (w[0] as usize, w[1] as usize);
                    let bytes = data.get(a..b).ok_or("sketch offsets out of order")?;
                    parse(bytes)
                })
                .collect()
        }
        Ok(match PairValues::new(function) {
            PairValues::Count(_) => PairValues::Count(i64s(r, n)?),
            PairValues::Sum(_) => PairValues::Sum(f64s(r, n)?),
            PairValues::Min(_) => PairValues::Min(f64s(r, n)?),
            PairValues::Max(_) => PairValues::Max(f64s(r, n)?),
            PairValues::Avg(..) => PairValues::Avg(f64s(r, n)?, i64s(r, n)?),
            PairValues::MinMaxRange(..) => PairValues::MinMaxRange(f64s(r, n)?, f64s(r, n)?),
            PairValues::Hll(_) => PairValues::Hll(blobs(r, n, |b| {
                HyperLogLog::from_bytes(b).map_err(|e| e.to_string())
            })?),
            PairValues::QDigest(_) => PairValues::QDigest(blobs(r, n, |b| {
                QuantileDigest::from_bytes(b).map_err(|e| e.to_string())
            })?),
            PairValues::TDigest(_) => PairValues::TDigest(blobs(r, n, |b| {
                TDigest::from_bytes(b).map_err(|e| e.to_string())
            })?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulate_merge_and_round_trip() {
        for f in super::super::SUPPORTED_FUNCTIONS {
            let mut v = PairValues::new(*f);
            v.push_empty();
            v.push_empty();
            let xs = [1.0, 5.0, 3.0];
            let hs = [Some(11u32), Some(12), Some(13)];
            let input = if reads_hashes(*f) {
                DocInput::Hashes(&hs)
            } else if *f == StarTreeFunction::Count {
                DocInput::Ones
            } else {
                DocInput::Numbers(&xs)
            };
            for i in 0..3 {
                v.add_doc(i % 2, input, i);
            }
            v.merge_within(0, 1);
            let mut bytes = Vec::new();
            v.encode(&mut bytes);
            let mut r = Reader::new(&bytes);
            let back = PairValues::decode(*f, &mut r, 2).unwrap();
            // Compared by encoding: a sketch may compact its buffer when serialized.
            let mut again = Vec::new();
            back.encode(&mut again);
            assert_eq!(again, bytes, "{f}");
            assert_eq!(r.remaining(), 0);
            let perm = back.permuted(&[1, 0]);
            assert_eq!(perm.permuted(&[1, 0]), back);
        }
        let mut s = PairValues::new(StarTreeFunction::Sum);
        s.push_empty();
        s.add_doc(0, DocInput::Numbers(&[2.5, 4.0]), 1);
        assert_eq!(s, PairValues::Sum(vec![4.0]));
    }

    #[test]
    fn truncated_encoding_is_an_error() {
        let mut v = PairValues::new(StarTreeFunction::DistinctCountHll);
        v.push_empty();
        let mut bytes = Vec::new();
        v.encode(&mut bytes);
        bytes.truncate(bytes.len() - 3);
        let mut r = Reader::new(&bytes);
        assert!(PairValues::decode(StarTreeFunction::DistinctCountHll, &mut r, 1).is_err());
    }
}
