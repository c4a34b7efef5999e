//! The text index (Pinot's `text_index`, there a Lucene index): which documents hold each term
//! of a text column, for `TEXT_MATCH`.
//!
//! * [`config`] — [`TextIndexConfig`]: stop words, case, default operator;
//! * [`analyzer`] — text to tokens with positions, for the index and for queries alike;
//! * [`index`] — building and reading the terms and their posting lists. Evaluating a
//!   `TEXT_MATCH` query over them is the engine's (`engine::operator::filter::text_match`).

pub mod analyzer;
pub mod config;
pub mod index;

pub use analyzer::Analyzer;
pub use config::TextIndexConfig;
pub use index::{TextIndexReader, TextIndexWriter};
