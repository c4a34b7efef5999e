//! ASOF join matching: each left row pairs with at most one right row — among the right rows
//! whose join keys equal its own, the one whose match column is closest to the left row's in
//! the direction the `MATCH_CONDITION` names (`l >= r`: the largest right value not above the
//! left one; `l < r`: the smallest right value above it; …). A NULL key or match value on
//! either side matches nothing.
//!
//! The right rows are grouped by key (one group without keys), each group's rows sorted by
//! their match value; a left row finds its group through a hash lookup on the groups' keys
//! and its match by binary search, so the work is `O((L + R) log R)`, never the pairs of a
//! key.

use super::block::{Column, DataBlock};
use super::hash_table::{Matches, equi_pairs, group_ids};
use crate::context::QueryContext;
use crate::error::EngineError;
use planner::plan::multistage::{AsofMatch, AsofOp};
use segments::types::Value;

/// The `(left, right)` row pairs of an ASOF join: at most one per left row, in left order.
pub fn closest_pairs(
    left: &DataBlock,
    right: &DataBlock,
    left_keys: &[usize],
    right_keys: &[usize],
    m: &AsofMatch,
    ctx: &QueryContext,
) -> Result<(Vec<u32>, Vec<u32>), EngineError> {
    let column = |b: &'_ DataBlock, c: usize| -> Result<Column, EngineError> {
        b.columns
            .get(c)
            .cloned()
            .ok_or_else(|| EngineError::execution(format!("no column {c} for ASOF JOIN")))
    };
    let (lv, rv) = (column(left, m.left)?, column(right, m.right)?);
    let lk: Vec<&Column> = left_keys
        .iter()
        .filter_map(|c| left.columns.get(*c))
        .collect();
    let rk: Vec<&Column> = right_keys
        .iter()
        .filter_map(|c| right.columns.get(*c))
        .collect();
    let usable = |keys: &[&Column], values: &Column, r: usize| {
        !values.is_null(r) && !keys.iter().any(|k| k.is_null(r))
    };

    // Right rows by key group, each group's rows in match-value order.
    let (groups, first) = if rk.is_empty() {
        (vec![0; right.num_rows], vec![0])
    } else {
        group_ids(&rk, right.num_rows)
    };
    let right_values: Vec<Value> = (0..right.num_rows).map(|r| rv.value(r)).collect();
    let mut order: Vec<u32> = (0..right.num_rows as u32)
        .filter(|&r| usable(&rk, &rv, r as usize))
        .collect();
    order.sort_by(|&a, &b| {
        groups[a as usize]
            .cmp(&groups[b as usize])
            .then_with(|| right_values[a as usize].total_cmp(&right_values[b as usize]))
    });
    ctx.check()?;
    // `starts[g]..starts[g + 1]`: group `g`'s rows in `order`.
    let mut starts = vec![0usize; first.len() + 1];
    for &r in &order {
        starts[groups[r as usize] as usize + 1] += 1;
    }
    for g in 0..first.len() {
        starts[g + 1] += starts[g];
    }

    // Each left row's group: the group whose first row has its keys.
    let mut group_of = vec![u32::MAX; left.num_rows];
    if rk.is_empty() {
        group_of.fill(0);
    } else {
        let reps: Vec<Column> = rk.iter().map(|c| c.take(&first)).collect();
        let reps: Vec<&Column> = reps.iter().collect();
        let (probe, build) = equi_pairs(
            &reps,
            first.len(),
            &lk,
            left.num_rows,
            usize::MAX,
            Matches::All,
            ctx,
        )?;
        for (p, g) in probe.into_iter().zip(build) {
            group_of[p as usize] = g;
        }
    }

    let (mut li, mut ri) = (Vec::new(), Vec::new());
    for (l, g) in group_of.iter().enumerate() {
        if l % 4096 == 0 {
            ctx.check()?;
        }
        if *g == u32::MAX || !usable(&lk, &lv, l) {
            continue;
        }
        let rows = &order[starts[*g as usize]..starts[*g as usize + 1]];
        let v = lv.value(l);
        // Rows before `below` compare below `v` (or not above it, for the inclusive ops).
        let cmp = |r: &u32| right_values[*r as usize].total_cmp(&v);
        let below = |inclusive: bool| {
            rows.partition_point(|r| cmp(r).is_lt() || (inclusive && cmp(r).is_eq()))
        };
        let hit = match m.op {
            AsofOp::Greater => below(false).checked_sub(1),
            AsofOp::GreaterOrEqual => below(true).checked_sub(1),
            AsofOp::Less => Some(below(true)).filter(|&i| i < rows.len()),
            AsofOp::LessOrEqual => Some(below(false)).filter(|&i| i < rows.len()),
        };
        if let Some(i) = hit {
            li.push(l as u32);
            ri.push(rows[i]);
        }
    }
    Ok((li, ri))
}

