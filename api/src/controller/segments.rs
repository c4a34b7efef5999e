//! Segment endpoints: upload (`POST /segments`, `POST /v2/segments`; a new name adds, an
//! existing name refreshes; with `UPLOAD_TYPE: URI` the controller fetches the tar.gz from the
//! `DOWNLOAD_URI` header's `file://` or `http://` URI, Pinot's URI push), list, download (servers
//! fetch archives here), reload, delete.
//!
//! Upload: the body streams to a scratch file, bounded (413 above the limit); the single
//! multipart part is cut out of it through a memory map (the archive is never held in memory),
//! unpacked on rayon and validated by opening the segment (400 if it is not one: nothing
//! changes), then the archive moves into the deep store and one metadata transaction records the
//! segment with its assignment. A refresh keeps the assignment and bumps the CRC, so servers
//! swap the new copy in.

use super::assignment;
use super::catalog::encode;
use super::placement::{placement_servers, server_load};
use super::responses::{ByTableType, ServerSegments, Status, json};
use super::table_config;
use super::table_config::server_tag;
use super::{Controller, ControllerState};
use crate::common::archive::{self, SegmentFacts};
use crate::common::clock::now_ms;
use crate::common::location::{LOCATION_FORMS, Location};
use crate::http::body::{path_param, query_param, read_bounded, read_bounded_to_file};
use crate::http::routes::Routes;
use crate::http::{ApiError, multipart, on_rayon};
use crate::metadata::records::{SegmentRecord, StreamStatus};
use crate::metadata::table_name::{self, TableType};
use crate::metadata::{Op, keys};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use tide::{Body, Request, Response, StatusCode};

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

static SCRATCH: AtomicU64 = AtomicU64::new(0);

