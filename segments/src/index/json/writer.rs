//! Building a JSON index: documents in doc order, each flattened ([`super::flatten`]); every
//! record gets the next flattened id, and each of its pairs adds that id to two posting lists,
//! `key` (the key exists) and `key\0value`. A dictionary-encoded column flattens each distinct
//! value once ([`JsonIndexWriter::intern`]) and adds its records per document.

use super::config::JsonIndexConfig;
use super::flatten::{Flattener, Record};
use super::reader;
use crate::hash::FxBuildHasher;
use crate::index::inverted;
use roaring::RoaringBitmap;
use std::collections::HashMap;

/// A document's records as posting-list ids (`key` and `key\0value` of each pair).
pub type InternedRecords = Vec<Vec<u32>>;

/// Collects one column's JSON index.
pub struct JsonIndexWriter {
    flattener: Flattener,
    /// Posting-list key → its id (index into `postings`).
    ids: HashMap<Vec<u8>, u32, FxBuildHasher>,
    keys: Vec<Vec<u8>>,
    /// Flattened ids per posting list, ascending (made bitmaps at the end: pushing ids one by
    /// one into roaring containers was a sixth of a JSON index's build).
    postings: Vec<Vec<u32>>,
    /// The document of each flattened id.
    flat_docs: Vec<u32>,
    scratch: Vec<u8>,
}

impl JsonIndexWriter {
    pub fn new(config: &JsonIndexConfig) -> JsonIndexWriter {
        JsonIndexWriter {
            flattener: Flattener::new(config),
            ids: HashMap::default(),
            keys: Vec::new(),
            postings: Vec::new(),
            flat_docs: Vec::new(),
            scratch: Vec::new(),
        }
    }

    fn id_of(&mut self, key: &[u8]) -> u32 {
        if let Some(&id) = self.ids.get(key) {
            return id;
        }
        let id = self.keys.len() as u32;
        self.ids.insert(key.to_vec(), id);
        self.keys.push(key.to_vec());
        self.postings.push(Vec::new());
        id
    }

    fn intern_records(&mut self, records: Vec<Record>) -> InternedRecords {
        records
            .into_iter()
            .map(|r| {
                let mut ids = Vec::with_capacity(r.len() * 2);
                for (k, v) in r {
                    ids.push(self.id_of(k.as_bytes()));
                    let mut kv = std::mem::take(&mut self.scratch);
                    kv.clear();
                    kv.extend_from_slice(k.as_bytes());
                    kv.push(0);
                    kv.extend_from_slice(v.as_bytes());
                    ids.push(self.id_of(&kv));
                    self.scratch = kv;
                }
                ids
            })
            .collect()
    }

    /// The records of a document's text, interned; an error for text that is not JSON (unless
    /// the config skips it).
    pub fn intern(&mut self, text: &str) -> Result<InternedRecords, String> {
        let records = self.flattener.flatten(text)?;
        Ok(self.intern_records(records))
    }

    /// Adds document `doc` (the next one: docs arrive in order) with its interned records.
    pub fn add(&mut self, doc: u32, records: &InternedRecords) {
        for r in records {
            let flat = self.flat_docs.len() as u32;
            self.flat_docs.push(doc);
            for &id in r {
                let posting = &mut self.postings[id as usize];
                // Ids ascend; a key twice in one record (duplicate JSON keys) is kept once.
                if posting.last() != Some(&flat) {
                    posting.push(flat);
                }
            }
        }
    }

    /// Adds the next document from its text.
    pub fn add_text(&mut self, doc: u32, text: &str) -> Result<(), String> {
        let records = self.intern(text)?;
        self.add(doc, &records);
        Ok(())
    }

    /// The index entry.
    pub fn finish(self) -> Result<Vec<u8>, String> {
        let mut order: Vec<u32> = (0..self.keys.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| self.keys[a as usize].cmp(&self.keys[b as usize]));
        let mut postings = self.postings;
        let sorted_postings: Vec<RoaringBitmap> = order
            .iter()
            .map(|&i| {
                let ids = std::mem::take(&mut postings[i as usize]);
                RoaringBitmap::from_sorted_iter(ids).unwrap_or_default()
            })
            .collect();
        let keys = &self.keys;
        let dictionary = crate::dictionary::VarDictionary::encode_ranked(
            order.len(),
            |i| keys[order[i] as usize].as_slice(),
            crate::dictionary::VarDictionary::block_len_for(
                keys.iter().map(Vec::len).sum::<usize>(),
            ),
        )?;
        let postings = inverted::encode(sorted_postings.into_iter());
        Ok(reader::encode(&dictionary, &postings, &self.flat_docs))
    }
}
