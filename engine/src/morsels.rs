//! A block's rows cut into morsels for the rayon pool: the operators of an intermediate stage
//! (a join's probe and gather, a computed column, an aggregate's calls) run one morsel per
//! pool thread, so a stage worker on an idle server uses every core. Below [`MIN_MORSEL_ROWS`]
//! rows, or with one pool thread, the work runs on the calling worker thread as one morsel.
//!
//! A stage worker blocks on its mailboxes on a thread of its own (never a pool thread); the
//! morsels it hands to the pool run there while it waits, as a leaf's segment parts do.

use rayon::prelude::*;
use std::ops::Range;

/// A morsel has at least this many rows: below it a task's start and the join of its output
/// cost more than a second thread saves.
pub const MIN_MORSEL_ROWS: usize = 1 << 13;

/// `0..rows` cut into at most one range per pool thread, each of at least
/// [`MIN_MORSEL_ROWS`] rows (one range when there are fewer), in order and covering it.
pub fn morsels(rows: usize) -> Vec<Range<usize>> {
    let n = rayon::current_num_threads()
        .min(rows / MIN_MORSEL_ROWS)
        .max(1);
    (0..n).map(|i| i * rows / n..(i + 1) * rows / n).collect()
}

/// `f` over the morsels of `0..rows`, in parallel when there are several; the outputs in
/// morsel order.
pub fn map_morsels<T: Send>(rows: usize, f: impl Fn(Range<usize>) -> T + Sync + Send) -> Vec<T> {
    let parts = morsels(rows);
    if parts.len() == 1 {
        return parts.into_iter().map(f).collect();
    }
    parts.into_par_iter().map(f).collect()
}

/// `f` over the morsels of `out` (each with the row it starts at), written in place, in
/// parallel when there are several; the outputs in morsel order.
pub fn fill_morsels<T: Send, R: Send>(
    out: &mut [T],
    f: impl Fn(usize, &mut [T]) -> R + Sync + Send,
) -> Vec<R> {
    let parts = morsels(out.len());
    if parts.len() == 1 {
        return vec![f(0, out)];
    }
    let mut slices = Vec::with_capacity(parts.len());
    let mut rest = out;
    for part in &parts {
        let (head, tail) = rest.split_at_mut(part.len());
        slices.push((part.start, head));
        rest = tail;
    }
    slices
        .into_par_iter()
        .map(|(start, s)| f(start, s))
        .collect()
}

/// `f` over each item, in parallel when `rows` (the work each item does) makes morsels worth
/// it and there are several items; the outputs in item order.
pub fn map_items<I: Send, T: Send>(
    items: Vec<I>,
    rows: usize,
    f: impl Fn(I) -> T + Sync + Send,
) -> Vec<T> {
    if items.len() < 2 || rows < MIN_MORSEL_ROWS || rayon::current_num_threads() < 2 {
        return items.into_iter().map(f).collect();
    }
    items.into_par_iter().map(f).collect()
}

/// `len` copies of `value`, written by the pool's threads when they are many: a long vector is
/// fresh memory, and whoever first writes it pays its page faults, which one thread would pay
/// alone (as it would a zeroing allocation's pass).
pub fn filled<T: Copy + Send + Sync>(len: usize, value: T) -> Vec<T> {
    if len < 2 * MIN_MORSEL_ROWS || rayon::current_num_threads() < 2 {
        return vec![value; len];
    }
    let mut out = Vec::with_capacity(len);
    (0..len)
        .into_par_iter()
        .with_min_len(MIN_MORSEL_ROWS)
        .map(|_| value)
        .collect_into_vec(&mut out);
    out
}

/// Drops `items`, a morsel per pool thread when they are many: dropping a vector of enums reads
/// every item (a pass over its memory), which one thread would do alone.
pub fn drop_in_morsels<T: Send>(items: Vec<T>) {
    if items.len() < 2 * MIN_MORSEL_ROWS || rayon::current_num_threads() < 2 {
        return;
    }
    items
        .into_par_iter()
        .with_min_len(MIN_MORSEL_ROWS)
        .for_each(drop);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morsels_cover_the_rows_in_order() {
        for rows in [
            0,
            1,
            MIN_MORSEL_ROWS - 1,
            MIN_MORSEL_ROWS * 3 + 7,
            1_000_003,
        ] {
            let parts = morsels(rows);
            assert!(!parts.is_empty());
            assert_eq!(parts.first().map(|r| r.start), Some(0));
            assert_eq!(parts.last().map(|r| r.end), Some(rows));
            assert!(parts.windows(2).all(|w| w[0].end == w[1].start));
            if parts.len() > 1 {
                assert!(parts.iter().all(|r| r.len() >= MIN_MORSEL_ROWS));
            }
            let sums: Vec<usize> = map_morsels(rows, |r| r.len());
            assert_eq!(sums.iter().sum::<usize>(), rows);
        }
    }
}
