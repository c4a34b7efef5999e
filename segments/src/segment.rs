//! [`ImmutableSegment`]: a built segment opened for reading — memory-mapped, verified, and
//! exposing one [`ColumnReader`] per column with zero-copy dictionaries and forward indexes.
//!
//! Opening checks everything it can before handing out readers: metadata and index-map
//! versions, each data file's footer (magic, version, CRC-32 of the whole file), every index-map
//! entry's bounds and CRC-32, and each entry's internal structure against the metadata (counts,
//! widths, offsets). A truncated, corrupt or foreign file is a [`SegmentError`] naming the file,
//! never a panic.

use crate::dictionary::Dictionary;
use crate::error::SegmentError;
use crate::format::{
    Bytes, COLUMNS_FILE, FOOTER_LEN, FormatVersion, INDEX_MAP_FILE, IndexEntry, IndexMap,
    METADATA_FILE,
};
use crate::forward::{BitPackedForward, DictIds, ForwardIndex, MvForward, RawForward};
use crate::index::{
    BloomFilterReader, ColumnIndexes, IndexKind, IndexType, InvertedIndexReader, RangeIndexReader,
    SortedIndexReader, ZoneMap, nulls,
};
use crate::metadata::{ColumnMetadata, SegmentMetadata};
use crate::startree::StarTree;
use crate::types::{DataType, DictId, DocId, Value};
use memmap2::Mmap;
use roaring::RoaringBitmap;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// One column of an open segment.
#[derive(Debug)]
pub struct ColumnReader {
    metadata: ColumnMetadata,
    dictionary: Option<Dictionary>,
    forward: ForwardIndex,
    indexes: ColumnIndexes,
    nulls: Option<RoaringBitmap>,
    /// The dictionary as numbers, made on first use (see [`ColumnReader::dictionary_numbers`]).
    numbers: OnceLock<Vec<f64>>,
    /// The zone map, made on first use (see [`ColumnReader::zone_map`]).
    zones: OnceLock<Option<ZoneMap>>,
}

impl ColumnReader {
    /// Column name.
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// The column's metadata.
    pub fn metadata(&self) -> &ColumnMetadata {
        &self.metadata
    }

    /// Logical data type.
    pub fn data_type(&self) -> DataType {
        self.metadata.data_type
    }

    /// Whether the column is single-value.
    pub fn is_single_value(&self) -> bool {
        self.metadata.single_value
    }

    /// The dictionary (`None` for raw columns).
    pub fn dictionary(&self) -> Option<&Dictionary> {
        self.dictionary.as_ref()
    }

    /// The dictionary's entries as numbers, in id order, for numeric aggregation: a DOUBLE
    /// dictionary's own mapped values; any other decoded on first use and kept with the
    /// segment, so no query pays the decoding (or its memory) again.
    pub fn dictionary_numbers(&self) -> Option<&[f64]> {
        match self.dictionary.as_ref()? {
            Dictionary::Double(d) => Some(d.values()),
            other => Some(self.numbers.get_or_init(|| other.to_numbers())),
        }
    }

    /// The zone map of a single-value column storing ids or integers: computed from the forward
    /// index on first use (one read of the column) and kept with the segment.
    pub fn zone_map(&self) -> Option<&ZoneMap> {
        self.zones
            .get_or_init(|| ZoneMap::of(&self.forward, self.data_type().stored()))
            .as_ref()
    }

    /// The forward index.
    pub fn forward(&self) -> &ForwardIndex {
        &self.forward
    }

    /// The index of kind `K`, if the column has one: `column.index::<Inverted>()`.
    pub fn index<K: IndexType>(&self) -> Option<&K::Reader> {
        K::reader(&self.indexes)
    }

    /// Docs whose input was null (`None` if there were none).
    pub fn nulls(&self) -> Option<&RoaringBitmap> {
        self.nulls.as_ref()
    }

    /// Whether `doc`'s input was null.
    pub fn is_null(&self, doc: DocId) -> bool {
        self.nulls.as_ref().is_some_and(|n| n.contains(doc))
    }

