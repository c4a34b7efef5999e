//! Crash safety with real processes: a `tessera start` process (all roles) takes a stream of
//! writes — table creation, file ingestion, `tar.gz` segment uploads and refreshes, reloads, segment
//! deletes — and is killed with SIGKILL at a random moment; then it is restarted on the same
//! data dir and ports. Every change it acknowledged must be there, the one in flight at the kill
//! either whole or absent (never half: its segment listed but unloadable, its rows partly
//! counted), the server must serve exactly the listed segments, the deep store must hold one
//! archive per listed segment, and the controller's scratch space must be empty. It runs with the
//! deep store in a directory and in S3 (moto on 127.0.0.1: a kill mid multipart upload leaves no
//! object, and the start-up sweep removes an uploaded one whose record was never committed).
//! Seeded; `TESSERA_CRASH_ROUNDS` sets the number of kills (default 4; 3 with S3).

mod support;

use serde_json::json;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::s3::S3;
use support::{Proc, call, free_port, json_body};
use tessera_api::http::multipart;

/// Where the process keeps its archives.
#[derive(Clone, Copy)]
enum Deep<'a> {
    /// `<data dir>/controller/deepstore`.
    Dir,
    /// `s3://deep/pinot` on this server (the bucket exists).
    S3(&'a S3),
}

impl Deep<'_> {
    /// The archives of table `t` in the deep store.
    async fn archives(&self, data: &std::path::Path, t: &str) -> usize {
        match self {
            Deep::Dir => std::fs::read_dir(
                data.join("controller")
                    .join("deepstore")
                    .join(format!("{t}_OFFLINE")),
            )
            .map_or(0, |d| d.count()),
            Deep::S3(s3) => s3.keys("deep", &format!("pinot/{t}_OFFLINE/")).await.len(),
        }
    }

    /// The controllers' scratch directories.
    fn scratch(&self, data: &std::path::Path) -> std::path::PathBuf {
        match self {
            Deep::Dir => data.join("controller").join("deepstore").join(".tmp"),
            Deep::S3(_) => data.join("controller").join(".tmp"),
        }
    }
}

/// Starts the all-roles process on `data` and `ports`; returns it with its controller and
/// broker URLs.
fn start(data: &std::path::Path, ports: [u16; 3], deep: Deep<'_>) -> (Proc, String, String) {
    let ports = ports.map(|p| p.to_string());
    let mut args = vec![
        "--data-dir",
        data.to_str().unwrap(),
        "--controller-port",
        &ports[0],
        "--broker-port",
        &ports[1],
        "--server-port",
        &ports[2],
        "--heartbeat-ms",
        "100",
        "--no-log-stderr",
    ];
    // The process reaches S3 as users configure it: the SDK variables.
    let env: Vec<(String, String)> = match deep {
        Deep::Dir => Vec::new(),
        Deep::S3(s3) => {
            args.extend(["--deep-store", "s3://deep/pinot"]);
            vec![
                ("AWS_ENDPOINT_URL".into(), s3.endpoint.clone()),
                ("AWS_ALLOW_HTTP".into(), "true".into()),
                ("AWS_REGION".into(), "us-east-1".into()),
                ("AWS_ACCESS_KEY_ID".into(), "tessera".into()),
                ("AWS_SECRET_ACCESS_KEY".into(), "tessera-secret".into()),
            ]
        }
    };
    let (proc, urls) = support::start_with_env(&args, &env);
    (proc, urls["controller"].clone(), urls["broker"].clone())
}

/// table → segment → rows.
type Model = BTreeMap<String, BTreeMap<String, u64>>;

#[derive(Clone, Debug)]
enum Op {
    CreateTable(String),
    /// Ingest (a new segment or a refresh of one) of `rows` rows.
    Ingest {
        table: String,
        postfix: u32,
        rows: u64,
    },
    /// A `tar.gz` segment upload (new or refresh) of `rows` rows.
    Upload {
        table: String,
        postfix: u32,
        rows: u64,
    },
    Reload(String),
    DeleteSegment {
        table: String,
        segment: String,
    },
}

fn apply(model: &mut Model, op: &Op) {
    match op {
        Op::CreateTable(t) => {
            model.entry(t.clone()).or_default();
        }
        Op::Ingest {
            table,
            postfix,
            rows,
        }
        | Op::Upload {
            table,
            postfix,
            rows,
        } => {
            model
                .entry(table.clone())
                .or_default()
                .insert(format!("{table}_{postfix}"), *rows);
        }
        Op::Reload(_) => {}
        Op::DeleteSegment { table, segment } => {
            if let Some(t) = model.get_mut(table) {
                t.remove(segment);
            }
        }
    }
}

