//! [`QueryChannel`]: a process's connection to another's query port, and [`TcpServerClient`],
//! the [`ServerClient`] that reaches a server through it.
//!
//! One TCP connection per pair carries every request one process sends the other — v1
//! queries, stage submissions and cancellations, mailbox blocks — each under its own request id
//! ([`super::frames`]): a request costs one frame each way instead of an HTTP request and
//! response, frames that queue while a write is under way leave in one write, and replies that
//! arrive together are read in one. A reader task hands each reply to the request waiting for
//! its id; when the connection ends, every request still waiting gets the reason, and the next
//! opens a new connection. A request whose caller gives up (the broker's timeout) forgets its
//! id, so a late reply is dropped. Queries and cancellations that break off on a connection
//! earlier requests used are sent once more (the server may have restarted since); a stage or a
//! block never is: run twice, it would double rows.
//!
//! A peer that stops answering without closing — its host cut off by the network, its process
//! stopped — is found out in [`SILENCE_LIMIT`], not at the caller's timeout: while requests wait,
//! a watchdog pings the peer whenever [`PING_EVERY`] passes without a byte from it (the peer's
//! reader answers pings at once, however long its requests run), and ends the connection when
//! nothing has come for [`SILENCE_LIMIT`]. Its requests then fail as unreachable, which a broker
//! answers by asking another replica ([`super::health`]).

use super::frames::{self, Frame, FrameError, Kind};
use super::{BoxFuture, ServerClient, ServerQuery, StageRequest, TransportError};
use crate::tls::Stream;
use async_std::channel::{Receiver, Sender};
use engine::multistage::MailboxKey;
use engine::server::result::ServerResult;
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// Largest answer frame a broker reads (a server's answer is bounded by the broker's limits on
/// groups and rows long before this).
const MAX_ANSWER_BYTES: usize = u32::MAX as usize;

/// How long opening a connection may take (a host whose network drops packets never answers
/// the connect).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long requests wait without a byte from the peer before the watchdog pings it.
pub const PING_EVERY: Duration = Duration::from_millis(200);

/// How long requests wait without a byte from the peer (pings unanswered) before the
/// connection is given up as dead.
pub const SILENCE_LIMIT: Duration = Duration::from_millis(1000);

/// A request's reply (its kind and payload), or why there is none.
type Reply = Result<(Kind, Vec<u8>), TransportError>;

/// The connection to one server's query port, opened on first use and again after it ends.
pub struct QueryChannel {
    address: String,
    authorization: Option<String>,
    connection: async_lock::Mutex<Option<Arc<Connection>>>,
}

/// One open connection: frames to write, and the queries waiting for answers.
struct Connection {
    outbox: Sender<Vec<u8>>,
    next_id: AtomicU64,
    state: Arc<Mutex<Waiting>>,
    /// When the peer last sent a byte, or a request started waiting on an idle connection.
    heard: Arc<Clock>,
    /// Ended by the watchdog: the peer fell silent (not restarted — asking it again on a new
    /// connection would only wait again).
    silent: std::sync::atomic::AtomicBool,
}

/// An instant kept as milliseconds since the connection opened, shared by its tasks.
struct Clock {
    opened: Instant,
    at_ms: AtomicU64,
}

impl Clock {
    fn new() -> Clock {
        Clock {
            opened: Instant::now(),
            at_ms: AtomicU64::new(0),
        }
    }

    fn stamp(&self) {
        let ms = self.opened.elapsed().as_millis() as u64;
        self.at_ms.fetch_max(ms, Ordering::Relaxed);
    }

    /// Time since the last stamp.
    fn since(&self) -> Duration {
        let now = self.opened.elapsed().as_millis() as u64;
        Duration::from_millis(now.saturating_sub(self.at_ms.load(Ordering::Relaxed)))
    }
}

/// A connection's reading side that stamps its [`Clock`] whenever bytes arrive (a long answer
/// still arriving is a sign of life before its frame is whole).
struct Heard {
    stream: Stream,
    clock: Arc<Clock>,
}

impl futures_lite::AsyncRead for Heard {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<std::io::Result<usize>> {
        let read = Pin::new(&mut self.stream).poll_read(cx, buf);
        if let Poll::Ready(Ok(n)) = &read
            && *n > 0
        {
            self.clock.stamp();
        }
        read
    }
}

