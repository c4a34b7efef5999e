//! How a stream's messages become records. The stream config's `decoder.class.name` names the
//! format (Pinot's decoder classes, matched by their simple name) and its `decoder.prop.*`
//! entries configure it:
//!
//! | decoder class | a message is | properties |
//! |---|---|---|
//! | `JSONMessageDecoder`, `KafkaJSONMessageDecoder` | a JSON object | |
//! | `CSVMessageDecoder` | one CSV record ([`csv`]) | `header`, `delimiter`, `multiValueDelimiter`, `nullStringValue`, `quoteCharacter`, `escapeCharacter`, `commentMarker` |
//! | `SimpleAvroMessageDecoder` | an Avro datum ([`avro`]) | `schema` (required), `leading.bytes.to.strip` |
//! | `KafkaConfluentSchemaRegistryAvroMessageDecoder` | Confluent's wire format: byte 0, a 4-byte schema id, an Avro datum | `schema.registry.rest.url` (required) |
//! | `ProtoBufMessageDecoder` | a Protobuf message ([`protobuf`]) | `descriptorFile` (required), `protoClassName` |
//!
//! A record is a JSON object whatever the format, so the rest of ingestion — transforms, the
//! filter, typing values to columns ([`crate::server::stream_rows`]) — is one path. Besides the
//! value's fields a record carries what Pinot's stream decoder adds: `__key` (the message key
//! as text, or as hex when the schema types `__key` BYTES) and
//! `__metadata$recordSerializedValueSize`; with `stream.<type>.metadata.populate`, each header
//! as `__header$<name>` (its bytes in hex, as Pinot writes bytes into text) and
//! `__metadata$offset`, `__metadata$partition`, `__metadata$recordTimestamp`. A schema column
//! of one of these names receives it.

pub mod avro;
pub mod csv;
pub mod json;
pub mod protobuf;

use super::{Message, StreamError};
pub use json::{Cells, Columns};
use segments::builder::json_cell::json_into_value;
use segments::types::table_config::StreamConfig;
use segments::types::value::encode_hex;
use segments::types::{DataType, Schema};
use serde_json::{Map, Value as Json};
use std::collections::BTreeMap;

/// A decoded message: field name → value.
pub type Record = Map<String, Json>;

/// The message formats, by what a decoder class's simple name says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Json,
    Csv,
    Avro,
    ConfluentAvro,
    Protobuf,
}

impl Kind {
    fn of(class: &str) -> Result<Kind, StreamError> {
        let simple = class.rsplit('.').next().unwrap_or(class);
        let lower = simple.to_ascii_lowercase();
        Ok(if lower.contains("json") {
            Kind::Json
        } else if lower == "csvmessagedecoder" {
            Kind::Csv
        } else if lower == "simpleavromessagedecoder" {
            Kind::Avro
        } else if lower == "kafkaconfluentschemaregistryavromessagedecoder" {
            Kind::ConfluentAvro
        } else if lower == "protobufmessagedecoder" {
            Kind::Protobuf
        } else {
            return Err(StreamError::Config(format!(
                "decoder '{class}' is not supported (supported: JSONMessageDecoder, \
                 CSVMessageDecoder, SimpleAvroMessageDecoder, \
                 KafkaConfluentSchemaRegistryAvroMessageDecoder, ProtoBufMessageDecoder)"
            )));
        })
    }
}

/// A format's decoder.
enum Format {
    Json,
    Csv(csv::CsvDecoder),
    Avro(avro::SimpleAvro),
    ConfluentAvro(avro::ConfluentAvro),
    Protobuf(protobuf::ProtoDecoder),
}

/// The decoder properties of a stream config.
pub(crate) type Props<'a> = BTreeMap<&'a str, &'a str>;

/// Turns a table's messages into records.
pub struct MessageDecoder {
    format: Format,
    populate_metadata: bool,
    /// Whether the schema types `__key` BYTES (the key then stays bytes, in hex).
    key_as_bytes: bool,
}

impl MessageDecoder {
    /// Whether `config` names a supported decoder with the properties it needs, well formed
    /// (what can be told without reading files or reaching a schema registry).
    pub fn check(config: &StreamConfig<'_>) -> Result<(), StreamError> {
        let props: Props<'_> = config.decoder_properties().into_iter().collect();
        match Kind::of(config.decoder_class())? {
            Kind::Json => Ok(()),
            Kind::Csv => csv::CsvDecoder::new(&props).map(|_| ()),
            Kind::Avro => avro::SimpleAvro::new(&props).map(|_| ()),
            Kind::ConfluentAvro => avro::ConfluentAvro::new(&props).map(|_| ()),
            Kind::Protobuf => protobuf::ProtoDecoder::check(&props),
        }
    }

