//! [`RedbStore`]: the [`MetadataStore`] in one embedded redb file (`<data dir>/metadata.redb`).
//! redb gives serializable write transactions and crash-safe commits, which is all the
//! controller needs from ZooKeeper in a single-controller cluster.

use super::{MetadataStore, Op, StoreError};
use redb::{Database, ReadableTable, TableDefinition};
use std::path::Path;
use std::sync::RwLock;

const KV: TableDefinition<&str, &[u8]> = TableDefinition::new("metadata");

fn backend(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(e.to_string())
}

/// A metadata store in a redb file.
pub struct RedbStore {
    db: RwLock<Option<Database>>,
}

impl RedbStore {
    /// Opens (or creates) the store file at `path`.
    pub fn open(path: &Path) -> Result<RedbStore, StoreError> {
        let db = Database::create(path)
            .map_err(|e| StoreError::Backend(format!("cannot open '{}': {e}", path.display())))?;
        let txn = db.begin_write().map_err(backend)?;
        txn.open_table(KV).map_err(backend)?;
        txn.commit().map_err(backend)?;
        Ok(RedbStore {
            db: RwLock::new(Some(db)),
        })
    }

    fn with_db<T>(
        &self,
        f: impl FnOnce(&Database) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let guard = self
            .db
            .read()
            .map_err(|_| StoreError::Backend("lock poisoned".into()))?;
        match guard.as_ref() {
            Some(db) => f(db),
            None => Err(StoreError::Closed),
        }
    }
}

impl MetadataStore for RedbStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.with_db(|db| {
            let txn = db.begin_read().map_err(backend)?;
            let table = txn.open_table(KV).map_err(backend)?;
            Ok(table.get(key).map_err(backend)?.map(|v| v.value().to_vec()))
        })
    }

    fn list(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        self.with_db(|db| {
            let txn = db.begin_read().map_err(backend)?;
            let table = txn.open_table(KV).map_err(backend)?;
            let mut out = Vec::new();
            for entry in table.range(prefix..).map_err(backend)? {
                let (k, v) = entry.map_err(backend)?;
                if !k.value().starts_with(prefix) {
                    break;
                }
                out.push((k.value().to_string(), v.value().to_vec()));
            }
            Ok(out)
        })
    }

    fn commit(&self, ops: Vec<Op>) -> Result<(), StoreError> {
        self.with_db(|db| {
            let txn = db.begin_write().map_err(backend)?;
            {
                let mut table = txn.open_table(KV).map_err(backend)?;
                for op in &ops {
                    match op {
                        Op::Put(k, v) => {
                            table.insert(k.as_str(), v.as_slice()).map_err(backend)?;
                        }
                        Op::Delete(k) => {
                            table.remove(k.as_str()).map_err(backend)?;
                        }
                        Op::DeletePrefix(p) => {
                            table
                                .retain_in(p.as_str().., |k, _| !k.starts_with(p.as_str()))
                                .map_err(backend)?;
                        }
                        Op::Expect(k, want) => {
                            let have = table.get(k.as_str()).map_err(backend)?;
                            if have.as_ref().map(|v| v.value()) != want.as_deref() {
                                // Dropping the transaction uncommitted writes nothing.
                                return Err(StoreError::Conflict(format!("'{k}' changed")));
                            }
                        }
                    }
                }
            }
            txn.commit().map_err(backend)
        })
    }

    fn close(&self) {
        if let Ok(mut guard) = self.db.write() {
            guard.take();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[test]
    fn commits_are_atomic_and_durable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.redb");
        let store = RedbStore::open(&path).unwrap();
        store
            .commit(vec![
                Op::Put("tables/a_OFFLINE".into(), b"1".to_vec()),
                Op::Put("segments/a_OFFLINE/s0".into(), b"2".to_vec()),
                Op::Put("segments/a_OFFLINE/s1".into(), b"3".to_vec()),
                Op::Put("segments/ab_OFFLINE/s0".into(), b"4".to_vec()),
            ])
            .unwrap();
        assert_eq!(store.list("segments/a_OFFLINE/").unwrap().len(), 2);
        store
            .commit(vec![
                Op::Delete("tables/a_OFFLINE".into()),
                Op::DeletePrefix("segments/a_OFFLINE/".into()),
            ])
            .unwrap();
        assert_eq!(store.get("tables/a_OFFLINE").unwrap(), None);
        assert_eq!(
            store.list("segments/").unwrap(),
            vec![("segments/ab_OFFLINE/s0".to_string(), b"4".to_vec())]
        );
        let conflict = store.commit(vec![
            Op::Put("tables/b_OFFLINE".into(), b"5".to_vec()),
            Op::Expect("segments/ab_OFFLINE/s0".into(), Some(b"3".to_vec())),
        ]);
        assert!(
            matches!(conflict, Err(StoreError::Conflict(_))),
            "{conflict:?}"
        );
        assert_eq!(store.get("tables/b_OFFLINE").unwrap(), None);
        store
            .commit(vec![
                Op::Expect("segments/ab_OFFLINE/s0".into(), Some(b"4".to_vec())),
                Op::Expect("tables/b_OFFLINE".into(), None),
                Op::Put("tables/b_OFFLINE".into(), b"5".to_vec()),
            ])
            .unwrap();
        assert_eq!(store.get("tables/b_OFFLINE").unwrap(), Some(b"5".to_vec()));
        store.delete("tables/b_OFFLINE").unwrap();
        store.close();
        assert!(matches!(store.get("x"), Err(StoreError::Closed)));
        let again = RedbStore::open(&path).unwrap();
        assert_eq!(
            again.get("segments/ab_OFFLINE/s0").unwrap(),
            Some(b"4".to_vec())
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]
        #[test]
        fn behaves_like_a_btreemap(ops in proptest::collection::vec((0u8..3, "[ab]/[a-c]{0,2}", any::<u8>()), 1..30)) {
            let dir = tempfile::tempdir().unwrap();
            let store = RedbStore::open(&dir.path().join("m.redb")).unwrap();
            let mut model = BTreeMap::new();
            for (kind, key, v) in ops {
                let op = match kind {
                    0 => { model.insert(key.clone(), vec![v]); Op::Put(key, vec![v]) }
                    1 => { model.remove(&key); Op::Delete(key) }
                    _ => { model.retain(|k: &String, _| !k.starts_with(key.as_str())); Op::DeletePrefix(key) }
                };
                store.commit(vec![op]).unwrap();
            }
            let all: Vec<_> = model.into_iter().collect();
            prop_assert_eq!(store.list("").unwrap(), all);
        }
    }
}
