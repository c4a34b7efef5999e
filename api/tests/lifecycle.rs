//! A table's life after its first day, against `tessera start` processes: retention deletes
//! aged OFFLINE and committed REALTIME segments (never a consuming one) and the deleted-segments
//! area is purged after its period; the storage quota refuses an upload past it and changes
//! nothing; the query quota refuses queries beyond the rate with Pinot's 429. Every check
//! counts rows *and* sums their ids.

mod support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::kafka::Kafka;
use support::{Proc, call, free_port, json_body};

fn http(method: &str, url: &str, body: Option<Value>) -> (u16, Value) {
    async_std::task::block_on(call(method, url, body.and_then(json_body)))
}

const DAY_MS: i64 = 86_400_000;

/// `tessera start` on a data dir (all roles, or the given ones), with its URLs; it can be
/// killed (-9) and started again on the same ports and data.
struct Tessera {
    proc: Option<Proc>,
    controller: String,
    broker: String,
    data: PathBuf,
    ports: [String; 3],
    roles: &'static str,
}

impl Tessera {
    fn start(data: &Path) -> Tessera {
        Tessera::start_roles(data, "controller,broker,server,minion")
    }

    fn start_roles(data: &Path, roles: &'static str) -> Tessera {
        let mut t = Tessera {
            proc: None,
            controller: String::new(),
            broker: String::new(),
            data: data.to_path_buf(),
            ports: [free_port(), free_port(), free_port()].map(|p| p.to_string()),
            roles,
        };
        t.restart();
        t
    }

    fn restart(&mut self) {
        self.proc = None;
        let ports = &self.ports;
        let (proc, urls) = support::start(&[
            "--roles",
            self.roles,
            "--data-dir",
            self.data.to_str().unwrap(),
            "--controller-port",
            &ports[0],
            "--broker-port",
            &ports[1],
            "--server-port",
            &ports[2],
            "--heartbeat-ms",
            "200",
            "--no-log-stderr",
        ]);
        self.proc = Some(proc);
        self.controller = urls["controller"].clone();
        self.broker = urls["broker"].clone();
    }

    fn kill_9(&mut self) {
        if let Some(mut p) = self.proc.take() {
            let _ = p.0.kill();
            let _ = p.0.wait();
        }
    }

    fn post_ok(&self, path: &str, body: Value) -> Value {
        let (s, b) = http("POST", &format!("{}{path}", self.controller), Some(body));
        assert_eq!(s, 200, "POST {path}: {b}");
        b
    }

    fn get(&self, path: &str) -> (u16, Value) {
        http("GET", &format!("{}{path}", self.controller), None)
    }

    /// `SELECT count(*), sum(id)`: (rows, sum of ids), or the exceptions' first code as
    /// `(-code, 0)`.
    fn count(&self, table: &str) -> (i64, i64) {
        let (status, body) = http(
            "POST",
            &format!("{}/query/sql", self.broker),
            Some(json!({"sql": format!("SELECT count(*), sum(id) FROM {table}")})),
        );
        assert_eq!(status, 200, "{body}");
        if let Some(e) = body["exceptions"].as_array().and_then(|e| e.first()) {
            return (-e["errorCode"].as_i64().unwrap(), 0);
        }
        let row = &body["resultTable"]["rows"][0];
        (row[0].as_i64().unwrap(), row[1].as_f64().unwrap() as i64)
    }

    fn wait_for(&self, table: &str, want: (i64, i64)) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut last = self.count(table);
        while last != want {
            assert!(
                Instant::now() < deadline,
                "{table}: want {want:?}, have {last:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
            last = self.count(table);
        }
    }

