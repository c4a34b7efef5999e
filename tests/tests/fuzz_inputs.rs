//! Fuzzing of the input surfaces beyond SQL and admin JSON, against a real in-process cluster:
//! segment uploads (bit flips, truncations and junk inside a valid `tar.gz` segment archive),
//! ingest files (CSV and JSON lines with mutated bytes, truncated lines, junk values) and query
//! options (random keys and values, in `queryOptions` and as `SET`).
//!
//! Every answer must be an HTTP status with a Pinot-shaped body (never a 5xx, a dropped
//! connection or a hang), a rejected upload or ingest must leave the table's segments as they
//! were, and after all of it the table still answers its known count. Seeded;
//! `TESSERA_FUZZ_INPUTS` sets the count per surface.

mod support;

use api::cluster::{self, StartOptions};
use api::common::archive;
use api::http::multipart;
use segments::types::{Schema, Value as Cell};
use segments::{BuildConfig, build_segment_from_rows};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use support::{Rng, env_or};

const DEFAULT_COUNT: usize = 300;
const ROWS: i32 = 50;

fn schema() -> Value {
    json!({
        "schemaName": "fi",
        "dimensionFieldSpecs": [{"name": "name", "dataType": "STRING"},
            {"name": "tags", "dataType": "STRING", "singleValueField": false}],
        "metricFieldSpecs": [{"name": "n", "dataType": "LONG"}, {"name": "x", "dataType": "DOUBLE"}]
    })
}

fn table() -> Value {
    json!({"tableName": "fi", "tableType": "OFFLINE", "segmentsConfig": {"replication": "1"},
        "tenants": {}, "tableIndexConfig": {"invertedIndexColumns": ["name"]}})
}

fn archive_of(dir: &std::path::Path, name: &str) -> Vec<u8> {
    let schema = Schema::from_json(&schema().to_string()).unwrap();
    let config = BuildConfig::from_table_config_json(&table(), &schema, Some(name)).unwrap();
    let rows = (0..ROWS).map(|i| {
        Ok(vec![
            Cell::String(format!("p{}", i % 7)),
            Cell::Array(vec![Cell::String(format!("t{}", i % 3))]),
            Cell::Long(i64::from(i)),
            Cell::Double(f64::from(i) / 2.0),
        ])
    });
    build_segment_from_rows(&schema, &config, rows, dir).unwrap();
    archive::pack(&dir.join(name)).unwrap()
}

async fn send(method: &str, url: &str, body: Vec<u8>, ct: &str) -> (u16, String) {
    let client = api::http::http_client();
    let req = match method {
        "GET" => client.get(url),
        _ => client.post(url),
    };
    let mut res = match req.body(body).content_type(ct).await {
        Ok(r) => r,
        Err(e) => return (0, format!("no answer: {e}")),
    };
    let text = res.body_string().await.unwrap_or_default();
    (res.status().into(), text)
}

/// Records what is wrong with one answer: slow, a server error, or not Pinot's shape.
fn check(
    failures: &mut Vec<String>,
    (i, what): (usize, &str),
    status: u16,
    text: &str,
    took: Duration,
) {
    if took > Duration::from_secs(5) {
        failures.push(format!("#{i} {what}: took {took:?}"));
    }
    if status == 0 || status >= 500 {
        failures.push(format!("#{i} {what}: {status} {text}"));
    } else if !(200..300).contains(&status) && !pinot_shaped(status, text) {
        failures.push(format!("#{i} {what}: not Pinot-shaped: {status} {text}"));
    }
}

fn pinot_shaped(status: u16, body: &str) -> bool {
    serde_json::from_str::<Value>(body).is_ok_and(|j| j["error"].is_string() && j["code"] == status)
}

fn flip(rng: &mut Rng, bytes: &mut Vec<u8>) {
    match rng.below(4) {
        0 if !bytes.is_empty() => {
            let at = rng.below(bytes.len());
            bytes[at] ^= 1 << rng.below(8);
        }
        1 => {
            let keep = rng.below(bytes.len() + 1);
            bytes.truncate(keep);
        }
        2 if !bytes.is_empty() => {
            let at = rng.below(bytes.len());
            let junk: Vec<u8> = (0..1 + rng.below(16)).map(|_| rng.next() as u8).collect();
            bytes.splice(at..at, junk);
        }
        _ if !bytes.is_empty() => {
            let at = rng.below(bytes.len());
            let end = (at + 1 + rng.below(64)).min(bytes.len());
            bytes.drain(at..end);
        }
        _ => bytes.push(0),
    }
}