/// The queries of a connection still waiting, or why the connection ended.
#[derive(Default)]
struct Waiting {
    replies: HashMap<u64, Sender<Reply>>,
    ended: Option<TransportError>,
}

/// Forgets a query's id when its caller stops waiting (answered, failed or given up).
struct Forget<'a> {
    state: &'a Mutex<Waiting>,
    id: u64,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        if let Ok(mut w) = self.state.lock() {
            w.replies.remove(&self.id);
        }
    }
}

impl QueryChannel {
    /// A channel to the query port at `address` (`host:port`), saying `authorization` in its
    /// hello when access control is on.
    pub fn new(address: &str, authorization: Option<String>) -> QueryChannel {
        QueryChannel {
            address: address.to_string(),
            authorization,
            connection: async_lock::Mutex::new(None),
        }
    }

    /// Whether the last connection ended and no query has opened another since.
    pub fn has_ended(&self) -> bool {
        self.connection
            .try_lock()
            .is_some_and(|c| c.as_ref().is_some_and(|c| c.has_ended()))
    }

    /// Runs `q` on the server.
    pub async fn query(&self, q: &ServerQuery) -> Result<ServerResult, TransportError> {
        let frame = |id| frames::encode_msgpack(id, Kind::Query, q);
        let payload = self.again_if_stale(&frame, Kind::Answer).await?;
        super::wire::decode::<ServerResult>(&payload)
            .map_err(|e| TransportError::Unreadable(format!("server result: {e}")))
    }

    /// Starts the server's workers of one stage; returns once they run.
    pub async fn submit_stage(&self, r: &StageRequest) -> Result<(), TransportError> {
        let json = serde_json::to_vec(r).map_err(|e| TransportError::Unreadable(e.to_string()))?;
        let frame = |id| Ok(frames::encode(id, Kind::Stage, &json));
        self.once(&frame, Kind::Done).await.map(drop)
    }

    /// Stops every worker of multi-stage query `query_id` on the server.
    pub async fn cancel(&self, query_id: u64) -> Result<(), TransportError> {
        let frame = |id| Ok(frames::encode(id, Kind::Cancel, &query_id.to_be_bytes()));
        self.again_if_stale(&frame, Kind::Done).await.map(drop)
    }

    /// Hands one encoded mailbox message to the receiver's mailbox `key`; returns once the
    /// mailbox took it (while it is full, this waits).
    pub async fn deliver(&self, key: &MailboxKey, message: &[u8]) -> Result<(), TransportError> {
        let frame = |id| Ok(frames::block(id, key, message));
        self.once(&frame, Kind::Done).await.map(drop)
    }

    /// Sends a request that must not run twice: a connection that breaks off fails it.
    async fn once(
        &self,
        frame: &(dyn Fn(u64) -> Result<Vec<u8>, String> + Sync),
        expect: Kind,
    ) -> Result<Vec<u8>, TransportError> {
        let (connection, _) = self.connection().await?;
        self.call(&connection, frame, expect).await
    }

    /// Sends a request that may run twice; one that breaks off on a connection earlier
    /// requests used (the receiver restarted since) is sent once more, on a new connection.
    async fn again_if_stale(
        &self,
        frame: &(dyn Fn(u64) -> Result<Vec<u8>, String> + Sync),
        expect: Kind,
    ) -> Result<Vec<u8>, TransportError> {
        let (connection, reused) = self.connection().await?;
        match self.call(&connection, frame, expect).await {
            Err(TransportError::Unreachable(_))
                if reused && !connection.silent.load(Ordering::Relaxed) =>
            {
                let (fresh, _) = self.connection().await?;
                self.call(&fresh, frame, expect).await
            }
            other => other,
        }
    }

