//! The controller's response bodies as types, each serialized by serde in the field order
//! Pinot's controller prints (the golden test `tests/tests/controller_views.rs` holds the bytes).
//! `serde_json::Value` appears only where Pinot passes JSON through uninterpreted: a schema's or a
//! table config's unrecognized properties and the stored schemas of `/tessera/catalog`.
//!
//! Handlers build one of these and answer it with [`json`].

use crate::metadata::table_name::TableType;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Map, Value as Json};
use std::collections::{BTreeMap, BTreeSet};

/// The HTTP answer with `body` as JSON.
pub fn json<T: Serialize>(body: &T) -> tide::Result {
    Ok(tide::Body::from_json(body)?.into())
}

/// A JSON object whose keys keep the order they were pushed in (segments in the store's order,
/// a segment's servers in assignment order).
#[derive(Debug, Clone, PartialEq)]
pub struct Entries<V>(pub Vec<(String, V)>);

impl<V> Default for Entries<V> {
    fn default() -> Self {
        Entries(Vec::new())
    }
}

impl<V: Serialize> Serialize for Entries<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// `{"status": "..."}`: Pinot's `SuccessResponse`.
#[derive(Debug, Serialize)]
pub struct Status {
    pub status: String,
}

impl Status {
    /// The answer `{"status": text}`.
    pub fn new(text: impl Into<String>) -> Status {
        Status {
            status: text.into(),
        }
    }
}

/// Pinot's `ConfigSuccessResponse`: what adding a schema or adding/updating a table answers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigSuccess<'a> {
    /// Properties of the request Pinot's model does not know, passed back as given.
    pub unrecognized_properties: &'a Map<String, Json>,
    pub status: String,
    /// `none`, `reload` or `rebuild` (updates only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_follow_up: Option<&'a str>,
}

/// `GET /tables`: table names.
#[derive(Debug, Serialize)]
pub struct TableList {
    pub tables: Vec<String>,
}

/// `GET /tessera/catalog`: every table's raw name with its schema, and which of them are
/// dimension tables (`isDimTable`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    pub tables: Entries<Json>,
    pub dim_tables: Vec<String>,
    /// Per table, its segments' rows and column figures (the brokers' optimizer reads them).
    pub statistics: std::collections::BTreeMap<String, segments::statistics::Statistics>,
    /// Per table, how many servers its segments are assigned to (tables with none are left out).
    pub servers: std::collections::BTreeMap<String, usize>,
}

/// `GET /instances`: instance ids.
#[derive(Debug, Serialize)]
pub struct InstanceList {
    pub instances: Vec<String>,
}

/// `GET /instances/{id}`: Pinot's `InstanceConfig` view — the port as a string, the ports
/// Tessera does not open as -1.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstanceView {
    pub instance_name: String,
    pub host_name: String,
    pub port: String,
    #[serde(rename = "type")]
    pub instance_type: crate::metadata::records::InstanceType,
    pub tags: Vec<String>,
    pub enabled: bool,
    pub grpc_port: i32,
    pub admin_port: i32,
    pub query_service_port: i32,
    pub query_mailbox_port: i32,
    pub pools: Option<Json>,
    pub system_resource_info: Option<Json>,
    pub online: bool,
}

impl InstanceView {
    /// The view of `record`, online or not.
    pub fn new(record: crate::metadata::records::InstanceRecord, online: bool) -> InstanceView {
        InstanceView {
            instance_name: record.instance_name,
            host_name: record.host_name,
            port: record.port.to_string(),
            instance_type: record.instance_type,
            tags: record.tags,
            enabled: record.enabled,
            grpc_port: -1,
            admin_port: -1,
            // Tessera's query port takes what Pinot's multi-stage query server and mailbox
            // ports take (and v1 queries too).
            query_service_port: record.query_port.map_or(-1, i32::from),
            query_mailbox_port: record.query_port.map_or(-1, i32::from),
            pools: None,
            system_resource_info: None,
            online,
        }
    }
}

/// `GET /tenants`: tenant names by role; `?type=` keeps one of them.
#[derive(Debug, Serialize)]
pub struct TenantList {
    #[serde(rename = "SERVER_TENANTS", skip_serializing_if = "Option::is_none")]
    pub server_tenants: Option<BTreeSet<String>>,
    #[serde(rename = "BROKER_TENANTS", skip_serializing_if = "Option::is_none")]
    pub broker_tenants: Option<BTreeSet<String>>,
}

