//! Pinot's CLP functions end to end: a CLP-encoded column group (`msg_logtype` STRING,
//! `msg_dictionaryVars` STRING MV, `msg_encodedVars` LONG MV, as Pinot's CLP record extractor
//! writes it) in real segments, decoded with `clpDecode` and filtered with
//! `clpEncodedVarsMatch`, in both engines. The encodings are clp's (see
//! `planner::functions::clp`): `51.4` is digits 514, 3 digits, point 1 from the right.

use segments::build_config::BuildConfig;
use segments::builder::build_segment_from_rows;
use segments::segment::ImmutableSegment;
use segments::types::{DataType, FieldSpec, Schema, Value};
use serde_json::{Value as Json, json};
use std::sync::Arc;
use tessera_engine::provider::MemoryTables;
use tessera_engine::{BrokerResponse, execute_sql};

/// `51.4` and `0.335` as clp's eight-byte encoded floats.
const F51_4: i64 = (514 << 8) | (2 << 4);
const F0_335: i64 = (335 << 8) | (3 << 4) | 2;

const MESSAGES: [&str; 2] = [
    "Started job_123 on node-987: 4 cores, 8 threads and 51.4% memory used.",
    "INFO Task task_12 assigned to container: [ContainerID:container_15], operation took \
     0.335 seconds. 8 tasks remaining.",
];

fn schema() -> Schema {
    let mut s = Schema {
        schema_name: "logs".into(),
        ..Schema::default()
    };
    s.fields.push(FieldSpec::dimension("id", DataType::Int));
    s.fields
        .push(FieldSpec::dimension("msg_logtype", DataType::String));
    s.fields.push(FieldSpec {
        single_value_field: false,
        ..FieldSpec::dimension("msg_dictionaryVars", DataType::String)
    });
    s.fields.push(FieldSpec {
        single_value_field: false,
        ..FieldSpec::dimension("msg_encodedVars", DataType::Long)
    });
    s
}

fn strings(items: &[&str]) -> Value {
    Value::Array(items.iter().map(|s| Value::String(s.to_string())).collect())
}

fn longs(items: &[i64]) -> Value {
    Value::Array(items.iter().map(|v| Value::Long(*v)).collect())
}

/// Row 0 and 1: the two messages; row 2: one encoded variable short (undecodable); row 3: a
/// NULL logtype (stored as the column's default `null` for queries without null handling).
fn rows() -> Vec<Vec<Value>> {
    vec![
        vec![
            Value::Int(0),
            Value::String(
                "Started \u{12} on \u{12}: \u{11} cores, \u{11} threads and \u{13}% memory used."
                    .into(),
            ),
            strings(&["job_123", "node-987"]),
            longs(&[4, 8, F51_4]),
        ],
        vec![
            Value::Int(1),
            Value::String(
                "INFO Task \u{12} assigned to container: [ContainerID:\u{12}], operation took \
                 \u{13} seconds. \u{11} tasks remaining."
                    .into(),
            ),
            strings(&["task_12", "container_15"]),
            longs(&[F0_335, 8]),
        ],
        vec![
            Value::Int(2),
            Value::String("took \u{11} ms and \u{11} ms".into()),
            strings(&["unused"]),
            longs(&[7]),
        ],
        vec![Value::Int(3), Value::Null, strings(&["x"]), longs(&[1])],
    ]
}

fn tables(dir: &std::path::Path) -> MemoryTables {
    let mut c = BuildConfig::new("logs", "logs_0");
    c.null_handling = true;
    let rows = rows().into_iter().map(Ok);
    let summary = build_segment_from_rows(&schema(), &c, rows, dir).unwrap();
    let segment = Arc::new(ImmutableSegment::open(&summary.segment_dir).unwrap());
    let mut t = MemoryTables::new();
    t.add("logs", schema(), vec![segment]);
    t
}

fn rows_of(r: &BrokerResponse, at: &str) -> Vec<Vec<Json>> {
    assert!(r.exceptions.is_empty(), "{at}: {:?}", r.exceptions);
    r.result_table.as_ref().expect("result table").rows.clone()
}

