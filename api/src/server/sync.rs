//! A server's membership: register with the controller, heartbeat every interval
//! (re-registering if the controller forgot us), and apply the assignment each heartbeat
//! returns: download new or refreshed segments, reopen reloaded ones, drop unassigned ones. A
//! failed heartbeat changes nothing locally.

use super::ServerState;
use super::consumer;
use super::consuming::{Consuming, Phase};
use super::upsert;
use crate::common::BoxFuture;
use crate::common::clock::sleep_unless_stopped;
use crate::common::location::Location;
use crate::http::on_rayon;
use crate::metadata::changes::{Change, ChangeListener};
use crate::metadata::records::{AssignedSegment, ConsumingAssignment, SegmentReport};
use crate::metadata::table_name::{self, TableType};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Heartbeats for a server and applies its assignment, until `stop`.
pub async fn server_loop(server: ServerState, stop: Arc<AtomicBool>) {
    let c = &server.config;
    let registration = c.registration();
    let mut registered = false;
    while !stop.load(Ordering::Relaxed) {
        if !registered {
            registered = server
                .controller
                .register(&registration)
                .await
                .map_err(|e| log::warn!("{}: registration failed: {e}", c.instance_id))
                .is_ok();
        }
        if registered {
            match sync_once(&server).await {
                // Report the new state at once instead of one interval later.
                Synced::Applied { changed: true } => continue,
                Synced::Unknown => registered = false,
                Synced::Applied { changed: false } | Synced::Failed => {}
            }
        }
        sleep_unless_stopped(&stop, c.heartbeat_interval).await;
    }
    server.consuming.stop_all();
}

/// What one heartbeat did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Synced {
    /// The assignment was applied; `changed` when a segment was added, dropped or reloaded.
    Applied { changed: bool },
    /// The controller does not know this server (register again).
    Unknown,
    /// The heartbeat failed; nothing changed.
    Failed,
}

/// One heartbeat, and the assignment it answers applied.
pub async fn sync_once(server: &ServerState) -> Synced {
    let _applying = server.sync_lock.lock().await;
    let id = &server.config.instance_id;
    let report = SegmentReport {
        hosted: server.hosted.loaded(),
        consuming: server.consuming.loaded(),
    };
    match server.controller.heartbeat(id, Some(report)).await {
        Ok(None) => Synced::Unknown,
        Ok(Some(assigned)) => Synced::Applied {
            changed: apply(server, &assigned).await,
        },
        Err(e) => {
            log::warn!("{id}: heartbeat failed: {e}");
            Synced::Failed
        }
    }
}

