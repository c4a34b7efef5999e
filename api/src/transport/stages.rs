//! The multi-stage engine's traffic between roles: a server's share of a stage
//! ([`StageRequest`], sent through [`super::ServerClient::submit_stage`]) and the mailboxes
//! stage workers send their rows to ([`Mailboxes`]: blocks for a worker of this process go
//! straight into its [`MailboxService`]; blocks for a worker elsewhere are encoded in the
//! engine's binary block format and sent through that process's query port
//! ([`super::QueryChannel::deliver`]), or posted to its `POST /tessera/mailbox` when it has
//! none).

use super::TransportError;
use super::channels::Channels;
use super::error::send_ok;
use engine::EngineError;
use engine::multistage::{BlockSink, MailboxKey, MailboxMessage, MailboxService, codec};
use planner::plan::multistage::{MultiStagePlan, StageId};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::{Arc, RwLock};

/// Where one stage worker runs: its instance, that instance's base URL and, when it has one,
/// its query port (`host:port`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerAddress {
    pub instance: String,
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
}

impl WorkerAddress {
    /// The address the worker's instance is reached at, as [`super::ServerHealth`] knows it:
    /// its query port, else its URL.
    pub fn reached_at(&self) -> &str {
        self.channel.as_deref().unwrap_or(&self.url)
    }
}

/// A server's share of one stage of a multi-stage query.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StageRequest {
    pub query_id: u64,
    pub plan: MultiStagePlan,
    pub stage: StageId,
    /// Per stage id, its workers in order (stage 0: the broker).
    pub workers: Vec<Vec<WorkerAddress>>,
    /// The workers of `stage` this server runs: worker index and, for a leaf stage, its
    /// segments.
    pub assigned: Vec<(usize, Vec<String>)>,
    /// The typed table a leaf stage reads.
    #[serde(default)]
    pub table_name_with_type: Option<String>,
    /// For a half of a hybrid table: the time bound its leaf plan gets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_bound: Option<super::TimeBound>,
}

impl StageRequest {
    /// Number of workers per stage id.
    pub fn worker_counts(&self) -> Vec<usize> {
        self.workers.iter().map(Vec::len).collect()
    }
}

/// The mailboxes of this process and the instances that live here.
pub struct Mailboxes {
    pub service: Arc<MailboxService>,
    local: RwLock<HashSet<String>>,
    http: surf::Client,
    channels: Arc<Channels>,
}

impl Mailboxes {
    /// Mailboxes for the roles of this process, sending to other processes through
    /// `channels`, or with `http` to a process without a query port.
    pub fn new(http: surf::Client, channels: Arc<Channels>) -> Mailboxes {
        Mailboxes {
            service: Arc::new(MailboxService::new()),
            local: RwLock::default(),
            http,
            channels,
        }
    }

    /// Declares instance `id` as living in this process (once, at start).
    pub fn add_local(&self, id: &str) {
        if let Ok(mut l) = self.local.write() {
            l.insert(id.to_string());
        }
    }

    fn is_local(&self, id: &str) -> bool {
        self.local.read().is_ok_and(|l| l.contains(id))
    }

    /// The sink a worker of one query sends through, given every stage's workers.
    pub fn sink(self: &Arc<Self>, workers: Vec<Vec<WorkerAddress>>) -> MailboxRouter {
        MailboxRouter {
            mailboxes: self.clone(),
            workers,
        }
    }

    /// Delivers an encoded message that arrived over HTTP (blocks while the mailbox is full).
    pub fn deliver_encoded(&self, key: &MailboxKey, bytes: &[u8]) -> Result<(), EngineError> {
        let msg = codec::decode(bytes)?;
        self.service.deliver(key, msg)
    }
}

/// Routes each message to the process of its receiving worker.
pub struct MailboxRouter {
    mailboxes: Arc<Mailboxes>,
    workers: Vec<Vec<WorkerAddress>>,
}

