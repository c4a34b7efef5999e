//! The binary encoding of [`MailboxMessage`]s between processes: a magic and a kind byte,
//! then for data a column count, a row count and each column as its kind (integral, floating,
//! values, states), its logical type and null flags, then its cells: unboxed numbers as 8
//! little-endian bytes each, values as a tag byte plus a fixed-width or length-prefixed
//! payload. Aggregation states (partial aggregates only, one per group) travel as their serde
//! form. Decoding checks every length against the buffer: a truncated or corrupt frame is an
//! error.

use super::block::{Cells, Column, DataBlock};
use super::mailbox::{EndOfStream, MailboxMessage};
use crate::error::EngineError;
use crate::response::QueryException;
use segments::types::DataType;
use segments::types::Value;

const MAGIC: &[u8; 4] = b"TSB1";
const DATA: u8 = 0;
const END: u8 = 1;
const ERROR: u8 = 2;

/// Encodes a message.
pub fn encode(msg: &MailboxMessage) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(MAGIC);
    match msg {
        MailboxMessage::Data(block) => {
            out.push(DATA);
            put_u32(&mut out, block.columns.len() as u32);
            put_u32(&mut out, block.num_rows as u32);
            for col in &block.columns {
                put_column(&mut out, col);
            }
        }
        MailboxMessage::End(stats) => {
            out.push(END);
            put_bytes(&mut out, &serde_json::to_vec(stats).unwrap_or_default());
        }
        MailboxMessage::Error(e) => {
            out.push(ERROR);
            out.extend_from_slice(&e.error_code.to_le_bytes());
            put_bytes(&mut out, e.message.as_bytes());
        }
    }
    out
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_u32(out, b.len() as u32);
    out.extend_from_slice(b);
}

const TYPES: [DataType; 11] = DataType::ALL;

