//! Apache DataSketches sketches (the `datasketches` crate) as Pinot uses them: theta and CPC
//! distinct counts, frequent items, KLL quantiles — in the binary formats Java, C++ and Python
//! DataSketches read — and hash4j's UltraLogLog ([`super::ull`]) and stream-lib's HyperLogLog++
//! ([`super::hll_plus`]), which Pinot aggregates the same way.
//!
//! Values are hashed as Pinot's calls to DataSketches Java's `update` hash them: integers
//! (INT, LONG, TIMESTAMP, BOOLEAN as 0/1) as `update(long)`, FLOAT and DOUBLE as
//! `update(double)` (the canonical bits of the widened double: `-0.0` is `0.0`, one NaN),
//! text as `update(String)` (its UTF-8 bytes) and BYTES as `update(byte[])`; empty text and
//! empty bytes are skipped, as Java skips them. BIG_DECIMAL hashes its text (Pinot's
//! `toThetaSketch` does so).
//!
//! [`SketchBuilder`] is one group's sketch while a segment is read (values and serialized
//! sketches of a BYTES column go in); [`DataSketch`] the immutable, mergeable result that
//! servers exchange ([`DataSketch::to_bytes`]) and the broker finalizes.

use super::error::SketchError;
use super::hll_plus::HyperLogLogPlus;
use super::id_set::{IdSet, IdSetParams};
use super::integer_tuple::{
    IntegerTupleSketch, IntegerTupleUnion, SummaryMode, integer_tuple_from_bytes,
};
use super::sketch_input::{Item, corrupt, invalid, item, nominal_lg_k};
pub use super::sketch_input::{base64, sketch_bytes};
use super::ull::UltraLogLog;
use crate::types::Value;
use crate::types::java_text::java_double_text;
use datasketches::common::{NumStdDev, SearchCriteria};
pub use datasketches::cpc::CpcSketch as Cpc;
use datasketches::cpc::{CpcSketch, CpcUnion};
use datasketches::frequencies::FrequentItemsSketch;
use datasketches::hash::value::{canonical_float, raw_bytes};
use datasketches::kll::{KllFloat, KllSketch};
pub use datasketches::theta::CompactThetaSketch;
use datasketches::theta::{
    ThetaANotB, ThetaIntersection, ThetaSketch, ThetaSketchBuilder, ThetaUnion, ThetaUnionBuilder,
};

/// DISTINCTCOUNTTHETASKETCH's default nominal entries (DataSketches' `DEFAULT_NOMINAL_ENTRIES`).
pub const DEFAULT_THETA_NOMINAL_ENTRIES: u32 = 4096;
/// `toThetaSketch`'s default nominal entries (Pinot's `DEFAULT_THETA_SKETCH_NOMINAL_ENTRIES`).
pub const DEFAULT_THETA_SCALAR_NOMINAL_ENTRIES: u32 = 16384;
/// Default CPC `lgK` (Pinot's `DEFAULT_CPC_SKETCH_LGK`).
pub const DEFAULT_CPC_LG_K: u8 = 12;
/// Default KLL `k` (Pinot's `DEFAULT_KLL_SKETCH_K`).
pub const DEFAULT_KLL_K: u16 = 200;
/// FREQUENTSTRINGSSKETCH / FREQUENTLONGSSKETCH default `maxMapSize`.
pub const DEFAULT_FREQUENT_MAX_MAP_SIZE: u32 = 256;

/// The kind and parameters of a sketch aggregation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SketchKind {
    Theta {
        lg_k: u8,
        p: f32,
    },
    Cpc {
        lg_k: u8,
    },
    FrequentStrings {
        max_map_size: u32,
    },
    FrequentLongs {
        max_map_size: u32,
    },
    Kll {
        k: u16,
    },
    /// An integer tuple sketch of sum-mode summaries, fed serialized sketches only.
    IntegerTuple {
        lg_k: u8,
    },
    /// hash4j's UltraLogLog of `2^p` registers (Pinot's ULL functions).
    Ull {
        p: u8,
    },
    /// stream-lib's HyperLogLog++ of precision `p`, sparse precision `sp` (Pinot's HLL+
    /// functions).
    HllPlus {
        p: u8,
        sp: u8,
    },
    /// Pinot's id set (`IDSET`): a bitmap of ids or a Bloom filter.
    IdSet(IdSetParams),
}

impl SketchKind {
    /// Whether a single-value BYTES argument holds serialized sketches to merge (an id set's
    /// BYTES are ids).
    pub fn takes_serialized(self) -> bool {
        !matches!(self, SketchKind::IdSet(_))
    }