    /// Every value of the column in doc order, as stored: dictionary values looked up (a run
    /// of docs sharing an id decodes it once), raw values decoded in one pass, multi-value
    /// cells as [`Value::Array`], nulls as [`Value::Null`].
    pub fn values(&self, docs: u32) -> Vec<Value> {
        let mut out = Vec::with_capacity(docs as usize);
        match &self.forward {
            ForwardIndex::Dict(f) => {
                let dict = self.dictionary.as_ref();
                let mut last: Option<(DictId, Value)> = None;
                for doc in 0..docs {
                    let id = f.get(doc);
                    let v = match &last {
                        Some((l, v)) if *l == id => v.clone(),
                        _ => {
                            let v = dict.map_or(Value::Null, |d| d.value(id));
                            last = Some((id, v.clone()));
                            v
                        }
                    };
                    out.push(v);
                }
            }
            ForwardIndex::DictMv(f) => {
                let mut ids = Vec::new();
                for doc in 0..docs {
                    f.read(doc, &mut ids);
                    let cell = match self.dictionary.as_ref() {
                        Some(d) => ids.iter().map(|&i| d.value(i)).collect(),
                        None => Vec::new(),
                    };
                    out.push(Value::Array(cell));
                }
            }
            ForwardIndex::Raw(r) => {
                let mut cursor = r.cursor();
                for doc in 0..docs {
                    out.push(cursor.value(doc));
                }
            }
        }
        if let Some(nulls) = self.nulls() {
            for doc in nulls.iter().take_while(|&d| d < docs) {
                out[doc as usize] = Value::Null;
            }
        }
        out
    }
}

/// An open, immutable segment. `Send + Sync`; share it with `Arc`.
#[derive(Debug)]
pub struct ImmutableSegment {
    dir: PathBuf,
    metadata: SegmentMetadata,
    index_map: IndexMap,
    columns: Vec<ColumnReader>,
    by_name: HashMap<String, usize>,
    star_trees: Vec<StarTree>,
    /// The docs queries may see, when not all (an upsert table's older rows of a key are
    /// hidden): set by the server as newer rows arrive, read once per query.
    queryable: std::sync::RwLock<Option<Arc<RoaringBitmap>>>,
    /// Set when this is a part of a consuming segment.
    consuming: Option<crate::ConsumingPart>,
}

fn read_small(path: &Path) -> Result<Vec<u8>, SegmentError> {
    std::fs::read(path).map_err(|e| SegmentError::io(path, e))
}

/// Maps a data file and verifies its footer; returns the body.
fn map_data_file(path: &Path) -> Result<Bytes, SegmentError> {
    let file = std::fs::File::open(path).map_err(|e| SegmentError::io(path, e))?;
    let len = file
        .metadata()
        .map_err(|e| SegmentError::io(path, e))?
        .len();
    if len < FOOTER_LEN as u64 {
        return Err(SegmentError::corrupt(
            path,
            format!("file is {len} bytes, shorter than the {FOOTER_LEN}-byte footer"),
        ));
    }
    // SAFETY: segment files are immutable once renamed into place; Tessera never writes to a
    // published segment. (A concurrent external truncation is outside this contract.)
    let map = unsafe { Mmap::map(&file) }.map_err(|e| SegmentError::io(path, e))?;
    let body = FormatVersion::check_file(path, &map)?;
    let all = Bytes::from_mmap(Arc::new(map));
    all.slice(0, body)
        .ok_or_else(|| SegmentError::corrupt(path, "body out of bounds"))
}

/// The largest id of a packed stream, if any id can exceed a dictionary of its bit width.
fn max_id(f: &BitPackedForward) -> Option<u32> {
    let mut buf = vec![0u32; 4096];
    let mut max = None;
    let mut start = 0u32;
    while start < f.len() {
        let n = (f.len() - start).min(buf.len() as u32) as usize;
        f.read_range(start, &mut buf[..n]);
        max = max.max(buf[..n].iter().copied().max());
        start += n as u32;
    }
    max
}

impl ImmutableSegment {
    /// The docs queries may see (None: all of them).
    pub fn queryable_docs(&self) -> Option<Arc<RoaringBitmap>> {
        self.queryable.read().ok().and_then(|q| q.clone())
    }

