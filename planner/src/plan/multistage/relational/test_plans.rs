//! Multi-stage plans of test queries over two tables, `f` and `g`, for tests of how the
//! relational binder places things.

use crate::plan::multistage::MultiStagePlan;
use crate::plan::multistage::bind::bind_multistage;
use crate::plan::multistage::rel::{JoinKind, RelNode, StageId};
use crate::plan::query_plan::{ExecutionOptions, ServerQueryKind};
use crate::plan::{MemoryCatalog, QueryPlan};
use crate::sql::parse_statement;
use segments::statistics::{ColumnStatistics, Statistics};
use segments::types::{DataType, Schema};

/// What a test reads of a join of the plan.
#[derive(Debug)]
pub struct JoinShape {
    pub kind: JoinKind,
    pub left_keys: Vec<usize>,
    pub right_keys: Vec<usize>,
    pub has_condition: bool,
    /// The filters of the leaves under the join, as text, in plan order.
    pub leaf_filters: Vec<String>,
}

/// Tables `f` and `g`, each with `columns` (`name TYPE`).
pub fn catalog_over(columns: &[&str]) -> MemoryCatalog {
    let fields: Vec<String> = columns
        .iter()
        .map(|c| {
            let (name, ty) = c.split_once(' ').expect("name TYPE");
            format!(r#"{{"name":"{name}","dataType":"{ty}"}}"#)
        })
        .collect();
    let mut catalog = MemoryCatalog::new();
    for t in ["f", "g"] {
        let schema = Schema::from_json(&format!(
            r#"{{"schemaName":"{t}","dimensionFieldSpecs":[{}]}}"#,
            fields.join(",")
        ))
        .expect("schema");
        catalog.add(t, schema);
    }
    catalog
}

/// The multi-stage plan of `sql` over tables `f` and `g`, each with `columns` (`name TYPE`).
fn plan_over(columns: &[&str], sql: &str) -> MultiStagePlan {
    let catalog = catalog_over(columns);
    let stmt = parse_statement(sql).expect("parses");
    let QueryPlan::MultiStage(plan) = bind_multistage(
        &stmt,
        &catalog,
        &ExecutionOptions::default(),
        Default::default(),
    )
    .expect("plans") else {
        panic!("not multi-stage: {sql}")
    };
    plan
}

/// Every join of the multi-stage plan of `sql`, in plan order.
pub fn joins(sql: &str) -> Vec<JoinShape> {
    let plan = plan_over(&["k LONG", "s STRING", "d DOUBLE"], sql);
    // Leaves sit in their own stages, under Receives.
    let leaf_filters = |n: &RelNode| {
        let mut out = Vec::new();
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            match n {
                RelNode::Receive { stage, .. } => stack.push(&plan.stages[*stage].root),
                RelNode::Leaf { plan, .. } => out.push(
                    plan.filter
                        .as_ref()
                        .map_or(String::new(), |f| f.to_string()),
                ),
                other => stack.extend(other.inputs()),
            }
        }
        out.reverse();
        out
    };
    let mut out = Vec::new();
    for s in &plan.stages {
        let mut stack = vec![&s.root];
        while let Some(n) = stack.pop() {
            if let RelNode::Join {
                kind,
                left_keys,
                right_keys,
                condition,
                ..
            } = n
            {
                out.push(JoinShape {
                    kind: *kind,
                    left_keys: left_keys.clone(),
                    right_keys: right_keys.clone(),
                    has_condition: condition.is_some(),
                    leaf_filters: leaf_filters(n),
                });
            }
            stack.extend(n.inputs());
        }
    }
    out
}

