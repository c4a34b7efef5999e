//! The minion task generators (Pinot's `PinotTaskGenerator`s): from a table's
//! `task.taskTypeConfigsMap` entry, its segments and its task metadata (watermarks), the
//! subtasks to run now.
//!
//! * `MergeRollupTask` — per merge level (`<level>.bucketTimePeriod`, `.bufferTimePeriod`,
//!   `.mergeType`, `.maxNumRecordsPerSegment`, `.maxNumRecordsPerTask`,
//!   `.roundBucketTimePeriod`, `.maxNumParallelBuckets`; `<metric>.aggregationType`), levels in
//!   ascending bucket size: the first buckets from the level's watermark (`watermarkMs_<level>`,
//!   cold start at the oldest segment's bucket) that have ended `bufferTimePeriod` ago — and,
//!   above the lowest level, that the lower level has passed with every segment merged there —
//!   with segments not yet merged at this level; their segments are split into subtasks of at
//!   most `maxNumRecordsPerTask` rows, and the watermark moves to the first bucket taken.
//!   Outputs replace their inputs and are marked `MergeRollupTask.mergeLevel`.
//! * `RealtimeToOfflineSegmentsTask` — a REALTIME table with an OFFLINE twin: the window
//!   `[watermarkMs, +bucketTimePeriod)` (default `1d`) once it ended `bufferTimePeriod` (`2d`)
//!   ago, over the committed segments it overlaps — unless the last committed segment of a
//!   partition ends inside it (the rest may still be consuming). Its rows go to new OFFLINE
//!   segments; the watermark moves to the window's end when they are in.
//! * `PurgeTask` — each segment not purged within `lastPurgeTimeThresholdPeriod` (`14d`),
//!   rewritten without the rows `filterFunction` (a SQL predicate, as the ingestion filter's)
//!   is true for, in place (Pinot's purge is a refresh). Pinot leaves the records to purge to a
//!   deployment's own `RecordPurger`; without `filterFunction` nothing is generated.

use super::Controller;
use crate::metadata::records::SegmentRecord;
use crate::metadata::table_name::{self, TableType};
use crate::metadata::tasks::{
    AggregationType, MergeSpec, MergeType, OutputMode, SubtaskSpec, TaskMetadata, TaskRecord,
    TaskType,
};
use segments::types::TableConfig;
use segments::types::table_config::parse_period_millis;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A task type's configs from a table config (`task.taskTypeConfigsMap.<type>`).
pub fn type_configs(config: &TableConfig, task_type: TaskType) -> Option<BTreeMap<String, String>> {
    let map = config
        .task
        .as_ref()?
        .get("taskTypeConfigsMap")?
        .get(task_type.name())?
        .as_object()?;
    Some(
        map.iter()
            .map(|(k, v)| {
                let text = match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), text)
            })
            .collect(),
    )
}

/// The task types a table config enables.
pub fn enabled_types(config: &TableConfig) -> Vec<TaskType> {
    TaskType::ALL
        .into_iter()
        .filter(|t| type_configs(config, *t).is_some())
        .collect()
}

/// What a generator made: the subtasks of one task and the metadata to store with it.
#[derive(Debug, Default)]
pub struct Generated {
    pub subtasks: Vec<SubtaskSpec>,
    pub metadata: Option<TaskMetadata>,
}

/// Everything a generator reads.
pub struct Inputs<'a> {
    pub typed: &'a str,
    pub config: &'a TableConfig,
    pub configs: &'a BTreeMap<String, String>,
    /// The table's segments queries see, not held by a replacement.
    pub segments: &'a [SegmentRecord],
    pub metadata: TaskMetadata,
    /// The unfinished tasks of this type on this table.
    pub running: &'a [TaskRecord],
    pub now: i64,
}

/// Runs the generator of `task_type`. An error is a config that cannot work (Pinot's
/// generation error).
pub fn generate(
    c: &Controller,
    task_type: TaskType,
    inputs: &Inputs<'_>,
) -> Result<Generated, String> {
    match task_type {
        TaskType::MergeRollupTask => merge_rollup(inputs),
        TaskType::RealtimeToOfflineSegmentsTask => realtime_to_offline(c, inputs),
        TaskType::PurgeTask => purge(inputs),
    }
}