    /// The decoder of `config` for rows of `schema` (reads a Protobuf descriptor file).
    pub fn new(config: &StreamConfig<'_>, schema: &Schema) -> Result<MessageDecoder, StreamError> {
        let props: Props<'_> = config.decoder_properties().into_iter().collect();
        let format = match Kind::of(config.decoder_class())? {
            Kind::Json => Format::Json,
            Kind::Csv => Format::Csv(csv::CsvDecoder::new(&props)?),
            Kind::Avro => Format::Avro(avro::SimpleAvro::new(&props)?),
            Kind::ConfluentAvro => Format::ConfluentAvro(avro::ConfluentAvro::new(&props)?),
            Kind::Protobuf => Format::Protobuf(protobuf::ProtoDecoder::new(&props)?),
        };
        Ok(MessageDecoder {
            format,
            populate_metadata: config.populate_metadata(),
            key_as_bytes: schema
                .field(KEY)
                .is_some_and(|f| f.data_type == DataType::Bytes),
        })
    }

    /// A JSON-message decoder without metadata (for tests and tools).
    pub fn json() -> MessageDecoder {
        MessageDecoder {
            format: Format::Json,
            populate_metadata: false,
            key_as_bytes: false,
        }
    }

    /// The record of message `m` of partition `partition`.
    pub fn decode(&self, m: &Message, partition: i32) -> Result<Record, String> {
        let mut record = match &self.format {
            Format::Json => match serde_json::from_slice::<Json>(&m.value) {
                Ok(Json::Object(o)) => o,
                Ok(other) => return Err(format!("message is not a JSON object: {other}")),
                Err(e) => return Err(format!("message is not JSON: {e}")),
            },
            Format::Csv(d) => d.decode(&m.value)?,
            Format::Avro(d) => d.decode(&m.value)?,
            Format::ConfluentAvro(d) => d.decode(&m.value)?,
            Format::Protobuf(d) => d.decode(&m.value)?,
        };
        self.metadata(m, partition, |name, value| {
            record.insert(name, value);
        });
        Ok(record)
    }

    /// The values of message `m` for `columns`, typed for them and in column order (what the
    /// message lacks is null): a JSON message is read straight into them
    /// ([`json::columns_of`]), another format's record is picked apart.
    pub fn decode_columns(
        &self,
        m: &Message,
        partition: i32,
        columns: &Columns,
    ) -> Result<Cells, String> {
        let mut row = match self.format {
            Format::Json => json::columns_of(&m.value, columns)?,
            _ => {
                let mut record = self.decode(m, partition)?;
                let mut row = Cells::nulls(columns.len());
                for (i, name) in columns.names().iter().enumerate() {
                    if let Some(v) = record.remove(name) {
                        row.set(i, json_into_value(columns.data_type(i), v));
                    }
                }
                return Ok(row);
            }
        };
        if columns.has_special() {
            self.metadata(m, partition, |name, value| {
                if let Some(i) = columns.position(&name) {
                    row.set(i, json_into_value(columns.data_type(i), value));
                }
            });
        }
        Ok(row)
    }

    /// The key, headers and metadata of `m`, each given to `put` as a column name and value.
    fn metadata(&self, m: &Message, partition: i32, mut put: impl FnMut(String, Json)) {
        if let Some(key) = &m.key {
            let text = if self.key_as_bytes {
                encode_hex(key)
            } else {
                String::from_utf8_lossy(key).into_owned()
            };
            put(KEY.into(), Json::String(text));
        }
        if self.populate_metadata {
            for (name, value) in &m.headers {
                put(
                    format!("{HEADER_PREFIX}{name}"),
                    Json::String(encode_hex(value)),
                );
            }
            for (name, value) in [
                ("offset", m.offset),
                ("partition", i64::from(partition)),
                ("recordTimestamp", m.timestamp_ms),
            ] {
                put(
                    format!("{METADATA_PREFIX}{name}"),
                    Json::String(value.to_string()),
                );
            }
        }
        put(
            format!("{METADATA_PREFIX}recordSerializedValueSize"),
            Json::from(m.value.len()),
        );
    }
}

/// The column a message's key goes to.
pub const KEY: &str = "__key";
/// The prefix of header columns.
pub const HEADER_PREFIX: &str = "__header$";
/// The prefix of message metadata columns.
pub const METADATA_PREFIX: &str = "__metadata$";

/// A required decoder property.
fn required<'a>(props: &Props<'a>, name: &str, decoder: &str) -> Result<&'a str, StreamError> {
    props
        .get(name)
        .copied()
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| {
            StreamError::Config(format!(
                "{decoder} needs the decoder property '{name}' (stream.<type>.decoder.prop.{name})"
            ))
        })
}

/// A one-character decoder property (its first character, as Pinot takes it).
fn char_prop(props: &Props<'_>, name: &str) -> Result<Option<u8>, StreamError> {
    match props.get(name) {
        None => Ok(None),
        Some(v) => match v.as_bytes() {
            [c, ..] if c.is_ascii() => Ok(Some(*c)),
            _ => Err(StreamError::Config(format!(
                "decoder property '{name}' must be one ASCII character, got '{v}'"
            ))),
        },
    }
}
