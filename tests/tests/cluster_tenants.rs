//! Tenants, the operator's view and tracing over HTTP: an in-process cluster plus extra
//! server/broker processes-in-miniature (each `cluster::start` with one role, joined to the
//! first controller) tagged for another tenant. Covers the tenant and tag endpoints, placement
//! and query routing by tenant (410 from a broker outside the table's broker tenant), table
//! creation on a tenant without instances, ideal state / external view / size, `traceInfo`,
//! `/metrics` on every role, the broker's request errors, and a tier move under query load.

use api::cluster::{self, Cluster, Roles, StartOptions};
use api::common::archive;
use api::http::multipart;
use segments::types::{Schema, Value as Cell};
use segments::{BuildConfig, build_segment_from_rows};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

async fn call(method: &str, url: &str, body: Option<Value>) -> (u16, Value) {
    call_raw(method, url, body.map(|b| b.to_string().into_bytes()), None).await
}

async fn call_raw(
    method: &str,
    url: &str,
    body: Option<Vec<u8>>,
    content_type: Option<&str>,
) -> (u16, Value) {
    let client = api::http::http_client();
    let mut req = match method {
        "GET" => client.get(url),
        "POST" => client.post(url),
        "PUT" => client.put(url),
        other => panic!("method {other}"),
    };
    if let Some(b) = body {
        req = req
            .body(b)
            .content_type(content_type.unwrap_or("application/json"));
    }
    let mut res = req.await.unwrap();
    let text = res.body_string().await.unwrap();
    let json = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (res.status().into(), json)
}

fn schema() -> Value {
    json!({
        "schemaName": "events",
        "dimensionFieldSpecs": [{"name": "team", "dataType": "STRING"}],
        "metricFieldSpecs": [{"name": "runs", "dataType": "INT"}],
        "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"}]
    })
}

fn table(broker: &str, server: &str) -> Value {
    json!({
        "tableName": "events",
        "tableType": "OFFLINE",
        "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
        "tenants": {"broker": broker, "server": server},
        "tableIndexConfig": {"invertedIndexColumns": ["team"]},
        "metadata": {"customConfigs": {}}
    })
}

fn test_logging() -> api::logging::LoggingHandle {
    static LOGGING: std::sync::OnceLock<api::logging::LoggingHandle> = std::sync::OnceLock::new();
    LOGGING
        .get_or_init(|| api::logging::init_for_tests().unwrap())
        .clone()
}

async fn start_all(dir: &Path) -> Cluster {
    let mut opts = StartOptions::ephemeral(dir.to_path_buf());
    opts.logging = Some(test_logging());
    // Tier moves only when a test asks (`POST /segments/{t}/relocate`), so it controls timing.
    opts.periodic.relocation = Duration::from_secs(3600);
    cluster::start(opts).await.unwrap()
}

/// One role joined to `controller`, registering with `tags`.
async fn start_role(dir: &Path, controller: &str, roles: &str, tags: &[&str]) -> Cluster {
    let mut opts = StartOptions::ephemeral(dir.to_path_buf());
    opts.logging = Some(test_logging());
    opts.roles = Roles::parse(roles).unwrap();
    opts.controller_url = Some(controller.to_string());
    opts.tags = Some(tags.iter().map(|t| t.to_string()).collect());
    cluster::start(opts).await.unwrap()
}

/// A packed `events` segment: `docs` rows with `ts` = `ts_ms`.
fn segment_archive(root: &Path, config: &Value, name: &str, docs: i32, ts_ms: i64) -> Vec<u8> {
    let schema = Schema::from_json(&schema().to_string()).unwrap();
    let build = BuildConfig::from_table_config_json(config, &schema, Some(name)).unwrap();
    let rows = (0..docs).map(|i| {
        Ok(vec![
            Cell::String(["a", "b"][i as usize % 2].into()),
            Cell::Int(i),
            Cell::Long(ts_ms + i64::from(i)),
        ])
    });
    build_segment_from_rows(&schema, &build, rows, root).unwrap();
    archive::pack(&root.join(name)).unwrap()
}

