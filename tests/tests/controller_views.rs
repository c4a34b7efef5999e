//! The controller's answers, byte for byte: one in-process cluster driven through every view and
//! status endpoint (and the error bodies of every role), its raw response texts compared with
//! `tests/golden/controller_views.txt`. The golden file was written by the code that built these
//! bodies as `serde_json::Value`s; the typed views that replaced them must print the same bytes
//! (field order included). Values that differ from run to run (ports, times, sizes, job ids) are
//! masked. `TESSERA_BLESS=1 cargo test --test controller_views` rewrites the file.

use api::cluster::{self, StartOptions};
use api::common::archive;
use api::http::multipart;
use segments::types::{Schema, Value as Cell};
use segments::{BuildConfig, build_segment_from_rows};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Status and raw body text of one call.
async fn raw(method: &str, url: &str, body: Option<Vec<u8>>, content_type: &str) -> (u16, String) {
    let client = api::http::http_client();
    let mut req = match method {
        "GET" => client.get(url),
        "POST" => client.post(url),
        "PUT" => client.put(url),
        "DELETE" => client.delete(url),
        other => panic!("method {other}"),
    };
    if let Some(b) = body {
        req = req.body(b).content_type(content_type);
    }
    let mut res = req.await.unwrap();
    (res.status().into(), res.body_string().await.unwrap())
}

fn schema() -> Value {
    json!({
        "schemaName": "views",
        "dimensionFieldSpecs": [{"name": "name", "dataType": "STRING"}, {"name": "team", "dataType": "STRING"}],
        "metricFieldSpecs": [{"name": "runs", "dataType": "INT"}],
        "dateTimeFieldSpecs": [{"name": "year", "dataType": "INT", "format": "1:YEARS:EPOCH", "granularity": "1:YEARS"}],
        "someUnknownField": 7
    })
}

fn table(table_type: &str) -> Value {
    let mut t = json!({
        "tableName": "views",
        "tableType": table_type,
        "segmentsConfig": {"timeColumnName": "year", "replication": "1"},
        "tenants": {"broker": "DefaultTenant", "server": "DefaultTenant"},
        "tableIndexConfig": {"loadMode": "MMAP", "invertedIndexColumns": ["team"]},
        "metadata": {"customConfigs": {}}
    });
    if table_type == "REALTIME" {
        t["tableIndexConfig"]["streamConfigs"] = json!({
            "streamType": "kafka",
            "stream.kafka.topic.name": "views",
            "stream.kafka.broker.list": "127.0.0.1:1",
            "stream.kafka.consumer.type": "lowlevel",
            "stream.kafka.decoder.class.name": "org.apache.pinot.plugin.stream.kafka.KafkaJSONMessageDecoder",
            "stream.kafka.consumer.factory.class.name": "org.apache.pinot.plugin.stream.kafka20.KafkaConsumerFactory"
        });
    }
    t
}

