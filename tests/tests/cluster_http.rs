//! The cluster over HTTP: an in-process cluster (controller, broker, server on port 0) driven
//! through Pinot's REST API — exact bodies and statuses for schemas and tables, segment upload,
//! refresh, corrupt and oversized uploads, server hosting, restart on the same data dir, and the
//! broker's query request/response shapes.

use api::cluster::{self, Cluster, StartOptions};
use api::common::archive;
use api::http::multipart;
use segments::types::{Schema, Value as Cell};
use segments::{BuildConfig, build_segment_from_rows};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

async fn call(method: &str, url: &str, body: Option<Value>) -> (u16, Value) {
    call_with(
        method,
        url,
        body.map(|b| b.to_string().into_bytes()),
        None,
        &[],
    )
    .await
    .0
}

async fn call_with(
    method: &str,
    url: &str,
    body: Option<Vec<u8>>,
    content_type: Option<&str>,
    headers: &[(&str, &str)],
) -> ((u16, Value), Option<String>) {
    let client = api::http::http_client();
    let mut req = match method {
        "GET" => client.get(url),
        "POST" => client.post(url),
        "PUT" => client.put(url),
        "DELETE" => client.delete(url),
        other => panic!("method {other}"),
    };
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    if let Some(b) = body {
        req = req
            .body(b)
            .content_type(content_type.unwrap_or("application/json"));
    }
    let mut res = req.await.unwrap();
    let text = res.body_string().await.unwrap();
    let err_code = res
        .header("X-Pinot-Error-Code")
        .map(|h| h.as_str().to_string());
    let json = serde_json::from_str(&text).unwrap_or(Value::String(text));
    ((res.status().into(), json), err_code)
}

fn schema() -> Value {
    json!({
        "schemaName": "baseballStats",
        "dimensionFieldSpecs": [{"name": "playerName", "dataType": "STRING"}, {"name": "teamID", "dataType": "STRING"}],
        "metricFieldSpecs": [{"name": "runs", "dataType": "INT"}],
        "dateTimeFieldSpecs": [{"name": "yearID", "dataType": "INT", "format": "1:YEARS:EPOCH", "granularity": "1:YEARS"}]
    })
}

fn table() -> Value {
    json!({
        "tableName": "baseballStats",
        "tableType": "OFFLINE",
        "segmentsConfig": {"timeColumnName": "yearID", "timeType": "DAYS", "replication": "1", "segmentPushType": "APPEND"},
        "tenants": {"broker": "DefaultTenant", "server": "DefaultTenant"},
        "tableIndexConfig": {"loadMode": "MMAP", "invertedIndexColumns": ["teamID"]},
        "metadata": {"customConfigs": {}}
    })
}

/// The process logger, set up once (`init_for_tests` clears its directory on every call).
fn test_logging() -> api::logging::LoggingHandle {
    static LOGGING: std::sync::OnceLock<api::logging::LoggingHandle> = std::sync::OnceLock::new();
    LOGGING
        .get_or_init(|| api::logging::init_for_tests().unwrap())
        .clone()
}

async fn start(dir: &Path, max_upload: u64) -> Cluster {
    let mut opts = StartOptions::ephemeral(dir.to_path_buf());
    opts.max_upload_bytes = max_upload;
    // One process logger for every test cluster, in a directory that outlives each test.
    opts.logging = Some(test_logging());
    cluster::start(opts).await.unwrap()
}

fn urls(c: &Cluster) -> (String, String, String) {
    (
        c.controller_url.clone().unwrap(),
        c.broker_url.clone().unwrap(),
        c.server_url.clone().unwrap(),
    )
}

/// Builds a real `baseballStats` segment with `docs` rows and packs it as an upload archive.
fn segment_archive(root: &Path, name: &str, docs: i32) -> Vec<u8> {
    let schema = Schema::from_json(&schema().to_string()).unwrap();
    let config = BuildConfig::from_table_config_json(&table(), &schema, Some(name)).unwrap();
    let rows = (0..docs).map(|i| {
        Ok(vec![
            Cell::String(format!("player{i}")),
            Cell::String(["BOS", "NYA", "SFN"][i as usize % 3].into()),
            Cell::Int(i * 10),
            Cell::Int(1990 + i % 20),
        ])
    });
    build_segment_from_rows(&schema, &config, rows, root).unwrap();
    archive::pack(&root.join(name)).unwrap()
}

async fn upload(controller: &str, table: &str, name: &str, bytes: &[u8]) -> (u16, Value) {
    let (ct, body) = multipart::encode_file(name, &format!("{name}.tar.gz"), bytes);
    call_with(
        "POST",
        &format!("{controller}/segments?tableName={table}"),
        Some(body),
        Some(&ct),
        &[],
    )
    .await
    .0
}

async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(20);
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        async_std::task::sleep(Duration::from_millis(50)).await;
    }
}

