//! Real-time tables read every message format Pinot's decoders read, and keep keys as Pinot's
//! dedup and upsert options say, against a real Kafka-protocol broker (tansu) and `tessera
//! start` processes: CSV, Avro (a schema in the stream config, and Confluent's wire format with
//! a schema registry served here over HTTP), Protobuf with a descriptor file, the message key,
//! headers and metadata as columns; a dedup table keeps each key's first row across commits and
//! a kill -9; an upsert table hides deleted keys and marks or drops out-of-order rows. A message
//! that does not decode is skipped and counted. Every check counts rows *and* sums their ids, so
//! a row seen twice or missed cannot pass.

mod support;

use apache_avro::Schema as AvroSchema;
use apache_avro::types::Value as Avro;
use prost_reflect::prost::Message as _;
use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
use prost_reflect::prost_types::{
    DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet,
};
use prost_reflect::{DescriptorPool, DynamicMessage, Value as Proto};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};
use support::kafka::{Kafka, Message};
use support::realtime::{JSON_DECODER, Tessera, event_schema, http, kafka_stream, realtime_table};

const FLUSH_ROWS: u64 = 40;

fn schema(name: &str, extra: Value) -> Value {
    let mut s = event_schema(name);
    for (k, v) in extra.as_object().unwrap() {
        match (s.get_mut(k), v) {
            (Some(Value::Array(a)), Value::Array(more)) => a.extend(more.iter().cloned()),
            _ => {
                s[k] = v.clone();
            }
        }
    }
    s
}

/// A REALTIME table reading topic `name` with `decoder` and its `props` (decoder properties).
fn table(name: &str, kafka: &str, decoder: &str, props: &[(&str, &str)]) -> Value {
    let mut stream = kafka_stream(name, kafka, decoder, FLUSH_ROWS);
    for (k, v) in props {
        stream[format!("stream.kafka.decoder.prop.{k}")] = json!(v);
    }
    realtime_table(name, json!({}), stream)
}

fn ts(i: i64) -> i64 {
    1_700_000_000_000 + i
}

fn kind(i: i64) -> &'static str {
    ["a", "b", "c"][(i % 3) as usize]
}

fn sum(ids: impl IntoIterator<Item = i64>) -> i64 {
    ids.into_iter().sum()
}

/// `SELECT <select> FROM <table>` through the broker: the first row.
fn first_row(t: &Tessera, sql: &str) -> Vec<Value> {
    let body = t.sql(sql);
    assert!(
        body["exceptions"].as_array().is_none_or(|e| e.is_empty()),
        "{sql}: {body}"
    );
    body["resultTable"]["rows"][0]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// A schema registry answering `GET /schemas/ids/<id>` from `schemas` (id → Avro schema JSON),
/// on a free port of 127.0.0.1; it lives as long as the test process. Returns its URL.
fn schema_registry(schemas: Vec<(u32, String)>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let path = request.split_whitespace().nth(1).unwrap_or("");
            let found = path
                .strip_prefix("/schemas/ids/")
                .and_then(|id| id.parse::<u32>().ok())
                .and_then(|id| schemas.iter().find(|(i, _)| *i == id));
            let (status, body) = match found {
                Some((_, schema)) => ("200 OK", json!({ "schema": schema }).to_string()),
                None => (
                    "404 Not Found",
                    json!({"error_code": 40403, "message": "Schema not found"}).to_string(),
                ),
            };
            let mut stream = reader.into_inner();
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: application/vnd.schemaregistry.v1+json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

const AVRO_V1: &str = r#"{"type":"record","name":"Event","fields":[
    {"name":"id","type":"long"},{"name":"kind","type":"string"},
    {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}}]}"#;
/// V1 with a field added (a writer that moved on; the table reads what it knows).
const AVRO_V2: &str = r#"{"type":"record","name":"Event","fields":[
    {"name":"id","type":"long"},{"name":"kind","type":"string"},
    {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
    {"name":"note","type":["null","string"],"default":null}]}"#;

