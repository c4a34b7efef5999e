//! [`GroupAccumulator`]: one aggregation's per-group state vectors inside one segment, fed a
//! block at a time.
//!
//! Each block comes with a [`GroupMap`] saying which group every row belongs to (all to group
//! 0 for a plain aggregation, one group per row for single-value keys, several for
//! multi-value keys) and a validity mask (the aggregate's `FILTER`, NULLs). The per-function
//! loops are written once over `f64` ([`visit_numbers`]), with the column's representation
//! matched outside the loop: dictionary ids read a dictionary decoded once per segment
//! (gathered into the block's values before the loop), raw columns read their vectors directly. `DISTINCTCOUNT` over a dictionary column collects
//! dictionary ids in bitmaps and decodes them once, when the segment's states are taken.

use super::moments::{CoMoments, Moments};
use super::state::{AggState, new_hll, new_tdigest, offer_extreme, offer_timed};
use crate::block::{ColumnData, Projected, dict_numbers};
use crate::column::{Cells, Column};
use crate::error::EngineError;
use crate::key::{Key, KeySet};
use crate::sketch::datasketch::{SketchBuilder, SketchKind};
use crate::sketch::{HyperLogLog, QuantileDigest, TDigest};
use planner::plan::aggregate::histogram_bin;
use planner::plan::{AggregateCall, AggregateFunction};
use roaring::RoaringBitmap;
use segments::dictionary::Dictionary;
use segments::types::decimal::Decimal;
use segments::types::value::decimal_of_f64;
use segments::types::{DataType, Value};
use std::collections::{HashMap, HashSet};

/// Row → group assignment for one block.
#[derive(Clone, Copy, Debug)]
pub enum GroupMap<'g> {
    /// Every row belongs to group 0 (aggregation without GROUP BY).
    Single,
    /// Row `i` belongs to group `groups[i]`.
    PerRow(&'g [u32]),
    /// Row `rows[k]` belongs to group `groups[k]` (multi-value keys: a row in several groups).
    Pairs { rows: &'g [u32], groups: &'g [u32] },
}

/// Calls `body(row, group)` for each valid (row, group) pair.
#[inline]
fn drive(
    n: usize,
    groups: GroupMap<'_>,
    valid: Option<&[bool]>,
    mut body: impl FnMut(usize, usize),
) {
    match (groups, valid) {
        (GroupMap::Single, None) => (0..n).for_each(|r| body(r, 0)),
        (GroupMap::Single, Some(m)) => (0..n).filter(|&r| m[r]).for_each(|r| body(r, 0)),
        (GroupMap::PerRow(gs), None) => {
            for (r, &g) in gs[..n.min(gs.len())].iter().enumerate() {
                body(r, g as usize);
            }
        }
        (GroupMap::PerRow(gs), Some(m)) => {
            for (r, &g) in gs.iter().enumerate().take(n) {
                if m[r] {
                    body(r, g as usize);
                }
            }
        }
        (GroupMap::Pairs { rows, groups }, valid) => {
            for (&r, &g) in rows.iter().zip(groups) {
                if valid.is_none_or(|m| m[r as usize]) {
                    body(r as usize, g as usize);
                }
            }
        }
    }
}

/// Numeric value of a dictionary id: the decoded table if present, else the dictionary.
#[inline]
fn dict_number(dict: &Dictionary, decoded: Option<&[f64]>, id: u32) -> f64 {
    match decoded {
        Some(d) => d[id as usize],
        None => dict.f64_at(id),
    }
}

/// Calls `f(group, value)` for every number of every valid row (all values of a
/// multi-value row); NULL values are skipped.
pub fn visit_numbers(
    arg: &Projected<'_>,
    groups: GroupMap<'_>,
    valid: Option<&[bool]>,
    mut f: impl FnMut(usize, f64),
) {
    let n = arg.len();
    match &arg.data {
        ColumnData::F64(v) => drive(n, groups, valid, |r, g| f(g, v[r])),
        ColumnData::I64(v) => drive(n, groups, valid, |r, g| f(g, v[r] as f64)),
        ColumnData::Dict { ids, dict, decoded } => {
            // Gather first, then accumulate from the block's values.
            let values = dict_numbers(ids, dict, *decoded);
            drive(n, groups, valid, |r, g| f(g, values[r]))
        }
        ColumnData::DictMv {
            ids,
            offsets,
            dict,
            decoded,
        } => {
            let decoded = decoded.as_deref();
            drive(n, groups, valid, |r, g| {
                for &id in &ids[offsets[r] as usize..offsets[r + 1] as usize] {
                    f(g, dict_number(dict, decoded, id));
                }
            })
        }
        ColumnData::Values(v) => drive(n, groups, valid, |r, g| match &v[r] {
            Value::Null => {}
            Value::Array(items) => items.iter().filter_map(Value::as_f64).for_each(|x| f(g, x)),
            other => {
                if let Some(x) = other.as_f64() {
                    f(g, x)
                }
            }
        }),
    }
}

