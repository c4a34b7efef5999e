//! `ProtoBufMessageDecoder`: a message is one Protobuf message of the type `protoClassName`
//! names (a full name such as `pkg.Event`, or the simple name; empty: the descriptor file's
//! first message), read with the compiled descriptor set in `descriptorFile` (what
//! `protoc --descriptor_set_out --include_imports` writes; a local path or `file://` URI).
//!
//! Fields map as Pinot's Protobuf extractor maps them: a field with presence that is not set is
//! null, any other field its value (proto3 defaults included); enums as their value's name,
//! bytes as hex, messages and maps as objects, repeated fields as arrays.

use super::{Props, Record, required};
use crate::stream::StreamError;
use prost_reflect::{
    DescriptorPool, DynamicMessage, Kind, MapKey, MessageDescriptor, ReflectMessage, Value,
};
use segments::types::value::encode_hex;
use serde_json::Value as Json;

/// A Protobuf message decoder.
pub struct ProtoDecoder {
    message: MessageDescriptor,
}

impl ProtoDecoder {
    /// Whether the properties name a descriptor file (it is read where rows are consumed).
    pub fn check(props: &Props<'_>) -> Result<(), StreamError> {
        required(props, "descriptorFile", "ProtoBufMessageDecoder").map(|_| ())
    }

    /// The decoder its properties describe: reads the descriptor file.
    pub fn new(props: &Props<'_>) -> Result<ProtoDecoder, StreamError> {
        let file = required(props, "descriptorFile", "ProtoBufMessageDecoder")?;
        let path = file.strip_prefix("file://").unwrap_or(file);
        let bytes = std::fs::read(path).map_err(|e| {
            StreamError::Config(format!(
                "cannot read Protobuf descriptor file '{file}': {e}"
            ))
        })?;
        Self::from_descriptor_set(&bytes, props.get("protoClassName").copied().unwrap_or(""))
            .map_err(StreamError::Config)
    }

    /// The decoder of message type `name` in an encoded `FileDescriptorSet`.
    pub fn from_descriptor_set(bytes: &[u8], name: &str) -> Result<ProtoDecoder, String> {
        let pool = DescriptorPool::decode(bytes)
            .map_err(|e| format!("not a Protobuf descriptor set: {e}"))?;
        let name = name.trim();
        let message = if name.is_empty() {
            pool.files()
                .find_map(|f| f.messages().next())
                .ok_or("the Protobuf descriptor set holds no message type")?
        } else {
            pool.get_message_by_name(name)
                .or_else(|| pool.all_messages().find(|m| m.name() == name))
                .ok_or_else(|| {
                    format!("the Protobuf descriptor set has no message type '{name}'")
                })?
        };
        Ok(ProtoDecoder { message })
    }

    /// The record of one message.
    pub fn decode(&self, payload: &[u8]) -> Result<Record, String> {
        let m = DynamicMessage::decode(self.message.clone(), payload)
            .map_err(|e| format!("not a Protobuf {}: {e}", self.message.full_name()))?;
        Ok(record(&m))
    }
}

/// A message's fields.
fn record(m: &DynamicMessage) -> Record {
    m.descriptor()
        .fields()
        .map(|f| {
            let value = if f.supports_presence() && !m.has_field(&f) {
                Json::Null
            } else {
                json(&m.get_field(&f), &f.kind())
            };
            (f.name().to_string(), value)
        })
        .collect()
}

fn json(v: &Value, kind: &Kind) -> Json {
    let float = |f: f64| serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number);
    match v {
        Value::Bool(b) => Json::Bool(*b),
        Value::I32(i) => Json::from(*i),
        Value::I64(i) => Json::from(*i),
        Value::U32(u) => Json::from(*u),
        Value::U64(u) => Json::from(*u),
        Value::F32(f) => float(f64::from(*f)),
        Value::F64(f) => float(*f),
        Value::String(s) => Json::String(s.clone()),
        Value::Bytes(b) => Json::String(encode_hex(b)),
        Value::EnumNumber(n) => match kind {
            Kind::Enum(e) => e
                .get_value(*n)
                .map_or_else(|| Json::from(*n), |v| Json::String(v.name().to_string())),
            _ => Json::from(*n),
        },
        Value::Message(m) => Json::Object(record(m)),
        Value::List(items) => Json::Array(items.iter().map(|i| json(i, kind)).collect()),
        Value::Map(entries) => {
            let value_kind = match kind {
                Kind::Message(entry) => entry.map_entry_value_field().kind(),
                other => other.clone(),
            };
            Json::Object(
                entries
                    .iter()
                    .map(|(k, v)| (map_key(k), json(v, &value_kind)))
                    .collect(),
            )
        }
    }
}

