//! Changes under load, with real processes: a `tessera start` (controller, broker, server A) and
//! a second server B, a table with 2 replicas. Query tasks run checked v1 queries without pause
//! while the controller refreshes segments (same name, new data), reloads the table, adds and
//! deletes segments, edits the table config, and server B is killed (SIGKILL) and restarted.
//!
//! Every segment version is recognisable: segment `s` at version `v` has `rows(s, v)` rows, all
//! with `v` in column `v`, and `x` counting from 0. A query answer must have no exception, each
//! segment's rows from one version only (`MIN(v) = MAX(v)`, count `rows(s, v)`, never a mix), and
//! a filter's count exact. At the end, neither process maps or holds open a file that was
//! deleted (no leaked memory-maps or handles of replaced segments). `TESSERA_LOAD_SECONDS` sets
//! the duration (default 8).

mod support;

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use support::{call, free_port, json_body, start};
use tessera_api::http::multipart;

/// Rows of segment `s` at version `v` (at least 100, so `x < 50` always counts 50).
fn rows(s: u64, v: u64) -> u64 {
    100 + 7 * s + 13 * v
}

fn table_config(inverted_v: bool) -> Value {
    let inverted = if inverted_v { json!(["v"]) } else { json!([]) };
    json!({"tableName": "load", "tableType": "OFFLINE",
        "segmentsConfig": {"replication": "2"}, "tenants": {},
        "tableIndexConfig": {"invertedIndexColumns": inverted, "rangeIndexColumns": ["x"]}})
}

/// Ingests version `v` of segment `s` (`load_<s>`); true once acknowledged.
async fn put_segment(ctl: &str, s: u64, v: u64) -> bool {
    let text: String = std::iter::once("s,v,x\n".to_string())
        .chain((0..rows(s, v)).map(|x| format!("{s},{v},{x}\n")))
        .collect();
    let (ct, body) = multipart::encode_file("file", "rows.csv", text.as_bytes());
    let url = format!(
        "{ctl}/ingestFromFile?tableNameWithType=load_OFFLINE&batchConfigMapStr=%7B%22inputFormat%22%3A%22csv%22%2C%22segmentNameGenerator.configs.segment.name.postfix%22%3A%22{s}%22%7D"
    );
    let (status, b) = call("POST", &url, Some((body, ct))).await;
    assert_eq!(status, 200, "ingest of load_{s} v{v}: {b}");
    true
}

/// What is wrong with one answer, if anything.
fn check(by_segment: &Value, filtered: &Value) -> Option<String> {
    for b in [by_segment, filtered] {
        if b["exceptions"].as_array().is_none_or(|e| !e.is_empty()) {
            return Some(format!("failed: {b}"));
        }
    }
    for r in by_segment["resultTable"]["rows"].as_array()? {
        let (s, n, lo, hi) = (
            r[0].as_u64()?,
            r[1].as_u64()?,
            r[2].as_u64()?,
            r[3].as_u64()?,
        );
        if lo != hi || n != rows(s, lo) {
            return Some(format!("segment {s}: {n} rows, v {lo}..{hi}: {by_segment}"));
        }
    }
    for r in filtered["resultTable"]["rows"].as_array()? {
        if r[1].as_u64() != Some(50) {
            return Some(format!("x < 50 counted {r}: {filtered}"));
        }
    }
    None
}

/// Entries of `pid`'s memory maps and open files that name deleted files under `dir`.
fn deleted_files_held(pid: u32, dir: &std::path::Path) -> Vec<String> {
    let dir = dir.to_string_lossy();
    let mut held: Vec<String> = std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(dir.as_ref()) && l.ends_with("(deleted)"))
        .map(str::to_string)
        .collect();
    if let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) {
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path()) {
                let t = target.to_string_lossy().into_owned();
                if t.contains(dir.as_ref()) && t.ends_with("(deleted)") {
                    held.push(t);
                }
            }
        }
    }
    held
}

