//! The real-time part of `tessera quickstart --realtime`: a Kafka-protocol broker (tansu, the
//! binary `scripts/get-tansu.sh` installs) started as a child of this process, a topic fed with
//! generated `events` (one every 100 ms, forever), and a REALTIME table consuming it — so a
//! newcomer sees rows arrive and segments commit.

use super::QuickstartError;
use crate::stream::kafka::Producer;
use serde_json::{Value as Json, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The topic and table name.
pub const TABLE: &str = "events";

/// Where the tansu binary is: `TESSERA_TANSU`, `target/tansu/tansu` under the current
/// directory, or `tansu` on the `PATH`.
pub fn find_tansu() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TESSERA_TANSU") {
        return Some(PathBuf::from(p));
    }
    let local = Path::new("target/tansu/tansu");
    if local.is_file() {
        return Some(local.to_path_buf());
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("tansu"))
            .find(|p| p.is_file())
    })
}

/// A running broker; killed when dropped (and when this process dies).
pub struct Broker {
    child: Child,
    pub address: String,
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// tansu's arguments for a broker at `address` (`host:port`) with in-memory storage.
pub fn broker_args(address: &str) -> Vec<String> {
    let url = format!("tcp://{address}");
    let args = [
        "broker",
        "--listener-url",
        &url,
        "--advertised-listener-url",
        &url,
    ];
    let storage = ["--storage-engine", "memory://tansu/"];
    args.iter().chain(&storage).map(|a| a.to_string()).collect()
}

/// Starts tansu on 127.0.0.1:`port` with in-memory storage.
pub fn start_broker(tansu: &Path, port: u16) -> Result<Broker, QuickstartError> {
    let mut cmd = Command::new(tansu);
    cmd.args(broker_args(&format!("127.0.0.1:{port}")))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // The broker dies with this process, however it ends.
    #[cfg(target_os = "linux")]
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let child = cmd.spawn().map_err(|e| QuickstartError::Controller {
        call: format!("{} broker", tansu.display()),
        reason: e.to_string(),
    })?;
    let broker = Broker {
        child,
        address: format!("127.0.0.1:{port}"),
    };
    for _ in 0..100 {
        if std::net::TcpStream::connect(&broker.address).is_ok() {
            return Ok(broker);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(QuickstartError::Controller {
        call: format!("{} broker", tansu.display()),
        reason: format!("nothing listens on {} after 5 s", broker.address),
    })
}

/// The `events` schema.
pub fn schema() -> Json {
    json!({
        "schemaName": TABLE,
        "dimensionFieldSpecs": [
            {"name": "kind", "dataType": "STRING"},
            {"name": "country", "dataType": "STRING"}
        ],
        "metricFieldSpecs": [
            {"name": "id", "dataType": "LONG"},
            {"name": "amount", "dataType": "DOUBLE"}
        ],
        "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP",
            "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"}]
    })
}

/// The REALTIME `events` table on `broker`'s topic: a segment commits every 1,000 rows.
pub fn table_config(broker: &str) -> Json {
    json!({
        "tableName": TABLE,
        "tableType": "REALTIME",
        "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
        "tenants": {},
        "tableIndexConfig": {"invertedIndexColumns": ["kind", "country"]},
        "ingestionConfig": {"streamIngestionConfig": {"streamConfigMaps": [{
            "streamType": "kafka",
            "stream.kafka.topic.name": TABLE,
            "stream.kafka.broker.list": broker,
            "stream.kafka.consumer.type": "lowlevel",
            "stream.kafka.consumer.prop.auto.offset.reset": "smallest",
            "stream.kafka.decoder.class.name": "org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder",
            "realtime.segment.flush.threshold.rows": "1000",
            "realtime.segment.flush.threshold.time": "1h"
        }]}},
        "metadata": {}
    })
}

/// Event `n`, deterministic but for its time.
fn event(n: u64) -> Json {
    const KINDS: [&str; 4] = ["view", "click", "cart", "purchase"];
    const COUNTRIES: [&str; 5] = ["US", "DE", "IN", "BR", "JP"];
    let h = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    json!({
        "id": n,
        "kind": KINDS[(h >> 7) as usize % KINDS.len()],
        "country": COUNTRIES[(h >> 17) as usize % COUNTRIES.len()],
        "amount": ((h >> 33) % 10_000) as f64 / 100.0,
        "ts": crate::common::clock::now_ms()
    })
}

/// Creates the topic and feeds it an event every 100 ms on a thread, forever.
pub fn start_events(broker: &str) -> Result<(), QuickstartError> {
    let producer =
        Producer::create(broker, TABLE, 1, 0).map_err(|e| QuickstartError::Controller {
            call: format!("Kafka at {broker}"),
            reason: e.to_string(),
        })?;
    std::thread::Builder::new()
        .name("quickstart-events".into())
        .spawn(move || {
            for n in 0.. {
                if let Err(e) = producer.send(event(n).to_string().into_bytes()) {
                    log::warn!("quickstart events: {e}");
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        })
        .map(|_| ())
        .map_err(|e| QuickstartError::Build(e.to_string()))
}

/// Creates the `events` schema and REALTIME table on `controller`.
pub async fn create_table(controller: &str, broker: &str) -> Result<(), QuickstartError> {
    let client = crate::http::http_client();
    let body = |v: Json| surf::Body::from_string(v.to_string());
    super::post(
        &client,
        &format!("{controller}/schemas"),
        body(schema()),
        Some("application/json"),
    )
    .await?;
    super::post(
        &client,
        &format!("{controller}/tables"),
        body(table_config(broker)),
        Some("application/json"),
    )
    .await?;
    Ok(())
}
