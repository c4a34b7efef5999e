//! Where a relation's rows are, and which exchanges an operator over them still needs.
//!
//! A join's stage receives both sides hashed on the join keys, and a two-phase aggregate's
//! final phase receives the partial states hashed on the group keys. Rows already placed that
//! way need no second exchange: every intermediate stage that is not a singleton runs on the
//! same workers (the same list, in the same order, see the broker's placement), and an
//! exchange sends a row to worker `hash(columns) % workers` with one hash for equal values of
//! any representation. So rows that a stage below hashed on column `c` are, in the stage
//! reading them, already where a hash on `c` would send them.
//!
//! ```text
//!   SELECT c_custkey, COUNT(o_orderkey) FROM customer LEFT JOIN orders ON c_custkey = o_custkey
//!   GROUP BY c_custkey
//!
//!   before:  AGGREGATE(final) ◄─hash(c_custkey)─ AGGREGATE(partial) ◄ JOIN ◄─hash─ customer, orders
//!   after:   AGGREGATE(direct) ◄ JOIN ◄─hash─ customer, orders        (one stage, one exchange less)
//! ```
//!
//! [`hash_partitionings`] derives, for the rows of a stage still being planned, the column
//! lists they are hash-partitioned on — Pinot's distribution trait, Calcite's
//! `RelDistribution` — through projections, filters, aggregates and joins (a join keeps the
//! placement of each side whose columns it outputs unchanged: the left of inner, left, semi
//! and anti joins, the right of inner and right joins). [`keyed_join`] and [`grouped_in_place`]
//! are the two decisions that read it.

use super::rel::{JoinKind, RelNode};
use super::stage::Distribution;
use crate::plan::expr::Expr;

/// At most this many alternative partitionings are followed (a column projected several
/// times multiplies them).
const MAX_ALTERNATIVES: usize = 8;

/// The column lists the rows of `node` are hash-partitioned on, each on its own: rows equal on
/// all of one list's columns are on one worker, as the exchanges under `node` placed them.
/// Empty when nothing is known (rows spread at random, a broadcast, a leaf's rows not yet
/// exchanged).
pub fn hash_partitionings(node: &RelNode) -> Vec<Vec<usize>> {
    match node {
        RelNode::Exchange(x) => match &x.distribution {
            Some(Distribution::Hash(keys)) if !keys.is_empty() => vec![keys.clone()],
            _ => Vec::new(),
        },
        RelNode::Filter { input, .. } | RelNode::Window { input, .. } => hash_partitionings(input),
        RelNode::Project { input, exprs } => {
            let mut out = Vec::new();
            for p in hash_partitionings(input) {
                // Each column wherever the projection passes it on.
                let mut lists: Vec<Vec<usize>> = vec![Vec::new()];
                for &c in &p {
                    let at: Vec<usize> = exprs
                        .iter()
                        .enumerate()
                        .filter(|(_, e)| matches!(e, Expr::Input(i) if i.index == c))
                        .map(|(pos, _)| pos)
                        .collect();
                    lists = lists
                        .iter()
                        .flat_map(|l| {
                            at.iter().map(move |&pos| {
                                let mut l = l.clone();
                                l.push(pos);
                                l
                            })
                        })
                        .take(MAX_ALTERNATIVES)
                        .collect();
                }
                out.extend(lists);
            }
            out.truncate(MAX_ALTERNATIVES);
            out
        }
        // The output starts with the group keys.
        RelNode::Aggregate {
            input, group_keys, ..
        } => hash_partitionings(input)
            .into_iter()
            .filter_map(|p| {
                p.iter()
                    .map(|c| group_keys.iter().position(|k| k == c))
                    .collect()
            })
            .collect(),
        RelNode::Join {
            left, right, kind, ..
        } => {
            let width = left.output_types().len();
            let mut out = Vec::new();
            if matches!(
                kind,
                JoinKind::Inner
                    | JoinKind::Left
                    | JoinKind::Semi
                    | JoinKind::Anti
                    | JoinKind::NotIn
            ) {
                out.extend(hash_partitionings(left));
            }
            if matches!(kind, JoinKind::Inner | JoinKind::Right) {
                out.extend(
                    hash_partitionings(right)
                        .into_iter()
                        .map(|p| p.into_iter().map(|c| c + width).collect()),
                );
            }
            out.truncate(MAX_ALTERNATIVES);
            out
        }
        _ => Vec::new(),
    }
}

