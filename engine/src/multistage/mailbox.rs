//! Mailboxes: the queue of messages one stage worker receives from the workers of one child
//! stage, keyed by (query, sending stage, receiving stage, receiving worker).
//!
//! A mailbox holds at most [`CAPACITY`] messages: a sender blocks while it is full, so a slow
//! receiver slows its senders instead of buffering without bound. Mailboxes are created by
//! whichever side comes first. [`MailboxService::cancel`] wakes every blocked sender and
//! receiver of a query with an error; [`MailboxService::finish`] drops its mailboxes, and a
//! message for a finished or cancelled query is refused at once.

use super::block::DataBlock;
use crate::error::EngineError;
use crate::response::QueryException;
use crate::stats::ExecutionStats;
use planner::plan::multistage::StageId;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Messages a mailbox holds before its senders block.
pub const CAPACITY: usize = 8;

/// Finished queries remembered (so late messages are refused rather than queued forever).
const REMEMBERED: usize = 4096;

/// Which mailbox a message goes to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MailboxKey {
    pub query_id: u64,
    pub from_stage: StageId,
    pub to_stage: StageId,
    pub to_worker: usize,
}

/// The end of a worker's stream: its segments' execution stats and its stage's operator tree
/// (sent to the parent's first worker only; the others get an empty one).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EndOfStream {
    pub stats: ExecutionStats,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operators: Option<crate::stats::OperatorStats>,
}

/// What a sending worker sends: data, then one `End` (with its stage's stats) or an `Error`.
#[derive(Clone, Debug, PartialEq)]
pub enum MailboxMessage {
    Data(DataBlock),
    /// Boxed: the stats are a few hundred bytes, sent once per stream.
    End(Box<EndOfStream>),
    Error(QueryException),
}

/// Where a worker's output goes: in-process mailboxes, or (the api's) other processes.
pub trait BlockSink: Send + Sync {
    fn send(&self, key: &MailboxKey, msg: MailboxMessage) -> Result<(), EngineError>;
}

#[derive(Default)]
struct Queue {
    items: VecDeque<MailboxMessage>,
    cancelled: bool,
}

#[derive(Default)]
struct Mailbox {
    queue: Mutex<Queue>,
    changed: Condvar,
}

#[derive(Default)]
struct Registry {
    boxes: HashMap<MailboxKey, Arc<Mailbox>>,
    /// Cancelled or finished queries, oldest first.
    closed: VecDeque<u64>,
    closed_set: HashSet<u64>,
}

/// The mailboxes of one process.
#[derive(Default)]
pub struct MailboxService {
    registry: Mutex<Registry>,
}

fn cancelled() -> EngineError {
    EngineError::Cancelled
}

impl MailboxService {
    /// An empty service.
    pub fn new() -> MailboxService {
        MailboxService::default()
    }

    fn mailbox(&self, key: &MailboxKey) -> Result<Arc<Mailbox>, EngineError> {
        let mut r = self.registry.lock().map_err(|_| cancelled())?;
        if r.closed_set.contains(&key.query_id) {
            return Err(cancelled());
        }
        Ok(r.boxes.entry(key.clone()).or_default().clone())
    }

    /// Queues `msg`, blocking while the mailbox is full; fails once the query is cancelled or
    /// finished.
    pub fn deliver(&self, key: &MailboxKey, msg: MailboxMessage) -> Result<(), EngineError> {
        let mb = self.mailbox(key)?;
        let mut q = mb.queue.lock().map_err(|_| cancelled())?;
        while q.items.len() >= CAPACITY && !q.cancelled {
            q = mb
                .changed
                .wait_timeout(q, Duration::from_millis(100))
                .map_err(|_| cancelled())?
                .0;
            // A finished query's mailbox is gone: stop waiting for a reader.
            if self.is_closed(key.query_id) {
                return Err(cancelled());
            }
        }
        if q.cancelled {
            return Err(cancelled());
        }
        q.items.push_back(msg);
        mb.changed.notify_all();
        Ok(())
    }

