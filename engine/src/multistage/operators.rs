//! The relational operators of a stage, evaluated over the stage's inputs: the worker's
//! segments (a leaf's v1 server plan) and the rows its child stages send.
//!
//! This first runtime evaluates a stage's operator tree to rows of [`Datum`]s (columnar
//! [`DataBlock`](super::DataBlock)s are what crosses between stages); expressions are evaluated
//! with the planner's row evaluator, so v2 and v1 compute every scalar function the same way.
//! Operators: leaf, receive, project, filter, aggregate (final over partial states; direct for
//! distinct rows and the plain aggregates), hash join, window, sort with offset/limit, values,
//! and the set operations.

use super::block::Datum;
use crate::aggregate::AggState;
use crate::aggregate::accumulator::{GroupAccumulator, GroupMap};
use crate::block::{ColumnData, Projected};
use crate::context::QueryContext;
use crate::error::EngineError;
use crate::key::RowKey;
use crate::server::execute_server;
use crate::server::result::IntermediateData;
use crate::sort::compare_rows;
use crate::stats::ExecutionStats;
use planner::plan::eval::{EvalError, RowSource, eval};
use planner::plan::expr::ColumnRef;
use planner::plan::multistage::rel::FrameBound;
use planner::plan::multistage::{
    AggMode, JoinKind, RelNode, SetOpKind, StageId, WindowCall, WindowFunction,
};
use planner::plan::{AggregateCall, Expr};
use segments::ImmutableSegment;
use segments::types::{DataType, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// A row of a stage.
pub type Row = Vec<Datum>;

/// What a stage's operators read from.
pub trait StageInputs {
    /// Every row child stage `stage` sends this worker (blocks until all its workers ended).
    fn receive_all(&self, stage: StageId) -> Result<Vec<Row>, EngineError>;
}

/// The worker's context while its operators run.
pub struct Env<'a> {
    pub ctx: &'a QueryContext,
    /// `maxRowsInJoin`: rows a join's build side may hold.
    pub max_rows_in_join: usize,
    pub segments: &'a [Arc<ImmutableSegment>],
    pub inputs: &'a dyn StageInputs,
    pub stats: ExecutionStats,
}

struct RowView<'a>(&'a [Datum]);

impl RowSource for RowView<'_> {
    fn column(&self, column: &ColumnRef) -> Result<Value, EvalError> {
        Err(EvalError(format!(
            "column '{}' read outside a leaf stage",
            column.name
        )))
    }
    fn input(&self, index: usize) -> Result<Value, EvalError> {
        self.0
            .get(index)
            .map(|d| d.value().clone())
            .ok_or_else(|| EvalError(format!("input {index} is out of range")))
    }
}

fn eval_on(expr: &Expr, row: &[Datum]) -> Result<Value, EngineError> {
    eval(expr, &RowView(row)).map_err(|e| EngineError::execution(e.0))
}

fn values(row: &[Datum]) -> Vec<Value> {
    row.iter().map(|d| d.value().clone()).collect()
}