/// The positions in `keys` of the columns of `partitioning`, when it uses join keys only.
fn key_positions(partitioning: &[usize], keys: &[usize]) -> Option<Vec<usize>> {
    partitioning
        .iter()
        .map(|c| keys.iter().position(|k| k == c))
        .collect()
}

/// The exchanges an equi-join on `left_keys = right_keys` needs, given the partitionings of its
/// sides when they are rows of stages being planned (`None`: keep that side where it is). Rows
/// meet their matches when both sides are hashed on corresponding key columns: a side already
/// hashed on some of its keys stays, and the other side is hashed on the matching ones.
pub fn keyed_join(
    left: &[Vec<usize>],
    right: &[Vec<usize>],
    left_keys: &[usize],
    right_keys: &[usize],
) -> (Option<Distribution>, Option<Distribution>) {
    let pick =
        |at: &[usize], keys: &[usize]| -> Vec<usize> { at.iter().map(|&j| keys[j]).collect() };
    let left_at: Vec<Vec<usize>> = left
        .iter()
        .filter_map(|p| key_positions(p, left_keys))
        .collect();
    let right_at: Vec<Vec<usize>> = right
        .iter()
        .filter_map(|p| key_positions(p, right_keys))
        .collect();
    if left_at.iter().any(|at| right_at.contains(at)) {
        return (None, None);
    }
    if let Some(at) = left_at.first() {
        return (None, Some(Distribution::Hash(pick(at, right_keys))));
    }
    if let Some(at) = right_at.first() {
        return (Some(Distribution::Hash(pick(at, left_keys))), None);
    }
    (
        Some(Distribution::Hash(left_keys.to_vec())),
        Some(Distribution::Hash(right_keys.to_vec())),
    )
}

