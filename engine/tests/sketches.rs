//! The Apache DataSketches aggregations (theta, CPC, frequent items, KLL) and sketch scalar
//! functions, end to end over two segments in both engines: estimates exact for small inputs,
//! RAW results that the `datasketches` crate reads back, BYTES columns of serialized sketches
//! merged, bad parameters as errors.

use base64::Engine;
use datasketches::cpc::CpcSketch;
use datasketches::frequencies::FrequentItemsSketch;
use datasketches::hash::value::raw_bytes;
use datasketches::kll::{KllFloat, KllSketch};
use datasketches::theta::{CompactThetaSketch, ThetaSketchBuilder};
use segments::build_config::BuildConfig;
use segments::builder::build_segment_from_rows;
use segments::segment::ImmutableSegment;
use segments::sketch::datasketch::{cpc_of_value, theta_of_value};
use segments::sketch::hll_plus::HyperLogLogPlus;
use segments::sketch::id_set::{IdSet, IdSetParams};
use segments::sketch::integer_tuple::{integer_sum_tuple_of, integer_tuple_from_bytes};
use segments::sketch::ull::UltraLogLog;
use segments::types::{DataType, FieldSpec, Schema, Value};
use serde_json::{Value as Json, json};
use std::sync::Arc;
use tessera_engine::provider::MemoryTables;
use tessera_engine::{BrokerResponse, execute_sql};

const ROWS: usize = 50;
const ENGINES: [&str; 2] = ["", "SET useMultistageEngine=true; "];

fn schema() -> Schema {
    let mut s = Schema {
        schema_name: "events".into(),
        ..Schema::default()
    };
    s.fields.push(FieldSpec::dimension("id", DataType::Long));
    s.fields
        .push(FieldSpec::dimension("name", DataType::String));
    s.fields.push(FieldSpec::dimension("grp", DataType::String));
    s.fields.push(FieldSpec::dimension("bucket", DataType::Int));
    s.fields.push(FieldSpec {
        single_value_field: false,
        ..FieldSpec::dimension("tags", DataType::String)
    });
    s.fields.push(FieldSpec {
        single_value_field: false,
        ..FieldSpec::dimension("nums", DataType::Int)
    });
    s.fields.push(FieldSpec::metric("score", DataType::Double));
    s.fields.push(FieldSpec::metric("flt", DataType::Float));
    s.fields
        .push(FieldSpec::dimension("theta_sk", DataType::Bytes));
    s.fields
        .push(FieldSpec::dimension("cpc_sk", DataType::Bytes));
    s.fields
        .push(FieldSpec::dimension("kll_sk", DataType::Bytes));
    s.fields
        .push(FieldSpec::dimension("tuple_sk", DataType::Bytes));
    s.fields
        .push(FieldSpec::dimension("ull_sk", DataType::Bytes));
    s
}

/// Pinot's serialized ULL (`[p] ++ registers`, `p` = 12) of one value.
fn ull_of(v: &Value) -> Vec<u8> {
    let mut s = UltraLogLog::new(12).unwrap();
    s.add_value(v);
    s.to_pinot_bytes()
}

/// Row `i`'s integer tuple sketch: key `i % 10`, value `1 + i % 3`.
fn tuple_of(i: usize) -> Vec<u8> {
    integer_sum_tuple_of(&Value::Long((i % 10) as i64), Some(1 + (i % 3) as i32), 14).unwrap()
}

fn kll_of(x: f64) -> Vec<u8> {
    let mut k = KllSketch::<KllFloat<f64>>::new(200).unwrap();
    k.update(KllFloat::<f64>::new(x).unwrap());
    k.serialize()
}

fn row(i: usize) -> Vec<Value> {
    vec![
        Value::Long(i as i64),
        Value::String(format!("n{}", i % 20)),
        Value::String(["a", "b"][i % 2].into()),
        Value::Int((i % 7) as i32),
        Value::Array(vec![
            Value::String(format!("t{}", i % 3)),
            Value::String(format!("t{}", (i + 1) % 3)),
        ]),
        Value::Array(vec![Value::Int((i % 4) as i32), Value::Int(10)]),
        Value::Double((i % 10) as f64),
        Value::Float((i % 5) as f32 + 0.5),
        Value::Bytes(theta_of_value(&Value::Long(i as i64), 4096).unwrap()),
        Value::Bytes(cpc_of_value(&Value::Long(i as i64), 12).unwrap()),
        Value::Bytes(kll_of((i % 10) as f64)),
        Value::Bytes(tuple_of(i)),
        Value::Bytes(ull_of(&Value::Long(i as i64))),
    ]
}

