//! Real-time tables against a real Kafka-protocol broker (tansu) and separate `tessera start`
//! processes: rows produced with a Kafka client become queryable, consuming segments commit at
//! their flush threshold, pause commits and stops consumption, resume goes on from the
//! committed offsets (or `consumeFrom`), a topic change takes effect after pause and resume, and
//! a kill -9 loses and duplicates nothing. Every check counts rows *and* sums their ids, so a
//! row seen twice or missed cannot pass.

mod support;

use serde_json::{Value, json};
use std::time::{Duration, Instant};
use support::kafka::Kafka;
use support::realtime::{JSON_DECODER, Tessera, event_schema, http, kafka_stream, realtime_table};
use support::{Proc, call, free_port};

/// A Kafka-protocol broker with `topic` (`partitions` partitions) and a fresh `tessera start`
/// on a temporary data dir; None when the broker is not installed (outside CI).
fn setup(topic: &str, partitions: i32) -> Option<(Kafka, tempfile::TempDir, Tessera)> {
    let kafka = Kafka::start()?;
    kafka.create_topic(topic, partitions);
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(dir.path());
    Some((kafka, dir, t))
}

fn table(name: &str, kafka: &str, topic: &str, flush_rows: u64) -> Value {
    realtime_table(
        name,
        json!({"invertedIndexColumns": ["kind"]}),
        kafka_stream(topic, kafka, JSON_DECODER, flush_rows),
    )
}

/// Records with ids `from..to`; kind cycles through three values.
fn records(from: i64, to: i64) -> Vec<Value> {
    (from..to)
        .map(|i| {
            let kind = ["a", "b", "c"][(i % 3) as usize];
            json!({"id": i, "kind": kind, "ts": 1_700_000_000_000i64 + i})
        })
        .collect()
}

fn sum(from: i64, to: i64) -> i64 {
    (from..to).sum()
}

fn create(t: &Tessera, name: &str, kafka: &Kafka, topic: &str, flush_rows: u64) {
    t.post_ok("/schemas", event_schema(name));
    t.post_ok("/tables", table(name, &kafka.address, topic, flush_rows));
}

/// Produce, query, flush and commit, pause (consumption stops, what was consumed is committed),
/// produce more (not visible), resume (visible), with nothing lost or doubled.
#[test]
fn consumes_commits_pauses_and_resumes() {
    let Some((kafka, _dir, t)) = setup("events", 2) else {
        return;
    };
    create(&t, "events", &kafka, "events", 200);

    // 250 rows per partition: each partition's first segment commits at 200 rows.
    let produced_ms = now_ms();
    kafka.produce("events", 0, &records(0, 250));
    kafka.produce("events", 1, &records(250, 500));
    t.wait_for("events", 500, sum(0, 500), Duration::from_secs(30));
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let segs = t.segments("events");
        let done: Vec<&Value> = segs
            .iter()
            .filter(|s| s["segment.realtime.status"] == "DONE")
            .collect();
        if done.len() == 2 {
            for s in &done {
                assert_eq!(s["segment.total.docs"], "200", "{s}");
                assert_eq!(s["segment.realtime.endOffset"], "200", "{s}");
            }
            break;
        }
        assert!(Instant::now() < deadline, "no commits: {segs:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    t.wait_for("events", 500, sum(0, 500), Duration::from_secs(10));
    let (s, info) = http(
        "GET",
        &format!("{}/tables/events/consumingSegmentsInfo", t.controller),
        None,
    );
    assert_eq!(s, 200, "{info}");
    let segs = info["_segmentToConsumingInfoMap"].as_object().unwrap();
    assert_eq!(segs.len(), 2, "{info}");
    for (name, servers) in segs {
        let partition = name.split("__").nth(1).unwrap();
        let s = &servers[0];
        assert_eq!(s["consumerState"], "CONSUMING", "{info}");
        let offsets = &s["partitionOffsetInfo"];
        assert_eq!(offsets["currentOffsetsMap"][partition], "250", "{info}");
        assert_eq!(
            offsets["latestUpstreamOffsetMap"][partition], "250",
            "{info}"
        );
        assert_eq!(offsets["recordsLagMap"][partition], "0", "{info}");
        assert!(s["lastConsumedTimestamp"].as_i64().unwrap() > 0, "{info}");
    }
    assert_eq!(info["serversFailingToRespond"], 0);
    consuming_segments_are_counted_once_and_fresh(&t, produced_ms);

    // Pause: the consuming segments commit what they hold and nothing consumes.
    assert_eq!(t.pause("events")["pauseFlag"], true);
    t.wait_for("events", 500, sum(0, 500), Duration::from_secs(10));
    kafka.produce("events", 0, &records(500, 560));
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(t.count("events"), (500, sum(0, 500)));

    // Resume: from the committed offsets, so the 60 rows produced while paused arrive once.
    assert_eq!(t.resume("events", "")["pauseFlag"], false);
    t.wait_for("events", 560, sum(0, 560), Duration::from_secs(30));
    kafka.produce("events", 1, &records(560, 600));
    let took = t.wait_for("events", 600, sum(0, 600), Duration::from_secs(30));
    eprintln!("40 rows produced became queryable in {took:?}");
    // The multi-stage engine reads the same committed and consuming segments.
    assert_eq!(t.count_v2("events"), (600, sum(0, 600)));
    let (_, body) = http(
        "POST",
        &format!("{}/query/sql", t.broker),
        Some(
            json!({"sql": "SET useMultistageEngine=true; SELECT a.kind, count(*) FROM events a JOIN events b ON a.id = b.id GROUP BY a.kind ORDER BY a.kind"}),
        ),
    );
    assert_eq!(
        body["resultTable"]["rows"],
        json!([["a", 200], ["b", 200], ["c", 200]]),
        "{body}"
    );
}

fn now_ms() -> u64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since.unwrap().as_millis() as u64
}