/// Evaluates `node` to its rows.
pub fn execute(node: &RelNode, env: &mut Env<'_>) -> Result<Vec<Row>, EngineError> {
    env.ctx.check()?;
    match node {
        RelNode::Leaf { plan } => {
            let result = execute_server(plan, env.segments, env.ctx);
            env.stats.add(&result.stats);
            if let Some(e) = result.exceptions.first() {
                return Err(EngineError::execution(e.message.clone()));
            }
            Ok(match result.data {
                IntermediateData::Rows(rows) => rows
                    .into_iter()
                    .map(|r| r.into_iter().map(Datum::Value).collect())
                    .collect(),
                IntermediateData::Groups(groups) => groups
                    .into_iter()
                    .map(|(keys, states)| {
                        keys.into_iter()
                            .map(Datum::Value)
                            .chain(states.into_iter().map(Datum::State))
                            .collect()
                    })
                    .collect(),
                IntermediateData::Aggregates(states) => {
                    vec![states.into_iter().map(Datum::State).collect()]
                }
                IntermediateData::Explain(_) => Vec::new(),
            })
        }
        RelNode::Receive { stage, .. } => env.inputs.receive_all(*stage),
        RelNode::Project { input, exprs } => {
            let rows = execute(input, env)?;
            rows.iter()
                .map(|r| {
                    exprs
                        .iter()
                        .map(|e| eval_on(e, r).map(Datum::Value))
                        .collect()
                })
                .collect()
        }
        RelNode::Filter { input, condition } => {
            let rows = execute(input, env)?;
            let mut out = Vec::with_capacity(rows.len());
            for r in rows {
                if eval_on(condition, &r)? == Value::Boolean(true) {
                    out.push(r);
                }
            }
            Ok(out)
        }
        RelNode::Aggregate {
            input,
            group_keys,
            aggregates,
            mode,
            ..
        } => {
            let rows = execute(input, env)?;
            aggregate(rows, group_keys, aggregates, *mode, env.ctx.null_handling())
        }
        RelNode::Sort {
            input,
            keys,
            offset,
            limit,
        } => {
            let rows = execute(input, env)?;
            let mut keyed: Vec<(Vec<Value>, Row)> =
                rows.into_iter().map(|r| (values(&r), r)).collect();
            if !keys.is_empty() {
                keyed.sort_by(|a, b| compare_rows(&a.0, &b.0, keys));
            }
            let limit = limit.unwrap_or(usize::MAX);
            Ok(keyed
                .into_iter()
                .skip(*offset)
                .take(limit)
                .map(|(_, r)| r)
                .collect())
        }
        RelNode::Values { rows, .. } => Ok(rows
            .iter()
            .map(|r| r.iter().cloned().map(Datum::Value).collect())
            .collect()),
        RelNode::Window {
            input,
            partition_by,
            order_by,
            calls,
        } => {
            let rows = execute(input, env)?;
            window(rows, partition_by, order_by, calls, env)
        }
        RelNode::SetOp { kind, all, inputs } => {
            let mut sides = Vec::with_capacity(inputs.len());
            for i in inputs {
                sides.push(execute(i, env)?);
            }
            Ok(set_op(*kind, *all, sides))
        }
        RelNode::Join {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            condition,
        } => {
            let l = execute(left, env)?;
            let r = execute(right, env)?;
            let right_width = right.output_types().len();
            let left_width = left.output_types().len();
            join(
                l,
                r,
                JoinSpec {
                    kind: *kind,
                    left_keys,
                    right_keys,
                    condition: condition.as_ref(),
                    left_width,
                    right_width,
                },
                env,
            )
        }
    }
}

/// The operator's name, for errors and EXPLAIN.
pub fn node_name(node: &RelNode) -> &'static str {
    match node {
        RelNode::Leaf { .. } => "LEAF",
        RelNode::Receive { .. } => "RECEIVE",
        RelNode::Project { .. } => "PROJECT",
        RelNode::Filter { .. } => "FILTER",
        RelNode::Aggregate { .. } => "AGGREGATE",
        RelNode::Join { .. } => "JOIN",
        RelNode::Window { .. } => "WINDOW",
        RelNode::Sort { .. } => "SORT",
        RelNode::SetOp { .. } => "SET_OP",
        RelNode::Values { .. } => "VALUES",
    }
}

/// One aggregate's states per group over rows already assigned to groups, with the same
/// accumulators (and so the same semantics, sketches and hashing) as the single-stage engine.
fn accumulate(
    call: &AggregateCall,
    groups: &[u32],
    num_groups: usize,
    args: Option<Vec<Value>>,
) -> Result<Vec<AggState>, EngineError> {
    let mut acc = GroupAccumulator::new(call, None);
    acc.resize(num_groups.max(1));
    let n = groups.len();
    let data_type = call
        .arg
        .as_ref()
        .map_or(DataType::Long, |e| e.column_type().data_type);
    let valid: Option<Vec<bool>> = args
        .as_ref()
        .map(|v| v.iter().map(|x| !x.is_null()).collect());
    let projected = args.map(|v| Projected {
        data: ColumnData::Values(v),
        data_type,
        nulls: None,
    });
    if n > 0 {
        acc.accumulate(
            GroupMap::PerRow(groups),
            projected.as_ref(),
            n,
            valid.as_deref(),
        )?;
    }
    Ok((0..num_groups).map(|g| acc.state(g)).collect())
}