    /// Sends the request `frame` builds for its id and waits for its reply, which must be of
    /// kind `expect`; its payload.
    async fn call(
        &self,
        connection: &Connection,
        frame: &(dyn Fn(u64) -> Result<Vec<u8>, String> + Sync),
        expect: Kind,
    ) -> Result<Vec<u8>, TransportError> {
        let id = connection.next_id.fetch_add(1, Ordering::Relaxed);
        let frame = frame(id).map_err(TransportError::Unreadable)?;
        let (tx, rx) = async_std::channel::bounded(1);
        {
            let mut w = connection
                .state
                .lock()
                .map_err(|_| TransportError::Unreachable("query channel poisoned".into()))?;
            if let Some(why) = &w.ended {
                return Err(why.clone());
            }
            if w.replies.is_empty() {
                // The silence the watchdog measures starts now, not at the last reply.
                connection.heard.stamp();
            }
            w.replies.insert(id, tx);
        }
        let _forget = Forget {
            state: &connection.state,
            id,
        };
        if connection.outbox.send(frame).await.is_err() {
            return Err(self.closed());
        }
        match rx.recv().await {
            Ok(Ok((kind, payload))) if kind == expect => Ok(payload),
            Ok(Ok((kind, _))) => Err(TransportError::Unreadable(format!(
                "{} replied {kind:?} where {expect:?} was due",
                self.address
            ))),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(self.closed()),
        }
    }

    fn closed(&self) -> TransportError {
        TransportError::Unreachable(format!("connection to {} closed", self.address))
    }

    /// The open connection, or a new one; `true` with one that served earlier queries.
    async fn connection(&self) -> Result<(Arc<Connection>, bool), TransportError> {
        let mut slot = self.connection.lock().await;
        if let Some(c) = slot.as_ref().filter(|c| !c.has_ended()) {
            return Ok((c.clone(), true));
        }
        let c = self.open().await?;
        *slot = Some(c.clone());
        Ok((c, false))
    }

    async fn open(&self) -> Result<Arc<Connection>, TransportError> {
        let unreachable =
            |e: std::io::Error| TransportError::Unreachable(format!("{}: {e}", self.address));
        let (host, port) = self
            .address
            .rsplit_once(':')
            .and_then(|(h, p)| Some((h, p.parse::<u16>().ok()?)))
            .ok_or_else(|| {
                TransportError::Unreachable(format!("'{}' is not host:port", self.address))
            })?;
        // TLS when this process speaks it (every role of the cluster does).
        let stream = Stream::connect(host, port, CONNECT_TIMEOUT, crate::tls::current().is_some())
            .await
            .map_err(unreachable)?;
        let (outbox, queued) = async_std::channel::unbounded();
        // The hello leaves first: the writer has not started yet.
        let _ = outbox.try_send(frames::hello(self.authorization.as_deref()));
        let state = Arc::new(Mutex::new(Waiting::default()));
        let heard = Arc::new(Clock::new());
        async_std::task::spawn(write(stream.clone(), queued));
        let reading = Heard {
            stream: stream.clone(),
            clock: heard.clone(),
        };
        async_std::task::spawn(read(reading, state.clone(), self.address.clone()));
        let connection = Arc::new(Connection {
            outbox,
            next_id: AtomicU64::new(1),
            state,
            heard,
            silent: std::sync::atomic::AtomicBool::new(false),
        });
        async_std::task::spawn(watch(
            Arc::downgrade(&connection),
            stream,
            self.address.clone(),
        ));
        Ok(connection)
    }

    /// Asks the peer for a sign of life: `Ok` once it answered (within [`SILENCE_LIMIT`], or
    /// the watchdog ends the connection).
    pub async fn ping(&self) -> Result<(), TransportError> {
        let frame = |id| Ok(frames::encode(id, Kind::Ping, &[]));
        self.again_if_stale(&frame, Kind::Done).await.map(drop)
    }
}

impl Connection {
    fn has_ended(&self) -> bool {
        self.state.lock().map_or(true, |w| w.ended.is_some())
    }
}

/// Ends a connection's waiting: records why (the first reason stays) and hands it to every
/// request still waiting.
fn end(state: &Mutex<Waiting>, why: TransportError) {
    let waiting = match state.lock() {
        Ok(mut w) => {
            let why = w.ended.get_or_insert(why).clone();
            std::mem::take(&mut w.replies)
                .into_values()
                .map(|tx| (tx, why.clone()))
                .collect()
        }
        Err(_) => Vec::new(),
    };
    for (tx, why) in waiting {
        let _ = tx.try_send(Err(why));
    }
}