/// Two committed and two consuming segments (50 rows each, read as one or more parts): both
/// engines report the consuming ones once each, matched when their rows are, and how fresh
/// they are — the stream time of their newest row, produced after `produced_ms`.
fn consuming_segments_are_counted_once_and_fresh(t: &Tessera, produced_ms: u64) {
    for prefix in ["", "SET useMultistageEngine=true; "] {
        let stats = |filter: &str| {
            let body = t.sql(&format!("{prefix}SELECT count(*) FROM events {filter}"));
            let n = |k: &str| body[k].as_u64().unwrap_or_else(|| panic!("{k}: {body}"));
            (
                [
                    n("numSegmentsQueried"),
                    n("numConsumingSegmentsQueried"),
                    n("numConsumingSegmentsProcessed"),
                    n("numConsumingSegmentsMatched"),
                ],
                n("minConsumingFreshnessTimeMs"),
                body,
            )
        };
        let (counts, fresh, body) = stats("");
        assert_eq!(counts, [4, 2, 2, 2], "{prefix}: {body}");
        assert!(
            (produced_ms..=now_ms()).contains(&fresh),
            "{prefix}: freshness {fresh} not in {produced_ms}.. : {body}"
        );
        // Only committed rows match: the consuming segments are not matched.
        let (counts, _, body) = stats("WHERE id < 100");
        assert_eq!(
            (counts[0], counts[1], counts[3]),
            (4, 2, 0),
            "{prefix}: {body}"
        );
    }
}

/// A kill -9 while rows stream in and segments commit: after the restart every produced row is
/// there exactly once (consumption resumes at the consuming segment's start offset).
#[test]
fn kill_9_while_consuming_loses_and_doubles_nothing() {
    let Some((kafka, _dir, mut t)) = setup("orders", 1) else {
        return;
    };
    create(&t, "orders", &kafka, "orders", 120);
    kafka.produce("orders", 0, &records(0, 100));
    t.wait_for("orders", 100, sum(0, 100), Duration::from_secs(30));
    std::thread::scope(|s| {
        s.spawn(|| kafka.produce("orders", 0, &records(100, 700)));
        std::thread::sleep(Duration::from_millis(300));
        t.kill_9();
    });
    t.restart();
    t.wait_for("orders", 700, sum(0, 700), Duration::from_secs(60));
    let segs = t.segments("orders");
    let done = segs
        .iter()
        .filter(|s| s["segment.realtime.status"] == "DONE")
        .count();
    assert!(done >= 5, "700 rows at 120 per segment: {segs:?}");
    // Offsets chain: each committed segment starts where the one before it ended.
    let mut ranges: Vec<(i64, i64)> = segs
        .iter()
        .filter(|s| s["segment.realtime.status"] == "DONE")
        .map(|s| {
            let o = |k: &str| s[k].as_str().unwrap().parse::<i64>().unwrap();
            (
                o("segment.realtime.startOffset"),
                o("segment.realtime.endOffset"),
            )
        })
        .collect();
    ranges.sort();
    assert_eq!(ranges[0].0, 0);
    for w in ranges.windows(2) {
        assert_eq!(w[0].1, w[1].0, "{ranges:?}");
    }
}

/// A topic changed with `PUT /tables/{t}` takes effect after pause and resume; `consumeFrom`
/// picks where a resumed partition starts.
#[test]
fn topic_change_takes_effect_after_pause_and_resume() {
    let Some(kafka) = Kafka::start() else { return };
    kafka.create_topic("first", 1);
    kafka.create_topic("second", 1);
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(dir.path());
    create(&t, "clicks", &kafka, "first", 10_000);
    kafka.produce("first", 0, &records(0, 50));
    t.wait_for("clicks", 50, sum(0, 50), Duration::from_secs(30));

    let mut config = table("clicks", &kafka.address, "second", 10_000);
    config["ingestionConfig"]["streamIngestionConfig"]["streamConfigMaps"][0]["stream.kafka.consumer.prop.auto.offset.reset"] =
        json!("largest");
    let (s, b) = http(
        "PUT",
        &format!("{}/tables/clicks_REALTIME", t.controller),
        Some(config),
    );
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["requiredFollowUp"], "pause-resume", "{b}");
    // Until then the old topic is consumed.
    kafka.produce("first", 0, &records(50, 60));
    kafka.produce("second", 0, &records(1000, 1010));
    t.wait_for("clicks", 60, sum(0, 60), Duration::from_secs(30));

    t.pause("clicks");
    t.resume("clicks", "");
    // `largest` on the new topic: the 10 rows produced before the resume are skipped.
    kafka.produce("second", 0, &records(60, 100));
    kafka.produce("first", 0, &records(5000, 5010));
    t.wait_for("clicks", 100, sum(0, 100), Duration::from_secs(30));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(t.count("clicks"), (100, sum(0, 100)));

    // Pause and resume from the smallest offset: the new topic is read again from its start,
    // so its rows are counted twice — what `consumeFrom=smallest` asks for.
    t.pause("clicks");
    t.resume("clicks", "?consumeFrom=smallest");
    let again = sum(0, 100) + sum(1000, 1010) + sum(60, 100);
    t.wait_for("clicks", 150, again, Duration::from_secs(30));
}

