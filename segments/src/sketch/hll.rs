//! [`HyperLogLog`]: distinct-count estimation for `DISTINCTCOUNTHLL`, `DISTINCTCOUNTRAWHLL` and
//! `DISTINCTCOUNTSMARTHLL` (Flajolet et al.), register for register the sketch Pinot builds
//! (stream-lib's `HyperLogLog`).
//!
//! `2^log2m` registers (Pinot's default `log2m` is 8: 256 registers, a standard error of about
//! `1.04 / sqrt(256)` = 6.5%). A value's 32-bit hash ([`super::hash`], Pinot's MurmurHash2)
//! picks a register with its top `log2m` bits; the register keeps the largest rank, one more
//! than the leading zeros of `(hash << log2m) | (2^(log2m-1) + 1)` (stream-lib's formula, whose
//! low bits cap the rank at `33 - log2m`). The estimate is the harmonic-mean estimator with
//! linear counting while it is below `2.5 × registers` and some register is empty.
//!
//! Merging takes register-wise maxima, so a merge equals the sketch of the union exactly.
//! Sketches of different sizes merge by first folding the larger one down to the smaller
//! precision (exact as well: the dropped index bits continue the rank's bit string).
//! [`HyperLogLog::to_pinot_bytes`] is Pinot's serialized form (`DISTINCTCOUNTRAWHLL`).

use super::codec::{Reader, Writer};
use super::error::SketchError;
use super::hash::hash_value;
use crate::types::Value;

/// Pinot's default `log2m` for `DISTINCTCOUNTHLL`.
pub const DEFAULT_LOG2M: u8 = 8;
const MIN_LOG2M: u8 = 1;
const MAX_LOG2M: u8 = 16;
const MAGIC: &[u8; 4] = b"THLL";
const NAME: &str = "hyperloglog";

/// A HyperLogLog distinct-count sketch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HyperLogLog {
    log2m: u8,
    registers: Vec<u8>,
}

impl Default for HyperLogLog {
    fn default() -> Self {
        HyperLogLog {
            log2m: DEFAULT_LOG2M,
            registers: vec![0; 1 << DEFAULT_LOG2M],
        }
    }
}

impl HyperLogLog {
    /// An empty sketch with `2^log2m` registers (`log2m` from 1 to 16).
    pub fn new(log2m: u8) -> Result<HyperLogLog, SketchError> {
        if !(MIN_LOG2M..=MAX_LOG2M).contains(&log2m) {
            return Err(SketchError::InvalidParameter {
                sketch: NAME,
                value: log2m.to_string(),
                reason: "log2m must be between 1 and 16",
            });
        }
        Ok(HyperLogLog {
            log2m,
            registers: vec![0; 1 << log2m],
        })
    }

    pub fn log2m(&self) -> u8 {
        self.log2m
    }

    /// The largest rank a register can hold.
    fn max_rank(log2m: u8) -> u8 {
        32 - log2m + 1
    }

    /// Adds a value by its hash; NULL is ignored and a multi-value adds each element.
    pub fn add(&mut self, value: &Value) {
        match value {
            Value::Array(items) => items.iter().for_each(|v| self.add(v)),
            v => {
                if let Some(h) = hash_value(v) {
                    self.add_hash(h);
                }
            }
        }
    }

    /// Adds an already-hashed value ([`super::hash_value`]).
    pub fn add_hash(&mut self, hash: u32) {
        let p = self.log2m as u32;
        let index = (hash >> (32 - p)) as usize;
        let rank = ((hash << p) | ((1 << (p - 1)) + 1)).leading_zeros() + 1;
        if let Some(register) = self.registers.get_mut(index) {
            *register = (*register).max(rank as u8);
        }
    }

    /// These registers folded down to `log2m` (not above this sketch's own).
    fn folded(&self, log2m: u8) -> Vec<u8> {
        let shift = self.log2m.saturating_sub(log2m) as u32;
        if shift == 0 {
            return self.registers.clone();
        }
        let mut registers = vec![0u8; 1 << log2m];
        for (index, &rank) in self.registers.iter().enumerate() {
            if rank == 0 {
                continue;
            }
            let dropped = (index as u32) & ((1 << shift) - 1);
            let new_rank = if dropped != 0 {
                (dropped.leading_zeros() - (32 - shift) + 1) as u8
            } else {
                shift as u8 + rank
            };
            let slot = &mut registers[index >> shift];
            *slot = (*slot).max(new_rank);
        }
        registers
    }

