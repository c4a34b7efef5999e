//! Runtime key filters: a join tells the leaf stage feeding one of its sides which keys can
//! match, before that leaf reads its segments.
//!
//! ```text
//!   stage 8: JOIN(publish_keys: source=left, key 0, to stage 3)
//!              ├─ RECEIVE(stage 7)  ← evaluated first: customer ⋈ orders, 227 k distinct o_orderkey
//!              └─ RECEIVE(stage 3)
//!   stage 3: LEAF(lineitem, key_filter: l_orderkey from stage 8)
//!              waits for the keys of every stage-8 worker, then scans with
//!              `l_orderkey IN (keys)` added to its v1 filter (sorted index: 910 k of 6 M rows)
//! ```
//!
//! The filter only drops rows the join would drop anyway: the filtered side is one whose
//! unmatched rows are not output (either side of an inner join, the right of a left join, the
//! left of a right join, either side of a semi join), its join key is a plain single-value
//! column of the leaf's table of the same type as the other side's key, and the leaf has no
//! row limit or order of its own. The keys travel through the mailboxes like rows (the join's
//! stage to the leaf stage, every join worker to every leaf worker), so the filter works the
//! same in one process and across servers. A join whose side has too many distinct keys
//! publishes "all" instead (see the engine's `key_set`), and the leaf scans unfiltered.
//!
//! The filtered side may also be rows derived from a leaf's in which the key stays the leaf's
//! column — projected, filtered, grouped by it (the inner side of a decorrelated scalar
//! subquery), or joined to other rows (TPC-H Q2's subquery joins partsupp to the suppliers of a
//! region): the keys then travel past the stages between the join and the leaf. A leaf may so
//! be filtered by several joins, one per stage, and scans with all their keys.
//!
//! Which side is filtered when both qualify: the left — of an inner join the larger estimated
//! side (the join order puts it there, see `relational::join_order`), of a semi join the outer
//! rows its subquery reduces. Whether a filter is worth its wait (the leaf scans only once the
//! other side is done) is read from the estimates ([`plan_estimate`]): not when the leaf reads
//! fewer rows than the other side, nor when that side's keys are estimated to cover nearly all of
//! the leaf column's values. The joins nearest the root decide first; each filter they place
//! narrows its leaf's estimate, which the joins below then weigh.

use super::estimate::plan_estimate;
use super::rel::{JoinKind, KeyFilter, PublishKeys, RelNode, StageId};
use super::stage::{Stage, StageKind};
use crate::plan::expr::Expr;
use crate::plan::query_plan::{ServerQueryKind, ServerQueryPlan};
use segments::types::DataType;

/// The share of the filtered column's values beyond which the other side's keys are not worth
/// waiting for: a filter that drops fewer than a fifth of the rows (the keys of an unfiltered
/// dimension table, each of which its fact rows have) costs its wait and its lookups.
const USEFUL_SHARE: f64 = 0.8;

/// Adds key filters to every join of `stages` that can use one, the joins nearer the root
/// first: a filter a join places narrows its leaf's estimate, which the joins below it (whose
/// inputs read that leaf) then weigh.
pub fn add_key_filters(stages: &mut [Stage]) {
    let depth = |mut id: StageId| {
        let mut d = 0;
        while let Some(p) = stages.get(id).and_then(|s| s.parent) {
            (id, d) = (p, d + 1);
            if d > stages.len() {
                break;
            }
        }
        d
    };
    let mut order: Vec<StageId> = (0..stages.len()).collect();
    order.sort_by_key(|id| depth(*id));
    let mut filters: Vec<(StageId, KeyFilter)> = Vec::new();
    for id in order {
        if !matches!(stages[id].kind, StageKind::Intermediate { .. }) {
            continue;
        }
        let mut root = stages[id].root.take();
        plan_joins(&mut root, id, stages, &mut filters);
        stages[id].root = root;
    }
    for (leaf, filter) in filters {
        if let Some(RelNode::Leaf { key_filters, .. }) = stages.get_mut(leaf).map(|s| &mut s.root) {
            key_filters.push(filter);
        }
    }
}

