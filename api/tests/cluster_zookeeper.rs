//! Many machines on ZooKeeper: two controllers, a broker and two servers as separate processes
//! sharing one ZooKeeper (Debian's, started here) and one deep store, segments replicated
//! twice. Under a steady query load and a stream of edits: the leading controller is killed
//! (kill -9) and the other leads and takes the writes, the killed one rejoins; a server is
//! killed and its replicas answer; ZooKeeper itself goes down and queries are answered from the
//! broker's last routing while writes fail with a clear error, then succeed once it is back.

mod support;

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use support::zookeeper::ZooKeeper;
use support::{Proc, call, post_json};
use tessera_api::metadata::MetadataStore;
use tessera_api::metadata::zk::{ZkConfig, ZkStore};

async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !check().await {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        async_std::task::sleep(Duration::from_millis(50)).await;
    }
    start.elapsed()
}

/// Counts the broker's answers to `SELECT COUNT(*)` until `stop`: `answered` with `expected`
/// rows, `failed` otherwise.
fn query_load(
    broker: &str,
    expected: u64,
    stop: &Arc<AtomicBool>,
    answered: &Arc<AtomicUsize>,
    failed: &Arc<AtomicUsize>,
) -> async_std::task::JoinHandle<()> {
    let (stop, answered, failed) = (stop.clone(), answered.clone(), failed.clone());
    let url = format!("{broker}/query/sql");
    async_std::task::spawn(async move {
        while !stop.load(Ordering::SeqCst) {
            let sql = json!({"sql": "SELECT COUNT(*) FROM lineitem"});
            let (status, body) = post_json(&url, sql).await;
            if status == 200 && body["resultTable"]["rows"] == json!([[expected]]) {
                answered.fetch_add(1, Ordering::SeqCst);
            } else {
                failed.fetch_add(1, Ordering::SeqCst);
                eprintln!("failed query: {status} {body}");
            }
            async_std::task::sleep(Duration::from_millis(20)).await;
        }
    })
}

fn schema_named(n: usize) -> Value {
    json!({
        "schemaName": format!("edit_{n}"),
        "dimensionFieldSpecs": [{"name": "k", "dataType": "STRING"}],
    })
}

