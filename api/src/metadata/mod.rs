//! The controller's durable metadata: schemas, table configs, segment records with their
//! assignment, and instances, as JSON values under string keys.
//!
//! [`MetadataStore`] is the one seam: key/value get, prefix listing and atomic multi-key
//! transactions. [`RedbStore`] keeps it in an embedded transactional file under the data dir;
//! a ZooKeeper- or etcd-backed store can implement the same trait. [`keys`] owns the key layout.

pub mod changes;
pub mod keys;
pub mod records;
pub mod redb_store;
pub mod table_name;

pub use redb_store::RedbStore;

/// A metadata store failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The backing store failed (I/O, corruption, lock).
    #[error("metadata store error: {0}")]
    Backend(String),
    /// The store was closed (its role is shutting down).
    #[error("metadata store is closed")]
    Closed,
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
}

/// A transactional key/value store: every [`MetadataStore::commit`] applies all of its ops or
/// none, and readers never see a half-applied commit.
pub trait MetadataStore: Send + Sync {
    /// The value of `key`.
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError>;
    /// All `(key, value)` pairs whose key starts with `prefix`, in key order.
    fn list(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, StoreError>;
    /// Applies `ops` atomically, in order.
    fn commit(&self, ops: Vec<Op>) -> Result<(), StoreError>;
    /// Releases the backing file; later calls fail with [`StoreError::Closed`].
    fn close(&self);

    /// Sets one key.
    fn put(&self, key: &str, value: Vec<u8>) -> Result<(), StoreError> {
        self.commit(vec![Op::Put(key.to_string(), value)])
    }
    /// Removes one key.
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.commit(vec![Op::Delete(key.to_string())])
    }
}
