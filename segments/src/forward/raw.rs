//! [`RawForward`]: the forward index of a no-dictionary single-value column — values in
//! zstd-compressed chunks of a fixed number of docs, read through a [`RawCursor`] that keeps the
//! last decompressed chunk.
//!
//! Layout: `u32 width` (4 or 8 for fixed-width values, 0 for var-width), `u32 docs_per_chunk`,
//! `u64 docs`, `u64 chunks`, then per chunk `u64 offset` (into the data area), `u32 compressed
//! length`, `u32 raw length`, then the data area. A fixed-width chunk decompresses to
//! little-endian values; a var-width chunk to `n + 1` `u32` end offsets followed by the bytes.

use crate::dictionary::var::bytes_to_value;
use crate::format::{ByteReader, Bytes};
use crate::native::NativeType;
use crate::types::{DataType, DocId, StoredType, Value};
use crate::with_native_type;

/// Target uncompressed chunk size.
const CHUNK_BYTES: usize = 64 * 1024;
/// zstd level for raw chunks.
const ZSTD_LEVEL: i32 = 3;

/// Docs per chunk for fixed-width values of `width` bytes.
fn fixed_docs_per_chunk(width: usize) -> usize {
    CHUNK_BYTES / width
}

/// Docs per chunk for var-width values averaging `avg` bytes: a power of two in 16..=16384.
fn var_docs_per_chunk(avg: usize) -> usize {
    (CHUNK_BYTES / (avg + 4).max(1))
        .clamp(16, 16384)
        .next_power_of_two()
}

struct ChunkWriter {
    header: Vec<u8>,
    table: Vec<u8>,
    data: Vec<u8>,
    compressor: zstd::bulk::Compressor<'static>,
}

impl ChunkWriter {
    fn new(width: u32, docs_per_chunk: usize, docs: usize) -> Result<ChunkWriter, String> {
        let chunks = docs.div_ceil(docs_per_chunk);
        let mut header = Vec::with_capacity(24);
        header.extend_from_slice(&width.to_le_bytes());
        header.extend_from_slice(&(docs_per_chunk as u32).to_le_bytes());
        header.extend_from_slice(&(docs as u64).to_le_bytes());
        header.extend_from_slice(&(chunks as u64).to_le_bytes());
        Ok(ChunkWriter {
            header,
            table: Vec::with_capacity(chunks * 16),
            data: Vec::new(),
            compressor: zstd::bulk::Compressor::new(ZSTD_LEVEL).map_err(|e| e.to_string())?,
        })
    }

    fn chunk(&mut self, raw: &[u8]) -> Result<(), String> {
        let c = self.compressor.compress(raw).map_err(|e| e.to_string())?;
        let raw_len = u32::try_from(raw.len()).map_err(|_| "chunk too large".to_string())?;
        self.table
            .extend_from_slice(&(self.data.len() as u64).to_le_bytes());
        self.table
            .extend_from_slice(&(c.len() as u32).to_le_bytes());
        self.table.extend_from_slice(&raw_len.to_le_bytes());
        self.data.extend_from_slice(&c);
        Ok(())
    }

    fn finish(mut self) -> Vec<u8> {
        self.header.append(&mut self.table);
        self.header.append(&mut self.data);
        self.header
    }
}

/// Serializes fixed-width values into compressed chunks.
pub fn encode_fixed<T: NativeType>(values: &[T]) -> Result<Vec<u8>, String> {
    let per = fixed_docs_per_chunk(T::WIDTH);
    let mut w = ChunkWriter::new(T::WIDTH as u32, per, values.len())?;
    let mut raw = Vec::with_capacity(CHUNK_BYTES);
    for chunk in values.chunks(per) {
        raw.clear();
        for v in chunk {
            v.write_le(&mut raw);
        }
        w.chunk(&raw)?;
    }
    Ok(w.finish())
}