#[async_std::test]
async fn schema_and_table_lifecycle_with_pinot_bodies() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(dir.path(), 1 << 20).await;
    let (ctl, broker, server) = urls(&c);
    for base in [&ctl, &broker, &server] {
        assert_eq!(
            call("GET", &format!("{base}/health"), None).await,
            (200, json!("OK"))
        );
    }

    // Logger endpoints on every role; the static `/loggers/files` wins over `/loggers/:name`.
    for base in [&ctl, &broker, &server] {
        let (status, body) = call("GET", &format!("{base}/loggers"), None).await;
        assert_eq!(status, 200, "{base}: {body}");
        assert!(body.as_array().unwrap().contains(&json!("root")), "{body}");
        let (status, body) = call("GET", &format!("{base}/loggers/files"), None).await;
        assert_eq!(status, 200, "{base}: {body}");
        assert!(body.is_array(), "{body}");
    }
    assert_eq!(
        call("GET", &format!("{ctl}/loggers/instances"), None)
            .await
            .0,
        200
    );

    assert_eq!(
        call("GET", &format!("{ctl}/schemas/nope"), None).await,
        (404, json!({"code": 404, "error": "Schema not found"}))
    );
    assert_eq!(
        call("POST", &format!("{ctl}/tables"), Some(table())).await,
        (
            400,
            json!({"code": 400, "error": "Failed to find schema for table: baseballStats_OFFLINE"})
        )
    );
    assert_eq!(
        call("POST", &format!("{ctl}/schemas"), Some(schema())).await,
        (
            200,
            json!({"unrecognizedProperties": {}, "status": "baseballStats successfully added"})
        )
    );
    assert_eq!(
        call(
            "POST",
            &format!("{ctl}/schemas?override=false"),
            Some(schema())
        )
        .await,
        (
            409,
            json!({"code": 409, "error": "Schema: baseballStats already exists"})
        )
    );
    assert_eq!(
        call("GET", &format!("{ctl}/schemas"), None).await,
        (200, json!(["baseballStats"]))
    );

    // Malformed JSON is a 400 with a JSON body, never tide's empty 422.
    let ((status, body), _) = call_with(
        "POST",
        &format!("{ctl}/tables"),
        Some(b"{nope".to_vec()),
        None,
        &[],
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(body["code"], 400);
    let mut no_segments = table();
    no_segments
        .as_object_mut()
        .unwrap()
        .remove("segmentsConfig");
    assert_eq!(
        call("POST", &format!("{ctl}/tables"), Some(no_segments)).await,
        (
            400,
            json!({"code": 400, "error": "'segmentsConfig' must be configured"})
        )
    );

    assert_eq!(
        call("POST", &format!("{ctl}/tables"), Some(table())).await,
        (
            200,
            json!({"unrecognizedProperties": {}, "status": "Table baseballStats_OFFLINE successfully added"})
        )
    );
    let (status, body) = call("POST", &format!("{ctl}/tables"), Some(table())).await;
    assert_eq!(status, 409);
    assert_eq!(
        body["error"],
        "Table config for baseballStats_OFFLINE already exists. If this is unexpected, try deleting the table to remove all metadata associated with it before attempting to recreate."
    );

    assert_eq!(
        call("GET", &format!("{ctl}/tables"), None).await,
        (200, json!({"tables": ["baseballStats"]}))
    );
    assert_eq!(
        call("GET", &format!("{ctl}/tables?type=offline"), None).await,
        (200, json!({"tables": ["baseballStats_OFFLINE"]}))
    );
    let (status, body) = call("GET", &format!("{ctl}/tables/baseballStats"), None).await;
    assert_eq!(status, 200);
    assert_eq!(body["OFFLINE"]["tableName"], "baseballStats_OFFLINE");
    assert_eq!(
        body["OFFLINE"]["tableIndexConfig"]["invertedIndexColumns"],
        json!(["teamID"])
    );
    assert!(body.get("REALTIME").is_none());
    assert_eq!(
        call("GET", &format!("{ctl}/tables/nope"), None).await,
        (
            404,
            json!({"code": 404, "error": "Table nope does not exist"})
        )
    );
    let (status, body) = call("GET", &format!("{ctl}/tables/baseballStats/schema"), None).await;
    assert_eq!(
        (status, &body["schemaName"]),
        (200, &json!("baseballStats"))
    );
    assert_eq!(body["metricFieldSpecs"][0]["fieldType"], "METRIC");

    // Updates: index change → reload (singular path, as in the interface), custom config → none.
    let mut with_range = table();
    with_range["tableIndexConfig"]["rangeIndexColumns"] = json!(["runs"]);
    assert_eq!(
        call(
            "PUT",
            &format!("{ctl}/table/baseballStats"),
            Some(with_range.clone())
        )
        .await,
        (
            200,
            json!({"unrecognizedProperties": {}, "status": "Table config updated for baseballStats", "requiredFollowUp": "reload"})
        )
    );
    let mut custom = with_range.clone();
    custom["metadata"]["customConfigs"]["owner"] = json!("ops");
    custom["tableIndexConfig"]["fooBar"] = json!(1);
    let (status, body) = call(
        "PUT",
        &format!("{ctl}/tables/baseballStats_OFFLINE"),
        Some(custom),
    )
    .await;
    assert_eq!((status, &body["requiredFollowUp"]), (200, &json!("none")));
    assert_eq!(
        body["unrecognizedProperties"],
        json!({"/tableIndexConfig/fooBar": 1})
    );
    assert_eq!(
        body["status"],
        "Table config updated for baseballStats_OFFLINE"
    );
    let (_, body) = call("GET", &format!("{ctl}/tables/baseballStats"), None).await;
    assert_eq!(body["OFFLINE"]["metadata"]["customConfigs"]["owner"], "ops");
    let mut other = table();
    other["tableName"] = json!("other");
    let (status, body) = call("PUT", &format!("{ctl}/tables/baseballStats"), Some(other)).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"],
        "Request table baseballStats_OFFLINE does not match table name in the body other_OFFLINE"
    );
    let mut bad_column = table();
    bad_column["tableIndexConfig"]["invertedIndexColumns"] = json!(["nope"]);
    let (status, body) = call(
        "PUT",
        &format!("{ctl}/tables/baseballStats"),
        Some(bad_column),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"],
        "Invalid table config: baseballStats with error: Failed to find column: nope in schema"
    );

    assert_eq!(
        call(
            "POST",
            &format!("{ctl}/tables/baseballStats/pauseConsumption"),
            None
        )
        .await,
        (
            404,
            json!({"code": 404, "error": "Table baseballStats_REALTIME not found!"})
        )
    );
    assert_eq!(
        call("DELETE", &format!("{ctl}/schemas/baseballStats"), None).await,
        (
            409,
            json!({"code": 409, "error": "Cannot delete schema baseballStats, as it is associated with table baseballStats_OFFLINE"})
        )
    );
    assert_eq!(
        call("DELETE", &format!("{ctl}/tables/baseballStats"), None).await,
        (
            200,
            json!({"status": "Tables: [baseballStats_OFFLINE] deleted"})
        )
    );
    assert_eq!(
        call("DELETE", &format!("{ctl}/tables/baseballStats"), None).await,
        (
            404,
            json!({"code": 404, "error": "Table 'baseballStats' with type null does not exist"})
        )
    );
    assert_eq!(
        call("DELETE", &format!("{ctl}/schemas/baseballStats"), None).await,
        (200, json!({"status": "Schema baseballStats deleted"}))
    );
    assert_eq!(
        call("GET", &format!("{ctl}/schemas"), None).await,
        (200, json!([]))
    );

    // Every role registered itself.
    let server_id = c.server_id.clone().unwrap();
    eventually("instances to register", || {
        let ctl = ctl.clone();
        let server_id = server_id.clone();
        async move {
            let (_, body) = call("GET", &format!("{ctl}/instances"), None).await;
            let names: Vec<String> =
                serde_json::from_value(body["instances"].clone()).unwrap_or_default();
            names.iter().any(|n| n.starts_with("Controller_127.0.0.1_"))
                && names.iter().any(|n| n.starts_with("Broker_127.0.0.1_"))
                && names.contains(&server_id)
        }
    })
    .await;
    c.stop().await;
}