async fn upload(controller: &str, name: &str, bytes: &[u8]) {
    let (ct, body) = multipart::encode_file(name, &format!("{name}.tar.gz"), bytes);
    let (status, body) = call_raw(
        "POST",
        &format!("{controller}/segments?tableName=events"),
        Some(body),
        Some(&ct),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(30);
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        async_std::task::sleep(Duration::from_millis(50)).await;
    }
}

async fn query(broker: &str, body: Value) -> Value {
    let (status, body) = call("POST", &format!("{broker}/query/sql"), Some(body)).await;
    assert_eq!(status, 200, "{body}");
    body
}

async fn count(broker: &str) -> Value {
    query(broker, json!({"sql": "SELECT COUNT(*) FROM events"})).await
}

/// `name{labels} value` lines of a Prometheus text body, keyed by `name{labels}`.
fn parse_metrics(text: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (key, value) = line.rsplit_once(' ').expect(line);
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("bad value in {line}"));
        assert!(key.ends_with('}'), "{line}");
        out.insert(key.to_string(), value);
    }
    out
}

async fn metrics(base: &str) -> BTreeMap<String, f64> {
    let client = api::http::http_client();
    let mut res = client.get(format!("{base}/metrics")).await.unwrap();
    assert_eq!(res.status(), 200);
    assert!(
        res.content_type()
            .unwrap()
            .to_string()
            .starts_with("text/plain"),
        "{:?}",
        res.content_type()
    );
    parse_metrics(&res.body_string().await.unwrap())
}

fn metric(m: &BTreeMap<String, f64>, prefix: &str) -> f64 {
    m.iter()
        .filter(|(k, _)| k.starts_with(prefix))
        .map(|(_, v)| *v)
        .sum()
}

