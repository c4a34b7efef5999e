//! Listening sockets with TCP_NODELAY, and serving a tide app on them (through
//! [`super::connection`]).
//!
//! A response that leaves in more than one write (async-h1 writes head and body separately;
//! the connection loop now joins them, but a body past its buffer still streams, and a
//! `100 Continue` goes ahead of the answer) would, with Nagle's algorithm on, stall ~40 ms
//! behind the client's delayed ACK on every keep-alive request after the first
//! (http-rs/async-h1#199). Setting TCP_NODELAY on the listening socket (Linux passes it on to
//! accepted sockets) removes the stall; `SO_REUSEADDR` lets a restarted role take its port back
//! at once.

use socket2::{Domain, Socket, Type};
use std::io;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};

/// Binds `host:port` (port 0 picks a free port) with TCP_NODELAY and SO_REUSEADDR.
/// Read the bound port back with `listener.local_addr()`.
pub fn bind(host: &str, port: u16) -> io::Result<TcpListener> {
    let addr: SocketAddr = (host, port).to_socket_addrs()?.next().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("cannot resolve host '{host}'"),
        )
    })?;
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    socket.set_reuse_address(true)?;
    socket.set_tcp_nodelay(true)?;
    socket.bind(&addr.into())?;
    socket.listen(1024)?;
    let listener: TcpListener = socket.into();
    listener.set_nonblocking(true)?;
    Ok(listener)
}

/// Serves `app` on `listener` until the returned task is cancelled.
pub fn serve<S: Clone + Send + Sync + 'static>(
    app: tide::Server<S>,
    listener: TcpListener,
) -> async_std::task::JoinHandle<io::Result<()>> {
    async_std::task::spawn(super::connection::serve(app, listener))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_zero_binds_a_free_port_with_nodelay() {
        let l = bind("127.0.0.1", 0).unwrap();
        let port = l.local_addr().unwrap().port();
        assert_ne!(port, 0);
        let stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        drop(stream);
        assert!(bind("no-such-host.invalid", 0).is_err());
    }

    #[async_std::test]
    async fn serves_keep_alive_requests_quickly() {
        let l = bind("127.0.0.1", 0).unwrap();
        let port = l.local_addr().unwrap().port();
        let mut app = tide::new();
        app.at("/health").get(|_| async { Ok("OK") });
        let task = serve(app, l);
        let client: surf::Client = surf::Config::new()
            .set_tcp_no_delay(true)
            .try_into()
            .unwrap();
        let started = std::time::Instant::now();
        for _ in 0..10 {
            let text = client
                .get(format!("http://127.0.0.1:{port}/health"))
                .recv_string()
                .await
                .unwrap();
            assert_eq!(text, "OK");
        }
        // Ten keep-alive round trips: with the Nagle stall this takes ≥ 360 ms.
        assert!(
            started.elapsed() < std::time::Duration::from_millis(300),
            "{:?}",
            started.elapsed()
        );
        task.cancel().await;
    }
}