/// The columns each leaf of the multi-stage plan of `sql` projects, as `table: c1,c2`, in stage
/// order; tables `f` and `g` have columns `k` (LONG), `s`, `s2`, `c` (STRING) and `d` (DOUBLE).
pub fn leaf_columns(sql: &str) -> Vec<String> {
    let plan = plan_over(
        &["k LONG", "s STRING", "d DOUBLE", "s2 STRING", "c STRING"],
        sql,
    );
    let mut out = Vec::new();
    for s in &plan.stages {
        if let RelNode::Leaf { plan, .. } = &s.root
            && let ServerQueryKind::Selection { exprs, .. } = &plan.kind
        {
            let names: Vec<String> = exprs.iter().map(|e| e.to_string()).collect();
            out.push(format!("{}: {}", plan.table, names.join(",")));
        }
    }
    out
}

/// Each stage of the multi-stage plan of `sql` over `f` and `g` (columns `k` LONG, `s` STRING,
/// `d` DOUBLE) as its operators, inputs in parentheses: `AGGREGATE/Direct(JOIN(RECEIVE 1,
/// RECEIVE 2))`. Stage 0, the root, first.
pub fn stage_shapes(sql: &str) -> Vec<String> {
    fn shape(n: &RelNode) -> String {
        let name = match n {
            RelNode::Receive { stage, .. } => return format!("RECEIVE {stage}"),
            RelNode::Leaf { .. } => return "LEAF".to_string(),
            RelNode::Aggregate { mode, .. } => format!("AGGREGATE/{mode:?}"),
            RelNode::Join { kind, .. } => format!("JOIN/{kind:?}"),
            RelNode::Project { .. } => "PROJECT".to_string(),
            RelNode::Filter { .. } => "FILTER".to_string(),
            RelNode::Sort { .. } => "SORT".to_string(),
            other => format!("{:?}", std::mem::discriminant(other)),
        };
        let inputs: Vec<String> = n.inputs().into_iter().map(shape).collect();
        format!("{name}({})", inputs.join(", "))
    }
    let plan = plan_over(&["k LONG", "s STRING", "d DOUBLE"], sql);
    plan.stages.iter().map(|s| shape(&s.root)).collect()
}

/// Tables with statistics, for tests of what the planner decides by its estimates: `f` (1M
/// rows, 10K values of `s`), `g` (1K rows, 10 values of `s`) and `h` (10K rows, each `s` once:
/// a dimension of `f` by `s`), each with `k` (LONG, a key), `d` (DOUBLE, as many values as
/// rows), `s` (STRING) and `m` (multi-value STRING, 10 values).
pub fn statistics_catalog() -> MemoryCatalog {
    let mut c = MemoryCatalog::new();
    for (t, rows, distinct_s) in [
        ("f", 1_000_000, 10_000),
        ("g", 1_000, 10),
        ("h", 10_000, 10_000),
    ] {
        let schema = Schema::from_json(&format!(
            r#"{{"schemaName":"{t}","dimensionFieldSpecs":[{{"name":"k","dataType":"LONG"}},{{"name":"d","dataType":"DOUBLE"}},{{"name":"s","dataType":"STRING"}},{{"name":"m","dataType":"STRING","singleValueField":false}}]}}"#
        ))
        .expect("schema");
        c.add(t, schema);
        let col = |data_type, distinct| ColumnStatistics {
            data_type,
            distinct,
            min: None,
            max: None,
            sorted: false,
            has_nulls: false,
        };
        c.set_statistics(
            t,
            Statistics {
                rows,
                columns: [
                    ("k".to_string(), col(DataType::Long, rows)),
                    ("d".to_string(), col(DataType::Double, rows)),
                    ("s".to_string(), col(DataType::String, distinct_s)),
                    ("m".to_string(), col(DataType::String, 10)),
                ]
                .into(),
            },
        );
    }
    c
}

/// The stages `node` receives from, in the order its operators read them.
pub(crate) fn receives(node: &RelNode, out: &mut Vec<StageId>) {
    if let RelNode::Receive { stage, .. } = node {
        out.push(*stage);
    }
    for i in node.inputs() {
        receives(i, out);
    }
}