/// Calls `f(group, value)` for every value of every valid row (NULLs skipped).
fn visit_values(
    arg: &Projected<'_>,
    groups: GroupMap<'_>,
    valid: Option<&[bool]>,
    mut f: impl FnMut(usize, Value),
) {
    let n = arg.len();
    drive(n, groups, valid, |r, g| match arg.value(r) {
        Value::Null => {}
        Value::Array(items) => items
            .into_iter()
            .filter(|v| !v.is_null())
            .for_each(|v| f(g, v)),
        v => f(g, v),
    })
}

enum States<'a> {
    Count(Vec<i64>),
    Sum(Vec<f64>, Vec<bool>),
    Min(Vec<f64>, Vec<bool>),
    Max(Vec<f64>, Vec<bool>),
    Avg(Vec<f64>, Vec<i64>),
    MinMax(Vec<(f64, f64)>, Vec<bool>),
    DistinctIds(Vec<RoaringBitmap>, &'a Dictionary),
    DistinctValues(Vec<KeySet>),
    Hll(Vec<HyperLogLog>),
    Values(Vec<Vec<f64>>),
    TDigest(Vec<TDigest>),
    QDigest(Vec<QuantileDigest>),
    Mode(Vec<HashMap<u64, i64>>),
    Decimal(Vec<Option<Decimal>>),
    Bool(Vec<Option<bool>>),
    Moments(Vec<Moments>),
    Text(Vec<Option<String>>),
    /// DISTINCTSUM, DISTINCTAVG: distinct numbers as `f64` bits (`-0.0` as `0.0`).
    DistinctNumbers(Vec<HashSet<u64>>),
    Any(Vec<Option<Value>>),
    Long(Vec<Option<i64>>),
    Histogram(Vec<Vec<f64>>),
    DoubleSums(Vec<Vec<f64>>),
    LongSums(Vec<Vec<i64>>),
    List(Vec<Vec<Value>>),
    CoMoments(Vec<CoMoments>),
    Timed(Vec<Option<(i64, Value)>>),
    Extreme(Vec<Option<(f64, Value)>>),
    /// DataSketches, made on a group's first value.
    Sketch(Vec<Option<SketchBuilder>>, SketchKind),
    /// The window funnels' (time, step) events.
    Events(Vec<Vec<super::funnel::Event>>),
    /// FUNNELEVENTSFUNCTIONEVAL's events with their extra fields.
    FieldEvents(Vec<Vec<super::funnel::FieldEvent>>),
    /// FUNNELCOUNT's keys per step (the step count).
    StepKeys(Vec<Vec<KeySet>>, usize),
}

/// One aggregation's states for the groups of one segment.
pub struct GroupAccumulator<'a> {
    function: AggregateFunction,
    multi_value: bool,
    states: States<'a>,
    groups: usize,
}

