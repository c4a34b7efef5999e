//! Instances: registration of brokers and servers (`POST /instances`, Pinot's shape), listing
//! (`GET /instances` → `{"instances": [...]}`), heartbeats, and the two Tessera endpoints the
//! data path needs: a server's assignment (the heartbeat answer) and a table's routing table
//! for brokers.

use super::catalog::encode;
use super::placement::fill_under_replicated;
use super::responses::{InstanceList, InstanceView, Status, json};
use super::table_config::broker_tag;
use super::tenants::default_tags;
use super::{Controller, ControllerState};
use crate::common::clock::now_ms;
use crate::http::ApiError;
use crate::http::body::{parse_json, path_param, query_param, read_text};
use crate::http::routes::Routes;
use crate::metadata::records::{
    AssignedSegment, ConsumingAssignment, InstanceRecord, InstanceType, RoutingTable,
    SegmentReport, instance_id,
};
use crate::metadata::table_name::{self, TableType};
use crate::metadata::{Op, keys};
use crate::transport::{Assignment, Heartbeat, Registration};
use std::collections::BTreeMap;
use tide::Request;

/// Mounts the instance endpoints.
pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.group("Instance")
        .get("/instances", "Lists instance ids", list)
        .post("/instances", "Registers an instance", post_register)
        .get(
            "/instances/:id",
            "Reads an instance: host, port, type, tags, online",
            get,
        );
    r.group("Internal")
        .post(
            "/instances/:id/heartbeat",
            "An instance's heartbeat; answers a server's assigned segments",
            post_heartbeat,
        )
        .get(
            "/tessera/routing/:table",
            "The routing table brokers query a table with",
            routing,
        );
}

/// Registers (or re-registers) an instance; returns its record. A known instance keeps its
/// stored tags (they may have been changed with `updateTags`); a new one gets `tags`, or its
/// role's default tags.
pub fn register_instance(c: &Controller, r: &Registration) -> Result<InstanceRecord, ApiError> {
    let t = r.instance_type;
    let id = (r.instance_name.clone()).unwrap_or_else(|| instance_id(t, &r.host, r.port));
    let tags = match c.instance(&id)? {
        Some(old) if old.instance_type == t => old.tags,
        _ => r.tags.clone().unwrap_or_else(|| default_tags(t)),
    };
    let record = InstanceRecord {
        instance_name: id.clone(),
        host_name: r.host.clone(),
        port: r.port,
        instance_type: t,
        tags,
        enabled: true,
        query_port: r.query_port,
    };
    c.commit(vec![Op::Put(keys::instance(&id), encode(&record))])?;
    c.heartbeat(&id, None);
    if t == InstanceType::Minion {
        // A minion registers when it starts: whatever it was running before is not running.
        super::minion_tasks::release(c, &id)?;
    }
    Ok(record)
}

async fn post_register(mut req: Request<ControllerState>) -> tide::Result {
    let text = read_text(&mut req, 1 << 20).await?;
    let r: Registration = parse_json(&text, "Invalid instance json: ")?;
    let record = register(req.state(), &r).await?;
    json(&Status::new(format!(
        "Added instance: {}",
        record.instance_name
    )))
}

/// Registers an instance and, for a server, places under-replicated segments on it.
pub async fn register(c: &Controller, r: &Registration) -> Result<InstanceRecord, ApiError> {
    let _guard = c.lock_writes().await?;
    let record = register_instance(c, r)?;
    if r.instance_type == InstanceType::Server {
        fill_under_replicated(c)?;
    }
    Ok(record)
}

async fn list(req: Request<ControllerState>) -> tide::Result {
    let names: Vec<String> = req
        .state()
        .instances()?
        .into_iter()
        .map(|i| i.instance_name)
        .collect();
    json(&InstanceList { instances: names })
}

async fn get(req: Request<ControllerState>) -> tide::Result {
    let id = path_param(&req, "id")?;
    let c = req.state();
    let record = c
        .instance(&id)?
        .ok_or_else(|| ApiError::not_found(format!("Instance {id} not found")))?;
    json(&InstanceView::new(record, c.is_online(&id)))
}

