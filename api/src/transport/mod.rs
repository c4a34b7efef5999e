//! How one role reaches another. Each seam is a trait with an HTTP implementation (roles in
//! separate processes) and an in-process one (the role itself, called directly with the same
//! typed values and no serialization). Which one a role holds is decided once, when
//! [`crate::cluster`] starts the roles; no role imports another role to take a shortcut.
//!
//! * [`server_client`] — [`ServerClient`]: run a v1 server plan over some segments (and, with
//!   the multi-stage engine, stages and their mailboxes); [`ServerQuery`] is the wire shape.
//! * [`query_channel`] — [`QueryChannel`]: one multiplexed TCP connection to another process's
//!   query port, for v1 queries, stage submissions and mailbox blocks ([`frames`]);
//!   [`TcpServerClient`] reaches a server through one; [`channels`] keeps one per address.
//! * [`query_port`] — the receiving side: a broker's or server's query port.
//! * [`health`] — [`ServerHealth`]: servers found unreachable (refused, reset, or silent on
//!   their query channel), avoided while they have replicas and probed until they answer.
//! * [`controller_client`] — [`ControllerClient`]: routing tables, the table catalog,
//!   registration, heartbeats with their assignment, segment downloads.
//! * [`controller_pool`] — [`ControllerPool`]: any live controller of several sharing a
//!   ZooKeeper store, the next one when a call cannot reach one.
//! * [`presence`] — [`Announcing`]: a broker's or server's controller client that also keeps it
//!   in the store's live instances.
//! * [`servers`] — [`ServerDirectory`]: the client for a server id, in-process when that server
//!   runs in this process, else through its query port (HTTP when it announced none).
//! * [`stages`] — the multi-stage engine's traffic: a server's share of a stage
//!   ([`StageRequest`]) and the [`Mailboxes`] stage workers send their blocks to, in-process
//!   or over HTTP in the engine's binary block encoding.
//! * [`consumer_info`] — what servers and the controller report of consuming segments.
//! * [`time_bound`] — [`TimeBound`]: one half of a hybrid table, attached to its plan.
//! * [`wire`] — the MessagePack bytes of v1 queries and answers between processes.
//! * [`error`] — [`TransportError`], what a failed call reports.

pub mod channels;
pub mod consumer_info;
pub mod controller_client;
pub mod controller_pool;
pub mod error;
pub mod frames;
pub mod health;
pub mod minion_tasks;
pub mod presence;
pub mod query_channel;
pub mod query_port;
pub mod server_client;
pub mod servers;
pub mod stages;
pub mod time_bound;
pub mod wire;

pub use crate::common::BoxFuture;
pub use channels::Channels;
pub use controller_client::{
    Assignment, CommitOutcome, ControllerClient, Heartbeat, HttpControllerClient, RealtimeSetup,
    Registration, RoutingError, SegmentCommit,
};
pub use controller_pool::ControllerPool;
pub use error::TransportError;
pub use health::ServerHealth;
pub use presence::Announcing;
pub use query_channel::{QueryChannel, TcpServerClient};
pub use server_client::{Ask, HttpServerClient, ServerClient, ServerQuery};
pub use servers::ServerDirectory;
pub use stages::{Mailboxes, StageRequest, WorkerAddress};
pub use time_bound::TimeBound;
