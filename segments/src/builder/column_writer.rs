//! Pass 2 of a build, one column at a time: sort the dictionary, turn provisional ids into
//! final ids (ranks), apply the segment's doc order, and write the dictionary, forward index and
//! requested indexes into the data file, returning the column's metadata.

use super::collector::{ColumnCollector, Distinct};
use super::interner::{NumInterner, VarInterner};
use super::spill::{read_id_chunks, u32s};
use crate::dictionary::blocks;
use crate::dictionary::var::{VarDictionaryWriter, VarOrder, bytes_to_value};
use crate::dictionary::{Dictionary, NumericDictionary, VarDictionary};
use crate::error::SegmentError;
use crate::format::{Bytes, DataFileWriter};
use crate::forward::{bitpacked, mv, raw};
use crate::hash::{hash_bytes, head_words};
use crate::index::bloom::{BloomBuilder, native_hash};
use crate::index::json::{JsonIndexConfig, JsonIndexWriter};
use crate::index::text::{TextIndexConfig, TextIndexWriter};
use crate::index::{IndexKind, dense, inverted, nulls, range, sorted};
use crate::metadata::{ColumnMetadata, IndexInfo};
use crate::native::NativeType;
use crate::types::{DataType, Value};
use roaring::RoaringBitmap;

/// Which indexes to build for a column.
#[derive(Clone, Debug, Default)]
pub struct ColumnPlan {
    pub inverted: bool,
    pub range: bool,
    /// Bloom filter false-positive probability.
    pub bloom: Option<f64>,
    /// Keep the null vector ([`crate::BuildConfig::records_nulls`]).
    pub nulls: bool,
    /// Build a JSON index with these options.
    pub json: Option<JsonIndexConfig>,
    /// Build a text index with these options.
    pub text: Option<TextIndexConfig>,
}

/// The segment's doc order: `perm[new] = old` and its inverse, or identity.
#[derive(Default)]
pub struct DocOrder {
    pub perm: Option<Vec<u32>>,
    pub inv: Option<Vec<u32>>,
}

impl DocOrder {
    /// An order from a permutation (`None` if it is the identity).
    pub fn new(perm: Vec<u32>) -> DocOrder {
        if perm.iter().enumerate().all(|(i, &p)| i as u32 == p) {
            return DocOrder::default();
        }
        let mut inv = vec![0u32; perm.len()];
        for (new, &old) in perm.iter().enumerate() {
            inv[old as usize] = new as u32;
        }
        DocOrder {
            perm: Some(perm),
            inv: Some(inv),
        }
    }

    fn apply<T: Copy>(&self, v: Vec<T>) -> Vec<T> {
        match &self.perm {
            Some(p) => p.iter().map(|&o| v[o as usize]).collect(),
            None => v,
        }
    }

    fn map_docs(&self, b: &RoaringBitmap) -> RoaringBitmap {
        match &self.inv {
            Some(inv) => b.iter().map(|d| inv[d as usize]).collect(),
            None => b.clone(),
        }
    }
}

/// A sorted dictionary: its entry bytes, `remap[provisional id] = final id`, and statistics.
struct SortedDict {
    bytes: Vec<u8>,
    remap: Vec<u32>,
    /// Distinct values (provisional ids may repeat a value: [`VarInterner::keep_every_value`]).
    cardinality: usize,
    min: Value,
    max: Value,
    /// Entry hashes in sorted order, when asked for (bloom filters).
    hashes: Vec<u64>,
}

fn sort_numeric<T: NativeType>(i: &NumInterner<T>, dt: DataType, hashes: bool) -> SortedDict {
    let vals = i.values();
    // Order keys are distinct for distinct values, so sorting (key, id) pairs in place is
    // exact and avoids an indirect comparison per step.
    let mut keyed: Vec<(u64, u32)> = vals
        .iter()
        .enumerate()
        .map(|(i, v)| (v.order_key(), i as u32))
        .collect();
    keyed.sort_unstable();
    let order: Vec<u32> = keyed.into_iter().map(|(_, i)| i).collect();
    let sorted: Vec<T> = order.iter().map(|&o| vals[o as usize]).collect();
    let mut remap = vec![0u32; vals.len()];
    for (rank, &o) in order.iter().enumerate() {
        remap[o as usize] = rank as u32;
    }
    SortedDict {
        bytes: NumericDictionary::encode(&sorted),
        cardinality: remap.len(),
        remap,
        min: sorted.first().map_or(Value::Null, |v| v.to_value(dt)),
        max: sorted.last().map_or(Value::Null, |v| v.to_value(dt)),
        hashes: if hashes {
            sorted.iter().map(|&v| native_hash(v)).collect()
        } else {
            Vec::new()
        },
    }
}

/// A string's sort key: its first 16 bytes as two big-endian words (zero-padded), how many of
/// them are real, and its provisional id.
type VarKey = (u64, u64, u32, u32);