struct Table {
    _dir: tempfile::TempDir,
    tables: MemoryTables,
}

/// Two segments: rows 0..30 and 30..50.
fn table() -> Table {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema();
    let mut segs = Vec::new();
    for (k, range) in [(0, 0..30), (1, 30..ROWS)] {
        let cfg = BuildConfig::new("events", &format!("events_{k}"));
        let rows = range.map(|i| Ok(row(i)));
        let summary = build_segment_from_rows(&schema, &cfg, rows, dir.path()).unwrap();
        segs.push(Arc::new(
            ImmutableSegment::open(&summary.segment_dir).unwrap(),
        ));
    }
    let mut tables = MemoryTables::new();
    tables.add("events", schema, segs);
    Table { _dir: dir, tables }
}

fn query(t: &Table, sql: &str) -> BrokerResponse {
    execute_sql(sql, None, &t.tables)
}

fn rows_of(r: &BrokerResponse, at: &str) -> Vec<Vec<Json>> {
    assert!(r.exceptions.is_empty(), "{at}: {:?}", r.exceptions);
    r.result_table.as_ref().expect("result table").rows.clone()
}

fn types_of(r: &BrokerResponse) -> Vec<String> {
    r.result_table
        .as_ref()
        .expect("result table")
        .data_schema
        .column_data_types
        .clone()
}

fn error_of(t: &Table, sql: &str) -> String {
    let r = query(t, sql);
    assert!(!r.exceptions.is_empty(), "expected an error: {sql}");
    format!("{:?}", r.exceptions)
}

fn decode(v: &Json) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(v.as_str().expect("base64 text"))
        .expect("valid base64")
}

/// The retained hashes of a theta sketch, sorted.
fn hashes(s: &CompactThetaSketch) -> Vec<u64> {
    let mut h: Vec<u64> = s.iter().map(|e| e.hash()).collect();
    h.sort_unstable();
    h
}

#[test]
fn theta_sketch_counts_and_raw_sketches() {
    let t = table();
    for engine in ENGINES {
        let r = query(
            &t,
            &format!(
                "{engine}SELECT DISTINCTCOUNTTHETASKETCH(id), \
                 DISTINCT_COUNT_THETA_SKETCH(name, 'nominalEntries=1024'), \
                 distinctCountThetaSketch(score), DISTINCTCOUNTTHETASKETCH(flt), \
                 DISTINCTCOUNTTHETASKETCH(tags), DISTINCTCOUNTRAWTHETASKETCH(id), \
                 DISTINCTCOUNTTHETASKETCH(theta_sk), DISTINCTCOUNTRAWTHETASKETCH(name, 'samplingProbability=1.0; nominalEntries=64') \
                 FROM events"
            ),
        );
        let rows = rows_of(&r, engine);
        let row = &rows[0];
        assert_eq!(
            row[..5],
            [json!(50), json!(20), json!(10), json!(5), json!(3)],
            "{engine}"
        );
        assert_eq!(
            row[6],
            json!(50),
            "{engine}: sketches in a BYTES column merge"
        );
        assert_eq!(
            types_of(&r),
            [
                "LONG", "LONG", "LONG", "LONG", "LONG", "STRING", "LONG", "STRING"
            ],
            "{engine}"
        );
        // The RAW sketch is DataSketches' compact format, hashed as Java's update(long).
        let raw = CompactThetaSketch::deserialize(&decode(&row[5])).unwrap();
        assert_eq!(raw.estimate(), 50.0, "{engine}");
        let mut expected = ThetaSketchBuilder::default().lg_k(12).build().unwrap();
        (0..ROWS as i64).for_each(|i| expected.update(i));
        assert_eq!(hashes(&raw), hashes(&expected.compact(true)), "{engine}");
        // Text hashes its UTF-8 bytes, as Java's update(String).
        let raw = CompactThetaSketch::deserialize(&decode(&row[7])).unwrap();
        let mut expected = ThetaSketchBuilder::default().lg_k(6).build().unwrap();
        (0..20).for_each(|i| expected.update(raw_bytes::from_string(format!("n{i}"))));
        assert_eq!(hashes(&raw), hashes(&expected.compact(true)), "{engine}");
        assert_eq!(raw.estimate(), 20.0, "{engine}");

        // Per group: 25 ids and 10 names in each.
        let r = query(
            &t,
            &format!(
                "{engine}SELECT grp, DISTINCTCOUNTTHETASKETCH(id), DISTINCTCOUNTTHETASKETCH(name) \
                 FROM events GROUP BY grp ORDER BY grp"
            ),
        );
        assert_eq!(
            rows_of(&r, engine),
            vec![
                vec![json!("a"), json!(25), json!(10)],
                vec![json!("b"), json!(25), json!(10)]
            ],
            "{engine}"
        );
        // Sketches made by toThetaSketch are merged by the aggregation.
        let r = query(
            &t,
            &format!("{engine}SELECT DISTINCTCOUNTTHETASKETCH(toThetaSketch(name)) FROM events"),
        );
        assert_eq!(rows_of(&r, engine), vec![vec![json!(20)]], "{engine}");
        // No rows: 0, and no sketch.
        let r = query(
            &t,
            &format!(
                "{engine}SELECT DISTINCTCOUNTTHETASKETCH(id), DISTINCTCOUNTRAWTHETASKETCH(id) FROM events WHERE id < 0"
            ),
        );
        assert_eq!(rows_of(&r, engine)[0][0], json!(0), "{engine}");
    }
}