#[async_std::test]
async fn queries_never_fail_or_mix_while_the_cluster_changes() {
    let seconds: u64 = std::env::var("TESSERA_LOAD_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let dir = tempfile::tempdir().unwrap();
    let d = |sub: &str| dir.path().join(sub).to_string_lossy().into_owned();
    let (a, urls) = start(&[
        "--controller-port",
        "0",
        "--broker-port",
        "0",
        "--server-port",
        "0",
        "--data-dir",
        &d("a"),
        "--heartbeat-ms",
        "100",
        "--no-log-stderr",
    ]);
    let (ctl, broker_url) = (urls["controller"].clone(), urls["broker"].clone());
    let b_port = free_port().to_string();
    let b_args = [
        "--roles",
        "server",
        "--controller-url",
        &ctl,
        "--server-port",
        &b_port,
        "--data-dir",
        &d("b"),
        "--heartbeat-ms",
        "100",
        "--no-log-stderr",
    ];
    let (mut b, _) = start(&b_args);
    // Both servers registered before the table: both hold every segment.
    support::wait_for_servers(&ctl, 2).await;
    let schema = json!({"schemaName": "load",
        "dimensionFieldSpecs": [{"name": "s", "dataType": "INT"}],
        "metricFieldSpecs": [{"name": "v", "dataType": "LONG"}, {"name": "x", "dataType": "LONG"}]});
    assert_eq!(
        call("POST", &format!("{ctl}/schemas"), json_body(schema))
            .await
            .0,
        200
    );
    let (s, body) = call(
        "POST",
        &format!("{ctl}/tables"),
        json_body(table_config(false)),
    )
    .await;
    assert_eq!(s, 200, "{body}");
    for s in 0..4 {
        put_segment(&ctl, s, 0).await;
    }
    let by_segment = json!({"sql": "SELECT s, COUNT(*), MIN(v), MAX(v) FROM load GROUP BY s ORDER BY s LIMIT 1000"});
    let filtered = json!({"sql": "SELECT s, COUNT(*) FROM load WHERE x < 50 GROUP BY s ORDER BY s LIMIT 1000"});
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, r) = call(
            "POST",
            &format!("{broker_url}/query/sql"),
            json_body(by_segment.clone()),
        )
        .await;
        if r["resultTable"]["rows"]
            .as_array()
            .is_some_and(|a| a.len() == 4)
        {
            break;
        }
        assert!(Instant::now() < deadline, "segments never loaded: {r}");
        async_std::task::sleep(Duration::from_millis(100)).await;
    }

    // Queries without pause, checked.
    let stop = Arc::new(AtomicBool::new(false));
    let (answered, failed) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let problems = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let mut queriers = Vec::new();
    for _ in 0..3 {
        let (stop, answered, failed, problems) = (
            stop.clone(),
            answered.clone(),
            failed.clone(),
            problems.clone(),
        );
        let (url, q1, q2) = (
            format!("{broker_url}/query/sql"),
            by_segment.clone(),
            filtered.clone(),
        );
        queriers.push(async_std::task::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let (_, r1) = call("POST", &url, json_body(q1.clone())).await;
                let (_, r2) = call("POST", &url, json_body(q2.clone())).await;
                match check(&r1, &r2) {
                    None => answered.fetch_add(2, Ordering::Relaxed),
                    Some(p) => {
                        if let Ok(mut list) = problems.lock()
                            && list.len() < 20
                        {
                            list.push(p);
                        }
                        failed.fetch_add(1, Ordering::Relaxed)
                    }
                };
            }
        }));
    }

    // The changes.
    let until = Instant::now() + Duration::from_secs(seconds);
    let mut changes = 0u64;
    let mut round = 0u64;
    while Instant::now() < until {
        round += 1;
        let s = round % 4;
        match round % 6 {
            // Refresh: same name, new data.
            0 | 3 => {
                put_segment(&ctl, s, round).await;
            }
            1 => {
                let (st, body) = call("POST", &format!("{ctl}/segments/load/reload"), None).await;
                assert_eq!(st, 200, "{body}");
            }
            // A segment added, then deleted.
            2 => {
                put_segment(&ctl, 10 + round, 0).await;
                async_std::task::sleep(Duration::from_millis(200)).await;
                let (st, body) = call(
                    "DELETE",
                    &format!("{ctl}/segments/load/load_{}", 10 + round),
                    None,
                )
                .await;
                assert_eq!(st, 200, "{body}");
            }
            4 => {
                let (st, body) = call(
                    "PUT",
                    &format!("{ctl}/tables/load"),
                    json_body(table_config(round % 12 == 4)),
                )
                .await;
                assert_eq!(st, 200, "{body}");
            }
            // Server B killed and restarted (same id, same data dir).
            _ => {
                drop(b);
                async_std::task::sleep(Duration::from_millis(300)).await;
                b = start(&b_args).0;
            }
        }
        changes += 1;
        async_std::task::sleep(Duration::from_millis(100)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for q in queriers {
        q.await;
    }
    // Replaced and deleted segments are released: nothing deleted stays mapped or open.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let held: Vec<String> = [(&a, d("a")), (&b, d("b"))]
            .iter()
            .flat_map(|(p, dir)| deleted_files_held(p.0.id(), std::path::Path::new(dir)))
            .collect();
        if held.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "deleted files still held: {held:?}"
        );
        async_std::task::sleep(Duration::from_millis(200)).await;
    }
    let (answered, failed) = (
        answered.load(Ordering::Relaxed),
        failed.load(Ordering::Relaxed),
    );
    println!(
        "changes_under_load: {seconds} s, {changes} changes, {answered} queries answered and checked, {failed} failed or wrong"
    );
    let problems = problems.lock().map(|p| p.clone()).unwrap_or_default();
    assert!(answered > 0, "no query answered");
    assert_eq!(failed, 0, "{problems:#?}");
}
