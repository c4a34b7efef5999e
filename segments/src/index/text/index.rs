//! The stored text index: its terms in byte order (a BYTES [`VarDictionary`]) and each term's
//! documents (posting lists in [`crate::index::inverted`]'s format). Positions are not stored: a
//! phrase is confirmed on the candidate documents' own text, analyzed again.
//!
//! The index keeps the [`TextIndexConfig`] it was built with, so queries analyze their text as
//! the documents were (Pinot reads stop words and case from the current table config; a
//! segment built under other options would then disagree with itself).
//!
//! Layout: `u32` version (1), `u32` config length, `u64` dictionary length, the config (JSON),
//! the dictionary, the postings.

use super::analyzer::Analyzer;
use super::config::TextIndexConfig;
use crate::dictionary::VarDictionary;
use crate::format::{ByteReader, Bytes};
use crate::hash::FxBuildHasher;
use crate::index::inverted::{self, InvertedIndexReader};
use crate::types::{DataType, DictId, Value};
use roaring::RoaringBitmap;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

const VERSION: u32 = 1;
const HEADER: usize = 16;

/// Collects one column's text index, documents in order.
pub struct TextIndexWriter {
    config: TextIndexConfig,
    analyzer: Analyzer,
    /// Documents per term, ascending (made bitmaps at the end).
    terms: HashMap<String, Vec<u32>, FxBuildHasher>,
    scratch: Vec<super::analyzer::Token>,
}

impl TextIndexWriter {
    pub fn new(config: &TextIndexConfig) -> TextIndexWriter {
        TextIndexWriter {
            config: config.clone(),
            analyzer: Analyzer::new(config),
            terms: HashMap::default(),
            scratch: Vec::new(),
        }
    }

    /// The distinct terms of a document's values (one, or a multi-value cell's, whose tokens
    /// continue one another).
    pub fn terms_of<'a>(&mut self, values: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        self.scratch.clear();
        let mut position = 0;
        for v in values {
            position = self.analyzer.tokens_into(v, position, &mut self.scratch);
        }
        let mut terms: Vec<String> = self.scratch.drain(..).map(|t| t.text).collect();
        terms.sort_unstable();
        terms.dedup();
        terms
    }

    /// Adds document `doc` (ascending) with its distinct `terms`.
    pub fn add_terms(&mut self, doc: u32, terms: &[String]) {
        for t in terms {
            let posting = match self.terms.get_mut(t) {
                Some(p) => p,
                None => self.terms.entry(t.clone()).or_default(),
            };
            if posting.last() != Some(&doc) {
                posting.push(doc);
            }
        }
    }

    /// Adds document `doc` (ascending) with its values.
    pub fn add<'a>(&mut self, doc: u32, values: impl IntoIterator<Item = &'a str>) {
        let terms = self.terms_of(values);
        self.add_terms(doc, &terms);
    }

    /// The index entry.
    pub fn finish(self) -> Result<Vec<u8>, String> {
        let mut terms: Vec<(String, Vec<u32>)> = self.terms.into_iter().collect();
        terms.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let total: usize = terms.iter().map(|(t, _)| t.len()).sum();
        let dictionary = VarDictionary::encode_ranked(
            terms.len(),
            |i| terms[i].0.as_bytes(),
            VarDictionary::block_len_for(total),
        )?;
        let postings = inverted::encode(
            terms
                .into_iter()
                .map(|(_, docs)| RoaringBitmap::from_sorted_iter(docs).unwrap_or_default()),
        );
        let config = serde_json::to_vec(&self.config).map_err(|e| e.to_string())?;
        let mut out = Vec::with_capacity(HEADER + config.len() + dictionary.len() + postings.len());
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(config.len() as u32).to_le_bytes());
        out.extend_from_slice(&(dictionary.len() as u64).to_le_bytes());
        out.extend_from_slice(&config);
        out.extend_from_slice(&dictionary);
        out.extend_from_slice(&postings);
        Ok(out)
    }
}

/// A column's text index.
#[derive(Clone, Debug)]
pub struct TextIndexReader {
    config: TextIndexConfig,
    terms: VarDictionary,
    postings: InvertedIndexReader,
}

