//! The window operator (`RelNode::Window`): rows grouped by the partition keys, each partition
//! sorted by the order keys, and every call's value appended to each row.
//!
//! Each call is computed over a partition in time linear in its rows for the frames SQL users
//! write: ranking and offset functions index the sorted rows (`IGNORE NULLS` through the list of
//! non-null positions); an aggregate's frame that starts at the partition's first row grows as
//! the rows advance, one that ends at its last row shrinks, and each is folded one row state at
//! a time (`AggState::merge` is commutative); rows whose frame equals the previous row's (peers
//! under `RANGE`, the whole partition) reuse its value. Other frames (`ROWS k PRECEDING AND k
//! FOLLOWING`, `EXCLUDE …`) fold their rows each, in time proportional to the frame.

use super::block::Column;
use super::evaluate::eval_on;
use super::group_states::accumulate;
use crate::aggregate::AggState;
use crate::context::QueryContext;
use crate::error::EngineError;
use crate::key::RowKey;
use crate::sort::compare_rows;
use planner::plan::SortKey;
use planner::plan::multistage::rel::{FrameBound, FrameExclude};
use planner::plan::multistage::{WindowCall, WindowFunction};
use segments::types::Value;
use std::cmp::Ordering;
use std::collections::HashMap;

/// One row of a partition.
type Row = Vec<Value>;

/// How many rows a per-row loop computes between checks of the query's deadline.
const CHECK_EVERY: usize = 4096;

/// `rows` with the value of each of `calls` appended, partition by partition (in order of first
/// appearance), each partition in its window order.
pub(super) fn window(
    rows: Vec<Row>,
    partition_by: &[usize],
    order_by: &[SortKey],
    calls: &[WindowCall],
    ctx: &QueryContext,
) -> Result<Vec<Row>, EngineError> {
    let mut partitions: HashMap<RowKey, Vec<Row>> = HashMap::new();
    let mut order: Vec<RowKey> = Vec::new();
    for r in rows {
        let key = RowKey(
            partition_by
                .iter()
                .map(|c| r.get(*c).cloned().unwrap_or(Value::Null))
                .collect(),
        );
        partitions
            .entry(key)
            .or_insert_with_key(|k| {
                order.push(k.clone());
                Vec::new()
            })
            .push(r);
    }
    let mut out = Vec::new();
    for key in order {
        ctx.check()?;
        let Some(mut part) = partitions.remove(&key) else {
            continue;
        };
        part.sort_by(|a, b| compare_rows(a, b, order_by));
        let peers = Peers::of(&part, order_by);
        let mut results: Vec<Vec<Value>> = Vec::with_capacity(calls.len());
        for call in calls {
            results.push(call_values(call, &part, &peers, ctx)?);
        }
        for (i, mut row) in part.into_iter().enumerate() {
            for r in &mut results {
                row.push(std::mem::replace(&mut r[i], Value::Null));
            }
            out.push(row);
        }
    }
    Ok(out)
}

/// Each sorted row's peer group (rows with equal order keys): its first and last position.
struct Peers {
    start: Vec<usize>,
    end: Vec<usize>,
}

impl Peers {
    fn of(part: &[Row], order_by: &[SortKey]) -> Peers {
        let n = part.len();
        let (mut start, mut end) = (vec![0; n], vec![0; n]);
        let mut i = 0;
        while i < n {
            let mut j = i;
            while j + 1 < n && compare_rows(&part[i], &part[j + 1], order_by) == Ordering::Equal {
                j += 1;
            }
            start[i..=j].fill(i);
            end[i..=j].fill(j);
            i = j + 1;
        }
        Peers { start, end }
    }
}

/// A frame's first and last row (inclusive), or `None` when it holds no row.
type Frame = Option<(usize, usize)>;

