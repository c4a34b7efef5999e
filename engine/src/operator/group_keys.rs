//! Row → group-slot assignment for GROUP BY over one segment ([`GroupKeys`]).
//!
//! Group keys stay in dictionary space whenever every key is a plain dictionary column: the
//! key of a row is the mixed-radix number of its dictionary ids (`Σ idₖ·strideₖ`), mapped to a
//! slot through a dense array when the product of cardinalities is small (≤ 1M) or no more than
//! the rows to group (≤ 16M), and an Fx-hashed map otherwise; a run of one id (a sorted key)
//! looks its slot up once; values are decoded once per group at the end. Single-value dictionary keys are
//! combined a block at a time, column by column, before one slot lookup per row. Other keys (expressions, raw
//! columns, nullable columns under null handling) hash the row's key values. Multi-value keys
//! put a row in one group per value (the cross product for several such keys).
//!
//! `numGroupsLimit` caps the groups per segment: rows of new groups past it are dropped and
//! the result is flagged (`numGroupsLimitReached`).

use crate::block::{ColumnData, Projected};
use crate::column::{Cells, Column};
use crate::key::RowKey;
use planner::plan::Expr;
use segments::dictionary::Dictionary;
use segments::hash::FxBuildHasher;
use segments::segment::ImmutableSegment;
use segments::types::{DataType, Value};
use std::collections::HashMap;

/// Largest key space served by a dense array whatever the rows.
const DENSE_LIMIT: u64 = 1 << 20;
/// Largest key space served by a dense array when the rows are at least as many as the keys
/// ([`GroupKeys::dense_for_rows`]): 64 MiB of slots.
const DENSE_ROWS_LIMIT: u64 = 1 << 24;
const UNASSIGNED: u32 = u32::MAX;

/// Row → group assignment for one segment.
pub struct GroupKeys<'s> {
    /// The dictionaries of the keys when every key is a dictionary column.
    dicts: Option<Vec<&'s Dictionary>>,
    strides: Vec<u64>,
    dense: Option<Vec<u32>>,
    /// Combined id → slot past the dense limit (the ids are small integers: Fx, not SipHash).
    sparse: HashMap<u64, u32, FxBuildHasher>,
    slot_ids: Vec<u64>,
    by_value: HashMap<RowKey, u32>,
    slot_values: Vec<Vec<Value>>,
    limit: usize,
    /// Some row's new group was dropped because of the limit.
    pub limit_reached: bool,
}