/// The sort key of `v`: its first 16 bytes big-endian (zero-padded), how many of them are real
/// (ties in padding are ordered by length: a prefix sorts first), and the id.
fn var_key(v: &[u8], id: u32) -> VarKey {
    let [hi, lo] = head_words(v);
    (hi.swap_bytes(), lo.swap_bytes(), v.len().min(16) as u32, id)
}

/// The keys `key(0..n)`, sorted as `sort_unstable` would, by most-significant-digit radix sort:
/// large inputs are built straight into buckets of their first two bytes (a counting sort on
/// the top 16 bits, so no unsorted copy is ever held), then each bucket is sorted by its next
/// byte, and so on ([`refine_by_byte`]), which replaces the many mispredicted levels of a
/// comparison sort with a few linear passes.
fn sorted_keys(n: usize, key: impl Fn(u32) -> VarKey) -> Vec<VarKey> {
    const BUCKETS: usize = 1 << 16;
    if n < BUCKETS {
        let mut keyed: Vec<VarKey> = (0..n as u32).map(key).collect();
        keyed.sort_unstable();
        return keyed;
    }
    let bucket = |k: &VarKey| (k.0 >> 48) as usize;
    let mut starts = vec![0usize; BUCKETS + 1];
    for id in 0..n as u32 {
        starts[bucket(&key(id)) + 1] += 1;
    }
    let largest = starts.iter().copied().max().unwrap_or(0);
    for b in 1..starts.len() {
        starts[b] += starts[b - 1];
    }
    let mut out = vec![(0, 0, 0, 0); n];
    let mut pos = starts.clone();
    for id in 0..n as u32 {
        let k = key(id);
        let b = bucket(&k);
        out[pos[b]] = k;
        pos[b] += 1;
    }
    let mut scratch = vec![(0, 0, 0, 0); largest];
    for b in 0..BUCKETS {
        let (s, e) = (starts[b], starts[b + 1]);
        refine_by_byte(&mut out[s..e], &mut scratch[..e - s], 2);
    }
    out
}

/// Byte `b` (0..16) of a key's 16 inline bytes.
#[inline]
fn key_byte(k: &VarKey, b: usize) -> usize {
    let word = if b < 8 { k.0 } else { k.1 };
    ((word >> (56 - 8 * (b % 8))) & 0xff) as usize
}

/// Sorts `v`, whose keys agree on their first `byte` bytes, with `scratch` (as long as `v`):
/// a counting sort on byte `byte`, then each bucket on the next byte; small slices, and keys
/// that agree on all 16 bytes, finish with a comparison sort.
fn refine_by_byte(v: &mut [VarKey], scratch: &mut [VarKey], byte: usize) {
    const SMALL: usize = 64;
    if v.len() <= SMALL || byte == 16 {
        v.sort_unstable();
        return;
    }
    // Skip the bytes every key shares (common in text: `furiously ...`), found in one pass.
    let (first0, first1) = (v[0].0, v[0].1);
    let (mut diff0, mut diff1) = (0u64, 0u64);
    for k in v.iter() {
        diff0 |= k.0 ^ first0;
        diff1 |= k.1 ^ first1;
    }
    let shared = if diff0 != 0 {
        diff0.leading_zeros() / 8
    } else if diff1 != 0 {
        8 + diff1.leading_zeros() / 8
    } else {
        16
    } as usize;
    let byte = byte.max(shared);
    if byte == 16 {
        v.sort_unstable();
        return;
    }
    let mut counts = [0usize; 256];
    for k in v.iter() {
        counts[key_byte(k, byte)] += 1;
    }
    let mut starts = [0usize; 257];
    for d in 0..256 {
        starts[d + 1] = starts[d] + counts[d];
    }
    let mut pos = starts;
    for k in v.iter() {
        let d = key_byte(k, byte);
        scratch[pos[d]] = *k;
        pos[d] += 1;
    }
    v.copy_from_slice(scratch);
    for d in 0..256 {
        let (s, e) = (starts[d], starts[d + 1]);
        if e - s > 1 {
            refine_by_byte(&mut v[s..e], &mut scratch[s..e], byte + 1);
        }
    }
}

/// Ranks [`sort_var`] copies out of the interner at a time.
const GATHER_CHUNK: usize = 4096;

/// The interner's ids in byte order of their values, but for runs `a..b` of ids that tie on a
/// full 16-byte key, which are left in any order. A bucketed sort on inline 16-byte keys with
/// plain tuple compares orders most of them; the tied runs (text columns share long prefixes)
/// are finished as the values are read in order ([`sort_var`]).
fn sort_bytes(i: &VarInterner) -> (Vec<u32>, Vec<(usize, usize)>) {
    // The order is allocated before the keys, so that the keys are the newest block of the
    // heap when they are dropped and what is allocated next grows into their pages.
    let mut order = Vec::with_capacity(i.len());
    let keyed = sorted_keys(i.len(), |id| var_key(i.get(id), id));
    let mut ties = Vec::new();
    let key = |k: &VarKey| (k.0, k.1, k.2);
    let mut a = 0;
    while a < keyed.len() {
        let mut b = a + 1;
        while b < keyed.len() && key(&keyed[b]) == key(&keyed[a]) {
            b += 1;
        }
        // Distinct values can only tie on a full 16-byte key (equal shorter keys are equal
        // values, repeats of a column that keeps every value).
        if b - a > 1 && keyed[a].2 == 16 {
            ties.push((a, b));
        }
        a = b;
    }
    order.extend(keyed.iter().map(|k| k.3));
    (order, ties)
}

