//! Aggregations: the [`AggregateFunction`]s the single-stage engine runs, their parameters
//! (percentile, HLL precision, …) and v1 result types, and [`AggregateCall`] — one
//! aggregation in a plan with its argument and optional `FILTER (WHERE …)`.
//!
//! Names are resolved by canonical form (lower case, `_` removed), so `BOOL_AND`, `boolAnd`
//! and `booland` are the same function; `PERCENTILE95(x)` is the legacy spelling of
//! `PERCENTILE(x, 95)`; the `…MV` variants aggregate every value of a multi-value column.

use super::expr::Expr;
use super::filter::FilterExpr;
use super::funnel::{FunnelKind, WindowFunnel};
use segments::sketch::datasketch::{self, SketchKind};
use segments::sketch::id_set::IdSetParams;
use segments::sketch::{hll_plus, ull};
use segments::types::{ColumnType, DataType};
use serde::{Deserialize, Serialize};

/// Default `log2m` of DISTINCTCOUNTHLL (Pinot's `CommonConstants.Helix.DEFAULT_HYPERLOGLOG_LOG2M`).
pub const DEFAULT_HLL_LOG2M: u8 = 8;
/// Default t-digest compression (Pinot's `PercentileTDigestAggregationFunction.DEFAULT_TDIGEST_COMPRESSION`).
pub const DEFAULT_TDIGEST_COMPRESSION: f64 = 100.0;

/// An aggregation function with its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum AggregateFunction {
    Count,
    Sum,
    Min,
    Max,
    Avg,
    MinMaxRange,
    /// Exact distinct count (also `COUNT(DISTINCT x)`).
    DistinctCount,
    DistinctCountHll {
        log2m: u8,
    },
    /// The HyperLogLog of DISTINCTCOUNTHLL itself, serialized as Pinot does and hex-encoded
    /// (`DISTINCTCOUNTRAWHLL`); STRING result.
    DistinctCountRawHll {
        log2m: u8,
    },
    /// Exact distinct count that turns into a HyperLogLog of `2^log2m` registers once more
    /// than `threshold` distinct values are seen (`DISTINCTCOUNTSMARTHLL`); INT result.
    DistinctCountSmartHll {
        log2m: u8,
        threshold: u32,
    },
    /// Exact distinct count that turns into an UltraLogLog of `2^p` registers once more than
    /// `threshold` distinct values are seen (`DISTINCTCOUNTSMARTULL`); INT result.
    DistinctCountSmartUll {
        p: u8,
        threshold: u32,
    },
    /// The sum over segments of each segment's exact distinct count
    /// (`SEGMENTPARTITIONEDDISTINCTCOUNT`): exact when the column is partitioned by segment.
    SegmentPartitionedDistinctCount,
    /// Exact percentile over all values (0–100).
    Percentile {
        percentile: f64,
    },
    /// Quantile-digest estimate (LONG), or the digest itself (`PERCENTILERAWEST`): hex of
    /// Pinot's (Airlift's) `QuantileDigest` bytes (STRING).
    PercentileEst {
        percentile: f64,
        #[serde(default)]
        raw: bool,
    },
    /// A t-digest's estimate (DOUBLE), or the digest itself (`PERCENTILERAWTDIGEST`): hex of
    /// the t-digest library's `MergingDigest` bytes, as Pinot returns it (STRING).
    PercentileTDigest {
        percentile: f64,
        compression: f64,
        #[serde(default)]
        raw: bool,
    },
    /// The exact percentile while a group holds at most `threshold` values, a t-digest's
    /// estimate past that (`PERCENTILESMARTTDIGEST(x, p[, 'threshold=…;compression=…'])`).
    PercentileSmartTDigest {
        percentile: f64,
        threshold: u32,
        compression: f64,
    },
    /// Most frequent value (ties: the smallest).
    Mode,
    /// Exact decimal sum, rounded to `precision` significant digits and `scale` if given.
    SumPrecision {
        precision: Option<u32>,
        scale: Option<u32>,
    },
    BoolAnd,
    BoolOr,
    /// Sample skewness (Pinot's fourth-moment `SKEWNESS`).
    Skewness,
    /// Sample excess kurtosis (`KURTOSIS`).
    Kurtosis,
    /// The smallest value of a text column, by its bytes (`MINSTRING`; what `MIN` of a
    /// STRING becomes under `autoRewriteAggregationType`); STRING result.
    MinString,
    /// The largest such value (`MAXSTRING`).
    MaxString,
    /// Population or sample variance, or its square root (`VARPOP`, `VARSAMP`, `STDDEVPOP`,
    /// `STDDEVSAMP`); DOUBLE.
    Variance {
        sample: bool,
        std_dev: bool,
    },
    /// The sum of the distinct values (`DISTINCTSUM`); DOUBLE.
    DistinctSum,
    /// The average of the distinct values (`DISTINCTAVG`); DOUBLE.
    DistinctAvg,
    /// Any one value of the group (`ANYVALUE`), of the argument's type.
    AnyValue,
    /// The union of the group's geometries (`STUNION`, over Pinot's serialized geometries);
    /// BYTES, a serialized geometry.
    StUnion,
    /// `SUM` whose sum of no rows is 0, also with null handling (Calcite's `$SUM0`).
    Sum0,
    /// Exact integer sum (`SUMLONG`, `SUMINT`); LONG, overflow is an error.
    SumLong,
    /// Exact integer minimum (`MINLONG`); LONG.
    MinLong,
    /// Exact integer maximum (`MAXLONG`); LONG.
    MaxLong,
    /// Counts per bin (`HISTOGRAM(x, lower, upper, bins)`: equal bins; `HISTOGRAM(x,
    /// ARRAY[e0, e1, …])`: the given edges); bins are `[e_i, e_i+1)`, the last one closed.
    /// DOUBLE array.
    Histogram {
        edges: Vec<f64>,
        equal_length: bool,
    },
    /// The values as an array of `element` (`ARRAYAGG(x, 'INT'[, distinct])`), in the order
    /// rows are read.
    ArrayAgg {
        element: DataType,
        distinct: bool,
    },
    /// The values' text joined by `separator` (`LISTAGG(x[, sep])`); STRING.
    ListAgg {
        separator: String,
        distinct: bool,
    },
    /// Element-wise sum of arrays (`SUMARRAYLONG`: LONG array, `SUMARRAYDOUBLE`: DOUBLE array).
    SumArray {
        long: bool,
    },
    /// Population or sample covariance of the argument and [`AggregateCall::second`]
    /// (`COVARPOP(x, y)`, `COVARSAMP(x, y)`); DOUBLE.
    Covariance {
        sample: bool,
    },
    /// The value at the smallest (`FIRSTWITHTIME(v, t, 'INT')`) or largest (`LASTWITHTIME`)
    /// time, the time being [`AggregateCall::second`]; of type `element`. Among equal times
    /// the last row read wins, as in Pinot.
    WithTime {
        last: bool,
        element: DataType,
    },
    /// The argument's value at the smallest (`EXPRMIN(x, m)`) or largest (`EXPRMAX`) measure,
    /// the measure being [`AggregateCall::second`]; of the argument's type.
    ExprMinMax {
        max: bool,
    },
    /// Theta-sketch distinct count (`DISTINCTCOUNTTHETASKETCH`, LONG) or the merged sketch
    /// itself, serialized compact and base64-encoded (`DISTINCTCOUNTRAWTHETASKETCH`, STRING). A
    /// BYTES argument holds serialized sketches, which are merged.
    ThetaSketch {
        lg_k: u8,
        sampling_probability: f32,
        raw: bool,
    },
    /// CPC-sketch distinct count (`DISTINCTCOUNTCPCSKETCH`, LONG) or the sketch, base64
    /// (`DISTINCTCOUNTRAWCPCSKETCH`, STRING).
    CpcSketch {
        lg_k: u8,
        raw: bool,
    },
    /// UltraLogLog distinct count (`DISTINCTCOUNTULL`, LONG) or its registers, base64
    /// (`DISTINCTCOUNTRAWULL`, STRING).
    Ull {
        p: u8,
        raw: bool,
    },
    /// HyperLogLog++ distinct count (`DISTINCTCOUNTHLLPLUS`, LONG) or the sketch, hex of
    /// stream-lib's bytes (`DISTINCTCOUNTRAWHLLPLUS`, STRING).
    HllPlus {
        p: u8,
        sp: u8,
        raw: bool,
    },
    /// The set of the values as Pinot's id set (`IDSET`): a roaring bitmap of INT or LONG ids,
    /// a Bloom filter of other ids; STRING (base64).
    IdSet(IdSetParams),
    /// Exact distinct count that turns into a HyperLogLog++ once more than `threshold` distinct
    /// values are seen (`DISTINCTCOUNTSMARTHLLPLUS`); INT result.
    DistinctCountSmartHllPlus {
        p: u8,
        sp: u8,
        threshold: u32,
    },
    /// A frequent-items sketch of text (`FREQUENTSTRINGSSKETCH`) or of integers
    /// (`FREQUENTLONGSSKETCH`), serialized and base64-encoded; STRING, NULL for no rows.
    FrequentItems {
        longs: bool,
        max_map_size: u32,
    },
    /// A window funnel (`FUNNELMAXSTEP`, …) over events: the argument is the time,
    /// [`AggregateCall::second`] the step each row matched (−1: none; [`super::funnel`]).
    FunnelWindow(WindowFunnel),
    /// `FUNNELCOUNT`: per step, the correlation keys (the argument) that met every step up
    /// to it ([`AggregateCall::second`]: the bit mask of the steps a row meets); LONG array.
    FunnelCount {
        steps: u32,
    },
    /// A KLL quantile (`PERCENTILEKLL(x, p[, k])`, DOUBLE) or the sketch, base64
    /// (`PERCENTILERAWKLL`, STRING); NULL for no rows.
    PercentileKll {
        percentile: f64,
        k: u16,
        raw: bool,
    },
    /// An aggregation of serialized integer tuple sketches (a BYTES column of sum-mode
    /// sketches, as `toIntegerSumTupleSketch` makes them): their union of 2^`lg_k` entries,
    /// answered as [`TupleResult`] says.
    IntegerTupleSketch {
        lg_k: u8,
        result: TupleResult,
    },
}

