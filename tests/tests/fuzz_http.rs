//! Admin API fuzzing against a real in-process cluster: JSON mutations of valid schemas and
//! table configs posted to the controller, and malformed HTTP requests (bad methods, paths,
//! headers and bodies) sent to every role.
//!
//! Every answer must be an HTTP status with a Pinot-shaped body (`{"code","error"}` on
//! controller and broker, `{"message","status"}` on servers) — never a 5xx for a bad input, never
//! a dropped connection — and a rejected write must leave the cluster as it was (the schema and
//! table lists and the one existing table's config are compared after every rejection).
//! Seeded; `TESSERA_FUZZ_HTTP` sets the count.

mod support;

use support::{Rng, env_or};

use api::cluster::{self, StartOptions};
use serde_json::{Value, json};

const DEFAULT_COUNT: usize = 2_000;

fn schema() -> Value {
    json!({
        "schemaName": "fz",
        "dimensionFieldSpecs": [{"name": "a", "dataType": "STRING"}, {"name": "tags", "dataType": "STRING", "singleValueField": false}],
        "metricFieldSpecs": [{"name": "m", "dataType": "LONG"}],
        "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"}]
    })
}

fn table() -> Value {
    json!({
        "tableName": "fz",
        "tableType": "OFFLINE",
        "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
        "tenants": {"broker": "DefaultTenant", "server": "DefaultTenant"},
        "tableIndexConfig": {"loadMode": "MMAP", "invertedIndexColumns": ["a"], "rangeIndexColumns": ["m"],
            "starTreeIndexConfigs": [{"dimensionsSplitOrder": ["a"], "functionColumnPairs": ["SUM__m"]}]},
        "fieldConfigList": [{"name": "ts", "encodingType": "DICTIONARY", "indexTypes": ["TIMESTAMP"],
            "timestampConfig": {"granularities": ["DAY"]}}],
        "metadata": {"customConfigs": {}}
    })
}

/// A random JSON edit: replace, drop or add a value anywhere in the document.
fn mutate(rng: &mut Rng, doc: &mut Value) {
    let mut paths: Vec<Vec<String>> = Vec::new();
    fn walk(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        out.push(at.clone());
        match v {
            Value::Object(m) => {
                for (k, c) in m {
                    at.push(k.clone());
                    walk(c, at, out);
                    at.pop();
                }
            }
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    at.push(i.to_string());
                    walk(c, at, out);
                    at.pop();
                }
            }
            _ => {}
        }
    }
    walk(doc, &mut Vec::new(), &mut paths);
    let path = paths[rng.below(paths.len())].clone();
    let mut slot = &mut *doc;
    for p in &path {
        slot = match slot {
            Value::Object(m) => m.get_mut(p).expect("path"),
            Value::Array(a) => &mut a[p.parse::<usize>().expect("index")],
            _ => unreachable!("paths only go through containers"),
        };
    }
    let junk = [
        json!(null),
        json!(""),
        json!(-1),
        json!(1e300),
        json!(u64::MAX),
        json!("NOT_A_TYPE"),
        json!([]),
        json!({}),
        json!("a".repeat(5000)),
        json!(true),
        json!("../../etc"),
        json!("😀\u{0}"),
    ];
    match (rng.below(3), &mut *slot) {
        (0, Value::Object(m)) if !m.is_empty() => {
            let k = m.keys().nth(rng.below(m.len())).cloned().expect("key");
            m.remove(&k);
        }
        (1, Value::Object(m)) => {
            m.insert("zz".into(), junk[rng.below(junk.len())].clone());
        }
        (1, Value::Array(a)) => a.push(junk[rng.below(junk.len())].clone()),
        _ => *slot = junk[rng.below(junk.len())].clone(),
    }
}

async fn send(method: &str, url: &str, body: Vec<u8>, headers: &[(&str, &str)]) -> (u16, String) {
    let client = api::http::http_client();
    let mut req = match method {
        "GET" => client.get(url),
        "POST" => client.post(url),
        "PUT" => client.put(url),
        "DELETE" => client.delete(url),
        "PATCH" => client.patch(url),
        _ => client.head(url),
    };
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut res = match req.body(body).await {
        Ok(r) => r,
        Err(e) => return (0, format!("no answer: {e}")),
    };
    let text = res.body_string().await.unwrap_or_default();
    (res.status().into(), text)
}

/// What a rejected write must not change.
async fn state(ctl: &str) -> (String, String, String) {
    (
        send("GET", &format!("{ctl}/schemas"), vec![], &[]).await.1,
        send("GET", &format!("{ctl}/tables"), vec![], &[]).await.1,
        send("GET", &format!("{ctl}/tables/fz"), vec![], &[])
            .await
            .1,
    )
}

fn pinot_shaped(status: u16, body: &str, server: bool) -> bool {
    let Ok(j) = serde_json::from_str::<Value>(body) else {
        return false;
    };
    if server {
        j["message"].is_string() && j["status"] == status
    } else {
        j["error"].is_string() && j["code"] == status
    }
}

