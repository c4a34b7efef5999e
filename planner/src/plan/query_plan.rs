//! Query plans: what the binder hands to an engine.
//!
//! A single-stage (v1) query is split the way Pinot splits it:
//!
//! * [`ServerQueryPlan`] — what every server runs over its segments of one table: a filter and
//!   one of selection / aggregation / group-by / distinct, producing an intermediate result
//!   (rows, aggregate states or groups) that servers and the broker can merge.
//! * [`BrokerReducePlan`] — what the broker does with the merged intermediate rows: `HAVING`,
//!   final `ORDER BY`, `OFFSET`/`LIMIT`, post-aggregation expressions, result column names
//!   and types. Its expressions read the intermediate row through [`Expr::Input`].
//!
//! The intermediate row layout is fixed by the server kind: selection and distinct rows are
//! the projected expressions in order; aggregation rows are the final aggregate values; group
//! rows are the group keys followed by the final aggregate values.
//!
//! Everything derives serde: the broker ships [`ServerQueryPlan`]s to servers as data.

use super::aggregate::AggregateCall;
use super::expr::Expr;
use super::filter::FilterExpr;
use segments::types::ColumnType;
use segments::types::Value;
use serde::{Deserialize, Serialize};

/// A planned query. (Built once per query, so the size difference between the variants
/// does not matter; no boxing.)
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum QueryPlan {
    /// Pinot's single-stage (v1) engine: scatter to servers, reduce at the broker.
    SingleStage(SingleStagePlan),
    /// A query without a table (`SELECT 1, 'a'`), answered by the broker alone.
    Literal(LiteralPlan),
    /// Pinot's multi-stage (v2) engine: stages over the servers, the root at the broker.
    MultiStage(super::multistage::MultiStagePlan),
}

/// A v1 plan: server part plus broker part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SingleStagePlan {
    /// Shared: the broker sends the same plan to every server (and caches it) without a copy.
    pub server: std::sync::Arc<ServerQueryPlan>,
    pub reduce: BrokerReducePlan,
}

/// A table-less query: one row of constants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiteralPlan {
    /// Name, type and value of each result column.
    pub columns: Vec<(String, ColumnType, Value)>,
    /// `EXPLAIN PLAN FOR` a literal query.
    pub explain: bool,
    /// Columns whose value reads the query's identity (`reqId('x')`): evaluated when the
    /// broker binds it ([`QueryPlan::bind_identity`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub identity_columns: Vec<IdentityColumn>,
}

/// A column of a [`LiteralPlan`] evaluated once the query's identity is known.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IdentityColumn {
    pub column: usize,
    pub expr: Expr,
    /// Named by its alias; else by its value, as other constant columns.
    pub aliased: bool,
}

/// Execution options every server honours (the typed subset of the query options).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecutionOptions {
    /// `timeoutMs` (default 10 000).
    pub timeout_ms: u64,
    /// The query gave `timeoutMs` (in its options or a `SET`): it replaces the broker's own
    /// timeout, longer or shorter, as in Pinot.
    #[serde(default)]
    pub timeout_given: bool,
    /// `enableNullHandling`: read null bitmaps, skip nulls in aggregates, render NULL.
    pub enable_null_handling: bool,
    /// `numGroupsLimit` (default 100 000): groups kept per server.
    pub num_groups_limit: usize,
    /// `errorOnNumGroupsLimit` (or a block's `aggOptions(error_on_num_groups_limit='true')`):
    /// reaching the limit fails the query instead of answering with the groups kept.
    #[serde(default)]
    pub error_on_num_groups_limit: bool,
    /// `skipIndexes`: per column, the index kinds (lower-case: `inverted`, `range`, `sorted`)
    /// not to use for filtering.
    pub skip_indexes: Vec<(String, Vec<String>)>,
    /// `useStarTree` (default true).
    pub use_star_tree: bool,
    /// `skipUpsert`: every row of an upsert table, not only each key's latest.
    #[serde(default)]
    pub skip_upsert: bool,
    /// `skipUpsertView`, `upsertViewFreshnessMs`: how an upsert table's consistency mode
    /// takes the segments' docs.
    #[serde(default, skip_serializing_if = "UpsertView::is_default")]
    pub upsert_view: UpsertView,
    /// `maxExecutionThreads`, if set.
    pub max_execution_threads: Option<usize>,
    /// The value a column reads as in a segment that predates it (the schema's
    /// `defaultNullValue`), per column.
    #[serde(default)]
    pub column_defaults: Vec<(String, Value)>,
    /// `autoRewriteAggregationType`: `MIN`/`MAX` of text bind as `MINSTRING`/`MAXSTRING`.
    #[serde(default)]
    pub auto_rewrite_aggregation_type: bool,
    /// Bound for the multi-stage engine (Calcite's typing: `MIN`/`MAX` of a BOOLEAN is one).
    #[serde(default)]
    pub multi_stage: bool,
}