/// Serializes var-width values (doc `i` is `data[ends[i-1]..ends[i]]`, `ends[-1] = 0`), in doc
/// order `order` (a permutation of doc indexes, or `None` for identity).
pub fn encode_var(data: &[u8], ends: &[u64], order: Option<&[u32]>) -> Result<Vec<u8>, String> {
    let docs = ends.len();
    let avg = data.len().checked_div(docs).unwrap_or(1);
    let per = var_docs_per_chunk(avg);
    let mut w = ChunkWriter::new(0, per, docs)?;
    let mut raw = Vec::with_capacity(CHUNK_BYTES * 2);
    let mut bytes = Vec::with_capacity(CHUNK_BYTES * 2);
    let value = |i: usize| {
        let s = if i == 0 { 0 } else { ends[i - 1] as usize };
        &data[s..ends[i] as usize]
    };
    for start in (0..docs).step_by(per) {
        let end = (start + per).min(docs);
        raw.clear();
        bytes.clear();
        raw.extend_from_slice(&0u32.to_le_bytes());
        for d in start..end {
            let src = order.map_or(d, |o| o[d] as usize);
            bytes.extend_from_slice(value(src));
            let e = u32::try_from(bytes.len()).map_err(|_| "chunk too large".to_string())?;
            raw.extend_from_slice(&e.to_le_bytes());
        }
        raw.extend_from_slice(&bytes);
        w.chunk(&raw)?;
    }
    Ok(w.finish())
}

/// A raw (no-dictionary) single-value forward index.
#[derive(Clone, Debug)]
pub struct RawForward {
    table: Bytes,
    data: Bytes,
    width: usize,
    docs_per_chunk: usize,
    docs: u32,
    data_type: DataType,
}

impl RawForward {
    /// Parses an entry written by [`encode_fixed`] / [`encode_var`], validating the chunk table.
    pub fn from_bytes(bytes: Bytes, data_type: DataType) -> Result<RawForward, String> {
        let mut r = ByteReader::new(&bytes);
        let width = r.u32()? as usize;
        let docs_per_chunk = r.u32()? as usize;
        let docs = r.len_at_most(u32::MAX as usize - 1, "doc count")?;
        let chunks = r.len_at_most(r.remaining() / 16, "chunk count")?;
        let expected_width = if data_type.is_fixed_width() {
            with_native_type!(data_type.stored(), T => T::WIDTH, _ => 0)
        } else {
            0
        };
        if width != expected_width {
            return Err(format!(
                "value width {width} does not match {data_type} ({expected_width})"
            ));
        }
        if docs_per_chunk == 0 || docs.div_ceil(docs_per_chunk) != chunks {
            return Err(format!(
                "{chunks} chunks of {docs_per_chunk} docs cannot hold {docs} docs"
            ));
        }
        let table_at = r.pos();
        r.take(chunks * 16)?;
        let data_at = r.pos();
        let table = bytes
            .slice(table_at, chunks * 16)
            .ok_or("chunk table out of bounds")?;
        let data = bytes
            .slice(data_at, bytes.len() - data_at)
            .ok_or("chunk data out of bounds")?;
        let f = RawForward {
            table,
            data,
            width,
            docs_per_chunk,
            docs: docs as u32,
            data_type,
        };
        for c in 0..chunks {
            let (off, len, raw_len) = f.chunk_entry(c);
            if off.checked_add(len).is_none_or(|e| e > f.data.len()) {
                return Err(format!("chunk {c} at {off}+{len} is out of bounds"));
            }
            let n = f.chunk_docs(c);
            let ok = if width > 0 {
                raw_len == n * width
            } else {
                raw_len >= (n + 1) * 4
            };
            if !ok {
                return Err(format!("chunk {c} has raw length {raw_len} for {n} docs"));
            }
            let declared = zstd::zstd_safe::get_frame_content_size(&f.data[off..off + len]);
            if !matches!(declared, Ok(Some(d)) if d == raw_len as u64) {
                return Err(format!(
                    "chunk {c} frame does not declare its raw length {raw_len}"
                ));
            }
        }
        Ok(f)
    }

