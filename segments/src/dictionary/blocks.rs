//! [`ValueBlocks`]: sorted var-width values in front-coded, zstd-compressed blocks — the encoding
//! [`VarDictionary`](super::VarDictionary) uses for large dictionaries (e.g. free-text comments).
//!
//! Values are cut into blocks of `block_len` consecutive ids. A block's first value (its *head*)
//! is stored uncompressed in a separate section, so a search binary-searches the heads and then
//! decodes one block. The other values of a block are front-coded against their predecessor
//! (varint shared-prefix length, varint suffix length, suffix bytes) and the result is one zstd
//! frame. Frames this small compress poorly on their own, so the encoder trains one zstd
//! dictionary on a sample of the blocks and compresses every frame with it (sf1 `l_comment`:
//! 31.9 MB of frames without, 22.6 MB with). Decoding a block costs one frame decompression;
//! the last decoded block is cached, so scanning ids in order decodes each block once. A
//! dictionary once decoded whole keeps all its blocks decoded, when the process's budget
//! allows ([`super::decoded`]).
//! Measured (`benches/benches/dictionary.rs`, 1M comment strings, shared 2-core machine): `value`
//! at random ids ~8 µs before the trained dictionary (a decode each, mostly zstd entropy-table
//! setup) vs ~7 ns plain; in id order ~170 ns per value.
//!
//! Section layout: `u32` length `d` of the zstd dictionary (0: none), `u32` reserved, the `d`
//! dictionary bytes, padding to 8 bytes; then `blocks + 1` little-endian `u32` head end offsets
//! (the first is 0), then per block a `u32` frame end offset and the `u32` length of its decoded
//! front-coded bytes, padding to 8 bytes, the concatenated heads, then the concatenated frames.
//! [`ValueBlocks::from_bytes`] decodes every block once, so a malformed block is an error at
//! open, never a panic later.

use super::decoded::Reservation;
use crate::format::{ByteReader, Bytes};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// zstd level of the frames: the default level; higher ones cost build time for ~5% size.
const ZSTD_LEVEL: i32 = 3;
/// Blocks sampled to train the zstd dictionary (evenly spaced): more gain nothing measurable.
const TRAINING_BLOCKS: usize = 256;
/// Largest trained dictionary; smaller sections get about 1% of their front-coded bytes.
const MAX_DICT_BYTES: usize = 64 << 10;

/// The values of one decoded block, head included.
#[derive(Debug)]
pub struct Block {
    data: Vec<u8>,
    ends: Vec<u32>,
}

impl Block {
    /// Number of values in the block.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the block holds no value (never true for a decoded block).
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The `i`th value of the block.
    #[inline]
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.data[start..self.ends[i] as usize]
    }
}

/// A decoded block and its number.
type CachedBlock = (u32, Arc<Block>);

/// A dictionary's way to being kept decoded whole (see [`super::decoded`]), shared by clones.
#[derive(Default)]
struct Kept {
    /// Blocks decoded for lookups and scans (the last-block cache's hits aside).
    decodes: AtomicU64,
    /// Every block, decoded, and the budget they hold.
    blocks: OnceLock<(Vec<Arc<Block>>, Reservation)>,
    /// Held by the one thread decoding every block to keep them.
    keeping: Mutex<()>,
}

/// Sorted values in compressed blocks, with their heads uncompressed.
#[derive(Clone)]
pub struct ValueBlocks {
    /// The trained zstd dictionary the frames were compressed with, digested once.
    dict: Option<Arc<zstd::zstd_safe::DDict<'static>>>,
    head_ends: Bytes,
    table: Bytes,
    heads: Bytes,
    frames: Bytes,
    count: u32,
    block_len: u32,
    /// The last decoded block, shared by clones (a lookup that finds it locked decodes anew).
    cache: Arc<Mutex<Option<CachedBlock>>>,
    kept: Arc<Kept>,
}

impl std::fmt::Debug for ValueBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ValueBlocks")
            .field("count", &self.count)
            .field("block_len", &self.block_len)
            .field("trained_dictionary", &self.dict.is_some())
            .finish_non_exhaustive()
    }
}