/// How a query reads an upsert table under a consistency mode (`SYNC`, `SNAPSHOT`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpsertView {
    /// `skipUpsertView`: each segment's current docs, as without a consistency mode.
    #[serde(default)]
    pub skip: bool,
    /// `upsertViewFreshnessMs`: a `SNAPSHOT` view older than this is refreshed first (`None`:
    /// the table's `upsertViewRefreshIntervalMs`).
    #[serde(default)]
    pub freshness_ms: Option<i64>,
}

impl UpsertView {
    fn is_default(&self) -> bool {
        *self == UpsertView::default()
    }
}

impl Default for ExecutionOptions {
    fn default() -> ExecutionOptions {
        ExecutionOptions {
            timeout_ms: DEFAULT_TIMEOUT_MS,
            timeout_given: false,
            enable_null_handling: false,
            num_groups_limit: DEFAULT_NUM_GROUPS_LIMIT,
            error_on_num_groups_limit: false,
            skip_indexes: Vec::new(),
            use_star_tree: true,
            skip_upsert: false,
            upsert_view: UpsertView::default(),
            max_execution_threads: None,
            column_defaults: Vec::new(),
            auto_rewrite_aggregation_type: false,
            multi_stage: false,
        }
    }
}

/// Pinot's default query timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;
/// Pinot's default `numGroupsLimit`.
pub const DEFAULT_NUM_GROUPS_LIMIT: usize = 100_000;
/// Pinot v1's implicit `LIMIT`.
pub const DEFAULT_LIMIT: usize = 10;

impl ExecutionOptions {
    /// The execution subset of resolved query options, with Pinot's defaults applied.
    pub fn from_query_options(o: &crate::options::QueryOptions) -> ExecutionOptions {
        let skip_indexes = o
            .skip_indexes
            .iter()
            .map(|(column, kinds)| {
                let names = kinds
                    .iter()
                    .map(|k| format!("{k:?}").to_ascii_lowercase())
                    .collect();
                (column.clone(), names)
            })
            .collect();
        ExecutionOptions {
            timeout_ms: o.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS),
            timeout_given: o.timeout_ms.is_some(),
            enable_null_handling: o.enable_null_handling,
            num_groups_limit: o.num_groups_limit_or_default() as usize,
            error_on_num_groups_limit: o.error_on_num_groups_limit,
            skip_indexes,
            use_star_tree: o.use_star_tree,
            skip_upsert: o.skip_upsert,
            upsert_view: UpsertView {
                skip: o.skip_upsert_view,
                freshness_ms: o.upsert_view_freshness_ms.filter(|ms| *ms >= 0),
            },
            max_execution_threads: o.max_execution_threads.map(|t| t as usize),
            column_defaults: Vec::new(),
            auto_rewrite_aggregation_type: o.auto_rewrite_aggregation_type,
            multi_stage: o.use_multistage_engine,
        }
    }

    /// The value `column` reads as where a segment lacks it: the schema's default, else
    /// Pinot's dimension default for the type.
    pub fn column_default(&self, column: &str, data_type: segments::types::DataType) -> Value {
        self.column_defaults
            .iter()
            .find(|(c, _)| c == column)
            .map_or_else(|| Value::default_null(data_type, false), |(_, v)| v.clone())
    }

    /// Whether the index kind `kind` (`inverted`, `range`, `sorted`) is skipped for `column`.
    pub fn skips_index(&self, column: &str, kind: &str) -> bool {
        self.skip_indexes
            .iter()
            .any(|(c, kinds)| c == column && kinds.iter().any(|k| k.eq_ignore_ascii_case(kind)))
    }
}

