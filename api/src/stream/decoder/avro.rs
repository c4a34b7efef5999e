//! Avro messages: `SimpleAvroMessageDecoder` reads each message as one Avro datum of the schema
//! in its `schema` property (after `leading.bytes.to.strip` bytes);
//! `KafkaConfluentSchemaRegistryAvroMessageDecoder` reads Confluent's wire format — a zero byte,
//! the writer schema's registry id (4 bytes, big-endian), the datum — and fetches each schema
//! id once from the registry's REST API (`GET <url>/schemas/ids/<id>`, answered with
//! `{"schema": "<Avro schema JSON>"}`), then keeps it. Values map as in Avro files
//! ([`segments::input::avro_datum_record`]).

use super::{Props, Record, required};
use crate::stream::StreamError;
use apache_avro::Schema as AvroSchema;
use segments::input::avro_datum_record;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

fn parse_schema(text: &str, whence: &str) -> Result<AvroSchema, String> {
    AvroSchema::parse_str(text).map_err(|e| format!("{whence} is not an Avro schema: {e}"))
}

/// `SimpleAvroMessageDecoder`.
pub struct SimpleAvro {
    schema: AvroSchema,
    strip: usize,
}

impl SimpleAvro {
    /// The decoder its properties describe (the schema must parse).
    pub fn new(props: &Props<'_>) -> Result<SimpleAvro, StreamError> {
        let text = required(props, "schema", "SimpleAvroMessageDecoder")?;
        let schema =
            parse_schema(text, "decoder property 'schema'").map_err(StreamError::Config)?;
        let strip = match props.get("leading.bytes.to.strip") {
            None => 0,
            Some(n) => n.trim().parse().map_err(|_| {
                StreamError::Config(format!(
                    "decoder property 'leading.bytes.to.strip' must be a count of bytes, got '{n}'"
                ))
            })?,
        };
        Ok(SimpleAvro { schema, strip })
    }

    /// The record of one message.
    pub fn decode(&self, payload: &[u8]) -> Result<Record, String> {
        let body = payload.get(self.strip..).ok_or_else(|| {
            format!(
                "message of {} bytes is shorter than leading.bytes.to.strip ({})",
                payload.len(),
                self.strip
            )
        })?;
        avro_datum_record(&self.schema, body)
    }
}

/// `KafkaConfluentSchemaRegistryAvroMessageDecoder`.
pub struct ConfluentAvro {
    /// The registry's base URLs (the property may list several, comma-separated).
    urls: Vec<String>,
    schemas: Mutex<HashMap<u32, Arc<AvroSchema>>>,
}

impl ConfluentAvro {
    /// The decoder its properties describe.
    pub fn new(props: &Props<'_>) -> Result<ConfluentAvro, StreamError> {
        let text = required(
            props,
            "schema.registry.rest.url",
            "KafkaConfluentSchemaRegistryAvroMessageDecoder",
        )?;
        let urls: Vec<String> = text
            .split(',')
            .map(|u| u.trim().trim_end_matches('/').to_string())
            .filter(|u| !u.is_empty())
            .collect();
        if let Some(bad) = urls.iter().find(|u| !u.starts_with("http://")) {
            return Err(StreamError::Config(format!(
                "schema registry URL '{bad}' is not an http:// URL"
            )));
        }
        Ok(ConfluentAvro {
            urls,
            schemas: Mutex::new(HashMap::new()),
        })
    }

    /// The record of one message.
    pub fn decode(&self, payload: &[u8]) -> Result<Record, String> {
        let [0, a, b, c, d, body @ ..] = payload else {
            return Err(
                "message is not in Confluent's wire format (a zero byte, then a schema id)".into(),
            );
        };
        let id = u32::from_be_bytes([*a, *b, *c, *d]);
        let schema = self.schema(id)?;
        avro_datum_record(&schema, body)
    }