fn segment_archive(root: &Path, name: &str, docs: i32) -> Vec<u8> {
    let schema = Schema::from_json(&schema().to_string()).unwrap();
    let config =
        BuildConfig::from_table_config_json(&table("OFFLINE"), &schema, Some(name)).unwrap();
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

/// Replaces the scalar value after each `"key":` with `"<key>"`.
fn mask_key(text: &str, key: &str) -> String {
    let needle = format!("\"{key}\":");
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(&needle) {
        let (head, tail) = rest.split_at(at + needle.len());
        out.push_str(head);
        let end = if let Some(s) = tail.strip_prefix('"') {
            1 + s.find('"').map_or(s.len(), |e| e + 1)
        } else {
            tail.find([',', '}', ']']).unwrap_or(tail.len())
        };
        out.push_str(&format!("\"<{key}>\""));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

fn golden_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/controller_views.txt")
}

#[async_std::test]
async fn controller_views_print_the_golden_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = StartOptions::ephemeral(dir.path().to_path_buf());
    opts.logging = Some(api::logging::init_for_tests().unwrap());
    // The golden file was written by a controller, a broker and a server (a minion's port
    // would change every run).
    opts.roles = cluster::Roles {
        minion: false,
        ..cluster::Roles::ALL
    };
    let c = cluster::start(opts).await.unwrap();
    let ctl = c.controller_url.clone().unwrap();
    let broker = c.broker_url.clone().unwrap();
    let server = c.server_url.clone().unwrap();
    let query_port = c.query_port.unwrap();
    let server_id = c.server_id.clone().unwrap();
    let mut log = String::new();
    let json_ct = "application/json";

    macro_rules! record {
        ($method:expr, $path:expr) => {
            record!($method, $path, None, json_ct)
        };
        ($method:expr, $path:expr, $body:expr) => {
            record!(
                $method,
                $path,
                Some($body.to_string().into_bytes()),
                json_ct
            )
        };
        ($method:expr, $path:expr, $body:expr, $ct:expr) => {{
            let path: String = $path;
            let base = if path.starts_with("/query") {
                &broker
            } else if path.starts_with("/server") {
                &server
            } else {
                &ctl
            };
            let path = path.trim_start_matches("/server").to_string();
            let (status, text) = raw($method, &format!("{base}{path}"), $body, $ct).await;
            log.push_str(&format!("{} {path} -> {status}\n{text}\n\n", $method));
            (status, text)
        }};
    }

    // Schemas and tables: success bodies, unrecognized properties, errors.
    record!("POST", "/schemas".into(), schema());
    record!("POST", "/schemas?override=false".into(), schema());
    record!("GET", "/schemas/nope".into());
    record!("POST", "/tables".into(), table("OFFLINE"));
    let (status, _) = record!("POST", "/tables".into(), table("REALTIME"));
    record!("GET", "/tables".into());
    record!("GET", "/tables?type=offline".into());
    record!("PUT", "/tables/views_OFFLINE".into(), table("OFFLINE"));
    record!("GET", "/tables/views".into());
    record!("GET", "/tables/views/schema".into());
    record!("GET", "/schemas/views".into());

    // Segments: upload, lists, server map, state views, size.
    for (name, docs) in [("views_0", 30), ("views_1", 12)] {
        let bytes = segment_archive(dir.path(), name, docs);
        let (ct, body) = multipart::encode_file(name, &format!("{name}.tar.gz"), &bytes);
        record!("POST", "/segments?tableName=views".into(), Some(body), &ct);
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, text) = raw(
            "GET",
            &format!("{ctl}/tables/views/externalview"),
            None,
            json_ct,
        )
        .await;
        if text.matches("ONLINE").count() == 2 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "segments never came online: {text}"
        );
        async_std::task::sleep(Duration::from_millis(50)).await;
    }
    record!("GET", "/segments/views".into());
    record!("GET", "/segments/views?type=OFFLINE".into());
    record!("GET", "/segments/views/servers".into());
    record!("GET", "/segments/nope".into());
    record!("GET", "/server/tables".into());
    record!("GET", "/server/tessera/segments/views_OFFLINE".into());
    record!("GET", "/loggers/root".into());
    record!("PUT", "/loggers/root?level=INFO".into(), "");
    record!("GET", "/loggers/nope".into());
    record!("GET", "/tables/views/idealstate".into());
    record!("GET", "/tables/views/externalview?type=OFFLINE".into());
    record!("GET", "/tables/views/size".into());
    record!("GET", "/tables/views/size?verbose=false".into());
    record!("GET", "/tables/nope/size".into());
    record!("POST", "/segments/views/reload".into(), "");
    record!("POST", "/segments/views/relocate".into(), "");

    // Real-time pause and resume (when the real-time table could be created).
    if status == 200 {
        record!(
            "POST",
            "/tables/views/pauseConsumption?comment=maintenance".into(),
            ""
        );
        record!("GET", "/tables/views/pauseStatus".into());
        record!("POST", "/tables/views/resumeConsumption".into(), "");
        record!("GET", "/tables/views/pauseStatus".into());
    }
    record!("GET", "/tables/nope/pauseStatus".into());

    // Instances and tenants.
    record!("GET", "/instances".into());
    record!("GET", format!("/instances/{server_id}"));
    record!("GET", "/instances/nope".into());
    record!("GET", "/tenants".into());
    record!("GET", "/tenants?type=server".into());
    record!("GET", "/tenants?type=broker".into());
    record!("GET", "/tenants?type=neither".into());
    record!("GET", "/tenants/DefaultTenant".into());
    record!("GET", "/tenants/DefaultTenant?type=broker".into());
    record!("GET", "/tenants/nope".into());
    record!(
        "PUT",
        format!(
            "/instances/{server_id}/updateTags?tags=DefaultTenant_OFFLINE,DefaultTenant_REALTIME"
        ),
        ""
    );
    record!(
        "POST",
        "/instances".into(),
        json!({"host": "127.0.0.1", "port": 1, "type": "BROKER"})
    );
    record!("GET", "/tessera/catalog".into());

    // Ingest from a file, then deletions.
    let rows = b"{\"name\": \"ann\", \"team\": \"BOS\", \"runs\": 3, \"year\": 2000}\n";
    let (ct, body) = multipart::encode_file("file", "rows.json", rows);
    record!(
        "POST",
        "/ingestFromFile?tableNameWithType=views_OFFLINE&batchConfigMapStr=%7B%22inputFormat%22%3A%22json%22%2C%22segmentNameGenerator.configs.segment.name.postfix%22%3A%229%22%7D".into(),
        Some(body),
        &ct
    );
    record!("DELETE", "/segments/views/views_1".into());
    record!("DELETE", "/segments/views?type=OFFLINE".into());
    record!("DELETE", "/tables/views".into());
    record!("DELETE", "/schemas/views".into());
    record!("DELETE", "/tables/views".into());

    // Error bodies of the broker and the server.
    record!("GET", "/query/nope".into());
    record!("GET", "/server/tables/nope/segments/nope/metadata".into());
    record!("GET", "/server/nope".into());

    c.stop().await;

    let mut text = log;
    for (url, name) in [
        (&ctl, "controller"),
        (&broker, "broker"),
        (&server, "server"),
    ] {
        let port = url.rsplit(':').next().unwrap().to_string();
        text = text.replace(&port, &format!("<{name} port>"));
    }
    text = text.replace(&query_port.to_string(), "<query port>");
    for key in [
        "timestamp",
        "reloadJobId",
        "reportedSizeInBytes",
        "estimatedSizeInBytes",
        "maxReportedSizePerReplicaInBytes",
        "reportedSizePerReplicaInBytes",
        "diskSizeInBytes",
        "crc",
        "creationTime",
    ] {
        text = mask_key(&text, key);
    }
    // The reload status is a JSON text inside a string: its job id is escaped.
    let escaped = "reloadJobId\\\":\\\"";
    let mut from = 0;
    while let Some(at) = text[from..].find(escaped) {
        let start = from + at + escaped.len();
        let len = text[start..].find('\\').unwrap_or(0);
        text.replace_range(start..start + len, "<reloadJobId>");
        from = start;
    }
    let path = golden_path();
    if std::env::var_os("TESSERA_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let golden = std::fs::read_to_string(&path).unwrap();
    if golden != text {
        let first = golden
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(golden.lines().count().min(text.lines().count()));
        panic!(
            "controller responses differ from {} at line {}:\n golden: {:?}\n now:    {:?}",
            path.display(),
            first + 1,
            golden.lines().nth(first),
            text.lines().nth(first)
        );
    }
}