#[test]
fn theta_sketch_parameters_are_checked() {
    let t = table();
    for engine in ENGINES {
        for bad in [
            "DISTINCTCOUNTTHETASKETCH(id, 'nominalEntries=abc')",
            "DISTINCTCOUNTTHETASKETCH(id, 'bogus=1')",
            "DISTINCTCOUNTTHETASKETCH(id, 'nominalEntries')",
            "DISTINCTCOUNTTHETASKETCH(id, 'nominalEntries=2')",
            "DISTINCTCOUNTTHETASKETCH(id, 'samplingProbability=0')",
            "DISTINCTCOUNTTHETASKETCH(id, 3)",
            "DISTINCTCOUNTTHETASKETCH(id, '', 'grp = ''a''', 'SET_UNION($1)')",
        ] {
            let e = error_of(&t, &format!("{engine}SELECT {bad} FROM events"));
            assert!(
                e.to_lowercase().contains("thetasketch") || e.contains("Invalid parameter"),
                "{engine}{bad}: {e}"
            );
        }
        // A BYTES column that holds no sketch is an execution error, not a panic.
        let e = error_of(
            &t,
            &format!("{engine}SELECT DISTINCTCOUNTTHETASKETCH(toUtf8(name)) FROM events"),
        );
        assert!(e.contains("theta"), "{e}");
    }
}