/// Whether rows partitioned as `partitionings` can be grouped on `keys` where they are: all the
/// columns of one partitioning are group keys (so each group's rows are on one worker).
pub fn grouped_in_place(partitionings: &[Vec<usize>], keys: &[usize]) -> bool {
    partitionings
        .iter()
        .any(|p| p.iter().all(|c| keys.contains(c)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::multistage::rel::Exchange;
    use crate::plan::multistage::relation::input;
    use crate::plan::multistage::stage::StageKind;
    use segments::types::{ColumnType, DataType};

    /// Rows of `width` columns a stage below sends as `distribution` places them.
    fn receive(distribution: Distribution, width: usize) -> RelNode {
        RelNode::Exchange(Box::new(Exchange {
            order: (1, 0),
            kind: StageKind::Intermediate { singleton: false },
            input: RelNode::Values {
                rows: Vec::new(),
                types: vec![ColumnType::sv(DataType::Long); width],
            },
            distribution: Some(distribution),
            estimate: None,
        }))
    }

    fn long(i: usize) -> Expr {
        input(i, ColumnType::sv(DataType::Long))
    }

    #[test]
    fn partitionings_follow_columns_through_projections_joins_and_aggregates() {
        // A projection that repeats the column names both places; one that drops it, none.
        let p = RelNode::Project {
            input: Box::new(receive(Distribution::Hash(vec![1]), 3)),
            exprs: vec![long(1), long(0), long(1)],
        };
        assert_eq!(hash_partitionings(&p), vec![vec![0], vec![2]]);
        let dropped = RelNode::Project {
            input: Box::new(receive(Distribution::Hash(vec![1]), 3)),
            exprs: vec![long(0), long(2)],
        };
        assert!(hash_partitionings(&dropped).is_empty());
        assert!(hash_partitionings(&receive(Distribution::Random, 2)).is_empty());
        // An inner join keeps both sides' placements, the right's after the left's columns.
        let join = |kind| RelNode::Join {
            left: Box::new(receive(Distribution::Hash(vec![1]), 3)),
            right: Box::new(receive(Distribution::Hash(vec![0]), 2)),
            kind,
            left_keys: vec![1],
            right_keys: vec![0],
            condition: None,
            asof: None,
            publish_keys: None,
            dynamic_broadcast: false,
        };
        assert_eq!(
            hash_partitionings(&join(JoinKind::Inner)),
            vec![vec![1], vec![3]]
        );
        // Outer joins pad the other side with NULLs wherever a row found no match.
        assert_eq!(hash_partitionings(&join(JoinKind::Left)), vec![vec![1]]);
        assert_eq!(hash_partitionings(&join(JoinKind::Right)), vec![vec![3]]);
        assert!(hash_partitionings(&join(JoinKind::Full)).is_empty());
        // An aggregate's keys come first; grouped on a column of the partitioning, in place.
        let agg = |keys: Vec<usize>| RelNode::Aggregate {
            input: Box::new(join(JoinKind::Inner)),
            group_keys: keys,
            aggregates: Vec::new(),
            mode: crate::plan::multistage::AggMode::Direct,
            output_types: Vec::new(),
            groups_limit: usize::MAX,
        };
        assert_eq!(hash_partitionings(&agg(vec![4, 3])), vec![vec![1]]);
        assert!(hash_partitionings(&agg(vec![0, 4])).is_empty());
        assert!(grouped_in_place(&[vec![1]], &[4, 1]));
        assert!(!grouped_in_place(&[vec![1, 2]], &[1]));
        assert!(!grouped_in_place(&[], &[1]));
    }

    #[test]
    fn a_join_exchanges_only_the_sides_not_already_hashed_on_matching_keys() {
        let hash = |k: Vec<usize>| Some(Distribution::Hash(k));
        // Neither side placed: both hashed on all keys.
        assert_eq!(
            keyed_join(&[], &[], &[0, 1], &[2, 3]),
            (hash(vec![0, 1]), hash(vec![2, 3]))
        );
        // The left hashed on its second key: the right on its second key.
        assert_eq!(
            keyed_join(&[vec![1]], &[], &[0, 1], &[2, 3]),
            (None, hash(vec![3]))
        );
        // The right hashed on a non-key column: the left placed, the right exchanged.
        assert_eq!(
            keyed_join(&[vec![0]], &[vec![5]], &[0, 1], &[2, 3]),
            (None, hash(vec![2]))
        );
        assert_eq!(
            keyed_join(&[vec![7]], &[vec![3]], &[0, 1], &[2, 3]),
            (hash(vec![1]), None)
        );
        // Both already co-located.
        assert_eq!(
            keyed_join(&[vec![1]], &[vec![3]], &[0, 1], &[2, 3]),
            (None, None)
        );
        // Hashed on keys that do not correspond: the right follows the left.
        assert_eq!(
            keyed_join(&[vec![0]], &[vec![3]], &[0, 1], &[2, 3]),
            (None, hash(vec![2]))
        );
    }

    #[test]
    fn rows_hashed_by_a_join_are_joined_and_grouped_on_its_keys_in_its_stage() {
        use crate::plan::multistage::relational::test_plans::stage_shapes;
        // Grouped by either key of an inner join: one aggregate, in the join's stage.
        for key in ["f.k", "g.k"] {
            let sql = format!("SELECT {key}, COUNT(*) FROM f JOIN g ON f.k = g.k GROUP BY {key}");
            let stages = stage_shapes(&sql);
            assert_eq!(stages.len(), 4, "{sql}: {stages:?}");
            assert!(
                stages[3].starts_with("PROJECT(AGGREGATE/Direct(PROJECT(JOIN/Inner(RECEIVE"),
                "{sql}: {stages:?}"
            );
        }
        // By the key of a LEFT join's padded side, or by another column: two phases.
        for sql in [
            "SELECT g.k, COUNT(*) FROM f LEFT JOIN g ON f.k = g.k GROUP BY g.k",
            "SELECT f.s, COUNT(*) FROM f JOIN g ON f.k = g.k GROUP BY f.s",
        ] {
            let stages = stage_shapes(sql);
            assert_eq!(stages.len(), 5, "{sql}: {stages:?}");
            assert!(stages[3].contains("AGGREGATE/Partial"), "{sql}: {stages:?}");
            assert!(stages[4].contains("AGGREGATE/Final"), "{sql}: {stages:?}");
        }
        // A third table joined on the same key joins in the same stage; on another key, after
        // an exchange.
        let same = stage_shapes("SELECT f.d FROM f JOIN g ON f.k = g.k JOIN f f2 ON g.k = f2.k");
        assert_eq!(same.len(), 5, "{same:?}");
        assert_eq!(same[4].matches("JOIN/Inner").count(), 2, "{same:?}");
        let other = stage_shapes("SELECT f.d FROM f JOIN g ON f.k = g.k JOIN f f2 ON g.s = f2.s");
        assert_eq!(other.len(), 6, "{other:?}");
    }
}
