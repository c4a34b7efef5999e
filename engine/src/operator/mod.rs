//! Per-segment operators.
//!
//! A segment runs as a short pipeline: [`filter`] turns the query's filter into a
//! [`doc_set::DocSet`] (indexes first, scans last), [`projection`] pulls blocks of those
//! documents with the needed columns ([`Operator::next`], one block at a time, deadline
//! checked per block), [`transform`] evaluates expressions over a block, and one terminal
//! operator — [`aggregation`], [`group_by`] (with [`dense_group_by`] fusing a small
//! dictionary key space with sums and counts into one loop) or [`selection`] (selection and DISTINCT, with
//! [`top_candidates`] narrowing `ORDER BY … LIMIT` on a typed first key) — consumes the
//! blocks into the segment's [`SegmentOutput`]. Aggregations a star-tree can answer skip all
//! of that: [`star_tree`] folds the tree's pre-aggregated records instead.

pub mod aggregation;
pub mod dense_group_by;
pub mod doc_set;
pub mod filter;
pub mod group_by;
pub mod group_keys;
pub mod projection;
pub mod selection;
pub mod star_tree;
pub mod top_candidates;
pub mod transform;

use crate::block::Block;
use crate::error::EngineError;
use crate::server::result::IntermediateData;
use segments::segment::{ColumnReader, ImmutableSegment};

/// Column `name` of `segment` if it is single-value and holds no NULL that matters (null
/// handling on and some stored): the columns the typed fast paths read as they are.
pub(crate) fn plain_column<'s>(
    segment: &'s ImmutableSegment,
    name: &str,
    null_handling: bool,
) -> Option<&'s ColumnReader> {
    let col = segment.column(name)?;
    let nullable = null_handling && col.nulls().is_some_and(|n| !n.is_empty());
    (col.is_single_value() && !nullable).then_some(col)
}

/// A pull-based producer of blocks for one segment.
///
/// Contract: `next` returns `Ok(Some(block))` until the input is exhausted, then `Ok(None)`
/// forever; an error (including a timeout or cancellation) ends the pipeline.
pub trait Operator<'s> {
    /// The next block, or `None` at the end.
    fn next(&mut self) -> Result<Option<Block<'s>>, EngineError>;
}

/// What a terminal operator produced for one segment.
#[derive(Debug)]
pub struct SegmentOutput {
    pub data: IntermediateData,
    /// Documents processed after filtering.
    pub docs_scanned: u64,
    /// Entries read after filtering (documents × projected columns).
    pub entries_scanned_post_filter: u64,
    /// The segment dropped groups past `numGroupsLimit`.
    pub groups_limit_reached: bool,
}
