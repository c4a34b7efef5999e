//! Segment endpoints, as thin handlers: upload (`POST /segments`, `POST /v2/segments`; a new
//! name adds, an existing name refreshes; `UPLOAD_TYPE: URI` has the controller fetch the tar.gz
//! from `DOWNLOAD_URI` — `file://`, `http://` or an object URI — Pinot's URI push; `METADATA`
//! records a segment whose archive stays there), list, download (servers of a directory deep
//! store fetch archives here), ZooKeeper-style metadata, delete.
//!
//! What an upload becomes is the commit service's ([`super::segment_commit`]: the body streams
//! to a scratch file, is validated, stored, then recorded); reading and removing committed
//! archives is the archive store's ([`super::archive_store`]).

use super::archive_store::{archive_body, download_url, fetch_uri};
use super::responses::{ByTableType, ServerSegments, Status, json};
use super::segment_commit::{
    ARCHIVE_FILE, Scratch, map_scratch_file, resolve_upload_table, scratch_dir, store_archive,
    store_archive_file, store_metadata,
};
use super::{Controller, ControllerState};
use crate::http::body::{path_param, query_param, read_bounded, read_bounded_to_file};
use crate::http::routes::Routes;
use crate::http::{ApiError, multipart, on_rayon};
use crate::metadata::records::{SegmentRecord, StreamStatus};
use crate::metadata::table_name::{self, TableType};
use std::collections::BTreeMap;
use tide::{Request, Response, StatusCode};

/// Mounts the segment endpoints.
pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.group("Segment")
        .post(
            "/segments",
            "Uploads a segment tar.gz (multipart); UPLOAD_TYPE: URI or METADATA with DOWNLOAD_URI",
            upload,
        )
        .post("/v2/segments", "As POST /segments", upload)
        .get("/segments/:table", "Lists a table's segments by type", list)
        .delete(
            "/segments/:table",
            "Deletes every segment of a table",
            delete_all,
        )
        .get(
            "/segments/:table/servers",
            "Server → segments of a table",
            servers,
        )
        .get(
            "/segments/:table/zkmetadata",
            "Each segment's metadata record (Pinot's SegmentZKMetadata fields, real-time offsets included)",
            zk_metadata,
        )
        .post(
            "/segments/:table/relocate",
            "Moves segments that aged into a tier to the tier's servers",
            super::tiers::relocate_endpoint,
        )
        .get(
            "/segments/:table/:segment",
            "Downloads a segment's tar.gz",
            download,
        )
        .delete(
            "/segments/:table/:segment",
            "Deletes a segment",
            delete_segment,
        );
}

/// Pinot's `SegmentZKMetadata.toMap()` of a record: flat string fields.
pub fn zk_fields(c: &Controller, r: &SegmentRecord) -> BTreeMap<&'static str, String> {
    let mut m = BTreeMap::new();
    m.insert("segment.crc", r.crc.to_string());
    m.insert("segment.total.docs", r.total_docs.to_string());
    m.insert("segment.size.in.bytes", r.size_bytes.to_string());
    m.insert("segment.push.time", r.push_time_ms.to_string());
    m.insert("segment.creation.time", r.push_time_ms.to_string());
    if let Some(t) = r.refresh_time_ms {
        m.insert("segment.refresh.time", t.to_string());
    }
    if let Some(t) = r.start_time_ms {
        m.insert("segment.start.time", t.to_string());
    }
    if let Some(t) = r.end_time_ms {
        m.insert("segment.end.time", t.to_string());
        m.insert("segment.time.unit", "MILLISECONDS".into());
    }
    if !r.custom.is_empty() {
        m.insert(
            "custom.map",
            serde_json::to_string(&r.custom).unwrap_or_default(),
        );
    }
    if let Some(u) = download_url(c, r) {
        m.insert("segment.download.url", u);
    }
    if let Some(tier) = &r.tier_tag {
        m.insert("segment.tier", tier.clone());
    }
    if let Some(s) = &r.stream {
        let status = match s.status {
            StreamStatus::InProgress => "IN_PROGRESS",
            StreamStatus::Done => "DONE",
        };
        m.insert("segment.realtime.status", status.into());
        m.insert("segment.realtime.startOffset", s.start_offset.to_string());
        if let Some(e) = s.end_offset {
            m.insert("segment.realtime.endOffset", e.to_string());
        }
        m.insert("segment.realtime.numReplicas", r.servers.len().to_string());
        m.insert("segment.creation.time", s.creation_time_ms.to_string());
    }
    m
}