/// The frame of row `i` of `n`, before its EXCLUDE clause.
fn frame(call: &WindowCall, peers: &Peers, i: usize, n: usize) -> Frame {
    let f = &call.frame;
    let start = match f.start {
        FrameBound::UnboundedPreceding => 0,
        FrameBound::Preceding(k) if f.rows => i.saturating_sub(k as usize),
        FrameBound::CurrentRow if f.rows => i,
        FrameBound::CurrentRow | FrameBound::Preceding(_) => peers.start[i],
        FrameBound::Following(k) if f.rows => i.saturating_add(k as usize),
        FrameBound::Following(_) => peers.end[i],
        FrameBound::UnboundedFollowing => n,
    };
    let end = match f.end {
        FrameBound::UnboundedFollowing => n.checked_sub(1)?,
        FrameBound::Following(k) if f.rows => i.saturating_add(k as usize).min(n.checked_sub(1)?),
        FrameBound::CurrentRow if f.rows => i,
        FrameBound::CurrentRow | FrameBound::Following(_) => peers.end[i],
        FrameBound::Preceding(k) if f.rows => i.checked_sub(k as usize)?,
        FrameBound::Preceding(_) => peers.start[i],
        FrameBound::UnboundedPreceding => return None,
    };
    let end = end.min(n.checked_sub(1)?);
    (start <= end).then_some((start, end))
}

/// The rows of frame `f` of row `i` that its EXCLUDE clause keeps, in order.
fn frame_rows(call: &WindowCall, peers: &Peers, f: Frame, i: usize) -> Vec<usize> {
    let Some((s, e)) = f else {
        return Vec::new();
    };
    let (ps, pe) = (peers.start[i], peers.end[i]);
    let keep = |j: &usize| match call.frame.exclude {
        FrameExclude::NoOthers => true,
        FrameExclude::CurrentRow => *j != i,
        FrameExclude::Group => *j < ps || *j > pe,
        FrameExclude::Ties => *j == i || *j < ps || *j > pe,
    };
    (s..=e).filter(keep).collect()
}

