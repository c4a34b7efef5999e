//! The broker's reduce: server results + [`BrokerReducePlan`] → the final result table.
//!
//! Server results are merged with the same [`Combiner`] servers use for segments. Then, per
//! query shape: aggregates and groups are read as rows (`keys…, finals…`), `HAVING`
//! filters them, `ORDER BY` sorts (stable; groups without ORDER BY come out ordered by their
//! keys so answers are deterministic), `OFFSET`/`LIMIT` cut, and the output expressions
//! (post-aggregation arithmetic included) produce the result columns, each value converted
//! to its column's declared type. Ordered groups are ranked in place ([`Intermediate`]): only
//! the groups `OFFSET`/`LIMIT` keep are made into rows.

use crate::aggregate::state::AggState;
use crate::error::EngineError;
use crate::response::ResultTable;
use crate::server::result::{Combiner, IntermediateData, SegmentExplain, ServerResult};
use crate::sort::{compare_all, compare_key};
use planner::plan::eval::{EvalError, InputRow, RowSource, coerce, eval, truth};
use planner::plan::expr::ColumnRef;
use planner::plan::{
    AggregateCall, BrokerReducePlan, ColumnType, Expr, ServerQueryKind, SingleStagePlan,
};
use segments::types::{DataType, Value};
use std::cmp::Ordering;

/// The reduced answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reduced {
    pub table: ResultTable,
    pub num_groups_limit_reached: bool,
}

/// Merges server results and reduces them.
pub fn reduce(plan: &SingleStagePlan, results: Vec<ServerResult>) -> Result<Reduced, EngineError> {
    let mut combiner = Combiner::new(&plan.server);
    let mut limit_reached = false;
    for r in results {
        limit_reached |= r.num_groups_limit_reached;
        combiner.add(r.data)?;
    }
    limit_reached |= combiner.groups_limit_reached;
    let table = reduce_data(plan, combiner.finish())?;
    Ok(Reduced {
        table,
        num_groups_limit_reached: limit_reached,
    })
}

fn output_columns(reduce: &BrokerReducePlan) -> Vec<(String, ColumnType)> {
    reduce
        .columns
        .iter()
        .map(|c| (c.name.clone(), c.column_type))
        .collect()
}

/// Reduces merged data.
pub fn reduce_data(
    plan: &SingleStagePlan,
    data: IntermediateData,
) -> Result<ResultTable, EngineError> {
    let reduce = &plan.reduce;
    let null_handling = plan.server.options.enable_null_handling;
    let rows: Vec<Vec<Value>> = match (&plan.server.kind, data) {
        (_, IntermediateData::Explain(shapes)) => return Ok(explain_table(plan, &shapes)),
        (
            ServerQueryKind::Selection { .. } | ServerQueryKind::Distinct { .. },
            IntermediateData::Rows(rows),
        ) => rows,
        (ServerQueryKind::Aggregation { aggregates }, IntermediateData::Aggregates(states)) => {
            vec![
                states
                    .iter()
                    .zip(aggregates)
                    .map(|(s, a)| s.finalize(&a.function, null_handling))
                    .collect(),
            ]
        }
        (ServerQueryKind::GroupBy { aggregates, .. }, IntermediateData::Groups(groups)) => {
            let mut groups = Groups {
                groups,
                aggregates,
                null_handling,
            };
            if !reduce.order_by.is_empty() {
                // Ranked in place: only the groups within OFFSET/LIMIT become rows.
                let rows = finish_rows(reduce, groups)?;
                return Ok(ResultTable::new(&output_columns(reduce), &rows));
            }
            let mut rows: Vec<Vec<Value>> =
                (0..groups.groups.len()).map(|i| groups.take(i)).collect();
            rows.sort_by(|a, b| compare_all(a, b));
            rows
        }
        (_, other) => {
            return Err(EngineError::execution(format!(
                "unexpected intermediate data for the query: {}",
                match other {
                    IntermediateData::Rows(_) => "rows",
                    IntermediateData::Columns(_) => "columns",
                    IntermediateData::Aggregates(_) => "aggregates",
                    IntermediateData::Groups(_) => "groups",
                    IntermediateData::Explain(_) => "explain",
                }
            )));
        }
    };
    let rows = finish_rows(reduce, rows)?;
    Ok(ResultTable::new(&output_columns(reduce), &rows))
}

