//! The relational operators of a stage, evaluated over the stage's inputs: the worker's
//! segments (a leaf's v1 server plan) and the blocks its child stages send.
//!
//! Operators work on columnar [`DataBlock`]s: a projection evaluates each expression over
//! whole columns (arithmetic on unboxed numbers in one loop; other expressions row by row
//! with the planner's evaluator, so v2 and v1 compute every scalar function the same way), a
//! filter gathers the rows its condition keeps, the hash join builds a table of row indices on
//! the smaller input of an inner join (else the right) and gathers both sides' columns by the
//! matched index pairs, the aggregate ([`super::aggregate`]) assigns group ids by column keys
//! and feeds whole columns to the single-stage engine's accumulators (a large input in parts
//! dealt out by key, side by side on the pool), and sort orders row indices. Windows and set
//! operations read rows. Each operator materialises its output as one block; the exchange cuts
//! it into blocks of at most [`MAX_BLOCK_ROWS`](super::block::MAX_BLOCK_ROWS) rows.

use super::aggregate::Aggregate;
use super::asof;
use super::block::{Column, DataBlock, NO_ROW};
use super::evaluate::{evaluate, selected};
use super::hash_table::{self, Matches};
use super::key_set;
use super::sort::sort;
use super::stats::{OperatorStats, StatsRecorder};
use crate::aggregate::{AggState, number_states};
use crate::context::QueryContext;
use crate::error::EngineError;
use crate::key::RowKey;
use crate::morsels::map_items;
use crate::server::execute_server;
use crate::server::result::IntermediateData;
use crate::stats::ExecutionStats;
use planner::plan::multistage::stage::JoinOverflowMode;
use planner::plan::multistage::{AsofMatch, JoinKind, PublishKeys, RelNode, SetOpKind, StageId};
use planner::plan::{AggregateCall, Expr};
use segments::ImmutableSegment;
use segments::types::{DataType, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// A row of values (windows and set operations).
pub type Row = Vec<Value>;

/// What a stage's operators read from.
pub trait StageInputs {
    /// Every block child stage `stage` sends this worker (blocks until all its workers ended).
    fn receive_all(&self, stage: StageId) -> Result<Vec<DataBlock>, EngineError>;
    /// The merged operator tree of child stage `stage`'s workers (once its rows are received).
    fn sender_stats(&self, stage: StageId) -> Option<OperatorStats>;
    /// Sends a key set ([`key_set::publish`]) to every worker of leaf stage `to`.
    fn publish_keys(&self, to: StageId, keys: DataBlock) -> Result<(), EngineError>;
    /// The key sets every worker of stage `from` (the parent, where the join runs) publishes
    /// to this leaf worker (blocks until all of them have).
    fn receive_keys(&self, from: StageId) -> Result<Vec<DataBlock>, EngineError>;
}

/// The worker's context while its operators run.
pub struct Env<'a> {
    pub ctx: &'a QueryContext,
    /// `maxRowsInJoin`: rows a join's build side may hold.
    pub max_rows_in_join: usize,
    pub segments: &'a [Arc<ImmutableSegment>],
    pub inputs: &'a dyn StageInputs,
    pub stats: ExecutionStats,
    /// Each operator's time and rows, for `stageStats`.
    pub recorder: StatsRecorder,
    /// `joinOverflowMode`: what a join past `maxRowsInJoin` does.
    pub join_overflow: JoinOverflowMode,
    /// `maxRowsInWindow`: rows a window operator may hold.
    pub max_rows_in_window: usize,
    /// `windowOverflowMode`: what a window past `maxRowsInWindow` does.
    pub window_overflow: JoinOverflowMode,
}