    /// Checks the parameters the way the crate will (so building never fails later).
    pub fn validate(self) -> Result<SketchKind, SketchError> {
        SketchBuilder::new(self).map(|_| self)
    }
}

/// `lgK` for Java's `setNominalEntries(n)`: the log2 of `n` rounded up to a power of two.
pub fn theta_lg_k(nominal_entries: i64) -> Result<u8, SketchError> {
    nominal_lg_k("theta", nominal_entries)
}

/// `lgK` of a power of two (CPC's `nominalEntries` parameter, Java's `exactLog2OfInt`).
pub fn exact_log2(n: i64) -> Result<u8, SketchError> {
    if n <= 0 || n & (n - 1) != 0 {
        return Err(SketchError::InvalidParameter {
            sketch: "cpc",
            value: n.to_string(),
            reason: "nominalEntries must be a positive power of 2",
        });
    }
    Ok(n.trailing_zeros() as u8)
}

macro_rules! hash_into {
    ($sketch:expr, $item:expr) => {
        match $item {
            Item::Long(x) => $sketch.update(x),
            Item::Double(x) => $sketch.update(canonical_float::from_f64(x)),
            Item::Bytes(b) => $sketch.update(raw_bytes::from_slice(&b)),
        }
    };
}

// ---------------------------------------------------------------------------------------
// Theta

fn theta_sketch(lg_k: u8, p: f32) -> Result<ThetaSketch, SketchError> {
    ThetaSketchBuilder::default()
        .lg_k(lg_k)
        .sampling_probability(p)
        .build()
        .map_err(|e| SketchError::InvalidParameter {
            sketch: "theta",
            value: format!("lgK={lg_k}, samplingProbability={p}"),
            reason: leak_reason(e.message()),
        })
}

fn theta_union(lg_k: u8, p: f32) -> ThetaUnion {
    ThetaUnionBuilder::default()
        .lg_k(lg_k)
        .sampling_probability(p)
        .build()
        .or_else(|_| ThetaUnionBuilder::default().build())
        .expect("the default theta union builds")
}

/// The crate's messages are dynamic; parameter errors keep a fixed reason.
fn leak_reason(_message: &str) -> &'static str {
    "out of the supported range"
}

/// Reads a serialized theta sketch (compact, any of the formats DataSketches writes).
pub fn theta_from_bytes(bytes: &[u8]) -> Result<CompactThetaSketch, SketchError> {
    CompactThetaSketch::deserialize(bytes).map_err(|e| corrupt("theta", e))
}

/// Reads a theta sketch argument (BYTES, or base64 text).
pub fn theta_from_value(v: &Value) -> Result<CompactThetaSketch, SketchError> {
    theta_from_bytes(&sketch_bytes(v, "theta")?)
}

/// The union of sketches (the default nominal entries of DataSketches' set operations), unordered
/// as Pinot's `getResult(false, null)`.
pub fn theta_union_all(sketches: &[CompactThetaSketch]) -> Result<CompactThetaSketch, SketchError> {
    let mut union = theta_union(theta_lg_k(DEFAULT_THETA_NOMINAL_ENTRIES as i64)?, 1.0);
    for s in sketches {
        union.update(s).map_err(|e| corrupt("theta", e))?;
    }
    Ok(union.to_sketch(false))
}

/// The intersection of sketches.
pub fn theta_intersect_all(
    sketches: &[CompactThetaSketch],
) -> Result<CompactThetaSketch, SketchError> {
    let mut intersection = ThetaIntersection::default();
    for s in sketches {
        intersection.update(s).map_err(|e| corrupt("theta", e))?;
    }
    intersection
        .to_sketch(false)
        .ok_or_else(|| corrupt("theta", "intersection of no sketches"))
}

/// `a` and not `b`.
pub fn theta_diff(
    a: &CompactThetaSketch,
    b: &CompactThetaSketch,
) -> Result<CompactThetaSketch, SketchError> {
    ThetaANotB::default()
        .compute(a, b, false)
        .map_err(|e| corrupt("theta", e))
}

/// `toThetaSketch(value, nominalEntries)`: a sketch of one value (none for NULL), compact and
/// ordered as Java's `compact()`.
pub fn theta_of_value(v: &Value, nominal_entries: i64) -> Result<Vec<u8>, SketchError> {
    let mut sketch = theta_sketch(theta_lg_k(nominal_entries)?, 1.0)?;
    if let Some(i) = item(v) {
        hash_into!(sketch, i);
    }
    Ok(sketch.compact(true).serialize())
}

