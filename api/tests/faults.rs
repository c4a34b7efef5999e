//! Many hosts with faults, Jepsen-style: eleven hosts in network namespaces (a three-node
//! ZooKeeper ensemble, two controllers, two brokers, three servers, a Kafka-protocol broker;
//! segments replicated twice, one shared deep store) under a workload whose right answers are
//! known at every moment — segments uploaded and deleted, rows produced to a real-time table,
//! a table-config field written and read — while faults chosen from a seed come and go: a server
//! cut off from the brokers or from Kafka, a controller cut off from ZooKeeper, a ZooKeeper node
//! isolated, the ensemble split 2/1, a broker, a server or Kafka stopped (SIGSTOP) for seconds, any
//! process but Kafka (whose storage is in memory) killed (-9) and restarted.
//!
//! What must hold: no query answers a wrong result (an error is allowed during a fault, a wrong
//! number never); no acknowledged write is lost once healed; the table-config register is
//! linearizable; every fault heals to full service within a bound; no process panics.
//!
//! CI runs one minute with a fixed seed. `TESSERA_FAULTS_SECONDS` and `TESSERA_FAULTS_SEED`
//! run longer or another schedule (a failing seed replays: the schedule depends on the seed
//! alone). It skips, saying why, where network namespaces cannot be made (not root).

mod support;

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::history::{Outcome, Register, RegisterOp, SegmentOp, Segments};
use support::hosts::Cluster;
use support::netns::Network;
use tessera_api::metadata::zk::{ZkConfig, ZkStore};

const ZK: [&str; 3] = ["zk1", "zk2", "zk3"];
const CONTROLLERS: [&str; 2] = ["c1", "c2"];
const BROKERS: [&str; 2] = ["b1", "b2"];
const SERVERS: [&str; 3] = ["s1", "s2", "s3"];
const KAFKA: &str = "k1";

/// How long a healed cluster may take to answer every query again.
const RECOVERY_BOUND: Duration = Duration::from_secs(60);

/// A small deterministic generator (xorshift64*), so a seed replays its schedule.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, of: &[&'a str]) -> &'a str {
        of[self.below(of.len() as u64) as usize]
    }
}