#[async_std::test]
async fn admin_api_rejects_bad_input_cleanly_and_changes_nothing() {
    let count: usize = env_or("TESSERA_FUZZ_HTTP", DEFAULT_COUNT);
    let dir = tempfile::tempdir().unwrap();
    let mut opts = StartOptions::ephemeral(dir.path().to_path_buf());
    opts.logging = Some(api::logging::init_for_tests().unwrap());
    let c = cluster::start(opts).await.unwrap();
    let (ctl, broker, server) = (
        c.controller_url.clone().unwrap(),
        c.broker_url.clone().unwrap(),
        c.server_url.clone().unwrap(),
    );
    let ok = |s: u16| (200..300).contains(&s);
    let created = send(
        "POST",
        &format!("{ctl}/schemas"),
        schema().to_string().into_bytes(),
        &[],
    )
    .await;
    assert!(ok(created.0), "{created:?}");
    let created = send(
        "POST",
        &format!("{ctl}/tables"),
        table().to_string().into_bytes(),
        &[],
    )
    .await;
    assert!(ok(created.0), "{created:?}");
    let mut rng = Rng(0xA71_F022);
    let mut failures = Vec::new();
    let (mut accepted, mut rejected) = (0usize, 0usize);
    let paths = [
        "/schemas",
        "/tables",
        "/tables/fz",
        "/table/fz",
        "/segments/fz",
        "/segments?tableName=fz",
        "/loggers/root?level=BOGUS",
        "/loggers/download?filePath=../../../etc/passwd",
        "/instances/nope/updateTags?tags=",
        "/tenants",
        "/ingestFromFile?tableNameWithType=fz_OFFLINE",
        "/tables/fz/pauseConsumption",
        "/sql",
        "/%FF%FE",
        "/tables/..%2F..%2F",
        "/query/sql",
        "/tessera/routing/fz",
        "/tessera/changed",
        "/tessera/query",
    ];
    for i in 0..count {
        let before = state(&ctl).await;
        let base = match rng.below(4) {
            0 | 1 => ctl.as_str(),
            2 => broker.as_str(),
            _ => server.as_str(),
        };
        let (method, url, body, what) = match rng.below(4) {
            0 => {
                let mut s = schema();
                for _ in 0..1 + rng.below(3) {
                    mutate(&mut rng, &mut s);
                }
                let (m, p) = if rng.below(2) == 0 {
                    ("POST", "/schemas?override=true")
                } else {
                    ("PUT", "/schemas/fz")
                };
                (m, format!("{ctl}{p}"), s.to_string().into_bytes(), "schema")
            }
            1 => {
                let mut t = table();
                for _ in 0..1 + rng.below(3) {
                    mutate(&mut rng, &mut t);
                }
                let (m, p) = match rng.below(3) {
                    0 => ("POST", "/tables"),
                    1 => ("PUT", "/table/fz"),
                    _ => ("PUT", "/tables/fz"),
                };
                (m, format!("{ctl}{p}"), t.to_string().into_bytes(), "table")
            }
            _ => {
                // (No HEAD: its answer has a length but no body, which the test client waits for.)
                let methods = ["GET", "POST", "PUT", "DELETE", "PATCH"];
                let m = methods[rng.below(methods.len())];
                let p = paths[rng.below(paths.len())];
                let body: Vec<u8> = match rng.below(4) {
                    0 => vec![],
                    1 => b"{not json".to_vec(),
                    2 => (0..rng.below(512)).map(|_| rng.next() as u8).collect(),
                    _ => json!({"sql": "SELECT", "queryOptions": "timeoutMs=abc"})
                        .to_string()
                        .into_bytes(),
                };
                // Deletes of the one table would change state legitimately; keep them to paths
                // that cannot name it.
                if m == "DELETE"
                    && (p.starts_with("/tables/fz")
                        || p.starts_with("/segments/fz")
                        || p == "/table/fz")
                {
                    continue;
                }
                (m, format!("{base}{p}"), body, "request")
            }
        };
        let headers: &[(&str, &str)] = match rng.below(3) {
            0 => &[("Content-Type", "application/json")],
            1 => &[("Content-Type", "multipart/form-data; boundary=")],
            _ => &[("Accept", "*/*;q=x"), ("X-Junk", ";;==,, ")],
        };
        let sent = std::time::Instant::now();
        let (status, text) = send(method, &url, body, headers).await;
        if sent.elapsed() > std::time::Duration::from_secs(5) {
            failures.push(format!(
                "#{i} {method} {url} ({what}): took {:?}",
                sent.elapsed()
            ));
        }
        let is_server = url.starts_with(&server);
        if ok(status) {
            accepted += 1;
            if what != "request" {
                // An accepted edit is a legitimate change: put the original back.
                let _ = send(
                    "PUT",
                    &format!("{ctl}/schemas/fz"),
                    schema().to_string().into_bytes(),
                    &[],
                )
                .await;
                let _ = send(
                    "PUT",
                    &format!("{ctl}/tables/fz"),
                    table().to_string().into_bytes(),
                    &[],
                )
                .await;
            }
            continue;
        }
        rejected += 1;
        if status >= 500 || status == 0 {
            failures.push(format!("#{i} {method} {url} ({what}): {status} {text}"));
        } else if method != "HEAD"
            && status != 404
            && status != 405
            && !pinot_shaped(status, &text, is_server)
        {
            failures.push(format!(
                "#{i} {method} {url} ({what}): not Pinot-shaped: {status} {text}"
            ));
        }
        if method != "GET" && state(&ctl).await != before {
            failures.push(format!(
                "#{i} {method} {url} ({what}): rejected with {status} but changed the cluster"
            ));
        }
    }
    println!(
        "fuzz_http: {count} requests: {accepted} accepted, {rejected} rejected, {} failures",
        failures.len()
    );
    c.stop().await;
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures
            .iter()
            .take(25)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