    /// Sets the docs queries may see (None: all of them).
    pub fn set_queryable_docs(&self, docs: Option<Arc<RoaringBitmap>>) {
        if let Ok(mut q) = self.queryable.write() {
            *q = docs;
        }
    }

    /// Opens the segment directory `dir`, verifying versions, footers and checksums.
    pub fn open(dir: &Path) -> Result<ImmutableSegment, SegmentError> {
        let meta_path = dir.join(METADATA_FILE);
        let metadata = SegmentMetadata::parse(&meta_path, &read_small(&meta_path)?)?;
        if metadata.format_version != FormatVersion::CURRENT.0 {
            return Err(SegmentError::UnsupportedVersion {
                file: meta_path,
                found: metadata.format_version,
                expected: FormatVersion::CURRENT.0,
            });
        }
        let map_path = dir.join(INDEX_MAP_FILE);
        let index_map = IndexMap::parse(&map_path, &read_small(&map_path)?)?;
        if index_map.format_version != FormatVersion::CURRENT.0 {
            return Err(SegmentError::UnsupportedVersion {
                file: map_path,
                found: index_map.format_version,
                expected: FormatVersion::CURRENT.0,
            });
        }

        // Map every data file the index map names, once.
        let mut files: HashMap<&str, Bytes> = HashMap::new();
        if !index_map.entries.iter().any(|e| e.file == COLUMNS_FILE) {
            files.insert(COLUMNS_FILE, map_data_file(&dir.join(COLUMNS_FILE))?);
        }
        for e in &index_map.entries {
            if !files.contains_key(e.file.as_str()) {
                if e.file.is_empty() || e.file.contains(['/', '\\']) || e.file.starts_with('.') {
                    return Err(SegmentError::corrupt(
                        &map_path,
                        format!("invalid data file name '{}'", e.file),
                    ));
                }
                files.insert(&e.file, map_data_file(&dir.join(&e.file))?);
            }
        }
        let entry_bytes = |e: &IndexEntry| -> Result<Bytes, SegmentError> {
            let path = dir.join(&e.file);
            let body = &files[e.file.as_str()];
            let b = usize::try_from(e.offset)
                .ok()
                .zip(usize::try_from(e.size).ok())
                .and_then(|(o, s)| body.slice(o, s))
                .ok_or_else(|| {
                    SegmentError::corrupt(
                        &path,
                        format!(
                            "entry '{}' {} at {}+{} is beyond the {}-byte body",
                            e.target,
                            e.kind,
                            e.offset,
                            e.size,
                            body.len()
                        ),
                    )
                })?;
            let crc = crc32fast::hash(&b);
            if crc != e.crc32 {
                return Err(SegmentError::corrupt(
                    &path,
                    format!(
                        "entry '{}' {} checksum mismatch ({crc:#010x} != {:#010x})",
                        e.target, e.kind, e.crc32
                    ),
                ));
            }
            Ok(b)
        };
        // Verify every entry, including kinds this build does not read.
        let mut by_key: HashMap<(&str, IndexKind), Bytes> = HashMap::new();
        for e in &index_map.entries {
            let b = entry_bytes(e)?;
            if let Some(kind) = IndexKind::parse(&e.kind) {
                by_key.insert((e.target.as_str(), kind), b);
            }
        }

        let docs = metadata.total_docs;
        let mut columns = Vec::with_capacity(metadata.columns.len());
        let mut by_name = HashMap::new();
        for (i, c) in metadata.columns.iter().enumerate() {
            if by_name.insert(c.name.clone(), i).is_some() {
                return Err(SegmentError::corrupt(
                    &meta_path,
                    format!("duplicate column '{}'", c.name),
                ));
            }
            let file = dir.join(COLUMNS_FILE);
            let bad = |kind: IndexKind, reason: String| {
                SegmentError::corrupt(
                    &file,
                    format!("column '{}' {}: {reason}", c.name, kind.name()),
                )
            };
            let get = |kind: IndexKind| by_key.get(&(c.name.as_str(), kind)).cloned();
            let need =
                |kind: IndexKind| get(kind).ok_or_else(|| bad(kind, "entry is missing".into()));
            let check = |kind: IndexKind, ok: bool, what: String| {
                if ok { Ok(()) } else { Err(bad(kind, what)) }
            };

            let dictionary = if c.has_dictionary {
                let d = Dictionary::from_bytes(need(IndexKind::Dictionary)?, c.data_type)
                    .map_err(|r| bad(IndexKind::Dictionary, r))?;
                check(
                    IndexKind::Dictionary,
                    d.len() == c.cardinality,
                    format!(
                        "{} values, metadata says cardinality {}",
                        d.len(),
                        c.cardinality
                    ),
                )?;
                Some(d)
            } else {
                None
            };
            let sorted_index = match get(IndexKind::Sorted) {
                Some(b) => {
                    let r = SortedIndexReader::from_bytes(b, docs)
                        .map_err(|r| bad(IndexKind::Sorted, r))?;
                    check(
                        IndexKind::Sorted,
                        r.len() == c.cardinality,
                        format!("{} ranges for cardinality {}", r.len(), c.cardinality),
                    )?;
                    Some(r)
                }
                None => None,
            };
            let fwd_err = |r: String| bad(IndexKind::Forward, r);
            let forward = match (c.has_dictionary, c.single_value) {
                (true, true) => match (get(IndexKind::Forward), &sorted_index) {
                    // A sorted column's doc runs are its forward index.
                    (None, Some(runs)) => ForwardIndex::Dict(DictIds::Sorted(runs.clone())),
                    _ => {
                        let f = BitPackedForward::from_bytes(need(IndexKind::Forward)?)
                            .map_err(fwd_err)?;
                        check(
                            IndexKind::Forward,
                            f.bits() == c.bits_per_element,
                            format!(
                                "{} bits per element, metadata says {}",
                                f.bits(),
                                c.bits_per_element
                            ),
                        )?;
                        ForwardIndex::Dict(DictIds::Packed(f))
                    }
                },
                (true, false) => ForwardIndex::DictMv(
                    MvForward::from_bytes(need(IndexKind::Forward)?).map_err(fwd_err)?,
                ),
                (false, true) => ForwardIndex::Raw(
                    RawForward::from_bytes(need(IndexKind::Forward)?, c.data_type)
                        .map_err(fwd_err)?,
                ),
                (false, false) => {
                    return Err(bad(
                        IndexKind::Forward,
                        "multi-value columns must have a dictionary".into(),
                    ));
                }
            };
            check(
                IndexKind::Forward,
                forward.len() == docs,
                format!("{} docs, segment has {docs}", forward.len()),
            )?;
            let ids = match &forward {
                ForwardIndex::Dict(f) => f.packed(),
                ForwardIndex::DictMv(f) => Some(f.ids()),
                ForwardIndex::Raw(_) => None,
            };
            // Ids of `bits` bits can only exceed the dictionary if it is not a full power of two.
            let ids = ids.filter(|f| (c.cardinality as u64) < 1u64 << f.bits());
            if let Some(max) = ids.and_then(max_id) {
                check(
                    IndexKind::Forward,
                    max < c.cardinality,
                    format!(
                        "dict id {max} is not below the cardinality {}",
                        c.cardinality
                    ),
                )?;
            }

            let mut indexes = ColumnIndexes {
                sorted: sorted_index,
                ..Default::default()
            };
            if let Some(b) = get(IndexKind::Inverted) {
                let r =
                    InvertedIndexReader::from_bytes(b).map_err(|r| bad(IndexKind::Inverted, r))?;
                check(
                    IndexKind::Inverted,
                    r.len() == c.cardinality,
                    format!("{} bitmaps for cardinality {}", r.len(), c.cardinality),
                )?;
                indexes.inverted = Some(r);
            }
            if let Some(b) = get(IndexKind::Range) {
                let value_type = (!c.has_dictionary).then_some(c.data_type);
                indexes.range = Some(
                    RangeIndexReader::from_bytes(b, docs, value_type)
                        .map_err(|r| bad(IndexKind::Range, r))?,
                );
            }
            if let Some(b) = get(IndexKind::Bloom) {
                indexes.bloom = Some(
                    BloomFilterReader::from_bytes(b, c.data_type)
                        .map_err(|r| bad(IndexKind::Bloom, r))?,
                );
            }
            if let Some(b) = get(IndexKind::Text) {
                indexes.text = Some(
                    crate::index::TextIndexReader::from_bytes(b)
                        .map_err(|r| bad(IndexKind::Text, r))?,
                );
            }
            if let Some(b) = get(IndexKind::Json) {
                indexes.json = Some(
                    crate::index::JsonIndexReader::from_bytes(b, docs)
                        .map_err(|r| bad(IndexKind::Json, r))?,
                );
            }
            let nulls = match get(IndexKind::NullVector) {
                Some(b) => {
                    Some(nulls::decode(&b, docs).map_err(|r| bad(IndexKind::NullVector, r))?)
                }
                None => None,
            };
            columns.push(ColumnReader {
                metadata: c.clone(),
                dictionary,
                forward,
                indexes,
                nulls,
                numbers: OnceLock::new(),
                zones: OnceLock::new(),
            });
        }
        let mut star_trees = Vec::with_capacity(metadata.star_trees.len());
        for (i, info) in metadata.star_trees.iter().enumerate() {
            let target = format!("startree:{i}");
            let path = dir.join(crate::startree::STAR_TREE_FILE);
            let bad = |r: String| SegmentError::corrupt(&path, format!("{target}: {r}"));
            let bytes = by_key
                .get(&(target.as_str(), IndexKind::StarTree))
                .ok_or_else(|| bad("entry is missing".into()))?;
            let cardinalities = info
                .spec
                .dimensions
                .iter()
                .map(|d| {
                    let c = by_name
                        .get(d)
                        .map(|&k| &columns[k])
                        .filter(|c: &&ColumnReader| c.dictionary.is_some() && c.is_single_value())
                        .ok_or_else(|| bad(format!("dimension '{d}' has no dictionary column")))?;
                    Ok(c.metadata.cardinality)
                })
                .collect::<Result<Vec<u32>, SegmentError>>()?;
            for p in info
                .spec
                .function_column_pairs
                .iter()
                .filter(|p| !p.is_star())
            {
                if !by_name.contains_key(&p.column) {
                    return Err(bad(format!("pair column '{}' is missing", p.column)));
                }
            }
            star_trees.push(
                StarTree::decode(bytes, &cardinalities, &info.spec.function_column_pairs)
                    .map_err(bad)?,
            );
        }
        Ok(ImmutableSegment {
            dir: dir.to_path_buf(),
            metadata,
            index_map,
            columns,
            by_name,
            star_trees,
            queryable: std::sync::RwLock::new(None),
            consuming: None,
        })
    }

