//! The broker's routing cache: the routing table of each typed table, kept for a short time
//! (`routing_ttl`, the heartbeat interval by default) so that a query does not pay a round trip
//! to the controller. A stale entry can only name a segment a server has since dropped or miss
//! one just loaded; the first shows up as a `ServerSegmentMissing` (235) or an unanswered
//! server, and [`super::query`] then drops the entry and asks the controller again, once.
//! A typed table that does not exist is remembered too (the REALTIME half of an offline-only
//! table is asked for by every query); a table change fetches both halves' routing again at once
//! ([`super::membership`], [`refetch`]) or forgets it, and a query that finds neither half asks
//! again uncached. Other
//! errors (broker not serving the table, controller down) are not cached; while the controller
//! cannot answer (every controller down, or their metadata store — ZooKeeper — unreachable),
//! the last routing fetched keeps serving, however old, as Pinot's brokers keep theirs.
//!
//! A broker's answers never lose a segment silently: a segment it has routed to a server is
//! *old* to it (Pinot's broker keeps the same distinction), so a routing table from a
//! controller whose view lags behind — one that calls that segment new, not yet loaded
//! anywhere — makes it unavailable (an error, and the query asks again uncached), not absent.

use super::Broker;
use crate::metadata::records::RoutingTable;
use crate::transport::RoutingError;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A cached routing: when it was fetched (`None` once dropped as stale: kept only as the last
/// routing), and the table's routing (`None`: no such table).
type Entry = (Option<Instant>, Option<Arc<RoutingTable>>);

/// Routing tables by typed table name, each with the time it was fetched.
#[derive(Debug, Default)]
pub struct RoutingCache {
    ttl: Duration,
    entries: Mutex<HashMap<String, Entry>>,
    /// Per typed table, the segments this broker has routed to a server and that still exist.
    routed: Mutex<HashMap<String, HashSet<String>>>,
}

impl RoutingCache {
    /// A cache whose entries live `ttl` (zero: never cached).
    pub fn new(ttl: Duration) -> RoutingCache {
        RoutingCache {
            ttl,
            entries: Mutex::default(),
            routed: Mutex::default(),
        }
    }

    /// `fresh` as this broker may route it: a segment `fresh` calls new that this broker
    /// routed before is unavailable in it. Remembers what `fresh` routes, and forgets segments
    /// it no longer names (deleted).
    pub fn admit(&self, typed: &str, mut fresh: RoutingTable) -> RoutingTable {
        let Ok(mut routed) = self.routed.lock() else {
            return fresh;
        };
        let known = routed.entry(typed.to_string()).or_default();
        for segment in &fresh.new_segments {
            if known.contains(segment) {
                log::debug!("{typed}: segment {segment} routed before is new to the controller");
                fresh.segments.entry(segment.clone()).or_default();
            }
        }
        known.retain(|s| fresh.segments.contains_key(s));
        known.extend(
            fresh
                .segments
                .iter()
                .filter(|(_, hosts)| !hosts.is_empty())
                .map(|(s, _)| s.clone()),
        );
        fresh
    }

    /// The cached routing of `typed`, if fresh (`Some(None)`: the table does not exist).
    pub fn cached(&self, typed: &str) -> Option<Option<Arc<RoutingTable>>> {
        let entries = self.entries.lock().ok()?;
        entries
            .get(typed)
            .filter(|(at, _)| at.is_some_and(|at| at.elapsed() < self.ttl))
            .map(|(_, r)| r.clone())
    }

    /// The last routing fetched for `typed`, however old (`Some(None)`: the table did not
    /// exist).
    pub fn last(&self, typed: &str) -> Option<Option<Arc<RoutingTable>>> {
        let entries = self.entries.lock().ok()?;
        entries.get(typed).map(|(_, r)| r.clone())
    }

    /// Stores a freshly fetched routing table (`None`: the table does not exist).
    pub fn store(&self, typed: &str, routing: Option<Arc<RoutingTable>>) {
        if self.ttl.is_zero() {
            return;
        }
        if let Ok(mut entries) = self.entries.lock() {
            entries.insert(typed.to_string(), (Some(Instant::now()), routing));
        }
    }

    /// Forgets every table's routing.
    pub fn clear(&self) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.clear();
        }
    }

    /// Forgets the routing of `typed`: it is known to predate a change, and must not serve
    /// again even while no controller answers.
    pub fn invalidate(&self, typed: &str) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.remove(typed);
        }
    }

    /// Marks the routing of `typed` as suspect (a server did not answer, or lacked a segment):
    /// the next query asks the controller, and falls back on it only while no controller
    /// answers.
    pub fn expire(&self, typed: &str) {
        if let Ok(mut entries) = self.entries.lock()
            && let Some((at, _)) = entries.get_mut(typed)
        {
            *at = None;
        }
    }
}