/// Decides the key filter of `node` when it is a join, then of the joins below it.
fn plan_joins(
    node: &mut RelNode,
    stage: StageId,
    stages: &mut [Stage],
    filters: &mut Vec<(StageId, KeyFilter)>,
) {
    plan_join(node, stage, stages, filters);
    for input in node.inputs_mut() {
        plan_joins(input, stage, stages, filters);
    }
}

fn plan_join(
    node: &mut RelNode,
    stage: StageId,
    stages: &mut [Stage],
    filters: &mut Vec<(StageId, KeyFilter)>,
) {
    if let RelNode::Join {
        left,
        right,
        kind,
        left_keys,
        right_keys,
        asof: None,
        publish_keys,
        dynamic_broadcast,
        ..
    } = node
    {
        let (left_ok, right_ok) = match kind {
            JoinKind::Inner | JoinKind::Semi => (true, true),
            JoinKind::Left => (false, true),
            JoinKind::Right => (true, false),
            // Right rows whose key no left row has cannot match (nor stop) any left row; NOT
            // IN needs them all (a NULL among them empties the answer).
            JoinKind::Anti => (false, true),
            JoinKind::Full | JoinKind::NotIn => (false, false),
        };
        let (lt, rt) = (left.output_types(), right.output_types());
        // A leaf takes one filter per publishing stage (its keys arrive from that stage).
        let claimed = |s: StageId| {
            filters
                .iter()
                .any(|(l, f)| *l == s && f.from_stage == stage)
        };
        let (el, er) = (plan_estimate(left, stages), plan_estimate(right, stages));
        // The first key pair whose filtered side reads a plain leaf column.
        let mut choice = None;
        for (&lk, &rk) in left_keys.iter().zip(right_keys.iter()) {
            let (Some(a), Some(b)) = (lt.get(lk), rt.get(rk)) else {
                continue;
            };
            if !a.single_value || a != b || !filterable(a.data_type) {
                continue;
            }
            let l = left_ok
                .then(|| target(left, lk, stages))
                .flatten()
                .filter(|t| !claimed(t.0));
            let r = right_ok
                .then(|| target(right, rk, stages))
                .flatten()
                .filter(|t| !claimed(t.0));
            // Both qualify: the side estimated larger is filtered by the smaller's keys; without
            // estimates the left, which the join order makes the larger side of an inner join
            // (and which is the outer rows a semi join's subquery reduces).
            let pick_left = match (&l, &r) {
                // `dynamic_broadcast`: the right side's keys filter the left leaf.
                (Some(_), _) if *dynamic_broadcast => true,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(_), Some(_)) => match (&el, &er) {
                    (Some(a), Some(b)) => a.rows >= b.rows,
                    _ => true,
                },
                (None, None) => continue,
            };
            // The filtered leaf, and the other side (the source of its keys) with its key.
            let (chosen, source, source_left, source_key) = if pick_left {
                (l, &er, false, rk)
            } else {
                (r, &el, true, lk)
            };
            // Not worth the wait (the filtered leaf's scan starts only once the other side is
            // done): a leaf that reads fewer rows than that side, or one whose key values that
            // side's keys are estimated to cover nearly all of.
            let scanned = chosen
                .as_ref()
                .and_then(|(leaf, _, _)| stages.get(*leaf)?.estimate.as_ref());
            let source_keys = source.as_ref().map(|e| (e.rows, e.distinct(source_key)));
            let narrowed = match (&chosen, scanned, source_keys) {
                (Some((_, _, leaf_key)), Some(scanned), Some((rows, keys))) => {
                    if !*dynamic_broadcast
                        && (scanned.rows < rows
                            || keys >= USEFUL_SHARE * scanned.distinct(*leaf_key))
                    {
                        continue;
                    }
                    Some(scanned.restricted(*leaf_key, keys))
                }
                _ => None,
            };
            choice = chosen.map(|t| (t, source_left, source_key, a.data_type, narrowed));
            break;
        }
        if let Some(((leaf, column, _), source_left, key, data_type, narrowed)) = choice {
            if let Some(estimate) = narrowed {
                stages[leaf].estimate = Some(estimate);
            }
            *publish_keys = Some(PublishKeys {
                source_left,
                key,
                to_stage: leaf,
            });
            filters.push((
                leaf,
                KeyFilter {
                    from_stage: stage,
                    column,
                    data_type,
                },
            ));
        }
    }
}

