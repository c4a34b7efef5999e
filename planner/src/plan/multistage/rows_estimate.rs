//! What an operator is estimated to output — its rows and each column's distinct values — as
//! a leaf stage keeps it ([`super::stage::Stage::estimate`]) and `estimate::plan_estimate`
//! carries it up a plan.

use serde::{Deserialize, Serialize};

/// What an operator is estimated to output: its rows and, per output column, its distinct
/// values (a column without one counts as many as the rows: a key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowsEstimate {
    pub rows: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub distinct: Vec<f64>,
}

impl RowsEstimate {
    /// The distinct values of output column `column`: at most the rows, at least one.
    pub fn distinct(&self, column: usize) -> f64 {
        self.distinct
            .get(column)
            .copied()
            .unwrap_or(self.rows)
            .min(self.rows)
            .max(1.0)
    }

    /// `rows` rows whose columns are `distinct` (each capped at the rows).
    pub(super) fn new(rows: f64, distinct: Vec<f64>) -> RowsEstimate {
        let distinct = distinct.into_iter().map(|d| d.min(rows).max(1.0)).collect();
        RowsEstimate { rows, distinct }
    }

    /// These rows restricted to those whose column `column` has one of `keys` values (the
    /// smaller set of values inside the larger).
    pub fn restricted(&self, column: usize, keys: f64) -> RowsEstimate {
        let share = (keys / self.distinct(column)).min(1.0);
        let mut distinct = self.distinct.clone();
        if let Some(d) = distinct.get_mut(column) {
            *d = d.min(keys);
        }
        RowsEstimate::new((self.rows * share).max(1.0), distinct)
    }

    /// These columns over `rows` of these rows (each column's distinct values capped there).
    pub(super) fn with_rows(&self, rows: f64) -> RowsEstimate {
        RowsEstimate::new(rows, self.distinct.clone())
    }

    /// The first `width` columns' distinct counts.
    pub(super) fn columns(&self, width: usize) -> Vec<f64> {
        (0..width).map(|c| self.distinct(c)).collect()
    }
}