/// What an integer tuple sketch aggregation answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TupleResult {
    /// The union itself, base64 (`DISTINCTCOUNTRAWINTEGERSUMTUPLESKETCH`, STRING).
    Raw,
    /// The distinct keys (`DISTINCTCOUNTTUPLESKETCH`, LONG).
    DistinctCount,
    /// The estimated sum of the values (`SUMVALUESINTEGERSUMTUPLESKETCH`, LONG).
    SumValues,
    /// The mean value per key (`AVGVALUEINTEGERSUMTUPLESKETCH`, LONG; NULL for no keys).
    AvgValue,
}

impl AggregateFunction {
    /// Pinot's upper-case function name (`DISTINCTCOUNTHLL`), as EXPLAIN prints it lower-cased.
    pub fn name(&self) -> &'static str {
        match self {
            AggregateFunction::Count => "count",
            AggregateFunction::Sum => "sum",
            AggregateFunction::Min => "min",
            AggregateFunction::Max => "max",
            AggregateFunction::Avg => "avg",
            AggregateFunction::MinMaxRange => "minmaxrange",
            AggregateFunction::DistinctCount => "distinctcount",
            AggregateFunction::DistinctCountHll { .. } => "distinctcounthll",
            AggregateFunction::DistinctCountRawHll { .. } => "distinctcountrawhll",
            AggregateFunction::DistinctCountSmartHll { .. } => "distinctcountsmarthll",
            AggregateFunction::DistinctCountSmartUll { .. } => "distinctcountsmartull",
            AggregateFunction::SegmentPartitionedDistinctCount => "segmentpartitioneddistinctcount",
            AggregateFunction::Percentile { .. } => "percentile",
            AggregateFunction::PercentileEst { raw: false, .. } => "percentileest",
            AggregateFunction::PercentileEst { raw: true, .. } => "percentilerawest",
            AggregateFunction::PercentileTDigest { raw: false, .. } => "percentiletdigest",
            AggregateFunction::PercentileTDigest { raw: true, .. } => "percentilerawtdigest",
            AggregateFunction::PercentileSmartTDigest { .. } => "percentilesmarttdigest",
            AggregateFunction::Mode => "mode",
            AggregateFunction::SumPrecision { .. } => "sumprecision",
            AggregateFunction::BoolAnd => "booland",
            AggregateFunction::BoolOr => "boolor",
            AggregateFunction::Skewness => "skewness",
            AggregateFunction::Kurtosis => "kurtosis",
            AggregateFunction::MinString => "minstring",
            AggregateFunction::MaxString => "maxstring",
            AggregateFunction::Variance { sample, std_dev } => match (sample, std_dev) {
                (false, false) => "varpop",
                (true, false) => "varsamp",
                (false, true) => "stddevpop",
                (true, true) => "stddevsamp",
            },
            AggregateFunction::DistinctSum => "distinctsum",
            AggregateFunction::DistinctAvg => "distinctavg",
            AggregateFunction::AnyValue => "anyvalue",
            AggregateFunction::StUnion => "stunion",
            AggregateFunction::Sum0 => "$sum0",
            AggregateFunction::SumLong => "sumlong",
            AggregateFunction::MinLong => "minlong",
            AggregateFunction::MaxLong => "maxlong",
            AggregateFunction::Histogram { .. } => "histogram",
            AggregateFunction::ArrayAgg { .. } => "arrayagg",
            AggregateFunction::ListAgg { .. } => "listagg",
            AggregateFunction::SumArray { long: true } => "sumarraylong",
            AggregateFunction::SumArray { long: false } => "sumarraydouble",
            AggregateFunction::Covariance { sample: false } => "covarpop",
            AggregateFunction::Covariance { sample: true } => "covarsamp",
            AggregateFunction::WithTime { last: false, .. } => "firstwithtime",
            AggregateFunction::WithTime { last: true, .. } => "lastwithtime",
            AggregateFunction::ExprMinMax { max: false } => "exprmin",
            AggregateFunction::ExprMinMax { max: true } => "exprmax",
            AggregateFunction::ThetaSketch { raw: false, .. } => "distinctcountthetasketch",
            AggregateFunction::ThetaSketch { raw: true, .. } => "distinctcountrawthetasketch",
            AggregateFunction::CpcSketch { raw: false, .. } => "distinctcountcpcsketch",
            AggregateFunction::CpcSketch { raw: true, .. } => "distinctcountrawcpcsketch",
            AggregateFunction::Ull { raw: false, .. } => "distinctcountull",
            AggregateFunction::Ull { raw: true, .. } => "distinctcountrawull",
            AggregateFunction::HllPlus { raw: false, .. } => "distinctcounthllplus",
            AggregateFunction::HllPlus { raw: true, .. } => "distinctcountrawhllplus",
            AggregateFunction::DistinctCountSmartHllPlus { .. } => "distinctcountsmarthllplus",
            AggregateFunction::IdSet(_) => "idset",
            AggregateFunction::FrequentItems { longs: false, .. } => "frequentstringssketch",
            AggregateFunction::FrequentItems { longs: true, .. } => "frequentlongssketch",
            AggregateFunction::FunnelWindow(f) => match f.kind {
                FunnelKind::MaxStep => "funnelmaxstep",
                FunnelKind::MatchStep => "funnelmatchstep",
                FunnelKind::CompleteCount => "funnelcompletecount",
                FunnelKind::StepDurationStats => "funnelstepdurationstats",
                FunnelKind::EventsFunctionEval => "funneleventsfunctioneval",
            },
            AggregateFunction::FunnelCount { .. } => "funnelcount",
            AggregateFunction::PercentileKll { raw: false, .. } => "percentilekll",
            AggregateFunction::PercentileKll { raw: true, .. } => "percentilerawkll",
            AggregateFunction::IntegerTupleSketch { result, .. } => match result {
                TupleResult::Raw => "distinctcountrawintegersumtuplesketch",
                TupleResult::DistinctCount => "distinctcounttuplesketch",
                TupleResult::SumValues => "sumvaluesintegersumtuplesketch",
                TupleResult::AvgValue => "avgvalueintegersumtuplesketch",
            },
        }
    }

    /// The v1 final result type.
    pub fn result_type(&self) -> DataType {
        match self {
            AggregateFunction::Count => DataType::Long,
            AggregateFunction::Sum
            | AggregateFunction::Min
            | AggregateFunction::Max
            | AggregateFunction::Avg
            | AggregateFunction::MinMaxRange
            | AggregateFunction::Percentile { .. }
            | AggregateFunction::PercentileTDigest { raw: false, .. }
            | AggregateFunction::PercentileSmartTDigest { .. }
            | AggregateFunction::Mode
            | AggregateFunction::Skewness
            | AggregateFunction::Kurtosis
            | AggregateFunction::Variance { .. }
            | AggregateFunction::DistinctSum
            | AggregateFunction::DistinctAvg
            | AggregateFunction::Sum0
            | AggregateFunction::Histogram { .. }
            | AggregateFunction::SumArray { long: false }
            | AggregateFunction::Covariance { .. }
            | AggregateFunction::PercentileKll { raw: false, .. } => DataType::Double,
            AggregateFunction::ThetaSketch { raw: false, .. }
            | AggregateFunction::CpcSketch { raw: false, .. }
            | AggregateFunction::Ull { raw: false, .. }
            | AggregateFunction::HllPlus { raw: false, .. } => DataType::Long,
            AggregateFunction::IntegerTupleSketch {
                result: TupleResult::Raw,
                ..
            } => DataType::String,
            AggregateFunction::IntegerTupleSketch { .. } => DataType::Long,
            AggregateFunction::ThetaSketch { raw: true, .. }
            | AggregateFunction::CpcSketch { raw: true, .. }
            | AggregateFunction::Ull { raw: true, .. }
            | AggregateFunction::HllPlus { raw: true, .. }
            | AggregateFunction::IdSet(_)
            | AggregateFunction::FrequentItems { .. }
            | AggregateFunction::PercentileTDigest { raw: true, .. }
            | AggregateFunction::PercentileKll { raw: true, .. } => DataType::String,
            AggregateFunction::WithTime { element, .. } => *element,
            AggregateFunction::FunnelWindow(f) => match f.kind {
                FunnelKind::StepDurationStats => DataType::Double,
                FunnelKind::EventsFunctionEval => DataType::String,
                _ => DataType::Int,
            },
            AggregateFunction::FunnelCount { .. } => DataType::Long,
            AggregateFunction::SumLong
            | AggregateFunction::MinLong
            | AggregateFunction::MaxLong
            | AggregateFunction::SumArray { long: true } => DataType::Long,
            AggregateFunction::ArrayAgg { element, .. } => *element,
            AggregateFunction::ListAgg { .. } => DataType::String,
            // The argument's type (see [`AggregateCall::result_column_type`]).
            AggregateFunction::AnyValue | AggregateFunction::ExprMinMax { .. } => DataType::String,
            AggregateFunction::DistinctCount
            | AggregateFunction::DistinctCountSmartHll { .. }
            | AggregateFunction::DistinctCountSmartUll { .. }
            | AggregateFunction::DistinctCountSmartHllPlus { .. } => DataType::Int,
            AggregateFunction::DistinctCountHll { .. }
            | AggregateFunction::SegmentPartitionedDistinctCount
            | AggregateFunction::PercentileEst { raw: false, .. } => DataType::Long,
            AggregateFunction::PercentileEst { raw: true, .. } => DataType::String,
            AggregateFunction::SumPrecision { .. } => DataType::BigDecimal,
            AggregateFunction::DistinctCountRawHll { .. } => DataType::String,
            AggregateFunction::BoolAnd | AggregateFunction::BoolOr => DataType::Boolean,
            AggregateFunction::MinString | AggregateFunction::MaxString => DataType::String,
            AggregateFunction::StUnion => DataType::Bytes,
        }
    }

    /// Whether the result is an array (`HISTOGRAM`, `ARRAYAGG`, `SUMARRAY…`).
    pub fn returns_array(&self) -> bool {
        matches!(
            self,
            AggregateFunction::Histogram { .. }
                | AggregateFunction::ArrayAgg { .. }
                | AggregateFunction::SumArray { .. }
                | AggregateFunction::FunnelCount { .. }
        ) || matches!(self, AggregateFunction::FunnelWindow(f)
            if !matches!(f.kind, FunnelKind::MaxStep | FunnelKind::CompleteCount))
    }

    /// The `log2m` of the functions whose state is a HyperLogLog from the start.
    pub fn hll_log2m(&self) -> Option<u8> {
        match self {
            AggregateFunction::DistinctCountHll { log2m }
            | AggregateFunction::DistinctCountRawHll { log2m } => Some(*log2m),
            _ => None,
        }
    }

    /// A smart distinct count's sketch (`DISTINCTCOUNTSMARTULL`, `DISTINCTCOUNTSMARTHLLPLUS`)
    /// and the count of exact values past which it takes over.
    pub fn smart_sketch(&self) -> Option<(SketchKind, u32)> {
        match self {
            AggregateFunction::DistinctCountSmartUll { p, threshold } => {
                Some((SketchKind::Ull { p: *p }, *threshold))
            }
            AggregateFunction::DistinctCountSmartHllPlus { p, sp, threshold } => {
                Some((SketchKind::HllPlus { p: *p, sp: *sp }, *threshold))
            }
            _ => None,
        }
    }

    /// The Apache DataSketches sketch the function builds, with its parameters.
    pub fn sketch_kind(&self) -> Option<SketchKind> {
        match self {
            AggregateFunction::ThetaSketch {
                lg_k,
                sampling_probability,
                ..
            } => Some(SketchKind::Theta {
                lg_k: *lg_k,
                p: *sampling_probability,
            }),
            AggregateFunction::CpcSketch { lg_k, .. } => Some(SketchKind::Cpc { lg_k: *lg_k }),
            AggregateFunction::Ull { p, .. } => Some(SketchKind::Ull { p: *p }),
            AggregateFunction::HllPlus { p, sp, .. } => {
                Some(SketchKind::HllPlus { p: *p, sp: *sp })
            }
            AggregateFunction::IdSet(params) => Some(SketchKind::IdSet(*params)),
            AggregateFunction::FrequentItems {
                longs: false,
                max_map_size,
            } => Some(SketchKind::FrequentStrings {
                max_map_size: *max_map_size,
            }),
            AggregateFunction::FrequentItems {
                longs: true,
                max_map_size,
            } => Some(SketchKind::FrequentLongs {
                max_map_size: *max_map_size,
            }),
            AggregateFunction::PercentileKll { k, .. } => Some(SketchKind::Kll { k: *k }),
            AggregateFunction::IntegerTupleSketch { lg_k, .. } => {
                Some(SketchKind::IntegerTuple { lg_k: *lg_k })
            }
            _ => None,
        }
    }

    /// Whether the function needs numeric input.
    pub fn needs_numeric(&self) -> bool {
        !matches!(
            self,
            AggregateFunction::Count
                | AggregateFunction::DistinctCount
                | AggregateFunction::DistinctCountHll { .. }
                | AggregateFunction::DistinctCountRawHll { .. }
                | AggregateFunction::DistinctCountSmartHll { .. }
                | AggregateFunction::DistinctCountSmartUll { .. }
                | AggregateFunction::DistinctCountSmartHllPlus { .. }
                | AggregateFunction::SegmentPartitionedDistinctCount
                | AggregateFunction::BoolAnd
                | AggregateFunction::BoolOr
                | AggregateFunction::SumPrecision { .. }
                | AggregateFunction::MinString
                | AggregateFunction::MaxString
                | AggregateFunction::AnyValue
                | AggregateFunction::StUnion
                | AggregateFunction::ArrayAgg { .. }
                | AggregateFunction::ListAgg { .. }
                | AggregateFunction::WithTime { .. }
                | AggregateFunction::ExprMinMax { .. }
                | AggregateFunction::FunnelCount { .. }
                // Numbers, or BYTES holding serialized sketches (checked by the binder).
                | AggregateFunction::ThetaSketch { .. }
                | AggregateFunction::CpcSketch { .. }
                | AggregateFunction::Ull { .. }
                | AggregateFunction::HllPlus { .. }
                | AggregateFunction::IdSet(_)
                | AggregateFunction::FrequentItems { .. }
                | AggregateFunction::PercentileKll { .. }
                | AggregateFunction::IntegerTupleSketch { .. }
        )
    }

    /// Whether each row's array argument is aggregated whole rather than value by value
    /// (`SUMARRAYLONG`, `SUMARRAYDOUBLE`).
    pub fn takes_arrays(&self) -> bool {
        matches!(self, AggregateFunction::SumArray { .. })
    }
}