    fn segment_names(&self, table: &str, kind: &str) -> Vec<String> {
        let (s, b) = self.get(&format!("/segments/{table}?type={kind}"));
        assert_eq!(s, 200, "{b}");
        let mut names: Vec<String> = b[0][kind]
            .as_array()
            .map(|l| l.iter().map(|n| n.as_str().unwrap().to_string()).collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    /// `GET /periodictask/run?taskname=RetentionManager&tableName=…`.
    fn run_retention(&self, table: &str) {
        let (s, b) = self.get(&format!(
            "/periodictask/run?taskname=RetentionManager&tableName={table}"
        ));
        assert_eq!(s, 200, "{b}");
        assert_eq!(b["isSuccessful"], true, "{b}");
        assert!(b["taskId"].as_str().unwrap().starts_with("api-"), "{b}");
    }

    /// Archive names in the deep store's deleted-segments area for raw table `raw`.
    fn deleted_archives(&self, raw: &str) -> Vec<String> {
        let dir = self
            .data
            .join("controller/deepstore/Deleted_Segments")
            .join(raw);
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

fn schema() -> Value {
    json!({
        "schemaName": "events",
        "dimensionFieldSpecs": [{"name": "kind", "dataType": "STRING"}],
        "metricFieldSpecs": [{"name": "id", "dataType": "LONG"}],
        "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG",
            "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"}]
    })
}

fn offline_table(extra: Value) -> Value {
    let mut t = json!({
        "tableName": "events",
        "tableType": "OFFLINE",
        "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
        "tenants": {},
        "tableIndexConfig": {},
        "metadata": {}
    });
    for (k, v) in extra.as_object().unwrap() {
        if let (Some(into), Some(from)) = (t[k].as_object_mut(), v.as_object()) {
            into.extend(from.clone());
        } else {
            t[k] = v.clone();
        }
    }
    t
}

/// A packed `events` segment `name` with ids `ids` at time `ts_ms` (+ id).
fn segment(root: &Path, name: &str, ids: std::ops::Range<i64>, ts_ms: i64) -> Vec<u8> {
    let schema = segments::types::Schema::from_json(&schema().to_string()).unwrap();
    let config = segments::BuildConfig::from_table_config_json(
        &offline_table(json!({})),
        &schema,
        Some(name),
    )
    .unwrap();
    let work = root.join(format!("build-{name}"));
    let rows = ids.map(|i| {
        Ok(vec![
            segments::types::Value::String(["a", "b", "c"][(i % 3) as usize].into()),
            segments::types::Value::Long(i),
            segments::types::Value::Long(ts_ms + i),
        ])
    });
    segments::build_segment_from_rows(&schema, &config, rows, &work).unwrap();
    tessera_api::common::archive::pack(&work.join(name)).unwrap()
}

fn upload(t: &Tessera, name: &str, archive: &[u8]) -> (u16, Value) {
    async_std::task::block_on(support::upload_segment(
        &t.controller,
        "events",
        name,
        archive,
    ))
}

fn sum(ids: std::ops::Range<i64>) -> i64 {
    ids.sum()
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

#[test]
fn retention_deletes_aged_offline_segments_and_purges_the_deleted_area() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(&dir.path().join("data"));
    t.post_ok("/schemas", schema());
    t.post_ok(
        "/tables",
        offline_table(json!({"segmentsConfig": {"retentionTimeUnit": "DAYS",
            "retentionTimeValue": "30", "deletedSegmentsRetentionPeriod": "3s"}})),
    );
    let now = now_ms();
    // Two segments 40 and 35 days old, two within the 30 days.
    let ages = [("old_0", 40), ("old_1", 35), ("new_0", 10), ("new_1", 0)];
    for (i, (name, age)) in ages.iter().enumerate() {
        let ids = (i as i64 * 100)..(i as i64 * 100 + 100);
        let (s, b) = upload(
            &t,
            name,
            &segment(dir.path(), name, ids, now - age * DAY_MS),
        );
        assert_eq!(s, 200, "{b}");
    }
    t.wait_for("events", (400, sum(0..400)));

    let (s, names) = t.get("/periodictask/names");
    assert_eq!(s, 200);
    assert!(
        names
            .as_array()
            .unwrap()
            .contains(&json!("RetentionManager")),
        "{names}"
    );
    t.run_retention("events");
    // Acknowledged: the aged segments are gone from the table and from every answer at once.
    assert_eq!(t.segment_names("events", "OFFLINE"), ["new_0", "new_1"]);
    assert_eq!(t.count("events"), (200, sum(200..400)));
    let deleted = t.deleted_archives("events");
    assert_eq!(deleted.len(), 2, "{deleted:?}");
    assert!(deleted[0].starts_with("old_0.") && deleted[1].starts_with("old_1."));

    // A second run changes nothing until the deleted area's period (3 s) has passed.
    t.run_retention("events");
    assert_eq!(t.deleted_archives("events").len(), 2);
    std::thread::sleep(Duration::from_millis(3200));
    t.run_retention("events");
    assert!(t.deleted_archives("events").is_empty());
    assert_eq!(t.count("events"), (200, sum(200..400)));

    // A segment deleted by hand goes through the deleted area too.
    let (s, b) = http(
        "DELETE",
        &format!("{}/segments/events/new_0", t.controller),
        None,
    );
    assert_eq!(s, 200, "{b}");
    assert_eq!(t.count("events"), (100, sum(300..400)));
    assert_eq!(t.deleted_archives("events").len(), 1);
    // A bad retention period is refused and deletes nothing.
    let (s, b) = http(
        "DELETE",
        &format!("{}/segments/events/new_1?retention=soon", t.controller),
        None,
    );
    assert_eq!(s, 400, "{b}");
    assert_eq!(t.count("events"), (100, sum(300..400)));
    // Deleting the table retires its segments' archives too (Pinot's default).
    let (s, b) = http("DELETE", &format!("{}/tables/events", t.controller), None);
    assert_eq!(s, 200, "{b}");
    assert_eq!(t.deleted_archives("events").len(), 2);

    // Pinot's errors: an unknown task, an unknown table.
    let (s, b) = t.get("/periodictask/run?taskname=NoSuchTask");
    assert_eq!(
        (s, b["error"].as_str()),
        (404, Some("Periodic task 'NoSuchTask' not found."))
    );
    let (s, b) = t.get("/periodictask/run?taskname=RetentionManager&tableName=nope");
    assert_eq!(
        (s, b["error"].as_str()),
        (404, Some("Table 'nope' not found."))
    );
}

#[test]
fn retention_deletes_committed_realtime_segments_never_consuming_ones() {
    let Some(kafka) = Kafka::start() else {
        return;
    };
    kafka.create_topic("rt", 1);
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(&dir.path().join("data"));
    t.post_ok("/schemas", json!({"schemaName": "rt", "dimensionFieldSpecs": schema()["dimensionFieldSpecs"],
        "metricFieldSpecs": schema()["metricFieldSpecs"], "dateTimeFieldSpecs": schema()["dateTimeFieldSpecs"]}));
    t.post_ok(
        "/tables",
        json!({
            "tableName": "rt",
            "tableType": "REALTIME",
            "segmentsConfig": {"timeColumnName": "ts", "replication": "1",
                "retentionTimeUnit": "DAYS", "retentionTimeValue": "30"},
            "tenants": {},
            "tableIndexConfig": {},
            "ingestionConfig": {"streamIngestionConfig": {"streamConfigMaps": [{
                "streamType": "kafka",
                "stream.kafka.topic.name": "rt",
                "stream.kafka.broker.list": kafka.address,
                "stream.kafka.consumer.type": "lowlevel",
                "stream.kafka.consumer.prop.auto.offset.reset": "smallest",
                "stream.kafka.decoder.class.name": "org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder",
                "realtime.segment.flush.threshold.rows": "100",
                "realtime.segment.flush.threshold.time": "1h"
            }]}},
            "metadata": {}
        }),
    );
    // 350 rows a year old: three committed segments of 100 and 50 rows consuming.
    let old = now_ms() - 365 * DAY_MS;
    let records: Vec<Value> = (0..350)
        .map(|i| json!({"id": i, "kind": "k", "ts": old + i}))
        .collect();
    kafka.produce("rt", 0, &records);
    t.wait_for("rt", (350, sum(0..350)));
    let deadline = Instant::now() + Duration::from_secs(30);
    while t.segment_names("rt", "REALTIME").len() < 4 {
        assert!(
            Instant::now() < deadline,
            "{:?}",
            t.segment_names("rt", "REALTIME")
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    t.run_retention("rt");
    // The two oldest committed segments go; the partition's last committed one (its end offset
    // is where consumption goes on) and the consuming one stay.
    let left = t.segment_names("rt", "REALTIME");
    assert_eq!(left.len(), 2, "{left:?}");
    assert!(left.iter().any(|n| n.starts_with("rt__0__2__")), "{left:?}");
    assert!(left.iter().any(|n| n.starts_with("rt__0__3__")), "{left:?}");
    assert_eq!(t.count("rt"), (150, sum(200..350)));
    assert_eq!(t.deleted_archives("rt").len(), 2);
    // Consumption goes on.
    let more: Vec<Value> = (350..400)
        .map(|i| json!({"id": i, "kind": "k", "ts": now_ms()}))
        .collect();
    kafka.produce("rt", 0, &more);
    t.wait_for("rt", (200, sum(200..400)));
}

#[test]
fn storage_quota_refuses_an_upload_past_it_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(&dir.path().join("data"));
    t.post_ok("/schemas", schema());
    let now = now_ms();
    let first = segment(dir.path(), "s_0", 0..2000, now);
    // A quota one and a half times the first segment's unpacked size.
    let unpacked: u64 = std::fs::read_dir(dir.path().join("build-s_0/s_0"))
        .unwrap()
        .flatten()
        .map(|e| e.metadata().unwrap().len())
        .sum();
    let quota = format!("{}B", unpacked * 3 / 2);
    let created = t.post_ok(
        "/tables",
        offline_table(json!({"quota": {"storage": quota}})),
    );
    assert!(
        created["status"]
            .as_str()
            .unwrap()
            .contains("successfully added"),
        "{created}"
    );
    let (s, table) = t.get("/tables/events");
    assert_eq!(s, 200);
    // Normalised as Pinot writes it.
    let stored = table["OFFLINE"]["quota"]["storage"].as_str().unwrap();
    assert!(stored.ends_with('K'), "{table}");
    let (s, b) = upload(&t, "s_0", &first);
    assert_eq!(s, 200, "{b}");
    t.wait_for("events", (2000, sum(0..2000)));
    // A second one of the same size cannot fit.
    let mut refused = None;
    for i in 1..4 {
        let name = format!("s_{i}");
        let ids = (i * 2000)..(i * 2000 + 2000);
        let (s, b) = upload(&t, &name, &segment(dir.path(), &name, ids, now));
        if s != 200 {
            refused = Some((i, s, b));
            break;
        }
    }
    let (i, s, b) = refused.expect("the quota never refused an upload");
    assert_eq!(s, 403, "{b}");
    let message = b["error"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "Storage quota check failed for segment: s_{i} of table: events_OFFLINE, reason: \
             Storage quota exceeded for Table events_OFFLINE."
        )),
        "{message}"
    );
    // Nothing changed: the refused segment is neither listed nor answering.
    let names = t.segment_names("events", "OFFLINE");
    assert_eq!(names.len() as i64, i, "{names:?}");
    assert_eq!(t.count("events"), (i * 2000, sum(0..i * 2000)));
    // A bad quota is refused with Pinot's message.
    let (s, b) = http(
        "PUT",
        &format!("{}/tables/events", t.controller),
        Some(offline_table(json!({"quota": {"storage": "lots"}}))),
    );
    assert_eq!(s, 400, "{b}");
    assert!(
        b["error"]
            .as_str()
            .unwrap()
            .contains("Invalid 'storage': lots"),
        "{b}"
    );
}

#[test]
fn query_quota_refuses_queries_beyond_the_rate_with_429() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(&dir.path().join("data"));
    t.post_ok("/schemas", schema());
    t.post_ok(
        "/tables",
        offline_table(json!({"quota": {"maxQueriesPerSecond": "2"}})),
    );
    let (s, b) = upload(&t, "s_0", &segment(dir.path(), "s_0", 0..100, now_ms()));
    assert_eq!(s, 200, "{b}");
    t.wait_for("events", (100, sum(0..100)));
    // After a second idle the limiter has stored permits again (at most a second's worth, 2;
    // the last query before the pause borrowed from the next 500 ms): a burst of 20 gets 2 or
    // 3 through, the rest are refused with 429.
    std::thread::sleep(Duration::from_millis(1100));
    let answers: Vec<(i64, i64)> = (0..20).map(|_| t.count("events")).collect();
    let refused = answers.iter().filter(|a| a.0 == -429).count();
    let admitted = answers.iter().filter(|a| **a == (100, sum(0..100))).count();
    assert_eq!(refused + admitted, 20, "{answers:?}");
    assert!(refused >= 15 && admitted >= 2, "{answers:?}");
    let (_, body) = http(
        "POST",
        &format!("{}/query/sql", t.broker),
        Some(json!({"sql": "SELECT count(*) FROM events"})),
    );
    let message = body["exceptions"][0]["message"]
        .as_str()
        .unwrap_or_default();
    if !message.is_empty() {
        assert!(
            message.ends_with("SELECT count(*) FROM events exceeds query quota for table: events"),
            "{message}"
        );
    }
    // After a pause the table admits queries again.
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(t.count("events"), (100, sum(0..100)));
    // Each broker of the tenant admits its share: with a second broker, half the rate.
    let (status, _) = t.get("/tessera/routing/events_OFFLINE");
    assert_eq!(status, 200);
    let share =
        |t: &Tessera| t.get("/tessera/routing/events_OFFLINE").1["maxQueriesPerSecond"].clone();
    assert_eq!(share(&t), json!(2.0));
    let (_second, urls) = support::start(&[
        "--roles",
        "broker",
        "--controller-url",
        &t.controller,
        "--broker-port",
        "0",
        "--data-dir",
        dir.path().join("b2").to_str().unwrap(),
        "--heartbeat-ms",
        "200",
        "--no-log-stderr",
    ]);
    assert!(urls.contains_key("broker"));
    let deadline = Instant::now() + Duration::from_secs(20);
    while share(&t) != json!(1.0) {
        assert!(Instant::now() < deadline, "{}", share(&t));
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `POST /tasks/schedule?taskType=…&tableName=…`: the task names made.
fn schedule(t: &Tessera, task_type: &str, table: &str) -> Vec<String> {
    let (s, b) = http(
        "POST",
        &format!(
            "{}/tasks/schedule?taskType={task_type}&tableName={table}",
            t.controller
        ),
        None,
    );
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["generationErrors"], "", "{b}");
    b[task_type]
        .as_str()
        .unwrap_or_default()
        .split(',')
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect()
}

/// Waits until task `name` is COMPLETED, checking `each` in between (queries during the task).
fn wait_task(t: &Tessera, name: &str, mut each: impl FnMut()) {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let (s, state) = t.get(&format!("/tasks/task/{name}/state"));
        assert_eq!(s, 200, "{state}");
        if state == "COMPLETED" {
            return;
        }
        assert_ne!(
            state,
            "FAILED",
            "{}",
            t.get(&format!("/tasks/task/{name}/debug")).1
        );
        assert!(
            Instant::now() < deadline,
            "{name} is {state}: {}",
            t.get(&format!("/tasks/task/{name}/debug")).1
        );
        each();
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn merge_table(task: Value) -> Value {
    offline_table(json!({"task": {"taskTypeConfigsMap": {"MergeRollupTask": task}}}))
}

/// Uploads `n` segments of 50 rows, spread over days 5, 4 and 3 ago; ids `0..50n`.
fn small_segments(t: &Tessera, root: &Path, n: i64) -> i64 {
    let now = now_ms();
    for s in 0..n {
        let day = now - (5 - s % 3) * DAY_MS;
        let name = format!("small_{s}");
        let (st, b) = upload(
            t,
            &name,
            &segment(root, &name, (s * 50)..(s * 50 + 50), day),
        );
        assert_eq!(st, 200, "{b}");
    }
    n * 50
}

#[test]
fn merge_rollup_concat_turns_many_small_segments_into_few_with_equal_answers() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(&dir.path().join("data"));
    t.post_ok("/schemas", schema());
    t.post_ok(
        "/tables",
        merge_table(
            json!({"1day.bucketTimePeriod": "1d", "1day.bufferTimePeriod": "1d",
            "1day.mergeType": "concat", "1day.maxNumParallelBuckets": "3"}),
        ),
    );
    let rows = small_segments(&t, dir.path(), 24);
    let want = (rows, sum(0..rows));
    t.wait_for("events", want);
    assert_eq!(t.segment_names("events", "OFFLINE").len(), 24);

    let names = schedule(&t, "MergeRollupTask", "events_OFFLINE");
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].starts_with("Task_MergeRollupTask_"), "{names:?}");
    // Every answer before, during and after the merge is the same.
    let mut seen = 0;
    wait_task(&t, &names[0], || {
        assert_eq!(t.count("events"), want);
        seen += 1;
    });
    assert_eq!(t.count("events"), want);
    let merged = t.segment_names("events", "OFFLINE");
    assert_eq!(merged.len(), 3, "{merged:?}");
    assert!(
        merged.iter().all(|n| n.starts_with("merged_1day_")),
        "{merged:?}"
    );
    eprintln!("{seen} queries answered while the merge ran");

    // Pinot's views of the task.
    let (s, b) = t.get("/tasks/MergeRollupTask/state");
    assert_eq!((s, b.as_str()), (200, Some("COMPLETED")));
    let (_, b) = t.get("/tasks/MergeRollupTask/tasks");
    assert_eq!(b, json!([names[0]]));
    let (_, b) = t.get(&format!("/tasks/subtask/{}/state", names[0]));
    assert!(
        b.as_object().unwrap().values().all(|v| v == "COMPLETED"),
        "{b}"
    );
    let (_, b) = t.get(&format!("/tasks/task/{}/config", names[0]));
    assert_eq!(b[0]["taskType"], "MergeRollupTask", "{b}");
    assert_eq!(b[0]["configs"]["mergeType"], "concat", "{b}");
    let (_, b) = t.get("/tasks/MergeRollupTask/events_OFFLINE/metadata");
    assert!(b["simpleFields"]["watermarkMs_1day"].is_string(), "{b}");
    let (_, zk) = t.get("/segments/events/zkmetadata");
    let first = zk.as_object().unwrap().values().next().unwrap().clone();
    assert!(
        first["custom.map"]
            .as_str()
            .unwrap()
            .contains("\"MergeRollupTask.mergeLevel\":\"1day\""),
        "{first}"
    );
    let (_, lineage) = t.get("/segments/events/lineage?type=OFFLINE");
    let entries = lineage["lineageEntries"].as_object().unwrap();
    assert_eq!(entries.len(), 3, "{lineage}");
    assert!(
        entries.values().all(|e| e["state"] == "COMPLETED"),
        "{lineage}"
    );
    // The merged-away segments went to the deleted area.
    assert_eq!(t.deleted_archives("events").len(), 24);
    // Nothing left to merge: a second schedule makes no task.
    assert!(schedule(&t, "MergeRollupTask", "events_OFFLINE").is_empty());
}