/// Two servers, replication 2, as separate processes: one replica commits each segment, the
/// other loads the stored copy; every query answers each row once, also with a server killed.
#[test]
fn two_replicas_commit_once_and_answer_once() {
    let Some(kafka) = Kafka::start() else { return };
    kafka.create_topic("views", 1);
    let dir = tempfile::tempdir().unwrap();
    let d = |sub: &str| dir.path().join(sub).to_string_lossy().into_owned();
    let fast = ["--heartbeat-ms", "100", "--no-log-stderr"];
    let cb_port = [free_port(), free_port()].map(|p| p.to_string());
    let (_cb, urls) = support::start(
        &[
            &[
                "--roles",
                "controller,broker",
                "--controller-port",
                &cb_port[0],
                "--broker-port",
                &cb_port[1],
                "--data-dir",
                &d("cb"),
            ][..],
            &fast,
        ]
        .concat(),
    );
    let ctl = urls["controller"].clone();
    let server = |name: &str| {
        support::start(
            &[
                &[
                    "--roles",
                    "server",
                    "--server-port",
                    "0",
                    "--controller-url",
                    &ctl,
                    "--data-dir",
                    &d(name),
                    "--instance-id",
                    name,
                ][..],
                &fast,
            ]
            .concat(),
        )
        .0
    };
    let _one = server("Server_one");
    let two = server("Server_two");
    let t = Tessera::attach(&ctl, &urls["broker"], &dir.path().join("cb"));
    // Both servers registered before the table, so each segment gets both.
    let deadline = Instant::now() + Duration::from_secs(10);
    while http("GET", &format!("{ctl}/instances"), None).1["instances"]
        .as_array()
        .map_or(0, |a| {
            a.iter()
                .filter(|i| i.as_str().unwrap().starts_with("Server_"))
                .count()
        })
        < 2
    {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(50));
    }
    let (s, b) = http(
        "POST",
        &format!("{ctl}/schemas"),
        Some(event_schema("views")),
    );
    assert_eq!(s, 200, "{b}");
    let mut config = table("views", &kafka.address, "views", 100);
    config["segmentsConfig"]["replication"] = json!("2");
    let (s, b) = http("POST", &format!("{ctl}/tables"), Some(config));
    assert_eq!(s, 200, "{b}");

    kafka.produce("views", 0, &records(0, 250));
    t.wait_for("views", 250, sum(0, 250), Duration::from_secs(30));
    // Two committed segments, each on both servers, with the same rows.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, servers) = http("GET", &format!("{ctl}/segments/views/servers"), None);
        let text = servers.to_string();
        let done: Vec<Value> = t
            .segments("views")
            .into_iter()
            .filter(|s| s["segment.realtime.status"] == "DONE")
            .collect();
        if done.len() == 2 && text.matches("views__0__0__").count() >= 2 {
            break;
        }
        assert!(Instant::now() < deadline, "{servers}");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Both replicas consumed to the end (the one that lost the commit race starts the next
    // consuming segment later): from then on every answer is exact, whichever replica serves.
    loop {
        let (_, info) = http(
            "GET",
            &format!("{ctl}/tables/views/consumingSegmentsInfo"),
            None,
        );
        let caught_up = info["_segmentToConsumingInfoMap"]
            .as_object()
            .and_then(|m| m.values().next())
            .and_then(Value::as_array)
            .is_some_and(|servers| {
                servers.len() == 2
                    && servers
                        .iter()
                        .all(|s| s["partitionOffsetInfo"]["currentOffsetsMap"]["0"] == "250")
            });
        if caught_up {
            break;
        }
        assert!(Instant::now() < deadline, "{info}");
        std::thread::sleep(Duration::from_millis(100));
    }
    for _ in 0..20 {
        assert_eq!(t.count("views"), (250, sum(0, 250)));
    }
    // One replica gone: the other answers every row, consuming ones included.
    drop(two);
    kafka.produce("views", 0, &records(250, 300));
    t.wait_for("views", 300, sum(0, 300), Duration::from_secs(30));
}

