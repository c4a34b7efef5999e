//! [`JsonIndexReader`]: a column's JSON index as stored, and its lookups.
//!
//! Layout: `u32` version (1), `u32` 0, `u64` dictionary length, `u64` postings length, `u64`
//! flattened count; the sorted posting-list keys as a BYTES [`VarDictionary`] (`key` and
//! `key\0value` strings, byte order, so a key's values are the run between `key\0` and `key\1`);
//! their posting lists of flattened ids in key order ([`crate::index::inverted`]'s format); padding to 4 bytes;
//! the document of each flattened id (`u32`, ascending).

use crate::dictionary::VarDictionary;
use crate::format::{ByteReader, Bytes, TypedSlice};
use crate::index::inverted::InvertedIndexReader;
use crate::types::{DataType, DictId, Value};
use roaring::RoaringBitmap;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

const VERSION: u32 = 1;
const HEADER: usize = 32;

/// Lays out an index entry.
pub fn encode(dictionary: &[u8], postings: &[u8], flat_docs: &[u32]) -> Vec<u8> {
    let mut out =
        Vec::with_capacity(HEADER + dictionary.len() + postings.len() + 4 + flat_docs.len() * 4);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(dictionary.len() as u64).to_le_bytes());
    out.extend_from_slice(&(postings.len() as u64).to_le_bytes());
    out.extend_from_slice(&(flat_docs.len() as u64).to_le_bytes());
    out.extend_from_slice(dictionary);
    out.extend_from_slice(postings);
    crate::format::bytes::pad_to(&mut out, 4);
    for d in flat_docs {
        out.extend_from_slice(&d.to_le_bytes());
    }
    out
}

/// A column's JSON index.
#[derive(Clone, Debug)]
pub struct JsonIndexReader {
    keys: VarDictionary,
    postings: InvertedIndexReader,
    /// The document of each flattened id.
    flat_docs: TypedSlice<i32>,
}

impl JsonIndexReader {
    /// Parses an entry written by [`encode`] for a segment of `docs` documents.
    pub fn from_bytes(bytes: Bytes, docs: u32) -> Result<JsonIndexReader, String> {
        let mut r = ByteReader::new(&bytes);
        let version = r.u32()?;
        if version != VERSION {
            return Err(format!("unknown json index version {version}"));
        }
        r.u32()?;
        let dict_len = r.len_at_most(bytes.len(), "json index dictionary")?;
        let postings_len = r.len_at_most(bytes.len(), "json index postings")?;
        let flat = r.len_at_most(bytes.len() / 4, "json index flattened docs")?;
        let slice = |at: usize, len: usize, what: &str| {
            bytes
                .slice(at, len)
                .ok_or_else(|| format!("{what} out of bounds"))
        };
        let keys =
            VarDictionary::from_bytes(slice(HEADER, dict_len, "dictionary")?, DataType::Bytes)?;
        let postings =
            InvertedIndexReader::from_bytes(slice(HEADER + dict_len, postings_len, "postings")?)?;
        if postings.len() != keys.len() {
            return Err("json index postings do not match its keys".into());
        }
        let docs_at = (HEADER + dict_len + postings_len).next_multiple_of(4);
        let flat_docs: TypedSlice<i32> =
            TypedSlice::new(slice(docs_at, flat * 4, "flattened docs")?)?;
        let s = flat_docs.as_slice();
        if s.windows(2).any(|w| (w[0] as u32) > (w[1] as u32))
            || s.last().is_some_and(|&d| d as u32 >= docs)
        {
            return Err("json index flattened docs are out of order or bounds".into());
        }
        Ok(JsonIndexReader {
            keys,
            postings,
            flat_docs,
        })
    }

    /// How many flattened records the index holds.
    pub fn flattened_len(&self) -> u32 {
        self.flat_docs.as_slice().len() as u32
    }

    fn id_of(&self, key: &[u8]) -> Option<DictId> {
        self.keys.search(&Value::Bytes(key.to_vec()))?.ok()
    }

    /// The first id at or after `key`.
    fn id_from(&self, key: &[u8]) -> DictId {
        match self.keys.search(&Value::Bytes(key.to_vec())) {
            Some(Ok(id) | Err(id)) => id,
            None => self.keys.len(),
        }
    }

    /// The flattened ids of records holding `key` (a scalar at that path); `None`: no record.
    pub fn key(&self, key: &str) -> Option<Arc<RoaringBitmap>> {
        self.id_of(key.as_bytes())
            .map(|id| self.postings.shared(id))
    }

    /// The flattened ids of records whose `key` has the text `value`; `None`: no record.
    pub fn key_value(&self, key: &str, value: &str) -> Option<Arc<RoaringBitmap>> {
        let mut kv = Vec::with_capacity(key.len() + 1 + value.len());
        kv.extend_from_slice(key.as_bytes());
        kv.push(0);
        kv.extend_from_slice(value.as_bytes());
        self.id_of(&kv).map(|id| self.postings.shared(id))
    }

    /// The posting ids of `key`'s values (`key\0…`), to read with [`JsonIndexReader::value`]
    /// and [`JsonIndexReader::posting`].
    pub fn values_of(&self, key: &str) -> Range<DictId> {
        let mut from = key.as_bytes().to_vec();
        from.push(0);
        let start = self.id_from(&from);
        // `key\1`: the first entry past `key\0…`.
        from.pop();
        from.push(1);
        start..self.id_from(&from).max(start)
    }

    /// The value text of posting id `id` of `key`'s [`values_of`](Self::values_of).
    pub fn value(&self, key: &str, id: DictId) -> String {
        let entry: Cow<'_, [u8]> = self.keys.bytes(id);
        let value = entry.get(key.len() + 1..).unwrap_or_default();
        String::from_utf8_lossy(value).into_owned()
    }

    /// The flattened ids of posting id `id`.
    pub fn posting(&self, id: DictId) -> Arc<RoaringBitmap> {
        self.postings.shared(id)
    }

    /// The documents of the flattened ids `flat`.
    pub fn docs_of(&self, flat: &RoaringBitmap) -> RoaringBitmap {
        let docs = self.flat_docs.as_slice();
        let mut out = RoaringBitmap::new();
        let mut last = None;
        for f in flat {
            if let Some(&d) = docs.get(f as usize) {
                let d = d as u32;
                // Flattened ids ascend with their documents: push skips the repeats.
                if last != Some(d) {
                    let _ = out.try_push(d);
                    last = Some(d);
                }
            }
        }
        out
    }

    /// Every flattened id.
    pub fn all_flattened(&self) -> RoaringBitmap {
        RoaringBitmap::from_sorted_iter(0..self.flattened_len()).unwrap_or_default()
    }
}
