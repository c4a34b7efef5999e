//! [`NativeType`]: the sealed set of fixed-width primitives a column can be stored as
//! (`i32`, `i64`, `f32`, `f64`), and [`with_native_type!`], the one dispatch macro that turns a
//! runtime [`StoredType`] into a monomorphised call.
//!
//! Typed code (dictionaries, raw chunks, engine kernels) is written once, generic over
//! `T: NativeType`, and reached from a column's data type through the macro:
//!
//! ```
//! use tessera_segments::{native::NativeType, with_native_type, types::StoredType};
//! fn width(t: StoredType) -> Option<usize> {
//!     with_native_type!(t, T => Some(T::WIDTH), _ => None)
//! }
//! assert_eq!(width(StoredType::Long), Some(8));
//! assert_eq!(width(StoredType::String), None);
//! ```

use crate::types::{DataType, StoredType, Value};
use std::cmp::Ordering;

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// SQL's comparison of two doubles: equal when `==` says so (a negative zero equals zero),
/// else their total order (NaN above every number, as in dictionaries).
#[inline]
pub fn sql_cmp_f64(a: f64, b: f64) -> Ordering {
    if a == b {
        Ordering::Equal
    } else {
        a.total_cmp(&b)
    }
}

/// A fixed-width primitive column storage type. Every bit pattern is a valid value, so a
/// little-endian byte slice of the right alignment can be viewed as `&[T]` without copying.
pub trait NativeType:
    sealed::Sealed + Copy + PartialOrd + Send + Sync + std::fmt::Debug + Default + 'static
{
    /// The stored type this primitive represents.
    const STORED: StoredType;
    /// Bytes per value.
    const WIDTH: usize;
    /// Whether the type is an integer.
    const INTEGRAL: bool;
    /// Reads one value from exactly `WIDTH` little-endian bytes.
    fn from_le_slice(b: &[u8]) -> Self;
    /// Appends the little-endian bytes of `self`.
    fn write_le(self, out: &mut Vec<u8>);
    /// Numeric view.
    fn to_f64(self) -> f64;
    /// Integer view (floats truncate).
    fn to_i64(self) -> i64;
    /// A total order (floats by `total_cmp`), matching dictionary order.
    fn total_cmp(&self, other: &Self) -> Ordering;
    /// SQL's comparison: the total order, except that a negative zero equals zero (dictionaries
    /// keep both, adjacent; a predicate must not tell them apart).
    #[inline]
    fn sql_cmp(&self, other: &Self) -> Ordering {
        if Self::INTEGRAL {
            self.total_cmp(other)
        } else {
            sql_cmp_f64(self.to_f64(), other.to_f64())
        }
    }
    /// The nearest value to `f` (saturating for integers; NaN becomes 0 for integers).
    fn from_f64(f: f64) -> Self;
    /// The bit pattern widened to `u64` (for hashing and equality of floats).
    fn to_bits64(self) -> u64;
    /// The inverse of [`NativeType::to_bits64`].
    fn from_bits64(bits: u64) -> Self;
    /// An order-preserving map to `u64`: `a < b` (total order) iff `key(a) < key(b)`.
    fn order_key(self) -> u64;
    /// The typed value of logical type `data_type` (BOOLEAN and TIMESTAMP come from ints/longs).
    fn to_value(self, data_type: DataType) -> Value;
    /// The native value of a [`Value`] of the matching stored type; `None` otherwise.
    fn from_value(v: &Value) -> Option<Self>;
}

macro_rules! impl_integral {
    ($t:ty, $stored:expr, $unsigned:ty) => {
        impl NativeType for $t {
            const STORED: StoredType = $stored;
            const WIDTH: usize = std::mem::size_of::<$t>();
            const INTEGRAL: bool = true;
            #[inline]
            fn from_le_slice(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..std::mem::size_of::<$t>()]);
                <$t>::from_le_bytes(a)
            }
            #[inline]
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline]
            fn from_f64(f: f64) -> Self {
                f as $t
            }
            #[inline]
            fn total_cmp(&self, other: &Self) -> Ordering {
                self.cmp(other)
            }
            #[inline]
            fn to_bits64(self) -> u64 {
                self as $unsigned as u64
            }
            #[inline]
            fn from_bits64(bits: u64) -> Self {
                bits as $unsigned as $t
            }
            #[inline]
            fn order_key(self) -> u64 {
                (self as i64 as u64) ^ (1u64 << 63)
            }
            fn to_value(self, data_type: DataType) -> Value {
                match data_type {
                    DataType::Boolean => Value::Boolean(self != 0),
                    DataType::Timestamp => Value::Timestamp(self as i64),
                    _ => Self::plain_value(self),
                }
            }
            fn from_value(v: &Value) -> Option<Self> {
                match v {
                    Value::Boolean(b) => Some(*b as $t),
                    _ => v.as_i64().and_then(|i| <$t>::try_from(i).ok()),
                }
            }
        }
    };
}

