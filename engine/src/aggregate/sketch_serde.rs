//! Serde for the sketches inside [`super::AggState`]: each travels as its own versioned byte
//! encoding (`to_bytes` / `from_bytes`), so a broker decodes exactly what a server encoded.

use crate::sketch::datasketch::DataSketch;
use crate::sketch::{HyperLogLog, QuantileDigest, TDigest};
use serde::{Deserialize, Deserializer, Serializer};

/// A sketch with a byte encoding.
pub trait SketchBytes: Sized {
    fn encode(&self) -> Vec<u8>;
    fn decode(bytes: &[u8]) -> Result<Self, String>;
}

/// A boxed sketch (the large ones, so that every [`super::AggState`] stays small) travels as
/// the sketch itself.
impl<T: SketchBytes> SketchBytes for Box<T> {
    fn encode(&self) -> Vec<u8> {
        (**self).encode()
    }
    fn decode(bytes: &[u8]) -> Result<Self, String> {
        T::decode(bytes).map(Box::new)
    }
}

impl SketchBytes for HyperLogLog {
    fn encode(&self) -> Vec<u8> {
        self.to_bytes()
    }
    fn decode(bytes: &[u8]) -> Result<Self, String> {
        HyperLogLog::from_bytes(bytes).map_err(|e| e.to_string())
    }
}

impl SketchBytes for TDigest {
    fn encode(&self) -> Vec<u8> {
        self.to_bytes()
    }
    fn decode(bytes: &[u8]) -> Result<Self, String> {
        TDigest::from_bytes(bytes).map_err(|e| e.to_string())
    }
}

impl SketchBytes for QuantileDigest {
    fn encode(&self) -> Vec<u8> {
        self.to_bytes()
    }
    fn decode(bytes: &[u8]) -> Result<Self, String> {
        QuantileDigest::from_bytes(bytes).map_err(|e| e.to_string())
    }
}

impl SketchBytes for DataSketch {
    fn encode(&self) -> Vec<u8> {
        self.to_bytes()
    }
    fn decode(bytes: &[u8]) -> Result<Self, String> {
        DataSketch::from_bytes(bytes).map_err(|e| e.to_string())
    }
}

/// `#[serde(with = "sketch_serde")]`.
pub fn serialize<T: SketchBytes, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bytes(&v.encode())
}

/// `#[serde(with = "sketch_serde")]`.
pub fn deserialize<'de, T: SketchBytes, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    let bytes = Vec::<u8>::deserialize(d)?;
    T::decode(&bytes).map_err(serde::de::Error::custom)
}
