//! [`IdSet`]: the set of ids `IDSET` aggregates and `INIDSET` tests, in Pinot's serialized
//! forms (`IdSets`), so a set built by either system is read by the other.
//!
//! The column's type picks the kind, as Pinot's `IdSets.create` does: INT (and BOOLEAN) ids go
//! into a roaring bitmap, LONG (and TIMESTAMP) ids into a 64-bit roaring map, FLOAT, DOUBLE,
//! STRING and BYTES ids into a Bloom filter (Guava's, `expectedInsertions` and `fpp` sizing it:
//! a test may answer true for an id never added). Here the first id added picks it, which is the
//! same for the values of one column.
//!
//! Serialized (then base64-encoded, `IDSET`'s result and `INIDSET`'s argument), a type byte
//! leads — 0 empty, 1 roaring bitmap, 2 64-bit roaring map, 3 Bloom filter:
//!
//! * bitmap: RoaringBitmap's portable format (no run containers);
//! * 64-bit map: RoaringBitmap's legacy `Roaring64NavigableMap` framing — a byte `0` (unsigned
//!   order), the count of 32-bit bitmaps as a big-endian int, then per high half (ascending,
//!   unsigned) the half as a big-endian int and its bitmap in the portable format;
//! * Bloom filter: the funnel (0 int, 1 long, 2 text, 3 bytes), then Guava's `writeTo` — the
//!   strategy (1, `MURMUR128_MITZ_64`), the hash count, the count of 64-bit words as a
//!   big-endian int, the words big-endian. An id sets bits `(h1 + i·h2) mod bits` for `i <
//!   hashes`, `h1, h2` the halves of its MurmurHash3 x64 128 (seed 0) over the funnel's bytes:
//!   ints and longs little-endian (FLOAT and DOUBLE by their raw bits), text as UTF-16 code
//!   units, bytes as they are.
//!
//! Two sets merge as Pinot's `IdSets.merge`: bitmaps are OR-ed and become a Bloom filter once
//! their serialized size passes `sizeThresholdInBytes`; a bitmap merged into a Bloom filter adds
//! its ids; two Bloom filters OR their bits.

use super::error::SketchError;
use super::hash::murmur3_x64_128;
use crate::types::Value;
use roaring::{RoaringBitmap, RoaringTreemap};

const NAME: &str = "idset";
const TYPE_EMPTY: u8 = 0;
const TYPE_BITMAP: u8 = 1;
const TYPE_LONG_MAP: u8 = 2;
const TYPE_BLOOM: u8 = 3;
/// Guava's `BloomFilterStrategies.MURMUR128_MITZ_64`.
const STRATEGY_MURMUR128_MITZ_64: u8 = 1;

/// `IDSET`'s parameters (`'sizeThresholdInBytes=…;expectedInsertions=…;fpp=…'`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IdSetParams {
    /// A merged bitmap larger than this (serialized) becomes a Bloom filter; at most 0: a
    /// Bloom filter from the start.
    pub size_threshold_in_bytes: i64,
    /// The Bloom filter's expected insertions.
    pub expected_insertions: i64,
    /// The Bloom filter's false-positive probability.
    pub fpp: f64,
}

impl Default for IdSetParams {
    /// Pinot's defaults: 8 MiB, 5,000,000 insertions, 3%.
    fn default() -> Self {
        IdSetParams {
            size_threshold_in_bytes: 8 * 1024 * 1024,
            expected_insertions: 5_000_000,
            fpp: 0.03,
        }
    }
}

impl IdSetParams {
    /// Checks the Bloom filter's sizing (Guava's own checks).
    pub fn validate(self) -> Result<IdSetParams, SketchError> {
        if self.expected_insertions < 0 {
            return Err(invalid(
                self.expected_insertions,
                "expectedInsertions must be >= 0",
            ));
        }
        if !(self.fpp > 0.0 && self.fpp < 1.0) {
            return Err(invalid(self.fpp, "fpp must be in (0, 1)"));
        }
        Ok(self)
    }
}