/// A CSV or JSON-lines file of the table's columns, some of it wrong.
fn ingest_file(rng: &mut Rng) -> (bool, Vec<u8>) {
    let json = rng.below(2) == 0;
    let junk = [
        "",
        "abc",
        "-1",
        "1e400",
        "NaN",
        "\"",
        "\\",
        "null",
        "[",
        "{}",
        "😀",
        "9223372036854775808",
    ];
    let mut text = if json {
        String::new()
    } else {
        "name,tags,n,x\n".to_string()
    };
    for i in 0..1 + rng.below(20) {
        let mut cells = [
            format!("q{i}"),
            format!("t{}", i % 3),
            i.to_string(),
            format!("{i}.5"),
        ];
        if rng.below(3) == 0 {
            let c = rng.below(cells.len());
            cells[c] = rng.pick(&junk).to_string();
        }
        if json {
            text.push_str(&format!(
                "{{\"name\": \"{}\", \"tags\": [\"{}\"], \"n\": {}, \"x\": {}}}\n",
                cells[0], cells[1], cells[2], cells[3]
            ));
        } else {
            text.push_str(&cells.join(","));
            text.push('\n');
        }
    }
    let mut bytes = text.into_bytes();
    for _ in 0..rng.below(3) {
        flip(rng, &mut bytes);
    }
    (json, bytes)
}

async fn segments(ctl: &str) -> String {
    send(
        "GET",
        &format!("{ctl}/segments/fi"),
        vec![],
        "application/json",
    )
    .await
    .1
}

async fn count(broker: &str) -> Value {
    let (_, text) = send(
        "POST",
        &format!("{broker}/query/sql"),
        json!({"sql": "SELECT COUNT(*) FROM fi"})
            .to_string()
            .into_bytes(),
        "application/json",
    )
    .await;
    serde_json::from_str::<Value>(&text).unwrap_or_default()["resultTable"]["rows"].clone()
}

