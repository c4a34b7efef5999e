//! Pass-1 interners: open-addressing hash tables that give each distinct value of a column a
//! provisional id (insertion order) without allocating per value.
//!
//! [`NumInterner`] keeps the value bits in the slot, so a lookup touches one cache line;
//! [`VarInterner`] keeps a 32-bit hash tag next to the id, the bytes in one arena, and per id
//! its first 16 bytes as two words with its length (`IdKey`), so most compares never read
//! the arena. A table small enough to stay in cache (`CACHED_SLOTS`) takes a batch in one
//! tight pass; a larger one prefetches slots ahead and remembers the last value interned,
//! which makes sorted or run-heavy input nearly free. A [`VarInterner`] of free text can
//! instead keep every value, unhashed ([`VarInterner::keep_every_value`]).
//!
//! Integers start out **dense** ([`DenseIds`]): an id per value of the window `min..=max`
//! seen so far, so a lookup is one array read, with no hashing or probing (keys, codes and
//! counters: TPC-H's `l_partkey` spans 200,000 values in 800 KB). A window that would grow past
//! [`DENSE_ALWAYS`] slots and more than [`DENSE_SPREAD`] slots per distinct value (epoch
//! milliseconds, hashes, sparse ids) moves every value into the hash table once, for good.

use crate::hash::{hash_bytes, hash_u64, head_words, mix64};
use crate::native::NativeType;

const EMPTY: u32 = u32::MAX;
/// Tables of at most this many slots stay in cache: batches look their values up in one
/// pass, without prefetching.
const CACHED_SLOTS: usize = 1 << 14;
/// How many values ahead batch interning prefetches hash slots.
const PREFETCH_AHEAD: usize = 16;

/// Hints the CPU to load the cache line at `p` (a no-op off x86-64).
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>())
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// What a [`VarInterner`] keeps of each id's value beside its bytes: its [`head_words`], its
/// length, and the low 32 bits of its hash (so growing re-slots ids without rehashing their
/// bytes). A lookup compares this one record instead of reading the id's offsets and bytes from
/// the arena; only a value longer than 16 bytes whose record matches compares the rest.
#[derive(Clone, Copy)]
struct IdKey {
    words: [u64; 2],
    len: u32,
    low: u32,
}

/// The interner's hash of `v`, whose head words are `words`: for up to 16 bytes a mix of the
/// words and the length (so the words are loaded once, for the hash and the compare), for
/// longer values [`hash_bytes`].
#[inline(always)]
fn value_hash(v: &[u8], words: [u64; 2]) -> u64 {
    #[cfg(test)]
    if tests::COLLIDING.get() {
        // Every value on one slot and tag, so lookups must tell values apart by their keys.
        return 0x5555_5555_0000_0000;
    }
    if v.len() <= 16 {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        mix64(words[0] ^ words[1].wrapping_mul(K) ^ (v.len() as u64).rotate_right(5))
    } else {
        hash_bytes(v)
    }
}

/// Dense windows of up to this many slots are always allowed (4 MiB of ids).
pub const DENSE_ALWAYS: u64 = 1 << 20;
/// Beyond [`DENSE_ALWAYS`], a window may hold at most this many slots per distinct value…
pub const DENSE_SPREAD: u64 = 8;
/// …and never more than this many (64 MiB of ids).
const DENSE_MAX: u64 = 1 << 24;

/// Provisional ids of the integers `base .. base + ids.len()` (`EMPTY`: not seen).
struct DenseIds {
    base: i64,
    ids: Vec<u32>,
}