/// One aggregation of a query.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AggregateCall {
    pub function: AggregateFunction,
    /// The aggregated expression; `None` for `COUNT(*)`.
    pub arg: Option<Expr>,
    /// Aggregate every value of a multi-value argument (the `…MV` functions).
    pub multi_value: bool,
    /// The second expression of two-argument aggregates: `COVARPOP`'s `y`, `FIRSTWITHTIME`'s
    /// time, `EXPRMIN`'s measure; `None` for the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second: Option<Expr>,
    /// `FILTER (WHERE …)`.
    pub filter: Option<FilterExpr>,
    /// Result column name (`sum(x)`), also the EXPLAIN text.
    pub name: String,
}

impl AggregateCall {
    /// The v1 result type.
    pub fn result_type(&self) -> DataType {
        self.result_column_type().data_type
    }

    /// The expressions the call aggregates: its argument and second argument.
    pub fn args(&self) -> impl Iterator<Item = &Expr> {
        self.arg.iter().chain(self.second.iter())
    }

    /// [`AggregateCall::args`], mutably.
    pub fn args_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        self.arg.iter_mut().chain(self.second.iter_mut())
    }

    /// The result type, with whether it is an array: `ANYVALUE` and `EXPRMIN` give their
    /// argument's type.
    pub fn result_column_type(&self) -> ColumnType {
        match (&self.function, &self.arg) {
            (AggregateFunction::AnyValue | AggregateFunction::ExprMinMax { .. }, Some(arg)) => {
                ColumnType::sv(arg.column_type().data_type)
            }
            (f, _) if f.returns_array() => ColumnType::mv(f.result_type()),
            (f, _) => ColumnType::sv(f.result_type()),
        }
    }
}

