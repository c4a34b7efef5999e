//! Tessera's query engine: runs single-stage (v1) plans over segments and reduces the
//! results into Pinot broker responses.
//!
//! * [`execute`] — the entry points: [`execute_sql`] (SQL text + request `queryOptions` over a
//!   [`TableProvider`] → [`BrokerResponse`], never panics), or the two halves for a
//!   distributed broker: [`plan_sql`] → ship `ServerQueryPlan` → [`server::execute_server`] on
//!   each server → [`reduce_response`] at the broker.
//! * [`server`] — what a server does: per segment filter → project → aggregate / group /
//!   select / distinct, merged across segments on rayon into a serializable
//!   [`server::result::ServerResult`].
//! * [`reduce`] — what the broker does with server results: HAVING, ORDER BY, LIMIT,
//!   post-aggregation expressions, names and types, EXPLAIN tables.
//! * [`operator`], [`block`], [`aggregate`] — the pull-based operators, the blocks they pass,
//!   and the aggregation states; [`sketch`] — HyperLogLog, t-digest and quantile digest.
//! * [`multistage`] — the multi-stage (v2) runtime: blocks, mailboxes, stage operators.
//! * [`vectorised`] — the one expression evaluator of both engines, a column at a time, over
//!   a v1 [`block::Block`] or a v2 [`multistage::DataBlock`]; [`per_entry`] — an expression
//!   over one dictionary column evaluated once per entry; [`morsels`] — rows cut into morsels,
//!   one per pool thread.
//! * [`dimension`] — dimension tables indexed by primary key, as `lookUp` reads them.
//! * [`response`] — Pinot's `BrokerResponseNative` JSON; [`error`] — failures with Pinot's codes.
//!
//! ```no_run
//! use tessera_engine::{execute_sql, MemoryTables};
//! # fn tables() -> MemoryTables { MemoryTables::new() }
//! let tables: MemoryTables = tables(); // schema + Arc<ImmutableSegment>s per table
//! let response = execute_sql("SELECT COUNT(*) FROM t WHERE x = 'a'", Some("timeoutMs=2000"), &tables);
//! println!("{}", response.to_json_pretty());
//! assert_eq!(response.error_code(), -1); // the X-Pinot-Error-Code header value
//! ```

pub mod aggregate;
pub mod block;
pub mod code_book;
pub mod column;
pub mod context;
pub mod dimension;
pub mod docs_view;
pub mod error;
pub mod execute;
pub mod key;
pub mod morsels;
pub mod multistage;
pub mod operator;
pub mod per_entry;
pub mod pool_once;
pub mod provider;
pub mod reduce;
pub mod response;
pub mod server;
pub use segments::sketch;
pub mod sort;
pub mod stats;
pub mod trace;
pub mod vectorised;

pub use context::QueryContext;
pub use error::EngineError;
pub use execute::{execute_plan, execute_sql, plan_sql, reduce_response};
pub use provider::{MemoryTables, TableProvider};
pub use response::BrokerResponse;