/// Key types a filter carries exactly.
fn filterable(t: DataType) -> bool {
    matches!(
        t,
        DataType::Int | DataType::Long | DataType::Timestamp | DataType::String
    )
}

/// The leaf stage whose rows become a join input's, the table column behind the input's
/// column `key`, and the leaf output column it is — when a key filter may restrict
/// it. The input is the leaf's rows received, or (the inner side of a decorrelated subquery,
/// TPC-H Q17 and Q20) rows derived from them in which `key` stays the leaf's column: projected
/// as they are, filtered, or a group key of an aggregate (a group whose key cannot match is
/// dropped whole, so dropping its rows before grouping changes no other group), in this stage
/// or through exchanges from the stages below.
fn target(input: &RelNode, key: usize, stages: &[Stage]) -> Option<(StageId, String, usize)> {
    match input {
        RelNode::Receive { stage, .. } => {
            let s = stages.get(*stage)?;
            match (&s.kind, &s.root) {
                (StageKind::Leaf { .. }, RelNode::Leaf { plan, .. }) => {
                    leaf_column(plan, key).map(|c| (*stage, c, key))
                }
                (StageKind::Intermediate { .. }, root) => target(root, key, stages),
                _ => None,
            }
        }
        RelNode::Project { input, exprs } => match exprs.get(key)? {
            Expr::Input(r) => target(input, r.index, stages),
            _ => None,
        },
        RelNode::Filter { input, .. } => target(input, key, stages),
        RelNode::Aggregate {
            input, group_keys, ..
        } => target(input, *group_keys.get(key)?, stages),
        // A column of one side of a join below: every row the join makes from a dropped row
        // of that side has the dropped key (or, the other side's row left unmatched, a NULL
        // key), which the filtering join would drop too.
        RelNode::Join { left, right, .. } => {
            let width = left.output_types().len();
            if key < width {
                target(left, key, stages)
            } else {
                target(right, key - width, stages)
            }
        }
        _ => None,
    }
}