/// The summary DataSketches Java prints for a theta sketch (`Sketch.toString()`).
pub fn theta_summary(s: &CompactThetaSketch) -> String {
    let seed_hash = s.seed_hash();
    format!(
        "\n### HeapCompactSketch SUMMARY: \n   Estimate                : {}\n   Upper Bound, 95% conf   : {}\n   Lower Bound, 95% conf   : {}\n   Theta (double)          : {}\n   Theta (long)            : {}\n   Theta (long) hex        : {:016x}\n   EstMode?                : {}\n   Empty?                  : {}\n   Ordered?                : {}\n   Retained Entries        : {}\n   Seed Hash               : {:x} | {}\n### END SKETCH SUMMARY\n",
        java_double_text(s.estimate()),
        java_double_text(s.upper_bound(NumStdDev::Two)),
        java_double_text(s.lower_bound(NumStdDev::Two)),
        java_double_text(s.theta()),
        s.theta64(),
        s.theta64(),
        s.is_estimation_mode(),
        s.is_empty(),
        s.is_ordered(),
        s.num_retained(),
        seed_hash,
        seed_hash,
    )
}

// ---------------------------------------------------------------------------------------
// CPC

/// Reads a serialized CPC sketch.
pub fn cpc_from_bytes(bytes: &[u8]) -> Result<CpcSketch, SketchError> {
    CpcSketch::deserialize(bytes).map_err(|e| corrupt("cpc", e))
}

/// Reads a CPC sketch argument (BYTES, or base64 text).
pub fn cpc_from_value(v: &Value) -> Result<CpcSketch, SketchError> {
    cpc_from_bytes(&sketch_bytes(v, "cpc")?)
}

fn cpc_sketch(lg_k: u8) -> Result<CpcSketch, SketchError> {
    CpcSketch::new(lg_k).map_err(|_| invalid("cpc", lg_k, "lgK must be between 4 and 26"))
}

fn cpc_union(lg_k: u8) -> CpcUnion {
    CpcUnion::new(lg_k)
        .or_else(|_| CpcUnion::new(DEFAULT_CPC_LG_K))
        .expect("the default CPC union builds")
}

/// The union of CPC sketches (Pinot's `cpcSketchUnion`: a union of the default `lgK`).
pub fn cpc_union_all(sketches: &[CpcSketch]) -> Result<CpcSketch, SketchError> {
    let mut union = cpc_union(DEFAULT_CPC_LG_K);
    for s in sketches {
        union.update(s).map_err(|e| corrupt("cpc", e))?;
    }
    Ok(union.to_sketch())
}

/// `toCpcSketch(value, lgK)`: a sketch of one value (none for NULL).
pub fn cpc_of_value(v: &Value, lg_k: i64) -> Result<Vec<u8>, SketchError> {
    let lg_k =
        u8::try_from(lg_k).map_err(|_| invalid("cpc", lg_k, "lgK must be between 4 and 26"))?;
    let mut sketch = cpc_sketch(lg_k)?;
    if let Some(i) = item(v) {
        hash_into!(sketch, i);
    }
    Ok(sketch.serialize())
}

/// A summary of a CPC sketch in the manner of DataSketches Java's `CpcSketch.toString()`.
pub fn cpc_summary(s: &CpcSketch) -> String {
    format!(
        "### CPD SKETCH - PREAMBLE:\n  LgK            : {}\n  Empty?         : {}\n  Estimate       : {}\n  Upper Bound, 95% conf : {}\n  Lower Bound, 95% conf : {}\n### END SKETCH SUMMARY\n",
        s.lg_k(),
        s.is_empty(),
        java_double_text(s.estimate()),
        java_double_text(s.upper_bound(NumStdDev::Two)),
        java_double_text(s.lower_bound(NumStdDev::Two)),
    )
}

// ---------------------------------------------------------------------------------------
// Builders and results

type Kll = KllSketch<KllFloat<f64>>;

/// One group's sketch while a segment is read.
pub enum SketchBuilder {
    Theta {
        sketch: ThetaSketch,
        /// Serialized sketches merged in (a BYTES column of sketches).
        union: Option<ThetaUnion>,
        lg_k: u8,
        p: f32,
    },
    Cpc {
        sketch: CpcSketch,
        union: Option<CpcUnion>,
    },
    FrequentStrings(FrequentItemsSketch<String>),
    FrequentLongs(FrequentItemsSketch<i64>),
    Kll(Kll),
    IntegerTuple {
        union: IntegerTupleUnion,
        lg_k: u8,
    },
    Ull(UltraLogLog),
    HllPlus(HyperLogLogPlus),
    IdSet {
        set: IdSet,
        params: IdSetParams,
    },
}