fn invalid(value: impl ToString, reason: &'static str) -> SketchError {
    SketchError::InvalidParameter {
        sketch: NAME,
        value: value.to_string(),
        reason,
    }
}

fn corrupt(reason: impl Into<String>) -> SketchError {
    SketchError::corrupt(NAME, reason)
}

/// The bytes a Bloom filter hashes, by Guava's funnels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Funnel {
    Int = 0,
    Long = 1,
    Text = 2,
    Bytes = 3,
}

impl Funnel {
    fn of(code: u8) -> Result<Funnel, SketchError> {
        Ok(match code {
            0 => Funnel::Int,
            1 => Funnel::Long,
            2 => Funnel::Text,
            3 => Funnel::Bytes,
            other => return Err(corrupt(format!("unknown Bloom filter funnel {other}"))),
        })
    }

    /// The funnel of a value's type, and its bytes; `None` for a type no id set holds.
    fn bytes(v: &Value) -> Option<(Funnel, Vec<u8>)> {
        Some(match v {
            Value::Int(x) => (Funnel::Int, x.to_le_bytes().to_vec()),
            Value::Boolean(b) => (Funnel::Int, i32::from(*b).to_le_bytes().to_vec()),
            Value::Float(x) => (Funnel::Int, x.to_bits().to_le_bytes().to_vec()),
            Value::Long(x) | Value::Timestamp(x) => (Funnel::Long, x.to_le_bytes().to_vec()),
            Value::Double(x) => (Funnel::Long, x.to_bits().to_le_bytes().to_vec()),
            Value::String(s) | Value::Json(s) => (
                Funnel::Text,
                s.encode_utf16().flat_map(u16::to_le_bytes).collect(),
            ),
            Value::Bytes(b) => (Funnel::Bytes, b.clone()),
            _ => return None,
        })
    }
}

/// Guava's `BloomFilter` with the `MURMUR128_MITZ_64` strategy.
#[derive(Clone, Debug, PartialEq)]
pub struct Bloom {
    funnel: Funnel,
    hashes: u8,
    words: Vec<u64>,
}

impl Bloom {
    /// Guava's `BloomFilter.create(funnel, expectedInsertions, fpp)`.
    fn new(funnel: Funnel, params: IdSetParams) -> Bloom {
        let n = params.expected_insertions.max(1) as f64;
        let ln2 = std::f64::consts::LN_2;
        let bits = ((-n * params.fpp.ln() / (ln2 * ln2)) as i64).max(1);
        let hashes = ((-params.fpp.ln() / ln2).round() as i64).clamp(1, 255) as u8;
        Bloom {
            funnel,
            hashes,
            words: vec![0; (bits as usize).div_ceil(64)],
        }
    }

    /// The bit indexes of `bytes`.
    fn bits(&self, bytes: &[u8]) -> impl Iterator<Item = usize> + use<> {
        let (h1, h2) = murmur3_x64_128(bytes, 0);
        let size = (self.words.len() * 64) as u64;
        (0..u64::from(self.hashes)).map(move |i| {
            let combined = h1.wrapping_add(i.wrapping_mul(h2));
            ((combined & i64::MAX as u64) % size) as usize
        })
    }

    fn put(&mut self, bytes: &[u8]) {
        for b in self.bits(bytes) {
            self.words[b / 64] |= 1 << (b % 64);
        }
    }

    fn might_contain(&self, bytes: &[u8]) -> bool {
        !self.words.is_empty()
            && self
                .bits(bytes)
                .all(|b| self.words[b / 64] & (1 << (b % 64)) != 0)
    }
}

/// A set of ids (see the module's documentation).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum IdSet {
    #[default]
    Empty,
    Ints(RoaringBitmap),
    Longs(RoaringTreemap),
    Bloom(Bloom),
}