/// Sorts a var-width column's values into its dictionary, written as the values are read from
/// the interner in sorted order (no sorted copy of them is made), with repeats (a column that
/// keeps every value) folded into one entry; the interner is released at the end.
fn sort_var(
    i: &mut VarInterner,
    dt: DataType,
    hashes: bool,
    plain: bool,
) -> Result<SortedDict, SegmentError> {
    let ord = VarOrder::of(dt);
    let (order, ties) = if ord == VarOrder::Bytes {
        sort_bytes(i)
    } else {
        let mut order: Vec<u32> = (0..i.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| ord.compare(i.get(a), i.get(b)));
        (order, Vec::new())
    };
    // The bytes of every id interned: the distinct values' bytes, unless the column kept every
    // value, where repeats make it an upper bound (such a column is nearly all distinct).
    let block_len = VarDictionary::block_len_for(i.bytes()).filter(|_| !plain);
    // Blocks compress with a zstd dictionary trained on a sample of them: windows of the order
    // at even spacing, each sorted and without repeats, stand in for blocks.
    let dict = match block_len {
        Some(len) => {
            let len = len as usize;
            blocks::train_spaced(order.len().div_ceil(len), |b| {
                let ids = &order[b * len..((b + 1) * len).min(order.len())];
                let mut window: Vec<&[u8]> = ids.iter().map(|&id| i.get(id)).collect();
                window.sort_unstable_by(|a, b| ord.compare(a, b));
                window.dedup();
                window
            })
        }
        None => Vec::new(),
    };
    let mut w = VarDictionaryWriter::new(block_len, dict).map_err(SegmentError::Limit)?;
    let mut remap = vec![0u32; i.len()];
    let mut entry_hashes = Vec::new();
    let (mut min, mut last) = (None, Vec::new());
    let mut emit = |v: &[u8], id: u32| -> Result<(), SegmentError> {
        if w.is_empty() || last.as_slice() != v {
            w.push(v).map_err(SegmentError::Limit)?;
            if min.is_none() {
                min = Some(bytes_to_value(dt, v));
            }
            if hashes {
                entry_hashes.push(hash_bytes(v));
            }
            last.clear();
            last.extend_from_slice(v);
        }
        remap[id as usize] = (w.len() - 1) as u32;
        Ok(())
    };
    // The values lie scattered over the interner: they are copied out a chunk of ranks at a
    // time (prefetched, in rank order; a chunk ends where a tied run does), each tied run is
    // sorted there by its bytes past the shared 16, and the chunk is written. Reading and
    // writing in turns keeps the prefetched values from being evicted by the compressor.
    let (mut chunk, mut spans): (Vec<u8>, Vec<(usize, usize, u32)>) = Default::default();
    // `ties[t..]` are the runs not written yet.
    let (mut r, mut t) = (0, 0);
    while r < order.len() {
        let mut end = (r + GATHER_CHUNK).min(order.len());
        let first_tie = t;
        while let Some(&(a, b)) = ties.get(t)
            && a < end
        {
            end = end.max(b);
            t += 1;
        }
        chunk.clear();
        spans.clear();
        for k in r..end {
            let start = chunk.len();
            chunk.extend_from_slice(i.get_ahead(&order, k));
            spans.push((start, chunk.len(), order[k]));
        }
        for &(a, b) in &ties[first_tie..t] {
            spans[a - r..b - r]
                .sort_unstable_by(|x, y| chunk[x.0 + 16..x.1].cmp(&chunk[y.0 + 16..y.1]));
        }
        for &(start, stop, id) in &spans {
            emit(&chunk[start..stop], id)?;
        }
        r = end;
    }
    let n = w.len();
    let d = SortedDict {
        bytes: w.finish().map_err(SegmentError::Limit)?,
        remap,
        cardinality: n,
        min: min.unwrap_or(Value::Null),
        max: if n > 0 {
            bytes_to_value(dt, &last)
        } else {
            Value::Null
        },
        hashes: entry_hashes,
    };
    *i = VarInterner::default();
    Ok(d)
}

/// The column's sorted dictionary; `hashes` asks for the entries' hashes (for a bloom filter).
fn sort_dictionary(c: &mut ColumnCollector, hashes: bool) -> Result<SortedDict, SegmentError> {
    let dt = c.data_type();
    let plain = c.plain_dictionary;
    Ok(match &mut c.distinct {
        Distinct::Int(t) => sort_numeric(&t.interner, dt, hashes),
        Distinct::Long(t) => sort_numeric(&t.interner, dt, hashes),
        Distinct::Float(t) => sort_numeric(&t.interner, dt, hashes),
        Distinct::Double(t) => sort_numeric(&t.interner, dt, hashes),
        Distinct::Var(t) => sort_var(&mut t.interner, dt, hashes, plain)?,
        Distinct::Raw => unreachable!("raw columns have no dictionary"),
    })
}