/// A hybrid table: an OFFLINE and a REALTIME table of one name answer together, split at the
/// time boundary (the offline part's largest end time less a day), so rows in both answer once.
#[test]
fn hybrid_table_answers_each_row_once_across_the_time_boundary() {
    let Some((kafka, _dir, t)) = setup("hits", 1) else {
        return;
    };
    const DAY0: i64 = 1_700_000_000_000;
    const HOUR: i64 = 3_600_000;
    let row = |i: i64| json!({"id": i, "kind": "k", "ts": DAY0 + i * HOUR});
    create(&t, "hits", &kafka, "hits", 10_000);
    let mut offline = table("hits", &kafka.address, "hits", 0);
    offline["tableType"] = json!("OFFLINE");
    offline.as_object_mut().unwrap().remove("ingestionConfig");
    t.post_ok("/tables", offline);
    // Offline: ids 0..100, ending at hour 99; real-time: ids 50..200 (50..99 in both).
    let csv: String = std::iter::once("id,kind,ts\n".to_string())
        .chain((0..100).map(|i| format!("{i},k,{}\n", DAY0 + i * HOUR)))
        .collect();
    let (ct, body) = tessera_api::http::multipart::encode_file("file", "rows.csv", csv.as_bytes());
    let url = format!(
        "{}/ingestFromFile?tableNameWithType=hits_OFFLINE&batchConfigMapStr=%7B%22inputFormat%22%3A%22csv%22%7D",
        t.controller
    );
    let (s, b) = async_std::task::block_on(call("POST", &url, Some((body, ct))));
    assert_eq!(s, 200, "{b}");
    let rows: Vec<Value> = (50..200).map(row).collect();
    kafka.produce("hits", 0, &rows);
    // Boundary: hour 99 less a day = hour 75. Offline answers ids 0..=75, real-time 76..199.
    t.wait_for("hits", 200, sum(0, 200), Duration::from_secs(30));
    let (_, body) = http(
        "POST",
        &format!("{}/query/sql", t.broker),
        Some(json!({"sql": "SELECT count(*) FROM hits WHERE id BETWEEN 50 AND 99"})),
    );
    assert_eq!(body["resultTable"]["rows"][0][0], 50, "{body}");
    // The multi-stage engine reads both halves too: each leaf worker on its side of the boundary.
    assert_eq!(t.count_v2("hits"), (200, sum(0, 200)));
    let (_, body) = http(
        "POST",
        &format!("{}/query/sql", t.broker),
        Some(
            json!({"sql": "SET useMultistageEngine=true; SELECT count(*) FROM hits a JOIN hits b ON a.id = b.id WHERE a.id BETWEEN 50 AND 99"}),
        ),
    );
    assert_eq!(body["resultTable"]["rows"][0][0], 50, "{body}");
}