#[test]
fn merge_rollup_rolls_up_keeping_sums() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(&dir.path().join("data"));
    t.post_ok("/schemas", schema());
    t.post_ok(
        "/tables",
        merge_table(
            json!({"1day.bucketTimePeriod": "1d", "1day.bufferTimePeriod": "1d",
            "1day.mergeType": "rollup", "1day.roundBucketTimePeriod": "1d",
            "1day.maxNumParallelBuckets": "3"}),
        ),
    );
    let rows = small_segments(&t, dir.path(), 12);
    t.wait_for("events", (rows, sum(0..rows)));
    let names = schedule(&t, "MergeRollupTask", "events");
    assert_eq!(names.len(), 1, "{names:?}");
    wait_task(&t, &names[0], || {
        // Each day's bucket is a subtask that swaps on its own: its 200 rows become 3 at
        // once (never both, never neither), and the sum never changes.
        let (n, s) = t.count("events");
        assert!([600, 403, 206, 9].contains(&n), "{n}");
        assert_eq!(s, sum(0..rows));
    });
    // Three kinds × three days, ids summed per (kind, day).
    assert_eq!(t.count("events"), (9, sum(0..rows)));
    let (status, body) = http(
        "POST",
        &format!("{}/query/sql", t.broker),
        Some(json!({"sql": "SELECT kind, sum(id) FROM events GROUP BY kind ORDER BY kind"})),
    );
    assert_eq!(status, 200, "{body}");
    let by_kind: Vec<(String, i64)> = body["resultTable"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[0].as_str().unwrap().to_string(),
                r[1].as_f64().unwrap() as i64,
            )
        })
        .collect();
    let expected: Vec<(String, i64)> = ["a", "b", "c"]
        .iter()
        .enumerate()
        .map(|(k, name)| {
            (
                name.to_string(),
                (0..rows).filter(|i| i % 3 == k as i64).sum(),
            )
        })
        .collect();
    assert_eq!(by_kind, expected);
}