/// `GET /segments/{table}/zkmetadata`: segment name → its metadata fields.
async fn zk_metadata(req: Request<ControllerState>) -> tide::Result {
    let (_, tables) = addressed_tables(&req)?;
    let c = req.state();
    let mut out = BTreeMap::new();
    for (_, typed) in tables {
        for r in c.segments(&typed)? {
            let fields = zk_fields(c, &r);
            out.insert(r.segment_name, fields);
        }
    }
    json(&out)
}

/// [`resolve_upload_table`] for the table named by query parameter `param` (required).
pub fn upload_table(
    c: &Controller,
    req: &Request<ControllerState>,
    param: &str,
) -> Result<String, ApiError> {
    let name = query_param(req, param)
        .ok_or_else(|| ApiError::bad_request(format!("Missing query parameter '{param}'")))?;
    resolve_upload_table(c, &name, query_param(req, "tableType").as_deref()).map_err(ApiError::from)
}

/// The bytes of the single file part of a multipart body (or the raw body).
pub fn single_part(content_type: &str, body: Vec<u8>, what: &str) -> Result<Vec<u8>, ApiError> {
    match multipart::boundary(content_type) {
        Some(b) => {
            let mut parts = multipart::parse(&body, &b)?;
            if parts.len() != 1 {
                return Err(ApiError::bad_request(format!(
                    "Invalid multi-part form for {what}"
                )));
            }
            Ok(parts.remove(0).data)
        }
        None => Ok(body),
    }
}

/// Streams an upload's body to `<scratch>/segment.tar.gz`: the raw body, or the single part of a
/// multipart body — cut out of the body's file through a memory map, never read into memory.
pub(crate) async fn receive_archive(
    req: &mut Request<ControllerState>,
    c: &Controller,
    content_type: &str,
    scratch: &std::path::Path,
) -> Result<(), ApiError> {
    let body = scratch.join("body");
    let archive = scratch.join(ARCHIVE_FILE);
    read_bounded_to_file(req, c.config.max_upload_bytes, &body).await?;
    let Some(boundary) = multipart::boundary(content_type) else {
        return std::fs::rename(&body, &archive)
            .map_err(|e| ApiError::internal(format!("cannot move the upload: {e}")));
    };
    on_rayon(move || -> Result<(), ApiError> {
        let map = map_scratch_file(&body)?;
        let mut parts = multipart::spans(&map, &boundary)?;
        if parts.len() != 1 {
            return Err(ApiError::bad_request(
                "Invalid multi-part form for segment upload",
            ));
        }
        let part = parts.remove(0).data;
        std::fs::write(&archive, &map[part]).map_err(|e| {
            ApiError::internal(format!("cannot write '{}': {e}", archive.display()))
        })?;
        drop(map);
        let _ = std::fs::remove_file(&body);
        Ok(())
    })
    .await
    .map_err(ApiError::internal)?
}

async fn upload(mut req: Request<ControllerState>) -> tide::Result {
    let c = req.state().clone();
    // Without `tableName`, the table named in the segment's metadata is used (as Pinot does).
    let typed = match query_param(&req, "tableName") {
        Some(_) => Some(upload_table(&c, &req, "tableName")?),
        None => None,
    };
    let table_type = query_param(&req, "tableType");
    let upload_type = req
        .header("UPLOAD_TYPE")
        .map(|h| h.as_str().to_ascii_uppercase());
    let download_uri = |req: &Request<ControllerState>| {
        req.header("DOWNLOAD_URI")
            .map(|h| h.as_str().to_string())
            .filter(|u| !u.is_empty())
            .ok_or_else(|| ApiError::bad_request("Failed to get downloadURI from header"))
    };
    let content_type = req
        .content_type()
        .map(|m| m.to_string())
        .unwrap_or_default();
    let status = match upload_type.as_deref() {
        // Pinot's metadata push: only the (small) metadata arrives; the archive stays at
        // DOWNLOAD_URI.
        Some("METADATA") => {
            let uri = download_uri(&req)?;
            let body = read_bounded(&mut req, c.config.max_upload_bytes).await?;
            let body = single_part(&content_type, body, "segment metadata")?;
            store_metadata(&c, typed.as_deref(), table_type.as_deref(), body, uri).await?
        }
        // The archive streams to a scratch file, never whole in memory.
        None | Some("SEGMENT") => {
            let scratch = Scratch(scratch_dir(&c)?);
            receive_archive(&mut req, &c, &content_type, &scratch.0).await?;
            store_archive_file(&c, typed.as_deref(), table_type.as_deref(), &scratch, None).await?
        }
        // Pinot's URI push: the controller fetches the segment's tar.gz from DOWNLOAD_URI.
        Some("URI") => {
            let uri = download_uri(&req)?;
            let archive = fetch_uri(&c, &uri, c.config.max_upload_bytes).await?;
            store_archive(&c, typed.as_deref(), table_type.as_deref(), archive).await?
        }
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "Unsupported upload type: {other} (Tessera takes SEGMENT, URI and METADATA uploads)"
            ))
            .into());
        }
    };
    json(&Status::new(status))
}