/// Aggregate names without their `MV` suffix, canonical form.
const BASE_NAMES: &[&str] = &[
    "count",
    "stunion",
    "sum",
    "min",
    "max",
    "avg",
    "minmaxrange",
    "distinctcount",
    "distinctcounthll",
    "distinctcountrawhll",
    "distinctcountsmarthll",
    "distinctcountsmartull",
    "distinctcounthllplus",
    "distinctcountrawhllplus",
    "distinctcountsmarthllplus",
    "idset",
    "segmentpartitioneddistinctcount",
    "percentile",
    "percentileest",
    "percentiletdigest",
    "percentilerawtdigest",
    "percentilerawest",
    "percentilesmarttdigest",
    "mode",
    "sumprecision",
    "booland",
    "boolor",
    "skewness",
    "kurtosis",
    "minstring",
    "maxstring",
    "varpop",
    "varsamp",
    "stddevpop",
    "stddevsamp",
    "distinctsum",
    "distinctavg",
    "distinctcountbitmap",
    "distinctcountoffheap",
    "anyvalue",
    "$sum0",
    "sum0",
    "sumlong",
    "sumint",
    "minlong",
    "maxlong",
    "histogram",
    "arrayagg",
    "listagg",
    "sumarraylong",
    "sumarraydouble",
    "covarpop",
    "covarsamp",
    "firstwithtime",
    "lastwithtime",
    "exprmin",
    "exprmax",
    "distinctcountthetasketch",
    "distinctcountrawthetasketch",
    "distinctcountcpcsketch",
    "distinctcountrawcpcsketch",
    "distinctcountull",
    "distinctcountrawull",
    "frequentstringssketch",
    "frequentlongssketch",
    "percentilekll",
    "percentilerawkll",
    "distinctcountrawintegersumtuplesketch",
    "distinctcounttuplesketch",
    "sumvaluesintegersumtuplesketch",
    "avgvalueintegersumtuplesketch",
    "funnelmaxstep",
    "funnelmatchstep",
    "funnelcompletecount",
    "funnelstepdurationstats",
    "funneleventsfunctioneval",
    "funnelcount",
];

/// Whether an aggregate takes a second expression argument ([`AggregateCall::second`]).
pub fn takes_second_argument(base: &str) -> bool {
    matches!(
        base,
        "covarpop"
            | "covarsamp"
            | "firstwithtime"
            | "lastwithtime"
            | "exprmin"
            | "exprmax"
            | "funnelmaxstep"
            | "funnelmatchstep"
            | "funnelcompletecount"
            | "funnelstepdurationstats"
            | "funneleventsfunctioneval"
            | "funnelcount"
    )
}

/// Splits a canonical aggregate name into (base name, legacy percentile digits, is-MV);
/// `None` when the name is not an aggregate.
pub fn parse_aggregate_name(canonical: &str) -> Option<(&'static str, Option<f64>, bool)> {
    let (stem, mv) = match canonical.strip_suffix("mv") {
        Some(s) if s != "boolor" && !s.is_empty() => (s, true),
        _ => (canonical, false),
    };
    if let Some(b) = BASE_NAMES.iter().find(|b| **b == stem) {
        return Some((b, None, mv));
    }
    // Legacy PERCENTILE95 / PERCENTILEEST50 / PERCENTILETDIGEST99.
    for base in ["percentiletdigest", "percentileest", "percentile"] {
        if let Some(digits) = stem.strip_prefix(base)
            && !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
        {
            let p: f64 = digits.parse().ok()?;
            let b = BASE_NAMES.iter().find(|b| **b == base)?;
            return Some((b, Some(p), mv));
        }
    }
    None
}

/// Canonical function name: lower case with `_` removed (Pinot's `FunctionRegistry.canonicalize`),
/// the same for aggregates as for the scalar catalog.
pub use crate::functions::canonical_name;

/// Whether a function name (as written) is an aggregate.
pub fn is_aggregate_name(name: &str) -> bool {
    parse_aggregate_name(&canonical_name(name)).is_some()
}

/// Parses PERCENTILESMARTTDIGEST's `'threshold=10000;compression=50'` (keys case-insensitive,
/// whitespace ignored; a non-positive threshold never converts), as Pinot's defaults fill in:
/// a threshold of 100,000 values and a compression of 100.
fn smart_tdigest_parameters(text: &str) -> Result<(u32, f64), String> {
    let (mut threshold, mut compression) = (100_000u32, DEFAULT_TDIGEST_COMPRESSION);
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    for pair in text.split(';').filter(|p| !p.is_empty()) {
        let parts: Vec<&str> = pair.split('=').filter(|p| !p.is_empty()).collect();
        let [key, value] = parts[..] else {
            return Err(format!("Invalid parameter: {pair}"));
        };
        let number: i64 = value
            .parse()
            .map_err(|_| format!("For input string: \"{value}\""))?;
        match key.to_ascii_uppercase().as_str() {
            "THRESHOLD" => threshold = conversion_threshold(number),
            "COMPRESSION" => compression = number as f64,
            _ => return Err(format!("Invalid parameter key: {key}")),
        }
    }
    if !(10.0..=10_000.0).contains(&compression) {
        return Err(format!(
            "invalid compression for percentilesmarttdigest: {compression}"
        ));
    }
    Ok((threshold, compression))
}

/// Parses `DISTINCTCOUNTSMARTULL`'s `'threshold=10;p=14'` (keys case-insensitive; Pinot's
/// defaults `p` 12, conversion past 100,000 values; a non-positive threshold never converts).
fn smart_ull_parameters(text: &str) -> Result<AggregateFunction, String> {
    let (mut p, mut threshold) = (ull::DEFAULT_ULL_P, SMART_HLL_THRESHOLD);
    for (key, value) in key_values(text)? {
        let number: i64 = value
            .parse()
            .map_err(|_| format!("Invalid parameter: {key}={value}"))?;
        match key.as_str() {
            "p" => {
                p = u8::try_from(number)
                    .ok()
                    .filter(|p| (ull::MIN_ULL_P..=ull::MAX_ULL_P).contains(p))
                    .ok_or_else(|| format!("invalid p for distinctcountsmartull: {number}"))?;
            }
            "threshold" => {
                threshold = conversion_threshold(number);
            }
            _ => return Err(format!("Invalid parameter key: {key}")),
        }
    }
    Ok(AggregateFunction::DistinctCountSmartUll { p, threshold })
}

