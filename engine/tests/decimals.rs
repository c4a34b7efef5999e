//! BIG_DECIMAL values past a double's digits and an `i128`'s range: `SUMPRECISION` sums them
//! without bound (Pinot sums Java `BigDecimal`s), and filters compare them exactly — on
//! dictionary and raw columns, in both engines. The expected texts are exact sums worked out
//! from the rows below.

use segments::build_config::BuildConfig;
use segments::builder::build_segment_from_rows;
use segments::segment::ImmutableSegment;
use segments::types::{DataType, FieldSpec, Schema, Value};
use serde_json::json;
use std::sync::Arc;
use tessera_engine::execute_sql;
use tessera_engine::provider::MemoryTables;

/// 38 nines and a fraction: 20 rows of `LOW` and 10 of `HIGH`, whose doubles are equal.
fn low() -> String {
    format!("{}.25", "9".repeat(38))
}

fn high() -> String {
    format!("{}.75", "9".repeat(38))
}

fn schema() -> Schema {
    let mut s = Schema {
        schema_name: "money".into(),
        ..Schema::default()
    };
    s.fields.push(FieldSpec::dimension("k", DataType::Int));
    s.fields
        .push(FieldSpec::metric("amount", DataType::BigDecimal));
    s
}

fn tables(raw: bool) -> (tempfile::TempDir, MemoryTables) {
    let dir = tempfile::tempdir().unwrap();
    let mut segs = Vec::new();
    for part in 0..2 {
        let mut c = BuildConfig::new("money", &format!("money_{part}"));
        if raw {
            c.no_dictionary.insert("amount".into());
        }
        let rows = (0..30)
            .filter(|i| i % 2 == part)
            .map(|i| {
                let amount = if i < 20 { low() } else { high() };
                Ok(vec![Value::Int(i), Value::BigDecimal(amount)])
            })
            .collect::<Vec<_>>();
        let summary = build_segment_from_rows(&schema(), &c, rows.into_iter(), dir.path()).unwrap();
        segs.push(Arc::new(
            ImmutableSegment::open(&summary.segment_dir).unwrap(),
        ));
    }
    let mut t = MemoryTables::new();
    t.add("money", schema(), segs);
    (dir, t)
}

fn one(t: &MemoryTables, sql: &str) -> Result<serde_json::Value, String> {
    let r = execute_sql(sql, None, t);
    if let Some(e) = r.exceptions.first() {
        return Err(format!("{sql}: {}", e.message));
    }
    r.result_table
        .and_then(|t| t.rows.first().map(|row| row[0].clone()))
        .ok_or_else(|| format!("{sql}: no rows"))
}

#[test]
fn sum_precision_has_no_bound_and_filters_compare_exactly() {
    // 20 × LOW + 10 × HIGH, exactly (far past i128's 1.7e38).
    let sum = format!("2{}82.50", "9".repeat(37));
    let cases = [
        ("SELECT SUMPRECISION(amount) FROM money", json!(sum)),
        (
            "SELECT SUMPRECISION(amount, 10) FROM money",
            json!(format!("3{}", "0".repeat(39))),
        ),
        (
            "SELECT SUMPRECISION(amount, 45, 1) FROM money",
            json!(format!("2{}82.5", "9".repeat(37))),
        ),
        (
            "SELECT SUMPRECISION(amount) FROM money WHERE k >= 20",
            json!(format!("{}7.50", "9".repeat(38))),
        ),
        (
            &*format!(
                "SELECT COUNT(*) FROM money WHERE amount > '{}.5'",
                "9".repeat(38)
            ),
            json!(10),
        ),
        (
            &*format!("SELECT COUNT(*) FROM money WHERE amount = '{}'", low()),
            json!(20),
        ),
        (
            &*format!("SELECT COUNT(*) FROM money WHERE amount < '{}'", high()),
            json!(20),
        ),
        (
            &*format!(
                "SELECT COUNT(*) FROM money WHERE amount = '{}.7500'",
                "9".repeat(38)
            ),
            json!(10),
        ),
    ];
    let mut failures = Vec::new();
    for raw in [false, true] {
        let (_dir, t) = tables(raw);
        for (sql, want) in &cases {
            for engine in ["", "SET useMultistageEngine=true; "] {
                let sql = format!("{engine}{sql}");
                match one(&t, &sql) {
                    Ok(got) if got == *want => {}
                    got => failures.push(format!("raw={raw}: {sql}: got {got:?}, want {want}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
