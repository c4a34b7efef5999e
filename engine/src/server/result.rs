//! [`ServerResult`]: what a server returns for a [`ServerQueryPlan`] — Pinot's data table:
//! intermediate rows, aggregate states or groups, plus execution stats and exceptions. It is
//! serde, so servers can ship it to a broker; [`Combiner`] merges results (segment results
//! inside a server, server results at the broker) the same way.

use crate::aggregate::{AggState, number_states};
use crate::column::Column;
use crate::error::EngineError;
use crate::key::{RowKey, hash_row, rows_eq};
use crate::morsels::map_items;
use crate::response::QueryException;
use crate::sort::{TopK, sort_and_truncate};
use crate::stats::ExecutionStats;
use planner::plan::{AggregateCall, ResultLayout, ServerQueryKind, ServerQueryPlan};
use segments::types::Value;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// One EXPLAIN plan shape and how many segments share it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SegmentExplain {
    /// Operator rows `(depth, text)`, pre-order, below the combine operator.
    pub rows: Vec<(usize, String)>,
    pub num_segments: u64,
}

/// Intermediate data of one segment or server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum IntermediateData {
    /// Selection or DISTINCT rows (the projected expressions in order).
    Rows(Vec<Vec<Value>>),
    /// Selection rows as typed columns (a multi-stage leaf's [`ResultLayout::Columns`]).
    Columns(Vec<Column>),
    /// One state per aggregate.
    Aggregates(Vec<AggState>),
    /// Group key values and one state per aggregate, per group.
    Groups(Groups),
    /// EXPLAIN: distinct plan shapes.
    Explain(Vec<SegmentExplain>),
}

/// Group key values and one state per aggregate, per group.
pub type Groups = Vec<(Vec<Value>, Vec<AggState>)>;

/// A server's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerResult {
    pub data: IntermediateData,
    pub stats: ExecutionStats,
    pub num_groups_limit_reached: bool,
    pub exceptions: Vec<QueryException>,
    /// Per-segment operator traces of a traced query (`"trace": true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<Vec<crate::trace::SegmentTrace>>,
    /// The server tried the query inline first and it ran past the budget
    /// ([`crate::QueryContext::inline`]): the broker sends this plan to the pool from now on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub over_budget: bool,
}

impl IntermediateData {
    /// Rows, aggregates or groups held: a measure of the work merging it takes.
    pub fn entries(&self) -> usize {
        match self {
            IntermediateData::Rows(r) => r.len(),
            IntermediateData::Columns(c) => c.first().map_or(0, Column::len),
            IntermediateData::Aggregates(a) => a.len(),
            IntermediateData::Groups(g) => g.len(),
            IntermediateData::Explain(e) => e.len(),
        }
    }

    /// The empty data of a plan's kind.
    pub fn empty(plan: &ServerQueryPlan) -> IntermediateData {
        if plan.explain {
            return IntermediateData::Explain(Vec::new());
        }
        match &plan.kind {
            ServerQueryKind::Selection {
                exprs, order_by, ..
            } if plan.layout == ResultLayout::Columns && order_by.is_empty() => {
                IntermediateData::Columns(
                    exprs
                        .iter()
                        .map(|e| Column::from_values(e.column_type().data_type, Vec::new()))
                        .collect(),
                )
            }
            ServerQueryKind::Selection { .. } | ServerQueryKind::Distinct { .. } => {
                IntermediateData::Rows(Vec::new())
            }
            ServerQueryKind::Aggregation { aggregates } => IntermediateData::Aggregates(
                aggregates
                    .iter()
                    .map(|a| AggState::empty(&a.function))
                    .collect(),
            ),
            ServerQueryKind::GroupBy { .. } => IntermediateData::Groups(Vec::new()),
        }
    }
}

/// Merges intermediate results of one plan, in order.
pub struct Combiner<'p> {
    plan: &'p ServerQueryPlan,
    data: IntermediateData,
    /// (hash, index in the groups) of every merged group: looked up by the row itself, so no
    /// key is cloned to index it.
    group_index: hashbrown::HashTable<(u64, usize)>,
    hasher: hashbrown::DefaultHashBuilder,
    distinct_seen: HashSet<RowKey>,
    /// Groups were dropped past `numGroupsLimit`.
    pub groups_limit_reached: bool,
}