/// Intermediate rows as `HAVING`, `ORDER BY` and the output read them: expressions are evaluated
/// over a row in place, and a row is taken whole only once `OFFSET`/`LIMIT` keep it (a top-k of
/// many groups builds k rows, not one per group).
trait Intermediate {
    fn len(&self) -> usize;
    /// `expr` over row `i`.
    fn eval(&self, i: usize, expr: &Expr) -> Result<Value, EvalError>;
    /// Row `i`, whole; each row is taken at most once.
    fn take(&mut self, i: usize) -> Vec<Value>;
}

impl Intermediate for Vec<Vec<Value>> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn eval(&self, i: usize, expr: &Expr) -> Result<Value, EvalError> {
        eval(expr, &InputRow(&self[i]))
    }
    fn take(&mut self, i: usize) -> Vec<Value> {
        std::mem::take(&mut self[i])
    }
}

/// Merged groups read as rows `keys…, finals…`, each final made from its state when read.
struct Groups<'p> {
    groups: Vec<(Vec<Value>, Vec<AggState>)>,
    aggregates: &'p [AggregateCall],
    null_handling: bool,
}

/// One group as a [`RowSource`].
struct GroupRow<'g> {
    keys: &'g [Value],
    states: &'g [AggState],
    aggregates: &'g [AggregateCall],
    null_handling: bool,
}

impl RowSource for GroupRow<'_> {
    fn column(&self, column: &ColumnRef) -> Result<Value, EvalError> {
        // An intermediate row has no table columns, whichever form it takes.
        InputRow(&[]).column(column)
    }
    fn input(&self, index: usize) -> Result<Value, EvalError> {
        if let Some(k) = self.keys.get(index) {
            return Ok(k.clone());
        }
        let a = index - self.keys.len();
        match (self.states.get(a), self.aggregates.get(a)) {
            (Some(s), Some(call)) => Ok(s.finalize(&call.function, self.null_handling)),
            _ => Err(EvalError(format!("input {index} out of range"))),
        }
    }
}

impl Intermediate for Groups<'_> {
    fn len(&self) -> usize {
        self.groups.len()
    }
    fn eval(&self, i: usize, expr: &Expr) -> Result<Value, EvalError> {
        let (keys, states) = &self.groups[i];
        let row = GroupRow {
            keys,
            states,
            aggregates: self.aggregates,
            null_handling: self.null_handling,
        };
        eval(expr, &row)
    }
    fn take(&mut self, i: usize) -> Vec<Value> {
        let (mut row, states) = std::mem::take(&mut self.groups[i]);
        row.extend(
            states
                .iter()
                .zip(self.aggregates)
                .map(|(s, a)| s.finalize(&a.function, self.null_handling)),
        );
        row
    }
}

