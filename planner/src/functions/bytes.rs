//! Functions over BYTES and their text encodings:
//!
//! * `md5` (lower-case hex digest, Pinot's `HashFunctions.md5`);
//! * `toUtf8`, `fromUtf8` (invalid sequences become U+FFFD, as Java's decoder), and
//!   `toBytes(text, charset)`, `fromBytes(bytes, charset)` for Java's standard charsets (UTF-8,
//!   US-ASCII, ISO-8859-1, UTF-16/BE/LE, UTF-32/BE/LE and their Java aliases; NULL for a charset
//!   name Java would not know, as Pinot);
//! * `toBase64`, `fromBase64` (text ⇄ BYTES) and `base64Encode`, `base64Decode` (BYTES ⇄ BYTES),
//!   the standard alphabet with Java's decoder rules: padding optional, but when present it must
//!   complete the last 4-character unit and end the input;
//! * `bytesToHex`, `hexToBytes` (lower-case hex out; either case in, an even number of digits);
//! * `bigDecimalToBytes`, `bytesToBigDecimal` in Pinot's `BigDecimalUtils` layout: the scale as
//!   2 big-endian bytes (signed), then the unscaled value's minimal big-endian two's complement
//!   (Java's `BigInteger.toByteArray`);
//! * `hexDecimalToLong` (Java's `Long.parseLong(text, 16)`, after an optional `0x`) and
//!   `longToHexDecimal` (Java's `Long.toHexString`: two's complement, lower case).
//!
//! A BYTES argument also takes hex text, as Pinot converts STRING to BYTES.

use super::coerce::{bytes, int, text};
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use bigdecimal::BigDecimal;
use bigdecimal::num_bigint::BigInt;
use md5::{Digest, Md5};
use segments::types::decimal::{Decimal, MAX_EXPONENT};
use segments::types::java_text::java_double_text;
use segments::types::value::{decode_hex, encode_hex};
use segments::types::{DataType, Value};
use std::str::FromStr;

const S: Returns = Returns::Fixed(DataType::String);
const BY: Returns = Returns::Fixed(DataType::Bytes);
const ONE: Arity = Arity::Exact(1);
const B: &[Param] = &[Param::Bytes];
const T: &[Param] = &[Param::Text];

/// The BYTES functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new("md5", ONE, B, S, md5),
    FunctionDef::new("toUtf8", ONE, T, BY, to_utf8),
    FunctionDef::new("fromUtf8", ONE, B, S, from_utf8),
    FunctionDef::new(
        "toBytes",
        Arity::Exact(2),
        &[Param::Text, Param::Text],
        BY,
        to_bytes,
    ),
    FunctionDef::new(
        "fromBytes",
        Arity::Exact(2),
        &[Param::Bytes, Param::Text],
        S,
        from_bytes,
    ),
    FunctionDef::new("toBase64", ONE, B, S, to_base64),
    FunctionDef::new("fromBase64", ONE, T, BY, from_base64),
    FunctionDef::new("base64Encode", ONE, B, BY, base64_encode),
    FunctionDef::new("base64Decode", ONE, B, BY, base64_decode),
    FunctionDef::new("bytesToHex", ONE, B, S, bytes_to_hex),
    FunctionDef::new("hexToBytes", ONE, T, BY, hex_to_bytes),
    FunctionDef::new(
        "bigDecimalToBytes",
        ONE,
        &[Param::Number],
        BY,
        big_decimal_to_bytes,
    ),
    FunctionDef::new(
        "bytesToBigDecimal",
        ONE,
        B,
        Returns::Fixed(DataType::BigDecimal),
        bytes_to_big_decimal,
    ),
    FunctionDef::new(
        "hexDecimalToLong",
        ONE,
        T,
        Returns::Fixed(DataType::Long),
        hex_decimal_to_long,
    ),
    FunctionDef::new(
        "longToHexDecimal",
        ONE,
        &[Param::Number],
        S,
        long_to_hex_decimal,
    ),
];

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn md5(args: &[Value]) -> Result<Value, FunctionError> {
    let input = bytes("md5", &args[0])?;
    Ok(Value::String(encode_hex(&Md5::digest(&input))))
}

fn to_utf8(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Bytes(text(&args[0]).as_bytes().to_vec()))
}

fn from_utf8(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::String(
        String::from_utf8_lossy(&bytes("fromUtf8", &args[0])?).into_owned(),
    ))
}