impl<'p> Combiner<'p> {
    /// An empty combiner for `plan`.
    pub fn new(plan: &'p ServerQueryPlan) -> Combiner<'p> {
        Combiner {
            plan,
            data: IntermediateData::empty(plan),
            group_index: hashbrown::HashTable::new(),
            hasher: hashbrown::DefaultHashBuilder::default(),
            distinct_seen: HashSet::new(),
            groups_limit_reached: false,
        }
    }

    fn aggregates(&self) -> &'p [AggregateCall] {
        self.plan.kind.aggregates()
    }

    /// Folds in the next result.
    pub fn add(&mut self, next: IntermediateData) -> Result<(), EngineError> {
        let aggregates = self.aggregates();
        // Groups as columns are a multi-stage leaf's partial states, which the final aggregate
        // above the leaf merges by key: results (segments, doc-range parts) are put one after
        // the other while they fit `numGroupsLimit` — a key in two of them is merged there,
        // on columns, instead of here on rows — and merged as groups past it.
        let next = match (&self.plan.kind, next) {
            (ServerQueryKind::GroupBy { keys, .. }, IntermediateData::Columns(more)) => {
                let rows = more.first().map_or(0, Column::len);
                let fits = self.data.entries() + rows <= self.plan.options.num_groups_limit;
                match &mut self.data {
                    IntermediateData::Columns(acc) if fits => {
                        append_columns(acc, more);
                        return Ok(());
                    }
                    IntermediateData::Groups(g) if g.is_empty() && fits => {
                        self.data = IntermediateData::Columns(more);
                        return Ok(());
                    }
                    _ => {}
                }
                IntermediateData::Groups(groups_of_columns(more, keys.len(), aggregates)?)
            }
            (_, next) => next,
        };
        if let (ServerQueryKind::GroupBy { keys, .. }, IntermediateData::Columns(acc)) =
            (&self.plan.kind, &mut self.data)
        {
            let acc = std::mem::take(acc);
            self.data = IntermediateData::Groups(groups_of_columns(acc, keys.len(), aggregates)?);
        }
        match (&mut self.data, next) {
            (IntermediateData::Explain(acc), IntermediateData::Explain(more)) => {
                for e in more {
                    match acc.iter_mut().find(|a| a.rows == e.rows) {
                        Some(a) => a.num_segments += e.num_segments,
                        None => acc.push(e),
                    }
                }
            }
            (IntermediateData::Rows(acc), IntermediateData::Rows(more)) => match &self.plan.kind {
                ServerQueryKind::Selection {
                    order_by, limit, ..
                } => {
                    if order_by.is_empty() {
                        let room = limit.saturating_sub(acc.len());
                        acc.extend(more.into_iter().take(room));
                    } else {
                        let mut top = TopK::new(order_by, *limit);
                        std::mem::take(acc)
                            .into_iter()
                            .chain(more)
                            .for_each(|r| top.push(r));
                        *acc = top.into_sorted();
                    }
                }
                ServerQueryKind::Distinct {
                    order_by, limit, ..
                } => {
                    if self.distinct_seen.is_empty() && !acc.is_empty() {
                        self.distinct_seen = acc.iter().map(|r| RowKey(r.clone())).collect();
                    }
                    for row in more {
                        if order_by.is_empty() && acc.len() >= *limit {
                            break;
                        }
                        if self.distinct_seen.insert(RowKey(row.clone())) {
                            acc.push(row);
                        }
                    }
                    if !order_by.is_empty() {
                        sort_and_truncate(acc, order_by, *limit);
                        self.distinct_seen = acc.iter().map(|r| RowKey(r.clone())).collect();
                    }
                }
                _ => return Err(EngineError::execution("rows for a non-row query")),
            },
            (IntermediateData::Columns(acc), IntermediateData::Columns(more)) => {
                let limit = match &self.plan.kind {
                    ServerQueryKind::Selection { limit, .. } => *limit,
                    _ => return Err(EngineError::execution("columns for a non-selection query")),
                };
                let have = acc.first().map_or(0, Column::len);
                if have == 0 && more.first().is_some_and(|c| c.len() <= limit) {
                    *acc = more;
                    return Ok(());
                }
                let room = limit.saturating_sub(have);
                let more_rows = more.first().map_or(0, Column::len);
                let keep: Option<Vec<u32>> = (more_rows > room).then(|| (0..room as u32).collect());
                let more = match &keep {
                    Some(k) => more.into_iter().map(|b| b.take(k)).collect(),
                    None => more,
                };
                append_columns(acc, more);
            }
            (IntermediateData::Aggregates(acc), IntermediateData::Aggregates(more)) => {
                if acc.len() != more.len() || acc.len() != aggregates.len() {
                    return Err(EngineError::execution(
                        "aggregate count mismatch while merging",
                    ));
                }
                for ((a, b), call) in acc.iter_mut().zip(more).zip(aggregates) {
                    a.merge(b, &call.function)?;
                }
            }
            (IntermediateData::Groups(acc), IntermediateData::Groups(more)) => {
                let limit = self.plan.options.num_groups_limit;
                // The first result's groups are distinct: taken as they are, indexed only if
                // another result follows.
                if acc.is_empty() && more.len() <= limit {
                    *acc = more;
                    return Ok(());
                }
                let index = &mut self.group_index;
                if index.is_empty() && !acc.is_empty() {
                    index.reserve(acc.len() + more.len(), |&(h, _)| h);
                    for (i, (k, _)) in acc.iter().enumerate() {
                        let h = hash_row(k, &self.hasher);
                        index.insert_unique(h, (h, i), |&(eh, _)| eh);
                    }
                }
                for (key, states) in more {
                    let h = hash_row(&key, &self.hasher);
                    match index.find(h, |&(eh, i)| eh == h && rows_eq(&acc[i].0, &key)) {
                        Some(&(_, i)) => {
                            for ((a, b), call) in acc[i].1.iter_mut().zip(states).zip(aggregates) {
                                a.merge(b, &call.function)?;
                            }
                        }
                        None if acc.len() >= limit => self.groups_limit_reached = true,
                        None => {
                            index.insert_unique(h, (h, acc.len()), |&(eh, _)| eh);
                            acc.push((key, states));
                        }
                    }
                }
            }
            (a, b) => {
                return Err(EngineError::execution(format!(
                    "cannot merge {} with {}",
                    kind_name(a),
                    kind_name(&b)
                )));
            }
        }
        Ok(())
    }

