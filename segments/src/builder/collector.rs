//! Pass 1 of a build, per column: parse each cell to the column's stored type, give it a
//! provisional dictionary id (or keep the raw value for no-dictionary columns), append it to the
//! column's spill file, and record nulls.
//!
//! Cells arrive as CSV text ([`ColumnCollector::push_text`], parsed without allocating for
//! numbers and strings), JSON ([`ColumnCollector::push_json`]) or typed [`Value`]s
//! ([`ColumnCollector::push_value`]). A null cell stores the field's default null value and sets
//! the doc's bit in the null bitmap.

pub use super::json_cell::{json_into_value, json_to_value};
pub use super::scalar::Scalar;
use super::spill::{IdChunks, SpillWriter};
pub use super::typed::Distinct;
use super::typed::Typed;
use crate::error::SegmentError;
use crate::input::{CellError, Numbers, RunError};
use crate::native::NativeType;
use crate::types::{DataType, DocId, FieldSpec, StoredType, Value};
use roaring::RoaringBitmap;
use std::borrow::Cow;

/// Multi-value cells in CSV are split on this byte.
pub const MV_DELIMITER: u8 = b';';
/// Single values of dictionary columns are interned in batches of this many.
const BATCH: usize = 2048;

/// A coded-text dictionary entry not interned yet.
const NOT_INTERNED: u32 = u32::MAX;

/// The ids of the entries of the last dictionary of coded texts ([`ColumnCollector::push_coded_texts`]).
#[derive(Default)]
struct CodedIds {
    dictionary: Option<u64>,
    ids: Vec<u32>,
}

/// Pass-1 state of one column.
pub struct ColumnCollector {
    pub spec: FieldSpec,
    /// Dictionary-encoded (else raw).
    pub dict: bool,
    /// Write a var-width dictionary plainly ([`crate::BuildConfig::plain_dictionaries`]).
    pub plain_dictionary: bool,
    pub distinct: Distinct,
    pub spill: SpillWriter,
    /// Docs whose input was null.
    pub nulls: RoaringBitmap,
    pub default: Value,
    default_scalar: Scalar<'static>,
    /// Values written (docs for single-value columns).
    pub entries: u64,
    pub max_mv: u32,
    mv_ids: Vec<u32>,
    /// What separates the values of a multi-value text cell ([`MV_DELIMITER`] unless set).
    mv_delimiter: u8,
    hashes: Vec<u64>,
    ids: Vec<u32>,
    id_chunks: IdChunks,
    coded: CodedIds,
}

/// Parses an ASCII decimal integer quickly; `None` for anything else (the caller falls back to
/// the general parser).
#[inline]
fn fast_i64(b: &[u8]) -> Option<i64> {
    let (neg, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + d as i64;
    }
    Some(if neg { -v } else { v })
}

/// Parses a plain `YYYY-MM-DD` date as epoch milliseconds at UTC midnight, exactly as the
/// general TIMESTAMP parser does; `None` for anything else (the caller falls back to it).
#[inline]
fn fast_date_millis(b: &[u8]) -> Option<i64> {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |from: usize, to: usize| -> Option<u32> {
        b[from..to].iter().try_fold(0u32, |acc, &c| {
            let d = c.wrapping_sub(b'0');
            (d <= 9).then_some(acc * 10 + d as u32)
        })
    };
    let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    Some(crate::types::time::days_from_civil(year as i64, month, day) * 86_400_000)
}

/// Exact powers of ten representable in an `f64`.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Parses plain decimal text (`-123.45`) with at most 15 significant digits exactly: the
/// mantissa and the power of ten are both exact `f64`s, so one IEEE division is correctly
/// rounded (Clinger's fast path). `None` for anything else (the caller falls back to the
/// general parser).
#[inline]
fn fast_f64(b: &[u8]) -> Option<f64> {
    let (neg, body) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    let mut mantissa: u64 = 0;
    let mut digits = 0usize;
    let mut frac: Option<usize> = None;
    for (i, &c) in body.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + (c - b'0') as u64;
                digits += 1;
            }
            b'.' if frac.is_none() => frac = Some(i),
            _ => return None,
        }
    }
    let decimals = frac.map_or(0, |f| body.len() - f - 1);
    if digits == 0 || digits > 15 {
        return None;
    }
    let v = mantissa as f64 / POW10[decimals];
    Some(if neg { -v } else { v })
}

fn text_of(b: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(b)
}

/// Parses CSV/JSON text as a value of `dt`, in stored form.
pub fn parse_text(dt: DataType, b: &[u8]) -> Result<Scalar<'_>, String> {
    let general = |dt: DataType| Value::parse(dt, &text_of(b)).map_err(|e| e.to_string());
    Ok(match dt {
        DataType::Int => match fast_i64(b).and_then(|v| i32::try_from(v).ok()) {
            Some(v) => Scalar::I32(v),
            None => scalar_of_value(dt, &general(dt)?)?.into_owned(),
        },
        DataType::Long | DataType::Timestamp => match fast_i64(b) {
            Some(v) => Scalar::I64(v),
            None => scalar_of_value(dt, &general(dt)?)?.into_owned(),
        },
        DataType::Float => match std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.parse::<f32>().ok())
        {
            Some(v) => Scalar::F32(v),
            None => scalar_of_value(dt, &general(dt)?)?.into_owned(),
        },
        DataType::Double => {
            match fast_f64(b).or_else(|| std::str::from_utf8(b).ok()?.parse::<f64>().ok()) {
                Some(v) => Scalar::F64(v),
                None => scalar_of_value(dt, &general(dt)?)?.into_owned(),
            }
        }
        DataType::String | DataType::Json => {
            if !b.is_ascii() {
                std::str::from_utf8(b)
                    .map_err(|_| format!("'{}' is not valid utf-8", text_of(b)))?;
            }
            Scalar::Bytes(Cow::Borrowed(b))
        }
        DataType::Boolean | DataType::BigDecimal | DataType::Bytes | DataType::Map => {
            scalar_of_value(dt, &general(dt)?)?.into_owned()
        }
    })
}