/// `exprs` over `block`: computed expressions evaluated, input columns moved out of the block
/// (copied only when an input is listed twice) — a projection that reorders or drops columns
/// copies no rows.
fn project(mut block: DataBlock, exprs: &[Expr]) -> Result<DataBlock, EngineError> {
    let mut uses = vec![0usize; block.columns.len()];
    for e in exprs {
        if let Expr::Input(r) = e {
            match uses.get_mut(r.index) {
                Some(u) => *u += 1,
                None => {
                    return Err(EngineError::execution(format!(
                        "input {} is out of range",
                        r.index
                    )));
                }
            }
        }
    }
    let computed = exprs
        .iter()
        .map(|e| match e {
            Expr::Input(_) => Ok(None),
            other => evaluate(other, &block).map(Some),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut columns = Vec::with_capacity(exprs.len());
    for (e, c) in exprs.iter().zip(computed) {
        match (e, c) {
            (_, Some(c)) => columns.push(c),
            (Expr::Input(r), None) => {
                let i = r.index;
                uses[i] -= 1;
                columns.push(if uses[i] == 0 {
                    let data_type = block.columns[i].data_type;
                    std::mem::replace(&mut block.columns[i], Column::empty(data_type))
                } else {
                    block.columns[i].clone()
                });
            }
            (_, None) => {}
        }
    }
    Ok(DataBlock::new(columns, block.num_rows))
}

fn types_of(node: &RelNode) -> Vec<DataType> {
    node.output_types().iter().map(|t| t.data_type).collect()
}

/// The leaf's v1 result as a block of `types`; the states of its `aggregates` whose state is one
/// number as numbers, as the leaf's groups as columns hold them.
fn leaf_block(
    data: IntermediateData,
    types: &[DataType],
    aggregates: &[AggregateCall],
) -> DataBlock {
    let state_column = |i: usize, t: DataType, states: Vec<AggState>| match aggregates.get(i) {
        Some(c) => number_states::state_column(&c.function, t, states),
        None => Column::states(t, states),
    };
    match data {
        IntermediateData::Columns(columns) => {
            let n = columns.first().map_or(0, Column::len);
            DataBlock::new(columns, n)
        }
        IntermediateData::Rows(rows) => DataBlock::from_rows(rows, types),
        IntermediateData::Groups(groups) => {
            let n = groups.len();
            let width = types.len();
            let mut keys: Vec<Vec<Value>> = Vec::new();
            let mut states: Vec<Vec<AggState>> = Vec::new();
            for (k, st) in groups {
                if keys.is_empty() {
                    keys = (0..k.len()).map(|_| Vec::with_capacity(n)).collect();
                    states = (0..st.len()).map(|_| Vec::with_capacity(n)).collect();
                }
                for (c, v) in k.into_iter().enumerate() {
                    keys[c].push(v);
                }
                for (c, s) in st.into_iter().enumerate() {
                    states[c].push(s);
                }
            }
            if n == 0 {
                return DataBlock::new(
                    types
                        .iter()
                        .map(|t| Column::from_values(*t, Vec::new()))
                        .collect(),
                    0,
                );
            }
            let k = keys.len();
            let mut columns: Vec<Column> = keys
                .into_iter()
                .zip(types)
                .map(|(v, t)| Column::from_values(*t, v))
                .collect();
            columns.extend(states.into_iter().enumerate().map(|(i, s)| {
                state_column(i, types.get(k + i).copied().unwrap_or(DataType::Long), s)
            }));
            debug_assert_eq!(columns.len(), width);
            DataBlock::new(columns, n)
        }
        IntermediateData::Aggregates(states) => DataBlock::new(
            states
                .into_iter()
                .zip(types)
                .enumerate()
                .map(|(i, (s, t))| state_column(i, *t, vec![s]))
                .collect(),
            1,
        ),
        IntermediateData::Explain(_) => DataBlock::concat(Vec::new(), types),
    }
}

/// Evaluates `node` to its rows, recording what it did.
pub fn execute(node: &RelNode, env: &mut Env<'_>) -> Result<DataBlock, EngineError> {
    let started = env.recorder.open();
    let out = evaluate_node(node, env);
    let received = match node {
        RelNode::Receive { stage, .. } => env.inputs.sender_stats(*stage),
        _ => None,
    };
    let rows = out.as_ref().map_or(0, |b| b.num_rows);
    env.recorder.close(node, started, rows, received);
    out
}

fn evaluate_node(node: &RelNode, env: &mut Env<'_>) -> Result<DataBlock, EngineError> {
    env.ctx.check()?;
    match node {
        RelNode::Leaf { plan, key_filters } => {
            let aggregates = plan.kind.aggregates();
            let mut restricted = None;
            for f in key_filters {
                if let Some(keys) = key_set::union(env.inputs.receive_keys(f.from_stage)?, f) {
                    let before = restricted.take().unwrap_or_else(|| plan.clone());
                    restricted = Some(key_set::restrict(before, f, keys));
                }
            }
            let plan = restricted.as_ref().unwrap_or(plan);
            let result = execute_server(plan, env.segments, env.ctx);
            env.stats.add(&result.stats);
            if result.num_groups_limit_reached {
                env.recorder.mark_limit_reached();
            }
            // The leaf's error as the v1 engine reported it: its code and message, not wrapped
            // again (it already carries Pinot's "QueryExecutionError: " prefix).
            if let Some(e) = result.exceptions.first() {
                return Err(EngineError::Remote {
                    code: e.error_code,
                    message: e.message.clone(),
                });
            }
            // A key set's `IN` list (up to a million values) is dropped on the pool, not on the
            // stage's way to its next operator.
            if let Some(plan) = restricted {
                rayon::spawn(move || drop(plan));
            }
            Ok(leaf_block(result.data, &types_of(node), aggregates))
        }
        // Planning places every operator and cuts every exchange into a stage of its own
        // before a stage is run.
        RelNode::Exchange(_) | RelNode::Place(_) => Err(EngineError::execution(
            "a stage holds an exchange or an unplaced operator: its plan was not split into stages",
        )),
        RelNode::Receive { stage, .. } => {
            let blocks = env.inputs.receive_all(*stage)?;
            Ok(DataBlock::concat(blocks, &types_of(node)))
        }
        RelNode::Project { input, exprs } => {
            let block = execute(input, env)?;
            project(block, exprs)
        }
        RelNode::Filter { input, condition } => {
            let block = execute(input, env)?;
            let keep = selected(condition, &block)?;
            if keep.len() == block.num_rows {
                return Ok(block);
            }
            Ok(block.take(&keep))
        }
        RelNode::Aggregate {
            input,
            group_keys,
            aggregates,
            mode,
            output_types,
            groups_limit,
        } => {
            let block = execute(input, env)?;
            let types: Vec<DataType> = output_types.iter().map(|t| t.data_type).collect();
            let (block, limited) = Aggregate {
                group_keys,
                aggregates,
                mode: *mode,
                types: &types,
                null_handling: env.ctx.null_handling(),
                groups_limit: *groups_limit,
            }
            .run(block)?;
            if limited {
                env.recorder.mark_limit_reached();
            }
            Ok(block)
        }
        RelNode::Sort {
            input,
            keys,
            offset,
            limit,
        } => {
            let block = execute(input, env)?;
            Ok(sort(block, keys, *offset, *limit))
        }
        RelNode::Values { rows, .. } => Ok(DataBlock::from_rows(rows.clone(), &types_of(node))),
        RelNode::Window {
            input,
            partition_by,
            order_by,
            calls,
        } => {
            let mut rows = execute(input, env)?.rows();
            // The rows a window holds past `maxRowsInWindow`: Pinot's error, or (BREAK) the
            // first rows only.
            if rows.len() > env.max_rows_in_window {
                if env.window_overflow != JoinOverflowMode::Break {
                    return Err(EngineError::ResourceLimit(format!(
                        "Cannot build in memory window cache for WINDOW operator, reach number of rows limit: {}",
                        env.max_rows_in_window
                    )));
                }
                rows.truncate(env.max_rows_in_window);
                env.recorder.mark_limit_reached();
            }
            let out = super::window::window(rows, partition_by, order_by, calls, env.ctx)?;
            Ok(DataBlock::from_rows(out, &types_of(node)))
        }
        RelNode::SetOp { kind, all, inputs } => {
            let mut sides = Vec::with_capacity(inputs.len());
            for i in inputs {
                sides.push(execute(i, env)?.rows());
            }
            Ok(DataBlock::from_rows(
                set_op(*kind, *all, sides),
                &types_of(node),
            ))
        }
        RelNode::Join {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            condition,
            asof,
            publish_keys,
            ..
        } => {
            // A runtime key filter: the source side first, its keys to the other side's leaf.
            let (l, r) = match publish_keys {
                Some(p) if p.source_left => {
                    let l = execute(left, env)?;
                    publish(&l, p, env)?;
                    (l, execute(right, env)?)
                }
                Some(p) => {
                    let r = execute(right, env)?;
                    publish(&r, p, env)?;
                    (execute(left, env)?, r)
                }
                None => (execute(left, env)?, execute(right, env)?),
            };
            join(
                l,
                r,
                JoinSpec {
                    kind: *kind,
                    left_keys,
                    right_keys,
                    condition: condition.as_ref(),
                    asof: asof.as_ref(),
                },
                env,
            )
        }
    }
}

/// Publishes the distinct keys of `source`'s column `p.key` to the leaf stage `p.to_stage`.
fn publish(source: &DataBlock, p: &PublishKeys, env: &Env<'_>) -> Result<(), EngineError> {
    let keys = match source.columns.get(p.key) {
        Some(c) => key_set::publish(c),
        None => DataBlock::new(Vec::new(), 1),
    };
    env.inputs.publish_keys(p.to_stage, keys)
}

/// The operator's name, for errors and EXPLAIN.
pub fn node_name(node: &RelNode) -> &'static str {
    match node {
        RelNode::Leaf { .. } => "LEAF",
        RelNode::Receive { .. } => "RECEIVE",
        RelNode::Exchange(_) => "EXCHANGE",
        RelNode::Place(_) => "PLACE",
        RelNode::Project { .. } => "PROJECT",
        RelNode::Filter { .. } => "FILTER",
        RelNode::Aggregate { .. } => "AGGREGATE",
        RelNode::Join { asof: Some(_), .. } => "ASOF_JOIN",
        RelNode::Join { .. } => "JOIN",
        RelNode::Window { .. } => "WINDOW",
        RelNode::Sort { .. } => "SORT",
        RelNode::SetOp { .. } => "SET_OP",
        RelNode::Values { .. } => "VALUES",
    }
}

struct JoinSpec<'a> {
    kind: JoinKind,
    left_keys: &'a [usize],
    right_keys: &'a [usize],
    condition: Option<&'a Expr>,
    /// An ASOF join's match condition.
    asof: Option<&'a AsofMatch>,
}