#[async_std::test]
async fn two_controllers_two_servers_on_zookeeper_survive_kills_and_an_outage() {
    let Some(mut zk) = ZooKeeper::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = |sub: &str| dir.path().join(sub).to_string_lossy().into_owned();
    let address = zk.address();
    let deep = d("deep");
    let common = [
        "--zk",
        &address,
        "--cluster-name",
        "failover",
        "--zk-session-timeout-ms",
        "2000",
        "--deep-store",
        &deep,
        "--heartbeat-ms",
        "100",
    ];
    let start = |role: &str, data: &str| -> (Proc, String) {
        let port_flag = format!("--{role}-port");
        let (proc, urls) = support::start(
            &[
                &["--roles", role, &port_flag, "0", "--data-dir", data][..],
                &common,
            ]
            .concat(),
        );
        (proc, urls[role].clone())
    };
    // The first controller leads: it queued first in the latch.
    let (c1, ctl1) = start("controller", &d("c1"));
    let (_c2, ctl2) = start("controller", &d("c2"));
    let (_broker, broker) = start("broker", &d("b"));
    let (s1, _) = start("server", &d("s1"));
    let (_s2, _) = start("server", &d("s2"));
    eventually(
        "every instance to be live on both controllers",
        async || {
            let mut ok = true;
            for ctl in [&ctl1, &ctl2] {
                let (_, body) = call("GET", &format!("{ctl}/instances"), None).await;
                ok &= body["instances"].as_array().is_some_and(|i| i.len() == 5);
            }
            ok
        },
    )
    .await;

    // A table made on one controller, its segments uploaded to the other, replicated twice.
    let schema = tessera_api::quickstart::lineitem::schema();
    let mut table = tessera_api::quickstart::lineitem::table_config();
    table["segmentsConfig"]["replication"] = json!("2");
    assert_eq!(post_json(&format!("{ctl1}/schemas"), schema).await.0, 200);
    let (status, body) = post_json(&format!("{ctl1}/tables"), table.clone()).await;
    assert_eq!(status, 200, "{body}");
    for name in ["lineitem_a", "lineitem_b"] {
        let bytes = support::lineitem_segment(dir.path(), name, 300);
        let (status, body) = support::upload_segment(&ctl2, "lineitem", name, &bytes).await;
        assert_eq!(status, 200, "{body}");
    }
    eventually("both replicas of both segments to be online", async || {
        let (_, body) = call("GET", &format!("{ctl1}/tables/lineitem/externalview"), None).await;
        ["lineitem_a", "lineitem_b"].iter().all(|s| {
            body["OFFLINE"][s]
                .as_object()
                .is_some_and(|m| m.len() == 2 && m.values().all(|v| v == "ONLINE"))
        })
    })
    .await;

    // The segment metadata names each archive's place in the shared deep store.
    let (_, meta) = call("GET", &format!("{ctl1}/segments/lineitem/zkmetadata"), None).await;
    let url = meta["lineitem_a"]["segment.download.url"]
        .as_str()
        .unwrap_or_default();
    assert!(
        url.starts_with("file://") && url.contains(&format!("{deep}/lineitem_OFFLINE/lineitem_a.")),
        "{meta}"
    );

    // Pinot's per-table znodes say the same, for tools that read ZooKeeper.
    let viewer = ZkStore::connect(ZkConfig::new(&address, "failover")).unwrap();
    let view = |key: &str| -> Value {
        viewer
            .get(key)
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(Value::Null)
    };
    let online = |v: &Value, segment: &str| {
        v["mapFields"][segment]
            .as_object()
            .map_or(0, |m| m.values().filter(|s| *s == "ONLINE").count())
    };
    eventually("the external view znode", async || {
        let ev = view("externalview/lineitem_OFFLINE");
        online(&ev, "lineitem_a") == 2 && online(&ev, "lineitem_b") == 2
    })
    .await;
    let ideal = view("idealstates/lineitem_OFFLINE");
    assert_eq!(ideal["id"], "lineitem_OFFLINE", "{ideal}");
    assert_eq!(online(&ideal, "lineitem_b"), 2, "{ideal}");

    // A steady query load through the broker, counting every answer that is not the full count.
    let stop = Arc::new(AtomicBool::new(false));
    let (answered, failed) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let load = query_load(&broker, 600, &stop, &answered, &failed);
    async_std::task::sleep(Duration::from_millis(500)).await;

    // A stream of edits — new schemas, and changes to the table's config — each sent to the two
    // controllers in turn (the next one when one cannot be reached, as a client with both
    // addresses does), counting acknowledgements and refusals by a controller that answered.
    let acked: Arc<std::sync::Mutex<Vec<usize>>> = Arc::default();
    let refused = Arc::new(AtomicUsize::new(0));
    let edit_stream = {
        let (stop, acked, refused) = (stop.clone(), acked.clone(), refused.clone());
        let controllers = [ctl1.clone(), ctl2.clone()];
        let table = table.clone();
        async_std::task::spawn(async move {
            let mut n = 0;
            while !stop.load(Ordering::SeqCst) {
                n += 1;
                for i in 0..2 {
                    let ctl = &controllers[(n + i) % 2];
                    let (status, body) = if n % 2 == 1 {
                        post_json(&format!("{ctl}/schemas"), schema_named(n)).await
                    } else {
                        let mut edited = table.clone();
                        edited["metadata"]["customConfigs"]["edit"] = json!(n.to_string());
                        let body =
                            Some((edited.to_string().into_bytes(), "application/json".into()));
                        call("PUT", &format!("{ctl}/tables/lineitem"), body).await
                    };
                    match status {
                        200 => acked.lock().unwrap().push(n),
                        0 => continue,
                        _ => {
                            refused.fetch_add(1, Ordering::SeqCst);
                            eprintln!("edit {n} refused by {ctl}: {status} {body}");
                        }
                    }
                    break;
                }
                async_std::task::sleep(Duration::from_millis(10)).await;
            }
        })
    };
    async_std::task::sleep(Duration::from_millis(300)).await;

    // Kill the leader mid-load; the other controller takes the writes.
    drop(c1);
    let killed = Instant::now();
    let before = acked.lock().unwrap().len();
    let failover = eventually("the surviving controller to accept a write", async || {
        acked.lock().unwrap().len() > before + 5
    })
    .await;
    eprintln!("failover: leader killed → 5 more edits accepted in {failover:?}");
    async_std::task::sleep(Duration::from_millis(300)).await;

    // (The load's expected count moves with the next upload: the load stops first.)
    // (The load's expected count moves with the next upload: the load stops first.)
    stop.store(true, Ordering::SeqCst);
    load.await;
    edit_stream.await;
    assert_eq!(
        refused.load(Ordering::SeqCst),
        0,
        "edits refused during the failover"
    );
    let edits = acked.lock().unwrap().clone();
    // Every acknowledged edit is there (none acknowledged and then lost): each new schema, and
    // the table's config as the last acknowledged change left it.
    let (_, body) = call("GET", &format!("{ctl2}/schemas"), None).await;
    let names = body.as_array().cloned().unwrap_or_default();
    for n in edits.iter().filter(|n| *n % 2 == 1) {
        assert!(names.contains(&json!(format!("edit_{n}"))), "edit {n} lost");
    }
    let last_table_edit = edits.iter().rev().find(|n| *n % 2 == 0).unwrap();
    let (_, body) = call("GET", &format!("{ctl2}/tables/lineitem"), None).await;
    assert_eq!(
        body["OFFLINE"]["metadata"]["customConfigs"]["edit"],
        json!(last_table_edit.to_string()),
        "{body}"
    );
    let edits = *edits.iter().rev().find(|n| *n % 2 == 1).unwrap();

    // A segment uploaded now is routed at once: the broker learns of it without polling.
    let bytes = support::lineitem_segment(dir.path(), "lineitem_c", 100);
    let uploading = Instant::now();
    let (status, body) = support::upload_segment(&ctl2, "lineitem", "lineitem_c", &bytes).await;
    assert_eq!(status, 200, "{body}");
    let upload = uploading.elapsed();
    let routed = eventually("the new segment to be queried", async || {
        let sql = json!({"sql": "SELECT COUNT(*) FROM lineitem"});
        post_json(&format!("{broker}/query/sql"), sql).await.1["resultTable"]["rows"]
            == json!([[700]])
    })
    .await;
    eprintln!(
        "routing change on ZooKeeper: upload answered in {upload:?}, then the first query that sees it after {routed:?}"
    );
    assert_eq!(
        failed.load(Ordering::SeqCst),
        0,
        "queries failed during the failover"
    );
    assert!(answered.load(Ordering::SeqCst) > 10);
    eprintln!(
        "{} queries answered while the leader died, 0 failed ({:?} since the kill)",
        answered.load(Ordering::SeqCst),
        killed.elapsed()
    );

    // The killed controller restarts and rejoins: it sees every edit made without it.
    let (_c1, ctl1) = start("controller", &d("c1"));
    let (_, body) = call("GET", &format!("{ctl1}/schemas"), None).await;
    let names = body.as_array().cloned().unwrap_or_default();
    assert!(names.contains(&json!(format!("edit_{edits}"))), "{names:?}");
    let (status, body) = post_json(&format!("{ctl1}/schemas"), schema_named(1000)).await;
    assert_eq!(status, 200, "{body}");

    // Kill a server under load: its replicas answer, nothing fails.
    stop.store(false, Ordering::SeqCst);
    let failed_before = failed.load(Ordering::SeqCst);
    let load = query_load(&broker, 700, &stop, &answered, &failed);
    async_std::task::sleep(Duration::from_millis(300)).await;
    drop(s1);
    eventually(
        "the killed server to leave the live instances",
        async || {
            let (_, body) =
                call("GET", &format!("{ctl2}/tables/lineitem/externalview"), None).await;
            body["OFFLINE"]["lineitem_a"]
                .as_object()
                .is_some_and(|m| m.values().filter(|v| *v == "ONLINE").count() == 1)
        },
    )
    .await;
    // The new leader keeps the external view znode current too.
    eventually(
        "the external view znode to show the dead server",
        async || online(&view("externalview/lineitem_OFFLINE"), "lineitem_a") == 1,
    )
    .await;
    viewer.close();
    async_std::task::sleep(Duration::from_millis(500)).await;
    stop.store(true, Ordering::SeqCst);
    load.await;
    assert_eq!(
        failed.load(Ordering::SeqCst),
        failed_before,
        "queries failed after a replicated server died"
    );

    // ZooKeeper goes down: queries are answered from the broker's last routing; a write fails
    // with a clear error and changes nothing.
    eprintln!("before the outage: {:?}", Instant::now());
    zk.kill();
    async_std::task::sleep(Duration::from_millis(300)).await;
    for _ in 0..10 {
        let sql = json!({"sql": "SELECT COUNT(*) FROM lineitem"});
        let (status, body) = post_json(&format!("{broker}/query/sql"), sql).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["resultTable"]["rows"], json!([[700]]), "{body}");
        async_std::task::sleep(Duration::from_millis(50)).await;
    }
    let (status, body) = post_json(&format!("{ctl2}/schemas"), schema_named(2000)).await;
    assert_eq!(status, 503, "{body}");
    assert!(
        body.to_string().contains("metadata store unavailable"),
        "{body}"
    );
    // Back: writes succeed again and nothing was lost.
    let outage = Instant::now();
    zk.resume();
    eprintln!("ZooKeeper restarted in {:?}", outage.elapsed());
    let back = eventually("a write after ZooKeeper is back", async || {
        post_json(&format!("{ctl2}/schemas"), schema_named(2001))
            .await
            .0
            == 200
    })
    .await;
    eprintln!("first write accepted {back:?} after ZooKeeper answered again");
    let (_, body) = call("GET", &format!("{ctl2}/schemas"), None).await;
    let names = body.as_array().cloned().unwrap_or_default();
    assert!(names.contains(&json!("edit_1000")), "{names:?}");
    assert!(!names.contains(&json!("edit_2000")), "{names:?}");
    eventually("queries after ZooKeeper is back", async || {
        let sql = json!({"sql": "SELECT COUNT(*) FROM lineitem"});
        post_json(&format!("{broker}/query/sql"), sql).await.1["resultTable"]["rows"]
            == json!([[700]])
    })
    .await;
}