/// Trains the zstd dictionary of a section of about `blocks` blocks on a sample of them, each
/// given as its values in order (head first); the dictionary gets about 1% of the section's
/// front-coded bytes, estimated from the sample. Empty when there is too little to learn from
/// or training fails.
pub fn train<'a>(sample: impl IntoIterator<Item = Vec<&'a [u8]>>, blocks: usize) -> Vec<u8> {
    let (mut raw, mut sizes) = (Vec::new(), Vec::new());
    for block in sample {
        let before = raw.len();
        for w in block.windows(2) {
            front_code(w[0], w[1], &mut raw);
        }
        sizes.push(raw.len() - before);
    }
    let Some(per_block) = raw.len().checked_div(sizes.len()) else {
        return Vec::new();
    };
    let max = (per_block * blocks / 100).clamp(4 << 10, MAX_DICT_BYTES);
    if sizes.len() < 8 || raw.len() < 2 * max {
        return Vec::new();
    }
    zstd::dict::from_continuous(&raw, &sizes, max).unwrap_or_default()
}

/// [`train`] on about [`TRAINING_BLOCKS`] evenly spaced ones of `blocks` blocks, block `b`
/// given by `block(b)` (its values in order).
pub fn train_spaced<'a>(blocks: usize, block: impl Fn(usize) -> Vec<&'a [u8]>) -> Vec<u8> {
    let step = blocks.div_ceil(TRAINING_BLOCKS).max(1);
    train((0..blocks).step_by(step).map(block), blocks)
}

/// [`train_spaced`] on blocks of `block_len` of the `count` sorted values `value(i)`.
pub fn train_ranked<'a>(
    count: usize,
    block_len: u32,
    value: &impl Fn(usize) -> &'a [u8],
) -> Vec<u8> {
    let len = block_len.max(1) as usize;
    train_spaced(count.div_ceil(len), |b| {
        (b * len..((b + 1) * len).min(count)).map(value).collect()
    })
}

/// Front-codes `v` against its predecessor `prev` onto `out`.
fn front_code(prev: &[u8], v: &[u8], out: &mut Vec<u8>) {
    let shared = shared_prefix(prev, v);
    put_varint(out, shared);
    put_varint(out, v.len() - shared);
    out.extend_from_slice(&v[shared..]);
}

/// Writes a section from sorted values pushed one at a time: each block is front-coded and
/// compressed as soon as it is full, so only the compressed frames are ever held.
pub struct BlocksWriter {
    block_len: usize,
    dict: Vec<u8>,
    compressor: zstd::bulk::Compressor<'static>,
    head_ends: Vec<u32>,
    heads: Vec<u8>,
    /// Per block: the end of its frame and the length of its front-coded bytes.
    table: Vec<(u32, u32)>,
    frames: Vec<u8>,
    /// The open block's front-coded values (its head excluded).
    raw: Vec<u8>,
    frame: Vec<u8>,
    /// The last value pushed.
    prev: Vec<u8>,
    count: usize,
}

impl BlocksWriter {
    /// A writer of blocks of `block_len` values (at least 1), compressed with `dict` (a
    /// dictionary from [`train`], or empty for none).
    pub fn new(block_len: u32, dict: Vec<u8>) -> Result<BlocksWriter, String> {
        let mut compressor = zstd::bulk::Compressor::with_dictionary(ZSTD_LEVEL, &dict)
            .map_err(|e| format!("zstd: {e}"))?;
        // The table already records each frame's length, and there is one dictionary.
        for p in [
            zstd::stream::raw::CParameter::ContentSizeFlag(false),
            zstd::stream::raw::CParameter::DictIdFlag(false),
        ] {
            compressor
                .set_parameter(p)
                .map_err(|e| format!("zstd: {e}"))?;
        }
        Ok(BlocksWriter {
            block_len: block_len.max(1) as usize,
            dict,
            compressor,
            head_ends: vec![0],
            heads: Vec::new(),
            table: Vec::new(),
            frames: Vec::new(),
            raw: Vec::new(),
            frame: Vec::new(),
            prev: Vec::new(),
            count: 0,
        })
    }