fn avro_datum(schema: &str, i: i64) -> Vec<u8> {
    let schema = AvroSchema::parse_str(schema).unwrap();
    let mut fields = vec![
        ("id".to_string(), Avro::Long(i)),
        ("kind".to_string(), Avro::String(kind(i).into())),
        ("ts".to_string(), Avro::TimestampMillis(ts(i))),
    ];
    if schema.canonical_form().contains("note") {
        fields.push((
            "note".to_string(),
            Avro::Union(1, Box::new(Avro::String("v2".into()))),
        ));
    }
    apache_avro::writer::datum::GenericDatumWriter::builder(&schema)
        .build()
        .unwrap()
        .write_value_to_vec(Avro::Record(fields))
        .unwrap()
}

/// Confluent's wire format: a zero byte, the schema id, the datum.
fn confluent(id: u32, datum: Vec<u8>) -> Vec<u8> {
    let mut out = vec![0];
    out.extend(id.to_be_bytes());
    out.extend(datum);
    out
}

/// The descriptor set of `message Event { int64 id = 1; string kind = 2; int64 ts = 3; }` in
/// package `shop`.
fn proto_descriptor_set() -> Vec<u8> {
    let field = |name: &str, number: i32, ty: Type| FieldDescriptorProto {
        name: Some(name.into()),
        number: Some(number),
        r#type: Some(ty as i32),
        label: Some(Label::Optional as i32),
        json_name: Some(name.into()),
        ..Default::default()
    };
    FileDescriptorSet {
        file: vec![FileDescriptorProto {
            name: Some("shop.proto".into()),
            package: Some("shop".into()),
            syntax: Some("proto3".into()),
            message_type: vec![DescriptorProto {
                name: Some("Event".into()),
                field: vec![
                    field("id", 1, Type::Int64),
                    field("kind", 2, Type::String),
                    field("ts", 3, Type::Int64),
                ],
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
    .encode_to_vec()
}

fn proto_event(set: &[u8], i: i64) -> Vec<u8> {
    let pool = DescriptorPool::decode(set).unwrap();
    let mut m = DynamicMessage::new(pool.get_message_by_name("shop.Event").unwrap());
    m.set_field_by_name("id", Proto::I64(i));
    m.set_field_by_name("kind", Proto::String(kind(i).into()));
    m.set_field_by_name("ts", Proto::I64(ts(i)));
    m.encode_to_vec()
}

/// Each decoder: rows produced in its format become queryable across a commit (more rows than
/// the flush threshold), typed as the schema says; a message that does not decode (an unknown
/// registry schema id among them) is skipped; a decoder missing a property it needs is refused
/// when the table is created.
#[test]
fn csv_avro_confluent_and_protobuf_messages() {
    let Some(kafka) = Kafka::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(&dir.path().join("data"));
    let n = 100i64;
    let ids = 0..n;
    let want = (n, sum(ids.clone()));
    let good_and_one_bad = |encode: &dyn Fn(i64) -> Vec<u8>, bad: &[u8]| {
        let mut m: Vec<Message> = ids.clone().map(|i| Message::value(encode(i))).collect();
        m.insert(50, Message::value(bad.to_vec()));
        m
    };

    // CSV: a header property, a quoted cell, one line that is not CSV of the header's columns.
    kafka.create_topic("csv_events", 1);
    t.post_ok("/schemas", schema("csv_events", json!({})));
    t.post_ok(
        "/tables",
        table(
            "csv_events",
            &kafka.address,
            "org.apache.pinot.plugin.inputformat.csv.CSVMessageDecoder",
            &[("header", "id|kind|ts"), ("delimiter", "|")],
        ),
    );
    let csv = |i: i64| format!("{i}|\"{}\"|{}", kind(i), ts(i)).into_bytes();
    kafka.produce_messages(
        "csv_events",
        0,
        &good_and_one_bad(&csv, b"not-a-number|a|1"),
    );

    // Avro with the schema in the stream config, two leading bytes stripped.
    kafka.create_topic("avro_events", 1);
    t.post_ok("/schemas", schema("avro_events", json!({})));
    t.post_ok(
        "/tables",
        table(
            "avro_events",
            &kafka.address,
            "org.apache.pinot.plugin.inputformat.avro.SimpleAvroMessageDecoder",
            &[("schema", AVRO_V1), ("leading.bytes.to.strip", "2")],
        ),
    );
    let avro = |i: i64| {
        let mut m = vec![7, 7];
        m.extend(avro_datum(AVRO_V1, i));
        m
    };
    kafka.produce_messages("avro_events", 0, &good_and_one_bad(&avro, &[7, 7, 0xff]));

    // Confluent's wire format, the writer's schema moving from id 1 to id 2 half-way.
    let registry = schema_registry(vec![(1, AVRO_V1.into()), (2, AVRO_V2.into())]);
    kafka.create_topic("confluent_events", 1);
    t.post_ok("/schemas", schema("confluent_events", json!({})));
    t.post_ok(
        "/tables",
        table(
            "confluent_events",
            &kafka.address,
            "org.apache.pinot.plugin.inputformat.avro.confluent.KafkaConfluentSchemaRegistryAvroMessageDecoder",
            &[("schema.registry.rest.url", &registry)],
        ),
    );
    let conf = |i: i64| match i < n / 2 {
        true => confluent(1, avro_datum(AVRO_V1, i)),
        false => confluent(2, avro_datum(AVRO_V2, i)),
    };
    // An unknown schema id is a message that does not decode.
    kafka.produce_messages(
        "confluent_events",
        0,
        &good_and_one_bad(&conf, &confluent(9, avro_datum(AVRO_V1, 0))),
    );

    // Protobuf with a descriptor file.
    let set = proto_descriptor_set();
    let desc = dir.path().join("shop.desc");
    std::fs::write(&desc, &set).unwrap();
    kafka.create_topic("proto_events", 1);
    t.post_ok("/schemas", schema("proto_events", json!({})));
    t.post_ok(
        "/tables",
        table(
            "proto_events",
            &kafka.address,
            "org.apache.pinot.plugin.inputformat.protobuf.ProtoBufMessageDecoder",
            &[
                ("descriptorFile", desc.to_str().unwrap()),
                ("protoClassName", "shop.Event"),
            ],
        ),
    );
    let proto = |i: i64| proto_event(&set, i);
    kafka.produce_messages("proto_events", 0, &good_and_one_bad(&proto, &[0xff, 0xff]));

    for table in [
        "csv_events",
        "avro_events",
        "confluent_events",
        "proto_events",
    ] {
        t.wait_for(table, want.0, want.1, Duration::from_secs(60));
        // Typed as the schema says, on both engines.
        let bs: Vec<i64> = ids.clone().filter(|i| kind(*i) == "b").collect();
        for prefix in ["", "SET useMultistageEngine=true; "] {
            let row = first_row(
                &t,
                &format!(
                    "{prefix}SELECT count(*), sum(id), count(DISTINCT kind) FROM {table} \
                     WHERE kind = 'b'"
                ),
            );
            let numbers: Vec<f64> = row.iter().filter_map(Value::as_f64).collect();
            assert_eq!(
                numbers,
                vec![bs.len() as f64, sum(bs.clone()) as f64, 1.0],
                "{table}: {row:?}"
            );
        }
        let row = first_row(
            &t,
            &format!(
                "SELECT count(*) FROM {table} WHERE ts BETWEEN {} AND {}",
                ts(0),
                ts(n - 1)
            ),
        );
        assert_eq!(row, vec![json!(n)], "{table}");
        // The bad message was counted, and consuming went on past it (rows were committed).
        let segments = t.segments(table);
        assert!(
            segments
                .iter()
                .any(|s| s["segment.realtime.status"] == "DONE"),
            "{table}: {segments:?}"
        );
    }

    // A decoder without the property it needs is refused at creation, and changes nothing.
    kafka.create_topic("avro_no_schema", 1);
    t.post_ok("/schemas", schema("avro_no_schema", json!({})));
    let (status, body) = http(
        "POST",
        &format!("{}/tables", t.controller),
        Some(table(
            "avro_no_schema",
            &kafka.address,
            "org.apache.pinot.plugin.inputformat.avro.SimpleAvroMessageDecoder",
            &[],
        )),
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("'schema'"), "{body}");
    let (status, _) = http(
        "GET",
        &format!("{}/tables/avro_no_schema", t.controller),
        None,
    );
    assert_eq!(status, 404);
    let row = first_row(&t, "SELECT count(*) FROM csv_events");
    assert_eq!(row, vec![json!(n)]);
}

/// The message key, headers and metadata as columns (`metadata.populate`): `__key`,
/// `__header$<name>`, `__metadata$offset`, `…$partition`, `…$recordTimestamp`.
#[test]
fn key_headers_and_metadata_become_columns() {
    let Some(kafka) = Kafka::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(dir.path());
    kafka.create_topic("meta_events", 2);
    let extra = json!({"dimensionFieldSpecs": [
        {"name": "__key", "dataType": "STRING"},
        {"name": "__header$source", "dataType": "BYTES"},
        {"name": "__metadata$partition", "dataType": "INT"}],
        "metricFieldSpecs": [
        {"name": "__metadata$offset", "dataType": "LONG"},
        {"name": "__metadata$recordTimestamp", "dataType": "LONG"}]});
    t.post_ok("/schemas", schema("meta_events", extra));
    let mut config = table("meta_events", &kafka.address, JSON_DECODER, &[]);
    config["ingestionConfig"]["streamIngestionConfig"]["streamConfigMaps"][0]["stream.kafka.metadata.populate"] =
        json!("true");
    t.post_ok("/tables", config);
    let before = chrono_ms();
    for partition in 0..2 {
        let messages: Vec<Message> = (0..30)
            .map(|i| Message {
                key: Some(format!("key-{i}").into_bytes()),
                value: json!({"id": i, "kind": kind(i), "ts": ts(i)})
                    .to_string()
                    .into_bytes(),
                headers: vec![("source".into(), vec![0xca, 0xfe, partition as u8])],
            })
            .collect();
        kafka.produce_messages("meta_events", partition, &messages);
    }
    t.wait_for("meta_events", 60, 2 * sum(0..30), Duration::from_secs(60));
    let row = first_row(
        &t,
        "SELECT sum(\"__metadata$offset\"), sum(\"__metadata$partition\"), \
         min(\"__metadata$recordTimestamp\"), count(DISTINCT \"__header$source\") \
         FROM meta_events WHERE \"__key\" = 'key-7'",
    );
    // Key 7 is offset 7 of each partition.
    assert_eq!(&row[..2], &[json!(14.0), json!(1.0)]);
    let stamped = row[2].as_f64().unwrap() as i64;
    assert!(
        (before - 60_000..chrono_ms() + 60_000).contains(&stamped),
        "{stamped}"
    );
    assert_eq!(row[3], json!(2));
    let row = first_row(
        &t,
        "SELECT \"__header$source\" FROM meta_events WHERE \"__metadata$partition\" = 1 LIMIT 1",
    );
    assert_eq!(row, vec![json!("cafe01")]);
}

fn chrono_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// A table keyed by `kind`, with upsert or dedup `keys` (`"upsertConfig"` or `"dedupConfig"`).
fn keyed_table(t: &Tessera, kafka: &Kafka, name: &str, keys: (&str, Value), extra: Value) {
    kafka.create_topic(name, 1);
    t.post_ok(
        "/schemas",
        schema(name, {
            let mut e = extra;
            e["primaryKeyColumns"] = json!(["kind"]);
            e
        }),
    );
    let mut config = table(name, &kafka.address, JSON_DECODER, &[]);
    config["routing"] = json!({"instanceSelectorType": "strictReplicaGroup"});
    config[keys.0] = keys.1;
    t.post_ok("/tables", config);
}

/// Waits until `SELECT count(*), sum(id)` (with `prefix`) answers `want`.
fn wait_answer(t: &Tessera, table: &str, prefix: &str, want: (i64, i64)) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last = vec![];
    while Instant::now() < deadline {
        last = first_row(t, &format!("{prefix}SELECT count(*), sum(id) FROM {table}"));
        if last.first().and_then(Value::as_i64) == Some(want.0)
            && last.get(1).and_then(Value::as_f64) == Some(want.1 as f64)
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let all = first_row(
        t,
        &format!("SET skipUpsert=true; SELECT count(*), sum(id) FROM {table}"),
    );
    panic!(
        "{table}: expected {want:?}, last saw {last:?} (all rows: {all:?})\n{}",
        t.log_tail()
    );
}

/// Dedup: each key's first row stays and later rows of the key are dropped — across commits,
/// in the consuming segment, and after a kill -9 (the committed segments' keys are read back,
/// the consuming segment is consumed again without doubling).
#[test]
fn dedup_keeps_each_keys_first_row_across_commits_and_kill_9() {
    let Some(kafka) = Kafka::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tessera::start(dir.path());
    keyed_table(
        &t,
        &kafka,
        "dedup_events",
        (
            "dedupConfig",
            json!({"dedupEnabled": true, "hashFunction": "NONE"}),
        ),
        json!({}),
    );
    // Key k<i % 30>: the first row of each key is ids 0..30.
    let row = |i: i64| json!({"id": i, "kind": format!("k{}", i % 30), "ts": ts(i)});
    kafka.produce("dedup_events", 0, &(0..100).map(row).collect::<Vec<_>>());
    wait_answer(&t, "dedup_events", "", (30, sum(0..30)));
    wait_answer(
        &t,
        "dedup_events",
        "SET useMultistageEngine=true; ",
        (30, sum(0..30)),
    );
    // 100 messages at 40 rows a segment: the dropped rows do not count toward it.
    kafka.produce("dedup_events", 0, &(100..150).map(row).collect::<Vec<_>>());
    let with_new = |to: i64| json!({"id": to, "kind": format!("n{to}"), "ts": ts(to)});
    kafka.produce(
        "dedup_events",
        0,
        &(1000..1010).map(with_new).collect::<Vec<_>>(),
    );
    wait_answer(&t, "dedup_events", "", (40, sum(0..30) + sum(1000..1010)));
    t.kill_9();
    t.restart();
    kafka.produce("dedup_events", 0, &(150..160).map(row).collect::<Vec<_>>());
    kafka.produce("dedup_events", 0, &[with_new(2000)]);
    wait_answer(
        &t,
        "dedup_events",
        "",
        (41, sum(0..30) + sum(1000..1010) + 2000),
    );
}

/// Upsert with `deleteRecordColumn` and `outOfOrderRecordColumn`: a delete hides its key until
/// a later row brings it back; a late row is kept but marked, never shown; across a commit and
/// a kill -9. A second table drops out-of-order rows (`dropOutOfOrderRecord`).
#[test]
fn upsert_deletes_and_out_of_order_rows() {
    let Some(kafka) = Kafka::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tessera::start(dir.path());
    let flags = json!({"dimensionFieldSpecs": [
        {"name": "deleted", "dataType": "BOOLEAN"}, {"name": "late", "dataType": "BOOLEAN"}]});
    keyed_table(
        &t,
        &kafka,
        "upserts",
        (
            "upsertConfig",
            json!({"mode": "FULL", "deleteRecordColumn": "deleted",
                   "outOfOrderRecordColumn": "late"}),
        ),
        flags.clone(),
    );
    keyed_table(
        &t,
        &kafka,
        "upserts_drop",
        (
            "upsertConfig",
            json!({"mode": "FULL", "deleteRecordColumn": "deleted",
                   "dropOutOfOrderRecord": true}),
        ),
        flags,
    );
    // 20 keys; row i (time i) of key k<i % 20>: the latest of each is ids 80..100.
    let row = |i: i64, time: i64, deleted: bool| json!({"id": i, "kind": format!("k{}", i % 20), "ts": ts(time), "deleted": deleted});
    let mut rows: Vec<Value> = (0..100).map(|i| row(i, i, false)).collect();
    // Delete keys k0..k4 (ids 100..105 at times 100..105), then a late row of k5 (time 0).
    rows.extend((100..105).map(|i| row(i, i, true)));
    rows.push(row(205, 0, false));
    for table in ["upserts", "upserts_drop"] {
        kafka.produce(table, 0, &rows);
    }
    let live = sum(85..100);
    for table in ["upserts", "upserts_drop"] {
        wait_answer(&t, table, "", (15, live));
        wait_answer(&t, table, "SET useMultistageEngine=true; ", (15, live));
    }
    // Every row indexed, the late one marked (and only it); the dropping table never indexed it.
    wait_answer(
        &t,
        "upserts",
        "SET skipUpsert=true; ",
        (106, sum(0..105) + 205),
    );
    let marked = first_row(
        &t,
        "SET skipUpsert=true; SELECT count(*), sum(id) FROM upserts WHERE late = true",
    );
    assert_eq!(marked, vec![json!(1), json!(205.0)]);
    wait_answer(
        &t,
        "upserts_drop",
        "SET skipUpsert=true; ",
        (105, sum(0..105)),
    );
    // k0 comes back with a later row; the others stay deleted, through a kill -9.
    kafka.produce("upserts", 0, &[row(300, 300, false)]);
    wait_answer(&t, "upserts", "", (16, live + 300));
    t.kill_9();
    t.restart();
    wait_answer(&t, "upserts", "", (16, live + 300));
    // Delete k5 (latest: id 85); a late row of deleted k2 does not bring it back.
    kafka.produce("upserts", 0, &[row(305, 305, true), row(302, 1, false)]);
    wait_answer(&t, "upserts", "", (15, live + 300 - 85));
}

/// The valid docs of every valid-doc snapshot under `dir`, by segment name.
fn snapshot_sizes(dir: &std::path::Path) -> Vec<u64> {
    fn walk(dir: &std::path::Path, out: &mut Vec<(String, u64)>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = e.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path
                .file_name()
                .is_some_and(|n| n == "validdocids.bitmap.snapshot")
            {
                let docs = std::fs::read(&path)
                    .ok()
                    .and_then(|b| roaring::RoaringBitmap::deserialize_from(b.as_slice()).ok())
                    .map_or(u64::MAX, |b| b.len());
                let segment = path.parent().unwrap().file_name().unwrap();
                out.push((segment.to_string_lossy().into_owned(), docs));
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, &mut found);
    found.sort();
    found.into_iter().map(|(_, docs)| docs).collect()
}

/// `enableSnapshot`: after each commit the stored segments' valid docs are written beside them;
/// a restart reads each segment's keys from those docs only (every segment but the newest holds
/// none valid here) and answers exactly as before, and later rows still replace the right ones.
#[test]
fn upsert_snapshots_spare_a_restart_the_rescan() {
    let Some(kafka) = Kafka::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tessera::start(dir.path());
    keyed_table(
        &t,
        &kafka,
        "snapshots",
        (
            "upsertConfig",
            json!({"mode": "FULL", "enableSnapshot": true}),
        ),
        json!({}),
    );
    // Ten keys updated twenty times each: 200 rows, five committed segments of 40; the
    // latest row of every key is in the last one.
    let row = |i: i64| json!({"id": i, "kind": format!("k{}", i % 10), "ts": ts(i)});
    kafka.produce("snapshots", 0, &(0..200).map(row).collect::<Vec<_>>());
    wait_answer(&t, "snapshots", "", (10, sum(190..200)));
    let deadline = Instant::now() + Duration::from_secs(60);
    while t
        .segments("snapshots")
        .iter()
        .filter(|s| s["segment.realtime.status"] == "DONE")
        .count()
        < 5
    {
        assert!(Instant::now() < deadline, "{:?}", t.segments("snapshots"));
        std::thread::sleep(Duration::from_millis(100));
    }
    // The server writes the snapshots after it installs the last commit, which the controller
    // may report done before: wait until they say what the restart should read.
    let deadline = Instant::now() + Duration::from_secs(60);
    while snapshot_sizes(dir.path()) != [0, 0, 0, 0, 10] {
        assert!(
            Instant::now() < deadline,
            "snapshots: {:?}",
            snapshot_sizes(dir.path())
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    t.kill_9();
    t.restart();
    wait_answer(&t, "snapshots", "", (10, sum(190..200)));
    let logs: String = std::fs::read_dir(dir.path().join("logs"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    let empty = logs
        .matches("read 0 of 40 docs from its valid-doc snapshot")
        .count();
    assert!(
        empty >= 4 && logs.contains("read 10 of 40 docs from its valid-doc snapshot"),
        "{empty} empty snapshots read:\n{logs}"
    );
    // A later row of k3 replaces 193; an older one of k4 does not replace 194.
    kafka.produce(
        "snapshots",
        0,
        &[row(203), json!({"id": 500, "kind": "k4", "ts": ts(1)})],
    );
    wait_answer(&t, "snapshots", "", (10, sum(190..200) - 193 + 203));
}