fn map_key(k: &MapKey) -> String {
    match k {
        MapKey::Bool(b) => b.to_string(),
        MapKey::I32(i) => i.to_string(),
        MapKey::I64(i) => i.to_string(),
        MapKey::U32(u) => u.to_string(),
        MapKey::U64(u) => u.to_string(),
        MapKey::String(s) => s.clone(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use prost_reflect::prost::Message as _;
    use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
    use prost_reflect::prost_types::{
        DescriptorProto, EnumDescriptorProto, EnumValueDescriptorProto, FieldDescriptorProto,
        FileDescriptorProto, FileDescriptorSet,
    };

    fn field(name: &str, number: i32, ty: Type, label: Label) -> FieldDescriptorProto {
        FieldDescriptorProto {
            name: Some(name.into()),
            number: Some(number),
            r#type: Some(ty as i32),
            label: Some(label as i32),
            json_name: Some(name.into()),
            ..Default::default()
        }
    }

    /// `events.proto` (proto3): `message Event { int64 id = 1; string name = 2; Color color = 3;
    /// repeated string tags = 4; bytes raw = 5; optional double score = 6; }`,
    /// `enum Color { RED = 0; BLUE = 1; }`, as an encoded descriptor set.
    pub(crate) fn event_descriptor_set() -> Vec<u8> {
        let mut color = field("color", 3, Type::Enum, Label::Optional);
        color.type_name = Some(".events.Color".into());
        let mut score = field("score", 6, Type::Double, Label::Optional);
        score.proto3_optional = Some(true);
        score.oneof_index = Some(0);
        let file = FileDescriptorProto {
            name: Some("events.proto".into()),
            package: Some("events".into()),
            syntax: Some("proto3".into()),
            message_type: vec![DescriptorProto {
                name: Some("Event".into()),
                field: vec![
                    field("id", 1, Type::Int64, Label::Optional),
                    field("name", 2, Type::String, Label::Optional),
                    color,
                    field("tags", 4, Type::String, Label::Repeated),
                    field("raw", 5, Type::Bytes, Label::Optional),
                    score,
                ],
                oneof_decl: vec![prost_reflect::prost_types::OneofDescriptorProto {
                    name: Some("_score".into()),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            enum_type: vec![EnumDescriptorProto {
                name: Some("Color".into()),
                value: ["RED", "BLUE"]
                    .iter()
                    .enumerate()
                    .map(|(i, n)| EnumValueDescriptorProto {
                        name: Some((*n).into()),
                        number: Some(i as i32),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }],
            ..Default::default()
        };
        FileDescriptorSet { file: vec![file] }.encode_to_vec()
    }

    /// An encoded `events.Event`.
    pub(crate) fn event(id: i64, name: &str, blue: bool, score: Option<f64>) -> Vec<u8> {
        let pool = DescriptorPool::decode(event_descriptor_set().as_slice()).unwrap();
        let desc = pool.get_message_by_name("events.Event").unwrap();
        let mut m = DynamicMessage::new(desc);
        m.set_field_by_name("id", Value::I64(id));
        m.set_field_by_name("name", Value::String(name.into()));
        m.set_field_by_name("color", Value::EnumNumber(i32::from(blue)));
        m.set_field_by_name(
            "tags",
            Value::List(vec![Value::String("a".into()), Value::String("b".into())]),
        );
        m.set_field_by_name("raw", Value::Bytes(vec![1u8, 0xff].into()));
        if let Some(s) = score {
            m.set_field_by_name("score", Value::F64(s));
        }
        m.encode_to_vec()
    }

    #[test]
    fn decodes_messages_of_a_descriptor_set() {
        let set = event_descriptor_set();
        for name in ["", "events.Event", "Event"] {
            let d = ProtoDecoder::from_descriptor_set(&set, name).unwrap();
            let r = d.decode(&event(5, "ann", true, Some(1.5))).unwrap();
            assert_eq!(r["id"], 5);
            assert_eq!(r["name"], "ann");
            assert_eq!(r["color"], "BLUE");
            assert_eq!(r["tags"], serde_json::json!(["a", "b"]));
            assert_eq!(r["raw"], "01ff");
            assert_eq!(r["score"], 1.5);
        }
        let d = ProtoDecoder::from_descriptor_set(&set, "").unwrap();
        // Unset proto3 fields: defaults, but null where the field has presence.
        let r = d.decode(&event(0, "", false, None)).unwrap();
        assert_eq!(r["id"], 0);
        assert_eq!(r["color"], "RED");
        assert_eq!(r["score"], Json::Null);
        assert!(d.decode(&[0xff, 0xff, 0xff]).is_err());
        assert!(ProtoDecoder::from_descriptor_set(&set, "Nope").is_err());
        assert!(ProtoDecoder::from_descriptor_set(b"junk", "").is_err());
    }
}