#[test]
fn realtime_to_offline_moves_committed_days_keeping_the_hybrid_answers() {
    let Some(kafka) = Kafka::start() else {
        return;
    };
    kafka.create_topic("hy", 1);
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(&dir.path().join("data"));
    let mut s = schema();
    s["schemaName"] = json!("hy");
    t.post_ok("/schemas", s);
    let mut offline = offline_table(json!({}));
    offline["tableName"] = json!("hy");
    t.post_ok("/tables", offline);
    t.post_ok(
        "/tables",
        json!({
            "tableName": "hy",
            "tableType": "REALTIME",
            "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
            "tenants": {},
            "tableIndexConfig": {},
            "ingestionConfig": {"streamIngestionConfig": {"streamConfigMaps": [{
                "streamType": "kafka",
                "stream.kafka.topic.name": "hy",
                "stream.kafka.broker.list": kafka.address,
                "stream.kafka.consumer.type": "lowlevel",
                "stream.kafka.consumer.prop.auto.offset.reset": "smallest",
                "stream.kafka.decoder.class.name": "org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder",
                "realtime.segment.flush.threshold.rows": "100",
                "realtime.segment.flush.threshold.time": "1h"
            }]}},
            "task": {"taskTypeConfigsMap": {"RealtimeToOfflineSegmentsTask": {
                "bucketTimePeriod": "1d", "bufferTimePeriod": "1d"}}},
            "metadata": {}
        }),
    );
    // Four committed segments — days 5 ago; days 5 and 3 ago (spanning day 4, which has no
    // rows); day 3; now — and 50 rows of now consuming.
    let now = now_ms();
    let day_start = |ago: i64| (now - ago * DAY_MS).div_euclid(DAY_MS) * DAY_MS;
    let records: Vec<Value> = (0..450)
        .map(|i| {
            let ts = match i {
                0..150 => day_start(5) + i,
                150..300 => day_start(3) + i,
                _ => now,
            };
            let kind = ["a", "b", "c"][(i % 3) as usize];
            json!({"id": i, "kind": kind, "ts": ts})
        })
        .collect();
    kafka.produce("hy", 0, &records);
    let want = (450, sum(0..450));
    t.wait_for("hy", want);
    let deadline = Instant::now() + Duration::from_secs(30);
    while t.segment_names("hy", "REALTIME").len() < 5 {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(100));
    }
    // One window (day) per task, one task at a time; day 4's window holds no rows, its task
    // moves nothing and the watermark goes past it.
    for day in [5, 4, 3] {
        let names = schedule(&t, "RealtimeToOfflineSegmentsTask", "hy_REALTIME");
        assert_eq!(names.len(), 1, "day {day}: {names:?}");
        wait_task(&t, &names[0], || assert_eq!(t.count("hy"), want));
        if day == 4 {
            assert_eq!(subtask(&t, &names[0])["info"], "no rows to move");
        }
        assert_eq!(t.count("hy"), want);
        let (_, meta) = t.get("/tasks/RealtimeToOfflineSegmentsTask/hy_REALTIME/metadata");
        assert_eq!(
            meta["simpleFields"]["watermarkMs"],
            json!((day_start(day) + DAY_MS).to_string()),
            "{meta}"
        );
    }
    // Nothing more to move (the next day has no data and the one after is within the buffer).
    assert!(schedule(&t, "RealtimeToOfflineSegmentsTask", "hy_REALTIME").is_empty());
    let offline = t.segment_names("hy", "OFFLINE");
    assert_eq!(offline.len(), 2, "{offline:?}");
    // The offline table holds exactly the three days' 300 rows.
    let (_, zk) = t.get("/segments/hy/zkmetadata?type=OFFLINE");
    let docs: i64 = zk
        .as_object()
        .unwrap()
        .values()
        .map(|m| {
            m["segment.total.docs"]
                .as_str()
                .unwrap()
                .parse::<i64>()
                .unwrap()
        })
        .sum();
    assert_eq!(docs, 300, "{zk}");
    assert_eq!(t.count("hy"), want);
}

