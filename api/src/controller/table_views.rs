//! The operator's view of a table: `GET /tables/{t}/idealstate` (the assignment),
//! `GET /tables/{t}/externalview` (what online servers actually serve) and
//! `GET /tables/{t}/size` (Pinot's `TableSizeReader` shape).
//!
//! Both state views answer `{"OFFLINE": {segment: {server: state}} | null, "REALTIME": ...}`;
//! in the ideal state every assigned replica is `ONLINE`, in the external view a replica is
//! `ONLINE` when its server is alive and reports the segment loaded, else `OFFLINE`.

use super::responses::{
    Entries, SegmentSize, SegmentStates, ServerSegmentSize, StateView, SubTypeSize, TableSize, json,
};
use super::{Controller, ControllerState};
use crate::http::ApiError;
use crate::http::body::query_param;
use crate::http::routes::Routes;
use crate::metadata::table_name::{self, TableType};
use tide::Request;

/// Mounts the view endpoints.
pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.group("Table")
        .get(
            "/tables/:table/idealstate",
            "Segment → server → ONLINE as assigned",
            |r| state_view(r, false),
        )
        .get(
            "/tables/:table/externalview",
            "Segment → server → state as the servers report it",
            |r| state_view(r, true),
        )
        .get(
            "/tables/:table/size",
            "A table's size on disk, per segment",
            size,
        );
}

/// The typed tables a request addresses; 404 `Table <name> not found` when none exist.
fn addressed(
    req: &Request<ControllerState>,
) -> Result<(String, Vec<(TableType, String)>), ApiError> {
    super::segments::addressed_tables_or(req, |name| format!("Table {name} not found"))
}

/// Segment → server → state of one typed table.
pub fn segment_states(
    c: &Controller,
    typed: &str,
    external: bool,
) -> Result<SegmentStates, ApiError> {
    let mut out = Entries::default();
    for s in c.segments(typed)? {
        let servers = s
            .servers
            .iter()
            .map(|server| {
                let consuming = s.is_consuming();
                let state = if !external {
                    if consuming { "CONSUMING" } else { "ONLINE" }
                } else if !c.is_online(server) {
                    "OFFLINE"
                } else if c.has_loaded(server, typed, &s.segment_name) {
                    "ONLINE"
                } else if c.is_consuming(server, typed, &s.segment_name) {
                    "CONSUMING"
                } else {
                    "OFFLINE"
                };
                (server.clone(), state)
            })
            .collect();
        out.0.push((s.segment_name, Entries(servers)));
    }
    Ok(out)
}

async fn state_view(req: Request<ControllerState>, external: bool) -> tide::Result {
    let (_, tables) = addressed(&req)?;
    let c = req.state();
    let mut body = StateView::default();
    for (t, typed) in tables {
        let states = Some(segment_states(c, &typed, external)?);
        match t {
            TableType::Offline => body.offline = states,
            TableType::Realtime => body.realtime = states,
        }
    }
    json(&body)
}

/// `TableSubTypeSizeDetails` of one typed table: each segment's size on every server hosting
/// it (`reportedSizeInBytes` sums the replicas, as Pinot's does).
fn sub_type_size(c: &Controller, typed: &str) -> Result<SubTypeSize, ApiError> {
    let mut out = SubTypeSize::default();
    for s in c.segments(typed)? {
        let server_info: Vec<_> = s
            .servers
            .iter()
            .map(|server| {
                let size = ServerSegmentSize {
                    segment_name: s.segment_name.clone(),
                    disk_size_in_bytes: s.size_bytes,
                };
                (server.clone(), size)
            })
            .collect();
        let reported = s.size_bytes * server_info.len() as u64;
        out.reported_size_in_bytes += reported;
        out.reported_size_per_replica_in_bytes += s.size_bytes;
        let size = SegmentSize {
            reported_size_in_bytes: reported,
            estimated_size_in_bytes: reported,
            max_reported_size_per_replica_in_bytes: s.size_bytes,
            server_info: Entries(server_info),
        };
        out.segments.0.push((s.segment_name, size));
    }
    out.estimated_size_in_bytes = out.reported_size_in_bytes;
    Ok(out)
}

async fn size(req: Request<ControllerState>) -> tide::Result {
    let (name, tables) = addressed(&req)?;
    let verbose = query_param(&req, "verbose").is_none_or(|v| !v.eq_ignore_ascii_case("false"));
    let c = req.state();
    let mut body = TableSize {
        table_name: table_name::split(&name).0.to_string(),
        reported_size_in_bytes: 0,
        estimated_size_in_bytes: 0,
        reported_size_per_replica_in_bytes: 0,
        offline_segments: None,
        realtime_segments: None,
    };
    for (t, typed) in tables {
        let mut details = sub_type_size(c, &typed)?;
        body.reported_size_in_bytes += details.reported_size_in_bytes;
        body.reported_size_per_replica_in_bytes += details.reported_size_per_replica_in_bytes;
        if !verbose {
            details.segments = Entries::default();
        }
        match t {
            TableType::Offline => body.offline_segments = Some(details),
            TableType::Realtime => body.realtime_segments = Some(details),
        }
    }
    body.estimated_size_in_bytes = body.reported_size_in_bytes;
    json(&body)
}
