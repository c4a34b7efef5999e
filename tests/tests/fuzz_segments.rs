//! Segment file fuzzing: a valid segment (dictionary, raw, sorted, inverted, range and bloom
//! columns, a multi-value column, a star-tree) has its files damaged — bit flips, truncations,
//! extensions, and value mutations of `metadata.json` and `index_map.json` — and is then opened
//! and queried. Opening may fail with an error; it must never panic, and a segment that opens
//! must answer (or reject) queries without a panic. Seeded; `TESSERA_FUZZ_SEGMENTS` for more.

mod support;

use support::{Rng, env_or};

use engine::execute_sql;
use engine::provider::MemoryTables;
use segments::segment::ImmutableSegment;
use segments::types::{Schema, Value as Cell};
use segments::{BuildConfig, build_segment_from_rows};
use serde_json::{Value, json};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;

const DEFAULT_COUNT: usize = 1_500;

fn schema() -> Schema {
    Schema::from_json(
        &json!({
            "schemaName": "t",
            "dimensionFieldSpecs": [
                {"name": "k", "dataType": "INT"},
                {"name": "city", "dataType": "STRING"},
                {"name": "note", "dataType": "STRING"},
                {"name": "tags", "dataType": "STRING", "singleValueField": false}
            ],
            "metricFieldSpecs": [{"name": "v", "dataType": "LONG"}, {"name": "d", "dataType": "DOUBLE"}]
        })
        .to_string(),
    )
    .unwrap()
}

fn config() -> Value {
    json!({
        "tableName": "t",
        "tableType": "OFFLINE",
        "segmentsConfig": {"replication": "1"},
        "tableIndexConfig": {
            "sortedColumn": ["k"],
            "invertedIndexColumns": ["city"],
            "rangeIndexColumns": ["v"],
            "bloomFilterColumns": ["city"],
            "noDictionaryColumns": ["note", "d"],
            "starTreeIndexConfigs": [{
                "dimensionsSplitOrder": ["city"],
                "functionColumnPairs": ["COUNT__*", "SUM__v"],
                "maxLeafRecords": 4
            }]
        }
    })
}

fn build(root: &Path) -> std::path::PathBuf {
    let schema = schema();
    let cfg = BuildConfig::from_table_config_json(&config(), &schema, Some("t_0")).unwrap();
    let rows = (0..500).map(|i: i64| {
        Ok(vec![
            Cell::Int(i as i32),
            Cell::String(["a", "b", "c", "d"][(i % 4) as usize].into()),
            Cell::String(format!("note {i}")),
            Cell::Array(vec![
                Cell::String(format!("t{}", i % 7)),
                Cell::String("x".into()),
            ]),
            Cell::Long(i * 3),
            Cell::Double(i as f64 / 8.0),
        ])
    });
    build_segment_from_rows(&schema, &cfg, rows, root).unwrap();
    root.join("t_0")
}

const QUERIES: &[&str] = &[
    "SELECT COUNT(*) FROM t",
    "SELECT city, SUM(v) FROM t GROUP BY city",
    "SELECT k, note, tags FROM t WHERE city = 'b' AND v BETWEEN 10 AND 400 ORDER BY d DESC LIMIT 5",
    "SELECT DISTINCT city FROM t WHERE k > 100",
    "SELECT MAX(d), DISTINCTCOUNT(note) FROM t WHERE tags = 't3'",
];

/// Damages one file of the segment in `dir`.
fn damage(rng: &mut Rng, dir: &Path) {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let path = &files[rng.below(files.len())];
    let mut bytes = std::fs::read(path).unwrap();
    let is_json = path.extension().is_some_and(|e| e == "json");
    match rng.below(if is_json { 5 } else { 4 }) {
        0 if !bytes.is_empty() => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(bytes.len());
                bytes[i] ^= 1 << rng.below(8);
            }
        }
        1 => bytes.truncate(rng.below(bytes.len() + 1)),
        2 => bytes.extend((0..1 + rng.below(64)).map(|_| rng.next() as u8)),
        3 if !bytes.is_empty() => {
            let i = rng.below(bytes.len());
            bytes[i] = rng.next() as u8;
        }
        _ => {
            // A value mutation keeps the JSON valid and the numbers plausible-looking.
            if let Ok(mut v) = serde_json::from_slice::<Value>(&bytes) {
                mutate_json(rng, &mut v);
                bytes = serde_json::to_vec(&v).unwrap();
            }
        }
    }
    std::fs::write(path, bytes).unwrap();
}

fn mutate_json(rng: &mut Rng, v: &mut Value) {
    let mut slots: Vec<*mut Value> = Vec::new();
    fn walk(v: &mut Value, out: &mut Vec<*mut Value>) {
        out.push(v as *mut Value);
        match v {
            Value::Object(m) => m.values_mut().for_each(|c| walk(c, out)),
            Value::Array(a) => a.iter_mut().for_each(|c| walk(c, out)),
            _ => {}
        }
    }
    walk(v, &mut slots);
    let pick = slots[rng.below(slots.len())];
    // SAFETY: `pick` points into `v`, which is not otherwise borrowed while it is written.
    let slot = unsafe { &mut *pick };
    *slot = match rng.below(8) {
        0 => json!(0),
        1 => json!(-1),
        2 => json!(u32::MAX),
        3 => json!(u64::MAX),
        4 => json!(rng.next() % 100_000),
        5 => json!(""),
        6 => Value::Null,
        _ => json!([]),
    };
}

#[test]
fn damaged_segments_never_panic() {
    let count: usize = env_or("TESSERA_FUZZ_SEGMENTS", DEFAULT_COUNT);
    let work = tempfile::tempdir().unwrap();
    let original = build(&work.path().join("orig"));
    let mut rng = Rng(0xF022_5E6D);
    let (mut opened, mut refused) = (0usize, 0usize);
    let mut failures = Vec::new();
    for i in 0..count {
        let dir = work.path().join(format!("case{}", i % 4)).join("t_0");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for e in std::fs::read_dir(&original).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
        }
        for _ in 0..1 + rng.below(2) {
            damage(&mut rng, &dir);
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| ImmutableSegment::open(&dir)));
        let segment = match outcome {
            Err(_) => {
                failures.push(format!("#{i}: open panicked"));
                continue;
            }
            Ok(Err(_)) => {
                refused += 1;
                continue;
            }
            Ok(Ok(s)) => s,
        };
        opened += 1;
        let mut tables = MemoryTables::new();
        tables.add("t", schema(), vec![Arc::new(segment)]);
        for sql in QUERIES {
            let r = execute_sql(sql, Some("timeoutMs=5000"), &tables);
            if let Some(e) = r
                .exceptions
                .iter()
                .find(|e| e.message.contains("internal error"))
            {
                failures.push(format!("#{i} {sql}: {}", e.message));
            }
        }
    }
    println!(
        "fuzz_segments: {count} damaged segments: {refused} refused at open, {opened} opened and queried, {} failures",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