#[test]
fn purge_task_drops_the_rows_its_filter_selects_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(&dir.path().join("data"));
    t.post_ok("/schemas", schema());
    t.post_ok(
        "/tables",
        offline_table(json!({"task": {"taskTypeConfigsMap": {"PurgeTask": {
            "filterFunction": "kind = 'b'"}}}})),
    );
    let rows = small_segments(&t, dir.path(), 4);
    t.wait_for("events", (rows, sum(0..rows)));
    let names = schedule(&t, "PurgeTask", "events_OFFLINE");
    assert_eq!(names.len(), 1);
    wait_task(&t, &names[0], || {});
    let kept: Vec<i64> = (0..rows).filter(|i| i % 3 != 1).collect();
    t.wait_for("events", (kept.len() as i64, kept.iter().sum()));
    // The same segments, rewritten in place and stamped.
    assert_eq!(
        t.segment_names("events", "OFFLINE"),
        ["small_0", "small_1", "small_2", "small_3"]
    );
    let (_, zk) = t.get("/segments/events/zkmetadata");
    assert!(
        zk["small_0"]["custom.map"]
            .as_str()
            .unwrap()
            .contains("PurgeTask.time"),
        "{zk}"
    );
    // Purged within the threshold (14 days): nothing to do.
    assert!(schedule(&t, "PurgeTask", "events_OFFLINE").is_empty());
}

