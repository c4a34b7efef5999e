//! A cluster of separate `tessera start` processes: one controller, one broker and two
//! servers. Segments are balanced over the servers, a stopped server goes offline and its
//! segments leave the routing table, and a restarted server (same id, same data dir) serves
//! them again. With every segment on both servers: a server that stalls, before or during a
//! query, costs about a second, not the query's timeout; and a broker keeps routing as of the
//! last change it was told of when the controller dies right after.

mod support;

use serde_json::{Value, json};
use std::process::Command;
use std::time::{Duration, Instant};
use support::{Proc, call, post_json};

/// Starts `tessera start <args>` and returns it with the URL it printed for `role`.
fn start(args: &[&str], role: &str) -> (Proc, String) {
    let (proc, urls) = support::start(args);
    (proc, urls[role].clone())
}

async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        async_std::task::sleep(Duration::from_millis(100)).await;
    }
}

#[async_std::test]
async fn controller_broker_and_two_servers_as_processes() {
    let dir = tempfile::tempdir().unwrap();
    let d = |sub: &str| dir.path().join(sub).to_string_lossy().into_owned();
    let fast = ["--heartbeat-ms", "100"];
    let (_controller, ctl) = start(
        &[
            &[
                "--roles",
                "controller",
                "--controller-port",
                "0",
                "--data-dir",
                &d("c"),
            ][..],
            &fast,
        ]
        .concat(),
        "controller",
    );
    let (_broker, broker) = start(
        &[
            &[
                "--roles",
                "broker",
                "--broker-port",
                "0",
                "--controller-url",
                &ctl,
                "--data-dir",
                &d("b"),
            ][..],
            &fast,
        ]
        .concat(),
        "broker",
    );
    let s1_dir = d("s1");
    let s1_args = [
        &[
            "--roles",
            "server",
            "--server-port",
            "0",
            "--controller-url",
            &ctl,
            "--data-dir",
            &s1_dir,
            "--instance-id",
            "Server_one",
        ][..],
        &fast,
    ]
    .concat();
    let (s1, _) = start(&s1_args, "server");
    let (_s2, _) = start(
        &[
            &[
                "--roles",
                "server",
                "--server-port",
                "0",
                "--controller-url",
                &ctl,
                "--data-dir",
                &d("s2"),
                "--instance-id",
                "Server_two",
            ][..],
            &fast,
        ]
        .concat(),
        "server",
    );

    assert_eq!(
        call("GET", &format!("{broker}/health"), None).await,
        (200, json!("OK"))
    );
    eventually("all instances to register", async || {
        let (_, body) = call("GET", &format!("{ctl}/instances"), None).await;
        body["instances"].as_array().is_some_and(|i| i.len() == 4)
    })
    .await;

    let schema = tessera_api::quickstart::lineitem::schema();
    let table = tessera_api::quickstart::lineitem::table_config();
    assert_eq!(post_json(&format!("{ctl}/schemas"), schema).await.0, 200);
    assert_eq!(post_json(&format!("{ctl}/tables"), table).await.0, 200);
    for name in ["lineitem_a", "lineitem_b"] {
        let bytes = support::lineitem_segment(dir.path(), name, 200);
        let (status, body) = support::upload_segment(&ctl, "lineitem", name, &bytes).await;
        assert_eq!(status, 200, "{body}");
    }

    // Balanced: one segment per server, both loaded.
    let routing = format!("{ctl}/tessera/routing/lineitem_OFFLINE");
    eventually("both segments to be served", async || {
        let (_, body) = call("GET", &routing, None).await;
        let hosts: Vec<Value> = ["lineitem_a", "lineitem_b"]
            .iter()
            .map(|s| body["segments"][s].clone())
            .collect();
        hosts
            .iter()
            .all(|h| h.as_array().is_some_and(|a| a.len() == 1))
            && hosts[0] != hosts[1]
    })
    .await;
    let count = async || {
        let sql = json!({"sql": "SELECT COUNT(*) FROM lineitem"});
        post_json(&format!("{broker}/query/sql"), sql).await.1
    };
    let body = count().await;
    assert_eq!(body["resultTable"]["rows"], json!([[400]]), "{body}");
    assert_eq!(
        (&body["numServersQueried"], &body["numServersResponded"]),
        (&json!(2), &json!(2))
    );
    // Through the controller too.
    let (_, body) = post_json(
        &format!("{ctl}/sql"),
        json!({"sql": "SELECT COUNT(*) FROM lineitem"}),
    )
    .await;
    assert_eq!(body["resultTable"]["rows"], json!([[400]]), "{body}");

    let (_, body) = call("GET", &routing, None).await;
    let on_one = ["lineitem_a", "lineitem_b"]
        .into_iter()
        .find(|s| body["segments"][s] == json!(["Server_one"]))
        .unwrap();

    // Stop server one: it goes offline and its segment leaves the routing table.
    drop(s1);
    eventually("server one to go offline", async || {
        let (_, body) = call("GET", &format!("{ctl}/instances/Server_one"), None).await;
        body["online"] == json!(false)
    })
    .await;
    let (_, body) = call("GET", &routing, None).await;
    assert_eq!(body["segments"][on_one], json!([]));
    // The broker answers with what is left and says a segment is unavailable (305).
    let body = count().await;
    assert_eq!(body["resultTable"]["rows"], json!([[200]]), "{body}");
    assert_eq!(body["exceptions"][0]["errorCode"], 305, "{body}");
    assert_eq!(body["partialResult"], true);

    // Restart it on the same data dir: it reopens its local copy and serves again.
    let (_s1, _) = start(&s1_args, "server");
    eventually("server one to serve again", async || {
        let (_, body) = call("GET", &routing, None).await;
        body["segments"][on_one] == json!(["Server_one"])
    })
    .await;
    assert_eq!(count().await["resultTable"]["rows"], json!([[400]]));
}

