//! Partial states that are one number, kept as a number column: `COUNT`'s count as a LONG per
//! group, `SUM`'s and `$SUM0`'s sum and `MIN`'s and `MAX`'s extreme as a DOUBLE per group, NULL
//! where no value was seen yet (the [`AggState`]'s `None`). Eight bytes a group instead of an
//! `AggState`'s 56: a multi-stage leaf's groups and a partial aggregate's output go through the
//! exchanges as numbers, the final aggregate adds or compares them per group ([`merge`]) and,
//! where each row is its own group, finalizes them in place ([`finalize`]). A state column of
//! any other function stays a column of `AggState`s.

use super::AggState;
use crate::column::{Cells, Column};
use planner::plan::aggregate::AggregateFunction;
use segments::types::DataType;

/// Whether `f`'s partial state is one number.
pub fn is_number_state(f: &AggregateFunction) -> bool {
    matches!(
        f,
        AggregateFunction::Count
            | AggregateFunction::Sum
            | AggregateFunction::Sum0
            | AggregateFunction::Min
            | AggregateFunction::Max
    )
}

/// `f`'s partial states as a number column (of `data_type`, the call's v1 result type), or
/// `None` when `f`'s state is not a number or a state is of another kind.
pub fn column_of_states(
    f: &AggregateFunction,
    data_type: DataType,
    states: &[AggState],
) -> Option<Column> {
    if !is_number_state(f) {
        return None;
    }
    if *f == AggregateFunction::Count {
        let counts = states
            .iter()
            .map(|s| match s {
                AggState::Count(n) => Some(*n),
                _ => None,
            })
            .collect::<Option<Vec<i64>>>()?;
        return Some(Column {
            cells: Cells::I64(counts),
            data_type,
            nulls: None,
        });
    }
    let mut values = Vec::with_capacity(states.len());
    let mut nulls = Vec::with_capacity(states.len());
    for s in states {
        let v = value_of(f, s)?;
        values.push(v.unwrap_or(0.0));
        nulls.push(v.is_none());
    }
    Some(Column {
        cells: Cells::F64(values),
        data_type,
        nulls: nulls.contains(&true).then_some(nulls),
    })
}

/// The column `f`'s partial `states` travel as: numbers when they are one number each, else
/// the states themselves.
pub fn state_column(f: &AggregateFunction, data_type: DataType, states: Vec<AggState>) -> Column {
    column_of_states(f, data_type, &states).unwrap_or_else(|| Column::states(data_type, states))
}

/// The value a `SUM`, `$SUM0`, `MIN` or `MAX` state holds, or `None` when `s` is not one.
fn value_of(f: &AggregateFunction, s: &AggState) -> Option<Option<f64>> {
    match (s, f) {
        (AggState::Sum(v), AggregateFunction::Sum | AggregateFunction::Sum0)
        | (AggState::Min(v), AggregateFunction::Min)
        | (AggState::Max(v), AggregateFunction::Max) => Some(*v),
        _ => None,
    }
}

/// The states a column of `f`'s partial states holds, whether numbers or states (an empty
/// column of any kind holds none).
pub fn states_of_column(f: &AggregateFunction, column: Column) -> Option<Vec<AggState>> {
    if column.is_empty() {
        return Some(Vec::new());
    }
    let nulls = column.nulls;
    let null = |i: usize| nulls.as_ref().is_some_and(|n| n[i]);
    match (column.cells, f) {
        (Cells::States(states), _) => Some(states),
        (Cells::I64(counts), AggregateFunction::Count) => {
            Some(counts.into_iter().map(AggState::Count).collect())
        }
        (Cells::F64(values), f) if is_number_state(f) => Some(
            values
                .into_iter()
                .enumerate()
                .map(|(i, x)| {
                    let v = (!null(i)).then_some(x);
                    match f {
                        AggregateFunction::Min => AggState::Min(v),
                        AggregateFunction::Max => AggState::Max(v),
                        _ => AggState::Sum(v),
                    }
                })
                .collect(),
        ),
        _ => None,
    }
}

