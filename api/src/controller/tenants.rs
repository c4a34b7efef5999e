//! Tenants and instance tags (`PinotTenantRestletResource`, `PinotInstanceRestletResource`).
//!
//! A tenant is a set of instances sharing a tag: brokers tagged `<tenant>_BROKER`, servers
//! `<tenant>_OFFLINE` / `<tenant>_REALTIME`. A table names its broker and server tenant
//! (`tenants.broker`/`tenants.server`, `DefaultTenant` when unset): its segments go only to
//! servers with its server tag and its queries are answered only by brokers with its broker tag.
//! Endpoints: `GET/POST /tenants`, `GET /tenants/{name}`, `PUT /instances/{id}/updateTags`.

use super::ControllerState;
use super::catalog::encode;
use super::responses::{Status, TenantList, TenantView, json};
use super::{Controller, placement::fill_under_replicated};
use crate::http::ApiError;
use crate::http::body::{parse_json, path_param, query_param, read_text};
use crate::http::routes::Routes;
use crate::metadata::records::{InstanceRecord, InstanceType};
use crate::metadata::{Op, keys};
use segments::types::{TableConfig, TableType};
use serde::Deserialize;
use std::collections::BTreeSet;
use tide::Request;

/// Tag of brokers without a tenant (Pinot's `broker_untagged`).
pub const BROKER_UNTAGGED: &str = "broker_untagged";
/// Tag of servers without a tenant (Pinot's `server_untagged`).
pub const SERVER_UNTAGGED: &str = "server_untagged";

/// Mounts the tenant endpoints.
pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.group("Tenant")
        .get("/tenants", "Lists server and broker tenants", list)
        .post("/tenants", "Creates a tenant by tagging instances", create)
        .get("/tenants/:name", "A tenant's instances", get);
    r.group("Instance").put(
        "/instances/:id/updateTags",
        "Replaces an instance's tags (tags=a,b)",
        update_tags,
    );
}

/// The tags a new instance of type `t` gets when none are given (Pinot's defaults).
pub fn default_tags(t: InstanceType) -> Vec<String> {
    match t {
        InstanceType::Broker => vec!["DefaultTenant_BROKER".to_string()],
        InstanceType::Server => vec![
            "DefaultTenant_OFFLINE".to_string(),
            "DefaultTenant_REALTIME".to_string(),
        ],
        InstanceType::Minion => vec!["minion_untagged".to_string()],
        InstanceType::Controller => Vec::new(),
    }
}