impl IdSet {
    /// Adds an id (NULL adds nothing; an array adds its elements). An id of another kind than
    /// the set's (a LONG into a set of INTs) or a BIG_DECIMAL is an error.
    pub fn add(&mut self, v: &Value, params: IdSetParams) -> Result<(), SketchError> {
        match v {
            Value::Null => return Ok(()),
            Value::Array(items) => {
                return items.iter().try_for_each(|x| self.add(x, params));
            }
            _ => {}
        }
        if let IdSet::Empty = self {
            *self = match v {
                Value::Int(_) | Value::Boolean(_) if params.size_threshold_in_bytes > 0 => {
                    IdSet::Ints(RoaringBitmap::new())
                }
                Value::Long(_) | Value::Timestamp(_) if params.size_threshold_in_bytes > 0 => {
                    IdSet::Longs(RoaringTreemap::new())
                }
                other => match Funnel::bytes(other) {
                    Some((funnel, _)) => IdSet::Bloom(Bloom::new(funnel, params)),
                    None => return Err(mismatch(other, "an id set")),
                },
            };
        }
        match (self, v) {
            (IdSet::Ints(b), Value::Int(x)) => {
                b.insert(*x as u32);
            }
            (IdSet::Ints(b), Value::Boolean(x)) => {
                b.insert(u32::from(*x));
            }
            (IdSet::Longs(m), Value::Long(x) | Value::Timestamp(x)) => {
                m.insert(*x as u64);
            }
            (IdSet::Bloom(bloom), v) => match Funnel::bytes(v) {
                Some((funnel, bytes)) if funnel == bloom.funnel => bloom.put(&bytes),
                _ => return Err(mismatch(v, "this Bloom filter")),
            },
            (set, v) => return Err(mismatch(v, set.kind())),
        }
        Ok(())
    }