fn aggregate(
    rows: Vec<Row>,
    group_keys: &[usize],
    aggregates: &[AggregateCall],
    mode: AggMode,
    null_handling: bool,
) -> Result<Vec<Row>, EngineError> {
    let mut ids: HashMap<RowKey, u32> = HashMap::new();
    let mut keys: Vec<Vec<Value>> = Vec::new();
    let mut groups: Vec<u32> = Vec::with_capacity(rows.len());
    for row in &rows {
        let key_values: Vec<Value> = group_keys
            .iter()
            .map(|k| {
                row.get(*k)
                    .map(|d| d.value().clone())
                    .unwrap_or(Value::Null)
            })
            .collect();
        let id = *ids.entry(RowKey(key_values.clone())).or_insert_with(|| {
            keys.push(key_values);
            (keys.len() - 1) as u32
        });
        groups.push(id);
    }
    // An aggregation without GROUP BY answers one row even over no input.
    if group_keys.is_empty() && keys.is_empty() {
        keys.push(Vec::new());
    }
    let num_groups = keys.len();
    let mut states: Vec<Vec<AggState>> = Vec::with_capacity(aggregates.len());
    for (i, call) in aggregates.iter().enumerate() {
        if call.filter.is_some() {
            return Err(EngineError::execution(
                "FILTER (WHERE …) on aggregates over joined or windowed rows is not supported yet",
            ));
        }
        let per_group = match mode {
            AggMode::Final => {
                let mut merged: Vec<AggState> = (0..num_groups)
                    .map(|_| AggState::empty(&call.function))
                    .collect();
                for (row, g) in rows.iter().zip(&groups) {
                    if let Some(Datum::State(s)) = row.get(group_keys.len() + i) {
                        merged[*g as usize].merge(s.clone(), &call.function)?;
                    }
                }
                merged
            }
            AggMode::Direct | AggMode::Partial => {
                let args = match &call.arg {
                    None => None,
                    Some(e) => Some(
                        rows.iter()
                            .map(|r| eval_on(e, r))
                            .collect::<Result<Vec<_>, _>>()?,
                    ),
                };
                accumulate(call, &groups, num_groups, args)?
            }
        };
        states.push(per_group);
    }
    let mut out = Vec::with_capacity(num_groups);
    for (g, key) in keys.into_iter().enumerate() {
        let mut row: Row = key.into_iter().map(Datum::Value).collect();
        for (per_group, call) in states.iter_mut().zip(aggregates) {
            let state = std::mem::replace(&mut per_group[g], AggState::Count(0));
            row.push(match mode {
                AggMode::Partial => Datum::State(state),
                _ => Datum::Value(state.finalize(&call.function, null_handling)),
            });
        }
        out.push(row);
    }
    Ok(out)
}

/// A join key's value in one canonical form per number, so `1` (INT), `1` (LONG) and `1.0`
/// (DOUBLE) meet — in the hash table and in the hash exchange before it.
pub fn key_value(v: &Value) -> Value {
    match v {
        Value::Int(i) => Value::Long(i64::from(*i)),
        Value::Float(f) => key_value(&Value::Double(f64::from(*f))),
        Value::Double(d) if d.fract() == 0.0 && d.abs() < 9.0e15 => Value::Long(*d as i64),
        other => other.clone(),
    }
}

fn key_of(row: &[Datum], cols: &[usize]) -> Option<RowKey> {
    let mut key = Vec::with_capacity(cols.len());
    for c in cols {
        let v = key_value(row.get(*c).map_or(&Value::Null, |d| d.value()));
        // NULL never equals anything in a join key.
        if v.is_null() {
            return None;
        }
        key.push(v);
    }
    Some(RowKey(key))
}

struct JoinSpec<'a> {
    kind: JoinKind,
    left_keys: &'a [usize],
    right_keys: &'a [usize],
    condition: Option<&'a Expr>,
    left_width: usize,
    right_width: usize,
}

fn nulls(n: usize) -> Row {
    (0..n).map(|_| Datum::Value(Value::Null)).collect()
}