fn corrupt_spill(c: &ColumnCollector) -> SegmentError {
    SegmentError::corrupt(
        c.spill.path(),
        "spill file is shorter than what was written",
    )
}

/// Spilled provisional ids mapped to final ones; `None` if the spill or an id is out of shape.
fn spilled_ids(bytes: &[u8], remap: &[u32]) -> Option<Vec<u32>> {
    read_id_chunks(bytes, |p| remap.get(p as usize).copied())
}

/// Final dict ids of a single-value dictionary column, in input order.
fn load_sv_ids(c: &mut ColumnCollector, remap: &[u32]) -> Result<Vec<u32>, SegmentError> {
    let bytes = c.spill.read_and_remove()?;
    match spilled_ids(&bytes, remap) {
        Some(ids) if ids.len() as u64 == c.entries => Ok(ids),
        _ => Err(corrupt_spill(c)),
    }
}

/// The `sortedColumn`'s sorted dictionary and its final ids in input order, computed once for
/// the doc order ([`sort_permutation`]) and reused by the column's own encoding.
pub struct SortedIds {
    dict: SortedDict,
    ids: Vec<u32>,
}

/// The doc permutation that sorts the docs by column `c` (stable), computed from its spill file.
/// A dictionary column's sorted dictionary and ids come back with it, for [`encode_column`]
/// (`hashes` as there: whether a bloom filter needs the entries' hashes); a raw column's spill
/// is rewritten for its own pass 2. Input already in the column's order (files written sorted,
/// as most are) gives the identity order, with no permutation held.
pub fn sort_permutation(
    c: &mut ColumnCollector,
    docs: u32,
    hashes: bool,
) -> Result<(DocOrder, Option<SortedIds>), SegmentError> {
    let n = docs as usize;
    if c.dict {
        let dict = sort_dictionary(c, hashes)?;
        let ids = load_sv_ids(c, &dict.remap)?;
        if ids.len() != n {
            return Err(corrupt_spill(c));
        }
        if ids.is_sorted() {
            return Ok((DocOrder::default(), Some(SortedIds { dict, ids })));
        }
        // Counting sort by final id: stable and linear.
        let mut starts = vec![0u32; dict.cardinality + 1];
        for &id in &ids {
            starts[id as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut perm = vec![0u32; n];
        for (doc, &id) in ids.iter().enumerate() {
            perm[starts[id as usize] as usize] = doc as u32;
            starts[id as usize] += 1;
        }
        return Ok((DocOrder::new(perm), Some(SortedIds { dict, ids })));
    }
    let bytes = c.spill.read_and_remove()?;
    let mut respill = super::spill::SpillWriter::create(c.spill.path().to_path_buf())?;
    respill.write(&bytes)?;
    respill.finish()?;
    c.spill = respill;
    let mut perm: Vec<u32> = (0..docs).collect();
    let dt = c.data_type();
    match crate::with_native_type!(dt.stored(), T => {
        let vals: Vec<u64> = bytes.chunks_exact(T::WIDTH).map(|b| T::from_le_slice(b).order_key()).collect();
        Some(vals)
    }, _ => None)
    {
        Some(keys) => {
            if keys.len() != n {
                return Err(corrupt_spill(c));
            }
            perm.sort_by_key(|&d| keys[d as usize]);
        }
        None => {
            let (data, ends) = split_var(&bytes).ok_or_else(|| corrupt_spill(c))?;
            if ends.len() != n {
                return Err(corrupt_spill(c));
            }
            let ord = VarOrder::of(dt);
            let get =
                |i: usize| &data[if i == 0 { 0 } else { ends[i - 1] as usize }..ends[i] as usize];
            perm.sort_by(|&a, &b| ord.compare(get(a as usize), get(b as usize)));
        }
    }
    Ok((DocOrder::new(perm), None))
}

/// Splits spilled var-width values (`u32 len` + bytes each) into data and end offsets.
fn split_var(bytes: &[u8]) -> Option<(Vec<u8>, Vec<u64>)> {
    let mut data = Vec::with_capacity(bytes.len());
    let mut ends = Vec::new();
    let mut p = 0;
    while p < bytes.len() {
        let l = bytes.get(p..p + 4)?;
        let len = u32::from_le_bytes([l[0], l[1], l[2], l[3]]) as usize;
        data.extend_from_slice(bytes.get(p + 4..p + 4 + len)?);
        ends.push(data.len() as u64);
        p += 4 + len;
    }
    Some((data, ends))
}

/// Distinct hashes (sorted, deduplicated).
fn distinct_hashes(mut h: Vec<u64>) -> Vec<u64> {
    h.sort_unstable();
    h.dedup();
    h
}

fn bloom_entry(hashes: &[u64], fpp: f64) -> Vec<u8> {
    let mut b = BloomBuilder::new(hashes.len() as u64, fpp);
    for &h in hashes {
        b.insert_hash(h);
    }
    b.encode()
}

/// Doc bitmaps per id from (id per doc) — counting sort, then one bitmap per id.
fn bitmaps_per_id(ids: &[u32], card: usize) -> Vec<RoaringBitmap> {
    let mut starts = vec![0u32; card + 1];
    for &id in ids {
        starts[id as usize + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut docs = vec![0u32; ids.len()];
    let mut pos = starts.clone();
    for (doc, &id) in ids.iter().enumerate() {
        docs[pos[id as usize] as usize] = doc as u32;
        pos[id as usize] += 1;
    }
    (0..card)
        .map(|i| {
            let slice = &docs[starts[i] as usize..starts[i + 1] as usize];
            if dense::is_dense(slice.len(), ids.len()) {
                let mut bits = dense::DenseBits::new(ids.len());
                slice.iter().for_each(|&d| bits.set(d));
                bits.to_roaring()
            } else {
                RoaringBitmap::from_sorted_iter(slice.iter().copied()).unwrap_or_default()
            }
        })
        .collect()
}

/// Calls `add(state, doc, derived)` for each doc of a dictionary-encoded single-value column
/// (docs with dictionary `ids`, in order), `derived` computed by `derive(state, text, doc)` once
/// per entry of the encoded `dictionary`, at its first doc.
fn each_doc_by_entry<S, T>(
    state: &mut S,
    dictionary: &[u8],
    dt: DataType,
    ids: &[u32],
    derive: impl Fn(&mut S, &str, usize) -> Result<T, SegmentError>,
    add: impl Fn(&mut S, u32, &T),
) -> Result<(), SegmentError> {
    let dict = Dictionary::from_bytes(Bytes::from_vec(dictionary.to_vec()), dt)
        .map_err(SegmentError::Limit)?;
    let mut derived: Vec<Option<T>> = (0..dict.len()).map(|_| None).collect();
    for (doc, &id) in ids.iter().enumerate() {
        let d = match &mut derived[id as usize] {
            Some(d) => d,
            slot => slot.insert(derive(
                state,
                &String::from_utf8_lossy(&dict.bytes_at(id)),
                doc,
            )?),
        };
        add(state, doc as u32, d);
    }
    Ok(())
}

/// The JSON index of a dictionary-encoded column: each entry flattened once.
fn json_index_of_ids(
    column: &str,
    config: &JsonIndexConfig,
    dictionary: &[u8],
    dt: DataType,
    ids: &[u32],
) -> Result<Vec<u8>, SegmentError> {
    let mut writer = JsonIndexWriter::new(config);
    each_doc_by_entry(
        &mut writer,
        dictionary,
        dt,
        ids,
        |w, text, doc| {
            w.intern(text)
                .map_err(|reason| json_error(column, doc, reason))
        },
        |w, doc, records| w.add(doc, records),
    )?;
    writer.finish().map_err(SegmentError::Limit)
}

/// The text index of a dictionary-encoded single-value column: each entry analyzed once.
fn text_index_of_ids(
    config: &TextIndexConfig,
    dictionary: &[u8],
    dt: DataType,
    ids: &[u32],
) -> Result<Vec<u8>, SegmentError> {
    let mut writer = TextIndexWriter::new(config);
    each_doc_by_entry(
        &mut writer,
        dictionary,
        dt,
        ids,
        |w, text, _| Ok(w.terms_of([text])),
        |w, doc, terms| w.add_terms(doc, terms),
    )?;
    writer.finish().map_err(SegmentError::Limit)
}

/// The JSON index of a raw column, from each doc's bytes in doc order.
fn json_index_of_texts<'a>(
    column: &str,
    config: &JsonIndexConfig,
    texts: impl Iterator<Item = &'a [u8]>,
) -> Result<Vec<u8>, SegmentError> {
    let mut writer = JsonIndexWriter::new(config);
    for (doc, text) in texts.enumerate() {
        writer
            .add_text(doc as u32, &String::from_utf8_lossy(text))
            .map_err(|reason| json_error(column, doc, reason))?;
    }
    writer.finish().map_err(SegmentError::Limit)
}

fn json_error(column: &str, doc: usize, reason: String) -> SegmentError {
    SegmentError::JsonIndex {
        column: column.to_string(),
        doc: doc as u32,
        reason,
    }
}

/// The encoded entries of one column, in file order.
#[derive(Default)]
pub struct ColumnEntries {
    entries: Vec<(IndexKind, Vec<u8>)>,
}

impl ColumnEntries {
    fn add(&mut self, kind: IndexKind, bytes: Vec<u8>) -> Result<(), SegmentError> {
        self.entries.push((kind, bytes));
        Ok(())
    }

    /// The bytes of the entry of `kind` added so far (empty if none).
    fn entry(&self, kind: IndexKind) -> &[u8] {
        self.entries
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(&[], |(_, b)| b.as_slice())
    }

    fn infos(&self) -> Vec<IndexInfo> {
        self.entries
            .iter()
            .map(|(kind, b)| IndexInfo {
                kind: *kind,
                size_bytes: b.len() as u64,
            })
            .collect()
    }

    /// Appends the entries to the data file under `target`.
    pub fn write_to(self, target: &str, out: &mut DataFileWriter) -> Result<(), SegmentError> {
        for (kind, bytes) in self.entries {
            out.add(target, kind, &bytes)?;
        }
        Ok(())
    }
}

/// Encodes one column: its metadata and its entries (to be written in column order); `sorted`
/// is what [`sort_permutation`] kept of the `sortedColumn`.
pub fn encode_column(
    mut c: ColumnCollector,
    plan: &ColumnPlan,
    docs: u32,
    order: &DocOrder,
    sorted: Option<SortedIds>,
) -> Result<(ColumnMetadata, ColumnEntries), SegmentError> {
    let dt = c.data_type();
    let mut w = ColumnEntries::default();
    let nulls = if plan.nulls {
        order.map_docs(&c.nulls)
    } else {
        Default::default()
    };
    let single = c.spec.single_value_field;
    let mut meta = ColumnMetadata {
        name: c.spec.name.clone(),
        data_type: dt,
        field_type: c.spec.field_type,
        single_value: single,
        cardinality: 0,
        bits_per_element: 0,
        min_value: Value::Null,
        max_value: Value::Null,
        sorted: false,
        has_dictionary: c.dict,
        max_num_multi_values: if single { 0 } else { c.max_mv },
        total_number_of_entries: c.entries,
        has_nulls: !nulls.is_empty(),
        default_null_value: c.default.clone(),
        indexes: Vec::new(),
    };
    if c.dict {
        let (mut d, ids) = match sorted {
            Some(s) => (s.dict, Some(s.ids)),
            None => (sort_dictionary(&mut c, plan.bloom.is_some())?, None),
        };
        let card = d.cardinality;
        let bits = bitpacked::bits_for_cardinality(card as u32);
        meta.cardinality = card as u32;
        meta.bits_per_element = bits;
        meta.min_value = d.min.clone();
        meta.max_value = d.max.clone();
        w.add(IndexKind::Dictionary, std::mem::take(&mut d.bytes))?;
        if single {
            let ids = order.apply(match ids {
                Some(ids) => ids,
                None => load_sv_ids(&mut c, &d.remap)?,
            });
            if let Some(config) = &plan.json {
                let json = json_index_of_ids(
                    &c.spec.name,
                    config,
                    w.entry(IndexKind::Dictionary),
                    dt,
                    &ids,
                )?;
                w.add(IndexKind::Json, json)?;
            }
            if let Some(config) = &plan.text {
                let text = text_index_of_ids(config, w.entry(IndexKind::Dictionary), dt, &ids)?;
                w.add(IndexKind::Text, text)?;
            }
            let is_sorted = ids.windows(2).all(|p| p[0] <= p[1]);
            meta.sorted = is_sorted;
            if is_sorted {
                // The doc runs double as the forward index.
                w.add(IndexKind::Sorted, sorted::encode(&ids, card as u32))?;
            } else {
                w.add(IndexKind::Forward, bitpacked::pack(&ids, bits))?;
            }
            if plan.inverted {
                w.add(
                    IndexKind::Inverted,
                    inverted::encode(bitmaps_per_id(&ids, card).into_iter()),
                )?;
            }
            if plan.range {
                w.add(IndexKind::Range, range::encode_dict_ids(&ids, card as u32))?;
            }
        } else {
            let bytes = c.spill.read_and_remove()?;
            let mut words = u32s(&bytes);
            let mut per_doc: Vec<(u32, u32)> = Vec::with_capacity(docs as usize); // (start, len) in flat
            let mut flat: Vec<u32> = Vec::with_capacity(c.entries as usize);
            while let Some(n) = words.next() {
                per_doc.push((flat.len() as u32, n));
                for _ in 0..n {
                    let p = words.next().ok_or_else(|| corrupt_spill(&c))?;
                    flat.push(d.remap[p as usize]);
                }
            }
            if per_doc.len() != docs as usize {
                return Err(corrupt_spill(&c));
            }
            if flat.len() > u32::MAX as usize {
                return Err(SegmentError::Limit(format!(
                    "column '{}' has more than 2^32 - 1 values",
                    c.spec.name
                )));
            }
            let per_doc = order.apply(per_doc);
            let mut offsets = Vec::with_capacity(per_doc.len() + 1);
            let mut ordered = Vec::with_capacity(flat.len());
            offsets.push(0u32);
            for &(s, n) in &per_doc {
                ordered.extend_from_slice(&flat[s as usize..(s + n) as usize]);
                offsets.push(ordered.len() as u32);
            }
            drop(flat);
            w.add(IndexKind::Forward, mv::encode(&offsets, &ordered, bits))?;
            if let Some(config) = &plan.text {
                let dict = Dictionary::from_bytes(
                    Bytes::from_vec(w.entry(IndexKind::Dictionary).to_vec()),
                    dt,
                )
                .map_err(SegmentError::Limit)?;
                let mut writer = TextIndexWriter::new(config);
                for doc in 0..per_doc.len() {
                    let ids = &ordered[offsets[doc] as usize..offsets[doc + 1] as usize];
                    let texts: Vec<Vec<u8>> = ids
                        .iter()
                        .map(|&id| dict.bytes_at(id).into_owned())
                        .collect();
                    let texts: Vec<std::borrow::Cow<'_, str>> =
                        texts.iter().map(|t| String::from_utf8_lossy(t)).collect();
                    writer.add(doc as u32, texts.iter().map(|t| t.as_ref()));
                }
                w.add(
                    IndexKind::Text,
                    writer.finish().map_err(SegmentError::Limit)?,
                )?;
            }
            if plan.inverted || plan.range {
                let mut maps = vec![RoaringBitmap::new(); card];
                for doc in 0..per_doc.len() {
                    for &id in &ordered[offsets[doc] as usize..offsets[doc + 1] as usize] {
                        maps[id as usize].insert(doc as u32);
                    }
                }
                if plan.range {
                    w.add(IndexKind::Range, range::encode_per_id(maps.clone(), docs))?;
                }
                if plan.inverted {
                    w.add(IndexKind::Inverted, inverted::encode(maps.into_iter()))?;
                }
            }
        }
        if let Some(fpp) = plan.bloom {
            w.add(IndexKind::Bloom, bloom_entry(&d.hashes, fpp))?;
        }
    } else {
        let bytes = c.spill.read_and_remove()?;
        let written = crate::with_native_type!(dt.stored(), T => {
            write_raw_fixed::<T>(&bytes, plan, order, &mut meta, &mut w)?
        }, _ => write_raw_var(&bytes, plan, order, &mut meta, &mut w)?);
        if written != docs as usize {
            return Err(corrupt_spill(&c));
        }
    }
    if !nulls.is_empty() {
        w.add(IndexKind::NullVector, nulls::encode(&nulls))?;
    }
    meta.indexes = w.infos();
    Ok((meta, w))
}

fn write_raw_fixed<T: NativeType>(
    bytes: &[u8],
    plan: &ColumnPlan,
    order: &DocOrder,
    meta: &mut ColumnMetadata,
    w: &mut ColumnEntries,
) -> Result<usize, SegmentError> {
    let vals: Vec<T> = order.apply(bytes.chunks_exact(T::WIDTH).map(T::from_le_slice).collect());
    let dt = meta.data_type;
    let hashes = distinct_hashes(vals.iter().map(|&v| native_hash(v)).collect());
    meta.cardinality = hashes.len() as u32;
    meta.min_value = vals
        .iter()
        .copied()
        .min_by(|a, b| a.total_cmp(b))
        .map_or(Value::Null, |v| v.to_value(dt));
    meta.max_value = vals
        .iter()
        .copied()
        .max_by(|a, b| a.total_cmp(b))
        .map_or(Value::Null, |v| v.to_value(dt));
    meta.sorted = vals.windows(2).all(|p| p[0].total_cmp(&p[1]).is_le());
    w.add(
        IndexKind::Forward,
        raw::encode_fixed(&vals).map_err(SegmentError::Limit)?,
    )?;
    if plan.range {
        w.add(IndexKind::Range, range::encode_values(&vals))?;
    }
    if let Some(fpp) = plan.bloom {
        w.add(IndexKind::Bloom, bloom_entry(&hashes, fpp))?;
    }
    Ok(vals.len())
}

fn write_raw_var(
    bytes: &[u8],
    plan: &ColumnPlan,
    order: &DocOrder,
    meta: &mut ColumnMetadata,
    w: &mut ColumnEntries,
) -> Result<usize, SegmentError> {
    let dt = meta.data_type;
    let (data, ends) = split_var(bytes).ok_or_else(|| {
        SegmentError::Limit(format!(
            "spilled values of column '{}' are malformed",
            meta.name
        ))
    })?;
    let get = |i: usize| &data[if i == 0 { 0 } else { ends[i - 1] as usize }..ends[i] as usize];
    let n = ends.len();
    let at = |i: usize| get(order.perm.as_ref().map_or(i, |p| p[i] as usize));
    let ord = VarOrder::of(dt);
    let hashes = distinct_hashes((0..n).map(|i| hash_bytes(get(i))).collect());
    meta.cardinality = hashes.len() as u32;
    meta.min_value = (0..n)
        .map(get)
        .min_by(|a, b| ord.compare(a, b))
        .map_or(Value::Null, |b| bytes_to_value(dt, b));
    meta.max_value = (0..n)
        .map(get)
        .max_by(|a, b| ord.compare(a, b))
        .map_or(Value::Null, |b| bytes_to_value(dt, b));
    meta.sorted = (1..n).all(|i| ord.compare(at(i - 1), at(i)).is_le());
    let fwd = raw::encode_var(&data, &ends, order.perm.as_deref()).map_err(SegmentError::Limit)?;
    w.add(IndexKind::Forward, fwd)?;
    if let Some(config) = &plan.json {
        let json = json_index_of_texts(&meta.name, config, (0..n).map(at))?;
        w.add(IndexKind::Json, json)?;
    }
    if let Some(config) = &plan.text {
        let mut writer = TextIndexWriter::new(config);
        for i in 0..n {
            writer.add(i as u32, [String::from_utf8_lossy(at(i)).as_ref()]);
        }
        w.add(
            IndexKind::Text,
            writer.finish().map_err(SegmentError::Limit)?,
        )?;
    }
    if let Some(fpp) = plan.bloom {
        w.add(IndexKind::Bloom, bloom_entry(&hashes, fpp))?;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bucketed_sort_matches_a_plain_sort() {
        // Enough keys for the bucketed path, with many sharing their first bytes.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let keys: Vec<(u64, u64, u32, u32)> = (0..100_000u32)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let hi = if i % 3 == 0 {
                    x & 0x00ff_ffff_ffff_ffff
                } else {
                    x
                };
                (hi, x.rotate_left(7) % 5, (i % 17), i)
            })
            .collect();
        let mut want = keys.clone();
        want.sort_unstable();
        assert_eq!(sorted_keys(keys.len(), |i| keys[i as usize]), want);
    }

    #[test]
    fn a_large_free_text_dictionary_is_sorted_across_chunks_and_blocks() {
        // Enough values for several gather chunks and compressed blocks (over 1 MiB), in runs
        // sharing 20-byte prefixes (tied on their 16-byte keys) that straddle chunk ends, with
        // every value kept and some repeated.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut values: Vec<Vec<u8>> = Vec::new();
        while values.len() < 10 * GATHER_CHUNK {
            let prefix = format!("shared prefix {:06} ", next() % 500);
            for _ in 0..1 + next() % 40 {
                let v = format!("{prefix}{:x} tail", next() % 5000).into_bytes();
                values.push(v);
            }
        }
        // Short values repeat too (equal keys, no tie).
        values.extend((0..300).map(|k| format!("short {}", k % 7).into_bytes()));
        let mut interner = VarInterner::default();
        interner.keep_every_value(values.len(), 0);
        for v in &values {
            interner.intern(v);
        }
        let mut expected = values.clone();
        expected.sort();
        expected.dedup();
        let bytes: usize = values.iter().map(Vec::len).sum();
        assert!(
            bytes >= crate::dictionary::var::BLOCK_MIN_BYTES,
            "{bytes} bytes"
        );
        let d = sort_var(&mut interner, DataType::String, true, false).unwrap();
        assert_eq!(d.cardinality, expected.len());
        for (id, v) in values.iter().enumerate() {
            assert_eq!(d.remap[id] as usize, expected.binary_search(v).unwrap());
        }
        assert_eq!(d.hashes.len(), expected.len());
        let dict =
            VarDictionary::from_bytes(crate::format::Bytes::from_vec(d.bytes), DataType::String)
                .unwrap();
        assert!(dict.is_blocked());
        let got: Vec<Vec<u8>> = (0..dict.len())
            .map(|id| dict.bytes(id).into_owned())
            .collect();
        assert_eq!(got, expected);
    }

    proptest! {
        #[test]
        fn var_dictionary_sorts_by_bytes(
            suffixes in proptest::collection::vec(proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a'), Just(b'b'), any::<u8>()], 0..6), 0..200),
            prefix_len in 0usize..40,
            keep_from in 0usize..250,
        ) {
            // Values share prefixes around one or two 16-byte inline keys, so ties and padding
            // matter; from `keep_from` on, the interner keeps repeats, which the sort folds.
            let prefix = vec![b'p'; prefix_len];
            let mut interner = VarInterner::default();
            let mut values: Vec<Vec<u8>> = Vec::new();
            for (k, s) in suffixes.iter().enumerate() {
                if k == keep_from {
                    interner.keep_every_value(0, 0);
                }
                let v: Vec<u8> = prefix[..prefix_len.min(k % 40)].iter().chain(s).copied().collect();
                interner.intern(&v);
                values.push(v);
            }
            let mut expected = values.clone();
            expected.sort();
            expected.dedup();
            let by_id: Vec<Vec<u8>> = (0..interner.len() as u32).map(|id| interner.get(id).to_vec()).collect();
            let d = sort_var(&mut interner, DataType::Bytes, false, false).unwrap();
            prop_assert_eq!(d.cardinality, expected.len());
            for (id, v) in by_id.iter().enumerate() {
                let rank = expected.binary_search(v).unwrap();
                prop_assert_eq!(d.remap[id] as usize, rank);
            }
            let dict = VarDictionary::from_bytes(crate::format::Bytes::from_vec(d.bytes), DataType::Bytes).unwrap();
            let got: Vec<Vec<u8>> = (0..dict.len()).map(|id| dict.bytes(id).into_owned()).collect();
            prop_assert_eq!(got, expected);
        }
    }
}