/// HAVING, ORDER BY, OFFSET/LIMIT and output expressions over intermediate rows.
fn finish_rows(
    reduce: &BrokerReducePlan,
    mut rows: impl Intermediate,
) -> Result<Vec<Vec<Value>>, EngineError> {
    let mut kept: Vec<usize> = match &reduce.having {
        None => (0..rows.len()).collect(),
        Some(h) => {
            let mut kept = Vec::new();
            for i in 0..rows.len() {
                if truth(&rows.eval(i, h)?) == Some(true) {
                    kept.push(i);
                }
            }
            kept
        }
    };
    if !reduce.order_by.is_empty() {
        // Each kept row's sort keys, side by side in one vector, and its arrival position: ties
        // go by arrival, so the order is total and selecting the first `offset + limit` before
        // sorting them gives what a stable sort of every row would.
        let width = reduce.order_by.len();
        let mut keys = Vec::with_capacity(kept.len() * width);
        for &i in &kept {
            for o in &reduce.order_by {
                keys.push(rows.eval(i, &o.expr)?);
            }
        }
        let order = |a: &usize, b: &usize| {
            let (x, y) = (&keys[a * width..][..width], &keys[b * width..][..width]);
            for ((x, y), o) in x.iter().zip(y).zip(&reduce.order_by) {
                let c = compare_key(x, y, o.asc, o.nulls_last);
                if c != Ordering::Equal {
                    return c;
                }
            }
            a.cmp(b)
        };
        let mut ranked: Vec<usize> = (0..kept.len()).collect();
        let wanted = reduce.offset.saturating_add(reduce.limit);
        if wanted < ranked.len() {
            if wanted > 0 {
                ranked.select_nth_unstable_by(wanted - 1, order);
            }
            ranked.truncate(wanted);
        }
        ranked.sort_unstable_by(order);
        kept = ranked.into_iter().map(|r| kept[r]).collect();
    }
    let mut out = Vec::new();
    for &i in kept.iter().skip(reduce.offset).take(reduce.limit) {
        let r = rows.take(i);
        let mut row = Vec::with_capacity(reduce.columns.len());
        for c in &reduce.columns {
            let v = eval(&c.expr, &InputRow(&r))?;
            row.push(if c.column_type.single_value {
                coerce(v, c.column_type.data_type)?
            } else {
                v
            });
        }
        out.push(row);
    }
    Ok(out)
}

/// The EXPLAIN PLAN result: `Operator`, `Operator_Id`, `Parent_Id`.
pub fn explain_table(plan: &SingleStagePlan, shapes: &[SegmentExplain]) -> ResultTable {
    let reduce = &plan.reduce;
    let mut parts = Vec::new();
    if let Some(h) = &reduce.having {
        parts.push(format!("havingFilter:{h}"));
    }
    if !reduce.order_by_text.is_empty() {
        parts.push(format!("sort:[{}]", reduce.order_by_text.join(", ")));
    }
    parts.push(format!("limit:{}", reduce.limit));
    let mut lines: Vec<(usize, String)> = vec![
        (0, format!("BROKER_REDUCE({})", parts.join(","))),
        (1, plan.server.kind.combine_name().to_string()),
    ];
    for shape in shapes {
        lines.push((
            2,
            format!("PLAN_START(numSegmentsForThisPlan:{})", shape.num_segments),
        ));
        lines.extend(shape.rows.iter().map(|(d, t)| (d + 3, t.clone())));
    }
    explain_rows_to_table(&lines)
}

