//! [`ExecutionStats`]: the counters a server reports with its result and the broker sums
//! into the response (`numDocsScanned`, `numEntriesScannedInFilter`, segment counts, …).

use serde::{Deserialize, Serialize};

/// Execution counters of one segment, one server, or a whole query.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionStats {
    /// Documents that passed the filter and were processed.
    pub num_docs_scanned: u64,
    /// Documents in every queried segment.
    pub total_docs: u64,
    /// Forward-index entries read by scan-based filter predicates.
    pub num_entries_scanned_in_filter: u64,
    /// Entries read after filtering (documents × projected columns).
    pub num_entries_scanned_post_filter: u64,
    pub num_segments_queried: u64,
    /// Segments not pruned.
    pub num_segments_processed: u64,
    /// Segments with at least one matching document.
    pub num_segments_matched: u64,
    /// Segments pruned by metadata (min/max, bloom filter).
    pub num_segments_pruned_by_server: u64,
    /// Of those, pruned by a value (bloom/min-max) check.
    pub num_segments_pruned_by_value: u64,
    /// EXPLAIN: segments whose filter matched nothing.
    pub explain_num_empty_filter_segments: u64,
    /// EXPLAIN: segments whose filter matched everything.
    pub explain_num_match_all_filter_segments: u64,
    /// Of the segments queried, those still consuming (each counted once, however many
    /// parts it is read as: [`segments::ConsumingPart`]).
    #[serde(default)]
    pub num_consuming_segments_queried: u64,
    #[serde(default)]
    pub num_consuming_segments_processed: u64,
    #[serde(default)]
    pub num_consuming_segments_matched: u64,
    /// How fresh the stalest consuming segment read was (epoch millis; 0 when none was).
    #[serde(default)]
    pub min_consuming_freshness_time_ms: u64,
}

impl ExecutionStats {
    /// Adds another set of counters.
    pub fn add(&mut self, o: &ExecutionStats) {
        self.num_docs_scanned += o.num_docs_scanned;
        self.total_docs += o.total_docs;
        self.num_entries_scanned_in_filter += o.num_entries_scanned_in_filter;
        self.num_entries_scanned_post_filter += o.num_entries_scanned_post_filter;
        self.num_segments_queried += o.num_segments_queried;
        self.num_segments_processed += o.num_segments_processed;
        self.num_segments_matched += o.num_segments_matched;
        self.num_segments_pruned_by_server += o.num_segments_pruned_by_server;
        self.num_segments_pruned_by_value += o.num_segments_pruned_by_value;
        self.explain_num_empty_filter_segments += o.explain_num_empty_filter_segments;
        self.explain_num_match_all_filter_segments += o.explain_num_match_all_filter_segments;
        self.num_consuming_segments_queried += o.num_consuming_segments_queried;
        self.num_consuming_segments_processed += o.num_consuming_segments_processed;
        self.num_consuming_segments_matched += o.num_consuming_segments_matched;
        self.min_consuming_freshness_time_ms = min_positive(
            self.min_consuming_freshness_time_ms,
            o.min_consuming_freshness_time_ms,
        );
    }

    /// The counters of a consuming segment's part read on their own: the segment's, consuming.
    pub fn of_consuming_part(mut self, part: segments::ConsumingPart) -> ExecutionStats {
        self.num_consuming_segments_queried = self.num_segments_queried;
        self.num_consuming_segments_processed = self.num_segments_processed;
        self.num_consuming_segments_matched = self.num_segments_matched;
        self.min_consuming_freshness_time_ms = u64::try_from(part.freshness_ms()).unwrap_or(0);
        self
    }

    /// Adds the counters of another part of the same segment: its documents and entries; the
    /// segment still counts once — processed or matched if any part was, pruned if every part
    /// was — and is as fresh as its freshest part.
    pub fn add_part(&mut self, o: &ExecutionStats) {
        self.num_docs_scanned += o.num_docs_scanned;
        self.total_docs += o.total_docs;
        self.num_entries_scanned_in_filter += o.num_entries_scanned_in_filter;
        self.num_entries_scanned_post_filter += o.num_entries_scanned_post_filter;
        let any = |a: &mut u64, b: u64| *a = (*a).max(b);
        let every = |a: &mut u64, b: u64| *a = (*a).min(b);
        any(&mut self.num_segments_queried, o.num_segments_queried);
        any(&mut self.num_segments_processed, o.num_segments_processed);
        any(&mut self.num_segments_matched, o.num_segments_matched);
        every(
            &mut self.num_segments_pruned_by_server,
            o.num_segments_pruned_by_server,
        );
        every(
            &mut self.num_segments_pruned_by_value,
            o.num_segments_pruned_by_value,
        );
        every(
            &mut self.explain_num_empty_filter_segments,
            o.explain_num_empty_filter_segments,
        );
        every(
            &mut self.explain_num_match_all_filter_segments,
            o.explain_num_match_all_filter_segments,
        );
        any(
            &mut self.num_consuming_segments_queried,
            o.num_consuming_segments_queried,
        );
        any(
            &mut self.num_consuming_segments_processed,
            o.num_consuming_segments_processed,
        );
        any(
            &mut self.num_consuming_segments_matched,
            o.num_consuming_segments_matched,
        );
        any(
            &mut self.min_consuming_freshness_time_ms,
            o.min_consuming_freshness_time_ms,
        );
    }
}