/// Whether `a` and `b` compare as `op` says (`a op b`); used by tests.
#[cfg(test)]
fn holds(op: AsofOp, a: &Value, b: &Value) -> bool {
    use std::cmp::Ordering;
    let o = a.total_cmp(b);
    match op {
        AsofOp::Greater => o == Ordering::Greater,
        AsofOp::GreaterOrEqual => o != Ordering::Less,
        AsofOp::Less => o == Ordering::Less,
        AsofOp::LessOrEqual => o != Ordering::Greater,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::QueryContext;
    use segments::types::DataType;

    fn block(rows: &[(&str, Option<i64>)]) -> DataBlock {
        let keys = rows.iter().map(|(k, _)| Value::String(k.to_string()));
        let values = rows.iter().map(|(_, v)| v.map_or(Value::Null, Value::Long));
        DataBlock::new(
            vec![
                Column::from_values(DataType::String, keys.collect()),
                Column::from_values(DataType::Long, values.collect()),
            ],
            rows.len(),
        )
    }

    fn pairs(op: AsofOp, keyed: bool) -> Vec<(u32, u32)> {
        let left = block(&[("a", Some(1)), ("a", Some(5)), ("b", Some(3)), ("c", None)]);
        let right = block(&[
            ("a", Some(0)),
            ("a", Some(2)),
            ("a", None),
            ("b", Some(2)),
            ("b", Some(3)),
            ("c", Some(5)),
        ]);
        let ctx = QueryContext::new(Default::default());
        let keys: &[usize] = if keyed { &[0] } else { &[] };
        let m = AsofMatch {
            left: 1,
            right: 1,
            op,
        };
        let (l, r) = closest_pairs(&left, &right, keys, keys, &m, &ctx).unwrap();
        l.into_iter().zip(r).collect()
    }

    #[test]
    fn each_left_row_takes_its_closest_right_row_by_key() {
        assert_eq!(pairs(AsofOp::Greater, true), vec![(0, 0), (1, 1), (2, 3)]);
        assert_eq!(
            pairs(AsofOp::GreaterOrEqual, true),
            vec![(0, 0), (1, 1), (2, 4)]
        );
        assert_eq!(pairs(AsofOp::Less, true), vec![(0, 1)]);
        assert_eq!(pairs(AsofOp::LessOrEqual, true), vec![(0, 1), (2, 4)]);
    }

    #[test]
    fn without_keys_every_right_row_is_a_candidate() {
        // Right values 0, 2, 2, 3, 5 (NULL left out): 1 < 2, 5 < none, 3 < 5.
        let found = pairs(AsofOp::Less, false);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].0, 0);
        assert!([1, 3].contains(&found[0].1));
        assert_eq!(found[1], (2, 5));
        // Every pair found satisfies its condition.
        let left = [1i64, 5, 3];
        let right = [0i64, 2, 0, 2, 3, 5];
        for op in [
            AsofOp::Greater,
            AsofOp::GreaterOrEqual,
            AsofOp::Less,
            AsofOp::LessOrEqual,
        ] {
            for (l, r) in pairs(op, false) {
                assert!(holds(
                    op,
                    &Value::Long(left[l as usize]),
                    &Value::Long(right[r as usize])
                ));
            }
        }
    }
}
