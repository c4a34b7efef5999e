//! Storage tiers (`tierConfigs` with `segmentSelectorType: time`, `storageType: pinot_server`):
//! segments whose end time is older than the tier's `segmentAge` move to the servers tagged
//! with the tier's `serverTag`. Run by the periodic `SegmentRelocator` ([`super::periodic`]) and on demand
//! by `POST /segments/{table}/relocate`.
//!
//! A move never leaves a segment unserved: step one adds replicas on the tier's servers
//! (keeping the old ones, and marks the segment's `tierTag`); step two, on a later pass, drops
//! the old replicas only once as many tier replicas as the table's replication are online and
//! report the segment loaded. Brokers route only to loaded replicas, so queries see the segment
//! on the old servers, then on both, then on the new ones.

use super::catalog::encode;
use super::placement::{placement_servers, server_load};
use super::responses::{Status, json};
use super::table_config::parse_config;
use super::{Controller, ControllerState, assignment, table_config};
use crate::common::archive::SegmentFacts;
use crate::common::clock::now_ms;
use crate::http::ApiError;
use crate::http::body::path_param;
use crate::metadata::records::SegmentRecord;
use crate::metadata::table_name;
use crate::metadata::{Op, keys};
use segments::types::table_config::parse_period_millis;
use segments::types::time::epoch_unit_millis;
use tide::Request;

/// The end time of an uploaded segment in epoch millis, when its time column has an `EPOCH`
/// format in the table's schema.
pub fn end_time_ms(c: &Controller, typed: &str, seg: &SegmentFacts) -> Option<i64> {
    time_ms(c, typed, seg, seg.end_time?)
}

/// The start time of an uploaded segment in epoch millis (as [`end_time_ms`]).
pub fn start_time_ms(c: &Controller, typed: &str, seg: &SegmentFacts) -> Option<i64> {
    time_ms(c, typed, seg, seg.start_time?)
}

/// A value of the segment's time column in epoch millis.
fn time_ms(c: &Controller, typed: &str, seg: &SegmentFacts, value: i64) -> Option<i64> {
    let column = seg.time_column.as_ref()?;
    let schema = c.schema(table_name::split(typed).0).ok()??;
    let format = schema.field(column)?.format.clone()?;
    value.checked_mul(epoch_unit_millis(&format)?)
}

/// One pass over one table: start moves of segments that aged into a tier, finish moves whose
/// new replicas are serving. Returns how many segments changed. Call with the write lock held.
pub fn relocate_table(c: &Controller, typed: &str) -> Result<usize, ApiError> {
    let Some(config_json) = c.table_config(typed)? else {
        return Ok(0);
    };
    let Some(config) = parse_config(&config_json) else {
        return Ok(0);
    };
    let tiers: Vec<(String, i64)> = config
        .tiers()
        .iter()
        .filter(|t| {
            t.segment_selector_type.eq_ignore_ascii_case("time")
                && t.storage_type.eq_ignore_ascii_case("pinot_server")
        })
        .filter_map(|t| {
            Some((
                t.server_tag.clone()?,
                parse_period_millis(t.segment_age.as_deref()?)?,
            ))
        })
        .collect();
    if tiers.is_empty() {
        return Ok(0);
    }
    let replication = table_config::replication(&config_json);
    let now = now_ms();
    let mut load = server_load(c)?;
    let mut ops = Vec::new();
    for mut s in c.segments(typed)? {
        // The oldest-age tier the segment qualifies for (tiers sorted by age, largest first).
        let wanted = s.end_time_ms.and_then(|end| {
            tiers
                .iter()
                .filter(|(_, age)| end < now - age)
                .max_by_key(|(_, age)| *age)
                .map(|(tag, _)| tag.clone())
        });
        let Some(tag) = wanted else { continue };
        if s.tier_tag.as_deref() != Some(tag.as_str()) {
            let candidates = placement_servers(c, &tag)?;
            if candidates.is_empty() {
                log::warn!("tier tag {tag} of {typed} has no servers");
                continue;
            }
            let keep: Vec<String> = s
                .servers
                .iter()
                .filter(|x| candidates.contains(x))
                .cloned()
                .collect();
            let placed = assignment::place(replication, &keep, &candidates, &mut load);
            for p in placed {
                if !s.servers.contains(&p) {
                    s.servers.push(p);
                }
            }
            s.tier_tag = Some(tag);
            ops.push(put(&s));
        } else if let Some(done) = finish_move(c, &s, &tag, replication)? {
            ops.push(put(&done));
        }
    }
    let n = ops.len();
    if n > 0 {
        c.commit(ops)?;
    }
    Ok(n)
}

fn put(s: &SegmentRecord) -> Op {
    Op::Put(
        keys::segment(&s.table_name_with_type, &s.segment_name),
        encode(s),
    )
}

/// The record without its pre-move replicas, once enough tier replicas serve it.
fn finish_move(
    c: &Controller,
    s: &SegmentRecord,
    tag: &str,
    replication: usize,
) -> Result<Option<SegmentRecord>, ApiError> {
    let tier_servers = placement_servers(c, tag)?;
    let (new, old): (Vec<String>, Vec<String>) = s
        .servers
        .iter()
        .cloned()
        .partition(|x| tier_servers.contains(x));
    if old.is_empty() {
        return Ok(None);
    }
    let serving = new
        .iter()
        .filter(|x| c.is_online(x) && c.has_loaded(x, &s.table_name_with_type, &s.segment_name))
        .count();
    if serving < replication.min(new.len()).max(1) {
        return Ok(None);
    }
    Ok(Some(SegmentRecord {
        servers: new,
        ..s.clone()
    }))
}

/// Relocates every table once.
pub async fn relocate_all(c: &Controller) -> Result<usize, ApiError> {
    let _guard = c.lock_writes().await?;
    let mut n = 0;
    for typed in c.table_names()? {
        n += relocate_table(c, &typed)?;
    }
    Ok(n)
}

/// `POST /segments/{table}/relocate`: one relocation pass over the table.
pub async fn relocate_endpoint(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "table")?;
    let c = req.state();
    let tables = c.existing_tables(&name, None)?;
    if tables.is_empty() {
        return Err(ApiError::not_found(format!("Table '{name}' not found.")).into());
    }
    let _guard = c.lock_writes().await?;
    let mut moved = 0;
    for (_, typed) in &tables {
        moved += relocate_table(c, typed)?;
    }
    json(&Status::new(format!(
        "Relocation of table {name} started: {moved} segment(s) updated"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_formats() {
        assert_eq!(epoch_unit_millis("1:MILLISECONDS:EPOCH"), Some(1));
        assert_eq!(epoch_unit_millis("1:DAYS:EPOCH"), Some(86_400_000));
        assert_eq!(epoch_unit_millis("5:MINUTES:EPOCH"), Some(300_000));
        assert_eq!(epoch_unit_millis("EPOCH|SECONDS"), Some(1000));
        assert_eq!(epoch_unit_millis("1:YEARS:EPOCH"), None);
        assert_eq!(
            epoch_unit_millis("1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd"),
            None
        );
    }
}
