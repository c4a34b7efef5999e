//! Running stages: [`run_worker`] (one worker of a non-root stage, on a server),
//! [`run_root`] (stage 0 on the broker, into a [`BrokerResponse`]) and [`run_local`] (a whole
//! plan in this process, each worker on its own thread, for the single-process paths and
//! tests).

use super::block::{Column, DataBlock};
use super::mailbox::{BlockSink, EndOfStream, MailboxKey, MailboxMessage, MailboxService};
use super::operators::{Env, StageInputs, execute, node_name};
use super::stats::{OperatorStats, StatsRecorder};
use crate::column::hash_rows;
use crate::context::QueryContext;
use crate::error::EngineError;
use crate::morsels::map_morsels;
use crate::provider::TableProvider;
use crate::response::{BrokerResponse, DataSchema, QueryException, ResultTable};
use crate::stats::ExecutionStats;
use planner::plan::multistage::estimate::plan_rows;
use planner::plan::multistage::{Distribution, MultiStagePlan, RelNode, StageId, StageKind};
use segments::ImmutableSegment;
use segments::types::Value;
use std::sync::Arc;

/// What a worker did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerStats {
    /// Rows this worker received from its child stages.
    pub rows_received: u64,
    /// Rows it sent to its parent stage.
    pub rows_sent: u64,
}

/// Reads a worker's child stages from its process's mailboxes.
struct Inbox<'a> {
    plan: &'a MultiStagePlan,
    stage: StageId,
    worker: usize,
    workers: &'a [usize],
    query_id: u64,
    mailboxes: &'a MailboxService,
    /// Where published key sets go (none at the root, which runs no join that publishes).
    sink: Option<&'a dyn BlockSink>,
    ctx: &'a QueryContext,
    received: std::cell::Cell<u64>,
    stats: std::cell::RefCell<ExecutionStats>,
    /// The operator trees child stages' workers sent, per child stage.
    operators: std::cell::RefCell<Vec<(StageId, OperatorStats)>>,
}

impl<'a> Inbox<'a> {
    fn new(
        plan: &'a MultiStagePlan,
        (stage, worker): (StageId, usize),
        workers: &'a [usize],
        query_id: u64,
        mailboxes: &'a MailboxService,
        sink: Option<&'a dyn BlockSink>,
        ctx: &'a QueryContext,
    ) -> Inbox<'a> {
        Inbox {
            plan,
            stage,
            worker,
            workers,
            query_id,
            mailboxes,
            sink,
            ctx,
            received: std::cell::Cell::new(0),
            stats: std::cell::RefCell::new(ExecutionStats::default()),
            operators: std::cell::RefCell::new(Vec::new()),
        }
    }
}

impl Inbox<'_> {
    /// Every data block the workers of stage `from` send this worker, until all of them ended.
    fn drain(&self, from: StageId) -> Result<Vec<DataBlock>, EngineError> {
        let key = MailboxKey {
            query_id: self.query_id,
            from_stage: from,
            to_stage: self.stage,
            to_worker: self.worker,
        };
        let senders = self.workers.get(from).copied().unwrap_or(0);
        let mut ended = 0;
        let mut blocks = Vec::new();
        while ended < senders {
            match self
                .mailboxes
                .receive(&key, self.ctx.deadline, self.ctx.options.timeout_ms)?
            {
                MailboxMessage::Data(block) => blocks.push(block),
                MailboxMessage::End(end) => {
                    self.stats.borrow_mut().add(&end.stats);
                    if let Some(tree) = end.operators {
                        self.operators.borrow_mut().push((from, tree));
                    }
                    ended += 1;
                }
                MailboxMessage::Error(e) => {
                    return Err(EngineError::Remote {
                        code: e.error_code,
                        message: e.message,
                    });
                }
            }
            self.ctx.check()?;
        }
        Ok(blocks)
    }
}