    fn chunk_entry(&self, c: usize) -> (usize, usize, usize) {
        let e = &self.table[c * 16..c * 16 + 16];
        let off = u64::from_le_bytes([e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]]);
        let len = u32::from_le_bytes([e[8], e[9], e[10], e[11]]);
        let raw = u32::from_le_bytes([e[12], e[13], e[14], e[15]]);
        (off as usize, len as usize, raw as usize)
    }

    fn chunk_docs(&self, c: usize) -> usize {
        let start = c * self.docs_per_chunk;
        (self.docs as usize - start).min(self.docs_per_chunk)
    }

    /// Number of docs.
    pub fn len(&self) -> u32 {
        self.docs
    }

    /// Whether there are no docs.
    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// The column's logical data type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// Docs per compressed chunk.
    pub fn docs_per_chunk(&self) -> u32 {
        self.docs_per_chunk as u32
    }

    /// A reading cursor (one per thread / operator).
    pub fn cursor(&self) -> RawCursor<'_> {
        RawCursor {
            fwd: self,
            chunk: usize::MAX,
            buf: Vec::new(),
            decompressor: None,
        }
    }
}

/// Reads a [`RawForward`], caching the most recently decompressed chunk.
pub struct RawCursor<'a> {
    fwd: &'a RawForward,
    chunk: usize,
    buf: Vec<u8>,
    decompressor: Option<zstd::bulk::Decompressor<'static>>,
}

impl<'a> RawCursor<'a> {
    /// Makes chunk `c` current. On a decompression failure (impossible for a checksummed file
    /// unless it changed under the map) the chunk reads as zeros / empty values.
    fn load(&mut self, c: usize) {
        if self.chunk == c {
            return;
        }
        let (off, len, raw_len) = self.fwd.chunk_entry(c);
        self.buf.clear();
        self.buf.reserve(raw_len);
        if self.decompressor.is_none() {
            self.decompressor = zstd::bulk::Decompressor::new().ok();
        }
        let ok = match &mut self.decompressor {
            Some(d) => d
                .decompress_to_buffer(&self.fwd.data[off..off + len], &mut self.buf)
                .is_ok_and(|n| n == raw_len),
            None => false,
        };
        if !ok {
            // Fixed-width: zeros; var-width: an all-zero offset table, i.e. empty values.
            let n = self.fwd.chunk_docs(c);
            self.buf.clear();
            self.buf.resize(
                if self.fwd.width > 0 {
                    n * self.fwd.width
                } else {
                    (n + 1) * 4
                },
                0,
            );
        }
        self.chunk = c;
    }

    #[inline]
    fn locate(&mut self, doc: DocId) -> usize {
        assert!(
            doc < self.fwd.docs,
            "doc {doc} out of range {}",
            self.fwd.docs
        );
        let c = doc as usize / self.fwd.docs_per_chunk;
        self.load(c);
        doc as usize - c * self.fwd.docs_per_chunk
    }

