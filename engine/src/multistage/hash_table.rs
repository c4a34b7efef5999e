//! Hash tables over row indices, for grouping and hash joins: rows are hashed column by column
//! ([`hash_rows`]) and chained by hash; a lookup walks the chain and compares the key columns
//! cell by cell ([`Column::same_key`]). No key is ever copied out of its column. A join's
//! probe side is probed a morsel per pool thread against the one built table.

use super::block::{Cells, Column, NO_ROW};
use crate::column::{hash_rows, hash_rows_within};
use crate::context::QueryContext;
use crate::error::EngineError;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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
fn plain_ints<'c>(keys: &[&'c Column]) -> Option<&'c [i64]> {
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

/// [`group_ids`] of one integral key without NULLs: keys in a range not much wider than the
/// rows (order keys, ids) index an array of group ids directly; others go through a hash table.
fn int_group_ids(values: &[i64]) -> (Vec<u32>, Vec<u32>) {
    let mut first = Vec::new();
    let dense = dense_range(values, values.len() as u128 * 4);
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

/// The smallest of `keys` and the width of their range, when that range is worth an array
/// indexed by value: at most `worth` wide (or 2^16, below which an array always pays) and 2^26.
fn dense_range(keys: &[i64], worth: u128) -> Option<(i64, usize)> {
    let (lo, hi) = keys
        .iter()
        .fold((i64::MAX, i64::MIN), |(l, h), k| (l.min(*k), h.max(*k)));
    let span = (hi as i128 - lo as i128 + 1).max(0) as u128;
    (!keys.is_empty() && span <= worth.max(1 << 16) && span <= 1 << 26)
        .then_some((lo, span as usize))
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
    ctx: &QueryContext,
) -> Result<(Vec<u32>, Vec<u32>), EngineError> {
    if let (Some(b), Some(p)) = (plain_ints(build_keys), plain_ints(probe_keys)) {
        return int_pairs(b, p, max_pairs, ctx);
    }
    let build_hashes = hash_rows(build_keys, build_rows);
    let mut heads = HashIndex::default();
    heads.reserve(build_rows);
    let mut next = vec![NO_ROW; build_rows];
    // Inserted back to front, so each chain lists its rows in order.
    for b in (0..build_rows).rev() {
        if !any_null(build_keys, b) {
            let slot = heads.entry(build_hashes[b]).or_insert(NO_ROW);
            next[b] = *slot;
            *slot = b as u32;
        }
    }
    let probe_hashes = hash_rows(probe_keys, probe_rows);
    probe_in_morsels(probe_rows, max_pairs, ctx, |p, out| {
        let mut at = heads.get(&probe_hashes[p]).copied().unwrap_or(NO_ROW);
        if at == NO_ROW || any_null(probe_keys, p) {
            return;
        }
        while at != NO_ROW {
            if same_row(probe_keys, p, build_keys, at as usize) {
                out.0.push(p as u32);
                out.1.push(at);
            }
            at = next[at as usize];
        }
    })
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
    ctx: &QueryContext,
) -> Result<(Vec<u32>, Vec<u32>), EngineError> {
    let mut next = vec![NO_ROW; build_keys.len()];
    // Keys in a range not much wider than the build side (ids, order keys), or than the probe
    // side that will look each of its rows up, index an array of chain heads directly; others go
    // through a hash table.
    let worth = (build_keys.len() as u128 * 32).max(probe_keys.len() as u128);
    let dense = dense_range(build_keys, worth);
    let lo = dense.map_or(0, |(lo, _)| lo);
    let mut direct: Vec<u32> = Vec::new();
    let mut heads = IntIndex::default();
    if let Some((_, span)) = dense {
        direct = vec![NO_ROW; span];
        for (b, k) in build_keys.iter().enumerate().rev() {
            let slot = &mut direct[(k - lo) as usize];
            next[b] = *slot;
            *slot = b as u32;
        }
    } else {
        heads.reserve(build_keys.len());
        for (b, k) in build_keys.iter().enumerate().rev() {
            let slot = heads.entry(*k).or_insert(NO_ROW);
            next[b] = *slot;
            *slot = b as u32;
        }
    }
    let head = |k: &i64| -> u32 {
        if dense.is_some() {
            let at = i128::from(*k) - i128::from(lo);
            usize::try_from(at)
                .ok()
                .and_then(|at| direct.get(at).copied())
                .unwrap_or(NO_ROW)
        } else {
            heads.get(k).copied().unwrap_or(NO_ROW)
        }
    };
    probe_in_morsels(probe_keys.len(), max_pairs, ctx, |p, out| {
        let mut at = head(&probe_keys[p]);
        while at != NO_ROW {
            out.0.push(p as u32);
            out.1.push(at);
            at = next[at as usize];
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
        }
        assert_eq!(int_group_ids(&[]), (vec![], vec![]));
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
        let (p, b) = equi_pairs(&[&ints], 5, &[&doubles], 3, 100, &ctx).unwrap();
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
        let (p, b) = equi_pairs(&[&build], 3, &[&probe], 3, 100, &ctx).unwrap();
        assert_eq!((p, b), (vec![0, 0, 2], vec![0, 2, 1]));
        // Past the cap the probe stops (checked every few thousand rows): the caller sees
        // more pairs than allowed and decides.
        let (p, _) = equi_pairs(&[&build], 3, &[&probe], 3, 1, &ctx).unwrap();
        assert!(p.len() > 1);
        assert_eq!(group_ids(&[&build], 3), (vec![0, 1, 0], vec![0, 1]));
        // Keys too spread out for an array of heads go through the hash table: same pairs.
        let spread = Column::from_values(
            DataType::Long,
            vec![Value::Long(1 << 40), Value::Long(-5), Value::Long(1 << 40)],
        );
        let probe =
            Column::from_values(DataType::Long, vec![Value::Long(-5), Value::Long(1 << 40)]);
        let (p, b) = equi_pairs(&[&spread], 3, &[&probe], 2, 100, &ctx).unwrap();
        assert_eq!((p, b), (vec![0, 1, 1], vec![1, 0, 2]));
    }
}