    /// Adds every value `other` has seen. The result has the smaller of the two precisions.
    pub fn merge(&mut self, other: &HyperLogLog) {
        if other.log2m < self.log2m {
            self.registers = self.folded(other.log2m);
            self.log2m = other.log2m;
        }
        let theirs = other.folded(self.log2m);
        for (mine, theirs) in self.registers.iter_mut().zip(theirs) {
            *mine = (*mine).max(theirs);
        }
    }

    /// The estimated number of distinct values.
    pub fn estimate(&self) -> u64 {
        let m = self.registers.len() as f64;
        let (mut inverse_sum, mut zeros) = (0.0f64, 0usize);
        for &rank in &self.registers {
            inverse_sum += 2f64.powi(-(rank as i32));
            zeros += (rank == 0) as usize;
        }
        let alpha = match self.registers.len() {
            16 => 0.673,
            32 => 0.697,
            64 => 0.709,
            _ => 0.7213 / (1.0 + 1.079 / m),
        };
        let raw = alpha * m * m / inverse_sum;
        let estimate = if raw <= 2.5 * m && zeros > 0 {
            m * (m / zeros as f64).ln()
        } else {
            raw
        };
        estimate.round() as u64
    }

    /// Pinot's serialized sketch (stream-lib's `HyperLogLog.getBytes`): big-endian `int log2m`,
    /// the register words' byte length, then the words, six 5-bit registers per 32-bit word
    /// (at least one word; one spare word unless the count divides evenly, as stream-lib sizes
    /// its `RegisterSet`).
    pub fn to_pinot_bytes(&self) -> Vec<u8> {
        let bits = self.registers.len() / 6;
        let words = match bits {
            0 => 1,
            b if b % 32 == 0 => b,
            b => b + 1,
        };
        let mut packed = vec![0u32; words];
        for (pos, &rank) in self.registers.iter().enumerate() {
            packed[pos / 6] |= (rank as u32 & 0x1f) << (5 * (pos % 6));
        }
        let mut out = Vec::with_capacity(8 + words * 4);
        out.extend_from_slice(&(self.log2m as i32).to_be_bytes());
        out.extend_from_slice(&((words * 4) as i32).to_be_bytes());
        for w in packed {
            out.extend_from_slice(&w.to_be_bytes());
        }
        out
    }

    /// `THLL`, version, `log2m`, then one byte per register.
    pub fn to_bytes(&self) -> Vec<u8> {
        Writer::new(MAGIC, 1 + self.registers.len())
            .u8(self.log2m)
            .raw(&self.registers)
            .finish()
    }

