//! UUID functions, as Pinot's `uuid` scalar functions and the UUID helpers of its
//! `StringFunctions`:
//!
//! * `IS_UUID`, `TO_UUID`, `UUID_TO_BYTES`, `UUID_TO_STRING`, `UUID_VERSION`, `UUID_TIMESTAMP`
//!   take a UUID as text or as 16 BYTES. Text must be the canonical `8-4-4-4-12` hex form
//!   (either case) or 32 hex digits; BYTES must be 16 bytes long. Anything else is an error,
//!   except for `IS_UUID`, which answers false.
//! * `BYTES_TO_UUID` reads 16 BYTES (hex text is BYTES, as Pinot converts STRING to BYTES).
//! * `UUID_V4` (random) and `UUID_V7` (Unix-millisecond time, then random bits) make new UUIDs;
//!   they are not deterministic.
//! * `toUUIDBytes` parses text as Java's `UUID.fromString` does (lenient: `1-2-3-4-5` is
//!   `00000001-0002-0003-0004-000000000005`) and gives NULL for text it cannot parse;
//!   `fromUUIDBytes` writes 16 bytes as canonical text.
//!
//! Pinot's logical UUID type has no counterpart in Tessera, which keeps UUIDs as their canonical
//! lower-case text (as Parquet and Avro UUIDs are read): `TO_UUID`, `BYTES_TO_UUID`, `UUID_V4` and
//! `UUID_V7` return that text as STRING.

use super::coerce::{bytes, text};
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::types::value::{decode_hex, encode_hex};
use segments::types::{DataType, Value};
use std::time::{SystemTime, UNIX_EPOCH};

const B: &[Param] = &[Param::Bytes];
const ONE: Arity = Arity::Exact(1);

/// The UUID functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new(
        "IS_UUID",
        ONE,
        B,
        Returns::Fixed(DataType::Boolean),
        is_uuid,
    ),
    FunctionDef::new("TO_UUID", ONE, B, Returns::Fixed(DataType::String), to_uuid),
    FunctionDef::new(
        "UUID_TO_BYTES",
        ONE,
        B,
        Returns::Fixed(DataType::Bytes),
        uuid_to_bytes,
    ),
    FunctionDef::new(
        "UUID_TO_STRING",
        ONE,
        B,
        Returns::Fixed(DataType::String),
        uuid_to_string,
    ),
    FunctionDef::new(
        "UUID_VERSION",
        ONE,
        B,
        Returns::Fixed(DataType::Int),
        uuid_version,
    ),
    FunctionDef::new(
        "UUID_TIMESTAMP",
        ONE,
        B,
        Returns::Fixed(DataType::Long),
        uuid_timestamp,
    ),
    FunctionDef::new(
        "BYTES_TO_UUID",
        ONE,
        B,
        Returns::Fixed(DataType::String),
        bytes_to_uuid,
    ),
    FunctionDef::new(
        "UUID_V4",
        Arity::Exact(0),
        &[],
        Returns::Fixed(DataType::String),
        uuid_v4,
    )
    .nondeterministic(),
    FunctionDef::new(
        "UUID_V7",
        Arity::Exact(0),
        &[],
        Returns::Fixed(DataType::String),
        uuid_v7,
    )
    .nondeterministic(),
    FunctionDef::new(
        "toUUIDBytes",
        ONE,
        &[Param::Text],
        Returns::Fixed(DataType::Bytes),
        to_uuid_bytes,
    ),
    FunctionDef::new(
        "fromUUIDBytes",
        ONE,
        B,
        Returns::Fixed(DataType::String),
        from_uuid_bytes,
    ),
];

type Uuid = [u8; 16];

/// 16 bytes as a UUID (`UuidUtils.toBytes(byte[])`).
fn from_bytes(function: &'static str, b: &[u8]) -> Result<Uuid, FunctionError> {
    b.try_into().map_err(|_| {
        FunctionError::invalid(
            function,
            encode_hex(b),
            format!("invalid UUID byte length: {}, expected: 16", b.len()),
        )
    })
}

/// The canonical `8-4-4-4-12` form (either case), else 32 hex digits (`UuidUtils.toBytes(String)`).
fn parse_text(text: &str) -> Option<Uuid> {
    let t = text.as_bytes();
    let canonical = t.len() == 36
        && t.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        });
    let hex: String = if canonical {
        text.chars().filter(|c| *c != '-').collect()
    } else {
        text.to_string()
    };
    decode_hex(&hex)?.try_into().ok()
}