#[async_std::test]
async fn uploads_ingest_files_and_options_fail_cleanly() {
    let count_per_surface: usize = env_or("TESSERA_FUZZ_INPUTS", DEFAULT_COUNT);
    let dir = tempfile::tempdir().unwrap();
    let mut opts = StartOptions::ephemeral(dir.path().join("cluster"));
    opts.logging = Some(api::logging::init_for_tests().unwrap());
    let c = cluster::start(opts).await.unwrap();
    let (ctl, broker) = (
        c.controller_url.clone().unwrap(),
        c.broker_url.clone().unwrap(),
    );
    let json_ct = "application/json";
    assert_eq!(
        send(
            "POST",
            &format!("{ctl}/schemas"),
            schema().to_string().into_bytes(),
            json_ct
        )
        .await
        .0,
        200
    );
    assert_eq!(
        send(
            "POST",
            &format!("{ctl}/tables"),
            table().to_string().into_bytes(),
            json_ct
        )
        .await
        .0,
        200
    );
    let good = archive_of(&dir.path().join("built"), "fi_0");
    let (ct, body) = multipart::encode_file("fi_0", "fi_0.tar.gz", &good);
    let (s, b) = send("POST", &format!("{ctl}/segments?tableName=fi"), body, &ct).await;
    assert_eq!(s, 200, "{b}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while count(&broker).await != json!([[ROWS]]) {
        assert!(Instant::now() < deadline, "the segment never answered");
        async_std::task::sleep(Duration::from_millis(50)).await;
    }

    let mut rng = Rng(0x1A9_E57);
    let mut failures = Vec::new();
    let mut tally = [[0usize; 2]; 3];

    // 1. Damaged segment archives under a new name: refused (the table keeps its one segment) or,
    //    when the damage missed everything that matters, accepted and then removed again.
    for i in 0..count_per_surface {
        let before = segments(&ctl).await;
        let mut bytes = good.clone();
        for _ in 0..1 + rng.below(3) {
            flip(&mut rng, &mut bytes);
        }
        let (ct, body) = multipart::encode_file("fi_9", "fi_9.tar.gz", &bytes);
        let sent = Instant::now();
        let (s, text) = send("POST", &format!("{ctl}/segments?tableName=fi"), body, &ct).await;
        check(&mut failures, (i, "upload"), s, &text, sent.elapsed());
        if (200..300).contains(&s) {
            tally[0][0] += 1;
            let client = api::http::http_client();
            let _ = client.delete(format!("{ctl}/segments/fi/fi_9")).await;
        } else {
            tally[0][1] += 1;
            if segments(&ctl).await != before {
                failures.push(format!(
                    "#{i} upload: rejected with {s} but the segments changed"
                ));
            }
        }
    }

    // 2. Ingest files with wrong values and damaged bytes.
    for i in 0..count_per_surface {
        let before = segments(&ctl).await;
        let (json_lines, bytes) = ingest_file(&mut rng);
        let format = if json_lines { "json" } else { "csv" };
        let (ct, body) = multipart::encode_file("file", &format!("rows.{format}"), &bytes);
        let url = format!(
            "{ctl}/ingestFromFile?tableNameWithType=fi_OFFLINE&batchConfigMapStr=%7B%22inputFormat%22%3A%22{format}%22%2C%22segmentNameGenerator.configs.segment.name.postfix%22%3A%22z%22%7D"
        );
        let sent = Instant::now();
        let (s, text) = send("POST", &url, body, &ct).await;
        check(&mut failures, (i, "ingest"), s, &text, sent.elapsed());
        if (200..300).contains(&s) {
            tally[1][0] += 1;
            let client = api::http::http_client();
            let _ = client.delete(format!("{ctl}/segments/fi/fi_z")).await;
        } else {
            tally[1][1] += 1;
            if segments(&ctl).await != before {
                failures.push(format!(
                    "#{i} ingest: rejected with {s} but the segments changed"
                ));
            }
        }
    }

    // 3. Query options: known keys with bad values, unknown keys, broken syntax.
    let keys = [
        "timeoutMs",
        "enableNullHandling",
        "useMultistageEngine",
        "numGroupsLimit",
        "skipIndexes",
        "maxRowsInJoin",
        "joinOverflowMode",
        "maxExecutionThreads",
        "trace",
        "minSegmentGroupTrimSize",
        "groupTrimThreshold",
        "skipUpsert",
        "useStarTree",
        "maxRowsInWindow",
        "windowOverflowMode",
        "zz",
    ];
    let values = [
        "",
        "0",
        "-1",
        "1",
        "true",
        "FALSE",
        "abc",
        "99999999999999999999",
        "1.5",
        "BREAK",
        "THROW",
        "inverted",
        "'x'",
        ";",
        "=",
        "😀",
    ];
    for i in 0..count_per_surface {
        let mut pairs = Vec::new();
        for _ in 0..1 + rng.below(3) {
            pairs.push(format!("{}={}", rng.pick(&keys), rng.pick(&values)));
        }
        let options = pairs.join(";");
        let sql = if rng.below(2) == 0 {
            "SELECT name, COUNT(*) FROM fi GROUP BY name ORDER BY name".to_string()
        } else {
            format!("SET {}; SELECT COUNT(*) FROM fi", pairs.join("; SET "))
        };
        let body = json!({"sql": sql, "queryOptions": options}).to_string();
        let sent = Instant::now();
        let (s, text) = send(
            "POST",
            &format!("{broker}/query/sql"),
            body.into_bytes(),
            json_ct,
        )
        .await;
        check(
            &mut failures,
            (i, &format!("options {options}")),
            s,
            &text,
            sent.elapsed(),
        );
        let j: Value = serde_json::from_str(&text).unwrap_or_default();
        let answered = j["exceptions"].as_array().is_some_and(Vec::is_empty);
        tally[2][usize::from(!answered)] += 1;
        if !answered && !j["exceptions"][0]["errorCode"].is_i64() && !pinot_shaped(s, &text) {
            failures.push(format!("#{i} options {options}: no error code: {text}"));
        }
    }

    // The table still answers exactly its one segment's rows.
    assert_eq!(count(&broker).await, json!([[ROWS]]));
    println!(
        "fuzz_inputs: {count_per_surface} per surface: uploads {} accepted / {} refused, ingest files {} / {}, options {} answered / {} refused; {} failures",
        tally[0][0],
        tally[0][1],
        tally[1][0],
        tally[1][1],
        tally[2][0],
        tally[2][1],
        failures.len()
    );
    c.stop().await;
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