    /// Decodes [`HyperLogLog::to_bytes`] output, rejecting anything else.
    pub fn from_bytes(bytes: &[u8]) -> Result<HyperLogLog, SketchError> {
        let mut r = Reader::new(NAME, MAGIC, bytes)?;
        let log2m = r.u8()?;
        let mut sketch = HyperLogLog::new(log2m)
            .map_err(|_| SketchError::corrupt(NAME, format!("log2m {log2m} out of range")))?;
        let registers = r.take(sketch.registers.len())?;
        let max = Self::max_rank(log2m);
        if let Some(bad) = registers.iter().find(|r| **r > max) {
            return Err(SketchError::corrupt(
                NAME,
                format!("register rank {bad} above {max}"),
            ));
        }
        sketch.registers.copy_from_slice(registers);
        r.finish()?;
        Ok(sketch)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_data::SplitMix;
    use super::*;

    fn sketch_of(values: impl Iterator<Item = i64>, log2m: u8) -> HyperLogLog {
        let mut hll = HyperLogLog::new(log2m).unwrap();
        values.for_each(|v| hll.add(&Value::Long(v)));
        hll
    }

    #[test]
    fn estimates_within_three_sigma() {
        let sigma = 1.04 / 16.0;
        for seed in 0..5u64 {
            let mut rng = SplitMix::new(seed);
            for n in [1usize, 10, 100, 1_000, 10_000, 100_000] {
                let hll = sketch_of((0..n).map(|_| rng.next() as i64), DEFAULT_LOG2M);
                let error = (hll.estimate() as f64 - n as f64).abs() / n as f64;
                assert!(
                    error <= 3.0 * sigma,
                    "seed {seed}, n {n}: estimate {} ({error:.3})",
                    hll.estimate()
                );
            }
        }
        assert_eq!(HyperLogLog::default().estimate(), 0);
    }

    #[test]
    fn small_counts_are_nearly_exact_and_duplicates_do_not_count() {
        let hll = sketch_of((0..50).chain(0..50), DEFAULT_LOG2M);
        assert!((48..=52).contains(&hll.estimate()), "{}", hll.estimate());
        let mut strings = HyperLogLog::default();
        for word in ["a", "b", "c", "a", "b", "a"] {
            strings.add(&Value::String(word.into()));
        }
        strings.add(&Value::Null);
        assert_eq!(strings.estimate(), 3);
        let mut mv = HyperLogLog::default();
        mv.add(&Value::Array(vec![
            Value::Int(1),
            Value::Int(2),
            Value::Null,
            Value::Int(1),
        ]));
        assert_eq!(mv.estimate(), 2);
    }

    #[test]
    fn merge_equals_the_union() {
        let mut rng = SplitMix::new(42);
        let values: Vec<i64> = (0..20_000).map(|_| (rng.next() % 15_000) as i64).collect();
        let union = sketch_of(values.iter().copied(), DEFAULT_LOG2M);
        let mut merged = HyperLogLog::default();
        for chunk in values.chunks(3_000) {
            merged.merge(&sketch_of(chunk.iter().copied(), DEFAULT_LOG2M));
        }
        assert_eq!(merged, union);
        // A finer sketch folds down to the coarser precision exactly.
        let fine = sketch_of(values.iter().copied(), 12);
        let mut coarse = HyperLogLog::default();
        coarse.merge(&fine);
        assert_eq!(coarse, union);
        let mut fine_first = fine.clone();
        fine_first.merge(&HyperLogLog::default());
        assert_eq!(fine_first, union);
    }

    /// Pinot's answers for `DISTINCTCOUNTRAWHLL` (its multi-stage query tests).
    #[test]
    fn serializes_as_pinot() {
        let of = |words: &[&str], log2m: u8| {
            let mut h = HyperLogLog::new(log2m).unwrap();
            words
                .iter()
                .for_each(|w| h.add(&Value::String((*w).into())));
            h.to_pinot_bytes()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        assert_eq!(of(&["foo", "bar", "baz"], 2), "000000020000000400000460");
        assert_eq!(of(&["foo", "bar"], 2), "000000020000000400000060");
        assert_eq!(of(&["foo", "baz"], 2), "000000020000000400000420");
        let a = of(&["foo", "bar"], 8);
        assert!(a.starts_with("00000008000000ac"));
        assert_eq!(a.len(), 2 * (8 + 43 * 4));
        assert_eq!(
            a,
            "00000008000000ac00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        );
    }

    #[test]
    fn bytes_round_trip_and_garbage_is_rejected() {
        let hll = sketch_of(0..5_000, 10);
        let bytes = hll.to_bytes();
        assert_eq!(HyperLogLog::from_bytes(&bytes).unwrap(), hll);
        assert!(HyperLogLog::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(HyperLogLog::from_bytes(&extra).is_err());
        let mut bad_rank = bytes.clone();
        bad_rank[10] = 60;
        assert!(HyperLogLog::from_bytes(&bad_rank).is_err());
        let mut bad_log2m = bytes;
        bad_log2m[5] = 30;
        assert!(HyperLogLog::from_bytes(&bad_log2m).is_err());
        let mut rng = SplitMix::new(7);
        for len in 0..300 {
            let garbage: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            assert!(HyperLogLog::from_bytes(&garbage).is_err());
        }
        assert!(HyperLogLog::new(0).is_err());
        assert!(HyperLogLog::new(17).is_err());
    }
}