/// A connection's watchdog: while requests wait, pings the peer after [`PING_EVERY`] without a
/// byte from it, and ends the connection after [`SILENCE_LIMIT`]; stops when the connection
/// ends or is dropped.
async fn watch(connection: Weak<Connection>, stream: Stream, address: String) {
    loop {
        async_std::task::sleep(PING_EVERY / 2).await;
        let Some(c) = connection.upgrade() else {
            return;
        };
        let waiting = match c.state.lock() {
            Ok(w) if w.ended.is_none() => !w.replies.is_empty(),
            _ => return,
        };
        let silent = c.heard.since();
        if !waiting || silent < PING_EVERY {
            continue;
        }
        if silent >= SILENCE_LIMIT {
            let why = format!("{address} sent nothing for {} ms", silent.as_millis());
            c.silent.store(true, Ordering::Relaxed);
            end(&c.state, TransportError::Unreachable(why));
            let _ = stream.tcp().shutdown(std::net::Shutdown::Both);
            return;
        }
        // The reply (Done, under an id nobody waits for) is dropped by the reader; its bytes
        // are what counts.
        let id = c.next_id.fetch_add(1, Ordering::Relaxed);
        let _ = c.outbox.try_send(frames::encode(id, Kind::Ping, &[]));
    }
}

/// Writes a connection's frames; when writing fails, ends the connection both ways so its
/// reader sees the end too.
async fn write(mut stream: Stream, queued: Receiver<Vec<u8>>) {
    let result = frames::write_all(&mut stream, &queued).await;
    let how = if result.is_err() {
        std::net::Shutdown::Both
    } else {
        // Every sender is gone: no more queries; the server closes its side in turn.
        std::net::Shutdown::Write
    };
    let _ = stream.tcp().shutdown(how);
}

/// Reads answers and hands each to its query, until the connection ends; then every query
/// still waiting gets the reason.
async fn read(reading: Heard, state: Arc<Mutex<Waiting>>, address: String) {
    let stream = reading.stream.clone();
    let mut r = async_std::io::BufReader::with_capacity(64 << 10, reading);
    let why = loop {
        let frame = match frames::read(&mut r, |_| MAX_ANSWER_BYTES).await {
            Ok(f) => f,
            Err(FrameError::Closed) => {
                break TransportError::Unreachable(format!("connection to {address} closed"));
            }
            Err(e) => break TransportError::Unreachable(format!("{address}: {e}")),
        };
        let Frame { id, kind, payload } = frame;
        let reply = match kind {
            Kind::Answer | Kind::Done => Ok((kind, payload)),
            Kind::Failure => {
                let (status, message) = frames::read_failure(&payload);
                let e = TransportError::Status { status, message };
                if id == 0 {
                    break e;
                }
                Err(e)
            }
            Kind::Hello | Kind::Query | Kind::Stage | Kind::Cancel | Kind::Block | Kind::Ping => {
                break TransportError::Unreadable(format!(
                    "{address} sent a {kind:?} frame as a reply"
                ));
            }
        };
        let waiting = state.lock().ok().and_then(|mut w| w.replies.remove(&id));
        if let Some(tx) = waiting {
            let _ = tx.try_send(reply);
        }
    };
    let _ = stream.tcp().shutdown(std::net::Shutdown::Both);
    end(&state, why);
}

/// A server in another process, reached through its query port.
pub struct TcpServerClient(pub Arc<QueryChannel>);

