//! The streams real-time tables consume, behind one small, Pinot-shaped interface: a topic's
//! partitions, a partition's smallest and largest offsets, and fetching a partition's messages
//! from an offset. Offsets are the stream's own (Kafka's `i64`); where consumption stands,
//! pauses and commits is kept by the consuming server and the controller's segment records, not
//! by the stream (no consumer groups, as Pinot's low-level consumers).
//!
//! [`open`] picks the implementation from a table's stream config: Kafka ([`kafka`], the
//! `rskafka` client on this module's own tokio thread). Every call blocks: consumers run on
//! their own threads, and the controller calls through [`run_blocking`].

pub mod decoder;
pub mod kafka;
pub mod kafka_security;

use segments::types::table_config::StreamConfig;
use std::time::Duration;

/// A stream failure.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StreamError {
    /// The stream config cannot be consumed (unknown stream type or decoder, no brokers).
    #[error("{0}")]
    Config(String),
    /// The stream's brokers could not be reached or answered an error.
    #[error("stream error: {0}")]
    Broker(String),
    /// The topic does not exist.
    #[error("topic '{0}' does not exist")]
    NoTopic(String),
    /// The offset asked for is outside what the partition holds.
    #[error("offset {offset} is out of range for partition {partition}")]
    OffsetOutOfRange { partition: i32, offset: i64 },
}

/// Where consumption starts when no committed offset says (Pinot's `auto.offset.reset` and
/// `resumeConsumption?consumeFrom=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StartFrom {
    Smallest,
    Largest,
}

impl StartFrom {
    /// `smallest`/`earliest` or `largest`/`latest` (None for anything else).
    pub fn parse(text: &str) -> Option<StartFrom> {
        match text.trim().to_ascii_lowercase().as_str() {
            "smallest" | "earliest" => Some(StartFrom::Smallest),
            "largest" | "latest" => Some(StartFrom::Largest),
            _ => None,
        }
    }

    /// A table's `stream.<type>.consumer.prop.auto.offset.reset` (Pinot's default: largest).
    pub fn of_config(config: &StreamConfig<'_>) -> StartFrom {
        config
            .offset_reset()
            .and_then(StartFrom::parse)
            .unwrap_or(StartFrom::Largest)
    }
}

/// One message: its offset, key, payload, the time the stream stamped on it and its headers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Message {
    pub offset: i64,
    pub key: Option<Vec<u8>>,
    pub value: Vec<u8>,
    /// Epoch millis.
    pub timestamp_ms: i64,
    pub headers: Vec<(String, Vec<u8>)>,
}

impl Message {
    /// A message with only an offset and a payload.
    pub fn new(offset: i64, value: Vec<u8>) -> Message {
        Message {
            offset,
            value,
            ..Message::default()
        }
    }
}

/// What one fetch returned: messages in offset order, and the partition's high watermark (the
/// offset the next produced message will get).
#[derive(Debug, Clone, Default)]
pub struct Fetched {
    pub messages: Vec<Message>,
    pub high_watermark: i64,
}

/// Reads one partition from given offsets.
pub trait PartitionConsumer: Send {
    /// Messages from `offset` on, waiting up to `max_wait` for some to arrive.
    fn fetch(&mut self, offset: i64, max_wait: Duration) -> Result<Fetched, StreamError>;
}

/// A topic of a stream.
pub trait Stream: Send + Sync {
    /// The topic's partition ids, ascending.
    fn partitions(&self) -> Result<Vec<i32>, StreamError>;
    /// The smallest or largest (next to be written) offset of a partition.
    fn offset(&self, partition: i32, at: StartFrom) -> Result<i64, StreamError>;
    /// A consumer of one partition.
    fn consumer(&self, partition: i32) -> Result<Box<dyn PartitionConsumer>, StreamError>;
}

/// The stream a table's stream config names (no I/O yet: its methods reach the brokers).
pub fn open(config: &StreamConfig<'_>) -> Result<Box<dyn Stream>, StreamError> {
    match config.stream_type() {
        "kafka" => Ok(Box::new(kafka::KafkaStream::new(config)?)),
        other => Err(StreamError::Config(format!(
            "stream type '{other}' is not supported (supported: kafka)"
        ))),
    }
}

/// Whether this cluster can consume a stream config: its stream type, its security settings
/// and its decoder.
pub fn check_consumable(config: &StreamConfig<'_>) -> Result<(), StreamError> {
    if config.stream_type() != "kafka" {
        return Err(StreamError::Config(format!(
            "stream type '{}' is not supported (supported: kafka)",
            config.stream_type()
        )));
    }
    kafka_security::KafkaSecurity::of(config)?;
    check_decoder(config)
}

/// Whether messages of this stream config can be decoded ([`decoder`]).
fn check_decoder(config: &StreamConfig<'_>) -> Result<(), StreamError> {
    decoder::MessageDecoder::check(config)
}

/// Runs a blocking stream call off the async threads.
pub async fn run_blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    async_std::task::spawn_blocking(f).await
}