#[test]
fn ultraloglog_counts_and_raw_sketches() {
    let t = table();
    // The sketch of the ids, built directly: what the engines must answer.
    let mut ids = UltraLogLog::new(12).unwrap();
    (0..ROWS).for_each(|i| ids.add_value(&Value::Long(i as i64)));
    let mut names = UltraLogLog::new(10).unwrap();
    (0..20).for_each(|i| names.add_value(&Value::String(format!("n{i}"))));
    for engine in ENGINES {
        let r = query(
            &t,
            &format!(
                "{engine}SELECT DISTINCTCOUNTULL(id), DISTINCT_COUNT_ULL(name, 10), \
                 DISTINCTCOUNTULL(tags), DISTINCTCOUNTRAWULL(id), DISTINCTCOUNTULL(ull_sk), \
                 DISTINCTCOUNTRAWULL(name, 10) FROM events"
            ),
        );
        let rows = rows_of(&r, engine);
        let row = &rows[0];
        assert_eq!(
            row[..3],
            [
                json!(ids.estimate().round() as i64),
                json!(names.estimate().round() as i64),
                json!(3)
            ],
            "{engine}"
        );
        assert_eq!(row[0], json!(50), "{engine}");
        // Serialized sketches of a BYTES column merge into the sketch of their values.
        assert_eq!(row[4], row[0], "{engine}");
        assert_eq!(
            types_of(&r),
            ["LONG", "LONG", "LONG", "STRING", "LONG", "STRING"],
            "{engine}"
        );
        // RAW: the registers alone, base64.
        assert_eq!(decode(&row[3]), ids.state(), "{engine}");
        assert_eq!(decode(&row[5]), names.state(), "{engine}");
        // Per group, and no rows: 0, and no sketch at all for RAW.
        let r = query(
            &t,
            &format!(
                "{engine}SELECT grp, DISTINCTCOUNTULL(bucket) FROM events GROUP BY grp ORDER BY grp"
            ),
        );
        assert_eq!(
            rows_of(&r, engine),
            [vec![json!("a"), json!(7)], vec![json!("b"), json!(7)]]
        );
        let r = query(
            &t,
            &format!(
                "{engine}SELECT DISTINCTCOUNTULL(id), DISTINCTCOUNTRAWULL(id) FROM events WHERE id < 0"
            ),
        );
        assert_eq!(
            rows_of(&r, engine),
            [vec![json!(0), Json::Null]],
            "{engine}"
        );
        // SMART: exact up to the threshold, the ULL's estimate past it (INT either way).
        let r = query(
            &t,
            &format!(
                "{engine}SELECT DISTINCTCOUNTSMARTULL(id), DISTINCTCOUNTSMARTULL(id, 'threshold=10;p=12'), \
                 DISTINCTCOUNTSMARTULL(name, 'THRESHOLD=30'), \
                 DISTINCTCOUNTSMARTULL(id, 'threshold=25') FROM events"
            ),
        );
        // At 25 the first segment (30 ids) converts and the second (20) does not: the exact
        // values merge into the sketch.
        assert_eq!(
            rows_of(&r, engine),
            [vec![
                json!(50),
                json!(ids.estimate().round() as i64),
                json!(20),
                json!(ids.estimate().round() as i64)
            ]],
            "{engine}"
        );
        assert_eq!(types_of(&r), ["INT", "INT", "INT", "INT"], "{engine}");
        let mut few = UltraLogLog::new(4).unwrap();
        (0..ROWS).for_each(|i| few.add_value(&Value::Long(i as i64)));
        let r = query(
            &t,
            &format!("{engine}SELECT DISTINCTCOUNTSMARTULL(id, 'threshold=5;p=4') FROM events"),
        );
        assert_eq!(
            rows_of(&r, engine),
            [vec![json!(few.estimate().round() as i64)]],
            "{engine}"
        );
        assert_ne!(few.estimate().round() as i64, 50);
        for bad in [
            "DISTINCTCOUNTULL(id, 2)",
            "DISTINCTCOUNTULL(id, 27)",
            "DISTINCTCOUNTSMARTULL(id, 'p=2')",
            "DISTINCTCOUNTSMARTULL(id, 'log2m=8')",
        ] {
            error_of(&t, &format!("{engine}SELECT {bad} FROM events"));
        }
    }
}