impl<'a> GroupAccumulator<'a> {
    /// An accumulator for `call`; `arg_dict` is the dictionary when the argument is a
    /// dictionary-encoded column (DISTINCTCOUNT then works on ids).
    pub fn new(call: &AggregateCall, arg_dict: Option<&'a Dictionary>) -> GroupAccumulator<'a> {
        let states = match &call.function {
            AggregateFunction::Count => States::Count(Vec::new()),
            AggregateFunction::Sum => States::Sum(Vec::new(), Vec::new()),
            AggregateFunction::Min => States::Min(Vec::new(), Vec::new()),
            AggregateFunction::Max => States::Max(Vec::new(), Vec::new()),
            AggregateFunction::Avg => States::Avg(Vec::new(), Vec::new()),
            AggregateFunction::MinMaxRange => States::MinMax(Vec::new(), Vec::new()),
            AggregateFunction::DistinctCount
            | AggregateFunction::DistinctCountHll { .. }
            | AggregateFunction::DistinctCountRawHll { .. }
            | AggregateFunction::DistinctCountSmartHll { .. }
            | AggregateFunction::DistinctCountSmartUll { .. }
            | AggregateFunction::DistinctCountSmartHllPlus { .. }
            | AggregateFunction::SegmentPartitionedDistinctCount => {
                match (arg_dict, &call.function) {
                    (Some(d), _) => States::DistinctIds(Vec::new(), d),
                    (None, f) if f.hll_log2m().is_some() => States::Hll(Vec::new()),
                    (None, _) => States::DistinctValues(Vec::new()),
                }
            }
            AggregateFunction::Percentile { .. }
            | AggregateFunction::PercentileSmartTDigest { .. } => States::Values(Vec::new()),
            AggregateFunction::PercentileEst { .. } => States::QDigest(Vec::new()),
            AggregateFunction::PercentileTDigest { .. } => States::TDigest(Vec::new()),
            AggregateFunction::Mode => States::Mode(Vec::new()),
            AggregateFunction::SumPrecision { .. } => States::Decimal(Vec::new()),
            AggregateFunction::BoolAnd | AggregateFunction::BoolOr => States::Bool(Vec::new()),
            AggregateFunction::Skewness
            | AggregateFunction::Kurtosis
            | AggregateFunction::Variance { .. } => States::Moments(Vec::new()),
            AggregateFunction::MinString | AggregateFunction::MaxString => States::Text(Vec::new()),
            AggregateFunction::DistinctSum | AggregateFunction::DistinctAvg => {
                States::DistinctNumbers(Vec::new())
            }
            AggregateFunction::AnyValue => States::Any(Vec::new()),
            AggregateFunction::Sum0 => States::Sum(Vec::new(), Vec::new()),
            AggregateFunction::SumLong
            | AggregateFunction::MinLong
            | AggregateFunction::MaxLong => States::Long(Vec::new()),
            AggregateFunction::Histogram { .. } => States::Histogram(Vec::new()),
            AggregateFunction::SumArray { long: false } => States::DoubleSums(Vec::new()),
            AggregateFunction::SumArray { long: true } => States::LongSums(Vec::new()),
            AggregateFunction::ArrayAgg { .. }
            | AggregateFunction::ListAgg { .. }
            | AggregateFunction::StUnion => States::List(Vec::new()),
            AggregateFunction::Covariance { .. } => States::CoMoments(Vec::new()),
            AggregateFunction::WithTime { .. } => States::Timed(Vec::new()),
            AggregateFunction::ExprMinMax { .. } => States::Extreme(Vec::new()),
            AggregateFunction::FunnelWindow(w)
                if w.kind == planner::plan::funnel::FunnelKind::EventsFunctionEval =>
            {
                States::FieldEvents(Vec::new())
            }
            AggregateFunction::FunnelWindow(_) => States::Events(Vec::new()),
            AggregateFunction::FunnelCount { steps } => {
                States::StepKeys(Vec::new(), *steps as usize)
            }
            AggregateFunction::ThetaSketch { .. }
            | AggregateFunction::CpcSketch { .. }
            | AggregateFunction::Ull { .. }
            | AggregateFunction::HllPlus { .. }
            | AggregateFunction::IdSet(_)
            | AggregateFunction::FrequentItems { .. }
            | AggregateFunction::PercentileKll { .. }
            | AggregateFunction::IntegerTupleSketch { .. } => match call.function.sketch_kind() {
                Some(kind) => States::Sketch(Vec::new(), kind),
                None => States::Any(Vec::new()),
            },
        };
        GroupAccumulator {
            function: call.function.clone(),
            multi_value: call.multi_value,
            states,
            groups: 0,
        }
    }

    /// Makes room for `n` groups.
    pub fn resize(&mut self, n: usize) {
        if n <= self.groups {
            return;
        }
        self.groups = n;
        match &mut self.states {
            States::Count(v) => v.resize(n, 0),
            States::Sum(v, s) => {
                v.resize(n, 0.0);
                s.resize(n, false);
            }
            States::Min(v, s) => {
                v.resize(n, f64::INFINITY);
                s.resize(n, false);
            }
            States::Max(v, s) => {
                v.resize(n, f64::NEG_INFINITY);
                s.resize(n, false);
            }
            States::Avg(v, c) => {
                v.resize(n, 0.0);
                c.resize(n, 0);
            }
            States::MinMax(v, s) => {
                v.resize(n, (f64::INFINITY, f64::NEG_INFINITY));
                s.resize(n, false);
            }
            States::DistinctIds(v, _) => v.resize(n, RoaringBitmap::new()),
            States::DistinctValues(v) => v.resize_with(n, KeySet::default),
            States::Hll(v) => {
                let log2m = self
                    .function
                    .hll_log2m()
                    .unwrap_or(crate::sketch::DEFAULT_LOG2M);
                v.resize_with(n, || new_hll(log2m))
            }
            States::Values(v) => v.resize_with(n, Vec::new),
            States::TDigest(v) => {
                let compression = match self.function {
                    AggregateFunction::PercentileTDigest { compression, .. } => compression,
                    _ => crate::sketch::DEFAULT_COMPRESSION,
                };
                v.resize_with(n, || new_tdigest(compression))
            }
            States::QDigest(v) => v.resize_with(n, QuantileDigest::default),
            States::Mode(v) => v.resize_with(n, HashMap::new),
            States::Decimal(v) => v.resize(n, None),
            States::Text(v) => v.resize(n, None),
            States::Bool(v) => v.resize(n, None),
            States::Moments(v) => v.resize(n, Moments::default()),
            States::DistinctNumbers(v) => v.resize_with(n, HashSet::new),
            States::Any(v) => v.resize(n, None),
            States::Long(v) => v.resize(n, None),
            States::Histogram(v) => {
                let bins = match &self.function {
                    AggregateFunction::Histogram { edges, .. } => edges.len().saturating_sub(1),
                    _ => 0,
                };
                v.resize_with(n, || vec![0.0; bins])
            }
            States::DoubleSums(v) => v.resize_with(n, Vec::new),
            States::LongSums(v) => v.resize_with(n, Vec::new),
            States::List(v) => v.resize_with(n, Vec::new),
            States::CoMoments(v) => v.resize(n, CoMoments::default()),
            States::Timed(v) => v.resize(n, None),
            States::Extreme(v) => v.resize(n, None),
            States::Sketch(v, _) => v.resize_with(n, || None),
            States::Events(v) => v.resize_with(n, Vec::new),
            States::FieldEvents(v) => v.resize_with(n, Vec::new),
            States::StepKeys(v, steps) => {
                let steps = *steps;
                v.resize_with(n, || vec![KeySet::default(); steps])
            }
        }
    }

    /// Adds one block. `arg` is the argument's values (`None` for `COUNT(*)`), `rows` the
    /// block's row count, `valid` the rows the aggregate may see.
    pub fn accumulate(
        &mut self,
        groups: GroupMap<'_>,
        arg: Option<&Projected<'_>>,
        second: Option<&Projected<'_>>,
        rows: usize,
        valid: Option<&[bool]>,
    ) -> Result<(), EngineError> {
        if matches!(groups, GroupMap::Single) {
            self.resize(1);
        }
        let is_and = matches!(self.function, AggregateFunction::BoolAnd);
        // The window funnels keep events that meet no step only in KEEP_ALL mode.
        let keep_all =
            matches!(&self.function, AggregateFunction::FunnelWindow(f) if f.modes.keep_all);
        let Some(arg) = arg else {
            if let States::Count(c) = &mut self.states {
                drive(rows, groups, valid, |_, g| c[g] += 1);
                return Ok(());
            }
            return Err(EngineError::execution(format!(
                "{} needs an argument",
                self.function.name()
            )));
        };
        match &mut self.states {
            States::Count(c) => {
                if self.multi_value {
                    visit_numbers_or_values_count(arg, groups, valid, c);
                } else {
                    drive(rows, groups, valid, |_, g| c[g] += 1);
                }
            }
            States::Sum(v, s) => visit_numbers(arg, groups, valid, |g, x| {
                v[g] += x;
                s[g] = true;
            }),
            States::Min(v, s) => visit_numbers(arg, groups, valid, |g, x| {
                if x < v[g] || !s[g] {
                    v[g] = x;
                }
                s[g] = true;
            }),
            States::Max(v, s) => visit_numbers(arg, groups, valid, |g, x| {
                if x > v[g] || !s[g] {
                    v[g] = x;
                }
                s[g] = true;
            }),
            States::Avg(v, c) => visit_numbers(arg, groups, valid, |g, x| {
                v[g] += x;
                c[g] += 1;
            }),
            States::Moments(m) => visit_numbers(arg, groups, valid, |g, x| m[g].add(x)),
            States::MinMax(v, s) => visit_numbers(arg, groups, valid, |g, x| {
                let (lo, hi) = &mut v[g];
                *lo = lo.min(x);
                *hi = hi.max(x);
                s[g] = true;
            }),
            States::DistinctIds(sets, _) => match &arg.data {
                ColumnData::Dict { ids, .. } => drive(rows, groups, valid, |r, g| {
                    sets[g].insert(ids[r]);
                }),
                ColumnData::DictMv { ids, offsets, .. } => drive(rows, groups, valid, |r, g| {
                    for &id in &ids[offsets[r] as usize..offsets[r + 1] as usize] {
                        sets[g].insert(id);
                    }
                }),
                _ => {
                    return Err(EngineError::execution(
                        "distinct count expected dictionary ids",
                    ));
                }
            },
            States::DistinctValues(sets) => visit_values(arg, groups, valid, |g, v| {
                sets[g].insert(Key(v));
            }),
            States::Hll(h) => visit_values(arg, groups, valid, |g, v| h[g].add(&v)),
            States::Values(v) => visit_numbers(arg, groups, valid, |g, x| v[g].push(x)),
            States::TDigest(t) => visit_numbers(arg, groups, valid, |g, x| t[g].add(x)),
            States::QDigest(q) => visit_numbers(arg, groups, valid, |g, x| q[g].add(x as i64)),
            States::Mode(m) => visit_numbers(arg, groups, valid, |g, x| {
                let x = if x == 0.0 { 0.0 } else { x };
                *m[g].entry(x.to_bits()).or_insert(0) += 1;
            }),
            States::Decimal(d) => {
                let mut failure = None;
                visit_values(arg, groups, valid, |g, v| {
                    let parsed = match &v {
                        Value::Double(x) => decimal_of_f64(*x),
                        Value::Float(x) => decimal_of_f64(*x as f64),
                        other => Decimal::parse(&other.to_string()),
                    };
                    match parsed {
                        Ok(x) => {
                            d[g] = Some(match d[g].take() {
                                Some(acc) => acc.add(&x),
                                None => x,
                            })
                        }
                        Err(e) => {
                            failure.get_or_insert(e);
                        }
                    }
                });
                if let Some(e) = failure {
                    return Err(EngineError::execution(format!("sumprecision: {e}")));
                }
            }
            States::Text(t) => {
                let max = matches!(self.function, AggregateFunction::MaxString);
                visit_values(arg, groups, valid, |g, v| {
                    let text = match v {
                        Value::String(s) | Value::Json(s) => s,
                        other => other.to_string(),
                    };
                    if t[g]
                        .as_ref()
                        .is_none_or(|x| if max { text > *x } else { text < *x })
                    {
                        t[g] = Some(text);
                    }
                })
            }
            States::DistinctNumbers(sets) => visit_numbers(arg, groups, valid, |g, x| {
                sets[g].insert((x + 0.0).to_bits());
            }),
            States::Any(v) => visit_values(arg, groups, valid, |g, x| {
                if v[g].is_none() {
                    v[g] = Some(x);
                }
            }),
            States::Long(v) => {
                let function = &self.function;
                let mut overflow = false;
                visit_values(arg, groups, valid, |g, x| {
                    let Some(x) = exact_long(&x) else {
                        return;
                    };
                    v[g] = Some(match (v[g], function) {
                        (None, _) => x,
                        (Some(acc), AggregateFunction::MinLong) => acc.min(x),
                        (Some(acc), AggregateFunction::MaxLong) => acc.max(x),
                        (Some(acc), _) => acc.checked_add(x).unwrap_or_else(|| {
                            overflow = true;
                            acc
                        }),
                    });
                });
                if overflow {
                    return Err(super::state::long_overflow());
                }
            }
            States::Histogram(h) => {
                if let AggregateFunction::Histogram {
                    edges,
                    equal_length,
                } = &self.function
                {
                    visit_numbers(arg, groups, valid, |g, x| {
                        if let Some(bin) = histogram_bin(edges, *equal_length, x) {
                            h[g][bin] += 1.0;
                        }
                    })
                }
            }
            States::DoubleSums(sums) => drive(rows, groups, valid, |r, g| {
                for (i, x) in row_items(arg, r).iter().enumerate() {
                    if let Some(x) = x.as_f64() {
                        if sums[g].len() <= i {
                            sums[g].resize(i + 1, 0.0);
                        }
                        sums[g][i] += x;
                    }
                }
            }),
            States::LongSums(sums) => {
                let mut overflow = false;
                drive(rows, groups, valid, |r, g| {
                    for (i, x) in row_items(arg, r).iter().enumerate() {
                        if let Some(x) = exact_long(x) {
                            if sums[g].len() <= i {
                                sums[g].resize(i + 1, 0);
                            }
                            match sums[g][i].checked_add(x) {
                                Some(s) => sums[g][i] = s,
                                None => overflow = true,
                            }
                        }
                    }
                });
                if overflow {
                    return Err(super::state::long_overflow());
                }
            }
            States::List(lists) => {
                visit_values(arg, groups, valid, |g, x| lists[g].push(x));
                // A group's geometries are one union after each block.
                if matches!(self.function, AggregateFunction::StUnion) {
                    for list in lists.iter_mut().filter(|l| !l.is_empty()) {
                        super::state::union_geometries(list)?;
                    }
                }
            }
            States::CoMoments(c) => visit_pairs(arg, second, groups, valid, |g, x, y| {
                if let (Some(x), Some(y)) = (x.as_f64(), y.as_f64()) {
                    c[g].add(x, y);
                }
            })?,
            States::Timed(best) => {
                let last = matches!(
                    self.function,
                    AggregateFunction::WithTime { last: true, .. }
                );
                visit_pairs(arg, second, groups, valid, |g, v, t| {
                    if let Some(t) = exact_long(&t) {
                        offer_timed(&mut best[g], t, v, last);
                    }
                })?
            }
            States::Events(events) => visit_pairs(arg, second, groups, valid, |g, t, step| {
                if let (Some(t), Some(step)) = (exact_long(&t), exact_long(&step))
                    && (step >= 0 || keep_all)
                {
                    events[g].push((t, step as i32));
                }
            })?,
            States::FieldEvents(events) => {
                visit_pairs(arg, second, groups, valid, |g, t, encoded| {
                    let Some(mut parts) = encoded
                        .as_str()
                        .and_then(planner::plan::funnel::split_length_prefixed)
                    else {
                        return;
                    };
                    if parts.is_empty() {
                        return;
                    }
                    let step: Option<i32> = parts.remove(0).parse().ok();
                    if let (Some(t), Some(step)) = (exact_long(&t), step)
                        && (step >= 0 || keep_all)
                    {
                        events[g].push((t, step, parts));
                    }
                })?
            }
            States::StepKeys(keys, steps) => {
                let steps = *steps;
                visit_pairs(arg, second, groups, valid, |g, key, mask| {
                    let mask = exact_long(&mask).unwrap_or(0);
                    for (step, set) in keys[g].iter_mut().enumerate().take(steps) {
                        if mask & (1 << step) != 0 {
                            set.insert(Key(key.clone()));
                        }
                    }
                })?
            }
            States::Extreme(best) => {
                let max = matches!(self.function, AggregateFunction::ExprMinMax { max: true });
                visit_pairs(arg, second, groups, valid, |g, v, m| {
                    if let Some(m) = m.as_f64() {
                        offer_extreme(&mut best[g], m, v, max);
                    }
                })?
            }
            States::Sketch(builders, kind) => {
                // A single-value BYTES argument holds serialized sketches (Pinot merges them).
                let serialized = arg.data_type == segments::types::DataType::Bytes
                    && !self.multi_value
                    && kind.takes_serialized();
                let mut failure = None;
                visit_values(arg, groups, valid, |g, v| {
                    if failure.is_some() {
                        return;
                    }
                    let builder = match &mut builders[g] {
                        Some(b) => b,
                        slot @ None => match SketchBuilder::new(*kind) {
                            Ok(b) => slot.insert(b),
                            Err(e) => {
                                failure = Some(e);
                                return;
                            }
                        },
                    };
                    match &v {
                        Value::Bytes(bytes) if serialized => {
                            if let Err(e) = builder.merge_serialized(bytes) {
                                failure = Some(e);
                            }
                        }
                        _ => builder.update(&v),
                    }
                });
                if let Some(e) = failure {
                    return Err(EngineError::execution(format!(
                        "{}: {e}",
                        self.function.name()
                    )));
                }
            }
            States::Bool(b) => visit_numbers(arg, groups, valid, |g, x| {
                let x = x != 0.0;
                b[g] = Some(match b[g] {
                    Some(acc) if is_and => acc && x,
                    Some(acc) => acc || x,
                    None => x,
                });
            }),
        }
        Ok(())
    }

    /// The states of groups `0..n` as a number column of `data_type`
    /// ([`super::number_states`]), when the function's state is one number.
    pub fn number_column(&self, n: usize, data_type: DataType) -> Option<Column> {
        if !super::number_states::is_number_state(&self.function) || self.multi_value {
            return None;
        }
        let have = self.groups.min(n);
        let (cells, nulls) = match &self.states {
            States::Count(c) => {
                let mut counts = c[..have].to_vec();
                counts.resize(n, 0);
                (Cells::I64(counts), None)
            }
            States::Sum(v, seen) | States::Min(v, seen) | States::Max(v, seen) => {
                let mut values = v[..have].to_vec();
                values.resize(n, 0.0);
                let mut nulls: Vec<bool> = seen[..have].iter().map(|s| !s).collect();
                nulls.resize(n, true);
                (Cells::F64(values), nulls.contains(&true).then_some(nulls))
            }
            _ => return None,
        };
        Some(Column {
            cells,
            data_type,
            nulls,
        })
    }

    /// The state of group `g`, moved out where it is a collection (a distinct count's set of
    /// values), else as [`Self::state`]: for a caller done accumulating.
    pub fn take_state(&mut self, g: usize) -> AggState {
        if g < self.groups
            && !matches!(
                self.function,
                AggregateFunction::SegmentPartitionedDistinctCount
            )
            && let States::DistinctValues(sets) = &mut self.states
        {
            let mut state = AggState::Distinct(std::mem::take(&mut sets[g]));
            state.convert_past_threshold(&self.function);
            return state;
        }
        self.state(g)
    }

    /// The state of group `g`.
    pub fn state(&self, g: usize) -> AggState {
        if g >= self.groups {
            return AggState::empty(&self.function);
        }
        let opt = |v: f64, seen: bool| seen.then_some(v);
        match &self.states {
            States::Count(c) => AggState::Count(c[g]),
            States::Sum(v, s) => AggState::Sum(opt(v[g], s[g])),
            States::Min(v, s) => AggState::Min(opt(v[g], s[g])),
            States::Max(v, s) => AggState::Max(opt(v[g], s[g])),
            States::Avg(v, c) => AggState::Avg {
                sum: v[g],
                count: c[g],
            },
            States::MinMax(v, s) => AggState::MinMax(s[g].then_some(v[g])),
            States::DistinctIds(sets, dict) => match self.function {
                AggregateFunction::DistinctCountHll { log2m }
                | AggregateFunction::DistinctCountRawHll { log2m } => {
                    let mut h = new_hll(log2m);
                    sets[g].iter().for_each(|id| h.add(&dict.value(id)));
                    AggState::Hll(h)
                }
                // Each segment contributes its own distinct count.
                AggregateFunction::SegmentPartitionedDistinctCount => {
                    AggState::Count(sets[g].len() as i64)
                }
                _ => {
                    let mut state =
                        AggState::Distinct(sets[g].iter().map(|id| Key(dict.value(id))).collect());
                    state.convert_past_threshold(&self.function);
                    state
                }
            },
            States::DistinctValues(sets) => match self.function {
                AggregateFunction::SegmentPartitionedDistinctCount => {
                    AggState::Count(sets[g].len() as i64)
                }
                _ => {
                    let mut state = AggState::Distinct(sets[g].clone());
                    state.convert_past_threshold(&self.function);
                    state
                }
            },
            States::Hll(h) => AggState::Hll(h[g].clone()),
            States::Values(v) => {
                let mut state = AggState::Values(v[g].clone());
                state.convert_past_threshold(&self.function);
                state
            }
            States::TDigest(t) => AggState::TDigest(Box::new(t[g].clone())),
            States::QDigest(q) => AggState::QDigest(Box::new(q[g].clone())),
            States::Mode(m) => AggState::Mode(m[g].clone()),
            States::Decimal(d) => AggState::Decimal(d[g].clone()),
            States::Bool(b) => AggState::Bool(b[g]),
            States::Text(t) => AggState::Text(t[g].clone()),
            States::Moments(m) => AggState::Moments(m[g]),
            States::DistinctNumbers(sets) => AggState::Distinct(
                sets[g]
                    .iter()
                    .map(|bits| Key(Value::Double(f64::from_bits(*bits))))
                    .collect(),
            ),
            States::Any(v) => AggState::Any(v[g].clone()),
            States::Long(v) => AggState::Long(v[g]),
            States::Histogram(h) => AggState::Doubles(h[g].clone()),
            States::DoubleSums(v) => AggState::Doubles(v[g].clone()),
            States::LongSums(v) => AggState::Longs(v[g].clone()),
            States::List(v) => AggState::List(v[g].clone()),
            States::CoMoments(c) => AggState::CoMoments(c[g]),
            States::Timed(v) => AggState::Timed(v[g].clone()),
            States::Extreme(v) => AggState::Extreme(v[g].clone()),
            States::Sketch(v, _) => match &v[g] {
                Some(b) => AggState::Sketch(Box::new(b.build())),
                None => AggState::empty(&self.function),
            },
            States::Events(v) => AggState::Events(v[g].clone()),
            States::FieldEvents(v) => AggState::FieldEvents(v[g].clone()),
            States::StepKeys(v, _) => AggState::StepKeys(v[g].clone()),
        }
    }
}

/// Calls `f(group, value, second value)` for every valid row where neither is NULL (the
/// two-argument aggregates).
fn visit_pairs(
    arg: &Projected<'_>,
    second: Option<&Projected<'_>>,
    groups: GroupMap<'_>,
    valid: Option<&[bool]>,
    mut f: impl FnMut(usize, Value, Value),
) -> Result<(), EngineError> {
    let second =
        second.ok_or_else(|| EngineError::execution("the aggregate needs two arguments"))?;
    drive(arg.len().min(second.len()), groups, valid, |r, g| {
        let (a, b) = (arg.value(r), second.value(r));
        if !a.is_null() && !b.is_null() {
            f(g, a, b);
        }
    });
    Ok(())
}

/// A row's values: the items of an array, or the value itself.
fn row_items(arg: &Projected<'_>, r: usize) -> Vec<Value> {
    match arg.value(r) {
        Value::Array(items) => items,
        Value::Null => Vec::new(),
        v => vec![v],
    }
}

/// An integer value exactly (`SUMLONG` and friends); fractional numbers truncate as Java's
/// `long` conversion does.
fn exact_long(v: &Value) -> Option<i64> {
    match v {
        Value::Int(x) => Some(i64::from(*x)),
        Value::Long(x) | Value::Timestamp(x) => Some(*x),
        Value::Boolean(b) => Some(i64::from(*b)),
        other => other.as_f64().map(|x| x as i64),
    }
}

/// `COUNTMV`: the number of values of every valid row.
fn visit_numbers_or_values_count(
    arg: &Projected<'_>,
    groups: GroupMap<'_>,
    valid: Option<&[bool]>,
    c: &mut [i64],
) {
    let n = arg.len();
    match &arg.data {
        ColumnData::DictMv { offsets, .. } => drive(n, groups, valid, |r, g| {
            c[g] += (offsets[r + 1] - offsets[r]) as i64
        }),
        ColumnData::Values(v) => drive(n, groups, valid, |r, g| {
            c[g] += match &v[r] {
                Value::Null => 0,
                Value::Array(items) => items.len() as i64,
                _ => 1,
            }
        }),
        _ => drive(n, groups, valid, |_, g| c[g] += 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::plan::AggregateCall;
    use segments::types::DataType;

    fn call(function: AggregateFunction, multi_value: bool) -> AggregateCall {
        AggregateCall {
            function,
            arg: None,
            second: None,
            multi_value,
            filter: None,
            name: "x".into(),
        }
    }

    fn f64s(v: Vec<f64>) -> Projected<'static> {
        Projected {
            data: ColumnData::F64(v),
            data_type: DataType::Double,
            nulls: None,
        }
    }

    fn finals(acc: &GroupAccumulator<'_>, f: &AggregateFunction, n: usize) -> Vec<Value> {
        (0..n).map(|g| acc.state(g).finalize(f, false)).collect()
    }

    #[test]
    fn sums_by_group_with_mask() {
        let f = AggregateFunction::Sum;
        let mut acc = GroupAccumulator::new(&call(f.clone(), false), None);
        acc.resize(2);
        let arg = f64s(vec![1.0, 2.0, 3.0, 4.0]);
        acc.accumulate(
            GroupMap::PerRow(&[0, 1, 0, 1]),
            Some(&arg),
            None,
            4,
            Some(&[true, true, true, false]),
        )
        .unwrap();
        assert_eq!(
            finals(&acc, &f, 2),
            vec![Value::Double(4.0), Value::Double(2.0)]
        );
    }

    #[test]
    fn single_group_functions() {
        let arg = f64s(vec![3.0, 1.0, 3.0, 2.0]);
        let cases = [
            (AggregateFunction::Count, Value::Long(4)),
            (AggregateFunction::Min, Value::Double(1.0)),
            (AggregateFunction::Max, Value::Double(3.0)),
            (AggregateFunction::Avg, Value::Double(2.25)),
            (AggregateFunction::MinMaxRange, Value::Double(2.0)),
            (AggregateFunction::DistinctCount, Value::Int(3)),
            (AggregateFunction::Mode, Value::Double(3.0)),
            (
                AggregateFunction::Percentile { percentile: 50.0 },
                Value::Double(3.0),
            ),
            (
                AggregateFunction::PercentileEst {
                    percentile: 50.0,
                    raw: false,
                },
                Value::Long(3),
            ),
            (
                AggregateFunction::DistinctCountHll { log2m: 8 },
                Value::Long(3),
            ),
            (AggregateFunction::BoolAnd, Value::Boolean(true)),
            (
                AggregateFunction::SumPrecision {
                    precision: None,
                    scale: None,
                },
                Value::BigDecimal("9.0".into()),
            ),
        ];
        for (f, expected) in cases {
            let mut acc = GroupAccumulator::new(&call(f.clone(), false), None);
            acc.accumulate(GroupMap::Single, Some(&arg), None, 4, None)
                .unwrap();
            assert_eq!(acc.state(0).finalize(&f, false), expected, "{f:?}");
        }
    }

    #[test]
    fn pairs_and_multi_value_values() {
        let f = AggregateFunction::Count;
        let mut acc = GroupAccumulator::new(&call(f.clone(), true), None);
        acc.resize(2);
        let arg = Projected::values(
            DataType::Int,
            vec![
                Value::Array(vec![Value::Int(1), Value::Int(2)]),
                Value::Null,
                Value::Int(5),
            ],
        );
        acc.accumulate(
            GroupMap::Pairs {
                rows: &[0, 0, 2],
                groups: &[0, 1, 1],
            },
            Some(&arg),
            None,
            3,
            None,
        )
        .unwrap();
        assert_eq!(finals(&acc, &f, 2), vec![Value::Long(2), Value::Long(3)]);
        let s = AggregateFunction::Sum;
        let mut sum = GroupAccumulator::new(&call(s.clone(), true), None);
        sum.accumulate(GroupMap::Single, Some(&arg), None, 3, None)
            .unwrap();
        assert_eq!(sum.state(0).finalize(&s, true), Value::Double(8.0));
        // Groups never touched report the empty state.
        assert_eq!(sum.state(7).finalize(&s, true), Value::Null);
    }

    #[test]
    fn count_star_needs_no_argument_others_do() {
        let f = AggregateFunction::Count;
        let mut acc = GroupAccumulator::new(&call(f.clone(), false), None);
        acc.accumulate(
            GroupMap::Single,
            None,
            None,
            5,
            Some(&[true, false, true, true, false]),
        )
        .unwrap();
        assert_eq!(acc.state(0).finalize(&f, false), Value::Long(3));
        let mut sum = GroupAccumulator::new(&call(AggregateFunction::Sum, false), None);
        assert!(
            sum.accumulate(GroupMap::Single, None, None, 1, None)
                .is_err()
        );
    }
}
