//! The running query's identity — its request and correlation ids, its broker, when it started
//! and must end, its engine, and a multi-stage worker's stage and worker — bound into a plan
//! in place of Pinot's internal functions ([`Internal`]: `reqId(…)`, `stageId(…)`, …).
//!
//! The binder keeps those calls as calls; they are not deterministic, so a plan holding one is
//! never folded nor kept in the broker's plan cache, and each run binds its own identity:
//!
//! * the broker, before the plan runs ([`QueryPlan::bind_identity`]): every call becomes its
//!   value — a literal where the argument is one (Pinot folds those on the broker, so their
//!   `stageId` and `workerId` are -1), else `CASE WHEN arg IS NULL THEN NULL ELSE value END`
//!   (the function gives NULL for a NULL argument). A single-stage query answers -1 for the
//!   stage and worker and `SSE`; a multi-stage query `MSE`, and its per-row `stageId(col)` and
//!   `workerId(col)` are left to the worker;
//! * a multi-stage worker, on the stage it runs ([`bind_worker`]): the calls left become its
//!   stage and worker ids.
//!
//! `startTime` is the broker's start for every call (Pinot's workers answer when they received
//! the query; the same instant to within the dispatch).

use super::aggregate::AggregateCall;
use super::expr::Expr;
use super::filter::FilterExpr;
use super::multistage::{MultiStagePlan, RelNode, WindowFunction};
use super::query_plan::{BrokerReducePlan, QueryPlan, ServerQueryKind, ServerQueryPlan};
use crate::functions::Internal;
use segments::types::{ColumnType, DataType, Value};
use std::sync::Arc;

/// What a running query knows about itself (Pinot's `QueryExecutionContext`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryIdentity {
    /// The broker's request id.
    pub request_id: i64,
    /// The client's `clientQueryId`, else the request id's text.
    pub correlation_id: String,
    /// The broker's instance id.
    pub broker_id: String,
    /// When the broker took the query, epoch milliseconds.
    pub start_ms: i64,
    /// The query's deadline (start + timeout), epoch milliseconds.
    pub deadline_ms: i64,
}

/// Where a call is evaluated: the query's engine, and the multi-stage worker if known.
#[derive(Clone, Copy)]
struct Site {
    multi_stage: bool,
    /// `(stage, worker)` on a multi-stage worker; `None` on the broker.
    worker: Option<(usize, usize)>,
}

impl QueryIdentity {
    /// The identity of request `request_id` starting now with `timeout_ms` to run: the
    /// correlation id is the client's, else the request id's text.
    pub fn starting_now(
        request_id: &str,
        client_id: Option<&str>,
        broker_id: String,
        timeout_ms: u64,
    ) -> QueryIdentity {
        let start_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        QueryIdentity {
            request_id: request_id.parse().unwrap_or_default(),
            correlation_id: client_id.unwrap_or(request_id).to_string(),
            broker_id,
            start_ms,
            deadline_ms: start_ms.saturating_add(i64::try_from(timeout_ms).unwrap_or(i64::MAX)),
        }
    }

    /// The value of `f` evaluated at `site`; `None` when only a worker knows it.
    fn value(&self, f: Internal, site: Site, literal_argument: bool) -> Option<Value> {
        let on_worker = |pick: fn((usize, usize)) -> usize| {
            if literal_argument || !site.multi_stage {
                Some(Value::Int(-1))
            } else {
                site.worker.map(|w| Value::Int(pick(w) as i32))
            }
        };
        Some(match f {
            Internal::RequestId => Value::Long(self.request_id),
            Internal::CorrelationId => Value::String(self.correlation_id.clone()),
            Internal::BrokerId => Value::String(self.broker_id.clone()),
            Internal::StartTime => Value::Long(self.start_ms),
            Internal::EndTime => Value::Long(self.deadline_ms),
            Internal::QueryEngine => {
                Value::String(if site.multi_stage { "MSE" } else { "SSE" }.into())
            }
            Internal::StageId => return on_worker(|(stage, _)| stage),
            Internal::WorkerId => return on_worker(|(_, worker)| worker),
        })
    }
}