#[async_std::test]
async fn log_dir_rotation_and_level_flags() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("elsewhere");
    let data = dir.path().join("data");
    let (_p, ctl) = start(
        &[
            "--controller-port",
            "0",
            "--broker-port",
            "0",
            "--server-port",
            "0",
            "--data-dir",
            data.to_str().unwrap(),
            "--log-dir",
            logs.to_str().unwrap(),
            "--log-max-file-bytes",
            "4096",
            "--log-max-files",
            "3",
            "--log-level",
            "debug",
            "--no-log-stderr",
        ],
        "controller",
    );
    let (status, root) = call("GET", &format!("{ctl}/loggers/root"), None).await;
    assert_eq!((status, root["level"].clone()), (200, json!("DEBUG")));
    // Enough requests to fill several 4 KiB files.
    for _ in 0..300 {
        call("GET", &format!("{ctl}/loggers/root"), None).await;
    }
    let on_disk: Vec<String> = std::fs::read_dir(&logs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        (2..=3).contains(&on_disk.len()),
        "expected rotation to keep 2..=3 files, found {on_disk:?}"
    );
    assert!(!data.join("logs").exists(), "logs went to the data dir");
    let (status, listed) = call("GET", &format!("{ctl}/loggers/files"), None).await;
    assert_eq!(status, 200);
    let mut listed: Vec<String> = serde_json::from_value(listed).unwrap();
    let mut on_disk = on_disk;
    listed.sort();
    on_disk.sort();
    assert_eq!(listed, on_disk);
}

