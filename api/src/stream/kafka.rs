//! Kafka topics through `rskafka` (pure Rust). rskafka runs on tokio, so this module owns one
//! small tokio runtime (one worker thread) and every call blocks the calling thread on it —
//! consumers run on their own threads, the controller calls through `spawn_blocking`. A
//! consumer behind the high watermark has the next fetch under way on that runtime while it
//! decodes a batch, so the broker's answer and the decoding overlap.
//!
//! The largest offset is the high watermark a fetch reports rather than `ListOffsets(latest)`,
//! which some Kafka-protocol brokers (tansu) answer wrongly after multi-record batches; and no
//! fetch waits 0 ms, which tansu answers with an empty response.

use super::kafka_security::KafkaSecurity;
use super::{Fetched, Message, PartitionConsumer, StartFrom, Stream, StreamError};
use rskafka::BackoffConfig;
use rskafka::client::error::{Error as KafkaError, ProtocolError};
use rskafka::client::partition::{OffsetAt, PartitionClient, UnknownTopicHandling};
use rskafka::client::{Client, ClientBuilder};
use rskafka::record::RecordAndOffset;
use segments::types::table_config::StreamConfig;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// How long one call may retry an unreachable broker before it fails.
const DEADLINE: Duration = Duration::from_secs(10);
/// Most bytes one fetch asks for.
const FETCH_BYTES: i32 = 4 << 20;

fn runtime() -> Result<&'static tokio::runtime::Runtime, StreamError> {
    static RUNTIME: OnceLock<Option<tokio::runtime::Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("kafka-client")
                .enable_all()
                .build()
                .map_err(|e| log::error!("cannot start the Kafka client's runtime: {e}"))
                .ok()
        })
        .as_ref()
        .ok_or_else(|| StreamError::Broker("the Kafka client's runtime did not start".into()))
}

fn block_on<T>(f: impl std::future::Future<Output = T>) -> Result<T, StreamError> {
    Ok(runtime()?.block_on(f))
}

/// A broker address without its listener's name (`SASL_SSL://host:9093` → `host:9093`).
fn without_listener_name(broker: &str) -> &str {
    broker
        .split_once("://")
        .map_or(broker, |(_, address)| address)
}

fn broker_error(topic: &str, partition: Option<i32>, e: KafkaError) -> StreamError {
    match &e {
        KafkaError::ServerError {
            protocol_error: ProtocolError::UnknownTopicOrPartition,
            ..
        } => StreamError::NoTopic(topic.to_string()),
        KafkaError::ServerError {
            protocol_error: ProtocolError::OffsetOutOfRange,
            ..
        } => StreamError::OffsetOutOfRange {
            partition: partition.unwrap_or(-1),
            offset: -1,
        },
        _ => StreamError::Broker(format!("topic '{topic}': {e}")),
    }
}

/// A Kafka topic.
pub struct KafkaStream {
    brokers: Vec<String>,
    topic: String,
    security: KafkaSecurity,
    client: Mutex<Option<Arc<Client>>>,
}

impl KafkaStream {
    /// The topic and brokers of a `streamType: kafka` config.
    pub fn new(config: &StreamConfig<'_>) -> Result<KafkaStream, StreamError> {
        let brokers: Vec<String> = config
            .broker_list()
            .unwrap_or_default()
            .split(',')
            .map(|b| without_listener_name(b.trim()).to_string())
            .filter(|b| !b.is_empty())
            .collect();
        if brokers.is_empty() {
            return Err(StreamError::Config(
                "stream.kafka.broker.list is missing or empty".into(),
            ));
        }
        Ok(KafkaStream {
            brokers,
            topic: config.topic_name().to_string(),
            security: KafkaSecurity::of(config)?,
            client: Mutex::new(None),
        })
    }

    fn client(&self) -> Result<Arc<Client>, StreamError> {
        if let Some(c) = self.client.lock().ok().and_then(|c| c.clone()) {
            return Ok(c);
        }
        let backoff = BackoffConfig {
            deadline: Some(DEADLINE),
            max_backoff: Duration::from_secs(1),
            ..BackoffConfig::default()
        };
        let mut builder = ClientBuilder::new(self.brokers.clone())
            .client_id("tessera")
            .backoff_config(backoff);
        if let Some(tls) = &self.security.tls {
            builder = builder.tls_config(tls.clone());
        }
        if let Some(sasl) = &self.security.sasl {
            builder = builder.sasl_config(sasl.clone());
        }
        let client = Arc::new(block_on(builder.build())?.map_err(|e| {
            StreamError::Broker(format!("cannot reach Kafka at {:?}: {e}", self.brokers))
        })?);
        if let Ok(mut c) = self.client.lock() {
            *c = Some(client.clone());
        }
        Ok(client)
    }

    fn partition_client(&self, partition: i32) -> Result<PartitionClient, StreamError> {
        let client = self.client()?;
        let topic = self.topic.clone();
        block_on(async move {
            client
                .partition_client(topic, partition, UnknownTopicHandling::Error)
                .await
        })?
        .map_err(|e| broker_error(&self.topic, Some(partition), e))
    }
}

impl Stream for KafkaStream {
    fn partitions(&self) -> Result<Vec<i32>, StreamError> {
        let client = self.client()?;
        let topics = block_on(async move { client.list_topics().await })?
            .map_err(|e| broker_error(&self.topic, None, e))?;
        let topic = topics
            .into_iter()
            .find(|t| t.name == self.topic)
            .ok_or_else(|| StreamError::NoTopic(self.topic.clone()))?;
        Ok(topic.partitions.into_iter().collect())
    }

