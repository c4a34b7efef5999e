//! Hash tables over row indices, for grouping and hash joins: rows are hashed column by column
//! ([`hash_rows`]) and chained by hash; a lookup walks the chain and compares the key columns
//! cell by cell ([`Column::same_key`]). No key is ever copied out of its column. A join's
//! table is built in parts, one per pool thread (by hash, or by a slice of the key range when the
//! keys index an array), and its probe side is probed a morsel per pool thread against it.

use super::block::{Cells, Column, NO_ROW};
use crate::column::{hash_rows, hash_rows_within};
use crate::context::QueryContext;
use crate::error::EngineError;
use crate::morsels::{filled, map_items, map_morsels};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU32, Ordering};

/// A hasher for keys that are hashes already.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

type HashIndex = HashMap<u64, u32, BuildHasherDefault<Prehashed>>;

/// A hasher for integer keys: one multiply, the high bits folded down.
#[derive(Default)]
struct IntHasher(u64);

impl Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) ^ u64::from(*b);
        }
        self.write_u64(self.0);
    }
    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64);
    }
    fn write_u64(&mut self, v: u64) {
        let h = v.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 29);
    }
}

type IntIndex = HashMap<i64, u32, BuildHasherDefault<IntHasher>>;

/// The values of a single integral key column without NULLs (the common join and group key),
/// which are their own keys.
pub(super) fn plain_ints<'c>(keys: &[&'c Column]) -> Option<&'c [i64]> {
    match keys {
        [c] if c.nulls.is_none() => match &c.cells {
            Cells::I64(v) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

fn same_row(a: &[&Column], i: usize, b: &[&Column], j: usize) -> bool {
    a.iter().zip(b).all(|(x, y)| x.same_key(i, y, j))
}

fn any_null(cols: &[&Column], r: usize) -> bool {
    cols.iter().any(|c| c.is_null(r))
}

/// A group id per row by the key columns `keys` (NULL is a group), and each group's first row.
pub fn group_ids(keys: &[&Column], rows: usize) -> (Vec<u32>, Vec<u32>) {
    if keys.is_empty() {
        return (vec![0; rows], Vec::new());
    }
    if let Some(values) = plain_ints(keys) {
        return int_group_ids(values);
    }
    let hashes = hash_rows_within(keys, rows);
    let mut heads = HashIndex::default();
    // `next[g]`: the next group with the same hash.
    let mut next: Vec<u32> = Vec::new();
    let mut first: Vec<u32> = Vec::new();
    let mut groups = Vec::with_capacity(rows);
    for (r, h) in hashes.iter().enumerate() {
        let mut g = heads.get(h).copied().unwrap_or(NO_ROW);
        while g != NO_ROW && !same_row(keys, r, keys, first[g as usize] as usize) {
            g = next[g as usize];
        }
        if g == NO_ROW {
            g = first.len() as u32;
            first.push(r as u32);
            next.push(heads.insert(*h, g).unwrap_or(NO_ROW));
        }
        groups.push(g);
    }
    (groups, first)
}

/// [`group_ids`] of one integral key without NULLs: keys in ascending order (a leaf's groups
/// by a sorted column, merged in order) are numbered by their runs, no table at all; keys in a
/// range not much wider than the rows (order keys, ids) index an array of group ids directly;
/// others go through a hash table.
fn int_group_ids(values: &[i64]) -> (Vec<u32>, Vec<u32>) {
    if values.is_sorted() {
        return run_group_ids(values);
    }
    let mut first = Vec::new();
    // Up to 16 slots per row: the keys a worker of a hash exchange groups are a share of the
    // whole range (half of the order keys for each of two workers), and an array of 4-byte
    // slots that wide costs about the memory of a hash table of as many keys, at a fraction of
    // its time per row.
    let dense = dense_range(values, values.len() as u128 * DENSE_GROUP_SLOTS);
    let mut assign = |slot: &mut u32, r: usize| {
        if *slot == NO_ROW {
            *slot = first.len() as u32;
            first.push(r as u32);
        }
        *slot
    };
    let groups = if let Some((lo, span)) = dense {
        let mut direct = vec![NO_ROW; span];
        values
            .iter()
            .enumerate()
            .map(|(r, v)| assign(&mut direct[(v - lo) as usize], r))
            .collect()
    } else {
        let mut ids = IntIndex::default();
        ids.reserve(values.len().min(1 << 16));
        values
            .iter()
            .enumerate()
            .map(|(r, v)| assign(ids.entry(*v).or_insert(NO_ROW), r))
            .collect()
    };
    (groups, first)
}

/// [`group_ids`] of keys in ascending order: each run of equal keys is a group.
fn run_group_ids(values: &[i64]) -> (Vec<u32>, Vec<u32>) {
    let mut first: Vec<u32> = Vec::new();
    let mut groups = Vec::with_capacity(values.len());
    for (r, v) in values.iter().enumerate() {
        if r == 0 || values[r - 1] != *v {
            first.push(r as u32);
        }
        groups.push(first.len() as u32 - 1);
    }
    (groups, first)
}

/// The smallest and largest of `keys` (`(i64::MAX, i64::MIN)` for none).
fn bounds(keys: &[i64]) -> (i64, i64) {
    keys.iter()
        .fold((i64::MAX, i64::MIN), |(l, h), k| (l.min(*k), h.max(*k)))
}

/// Slots per row up to which [`int_group_ids`] numbers groups through an array indexed by
/// value.
const DENSE_GROUP_SLOTS: u128 = 16;

/// The smallest of `keys` and the width of their range, when that range is worth an array
/// indexed by value: at most `worth` wide (or 2^16, below which an array always pays) and 2^26.
pub(super) fn dense_range(keys: &[i64], worth: u128) -> Option<(i64, usize)> {
    let (lo, hi) = bounds(keys);
    let span = (hi as i128 - lo as i128 + 1).max(0) as u128;
    (!keys.is_empty() && span <= worth.max(1 << 16) && span <= 1 << 26)
        .then_some((lo, span as usize))
}

/// Which of a probe row's matches a join wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matches {
    /// Every matching build row (the pairs a join's rows are made of).
    All,
    /// The first matching build row only: whether the probe row has a match at all (a semi or
    /// anti join with no condition on the pair), without walking the rest of its chain.
    First,
}

/// Matching row pairs `(probe, build)` of an equi-join on `probe_keys = build_keys`; NULL keys
/// match nothing. Stops soon after more than `max_pairs` pairs are found (checked every few
/// thousand probe rows; the caller sees the excess and decides).
pub fn equi_pairs(
    build_keys: &[&Column],
    build_rows: usize,
    probe_keys: &[&Column],
    probe_rows: usize,
    max_pairs: usize,
    matches: Matches,
    ctx: &QueryContext,
) -> Result<(Vec<u32>, Vec<u32>), EngineError> {
    if let (Some(b), Some(p)) = (plain_ints(build_keys), plain_ints(probe_keys)) {
        return int_pairs(b, p, max_pairs, matches, ctx);
    }
    if let Some((b, p)) = packed_keys(build_keys, probe_keys) {
        return int_pairs(&b, &p, max_pairs, matches, ctx);
    }
    let build_hashes = hash_rows(build_keys, build_rows);
    let next = Chains::new(build_rows);
    let parts = build_parts(build_rows);
    let heads: Vec<HashIndex> = map_items((0..parts).collect(), build_rows, |part| {
        let mut heads = HashIndex::default();
        heads.reserve(build_rows / parts);
        // Inserted back to front, so each chain lists its rows in order.
        for b in (0..build_rows).rev() {
            let h = build_hashes[b];
            if part_of(h, parts) == part && !any_null(build_keys, b) {
                next.link(b, heads.entry(h).or_insert(NO_ROW));
            }
        }
        heads
    });
    let probe_hashes = hash_rows(probe_keys, probe_rows);
    probe_in_morsels(probe_rows, max_pairs, ctx, |p, out| {
        let h = probe_hashes[p];
        let mut at = heads[part_of(h, parts)].get(&h).copied().unwrap_or(NO_ROW);
        if at == NO_ROW || any_null(probe_keys, p) {
            return;
        }
        while at != NO_ROW {
            if same_row(probe_keys, p, build_keys, at as usize) {
                out.0.push(p as u32);
                out.1.push(at);
                if matches == Matches::First {
                    return;
                }
            }
            at = next.after(at);
        }
    })
}

/// Two integral key columns without NULLs on each side, each build column's values less than
/// 2^31 above its smallest (a composite key of ids: `(ps_partkey, ps_suppkey)`): each side's
/// pair packed into one integer, `(a - lo_a) << 32 | (b - lo_b)` by the build side's smallest
/// values, so the join runs on one integer key ([`int_pairs`]) instead of hashing and comparing
/// two columns. A probe row outside the build side's ranges gets -1, which no build row has.
fn packed_keys(build_keys: &[&Column], probe_keys: &[&Column]) -> Option<(Vec<i64>, Vec<i64>)> {
    fn ints<'c>(cols: &[&'c Column]) -> Option<Vec<&'c [i64]>> {
        match cols {
            [a, b] => Some(vec![plain_ints(&[*a])?, plain_ints(&[*b])?]),
            _ => None,
        }
    }
    let (build, probe) = (ints(build_keys)?, ints(probe_keys)?);
    let lows: Vec<i128> = build
        .iter()
        .map(|v| {
            let (lo, hi) = bounds(v);
            (i128::from(hi) - i128::from(lo) < 1 << 31).then_some(i128::from(lo))
        })
        .collect::<Option<_>>()?;
    let pack = |cols: &[&[i64]]| -> Vec<i64> {
        let rows = cols[0].len();
        map_morsels(rows, |range| {
            range
                .map(|r| {
                    let x = i128::from(cols[0][r]) - lows[0];
                    let y = i128::from(cols[1][r]) - lows[1];
                    match (0..1 << 31).contains(&x) && (0..1 << 31).contains(&y) {
                        true => ((x as i64) << 32) | y as i64,
                        false => -1,
                    }
                })
                .collect::<Vec<i64>>()
        })
        .concat()
    };
    Some((pack(&build), pack(&probe)))
}

