//! Aggregation machinery shared by the aggregation and group-by operators and the reducers:
//! per-segment accumulators ([`accumulator`]), mergeable intermediate states ([`state`]) and
//! exact decimals for `SUMPRECISION` ([`decimal`]) and the moments of `SKEWNESS`/`KURTOSIS`
//! ([`moments`]).

pub mod accumulator;
pub mod decimal;
pub mod moments;
pub mod sketch_serde;
pub mod state;

pub use accumulator::{GroupAccumulator, GroupMap};
pub use state::AggState;
