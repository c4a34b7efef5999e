//! Tessera's SQL front end: SQL text to plans that can cross the network.
//!
//! `SQL --nom--> ast --binder(Catalog)--> LogicalPlan --rules--> QueryPlan`
//!
//! * [`sql`] — the nom grammar and the AST it produces.
//! * [`options`] — `SET k=v;`, `OPTION(...)` and request `queryOptions` as one typed struct.
//! * [`plan`] — binder, logical plan and the single-/multi-stage query plans.

pub mod functions;
pub mod options;
pub mod plan;
pub mod sql;