impl DenseIds {
    /// Widens the window to take `x` (growing at least twofold), given `distinct` values so
    /// far; `false` if the window would be too large or too sparse.
    #[cold]
    #[inline(never)]
    fn widen(&mut self, x: i64, distinct: usize) -> bool {
        let len = self.ids.len() as i128;
        let (lo, hi) = if len == 0 {
            (x as i128, x as i128)
        } else {
            let base = self.base as i128;
            ((x as i128).min(base), (x as i128).max(base + len - 1))
        };
        let needed = hi - lo + 1;
        let cap = DENSE_MAX
            .min(DENSE_SPREAD.saturating_mul(distinct as u64 + 1))
            .max(DENSE_ALWAYS);
        if needed > cap as i128 {
            return false;
        }
        let new_len = needed.max(2 * len).max(1024).min(cap as i128);
        // Grow toward `x`: upward keeps the base, downward keeps the top.
        let new_base = if len > 0 && (x as i128) < self.base as i128 {
            (self.base as i128 + len - new_len).max(i64::MIN as i128)
        } else {
            lo
        };
        let new_len = new_len.min(i64::MAX as i128 - new_base + 1);
        let mut ids = vec![EMPTY; new_len as usize];
        let at = (self.base as i128 - new_base) as usize;
        if len > 0 {
            ids[at..at + self.ids.len()].copy_from_slice(&self.ids);
        }
        *self = DenseIds {
            base: new_base as i64,
            ids,
        };
        true
    }
}

/// Distinct fixed-width values → provisional ids.
pub struct NumInterner<T: NativeType> {
    slots: Vec<(u64, u32)>,
    mask: usize,
    values: Vec<T>,
    last: Option<(u64, u32)>,
    /// Integers, while their window stays dense.
    dense: Option<DenseIds>,
}

impl<T: NativeType> Default for NumInterner<T> {
    fn default() -> Self {
        NumInterner {
            slots: vec![(0, EMPTY); 64],
            mask: 63,
            values: Vec::new(),
            last: None,
            dense: T::INTEGRAL.then(|| DenseIds {
                base: 0,
                ids: Vec::new(),
            }),
        }
    }
}

impl<T: NativeType> NumInterner<T> {
    /// Dense mode: the provisional id of `v`; `None` once the window gave way to the hash table.
    #[inline(always)]
    fn intern_dense(&mut self, v: T) -> Option<u32> {
        let x = v.to_i64();
        let d = self.dense.as_mut()?;
        let mut k = (x as i128 - d.base as i128) as u64;
        if k >= d.ids.len() as u64 {
            if !d.widen(x, self.values.len()) {
                self.leave_dense();
                return None;
            }
            k = (x as i128 - d.base as i128) as u64;
        }
        let slot = &mut d.ids[k as usize];
        if *slot == EMPTY {
            *slot = self.values.len() as u32;
            self.values.push(v);
        }
        Some(*slot)
    }

    /// Leaves dense mode: every value so far goes into the hash table.
    #[cold]
    #[inline(never)]
    fn leave_dense(&mut self) {
        self.dense = None;
        while self.values.len() * 2 > self.slots.len() {
            self.grow();
        }
        for (id, v) in self.values.iter().enumerate() {
            let bits = v.to_bits64();
            let mut i = hash_u64(bits) as usize & self.mask;
            while self.slots[i].1 != EMPTY {
                i = (i + 1) & self.mask;
            }
            self.slots[i] = (bits, id as u32);
        }
    }

