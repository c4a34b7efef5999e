//! `tierConfigs` entries (`TierConfig.java`): which segments move to which servers as they
//! age (`segmentSelectorType: time` with a `segmentAge` period, or `fixed` with a list).

use super::coerce;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

/// One storage tier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "TierConfigJson")]
pub struct TierConfig {
    pub name: String,
    /// `time` or `fixed`.
    pub segment_selector_type: String,
    /// For `time` selectors: a period such as `30d`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment_age: Option<String>,
    /// For `fixed` selectors: the segment names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment_list: Option<Vec<String>>,
    /// `pinot_server`.
    pub storage_type: String,
    /// For `pinot_server` storage: `<tenant>_OFFLINE` or `<tenant>_REALTIME`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_tag: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier_backend: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier_backend_properties: Option<Map<String, Json>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TierConfigJson {
    #[serde(default, deserialize_with = "coerce::opt_string")]
    name: Option<String>,
    #[serde(default, deserialize_with = "coerce::opt_string")]
    segment_selector_type: Option<String>,
    #[serde(default, deserialize_with = "coerce::opt_string")]
    segment_age: Option<String>,
    #[serde(default, deserialize_with = "coerce::opt_string_list")]
    segment_list: Option<Vec<String>>,
    #[serde(default, deserialize_with = "coerce::opt_string")]
    storage_type: Option<String>,
    #[serde(default, deserialize_with = "coerce::opt_string")]
    server_tag: Option<String>,
    #[serde(default, deserialize_with = "coerce::opt_string")]
    tier_backend: Option<String>,
    #[serde(default, deserialize_with = "coerce::opt_string_map")]
    tier_backend_properties: Option<Map<String, Json>>,
}

impl TryFrom<TierConfigJson> for TierConfig {
    type Error = String;

    fn try_from(j: TierConfigJson) -> Result<Self, String> {
        Ok(TierConfig {
            name: j.name.ok_or("Must provide non-null 'name' in tierConfig")?,
            segment_selector_type: j
                .segment_selector_type
                .ok_or("Must provide non-null 'segmentSelectorType' in tierConfig")?,
            segment_age: j.segment_age,
            segment_list: j.segment_list,
            storage_type: j
                .storage_type
                .ok_or("Must provide non-null 'storageType' in tierConfig")?,
            server_tag: j.server_tag,
            tier_backend: j.tier_backend,
            tier_backend_properties: j.tier_backend_properties,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_and_requires_names() {
        let input = json!({"name": "coldTier", "segmentSelectorType": "time", "segmentAge": "30d",
                           "storageType": "pinot_server", "serverTag": "cold_OFFLINE"});
        let t: TierConfig = serde_json::from_value(input.clone()).unwrap();
        assert_eq!(serde_json::to_value(&t).unwrap(), input);
        let err = serde_json::from_value::<TierConfig>(
            json!({"name": "x", "segmentSelectorType": "time"}),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Must provide non-null 'storageType' in tierConfig"
        );
    }
}
