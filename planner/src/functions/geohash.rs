//! Geohash functions, as Pinot's `GeohashFunctions`: `encodeGeoHash(lat, lon, precision)`
//! (precision 1 to 12 characters), `decodeGeoHash(hash)` (`[lat, lon]` of the cell's centre),
//! `decodeGeoHashLatitude` / `decodeGeoHashLat`, `decodeGeoHashLongitude` / `decodeGeoHashLon`.
//! As in Pinot, decoding treats a character outside the lower-case base-32 alphabet as if all
//! its bits were set, and the empty hash decodes to `[0, 0]`.

use super::coerce::{int, num, text};
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::types::{DataType, Value};

const D: Returns = Returns::Fixed(DataType::Double);

/// The geohash functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new(
        "encodeGeoHash",
        Arity::Exact(3),
        &[Param::Number, Param::Number, Param::Number],
        Returns::Fixed(DataType::String),
        encode_geohash,
    ),
    FunctionDef::new(
        "decodeGeoHash",
        Arity::Exact(1),
        &[Param::Text],
        Returns::FixedArray(DataType::Double),
        decode_geohash,
    ),
    FunctionDef::new(
        "decodeGeoHashLatitude",
        Arity::Exact(1),
        &[Param::Text],
        D,
        decode_latitude,
    )
    .with_aliases(&["decodeGeoHashLat"]),
    FunctionDef::new(
        "decodeGeoHashLongitude",
        Arity::Exact(1),
        &[Param::Text],
        D,
        decode_longitude,
    )
    .with_aliases(&["decodeGeoHashLon"]),
];

const BASE32: &[u8; 32] = b"0123456789bcdefghjkmnpqrstuvwxyz";

/// The hash of `precision` characters: bits alternate longitude, latitude, each halving its
/// interval (a value on the midpoint goes to the upper half).
fn encode(latitude: f64, longitude: f64, precision: usize) -> String {
    let (mut lat, mut lon) = ((-90.0, 90.0), (-180.0, 180.0));
    let mut even = true;
    let mut out = String::with_capacity(precision);
    for _ in 0..precision {
        let mut index = 0usize;
        for _ in 0..5 {
            let (interval, value): (&mut (f64, f64), f64) = if even {
                (&mut lon, longitude)
            } else {
                (&mut lat, latitude)
            };
            let mid = (interval.0 + interval.1) / 2.0;
            index <<= 1;
            if value >= mid {
                index |= 1;
                interval.0 = mid;
            } else {
                interval.1 = mid;
            }
            even = !even;
        }
        out.push(BASE32[index] as char);
    }
    out
}

/// The centre of the hash's cell, `(latitude, longitude)`.
fn decode(hash: &str) -> (f64, f64) {
    let (mut lat, mut lon) = ((-90.0f64, 90.0f64), (-180.0f64, 180.0f64));
    let mut even = true;
    for c in hash.chars() {
        // Java's indexOf gives -1 (all bits set) for a character outside the alphabet.
        let code = u8::try_from(c)
            .ok()
            .and_then(|b| BASE32.iter().position(|a| *a == b))
            .map_or(-1i32, |p| p as i32);
        for mask in [16, 8, 4, 2, 1] {
            let interval = if even { &mut lon } else { &mut lat };
            let mid = (interval.0 + interval.1) / 2.0;
            if code & mask != 0 {
                interval.0 = mid;
            } else {
                interval.1 = mid;
            }
            even = !even;
        }
    }
    ((lat.0 + lat.1) / 2.0, (lon.0 + lon.1) / 2.0)
}

fn encode_geohash(args: &[Value]) -> Result<Value, FunctionError> {
    let latitude = num("encodeGeoHash", &args[0])?;
    let longitude = num("encodeGeoHash", &args[1])?;
    let precision = int("encodeGeoHash", &args[2])?;
    match usize::try_from(precision) {
        Ok(p @ 1..=12) => Ok(Value::String(encode(latitude, longitude, p))),
        _ => Err(FunctionError::invalid(
            "encodeGeoHash",
            &args[2],
            "length must be between 1 and 12",
        )),
    }
}