#[test]
fn hyperloglog_plus_counts_and_raw_sketches() {
    let t = table();
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let sketch = |p: u8, sp: u8, values: &mut dyn Iterator<Item = Value>| {
        let mut s = HyperLogLogPlus::new(p, sp).unwrap();
        values.for_each(|v| s.offer(&v));
        s
    };
    let ids = sketch(14, 0, &mut (0..ROWS).map(|i| Value::Long(i as i64)));
    let names = sketch(10, 20, &mut (0..20).map(|i| Value::String(format!("n{i}"))));
    // At p = 10 two of the 20 names share a register: the estimate is 19, as Pinot's.
    let names10 = sketch(10, 0, &mut (0..20).map(|i| Value::String(format!("n{i}"))));
    assert_eq!(names10.cardinality(), 19);
    for engine in ENGINES {
        let r = query(
            &t,
            &format!(
                "{engine}SELECT DISTINCTCOUNTHLLPLUS(id), DISTINCT_COUNT_HLL_PLUS(name, 10), \
                 DISTINCTCOUNTHLLPLUSMV(tags), DISTINCTCOUNTRAWHLLPLUS(id), \
                 DISTINCTCOUNTSMARTHLLPLUS(id, 'threshold=10'), DISTINCTCOUNTSMARTHLLPLUS(name), \
                 DISTINCTCOUNTSMARTHLLPLUS(id, 'threshold=25') \
                 FROM events"
            ),
        );
        let rows = rows_of(&r, engine);
        let row = &rows[0];
        assert_eq!(
            row[..3],
            [
                json!(ids.cardinality()),
                json!(names10.cardinality()),
                json!(3)
            ],
            "{engine}"
        );
        assert_eq!(row[0], json!(50), "{engine}");
        assert_eq!(row[3], json!(hex(&ids.to_bytes())), "{engine}");
        assert_eq!(
            row[4..],
            [
                json!(ids.cardinality()),
                json!(20),
                json!(ids.cardinality())
            ],
            "{engine}"
        );
        assert_eq!(
            types_of(&r),
            ["LONG", "LONG", "LONG", "STRING", "INT", "INT", "INT"],
            "{engine}"
        );
        // A sparse sketch (sp given: the single-stage engine takes it, as Pinot's).
        if engine.is_empty() {
            let r = query(
                &t,
                "SELECT DISTINCTCOUNTRAWHLLPLUS(name, 10, 20) FROM events",
            );
            assert_eq!(rows_of(&r, "v1")[0][0], json!(hex(&names.to_bytes())));
        }
        // No rows: 0, and the empty sketch for RAW (Pinot builds one).
        let r = query(
            &t,
            &format!(
                "{engine}SELECT DISTINCTCOUNTHLLPLUS(id), DISTINCTCOUNTRAWHLLPLUS(id) FROM events WHERE id < 0"
            ),
        );
        let empty = HyperLogLogPlus::new(14, 0).unwrap();
        assert_eq!(
            rows_of(&r, engine),
            [vec![json!(0), json!(hex(&empty.to_bytes()))]],
            "{engine}"
        );
        for bad in [
            "DISTINCTCOUNTHLLPLUS(id, 3)",
            "DISTINCTCOUNTHLLPLUS(id, 14, 10)",
            "DISTINCTCOUNTSMARTHLLPLUS(id, 'p=2')",
            "DISTINCTCOUNTSMARTHLLPLUS(id, 'bogus=1')",
        ] {
            error_of(&t, &format!("{engine}SELECT {bad} FROM events"));
        }
    }
}

#[test]
fn id_sets_and_membership() {
    let t = table();
    let d = IdSetParams::default();
    for engine in ENGINES {
        let r = query(
            &t,
            &format!(
                "{engine}SELECT IDSET(id), IDSET(bucket), ID_SET(name, 'expectedInsertions=100;fpp=0.01') \
                 FROM events"
            ),
        );
        let rows = rows_of(&r, engine);
        let sets: Vec<IdSet> = rows[0]
            .iter()
            .map(|v| IdSet::from_base64(v.as_str().unwrap()).unwrap())
            .collect();
        assert_eq!(types_of(&r), ["STRING", "STRING", "STRING"], "{engine}");
        // LONG ids in a 64-bit map, INT ids in a bitmap, text in a Bloom filter: each holds
        // exactly what a set built directly holds.
        let mut ids = IdSet::default();
        (0..ROWS).for_each(|i| ids.add(&Value::Long(i as i64), d).unwrap());
        assert_eq!(sets[0], ids, "{engine}");
        assert!(matches!(sets[1], IdSet::Ints(_)) && matches!(sets[2], IdSet::Bloom(_)));
        assert!((0..7).all(|b| sets[1].contains(&Value::Int(b)).unwrap()));
        assert!(!sets[1].contains(&Value::Int(7)).unwrap());
        assert!((0..20).all(|n| sets[2].contains(&Value::String(format!("n{n}"))).unwrap()));
        // Membership: the rows whose id is in {1, 2, 3, 1000}.
        let mut few = IdSet::default();
        for i in [1, 2, 3, 1000] {
            few.add(&Value::Long(i), d).unwrap();
        }
        let b64 = few.to_base64();
        let r = query(
            &t,
            &format!("{engine}SELECT id FROM events WHERE INIDSET(id, '{b64}') ORDER BY id"),
        );
        assert_eq!(
            rows_of(&r, engine),
            [[json!(1)], [json!(2)], [json!(3)]],
            "{engine}"
        );
        let r = query(
            &t,
            &format!(
                "{engine}SELECT COUNT(*) FROM events WHERE inIdSet(id, '{}')",
                sets[0].to_base64()
            ),
        );
        assert_eq!(rows_of(&r, engine), [[json!(50)]], "{engine}");
        // No rows: the empty set; a set of another type, or not an id set, is an error.
        let r = query(
            &t,
            &format!("{engine}SELECT IDSET(id) FROM events WHERE id < 0"),
        );
        assert_eq!(rows_of(&r, engine), [[json!("AA==")]], "{engine}");
        for bad in [
            format!("SELECT COUNT(*) FROM events WHERE INIDSET(bucket, '{b64}')"),
            "SELECT COUNT(*) FROM events WHERE INIDSET(id, 'nonsense')".to_string(),
            "SELECT IDSET(id, 'fpp=2') FROM events".to_string(),
            "SELECT IDSET(id, 'bogus=1') FROM events".to_string(),
        ] {
            error_of(&t, &format!("{engine}{bad}"));
        }
    }
}

