//! The sort operator: a block's row indices ordered by the sort keys, then the rows gathered
//! once (`ORDER BY`, a top-k with `LIMIT`/`OFFSET`).
//!
//! Each key column is compared in its own representation ([`KeyColumn`]) rather than as
//! boxed values: integers and floating numbers as themselves, dictionary-coded text by the rank
//! of its code in the sorted dictionary (ranked once per sort), other cells by reference. The
//! order is the one [`compare_rows`](crate::sort::compare_rows) gives the same rows as values
//! (SQL comparison, NULLs placed by `NULLS FIRST/LAST`), ties in arrival order. A large sort
//! runs on the rayon pool.

use super::block::{Cells, Column, DataBlock};
use crate::code_book::CodeBook;
use crate::morsels::MIN_MORSEL_ROWS;
use crate::sort::{compare_key, directed, null_order};
use planner::plan::SortKey;
use planner::plan::eval::compare;
use rayon::prelude::*;
use segments::native::sql_cmp_f64;
use segments::types::Value;
use std::cmp::Ordering;

/// The rows of `block` ordered by `keys`, then `offset` skipped and `limit` kept.
pub fn sort(block: DataBlock, keys: &[SortKey], offset: usize, limit: Option<usize>) -> DataBlock {
    // A bare limit the rows fit in (the broker's response cap, usually) keeps the block.
    if keys.is_empty() && offset == 0 && limit.is_none_or(|l| l >= block.num_rows) {
        return block;
    }
    let mut order: Vec<u32> = (0..block.num_rows as u32).collect();
    if !keys.is_empty() {
        let columns: Vec<(KeyColumn<'_>, &SortKey)> = keys
            .iter()
            .map(|k| {
                (
                    KeyColumn::of(block.columns.get(k.column), block.num_rows),
                    k,
                )
            })
            .collect();
        // Ties in arrival order: the row index decides last, so the order is total and an
        // unstable sort or selection gives what a stable sort would.
        let cmp = |a: &u32, b: &u32| {
            columns
                .iter()
                .map(|(c, k)| c.compare(*a as usize, *b as usize, k))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
                .then(a.cmp(b))
        };
        match limit.map(|l| offset.saturating_add(l)) {
            // Top-k: the first `offset + limit` rows selected (linear), then only they sorted.
            Some(wanted) if wanted < order.len() => {
                if let Some(last) = wanted.checked_sub(1) {
                    order.select_nth_unstable_by(last, cmp);
                }
                order.truncate(wanted);
                sort_indices(&mut order, cmp);
            }
            _ => sort_indices(&mut order, cmp),
        }
    }
    let kept: Vec<u32> = order
        .into_iter()
        .skip(offset)
        .take(limit.unwrap_or(usize::MAX))
        .collect();
    match limit {
        // A top-k's rows are few of many: their text is read through books of their own.
        Some(_) => block.take_few(&kept),
        None => block.take(&kept),
    }
}

/// Sorts `order` by `cmp` (a total order), on the pool when it is long.
fn sort_indices(order: &mut [u32], cmp: impl Fn(&u32, &u32) -> Ordering + Sync) {
    if order.len() >= MIN_MORSEL_ROWS && rayon::current_num_threads() > 1 {
        order.par_sort_unstable_by(cmp);
    } else {
        order.sort_unstable_by(cmp);
    }
}

/// A sort key's column as it is compared.
enum KeyColumn<'b> {
    /// INT, LONG, BOOLEAN, TIMESTAMP.
    Ints(&'b [i64], Option<&'b [bool]>),
    /// FLOAT, DOUBLE.
    Floats(&'b [f64], Option<&'b [bool]>),
    /// Coded values: each row's code's rank among the dictionary's values (equal values share
    /// a rank).
    Ranks(Vec<u32>, Option<&'b [bool]>),
    /// Coded values with more codes than rows (ranking the book would cost more than the sort).
    Coded(&'b [u32], &'b CodeBook, Option<&'b [bool]>),
    /// Boxed values (NULL is `Value::Null`).
    Values(&'b [Value]),
    /// A key past the block's columns, or aggregation states: every row ties.
    Missing,
}

impl<'b> KeyColumn<'b> {
    fn of(column: Option<&'b Column>, rows: usize) -> KeyColumn<'b> {
        let Some(c) = column else {
            return KeyColumn::Missing;
        };
        let nulls = c.nulls.as_deref();
        match &c.cells {
            Cells::I64(v) => KeyColumn::Ints(v, nulls),
            Cells::F64(v) => KeyColumn::Floats(v, nulls),
            Cells::Coded { ids, dict } if dict.len() <= rows => {
                let mut codes: Vec<u32> = (0..dict.len() as u32).collect();
                codes.sort_unstable_by(|a, b| compare(dict.get(*a), dict.get(*b)));
                let mut rank_of = vec![0u32; dict.len()];
                let mut rank = 0;
                for (i, code) in codes.iter().enumerate() {
                    if i > 0 && compare(dict.get(codes[i - 1]), dict.get(*code)).is_ne() {
                        rank += 1;
                    }
                    rank_of[*code as usize] = rank;
                }
                KeyColumn::Ranks(ids.iter().map(|id| rank_of[*id as usize]).collect(), nulls)
            }
            Cells::Coded { ids, dict } => KeyColumn::Coded(ids, dict, nulls),
            Cells::Values(v) => KeyColumn::Values(v),
            Cells::States(_) => KeyColumn::Missing,
        }
    }

    /// Rows `a` and `b` in `key`'s order.
    fn compare(&self, a: usize, b: usize, key: &SortKey) -> Ordering {
        if let Some(o) = self
            .nulls()
            .and_then(|n| null_order(n[a], n[b], key.nulls_last))
        {
            return o;
        }
        let o = match self {
            KeyColumn::Ints(v, _) => v[a].cmp(&v[b]),
            KeyColumn::Floats(v, _) => sql_cmp_f64(v[a], v[b]),
            KeyColumn::Ranks(r, _) => r[a].cmp(&r[b]),
            KeyColumn::Coded(ids, dict, _) => compare(dict.get(ids[a]), dict.get(ids[b])),
            KeyColumn::Values(v) => return compare_key(&v[a], &v[b], key.asc, key.nulls_last),
            KeyColumn::Missing => Ordering::Equal,
        };
        directed(o, key.asc)
    }

    fn nulls(&self) -> Option<&[bool]> {
        match self {
            KeyColumn::Ints(_, n)
            | KeyColumn::Floats(_, n)
            | KeyColumn::Ranks(_, n)
            | KeyColumn::Coded(_, _, n) => *n,
            KeyColumn::Values(_) | KeyColumn::Missing => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort::compare_rows;
    use proptest::prelude::*;
    use segments::types::DataType;
    use std::sync::Arc;

    /// A coded text column over `book` (codes index it), NULL where `code` is `None`.
    fn coded(codes: &[Option<u32>], book: &[&str]) -> Column {
        Column {
            cells: Cells::Coded {
                ids: codes.iter().map(|c| c.unwrap_or(0)).collect(),
                dict: Arc::new(CodeBook::from_values(
                    book.iter().map(|s| Value::String(s.to_string())).collect(),
                )),
            },
            data_type: DataType::String,
            nulls: codes
                .iter()
                .any(Option::is_none)
                .then(|| codes.iter().map(Option::is_none).collect()),
        }
    }

    proptest! {
        /// Every kind of key column, in any direction and NULL placement, orders the rows as
        /// the rows of values compare; a top-k keeps rows `offset..offset + limit` of the full
        /// stable sort, ties in arrival order.
        #[test]
        fn typed_keys_order_rows_as_their_values_compare(
            cells in prop::collection::vec(
                (0i64..4, prop::option::of(0i64..3), prop::option::of(0usize..4), prop::option::of(0u32..4), 0usize..3),
                0..300,
            ),
            order in Just((0..6usize).collect::<Vec<_>>()).prop_shuffle(),
            directions in prop::collection::vec((any::<bool>(), any::<bool>()), 6),
            offset in 0usize..40, limit in prop::option::of(0usize..60),
            wide_book in any::<bool>(),
        ) {
            let floats = [-0.0, 0.0, 1.5, f64::NAN];
            // Two books, one smaller than the rows (ranked), one larger (compared as values);
            // "b" twice: equal values under two codes.
            let small = ["b", "a", "c", "b"];
            let wide: Vec<String> = (0..400).map(|i| format!("w{i:03}")).collect();
            let mut wide_book: Vec<&str> = if wide_book { wide.iter().map(String::as_str).collect() } else { Vec::new() };
            wide_book.splice(0..0, small);
            let texts = ["x", "", "yy"];
            let n = cells.len();
            let columns = vec![
                Column::from_values(DataType::Long, cells.iter().map(|c| Value::Long(c.0)).collect()),
                Column::from_values(DataType::Long, cells.iter().map(|c| c.1.map_or(Value::Null, Value::Long)).collect()),
                Column::from_values(DataType::Double, cells.iter().map(|c| c.2.map_or(Value::Null, |f| Value::Double(floats[f]))).collect()),
                coded(&cells.iter().map(|c| c.3).collect::<Vec<_>>(), &wide_book),
                Column::from_values(DataType::String, cells.iter().map(|c| Value::String(texts[c.4].into())).collect()),
                Column::from_values(DataType::Long, (0..n as i64).map(Value::Long).collect()),
            ];
            let block = DataBlock::new(columns, n);
            let keys: Vec<SortKey> = order[..5]
                .iter()
                .zip(&directions)
                .map(|(c, (asc, nulls_last))| SortKey { column: *c, asc: *asc, nulls_last: *nulls_last })
                .collect();
            let got = sort(block.clone(), &keys, offset, limit).rows();
            let mut want = block.rows();
            want.sort_by(|a, b| compare_rows(a, b, &keys));
            let want: Vec<Vec<Value>> = want.into_iter().skip(offset).take(limit.unwrap_or(usize::MAX)).collect();
            // NaN is not equal to itself: compare rows by their text.
            prop_assert_eq!(format!("{got:?}"), format!("{want:?}"));
        }
    }

    #[test]
    fn a_long_sort_on_the_pool_keeps_arrival_order_for_ties() {
        let n = MIN_MORSEL_ROWS * 3;
        let block = DataBlock::new(
            vec![
                Column::from_values(
                    DataType::Long,
                    (0..n as i64).map(|i| Value::Long(i % 7)).collect(),
                ),
                Column::from_values(DataType::Long, (0..n as i64).map(Value::Long).collect()),
            ],
            n,
        );
        let keys = [SortKey {
            column: 0,
            asc: false,
            nulls_last: true,
        }];
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let got = pool.install(|| sort(block.clone(), &keys, 0, None)).rows();
        let mut want = block.rows();
        want.sort_by(|a, b| compare_rows(a, b, &keys));
        assert_eq!(got, want);
    }
}
