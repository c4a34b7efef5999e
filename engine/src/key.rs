//! [`Key`]: a [`Value`] usable in hash sets and maps (group keys, DISTINCT rows, exact
//! distinct counts). Floats compare by bit pattern (as Java's `Double.equals` does), so
//! `NaN` equals itself and every key hashes consistently with its equality.

use segments::types::Value;
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};

/// A hashable value.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Key(pub Value);

/// A set of keys, hashed with hashbrown's default (foldhash) rather than std's SipHash: an
/// exact distinct count inserts every value of its argument.
pub type KeySet = hashbrown::HashSet<Key>;

/// Whether two values are the same key (floats by bit pattern).
pub fn same(a: &Value, b: &Value) -> bool {
    use Value::*;
    match (a, b) {
        (Float(x), Float(y)) => x.to_bits() == y.to_bits(),
        (Double(x), Double(y)) => x.to_bits() == y.to_bits(),
        (Array(x), Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        _ => a == b,
    }
}

fn hash<H: Hasher>(v: &Value, h: &mut H) {
    std::mem::discriminant(v).hash(h);
    match v {
        Value::Null => {}
        Value::Int(x) => x.hash(h),
        Value::Long(x) | Value::Timestamp(x) => x.hash(h),
        Value::Float(x) => x.to_bits().hash(h),
        Value::Double(x) => x.to_bits().hash(h),
        Value::BigDecimal(s) | Value::String(s) | Value::Json(s) | Value::Map(s) => s.hash(h),
        Value::Boolean(b) => b.hash(h),
        Value::Bytes(b) => b.hash(h),
        Value::Array(items) => {
            items.len().hash(h);
            for i in items {
                hash(i, h);
            }
        }
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        same(&self.0, &other.0)
    }
}

impl Eq for Key {}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash(&self.0, state)
    }
}

/// The hash of a row, consistent with [`RowKey`]'s equality, from `state`'s hasher.
pub fn hash_row(row: &[Value], state: &impl std::hash::BuildHasher) -> u64 {
    let mut h = state.build_hasher();
    row.len().hash(&mut h);
    for v in row {
        hash(v, &mut h);
    }
    h.finish()
}

/// Whether two rows are equal as [`RowKey`]s.
pub fn rows_eq(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}

/// A row of values usable as a hash key (group-by keys, DISTINCT rows).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RowKey(pub Vec<Value>);

impl PartialEq for RowKey {
    fn eq(&self, other: &RowKey) -> bool {
        rows_eq(&self.0, &other.0)
    }
}

impl Eq for RowKey {}

impl Hash for RowKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.len().hash(state);
        for v in &self.0 {
            hash(v, state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn floats_by_bits_and_rows() {
        let mut s = HashSet::new();
        assert!(s.insert(Key(Value::Double(f64::NAN))));
        assert!(!s.insert(Key(Value::Double(f64::NAN))));
        assert!(s.insert(Key(Value::Double(1.0))));
        assert!(s.insert(Key(Value::Int(1))));
        assert!(!s.insert(Key(Value::Int(1))));
        let mut rows = HashSet::new();
        assert!(rows.insert(RowKey(vec![Value::String("a".into()), Value::Long(1)])));
        assert!(!rows.insert(RowKey(vec![Value::String("a".into()), Value::Long(1)])));
        assert!(rows.insert(RowKey(vec![Value::String("a".into()), Value::Long(2)])));
    }
}