/// A `tessera start --roles minion` joined to the controller at `controller`.
fn start_minion(data: &Path, controller: &str) -> Proc {
    let (proc, urls) = support::start(&[
        "--roles",
        "minion",
        "--controller-url",
        controller,
        "--data-dir",
        data.to_str().unwrap(),
        "--heartbeat-ms",
        "200",
        "--no-log-stderr",
    ]);
    assert!(urls.contains_key("minion"), "{urls:?}");
    proc
}

/// A table of `n` segments of `rows` rows each (ids `0..n*rows`), all two days old, merged by
/// one subtask into outputs of at most `per_output` rows.
fn big_merge_table(t: &Tessera, root: &Path, n: i64, rows: i64, per_output: i64) -> (i64, i64) {
    t.post_ok("/schemas", schema());
    t.post_ok(
        "/tables",
        merge_table(
            json!({"1day.bucketTimePeriod": "1d", "1day.bufferTimePeriod": "1d",
            "1day.maxNumRecordsPerSegment": per_output.to_string()}),
        ),
    );
    let day = (now_ms() - 2 * DAY_MS).div_euclid(DAY_MS) * DAY_MS;
    for s in 0..n {
        let name = format!("part_{s}");
        let ids = (s * rows)..(s * rows + rows);
        let (st, b) = upload(t, &name, &segment(root, &name, ids, day + s));
        assert_eq!(st, 200, "{b}");
    }
    let want = (n * rows, sum(0..n * rows));
    t.wait_for("events", want);
    want
}

