//! Running one subtask (Pinot's task executors): the input segments' archives (fetched through
//! the controller, checked against the CRCs the task was made with) are opened, their rows read
//! back with the engine ([`select_rows`]: the output table's schema, leaving out rows outside a
//! real-time-to-offline window and rows a purge's filter selects), merged ([`super::merge`]),
//! cut into segments of at most `maxNumRecordsPerSegment` rows and built with the output table's
//! config. Outputs are named as Pinot names them: `<prefix>_<minTime>_<maxTime>_<sequence>`
//! (times in the time column's own unit), or — for a purge, which rewrites its segment in place —
//! the input's own name. Blocking; run on rayon.

use super::merge::{self, TimeColumn};
use crate::common::archive;
use crate::common::transform::{quote_column, segment_rows};
use crate::metadata::tasks::{OutputMode, SubtaskSpec};
use rayon::prelude::*;
use segments::types::time::epoch_unit_millis;
use segments::types::{Schema, Value};
use segments::{BuildConfig, build_segment_from_rows};
use serde_json::Value as Json;
use std::path::Path;
use std::sync::Arc;

/// One input segment's archive, as fetched.
pub struct Input {
    pub name: String,
    pub archive: Vec<u8>,
}

/// Runs `spec` over `inputs` in the scratch directory `work`; returns the output archives.
pub fn run(
    spec: &SubtaskSpec,
    schema: &Schema,
    output_config: &Json,
    inputs: Vec<Input>,
    work: &Path,
) -> Result<Vec<Vec<u8>>, String> {
    let started = std::time::Instant::now();
    let time_column = output_config
        .get("segmentsConfig")
        .and_then(|s| s.get("timeColumnName"))
        .and_then(Json::as_str)
        .map(str::to_string);
    let time = time_column.as_deref().and_then(|c| {
        let index = schema.fields.iter().position(|f| f.name == c)?;
        let unit_ms = epoch_unit_millis(schema.fields[index].format.as_deref()?)?;
        Some(TimeColumn { index, unit_ms })
    });
    let mut dropped = Vec::new();
    if let Some((start, end)) = spec.merge.window_ms {
        let (Some(t), Some(column)) = (time, &time_column) else {
            return Err("the output table has no time column with an epoch format".into());
        };
        let c = quote_column(column);
        dropped.push(format!(
            "NOT (({c} * {unit}) >= {start} AND ({c} * {unit}) < {end})",
            unit = t.unit_ms
        ));
    }
    if let Some(f) = &spec.merge.purge_filter {
        dropped.push(format!("({f})"));
    }
    let filter = (!dropped.is_empty()).then(|| dropped.join(" OR "));

    // Inputs are unpacked and read in parallel (most of the time goes to unpacking).
    let read_one = |(n, input): (usize, Input)| -> Result<Vec<Vec<Value>>, String> {
        let dir = work.join(format!("in-{n}"));
        let unpacked = archive::unpack(&input.archive, &dir).map_err(|e| e.to_string())?;
        drop(input.archive);
        let segment = Arc::new(archive::open(&unpacked.dir).map_err(|e| e.to_string())?);
        let read = segment_rows(schema, segment, filter.as_deref())
            .map_err(|e| format!("reading segment {}: {e}", input.name))?;
        let _ = std::fs::remove_dir_all(&dir);
        Ok(read)
    };
    let numbered: Vec<(usize, Input)> = inputs.into_iter().enumerate().collect();
    let parts: Vec<Result<Vec<Vec<Value>>, String>> =
        numbered.into_par_iter().map(read_one).collect();
    let mut rows: Vec<Vec<Value>> = Vec::new();
    for part in parts {
        rows.extend(part?);
    }
    let read = std::time::Instant::now();
    let merged = merge::merge(schema, rows, &spec.merge, time);
    if merged.is_empty() && spec.output != OutputMode::Refresh {
        return Ok(Vec::new());
    }
    let parts = merge::chunks(merged, spec.merge.max_records_per_segment);
    let mut out = Vec::new();
    for (seq, part) in parts.into_iter().enumerate() {
        let name = match (spec.output, time) {
            (OutputMode::Refresh, _) => spec.output_prefix.clone(),
            (_, Some(t)) => {
                let times = part.iter().filter_map(|r| r[t.index].as_i64());
                let (min, max) =
                    times.fold((i64::MAX, i64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
                format!("{}_{min}_{max}_{seq}", spec.output_prefix)
            }
            (_, None) => format!("{}_{seq}", spec.output_prefix),
        };
        let build = BuildConfig::from_table_config_json(output_config, schema, Some(&name))
            .map_err(|e| e.to_string())?;
        let dir = work.join(format!("out-{seq}"));
        build_segment_from_rows(schema, &build, part.into_iter().map(Ok), &dir)
            .map_err(|e| format!("building segment {name}: {e}"))?;
        out.push(archive::pack(&dir.join(&name)).map_err(|e| e.to_string())?);
        let _ = std::fs::remove_dir_all(&dir);
    }
    log::info!(
        "merged and built {} segment(s) in {:?} (rows read in {:?})",
        out.len(),
        read.elapsed(),
        read.duration_since(started)
    );
    Ok(out)
}