/// Where a segment's archive is fetched from (Pinot's `segment.download.url`): the URI a
/// metadata push named, else the archive's URI in the deep store (servers fetch it through any
/// live controller, which reads it there).
pub fn download_url(c: &Controller, r: &SegmentRecord) -> Option<String> {
    match (&r.download_uri, r.archive.is_empty()) {
        (Some(u), _) => Some(u.clone()),
        (None, false) => Some(c.deep.uri(&r.table_name_with_type, &r.archive)),
        (None, true) => None,
    }
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
    if let Some(t) = r.end_time_ms {
        m.insert("segment.end.time", t.to_string());
        m.insert("segment.time.unit", "MILLISECONDS".into());
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

/// A fresh scratch directory under the controller's temp dir.
pub fn scratch_dir(c: &Controller) -> Result<std::path::PathBuf, ApiError> {
    let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
    let dir = c.temp_dir().join(format!("upload-{}-{n}", now_ms()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| ApiError::internal(format!("cannot create '{}': {e}", dir.display())))?;
    Ok(dir)
}

/// Removes a scratch directory when dropped.
pub struct Scratch(pub std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Resolves a table name (raw or typed) plus the `tableType` query parameter (default
/// OFFLINE) to an existing typed table; 400 `Failed to find table: X_OFFLINE` otherwise.
pub fn resolve_upload_table(
    c: &Controller,
    name: &str,
    table_type: Option<&str>,
) -> Result<String, ApiError> {
    let t = table_name::type_param(table_type)?.unwrap_or(TableType::Offline);
    let (raw, suffix) = table_name::split(name);
    if let Some(s) = suffix
        && s != t
        && table_type.is_some_and(|x| !x.is_empty())
    {
        return Err(ApiError::bad_request(format!(
            "Table name: {name} does not match table type: {}",
            t.name()
        )));
    }
    let typed = table_name::with_type(raw, suffix.unwrap_or(t));
    if c.table_config(&typed)?.is_none() {
        return Err(ApiError::bad_request(format!(
            "Failed to find table: {typed}"
        )));
    }
    Ok(typed)
}

/// [`resolve_upload_table`] for the table named by query parameter `param` (required).
pub fn upload_table(
    c: &Controller,
    req: &Request<ControllerState>,
    param: &str,
) -> Result<String, ApiError> {
    let name = query_param(req, param)
        .ok_or_else(|| ApiError::bad_request(format!("Missing query parameter '{param}'")))?;
    resolve_upload_table(c, &name, query_param(req, "tableType").as_deref())
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

/// The bytes at `uri` (`file:///path` on the controller's machine, `http://…` or an object
/// URI such as `s3://bucket/key`), at most `limit` of them.
async fn fetch_uri(c: &Controller, uri: &str, limit: u64) -> Result<Vec<u8>, ApiError> {
    let failed =
        |why: String| ApiError::bad_request(format!("Failed to fetch segment from '{uri}': {why}"));
    Location::parse(uri)
        .ok_or_else(|| failed(format!("use {LOCATION_FORMS}")))?
        .read(limit, &c.config.cloud)
        .await
        .map_err(failed)
}

/// Validates `archive` and commits it as a new or refreshed segment of `typed` (or, when
/// `None`, of the table its metadata names, typed by `table_type`). Returns Pinot's success
/// message.
pub async fn store_archive(
    c: &ControllerState,
    typed: Option<&str>,
    table_type: Option<&str>,
    archive: Vec<u8>,
) -> Result<String, ApiError> {
    store_archive_if(c, typed, table_type, archive, None).await
}

/// A segment on its way into the metadata: what it holds and where its archive will live.
struct Arrival {
    facts: SegmentFacts,
    crc: u32,
    size_bytes: u64,
    home: Home,
}

/// Where an arriving segment's archive lives.
enum Home {
    /// Unpacked and validated in a scratch dir: the archive moves into the deep store.
    Scratch(std::path::PathBuf),
    /// At a deep-store URI the pusher named (a metadata push); the controller never holds it.
    Uri(String),
}

/// [`store_archive`], refused with 409 when `expected_crc` is given and the segment's current
/// CRC differs (it was refreshed meanwhile) — used by reload rebuilds.
pub async fn store_archive_if(
    c: &ControllerState,
    typed: Option<&str>,
    table_type: Option<&str>,
    archive: Vec<u8>,
    expected_crc: Option<u32>,
) -> Result<String, ApiError> {
    let scratch = Scratch(scratch_dir(c)?);
    let path = scratch.0.join(ARCHIVE_FILE);
    async_std::fs::write(&path, &archive)
        .await
        .map_err(|e| ApiError::internal(format!("cannot write '{}': {e}", path.display())))?;
    drop(archive);
    store_archive_file(c, typed, table_type, &scratch, expected_crc).await
}

/// The archive's name in an upload's scratch directory.
const ARCHIVE_FILE: &str = "segment.tar.gz";

/// Streams an upload's body to `<scratch>/segment.tar.gz`: the raw body, or the single part of a
/// multipart body — cut out of the body's file through a memory map, never read into memory.
async fn receive_archive(
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

/// A read-only map of a file in an upload's scratch directory.
fn map_scratch_file(path: &std::path::Path) -> Result<memmap2::Mmap, ApiError> {
    let file = std::fs::File::open(path)
        .map_err(|e| ApiError::internal(format!("cannot open '{}': {e}", path.display())))?;
    // SAFETY: a scratch directory belongs to the one request that writes it, which is done
    // writing this file; nothing else writes or truncates it while it is mapped.
    unsafe { memmap2::Mmap::map(&file) }
        .map_err(|e| ApiError::internal(format!("cannot map '{}': {e}", path.display())))
}

/// Validates `<scratch>/segment.tar.gz` (read through a memory map) and commits it as a new or
/// refreshed segment (see [`store_archive_if`]).
async fn store_archive_file(
    c: &ControllerState,
    typed: Option<&str>,
    table_type: Option<&str>,
    scratch: &Scratch,
    expected_crc: Option<u32>,
) -> Result<String, ApiError> {
    let unpack_dir = scratch.0.join("unpacked");
    let archive_path = scratch.0.join(ARCHIVE_FILE);
    let arrival = on_rayon(move || -> Result<_, ApiError> {
        let map = map_scratch_file(&archive_path)?;
        let crc = crc32fast::hash(&map);
        let seg =
            archive::unpack(&map, &unpack_dir).map_err(|e| ApiError::bad_request(e.to_string()))?;
        // The unpacked copy was only for validation.
        let _ = std::fs::remove_dir_all(&unpack_dir);
        Ok(Arrival {
            facts: seg.facts,
            crc,
            size_bytes: map.len() as u64,
            home: Home::Scratch(archive_path.clone()),
        })
    })
    .await
    .map_err(ApiError::internal)??;
    commit_arrival(c, typed, table_type, arrival, expected_crc).await
}

/// Pinot's metadata push: `metadata` is a metadata archive (see [`archive`]) of a segment whose
/// full archive stays at `uri`. The controller checks that the URI can be read from here and
/// records it; servers fetch the archive from there and check its CRC.
async fn store_metadata(
    c: &ControllerState,
    typed: Option<&str>,
    table_type: Option<&str>,
    metadata: Vec<u8>,
    uri: String,
) -> Result<String, ApiError> {
    let location = Location::parse(&uri).ok_or_else(|| {
        ApiError::bad_request(format!(
            "Unsupported DOWNLOAD_URI '{uri}': use {LOCATION_FORMS}"
        ))
    })?;
    let (facts, creation) = on_rayon(move || archive::read_metadata_archive(&metadata))
        .await
        .map_err(ApiError::internal)?
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    location.check(&c.config.cloud).await.map_err(|why| {
        ApiError::bad_request(format!("Failed to find segment at '{uri}': {why}"))
    })?;
    let arrival = Arrival {
        facts,
        crc: creation.crc,
        size_bytes: creation.size_bytes,
        home: Home::Uri(uri),
    };
    commit_arrival(c, typed, table_type, arrival, None).await
}

/// Records `arrival` as a new or refreshed segment (see [`store_archive_if`]).
async fn commit_arrival(
    c: &ControllerState,
    typed: Option<&str>,
    table_type: Option<&str>,
    arrival: Arrival,
    expected_crc: Option<u32>,
) -> Result<String, ApiError> {
    let Arrival {
        facts,
        crc,
        size_bytes,
        home,
    } = arrival;
    let segment = facts.segment_name.clone();
    if segment.is_empty() || segment.contains('/') || segment.contains("..") {
        return Err(ApiError::bad_request(format!(
            "Invalid segment name '{segment}'"
        )));
    }

    let typed = match typed {
        Some(t) => t.to_string(),
        None => resolve_upload_table(c, &facts.table_name, table_type)?,
    };
    let typed = typed.as_str();
    let _guard = c.lock_writes().await?;
    let config = c
        .table_config(typed)?
        .ok_or_else(|| ApiError::bad_request(format!("Failed to find table: {typed}")))?;
    let existing = c.segment(typed, &segment)?;
    let end_time_ms = super::tiers::end_time_ms(c, typed, &facts);
    if let Some(expected) = expected_crc
        && existing.as_ref().map(|e| e.crc) != Some(expected)
    {
        return Err(ApiError::conflict(format!(
            "Segment {segment} of table {typed} changed while it was being rebuilt"
        )));
    }
    let (file_name, download_uri) = match home {
        Home::Scratch(archive_path) => {
            let file_name = format!("{segment}.{crc:08x}.{}.tar.gz", now_ms());
            // An upload to object storage takes a while: off the async executor. The record
            // below is committed only once the archive is whole in the store.
            let (deep, table, file) = (c.deep.clone(), typed.to_string(), file_name.clone());
            async_std::task::spawn_blocking(move || deep.put(&table, &file, &archive_path))
                .await
                .map_err(|e| {
                    ApiError::internal(format!(
                        "cannot store segment {segment} in the deep store {}: {e}",
                        c.deep.describe()
                    ))
                })?;
            (file_name, None)
        }
        Home::Uri(uri) => (String::new(), Some(uri)),
    };

    let now = now_ms();
    let record = match &existing {
        Some(old) => SegmentRecord {
            crc,
            size_bytes,
            total_docs: facts.total_docs,
            refresh_time_ms: Some(now),
            archive: file_name.clone(),
            download_uri,
            end_time_ms,
            ..old.clone()
        },
        None => {
            let servers = placement_servers(c, &server_tag(&config))?;
            let mut load = server_load(c)?;
            SegmentRecord {
                segment_name: segment.clone(),
                table_name_with_type: typed.to_string(),
                crc,
                size_bytes,
                total_docs: facts.total_docs,
                push_time_ms: now,
                refresh_time_ms: None,
                archive: file_name.clone(),
                download_uri,
                servers: assignment::place(
                    table_config::replication(&config),
                    &[],
                    &servers,
                    &mut load,
                ),
                reload_version: 0,
                end_time_ms,
                tier_tag: None,
                incarnation: crate::metadata::records::new_incarnation(),
                stream: None,
            }
        }
    };
    if let Err(e) = c.commit(vec![Op::Put(
        keys::segment(typed, &segment),
        encode(&record),
    )]) {
        remove_archive(c, typed, &file_name);
        return Err(e);
    }
    if let Some(old) = existing {
        remove_archive(c, typed, &old.archive);
    }
    Ok(format!(
        "Successfully uploaded segment: {segment} of table: {typed}"
    ))
}

/// How many times a read follows a segment whose archive was replaced while it was being read.
const ARCHIVE_READ_ATTEMPTS: usize = 3;

/// The archive of the segment `record` names, with the record it belongs to: from the
/// controller's deep store, or from the URI a metadata push left it at. A refresh or reload that
/// commits between reading `record` and reading its file removes the file the record names; the
/// segment is then read again, as it is now, so the caller gets the new archive and its record
/// (never a 404 for a segment that exists).
pub async fn read_archive(
    c: &Controller,
    record: SegmentRecord,
) -> Result<(SegmentRecord, Vec<u8>), ApiError> {
    follow_archive(
        c,
        record,
        |r| async move { read_named_archive(c, &r).await },
    )
    .await
}

/// Runs `read` on `record`'s archive; when that fails and the segment's record now names another
/// archive, runs it again on the new record (at most [`ARCHIVE_READ_ATTEMPTS`] times in all).
async fn follow_archive<T, F, Fut>(
    c: &Controller,
    mut record: SegmentRecord,
    read: F,
) -> Result<(SegmentRecord, T), ApiError>
where
    F: Fn(SegmentRecord) -> Fut,
    Fut: std::future::Future<Output = Result<T, ApiError>>,
{
    let mut attempt = 1;
    loop {
        let failure = match read(record.clone()).await {
            Ok(value) => return Ok((record, value)),
            Err(e) => e,
        };
        let now = c.segment(&record.table_name_with_type, &record.segment_name)?;
        match now {
            Some(now)
                if attempt < ARCHIVE_READ_ATTEMPTS
                    && (now.archive != record.archive
                        || now.download_uri != record.download_uri) =>
            {
                record = now;
                attempt += 1;
            }
            _ => return Err(failure),
        }
    }
}

/// The archive `record` names, as named: a 404 when it is not there.
async fn read_named_archive(c: &Controller, record: &SegmentRecord) -> Result<Vec<u8>, ApiError> {
    if let Some(uri) = &record.download_uri {
        let location = Location::parse(uri)
            .ok_or_else(|| ApiError::internal(format!("unreadable download URI '{uri}'")))?;
        return location
            .read(u64::MAX / 2, &c.config.cloud)
            .await
            .map_err(|why| {
                ApiError::not_found(format!("Segment archive '{uri}' is missing: {why}"))
            });
    }
    async_std::fs::read(local_archive_path(c, record)?)
        .await
        .map_err(|e| missing_local_archive(c, record, e))
}

/// Where the controller's deep store keeps `record`'s archive.
fn local_archive_path(
    c: &Controller,
    record: &SegmentRecord,
) -> Result<std::path::PathBuf, ApiError> {
    c.deep
        .local_path(&record.table_name_with_type, &record.archive)
        .map_err(|e| ApiError::not_found(format!("Segment archive is missing: {e}")))
}

fn missing_local_archive(c: &Controller, record: &SegmentRecord, e: std::io::Error) -> ApiError {
    let path = local_archive_path(c, record)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| record.archive.clone());
    ApiError::not_found(format!("Segment archive '{path}' is missing: {e}"))
}

pub fn remove_archive(c: &Controller, table: &str, file: &str) {
    if file.is_empty() {
        // A metadata-pushed segment: its archive is the pusher's, in its deep store.
        return;
    }
    if let Err(e) = c.deep.remove(table, file) {
        log::warn!(
            "cannot remove old archive '{file}' of {table} from the deep store at {}: {e}",
            c.deep.describe()
        );
    }
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
    // A deep-store file is streamed, not read whole: once open, a refresh that removes it does
    // not cut the download short.
    let (record, body) = follow_archive(c, listed, |r| async move {
        if r.download_uri.is_some() {
            return read_named_archive(c, &r).await.map(Body::from_bytes);
        }
        let path = local_archive_path(c, &r)?;
        Body::from_file(&path)
            .await
            .map_err(|e| missing_local_archive(c, &r, e))
    })
    .await?;
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
    let mut removed = Vec::new();
    for (_, typed) in &tables {
        removed.extend(
            c.segments(typed)?
                .into_iter()
                .map(|s| (typed.clone(), s.archive)),
        );
    }
    c.commit(
        tables
            .iter()
            .map(|(_, typed)| Op::DeletePrefix(keys::segments_of(typed)))
            .collect(),
    )?;
    for (typed, file) in removed {
        remove_archive(c, &typed, &file);
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
    c.commit(vec![Op::Delete(keys::segment(
        &record.table_name_with_type,
        &segment,
    ))])?;
    remove_archive(c, &record.table_name_with_type, &record.archive);
    json(&Status::new(format!("Segment {segment} deleted")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::ControllerConfig;
    use crate::metadata::redb_store::RedbStore;
    use std::sync::Arc;
    use std::time::Duration;

    const TABLE: &str = "t_OFFLINE";

    fn controller(dir: &std::path::Path) -> Controller {
        let config = ControllerConfig {
            data_dir: dir.to_path_buf(),
            instance_id: "Controller_test".into(),
            heartbeat_timeout: Duration::from_secs(10),
            max_upload_bytes: 1 << 20,
            auth: None,
            cloud: Arc::new(crate::cloud::ObjectStores::new(Vec::new())),
        };
        let store = Arc::new(RedbStore::open(&dir.join("metadata.redb")).unwrap());
        let deep = Arc::new(super::super::deep_store::DirDeepStore::new(
            dir.join("deepstore"),
        ));
        Controller::new(
            config,
            store,
            crate::logging::init_for_tests().unwrap(),
            deep,
        )
    }

    /// Stores `bytes` as the archive `file` of segment `s` and records it, removing the archive
    /// the segment had before — what a refresh's commit does.
    fn commit(c: &Controller, file: &str, bytes: &[u8]) -> SegmentRecord {
        let staged = c.config.data_dir.join("staged");
        std::fs::write(&staged, bytes).unwrap();
        c.deep.put(TABLE, file, &staged).unwrap();
        let old = c.segment(TABLE, "s").unwrap();
        let record = SegmentRecord {
            segment_name: "s".into(),
            table_name_with_type: TABLE.into(),
            crc: crc32fast::hash(bytes),
            size_bytes: bytes.len() as u64,
            total_docs: 1,
            push_time_ms: 0,
            refresh_time_ms: None,
            archive: file.into(),
            download_uri: None,
            servers: vec![],
            reload_version: 0,
            end_time_ms: None,
            tier_tag: None,
            incarnation: 1,
            stream: None,
        };
        c.commit(vec![Op::Put(keys::segment(TABLE, "s"), encode(&record))])
            .unwrap();
        if let Some(old) = old {
            remove_archive(c, TABLE, &old.archive);
        }
        record
    }

    #[test]
    fn a_record_read_before_a_refresh_reads_the_refreshed_archive() {
        let dir = tempfile::tempdir().unwrap();
        let c = controller(dir.path());
        let first = commit(&c, "s.1.tar.gz", b"first");
        assert_eq!(
            async_std::task::block_on(read_archive(&c, first.clone())).unwrap(),
            (first.clone(), b"first".to_vec())
        );
        // A refresh commits between the caller's read of the record and its read of the file.
        let second = commit(&c, "s.2.tar.gz", b"second");
        let (record, bytes) = async_std::task::block_on(read_archive(&c, first.clone())).unwrap();
        assert_eq!((record, bytes), (second.clone(), b"second".to_vec()));
        // An archive missing while the record still names it is a 404, not a loop.
        std::fs::remove_file(c.deep.local_path(TABLE, "s.2.tar.gz").unwrap()).unwrap();
        let e = async_std::task::block_on(read_archive(&c, first)).unwrap_err();
        assert_eq!(e.status, 404, "{e:?}");
        assert!(e.message.contains("s.2.tar.gz"), "{}", e.message);
        // A deleted segment: the stale record's archive is gone and so is the segment.
        c.commit(vec![Op::Delete(keys::segment(TABLE, "s"))])
            .unwrap();
        let e = async_std::task::block_on(read_archive(&c, second)).unwrap_err();
        assert_eq!(e.status, 404, "{e:?}");
    }
}