    /// The stored bytes of `doc`: its little-endian value for fixed-width columns, its value
    /// bytes (UTF-8 for text) for var-width ones.
    pub fn bytes(&mut self, doc: DocId) -> &[u8] {
        let i = self.locate(doc);
        let w = self.fwd.width;
        if w > 0 {
            return self.buf.get(i * w..i * w + w).unwrap_or(&[]);
        }
        let end = |k: usize| -> Option<usize> {
            let b = self.buf.get(k * 4..k * 4 + 4)?;
            Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        };
        let n = self.fwd.chunk_docs(self.chunk);
        let base = (n + 1) * 4;
        match (end(i), end(i + 1)) {
            (Some(s), Some(e)) => self.buf.get(base + s..base + e).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The value of `doc`, typed per the column's logical type.
    pub fn value(&mut self, doc: DocId) -> Value {
        let dt = self.fwd.data_type;
        let b = self.bytes(doc);
        with_native_type!(dt.stored(), T => {
            if b.len() == T::WIDTH { T::from_le_slice(b).to_value(dt) } else { Value::Null }
        }, _ => bytes_to_value(dt, b))
    }

    /// Numeric value of `doc` (decimals parsed; NaN for non-numeric columns).
    pub fn f64(&mut self, doc: DocId) -> f64 {
        let dt = self.fwd.data_type;
        let b = self.bytes(doc);
        with_native_type!(dt.stored(), T => {
            if b.len() == T::WIDTH { T::from_le_slice(b).to_f64() } else { 0.0 }
        }, _ => if dt.stored() == StoredType::BigDecimal {
            std::str::from_utf8(b).ok().and_then(|s| s.parse().ok()).unwrap_or(f64::NAN)
        } else {
            f64::NAN
        })
    }

    /// Integer value of `doc` (floats truncate; 0 for var-width columns).
    pub fn i64(&mut self, doc: DocId) -> i64 {
        let dt = self.fwd.data_type;
        let b = self.bytes(doc);
        with_native_type!(dt.stored(), T => {
            if b.len() == T::WIDTH { T::from_le_slice(b).to_i64() } else { 0 }
        }, _ => 0)
    }

    fn read_fixed<T: NativeType, O>(&mut self, start: DocId, out: &mut [O], f: impl Fn(T) -> O) {
        let end = (start as usize).checked_add(out.len());
        assert!(
            end.is_some_and(|e| e <= self.fwd.docs as usize),
            "range out of bounds"
        );
        let mut doc = start as usize;
        let mut i = 0;
        while i < out.len() {
            let first = self.locate(doc as DocId);
            let n = (self.fwd.chunk_docs(self.chunk) - first).min(out.len() - i);
            let src = &self.buf[first * T::WIDTH..(first + n) * T::WIDTH];
            for (o, b) in out[i..i + n].iter_mut().zip(src.chunks_exact(T::WIDTH)) {
                *o = f(T::from_le_slice(b));
            }
            i += n;
            doc += n;
        }
    }

    /// Numeric values of docs `start .. start + out.len()`.
    pub fn read_f64_range(&mut self, start: DocId, out: &mut [f64]) {
        let dt = self.fwd.data_type;
        with_native_type!(dt.stored(), T => self.read_fixed::<T, f64>(start, out, |v| v.to_f64()), _ => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = self.f64(start + i as DocId);
            }
        })
    }