    /// The merged data.
    pub fn finish(self) -> IntermediateData {
        self.data
    }
}

/// Each column of `more` after the same column of `acc`, the columns copied in parallel
/// when they are long (a leaf's doc-range parts of a large group-by).
fn append_columns(acc: &mut Vec<Column>, more: Vec<Column>) {
    let rows = acc.first().map_or(0, Column::len) + more.first().map_or(0, Column::len);
    let pairs: Vec<(Column, Column)> = std::mem::take(acc).into_iter().zip(more).collect();
    *acc = map_items(pairs, rows, |(a, b)| {
        let t = a.data_type;
        Column::concat(vec![a, b], t)
    });
}

/// Groups given as columns — `keys` key columns, then one state column per aggregate of
/// `aggregates` (states, or numbers) — as (key values, states) per group.
fn groups_of_columns(
    columns: Vec<Column>,
    keys: usize,
    aggregates: &[AggregateCall],
) -> Result<Groups, EngineError> {
    let rows = columns.first().map_or(0, Column::len);
    let mut groups: Groups = (0..rows)
        .map(|r| {
            (
                columns[..keys].iter().map(|c| c.value(r)).collect(),
                Vec::new(),
            )
        })
        .collect();
    for (column, call) in columns.into_iter().skip(keys).zip(aggregates) {
        let Some(states) = number_states::states_of_column(&call.function, column) else {
            return Err(EngineError::execution("group columns without states"));
        };
        for (group, state) in groups.iter_mut().zip(states) {
            group.1.push(state);
        }
    }
    Ok(groups)
}

