//! A typed view of one stream config map (`StreamConfig.java`, `StreamConfigProperties.java`).
//!
//! Stream configs are flat string maps whose keys embed the stream type
//! (`stream.kafka.topic.name`). [`StreamConfig::new`] applies Pinot's constructor checks
//! (stream type, topic, decoder; no high-level consumer) and the accessors apply its defaults
//! (flush after 5,000,000 rows, 6 hours or 200 MB segments).

use super::error::StreamConfigError;
use super::period::parse_period_millis;
use serde_json::{Map, Value as Json};

/// `realtime.segment.flush.threshold.rows` default.
pub const DEFAULT_FLUSH_THRESHOLD_ROWS: u64 = 5_000_000;
/// `realtime.segment.flush.threshold.time` default (6 hours).
pub const DEFAULT_FLUSH_THRESHOLD_TIME_MILLIS: i64 = 6 * 3_600_000;
/// `realtime.segment.flush.threshold.segment.size` default (200 MB).
pub const DEFAULT_FLUSH_THRESHOLD_SEGMENT_SIZE_BYTES: u64 = 200 * 1024 * 1024;
/// Consumer factory used when none is configured (Pinot's backward-compatible default).
pub const DEFAULT_CONSUMER_FACTORY_CLASS: &str =
    "org.apache.pinot.plugin.stream.kafka20.KafkaConsumerFactory";

const STREAM_TYPE: &str = "streamType";
const FLUSH_ROWS: &str = "realtime.segment.flush.threshold.rows";
const FLUSH_ROWS_DEPRECATED: &str = "realtime.segment.flush.threshold.size";
const FLUSH_TIME: &str = "realtime.segment.flush.threshold.time";
const FLUSH_SEGMENT_SIZE: &str = "realtime.segment.flush.threshold.segment.size";
const FLUSH_SEGMENT_SIZE_DEPRECATED: &str = "realtime.segment.flush.desired.size";
const LLC_SUFFIX: &str = ".llc";

/// A validated stream config map.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamConfig<'a> {
    map: &'a Map<String, Json>,
    stream_type: &'a str,
}

impl<'a> StreamConfig<'a> {
    /// Checks the map as Pinot's `StreamConfig` constructor does.
    pub fn new(map: &'a Map<String, Json>) -> Result<StreamConfig<'a>, StreamConfigError> {
        let stream_type =
            str_value(map, STREAM_TYPE).ok_or(StreamConfigError::MissingStreamType)?;
        let config = StreamConfig { map, stream_type };
        let topic_key = config.key("topic.name");
        if config.get(&topic_key).is_none() {
            return Err(StreamConfigError::MissingTopic(topic_key));
        }
        let consumer_types = config.get(&config.key("consumer.type")).unwrap_or_default();
        if consumer_types
            .split(',')
            .any(|t| t.trim().eq_ignore_ascii_case("highlevel"))
        {
            return Err(StreamConfigError::HighLevelConsumer);
        }
        let decoder_key = config.key("decoder.class.name");
        if config.get(&decoder_key).is_none() {
            return Err(StreamConfigError::MissingDecoder(decoder_key));
        }
        Ok(config)
    }

    /// `stream.<type>.<suffix>`.
    fn key(&self, suffix: &str) -> String {
        format!("stream.{}.{suffix}", self.stream_type)
    }

    /// Any value of the map.
    pub fn get(&self, key: &str) -> Option<&'a str> {
        str_value(self.map, key)
    }