/// The task's only subtask as `/tasks/task/{name}/debug` shows it.
fn subtask(t: &Tessera, name: &str) -> Value {
    t.get(&format!("/tasks/task/{name}/debug")).1["subtasks"][0].clone()
}

fn in_progress_entries(t: &Tessera) -> usize {
    let (_, l) = t.get("/segments/events/lineage?type=OFFLINE");
    l["lineageEntries"].as_object().map_or(0, |e| {
        e.values().filter(|e| e["state"] == "IN_PROGRESS").count()
    })
}

#[test]
fn a_minion_killed_mid_task_gives_its_subtask_back_and_nothing_is_lost_or_doubled() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start_roles(&dir.path().join("data"), "controller,broker,server");
    let want = big_merge_table(&t, dir.path(), 40, 5000, 50_000);
    let names = schedule(&t, "MergeRollupTask", "events_OFFLINE");
    assert_eq!(names.len(), 1);
    let mut minion = start_minion(&dir.path().join("m1"), &t.controller);
    // Kill it -9 as soon as it runs the subtask.
    let deadline = Instant::now() + Duration::from_secs(30);
    while subtask(&t, &names[0])["state"] != "RUNNING" {
        assert!(Instant::now() < deadline, "{}", subtask(&t, &names[0]));
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = minion.0.kill();
    let _ = minion.0.wait();
    assert_eq!(subtask(&t, &names[0])["state"], "RUNNING");
    assert_eq!(t.count("events"), want);
    // Another minion takes it over once the first is known lost, and finishes it.
    let _second = start_minion(&dir.path().join("m2"), &t.controller);
    wait_task(&t, &names[0], || assert_eq!(t.count("events"), want));
    let s = subtask(&t, &names[0]);
    assert_eq!(s["attempts"], 2, "{s}");
    assert!(s["minion"].as_str().unwrap().starts_with("Minion_"), "{s}");
    assert_eq!(t.count("events"), want);
    let merged = t.segment_names("events", "OFFLINE");
    assert_eq!(merged.len(), 4, "{merged:?}");
    assert_eq!(in_progress_entries(&t), 0);
    // The minions are instances, as Pinot lists them.
    let (_, instances) = t.get("/instances");
    let minions = instances["instances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i.as_str().unwrap().starts_with("Minion_"))
        .count();
    assert_eq!(minions, 2, "{instances}");
}

#[test]
fn a_controller_killed_mid_replacement_loses_and_doubles_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tessera::start_roles(&dir.path().join("data"), "controller,broker,server");
    // Many outputs: the replacement (uploads, loads) takes a while.
    let want = big_merge_table(&t, dir.path(), 20, 5000, 5000);
    let names = schedule(&t, "MergeRollupTask", "events_OFFLINE");
    let _minion = start_minion(&dir.path().join("m"), &t.controller);
    // Kill the controller (with its broker and server) once the replacement has started.
    let deadline = Instant::now() + Duration::from_secs(60);
    while in_progress_entries(&t) == 0 {
        assert!(Instant::now() < deadline, "{}", subtask(&t, &names[0]));
        std::thread::sleep(Duration::from_millis(5));
    }
    t.kill_9();
    t.restart();
    // The minion offers its result again; the half-done replacement is undone and redone.
    // Right after the restart the server is still loading: segments pushed minutes ago and
    // not loaded anywhere yet are left out of routing (Pinot's new-segment rule) or answer an
    // error. Never more rows than there are (both sets at once); once the table has answered
    // whole, every answer is whole.
    let mut whole = false;
    wait_task(&t, &names[0], || {
        let (n, s) = t.count("events");
        assert!(n <= want.0, "{n} rows");
        whole |= (n, s) == want;
        if whole {
            assert_eq!((n, s), want);
        }
    });
    t.wait_for("events", want);
    assert_eq!(in_progress_entries(&t), 0);
    let merged = t.segment_names("events", "OFFLINE");
    assert_eq!(merged.len(), 20, "{merged:?}");
    assert!(
        merged.iter().all(|n| n.starts_with("merged_1day_")),
        "{merged:?}"
    );
}

