//! A segment built from the docs of other segments, column by column: the docs of `parts[0]`,
//! then those of `parts[1]`, … — the same segment as building their rows in that order.
//!
//! A consuming segment indexes its rows in chunks as they arrive; merging two chunks and
//! committing the consuming segment go through here, so a row is parsed and packed once and
//! never read back as a value afterwards. Each part's column is read where it is stored: a text
//! dictionary's entries are interned once per part and its docs arrive as dictionary ids
//! ([`ColumnCollector::push_coded_texts`]), numbers are gathered from the dictionary or the raw
//! forward index into typed runs ([`ColumnCollector::push_numbers`]), and only the remaining
//! kinds (multi-value cells, decimals, bytes, booleans) travel as [`Value`]s. Nulls stay nulls.
//! Pass 2 ([`super::finish`]) then sorts, encodes and indexes as for any other input.

use super::collector::ColumnCollector;
use super::{BuildSummary, begin, finish};
use crate::build_config::BuildConfig;
use crate::dictionary::Dictionary;
use crate::error::SegmentError;
use crate::forward::ForwardIndex;
use crate::input::{Numbers, build_threads};
use crate::segment::{ColumnReader, ImmutableSegment};
use crate::types::{DataType, DictId, DocId, Schema, Value};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Docs read from a forward index at a time.
const RUN: u32 = 4096;

