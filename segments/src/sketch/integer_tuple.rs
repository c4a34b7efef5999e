//! Integer tuple sketches (DataSketches' `tuple.aninteger`), as Pinot's
//! `DISTINCTCOUNTRAWINTEGERSUMTUPLESKETCH` family and `toIntegerSumTupleSketch` /
//! `intSumTupleSketchUnion` / … use them: a theta sketch whose every retained key carries an
//! `IntegerSummary` (a Java `int` and the mode that combines two of them: sum, min, max or
//! always-one).
//!
//! The binary form is DataSketches' compact tuple sketch (serial version 3, family 9) with each
//! summary as Java's `IntegerSummary.toByteArray()` writes it: the value as a little-endian `int`
//! and the mode's ordinal in one byte — so Java's `TupleSketch.heapifySketch(…, new
//! IntegerSummaryDeserializer())` reads what Tessera writes, and the other way round. Keys are
//! hashed as for theta ([`super::datasketch`]); values add up in Java's wrapping `int`.

use super::error::SketchError;
use super::sketch_input::{Item, corrupt, invalid, item, nominal_lg_k, sketch_bytes};
use crate::types::Value;
use datasketches::codec::{SketchBytes, SketchSlice};
use datasketches::error::{Error as CrateError, ErrorKind};
use datasketches::hash::value::{canonical_float, raw_bytes};
use datasketches::tuple::{
    CompactTupleSketch, SummaryCombinePolicy, SummaryPolicy, SummaryUpdatePolicy, TupleANotB,
    TupleIntersection, TupleSketchBuilder, TupleSummaryValue, TupleUnion, TupleUnionBuilder,
};

/// Pinot's `DEFAULT_TUPLE_SKETCH_LGK`: 2^14 nominal entries.
pub const DEFAULT_TUPLE_LG_K: u8 = 14;

/// A compact integer tuple sketch.
pub type IntegerTupleSketch = CompactTupleSketch<IntegerSummary>;

/// How two summaries of one key combine (Java's `IntegerSummary.Mode`, in ordinal order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummaryMode {
    Sum,
    Min,
    Max,
    AlwaysOne,
}

impl SummaryMode {
    const ALL: [SummaryMode; 4] = [
        SummaryMode::Sum,
        SummaryMode::Min,
        SummaryMode::Max,
        SummaryMode::AlwaysOne,
    ];
}

/// One key's value and mode (Java's `IntegerSummary`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntegerSummary {
    value: i32,
    mode: SummaryMode,
}

impl IntegerSummary {
    /// The identity of a mode, as Java's constructor sets it.
    fn new(mode: SummaryMode) -> IntegerSummary {
        let value = match mode {
            SummaryMode::Sum => 0,
            SummaryMode::Min => i32::MAX,
            SummaryMode::Max => i32::MIN,
            SummaryMode::AlwaysOne => 1,
        };
        IntegerSummary { value, mode }
    }

    fn update(&mut self, x: i32) {
        self.value = match self.mode {
            SummaryMode::Sum => self.value.wrapping_add(x),
            SummaryMode::Min => self.value.min(x),
            SummaryMode::Max => self.value.max(x),
            SummaryMode::AlwaysOne => 1,
        };
    }

    /// The summary's value.
    pub fn value(&self) -> i32 {
        self.value
    }
}

impl TupleSummaryValue for IntegerSummary {
    fn serialize_size(&self) -> usize {
        5
    }

    fn serialize_value(&self, bytes: &mut SketchBytes) {
        bytes.write_i32_le(self.value);
        bytes.write_u8(self.mode as u8);
    }

    fn deserialize_value(cursor: &mut SketchSlice<'_>) -> Result<Self, CrateError> {
        let short = |_| CrateError::new(ErrorKind::InvalidData, "integer summary: too few bytes");
        let value = cursor.read_i32_le().map_err(short)?;
        let mode = cursor.read_u8().map_err(short)?;
        let mode = *SummaryMode::ALL.get(usize::from(mode)).ok_or_else(|| {
            CrateError::new(
                ErrorKind::InvalidData,
                format!("integer summary mode {mode}"),
            )
        })?;
        Ok(IntegerSummary { value, mode })
    }
}

/// Creates, updates and combines summaries of one mode (Java's `IntegerSummaryFactory` and
/// `IntegerSummarySetOperations` with the same mode for union and intersection).
#[derive(Clone, Copy, Debug)]
struct Policy(SummaryMode);

impl SummaryPolicy for Policy {
    type Summary = IntegerSummary;

    fn create(&self) -> IntegerSummary {
        IntegerSummary::new(self.0)
    }
}

impl SummaryUpdatePolicy<i32> for Policy {
    fn update(&self, summary: &mut IntegerSummary, value: i32) {
        summary.update(value);
    }
}

