//! `tenants` (`TenantConfig.java`): which broker and server tenants serve the table.
//!
//! Missing names mean Pinot's `DefaultTenant`; tags derive from tenant names as
//! `<tenant>_BROKER`, `<tenant>_OFFLINE`, `<tenant>_REALTIME` (`TagNameUtils`).

use super::coerce;
use super::table_type::TableType;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// Pinot's default tenant name.
pub const DEFAULT_TENANT: &str = "DefaultTenant";

/// `tenants`. An empty object is valid.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TenantConfig {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub broker: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub server: Option<String>,
    /// Opaque (`{"realtimeConsuming": tag, "realtimeCompleted": tag}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag_override_config: Option<Json>,
}

impl TenantConfig {
    /// The broker tenant, `DefaultTenant` when unset.
    pub fn broker_tenant(&self) -> &str {
        self.broker.as_deref().unwrap_or(DEFAULT_TENANT)
    }

    /// The server tenant, `DefaultTenant` when unset.
    pub fn server_tenant(&self) -> &str {
        self.server.as_deref().unwrap_or(DEFAULT_TENANT)
    }

    /// `<broker tenant>_BROKER`.
    pub fn broker_tag(&self) -> String {
        format!("{}_BROKER", self.broker_tenant())
    }

    /// `<server tenant>_OFFLINE` or `<server tenant>_REALTIME`.
    pub fn server_tag(&self, table_type: TableType) -> String {
        format!("{}{}", self.server_tenant(), table_type.suffix())
    }

    /// Fills unset broker/server with `DefaultTenant`, as a single-tenant Pinot controller does
    /// before persisting a new table.
    pub fn fill_defaults(&mut self) {
        self.broker
            .get_or_insert_with(|| DEFAULT_TENANT.to_string());
        self.server
            .get_or_insert_with(|| DEFAULT_TENANT.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_and_tags() {
        let mut t: TenantConfig = serde_json::from_value(json!({})).unwrap();
        assert_eq!(serde_json::to_value(&t).unwrap(), json!({}));
        assert_eq!(t.broker_tag(), "DefaultTenant_BROKER");
        assert_eq!(t.server_tag(TableType::Realtime), "DefaultTenant_REALTIME");
        t.server = Some("cold".into());
        t.fill_defaults();
        assert_eq!(
            serde_json::to_value(&t).unwrap(),
            json!({"broker": "DefaultTenant", "server": "cold"})
        );
        assert_eq!(t.server_tag(TableType::Offline), "cold_OFFLINE");
    }
}