/// Parses `IDSET`'s `'sizeThresholdInBytes=1000;expectedInsertions=100;fpp=0.01'` (keys
/// case-insensitive; Pinot's defaults 8 MiB, 5,000,000 and 0.03).
fn id_set_parameters(text: &str) -> Result<IdSetParams, String> {
    let mut params = IdSetParams::default();
    for (key, value) in key_values(text)? {
        let bad = || format!("Invalid parameter: {key}={value}");
        match key.as_str() {
            "sizethresholdinbytes" => {
                params.size_threshold_in_bytes = value.parse().map_err(|_| bad())?
            }
            "expectedinsertions" => {
                params.expected_insertions = value.parse().map_err(|_| bad())?
            }
            "fpp" => params.fpp = value.parse().map_err(|_| bad())?,
            _ => return Err(format!("Invalid parameter key: {key}")),
        }
    }
    params.validate().map_err(|e| format!("idset: {e}"))
}

/// Parses `DISTINCTCOUNTSMARTHLLPLUS`'s `'threshold=10;p=14;sp=20'` (keys case-insensitive;
/// Pinot's defaults `p` 14, `sp` 0, conversion past 100,000 values; a non-positive threshold
/// never converts).
fn smart_hll_plus_parameters(text: &str) -> Result<AggregateFunction, String> {
    let (mut p, mut sp, mut threshold) = (
        hll_plus::DEFAULT_P,
        hll_plus::DEFAULT_SP,
        SMART_HLL_THRESHOLD,
    );
    for (key, value) in key_values(text)? {
        let number: i64 = value
            .parse()
            .map_err(|_| format!("Invalid parameter: {key}={value}"))?;
        let byte = || {
            u8::try_from(number)
                .map_err(|_| format!("invalid {key} for distinctcountsmarthllplus: {number}"))
        };
        match key.as_str() {
            "p" => p = byte()?,
            "sp" => sp = byte()?,
            "threshold" => {
                threshold = conversion_threshold(number);
            }
            _ => return Err(format!("Invalid parameter key: {key}")),
        }
    }
    // The sketch's own checks (p at least 4; sp 0 or from p to 32).
    SketchKind::HllPlus { p, sp }
        .validate()
        .map_err(|e| format!("distinctcountsmarthllplus: {e}"))?;
    Ok(AggregateFunction::DistinctCountSmartHllPlus { p, sp, threshold })
}

/// A smart function's `threshold` parameter: a non-positive one never converts.
fn conversion_threshold(number: i64) -> u32 {
    if number <= 0 {
        u32::MAX
    } else {
        u32::try_from(number).unwrap_or(u32::MAX)
    }
}

/// Pinot's `DISTINCTCOUNTSMARTHLL` defaults: `log2m` 12, conversion past 100,000 values.
const SMART_HLL_LOG2M: u8 = 12;
const SMART_HLL_THRESHOLD: u32 = 100_000;

/// Parses `'log2m=8;threshold=10'` (keys case-insensitive, Pinot's deprecated `hllLog2m` and
/// `hllConversionThreshold` too; `dictThreshold`, a segment-level shortcut, is accepted and has
/// no effect on the answer; a non-positive threshold never converts).
fn smart_hll_parameters(text: &str) -> Result<AggregateFunction, String> {
    let (mut log2m, mut threshold) = (SMART_HLL_LOG2M, SMART_HLL_THRESHOLD);
    for pair in text.split(';').filter(|p| !p.trim().is_empty()) {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("Invalid parameter: {pair}"))?;
        let number: i64 = value
            .trim()
            .parse()
            .map_err(|_| format!("Invalid parameter: {pair}"))?;
        match key.trim().to_ascii_uppercase().as_str() {
            "LOG2M" | "HLLLOG2M" => {
                log2m = u8::try_from(number)
                    .ok()
                    .filter(|l| (1..=16).contains(l))
                    .ok_or_else(|| {
                        format!("invalid hllLog2m for distinctcountsmarthll: {number}")
                    })?;
            }
            "DICTTHRESHOLD" => {}
            "THRESHOLD" | "HLLCONVERSIONTHRESHOLD" => {
                threshold = conversion_threshold(number);
            }
            _ => return Err(format!("Invalid parameter key: {}", key.trim())),
        }
    }
    Ok(AggregateFunction::DistinctCountSmartHll { log2m, threshold })
}

