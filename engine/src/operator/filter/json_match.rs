//! `JSON_MATCH` answered by a column's JSON index (Pinot's `JsonMatchFilterOperator` over
//! `ImmutableJsonIndexReader`): the planned filter evaluated over the index's flattened records
//! ([`planner::plan::json_eval`]), then mapped to their documents; an `IS NULL` filter (only
//! ever the whole filter) is the documents with no record holding the key.

use crate::error::EngineError;
use planner::plan::json_eval::JsonRecords;
use planner::plan::json_match::{JsonFilter, JsonMatch};
use roaring::RoaringBitmap;
use segments::index::JsonIndexReader;

/// A segment's JSON index as [`JsonRecords`].
struct Index<'a>(&'a JsonIndexReader);

impl JsonRecords for Index<'_> {
    fn key(&self, key: &str) -> Option<RoaringBitmap> {
        self.0.key(key).map(|b| (*b).clone())
    }

    fn key_value(&self, key: &str, value: &str) -> Option<RoaringBitmap> {
        self.0.key_value(key, value).map(|b| (*b).clone())
    }

    fn each_value(&self, key: &str, f: &mut dyn FnMut(&str, &RoaringBitmap)) {
        for id in self.0.values_of(key) {
            f(&self.0.value(key, id), &self.0.posting(id));
        }
    }
}

/// The documents (of a segment of `total_docs`) matching `m`.
pub fn matching_docs(
    reader: &JsonIndexReader,
    m: &JsonMatch,
    total_docs: u32,
) -> Result<RoaringBitmap, EngineError> {
    let records = m
        .filter
        .records(&Index(reader))
        .map_err(EngineError::execution)?;
    let docs = reader.docs_of(&records);
    if let (true, JsonFilter::Predicate(_)) = (m.is_null_test(), &m.filter) {
        let mut all = RoaringBitmap::new();
        all.insert_range(0..total_docs);
        return Ok(all - docs);
    }
    Ok(docs)
}
