//! The byte layout all sketches share: a 4-byte magic tag, a format version byte, then
//! little-endian fixed-width fields. [`Reader`] checks every bound and reports a
//! [`SketchError::Corrupt`] instead of panicking.

use super::error::SketchError;

/// The format version every sketch writes today.
pub(crate) const VERSION: u8 = 1;

/// Appends fields to a byte buffer.
pub(crate) struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    pub(crate) fn new(magic: &[u8; 4], capacity: usize) -> Writer {
        let mut bytes = Vec::with_capacity(capacity + 5);
        bytes.extend_from_slice(magic);
        bytes.push(VERSION);
        Writer { bytes }
    }

    pub(crate) fn u8(&mut self, v: u8) -> &mut Writer {
        self.bytes.push(v);
        self
    }

    pub(crate) fn u32(&mut self, v: u32) -> &mut Writer {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub(crate) fn u64(&mut self, v: u64) -> &mut Writer {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub(crate) fn i64(&mut self, v: i64) -> &mut Writer {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub(crate) fn f64(&mut self, v: f64) -> &mut Writer {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub(crate) fn raw(&mut self, v: &[u8]) -> &mut Writer {
        self.bytes.extend_from_slice(v);
        self
    }

    pub(crate) fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.bytes)
    }
}

/// Reads fields back, checking bounds.
pub(crate) struct Reader<'a> {
    sketch: &'static str,
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Checks the magic tag and version.
    pub(crate) fn new(
        sketch: &'static str,
        magic: &[u8; 4],
        bytes: &'a [u8],
    ) -> Result<Reader<'a>, SketchError> {
        let mut reader = Reader { sketch, bytes };
        if reader.take(4)? != magic {
            return Err(SketchError::corrupt(sketch, "wrong magic tag"));
        }
        let version = reader.u8()?;
        if version != VERSION {
            return Err(SketchError::corrupt(
                sketch,
                format!("unsupported format version {version}"),
            ));
        }
        Ok(reader)
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], SketchError> {
        if self.bytes.len() < n {
            return Err(SketchError::corrupt(self.sketch, "truncated"));
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], SketchError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, SketchError> {
        Ok(self.array::<1>()?[0])
    }

    pub(crate) fn u32(&mut self) -> Result<u32, SketchError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, SketchError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    pub(crate) fn i64(&mut self) -> Result<i64, SketchError> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    pub(crate) fn f64(&mut self) -> Result<f64, SketchError> {
        Ok(f64::from_le_bytes(self.array()?))
    }

    /// Bytes not read yet.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len()
    }

    /// Fails unless every byte was read.
    pub(crate) fn finish(self) -> Result<(), SketchError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(SketchError::corrupt(
                self.sketch,
                format!("{} trailing bytes", self.bytes.len()),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_and_bounds_are_checked() {
        let bytes = Writer::new(b"TEST", 16)
            .u8(7)
            .u32(9)
            .u64(u64::MAX)
            .i64(-3)
            .f64(1.5)
            .raw(&[1, 2])
            .finish();
        let mut r = Reader::new("test", b"TEST", &bytes).unwrap();
        assert_eq!(r.u8().unwrap(), 7);
        assert_eq!(r.u32().unwrap(), 9);
        assert_eq!(r.u64().unwrap(), u64::MAX);
        assert_eq!(r.i64().unwrap(), -3);
        assert_eq!(r.f64().unwrap(), 1.5);
        assert_eq!(r.remaining(), 2);
        assert_eq!(r.take(2).unwrap(), &[1, 2]);
        assert!(r.u8().is_err());
        r.finish().unwrap();
        assert!(Reader::new("test", b"NOPE", &bytes).is_err());
        assert!(Reader::new("test", b"TEST", &bytes[..3]).is_err());
        let mut wrong_version = bytes.clone();
        wrong_version[4] = 99;
        assert!(Reader::new("test", b"TEST", &wrong_version).is_err());
        let mut r = Reader::new("test", b"TEST", &bytes).unwrap();
        r.u8().unwrap();
        assert!(r.finish().is_err());
    }
}