fn period(configs: &BTreeMap<String, String>, key: &str) -> Result<Option<i64>, String> {
    match configs.get(key) {
        None => Ok(None),
        Some(t) => parse_period_millis(t)
            .map(Some)
            .ok_or_else(|| format!("Invalid time spec '{t}' (Valid examples: '3h', '4h30m')")),
    }
}

fn number(configs: &BTreeMap<String, String>, key: &str, default: u64) -> Result<u64, String> {
    match configs.get(key) {
        None => Ok(default),
        Some(t) => t
            .trim()
            .parse()
            .map_err(|_| format!("Invalid value '{t}' of {key}: not a number")),
    }
}

fn merge_type(configs: &BTreeMap<String, String>, key: &str) -> Result<MergeType, String> {
    match configs.get(key) {
        None => Ok(MergeType::Concat),
        Some(t) => MergeType::parse(t)
            .ok_or_else(|| "MergeType must be one of [CONCAT, ROLLUP, DEDUP]!".to_string()),
    }
}

/// `<metric>.aggregationType` entries (keys ending so that are not a level's own keys).
fn aggregations(
    configs: &BTreeMap<String, String>,
    levels: &HashSet<&str>,
) -> Result<BTreeMap<String, AggregationType>, String> {
    let mut out = BTreeMap::new();
    for (k, v) in configs {
        let Some(column) = k.strip_suffix(".aggregationType") else {
            continue;
        };
        if levels.contains(column) {
            continue;
        }
        let agg = AggregationType::parse(v)
            .ok_or_else(|| format!("Column \"{column}\" has invalid aggregate type: {v}"))?;
        out.insert(column.to_string(), agg);
    }
    Ok(out)
}

const MERGE_LEVEL: &str = "MergeRollupTask.mergeLevel";

/// The segments a task may take: with rows and a time range; for a real-time table, committed
/// ones but the last of each partition (Pinot keeps it for the next consuming segment's offset).
fn candidates(segments: &[SegmentRecord], realtime: bool) -> Vec<&SegmentRecord> {
    let mut last: HashMap<i32, u32> = HashMap::new();
    for s in segments.iter().filter(|s| !s.is_consuming()) {
        if let Some(r) = &s.stream {
            let seq = last.entry(r.partition).or_insert(r.sequence);
            *seq = (*seq).max(r.sequence);
        }
    }
    let mut out: Vec<&SegmentRecord> = segments
        .iter()
        .filter(|s| !s.is_consuming() && s.total_docs > 0)
        .filter(|s| s.start_time_ms.is_some() && s.end_time_ms.is_some())
        .filter(|s| s.custom.get("shouldNotMerge").is_none_or(|v| v != "true"))
        .filter(|s| {
            !realtime
                || s.stream
                    .as_ref()
                    .is_none_or(|r| last.get(&r.partition) != Some(&r.sequence))
        })
        .collect();
    out.sort_by_key(|s| (s.start_time_ms, s.end_time_ms, s.segment_name.clone()));
    out
}

struct Level {
    name: String,
    bucket: i64,
    buffer: i64,
    merge_type: MergeType,
    round: Option<i64>,
    max_per_segment: u64,
    max_per_task: u64,
    max_buckets: u64,
}