/// Converts a typed value to the stored form of `dt` (casting if needed).
pub fn scalar_of_value(dt: DataType, v: &Value) -> Result<Scalar<'_>, String> {
    let err = || format!("cannot convert '{v}' to {dt}");
    let cast = || v.cast(dt).map_err(|_| err());
    fn native<T: NativeType>(dt: DataType, v: &Value) -> Result<T, String> {
        let err = || format!("cannot convert '{v}' to {dt}");
        if let Some(t) = T::from_value(v) {
            return Ok(t);
        }
        match v {
            // Integers that do not fit: no silent saturation.
            Value::Int(_) | Value::Long(_) | Value::Timestamp(_) | Value::Boolean(_)
                if T::INTEGRAL =>
            {
                Err(err())
            }
            Value::Int(_) | Value::Long(_) | Value::Timestamp(_) | Value::Boolean(_) => {
                Ok(T::from_f64(v.as_f64().ok_or_else(err)?))
            }
            // Floats into integers truncate toward zero, as Pinot's `Number.intValue()`; out
            // of range or NaN is an error rather than Java's silent saturation.
            Value::Float(_) | Value::Double(_) => {
                let f = v.as_f64().ok_or_else(err)?.trunc();
                let t = T::from_f64(f);
                (t.to_f64() == f).then_some(t).ok_or_else(err)
            }
            _ => T::from_value(&v.cast(dt).map_err(|_| err())?).ok_or_else(err),
        }
    }
    Ok(match dt.stored() {
        StoredType::Int => Scalar::I32(native(dt, v)?),
        StoredType::Long => Scalar::I64(native(dt, v)?),
        StoredType::Float => Scalar::F32(native(dt, v)?),
        StoredType::Double => Scalar::F64(native(dt, v)?),
        StoredType::BigDecimal => match v {
            Value::BigDecimal(s) => Scalar::Bytes(Cow::Borrowed(s.as_bytes())),
            _ => match cast()? {
                Value::BigDecimal(s) => Scalar::Bytes(Cow::Owned(s.into_bytes())),
                _ => return Err(err()),
            },
        },
        StoredType::String => match v {
            Value::String(s) | Value::Json(s) | Value::Map(s) => {
                Scalar::Bytes(Cow::Borrowed(s.as_bytes()))
            }
            Value::Array(_) | Value::Null => return Err(err()),
            other => Scalar::Bytes(Cow::Owned(other.to_string().into_bytes())),
        },
        StoredType::Bytes => match v {
            Value::Bytes(b) => Scalar::Bytes(Cow::Borrowed(b)),
            _ => match cast()? {
                Value::Bytes(b) => Scalar::Bytes(Cow::Owned(b)),
                _ => return Err(err()),
            },
        },
    })
}

impl ColumnCollector {
    /// A collector for `spec`, spilling to `spill`.
    pub fn new(
        spec: &FieldSpec,
        dict: bool,
        spill: SpillWriter,
    ) -> Result<ColumnCollector, SegmentError> {
        let dt = spec.data_type;
        let default = spec.default_null();
        let default_scalar = scalar_of_value(dt, &default)
            .map_err(|e| {
                SegmentError::Schema(format!("default null value of column '{}': {e}", spec.name))
            })?
            .into_owned();
        let distinct = if !dict {
            Distinct::Raw
        } else {
            match dt.stored() {
                StoredType::Int => Distinct::Int(Typed::default()),
                StoredType::Long => Distinct::Long(Typed::default()),
                StoredType::Float => Distinct::Float(Typed::default()),
                StoredType::Double => Distinct::Double(Typed::default()),
                _ => Distinct::Var(Typed::default()),
            }
        };
        Ok(ColumnCollector {
            plain_dictionary: false,
            mv_delimiter: MV_DELIMITER,
            hashes: Vec::with_capacity(BATCH),
            ids: Vec::with_capacity(BATCH),
            id_chunks: IdChunks::default(),
            coded: CodedIds::default(),
            spec: spec.clone(),
            dict,
            distinct,
            spill,
            nulls: RoaringBitmap::new(),
            default,
            default_scalar,
            entries: 0,
            max_mv: 0,
            mv_ids: Vec::new(),
        })
    }

    /// The column's data type.
    pub fn data_type(&self) -> DataType {
        self.spec.data_type
    }

    /// The provisional id of one value of a dictionary column.
    fn intern(&mut self, s: &Scalar<'_>) -> Result<u32, SegmentError> {
        match self.distinct.values().and_then(|v| v.intern(s)) {
            Some(id) => Ok(id),
            None => Err(self.not_stored(s)),
        }
    }