impl<'s> GroupKeys<'s> {
    /// Key assignment for `keys` over `segment`.
    pub fn new(
        keys: &[Expr],
        segment: &'s ImmutableSegment,
        null_handling: bool,
        limit: usize,
    ) -> GroupKeys<'s> {
        let dicts: Option<Vec<&'s Dictionary>> = keys
            .iter()
            .map(|k| match k {
                Expr::Column(c) => {
                    let col = segment.column(&c.name)?;
                    if null_handling && col.nulls().is_some_and(|n| !n.is_empty()) {
                        return None;
                    }
                    col.dictionary()
                }
                _ => None,
            })
            .collect();
        let mut strides = Vec::new();
        let mut dense = None;
        if let Some(ds) = &dicts {
            let mut product: u64 = 1;
            let mut fits = true;
            for d in ds {
                strides.push(product);
                match product.checked_mul(d.len().max(1) as u64) {
                    Some(p) => product = p,
                    None => fits = false,
                }
            }
            if !fits {
                return GroupKeys::new_values(limit);
            }
            if product <= DENSE_LIMIT {
                dense = Some(vec![UNASSIGNED; product as usize]);
            }
        }
        GroupKeys {
            dicts,
            strides,
            dense,
            sparse: HashMap::default(),
            slot_ids: Vec::new(),
            by_value: HashMap::new(),
            slot_values: Vec::new(),
            limit,
            limit_reached: false,
        }
    }

    fn new_values(limit: usize) -> GroupKeys<'s> {
        GroupKeys {
            dicts: None,
            strides: Vec::new(),
            dense: None,
            sparse: HashMap::default(),
            slot_ids: Vec::new(),
            by_value: HashMap::new(),
            slot_values: Vec::new(),
            limit,
            limit_reached: false,
        }
    }

    /// Number of groups so far.
    pub fn len(&self) -> usize {
        if self.dicts.is_some() {
            self.slot_ids.len()
        } else {
            self.slot_values.len()
        }
    }

    /// Whether no group exists yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether keys are grouped in dictionary space.
    pub fn in_dictionary_space(&self) -> bool {
        self.dicts.is_some()
    }

    fn slot_for_id(&mut self, combined: u64) -> u32 {
        let existing = match &self.dense {
            Some(d) => d[combined as usize],
            None => self.sparse.get(&combined).copied().unwrap_or(UNASSIGNED),
        };
        if existing != UNASSIGNED {
            return existing;
        }
        if self.slot_ids.len() >= self.limit {
            self.limit_reached = true;
            return UNASSIGNED;
        }
        let slot = self.slot_ids.len() as u32;
        self.slot_ids.push(combined);
        match &mut self.dense {
            Some(d) => d[combined as usize] = slot,
            None => {
                self.sparse.insert(combined, slot);
            }
        }
        slot
    }

    fn slot_for_values(&mut self, key: Vec<Value>) -> u32 {
        let key = RowKey(key);
        if let Some(&s) = self.by_value.get(&key) {
            return s;
        }
        if self.slot_values.len() >= self.limit {
            self.limit_reached = true;
            return UNASSIGNED;
        }
        let slot = self.slot_values.len() as u32;
        self.slot_values.push(key.0.clone());
        self.by_value.insert(key, slot);
        slot
    }

    /// Assigns the rows of a block: `(rows, groups)` pairs, or per-row groups when every row
    /// has exactly one group (`rows` empty).
    pub fn assign(&mut self, key_columns: &[&Projected<'_>], n: usize) -> (Vec<u32>, Vec<u32>) {
        if self.dicts.is_some() {
            let ids: Option<Vec<&[u32]>> = key_columns
                .iter()
                .map(|k| match &k.data {
                    ColumnData::Dict { ids, .. } if ids.len() >= n => Some(&ids[..n]),
                    _ => None,
                })
                .collect();
            if let Some(ids) = ids {
                return self.assign_ids(&ids, n);
            }
        }
        let mut rows = Vec::new();
        let mut groups = Vec::with_capacity(n);
        let per_row = key_columns.iter().all(|k| !matches!(k.data, ColumnData::DictMv { .. }))
            && !key_columns.iter().any(|k| matches!(&k.data, ColumnData::Values(v) if v.iter().any(|x| matches!(x, Value::Array(_)))));
        if self.dicts.is_some() {
            let mut combos: Vec<u64> = Vec::new();
            for r in 0..n {
                combos.clear();
                combos.push(0);
                for (k, col) in key_columns.iter().enumerate() {
                    let stride = self.strides[k];
                    match &col.data {
                        ColumnData::Dict { ids, .. } => {
                            combos.iter_mut().for_each(|c| *c += ids[r] as u64 * stride)
                        }
                        ColumnData::DictMv { ids, offsets, .. } => {
                            let vals = &ids[offsets[r] as usize..offsets[r + 1] as usize];
                            let prev = std::mem::take(&mut combos);
                            for c in prev {
                                for &id in vals {
                                    combos.push(c + id as u64 * stride);
                                }
                            }
                        }
                        _ => {}
                    }
                }
                for &combined in &combos {
                    let slot = self.slot_for_id(combined);
                    push(&mut rows, &mut groups, per_row, r, slot);
                }
            }
        } else {
            for r in 0..n {
                let mut combos: Vec<Vec<Value>> = vec![Vec::with_capacity(key_columns.len())];
                for col in key_columns {
                    match col.value(r) {
                        Value::Array(items) => {
                            let prev = std::mem::take(&mut combos);
                            for c in prev {
                                for v in &items {
                                    let mut next = c.clone();
                                    next.push(v.clone());
                                    combos.push(next);
                                }
                            }
                        }
                        v => combos.iter_mut().for_each(|c| c.push(v.clone())),
                    }
                }
                for c in combos {
                    let slot = self.slot_for_values(c);
                    push(&mut rows, &mut groups, per_row, r, slot);
                }
            }
        }
        if per_row && groups.contains(&UNASSIGNED) {
            // Rows whose group was dropped: switch to pairs without them.
            let pairs: (Vec<u32>, Vec<u32>) = groups
                .iter()
                .enumerate()
                .filter(|(_, g)| **g != UNASSIGNED)
                .map(|(r, g)| (r as u32, *g))
                .unzip();
            return pairs;
        }
        (rows, groups)
    }

    /// [`GroupKeys::assign`] for single-value dictionary keys (`ids[k]`: key `k`'s ids): the
    /// combined ids of the block first, column by column, then one slot lookup per row.
    fn assign_ids(&mut self, ids: &[&[u32]], n: usize) -> (Vec<u32>, Vec<u32>) {
        let mut groups = Vec::with_capacity(n);
        match ids {
            [only] => {
                // A run of one id (a sorted or clustered key) looks its slot up once.
                let mut last: Option<(u32, u32)> = None;
                for &id in only.iter() {
                    let slot = match last {
                        Some((l, slot)) if l == id => slot,
                        _ => self.slot_of(id as u64),
                    };
                    last = Some((id, slot));
                    groups.push(slot);
                }
            }
            _ => {
                let mut combined = vec![0u64; n];
                for (key_ids, &stride) in ids.iter().zip(&self.strides) {
                    for (c, &id) in combined.iter_mut().zip(key_ids.iter()) {
                        *c += id as u64 * stride;
                    }
                }
                for &c in &combined {
                    groups.push(self.slot_of(c));
                }
            }
        }
        if groups.contains(&UNASSIGNED) {
            // Rows whose group was dropped: switch to pairs without them.
            return groups
                .iter()
                .enumerate()
                .filter(|(_, g)| **g != UNASSIGNED)
                .map(|(r, g)| (r as u32, *g))
                .unzip();
        }
        (Vec::new(), groups)
    }

    /// Slots groups through a dense array past [`DENSE_LIMIT`] too when `rows` (the rows to
    /// group) are at least as many as the possible keys, up to [`DENSE_ROWS_LIMIT`]: writing 4
    /// bytes per possible key once costs less than hashing every row (a near-unique or sorted
    /// key: TPC-H's 1.5 M order keys over 6 M lines). Before any row is assigned.
    pub fn dense_for_rows(&mut self, rows: u64) {
        let Some(ds) = &self.dicts else {
            return;
        };
        let space: u64 = ds.iter().map(|d| d.len().max(1) as u64).product();
        if self.dense.is_none()
            && self.slot_ids.is_empty()
            && space <= rows
            && space <= DENSE_ROWS_LIMIT
        {
            self.dense = Some(vec![UNASSIGNED; space as usize]);
        }
    }

    /// The size of the dictionary key space (the product of the keys' cardinalities) when
    /// groups are slotted through a dense array.
    pub fn dense_key_space(&self) -> Option<u64> {
        self.dense.as_ref().map(|d| d.len() as u64)
    }

    /// Key `k`'s multiplier in a combined id (`Σ idₖ·strideₖ`).
    pub fn strides(&self) -> &[u64] {
        &self.strides
    }

    /// The slot of a combined id: a dense-array hit inline, anything else through
    /// [`GroupKeys::slot_for_id`]; `u32::MAX` when the group limit dropped it.
    #[inline]
    pub(super) fn slot_of(&mut self, combined: u64) -> u32 {
        if let Some(d) = &self.dense {
            let s = d[combined as usize];
            if s != UNASSIGNED {
                return s;
            }
        }
        self.slot_for_id(combined)
    }

    /// Key `key` of every group, in slot order, as a column of `data_type`.
    pub fn key_column(&self, key: usize, data_type: DataType) -> Column {
        // Numbers of a dictionary of that type: read by id into unboxed cells.
        if let Some(ds) = &self.dicts
            && ds[key].data_type() == data_type
        {
            let d = ds[key];
            let ids =
                || -> Vec<u32> { (0..self.len()).map(|slot| self.key_id(slot, key)).collect() };
            let cells = match d {
                Dictionary::Int(_) | Dictionary::Long(_) => {
                    let mut out = Vec::with_capacity(self.len());
                    d.extend_i64s(&ids(), &mut out);
                    Some(Cells::I64(out))
                }
                Dictionary::Float(_) | Dictionary::Double(_) => {
                    let mut out = Vec::with_capacity(self.len());
                    d.extend_f64s(&ids(), &mut out);
                    Some(Cells::F64(out))
                }
                _ => None,
            };
            if let Some(cells) = cells {
                return Column {
                    cells,
                    data_type,
                    nulls: None,
                };
            }
        }
        let values = (0..self.len()).map(|slot| self.key_value(slot, key));
        Column::from_values(data_type, values.collect())
    }

    /// The key values of group `slot`.
    pub fn key_values(&self, slot: usize) -> Vec<Value> {
        match &self.dicts {
            Some(ds) => (0..ds.len()).map(|key| self.key_value(slot, key)).collect(),
            None => self.slot_values[slot].clone(),
        }
    }

    /// Key `key` of group `slot`: with dictionaries, its id taken from the slot's combined id.
    fn key_value(&self, slot: usize, key: usize) -> Value {
        match &self.dicts {
            Some(ds) => ds[key].value(self.key_id(slot, key)),
            None => self.slot_values[slot][key].clone(),
        }
    }

    /// The dictionary id of key `key` in group `slot`, taken from the slot's combined id (keys
    /// in dictionary space only).
    fn key_id(&self, slot: usize, key: usize) -> u32 {
        let d = self.dicts.as_ref().map_or(1, |ds| ds[key].len().max(1));
        ((self.slot_ids[slot] / self.strides[key]) % u64::from(d)) as u32
    }
}

fn push(rows: &mut Vec<u32>, groups: &mut Vec<u32>, per_row: bool, r: usize, slot: u32) {
    if per_row {
        groups.push(slot);
    } else if slot != UNASSIGNED {
        rows.push(r as u32);
        groups.push(slot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::DataType;

    #[test]
    fn value_keys_with_multi_values_and_limit() {
        let mut g = GroupKeys::new_values(3);
        let a = Projected::values(
            DataType::String,
            vec![
                Value::String("x".into()),
                Value::Array(vec![Value::String("y".into()), Value::String("z".into())]),
                Value::String("x".into()),
            ],
        );
        let (rows, groups) = g.assign(&[&a], 3);
        assert_eq!(rows, vec![0, 1, 1, 2]);
        assert_eq!(groups, vec![0, 1, 2, 0]);
        assert_eq!(g.key_values(2), vec![Value::String("z".into())]);
        let b = Projected::values(
            DataType::String,
            vec![Value::String("w".into()), Value::String("x".into())],
        );
        let (rows, groups) = g.assign(&[&b], 2);
        assert!(g.limit_reached);
        assert_eq!((rows, groups), (vec![1], vec![0]));
    }
}