/// Standard base64 with padding (Java's `Base64.getEncoder()`).
pub(crate) fn encode_base64(input: &[u8]) -> String {
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Java's `Base64.getDecoder()`: the standard alphabet only; padding may be left out, but
/// padding that is there must complete the last unit and nothing may follow it.
pub(crate) fn decode_base64(input: &[u8]) -> Option<Vec<u8>> {
    let body_len = input.iter().position(|c| *c == b'=').unwrap_or(input.len());
    let (body, padding) = input.split_at(body_len);
    let padding_ok = match (body.len() % 4, padding.len()) {
        (_, 0) => true,
        (2, 2) => padding == b"==",
        (3, 1) => true,
        _ => false,
    };
    if !padding_ok || body.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in body {
        let v = ALPHABET.iter().position(|a| a == c)? as u32;
        acc = (acc << 6 | v) & 0xFF_FFFF;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

fn to_base64(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::String(encode_base64(&bytes("toBase64", &args[0])?)))
}

fn from_base64(args: &[Value]) -> Result<Value, FunctionError> {
    let input = text(&args[0]);
    decode_base64(input.as_bytes())
        .map(Value::Bytes)
        .ok_or_else(|| FunctionError::invalid("fromBase64", &input, "not base64"))
}

fn base64_encode(args: &[Value]) -> Result<Value, FunctionError> {
    let input = bytes("base64Encode", &args[0])?;
    Ok(Value::Bytes(encode_base64(&input).into_bytes()))
}

fn base64_decode(args: &[Value]) -> Result<Value, FunctionError> {
    let input = bytes("base64Decode", &args[0])?;
    decode_base64(&input)
        .map(Value::Bytes)
        .ok_or_else(|| FunctionError::invalid("base64Decode", encode_hex(&input), "not base64"))
}

fn bytes_to_hex(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::String(encode_hex(&bytes("bytesToHex", &args[0])?)))
}

fn hex_to_bytes(args: &[Value]) -> Result<Value, FunctionError> {
    let input = text(&args[0]);
    decode_hex(&input)
        .map(Value::Bytes)
        .ok_or_else(|| FunctionError::invalid("hexToBytes", &input, "not hex encoded"))
}

fn hex_decimal_to_long(args: &[Value]) -> Result<Value, FunctionError> {
    let input = text(&args[0]);
    let digits = input.strip_prefix("0x").unwrap_or(&input);
    // `from_str_radix` takes what Java's `Long.parseLong(s, 16)` takes: an optional sign, then
    // hex digits that fit a signed 64-bit number.
    i64::from_str_radix(digits, 16)
        .map(Value::Long)
        .map_err(|_| FunctionError::invalid("hexDecimalToLong", &input, "not a hex number"))
}

fn long_to_hex_decimal(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::String(format!(
        "{:x}",
        int("longToHexDecimal", &args[0])?
    )))
}

/// A number as Java's `BigDecimal` (its unscaled digits and scale), as Pinot converts it.
fn java_big_decimal(function: &'static str, v: &Value) -> Result<BigDecimal, FunctionError> {
    let invalid = || FunctionError::invalid(function, v, "not a decimal number");
    let text = match v {
        Value::Int(i) => return Ok(BigDecimal::from(*i)),
        Value::Long(i) | Value::Timestamp(i) => return Ok(BigDecimal::from(*i)),
        Value::Boolean(b) => return Ok(BigDecimal::from(*b as i32)),
        Value::Float(f) if f.is_finite() => java_double_text(*f as f64),
        Value::Double(f) if f.is_finite() => java_double_text(*f),
        Value::BigDecimal(s) | Value::String(s) | Value::Json(s) => s.trim().to_string(),
        _ => return Err(invalid()),
    };
    // The catalog's decimal parser checks the syntax and bounds the exponent.
    Decimal::parse(&text).map_err(|_| invalid())?;
    BigDecimal::from_str(&text).map_err(|_| invalid())
}

fn big_decimal_to_bytes(args: &[Value]) -> Result<Value, FunctionError> {
    let (unscaled, scale) =
        java_big_decimal("bigDecimalToBytes", &args[0])?.into_bigint_and_exponent();
    // Java writes the scale's low 16 bits (bounded decimals' scales fit).
    let mut out = (scale as i16).to_be_bytes().to_vec();
    out.extend_from_slice(&unscaled.to_signed_bytes_be());
    Ok(Value::Bytes(out))
}

