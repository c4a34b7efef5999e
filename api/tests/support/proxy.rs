//! A TCP proxy on 127.0.0.1 that a test can cut and restore: while cut, every open connection
//! through it is shut down and new ones are closed as soon as they are accepted — the service
//! behind it has gone away, as far as its clients can tell — and after `restore` it forwards
//! again.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A running proxy to one target address.
pub struct Proxy {
    pub port: u16,
    cut: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    /// A proxy on a free port of 127.0.0.1 to `target` (`host:port`).
    pub fn start(target: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = listener.local_addr().expect("proxy address").port();
        let (cut, stop) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        let open: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let (c, s, o) = (cut.clone(), stop.clone(), open.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(client) = client else { continue };
                if c.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(&target) else {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                };
                if let (Ok(a), Ok(b)) = (client.try_clone(), server.try_clone())
                    && let Ok(mut open) = o.lock()
                {
                    open.extend([a, b]);
                }
                pipe(&client, &server);
                pipe(&server, &client);
            }
        });
        Proxy {
            port,
            cut,
            stop,
            open,
        }
    }

    /// Its address, `127.0.0.1:port`.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Shuts every open connection and refuses new ones until [`Proxy::restore`].
    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        if let Ok(mut open) = self.open.lock() {
            for s in open.drain(..) {
                let _ = s.shutdown(Shutdown::Both);
            }
        }
    }

    /// Forwards again.
    pub fn restore(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.cut();
        // Wakes the accepting thread so it sees the stop.
        let _ = TcpStream::connect(self.address());
    }
}

/// Copies `from` to `to` on a thread of its own until either side closes.
fn pipe(from: &TcpStream, to: &TcpStream) {
    let (Ok(mut from), Ok(mut to)) = (from.try_clone(), to.try_clone()) else {
        return;
    };
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}