impl SketchBuilder {
    /// An empty sketch of a kind.
    pub fn new(kind: SketchKind) -> Result<SketchBuilder, SketchError> {
        Ok(match kind {
            SketchKind::Theta { lg_k, p } => {
                if !(p > 0.0 && p <= 1.0) {
                    return Err(invalid("theta", p, "samplingProbability must be in (0, 1]"));
                }
                SketchBuilder::Theta {
                    sketch: theta_sketch(lg_k, p)?,
                    union: None,
                    lg_k,
                    p,
                }
            }
            SketchKind::Cpc { lg_k } => SketchBuilder::Cpc {
                sketch: cpc_sketch(lg_k)?,
                union: None,
            },
            SketchKind::FrequentStrings { max_map_size } => SketchBuilder::FrequentStrings(
                FrequentItemsSketch::new(max_map_size as usize).map_err(|_| {
                    invalid(
                        "frequent items",
                        max_map_size,
                        "maxMapSize must be a power of 2 between 8 and 2^30",
                    )
                })?,
            ),
            SketchKind::FrequentLongs { max_map_size } => SketchBuilder::FrequentLongs(
                FrequentItemsSketch::new(max_map_size as usize).map_err(|_| {
                    invalid(
                        "frequent items",
                        max_map_size,
                        "maxMapSize must be a power of 2 between 8 and 2^30",
                    )
                })?,
            ),
            SketchKind::Kll { k } => SketchBuilder::Kll(
                KllSketch::new(k)
                    .map_err(|_| invalid("kll", k, "k must be between 8 and 65535"))?,
            ),
            SketchKind::IntegerTuple { lg_k } => SketchBuilder::IntegerTuple {
                union: IntegerTupleUnion::new(SummaryMode::Sum, lg_k)?,
                lg_k,
            },
            SketchKind::Ull { p } => SketchBuilder::Ull(UltraLogLog::new(p)?),
            SketchKind::HllPlus { p, sp } => SketchBuilder::HllPlus(HyperLogLogPlus::new(p, sp)?),
            SketchKind::IdSet(params) => SketchBuilder::IdSet {
                set: IdSet::Empty,
                params: params.validate()?,
            },
        })
    }

    /// Adds one value (NULLs and arrays are the caller's: it passes each element). An id set
    /// skips an id it cannot hold (a BIG_DECIMAL: the binder refuses those columns).
    pub fn update(&mut self, v: &Value) {
        match self {
            SketchBuilder::Theta { sketch, .. } => {
                if let Some(i) = item(v) {
                    hash_into!(sketch, i)
                }
            }
            SketchBuilder::Cpc { sketch, .. } => {
                if let Some(i) = item(v) {
                    hash_into!(sketch, i)
                }
            }
            SketchBuilder::FrequentStrings(s) => match v {
                Value::Null => {}
                Value::String(x) | Value::Json(x) => s.update_ref(x.as_str()),
                other => s.update(other.to_string()),
            },
            SketchBuilder::FrequentLongs(s) => {
                if let Some(x) = exact_long(v) {
                    s.update(x)
                }
            }
            SketchBuilder::Kll(s) => {
                if let Some(x) = v.as_f64()
                    && let Ok(x) = KllFloat::<f64>::new(x)
                {
                    s.update(x)
                }
            }
            // Only serialized sketches go in (the binder refuses other input).
            SketchBuilder::IntegerTuple { .. } => {}
            SketchBuilder::Ull(s) => s.add_value(v),
            SketchBuilder::HllPlus(s) => s.offer(v),
            SketchBuilder::IdSet { set, params } => {
                let _ = set.add(v, *params);
            }
        }
    }

    /// Merges a serialized sketch of the same kind (a BYTES column of sketches).
    pub fn merge_serialized(&mut self, bytes: &[u8]) -> Result<(), SketchError> {
        match self {
            SketchBuilder::Theta { union, lg_k, p, .. } => {
                let other = theta_from_bytes(bytes)?;
                union
                    .get_or_insert_with(|| theta_union(*lg_k, *p))
                    .update(&other)
                    .map_err(|e| corrupt("theta", e))
            }
            SketchBuilder::Cpc { sketch, union } => {
                let other = cpc_from_bytes(bytes)?;
                union
                    .get_or_insert_with(|| cpc_union(sketch.lg_k()))
                    .update(&other)
                    .map_err(|e| corrupt("cpc", e))
            }
            SketchBuilder::FrequentStrings(s) => {
                let other = FrequentItemsSketch::<String>::deserialize(bytes)
                    .map_err(|e| corrupt("frequent items", e))?;
                s.merge(&other);
                Ok(())
            }
            SketchBuilder::FrequentLongs(s) => {
                let other = FrequentItemsSketch::<i64>::deserialize(bytes)
                    .map_err(|e| corrupt("frequent items", e))?;
                s.merge(&other);
                Ok(())
            }
            SketchBuilder::Kll(s) => {
                let other = Kll::deserialize(bytes).map_err(|e| corrupt("kll", e))?;
                s.merge(&other).map_err(|e| corrupt("kll", e))
            }
            SketchBuilder::IntegerTuple { union, .. } => {
                union.update(&integer_tuple_from_bytes(bytes)?)
            }
            // Pinot's `[p] ++ registers`; the result keeps the smaller precision.
            SketchBuilder::Ull(s) => {
                s.merge(&UltraLogLog::from_pinot_bytes(bytes)?);
                Ok(())
            }
            // stream-lib's bytes; sketches of another precision merge only when one is empty.
            SketchBuilder::HllPlus(s) => s.merge(&HyperLogLogPlus::from_bytes(bytes)?),
            SketchBuilder::IdSet { set, params } => set.merge(IdSet::from_bytes(bytes)?, *params),
        }
    }

