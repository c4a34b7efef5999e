//! The key sets of runtime key filters (see the planner's `multistage::key_filter`): a join
//! worker publishes the distinct keys of the side it evaluated first to every worker of the
//! leaf stage feeding its other side; each leaf worker unions what every join worker sent and
//! adds `column IN (keys)` to its v1 filter, so its indexes (a sorted column's doc ranges, an
//! inverted index's bitmaps) skip the rows the join would drop.
//!
//! On the wire a key set is an ordinary [`DataBlock`] of one column (the distinct keys), or —
//! when a side has more than [`MAX_KEYS`] distinct keys, where an `IN` list costs more than it
//! saves — a block of no columns and one row, meaning "every key".

use super::block::{Cells, Column, DataBlock};
use crate::block::integral_value;
use crate::key::Key;
use crate::morsels::{MIN_MORSEL_ROWS, map_morsels};
use planner::plan::expr::ColumnRef;
use planner::plan::multistage::KeyFilter;
use planner::plan::{ColumnType, Expr, FilterExpr, Predicate, PredicateOp, ServerQueryPlan};
use rayon::prelude::*;
use segments::types::Value;
use std::collections::HashSet;

/// Distinct keys a join publishes at most; past it, "every key".
pub const MAX_KEYS: usize = 1 << 20;

/// Widest span of integer keys collected in a bit set (8 MiB of bits).
const MAX_BITSET_SPAN: u64 = 1 << 26;

/// The key-set block for the distinct non-NULL values of `column`.
pub fn publish(column: &Column) -> DataBlock {
    match distinct(column) {
        Some(keys) => {
            let n = keys.len();
            DataBlock::new(vec![keys], n)
        }
        None => DataBlock::new(Vec::new(), 1),
    }
}

/// The distinct non-NULL values of `column`, or `None` past [`MAX_KEYS`].
fn distinct(column: &Column) -> Option<Column> {
    let present = |i: usize| !column.is_null(i);
    let cells = match (&column.cells, &column.nulls) {
        (Cells::I64(v), nulls) => Cells::I64(distinct_ints(v, nulls.as_deref())?),
        (Cells::Coded { ids, dict }, _) => {
            let mut seen = vec![false; dict.len()];
            let mut keys = Vec::new();
            for (i, &id) in ids.iter().enumerate() {
                if present(i) && !std::mem::replace(&mut seen[id as usize], true) {
                    keys.push(dict.get(id).clone());
                    if keys.len() > MAX_KEYS {
                        return None;
                    }
                }
            }
            Cells::Values(keys)
        }
        (Cells::Values(v), _) => {
            let mut seen = HashSet::new();
            let mut keys = Vec::new();
            for x in v {
                if !x.is_null() && seen.insert(Key(x.clone())) {
                    keys.push(x.clone());
                    if keys.len() > MAX_KEYS {
                        return None;
                    }
                }
            }
            Cells::Values(keys)
        }
        (Cells::F64(_) | Cells::States(_), _) => return None,
    };
    Some(Column {
        cells,
        data_type: column.data_type,
        nulls: None,
    })
}

/// Distinct integers of `values` (but the rows `nulls` flags) in ascending order: a bit set over
/// their span when it is narrow, else a hash set. The span and the bits are found a morsel per
/// pool thread (each morsel its own bit set, then OR-ed).
fn distinct_ints(values: &[i64], nulls: Option<&[bool]>) -> Option<Vec<i64>> {
    let present = |i: usize| nulls.is_none_or(|n| !n[i]);
    let spans = map_morsels(values.len(), |rows| {
        let (mut lo, mut hi, mut n) = (i64::MAX, i64::MIN, 0usize);
        for i in rows {
            if present(i) {
                lo = lo.min(values[i]);
                hi = hi.max(values[i]);
                n += 1;
            }
        }
        (lo, hi, n)
    });
    let (lo, hi, n) = spans.into_iter().fold((i64::MAX, i64::MIN, 0), |a, b| {
        (a.0.min(b.0), a.1.max(b.1), a.2 + b.2)
    });
    if n == 0 {
        return Some(Vec::new());
    }
    let span = hi.abs_diff(lo);
    if span < MAX_BITSET_SPAN {
        let words = (span as usize >> 6) + 1;
        let mut sets = map_morsels(values.len(), |rows| {
            let mut bits = vec![0u64; words];
            for i in rows {
                if present(i) {
                    let at = values[i].abs_diff(lo) as usize;
                    bits[at >> 6] |= 1 << (at & 63);
                }
            }
            bits
        });
        let mut bits = sets.swap_remove(0);
        for other in sets {
            for (w, o) in bits.iter_mut().zip(other) {
                *w |= o;
            }
        }
        let count: usize = bits.iter().map(|w| w.count_ones() as usize).sum();
        if count > MAX_KEYS {
            return None;
        }
        let mut out = Vec::with_capacity(count);
        for (w, &word) in bits.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let b = word.trailing_zeros() as i64;
                out.push(lo.wrapping_add(((w as i64) << 6) + b));
                word &= word - 1;
            }
        }
        return Some(out);
    }
    let mut seen = HashSet::new();
    for (i, v) in values.iter().enumerate() {
        if present(i) && seen.insert(*v) && seen.len() > MAX_KEYS {
            return None;
        }
    }
    let mut out: Vec<i64> = seen.into_iter().collect();
    out.sort_unstable();
    Some(out)
}