/// Builds the function from its base name, legacy percentile and literal parameters (the
/// arguments after the first, already constant-folded to numbers/strings).
pub fn build_function(
    base: &str,
    legacy_percentile: Option<f64>,
    params: &[segments::types::Value],
) -> Result<AggregateFunction, String> {
    let num = |i: usize, what: &str| -> Result<f64, String> {
        params
            .get(i)
            .and_then(|v| v.as_f64())
            .ok_or_else(|| format!("{base} expects a numeric {what}"))
    };
    let check_percentile = |p: f64| -> Result<f64, String> {
        if (0.0..=100.0).contains(&p) {
            Ok(p)
        } else {
            Err(format!("invalid percentile: {p}"))
        }
    };
    let expect_params = |n: usize| -> Result<(), String> {
        if params.len() > n {
            Err(format!(
                "too many arguments for {base}: {}",
                params.len() + 1
            ))
        } else {
            Ok(())
        }
    };
    if matches!(
        base,
        "count"
            | "sum"
            | "min"
            | "max"
            | "avg"
            | "minmaxrange"
            | "distinctcount"
            | "segmentpartitioneddistinctcount"
            | "mode"
            | "booland"
            | "boolor"
            | "skewness"
            | "kurtosis"
            | "minstring"
            | "maxstring"
            | "varpop"
            | "varsamp"
            | "stddevpop"
            | "stddevsamp"
            | "distinctsum"
            | "distinctavg"
            | "distinctcountbitmap"
            | "distinctcountoffheap"
            | "anyvalue"
            | "$sum0"
            | "sum0"
            | "sumlong"
            | "sumint"
            | "minlong"
            | "maxlong"
            | "sumarraylong"
            | "sumarraydouble"
            | "covarpop"
            | "covarsamp"
            | "exprmin"
            | "exprmax"
    ) {
        expect_params(0)?;
    }
    Ok(match base {
        "count" => AggregateFunction::Count,
        "sum" => AggregateFunction::Sum,
        "min" => AggregateFunction::Min,
        "max" => AggregateFunction::Max,
        "avg" => AggregateFunction::Avg,
        "minmaxrange" => AggregateFunction::MinMaxRange,
        "distinctcount" => AggregateFunction::DistinctCount,
        "segmentpartitioneddistinctcount" => AggregateFunction::SegmentPartitionedDistinctCount,
        "distinctcountsmarthll" => {
            expect_params(1)?;
            match params.first() {
                None => smart_hll_parameters("")?,
                Some(segments::types::Value::String(p)) => smart_hll_parameters(p)?,
                Some(_) => return Err(format!("{base} expects its parameters as a string")),
            }
        }
        "distinctcounthllplus" | "distinctcountrawhllplus" => {
            expect_params(2)?;
            let p = match params.first() {
                None => f64::from(hll_plus::DEFAULT_P),
                Some(_) => num(0, "p")?,
            };
            let sp = match params.get(1) {
                None => f64::from(hll_plus::DEFAULT_SP),
                Some(_) => num(1, "sp")?,
            };
            let precision = |x: f64, what: &str| -> Result<u8, String> {
                u8::try_from(int_param(x, base, what)?)
                    .map_err(|_| format!("invalid {what} for {base}: {x}"))
            };
            let f = AggregateFunction::HllPlus {
                p: precision(p, "p")?,
                sp: precision(sp, "sp")?,
                raw: base == "distinctcountrawhllplus",
            };
            check_sketch(&f)?;
            f
        }
        "idset" => {
            expect_params(1)?;
            let text = match params.first() {
                None => "",
                Some(segments::types::Value::String(p)) => p.as_str(),
                Some(_) => return Err(format!("{base} expects its parameters as a string")),
            };
            AggregateFunction::IdSet(id_set_parameters(text)?)
        }
        "distinctcountsmarthllplus" => {
            expect_params(1)?;
            match params.first() {
                None => smart_hll_plus_parameters("")?,
                Some(segments::types::Value::String(p)) => smart_hll_plus_parameters(p)?,
                Some(_) => return Err(format!("{base} expects its parameters as a string")),
            }
        }
        "distinctcountsmartull" => {
            expect_params(1)?;
            match params.first() {
                None => smart_ull_parameters("")?,
                Some(segments::types::Value::String(p)) => smart_ull_parameters(p)?,
                Some(_) => return Err(format!("{base} expects its parameters as a string")),
            }
        }
        "mode" => AggregateFunction::Mode,
        "booland" => AggregateFunction::BoolAnd,
        "boolor" => AggregateFunction::BoolOr,
        "skewness" => AggregateFunction::Skewness,
        "kurtosis" => AggregateFunction::Kurtosis,
        "minstring" => AggregateFunction::MinString,
        "maxstring" => AggregateFunction::MaxString,
        "varpop" | "varsamp" | "stddevpop" | "stddevsamp" => AggregateFunction::Variance {
            sample: base.ends_with("samp"),
            std_dev: base.starts_with("stddev"),
        },
        "distinctsum" => AggregateFunction::DistinctSum,
        "distinctavg" => AggregateFunction::DistinctAvg,
        // Exact distinct counts by other means in Pinot; the same answer.
        "distinctcountbitmap" | "distinctcountoffheap" => AggregateFunction::DistinctCount,
        "anyvalue" => AggregateFunction::AnyValue,
        "stunion" => AggregateFunction::StUnion,
        "$sum0" | "sum0" => AggregateFunction::Sum0,
        "sumlong" | "sumint" => AggregateFunction::SumLong,
        "minlong" => AggregateFunction::MinLong,
        "maxlong" => AggregateFunction::MaxLong,
        "sumarraylong" => AggregateFunction::SumArray { long: true },
        "sumarraydouble" => AggregateFunction::SumArray { long: false },
        "histogram" => histogram(params)?,
        "distinctcountthetasketch" | "distinctcountrawthetasketch" => {
            theta_parameters(base, params)?
        }
        "distinctcountcpcsketch" | "distinctcountrawcpcsketch" => cpc_parameters(base, params)?,
        "distinctcountull" | "distinctcountrawull" => {
            expect_params(1)?;
            let p = match params.first() {
                None => f64::from(ull::DEFAULT_ULL_P),
                Some(_) => num(0, "p")?,
            };
            let f = AggregateFunction::Ull {
                p: u8::try_from(int_param(p, base, "p")?)
                    .map_err(|_| format!("invalid p for {base}: {p}"))?,
                raw: base == "distinctcountrawull",
            };
            check_sketch(&f)?;
            f
        }
        "distinctcountrawintegersumtuplesketch"
        | "distinctcounttuplesketch"
        | "sumvaluesintegersumtuplesketch"
        | "avgvalueintegersumtuplesketch" => tuple_parameters(base, params)?,
        "frequentstringssketch" | "frequentlongssketch" => {
            expect_params(1)?;
            let max_map_size = match params.first() {
                None => datasketch::DEFAULT_FREQUENT_MAX_MAP_SIZE as f64,
                Some(_) => num(0, "maxMapSize")?,
            };
            let f = AggregateFunction::FrequentItems {
                longs: base == "frequentlongssketch",
                max_map_size: int_param(max_map_size, base, "maxMapSize")?,
            };
            check_sketch(&f)?;
            f
        }
        "percentilekll" | "percentilerawkll" => {
            expect_params(2)?;
            let percentile = check_percentile(num(0, "percentile")?)?;
            let k = match params.get(1) {
                None => datasketch::DEFAULT_KLL_K as f64,
                Some(_) => num(1, "k")?,
            };
            let k = int_param(k, base, "k")?;
            let f = AggregateFunction::PercentileKll {
                percentile,
                k: u16::try_from(k).map_err(|_| format!("invalid k for {base}: {k}"))?,
                raw: base == "percentilerawkll",
            };
            check_sketch(&f)?;
            f
        }
        "covarpop" | "covarsamp" => AggregateFunction::Covariance {
            sample: base == "covarsamp",
        },
        "exprmin" | "exprmax" => AggregateFunction::ExprMinMax {
            max: base == "exprmax",
        },
        "firstwithtime" | "lastwithtime" => {
            expect_params(1)?;
            let usage = || {
                format!("{base} expects 3 arguments: {base}(dataColumn, timeColumn, 'dataType')")
            };
            let element = match params.first() {
                Some(segments::types::Value::String(t)) => DataType::parse(t).ok_or_else(usage)?,
                _ => return Err(usage()),
            };
            if !matches!(
                element,
                DataType::Boolean
                    | DataType::Int
                    | DataType::Long
                    | DataType::Float
                    | DataType::Double
                    | DataType::String
            ) {
                return Err(format!("Unsupported data type for {base}: {element}"));
            }
            AggregateFunction::WithTime {
                last: base == "lastwithtime",
                element,
            }
        }
        "arrayagg" => {
            expect_params(2)?;
            let element = match params.first() {
                Some(segments::types::Value::String(t)) => DataType::parse(t)
                    .filter(|t| !matches!(t, DataType::Json | DataType::Map))
                    .ok_or_else(|| format!("arrayagg: unsupported data type '{t}'"))?,
                _ => {
                    return Err(
                        "arrayagg expects its element type as a string: ARRAYAGG(x, 'INT')"
                            .to_string(),
                    );
                }
            };
            AggregateFunction::ArrayAgg {
                element,
                distinct: flag(params.get(1), base)?,
            }
        }
        "listagg" => {
            expect_params(2)?;
            let separator = match params.first() {
                None => ",".to_string(),
                Some(segments::types::Value::String(s)) => s.clone(),
                Some(_) => return Err("listagg expects its separator as a string".to_string()),
            };
            AggregateFunction::ListAgg {
                separator,
                distinct: flag(params.get(1), base)?,
            }
        }
        "distinctcounthll" | "distinctcountrawhll" => {
            expect_params(1)?;
            let log2m = if params.is_empty() {
                DEFAULT_HLL_LOG2M as f64
            } else {
                num(0, "log2m")?
            };
            if !(1.0..=16.0).contains(&log2m) || log2m.fract() != 0.0 {
                return Err(format!("invalid log2m for {base}: {log2m}"));
            }
            let log2m = log2m as u8;
            if base == "distinctcounthll" {
                AggregateFunction::DistinctCountHll { log2m }
            } else {
                AggregateFunction::DistinctCountRawHll { log2m }
            }
        }
        "percentile"
        | "percentileest"
        | "percentilerawest"
        | "percentiletdigest"
        | "percentilerawtdigest" => {
            let (p, rest) = match legacy_percentile {
                Some(p) => (p, 0),
                None => (num(0, "percentile")?, 1),
            };
            let p = check_percentile(p)?;
            match base {
                "percentile" => {
                    expect_params(rest)?;
                    AggregateFunction::Percentile { percentile: p }
                }
                "percentileest" | "percentilerawest" => {
                    expect_params(rest)?;
                    AggregateFunction::PercentileEst {
                        percentile: p,
                        raw: base == "percentilerawest",
                    }
                }
                _ => {
                    expect_params(rest + 1)?;
                    let compression = if params.len() > rest {
                        num(rest, "compression")?
                    } else {
                        DEFAULT_TDIGEST_COMPRESSION
                    };
                    if !(10.0..=10_000.0).contains(&compression) {
                        return Err(format!(
                            "invalid compression for percentiletdigest: {compression}"
                        ));
                    }
                    AggregateFunction::PercentileTDigest {
                        percentile: p,
                        compression,
                        raw: base == "percentilerawtdigest",
                    }
                }
            }
        }
        "percentilesmarttdigest" => {
            let p = check_percentile(num(0, "percentile").map_err(|_| {
                "Second argument of PERCENTILE_SMART_TDIGEST aggregation function must be a \
                 double literal (percentile)"
                    .to_string()
            })?)?;
            expect_params(2)?;
            let (threshold, compression) = match params.get(1) {
                None => smart_tdigest_parameters("")?,
                Some(segments::types::Value::String(text)) => smart_tdigest_parameters(text)?,
                Some(_) => return Err(format!("{base} expects its parameters as a string")),
            };
            AggregateFunction::PercentileSmartTDigest {
                percentile: p,
                threshold,
                compression,
            }
        }
        "funnelmaxstep"
        | "funnelmatchstep"
        | "funnelcompletecount"
        | "funnelstepdurationstats"
        | "funneleventsfunctioneval" => {
            let kind = super::funnel::window_kind(base).ok_or("not a window funnel")?;
            AggregateFunction::FunnelWindow(super::funnel::window_funnel(kind, params)?)
        }
        "funnelcount" => AggregateFunction::FunnelCount {
            steps: num(0, "number of steps")? as u32,
        },
        "sumprecision" => {
            expect_params(2)?;
            let precision = if params.is_empty() {
                None
            } else {
                Some(num(0, "precision")? as u32)
            };
            let scale = if params.len() > 1 {
                Some(num(1, "scale")? as u32)
            } else {
                None
            };
            AggregateFunction::SumPrecision { precision, scale }
        }
        other => return Err(format!("unsupported aggregation function: {other}")),
    })
}