impl StageInputs for Inbox<'_> {
    fn receive_all(&self, from: StageId) -> Result<Vec<DataBlock>, EngineError> {
        if self.plan.stages.get(from).and_then(|s| s.parent) != Some(self.stage) {
            return Err(EngineError::execution(format!(
                "stage {from} does not send to stage {}",
                self.stage
            )));
        }
        let blocks = self.drain(from)?;
        let rows: usize = blocks.iter().map(|b| b.num_rows).sum();
        self.received.set(self.received.get() + rows as u64);
        Ok(blocks)
    }

    fn publish_keys(&self, to: StageId, keys: DataBlock) -> Result<(), EngineError> {
        let (Some(sink), Some(_)) = (self.sink, self.plan.stages.get(to)) else {
            return Err(EngineError::execution(format!("no stage {to}")));
        };
        if !self.plan.is_above(self.stage, to) {
            return Err(EngineError::execution(format!(
                "stage {} cannot filter stage {to}",
                self.stage
            )));
        }
        send_to_workers(sink, (self.query_id, self.stage, to), self.workers, |_| {
            vec![
                MailboxMessage::Data(keys.clone()),
                MailboxMessage::End(Box::default()),
            ]
        })
    }

    fn receive_keys(&self, from: StageId) -> Result<Vec<DataBlock>, EngineError> {
        if !self.plan.is_above(from, self.stage) {
            return Err(EngineError::execution(format!(
                "stage {from} cannot filter stage {}",
                self.stage
            )));
        }
        self.drain(from)
    }

    fn sender_stats(&self, stage: StageId) -> Option<OperatorStats> {
        let mut all = self.operators.borrow_mut();
        let (mine, rest): (Vec<_>, Vec<_>) = all.drain(..).partition(|(s, _)| *s == stage);
        *all = rest;
        OperatorStats::merged(mine.into_iter().map(|(_, t)| t).collect())
    }
}

/// The rows of `block` (worker `sender`'s whole output) each of the parent's `n` workers
/// receives under `distribution` (`None`: all of them).
fn partition(
    distribution: &Distribution,
    block: &DataBlock,
    n: usize,
    sender: usize,
) -> Vec<Option<Vec<u32>>> {
    if n == 1 {
        return vec![None];
    }
    match distribution {
        Distribution::Broadcast => vec![None; n],
        Distribution::Singleton => {
            let mut out = vec![Some(Vec::new()); n];
            out[0] = None;
            out
        }
        Distribution::Random => {
            // Each sender's block to a different receiver.
            let mut out = vec![Some(Vec::new()); n];
            out[sender % n] = None;
            out
        }
        Distribution::Hash(cols) => {
            let mut parts: Vec<Vec<u32>> = vec![Vec::new(); n];
            let keys: Vec<&Column> = cols.iter().filter_map(|c| block.columns.get(*c)).collect();
            for (r, h) in hash_rows(&keys, block.num_rows).into_iter().enumerate() {
                parts[(h % n as u64) as usize].push(r as u32);
            }
            parts.into_iter().map(Some).collect()
        }
    }
}

fn send_block(
    plan: &MultiStagePlan,
    (stage, worker): (StageId, usize),
    workers: &[usize],
    query_id: u64,
    block: DataBlock,
    sink: &dyn BlockSink,
) -> Result<u64, EngineError> {
    let parent = plan.stages[stage]
        .parent
        .ok_or_else(|| EngineError::execution("the root stage sends nothing"))?;
    let distribution = plan.stages[parent]
        .input_distribution
        .iter()
        .find(|(s, _)| *s == stage)
        .map_or(Distribution::Singleton, |(_, d)| d.clone());
    let n = workers.get(parent).copied().unwrap_or(1).max(1);
    let sent = block.num_rows as u64;
    let parts = partition(&distribution, &block, n, worker);
    let whole = parts.iter().filter(|p| p.is_none()).count();
    let mut block = Some(block);
    for (w, rows) in parts.into_iter().enumerate() {
        let part = match rows {
            // The last receiver of the whole block takes it; earlier ones get copies.
            None if whole == 1 => block.take().unwrap_or_default(),
            None => block.clone().unwrap_or_default(),
            Some(r) if r.is_empty() => continue,
            Some(r) => block.as_ref().map(|b| b.take(&r)).unwrap_or_default(),
        };
        let key = MailboxKey {
            query_id,
            from_stage: stage,
            to_stage: parent,
            to_worker: w,
        };
        // Whole: a sink to another process cuts it into frames (`DataBlock::split`).
        if part.num_rows > 0 {
            sink.send(&key, MailboxMessage::Data(part))?;
        }
    }
    Ok(sent)
}

/// Sends each worker `w` of stage `to` the messages `msgs(w)`, from stage `from`; stops at the
/// first failed send.
fn send_to_workers(
    sink: &dyn BlockSink,
    (query_id, from, to): (u64, StageId, StageId),
    workers: &[usize],
    msgs: impl Fn(usize) -> Vec<MailboxMessage>,
) -> Result<(), EngineError> {
    for w in 0..workers.get(to).copied().unwrap_or(1).max(1) {
        let key = MailboxKey {
            query_id,
            from_stage: from,
            to_stage: to,
            to_worker: w,
        };
        for m in msgs(w) {
            sink.send(&key, m)?;
        }
    }
    Ok(())
}