#[test]
fn a_realtime_table_past_its_storage_quota_pauses_and_resumes_when_it_fits() {
    let Some(kafka) = Kafka::start() else {
        return;
    };
    kafka.create_topic("rq", 1);
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(&dir.path().join("data"));
    let mut s = schema();
    s["schemaName"] = json!("rq");
    t.post_ok("/schemas", s);
    let table = |quota: &str| {
        json!({
            "tableName": "rq",
            "tableType": "REALTIME",
            "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
            "tenants": {},
            "tableIndexConfig": {},
            "quota": {"storage": quota},
            "ingestionConfig": {"streamIngestionConfig": {"streamConfigMaps": [{
                "streamType": "kafka",
                "stream.kafka.topic.name": "rq",
                "stream.kafka.broker.list": kafka.address,
                "stream.kafka.consumer.type": "lowlevel",
                "stream.kafka.consumer.prop.auto.offset.reset": "smallest",
                "stream.kafka.decoder.class.name": "org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder",
                "realtime.segment.flush.threshold.rows": "100",
                "realtime.segment.flush.threshold.time": "1h"
            }]}},
            "metadata": {}
        })
    };
    t.post_ok("/tables", table("1K"));
    let rows = |from: i64, to: i64| -> Vec<Value> {
        (from..to)
            .map(|i| json!({"id": i, "kind": "k", "ts": now_ms()}))
            .collect()
    };
    // Two committed segments: more than 1K on disk.
    kafka.produce("rq", 0, &rows(0, 250));
    t.wait_for("rq", (250, sum(0..250)));
    let validate = || {
        let (s, b) =
            t.get("/periodictask/run?taskname=RealtimeSegmentValidationManager&tableName=rq");
        assert_eq!(s, 200, "{b}");
    };
    validate();
    let status = |t: &Tessera| t.get("/tables/rq/pauseStatus").1;
    let st = status(&t);
    assert_eq!(st["pauseFlag"], true, "{st}");
    assert_eq!(st["reasonCode"], "STORAGE_QUOTA_EXCEEDED", "{st}");
    // Paused: what was consumed is committed, nothing more is read.
    let deadline = Instant::now() + Duration::from_secs(20);
    while status(&t)["consumingSegments"]
        .as_array()
        .is_some_and(|a| !a.is_empty())
    {
        assert!(Instant::now() < deadline, "{}", status(&t));
        std::thread::sleep(Duration::from_millis(100));
    }
    kafka.produce("rq", 0, &rows(250, 300));
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(t.count("rq"), (250, sum(0..250)));
    // A larger quota: the next validation resumes, and the rows arrive once.
    let (s, b) = http(
        "PUT",
        &format!("{}/tables/rq", t.controller),
        Some(table("10G")),
    );
    assert_eq!(s, 200, "{b}");
    validate();
    assert_eq!(status(&t)["pauseFlag"], false);
    t.wait_for("rq", (300, sum(0..300)));
}

#[test]
fn tasks_and_retention_on_zookeeper_with_two_controllers() {
    let Some(zk) = support::zookeeper::ZooKeeper::start() else {
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
        "lifecycle",
        "--deep-store",
        &deep,
        "--heartbeat-ms",
        "200",
        "--no-log-stderr",
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
    let (_c1, ctl1) = start("controller", &d("c1"));
    let (_c2, ctl2) = start("controller", &d("c2"));
    let (_b, broker) = start("broker", &d("b"));
    let (_s, _) = start("server", &d("s"));
    let (_m, _) = start("minion", &d("m"));
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, body) = http("GET", &format!("{ctl2}/instances"), None);
        if body["instances"].as_array().is_some_and(|i| i.len() == 5) {
            break;
        }
        assert!(Instant::now() < deadline, "{body}");
        std::thread::sleep(Duration::from_millis(100));
    }
    // A view of the cluster through the second controller and the broker.
    let t = Tessera {
        proc: None,
        controller: ctl2.clone(),
        broker,
        data: PathBuf::new(),
        ports: Default::default(),
        roles: "",
    };
    t.post_ok("/schemas", schema());
    let mut config = merge_table(json!({"1day.bucketTimePeriod": "1d",
        "1day.bufferTimePeriod": "1d", "1day.maxNumParallelBuckets": "3"}));
    config["segmentsConfig"]["retentionTimeUnit"] = json!("DAYS");
    config["segmentsConfig"]["retentionTimeValue"] = json!("30");
    t.post_ok("/tables", config);
    let rows = small_segments(&t, dir.path(), 9);
    let (st, b) = upload(
        &t,
        "aged",
        &segment(dir.path(), "aged", rows..rows + 50, now_ms() - 40 * DAY_MS),
    );
    assert_eq!(st, 200, "{b}");
    t.wait_for("events", (rows + 50, sum(0..rows + 50)));
    // Retention run through the first controller.
    let (s, b) = http(
        "GET",
        &format!("{ctl1}/periodictask/run?taskname=RetentionManager&tableName=events"),
        None,
    );
    assert_eq!(s, 200, "{b}");
    t.wait_for("events", (rows, sum(0..rows)));
    // A merge scheduled through the second, run by the minion process.
    let names = schedule(&t, "MergeRollupTask", "events_OFFLINE");
    assert_eq!(names.len(), 1);
    wait_task(&t, &names[0], || {
        assert_eq!(t.count("events"), (rows, sum(0..rows)))
    });
    assert_eq!(t.segment_names("events", "OFFLINE").len(), 3);
    let (_, l) = http(
        "GET",
        &format!("{ctl1}/segments/events/lineage?type=OFFLINE"),
        None,
    );
    assert_eq!(
        l["lineageEntries"].as_object().map_or(0, |e| e.len()),
        3,
        "{l}"
    );
    assert_eq!(t.count("events"), (rows, sum(0..rows)));
}