/// A one-machine cluster grows onto ZooKeeper: its embedded metadata is exported, imported into
/// ZooKeeper, and roles started with `--zk` (the deep store where it was) answer the same data.
#[async_std::test]
async fn an_embedded_cluster_moves_onto_zookeeper() {
    let Some(zk) = ZooKeeper::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("one");
    let data_s = data.to_string_lossy().into_owned();
    let fast = ["--heartbeat-ms", "100", "--instance-id", "Server_kept"];
    let ports = [
        "--controller-port",
        "0",
        "--broker-port",
        "0",
        "--server-port",
        "0",
    ];
    let (one, urls) = support::start(&[&ports[..], &["--data-dir", &data_s], &fast].concat());
    let (ctl, broker) = (urls["controller"].clone(), urls["broker"].clone());
    let schema = tessera_api::quickstart::lineitem::schema();
    let table = tessera_api::quickstart::lineitem::table_config();
    assert_eq!(post_json(&format!("{ctl}/schemas"), schema).await.0, 200);
    assert_eq!(post_json(&format!("{ctl}/tables"), table).await.0, 200);
    let bytes = support::lineitem_segment(dir.path(), "lineitem_m", 250);
    let (status, body) = support::upload_segment(&ctl, "lineitem", "lineitem_m", &bytes).await;
    assert_eq!(status, 200, "{body}");
    let count = async |broker: &str| {
        let sql = json!({"sql": "SELECT COUNT(*) FROM lineitem"});
        post_json(&format!("{broker}/query/sql"), sql).await.1["resultTable"]["rows"].clone()
    };
    eventually("the embedded cluster to answer", async || {
        count(&broker).await == json!([[250]])
    })
    .await;
    drop(one);

    let exported = dir.path().join("metadata.json");
    let tessera = env!("CARGO_BIN_EXE_tessera");
    let out = std::process::Command::new(tessera)
        .args(["admin", "export-metadata", "--data-dir", &data_s, "--out"])
        .arg(&exported)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&exported).unwrap()).unwrap();
    assert!(
        doc["entries"]["tables/lineitem_OFFLINE"].is_string(),
        "{doc}"
    );
    let import = |force: bool| {
        let mut cmd = std::process::Command::new(tessera);
        cmd.args(["admin", "import-metadata", "--zk", &zk.address()])
            .args(["--cluster-name", "migrated", "--in"])
            .arg(&exported);
        if force {
            cmd.arg("--force");
        }
        cmd.output().unwrap()
    };
    let out = import(false);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A second import would overwrite: refused without --force.
    let out = import(false);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already has"));

    let deep = data.join("controller").join("deepstore");
    let address = zk.address();
    let (_grown, urls) = support::start(
        &[
            &ports[..],
            &[
                "--data-dir",
                &data_s,
                "--zk",
                &address,
                "--cluster-name",
                "migrated",
            ],
            &["--deep-store", &deep.to_string_lossy()],
            &fast,
        ]
        .concat(),
    );
    let broker = urls["broker"].clone();
    eventually("the cluster on ZooKeeper to answer the same", async || {
        count(&broker).await == json!([[250]])
    })
    .await;
}
