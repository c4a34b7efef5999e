//! Projection: reads the columns a query needs for a block of documents.
//!
//! A [`ColumnSource`] is one column of one segment, opened once per segment: dictionary
//! columns yield ids (bulk `read_range` for contiguous docs and for dense blocks — their span
//! decoded in bulk, then picked —, per-document gathers otherwise), raw columns yield typed
//! vectors through a chunk-caching cursor (bulk for contiguous and dense blocks alike), virtual columns (`$docId`,
//! `$segmentName`, `$hostName`) are computed, and a column the segment lacks (schema
//! evolution) reads as its default value. With null handling on, the column's null bitmap
//! becomes per-row null flags.
//!
//! [`ProjectionOperator`] pulls doc-id blocks from a [`DocSet`] and turns them into
//! [`Block`]s, checking the query deadline once per block.

use super::Operator;
use super::doc_set::{DocBlocks, DocSet};
use crate::block::{Block, ColumnData, Projected};
use crate::context::QueryContext;
use crate::error::EngineError;
use planner::plan::{ColumnRef, ExecutionOptions};
use segments::forward::{ForwardIndex, RawCursor};
use segments::segment::{ColumnReader, ImmutableSegment};
use segments::types::{DataType, DocId, StoredType, Value};

/// Dictionaries up to this size are always decoded for numeric aggregation.
pub(super) const DECODE_ALWAYS: u32 = 1 << 16;

/// A block whose documents span at most this many times their count is read as one range
/// (bulk decode) and gathered from it, rather than document by document.
pub(super) const DENSE_SPAN: usize = 4;

/// How to read one column of one segment.
pub struct ColumnSource<'s> {
    pub name: String,
    pub data_type: DataType,
    reader: Option<&'s ColumnReader>,
    cursor: Option<RawCursor<'s>>,
    decoded: Option<&'s [f64]>,
    /// Every value of a block-compressed text dictionary, decoded once (see
    /// [`ColumnSource::decode_text_for`]).
    texts: Option<Vec<Value>>,
    /// Reused buffers for dense blocks' spans.
    span_ids: Vec<u32>,
    span_i64: Vec<i64>,
    span_f64: Vec<f64>,
    null_handling: bool,
    /// What the column reads as if the segment lacks it.
    default: Value,
    segment_name: &'s str,
}