#[async_std::test]
async fn tenants_place_segments_route_queries_and_trace() {
    let dir = tempfile::tempdir().unwrap();
    let a = start_all(&dir.path().join("a")).await;
    let ctl = a.controller_url.clone().unwrap();
    let broker_a = a.broker_url.clone().unwrap();
    let server_a = a.server_id.clone().unwrap();
    let sb = start_role(
        &dir.path().join("b"),
        &ctl,
        "server",
        &["tenantB_OFFLINE", "tenantB_REALTIME"],
    )
    .await;
    let bb = start_role(&dir.path().join("c"), &ctl, "broker", &["tenantB_BROKER"]).await;
    let server_b = sb.server_id.clone().unwrap();
    let broker_b = bb.broker_url.clone().unwrap();
    let broker_b_id = format!("Broker_127.0.0.1_{}", broker_b.rsplit(':').next().unwrap());
    eventually("tenant B instances", || {
        let url = format!("{ctl}/tenants/tenantB");
        async move {
            let (status, body) = call("GET", &url, None).await;
            status == 200
                && body["BrokerInstances"]
                    .as_array()
                    .is_some_and(|a| !a.is_empty())
                && body["ServerInstances"]
                    .as_array()
                    .is_some_and(|a| !a.is_empty())
        }
    })
    .await;

    // Tenant endpoints.
    assert_eq!(
        call("GET", &format!("{ctl}/tenants"), None).await,
        (
            200,
            json!({"SERVER_TENANTS": ["DefaultTenant", "tenantB"], "BROKER_TENANTS": ["DefaultTenant", "tenantB"]})
        )
    );
    assert_eq!(
        call("GET", &format!("{ctl}/tenants/tenantB"), None).await,
        (
            200,
            json!({"ServerInstances": [server_b], "BrokerInstances": [broker_b_id], "tenantName": "tenantB"})
        )
    );
    assert_eq!(
        call("GET", &format!("{ctl}/tenants/nope"), None).await.0,
        404
    );
    assert_eq!(
        call("GET", &format!("{ctl}/tenants/tenantB?type=server"), None).await,
        (
            200,
            json!({"ServerInstances": [server_b], "tenantName": "tenantB"})
        )
    );
    assert_eq!(
        call("GET", &format!("{ctl}/tenants?type=BROKER"), None).await,
        (200, json!({"BROKER_TENANTS": ["DefaultTenant", "tenantB"]}))
    );
    assert_eq!(
        call("GET", &format!("{ctl}/tenants?type=minion"), None)
            .await
            .0,
        400
    );
    let (status, inst) = call("GET", &format!("{ctl}/instances/{server_a}"), None).await;
    assert_eq!(status, 200);
    assert_eq!(
        inst["tags"],
        json!(["DefaultTenant_OFFLINE", "DefaultTenant_REALTIME"])
    );
    // Pinot's InstanceConfig fields: the port as a string, unopened ports -1.
    assert!(inst["port"].is_string(), "{inst}");
    assert_eq!(
        server_a,
        format!(
            "Server_{}_{}",
            inst["hostName"].as_str().unwrap(),
            inst["port"].as_str().unwrap()
        )
    );
    assert_eq!(
        (inst["grpcPort"].clone(), inst["enabled"].clone()),
        (json!(-1), json!(true))
    );

    // A table on a tenant without instances is rejected with Pinot's message.
    assert_eq!(
        call("POST", &format!("{ctl}/schemas"), Some(schema()))
            .await
            .0,
        200
    );
    assert_eq!(
        call(
            "POST",
            &format!("{ctl}/tables"),
            Some(table("nobody", "tenantB"))
        )
        .await,
        (
            400,
            json!({"code": 400, "error": "Invalid table config for table events_OFFLINE: Failed to find instances with tag: nobody_BROKER for table: events_OFFLINE"})
        )
    );
    let (status, body) = call(
        "POST",
        &format!("{ctl}/tables"),
        Some(table("tenantB", "ghost")),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("Failed to find instances with tag: ghost_OFFLINE"),
        "{body}"
    );
    let config = table("tenantB", "tenantB");
    assert_eq!(
        call("POST", &format!("{ctl}/tables"), Some(config.clone()))
            .await
            .0,
        200
    );

    // Segments go only to the tenant's server.
    let work = tempfile::tempdir().unwrap();
    let now = api::common::clock::now_ms();
    for (name, docs) in [("events_0", 40), ("events_1", 60)] {
        upload(
            &ctl,
            name,
            &segment_archive(work.path(), &config, name, docs, now),
        )
        .await;
    }
    let (status, ideal) = call("GET", &format!("{ctl}/tables/events/idealstate"), None).await;
    assert_eq!(status, 200);
    assert_eq!(
        ideal,
        json!({"OFFLINE": {"events_0": {&server_b: "ONLINE"}, "events_1": {&server_b: "ONLINE"}}, "REALTIME": null})
    );
    eventually("external view online", || {
        let url = format!("{ctl}/tables/events_OFFLINE/externalview");
        let ideal = ideal.clone();
        async move { call("GET", &url, None).await.1 == ideal }
    })
    .await;
    assert_eq!(
        call("GET", &format!("{ctl}/tables/nope/externalview"), None)
            .await
            .0,
        404
    );

    // Size, Pinot's TableSize shape.
    let (status, size) = call("GET", &format!("{ctl}/tables/events/size"), None).await;
    assert_eq!(status, 200);
    assert_eq!(size["tableName"], "events");
    assert!(size["reportedSizeInBytes"].as_u64().unwrap() > 0, "{size}");
    assert_eq!(size["estimatedSizeInBytes"], size["reportedSizeInBytes"]);
    assert_eq!(size["realtimeSegments"], Value::Null);
    let seg = &size["offlineSegments"]["segments"]["events_0"];
    assert!(seg["reportedSizeInBytes"].as_u64().unwrap() > 0);
    assert!(seg["serverInfo"].get(&server_b).is_some(), "{size}");
    let (_, brief) = call(
        "GET",
        &format!("{ctl}/tables/events/size?verbose=false"),
        None,
    )
    .await;
    assert_eq!(brief["offlineSegments"]["segments"], json!({}));

    // Queries go through the tenant's broker; another broker answers 410.
    let body = count(&broker_b).await;
    assert_eq!(body["exceptions"], json!([]), "{body}");
    assert_eq!(body["resultTable"]["rows"], json!([[100]]));
    assert_eq!(body["traceInfo"], json!({}));
    let body = count(&broker_a).await;
    assert_eq!(body["exceptions"][0]["errorCode"], 410, "{body}");
    assert_eq!(
        body["exceptions"][0]["message"], "BrokerResourceMissingError",
        "{body}"
    );
    assert!(body.get("resultTable").is_none());

    // Tracing: per server, per segment, operators with times and rows.
    let body = query(
        &broker_b,
        json!({"sql": "SELECT SUM(runs) FROM events WHERE team = 'a'", "trace": true}),
    )
    .await;
    assert_eq!(body["exceptions"], json!([]), "{body}");
    let trace_text = body["traceInfo"][&server_b].as_str().expect("trace string");
    let trace: Value = serde_json::from_str(trace_text).unwrap();
    let segments = trace.as_array().unwrap();
    assert_eq!(segments.len(), 2, "{trace}");
    let ops = &segments[0]["events_0"];
    assert_eq!(ops[0]["FilterOperator Rows"], 20, "{trace}");
    assert_eq!(ops[1]["AggregationOperator Rows"], 20, "{trace}");
    let total: f64 = segments
        .iter()
        .flat_map(|s| s.as_object().unwrap().values())
        .flat_map(|ops| ops.as_array().unwrap())
        .flat_map(|op| op.as_object().unwrap().iter())
        .filter(|(k, _)| k.ends_with(" Time"))
        .map(|(_, v)| v.as_f64().unwrap())
        .sum();
    assert!(total > 0.0, "{trace}");

    // The broker's request errors.
    assert_eq!(
        call("GET", &format!("{broker_b}/query/sql"), None).await,
        (
            400,
            json!({"code": 400, "error": "Payload is missing the query string field 'sql'"})
        )
    );
    let (status, body) = call_raw(
        "POST",
        &format!("{broker_b}/query/sql"),
        Some(Vec::new()),
        None,
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        body["error"].as_str().unwrap().starts_with("Invalid JSON"),
        "{body}"
    );
    assert_eq!(
        call("POST", &format!("{broker_b}/query/sql"), Some(json!({}))).await,
        (
            400,
            json!({"code": 400, "error": "Payload is missing the query string field 'sql'"})
        )
    );
    let (status, body) = call(
        "GET",
        &format!("{broker_b}/query/sql?sql=SELECT%20COUNT(*)%20FROM%20events"),
        None,
    )
    .await;
    assert_eq!(
        (status, &body["resultTable"]["rows"]),
        (200, &json!([[100]]))
    );

    // /metrics on every role.
    let m = metrics(&broker_b).await;
    assert!(metric(&m, "tessera_queries_total{") >= 3.0, "{m:?}");
    assert!(metric(&m, "tessera_query_latency_seconds_count{") >= 3.0);
    assert!(
        m["tessera_http_requests_total{role=\"broker\",route=\"/query/sql\",status=\"200\"}"]
            >= 3.0,
        "{m:?}"
    );
    assert!(
        m["tessera_http_requests_total{role=\"broker\",route=\"/query/sql\",status=\"400\"}"]
            >= 2.0
    );
    assert!(metric(&m, "process_resident_memory_bytes{") > 0.0);
    // The broker counts the documents its queries scanned, as Pinot's DOCUMENTS_SCANNED meter
    // (the GET above counted 100 of them).
    assert!(metric(&m, "tessera_docs_scanned_total{") >= 100.0, "{m:?}");
    let m = metrics(&broker_a).await;
    assert_eq!(
        metric(
            &m,
            "tessera_query_errors_total{role=\"broker\",code=\"410\"}"
        ),
        1.0
    );
    let m = metrics(sb.server_url.as_ref().unwrap()).await;
    assert_eq!(metric(&m, "tessera_segments_loaded{"), 2.0);
    assert!(metric(&m, "tessera_docs_scanned_total{") >= 100.0, "{m:?}");
    assert!(
        m.keys()
            .any(|k| k.starts_with("tessera_decoded_dictionary_bytes{")),
        "{m:?}"
    );
    let m = metrics(&ctl).await;
    assert!(
        metric(
            &m,
            "tessera_http_requests_total{role=\"controller\",route=\"/tables\""
        ) > 0.0
    );
    // Labels are route templates, never raw paths.
    assert!(
        metric(
            &m,
            "tessera_http_requests_total{role=\"controller\",route=\"/tables/:table/size\",status=\"200\"}"
        ) > 0.0,
        "{m:?}"
    );
    assert!(m.keys().all(|k| !k.contains("/tables/events")), "{m:?}");

    // Tags: update, and create a tenant from untagged instances.
    assert_eq!(
        call(
            "PUT",
            &format!("{ctl}/instances/{server_a}/updateTags"),
            None
        )
        .await
        .0,
        400
    );
    let (status, body) = call(
        "POST",
        &format!("{ctl}/tenants"),
        Some(json!({"tenantRole": "SERVER", "tenantName": "fresh", "numberOfInstances": 1})),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        call(
            "PUT",
            &format!("{ctl}/instances/{server_a}/updateTags?tags=server_untagged"),
            None
        )
        .await,
        (
            200,
            json!({"status": format!("Updated tags: [server_untagged] for instance: {server_a}")})
        )
    );
    let (status, body) = call(
        "POST",
        &format!("{ctl}/tenants"),
        Some(json!({"tenantRole": "SERVER", "tenantName": "fresh", "numberOfInstances": 1})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        call("GET", &format!("{ctl}/tenants/fresh"), None).await.1,
        json!({"ServerInstances": [server_a], "BrokerInstances": [], "tenantName": "fresh"})
    );
    let (_, inst) = call("GET", &format!("{ctl}/instances/{server_a}"), None).await;
    assert_eq!(inst["tags"], json!(["fresh_OFFLINE", "fresh_REALTIME"]));
    // With Pinot's offline/realtime split, the instance serves only what it was given.
    let untag = format!("{ctl}/instances/{server_a}/updateTags?tags=server_untagged");
    assert_eq!(call("PUT", &untag, None).await.0, 200);
    let split = |o: usize, n: usize| {
        json!({"tenantRole": "SERVER", "tenantName": "batch", "numberOfInstances": n,
            "offlineInstances": o, "realtimeInstances": 0})
    };
    let (status, body) = call("POST", &format!("{ctl}/tenants"), Some(split(2, 1))).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = call("POST", &format!("{ctl}/tenants"), Some(split(1, 1))).await;
    assert_eq!(status, 200, "{body}");
    let (_, inst) = call("GET", &format!("{ctl}/instances/{server_a}"), None).await;
    assert_eq!(inst["tags"], json!(["batch_OFFLINE"]));

    bb.stop().await;
    sb.stop().await;
    a.stop().await;
}

#[async_std::test]
async fn aged_segments_move_to_the_tier_without_going_missing() {
    let dir = tempfile::tempdir().unwrap();
    let a = start_all(&dir.path().join("a")).await;
    let ctl = a.controller_url.clone().unwrap();
    let broker = a.broker_url.clone().unwrap();
    let hot = a.server_id.clone().unwrap();
    let cold = start_role(&dir.path().join("cold"), &ctl, "server", &["cold_OFFLINE"]).await;
    let cold_id = cold.server_id.clone().unwrap();
    let mut config = table("DefaultTenant", "DefaultTenant");
    config["tierConfigs"] = json!([{"name": "coldTier", "segmentSelectorType": "time",
        "segmentAge": "1d", "storageType": "pinot_server", "serverTag": "cold_OFFLINE"}]);
    assert_eq!(
        call("POST", &format!("{ctl}/schemas"), Some(schema()))
            .await
            .0,
        200
    );
    let (status, body) = call("POST", &format!("{ctl}/tables"), Some(config.clone())).await;
    assert_eq!(status, 200, "{body}");

    // Query continuously from before the segments exist to after the move.
    let stop = Arc::new(AtomicBool::new(false));
    let bad = Arc::new(AtomicUsize::new(0));
    let good = Arc::new(AtomicUsize::new(0));
    let work = tempfile::tempdir().unwrap();
    let day = 86_400_000;
    let now = api::common::clock::now_ms();
    upload(
        &ctl,
        "events_new",
        &segment_archive(work.path(), &config, "events_new", 30, now),
    )
    .await;
    upload(
        &ctl,
        "events_old",
        &segment_archive(work.path(), &config, "events_old", 70, now - 10 * day),
    )
    .await;
    eventually("both segments served", || {
        let b = broker.clone();
        async move { count(&b).await["resultTable"]["rows"] == json!([[100]]) }
    })
    .await;
    let poller = {
        let (stop, bad, good, broker) = (stop.clone(), bad.clone(), good.clone(), broker.clone());
        async_std::task::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let body = count(&broker).await;
                if body["resultTable"]["rows"] == json!([[100]]) && body["exceptions"] == json!([])
                {
                    good.fetch_add(1, Ordering::Relaxed);
                } else {
                    eprintln!("bad answer during the move: {body}");
                    bad.fetch_add(1, Ordering::Relaxed);
                }
            }
        })
    };
    let (status, body) = call("POST", &format!("{ctl}/segments/events/relocate"), None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        call("POST", &format!("{ctl}/segments/nope/relocate"), None)
            .await
            .0,
        404
    );
    let want = json!({"OFFLINE": {"events_new": {&hot: "ONLINE"}, "events_old": {&cold_id: "ONLINE"}}, "REALTIME": null});
    // Step one added a cold replica and kept the hot one.
    let (_, ideal) = call("GET", &format!("{ctl}/tables/events/idealstate"), None).await;
    assert_eq!(
        ideal["OFFLINE"]["events_old"],
        json!({&hot: "ONLINE", &cold_id: "ONLINE"})
    );
    assert_eq!(ideal["OFFLINE"]["events_new"], json!({&hot: "ONLINE"}));
    eventually("the old segment on the cold tier only", || {
        let ctl = ctl.clone();
        let want = want.clone();
        async move {
            call("POST", &format!("{ctl}/segments/events/relocate"), None).await;
            call("GET", &format!("{ctl}/tables/events/externalview"), None)
                .await
                .1
                == want
        }
    })
    .await;
    // The hot server drops its copy on its next heartbeat; keep querying through that.
    eventually("the hot server to drop the old segment", || {
        let url = format!(
            "{}/tessera/segments/events_OFFLINE",
            a.server_url.clone().unwrap()
        );
        async move {
            call("GET", &url, None).await.1["segments"]
                .get("events_old")
                .is_none()
        }
    })
    .await;
    async_std::task::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    poller.await;
    assert_eq!(bad.load(Ordering::Relaxed), 0);
    assert!(good.load(Ordering::Relaxed) > 0);
    assert_eq!(
        call("GET", &format!("{ctl}/tables/events/idealstate"), None)
            .await
            .1,
        want
    );
    cold.stop().await;
    a.stop().await;
}
