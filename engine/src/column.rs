//! [`Column`]: the values of one column for a run of rows, typed — integral types (INT, LONG,
//! BOOLEAN, TIMESTAMP) as unboxed `i64`, floating types as `f64`, each with its logical type and
//! null flags; every other type as [`Value`]s; a partial aggregate's column as aggregation states.
//!
//! It is how a v2 leaf hands a segment's selected rows over (no row of values is ever built) and
//! what the multi-stage runtime's blocks are made of: operators gather rows by index
//! ([`Column::take`]), hash keys ([`Column::key_hash`]), append ([`Column::concat`]) and read a
//! single cell as a [`Value`] only where an expression is evaluated row by row.

use crate::aggregate::AggState;
use crate::block::{ColumnData, Projected};
use crate::code_book::{CodeBook, FirstUse};
use rayon::prelude::*;
use segments::types::{DataType, Value};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A row index meaning "no row": [`Column::take`] yields NULL there (the missing side of an
/// outer join).
pub const NO_ROW: u32 = u32::MAX;

/// [`Column::take_few`] gives coded rows a book of their own when their book has more than
/// this many codes per row taken: their values are then read through slots for those codes
/// only (a top-k of 20 rows from a 150,000-code book made and freed 6 MB of slots to read 20
/// values), and the book's making costs a hash of the rows, a small part of the big book's.
/// Only for rows few and final: a join's or filter's blocks taken so would each hash their rows
/// and lose the book they share.
pub const SUBSET_BOOK: usize = 16;

/// The cells of one column.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Cells {
    /// INT, LONG, BOOLEAN (0/1), TIMESTAMP.
    I64(Vec<i64>),
    /// FLOAT, DOUBLE.
    F64(Vec<f64>),
    /// Everything else; NULL is [`Value::Null`].
    Values(Vec<Value>),
    /// Dictionary-coded values (text read from a segment's dictionary): row `i` is
    /// `dict[ids[i]]`. The dictionary's values are distinct, so equal ids are equal values and
    /// gathering rows copies ids, never the values.
    Coded { ids: Vec<u32>, dict: Arc<CodeBook> },
    /// Aggregation states of a partial aggregate.
    States(Vec<AggState>),
}

/// One column: its cells, logical type and (for numbers and coded values) null flags.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Column {
    pub cells: Cells,
    pub data_type: DataType,
    /// `nulls[i]`: row `i` is NULL (unboxed and coded cells only; absent when no row is).
    pub nulls: Option<Vec<bool>>,
}

fn integral(t: DataType) -> bool {
    matches!(
        t,
        DataType::Int | DataType::Long | DataType::Boolean | DataType::Timestamp
    )
}

fn floating(t: DataType) -> bool {
    matches!(t, DataType::Float | DataType::Double)
}

impl Column {
    /// A column of `values` of type `data_type` (numbers unboxed when every value is one).
    pub fn from_values(data_type: DataType, values: Vec<Value>) -> Column {
        let mut nulls: Option<Vec<bool>> = None;
        let n = values.len();
        let mut mark = |i: usize| nulls.get_or_insert_with(|| vec![false; n])[i] = true;
        if integral(data_type) {
            let mut out = Vec::with_capacity(n);
            for (i, v) in values.iter().enumerate() {
                match v {
                    Value::Int(x) => out.push(i64::from(*x)),
                    Value::Long(x) | Value::Timestamp(x) => out.push(*x),
                    Value::Boolean(b) => out.push(i64::from(*b)),
                    Value::Null => {
                        mark(i);
                        out.push(0);
                    }
                    _ => return Column::boxed(data_type, values),
                }
            }
            return Column {
                cells: Cells::I64(out),
                data_type,
                nulls,
            };
        }
        if floating(data_type) {
            let mut out = Vec::with_capacity(n);
            for (i, v) in values.iter().enumerate() {
                match v {
                    Value::Float(x) => out.push(f64::from(*x)),
                    Value::Double(x) => out.push(*x),
                    Value::Null => {
                        mark(i);
                        out.push(0.0);
                    }
                    _ => return Column::boxed(data_type, values),
                }
            }
            return Column {
                cells: Cells::F64(out),
                data_type,
                nulls,
            };
        }
        Column::boxed(data_type, values)
    }

    fn boxed(data_type: DataType, values: Vec<Value>) -> Column {
        Column {
            cells: Cells::Values(values),
            data_type,
            nulls: None,
        }
    }

    /// A column of no rows.
    pub fn empty(data_type: DataType) -> Column {
        Column {
            cells: Cells::Values(Vec::new()),
            data_type,
            nulls: None,
        }
    }

    /// A column of partial-aggregate states.
    pub fn states(data_type: DataType, states: Vec<AggState>) -> Column {
        Column {
            cells: Cells::States(states),
            data_type,
            nulls: None,
        }
    }

