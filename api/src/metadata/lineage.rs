//! Segment lineage (Pinot's `SegmentLineage`): how one set of a table's segments replaces
//! another atomically. An entry names `segmentsFrom` and `segmentsTo`; while it is
//! `IN_PROGRESS` (the new segments uploading and loading) queries see the old set and not the
//! new; once `COMPLETED` they see the new set and not the old; `REVERTED`, the new set is gone. The switch is one
//! metadata commit, so a query — which routes with one read of the metadata — sees the old set
//! or the new one, never both or neither.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};

/// Where a replacement stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum LineageState {
    InProgress,
    Completed,
    Reverted,
}

/// One replacement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineageEntry {
    pub segments_from: Vec<String>,
    pub segments_to: Vec<String>,
    pub state: LineageState,
    /// When the entry last changed (epoch millis).
    pub timestamp: i64,
}

/// A table's lineage, as `GET /segments/{t}/lineage` shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentLineage {
    pub table_name_with_type: String,
    /// Entries by id.
    pub lineage_entries: BTreeMap<String, LineageEntry>,
}

impl SegmentLineage {
    /// The segments queries must not see: the old set of a completed replacement, the new set
    /// of one in progress. (A revert deletes its new set in the same commit, so a reverted
    /// entry hides nothing — a segment of that name uploaded later, by a retried task or a
    /// user, is a new segment.)
    pub fn hidden(&self) -> HashSet<&str> {
        let mut out = HashSet::new();
        for e in self.lineage_entries.values() {
            let names = match e.state {
                LineageState::Completed => &e.segments_from,
                LineageState::InProgress => &e.segments_to,
                LineageState::Reverted => continue,
            };
            out.extend(names.iter().map(String::as_str));
        }
        out
    }

    /// The segments an unfinished entry holds on to (neither may be deleted or named by
    /// another replacement while it runs).
    pub fn locked(&self) -> HashSet<&str> {
        let mut out = HashSet::new();
        for e in self.lineage_entries.values() {
            match e.state {
                LineageState::InProgress => {
                    out.extend(e.segments_from.iter().map(String::as_str));
                    out.extend(e.segments_to.iter().map(String::as_str));
                }
                LineageState::Completed => {
                    out.extend(e.segments_from.iter().map(String::as_str));
                }
                LineageState::Reverted => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(from: &[&str], to: &[&str], state: LineageState) -> LineageEntry {
        LineageEntry {
            segments_from: from.iter().map(|s| s.to_string()).collect(),
            segments_to: to.iter().map(|s| s.to_string()).collect(),
            state,
            timestamp: 0,
        }
    }

    #[test]
    fn queries_see_the_old_set_or_the_new() {
        let mut l = SegmentLineage::default();
        l.lineage_entries.insert(
            "a".into(),
            entry(&["s1", "s2"], &["m1"], LineageState::InProgress),
        );
        assert_eq!(l.hidden(), HashSet::from(["m1"]));
        l.lineage_entries.get_mut("a").unwrap().state = LineageState::Completed;
        assert_eq!(l.hidden(), HashSet::from(["s1", "s2"]));
        l.lineage_entries.get_mut("a").unwrap().state = LineageState::Reverted;
        assert!(l.hidden().is_empty());
        assert!(l.locked().is_empty());
    }
}