    /// Segment name.
    pub fn name(&self) -> &str {
        &self.metadata.segment_name
    }

    /// Number of docs.
    pub fn total_docs(&self) -> u32 {
        self.metadata.total_docs
    }

    /// This segment, stamped as a part of the consuming segment of its name.
    pub fn into_consuming_part(mut self, part: crate::ConsumingPart) -> ImmutableSegment {
        self.consuming = Some(part);
        self
    }

    /// Its stamp, when this is a part of a consuming segment.
    pub fn consuming_part(&self) -> Option<crate::ConsumingPart> {
        self.consuming
    }

    /// Segment metadata.
    pub fn metadata(&self) -> &SegmentMetadata {
        &self.metadata
    }

    /// The index map (every stored entry with its location and checksum).
    pub fn index_map(&self) -> &IndexMap {
        &self.index_map
    }

    /// Column `name`, if present.
    pub fn column(&self, name: &str) -> Option<&ColumnReader> {
        self.by_name.get(name).map(|&i| &self.columns[i])
    }

    /// All columns, in schema order.
    pub fn columns(&self) -> impl Iterator<Item = &ColumnReader> {
        self.columns.iter()
    }

    /// The star-trees with their metadata, in build order.
    pub fn star_trees(&self) -> impl Iterator<Item = (&crate::startree::StarTreeInfo, &StarTree)> {
        self.metadata.star_trees.iter().zip(&self.star_trees)
    }

    /// The segment directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<ImmutableSegment>();
    }
}
