//! [`Scalar`]: one cell parsed to the representation its column stores — what pass 1 of a
//! build interns or writes through.

use std::borrow::Cow;

/// A cell parsed to its stored representation.
#[derive(Clone, Debug)]
pub enum Scalar<'a> {
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Bytes(Cow<'a, [u8]>),
}

impl Scalar<'_> {
    /// The same cell, owning its bytes.
    pub fn into_owned(self) -> Scalar<'static> {
        match self {
            Scalar::I32(v) => Scalar::I32(v),
            Scalar::I64(v) => Scalar::I64(v),
            Scalar::F32(v) => Scalar::F32(v),
            Scalar::F64(v) => Scalar::F64(v),
            Scalar::Bytes(b) => Scalar::Bytes(Cow::Owned(b.into_owned())),
        }
    }
}
