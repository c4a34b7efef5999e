//! The broker's routing cache: the routing table of each typed table, kept for a short time
//! (`routing_ttl`, the heartbeat interval by default) so that a query does not pay a round trip
//! to the controller. A stale entry can only name a segment a server has since dropped or miss
//! one just loaded; the first shows up as a `ServerSegmentMissing` (235) or an unanswered
//! server, and [`super::query`] then drops the entry and asks the controller again, once.
//! Errors (unknown table, broker not serving it) are not cached.

use super::Broker;
use crate::metadata::records::RoutingTable;
use crate::transport::RoutingError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Routing tables by typed table name, each with the time it was fetched.
#[derive(Debug, Default)]
pub struct RoutingCache {
    ttl: Duration,
    entries: Mutex<HashMap<String, (Instant, Arc<RoutingTable>)>>,
}

impl RoutingCache {
    /// A cache whose entries live `ttl` (zero: never cached).
    pub fn new(ttl: Duration) -> RoutingCache {
        RoutingCache {
            ttl,
            entries: Mutex::default(),
        }
    }

    /// The cached routing of `typed`, if fresh.
    pub fn cached(&self, typed: &str) -> Option<Arc<RoutingTable>> {
        let entries = self.entries.lock().ok()?;
        entries
            .get(typed)
            .filter(|(at, _)| at.elapsed() < self.ttl)
            .map(|(_, r)| r.clone())
    }

    /// Stores a freshly fetched routing table.
    pub fn store(&self, typed: &str, routing: Arc<RoutingTable>) {
        if self.ttl.is_zero() {
            return;
        }
        if let Ok(mut entries) = self.entries.lock() {
            entries.insert(typed.to_string(), (Instant::now(), routing));
        }
    }

    /// Forgets the routing of `typed`.
    pub fn invalidate(&self, typed: &str) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.remove(typed);
        }
    }
}

/// The routing of `typed`: cached when `allow_cached` and fresh, else from the controller.
/// Returns whether the answer came from the cache.
pub async fn routing(
    broker: &Broker,
    typed: &str,
    allow_cached: bool,
) -> Result<(Arc<RoutingTable>, bool), RoutingError> {
    if allow_cached && let Some(r) = broker.routing.cached(typed) {
        return Ok((r, true));
    }
    let fresh = Arc::new(
        broker
            .controller
            .routing(typed, &broker.config.instance_id)
            .await?,
    );
    broker.routing.store(typed, fresh.clone());
    Ok((fresh, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(name: &str) -> Arc<RoutingTable> {
        Arc::new(RoutingTable {
            table_name_with_type: name.into(),
            ..RoutingTable::default()
        })
    }

    #[test]
    fn entries_expire_and_can_be_dropped() {
        let c = RoutingCache::new(Duration::from_millis(50));
        assert!(c.cached("t_OFFLINE").is_none());
        c.store("t_OFFLINE", table("t_OFFLINE"));
        assert_eq!(
            c.cached("t_OFFLINE").unwrap().table_name_with_type,
            "t_OFFLINE"
        );
        c.invalidate("t_OFFLINE");
        assert!(c.cached("t_OFFLINE").is_none());
        c.store("t_OFFLINE", table("t_OFFLINE"));
        std::thread::sleep(Duration::from_millis(60));
        assert!(c.cached("t_OFFLINE").is_none());
        let never = RoutingCache::new(Duration::ZERO);
        never.store("t_OFFLINE", table("t_OFFLINE"));
        assert!(never.cached("t_OFFLINE").is_none());
    }
}
