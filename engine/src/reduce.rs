//! The broker's reduce: server results + [`BrokerReducePlan`] → the final result table.
//!
//! Server results are merged with the same [`Combiner`] servers use for segments. Then, per
//! query shape: aggregates and groups are finalized into rows (`keys…, finals…`), `HAVING`
//! filters them, `ORDER BY` sorts (stable; groups without ORDER BY come out ordered by their
//! keys so answers are deterministic), `OFFSET`/`LIMIT` cut, and the output expressions
//! (post-aggregation arithmetic included) produce the result columns, each value converted
//! to its column's declared type.

use crate::error::EngineError;
use crate::response::ResultTable;
use crate::server::result::{Combiner, IntermediateData, SegmentExplain, ServerResult};
use crate::sort::{compare_all, compare_key};
use planner::plan::eval::{InputRow, coerce, eval, truth};
use planner::plan::{BrokerReducePlan, ColumnType, ServerQueryKind, SingleStagePlan};
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
            let mut rows: Vec<Vec<Value>> = groups
                .into_iter()
                .map(|(mut keys, states)| {
                    keys.extend(
                        states
                            .iter()
                            .zip(aggregates)
                            .map(|(s, a)| s.finalize(&a.function, null_handling)),
                    );
                    keys
                })
                .collect();
            if reduce.order_by.is_empty() {
                rows.sort_by(|a, b| compare_all(a, b));
            }
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

/// HAVING, ORDER BY, OFFSET/LIMIT and output expressions over intermediate rows.
pub fn finish_rows(
    reduce: &BrokerReducePlan,
    mut rows: Vec<Vec<Value>>,
) -> Result<Vec<Vec<Value>>, EngineError> {
    if let Some(h) = &reduce.having {
        let mut kept = Vec::with_capacity(rows.len());
        for r in rows {
            if truth(&eval(h, &InputRow(&r))?) == Some(true) {
                kept.push(r);
            }
        }
        rows = kept;
    }
    if !reduce.order_by.is_empty() {
        // Each row's sort keys and arrival index: ties go by arrival, so the order is total
        // and selecting the first `offset + limit` before sorting them gives what a stable
        // sort of every row would (a top-k of many groups sorts k rows, not all).
        let mut keyed: Vec<(Vec<Value>, usize, Vec<Value>)> = Vec::with_capacity(rows.len());
        for (i, r) in rows.into_iter().enumerate() {
            let keys = reduce
                .order_by
                .iter()
                .map(|o| eval(&o.expr, &InputRow(&r)))
                .collect::<Result<Vec<_>, _>>()?;
            keyed.push((keys, i, r));
        }
        let order = |(a, i, _): &(Vec<Value>, usize, Vec<Value>),
                     (b, j, _): &(Vec<Value>, usize, Vec<Value>)| {
            for ((x, y), o) in a.iter().zip(b).zip(&reduce.order_by) {
                let c = compare_key(x, y, o.asc, o.nulls_last);
                if c != Ordering::Equal {
                    return c;
                }
            }
            i.cmp(j)
        };
        let wanted = reduce.offset.saturating_add(reduce.limit);
        if wanted < keyed.len() {
            if wanted > 0 {
                keyed.select_nth_unstable_by(wanted - 1, order);
            }
            keyed.truncate(wanted);
        }
        keyed.sort_unstable_by(order);
        rows = keyed.into_iter().map(|(_, _, r)| r).collect();
    }
    let rows: Vec<Vec<Value>> = rows
        .into_iter()
        .skip(reduce.offset)
        .take(reduce.limit)
        .collect();
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        let mut row = Vec::with_capacity(reduce.columns.len());
        for c in &reduce.columns {
            let v = eval(&c.expr, &InputRow(r))?;
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
    use planner::plan::{Expr, OutputColumn, SortExpr};

    fn input(i: usize, t: DataType) -> Expr {
        Expr::Input(InputRef {
            index: i,
            name: format!("c{i}"),
            column_type: ColumnType::sv(t),
        })
    }

    #[test]
    fn having_order_limit_and_post_aggregation() {
        let reduce = BrokerReducePlan {
            columns: vec![
                OutputColumn {
                    name: "k".into(),
                    column_type: ColumnType::sv(DataType::String),
                    expr: input(0, DataType::String),
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
            offset: 0,
            limit: 1,
            order_by_text: vec![],
        };
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