async fn perform(ctl: &str, op: &Op) -> bool {
    let (status, _) = match op {
        Op::CreateTable(t) => {
            let schema = json!({"schemaName": t,
                "dimensionFieldSpecs": [{"name": "k", "dataType": "INT"}, {"name": "s", "dataType": "STRING"}]});
            let (s, b) = call("POST", &format!("{ctl}/schemas"), json_body(schema)).await;
            if s != 200 {
                return false;
            }
            let _ = b;
            let table = json!({"tableName": t, "tableType": "OFFLINE",
                "segmentsConfig": {"replication": "1"}, "tenants": {}, "tableIndexConfig": {"invertedIndexColumns": ["s"]}});
            call("POST", &format!("{ctl}/tables"), json_body(table)).await
        }
        Op::Ingest {
            table,
            postfix,
            rows,
        } => {
            let text: String = std::iter::once("k,s\n".to_string())
                .chain((0..*rows).map(|i| format!("{i},v{}\n", i % 5)))
                .collect();
            let (ct, body) = multipart::encode_file("file", "rows.csv", text.as_bytes());
            let url = format!(
                "{ctl}/ingestFromFile?tableNameWithType={table}_OFFLINE&batchConfigMapStr=%7B%22inputFormat%22%3A%22csv%22%2C%22segmentNameGenerator.configs.segment.name.postfix%22%3A%22{postfix}%22%7D"
            );
            call("POST", &url, Some((body, ct))).await
        }
        Op::Upload {
            table,
            postfix,
            rows,
        } => {
            let name = format!("{table}_{postfix}");
            let bytes = archive(table, &name, *rows);
            let (ct, body) = multipart::encode_file(&name, &format!("{name}.tar.gz"), &bytes);
            call(
                "POST",
                &format!("{ctl}/segments?tableName={table}"),
                Some((body, ct)),
            )
            .await
        }
        Op::Reload(t) => call("POST", &format!("{ctl}/segments/{t}/reload"), None).await,
        Op::DeleteSegment { table, segment } => {
            call("DELETE", &format!("{ctl}/segments/{table}/{segment}"), None).await
        }
    };
    status == 200
}

/// A segment of `rows` rows of a test table, packed for upload.
fn archive(table: &str, name: &str, rows: u64) -> Vec<u8> {
    let schema = segments::types::Schema::from_json(
        &json!({"schemaName": table,
            "dimensionFieldSpecs": [{"name": "k", "dataType": "INT"}, {"name": "s", "dataType": "STRING"}]})
        .to_string(),
    )
    .unwrap();
    let config = segments::BuildConfig::from_table_config_json(
        &json!({"tableName": table, "tableType": "OFFLINE", "segmentsConfig": {},
            "tableIndexConfig": {"invertedIndexColumns": ["s"]}}),
        &schema,
        Some(name),
    )
    .unwrap();
    let work = tempfile::tempdir().unwrap();
    let cells = (0..rows).map(|i| {
        Ok(vec![
            segments::types::Value::Int(i as i32),
            segments::types::Value::String(format!("u{}", i % 3)),
        ])
    });
    segments::build_segment_from_rows(&schema, &config, cells, work.path()).unwrap();
    tessera_api::common::archive::pack(&work.path().join(name)).unwrap()
}

/// xorshift, seeded.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

fn next_op(rng: &mut Rng, model: &Model, round: usize, n: &mut u32) -> Op {
    *n += 1;
    let tables: Vec<&String> = model.keys().collect();
    if tables.is_empty() || rng.below(6) == 0 {
        return Op::CreateTable(format!("c{round}x{n}"));
    }
    let table = tables[rng.below(tables.len() as u64) as usize].clone();
    match rng.below(6) {
        0 => Op::Reload(table),
        1 => match model[&table].keys().next() {
            Some(segment) => Op::DeleteSegment {
                table,
                segment: segment.clone(),
            },
            None => Op::Reload(table),
        },
        // A refresh of an existing segment or a new one, of a size that tells them apart.
        2 | 3 => Op::Upload {
            postfix: rng.below(4) as u32,
            rows: 1 + rng.below(500),
            table,
        },
        _ => Op::Ingest {
            postfix: rng.below(4) as u32,
            rows: 1 + rng.below(500),
            table,
        },
    }
}

