//! How many queries a broker runs at once. A query takes one of `max_running` slots; when all
//! are taken it waits in a queue of at most `max_queued` queries, no longer than its own timeout.
//! A query that finds the queue full is refused at once with Pinot's `ServerOutOfCapacityError`
//! (211; HTTP 503 when the client asks for HTTP statuses), one that waits out its timeout with
//! `QuerySchedulingTimeoutError` (240) — a burst of queries slows the broker down but cannot
//! exhaust its memory or threads.

use async_lock::{Semaphore, SemaphoreGuardArc};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Default slots: queries running at once per broker.
pub const DEFAULT_MAX_RUNNING: usize = 32;
/// Default queue length beyond the running queries.
pub const DEFAULT_MAX_QUEUED: usize = 512;

/// Why a query was not admitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Every slot taken and the queue full.
    Full { running: usize, queued: usize },
    /// No slot freed within the query's timeout.
    TimedOut(Duration),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Full { running, queued } => write!(
                f,
                "Broker is out of capacity: {running} queries running and {queued} queued"
            ),
            Refused::TimedOut(waited) => write!(
                f,
                "Query timed out after waiting {} ms for a free query slot",
                waited.as_millis()
            ),
        }
    }
}

/// The broker's query slots and queue.
pub struct Admission {
    slots: Arc<Semaphore>,
    max_running: usize,
    max_queued: usize,
    queued: AtomicUsize,
}

impl Admission {
    /// At most `max_running` queries at once (at least one), `max_queued` waiting.
    pub fn new(max_running: usize, max_queued: usize) -> Admission {
        let max_running = max_running.max(1);
        Admission {
            slots: Arc::new(Semaphore::new(max_running)),
            max_running,
            max_queued,
            queued: AtomicUsize::new(0),
        }
    }

    /// A slot for one query, held until the guard drops; waits at most `wait` in the queue.
    pub async fn enter(&self, wait: Duration) -> Result<SemaphoreGuardArc, Refused> {
        if let Some(slot) = self.slots.try_acquire_arc() {
            return Ok(slot);
        }
        if self.queued.fetch_add(1, Ordering::SeqCst) >= self.max_queued {
            self.queued.fetch_sub(1, Ordering::SeqCst);
            return Err(Refused::Full {
                running: self.max_running,
                queued: self.max_queued,
            });
        }
        let slot = async_std::future::timeout(wait, self.slots.acquire_arc()).await;
        self.queued.fetch_sub(1, Ordering::SeqCst);
        slot.map_err(|_| Refused::TimedOut(wait))
    }

    /// Queries waiting for a slot.
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[async_std::test]
    async fn slots_queue_and_refusals() {
        let a = Admission::new(2, 1);
        let first = a.enter(Duration::from_millis(10)).await.unwrap();
        let _second = a.enter(Duration::from_millis(10)).await.unwrap();
        // Both slots taken: one query may wait, it times out; a second waiter is refused.
        assert_eq!(
            a.enter(Duration::from_millis(20)).await.unwrap_err(),
            Refused::TimedOut(Duration::from_millis(20))
        );
        let a = Arc::new(a);
        let waiter = {
            let a = a.clone();
            async_std::task::spawn(async move { a.enter(Duration::from_secs(10)).await.is_ok() })
        };
        while a.queued() == 0 {
            async_std::task::sleep(Duration::from_millis(1)).await;
        }
        assert_eq!(
            a.enter(Duration::from_secs(10)).await.unwrap_err(),
            Refused::Full {
                running: 2,
                queued: 1
            }
        );
        // A slot freed goes to the waiting query.
        drop(first);
        assert!(waiter.await);
    }

    /// A broker whose only slot is taken and whose queue holds none refuses a query with
    /// Pinot's 211, which is HTTP 503 for a client that asks for HTTP statuses.
    #[async_std::test]
    async fn a_full_broker_answers_out_of_capacity() {
        use super::super::{Broker, BrokerConfig, query, request::QueryRequest, response};
        let http = crate::http::http_client();
        let broker = Broker::new(
            BrokerConfig::for_tests(Duration::from_millis(300), 1, 0),
            Arc::new(crate::transport::HttpControllerClient::new(
                "http://127.0.0.1:1",
                http.clone(),
            )),
            Arc::new(crate::transport::ServerDirectory::new(
                http.clone(),
                Arc::new(crate::transport::Channels::new(None)),
            )),
            Arc::new(crate::transport::Mailboxes::new(
                http,
                Arc::new(crate::transport::Channels::new(None)),
            )),
            crate::logging::init_for_tests().unwrap(),
        );
        let sql = QueryRequest::new("SELECT 1", false, "", None, false).unwrap();
        assert!(query::run(&broker, &sql, None).await.exceptions.is_empty());
        let held = broker.admission.enter(Duration::ZERO).await.unwrap();
        let r = query::run(&broker, &sql, None).await;
        assert_eq!(r.exceptions[0].error_code, 211, "{:?}", r.exceptions);
        assert!(
            r.exceptions[0]
                .message
                .starts_with("ServerOutOfCapacityError: ")
        );
        assert_eq!(response::to_http(&r, true).status() as u16, 503);
        drop(held);
        assert!(query::run(&broker, &sql, None).await.exceptions.is_empty());
    }
}