#[test]
fn bad_log_flags_are_rejected_before_starting() {
    for (flag, value, message) in [
        ("--log-level", "LOUD", "unknown log level 'LOUD'"),
        ("--log-max-files", "0", "must be at least 1"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .args(["start", "--controller-port", "0", flag, value])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{flag} {value}: {stderr}");
    }
}

/// A server that stops answering without closing anything (SIGSTOP: its kernel still accepts
/// connections, nothing replies) costs the queries in flight the query channel's silence limit,
/// not the broker's 10 s timeout, and later queries nothing: the broker routes to the other
/// replica until the stalled server answers a probe again. Both engines.
/// A controller, a broker and two servers holding every segment of `lineitem` (replication
/// 2: three segments of 100 rows), each answering both engines.
struct Replicated {
    _dir: tempfile::TempDir,
    _others: Vec<Proc>,
    controller: Option<Proc>,
    ctl: String,
    /// The first server, to stop.
    s1: Proc,
    broker: String,
}

impl Replicated {
    async fn start() -> Replicated {
        let dir = tempfile::tempdir().unwrap();
        let d = |sub: &str| dir.path().join(sub).to_string_lossy().into_owned();
        let role = |role: &str, data: &str, extra: &[&str]| {
            let port = format!("--{role}-port");
            let mut args = vec!["--roles", role, &port, "0", "--data-dir", data];
            args.extend_from_slice(extra);
            start(&args.iter().map(|s| &**s).collect::<Vec<_>>(), role)
        };
        let (controller, ctl) = role("controller", &d("c"), &[]);
        let (broker_proc, broker) = role("broker", &d("b"), &["--controller-url", &ctl]);
        let (s1, _) = role("server", &d("s1"), &["--controller-url", &ctl]);
        let (s2, _) = role("server", &d("s2"), &["--controller-url", &ctl]);
        support::wait_for_servers(&ctl, 2).await;
        let schema = tessera_api::quickstart::lineitem::schema();
        let mut table = tessera_api::quickstart::lineitem::table_config();
        table["segmentsConfig"]["replication"] = json!("2");
        assert_eq!(post_json(&format!("{ctl}/schemas"), schema).await.0, 200);
        assert_eq!(post_json(&format!("{ctl}/tables"), table).await.0, 200);
        for name in ["stall_a", "stall_b", "stall_c"] {
            let bytes = support::lineitem_segment(dir.path(), name, 100);
            let (status, body) = support::upload_segment(&ctl, "lineitem", name, &bytes).await;
            assert_eq!(status, 200, "{body}");
        }
        let cluster = Replicated {
            _dir: dir,
            _others: vec![broker_proc, s2],
            controller: Some(controller),
            ctl,
            s1,
            broker,
        };
        eventually("both replicas of every segment to answer", async || {
            cluster.count(false, "").await.1["resultTable"]["rows"] == json!([[300]])
                && cluster.count(true, "").await.1["resultTable"]["rows"] == json!([[300]])
        })
        .await;
        cluster
    }

    /// `SELECT COUNT(*) FROM lineitem <filter>` on either engine, and how long it took.
    async fn count(&self, engine_v2: bool, filter: &str) -> (Duration, Value) {
        let sql = json!({
            "sql": format!("SELECT COUNT(*) FROM lineitem {filter}"),
            "queryOptions": format!("useMultistageEngine={engine_v2}"),
        });
        let started = Instant::now();
        let (_, body) = post_json(&format!("{}/query/sql", self.broker), sql).await;
        (started.elapsed(), body)
    }

    /// Stops (SIGSTOP) or continues (SIGCONT) the first server.
    fn stall_s1(&self, stop: bool) {
        let sig = if stop { libc::SIGSTOP } else { libc::SIGCONT };
        // SAFETY: signals a child this test started, by its id.
        assert_eq!(unsafe { libc::kill(self.s1.0.id() as i32, sig) }, 0);
    }
}

#[async_std::test]
async fn a_stalled_server_is_routed_around_long_before_the_query_timeout() {
    let cluster = Replicated::start().await;
    cluster.stall_s1(true);
    // The first query after the stall is multi-stage: its stage submission meets the silent
    // server, and the query is placed again on the replica.
    let mut took = Vec::new();
    for i in 0..20 {
        let (t, body) = cluster.count(i % 2 == 0, "").await;
        let rows = &body["resultTable"]["rows"];
        assert_eq!(rows, &json!([[300]]), "query {i}: {body}");
        assert_eq!(body["exceptions"], json!([]), "query {i}: {body}");
        took.push(t);
    }
    cluster.stall_s1(false);
    let slowest = took.iter().max().copied().unwrap_or_default();
    eprintln!(
        "stalled server: first query {:?}, the next 19 {:?} in all",
        took[0],
        took[1..].iter().sum::<Duration>()
    );
    // The broker's timeout is 10 s: no query waited it out on the stalled server.
    assert!(
        slowest < Duration::from_secs(5),
        "slowest query {slowest:?}"
    );
    // Back: the server answers its probe and queries still count every row.
    async_std::task::sleep(Duration::from_secs(3)).await;
    for i in 0..4 {
        let (_, body) = cluster.count(i % 2 == 1, "").await;
        assert_eq!(body["resultTable"]["rows"], json!([[300]]), "after: {body}");
    }
}

#[async_std::test]
async fn a_server_stalled_while_a_multistage_query_runs_leaves_it_to_the_replica() {
    let cluster = Replicated::start().await;
    // Each server sleeps 4 ms a row: the query runs about a second, its stages submitted
    // long before the stall.
    let slow = "WHERE sleep(4) >= 0";
    let running = async_std::task::spawn({
        let broker = cluster.broker.clone();
        async move {
            let sql = json!({
                "sql": format!("SELECT COUNT(*) FROM lineitem {slow}"),
                "queryOptions": "useMultistageEngine=true",
            });
            let started = Instant::now();
            let (_, body) = post_json(&format!("{broker}/query/sql"), sql).await;
            (started.elapsed(), body)
        }
    });
    async_std::task::sleep(Duration::from_millis(300)).await;
    cluster.stall_s1(true);
    let (took, body) = running.await;
    cluster.stall_s1(false);
    // Without the watch on a running query's servers, it would wait out the broker's 10 s
    // timeout for rows that never come, and fail.
    assert_eq!(body["resultTable"]["rows"], json!([[300]]), "{body}");
    assert_eq!(body["exceptions"], json!([]), "{body}");
    assert!(took < Duration::from_secs(8), "took {took:?}");
    eprintln!("a server stalled mid-query: answered by the replica in {took:?}");
}

#[async_std::test]
async fn a_broker_routes_as_of_the_last_change_even_when_the_controller_dies_right_after() {
    let mut cluster = Replicated::start().await;
    let url = format!("{}/segments/lineitem/stall_b", cluster.ctl);
    let (status, body) = call("DELETE", &url, None).await;
    assert_eq!(status, 200, "{body}");
    // The controller told the broker of the delete before answering, and the broker fetched
    // the table's routing again then (forgetting it would leave nothing to route by).
    drop(cluster.controller.take());
    for v2 in [false, true] {
        let (_, body) = cluster.count(v2, "").await;
        assert_eq!(body["resultTable"]["rows"], json!([[200]]), "{body}");
        assert_eq!(body["exceptions"], json!([]), "{body}");
    }
}