    fn offset(&self, partition: i32, at: StartFrom) -> Result<i64, StreamError> {
        let pc = self.partition_client(partition)?;
        let topic = self.topic.clone();
        block_on(async move {
            let earliest = pc.get_offset(OffsetAt::Earliest).await?;
            match at {
                StartFrom::Smallest => Ok(earliest),
                // The high watermark, from a fetch that barely waits (tansu answers a fetch
                // with a zero wait with no topic at all).
                StartFrom::Largest => pc.fetch_records(earliest, 1..2, 1).await.map(|(_, hw)| hw),
            }
        })?
        .map_err(|e| broker_error(&topic, Some(partition), e))
    }

    fn consumer(&self, partition: i32) -> Result<Box<dyn PartitionConsumer>, StreamError> {
        Ok(Box::new(KafkaPartition {
            client: Arc::new(self.partition_client(partition)?),
            topic: self.topic.clone(),
            ahead: None,
        }))
    }
}

/// What one fetch of records answers: the records and the high watermark.
type FetchResult = Result<(Vec<RecordAndOffset>, i64), KafkaError>;

/// A consumer of one Kafka partition.
struct KafkaPartition {
    client: Arc<PartitionClient>,
    topic: String,
    /// While the consumer decodes a batch of a partition it has not caught up with, the fetch
    /// of the records after it (their first offset, and the fetch on the client's runtime):
    /// the broker's answer and the decoding overlap instead of taking turns.
    ahead: Option<(i64, tokio::task::JoinHandle<FetchResult>)>,
}

impl Drop for KafkaPartition {
    fn drop(&mut self) {
        if let Some((_, fetch)) = self.ahead.take() {
            fetch.abort();
        }
    }
}

impl KafkaPartition {
    /// Starts fetching from `offset` on the client's runtime.
    fn start_fetch(
        &self,
        offset: i64,
        wait: i32,
    ) -> Result<tokio::task::JoinHandle<FetchResult>, StreamError> {
        let pc = self.client.clone();
        Ok(runtime()?.spawn(async move { pc.fetch_records(offset, 1..FETCH_BYTES, wait).await }))
    }
}

impl PartitionConsumer for KafkaPartition {
    fn fetch(&mut self, offset: i64, max_wait: Duration) -> Result<Fetched, StreamError> {
        let wait = i32::try_from(max_wait.as_millis())
            .unwrap_or(i32::MAX)
            .max(1);
        // The fetch started after the last batch, if it starts where this one does.
        let fetch = match self.ahead.take() {
            Some((from, fetch)) if from == offset => fetch,
            stale => {
                if let Some((_, fetch)) = stale {
                    fetch.abort();
                }
                self.start_fetch(offset, wait)?
            }
        };
        let (records, high_watermark) = block_on(fetch)?
            .map_err(|e| StreamError::Broker(format!("topic '{}': {e}", self.topic)))?
            .map_err(
                |e| match broker_error(&self.topic, Some(pc_partition(&self.client)), e) {
                    StreamError::OffsetOutOfRange { partition, .. } => {
                        StreamError::OffsetOutOfRange { partition, offset }
                    }
                    other => other,
                },
            )?;
        let messages = records
            .into_iter()
            // A fetch may start inside a compressed batch: skip what precedes the offset.
            .filter(|r| r.offset >= offset)
            .map(|r| Message {
                offset: r.offset,
                key: r.record.key,
                value: r.record.value.unwrap_or_default(),
                timestamp_ms: r.record.timestamp.timestamp_millis(),
                headers: r.record.headers.into_iter().collect(),
            })
            .collect::<Vec<Message>>();
        if let Some(last) = messages.last()
            && last.offset + 1 < high_watermark
        {
            self.ahead = Some((last.offset + 1, self.start_fetch(last.offset + 1, wait)?));
        }
        Ok(Fetched {
            messages,
            high_watermark,
        })
    }
}

fn pc_partition(pc: &PartitionClient) -> i32 {
    pc.partition()
}

/// Writes to one partition of a topic (the quickstart's event generator; tests produce with
/// their own client).
pub struct Producer {
    client: PartitionClient,
}

impl Producer {
    /// A producer for `topic` partition `partition`, creating the topic (with `partitions`
    /// partitions) if it does not exist.
    pub fn create(
        broker: &str,
        topic: &str,
        partitions: i32,
        partition: i32,
    ) -> Result<Producer, StreamError> {
        let builder = ClientBuilder::new(vec![broker.to_string()]).client_id("tessera");
        let client = block_on(builder.build())?
            .map_err(|e| StreamError::Broker(format!("cannot reach Kafka at {broker}: {e}")))?;
        let exists = block_on(client.list_topics())?
            .map_err(|e| broker_error(topic, None, e))?
            .iter()
            .any(|t| t.name == topic);
        if !exists {
            let controller = client
                .controller_client()
                .map_err(|e| broker_error(topic, None, e))?;
            block_on(controller.create_topic(topic, partitions, 1, 5_000))?
                .map_err(|e| broker_error(topic, None, e))?;
        }
        let client = block_on(client.partition_client(
            topic.to_string(),
            partition,
            UnknownTopicHandling::Retry,
        ))?
        .map_err(|e| broker_error(topic, Some(partition), e))?;
        Ok(Producer { client })
    }

    /// Appends one message.
    pub fn send(&self, value: Vec<u8>) -> Result<(), StreamError> {
        let record = rskafka::record::Record {
            key: None,
            value: Some(value),
            headers: Default::default(),
            timestamp: rskafka::chrono::Utc::now(),
        };
        block_on(self.client.produce(
            vec![record],
            rskafka::client::partition::Compression::NoCompression,
        ))?
        .map(|_| ())
        .map_err(|e| broker_error(self.client.topic(), Some(self.client.partition()), e))
    }
}