fn column(r: &BrokerResponse, at: &str) -> Vec<Json> {
    rows_of(r, at)
        .into_iter()
        .map(|mut row| row.remove(0))
        .collect()
}

#[test]
fn clp_decode_and_encoded_vars_match_in_both_engines() {
    let dir = tempfile::tempdir().unwrap();
    let t = tables(dir.path());
    let decode = "clpDecode(msg_logtype, msg_dictionaryVars, msg_encodedVars";
    let matches = "clpEncodedVarsMatch(msg_logtype, msg_encodedVars";
    for engine in ["", "SET useMultistageEngine=true; "] {
        let run = |sql: String| (execute_sql(&sql, None, &t), sql);

        let (r, at) = run(format!(
            "{engine}SELECT {decode}), {decode}, 'oops') FROM logs ORDER BY id"
        ));
        assert_eq!(
            rows_of(&r, &at),
            vec![
                vec![json!(MESSAGES[0]), json!(MESSAGES[0])],
                vec![json!(MESSAGES[1]), json!(MESSAGES[1])],
                vec![json!("null"), json!("oops")],
                // Without null handling a NULL logtype reads as the column's default, `null`.
                vec![json!("null"), json!("null")],
            ],
            "{at}"
        );
        let types = &r
            .result_table
            .as_ref()
            .unwrap()
            .data_schema
            .column_data_types;
        assert_eq!(types, &["STRING", "STRING"], "{at}");
        let (r, at) = run(format!(
            "SET enableNullHandling=true; {engine}SELECT {decode}), {decode}, 'oops'), \
             {matches}, '*1*', 0) FROM logs WHERE id = 3"
        ));
        assert_eq!(
            rows_of(&r, &at),
            vec![vec![Json::Null, Json::Null, json!(false)]],
            "{at}"
        );

        // "*51*" is an integer (0), a float (1) and a dictionary (2) subquery; only row 0 has
        // a float matching it.
        let (r, at) = run(format!(
            "{engine}SELECT id FROM logs WHERE {matches}, '*51*', 1) = true ORDER BY id"
        ));
        assert_eq!(column(&r, &at), vec![json!(0)], "{at}");
        let (r, at) = run(format!(
            "{engine}SELECT id FROM logs WHERE {matches}, '*51*', 0) ORDER BY id"
        ));
        assert_eq!(column(&r, &at), Vec::<Json>::new(), "{at}");

        let (r, at) = run(format!(
            "{engine}SELECT {matches}, '*8*', 0), {matches}, '0.3*', 0) FROM logs ORDER BY id"
        ));
        assert_eq!(
            rows_of(&r, &at),
            vec![
                vec![json!(true), json!(false)],
                vec![json!(true), json!(true)],
                // One encoded variable short: no match (Pinot drops the whole block).
                vec![json!(false), json!(false)],
                vec![json!(false), json!(false)],
            ],
            "{at}"
        );

        // Both functions in one filter: decoded text that came through a matching subquery.
        let (r, at) = run(format!(
            "{engine}SELECT {decode}) FROM logs WHERE {matches}, '*0.33*', 0) = true \
             AND {decode}) LIKE '%container%'"
        ));
        assert_eq!(column(&r, &at), vec![json!(MESSAGES[1])], "{at}");

        // Bad queries are errors when the query is planned.
        for (bad, reason) in [
            (
                format!("{matches}, '*51*', 2)"),
                "any wildcard queries for encoded variables",
            ),
            (format!("{matches}, '*51*', 3)"), "invalid subquery index 3"),
            (format!("{matches}, '', 0)"), "cannot be empty"),
            (
                format!("{matches}, msg_logtype, 0)"),
                "needs a literal as argument 3",
            ),
            (
                format!("{decode}, msg_logtype)"),
                "needs a literal as argument 4",
            ),
            (
                "clpDecode(msg_logtype, msg_logtype, msg_encodedVars)".to_string(),
                "cannot take STRING as argument 2",
            ),
        ] {
            let sql = format!("{engine}SELECT {bad} FROM logs");
            let r = execute_sql(&sql, None, &t);
            let text = format!("{:?}", r.exceptions);
            assert!(text.contains(reason), "{sql}: {text}");
        }
    }
}
