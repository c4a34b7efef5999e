//! How a minion merges the rows of its input segments (Pinot's `mergeType`): `concat` keeps
//! every row; `rollup` folds rows equal in every dimension and time column (times first rounded
//! down to `roundBucketTimePeriod`) into one, each metric aggregated (`sum` unless its
//! `aggregationType` says `min` or `max`); `dedup` keeps one of each set of identical rows.
//! Rows are grouped by sorting on their keys with the dictionaries' total order (no hashing of
//! floats), so equal keys are adjacent.

use crate::metadata::tasks::{AggregationType, MergeSpec, MergeType};
use segments::types::{FieldType, Schema, Value};
use std::cmp::Ordering;

/// The time column a merge rounds: its position and its unit in milliseconds.
#[derive(Clone, Copy, Debug)]
pub struct TimeColumn {
    pub index: usize,
    pub unit_ms: i64,
}

/// Rounds every row's time down to `period_ms`.
pub fn round_times(rows: &mut [Vec<Value>], time: TimeColumn, period_ms: i64) {
    if period_ms <= 0 || time.unit_ms <= 0 {
        return;
    }
    for row in rows {
        let cell = &mut row[time.index];
        let rounded = |t: i64| (t * time.unit_ms).div_euclid(period_ms) * period_ms / time.unit_ms;
        *cell = match std::mem::replace(cell, Value::Null) {
            Value::Long(t) => Value::Long(rounded(t)),
            Value::Int(t) => Value::Int(rounded(i64::from(t)) as i32),
            Value::Timestamp(t) => Value::Timestamp(rounded(t)),
            other => other,
        };
    }
}

fn cmp_rows(a: &[Value], b: &[Value], columns: &[usize]) -> Ordering {
    columns
        .iter()
        .map(|&i| a[i].total_cmp(&b[i]))
        .find(|o| *o != Ordering::Equal)
        .unwrap_or(Ordering::Equal)
}

/// Merges `rows` (in `schema` field order) as `spec` says.
pub fn merge(
    schema: &Schema,
    mut rows: Vec<Vec<Value>>,
    spec: &MergeSpec,
    time: Option<TimeColumn>,
) -> Vec<Vec<Value>> {
    if let (Some(t), Some(p)) = (time, spec.round_bucket_ms) {
        round_times(&mut rows, t, p);
    }
    match spec.merge_type {
        MergeType::Concat => rows,
        MergeType::Dedup => {
            let all: Vec<usize> = (0..schema.fields.len()).collect();
            rows.sort_by(|a, b| cmp_rows(a, b, &all));
            rows.dedup_by(|a, b| cmp_rows(a, b, &all) == Ordering::Equal);
            rows
        }
        MergeType::Rollup => rollup(schema, rows, spec),
    }
}

fn rollup(schema: &Schema, mut rows: Vec<Vec<Value>>, spec: &MergeSpec) -> Vec<Vec<Value>> {
    let (metrics, keys): (Vec<usize>, Vec<usize>) =
        (0..schema.fields.len()).partition(|&i| schema.fields[i].field_type == FieldType::Metric);
    rows.sort_by(|a, b| cmp_rows(a, b, &keys));
    let aggs: Vec<(usize, AggregationType)> = metrics
        .iter()
        .map(|&i| {
            let name = &schema.fields[i].name;
            (i, spec.aggregations.get(name).copied().unwrap_or_default())
        })
        .collect();
    let mut out: Vec<Vec<Value>> = Vec::new();
    for row in rows {
        match out.last_mut() {
            Some(last) if cmp_rows(last, &row, &keys) == Ordering::Equal => {
                for &(i, agg) in &aggs {
                    let folded = fold(&last[i], &row[i], agg);
                    last[i] = folded;
                }
            }
            _ => out.push(row),
        }
    }
    out
}

