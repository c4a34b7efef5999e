//! The segment commit service: how an archive becomes a segment record. An upload, an ingest, a
//! reload rebuild or a URI push hands it an archive in a scratch directory of this controller
//! ([`Scratch`]; an HTTP body streams there, [`receive_archive`]); it is validated by unpacking
//! it on rayon, put in the deep store, and only then recorded — a new segment with its
//! assignment, or a refresh keeping the assignment with a new CRC — in one metadata transaction
//! ([`commit_arrival`]), so a crash at any point leaves no record of a half-stored archive. A
//! metadata push records a segment whose archive stays at the pusher's URI ([`store_metadata`]).

use super::Controller;
use super::archive_store::remove_archive;
use super::assignment;
use super::catalog::encode;
use super::error::ControllerError;
use super::placement::{placement_servers, server_load};
use super::table_config;
use super::table_config::server_tag;
use crate::common::archive::{self, SegmentFacts};
use crate::common::clock::now_ms;
use crate::common::location::{LOCATION_FORMS, Location};
use crate::http::on_rayon;
use crate::metadata::records::SegmentRecord;
use crate::metadata::table_name::{self, TableType};
use crate::metadata::{Op, StoreError, keys};
use std::sync::atomic::{AtomicU64, Ordering};

static SCRATCH: AtomicU64 = AtomicU64::new(0);

/// A fresh scratch directory under the controller's temp dir.
pub fn scratch_dir(c: &Controller) -> Result<std::path::PathBuf, ControllerError> {
    let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
    let dir = c.temp_dir().join(format!("upload-{}-{n}", now_ms()));
    std::fs::create_dir_all(&dir).map_err(|e| {
        ControllerError::internal(format!("cannot create '{}': {e}", dir.display()))
    })?;
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
) -> Result<String, ControllerError> {
    let t = table_name::type_param(table_type)?.unwrap_or(TableType::Offline);
    let (raw, suffix) = table_name::split(name);
    if let Some(s) = suffix
        && s != t
        && table_type.is_some_and(|x| !x.is_empty())
    {
        return Err(ControllerError::invalid(format!(
            "Table name: {name} does not match table type: {}",
            t.name()
        )));
    }
    let typed = table_name::with_type(raw, suffix.unwrap_or(t));
    if c.table_config(&typed)?.is_none() {
        return Err(ControllerError::invalid(format!(
            "Failed to find table: {typed}"
        )));
    }
    Ok(typed)
}

/// Validates `archive` and commits it as a new or refreshed segment of `typed` (or, when
/// `None`, of the table its metadata names, typed by `table_type`). Returns Pinot's success
/// message.
pub async fn store_archive(
    c: &Controller,
    typed: Option<&str>,
    table_type: Option<&str>,
    archive: Vec<u8>,
) -> Result<String, ControllerError> {
    store_archive_if(c, typed, table_type, archive, None).await
}

/// A segment on its way into the metadata: what it holds and where its archive will live.
struct Arrival {
    facts: SegmentFacts,
    crc: u32,
    size_bytes: u64,
    /// Unpacked size (0: unknown, a metadata push).
    data_bytes: u64,
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
    c: &Controller,
    typed: Option<&str>,
    table_type: Option<&str>,
    archive: Vec<u8>,
    expected_crc: Option<u32>,
) -> Result<String, ControllerError> {
    let scratch = Scratch(scratch_dir(c)?);
    let path = scratch.0.join(ARCHIVE_FILE);
    async_std::fs::write(&path, &archive).await.map_err(|e| {
        ControllerError::internal(format!("cannot write '{}': {e}", path.display()))
    })?;
    drop(archive);
    store_archive_file(c, typed, table_type, &scratch, expected_crc).await
}

/// The archive's name in an upload's scratch directory.
pub(crate) const ARCHIVE_FILE: &str = "segment.tar.gz";

/// A read-only map of a file in an upload's scratch directory.
pub(crate) fn map_scratch_file(path: &std::path::Path) -> Result<memmap2::Mmap, ControllerError> {
    let file = std::fs::File::open(path)
        .map_err(|e| ControllerError::internal(format!("cannot open '{}': {e}", path.display())))?;
    // SAFETY: a scratch directory belongs to the one request that writes it, which is done
    // writing this file; nothing else writes or truncates it while it is mapped.
    unsafe { memmap2::Mmap::map(&file) }
        .map_err(|e| ControllerError::internal(format!("cannot map '{}': {e}", path.display())))
}