    /// The whole map.
    pub fn map(&self) -> &'a Map<String, Json> {
        self.map
    }

    /// `streamType` (`kafka`, `kinesis`, …).
    pub fn stream_type(&self) -> &'a str {
        self.stream_type
    }

    /// `stream.<type>.topic.name`.
    pub fn topic_name(&self) -> &'a str {
        self.get(&self.key("topic.name")).unwrap_or_default()
    }

    /// `stream.<type>.decoder.class.name`.
    pub fn decoder_class(&self) -> &'a str {
        self.get(&self.key("decoder.class.name"))
            .unwrap_or_default()
    }

    /// `stream.<type>.consumer.factory.class.name`, or Pinot's Kafka default.
    pub fn consumer_factory_class(&self) -> &'a str {
        self.get(&self.key("consumer.factory.class.name"))
            .unwrap_or(DEFAULT_CONSUMER_FACTORY_CLASS)
    }

    /// `stream.<type>.broker.list`.
    pub fn broker_list(&self) -> Option<&'a str> {
        self.get(&self.key("broker.list"))
    }

    /// The offset to start from: `stream.<type>.consumer.prop.auto.offset.reset`
    /// (`smallest`, `largest`, a period like `2d`, …).
    pub fn offset_reset(&self) -> Option<&'a str> {
        self.get(&self.key("consumer.prop.auto.offset.reset"))
    }

    /// `stream.<type>.metadata.populate`: whether rows get the message's headers and
    /// `__metadata$offset`, `…$partition`, `…$recordTimestamp` (default false).
    pub fn populate_metadata(&self) -> bool {
        self.get(&self.key("metadata.populate"))
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    }

    /// Decoder properties: `stream.<type>.decoder.prop.<name>` entries, prefix removed.
    pub fn decoder_properties(&self) -> Vec<(&'a str, &'a str)> {
        let prefix = self.key("decoder.prop.");
        self.map
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(prefix.as_str())?, v.as_str()?)))
            .collect()
    }

    /// Rows per consuming segment (0 means size-based flushing); invalid values fall back
    /// to the default, as in Pinot.
    pub fn flush_threshold_rows(&self) -> u64 {
        let legacy_llc = format!("{FLUSH_ROWS_DEPRECATED}{LLC_SUFFIX}");
        [FLUSH_ROWS, FLUSH_ROWS_DEPRECATED, legacy_llc.as_str()]
            .into_iter()
            .find_map(|k| self.get(k))
            .map(|v| {
                v.trim()
                    .parse::<u64>()
                    .unwrap_or(DEFAULT_FLUSH_THRESHOLD_ROWS)
            })
            .unwrap_or(DEFAULT_FLUSH_THRESHOLD_ROWS)
    }

    /// Maximum age of a consuming segment: a period (`6h`) or plain milliseconds.
    pub fn flush_threshold_time_millis(&self) -> i64 {
        let legacy_llc = format!("{FLUSH_TIME}{LLC_SUFFIX}");
        [FLUSH_TIME, legacy_llc.as_str()]
            .into_iter()
            .find_map(|k| self.get(k))
            .and_then(|v| parse_period_millis(v).or_else(|| v.trim().parse().ok()))
            .unwrap_or(DEFAULT_FLUSH_THRESHOLD_TIME_MILLIS)
    }

    /// Target segment size for size-based flushing (`200M`, `1.5G`, bytes).
    pub fn flush_threshold_segment_size_bytes(&self) -> u64 {
        [FLUSH_SEGMENT_SIZE, FLUSH_SEGMENT_SIZE_DEPRECATED]
            .into_iter()
            .find_map(|k| self.get(k))
            .and_then(super::data_size::data_size_bytes)
            .filter(|b| *b > 0)
            .unwrap_or(DEFAULT_FLUSH_THRESHOLD_SEGMENT_SIZE_BYTES)
    }
}

/// A string value of a string map.
pub(super) fn str_value<'a>(map: &'a Map<String, Json>, key: &str) -> Option<&'a str> {
    map.get(key)?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Json) -> Map<String, Json> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn reads_keys_and_defaults() {
        let m = map(json!({
            "streamType": "kafka", "stream.kafka.topic.name": "flights-realtime",
            "stream.kafka.decoder.class.name": "org.apache.pinot.plugin.stream.kafka.KafkaJSONMessageDecoder",
            "stream.kafka.broker.list": "localhost:19092",
            "stream.kafka.consumer.prop.auto.offset.reset": "smallest",
            "stream.kafka.decoder.prop.schema": "s",
            "realtime.segment.flush.threshold.time": "3600000",
            "realtime.segment.flush.threshold.size": "50000"
        }));
        let s = StreamConfig::new(&m).unwrap();
        assert_eq!(s.stream_type(), "kafka");
        assert_eq!(s.topic_name(), "flights-realtime");
        assert_eq!(s.broker_list(), Some("localhost:19092"));
        assert_eq!(s.offset_reset(), Some("smallest"));
        assert_eq!(s.consumer_factory_class(), DEFAULT_CONSUMER_FACTORY_CLASS);
        assert_eq!(s.decoder_properties(), vec![("schema", "s")]);
        assert_eq!(s.flush_threshold_rows(), 50_000);
        assert_eq!(s.flush_threshold_time_millis(), 3_600_000);
        assert_eq!(
            s.flush_threshold_segment_size_bytes(),
            DEFAULT_FLUSH_THRESHOLD_SEGMENT_SIZE_BYTES
        );
    }

    #[test]
    fn constructor_checks() {
        let err = |v: Json| StreamConfig::new(&map(v)).unwrap_err();
        assert_eq!(err(json!({})), StreamConfigError::MissingStreamType);
        assert_eq!(
            err(json!({"streamType": "kafka"})),
            StreamConfigError::MissingTopic("stream.kafka.topic.name".into())
        );
        assert_eq!(
            err(json!({"streamType": "kafka", "stream.kafka.topic.name": "t"})),
            StreamConfigError::MissingDecoder("stream.kafka.decoder.class.name".into())
        );
        assert_eq!(
            err(
                json!({"streamType": "kafka", "stream.kafka.topic.name": "t",
                       "stream.kafka.consumer.type": "lowlevel,highLevel"})
            ),
            StreamConfigError::HighLevelConsumer
        );
    }

    #[test]
    fn thresholds_parse_periods_and_sizes() {
        let m = map(
            json!({"streamType": "kafka", "stream.kafka.topic.name": "t",
            "stream.kafka.decoder.class.name": "d", "realtime.segment.flush.threshold.time": "6h",
            "realtime.segment.flush.threshold.rows": "x",
            "realtime.segment.flush.threshold.segment.size": "1.5M"}),
        );
        let s = StreamConfig::new(&m).unwrap();
        assert_eq!(s.flush_threshold_time_millis(), 6 * 3_600_000);
        assert_eq!(s.flush_threshold_rows(), DEFAULT_FLUSH_THRESHOLD_ROWS);
        assert_eq!(s.flush_threshold_segment_size_bytes(), 1_572_864);
    }
}
