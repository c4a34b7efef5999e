//! HTTP/1.1 connections of the tide apps: the accept loop, one task per connection, and the
//! idle deadline.
//!
//! tide's own loop (`Server::listen`, through `async_h1::accept`) costs two things per request
//! that a busy broker pays on every query. It arms a 60 s timer while it waits for each
//! request's head, and inserting an async-io timer wakes the reactor thread (an eventfd write and
//! a context switch: 8% of a point query's CPU under load); and it writes a response's head and
//! body with separate `send` calls, each a trip through the kernel's TCP stack and a wake-up of
//! the client. Here, a connection's writes collect in a buffer that goes out with one `send`
//! when the response is complete ([`Conn`]), and the deadline is kept by one sweeper per listener
//! ([`Idle`]): every connection notes the sweeper's tick when it reads or writes, and the
//! sweeper shuts down connections that have sat between requests for [`IDLE_TIMEOUT`] — what the
//! headers timeout did, without a timer per request. A request being answered is never cut,
//! however long it takes. After each answer the connection's task yields: a client that sends
//! its next request as soon as it has an answer would otherwise find the task still running and
//! be answered again and again ahead of the others (without the yield, `wrk`'s 32 connections
//! saw a p99 of 29 ms instead of 4–5 ms).
//!
//! Requests are read and responses written by async-h1's own `decode` and `Encoder`, and answered
//! by `tide::Server::respond`, so parsing, routing and encoding are tide's and async-h1's as
//! before; this module only owns the loop around them (as `async_h1::server::Server::accept`
//! has it, without protocol upgrades, which no Tessera route offers).

use crate::tls::Stream;
use async_std::net::{Shutdown, TcpListener};
use futures_lite::io::{AsyncRead, AsyncWrite};
use futures_lite::{StreamExt, io};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, ready};
use std::time::Duration;

/// How long a connection may sit between requests before it is closed (async-h1's headers
/// timeout).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// The sweeper's period: an idle connection is closed between `IDLE_TIMEOUT` and
/// `IDLE_TIMEOUT + TICK` after its last byte.
const TICK: Duration = Duration::from_secs(5);
/// Buffered response bytes past which writes go straight to the socket (a large body streams).
const WRITE_BUFFER: usize = 64 * 1024;

/// Serves `app` on `listener`: accepts connections until the task is cancelled.
pub async fn serve<S: Clone + Send + Sync + 'static>(
    app: tide::Server<S>,
    listener: std::net::TcpListener,
) -> std::io::Result<()> {
    let listener = TcpListener::from(listener);
    let idle = Idle::start(IDLE_TIMEOUT);
    let mut incoming = listener.incoming();
    while let Some(stream) = incoming.next().await {
        match stream {
            Ok(stream) => {
                let (app, idle) = (app.clone(), idle.clone());
                async_std::task::spawn(async move {
                    // With TLS, its handshake first: a plain request fails it and is dropped.
                    let stream = match Stream::accept(stream).await {
                        Ok(s) => s,
                        Err(e) => {
                            log::debug!("TLS handshake failed: {e}");
                            return;
                        }
                    };
                    let conn = Conn::new(stream, &idle);
                    if let Err(e) = answer(&app, conn).await {
                        log::debug!("HTTP connection ended: {e}");
                    }
                });
            }
            // The client gave up before the accept: nothing to do.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset
                ) => {}
            // Out of file descriptors and the like: pause rather than spin.
            Err(e) => {
                log::error!("cannot accept an HTTP connection: {e}; pausing 500 ms");
                async_std::task::sleep(Duration::from_millis(500)).await;
            }
        }
    }
    Ok(())
}

