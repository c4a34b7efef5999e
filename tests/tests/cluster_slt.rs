//! The multi-stage (v2) `.slt` files (`tests/slt/v2_*.slt`) through the broker over HTTP, on a
//! one-server cluster and on a two-server cluster (the second server a separate role joined to
//! the same controller, so segments spread over both and stage traffic crosses HTTP). The same
//! files run in-process in `slt.rs`; here every exchange, mailbox and placement is the real one.

mod support;

use api::cluster::{self, Cluster, Roles, StartOptions};
use api::common::archive;
use api::http::multipart;
use segments::ImmutableSegment;
use serde_json::{Value, json};
use sqllogictest::{DBOutput, DefaultColumnType, Runner};
use std::path::Path;
use std::time::{Duration, Instant};
use support::answers::{answer, assert_none_differ, rows, same_rows, show};
use support::{BuiltTable, Rng, Variant, build_slt_tables, queries, render, slt_dir};

const FILES: [&str; 6] = [
    "v2_aggregate",
    "v2_join",
    "v2_subquery",
    "v2_setop",
    "v2_window",
    "v2_random",
];

async fn call(method: &str, url: &str, body: Option<Vec<u8>>, ct: Option<&str>) -> (u16, Value) {
    let client = api::http::http_client();
    let mut req = match method {
        "GET" => client.get(url),
        _ => client.post(url),
    };
    if let Some(b) = body {
        req = req.body(b).content_type(ct.unwrap_or("application/json"));
    }
    let mut res = req.await.expect("request");
    let text = res.body_string().await.expect("body");
    (
        res.status().into(),
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn test_logging() -> api::logging::LoggingHandle {
    static LOGGING: std::sync::OnceLock<api::logging::LoggingHandle> = std::sync::OnceLock::new();
    LOGGING
        .get_or_init(|| api::logging::init_for_tests().expect("logging"))
        .clone()
}

async fn start(dir: &Path, roles: &str, controller: Option<&str>) -> Cluster {
    let mut opts = StartOptions::ephemeral(dir.to_path_buf());
    opts.logging = Some(test_logging());
    opts.roles = Roles::parse(roles).expect("roles");
    opts.controller_url = controller.map(str::to_string);
    cluster::start(opts).await.expect("cluster starts")
}

/// Creates every slt table and uploads its segments; returns `(table, rows)` to wait for.
async fn load(controller: &str, dir: &Path) -> Vec<(String, u64)> {
    let tables: Vec<BuiltTable> = build_slt_tables(Variant::Indexed, dir);
    let mut expected = Vec::new();
    for t in tables {
        let (s, b) = call(
            "POST",
            &format!("{controller}/schemas"),
            Some(t.schema_json.clone().into_bytes()),
            None,
        )
        .await;
        assert_eq!(s, 200, "schema {}: {b}", t.name);
        let mut config = t.config.clone();
        config["tableName"] = json!(t.name);
        let (s, b) = call(
            "POST",
            &format!("{controller}/tables"),
            Some(config.to_string().into_bytes()),
            None,
        )
        .await;
        assert_eq!(s, 200, "table {}: {b}", t.name);
        let mut rows = 0u64;
        for segment in &t.segments {
            let path = dir.join(segment);
            rows += u64::from(ImmutableSegment::open(&path).expect("opens").total_docs());
            let bytes = archive::pack(&path).expect("pack");
            let (ct, body) = multipart::encode_file(segment, &format!("{segment}.tar.gz"), &bytes);
            let (s, b) = call(
                "POST",
                &format!("{controller}/segments?tableName={}", t.name),
                Some(body),
                Some(&ct),
            )
            .await;
            assert_eq!(s, 200, "segment {segment}: {b}");
        }
        expected.push((t.name, rows));
    }
    expected
}

async fn count(broker: &str, table: &str) -> Value {
    let body = json!({"sql": format!("SELECT COUNT(*) FROM {table}")});
    let (_, b) = call(
        "POST",
        &format!("{broker}/query/sql"),
        Some(body.to_string().into_bytes()),
        None,
    )
    .await;
    b["resultTable"]["rows"][0][0].clone()
}

async fn wait_loaded(broker: &str, expected: &[(String, u64)]) {
    let deadline = Instant::now() + Duration::from_secs(30);
    for (table, rows) in expected {
        loop {
            let got = count(broker, table).await;
            if got == json!(rows) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{table} not loaded: {got} of {rows}"
            );
            async_std::task::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// A query answered with exceptions, as the runner sees it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct QueryFailed(String);

/// The broker over HTTP; every statement goes to `POST /query/sql` as the file writes it
/// (each starts with `SET useMultistageEngine=true;`).
struct Broker {
    url: String,
}

impl sqllogictest::DB for Broker {
    type Error = QueryFailed;
    type ColumnType = DefaultColumnType;

    fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, QueryFailed> {
        let body = json!({ "sql": sql }).to_string().into_bytes();
        let url = format!("{}/query/sql", self.url);
        let (status, response) = async_std::task::block_on(call("POST", &url, Some(body), None));
        if status != 200 {
            return Err(QueryFailed(format!("HTTP {status}: {response}")));
        }
        if let Some(e) = response["exceptions"].as_array().and_then(|e| e.first()) {
            return Err(QueryFailed(format!(
                "[{}] {}",
                e["errorCode"], e["message"]
            )));
        }
        let Some(rows) = response["resultTable"]["rows"].as_array() else {
            return Ok(DBOutput::StatementComplete(0));
        };
        let width = response["resultTable"]["dataSchema"]["columnNames"]
            .as_array()
            .map_or(0, Vec::len);
        Ok(DBOutput::Rows {
            types: vec![DefaultColumnType::Any; width],
            rows: rows
                .iter()
                .map(|r| {
                    r.as_array()
                        .map_or(Vec::new(), |r| r.iter().map(render).collect())
                })
                .collect(),
        })
    }

    fn engine_name(&self) -> &str {
        "tessera-cluster"
    }
}

/// Runs every v2 file against `broker` (on a blocking thread: the runner is synchronous).
async fn run_files(broker: String) {
    let failures = async_std::task::spawn_blocking(move || {
        let mut failures = Vec::new();
        for name in FILES {
            let url = broker.clone();
            let mut runner = Runner::new(move || {
                let url = url.clone();
                async move { Ok(Broker { url }) }
            });
            if let Err(e) = runner.run_file(slt_dir().join(format!("{name}.slt"))) {
                failures.push(format!("{name}: {e}"));
            }
        }
        failures
    })
    .await;
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[async_std::test]
async fn v2_slt_on_one_server() {
    let dir = tempfile::tempdir().expect("temp dir");
    let c = start(&dir.path().join("a"), "controller,broker,server", None).await;
    let (ctl, broker) = (
        c.controller_url.clone().expect("controller"),
        c.broker_url.clone().expect("broker"),
    );
    let expected = load(&ctl, &dir.path().join("segs")).await;
    wait_loaded(&broker, &expected).await;
    run_files(broker).await;
    c.stop().await;
}

#[async_std::test]
async fn v2_slt_on_two_servers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let a = start(&dir.path().join("a"), "controller,broker,server", None).await;
    let ctl = a.controller_url.clone().expect("controller");
    let broker = a.broker_url.clone().expect("broker");
    let b = start(&dir.path().join("b"), "server", Some(&ctl)).await;
    // Both servers registered before the tables, so segments spread over both.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, i) = call("GET", &format!("{ctl}/instances"), None, None).await;
        let servers = i["instances"].as_array().map_or(0, |l| {
            l.iter()
                .filter(|n| n.as_str().is_some_and(|n| n.starts_with("Server_")))
                .count()
        });
        if servers == 2 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "second server did not register: {i}"
        );
        async_std::task::sleep(Duration::from_millis(50)).await;
    }
    let expected = load(&ctl, &dir.path().join("segs")).await;
    wait_loaded(&broker, &expected).await;
    // Every table's segments are on both servers: each server hosts some of them.
    for (table, _) in &expected {
        let (_, view) = call(
            "GET",
            &format!("{ctl}/tables/{table}/externalview"),
            None,
            None,
        )
        .await;
        let mut hosts = std::collections::BTreeSet::new();
        for servers in view["OFFLINE"]
            .as_object()
            .into_iter()
            .flat_map(|m| m.values())
        {
            hosts.extend(
                servers
                    .as_object()
                    .into_iter()
                    .flat_map(|s| s.keys().cloned()),
            );
        }
        assert_eq!(
            hosts.len(),
            2,
            "{table} is not spread over both servers: {view}"
        );
    }
    run_files(broker.clone()).await;
    random_queries_answer_as_in_process(&broker).await;
    b.stop().await;
    a.stop().await;
}

/// Random queries per engine through the two-server cluster.
const RANDOM_QUERIES: usize = 150;

/// Seeded random queries ([`support::queries`]) on both engines through the broker, whose
/// segments are spread over two servers (the broker merges the servers' intermediate results
/// from the wire), answer as the same query in-process over the same segments.
async fn random_queries_answer_as_in_process(broker: &str) {
    let mut rng = Rng(0xC1A5_7E55_0001);
    let mut failures = Vec::new();
    for i in 0..RANDOM_QUERIES * 2 {
        let (sql, ordered) = queries::query(&mut rng);
        let options = [
            "enableNullHandling=true",
            "enableNullHandling=true;useMultistageEngine=true",
            "enableNullHandling=false",
            "enableNullHandling=false;useMultistageEngine=true",
        ][i % 4];
        let expected = answer(&sql, options, Variant::Indexed);
        let body = json!({ "sql": sql, "queryOptions": options })
            .to_string()
            .into_bytes();
        let (status, response) =
            call("POST", &format!("{broker}/query/sql"), Some(body), None).await;
        let got = match response["exceptions"].as_array().and_then(|e| e.first()) {
            _ if status != 200 => Err(format!("HTTP {status}: {response}")),
            Some(e) => Err(format!("[{}] {}", e["errorCode"], e["message"])),
            None => Ok(rows(&response["resultTable"])),
        };
        let agree = match (&expected, &got) {
            (Ok(x), Ok(y)) => same_rows(x, y, ordered),
            _ => false,
        };
        if !agree {
            failures.push(format!(
                "#{i} ({options}) {sql}\n    cluster: {}\n    in-process: {}",
                show(&got),
                show(&expected)
            ));
        }
    }
    assert_none_differ(&failures, RANDOM_QUERIES * 2, "queries");
}