async fn list(req: Request<ControllerState>) -> tide::Result {
    let (_, tables) = addressed_tables(&req)?;
    let c = req.state();
    let mut out = Vec::new();
    for (ty, typed) in tables {
        let names: Vec<String> = c
            .segments(&typed)?
            .into_iter()
            .map(|s| s.segment_name)
            .collect();
        out.push(ByTableType::one(ty, names));
    }
    json(&out)
}

async fn servers(req: Request<ControllerState>) -> tide::Result {
    let (_, tables) = addressed_tables(&req)?;
    let c = req.state();
    let mut out = Vec::new();
    for (_, typed) in tables {
        let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for s in c.segments(&typed)? {
            for server in s.servers {
                map.entry(server).or_default().push(s.segment_name.clone());
            }
        }
        let counts = map.iter().map(|(k, v)| (k.clone(), v.len())).collect();
        out.push(ServerSegments {
            table_name: typed,
            server_to_segments_map: map,
            server_to_segments_count_map: counts,
        });
    }
    json(&out)
}

/// The typed tables a segment request addresses (path `table`, query `type`); 404
/// `Table '<name>' not found.` when none exist.
pub fn addressed_tables(
    req: &Request<ControllerState>,
) -> Result<(String, Vec<(TableType, String)>), ApiError> {
    addressed_tables_or(req, |name| format!("Table '{name}' not found."))
}

/// [`addressed_tables`] with the 404 message `missing(name)` (the endpoints' texts differ, as
/// Pinot's do).
pub fn addressed_tables_or(
    req: &Request<ControllerState>,
    missing: impl Fn(&str) -> String,
) -> Result<(String, Vec<(TableType, String)>), ApiError> {
    let name = path_param(req, "table")?;
    let t = table_name::type_param(query_param(req, "type").as_deref())?;
    let tables = req.state().existing_tables(&name, t)?;
    if tables.is_empty() {
        return Err(ApiError::not_found(missing(&name)));
    }
    Ok((name, tables))
}

pub fn find_segment(c: &Controller, name: &str, segment: &str) -> Result<SegmentRecord, ApiError> {
    for (_, typed) in c.existing_tables(name, None)? {
        if let Some(s) = c.segment(&typed, segment)? {
            return Ok(s);
        }
    }
    Err(ApiError::not_found(format!(
        "Segment {segment} or table {name} not found"
    )))
}

async fn download(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "table")?;
    let segment = path_param(&req, "segment")?;
    let c = req.state();
    let listed = find_segment(c, &name, &segment)?;
    let (record, body) = archive_body(c, listed).await?;
    let mut res = Response::new(StatusCode::Ok);
    res.set_body(body);
    res.set_content_type(tide::http::mime::BYTE_STREAM);
    res.insert_header(
        "Content-Disposition",
        format!("attachment; filename={segment}.tar.gz"),
    );
    res.insert_header("X-Tessera-Segment-Crc", record.crc.to_string());
    Ok(res)
}

async fn delete_all(req: Request<ControllerState>) -> tide::Result {
    let c = req.state();
    let _guard = c.lock_writes().await?;
    let (_, tables) = addressed_tables(&req)?;
    for (_, typed) in &tables {
        let keep =
            super::deleted_segments::keep_for(c, typed, query_param(&req, "retention").as_deref())?;
        super::deleted_segments::delete_segments(c, typed, &c.segments(typed)?, keep)?;
    }
    let names: Vec<&str> = tables.iter().map(|(_, n)| n.as_str()).collect();
    json(&Status::new(format!(
        "All segments of table {} deleted",
        names.join(", ")
    )))
}

async fn delete_segment(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "table")?;
    let segment = path_param(&req, "segment")?;
    let c = req.state();
    let _guard = c.lock_writes().await?;
    let record = find_segment(c, &name, &segment)?;
    let typed = record.table_name_with_type.clone();
    let keep =
        super::deleted_segments::keep_for(c, &typed, query_param(&req, "retention").as_deref())?;
    super::deleted_segments::delete_segments(c, &typed, &[record], keep)?;
    json(&Status::new(format!("Segment {segment} deleted")))
}