fn merge_rollup(i: &Inputs<'_>) -> Result<Generated, String> {
    let c = i.configs;
    if let Some(k) = c.keys().find(|k| k.as_str() == "bucketTimePeriod") {
        return Err(format!(
            "Configuration key: {k} should be prefixed by merge level, e.g. '1day.'"
        ));
    }
    let refresh = i.config.table_type == TableType::Offline
        && i.config
            .batch_ingestion_type()
            .is_some_and(|t| t.eq_ignore_ascii_case("REFRESH"));
    if refresh || i.config.is_upsert_enabled() || i.config.is_dedup_enabled() {
        return Ok(Generated::default());
    }
    let mut levels = Vec::new();
    for k in c.keys() {
        let Some(name) = k.strip_suffix(".bucketTimePeriod") else {
            continue;
        };
        let key = |suffix: &str| format!("{name}.{suffix}");
        let bucket = period(c, k)?.filter(|b| *b > 0).ok_or_else(|| {
            format!("Invalid bucketTimePeriod of merge level {name}: must be positive")
        })?;
        levels.push(Level {
            name: name.to_string(),
            bucket,
            buffer: period(c, &key("bufferTimePeriod"))?.unwrap_or(0),
            merge_type: merge_type(c, &key("mergeType"))?,
            round: period(c, &key("roundBucketTimePeriod"))?.filter(|r| *r > 0),
            max_per_segment: number(c, &key("maxNumRecordsPerSegment"), 5_000_000)?.max(1),
            max_per_task: number(c, &key("maxNumRecordsPerTask"), 50_000_000)?.max(1),
            max_buckets: number(c, &key("maxNumParallelBuckets"), 1)?.max(1),
        });
    }
    levels.sort_by_key(|l| (l.bucket, l.name.clone()));
    let names: HashSet<&str> = levels.iter().map(|l| l.name.as_str()).collect();
    let aggs = aggregations(c, &names)?;
    let rank: HashMap<&str, usize> = levels
        .iter()
        .enumerate()
        .map(|(n, l)| (l.name.as_str(), n))
        .collect();
    // How far a segment is merged: the rank of its level (None: not merged).
    let merged_rank = |s: &SegmentRecord| -> Option<usize> {
        s.custom
            .get(MERGE_LEVEL)
            .and_then(|l| rank.get(l.as_str()).copied())
    };
    let realtime = i.config.table_type == TableType::Realtime;
    let all = candidates(i.segments, realtime);
    let raw = table_name::split(i.typed).0;
    let mut out = Generated::default();
    let mut metadata = i.metadata.clone();
    metadata.id = i.typed.to_string();
    for (n, level) in levels.iter().enumerate() {
        let busy = i.running.iter().any(|t| {
            t.subtasks.iter().any(|s| {
                !s.state.is_done() && s.spec.merge_level.as_deref() == Some(level.name.as_str())
            })
        });
        if busy || all.is_empty() {
            continue;
        }
        let key = format!("watermarkMs_{}", level.name);
        let lower = if n == 0 {
            None
        } else {
            match metadata.watermark(&format!("watermarkMs_{}", levels[n - 1].name)) {
                Some(w) => Some(w),
                None => continue,
            }
        };
        let min_start = all
            .iter()
            .filter_map(|s| s.start_time_ms)
            .min()
            .unwrap_or(0);
        let mut start = metadata
            .watermark(&key)
            .unwrap_or_else(|| min_start.div_euclid(level.bucket) * level.bucket);
        let mut taken = 0;
        let mut new_watermark = None;
        loop {
            let end = start + level.bucket;
            if end > i.now - level.buffer || lower.is_some_and(|w| end > w) {
                break;
            }
            let overlapping: Vec<&SegmentRecord> = all
                .iter()
                .copied()
                .filter(|s| {
                    s.start_time_ms.unwrap_or(0) < end && s.end_time_ms.unwrap_or(0) >= start
                })
                .collect();
            let unmerged: Vec<&SegmentRecord> = overlapping
                .iter()
                .copied()
                .filter(|s| merged_rank(s).is_none_or(|r| r < n))
                .collect();
            if unmerged.is_empty() {
                // Nothing here at this level: on to the next bucket that has segments.
                let next = all
                    .iter()
                    .filter_map(|s| s.end_time_ms)
                    .filter(|e| *e >= end)
                    .min();
                match next {
                    None => break,
                    Some(e) => {
                        let next_start = all
                            .iter()
                            .filter(|s| s.end_time_ms.unwrap_or(0) >= end)
                            .filter_map(|s| s.start_time_ms)
                            .min()
                            .unwrap_or(e)
                            .max(end);
                        start = next_start.div_euclid(level.bucket) * level.bucket;
                        continue;
                    }
                }
            }
            if n > 0
                && overlapping
                    .iter()
                    .any(|s| merged_rank(s).is_none_or(|r| r < n - 1))
            {
                // The lower level has not merged this bucket yet.
                break;
            }
            let first = unmerged
                .iter()
                .filter_map(|s| s.start_time_ms)
                .min()
                .unwrap_or(start);
            new_watermark.get_or_insert(first.div_euclid(level.bucket) * level.bucket);
            let mut group: Vec<(String, u32)> = Vec::new();
            let mut docs = 0u64;
            for s in &unmerged {
                group.push((s.segment_name.clone(), s.crc));
                docs += s.total_docs;
                if docs >= level.max_per_task {
                    out.subtasks
                        .push(merge_spec(i, level, &aggs, raw, std::mem::take(&mut group)));
                    docs = 0;
                }
            }
            if !group.is_empty() {
                out.subtasks.push(merge_spec(i, level, &aggs, raw, group));
            }
            taken += 1;
            let spills = unmerged.iter().any(|s| {
                s.start_time_ms.unwrap_or(0).div_euclid(level.bucket)
                    < s.end_time_ms.unwrap_or(0).div_euclid(level.bucket)
            });
            if taken >= level.max_buckets || spills {
                break;
            }
            start = end;
        }
        if let Some(w) = new_watermark {
            metadata.simple_fields.insert(key, w.to_string());
            out.metadata = Some(metadata.clone());
        }
    }
    Ok(out)
}