/// Pinot's error for a join past `maxRowsInJoin` (`what`: the build side or the output).
fn join_limit(what: &str, max: usize) -> EngineError {
    EngineError::ResourceLimit(format!(
        "{what}, reached number of rows limit: {max}.\nConsider increasing the limit for the maximum number of rows in a join either via:\n  - The query option 'maxRowsInJoin'\n  - The hint 'max_rows_in_join' in the 'joinOptions\n'Alternatively, if partial results are acceptable, the join overflow mode can be set to 'BREAK' either via:\n  - The query option 'joinOverflowMode'\n  - The hint 'join_overflow_mode' in the 'joinOptions'\n"
    ))
}

/// Pairs a join's condition is tested on at once.
const PAIRS_PER_SLICE: usize = 65_536;

/// Index pairs `(left, right)` of rows whose join keys are equal (hash join on the smaller
/// side of an inner join, else the right), or, without keys, every pair (a nested loop); then
/// only the pairs whose joined row meets `condition`. The cross product is formed a slice of
/// left rows at a time, so a selective condition never holds every pair at once. Stops once
/// more than `max_pairs` pairs are found.
fn matching_pairs(
    left: &DataBlock,
    right: &DataBlock,
    j: &JoinSpec<'_>,
    build_left: bool,
    max_pairs: usize,
    ctx: &QueryContext,
) -> Result<(Vec<u32>, Vec<u32>), EngineError> {
    fn keys<'b>(b: &'b DataBlock, k: &[usize]) -> Vec<&'b Column> {
        k.iter().filter_map(|c| b.columns.get(*c)).collect()
    }
    // The pairs whose joined row meets the condition, joined and tested a slice of pairs at a
    // time (so the joined rows of every pair are never held at once, and the deadline is
    // checked between slices).
    let filter = |li: Vec<u32>, ri: Vec<u32>| -> Result<(Vec<u32>, Vec<u32>), EngineError> {
        let Some(c) = j.condition else {
            return Ok((li, ri));
        };
        let (mut kl, mut kr) = (Vec::new(), Vec::new());
        for (l, r) in li.chunks(PAIRS_PER_SLICE).zip(ri.chunks(PAIRS_PER_SLICE)) {
            ctx.check()?;
            let keep = selected(c, &side_by_side(left, l, right, r))?;
            kl.extend(keep.iter().map(|&k| l[k as usize]));
            kr.extend(keep.iter().map(|&k| r[k as usize]));
        }
        Ok((kl, kr))
    };
    if !j.left_keys.is_empty() {
        let (lk, rk) = (keys(left, j.left_keys), keys(right, j.right_keys));
        // A semi, anti or NOT IN join without a condition on the pair asks only whether a left
        // row has a match (the right side builds for those, and the left probes).
        let matches = match j.kind {
            JoinKind::Semi | JoinKind::Anti | JoinKind::NotIn if j.condition.is_none() => {
                Matches::First
            }
            _ => Matches::All,
        };
        let (li, ri) = if build_left {
            let (r, l) = hash_table::equi_pairs(
                &lk,
                left.num_rows,
                &rk,
                right.num_rows,
                max_pairs,
                matches,
                ctx,
            )?;
            (l, r)
        } else {
            hash_table::equi_pairs(
                &rk,
                right.num_rows,
                &lk,
                left.num_rows,
                max_pairs,
                matches,
                ctx,
            )?
        };
        return filter(li, ri);
    }
    let (ln, rn) = (left.num_rows, right.num_rows);
    let slice = (PAIRS_PER_SLICE / rn.max(1)).max(1);
    let (mut li, mut ri) = (Vec::new(), Vec::new());
    let mut start = 0;
    while start < ln {
        ctx.check()?;
        let end = (start + slice).min(ln);
        let mut l = Vec::with_capacity((end - start) * rn);
        let mut r = Vec::with_capacity((end - start) * rn);
        for p in start..end {
            for b in 0..rn {
                l.push(p as u32);
                r.push(b as u32);
            }
        }
        let (l, r) = filter(l, r)?;
        li.extend(l);
        ri.extend(r);
        if li.len() > max_pairs {
            break;
        }
        start = end;
    }
    Ok((li, ri))
}