/// The values of `call` for the sorted rows of one partition.
fn call_values(
    call: &WindowCall,
    part: &[Row],
    peers: &Peers,
    ctx: &QueryContext,
) -> Result<Vec<Value>, EngineError> {
    let n = part.len();
    let args: Vec<Value> = match &call.arg {
        Some(e) => part
            .iter()
            .map(|r| eval_on(e, r))
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let non_null: Vec<usize> = if call.ignore_nulls {
        (0..args.len()).filter(|&j| !args[j].is_null()).collect()
    } else {
        Vec::new()
    };
    let mut vals = Vec::with_capacity(n);
    match &call.function {
        WindowFunction::RowNumber => vals.extend((1..=n as i64).map(Value::Long)),
        WindowFunction::Rank => vals.extend((0..n).map(|i| Value::Long(peers.start[i] as i64 + 1))),
        WindowFunction::DenseRank => {
            let mut dense = 0i64;
            for i in 0..n {
                if peers.start[i] == i {
                    dense += 1;
                }
                vals.push(Value::Long(dense));
            }
        }
        WindowFunction::Ntile(buckets) => {
            let b = (*buckets as usize).max(1);
            let (size, extra) = (n / b, n % b);
            // The first `extra` buckets hold one row more.
            let big = extra * (size + 1);
            for i in 0..n {
                let bucket = if i < big {
                    i / (size + 1)
                } else {
                    extra + (i - big) / size.max(1)
                };
                vals.push(Value::Long(bucket as i64 + 1));
            }
        }
        WindowFunction::Lag { offset, default } | WindowFunction::Lead { offset, default } => {
            let lead = matches!(call.function, WindowFunction::Lead { .. });
            let k = *offset as usize;
            for i in 0..n {
                let found = if k == 0 {
                    Some(i)
                } else if call.ignore_nulls {
                    // Non-null positions before row i, or up to and including it.
                    if lead {
                        let after = non_null.partition_point(|&j| j <= i);
                        non_null.get(after + k - 1).copied()
                    } else {
                        let before = non_null.partition_point(|&j| j < i);
                        before.checked_sub(k).map(|p| non_null[p])
                    }
                } else if lead {
                    i.checked_add(k).filter(|j| *j < n)
                } else {
                    i.checked_sub(k)
                };
                vals.push(match found {
                    Some(j) => args[j].clone(),
                    None => default.clone().unwrap_or(Value::Null),
                });
            }
        }
        WindowFunction::FirstValue | WindowFunction::LastValue => {
            let first = matches!(call.function, WindowFunction::FirstValue);
            for i in 0..n {
                if i % CHECK_EVERY == 0 {
                    ctx.check()?;
                }
                let f = frame(call, peers, i, n);
                let pick = if call.frame.exclude != FrameExclude::NoOthers {
                    let rows = frame_rows(call, peers, f, i);
                    let mut c = rows
                        .into_iter()
                        .filter(|&j| !call.ignore_nulls || !args[j].is_null());
                    if first { c.next() } else { c.next_back() }
                } else if let Some((s, e)) = f {
                    match (call.ignore_nulls, first) {
                        (false, true) => Some(s),
                        (false, false) => Some(e),
                        (true, true) => non_null
                            .get(non_null.partition_point(|&j| j < s))
                            .copied()
                            .filter(|&j| j <= e),
                        (true, false) => non_null
                            .partition_point(|&j| j <= e)
                            .checked_sub(1)
                            .map(|p| non_null[p])
                            .filter(|&j| j >= s),
                    }
                } else {
                    None
                };
                vals.push(pick.map_or(Value::Null, |j| args[j].clone()));
            }
        }
        WindowFunction::Aggregate(a) => return aggregate_values(a, call, part, peers, ctx),
    }
    Ok(vals)
}

/// The values of an aggregate over each row's frame: one state per row, folded into a frame
/// that grows (its start fixed at the first row), shrinks (its end fixed at the last), or,
/// for other frames, afresh for each frame unlike the previous row's.
fn aggregate_values(
    a: &planner::plan::AggregateCall,
    call: &WindowCall,
    part: &[Row],
    peers: &Peers,
    ctx: &QueryContext,
) -> Result<Vec<Value>, EngineError> {
    let n = part.len();
    let null_handling = ctx.null_handling();
    let column_of = |x: &Option<planner::plan::Expr>| -> Result<Option<Column>, EngineError> {
        let Some(x) = x else { return Ok(None) };
        let values = part
            .iter()
            .map(|r| eval_on(x, r))
            .collect::<Result<_, _>>()?;
        Ok(Some(Column::from_values(x.column_type().data_type, values)))
    };
    let column = column_of(&a.arg)?;
    let second = column_of(&a.second)?;
    let rows: Vec<u32> = (0..n as u32).collect();
    let states = accumulate(a, &rows, n, column.as_ref(), second.as_ref())?;
    let no_rows = |c: &Option<Column>| {
        c.as_ref()
            .map(|c| Column::from_values(c.data_type, Vec::new()))
    };
    let empty = accumulate(
        a,
        &[],
        1,
        no_rows(&column).as_ref(),
        no_rows(&second).as_ref(),
    )?
    .pop()
    .unwrap_or_else(|| AggState::empty(&a.function));
    let finalize = |s: &AggState| s.finalize(&a.function, null_handling);
    let frames: Vec<Frame> = (0..n).map(|i| frame(call, peers, i, n)).collect();
    let plain = call.frame.exclude == FrameExclude::NoOthers;
    let mut vals: Vec<Value> = Vec::with_capacity(n);
    if plain && frames.iter().flatten().all(|(s, _)| *s == 0) {
        // Growing: rows [0, added) are folded into `acc`; frame ends never go back.
        let (mut acc, mut added) = (empty.clone(), 0);
        for (i, f) in frames.iter().enumerate() {
            if i > 0 && frames[i - 1] == *f {
                let v = vals[i - 1].clone();
                vals.push(v);
                continue;
            }
            let Some((_, e)) = *f else {
                vals.push(finalize(&empty));
                continue;
            };
            while added <= e {
                acc.merge(states[added].clone(), &a.function)?;
                added += 1;
            }
            vals.push(finalize(&acc));
        }
        return Ok(vals);
    }
    if plain && frames.iter().flatten().all(|(_, e)| *e == n - 1) {
        // Shrinking: filled from the last row back; rows [from, n) are folded into `acc`.
        let (mut acc, mut from) = (empty.clone(), n);
        let mut back: Vec<Value> = Vec::with_capacity(n);
        for i in (0..n).rev() {
            if i + 1 < n && frames[i + 1] == frames[i] {
                let v = back[back.len() - 1].clone();
                back.push(v);
                continue;
            }
            let Some((s, _)) = frames[i] else {
                back.push(finalize(&empty));
                continue;
            };
            while from > s {
                from -= 1;
                acc.merge(states[from].clone(), &a.function)?;
            }
            back.push(finalize(&acc));
        }
        back.reverse();
        return Ok(back);
    }
    for (i, f) in frames.iter().enumerate() {
        if i % CHECK_EVERY == 0 {
            ctx.check()?;
        }
        if plain && i > 0 && frames[i - 1] == *f {
            let v = vals[i - 1].clone();
            vals.push(v);
            continue;
        }
        let mut acc = empty.clone();
        for j in frame_rows(call, peers, *f, i) {
            acc.merge(states[j].clone(), &a.function)?;
        }
        vals.push(finalize(&acc));
    }
    Ok(vals)
}

#[cfg(test)]
mod tests {
    //! The linear paths against the definition: every row's frame folded row by row.
    use super::*;
    use planner::plan::AggregateFunction;
    use planner::plan::multistage::rel::WindowFrame;
    use planner::plan::query_plan::ExecutionOptions;
    use planner::plan::{AggregateCall, ColumnType, Expr, InputRef};
    use proptest::prelude::*;
    use segments::types::DataType;

    fn input(index: usize, t: DataType) -> Expr {
        Expr::Input(InputRef {
            index,
            name: format!("c{index}"),
            column_type: ColumnType::sv(t),
        })
    }

    fn bound(k: u8) -> FrameBound {
        match k % 5 {
            0 => FrameBound::UnboundedPreceding,
            1 => FrameBound::Preceding(u64::from(k / 5 % 4)),
            2 => FrameBound::CurrentRow,
            3 => FrameBound::Following(u64::from(k / 5 % 4)),
            _ => FrameBound::UnboundedFollowing,
        }
    }

    /// The value the call takes at row `i` of sorted partition `part` (values in column 2),
    /// from its frame's rows as `frame_rows` lists them.
    fn by_definition(call: &WindowCall, part: &[Row], peers: &Peers, i: usize) -> Value {
        let n = part.len();
        let v = |j: usize| part[j][2].clone();
        let rows = frame_rows(call, peers, frame(call, peers, i, n), i);
        let nums: Vec<f64> = rows.iter().filter_map(|&j| v(j).as_f64()).collect();
        let or_null = |x: Option<f64>| x.map_or(Value::Null, Value::Double);
        match &call.function {
            WindowFunction::Aggregate(a) => match a.function {
                AggregateFunction::Count => Value::Long(nums.len() as i64),
                AggregateFunction::Sum => or_null((!nums.is_empty()).then(|| nums.iter().sum())),
                AggregateFunction::Min => or_null(nums.iter().copied().reduce(f64::min)),
                AggregateFunction::Max => or_null(nums.iter().copied().reduce(f64::max)),
                _ => unreachable!("the test's aggregates"),
            },
            WindowFunction::FirstValue | WindowFunction::LastValue => {
                let mut c = rows
                    .into_iter()
                    .filter(|&j| !call.ignore_nulls || !v(j).is_null());
                let j = if matches!(call.function, WindowFunction::FirstValue) {
                    c.next()
                } else {
                    c.next_back()
                };
                j.map_or(Value::Null, v)
            }
            WindowFunction::Lag { offset, .. } | WindowFunction::Lead { offset, .. } => {
                let k = *offset as usize;
                let lead = matches!(call.function, WindowFunction::Lead { .. });
                let kept = |j: &usize| !call.ignore_nulls || !v(*j).is_null();
                let j = if k == 0 {
                    Some(i)
                } else if lead {
                    (i + 1..n).filter(kept).nth(k - 1)
                } else {
                    (0..i).rev().filter(kept).nth(k - 1)
                };
                j.map_or(Value::Null, v)
            }
            _ => unreachable!("the test's functions"),
        }
    }

    proptest! {
        #[test]
        fn calls_equal_their_frames_folded_row_by_row(
            cells in prop::collection::vec((0i64..3, 0i64..8, prop::option::of(-50i64..50)), 1..120),
            function in 0u8..8, start in 0u8..20, end in 0u8..20, rows in any::<bool>(),
            exclude in 0u8..4, ignore_nulls in any::<bool>(), offset in 0u64..3,
        ) {
            let data: Vec<Row> = cells
                .iter()
                .map(|(p, o, v)| vec![Value::Long(*p), Value::Long(*o), v.map_or(Value::Null, |x| Value::Double(x as f64))])
                .collect();
            let aggregate = |f: AggregateFunction| WindowFunction::Aggregate(AggregateCall {
                function: f,
                arg: Some(input(2, DataType::Double)),
                second: None,
                multi_value: false,
                filter: None,
                name: "agg".into(),
            });
            let function = match function {
                0 => aggregate(AggregateFunction::Count),
                1 => aggregate(AggregateFunction::Sum),
                2 => aggregate(AggregateFunction::Min),
                3 => aggregate(AggregateFunction::Max),
                4 => WindowFunction::FirstValue,
                5 => WindowFunction::LastValue,
                6 => WindowFunction::Lag { offset, default: None },
                _ => WindowFunction::Lead { offset, default: None },
            };
            let exclude = [FrameExclude::NoOthers, FrameExclude::CurrentRow, FrameExclude::Group, FrameExclude::Ties][exclude as usize % 4];
            let call = WindowCall {
                arg: (!matches!(function, WindowFunction::Aggregate(_))).then(|| input(2, DataType::Double)),
                function,
                frame: WindowFrame { rows, start: bound(start), end: bound(end), exclude },
                output_type: ColumnType::sv(DataType::Double),
                ignore_nulls,
            };
            let order_by = [SortKey { column: 1, asc: true, nulls_last: true }];
            let ctx = QueryContext::new(ExecutionOptions { enable_null_handling: true, ..Default::default() });
            let out = window(data.clone(), &[0], &order_by, std::slice::from_ref(&call), &ctx).unwrap();
            prop_assert_eq!(out.len(), data.len());
            // Rebuild each sorted partition from the output (it is emitted partition by partition).
            let mut at = 0;
            while at < out.len() {
                let p = out[at][0].clone();
                let len = out[at..].iter().take_while(|r| r[0] == p).count();
                let part: Vec<Row> = out[at..at + len].iter().map(|r| r[..3].to_vec()).collect();
                let peers = Peers::of(&part, &order_by);
                for i in 0..len {
                    let want = by_definition(&call, &part, &peers, i);
                    let got = out[at + i][3].clone();
                    prop_assert_eq!(got.as_f64(), want.as_f64(), "row {} of partition {:?}: {:?}", i, p, call);
                    prop_assert_eq!(got.is_null(), want.is_null());
                }
                at += len;
            }
        }
    }

    #[test]
    fn a_whole_partition_frame_over_many_rows_is_linear() {
        // 200k rows in one partition: folded row by row this would take minutes.
        let data: Vec<Row> = (0..200_000i64)
            .map(|i| {
                vec![
                    Value::Long(0),
                    Value::Long(i % 1000),
                    Value::Double(i as f64),
                ]
            })
            .collect();
        let count = WindowCall {
            function: WindowFunction::Aggregate(AggregateCall {
                function: AggregateFunction::Count,
                arg: None,
                second: None,
                multi_value: false,
                filter: None,
                name: "count(*)".into(),
            }),
            arg: None,
            frame: WindowFrame {
                rows: false,
                start: FrameBound::UnboundedPreceding,
                end: FrameBound::UnboundedFollowing,
                exclude: FrameExclude::NoOthers,
            },
            output_type: ColumnType::sv(DataType::Long),
            ignore_nulls: false,
        };
        let mut running = count.clone();
        running.frame.end = FrameBound::CurrentRow;
        let ctx = QueryContext::new(ExecutionOptions::default());
        let out = window(
            data,
            &[0],
            &[SortKey {
                column: 1,
                asc: true,
                nulls_last: true,
            }],
            &[count, running],
            &ctx,
        )
        .unwrap();
        assert!(out.iter().all(|r| r[3] == Value::Long(200_000)));
        // RANGE … CURRENT ROW: every peer of order key k counts the rows with keys ≤ k.
        assert_eq!(out[0][4], Value::Long(200));
        assert_eq!(out[199_999][4], Value::Long(200_000));
    }
}