/// What the restarted process serves: table → (listed segments, COUNT(*)), for `tables`.
async fn observed(
    ctl: &str,
    broker: &str,
    tables: &[String],
) -> BTreeMap<String, (Vec<String>, u64)> {
    let mut out = BTreeMap::new();
    for t in tables {
        let (s, _) = call("GET", &format!("{ctl}/tables/{t}"), None).await;
        if s != 200 {
            continue;
        }
        let (_, listed) = call("GET", &format!("{ctl}/segments/{t}"), None).await;
        let mut names: Vec<String> = listed[0]["OFFLINE"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        let (_, r) = call(
            "POST",
            &format!("{broker}/query/sql"),
            json_body(json!({"sql": format!("SELECT COUNT(*) FROM {t}")})),
        )
        .await;
        let count = r["resultTable"]["rows"][0][0].as_u64().unwrap_or(u64::MAX);
        out.insert(t.clone(), (names, count));
    }
    out
}

fn expected(model: &Model) -> BTreeMap<String, (Vec<String>, u64)> {
    model
        .iter()
        .map(|(t, segs)| {
            (
                t.clone(),
                (segs.keys().cloned().collect(), segs.values().sum()),
            )
        })
        .collect()
}

#[async_std::test]
async fn kill_9_during_writes_loses_nothing_acknowledged() {
    crash_rounds(Deep::Dir, 4).await;
}

#[async_std::test]
async fn kill_9_with_the_deep_store_in_s3_loses_nothing_acknowledged() {
    let Some(s3) = S3::start(false) else { return };
    s3.create_bucket("deep").await;
    crash_rounds(Deep::S3(&s3), 3).await;
}

async fn crash_rounds(deep: Deep<'_>, default_rounds: usize) {
    let rounds: usize = std::env::var("TESSERA_CRASH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_rounds);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let ports = [free_port(), free_port(), free_port()];
    let mut rng = Rng(0x00C4_A511);
    let mut model = Model::new();
    let mut in_flight: Option<Op> = None;
    let mut acknowledged = 0usize;
    let mut n = 0u32;
    for round in 0..=rounds {
        let (proc, ctl, broker) = start(&data, ports, deep);
        // 1. Everything acknowledged is there; the in-flight change whole or absent.
        let mut with = model.clone();
        if let Some(op) = &in_flight {
            apply(&mut with, op);
        }
        let tables: Vec<String> = with.keys().cloned().collect();
        let (a, b) = (expected(&model), expected(&with));
        let deadline = Instant::now() + Duration::from_secs(30);
        let seen = loop {
            let seen = observed(&ctl, &broker, &tables).await;
            if seen == a || seen == b {
                break seen;
            }
            assert!(
                Instant::now() < deadline,
                "round {round}: after the restart\n  seen {seen:?}\n  want {a:?}\n  or   {b:?} (in flight: {in_flight:?})"
            );
            async_std::task::sleep(Duration::from_millis(100)).await;
        };
        if seen == b {
            model = with;
        }
        // The deep store holds one archive per listed segment: none of a cut-short upload.
        for (t, (listed, _)) in &seen {
            let files = deep.archives(&data, t).await;
            assert_eq!(
                files,
                listed.len(),
                "round {round}: the deep store holds {files} archives of {t} for {listed:?}"
            );
        }
        // Scratch space of the cut-short work is gone.
        let tmp = deep.scratch(&data);
        let left: Vec<_> = std::fs::read_dir(&tmp)
            .into_iter()
            .flat_map(|d| d.flatten())
            .flat_map(|per_controller| std::fs::read_dir(per_controller.path()))
            .flat_map(|d| d.flatten().map(|e| e.path()))
            .collect();
        assert!(
            left.is_empty(),
            "round {round}: scratch left behind: {left:?}"
        );
        if round == rounds {
            drop(proc);
            break;
        }
        // 2. Writes until a kill at a random moment.
        let shared = Arc::new(Mutex::new((model.clone(), None::<Op>, 0usize)));
        let writer = {
            let shared = shared.clone();
            let ctl = ctl.clone();
            let mut rng = Rng(0x5EED ^ round as u64);
            let mut n = n;
            async_std::task::spawn(async move {
                loop {
                    let op = {
                        let mut s = shared.lock().unwrap();
                        let op = next_op(&mut rng, &s.0, round, &mut n);
                        s.1 = Some(op.clone());
                        op
                    };
                    let ok = perform(&ctl, &op).await;
                    let mut s = shared.lock().unwrap();
                    if ok {
                        apply(&mut s.0, &op);
                        s.2 += 1;
                    }
                    s.1 = None;
                }
            })
        };
        async_std::task::sleep(Duration::from_millis(100 + rng.below(700))).await;
        {
            // Hold the model while the process dies, so no acknowledgement races the kill.
            let s = shared.lock().unwrap();
            let mut proc = proc;
            let _ = proc.0.kill();
            let _ = proc.0.wait();
            model = s.0.clone();
            in_flight = s.1.clone();
            acknowledged += s.2;
        }
        writer.cancel().await;
        n += 1000;
    }
    println!(
        "crash_safety: {rounds} kills, {acknowledged} acknowledged changes, {} tables, all there",
        model.len()
    );
    assert!(
        acknowledged > 0,
        "no change was acknowledged before the kills"
    );
}
