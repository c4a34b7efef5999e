//! [`Statistics`]: what a planner knows of a segment's or a table's data — rows, and per column
//! its distinct count, range, sortedness and whether it holds nulls — read from segment
//! metadata and summed over a table's segments.
//!
//! A segment's figures are exact (its dictionary's cardinality, its min and max); a table's are
//! estimates: distinct counts of near-unique columns add up over segments (keys), those of the
//! others do not (a region name has five values in every segment), and a table's range is the
//! widest of its segments'.

use crate::metadata::{SegmentMetadata, typed_value::exact_text};
use crate::types::{DataType, Value};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// One column's figures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ColumnStatistics {
    pub data_type: DataType,
    /// Distinct values (estimated over several segments).
    pub distinct: u64,
    /// Smallest and largest value in [`Value::parse`]'s exact text; `None` when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<String>,
    /// Values are non-decreasing in row order within every segment.
    #[serde(default)]
    pub sorted: bool,
    #[serde(default)]
    pub has_nulls: bool,
}

impl ColumnStatistics {
    /// The smallest value, typed.
    pub fn min_value(&self) -> Option<Value> {
        Value::parse(self.data_type, self.min.as_deref()?).ok()
    }

    /// The largest value, typed.
    pub fn max_value(&self) -> Option<Value> {
        Value::parse(self.data_type, self.max.as_deref()?).ok()
    }
}

/// Rows and column figures of a segment or a table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Statistics {
    pub rows: u64,
    /// By column name.
    #[serde(default)]
    pub columns: BTreeMap<String, ColumnStatistics>,
}

impl Statistics {
    /// A segment's figures from its metadata (single-value columns; a multi-value column's
    /// entries are not rows).
    pub fn of_segment(m: &SegmentMetadata) -> Statistics {
        let columns = m
            .columns
            .iter()
            .filter(|c| c.single_value)
            .map(|c| {
                let text = |v: &Value| (!v.is_null()).then(|| exact_text(v));
                let stats = ColumnStatistics {
                    data_type: c.data_type,
                    distinct: u64::from(c.cardinality),
                    min: text(&c.min_value),
                    max: text(&c.max_value),
                    sorted: c.sorted,
                    has_nulls: c.has_nulls,
                };
                (c.name.clone(), stats)
            })
            .collect();
        Statistics {
            rows: u64::from(m.total_docs),
            columns,
        }
    }

    /// The figures of this data and `other` together (a table of both segments).
    pub fn merge(&mut self, other: &Statistics) {
        if other.rows == 0 {
            return;
        }
        if self.rows == 0 {
            *self = other.clone();
            return;
        }
        let rows = self.rows + other.rows;
        let (mine, theirs) = (self.rows, other.rows);
        self.columns
            .retain(|name, _| other.columns.contains_key(name));
        for (name, c) in self.columns.iter_mut() {
            let Some(o) = other.columns.get(name) else {
                continue;
            };
            // Near-unique on both sides: a key whose values the segments split; otherwise the
            // same values recur in every segment.
            let unique = |d: u64, n: u64| d.saturating_mul(2) >= n;
            c.distinct = if unique(c.distinct, mine) && unique(o.distinct, theirs) {
                c.distinct + o.distinct
            } else {
                c.distinct.max(o.distinct)
            }
            .min(rows);
            c.min = extreme(c, o, Ordering::Less, |s| &s.min);
            c.max = extreme(c, o, Ordering::Greater, |s| &s.max);
            c.sorted &= o.sorted;
            c.has_nulls |= o.has_nulls;
        }
        self.rows = rows;
    }
}

/// The one of `a`'s and `b`'s bound (`pick` of each) that is `wanted` of the other; unknown if
/// either is.
fn extreme(
    a: &ColumnStatistics,
    b: &ColumnStatistics,
    wanted: Ordering,
    pick: impl Fn(&ColumnStatistics) -> &Option<String>,
) -> Option<String> {
    let (x, y) = (pick(a).as_deref()?, pick(b).as_deref()?);
    let (vx, vy) = (
        Value::parse(a.data_type, x).ok()?,
        Value::parse(b.data_type, y).ok()?,
    );
    Some(if vy.total_cmp(&vx) == wanted { y } else { x }.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(distinct: u64, min: i64, max: i64) -> ColumnStatistics {
        ColumnStatistics {
            data_type: DataType::Long,
            distinct,
            min: Some(min.to_string()),
            max: Some(max.to_string()),
            sorted: true,
            has_nulls: false,
        }
    }

    fn stats(rows: u64, key: ColumnStatistics, flag: ColumnStatistics) -> Statistics {
        Statistics {
            rows,
            columns: BTreeMap::from([("key".to_string(), key), ("flag".to_string(), flag)]),
        }
    }

    #[test]
    fn keys_add_up_over_segments_and_repeated_values_do_not() {
        let mut t = stats(100, column(100, 1, 100), column(3, 0, 2));
        t.merge(&stats(50, column(50, 101, 150), column(3, 0, 9)));
        assert_eq!(t.rows, 150);
        let key = &t.columns["key"];
        assert_eq!(key.distinct, 150);
        assert_eq!(
            (key.min_value(), key.max_value()),
            (Some(Value::Long(1)), Some(Value::Long(150)))
        );
        let flag = &t.columns["flag"];
        assert_eq!(flag.distinct, 3);
        assert_eq!(flag.max.as_deref(), Some("9"));
    }

    #[test]
    fn an_empty_segment_changes_nothing_and_unknown_bounds_stay_unknown() {
        let mut t = stats(10, column(10, 5, 6), column(2, 0, 1));
        let before = t.clone();
        t.merge(&Statistics::default());
        assert_eq!(t, before);
        let mut other = stats(10, column(10, 1, 2), column(2, 0, 1));
        other.columns.get_mut("key").unwrap().min = None;
        t.merge(&other);
        assert_eq!(t.columns["key"].min, None);
        assert_eq!(t.columns["key"].max.as_deref(), Some("6"));
    }
}