/// The segments assigned to server `id` (a consuming one with where to consume from, and
/// whether its table is paused).
pub fn assignment_of(c: &Controller, id: &str) -> Result<Vec<AssignedSegment>, ApiError> {
    let mut paused: BTreeMap<String, bool> = BTreeMap::new();
    let mut out = Vec::new();
    for s in c.all_segments()? {
        if !s.servers.iter().any(|x| x == id) {
            continue;
        }
        let consuming = match s.stream.as_ref().filter(|_| s.is_consuming()) {
            Some(r) => {
                let table = s.table_name_with_type.clone();
                let paused = match paused.get(&table) {
                    Some(p) => *p,
                    None => {
                        let p = super::realtime::is_paused(c, &table)?;
                        paused.insert(table, p);
                        p
                    }
                };
                Some(ConsumingAssignment {
                    partition: r.partition,
                    start_offset: r.start_offset,
                    creation_time_ms: r.creation_time_ms,
                    paused,
                })
            }
            None => None,
        };
        // Servers read an archive in object storage there themselves.
        let download_uri = s.download_uri.or_else(|| {
            (!s.archive.is_empty())
                .then(|| c.deep.direct_uri(&s.table_name_with_type, &s.archive))
                .flatten()
        });
        out.push(AssignedSegment {
            table_name_with_type: s.table_name_with_type,
            segment_name: s.segment_name,
            crc: s.crc,
            reload_version: s.reload_version,
            incarnation: s.incarnation,
            download_uri,
            consuming,
        });
    }
    Ok(out)
}

async fn post_heartbeat(mut req: Request<ControllerState>) -> tide::Result {
    let id = path_param(&req, "id")?;
    let text = read_text(&mut req, 16 << 20).await?;
    let beat: Heartbeat = if text.trim().is_empty() {
        Heartbeat::default()
    } else {
        parse_json(&text, "Invalid heartbeat json: ")?
    };
    let segments = heartbeat(req.state(), &id, beat.report())
        .await?
        .ok_or_else(|| ApiError::not_found(format!("Instance {id} not found")))?;
    json(&Assignment { segments })
}

/// Records a heartbeat of instance `id`; `None` if the instance is unknown, else the segments
/// assigned to it (none for brokers). A server coming back online first gets under-replicated
/// segments placed on it.
pub async fn heartbeat(
    c: &Controller,
    id: &str,
    report: Option<SegmentReport>,
) -> Result<Option<Vec<AssignedSegment>>, ApiError> {
    let Some(record) = c.instance(id)? else {
        return Ok(None);
    };
    let was_online = c.is_online(id);
    c.heartbeat(id, report);
    if record.instance_type != InstanceType::Server {
        return Ok(Some(Vec::new()));
    }
    if !was_online {
        let _guard = c.lock_writes().await?;
        fill_under_replicated(c)?;
    }
    Ok(Some(assignment_of(c, id)?))
}

/// How long a pushed segment that no server has loaded yet counts as *new*: as Pinot's
/// broker (`InstanceSelector`'s new-segment expiration, 5 minutes), a new segment is left out of
/// routing instead of being reported unavailable, so a query right after an upload answers
/// from the segments that are online rather than failing with error 305.
pub const NEW_SEGMENT_GRACE_MS: i64 = 5 * 60 * 1000;

