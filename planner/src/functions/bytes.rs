//! Functions over BYTES: `md5` (lower-case hex digest, Pinot's `HashFunctions.md5`),
//! `toUtf8`, `fromUtf8` (invalid sequences become U+FFFD, as Java's decoder), `toBase64`,
//! `fromBase64` (standard alphabet; padding optional, as Java's decoder).

use super::coerce::{bytes, text};
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use md5::{Digest, Md5};
use segments::types::value::encode_hex;
use segments::types::{DataType, Value};

const S: Returns = Returns::Fixed(DataType::String);
const BY: Returns = Returns::Fixed(DataType::Bytes);

/// The BYTES functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new("md5", Arity::Exact(1), &[Param::Bytes], S, md5),
    FunctionDef::new("toUtf8", Arity::Exact(1), &[Param::Text], BY, to_utf8),
    FunctionDef::new("fromUtf8", Arity::Exact(1), &[Param::Bytes], S, from_utf8),
    FunctionDef::new("toBase64", Arity::Exact(1), &[Param::Bytes], S, to_base64),
    FunctionDef::new(
        "fromBase64",
        Arity::Exact(1),
        &[Param::Text],
        BY,
        from_base64,
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

fn to_base64(args: &[Value]) -> Result<Value, FunctionError> {
    let input = bytes("toBase64", &args[0])?;
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
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
    Ok(Value::String(out))
}

fn from_base64(args: &[Value]) -> Result<Value, FunctionError> {
    let input = text(&args[0]);
    let invalid = || FunctionError::invalid("fromBase64", &input, "not base64");
    let body = input.trim_end_matches('=');
    if input.len() - body.len() > 2 || body.len() % 4 == 1 {
        return Err(invalid());
    }
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in body.bytes() {
        let v = ALPHABET.iter().position(|a| *a == c).ok_or_else(invalid)? as u32;
        acc = (acc << 6 | v) & 0xFF_FFFF;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Ok(Value::Bytes(out))
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
}
