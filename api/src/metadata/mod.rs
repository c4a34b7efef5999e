//! The controller's durable metadata: schemas, table configs, segment records with their
//! assignment, and instances, as JSON values under string keys.
//!
//! [`MetadataStore`] is the one seam: key/value get, prefix listing, atomic multi-key
//! transactions with compare-and-set ([`Op::Expect`]), and the coordination several controllers
//! need (a cluster-wide write lease, leadership, the live instances). [`RedbStore`] keeps it in
//! an embedded transactional file under the data dir — one controller, which is trivially the
//! leader, and liveness from heartbeats; [`zk::ZkStore`] keeps it in ZooKeeper, laid out as
//! Pinot lays out its cluster, for many controllers. [`keys`] owns the key layout.

pub mod changes;
pub mod keys;
pub mod lineage;
pub mod records;
pub mod redb_store;
pub mod table_name;
pub mod tasks;
pub mod zk;

pub use redb_store::RedbStore;

use std::collections::BTreeMap;
use std::sync::Arc;

/// A metadata store failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The backing store failed (I/O, corruption, lock).
    #[error("metadata store error: {0}")]
    Backend(String),
    /// The store was closed (its role is shutting down).
    #[error("metadata store is closed")]
    Closed,
    /// An [`Op::Expect`] did not hold, or another writer changed a key between this commit's
    /// reads and its write: nothing was written.
    #[error("metadata changed concurrently ({0}); nothing was written, retry")]
    Conflict(String),
    /// The store cannot be reached now (ZooKeeper down or the session lost); nothing was
    /// written.
    #[error("metadata store unavailable: {0}")]
    Unavailable(String),
    /// A commit was sent and no answer came back (the connection was lost, the call timed
    /// out): it may or may not have been applied. Whatever the commit names must be kept —
    /// the record may be there.
    #[error("metadata store did not say whether the change was applied: {0}")]
    Indeterminate(String),
}

/// One write in a transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Set `key` to the bytes.
    Put(String, Vec<u8>),
    /// Remove `key` (no error if absent).
    Delete(String),
    /// Remove every key starting with the prefix.
    DeletePrefix(String),
    /// Write nothing unless `key` holds exactly this value (`None`: is absent) when the commit
    /// applies — the compare of a compare-and-set; a miss fails the commit with
    /// [`StoreError::Conflict`].
    Expect(String, Option<Vec<u8>>),
}

/// Held while a controller reads, checks and writes; dropping it lets the next writer in.
pub type WriteLease = Box<dyn Send + Sync>;

/// What a live instance announces (its ephemeral node's data): the announcing role's own bytes.
pub type LiveInstances = BTreeMap<String, Vec<u8>>;

/// Told the live instances whenever they change.
pub type LiveWatch = Arc<dyn Fn(LiveInstances) + Send + Sync>;

/// Told a key's value (`None`: absent) now and whenever it changes.
pub type KeyWatch = Arc<dyn Fn(Option<Vec<u8>>) + Send + Sync>;

/// A transactional key/value store: every [`MetadataStore::commit`] applies all of its ops or
/// none, and readers never see a half-applied commit.
pub trait MetadataStore: Send + Sync {
    /// The value of `key`.
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError>;
    /// All `(key, value)` pairs whose key starts with `prefix`, in key order.
    fn list(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, StoreError>;
    /// Applies `ops` atomically, in order.
    fn commit(&self, ops: Vec<Op>) -> Result<(), StoreError>;
    /// Releases the backing file or session; later calls fail with [`StoreError::Closed`].
    fn close(&self);

    /// Whether other processes share this store (several controllers, and brokers and servers
    /// that watch it); a process-local store answers `false`.
    fn is_shared(&self) -> bool {
        false
    }

    /// Blocks until every commit any process had acknowledged before the call is visible to
    /// this process's later reads (a linearizable read is this, then the read). A store only
    /// one process opens is always current.
    fn catch_up(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Blocks until this process may run a read-check-write sequence alone in the cluster.
    /// `None`: the store has one writer process, whose own lock suffices.
    fn lock_writes(&self) -> Result<Option<WriteLease>, StoreError> {
        Ok(None)
    }

    /// Whether this process's controller leads the cluster (runs assignment, periodic tasks):
    /// always, for a store only one controller opens.
    fn is_leader(&self) -> bool {
        true
    }

    /// Announces `id` as live with `data` until this process ends or its session is lost;
    /// again with new data updates it. `false`: the store keeps no live instances (liveness
    /// comes from heartbeats).
    fn announce(&self, id: &str, data: &[u8]) -> Result<bool, StoreError> {
        let _ = (id, data);
        Ok(false)
    }

    /// The live instances now, if the store keeps them.
    fn live_instances(&self) -> Result<Option<LiveInstances>, StoreError> {
        Ok(None)
    }

    /// Calls `watch` with `key`'s value now and after every change (at least the latest value
    /// of a quick succession); `false`: the store cannot watch keys.
    fn watch_key(&self, key: &str, watch: KeyWatch) -> bool {
        let _ = (key, watch);
        false
    }

    /// Calls `watch` with the live instances now and on every change; `false`: the store keeps
    /// no live instances.
    fn watch_live(&self, watch: LiveWatch) -> bool {
        let _ = watch;
        false
    }

    /// Sets one key.
    fn put(&self, key: &str, value: Vec<u8>) -> Result<(), StoreError> {
        self.commit(vec![Op::Put(key.to_string(), value)])
    }
    /// Removes one key.
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.commit(vec![Op::Delete(key.to_string())])
    }
}
