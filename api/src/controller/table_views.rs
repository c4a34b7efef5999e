//! The operator's view of a table: `GET /tables/{t}/idealstate` (the assignment),
//! `GET /tables/{t}/externalview` (what online servers actually serve) and
//! `GET /tables/{t}/size` (Pinot's `TableSizeReader` shape).
//!
//! Both state views answer `{"OFFLINE": {segment: {server: state}} | null, "REALTIME": ...}`;
//! in the ideal state every assigned replica is `ONLINE`, in the external view a replica is
//! `ONLINE` when its server is alive and reports the segment loaded, else `OFFLINE`.

use super::{Controller, ControllerState};
use crate::http::ApiError;
use crate::http::body::{path_param, query_param};
use crate::metadata::table_name::{self, TableType};
use serde_json::{Map, Value as Json, json};
use tide::{Body, Request};

/// Mounts the view endpoints.
pub fn routes(app: &mut tide::Server<ControllerState>) {
    app.at("/tables/:table/idealstate")
        .get(|r| state_view(r, false));
    app.at("/tables/:table/externalview")
        .get(|r| state_view(r, true));
    app.at("/tables/:table/size").get(size);
}

/// The typed tables a request addresses; 404 `Table <name> not found` when none exist.
fn addressed(
    req: &Request<ControllerState>,
) -> Result<(String, Vec<(TableType, String)>), ApiError> {
    let name = path_param(req, "table")?;
    let t = table_name::type_param(query_param(req, "type").as_deref())?;
    let tables = req.state().existing_tables(&name, t)?;
    if tables.is_empty() {
        return Err(ApiError::not_found(format!("Table {name} not found")));
    }
    Ok((name, tables))
}

/// Segment → server → state of one typed table.
pub fn segment_states(
    c: &Controller,
    typed: &str,
    external: bool,
) -> Result<Map<String, Json>, ApiError> {
    let mut out = Map::new();
    for s in c.segments(typed)? {
        let mut servers = Map::new();
        for server in &s.servers {
            let online =
                !external || (c.is_online(server) && c.has_loaded(server, typed, &s.segment_name));
            servers.insert(
                server.clone(),
                json!(if online { "ONLINE" } else { "OFFLINE" }),
            );
        }
        out.insert(s.segment_name, Json::Object(servers));
    }
    Ok(out)
}

async fn state_view(req: Request<ControllerState>, external: bool) -> tide::Result {
    let (_, tables) = addressed(&req)?;
    let c = req.state();
    let mut body = json!({"OFFLINE": null, "REALTIME": null});
    for (t, typed) in tables {
        body[t.name()] = Json::Object(segment_states(c, &typed, external)?);
    }
    Ok(Body::from_json(&body)?.into())
}

/// `TableSubTypeSizeDetails` of one typed table: each segment's size on every server hosting
/// it (`reportedSizeInBytes` sums the replicas, as Pinot's does).
fn sub_type_size(c: &Controller, typed: &str) -> Result<Json, ApiError> {
    let mut segments = Map::new();
    let (mut reported, mut per_replica) = (0u64, 0u64);
    for s in c.segments(typed)? {
        let mut server_info = Map::new();
        let mut seg_reported = 0u64;
        for server in &s.servers {
            server_info.insert(
                server.clone(),
                json!({"segmentName": s.segment_name, "diskSizeInBytes": s.size_bytes}),
            );
            seg_reported += s.size_bytes;
        }
        reported += seg_reported;
        per_replica += s.size_bytes;
        segments.insert(
            s.segment_name.clone(),
            json!({
                "reportedSizeInBytes": seg_reported,
                "estimatedSizeInBytes": seg_reported,
                "maxReportedSizePerReplicaInBytes": s.size_bytes,
                "serverInfo": server_info,
            }),
        );
    }
    Ok(json!({
        "reportedSizeInBytes": reported,
        "estimatedSizeInBytes": reported,
        "missingSegments": 0,
        "reportedSizePerReplicaInBytes": per_replica,
        "segments": segments,
    }))
}

async fn size(req: Request<ControllerState>) -> tide::Result {
    let (name, tables) = addressed(&req)?;
    let verbose = query_param(&req, "verbose").is_none_or(|v| !v.eq_ignore_ascii_case("false"));
    let c = req.state();
    let mut body = json!({
        "tableName": table_name::split(&name).0,
        "reportedSizeInBytes": 0, "estimatedSizeInBytes": 0, "reportedSizePerReplicaInBytes": 0,
        "offlineSegments": null, "realtimeSegments": null,
    });
    let (mut reported, mut per_replica) = (0u64, 0u64);
    for (t, typed) in tables {
        let mut details = sub_type_size(c, &typed)?;
        reported += details["reportedSizeInBytes"].as_u64().unwrap_or(0);
        per_replica += details["reportedSizePerReplicaInBytes"]
            .as_u64()
            .unwrap_or(0);
        if !verbose {
            details["segments"] = json!({});
        }
        let key = match t {
            TableType::Offline => "offlineSegments",
            TableType::Realtime => "realtimeSegments",
        };
        body[key] = details;
    }
    body["reportedSizeInBytes"] = json!(reported);
    body["estimatedSizeInBytes"] = json!(reported);
    body["reportedSizePerReplicaInBytes"] = json!(per_replica);
    Ok(Body::from_json(&body)?.into())
}
