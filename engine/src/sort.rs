//! Row ordering for `ORDER BY`, shared by the servers' top-k and the broker's final sort:
//! values compare with SQL semantics ([`planner::plan::eval::compare`]), NULLs go last for
//! `ASC` and first for `DESC` unless `NULLS FIRST/LAST` says otherwise, and ties keep their
//! input order (stable sorts), so results are deterministic.

use planner::plan::SortKey;
use planner::plan::eval::compare;
use segments::types::Value;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Where NULLs go when either side is NULL: last for `NULLS LAST`, else first, whatever the
/// direction; `None` when neither is.
pub fn null_order(a_null: bool, b_null: bool, nulls_last: bool) -> Option<Ordering> {
    let null_first = if nulls_last {
        Ordering::Greater
    } else {
        Ordering::Less
    };
    match (a_null, b_null) {
        (false, false) => None,
        (true, true) => Some(Ordering::Equal),
        (true, false) => Some(null_first),
        (false, true) => Some(null_first.reverse()),
    }
}

/// `o`, the order of two non-null keys ascending, in the key's direction.
pub fn directed(o: Ordering, asc: bool) -> Ordering {
    if asc { o } else { o.reverse() }
}

/// Compares two values for one sort key.
pub fn compare_key(a: &Value, b: &Value, asc: bool, nulls_last: bool) -> Ordering {
    null_order(a.is_null(), b.is_null(), nulls_last).unwrap_or_else(|| directed(compare(a, b), asc))
}

/// Compares two rows on the key columns.
pub fn compare_rows(a: &[Value], b: &[Value], keys: &[SortKey]) -> Ordering {
    for k in keys {
        let (Some(x), Some(y)) = (a.get(k.column), b.get(k.column)) else {
            continue;
        };
        let o = compare_key(x, y, k.asc, k.nulls_last);
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Keeps the first `limit` rows by `keys` (stable).
pub fn sort_and_truncate(rows: &mut Vec<Vec<Value>>, keys: &[SortKey], limit: usize) {
    rows.sort_by(|a, b| compare_rows(a, b, keys));
    rows.truncate(limit);
}

/// A row in a [`TopK`] heap: ordered by the sort keys, ties by arrival.
struct Entry<'k> {
    row: Vec<Value>,
    seq: u64,
    keys: &'k [SortKey],
}

impl PartialEq for Entry<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Entry<'_> {}

impl PartialOrd for Entry<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_rows(&self.row, &other.row, self.keys).then(self.seq.cmp(&other.seq))
    }
}

/// The first `limit` rows by `keys` of a stream of rows, kept in a bounded max-heap (the
/// worst kept row on top), so `ORDER BY … LIMIT k` costs `O(n log k)` time and `O(k)` memory.
/// Rows that tie keep their arrival order.
pub struct TopK<'k> {
    keys: &'k [SortKey],
    limit: usize,
    heap: BinaryHeap<Entry<'k>>,
    seq: u64,
}

impl<'k> TopK<'k> {
    /// An empty top-`limit` by `keys`.
    pub fn new(keys: &'k [SortKey], limit: usize) -> TopK<'k> {
        TopK {
            keys,
            limit,
            heap: BinaryHeap::with_capacity(limit.min(1 << 16)),
            seq: 0,
        }
    }

    /// Offers a row.
    pub fn push(&mut self, row: Vec<Value>) {
        if self.limit == 0 {
            return;
        }
        let entry = Entry {
            row,
            seq: self.seq,
            keys: self.keys,
        };
        self.seq += 1;
        if self.heap.len() < self.limit {
            self.heap.push(entry);
        } else if self.heap.peek().is_some_and(|worst| entry < *worst) {
            self.heap.pop();
            self.heap.push(entry);
        }
    }

    /// Whether a row would be kept if offered now (lets callers skip building rows that
    /// cannot make the cut). Ties with the worst kept row lose, as arrival order decides.
    pub fn would_accept(&self, row: &[Value]) -> bool {
        self.limit > 0
            && (self.heap.len() < self.limit
                || self.heap.peek().is_some_and(|worst| {
                    compare_rows(row, &worst.row, self.keys) == Ordering::Less
                }))
    }

    /// Number of rows kept.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no row is kept.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The kept rows, best first.
    pub fn into_sorted(self) -> Vec<Vec<Value>> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|e| e.row)
            .collect()
    }
}

/// Orders rows by all their columns ascending (a deterministic order where SQL defines none).
pub fn compare_all(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = compare_key(x, y, true, true);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(column: usize, asc: bool) -> SortKey {
        SortKey {
            column,
            asc,
            nulls_last: asc,
        }
    }

    #[test]
    fn orders_with_nulls_and_directions() {
        let mut rows = vec![
            vec![Value::Int(2), Value::String("b".into())],
            vec![Value::Null, Value::String("z".into())],
            vec![Value::Int(1), Value::String("c".into())],
            vec![Value::Int(2), Value::String("a".into())],
        ];
        sort_and_truncate(&mut rows, &[key(0, true), key(1, false)], 10);
        let firsts: Vec<Value> = rows.iter().map(|r| r[0].clone()).collect();
        assert_eq!(
            firsts,
            vec![Value::Int(1), Value::Int(2), Value::Int(2), Value::Null]
        );
        assert_eq!(rows[1][1], Value::String("b".into()));
        sort_and_truncate(&mut rows, &[key(0, false)], 2);
        assert_eq!(rows[0][0], Value::Null, "NULLs first for DESC");
        assert_eq!(rows.len(), 2);
        assert_eq!(
            compare_all(&[Value::Int(1)], &[Value::Int(1), Value::Int(0)]),
            Ordering::Less
        );
    }

    proptest::proptest! {
        #[test]
        fn top_k_equals_sort_then_truncate(values in proptest::collection::vec((0i32..20, 0i32..1000), 0..200), k in 0usize..30) {
            let keys = [key(0, false)];
            let rows: Vec<Vec<Value>> = values.iter().map(|(a, b)| vec![Value::Int(*a), Value::Int(*b)]).collect();
            let mut top = TopK::new(&keys, k);
            rows.iter().cloned().for_each(|r| top.push(r));
            let mut expected = rows;
            sort_and_truncate(&mut expected, &keys, k);
            proptest::prop_assert_eq!(top.into_sorted(), expected);
        }
    }
}