/// A UUID argument: 16 BYTES, or UUID text.
fn uuid_arg(function: &'static str, v: &Value) -> Result<Uuid, FunctionError> {
    match v {
        Value::Bytes(b) => from_bytes(function, b),
        other => {
            let t = text(other);
            parse_text(&t).ok_or_else(|| FunctionError::invalid(function, &t, "invalid UUID value"))
        }
    }
}

/// Canonical lower-case text.
fn format_uuid(u: &Uuid) -> String {
    segments::types::value::uuid_text(u)
}

fn msb(u: &Uuid) -> u64 {
    u64::from_be_bytes([u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7]])
}

fn version(u: &Uuid) -> u8 {
    u[6] >> 4
}

fn is_uuid(args: &[Value]) -> Result<Value, FunctionError> {
    let valid = match &args[0] {
        Value::Bytes(b) => b.len() == 16,
        other => parse_text(&text(other)).is_some(),
    };
    Ok(Value::Boolean(valid))
}

fn to_uuid(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::String(format_uuid(&uuid_arg("TO_UUID", &args[0])?)))
}

fn uuid_to_bytes(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Bytes(uuid_arg("UUID_TO_BYTES", &args[0])?.to_vec()))
}

fn uuid_to_string(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::String(format_uuid(&uuid_arg(
        "UUID_TO_STRING",
        &args[0],
    )?)))
}

fn uuid_version(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Int(
        version(&uuid_arg("UUID_VERSION", &args[0])?) as i32
    ))
}

/// 100-nanosecond intervals from 1582-10-15 (the Gregorian epoch of v1/v6 UUIDs) to 1970-01-01.
const GREGORIAN_TO_UNIX_100NS: i64 = 0x01b2_1dd2_1381_4000;

fn uuid_timestamp(args: &[Value]) -> Result<Value, FunctionError> {
    const NAME: &str = "UUID_TIMESTAMP";
    let u = uuid_arg(NAME, &args[0])?;
    let m = msb(&u);
    let gregorian = |ticks: u64| (ticks as i64 - GREGORIAN_TO_UNIX_100NS) / 10_000;
    let millis = match version(&u) {
        7 => (m >> 16) as i64,
        // time_high (32) | time_mid (16) | version (4) | time_low (12)
        6 => gregorian((m >> 32) << 28 | ((m >> 16) & 0xffff) << 12 | (m & 0x0fff)),
        // time_low (32) | time_mid (16) | version (4) | time_high (12)
        1 => gregorian((m >> 32) | ((m >> 16) & 0xffff) << 32 | (m & 0x0fff) << 48),
        v => {
            return Err(FunctionError::invalid(
                NAME,
                format_uuid(&u),
                format!(
                    "UUID version {v} is not time-based; only versions 1, 6, and 7 carry an embedded timestamp"
                ),
            ));
        }
    };
    Ok(Value::Long(millis))
}

fn bytes_to_uuid(args: &[Value]) -> Result<Value, FunctionError> {
    const NAME: &str = "BYTES_TO_UUID";
    let b = bytes(NAME, &args[0])?;
    Ok(Value::String(format_uuid(&from_bytes(NAME, &b)?)))
}

fn random_bytes(function: &'static str) -> Result<Uuid, FunctionError> {
    let mut u = [0u8; 16];
    getrandom::getrandom(&mut u)
        .map_err(|e| FunctionError::invalid(function, "", format!("no random source: {e}")))?;
    Ok(u)
}

/// Sets the version nibble and the RFC 4122 variant (`10` in the top bits of byte 8).
fn stamp(mut u: Uuid, version: u8) -> Uuid {
    u[6] = (u[6] & 0x0f) | version << 4;
    u[8] = (u[8] & 0x3f) | 0x80;
    u
}

fn uuid_v4(_: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::String(format_uuid(&stamp(
        random_bytes("UUID_V4")?,
        4,
    ))))
}

fn uuid_v7(_: &[Value]) -> Result<Value, FunctionError> {
    let mut u = random_bytes("UUID_V7")?;
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
        & 0xffff_ffff_ffff;
    u[..6].copy_from_slice(&millis.to_be_bytes()[2..]);
    Ok(Value::String(format_uuid(&stamp(u, 7))))
}