/// The final values of a number-state call whose partial states (`column`, numbers or states)
/// fall in the groups `groups` number: counts added as integers, the others' values added or
/// compared in row order — as merging the states one by one and finalizing them would make
/// them — with no state per group. `None` when `f`'s state is not a number, a state is of
/// another kind, or `data_type` (the output's) does not hold the values.
pub fn merge(
    f: &AggregateFunction,
    column: &Column,
    groups: &[u32],
    num_groups: usize,
    data_type: DataType,
    null_handling: bool,
) -> Option<Column> {
    let typed;
    let column = match &column.cells {
        Cells::States(states) => {
            typed = column_of_states(f, column.data_type, states)?;
            &typed
        }
        _ => column,
    };
    match (f, &column.cells, data_type) {
        (AggregateFunction::Count, Cells::I64(counts), DataType::Long) => {
            let mut sums = vec![0i64; num_groups];
            for (n, &g) in counts.iter().zip(groups) {
                sums[g as usize] += n;
            }
            Some(Column {
                cells: Cells::I64(sums),
                data_type,
                nulls: None,
            })
        }
        (f, Cells::F64(values), DataType::Double)
            if is_number_state(f) && *f != AggregateFunction::Count =>
        {
            let pick: fn(f64, f64) -> f64 = match f {
                AggregateFunction::Min => f64::min,
                AggregateFunction::Max => f64::max,
                _ => |x, y| x + y,
            };
            let mut out = vec![0.0f64; num_groups];
            let mut seen = vec![false; num_groups];
            for (r, (&x, &g)) in values.iter().zip(groups).enumerate() {
                if column.nulls.as_ref().is_some_and(|n| n[r]) {
                    continue;
                }
                let g = g as usize;
                out[g] = if seen[g] { pick(out[g], x) } else { x };
                seen[g] = true;
            }
            Some(with_empty(f, out, &seen, data_type, null_handling))
        }
        _ => None,
    }
}

/// The final values of a number-state call's partial states (numbers) when each row is its own
/// group; the column back when it holds states or `data_type` does not hold the values.
pub fn finalize(
    f: &AggregateFunction,
    column: Column,
    data_type: DataType,
    null_handling: bool,
) -> Result<Column, Column> {
    match (f, &column.cells, data_type) {
        (AggregateFunction::Count, Cells::I64(_), DataType::Long) => Ok(Column {
            data_type,
            ..column
        }),
        (f, Cells::F64(_), DataType::Double)
            if is_number_state(f) && *f != AggregateFunction::Count =>
        {
            let Column { cells, nulls, .. } = column;
            let Cells::F64(values) = cells else {
                unreachable!("matched above")
            };
            match nulls {
                None => Ok(Column {
                    cells: Cells::F64(values),
                    data_type,
                    nulls: None,
                }),
                Some(nulls) => {
                    let seen: Vec<bool> = nulls.iter().map(|n| !n).collect();
                    Ok(with_empty(f, values, &seen, data_type, null_handling))
                }
            }
        }
        _ => Err(column),
    }
}

