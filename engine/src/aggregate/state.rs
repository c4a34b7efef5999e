//! [`AggState`]: the intermediate result of one aggregation for one group — what a segment
//! produces, servers merge and ship, and the broker finalizes into a value.
//!
//! Finalization follows Pinot v1's defaults for empty input when null handling is off
//! (`MIN` → `Infinity`, `MAX`/`AVG`/`MINMAXRANGE`/`PERCENTILE`/`MODE` → `-Infinity`, `SUM` →
//! `0.0`) and returns NULL instead when it is on (`COUNT` is never NULL).

use super::moments::{CoMoments, Moments};
use crate::error::EngineError;
use crate::key::{Key, KeySet};
use crate::sketch::datasketch::{self, DataSketch, SketchBuilder};
use crate::sketch::integer_tuple;
use crate::sketch::{HyperLogLog, QuantileDigest, TDigest};
use planner::plan::AggregateFunction;
use planner::plan::aggregate::TupleResult;
use segments::types::decimal::Decimal;
use segments::types::value::encode_hex;
use segments::types::{DataType, Value};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// One aggregation's intermediate state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum AggState {
    Count(i64),
    /// `None` until a value is seen.
    Sum(#[serde(with = "segments::types::value::non_finite::option")] Option<f64>),
    Min(#[serde(with = "segments::types::value::non_finite::option")] Option<f64>),
    Max(#[serde(with = "segments::types::value::non_finite::option")] Option<f64>),
    Avg {
        #[serde(with = "segments::types::value::non_finite")]
        sum: f64,
        count: i64,
    },
    MinMax(#[serde(with = "segments::types::value::non_finite::option_pair")] Option<(f64, f64)>),
    /// Exact distinct values (DISTINCTCOUNT).
    Distinct(KeySet),
    /// DISTINCTCOUNTHLL.
    Hll(#[serde(with = "super::sketch_serde")] HyperLogLog),
    /// All values (PERCENTILE).
    Values(#[serde(with = "segments::types::value::non_finite::vec")] Vec<f64>),
    /// PERCENTILETDIGEST.
    TDigest(#[serde(with = "super::sketch_serde")] Box<TDigest>),
    /// PERCENTILEEST.
    QDigest(#[serde(with = "super::sketch_serde")] Box<QuantileDigest>),
    /// Value (as `f64` bits) → occurrences (MODE).
    Mode(HashMap<u64, i64>),
    Decimal(Option<Decimal>),
    Bool(Option<bool>),
    /// SKEWNESS, KURTOSIS.
    Moments(Moments),
    /// MINSTRING, MAXSTRING: the smallest (largest) text so far.
    Text(Option<String>),
    /// ANYVALUE: the first value seen.
    Any(Option<Value>),
    /// SUMLONG, MINLONG, MAXLONG: exact integers.
    Long(Option<i64>),
    /// HISTOGRAM's counts, SUMARRAYDOUBLE's sums (element-wise).
    Doubles(#[serde(with = "segments::types::value::non_finite::vec")] Vec<f64>),
    /// SUMARRAYLONG's sums (element-wise).
    Longs(Vec<i64>),
    /// ARRAYAGG, LISTAGG: the values in the order read.
    List(Vec<Value>),
    /// COVARPOP, COVARSAMP.
    CoMoments(CoMoments),
    /// FIRSTWITHTIME, LASTWITHTIME: the best (time, value) so far.
    Timed(Option<(i64, Value)>),
    /// EXPRMIN, EXPRMAX: the best (measure, value) so far.
    Extreme(#[serde(with = "extreme_serde")] Option<(f64, Value)>),
    /// The Apache DataSketches functions (theta, CPC, frequent items, KLL).
    Sketch(#[serde(with = "super::sketch_serde")] Box<DataSketch>),
    /// The window funnels: (time, step) events, in no order.
    Events(Vec<super::funnel::Event>),
    /// FUNNELEVENTSFUNCTIONEVAL: events with their extra fields.
    FieldEvents(Vec<super::funnel::FieldEvent>),
    /// FUNNELCOUNT: per step, the correlation keys that met it.
    StepKeys(Vec<KeySet>),
}

/// A non-finite measure crosses the wire as text, like the other `f64` states.
mod extreme_serde {
    use segments::types::Value;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Pair(
        #[serde(with = "segments::types::value::non_finite")] f64,
        Value,
    );

    pub fn serialize<S: Serializer>(v: &Option<(f64, Value)>, s: S) -> Result<S::Ok, S::Error> {
        v.as_ref().map(|(m, x)| Pair(*m, x.clone())).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<(f64, Value)>, D::Error> {
        Ok(Option::<Pair>::deserialize(d)?.map(|Pair(m, x)| (m, x)))
    }
}

/// A number state's final value: the value, else NULL with null handling, else `default`
/// (Pinot's stored default for the function: 0 for a sum, infinities for extremes).
fn or_default(v: Option<f64>, default: f64, null_handling: bool) -> Option<f64> {
    match v {
        Some(x) => Some(x),
        None if null_handling => None,
        None => Some(default),
    }
}

impl AggState {
    /// The empty state of a function.
    pub fn empty(f: &AggregateFunction) -> AggState {
        match f {
            AggregateFunction::Count => AggState::Count(0),
            AggregateFunction::Sum => AggState::Sum(None),
            AggregateFunction::Min => AggState::Min(None),
            AggregateFunction::Max => AggState::Max(None),
            AggregateFunction::Avg => AggState::Avg { sum: 0.0, count: 0 },
            AggregateFunction::MinMaxRange => AggState::MinMax(None),
            AggregateFunction::DistinctCount
            | AggregateFunction::DistinctCountSmartHll { .. }
            | AggregateFunction::DistinctCountSmartUll { .. }
            | AggregateFunction::DistinctCountSmartHllPlus { .. } => {
                AggState::Distinct(KeySet::default())
            }
            AggregateFunction::SegmentPartitionedDistinctCount => AggState::Count(0),
            AggregateFunction::DistinctCountHll { log2m }
            | AggregateFunction::DistinctCountRawHll { log2m } => AggState::Hll(new_hll(*log2m)),
            AggregateFunction::Percentile { .. }
            | AggregateFunction::PercentileSmartTDigest { .. } => AggState::Values(Vec::new()),
            AggregateFunction::PercentileEst { .. } => AggState::QDigest(Box::default()),
            AggregateFunction::PercentileTDigest { compression, .. } => {
                AggState::TDigest(Box::new(new_tdigest(*compression)))
            }
            AggregateFunction::Mode => AggState::Mode(HashMap::new()),
            AggregateFunction::SumPrecision { .. } => AggState::Decimal(None),
            AggregateFunction::BoolAnd | AggregateFunction::BoolOr => AggState::Bool(None),
            AggregateFunction::Skewness
            | AggregateFunction::Kurtosis
            | AggregateFunction::Variance { .. } => AggState::Moments(Moments::default()),
            AggregateFunction::MinString | AggregateFunction::MaxString => AggState::Text(None),
            AggregateFunction::DistinctSum | AggregateFunction::DistinctAvg => {
                AggState::Distinct(KeySet::default())
            }
            AggregateFunction::AnyValue => AggState::Any(None),
            AggregateFunction::Sum0 => AggState::Sum(None),
            AggregateFunction::SumLong
            | AggregateFunction::MinLong
            | AggregateFunction::MaxLong => AggState::Long(None),
            AggregateFunction::Histogram { edges, .. } => {
                AggState::Doubles(vec![0.0; edges.len().saturating_sub(1)])
            }
            AggregateFunction::SumArray { long: false } => AggState::Doubles(Vec::new()),
            AggregateFunction::SumArray { long: true } => AggState::Longs(Vec::new()),
            AggregateFunction::ArrayAgg { .. }
            | AggregateFunction::ListAgg { .. }
            | AggregateFunction::StUnion => AggState::List(Vec::new()),
            AggregateFunction::Covariance { .. } => AggState::CoMoments(CoMoments::default()),
            AggregateFunction::WithTime { .. } => AggState::Timed(None),
            AggregateFunction::ExprMinMax { .. } => AggState::Extreme(None),
            AggregateFunction::FunnelWindow(w)
                if w.kind == planner::plan::funnel::FunnelKind::EventsFunctionEval =>
            {
                AggState::FieldEvents(Vec::new())
            }
            AggregateFunction::FunnelWindow(_) => AggState::Events(Vec::new()),
            AggregateFunction::FunnelCount { steps } => {
                AggState::StepKeys(vec![KeySet::default(); *steps as usize])
            }
            AggregateFunction::ThetaSketch { .. }
            | AggregateFunction::CpcSketch { .. }
            | AggregateFunction::Ull { .. }
            | AggregateFunction::HllPlus { .. }
            | AggregateFunction::IdSet(_)
            | AggregateFunction::FrequentItems { .. }
            | AggregateFunction::PercentileKll { .. }
            | AggregateFunction::IntegerTupleSketch { .. } => {
                // The binder validated the parameters; were they bad, merging would fail
                // cleanly on the mismatched state.
                match f.sketch_kind().map(DataSketch::empty) {
                    Some(Ok(s)) => AggState::Sketch(Box::new(s)),
                    _ => AggState::Any(None),
                }
            }
        }
    }

    /// Folds `other` into `self`; `is_and` picks the boolean combiner.
    pub fn merge(&mut self, other: AggState, f: &AggregateFunction) -> Result<(), EngineError> {
        let opt = |a: Option<f64>, b: Option<f64>, pick: fn(f64, f64) -> f64| match (a, b) {
            (Some(x), Some(y)) => Some(pick(x, y)),
            (x, None) => x,
            (None, y) => y,
        };
        match (&mut *self, other) {
            (AggState::Count(a), AggState::Count(b)) => *a += b,
            (AggState::Sum(a), AggState::Sum(b)) => *a = opt(*a, b, |x, y| x + y),
            (AggState::Min(a), AggState::Min(b)) => *a = opt(*a, b, f64::min),
            (AggState::Max(a), AggState::Max(b)) => *a = opt(*a, b, f64::max),
            (AggState::Avg { sum, count }, AggState::Avg { sum: s, count: c }) => {
                *sum += s;
                *count += c;
            }
            (AggState::MinMax(a), AggState::MinMax(b)) => {
                *a = match (*a, b) {
                    (Some((a1, a2)), Some((b1, b2))) => Some((a1.min(b1), a2.max(b2))),
                    (x, None) => x,
                    (None, y) => y,
                }
            }
            (AggState::Distinct(a), AggState::Distinct(b)) => {
                if a.len() < b.len() {
                    let small = std::mem::replace(a, b);
                    a.extend(small);
                } else {
                    a.extend(b);
                }
            }
            (AggState::Values(a), AggState::Values(b)) => a.extend(b),
            (AggState::Hll(a), AggState::Hll(b)) => a.merge(&b),
            // DISTINCTCOUNTSMARTHLL: one side already converted to a sketch.
            (AggState::Hll(a), AggState::Distinct(b)) => b.iter().for_each(|k| a.add(&k.0)),
            (me @ AggState::Distinct(_), AggState::Hll(mut b)) => {
                if let AggState::Distinct(a) = me {
                    a.iter().for_each(|k| b.add(&k.0));
                }
                *me = AggState::Hll(b);
            }
            // DISTINCTCOUNTSMARTULL / HLLPLUS: one side already converted to a sketch.
            (AggState::Sketch(a), AggState::Distinct(b)) => a
                .merge(&smart_sketch(f, &b)?)
                .map_err(|e| EngineError::execution(format!("{}: {e}", f.name())))?,
            (me @ AggState::Distinct(_), AggState::Sketch(b)) => {
                if let AggState::Distinct(a) = me {
                    let mut s = smart_sketch(f, a)?;
                    s.merge(&b)
                        .map_err(|e| EngineError::execution(format!("{}: {e}", f.name())))?;
                    *me = AggState::Sketch(Box::new(s));
                }
            }
            (AggState::TDigest(a), AggState::TDigest(b)) => a.merge(&b),
            // PERCENTILESMARTTDIGEST: one side already converted to a digest.
            (AggState::TDigest(a), AggState::Values(b)) => b.iter().for_each(|x| a.add(*x)),
            (me @ AggState::Values(_), AggState::TDigest(mut b)) => {
                if let AggState::Values(a) = me {
                    a.iter().for_each(|x| b.add(*x));
                }
                *me = AggState::TDigest(b);
            }
            (AggState::QDigest(a), AggState::QDigest(b)) => a.merge(&b),
            (AggState::Mode(a), AggState::Mode(b)) => {
                for (k, c) in b {
                    *a.entry(k).or_insert(0) += c;
                }
            }
            (AggState::Decimal(a), AggState::Decimal(b)) => {
                *a = match (a.take(), b) {
                    (Some(x), Some(y)) => Some(x.add(&y)),
                    (x, None) => x,
                    (None, y) => y,
                }
            }
            (AggState::Moments(a), AggState::Moments(b)) => a.merge(&b),
            (AggState::Text(a), AggState::Text(b)) => {
                let max = matches!(f, AggregateFunction::MaxString);
                if let Some(y) = b
                    && a.as_ref().is_none_or(|x| if max { y > *x } else { y < *x })
                {
                    *a = Some(y);
                }
            }
            (AggState::Any(a), AggState::Any(b)) => {
                if a.is_none() {
                    *a = b;
                }
            }
            (AggState::Long(a), AggState::Long(b)) => {
                *a = match (*a, b) {
                    (Some(x), Some(y)) => Some(combine_longs(f, x, y)?),
                    (x, None) => x,
                    (None, y) => y,
                }
            }
            (AggState::Doubles(a), AggState::Doubles(b)) => {
                if a.len() < b.len() {
                    a.resize(b.len(), 0.0);
                }
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
            }
            (AggState::Longs(a), AggState::Longs(b)) => {
                if a.len() < b.len() {
                    a.resize(b.len(), 0);
                }
                for (x, y) in a.iter_mut().zip(b) {
                    *x = x.checked_add(y).ok_or_else(long_overflow)?;
                }
            }
            (AggState::List(a), AggState::List(b)) => {
                a.extend(b);
                if matches!(f, AggregateFunction::StUnion) && !a.is_empty() {
                    union_geometries(a)?;
                }
            }
            (AggState::CoMoments(a), AggState::CoMoments(b)) => a.merge(&b),
            (AggState::Timed(a), AggState::Timed(b)) => {
                let last = matches!(f, AggregateFunction::WithTime { last: true, .. });
                if let Some((t, v)) = b {
                    offer_timed(a, t, v, last);
                }
            }
            (AggState::Extreme(a), AggState::Extreme(b)) => {
                let max = matches!(f, AggregateFunction::ExprMinMax { max: true });
                if let Some((m, v)) = b {
                    offer_extreme(a, m, v, max);
                }
            }
            (AggState::Events(a), AggState::Events(b)) => a.extend(b),
            (AggState::FieldEvents(a), AggState::FieldEvents(b)) => a.extend(b),
            (AggState::StepKeys(a), AggState::StepKeys(b)) => {
                for (mine, theirs) in a.iter_mut().zip(b) {
                    mine.extend(theirs);
                }
            }
            (AggState::Sketch(a), AggState::Sketch(b)) => a
                .merge(&b)
                .map_err(|e| EngineError::execution(format!("{}: {e}", f.name())))?,
            (AggState::Bool(a), AggState::Bool(b)) => {
                let and = matches!(f, AggregateFunction::BoolAnd);
                *a = match (*a, b) {
                    (Some(x), Some(y)) => Some(if and { x && y } else { x || y }),
                    (x, None) => x,
                    (None, y) => y,
                }
            }
            (s, o) => {
                return Err(EngineError::execution(format!(
                    "cannot merge aggregation states {s:?} and {o:?} of {}",
                    f.name()
                )));
            }
        }
        self.convert_past_threshold(f);
        Ok(())
    }

    /// DISTINCTCOUNTSMARTHLL, DISTINCTCOUNTSMARTULL and DISTINCTCOUNTSMARTHLLPLUS: an exact set
    /// of more than `threshold` values becomes a sketch;
    /// PERCENTILESMARTTDIGEST: a list of more than `threshold` values becomes a t-digest.
    pub fn convert_past_threshold(&mut self, f: &AggregateFunction) {
        if let (
            AggState::Values(values),
            AggregateFunction::PercentileSmartTDigest {
                threshold,
                compression,
                ..
            },
        ) = (&*self, f)
            && values.len() > *threshold as usize
        {
            let mut t = new_tdigest(*compression);
            values.iter().for_each(|x| t.add(*x));
            *self = AggState::TDigest(Box::new(t));
            return;
        }
        if let (
            AggState::Distinct(set),
            AggregateFunction::DistinctCountSmartHll { log2m, threshold },
        ) = (&*self, f)
            && set.len() > *threshold as usize
        {
            let mut h = new_hll(*log2m);
            set.iter().for_each(|k| h.add(&k.0));
            *self = AggState::Hll(h);
            return;
        }
        if let (AggState::Distinct(set), Some((_, threshold))) = (&*self, f.smart_sketch())
            && set.len() > threshold as usize
            && let Ok(s) = smart_sketch(f, set)
        {
            *self = AggState::Sketch(Box::new(s));
        }
    }

    /// The final value of a summing, averaging or extreme state (SUM, MIN, MAX, AVG,
    /// MINMAXRANGE) as a number, `None` inside for NULL — without a [`Value`], for a column of
    /// many groups; `None` for any other state.
    pub fn finalize_number(
        &self,
        f: &AggregateFunction,
        null_handling: bool,
    ) -> Option<Option<f64>> {
        let or_default = |v, default| or_default(v, default, null_handling);
        Some(match self {
            AggState::Sum(s) if matches!(f, AggregateFunction::Sum0) => Some(s.unwrap_or(0.0)),
            AggState::Sum(s) => or_default(*s, 0.0),
            AggState::Min(m) => or_default(*m, f64::INFINITY),
            AggState::Max(m) => or_default(*m, f64::NEG_INFINITY),
            AggState::Avg { sum, count } => {
                or_default((*count > 0).then(|| sum / *count as f64), f64::NEG_INFINITY)
            }
            AggState::MinMax(mm) => or_default(mm.map(|(lo, hi)| hi - lo), f64::NEG_INFINITY),
            _ => return None,
        })
    }

    /// The final value.
    pub fn finalize(&self, f: &AggregateFunction, null_handling: bool) -> Value {
        let or_default =
            |v, default| or_default(v, default, null_handling).map_or(Value::Null, Value::Double);
        match self {
            AggState::Count(n) => Value::Long(*n),
            AggState::Sum(_)
            | AggState::Min(_)
            | AggState::Max(_)
            | AggState::Avg { .. }
            | AggState::MinMax(_) => self
                .finalize_number(f, null_handling)
                .flatten()
                .map_or(Value::Null, Value::Double),
            AggState::Distinct(set) => match f {
                AggregateFunction::DistinctSum | AggregateFunction::DistinctAvg => {
                    let sum: f64 = set.iter().filter_map(|k| k.0.as_f64()).sum();
                    match f {
                        _ if set.is_empty() && null_handling => Value::Null,
                        AggregateFunction::DistinctSum => Value::Double(sum),
                        // The average of no values is NaN (0 / 0), as Pinot's.
                        _ => Value::Double(sum / set.len() as f64),
                    }
                }
                _ => Value::Int(set.len() as i32),
            },
            AggState::Hll(h) => match f {
                AggregateFunction::DistinctCountSmartHll { .. } => {
                    Value::Int(h.estimate().min(i32::MAX as u64) as i32)
                }
                AggregateFunction::DistinctCountRawHll { .. } => {
                    Value::String(encode_hex(&h.to_pinot_bytes()))
                }
                _ => Value::Long(h.estimate() as i64),
            },
            AggState::Values(values) => or_default(
                exact_percentile(values, percentile_of(f)),
                f64::NEG_INFINITY,
            ),
            AggState::TDigest(t)
                if matches!(f, AggregateFunction::PercentileTDigest { raw: true, .. }) =>
            {
                Value::String(encode_hex(&t.to_pinot_bytes()))
            }
            AggState::TDigest(t) => {
                or_default(t.quantile(percentile_of(f) / 100.0), f64::NEG_INFINITY)
            }
            AggState::QDigest(q)
                if matches!(f, AggregateFunction::PercentileEst { raw: true, .. }) =>
            {
                Value::String(encode_hex(&q.to_pinot_bytes()))
            }
            AggState::QDigest(q) => match q.quantile(percentile_of(f) / 100.0) {
                Some(x) => Value::Long(x),
                None if null_handling => Value::Null,
                None => Value::Long(i64::MIN),
            },
            AggState::Mode(counts) => {
                let best = counts
                    .iter()
                    .map(|(bits, c)| (f64::from_bits(*bits), *c))
                    .max_by(|(va, ca), (vb, cb)| ca.cmp(cb).then_with(|| vb.total_cmp(va)));
                or_default(best.map(|(v, _)| v), f64::NEG_INFINITY)
            }
            AggState::Decimal(d) => match d {
                None if null_handling => Value::Null,
                None => Value::BigDecimal("0".into()),
                Some(d) => {
                    let (precision, scale) = match f {
                        AggregateFunction::SumPrecision { precision, scale } => {
                            (*precision, *scale)
                        }
                        _ => (None, None),
                    };
                    let mut out = d.clone();
                    if let Some(p) = precision {
                        out = out.round_precision(p);
                        if let Some(s) = scale {
                            out = out.set_scale(s.into());
                        }
                    }
                    Value::BigDecimal(out.to_plain_string())
                }
            },
            AggState::Moments(m) => match f {
                AggregateFunction::Variance { sample, std_dev } => {
                    // Pinot's sentinel for no values, and for one value of a sample.
                    let n = m.n - i64::from(*sample);
                    let value = match (m.n, n) {
                        (0, _) if null_handling => return Value::Null,
                        (_, n) if n <= 0 => f64::NEG_INFINITY,
                        (_, n) => m.m2 / n as f64,
                    };
                    Value::Double(if *std_dev { value.sqrt() } else { value })
                }
                _ => {
                    let value = if matches!(f, AggregateFunction::Kurtosis) {
                        m.kurtosis()
                    } else {
                        m.skewness()
                    };
                    or_default((m.n > 0).then_some(value), f64::NAN)
                }
            },
            AggState::Text(t) => t.clone().map_or(Value::Null, Value::String),
            AggState::Any(v) => v.clone().unwrap_or(Value::Null),
            AggState::Long(v) => match (v, f) {
                (Some(x), _) => Value::Long(*x),
                (None, _) if null_handling => Value::Null,
                (None, AggregateFunction::MinLong) => Value::Long(i64::MAX),
                (None, AggregateFunction::MaxLong) => Value::Long(i64::MIN),
                (None, _) => Value::Long(0),
            },
            AggState::Doubles(v) => match f {
                AggregateFunction::Histogram { .. }
                    if null_handling && v.iter().all(|c| *c == 0.0) =>
                {
                    Value::Null
                }
                _ => Value::Array(v.iter().map(|x| Value::Double(*x)).collect()),
            },
            AggState::Longs(v) => Value::Array(v.iter().map(|x| Value::Long(*x)).collect()),
            AggState::List(values) if matches!(f, AggregateFunction::StUnion) => {
                match values.first() {
                    Some(union) => union.clone(),
                    None if null_handling => Value::Null,
                    None => planner::functions::empty_geometry(),
                }
            }
            AggState::List(values) => finalize_list(f, values, null_handling),
            AggState::CoMoments(c) => {
                match c.covariance(matches!(f, AggregateFunction::Covariance { sample: true })) {
                    Some(x) => Value::Double(x),
                    None if null_handling => Value::Null,
                    // Pinot's sentinel for too few pairs.
                    None => Value::Double(f64::NEG_INFINITY),
                }
            }
            AggState::Timed(best) => match (best, f) {
                (Some((_, v)), AggregateFunction::WithTime { element, .. }) => {
                    v.clone().cast(*element).unwrap_or(Value::Null)
                }
                (None, AggregateFunction::WithTime { element, .. }) if !null_handling => {
                    // Pinot's default pair's value.
                    match element {
                        DataType::Int => Value::Int(i32::MIN),
                        DataType::Boolean => Value::Boolean(false),
                        DataType::Long => Value::Long(i64::MIN),
                        DataType::Float => Value::Float(f32::NAN),
                        DataType::Double => Value::Double(f64::NAN),
                        DataType::String => Value::String(String::new()),
                        _ => Value::Null,
                    }
                }
                _ => Value::Null,
            },
            AggState::Extreme(best) => best.as_ref().map_or(Value::Null, |(_, v)| v.clone()),
            AggState::Events(events) => match f {
                AggregateFunction::FunnelWindow(w) => super::funnel::finalize(w, events),
                _ => Value::Null,
            },
            AggState::StepKeys(keys) => super::funnel::funnel_counts(keys),
            AggState::FieldEvents(events) => match f {
                AggregateFunction::FunnelWindow(w) => super::funnel::finalize_fields(w, events),
                _ => Value::Null,
            },
            AggState::Sketch(s) => finalize_sketch(f, s, null_handling),
            AggState::Bool(b) => match b {
                Some(x) => Value::Boolean(*x),
                None if null_handling => Value::Null,
                None => Value::Boolean(matches!(f, AggregateFunction::BoolAnd)),
            },
        }
    }
}

/// A smart distinct count's exact values as its sketch (DISTINCTCOUNTSMARTULL / HLLPLUS).
fn smart_sketch(f: &AggregateFunction, values: &KeySet) -> Result<DataSketch, EngineError> {
    let failed = |e: String| EngineError::execution(format!("{}: {e}", f.name()));
    let (kind, _) = f
        .smart_sketch()
        .ok_or_else(|| failed("exact values and a sketch do not merge".into()))?;
    let mut builder = SketchBuilder::new(kind).map_err(|e| failed(e.to_string()))?;
    values.iter().for_each(|k| builder.update(&k.0));
    Ok(builder.build())
}

/// The final value of a DataSketches function: the rounded estimate of theta and CPC (0 for
/// no rows), KLL's quantile, or the sketch itself base64-encoded (RAW functions, frequent
/// items); NULL where Pinot has no sketch (no rows). The integer tuple aggregations answer as
/// Pinot's with and without null handling: the empty sketch or 0 without it, NULL with it.
fn finalize_sketch(f: &AggregateFunction, s: &DataSketch, null_handling: bool) -> Value {
    if let (
        AggregateFunction::IntegerTupleSketch { result, .. },
        DataSketch::IntegerTuple { sketch, .. },
    ) = (f, s)
    {
        let nothing = null_handling && sketch.is_empty();
        return match result {
            TupleResult::Raw if nothing => Value::Null,
            TupleResult::Raw => Value::String(datasketch::base64(&sketch.serialize())),
            TupleResult::DistinctCount => Value::Long(s.distinct_estimate()),
            TupleResult::SumValues if nothing => Value::Null,
            TupleResult::SumValues => Value::Long(integer_tuple::sum_values_estimate(sketch)),
            TupleResult::AvgValue => {
                integer_tuple::average_value_estimate(sketch).map_or(Value::Null, Value::Long)
            }
        };
    }
    let raw = || match s.is_empty() {
        true => Value::Null,
        false => Value::String(datasketch::base64(&s.serialize())),
    };
    match f {
        AggregateFunction::ThetaSketch { raw: false, .. }
        | AggregateFunction::CpcSketch { raw: false, .. }
        | AggregateFunction::Ull { raw: false, .. }
        | AggregateFunction::HllPlus { raw: false, .. } => Value::Long(s.distinct_estimate()),
        // Pinot's empty id set, or NULL with null handling.
        AggregateFunction::IdSet(_) if s.is_empty() && null_handling => Value::Null,
        AggregateFunction::IdSet(_) => Value::String(datasketch::base64(&s.serialize())),
        // Pinot's RAW HLL+ is the hex of the sketch, an empty one for no rows.
        AggregateFunction::HllPlus { raw: true, .. } => Value::String(encode_hex(&s.serialize())),
        AggregateFunction::DistinctCountSmartUll { .. }
        | AggregateFunction::DistinctCountSmartHllPlus { .. } => {
            Value::Int(s.distinct_estimate().min(i64::from(i32::MAX)) as i32)
        }
        AggregateFunction::PercentileKll {
            raw: false,
            percentile,
            ..
        } => s
            .quantile(percentile / 100.0)
            .map_or(Value::Null, Value::Double),
        _ => raw(),
    }
}

/// FIRSTWITHTIME / LASTWITHTIME: keeps `(time, value)` when it is at least as early (late)
/// as the best so far — among equal times the later offer wins, as in Pinot.
pub fn offer_timed(best: &mut Option<(i64, Value)>, time: i64, value: Value, last: bool) {
    let better = best
        .as_ref()
        .is_none_or(|(t, _)| if last { time >= *t } else { time <= *t });
    if better {
        *best = Some((time, value));
    }
}

/// EXPRMIN / EXPRMAX: keeps `(measure, value)` when the measure is strictly better (the
/// first value at the extreme stays).
pub fn offer_extreme(best: &mut Option<(f64, Value)>, measure: f64, value: Value, max: bool) {
    let better = best
        .as_ref()
        .is_none_or(|(m, _)| if max { measure > *m } else { measure < *m });
    if better {
        *best = Some((measure, value));
    }
}

/// SUMLONG, MINLONG, MAXLONG: two partial results combined.
fn combine_longs(f: &AggregateFunction, x: i64, y: i64) -> Result<i64, EngineError> {
    match f {
        AggregateFunction::MinLong => Ok(x.min(y)),
        AggregateFunction::MaxLong => Ok(x.max(y)),
        _ => x.checked_add(y).ok_or_else(long_overflow),
    }
}

/// The error of an exact integer aggregate that leaves the LONG range.
pub fn long_overflow() -> EngineError {
    EngineError::execution("long overflow")
}

/// STUNION's state: the geometries of `list` replaced by their union (none for no geometry).
pub fn union_geometries(list: &mut Vec<Value>) -> Result<(), EngineError> {
    let union =
        planner::functions::st_union(list).map_err(|e| EngineError::execution(e.to_string()))?;
    list.clear();
    list.extend(union);
    Ok(())
}

/// ARRAYAGG's array (of its element type; distinct values once, first seen first) or
/// LISTAGG's text.
fn finalize_list(f: &AggregateFunction, values: &[Value], null_handling: bool) -> Value {
    let distinct = matches!(
        f,
        AggregateFunction::ArrayAgg { distinct: true, .. }
            | AggregateFunction::ListAgg { distinct: true, .. }
    );
    let kept: Vec<&Value> = if distinct {
        let mut seen = HashSet::new();
        values
            .iter()
            .filter(|v| seen.insert(Key((*v).clone())))
            .collect()
    } else {
        values.iter().collect()
    };
    match f {
        AggregateFunction::ListAgg { separator, .. } => {
            if kept.is_empty() {
                return Value::Null;
            }
            let texts: Vec<String> = kept
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect();
            Value::String(texts.join(separator))
        }
        AggregateFunction::ArrayAgg { element, .. } => {
            if kept.is_empty() && null_handling {
                return Value::Null;
            }
            Value::Array(
                kept.into_iter()
                    .map(|v| v.clone().cast(*element).unwrap_or(Value::Null))
                    .collect(),
            )
        }
        _ => Value::Array(kept.into_iter().cloned().collect()),
    }
}

/// The percentile (0–100) of a percentile function.
fn percentile_of(f: &AggregateFunction) -> f64 {
    match f {
        AggregateFunction::Percentile { percentile }
        | AggregateFunction::PercentileEst { percentile, .. }
        | AggregateFunction::PercentileTDigest { percentile, .. }
        | AggregateFunction::PercentileSmartTDigest { percentile, .. } => *percentile,
        _ => 50.0,
    }
}

/// An empty HyperLogLog (`log2m` was validated by the binder).
pub fn new_hll(log2m: u8) -> HyperLogLog {
    HyperLogLog::new(log2m).unwrap_or_default()
}

/// An empty t-digest (compression was validated by the binder).
pub fn new_tdigest(compression: f64) -> TDigest {
    TDigest::new(compression).unwrap_or_default()
}

/// Pinot's exact percentile: the value at index `floor(n × p / 100)` of the sorted values
/// (the last one for p = 100).
pub fn exact_percentile(values: &[f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let idx = if p >= 100.0 {
        n - 1
    } else {
        ((n as f64 * p / 100.0) as usize).min(n - 1)
    };
    Some(sorted[idx])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Group-by outputs hold a state per group and move them between vectors (parts
    /// concatenated, states merged): a large variant makes every state as large, so large
    /// sketches are boxed.
    #[test]
    fn a_state_is_small() {
        assert!(
            std::mem::size_of::<AggState>() <= 56,
            "{}",
            std::mem::size_of::<AggState>()
        );
    }

    #[test]
    fn infinite_and_nan_states_cross_the_wire() {
        let states = [
            AggState::Sum(Some(f64::INFINITY)),
            AggState::Sum(None),
            AggState::Min(Some(f64::NEG_INFINITY)),
            AggState::Max(Some(1.5)),
            AggState::Avg {
                sum: f64::NEG_INFINITY,
                count: 2,
            },
            AggState::MinMax(Some((f64::NEG_INFINITY, f64::INFINITY))),
            AggState::Values(vec![1.0, f64::INFINITY]),
        ];
        for s in states {
            let text = serde_json::to_string(&s).unwrap();
            assert_eq!(
                serde_json::from_str::<AggState>(&text).unwrap(),
                s,
                "{text}"
            );
        }
    }

    #[test]
    fn empty_results_follow_v1_defaults() {
        let f = AggregateFunction::Min;
        assert_eq!(
            AggState::empty(&f).finalize(&f, false),
            Value::Double(f64::INFINITY)
        );
        assert_eq!(AggState::empty(&f).finalize(&f, true), Value::Null);
        let f = AggregateFunction::Sum;
        assert_eq!(AggState::empty(&f).finalize(&f, false), Value::Double(0.0));
        let f = AggregateFunction::Count;
        assert_eq!(AggState::empty(&f).finalize(&f, true), Value::Long(0));
        let f = AggregateFunction::Avg;
        assert_eq!(
            AggState::empty(&f).finalize(&f, false),
            Value::Double(f64::NEG_INFINITY)
        );
        let f = AggregateFunction::BoolAnd;
        assert_eq!(
            AggState::empty(&f).finalize(&f, false),
            Value::Boolean(true)
        );
        let f = AggregateFunction::DistinctCount;
        assert_eq!(AggState::empty(&f).finalize(&f, false), Value::Int(0));
    }

    #[test]
    fn smart_hll_turns_into_a_sketch_past_its_threshold() {
        let f = AggregateFunction::DistinctCountSmartHll {
            log2m: 12,
            threshold: 3,
        };
        let set =
            |r: std::ops::Range<i64>| AggState::Distinct(r.map(|i| Key(Value::Long(i))).collect());
        let mut a = set(0..2);
        a.merge(set(1..3), &f).unwrap();
        assert!(
            matches!(a, AggState::Distinct(_)),
            "three values stay exact"
        );
        assert_eq!(a.finalize(&f, false), Value::Int(3));
        a.merge(set(3..5), &f).unwrap();
        assert!(matches!(a, AggState::Hll(_)), "five values convert");
        assert_eq!(a.finalize(&f, false), Value::Int(5), "exact at this size");
        a.merge(set(4..7), &f).unwrap();
        let mut b = set(100..102);
        b.merge(a, &f).unwrap();
        assert!(matches!(b, AggState::Hll(_)));
        assert_eq!(b.finalize(&f, false), Value::Int(9));
        let spdc = AggregateFunction::SegmentPartitionedDistinctCount;
        let mut c = AggState::empty(&spdc);
        c.merge(AggState::Count(4), &spdc).unwrap();
        c.merge(AggState::Count(3), &spdc).unwrap();
        assert_eq!(c.finalize(&spdc, true), Value::Long(7));
    }

    #[test]
    fn merges_and_finalizes() {
        let f = AggregateFunction::Avg;
        let mut a = AggState::Avg { sum: 3.0, count: 1 };
        a.merge(AggState::Avg { sum: 5.0, count: 3 }, &f).unwrap();
        assert_eq!(a.finalize(&f, false), Value::Double(2.0));
        let f = AggregateFunction::MinMaxRange;
        let mut m = AggState::MinMax(Some((1.0, 4.0)));
        m.merge(AggState::MinMax(Some((-2.0, 3.0))), &f).unwrap();
        assert_eq!(m.finalize(&f, false), Value::Double(6.0));
        let f = AggregateFunction::Mode;
        let mut md = AggState::Mode(HashMap::from([
            (2.0f64.to_bits(), 2),
            (1.0f64.to_bits(), 1),
        ]));
        md.merge(AggState::Mode(HashMap::from([(1.0f64.to_bits(), 1)])), &f)
            .unwrap();
        assert_eq!(
            md.finalize(&f, false),
            Value::Double(1.0),
            "ties go to the smallest value"
        );
        let f = AggregateFunction::SumPrecision {
            precision: Some(3),
            scale: None,
        };
        let mut d = AggState::Decimal(Some(Decimal::parse("1.234").unwrap()));
        d.merge(AggState::Decimal(Some(Decimal::parse("2").unwrap())), &f)
            .unwrap();
        assert_eq!(d.finalize(&f, false), Value::BigDecimal("3.23".into()));
        let f = AggregateFunction::BoolOr;
        let mut b = AggState::Bool(Some(false));
        b.merge(AggState::Bool(Some(true)), &f).unwrap();
        assert_eq!(b.finalize(&f, false), Value::Boolean(true));
        assert!(
            AggState::Count(1)
                .merge(AggState::Sum(None), &AggregateFunction::Count)
                .is_err()
        );
    }

    #[test]
    fn percentiles_pick_pinots_index() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(exact_percentile(&v, 50.0), Some(6.0));
        assert_eq!(exact_percentile(&v, 0.0), Some(1.0));
        assert_eq!(exact_percentile(&v, 100.0), Some(10.0));
        assert_eq!(exact_percentile(&v, 95.0), Some(10.0));
        assert_eq!(exact_percentile(&[], 50.0), None);
        let f = AggregateFunction::PercentileEst {
            percentile: 50.0,
            raw: false,
        };
        let mut q = QuantileDigest::default();
        v.iter().for_each(|x| q.add(*x as i64));
        assert_eq!(
            AggState::QDigest(Box::new(q)).finalize(&f, false),
            Value::Long(6)
        );
        assert_eq!(
            AggState::empty(&f).finalize(&f, false),
            Value::Long(i64::MIN)
        );
        let f = AggregateFunction::PercentileTDigest {
            percentile: 50.0,
            compression: 100.0,
            raw: false,
        };
        let mut t = new_tdigest(100.0);
        (1..=100).for_each(|x| t.add(x as f64));
        let Value::Double(m) = AggState::TDigest(Box::new(t)).finalize(&f, false) else {
            panic!()
        };
        assert!((50.0..=51.0).contains(&m));
        let f = AggregateFunction::DistinctCountHll { log2m: 8 };
        let mut h = AggState::empty(&f);
        let mut other = new_hll(8);
        (0..10).for_each(|i| other.add(&Value::Int(i)));
        h.merge(AggState::Hll(other), &f).unwrap();
        assert_eq!(h.finalize(&f, false), Value::Long(10));
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(serde_json::from_str::<AggState>(&json).unwrap(), h);
    }
}
