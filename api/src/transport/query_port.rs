//! A process's query port: where brokers and servers in other processes send query traffic,
//! over the framed TCP protocol of [`super::frames`] (Pinot's servers likewise take queries,
//! and its brokers and servers multi-stage mailbox traffic, on ports of their own apart from
//! their admin API). A server's port takes v1 queries, stage submissions, cancellations and
//! mailbox blocks; a broker's, the mailbox blocks its multi-stage queries' root stage receives.
//!
//! Each connection opens with a hello (protocol version, and the `Authorization` value checked
//! as the role's HTTP endpoints check it when access control is on). Then every request runs
//! as a task of its own — a query through the server's [`ServerClient`] (as
//! `POST /tessera/query` runs it), a block into [`Mailboxes`] (waiting while the mailbox is
//! full, as `POST /tessera/mailbox` does) — and its reply (or failure, with the status the
//! HTTP endpoint would answer) goes back under the request's id when it is ready, through the
//! connection's one writer. A request over its size limit is read past and answered 413 under
//! its id; a reply kind sent as a request, or bytes that are no frame, end the connection.

use super::frames::{self, Frame, FrameError, Kind};
use super::{Mailboxes, ServerClient, ServerQuery, StageRequest, TransportError};
use crate::auth::{AccessType, Auth, Role};
use crate::tls::Stream;
use async_std::channel::{Receiver, Sender};
use async_std::net::{TcpListener, TcpStream};
use futures_lite::FutureExt;
use std::sync::Arc;

/// Largest request frame read, but for blocks (as the HTTP endpoints read bodies).
const MAX_REQUEST_BYTES: usize = 64 << 20;

/// Largest block frame read (a block is a few MiB at most).
const MAX_BLOCK_BYTES: usize = 256 << 20;

/// Largest hello.
const MAX_HELLO_BYTES: usize = 64 << 10;

/// What a query port serves.
#[derive(Clone)]
pub struct PortRole {
    /// The server of this process, for queries and stages (`None` on a broker's port).
    pub server: Option<Arc<dyn ServerClient>>,
    /// The mailboxes blocks go to.
    pub mailboxes: Arc<Mailboxes>,
    /// Access control, and the role whose principals it admits.
    pub auth: Option<Arc<Auth>>,
    pub role: Role,
}

/// Serves the query port on `listener` until `stopped` closes (its sender dropped); then open
/// connections end too, after the requests under way have replied.
pub async fn serve(
    port: PortRole,
    listener: std::net::TcpListener,
    stopped: Receiver<()>,
) -> std::io::Result<()> {
    let listener = TcpListener::from(listener);
    loop {
        let accepted = async { Some(listener.accept().await) }
            .or(async {
                let _ = stopped.recv().await;
                None
            })
            .await;
        let Some(accepted) = accepted else {
            return Ok(());
        };
        match accepted {
            Ok((stream, _)) => {
                async_std::task::spawn(connection(port.clone(), stream, stopped.clone()));
            }
            // A connection that failed while being accepted (reset, out of descriptors) is
            // that connection's problem; the port keeps serving.
            Err(e) => {
                log::warn!("query port: accept failed: {e}");
                async_std::task::sleep(std::time::Duration::from_millis(10)).await;
            }
        }
    }
}

/// One caller's connection (after its TLS handshake, when the process speaks TLS).
async fn connection(port: PortRole, tcp: TcpStream, stopped: Receiver<()>) {
    let _ = tcp.set_nodelay(true);
    let stream = match Stream::accept(tcp).await {
        Ok(s) => s,
        Err(e) => {
            log::debug!("query port: TLS handshake failed: {e}");
            return;
        }
    };
    let (outbox, queued) = async_std::channel::unbounded();
    let mut w = stream.clone();
    async_std::task::spawn(async move {
        let _ = frames::write_all(&mut w, &queued).await;
        let _ = w.tcp().shutdown(std::net::Shutdown::Both);
    });
    let mut r = async_std::io::BufReader::with_capacity(64 << 10, stream);
    match next(&mut r, |_| MAX_HELLO_BYTES, &stopped).await {
        Ok(Frame {
            kind: Kind::Hello,
            payload,
            ..
        }) => {
            if let Err((status, why)) = admit(&payload, &port) {
                let _ = outbox.send(frames::failure(0, status, &why)).await;
                return;
            }
        }
        Ok(_) => {
            let why = "a query channel opens with a hello";
            let _ = outbox.send(frames::failure(0, 400, why)).await;
            return;
        }
        Err(FrameError::Closed | FrameError::Io(_)) => return,
        Err(e) => {
            let _ = outbox.send(frames::failure(0, 400, &e.to_string())).await;
            return;
        }
    }
    let limit = |kind| match kind {
        Kind::Block => MAX_BLOCK_BYTES,
        _ => MAX_REQUEST_BYTES,
    };
    loop {
        match next(&mut r, limit, &stopped).await {
            Ok(Frame { id, kind, payload })
                if matches!(kind, Kind::Query | Kind::Stage | Kind::Cancel | Kind::Block) =>
            {
                async_std::task::spawn(reply(port.clone(), id, kind, payload, outbox.clone()));
            }
            // Answered here, not by a task: a caller's proof that this process is alive
            // however long its requests take.
            Ok(Frame {
                id,
                kind: Kind::Ping,
                ..
            }) => {
                let _ = outbox.send(frames::encode(id, Kind::Done, &[])).await;
            }
            Ok(Frame { id, kind, .. }) => {
                let why = format!("{kind:?} frame where a request was expected");
                let _ = outbox.send(frames::failure(id, 400, &why)).await;
                return;
            }
            Err(FrameError::TooLarge { id, bytes, limit }) => {
                let why = format!("request of {bytes} bytes, over the limit of {limit}");
                let _ = outbox.send(frames::failure(id, 413, &why)).await;
            }
            Err(FrameError::Closed) => return,
            Err(e) => {
                let _ = outbox.send(frames::failure(0, 400, &e.to_string())).await;
                return;
            }
        }
    }
}

