//! Pinot's per-table state znodes, for the operators and tools that read them: on a shared
//! (ZooKeeper) store, the leading controller writes `IDEALSTATES/<table>` (the assignment) and
//! `EXTERNALVIEW/<table>` (what live servers report serving) as Helix `ZNRecord`s whenever they
//! change, and removes those of deleted tables. They are views: derived from the segment
//! records and the live instances, never read back, written without a metadata version.

use super::Controller;
use super::table_views::segment_states;
use crate::common::clock::sleep_unless_stopped;
use crate::metadata::Op;
use crate::metadata::keys;
use serde_json::{Value as Json, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// One table's state as a Helix `ZNRecord`.
fn znrecord(c: &Controller, typed: &str, external: bool) -> Result<Json, String> {
    let states = segment_states(c, typed, external).map_err(|e| e.message)?;
    let map: serde_json::Map<String, Json> = states
        .0
        .into_iter()
        .map(|(segment, servers)| {
            let by_server: serde_json::Map<String, Json> = servers
                .0
                .into_iter()
                .map(|(server, state)| (server, json!(state)))
                .collect();
            (segment, Json::Object(by_server))
        })
        .collect();
    Ok(json!({
        "id": typed,
        "simpleFields": {
            "NUM_PARTITIONS": map.len().to_string(),
            "REBALANCE_MODE": "CUSTOMIZED",
            "STATE_MODEL_DEF_REF": "SegmentOnlineOfflineStateModel",
        },
        "mapFields": map,
        "listFields": {},
    }))
}

/// Writes the views that changed since `written` (and removes those of deleted tables).
pub fn refresh(c: &Controller, written: &mut BTreeMap<String, Vec<u8>>) -> Result<(), String> {
    let tables = c.table_names().map_err(|e| e.message)?;
    let mut want: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for typed in &tables {
        for (external, key) in [
            (false, keys::ideal_state(typed)),
            (true, keys::external_view(typed)),
        ] {
            let record = znrecord(c, typed, external)?;
            want.insert(key, serde_json::to_vec(&record).unwrap_or_default());
        }
    }
    let mut ops = Vec::new();
    for (key, bytes) in &want {
        if written.get(key) != Some(bytes) {
            ops.push(Op::Put(key.clone(), bytes.clone()));
        }
    }
    for key in written.keys().filter(|k| !want.contains_key(*k)) {
        ops.push(Op::Delete(key.clone()));
    }
    if !ops.is_empty() {
        c.store.commit(ops).map_err(|e| e.to_string())?;
    }
    *written = want;
    Ok(())
}

/// While this controller leads a shared store, keeps the views current until `stop`.
pub async fn views_loop(c: Arc<Controller>, interval: Duration, stop: Arc<AtomicBool>) {
    let mut written: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut led = false;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let leads = c.store.is_shared() && c.is_leader();
        if leads && !led {
            // Newly leading: start from what is stored (another leader wrote it).
            written = stored(&c);
        }
        led = leads;
        if leads {
            let c2 = c.clone();
            let mut w = std::mem::take(&mut written);
            let (w, result) = async_std::task::spawn_blocking(move || {
                let r = refresh(&c2, &mut w);
                (w, r)
            })
            .await;
            written = w;
            if let Err(e) = result {
                log::debug!("cannot write the ideal states and external views: {e}");
                written.clear();
            }
        }
        sleep_unless_stopped(&stop, interval).await;
    }
}

fn stored(c: &Controller) -> BTreeMap<String, Vec<u8>> {
    [keys::IDEAL_STATES, keys::EXTERNAL_VIEWS]
        .iter()
        .flat_map(|p| c.store.list(p).unwrap_or_default())
        .collect()
}