/// What a server runs over the segments of one table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServerQueryPlan {
    /// Raw table name.
    pub table: String,
    /// `WHERE`, if any.
    pub filter: Option<FilterExpr>,
    pub kind: ServerQueryKind,
    pub options: ExecutionOptions,
    /// `EXPLAIN PLAN FOR`: describe instead of execute.
    pub explain: bool,
    /// How a selection's rows come back: rows of values (v1, for the broker's reduce) or
    /// typed columns (a multi-stage leaf, whose operators are columnar).
    #[serde(default)]
    pub layout: ResultLayout,
}

/// How a server returns a selection's rows or a group-by's groups (a multi-stage leaf takes
/// columns: key columns, then one state column per aggregate); aggregations return states
/// either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResultLayout {
    #[default]
    Rows,
    Columns,
}

/// A position in the intermediate row and its sort direction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SortKey {
    pub column: usize,
    pub asc: bool,
    /// Where NULLs go (Pinot default: last for ASC, first for DESC).
    pub nulls_last: bool,
}

/// The server's part of a query.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ServerQueryKind {
    /// Rows of projected expressions; with `order_by`, each server keeps its top `limit`.
    Selection {
        exprs: Vec<Expr>,
        order_by: Vec<SortKey>,
        /// Rows each server must return (`offset + limit`).
        limit: usize,
    },
    /// Aggregations over all matching documents (one row).
    Aggregation { aggregates: Vec<AggregateCall> },
    /// Aggregations per distinct combination of `keys`.
    GroupBy {
        keys: Vec<Expr>,
        aggregates: Vec<AggregateCall>,
    },
    /// Distinct combinations of `exprs`; without `order_by` a server may stop at `limit`.
    Distinct {
        exprs: Vec<Expr>,
        order_by: Vec<SortKey>,
        limit: usize,
    },
}

impl ServerQueryKind {
    /// Pinot's name for the combine operator of this kind (`COMBINE_GROUP_BY` …).
    pub fn combine_name(&self) -> &'static str {
        match self {
            ServerQueryKind::Selection { order_by, .. } if order_by.is_empty() => "COMBINE_SELECT",
            ServerQueryKind::Selection { .. } => "COMBINE_SELECT_ORDERBY",
            ServerQueryKind::Aggregation { .. } => "COMBINE_AGGREGATE",
            ServerQueryKind::GroupBy { .. } => "COMBINE_GROUP_BY",
            ServerQueryKind::Distinct { .. } => "COMBINE_DISTINCT",
        }
    }

    /// The aggregations of an aggregation or group-by (none for the other kinds).
    pub fn aggregates(&self) -> &[AggregateCall] {
        match self {
            ServerQueryKind::Aggregation { aggregates }
            | ServerQueryKind::GroupBy { aggregates, .. } => aggregates,
            _ => &[],
        }
    }

    /// Types of the intermediate row's columns as the broker sees them.
    pub fn row_types(&self) -> Vec<ColumnType> {
        match self {
            ServerQueryKind::Selection { exprs, .. } | ServerQueryKind::Distinct { exprs, .. } => {
                exprs.iter().map(Expr::column_type).collect()
            }
            ServerQueryKind::Aggregation { aggregates } => {
                aggregates.iter().map(|a| a.result_column_type()).collect()
            }
            ServerQueryKind::GroupBy { keys, aggregates } => keys
                .iter()
                .map(|k| ColumnType::sv(k.column_type().data_type))
                .chain(aggregates.iter().map(|a| a.result_column_type()))
                .collect(),
        }
    }
}

/// One column of the final result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputColumn {
    /// The result column name (alias, else Pinot's v1 expression text).
    pub name: String,
    pub column_type: ColumnType,
    /// The value, over the intermediate row.
    pub expr: Expr,
}

/// A final ordering key over the intermediate row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SortExpr {
    pub expr: Expr,
    pub asc: bool,
    pub nulls_last: bool,
}

/// The broker's part of a query.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BrokerReducePlan {
    pub columns: Vec<OutputColumn>,
    /// `HAVING`, over the intermediate (group) row.
    pub having: Option<Expr>,
    pub order_by: Vec<SortExpr>,
    pub offset: usize,
    pub limit: usize,
    /// The ORDER BY text for EXPLAIN (`sort:[a ASC, sum(b) DESC]`).
    pub order_by_text: Vec<String>,
}

