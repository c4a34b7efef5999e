//! Building from CSV and JSON-lines files: typing by schema, nulls, multi-value cells, ignored
//! and missing columns, table-config driven indexes, and errors that name file, line and
//! column without leaving a partial segment behind.

mod common;

use common::read_column;
use segments::index::{Bloom, Inverted, Range};
use segments::types::{DataType, Schema, Value};
use segments::{
    BuildConfig, ImmutableSegment, InputFormat, InputSource, SegmentError, build_segment,
};
use std::path::Path;
use tessera_segments as segments;

const SCHEMA: &str = r#"{
  "schemaName": "orders",
  "dimensionFieldSpecs": [
    {"name": "region", "dataType": "STRING"},
    {"name": "tags", "dataType": "STRING", "singleValueField": false},
    {"name": "qty", "dataType": "INT", "defaultNullValue": -1},
    {"name": "flag", "dataType": "BOOLEAN"}
  ],
  "metricFieldSpecs": [{"name": "price", "dataType": "DOUBLE"}],
  "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:TIMESTAMP", "granularity": "1:MILLISECONDS"}]
}"#;

const TABLE: &str = r#"{"OFFLINE": {
  "tableName": "orders_OFFLINE",
  "segmentsConfig": {"timeColumnName": "ts"},
  "tableIndexConfig": {"sortedColumn": ["region"], "invertedIndexColumns": ["tags"], "rangeIndexColumns": ["price"],
                       "noDictionaryColumns": ["price"], "bloomFilterColumns": ["qty"],
                       "nullHandlingEnabled": true}
}}"#;

fn setup() -> (Schema, BuildConfig) {
    let schema = Schema::from_json(SCHEMA).unwrap();
    let json: serde_json::Value = serde_json::from_str(TABLE).unwrap();
    let config = BuildConfig::from_table_config_json(&json, &schema, None).unwrap();
    (schema, config)
}

fn build(dir: &Path, name: &str, text: &str) -> Result<segments::BuildSummary, SegmentError> {
    let (schema, config) = setup();
    let input = dir.join(name);
    std::fs::write(&input, text).unwrap();
    let format = InputFormat::from_path(&input).unwrap();
    let mut last = 0;
    let r = build_segment(
        &schema,
        &config,
        &InputSource {
            path: input,
            format,
            options: Default::default(),
        },
        &dir.join("out"),
        &mut |n| last = n,
    );
    if let Ok(s) = &r {
        assert_eq!(
            last, s.total_docs as u64,
            "final progress call reports all rows"
        );
    }
    r
}

fn st(v: &str) -> Value {
    Value::String(v.into())
}

#[test]
fn csv_with_nulls_mv_and_ignored_columns() {
    let dir = tempfile::tempdir().unwrap();
    let csv = "region,unknown,tags,qty,price,ts\n\
               west,zz,a;b,3,1.5,2020-01-02\n\
               east,zz,,,2.5,1577836800000\n\
               west,zz,b;;c,7,,2020-01-01 00:00:00.5\n";
    let summary = build(dir.path(), "orders.csv", csv).unwrap();
    assert_eq!(summary.segment_dir, dir.path().join("out/orders_0"));
    assert_eq!((summary.total_docs, summary.columns), (3, 6));
    let seg = ImmutableSegment::open(&summary.segment_dir).unwrap();
    assert_eq!(seg.metadata().table_name, "orders");
    // Sorted by region: east first, then the two west rows in input order.
    assert_eq!(
        read_column(seg.column("region").unwrap(), 3),
        vec![st("east"), st("west"), st("west")]
    );
    assert_eq!(
        read_column(seg.column("tags").unwrap(), 3),
        vec![
            Value::Array(vec![st("null")]),
            Value::Array(vec![st("a"), st("b")]),
            Value::Array(vec![st("b"), st("c")])
        ]
    );
    assert_eq!(
        read_column(seg.column("qty").unwrap(), 3),
        vec![Value::Int(-1), Value::Int(3), Value::Int(7)]
    );
    assert_eq!(
        read_column(seg.column("price").unwrap(), 3),
        vec![Value::Double(2.5), Value::Double(1.5), Value::Double(0.0)]
    );
    assert_eq!(
        read_column(seg.column("ts").unwrap(), 3),
        vec![
            Value::Timestamp(1_577_836_800_000),
            Value::Timestamp(1_577_923_200_000),
            Value::Timestamp(1_577_836_800_500)
        ]
    );
    // `flag` is not in the input: all null, stored as the default.
    let flag = seg.column("flag").unwrap();
    assert_eq!(read_column(flag, 3), vec![Value::Boolean(false); 3]);
    assert_eq!(flag.nulls().unwrap().len(), 3);
    assert_eq!(
        seg.column("qty")
            .unwrap()
            .nulls()
            .unwrap()
            .iter()
            .collect::<Vec<_>>(),
        vec![0]
    );
    assert_eq!(
        seg.column("price")
            .unwrap()
            .nulls()
            .unwrap()
            .iter()
            .collect::<Vec<_>>(),
        vec![2]
    );
    assert!(seg.column("region").unwrap().nulls().is_none());
    // Indexes from the table config.
    let tags = seg.column("tags").unwrap();
    let b = tags.dictionary().unwrap().index_of(&st("b")).unwrap();
    assert_eq!(
        tags.index::<Inverted>()
            .unwrap()
            .doc_ids(b)
            .iter()
            .collect::<Vec<_>>(),
        vec![1, 2]
    );
    assert!(
        seg.column("qty")
            .unwrap()
            .index::<Bloom>()
            .unwrap()
            .might_contain(&Value::Int(7))
    );
    assert!(seg.column("price").unwrap().index::<Range>().is_some());
    assert!(seg.column("region").unwrap().metadata().sorted);
    let m = seg.metadata();
    assert_eq!(
        (m.start_time, m.end_time),
        (Some(1_577_836_800_000), Some(1_577_923_200_000))
    );
}

