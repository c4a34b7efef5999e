//! A negative zero is equal to zero in every comparison a query makes (`-0.0 < 0` is false,
//! `-0.0 = 0` true), as in SQL and Java's primitive comparisons that Pinot's predicates use —
//! on dictionary columns (where `-0.0` and `0.0` are two adjacent entries), raw columns, sorted,
//! inverted, range and bloom indexes, min/max pruning, expressions, and both engines. Expected
//! counts come from Rust's own `f64` comparisons over the same rows.

use segments::build_config::BuildConfig;
use segments::builder::build_segment_from_rows;
use segments::segment::ImmutableSegment;
use segments::types::{DataType, FieldSpec, Schema, Value};
use serde_json::json;
use std::sync::Arc;
use tessera_engine::execute_sql;
use tessera_engine::provider::MemoryTables;

/// Segment 0 holds a mix; segment 1 only negative zeros (its min and max are both `-0.0`).
const SEGMENTS: [&[f64]; 2] = [
    &[-1.5, -0.0, 0.0, 2.5, -0.0, 0.0, 7.0, -3.0, 0.0],
    &[-0.0, -0.0, -0.0],
];

fn schema() -> Schema {
    let mut s = Schema {
        schema_name: "z".into(),
        ..Schema::default()
    };
    s.fields.push(FieldSpec::metric("d", DataType::Double));
    s.fields.push(FieldSpec::metric("f", DataType::Float));
    s
}

fn tables(variant: &str) -> (tempfile::TempDir, MemoryTables) {
    let dir = tempfile::tempdir().unwrap();
    let mut segs = Vec::new();
    for (k, values) in SEGMENTS.iter().enumerate() {
        let mut c = BuildConfig::new("z", &format!("z_{k}"));
        match variant {
            "indexed" => {
                c.inverted.extend(["d".to_string(), "f".to_string()]);
                c.bloom.insert("d".into(), 0.01);
                c.bloom.insert("f".into(), 0.01);
            }
            "range" => c.range.extend(["d".to_string(), "f".to_string()]),
            "sorted" => c.sorted_column = Some("d".into()),
            "raw" => c.no_dictionary.extend(["d".to_string(), "f".to_string()]),
            "raw_range" => {
                c.no_dictionary.extend(["d".to_string(), "f".to_string()]);
                c.range.extend(["d".to_string(), "f".to_string()]);
            }
            _ => {}
        }
        let mut rows: Vec<f64> = values.to_vec();
        if variant == "sorted" {
            rows.sort_by(f64::total_cmp);
        }
        let rows = rows
            .into_iter()
            .map(|x| Ok(vec![Value::Double(x), Value::Float(x as f32)]));
        let summary = build_segment_from_rows(&schema(), &c, rows, dir.path()).unwrap();
        segs.push(Arc::new(
            ImmutableSegment::open(&summary.segment_dir).unwrap(),
        ));
    }
    let mut t = MemoryTables::new();
    t.add("z", schema(), segs);
    (dir, t)
}

#[test]
fn negative_zero_equals_zero_in_every_filter_path() {
    let all: Vec<f64> = SEGMENTS.iter().flat_map(|s| s.iter().copied()).collect();
    let count = |keep: fn(f64) -> bool| all.iter().filter(|&&x| keep(x)).count();
    let cases: Vec<(&str, usize)> = vec![
        ("d < 0", count(|x| x < 0.0)),
        ("d <= 0", count(|x| x <= 0.0)),
        ("d > 0", count(|x| x > 0.0)),
        ("d >= 0", count(|x| x >= 0.0)),
        ("d = 0", count(|x| x == 0.0)),
        ("d <> 0", count(|x| x != 0.0)),
        ("d = -0.0", count(|x| x == 0.0)),
        ("d < -0.0", count(|x| x < 0.0)),
        ("d IN (0, 7)", count(|x| x == 0.0 || x == 7.0)),
        ("d NOT IN (0, 7)", count(|x| x != 0.0 && x != 7.0)),
        ("d BETWEEN 0 AND 3", count(|x| (0.0..=3.0).contains(&x))),
        (
            "d BETWEEN -2 AND -0.0",
            count(|x| (-2.0..=0.0).contains(&x)),
        ),
        ("f < 0", count(|x| x < 0.0)),
        ("f = 0", count(|x| x == 0.0)),
        ("f >= 0.0", count(|x| x >= 0.0)),
        ("-d < 0", count(|x| -x < 0.0)),
        ("-d > 0", count(|x| -x > 0.0)),
        ("-d = 0", count(|x| -x == 0.0)),
        ("-d >= 0", count(|x| -x >= 0.0)),
        ("d * -1 <= 0", count(|x| -x <= 0.0)),
        ("-f < 0", count(|x| -x < 0.0)),
    ];
    // The rows hold zeros of both signs, so the counts tell the paths apart.
    assert_eq!(count(|x| x < 0.0), 2);
    let mut failures = Vec::new();
    for variant in ["plain", "indexed", "range", "sorted", "raw", "raw_range"] {
        let (_dir, t) = tables(variant);
        for (filter, want) in &cases {
            for engine in ["", "SET useMultistageEngine=true; "] {
                let sql = format!("{engine}SELECT COUNT(*) FROM z WHERE {filter}");
                let r = execute_sql(&sql, None, &t);
                let got = r
                    .result_table
                    .as_ref()
                    .and_then(|t| t.rows.first())
                    .map(|row| row[0].clone());
                if !r.exceptions.is_empty() || got != Some(json!(want)) {
                    failures.push(format!(
                        "{variant}: {sql}: got {got:?} {:?}, want {want}",
                        r.exceptions
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