    /// A scalar that is not of the column's stored type (scalars are parsed for it, so this is
    /// a fault of the builder, reported rather than stored wrongly).
    fn not_stored(&self, s: &Scalar<'_>) -> SegmentError {
        SegmentError::Schema(format!(
            "value {s:?} is not of column '{}''s stored type {:?}",
            self.spec.name,
            self.spec.data_type.stored()
        ))
    }

    /// Interns the pending batch and spills its ids.
    fn flush_pending(&mut self) -> Result<(), SegmentError> {
        let Some(values) = self.distinct.values() else {
            return Ok(());
        };
        if values.waiting() == 0 {
            return Ok(());
        }
        self.ids.clear();
        values.intern_batch(&mut self.hashes, &mut self.ids);
        self.spill_ids()
    }

    /// Adds one single value: to the pending batch of a dictionary column, straight to the
    /// spill file of a raw one.
    #[inline]
    fn add_sv(&mut self, s: &Scalar<'_>) -> Result<(), SegmentError> {
        if let Some(values) = self.distinct.values() {
            if !values.push(s) {
                return Err(self.not_stored(s));
            }
            return self.after_pending();
        }
        self.entries += 1;
        match s {
            Scalar::I32(v) => self.spill.write(&v.to_le_bytes()),
            Scalar::I64(v) => self.spill.write(&v.to_le_bytes()),
            Scalar::F32(v) => self.spill.write(&v.to_le_bytes()),
            Scalar::F64(v) => self.spill.write(&v.to_le_bytes()),
            Scalar::Bytes(b) => {
                let len = u32::try_from(b.len()).map_err(|_| {
                    SegmentError::Limit(format!(
                        "a value of column '{}' exceeds 4 GiB",
                        self.spec.name
                    ))
                })?;
                self.spill.write_u32(len)?;
                self.spill.write(b)
            }
        }
    }

    fn flush_mv(&mut self) -> Result<(), SegmentError> {
        let n = self.mv_ids.len() as u32;
        self.max_mv = self.max_mv.max(n);
        self.entries += n as u64;
        self.spill.write_u32(n)?;
        for i in 0..self.mv_ids.len() {
            let id = self.mv_ids[i];
            self.spill.write_u32(id)?;
        }
        self.mv_ids.clear();
        Ok(())
    }

    /// The fast path of [`ColumnCollector::push_text`]: plain integers, short decimals and
    /// ASCII strings of a batched dictionary column go straight to the pending batch, with
    /// the same values [`parse_text`] gives them. `false` (nothing done) for anything else.
    #[inline]
    fn push_plain_text(&mut self, dt: DataType, text: &[u8]) -> bool {
        match (&mut self.distinct, dt) {
            (Distinct::Int(t), DataType::Int) => {
                match fast_i64(text).and_then(|x| i32::try_from(x).ok()) {
                    Some(x) => t.pending.push(x),
                    None => return false,
                }
            }
            (Distinct::Long(t), DataType::Long) => match fast_i64(text) {
                Some(x) => t.pending.push(x),
                None => return false,
            },
            (Distinct::Long(t), DataType::Timestamp) => {
                match fast_i64(text).or_else(|| fast_date_millis(text)) {
                    Some(x) => t.pending.push(x),
                    None => return false,
                }
            }
            (Distinct::Double(t), DataType::Double) => match fast_f64(text) {
                Some(x) => t.pending.push(x),
                None => return false,
            },
            (Distinct::Var(t), DataType::String | DataType::Json) if text.is_ascii() => {
                t.pending.push(text);
            }
            _ => return false,
        }
        true
    }