/// Sends `msg` to every worker of the parent stage; `first_only`: the first gets it and the
/// others an empty end (stats sent once are counted once).
fn send_to_parent_workers(
    plan: &MultiStagePlan,
    stage: StageId,
    workers: &[usize],
    query_id: u64,
    sink: &dyn BlockSink,
    msg: MailboxMessage,
    first_only: bool,
) {
    let Some(parent) = plan.stages.get(stage).and_then(|s| s.parent) else {
        return;
    };
    // Best effort: a receiver already gone has nothing left to learn.
    let _ = send_to_workers(sink, (query_id, stage, parent), workers, |w| {
        vec![if first_only && w > 0 {
            MailboxMessage::End(Box::default())
        } else {
            msg.clone()
        }]
    });
}

/// Runs worker `worker` of non-root stage `stage` to completion on the calling thread: its
/// operators over `segments` (a leaf) or its inbox, its rows sent to the parent stage's workers
/// by the parent's distribution, then `End` with its stats — or `Error` on failure.
#[allow(clippy::too_many_arguments)]
pub fn run_worker(
    plan: &MultiStagePlan,
    stage: StageId,
    worker: usize,
    workers: &[usize],
    query_id: u64,
    segments: &[Arc<ImmutableSegment>],
    inbox: &MailboxService,
    sink: &dyn BlockSink,
    ctx: &QueryContext,
) -> Result<WorkerStats, EngineError> {
    let Some(s) = plan.stages.get(stage) else {
        return Err(EngineError::execution(format!("no stage {stage}")));
    };
    let inputs = Inbox::new(
        plan,
        (stage, worker),
        workers,
        query_id,
        inbox,
        Some(sink),
        ctx,
    );
    let mut env = Env {
        ctx,
        max_rows_in_join: plan.v2_options.max_rows_in_join,
        max_rows_in_window: plan.v2_options.max_rows_in_window,
        window_overflow: plan.v2_options.window_overflow_mode,
        segments,
        inputs: &inputs,
        stats: ExecutionStats::default(),
        recorder: StatsRecorder::new(),
        join_overflow: plan.v2_options.join_overflow_mode,
    };
    let started = std::time::Instant::now();
    // `stageId(col)` / `workerId(col)` read this worker's ids.
    let bound = planner::plan::identity::bind_worker(plan, stage, worker);
    let outcome = execute(bound.as_ref().unwrap_or(&s.root), &mut env)
        .and_then(|block| send_block(plan, (stage, worker), workers, query_id, block, sink));
    match outcome {
        Ok(sent) => {
            let mut stats = *inputs.stats.borrow();
            stats.add(&env.stats);
            let send = OperatorStats {
                kind: "MAILBOX_SEND".into(),
                execution_time_ms: started.elapsed().as_millis() as u64,
                emitted_rows: sent,
                stage: Some(stage),
                parallelism: Some(1),
                children: std::mem::take(&mut env.recorder)
                    .finish()
                    .into_iter()
                    .collect(),
                ..OperatorStats::default()
            };
            let end = EndOfStream {
                stats,
                operators: Some(send),
            };
            send_to_parent_workers(
                plan,
                stage,
                workers,
                query_id,
                sink,
                MailboxMessage::End(Box::new(end)),
                true,
            );
            Ok(WorkerStats {
                rows_received: inputs.received.get(),
                rows_sent: sent,
            })
        }
        Err(e) => {
            let exception = QueryException::from(&e);
            // Leaves waiting for this stage's keys learn of the failure too.
            for leaf in key_filter_targets(plan, stage) {
                let _ = send_to_workers(sink, (query_id, stage, leaf), workers, |_| {
                    vec![MailboxMessage::Error(exception.clone())]
                });
            }
            send_to_parent_workers(
                plan,
                stage,
                workers,
                query_id,
                sink,
                MailboxMessage::Error(exception),
                false,
            );
            Err(e)
        }
    }
}

/// The leaf stages that wait for key sets from `stage`.
fn key_filter_targets(plan: &MultiStagePlan, stage: StageId) -> Vec<StageId> {
    plan.stages
        .iter()
        .filter(|s| {
            matches!(&s.root, RelNode::Leaf { key_filters, .. }
                if key_filters.iter().any(|f| f.from_stage == stage))
        })
        .map(|s| s.id)
        .collect()
}