/// Numbers operator lines `(depth, text)` into `Operator_Id` / `Parent_Id` rows.
pub fn explain_rows_to_table(lines: &[(usize, String)]) -> ResultTable {
    let mut stack: Vec<i32> = Vec::new();
    let mut rows = Vec::with_capacity(lines.len());
    for (id, (depth, text)) in lines.iter().enumerate() {
        stack.truncate(*depth);
        let parent = stack.last().copied().unwrap_or(-1);
        rows.push(vec![
            Value::String(text.clone()),
            Value::Int(id as i32),
            Value::Int(parent),
        ]);
        stack.push(id as i32);
    }
    ResultTable::new(
        &[
            ("Operator".into(), ColumnType::sv(DataType::String)),
            ("Operator_Id".into(), ColumnType::sv(DataType::Int)),
            ("Parent_Id".into(), ColumnType::sv(DataType::Int)),
        ],
        &rows,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::plan::expr::{ArithOp, CmpOp, InputRef};
    use planner::plan::{AggregateFunction, OutputColumn, SortExpr};

    fn input(i: usize, t: DataType) -> Expr {
        Expr::Input(InputRef {
            index: i,
            name: format!("c{i}"),
            column_type: ColumnType::sv(t),
        })
    }

    /// Rows `key, sum, count` reduced to `key, sum / count` with `HAVING count > 1`, ordered by
    /// the sum descending.
    fn mean_by_key(key: DataType, offset: usize, limit: usize) -> BrokerReducePlan {
        BrokerReducePlan {
            columns: vec![
                OutputColumn {
                    name: "k".into(),
                    column_type: ColumnType::sv(key),
                    expr: input(0, key),
                },
                OutputColumn {
                    name: "avg".into(),
                    column_type: ColumnType::sv(DataType::Double),
                    expr: Expr::Arith {
                        op: ArithOp::Div,
                        left: Box::new(input(1, DataType::Double)),
                        right: Box::new(input(2, DataType::Long)),
                        return_type: ColumnType::sv(DataType::Double),
                    },
                },
            ],
            having: Some(Expr::Compare {
                op: CmpOp::Gt,
                left: Box::new(input(2, DataType::Long)),
                right: Box::new(Expr::literal(Value::Int(1))),
            }),
            order_by: vec![SortExpr {
                expr: input(1, DataType::Double),
                asc: false,
                nulls_last: false,
            }],
            offset,
            limit,
            order_by_text: vec![],
        }
    }

    #[test]
    fn having_order_limit_and_post_aggregation() {
        let reduce = mean_by_key(DataType::String, 0, 1);
        let rows = vec![
            vec![
                Value::String("a".into()),
                Value::Double(10.0),
                Value::Long(2),
            ],
            vec![
                Value::String("b".into()),
                Value::Double(30.0),
                Value::Long(1),
            ],
            vec![
                Value::String("c".into()),
                Value::Double(20.0),
                Value::Long(4),
            ],
        ];
        let out = finish_rows(&reduce, rows).unwrap();
        assert_eq!(
            out,
            vec![vec![Value::String("c".into()), Value::Double(5.0)]]
        );
    }

    /// Groups ranked in place give what ranking their whole rows gives: HAVING, a descending
    /// key with ties kept in arrival order, OFFSET and LIMIT, and post-aggregation output.
    #[test]
    fn groups_rank_in_place_as_rows_do() {
        let call = |function, name: &str| AggregateCall {
            function,
            arg: None,
            second: None,
            multi_value: false,
            filter: None,
            name: name.into(),
        };
        let aggregates = vec![
            call(AggregateFunction::Sum, "s"),
            call(AggregateFunction::Count, "n"),
        ];
        let reduce = mean_by_key(DataType::Long, 1, 3);
        // (key, sum, count): sums repeat so ties must keep arrival order; count 1 fails HAVING.
        let spec = [
            (0, 10.0, 2),
            (1, 40.0, 1),
            (2, 30.0, 3),
            (3, 30.0, 2),
            (4, 50.0, 5),
            (5, 30.0, 6),
            (6, 20.0, 4),
        ];
        let groups: Vec<(Vec<Value>, Vec<AggState>)> = spec
            .iter()
            .map(|&(k, s, n)| {
                (
                    vec![Value::Long(k)],
                    vec![AggState::Sum(Some(s)), AggState::Count(n)],
                )
            })
            .collect();
        let rows: Vec<Vec<Value>> = spec
            .iter()
            .map(|&(k, s, n)| vec![Value::Long(k), Value::Double(s), Value::Long(n)])
            .collect();
        let in_place = Groups {
            groups,
            aggregates: &aggregates,
            null_handling: false,
        };
        let ranked = finish_rows(&reduce, in_place).unwrap();
        assert_eq!(ranked, finish_rows(&reduce, rows).unwrap());
        let keys: Vec<i64> = ranked.iter().map(|r| r[0].as_i64().unwrap()).collect();
        assert_eq!(keys, vec![2, 3, 5]);
        assert_eq!(ranked[0][1], Value::Double(10.0));
    }

    #[test]
    fn explain_ids_and_parents() {
        let t = explain_rows_to_table(&[
            (0, "A".into()),
            (1, "B".into()),
            (2, "C".into()),
            (2, "D".into()),
            (1, "E".into()),
        ]);
        let parents: Vec<i64> = t.rows.iter().map(|r| r[2].as_i64().unwrap()).collect();
        assert_eq!(parents, vec![-1, 0, 1, 1, 0]);
        assert_eq!(
            t.data_schema.column_names,
            vec!["Operator", "Operator_Id", "Parent_Id"]
        );
    }
}
