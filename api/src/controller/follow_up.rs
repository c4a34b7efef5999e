//! `requiredFollowUp`: what an operator must do after a table config (or schema) update for it
//! to take effect, computed from a diff of the old and new config. Tessera's addition to
//! Pinot's `ConfigSuccessResponse`, following the interface's table of changes:
//!
//! | change | follow-up |
//! |---|---|
//! | transform function of an existing derived column; more partitions on an upsert table | `re-bootstrap` |
//! | `segmentPartitionConfig` (re-partitioning) | `refresh` |
//! | indexes (`tableIndexConfig`, `fieldConfigList`) or the schema | `reload` |
//! | stream topic or stream cluster (broker list) | `pause-resume` |
//! | anything else | `none` |
//!
//! When several apply, the most disruptive wins (re-bootstrap > refresh > reload > pause-resume).

use serde_json::{Map, Value as Json};
use std::collections::BTreeMap;

/// The follow-up an update needs, ordered from least to most disruptive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FollowUp {
    None,
    PauseResume,
    Reload,
    Refresh,
    ReBootstrap,
}

impl FollowUp {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            FollowUp::None => "none",
            FollowUp::PauseResume => "pause-resume",
            FollowUp::Reload => "reload",
            FollowUp::Refresh => "refresh",
            FollowUp::ReBootstrap => "re-bootstrap",
        }
    }
}

use crate::common::transform::transforms;

fn partition_counts(config: &Json) -> BTreeMap<String, u64> {
    config["tableIndexConfig"]["segmentPartitionConfig"]["columnPartitionMap"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(c, p)| Some((c.clone(), p["numPartitions"].as_u64()?)))
        .collect()
}

fn upsert_enabled(config: &Json) -> bool {
    config["upsertConfig"].is_object()
        && config["upsertConfig"]["mode"]
            .as_str()
            .is_none_or(|m| m != "NONE")
}