/// Java's `UUID.fromString`: five hex fields split by four dashes (at most 36 characters), each
/// parsed as a signed 64-bit hex number and cut to its field's width.
fn java_uuid_from_string(text: &str) -> Option<Uuid> {
    if text.len() > 36 {
        return None;
    }
    let fields: Vec<&str> = text.split('-').collect();
    let [a, b, c, d, e] = fields.as_slice() else {
        return None;
    };
    let field = |s: &str, bits: u32| {
        i64::from_str_radix(s, 16)
            .ok()
            .map(|v| v as u64 & ((1u64 << bits) - 1))
    };
    let msb = field(a, 32)? << 32 | field(b, 16)? << 16 | field(c, 16)?;
    let lsb = field(d, 16)? << 48 | field(e, 48)?;
    let mut u = [0u8; 16];
    u[..8].copy_from_slice(&msb.to_be_bytes());
    u[8..].copy_from_slice(&lsb.to_be_bytes());
    Some(u)
}

fn to_uuid_bytes(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(java_uuid_from_string(&text(&args[0])).map_or(Value::Null, |u| Value::Bytes(u.to_vec())))
}

fn from_uuid_bytes(args: &[Value]) -> Result<Value, FunctionError> {
    const NAME: &str = "fromUUIDBytes";
    let b = bytes(NAME, &args[0])?;
    Ok(Value::String(format_uuid(&from_bytes(NAME, &b)?)))
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    const UUID: &str = "550e8400-e29b-41d4-a716-446655440000";
    const MIXED_CASE: &str = "550E8400-E29B-41D4-A716-446655440000";
    const UUID_HEX: &str = "550e8400e29b41d4a716446655440000";

    fn call(name: &str, args: &[Value]) -> Result<Value, FunctionError> {
        lookup(name).unwrap().eval(args)
    }

    fn s(text: &str) -> Value {
        Value::String(text.into())
    }

    fn uuid_bytes() -> Value {
        Value::Bytes(decode_hex(UUID_HEX).unwrap())
    }

    #[test]
    fn conversions_accept_text_and_bytes() {
        for input in [s(UUID), s(MIXED_CASE), s(UUID_HEX), uuid_bytes()] {
            let arg = std::slice::from_ref(&input);
            assert_eq!(call("TO_UUID", arg).unwrap(), s(UUID), "{input:?}");
            assert_eq!(call("uuidToString", arg).unwrap(), s(UUID));
            assert_eq!(call("uuid_to_bytes", arg).unwrap(), uuid_bytes());
            assert_eq!(call("UUID_VERSION", arg).unwrap(), Value::Int(4));
            assert_eq!(call("isUuid", arg).unwrap(), Value::Boolean(true));
        }
        assert_eq!(call("BYTES_TO_UUID", &[uuid_bytes()]).unwrap(), s(UUID));
        // BYTES_TO_UUID takes BYTES: text is hex, so canonical text is not bytes.
        assert_eq!(call("bytesToUuid", &[s(UUID_HEX)]).unwrap(), s(UUID));
        assert!(call("BYTES_TO_UUID", &[s(UUID)]).is_err());
    }

    #[test]
    fn invalid_uuids_are_errors_or_false() {
        let invalid = [
            s("550e8400-e29b-41d4-a716-44665544000"),
            s("550e8400-e29b-41d4-a716-4466554400000"),
            s("550e8400-e29b-41d4-a716-44665544000g"),
            s(""),
            s("not-a-uuid"),
            s("550e8400-e29b41d4-a716-4466554400000"),
            Value::Bytes(vec![0; 15]),
            Value::Bytes(vec![0; 17]),
        ];
        for input in invalid {
            let arg = std::slice::from_ref(&input);
            assert_eq!(
                call("IS_UUID", arg).unwrap(),
                Value::Boolean(false),
                "{input:?}"
            );
            for f in [
                "TO_UUID",
                "UUID_TO_BYTES",
                "UUID_TO_STRING",
                "UUID_VERSION",
                "UUID_TIMESTAMP",
            ] {
                assert!(call(f, arg).is_err(), "{f}({input:?})");
            }
        }
        assert!(call("BYTES_TO_UUID", &[Value::Bytes(vec![0; 15])]).is_err());
    }

    #[test]
    fn nulls_propagate() {
        for f in [
            "IS_UUID",
            "TO_UUID",
            "UUID_TO_BYTES",
            "UUID_TO_STRING",
            "UUID_VERSION",
            "UUID_TIMESTAMP",
            "BYTES_TO_UUID",
            "toUUIDBytes",
            "fromUUIDBytes",
        ] {
            assert_eq!(call(f, &[Value::Null]).unwrap(), Value::Null, "{f}");
        }
    }

    #[test]
    fn versions_and_timestamps() {
        // RFC 9562's examples, all at 2022-02-22T19:22:22Z.
        for (text, v) in [
            ("c232ab00-9414-11ec-b3c8-9e6bdeced846", 1),
            ("1ec9414c-232a-6b00-b3c8-9e6bdeced846", 6),
            ("017f22e2-79b0-7cc3-98c4-dc0c0c07398f", 7),
        ] {
            assert_eq!(call("UUID_VERSION", &[s(text)]).unwrap(), Value::Int(v));
            assert_eq!(
                call("UUID_TIMESTAMP", &[s(text)]).unwrap(),
                Value::Long(1_645_557_742_000),
                "{text}"
            );
        }
        // Pinot's fixed v7 sample: unix ms 0x018F00000000.
        assert_eq!(
            call(
                "uuidTimestamp",
                &[s("018f0000-0000-7123-8000-000000000000")]
            )
            .unwrap(),
            Value::Long(0x018F_0000_0000)
        );
        assert_eq!(
            call("UUID_VERSION", &[Value::Bytes(vec![0; 16])]).unwrap(),
            Value::Int(0)
        );
        let err = call("UUID_TIMESTAMP", &[s(UUID)]).unwrap_err();
        assert!(
            err.to_string().contains("version 4 is not time-based"),
            "{err}"
        );
    }

    #[test]
    fn generated_uuids_have_their_version() {
        for (f, v) in [("UUID_V4", 4), ("uuidV7", 7)] {
            assert!(!lookup(f).unwrap().is_deterministic());
            let a = call(f, &[]).unwrap();
            let b = call(f, &[]).unwrap();
            assert_ne!(a, b, "{f}");
            assert_eq!(
                call("UUID_VERSION", std::slice::from_ref(&a)).unwrap(),
                Value::Int(v)
            );
            let Value::String(text) = &a else {
                panic!("{a:?}")
            };
            assert_eq!(call("TO_UUID", std::slice::from_ref(&a)).unwrap(), a);
            // RFC 4122 variant: 8, 9, a or b.
            assert!(
                matches!(text.as_bytes()[19], b'8' | b'9' | b'a' | b'b'),
                "{text}"
            );
        }
        let before = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        let v7 = call("UUID_V7", &[]).unwrap();
        let after = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        let Value::Long(ts) = call("UUID_TIMESTAMP", &[v7]).unwrap() else {
            panic!()
        };
        assert!((before..=after).contains(&ts));
        assert!(call("UUID_V4", &[s("x")]).is_err());
    }

    #[test]
    fn string_uuid_bytes_functions() {
        assert_eq!(call("toUUIDBytes", &[s(UUID)]).unwrap(), uuid_bytes());
        assert_eq!(
            call("to_uuid_bytes", &[s(MIXED_CASE)]).unwrap(),
            uuid_bytes()
        );
        // Java's UUID.fromString is lenient about field widths (and a '+' sign).
        assert_eq!(
            call("toUUIDBytes", &[s("1-2-3-4-5")]).unwrap(),
            Value::Bytes(decode_hex("00000001000200030004000000000005").unwrap())
        );
        assert_eq!(
            call("toUUIDBytes", &[s("+1-2-3-4-5")]).unwrap(),
            Value::Bytes(decode_hex("00000001000200030004000000000005").unwrap())
        );
        // Wider fields are cut to their width.
        assert_eq!(
            call("toUUIDBytes", &[s("123456789-0-0-0-0")]).unwrap(),
            Value::Bytes(decode_hex("23456789000000000000000000000000").unwrap())
        );
        for bad in [
            "",
            "not-a-uuid",
            UUID_HEX,
            "1-2-3-4-5-6",
            "1--3-4-5",
            "1-2-3-4-g",
        ] {
            assert_eq!(
                call("toUUIDBytes", &[s(bad)]).unwrap(),
                Value::Null,
                "{bad}"
            );
        }
        assert_eq!(
            call("toUUIDBytes", &[s("00000000-0000-0000-0000-0000000000001")]).unwrap(),
            Value::Null
        );
        assert_eq!(call("fromUUIDBytes", &[uuid_bytes()]).unwrap(), s(UUID));
        assert_eq!(call("fromUUIDBytes", &[s(UUID_HEX)]).unwrap(), s(UUID));
        assert!(call("fromUUIDBytes", &[Value::Bytes(vec![1, 2])]).is_err());
    }
}
