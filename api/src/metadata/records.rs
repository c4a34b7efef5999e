//! The records the controller persists besides schemas and table configs: segments (with their
//! server assignment) and instances.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One segment of a table as the controller knows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentRecord {
    pub segment_name: String,
    pub table_name_with_type: String,
    /// CRC-32 of the uploaded archive; a refresh changes it, servers re-download on change.
    pub crc: u32,
    /// The archive's size.
    pub size_bytes: u64,
    /// The segment's unpacked size, as a server holds it (0: unknown — a metadata push, or a
    /// record from before it was kept; [`SegmentRecord::stored_bytes`] falls back to the
    /// archive's size).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub data_bytes: u64,
    pub total_docs: u64,
    pub push_time_ms: i64,
    #[serde(default)]
    pub refresh_time_ms: Option<i64>,
    /// File name of the archive in the deep-store directory of the table (empty when the
    /// archive lives at `download_uri`).
    pub archive: String,
    /// Where the archive lives when a metadata push left it in the user's deep store
    /// (`file:///…` or `http://…`): servers fetch it from there, not from the controller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download_uri: Option<String>,
    /// Servers assigned to host the segment.
    pub servers: Vec<String>,
    /// Bumped by `POST /segments/{t}/reload`: servers reopen the segment.
    #[serde(default)]
    pub reload_version: u64,
    /// The segment's start time (smallest time-column value) in epoch millis, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time_ms: Option<i64>,
    /// The segment's end time (largest time-column value) in epoch millis, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time_ms: Option<i64>,
    /// Pinot's segment custom map (`MergeRollupTask.mergeLevel`, `PurgeTask.time`, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub custom: BTreeMap<String, String>,
    /// Set once a tier move placed the segment on the tier's servers (their tag).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier_tag: Option<String>,
    /// The segment's rows and column figures (distinct counts, ranges) from its metadata, for
    /// the brokers' optimizer; none for a consuming segment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statistics: Option<segments::statistics::Statistics>,
    /// Which life of this segment name: drawn at the first upload, kept by refreshes, so a copy
    /// of an older version still answers while the new one loads (old or new data, never a
    /// mix), and a copy from before the table was deleted and re-created never does. 0: unknown
    /// (records from before it existed; the CRC decides).
    #[serde(default)]
    pub incarnation: u64,
    /// For a real-time table's segment: the stream range it covers and whether it is still
    /// consuming (Pinot's `segment.realtime.*` metadata).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamRange>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl SegmentRecord {
    /// The bytes one replica of the segment takes on a server, as well as it is known.
    pub fn stored_bytes(&self) -> u64 {
        if self.data_bytes > 0 {
            self.data_bytes
        } else {
            self.size_bytes
        }
    }

    /// Whether this is a real-time segment still being consumed (no archive yet).
    pub fn is_consuming(&self) -> bool {
        self.stream
            .as_ref()
            .is_some_and(|s| s.status == StreamStatus::InProgress)
    }
}

/// Whether a real-time segment is still consuming (`IN_PROGRESS`) or committed (`DONE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StreamStatus {
    InProgress,
    Done,
}

/// The part of a stream partition a real-time segment holds: messages from `start_offset` up
/// to (not including) `end_offset`, which is known once the segment is committed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamRange {
    pub status: StreamStatus,
    pub topic: String,
    pub partition: i32,
    /// The segment's sequence number within its partition (Pinot's LLC name's third part).
    pub sequence: u32,
    pub start_offset: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_offset: Option<i64>,
    /// When consumption of this segment began (epoch millis).
    pub creation_time_ms: i64,
    /// The server whose build was committed (once `DONE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub committer: Option<String>,
}

/// A fresh, non-zero incarnation.
pub fn new_incarnation() -> u64 {
    let mut b = [0u8; 8];
    if getrandom::getrandom(&mut b).is_err() {
        // No random source: the clock, which differs between a table's lives too.
        return (crate::common::clock::now_ms() as u64).max(1);
    }
    u64::from_le_bytes(b).max(1)
}

/// Role of a registered instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum InstanceType {
    Controller,
    Broker,
    Server,
    Minion,
}

impl InstanceType {
    /// `Controller` / `Broker` / `Server` / `Minion`, the prefix of instance ids.
    pub fn prefix(self) -> &'static str {
        match self {
            InstanceType::Controller => "Controller",
            InstanceType::Broker => "Broker",
            InstanceType::Server => "Server",
            InstanceType::Minion => "Minion",
        }
    }
}

/// A registered instance (Pinot's `InstanceConfig`, reduced).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstanceRecord {
    pub instance_name: String,
    pub host_name: String,
    pub port: u16,
    #[serde(rename = "type")]
    pub instance_type: InstanceType,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default = "enabled")]
    pub enabled: bool,
    /// A broker's or server's query port, when it has one (other processes send it queries,
    /// stages and multi-stage blocks there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_port: Option<u16>,
}

fn enabled() -> bool {
    true
}

impl InstanceRecord {
    /// `http://host:port` (`https://` in a process with TLS: every role of a cluster speaks it).
    pub fn base_url(&self) -> String {
        crate::tls::url(&self.host_name, self.port)
    }