fn bytes_to_big_decimal(args: &[Value]) -> Result<Value, FunctionError> {
    const NAME: &str = "bytesToBigDecimal";
    let input = bytes(NAME, &args[0])?;
    let invalid = |reason: &str| FunctionError::invalid(NAME, encode_hex(&input), reason);
    let [s0, s1, unscaled @ ..] = input.as_ref() else {
        return Err(invalid("fewer than 2 bytes of scale"));
    };
    if unscaled.is_empty() {
        return Err(invalid("no unscaled value after the scale"));
    }
    let scale = i16::from_be_bytes([*s0, *s1]) as i64;
    let value = BigDecimal::new(BigInt::from_signed_bytes_be(unscaled), scale);
    if scale.abs() > MAX_EXPONENT || value.digits() as i64 > MAX_EXPONENT {
        return Err(invalid("decimal out of range"));
    }
    Ok(Value::BigDecimal(value.to_plain_string()))
}

/// The Java charsets `toBytes`/`fromBytes` know.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Charset {
    Utf8,
    Ascii,
    Latin1,
    /// UTF-16: encodes big-endian after a byte-order mark; decodes by the mark (big-endian without).
    Utf16,
    Utf16Be,
    Utf16Le,
    /// UTF-32: encodes big-endian without a mark; decodes by the mark (big-endian without).
    Utf32,
    Utf32Be,
    Utf32Le,
}

impl Charset {
    /// Java's canonical names and aliases, any case.
    fn lookup(name: &str) -> Option<Charset> {
        let name = name.to_ascii_lowercase();
        Some(match name.as_str() {
            "utf-8" | "utf8" | "unicode-1-1-utf-8" => Charset::Utf8,
            "us-ascii" | "ascii" | "iso646-us" | "us" | "646" | "cp367" | "ibm367" | "csascii"
            | "default" | "iso_646.irv:1983" | "iso_646.irv:1991" | "ansi_x3.4-1968"
            | "ansi_x3.4-1986" | "iso-ir-6" | "ascii7" => Charset::Ascii,
            "iso-8859-1" | "iso8859_1" | "iso_8859_1" | "iso_8859-1" | "iso8859-1" | "8859_1"
            | "latin1" | "l1" | "ibm819" | "ibm-819" | "cp819" | "819" | "csisolatin1"
            | "iso-ir-100" | "iso_8859-1:1987" => Charset::Latin1,
            "utf-16" | "utf_16" | "utf16" | "unicode" | "unicodebig" => Charset::Utf16,
            "utf-16be" | "utf_16be" | "x-utf-16be" | "iso-10646-ucs-2" | "unicodebigunmarked" => {
                Charset::Utf16Be
            }
            "utf-16le" | "utf_16le" | "x-utf-16le" | "unicodelittleunmarked" => Charset::Utf16Le,
            "utf-32" | "utf_32" | "utf32" => Charset::Utf32,
            "utf-32be" | "utf_32be" | "x-utf-32be" => Charset::Utf32Be,
            "utf-32le" | "utf_32le" | "x-utf-32le" => Charset::Utf32Le,
            _ => return None,
        })
    }

    /// `String.getBytes(charset)`: characters the charset cannot hold become `?`.
    fn encode(self, s: &str) -> Vec<u8> {
        let narrow = |limit: u32| {
            s.chars()
                .map(|c| if (c as u32) <= limit { c as u8 } else { b'?' })
                .collect()
        };
        let units16 = |little: bool| {
            s.encode_utf16()
                .flat_map(|u| {
                    if little {
                        u.to_le_bytes()
                    } else {
                        u.to_be_bytes()
                    }
                })
                .collect::<Vec<u8>>()
        };
        let units32 = |little: bool| {
            s.chars()
                .flat_map(|c| {
                    let c = c as u32;
                    if little {
                        c.to_le_bytes()
                    } else {
                        c.to_be_bytes()
                    }
                })
                .collect()
        };
        match self {
            Charset::Utf8 => s.as_bytes().to_vec(),
            Charset::Ascii => narrow(0x7f),
            Charset::Latin1 => narrow(0xff),
            Charset::Utf16 => [0xfe, 0xff].into_iter().chain(units16(false)).collect(),
            Charset::Utf16Be => units16(false),
            Charset::Utf16Le => units16(true),
            Charset::Utf32 | Charset::Utf32Be => units32(false),
            Charset::Utf32Le => units32(true),
        }
    }