async fn routed(ctl: &str, table: &str, segment: &str) -> bool {
    let (_, body) = call("GET", &format!("{ctl}/tessera/routing/{table}"), None).await;
    body["segments"][segment]
        .as_array()
        .is_some_and(|s| !s.is_empty())
}

async fn server_docs(server: &str, segment: &str) -> Value {
    let url = format!("{server}/tessera/segments/baseballStats_OFFLINE");
    call("GET", &url, None).await.1["segments"][segment]["totalDocs"].clone()
}

async fn count(broker: &str) -> Value {
    let sql = json!({"sql": "SELECT COUNT(*) FROM baseballStats"});
    call("POST", &format!("{broker}/query/sql"), Some(sql))
        .await
        .1
}

#[async_std::test]
async fn segment_upload_refresh_rejects_and_restart() {
    let dir = tempfile::tempdir().unwrap();
    let seg_src = tempfile::tempdir().unwrap();
    let c = start(dir.path(), 64 << 10).await;
    let (ctl, broker, server) = urls(&c);
    call("POST", &format!("{ctl}/schemas"), Some(schema())).await;
    call("POST", &format!("{ctl}/tables"), Some(table())).await;

    let s0 = segment_archive(seg_src.path(), "baseballStats_0", 3);
    assert_eq!(
        upload(&ctl, "baseballStats", "baseballStats_0", &s0).await,
        (
            200,
            json!({"status": "Successfully uploaded segment: baseballStats_0 of table: baseballStats_OFFLINE"})
        )
    );
    assert_eq!(
        call("GET", &format!("{ctl}/segments/baseballStats"), None).await,
        (200, json!([{"OFFLINE": ["baseballStats_0"]}]))
    );
    eventually("the server to load the segment", || {
        routed(&ctl, "baseballStats_OFFLINE", "baseballStats_0")
    })
    .await;
    assert_eq!(server_docs(&server, "baseballStats_0").await, json!(3));
    // Queried through the broker: routed to the server, executed there, reduced.
    let body = count(&broker).await;
    assert_eq!(body["resultTable"]["rows"], json!([[3]]), "{body}");
    assert_eq!(
        (
            body["numServersQueried"].clone(),
            body["numServersResponded"].clone()
        ),
        (json!(1), json!(1))
    );
    assert_eq!(body["exceptions"], json!([]));
    let (_, body) = call(
        "POST",
        &format!("{broker}/query/sql"),
        Some(json!({"sql": "SELECT teamID, SUM(runs) FROM baseballStats GROUP BY teamID ORDER BY teamID"})),
    )
    .await;
    assert_eq!(
        body["resultTable"]["rows"],
        json!([["BOS", 0.0], ["NYA", 10.0], ["SFN", 20.0]]),
        "{body}"
    );
    let server_id = c.server_id.clone().unwrap();
    assert_eq!(
        call(
            "GET",
            &format!("{ctl}/segments/baseballStats/servers"),
            None
        )
        .await,
        (
            200,
            json!([{"tableName": "baseballStats_OFFLINE",
            "serverToSegmentsMap": {server_id.clone(): ["baseballStats_0"]},
            "serverToSegmentsCountMap": {server_id: 1}}])
        )
    );

    // Corrupt (truncated) upload: 400, nothing changes.
    let deep = dir
        .path()
        .join("controller/deepstore/baseballStats_OFFLINE");
    let files_before = std::fs::read_dir(&deep).unwrap().count();
    let (status, body) = upload(
        &ctl,
        "baseballStats",
        "baseballStats_1",
        &s0[..s0.len() / 2],
    )
    .await;
    assert_eq!((status, &body["code"]), (400, &json!(400)), "{body}");
    let (status, body) = upload(
        &ctl,
        "baseballStats",
        "baseballStats_1",
        b"definitely not a tar.gz",
    )
    .await;
    assert_eq!(status, 400, "{body}");
    // Oversize: 413.
    let big = vec![1u8; 100 << 10];
    let (status, body) = upload(&ctl, "baseballStats", "baseballStats_1", &big).await;
    assert_eq!((status, &body["code"]), (413, &json!(413)), "{body}");
    assert_eq!(
        call("GET", &format!("{ctl}/segments/baseballStats"), None)
            .await
            .1,
        json!([{"OFFLINE": ["baseballStats_0"]}])
    );
    assert_eq!(std::fs::read_dir(&deep).unwrap().count(), files_before);
    // A well-formed archive whose segment files are damaged: 400, nothing changes.
    let damaged_src = tempfile::tempdir().unwrap();
    segment_archive(damaged_src.path(), "baseballStats_2", 50);
    let seg_dir = damaged_src.path().join("baseballStats_2");
    let biggest = std::fs::read_dir(&seg_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let mut bytes = std::fs::read(&biggest).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&biggest, bytes).unwrap();
    let (status, body) = upload(
        &ctl,
        "baseballStats",
        "baseballStats_2",
        &archive::pack(&seg_dir).unwrap(),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        call("GET", &format!("{ctl}/segments/baseballStats"), None)
            .await
            .1,
        json!([{"OFFLINE": ["baseballStats_0"]}])
    );
    // Without `tableName`, the segment's own table is used; an unknown one is a 400.
    let other_src = tempfile::tempdir().unwrap();
    let s3 = segment_archive(other_src.path(), "baseballStats_3", 4);
    let (ct, body) = multipart::encode_file("baseballStats_3", "baseballStats_3.tar.gz", &s3);
    let ((status, body), _) = call_with(
        "POST",
        &format!("{ctl}/v2/segments"),
        Some(body),
        Some(&ct),
        &[],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        call(
            "DELETE",
            &format!("{ctl}/segments/baseballStats/baseballStats_3"),
            None
        )
        .await
        .0,
        200
    );
    // Unknown table.
    assert_eq!(
        upload(&ctl, "nope", "x", &s0).await,
        (
            400,
            json!({"code": 400, "error": "Failed to find table: nope_OFFLINE"})
        )
    );

    // Ingest a CSV file into a new segment named by the postfix.
    let csv = b"playerName,teamID,runs,yearID\nann,BOS,3,1999\nbob,NYA,5,2001\n";
    let (ct, body) = multipart::encode_file("file", "rows.csv", csv);
    let url = format!(
        "{ctl}/ingestFromFile?tableNameWithType=baseballStats_OFFLINE&batchConfigMapStr=%7B%22inputFormat%22%3A%22csv%22%2C%22segmentNameGenerator.configs.segment.name.postfix%22%3A%227%22%7D"
    );
    let ((status, body), _) = call_with("POST", &url, Some(body), Some(&ct), &[]).await;
    assert_eq!(
        (status, body),
        (
            200,
            json!({"status": "Successfully ingested file into table: baseballStats_OFFLINE as segment: baseballStats_7"})
        )
    );
    eventually("the server to load the ingested segment", || {
        routed(&ctl, "baseballStats_OFFLINE", "baseballStats_7")
    })
    .await;
    assert_eq!(server_docs(&server, "baseballStats_7").await, json!(2));
    let (ct, body) = multipart::encode_file(
        "file",
        "rows.csv",
        b"playerName,teamID,runs,yearID\nann,BOS,notanumber,1999\n",
    );
    let ((status, _), _) = call_with("POST", &url, Some(body), Some(&ct), &[]).await;
    assert_eq!(status, 400);
    assert_eq!(
        call(
            "DELETE",
            &format!("{ctl}/segments/baseballStats/baseballStats_7"),
            None
        )
        .await
        .0,
        200
    );

    // Refresh: same name, new content; the server swaps the new copy in.
    let refreshed_src = tempfile::tempdir().unwrap();
    let s0b = segment_archive(refreshed_src.path(), "baseballStats_0", 5);
    assert_eq!(
        upload(&ctl, "baseballStats", "baseballStats_0", &s0b)
            .await
            .0,
        200
    );
    assert_eq!(
        call("GET", &format!("{ctl}/segments/baseballStats"), None)
            .await
            .1,
        json!([{"OFFLINE": ["baseballStats_0"]}])
    );
    assert_eq!(std::fs::read_dir(&deep).unwrap().count(), files_before);
    eventually("the server to load the refreshed segment", || {
        let server = server.clone();
        async move { server_docs(&server, "baseballStats_0").await == json!(5) }
    })
    .await;
    assert_eq!(count(&broker).await["resultTable"]["rows"], json!([[5]]));

    // Reload after an index change: Pinot's nested-JSON status, then every segment is rebuilt
    // with the new config and swapped in like a refresh.
    let mut with_range = table();
    with_range["tableIndexConfig"]["rangeIndexColumns"] = json!(["runs"]);
    let (status, body) = call(
        "PUT",
        &format!("{ctl}/tables/baseballStats"),
        Some(with_range),
    )
    .await;
    assert_eq!((status, &body["requiredFollowUp"]), (200, &json!("reload")));
    let crc_before = call(
        "GET",
        &format!("{server}/tessera/segments/baseballStats_OFFLINE"),
        None,
    )
    .await
    .1["segments"]["baseballStats_0"]["crc"]
        .clone();
    let (status, body) = call(
        "POST",
        &format!("{ctl}/segments/baseballStats/reload"),
        None,
    )
    .await;
    assert_eq!(status, 200);
    let inner: Value = serde_json::from_str(body["status"].as_str().unwrap()).unwrap();
    assert_eq!(inner["baseballStats_OFFLINE"]["numMessagesSent"], "1");
    assert_eq!(
        inner["baseballStats_OFFLINE"]["reloadJobMetaZKStorageStatus"],
        "SUCCESS"
    );
    eventually("the rebuilt segment to be served", || {
        let (server, crc_before) = (server.clone(), crc_before.clone());
        async move {
            let url = format!("{server}/tessera/segments/baseballStats_OFFLINE");
            let crc = call("GET", &url, None).await.1["segments"]["baseballStats_0"]["crc"].clone();
            crc != crc_before && crc.is_number()
        }
    })
    .await;
    let mut res = api::http::http_client()
        .get(format!("{ctl}/segments/baseballStats/baseballStats_0"))
        .await
        .unwrap();
    let rebuilt = res.body_bytes().await.unwrap();
    let check = tempfile::tempdir().unwrap();
    let unpacked = archive::unpack(&rebuilt, check.path()).unwrap();
    let seg = archive::open(&unpacked.dir).unwrap();
    assert!(
        seg.column("runs")
            .unwrap()
            .metadata()
            .has_index(segments::index::IndexKind::Range)
    );
    assert_eq!(seg.total_docs(), 5);
    assert_eq!(count(&broker).await["resultTable"]["rows"], json!([[5]]));
    // The job's status, as Pinot answers it, until every segment is done.
    let job = inner["baseballStats_OFFLINE"]["reloadJobId"]
        .as_str()
        .unwrap()
        .to_string();
    let status_url = format!("{ctl}/segments/segmentReloadStatus/{job}");
    eventually("the reload job to complete", || {
        let url = status_url.clone();
        async move { call("GET", &url, None).await.1["status"] == "COMPLETED" }
    })
    .await;
    let (status, job_status) = call("GET", &status_url, None).await;
    assert_eq!(status, 200);
    assert_eq!(
        (
            &job_status["totalSegmentCount"],
            &job_status["successCount"],
            &job_status["failureCount"]
        ),
        (&json!(1), &json!(1), &json!(0))
    );
    assert_eq!(job_status["metadata"]["tableName"], "baseballStats_OFFLINE");
    assert_eq!(job_status["metadata"]["jobType"], "RELOAD_ALL_SEGMENTS");
    let (status, body) = call(
        "GET",
        &format!("{ctl}/segments/segmentReloadStatus/no-such-job"),
        None,
    )
    .await;
    assert_eq!(
        (status, &body["error"]),
        (404, &json!("Failed to find controller job id: no-such-job"))
    );
    // One segment's reload, and an unknown one.
    let (status, body) = call(
        "POST",
        &format!("{ctl}/segments/baseballStats/baseballStats_0/reload"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let text = body["status"].as_str().unwrap();
    assert!(text.starts_with("Submitted reload job id: "), "{text}");
    assert!(text.ends_with(", sent 1 reload messages. Job meta ZK storage status: SUCCESS"));
    let (status, _) = call(
        "POST",
        &format!("{ctl}/segments/baseballStats/nope/reload"),
        None,
    )
    .await;
    assert_eq!(status, 404);
    // The segment's metadata: segment-level keys, the asked columns with their indexes.
    let (status, meta) = call(
        "GET",
        &format!("{ctl}/segments/baseballStats/baseballStats_0/metadata?columns=runs"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{meta}");
    assert_eq!(meta["segmentName"], "baseballStats_0");
    assert_eq!(meta["totalDocs"], 5);
    assert_eq!(meta["columns"].as_array().map(Vec::len), Some(1));
    assert_eq!(meta["columns"][0]["name"], "runs");
    assert_eq!(meta["indexes"]["runs"]["range"], "YES");
    let (_, all) = call(
        "GET",
        &format!("{ctl}/segments/baseballStats/baseballStats_0/metadata?columns=*"),
        None,
    )
    .await;
    let names: Vec<&str> = all["columns"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(names.len() > 1 && names.contains(&"runs"), "{names:?}");
    assert_eq!(
        call(
            "GET",
            &format!("{ctl}/segments/baseballStats/nope/metadata"),
            None
        )
        .await
        .0,
        404
    );

    // Restart on the same data dir: table, schema, segment and hosting survive.
    c.stop().await;
    let c = start(dir.path(), 64 << 10).await;
    let (ctl, broker, server) = urls(&c);
    assert_eq!(
        call("GET", &format!("{ctl}/tables"), None).await,
        (200, json!({"tables": ["baseballStats"]}))
    );
    assert_eq!(
        call("GET", &format!("{ctl}/segments/baseballStats"), None)
            .await
            .1,
        json!([{"OFFLINE": ["baseballStats_0"]}])
    );
    assert_eq!(
        call("GET", &format!("{ctl}/tables/baseballStats/schema"), None)
            .await
            .1["schemaName"],
        "baseballStats"
    );
    // The new server (new port, new id) gets the segment assigned and downloads it.
    eventually("the restarted cluster to serve the segment", || {
        routed(&ctl, "baseballStats_OFFLINE", "baseballStats_0")
    })
    .await;
    assert_eq!(server_docs(&server, "baseballStats_0").await, json!(5));
    assert_eq!(count(&broker).await["resultTable"]["rows"], json!([[5]]));
    assert_eq!(
        call(
            "DELETE",
            &format!("{ctl}/segments/baseballStats?type=OFFLINE"),
            None
        )
        .await,
        (
            200,
            json!({"status": "All segments of table baseballStats_OFFLINE deleted"})
        )
    );
    assert_eq!(
        call("GET", &format!("{ctl}/segments/baseballStats"), None)
            .await
            .1,
        json!([{"OFFLINE": []}])
    );
    eventually("the server to drop the segment", || {
        let server = server.clone();
        async move { server_docs(&server, "baseballStats_0").await.is_null() }
    })
    .await;
    c.stop().await;
}

#[async_std::test]
async fn broker_request_and_response_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(dir.path(), 1 << 20).await;
    let (ctl, broker, _) = urls(&c);

    assert_eq!(
        call(
            "POST",
            &format!("{broker}/query/sql"),
            Some(json!({"trace": false}))
        )
        .await,
        (
            400,
            json!({"code": 400, "error": "Payload is missing the query string field 'sql'"})
        )
    );
    let ((status, body), _) = call_with(
        "POST",
        &format!("{broker}/query/sql"),
        Some(b"{bad".to_vec()),
        None,
        &[],
    )
    .await;
    assert_eq!((status, &body["code"]), (400, &json!(400)));

    for (method, url, body) in [
        (
            "POST",
            format!("{broker}/query/sql"),
            Some(json!({"sql": "SELECT 1"})),
        ),
        (
            "POST",
            format!("{broker}/query/sql/"),
            Some(json!({"sql": "SELECT 1", "queryOptions": "timeoutMs=1000"})),
        ),
        (
            "POST",
            format!("{broker}/query?queryOptions="),
            Some(json!({"sql": "SELECT 1"})),
        ),
        ("GET", format!("{broker}/query/sql?sql=SELECT%201"), None),
    ] {
        let ((status, body), code) = call_with(
            method,
            &url,
            body.map(|b| b.to_string().into_bytes()),
            None,
            &[],
        )
        .await;
        assert_eq!(status, 200, "{url}: {body}");
        for k in [
            "numServersQueried",
            "numServersResponded",
            "numGroupsLimitReached",
            "timeUsedMs",
            "exceptions",
        ] {
            assert!(body.get(k).is_some(), "{url}: missing {k} in {body}");
        }
        let first = body["exceptions"]
            .as_array()
            .unwrap()
            .first()
            .map(|e| e["errorCode"].to_string())
            .unwrap_or("-1".into());
        assert_eq!(code, Some(first), "{url}");
    }

    // Table-less queries are answered by the broker.
    let ((status, body), code) = call_with(
        "POST",
        &format!("{broker}/query/sql"),
        Some(br#"{"sql":"SELECT 1"}"#.to_vec()),
        None,
        &[],
    )
    .await;
    assert_eq!((status, code.as_deref()), (200, Some("-1")), "{body}");
    assert_eq!(body["resultTable"]["rows"], json!([[1]]));
    assert_eq!(body["numGroupsLimitReached"], false);

    // Errors: 200 with exceptions, unless Pinot-Use-Http-Status-For-Errors asks for the status.
    let missing = json!({"sql": "SELECT COUNT(*) FROM nope"})
        .to_string()
        .into_bytes();
    let ((status, body), code) = call_with(
        "POST",
        &format!("{broker}/query/sql"),
        Some(missing.clone()),
        None,
        &[],
    )
    .await;
    assert_eq!((status, code.as_deref()), (200, Some("190")), "{body}");
    assert_eq!(body["exceptions"][0]["errorCode"], 190);
    assert!(body.get("resultTable").is_none());
    let ((status, _), code) = call_with(
        "POST",
        &format!("{broker}/query/sql"),
        Some(missing),
        None,
        &[("Pinot-Use-Http-Status-For-Errors", "true")],
    )
    .await;
    assert_eq!((status, code.as_deref()), (404, Some("190")));
    let ((status, body), _) = call_with(
        "POST",
        &format!("{broker}/query/sql"),
        Some(br#"{"sql":"SELEC nonsense"}"#.to_vec()),
        None,
        &[],
    )
    .await;
    assert_eq!(
        (status, &body["exceptions"][0]["errorCode"]),
        (200, &json!(150)),
        "{body}"
    );

    // The controller forwards POST /sql to an online broker.
    let broker_up = || {
        let ctl = ctl.clone();
        async move {
            let (_, body) = call(
                "POST",
                &format!("{ctl}/sql"),
                Some(json!({"sql": "SELECT 1"})),
            )
            .await;
            body["resultTable"]["rows"] == json!([[1]])
        }
    };
    eventually("the controller to forward to the broker", broker_up).await;
    let (status, body) = call("POST", &format!("{ctl}/sql"), Some(json!({"nosql": 1}))).await;
    assert_eq!(status, 200);
    assert_eq!(body["exceptions"][0]["errorCode"], 100);
    c.stop().await;
}

#[async_std::test]
async fn ingest_from_file_applies_transform_configs() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(dir.path(), 1 << 20).await;
    let (ctl, broker, _) = urls(&c);
    let schema = json!({
        "schemaName": "events",
        "dimensionFieldSpecs": [{"name": "name", "dataType": "STRING"}, {"name": "loud", "dataType": "STRING"}],
        "metricFieldSpecs": [{"name": "clicks", "dataType": "LONG"}],
        "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:TIMESTAMP", "granularity": "1:DAYS"}]
    });
    let table = json!({
        "tableName": "events", "tableType": "OFFLINE",
        "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
        "tenants": {}, "tableIndexConfig": {},
        "ingestionConfig": {"transformConfigs": [
            {"columnName": "loud", "transformFunction": "upper(name)"},
            {"columnName": "ts", "transformFunction": "fromEpochDays(days)"}
        ]}
    });
    assert_eq!(
        call("POST", &format!("{ctl}/schemas"), Some(schema))
            .await
            .0,
        200
    );
    let (status, body) = call("POST", &format!("{ctl}/tables"), Some(table)).await;
    assert_eq!(status, 200, "{body}");
    let rows = b"{\"name\": \"ann\", \"clicks\": 3, \"days\": 18262}\n{\"name\": \"bob\", \"clicks\": 4, \"days\": 18263}\n";
    let (ct, body) = multipart::encode_file("file", "rows.json", rows);
    let url = format!(
        "{ctl}/ingestFromFile?tableNameWithType=events_OFFLINE&batchConfigMapStr=%7B%22inputFormat%22%3A%22json%22%2C%22segmentNameGenerator.configs.segment.name.postfix%22%3A%220%22%7D"
    );
    let ((status, body), _) = call_with("POST", &url, Some(body), Some(&ct), &[]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["status"],
        "Successfully ingested file into table: events_OFFLINE as segment: events_0"
    );
    let sql = json!({"sql": "SELECT loud, clicks, ts FROM events ORDER BY loud"});
    eventually("the transformed rows to be queryable", || {
        let broker = broker.clone();
        let sql = sql.clone();
        async move {
            let (_, body) = call("POST", &format!("{broker}/query/sql"), Some(sql)).await;
            body["resultTable"]["rows"]
                == json!([
                    ["ANN", 3, "2020-01-01 00:00:00.0"],
                    ["BOB", 4, "2020-01-02 00:00:00.0"]
                ])
        }
    })
    .await;
    c.stop().await;
}

/// EXPLAIN and answer of `sql` through the broker, with and without star-trees.
async fn explain_and_rows(broker: &str, sql: &str) -> (String, Value, Value) {
    let post = |sql: String| {
        let broker = broker.to_string();
        async move {
            call(
                "POST",
                &format!("{broker}/query/sql"),
                Some(json!({ "sql": sql })),
            )
            .await
            .1
        }
    };
    let explained = post(format!("EXPLAIN PLAN FOR {sql}")).await;
    let plan = format!(
        "{}{}",
        explained["resultTable"]["rows"], explained["exceptions"]
    );
    let with = post(sql.to_string()).await["resultTable"]["rows"].clone();
    let without =
        post(format!("SET useStarTree = false; {sql}")).await["resultTable"]["rows"].clone();
    (plan, with, without)
}

#[async_std::test]
async fn star_trees_through_the_cluster_and_dynamic_reload() {
    let dir = tempfile::tempdir().unwrap();
    let seg_src = tempfile::tempdir().unwrap();
    let c = start(dir.path(), 1 << 20).await;
    let (ctl, broker, _server) = urls(&c);
    let mut config = table();
    config["tableIndexConfig"]["starTreeIndexConfigs"] = json!([{
        "dimensionsSplitOrder": ["teamID"], "functionColumnPairs": ["COUNT__*", "SUM__runs"],
        "maxLeafRecords": 1}]);
    call("POST", &format!("{ctl}/schemas"), Some(schema())).await;
    let (status, body) = call("POST", &format!("{ctl}/tables"), Some(config.clone())).await;
    assert_eq!(status, 200, "{body}");
    // The segment carries the table's tree (built with the same config the controller holds).
    let schema = Schema::from_json(&schema().to_string()).unwrap();
    let build =
        BuildConfig::from_table_config_json(&config, &schema, Some("baseballStats_0")).unwrap();
    let rows = (0..30).map(|i| {
        Ok(vec![
            Cell::String(format!("player{i}")),
            Cell::String(["BOS", "NYA", "SFN"][i as usize % 3].into()),
            Cell::Int(i * 10),
            Cell::Int(1990 + i % 4),
        ])
    });
    build_segment_from_rows(&schema, &build, rows, seg_src.path()).unwrap();
    let bytes = archive::pack(&seg_src.path().join("baseballStats_0")).unwrap();
    assert_eq!(
        upload(&ctl, "baseballStats", "baseballStats_0", &bytes)
            .await
            .0,
        200
    );
    eventually("the broker to answer from the segment", || {
        let broker = broker.clone();
        async move { count(&broker).await["resultTable"]["rows"] == json!([[30]]) }
    })
    .await;

    let by_team =
        "SELECT teamID, SUM(runs), COUNT(*) FROM baseballStats GROUP BY teamID ORDER BY teamID";
    let by_year = "SELECT yearID, SUM(runs) FROM baseballStats GROUP BY yearID ORDER BY yearID";
    let (plan, with, without) = explain_and_rows(&broker, by_team).await;
    assert!(
        plan.contains("FILTER_STARTREE_INDEX(starTree:0, dimensions:teamID"),
        "{plan}"
    );
    assert_eq!(
        (&with, &with),
        (
            &without,
            &json!([
                ["BOS", 1350.0, 10],
                ["NYA", 1450.0, 10],
                ["SFN", 1550.0, 10]
            ])
        )
    );
    let (plan, with, without) = explain_and_rows(&broker, by_year).await;
    assert!(!plan.contains("STARTREE"), "{plan}");
    assert_eq!(with, without);

    // A new tree in the config: a reload without enableDynamicStarTreeCreation keeps the old
    // tree; with it, the segment is rebuilt with the new one.
    let reload_with = |dynamic: bool| {
        let mut next = config.clone();
        next["tableIndexConfig"]["starTreeIndexConfigs"] = json!([{
            "dimensionsSplitOrder": ["yearID"], "functionColumnPairs": ["SUM__runs"]}]);
        next["tableIndexConfig"]["enableDynamicStarTreeCreation"] = json!(dynamic);
        let (ctl, broker) = (ctl.clone(), broker.clone());
        async move {
            let (status, body) =
                call("PUT", &format!("{ctl}/tables/baseballStats"), Some(next)).await;
            assert_eq!(status, 200, "{body}");
            let (status, _) = call(
                "POST",
                &format!("{ctl}/segments/baseballStats/reload"),
                None,
            )
            .await;
            assert_eq!(status, 200);
            let _ = broker;
        }
    };
    reload_with(false).await;
    // The reload swaps in a rebuilt copy; the old tree keeps answering by team.
    async_std::task::sleep(Duration::from_millis(300)).await;
    let (plan, ..) = explain_and_rows(&broker, by_team).await;
    assert!(plan.contains("dimensions:teamID"), "{plan}");
    reload_with(true).await;
    eventually("the rebuilt segment with the year tree", || {
        let broker = broker.clone();
        async move {
            explain_and_rows(&broker, by_year)
                .await
                .0
                .contains("dimensions:yearID")
        }
    })
    .await;
    let (plan, with, without) = explain_and_rows(&broker, by_year).await;
    assert!(plan.contains("FILTER_STARTREE_INDEX"), "{plan}");
    assert_eq!(with, without);
    let (plan, ..) = explain_and_rows(&broker, by_team).await;
    assert!(!plan.contains("STARTREE"), "{plan}");
    c.stop().await;
}

/// A deleted table never answers: not from the broker's cached routing, not from the
/// server's still-loaded segments. Re-created under the same name with the same segment name,
/// it answers only the new rows — at once, with no wait for a heartbeat (the cluster's
/// heartbeat interval is made long so that nothing but the published change can explain it).
#[async_std::test]
async fn deleted_table_never_answers_and_recreated_table_starts_empty() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = StartOptions::ephemeral(dir.path().to_path_buf());
    opts.logging = Some(test_logging());
    opts.heartbeat_interval = Duration::from_secs(30);
    opts.heartbeat_timeout = Duration::from_secs(120);
    let c = cluster::start(opts).await.unwrap();
    let (ctl, broker, _) = urls(&c);
    assert_eq!(
        call("POST", &format!("{ctl}/schemas"), Some(schema()))
            .await
            .0,
        200
    );
    assert_eq!(
        call("POST", &format!("{ctl}/tables"), Some(table()))
            .await
            .0,
        200
    );
    let seg_dir = tempfile::tempdir().unwrap();
    let old = segment_archive(seg_dir.path(), "baseballStats_0", 200);
    assert_eq!(
        upload(&ctl, "baseballStats", "baseballStats_0", &old)
            .await
            .0,
        200
    );
    // The upload itself published the change: the segment answers without a heartbeat.
    assert_eq!(count(&broker).await["resultTable"]["rows"][0][0], 200);
    // Warm the broker's routing cache, then delete.
    assert_eq!(count(&broker).await["resultTable"]["rows"][0][0], 200);
    let (status, _) = call("DELETE", &format!("{ctl}/tables/baseballStats"), None).await;
    assert_eq!(status, 200);
    let after = count(&broker).await;
    assert!(
        after.get("resultTable").is_none(),
        "deleted table answered: {after}"
    );
    assert_eq!(after["exceptions"][0]["errorCode"], 190, "{after}");
    // Re-created with the same segment name and other rows: only the new rows answer.
    assert_eq!(
        call("POST", &format!("{ctl}/tables"), Some(table()))
            .await
            .0,
        200
    );
    let seg_dir2 = tempfile::tempdir().unwrap();
    let new = segment_archive(seg_dir2.path(), "baseballStats_0", 7);
    assert_eq!(
        upload(&ctl, "baseballStats", "baseballStats_0", &new)
            .await
            .0,
        200
    );
    let recreated = count(&broker).await;
    assert_eq!(recreated["resultTable"]["rows"][0][0], 7, "{recreated}");
    c.stop().await;
}

/// `--query-response-limit`: a larger `LIMIT` (or none, under v2) is lowered to it on v1
/// selections and group-bys and v2 answers alike; smaller ones are kept.
#[async_std::test]
async fn answers_are_capped_at_the_query_response_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = StartOptions::ephemeral(dir.path().to_path_buf());
    opts.logging = Some(test_logging());
    opts.query_response_limit = 4;
    opts.max_query_bytes = 300;
    let c = cluster::start(opts).await.unwrap();
    let (ctl, broker, _) = urls(&c);
    assert_eq!(
        call("POST", &format!("{ctl}/schemas"), Some(schema()))
            .await
            .0,
        200
    );
    assert_eq!(
        call("POST", &format!("{ctl}/tables"), Some(table()))
            .await
            .0,
        200
    );
    let bytes = segment_archive(dir.path(), "baseballStats_0", 30);
    assert_eq!(
        upload(&ctl, "baseballStats", "baseballStats_0", &bytes)
            .await
            .0,
        200
    );
    eventually("rows to load", || {
        let broker = broker.clone();
        async move { count(&broker).await["resultTable"]["rows"] == json!([[30]]) }
    })
    .await;
    for (sql, v2, want) in [
        ("SELECT playerName FROM baseballStats LIMIT 100", false, 4),
        ("SELECT playerName FROM baseballStats LIMIT 2", false, 2),
        (
            "SELECT yearID, COUNT(*) FROM baseballStats GROUP BY yearID LIMIT 100",
            false,
            4,
        ),
        ("SELECT playerName FROM baseballStats", true, 4),
        (
            "SELECT yearID, COUNT(*) FROM baseballStats GROUP BY yearID ORDER BY yearID LIMIT 3",
            true,
            3,
        ),
    ] {
        let mut body = json!({"sql": sql});
        if v2 {
            body["queryOptions"] = json!("useMultistageEngine=true");
        }
        let (s, b) = call("POST", &format!("{broker}/query/sql"), Some(body)).await;
        assert_eq!(s, 200, "{b}");
        assert_eq!(
            b["resultTable"]["rows"].as_array().map(Vec::len),
            Some(want),
            "{sql}: {b}"
        );
    }
    c.stop().await;
}

/// `lookUp` reads the dimension table a server hosts, in both engines, and follows it when its
/// segment is replaced.
#[async_std::test]
async fn lookup_reads_the_hosted_dimension_table_and_follows_its_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(dir.path(), 1 << 30).await;
    let (ctl, broker, _) = urls(&c);
    let teams_schema = json!({
        "schemaName": "teams",
        "dimensionFieldSpecs": [{"name": "teamID", "dataType": "STRING"}, {"name": "teamName", "dataType": "STRING"}],
        "primaryKeyColumns": ["teamID"]
    });
    let teams_table = json!({
        "tableName": "teams",
        "tableType": "OFFLINE",
        "isDimTable": true,
        "segmentsConfig": {"replication": "1", "segmentPushType": "REFRESH"},
        "tenants": {"broker": "DefaultTenant", "server": "DefaultTenant"},
        "tableIndexConfig": {"loadMode": "MMAP"},
        "metadata": {}
    });
    for (path, body) in [
        ("schemas", schema()),
        ("tables", table()),
        ("schemas", teams_schema.clone()),
        ("tables", teams_table.clone()),
    ] {
        let (status, answer) = call("POST", &format!("{ctl}/{path}"), Some(body)).await;
        assert_eq!(status, 200, "{path}: {answer}");
    }
    let seg_dir = tempfile::tempdir().unwrap();
    let facts = segment_archive(seg_dir.path(), "baseballStats_0", 30);
    assert_eq!(
        upload(&ctl, "baseballStats", "baseballStats_0", &facts)
            .await
            .0,
        200
    );
    let teams = |root: &Path, names: [&str; 2]| {
        let schema = Schema::from_json(&teams_schema.to_string()).unwrap();
        let config =
            BuildConfig::from_table_config_json(&teams_table, &schema, Some("teams_0")).unwrap();
        let rows = [("BOS", names[0]), ("NYA", names[1])]
            .map(|(id, name)| Ok(vec![Cell::String(id.into()), Cell::String(name.into())]));
        build_segment_from_rows(&schema, &config, rows.into_iter(), root).unwrap();
        archive::pack(&root.join("teams_0")).unwrap()
    };
    let names = |engine: &'static str| {
        let broker = broker.clone();
        async move {
            let sql = format!(
                "{engine}SELECT lookUp('teams', 'teamName', 'teamID', teamID) AS name, COUNT(*) AS n \
                 FROM baseballStats WHERE teamID IN ('BOS', 'NYA') GROUP BY name ORDER BY name"
            );
            let (status, answer) = call(
                "POST",
                &format!("{broker}/query/sql"),
                Some(json!({ "sql": sql })),
            )
            .await;
            assert_eq!(status, 200, "{answer}");
            answer["resultTable"]["rows"].clone()
        }
    };
    // The second upload refreshes the segment: the index the first lookups built is replaced.
    for (phase, [bos, nya]) in [
        ("the first teams segment", ["Red Sox", "Yankees"]),
        ("the refreshed teams segment", ["Boston", "New York"]),
    ] {
        let root = tempfile::tempdir().unwrap();
        let bytes = teams(root.path(), [bos, nya]);
        assert_eq!(upload(&ctl, "teams", "teams_0", &bytes).await.0, 200);
        for engine in ["", "SET useMultistageEngine=true; "] {
            let expected = json!([[bos, 10], [nya, 10]]);
            eventually(phase, || {
                let names = names(engine);
                let expected = expected.clone();
                async move { names.await == expected }
            })
            .await;
        }
    }
    // A key the dimension table lacks: the column's default null value, with null handling too
    // (Pinot's LookupTransformFunction marks no nulls of its own).
    for engine in [
        "",
        "SET useMultistageEngine=true; ",
        "SET enableNullHandling=true; ",
        "SET enableNullHandling=true; SET useMultistageEngine=true; ",
    ] {
        let expected = json!("null");
        let sql = format!(
            "{engine}SELECT lookUp('teams', 'teamName', 'teamID', CONCAT(teamID, 'x')) \
             FROM baseballStats LIMIT 1"
        );
        let (status, answer) = call(
            "POST",
            &format!("{broker}/query/sql"),
            Some(json!({ "sql": sql })),
        )
        .await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(
            answer["resultTable"]["rows"][0][0], expected,
            "{engine}: {answer}"
        );
    }
    c.stop().await;
}