/// The smaller of two times where 0 means none (Pinot's `minPositive`).
fn min_positive(a: u64, b: u64) -> u64 {
    match (a, b) {
        (0, x) | (x, 0) => x,
        (a, b) => a.min(b),
    }
}

/// One operator's stats and its inputs'.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OperatorStats {
    /// Pinot's operator type (`MAILBOX_RECEIVE`, `HASH_JOIN`, `LEAF`, …).
    #[serde(rename = "type")]
    pub kind: String,
    pub execution_time_ms: u64,
    pub emitted_rows: u64,
    /// The stage a `MAILBOX_SEND` sends from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<usize>,
    /// Workers of that stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallelism: Option<usize>,
    /// The table a `LEAF` reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// A join stopped at `maxRowsInJoin` (`joinOverflowMode=BREAK`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub max_rows_in_join_reached: bool,
    /// A window stopped at `maxRowsInWindow` (`windowOverflowMode=BREAK`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub max_rows_in_window_reached: bool,
    /// An aggregate (or a leaf's v1 grouping) dropped groups past `numGroupsLimit`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub num_groups_limit_reached: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<OperatorStats>,
}

impl OperatorStats {
    /// Folds in the same operator of another worker of the stage.
    pub fn merge(&mut self, other: OperatorStats) {
        self.emitted_rows += other.emitted_rows;
        self.execution_time_ms = self.execution_time_ms.max(other.execution_time_ms);
        self.max_rows_in_join_reached |= other.max_rows_in_join_reached;
        self.max_rows_in_window_reached |= other.max_rows_in_window_reached;
        self.num_groups_limit_reached |= other.num_groups_limit_reached;
        if let (Some(a), Some(b)) = (self.parallelism, other.parallelism) {
            self.parallelism = Some(a + b);
        }
        let mut theirs = other.children.into_iter();
        for mine in self.children.iter_mut() {
            match theirs.next() {
                Some(t) => mine.merge(t),
                None => break,
            }
        }
        self.children.extend(theirs);
    }

    /// Whether this operator or one below it (in any stage) stopped at `maxRowsInJoin`.
    pub fn join_limit_reached(&self) -> bool {
        self.max_rows_in_join_reached || self.children.iter().any(Self::join_limit_reached)
    }

    /// Whether this operator or one below it (in any stage) dropped groups past
    /// `numGroupsLimit`.
    pub fn groups_limit_reached(&self) -> bool {
        self.num_groups_limit_reached || self.children.iter().any(Self::groups_limit_reached)
    }

    /// Whether this operator or one below it stopped at `maxRowsInWindow`.
    pub fn window_limit_reached(&self) -> bool {
        self.max_rows_in_window_reached || self.children.iter().any(Self::window_limit_reached)
    }

    /// The stats of several workers' trees of one stage, merged.
    pub fn merged(trees: Vec<OperatorStats>) -> Option<OperatorStats> {
        let mut it = trees.into_iter();
        let mut first = it.next()?;
        for t in it {
            first.merge(t);
        }
        Some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_field_by_field() {
        let mut a = ExecutionStats {
            num_docs_scanned: 1,
            total_docs: 10,
            num_segments_queried: 1,
            ..ExecutionStats::default()
        };
        a.add(&ExecutionStats {
            num_docs_scanned: 2,
            total_docs: 5,
            num_entries_scanned_in_filter: 7,
            num_segments_queried: 1,
            ..ExecutionStats::default()
        });
        assert_eq!(a.num_docs_scanned, 3);
        assert_eq!(a.total_docs, 15);
        assert_eq!(a.num_entries_scanned_in_filter, 7);
        assert_eq!(a.num_segments_queried, 2);
    }

    /// Two parts of one consuming segment, one matched, count as one matched consuming
    /// segment as fresh as its freshest part; with a committed segment the query is as fresh
    /// as its stalest consuming segment (0: none read).
    #[test]
    fn consuming_parts_count_once() {
        let part = |docs: u64, matched: u64, fresh: i64| {
            ExecutionStats {
                num_segments_queried: 1,
                num_segments_processed: 1,
                num_segments_matched: matched,
                num_docs_scanned: docs,
                ..ExecutionStats::default()
            }
            .of_consuming_part(segments::ConsumingPart {
                indexed_ms: fresh,
                ingested_ms: None,
            })
        };
        let mut segment = part(0, 0, 100);
        segment.add_part(&part(5, 1, 200));
        assert_eq!(
            (
                segment.num_segments_queried,
                segment.num_segments_matched,
                segment.num_consuming_segments_queried,
                segment.num_consuming_segments_matched,
                segment.num_docs_scanned,
                segment.min_consuming_freshness_time_ms
            ),
            (1, 1, 1, 1, 5, 200)
        );
        let mut query = ExecutionStats {
            num_segments_queried: 1,
            ..ExecutionStats::default()
        };
        query.add(&segment);
        query.add(&part(1, 1, 150));
        assert_eq!(query.num_segments_queried, 3);
        assert_eq!(query.num_consuming_segments_queried, 2);
        assert_eq!(query.min_consuming_freshness_time_ms, 150);
        assert_eq!(ExecutionStats::default().min_consuming_freshness_time_ms, 0);
    }
}
