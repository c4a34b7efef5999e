//! The server's query port: where brokers in other processes send v1 queries, over the framed
//! TCP protocol of [`crate::transport::frames`] (Pinot's servers likewise take queries on a
//! port of their own, apart from their admin API).
//!
//! Each connection opens with a hello (protocol version, and the `Authorization` value the
//! server checks as it would on `POST /tessera/query` when access control is on). Then every
//! query frame runs as a task of its own through [`super::run_query`], as the HTTP endpoint
//! runs it, and its answer (or failure, with the status the endpoint would answer) goes back
//! under the query's id when it is ready, through the connection's one writer. A query over
//! the size limit is read past and answered 413 under its id; a frame that is not a query, or
//! bytes that are no frame, end the connection.

use super::ServerState;
use crate::auth::{AccessType, Auth, Role};
use crate::transport::ServerQuery;
use crate::transport::frames::{self, Frame, FrameError, Kind};
use async_std::channel::{Receiver, Sender};
use async_std::net::{TcpListener, TcpStream};
use futures_lite::FutureExt;
use std::sync::Arc;

/// Largest query frame a server reads (as `POST /tessera/query` reads bodies).
const MAX_QUERY_BYTES: usize = 64 << 20;

/// Largest hello.
const MAX_HELLO_BYTES: usize = 64 << 10;

/// Serves the query port on `listener` until `stopped` closes (its sender dropped); then open
/// connections end too, after the queries under way have answered.
pub async fn serve(
    server: ServerState,
    listener: std::net::TcpListener,
    auth: Option<Arc<Auth>>,
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
                async_std::task::spawn(connection(
                    server.clone(),
                    stream,
                    auth.clone(),
                    stopped.clone(),
                ));
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

/// One broker's connection.
async fn connection(
    server: ServerState,
    stream: TcpStream,
    auth: Option<Arc<Auth>>,
    stopped: Receiver<()>,
) {
    let _ = stream.set_nodelay(true);
    let (outbox, queued) = async_std::channel::unbounded();
    let mut w = stream.clone();
    async_std::task::spawn(async move {
        let _ = frames::write_all(&mut w, &queued).await;
        let _ = w.shutdown(std::net::Shutdown::Both);
    });
    let mut r = async_std::io::BufReader::with_capacity(64 << 10, stream);
    match next(&mut r, MAX_HELLO_BYTES, &stopped).await {
        Ok(Frame {
            kind: Kind::Hello,
            payload,
            ..
        }) => {
            if let Err((status, why)) = admit(&payload, auth.as_deref()) {
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
    loop {
        match next(&mut r, MAX_QUERY_BYTES, &stopped).await {
            Ok(Frame {
                id,
                kind: Kind::Query,
                payload,
            }) => {
                async_std::task::spawn(answer(server.clone(), id, payload, outbox.clone()));
            }
            Ok(Frame { id, kind, .. }) => {
                let why = format!("{kind:?} frame where a query was expected");
                let _ = outbox.send(frames::failure(id, 400, &why)).await;
                return;
            }
            Err(FrameError::TooLarge { id, bytes, limit }) => {
                let why = format!("query of {bytes} bytes, over the limit of {limit}");
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
    r: &mut async_std::io::BufReader<TcpStream>,
    max_bytes: usize,
    stopped: &Receiver<()>,
) -> Result<Frame, FrameError> {
    frames::read(r, max_bytes)
        .or(async {
            let _ = stopped.recv().await;
            Err(FrameError::Closed)
        })
        .await
}

/// Whether a hello may open a channel: a known version and, with access control on, a
/// principal of the server role allowed what `POST /tessera/query` needs.
fn admit(hello: &[u8], auth: Option<&Auth>) -> Result<(), (u16, String)> {
    let (version, authorization) = frames::read_hello(hello).map_err(|e| (400, e))?;
    if version != frames::VERSION {
        return Err((
            400,
            format!(
                "query channel version {version} is not supported (this server speaks {})",
                frames::VERSION
            ),
        ));
    }
    let Some(auth) = auth else {
        return Ok(());
    };
    match auth.authenticate(Role::Server, authorization) {
        None => Err((401, "HTTP 401 Unauthorized".into())),
        Some(p) if !p.has_permission(AccessType::Create) => {
            Err((403, "Permission is denied for query channel".into()))
        }
        Some(_) => Ok(()),
    }
}

/// Runs one query and queues its answer.
async fn answer(server: ServerState, id: u64, payload: Vec<u8>, outbox: Sender<Vec<u8>>) {
    let frame = match crate::transport::wire::decode::<ServerQuery>(&payload) {
        Err(e) => frames::failure(id, 400, &format!("Invalid server query: {e}")),
        Ok(q) => match super::run_query(&server, q).await {
            Ok(result) => frames::encode_msgpack(id, Kind::Answer, &result)
                .unwrap_or_else(|e| frames::failure(id, 500, &format!("unwritable answer: {e}"))),
            Err(e) => frames::failure(id, e.status, &e.message),
        },
    };
    let _ = outbox.send(frame).await;
}