    /// `n` copies of `value`.
    /// Numbers are filled unboxed, as [`Column::from_values`] would store them, without a
    /// value per row.
    pub fn constant(data_type: DataType, value: &Value, n: usize) -> Column {
        let filled = |cells: Cells| Column {
            cells,
            data_type,
            nulls: None,
        };
        match value {
            Value::Int(x) if integral(data_type) => filled(Cells::I64(vec![i64::from(*x); n])),
            Value::Long(x) | Value::Timestamp(x) if integral(data_type) => {
                filled(Cells::I64(vec![*x; n]))
            }
            Value::Boolean(b) if integral(data_type) => filled(Cells::I64(vec![i64::from(*b); n])),
            Value::Float(x) if floating(data_type) => filled(Cells::F64(vec![f64::from(*x); n])),
            Value::Double(x) if floating(data_type) => filled(Cells::F64(vec![*x; n])),
            _ => Column::from_values(data_type, vec![value.clone(); n]),
        }
    }

    /// The numbers of a numeric (INT, LONG, FLOAT, DOUBLE) column as doubles, if it holds them
    /// unboxed (doubles are borrowed).
    pub fn numbers(&self) -> Option<Cow<'_, [f64]>> {
        if !matches!(
            self.data_type,
            DataType::Int | DataType::Long | DataType::Float | DataType::Double
        ) {
            return None;
        }
        match &self.cells {
            Cells::I64(v) => Some(Cow::Owned(v.iter().map(|&x| x as f64).collect())),
            Cells::F64(v) => Some(Cow::Borrowed(v)),
            _ => None,
        }
    }

    /// Rows.
    pub fn len(&self) -> usize {
        match &self.cells {
            Cells::I64(v) => v.len(),
            Cells::F64(v) => v.len(),
            Cells::Values(v) => v.len(),
            Cells::Coded { ids, .. } => ids.len(),
            Cells::States(v) => v.len(),
        }
    }

    /// Whether the column has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether row `i` is NULL.
    pub fn is_null(&self, i: usize) -> bool {
        self.nulls.as_ref().is_some_and(|n| n[i])
            || match &self.cells {
                Cells::Values(v) => v[i].is_null(),
                // A segment dictionary holds no NULL: only a book of given values is read.
                Cells::Coded { ids, dict } => dict.is_decoded() && dict[ids[i] as usize].is_null(),
                _ => false,
            }
    }

    /// Row `i` as a value (a state reads as NULL: only a final aggregate reads states).
    pub fn value(&self, i: usize) -> Value {
        if self.nulls.as_ref().is_some_and(|n| n[i]) {
            return Value::Null;
        }
        match &self.cells {
            Cells::I64(v) => match self.data_type {
                DataType::Int => Value::Int(v[i] as i32),
                DataType::Boolean => Value::Boolean(v[i] != 0),
                DataType::Timestamp => Value::Timestamp(v[i]),
                _ => Value::Long(v[i]),
            },
            Cells::F64(v) => match self.data_type {
                DataType::Float => Value::Float(v[i] as f32),
                _ => Value::Double(v[i]),
            },
            Cells::Values(v) => v[i].clone(),
            Cells::Coded { ids, dict } => dict[ids[i] as usize].clone(),
            Cells::States(_) => Value::Null,
        }
    }

    /// Rows `start..end`.
    pub fn slice(&self, start: usize, end: usize) -> Column {
        let cells = match &self.cells {
            Cells::I64(v) => Cells::I64(v[start..end].to_vec()),
            Cells::F64(v) => Cells::F64(v[start..end].to_vec()),
            Cells::Values(v) => Cells::Values(v[start..end].to_vec()),
            Cells::Coded { ids, dict } => Cells::Coded {
                ids: ids[start..end].to_vec(),
                dict: dict.clone(),
            },
            Cells::States(v) => Cells::States(v[start..end].to_vec()),
        };
        Column {
            cells,
            data_type: self.data_type,
            nulls: self.nulls.as_ref().map(|n| n[start..end].to_vec()),
        }
    }

    /// The rows from `start` dealt out to `counts.len()` columns: row `start + i` goes to
    /// column `part_of[i]`, each column keeping its rows in order; `counts` are the columns'
    /// lengths. One pass in row order (a radix partition's scatter): a gather of each part's
    /// rows instead would read the whole column once per part.
    pub fn deal(&self, start: usize, part_of: &[u16], counts: &[usize]) -> Vec<Column> {
        fn deal_cells<T: Clone>(v: &[T], part_of: &[u16], counts: &[usize]) -> Vec<Vec<T>> {
            let mut out: Vec<Vec<T>> = counts.iter().map(|n| Vec::with_capacity(*n)).collect();
            for (x, p) in v.iter().zip(part_of) {
                out[usize::from(*p)].push(x.clone());
            }
            out
        }
        let rows = start..start + part_of.len();
        let cells: Vec<Cells> = match &self.cells {
            Cells::I64(v) => deal_cells(&v[rows.clone()], part_of, counts)
                .into_iter()
                .map(Cells::I64)
                .collect(),
            Cells::F64(v) => deal_cells(&v[rows.clone()], part_of, counts)
                .into_iter()
                .map(Cells::F64)
                .collect(),
            Cells::Values(v) => deal_cells(&v[rows.clone()], part_of, counts)
                .into_iter()
                .map(Cells::Values)
                .collect(),
            Cells::Coded { ids, dict } => deal_cells(&ids[rows.clone()], part_of, counts)
                .into_iter()
                .map(|ids| Cells::Coded {
                    ids,
                    dict: dict.clone(),
                })
                .collect(),
            Cells::States(v) => deal_cells(&v[rows.clone()], part_of, counts)
                .into_iter()
                .map(Cells::States)
                .collect(),
        };
        let mut nulls = self
            .nulls
            .as_ref()
            .map(|n| deal_cells(&n[rows], part_of, counts).into_iter());
        cells
            .into_iter()
            .map(|cells| Column {
                cells,
                data_type: self.data_type,
                nulls: nulls.as_mut().and_then(Iterator::next),
            })
            .collect()
    }

    /// [`Column::take`] of rows that are few and final (a top-k's): coded rows that keep fewer
    /// than one in [`SUBSET_BOOK`] of their book's codes get a book of their own codes.
    pub fn take_few(&self, indices: &[u32]) -> Column {
        let mut taken = self.take(indices);
        if let Cells::Coded { ids, dict } = &mut taken.cells
            && ids.len().saturating_mul(SUBSET_BOOK) < dict.len()
        {
            let mut codes = FirstUse::new(dict.len(), false);
            for id in ids.iter_mut() {
                *id = codes.code_of(*id);
            }
            *dict = Arc::new(dict.subset(&codes.into_used()));
        }
        taken
    }

    /// The rows at `indices`, in that order ([`NO_ROW`] gives NULL).
    pub fn take(&self, indices: &[u32]) -> Column {
        let has_missing = indices.contains(&NO_ROW);
        let nulls = if self.nulls.is_some() || has_missing {
            Some(
                indices
                    .iter()
                    .map(|&i| i == NO_ROW || self.nulls.as_ref().is_some_and(|n| n[i as usize]))
                    .collect(),
            )
        } else {
            None
        };
        let cells = match &self.cells {
            Cells::I64(v) => Cells::I64(
                indices
                    .iter()
                    .map(|&i| if i == NO_ROW { 0 } else { v[i as usize] })
                    .collect(),
            ),
            Cells::F64(v) => Cells::F64(
                indices
                    .iter()
                    .map(|&i| if i == NO_ROW { 0.0 } else { v[i as usize] })
                    .collect(),
            ),
            Cells::Values(v) => Cells::Values(
                indices
                    .iter()
                    .map(|&i| {
                        if i == NO_ROW {
                            Value::Null
                        } else {
                            v[i as usize].clone()
                        }
                    })
                    .collect(),
            ),
            Cells::Coded { ids, dict } => Cells::Coded {
                ids: indices
                    .iter()
                    .map(|&i| if i == NO_ROW { 0 } else { ids[i as usize] })
                    .collect(),
                dict: dict.clone(),
            },
            Cells::States(v) => Cells::States(
                indices
                    .iter()
                    .map(|&i| {
                        if i == NO_ROW {
                            AggState::Count(0)
                        } else {
                            v[i as usize].clone()
                        }
                    })
                    .collect(),
            ),
        };
        let nulls = match cells {
            Cells::I64(_) | Cells::F64(_) | Cells::Coded { .. } => nulls,
            _ => None,
        };
        Column {
            cells,
            data_type: self.data_type,
            nulls,
        }
    }

    /// The columns one after the other (all of the same type; mixed kinds fall back to values).
    pub fn concat(mut parts: Vec<Column>, data_type: DataType) -> Column {
        // An empty part adds nothing, whatever its kind.
        if parts.iter().any(|p| !p.is_empty()) {
            parts.retain(|p| !p.is_empty());
        }
        if parts.len() == 1
            && let Some(only) = parts.pop()
        {
            return Column { data_type, ..only };
        }
        let total: usize = parts.iter().map(Column::len).sum();
        let same_kind = |k: fn(&Cells) -> bool| parts.iter().all(|p| k(&p.cells));
        let any_nulls = parts.iter().any(|p| p.nulls.is_some());
        let mut nulls: Option<Vec<bool>> = any_nulls.then(|| Vec::with_capacity(total));
        let mut push_nulls = |p: &Column| {
            if let Some(n) = nulls.as_mut() {
                match &p.nulls {
                    Some(pn) => n.extend_from_slice(pn),
                    None => n.extend(std::iter::repeat_n(false, p.len())),
                }
            }
        };
        if same_kind(|c| matches!(c, Cells::I64(_))) {
            let mut out = Vec::with_capacity(total);
            for p in &parts {
                push_nulls(p);
                if let Cells::I64(v) = &p.cells {
                    out.extend_from_slice(v);
                }
            }
            return Column {
                cells: Cells::I64(out),
                data_type,
                nulls,
            };
        }
        if same_kind(|c| matches!(c, Cells::F64(_))) {
            let mut out = Vec::with_capacity(total);
            for p in &parts {
                push_nulls(p);
                if let Cells::F64(v) = &p.cells {
                    out.extend_from_slice(v);
                }
            }
            return Column {
                cells: Cells::F64(out),
                data_type,
                nulls,
            };
        }
        if same_kind(|c| matches!(c, Cells::Coded { .. })) {
            for p in &parts {
                push_nulls(p);
            }
            return concat_coded(parts, data_type, nulls, total);
        }
        if same_kind(|c| matches!(c, Cells::States(_))) {
            let mut out = Vec::with_capacity(total);
            for p in parts {
                if let Cells::States(v) = p.cells {
                    out.extend(v);
                }
            }
            return Column::states(data_type, out);
        }
        let mut out = Vec::with_capacity(total);
        for p in parts {
            match p.cells {
                Cells::Values(v) => out.extend(v),
                _ => out.extend((0..p.len()).map(|i| p.value(i))),
            }
        }
        Column::boxed(data_type, out)
    }

    /// Row `i`'s key for joins, grouping and hash exchanges: numbers in one canonical form
    /// (`1` as INT, LONG or DOUBLE meet), `None` for NULL (which never equals anything).
    pub fn key(&self, i: usize) -> Option<KeyPart> {
        if self.is_null(i) {
            return None;
        }
        Some(match &self.cells {
            Cells::I64(v) => KeyPart::Int(v[i]),
            Cells::F64(v) => float_key(v[i]),
            Cells::Values(v) => value_key(&v[i]),
            Cells::Coded { ids, dict } => value_key(&dict[ids[i] as usize]),
            Cells::States(_) => return None,
        })
    }

    /// Mixes the key of row `start + i` into `hashes[i]` without allocating: numbers by their
    /// canonical form (an INT 1, a LONG 1 and a DOUBLE 1.0 hash alike, as [`Column::key`]
    /// equates them), text and bytes by their bytes, NULL as a constant. Deterministic across
    /// processes (hash exchanges rely on it).
    pub fn hash_into(&self, start: usize, hashes: &mut [u64]) {
        let null = |i: usize| self.nulls.as_ref().is_some_and(|n| n[start + i]);
        let rows = start..start + hashes.len();
        match &self.cells {
            Cells::I64(v) => {
                for (i, (h, x)) in hashes.iter_mut().zip(&v[rows]).enumerate() {
                    *h = mix(*h, if null(i) { NULL_HASH } else { *x as u64 });
                }
            }
            Cells::F64(v) => {
                for (i, (h, x)) in hashes.iter_mut().zip(&v[rows]).enumerate() {
                    *h = mix(*h, if null(i) { NULL_HASH } else { float_hash(*x) });
                }
            }
            Cells::Values(v) => {
                for (x, h) in v[rows].iter().zip(hashes.iter_mut()) {
                    *h = mix(*h, value_hash(x));
                }
            }
            Cells::Coded { ids, dict } => {
                // Each code's value hashed (and decoded) once, the first time a row reads it,
                // when there are fewer codes than rows.
                let ids = &ids[rows];
                let mut memo: Option<Vec<Option<u64>>> =
                    (dict.len() < ids.len()).then(|| vec![None; dict.len()]);
                for (i, (h, id)) in hashes.iter_mut().zip(ids).enumerate() {
                    let id = *id as usize;
                    let v = if null(i) {
                        NULL_HASH
                    } else {
                        match memo.as_mut() {
                            Some(m) => *m[id].get_or_insert_with(|| code_hash(dict, id)),
                            None => code_hash(dict, id),
                        }
                    };
                    *h = mix(*h, v);
                }
            }
            Cells::States(_) => {
                for h in hashes.iter_mut() {
                    *h = mix(*h, NULL_HASH);
                }
            }
        }
    }

    /// Whether row `i` here and row `j` of `other` hold the same key ([`Column::key`]'s
    /// equality; NULL equals NULL — callers that want SQL's NULL ≠ NULL test for it first).
    pub fn same_key(&self, i: usize, other: &Column, j: usize) -> bool {
        match (self.is_null(i), other.is_null(j)) {
            (true, true) => return true,
            (true, false) | (false, true) => return false,
            _ => {}
        }
        match (&self.cells, &other.cells) {
            (Cells::I64(a), Cells::I64(b)) => a[i] == b[j],
            (Cells::Coded { ids: a, dict: x }, Cells::Coded { ids: b, dict: y })
                if Arc::ptr_eq(x, y) =>
            {
                a[i] == b[j]
            }
            (Cells::Coded { ids: a, dict: x }, Cells::Coded { ids: b, dict: y }) => {
                match (&x[a[i] as usize], &y[b[j] as usize]) {
                    (Value::String(p), Value::String(q)) => p == q,
                    _ => self.key(i) == other.key(j),
                }
            }
            (Cells::Values(a), Cells::Values(b)) => match (&a[i], &b[j]) {
                (Value::String(x), Value::String(y)) => x == y,
                _ => self.key(i) == other.key(j),
            },
            _ => self.key(i) == other.key(j),
        }
    }

    /// The column as the single-stage engine's projected column (for its accumulators).
    pub fn projected(&self) -> Projected<'static> {
        let data = match &self.cells {
            Cells::I64(v) => ColumnData::I64(v.clone()),
            Cells::F64(v) => ColumnData::F64(v.clone()),
            Cells::Values(v) => ColumnData::Values(v.clone()),
            Cells::Coded { .. } => {
                ColumnData::Values((0..self.len()).map(|i| self.value(i)).collect())
            }
            Cells::States(_) => ColumnData::Values(vec![Value::Null; self.len()]),
        };
        Projected {
            data,
            data_type: self.data_type,
            nulls: self.nulls.clone(),
        }
    }
}