    /// The sketch so far.
    pub fn build(&self) -> DataSketch {
        match self {
            SketchBuilder::Theta {
                sketch,
                union,
                lg_k,
                p,
            } => {
                let compact = match union {
                    None => sketch.compact(false),
                    Some(u) => {
                        let mut all = theta_union(*lg_k, *p);
                        // Both come from this builder: same seed, so the updates succeed.
                        let _ = all.update(&u.to_sketch(false));
                        let _ = all.update(sketch);
                        all.to_sketch(false)
                    }
                };
                DataSketch::Theta {
                    sketch: compact,
                    lg_k: *lg_k,
                    p: *p,
                }
            }
            SketchBuilder::Cpc { sketch, union } => DataSketch::Cpc(match union {
                None => sketch.clone(),
                Some(u) => {
                    let mut all = u.clone();
                    let _ = all.update(sketch);
                    all.to_sketch()
                }
            }),
            SketchBuilder::FrequentStrings(s) => DataSketch::FrequentStrings(s.clone()),
            SketchBuilder::FrequentLongs(s) => DataSketch::FrequentLongs(s.clone()),
            SketchBuilder::Kll(s) => DataSketch::Kll(s.clone()),
            SketchBuilder::IntegerTuple { union, lg_k } => DataSketch::IntegerTuple {
                sketch: union.result(),
                lg_k: *lg_k,
            },
            SketchBuilder::Ull(s) => DataSketch::Ull(s.clone()),
            SketchBuilder::HllPlus(s) => DataSketch::HllPlus(s.clone()),
            SketchBuilder::IdSet { set, params } => DataSketch::IdSet {
                set: set.clone(),
                params: *params,
            },
        }
    }
}

/// An integer value exactly; fractional numbers truncate as Java's `long` conversion does.
fn exact_long(v: &Value) -> Option<i64> {
    match v {
        Value::Int(x) => Some(i64::from(*x)),
        Value::Long(x) | Value::Timestamp(x) => Some(*x),
        Value::Boolean(b) => Some(i64::from(*b)),
        other => other.as_f64().map(|x| x as i64),
    }
}

/// A finished, mergeable sketch (one group's intermediate result).
#[derive(Clone, Debug)]
pub enum DataSketch {
    Theta {
        sketch: CompactThetaSketch,
        lg_k: u8,
        p: f32,
    },
    Cpc(CpcSketch),
    FrequentStrings(FrequentItemsSketch<String>),
    FrequentLongs(FrequentItemsSketch<i64>),
    Kll(Kll),
    IntegerTuple {
        sketch: IntegerTupleSketch,
        lg_k: u8,
    },
    Ull(UltraLogLog),
    HllPlus(HyperLogLogPlus),
    IdSet {
        set: IdSet,
        params: IdSetParams,
    },
}

impl PartialEq for DataSketch {
    fn eq(&self, other: &DataSketch) -> bool {
        self.to_bytes() == other.to_bytes()
    }
}

const TAG_THETA: u8 = 1;
const TAG_CPC: u8 = 2;
const TAG_FREQUENT_STRINGS: u8 = 3;
const TAG_FREQUENT_LONGS: u8 = 4;
const TAG_KLL: u8 = 5;
const TAG_INTEGER_TUPLE: u8 = 6;
const TAG_ULL: u8 = 7;
const TAG_HLL_PLUS: u8 = 8;
const TAG_ID_SET: u8 = 9;

impl DataSketch {
    /// An empty sketch of a kind.
    pub fn empty(kind: SketchKind) -> Result<DataSketch, SketchError> {
        Ok(SketchBuilder::new(kind)?.build())
    }