impl TextIndexReader {
    pub fn from_bytes(bytes: Bytes) -> Result<TextIndexReader, String> {
        let mut r = ByteReader::new(&bytes);
        let version = r.u32()?;
        if version != VERSION {
            return Err(format!("unknown text index version {version}"));
        }
        let config_len = r.u32()? as usize;
        let dict_len = r.len_at_most(bytes.len().saturating_sub(HEADER), "text index terms")?;
        let config_bytes = bytes
            .slice(HEADER, config_len)
            .ok_or("config out of bounds")?;
        let config: TextIndexConfig =
            serde_json::from_slice(&config_bytes).map_err(|e| format!("text index config: {e}"))?;
        let terms = VarDictionary::from_bytes(
            bytes
                .slice(HEADER + config_len, dict_len)
                .ok_or("terms out of bounds")?,
            DataType::Bytes,
        )?;
        let at = HEADER + config_len + dict_len;
        let postings = InvertedIndexReader::from_bytes(
            bytes
                .slice(at, bytes.len().saturating_sub(at))
                .ok_or("postings out of bounds")?,
        )?;
        if postings.len() != terms.len() {
            return Err("text index postings do not match its terms".into());
        }
        Ok(TextIndexReader {
            config,
            terms,
            postings,
        })
    }

    /// The options the index was built with.
    pub fn config(&self) -> &TextIndexConfig {
        &self.config
    }

    /// How many distinct terms.
    pub fn len(&self) -> u32 {
        self.terms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    fn search(&self, term: &str) -> Result<DictId, DictId> {
        self.terms
            .search(&Value::Bytes(term.as_bytes().to_vec()))
            .unwrap_or(Err(0))
    }

    /// The documents holding `term`.
    pub fn docs(&self, term: &str) -> Option<Arc<RoaringBitmap>> {
        self.search(term).ok().map(|id| self.postings.shared(id))
    }

    /// The term ids from `lower` (or the first) to before `upper` (or the end), in byte order.
    pub fn ids_between(&self, lower: Option<&str>, upper: Option<&str>) -> Range<DictId> {
        let from = lower.map_or(0, |l| match self.search(l) {
            Ok(i) | Err(i) => i,
        });
        let to = upper.map_or(self.len(), |u| match self.search(u) {
            Ok(i) | Err(i) => i,
        });
        from..to.max(from)
    }

    /// The ids of the terms starting with `prefix`.
    pub fn ids_with_prefix(&self, prefix: &str) -> Range<DictId> {
        let from = match self.search(prefix) {
            Ok(i) | Err(i) => i,
        };
        let mut to = from;
        // Terms with the prefix follow it directly in byte order.
        let (mut lo, mut hi) = (from, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.term(mid).as_bytes().starts_with(prefix.as_bytes()) {
                to = mid + 1;
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        from..to.max(from)
    }

    /// Term `id`'s text.
    pub fn term(&self, id: DictId) -> String {
        String::from_utf8_lossy(&self.terms.bytes(id)).into_owned()
    }

    /// Term `id`'s documents.
    pub fn posting(&self, id: DictId) -> Arc<RoaringBitmap> {
        self.postings.shared(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_postings_and_ranges() {
        let mut w = TextIndexWriter::new(&TextIndexConfig::default());
        w.add(0, ["Java, C++, Machine learning"]);
        w.add(1, ["Python", "machine learning"]);
        w.add(2, ["the streaming stream"]);
        let r = TextIndexReader::from_bytes(Bytes::from_vec(w.finish().unwrap())).unwrap();
        let docs = |t: &str| {
            r.docs(t)
                .map(|b| b.iter().collect::<Vec<_>>())
                .unwrap_or_default()
        };
        assert_eq!(docs("machine"), [0, 1]);
        assert_eq!(docs("java"), [0]);
        assert!(docs("the").is_empty());
        let prefixed: Vec<String> = r.ids_with_prefix("stream").map(|i| r.term(i)).collect();
        assert_eq!(prefixed, ["stream", "streaming"]);
        assert!(r.ids_with_prefix("zzz").is_empty());
        let between: Vec<String> = r
            .ids_between(Some("l"), Some("p"))
            .map(|i| r.term(i))
            .collect();
        assert_eq!(between, ["learning", "machine"]);
        assert!(TextIndexReader::from_bytes(Bytes::from_vec(vec![2, 0, 0, 0])).is_err());
    }
}