impl<'s> ColumnSource<'s> {
    /// A source for `column` of `segment`. `numeric_docs` is set when the column feeds a
    /// numeric aggregation over that many documents: its dictionary is then decoded to numbers
    /// once, if it is small (≤ 65,536 entries) or no larger than the documents to read.
    pub fn new(
        segment: &'s ImmutableSegment,
        column: &ColumnRef,
        numeric_docs: Option<u64>,
        options: &ExecutionOptions,
    ) -> ColumnSource<'s> {
        let reader = segment.column(&column.name);
        let cursor = match reader.map(ColumnReader::forward) {
            Some(ForwardIndex::Raw(raw)) => Some(raw.cursor()),
            _ => None,
        };
        let decoded = match (numeric_docs, reader.and_then(ColumnReader::dictionary)) {
            (Some(docs), Some(d)) if d.len() <= DECODE_ALWAYS || d.len() as u64 <= docs => {
                reader.and_then(ColumnReader::dictionary_numbers)
            }
            _ => None,
        };
        ColumnSource {
            name: column.name.clone(),
            data_type: column.column_type.data_type,
            reader,
            cursor,
            decoded,
            texts: None,
            span_ids: Vec::new(),
            span_i64: Vec::new(),
            span_f64: Vec::new(),
            null_handling: options.enable_null_handling,
            default: options.column_default(&column.name, column.column_type.data_type),
            segment_name: segment.name(),
        }
    }

    /// Prepares to read about `docs` documents: a block-compressed text dictionary of no more
    /// entries than twice that is decoded whole, once, in id order (documents in doc order
    /// reach its blocks at random, which costs a block decode per value read).
    pub fn decode_text_for(&mut self, docs: u64) {
        if let Some(reader) = self.reader
            && let (ForwardIndex::Dict(_), Some(dict)) = (reader.forward(), reader.dictionary())
            && dict.is_blocked()
            && u64::from(dict.len()) <= docs.saturating_mul(2)
        {
            let ids: Vec<u32> = (0..dict.len()).collect();
            self.texts = Some(dict.values(&ids));
        }
    }

    /// The column's reader, if the segment has the column.
    pub fn reader(&self) -> Option<&'s ColumnReader> {
        self.reader
    }

    /// Reads the column for `docs` (ascending).
    pub fn read(&mut self, docs: &[DocId]) -> Projected<'s> {
        let Some(reader) = self.reader else {
            return self.read_virtual_or_default(docs);
        };
        let data_type = reader.data_type();
        let span = match (docs.first(), docs.last()) {
            (Some(&first), Some(&last)) => (last - first) as usize + 1,
            _ => 0,
        };
        let contiguous = docs.len() > 1 && span == docs.len();
        // Dense but with gaps: decode the span in bulk, then pick the documents.
        let dense = !contiguous && docs.len() > 1 && span <= docs.len() * DENSE_SPAN;
        let data = match (reader.forward(), reader.dictionary()) {
            (ForwardIndex::Dict(f), Some(dict)) => {
                let mut ids = vec![0u32; docs.len()];
                if contiguous {
                    f.read_range(docs[0], &mut ids);
                } else if dense {
                    self.span_ids.resize(span, 0);
                    f.read_range(docs[0], &mut self.span_ids);
                    gather(&self.span_ids, docs, &mut ids);
                } else {
                    f.read_docs(docs, &mut ids);
                }
                match &self.texts {
                    Some(texts) => ColumnData::Values(
                        ids.iter().map(|&id| texts[id as usize].clone()).collect(),
                    ),
                    None => ColumnData::Dict {
                        ids,
                        dict,
                        decoded: self.decoded,
                    },
                }
            }
            (ForwardIndex::DictMv(f), Some(dict)) => {
                let mut ids = Vec::with_capacity(docs.len());
                let mut offsets = Vec::with_capacity(docs.len() + 1);
                offsets.push(0u32);
                let mut one = Vec::new();
                for &d in docs {
                    f.read(d, &mut one);
                    ids.extend_from_slice(&one);
                    offsets.push(ids.len() as u32);
                }
                ColumnData::DictMv {
                    ids,
                    offsets,
                    dict,
                    decoded: self.decoded,
                }
            }
            (ForwardIndex::Raw(raw), _) => {
                let cursor = self.cursor.get_or_insert_with(|| raw.cursor());
                match data_type.stored() {
                    StoredType::Int | StoredType::Long => {
                        let mut out = vec![0i64; docs.len()];
                        if contiguous {
                            cursor.read_i64_range(docs[0], &mut out);
                        } else if dense {
                            self.span_i64.resize(span, 0);
                            cursor.read_i64_range(docs[0], &mut self.span_i64);
                            gather(&self.span_i64, docs, &mut out);
                        } else {
                            for (o, &d) in out.iter_mut().zip(docs) {
                                *o = cursor.i64(d);
                            }
                        }
                        ColumnData::I64(out)
                    }
                    StoredType::Float | StoredType::Double => {
                        let mut out = vec![0f64; docs.len()];
                        if contiguous {
                            cursor.read_f64_range(docs[0], &mut out);
                        } else if dense {
                            self.span_f64.resize(span, 0.0);
                            cursor.read_f64_range(docs[0], &mut self.span_f64);
                            gather(&self.span_f64, docs, &mut out);
                        } else {
                            for (o, &d) in out.iter_mut().zip(docs) {
                                *o = cursor.f64(d);
                            }
                        }
                        ColumnData::F64(out)
                    }
                    _ => ColumnData::Values(docs.iter().map(|&d| cursor.value(d)).collect()),
                }
            }
            // A dictionary forward index without a dictionary cannot be opened; read defaults.
            _ => return self.read_virtual_or_default(docs),
        };
        let nulls = if self.null_handling {
            reader
                .nulls()
                .filter(|b| !b.is_empty())
                .map(|b| docs.iter().map(|d| b.contains(*d)).collect())
        } else {
            None
        };
        Projected {
            data,
            data_type,
            nulls,
        }
    }

    fn read_virtual_or_default(&self, docs: &[DocId]) -> Projected<'s> {
        match self.name.as_str() {
            "$docId" => Projected {
                data: ColumnData::I64(docs.iter().map(|&d| d as i64).collect()),
                data_type: DataType::Int,
                nulls: None,
            },
            "$segmentName" => Projected::values(
                DataType::String,
                vec![Value::String(self.segment_name.to_string()); docs.len()],
            ),
            "$hostName" => Projected::values(
                DataType::String,
                vec![Value::String("localhost".into()); docs.len()],
            ),
            _ => {
                let v = if self.null_handling {
                    Value::Null
                } else {
                    self.default.clone()
                };
                Projected::values(self.data_type, vec![v; docs.len()])
            }
        }
    }
}

/// `out[i] = span[docs[i] - docs[0]]`: documents picked from their span's values.
fn gather<T: Copy>(span: &[T], docs: &[DocId], out: &mut [T]) {
    let first = docs[0];
    for (o, &d) in out.iter_mut().zip(docs) {
        *o = span[(d - first) as usize];
    }
}

/// Pulls blocks of documents from a doc set and reads the needed columns for each.
pub struct ProjectionOperator<'s, 'q> {
    blocks: DocBlocks<'q>,
    sources: Vec<ColumnSource<'s>>,
    ctx: &'q QueryContext,
    /// Documents handed out so far.
    pub docs_scanned: u64,
}