/// A whole, non-negative number parameter.
fn int_param(x: f64, base: &str, what: &str) -> Result<u32, String> {
    if x.fract() != 0.0 || !(0.0..=u32::MAX as f64).contains(&x) {
        return Err(format!("invalid {what} for {base}: {x}"));
    }
    Ok(x as u32)
}

/// Checks a sketch function's parameters against what the sketch accepts.
fn check_sketch(f: &AggregateFunction) -> Result<(), String> {
    match f.sketch_kind() {
        Some(kind) => kind
            .validate()
            .map(|_| ())
            .map_err(|e| format!("{}: {e}", f.name())),
        None => Ok(()),
    }
}

/// `key=value` pairs separated by `;` (keys case-insensitive), Pinot's sketch parameter strings.
fn key_values(text: &str) -> Result<Vec<(String, String)>, String> {
    text.split(';')
        .filter(|p| !p.trim().is_empty())
        .map(
            |pair| match pair.split('=').collect::<Vec<_>>().as_slice() {
                [k, v] => Ok((k.trim().to_ascii_lowercase(), v.trim().to_string())),
                _ => Err(format!("Invalid parameter: {pair}")),
            },
        )
        .collect()
}

/// A DataSketches aggregation's parameter string (`nominalEntries=…;accumulatorThreshold=…`):
/// the nominal entries if given. `accumulatorThreshold` is checked and changes nothing here
/// (merges are not deferred); any other key goes to `other`, which says whether its value
/// parsed, or `None` for a key it does not know.
fn sketch_parameters(
    base: &str,
    text: &str,
    other: &mut dyn FnMut(&str, &str) -> Option<bool>,
) -> Result<Option<i64>, String> {
    let mut nominal_entries = None;
    for (key, value) in key_values(text)? {
        let bad = || format!("Invalid parameter value for {base}: {key}={value}");
        match key.as_str() {
            "nominalentries" => nominal_entries = Some(value.parse().map_err(|_| bad())?),
            "accumulatorthreshold" => {
                value.parse::<i32>().map_err(|_| bad())?;
            }
            k => match other(k, &value) {
                Some(true) => {}
                Some(false) => return Err(bad()),
                None => return Err(format!("Invalid parameter key: {key}")),
            },
        }
    }
    Ok(nominal_entries)
}

/// `DISTINCTCOUNTTHETASKETCH(x[, 'nominalEntries=4096;samplingProbability=1.0;accumulatorThreshold=2'])`.
/// The forms with filter predicates and a post-aggregation expression are not supported.
fn theta_parameters(
    base: &str,
    params: &[segments::types::Value],
) -> Result<AggregateFunction, String> {
    use segments::types::Value;
    if params.len() > 1 {
        return Err(format!(
            "{base} with filter and post-aggregation arguments is not supported; use FILTER (WHERE ...) and the thetaSketchUnion/Intersect/Diff scalar functions"
        ));
    }
    let mut nominal_entries = i64::from(datasketch::DEFAULT_THETA_NOMINAL_ENTRIES);
    let mut p = 1.0f32;
    match params.first() {
        None => {}
        Some(Value::String(text)) => {
            let mut sampling = |key: &str, value: &str| {
                (key == "samplingprobability").then(|| value.parse().map(|x| p = x).is_ok())
            };
            if let Some(n) = sketch_parameters(base, text, &mut sampling)? {
                nominal_entries = n;
            }
        }
        Some(_) => {
            return Err(format!(
                "Second argument of {base} must be a string literal (parameters)"
            ));
        }
    }
    let lg_k = datasketch::theta_lg_k(nominal_entries).map_err(|e| format!("{base}: {e}"))?;
    let f = AggregateFunction::ThetaSketch {
        lg_k,
        sampling_probability: p,
        raw: base == "distinctcountrawthetasketch",
    };
    check_sketch(&f)?;
    Ok(f)
}

/// `DISTINCTCOUNTCPCSKETCH(x[, lgK])` or `(x, 'nominalEntries=4096')`.
fn cpc_parameters(
    base: &str,
    params: &[segments::types::Value],
) -> Result<AggregateFunction, String> {
    use segments::types::Value;
    if params.len() > 1 {
        return Err(format!(
            "DistinctCountCPC expects 1 or 2 arguments, got: {}",
            params.len() + 1
        ));
    }
    let lg_k = match params.first() {
        None => datasketch::DEFAULT_CPC_LG_K,
        Some(Value::String(text)) => match sketch_parameters(base, text, &mut |_, _| None)? {
            Some(n) => datasketch::exact_log2(n).map_err(|e| format!("{base}: {e}"))?,
            None => datasketch::DEFAULT_CPC_LG_K,
        },
        Some(v) => {
            let x = v.as_f64().ok_or_else(|| {
                format!("{base} expects lgK as a number or parameters as a string")
            })?;
            u8::try_from(int_param(x, base, "lgK")?)
                .map_err(|_| format!("invalid lgK for {base}: {x}"))?
        }
    };
    let f = AggregateFunction::CpcSketch {
        lg_k,
        raw: base == "distinctcountrawcpcsketch",
    };
    check_sketch(&f)?;
    Ok(f)
}

/// `DISTINCTCOUNTTUPLESKETCH(x[, nominalEntries])` or `(x, 'nominalEntries=16384;accumulatorThreshold=2')`
/// and the other integer tuple sketch aggregations.
fn tuple_parameters(
    base: &str,
    params: &[segments::types::Value],
) -> Result<AggregateFunction, String> {
    use segments::sketch::integer_tuple;
    use segments::types::Value;
    if params.len() > 1 {
        return Err(format!(
            "Tuple Sketch Aggregation Function expects at most 2 arguments, got: {}",
            params.len() + 1
        ));
    }
    let mut nominal_entries = 1i64 << integer_tuple::DEFAULT_TUPLE_LG_K;
    match params.first() {
        None => {}
        Some(Value::String(text)) => {
            if let Some(n) = sketch_parameters(base, text, &mut |_, _| None)? {
                nominal_entries = n;
            }
        }
        Some(v) => {
            let x = v.as_f64().ok_or_else(|| {
                format!("{base} expects nominalEntries as a number or parameters as a string")
            })?;
            nominal_entries = i64::from(int_param(x, base, "nominalEntries")?);
        }
    }
    let lg_k = integer_tuple::tuple_lg_k(nominal_entries).map_err(|e| format!("{base}: {e}"))?;
    let result = match base {
        "distinctcountrawintegersumtuplesketch" => TupleResult::Raw,
        "distinctcounttuplesketch" => TupleResult::DistinctCount,
        "sumvaluesintegersumtuplesketch" => TupleResult::SumValues,
        _ => TupleResult::AvgValue,
    };
    Ok(AggregateFunction::IntegerTupleSketch { lg_k, result })
}

/// An optional boolean literal parameter (`ARRAYAGG`'s and `LISTAGG`'s "distinct").
fn flag(param: Option<&segments::types::Value>, base: &str) -> Result<bool, String> {
    use segments::types::Value;
    match param {
        None => Ok(false),
        Some(Value::Boolean(b)) => Ok(*b),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(true),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(false),
        Some(v) => v
            .as_f64()
            .map(|x| x != 0.0)
            .ok_or_else(|| format!("{base} expects a boolean, got '{v}'")),
    }
}