fn kind_name(d: &IntermediateData) -> &'static str {
    match d {
        IntermediateData::Rows(_) => "rows",
        IntermediateData::Columns(_) => "columns",
        IntermediateData::Aggregates(_) => "aggregates",
        IntermediateData::Groups(_) => "groups",
        IntermediateData::Explain(_) => "explain",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::plan::{AggregateFunction, ExecutionOptions, SortKey};

    fn plan(kind: ServerQueryKind) -> ServerQueryPlan {
        ServerQueryPlan {
            table: "t".into(),
            filter: None,
            kind,
            options: ExecutionOptions {
                num_groups_limit: 2,
                ..ExecutionOptions::default()
            },
            explain: false,
            layout: planner::plan::ResultLayout::Rows,
        }
    }

    fn sum_call() -> AggregateCall {
        AggregateCall {
            function: AggregateFunction::Sum,
            arg: None,
            second: None,
            multi_value: false,
            filter: None,
            name: "sum(x)".into(),
        }
    }

    #[test]
    fn merges_groups_with_limit() {
        let p = plan(ServerQueryKind::GroupBy {
            keys: vec![],
            aggregates: vec![sum_call()],
        });
        let mut c = Combiner::new(&p);
        c.add(IntermediateData::Groups(vec![(
            vec![Value::Int(1)],
            vec![AggState::Sum(Some(1.0))],
        )]))
        .unwrap();
        c.add(IntermediateData::Groups(vec![
            (vec![Value::Int(1)], vec![AggState::Sum(Some(2.0))]),
            (vec![Value::Int(2)], vec![AggState::Sum(Some(5.0))]),
            (vec![Value::Int(3)], vec![AggState::Sum(Some(7.0))]),
        ]))
        .unwrap();
        assert!(c.groups_limit_reached);
        let IntermediateData::Groups(g) = c.finish() else {
            panic!()
        };
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].1[0], AggState::Sum(Some(3.0)));
    }

    #[test]
    fn groups_as_columns_are_concatenated_or_merged_as_groups() {
        let key = planner::plan::Expr::Column(planner::plan::ColumnRef {
            name: "k".into(),
            column_type: planner::plan::ColumnType::sv(segments::types::DataType::Int),
        });
        let mut p = plan(ServerQueryKind::GroupBy {
            keys: vec![key],
            aggregates: vec![sum_call()],
        });
        p.options.num_groups_limit = 10;
        p.layout = ResultLayout::Columns;
        let columns = |keys: Vec<i32>, sums: Vec<f64>| {
            IntermediateData::Columns(vec![
                Column::from_values(
                    segments::types::DataType::Int,
                    keys.into_iter().map(Value::Int).collect(),
                ),
                Column::states(
                    segments::types::DataType::Double,
                    sums.into_iter().map(|s| AggState::Sum(Some(s))).collect(),
                ),
            ])
        };
        // One result: as it came.
        let mut c = Combiner::new(&p);
        c.add(columns(vec![1, 2], vec![1.0, 2.0])).unwrap();
        assert!(matches!(c.finish(), IntermediateData::Columns(c) if c[0].len() == 2));
        // Several within numGroupsLimit: one after the other, a shared key left to the final
        // aggregate.
        let mut c = Combiner::new(&p);
        c.add(columns(vec![1, 2], vec![1.0, 2.0])).unwrap();
        c.add(columns(vec![3, 1], vec![4.0, 10.0])).unwrap();
        let IntermediateData::Columns(cols) = c.finish() else {
            panic!("columns")
        };
        let keys: Vec<Value> = (0..cols[0].len()).map(|r| cols[0].value(r)).collect();
        assert_eq!(keys, [1, 2, 3, 1].map(Value::Int));
        // Past the limit: merged by key.
        let mut c = Combiner::new(&p);
        c.add(columns(vec![1, 2, 3, 4, 5, 6], vec![1.0; 6]))
            .unwrap();
        c.add(columns(vec![1, 2, 3, 4, 5], vec![1.0; 5])).unwrap();
        assert!(matches!(c.finish(), IntermediateData::Groups(g) if g.len() == 6));
        // Columns and groups mixed: merged by key.
        let mut c = Combiner::new(&p);
        c.add(columns(vec![1, 2], vec![1.0, 2.0])).unwrap();
        c.add(IntermediateData::Groups(vec![(
            vec![Value::Int(2)],
            vec![AggState::Sum(Some(5.0))],
        )]))
        .unwrap();
        c.add(columns(vec![3, 1], vec![4.0, 10.0])).unwrap();
        let IntermediateData::Groups(g) = c.finish() else {
            panic!("groups")
        };
        let sums: Vec<(Value, AggState)> = g
            .into_iter()
            .map(|(k, s)| (k[0].clone(), s[0].clone()))
            .collect();
        assert_eq!(
            sums,
            vec![
                (Value::Int(1), AggState::Sum(Some(11.0))),
                (Value::Int(2), AggState::Sum(Some(7.0))),
                (Value::Int(3), AggState::Sum(Some(4.0))),
            ]
        );
    }

    #[test]
    fn merges_selection_and_distinct() {
        let p = plan(ServerQueryKind::Selection {
            exprs: vec![],
            order_by: vec![SortKey {
                column: 0,
                asc: false,
                nulls_last: false,
            }],
            limit: 2,
        });
        let mut c = Combiner::new(&p);
        c.add(IntermediateData::Rows(vec![
            vec![Value::Int(1)],
            vec![Value::Int(5)],
        ]))
        .unwrap();
        c.add(IntermediateData::Rows(vec![vec![Value::Int(3)]]))
            .unwrap();
        assert_eq!(
            c.finish(),
            IntermediateData::Rows(vec![vec![Value::Int(5)], vec![Value::Int(3)]])
        );
        let p = plan(ServerQueryKind::Distinct {
            exprs: vec![],
            order_by: vec![],
            limit: 3,
        });
        let mut c = Combiner::new(&p);
        c.add(IntermediateData::Rows(vec![
            vec![Value::Int(1)],
            vec![Value::Int(2)],
        ]))
        .unwrap();
        c.add(IntermediateData::Rows(vec![
            vec![Value::Int(2)],
            vec![Value::Int(4)],
            vec![Value::Int(9)],
        ]))
        .unwrap();
        assert_eq!(
            c.finish(),
            IntermediateData::Rows(vec![
                vec![Value::Int(1)],
                vec![Value::Int(2)],
                vec![Value::Int(4)]
            ])
        );
    }

    #[test]
    fn server_results_round_trip_through_json() {
        let r = ServerResult {
            data: IntermediateData::Groups(vec![(
                vec![Value::String("a".into()), Value::Timestamp(5)],
                vec![
                    AggState::Sum(Some(1.5)),
                    AggState::Distinct([crate::key::Key(Value::Int(3))].into_iter().collect()),
                    AggState::Mode([(2.0f64.to_bits(), 3)].into_iter().collect()),
                    AggState::Hll(crate::aggregate::state::new_hll(8)),
                ],
            )]),
            stats: ExecutionStats {
                num_docs_scanned: 7,
                ..ExecutionStats::default()
            },
            num_groups_limit_reached: true,
            exceptions: vec![],
            trace: None,
            over_budget: true,
        };
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<ServerResult>(&json).unwrap(), r);
    }

    #[test]
    fn rejects_mismatched_kinds() {
        let p = plan(ServerQueryKind::Aggregation {
            aggregates: vec![sum_call()],
        });
        let mut c = Combiner::new(&p);
        assert!(c.add(IntermediateData::Rows(vec![])).is_err());
        c.add(IntermediateData::Aggregates(vec![AggState::Sum(Some(2.0))]))
            .unwrap();
        assert_eq!(
            c.finish(),
            IntermediateData::Aggregates(vec![AggState::Sum(Some(2.0))])
        );
    }
}
