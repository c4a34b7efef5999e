//! The timestamp index end to end: a table whose segments carry the derived `$ts$<GRANULARITY>`
//! columns answers `DATETRUNC` queries from them (EXPLAIN shows the derived column and its
//! range index) with exactly the answers of the same data without the index — also when only
//! some segments have it, as after a config change before a reload.

use engine::execute_sql;
use engine::provider::MemoryTables;
use engine::response::BrokerResponse;
use segments::build_config::BuildConfig;
use segments::types::{Schema, Value};
use serde_json::json;

fn schema() -> Schema {
    Schema::from_json(
        r#"{"schemaName":"events","dimensionFieldSpecs":[{"name":"kind","dataType":"STRING"}],
          "metricFieldSpecs":[{"name":"n","dataType":"INT"}],
          "dateTimeFieldSpecs":[{"name":"ts","dataType":"TIMESTAMP","format":"TIMESTAMP","granularity":"1:MILLISECONDS"}]}"#,
    )
    .expect("schema")
}

fn config(indexed: bool, segment: &str) -> BuildConfig {
    let mut cfg = json!({"tableName": "events", "tableIndexConfig": {"nullHandlingEnabled": true}});
    if indexed {
        cfg["fieldConfigList"] = json!([{"name": "ts", "encodingType": "DICTIONARY",
            "indexTypes": ["TIMESTAMP"], "timestampConfig": {"granularities": ["DAY", "WEEK", "MONTH", "YEAR"]}}]);
    }
    BuildConfig::from_table_config_json(&cfg, &schema(), Some(segment)).expect("config")
}

/// Rows `from..to`: one every 7h 13m 17.5s from 1969-11-20, some with a null `ts`.
fn rows(from: i64, to: i64) -> Vec<Vec<Value>> {
    let start = -3_628_800_000;
    (from..to)
        .map(|i| {
            let ts = if i % 37 == 5 {
                Value::Null
            } else {
                Value::Timestamp(start + i * 25_997_500)
            };
            vec![
                Value::String(["a", "b", "c"][(i % 3) as usize].into()),
                Value::Int((i % 11) as i32),
                ts,
            ]
        })
        .collect()
}

/// A table of three segments; `indexed[i]` says whether segment `i` has the timestamp index.
fn table(dir: &std::path::Path, indexed: [bool; 3]) -> MemoryTables {
    let parts = indexed.into_iter().enumerate().map(|(i, with)| {
        let from = i as i64 * 400;
        (
            config(with, &format!("events_{i}_{with}")),
            rows(from, from + 400),
        )
    });
    tessera_tests::table_of_segments(dir, "events", &schema(), parts)
}

fn answer(r: &BrokerResponse) -> serde_json::Value {
    assert!(r.exceptions.is_empty(), "{:?}", r.exceptions);
    let t = r.result_table.as_ref().expect("result table");
    json!({"schema": t.data_schema, "rows": t.rows})
}

const QUERIES: &[&str] = &[
    "SELECT DATETRUNC('MONTH', ts), COUNT(*), SUM(n) FROM events WHERE ts >= 0 GROUP BY DATETRUNC('MONTH', ts) ORDER BY 1 LIMIT 100",
    "SELECT DATETRUNC('week', ts) AS w, kind, MAX(n) FROM events WHERE DATETRUNC('WEEK', ts) BETWEEN -864000000 AND 2592000000 GROUP BY w, kind ORDER BY w, kind LIMIT 200",
    "SELECT COUNT(*) FROM events WHERE DATETRUNC('DAY', ts) = 86400000",
    "SELECT COUNT(*) FROM events WHERE DATETRUNC('YEAR', ts) < 0",
    "SELECT kind, DATETRUNC('DAY', ts) FROM events WHERE DATETRUNC('DAY', ts) <= -1 ORDER BY DATETRUNC('DAY', ts) DESC, n, kind LIMIT 7",
    "SELECT DISTINCT DATETRUNC('YEAR', ts) FROM events ORDER BY 1",
    "SELECT MIN(DATETRUNC('MONTH', ts)), MAX(DATETRUNC('DAY', ts)), COUNT(DATETRUNC('DAY', ts)) FROM events",
    "SET enableNullHandling=true; SELECT DATETRUNC('DAY', ts), COUNT(*) FROM events WHERE DATETRUNC('MONTH', ts) IS NULL OR DATETRUNC('DAY', ts) < -3500000000 GROUP BY 1 ORDER BY 1 LIMIT 100",
    "SET enableNullHandling=true; SELECT COUNT(DATETRUNC('DAY', ts)), COUNT(*) FROM events",
    "SET enableNullHandling=true; SELECT SUM(n), MIN(DATETRUNC('WEEK', ts)) FROM events WHERE DATETRUNC('WEEK', ts) IS NOT NULL",
];

#[test]
fn answers_match_the_table_without_the_index() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plain = table(&dir.path().join("plain"), [false; 3]);
    let full = table(&dir.path().join("full"), [true; 3]);
    let mixed = table(&dir.path().join("mixed"), [true, false, true]);
    for sql in QUERIES {
        let want = answer(&execute_sql(sql, None, &plain));
        assert!(
            !want["rows"].as_array().expect("rows").is_empty(),
            "{sql} should match rows"
        );
        assert_eq!(
            answer(&execute_sql(sql, None, &full)),
            want,
            "indexed: {sql}"
        );
        assert_eq!(
            answer(&execute_sql(sql, None, &mixed)),
            want,
            "mixed: {sql}"
        );
    }
    // `SELECT *` leaves the derived columns out, as Pinot does.
    let star = answer(&execute_sql(
        "SELECT * FROM events ORDER BY n LIMIT 1",
        None,
        &full,
    ));
    assert_eq!(star["schema"]["columnNames"], json!(["kind", "n", "ts"]));
}

#[test]
fn explain_reads_the_derived_column_with_its_range_index() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mixed = table(dir.path(), [true, false, true]);
    let r = execute_sql(
        "EXPLAIN PLAN FOR SELECT DATETRUNC('MONTH', ts), COUNT(*) FROM events WHERE DATETRUNC('DAY', ts) > 0 GROUP BY DATETRUNC('MONTH', ts)",
        None,
        &mixed,
    );
    let ops: Vec<String> = answer(&r)["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| row[0].as_str().unwrap_or_default().to_string())
        .collect();
    let has = |needle: &str| ops.iter().any(|o| o.contains(needle));
    assert!(
        has("GROUP_BY(groupKeys:$ts$MONTH"),
        "indexed segments group by the derived column: {ops:?}"
    );
    assert!(
        has("FILTER_RANGE_INDEX(indexLookUp:range_index,operator:RANGE,predicate:$ts$DAY > '0')"),
        "{ops:?}"
    );
    assert!(
        has("GROUP_BY(groupKeys:datetrunc('MONTH',ts)"),
        "the segment without the index computes dateTrunc: {ops:?}"
    );
}
