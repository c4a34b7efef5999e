//! Typed access to the controller's metadata: every read or write of a schema, table config,
//! segment record or instance goes through here, so handlers never see keys or bytes.

use super::Controller;
use crate::http::ApiError;
use crate::metadata::records::{InstanceRecord, SegmentRecord};
use crate::metadata::table_name::{self, TableType};
use crate::metadata::{Op, StoreError, keys};
use segments::types::Schema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value as Json;

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::Conflict(_) => ApiError::new(409, e.to_string()),
            StoreError::Unavailable(_) | StoreError::Closed | StoreError::Indeterminate(_) => {
                ApiError::new(503, e.to_string())
            }
            StoreError::Backend(_) => ApiError::internal(e.to_string()),
        }
    }
}

fn decode<T: DeserializeOwned>(key: &str, bytes: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(bytes)
        .map_err(|e| ApiError::internal(format!("corrupt metadata at '{key}': {e}")))
}

/// Serialises a record for an [`Op::Put`].
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

impl Controller {
    /// The record at `key`, if any.
    pub fn read<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, ApiError> {
        self.store.get(key)?.map(|b| decode(key, &b)).transpose()
    }

    /// Every record under `prefix`, in key order.
    pub fn read_all<T: DeserializeOwned>(&self, prefix: &str) -> Result<Vec<T>, ApiError> {
        self.store
            .list(prefix)?
            .iter()
            .map(|(k, v)| decode(k, v))
            .collect()
    }

    /// A schema's JSON.
    pub fn schema_json(&self, name: &str) -> Result<Option<Json>, ApiError> {
        self.read(&keys::schema(name))
    }

    /// A parsed schema.
    pub fn schema(&self, name: &str) -> Result<Option<Schema>, ApiError> {
        match self.schema_json(name)? {
            None => Ok(None),
            Some(j) => Schema::from_json(&j.to_string())
                .map(Some)
                .map_err(|e| ApiError::internal(format!("stored schema '{name}' is invalid: {e}"))),
        }
    }

    /// All schema names, sorted.
    pub fn schema_names(&self) -> Result<Vec<String>, ApiError> {
        Ok(self
            .store
            .list(keys::SCHEMAS)?
            .into_iter()
            .map(|(k, _)| k[keys::SCHEMAS.len()..].to_string())
            .collect())
    }

    /// A table config by typed name.
    pub fn table_config(&self, name_with_type: &str) -> Result<Option<Json>, ApiError> {
        self.read(&keys::table(name_with_type))
    }

    /// All typed table names, sorted.
    pub fn table_names(&self) -> Result<Vec<String>, ApiError> {
        Ok(self
            .store
            .list(keys::TABLES)?
            .into_iter()
            .map(|(k, _)| k[keys::TABLES.len()..].to_string())
            .collect())
    }

    /// The existing typed tables a name (raw or typed) with an optional `?type=` addresses.
    pub fn existing_tables(
        &self,
        name: &str,
        type_param: Option<TableType>,
    ) -> Result<Vec<(TableType, String)>, ApiError> {
        let (raw, types) = table_name::candidates(name, type_param)?;
        let mut out = Vec::new();
        for t in types {
            let typed = table_name::with_type(&raw, t);
            if self.store.get(&keys::table(&typed))?.is_some() {
                out.push((t, typed));
            }
        }
        Ok(out)
    }

    /// A table's segment records, by segment name.
    pub fn segments(&self, table_with_type: &str) -> Result<Vec<SegmentRecord>, ApiError> {
        self.read_all(&keys::segments_of(table_with_type))
    }

    /// All segment records of all tables.
    pub fn all_segments(&self) -> Result<Vec<SegmentRecord>, ApiError> {
        self.read_all(keys::SEGMENTS)
    }

    /// One segment record.
    pub fn segment(
        &self,
        table_with_type: &str,
        segment: &str,
    ) -> Result<Option<SegmentRecord>, ApiError> {
        self.read(&keys::segment(table_with_type, segment))
    }

    /// All registered instances.
    pub fn instances(&self) -> Result<Vec<InstanceRecord>, ApiError> {
        self.read_all(keys::INSTANCES)
    }

    /// One registered instance.
    pub fn instance(&self, id: &str) -> Result<Option<InstanceRecord>, ApiError> {
        self.read(&keys::instance(id))
    }

    /// Applies ops atomically, with the metadata version bumped in the same commit — a
    /// compare-and-set on the version, so a commit by another controller since it was read
    /// fails this one (409) instead of being overwritten; the change is published to brokers
    /// and servers when the request is done ([`super::changes`]).
    pub fn commit(&self, ops: Vec<Op>) -> Result<(), ApiError> {
        Ok(self.try_commit(ops)?)
    }

    /// [`Controller::commit`], failing with the store's own error: a caller that must undo
    /// work when nothing was written tells [`StoreError::Indeterminate`] (perhaps written) apart.
    pub fn try_commit(&self, mut ops: Vec<Op>) -> Result<(), StoreError> {
        let stored = self.store.get(keys::VERSION)?;
        let version = parse_version(stored.as_deref()) + 1;
        let change = crate::metadata::changes::Change::of(version, &ops);
        ops.push(Op::Expect(keys::VERSION.to_string(), stored));
        ops.push(Op::Put(
            keys::VERSION.to_string(),
            version.to_string().into_bytes(),
        ));
        ops.push(Op::Put(keys::LAST_CHANGE.to_string(), encode(&change)));
        self.store.commit(ops)?;
        self.changes.record(&change);
        Ok(())
    }

    /// The stored metadata version (0 for a new store).
    pub fn stored_version(store: &dyn crate::metadata::MetadataStore) -> u64 {
        parse_version(store.get(keys::VERSION).ok().flatten().as_deref())
    }
}

fn parse_version(bytes: Option<&[u8]>) -> u64 {
    bytes
        .and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|t| t.parse().ok())
        .unwrap_or(0)
}