    /// Folds `other` in; sketches of different kinds are an error.
    pub fn merge(&mut self, other: &DataSketch) -> Result<(), SketchError> {
        match (self, other) {
            (DataSketch::Theta { sketch, lg_k, p }, DataSketch::Theta { sketch: o, .. }) => {
                let mut union = theta_union(*lg_k, *p);
                union.update(&*sketch).map_err(|e| corrupt("theta", e))?;
                union.update(o).map_err(|e| corrupt("theta", e))?;
                *sketch = union.to_sketch(false);
            }
            (DataSketch::Cpc(a), DataSketch::Cpc(b)) => {
                let mut union = cpc_union(a.lg_k());
                union.update(a).map_err(|e| corrupt("cpc", e))?;
                union.update(b).map_err(|e| corrupt("cpc", e))?;
                *a = union.to_sketch();
            }
            (DataSketch::FrequentStrings(a), DataSketch::FrequentStrings(b)) => a.merge(b),
            (DataSketch::FrequentLongs(a), DataSketch::FrequentLongs(b)) => a.merge(b),
            (DataSketch::Kll(a), DataSketch::Kll(b)) => {
                a.merge(b).map_err(|e| corrupt("kll", e))?
            }
            (
                DataSketch::IntegerTuple { sketch, lg_k },
                DataSketch::IntegerTuple { sketch: o, .. },
            ) => {
                let mut union = IntegerTupleUnion::new(SummaryMode::Sum, *lg_k)?;
                union.update(sketch)?;
                union.update(o)?;
                *sketch = union.result();
            }
            (DataSketch::Ull(a), DataSketch::Ull(b)) => a.merge(b),
            (DataSketch::HllPlus(a), DataSketch::HllPlus(b)) => a.merge(b)?,
            (DataSketch::IdSet { set, params }, DataSketch::IdSet { set: other, .. }) => {
                set.merge(other.clone(), *params)?
            }
            _ => {
                return Err(corrupt(
                    "data sketch",
                    "cannot merge sketches of different kinds",
                ));
            }
        }
        Ok(())
    }

    /// Whether nothing went in.
    pub fn is_empty(&self) -> bool {
        match self {
            DataSketch::Theta { sketch, .. } => sketch.is_empty(),
            DataSketch::Cpc(s) => s.is_empty(),
            DataSketch::FrequentStrings(s) => s.is_empty(),
            DataSketch::FrequentLongs(s) => s.is_empty(),
            DataSketch::Kll(s) => s.is_empty(),
            DataSketch::IntegerTuple { sketch, .. } => sketch.is_empty(),
            DataSketch::Ull(s) => s.is_empty(),
            DataSketch::HllPlus(s) => s.cardinality() == 0,
            DataSketch::IdSet { set, .. } => matches!(set, IdSet::Empty),
        }
    }

    /// The distinct-count estimate, rounded as Pinot's `Math.round` (theta, CPC, ULL) or
    /// truncated as its `longValue()` (integer tuple).
    pub fn distinct_estimate(&self) -> i64 {
        match self {
            DataSketch::Theta { sketch, .. } => sketch.estimate().round() as i64,
            DataSketch::Cpc(s) => s.estimate().round() as i64,
            DataSketch::Ull(s) => s.estimate().round() as i64,
            DataSketch::HllPlus(s) => i64::try_from(s.cardinality()).unwrap_or(i64::MAX),
            DataSketch::IntegerTuple { sketch, .. } => sketch.estimate() as i64,
            _ => 0,
        }
    }

    /// KLL's quantile at `rank` (0–1, inclusive search as Java's default); `None` when empty.
    pub fn quantile(&self, rank: f64) -> Option<f64> {
        match self {
            DataSketch::Kll(s) => s
                .quantile(rank.clamp(0.0, 1.0), SearchCriteria::Inclusive)
                .ok()
                .flatten()
                .map(KllFloat::into_inner),
            _ => None,
        }
    }

    /// The sketch in DataSketches' own binary format (what Pinot's RAW functions return,
    /// base64-encoded); a ULL's registers alone (`DISTINCTCOUNTRAWULL`); an HLL+'s stream-lib
    /// bytes (`DISTINCTCOUNTRAWHLLPLUS`, hex-encoded).
    pub fn serialize(&self) -> Vec<u8> {
        match self {
            DataSketch::Theta { sketch, .. } => sketch.serialize(),
            DataSketch::Cpc(s) => s.serialize(),
            DataSketch::FrequentStrings(s) => s.serialize(),
            DataSketch::FrequentLongs(s) => s.serialize(),
            DataSketch::Kll(s) => s.serialize(),
            DataSketch::IntegerTuple { sketch, .. } => sketch.serialize(),
            DataSketch::Ull(s) => s.state().to_vec(),
            DataSketch::HllPlus(s) => s.to_bytes(),
            DataSketch::IdSet { set, .. } => set.to_bytes(),
        }
    }