    fn kind(&self) -> &'static str {
        match self {
            IdSet::Empty => "an empty id set",
            IdSet::Ints(_) => "a set of INT ids",
            IdSet::Longs(_) => "a set of LONG ids",
            IdSet::Bloom(_) => "a Bloom filter",
        }
    }

    /// Whether `v` may be in the set (a Bloom filter may answer true for an id never added).
    /// An id of another type than the set's is an error, as Pinot's; the empty set holds
    /// nothing.
    pub fn contains(&self, v: &Value) -> Result<bool, SketchError> {
        Ok(match (self, v) {
            (IdSet::Empty, _) => false,
            (IdSet::Ints(b), Value::Int(x)) => b.contains(*x as u32),
            (IdSet::Ints(b), Value::Boolean(x)) => b.contains(u32::from(*x)),
            (IdSet::Longs(m), Value::Long(x) | Value::Timestamp(x)) => m.contains(*x as u64),
            (IdSet::Bloom(bloom), v) => match Funnel::bytes(v) {
                Some((funnel, bytes)) if funnel == bloom.funnel => bloom.might_contain(&bytes),
                _ => return Err(mismatch(v, "this Bloom filter")),
            },
            (set, v) => return Err(mismatch(v, set.kind())),
        })
    }

    /// Folds `other` in (Pinot's `IdSets.merge`).
    pub fn merge(&mut self, other: IdSet, params: IdSetParams) -> Result<(), SketchError> {
        let mine = std::mem::take(self);
        *self = match (mine, other) {
            (IdSet::Empty, x) | (x, IdSet::Empty) => x,
            (IdSet::Ints(a), IdSet::Ints(b)) => {
                IdSet::Ints(a | b).bloom_past(params.size_threshold_in_bytes, params)
            }
            (IdSet::Longs(a), IdSet::Longs(b)) => {
                IdSet::Longs(a | b).bloom_past(params.size_threshold_in_bytes, params)
            }
            (IdSet::Bloom(mut a), IdSet::Bloom(b)) => {
                if a.funnel != b.funnel || a.hashes != b.hashes || a.words.len() != b.words.len() {
                    return Err(corrupt("cannot merge Bloom filters of different sizes"));
                }
                a.words.iter_mut().zip(&b.words).for_each(|(x, y)| *x |= y);
                IdSet::Bloom(a)
            }
            (IdSet::Bloom(bloom), ids) | (ids, IdSet::Bloom(bloom)) => {
                let mut set = IdSet::Bloom(bloom);
                set.add_ids_of(&ids, params)?;
                set
            }
            (a, b) => {
                return Err(corrupt(format!(
                    "cannot merge {} and {}",
                    a.kind(),
                    b.kind()
                )));
            }
        };
        Ok(())
    }

    /// A bitmap whose serialized form (type byte included) passes `threshold` as a Bloom
    /// filter of its ids, added in ascending order.
    fn bloom_past(self, threshold: i64, params: IdSetParams) -> IdSet {
        if (self.to_bytes().len() as i64) <= threshold {
            return self;
        }
        let funnel = match &self {
            IdSet::Ints(_) => Funnel::Int,
            _ => Funnel::Long,
        };
        let mut set = IdSet::Bloom(Bloom::new(funnel, params));
        // Ids of the bitmap's own kind always go into a filter of its funnel.
        let _ = set.add_ids_of(&self, params);
        set
    }

    /// Adds every id of a bitmap or map `ids` (ascending) to this set.
    fn add_ids_of(&mut self, ids: &IdSet, params: IdSetParams) -> Result<(), SketchError> {
        match ids {
            IdSet::Ints(b) => b
                .iter()
                .try_for_each(|x| self.add(&Value::Int(x as i32), params)),
            IdSet::Longs(m) => m
                .iter()
                .try_for_each(|x| self.add(&Value::Long(x as i64), params)),
            _ => Ok(()),
        }
    }

    /// Pinot's serialized form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            IdSet::Empty => out.push(TYPE_EMPTY),
            IdSet::Ints(b) => {
                out.push(TYPE_BITMAP);
                // Writing to a vector cannot fail.
                let _ = b.serialize_into(&mut out);
            }
            IdSet::Longs(m) => {
                out.push(TYPE_LONG_MAP);
                out.push(0);
                let halves: Vec<(u32, &RoaringBitmap)> = m.bitmaps().collect();
                out.extend_from_slice(&(halves.len() as i32).to_be_bytes());
                for (high, bitmap) in halves {
                    out.extend_from_slice(&high.to_be_bytes());
                    let _ = bitmap.serialize_into(&mut out);
                }
            }
            IdSet::Bloom(bloom) => {
                out.extend_from_slice(&[
                    TYPE_BLOOM,
                    bloom.funnel as u8,
                    STRATEGY_MURMUR128_MITZ_64,
                    bloom.hashes,
                ]);
                out.extend_from_slice(&(bloom.words.len() as i32).to_be_bytes());
                for w in &bloom.words {
                    out.extend_from_slice(&w.to_be_bytes());
                }
            }
        }
        out
    }

    /// Reads [`IdSet::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<IdSet, SketchError> {
        let (&kind, mut rest) = bytes.split_first().ok_or_else(|| corrupt("no bytes"))?;
        let set = match kind {
            TYPE_EMPTY => IdSet::Empty,
            TYPE_BITMAP => IdSet::Ints(
                RoaringBitmap::deserialize_from(&mut rest)
                    .map_err(|e| corrupt(format!("bad bitmap: {e}")))?,
            ),
            TYPE_LONG_MAP => {
                let signed = take(&mut rest, 1)?[0];
                if signed != 0 {
                    return Err(corrupt("signed 64-bit id maps are not read"));
                }
                let count = be_i32(&mut rest)?;
                let mut halves = Vec::new();
                for _ in 0..count.max(0) {
                    let high = be_i32(&mut rest)? as u32;
                    let bitmap = RoaringBitmap::deserialize_from(&mut rest)
                        .map_err(|e| corrupt(format!("bad bitmap: {e}")))?;
                    halves.push((high, bitmap));
                }
                IdSet::Longs(RoaringTreemap::from_bitmaps(halves))
            }
            TYPE_BLOOM => {
                let head = take(&mut rest, 3)?;
                let funnel = Funnel::of(head[0])?;
                if head[1] != STRATEGY_MURMUR128_MITZ_64 {
                    return Err(corrupt(format!(
                        "unknown Bloom filter strategy {}",
                        head[1]
                    )));
                }
                let hashes = head[2];
                let words = usize::try_from(be_i32(&mut rest)?)
                    .map_err(|_| corrupt("negative Bloom filter size"))?;
                let body = take(
                    &mut rest,
                    words.checked_mul(8).ok_or_else(|| corrupt("size"))?,
                )?;
                let words = body
                    .chunks_exact(8)
                    .map(|c| u64::from_be_bytes(c.try_into().unwrap_or_default()))
                    .collect();
                IdSet::Bloom(Bloom {
                    funnel,
                    hashes,
                    words,
                })
            }
            other => return Err(corrupt(format!("unknown id set type {other}"))),
        };
        if !rest.is_empty() {
            return Err(corrupt(format!("{} bytes after the id set", rest.len())));
        }
        Ok(set)
    }

    /// Base64 of [`IdSet::to_bytes`] (`IDSET`'s result).
    pub fn to_base64(&self) -> String {
        super::sketch_input::base64(&self.to_bytes())
    }

    /// Reads [`IdSet::to_base64`] (`INIDSET`'s argument).
    pub fn from_base64(text: &str) -> Result<IdSet, SketchError> {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .map_err(|e| corrupt(format!("not base64: {e}")))?;
        IdSet::from_bytes(&bytes)
    }
}

