//! Shared byte regions over a memory map ([`Bytes`]), zero-copy typed views of them
//! ([`TypedSlice`]) and a bounds-checked cursor for parsing headers ([`ByteReader`]).
//!
//! Every reader in the crate holds `Bytes` (an `Arc` of the map plus a range), so a segment's
//! columns can be handed out freely while the map stays alive. Nothing here trusts an offset read
//! from disk: `ByteReader` returns an error instead of slicing out of bounds.

use crate::native::NativeType;
use memmap2::Mmap;
use std::ops::Deref;
use std::sync::Arc;

#[derive(Clone, Debug)]
enum Owner {
    Map(Arc<Mmap>),
    Heap(Arc<Vec<u8>>),
}

impl Owner {
    fn all(&self) -> &[u8] {
        match self {
            Owner::Map(m) => m,
            Owner::Heap(v) => v,
        }
    }
}

/// A cheaply clonable byte range of a memory map (or of a heap buffer).
#[derive(Clone, Debug)]
pub struct Bytes {
    owner: Owner,
    start: usize,
    len: usize,
}

impl Bytes {
    /// The whole map.
    pub fn from_mmap(map: Arc<Mmap>) -> Bytes {
        let len = map.len();
        Bytes {
            owner: Owner::Map(map),
            start: 0,
            len,
        }
    }

    /// A heap buffer (tests, misaligned fallbacks).
    pub fn from_vec(v: Vec<u8>) -> Bytes {
        let len = v.len();
        Bytes {
            owner: Owner::Heap(Arc::new(v)),
            start: 0,
            len,
        }
    }

    /// The sub-range `start..start + len`, or `None` if it is out of bounds.
    pub fn slice(&self, start: usize, len: usize) -> Option<Bytes> {
        let end = start.checked_add(len)?;
        (end <= self.len).then(|| Bytes {
            owner: self.owner.clone(),
            start: self.start + start,
            len,
        })
    }

    /// Splits into a prefix of `at` bytes and the rest; `None` if `at` is out of bounds.
    pub fn split_at(&self, at: usize) -> Option<(Bytes, Bytes)> {
        Some((
            self.slice(0, at)?,
            self.slice(at, self.len.checked_sub(at)?)?,
        ))
    }
}

impl Deref for Bytes {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        &self.owner.all()[self.start..self.start + self.len]
    }
}

/// A `&[T]` view of little-endian bytes: zero-copy when the bytes are aligned for `T`
/// (always the case for entries of a memory-mapped data file), else a copy.
#[derive(Clone, Debug)]
pub enum TypedSlice<T: NativeType> {
    /// Aligned bytes viewed in place.
    Mapped(Bytes),
    /// Decoded copy (misaligned source).
    Owned(Arc<Vec<T>>),
}

impl<T: NativeType> TypedSlice<T> {
    /// Views `bytes` (whose length must be a multiple of the width) as `T`s.
    pub fn new(bytes: Bytes) -> Result<TypedSlice<T>, String> {
        if !bytes.len().is_multiple_of(T::WIDTH) {
            return Err(format!(
                "array of {} bytes is not a multiple of {}",
                bytes.len(),
                T::WIDTH
            ));
        }
        // SAFETY: `T` is one of i32/i64/f32/f64, for which every bit pattern is valid.
        let (prefix, _, suffix) = unsafe { bytes.align_to::<T>() };
        if prefix.is_empty() && suffix.is_empty() {
            Ok(TypedSlice::Mapped(bytes))
        } else {
            let v = bytes.chunks_exact(T::WIDTH).map(T::from_le_slice).collect();
            Ok(TypedSlice::Owned(Arc::new(v)))
        }
    }

    /// Whether the view is zero-copy.
    pub fn is_zero_copy(&self) -> bool {
        matches!(self, TypedSlice::Mapped(_))
    }

    /// The values.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        match self {
            // SAFETY: alignment and length were checked in `new`; every bit pattern is valid.
            TypedSlice::Mapped(b) => unsafe { b.align_to::<T>().1 },
            TypedSlice::Owned(v) => v,
        }
    }
}

/// A bounds-checked little-endian cursor over bytes read from disk. Errors are reasons
/// (strings) that the caller wraps with the file name.
#[derive(Clone, Debug)]
pub struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    /// A cursor at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> ByteReader<'a> {
        ByteReader { bytes, pos: 0 }
    }

    /// Current offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.remaining() {
            return Err(format!(
                "needs {n} bytes at offset {} but only {} remain",
                self.pos,
                self.remaining()
            ));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Skips padding up to the next multiple of `align`.
    pub fn align(&mut self, align: usize) -> Result<(), String> {
        let pad = (align - self.pos % align) % align;
        self.take(pad).map(|_| ())
    }

    pub fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    pub fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self) -> Result<u64, String> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A `u64` that must fit in `usize` and be at most `max` (a length or count read from disk).
    pub fn len_at_most(&mut self, max: usize, what: &str) -> Result<usize, String> {
        let v = self.u64()?;
        usize::try_from(v)
            .ok()
            .filter(|&n| n <= max)
            .ok_or_else(|| format!("{what} {v} exceeds the limit {max}"))
    }
}

/// Appends zero bytes until `buf.len()` is a multiple of `align`.
pub fn pad_to(buf: &mut Vec<u8>, align: usize) {
    let pad = (align - buf.len() % align) % align;
    buf.resize(buf.len() + pad, 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_slices_copy_when_misaligned() {
        let mut raw = vec![0u8; 1];
        for v in [1i64, -2, 3] {
            raw.extend_from_slice(&v.to_le_bytes());
        }
        let all = Bytes::from_vec(raw);
        // Heap vectors are at least 8-aligned in practice; offset 1 is misaligned for i64.
        let s = TypedSlice::<i64>::new(all.slice(1, 24).unwrap()).unwrap();
        assert_eq!(s.as_slice(), &[1, -2, 3]);
        assert!(TypedSlice::<i64>::new(all.slice(1, 23).unwrap()).is_err());
    }

    #[test]
    fn reader_is_bounds_checked() {
        let data = [1u8, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0];
        let mut r = ByteReader::new(&data);
        assert_eq!(r.u32().unwrap(), 1);
        assert_eq!(r.len_at_most(10, "count").unwrap(), 2);
        assert!(r.u8().is_err());
        let mut r = ByteReader::new(&data[..7]);
        r.u32().unwrap();
        assert!(r.u32().unwrap_err().contains("needs 4 bytes"));
        let mut r = ByteReader::new(&data);
        r.u32().unwrap();
        assert!(r.len_at_most(1, "count").unwrap_err().contains("count 2"));
        let b = Bytes::from_vec(data.to_vec());
        assert!(b.slice(8, 5).is_none());
        assert!(b.slice(usize::MAX, 2).is_none());
        assert_eq!(&*b.slice(4, 1).unwrap(), &[2]);
    }
}