/// The single-value table column a leaf's output column `key` is, when the leaf reads every
/// row it matches (no row limit or order of its own).
fn leaf_column(plan: &ServerQueryPlan, key: usize) -> Option<String> {
    let unlimited = |limit: usize| limit >= u32::MAX as usize;
    let expr = match &plan.kind {
        ServerQueryKind::Selection {
            exprs,
            order_by,
            limit,
        }
        | ServerQueryKind::Distinct {
            exprs,
            order_by,
            limit,
        } if order_by.is_empty() && unlimited(*limit) => exprs.get(key)?,
        ServerQueryKind::GroupBy { keys, .. } => keys.get(key)?,
        _ => return None,
    };
    let Expr::Column(c) = expr else {
        return None;
    };
    c.column_type.single_value.then(|| c.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::QueryPlan;
    use crate::plan::multistage::bind::bind_multistage;
    use crate::plan::multistage::relational::test_plans::statistics_catalog;
    use crate::plan::query_plan::ExecutionOptions;
    use crate::sql::parse_statement;

    /// (filtered leaf table, its column) of every key filter of every leaf.
    fn filters(sql: &str) -> Vec<(String, String)> {
        leaf_filters(sql)
            .into_iter()
            .flat_map(|(t, cs)| cs.into_iter().map(move |c| (t.clone(), c)))
            .collect()
    }

    /// Each leaf's table and the columns of its key filters.
    fn leaf_filters(sql: &str) -> Vec<(String, Vec<String>)> {
        let stmt = parse_statement(sql).unwrap();
        let plan = bind_multistage(
            &stmt,
            &statistics_catalog(),
            &ExecutionOptions::default(),
            Default::default(),
        )
        .unwrap();
        let QueryPlan::MultiStage(whole) = plan else {
            panic!("not multi-stage")
        };
        whole
            .stages
            .iter()
            .filter_map(|s| match &s.root {
                RelNode::Leaf { plan, key_filters } => {
                    let columns = key_filters.iter().map(|f| {
                        // The join that publishes sits in a stage above the leaf's.
                        assert!(whole.is_above(f.from_stage, s.id));
                        f.column.clone()
                    });
                    Some((plan.table.clone(), columns.collect()))
                }
                _ => None,
            })
            .collect()
    }

    fn one(t: &str, c: &str) -> Vec<(String, String)> {
        vec![(t.to_string(), c.to_string())]
    }

    #[test]
    fn filtered_sides_follow_the_join_kind() {
        // Both sides qualify: the side estimated larger is filtered by the smaller's keys —
        // f of 10^6 rows by g's 1,000, but f's 100 rows where `s = 'x'` filter g.
        assert_eq!(
            filters("SELECT * FROM f JOIN g ON f.k = g.k"),
            one("f", "k")
        );
        assert_eq!(
            filters("SELECT * FROM g JOIN f ON f.k = g.k"),
            one("f", "k")
        );
        assert_eq!(
            filters("SELECT * FROM f JOIN g ON f.k = g.k WHERE f.s = 'x'"),
            one("g", "k")
        );
        assert_eq!(
            filters("SELECT * FROM f JOIN g ON f.k = g.k WHERE g.s = 'x'"),
            one("f", "k")
        );
        // Outer joins filter only the side whose unmatched rows are dropped …
        assert_eq!(
            filters("SELECT * FROM g LEFT JOIN f ON f.k = g.k"),
            one("f", "k")
        );
        assert_eq!(
            filters("SELECT * FROM f RIGHT JOIN g ON f.k = g.k"),
            one("f", "k")
        );
        // … and only when it is the larger: a scan waiting for a larger side's keys is slower.
        assert!(filters("SELECT * FROM f LEFT JOIN g ON f.k = g.k WHERE g.s = 'x'").is_empty());
        assert!(filters("SELECT * FROM g RIGHT JOIN f ON f.k = g.k").is_empty());
        assert!(filters("SELECT * FROM f FULL JOIN g ON f.k = g.k").is_empty());
        // A semi join filters the outer table by the subquery's keys.
        assert_eq!(
            filters("SELECT COUNT(*) FROM f WHERE k IN (SELECT k FROM g WHERE s = 'x')"),
            one("f", "k")
        );
        assert!(filters("SELECT COUNT(*) FROM f WHERE k NOT IN (SELECT k FROM g)").is_empty());
        // … or the subquery by the outer table's keys when the subquery is the larger side
        // (TPC-H Q4: a quarter's orders, EXISTS over lineitem), NOT EXISTS too.
        assert_eq!(
            filters("SELECT COUNT(*) FROM g WHERE EXISTS (SELECT 1 FROM f WHERE f.k = g.k)"),
            one("f", "k")
        );
        assert_eq!(
            filters("SELECT COUNT(*) FROM g WHERE NOT EXISTS (SELECT 1 FROM f WHERE f.k = g.k)"),
            one("f", "k")
        );
        assert!(
            filters("SELECT COUNT(*) FROM f WHERE NOT EXISTS (SELECT 1 FROM g WHERE f.k = g.k)")
                .iter()
                .all(|(t, _)| t != "f")
        );
    }

    #[test]
    fn keys_that_cover_the_filtered_column_are_not_waited_for() {
        // Every f.s is among h's: its keys would drop nothing from f.
        let all = "SELECT COUNT(*) FROM f JOIN h ON f.s = h.s";
        assert!(filters(all).is_empty(), "{:?}", filters(all));
        // h filtered by its own conjunct: its few keys filter f.
        let few = "SELECT COUNT(*) FROM f JOIN h ON f.s = h.s WHERE h.k < 100";
        assert_eq!(filters(few), one("f", "s"));
    }

    #[test]
    fn a_filter_from_above_narrows_the_leaf_for_the_joins_below() {
        // TPC-H Q20's shape: g's few keys filter h (placed first, by the join nearer the root);
        // h so narrowed, its keys no longer cover f's values and filter f's scan too.
        let q = "SELECT COUNT(*) FROM h JOIN g ON h.k = g.k \
                 WHERE g.s = 'x' AND h.s IN (SELECT f.s FROM f WHERE f.d > 0)";
        let got = filters(q);
        assert!(got.contains(&("h".to_string(), "k".to_string())), "{got:?}");
        assert!(got.contains(&("f".to_string(), "s".to_string())), "{got:?}");
    }

    #[test]
    fn a_decorrelated_subquery_is_filtered_below_its_aggregate() {
        // TPC-H Q17's shape: the subquery's groups of f by k are joined to the outer rows by k,
        // so the few outer keys filter the subquery's scan of f before it groups.
        let q17 = "SELECT SUM(f.d) FROM f, g WHERE g.k = f.k AND g.s = 'x' \
                   AND f.d < (SELECT 0.2 * AVG(f2.d) FROM f f2 WHERE f2.k = g.k)";
        assert_eq!(
            filters(q17).iter().filter(|f| f.0 == "f").count(),
            2,
            "{:?}",
            filters(q17)
        );
        // A group key computed from the column is not the column: no filter through it.
        let computed = "SELECT COUNT(*) FROM g JOIN (SELECT k + 1 AS k1, COUNT(*) AS c FROM f \
                        GROUP BY k + 1) x ON x.k1 = g.k";
        assert!(filters(computed).iter().all(|(t, _)| t != "f"));
    }

    #[test]
    fn a_subquery_is_filtered_through_its_own_join() {
        // TPC-H Q2's shape: the subquery joins f to the few g rows (which filter f by s), then
        // groups by f.k; the outer rows' k then filter the same scan of f, through that join.
        // (The outer keys, placed first, leave f a thousand rows: the g rows filtering by s
        // are fewer, else their wait would cost more than they drop.)
        let q2 = "SELECT g.k FROM g, f WHERE g.k = f.k \
                  AND f.d = (SELECT MIN(f2.d) FROM f f2, g g2 \
                             WHERE f2.s = g2.s AND g2.s = 'y' AND f2.k = g.k)";
        let leaves = leaf_filters(q2);
        let both = ["s".to_string(), "k".to_string()];
        assert!(
            leaves
                .iter()
                .any(|(t, cs)| t == "f" && both.iter().all(|c| cs.contains(c))),
            "{leaves:?}"
        );
    }

    #[test]
    fn dynamic_broadcast_filters_the_left_leaf_when_not_worth_it() {
        // g (1,000 rows) on the left of f (10^6): its scan is not worth waiting for f's keys,
        // and f is filtered by g's — unless the hint asks for the left to be filtered.
        assert_eq!(
            filters("SELECT * FROM g JOIN f ON f.k = g.k"),
            one("f", "k")
        );
        assert_eq!(
            filters(
                "SELECT /*+ joinOptions(join_strategy='dynamic_broadcast') */ * \
                 FROM g JOIN f ON f.k = g.k"
            ),
            one("g", "k")
        );
        // It reaches the semi join of the block's IN (subquery).
        assert_ne!(
            filters("SELECT * FROM g WHERE k IN (SELECT k FROM f)"),
            one("g", "k")
        );
        assert_eq!(
            filters(
                "SELECT /*+ joinOptions(join_strategy='dynamic_broadcast') */ * \
                 FROM g WHERE k IN (SELECT k FROM f)"
            ),
            one("g", "k")
        );
    }

    #[test]
    fn only_plain_columns_of_one_type_without_a_leaf_limit() {
        // A computed key, a floating key and a limited subquery get no filter.
        assert!(filters("SELECT * FROM f JOIN g ON f.k + 1 = g.k + 1").is_empty());
        assert!(filters("SELECT * FROM f JOIN g ON f.d = g.d").is_empty());
        assert!(
            filters("SELECT * FROM f JOIN (SELECT k FROM g LIMIT 5) x ON f.k = x.k")
                .iter()
                .all(|(t, _)| t != "g")
        );
    }
}
