//! Change notification: every commit of the controller bumps the cluster's metadata version
//! and records which tables it touched; once the request that committed is done, the
//! controller publishes one [`Change`] to every [`ChangeListener`] — the broker and server of
//! its own process (awaited, so they see the change before the HTTP answer returns) and every
//! other online instance (pushed over HTTP, not awaited; their heartbeat polling is the
//! fallback). Each commit also records its own change under [`super::keys::LAST_CHANGE`]; where
//! the store can watch a key (ZooKeeper), brokers and servers [`follow`] it, so they learn of a
//! change even when the controller that made it died before pushing it.

use super::Op;
use crate::common::BoxFuture;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One published change.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// The metadata version after the change.
    pub version: u64,
    /// Raw names of the tables whose config, schema or segments changed.
    pub tables: Vec<String>,
    /// Whether instances or tenants changed.
    pub instances: bool,
    /// Any table may have changed (changes were missed): drop every cached routing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all: bool,
}

impl Change {
    /// The change a commit of `ops` at `version` makes.
    /// The raw table names `ops` touch (sorted, once each) and whether they touch instances.
    pub fn of(version: u64, ops: &[Op]) -> Change {
        let mut tables = BTreeSet::new();
        let mut instances = false;
        for op in ops {
            let key = match op {
                Op::Put(k, _) | Op::Delete(k) | Op::DeletePrefix(k) => k,
                Op::Expect(..) => continue,
            };
            match touched(key) {
                Some(Touched::Table(t)) => {
                    tables.insert(t);
                }
                Some(Touched::Instances) => instances = true,
                None => {}
            }
        }
        Change {
            version,
            tables: tables.into_iter().collect(),
            instances,
            all: false,
        }
    }
}

/// Follows the changes committed to `store` (its [`super::keys::LAST_CHANGE`] key), telling
/// `listener` of each — one marked [`Change::all`] when some were missed. `false`: the store
/// cannot watch keys (the controller's pushes and the heartbeat are the only way).
pub fn follow(store: &dyn super::MetadataStore, listener: Arc<dyn ChangeListener>) -> bool {
    let seen = Arc::new(AtomicU64::new(0));
    store.watch_key(
        super::keys::LAST_CHANGE,
        Arc::new(move |bytes: Option<Vec<u8>>| {
            let Some(mut change) = bytes.and_then(|b| serde_json::from_slice::<Change>(&b).ok())
            else {
                return;
            };
            let before = seen.fetch_max(change.version, Ordering::SeqCst);
            if change.version <= before {
                return;
            }
            // The first value read, or a jump past versions never seen: anything may differ.
            change.all = before == 0 || change.version > before + 1;
            let listener = listener.clone();
            async_std::task::spawn(async move { listener.changed(&change).await });
        }),
    )
}

/// What reacts to a change (a broker drops cached routing, a server applies its assignment).
pub trait ChangeListener: Send + Sync {
    /// Called once per published change; returns when the listener has applied it.
    fn changed<'a>(&'a self, change: &'a Change) -> BoxFuture<'a, ()>;
}

/// The version and the changes committed but not yet published.
#[derive(Debug, Default)]
pub struct ChangeLog {
    version: AtomicU64,
    pending: Mutex<(BTreeSet<String>, bool)>,
}

impl ChangeLog {
    /// A log starting at `version` (the stored one).
    pub fn new(version: u64) -> ChangeLog {
        ChangeLog {
            version: AtomicU64::new(version),
            pending: Mutex::default(),
        }
    }

    /// The current version.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::SeqCst)
    }

    /// Records a successful commit that made `change`.
    pub fn record(&self, change: &Change) {
        self.version.fetch_max(change.version, Ordering::SeqCst);
        if let Ok(mut p) = self.pending.lock() {
            p.0.extend(change.tables.iter().cloned());
            p.1 |= change.instances;
        }
    }

    /// Marks a table changed without a commit: a server reported one of its segments loaded
    /// for the first time, so brokers' cached routing of it lacks the segment.
    pub fn touch(&self, raw_table: &str) {
        if let Ok(mut p) = self.pending.lock() {
            p.0.insert(raw_table.to_string());
        }
    }

    /// The change to publish, if anything was committed since the last call.
    pub fn take(&self) -> Option<Change> {
        let mut p = self.pending.lock().ok()?;
        if p.0.is_empty() && !p.1 {
            return None;
        }
        let tables = std::mem::take(&mut p.0).into_iter().collect();
        let instances = std::mem::take(&mut p.1);
        Some(Change {
            version: self.version(),
            tables,
            instances,
            all: false,
        })
    }
}

enum Touched {
    Table(String),
    Instances,
}

/// What a key names (see [`super::keys`]).
fn touched(key: &str) -> Option<Touched> {
    let (kind, rest) = key.split_once('/')?;
    let name = rest.split('/').next().unwrap_or(rest);
    let raw = super::table_name::split(name).0.to_string();
    match kind {
        "schemas" | "tables" | "segments" | "paused" if !raw.is_empty() => {
            Some(Touched::Table(raw))
        }
        "instances" => Some(Touched::Instances),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commits_collect_tables_until_taken() {
        let log = ChangeLog::new(7);
        assert_eq!(log.take(), None);
        log.record(&Change::of(
            8,
            &[
                Op::Delete("tables/events_OFFLINE".into()),
                Op::DeletePrefix("segments/events_OFFLINE/".into()),
                Op::Put("schemas/orders".into(), vec![]),
                Op::Put("version".into(), vec![]),
            ],
        ));
        let c = log.take().unwrap();
        assert_eq!(c.version, 8);
        assert_eq!(c.tables, vec!["events".to_string(), "orders".to_string()]);
        assert!(!c.instances);
        assert_eq!(log.take(), None);
        log.record(&Change::of(
            9,
            &[Op::Put("instances/Server_h_1".into(), vec![])],
        ));
        assert!(log.take().unwrap().instances);
    }
}