/// One fault.
#[derive(Clone, Debug)]
enum Fault {
    /// A server cut off from both brokers.
    ServerFromBrokers(&'static str),
    /// The leading controller (as ZooKeeper names it when the fault starts) cut off from every
    /// ZooKeeper node.
    LeaderFromZk,
    /// A ZooKeeper node cut off from every host.
    IsolateZk(&'static str),
    /// One ZooKeeper node cut off from the other two (clients still reach all three).
    SplitEnsemble(&'static str),
    /// A server cut off from Kafka.
    ServerFromKafka(&'static str),
    /// A broker, server or the Kafka broker stopped (SIGSTOP).
    Stall(&'static str),
    /// Any process killed (-9), restarted at the heal.
    Kill(&'static str),
}

impl Fault {
    fn kind(&self) -> &'static str {
        match self {
            Fault::ServerFromBrokers(_) => "server cut from brokers",
            Fault::LeaderFromZk => "leader controller cut from ZooKeeper",
            Fault::IsolateZk(_) => "ZooKeeper node isolated",
            Fault::SplitEnsemble(_) => "ensemble split 2/1",
            Fault::ServerFromKafka(_) => "server cut from Kafka",
            Fault::Stall(_) => "broker/server/Kafka stopped",
            Fault::Kill(_) => "process killed, restarted",
        }
    }

    fn pick(rng: &mut Rng) -> Fault {
        let all: Vec<&str> = [&ZK[..], &CONTROLLERS, &BROKERS, &SERVERS].concat();
        // Kafka too: stopped, its in-memory log survives (killed, it would not).
        let stallable: Vec<&str> = [&BROKERS[..], &SERVERS, &[KAFKA]].concat();
        match rng.below(7) {
            0 => Fault::ServerFromBrokers(rng.pick(&SERVERS)),
            1 => Fault::LeaderFromZk,
            2 => Fault::IsolateZk(rng.pick(&ZK)),
            3 => Fault::SplitEnsemble(rng.pick(&ZK)),
            4 => Fault::Stall(rng.pick(&stallable)),
            5 => Fault::ServerFromKafka(rng.pick(&SERVERS)),
            _ => Fault::Kill(rng.pick(&all)),
        }
    }

    fn apply(&self, net: &mut Network, cluster: &mut Cluster, leader: &str) {
        match self {
            Fault::ServerFromBrokers(s) => net.cut(&[s], &BROKERS),
            Fault::LeaderFromZk => net.cut(&[leader], &ZK),
            Fault::IsolateZk(z) => net.isolate(z),
            Fault::SplitEnsemble(z) => net.cut(&[z], &ZK),
            Fault::ServerFromKafka(s) => net.cut(&[s], &[KAFKA]),
            Fault::Stall(h) => cluster.pause(h, true),
            Fault::Kill(h) => cluster.kill(h),
        }
    }
}

#[derive(Clone, Debug)]
struct QueryRecord {
    broker: usize,
    start: Instant,
    end: Instant,
    v2: bool,
    /// Rows per segment (`GROUP BY $segmentName`), or why there was no clean answer.
    seen: Result<BTreeMap<String, u64>, String>,
}

struct FaultRecord {
    fault: Fault,
    started: Instant,
    healed: Instant,
    recovered: Result<Instant, String>,
}

/// A count of the real-time table's rows.
#[derive(Clone, Debug)]
struct EventCount {
    end: Instant,
    seen: Result<u64, String>,
}

#[derive(Default)]
struct History {
    segments: Segments,
    register: Register,
    queries: Vec<QueryRecord>,
    /// Events produced: asked, and acknowledged by Kafka.
    produced: (u64, u64),
    /// When each event was asked to be produced (the n-th at index n - 1).
    produced_at: Vec<Instant>,
    counts: Vec<EventCount>,
}

/// `method url` with a JSON body, given up after `within`: the status (0 when nothing
/// answered) and the body.
fn call(method: &str, url: &str, body: Option<Value>, within: Duration) -> (u16, Value) {
    let body = body.map(|b| (b.to_string().into_bytes(), "application/json".to_string()));
    async_std::task::block_on(async_std::future::timeout(
        within,
        support::call(method, url, body),
    ))
    .unwrap_or((0, Value::String("no answer in time".into())))
}

fn query(brokers: &[String], broker: usize, v2: bool) -> QueryRecord {
    let sql = "SELECT $segmentName, COUNT(*) FROM lineitem GROUP BY $segmentName LIMIT 100000";
    let request = json!({"sql": sql, "queryOptions": format!("useMultistageEngine={v2}")});
    let start = Instant::now();
    let (status, body) = call(
        "POST",
        &format!("{}/query/sql", brokers[broker]),
        Some(request),
        Duration::from_secs(5),
    );
    let end = Instant::now();
    let rows = body["resultTable"]["rows"].as_array();
    let clean = body["exceptions"].as_array().is_some_and(|e| e.is_empty());
    let seen = match rows {
        Some(rows) if status == 200 && clean => Ok(rows
            .iter()
            .map(|r| {
                (
                    r[0].as_str().unwrap_or("").to_string(),
                    r[1].as_u64().unwrap_or(0),
                )
            })
            .collect()),
        _ => Err(format!("{status} {body}")),
    };
    QueryRecord {
        broker,
        v2,
        start,
        end,
        seen,
    }
}

/// Uploads and deletes segments through either controller until `stop`.
fn writer(
    controllers: Vec<String>,
    root: PathBuf,
    history: Arc<Mutex<History>>,
    stop: Arc<AtomicBool>,
    seed: u64,
) {
    let mut rng = Rng(seed ^ 0x5E6);
    let mut k = 0;
    while !stop.load(Ordering::SeqCst) {
        k += 1;
        let ctl = &controllers[rng.below(2) as usize];
        let present: Vec<String> = {
            let h = history.lock().unwrap();
            h.segments.surely_present().into_iter().collect()
        };
        let choice = rng.below(4);
        let (segment, rows, status) = if present.len() >= 4 && choice == 0 {
            let segment = present[rng.below(present.len() as u64) as usize].clone();
            let asked = Instant::now();
            let url = format!("{ctl}/segments/lineitem/{segment}");
            let (status, _) = call("DELETE", &url, None, Duration::from_secs(10));
            (segment, 0, (asked, status))
        } else {
            // A new segment, or (one time in four) a refresh: a new version of a present one,
            // with a row count none of its versions had.
            let (segment, rows) = if present.len() >= 4 && choice == 1 {
                let segment = present[rng.below(present.len() as u64) as usize].clone();
                let had: BTreeSet<u64> = {
                    let h = history.lock().unwrap();
                    h.segments.ops_of(&segment).map(|o| o.rows).collect()
                };
                let rows = (50..).find(|r| !had.contains(r)).unwrap_or(50);
                (segment, rows)
            } else {
                (format!("seg_{k}"), 10 + (k * 7) % 40)
            };
            let bytes = support::lineitem_segment(&root.join(format!("v{k}")), &segment, rows);
            let asked = Instant::now();
            let (status, _) = async_std::task::block_on(async_std::future::timeout(
                Duration::from_secs(10),
                support::upload_segment(ctl, "lineitem", &segment, &bytes),
            ))
            .unwrap_or((0, Value::Null));
            (segment, rows, (asked, status))
        };
        let upload = rows > 0;
        let (asked, status) = status;
        if asked.elapsed() > Duration::from_secs(3) || status != 200 {
            let what = if upload { "upload" } else { "delete" };
            eprintln!(
                "faults: {what} of {segment} through {ctl}: {status} after {:?}",
                asked.elapsed()
            );
        }
        let outcome = if status == 200 {
            Outcome::Ok(Instant::now())
        } else {
            Outcome::Unknown
        };
        history.lock().unwrap().segments.push(SegmentOp {
            segment,
            upload,
            rows,
            asked,
            outcome,
        });
        std::thread::sleep(Duration::from_millis(150));
    }
}

/// Writes and reads the table config's `register` field through either controller until
/// `stop`, one operation at a time.
fn register_client(
    controllers: Vec<String>,
    table: Value,
    history: Arc<Mutex<History>>,
    stop: Arc<AtomicBool>,
    seed: u64,
) {
    let mut rng = Rng(seed ^ 0x4E6);
    let mut n = 0;
    while !stop.load(Ordering::SeqCst) {
        n += 1;
        let ctl = &controllers[rng.below(2) as usize];
        let url = format!("{ctl}/tables/lineitem");
        let asked = Instant::now();
        let op = if n % 2 == 1 {
            let mut edited = table.clone();
            edited["metadata"]["customConfigs"]["register"] = json!(n.to_string());
            let (status, _) = call("PUT", &url, Some(edited), Duration::from_secs(10));
            let outcome = if status == 200 {
                Outcome::Ok(Instant::now())
            } else {
                Outcome::Unknown
            };
            Some(RegisterOp {
                write: true,
                value: n,
                asked,
                outcome,
            })
        } else {
            match read_register(ctl, Duration::from_secs(10)) {
                Ok(value) => Some(RegisterOp {
                    write: false,
                    value,
                    asked,
                    outcome: Outcome::Ok(Instant::now()),
                }),
                Err(_) => None,
            }
        };
        if let Some(op) = op {
            history.lock().unwrap().register.ops.push(op);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Produces an event every 20 ms to the real-time table's topic until `stop`; counts what was
/// asked and what Kafka acknowledged. Stops at the first failure (Kafka is not faulted: a
/// failure is the test's own).
fn produce(
    producer: tessera_api::stream::kafka::Producer,
    history: Arc<Mutex<History>>,
    stop: Arc<AtomicBool>,
) {
    let mut n = 0u64;
    while !stop.load(Ordering::SeqCst) {
        n += 1;
        let event = json!({"id": n, "kind": "view", "country": "US", "amount": 1.0,
            "ts": tessera_api::common::clock::now_ms()});
        {
            let mut h = history.lock().unwrap();
            h.produced.0 = n;
            h.produced_at.push(Instant::now());
        }
        producer
            .send(event.to_string().into_bytes())
            .expect("produce an event");
        history.lock().unwrap().produced.1 = n;
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The host of the controller ZooKeeper names leader (the first when it cannot tell).
fn leader_host(zk: &ZkStore, net: &Network) -> &'static str {
    let leader = zk.leader().ok().flatten().unwrap_or_default();
    CONTROLLERS
        .into_iter()
        .find(|c| leader.contains(&format!("_{}_", net.address(c))))
        .unwrap_or(CONTROLLERS[0])
}

/// `SELECT COUNT(*)` of the real-time table through `broker`.
fn count_events(broker: &str) -> Result<u64, String> {
    let request = json!({"sql": "SELECT COUNT(*) FROM events"});
    let url = format!("{broker}/query/sql");
    let (status, body) = call("POST", &url, Some(request), Duration::from_secs(5));
    let clean = body["exceptions"].as_array().is_some_and(|e| e.is_empty());
    match body["resultTable"]["rows"][0][0].as_u64() {
        Some(n) if status == 200 && clean => Ok(n),
        _ => Err(format!("{status} {body}")),
    }
}

/// Whether every broker answers and every controller reads the table; if not, what did not.
fn full_service(brokers: &[String], controllers: &[String]) -> Result<(), String> {
    for b in 0..brokers.len() {
        if let Err(e) = query(brokers, b, false).seen {
            return Err(format!("broker {}: {e}", b + 1));
        }
    }
    for c in controllers {
        let (status, body) = call(
            "GET",
            &format!("{c}/tables/lineitem"),
            None,
            Duration::from_secs(5),
        );
        if status != 200 {
            return Err(format!("controller {c}: {status} {body}"));
        }
    }
    Ok(())
}

/// When full service came back within [`RECOVERY_BOUND`], or what still failed then.
fn wait_for_full_service(brokers: &[String], controllers: &[String]) -> Result<Instant, String> {
    let deadline = Instant::now() + RECOVERY_BOUND;
    loop {
        match full_service(brokers, controllers) {
            Ok(()) => return Ok(Instant::now()),
            Err(why) if Instant::now() > deadline => return Err(why),
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

#[test]
fn eleven_hosts_answer_right_through_partitions_stalls_and_kills() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let seed = env("TESSERA_FAULTS_SEED", 48).max(1);
    let run_for = Duration::from_secs(env("TESSERA_FAULTS_SECONDS", 60));
    let Some(cp) = support::zookeeper::class_path() else {
        return;
    };
    let Some(tansu) = support::kafka::tansu() else {
        return;
    };
    let hosts: Vec<&str> = [&ZK[..], &CONTROLLERS, &BROKERS, &SERVERS, &[KAFKA]].concat();
    let mut net = match Network::create(&hosts) {
        Ok(net) => net,
        Err(why) => {
            eprintln!("skipped: network namespaces cannot be made here ({why})");
            return;
        }
    };
    eprintln!("faults: seed {seed}, {} s", run_for.as_secs());
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("deep");
    std::fs::create_dir_all(&deep).unwrap();
    let mut cluster = Cluster::new();
    cluster.start_ensemble(&net, &ZK, &cp, dir.path());
    let kafka = cluster.start_kafka(&net, KAFKA, &tansu, dir.path());
    let controllers: Vec<String> = CONTROLLERS
        .iter()
        .map(|h| cluster.start_role(&net, h, "controller", &deep, dir.path()))
        .collect();
    let brokers: Vec<String> = BROKERS
        .iter()
        .map(|h| cluster.start_role(&net, h, "broker", &deep, dir.path()))
        .collect();
    for s in SERVERS {
        cluster.start_role(&net, s, "server", &deep, dir.path());
    }

    // The table, replicated twice; its register starts at 0.
    let schema = tessera_api::quickstart::lineitem::schema();
    let mut table = tessera_api::quickstart::lineitem::table_config();
    table["segmentsConfig"]["replication"] = json!("2");
    table["metadata"]["customConfigs"]["register"] = json!("0");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ctl = &controllers[0];
        let live = call(
            "GET",
            &format!("{ctl}/instances"),
            None,
            Duration::from_secs(5),
        )
        .1;
        let count = live["instances"].as_array().map_or(0, Vec::len);
        if count >= 7 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "instances did not register: {live}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let ctl = &controllers[0];
    let long = Duration::from_secs(30);
    let (status, body) = call("POST", &format!("{ctl}/schemas"), Some(schema), long);
    assert_eq!(status, 200, "{body}");
    let (status, body) = call("POST", &format!("{ctl}/tables"), Some(table.clone()), long);
    assert_eq!(status, 200, "{body}");
    if let Err(why) = wait_for_full_service(&brokers, &controllers) {
        panic!("no full service after creating the table: {why}");
    }
    // The real-time table, replicated twice, committing a segment every 300 rows.
    let (status, body) = call(
        "POST",
        &format!("{ctl}/schemas"),
        Some(tessera_api::quickstart::realtime::schema()),
        long,
    );
    assert_eq!(status, 200, "{body}");
    let mut events = tessera_api::quickstart::realtime::table_config(&kafka);
    events["segmentsConfig"]["replication"] = json!("2");
    let stream = &mut events["ingestionConfig"]["streamIngestionConfig"]["streamConfigMaps"][0];
    stream["realtime.segment.flush.threshold.rows"] = json!("300");
    let producer = tessera_api::stream::kafka::Producer::create(&kafka, "events", 1, 0)
        .expect("a producer to the events topic");
    let (status, body) = call("POST", &format!("{ctl}/tables"), Some(events), long);
    assert_eq!(status, 200, "{body}");

    let history = Arc::new(Mutex::new(History::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    {
        let (c, root, h, s) = (
            controllers.clone(),
            dir.path().to_path_buf(),
            history.clone(),
            stop.clone(),
        );
        workers.push(std::thread::spawn(move || writer(c, root, h, s, seed)));
        let (h, s) = (history.clone(), stop.clone());
        workers.push(std::thread::spawn(move || produce(producer, h, s)));
        let (c, t, h, s) = (
            controllers.clone(),
            table.clone(),
            history.clone(),
            stop.clone(),
        );
        workers.push(std::thread::spawn(move || {
            register_client(c, t, h, s, seed)
        }));
        for i in 0..2 {
            let (b, h, s) = (brokers.clone(), history.clone(), stop.clone());
            workers.push(std::thread::spawn(move || {
                let mut n = i;
                while !s.load(Ordering::SeqCst) {
                    n += 1;
                    if n % 4 == 0 {
                        let seen = count_events(&b[n % 2]);
                        let end = Instant::now();
                        h.lock().unwrap().counts.push(EventCount { end, seen });
                    } else {
                        let record = query(&b, n % 2, n % 3 == 0);
                        h.lock().unwrap().queries.push(record);
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            }));
        }
    }

    // The nemesis: calm, a fault, its heal, and the wait for full service.
    let zk = ZkStore::connect(ZkConfig::new(&cluster.zk, "faults")).expect("a ZooKeeper client");
    let mut rng = Rng(seed);
    let mut faults: Vec<FaultRecord> = Vec::new();
    let started = Instant::now();
    while started.elapsed() < run_for {
        std::thread::sleep(Duration::from_millis(2000 + rng.below(2000)));
        let fault = Fault::pick(&mut rng);
        let leader = leader_host(&zk, &net);
        let at = started.elapsed().as_secs_f64();
        eprintln!("faults: {at:>5.1} s {fault:?} (leader {leader})");
        fault.apply(&mut net, &mut cluster, leader);
        let fault_started = Instant::now();
        std::thread::sleep(Duration::from_millis(3000 + rng.below(3000)));
        net.heal();
        cluster.revive(&net);
        let healed = Instant::now();
        let recovered = wait_for_full_service(&brokers, &controllers);
        let gave_up = recovered.is_err();
        faults.push(FaultRecord {
            fault,
            started: fault_started,
            healed,
            recovered,
        });
        if gave_up {
            break;
        }
    }
    stop.store(true, Ordering::SeqCst);
    for w in workers {
        w.join().unwrap();
    }

    eprintln!("faults: workload stopped after {:?}", started.elapsed());
    // Healed: every acknowledged upload is there, every acknowledged delete gone.
    let h = history.lock().unwrap();
    let present = h.segments.surely_present();
    let gone = h.segments.surely_gone();
    let deadline = Instant::now() + RECOVERY_BOUND;
    let (settled, last) = loop {
        let answers: Vec<QueryRecord> = (0..brokers.len())
            .map(|b| query(&brokers, b, false))
            .collect();
        let settled = answers.iter().all(|a| match &a.seen {
            Ok(counts) => {
                present.iter().all(|s| {
                    counts
                        .get(s)
                        .is_some_and(|n| h.segments.final_rows(s).contains(n))
                }) && gone.iter().all(|s| !counts.contains_key(s))
            }
            _ => false,
        });
        if settled || Instant::now() > deadline {
            break (settled, answers);
        }
        std::thread::sleep(Duration::from_millis(200));
    };

    // Every event Kafka took is counted once, by both brokers.
    let (asked, acked) = h.produced;
    let deadline = Instant::now() + RECOVERY_BOUND;
    let events_counted = loop {
        let counts: Vec<Result<u64, String>> = brokers.iter().map(|b| count_events(b)).collect();
        if counts.iter().all(|c| c == &Ok(acked)) || Instant::now() > deadline {
            break counts;
        }
        std::thread::sleep(Duration::from_millis(200));
    };

    // The figures: for each kind of fault, the share of queries answered while it lasted and
    // the time from its heal to full service.
    // (answered, asked, heal to full service per fault, latencies of the answered queries)
    type Figures = (usize, usize, Vec<u128>, Vec<u128>);
    let mut by_kind: BTreeMap<&str, Figures> = BTreeMap::new();
    for f in &faults {
        let e = by_kind.entry(f.fault.kind()).or_default();
        for q in h
            .queries
            .iter()
            .filter(|q| q.start >= f.started && q.start < f.healed)
        {
            e.1 += 1;
            e.0 += q.seen.is_ok() as usize;
            if q.seen.is_ok() {
                e.3.push((q.end - q.start).as_millis());
            }
        }
        e.2.push(
            f.recovered
                .as_ref()
                .map_or(u128::MAX, |r| (*r - f.healed).as_millis()),
        );
    }
    let latencies = |mut l: Vec<u128>| {
        l.sort_unstable();
        let at = |q: usize| l.get(l.len() * q / 100).copied().unwrap_or(0);
        format!(
            "p50 {} ms, p99 {} ms, max {} ms",
            at(50),
            at(99),
            l.last().unwrap_or(&0)
        )
    };
    eprintln!(
        "| fault | times | queries answered during it | their latency | heal to full service, ms (max) |"
    );
    // Between faults (healed and back to full service): the latency a fault's is compared with.
    let calm: Vec<&QueryRecord> = (h.queries.iter())
        .filter(|q| {
            !faults.iter().any(|f| {
                let back = f.recovered.as_ref().map_or(f.healed, |r| *r);
                q.start >= f.started && q.start < back
            })
        })
        .collect();
    let calm_ok: Vec<u128> = (calm.iter())
        .filter(|q| q.seen.is_ok())
        .map(|q| (q.end - q.start).as_millis())
        .collect();
    eprintln!(
        "| no fault | - | {}/{} | {} | - |",
        calm_ok.len(),
        calm.len(),
        latencies(calm_ok.clone())
    );
    for (kind, (ok, all, heal, answered_in)) in &by_kind {
        eprintln!(
            "| {kind} | {} | {ok}/{all} | {} | {} |",
            heal.len(),
            latencies(answered_in.clone()),
            heal.iter().max().unwrap_or(&0)
        );
    }
    for f in &faults {
        let errors: BTreeSet<String> = h
            .queries
            .iter()
            .filter(|q| q.start >= f.started && q.start < f.healed)
            .filter_map(|q| q.seen.as_ref().err())
            .map(|e| e.chars().take(200).collect())
            .collect();
        for e in errors.iter().take(3) {
            eprintln!("faults: during {:?}: {e}", f.fault);
        }
    }
    let acked_in = |asked: Instant, outcome: Outcome| match outcome {
        Outcome::Ok(at) => Some((at - asked).as_millis()),
        Outcome::Unknown => None,
    };
    let segment_ops: Vec<u128> = (h.segments.ops.iter())
        .filter_map(|o| acked_in(o.asked, o.outcome))
        .collect();
    let register_ops: Vec<u128> = (h.register.ops.iter())
        .filter_map(|o| acked_in(o.asked, o.outcome))
        .collect();
    let mut written = BTreeSet::new();
    let refreshes = (h.segments.ops.iter())
        .filter(|o| o.upload && !written.insert(o.segment.clone()))
        .count();
    let deletes = h.segments.ops.iter().filter(|o| !o.upload).count();
    eprintln!("faults: {refreshes} refreshes and {deletes} deletes among the segment operations");
    eprintln!(
        "faults: segment uploads/deletes acknowledged: {} of {} ({}); register operations: {} of {} ({})",
        segment_ops.len(),
        h.segments.ops.len(),
        latencies(segment_ops.clone()),
        register_ops.len(),
        h.register.ops.len(),
        latencies(register_ops.clone()),
    );
    let answered = h.queries.iter().filter(|q| q.seen.is_ok()).count();
    eprintln!(
        "faults: {} faults, {} queries ({answered} answered), {} segment ops, {} register ops",
        faults.len(),
        h.queries.len(),
        h.segments.ops.len(),
        h.register.ops.len()
    );

    // No wrong answer: each clean answer fits what may be present while it ran.
    let mut wrong = Vec::new();
    let mut by_end: Vec<&QueryRecord> = h.queries.iter().collect();
    by_end.sort_by_key(|q| q.end);
    let mut by_start: Vec<&QueryRecord> = h.queries.iter().collect();
    by_start.sort_by_key(|q| q.start);
    // Segments each broker counted whole, in answers that ended before a query started: a
    // broker's answers never lose a segment it counted before (unless it is being deleted).
    // Brokers learn of changes each on its own, so one may count a new segment before the
    // other does.
    let mut established: Vec<BTreeSet<String>> = vec![BTreeSet::new(); brokers.len()];
    let mut ended = 0;
    for q in by_start {
        while ended < by_end.len() && by_end[ended].end < q.start {
            if let Ok(counts) = &by_end[ended].seen {
                established[by_end[ended].broker].extend(counts.keys().cloned());
            }
            ended += 1;
        }
        let established = &established[q.broker];
        let verdict = match &q.seen {
            Ok(counts) => h.segments.check_answer(counts, q.start, q.end, established),
            Err(_) => Ok(()),
        };
        if let Err(why) = verdict {
            let at = q.start.saturating_duration_since(started);
            let engine = if q.v2 { "multi-stage" } else { "single-stage" };
            wrong.push(format!(
                "{at:?} after start, broker {}, {engine}: {why}",
                q.broker + 1
            ));
        }
    }
    // No count of the real-time table is above the events produced by its end.
    for c in &h.counts {
        let before = h.produced_at.partition_point(|at| *at <= c.end) as u64;
        if let Ok(n) = c.seen
            && n > before
        {
            let at = c.end.saturating_duration_since(started);
            wrong.push(format!("{at:?}: {n} events counted, {before} produced"));
        }
    }
    eprintln!(
        "faults: {asked} events produced ({acked} acknowledged), {} counts ({} answered)",
        h.counts.len(),
        h.counts.iter().filter(|c| c.seen.is_ok()).count()
    );
    eprintln!("faults: checked after {:?}", started.elapsed());
    // Every check is reported before the test fails, and the cluster's directory (each
    // process's stdout, stderr and logs) is kept for reading.
    let mut failed: Vec<String> = Vec::new();
    if !wrong.is_empty() {
        failed.push(format!("wrong answers: {wrong:#?}"));
    }
    if !settled {
        failed.push(format!(
            "after healing, acknowledged writes are missing or deleted segments remain: {}",
            unsettled(&last, &present, &gone, &h.segments)
        ));
    }
    if asked != acked {
        failed.push(format!(
            "the producer stopped on a failure: {acked} of {asked} events acknowledged"
        ));
    }
    if !events_counted.iter().all(|c| c == &Ok(acked)) {
        failed.push(format!(
            "after healing, the brokers count {events_counted:?} of {acked} events"
        ));
    }
    if let Err(why) = h.register.check() {
        failed.push(format!(
            "the table-config register is not linearizable: {why}"
        ));
    }
    for f in &faults {
        if let Err(why) = &f.recovered {
            failed.push(format!(
                "no full service within {RECOVERY_BOUND:?} after healing {:?}: {why}",
                f.fault
            ));
        }
    }
    let panics = cluster.panics();
    if !panics.is_empty() {
        failed.push(format!("panics: {panics:#?}"));
    }
    if faults.len() < 3 {
        failed.push(format!("too few faults in the run: {}", faults.len()));
    }
    if answered == 0 {
        failed.push("no query was answered".to_string());
    }
    if !failed.is_empty() {
        let kept = dir.keep();
        panic!(
            "{} checks failed (the cluster's files are kept in {}):\n{}",
            failed.len(),
            kept.display(),
            failed.join("\n")
        );
    }
}

/// The table config's `register` as `controller` reads it within `within`, or why it could
/// not.
fn read_register(controller: &str, within: Duration) -> Result<u64, String> {
    let url = format!("{controller}/tables/lineitem");
    let (status, body) = call("GET", &url, None, within);
    match body["OFFLINE"]["metadata"]["customConfigs"]["register"].as_str() {
        Some(v) if status == 200 => v.parse().map_err(|e| format!("register '{v}': {e}")),
        _ => Err(format!("{status} {body}")),
    }
}

/// Each controller reads from the ZooKeeper node its session is on. Cut a follower off from
/// the other two nodes and it keeps answering its clients until it notices (a second here,
/// ten with ZooKeeper's defaults): an edit acknowledged through a controller on the quorum's
/// side must then not be read back undone through the controller on the cut-off node. An
/// error is allowed; the older value never (what the fault schedule's register check found,
/// once in a 30-minute run, while the ensemble was split).
#[test]
fn an_acknowledged_edit_is_never_read_back_undone_through_a_cut_off_zookeeper_node() {
    let Some(cp) = support::zookeeper::class_path() else {
        return;
    };
    let hosts: Vec<&str> = [&ZK[..], &CONTROLLERS, &["b1", "s1"]].concat();
    let mut net = match Network::create(&hosts) {
        Ok(net) => net,
        Err(why) => {
            eprintln!("skipped: network namespaces cannot be made here ({why})");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("deep");
    std::fs::create_dir_all(&deep).unwrap();
    let mut cluster = Cluster::new();
    cluster.start_ensemble(&net, &ZK, &cp, dir.path());
    let mode = |z: &str| support::hosts::zk_mode(&net.address(z));
    let follower = *ZK
        .iter()
        .find(|z| mode(z).as_deref() == Some("follower"))
        .expect("a follower in the ensemble");
    let quorum: Vec<&str> = ZK.iter().copied().filter(|z| *z != follower).collect();
    let on = |nodes: &[&str]| support::hosts::zk_address(&net, nodes);
    let ensemble = std::mem::replace(&mut cluster.zk, on(&quorum));
    let writer = cluster.start_role(&net, "c1", "controller", &deep, dir.path());
    cluster.zk = on(&[follower]);
    let reader = cluster.start_role(&net, "c2", "controller", &deep, dir.path());
    cluster.zk = ensemble;
    cluster.start_role(&net, "b1", "broker", &deep, dir.path());
    cluster.start_role(&net, "s1", "server", &deep, dir.path());

    let long = Duration::from_secs(30);
    let (status, body) = call(
        "POST",
        &format!("{writer}/schemas"),
        Some(tessera_api::quickstart::lineitem::schema()),
        long,
    );
    assert_eq!(status, 200, "{body}");
    let mut table = tessera_api::quickstart::lineitem::table_config();
    table["metadata"]["customConfigs"]["register"] = json!("0");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, body) = call(
            "POST",
            &format!("{writer}/tables"),
            Some(table.clone()),
            long,
        );
        if status == 200 {
            break;
        }
        // The broker and server may not have announced themselves yet.
        assert!(Instant::now() < deadline, "{status} {body}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let read = || read_register(&reader, Duration::from_secs(15));
    let mut undone = Vec::new();
    for round in 1..=3u64 {
        let deadline = Instant::now() + Duration::from_secs(60);
        while read() != Ok(round - 1) {
            assert!(
                Instant::now() < deadline,
                "round {round}: the reader never caught up: {:?}",
                read()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        net.cut(&[follower], &quorum);
        let mut edited = table.clone();
        edited["metadata"]["customConfigs"]["register"] = json!(round.to_string());
        let url = format!("{writer}/tables/lineitem");
        let (status, body) = call("PUT", &url, Some(edited), long);
        assert_eq!(status, 200, "round {round}: {body}");
        let seen = read();
        eprintln!("round {round}: the cut-off reader read {seen:?}");
        if let Ok(value) = seen
            && value != round
        {
            undone.push(format!(
                "round {round}: read {value} after {round} was acknowledged"
            ));
        }
        net.heal();
    }
    assert!(
        undone.is_empty(),
        "acknowledged edits read back undone: {undone:#?}"
    );
}

/// What the last answers after healing got wrong: per broker, the acknowledged segments it
/// left out or counted with rows no version had, and the deleted ones it still counts.
fn unsettled(
    answers: &[QueryRecord],
    present: &BTreeSet<String>,
    gone: &BTreeSet<String>,
    segments: &Segments,
) -> String {
    let mut out = Vec::new();
    for a in answers {
        let b = a.broker + 1;
        match &a.seen {
            Ok(counts) => {
                let missing: Vec<&String> = present
                    .iter()
                    .filter(|s| !counts.contains_key(*s))
                    .collect();
                let odd: Vec<(&String, &u64)> = present
                    .iter()
                    .filter_map(|s| counts.get(s).map(|n| (s, n)))
                    .filter(|(s, n)| !segments.final_rows(s).contains(n))
                    .collect();
                let kept: Vec<&String> = gone.iter().filter(|s| counts.contains_key(*s)).collect();
                out.push(format!(
                    "broker {b}: missing {missing:?}, wrong row counts {odd:?}, deleted but counted {kept:?}"
                ));
            }
            Err(e) => out.push(format!("broker {b}: {e}")),
        }
    }
    out.join("; ")
}
/// The checkers judge histories as they should.
mod checkers {
    use super::support::history::*;
    use std::collections::{BTreeMap, BTreeSet};
    use std::time::Duration;
    use std::time::Instant;

    fn at(base: Instant, ms: u64) -> Instant {
        base + Duration::from_millis(ms)
    }

    #[test]
    fn register_histories_are_judged() {
        let t = Instant::now();
        let op = |write, value, asked, done: Option<u64>| RegisterOp {
            write,
            value,
            asked: at(t, asked),
            outcome: done.map_or(Outcome::Unknown, |d| Outcome::Ok(at(t, d))),
        };
        let mut r = Register {
            initial: 0,
            ops: vec![op(true, 1, 0, Some(1)), op(false, 1, 2, Some(3))],
        };
        assert!(r.check().is_ok());
        // A stale read after an acknowledged write.
        r.ops.push(op(false, 0, 4, Some(5)));
        assert!(r.check().is_err());
        // A write whose outcome is unknown may land late, once, and be overwritten.
        let r = Register {
            initial: 0,
            ops: vec![
                op(true, 1, 0, None),
                op(false, 0, 2, Some(3)),
                op(false, 1, 4, Some(5)),
                op(true, 2, 6, Some(7)),
                op(false, 2, 8, Some(9)),
            ],
        };
        assert!(r.check().is_ok());
        let mut late = r.ops.clone();
        late.push(op(false, 1, 10, Some(11)));
        let r = Register {
            initial: 0,
            ops: late,
        };
        assert!(r.check().is_err(), "an unknown write lands only once");
    }

    #[test]
    fn answers_are_judged_against_what_may_be_present() {
        let t = Instant::now();
        let mut s = Segments::default();
        s.push(SegmentOp {
            segment: "a".into(),
            upload: true,
            rows: 10,
            asked: at(t, 0),
            outcome: Outcome::Ok(at(t, 5)),
        });
        s.push(SegmentOp {
            segment: "b".into(),
            upload: true,
            rows: 20,
            asked: at(t, 10),
            outcome: Outcome::Unknown,
        });
        let counts = |c: &[(&str, u64)]| -> BTreeMap<String, u64> {
            c.iter().map(|(s, n)| (s.to_string(), *n)).collect()
        };
        let none = BTreeSet::new();
        assert!(
            s.check_answer(&counts(&[("a", 10)]), at(t, 6), at(t, 7), &none)
                .is_ok()
        );
        assert!(
            s.check_answer(&counts(&[("a", 20)]), at(t, 6), at(t, 7), &none)
                .is_err()
        );
        // b's upload was asked after this query ended.
        assert!(
            s.check_answer(&counts(&[("b", 20)]), at(t, 6), at(t, 7), &none)
                .is_err()
        );
        assert!(
            s.check_answer(&counts(&[("b", 20)]), at(t, 6), at(t, 12), &none)
                .is_ok()
        );
        let seen: BTreeSet<String> = ["a".to_string()].into();
        assert!(
            s.check_answer(&counts(&[]), at(t, 8), at(t, 9), &seen)
                .is_err()
        );
        s.push(SegmentOp {
            segment: "a".into(),
            upload: false,
            rows: 0,
            asked: at(t, 8),
            outcome: Outcome::Ok(at(t, 9)),
        });
        assert!(
            s.check_answer(&counts(&[]), at(t, 8), at(t, 9), &seen)
                .is_ok()
        );
        assert!(
            s.check_answer(&counts(&[("a", 10)]), at(t, 10), at(t, 11), &none)
                .is_err()
        );
        assert_eq!(s.surely_gone(), ["a".to_string()].into());
        // A refresh: either version counts, never a mix; once healed, the acknowledged one.
        s.push(SegmentOp {
            segment: "b".into(),
            upload: true,
            rows: 25,
            asked: at(t, 20),
            outcome: Outcome::Ok(at(t, 21)),
        });
        let during = |n| s.check_answer(&counts(&[("b", n)]), at(t, 20), at(t, 22), &none);
        assert!(during(20).is_ok() && during(25).is_ok() && during(45).is_err());
        assert_eq!(s.final_rows("b"), [25].into());
    }
}