/// Stream settings that name the topic or the cluster (`stream.<type>.topic.name`,
/// `stream.<type>.broker.list`, `bootstrap.servers`), from both config locations.
fn stream_endpoints(config: &Json) -> Vec<BTreeMap<String, Json>> {
    let mut maps: Vec<&Map<String, Json>> = Vec::new();
    if let Some(list) =
        config["ingestionConfig"]["streamIngestionConfig"]["streamConfigMaps"].as_array()
    {
        maps.extend(list.iter().filter_map(Json::as_object));
    }
    if let Some(m) = config["tableIndexConfig"]["streamConfigs"].as_object() {
        maps.push(m);
    }
    maps.into_iter()
        .map(|m| {
            m.iter()
                .filter(|(k, _)| {
                    k.ends_with(".topic.name")
                        || k.ends_with(".broker.list")
                        || k.ends_with("bootstrap.servers")
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .collect()
}

fn without(v: &Json, keys: &[&str]) -> Json {
    match v {
        Json::Object(m) => Json::Object(
            m.iter()
                .filter(|(k, _)| !keys.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The follow-up for replacing `old` by `new` (table configs), with `schema_changed` telling
/// whether the table's schema changed too.
pub fn required_follow_up(old: &Json, new: &Json, schema_changed: bool) -> FollowUp {
    let mut need = FollowUp::None;
    let (old_t, new_t) = (transforms(old), transforms(new));
    if old_t
        .iter()
        .any(|(c, f)| new_t.get(c).is_some_and(|g| g != f))
    {
        need = need.max(FollowUp::ReBootstrap);
    }
    let (old_p, new_p) = (partition_counts(old), partition_counts(new));
    if upsert_enabled(new)
        && new_p
            .iter()
            .any(|(c, n)| old_p.get(c).is_some_and(|o| n > o))
    {
        need = need.max(FollowUp::ReBootstrap);
    }
    if old["tableIndexConfig"]["segmentPartitionConfig"]
        != new["tableIndexConfig"]["segmentPartitionConfig"]
    {
        need = need.max(FollowUp::Refresh);
    }
    let index_keys = ["segmentPartitionConfig", "streamConfigs"];
    if schema_changed
        || without(&old["tableIndexConfig"], &index_keys)
            != without(&new["tableIndexConfig"], &index_keys)
        || old["fieldConfigList"] != new["fieldConfigList"]
        || (new_t.len() > old_t.len())
    {
        need = need.max(FollowUp::Reload);
    }
    if stream_endpoints(old) != stream_endpoints(new) {
        need = need.max(FollowUp::PauseResume);
    }
    need
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn base() -> Json {
        json!({
            "tableName": "t_REALTIME", "tableType": "REALTIME",
            "segmentsConfig": {"replication": "1"},
            "tableIndexConfig": {"invertedIndexColumns": ["a"],
                "segmentPartitionConfig": {"columnPartitionMap": {"id": {"functionName": "Murmur", "numPartitions": 4}}}},
            "ingestionConfig": {
                "transformConfigs": [{"columnName": "d", "transformFunction": "upper(a)"}],
                "streamIngestionConfig": {"streamConfigMaps": [{"streamType": "kafka",
                    "stream.kafka.topic.name": "events", "stream.kafka.broker.list": "k:9092",
                    "realtime.segment.flush.threshold.rows": "1000"}]}},
            "upsertConfig": {"mode": "FULL"},
            "metadata": {"customConfigs": {}}
        })
    }

    fn after(edit: impl FnOnce(&mut Json)) -> FollowUp {
        let mut new = base();
        edit(&mut new);
        required_follow_up(&base(), &new, false)
    }

    #[test]
    fn each_kind_of_change_maps_to_its_follow_up() {
        assert_eq!(after(|_| {}), FollowUp::None);
        assert_eq!(
            after(|c| c["metadata"]["customConfigs"]["k"] = json!("v")),
            FollowUp::None
        );
        assert_eq!(
            after(
                |c| c["ingestionConfig"]["streamIngestionConfig"]["streamConfigMaps"][0]["realtime.segment.flush.threshold.rows"] =
                    json!("5")
            ),
            FollowUp::None
        );
        assert_eq!(
            after(|c| c["tableIndexConfig"]["rangeIndexColumns"] = json!(["b"])),
            FollowUp::Reload
        );
        assert_eq!(
            after(|c| c["fieldConfigList"] = json!([{"name": "a", "indexTypes": ["INVERTED"]}])),
            FollowUp::Reload
        );
        assert_eq!(
            after(
                |c| c["tableIndexConfig"]["segmentPartitionConfig"]["columnPartitionMap"]["id"]["functionName"] =
                    json!("Modulo")
            ),
            FollowUp::Refresh
        );
        assert_eq!(
            after(
                |c| c["ingestionConfig"]["transformConfigs"][0]["transformFunction"] =
                    json!("lower(a)")
            ),
            FollowUp::ReBootstrap
        );
        assert_eq!(
            after(
                |c| c["tableIndexConfig"]["segmentPartitionConfig"]["columnPartitionMap"]["id"]["numPartitions"] =
                    json!(8)
            ),
            FollowUp::ReBootstrap
        );
        assert_eq!(
            after(
                |c| c["ingestionConfig"]["streamIngestionConfig"]["streamConfigMaps"][0]["stream.kafka.topic.name"] =
                    json!("events2")
            ),
            FollowUp::PauseResume
        );
        assert_eq!(
            after(
                |c| c["ingestionConfig"]["streamIngestionConfig"]["streamConfigMaps"][0]["stream.kafka.broker.list"] =
                    json!("k2:9092")
            ),
            FollowUp::PauseResume
        );
        assert_eq!(required_follow_up(&base(), &base(), true), FollowUp::Reload);
    }

    #[test]
    fn partition_increase_without_upsert_is_a_refresh() {
        let mut old = base();
        old.as_object_mut().unwrap().remove("upsertConfig");
        let mut new = old.clone();
        new["tableIndexConfig"]["segmentPartitionConfig"]["columnPartitionMap"]["id"]["numPartitions"] =
            json!(8);
        assert_eq!(required_follow_up(&old, &new, false), FollowUp::Refresh);
    }
}