/// Coded columns one after the other: ids kept where all share one dictionary, else remapped
/// into a merged dictionary of distinct values.
fn concat_coded(
    parts: Vec<Column>,
    data_type: DataType,
    nulls: Option<Vec<bool>>,
    total: usize,
) -> Column {
    let mut ids = Vec::with_capacity(total);
    let shared = match parts.first().map(|p| &p.cells) {
        Some(Cells::Coded { dict, .. })
            if parts.iter().all(
                |p| matches!(&p.cells, Cells::Coded { dict: d, .. } if Arc::ptr_eq(d, dict)),
            ) =>
        {
            Some(dict.clone())
        }
        _ => None,
    };
    // Parts of one segment column: merged by segment id, nothing decoded.
    let lazy = match shared {
        None => {
            let books: Vec<&CodeBook> = parts
                .iter()
                .filter_map(|p| match &p.cells {
                    Cells::Coded { dict, .. } => Some(&**dict),
                    _ => None,
                })
                .collect();
            CodeBook::merge_lazy(&books)
        }
        Some(_) => None,
    };
    if let Some((book, remaps)) = lazy {
        for (p, remap) in parts.iter().zip(&remaps) {
            if let Cells::Coded { ids: part, .. } = &p.cells {
                ids.extend(
                    part.iter()
                        .map(|&c| remap.get(c as usize).copied().unwrap_or(0)),
                );
            }
        }
        return Column {
            cells: Cells::Coded {
                ids,
                dict: Arc::new(book),
            },
            data_type,
            nulls,
        };
    }
    let dict = match shared {
        Some(dict) => {
            for p in &parts {
                if let Cells::Coded { ids: part, .. } = &p.cells {
                    ids.extend_from_slice(part);
                }
            }
            dict
        }
        None => {
            // Only the codes rows use are decoded and merged. The index holds positions in
            // `merged` (each value cloned once), found by the columns' own value hash: the
            // books of blocks from another process are one per block, and a wide text column's
            // values are mostly distinct, so this runs once per row.
            let codes: usize = parts
                .iter()
                .map(|p| match &p.cells {
                    Cells::Coded { dict, .. } => dict.len(),
                    _ => 0,
                })
                .sum();
            let mut merged: Vec<Value> = Vec::with_capacity(codes.min(total));
            // (hash, position): growing the table moves entries without hashing text again.
            let mut index: hashbrown::HashTable<(u64, u32)> =
                hashbrown::HashTable::with_capacity(codes.min(total));
            for p in &parts {
                if let Cells::Coded { ids: part, dict } = &p.cells {
                    let mut remap: Vec<u32> = vec![u32::MAX; dict.len()];
                    for &code in part {
                        let Some(slot) = remap.get_mut(code as usize) else {
                            ids.push(0);
                            continue;
                        };
                        if *slot == u32::MAX {
                            let v = &dict[code as usize];
                            let hash = finish_hash(value_hash(v));
                            let entry = index.entry(
                                hash,
                                |&(h, at)| h == hash && crate::key::same(&merged[at as usize], v),
                                |&(h, _)| h,
                            );
                            *slot = entry
                                .or_insert_with(|| {
                                    merged.push(v.clone());
                                    (hash, (merged.len() - 1) as u32)
                                })
                                .get()
                                .1;
                        }
                        ids.push(*slot);
                    }
                }
            }
            Arc::new(CodeBook::from_values(merged))
        }
    };
    Column {
        cells: Cells::Coded { ids, dict },
        data_type,
        nulls,
    }
}