    /// The next message of `key`, waiting until `deadline`.
    pub fn receive(
        &self,
        key: &MailboxKey,
        deadline: Instant,
        timeout_ms: u64,
    ) -> Result<MailboxMessage, EngineError> {
        let mb = self.mailbox(key)?;
        let mut q = mb.queue.lock().map_err(|_| cancelled())?;
        loop {
            if q.cancelled {
                return Err(cancelled());
            }
            if let Some(m) = q.items.pop_front() {
                mb.changed.notify_all();
                return Ok(m);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(EngineError::Timeout(timeout_ms));
            }
            let wait = (deadline - now).min(Duration::from_millis(100));
            q = mb.changed.wait_timeout(q, wait).map_err(|_| cancelled())?.0;
        }
    }

    fn is_closed(&self, query_id: u64) -> bool {
        self.registry
            .lock()
            .map(|r| r.closed_set.contains(&query_id))
            .unwrap_or(true)
    }

    fn close(&self, query_id: u64, drop_boxes: bool) {
        let Ok(mut r) = self.registry.lock() else {
            return;
        };
        if r.closed_set.insert(query_id) {
            r.closed.push_back(query_id);
            while r.closed.len() > REMEMBERED {
                if let Some(old) = r.closed.pop_front() {
                    r.closed_set.remove(&old);
                }
            }
        }
        let keys: Vec<MailboxKey> = r
            .boxes
            .keys()
            .filter(|k| k.query_id == query_id)
            .cloned()
            .collect();
        for k in keys {
            let mb = if drop_boxes {
                r.boxes.remove(&k)
            } else {
                r.boxes.get(&k).cloned()
            };
            if let Some(mb) = mb
                && let Ok(mut q) = mb.queue.lock()
            {
                q.cancelled = true;
                mb.changed.notify_all();
            }
        }
    }

    /// Wakes every sender and receiver of `query_id` with an error; later messages are refused.
    pub fn cancel(&self, query_id: u64) {
        self.close(query_id, false);
    }

    /// Drops the mailboxes of a query that is done; later messages are refused.
    pub fn finish(&self, query_id: u64) {
        self.close(query_id, true);
    }

    /// Mailboxes currently held (tests: nothing is left behind).
    pub fn len(&self) -> usize {
        self.registry.lock().map(|r| r.boxes.len()).unwrap_or(0)
    }

    /// Whether no mailbox is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl BlockSink for MailboxService {
    fn send(&self, key: &MailboxKey, msg: MailboxMessage) -> Result<(), EngineError> {
        self.deliver(key, msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(q: u64) -> MailboxKey {
        MailboxKey {
            query_id: q,
            from_stage: 1,
            to_stage: 0,
            to_worker: 0,
        }
    }

    #[test]
    fn full_mailboxes_block_senders_until_read_and_cancel_wakes_everyone() {
        let s = Arc::new(MailboxService::new());
        for _ in 0..CAPACITY {
            s.deliver(&key(1), MailboxMessage::End(Box::default()))
                .unwrap();
        }
        let s2 = s.clone();
        let sender =
            std::thread::spawn(move || s2.deliver(&key(1), MailboxMessage::End(Box::default())));
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !sender.is_finished(),
            "a full mailbox must block its sender"
        );
        let far = Instant::now() + Duration::from_secs(5);
        s.receive(&key(1), far, 5000).unwrap();
        sender.join().unwrap().unwrap();
        // A receiver waiting on an empty mailbox is woken by cancel.
        let s3 = s.clone();
        let receiver = std::thread::spawn(move || s3.receive(&key(2), far, 5000));
        std::thread::sleep(Duration::from_millis(30));
        s.cancel(2);
        assert_eq!(
            receiver.join().unwrap().unwrap_err(),
            EngineError::Cancelled
        );
        assert!(
            s.deliver(&key(2), MailboxMessage::End(Box::default()))
                .is_err()
        );
        // Deadlines.
        let soon = Instant::now() + Duration::from_millis(20);
        assert_eq!(
            s.receive(&key(3), soon, 20).unwrap_err(),
            EngineError::Timeout(20)
        );
        s.finish(1);
        s.finish(3);
        s.finish(2);
        assert!(s.is_empty());
    }
}
