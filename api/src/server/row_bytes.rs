//! Rows of a consuming segment packed into one byte arena: a row is its values one after
//! another, each a tag byte and its payload (fixed-width little-endian numbers; text, bytes and
//! arrays length-prefixed with a LEB128 varint). Held as `Vec<Value>`s, lineitem's rows took
//! about 1.2 KB each (a `Vec` per row, 32 bytes per value, a heap block per string); packed
//! they take what their values take. Rows are unpacked only to be built into a chunk or the
//! committed segment.

use segments::types::Value;

/// Packed rows: `data[ends[i - 1]..ends[i]]` is row `i`.
#[derive(Default)]
pub struct PackedRows {
    data: Vec<u8>,
    ends: Vec<usize>,
}

const NULL: u8 = 0;
const INT: u8 = 1;
const LONG: u8 = 2;
const FLOAT: u8 = 3;
const DOUBLE: u8 = 4;
const BIG_DECIMAL: u8 = 5;
const FALSE: u8 = 6;
const TRUE: u8 = 7;
const TIMESTAMP: u8 = 8;
const STRING: u8 = 9;
const JSON: u8 = 10;
const BYTES: u8 = 11;
const ARRAY: u8 = 12;

impl PackedRows {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Appends a row.
    pub fn push(&mut self, row: &[Value]) {
        for v in row {
            put(&mut self.data, v);
        }
        self.ends.push(self.data.len());
    }

    /// Row `i` unpacked into `out` (cleared first), for `len` values.
    pub fn get_into(&self, i: usize, len: usize, out: &mut Vec<Value>) -> Result<(), String> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        let mut r = Reader {
            bytes: &self.data[start..self.ends[i]],
        };
        out.clear();
        for _ in 0..len {
            out.push(r.value()?);
        }
        Ok(())
    }

    /// Row `i`, for `len` values.
    pub fn get(&self, i: usize, len: usize) -> Result<Vec<Value>, String> {
        let mut out = Vec::with_capacity(len);
        self.get_into(i, len, &mut out)?;
        Ok(out)
    }
}

fn put_len(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn put_bytes(out: &mut Vec<u8>, tag: u8, b: &[u8]) {
    out.push(tag);
    put_len(out, b.len());
    out.extend_from_slice(b);
}

fn put(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.push(NULL),
        Value::Int(i) => {
            out.push(INT);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::Long(l) => {
            out.push(LONG);
            out.extend_from_slice(&l.to_le_bytes());
        }
        Value::Float(f) => {
            out.push(FLOAT);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        Value::Double(d) => {
            out.push(DOUBLE);
            out.extend_from_slice(&d.to_bits().to_le_bytes());
        }
        Value::Boolean(b) => out.push(if *b { TRUE } else { FALSE }),
        Value::Timestamp(t) => {
            out.push(TIMESTAMP);
            out.extend_from_slice(&t.to_le_bytes());
        }
        Value::BigDecimal(s) => put_bytes(out, BIG_DECIMAL, s.as_bytes()),
        Value::String(s) => put_bytes(out, STRING, s.as_bytes()),
        Value::Json(s) => put_bytes(out, JSON, s.as_bytes()),
        Value::Bytes(b) => put_bytes(out, BYTES, b),
        Value::Array(items) => {
            out.push(ARRAY);
            put_len(out, items.len());
            for i in items {
                put(out, i);
            }
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.bytes.len() < n {
            return Err("a packed row ends early".into());
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn fixed<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn len(&mut self) -> Result<usize, String> {
        let mut n = 0usize;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            n |= usize::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(n);
            }
        }
        Err("a packed row has a bad length".into())
    }

    fn text(&mut self) -> Result<String, String> {
        let n = self.len()?;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|e| e.to_string())
    }

    fn value(&mut self) -> Result<Value, String> {
        let tag = self.take(1)?[0];
        Ok(match tag {
            NULL => Value::Null,
            INT => Value::Int(i32::from_le_bytes(self.fixed()?)),
            LONG => Value::Long(i64::from_le_bytes(self.fixed()?)),
            FLOAT => Value::Float(f32::from_bits(u32::from_le_bytes(self.fixed()?))),
            DOUBLE => Value::Double(f64::from_bits(u64::from_le_bytes(self.fixed()?))),
            FALSE => Value::Boolean(false),
            TRUE => Value::Boolean(true),
            TIMESTAMP => Value::Timestamp(i64::from_le_bytes(self.fixed()?)),
            BIG_DECIMAL => Value::BigDecimal(self.text()?),
            STRING => Value::String(self.text()?),
            JSON => Value::Json(self.text()?),
            BYTES => {
                let n = self.len()?;
                Value::Bytes(self.take(n)?.to_vec())
            }
            ARRAY => {
                let n = self.len()?;
                (0..n)
                    .map(|_| self.value())
                    .collect::<Result<_, _>>()
                    .map(Value::Array)?
            }
            other => return Err(format!("a packed row has an unknown tag {other}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_come_back_as_they_went_in() {
        let rows = vec![
            vec![
                Value::Null,
                Value::Int(-7),
                Value::Long(i64::MIN),
                Value::Float(f32::NAN),
                Value::Double(-0.0),
                Value::BigDecimal("12.50".into()),
                Value::Boolean(true),
                Value::Timestamp(1_700_000_000_000),
            ],
            vec![
                Value::String("é".repeat(200)),
                Value::Json("{\"a\":1}".into()),
                Value::Bytes(vec![0, 255]),
                Value::Array(vec![
                    Value::Long(1),
                    Value::Null,
                    Value::String(String::new()),
                ]),
                Value::Boolean(false),
                Value::Array(vec![]),
                Value::Double(f64::INFINITY),
                Value::String(String::new()),
            ],
        ];
        let mut packed = PackedRows::default();
        for r in &rows {
            packed.push(r);
        }
        assert_eq!(packed.len(), 2);
        let back = packed.get(0, 8).unwrap();
        assert!(matches!(back[3], Value::Float(f) if f.is_nan()));
        assert_eq!(back[..3], rows[0][..3]);
        assert_eq!(back[4..], rows[0][4..]);
        assert!(matches!(back[4], Value::Double(d) if d.is_sign_negative()));
        assert_eq!(packed.get(1, 8).unwrap(), rows[1]);
        // Asking for more values than a row holds is an error, not a panic.
        assert!(packed.get(0, 9).is_err());
    }
}