/// Brings the hosted set in line with `assigned`; returns whether anything changed.
pub async fn apply(server: &ServerState, assigned: &[AssignedSegment]) -> bool {
    let mut changed = false;
    let wanted: BTreeSet<(String, String)> = assigned
        .iter()
        .map(|a| (a.table_name_with_type.clone(), a.segment_name.clone()))
        .collect();
    // Drops first: a segment deleted and re-created under the same name must never answer
    // with the old data while the new one downloads.
    for (table, segs) in server.hosted.loaded() {
        for seg in segs {
            if !wanted.contains(&(table.clone(), seg.clone())) {
                server.hosted.remove(&table, &seg);
                changed = true;
            }
        }
    }
    for (table, segs) in server.consuming.loaded() {
        for seg in segs {
            if !wanted.contains(&(table.clone(), seg.clone())) {
                server.consuming.remove(&table, &seg, None);
                changed = true;
            }
        }
    }
    // Real-time tables: which of them upsert, before anything of theirs is installed.
    let realtime: BTreeSet<&str> = assigned
        .iter()
        .map(|a| a.table_name_with_type.as_str())
        .filter(|t| table_name::split(t).1 == Some(TableType::Realtime))
        .collect();
    for table in &realtime {
        learn_upsert(server, table).await;
    }
    // Committed segments first, and their rows tracked, before any consumer starts: a partial
    // upsert merges each new row into the latest stored row of its key, so a consumer that
    // started while the committed segments were still loading (after a restart) would merge
    // into an older row, or none.
    for a in assigned {
        let (table, seg) = (a.table_name_with_type.clone(), a.segment_name.clone());
        if a.consuming.is_some() {
            continue;
        }
        // A committed segment still consuming here: its consumer installs the copy it built
        // (while committing), or the stored copy replaces its snapshot once downloaded.
        let consumer = server.consuming.get(&table, &seg);
        if consumer
            .as_ref()
            .is_some_and(|c| c.progress().phase == Phase::Committing)
        {
            continue;
        }
        if let Some(c) = consumer {
            c.stop();
        }
        match server.hosted.get(&table, &seg) {
            Some(h) if h.crc == a.crc && h.incarnation == a.incarnation => {
                if h.reload_version != a.reload_version {
                    let s = server.clone();
                    let v = a.reload_version;
                    let (t2, s2) = (table.clone(), seg.clone());
                    match on_rayon(move || s.hosted.reload(&t2, &s2, v)).await {
                        Ok(Ok(())) => changed = true,
                        Ok(Err(e)) => log::warn!("cannot reload {table}/{seg}: {e}"),
                        Err(e) => log::warn!("cannot reload {table}/{seg}: {e}"),
                    }
                }
            }
            _ => match download(server, a).await {
                Ok(()) => changed = true,
                Err(e) => log::warn!("cannot load {table}/{seg}: {e}"),
            },
        }
        if server.hosted.get(&table, &seg).is_some() {
            server.consuming.remove(&table, &seg, None);
        }
    }
    // A table gone from here (deleted, perhaps to be re-created) starts from nothing.
    for table in server.upsert.known() {
        if !realtime.contains(table.as_str()) {
            server.upsert.drop_table(&table);
        }
    }
    for table in &realtime {
        track_upsert(server, table).await;
    }
    for a in assigned {
        if let Some(consuming) = &a.consuming {
            changed |= consume(server, a, consuming).await;
        }
    }
    changed
}

/// Reads once whether a real-time table upserts (its config and schema from the controller).
async fn learn_upsert(server: &ServerState, table: &str) {
    if server.upsert.knows(table) {
        return;
    }
    match server.controller.realtime_setup(table).await {
        Ok(Some(setup)) => {
            let spec = super::consumer::upsert_spec(&setup);
            match spec {
                Ok(spec) => {
                    server.upsert.set(table, spec);
                }
                Err(e) => log::warn!("upsert table {table}: {e}"),
            }
        }
        Ok(None) => {}
        Err(e) => log::warn!("cannot read the config of {table}: {e}"),
    }
}

/// Brings an upsert table's tracked stored copies in line with what is hosted (reloaded or
/// refreshed copies rescanned, dropped ones forgotten), older sequences first.
async fn track_upsert(server: &ServerState, table: &str) {
    let Some(u) = server.upsert.get(table) else {
        return;
    };
    let mut hosted: Vec<(String, Arc<segments::ImmutableSegment>)> = server
        .hosted
        .segments_of(table)
        .into_iter()
        .map(|(name, h)| (name, h.segment))
        .collect();
    hosted.sort_by_key(|(name, _)| (upsert::sequence_of(name), name.clone()));
    let consuming: BTreeSet<String> = server
        .consuming
        .of_table(table)
        .iter()
        .map(|c| c.segment.clone())
        .collect();
    let table = table.to_string();
    let work = move || {
        for (name, _) in u.stored() {
            if !hosted.iter().any(|(n, _)| *n == name) && !consuming.contains(&name) {
                u.remove(&name);
            }
        }
        for (name, segment) in hosted {
            if let Err(e) = u.add_stored(&name, segment) {
                log::warn!("upsert table {table}: cannot track {name}: {e}");
            }
        }
    };
    if let Err(e) = on_rayon(work).await {
        log::warn!("upsert tracking failed: {e}");
    }
}

