//! Cutting a planned tree into stages (Pinot's fragmenter): each [`Exchange`] becomes a stage
//! of its own, and the operator above it reads that stage's rows through a
//! [`RelNode::Receive`], placed as the exchange says.
//!
//! ```text
//!   JOIN ─┬─ EXCHANGE hash(0) ── LEAF f         Stage 0: JOIN(RECEIVE 1, RECEIVE 2)
//!         └─ EXCHANGE hash(0) ── LEAF g   ──►    Stage 1: LEAF f   (sends hash(0) to 0)
//!                                                Stage 2: LEAF g   (sends hash(0) to 0)
//! ```
//!
//! Stages are numbered in the order planning made their exchanges ([`Exchange::order`]), the
//! root 0; an exchange whose distribution nothing chose sends to one worker.

use super::rel::{Exchange, RelNode, StageId};
use super::rows_estimate::RowsEstimate;
use super::stage::{Distribution, Stage, StageKind};

/// The stages of the tree `root` (stage 0 runs it on the broker).
pub fn split(root: RelNode) -> Vec<Stage> {
    // Exchanges in the order the cut meets them (pre-order), then numbered by their order.
    let mut orders = Vec::new();
    exchange_orders(&root, &mut orders);
    let mut by_order: Vec<usize> = (0..orders.len()).collect();
    by_order.sort_by_key(|&met| orders[met]);
    let mut ids = vec![0; orders.len()];
    for (i, met) in by_order.into_iter().enumerate() {
        ids[met] = i + 1;
    }
    let mut cut = Cut {
        ids,
        met: 0,
        stages: vec![None; orders.len() + 1],
    };
    cut.stage(0, StageKind::Root, root, None);
    cut.stages.into_iter().flatten().collect()
}

fn exchange_orders(node: &RelNode, out: &mut Vec<(usize, usize)>) {
    if let RelNode::Exchange(x) = node {
        out.push(x.order);
    }
    for i in node.inputs() {
        exchange_orders(i, out);
    }
}

struct Cut {
    /// The stage id of each exchange, in the order the cut meets them.
    ids: Vec<StageId>,
    /// Exchanges met so far.
    met: usize,
    stages: Vec<Option<Stage>>,
}

impl Cut {
    /// Makes stage `id` run `root`, cutting the exchanges under it.
    fn stage(
        &mut self,
        id: StageId,
        kind: StageKind,
        mut root: RelNode,
        estimate: Option<RowsEstimate>,
    ) {
        let mut input_distribution = Vec::new();
        self.receive_exchanges(&mut root, &mut input_distribution);
        for (child, _) in &input_distribution {
            if let Some(Some(s)) = self.stages.get_mut(*child) {
                s.parent = Some(id);
            }
        }
        self.stages[id] = Some(Stage {
            id,
            kind,
            output_types: root.output_types(),
            root,
            parent: None,
            input_distribution,
            estimate,
        });
    }

    /// Replaces each exchange under `node` (down to the next ones) by a receive of its stage,
    /// listing the stages received from and how, in the order the operators read them.
    fn receive_exchanges(
        &mut self,
        node: &mut RelNode,
        received: &mut Vec<(StageId, Distribution)>,
    ) {
        if let RelNode::Exchange(_) = node {
            let RelNode::Exchange(x) = node.take() else {
                unreachable!("matched an exchange")
            };
            let Exchange {
                kind,
                input,
                distribution,
                estimate,
                ..
            } = *x;
            let id = self.ids[self.met];
            self.met += 1;
            let types = input.output_types();
            self.stage(id, kind, input, estimate);
            received.push((id, distribution.unwrap_or(Distribution::Singleton)));
            *node = RelNode::Receive { stage: id, types };
            return;
        }
        for i in node.inputs_mut() {
            self.receive_exchanges(i, received);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::multistage::rel::JoinKind;
    use segments::types::{ColumnType, DataType};

    fn values(width: usize) -> RelNode {
        RelNode::Values {
            rows: Vec::new(),
            types: vec![ColumnType::sv(DataType::Long); width],
        }
    }

    fn exchange(order: usize, input: RelNode, distribution: Option<Distribution>) -> RelNode {
        RelNode::Exchange(Box::new(Exchange {
            order: (order, 0),
            kind: StageKind::Intermediate { singleton: false },
            input,
            distribution,
            estimate: None,
        }))
    }

    #[test]
    fn each_exchange_becomes_a_stage_numbered_in_planning_order() {
        // A join whose right side was planned first (order 1) under a stage planned last.
        let join = RelNode::Join {
            left: Box::new(exchange(2, values(1), Some(Distribution::Hash(vec![0])))),
            right: Box::new(exchange(1, values(2), None)),
            kind: JoinKind::Inner,
            left_keys: vec![0],
            right_keys: vec![0],
            condition: None,
            asof: None,
            publish_keys: None,
            dynamic_broadcast: false,
        };
        let stages = split(exchange(7, join, Some(Distribution::Singleton)));
        let ids: Vec<StageId> = stages.iter().map(|s| s.id).collect();
        assert_eq!(ids, vec![0, 1, 2, 3]);
        // The root receives the join's stage (the last planned: 3), one worker.
        assert_eq!(
            stages[0].root,
            RelNode::Receive {
                stage: 3,
                types: vec![ColumnType::sv(DataType::Long); 3]
            }
        );
        assert_eq!(
            stages[0].input_distribution,
            vec![(3, Distribution::Singleton)]
        );
        // The join's stage reads its left from stage 2 hashed, its right from stage 1, whose
        // distribution nothing chose: one worker.
        let join_stage = &stages[3];
        assert_eq!(join_stage.parent, Some(0));
        assert_eq!(
            join_stage.input_distribution,
            vec![
                (2, Distribution::Hash(vec![0])),
                (1, Distribution::Singleton)
            ]
        );
        let RelNode::Join { left, right, .. } = &join_stage.root else {
            panic!("{:?}", join_stage.root)
        };
        assert!(matches!(**left, RelNode::Receive { stage: 2, .. }));
        assert!(matches!(**right, RelNode::Receive { stage: 1, .. }));
        assert_eq!(stages[1].parent, Some(3));
        assert_eq!(stages[2].parent, Some(3));
        assert_eq!(stages[1].root, values(2));
        assert_eq!(stages[1].output_types.len(), 2);
        // No stage the engine runs holds an exchange.
        fn has_exchange(n: &RelNode) -> bool {
            matches!(n, RelNode::Exchange(_)) || n.inputs().into_iter().any(has_exchange)
        }
        assert!(stages.iter().all(|s| !has_exchange(&s.root)));
    }
}