/// One metric value folded into another (NULL is no value).
fn fold(acc: &Value, v: &Value, agg: AggregationType) -> Value {
    match (acc, v) {
        (Value::Null, x) | (x, Value::Null) => x.clone(),
        _ => match agg {
            AggregationType::Min => {
                if v.total_cmp(acc) == Ordering::Less {
                    v.clone()
                } else {
                    acc.clone()
                }
            }
            AggregationType::Max => {
                if v.total_cmp(acc) == Ordering::Greater {
                    v.clone()
                } else {
                    acc.clone()
                }
            }
            AggregationType::Sum => match (acc, v) {
                (Value::Int(a), Value::Int(b)) => a
                    .checked_add(*b)
                    .map(Value::Int)
                    .unwrap_or(Value::Long(i64::from(*a) + i64::from(*b))),
                (Value::Long(a), Value::Long(b)) => Value::Long(a.wrapping_add(*b)),
                (Value::Float(a), Value::Float(b)) => Value::Float(a + b),
                (Value::BigDecimal(_), _) | (_, Value::BigDecimal(_)) => {
                    match (acc.to_decimal(), v.to_decimal()) {
                        (Some(a), Some(b)) => Value::BigDecimal(a.add(&b).to_plain_string()),
                        _ => acc.clone(),
                    }
                }
                _ => match (acc.as_f64(), v.as_f64()) {
                    (Some(a), Some(b)) => Value::Double(a + b),
                    _ => acc.clone(),
                },
            },
        },
    }
}

/// Cuts `rows` into chunks of at most `max` rows.
pub fn chunks(rows: Vec<Vec<Value>>, max: u64) -> Vec<Vec<Vec<Value>>> {
    let max = usize::try_from(max.max(1)).unwrap_or(usize::MAX);
    if rows.len() <= max {
        return vec![rows];
    }
    let mut out = Vec::new();
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        out.push(rows.by_ref().take(max).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::DataType;

    fn schema() -> Schema {
        Schema::from_json(
            r#"{"schemaName":"t","dimensionFieldSpecs":[{"name":"k","dataType":"STRING"}],
            "metricFieldSpecs":[{"name":"n","dataType":"LONG"},{"name":"m","dataType":"DOUBLE"}],
            "dateTimeFieldSpecs":[{"name":"ts","dataType":"LONG","format":"1:MILLISECONDS:EPOCH","granularity":"1:MILLISECONDS"}]}"#,
        )
        .unwrap()
    }

    fn row(k: &str, n: i64, m: f64, ts: i64) -> Vec<Value> {
        vec![
            Value::String(k.into()),
            Value::Long(n),
            Value::Double(m),
            Value::Long(ts),
        ]
    }

    #[test]
    fn rollup_folds_equal_keys_after_rounding() {
        let s = schema();
        assert_eq!(s.field("ts").unwrap().data_type, DataType::Long);
        let rows = vec![
            row("a", 1, 5.0, 1_000),
            row("b", 2, 1.0, 1_500),
            row("a", 3, 2.0, 1_900),
            row("a", 4, 9.0, 2_100),
        ];
        let spec = MergeSpec {
            merge_type: MergeType::Rollup,
            round_bucket_ms: Some(1_000),
            max_records_per_segment: 10,
            aggregations: [("m".to_string(), AggregationType::Max)].into(),
            ..MergeSpec::default()
        };
        let ts = s.fields.iter().position(|f| f.name == "ts").unwrap();
        let out = merge(
            &s,
            rows,
            &spec,
            Some(TimeColumn {
                index: ts,
                unit_ms: 1,
            }),
        );
        assert_eq!(
            out,
            [
                row("a", 4, 5.0, 1_000),
                row("a", 4, 9.0, 2_000),
                row("b", 2, 1.0, 1_000)
            ]
        );
    }

    #[test]
    fn dedup_keeps_one_of_each_and_concat_all() {
        let s = schema();
        let rows = vec![
            row("a", 1, 1.0, 1),
            row("a", 1, 1.0, 1),
            row("b", 1, 1.0, 1),
        ];
        let dedup = MergeSpec {
            merge_type: MergeType::Dedup,
            ..MergeSpec::default()
        };
        assert_eq!(merge(&s, rows.clone(), &dedup, None).len(), 2);
        assert_eq!(
            merge(&s, rows.clone(), &MergeSpec::default(), None).len(),
            3
        );
        assert_eq!(
            chunks(rows, 2).iter().map(Vec::len).collect::<Vec<_>>(),
            [2, 1]
        );
    }
}