#[test]
fn null_vectors_follow_pinot_rules() {
    let dir = tempfile::tempdir().unwrap();
    let csv = "region,tags,qty,price,ts\nwest,a,,1.5,2020-01-01 00:00:00\n";
    let (mut schema, mut config) = setup();
    let build = |schema: &Schema, config: &BuildConfig, name: &str| {
        let input = dir.path().join(format!("{name}.csv"));
        std::fs::write(&input, csv).unwrap();
        let out = dir.path().join(name);
        let s = build_segment(
            schema,
            config,
            &InputSource {
                path: input,
                format: InputFormat::Csv,
                options: Default::default(),
            },
            &out,
            &mut |_| {},
        )
        .unwrap();
        ImmutableSegment::open(&s.segment_dir).unwrap()
    };
    // Table-level: nullHandlingEnabled off → no null vector, the default value is stored.
    config.null_handling = false;
    let seg = build(&schema, &config, "off");
    assert!(seg.column("qty").unwrap().nulls().is_none());
    assert_eq!(
        read_column(seg.column("qty").unwrap(), 1),
        vec![Value::Int(-1)]
    );
    // Column-based: only columns not declared notNull get one, whatever the table says.
    schema.enable_column_based_null_handling = true;
    for f in &mut schema.fields {
        f.not_null = f.name == "flag";
    }
    let seg = build(&schema, &config, "column_based");
    assert_eq!(seg.column("qty").unwrap().nulls().unwrap().len(), 1);
    assert!(seg.column("flag").unwrap().nulls().is_none());
}

#[test]
fn json_lines_build() {
    let dir = tempfile::tempdir().unwrap();
    let json = "{\"region\": \"n\", \"tags\": [\"x\", \"y\"], \"qty\": 2, \"price\": 3, \"flag\": true, \"ts\": 5}\n\
                {\"region\": null, \"tags\": \"z\", \"extra\": {\"a\": 1}}\n";
    let summary = build(dir.path(), "orders.json", json).unwrap();
    let seg = ImmutableSegment::open(&summary.segment_dir).unwrap();
    assert_eq!(
        read_column(seg.column("region").unwrap(), 2),
        vec![st("n"), st("null")]
    );
    assert_eq!(
        read_column(seg.column("tags").unwrap(), 2),
        vec![
            Value::Array(vec![st("x"), st("y")]),
            Value::Array(vec![st("z")])
        ]
    );
    assert_eq!(
        read_column(seg.column("flag").unwrap(), 2),
        vec![Value::Boolean(true), Value::Boolean(false)]
    );
    assert_eq!(
        read_column(seg.column("price").unwrap(), 2),
        vec![Value::Double(3.0), Value::Double(0.0)]
    );
    assert_eq!(
        read_column(seg.column("ts").unwrap(), 2),
        vec![Value::Timestamp(5), Value::Timestamp(0)]
    );
}

fn assert_no_segment_left(dir: &Path) {
    let out = dir.join("out");
    let left: Vec<_> = std::fs::read_dir(&out)
        .map(|r| r.filter_map(|e| e.ok()).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn errors_name_file_line_and_column_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let err = build(dir.path(), "bad.csv", "region,qty\nw,1\nw,x\n").unwrap_err();
    assert!(
        matches!(&err, SegmentError::Input { line: 3, column, .. } if column == "qty"),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .ends_with("bad.csv line 3, column 'qty': cannot parse 'x' as INT"),
        "{err}"
    );
    assert_no_segment_left(dir.path());

    let err = build(dir.path(), "arity.csv", "region,qty\nw,1\nw\n").unwrap_err();
    assert!(
        err.to_string()
            .ends_with("arity.csv line 3: expected 2 fields, found 1"),
        "{err}"
    );
    assert_no_segment_left(dir.path());

    let err = build(dir.path(), "bad.json", "{\"qty\": \"many\"}\n").unwrap_err();
    assert!(
        err.to_string()
            .ends_with("bad.json line 1, column 'qty': cannot parse 'many' as INT"),
        "{err}"
    );
    assert_no_segment_left(dir.path());

    let err = build(dir.path(), "mv.csv", "tags,price\na,1e999x\n").unwrap_err();
    assert!(
        err.to_string()
            .contains("column 'price': cannot parse '1e999x' as DOUBLE"),
        "{err}"
    );

    let (schema, config) = setup();
    let missing = InputSource {
        path: dir.path().join("nope.csv"),
        format: InputFormat::Csv,
        options: Default::default(),
    };
    let err = build_segment(
        &schema,
        &config,
        &missing,
        &dir.path().join("out"),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        matches!(err, SegmentError::Io { .. }) && err.to_string().contains("nope.csv"),
        "{err}"
    );
    assert_no_segment_left(dir.path());
}

#[test]
fn refuses_to_overwrite_and_accepts_empty_input() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "a.csv", "region\nx\n").unwrap();
    let err = build(dir.path(), "a.csv", "region\nx\n").unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let s = build(dir.path(), "empty.csv", "region,qty\n").unwrap();
    let seg = ImmutableSegment::open(&s.segment_dir).unwrap();
    assert_eq!(seg.total_docs(), 0);
    let c = seg.column("qty").unwrap();
    assert_eq!(
        (c.metadata().cardinality, c.metadata().min_value.clone()),
        (0, Value::Null)
    );
}

