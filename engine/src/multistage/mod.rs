//! The multi-stage (v2) runtime: one worker of one stage of a
//! [`MultiStagePlan`](planner::plan::multistage::MultiStagePlan) at a time.
//!
//! ```text
//!  leaf worker (server)               intermediate / root worker
//!  execute_server(v1 plan) ─columns─► send: partition by the receiver's Distribution
//!                                           │  DataBlock ─ codec (binary frames) ─► HTTP
//!                                           └──── whole block ─► MailboxService (same process)
//!                                  receive ◄─ mailbox(query, from stage, to stage, worker)
//!                                  operators (project, filter, aggregate, sort, …) ─► send
//! ```
//!
//! * [`block`] — [`DataBlock`]: the columnar unit between operators and stages, made of
//!   [`crate::column::Column`]s (numbers unboxed, dictionary text coded, other values boxed, a
//!   partial aggregate's column as aggregation states).
//! * [`codec`] — the compact binary encoding of blocks and mailbox messages.
//! * [`evaluate`] — expressions over a block's inputs, a column at a time: a block as the
//!   shared evaluator ([`crate::vectorised`]) reads it.
//! * [`filter_rows`] — the rows an aggregate's `FILTER (WHERE …)` keeps, over joined rows.
//! * [`group_states`] — one aggregate's states per group, through the v1 accumulators.
//! * [`hash_table`] — hash tables of row indices for grouping and hash joins.
//! * [`key_set`] — runtime key filters: the keys a join publishes to the leaf feeding its
//!   other side, and the `IN` filter the leaf adds.
//! * [`mailbox`] — [`MailboxService`] (bounded per-worker queues: back-pressure, cancellation)
//!   and [`BlockSink`], where a worker's output goes.
//! * [`operators`] — the relational operators of a stage, evaluated over the stage's inputs.
//! * [`sort`] — the sort operator: typed key columns (coded text by dictionary rank), a large
//!   sort on the pool.
//! * [`window`] — window functions over sorted partitions, each call in time linear in its
//!   rows for the frames users write.
//! * [`stats`] — `stageStats`: each operator's time and rows, per stage, merged over workers.
//! * [`runner`] — [`run_worker`], [`run_root`] and [`run_local`]: a stage worker on a
//!   server, the root stage on the broker, and a whole plan in one process.
//!
//! Workers block on their mailboxes, so each runs on its own thread, never on the rayon pool
//! that leaf segments use. A failed worker sends its error downstream instead of data; the root
//! then cancels the query everywhere.

pub mod aggregate;
pub mod asof;
pub mod block;
pub mod codec;
pub mod evaluate;
pub mod filter_rows;
pub mod group_states;
pub mod hash_table;
pub mod key_set;
pub mod mailbox;
pub mod operators;
pub mod runner;
pub mod sort;
pub mod stats;
pub mod window;

pub use block::{Column, DataBlock};
pub use mailbox::{BlockSink, MailboxKey, MailboxMessage, MailboxService};
pub use runner::{WorkerStats, run_local, run_root, run_worker};
