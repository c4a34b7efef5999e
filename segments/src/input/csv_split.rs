//! CSV record splitting straight over a read buffer: the bytes of a batch of records are read
//! into one `Vec<u8>` and each field is a `(start, end)` range into it, so a cell costs no copy
//! and no allocation, and the columns of a batch are read from two flat arrays instead of one
//! heap record per row.
//!
//! The dialect is the `csv` crate's default one, which this replaces (a proptest checks both
//! agree), with the delimiter and the quote character settable: `,` separates fields; `\n`, `\r` or `\r\n` ends a record; blank lines are skipped; a
//! field that starts with `"` is quoted and may hold separators, newlines and `""` (one quote);
//! bytes after a closing quote up to the next separator are kept literally, as is a `"` inside
//! an unquoted field; an unterminated quote runs to the end of the file. Quoted fields that need
//! unescaping are rewritten in place once their record is complete. Lines are counted in `\n`s
//! and a record's line is the line it starts on.
//!
//! Runs of records of plain fields (no `""`, no line break inside quotes) take a fast path
//! that classifies 64 bytes at a time into bit masks (SSE2) and finds the delimiters outside
//! quotes with a prefix XOR of the quote bits; a record it cannot take goes through the
//! byte-exact scanner, and proptests hold both to the `csv` crate's answers.

use crate::error::SegmentError;
use std::io::Read;
use std::path::Path;

/// Bytes asked of the reader per read.
const READ_CHUNK: u64 = 128 * 1024;

/// A batch of complete CSV records over one buffer.
#[derive(Default)]
pub struct CsvBatch {
    /// The records' bytes (quoted fields unescaped in place).
    buf: Vec<u8>,
    /// `width` field ranges into `buf` per record.
    fields: Vec<[u32; 2]>,
    width: usize,
    /// The line each record starts on.
    pub lines: Vec<u64>,
    /// Records in the batch.
    pub len: usize,
    /// Whether every byte of the records is ASCII, so no cell needs a UTF-8 check.
    pub ascii: bool,
    /// Doc id of the first record.
    pub first_doc: u64,
}

impl CsvBatch {
    /// Bytes of the batch's records.
    pub fn bytes(&self) -> usize {
        self.buf.len()
    }

    /// Field `pos` of record `row`.
    #[inline]
    pub fn cell(&self, row: usize, pos: usize) -> &[u8] {
        let [s, e] = self.fields[row * self.width + pos];
        &self.buf[s as usize..e as usize]
    }
}

/// What scanning one record found.
enum Scan {
    /// A record ending before `next`, starting on line `line`; the line after it is `after`.
    Record { next: usize, line: u64, after: u64 },
    /// No more records (end of input).
    End,
    /// The buffer ends inside the record: read more and scan again.
    NeedMore,
}

/// Bit 7 of each byte of `w` that equals `c` (and possibly of higher bytes after such a byte,
/// so only the lowest set bit is exact): the classic "has zero byte" word trick.
#[inline(always)]
fn bytes_equal(w: u64, c: u8) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let x = w ^ (LO * c as u64);
    x.wrapping_sub(LO) & !x & HI
}

/// The little-endian word at `buf[i..i + 8]`.
#[inline(always)]
fn word_at(buf: &[u8], i: usize) -> u64 {
    let b = &buf[i..i + 8];
    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}

