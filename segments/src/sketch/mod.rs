//! Approximate-aggregation sketches: fixed-size summaries that servers build per segment,
//! merge, serialize and ship to the broker, which merges them again and asks for the estimate.
//!
//! * [`HyperLogLog`] — distinct counts (`DISTINCTCOUNTHLL`, `DISTINCTCOUNTRAWHLL`); Pinot's
//!   default `log2m` is 8 (256 registers, ~6.5% standard error); the estimate is a LONG.
//! * [`TDigest`] — a merging t-digest for `PERCENTILETDIGEST` (compression 100, as Pinot):
//!   very accurate at the tails, a DOUBLE quantile.
//! * [`QuantileDigest`] — a q-digest over 64-bit integers for `PERCENTILEEST` (max rank error
//!   0.05, as Pinot's Airlift `QuantileDigest`): exact while small, bounded error when large,
//!   a LONG quantile.
//!
//! Every sketch has `new`, `add`, `merge(&other)`, `to_bytes` / `from_bytes` (a magic tag, a
//! format version and the payload; `from_bytes` rejects anything malformed with a
//! [`SketchError`] and never panics) and its estimate. Values are hashed for HyperLogLog by
//! [`hash_value`] (Pinot's 32-bit MurmurHash2 of the value as Pinot offers it), so equal values
//! from different segments land in the same register, and in the same register as in Pinot.
//!
//! ```
//! use tessera_segments::sketch::{HyperLogLog, TDigest};
//! use tessera_segments::types::Value;
//!
//! let (mut a, mut b) = (HyperLogLog::default(), HyperLogLog::default());
//! for i in 0..1000 {
//!     a.add(&Value::Long(i));
//!     b.add(&Value::Long(i + 500));
//! }
//! let mut shipped = HyperLogLog::from_bytes(&a.to_bytes()).unwrap();
//! shipped.merge(&b);
//! let estimate = shipped.estimate();
//! assert!((1300..=1700).contains(&estimate), "{estimate}");
//!
//! let mut digest = TDigest::default();
//! (1..=100).for_each(|x| digest.add(x as f64));
//! let median = digest.quantile(0.5).unwrap();
//! assert!((50.0..=51.0).contains(&median));
//! ```

mod codec;
pub mod datasketch;
mod error;
mod hash;
mod hll;
pub mod hll_plus;
pub mod id_set;
pub mod integer_tuple;
mod quantile_digest;
mod sketch_input;
mod tdigest;
pub mod ull;

pub use error::SketchError;
pub use hash::{hash_value, murmur2, murmur2_64, murmur2_long, murmur3_finish, murmur3_x64_128};
pub use hll::{DEFAULT_LOG2M, HyperLogLog};
pub use quantile_digest::{DEFAULT_MAX_ERROR, QuantileDigest};
pub use tdigest::{DEFAULT_COMPRESSION, TDigest};

#[cfg(test)]
mod test_data;