/// How many parts a build side of `rows` rows is cut into, one per pool thread that has a
/// morsel's worth of them: each part is built on its own thread.
fn build_parts(rows: usize) -> usize {
    crate::morsels::morsels(rows).len()
}

/// The part of a table that holds hash `h` (its middle bits: the low ones index a part's
/// buckets and the high ones are its tags).
pub(super) fn part_of(h: u64, parts: usize) -> usize {
    ((h >> 24) & 0xffff) as usize % parts
}

/// The part of a table of integer keys that holds `k` (by the hash its part's index uses).
fn int_part_of(k: i64, parts: usize) -> usize {
    let mut h = IntHasher::default();
    h.write_i64(k);
    part_of(h.finish(), parts)
}

/// Each build row's next row with the same key (chains), written by the threads building the
/// parts of a table — each its own rows — and read by the probe.
struct Chains(Vec<AtomicU32>);

impl Chains {
    fn new(rows: usize) -> Chains {
        Chains((0..rows).map(|_| AtomicU32::new(NO_ROW)).collect())
    }

    /// Makes row `b` the head of the chain `head` starts.
    fn link(&self, b: usize, head: &mut u32) {
        self.0[b].store(*head, Ordering::Relaxed);
        *head = b as u32;
    }

    fn after(&self, row: u32) -> u32 {
        self.0[row as usize].load(Ordering::Relaxed)
    }
}

