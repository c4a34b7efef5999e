//! Multi-stage plans of test queries over two tables, `f` and `g`, each with columns `k` (LONG),
//! `s` (STRING) and `d` (DOUBLE), for tests of how the relational binder places things.

use crate::plan::multistage::bind::bind_multistage;
use crate::plan::multistage::rel::{JoinKind, RelNode};
use crate::plan::query_plan::ExecutionOptions;
use crate::plan::{MemoryCatalog, QueryPlan};
use crate::sql::parse_statement;
use segments::types::Schema;

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

/// Every join of the multi-stage plan of `sql`, in plan order.
pub fn joins(sql: &str) -> Vec<JoinShape> {
    let mut catalog = MemoryCatalog::new();
    for t in ["f", "g"] {
        let schema = Schema::from_json(&format!(
            r#"{{"schemaName":"{t}","dimensionFieldSpecs":[{{"name":"k","dataType":"LONG"}},
            {{"name":"s","dataType":"STRING"}},{{"name":"d","dataType":"DOUBLE"}}]}}"#
        ))
        .expect("schema");
        catalog.add(t, schema);
    }
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
