//! [`Moments`]: count, mean and the 2nd–4th central moment sums of a set of numbers — the
//! mergeable state of `SKEWNESS` and `KURTOSIS` (Pinot's `PinotFourthMoment`).
//!
//! Values are added with Welford-style updates and states merge with Pébay's pairwise
//! formulas, so segments and servers combine exactly as one pass would (up to rounding).
//! The finals are the sample-adjusted estimators of Apache Commons Math, as Pinot uses them:
//! skewness `n·Σd³ / ((n−1)(n−2)·s³)` (NaN below 3 values), excess kurtosis
//! `(n(n+1)·Σd⁴ − 3(n−1)·(Σd²)²) / ((n−1)(n−2)(n−3)·s⁴)` (NaN below 4 values); both 0 when the
//! sample variance `s²` is below 1e-19.

use serde::{Deserialize, Serialize};

/// The state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Moments {
    pub n: i64,
    #[serde(with = "segments::types::value::non_finite")]
    pub mean: f64,
    #[serde(with = "segments::types::value::non_finite")]
    pub m2: f64,
    #[serde(with = "segments::types::value::non_finite")]
    pub m3: f64,
    #[serde(with = "segments::types::value::non_finite")]
    pub m4: f64,
}

/// Below this sample variance the data counts as constant.
const EPSILON: f64 = 10e-20;

impl Moments {
    /// Adds one value.
    #[inline]
    pub fn add(&mut self, x: f64) {
        let n1 = self.n as f64;
        self.n += 1;
        let n = self.n as f64;
        let delta = x - self.mean;
        let delta_n = delta / n;
        let delta_n2 = delta_n * delta_n;
        let term1 = delta * delta_n * n1;
        self.mean += delta_n;
        self.m4 += term1 * delta_n2 * (n * n - 3.0 * n + 3.0) + 6.0 * delta_n2 * self.m2
            - 4.0 * delta_n * self.m3;
        self.m3 += term1 * delta_n * (n - 2.0) - 3.0 * delta_n * self.m2;
        self.m2 += term1;
    }

    /// Folds `other` in.
    pub fn merge(&mut self, other: &Moments) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *other;
            return;
        }
        let (na, nb) = (self.n as f64, other.n as f64);
        let n = na + nb;
        let d = other.mean - self.mean;
        let (d2, d3, d4) = (d * d, d * d * d, d * d * d * d);
        let m2 = self.m2 + other.m2 + d2 * na * nb / n;
        let m3 = self.m3
            + other.m3
            + d3 * na * nb * (na - nb) / (n * n)
            + 3.0 * d * (na * other.m2 - nb * self.m2) / n;
        let m4 = self.m4
            + other.m4
            + d4 * na * nb * (na * na - na * nb + nb * nb) / (n * n * n)
            + 6.0 * d2 * (na * na * other.m2 + nb * nb * self.m2) / (n * n)
            + 4.0 * d * (na * other.m3 - nb * self.m3) / n;
        self.mean += d * nb / n;
        self.m2 = m2;
        self.m3 = m3;
        self.m4 = m4;
        self.n += other.n;
    }

    /// Sample skewness.
    pub fn skewness(&self) -> f64 {
        if self.n < 3 {
            return f64::NAN;
        }
        let n = self.n as f64;
        let variance = self.m2 / (n - 1.0);
        if variance < EPSILON {
            return 0.0;
        }
        n * self.m3 / ((n - 1.0) * (n - 2.0) * variance * variance.sqrt())
    }

    /// Sample excess kurtosis.
    pub fn kurtosis(&self) -> f64 {
        if self.n <= 3 {
            return f64::NAN;
        }
        let n = self.n as f64;
        let variance = self.m2 / (n - 1.0);
        if variance < EPSILON {
            return 0.0;
        }
        (n * (n + 1.0) * self.m4 - 3.0 * self.m2 * self.m2 * (n - 1.0))
            / ((n - 1.0) * (n - 2.0) * (n - 3.0) * variance * variance)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(xs: &[f64]) -> Moments {
        let mut m = Moments::default();
        xs.iter().for_each(|x| m.add(*x));
        m
    }

    #[test]
    fn matches_the_two_pass_estimators_and_merges_like_one_pass() {
        let xs = [2.0, 8.0, -3.5, 4.25, 10.0, 0.5, 7.0, 7.0, -1.0];
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let d = |k: i32| xs.iter().map(|x| (x - mean).powi(k)).sum::<f64>();
        let s2 = d(2) / (n - 1.0);
        let skew = n * d(3) / ((n - 1.0) * (n - 2.0) * s2.powf(1.5));
        let kurt = (n * (n + 1.0) * d(4) - 3.0 * d(2) * d(2) * (n - 1.0))
            / ((n - 1.0) * (n - 2.0) * (n - 3.0) * s2 * s2);
        let one = of(&xs);
        assert!((one.skewness() - skew).abs() < 1e-12, "{}", one.skewness());
        assert!((one.kurtosis() - kurt).abs() < 1e-12, "{}", one.kurtosis());
        for split in 0..xs.len() {
            let mut a = of(&xs[..split]);
            a.merge(&of(&xs[split..]));
            assert!((a.skewness() - skew).abs() < 1e-12);
            assert!((a.kurtosis() - kurt).abs() < 1e-12);
        }
        assert!(of(&[1.0, 2.0]).skewness().is_nan());
        assert!(of(&[1.0, 2.0, 3.0]).kurtosis().is_nan());
        assert_eq!(of(&[5.0; 6]).skewness(), 0.0);
        assert_eq!(of(&[5.0; 6]).kurtosis(), 0.0);
    }
}

/// The mergeable state of `COVARPOP` and `COVARSAMP`: sums of x, y and x·y over `n` pairs
/// (Pinot's `CovarianceTuple`, with its finals).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CoMoments {
    pub n: i64,
    #[serde(with = "segments::types::value::non_finite")]
    pub sum_x: f64,
    #[serde(with = "segments::types::value::non_finite")]
    pub sum_y: f64,
    #[serde(with = "segments::types::value::non_finite")]
    pub sum_xy: f64,
}

impl CoMoments {
    /// Adds one pair.
    #[inline]
    pub fn add(&mut self, x: f64, y: f64) {
        self.n += 1;
        self.sum_x += x;
        self.sum_y += y;
        self.sum_xy += x * y;
    }

    /// Folds `other` in.
    pub fn merge(&mut self, other: &CoMoments) {
        self.n += other.n;
        self.sum_x += other.sum_x;
        self.sum_y += other.sum_y;
        self.sum_xy += other.sum_xy;
    }

    /// The population (or sample) covariance; `None` without enough pairs.
    pub fn covariance(&self, sample: bool) -> Option<f64> {
        let n = self.n as f64;
        match (self.n, sample) {
            (0, _) | (1, true) => None,
            (_, false) => Some(self.sum_xy / n - self.sum_x * self.sum_y / (n * n)),
            (_, true) => Some(self.sum_xy / (n - 1.0) - self.sum_x * self.sum_y / (n * (n - 1.0))),
        }
    }
}
