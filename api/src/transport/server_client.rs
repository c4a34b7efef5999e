//! [`ServerClient`]: what a broker asks of a server. [`HttpServerClient`] calls a server in
//! another process (`POST /tessera/query`, the typed values in MessagePack: [`super::wire`]);
//! the server role implements the trait itself for the broker of its own process.

use super::error::{json_body, send_ok, status_error};
use super::{BoxFuture, StageRequest, TransportError, wire};
use engine::server::result::ServerResult;
use planner::plan::ServerQueryPlan;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A broker's request: run `plan` over these segments of one table.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerQuery {
    pub table_name_with_type: String,
    pub segments: Vec<String>,
    /// The CRC of the copy each of `segments` must be (same order; empty: any copy).
    #[serde(default)]
    pub segment_crcs: Vec<u32>,
    /// The incarnation each of `segments` must be (same order; empty or 0: the CRC decides).
    #[serde(default)]
    pub segment_incarnations: Vec<u64>,
    pub plan: Arc<ServerQueryPlan>,
    /// Record per-segment operator traces (`"trace": true`).
    #[serde(default)]
    pub trace: bool,
    /// Whether the server should try the query inline first, within its budget
    /// ([`engine::QueryContext::inline`]): the broker clears it for a plan a server found over
    /// budget before. A broker that does not say asks for the attempt.
    #[serde(default = "yes")]
    pub inline: bool,
}

fn yes() -> bool {
    true
}

/// How a broker asks its servers to run a query, beside the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ask {
    /// Record per-segment operator traces.
    pub trace: bool,
    /// Try it inline first ([`ServerQuery::inline`]).
    pub inline: bool,
}

/// A server, as a broker reaches it.
pub trait ServerClient: Send + Sync {
    /// Runs a v1 server plan over the named segments; segments the server does not host are
    /// `ServerSegmentMissing` exceptions inside the result.
    fn query(&self, q: ServerQuery) -> BoxFuture<'_, Result<ServerResult, TransportError>>;

    /// Starts this server's workers of one stage of a multi-stage query; returns once they
    /// run (they send their rows through the mailboxes, not as this call's answer).
    fn submit_stage(&self, r: StageRequest) -> BoxFuture<'_, Result<(), TransportError>>;

    /// Stops every worker of a multi-stage query on this server.
    fn cancel_query(&self, query_id: u64) -> BoxFuture<'_, Result<(), TransportError>>;

    /// `Ok` once the server showed it is alive and reachable (the broker's probe of a server it
    /// found unreachable: [`super::health`]).
    fn ping(&self) -> BoxFuture<'_, Result<(), TransportError>>;
}

/// A server in another process.
#[derive(Clone)]
pub struct HttpServerClient {
    base_url: String,
    client: surf::Client,
}

impl HttpServerClient {
    /// A client for the server at `base_url` (`http://host:port`).
    pub fn new(base_url: &str, client: surf::Client) -> HttpServerClient {
        HttpServerClient {
            base_url: base_url.trim_end_matches('/').to_string(),
            client,
        }
    }
}

impl ServerClient for HttpServerClient {
    fn query(&self, q: ServerQuery) -> BoxFuture<'_, Result<ServerResult, TransportError>> {
        Box::pin(async move {
            let mut body = surf::Body::from_bytes(wire::encode(&q)?);
            body.set_mime(wire::MSGPACK);
            let mut res = self
                .client
                .post(format!("{}/tessera/query", self.base_url))
                .header("Accept", wire::MSGPACK)
                .body(body)
                .await
                .map_err(|e| TransportError::Unreachable(e.to_string()))?;
            if !res.status().is_success() {
                return Err(status_error(&mut res).await);
            }
            let media_type = res.content_type();
            let bytes = res
                .body_bytes()
                .await
                .map_err(|e| TransportError::Unreachable(e.to_string()))?;
            wire::decode_as::<ServerResult>(&bytes, media_type.as_ref().map(|m| m.essence()))
                .map_err(|e| TransportError::Unreadable(format!("server result: {e}")))
        })
    }

    fn submit_stage(&self, r: StageRequest) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move {
            let url = format!("{}/tessera/stage", self.base_url);
            send_ok(self.client.post(url).body(json_body(&r)?)).await
        })
    }

    fn cancel_query(&self, query_id: u64) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move {
            let url = format!("{}/tessera/cancel?query={query_id}", self.base_url);
            send_ok(self.client.post(url)).await
        })
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move {
            let url = format!("{}/health", self.base_url);
            let probe = send_ok(self.client.get(url));
            async_std::future::timeout(super::query_channel::SILENCE_LIMIT, probe)
                .await
                .unwrap_or_else(|_| {
                    Err(TransportError::Unreachable(format!(
                        "{} did not answer its health check",
                        self.base_url
                    )))
                })
        })
    }
}
