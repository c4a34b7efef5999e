//! MAP columns (`complexFieldSpecs`) and `item` / `map['key']` in both engines, with the data
//! and answers of Pinot's `MapFieldTypeTest`: row `i` maps `k0 … k(i-1)` to `"v<i>"` (a STRING
//! map) and to `i` (an INT map); a key a row lacks reads as the value type's default null value.
//! The rows are stored twice — a dictionary-encoded segment and a raw one.

use segments::build_config::BuildConfig;
use segments::builder::build_segment_from_rows;
use segments::segment::ImmutableSegment;
use segments::types::{DataType, FieldSpec, Schema, Value};
use serde_json::{Value as Json, json};
use std::sync::Arc;
use tessera_engine::execute_sql;
use tessera_engine::provider::MemoryTables;

/// Rows per segment.
const ROWS: i32 = 40;

fn schema() -> Schema {
    let mut s = Schema {
        schema_name: "t".into(),
        ..Schema::default()
    };
    s.fields.push(FieldSpec::dimension("id", DataType::Int));
    s.fields.push(FieldSpec::map("stringMap", DataType::String));
    s.fields.push(FieldSpec::map("intMap", DataType::Int));
    s
}

fn table() -> (tempfile::TempDir, MemoryTables) {
    let dir = tempfile::tempdir().unwrap();
    let mut segs = Vec::new();
    for (k, raw) in [false, true].into_iter().enumerate() {
        let mut c = BuildConfig::new("t", &format!("t_{k}"));
        if raw {
            c.no_dictionary.insert("stringMap".into());
            c.no_dictionary.insert("intMap".into());
        }
        // Values arrive as rows bring them: a JSON object's text, typed as the map declares.
        let rows = (0..ROWS).map(|i| {
            let strings: serde_json::Map<String, Json> = (0..i)
                .map(|j| (format!("k{j}"), json!(format!("v{i}"))))
                .collect();
            let ints: serde_json::Map<String, Json> = (0..i)
                .map(|j| (format!("k{j}"), json!(i.to_string())))
                .collect();
            Ok(vec![
                Value::Int(i),
                Value::String(Json::Object(strings).to_string()),
                Value::Json(Json::Object(ints).to_string()),
            ])
        });
        let summary = build_segment_from_rows(&schema(), &c, rows, dir.path()).unwrap();
        segs.push(Arc::new(
            ImmutableSegment::open(&summary.segment_dir).unwrap(),
        ));
    }
    let mut t = MemoryTables::new();
    t.add("t", schema(), segs);
    (dir, t)
}

/// The rows and column types a query answers in one engine, or its first error.
fn run(
    t: &MemoryTables,
    sql: &str,
    multistage: bool,
) -> Result<(Vec<String>, Vec<Vec<Json>>), String> {
    let set = if multistage {
        "SET useMultistageEngine=true; "
    } else {
        ""
    };
    let r = execute_sql(&format!("{set}{sql}"), None, t);
    if let Some(e) = r.exceptions.first() {
        return Err(e.message.clone());
    }
    let table = r.result_table.expect("a result table");
    Ok((table.data_schema.column_data_types, table.rows))
}

fn both(t: &MemoryTables, sql: &str) -> Vec<(Vec<String>, Vec<Vec<Json>>)> {
    [false, true]
        .into_iter()
        .map(|v2| run(t, sql, v2).unwrap_or_else(|e| panic!("v2={v2}: {sql}: {e}")))
        .collect()
}

#[test]
fn a_map_column_shows_as_an_object_typed_as_declared() {
    let (_dir, t) = table();
    for (types, rows) in both(
        &t,
        "SELECT id, intMap, stringMap FROM t ORDER BY id LIMIT 6",
    ) {
        assert_eq!(types, ["INT", "MAP", "MAP"]);
        for (n, row) in rows.iter().enumerate() {
            let i = n / 2;
            let ints = row[1].as_object().unwrap();
            let strings = row[2].as_object().unwrap();
            assert_eq!(ints.len(), i);
            for j in 0..i {
                assert_eq!(ints[&format!("k{j}")], json!(i), "{row:?}");
                assert_eq!(strings[&format!("k{j}")], json!(format!("v{i}")));
            }
        }
    }
}

#[test]
fn item_reads_a_key_or_the_default_null_value() {
    let (_dir, t) = table();
    for sql in [
        "SELECT stringMap['k0'], intMap['k0'], id FROM t ORDER BY id LIMIT 100",
        "SELECT item(stringMap, 'k0'), ITEM(intMap, 'k0'), id FROM t ORDER BY id LIMIT 100",
    ] {
        for (types, rows) in both(&t, sql) {
            assert_eq!(types, ["STRING", "INT", "INT"], "{sql}");
            assert_eq!(rows.len(), 2 * ROWS as usize);
            for row in &rows {
                let i = row[2].as_i64().unwrap();
                if i == 0 {
                    assert_eq!(row[0], json!("null"));
                    assert_eq!(row[1], json!(i32::MIN));
                } else {
                    assert_eq!(row[0], json!(format!("v{i}")));
                    assert_eq!(row[1], json!(i));
                }
            }
        }
    }
    for (_, rows) in both(&t, "SELECT stringMap['kkk'], intMap['kkk'] FROM t LIMIT 3") {
        assert_eq!(rows, vec![vec![json!("null"), json!(i32::MIN)]; 3]);
    }
}