/// The pairs `visit` finds for each probe row, the probe side cut into morsels probed in
/// parallel (the built table is shared, read-only) and their pairs joined in probe order, so
/// the answer does not depend on scheduling. A morsel stops soon after its pairs pass
/// `max_pairs`; the deadline is checked every few thousand rows.
fn probe_in_morsels(
    probe_rows: usize,
    max_pairs: usize,
    ctx: &QueryContext,
    visit: impl Fn(usize, &mut (Vec<u32>, Vec<u32>)) + Sync + Send,
) -> Result<(Vec<u32>, Vec<u32>), EngineError> {
    let morsels = crate::morsels::map_morsels(probe_rows, |rows| {
        let mut out = (Vec::new(), Vec::new());
        for p in rows {
            if p % 4096 == 0 {
                ctx.check()?;
                if out.0.len() > max_pairs {
                    break;
                }
            }
            visit(p, &mut out);
        }
        Ok::<_, EngineError>(out)
    });
    let mut morsels = morsels.into_iter();
    let mut all = match morsels.next() {
        Some(first) => first?,
        None => (Vec::new(), Vec::new()),
    };
    for m in morsels {
        let (probe, build) = m?;
        if all.0.len() <= max_pairs {
            all.0.extend(probe);
            all.1.extend(build);
        }
    }
    Ok(all)
}