#[test]
fn free_text_that_later_repeats_folds_into_one_dictionary() {
    // The first batch of `region` is all distinct, so the build keeps every value from then on;
    // later rows repeat earlier values, plus a null and a non-ASCII value (the slow path).
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("region,qty\n");
    let mut rows: Vec<(String, i32)> = Vec::new();
    for i in 0..5000i32 {
        let region = match i {
            4000 => String::new(),
            4500 => "r\u{e9}gion".to_string(),
            i if i < 3000 => format!("r{i:05}"),
            i => format!("r{:05}", (i * 7) % 3000),
        };
        csv.push_str(&format!("{region},{i}\n"));
        rows.push((
            if region.is_empty() {
                "null".into()
            } else {
                region
            },
            i,
        ));
    }
    let summary = build(dir.path(), "orders.csv", &csv).unwrap();
    let seg = ImmutableSegment::open(&summary.segment_dir).unwrap();
    let region = seg.column("region").unwrap();
    assert_eq!(region.metadata().cardinality, 3002);
    let dict = region.dictionary().unwrap();
    let entries: Vec<Value> = (0..3002).map(|id| dict.value(id)).collect();
    let mut want: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    want.sort();
    want.dedup();
    assert_eq!(entries, want.iter().map(|v| st(v)).collect::<Vec<_>>());
    // Docs sorted by region (stable), so `qty` follows its row.
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        read_column(region, 5000),
        rows.iter().map(|r| st(&r.0)).collect::<Vec<_>>()
    );
    assert_eq!(
        read_column(seg.column("qty").unwrap(), 5000),
        rows.iter().map(|r| Value::Int(r.1)).collect::<Vec<_>>()
    );
}

#[test]
fn every_data_type_from_csv() {
    let schema = Schema::from_json(r#"{"schemaName": "t", "dimensionFieldSpecs": [
        {"name": "i", "dataType": "INT"}, {"name": "l", "dataType": "LONG"}, {"name": "f", "dataType": "FLOAT"},
        {"name": "d", "dataType": "DOUBLE"}, {"name": "bd", "dataType": "BIG_DECIMAL"}, {"name": "b", "dataType": "BOOLEAN"},
        {"name": "t", "dataType": "TIMESTAMP"}, {"name": "s", "dataType": "STRING"}, {"name": "j", "dataType": "JSON"},
        {"name": "y", "dataType": "BYTES"}]}"#).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("all.csv");
    std::fs::write(&input, "i,l,f,d,bd,b,t,s,j,y\n-1,9000000000,0.5,-2.25,10.50,TRUE,1970-01-01 00:00:01,\"a,b\",\"{\"\"k\"\":1}\",0aff\n").unwrap();
    let cfg = BuildConfig::new("t", "t_0");
    let s = build_segment(
        &schema,
        &cfg,
        &InputSource {
            path: input,
            format: InputFormat::Csv,
            options: Default::default(),
        },
        dir.path(),
        &mut |_| {},
    )
    .unwrap();
    let seg = ImmutableSegment::open(&s.segment_dir).unwrap();
    let row: Vec<Value> = seg.columns().map(|c| read_column(c, 1).remove(0)).collect();
    assert_eq!(
        row,
        vec![
            Value::Int(-1),
            Value::Long(9_000_000_000),
            Value::Float(0.5),
            Value::Double(-2.25),
            Value::BigDecimal("10.50".into()),
            Value::Boolean(true),
            Value::Timestamp(1000),
            st("a,b"),
            Value::Json("{\"k\":1}".into()),
            Value::Bytes(vec![10, 255]),
        ]
    );
    assert!(
        seg.columns()
            .all(|c| c.data_type() == schema.field(c.name()).unwrap().data_type)
    );
    assert_eq!(
        seg.column("b").unwrap().dictionary().unwrap().data_type(),
        DataType::Boolean
    );
}