/// `HISTOGRAM(x, lower, upper, bins)` or `HISTOGRAM(x, ARRAY[edges])` (Pinot's checks).
fn histogram(params: &[segments::types::Value]) -> Result<AggregateFunction, String> {
    use segments::types::Value;
    let number = |v: &Value| {
        v.as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("histogram expects numeric bounds, got '{v}'"))
    };
    match params {
        [Value::Array(items)] => {
            let edges = items.iter().map(number).collect::<Result<Vec<f64>, _>>()?;
            if edges.len() < 2 {
                return Err("histogram needs at least two bin edges".to_string());
            }
            if edges.windows(2).any(|w| w[1] <= w[0]) {
                return Err("histogram bin edges must be strictly increasing".to_string());
            }
            Ok(AggregateFunction::Histogram {
                edges,
                equal_length: false,
            })
        }
        [lower, upper, bins] => {
            let (lower, upper) = (number(lower)?, number(upper)?);
            let bins = number(bins)?;
            if upper <= lower {
                return Err(format!(
                    "The right most edge must be greater than left most edge, given {lower} and {upper}"
                ));
            }
            if bins < 1.0 || bins.fract() != 0.0 || bins > 1_000_000.0 {
                return Err(format!(
                    "The number of bins must be greater than zero, given {bins}"
                ));
            }
            let bins = bins as usize;
            let width = (upper - lower) / bins as f64;
            let mut edges: Vec<f64> = (0..bins).map(|i| lower + i as f64 * width).collect();
            edges.push(upper);
            Ok(AggregateFunction::Histogram {
                edges,
                equal_length: true,
            })
        }
        _ => Err(format!(
            "Histogram expects 2 or 4 arguments, got: {}; usage example: `Histogram(columnName, ARRAY[0,1,10,100])` or `Histogram(columnName, 0, 1000, 10)`",
            params.len() + 1
        )),
    }
}

/// The bin of a histogram a value falls in, `None` outside every bin.
pub fn histogram_bin(edges: &[f64], equal_length: bool, x: f64) -> Option<usize> {
    let (lower, upper) = (*edges.first()?, *edges.last()?);
    let bins = edges.len() - 1;
    if !(lower..=upper).contains(&x) {
        return None;
    }
    if x == upper {
        return Some(bins - 1);
    }
    Some(if equal_length {
        (((x - lower) / ((upper - lower) / bins as f64)).floor() as usize).min(bins - 1)
    } else {
        edges.partition_point(|e| *e <= x) - 1
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::Value;

    #[test]
    fn parses_names_canonically() {
        assert_eq!(canonical_name("BOOL_AND"), "booland");
        assert_eq!(
            parse_aggregate_name("booland"),
            Some(("booland", None, false))
        );
        assert_eq!(
            parse_aggregate_name("boolor"),
            Some(("boolor", None, false))
        );
        assert_eq!(parse_aggregate_name("countmv"), Some(("count", None, true)));
        assert_eq!(
            parse_aggregate_name("percentile95"),
            Some(("percentile", Some(95.0), false))
        );
        assert_eq!(
            parse_aggregate_name("percentileest50mv"),
            Some(("percentileest", Some(50.0), true))
        );
        assert_eq!(
            parse_aggregate_name("percentiletdigest99"),
            Some(("percentiletdigest", Some(99.0), false))
        );
        assert_eq!(parse_aggregate_name("upper"), None);
        assert_eq!(parse_aggregate_name("mv"), None);
        assert!(is_aggregate_name("DistinctCountHLL"));
    }

    #[test]
    fn builds_functions_with_parameters() {
        assert_eq!(
            build_function("percentile", None, &[Value::Int(90)]).unwrap(),
            AggregateFunction::Percentile { percentile: 90.0 }
        );
        assert_eq!(
            build_function("percentile", Some(95.0), &[]).unwrap(),
            AggregateFunction::Percentile { percentile: 95.0 }
        );
        assert!(build_function("percentile", None, &[]).is_err());
        assert!(build_function("percentile", None, &[Value::Int(101)]).is_err());
        assert_eq!(
            build_function("distinctcounthll", None, &[]).unwrap(),
            AggregateFunction::DistinctCountHll { log2m: 8 }
        );
        assert_eq!(
            build_function(
                "percentiletdigest",
                None,
                &[Value::Int(50), Value::Int(200)]
            )
            .unwrap(),
            AggregateFunction::PercentileTDigest {
                percentile: 50.0,
                compression: 200.0,
                raw: false,
            }
        );
        assert!(build_function("distinctcounthll", None, &[Value::Int(17)]).is_err());
        assert!(build_function("distinctcountrawhll", None, &[Value::Int(0)]).is_err());
        assert_eq!(
            build_function("distinctcountrawhll", None, &[Value::Int(2)]).unwrap(),
            AggregateFunction::DistinctCountRawHll { log2m: 2 }
        );
        assert!(
            build_function("percentiletdigest", None, &[Value::Int(50), Value::Int(5)]).is_err()
        );
        assert_eq!(
            build_function("sumprecision", None, &[Value::Int(10), Value::Int(2)]).unwrap(),
            AggregateFunction::SumPrecision {
                precision: Some(10),
                scale: Some(2)
            }
        );
        assert!(build_function("sum", None, &[Value::Int(1)]).is_err());
        assert_eq!(
            build_function("mode", None, &[]).unwrap(),
            AggregateFunction::Mode
        );
        let smart =
            |p: &str| build_function("distinctcountsmarthll", None, &[Value::String(p.into())]);
        assert_eq!(
            build_function("distinctcountsmarthll", None, &[]).unwrap(),
            AggregateFunction::DistinctCountSmartHll {
                log2m: 12,
                threshold: 100_000
            }
        );
        assert_eq!(
            smart("hllLog2m=8;HLLCONVERSIONTHRESHOLD=10").unwrap(),
            AggregateFunction::DistinctCountSmartHll {
                log2m: 8,
                threshold: 10
            }
        );
        assert_eq!(
            smart("hllConversionThreshold=-1").unwrap(),
            AggregateFunction::DistinctCountSmartHll {
                log2m: 12,
                threshold: u32::MAX
            }
        );
        assert_eq!(
            smart("threshold=10;LOG2M=2;dictThreshold=5").unwrap(),
            AggregateFunction::DistinctCountSmartHll {
                log2m: 2,
                threshold: 10
            }
        );
        assert!(
            smart("bogus=10")
                .unwrap_err()
                .contains("Invalid parameter key")
        );
        assert!(
            smart("hllLog2m").is_err()
                && smart("hllLog2m=x").is_err()
                && smart("hllLog2m=40").is_err()
        );
        assert!(build_function("distinctcountsmarthll", None, &[Value::Int(3)]).is_err());
        let smart_ull =
            |p: &str| build_function("distinctcountsmartull", None, &[Value::String(p.into())]);
        assert_eq!(
            build_function("distinctcountsmartull", None, &[]).unwrap(),
            AggregateFunction::DistinctCountSmartUll {
                p: 12,
                threshold: 100_000
            }
        );
        assert_eq!(
            smart_ull("THRESHOLD=10;p=4").unwrap(),
            AggregateFunction::DistinctCountSmartUll {
                p: 4,
                threshold: 10
            }
        );
        assert_eq!(
            smart_ull("threshold=0").unwrap(),
            AggregateFunction::DistinctCountSmartUll {
                p: 12,
                threshold: u32::MAX
            }
        );
        assert!(smart_ull("p=2").is_err() && smart_ull("log2m=8").is_err());
        assert_eq!(
            build_function("segmentpartitioneddistinctcount", None, &[]).unwrap(),
            AggregateFunction::SegmentPartitionedDistinctCount
        );
        assert!(
            parse_aggregate_name(&canonical_name("SEGMENT_PARTITIONED_DISTINCT_COUNT")).is_some()
        );
    }

    #[test]
    fn result_types_follow_v1() {
        assert_eq!(AggregateFunction::Count.result_type(), DataType::Long);
        assert_eq!(AggregateFunction::Sum.result_type(), DataType::Double);
        assert_eq!(
            AggregateFunction::DistinctCount.result_type(),
            DataType::Int
        );
        assert_eq!(
            AggregateFunction::DistinctCountHll { log2m: 8 }.result_type(),
            DataType::Long
        );
        assert_eq!(
            AggregateFunction::PercentileEst {
                percentile: 5.0,
                raw: false
            }
            .result_type(),
            DataType::Long
        );
        assert_eq!(
            AggregateFunction::SumPrecision {
                precision: None,
                scale: None
            }
            .result_type(),
            DataType::BigDecimal
        );
        assert_eq!(AggregateFunction::BoolOr.result_type(), DataType::Boolean);
    }
}