const NULL_HASH: u64 = 0x51_7c_c1_b7_27_22_0a_95;
const TEXT_HASH: u64 = 0x2f_9a_4b_31_e7_03_5d_c1;

/// One FxHash-style step.
fn mix(h: u64, v: u64) -> u64 {
    (h.rotate_left(5) ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// A float's hash: an integral value as the integer (so it meets INT and LONG keys).
fn float_hash(x: f64) -> u64 {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        x as i64 as u64
    } else {
        x.to_bits() ^ 0x7ff0_0000_0000_0001
    }
}

fn bytes_hash(b: &[u8]) -> u64 {
    let mut h = TEXT_HASH ^ b.len() as u64;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        h = mix(h, u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    mix(h, u64::from_le_bytes(tail))
}

/// The [`value_hash`] of `book`'s value `code` (a var-width value hashes its bytes), from its
/// stored bytes when the book has them (a segment's text hashed to route rows is then never
/// decoded).
fn code_hash(book: &CodeBook, code: usize) -> u64 {
    book.with_stored(code as u32, |_, b| bytes_hash(b))
        .unwrap_or_else(|| value_hash(&book[code]))
}

fn value_hash(v: &Value) -> u64 {
    match v {
        Value::Null => NULL_HASH,
        Value::Int(x) => i64::from(*x) as u64,
        Value::Long(x) | Value::Timestamp(x) => *x as u64,
        Value::Boolean(b) => u64::from(*b),
        Value::Float(x) => float_hash(f64::from(*x)),
        Value::Double(x) => float_hash(*x),
        Value::String(s) | Value::Json(s) | Value::BigDecimal(s) | Value::Map(s) => {
            bytes_hash(s.as_bytes())
        }
        Value::Bytes(b) => bytes_hash(b),
        other => {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            crate::key::Key(other.clone()).hash(&mut h);
            h.finish()
        }
    }
}

/// The final mix of a row hash (spreads the low bits hash tables index by).
pub fn finish_hash(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Row hashes for comparing rows of these same columns with one another only (grouping one
/// block): a coded column hashes its codes — one book per column, so equal codes are equal
/// values — and no text is decoded. Rows of other columns need [`hash_rows`].
pub fn hash_rows_within(columns: &[&Column], rows: usize) -> Vec<u64> {
    hashes_in_morsels(rows, |start, hashes| {
        for c in columns {
            match &c.cells {
                Cells::Coded { ids, .. } => {
                    for (i, (h, id)) in hashes.iter_mut().zip(&ids[start..]).enumerate() {
                        let v = if c.is_null(start + i) {
                            NULL_HASH
                        } else {
                            u64::from(*id)
                        };
                        *h = mix(*h, v);
                    }
                }
                _ => c.hash_into(start, hashes),
            }
        }
    })
}

/// Each row's hash over the keys of `columns` (see [`Column::hash_into`]).
pub fn hash_rows(columns: &[&Column], rows: usize) -> Vec<u64> {
    hashes_in_morsels(rows, |start, hashes| {
        for c in columns {
            c.hash_into(start, hashes);
        }
    })
}

/// `rows` hashes, each morsel's mixed by `mix_in(first row, its hashes)` on a pool thread, then
/// finished.
fn hashes_in_morsels(rows: usize, mix_in: impl Fn(usize, &mut [u64]) + Sync) -> Vec<u64> {
    let mut hashes = vec![0u64; rows];
    let parts = crate::morsels::morsels(rows);
    let hash_part = |start: usize, part: &mut [u64]| {
        mix_in(start, part);
        for h in part.iter_mut() {
            *h = finish_hash(*h);
        }
    };
    if parts.len() == 1 {
        hash_part(0, &mut hashes);
        return hashes;
    }
    // Chunks as long as the first morsel, the last one shorter.
    let len = parts[0].len();
    hashes
        .par_chunks_mut(len)
        .enumerate()
        .for_each(|(k, part)| hash_part(k * len, part));
    hashes
}

/// A boxed value's key (the numbers canonical, as [`Column::key`] says).
fn value_key(v: &Value) -> KeyPart {
    match v {
        Value::Int(x) => KeyPart::Int(i64::from(*x)),
        Value::Long(x) | Value::Timestamp(x) => KeyPart::Int(*x),
        Value::Boolean(b) => KeyPart::Int(i64::from(*b)),
        Value::Float(x) => float_key(f64::from(*x)),
        Value::Double(x) => float_key(*x),
        other => KeyPart::Other(crate::key::Key(other.clone())),
    }
}

fn float_key(x: f64) -> KeyPart {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        KeyPart::Int(x as i64)
    } else {
        KeyPart::Other(crate::key::Key(Value::Double(x)))
    }
}

/// One column's part of a key (see [`Column::key`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KeyPart {
    Int(i64),
    Other(crate::key::Key),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coded(ids: Vec<u32>, dict: Vec<&str>, nulls: Option<Vec<bool>>) -> Column {
        Column {
            cells: Cells::Coded {
                ids,
                dict: Arc::new(CodeBook::from_values(
                    dict.into_iter().map(|s| Value::String(s.into())).collect(),
                )),
            },
            data_type: DataType::String,
            nulls,
        }
    }

    #[test]
    fn coded_columns_concat_take_and_key_like_values() {
        let a = coded(vec![0, 1, 0], vec!["x", "y"], None);
        let b = coded(vec![0, 0], vec!["y"], Some(vec![false, true]));
        let c = Column::concat(vec![a, b], DataType::String);
        let got: Vec<Value> = (0..5).map(|i| c.value(i)).collect();
        let s = |v: &str| Value::String(v.into());
        assert_eq!(got, vec![s("x"), s("y"), s("x"), s("y"), Value::Null]);
        // Merged dictionaries keep values distinct: equal values, equal ids.
        assert!(c.same_key(1, &c, 3));
        assert!(!c.same_key(0, &c, 1));
        let t = c.take(&[4, NO_ROW, 3]);
        assert_eq!(
            (0..3).map(|i| t.value(i)).collect::<Vec<_>>(),
            vec![Value::Null, Value::Null, s("y")]
        );
        let plain = Column::from_values(DataType::String, got.clone());
        let (mut h1, mut h2) = (vec![0u64; 5], vec![0u64; 5]);
        c.hash_into(0, &mut h1);
        plain.hash_into(0, &mut h2);
        assert_eq!(h1, h2);
    }

    proptest::proptest! {
        /// Coded parts with books of their own (as blocks received from other processes)
        /// concatenate to the same values, with one code per distinct value: doubles by bit
        /// pattern, so `-0.0` and `0.0` keep two codes and `NaN` one.
        #[test]
        fn merged_books_keep_values_and_one_code_per_value(
            parts in proptest::collection::vec(
                proptest::collection::vec(0usize..6, 0..12),
                1..5,
            ),
        ) {
            let pool = [0.0, -0.0, f64::NAN, 1.5, 2.0, 1.5];
            let mut columns: Vec<Column> = parts
                .iter()
                .map(|rows| {
                    let mut book: Vec<Value> = Vec::new();
                    let ids = rows
                        .iter()
                        .map(|&r| {
                            let v = Value::Double(pool[r]);
                            match book.iter().position(|b| crate::key::same(b, &v)) {
                                Some(at) => at as u32,
                                None => {
                                    book.push(v);
                                    (book.len() - 1) as u32
                                }
                            }
                        })
                        .collect();
                    Column {
                        cells: Cells::Coded { ids, dict: Arc::new(CodeBook::from_values(book)) },
                        data_type: DataType::Double,
                        nulls: None,
                    }
                })
                .collect();
            let mut expected: Vec<f64> = parts.iter().flatten().map(|&r| pool[r]).collect();
            // A book two of the parts share.
            if parts.len() > 1 {
                columns.push(columns[0].clone());
                expected.extend(parts[0].iter().map(|&r| pool[r]));
            }
            let merged = Column::concat(columns, DataType::Double);
            proptest::prop_assert_eq!(merged.len(), expected.len());
            let Cells::Coded { ids, .. } = &merged.cells else {
                panic!("not coded");
            };
            for (i, x) in expected.iter().enumerate() {
                let Value::Double(got) = merged.value(i) else {
                    panic!("not a double");
                };
                proptest::prop_assert_eq!(got.to_bits(), x.to_bits());
                for (j, y) in expected.iter().enumerate() {
                    proptest::prop_assert_eq!(ids[i] == ids[j], x.to_bits() == y.to_bits());
                }
            }
        }
    }

    #[test]
    fn row_hashes_in_morsels_are_each_rows_own() {
        // Past several morsels, on a pool of three: each row hashes as it does alone.
        let rows = crate::morsels::MIN_MORSEL_ROWS * 4 + 5;
        let longs = Column::from_values(
            DataType::Long,
            (0..rows)
                .map(|i| match i % 7 {
                    0 => Value::Null,
                    _ => Value::Long(i as i64 % 1000),
                })
                .collect(),
        );
        let doubles = Column::from_values(
            DataType::Double,
            (0..rows).map(|i| Value::Double(i as f64 / 4.0)).collect(),
        );
        let texts = coded(
            (0..rows).map(|i| (i % 3) as u32).collect(),
            vec!["a", "b", "c"],
            Some((0..rows).map(|i| i % 11 == 0).collect()),
        );
        let keys = [&longs, &doubles, &texts];
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let (all, within) =
            pool.install(|| (hash_rows(&keys, rows), hash_rows_within(&keys, rows)));
        for r in [0, 1, 6, 7, 8191, 8192, 16_385, 24_576, rows - 1] {
            let one: Vec<Column> = keys.iter().map(|c| c.take(&[r as u32])).collect();
            let one: Vec<&Column> = one.iter().collect();
            assert_eq!(all[r], hash_rows(&one, 1)[0], "row {r}");
            assert_eq!(within[r], hash_rows_within(&one, 1)[0], "row {r}");
        }
    }

    /// Text coded over a segment's dictionary hashes as the same text boxed does — so rows
    /// routed by it meet rows of other segments and processes — without being decoded.
    #[test]
    fn segment_text_hashes_as_its_values_undecoded() {
        let dict = crate::code_book::text_dictionary(&["alpha", "b\u{e9}ta", "gamma"]);
        let book = Arc::new(CodeBook::lazy(Arc::new(dict.decoder()), vec![2, 0, 1]));
        // Fewer codes than rows (each code's hash kept once) and more.
        for ids in [vec![0u32, 1, 2, 1, 0, 2, 2], vec![1, 2]] {
            let rows = ids.len();
            let lazy = Column {
                cells: Cells::Coded {
                    ids: ids.clone(),
                    dict: book.clone(),
                },
                data_type: DataType::String,
                nulls: None,
            };
            let hashes = hash_rows(&[&lazy], rows);
            assert!((0..3).all(|c| book.with_stored(c, |_, _| ()).is_some()));
            let texts = ["gamma", "alpha", "b\u{e9}ta"];
            let boxed = Column::from_values(
                DataType::String,
                ids.iter()
                    .map(|&c| Value::String(texts[c as usize].into()))
                    .collect(),
            );
            assert_eq!(hashes, hash_rows(&[&boxed], rows));
        }
    }

    #[test]
    fn numbers_unboxed_nulls_kept_and_taken() {
        let c = Column::from_values(
            DataType::Int,
            vec![Value::Int(1), Value::Null, Value::Int(3)],
        );
        assert!(matches!(c.cells, Cells::I64(_)));
        assert_eq!(c.value(1), Value::Null);
        let t = c.take(&[2, NO_ROW, 0]);
        assert_eq!(
            (0..3).map(|i| t.value(i)).collect::<Vec<_>>(),
            vec![Value::Int(3), Value::Null, Value::Int(1)]
        );
        // 1 (INT) and 1.0 (DOUBLE) are the same key; NULL is none.
        let d = Column::from_values(DataType::Double, vec![Value::Double(1.0)]);
        assert_eq!(c.key(0), d.key(0));
        assert_eq!(c.key(1), None);
    }

    /// Few rows of a big book's codes take a book of their own codes, lazy or decoded as the
    /// old one was, with the same values; rows that keep many share the book.
    #[test]
    fn few_rows_take_a_book_of_their_own() {
        let words: Vec<String> = (0..64).map(|i| format!("w{i:02}")).collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let dict = crate::code_book::text_dictionary(&refs);
        let lazy = Arc::new(CodeBook::lazy(
            Arc::new(dict.decoder()),
            (0..64).rev().collect(),
        ));
        let decoded = Arc::new(CodeBook::from_values(
            words.iter().map(|w| Value::String(w.clone())).collect(),
        ));
        for book in [lazy, decoded] {
            let c = Column {
                cells: Cells::Coded {
                    ids: (0..64).collect(),
                    dict: book.clone(),
                },
                data_type: DataType::String,
                nulls: None,
            };
            let few = c.take_few(&[5, 9, 5]);
            let Cells::Coded { ids, dict } = &few.cells else {
                panic!("coded rows stay coded");
            };
            assert_eq!((ids.clone(), dict.len()), (vec![0, 1, 0], 2));
            assert_eq!(dict.is_decoded(), book.is_decoded());
            let want: Vec<Value> = [5, 9, 5].iter().map(|&r| c.value(r)).collect();
            assert_eq!((0..3).map(|r| few.value(r)).collect::<Vec<_>>(), want);
            let many: Vec<u32> = (0..8).collect();
            let Cells::Coded { dict, .. } = &c.take_few(&many).cells else {
                panic!("coded rows stay coded");
            };
            assert!(Arc::ptr_eq(dict, &book));
        }
    }
}