fn put_column(out: &mut Vec<u8>, c: &Column) {
    out.push(match &c.cells {
        Cells::I64(_) => 0,
        Cells::F64(_) => 1,
        Cells::Values(_) => 2,
        Cells::States(_) => 3,
        Cells::Coded { .. } => 4,
    });
    out.push(TYPES.iter().position(|t| *t == c.data_type).unwrap_or(0) as u8);
    match &c.nulls {
        Some(n) => {
            out.push(1);
            out.extend(n.iter().map(|b| u8::from(*b)));
        }
        None => out.push(0),
    }
    match &c.cells {
        Cells::I64(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        Cells::F64(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        Cells::Values(v) => v.iter().for_each(|x| put_value(out, x)),
        Cells::States(v) => {
            for s in v {
                put_bytes(out, &serde_json::to_vec(s).unwrap_or_default());
            }
        }
        Cells::Coded { ids, dict } => {
            // Only the values this block's rows use travel, renumbered in first-use order.
            let (used, renumbered) = renumber(ids, dict.len());
            put_u32(out, used.len() as u32);
            for id in used {
                // A segment's text not decoded yet goes out as its stored bytes.
                if dict.with_stored(id, |t, b| put_var(out, t, b)).is_none() {
                    put_value(out, dict.get(id));
                }
            }
            renumbered
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        }
    }
}

/// The codes `ids` use, in first-use order, and each row's position among them. A book up to
/// [`DENSE_RENUMBER`] times the rows is renumbered through a slot per code; a larger one (a
/// whole segment's dictionary under a few rows) through a hash map of the codes seen.
fn renumber(ids: &[u32], book_len: usize) -> (Vec<u32>, Vec<u32>) {
    let dense = book_len <= ids.len().saturating_mul(DENSE_RENUMBER);
    let mut codes = crate::code_book::FirstUse::new(book_len, dense);
    let renumbered = ids.iter().map(|&id| codes.code_of(id)).collect();
    (codes.into_used(), renumbered)
}

/// How many codes per row a book may have for [`renumber`] to use a slot per code.
const DENSE_RENUMBER: usize = 8;

/// A var-width value of type `t` — decimal, JSON, bytes, map, else text — by its bytes `b`:
/// its tag, then the bytes. The value's own bytes (`put_value`) and a segment dictionary's
/// stored ones (`CodeBook::with_stored`) make the same frame.
fn put_var(out: &mut Vec<u8>, t: DataType, b: &[u8]) {
    out.push(match t {
        DataType::BigDecimal => 5,
        DataType::Json => 9,
        DataType::Bytes => 10,
        DataType::Map => 12,
        _ => 8,
    });
    put_bytes(out, b);
}

fn put_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.push(0),
        Value::Int(i) => {
            out.push(1);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::Long(i) => {
            out.push(2);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::Float(f) => {
            out.push(3);
            out.extend_from_slice(&f.to_le_bytes());
        }
        Value::Double(f) => {
            out.push(4);
            out.extend_from_slice(&f.to_le_bytes());
        }
        Value::BigDecimal(s) => put_var(out, DataType::BigDecimal, s.as_bytes()),
        Value::Boolean(b) => {
            out.push(6);
            out.push(u8::from(*b));
        }
        Value::Timestamp(t) => {
            out.push(7);
            out.extend_from_slice(&t.to_le_bytes());
        }
        Value::String(s) => put_var(out, DataType::String, s.as_bytes()),
        Value::Json(s) => put_var(out, DataType::Json, s.as_bytes()),
        Value::Bytes(b) => put_var(out, DataType::Bytes, b),
        Value::Map(s) => put_var(out, DataType::Map, s.as_bytes()),
        Value::Array(items) => {
            out.push(11);
            put_u32(out, items.len() as u32);
            for i in items {
                put_value(out, i);
            }
        }
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
}

fn corrupt(what: &str) -> EngineError {
    EngineError::execution(format!("corrupt mailbox message: {what}"))
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], EngineError> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.buf.len());
        let end = end.ok_or_else(|| corrupt("truncated"))?;
        let s = &self.buf[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, EngineError> {
        Ok(self.take(1)?[0])
    }
    fn arr<const N: usize>(&mut self) -> Result<[u8; N], EngineError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u32(&mut self) -> Result<u32, EngineError> {
        Ok(u32::from_le_bytes(self.arr()?))
    }
    fn bytes(&mut self) -> Result<&'a [u8], EngineError> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn string(&mut self) -> Result<String, EngineError> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| corrupt("invalid UTF-8"))
    }
    fn value(&mut self, depth: usize) -> Result<Value, EngineError> {
        Ok(match self.u8()? {
            0 => Value::Null,
            1 => Value::Int(i32::from_le_bytes(self.arr()?)),
            2 => Value::Long(i64::from_le_bytes(self.arr()?)),
            3 => Value::Float(f32::from_le_bytes(self.arr()?)),
            4 => Value::Double(f64::from_le_bytes(self.arr()?)),
            5 => Value::BigDecimal(self.string()?),
            6 => Value::Boolean(self.u8()? != 0),
            7 => Value::Timestamp(i64::from_le_bytes(self.arr()?)),
            8 => Value::String(self.string()?),
            9 => Value::Json(self.string()?),
            10 => Value::Bytes(self.bytes()?.to_vec()),
            12 => Value::Map(self.string()?),
            11 if depth < 4 => {
                let n = self.u32()? as usize;
                if n > self.buf.len() - self.at {
                    return Err(corrupt("array longer than the frame"));
                }
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.value(depth + 1)?);
                }
                Value::Array(items)
            }
            t => return Err(corrupt(&format!("unknown value tag {t}"))),
        })
    }
    fn column(&mut self, rows: usize) -> Result<Column, EngineError> {
        let kind = self.u8()?;
        let data_type = *TYPES
            .get(self.u8()? as usize)
            .ok_or_else(|| corrupt("unknown column type"))?;
        let nulls = match self.u8()? {
            0 => None,
            1 => Some(self.take(rows)?.iter().map(|b| *b != 0).collect()),
            _ => return Err(corrupt("bad null flags")),
        };
        let cells = match kind {
            0 => Cells::I64(
                self.take(
                    rows.checked_mul(8)
                        .ok_or_else(|| corrupt("too many rows"))?,
                )?
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                .collect(),
            ),
            1 => Cells::F64(
                self.take(
                    rows.checked_mul(8)
                        .ok_or_else(|| corrupt("too many rows"))?,
                )?
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                .collect(),
            ),
            2 => {
                let mut v = Vec::with_capacity(rows);
                for _ in 0..rows {
                    v.push(self.value(0)?);
                }
                Cells::Values(v)
            }
            3 => {
                let mut v = Vec::with_capacity(rows);
                for _ in 0..rows {
                    v.push(
                        serde_json::from_slice(self.bytes()?)
                            .map_err(|e| corrupt(&format!("aggregation state: {e}")))?,
                    );
                }
                Cells::States(v)
            }
            4 => {
                let n = self.u32()? as usize;
                if n > self.buf.len() - self.at {
                    return Err(corrupt("dictionary longer than the frame"));
                }
                let mut dict = Vec::with_capacity(n);
                for _ in 0..n {
                    dict.push(self.value(0)?);
                }
                let ids: Vec<u32> = self
                    .take(
                        rows.checked_mul(4)
                            .ok_or_else(|| corrupt("too many rows"))?,
                    )?
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
                    .collect();
                if ids.iter().any(|&i| i as usize >= n) {
                    return Err(corrupt("dictionary id out of range"));
                }
                Cells::Coded {
                    ids,
                    dict: std::sync::Arc::new(crate::code_book::CodeBook::from_values(dict)),
                }
            }
            k => return Err(corrupt(&format!("unknown column kind {k}"))),
        };
        if nulls.is_some() && !matches!(cells, Cells::I64(_) | Cells::F64(_) | Cells::Coded { .. })
        {
            return Err(corrupt("null flags on boxed cells"));
        }
        Ok(Column {
            cells,
            data_type,
            nulls,
        })
    }
}