/// After a change to `typed`: its routing fetched again at once — the controller that committed
/// the change has just told this broker, so one is reachable — or, when that fails, forgotten,
/// so that a routing from before the change never serves again.
pub async fn refetch(broker: &Broker, typed: &str) {
    if broker.routing.last(typed).is_none() {
        return;
    }
    broker.routing.invalidate(typed);
    if let Err(e) = routing(broker, typed, false).await {
        log::debug!("{typed}: routing not fetched after a change: {e}");
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
        return r
            .map(|r| (r, true))
            .ok_or_else(|| RoutingError::TableMissing(typed.to_string()));
    }
    match broker
        .controller
        .routing(typed, &broker.config.instance_id)
        .await
    {
        Ok(r) => {
            let fresh = Arc::new(broker.routing.admit(typed, r));
            broker.routing.store(typed, Some(fresh.clone()));
            Ok((fresh, false))
        }
        Err(e @ RoutingError::Controller { .. }) => match broker.routing.last(typed) {
            Some(Some(last)) => {
                log::debug!("{e}; routing {typed} with its last routing table");
                Ok((last, true))
            }
            Some(None) => Err(RoutingError::TableMissing(typed.to_string())),
            None => Err(e),
        },
        Err(e) => {
            if matches!(e, RoutingError::TableMissing(_)) {
                broker.routing.store(typed, None);
            }
            Err(e)
        }
    }
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
    fn a_segment_routed_before_is_unavailable_when_a_controller_calls_it_new() {
        let c = RoutingCache::new(Duration::from_secs(1));
        let routing = |online: &[&str], new: &[&str]| RoutingTable {
            table_name_with_type: "t_OFFLINE".into(),
            segments: online
                .iter()
                .map(|s| (s.to_string(), vec!["Server_1".to_string()]))
                .collect(),
            new_segments: new.iter().map(|s| s.to_string()).collect(),
            ..RoutingTable::default()
        };
        // Never routed: a new segment stays out.
        let r = c.admit("t_OFFLINE", routing(&["a"], &["b"]));
        assert_eq!(r.segments.keys().collect::<Vec<_>>(), ["a"]);
        let r = c.admit("t_OFFLINE", routing(&["a", "b"], &[]));
        assert_eq!(r.segments.len(), 2);
        // A lagging controller calls b new: b is unavailable, not gone.
        let r = c.admit("t_OFFLINE", routing(&["a"], &["b"]));
        assert_eq!(r.segments["b"], Vec::<String>::new());
        // Deleted (named nowhere): forgotten, so a later segment of that name starts new.
        c.admit("t_OFFLINE", routing(&["a"], &[]));
        let r = c.admit("t_OFFLINE", routing(&["a"], &["b"]));
        assert!(!r.segments.contains_key("b"));
    }

    #[test]
    fn entries_expire_and_can_be_dropped() {
        let c = RoutingCache::new(Duration::from_millis(50));
        assert!(c.cached("t_OFFLINE").is_none());
        c.store("t_OFFLINE", Some(table("t_OFFLINE")));
        assert_eq!(
            c.cached("t_OFFLINE").unwrap().unwrap().table_name_with_type,
            "t_OFFLINE"
        );
        c.store("t_REALTIME", None);
        assert_eq!(c.last("t_REALTIME"), Some(None));
        assert_eq!(c.cached("t_REALTIME"), Some(None));
        c.expire("t_OFFLINE");
        assert!(c.cached("t_OFFLINE").is_none());
        // Suspect, it is still the last routing, for when no controller answers.
        assert!(c.last("t_OFFLINE").unwrap().is_some());
        // Known to predate a change: gone.
        c.invalidate("t_OFFLINE");
        assert_eq!(c.last("t_OFFLINE"), None);
        c.store("t_OFFLINE", Some(table("t_OFFLINE")));
        std::thread::sleep(Duration::from_millis(60));
        assert!(c.cached("t_OFFLINE").is_none());
        // Expired, it still serves when the controller cannot answer.
        assert!(c.last("t_OFFLINE").unwrap().is_some());
        c.clear();
        assert_eq!(c.last("t_OFFLINE"), None);
        let never = RoutingCache::new(Duration::ZERO);
        never.store("t_OFFLINE", Some(table("t_OFFLINE")));
        assert!(never.cached("t_OFFLINE").is_none());
    }
}