    /// Appends the next value (not less than the last).
    pub fn push(&mut self, v: &[u8]) -> Result<(), String> {
        if self.count.is_multiple_of(self.block_len) {
            if self.count > 0 {
                self.seal()?;
            }
            self.heads.extend_from_slice(v);
            self.head_ends.push(to_u32(self.heads.len())?);
        } else {
            front_code(&self.prev, v, &mut self.raw);
        }
        self.prev.clear();
        self.prev.extend_from_slice(v);
        self.count += 1;
        Ok(())
    }

    /// Values per block.
    pub fn block_len(&self) -> u32 {
        self.block_len as u32
    }

    /// Compresses the open block.
    fn seal(&mut self) -> Result<(), String> {
        self.frame.clear();
        self.frame
            .reserve(zstd::zstd_safe::compress_bound(self.raw.len()));
        self.compressor
            .compress_to_buffer(&self.raw, &mut self.frame)
            .map_err(|e| format!("zstd: {e}"))?;
        self.frames.extend_from_slice(&self.frame);
        self.table
            .push((to_u32(self.frames.len())?, to_u32(self.raw.len())?));
        self.raw.clear();
        Ok(())
    }

    /// Appends the section to `out`. Fails if heads or frames exceed 4 GiB.
    pub fn finish(mut self, out: &mut Vec<u8>) -> Result<(), String> {
        if self.count > 0 {
            self.seal()?;
        }
        out.extend_from_slice(&to_u32(self.dict.len())?.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&self.dict);
        crate::format::bytes::pad_to(out, 8);
        for e in &self.head_ends {
            out.extend_from_slice(&e.to_le_bytes());
        }
        for (end, len) in &self.table {
            out.extend_from_slice(&end.to_le_bytes());
            out.extend_from_slice(&len.to_le_bytes());
        }
        crate::format::bytes::pad_to(out, 8);
        out.extend_from_slice(&self.heads);
        out.extend_from_slice(&self.frames);
        Ok(())
    }
}

/// Decompresses one frame into `raw` (whose capacity is the expected length).
fn decompress_frame(
    dctx: &mut zstd::zstd_safe::DCtx<'static>,
    dict: Option<&zstd::zstd_safe::DDict<'static>>,
    frame: &[u8],
    raw: &mut Vec<u8>,
) -> Result<usize, String> {
    match dict {
        Some(d) => dctx.decompress_using_ddict(raw, frame, d),
        None => dctx.decompress(raw, frame),
    }
    .map_err(|code| zstd::zstd_safe::get_error_name(code).to_string())
}

/// Length of the longest common prefix of `a` and `b`, eight bytes at a time.
fn shared_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().unwrap_or_default())
            ^ u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        if x != 0 {
            return i + x.trailing_zeros() as usize / 8;
        }
        i += 8;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .take_while(|(x, y)| x == y)
        .count()
}

fn put_varint(out: &mut Vec<u8>, mut v: usize) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(b: &[u8], pos: &mut usize) -> Result<usize, String> {
    let mut v = 0usize;
    for shift in (0..35).step_by(7) {
        let byte = *b
            .get(*pos)
            .ok_or("front-coded block ends inside a length")?;
        *pos += 1;
        v |= ((byte & 0x7f) as usize) << shift;
        if byte < 0x80 {
            return Ok(v);
        }
    }
    Err("front-coded length is longer than 5 bytes".into())
}

fn u32_at(b: &[u8], i: usize) -> usize {
    let c = &b[i * 4..i * 4 + 4];
    u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize
}

fn to_u32(n: usize) -> Result<u32, String> {
    u32::try_from(n).map_err(|_| "dictionary values exceed 4 GiB".to_string())
}

impl ValueBlocks {
    /// Whether `other` is a view of the same blocks (a clone of this one, sharing its cache).
    pub fn same_as(&self, other: &ValueBlocks) -> bool {
        Arc::ptr_eq(&self.cache, &other.cache)
    }