/// The union of the key sets every join worker sent, as values of the filtered column's type;
/// `None`: every key passes.
pub fn union(blocks: Vec<DataBlock>, filter: &KeyFilter) -> Option<Vec<Value>> {
    if blocks
        .iter()
        .any(|b| b.columns.is_empty() && b.num_rows > 0)
    {
        return None;
    }
    let several = blocks.len() > 1;
    let columns: Vec<Column> = blocks
        .into_iter()
        .filter_map(|b| b.columns.into_iter().next())
        .collect();
    // Integers: ascending (each worker's are; several workers' are merged), which the
    // dictionary lookup of the `IN` list walks in one pass.
    if columns.iter().all(|c| matches!(c.cells, Cells::I64(_))) {
        let mut ints: Vec<i64> = Vec::new();
        for c in columns {
            if let Cells::I64(v) = c.cells {
                ints.extend(v);
            }
        }
        if several {
            ints.sort_unstable();
            ints.dedup();
        }
        // As values for the `IN` list, a morsel per pool thread (a million keys at most).
        return Some(
            ints.par_iter()
                .with_min_len(MIN_MORSEL_ROWS)
                .map(|x| integral_value(*x, filter.data_type))
                .collect(),
        );
    }
    let mut keys = Vec::new();
    let mut seen: HashSet<Key> = HashSet::new();
    for c in columns {
        for i in 0..c.len() {
            let v = c.value(i);
            // One worker's keys are distinct already; several workers' may overlap.
            if !several || seen.insert(Key(v.clone())) {
                keys.push(v);
            }
        }
    }
    Some(keys)
}