    /// The provisional id of `v`, adding it if new. Values are equal when their bits are.
    #[inline]
    pub fn intern(&mut self, v: T) -> u32 {
        if self.dense.is_some()
            && let Some(id) = self.intern_dense(v)
        {
            return id;
        }
        if (self.values.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        self.intern_hashed(v, hash_u64(v.to_bits64()))
    }

    /// Interns a batch, appending the ids to `out`. Hash slots are prefetched a few values
    /// ahead, so the cache misses of a large table overlap instead of queueing.
    pub fn intern_batch(&mut self, vals: &[T], hashes: &mut Vec<u64>, out: &mut Vec<u32>) {
        let mut vals = vals;
        if self.dense.is_some() {
            let mut taken = 0;
            while let Some(&v) = vals.get(taken) {
                match self.intern_dense(v) {
                    Some(id) => out.push(id),
                    None => break,
                }
                taken += 1;
            }
            vals = &vals[taken..];
            if vals.is_empty() {
                return;
            }
        }
        while (self.values.len() + vals.len()) * 2 > self.slots.len() {
            self.grow();
        }
        if self.slots.len() <= CACHED_SLOTS {
            // Every probe hits the cache: one pass, no prefetching and no last-value check
            // (whose branch mispredicts on a column of a few values in random order).
            out.extend(vals.iter().map(|&v| {
                let bits = v.to_bits64();
                self.find_or_add(v, bits, hash_u64(bits))
            }));
            return;
        }
        hashes.clear();
        hashes.extend(vals.iter().map(|v| hash_u64(v.to_bits64())));
        let base = self.slots.as_ptr();
        for &h in hashes.iter().take(PREFETCH_AHEAD) {
            prefetch(base.wrapping_add(h as usize & self.mask));
        }
        for (i, &v) in vals.iter().enumerate() {
            if let Some(&h) = hashes.get(i + PREFETCH_AHEAD) {
                prefetch(base.wrapping_add(h as usize & self.mask));
            }
            out.push(self.intern_hashed(v, hashes[i]));
        }
    }

    /// Like [`NumInterner::intern`] with the hash already computed; never grows the table (the
    /// caller reserved room).
    #[inline]
    fn intern_hashed(&mut self, v: T, h: u64) -> u32 {
        let bits = v.to_bits64();
        if let Some((b, id)) = self.last
            && b == bits
        {
            return id;
        }
        let id = self.find_or_add(v, bits, h);
        self.last = Some((bits, id));
        id
    }

    /// The id of `v` (bits `bits`, hash `h`), added if new; never grows the table.
    #[inline(always)]
    fn find_or_add(&mut self, v: T, bits: u64, h: u64) -> u32 {
        let mut i = h as usize & self.mask;
        loop {
            let (b, id) = self.slots[i];
            if id == EMPTY {
                let id = self.values.len() as u32;
                self.slots[i] = (bits, id);
                self.values.push(v);
                return id;
            }
            if b == bits {
                return id;
            }
            i = (i + 1) & self.mask;
        }
    }

    fn grow(&mut self) {
        let cap = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![(0, EMPTY); cap]);
        self.mask = cap - 1;
        for (bits, id) in old.into_iter().filter(|s| s.1 != EMPTY) {
            let mut i = hash_u64(bits) as usize & self.mask;
            while self.slots[i].1 != EMPTY {
                i = (i + 1) & self.mask;
            }
            self.slots[i] = (bits, id);
        }
    }

    /// Distinct values in provisional-id order.
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// Number of distinct values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value was interned.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Bytes of memory held.
    pub fn memory(&self) -> usize {
        self.slots.len() * 16
            + self.values.capacity() * T::WIDTH
            + self.dense.as_ref().map_or(0, |d| d.ids.len() * 4)
    }
}

/// Distinct byte strings → provisional ids.
///
/// A column of nearly all distinct values (free text) can instead **keep every value**
/// ([`VarInterner::keep_every_value`]): each value from then on is appended with a new id, with
/// no hashing or probing, and the dictionary's sort folds repeats into one entry. That trades
/// memory for the column's bytes (rather than its distinct bytes) against a hash lookup that
/// misses the cache on nearly every value.
pub struct VarInterner {
    /// `(hash tag, id)`; empty once every value is kept.
    slots: Vec<(u32, u32)>,
    mask: usize,
    arena: Vec<u8>,
    ends: Vec<u64>,
    /// Each id's [`IdKey`] (none once every value is kept).
    keys: Vec<IdKey>,
    /// The last id interned and its hash.
    last: Option<(u32, u64)>,
    /// Every value gets its own id (ids may repeat values).
    keep_all: bool,
}

impl Default for VarInterner {
    fn default() -> Self {
        VarInterner {
            slots: vec![(0, EMPTY); 64],
            mask: 63,
            arena: Vec::new(),
            ends: Vec::new(),
            keys: Vec::new(),
            last: None,
            keep_all: false,
        }
    }
}

impl VarInterner {
    /// The bytes of provisional id `id`.
    #[inline]
    pub fn get(&self, id: u32) -> &[u8] {
        let i = id as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.arena[start..self.ends[i] as usize]
    }

    /// The bytes of `ids[k]`, for a caller reading `ids` in order, `k` rising one by one. A
    /// random order reads the arena at random: the end offset of the id [`PREFETCH_AHEAD`]
    /// places on is prefetched, and the bytes of the one half as far, so the misses overlap.
    #[inline]
    pub fn get_ahead(&self, ids: &[u32], k: usize) -> &[u8] {
        if let Some(&ahead) = ids.get(k + PREFETCH_AHEAD) {
            prefetch(
                self.ends
                    .as_ptr()
                    .wrapping_add((ahead as usize).saturating_sub(1)),
            );
        }
        if let Some(&ahead) = ids.get(k + PREFETCH_AHEAD / 2) {
            let start = match ahead {
                0 => 0,
                a => self.ends[a as usize - 1] as usize,
            };
            prefetch(self.arena.as_ptr().wrapping_add(start));
        }
        self.get(ids[k])
    }