macro_rules! impl_float {
    ($t:ty, $stored:expr, $bits:ty) => {
        impl NativeType for $t {
            const STORED: StoredType = $stored;
            const WIDTH: usize = std::mem::size_of::<$t>();
            const INTEGRAL: bool = false;
            #[inline]
            fn from_le_slice(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..std::mem::size_of::<$t>()]);
                <$t>::from_le_bytes(a)
            }
            #[inline]
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline]
            fn from_f64(f: f64) -> Self {
                f as $t
            }
            #[inline]
            fn total_cmp(&self, other: &Self) -> Ordering {
                <$t>::total_cmp(self, other)
            }
            #[inline]
            fn to_bits64(self) -> u64 {
                self.to_bits() as u64
            }
            #[inline]
            fn from_bits64(bits: u64) -> Self {
                <$t>::from_bits(bits as $bits)
            }
            #[inline]
            fn order_key(self) -> u64 {
                // Same transform as `total_cmp`: flip all bits of negatives, the sign bit of
                // positives, then widen keeping order.
                const SIGN: $bits = 1 << (<$bits>::BITS - 1);
                let b = self.to_bits();
                let k = if b & SIGN != 0 { !b } else { b | SIGN };
                k as u64
            }
            fn to_value(self, _data_type: DataType) -> Value {
                Self::plain_value(self)
            }
            fn from_value(v: &Value) -> Option<Self> {
                match v {
                    Value::Float(f) => Some(*f as $t),
                    Value::Double(d) => Some(*d as $t),
                    _ => None,
                }
            }
        }
    };
}

/// The [`Value`] variant of each primitive's own type.
trait PlainValue {
    fn plain_value(self) -> Value;
}
impl PlainValue for i32 {
    fn plain_value(self) -> Value {
        Value::Int(self)
    }
}
impl PlainValue for i64 {
    fn plain_value(self) -> Value {
        Value::Long(self)
    }
}
impl PlainValue for f32 {
    fn plain_value(self) -> Value {
        Value::Float(self)
    }
}
impl PlainValue for f64 {
    fn plain_value(self) -> Value {
        Value::Double(self)
    }
}

impl_integral!(i32, StoredType::Int, u32);
impl_integral!(i64, StoredType::Long, u64);
impl_float!(f32, StoredType::Float, u32);
impl_float!(f64, StoredType::Double, u64);

/// Runs `$body` with `$T` bound to the [`NativeType`] of a runtime [`StoredType`]
/// (`Int → i32`, `Long → i64`, `Float → f32`, `Double → f64`); otherwise runs `$other`.
#[macro_export]
macro_rules! with_native_type {
    ($stored:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $stored {
            $crate::types::StoredType::Int => {
                type $T = i32;
                $body
            }
            $crate::types::StoredType::Long => {
                type $T = i64;
                $body
            }
            $crate::types::StoredType::Float => {
                type $T = f32;
                $body
            }
            $crate::types::StoredType::Double => {
                type $T = f64;
                $body
            }
            _ => $other,
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn keys_preserve_order<T: NativeType>(a: T, b: T) {
        assert_eq!(
            a.total_cmp(&b),
            a.order_key().cmp(&b.order_key()),
            "{a:?} vs {b:?}"
        );
        assert_eq!(T::from_bits64(a.to_bits64()).to_bits64(), a.to_bits64());
        let mut v = Vec::new();
        a.write_le(&mut v);
        assert_eq!(T::from_le_slice(&v).to_bits64(), a.to_bits64());
    }

    proptest! {
        #[test]
        fn order_keys_i32(a: i32, b: i32) { keys_preserve_order(a, b) }
        #[test]
        fn order_keys_i64(a: i64, b: i64) { keys_preserve_order(a, b) }
        #[test]
        fn order_keys_f32(a: f32, b: f32) { keys_preserve_order(a, b) }
        #[test]
        fn order_keys_f64(a: f64, b: f64) { keys_preserve_order(a, b) }
    }

    #[test]
    fn special_floats_order() {
        keys_preserve_order(f64::NEG_INFINITY, -0.0);
        keys_preserve_order(-0.0f64, 0.0);
        keys_preserve_order(f32::MAX, f32::INFINITY);
        assert_eq!(1i32.to_value(DataType::Boolean), Value::Boolean(true));
        assert_eq!(5i64.to_value(DataType::Timestamp), Value::Timestamp(5));
        assert_eq!(i32::from_value(&Value::Long(1 << 40)), None);
    }
}