impl<'s, 'q> ProjectionOperator<'s, 'q> {
    /// Projects `sources` over the documents of `docs`.
    pub fn new(
        docs: &'q DocSet,
        sources: Vec<ColumnSource<'s>>,
        ctx: &'q QueryContext,
    ) -> ProjectionOperator<'s, 'q> {
        ProjectionOperator {
            blocks: docs.blocks(),
            sources,
            ctx,
            docs_scanned: 0,
        }
    }

    /// Number of projected columns.
    pub fn num_columns(&self) -> usize {
        self.sources.len()
    }
}

impl<'s> Operator<'s> for ProjectionOperator<'s, '_> {
    fn next(&mut self) -> Result<Option<Block<'s>>, EngineError> {
        self.ctx.check()?;
        let Some(docs) = self.blocks.next() else {
            return Ok(None);
        };
        self.docs_scanned += docs.len() as u64;
        let columns = self
            .sources
            .iter_mut()
            .map(|s| (s.name.clone(), s.read(&docs)))
            .collect();
        Ok(Some(Block { docs, columns }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::plan::ColumnType;
    use segments::build_config::BuildConfig;
    use segments::builder::build_segment_from_rows;
    use segments::types::{FieldSpec, Schema};

    #[test]
    fn dense_blocks_read_like_single_documents() {
        let dir = tempfile::tempdir().unwrap();
        let cols = [
            ("d", DataType::Int),
            ("l", DataType::Long),
            ("x", DataType::Double),
        ];
        let mut schema = Schema {
            schema_name: "t".into(),
            ..Schema::default()
        };
        for (name, dt) in cols {
            schema.fields.push(FieldSpec::dimension(name, dt));
        }
        let mut cfg = BuildConfig::new("t", "t_0");
        cfg.no_dictionary.extend(["l".to_string(), "x".to_string()]);
        let rows = (0..5000i64).map(|i| {
            Ok(vec![
                Value::Int((i * 7919 % 613) as i32),
                Value::Long(i * i - 77),
                Value::Double(i as f64 / 3.0),
            ])
        });
        let summary = build_segment_from_rows(&schema, &cfg, rows, dir.path()).unwrap();
        let segment = ImmutableSegment::open(&summary.segment_dir).unwrap();
        let options = ExecutionOptions::default();
        // Gaps of every kind, dense enough to be read as one span.
        let docs: Vec<DocId> = (17..4900).filter(|d| d % 3 != 0 && d % 7 != 2).collect();
        for (name, dt) in cols {
            let column = ColumnRef {
                name: name.into(),
                column_type: ColumnType::sv(dt),
            };
            let block = ColumnSource::new(&segment, &column, None, &options).read(&docs);
            let mut single = ColumnSource::new(&segment, &column, None, &options);
            for (i, &d) in docs.iter().enumerate() {
                assert_eq!(block.value(i), single.read(&[d]).value(0), "{name} doc {d}");
            }
        }
    }

    /// A text dictionary past a megabyte is stored in compressed blocks; read for many rows it
    /// is decoded whole once, and reads the same values as row by row.
    #[test]
    fn a_compressed_text_dictionary_decoded_whole_reads_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let schema = Schema {
            schema_name: "t".into(),
            fields: vec![FieldSpec::dimension("s", DataType::String)],
            ..Schema::default()
        };
        let cfg = BuildConfig::new("t", "t_0");
        let text = |i: u64| {
            format!(
                "{:016x}-comment-{}",
                i.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                i % 97
            )
        };
        let rows = (0..60_000u64).map(|i| Ok(vec![Value::String(text(i))]));
        let summary = build_segment_from_rows(&schema, &cfg, rows, dir.path()).unwrap();
        let segment = ImmutableSegment::open(&summary.segment_dir).unwrap();
        let column = ColumnRef {
            name: "s".into(),
            column_type: ColumnType::sv(DataType::String),
        };
        let reader = segment.column("s").unwrap();
        assert!(reader.dictionary().unwrap().is_blocked());
        let options = ExecutionOptions::default();
        let docs: Vec<DocId> = (0..60_000).step_by(7).collect();
        let mut whole = ColumnSource::new(&segment, &column, None, &options);
        whole.decode_text_for(60_000);
        assert!(whole.texts.is_some());
        let read = whole.read(&docs);
        assert!(matches!(read.data, ColumnData::Values(_)));
        for (i, &d) in docs.iter().enumerate() {
            assert_eq!(read.value(i), Value::String(text(u64::from(d))), "doc {d}");
        }
        // Few documents of a large dictionary: read by id, not decoded whole.
        let mut few = ColumnSource::new(&segment, &column, None, &options);
        few.decode_text_for(100);
        assert!(few.texts.is_none());
    }
}
