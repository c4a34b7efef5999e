//! Where segments go: the servers a tag offers, each server's load, and topping up segments
//! that have fewer replicas than their table asks for (after a server joins or is re-tagged).
//! [`assignment`] picks among the candidates; this module finds them.

use super::catalog::encode;
use super::table_config::{self, server_tag};
use super::{Controller, assignment};
use crate::http::ApiError;
use crate::metadata::records::{InstanceType, SegmentRecord};
use crate::metadata::{Op, keys};
use std::collections::BTreeMap;

/// Servers tagged `tag` that segments may go to: the online ones, else every registered one.
pub fn placement_servers(c: &Controller, tag: &str) -> Result<Vec<String>, ApiError> {
    let all: Vec<String> = c
        .instances()?
        .into_iter()
        .filter(|i| {
            i.instance_type == InstanceType::Server && i.enabled && i.tags.iter().any(|t| t == tag)
        })
        .map(|i| i.instance_name)
        .collect();
    let online: Vec<String> = all.iter().filter(|s| c.is_online(s)).cloned().collect();
    Ok(if online.is_empty() { all } else { online })
}

/// The server tag a segment belongs on: its tier's tag once relocated, else its table's
/// server tenant tag.
pub fn target_tag(segment: &SegmentRecord, config: &serde_json::Value) -> String {
    segment
        .tier_tag
        .clone()
        .unwrap_or_else(|| server_tag(config))
}

/// Segments per server over all tables.
pub fn server_load(c: &Controller) -> Result<BTreeMap<String, usize>, ApiError> {
    let mut load = BTreeMap::new();
    for s in c.all_segments()? {
        for server in s.servers {
            *load.entry(server).or_insert(0) += 1;
        }
    }
    Ok(load)
}

/// Gives segments with fewer servers than their table's replication more servers (after a
/// server joins). Call with the write lock held.
pub fn fill_under_replicated(c: &Controller) -> Result<(), ApiError> {
    let mut load = server_load(c)?;
    let mut ops = Vec::new();
    let mut configs = BTreeMap::new();
    let mut candidates: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for mut s in c.all_segments()? {
        if !configs.contains_key(&s.table_name_with_type) {
            let cfg = c.table_config(&s.table_name_with_type)?;
            configs.insert(s.table_name_with_type.clone(), cfg);
        }
        let Some(Some(config)) = configs.get(&s.table_name_with_type) else {
            continue;
        };
        let r = table_config::replication(config);
        let tag = target_tag(&s, config);
        if !candidates.contains_key(&tag) {
            candidates.insert(tag.clone(), placement_servers(c, &tag)?);
        }
        let servers = &candidates[&tag];
        let live: Vec<String> = s
            .servers
            .iter()
            .filter(|x| servers.contains(x))
            .cloned()
            .collect();
        if live.len() < r && servers.len() > live.len() {
            let placed = assignment::place(r, &s.servers, servers, &mut load);
            let mut merged = s.servers.clone();
            merged.extend(placed.into_iter().filter(|p| !s.servers.contains(p)));
            if merged != s.servers {
                s.servers = merged;
                ops.push(Op::Put(
                    keys::segment(&s.table_name_with_type, &s.segment_name),
                    encode(&s),
                ));
            }
        }
    }
    if !ops.is_empty() {
        c.commit(ops)?;
    }
    Ok(())
}