impl QueryPlan {
    /// Caps the rows the answer holds at `max` (Pinot's broker `query.response.limit`: a
    /// larger `LIMIT` is lowered to it), so one request cannot build an unbounded answer.
    pub fn limit_rows(&mut self, max: usize) {
        match self {
            QueryPlan::SingleStage(p) => {
                if p.reduce.limit > max {
                    p.reduce.limit = max;
                    let cap = p.reduce.offset.saturating_add(max);
                    match &mut std::sync::Arc::make_mut(&mut p.server).kind {
                        ServerQueryKind::Selection { limit, .. }
                        | ServerQueryKind::Distinct { limit, .. } => *limit = (*limit).min(cap),
                        ServerQueryKind::Aggregation { .. } | ServerQueryKind::GroupBy { .. } => {}
                    }
                }
            }
            QueryPlan::MultiStage(p) => {
                use super::multistage::RelNode;
                let Some(root) = p.stages.first_mut().filter(|_| !p.explain) else {
                    return;
                };
                if let RelNode::Sort { limit, .. } = &mut root.root {
                    *limit = Some(limit.map_or(max, |l| l.min(max)));
                    return;
                }
                let input = root.root.take();
                root.root = RelNode::Sort {
                    input: Box::new(input),
                    keys: Vec::new(),
                    offset: 0,
                    limit: Some(max),
                };
            }
            QueryPlan::Literal(_) => {}
        }
    }

    /// The server plan, if the query reads a table.
    pub fn server(&self) -> Option<&ServerQueryPlan> {
        match self {
            QueryPlan::SingleStage(p) => Some(&p.server),
            QueryPlan::Literal(_) | QueryPlan::MultiStage(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::aggregate::AggregateFunction;
    use crate::plan::expr::ColumnRef;
    use segments::types::DataType;

    fn sample() -> QueryPlan {
        let x = Expr::Column(ColumnRef {
            name: "x".into(),
            column_type: ColumnType::sv(DataType::Int),
        });
        QueryPlan::SingleStage(SingleStagePlan {
            server: std::sync::Arc::new(ServerQueryPlan {
                table: "t".into(),
                filter: None,
                kind: ServerQueryKind::GroupBy {
                    keys: vec![x.clone()],
                    aggregates: vec![AggregateCall {
                        function: AggregateFunction::Sum,
                        arg: Some(x),
                        second: None,
                        multi_value: false,
                        filter: None,
                        name: "sum(x)".into(),
                    }],
                },
                options: ExecutionOptions::default(),
                explain: false,
                layout: ResultLayout::Rows,
            }),
            reduce: BrokerReducePlan {
                columns: vec![],
                having: None,
                order_by: vec![],
                offset: 0,
                limit: 10,
                order_by_text: vec![],
            },
        })
    }

    #[test]
    fn plans_round_trip_through_json() {
        let plan = sample();
        let json = serde_json::to_string(&plan).unwrap();
        let back: QueryPlan = serde_json::from_str(&json).unwrap();
        assert_eq!(back, plan);
        let server = plan.server().unwrap();
        assert_eq!(server.kind.combine_name(), "COMBINE_GROUP_BY");
        assert_eq!(
            server.kind.row_types(),
            vec![
                ColumnType::sv(DataType::Int),
                ColumnType::sv(DataType::Double)
            ]
        );
    }

    #[test]
    fn converts_query_options() {
        let o = crate::options::QueryOptions::resolve(
            &[
                ("skipIndexes".into(), "a=inverted,range".into()),
                ("timeoutMs".into(), "50".into()),
            ],
            Some("enableNullHandling=true"),
        )
        .unwrap();
        let e = ExecutionOptions::from_query_options(&o);
        assert_eq!(e.timeout_ms, 50);
        assert!(e.enable_null_handling);
        assert!(e.skips_index("a", "range"));
        assert!(e.skips_index("a", "inverted"));
        assert_eq!(e.num_groups_limit, DEFAULT_NUM_GROUPS_LIMIT);
    }

    #[test]
    fn skip_indexes_lookup() {
        let o = ExecutionOptions {
            skip_indexes: vec![("a".into(), vec!["inverted".into()])],
            ..ExecutionOptions::default()
        };
        assert!(o.skips_index("a", "INVERTED"));
        assert!(!o.skips_index("a", "range"));
        assert!(!o.skips_index("b", "inverted"));
    }
}