impl QueryPlan {
    /// Replaces the internal function calls of the plan with their values as the broker knows
    /// them (see the module docs).
    pub fn bind_identity(&mut self, identity: &QueryIdentity) {
        match self {
            QueryPlan::Literal(plan) => plan.bind_identity(identity),
            QueryPlan::SingleStage(plan) => {
                let site = Site {
                    multi_stage: false,
                    worker: None,
                };
                let bind = &mut |e: &mut Expr| {
                    bind_expr(e, identity, site);
                };
                server_exprs(Arc::make_mut(&mut plan.server), bind);
                reduce_exprs(&mut plan.reduce, bind);
            }
            QueryPlan::MultiStage(plan) => {
                let site = Site {
                    multi_stage: true,
                    worker: None,
                };
                let mut left = false;
                for stage in &mut plan.stages {
                    rel_exprs(&mut stage.root, &mut |e| {
                        left |= bind_expr(e, identity, site)
                    });
                }
                plan.worker_identity = left;
            }
        }
    }
}

impl super::query_plan::LiteralPlan {
    /// Evaluates the columns that read the identity, and names those without an alias by their
    /// value, as every other constant column is named.
    fn bind_identity(&mut self, identity: &QueryIdentity) {
        let site = Site {
            multi_stage: false,
            worker: None,
        };
        for pending in std::mem::take(&mut self.identity_columns) {
            let mut expr = pending.expr;
            bind_expr(&mut expr, identity, site);
            let value = super::eval::eval(&expr, &super::eval::NoRow).unwrap_or(Value::Null);
            if let Some((name, _, v)) = self.columns.get_mut(pending.column) {
                if !pending.aliased {
                    *name = value.to_string();
                }
                *v = value;
            }
        }
    }
}

/// Binds a multi-stage worker's stage and worker ids into the stage it runs: the per-row
/// `stageId(col)` and `workerId(col)` calls the broker left. `None` when the plan has none
/// (nothing is copied).
pub fn bind_worker(plan: &MultiStagePlan, stage: usize, worker: usize) -> Option<RelNode> {
    if !plan.worker_identity {
        return None;
    }
    let mut root = plan.stages.get(stage)?.root.clone();
    let site = Site {
        multi_stage: true,
        worker: Some((stage, worker)),
    };
    // The broker bound every other call: the worker's ids are all these need.
    let identity = QueryIdentity {
        request_id: 0,
        correlation_id: String::new(),
        broker_id: String::new(),
        start_ms: 0,
        deadline_ms: 0,
    };
    rel_exprs(&mut root, &mut |e| {
        bind_expr(e, &identity, site);
    });
    Some(root)
}

/// Whether `e` calls an internal function anywhere.
pub fn reads_identity(e: &Expr) -> bool {
    let mut any = false;
    e.visit(&mut |n| any |= internal_call(n).is_some());
    any
}

/// The internal function a node calls, and its argument.
fn internal_call(e: &Expr) -> Option<(Internal, &Expr)> {
    match e {
        Expr::Call { name, args, .. } if args.len() == 1 => {
            Internal::of(name).map(|f| (f, &args[0]))
        }
        _ => None,
    }
}