/// Splits `a, b,,c` into tags (trimmed, empties dropped).
pub fn parse_tags(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The tenant a tag names and whether it is a broker tag (`x_BROKER` → `(x, true)`).
pub fn tenant_of_tag(tag: &str) -> Option<(&str, bool)> {
    if let Some(t) = tag.strip_suffix("_BROKER") {
        return Some((t, true));
    }
    tag.strip_suffix("_OFFLINE")
        .or_else(|| tag.strip_suffix("_REALTIME"))
        .map(|t| (t, false))
}

/// Registered instances carrying `tag`.
pub fn tagged(c: &Controller, tag: &str) -> Result<Vec<InstanceRecord>, ApiError> {
    Ok(c.instances()?
        .into_iter()
        .filter(|i| i.tags.iter().any(|t| t == tag))
        .collect())
}

/// Pinot's check on `POST /tables`: the table's broker and server tags must each have
/// instances (`Failed to find instances with tag: ... for table: ...`).
pub fn validate_tenants(c: &Controller, config: &TableConfig) -> Result<(), ApiError> {
    let typed = config.table_name_with_type();
    let server = config.tenants.server_tag(config.table_type);
    for tag in [config.tenants.broker_tag(), server] {
        if tagged(c, &tag)?.is_empty() {
            return Err(ApiError::bad_request(format!(
                "Invalid table config for table {typed}: Failed to find instances with tag: {tag} for table: {typed}"
            )));
        }
    }
    Ok(())
}

async fn list(req: Request<ControllerState>) -> tide::Result {
    let mut servers = BTreeSet::new();
    let mut brokers = BTreeSet::new();
    for i in req.state().instances()? {
        for tag in &i.tags {
            match tenant_of_tag(tag) {
                Some((t, true)) => brokers.insert(t.to_string()),
                Some((t, false)) => servers.insert(t.to_string()),
                None => false,
            };
        }
    }
    let role = tenant_type(&req)?;
    json(&TenantList {
        server_tenants: (role != Some(true)).then_some(servers),
        broker_tenants: (role != Some(false)).then_some(brokers),
    })
}

/// `?type=server|broker` (any case): `Some(true)` for brokers, `None` when absent.
fn tenant_type(req: &Request<ControllerState>) -> Result<Option<bool>, ApiError> {
    match query_param(req, "type").map(|t| t.to_ascii_lowercase()) {
        None => Ok(None),
        Some(t) if t == "broker" => Ok(Some(true)),
        Some(t) if t == "server" => Ok(Some(false)),
        Some(t) => Err(ApiError::bad_request(format!(
            "Invalid tenant type: {t}, must be 'server' or 'broker'"
        ))),
    }
}

async fn get(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "name")?;
    let mut servers = BTreeSet::new();
    let mut brokers = BTreeSet::new();
    for i in req.state().instances()? {
        for tag in &i.tags {
            if let Some((t, broker)) = tenant_of_tag(tag)
                && t == name
            {
                if broker {
                    brokers.insert(i.instance_name.clone());
                } else {
                    servers.insert(i.instance_name.clone());
                }
            }
        }
    }
    if servers.is_empty() && brokers.is_empty() {
        return Err(ApiError::not_found(format!("Failed to find tenant {name}")).into());
    }
    let role = tenant_type(&req)?;
    json(&TenantView {
        server_instances: (role != Some(true)).then_some(servers),
        broker_instances: (role != Some(false)).then_some(brokers),
        tenant_name: name,
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TenantRequest {
    tenant_role: String,
    tenant_name: String,
    #[serde(default)]
    number_of_instances: Option<usize>,
    #[serde(default)]
    offline_instances: Option<usize>,
    #[serde(default)]
    realtime_instances: Option<usize>,
}

fn is_untagged(i: &InstanceRecord) -> bool {
    i.tags
        .iter()
        .all(|t| t == BROKER_UNTAGGED || t == SERVER_UNTAGGED)
}

async fn create(mut req: Request<ControllerState>) -> tide::Result {
    let text = read_text(&mut req, 1 << 20).await?;
    let r: TenantRequest = parse_json(&text, "Invalid tenant json: ")?;
    let role = match r.tenant_role.to_ascii_uppercase().as_str() {
        "SERVER" => InstanceType::Server,
        "BROKER" => InstanceType::Broker,
        other => {
            return Err(ApiError::bad_request(format!("Invalid tenant role: {other}")).into());
        }
    };
    if r.tenant_name.trim().is_empty() {
        return Err(ApiError::bad_request("Tenant name cannot be empty").into());
    }
    let split = match (r.offline_instances, r.realtime_instances) {
        (None, None) => None,
        (o, rt) => Some((o.unwrap_or(0), rt.unwrap_or(0))),
    };
    let wanted = r
        .number_of_instances
        .or(split.map(|(o, rt)| o + rt))
        .unwrap_or(1);
    if let Some((o, rt)) =
        split.filter(|(o, rt)| role == InstanceType::Server && (*o > wanted || *rt > wanted))
    {
        return Err(ApiError::bad_request(format!(
            "Failed to create tenant: {}, offlineInstances ({o}) and realtimeInstances ({rt}) must each be at most numberOfInstances ({wanted})",
            r.tenant_name
        ))
        .into());
    }
    let c = req.state();
    let _guard = c.lock_writes().await?;
    let mut free: Vec<InstanceRecord> = c
        .instances()?
        .into_iter()
        .filter(|i| i.instance_type == role && is_untagged(i))
        .collect();
    if free.len() < wanted {
        return Err(ApiError::bad_request(format!(
            "Failed to create tenant: {}, not enough untagged {} instances (need {wanted}, have {})",
            r.tenant_name,
            r.tenant_role.to_ascii_lowercase(),
            free.len()
        ))
        .into());
    }
    free.truncate(wanted);
    let tag = |t: TableType| format!("{}{}", r.tenant_name, t.suffix());
    // Servers, as Pinot assigns them: the first `offlineInstances` serve OFFLINE, the last
    // `realtimeInstances` REALTIME (overlapping when they add up to more than the total);
    // without the split, every server serves both.
    let tags_of = |k: usize| -> Vec<String> {
        match (role, split) {
            (InstanceType::Broker, _) => vec![format!("{}_BROKER", r.tenant_name)],
            (_, None) => vec![tag(TableType::Offline), tag(TableType::Realtime)],
            (_, Some((o, rt))) => {
                let mut tags = Vec::new();
                if k < o {
                    tags.push(tag(TableType::Offline));
                }
                if k + rt >= wanted {
                    tags.push(tag(TableType::Realtime));
                }
                tags
            }
        }
    };
    let ops = free
        .into_iter()
        .enumerate()
        .filter_map(|(k, mut i)| {
            i.tags = tags_of(k);
            (!i.tags.is_empty()).then(|| Op::Put(keys::instance(&i.instance_name), encode(&i)))
        })
        .collect();
    c.commit(ops)?;
    if role == InstanceType::Server {
        fill_under_replicated(c)?;
    }
    json(&Status::new("Succeeded"))
}

async fn update_tags(req: Request<ControllerState>) -> tide::Result {
    let id = path_param(&req, "id")?;
    let tags = query_param(&req, "tags")
        .map(|t| parse_tags(&t))
        .filter(|t| !t.is_empty())
        .ok_or_else(|| ApiError::bad_request("Must provide tags to update"))?;
    let c = req.state();
    let _guard = c.lock_writes().await?;
    let mut record = c
        .instance(&id)?
        .ok_or_else(|| ApiError::not_found(format!("Instance {id} not found")))?;
    record.tags = tags.clone();
    c.commit(vec![Op::Put(keys::instance(&id), encode(&record))])?;
    if record.instance_type == InstanceType::Server {
        fill_under_replicated(c)?;
    }
    json(&Status::new(format!(
        "Updated tags: [{}] for instance: {id}",
        tags.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_name_tenants() {
        assert_eq!(tenant_of_tag("a_BROKER"), Some(("a", true)));
        assert_eq!(
            tenant_of_tag("DefaultTenant_REALTIME"),
            Some(("DefaultTenant", false))
        );
        assert_eq!(tenant_of_tag("cold_OFFLINE"), Some(("cold", false)));
        assert_eq!(tenant_of_tag("server_untagged"), None);
        assert_eq!(parse_tags(" a, b,,c "), vec!["a", "b", "c"]);
        assert_eq!(default_tags(InstanceType::Server).len(), 2);
    }
}
