//! [`IndexMap`]: where each (target, kind) entry lives — file, offset, size and CRC-32.
//!
//! Written as `index_map.json`. Keys are strings on purpose: a target is a column name (or later
//! `startree:<n>`), a kind is an [`IndexKind`] name (`forward`, `inverted`, …). A reader looks up
//! the kinds it knows and ignores the rest, so adding an index kind is not a format break.

use crate::error::SegmentError;
use crate::index::IndexKind;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One stored entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexEntry {
    /// Column name (or another target id such as `startree:0`).
    pub target: String,
    /// Index kind name ([`IndexKind::name`]).
    pub kind: String,
    /// Data file name, relative to the segment directory.
    pub file: String,
    pub offset: u64,
    pub size: u64,
    pub crc32: u32,
}

/// The versioned list of entries of a segment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexMap {
    pub format_version: u32,
    pub entries: Vec<IndexEntry>,
}

impl IndexMap {
    /// The entry for `target` and `kind`, if present.
    pub fn get(&self, target: &str, kind: IndexKind) -> Option<&IndexEntry> {
        self.entries
            .iter()
            .find(|e| e.target == target && e.kind == kind.name())
    }

    /// Parses `index_map.json` text.
    pub fn parse(file: &Path, text: &[u8]) -> Result<IndexMap, SegmentError> {
        serde_json::from_slice(text)
            .map_err(|e| SegmentError::corrupt(file, format!("invalid index map: {e}")))
    }

    /// Pretty JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