#[test]
fn cpc_sketch_counts_and_raw_sketches() {
    let t = table();
    for engine in ENGINES {
        let r = query(
            &t,
            &format!(
                "{engine}SELECT DISTINCTCOUNTCPCSKETCH(id), DISTINCT_COUNT_CPC_SKETCH(name, 10), \
                 DISTINCTCOUNTCPCSKETCH(tags, 'nominalEntries=2048'), DISTINCTCOUNTRAWCPCSKETCH(id), \
                 DISTINCTCOUNTCPCSKETCH(cpc_sk) FROM events"
            ),
        );
        let rows = rows_of(&r, engine);
        let row = &rows[0];
        assert_eq!(row[..3], [json!(50), json!(20), json!(3)], "{engine}");
        assert_eq!(row[4], json!(50), "{engine}");
        assert_eq!(
            types_of(&r),
            ["LONG", "LONG", "LONG", "STRING", "LONG"],
            "{engine}"
        );
        let raw = CpcSketch::deserialize(&decode(&row[3])).unwrap();
        assert_eq!(raw.lg_k(), 12);
        assert_eq!(raw.estimate().round(), 50.0, "{engine}");
        for bad in [
            "DISTINCTCOUNTCPCSKETCH(id, 99)",
            "DISTINCTCOUNTCPCSKETCH(id, 'nominalEntries=1000')",
            "DISTINCTCOUNTCPCSKETCH(id, 'lgK=3')",
        ] {
            error_of(&t, &format!("{engine}SELECT {bad} FROM events"));
        }
    }
}