/// Answers the requests of one connection until the client closes it, asks to close it, or
/// sends something that is not HTTP.
async fn answer<S: Clone + Send + Sync + 'static>(
    app: &tide::Server<S>,
    conn: Conn,
) -> tide::http::Result<()> {
    // Formatted once per connection: each request gets a copy.
    let local = conn
        .shared
        .stream
        .tcp()
        .local_addr()
        .ok()
        .map(|a| a.to_string());
    let peer = conn
        .shared
        .stream
        .tcp()
        .peer_addr()
        .ok()
        .map(|a| a.to_string());
    loop {
        let Some((mut req, mut body)) = async_h1::server::decode(conn.clone()).await? else {
            return Ok(()); // the client closed the connection
        };
        conn.shared.busy.store(true, Ordering::Relaxed);
        let close = req
            .header("connection")
            .is_some_and(|c| c.as_str().eq_ignore_ascii_case("close"));
        let method = req.method();
        req.set_local_addr(local.as_ref());
        req.set_peer_addr(peer.as_ref());
        let res: tide::http::Response = app.respond(req).await?;
        let close = close
            || res
                .header("connection")
                .is_some_and(|c| c.as_str().eq_ignore_ascii_case("close"));
        let mut encoder = async_h1::server::Encoder::new(res, method);
        io::copy(&mut encoder, &mut conn.for_response()).await?;
        // What the endpoint left of the request body, so the next request starts clean.
        io::copy(&mut body, &mut io::sink()).await?;
        conn.shared.busy.store(false, Ordering::Relaxed);
        conn.touch();
        if close {
            return Ok(());
        }
        // Other connections' requests go first (see the module docs).
        async_std::task::yield_now().await;
    }
}

/// The idle deadline of one listener's connections: a coarse clock and the connections it
/// watches.
struct Idle {
    /// Sweeper ticks since the listener started.
    tick: AtomicU64,
    conns: Mutex<Vec<Weak<Shared>>>,
}

impl Idle {
    /// Starts the sweeper of a listener whose connections may idle for `timeout`.
    fn start(timeout: Duration) -> Arc<Idle> {
        let idle = Arc::new(Idle {
            tick: AtomicU64::new(0),
            conns: Mutex::new(Vec::new()),
        });
        let ticks = timeout.as_secs().div_ceil(TICK.as_secs()).max(1);
        let weak = Arc::downgrade(&idle);
        async_std::task::spawn(async move {
            loop {
                async_std::task::sleep(TICK).await;
                // The listener is gone: so is its sweeper.
                let Some(idle) = weak.upgrade() else { return };
                idle.sweep(ticks);
            }
        });
        idle
    }

    /// Advances the clock, forgets closed connections and shuts down those idle for `ticks`.
    fn sweep(&self, ticks: u64) {
        let now = self.tick.fetch_add(1, Ordering::Relaxed) + 1;
        let Ok(mut conns) = self.conns.lock() else {
            return;
        };
        conns.retain(|c| {
            let Some(c) = c.upgrade() else { return false };
            let idle = now.saturating_sub(c.last.load(Ordering::Relaxed)) >= ticks;
            if idle && !c.busy.load(Ordering::Relaxed) {
                // The pending read ends; the connection's task finishes and drops it.
                let _ = c.stream.tcp().shutdown(Shutdown::Both);
                return false;
            }
            true
        });
    }
}

/// What a connection's reading and writing halves share.
struct Shared {
    stream: Stream,
    idle: Arc<Idle>,
    /// The sweeper's tick at the last byte read or response written.
    last: AtomicU64,
    /// A request is being answered (never idle, however long it takes).
    busy: AtomicBool,
    /// Response bytes not yet sent, from `out.1` on.
    out: Mutex<(Vec<u8>, usize)>,
}

/// One HTTP connection, cloned for async-h1's reader and writer: reads go to the socket; a
/// `buffered` clone's writes (a response's) collect until a flush (the end of the response) or
/// [`WRITE_BUFFER`] bytes, other clones' writes (async-h1's `100 Continue`, written while the
/// endpoint reads the body, with no flush) go out at once.
#[derive(Clone)]
struct Conn {
    shared: Arc<Shared>,
    buffered: bool,
}

impl Conn {
    fn new(stream: Stream, idle: &Arc<Idle>) -> Conn {
        let shared = Arc::new(Shared {
            stream,
            idle: idle.clone(),
            last: AtomicU64::new(idle.tick.load(Ordering::Relaxed)),
            busy: AtomicBool::new(false),
            out: Mutex::new((Vec::new(), 0)),
        });
        if let Ok(mut conns) = idle.conns.lock() {
            conns.push(Arc::downgrade(&shared));
        }
        Conn {
            shared,
            buffered: false,
        }
    }