/// `tessera quickstart --realtime` starts a Kafka-protocol broker and a REALTIME table fed from
/// it: rows keep arriving, and the broker dies with the quickstart.
#[test]
fn quickstart_realtime_shows_rows_arriving() {
    let Some(tansu) = support::kafka::tansu() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ports = [free_port(), free_port(), free_port(), free_port()].map(|p| p.to_string());
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args([
            "quickstart",
            "--realtime",
            "--data-dir",
            dir.path().to_str().unwrap(),
            "--controller-port",
            &ports[0],
            "--broker-port",
            &ports[1],
            "--server-port",
            &ports[2],
            "--kafka-port",
            &ports[3],
            "--segments",
            "1",
            "--rows-per-segment",
            "100",
            "--no-log-stderr",
        ])
        .env("TESSERA_TANSU", &tansu)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let quickstart = Proc(child);
    let broker = format!("http://127.0.0.1:{}", ports[1]);
    let events = || {
        let (_, body) = http(
            "POST",
            &format!("{broker}/query/sql"),
            Some(json!({"sql": "SELECT count(*) FROM events"})),
        );
        body["resultTable"]["rows"][0][0].as_i64().unwrap_or(0)
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while events() < 5 {
        assert!(Instant::now() < deadline, "no events arrived");
        std::thread::sleep(Duration::from_millis(100));
    }
    let first = events();
    std::thread::sleep(Duration::from_millis(800));
    assert!(events() > first, "events stopped arriving at {first}");
    drop(quickstart);
    // The quickstart's Kafka broker went with it.
    std::thread::sleep(Duration::from_millis(300));
    assert!(std::net::TcpStream::connect(format!("127.0.0.1:{}", ports[3])).is_err());
}

fn upsert_table(name: &str, kafka: &str, upsert: Value, flush_rows: u64) -> Value {
    let mut t = table(name, kafka, name, flush_rows);
    t["routing"] = json!({"instanceSelectorType": "strictReplicaGroup"});
    t["upsertConfig"] = upsert;
    t
}

/// `SELECT count(*), sum(<col>)` of a table.
fn wait_count_sum(t: &Tessera, table: &str, col: &str, want: (i64, i64)) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = (0, 0);
    while Instant::now() < deadline {
        last = t.count_sum(table, col, "");
        if last == want {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!(
        "{table}: expected {want:?}, last saw {last:?}\n{}",
        t.log_tail()
    );
}

/// Upsert (FULL): a query sees only the latest row of each primary key — by the comparison
/// column, so a late-arriving older row does not win — across committed and consuming
/// segments, after a kill -9 too, on both engines.
#[test]
fn upsert_full_keeps_the_latest_row_per_key() {
    let Some((kafka, _dir, mut t)) = setup("scores", 1) else {
        return;
    };
    let mut s = event_schema("scores");
    s["primaryKeyColumns"] = json!(["kind"]);
    t.post_ok("/schemas", s);
    let config = upsert_table("scores", &kafka.address, json!({"mode": "FULL"}), 30);
    t.post_ok("/tables", config);
    // Ten keys; row i has key k{i % 10}, id i and time i: the latest of each is i in 90..100.
    let row = |i: i64, ts: i64| json!({"kind": format!("k{}", i % 10), "id": i, "ts": ts});
    let rows: Vec<Value> = (0..100).map(|i| row(i, 1_000 + i)).collect();
    kafka.produce("scores", 0, &rows);
    wait_count_sum(&t, "scores", "id", (10, sum(90, 100)));
    // An older row of k0 arriving late loses; a newer row of k1 wins.
    kafka.produce("scores", 0, &[row(500, 10), row(201, 2_000)]);
    wait_count_sum(&t, "scores", "id", (10, sum(90, 100) - 91 + 201));
    let segs = t.segments("scores");
    assert!(
        segs.iter()
            .filter(|s| s["segment.realtime.status"] == "DONE")
            .count()
            >= 3,
        "{segs:?}"
    );
    assert_eq!(
        t.count_sum("scores", "id", "SET useMultistageEngine=true; "),
        (10, sum(90, 100) - 91 + 201)
    );
    // `skipUpsert` shows every row.
    assert_eq!(
        t.count_sum("scores", "id", "SET skipUpsert=true; "),
        (102, sum(0, 100) + 500 + 201)
    );
    t.kill_9();
    t.restart();
    wait_count_sum(&t, "scores", "id", (10, sum(90, 100) - 91 + 201));
}

/// Upsert (PARTIAL): each arriving row is merged with its key's latest row column by column
/// (INCREMENT, MAX, default OVERWRITE), across commits and a restart.
#[test]
fn upsert_partial_merges_columns() {
    let Some((kafka, _dir, mut t)) = setup("totals", 1) else {
        return;
    };
    let s = json!({
        "schemaName": "totals",
        "primaryKeyColumns": ["player"],
        "dimensionFieldSpecs": [{"name": "player", "dataType": "STRING"},
                                {"name": "last", "dataType": "STRING"}],
        "metricFieldSpecs": [{"name": "id", "dataType": "LONG"},
                             {"name": "games", "dataType": "LONG"},
                             {"name": "best", "dataType": "LONG"}],
        "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP",
            "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"}]
    });
    t.post_ok("/schemas", s);
    let mut config = upsert_table(
        "totals",
        &kafka.address,
        json!({"mode": "PARTIAL", "partialUpsertStrategies": {"games": "INCREMENT", "best": "MAX"}}),
        7,
    );
    config["tableIndexConfig"] = json!({"invertedIndexColumns": ["player"]});
    t.post_ok("/tables", config);
    // Three players, ten games each; scores i * 7 % 50.
    let rows: Vec<Value> = (0..30)
        .map(|i| {
            json!({"player": format!("p{}", i % 3), "last": format!("g{i}"), "id": i,
                   "games": 1, "best": i * 7 % 50, "ts": 1_000 + i})
        })
        .collect();
    kafka.produce("totals", 0, &rows);
    let check = |t: &Tessera| {
        let deadline = Instant::now() + Duration::from_secs(30);
        let want = json!([
            ["p0", 10, 47, "g27"],
            ["p1", 10, 49, "g28"],
            ["p2", 10, 48, "g29"]
        ]);
        let mut last = Value::Null;
        while Instant::now() < deadline {
            let (_, body) = http(
                "POST",
                &format!("{}/query/sql", t.broker),
                Some(
                    json!({"sql": "SELECT player, games, best, last FROM totals ORDER BY player"}),
                ),
            );
            last = body["resultTable"]["rows"].clone();
            if last == want {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("expected {want}, saw {last}\n{}", t.log_tail());
    };
    check(&t);
    t.kill_9();
    t.restart();
    check(&t);
}

/// `flush.threshold.rows: 0` flushes by size (`flush.threshold.segment.size`);
/// `transformConfigs` and `filterConfig` apply to stream rows as to files; `continueOnError`
/// keeps a row whose value does not fit, with a null.
#[test]
fn size_based_flush_transforms_filters_and_continue_on_error() {
    let Some((kafka, _dir, t)) = setup("sized", 1) else {
        return;
    };
    t.post_ok("/schemas", event_schema("sized"));
    let mut config = table("sized", &kafka.address, "sized", 0);
    let streams = &mut config["ingestionConfig"]["streamIngestionConfig"]["streamConfigMaps"][0];
    streams["realtime.segment.flush.threshold.segment.size"] = json!("6K");
    config["ingestionConfig"]["continueOnError"] = json!(true);
    config["ingestionConfig"]["transformConfigs"] =
        json!([{"columnName": "kind", "transformFunction": "upper(k)"}]);
    config["ingestionConfig"]["filterConfig"] = json!({"filterFunction": "id = 13"});
    t.post_ok("/tables", config);
    // The kind arrives as `k`, lower case; row 13 is filtered out; row 400's time is not one.
    let mut rows: Vec<Value> = records(0, 400)
        .into_iter()
        .map(|mut r| {
            let k = r["kind"].take();
            r.as_object_mut().unwrap().remove("kind");
            r["k"] = k;
            r
        })
        .collect();
    rows.push(json!({"id": 400, "k": "a", "ts": "not a time"}));
    for chunk in rows.chunks(50) {
        kafka.produce("sized", 0, chunk);
        std::thread::sleep(Duration::from_millis(100));
    }
    t.wait_for("sized", 400, sum(0, 401) - 13, Duration::from_secs(30));
    let (_, body) = http(
        "POST",
        &format!("{}/query/sql", t.broker),
        Some(json!({"sql": "SELECT kind, count(*) FROM sized GROUP BY kind ORDER BY kind"})),
    );
    assert_eq!(
        body["resultTable"]["rows"],
        json!([["A", 135], ["B", 132], ["C", 133]]),
        "{body}"
    );
    let done = t
        .segments("sized")
        .into_iter()
        .filter(|s| s["segment.realtime.status"] == "DONE")
        .count();
    assert!(
        done >= 1,
        "no segment reached 6K: {:?}",
        t.segments("sized")
    );
}

/// A REALTIME config this cluster cannot consume (another stream type, a decoder Tessera does
/// not have) is refused with a clear 400 at creation, not accepted and then never read.
#[test]
fn unconsumable_stream_configs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(dir.path());
    t.post_ok("/schemas", event_schema("odd"));
    let mut thrift = table("odd", "127.0.0.1:1", "odd", 10);
    thrift["ingestionConfig"]["streamIngestionConfig"]["streamConfigMaps"][0]["stream.kafka.decoder.class.name"] =
        json!("org.apache.pinot.plugin.inputformat.thrift.ThriftMessageDecoder");
    let (s, b) = http("POST", &format!("{}/tables", t.controller), Some(thrift));
    assert_eq!(s, 400, "{b}");
    assert!(
        b["error"].as_str().unwrap().contains("is not supported"),
        "{b}"
    );
    let kinesis = json!({
        "tableName": "odd", "tableType": "REALTIME",
        "segmentsConfig": {"timeColumnName": "ts", "replication": "1"}, "tenants": {},
        "tableIndexConfig": {},
        "ingestionConfig": {"streamIngestionConfig": {"streamConfigMaps": [{
            "streamType": "kinesis", "stream.kinesis.topic.name": "odd",
            "stream.kinesis.decoder.class.name": "org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder"
        }]}}
    });
    let (s, b) = http("POST", &format!("{}/tables", t.controller), Some(kinesis));
    assert_eq!(s, 400, "{b}");
    assert!(b["error"].as_str().unwrap().contains("kinesis"), "{b}");
    let (_, tables) = http("GET", &format!("{}/tables", t.controller), None);
    assert_eq!(tables["tables"], json!([]), "nothing was created");
}

/// Pausing a table whose consuming segments hold no row commits them empty; resume goes on
/// from the same offsets.
#[test]
fn pause_before_any_row_commits_empty_segments() {
    let Some((kafka, _dir, t)) = setup("quiet", 2) else {
        return;
    };
    create(&t, "quiet", &kafka, "quiet", 1_000);
    let deadline = Instant::now() + Duration::from_secs(20);
    while t.pause_status("quiet")["consumingSegments"]
        .as_array()
        .is_none_or(|a| a.len() < 2)
    {
        assert!(Instant::now() < deadline, "{}", t.pause_status("quiet"));
        std::thread::sleep(Duration::from_millis(50));
    }
    t.pause("quiet");
    let segs = t.segments("quiet");
    assert_eq!(segs.len(), 2, "{segs:?}");
    for s in &segs {
        assert_eq!(s["segment.realtime.status"], "DONE", "{s}");
        assert_eq!(s["segment.total.docs"], "0", "{s}");
    }
    assert_eq!(t.count("quiet"), (0, 0));
    t.resume("quiet", "");
    kafka.produce("quiet", 1, &records(0, 10));
    t.wait_for("quiet", 10, sum(0, 10), Duration::from_secs(30));
}

/// Keys moving between chunks and segments while queries run: under `consistencyMode` SYNC and
/// SNAPSHOT every query (both engines) sees each key exactly once — never its old and new row,
/// never neither — through commits, and the last rows show once the view is refreshed.
#[test]
fn upsert_consistency_modes_show_each_key_once_while_keys_move() {
    let Some((kafka, _dir, t)) = setup("moves_sync", 1) else {
        return;
    };
    kafka.create_topic("moves_snapshot", 1);
    for mode in ["SYNC", "SNAPSHOT"] {
        let name = format!("moves_{}", mode.to_ascii_lowercase());
        let mut s = event_schema(&name);
        s["primaryKeyColumns"] = json!(["kind"]);
        t.post_ok("/schemas", s);
        let upsert = json!({"mode": "FULL", "consistencyMode": mode,
            "upsertViewRefreshIntervalMs": 200});
        t.post_ok("/tables", upsert_table(&name, &kafka.address, upsert, 400));
        let keys = 40i64;
        let row = |i: i64| json!({"kind": format!("k{}", i % keys), "id": i, "ts": 1_000 + i});
        let round = |r: i64| ((r * keys)..((r + 1) * keys)).map(row).collect::<Vec<_>>();
        kafka.produce(&name, 0, &round(0));
        wait_count_sum(&t, &name, "id", (keys, sum(0, keys)));
        let rounds = 60;
        let mut queries = 0;
        std::thread::scope(|scope| {
            let producer = scope.spawn(|| {
                for r in 1..=rounds {
                    kafka.produce(&name, 0, &round(r));
                }
            });
            while !producer.is_finished() {
                for prefix in ["", "SET useMultistageEngine=true; "] {
                    let (count, _) = t.count_sum(&name, "id", prefix);
                    assert_eq!(count, keys, "{mode} {prefix}after {queries} queries");
                    queries += 1;
                }
            }
        });
        assert!(queries >= 10, "{mode}: only {queries} queries ran");
        let last = rounds * keys;
        wait_count_sum(&t, &name, "id", (keys, sum(last, last + keys)));
        let committed = t
            .segments(&name)
            .iter()
            .filter(|s| s["segment.realtime.status"] == "DONE")
            .count();
        assert!(committed >= 3, "{mode}: {committed} commits");
    }
}

/// The broker goes away — every connection to it cut, new ones refused — for longer than a
/// fetch waits, and comes back: consumption goes on from where it was, queries answer from
/// what was consumed meanwhile, and no row is lost or read twice, through the commit after it.
#[test]
fn a_stream_that_goes_away_and_comes_back_loses_and_doubles_nothing() {
    let broker_port = free_port();
    let proxy = support::proxy::Proxy::start(format!("127.0.0.1:{broker_port}"));
    let Some((kafka, _tansu)) = Kafka::start_behind(proxy.port, broker_port) else {
        return;
    };
    kafka.create_topic("outage", 1);
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(dir.path());
    create(&t, "outage", &kafka, "outage", 500);
    kafka.produce("outage", 0, &records(0, 300));
    wait_count_sum(&t, "outage", "id", (300, sum(0, 300)));
    // Longer than the client's retries of one call to an unreachable broker (10 s).
    proxy.cut();
    std::thread::sleep(Duration::from_secs(12));
    assert_eq!(t.count_sum("outage", "id", ""), (300, sum(0, 300)));
    proxy.restore();
    kafka.produce("outage", 0, &records(300, 800));
    wait_count_sum(&t, "outage", "id", (800, sum(0, 800)));
    // A second outage while the segment that crossed its threshold commits.
    proxy.cut();
    std::thread::sleep(Duration::from_secs(3));
    proxy.restore();
    kafka.produce("outage", 0, &records(800, 1100));
    wait_count_sum(&t, "outage", "id", (1100, sum(0, 1100)));
    let committed = t
        .segments("outage")
        .iter()
        .filter(|s| s["segment.realtime.status"] == "DONE")
        .count();
    assert!(committed >= 2, "{committed} commits");
}

/// A JSON index on a streamed JSON column (`fieldConfigList[].indexes.json`) and a text index
/// (the older `indexType: TEXT` with `properties`): `JSON_MATCH` and `TEXT_MATCH` through the
/// broker find the same rows in committed and consuming segments, in both engines (JSON per
/// array element); a column without a JSON index gets Pinot's error.
#[test]
fn json_and_text_match_read_their_indexes_in_committed_and_consuming_segments() {
    let Some((kafka, _dir, t)) = setup("docs", 1) else {
        return;
    };
    let mut s = event_schema("docs");
    for field in [
        json!({"name": "payload", "dataType": "JSON"}),
        json!({"name": "notes", "dataType": "STRING"}),
    ] {
        s["dimensionFieldSpecs"].as_array_mut().unwrap().push(field);
    }
    let mut config = table("docs", &kafka.address, "docs", 100);
    config["fieldConfigList"] = json!([
        {"name": "payload", "encodingType": "RAW", "indexes": {"json": {}}},
        {"name": "notes", "encodingType": "DICTIONARY", "indexType": "TEXT",
         "properties": {"stopWordExclude": "it"}}
    ]);
    config["tableIndexConfig"]["noDictionaryColumns"] = json!(["payload"]);
    t.post_ok("/schemas", s);
    t.post_ok("/tables", config);
    // 250 rows: two committed segments of 100 and 50 consuming. Each payload lists two items;
    // item 0 is `red` for even ids, item 1 `blue` when the id is a multiple of 5.
    let rows: Vec<Value> = (0..250i64)
        .map(|i| {
            let first = if i % 2 == 0 { "red" } else { "green" };
            let second = if i % 5 == 0 { "blue" } else { "grey" };
            let notes = format!(
                "{} {}",
                if i % 4 == 0 { "Machine learning" } else { "learning about machines" },
                if i % 7 == 0 { "IT support" } else { "support desk" }
            );
            json!({"id": i, "kind": "k", "ts": 1_700_000_000_000i64 + i, "notes": notes, "payload": {
                "user": {"id": i, "group": format!("g{}", i % 3)},
                "items": [{"color": first, "n": 1}, {"color": second, "n": 2}]
            }})
        })
        .collect();
    kafka.produce("docs", 0, &rows);
    t.wait_for("docs", 250, sum(0, 250), Duration::from_secs(30));
    let expect = |keep: &dyn Fn(i64) -> bool| {
        let ids: Vec<i64> = (0..250).filter(|&i| keep(i)).collect();
        (ids.len() as i64, ids.iter().sum::<i64>())
    };
    let cases: Vec<(&str, (i64, i64))> = vec![
        (r#""$.user.group" = 'g1'"#, expect(&|i| i % 3 == 1)),
        (r#""$.user.id" >= 200"#, expect(&|i| i >= 200)),
        (r#""$.items[0].color" = 'red'"#, expect(&|i| i % 2 == 0)),
        (r#""$.items[*].color" = 'blue'"#, expect(&|i| i % 5 == 0)),
        // One element is blue and numbered 1: none (blue is always item 1, n = 2).
        (
            r#""$.items[*].color" = 'blue' AND "$.items[*].n" = 1"#,
            (0, 0),
        ),
        (
            r#""$.items[*].color" = 'blue' AND "$.items[*].n" = 2"#,
            expect(&|i| i % 5 == 0),
        ),
        (
            r#""$.user.group" IN ('g0', 'g2') AND "$.user.id" < 100"#,
            expect(&|i| i % 3 != 1 && i < 100),
        ),
    ];
    let text_cases: Vec<(&str, (i64, i64))> = vec![
        (r#""machine learning""#, expect(&|i| i % 4 == 0)),
        ("machine", expect(&|i| i % 4 == 0)),
        ("machin*", expect(&|_| true)),
        // `it` is no stop word for this column (stopWordExclude).
        (r#""IT support""#, expect(&|i| i % 7 == 0)),
        ("machine AND it", expect(&|i| i % 4 == 0 && i % 7 == 0)),
    ];
    let quoted = |s: &str| s.replace('\'', "''");
    let filters = cases
        .into_iter()
        .map(|(f, want)| (format!("JSON_MATCH(payload, '{}')", quoted(f)), want))
        .chain(
            text_cases
                .into_iter()
                .map(|(q, want)| (format!("TEXT_MATCH(notes, '{}')", quoted(q)), want)),
        );
    for (filter, want) in filters {
        for prefix in ["", "SET useMultistageEngine=true; "] {
            let sql = format!("{prefix}SELECT count(*), sum(id) FROM docs WHERE {filter}");
            let body = t.sql(&sql);
            let row = &body["resultTable"]["rows"][0];
            let got = (
                row[0].as_i64().unwrap_or(-1),
                row[1].as_f64().unwrap_or(0.0) as i64,
            );
            assert_eq!(got, want, "{sql}: {body}");
        }
    }
    let (_, body) = http(
        "POST",
        &format!("{}/query/sql", t.broker),
        Some(json!({"sql": "SELECT count(*) FROM docs WHERE JSON_MATCH(kind, '\"$.a\" = 1')"})),
    );
    assert_eq!(body["exceptions"][0]["errorCode"], 200, "{body}");
    assert!(
        body["exceptions"][0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("Cannot apply JSON_MATCH on column: kind without json index"),
        "{body}"
    );
}

/// A backlog several fetches long (a fetch asks for 4 MiB), consumed into segments that commit
/// mid-fetch: the fetch of the next records runs while a batch is decoded, and a segment that
/// ends inside a batch drops it — every row arrives once.
#[test]
fn a_backlog_of_many_fetches_arrives_once_across_commits() {
    let Some((kafka, _dir, t)) = setup("backlog", 1) else {
        return;
    };
    let pad = "x".repeat(2_000);
    let rows: Vec<Value> = records(0, 3_000)
        .into_iter()
        .map(|mut r| {
            r["kind"] = json!(format!("{pad}{}", r["kind"].as_str().unwrap()));
            r
        })
        .collect();
    kafka.produce("backlog", 0, &rows);
    create(&t, "backlog", &kafka, "backlog", 1_100);
    wait_count_sum(&t, "backlog", "id", (3_000, sum(0, 3_000)));
    let (_, segments) = http("GET", &format!("{}/segments/backlog", t.controller), None);
    assert!(
        segments.to_string().matches("backlog__0__").count() >= 3,
        "{segments}"
    );
}