/// `plan` with `filter.column IN (keys)` added to its filter (no key: nothing matches). The plan
/// is taken, not copied: a second key filter on the same leaf adds to the first's list without
/// cloning it.
pub fn restrict(
    mut plan: ServerQueryPlan,
    filter: &KeyFilter,
    keys: Vec<Value>,
) -> ServerQueryPlan {
    let added = if keys.is_empty() {
        FilterExpr::Constant(false)
    } else {
        FilterExpr::Predicate(Predicate {
            lhs: Expr::Column(ColumnRef {
                name: filter.column.clone(),
                column_type: ColumnType::sv(filter.data_type),
            }),
            op: PredicateOp::In(keys),
        })
    };
    plan.filter = Some(match plan.filter.take() {
        None => added,
        Some(FilterExpr::And(mut parts)) => {
            parts.push(added);
            FilterExpr::And(parts)
        }
        Some(other) => FilterExpr::And(vec![other, added]),
    });
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::DataType;

    fn ints(v: Vec<i64>) -> Column {
        Column {
            cells: Cells::I64(v),
            data_type: DataType::Long,
            nulls: None,
        }
    }

    fn filter() -> KeyFilter {
        KeyFilter {
            from_stage: 1,
            column: "k".into(),
            data_type: DataType::Long,
        }
    }

    #[test]
    fn distinct_integers_narrow_and_wide() {
        let narrow = publish(&ints(vec![5, 3, 5, -2, 3]));
        assert_eq!(narrow.num_rows, 3);
        assert_eq!(narrow.columns[0].cells, Cells::I64(vec![-2, 3, 5]));
        let wide = publish(&ints(vec![i64::MAX, i64::MIN, 0, i64::MAX]));
        assert_eq!(
            wide.columns[0].cells,
            Cells::I64(vec![i64::MIN, 0, i64::MAX])
        );
        let mut with_null = ints(vec![1, 2, 2]);
        with_null.nulls = Some(vec![false, true, false]);
        assert_eq!(publish(&with_null).columns[0].cells, Cells::I64(vec![1, 2]));
    }

    /// Found a morsel per thread on a pool of three (past several morsels, with NULLs), the
    /// keys are those of one pass: the narrow span's bit sets OR-ed, the wide one hashed.
    #[test]
    fn distinct_integers_in_morsels() {
        let rows = crate::morsels::MIN_MORSEL_ROWS * 3 + 5;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        for scale in [1i64, 1 << 40] {
            let values: Vec<i64> = (0..rows as i64)
                .map(|i| (i * 7919 % 4099) * scale)
                .collect();
            let nulls: Vec<bool> = (0..rows).map(|i| i % 5 == 0).collect();
            let want: std::collections::BTreeSet<i64> = values
                .iter()
                .zip(&nulls)
                .filter(|(_, n)| !**n)
                .map(|(v, _)| *v)
                .collect();
            let column = Column {
                cells: Cells::I64(values),
                data_type: DataType::Long,
                nulls: Some(nulls),
            };
            let got = pool.install(|| publish(&column));
            assert_eq!(
                got.columns[0].cells,
                Cells::I64(want.into_iter().collect()),
                "scale {scale}"
            );
        }
    }

    /// Two key filters on one leaf: each adds its `IN` list to the plan's filter (the second to
    /// the first's conjunction), no keys match nothing.
    #[test]
    fn restrictions_add_up() {
        let plan = ServerQueryPlan {
            table: "t".into(),
            filter: None,
            kind: planner::plan::ServerQueryKind::Aggregation {
                aggregates: Vec::new(),
            },
            options: Default::default(),
            explain: false,
            layout: Default::default(),
        };
        let column = |name: &str| {
            Expr::Column(ColumnRef {
                name: name.into(),
                column_type: ColumnType::sv(DataType::Long),
            })
        };
        let other = KeyFilter {
            column: "m".into(),
            ..filter()
        };
        let once = restrict(plan.clone(), &filter(), vec![Value::Long(1)]);
        let twice = restrict(once.clone(), &other, vec![Value::Long(2), Value::Long(3)]);
        let in_list = |c: &str, keys: Vec<Value>| {
            FilterExpr::Predicate(Predicate {
                lhs: column(c),
                op: PredicateOp::In(keys),
            })
        };
        assert_eq!(
            once.filter,
            Some(in_list(&filter().column, vec![Value::Long(1)]))
        );
        assert_eq!(
            twice.filter,
            Some(FilterExpr::And(vec![
                in_list(&filter().column, vec![Value::Long(1)]),
                in_list("m", vec![Value::Long(2), Value::Long(3)]),
            ]))
        );
        let thrice = restrict(twice, &filter(), Vec::new());
        assert!(matches!(
            thrice.filter,
            Some(FilterExpr::And(parts)) if parts.len() == 3 && parts[2] == FilterExpr::Constant(false)
        ));
        assert_eq!(
            restrict(plan, &filter(), Vec::new()).filter,
            Some(FilterExpr::Constant(false))
        );
    }

    #[test]
    fn too_many_keys_means_all() {
        let all = publish(&ints((0..=MAX_KEYS as i64).collect()));
        assert!(all.columns.is_empty());
        assert_eq!(union(vec![all, publish(&ints(vec![1]))], &filter()), None);
    }

    #[test]
    fn union_of_workers_and_restriction() {
        let keys = union(
            vec![publish(&ints(vec![2, 3])), publish(&ints(vec![1, 2]))],
            &filter(),
        )
        .unwrap();
        assert_eq!(keys, vec![Value::Long(1), Value::Long(2), Value::Long(3)]);
        let strings = Column::from_values(
            DataType::String,
            vec![
                Value::String("a".into()),
                Value::Null,
                Value::String("a".into()),
            ],
        );
        assert_eq!(publish(&strings).num_rows, 1);
        assert_eq!(union(Vec::new(), &filter()), Some(Vec::new()));
    }
}
