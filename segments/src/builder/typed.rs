//! One dictionary column's values during pass 1, generic over the stored type: the distinct
//! values seen so far (the interner that gives each its provisional id) and the single values
//! parsed but not interned yet, which are interned a batch at a time.
//!
//! A [`Typed<K>`] keeps both halves of one stored type together, so the batch and the interner
//! cannot disagree about what they hold; [`Distinct`] names which type a column stores (or that
//! it is raw, with no dictionary). The collector reaches the typed values through the
//! [`Values`] operations whatever their type, and through the typed batch itself on its fast
//! paths (a run of parsed integers goes straight into the `Vec<i32>`).
//!
//! The same code serves the batch build and a consuming segment's chunks: both fill columns
//! through [`super::collector::ColumnCollector`].

use super::interner::{NumInterner, VarInterner};
use super::scalar::Scalar;

/// A stored type a dictionary column interns: its interner, and how parsed values wait.
pub trait Kind {
    /// Distinct values and their provisional ids.
    type Interner: Default;
    /// Parsed values waiting to be interned.
    type Batch: Default;
    /// How many values wait.
    fn waiting(batch: &Self::Batch) -> usize;
    /// Appends `s` if it is a value of this type.
    fn push(batch: &mut Self::Batch, s: &Scalar<'_>) -> bool;
    /// Interns the waiting values (their ids appended to `ids`) and empties the batch.
    fn intern_batch(
        interner: &mut Self::Interner,
        batch: &mut Self::Batch,
        hashes: &mut Vec<u64>,
        ids: &mut Vec<u32>,
    );
    /// The provisional id of `s`, if it is a value of this type.
    fn intern(interner: &mut Self::Interner, s: &Scalar<'_>) -> Option<u32>;
}

macro_rules! numeric_kind {
    ($t:ty, $variant:ident) => {
        impl Kind for $t {
            type Interner = NumInterner<$t>;
            type Batch = Vec<$t>;
            #[inline]
            fn waiting(batch: &Vec<$t>) -> usize {
                batch.len()
            }
            #[inline]
            fn push(batch: &mut Vec<$t>, s: &Scalar<'_>) -> bool {
                match s {
                    Scalar::$variant(v) => {
                        batch.push(*v);
                        true
                    }
                    _ => false,
                }
            }
            fn intern_batch(
                interner: &mut NumInterner<$t>,
                batch: &mut Vec<$t>,
                hashes: &mut Vec<u64>,
                ids: &mut Vec<u32>,
            ) {
                interner.intern_batch(batch, hashes, ids);
                batch.clear();
            }
            #[inline]
            fn intern(interner: &mut NumInterner<$t>, s: &Scalar<'_>) -> Option<u32> {
                match s {
                    Scalar::$variant(v) => Some(interner.intern(*v)),
                    _ => None,
                }
            }
        }
    };
}

numeric_kind!(i32, I32);
numeric_kind!(i64, I64);
numeric_kind!(f32, F32);
numeric_kind!(f64, F64);

/// Var-width values (STRING, JSON, MAP, BIG_DECIMAL, BYTES), as bytes.
pub struct Var;

/// Var-width values waiting: their bytes end to end, and where each ends.
#[derive(Default)]
pub struct VarBatch {
    pub data: Vec<u8>,
    pub ends: Vec<usize>,
}

impl VarBatch {
    /// Appends one value's bytes.
    #[inline]
    pub fn push(&mut self, b: &[u8]) {
        self.data.extend_from_slice(b);
        self.ends.push(self.data.len());
    }
}

impl Kind for Var {
    type Interner = VarInterner;
    type Batch = VarBatch;
    #[inline]
    fn waiting(batch: &VarBatch) -> usize {
        batch.ends.len()
    }
    #[inline]
    fn push(batch: &mut VarBatch, s: &Scalar<'_>) -> bool {
        match s {
            Scalar::Bytes(b) => {
                batch.push(b);
                true
            }
            _ => false,
        }
    }
    fn intern_batch(
        interner: &mut VarInterner,
        batch: &mut VarBatch,
        hashes: &mut Vec<u64>,
        ids: &mut Vec<u32>,
    ) {
        interner.intern_batch(&batch.data, &batch.ends, hashes, ids);
        batch.data.clear();
        batch.ends.clear();
    }
    #[inline]
    fn intern(interner: &mut VarInterner, s: &Scalar<'_>) -> Option<u32> {
        match s {
            Scalar::Bytes(b) => Some(interner.intern(b)),
            _ => None,
        }
    }
}

/// A dictionary column's distinct values and waiting values, of stored type `K`.
pub struct Typed<K: Kind> {
    pub interner: K::Interner,
    /// Single values parsed and not interned yet (multi-value cells are interned at once).
    pub pending: K::Batch,
}

impl<K: Kind> Default for Typed<K> {
    fn default() -> Typed<K> {
        Typed {
            interner: K::Interner::default(),
            pending: K::Batch::default(),
        }
    }
}

/// What the collector does with a dictionary column's values whatever their type.
pub trait Values {
    /// How many values wait to be interned.
    fn waiting(&self) -> usize;
    /// Appends a parsed single value to the batch; `false` if `s` is not of this type.
    fn push(&mut self, s: &Scalar<'_>) -> bool;
    /// Interns the batch, appending the ids to `ids`.
    fn intern_batch(&mut self, hashes: &mut Vec<u64>, ids: &mut Vec<u32>);
    /// The provisional id of one value (`None` if `s` is not of this type).
    fn intern(&mut self, s: &Scalar<'_>) -> Option<u32>;
}

impl<K: Kind> Values for Typed<K> {
    #[inline]
    fn waiting(&self) -> usize {
        K::waiting(&self.pending)
    }
    #[inline]
    fn push(&mut self, s: &Scalar<'_>) -> bool {
        K::push(&mut self.pending, s)
    }
    fn intern_batch(&mut self, hashes: &mut Vec<u64>, ids: &mut Vec<u32>) {
        K::intern_batch(&mut self.interner, &mut self.pending, hashes, ids);
    }
    #[inline]
    fn intern(&mut self, s: &Scalar<'_>) -> Option<u32> {
        K::intern(&mut self.interner, s)
    }
}

/// A column's values by stored type — or none kept (a raw column writes values through).
pub enum Distinct {
    Int(Typed<i32>),
    Long(Typed<i64>),
    Float(Typed<f32>),
    Double(Typed<f64>),
    Var(Typed<Var>),
    Raw,
}

impl Distinct {
    /// The pending INTs of an INT dictionary column (and likewise below): where a fast path
    /// puts the values it parsed.
    pub fn ints(&mut self) -> Option<&mut Vec<i32>> {
        match self {
            Distinct::Int(t) => Some(&mut t.pending),
            _ => None,
        }
    }

    pub fn longs(&mut self) -> Option<&mut Vec<i64>> {
        match self {
            Distinct::Long(t) => Some(&mut t.pending),
            _ => None,
        }
    }

    pub fn floats(&mut self) -> Option<&mut Vec<f32>> {
        match self {
            Distinct::Float(t) => Some(&mut t.pending),
            _ => None,
        }
    }

    pub fn doubles(&mut self) -> Option<&mut Vec<f64>> {
        match self {
            Distinct::Double(t) => Some(&mut t.pending),
            _ => None,
        }
    }

    /// The typed values of a dictionary column; `None` for a raw one.
    #[inline]
    pub fn values(&mut self) -> Option<&mut dyn Values> {
        Some(match self {
            Distinct::Int(t) => t,
            Distinct::Long(t) => t,
            Distinct::Float(t) => t,
            Distinct::Double(t) => t,
            Distinct::Var(t) => t,
            Distinct::Raw => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn batches_and_single_values_share_one_interner() {
        let mut d = Distinct::Long(Typed::default());
        let v = d.values().unwrap();
        assert!(v.push(&Scalar::I64(7)));
        assert!(v.push(&Scalar::I64(9)));
        assert!(
            !v.push(&Scalar::I32(1)),
            "an INT is not a LONG column's value"
        );
        assert_eq!(v.waiting(), 2);
        let mut ids = Vec::new();
        v.intern_batch(&mut Vec::new(), &mut ids);
        assert_eq!((ids, v.waiting()), (vec![0, 1], 0));
        assert_eq!(v.intern(&Scalar::I64(9)), Some(1));
        assert_eq!(v.intern(&Scalar::Bytes(Cow::Borrowed(b"x"))), None);

        let mut s = Distinct::Var(Typed::default());
        let v = s.values().unwrap();
        assert!(v.push(&Scalar::Bytes(Cow::Borrowed(b"ab"))));
        assert_eq!(v.intern(&Scalar::Bytes(Cow::Borrowed(b"c"))), Some(0));
        let mut ids = Vec::new();
        v.intern_batch(&mut Vec::new(), &mut ids);
        assert_eq!(ids, vec![1]);
        assert!(Distinct::Raw.values().is_none());
    }
}