#[test]
fn items_aggregate_group_and_filter() {
    let (_dir, t) = table();
    let max = ROWS - 1;
    for (_, rows) in both(&t, "SELECT MAX(intMap['k0']), MAX(intMap['k1']) FROM t") {
        assert_eq!(rows[0][0].as_f64(), Some(f64::from(max)));
        assert_eq!(rows[0][1].as_f64(), Some(f64::from(max)));
    }
    let sql = "SELECT stringMap['k0'] AS key, MIN(intMap['k0']) AS value FROM t \
               GROUP BY key ORDER BY value LIMIT 10";
    for (_, rows) in both(&t, sql) {
        assert_eq!(rows[0][0], json!("null"));
        assert_eq!(rows[0][1].as_f64(), Some(f64::from(i32::MIN)));
        for (i, row) in rows.iter().enumerate().skip(1) {
            assert_eq!(row[0], json!(format!("v{i}")));
            assert_eq!(row[1].as_f64(), Some(i as f64));
        }
    }
    let count = |sql: &str| -> Vec<i64> {
        both(&t, sql)
            .into_iter()
            .map(|(_, rows)| rows[0][0].as_i64().unwrap())
            .collect()
    };
    let cases = [
        ("stringMap['k1'] = 'v25'", 2),
        ("intMap['k1'] = 25", 2),
        ("stringMap['k1'] IN ('v25', 'v26')", 4),
        ("intMap['k1'] IN (25, 26)", 4),
        ("intMap['k1'] NOT IN (25, 26)", 2 * i64::from(ROWS) - 4),
        ("stringMap['k1'] != 'v25'", 2 * i64::from(ROWS) - 2),
        ("intMap['k1'] > 30", 2 * i64::from(ROWS - 31)),
        ("stringMap['kk'] = 'v25'", 0),
        ("intMap['kk'] IN (25, 26)", 0),
    ];
    for (filter, want) in cases {
        let got = count(&format!("SELECT COUNT(*) FROM t WHERE {filter}"));
        assert_eq!(got, [want, want], "{filter}");
    }
    for (_, rows) in both(
        &t,
        "SELECT stringMap['k2'] FROM t WHERE stringMap['k1'] = 'v25'",
    ) {
        assert_eq!(rows, vec![vec![json!("v25")]; 2]);
    }
}

#[test]
fn the_multistage_engine_passes_a_map_through_subqueries() {
    let (_dir, t) = table();
    let sql = "SELECT m['k3'] AS v, COUNT(*) FROM (SELECT intMap AS m FROM t WHERE id > 36) \
               GROUP BY m['k3'] ORDER BY v";
    let (types, rows) = run(&t, sql, true).unwrap();
    assert_eq!(types, ["INT", "LONG"]);
    assert_eq!(
        rows,
        vec![
            vec![json!(37), json!(2)],
            vec![json!(38), json!(2)],
            vec![json!(39), json!(2)]
        ]
    );
}

#[test]
fn a_wrong_item_call_gets_pinots_message() {
    let (_dir, t) = table();
    for v2 in [false, true] {
        for (sql, message) in [
            (
                "SELECT item(id, 'k') FROM t",
                "must be a MAP or OPEN_STRUCT column",
            ),
            (
                "SELECT item(intMap, id) FROM t",
                "Right operand must be a literal",
            ),
            (
                "SELECT item(intMap) FROM t",
                "Expected exactly 2 arguments, got: 1",
            ),
            (
                "SELECT id['k'] FROM t",
                "must be a MAP or OPEN_STRUCT column",
            ),
        ] {
            let err = run(&t, sql, v2).unwrap_err();
            assert!(err.contains(message), "v2={v2}: {sql}: {err}");
        }
    }
}

/// A MAP column groups and sorts as its objects' text, and a JSON index on it (as Pinot's
/// `MapFieldTypeTest` configures one) answers `JSON_MATCH` over its keys.
#[test]
fn a_map_column_groups_and_takes_a_json_index() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = BuildConfig::new("t", "t_0");
    c.json.insert(
        "intMap".into(),
        segments::index::json::JsonIndexConfig::default(),
    );
    let rows = (0..6).map(|i: i32| {
        let mut ints: serde_json::Map<String, Json> =
            (0..i % 3).map(|j| (format!("k{j}"), json!(i))).collect();
        if i == 4 {
            ints.insert("7".into(), json!(40));
        }
        Ok(vec![
            Value::Int(i),
            Value::Map("{}".into()),
            Value::Json(Json::Object(ints).to_string()),
        ])
    });
    let summary = build_segment_from_rows(&schema(), &c, rows, dir.path()).unwrap();
    let seg = Arc::new(ImmutableSegment::open(&summary.segment_dir).unwrap());
    let mut t = MemoryTables::new();
    t.add("t", schema(), vec![seg]);
    let sql =
        "SELECT intMap, COUNT(*) FROM t GROUP BY intMap ORDER BY COUNT(*) DESC, intMap LIMIT 10";
    for (types, rows) in both(&t, sql) {
        assert_eq!(types, ["MAP", "LONG"]);
        assert_eq!(rows[0], vec![json!({}), json!(2)], "{rows:?}");
        assert_eq!(rows.len(), 5);
    }
    // A number names the key of its text, as Pinot reads the literal.
    for (_, rows) in both(
        &t,
        "SELECT intMap[7], id FROM t ORDER BY intMap[7] DESC LIMIT 1",
    ) {
        assert_eq!(rows, vec![vec![json!(40), json!(4)]]);
    }
    let sql = "SELECT id FROM t WHERE JSON_MATCH(intMap, '\"$.k1\" = 5') ORDER BY id";
    for (_, rows) in both(&t, sql) {
        assert_eq!(rows, vec![vec![json!(5)]]);
    }
}
