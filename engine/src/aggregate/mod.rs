//! Aggregation machinery shared by the aggregation and group-by operators and the reducers:
//! per-segment accumulators ([`accumulator`]), lane-split sums and counts for few hot groups
//! ([`lanes`]), mergeable intermediate states ([`state`]; `SUMPRECISION` sums
//! [`segments::types::decimal::Decimal`]s), those that are one number kept as number columns
//! ([`number_states`]) and the moments of `SKEWNESS`/`KURTOSIS` ([`moments`]).

pub mod accumulator;
pub mod funnel;
pub mod lanes;
pub mod moments;
pub mod number_states;
pub mod sketch_serde;
pub mod state;

pub use accumulator::{GroupAccumulator, GroupMap};
pub use state::AggState;
