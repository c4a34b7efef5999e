//! [`TDigest`]: a merging t-digest (Dunning & Ertl) for `PERCENTILETDIGEST`.
//!
//! Values are buffered and periodically merged into a sorted list of centroids (mean, weight)
//! whose sizes are bounded by the `k1` scale function `k(q) = δ/2π · asin(2q − 1)`: a centroid
//! may span at most one unit of `k`, so centroids are tiny near the tails (q → 0 or 1) and
//! large in the middle. With compression δ = 100 (Pinot's default) a digest keeps at most about
//! a hundred centroids whatever the input size, and quantiles near the tails are accurate to a
//! small fraction of a percent in rank.
//!
//! Quantiles interpolate between centroid centres (singleton centroids are exact values) and
//! between the extreme centroids and the observed minimum and maximum.

use super::codec::{Reader, Writer};
use super::error::SketchError;
use std::f64::consts::PI;

/// Pinot's default compression for `PERCENTILETDIGEST`.
pub const DEFAULT_COMPRESSION: f64 = 100.0;
const MIN_COMPRESSION: f64 = 10.0;
const MAX_COMPRESSION: f64 = 10_000.0;
const MAGIC: &[u8; 4] = b"TTDG";
const NAME: &str = "t-digest";

#[derive(Clone, Copy, Debug, PartialEq)]
struct Centroid {
    mean: f64,
    weight: f64,
}

/// A merging t-digest.
#[derive(Clone, Debug, PartialEq)]
pub struct TDigest {
    compression: f64,
    /// Merged centroids, sorted by mean.
    centroids: Vec<Centroid>,
    /// Values (and foreign centroids) not merged yet.
    buffer: Vec<Centroid>,
    min: f64,
    max: f64,
}