/// Decodes a message.
pub fn decode(buf: &[u8]) -> Result<MailboxMessage, EngineError> {
    let mut r = Reader { buf, at: 0 };
    if r.take(4)? != MAGIC {
        return Err(corrupt("bad magic"));
    }
    let msg = match r.u8()? {
        DATA => {
            let (cols, rows) = (r.u32()? as usize, r.u32()? as usize);
            // Every cell takes at least one byte.
            if cols.saturating_mul(rows) > buf.len() {
                return Err(corrupt("more cells than bytes"));
            }
            let mut columns = Vec::with_capacity(cols);
            for _ in 0..cols {
                columns.push(r.column(rows)?);
            }
            MailboxMessage::Data(DataBlock::new(columns, rows))
        }
        END => {
            let end: EndOfStream =
                serde_json::from_slice(r.bytes()?).map_err(|e| corrupt(&format!("stats: {e}")))?;
            MailboxMessage::End(Box::new(end))
        }
        ERROR => {
            let error_code = i32::from_le_bytes(r.arr()?);
            MailboxMessage::Error(QueryException {
                error_code,
                message: r.string()?,
            })
        }
        k => return Err(corrupt(&format!("unknown kind {k}"))),
    };
    if r.at != buf.len() {
        return Err(corrupt("trailing bytes"));
    }
    Ok(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aggregate::AggState;
    use crate::stats::ExecutionStats;
    use proptest::prelude::*;

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<i32>().prop_map(Value::Int),
            any::<i64>().prop_map(Value::Long),
            any::<f64>().prop_map(Value::Double),
            any::<bool>().prop_map(Value::Boolean),
            any::<i64>().prop_map(Value::Timestamp),
            ".{0,12}".prop_map(Value::String),
            proptest::collection::vec(any::<u8>(), 0..8).prop_map(Value::Bytes),
        ];
        leaf.prop_recursive(2, 8, 4, |inner| {
            proptest::collection::vec(inner, 0..4).prop_map(Value::Array)
        })
    }

    proptest! {
        #[test]
        fn blocks_round_trip_and_truncations_fail(
            rows in proptest::collection::vec(proptest::collection::vec(value(), 3), 0..20),
            cut in any::<usize>(),
        ) {
            // Three columns of values (boxed, and unboxed where typed so) and a state column.
            let n = rows.len();
            let mut columns: Vec<Column> = (0..3)
                .map(|c| {
                    let values: Vec<Value> = rows.iter().map(|r| r[c].clone()).collect();
                    let t = values.iter().find(|v| !v.is_null()).and_then(|v| v.data_type());
                    Column::from_values(t.unwrap_or(DataType::String), values)
                })
                .collect();
            // Column 0 again, dictionary-coded (distinct values; NULL rows flagged).
            let mut dict: Vec<Value> = Vec::new();
            let ids: Vec<u32> = rows
                .iter()
                .map(|r| match dict.iter().position(|d| crate::key::Key(d.clone()) == crate::key::Key(r[0].clone())) {
                    Some(i) => i as u32,
                    None => {
                        dict.push(r[0].clone());
                        (dict.len() - 1) as u32
                    }
                })
                .collect();
            let flags: Vec<bool> = rows.iter().map(|r| r[0].is_null()).collect();
            columns.push(Column {
                cells: Cells::Coded {
                    ids,
                    dict: std::sync::Arc::new(crate::code_book::CodeBook::from_values(dict)),
                },
                data_type: DataType::String,
                nulls: flags.iter().any(|f| *f).then_some(flags),
            });
            columns.push(Column::states(
                DataType::Long,
                (0..n).map(|i| AggState::Count(i as i64)).collect(),
            ));
            let msg = MailboxMessage::Data(DataBlock::new(columns, n));
            let bytes = encode(&msg);
            let back = decode(&bytes).unwrap();
            // NaN != NaN: compare encodings.
            prop_assert_eq!(encode(&back), bytes.clone());
            let cut = cut % bytes.len();
            prop_assert!(decode(&bytes[..cut]).is_err());
        }
    }

    #[test]
    fn coded_columns_send_only_the_values_rows_use() {
        // A book of 100 values under 3 rows (renumbered through a map) and under 40 rows
        // (through a slot per code): each decodes to the rows' values, with only those sent.
        let book: Vec<Value> = (0..100).map(|i| Value::String(format!("v{i}"))).collect();
        let book = std::sync::Arc::new(crate::code_book::CodeBook::from_values(book));
        for ids in [vec![97u32, 3, 97], (0..40).map(|i| (i * 7) % 20).collect()] {
            let rows = ids.len();
            let column = Column {
                cells: Cells::Coded {
                    ids: ids.clone(),
                    dict: book.clone(),
                },
                data_type: DataType::String,
                nulls: None,
            };
            let bytes = encode(&MailboxMessage::Data(DataBlock::new(vec![column], rows)));
            let Ok(MailboxMessage::Data(back)) = decode(&bytes) else {
                panic!("not a data block");
            };
            let Cells::Coded { dict, .. } = &back.columns[0].cells else {
                panic!("not coded");
            };
            let distinct: std::collections::HashSet<u32> = ids.iter().copied().collect();
            assert_eq!(dict.len(), distinct.len());
            for (i, id) in ids.iter().enumerate() {
                assert_eq!(back.columns[0].value(i), Value::String(format!("v{id}")));
            }
        }
    }

    /// A book that decodes lazily from a segment's dictionary sends its values' stored bytes
    /// without decoding them, in the same frame a decoded book of the same values makes.
    #[test]
    fn a_segment_book_sends_stored_bytes_undecoded() {
        use crate::code_book::CodeBook;
        use std::sync::Arc;
        let dict = crate::code_book::text_dictionary(&["apple", "b\u{e9}ret", "cherry", "date"]);
        let column = |book: Arc<CodeBook>| Column {
            cells: Cells::Coded {
                ids: vec![2, 0, 2, 1],
                dict: book,
            },
            data_type: DataType::String,
            nulls: None,
        };
        let frame = |book: Arc<CodeBook>| {
            encode(&MailboxMessage::Data(DataBlock::new(vec![column(book)], 4)))
        };
        let lazy = Arc::new(CodeBook::lazy(Arc::new(dict.decoder()), vec![0, 1, 2, 3]));
        let sent = frame(lazy.clone());
        // Sent without decoding: every code still reads its stored bytes.
        assert!((0..4).all(|c| lazy.with_stored(c, |_, _| ()).is_some()));
        let values: Vec<Value> = (0..4).map(|c| lazy[c as usize].clone()).collect();
        assert!(lazy.with_stored(0, |_, _| ()).is_none());
        assert_eq!(sent, frame(Arc::new(CodeBook::from_values(values.clone()))));
        let Ok(MailboxMessage::Data(back)) = decode(&sent) else {
            panic!("not a data block");
        };
        let got: Vec<Value> = (0..4).map(|r| back.columns[0].value(r)).collect();
        let want: Vec<Value> = [2, 0, 2, 1].iter().map(|&c| values[c].clone()).collect();
        assert_eq!(got, want);
        assert_eq!(got[3], Value::String("b\u{e9}ret".into()));
    }

    #[test]
    fn end_and_error_round_trip_and_garbage_is_refused() {
        for msg in [
            MailboxMessage::End(Box::new(EndOfStream {
                stats: ExecutionStats::default(),
                operators: Some(crate::stats::OperatorStats {
                    kind: "MAILBOX_SEND".into(),
                    ..Default::default()
                }),
            })),
            MailboxMessage::Error(QueryException {
                error_code: 200,
                message: "boom".into(),
            }),
        ] {
            assert_eq!(decode(&encode(&msg)).unwrap(), msg);
        }
        assert!(decode(b"junk").is_err());
        assert!(decode(b"TSB1\x00\xff\xff\xff\xff\xff\xff\xff\xff").is_err());
    }
}