impl SummaryCombinePolicy for Policy {
    fn combine(&self, summary: &mut IntegerSummary, other: &IntegerSummary) {
        let mut combined = IntegerSummary::new(self.0);
        combined.update(summary.value);
        combined.update(other.value);
        *summary = combined;
    }
}

fn tuple_error(e: impl std::fmt::Display) -> SketchError {
    corrupt("tuple", e)
}

fn check_lg_k(lg_k: i64) -> Result<u8, SketchError> {
    match u8::try_from(lg_k) {
        Ok(k) if (5..=26).contains(&k) => Ok(k),
        _ => Err(invalid("tuple", lg_k, "lgK must be between 5 and 26")),
    }
}

/// `lgK` for a nominal-entries count (rounded up to a power of two, as Java's `TupleUnion`).
pub fn tuple_lg_k(nominal_entries: i64) -> Result<u8, SketchError> {
    nominal_lg_k("tuple", nominal_entries)
}

/// Reads a serialized integer tuple sketch.
pub fn integer_tuple_from_bytes(bytes: &[u8]) -> Result<IntegerTupleSketch, SketchError> {
    IntegerTupleSketch::deserialize(bytes).map_err(tuple_error)
}

/// Reads an integer tuple sketch argument (BYTES, or base64 text).
pub fn integer_tuple_from_value(v: &Value) -> Result<IntegerTupleSketch, SketchError> {
    integer_tuple_from_bytes(&sketch_bytes(v, "tuple")?)
}

/// `toIntegerSumTupleSketch(key, value, lgK)`: a sum-mode sketch of one key and its value; empty
/// when either is NULL.
pub fn integer_sum_tuple_of(
    key: &Value,
    value: Option<i32>,
    lg_k: i64,
) -> Result<Vec<u8>, SketchError> {
    let mut sketch = TupleSketchBuilder::new(Policy(SummaryMode::Sum))
        .lg_k(check_lg_k(lg_k)?)
        .build()
        .map_err(tuple_error)?;
    if let (Some(value), Some(key)) = (value, item(key)) {
        match key {
            Item::Long(x) => sketch.update(x, value),
            Item::Double(x) => sketch.update(canonical_float::from_f64(x), value),
            Item::Bytes(b) => sketch.update(raw_bytes::from_slice(&b), value),
        }
    }
    Ok(sketch.compact(true).serialize())
}

/// A union of integer tuple sketches.
#[derive(Debug)]
pub struct IntegerTupleUnion {
    union: TupleUnion<Policy>,
}

impl IntegerTupleUnion {
    /// An empty union keeping up to 2^`lg_k` entries, combining summaries by `mode`.
    pub fn new(mode: SummaryMode, lg_k: u8) -> Result<IntegerTupleUnion, SketchError> {
        let union = TupleUnionBuilder::new(Policy(mode))
            .lg_k(check_lg_k(i64::from(lg_k))?)
            .build()
            .map_err(tuple_error)?;
        Ok(IntegerTupleUnion { union })
    }

    /// Folds a sketch in.
    pub fn update(&mut self, sketch: &IntegerTupleSketch) -> Result<(), SketchError> {
        self.union.update(sketch).map_err(tuple_error)
    }

    /// The union so far, unordered as Pinot's `getResult()`.
    pub fn result(&self) -> IntegerTupleSketch {
        self.union.to_sketch(false)
    }
}

/// The union of sketches (`intSumTupleSketchUnion(nominalEntries, a, b)` and its min/max forms).
pub fn integer_tuple_union_all(
    mode: SummaryMode,
    lg_k: u8,
    sketches: &[IntegerTupleSketch],
) -> Result<IntegerTupleSketch, SketchError> {
    let mut union = IntegerTupleUnion::new(mode, lg_k)?;
    for s in sketches {
        union.update(s)?;
    }
    Ok(union.result())
}

/// The intersection of sketches, summaries of common keys combined by `mode`.
pub fn integer_tuple_intersect_all(
    mode: SummaryMode,
    sketches: &[IntegerTupleSketch],
) -> Result<IntegerTupleSketch, SketchError> {
    let mut intersection = TupleIntersection::new(Policy(mode));
    for s in sketches {
        intersection.update(s).map_err(tuple_error)?;
    }
    intersection
        .to_sketch(false)
        .ok_or_else(|| tuple_error("intersection of no sketches"))
}

/// The keys of `a` not in `b`, with `a`'s summaries (`intSumTupleSketchDiff`).
pub fn integer_tuple_diff(
    a: &IntegerTupleSketch,
    b: &IntegerTupleSketch,
) -> Result<IntegerTupleSketch, SketchError> {
    TupleANotB::default()
        .compute(a, b, false)
        .map_err(tuple_error)
}

