//! One half of a hybrid table (an OFFLINE and a REALTIME table of one name): the offline part's
//! rows up to the time boundary, the real-time part's after it. The broker attaches it to each
//! half's server plan — directly for the single-stage engine, in the [`super::StageRequest`] of
//! a multi-stage leaf (the server applies it to the leaf's plan) — so a row in both answers once.

use crate::metadata::records::TimeBoundary;
use planner::plan::{
    ColumnRef, ColumnType, Expr, FilterExpr, Predicate, PredicateOp, RangeBound, ServerQueryPlan,
};
use segments::types::Value;
use serde::{Deserialize, Serialize};

/// `column <= value` (offline) or `column > value` (real-time).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimeBound {
    pub column: String,
    pub column_type: ColumnType,
    pub value: i64,
    pub offline: bool,
}

impl TimeBound {
    /// The bound of one half at `boundary`.
    pub fn new(boundary: &TimeBoundary, column_type: ColumnType, offline: bool) -> TimeBound {
        TimeBound {
            column: boundary.column.clone(),
            column_type,
            value: boundary.value,
            offline,
        }
    }

    /// `plan` with the bound added to its filter.
    pub fn restrict(&self, plan: &mut ServerQueryPlan) {
        let value = Value::Long(self.value)
            .cast(self.column_type.data_type)
            .unwrap_or(Value::Long(self.value));
        let bound = Some(RangeBound {
            value,
            inclusive: self.offline,
        });
        let (lower, upper) = if self.offline {
            (None, bound)
        } else {
            (bound, None)
        };
        let predicate = FilterExpr::Predicate(Predicate {
            lhs: Expr::Column(ColumnRef {
                name: self.column.clone(),
                column_type: self.column_type,
            }),
            op: PredicateOp::Range { lower, upper },
        });
        plan.filter = Some(match plan.filter.take() {
            Some(f) => FilterExpr::And(vec![f, predicate]),
            None => predicate,
        });
    }
}