/// Left and right columns side by side.
fn side_by_side(left: &DataBlock, li: &[u32], right: &DataBlock, ri: &[u32]) -> DataBlock {
    let sides: Vec<(&Column, &[u32])> = (left.columns.iter().map(|c| (c, li)))
        .chain(right.columns.iter().map(|c| (c, ri)))
        .collect();
    let columns = map_items(sides, li.len(), |(c, rows)| c.take(rows));
    DataBlock::new(columns, li.len())
}

/// A hash join (every pair without keys), then the condition over the joined row. The build
/// side is the right input, or the left one of an inner or outer join when it is smaller.
fn join(
    mut left: DataBlock,
    mut right: DataBlock,
    j: JoinSpec<'_>,
    env: &mut Env<'_>,
) -> Result<DataBlock, EngineError> {
    let limit = env.max_rows_in_join;
    let breaks = env.join_overflow == JoinOverflowMode::Break;
    // The smaller side builds. Pairs are the same whichever side builds, and the rows an outer
    // join keeps unmatched are found from the pairs afterwards, so outer joins may build
    // either side; semi, anti and NOT IN joins test the left rows against a right-side table.
    let build_left = matches!(
        j.kind,
        JoinKind::Inner | JoinKind::Left | JoinKind::Right | JoinKind::Full
    ) && j.asof.is_none()
        && !j.left_keys.is_empty()
        && left.num_rows < right.num_rows
        // An outer join never cuts the side whose rows it keeps (BREAK cuts the build side).
        && (j.kind == JoinKind::Inner || left.num_rows <= limit);
    // The build side past `maxRowsInJoin`: Pinot's error, or (BREAK) its first rows only.
    let build = if build_left { &mut left } else { &mut right };
    if build.num_rows > limit {
        if !breaks {
            return Err(join_limit(
                "Cannot build in memory hash table for join operator",
                limit,
            ));
        }
        let kept: Vec<u32> = (0..limit as u32).collect();
        *build = build.take(&kept);
        env.recorder.mark_limit_reached();
    }
    // Pairs before the join condition are bounded too (memory), the joined rows by the limit.
    let (mut li, mut ri) = match j.asof {
        Some(m) => asof::closest_pairs(&left, &right, j.left_keys, j.right_keys, m, env.ctx)?,
        None => matching_pairs(
            &left,
            &right,
            &j,
            build_left,
            limit.saturating_mul(16),
            env.ctx,
        )?,
    };
    if li.len() > limit {
        if !breaks {
            return Err(join_limit("Cannot process join", limit));
        }
        li.truncate(limit);
        ri.truncate(limit);
        env.recorder.mark_limit_reached();
    }
    // The rows of an `n`-row side that are (`wanted`) or are not among `matched`.
    let rows = |n: usize, matched: &[u32], wanted: bool| -> Vec<u32> {
        let mut seen = vec![false; n];
        for &m in matched {
            seen[m as usize] = true;
        }
        (0..n as u32)
            .filter(|&i| seen[i as usize] == wanted)
            .collect()
    };
    let unmatched = |n: usize, matched: &[u32]| rows(n, matched, false);
    match j.kind {
        JoinKind::Inner => Ok(side_by_side(&left, &li, &right, &ri)),
        JoinKind::Semi | JoinKind::Anti => {
            let keep = rows(left.num_rows, &li, j.kind == JoinKind::Semi);
            Ok(left.take(&keep))
        }
        JoinKind::NotIn => {
            fn key<'b>(b: &'b DataBlock, k: &[usize]) -> Option<&'b Column> {
                k.first().and_then(|&c| b.columns.get(c))
            }
            let (Some(lk), Some(rk)) = (key(&left, j.left_keys), key(&right, j.right_keys)) else {
                return Err(EngineError::execution("NOT IN needs one key on each side"));
            };
            if right.num_rows == 0 {
                return Ok(left);
            }
            if (0..right.num_rows).any(|r| rk.is_null(r)) {
                return Ok(left.take(&[]));
            }
            let keep: Vec<u32> = unmatched(left.num_rows, &li)
                .into_iter()
                .filter(|&l| !lk.is_null(l as usize))
                .collect();
            Ok(left.take(&keep))
        }
        JoinKind::Left | JoinKind::Right | JoinKind::Full => {
            let lost_left = if j.kind == JoinKind::Right {
                Vec::new()
            } else {
                unmatched(left.num_rows, &li)
            };
            let lost_right = if j.kind == JoinKind::Left {
                Vec::new()
            } else {
                unmatched(right.num_rows, &ri)
            };
            for l in lost_left {
                li.push(l);
                ri.push(NO_ROW);
            }
            for r in lost_right {
                li.push(NO_ROW);
                ri.push(r);
            }
            Ok(side_by_side(&left, &li, &right, &ri))
        }
    }
}

/// UNION / INTERSECT / EXCEPT, with SQL's ALL (bag) and distinct (set) semantics.
fn set_op(kind: SetOpKind, all: bool, mut sides: Vec<Vec<Row>>) -> Vec<Row> {
    let key = |r: &Row| RowKey(r.clone());
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