fn merge_spec(
    i: &Inputs<'_>,
    level: &Level,
    aggs: &BTreeMap<String, AggregationType>,
    raw: &str,
    inputs: Vec<(String, u32)>,
) -> SubtaskSpec {
    SubtaskSpec {
        table: i.typed.to_string(),
        output_table: i.typed.to_string(),
        output_prefix: format!("merged_{}_{}_{raw}", level.name, i.now),
        input_segments: inputs,
        merge: MergeSpec {
            merge_type: level.merge_type,
            round_bucket_ms: level.round,
            max_records_per_segment: level.max_per_segment,
            aggregations: aggs.clone(),
            window_ms: None,
            purge_filter: None,
        },
        output: OutputMode::Replace,
        merge_level: Some(level.name.clone()),
        watermark: None,
    }
}

fn realtime_to_offline(c: &Controller, i: &Inputs<'_>) -> Result<Generated, String> {
    if i.config.table_type != TableType::Realtime {
        return Ok(Generated::default());
    }
    if i.config.is_upsert_enabled() {
        return Err("RealtimeToOfflineTask doesn't support upsert table!".into());
    }
    let cfg = i.configs;
    let bucket = period(cfg, "bucketTimePeriod")?
        .unwrap_or(86_400_000)
        .max(1);
    let buffer = period(cfg, "bufferTimePeriod")?.unwrap_or(2 * 86_400_000);
    let round = period(cfg, "roundBucketTimePeriod")?.filter(|r| *r > 0);
    let merge = match cfg.get("mergeType").or(cfg.get("collectorType")) {
        None => MergeType::Concat,
        Some(t) => {
            MergeType::parse(t).ok_or("MergeType must be one of [CONCAT, ROLLUP, DEDUP]!")?
        }
    };
    let max_per_segment = number(cfg, "maxNumRecordsPerSegment", 5_000_000)?.max(1);
    let aggs = aggregations(cfg, &HashSet::new())?;
    let raw = table_name::split(i.typed).0;
    let offline = table_name::with_type(raw, TableType::Offline);
    if c.table_config(&offline).map_err(|e| e.message)?.is_none() || !i.running.is_empty() {
        return Ok(Generated::default());
    }
    let committed: Vec<&SegmentRecord> = i
        .segments
        .iter()
        .filter(|s| !s.is_consuming() && s.start_time_ms.is_some() && s.end_time_ms.is_some())
        .collect();
    if committed.is_empty() {
        return Ok(Generated::default());
    }
    // The last committed segment of each partition: data after it may still be consuming.
    let mut last: HashMap<i32, (u32, i64)> = HashMap::new();
    for s in &committed {
        if let Some(r) = &s.stream {
            let end = s.end_time_ms.unwrap_or(0);
            let e = last.entry(r.partition).or_insert((r.sequence, end));
            if r.sequence >= e.0 {
                *e = (r.sequence, end);
            }
        }
    }
    let mut metadata = i.metadata.clone();
    metadata.id = i.typed.to_string();
    let min_start = committed
        .iter()
        .filter_map(|s| s.start_time_ms)
        .min()
        .unwrap_or(0);
    let cold = metadata.watermark("watermarkMs").is_none();
    let mut start = metadata
        .watermark("watermarkMs")
        .unwrap_or_else(|| min_start.div_euclid(bucket) * bucket);
    if cold {
        metadata
            .simple_fields
            .insert("watermarkMs".into(), start.to_string());
    }
    let max_end = committed
        .iter()
        .filter_map(|s| s.end_time_ms)
        .max()
        .unwrap_or(start);
    let mut out = Generated {
        subtasks: Vec::new(),
        metadata: cold.then(|| metadata.clone()),
    };
    while start <= max_end {
        let end = start + bucket;
        if end > i.now - buffer {
            break;
        }
        let selected: Vec<&&SegmentRecord> = committed
            .iter()
            .filter(|s| start <= s.end_time_ms.unwrap_or(0) && s.start_time_ms.unwrap_or(0) < end)
            .collect();
        if selected.is_empty() {
            start = end;
            continue;
        }
        let unfinished = selected.iter().any(|s| {
            s.stream.as_ref().is_some_and(|r| {
                last.get(&r.partition) == Some(&(r.sequence, s.end_time_ms.unwrap_or(0)))
                    && s.end_time_ms.unwrap_or(0) < end
            })
        });
        if unfinished {
            break;
        }
        out.subtasks.push(SubtaskSpec {
            table: i.typed.to_string(),
            output_table: offline.clone(),
            input_segments: selected
                .iter()
                .map(|s| (s.segment_name.clone(), s.crc))
                .collect(),
            output_prefix: format!("{raw}_{start}_{end}"),
            merge: MergeSpec {
                merge_type: merge,
                round_bucket_ms: round,
                max_records_per_segment: max_per_segment,
                aggregations: aggs,
                window_ms: Some((start, end)),
                purge_filter: None,
            },
            output: OutputMode::Add,
            merge_level: None,
            watermark: Some(("watermarkMs".into(), end)),
        });
        break;
    }
    Ok(out)
}