fn mismatch(v: &Value, set: &str) -> SketchError {
    let what = match v {
        Value::BigDecimal(_) => "a BIG_DECIMAL id",
        Value::Int(_) | Value::Boolean(_) => "an INT id",
        Value::Long(_) | Value::Timestamp(_) => "a LONG id",
        Value::Float(_) => "a FLOAT id",
        Value::Double(_) => "a DOUBLE id",
        Value::String(_) | Value::Json(_) => "a STRING id",
        Value::Bytes(_) => "a BYTES id",
        _ => "this value",
    };
    corrupt(format!("{what} cannot be in {set}"))
}

fn take<'a>(rest: &mut &'a [u8], n: usize) -> Result<&'a [u8], SketchError> {
    if rest.len() < n {
        return Err(corrupt("truncated"));
    }
    let (head, tail) = rest.split_at(n);
    *rest = tail;
    Ok(head)
}

fn be_i32(rest: &mut &[u8]) -> Result<i32, SketchError> {
    let b = take(rest, 4)?;
    Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set_of(values: &[Value], params: IdSetParams) -> IdSet {
        let mut s = IdSet::default();
        for v in values {
            s.add(v, params).unwrap();
        }
        s
    }

    fn bloom_params(n: i64) -> IdSetParams {
        IdSetParams {
            size_threshold_in_bytes: 0,
            expected_insertions: n,
            fpp: 0.03,
        }
    }

    #[test]
    fn murmur3_is_guavas() {
        // Guava's murmur3_128().hashInt(1): bytes feca28aff5a3958840bee985ee7de4d3.
        let (h1, h2) = murmur3_x64_128(&1i32.to_le_bytes(), 0);
        let mut bytes = h1.to_le_bytes().to_vec();
        bytes.extend_from_slice(&h2.to_le_bytes());
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "feca28aff5a3958840bee985ee7de4d3");
    }

    #[test]
    fn serialized_forms_are_pinots() {
        let d = IdSetParams::default();
        // Computed by Pinot's IdSets (RoaringBitmap, Guava) on the JVM.
        for (set, b64) in [
            (IdSet::Empty, "AA=="),
            (
                set_of(&[Value::Int(1), Value::Int(2), Value::Int(3)], d),
                "ATowAAABAAAAAAACABAAAAABAAIAAwA=",
            ),
            (
                set_of(&[Value::Int(-1), Value::Int(0), Value::Int(70_000)], d),
                "ATowAAADAAAAAAAAAAEAAAD//wAAIAAAACIAAAAkAAAAAABwEf//",
            ),
            (
                set_of(&[Value::Long(1), Value::Long(2), Value::Long(3)], d),
                "AgAAAAABAAAAADowAAABAAAAAAACABAAAAABAAIAAwA=",
            ),
            (
                set_of(&[Value::Long(-1), Value::Long(5), Value::Long(1 << 32)], d),
                "AgAAAAADAAAAADowAAABAAAAAAAAABAAAAAFAAAAAAE6MAAAAQAAAAAAAAAQAAAAAAD/////OjAAAAEAAAD//wAAEAAAAP//",
            ),
            (
                set_of(
                    &[Value::Int(1), Value::Int(2), Value::Int(3)],
                    bloom_params(10),
                ),
                "AwABBQAAAAJIGAAAgAAMAEAgAAkIAAAA",
            ),
            (
                set_of(
                    &[Value::String("a".into()), Value::String("hello".into())],
                    bloom_params(10),
                ),
                "AwIBBQAAAAIkkgAAAICAgAAAAAAACAgA",
            ),
            (
                set_of(&[Value::Double(1.5)], bloom_params(10)),
                "AwEBBQAAAAIACAAACAAACAAAAIAAAIAA",
            ),
        ] {
            assert_eq!(set.to_base64(), b64, "{set:?}");
            assert_eq!(IdSet::from_base64(b64).unwrap(), set);
        }
        // The defaults' Bloom filter: 570,191 words, 5 hashes.
        let big = set_of(
            &[Value::String("x".into())],
            IdSetParams {
                size_threshold_in_bytes: 0,
                ..d
            },
        );
        assert_eq!(big.to_bytes()[..8], [3, 2, 1, 5, 0x00, 0x08, 0xb3, 0x4f]);
    }

    #[test]
    fn membership_merges_and_conversion() {
        let d = IdSetParams::default();
        let evens = set_of(&(0..100).map(|i| Value::Int(i * 2)).collect::<Vec<_>>(), d);
        assert!(evens.contains(&Value::Int(42)).unwrap());
        assert!(!evens.contains(&Value::Int(43)).unwrap());
        assert!(evens.contains(&Value::Long(42)).is_err());
        assert!(!IdSet::Empty.contains(&Value::Long(1)).unwrap());
        let odds = set_of(
            &(0..100).map(|i| Value::Int(i * 2 + 1)).collect::<Vec<_>>(),
            d,
        );
        let mut all = evens.clone();
        all.merge(odds.clone(), d).unwrap();
        assert!((0..200).all(|i| all.contains(&Value::Int(i)).unwrap()));
        // Past the threshold a merged bitmap becomes a Bloom filter holding every id.
        let small = IdSetParams {
            size_threshold_in_bytes: 50,
            expected_insertions: 1000,
            fpp: 0.01,
        };
        let mut merged = evens.clone();
        merged.merge(odds, small).unwrap();
        assert!(matches!(merged, IdSet::Bloom(_)));
        assert!((0..200).all(|i| merged.contains(&Value::Int(i)).unwrap()));
        let misses = (1000..3000)
            .filter(|&i| merged.contains(&Value::Int(i)).unwrap())
            .count();
        assert!(misses < 100, "{misses} false positives of 2000");
        // A bitmap merged into a Bloom filter adds its ids.
        let mut bloom = set_of(&[Value::Int(7)], bloom_params(100));
        bloom.merge(evens, d).unwrap();
        assert!(
            bloom.contains(&Value::Int(7)).unwrap() && bloom.contains(&Value::Int(198)).unwrap()
        );
        // Mixed kinds and bad bytes are errors, never panics.
        let mut ints = set_of(&[Value::Int(1)], d);
        assert!(ints.add(&Value::Long(1), d).is_err());
        assert!(
            IdSet::default()
                .add(&Value::BigDecimal("1.5".into()), d)
                .is_err()
        );
        for bad in [
            "",
            "Ag==",
            "AwABBQAAAAJI",
            "BQ==",
            "AToAAA==",
            "not base64!",
        ] {
            assert!(IdSet::from_base64(bad).is_err(), "{bad}");
        }
    }
}