    /// Writer schema `id`, from the cache or the registry.
    fn schema(&self, id: u32) -> Result<Arc<AvroSchema>, String> {
        let cached = self
            .schemas
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&id)
            .cloned();
        if let Some(s) = cached {
            return Ok(s);
        }
        let mut last = String::new();
        for url in &self.urls {
            match fetch_schema(url, id) {
                Ok(schema) => {
                    let schema = Arc::new(schema);
                    self.schemas
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(id, schema.clone());
                    return Ok(schema);
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }
}

/// `GET <url>/schemas/ids/<id>` (blocking: consumers run on their own threads).
fn fetch_schema(url: &str, id: u32) -> Result<AvroSchema, String> {
    let uri = format!("{url}/schemas/ids/{id}");
    let body = async_std::task::block_on(async {
        let mut res = surf::get(&uri)
            .await
            .map_err(|e| format!("schema registry: GET {uri}: {e}"))?;
        let body = res
            .body_string()
            .await
            .map_err(|e| format!("schema registry: GET {uri}: {e}"))?;
        if !res.status().is_success() {
            return Err(format!(
                "schema registry: GET {uri}: HTTP {}: {body}",
                res.status() as u16
            ));
        }
        Ok(body)
    })?;
    let answer: serde_json::Value = serde_json::from_str(&body)
        .map_err(|e| format!("schema registry: GET {uri}: not JSON: {e}"))?;
    if let Some(kind) = answer["schemaType"].as_str().filter(|k| *k != "AVRO") {
        return Err(format!("schema {id} is a {kind} schema, not Avro"));
    }
    let text = answer["schema"]
        .as_str()
        .ok_or_else(|| format!("schema registry: GET {uri}: no 'schema' in {body}"))?;
    parse_schema(text, &format!("registry schema {id}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use apache_avro::types::Value as Avro;

    const SCHEMA: &str = r#"{"type":"record","name":"E","fields":[
        {"name":"id","type":"long"},
        {"name":"name","type":["null","string"]},
        {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
        {"name":"raw","type":"bytes"},
        {"name":"tags","type":{"type":"array","items":"string"}},
        {"name":"at","type":{"type":"long","logicalType":"timestamp-micros"}}]}"#;

    fn datum() -> Vec<u8> {
        let schema = AvroSchema::parse_str(SCHEMA).unwrap();
        let v = Avro::Record(vec![
            ("id".into(), Avro::Long(7)),
            (
                "name".into(),
                Avro::Union(1, Box::new(Avro::String("ann".into()))),
            ),
            (
                "price".into(),
                Avro::Decimal(apache_avro::Decimal::from(12345i64.to_be_bytes().to_vec())),
            ),
            ("raw".into(), Avro::Bytes(vec![0xab, 0x01])),
            (
                "tags".into(),
                Avro::Array(vec![Avro::String("x".into()), Avro::String("y".into())]),
            ),
            ("at".into(), Avro::TimestampMicros(1_700_000_000_123_456)),
        ]);
        apache_avro::writer::datum::GenericDatumWriter::builder(&schema)
            .build()
            .unwrap()
            .write_value_to_vec(v)
            .unwrap()
    }

    #[test]
    fn simple_avro_reads_a_datum_after_stripped_bytes() {
        let d = SimpleAvro::new(
            &[("schema", SCHEMA), ("leading.bytes.to.strip", "2")]
                .into_iter()
                .collect(),
        )
        .unwrap();
        let mut payload = vec![9, 9];
        payload.extend(datum());
        let r = d.decode(&payload).unwrap();
        assert_eq!(r["id"], 7);
        assert_eq!(r["name"], "ann");
        assert_eq!(r["price"], "123.45");
        assert_eq!(r["raw"], "ab01");
        assert_eq!(r["tags"], serde_json::json!(["x", "y"]));
        assert_eq!(r["at"], 1_700_000_000_123i64);
        assert!(d.decode(&[1]).is_err());
        assert!(d.decode(&[9, 9, 0xff]).is_err());
        assert!(SimpleAvro::new(&[("schema", "{")].into_iter().collect()).is_err());
        assert!(SimpleAvro::new(&Props::new()).is_err());
    }

    #[test]
    fn confluent_framing_is_checked() {
        let d = ConfluentAvro::new(
            &[("schema.registry.rest.url", "http://127.0.0.1:1")]
                .into_iter()
                .collect(),
        )
        .unwrap();
        assert!(
            d.decode(&[1, 0, 0, 0, 1])
                .unwrap_err()
                .contains("wire format")
        );
        assert!(
            ConfluentAvro::new(
                &[("schema.registry.rest.url", "ftp://x")]
                    .into_iter()
                    .collect()
            )
            .is_err()
        );
    }
}
