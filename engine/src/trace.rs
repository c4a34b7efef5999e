//! Query tracing (`"trace": true`): an optional collector in the [`QueryContext`] that records,
//! per segment, each operator run with its wall time and output rows. Off by default: with no
//! collector the engine takes no timestamps and allocates nothing.
//!
//! [`QueryContext`]: crate::QueryContext

use serde::{Deserialize, Serialize};
use std::sync::Mutex;

/// One operator run on one segment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OperatorTrace {
    /// Pinot-style operator name (`FilterOperator`, `AggregationOperator`, ...).
    pub operator: String,
    /// Wall time in nanoseconds.
    pub time_ns: u64,
    /// Rows (documents) the operator produced.
    pub rows: u64,
}

/// The operators run on one segment, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentTrace {
    pub segment: String,
    pub operators: Vec<OperatorTrace>,
}

/// Collects [`SegmentTrace`]s from every segment of a query (segments run in parallel).
#[derive(Debug, Default)]
pub struct TraceCollector {
    segments: Mutex<Vec<SegmentTrace>>,
}

impl TraceCollector {
    /// Records one segment's operators.
    pub fn record(&self, trace: SegmentTrace) {
        if let Ok(mut s) = self.segments.lock() {
            s.push(trace);
        }
    }

    /// Everything recorded, sorted by segment name.
    pub fn take(&self) -> Vec<SegmentTrace> {
        let mut out = self
            .segments
            .lock()
            .map(|mut s| std::mem::take(&mut *s))
            .unwrap_or_default();
        out.sort_by(|a, b| a.segment.cmp(&b.segment));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_sorted_by_segment() {
        let c = TraceCollector::default();
        for name in ["s1", "s0"] {
            c.record(SegmentTrace {
                segment: name.into(),
                operators: vec![OperatorTrace {
                    operator: "FilterOperator".into(),
                    time_ns: 5,
                    rows: 2,
                }],
            });
        }
        let t = c.take();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].segment, "s0");
        assert!(c.take().is_empty());
    }
}