    /// Integer values of docs `start .. start + out.len()`.
    pub fn read_i64_range(&mut self, start: DocId, out: &mut [i64]) {
        let dt = self.fwd.data_type;
        with_native_type!(dt.stored(), T => self.read_fixed::<T, i64>(start, out, |v| v.to_i64()), _ => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = self.i64(start + i as DocId);
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fixed<T: NativeType>(vals: &[T], dt: DataType) -> RawForward {
        RawForward::from_bytes(Bytes::from_vec(encode_fixed(vals).unwrap()), dt).unwrap()
    }

    proptest! {
        #[test]
        fn fixed_i64_round_trip(vals in proptest::collection::vec(any::<i64>(), 0..20_000), s: usize) {
            let f = fixed(&vals, DataType::Long);
            let mut c = f.cursor();
            for (i, v) in vals.iter().enumerate().step_by(7) {
                prop_assert_eq!(c.i64(i as u32), *v);
                prop_assert_eq!(c.value(i as u32), Value::Long(*v));
            }
            let mut out = vec![0i64; vals.len()];
            c.read_i64_range(0, &mut out);
            prop_assert_eq!(&out, &vals);
            if !vals.is_empty() {
                let s = s % vals.len();
                let mut part = vec![0f64; vals.len() - s];
                c.read_f64_range(s as u32, &mut part);
                for (p, v) in part.iter().zip(&vals[s..]) { prop_assert_eq!(*p, *v as f64); }
            }
        }

        #[test]
        fn fixed_f32_round_trip(vals in proptest::collection::vec(any::<f32>(), 0..40_000)) {
            let f = fixed(&vals, DataType::Float);
            let mut c = f.cursor();
            let mut out = vec![0f64; vals.len()];
            c.read_f64_range(0, &mut out);
            for (o, v) in out.iter().zip(&vals) { prop_assert_eq!(o.to_bits(), (*v as f64).to_bits()); }
        }

        #[test]
        fn fixed_i32_and_f64(ints in proptest::collection::vec(any::<i32>(), 0..3000), dbl in proptest::collection::vec(any::<f64>(), 0..3000)) {
            let f = fixed(&ints, DataType::Int);
            let mut c = f.cursor();
            for (i, v) in ints.iter().enumerate().rev() { prop_assert_eq!(c.value(i as u32), Value::Int(*v)); }
            let f = fixed(&dbl, DataType::Double);
            let mut c = f.cursor();
            for (i, v) in dbl.iter().enumerate() { prop_assert_eq!(c.f64(i as u32).to_bits(), v.to_bits()); }
        }

        #[test]
        fn var_round_trip(vals in proptest::collection::vec(".{0,40}", 0..3000), rev: bool) {
            let mut data = Vec::new();
            let mut ends = Vec::new();
            for v in &vals { data.extend_from_slice(v.as_bytes()); ends.push(data.len() as u64); }
            let order: Vec<u32> = (0..vals.len() as u32).rev().collect();
            let bytes = encode_var(&data, &ends, rev.then_some(order.as_slice())).unwrap();
            let f = RawForward::from_bytes(Bytes::from_vec(bytes), DataType::String).unwrap();
            let mut c = f.cursor();
            for i in 0..vals.len() {
                let src = if rev { vals.len() - 1 - i } else { i };
                prop_assert_eq!(c.value(i as u32), Value::String(vals[src].clone()));
            }
        }
    }

    #[test]
    fn bytes_and_decimal_values() {
        let vals: [&[u8]; 3] = [b"\x00\x01", b"", b"\xff"];
        let mut data = Vec::new();
        let mut ends = Vec::new();
        for v in vals {
            data.extend_from_slice(v);
            ends.push(data.len() as u64);
        }
        let f = RawForward::from_bytes(
            Bytes::from_vec(encode_var(&data, &ends, None).unwrap()),
            DataType::Bytes,
        )
        .unwrap();
        let mut c = f.cursor();
        assert_eq!(c.value(2), Value::Bytes(vec![255]));
        assert_eq!(c.bytes(1), b"");
        let f = RawForward::from_bytes(
            Bytes::from_vec(encode_var(b"1.5", &[3], None).unwrap()),
            DataType::BigDecimal,
        )
        .unwrap();
        assert_eq!(f.cursor().f64(0), 1.5);
    }

    #[test]
    fn rejects_inconsistent_tables() {
        let good = encode_fixed(&[1i64, 2, 3]).unwrap();
        assert!(RawForward::from_bytes(Bytes::from_vec(good.clone()), DataType::Int).is_err());
        let mut bad = good.clone();
        bad[8] = 0xff; // doc count no longer matches the chunk count
        bad[9] = 0xff;
        assert!(RawForward::from_bytes(Bytes::from_vec(bad), DataType::Long).is_err());
        let mut bad = good.clone();
        bad[24] = 0xff; // chunk offset beyond data
        assert!(RawForward::from_bytes(Bytes::from_vec(bad), DataType::Long).is_err());
        assert!(
            RawForward::from_bytes(Bytes::from_vec(good[..30].to_vec()), DataType::Long).is_err()
        );
    }
}
