//! What a server says about its consuming segments (`GET /tables/{t}/consumingSegmentsInfo` on
//! a server, Pinot's `SegmentConsumerInfo`), and the controller's summary over all servers
//! (Pinot's `ConsumingSegmentsInfoMap`). Offsets are strings keyed by partition, as in Pinot.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One consuming segment on one server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentConsumerInfo {
    pub segment_name: String,
    /// `CONSUMING` or `NOT_CONSUMING`.
    pub consumer_state: String,
    pub last_consumed_timestamp: i64,
    pub partition_to_offset_map: BTreeMap<String, String>,
    pub partition_offset_info: ServerOffsetInfo,
}

/// A server's offsets of one consuming segment.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerOffsetInfo {
    pub current_offsets: BTreeMap<String, String>,
    pub latest_upstream_offsets: BTreeMap<String, String>,
    pub records_lag: BTreeMap<String, String>,
    pub availability_lag_ms: BTreeMap<String, String>,
}

/// The controller's `GET /tables/{t}/consumingSegmentsInfo`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ConsumingSegmentsInfoMap {
    /// Consuming segment → what each server hosting it says (empty: no server answered for it).
    #[serde(rename = "_segmentToConsumingInfoMap")]
    pub segments: BTreeMap<String, Vec<ConsumingSegmentInfo>>,
    #[serde(rename = "serversFailingToRespond")]
    pub servers_failing_to_respond: usize,
    #[serde(rename = "serversUnparsableRespond")]
    pub servers_unparsable_respond: usize,
}

/// One server's view of a consuming segment, in the controller's summary.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumingSegmentInfo {
    pub server_name: String,
    pub consumer_state: String,
    pub last_consumed_timestamp: i64,
    pub partition_to_offset_map: BTreeMap<String, String>,
    pub partition_offset_info: OffsetInfo,
}

/// The controller's names for a server's [`ServerOffsetInfo`].
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OffsetInfo {
    pub current_offsets_map: BTreeMap<String, String>,
    pub latest_upstream_offset_map: BTreeMap<String, String>,
    pub records_lag_map: BTreeMap<String, String>,
    pub availability_lag_ms_map: BTreeMap<String, String>,
}

impl ConsumingSegmentInfo {
    /// A server's report, under the controller's names.
    pub fn from_server(server_name: &str, info: SegmentConsumerInfo) -> ConsumingSegmentInfo {
        let o = info.partition_offset_info;
        ConsumingSegmentInfo {
            server_name: server_name.to_string(),
            consumer_state: info.consumer_state,
            last_consumed_timestamp: info.last_consumed_timestamp,
            partition_to_offset_map: info.partition_to_offset_map,
            partition_offset_info: OffsetInfo {
                current_offsets_map: o.current_offsets,
                latest_upstream_offset_map: o.latest_upstream_offsets,
                records_lag_map: o.records_lag,
                availability_lag_ms_map: o.availability_lag_ms,
            },
        }
    }
}