fn decode_geohash(args: &[Value]) -> Result<Value, FunctionError> {
    let (lat, lon) = decode(&text(&args[0]));
    Ok(Value::Array(vec![Value::Double(lat), Value::Double(lon)]))
}

fn decode_latitude(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Double(decode(&text(&args[0])).0))
}

fn decode_longitude(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Double(decode(&text(&args[0])).1))
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Result<Value, FunctionError> {
        lookup(name).unwrap().eval(args)
    }

    fn double(v: Value) -> f64 {
        match v {
            Value::Double(d) => d,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn encodes_as_pinot() {
        // Pinot's GeohashFunctionsTest.
        for (lat, lon, precision, hash) in [
            (37.8324, -122.271, 7, "9q9p1xh"),
            (51.5074, -0.1278, 8, "gcpvj0du"),
            (0.0, 0.0, 5, "s0000"),
            (-90.0, -180.0, 12, "000000000000"),
            (90.0, 180.0, 1, "z"),
        ] {
            let args = [
                Value::Double(lat),
                Value::Double(lon),
                Value::Int(precision),
            ];
            assert_eq!(
                call("encodeGeoHash", &args).unwrap(),
                Value::String(hash.into())
            );
        }
        for bad in [0, 13, -1] {
            let args = [Value::Double(1.0), Value::Double(1.0), Value::Int(bad)];
            assert!(call("encodeGeoHash", &args).is_err());
        }
        let null = [Value::Null, Value::Double(1.0), Value::Int(5)];
        assert_eq!(call("encodeGeoHash", &null).unwrap(), Value::Null);
    }

    #[test]
    fn decodes_as_pinot() {
        // Pinot's GeohashFunctionsTest (within 0.001).
        for (hash, lat, lon) in [
            ("9q9p1ds", 37.807, -122.271),
            ("gcpvj0eu", 51.50739431381226, -0.126),
            ("s0000", 0.021, 0.021),
        ] {
            let h = Value::String(hash.into());
            let Value::Array(pair) = call("decodeGeoHash", std::slice::from_ref(&h)).unwrap()
            else {
                panic!()
            };
            assert_eq!(pair.len(), 2);
            assert!((double(pair[0].clone()) - lat).abs() < 0.001);
            assert!((double(pair[1].clone()) - lon).abs() < 0.001);
            for name in [
                "decodeGeoHashLatitude",
                "decodeGeoHashLat",
                "decode_geohash_lat",
            ] {
                let got = double(call(name, std::slice::from_ref(&h)).unwrap());
                assert!((got - lat).abs() < 0.001, "{name}");
            }
            for name in ["decodeGeoHashLongitude", "decodeGeoHashLon"] {
                let got = double(call(name, std::slice::from_ref(&h)).unwrap());
                assert!((got - lon).abs() < 0.001, "{name}");
            }
        }
        // Exact centres: "s" is [0, 45] x [0, 45].
        assert_eq!(
            call("decodeGeoHash", &[Value::String("s".into())]).unwrap(),
            Value::Array(vec![Value::Double(22.5), Value::Double(22.5)])
        );
        assert_eq!(
            call("decodeGeoHash", &[Value::String(String::new())]).unwrap(),
            Value::Array(vec![Value::Double(0.0), Value::Double(0.0)])
        );
        // Outside the alphabet: all bits set, as "z".
        assert_eq!(
            call("decodeGeoHash", &[Value::String("A".into())]).unwrap(),
            call("decodeGeoHash", &[Value::String("z".into())]).unwrap()
        );
        assert_eq!(
            call("decodeGeoHashLat", &[Value::Null]).unwrap(),
            Value::Null
        );
    }
}