/// The stage tree as text, one line per operator (EXPLAIN under v2), each with the rows the
/// optimizer estimated for it (`~N rows`) where it has an estimate.
pub fn explain_lines(plan: &MultiStagePlan) -> Vec<String> {
    fn walk(plan: &MultiStagePlan, node: &RelNode, depth: usize, out: &mut Vec<String>) {
        let pad = "  ".repeat(depth);
        let detail = match node {
            RelNode::Leaf {
                plan: p,
                key_filters,
            } => format!(
                "(table:{}, {}, filter:{}{})",
                p.table,
                p.kind.combine_name(),
                p.filter
                    .as_ref()
                    .map_or("none".to_string(), |f| f.to_string()),
                key_filters
                    .iter()
                    .map(|f| format!(", keys:{} from stage {}", f.column, f.from_stage))
                    .collect::<String>()
            ),
            RelNode::Join {
                publish_keys: Some(p),
                ..
            } => format!(
                "(keys of the {} side to stage {})",
                if p.source_left { "left" } else { "right" },
                p.to_stage
            ),
            RelNode::Receive { stage, .. } => {
                let d = plan
                    .stages
                    .iter()
                    .flat_map(|s| s.input_distribution.iter())
                    .find(|(s, _)| s == stage)
                    .map_or("SINGLETON".to_string(), |(_, d)| {
                        format!("{d:?}").to_uppercase()
                    });
                format!("(from stage {stage}, {d})")
            }
            _ => String::new(),
        };
        // The optimizer's estimate, where its leaves have one.
        let rows = plan_rows(node, &plan.stages)
            .map_or(String::new(), |r| format!(" ~{} rows", r.round() as u64));
        out.push(format!("{pad}{}{detail}{rows}", node_name(node)));
        for i in node.inputs() {
            walk(plan, i, depth + 1, out);
        }
        if let RelNode::Receive { stage, .. } = node
            && let Some(child) = plan.stages.get(*stage)
        {
            out.push(format!("{pad}  [stage {}] {:?}", child.id, child.kind));
            walk(plan, &child.root, depth + 2, out);
        }
    }
    let mut out = vec!["[stage 0] ROOT (broker)".to_string()];
    if let Some(root) = plan.stages.first() {
        walk(plan, &root.root, 1, &mut out);
    }
    out
}

/// The root's answer rows: each cell typed as the plan's column says (a single value cast to
/// its type) and rendered Pinot's way, moved from the block's value into its JSON with no copy
/// between. Built in morsels on the pool: a large answer (Q16's 18,000 rows) was the root's
/// longest serial step, three copies of every cell on one thread.
fn answer_rows(
    block: &DataBlock,
    columns: &[(String, planner::plan::ColumnType)],
) -> Vec<Vec<serde_json::Value>> {
    let parts = map_morsels(block.num_rows, |rows| {
        rows.map(|r| {
            block
                .columns
                .iter()
                .zip(columns)
                .map(|(c, (_, t))| match t.single_value {
                    true => c.value(r).cast_into(t.data_type).into_json(),
                    false => c.value(r).into_json(),
                })
                .collect()
        })
        .collect::<Vec<_>>()
    });
    parts.into_iter().flatten().collect()
}