/// Builds `out_dir/<config.segment_name>/` from the docs of `parts`, in order. Every part must
/// have every column of `config.build_schema(schema)` with the schema's type (segments built
/// for the same table do).
pub fn build_segment_from_segments(
    schema: &Schema,
    config: &BuildConfig,
    parts: &[&ImmutableSegment],
    out_dir: &Path,
) -> Result<BuildSummary, SegmentError> {
    let started = Instant::now();
    let total: u64 = parts.iter().map(|p| u64::from(p.total_docs())).sum();
    let docs = u32::try_from(total)
        .ok()
        .filter(|&d| d < u32::MAX - 1)
        .ok_or_else(|| SegmentError::Config("a segment holds at most 2^32 - 2 rows".into()))?;
    let (full, staging, mut cols) = begin(schema, config, out_dir)?;
    let per_thread = cols.0.len().div_ceil(build_threads()).max(1);
    std::thread::scope(|s| {
        let tasks: Vec<_> = cols
            .0
            .chunks_mut(per_thread)
            .map(|group| s.spawn(move || group.iter_mut().try_for_each(|c| copy_all(c, parts))))
            .collect();
        tasks
            .into_iter()
            .try_for_each(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    })?;
    let read = started.elapsed().as_secs_f64();
    finish(&full, config, cols, docs, staging, started, read)
}

/// Appends the column of every part to `c`.
fn copy_all(c: &mut ColumnCollector, parts: &[&ImmutableSegment]) -> Result<(), SegmentError> {
    let mut first: DocId = 0;
    for (k, part) in parts.iter().enumerate() {
        let name = c.spec.name.clone();
        let reader = part
            .column(&name)
            .filter(|r| {
                r.data_type() == c.spec.data_type
                    && r.is_single_value() == c.spec.single_value_field
            })
            .ok_or_else(|| {
                SegmentError::Schema(format!(
                    "segment '{}' has no {} column '{name}' of type {}",
                    part.name(),
                    if c.spec.single_value_field {
                        "single-value"
                    } else {
                        "multi-value"
                    },
                    c.spec.data_type
                ))
            })?;
        PartColumn {
            c,
            source: part.name(),
            first,
            key: k as u64,
        }
        .column(reader, part.total_docs())?;
        first += part.total_docs();
    }
    Ok(())
}

/// The entries of `values` (a numeric dictionary) that `ids` name, in order.
fn gather<T: Copy>(values: &[T], ids: &[DictId]) -> Vec<T> {
    ids.iter().map(|&i| values[i as usize]).collect()
}

/// One part's column going into a collector.
struct PartColumn<'c, 's> {
    c: &'c mut ColumnCollector,
    /// The part's name, for errors.
    source: &'s str,
    /// The merged doc id of the part's doc 0.
    first: DocId,
    /// Tells the parts' dictionaries apart ([`ColumnCollector::push_coded_texts`]).
    key: u64,
}

impl PartColumn<'_, '_> {
    fn column(&mut self, reader: &ColumnReader, docs: DocId) -> Result<(), SegmentError> {
        let nulls = reader.nulls();
        let is_null = |doc: DocId| nulls.is_some_and(|n| n.contains(doc));
        match reader.forward() {
            ForwardIndex::Dict(ids) => {
                let dict = self.dictionary(reader)?;
                let texts = self.texts_of(dict);
                let mut buf = vec![0; RUN as usize];
                let mut start = 0;
                while start < docs {
                    let run = &mut buf[..(docs - start).min(RUN) as usize];
                    ids.read_range(start, run);
                    // Runs between nulls go together; a null is pushed as one.
                    let mut from = 0;
                    let end = start + run.len() as DocId;
                    for null in nulls.into_iter().flat_map(|n| n.range(start..end)) {
                        let at = (null - start) as usize;
                        self.dict_run(
                            dict,
                            texts.as_deref(),
                            start + from as DocId,
                            &run[from..at],
                        )?;
                        self.c.push_null(self.first + null)?;
                        from = at + 1;
                    }
                    self.dict_run(dict, texts.as_deref(), start + from as DocId, &run[from..])?;
                    start = end;
                }
            }
            ForwardIndex::DictMv(f) => {
                let dict = self.dictionary(reader)?;
                let mut ids = Vec::new();
                for doc in 0..docs {
                    if is_null(doc) {
                        self.c.push_null(self.first + doc)?;
                        continue;
                    }
                    f.read(doc, &mut ids);
                    let cell = Value::Array(ids.iter().map(|&i| dict.value(i)).collect());
                    self.value(doc, &cell)?;
                }
            }
            ForwardIndex::Raw(r) => {
                let mut cursor = r.cursor();
                for doc in 0..docs {
                    if is_null(doc) {
                        self.c.push_null(self.first + doc)?;
                    } else {
                        self.value(doc, &cursor.value(doc))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// A text dictionary's entries, when the column takes dictionary ids
    /// ([`ColumnCollector::takes_coded_texts`]): borrowed from a plain dictionary, decoded once
    /// from a blocked one.
    fn texts_of<'d>(&self, dict: &'d Dictionary) -> Option<Vec<Cow<'d, [u8]>>> {
        if !self.c.takes_coded_texts() || !matches!(dict, Dictionary::String(_)) {
            return None;
        }
        Some((0..dict.len()).map(|id| dict.bytes_at(id)).collect())
    }

    /// Docs `local..local + ids.len()` of the part, none of them null.
    fn dict_run(
        &mut self,
        dict: &Dictionary,
        texts: Option<&[Cow<'_, [u8]>]>,
        local: DocId,
        ids: &[DictId],
    ) -> Result<(), SegmentError> {
        if ids.is_empty() {
            return Ok(());
        }
        let first = self.first + local;
        let dt = self.c.spec.data_type;
        let pushed = match (texts, dict, dt) {
            (Some(texts), _, _) => {
                let keys: Vec<i32> = ids.iter().map(|&i| i as i32).collect();
                self.c
                    .push_coded_texts(self.key, texts.len(), |k| &texts[k], &keys)
            }
            (None, Dictionary::Int(d), DataType::Int) => self
                .c
                .push_numbers(first, Numbers::I32(&gather(d.values(), ids))),
            (None, Dictionary::Long(d), DataType::Long | DataType::Timestamp) => self
                .c
                .push_numbers(first, Numbers::I64(&gather(d.values(), ids))),
            (None, Dictionary::Float(d), DataType::Float) => self
                .c
                .push_numbers(first, Numbers::F32(&gather(d.values(), ids))),
            (None, Dictionary::Double(d), DataType::Double) => self
                .c
                .push_numbers(first, Numbers::F64(&gather(d.values(), ids))),
            _ => {
                for (i, &id) in ids.iter().enumerate() {
                    self.value(local + i as DocId, &dict.value(id))?;
                }
                Ok(())
            }
        };
        pushed.map_err(|e| e.locate(|(i, reason)| self.refused(local + i as DocId, reason)))
    }

    /// Doc `local` of the part as a value.
    fn value(&mut self, local: DocId, v: &Value) -> Result<(), SegmentError> {
        self.c
            .push_value(self.first + local, v)
            .map_err(|e| e.locate(|reason| self.refused(local, reason)))
    }

    fn refused(&self, local: DocId, reason: String) -> SegmentError {
        SegmentError::Input {
            file: PathBuf::from(self.source),
            line: u64::from(local) + 1,
            column: self.c.spec.name.clone(),
            reason,
        }
    }

    /// The dictionary of a dictionary-encoded column.
    fn dictionary<'r>(&self, reader: &'r ColumnReader) -> Result<&'r Dictionary, SegmentError> {
        reader.dictionary().ok_or_else(|| {
            SegmentError::Schema(format!(
                "segment '{}', column '{}': a dictionary-encoded column has no dictionary",
                self.source, self.c.spec.name
            ))
        })
    }
}