/// [`equi_pairs`] on one integral key without NULLs: the values index the table directly.
fn int_pairs(
    build_keys: &[i64],
    probe_keys: &[i64],
    max_pairs: usize,
    matches: Matches,
    ctx: &QueryContext,
) -> Result<(Vec<u32>, Vec<u32>), EngineError> {
    let next = Chains::new(build_keys.len());
    let parts = build_parts(build_keys.len());
    // Keys in a range not much wider than the build side (ids, order keys), or than the probe
    // side that will look each of its rows up, index an array of chain heads directly (each
    // part a slice of the range); others go through a hash table per part.
    let worth = (build_keys.len() as u128 * 32).max(probe_keys.len() as u128);
    let dense = dense_range(build_keys, worth);
    let lo = dense.map_or(0, |(lo, _)| lo);
    let mut direct: Vec<u32> = Vec::new();
    let mut heads: Vec<IntIndex> = Vec::new();
    if let Some((_, span)) = dense {
        // Marked empty on the pool, not by one memset of the whole range on the caller's thread.
        direct = filled(span, NO_ROW);
        let width = span.div_ceil(parts).max(1);
        let slices: Vec<(usize, &mut [u32])> = direct
            .chunks_mut(width)
            .enumerate()
            .map(|(i, s)| (i * width, s))
            .collect();
        map_items(slices, build_keys.len(), |(start, slice)| {
            for (b, k) in build_keys.iter().enumerate().rev() {
                if let Some(slot) = ((k - lo) as usize)
                    .checked_sub(start)
                    .and_then(|at| slice.get_mut(at))
                {
                    next.link(b, slot);
                }
            }
        });
    } else {
        heads = map_items((0..parts).collect(), build_keys.len(), |part| {
            let mut heads = IntIndex::default();
            heads.reserve(build_keys.len() / parts);
            for (b, k) in build_keys.iter().enumerate().rev() {
                if int_part_of(*k, parts) == part {
                    next.link(b, heads.entry(*k).or_insert(NO_ROW));
                }
            }
            heads
        });
    }
    let head = |k: &i64| -> u32 {
        if dense.is_some() {
            let at = i128::from(*k) - i128::from(lo);
            usize::try_from(at)
                .ok()
                .and_then(|at| direct.get(at).copied())
                .unwrap_or(NO_ROW)
        } else {
            heads[int_part_of(*k, parts)]
                .get(k)
                .copied()
                .unwrap_or(NO_ROW)
        }
    };
    probe_in_morsels(probe_keys.len(), max_pairs, ctx, |p, out| {
        let mut at = head(&probe_keys[p]);
        while at != NO_ROW {
            out.0.push(p as u32);
            out.1.push(at);
            if matches == Matches::First {
                return;
            }
            at = next.after(at);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::{DataType, Value};

    #[test]
    fn integer_groups_are_numbered_by_first_row_densely_or_hashed() {
        // A narrow range (direct array) and a wide one (hash table) number alike.
        for scale in [1i64, 1 << 40] {
            let keys: Vec<i64> = [5, 3, 5, 9, 3, 3, -2].iter().map(|k| k * scale).collect();
            let (groups, first) = int_group_ids(&keys);
            assert_eq!(groups, vec![0, 1, 0, 2, 1, 1, 3]);
            assert_eq!(first, vec![0, 1, 3, 6]);
            // Ascending keys by their runs, as the tables number them.
            let sorted: Vec<i64> = [-2, 3, 3, 3, 5, 9, 9].iter().map(|k| k * scale).collect();
            let by_runs = int_group_ids(&sorted);
            assert_eq!(by_runs, (vec![0, 1, 1, 1, 2, 3, 3], vec![0, 1, 4, 5]));
            let mut ids = IntIndex::default();
            let mut by_table = (Vec::new(), Vec::new());
            for (r, k) in sorted.iter().enumerate() {
                let next = ids.len() as u32;
                let g = *ids.entry(*k).or_insert_with(|| {
                    by_table.1.push(r as u32);
                    next
                });
                by_table.0.push(g);
            }
            assert_eq!(by_runs, by_table);
        }
        assert_eq!(int_group_ids(&[]), (vec![], vec![]));
        assert_eq!(int_group_ids(&[7]), (vec![0], vec![0]));
    }

    #[test]
    fn groups_and_pairs_by_canonical_keys() {
        let ints = Column::from_values(
            DataType::Int,
            vec![
                Value::Int(1),
                Value::Null,
                Value::Int(2),
                Value::Int(1),
                Value::Null,
            ],
        );
        let (groups, first) = group_ids(&[&ints], 5);
        assert_eq!(groups, vec![0, 1, 2, 0, 1]);
        assert_eq!(first, vec![0, 1, 2]);
        // A DOUBLE 1.0 meets the INT 1s; NULL meets nothing.
        let doubles = Column::from_values(
            DataType::Double,
            vec![Value::Double(1.0), Value::Null, Value::Double(2.5)],
        );
        let ctx = QueryContext::new(Default::default());
        let (p, b) = equi_pairs(&[&ints], 5, &[&doubles], 3, 100, Matches::All, &ctx).unwrap();
        assert_eq!((p, b), (vec![0, 0], vec![0, 3]));
        let strings = Column::from_values(
            DataType::String,
            vec![
                Value::String("a".into()),
                Value::String("b".into()),
                Value::String("a".into()),
            ],
        );
        let (groups, _) = group_ids(&[&strings, &ints], 3);
        assert_eq!(groups, vec![0, 1, 2]);
    }

    #[test]
    fn tables_built_in_parts_on_a_pool_find_every_pair_in_order() {
        let rows = crate::morsels::MIN_MORSEL_ROWS * 3 + 11;
        let ctx = QueryContext::new(Default::default());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        // Each probe row's matches, build rows ascending, probe rows in order.
        let naive = |build: &[i64], probe: &[i64]| {
            let mut by_key: std::collections::BTreeMap<i64, Vec<u32>> = Default::default();
            for (b, k) in build.iter().enumerate() {
                by_key.entry(*k).or_default().push(b as u32);
            }
            let mut out = (Vec::new(), Vec::new());
            for (p, k) in probe.iter().enumerate() {
                for b in by_key.get(k).into_iter().flatten() {
                    out.0.push(p as u32);
                    out.1.push(*b);
                }
            }
            out
        };
        let long = |v: &[i64]| {
            Column::from_values(DataType::Long, v.iter().map(|x| Value::Long(*x)).collect())
        };
        // Dense integers (an array of heads), spread ones (hash tables), and two key columns
        // (hashed rows).
        for scale in [1i64, 1 << 40] {
            let build: Vec<i64> = (0..rows as i64).map(|i| (i * 7 % 5003) * scale).collect();
            let probe: Vec<i64> = (0..rows as i64 / 2)
                .map(|i| (i * 13 % 6007) * scale)
                .collect();
            let expected = naive(&build, &probe);
            let (b, p) = (long(&build), long(&probe));
            let got = pool.install(|| {
                equi_pairs(
                    &[&b],
                    build.len(),
                    &[&p],
                    probe.len(),
                    usize::MAX,
                    Matches::All,
                    &ctx,
                )
                .unwrap()
            });
            assert_eq!(got, expected, "scale {scale}");
            let (b2, p2) = (long(&vec![1; build.len()]), long(&vec![1; probe.len()]));
            let got = pool.install(|| {
                equi_pairs(
                    &[&b, &b2],
                    build.len(),
                    &[&p, &p2],
                    probe.len(),
                    usize::MAX,
                    Matches::All,
                    &ctx,
                )
                .unwrap()
            });
            assert_eq!(got, expected, "two keys, scale {scale}");
            // The first match of each probe row: its lowest build row, probe rows in order.
            let mut first = (Vec::new(), Vec::new());
            for (p, b) in expected.0.iter().zip(&expected.1) {
                if first.0.last() != Some(p) {
                    first.0.push(*p);
                    first.1.push(*b);
                }
            }
            assert!(first.0.len() < expected.0.len());
            for keys in [vec![&b], vec![&b, &b2]] {
                let probe_keys = if keys.len() == 1 {
                    vec![&p]
                } else {
                    vec![&p, &p2]
                };
                let got = pool.install(|| {
                    let (n, m) = (build.len(), probe.len());
                    equi_pairs(&keys, n, &probe_keys, m, usize::MAX, Matches::First, &ctx).unwrap()
                });
                assert_eq!(
                    got,
                    first,
                    "first matches, {} keys, scale {scale}",
                    keys.len()
                );
            }
        }
    }

    #[test]
    fn plain_integer_keys_take_the_direct_path_with_the_same_answers() {
        let build = Column::from_values(
            DataType::Int,
            vec![Value::Int(7), Value::Int(3), Value::Int(7)],
        );
        let probe = Column::from_values(
            DataType::Long,
            vec![Value::Long(7), Value::Long(5), Value::Long(3)],
        );
        assert!(plain_ints(&[&build]).is_some());
        let ctx = QueryContext::new(Default::default());
        let (p, b) = equi_pairs(&[&build], 3, &[&probe], 3, 100, Matches::All, &ctx).unwrap();
        assert_eq!((p, b), (vec![0, 0, 2], vec![0, 2, 1]));
        // Past the cap the probe stops (checked every few thousand rows): the caller sees
        // more pairs than allowed and decides.
        let (p, _) = equi_pairs(&[&build], 3, &[&probe], 3, 1, Matches::All, &ctx).unwrap();
        assert!(p.len() > 1);
        assert_eq!(group_ids(&[&build], 3), (vec![0, 1, 0], vec![0, 1]));
        // Keys too spread out for an array of heads go through the hash table: same pairs.
        let spread = Column::from_values(
            DataType::Long,
            vec![Value::Long(1 << 40), Value::Long(-5), Value::Long(1 << 40)],
        );
        let probe =
            Column::from_values(DataType::Long, vec![Value::Long(-5), Value::Long(1 << 40)]);
        let (p, b) = equi_pairs(&[&spread], 3, &[&probe], 2, 100, Matches::All, &ctx).unwrap();
        assert_eq!((p, b), (vec![0, 1, 1], vec![1, 0, 2]));
    }

    /// Two integer key columns join packed into one integer, with the pairs a nested loop
    /// finds: probe values below, inside and above the build side's ranges, negative ones,
    /// and a build column too wide to pack (then hashed).
    #[test]
    fn two_integer_keys_pack_into_one() {
        let long = |v: Vec<i64>| {
            Column::from_values(DataType::Long, v.into_iter().map(Value::Long).collect())
        };
        let ctx = QueryContext::new(Default::default());
        let build_a: Vec<i64> = (0..300).map(|i| 100 + i % 50).collect();
        let build_b: Vec<i64> = (0..300).map(|i| -5 + i % 7).collect();
        let probe_a: Vec<i64> = (0..400).map(|i| 90 + i % 70).collect();
        let probe_b: Vec<i64> = (0..400).map(|i| -8 + i % 13).collect();
        for wide in [0, 1i64 << 40] {
            let build_a: Vec<i64> = build_a
                .iter()
                .enumerate()
                .map(|(i, a)| a + wide * (i % 2) as i64)
                .collect();
            let mut naive = (Vec::new(), Vec::new());
            for p in 0..probe_a.len() {
                for b in 0..build_a.len() {
                    if (probe_a[p], probe_b[p]) == (build_a[b], build_b[b]) {
                        naive.0.push(p as u32);
                        naive.1.push(b as u32);
                    }
                }
            }
            assert!(!naive.0.is_empty());
            let (ba, bb, pa, pb) = (
                long(build_a.clone()),
                long(build_b.clone()),
                long(probe_a.clone()),
                long(probe_b.clone()),
            );
            assert_eq!(packed_keys(&[&ba, &bb], &[&pa, &pb]).is_some(), wide == 0);
            let got = equi_pairs(
                &[&ba, &bb],
                300,
                &[&pa, &pb],
                400,
                usize::MAX,
                Matches::All,
                &ctx,
            );
            assert_eq!(got.unwrap(), naive, "wide {wide}");
        }
    }
}