    /// `host:port` of the query port, when the instance has one.
    pub fn query_address(&self) -> Option<String> {
        self.query_port.map(|p| format!("{}:{p}", self.host_name))
    }
}

/// `<Type>_<host>_<port>`, Pinot's instance id.
pub fn instance_id(t: InstanceType, host: &str, port: u16) -> String {
    format!("{}_{host}_{port}", t.prefix())
}

/// Segment names per table.
pub type LoadedSegments = BTreeMap<String, Vec<String>>;

/// What a server reports on each heartbeat: the segments it hosts (stored copies) and the
/// real-time segments it is consuming, per table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentReport {
    pub hosted: LoadedSegments,
    pub consuming: LoadedSegments,
}

/// What a live broker, server or controller announces in the store's live instances (a
/// ZooKeeper ephemeral node under `LIVEINSTANCES`): where it answers, and a server's report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LiveAnnouncement {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_type: Option<InstanceType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<SegmentReport>,
}

/// One segment a server must host (its heartbeat answer lists all of them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssignedSegment {
    pub table_name_with_type: String,
    pub segment_name: String,
    pub crc: u32,
    pub reload_version: u64,
    /// The segment record's incarnation.
    #[serde(default)]
    pub incarnation: u64,
    /// The record's `download_uri`: fetch the archive from there (and check its CRC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download_uri: Option<String>,
    /// Set while the segment is consuming: the server consumes it from the stream instead of
    /// downloading it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consuming: Option<ConsumingAssignment>,
}

/// What a server needs to consume a segment: where it starts, and whether its table is paused
/// (then it commits what it has and stops).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumingAssignment {
    pub partition: i32,
    pub start_offset: i64,
    pub creation_time_ms: i64,
    #[serde(default)]
    pub paused: bool,
}

/// The routing table a broker asks for: which online servers have each segment loaded.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoutingTable {
    pub table_name_with_type: String,
    /// Segment → online servers that report it loaded (empty: unavailable).
    pub segments: BTreeMap<String, Vec<String>>,
    /// Segments pushed within the grace period that no server has reported loaded, as far as
    /// the answering controller knows: left out of `segments`, so a query right after an upload
    /// answers without them rather than failing. A broker that has already routed one to a
    /// server treats it as unavailable instead — the controller's view is behind its own
    /// ([`crate::broker::routing_cache`]).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub new_segments: BTreeSet<String>,
    /// Server id → base URL.
    pub servers: BTreeMap<String, String>,
    /// Server id → `host:port` of its query port, for servers that have one.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub query_addresses: BTreeMap<String, String>,
    /// Segment → CRC of the copy the controller routes: a server holding another copy under
    /// the same name (a table deleted and re-created, a refresh not yet applied) refuses it.
    #[serde(default)]
    pub crcs: BTreeMap<String, u32>,
    /// Segment → incarnation of the routed segment: a server's copy of that incarnation answers
    /// even if it is an older version (a refresh not yet applied there); a copy of another
    /// incarnation (the table deleted and re-created) never does.
    #[serde(default)]
    pub incarnations: BTreeMap<String, u64>,
    /// For the offline part of a hybrid table: where its rows end and the real-time part's
    /// begin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_boundary: Option<TimeBoundary>,
    /// The asking broker's share of the table's `quota.maxQueriesPerSecond`: the rate divided
    /// by the online brokers of the table's tenant (Pinot's per-broker rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_queries_per_second: Option<QueryRate>,
}

/// A rate in queries per second (finite and positive where it is made), compared by value.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct QueryRate(pub f64);

impl PartialEq for QueryRate {
    fn eq(&self, other: &QueryRate) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for QueryRate {}

/// A hybrid table's time boundary: the offline table answers `column <= value`, the real-time
/// table `column > value` (`value` in the column's own unit).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimeBoundary {
    pub column: String,
    pub value: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_ids_and_json() {
        assert_eq!(
            instance_id(InstanceType::Server, "127.0.0.1", 8098),
            "Server_127.0.0.1_8098"
        );
        let r = InstanceRecord {
            instance_name: "Broker_h_1".into(),
            host_name: "h".into(),
            port: 1,
            instance_type: InstanceType::Broker,
            tags: vec!["DefaultTenant_BROKER".into()],
            enabled: true,
            query_port: None,
        };
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["type"], "BROKER");
        assert_eq!(j["hostName"], "h");
        assert!(j.get("queryPort").is_none());
        assert_eq!(serde_json::from_value::<InstanceRecord>(j).unwrap(), r);
        assert_eq!(r.base_url(), "http://h:1");
        assert_eq!(r.query_address(), None);
        // A server's query port round-trips; a record written before it existed reads as none.
        let s = InstanceRecord {
            query_port: Some(7),
            ..r.clone()
        };
        let j = serde_json::to_value(&s).unwrap();
        assert_eq!(j["queryPort"], 7);
        assert_eq!(serde_json::from_value::<InstanceRecord>(j).unwrap(), s);
        assert_eq!(s.query_address().as_deref(), Some("h:7"));
    }
}