    /// Encodes `count` sorted values, the `i`th given by `value(i)`, in blocks of `block_len`
    /// (at least 1) and appends the section to `out`. Fails if heads or frames exceed 4 GiB.
    pub fn encode<'a>(
        count: usize,
        block_len: u32,
        value: impl Fn(usize) -> &'a [u8],
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        Self::encode_with(count, block_len, value, true, out)
    }

    /// [`ValueBlocks::encode`], training a zstd dictionary only if `trained` (on evenly spaced
    /// blocks).
    fn encode_with<'a>(
        count: usize,
        block_len: u32,
        value: impl Fn(usize) -> &'a [u8],
        trained: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        let dict = if trained {
            train_ranked(count, block_len, &value)
        } else {
            Vec::new()
        };
        let mut w = BlocksWriter::new(block_len, dict)?;
        for i in 0..count {
            w.push(value(i))?;
        }
        w.finish(out)
    }

    /// Parses a section written by [`ValueBlocks::encode`] that starts at `r`'s position of
    /// `bytes`, decoding every block once; `utf8` also requires every value to be UTF-8.
    pub fn from_bytes(
        bytes: &Bytes,
        r: &mut ByteReader,
        count: u32,
        block_len: u32,
        utf8: bool,
    ) -> Result<ValueBlocks, String> {
        if block_len == 0 {
            return Err("dictionary block length is 0".into());
        }
        let blocks = (count as usize).div_ceil(block_len as usize);
        let dict_len = r.u32()? as usize;
        r.u32()?;
        let dict = match dict_len {
            0 => None,
            n => {
                let bytes = r.take(n)?;
                let d = zstd::zstd_safe::DDict::try_create(bytes)
                    .ok_or("the zstd dictionary of the blocks is invalid")?;
                Some(Arc::new(d))
            }
        };
        r.align(8)?;
        let head_at = r.pos();
        r.take((blocks + 1) * 4)?;
        let table_at = r.pos();
        r.take(blocks * 8)?;
        r.align(8)?;
        let data_at = r.pos();
        let slice = |at: usize, len: usize| bytes.slice(at, len).ok_or("dictionary out of bounds");
        let head_ends = slice(head_at, (blocks + 1) * 4)?;
        let table = slice(table_at, blocks * 8)?;
        let heads_len = u32_at(&head_ends, blocks);
        let rest = bytes.len() - data_at;
        if heads_len > rest {
            return Err(format!(
                "dictionary heads ({heads_len} bytes) exceed the entry"
            ));
        }
        let heads = slice(data_at, heads_len)?;
        let frames = slice(data_at + heads_len, rest - heads_len)?;
        let me = ValueBlocks {
            dict,
            head_ends,
            table,
            heads,
            frames,
            count,
            block_len,
            cache: Arc::new(Mutex::new(None)),
            kept: Arc::default(),
        };
        let (mut prev_head, mut prev_frame) = (0usize, 0usize);
        let mut decompressor = zstd::zstd_safe::DCtx::try_create().ok_or("zstd: no context")?;
        for b in 0..blocks {
            let (head, frame) = (u32_at(&me.head_ends, b + 1), u32_at(&me.table, b * 2));
            if u32_at(&me.head_ends, 0) != 0 || head < prev_head || head > me.heads.len() {
                return Err(format!(
                    "dictionary head offset {b} is out of order or bounds"
                ));
            }
            if frame < prev_frame || frame > me.frames.len() {
                return Err(format!(
                    "dictionary block {b} ends at {frame}, out of order or bounds"
                ));
            }
            let block = me
                .decode(b as u32, &mut decompressor)
                .map_err(|e| format!("dictionary block {b}: {e}"))?;
            if utf8 {
                std::str::from_utf8(&block.data)
                    .map_err(|e| format!("dictionary block {b} is not utf-8: {e}"))?;
                for i in 0..block.len() {
                    std::str::from_utf8(block.get(i))
                        .map_err(|e| format!("dictionary block {b} value {i}: {e}"))?;
                }
            }
            (prev_head, prev_frame) = (head, frame);
        }
        if prev_frame != me.frames.len() {
            return Err(format!(
                "dictionary has {} trailing bytes after its last block",
                me.frames.len() - prev_frame
            ));
        }
        Ok(me)
    }

    /// Number of blocks.
    pub fn blocks(&self) -> u32 {
        self.count.div_ceil(self.block_len)
    }

    /// Values per block (the last block may hold fewer).
    pub fn block_len(&self) -> u32 {
        self.block_len
    }

    /// The uncompressed first value of block `b`.
    #[inline]
    pub fn head(&self, b: u32) -> &[u8] {
        let b = b as usize;
        &self.heads[u32_at(&self.head_ends, b)..u32_at(&self.head_ends, b + 1)]
    }

    /// Decodes block `b` (validated at open, so this cannot fail afterwards).
    fn decode(
        &self,
        b: u32,
        decompressor: &mut zstd::zstd_safe::DCtx<'static>,
    ) -> Result<Block, String> {
        let i = b as usize;
        let start = if i == 0 {
            0
        } else {
            u32_at(&self.table, i * 2 - 2)
        };
        let (end, raw_len) = (u32_at(&self.table, i * 2), u32_at(&self.table, i * 2 + 1));
        let frame = self
            .frames
            .get(start..end)
            .ok_or("frame offsets out of order or bounds")?;
        let mut raw = Vec::with_capacity(raw_len);
        let n = decompress_frame(decompressor, self.dict.as_deref(), frame, &mut raw)
            .map_err(|e| format!("zstd frame does not decode to {raw_len} bytes: {e}"))?;
        if n != raw_len {
            return Err(format!("zstd frame decodes to {n} bytes, not {raw_len}"));
        }
        let values = (self.count - b * self.block_len).min(self.block_len) as usize;
        let head = self.head(b);
        let mut data = Vec::with_capacity(raw_len + head.len() * values);
        let mut ends = Vec::with_capacity(values);
        data.extend_from_slice(head);
        ends.push(data.len() as u32);
        let mut pos = 0;
        let mut prev_start = 0;
        for _ in 1..values {
            let shared = get_varint(&raw, &mut pos)?;
            let suffix = get_varint(&raw, &mut pos)?;
            let prev_len = data.len() - prev_start;
            if shared > prev_len {
                return Err(format!(
                    "value shares {shared} bytes with a {prev_len}-byte predecessor"
                ));
            }
            let tail = raw
                .get(pos..pos.saturating_add(suffix))
                .ok_or("value suffix runs past the block")?;
            pos += suffix;
            let start = data.len();
            data.extend_from_within(prev_start..prev_start + shared);
            data.extend_from_slice(tail);
            ends.push(to_u32(data.len())?);
            prev_start = start;
        }
        if pos != raw.len() {
            return Err(format!(
                "{} trailing bytes after the last value",
                raw.len() - pos
            ));
        }
        Ok(Block { data, ends })
    }

    /// Block `b`, decoded (kept, or from the cache when it was the last one decoded).
    pub fn block(&self, b: u32) -> Arc<Block> {
        if let Some((all, _)) = self.kept.blocks.get() {
            return all[b as usize].clone();
        }
        if let Ok(guard) = self.cache.try_lock()
            && let Some((cached, block)) = guard.as_ref()
            && *cached == b
        {
            return block.clone();
        }
        thread_local! {
            static DCTX: std::cell::RefCell<Option<zstd::zstd_safe::DCtx<'static>>> =
                const { std::cell::RefCell::new(None) };
        }
        let decode = |b: u32| {
            DCTX.with_borrow_mut(|d| {
                let d = d.get_or_insert_with(zstd::zstd_safe::DCtx::create);
                self.decode(b, d)
                    .expect("dictionary blocks are validated when the segment is opened")
            })
        };
        let block = Arc::new(decode(b));
        if let Ok(mut guard) = self.cache.try_lock() {
            *guard = Some((b, block.clone()));
        }
        // As many blocks decoded as it has (read whole, once or in pieces): kept decoded, when
        // the budget allows (else tried again after as many more).
        let blocks = u64::from(self.blocks()).max(1);
        if (self.kept.decodes.fetch_add(1, Ordering::Relaxed) + 1).is_multiple_of(blocks) {
            self.keep(|b| Arc::new(decode(b)));
        }
        block
    }

    /// Decodes every block (on the pool) and keeps them, if their bytes fit in the process's
    /// budget.
    fn keep(&self, decode: impl Fn(u32) -> Arc<Block> + Sync + Send) {
        let Ok(_one) = self.kept.keeping.try_lock() else {
            return;
        };
        // At least the decompressed bytes, to know without decoding when they cannot fit.
        let blocks = self.blocks();
        let at_least: usize = (0..blocks as usize)
            .map(|i| u32_at(&self.table, i * 2 + 1))
            .sum();
        if self.kept.blocks.get().is_some() || Reservation::try_new(at_least).is_none() {
            return;
        }
        // On the pool: the query that reached the threshold waits for it.
        let all: Vec<Arc<Block>> = (0..blocks).into_par_iter().map(decode).collect();
        let bytes = all
            .iter()
            .map(|b| std::mem::size_of::<Block>() + b.data.capacity() + b.ends.capacity() * 4)
            .sum();
        if let Some(reservation) = Reservation::try_new(bytes) {
            let _ = self.kept.blocks.set((all, reservation));
        }
    }

    /// Whether every block is kept decoded.
    #[cfg(test)]
    fn is_kept(&self) -> bool {
        self.kept.blocks.get().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn shared_prefix_counts_equal_leading_bytes(
            common in proptest::collection::vec(any::<u8>(), 0..40),
            a in proptest::collection::vec(0u8..3, 0..20),
            b in proptest::collection::vec(0u8..3, 0..20),
        ) {
            let (a, b) = ([&common[..], &a].concat(), [&common[..], &b].concat());
            let want = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            prop_assert_eq!(shared_prefix(&a, &b), want);
        }
    }

    fn roundtrip(vals: &[&[u8]], block_len: u32) -> ValueBlocks {
        let mut out = Vec::new();
        ValueBlocks::encode(vals.len(), block_len, |i| vals[i], &mut out).unwrap();
        let bytes = Bytes::from_vec(out);
        let mut r = ByteReader::new(&bytes);
        ValueBlocks::from_bytes(&bytes, &mut r, vals.len() as u32, block_len, true).unwrap()
    }

    #[test]
    fn blocks_roundtrip_with_partial_last_block() {
        let vals: Vec<Vec<u8>> = (0..23)
            .map(|i| format!("value {i:03} x").into_bytes())
            .collect();
        let refs: Vec<&[u8]> = vals.iter().map(|v| v.as_slice()).collect();
        let vb = roundtrip(&refs, 5);
        assert_eq!(vb.blocks(), 5);
        for (i, v) in vals.iter().enumerate() {
            let b = vb.block(i as u32 / 5);
            assert_eq!(b.get(i % 5), v.as_slice());
        }
        assert_eq!(vb.head(4), b"value 020 x");
        assert_eq!(vb.block(4).len(), 3);
    }

    #[test]
    fn a_dictionary_read_whole_is_kept_decoded_while_the_budget_allows() {
        use super::super::decoded::{DEFAULT_BUDGET_BYTES, Reservation, set_budget};
        let vals: Vec<Vec<u8>> = (0..1000)
            .map(|i| format!("comment {i:05} about {}", i * 7 % 13).into_bytes())
            .collect();
        let refs: Vec<&[u8]> = vals.iter().map(|v| v.as_slice()).collect();
        let scan = |vb: &ValueBlocks| -> Vec<Vec<u8>> {
            (0..vb.blocks())
                .flat_map(|b| {
                    let block = vb.block(b);
                    (0..block.len())
                        .map(|i| block.get(i).to_vec())
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        let vb = roundtrip(&refs, 16);
        // Lookups of a few values decode their blocks only.
        assert_eq!(vb.block(3).get(1), vals[3 * 16 + 1].as_slice());
        assert_eq!(vb.block(40).get(0), vals[40 * 16].as_slice());
        assert!(!vb.is_kept(), "kept after two lookups");
        assert_eq!(scan(&vb), vals);
        assert!(vb.is_kept(), "not kept after a whole scan");
        // Kept blocks answer lookups too, from every clone.
        assert_eq!(scan(&vb.clone()), vals);
        assert_eq!(vb.clone().block(62).get(7), vals[62 * 16 + 7].as_slice());
        // With no budget left, a dictionary read whole stays compressed and still answers.
        set_budget(0);
        assert!(Reservation::try_new(1).is_none());
        let other = roundtrip(&refs, 16);
        for _ in 0..4 {
            assert_eq!(scan(&other), vals);
        }
        assert!(!other.is_kept(), "kept past the budget");
        set_budget(DEFAULT_BUDGET_BYTES);
        assert!(Reservation::try_new(usize::MAX).is_none());
    }

    #[test]
    fn large_sections_train_a_dictionary_that_pays_for_itself() {
        let words = [
            "furiously",
            "final",
            "deposits",
            "sleep",
            "quickly",
            "ironic",
            "packages",
        ];
        let vals: Vec<Vec<u8>> = (0..20_000u64)
            .map(|i| {
                let w = |k: u64| words[((i * 7 + k * 13) ^ (i >> k)) as usize % words.len()];
                format!("{} {} {} {i}", w(1), w(2), w(3)).into_bytes()
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let refs: Vec<&[u8]> = vals.iter().map(|v| v.as_slice()).collect();
        let vb = roundtrip(&refs, 64);
        assert!(vb.dict.is_some(), "a dictionary is trained");
        for (i, v) in vals.iter().enumerate().step_by(97) {
            assert_eq!(vb.block(i as u32 / 64).get(i % 64), v.as_slice());
        }
        let size = |trained: bool| {
            let mut out = Vec::new();
            ValueBlocks::encode_with(refs.len(), 64, |i| refs[i], trained, &mut out).unwrap();
            out.len()
        };
        assert!(
            size(true) < size(false),
            "{} vs {}",
            size(true),
            size(false)
        );
    }

    #[test]
    fn corrupt_dictionaries_are_errors() {
        let vals: Vec<Vec<u8>> = (0..20_000u32)
            .map(|i| format!("value number {i:06} of many").into_bytes())
            .collect();
        let refs: Vec<&[u8]> = vals.iter().map(|v| v.as_slice()).collect();
        let mut out = Vec::new();
        ValueBlocks::encode(refs.len(), 64, |i| refs[i], &mut out).unwrap();
        let dict_len = u32::from_le_bytes(out[0..4].try_into().unwrap()) as usize;
        assert!(dict_len > 0);
        for at in [8, 8 + dict_len / 2, 8 + dict_len - 1] {
            let mut bad = out.clone();
            bad[at] ^= 0x5a;
            let bytes = Bytes::from_vec(bad);
            let mut r = ByteReader::new(&bytes);
            // Either the dictionary is refused or a frame no longer decodes: never a panic.
            let _ = ValueBlocks::from_bytes(&bytes, &mut r, refs.len() as u32, 64, true);
        }
        let mut huge = out.clone();
        huge[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        let bytes = Bytes::from_vec(huge);
        assert!(
            ValueBlocks::from_bytes(
                &bytes,
                &mut ByteReader::new(&bytes),
                refs.len() as u32,
                64,
                true
            )
            .is_err()
        );
    }

    #[test]
    fn varints_roundtrip() {
        for v in [0usize, 1, 127, 128, 300, 1 << 20, u32::MAX as usize] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            let mut pos = 0;
            assert_eq!(get_varint(&b, &mut pos).unwrap(), v);
            assert_eq!(pos, b.len());
        }
        assert!(get_varint(&[0x80], &mut 0).is_err());
    }
}
