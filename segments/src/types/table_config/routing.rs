//! `routing` (`RoutingConfig.java`): how brokers prune segments and pick replicas.

use super::coerce;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

/// Pinot's replica-group selector that upsert/dedup tables need.
pub const STRICT_REPLICA_GROUP: &str = "strictReplicaGroup";
/// The multi-stage variant that upsert/dedup tables may use too.
pub const MULTI_STAGE_REPLICA_GROUP: &str = "multiStageReplicaGroup";

/// `routing`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoutingConfig {
    /// `partition`, `time`, `empty`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string_list"
    )]
    pub segment_pruner_types: Option<Vec<String>>,
    /// `balanced` (default), `replicaGroup`, `strictReplicaGroup`, `multiStageReplicaGroup`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub instance_selector_type: Option<String>,
    /// Keys not modelled here, written back unchanged.
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

impl RoutingConfig {
    /// Whether a segment pruner of this type (case-insensitive) is configured.
    pub fn has_pruner(&self, pruner: &str) -> bool {
        self.segment_pruner_types
            .iter()
            .flatten()
            .any(|p| p.eq_ignore_ascii_case(pruner))
    }

    /// Whether the instance selector keeps a key's rows on one replica group, as upsert and
    /// dedup tables require.
    pub fn is_strict_replica_group(&self) -> bool {
        self.instance_selector_type.as_deref().is_some_and(|t| {
            t.eq_ignore_ascii_case(STRICT_REPLICA_GROUP)
                || t.eq_ignore_ascii_case(MULTI_STAGE_REPLICA_GROUP)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pruners_and_selectors() {
        let r: RoutingConfig = serde_json::from_value(json!({
            "segmentPrunerTypes": ["Partition"], "instanceSelectorType": "strictReplicaGroup",
            "useFixedReplica": false
        }))
        .unwrap();
        assert!(r.has_pruner("partition") && !r.has_pruner("time"));
        assert!(r.is_strict_replica_group());
        assert_eq!(
            serde_json::to_value(&r).unwrap()["useFixedReplica"],
            json!(false)
        );
        assert!(!RoutingConfig::default().is_strict_replica_group());
    }
}