    /// The fast path for a run of CSV cells of a single-value dictionary column, given by
    /// `cell(0..n)`: takes the leading cells that are plain (what [`Self::push_plain_text`]
    /// accepts, never empty) and returns how many it took; the caller feeds the next cell
    /// through [`Self::push_text`] / [`Self::push_null`], which handle nulls and report errors.
    /// String cells are interned straight from `cell`'s buffer, without a copy, and checked
    /// for ASCII unless `all_ascii` says they all are.
    pub fn push_plain_cells<'c>(
        &mut self,
        n: usize,
        all_ascii: bool,
        cell: impl Fn(usize) -> &'c [u8],
    ) -> Result<usize, SegmentError> {
        if !self.spec.single_value_field {
            return Ok(0);
        }
        let dt = self.spec.data_type;
        if let (Distinct::Var(_), DataType::String | DataType::Json) = (&self.distinct, dt) {
            // Earlier (slow-path) values go first, so ids stay in doc order.
            self.flush_pending()?;
            // The batch's cells, looked up once.
            let mut cells: Vec<&[u8]> = Vec::with_capacity(n.min(BATCH));
            let mut i = 0;
            while i < n {
                cells.clear();
                let mut j = i;
                while j < n && j - i < BATCH {
                    let c = cell(j);
                    if c.is_empty() || (!all_ascii && !c.is_ascii()) {
                        break;
                    }
                    cells.push(c);
                    j += 1;
                }
                if j == i {
                    break;
                }
                self.ids.clear();
                let Distinct::Var(t) = &mut self.distinct else {
                    break;
                };
                t.interner
                    .intern_each(cells.len(), |k| cells[k], &mut self.hashes, &mut self.ids);
                self.entries += (j - i) as u64;
                self.spill_ids()?;
                i = j;
            }
            return Ok(i);
        }
        match (&self.distinct, dt) {
            (Distinct::Int(_), DataType::Int) => self.plain_numbers(
                n,
                cell,
                |b| fast_i64(b).and_then(|x| i32::try_from(x).ok()),
                Distinct::ints,
            ),
            (Distinct::Long(_), DataType::Long) => {
                self.plain_numbers(n, cell, fast_i64, Distinct::longs)
            }
            (Distinct::Long(_), DataType::Timestamp) => self.plain_numbers(
                n,
                cell,
                |b| fast_i64(b).or_else(|| fast_date_millis(b)),
                Distinct::longs,
            ),
            (Distinct::Double(_), DataType::Double) => {
                self.plain_numbers(n, cell, fast_f64, Distinct::doubles)
            }
            _ => Ok(0),
        }
    }

    /// [`Self::push_plain_cells`] for a numeric column: `parse` is its fast parser, `values`
    /// its pending batch. One tight loop per batch, interning each batch as it fills.
    #[inline]
    fn plain_numbers<'c, T>(
        &mut self,
        n: usize,
        cell: impl Fn(usize) -> &'c [u8],
        parse: impl Fn(&[u8]) -> Option<T>,
        values: impl Fn(&mut Distinct) -> Option<&mut Vec<T>>,
    ) -> Result<usize, SegmentError> {
        let mut i = 0;
        loop {
            let Some(v) = values(&mut self.distinct) else {
                return Ok(i);
            };
            // A pending batch is interned as soon as it fills, so there is room.
            let stop = (i + BATCH.saturating_sub(v.len())).min(n);
            let start = i;
            while i < stop {
                match parse(cell(i)) {
                    Some(x) => v.push(x),
                    None => break,
                }
                i += 1;
            }
            let full = v.len() >= BATCH;
            self.entries += (i - start) as u64;
            if full {
                self.flush_pending()?;
            }
            if i < stop || i == n {
                return Ok(i);
            }
        }
    }

    /// Adds a run of typed single values of the next docs (a columnar input's decoded batch):
    /// straight into the pending batch when they are already the column's stored type, else
    /// one by one as [`Self::push_value`] takes them (`CellSink::value` is `push_value`).
    /// `CellError::Bad((i, reason))` at the first value the column cannot hold.
    pub fn push_numbers(&mut self, first: DocId, values: Numbers<'_>) -> Result<(), RunError> {
        if self.spec.single_value_field {
            let dt = self.spec.data_type;
            let taken = match (values, dt) {
                (Numbers::I32(v), DataType::Int) => self.extend_pending(v, Distinct::ints)?,
                (Numbers::I64(v) | Numbers::Millis(v), DataType::Long | DataType::Timestamp) => {
                    self.extend_pending(v, Distinct::longs)?
                }
                (Numbers::F32(v), DataType::Float) => self.extend_pending(v, Distinct::floats)?,
                (Numbers::F64(v), DataType::Double) => self.extend_pending(v, Distinct::doubles)?,
                _ => false,
            };
            if taken {
                return Ok(());
            }
        }
        crate::input::numbers_one_by_one(self, first, values)
    }

    /// Whether [`Self::push_coded_texts`] serves this column: a single-value dictionary
    /// STRING or JSON column that looks its values up (not one keeping every value).
    pub fn takes_coded_texts(&self) -> bool {
        self.spec.single_value_field
            && matches!(self.spec.data_type, DataType::String | DataType::Json)
            && matches!(&self.distinct, Distinct::Var(t) if !t.interner.keeps_every_value())
    }

    /// Adds a run of text cells given as `keys` into the dictionary `dictionary` of `entries`
    /// texts `entry(k)` (valid UTF-8, as an Arrow string array's): each entry is interned the
    /// first time a key names it, then its id serves every cell naming it while the dictionary
    /// repeats. Only for columns [`Self::takes_coded_texts`].
    pub fn push_coded_texts<'e>(
        &mut self,
        dictionary: u64,
        entries: usize,
        entry: impl Fn(usize) -> &'e [u8],
        keys: &[i32],
    ) -> Result<(), RunError> {
        // Earlier values go first, so ids stay in doc order.
        self.flush_pending()?;
        let Distinct::Var(Typed { interner, .. }) = &mut self.distinct else {
            return Err(CellError::Failed(SegmentError::Schema(format!(
                "column '{}' does not take coded texts",
                self.spec.name
            ))));
        };
        let coded = &mut self.coded;
        if coded.dictionary != Some(dictionary) || coded.ids.len() != entries {
            coded.dictionary = Some(dictionary);
            coded.ids.clear();
            coded.ids.resize(entries, NOT_INTERNED);
        }
        for (c, chunk) in keys.chunks(BATCH).enumerate() {
            self.ids.clear();
            let mut bad = None;
            for (i, &k) in chunk.iter().enumerate() {
                let Some(slot) = usize::try_from(k).ok().and_then(|k| coded.ids.get_mut(k)) else {
                    bad = Some((c * BATCH + i, format!("dictionary key {k} is out of range")));
                    break;
                };
                if *slot == NOT_INTERNED {
                    *slot = interner.intern(entry(k as usize));
                }
                self.ids.push(*slot);
            }
            self.entries += self.ids.len() as u64;
            if !self.ids.is_empty() {
                self.id_chunks.write(&self.ids, &mut self.spill)?;
            }
            if let Some(bad) = bad {
                return Err(CellError::Bad(bad));
            }
        }
        Ok(())
    }

    /// Appends `values` to the pending batch `pending` picks (interning it each time it fills);
    /// `false` (nothing done) if the column has no such batch.
    #[inline]
    fn extend_pending<T: Copy>(
        &mut self,
        mut values: &[T],
        pending: impl Fn(&mut Distinct) -> Option<&mut Vec<T>>,
    ) -> Result<bool, SegmentError> {
        if pending(&mut self.distinct).is_none() {
            return Ok(false);
        }
        while let Some(batch) = pending(&mut self.distinct)
            && !values.is_empty()
        {
            let (now, later) = values.split_at(BATCH.saturating_sub(batch.len()).min(values.len()));
            batch.extend_from_slice(now);
            self.entries += now.len() as u64;
            values = later;
            if batch.len() >= BATCH {
                self.flush_pending()?;
            }
        }
        Ok(true)
    }

    /// Splits multi-value text cells on `d` instead of [`MV_DELIMITER`].
    pub fn set_multi_value_delimiter(&mut self, d: u8) {
        self.mv_delimiter = d;
    }

    /// Told that the input holds about `rows` rows: a string column whose values so far were
    /// nearly all new (free text such as `l_comment`) keeps every value from now on rather than
    /// looking each one up ([`VarInterner::keep_every_value`]), with room for all of them.
    /// Columns that repeat their values keep interning.
    pub fn expect_rows(&mut self, rows: u64) {
        let seen = self.entries;
        if let Distinct::Var(Typed { interner: i, .. }) = &mut self.distinct
            && self.spec.single_value_field
            && seen >= 1024
            && i.len() as u64 * 10 >= seen * 9
        {
            let bytes_per_value = i.bytes() as u64 / (i.len() as u64).max(1);
            let rows = rows.min(u32::MAX as u64);
            // An eighth more than the first values' average: the arena is reserved once and
            // not doubled (copied, and faulted in again) for values a little longer than those.
            i.keep_every_value(rows as usize, (rows * bytes_per_value * 9 / 8) as usize);
        }
    }

    /// Appends the interned ids in `self.ids` to the spill file.
    fn spill_ids(&mut self) -> Result<(), SegmentError> {
        self.id_chunks.write(&self.ids, &mut self.spill)
    }

    /// Counts a value just added to the pending batch, interning the batch when full.
    #[inline]
    fn after_pending(&mut self) -> Result<(), SegmentError> {
        self.entries += 1;
        if self.distinct.values().is_some_and(|v| v.waiting() >= BATCH) {
            self.flush_pending()?;
        }
        Ok(())
    }

    /// Records a null cell: the default value is stored and the doc marked null.
    pub fn push_null(&mut self, doc: DocId) -> Result<(), SegmentError> {
        self.nulls.insert(doc);
        let s = self.default_scalar.clone();
        if self.spec.single_value_field {
            self.add_sv(&s)
        } else {
            self.mv_ids.clear();
            let id = self.intern(&s)?;
            self.mv_ids.push(id);
            self.flush_mv()
        }
    }

    /// Adds a CSV cell (non-empty text; multi-value cells split on `;`, empty parts skipped).
    pub fn push_text(&mut self, doc: DocId, text: &[u8]) -> Result<(), CellError> {
        let dt = self.spec.data_type;
        if dt == DataType::Map {
            return self.push_value(doc, &Value::String(text_of(text).into_owned()));
        }
        if self.spec.single_value_field {
            if self.push_plain_text(dt, text) {
                return Ok(self.after_pending()?);
            }
            let s = parse_text(dt, text).map_err(CellError::Bad)?;
            return Ok(self.add_sv(&s)?);
        }
        self.mv_ids.clear();
        let d = self.mv_delimiter;
        for part in text.split(|&b| b == d).filter(|p| !p.is_empty()) {
            let s = parse_text(dt, part).map_err(CellError::Bad)?;
            let id = self.intern(&s)?;
            self.mv_ids.push(id);
        }
        if self.mv_ids.is_empty() {
            return Ok(self.push_null(doc)?);
        }
        Ok(self.flush_mv()?)
    }

    /// Adds a typed value (`Value::Null` for null, `Value::Array` for multi-value cells).
    pub fn push_value(&mut self, doc: DocId, v: &Value) -> Result<(), CellError> {
        let dt = self.spec.data_type;
        match v {
            Value::Null => Ok(self.push_null(doc)?),
            Value::Array(_) if self.spec.single_value_field => Err(CellError::Bad(format!(
                "unexpected array '{v}' for a single-value column"
            ))),
            _ if self.spec.single_value_field => {
                let v = typed_cell(&self.spec, v).map_err(CellError::Bad)?;
                let s = scalar_of_value(dt, &v).map_err(CellError::Bad)?;
                Ok(self.add_sv(&s)?)
            }
            _ => {
                let items = match v {
                    Value::Array(items) => items.as_slice(),
                    single => std::slice::from_ref(single),
                };
                self.mv_ids.clear();
                for item in items.iter().filter(|i| !i.is_null()) {
                    let s = scalar_of_value(dt, item).map_err(CellError::Bad)?;
                    let id = self.intern(&s)?;
                    self.mv_ids.push(id);
                }
                if self.mv_ids.is_empty() {
                    return Ok(self.push_null(doc)?);
                }
                Ok(self.flush_mv()?)
            }
        }
    }

    /// Adds a JSON cell (`null` for null, arrays for multi-value cells; strings are parsed as
    /// text of the column type, so `"2020-01-01"` fills a TIMESTAMP).
    pub fn push_json(&mut self, doc: DocId, v: &serde_json::Value) -> Result<(), CellError> {
        let value = json_to_value(self.spec.data_type, v).map_err(CellError::Bad)?;
        self.push_value(doc, &value)
    }

    /// Finishes pass 1 for this column (interns what is pending, flushes the spill file).
    pub fn finish(&mut self) -> Result<(), SegmentError> {
        self.flush_pending()?;
        self.spill.finish()
    }
}

