//! [`ConsumingPart`]: what marks an immutable segment as one part of a consuming segment.
//!
//! A consuming segment is queried as a few immutable segments (its chunks, see the server's
//! row buffer) that share its name. The engine counts them as the one segment they are
//! (Pinot's `numConsumingSegmentsQueried`, `…Processed`, `…Matched`) and reports how fresh the
//! rows it read were (`minConsumingFreshnessTimeMs`).

/// The stamp of one part of a consuming segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConsumingPart {
    /// When its rows became queryable (epoch millis).
    pub indexed_ms: i64,
    /// The newest stream timestamp among its rows (epoch millis), when the stream gives one.
    pub ingested_ms: Option<i64>,
}

impl ConsumingPart {
    /// How fresh its rows are, as Pinot reports it: the newest row's stream timestamp, else
    /// the time they were indexed.
    pub fn freshness_ms(&self) -> i64 {
        self.ingested_ms.unwrap_or(self.indexed_ms)
    }

    /// The stamp of a part holding the rows of `self` and `other`.
    pub fn merged(self, other: ConsumingPart) -> ConsumingPart {
        ConsumingPart {
            indexed_ms: self.indexed_ms.max(other.indexed_ms),
            ingested_ms: self.ingested_ms.max(other.ingested_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freshness_prefers_the_stream_time_and_merges_to_the_newest() {
        let a = ConsumingPart {
            indexed_ms: 100,
            ingested_ms: None,
        };
        let b = ConsumingPart {
            indexed_ms: 90,
            ingested_ms: Some(80),
        };
        assert_eq!(a.freshness_ms(), 100);
        assert_eq!(b.freshness_ms(), 80);
        let m = a.merged(b);
        assert_eq!(
            m,
            ConsumingPart {
                indexed_ms: 100,
                ingested_ms: Some(80)
            }
        );
    }
}
