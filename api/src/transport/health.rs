//! [`ServerHealth`]: the servers this process found unreachable — a connection refused or
//! reset, or a peer silent past [`SILENCE_LIMIT`](super::query_channel::SILENCE_LIMIT) — which
//! its routing avoids while another replica holds their segments, as Pinot's broker failure
//! detector does. A server is known by the address it is reached at (its query port, else its
//! URL), so one that comes back on another port is a fresh server at once. Each is probed with
//! a ping on a backoff from [`FIRST_PROBE`] up to [`LAST_PROBE`]; the first answer clears it.
//! Without this, every query would pay the silence again on a host that stopped answering.

use super::ServerClient;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The first probe's delay after a server is found unreachable.
pub const FIRST_PROBE: Duration = Duration::from_millis(100);

/// The longest delay between probes.
pub const LAST_PROBE: Duration = Duration::from_secs(2);

/// Servers found unreachable, by address, with when.
#[derive(Default)]
pub struct ServerHealth {
    down: Mutex<HashMap<String, Instant>>,
}

impl ServerHealth {
    /// Whether the server reached at `address` was found unreachable and has not answered a
    /// probe since.
    pub fn is_down(&self, address: &str) -> bool {
        self.down.lock().is_ok_and(|d| d.contains_key(address))
    }

    /// Records that server `id` at `address` could not be reached and, unless it is already
    /// being probed, probes it through `client` until it answers.
    pub fn mark_unreachable(
        self: &Arc<Self>,
        id: &str,
        address: &str,
        client: Arc<dyn ServerClient>,
    ) {
        let newly = self
            .down
            .lock()
            .is_ok_and(|mut d| d.insert(address.to_string(), Instant::now()).is_none());
        if !newly {
            return;
        }
        log::warn!("{id} at {address} is unreachable: routing to its replicas until it answers");
        let (health, id, address) = (self.clone(), id.to_string(), address.to_string());
        async_std::task::spawn(async move {
            let mut delay = FIRST_PROBE;
            loop {
                async_std::task::sleep(delay).await;
                if client.ping().await.is_ok() {
                    break;
                }
                delay = (delay * 2).min(LAST_PROBE);
            }
            let since = health.down.lock().ok().and_then(|mut d| d.remove(&address));
            let after = since.map_or(0, |s| s.elapsed().as_millis());
            log::info!("{id} at {address} answers again after {after} ms");
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{BoxFuture, ServerQuery, StageRequest, TransportError};
    use engine::server::result::ServerResult;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// A server that answers pings only once `alive`.
    struct Flaky {
        alive: AtomicBool,
        pings: AtomicUsize,
    }

    impl ServerClient for Flaky {
        fn query(&self, _: ServerQuery) -> BoxFuture<'_, Result<ServerResult, TransportError>> {
            Box::pin(async { Err(TransportError::Unreachable("no queries here".into())) })
        }
        fn submit_stage(&self, _: StageRequest) -> BoxFuture<'_, Result<(), TransportError>> {
            Box::pin(async { Err(TransportError::Unreachable("no stages here".into())) })
        }
        fn cancel_query(&self, _: u64) -> BoxFuture<'_, Result<(), TransportError>> {
            Box::pin(async { Ok(()) })
        }
        fn ping(&self) -> BoxFuture<'_, Result<(), TransportError>> {
            self.pings.fetch_add(1, Ordering::SeqCst);
            let alive = self.alive.load(Ordering::SeqCst);
            Box::pin(async move {
                if alive {
                    Ok(())
                } else {
                    Err(TransportError::Unreachable("silent".into()))
                }
            })
        }
    }

    #[async_std::test]
    async fn a_server_stays_down_until_a_probe_answers() {
        let health = Arc::new(ServerHealth::default());
        let server = Arc::new(Flaky {
            alive: AtomicBool::new(false),
            pings: AtomicUsize::new(0),
        });
        health.mark_unreachable("Server_a", "10.0.0.1:1", server.clone());
        // Marked again while probed: still one probe loop.
        health.mark_unreachable("Server_a", "10.0.0.1:1", server.clone());
        assert!(health.is_down("10.0.0.1:1"));
        assert!(
            !health.is_down("10.0.0.1:2"),
            "another address is another server"
        );
        async_std::task::sleep(FIRST_PROBE * 4).await;
        assert!(health.is_down("10.0.0.1:1"));
        let probes = server.pings.load(Ordering::SeqCst);
        assert!((1..=3).contains(&probes), "{probes} probes");
        server.alive.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + LAST_PROBE * 3;
        while health.is_down("10.0.0.1:1") {
            assert!(Instant::now() < deadline, "never probed back up");
            async_std::task::sleep(Duration::from_millis(20)).await;
        }
    }
}