    /// The clone a response is written through.
    fn for_response(&self) -> Conn {
        Conn {
            shared: self.shared.clone(),
            buffered: true,
        }
    }

    /// Notes activity now.
    fn touch(&self) {
        let now = self.shared.idle.tick.load(Ordering::Relaxed);
        self.shared.last.store(now, Ordering::Relaxed);
    }

    /// Sends the buffered bytes.
    fn poll_send(&self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let mut out = self.shared.out.lock().unwrap_or_else(|p| p.into_inner());
        let (buf, sent) = &mut *out;
        while *sent < buf.len() {
            match ready!(Pin::new(&mut &self.shared.stream).poll_write(cx, &buf[*sent..])) {
                Ok(0) => return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into())),
                Ok(n) => *sent += n,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        buf.clear();
        *sent = 0;
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<std::io::Result<usize>> {
        let read = ready!(Pin::new(&mut &self.shared.stream).poll_read(cx, buf));
        if matches!(read, Ok(n) if n > 0) {
            self.touch();
        }
        Poll::Ready(read)
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        if !self.buffered {
            ready!(self.poll_send(cx))?;
            return Pin::new(&mut &self.shared.stream).poll_write(cx, data);
        }
        let buffered = self.shared.out.lock().map_or(0, |o| o.0.len());
        if buffered + data.len() > WRITE_BUFFER {
            ready!(self.poll_send(cx))?;
            if data.len() > WRITE_BUFFER {
                return Pin::new(&mut &self.shared.stream).poll_write(cx, data);
            }
        }
        let mut out = self.shared.out.lock().unwrap_or_else(|p| p.into_inner());
        out.0.extend_from_slice(data);
        Poll::Ready(Ok(data.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        ready!(self.poll_send(cx))?;
        Pin::new(&mut &self.shared.stream).poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        ready!(self.poll_send(cx))?;
        Pin::new(&mut &self.shared.stream).poll_close(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_std::net::TcpStream;
    use futures_lite::AsyncReadExt;

    /// A raw HTTP/1.1 exchange on one connection: writes `request`, reads until `responses`
    /// complete responses (by content-length) have arrived.
    async fn exchange(stream: &mut TcpStream, request: &str, responses: usize) -> String {
        use futures_lite::AsyncWriteExt;
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        while count_responses(&got) < responses {
            let n = stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&got));
            got.extend_from_slice(&buf[..n]);
        }
        String::from_utf8(got).unwrap()
    }

    /// Complete responses in `bytes` (heads with a content-length and all of their bodies).
    fn count_responses(bytes: &[u8]) -> usize {
        let text = String::from_utf8_lossy(bytes);
        let (mut rest, mut n) = (&text[..], 0);
        while let Some(end) = rest.find("\r\n\r\n") {
            let head = &rest[..end];
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length: "))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if rest.len() < end + 4 + len {
                break;
            }
            rest = &rest[end + 4 + len..];
            n += 1;
        }
        n
    }

    fn app() -> tide::Server<()> {
        let mut app = tide::new();
        app.at("/echo")
            .post(|mut req: tide::Request<()>| async move {
                Ok(format!("got {}", req.body_string().await?))
            });
        app.at("/peer").get(|req: tide::Request<()>| async move {
            Ok(format!("{:?} {:?}", req.peer_addr(), req.local_addr()))
        });
        app.at("/big")
            .get(|_| async { Ok("x".repeat(3 * WRITE_BUFFER + 17)) });
        app.at("/slow").get(|_| async {
            async_std::task::sleep(Duration::from_millis(300)).await;
            Ok("done")
        });
        app
    }

    async fn start() -> (u16, async_std::task::JoinHandle<std::io::Result<()>>) {
        let l = super::super::listener::bind("127.0.0.1", 0).unwrap();
        let port = l.local_addr().unwrap().port();
        (port, async_std::task::spawn(serve(app(), l)))
    }

    #[async_std::test]
    async fn keep_alive_requests_bodies_and_large_responses() {
        let (port, task) = start().await;
        let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let post = "POST /echo HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\nhello";
        let text = exchange(&mut s, post, 1).await;
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
        assert!(text.ends_with("got hello"), "{text}");
        // An unread body is skipped, and the same connection answers again.
        let text = exchange(&mut s, "GET /big HTTP/1.1\r\nhost: x\r\n\r\n", 1).await;
        assert!(text.ends_with(&"x".repeat(3 * WRITE_BUFFER + 17)));
        assert!(
            text.contains("content-length: 196625\r\n"),
            "{}",
            &text[..200]
        );
        // Handlers see both ends of the connection.
        let text = exchange(&mut s, "GET /peer HTTP/1.1\r\nhost: x\r\n\r\n", 1).await;
        let mine = s.local_addr().unwrap().to_string();
        let want = format!("Some(\"{mine}\") Some(\"127.0.0.1:{port}\")");
        assert!(text.ends_with(&want), "{text}");
        let text = exchange(&mut s, "GET /nope HTTP/1.1\r\nhost: x\r\n\r\n", 1).await;
        assert!(text.starts_with("HTTP/1.1 404"), "{text}");
        // A client that expects `100 Continue` gets it before it sends the body (curl waits a
        // second for it on bodies past 1 KB), and then the answer.
        let head =
            "POST /echo HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\nexpect: 100-continue\r\n\r\n";
        {
            use futures_lite::AsyncWriteExt;
            s.write_all(head.as_bytes()).await.unwrap();
            let mut buf = [0u8; 64];
            let n = async_std::future::timeout(Duration::from_secs(5), s.read(&mut buf))
                .await
                .expect("no 100 Continue within 5 s")
                .unwrap();
            assert_eq!(&buf[..n], b"HTTP/1.1 100 Continue\r\n\r\n");
        }
        let text = exchange(&mut s, "abc", 1).await;
        assert!(text.ends_with("got abc"), "{text}");
        // `connection: close` is honoured: the server closes after the answer.
        let text = exchange(
            &mut s,
            "GET /slow HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
            1,
        )
        .await;
        assert!(text.ends_with("done"), "{text}");
        let mut rest = Vec::new();
        assert_eq!(s.read_to_end(&mut rest).await.unwrap(), 0);
        task.cancel().await;
    }

    #[async_std::test]
    async fn the_sweeper_closes_idle_connections_but_not_busy_ones() {
        let idle = Arc::new(Idle {
            tick: AtomicU64::new(0),
            conns: Mutex::new(Vec::new()),
        });
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let mut clients = Vec::new();
        let mut conns = Vec::new();
        for _ in 0..3 {
            clients.push(TcpStream::connect(addr).await.unwrap());
            let (s, _) = l.accept().unwrap();
            conns.push(Conn::new(Stream::plain(TcpStream::from(s)), &idle));
        }
        // Connection 1 answers a request; connection 2 read a byte a tick later.
        conns[1].shared.busy.store(true, Ordering::Relaxed);
        idle.sweep(3); // tick 1
        conns[2].touch();
        idle.sweep(3); // tick 2
        assert_eq!(idle.conns.lock().unwrap().len(), 3, "nothing idle yet");
        idle.sweep(3); // tick 3: connection 0 idle for 3 ticks
        assert_eq!(idle.conns.lock().unwrap().len(), 2);
        let mut byte = [0u8; 1];
        assert_eq!(clients[0].read(&mut byte).await.unwrap(), 0, "closed");
        idle.sweep(3); // tick 4: connection 2 idle for 3 ticks; 1 is busy
        assert_eq!(idle.conns.lock().unwrap().len(), 1);
        assert_eq!(clients[2].read(&mut byte).await.unwrap(), 0, "closed");
        // A dropped connection is forgotten.
        conns.remove(1);
        idle.sweep(3);
        assert!(idle.conns.lock().unwrap().is_empty());
    }
}