#[async_std::test]
async fn map_columns_from_schema_to_answers() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(dir.path(), 1 << 20).await;
    let (ctl, broker, _) = urls(&c);
    let child =
        |name: &str, t: &str| json!({"name": name, "dataType": t, "fieldType": "DIMENSION"});
    let mut schema = json!({
        "schemaName": "maps",
        "dimensionFieldSpecs": [{"name": "id", "dataType": "INT"}],
        "complexFieldSpecs": [{
            "name": "intMap", "dataType": "MAP", "fieldType": "COMPLEX",
            "childFieldSpecs": {"key": child("key", "STRING"), "value": child("value", "INT")}
        }]
    });
    // A MAP without its value type is refused and creates nothing.
    let mut broken = schema.clone();
    broken["complexFieldSpecs"][0]["childFieldSpecs"]
        .as_object_mut()
        .unwrap()
        .remove("value");
    let (status, body) = call("POST", &format!("{ctl}/schemas"), Some(broken)).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("Missing 'value'"), "{body}");
    assert_eq!(
        call("GET", &format!("{ctl}/schemas/maps"), None).await.0,
        404
    );

    let (status, body) = call("POST", &format!("{ctl}/schemas"), Some(schema.clone())).await;
    assert_eq!(status, 200, "{body}");
    let (_, stored) = call("GET", &format!("{ctl}/schemas/maps"), None).await;
    schema["enableColumnBasedNullHandling"] = json!(false);
    assert_eq!(
        stored["complexFieldSpecs"], schema["complexFieldSpecs"],
        "{stored}"
    );
    let table = json!({
        "tableName": "maps", "tableType": "OFFLINE",
        "segmentsConfig": {"replication": "1"}, "tenants": {}, "tableIndexConfig": {}
    });
    let (status, body) = call("POST", &format!("{ctl}/tables"), Some(table)).await;
    assert_eq!(status, 200, "{body}");
    let rows = b"{\"id\": 1, \"intMap\": {\"a\": 1, \"b\": \"2\"}}\n{\"id\": 2, \"intMap\": {\"a\": 3}}\n{\"id\": 3}\n";
    let (ct, body) = multipart::encode_file("file", "rows.json", rows);
    let url = format!(
        "{ctl}/ingestFromFile?tableNameWithType=maps_OFFLINE&batchConfigMapStr=%7B%22inputFormat%22%3A%22json%22%7D"
    );
    let ((status, body), _) = call_with("POST", &url, Some(body), Some(&ct), &[]).await;
    assert_eq!(status, 200, "{body}");
    for engine in ["", "SET useMultistageEngine=true; "] {
        let sql = json!({"sql": format!(
            "{engine}SELECT id, intMap, intMap['b'] FROM maps WHERE intMap['a'] < 3 OR id = 3 ORDER BY id"
        )});
        eventually("the maps to be queryable", || {
            let broker = broker.clone();
            let sql = sql.clone();
            async move {
                let (_, body) = call("POST", &format!("{broker}/query/sql"), Some(sql)).await;
                body["resultTable"]["dataSchema"]["columnDataTypes"] == json!(["INT", "MAP", "INT"])
                    && body["resultTable"]["rows"]
                        == json!([[1, {"a": 1, "b": 2}, 2], [3, {}, i32::MIN]])
            }
        })
        .await;
    }
    c.stop().await;
}