const PURGE_TIME: &str = "PurgeTask.time";

fn purge(i: &Inputs<'_>) -> Result<Generated, String> {
    let cfg = i.configs;
    let Some(filter) = cfg.get("filterFunction").filter(|f| !f.trim().is_empty()) else {
        return Ok(Generated::default());
    };
    let threshold = period(cfg, "lastPurgeTimeThresholdPeriod")?.unwrap_or(14 * 86_400_000);
    let max_tasks = number(cfg, "tableMaxNumTasks", u64::MAX)?;
    let busy: HashSet<&str> = i
        .running
        .iter()
        .flat_map(|t| t.subtasks.iter().filter(|s| !s.state.is_done()))
        .flat_map(|s| s.spec.input_segments.iter().map(|(n, _)| n.as_str()))
        .collect();
    let mut due: Vec<(i64, &SegmentRecord)> = i
        .segments
        .iter()
        .filter(|s| !s.is_consuming() && !busy.contains(s.segment_name.as_str()))
        .filter_map(|s| {
            let last = s
                .custom
                .get(PURGE_TIME)
                .and_then(|t| t.parse::<i64>().ok())
                .unwrap_or(i64::MIN);
            (last == i64::MIN || i.now - last >= threshold).then_some((last, s))
        })
        .collect();
    due.sort_by_key(|(last, s)| (*last, s.segment_name.clone()));
    let subtasks = due
        .into_iter()
        .take(usize::try_from(max_tasks).unwrap_or(usize::MAX))
        .map(|(_, s)| SubtaskSpec {
            table: i.typed.to_string(),
            output_table: i.typed.to_string(),
            input_segments: vec![(s.segment_name.clone(), s.crc)],
            output_prefix: s.segment_name.clone(),
            merge: MergeSpec {
                merge_type: MergeType::Concat,
                round_bucket_ms: None,
                max_records_per_segment: u64::MAX,
                aggregations: BTreeMap::new(),
                window_ms: None,
                purge_filter: Some(filter.clone()),
            },
            output: OutputMode::Refresh,
            merge_level: None,
            watermark: None,
        })
        .collect();
    Ok(Generated {
        subtasks,
        metadata: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DAY: i64 = 86_400_000;

    fn segment(name: &str, day: i64, docs: u64, level: Option<&str>) -> SegmentRecord {
        let mut s: SegmentRecord = serde_json::from_value(json!({"segmentName": name,
            "tableNameWithType": "t_OFFLINE", "crc": 7, "sizeBytes": 1, "totalDocs": docs,
            "pushTimeMs": 0, "archive": "a", "servers": [],
            "startTimeMs": day * DAY + 10, "endTimeMs": day * DAY + 20}))
        .unwrap();
        if let Some(l) = level {
            s.custom.insert(MERGE_LEVEL.into(), l.into());
        }
        s
    }

    fn config(task: serde_json::Value) -> TableConfig {
        TableConfig::from_value(
            json!({"tableName": "t", "tableType": "OFFLINE", "tenants": {},
            "tableIndexConfig": {}, "segmentsConfig": {}, "task": {"taskTypeConfigsMap": task}}),
        )
        .unwrap()
    }

    fn run(
        config: &TableConfig,
        segments: &[SegmentRecord],
        metadata: TaskMetadata,
        now: i64,
    ) -> Generated {
        let configs = type_configs(config, TaskType::MergeRollupTask).unwrap();
        merge_rollup(&Inputs {
            typed: "t_OFFLINE",
            config,
            configs: &configs,
            segments,
            metadata,
            running: &[],
            now,
        })
        .unwrap()
    }

    #[test]
    fn merge_rollup_takes_the_first_finished_bucket_and_moves_the_watermark() {
        let c = config(json!({"MergeRollupTask": {"1day.bucketTimePeriod": "1d",
            "1day.bufferTimePeriod": "1d", "1day.mergeType": "rollup",
            "1day.maxNumRecordsPerTask": "25", "metric.aggregationType": "max"}}));
        let segs = [
            segment("a", 10, 10, None),
            segment("b", 10, 10, None),
            segment("c", 10, 10, None),
            segment("d", 11, 10, None),
            segment("e", 13, 10, None),
        ];
        let g = run(&c, &segs, TaskMetadata::default(), 13 * DAY);
        // Day 10 only: one bucket per run (maxNumParallelBuckets 1), split by 25 rows.
        let names: Vec<Vec<&str>> = g
            .subtasks
            .iter()
            .map(|s| s.input_segments.iter().map(|(n, _)| n.as_str()).collect())
            .collect();
        assert_eq!(names, [vec!["a", "b", "c"]]);
        let s = &g.subtasks[0];
        assert_eq!(s.merge.merge_type, MergeType::Rollup);
        assert_eq!(s.merge.aggregations["metric"], AggregationType::Max);
        assert_eq!(s.merge_level.as_deref(), Some("1day"));
        let meta = g.metadata.unwrap();
        assert_eq!(meta.watermark("watermarkMs_1day"), Some(10 * DAY));
        // With day 10 merged, the next run takes day 11; day 13 is within the buffer.
        let merged = [
            segment("m", 10, 30, Some("1day")),
            segment("d", 11, 10, None),
            segment("e", 13, 10, None),
        ];
        let g = run(&c, &merged, meta, 13 * DAY);
        assert_eq!(g.subtasks.len(), 1);
        assert_eq!(g.subtasks[0].input_segments[0].0, "d");
        assert_eq!(
            g.metadata.unwrap().watermark("watermarkMs_1day"),
            Some(11 * DAY)
        );
        // Splits into subtasks of at most maxNumRecordsPerTask rows.
        let many: Vec<SegmentRecord> = (0..6)
            .map(|n| segment(&format!("s{n}"), 10, 10, None))
            .collect();
        let g = run(&c, &many, TaskMetadata::default(), 13 * DAY);
        assert_eq!(g.subtasks.len(), 2);
    }

    #[test]
    fn configs_are_checked() {
        let c = config(json!({"MergeRollupTask": {"bucketTimePeriod": "1d"}}));
        let configs = type_configs(&c, TaskType::MergeRollupTask).unwrap();
        let e = merge_rollup(&Inputs {
            typed: "t_OFFLINE",
            config: &c,
            configs: &configs,
            segments: &[],
            metadata: TaskMetadata::default(),
            running: &[],
            now: 0,
        })
        .unwrap_err();
        assert!(e.contains("should be prefixed by merge level"), "{e}");
        assert_eq!(enabled_types(&c), [TaskType::MergeRollupTask]);
    }
}