/// Replaces each internal call under `e` whose value `site` knows; true when a call is left
/// for a worker.
fn bind_expr(e: &mut Expr, identity: &QueryIdentity, site: Site) -> bool {
    let mut left = false;
    e.rewrite(&mut |node| {
        let Some((f, arg)) = internal_call(node) else {
            return;
        };
        let return_type = node.column_type();
        let literal = match arg {
            Expr::Literal { value, .. } => Some(value.is_null()),
            _ => None,
        };
        let Some(value) = identity.value(f, site, literal.is_some()) else {
            left = true;
            return;
        };
        let data_type = return_type.data_type;
        *node = match literal {
            Some(true) => null_of(data_type),
            Some(false) => Expr::Literal { value, data_type },
            None => Expr::Case {
                branches: vec![(
                    Expr::IsNull {
                        expr: Box::new(arg.clone()),
                        negated: false,
                    },
                    null_of(data_type),
                )],
                else_result: Box::new(Expr::Literal { value, data_type }),
                return_type: ColumnType::sv(data_type),
            },
        };
    });
    left
}

fn null_of(data_type: DataType) -> Expr {
    Expr::Literal {
        value: Value::Null,
        data_type,
    }
}

/// Applies `f` to every expression of a v1 server plan.
fn server_exprs(plan: &mut ServerQueryPlan, f: &mut dyn FnMut(&mut Expr)) {
    if let Some(filter) = &mut plan.filter {
        filter_exprs(filter, f);
    }
    match &mut plan.kind {
        ServerQueryKind::Selection { exprs, .. } | ServerQueryKind::Distinct { exprs, .. } => {
            exprs.iter_mut().for_each(&mut *f)
        }
        ServerQueryKind::Aggregation { aggregates } => {
            aggregates.iter_mut().for_each(|a| aggregate_exprs(a, f))
        }
        ServerQueryKind::GroupBy { keys, aggregates } => {
            keys.iter_mut().for_each(&mut *f);
            aggregates.iter_mut().for_each(|a| aggregate_exprs(a, f));
        }
    }
}

fn reduce_exprs(plan: &mut BrokerReducePlan, f: &mut dyn FnMut(&mut Expr)) {
    plan.columns.iter_mut().for_each(|c| f(&mut c.expr));
    plan.having.iter_mut().for_each(&mut *f);
    plan.order_by.iter_mut().for_each(|s| f(&mut s.expr));
}

fn filter_exprs(filter: &mut FilterExpr, f: &mut dyn FnMut(&mut Expr)) {
    match filter {
        FilterExpr::And(parts) | FilterExpr::Or(parts) => {
            parts.iter_mut().for_each(|p| filter_exprs(p, f))
        }
        FilterExpr::Not(inner) => filter_exprs(inner, f),
        FilterExpr::Predicate(p) => f(&mut p.lhs),
        FilterExpr::Expr(e) => f(e),
        FilterExpr::Constant(_) => {}
    }
}

fn aggregate_exprs(call: &mut AggregateCall, f: &mut dyn FnMut(&mut Expr)) {
    call.args_mut().for_each(&mut *f);
    if let Some(filter) = &mut call.filter {
        filter_exprs(filter, f);
    }
}

/// Applies `f` to every expression of a relational tree (leaf plans included).
fn rel_exprs(node: &mut RelNode, f: &mut dyn FnMut(&mut Expr)) {
    match node {
        RelNode::Leaf { plan, .. } => server_exprs(plan, f),
        RelNode::Project { exprs, .. } => exprs.iter_mut().for_each(&mut *f),
        RelNode::Filter { condition, .. } => f(condition),
        RelNode::Aggregate { aggregates, .. } => {
            aggregates.iter_mut().for_each(|a| aggregate_exprs(a, f))
        }
        RelNode::Join { condition, .. } => condition.iter_mut().for_each(&mut *f),
        RelNode::Window { calls, .. } => {
            for call in calls {
                call.arg.iter_mut().for_each(&mut *f);
                if let WindowFunction::Aggregate(a) = &mut call.function {
                    aggregate_exprs(a, f);
                }
            }
        }
        RelNode::Receive { .. }
        | RelNode::Exchange(_)
        | RelNode::Place(_)
        | RelNode::Sort { .. }
        | RelNode::SetOp { .. }
        | RelNode::Values { .. } => {}
    }
    for input in node.inputs_mut() {
        rel_exprs(input, f);
    }
}