/// The routing table of a typed table: each segment with the online servers that loaded it.
/// New segments (see [`NEW_SEGMENT_GRACE_MS`]) not yet loaded anywhere are left out.
pub fn routing_table(c: &Controller, typed: &str) -> Result<RoutingTable, ApiError> {
    let mut table = RoutingTable {
        table_name_with_type: typed.to_string(),
        ..RoutingTable::default()
    };
    let instances = c.instances()?;
    // What a replacement in progress uploads stays out of routing until it completes.
    for s in super::lineage::visible_segments(c, typed)? {
        // A consuming segment is answered by the servers consuming it; a committed one by the
        // servers holding the stored copy — a replica still consuming it may lag behind the
        // committed end offset — or, until one reports it, by the replica that committed it.
        let online = |server: &&String| c.is_online(server);
        let holding: Vec<&String> = s
            .servers
            .iter()
            .filter(online)
            .filter(|x| c.has_loaded(x, typed, &s.segment_name))
            .collect();
        let consuming: Vec<&String> = s
            .servers
            .iter()
            .filter(online)
            .filter(|x| c.is_consuming(x, typed, &s.segment_name))
            .collect();
        let committer = s.stream.as_ref().and_then(|r| r.committer.as_ref());
        let chosen: Vec<&String> = if s.is_consuming() {
            holding.into_iter().chain(consuming).collect()
        } else if holding.is_empty() {
            consuming
                .into_iter()
                .filter(|x| Some(*x) == committer)
                .collect()
        } else {
            holding
        };
        let mut hosts = Vec::new();
        for server in chosen {
            if let Some(i) = instances.iter().find(|i| &i.instance_name == server) {
                table.servers.insert(server.clone(), i.base_url());
                if let Some(a) = i.query_address() {
                    table.query_addresses.insert(server.clone(), a);
                }
            }
            hosts.push(server.clone());
        }
        let new = hosts.is_empty()
            && now_ms().saturating_sub(s.push_time_ms) < NEW_SEGMENT_GRACE_MS
            && !c.was_ever_loaded(typed, &s.segment_name);
        if new {
            table.new_segments.insert(s.segment_name);
        } else {
            table.crcs.insert(s.segment_name.clone(), s.crc);
            table
                .incarnations
                .insert(s.segment_name.clone(), s.incarnation);
            table.segments.insert(s.segment_name, hosts);
        }
    }
    table.time_boundary = super::time_boundary::time_boundary(c, typed)?;
    table.max_queries_per_second = broker_share_of_quota(c, typed, &instances)?;
    Ok(table)
}

/// One broker's share of table `typed`'s `quota.maxQueriesPerSecond`: the rate divided by the
/// online brokers of its tenant (at least one: the broker asking).
fn broker_share_of_quota(
    c: &Controller,
    typed: &str,
    instances: &[crate::metadata::records::InstanceRecord],
) -> Result<Option<crate::metadata::records::QueryRate>, ApiError> {
    let Some(config) = c
        .table_config(typed)?
        .as_ref()
        .and_then(super::table_config::parse_config)
    else {
        return Ok(None);
    };
    let Some(rate) = config.quota.as_ref().and_then(|q| q.max_qps()) else {
        return Ok(None);
    };
    let tag = config.tenants.broker_tag();
    let brokers = instances
        .iter()
        .filter(|i| i.instance_type == InstanceType::Broker)
        .filter(|i| i.tags.contains(&tag))
        .filter(|i| c.is_online(&i.instance_name))
        .count();
    Ok(Some(crate::metadata::records::QueryRate(
        rate / brokers.max(1) as f64,
    )))
}

async fn routing(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "table")?;
    let broker = query_param(&req, "broker");
    json(&routing_for_broker(req.state(), &name, broker.as_deref())?)
}

/// The routing table of `name` (typed, or raw for OFFLINE) for `broker`: 404 for an unknown
/// table, 403 when the broker is outside the table's broker tenant (the broker answers 410).
pub fn routing_for_broker(
    c: &Controller,
    name: &str,
    broker: Option<&str>,
) -> Result<RoutingTable, ApiError> {
    let (raw, t) = table_name::split(name);
    let typed = table_name::with_type(raw, t.unwrap_or(TableType::Offline));
    let config = c
        .table_config(&typed)?
        .ok_or_else(|| ApiError::not_found(format!("Table {typed} does not exist")))?;
    if let Some(broker) = broker {
        let tag = broker_tag(&config);
        let serves = c
            .instance(broker)?
            .is_none_or(|b| b.tags.iter().any(|t| t == &tag));
        if !serves {
            return Err(ApiError::new(
                403,
                format!("Broker {broker} is not tagged {tag}, the broker tenant of table {typed}"),
            ));
        }
    }
    routing_table(c, &typed)
}