/// Index of the first of the delimiter `d`, `\n` or `\r` at or after `i` (or `buf.len()`),
/// eight bytes at a time.
#[inline]
fn field_end(buf: &[u8], mut i: usize, d: u8) -> usize {
    while i + 8 <= buf.len() {
        let w = word_at(buf, i);
        let m = bytes_equal(w, d) | bytes_equal(w, b'\n') | bytes_equal(w, b'\r');
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < buf.len() && buf[i] != d && !matches!(buf[i], b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// Index of the first `"` at or after `i`, eight bytes at a time.
#[inline]
fn find_quote(buf: &[u8], mut i: usize, q: u8) -> Option<usize> {
    while i + 8 <= buf.len() {
        let m = bytes_equal(word_at(buf, i), q);
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    buf[i..].iter().position(|&c| c == q).map(|q| i + q)
}

/// Rewrites the raw quoted field `buf[start..end]` (starting with `"`) to its value in place;
/// returns the value's end (the value starts at `start`).
fn unescape(buf: &mut [u8], start: usize, end: usize, q: u8) -> usize {
    let (mut r, mut w, mut quoted) = (start + 1, start, true);
    while r < end {
        let c = buf[r];
        r += 1;
        if quoted && c == q {
            if r < end && buf[r] == q {
                r += 1;
            } else {
                quoted = false;
                continue;
            }
        }
        buf[w] = c;
        w += 1;
    }
    w
}

/// Bits of the 64 bytes at `buf[at..]` (zero bytes past its end) that are `,`, a line break
/// (`\n` or `\r`), and `"`.
#[inline(always)]
fn block_masks(buf: &[u8], at: usize, d: u8, q: u8) -> [u64; 3] {
    if at + 64 <= buf.len() {
        return masks64(&buf[at..at + 64], d, q);
    }
    let mut padded = [0u8; 64];
    padded[..buf.len() - at].copy_from_slice(&buf[at..]);
    masks64(&padded, d, q)
}

/// [`block_masks`] of exactly 64 bytes.
#[inline(always)]
fn masks64(block: &[u8], d: u8, q: u8) -> [u64; 3] {
    debug_assert_eq!(block.len(), 64);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        let mut out = [0u64; 3];
        for k in 0..4 {
            // SAFETY: SSE2 is part of x86-64, and `block` holds the 64 bytes loaded.
            let [comma, line, quote] = unsafe {
                let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>());
                let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
                [
                    _mm_movemask_epi8(eq(d)),
                    _mm_movemask_epi8(_mm_or_si128(eq(b'\n'), eq(b'\r'))),
                    _mm_movemask_epi8(eq(q)),
                ]
            };
            out[0] |= u64::from(comma as u16) << (16 * k);
            out[1] |= u64::from(line as u16) << (16 * k);
            out[2] |= u64::from(quote as u16) << (16 * k);
        }
        out
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let bits =
            |f: &dyn Fn(u8) -> bool| (0..64).fold(0u64, |m, k| m | (u64::from(f(block[k])) << k));
        [
            bits(&|c| c == d),
            bits(&|c| c == b'\n' || c == b'\r'),
            bits(&|c| c == q),
        ]
    }
}

/// Bit `i` of the result is the XOR of bits `0..=i` of `x`: of quote bits, set from an
/// opening quote up to (not including) its closing one.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

/// Appends the fields of whole records of plain fields from `buf[pos..]` (a record start) to
/// `fields`, and each record's line to `lines`, taking at most `max` records, each of `width`
/// fields when given. Plain fields are unquoted ones without a `"`, and quoted ones without
/// `""` or a line break whose closing quote is followed by the delimiter (TPC-H's quoted
/// comments).
///
/// Works 64 bytes at a time: one compare per special byte gives a bit mask of each, the
/// prefix XOR of the quote bits marks the bytes inside quotes, and each delimiter outside
/// quotes ends a field. A quote that neither opens a field nor closes one just before its
/// delimiter, or a line break inside quotes, stops the scan at the start of its record, which
/// [`scan_record`] then reads byte by byte; so do a record of another width and one running
/// past the buffer. Returns the start of the first record not taken, and its line.
#[allow(clippy::too_many_arguments)] // the hot loop's state, passed as plain values
fn plain_records(
    buf: &[u8],
    pos: usize,
    mut line: u64,
    width: Option<usize>,
    max: usize,
    fields: &mut Vec<[u32; 2]>,
    lines: &mut Vec<u64>,
    d: u8,
    q: u8,
) -> (usize, u64) {
    let taken_before = lines.len();
    // The open record and its first field's index, and the open field.
    let (mut record, mut record_fields, mut field) = (pos, fields.len(), pos);
    // All ones when the block starts inside quotes; bit 0 when the byte before it ends a field.
    let (mut inside_carry, mut after_delim_carry) = (0u64, 1u64);
    let mut at = pos;
    while at < buf.len() {
        let [comma, line_break, quote] = block_masks(buf, at, d, q);
        let inside = prefix_xor(quote) ^ inside_carry;
        let delims = (comma | line_break) & !inside;
        let next_is_delim =
            matches!(buf.get(at + 64), Some(&c) if c == d || c == b'\n' || c == b'\r');
        let before_delim = (delims >> 1) | (u64::from(next_is_delim) << 63);
        let after_delim = (delims << 1) | after_delim_carry;
        let odd = (quote & inside & !after_delim)
            | (quote & !inside & !before_delim)
            | (line_break & inside);
        // Delimiters before the first odd byte.
        let mut bits = delims & odd.wrapping_sub(1) & !odd;
        while bits != 0 {
            let p = at + bits.trailing_zeros() as usize;
            let ends_record = line_break & bits & bits.wrapping_neg() != 0;
            bits &= bits - 1;
            if ends_record && p == record {
                // A blank line.
                line += u64::from(buf[p] == b'\n');
                (record, field) = (p + 1, p + 1);
                continue;
            }
            if buf[field] == q {
                fields.push([(field + 1) as u32, (p - 1) as u32]);
            } else {
                fields.push([field as u32, p as u32]);
            }
            field = p + 1;
            if ends_record {
                if width.is_some_and(|w| w != fields.len() - record_fields) {
                    fields.truncate(record_fields);
                    return (record, line);
                }
                lines.push(line);
                line += u64::from(buf[p] == b'\n');
                (record, record_fields) = (p + 1, fields.len());
                if lines.len() - taken_before == max {
                    return (record, line);
                }
            }
        }
        if odd != 0 {
            break;
        }
        inside_carry = 0u64.wrapping_sub(inside >> 63);
        after_delim_carry = delims >> 63;
        at += 64;
    }
    fields.truncate(record_fields);
    (record, line)
}

/// Scans the record starting at `pos` (blank lines first skipped), appending its field ranges
/// to `fields`. `line` is the line at `pos`; `eof` says nothing follows `buf`.
#[allow(clippy::too_many_arguments)] // the scanner's state, passed as plain values
fn scan_record(
    buf: &mut [u8],
    mut i: usize,
    mut line: u64,
    eof: bool,
    fields: &mut Vec<[u32; 2]>,
    escaped: &mut Vec<usize>,
    d: u8,
    q: u8,
) -> Scan {
    loop {
        match buf.get(i) {
            None => return if eof { Scan::End } else { Scan::NeedMore },
            Some(b'\n') => line += 1,
            Some(b'\r') => {}
            Some(_) => break,
        }
        i += 1;
    }
    let start_line = line;
    let first_field = fields.len();
    escaped.clear();
    let len = buf.len();
    let end;
    loop {
        let start = i;
        if buf.get(i) == Some(&q) {
            // Quoted: find the closing quote (`""` is an escaped quote).
            let mut simple = true;
            let mut j = i + 1;
            let close = loop {
                match find_quote(buf, j, q) {
                    None if eof => break None,
                    None => return Scan::NeedMore,
                    Some(at) => match buf.get(at + 1) {
                        Some(&c) if c == q => {
                            simple = false;
                            j = at + 2;
                        }
                        None if !eof => return Scan::NeedMore,
                        _ => break Some(at),
                    },
                }
            };
            i = match close {
                // Bytes after the closing quote are kept literally.
                Some(at) => field_end(buf, at + 1, d),
                None => len,
            };
            if close != Some(i.wrapping_sub(1)) {
                simple = false;
            }
            line += buf[start..i].iter().filter(|&&c| c == b'\n').count() as u64;
            if simple {
                fields.push([(start + 1) as u32, (i - 1) as u32]);
            } else {
                escaped.push(fields.len());
                fields.push([start as u32, i as u32]);
            }
        } else {
            i = field_end(buf, i, d);
            fields.push([start as u32, i as u32]);
        }
        match buf.get(i) {
            None if !eof => return Scan::NeedMore,
            None => {
                end = i;
                break;
            }
            Some(&c) if c == d => i += 1,
            Some(&c) => {
                if c == b'\n' {
                    line += 1;
                }
                end = i + 1;
                break;
            }
        }
    }
    for &f in escaped.iter() {
        let [s, e] = fields[f];
        let w = unescape(buf, s as usize, e as usize, q);
        fields[f] = [s, w as u32];
    }
    debug_assert!(fields.len() > first_field);
    Scan::Record {
        next: end,
        line: start_line,
        after: line,
    }
}

/// Splits a CSV stream into batches of records.
pub struct CsvSplitter<'p, R: Read> {
    path: &'p Path,
    src: R,
    /// Bytes read past the last batch's records.
    carry: Vec<u8>,
    /// The line at the start of `carry`.
    line: u64,
    eof: bool,
    /// Whether anything was read yet (a byte-order mark can only lead the input).
    started: bool,
    escaped: Vec<usize>,
    /// The field delimiter (`,` unless set).
    delimiter: u8,
    /// The quote character (`"` unless set).
    quote: u8,
}

impl<'p, R: Read> CsvSplitter<'p, R> {
    /// A splitter over `src`, read from `path` (named in errors).
    pub fn new(path: &'p Path, src: R) -> CsvSplitter<'p, R> {
        CsvSplitter {
            path,
            src,
            carry: Vec::new(),
            line: 1,
            eof: false,
            started: false,
            escaped: Vec::new(),
            delimiter: b',',
            quote: b'"',
        }
    }

    /// Splits fields on `delimiter` instead of `,` (any byte but a quote or a line break).
    pub fn with_delimiter(mut self, delimiter: u8) -> CsvSplitter<'p, R> {
        self.delimiter = delimiter;
        self
    }

    /// Quotes fields with `quote` instead of `"` (Pinot's `quoteCharacter`; any byte but the
    /// delimiter or a line break).
    pub fn with_quote(mut self, quote: u8) -> CsvSplitter<'p, R> {
        self.quote = quote;
        self
    }

    /// Reads more input onto `buf`; sets `eof` when there is none.
    fn read_more(&mut self, buf: &mut Vec<u8>) -> Result<(), SegmentError> {
        let n = (&mut self.src)
            .take(READ_CHUNK)
            .read_to_end(buf)
            .map_err(|e| SegmentError::io(self.path, e))?;
        if n == 0 {
            self.eof = true;
        }
        if buf.len() > u32::MAX as usize {
            return Err(SegmentError::InputRow {
                file: self.path.to_path_buf(),
                line: self.line,
                reason: "a CSV record exceeds 4 GiB".into(),
            });
        }
        Ok(())
    }

    /// Reads the header record (a leading UTF-8 byte-order mark is dropped); `None` for empty
    /// input.
    pub fn header(&mut self) -> Result<Option<Vec<Vec<u8>>>, SegmentError> {
        let mut batch = CsvBatch::default();
        self.fill(&mut batch, None, 1, 0)?;
        if batch.len == 0 {
            return Ok(None);
        }
        let n = batch.fields.len();
        batch.width = n;
        Ok(Some((0..n).map(|p| batch.cell(0, p).to_vec()).collect()))
    }

    /// Fills `batch` with up to `max_rows` records of `width` fields each (any width when
    /// `None`, for the header); fewer means the input is exhausted.
    pub fn fill(
        &mut self,
        batch: &mut CsvBatch,
        width: Option<usize>,
        max_rows: usize,
        first_doc: u64,
    ) -> Result<(), SegmentError> {
        batch.buf.clear();
        batch.buf.append(&mut self.carry);
        batch.fields.clear();
        batch.lines.clear();
        batch.len = 0;
        batch.width = width.unwrap_or(0);
        batch.first_doc = first_doc;
        let mut pos = 0;
        if !self.started {
            // The first read: drop a byte-order mark.
            self.started = true;
            while batch.buf.len() < 3 && !self.eof {
                self.read_more(&mut batch.buf)?;
            }
            if batch.buf.starts_with(b"\xef\xbb\xbf") {
                pos = 3;
            }
        }
        while batch.len < max_rows {
            (pos, self.line) = plain_records(
                &batch.buf,
                pos,
                self.line,
                width,
                max_rows - batch.len,
                &mut batch.fields,
                &mut batch.lines,
                self.delimiter,
                self.quote,
            );
            batch.len = batch.lines.len();
            if batch.len == max_rows {
                break;
            }
            let before = batch.fields.len();
            let scan = scan_record(
                &mut batch.buf,
                pos,
                self.line,
                self.eof,
                &mut batch.fields,
                &mut self.escaped,
                self.delimiter,
                self.quote,
            );
            match scan {
                Scan::Record { next, line, after } => {
                    let found = batch.fields.len() - before;
                    if let Some(width) = width
                        && found != width
                    {
                        return Err(SegmentError::InputRow {
                            file: self.path.to_path_buf(),
                            line,
                            reason: format!("expected {width} fields, found {found}"),
                        });
                    }
                    batch.lines.push(line);
                    batch.len += 1;
                    self.line = after;
                    pos = next;
                }
                Scan::End => break,
                Scan::NeedMore => {
                    batch.fields.truncate(before);
                    self.read_more(&mut batch.buf)?;
                }
            }
        }
        self.carry.extend_from_slice(&batch.buf[pos..]);
        batch.buf.truncate(pos);
        batch.ascii = batch.buf.is_ascii();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A reader handing out at most `.1` bytes per read.
    struct Dribble<'a>(&'a [u8], usize);
    impl Read for Dribble<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(self.1).min(out.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// Records as `(line, fields)` from the splitter, reading `chunk` bytes at a time.
    fn split(text: &[u8], chunk: usize) -> Vec<(u64, Vec<Vec<u8>>)> {
        split_on(text, chunk, b',')
    }

    fn split_on(text: &[u8], chunk: usize, d: u8) -> Vec<(u64, Vec<Vec<u8>>)> {
        let path = Path::new("t.csv");
        let mut s = CsvSplitter::new(path, Dribble(text, chunk)).with_delimiter(d);
        let mut out = Vec::new();
        let mut batch = CsvBatch::default();
        loop {
            s.fill(&mut batch, None, 1, 0).unwrap();
            if batch.len == 0 {
                return out;
            }
            batch.width = batch.fields.len();
            let cells = (0..batch.width).map(|p| batch.cell(0, p).to_vec());
            out.push((batch.lines[0], cells.collect()));
        }
    }

    /// Records as `(line, fields)` from batches of up to `rows` records of `width` fields.
    fn split_width(
        text: &[u8],
        chunk: usize,
        rows: usize,
        width: usize,
    ) -> Vec<(u64, Vec<Vec<u8>>)> {
        let mut s = CsvSplitter::new(Path::new("t.csv"), Dribble(text, chunk));
        let mut out = Vec::new();
        let mut batch = CsvBatch::default();
        loop {
            s.fill(&mut batch, Some(width), rows, 0).unwrap();
            for r in 0..batch.len {
                let cells = (0..width).map(|p| batch.cell(r, p).to_vec());
                out.push((batch.lines[r], cells.collect()));
            }
            if batch.len < rows {
                return out;
            }
        }
    }

    /// The same through the `csv` crate's default reader.
    fn reference(text: &[u8]) -> Vec<(u64, Vec<Vec<u8>>)> {
        reference_on(text, b',')
    }

    fn reference_on(text: &[u8], d: u8) -> Vec<(u64, Vec<Vec<u8>>)> {
        let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
        let mut rdr = csv::ReaderBuilder::new()
            .delimiter(d)
            .has_headers(false)
            .flexible(true)
            .from_reader(text);
        let mut out = Vec::new();
        for rec in rdr.byte_records() {
            let rec = rec.unwrap();
            let line = rec.position().unwrap().line();
            out.push((line, rec.iter().map(<[u8]>::to_vec).collect()));
        }
        out
    }

    fn fields(recs: &[(u64, Vec<Vec<u8>>)]) -> Vec<&Vec<Vec<u8>>> {
        recs.iter().map(|r| &r.1).collect()
    }

    #[test]
    fn quoted_fields_and_terminators() {
        let text = b"a,\"b,\"\"c\"\"\nd\",e\r\n\r\n\"x\"y,\"\",z\"q\rlast,\"open\nend";
        let got = split(text, 3);
        let want: Vec<Vec<&[u8]>> = vec![
            vec![b"a", b"b,\"c\"\nd", b"e"],
            vec![b"xy", b"", b"z\"q"],
            vec![b"last", b"open\nend"],
        ];
        let want: Vec<Vec<Vec<u8>>> = want
            .into_iter()
            .map(|r| r.into_iter().map(<[u8]>::to_vec).collect())
            .collect();
        assert_eq!(fields(&got), want.iter().collect::<Vec<_>>());
        assert_eq!(got.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 4, 4]);
        assert_eq!(fields(&got), fields(&reference(text)));
    }

    #[test]
    fn byte_order_mark_and_trailing_separator() {
        let got = split(b"\xef\xbb\xbfa,b,\n1,2,", 1);
        assert_eq!(got[0].1, [b"a".to_vec(), b"b".to_vec(), Vec::new()]);
        assert_eq!(got[1].1, [b"1".to_vec(), b"2".to_vec(), Vec::new()]);
        assert!(split(b"", 4).is_empty());
        assert!(split(b"\n\r\n", 4).is_empty());
    }

    proptest! {
        #[test]
        fn plain_records_take_the_fast_path_and_agree(
            rows in proptest::collection::vec(proptest::collection::vec("[a-z0-9 .]{0,20}", 12), 1..40),
            width in 1usize..12,
            quoted in proptest::collection::vec((0usize..40, 0usize..12), 0..6),
            blank in proptest::collection::vec(0usize..40, 0..3),
            crlf: bool,
            chunk in prop_oneof![1usize..20, 100usize..5000],
            per_batch in prop_oneof![Just(1usize), 2usize..50],
        ) {
            // Mostly plain records of short and long fields, a few with a quoted field (which
            // the full scanner takes over) and blank lines, LF or CRLF terminated.
            let (mut text, mut lines) = (Vec::new(), Vec::new());
            for (r, row) in rows.iter().enumerate() {
                if blank.contains(&r) {
                    text.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
                }
                let cells: Vec<String> = row[..width].iter().enumerate().map(|(c, v)| {
                    match quoted.iter().position(|&q| q == (r, c)) {
                        // An escaped quote (full scanner), a plain quoted field with a separator
                        // inside (fast path), and one with a line break (full scanner).
                        Some(0) => format!("\"{v},\"\"x\""),
                        Some(1) => format!("\"{v}, and more\""),
                        Some(_) => format!("\"{v}\nnext\""),
                        None => v.clone(),
                    }
                }).collect();
                let record = cells.join(",");
                if !record.is_empty() {
                    // A record's line: one more than the line breaks before it.
                    lines.push(1 + text.iter().filter(|&&c| c == b'\n').count() as u64);
                }
                text.extend_from_slice(record.as_bytes());
                text.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            }
            let got = split(&text, chunk);
            let want = reference(&text);
            prop_assert_eq!(fields(&got), fields(&want));
            prop_assert_eq!(got.iter().map(|r| r.0).collect::<Vec<_>>(), lines);
            // Batches of many records, as a build reads them.
            prop_assert_eq!(&got, &split_width(&text, chunk, per_batch, width));
        }

        #[test]
        fn word_scans_match_byte_scans(
            buf in proptest::collection::vec(prop_oneof![Just(b','), Just(b'\n'), Just(b'\r'), Just(b'"'), Just(b'a'), Just(0x80u8), Just(0xacu8), any::<u8>()], 0..40),
            from in 0usize..40,
        ) {
            let from = from.min(buf.len());
            let naive_end = (from..buf.len()).find(|&i| matches!(buf[i], b',' | b'\n' | b'\r')).unwrap_or(buf.len());
            prop_assert_eq!(field_end(&buf, from, b','), naive_end);
            let tab_end = (from..buf.len()).find(|&i| matches!(buf[i], b'\t' | b'\n' | b'\r')).unwrap_or(buf.len());
            prop_assert_eq!(field_end(&buf, from, b'\t'), tab_end);
            prop_assert_eq!(find_quote(&buf, from, b'"'), (from..buf.len()).find(|&i| buf[i] == b'"'));
        }

        #[test]
        fn agrees_with_the_csv_crate(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just(&b","[..]), Just(&b"\""[..]), Just(&b"\n"[..]), Just(&b"\r"[..]),
                    Just(&b"\r\n"[..]), Just(&b"ab"[..]), Just(&b" "[..]), Just(&b"\"\""[..]),
                    Just(&b"\xc3\xa9"[..]), Just(&b"long field text"[..]),
                ],
                0..60,
            ),
            chunk in prop_oneof![1usize..9, 64usize..600],
            d in prop_oneof![Just(b','), Just(b'|'), Just(b'\t'), Just(b';')],
        ) {
            // The same text with `d` where the commas were (and commas as plain bytes).
            let text: Vec<u8> = parts.concat();
            let text: Vec<u8> = if d == b',' {
                text
            } else {
                text.iter().map(|&c| if c == b',' { d } else { c }).collect()
            };
            let got = split_on(&text, chunk, d);
            let want = reference_on(&text, d);
            prop_assert_eq!(fields(&got), fields(&want));
        }
    }
}