/// The next frame, or `Closed` once the port stops.
async fn next(
    r: &mut async_std::io::BufReader<Stream>,
    limit: impl Fn(Kind) -> usize,
    stopped: &Receiver<()>,
) -> Result<Frame, FrameError> {
    frames::read(r, limit)
        .or(async {
            let _ = stopped.recv().await;
            Err(FrameError::Closed)
        })
        .await
}

/// Whether a hello may open a channel: a known version and, with access control on, a
/// principal of the port's role allowed what the role's internal HTTP endpoints need.
fn admit(hello: &[u8], port: &PortRole) -> Result<(), (u16, String)> {
    let (version, authorization) = frames::read_hello(hello).map_err(|e| (400, e))?;
    if version != frames::VERSION {
        return Err((
            400,
            format!(
                "query channel version {version} is not supported (this process speaks {})",
                frames::VERSION
            ),
        ));
    }
    let Some(auth) = &port.auth else {
        return Ok(());
    };
    match auth.authenticate(port.role, authorization) {
        None => Err((401, "HTTP 401 Unauthorized".into())),
        Some(p) if !p.has_permission(AccessType::Create) => {
            Err((403, "Permission is denied for query channel".into()))
        }
        Some(_) => Ok(()),
    }
}

/// Serves one request and queues its reply.
async fn reply(port: PortRole, id: u64, kind: Kind, payload: Vec<u8>, outbox: Sender<Vec<u8>>) {
    let frame = match serve_request(&port, id, kind, payload).await {
        Ok(frame) => frame,
        Err(TransportError::Status { status, message }) => frames::failure(id, status, &message),
        Err(e) => frames::failure(id, 500, &e.to_string()),
    };
    let _ = outbox.send(frame).await;
}

/// What request `id` does, and its reply frame: the answer to a query, done for the others.
async fn serve_request(
    port: &PortRole,
    id: u64,
    kind: Kind,
    payload: Vec<u8>,
) -> Result<Vec<u8>, TransportError> {
    let done = || frames::encode(id, Kind::Done, &[]);
    let bad = |what: &str, e: String| TransportError::Status {
        status: 400,
        message: format!("Invalid {what}: {e}"),
    };
    let server = || {
        port.server.as_ref().ok_or(TransportError::Status {
            status: 404,
            message: format!("{kind:?} requests go to a server's query port"),
        })
    };
    match kind {
        Kind::Query => {
            let q: ServerQuery =
                super::wire::decode(&payload).map_err(|e| bad("server query", e.to_string()))?;
            let result = server()?.query(q).await?;
            Ok(frames::encode_msgpack(id, Kind::Answer, &result)
                .unwrap_or_else(|e| frames::failure(id, 500, &format!("unwritable answer: {e}"))))
        }
        Kind::Stage => {
            let r: StageRequest = serde_json::from_slice(&payload)
                .map_err(|e| bad("stage request", e.to_string()))?;
            server()?.submit_stage(r).await.map(|_| done())
        }
        Kind::Cancel => {
            let query_id = <[u8; 8]>::try_from(payload.as_slice())
                .map(u64::from_be_bytes)
                .map_err(|_| bad("cancellation", "not a query id".into()))?;
            server()?.cancel_query(query_id).await.map(|_| done())
        }
        Kind::Block => {
            let (key, message) = frames::read_block(&payload).map_err(|e| bad("block", e))?;
            let at = payload.len() - message.len();
            let mailboxes = port.mailboxes.clone();
            // Delivery waits while the mailbox is full: off the executor's threads.
            async_std::task::spawn_blocking(move || {
                mailboxes.deliver_encoded(&key, &payload[at..])
            })
            .await
            .map_err(|e| TransportError::Status {
                status: 410,
                message: e.to_string(),
            })?;
            Ok(done())
        }
        Kind::Hello | Kind::Answer | Kind::Failure | Kind::Done | Kind::Ping => {
            Err(bad("request", format!("{kind:?} is not a request")))
        }
    }
}