    /// Tessera's wire form: a tag, the parameters the format does not keep, the sketch.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            DataSketch::Theta { lg_k, p, .. } => {
                out.push(TAG_THETA);
                out.push(*lg_k);
                out.extend_from_slice(&p.to_le_bytes());
            }
            DataSketch::Cpc(_) => out.push(TAG_CPC),
            DataSketch::FrequentStrings(_) => out.push(TAG_FREQUENT_STRINGS),
            DataSketch::FrequentLongs(_) => out.push(TAG_FREQUENT_LONGS),
            DataSketch::Kll(_) => out.push(TAG_KLL),
            DataSketch::IntegerTuple { lg_k, .. } => {
                out.push(TAG_INTEGER_TUPLE);
                out.push(*lg_k);
            }
            DataSketch::Ull(_) => out.push(TAG_ULL),
            DataSketch::HllPlus(_) => out.push(TAG_HLL_PLUS),
            DataSketch::IdSet { params, .. } => {
                out.push(TAG_ID_SET);
                out.extend_from_slice(&params.size_threshold_in_bytes.to_le_bytes());
                out.extend_from_slice(&params.expected_insertions.to_le_bytes());
                out.extend_from_slice(&params.fpp.to_le_bytes());
            }
        }
        out.extend_from_slice(&self.serialize());
        out
    }

    /// Reads [`DataSketch::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<DataSketch, SketchError> {
        let (&tag, rest) = bytes
            .split_first()
            .ok_or_else(|| corrupt("data sketch", "no bytes"))?;
        Ok(match tag {
            TAG_THETA => {
                if rest.len() < 5 {
                    return Err(corrupt("theta", "truncated"));
                }
                let lg_k = rest[0];
                let p = f32::from_le_bytes([rest[1], rest[2], rest[3], rest[4]]);
                DataSketch::Theta {
                    sketch: theta_from_bytes(&rest[5..])?,
                    lg_k,
                    p,
                }
            }
            TAG_CPC => DataSketch::Cpc(cpc_from_bytes(rest)?),
            TAG_FREQUENT_STRINGS => DataSketch::FrequentStrings(
                FrequentItemsSketch::deserialize(rest).map_err(|e| corrupt("frequent items", e))?,
            ),
            TAG_FREQUENT_LONGS => DataSketch::FrequentLongs(
                FrequentItemsSketch::deserialize(rest).map_err(|e| corrupt("frequent items", e))?,
            ),
            TAG_KLL => DataSketch::Kll(Kll::deserialize(rest).map_err(|e| corrupt("kll", e))?),
            TAG_INTEGER_TUPLE => {
                let (&lg_k, sketch) = rest
                    .split_first()
                    .ok_or_else(|| corrupt("tuple", "truncated"))?;
                DataSketch::IntegerTuple {
                    sketch: integer_tuple_from_bytes(sketch)?,
                    lg_k,
                }
            }
            TAG_ULL => DataSketch::Ull(UltraLogLog::wrap(rest.to_vec())?),
            TAG_HLL_PLUS => DataSketch::HllPlus(HyperLogLogPlus::from_bytes(rest)?),
            TAG_ID_SET => {
                if rest.len() < 24 {
                    return Err(corrupt("idset", "truncated"));
                }
                let word = |i: usize| {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(&rest[i * 8..i * 8 + 8]);
                    b
                };
                DataSketch::IdSet {
                    params: IdSetParams {
                        size_threshold_in_bytes: i64::from_le_bytes(word(0)),
                        expected_insertions: i64::from_le_bytes(word(1)),
                        fpp: f64::from_le_bytes(word(2)),
                    },
                    set: IdSet::from_bytes(&rest[24..])?,
                }
            }
            other => return Err(corrupt("data sketch", format!("unknown tag {other}"))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theta_counts_merges_and_round_trips() {
        let kind = SketchKind::Theta { lg_k: 12, p: 1.0 };
        let mut a = SketchBuilder::new(kind).unwrap();
        for i in 0..100 {
            a.update(&Value::Long(i));
        }
        // INT and LONG hash alike; so do FLOAT and DOUBLE; empty text is skipped.
        a.update(&Value::Int(5));
        a.update(&Value::String(String::new()));
        let mut b = SketchBuilder::new(kind).unwrap();
        for i in 50..150 {
            b.update(&Value::Int(i));
        }
        b.update(&Value::Float(1.5));
        b.update(&Value::Double(1.5));
        let mut s = a.build();
        s.merge(&b.build()).unwrap();
        assert_eq!(s.distinct_estimate(), 151);
        let back = DataSketch::from_bytes(&s.to_bytes()).unwrap();
        assert_eq!(back, s);
        let raw = theta_from_bytes(&s.serialize()).unwrap();
        assert_eq!(raw.estimate(), 151.0);
        // A builder merging a serialized sketch.
        let mut c = SketchBuilder::new(kind).unwrap();
        c.merge_serialized(&s.serialize()).unwrap();
        c.update(&Value::String("x".into()));
        assert_eq!(c.build().distinct_estimate(), 152);
        assert!(c.merge_serialized(b"nonsense").is_err());
    }

    #[test]
    fn java_hashing_of_values() {
        // Java: UpdateSketch.update(long) over 1, 2, 3 → these compact bytes' estimate; the
        // point here is that -0.0 and 0.0 are one value, NaNs are one value.
        let mut b = SketchBuilder::new(SketchKind::Theta { lg_k: 12, p: 1.0 }).unwrap();
        b.update(&Value::Double(0.0));
        b.update(&Value::Double(-0.0));
        b.update(&Value::Double(f64::NAN));
        b.update(&Value::Float(f32::NAN));
        assert_eq!(b.build().distinct_estimate(), 2);
        assert_eq!(theta_lg_k(4096).unwrap(), 12);
        assert_eq!(theta_lg_k(5000).unwrap(), 13);
        assert!(theta_lg_k(0).is_err());
        assert_eq!(exact_log2(4096).unwrap(), 12);
        assert!(exact_log2(5000).is_err());
    }

    #[test]
    fn scalar_helpers() {
        let one = theta_of_value(&Value::String("a".into()), 4096).unwrap();
        let two = theta_of_value(&Value::String("b".into()), 4096).unwrap();
        let sketches = [
            theta_from_bytes(&one).unwrap(),
            theta_from_bytes(&two).unwrap(),
        ];
        assert_eq!(theta_union_all(&sketches).unwrap().estimate(), 2.0);
        assert_eq!(theta_intersect_all(&sketches).unwrap().estimate(), 0.0);
        assert_eq!(
            theta_diff(&sketches[0], &sketches[1]).unwrap().estimate(),
            1.0
        );
        let text = Value::String(base64(&one));
        assert_eq!(theta_from_value(&text).unwrap().estimate(), 1.0);
        assert!(theta_summary(&sketches[0]).contains("Retained Entries        : 1"));
        let c = cpc_of_value(&Value::Long(7), 11).unwrap();
        let c = cpc_from_bytes(&c).unwrap();
        assert_eq!(c.lg_k(), 11);
        assert_eq!(
            cpc_union_all(&[c.clone(), c]).unwrap().estimate().round(),
            1.0
        );
        assert!(cpc_of_value(&Value::Long(7), 40).is_err());
    }

    #[test]
    fn frequent_items_and_kll() {
        let mut f = SketchBuilder::new(SketchKind::FrequentStrings { max_map_size: 64 }).unwrap();
        for v in ["a", "b", "a"] {
            f.update(&Value::String(v.into()));
        }
        let s = f.build();
        let back = FrequentItemsSketch::<String>::deserialize(&s.serialize()).unwrap();
        assert_eq!(back.estimate("a"), 2);
        let mut k = SketchBuilder::new(SketchKind::Kll { k: 200 }).unwrap();
        for i in 1..=10 {
            k.update(&Value::Int(i));
        }
        assert_eq!(k.build().quantile(0.5), Some(5.0));
        assert!(SketchBuilder::new(SketchKind::FrequentLongs { max_map_size: 100 }).is_err());
        assert!(SketchBuilder::new(SketchKind::Kll { k: 2 }).is_err());
        assert!(SketchBuilder::new(SketchKind::Theta { lg_k: 12, p: 0.0 }).is_err());
    }

    proptest::proptest! {
        /// Bytes that are not a sketch are an error, never a panic.
        #[test]
        fn garbage_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64), tag in 1u8..7) {
            let _ = theta_from_bytes(&bytes);
            let _ = cpc_from_bytes(&bytes);
            let mut tagged = vec![tag];
            tagged.extend_from_slice(&bytes);
            let _ = DataSketch::from_bytes(&tagged);
            for kind in [
                SketchKind::Theta { lg_k: 12, p: 1.0 },
                SketchKind::Cpc { lg_k: 12 },
                SketchKind::FrequentStrings { max_map_size: 64 },
                SketchKind::FrequentLongs { max_map_size: 64 },
                SketchKind::Kll { k: 200 },
                SketchKind::IntegerTuple { lg_k: 14 },
            ] {
                let mut b = SketchBuilder::new(kind).unwrap();
                let _ = b.merge_serialized(&bytes);
                let _ = b.build().serialize();
            }
        }
    }
}