impl ServerClient for TcpServerClient {
    fn query(&self, q: ServerQuery) -> BoxFuture<'_, Result<ServerResult, TransportError>> {
        Box::pin(async move { self.0.query(&q).await })
    }

    fn submit_stage(&self, r: StageRequest) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move { self.0.submit_stage(&r).await })
    }

    fn cancel_query(&self, query_id: u64) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move { self.0.cancel(query_id).await })
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move { self.0.ping().await })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_std::io::WriteExt;
    use async_std::net::{TcpListener, TcpStream};
    use engine::server::result::IntermediateData;

    /// A query of table `t_<n>`; the fake servers below answer it with `n` docs scanned.
    fn query(n: u64) -> ServerQuery {
        let mut schema = segments::types::Schema {
            schema_name: "t".into(),
            ..Default::default()
        };
        schema.fields.push(segments::types::FieldSpec::metric(
            "v",
            segments::types::DataType::Long,
        ));
        let mut tables = engine::provider::MemoryTables::new();
        tables.add("t", schema, Vec::new());
        let plan = match engine::plan_sql("SELECT COUNT(*) FROM t", None, &tables)
            .unwrap()
            .0
        {
            planner::plan::QueryPlan::SingleStage(p) => p.server,
            other => panic!("not single-stage: {other:?}"),
        };
        ServerQuery {
            table_name_with_type: format!("t_{n}"),
            segments: Vec::new(),
            segment_crcs: Vec::new(),
            segment_incarnations: Vec::new(),
            plan,
            trace: false,
            inline: true,
        }
    }

    fn answer_to(frame: &Frame) -> Vec<u8> {
        let q: ServerQuery = super::super::wire::decode(&frame.payload).unwrap();
        let n = q.table_name_with_type[2..].parse().unwrap();
        let mut r = ServerResult {
            data: IntermediateData::Aggregates(Vec::new()),
            stats: Default::default(),
            num_groups_limit_reached: false,
            exceptions: Vec::new(),
            trace: None,
            over_budget: false,
        };
        r.stats.num_docs_scanned = n;
        frames::encode_msgpack(frame.id, Kind::Answer, &r).unwrap()
    }

    async fn next(s: &mut TcpStream) -> Frame {
        frames::read(s, |_| 1 << 20).await.unwrap()
    }

    #[async_std::test]
    async fn answers_reach_their_own_queries_whatever_their_order() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let server = async_std::task::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let hello = next(&mut s).await;
            assert_eq!(
                frames::read_hello(&hello.payload).unwrap(),
                (frames::VERSION, "Basic x")
            );
            // Three queries in, answered last first, the middle one as a failure.
            let queries = [next(&mut s).await, next(&mut s).await, next(&mut s).await];
            for f in queries.iter().rev() {
                let q: ServerQuery = super::super::wire::decode(&f.payload).unwrap();
                let bytes = if q.table_name_with_type == "t_2" {
                    frames::failure(f.id, 404, "no t_2 here")
                } else {
                    answer_to(f)
                };
                s.write_all(&bytes).await.unwrap();
            }
            s
        });
        let channel = QueryChannel::new(&address, Some("Basic x".into()));
        let (q1, q2, q3) = (query(1), query(2), query(3));
        let ((a, b), c) = futures_lite::future::zip(
            futures_lite::future::zip(channel.query(&q1), channel.query(&q2)),
            channel.query(&q3),
        )
        .await;
        let _ = server.await;
        assert_eq!(a.unwrap().stats.num_docs_scanned, 1);
        assert_eq!(
            b.unwrap_err(),
            TransportError::Status {
                status: 404,
                message: "no t_2 here".into()
            }
        );
        assert_eq!(c.unwrap().stats.num_docs_scanned, 3);
    }

    #[async_std::test]
    async fn a_connection_that_ends_fails_its_queries_and_the_next_query_reconnects() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let server = async_std::task::spawn(async move {
            // First connection: takes the hello and a query, then closes without answering.
            let (mut s, _) = listener.accept().await.unwrap();
            next(&mut s).await;
            next(&mut s).await;
            drop(s);
            // Second: answers; a query given up before its answer leaves no trace.
            let (mut s, _) = listener.accept().await.unwrap();
            next(&mut s).await;
            let abandoned = next(&mut s).await;
            let kept = next(&mut s).await;
            s.write_all(&answer_to(&abandoned)).await.unwrap();
            s.write_all(&answer_to(&kept)).await.unwrap();
            s
        });
        let channel = QueryChannel::new(&address, None);
        let e = channel.query(&query(1)).await.unwrap_err();
        assert!(matches!(e, TransportError::Unreachable(_)), "{e:?}");
        assert!(channel.has_ended());
        let q5 = query(5);
        let gave_up = async_std::future::timeout(Duration::from_millis(50), channel.query(&q5));
        assert!(gave_up.await.is_err());
        assert_eq!(
            channel
                .query(&query(6))
                .await
                .unwrap()
                .stats
                .num_docs_scanned,
            6
        );
        // The server's end stays open until the check below (`let _ =` would drop it at once,
        // and a reader that sees the connection end before the check makes it reconnect).
        let _open = server.await;
        let (connection, reused) = channel.connection().await.unwrap();
        assert!(reused);
        assert!(connection.state.lock().unwrap().replies.is_empty());
    }

    /// A peer that takes the hello and a query, then answers pings only if `alive`, and the
    /// query after `answer_after` (if ever). Returns its address and how many connections it
    /// accepted (later ones are held open, silent).
    async fn peer(alive: bool, answer_after: Option<Duration>) -> (String, Arc<AtomicU64>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let accepted = Arc::new(AtomicU64::new(0));
        let count = accepted.clone();
        async_std::task::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            count.fetch_add(1, Ordering::SeqCst);
            async_std::task::spawn(async move {
                let mut held = Vec::new();
                while let Ok((more, _)) = listener.accept().await {
                    count.fetch_add(1, Ordering::SeqCst);
                    held.push(more);
                }
            });
            next(&mut s).await;
            let q = next(&mut s).await;
            let started = std::time::Instant::now();
            loop {
                let f = async_std::future::timeout(Duration::from_millis(20), next(&mut s)).await;
                if let Ok(f) = f
                    && f.kind == Kind::Ping
                    && alive
                {
                    s.write_all(&frames::encode(f.id, Kind::Done, &[]))
                        .await
                        .unwrap();
                }
                if answer_after.is_some_and(|after| started.elapsed() >= after) {
                    s.write_all(&answer_to(&q)).await.unwrap();
                    // Kept open until the caller is done.
                    async_std::task::sleep(Duration::from_secs(30)).await;
                    return;
                }
                if started.elapsed() > Duration::from_secs(30) {
                    return;
                }
            }
        });
        (address, accepted)
    }

    #[async_std::test]
    async fn a_silent_peer_fails_its_queries_long_before_their_timeout() {
        let (address, accepted) = peer(false, None).await;
        let channel = QueryChannel::new(&address, None);
        let q = query(1);
        let answer = async_std::future::timeout(Duration::from_secs(10), channel.query(&q)).await;
        let e = answer.expect("the watchdog gave up first").unwrap_err();
        assert!(
            matches!(&e, TransportError::Unreachable(m) if m.contains("sent nothing")),
            "{e:?}"
        );
        assert!(channel.has_ended());
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
    }

    #[async_std::test]
    async fn a_query_on_a_connection_that_fell_silent_is_not_sent_again() {
        // A peer that answers one query, then falls silent (its host cut off), while it still
        // accepts connections (the kernel does, for a stopped process).
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let accepted = Arc::new(AtomicU64::new(0));
        let count = accepted.clone();
        async_std::task::spawn(async move {
            let mut held = Vec::new();
            while let Ok((mut s, _)) = listener.accept().await {
                if count.fetch_add(1, Ordering::SeqCst) == 0 {
                    next(&mut s).await;
                    let q = next(&mut s).await;
                    s.write_all(&answer_to(&q)).await.unwrap();
                }
                held.push(s);
            }
        });
        let channel = QueryChannel::new(&address, None);
        assert_eq!(
            channel
                .query(&query(3))
                .await
                .unwrap()
                .stats
                .num_docs_scanned,
            3
        );
        let q = query(4);
        let answer = async_std::future::timeout(Duration::from_secs(10), channel.query(&q)).await;
        let e = answer.expect("the watchdog gave up first").unwrap_err();
        assert!(
            matches!(&e, TransportError::Unreachable(m) if m.contains("sent nothing")),
            "{e:?}"
        );
        // A query that breaks off on a reused connection is sent once more (the server may
        // have restarted), but not when the peer fell silent: asked again on a new
        // connection, it would only be waited out once more before the broker tries another
        // replica.
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
    }

    #[async_std::test]
    async fn a_peer_busy_past_the_silence_limit_but_answering_pings_is_waited_for() {
        let (address, accepted) = peer(true, Some(SILENCE_LIMIT * 2)).await;
        let channel = QueryChannel::new(&address, None);
        let answer = channel.query(&query(7)).await.unwrap();
        assert_eq!(answer.stats.num_docs_scanned, 7);
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
    }

    #[async_std::test]
    async fn nothing_listening_is_unreachable() {
        let address = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().to_string()
        };
        let e = QueryChannel::new(&address, None)
            .query(&query(1))
            .await
            .unwrap_err();
        assert!(
            matches!(&e, TransportError::Unreachable(m) if m.contains(&address)),
            "{e:?}"
        );
    }
}