/// `GET /tenants/{name}`: a tenant's instances by role; `?type=` keeps one of them.
#[derive(Debug, Serialize)]
pub struct TenantView {
    #[serde(rename = "ServerInstances", skip_serializing_if = "Option::is_none")]
    pub server_instances: Option<BTreeSet<String>>,
    #[serde(rename = "BrokerInstances", skip_serializing_if = "Option::is_none")]
    pub broker_instances: Option<BTreeSet<String>>,
    #[serde(rename = "tenantName")]
    pub tenant_name: String,
}

/// `{"OFFLINE": …, "REALTIME": …}` with the absent types left out: `GET /tables/{t}` (the
/// configs) and each element of `GET /segments/{t}` (one type's segment names).
#[derive(Debug, Serialize)]
pub struct ByTableType<T> {
    #[serde(rename = "OFFLINE", skip_serializing_if = "Option::is_none")]
    pub offline: Option<T>,
    #[serde(rename = "REALTIME", skip_serializing_if = "Option::is_none")]
    pub realtime: Option<T>,
}

impl<T> Default for ByTableType<T> {
    fn default() -> Self {
        ByTableType {
            offline: None,
            realtime: None,
        }
    }
}

impl<T> ByTableType<T> {
    /// Only `value`, under `t`.
    pub fn one(t: TableType, value: T) -> Self {
        let mut out = Self::default();
        out.set(t, value);
        out
    }
    /// Sets the value of `t`.
    pub fn set(&mut self, t: TableType, value: T) {
        match t {
            TableType::Offline => self.offline = Some(value),
            TableType::Realtime => self.realtime = Some(value),
        }
    }
    /// Whether no type has a value.
    pub fn is_empty(&self) -> bool {
        self.offline.is_none() && self.realtime.is_none()
    }
}

/// One element of `GET /segments/{t}/servers`: which server hosts which segments.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerSegments {
    pub table_name: String,
    pub server_to_segments_map: BTreeMap<String, Vec<String>>,
    pub server_to_segments_count_map: BTreeMap<String, usize>,
}

/// What one reload message did for a typed table (inside the reload answer's status text).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReloadJob {
    pub num_messages_sent: String,
    pub reload_job_id: String,
    #[serde(rename = "reloadJobMetaZKStorageStatus")]
    pub reload_job_meta_zk_storage_status: &'static str,
}

/// Segment → server → `ONLINE` / `OFFLINE` of one typed table.
pub type SegmentStates = Entries<Entries<&'static str>>;

/// `GET /tables/{t}/idealstate` and `/externalview`.
#[derive(Debug, Default, Serialize)]
pub struct StateView {
    #[serde(rename = "OFFLINE")]
    pub offline: Option<SegmentStates>,
    #[serde(rename = "REALTIME")]
    pub realtime: Option<SegmentStates>,
}

/// `GET /tables/{t}/size`: Pinot's `TableSizeReader.TableSizeDetails`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TableSize {
    pub table_name: String,
    pub reported_size_in_bytes: u64,
    pub estimated_size_in_bytes: u64,
    pub reported_size_per_replica_in_bytes: u64,
    pub offline_segments: Option<SubTypeSize>,
    pub realtime_segments: Option<SubTypeSize>,
}

/// The sizes of one typed table (`TableSubTypeSizeDetails`).
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubTypeSize {
    pub reported_size_in_bytes: u64,
    pub estimated_size_in_bytes: u64,
    pub missing_segments: u64,
    pub reported_size_per_replica_in_bytes: u64,
    pub segments: Entries<SegmentSize>,
}

/// One segment's size over its replicas (`SegmentSizeDetails`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentSize {
    pub reported_size_in_bytes: u64,
    pub estimated_size_in_bytes: u64,
    pub max_reported_size_per_replica_in_bytes: u64,
    pub server_info: Entries<ServerSegmentSize>,
}

/// One replica's size of a segment (`SegmentSizeInfo`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerSegmentSize {
    pub segment_name: String,
    pub disk_size_in_bytes: u64,
}

/// Pause, resume and `pauseStatus` of a real-time table (Pinot's `PauseStatusDetails`);
/// `pauseStatus` carries no comment.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PauseStatus {
    pub pause_flag: bool,
    pub consuming_segments: Vec<String>,
    pub reason_code: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    pub timestamp: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_keep_their_order_and_options_skip_or_print_null() {
        let e = Entries(vec![("b".to_string(), 1), ("a".to_string(), 2)]);
        assert_eq!(serde_json::to_string(&e).unwrap(), r#"{"b":1,"a":2}"#);
        let t = TenantList {
            server_tenants: None,
            broker_tenants: Some(BTreeSet::from(["x".to_string()])),
        };
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"BROKER_TENANTS":["x"]}"#
        );
        assert_eq!(
            serde_json::to_string(&StateView::default()).unwrap(),
            r#"{"OFFLINE":null,"REALTIME":null}"#
        );
    }
}