/// The sum of the retained summaries' values.
fn retained_total(s: &IntegerTupleSketch) -> f64 {
    s.iter().map(|e| f64::from(e.summary().value)).sum()
}

/// The sum of the retained summaries scaled by theta, rounded (`SUMVALUESINTEGERSUMTUPLESKETCH`).
pub fn sum_values_estimate(s: &IntegerTupleSketch) -> i64 {
    (retained_total(s) / s.theta()).round() as i64
}

/// The mean of the retained summaries, rounded; `None` with none retained
/// (`AVGVALUEINTEGERSUMTUPLESKETCH`).
pub fn average_value_estimate(s: &IntegerTupleSketch) -> Option<i64> {
    let n = s.num_retained();
    if s.is_empty() || n == 0 {
        return None;
    }
    Some((retained_total(s) / n as f64).round() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sketch(key: Value, value: i32) -> IntegerTupleSketch {
        integer_tuple_from_bytes(&integer_sum_tuple_of(&key, Some(value), 14).unwrap()).unwrap()
    }

    /// Bytes DataSketches Java 9 writes for `new IntegerTupleSketch(14, Sum)` updated with
    /// `update(1L, 5)` then `compact().toByteArray()`: one preamble long (single item), serial
    /// version 3, family 9, sketch type 1, flags read-only|compact, the seed hash 0x93cc, the
    /// hash, then the summary (5, Sum).
    #[test]
    fn single_item_matches_java_layout() {
        let bytes = integer_sum_tuple_of(&Value::Long(1), Some(5), 14).unwrap();
        assert_eq!(&bytes[..4], &[1, 3, 9, 1]);
        assert_eq!(&bytes[6..8], &[0xcc, 0x93]);
        assert_eq!(bytes.len(), 8 + 8 + 5);
        assert_eq!(&bytes[16..], &[5, 0, 0, 0, 0]);
        // The same key hashes as a theta sketch of it.
        let theta = super::super::datasketch::theta_of_value(&Value::Long(1), 4096).unwrap();
        assert_eq!(&bytes[8..16], &theta[8..16]);
    }

    #[test]
    fn set_operations_combine_summaries_by_mode() {
        let a = sketch(Value::String("k".into()), 3);
        let b = sketch(Value::String("k".into()), 4);
        let c = sketch(Value::Int(9), 10);
        let sum = integer_tuple_union_all(SummaryMode::Sum, 14, &[a.clone(), b.clone(), c.clone()])
            .unwrap();
        assert_eq!(sum.estimate(), 2.0);
        assert_eq!(sum_values_estimate(&sum), 17);
        assert_eq!(average_value_estimate(&sum), Some(9)); // (7 + 10) / 2 = 8.5 → 9
        let min = integer_tuple_union_all(SummaryMode::Min, 14, &[a.clone(), b.clone()]).unwrap();
        assert_eq!(sum_values_estimate(&min), 3);
        let max = integer_tuple_union_all(SummaryMode::Max, 14, &[a.clone(), b.clone()]).unwrap();
        assert_eq!(sum_values_estimate(&max), 4);
        let both =
            integer_tuple_intersect_all(SummaryMode::Sum, &[sum.clone(), a.clone()]).unwrap();
        assert_eq!(both.estimate(), 1.0);
        assert_eq!(sum_values_estimate(&both), 10);
        let diff = integer_tuple_diff(&sum, &a).unwrap();
        assert_eq!(diff.estimate(), 1.0);
        assert_eq!(sum_values_estimate(&diff), 10);
        // Round trip, and an empty sketch for a NULL key or value.
        let back = integer_tuple_from_bytes(&sum.serialize()).unwrap();
        assert_eq!(sum_values_estimate(&back), 17);
        let empty = integer_sum_tuple_of(&Value::Null, Some(1), 14).unwrap();
        let empty = integer_tuple_from_bytes(&empty).unwrap();
        assert!(empty.is_empty());
        assert_eq!(average_value_estimate(&empty), None);
        assert!(integer_sum_tuple_of(&Value::Int(1), Some(1), 40).is_err());
        assert!(integer_tuple_from_bytes(b"junk").is_err());
    }

    #[test]
    fn estimation_mode_scales_the_sum() {
        let mut union = IntegerTupleUnion::new(SummaryMode::Sum, 5).unwrap();
        for i in 0..10_000 {
            union.update(&sketch(Value::Long(i), 2)).unwrap();
        }
        let s = union.result();
        assert!(s.is_estimation_mode());
        let count = s.estimate();
        assert!((7_000.0..13_000.0).contains(&count), "{count}");
        let total = sum_values_estimate(&s);
        assert!((14_000..26_000).contains(&total), "{total}");
        assert_eq!(average_value_estimate(&s), Some(2));
    }
}