/// Starts consuming an assigned consuming segment (unless it already is), or asks its consumer
/// to commit when the table is paused. Returns whether a consumer started.
async fn consume(
    server: &ServerState,
    a: &AssignedSegment,
    assigned: &ConsumingAssignment,
) -> bool {
    let (table, seg) = (&a.table_name_with_type, &a.segment_name);
    if let Some(c) = server.consuming.get(table, seg)
        && c.incarnation == a.incarnation
    {
        if assigned.paused {
            c.request_commit();
        }
        return false;
    }
    let setup = match server.controller.realtime_setup(table).await {
        Ok(Some(s)) => s,
        Ok(None) => return false,
        Err(e) => {
            log::warn!("cannot consume {table}/{seg}: {e}");
            return false;
        }
    };
    let c = Arc::new(Consuming::new(
        table,
        seg,
        a.incarnation,
        assigned.partition,
        assigned.start_offset,
    ));
    if assigned.paused {
        c.request_commit();
    }
    // Registered first: a consumer that commits at once removes itself from the registry.
    server.consuming.insert(c.clone());
    match consumer::start(server.clone(), c.clone(), &setup, assigned.creation_time_ms) {
        Ok(()) => {
            log::info!(
                "consuming {table}/{seg}: partition {} from offset {}",
                assigned.partition,
                assigned.start_offset
            );
            true
        }
        Err(e) => {
            server.consuming.remove(table, seg, Some(&c));
            log::warn!("cannot consume {table}/{seg}: {e}");
            false
        }
    }
}

async fn download(server: &ServerState, a: &AssignedSegment) -> Result<(), String> {
    // A metadata-pushed segment, or one in an object-store deep store, comes straight from the
    // URI its record names.
    let bytes = match a.download_uri.as_deref().map(|u| (u, Location::parse(u))) {
        Some((_, Some(location))) => location.read(u64::MAX / 2, &server.config.cloud).await,
        Some((uri, None)) => Err(format!("unreadable download URI '{uri}'")),
        None => server
            .controller
            .download_segment(&a.table_name_with_type, &a.segment_name)
            .await
            .map_err(|e| e.to_string()),
    }
    .map_err(|e| format!("download failed: {e}"))?;
    let s = server.clone();
    let a = a.clone();
    on_rayon(move || {
        // An archive from a deep-store URI must be the one the metadata names (not one
        // rewritten since it was pushed). The controller serves its current copy, which a
        // refresh committed after this assignment may have replaced: it is installed under its
        // own CRC, the next assignment names that CRC, and nothing is downloaded twice.
        let crc = crc32fast::hash(&bytes);
        if crc != a.crc && a.download_uri.is_some() {
            return Err(format!(
                "the archive's CRC {crc} is not the segment's {} (changed since it was pushed?)",
                a.crc
            ));
        }
        // An upsert table's copy is reachable by queries only with its older rows hidden.
        let upsert = s.upsert.get(&a.table_name_with_type);
        let name = a.segment_name.clone();
        let prepare = move |seg: &Arc<segments::ImmutableSegment>| match &upsert {
            Some(u) => u.add_stored(&name, seg.clone()),
            None => Ok(()),
        };
        s.hosted
            .install_with(
                &a.table_name_with_type,
                &a.segment_name,
                &bytes,
                super::hosting::SegmentCopy {
                    crc,
                    reload_version: a.reload_version,
                    incarnation: a.incarnation,
                },
                &prepare,
            )
            .map_err(|e| e.to_string())
    })
    .await?
}

/// A server of this process as a listener of the controller's changes: it applies its
/// assignment before the controller answers the request that made the change.
pub struct SyncOnChange(pub ServerState);

impl ChangeListener for SyncOnChange {
    fn changed<'a>(&'a self, change: &'a Change) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            // Apply, then report what is now loaded (so routing includes it), as the
            // heartbeat loop does after a change.
            let mut rounds = 0;
            while (change.all || !change.tables.is_empty())
                && rounds < 3
                && sync_once(&self.0).await == (Synced::Applied { changed: true })
            {
                rounds += 1;
            }
        })
    }
}
