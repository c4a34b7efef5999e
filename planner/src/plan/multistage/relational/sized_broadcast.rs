//! Where a join broadcasts a side because it is small, instead of hashing both sides.
//!
//! By default a keyed join hashes each input on its keys, so each of the join's workers (one
//! per server hosting the query's tables) builds and probes the rows of its own keys; every row
//! of a side not already placed that way moves to its key's worker. A keyless join gathers both
//! sides on one worker. Broadcasting one side instead sends each of its rows to every worker
//! and leaves the other side where its leaf read it. The join's output then is not placed by
//! its keys, so an aggregate or join above on the same keys needs an exchange that hashing would
//! have spared; broadcasting is chosen only when it moves at most [`BROADCAST_SHARE`] of the rows
//! hashing would (broadcast side × workers against the rows of the sides hashing moves): a
//! dimension table, or a selective filter's few rows, against a fact table spread over several
//! servers (DataFusion's `CollectLeft` below its size threshold, Calcite's broadcast exchange
//! rule).
//!
//! Each worker then holds the whole broadcast side, so it must be at most
//! [`MAX_BROADCAST_ROWS`] by estimate, and it must be a side the join kind may broadcast, one
//! whose unmatched rows are not output ([`Side::may_broadcast`], as for a hinted side). On one
//! server every exchange stays in the process and nothing is saved, so the sides are hashed
//! there, as they are when a side's estimate or the servers are unknown. A block whose hints
//! choose a strategy or a side's distribution is planned as they say.

use super::super::estimate::plan_estimate;
use super::super::rel::Side;
use super::super::rel::{JoinKind, RelNode};
use super::super::stage::StageKind;
use super::Planner;

/// Most rows a side may be estimated to hold and be broadcast (DataFusion's threshold for
/// collecting a join's build side on every partition, 128 Ki rows).
pub const MAX_BROADCAST_ROWS: f64 = (128 * 1024) as f64;

/// The most a broadcast may move, as a share of what hashing the sides would move.
pub const BROADCAST_SHARE: f64 = 1.0 / 8.0;