#[test]
fn integer_tuple_sketch_aggregations() {
    let t = table();
    let sum_of = |keep: &dyn Fn(usize) -> bool| -> i64 {
        (0..ROWS)
            .filter(|i| keep(*i))
            .map(|i| 1 + (i % 3) as i64)
            .sum()
    };
    for engine in ENGINES {
        let r = query(
            &t,
            &format!(
                "{engine}SELECT DISTINCTCOUNTTUPLESKETCH(tuple_sk), SUMVALUESINTEGERSUMTUPLESKETCH(tuple_sk), \
                 AVG_VALUE_INTEGER_SUM_TUPLE_SKETCH(tuple_sk), DISTINCTCOUNTRAWINTEGERSUMTUPLESKETCH(tuple_sk, 4096), \
                 distinctCountTupleSketch(toIntegerSumTupleSketch(name, bucket), 'nominalEntries=1024') FROM events"
            ),
        );
        let rows = rows_of(&r, engine);
        let total = sum_of(&|_| true);
        assert_eq!(
            rows[0][..3],
            [
                json!(10),
                json!(total),
                json!((total as f64 / 10.0).round() as i64)
            ],
            "{engine}"
        );
        assert_eq!(rows[0][4], json!(20), "{engine}");
        assert_eq!(
            types_of(&r),
            ["LONG", "LONG", "LONG", "STRING", "LONG"],
            "{engine}"
        );
        // The RAW union reads back: ten keys, each with the sum of its rows' values.
        let raw = integer_tuple_from_bytes(&decode(&rows[0][3])).unwrap();
        assert_eq!(raw.num_retained(), 10, "{engine}");
        let mut values: Vec<i32> = raw.iter().map(|e| e.summary().value()).collect();
        values.sort_unstable();
        let mut expected: Vec<i32> = (0..10).map(|k| sum_of(&|i| i % 10 == k) as i32).collect();
        expected.sort_unstable();
        assert_eq!(values, expected, "{engine}");

        // Per group: even rows hold keys 0, 2, 4, 6, 8.
        let r = query(
            &t,
            &format!(
                "{engine}SELECT grp, DISTINCTCOUNTTUPLESKETCH(tuple_sk), SUMVALUESINTEGERSUMTUPLESKETCH(tuple_sk) \
                 FROM events GROUP BY grp ORDER BY grp"
            ),
        );
        assert_eq!(
            rows_of(&r, engine),
            [
                vec![json!("a"), json!(5), json!(sum_of(&|i| i % 2 == 0))],
                vec![json!("b"), json!(5), json!(sum_of(&|i| i % 2 == 1))],
            ],
            "{engine}"
        );

        // No rows: 0, 0, NULL and the empty sketch, as Pinot without null handling.
        let r = query(
            &t,
            &format!(
                "{engine}SELECT DISTINCTCOUNTTUPLESKETCH(tuple_sk), SUMVALUESINTEGERSUMTUPLESKETCH(tuple_sk), \
                 AVGVALUEINTEGERSUMTUPLESKETCH(tuple_sk), DISTINCTCOUNTRAWINTEGERSUMTUPLESKETCH(tuple_sk) \
                 FROM events WHERE id < 0"
            ),
        );
        let rows = rows_of(&r, engine);
        assert_eq!(rows[0][..3], [json!(0), json!(0), Json::Null], "{engine}");
        assert!(
            integer_tuple_from_bytes(&decode(&rows[0][3]))
                .unwrap()
                .is_empty()
        );

        // The scalar functions over the column and over sketches made in the query.
        let r = query(
            &t,
            &format!(
                "{engine}SELECT getIntTupleSketchEstimate(intSumTupleSketchUnion(tuple_sk, toIntegerSumTupleSketch(id, 1))), \
                 getIntTupleSketchEstimate(intSumTupleSketchIntersect(tuple_sk, toIntegerSumTupleSketch(id, 1))), \
                 getIntTupleSketchEstimate(intSumTupleSketchDiff(tuple_sk, tuple_sk)) FROM events WHERE id = 12"
            ),
        );
        // Row 12's key is 2: the same key as id 2, not id 12's.
        assert_eq!(
            rows_of(&r, engine),
            [vec![json!(2), json!(0), json!(0)]],
            "{engine}"
        );

        for bad in [
            "DISTINCTCOUNTTUPLESKETCH(id)",
            "SUMVALUESINTEGERSUMTUPLESKETCH(tags)",
            "DISTINCTCOUNTTUPLESKETCH(tuple_sk, 'nominalEntries=7')",
            "DISTINCTCOUNTTUPLESKETCH(tuple_sk, 'lgK=3')",
            "DISTINCTCOUNTTUPLESKETCH(theta_sk)",
        ] {
            error_of(&t, &format!("{engine}SELECT {bad} FROM events"));
        }
    }
}

#[test]
fn frequent_items_sketches() {
    let t = table();
    for engine in ENGINES {
        let r = query(
            &t,
            &format!(
                "{engine}SELECT FREQUENTSTRINGSSKETCH(name), FREQUENT_LONGS_SKETCH(bucket, 64), \
                 FREQUENTSTRINGSSKETCH(tags) FROM events"
            ),
        );
        let rows = rows_of(&r, engine);
        let row = &rows[0];
        assert_eq!(types_of(&r), ["STRING", "STRING", "STRING"], "{engine}");
        let names = FrequentItemsSketch::<String>::deserialize(&decode(&row[0])).unwrap();
        assert_eq!(names.estimate("n3"), 3, "{engine}");
        assert_eq!(names.total_weight(), 50);
        let buckets = FrequentItemsSketch::<i64>::deserialize(&decode(&row[1])).unwrap();
        // i % 7 == 0 for i in 0, 7, …, 49: 8 rows.
        assert_eq!(buckets.estimate(&0), 8, "{engine}");
        assert_eq!(buckets.max_map_size(), 64);
        let tags = FrequentItemsSketch::<String>::deserialize(&decode(&row[2])).unwrap();
        assert_eq!(tags.total_weight(), 100, "{engine}");
        // No rows: NULL.
        let r = query(
            &t,
            &format!("{engine}SELECT FREQUENTSTRINGSSKETCH(name) FROM events WHERE id < 0"),
        );
        assert_eq!(rows_of(&r, engine), vec![vec![Json::Null]], "{engine}");
        for bad in [
            "FREQUENTLONGSSKETCH(name)",
            "FREQUENTLONGSSKETCH(score)",
            "FREQUENTSTRINGSSKETCH(name, 100)",
            "FREQUENTSTRINGSSKETCH(name, 'x')",
        ] {
            error_of(&t, &format!("{engine}SELECT {bad} FROM events"));
        }
    }
}