/// A hash join (a nested loop when there are no keys): the right side is the build side.
fn join(
    left: Vec<Row>,
    right: Vec<Row>,
    j: JoinSpec<'_>,
    env: &Env<'_>,
) -> Result<Vec<Row>, EngineError> {
    let limit = env.max_rows_in_join;
    // An inner equi-join builds on the smaller side; the output is left ++ right either way.
    if j.kind == JoinKind::Inner && !j.left_keys.is_empty() && left.len() < right.len() {
        return inner_join_built_left(left, right, &j, env);
    }
    if right.len() > limit {
        return Err(EngineError::execution(format!(
            "Cannot build in memory hash table for join operator, reach number of rows limit: {limit} (maxRowsInJoin)"
        )));
    }
    let mut table: HashMap<RowKey, Vec<usize>> = HashMap::new();
    if !j.left_keys.is_empty() {
        for (i, r) in right.iter().enumerate() {
            if let Some(k) = key_of(r, j.right_keys) {
                table.entry(k).or_default().push(i);
            }
        }
    }
    let all_right: Vec<usize> = (0..right.len()).collect();
    let mut right_matched = vec![false; right.len()];
    let mut out = Vec::new();
    for (n, l) in left.iter().enumerate() {
        if n % 4096 == 0 {
            env.ctx.check()?;
        }
        let candidates: &[usize] = if j.left_keys.is_empty() {
            &all_right
        } else {
            match key_of(l, j.left_keys).and_then(|k| table.get(&k)) {
                Some(c) => c,
                None => &[],
            }
        };
        let mut matched = false;
        for &ri in candidates {
            let mut joined: Row = l.clone();
            joined.extend(right[ri].iter().cloned());
            let keep = match j.condition {
                None => true,
                Some(c) => eval_on(c, &joined)? == Value::Boolean(true),
            };
            if !keep {
                continue;
            }
            matched = true;
            right_matched[ri] = true;
            match j.kind {
                JoinKind::Semi | JoinKind::Anti => break,
                _ => out.push(joined),
            }
        }
        match j.kind {
            JoinKind::Semi if matched => out.push(l.clone()),
            JoinKind::Anti if !matched => out.push(l.clone()),
            JoinKind::Left | JoinKind::Full if !matched => {
                let mut row = l.clone();
                row.extend(nulls(j.right_width));
                out.push(row);
            }
            _ => {}
        }
        if out.len() > limit.saturating_mul(16) {
            return Err(EngineError::execution(format!(
                "join produced more than {} rows (maxRowsInJoin {limit})",
                limit.saturating_mul(16)
            )));
        }
    }
    if matches!(j.kind, JoinKind::Right | JoinKind::Full) {
        for (ri, r) in right.into_iter().enumerate() {
            if !right_matched[ri] {
                let mut row = nulls(j.left_width);
                row.extend(r);
                out.push(row);
            }
        }
    }
    Ok(out)
}

/// An inner hash join with the hash table on the left rows (the smaller side).
fn inner_join_built_left(
    left: Vec<Row>,
    right: Vec<Row>,
    j: &JoinSpec<'_>,
    env: &Env<'_>,
) -> Result<Vec<Row>, EngineError> {
    let limit = env.max_rows_in_join;
    if left.len() > limit {
        return Err(EngineError::execution(format!(
            "Cannot build in memory hash table for join operator, reach number of rows limit: {limit} (maxRowsInJoin)"
        )));
    }
    let mut table: HashMap<RowKey, Vec<usize>> = HashMap::new();
    for (i, l) in left.iter().enumerate() {
        if let Some(k) = key_of(l, j.left_keys) {
            table.entry(k).or_default().push(i);
        }
    }
    let mut out = Vec::new();
    for (n, r) in right.iter().enumerate() {
        if n % 4096 == 0 {
            env.ctx.check()?;
        }
        let Some(matches) = key_of(r, j.right_keys).and_then(|k| table.get(&k)) else {
            continue;
        };
        for &li in matches {
            let mut joined: Row = Vec::with_capacity(j.left_width + j.right_width);
            joined.extend(left[li].iter().cloned());
            joined.extend(r.iter().cloned());
            if let Some(c) = j.condition
                && eval_on(c, &joined)? != Value::Boolean(true)
            {
                continue;
            }
            out.push(joined);
        }
        if out.len() > limit.saturating_mul(16) {
            return Err(EngineError::execution(format!(
                "join produced more than {} rows (maxRowsInJoin {limit})",
                limit.saturating_mul(16)
            )));
        }
    }
    Ok(out)
}