/// `values` where `seen`, and elsewhere what `f`'s empty state finalizes to (NULL, or its
/// default without null handling).
fn with_empty(
    f: &AggregateFunction,
    mut values: Vec<f64>,
    seen: &[bool],
    data_type: DataType,
    null_handling: bool,
) -> Column {
    let empty = AggState::empty(f)
        .finalize_number(f, null_handling)
        .unwrap_or(None);
    let mut nulls = None;
    if seen.contains(&false) {
        match empty {
            Some(x) => seen
                .iter()
                .zip(values.iter_mut())
                .filter(|(s, _)| !**s)
                .for_each(|(_, v)| *v = x),
            None => nulls = Some(seen.iter().map(|s| !s).collect()),
        }
    }
    Column {
        cells: Cells::F64(values),
        data_type,
        nulls,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AggState as S;

    fn cases() -> Vec<(AggregateFunction, DataType, Vec<AggState>)> {
        vec![
            (
                AggregateFunction::Count,
                DataType::Long,
                [3, 1, 4, 0, 2].map(S::Count).to_vec(),
            ),
            (
                AggregateFunction::Sum,
                DataType::Double,
                [Some(0.1), Some(2.0), Some(0.2), None, None]
                    .map(S::Sum)
                    .to_vec(),
            ),
            (
                AggregateFunction::Sum0,
                DataType::Double,
                [None, Some(-1.0), Some(0.5), None, Some(3.0)]
                    .map(S::Sum)
                    .to_vec(),
            ),
            (
                AggregateFunction::Min,
                DataType::Double,
                [Some(2.0), None, Some(-0.0), None, Some(1.0)]
                    .map(S::Min)
                    .to_vec(),
            ),
            (
                AggregateFunction::Max,
                DataType::Double,
                [Some(2.0), Some(5.0), Some(9.0), None, Some(1.0)]
                    .map(S::Max)
                    .to_vec(),
            ),
        ]
    }

    /// Number columns hold the states exactly: back to the same states.
    #[test]
    fn number_columns_hold_their_states() {
        for (f, data_type, states) in cases() {
            let column = column_of_states(&f, data_type, &states).expect("a number state");
            assert!(!matches!(column.cells, Cells::States(_)));
            assert_eq!(states_of_column(&f, column), Some(states), "{f:?}");
        }
        // No rows, of whatever kind: no states.
        let none = Column::from_values(DataType::Double, Vec::new());
        assert_eq!(
            states_of_column(&AggregateFunction::Sum, none),
            Some(Vec::new())
        );
        // A state of another kind, or a function whose state is not a number: left as states.
        let mixed = [S::Sum(Some(1.0)), S::Count(2)];
        assert_eq!(
            column_of_states(&AggregateFunction::Sum, DataType::Double, &mixed),
            None
        );
        let avg = [S::Avg { sum: 1.0, count: 1 }];
        assert_eq!(
            column_of_states(&AggregateFunction::Avg, DataType::Double, &avg),
            None
        );
    }

    /// Merged per group, as numbers or as states, and finalized where each row is its own group,
    /// the values are those of merging the states one by one and finalizing them.
    #[test]
    fn merged_and_finalized_as_states_are() {
        // Rows of groups 0, 1, 0, 2, 1; group 2 of the sums sees no value.
        let groups = [0u32, 1, 0, 2, 1];
        for (f, data_type, states) in cases() {
            for null_handling in [true, false] {
                let finalized = |states: &[AggState]| {
                    let values = states
                        .iter()
                        .map(|s| s.finalize(&f, null_handling))
                        .collect();
                    Column::from_values(data_type, values)
                };
                let mut merged: Vec<AggState> = (0..3).map(|_| AggState::empty(&f)).collect();
                for (s, g) in states.iter().zip(groups) {
                    merged[g as usize].merge(s.clone(), &f).unwrap();
                }
                let want = finalized(&merged);
                let numbers = column_of_states(&f, data_type, &states).unwrap();
                let as_states = Column::states(data_type, states.clone());
                for input in [&numbers, &as_states] {
                    let got = merge(&f, input, &groups, 3, data_type, null_handling);
                    assert_eq!(got, Some(want.clone()), "{f:?} nulls {null_handling}");
                }
                let own = finalize(&f, numbers, data_type, null_handling).ok();
                assert_eq!(own, Some(finalized(&states)), "{f:?} nulls {null_handling}");
            }
        }
        // A count as a double is left to the states.
        let counts =
            column_of_states(&AggregateFunction::Count, DataType::Long, &[S::Count(1)]).unwrap();
        let f = AggregateFunction::Count;
        assert_eq!(merge(&f, &counts, &[0], 1, DataType::Double, true), None);
        assert!(finalize(&f, counts, DataType::Double, true).is_err());
    }
}