    /// `new String(bytes, charset)`: malformed input becomes U+FFFD.
    fn decode(self, b: &[u8]) -> String {
        match self {
            Charset::Utf8 => String::from_utf8_lossy(b).into_owned(),
            Charset::Ascii => b
                .iter()
                .map(|c| if c.is_ascii() { *c as char } else { '\u{fffd}' })
                .collect(),
            Charset::Latin1 => b.iter().map(|c| *c as char).collect(),
            Charset::Utf16 => match b {
                [0xfe, 0xff, rest @ ..] => decode_utf16(rest, false),
                [0xff, 0xfe, rest @ ..] => decode_utf16(rest, true),
                _ => decode_utf16(b, false),
            },
            Charset::Utf16Be => decode_utf16(b, false),
            Charset::Utf16Le => decode_utf16(b, true),
            Charset::Utf32 => match b {
                [0, 0, 0xfe, 0xff, rest @ ..] => decode_utf32(rest, false),
                [0xff, 0xfe, 0, 0, rest @ ..] => decode_utf32(rest, true),
                _ => decode_utf32(b, false),
            },
            Charset::Utf32Be => decode_utf32(b, false),
            Charset::Utf32Le => decode_utf32(b, true),
        }
    }
}

fn decode_utf16(b: &[u8], little: bool) -> String {
    let units = b.chunks_exact(2).map(|p| {
        let pair = [p[0], p[1]];
        if little {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    let mut out: String = char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    if !b.len().is_multiple_of(2) {
        out.push(char::REPLACEMENT_CHARACTER);
    }
    out
}

fn decode_utf32(b: &[u8], little: bool) -> String {
    let mut out: String = b
        .chunks_exact(4)
        .map(|q| {
            let quad = [q[0], q[1], q[2], q[3]];
            let c = if little {
                u32::from_le_bytes(quad)
            } else {
                u32::from_be_bytes(quad)
            };
            char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER)
        })
        .collect();
    if !b.len().is_multiple_of(4) {
        out.push(char::REPLACEMENT_CHARACTER);
    }
    out
}

/// `toBytes(text, charset)`: NULL for a charset Java does not know.
fn to_bytes(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(match Charset::lookup(&text(&args[1])) {
        Some(charset) => Value::Bytes(charset.encode(&text(&args[0]))),
        None => Value::Null,
    })
}

/// `fromBytes(bytes, charset)`: NULL for a charset Java does not know.
fn from_bytes(args: &[Value]) -> Result<Value, FunctionError> {
    let input = bytes("fromBytes", &args[0])?;
    Ok(match Charset::lookup(&text(&args[1])) {
        Some(charset) => Value::String(charset.decode(&input)),
        None => Value::Null,
    })
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Result<Value, FunctionError> {
        lookup(name).unwrap().eval(args)
    }

    #[test]
    fn md5_matches_the_conformance_suite() {
        for (hex, digest) in [
            ("DEADBEEF", "2f249230a8e7c2bf6005ccd2679259ec"),
            ("DE12BEEF", "a85a5fd494d9a538e22b696159931c1b"),
            ("A000", "982569213f522d8fce898806d0a2c357"),
            ("00", "93b885adfe0da089cdf634904fd59f71"),
        ] {
            let bytes = Value::parse(DataType::Bytes, hex).unwrap();
            assert_eq!(
                call("md5", &[bytes]).unwrap(),
                Value::String(digest.into()),
                "{hex}"
            );
        }
        assert_eq!(
            call("md5", &[Value::Bytes(vec![])]).unwrap(),
            Value::String("d41d8cd98f00b204e9800998ecf8427e".into())
        );
        assert!(call("md5", &[Value::String("not hex".into())]).is_err());
    }

    #[test]
    fn encodings_round_trip() {
        assert_eq!(
            call("toUtf8", &[Value::String("hé".into())]).unwrap(),
            Value::Bytes(vec![0x68, 0xc3, 0xa9])
        );
        assert_eq!(
            call("fromUtf8", &[Value::Bytes(vec![0x68, 0xff])]).unwrap(),
            Value::String("h\u{fffd}".into())
        );
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ] {
            let b = Value::Bytes(plain.as_bytes().to_vec());
            assert_eq!(
                call("toBase64", std::slice::from_ref(&b)).unwrap(),
                Value::String(encoded.into())
            );
            assert_eq!(
                call("fromBase64", &[Value::String(encoded.into())]).unwrap(),
                b
            );
        }
        assert_eq!(
            call("fromBase64", &[Value::String("Zm8".into())]).unwrap(),
            Value::Bytes(b"fo".to_vec())
        );
        assert!(call("fromBase64", &[Value::String("Z".into())]).is_err());
        assert!(call("fromBase64", &[Value::String("Zm9v!".into())]).is_err());
    }

    fn hex(h: &str) -> Value {
        Value::Bytes(decode_hex(h).unwrap())
    }

    fn s(text: &str) -> Value {
        Value::String(text.into())
    }

    #[test]
    fn base64_follows_java_decoder_rules() {
        assert_eq!(
            call("base64Encode", &[Value::Bytes(b"hello".to_vec())]).unwrap(),
            Value::Bytes(b"aGVsbG8=".to_vec())
        );
        assert_eq!(
            call("base64_decode", &[Value::Bytes(b"aGVsbG8=".to_vec())]).unwrap(),
            Value::Bytes(b"hello".to_vec())
        );
        // BYTES arguments take hex text: 616263 is "abc".
        assert_eq!(
            call("base64Encode", &[s("616263")]).unwrap(),
            Value::Bytes(b"YWJj".to_vec())
        );
        for bad in ["aGVsbG8==", "Zg=", "Zm9v=", "Zg==x", "Zm 9v", "=", "Zm9vY"] {
            assert!(
                call("base64Decode", &[Value::Bytes(bad.as_bytes().to_vec())]).is_err(),
                "{bad}"
            );
            assert!(call("fromBase64", &[s(bad)]).is_err(), "{bad}");
        }
        assert_eq!(call("base64Decode", &[Value::Null]).unwrap(), Value::Null);
    }

    #[test]
    fn hex_conversions() {
        assert_eq!(
            call("hexToBytes", &[s("f0e1a3b2")]).unwrap(),
            hex("f0e1a3b2")
        );
        assert_eq!(call("hex_to_bytes", &[s("ABC1")]).unwrap(), hex("abc1"));
        assert_eq!(call("hexToBytes", &[s("")]).unwrap(), Value::Bytes(vec![]));
        assert!(call("hexToBytes", &[s("abc")]).is_err());
        assert!(call("hexToBytes", &[s("0xab")]).is_err());
        assert_eq!(
            call("bytesToHex", &[Value::Bytes(vec![0xab, 0xc1])]).unwrap(),
            s("abc1")
        );
        assert_eq!(call("bytesToHex", &[s("ABC1")]).unwrap(), s("abc1"));

        let mut value = 1i64;
        for digits in 0..16 {
            let plain = format!("1{}", "0".repeat(digits));
            assert_eq!(
                call("hexDecimalToLong", &[s(&plain)]).unwrap(),
                Value::Long(value)
            );
            assert_eq!(
                call("hexDecimalToLong", &[s(&format!("0x{plain}"))]).unwrap(),
                Value::Long(value)
            );
            assert_eq!(
                call("longToHexDecimal", &[Value::Long(value)]).unwrap(),
                s(&plain)
            );
            value = value.wrapping_mul(16);
        }
        assert_eq!(call("hexDecimalToLong", &[s("0")]).unwrap(), Value::Long(0));
        assert_eq!(
            call("hexDecimalToLong", &[s("-ff")]).unwrap(),
            Value::Long(-255)
        );
        assert_eq!(
            call("hexDecimalToLong", &[s("0x7fffffffffffffff")]).unwrap(),
            Value::Long(i64::MAX)
        );
        for bad in ["", "0x", "ffffffffffffffff", "0X10", "-0x1", "xyz", "1 "] {
            assert!(call("hexDecimalToLong", &[s(bad)]).is_err(), "{bad}");
        }
        assert_eq!(
            call("longToHexDecimal", &[Value::Long(-1)]).unwrap(),
            s("ffffffffffffffff")
        );
        assert_eq!(
            call("longToHexDecimal", &[Value::Long(i64::MIN)]).unwrap(),
            s("8000000000000000")
        );
        assert_eq!(
            call("longToHexDecimal", &[Value::Int(255)]).unwrap(),
            s("ff")
        );
        assert!(call("longToHexDecimal", &[s("x")]).is_err());
    }

    #[test]
    fn big_decimal_bytes_use_pinot_layout() {
        for (value, bytes) in [
            (Value::BigDecimal("1.50".into()), "00020096"),
            (Value::BigDecimal("-1".into()), "0000ff"),
            (Value::BigDecimal("0".into()), "000000"),
            (Value::BigDecimal("0.0".into()), "000100"),
            (s("1E+3"), "fffd01"),
            (Value::Long(128), "00000080"),
            (Value::Int(-129), "0000ff7f"),
            (Value::Double(10.0), "000164"),
            // BigDecimal.valueOf(1e10) is 1.0E10: unscaled 10, scale -9.
            (Value::Double(1e10), "fff70a"),
            (Value::Double(0.5), "000105"),
            // 2^63 + 0.123 (Pinot's BigDecimalUtilsTest value): unscaled 9223372036854775808123.
            (
                Value::BigDecimal("9223372036854775808.123".into()),
                "000301f4000000000000007b",
            ),
        ] {
            let encoded = call("bigDecimalToBytes", std::slice::from_ref(&value)).unwrap();
            let Value::Bytes(got) = &encoded else {
                panic!("{encoded:?}")
            };
            assert_eq!(encode_hex(got), bytes, "{value:?}");
            let back = call("bytesToBigDecimal", std::slice::from_ref(&encoded)).unwrap();
            let expected = value.to_decimal().unwrap().to_plain_string();
            assert_eq!(back, Value::BigDecimal(expected), "{value:?}");
        }
        assert_eq!(
            call("bytesToBigDecimal", &[hex("00020096")]).unwrap(),
            Value::BigDecimal("1.50".into())
        );
        assert_eq!(
            call("bytesToBigDecimal", &[hex("fffd01")]).unwrap(),
            Value::BigDecimal("1000".into())
        );
        assert!(call("bytesToBigDecimal", &[hex("00")]).is_err());
        assert!(call("bytesToBigDecimal", &[hex("0000")]).is_err());
        assert!(call("bytesToBigDecimal", &[hex("7fff01")]).is_err());
        assert!(call("bigDecimalToBytes", &[s("abc")]).is_err());
        assert!(call("bigDecimalToBytes", &[Value::Double(f64::NAN)]).is_err());
        assert_eq!(
            call("bigDecimalToBytes", &[Value::Null]).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn charsets_as_java() {
        let he = s("hé");
        for (charset, bytes) in [
            ("UTF-8", "68c3a9"),
            ("utf8", "68c3a9"),
            ("ISO-8859-1", "68e9"),
            ("latin1", "68e9"),
            ("US-ASCII", "683f"),
            ("UTF-16", "feff006800e9"),
            ("utf-16le", "6800e900"),
            ("UTF-16BE", "006800e9"),
            ("UTF-32", "00000068000000e9"),
            ("UTF-32LE", "68000000e9000000"),
        ] {
            assert_eq!(
                call("toBytes", &[he.clone(), s(charset)]).unwrap(),
                hex(bytes),
                "{charset}"
            );
            let expected = if charset == "US-ASCII" { "h?" } else { "hé" };
            assert_eq!(
                call("fromBytes", &[hex(bytes), s(charset)]).unwrap(),
                s(expected),
                "{charset}"
            );
        }
        assert_eq!(
            call("fromBytes", &[hex("68e9"), s("ascii")]).unwrap(),
            s("h\u{fffd}")
        );
        assert_eq!(
            call("fromBytes", &[hex("fffe6800"), s("UTF-16")]).unwrap(),
            s("h")
        );
        assert_eq!(
            call("fromBytes", &[hex("0068"), s("UTF-16")]).unwrap(),
            s("h")
        );
        assert_eq!(
            call("fromBytes", &[hex("006800"), s("UTF-16BE")]).unwrap(),
            s("h\u{fffd}")
        );
        assert_eq!(
            call("toBytes", &[s("😀"), s("ISO-8859-1")]).unwrap(),
            hex("3f")
        );
        assert_eq!(
            call("toBytes", &[he.clone(), s("klingon")]).unwrap(),
            Value::Null
        );
        assert_eq!(call("fromBytes", &[hex("68"), s("")]).unwrap(), Value::Null);
        assert_eq!(
            call("toBytes", &[Value::Null, s("UTF-8")]).unwrap(),
            Value::Null
        );
        assert!(call("fromBytes", &[s("xyz"), s("UTF-8")]).is_err());
    }
}
