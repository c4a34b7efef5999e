//! Secondary indexes, one file per kind, each a small reader with the one question it answers,
//! and an [`IndexType`] descriptor per kind so a column is asked `column.index::<Inverted>()`
//! rather than through one getter per kind.
//!
//! * [`inverted`] — one roaring bitmap of doc ids per dictionary id (EQ / IN).
//! * [`sorted`] — for physically sorted columns, the doc range of each dictionary id.
//! * [`range`] — bit-sliced index (Pinot's range index version 2) giving exact answers.
//! * [`bloom`] — bloom filter over a column's distinct values, for segment pruning.
//! * [`nulls`] — the null vector: docs whose input was null.
//! * [`json`] — the JSON index: posting lists of flattened JSON records (`JSON_MATCH`).
//! * [`text`] — the text index: posting lists of analyzed terms (`TEXT_MATCH`).
//! * [`zone_map`] — each run of documents' least and greatest value, computed on first use
//!   (scans skip runs no value of which can pass).
//!
//! [`dense`] is the build-time helper turning flat bit arrays into the bitmaps above; [`union`]
//! unions many of them on the rayon pool.

pub mod bloom;
pub mod dense;
pub mod inverted;
pub mod json;
pub mod nulls;
pub mod range;
pub mod sorted;
pub mod text;
pub mod union;
pub mod zone_map;

pub use bloom::BloomFilterReader;
pub use inverted::InvertedIndexReader;
pub use json::JsonIndexReader;
pub use range::{RangeIndexReader, RangeMatch};
pub use sorted::SortedIndexReader;
pub use text::TextIndexReader;
pub use zone_map::{ZoneMap, Zones};

use serde::{Deserialize, Serialize};

/// Every kind of stored entry. Names (`kind` strings in the index map) are the snake-case
/// variant names; kinds a reader does not know are skipped, so new kinds are not a format break.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexKind {
    Dictionary,
    Forward,
    Inverted,
    Sorted,
    Range,
    Bloom,
    NullVector,
    StarTree,
    Timestamp,
    #[serde(rename = "json_index")]
    Json,
    #[serde(rename = "text_index")]
    Text,
}

impl IndexKind {
    /// Every kind.
    pub const ALL: [IndexKind; 11] = [
        IndexKind::Dictionary,
        IndexKind::Forward,
        IndexKind::Inverted,
        IndexKind::Sorted,
        IndexKind::Range,
        IndexKind::Bloom,
        IndexKind::NullVector,
        IndexKind::StarTree,
        IndexKind::Timestamp,
        IndexKind::Json,
        IndexKind::Text,
    ];

    /// The kind's name in the index map and in `inspect` output.
    pub fn name(self) -> &'static str {
        match self {
            IndexKind::Dictionary => "dictionary",
            IndexKind::Forward => "forward",
            IndexKind::Inverted => "inverted",
            IndexKind::Sorted => "sorted",
            IndexKind::Range => "range",
            IndexKind::Bloom => "bloom",
            IndexKind::NullVector => "null_vector",
            IndexKind::StarTree => "star_tree",
            IndexKind::Timestamp => "timestamp",
            IndexKind::Json => "json_index",
            IndexKind::Text => "text_index",
        }
    }

    /// The kind named `name`; `None` for kinds this build does not know.
    pub fn parse(name: &str) -> Option<IndexKind> {
        IndexKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// The secondary indexes a column has, filled at open. Reached through [`IndexType`].
#[derive(Debug, Default)]
pub struct ColumnIndexes {
    pub inverted: Option<InvertedIndexReader>,
    pub sorted: Option<SortedIndexReader>,
    pub range: Option<RangeIndexReader>,
    pub bloom: Option<BloomFilterReader>,
    pub json: Option<JsonIndexReader>,
    pub text: Option<TextIndexReader>,
}

/// Describes one index kind: its [`IndexKind`] and its reader type.
pub trait IndexType {
    /// The kind.
    const KIND: IndexKind;
    /// What a column hands out for this kind.
    type Reader;
    /// Whether building this index requires a dictionary-encoded column.
    const NEEDS_DICTIONARY: bool;
    /// The reader among a column's indexes, if the column has one.
    fn reader(indexes: &ColumnIndexes) -> Option<&Self::Reader>;
}

/// Marker for the inverted index.
pub struct Inverted;
/// Marker for the sorted index.
pub struct Sorted;
/// Marker for the range index.
pub struct Range;
/// Marker for the bloom filter.
pub struct Bloom;
/// Marker for the JSON index.
pub struct Json;
/// Marker for the text index.
pub struct Text;

impl IndexType for Inverted {
    const KIND: IndexKind = IndexKind::Inverted;
    type Reader = InvertedIndexReader;
    const NEEDS_DICTIONARY: bool = true;
    fn reader(indexes: &ColumnIndexes) -> Option<&InvertedIndexReader> {
        indexes.inverted.as_ref()
    }
}

impl IndexType for Sorted {
    const KIND: IndexKind = IndexKind::Sorted;
    type Reader = SortedIndexReader;
    const NEEDS_DICTIONARY: bool = true;
    fn reader(indexes: &ColumnIndexes) -> Option<&SortedIndexReader> {
        indexes.sorted.as_ref()
    }
}

impl IndexType for Range {
    const KIND: IndexKind = IndexKind::Range;
    type Reader = RangeIndexReader;
    const NEEDS_DICTIONARY: bool = false;
    fn reader(indexes: &ColumnIndexes) -> Option<&RangeIndexReader> {
        indexes.range.as_ref()
    }
}

impl IndexType for Bloom {
    const KIND: IndexKind = IndexKind::Bloom;
    type Reader = BloomFilterReader;
    const NEEDS_DICTIONARY: bool = false;
    fn reader(indexes: &ColumnIndexes) -> Option<&BloomFilterReader> {
        indexes.bloom.as_ref()
    }
}

impl IndexType for Json {
    const KIND: IndexKind = IndexKind::Json;
    type Reader = JsonIndexReader;
    const NEEDS_DICTIONARY: bool = false;
    fn reader(indexes: &ColumnIndexes) -> Option<&JsonIndexReader> {
        indexes.json.as_ref()
    }
}

impl IndexType for Text {
    const KIND: IndexKind = IndexKind::Text;
    type Reader = TextIndexReader;
    const NEEDS_DICTIONARY: bool = false;
    fn reader(indexes: &ColumnIndexes) -> Option<&TextIndexReader> {
        indexes.text.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_round_trip() {
        for k in IndexKind::ALL {
            assert_eq!(IndexKind::parse(k.name()), Some(k));
            assert_eq!(
                serde_json::to_value(k).unwrap(),
                serde_json::json!(k.name())
            );
        }
        assert_eq!(IndexKind::parse("h3"), None);
    }
}