impl BlockSink for MailboxRouter {
    fn send(&self, key: &MailboxKey, msg: MailboxMessage) -> Result<(), EngineError> {
        let addr = self
            .workers
            .get(key.to_stage)
            .and_then(|w| w.get(key.to_worker))
            .ok_or_else(|| {
                EngineError::execution(format!(
                    "no worker {} in stage {}",
                    key.to_worker, key.to_stage
                ))
            })?;
        if self.mailboxes.is_local(&addr.instance) {
            // In one process a block is handed over whole, never copied or encoded.
            return self.mailboxes.service.deliver(key, msg);
        }
        // To another process: frames of at most MAX_BLOCK_ROWS rows.
        let frames = match msg {
            MailboxMessage::Data(block) => block
                .split()
                .into_iter()
                .map(MailboxMessage::Data)
                .collect(),
            other => vec![other],
        };
        let channel = addr
            .channel
            .as_deref()
            .map(|a| self.mailboxes.channels.get(a));
        for frame in frames {
            let bytes = codec::encode(&frame);
            // Stage workers run on their own threads, never on the async executor: blocking
            // here is the back-pressure of a remote mailbox.
            let sent = match &channel {
                Some(c) => async_std::task::block_on(c.deliver(key, &bytes)),
                None => async_std::task::block_on(post_mailbox(
                    &self.mailboxes.http,
                    &addr.url,
                    key,
                    bytes,
                )),
            };
            sent.map_err(|e| {
                EngineError::execution(format!(
                    "cannot send to stage {} worker {} on {}: {e}",
                    key.to_stage, key.to_worker, addr.instance
                ))
            })?;
        }
        Ok(())
    }
}

/// The query string naming a mailbox.
pub fn mailbox_query(key: &MailboxKey) -> String {
    format!(
        "query={}&from={}&to={}&worker={}",
        key.query_id, key.from_stage, key.to_stage, key.to_worker
    )
}

async fn post_mailbox(
    http: &surf::Client,
    base_url: &str,
    key: &MailboxKey,
    bytes: Vec<u8>,
) -> Result<(), TransportError> {
    let url = format!("{base_url}/tessera/mailbox?{}", mailbox_query(key));
    let request = http
        .post(&url)
        .body(surf::Body::from_bytes(bytes))
        .content_type("application/octet-stream");
    send_ok(request).await
}

/// A role's state that holds its process's [`Mailboxes`].
pub trait MailboxState: Clone + Send + Sync + 'static {
    fn mailboxes(&self) -> &Arc<Mailboxes>;
}

/// Mounts `POST /tessera/mailbox?query=&from=&to=&worker=` (body: one encoded message).
pub fn mailbox_routes<S: MailboxState>(r: &mut crate::http::routes::Routes<'_, S>) {
    r.group("Internal").post(
        "/tessera/mailbox",
        "Receives one block of a multi-stage query's exchange (query=, from=, to=, worker=)",
        receive::<S>,
    );
}

/// Largest encoded message accepted (a block is a few MiB at most).
const MAX_MESSAGE_BYTES: u64 = 256 << 20;

async fn receive<S: MailboxState>(mut req: tide::Request<S>) -> tide::Result {
    use crate::http::ApiError;
    use crate::http::body::{query_param, read_bounded};
    let number = |name: &str| -> Result<u64, ApiError> {
        query_param(&req, name)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| ApiError::bad_request(format!("missing or bad '{name}'")))
    };
    let key = MailboxKey {
        query_id: number("query")?,
        from_stage: number("from")? as usize,
        to_stage: number("to")? as usize,
        to_worker: number("worker")? as usize,
    };
    let bytes = read_bounded(&mut req, MAX_MESSAGE_BYTES).await?;
    let mailboxes = req.state().mailboxes().clone();
    async_std::task::spawn_blocking(move || mailboxes.deliver_encoded(&key, &bytes))
        .await
        .map_err(|e| ApiError::new(410, e.to_string()))?;
    Ok("OK".into())
}