/// A single value as `spec`'s column stores it, where its data type alone does not say: a
/// MAP's entries typed as its `value` child declares ([`crate::types::map::typed_map`]).
pub fn typed_cell<'v>(spec: &FieldSpec, v: &'v Value) -> Result<Cow<'v, Value>, String> {
    let Some(value_type) = spec.map_value_type() else {
        return Ok(Cow::Borrowed(v));
    };
    if v.is_null() {
        return Ok(Cow::Borrowed(v));
    }
    let typed = match v {
        Value::Map(s) | Value::Json(s) | Value::String(s) => {
            crate::types::map::typed_map_text(s, value_type)
        }
        other => crate::types::map::typed_map(&other.to_json(), value_type),
    };
    typed.map(Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cell's outcome: `Err` with why for a bad cell; a failure ends the test.
    fn outcome<B>(r: Result<(), CellError<B>>) -> Result<(), B> {
        match r {
            Ok(()) => Ok(()),
            Err(CellError::Bad(b)) => Err(b),
            Err(CellError::Failed(e)) => panic!("{e}"),
        }
    }

    #[test]
    fn parses_text_fast_and_slow() {
        assert!(matches!(
            parse_text(DataType::Int, b"-42"),
            Ok(Scalar::I32(-42))
        ));
        assert!(matches!(
            parse_text(DataType::Int, b" 7 "),
            Ok(Scalar::I32(7))
        ));
        assert!(matches!(
            parse_text(DataType::Int, b"3.0"),
            Ok(Scalar::I32(3))
        ));
        assert_eq!(
            parse_text(DataType::Int, b"99999999999").unwrap_err(),
            "cannot parse '99999999999' as INT"
        );
        assert!(matches!(
            parse_text(DataType::Long, b"1234567890123456789"),
            Ok(Scalar::I64(1234567890123456789))
        ));
        assert!(matches!(parse_text(DataType::Double, b"1.5"), Ok(Scalar::F64(v)) if v == 1.5));
        assert!(
            matches!(parse_text(DataType::Double, b"-Infinity"), Ok(Scalar::F64(v)) if v == f64::NEG_INFINITY)
        );
        assert_eq!(
            parse_text(DataType::Double, b"x").unwrap_err(),
            "cannot parse 'x' as DOUBLE"
        );
        assert!(matches!(
            parse_text(DataType::Timestamp, b"2020-01-01"),
            Ok(Scalar::I64(1_577_836_800_000))
        ));
        assert!(matches!(
            parse_text(DataType::Boolean, b"true"),
            Ok(Scalar::I32(1))
        ));
        assert!(
            matches!(parse_text(DataType::Bytes, b"0aff"), Ok(Scalar::Bytes(b)) if *b == [10, 255])
        );
        assert!(
            matches!(parse_text(DataType::BigDecimal, b"01.50"), Ok(Scalar::Bytes(b)) if *b == *b"1.50")
        );
        assert!(parse_text(DataType::String, b"\xff").is_err());
        assert!(
            matches!(parse_text(DataType::String, b" a "), Ok(Scalar::Bytes(b)) if *b == *b" a ")
        );
    }

    proptest::proptest! {
        #[test]
        fn fast_f64_is_exact(m in 0u64..1_000_000_000_000_000, decimals in 0usize..16, neg: bool) {
            let digits = m.to_string();
            let text = if decimals == 0 || decimals >= digits.len() {
                format!("{}{digits}", if neg { "-" } else { "" })
            } else {
                format!("{}{}.{}", if neg { "-" } else { "" }, &digits[..digits.len() - decimals], &digits[digits.len() - decimals..])
            };
            let want: f64 = text.parse().unwrap();
            proptest::prop_assert_eq!(fast_f64(text.as_bytes()).map(f64::to_bits), Some(want.to_bits()), "{}", text);
        }
    }

    proptest::proptest! {
        #[test]
        fn fast_dates_match_the_timestamp_parser(y in 0u32..10000, m in 0u32..14, d in 0u32..33) {
            let text = format!("{y:04}-{m:02}-{d:02}");
            let want = crate::types::time::parse_timestamp(&text);
            proptest::prop_assert_eq!(fast_date_millis(text.as_bytes()), want);
        }
    }

    /// Cells fed through the plain fast path (with the slow path for what it declines, as the
    /// CSV reader does) and one by one give the same spill bytes, distinct values and nulls.
    #[test]
    fn plain_cells_match_cell_by_cell() {
        let cells: Vec<&[u8]> = vec![
            b"b",
            b"a",
            b"",
            b"b",
            "é".as_bytes(),
            b"c",
            b"",
            b"",
            b"a",
            b"zz",
            b"1996-03-13",
            b"12",
            b"-7",
            b"1.5",
            b"x",
            b"3.0",
            b"1e3",
            b" 4 ",
        ];
        // Many cells, so batches of the fast path fill and flush; then the same without the
        // non-ASCII cell, which the reader may declare all ASCII.
        let mixed: Vec<&[u8]> = (0..5000)
            .map(|i| cells[(i * 7 + i / 13) % cells.len()])
            .collect();
        let ascii: Vec<&[u8]> = mixed.iter().copied().filter(|c| c.is_ascii()).collect();
        plain_cells_agree(&mixed, false);
        plain_cells_agree(&ascii, true);
    }

    /// Coded texts (keys into dictionaries, as Parquet's dictionary pages give them) intern
    /// each entry a key names, once, and spill the same ids as the texts fed one by one; an
    /// entry no key names never enters the column's dictionary, and a new dictionary name
    /// starts over.
    #[test]
    fn coded_texts_match_cell_by_cell() {
        let dir = tempfile::tempdir().unwrap();
        let spec = FieldSpec::dimension("c", DataType::String);
        let spill = |name: &str| SpillWriter::create(dir.path().join(name)).unwrap();
        let mut one = ColumnCollector::new(&spec, true, spill("one")).unwrap();
        let mut coded = ColumnCollector::new(&spec, true, spill("coded")).unwrap();
        assert!(coded.takes_coded_texts());
        // Two dictionaries (as two row groups), the second reordering the first's entries.
        type Run<'a> = (u64, Vec<&'a [u8]>, Vec<i32>);
        let runs: [Run<'_>; 3] = [
            (
                7,
                vec![b"b", b"", b"unused", b"a"],
                (0..5000).map(|i| [0, 1, 3][i % 3]).collect(),
            ),
            (7, vec![b"b", b"", b"unused", b"a"], vec![3, 3, 0]),
            (
                8,
                vec![b"a", b"c", b"b"],
                (0..3000).map(|i| i * 7 % 3).collect(),
            ),
        ];
        let mut doc = 0u32;
        for (name, entries, keys) in &runs {
            for &k in keys {
                let text = entries[k as usize];
                if text.is_empty() {
                    one.push_value(doc, &Value::String(String::new())).unwrap();
                } else {
                    one.push_text(doc, text).unwrap();
                }
                doc += 1;
            }
            coded
                .push_coded_texts(*name, entries.len(), |k| entries[k], keys)
                .unwrap();
        }
        // A key beyond the dictionary is refused at its place, the cells before it taken.
        let bad = outcome(coded.push_coded_texts(9, 2, |k| [b"x", b"y"][k], &[0, 1, 2, 0]));
        assert_eq!(bad.map_err(|(i, _)| i), Err(2));
        for text in [b"x", b"y"] {
            one.push_text(doc, text).unwrap();
            doc += 1;
        }
        one.finish().unwrap();
        coded.finish().unwrap();
        assert_eq!(one.entries, coded.entries);
        let ids = |c: &mut ColumnCollector| {
            crate::builder::spill::read_id_chunks(&c.spill.read_and_remove().unwrap(), Some)
                .unwrap()
        };
        assert_eq!(ids(&mut one), ids(&mut coded));
        let (Distinct::Var(a), Distinct::Var(b)) = (&one.distinct, &coded.distinct) else {
            panic!("string columns intern bytes");
        };
        let values = |t: &Typed<super::super::typed::Var>| {
            (0..t.interner.len() as u32)
                .map(|id| t.interner.get(id).to_vec())
                .collect::<Vec<_>>()
        };
        assert_eq!(values(a), values(b));
        assert!(!values(b).contains(&b"unused".to_vec()));
    }

    /// Typed runs of numbers intern as the same values fed one by one do, for every pairing of
    /// run type and column type (the matching ones straight into the pending batch).
    #[test]
    fn number_runs_match_value_by_value() {
        let dir = tempfile::tempdir().unwrap();
        let longs: Vec<i64> = (0..5000).map(|i| (i * 37 % 101) - 50).collect();
        let ints: Vec<i32> = longs.iter().map(|&v| v as i32).collect();
        let doubles: Vec<f64> = longs.iter().map(|&v| v as f64 / 4.0).collect();
        let floats: Vec<f32> = doubles.iter().map(|&v| v as f32).collect();
        let runs = [
            Numbers::I64(&longs),
            Numbers::Millis(&longs),
            Numbers::I32(&ints),
            Numbers::F64(&doubles),
            Numbers::F32(&floats),
        ];
        for (k, dt) in [
            DataType::Long,
            DataType::Timestamp,
            DataType::Int,
            DataType::Double,
            DataType::Float,
            DataType::String,
        ]
        .into_iter()
        .enumerate()
        {
            for (r, run) in runs.iter().enumerate() {
                let spec = FieldSpec::dimension("c", dt);
                let spill = |name: &str| {
                    SpillWriter::create(dir.path().join(format!("{k}-{r}-{name}"))).unwrap()
                };
                let mut one = ColumnCollector::new(&spec, true, spill("one")).unwrap();
                let mut many = ColumnCollector::new(&spec, true, spill("many")).unwrap();
                // A value first, so the run follows pending values.
                one.push_value(0, &run.value(1)).unwrap();
                many.push_value(0, &run.value(1)).unwrap();
                let mut want = Ok(());
                for i in 0..run.len() {
                    if let Err(e) = outcome(one.push_value(1 + i as u32, &run.value(i))) {
                        want = Err((i, e));
                        break;
                    }
                }
                assert_eq!(outcome(many.push_numbers(1, *run)), want, "{dt} {run:?}");
                one.finish().unwrap();
                many.finish().unwrap();
                assert_eq!(one.entries, many.entries, "{dt}");
                let ids = |c: &mut ColumnCollector| {
                    crate::builder::spill::read_id_chunks(&c.spill.read_and_remove().unwrap(), Some)
                };
                assert_eq!(ids(&mut one), ids(&mut many), "{dt} {run:?}");
            }
        }
    }

    fn plain_cells_agree(cells: &[&[u8]], all_ascii: bool) {
        let dir = tempfile::tempdir().unwrap();
        for (k, dt) in [
            DataType::String,
            DataType::Long,
            DataType::Int,
            DataType::Double,
            DataType::Timestamp,
            DataType::Float,
        ]
        .into_iter()
        .enumerate()
        {
            let spec = FieldSpec::dimension("c", dt);
            let spill =
                |name: &str| SpillWriter::create(dir.path().join(format!("{k}{name}"))).unwrap();
            let mut one = ColumnCollector::new(&spec, true, spill("one")).unwrap();
            let mut fast = ColumnCollector::new(&spec, true, spill("fast")).unwrap();
            let (mut errs_one, mut errs_fast) = (Vec::new(), Vec::new());
            let feed = |c: &mut ColumnCollector, doc: usize, errs: &mut Vec<usize>| {
                let cell = cells[doc];
                if cell.is_empty() {
                    c.push_null(doc as u32).unwrap();
                } else if outcome(c.push_text(doc as u32, cell)).is_err() {
                    errs.push(doc);
                }
            };
            for doc in 0..cells.len() {
                feed(&mut one, doc, &mut errs_one);
            }
            let mut i = 0;
            while i < cells.len() {
                let start = i;
                i += fast
                    .push_plain_cells(cells.len() - start, all_ascii, |j| cells[start + j])
                    .unwrap();
                if i < cells.len() {
                    feed(&mut fast, i, &mut errs_fast);
                    i += 1;
                }
            }
            one.finish().unwrap();
            fast.finish().unwrap();
            assert_eq!(errs_one, errs_fast, "{dt}");
            assert_eq!(one.nulls, fast.nulls, "{dt}");
            assert_eq!(one.entries, fast.entries, "{dt}");
            let (a, b) = (
                one.spill.read_and_remove().unwrap(),
                fast.spill.read_and_remove().unwrap(),
            );
            if one.dict && one.spec.single_value_field {
                // Both paths spill the same ids, in chunks that may be cut differently.
                let ids = |b: &[u8]| crate::builder::spill::read_id_chunks(b, Some).unwrap();
                assert_eq!(ids(&a), ids(&b), "{dt}");
            } else {
                assert_eq!(a, b, "{dt}");
            }
            if let (Distinct::Var(a), Distinct::Var(b)) = (&one.distinct, &fast.distinct) {
                let (a, b) = (&a.interner, &b.interner);
                assert_eq!(a.len(), b.len());
                for id in 0..a.len() as u32 {
                    assert_eq!(a.get(id), b.get(id));
                }
            }
        }
    }

    #[test]
    fn fast_f64_declines_what_it_cannot_do_exactly() {
        assert_eq!(fast_f64(b"1e5"), None);
        assert_eq!(fast_f64(b"1.2.3"), None);
        assert_eq!(fast_f64(b"."), None);
        assert_eq!(fast_f64(b"-"), None);
        assert_eq!(fast_f64(b"1234567890123456"), None);
        assert_eq!(fast_f64(b"5."), Some(5.0));
        assert_eq!(fast_f64(b".5"), Some(0.5));
        assert_eq!(
            fast_f64(b"-0.0").map(f64::to_bits),
            Some((-0.0f64).to_bits())
        );
    }

    #[test]
    fn converts_values_and_json() {
        assert!(matches!(
            scalar_of_value(DataType::Long, &Value::Int(3)),
            Ok(Scalar::I64(3))
        ));
        assert!(
            matches!(scalar_of_value(DataType::Double, &Value::Int(3)), Ok(Scalar::F64(v)) if v == 3.0)
        );
        assert!(
            matches!(scalar_of_value(DataType::String, &Value::Int(3)), Ok(Scalar::Bytes(b)) if *b == *b"3")
        );
        assert!(scalar_of_value(DataType::Int, &Value::String("x".into())).is_err());
        assert!(scalar_of_value(DataType::Int, &Value::Long(1 << 40)).is_err());
        assert!(matches!(
            scalar_of_value(DataType::Int, &Value::Double(-2.7)),
            Ok(Scalar::I32(-2))
        ));
        assert!(scalar_of_value(DataType::Int, &Value::Double(1e12)).is_err());
        assert!(scalar_of_value(DataType::Long, &Value::Double(f64::NAN)).is_err());
        assert!(matches!(
            scalar_of_value(DataType::Int, &Value::Double(2.0)),
            Ok(Scalar::I32(2))
        ));
        assert!(
            matches!(scalar_of_value(DataType::Float, &Value::Long(3)), Ok(Scalar::F32(v)) if v == 3.0)
        );
        assert!(matches!(
            scalar_of_value(DataType::Timestamp, &Value::String("1970-01-01".into())),
            Ok(Scalar::I64(0))
        ));
    }
}