/// Validates `<scratch>/segment.tar.gz` (read through a memory map) and commits it as a new or
/// refreshed segment (see [`store_archive_if`]).
pub(crate) async fn store_archive_file(
    c: &Controller,
    typed: Option<&str>,
    table_type: Option<&str>,
    scratch: &Scratch,
    expected_crc: Option<u32>,
) -> Result<String, ControllerError> {
    let unpack_dir = scratch.0.join("unpacked");
    let archive_path = scratch.0.join(ARCHIVE_FILE);
    let arrival = on_rayon(move || -> Result<_, ControllerError> {
        let map = map_scratch_file(&archive_path)?;
        let crc = crc32fast::hash(&map);
        let seg = archive::unpack(&map, &unpack_dir)
            .map_err(|e| ControllerError::invalid(e.to_string()))?;
        // The unpacked copy was only for validation.
        let _ = std::fs::remove_dir_all(&unpack_dir);
        Ok(Arrival {
            facts: seg.facts,
            crc,
            size_bytes: map.len() as u64,
            data_bytes: seg.data_bytes,
            home: Home::Scratch(archive_path.clone()),
        })
    })
    .await
    .map_err(ControllerError::internal)??;
    commit_arrival(c, typed, table_type, arrival, expected_crc).await
}

/// Pinot's metadata push: `metadata` is a metadata archive (see [`archive`]) of a segment whose
/// full archive stays at `uri`. The controller checks that the URI can be read from here and
/// records it; servers fetch the archive from there and check its CRC.
pub(crate) async fn store_metadata(
    c: &Controller,
    typed: Option<&str>,
    table_type: Option<&str>,
    metadata: Vec<u8>,
    uri: String,
) -> Result<String, ControllerError> {
    let location = Location::parse(&uri).ok_or_else(|| {
        ControllerError::invalid(format!(
            "Unsupported DOWNLOAD_URI '{uri}': use {LOCATION_FORMS}"
        ))
    })?;
    let (facts, creation) = on_rayon(move || archive::read_metadata_archive(&metadata))
        .await
        .map_err(ControllerError::internal)?
        .map_err(|e| ControllerError::invalid(e.to_string()))?;
    location.check(&c.config.cloud).await.map_err(|why| {
        ControllerError::invalid(format!("Failed to find segment at '{uri}': {why}"))
    })?;
    let arrival = Arrival {
        facts,
        crc: creation.crc,
        size_bytes: creation.size_bytes,
        data_bytes: 0,
        home: Home::Uri(uri),
    };
    commit_arrival(c, typed, table_type, arrival, None).await
}

/// Records `arrival` as a new or refreshed segment (see [`store_archive_if`]).
async fn commit_arrival(
    c: &Controller,
    typed: Option<&str>,
    table_type: Option<&str>,
    arrival: Arrival,
    expected_crc: Option<u32>,
) -> Result<String, ControllerError> {
    let Arrival {
        facts,
        crc,
        size_bytes,
        data_bytes,
        home,
    } = arrival;
    let segment = facts.segment_name.clone();
    if segment.is_empty() || segment.contains('/') || segment.contains("..") {
        return Err(ControllerError::invalid(format!(
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
        .ok_or_else(|| ControllerError::invalid(format!("Failed to find table: {typed}")))?;
    let existing = c.segment(typed, &segment)?;
    if let Some(parsed) = table_config::parse_config(&config) {
        let incoming = if data_bytes > 0 {
            data_bytes
        } else {
            size_bytes
        };
        let held = c.segments(typed)?;
        super::storage_quota::check(&parsed, typed, &segment, existing.as_ref(), &held, incoming)?;
    }
    let end_time_ms = super::tiers::end_time_ms(c, typed, &facts);
    let start_time_ms = super::tiers::start_time_ms(c, typed, &facts);
    if let Some(expected) = expected_crc
        && existing.as_ref().map(|e| e.crc) != Some(expected)
    {
        return Err(ControllerError::conflict(format!(
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
                    ControllerError::internal(format!(
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
            data_bytes,
            total_docs: facts.total_docs,
            statistics: Some(facts.statistics.clone()),
            refresh_time_ms: Some(now),
            archive: file_name.clone(),
            download_uri,
            start_time_ms,
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
                data_bytes,
                total_docs: facts.total_docs,
                statistics: Some(facts.statistics.clone()),
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
                start_time_ms,
                end_time_ms,
                custom: Default::default(),
                tier_tag: None,
                incarnation: crate::metadata::records::new_incarnation(),
                stream: None,
            }
        }
    };
    if let Err(e) = c.try_commit(vec![Op::Put(
        keys::segment(typed, &segment),
        encode(&record),
    )]) {
        // A commit that may have been applied keeps its archive (the start-up sweep removes
        // it if no record names it): the record may point at it.
        if !matches!(e, StoreError::Indeterminate(_)) {
            remove_archive(c, typed, &file_name);
        }
        return Err(crate::http::ApiError::from(e).into());
    }
    if let Some(old) = existing {
        remove_archive(c, typed, &old.archive);
    }
    Ok(format!(
        "Successfully uploaded segment: {segment} of table: {typed}"
    ))
}