    /// From now on, gives every value a new id without looking it up, with room for `values`
    /// ids of `bytes` bytes in all. Ids given so far keep their (distinct) values.
    pub fn keep_every_value(&mut self, values: usize, bytes: usize) {
        self.keep_all = true;
        self.slots = Vec::new();
        self.mask = 0;
        self.keys = Vec::new();
        self.last = None;
        self.arena.reserve(bytes.saturating_sub(self.arena.len()));
        self.ends.reserve(values.saturating_sub(self.ends.len()));
    }

    /// Whether ids may repeat values ([`VarInterner::keep_every_value`]).
    pub fn keeps_every_value(&self) -> bool {
        self.keep_all
    }

    /// Appends `v` with a new id.
    #[inline]
    fn append(&mut self, v: &[u8]) -> u32 {
        let id = self.ends.len() as u32;
        self.arena.extend_from_slice(v);
        self.ends.push(self.arena.len() as u64);
        id
    }

    /// The provisional id of `v`, adding it if new.
    #[inline]
    pub fn intern(&mut self, v: &[u8]) -> u32 {
        if self.keep_all {
            return self.append(v);
        }
        if (self.ends.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        self.intern_hashed(v, value_hash(v, head_words(v)))
    }

    /// Interns a batch of values (`data[ends[i-1]..ends[i]]`), appending ids to `out`, with
    /// hash slots prefetched a few values ahead.
    pub fn intern_batch(
        &mut self,
        data: &[u8],
        ends: &[usize],
        hashes: &mut Vec<u64>,
        out: &mut Vec<u32>,
    ) {
        let value = |i: usize| &data[if i == 0 { 0 } else { ends[i - 1] }..ends[i]];
        self.intern_each(ends.len(), value, hashes, out);
    }

    /// Interns `n` values given by `value(0..n)` (typically cells of a CSV read buffer, so
    /// nothing is copied before interning), appending ids to `out`, with hash slots prefetched
    /// a few values ahead.
    pub fn intern_each<'v>(
        &mut self,
        n: usize,
        value: impl Fn(usize) -> &'v [u8],
        hashes: &mut Vec<u64>,
        out: &mut Vec<u32>,
    ) {
        if self.keep_all {
            out.extend((0..n).map(|i| self.append(value(i))));
            return;
        }
        while (self.ends.len() + n) * 2 > self.slots.len() {
            self.grow();
        }
        if self.slots.len() <= CACHED_SLOTS {
            // Every probe hits the cache: one pass, no prefetching and no last-value check
            // (whose branch mispredicts on a column of a few values in random order).
            out.extend((0..n).map(|i| {
                let v = value(i);
                let words = head_words(v);
                self.find_or_add(v, words, value_hash(v, words))
            }));
            return;
        }
        hashes.clear();
        hashes.extend((0..n).map(|i| {
            let v = value(i);
            value_hash(v, head_words(v))
        }));
        let base = self.slots.as_ptr();
        for &h in hashes.iter().take(PREFETCH_AHEAD) {
            prefetch(base.wrapping_add(h as usize & self.mask));
        }
        for i in 0..n {
            if let Some(&h) = hashes.get(i + PREFETCH_AHEAD) {
                prefetch(base.wrapping_add(h as usize & self.mask));
            }
            out.push(self.intern_hashed(value(i), hashes[i]));
        }
    }

    /// Like [`VarInterner::intern`] with the hash already computed; never grows the table.
    #[inline]
    fn intern_hashed(&mut self, v: &[u8], h: u64) -> u32 {
        let words = head_words(v);
        if let Some((id, lh)) = self.last
            && lh == h
            && self.is(id, words, v)
        {
            return id;
        }
        let id = self.find_or_add(v, words, h);
        self.last = Some((id, h));
        id
    }

