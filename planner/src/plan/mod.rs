//! From a parsed statement to a plan an engine runs.
//!
//! ```text
//! Statement ──binder(Catalog)──► QueryPlan::SingleStage { server: ServerQueryPlan,
//!                                                         reduce: BrokerReducePlan }
//!                               QueryPlan::Literal (no FROM)
//!                               QueryPlan::MultiStage (useMultistageEngine=true): stages
//!                               joined by exchanges, see [`multistage`]
//! ```
//!
//! * [`catalog`] — what the binder may know about tables (names, schemas).
//! * [`binder`] — name resolution, typing, aggregate extraction, constant folding.
//! * [`expr`], [`filter`], [`aggregate`] — the bound vocabulary: typed expressions, filter
//!   trees of index-friendly predicates, aggregation calls.
//! * [`query_plan`] — the plan types (serde, so a broker can ship them to servers).
//! * [`eval`] — row-at-a-time evaluation of bound expressions, shared by folding, the engine's
//!   general path and the broker's post-aggregation.
//! * [`error`] — [`PlanError`] with Pinot's error codes.
//! * [`multistage`] — the multi-stage (v2) plan and its binder.

pub mod aggregate;
pub mod binder;
pub mod catalog;
pub mod error;
pub mod eval;
pub mod expr;
pub mod filter;
pub mod funnel;
pub mod identity;
pub mod json_eval;
pub mod json_match;
pub mod like;
pub mod multistage;
pub mod query_plan;
pub mod scalar;
pub mod text_match;

pub use aggregate::{AggregateCall, AggregateFunction};
pub use binder::bind_statement;
pub use catalog::{Catalog, MemoryCatalog, TableInfo};
pub use error::PlanError;
pub use expr::{ColumnRef, Expr, InputRef};
pub use filter::{FilterExpr, Predicate, PredicateOp, RangeBound};
pub use identity::QueryIdentity;
pub use segments::types::ColumnType;
/// Plans a parsed statement for the engine its options ask for: the single-stage engine, or
/// — with `useMultistageEngine=true` — the multi-stage engine ([`multistage::bind`]).
pub fn plan_statement(
    stmt: &crate::sql::ast::Statement,
    catalog: &dyn Catalog,
    options: &crate::options::QueryOptions,
) -> Result<QueryPlan, PlanError> {
    if options.use_multistage_engine {
        let v2 = multistage::stage::MultiStageOptions {
            max_rows_in_join: options.max_rows_in_join.map_or(
                multistage::stage::MultiStageOptions::default().max_rows_in_join,
                |n| n as usize,
            ),
            join_overflow_mode: options.join_overflow_mode.unwrap_or_default(),
            max_rows_in_window: options.max_rows_in_window.map_or(
                multistage::stage::MultiStageOptions::default().max_rows_in_window,
                |n| n as usize,
            ),
            window_overflow_mode: options.window_overflow_mode.unwrap_or_default(),
            stage_parallelism: options.stage_parallelism.map_or(1, |n| n as usize),
        };
        return multistage::bind::bind_multistage(
            stmt,
            catalog,
            &ExecutionOptions::from_query_options(options),
            v2,
        );
    }
    bind_statement(
        stmt,
        catalog,
        &ExecutionOptions::from_query_options(options),
    )
}

pub use query_plan::{
    BrokerReducePlan, ExecutionOptions, IdentityColumn, LiteralPlan, OutputColumn, QueryPlan,
    ResultLayout, ServerQueryKind, ServerQueryPlan, SingleStagePlan, SortExpr, SortKey, UpsertView,
};
