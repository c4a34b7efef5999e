//! [`DocsView`]: the docs each segment shows one query, taken at one instant.
//!
//! A segment's queryable docs (an upsert table's latest rows of each key) change as rows arrive;
//! a query that reads them segment by segment while they change can see a key in two segments,
//! or in none. Under an upsert table's consistency mode (`SYNC`, `SNAPSHOT`) the server takes
//! every segment's docs at one instant — with the segments themselves, under the table's lock —
//! and the query reads those instead of the segments' current ones.

use roaring::RoaringBitmap;
use segments::ImmutableSegment;
use std::collections::HashMap;
use std::sync::Arc;

/// Segment (by identity) → the docs the query sees (`None`: every doc).
#[derive(Clone, Debug, Default)]
pub struct DocsView {
    docs: HashMap<usize, Option<Arc<RoaringBitmap>>>,
}

impl DocsView {
    /// Shows `segment`'s `docs` to the query.
    pub fn insert(&mut self, segment: &Arc<ImmutableSegment>, docs: Option<Arc<RoaringBitmap>>) {
        self.docs.insert(Arc::as_ptr(segment) as usize, docs);
    }

    /// The docs `segment` shows: those taken, else its current ones.
    pub fn of(&self, segment: &ImmutableSegment) -> Option<Arc<RoaringBitmap>> {
        match self
            .docs
            .get(&(segment as *const ImmutableSegment as usize))
        {
            Some(docs) => docs.clone(),
            None => segment.queryable_docs(),
        }
    }
}