    /// The id of `v` (head words `words`, hash `h`), added if new; never grows the table.
    #[inline(always)]
    fn find_or_add(&mut self, v: &[u8], words: [u64; 2], h: u64) -> u32 {
        let tag = (h >> 32) as u32;
        let mut i = h as usize & self.mask;
        loop {
            let (t, id) = self.slots[i];
            if id == EMPTY {
                return self.add(i, v, words, h);
            }
            if t == tag && self.is(id, words, v) {
                return id;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Adds `v` as a new id in empty slot `slot`.
    fn add(&mut self, slot: usize, v: &[u8], words: [u64; 2], h: u64) -> u32 {
        let id = self.ends.len() as u32;
        self.arena.extend_from_slice(v);
        self.ends.push(self.arena.len() as u64);
        self.keys.push(IdKey {
            words,
            // Values of 4 GiB and more share one length here; their bytes decide.
            len: v.len().min(u32::MAX as usize) as u32,
            low: h as u32,
        });
        self.slots[slot] = ((h >> 32) as u32, id);
        id
    }

    /// Whether id `id` holds `v`, whose head words are `words`.
    #[inline(always)]
    fn is(&self, id: u32, words: [u64; 2], v: &[u8]) -> bool {
        let k = &self.keys[id as usize];
        k.words == words
            && k.len as usize == v.len().min(u32::MAX as usize)
            && (v.len() <= 16 || self.get(id) == v)
    }

    /// Bytes of the values interned so far.
    pub fn bytes(&self) -> usize {
        self.arena.len()
    }

    fn grow(&mut self) {
        self.resize(self.slots.len() * 2);
    }

    /// Re-slots every id into a table of `cap` (a power of two) slots.
    fn resize(&mut self, cap: usize) {
        let old = std::mem::replace(&mut self.slots, vec![(0, EMPTY); cap]);
        self.mask = cap - 1;
        for (tag, id) in old {
            if id == EMPTY {
                continue;
            }
            // Past 2^32 slots the stored low bits no longer cover the mask: rehash.
            let h = if cap > 1 << 32 {
                let v = self.get(id);
                value_hash(v, head_words(v)) as usize
            } else {
                self.keys[id as usize].low as usize
            };
            let mut i = h & self.mask;
            while self.slots[i].1 != EMPTY {
                i = (i + 1) & self.mask;
            }
            self.slots[i] = (tag, id);
        }
    }

    /// Number of ids given: distinct values, unless every value is kept.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no value was interned.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Bytes of memory held.
    pub fn memory(&self) -> usize {
        self.slots.len() * 8
            + self.arena.capacity()
            + self.ends.capacity() * 8
            + self.keys.capacity() * std::mem::size_of::<IdKey>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn ids_are_first_occurrence_ranks(vals in proptest::collection::vec(-50i64..50, 0..1000), strs in proptest::collection::vec("[a-c]{0,3}", 0..1000)) {
            let mut n = NumInterner::<i64>::default();
            let mut seen: Vec<i64> = Vec::new();
            for v in vals {
                let id = n.intern(v);
                let pos = seen.iter().position(|&s| s == v).unwrap_or_else(|| { seen.push(v); seen.len() - 1 });
                prop_assert_eq!(id as usize, pos);
            }
            prop_assert_eq!(n.values(), &seen[..]);

            let mut s = VarInterner::default();
            let mut seen: Vec<String> = Vec::new();
            for v in strs {
                let id = s.intern(v.as_bytes());
                let pos = seen.iter().position(|x| *x == v).unwrap_or_else(|| { seen.push(v.clone()); seen.len() - 1 });
                prop_assert_eq!(id as usize, pos);
                prop_assert_eq!(s.get(id), v.as_bytes());
            }
            prop_assert_eq!(s.len(), seen.len());
        }
    }

    proptest! {
        #[test]
        fn batches_match_single_interning(vals in proptest::collection::vec(-300i64..300, 0..3000), strs in proptest::collection::vec("[a-d]{0,3}", 0..3000)) {
            let (mut a, mut b) = (NumInterner::<i64>::default(), NumInterner::<i64>::default());
            let (mut hashes, mut ids) = (Vec::new(), Vec::new());
            for chunk in vals.chunks(700) { b.intern_batch(chunk, &mut hashes, &mut ids); }
            let single: Vec<u32> = vals.iter().map(|&v| a.intern(v)).collect();
            prop_assert_eq!(ids, single);
            prop_assert_eq!(a.values(), b.values());

            let (mut a, mut b) = (VarInterner::default(), VarInterner::default());
            let mut ids = Vec::new();
            for chunk in strs.chunks(500) {
                let mut data = Vec::new();
                let mut ends = Vec::new();
                for s in chunk { data.extend_from_slice(s.as_bytes()); ends.push(data.len()); }
                b.intern_batch(&data, &ends, &mut hashes, &mut ids);
            }
            let single: Vec<u32> = strs.iter().map(|s| a.intern(s.as_bytes())).collect();
            prop_assert_eq!(ids, single);
        }
    }

    thread_local! {
        /// Whether [`value_hash`] gives every value the same hash.
        pub static COLLIDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// Ids from interning `vals` one by one and in batches of `batch`, checked against a map
    /// that gives each distinct value the next id.
    fn check_var_ids(vals: &[Vec<u8>], batch: usize) {
        let mut want = std::collections::HashMap::new();
        let expected: Vec<u32> = vals
            .iter()
            .map(|v| {
                let next = want.len() as u32;
                *want.entry(v.clone()).or_insert(next)
            })
            .collect();
        let mut single = VarInterner::default();
        let ids: Vec<u32> = vals.iter().map(|v| single.intern(v)).collect();
        assert_eq!(ids, expected);
        let (mut batched, mut hashes, mut ids) = (VarInterner::default(), Vec::new(), Vec::new());
        for chunk in vals.chunks(batch) {
            batched.intern_each(chunk.len(), |k| &chunk[k], &mut hashes, &mut ids);
        }
        assert_eq!(ids, expected);
        for (v, &id) in &want {
            assert_eq!(single.get(id), &v[..]);
            assert_eq!(batched.get(id), &v[..]);
        }
        assert_eq!(batched.len(), want.len());
    }

    proptest! {
        #[test]
        fn values_that_differ_in_padding_or_past_16_bytes_get_their_own_ids(
            pool in proptest::collection::vec(
                proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a'), any::<u8>()], 0..40),
                1..40,
            ),
            picks in proptest::collection::vec(any::<prop::sample::Index>(), 0..1500),
            batch in 1usize..600,
        ) {
            // Zero bytes and equal heads: "a" vs "a\0", 17-byte values sharing 16 bytes.
            let mut pool = pool;
            let long = [b'x'; 16];
            pool.push([&long[..], b"1"].concat());
            pool.push([&long[..], b"2"].concat());
            pool.push(b"a".to_vec());
            pool.push(b"a\0".to_vec());
            let vals: Vec<Vec<u8>> = picks.iter().map(|i| pool[i.index(pool.len())].clone()).collect();
            check_var_ids(&vals, batch);
            // With every hash equal, only the keys (and bytes past 16) tell values apart.
            COLLIDING.set(true);
            let colliding = std::panic::catch_unwind(|| check_var_ids(&vals, batch));
            COLLIDING.set(false);
            prop_assert!(colliding.is_ok());
        }
    }

    #[test]
    fn large_tables_prefetch_and_agree() {
        // More distinct values than a cached table holds, of every length class.
        let vals: Vec<Vec<u8>> = (0..60_000u64)
            .map(|i| {
                let x = crate::hash::mix64(i % 20_000);
                let len = (x % 40) as usize;
                (0..len).map(|k| (x >> (k % 8 * 8)) as u8 & 0x3f).collect()
            })
            .collect();
        check_var_ids(&vals, 2048);
        let mut single = NumInterner::<f64>::default();
        let (mut batched, mut hashes, mut ids) =
            (NumInterner::<f64>::default(), Vec::new(), Vec::new());
        let nums: Vec<f64> = (0..60_000u64)
            .map(|i| (crate::hash::mix64(i % 20_000) % 1_000_000) as f64 / 100.0)
            .collect();
        for chunk in nums.chunks(2048) {
            batched.intern_batch(chunk, &mut hashes, &mut ids);
        }
        let one: Vec<u32> = nums.iter().map(|&v| single.intern(v)).collect();
        assert_eq!(ids, one);
        assert_eq!(batched.values(), single.values());
        assert!(batched.slots.len() > CACHED_SLOTS);
    }

    #[test]
    fn reading_ahead_gives_the_values_in_the_given_order() {
        let mut s = VarInterner::default();
        let words: Vec<String> = (0..100).map(|i| format!("w{}", i * 7919 % 1000)).collect();
        let ids: Vec<u32> = words.iter().map(|w| s.intern(w.as_bytes())).collect();
        let order: Vec<u32> = ids.iter().rev().copied().collect();
        for (k, w) in words.iter().rev().enumerate() {
            assert_eq!(s.get_ahead(&order, k), w.as_bytes());
        }
    }

    #[test]
    fn keeping_every_value_gives_each_a_new_id() {
        let mut s = VarInterner::default();
        assert_eq!((s.intern(b"a"), s.intern(b"b"), s.intern(b"a")), (0, 1, 0));
        s.keep_every_value(10, 100);
        assert!(s.keeps_every_value());
        assert_eq!(s.intern(b"a"), 2);
        let (mut hashes, mut ids) = (Vec::new(), Vec::new());
        s.intern_batch(b"bcb", &[1, 2, 3], &mut hashes, &mut ids);
        assert_eq!(ids, [3, 4, 5]);
        assert_eq!((s.len(), s.get(2), s.get(5)), (6, &b"a"[..], &b"b"[..]));
    }

    proptest! {
        #[test]
        fn dense_and_hashed_integers_agree(small in proptest::collection::vec(-2000i64..2000, 0..400), wide in proptest::collection::vec(any::<i64>(), 0..40), spread in 1i64..100_000, at in 0usize..400) {
            // Small values stay dense; wide ones (and a jump) force the switch to hashing
            // partway, in single and batch interning alike.
            let mut vals: Vec<i64> = small.iter().map(|&v| v * spread).collect();
            let at = at.min(vals.len());
            vals.splice(at..at, wide.iter().copied());
            let mut seen: Vec<i64> = Vec::new();
            let want: Vec<u32> = vals.iter().map(|&v| seen.iter().position(|&s| s == v).unwrap_or_else(|| { seen.push(v); seen.len() - 1 }) as u32).collect();
            let mut one = NumInterner::<i64>::default();
            prop_assert_eq!(vals.iter().map(|&v| one.intern(v)).collect::<Vec<_>>(), want.clone());
            prop_assert_eq!(one.values(), &seen[..]);
            let (mut batched, mut hashes, mut ids) = (NumInterner::<i64>::default(), Vec::new(), Vec::new());
            for chunk in vals.chunks(37) { batched.intern_batch(chunk, &mut hashes, &mut ids); }
            prop_assert_eq!(ids, want);
            let mut ints = NumInterner::<i32>::default();
            for &v in &vals { ints.intern(v as i32); }
            prop_assert_eq!(ints.values().len(), vals.iter().map(|&v| v as i32).collect::<std::collections::HashSet<_>>().len());
        }
    }

    #[test]
    fn dense_windows_grow_both_ways_and_give_way() {
        let mut n = NumInterner::<i64>::default();
        assert_eq!(
            (n.intern(5_000), n.intern(10), n.intern(-3), n.intern(5_000)),
            (0, 1, 2, 0)
        );
        assert!(n.dense.is_some());
        assert_eq!(n.intern(i64::MAX), 3);
        assert!(n.dense.is_none());
        assert_eq!((n.intern(-3), n.intern(i64::MIN), n.intern(10)), (2, 4, 1));
        // Extremes are fine while dense too.
        let mut n = NumInterner::<i64>::default();
        assert_eq!(
            (
                n.intern(i64::MAX),
                n.intern(i64::MAX - 1),
                n.intern(i64::MAX)
            ),
            (0, 1, 0)
        );
        let mut n = NumInterner::<i64>::default();
        assert_eq!(
            (
                n.intern(i64::MIN),
                n.intern(i64::MIN + 1),
                n.intern(i64::MIN)
            ),
            (0, 1, 0)
        );
    }

    #[test]
    fn floats_are_distinct_by_bits() {
        let mut n = NumInterner::<f64>::default();
        assert_ne!(n.intern(0.0), n.intern(-0.0));
        assert_eq!(n.intern(f64::NAN), n.intern(f64::NAN));
    }
}