impl Planner<'_> {
    /// The side of a join of `left` and `right` to broadcast by size, if any: `hashed` says
    /// which sides would move under the default placement (a side already hashed on the keys
    /// stays; a keyless join moves both).
    pub(super) fn sized_broadcast(
        &self,
        left: &RelNode,
        right: &RelNode,
        kind: JoinKind,
        hashed: (bool, bool),
    ) -> Option<Side> {
        let workers = self.servers_under(left).max(self.servers_under(right));
        if workers < 2 {
            return None;
        }
        let rows = |r: &RelNode| plan_estimate(r, &[]).map(|e| e.rows);
        let (l, r) = (rows(left)?, rows(right)?);
        let moved = |moves: bool, rows: f64| if moves { rows } else { 0.0 };
        let by_hash = moved(hashed.0, l) + moved(hashed.1, r);
        [(Side::Right, r), (Side::Left, l)]
            .into_iter()
            .filter(|&(side, rows)| side.may_broadcast(kind) && rows <= MAX_BROADCAST_ROWS)
            .map(|(side, rows)| (side, rows * workers as f64))
            .filter(|&(_, by_broadcast)| by_broadcast <= by_hash * BROADCAST_SHARE)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(side, _)| side)
    }

    /// The most servers any table read under `node` is spread over (0 when none is known).
    fn servers_under(&self, node: &RelNode) -> usize {
        match node {
            RelNode::Exchange(x) if let StageKind::Leaf { table } = &x.kind => {
                self.catalog.table(table).map_or(0, |t| t.servers)
            }
            _ => node
                .inputs()
                .into_iter()
                .map(|i| self.servers_under(i))
                .max()
                .unwrap_or(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_plans::statistics_catalog;
    use crate::plan::QueryPlan;
    use crate::plan::multistage::bind::bind_multistage;
    use crate::plan::multistage::rel::RelNode;
    use crate::plan::multistage::stage::Distribution;
    use crate::plan::query_plan::ExecutionOptions;
    use crate::sql::parse_statement;

    /// How the inputs of the first join of `sql` reach it — (table read, distribution) of its
    /// left then right input — with every table of `statistics_catalog` (`f` 1M rows, `g` 1K,
    /// `h` 10K) on `servers` servers.
    fn join_inputs(sql: &str, servers: usize) -> Vec<(String, Distribution)> {
        let mut catalog = statistics_catalog();
        for t in ["f", "g", "h"] {
            catalog.set_servers(t, servers);
        }
        let stmt = parse_statement(sql).unwrap();
        let QueryPlan::MultiStage(plan) = bind_multistage(
            &stmt,
            &catalog,
            &ExecutionOptions::default(),
            Default::default(),
        )
        .unwrap() else {
            panic!("not multi-stage: {sql}")
        };
        let table_of = |mut stage: usize| loop {
            match &plan.stages[stage].root {
                RelNode::Leaf { plan, .. } => return plan.table.clone(),
                other => {
                    let mut below = Vec::new();
                    super::super::test_plans::receives(other, &mut below);
                    stage = below[0];
                }
            }
        };
        for s in &plan.stages {
            let mut pending = vec![&s.root];
            while let Some(n) = pending.pop() {
                if let RelNode::Join { left, right, .. } = n {
                    return [left, right]
                        .into_iter()
                        .map(|side| {
                            let RelNode::Receive { stage, .. } = &**side else {
                                panic!("a join input that is not received: {side:?}")
                            };
                            let (_, d) = s
                                .input_distribution
                                .iter()
                                .find(|(from, _)| from == stage)
                                .expect("an exchange");
                            (table_of(*stage), d.clone())
                        })
                        .collect();
                }
                pending.extend(n.inputs());
            }
        }
        panic!("no join in {sql}")
    }

    fn sides(a: (&str, Distribution), b: (&str, Distribution)) -> Vec<(String, Distribution)> {
        vec![(a.0.to_string(), a.1), (b.0.to_string(), b.1)]
    }

    #[test]
    fn a_small_side_is_broadcast_over_several_servers() {
        use Distribution::{Broadcast, Hash, Random};
        let inner = "SELECT f.d, g.d FROM f JOIN g ON f.k = g.k";
        assert_eq!(
            join_inputs(inner, 2),
            sides(("f", Random), ("g", Broadcast))
        );
        // The small side is broadcast on the left too, where the join kind allows it.
        assert_eq!(
            join_inputs("SELECT f.d FROM g RIGHT JOIN f ON f.k = g.k", 2),
            sides(("g", Broadcast), ("f", Random))
        );
        assert_eq!(
            join_inputs("SELECT f.d FROM f LEFT JOIN g ON f.k = g.k", 2),
            sides(("f", Random), ("g", Broadcast))
        );
        // A LEFT join outputs its left side's unmatched rows: that side is never broadcast,
        // and the right one is too large to be.
        assert_eq!(
            join_inputs("SELECT f.d FROM g LEFT JOIN f ON f.k = g.k", 2),
            sides(("g", Hash(vec![0])), ("f", Hash(vec![0])))
        );
        // On one server, or with the servers unknown, nothing is saved: both sides hashed.
        for servers in [0, 1] {
            assert_eq!(
                join_inputs(inner, servers),
                sides(("f", Hash(vec![0])), ("g", Hash(vec![0])))
            );
        }
    }

    #[test]
    fn broadcasting_pays_only_while_it_moves_fewer_rows() {
        use Distribution::{Broadcast, Hash, Random};
        let sql = "SELECT f.d, h.d FROM f JOIN h ON f.k = h.k";
        // 10K rows to each of 10 servers move less than an eighth of hashing 1M and 10K; to
        // each of 20, more.
        assert_eq!(join_inputs(sql, 10), sides(("f", Random), ("h", Broadcast)));
        assert_eq!(
            join_inputs(sql, 20),
            sides(("f", Hash(vec![0])), ("h", Hash(vec![0])))
        );
    }

    #[test]
    fn hints_place_the_sides_themselves() {
        use Distribution::Hash;
        let hinted = "SELECT /*+ joinOptions(right_distribution_type='hash') */ f.d, g.d \
                      FROM f JOIN g ON f.k = g.k";
        assert_eq!(
            join_inputs(hinted, 2),
            sides(("f", Hash(vec![0])), ("g", Hash(vec![0])))
        );
    }
}