#[test]
fn kll_percentiles() {
    let t = table();
    for engine in ENGINES {
        let r = query(
            &t,
            &format!(
                "{engine}SELECT PERCENTILEKLL(score, 50), PERCENTILE_KLL(score, 90, 400), \
                 PERCENTILERAWKLL(score, 90), PERCENTILEKLLMV(nums, 50), PERCENTILEKLL(kll_sk, 50), \
                 PERCENTILEKLL(flt, 100) FROM events"
            ),
        );
        let rows = rows_of(&r, engine);
        let row = &rows[0];
        // 0..9 five times each: rank 0.5 is the 25th value (4), rank 0.9 the 45th (8).
        assert_eq!(row[0], json!(4.0), "{engine}");
        assert_eq!(row[1], json!(8.0), "{engine}");
        assert_eq!(row[4], json!(4.0), "{engine}: serialized sketches merge");
        assert_eq!(row[5], json!(4.5), "{engine}");
        // nums: 50 values 0..3 and 50 tens; the 50th of the 100 is 3.
        assert_eq!(row[3], json!(3.0), "{engine}");
        assert_eq!(
            types_of(&r),
            ["DOUBLE", "DOUBLE", "STRING", "DOUBLE", "DOUBLE", "DOUBLE"],
            "{engine}"
        );
        let raw = KllSketch::<KllFloat<f64>>::deserialize(&decode(&row[2])).unwrap();
        assert_eq!(raw.n(), 50);
        assert_eq!(raw.k(), 200);
        assert_eq!(
            raw.quantile(0.9, datasketches::common::SearchCriteria::Inclusive)
                .unwrap()
                .map(|x| x.into_inner()),
            Some(8.0)
        );
        let r = query(
            &t,
            &format!(
                "{engine}SELECT PERCENTILEKLL(score, 50), PERCENTILERAWKLL(score, 50) FROM events WHERE id < 0"
            ),
        );
        assert_eq!(
            rows_of(&r, engine),
            vec![vec![Json::Null, Json::Null]],
            "{engine}"
        );
        for bad in [
            "PERCENTILEKLL(score, 120)",
            "PERCENTILEKLL(score, 50, 2)",
            "PERCENTILEKLL(score)",
            "PERCENTILEKLL(name, 50)",
        ] {
            error_of(&t, &format!("{engine}SELECT {bad} FROM events"));
        }
    }
}

#[test]
fn sketch_scalar_functions() {
    let t = table();
    for engine in ENGINES {
        let r = query(
            &t,
            &format!(
                "{engine}SELECT getThetaSketchEstimate(thetaSketchUnion(toThetaSketch(id), toThetaSketch(1), toThetaSketch('x'))), \
                 getThetaSketchEstimate(thetaSketchIntersect(toThetaSketch(id), toThetaSketch(3))), \
                 getThetaSketchEstimate(thetaSketchDiff(toThetaSketch(id), toThetaSketch(3))), \
                 getCpcSketchEstimate(cpcSketchUnion(toCpcSketch(id), toCpcSketch(name, 10))), \
                 getThetaSketchEstimate(theta_sk), getCpcSketchEstimate(cpc_sk) \
                 FROM events WHERE id = 3"
            ),
        );
        assert_eq!(
            rows_of(&r, engine),
            vec![vec![
                json!(3),
                json!(1),
                json!(0),
                json!(2),
                json!(1),
                json!(1)
            ]],
            "{engine}"
        );
        let r = query(
            &t,
            &format!(
                "{engine}SELECT thetaSketchToString(theta_sk), cpcSketchToString(cpc_sk) FROM events WHERE id = 3"
            ),
        );
        let rows = rows_of(&r, engine);
        assert!(
            rows[0][0].as_str().unwrap().contains("Retained Entries"),
            "{engine}: {rows:?}"
        );
        error_of(
            &t,
            &format!("{engine}SELECT getThetaSketchEstimate(toUtf8(name)) FROM events"),
        );
    }
}