/// Runs stage 0 on the calling thread over `inbox` and answers: the rows cast to the plan's
/// column types under its column names, the stages' stats summed, the first error of any stage
/// as the exception. `EXPLAIN` answers the stage tree without running anything.
pub fn run_root(
    plan: &MultiStagePlan,
    workers: &[usize],
    query_id: u64,
    inbox: &MailboxService,
    ctx: &QueryContext,
) -> BrokerResponse {
    let mut r = BrokerResponse::default();
    if plan.explain {
        let rows: Vec<Vec<Value>> = explain_lines(plan)
            .into_iter()
            .map(|l| vec![Value::String(l)])
            .collect();
        let columns = vec![(
            "PLAN".to_string(),
            planner::plan::ColumnType::sv(segments::types::DataType::String),
        )];
        r.set_result(ResultTable::new(&columns, &rows));
        return r;
    }
    let inputs = Inbox::new(plan, (0, 0), workers, query_id, inbox, None, ctx);
    let mut env = Env {
        ctx,
        max_rows_in_join: plan.v2_options.max_rows_in_join,
        max_rows_in_window: plan.v2_options.max_rows_in_window,
        window_overflow: plan.v2_options.window_overflow_mode,
        segments: &[],
        inputs: &inputs,
        stats: ExecutionStats::default(),
        recorder: StatsRecorder::new(),
        join_overflow: plan.v2_options.join_overflow_mode,
    };
    let outcome = match plan.stages.first() {
        Some(root) => execute(
            planner::plan::identity::bind_worker(plan, 0, 0)
                .as_ref()
                .unwrap_or(&root.root),
            &mut env,
        ),
        None => Err(EngineError::execution("the plan has no stages")),
    };
    let mut stats = *inputs.stats.borrow();
    stats.add(&env.stats);
    r.set_stats(&stats);
    r.stage_stats = std::mem::take(&mut env.recorder).finish();
    // Pinot's v2 answer says whether a join stopped at maxRowsInJoin (then the result is partial).
    let limited = r
        .stage_stats
        .as_ref()
        .is_some_and(OperatorStats::join_limit_reached);
    r.max_rows_in_join_reached = Some(limited);
    r.partial_result |= limited;
    let window_limited = r
        .stage_stats
        .as_ref()
        .is_some_and(OperatorStats::window_limit_reached);
    r.max_rows_in_window_reached = Some(window_limited);
    r.partial_result |= window_limited;
    // Groups dropped past numGroupsLimit, in a leaf's grouping or an aggregate of any stage.
    r.num_groups_limit_reached |= r
        .stage_stats
        .as_ref()
        .is_some_and(OperatorStats::groups_limit_reached);
    r.partial_result |= r.num_groups_limit_reached;
    let outcome = match outcome {
        Ok(_) if r.num_groups_limit_reached && plan.options.error_on_num_groups_limit => {
            Err(EngineError::groups_limit())
        }
        other => other,
    };
    match outcome {
        Ok(block) => r.set_result(ResultTable {
            data_schema: DataSchema::of(&plan.columns),
            rows: answer_rows(&block, &plan.columns),
        }),
        Err(e) => r.push_exception(&e),
    }
    r.tables_queried = plan
        .stages
        .iter()
        .filter_map(|s| match &s.kind {
            StageKind::Leaf { table } => Some(table.clone()),
            _ => None,
        })
        .collect();
    r
}

/// Workers per stage for a run in this process: a leaf gets one worker per segment up to
/// `per_stage`, a singleton stage and the root one, every other stage `per_stage`.
pub fn local_worker_counts(
    plan: &MultiStagePlan,
    tables: &dyn TableProvider,
    per_stage: usize,
) -> Vec<usize> {
    plan.stages
        .iter()
        .map(|s| match &s.kind {
            StageKind::Root | StageKind::Intermediate { singleton: true } => 1,
            StageKind::Intermediate { singleton: false } => per_stage.max(1),
            StageKind::Leaf { table } => tables.segments(table).len().clamp(1, per_stage.max(1)),
        })
        .collect()
}

/// Runs a whole plan in this process: every non-root worker on its own thread (leaf segments
/// split round-robin over the leaf's workers), the root on the calling thread. Every worker
/// has ended when this returns.
pub fn run_local(
    plan: &MultiStagePlan,
    tables: &dyn TableProvider,
    workers_per_stage: usize,
) -> BrokerResponse {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let query_id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mailboxes = MailboxService::new();
    let counts = local_worker_counts(plan, tables, workers_per_stage);
    let ctx = QueryContext::new(plan.options.clone());
    let response = std::thread::scope(|scope| {
        for s in plan.stages.iter().filter(|s| s.id != 0) {
            let segments = match &s.kind {
                StageKind::Leaf { table } => tables.segments(table),
                _ => Vec::new(),
            };
            let n = counts[s.id];
            for w in 0..n {
                let mine: Vec<_> = segments
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % n == w)
                    .map(|(_, s)| s.clone())
                    .collect();
                let (mailboxes, counts, ctx) = (&mailboxes, &counts, &ctx);
                let stage = s.id;
                scope.spawn(move || {
                    let worker_ctx = QueryContext::new(ctx.options.clone());
                    // A failed worker has sent its error downstream; the root reports it and
                    // then cancels whatever still runs (cancelling here could beat the error to
                    // the root, which would then answer "cancelled").
                    let _ = run_worker(
                        plan,
                        stage,
                        w,
                        counts,
                        query_id,
                        &mine,
                        mailboxes,
                        mailboxes,
                        &worker_ctx,
                    );
                });
            }
        }
        let r = run_root(plan, &counts, query_id, &mailboxes, &ctx);
        // Whatever still runs (a failed query) is woken and ends before the scope closes.
        mailboxes.cancel(query_id);
        r
    });
    mailboxes.finish(query_id);
    response
}