impl Default for TDigest {
    fn default() -> Self {
        TDigest {
            compression: DEFAULT_COMPRESSION,
            centroids: Vec::new(),
            buffer: Vec::new(),
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl TDigest {
    /// An empty digest with the given compression (10 to 10,000).
    pub fn new(compression: f64) -> Result<TDigest, SketchError> {
        if !(MIN_COMPRESSION..=MAX_COMPRESSION).contains(&compression) {
            return Err(SketchError::InvalidParameter {
                sketch: NAME,
                value: compression.to_string(),
                reason: "compression must be between 10 and 10000",
            });
        }
        Ok(TDigest {
            compression,
            ..TDigest::default()
        })
    }

    pub fn compression(&self) -> f64 {
        self.compression
    }

    /// Adds a value; NaN and infinities are ignored (they have no rank to estimate).
    pub fn add(&mut self, value: f64) {
        self.add_weighted(value, 1.0);
    }

    /// Adds a value `weight` times (weights must be positive and finite; others are ignored).
    pub fn add_weighted(&mut self, value: f64, weight: f64) {
        if !(value.is_finite() && weight > 0.0 && weight.is_finite()) {
            return;
        }
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        self.buffer.push(Centroid {
            mean: value,
            weight,
        });
        if self.buffer.len() >= self.buffer_limit() {
            self.compress();
        }
    }

    fn buffer_limit(&self) -> usize {
        (self.compression as usize).saturating_mul(5).max(50)
    }

    /// Adds every value `other` has seen.
    pub fn merge(&mut self, other: &TDigest) {
        if other.is_empty() {
            return;
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.buffer.extend_from_slice(&other.centroids);
        self.buffer.extend_from_slice(&other.buffer);
        self.compress();
    }

    /// The total weight added.
    pub fn count(&self) -> f64 {
        self.centroids
            .iter()
            .chain(&self.buffer)
            .map(|c| c.weight)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.centroids.is_empty() && self.buffer.is_empty()
    }

    /// The number of centroids after merging the buffer (a measure of the digest's size).
    pub fn centroid_count(&self) -> usize {
        self.compressed().centroids.len()
    }

    fn k(&self, q: f64) -> f64 {
        self.compression / (2.0 * PI) * (2.0 * q - 1.0).clamp(-1.0, 1.0).asin()
    }

    fn q(&self, k: f64) -> f64 {
        let angle = (k * 2.0 * PI / self.compression).clamp(-PI / 2.0, PI / 2.0);
        (angle.sin() + 1.0) / 2.0
    }

    /// Merges the buffer into the centroids.
    pub fn compress(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        let mut all = std::mem::take(&mut self.centroids);
        all.append(&mut self.buffer);
        all.sort_by(|a, b| a.mean.total_cmp(&b.mean));
        let total: f64 = all.iter().map(|c| c.weight).sum();
        let mut merged: Vec<Centroid> = Vec::with_capacity(self.compression as usize);
        let mut so_far = 0.0;
        let mut limit = total * self.q(self.k(0.0) + 1.0);
        let mut iter = all.into_iter();
        let Some(mut current) = iter.next() else {
            return;
        };
        for next in iter {
            if so_far + current.weight + next.weight <= limit {
                let weight = current.weight + next.weight;
                current.mean += (next.mean - current.mean) * next.weight / weight;
                current.weight = weight;
            } else {
                so_far += current.weight;
                merged.push(current);
                limit = total * self.q(self.k(so_far / total) + 1.0);
                current = next;
            }
        }
        merged.push(current);
        self.centroids = merged;
    }

    fn compressed(&self) -> std::borrow::Cow<'_, TDigest> {
        if self.buffer.is_empty() {
            std::borrow::Cow::Borrowed(self)
        } else {
            let mut copy = self.clone();
            copy.compress();
            std::borrow::Cow::Owned(copy)
        }
    }

    /// The estimated `q`-quantile (`q` in `[0, 1]`, clamped); `None` when empty.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let digest = self.compressed();
        let c = &digest.centroids;
        let (first, last) = (c.first()?, c.last()?);
        let q = if q.is_nan() { 0.5 } else { q.clamp(0.0, 1.0) };
        let (min, max) = (digest.min, digest.max);
        if c.len() == 1 {
            return Some(first.mean);
        }
        let total: f64 = c.iter().map(|c| c.weight).sum();
        let index = q * total;
        if index < 1.0 {
            return Some(min);
        }
        if index > total - 1.0 {
            return Some(max);
        }
        if first.weight > 1.0 && index < first.weight / 2.0 {
            return Some(min + (index - 1.0) / (first.weight / 2.0 - 1.0) * (first.mean - min));
        }
        if last.weight > 1.0 && total - index <= last.weight / 2.0 {
            return Some(
                max - (total - index - 1.0) / (last.weight / 2.0 - 1.0) * (max - last.mean),
            );
        }
        let mut so_far = first.weight / 2.0;
        for pair in c.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let step = (a.weight + b.weight) / 2.0;
            if so_far + step > index {
                let mut left = 0.0;
                if a.weight == 1.0 {
                    if index - so_far < 0.5 {
                        return Some(a.mean);
                    }
                    left = 0.5;
                }
                let mut right = 0.0;
                if b.weight == 1.0 {
                    if so_far + step - index <= 0.5 {
                        return Some(b.mean);
                    }
                    right = 0.5;
                }
                let z1 = index - so_far - left;
                let z2 = so_far + step - index - right;
                let value = if z1 + z2 > 0.0 {
                    (a.mean * z2 + b.mean * z1) / (z1 + z2)
                } else {
                    (a.mean + b.mean) / 2.0
                };
                return Some(value.clamp(min, max));
            }
            so_far += step;
        }
        Some(last.mean)
    }

    /// `TTDG`, version, compression, min, max, centroid count, then (mean, weight) pairs.
    pub fn to_bytes(&self) -> Vec<u8> {
        let digest = self.compressed();
        let mut w = Writer::new(MAGIC, 28 + digest.centroids.len() * 16);
        w.f64(digest.compression)
            .f64(digest.min)
            .f64(digest.max)
            .u32(digest.centroids.len() as u32);
        for c in &digest.centroids {
            w.f64(c.mean).f64(c.weight);
        }
        w.finish()
    }

    /// The digest as the t-digest library's `MergingDigest.asBytes` writes it (its verbose
    /// encoding, big-endian), what Pinot's `PERCENTILERAWTDIGEST` returns hex-encoded: encoding
    /// 1, min, max, compression, the centroid count, then (weight, mean) per centroid.
    pub fn to_pinot_bytes(&self) -> Vec<u8> {
        let digest = self.compressed();
        let mut out = Vec::with_capacity(32 + digest.centroids.len() * 16);
        out.extend_from_slice(&1i32.to_be_bytes());
        let (min, max) = if digest.centroids.is_empty() {
            // An empty MergingDigest's bounds.
            (f64::INFINITY, f64::NEG_INFINITY)
        } else {
            (digest.min, digest.max)
        };
        for x in [min, max, digest.compression] {
            out.extend_from_slice(&x.to_be_bytes());
        }
        out.extend_from_slice(&(digest.centroids.len() as i32).to_be_bytes());
        for c in &digest.centroids {
            out.extend_from_slice(&c.weight.to_be_bytes());
            out.extend_from_slice(&c.mean.to_be_bytes());
        }
        out
    }

    /// Decodes [`TDigest::to_bytes`] output, rejecting anything else.
    pub fn from_bytes(bytes: &[u8]) -> Result<TDigest, SketchError> {
        let corrupt = |reason: &str| SketchError::corrupt(NAME, reason);
        let mut r = Reader::new(NAME, MAGIC, bytes)?;
        let compression = r.f64()?;
        let mut digest =
            TDigest::new(compression).map_err(|_| corrupt("compression out of range"))?;
        let (min, max) = (r.f64()?, r.f64()?);
        let count = r.u32()? as usize;
        if r.remaining() != count.saturating_mul(16) {
            return Err(corrupt("centroid count does not match the payload"));
        }
        let mut centroids = Vec::with_capacity(count);
        for _ in 0..count {
            let (mean, weight) = (r.f64()?, r.f64()?);
            if !(mean.is_finite() && weight > 0.0 && weight.is_finite()) {
                return Err(corrupt(
                    "centroid with a non-finite mean or a non-positive weight",
                ));
            }
            if centroids.last().is_some_and(|c: &Centroid| c.mean > mean) {
                return Err(corrupt("centroids out of order"));
            }
            centroids.push(Centroid { mean, weight });
        }
        r.finish()?;
        if let (Some(first), Some(last)) = (centroids.first(), centroids.last()) {
            if !(min.is_finite() && max.is_finite() && min <= first.mean && last.mean <= max) {
                return Err(corrupt(
                    "minimum or maximum inconsistent with the centroids",
                ));
            }
            digest.min = min;
            digest.max = max;
        }
        digest.centroids = centroids;
        Ok(digest)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_data::SplitMix;
    use super::*;

    /// The fraction of `sorted` values at or below `x`, at the middle of a run of equal values.
    fn rank(sorted: &[f64], x: f64) -> f64 {
        let below = sorted.partition_point(|v| *v < x);
        let at_or_below = sorted.partition_point(|v| *v <= x);
        (below + at_or_below) as f64 / 2.0 / sorted.len() as f64
    }

    fn data(seed: u64, n: usize, exponential: bool) -> Vec<f64> {
        let mut rng = SplitMix::new(seed);
        (0..n)
            .map(|_| {
                if exponential {
                    rng.exponential()
                } else {
                    rng.uniform()
                }
            })
            .collect()
    }

    fn digest_of(values: &[f64]) -> TDigest {
        let mut d = TDigest::default();
        values.iter().for_each(|v| d.add(*v));
        d
    }

    fn check_rank_errors(digest: &TDigest, values: &[f64], label: &str) {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        for (q, bound) in [
            (0.5, 0.01),
            (0.9, 0.005),
            (0.99, 0.002),
            (0.999, 0.0005),
            (0.01, 0.002),
        ] {
            let estimate = digest.quantile(q).unwrap();
            let error = (rank(&sorted, estimate) - q).abs();
            assert!(
                error <= bound,
                "{label}: q {q}: estimate {estimate} has rank error {error}"
            );
        }
    }

    #[test]
    fn quantiles_have_small_rank_error() {
        for (seed, exponential) in [(1, false), (2, true), (3, false)] {
            let values = data(seed, 100_000, exponential);
            let digest = digest_of(&values);
            assert!(
                digest.centroid_count() <= 150,
                "{} centroids",
                digest.centroid_count()
            );
            check_rank_errors(&digest, &values, &format!("seed {seed}"));
        }
    }

    #[test]
    fn small_inputs_are_accurate() {
        let digest = digest_of(&(1..=100).map(f64::from).collect::<Vec<_>>());
        assert_eq!(digest.quantile(0.0), Some(1.0));
        assert_eq!(digest.quantile(1.0), Some(100.0));
        let median = digest.quantile(0.5).unwrap();
        assert!((50.0..=51.0).contains(&median), "{median}");
        let quartile = digest.quantile(0.25).unwrap();
        assert!((25.0..=26.5).contains(&quartile), "{quartile}");
        assert_eq!(digest_of(&[7.0]).quantile(0.3), Some(7.0));
        assert_eq!(TDigest::default().quantile(0.5), None);
        let mut d = TDigest::default();
        d.add(f64::NAN);
        d.add(f64::INFINITY);
        assert!(d.is_empty());
    }

    #[test]
    fn merge_is_as_accurate_as_the_union() {
        let values = data(9, 100_000, true);
        let mut merged = TDigest::default();
        for chunk in values.chunks(7_000) {
            merged.merge(&digest_of(chunk));
        }
        assert_eq!(merged.count(), 100_000.0);
        check_rank_errors(&merged, &values, "merged");
        let union = digest_of(&values);
        for q in [0.1, 0.5, 0.9, 0.99] {
            let (a, b) = (merged.quantile(q).unwrap(), union.quantile(q).unwrap());
            assert!(
                (a - b).abs() <= 0.02 * b.max(1.0),
                "q {q}: merged {a}, union {b}"
            );
        }
    }

    #[test]
    fn bytes_round_trip_and_garbage_is_rejected() {
        let digest = digest_of(&data(4, 10_000, false));
        let bytes = digest.to_bytes();
        let back = TDigest::from_bytes(&bytes).unwrap();
        for q in [0.0, 0.25, 0.5, 0.99, 1.0] {
            assert_eq!(back.quantile(q), digest.quantile(q));
        }
        assert_eq!(
            TDigest::from_bytes(&TDigest::default().to_bytes())
                .unwrap()
                .quantile(0.5),
            None
        );
        assert!(TDigest::from_bytes(&bytes[..bytes.len() - 3]).is_err());
        let mut swapped = bytes.clone();
        let n = swapped.len();
        swapped[n - 16..n - 8].copy_from_slice(&(-1.0f64).to_le_bytes());
        assert!(TDigest::from_bytes(&swapped).is_err());
        let mut zero_weight = bytes.clone();
        zero_weight[n - 8..].copy_from_slice(&0.0f64.to_le_bytes());
        assert!(TDigest::from_bytes(&zero_weight).is_err());
        let mut huge_count = bytes;
        huge_count[29..33].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(TDigest::from_bytes(&huge_count).is_err());
        let mut rng = SplitMix::new(11);
        for len in 0..300 {
            let garbage: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            assert!(TDigest::from_bytes(&garbage).is_err());
        }
        assert!(TDigest::new(5.0).is_err());
        assert!(TDigest::new(f64::NAN).is_err());
    }
}