/// UNION / INTERSECT / EXCEPT, with SQL's ALL (bag) and distinct (set) semantics.
fn set_op(kind: SetOpKind, all: bool, mut sides: Vec<Vec<Row>>) -> Vec<Row> {
    let key = |r: &Row| RowKey(values(r));
    let first = if sides.is_empty() {
        Vec::new()
    } else {
        sides.remove(0)
    };
    match kind {
        SetOpKind::Union => {
            let rows = first.into_iter().chain(sides.into_iter().flatten());
            if all {
                return rows.collect();
            }
            let mut seen = std::collections::HashSet::new();
            rows.filter(|r| seen.insert(key(r))).collect()
        }
        SetOpKind::Intersect | SetOpKind::Except => {
            let mut counts: HashMap<RowKey, usize> = HashMap::new();
            for r in sides.iter().flatten() {
                *counts.entry(key(r)).or_default() += 1;
            }
            let mut emitted = std::collections::HashSet::new();
            let mut out = Vec::new();
            for r in first {
                let k = key(&r);
                let c = counts.get(&k).copied().unwrap_or(0);
                let keep = match (kind, all) {
                    (SetOpKind::Intersect, true) => c > 0,
                    (SetOpKind::Except, true) => c == 0,
                    (SetOpKind::Intersect, false) => c > 0 && emitted.insert(k.clone()),
                    _ => c == 0 && emitted.insert(k.clone()),
                };
                if keep {
                    if all && c > 0 {
                        counts.insert(k, c - 1);
                    }
                    out.push(r);
                } else if all && kind == SetOpKind::Except && c > 0 {
                    counts.insert(k, c - 1);
                }
            }
            out
        }
    }
}

/// Window functions: rows grouped by the partition keys, each partition sorted by the order
/// keys, and every call's value appended to each row.
fn window(
    rows: Vec<Row>,
    partition_by: &[usize],
    order_by: &[planner::plan::SortKey],
    calls: &[WindowCall],
    env: &Env<'_>,
) -> Result<Vec<Row>, EngineError> {
    let mut partitions: HashMap<RowKey, Vec<Row>> = HashMap::new();
    let mut order: Vec<RowKey> = Vec::new();
    for r in rows {
        let key = RowKey(
            partition_by
                .iter()
                .map(|c| r.get(*c).map_or(Value::Null, |d| d.value().clone()))
                .collect(),
        );
        partitions
            .entry(key.clone())
            .or_insert_with(|| {
                order.push(key);
                Vec::new()
            })
            .push(r);
    }
    let null_handling = env.ctx.null_handling();
    let mut out = Vec::new();
    for key in order {
        env.ctx.check()?;
        let Some(part) = partitions.remove(&key) else {
            continue;
        };
        let mut keyed: Vec<(Vec<Value>, Row)> = part.into_iter().map(|r| (values(&r), r)).collect();
        keyed.sort_by(|a, b| compare_rows(&a.0, &b.0, order_by));
        let n = keyed.len();
        let sort_key = |i: usize| -> Vec<Value> {
            order_by
                .iter()
                .map(|k| keyed[i].0.get(k.column).cloned().unwrap_or(Value::Null))
                .collect()
        };
        // Peer groups: rows with equal order keys.
        let mut peer_start = vec![0; n];
        let mut peer_end = vec![0; n];
        let mut i = 0;
        while i < n {
            let mut j = i;
            let ki = sort_key(i);
            while j + 1 < n && sort_key(j + 1) == ki {
                j += 1;
            }
            for p in i..=j {
                peer_start[p] = i;
                peer_end[p] = j;
            }
            i = j + 1;
        }
        let mut results: Vec<Vec<Value>> = Vec::with_capacity(calls.len());
        for call in calls {
            let args: Vec<Value> = match &call.arg {
                Some(e) => keyed
                    .iter()
                    .map(|(_, r)| eval_on(e, r))
                    .collect::<Result<_, _>>()?,
                None => Vec::new(),
            };
            let mut vals = Vec::with_capacity(n);
            let mut dense = 0i64;
            for i in 0..n {
                if i == 0 || peer_start[i] == i {
                    dense += 1;
                }
                let frame = |i: usize| -> (usize, usize) {
                    let f = &call.frame;
                    let start = match f.start {
                        FrameBound::UnboundedPreceding => 0,
                        FrameBound::Preceding(k) if f.rows => i.saturating_sub(k as usize),
                        FrameBound::CurrentRow if f.rows => i,
                        FrameBound::CurrentRow | FrameBound::Preceding(_) => peer_start[i],
                        FrameBound::Following(k) if f.rows => i + k as usize,
                        FrameBound::Following(_) => peer_end[i],
                        FrameBound::UnboundedFollowing => n,
                    };
                    let end = match f.end {
                        FrameBound::UnboundedFollowing => n.saturating_sub(1),
                        FrameBound::Following(k) if f.rows => {
                            (i + k as usize).min(n.saturating_sub(1))
                        }
                        FrameBound::CurrentRow if f.rows => i,
                        FrameBound::CurrentRow | FrameBound::Following(_) => peer_end[i],
                        FrameBound::Preceding(k) if f.rows => match i.checked_sub(k as usize) {
                            Some(e) => e,
                            None => return (1, 0),
                        },
                        FrameBound::Preceding(_) => peer_start[i],
                        FrameBound::UnboundedPreceding => return (1, 0),
                    };
                    (start, end)
                };
                let v = match &call.function {
                    WindowFunction::RowNumber => Value::Long(i as i64 + 1),
                    WindowFunction::Rank => Value::Long(peer_start[i] as i64 + 1),
                    WindowFunction::DenseRank => Value::Long(dense),
                    WindowFunction::Ntile(buckets) => {
                        let b = (*buckets as usize).max(1);
                        let (size, extra) = (n / b, n % b);
                        // The first `extra` buckets hold one row more.
                        let big = extra * (size + 1);
                        let bucket = if i < big {
                            i / (size + 1)
                        } else {
                            extra + (i - big) / size.max(1)
                        };
                        Value::Long(bucket as i64 + 1)
                    }
                    WindowFunction::Lag { offset, default } => i
                        .checked_sub(*offset as usize)
                        .map(|j| args[j].clone())
                        .unwrap_or_else(|| default.clone().unwrap_or(Value::Null)),
                    WindowFunction::Lead { offset, default } => args
                        .get(i + *offset as usize)
                        .cloned()
                        .unwrap_or_else(|| default.clone().unwrap_or(Value::Null)),
                    WindowFunction::FirstValue => {
                        let (s, e) = frame(i);
                        if s <= e && s < n {
                            args[s].clone()
                        } else {
                            Value::Null
                        }
                    }
                    WindowFunction::LastValue => {
                        let (s, e) = frame(i);
                        if s <= e && e < n {
                            args[e].clone()
                        } else {
                            Value::Null
                        }
                    }
                    WindowFunction::Aggregate(a) => {
                        let (s, e) = frame(i);
                        let range = if s <= e && s < n {
                            s..e.min(n - 1) + 1
                        } else {
                            0..0
                        };
                        let args = match &a.arg {
                            None => None,
                            Some(x) => Some(
                                keyed[range.clone()]
                                    .iter()
                                    .map(|(_, r)| eval_on(x, r))
                                    .collect::<Result<Vec<_>, _>>()?,
                            ),
                        };
                        let groups = vec![0u32; range.len()];
                        let state = accumulate(a, &groups, 1, args)?.pop();
                        state.map_or(Value::Null, |st| st.finalize(&a.function, null_handling))
                    }
                };
                vals.push(v);
            }
            results.push(vals);
        }
        for (i, (_, mut row)) in keyed.into_iter().enumerate() {
            for r in &results {
                row.push(Datum::Value(r[i].clone()));
            }
            out.push(row);
        }
    }
    Ok(out)
}
