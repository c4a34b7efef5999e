//! The values behind a coded column ([`Cells::Coded`](crate::column::Cells::Coded)): code `c`
//! stands for `book[c]`, and distinct codes stand for distinct values.
//!
//! A multi-stage leaf reads text in dictionary ids and keeps it coded: each segment id its rows
//! use gets a code, and the book remembers the segment id, not the text. A value is decoded the
//! first time something reads it (a join's output projected, a group key hashed, the broker's
//! answer written) and kept — so text of rows a join drops is never decoded at all. Books built
//! from values (a block received over HTTP, a merge of books) hold them decoded from the start.

use segments::dictionary::ValueDecoder;
use segments::types::{DataType, Value};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::{Arc, OnceLock};

/// The values of a coded column, by code.
pub struct CodeBook {
    /// Each code's value once decoded. A lazy book makes its slots at its first read: the books
    /// of a segment column's parts, merged into one book and dropped, are never read.
    values: OnceLock<Vec<OnceLock<Value>>>,
    codes: usize,
    /// Where undecoded values come from: the segment dictionary and each code's id in it.
    source: Option<(Arc<ValueDecoder>, Vec<u32>)>,
}

impl CodeBook {
    /// A book of `values`, decoded.
    pub fn from_values(values: Vec<Value>) -> CodeBook {
        CodeBook {
            codes: values.len(),
            values: OnceLock::from(values.into_iter().map(OnceLock::from).collect::<Vec<_>>()),
            source: None,
        }
    }

    /// A book whose code `c` is the value of `ids[c]` in `decoder`'s dictionary, decoded when
    /// first read.
    pub fn lazy(decoder: Arc<ValueDecoder>, ids: Vec<u32>) -> CodeBook {
        CodeBook {
            values: OnceLock::new(),
            codes: ids.len(),
            source: Some((decoder, ids)),
        }
    }

    /// The value of `code` (NULL for a code the book does not have).
    pub fn get(&self, code: u32) -> &Value {
        static NULL: Value = Value::Null;
        let values = self
            .values
            .get_or_init(|| (0..self.codes).map(|_| OnceLock::new()).collect());
        let Some(slot) = values.get(code as usize) else {
            return &NULL;
        };
        slot.get_or_init(|| match &self.source {
            Some((decoder, ids)) => decoder.value(ids[code as usize]),
            None => Value::Null,
        })
    }

    /// `f` over the stored bytes behind `code` and their type, when the book reads a text,
    /// decimal or bytes dictionary, has not decoded `code`, and those bytes are the value's own
    /// (text that is not UTF-8 is repaired when decoded, so its bytes are not): a value only
    /// written out (to another process) or hashed is then never made. `None` otherwise: read it
    /// with [`CodeBook::get`].
    pub fn with_stored<R>(&self, code: u32, f: impl FnOnce(DataType, &[u8]) -> R) -> Option<R> {
        let (decoder, ids) = self.source.as_ref()?;
        let decoded = self
            .values
            .get()
            .and_then(|v| v.get(code as usize))
            .is_some_and(|slot| slot.get().is_some());
        if decoded {
            return None;
        }
        decoder
            .with_stored(*ids.get(code as usize)?, |t, b| {
                (t == DataType::Bytes || std::str::from_utf8(b).is_ok()).then(|| f(t, b))
            })
            .flatten()
    }

    /// Codes in the book.
    pub fn len(&self) -> usize {
        self.codes
    }

    /// Whether the book has no codes.
    pub fn is_empty(&self) -> bool {
        self.codes == 0
    }

    /// Whether reading every value costs no decoding (then per-value work may be done for all).
    pub fn is_decoded(&self) -> bool {
        self.source.is_none()
    }

    /// Books that all decode lazily from one stored dictionary (a segment's column read in
    /// parts) merged without decoding: one book of the segment ids any of them uses, sharing
    /// their decoder, and for each book its codes' new codes. `None` when a book is decoded or
    /// reads another dictionary.
    pub fn merge_lazy(books: &[&CodeBook]) -> Option<(CodeBook, Vec<Vec<u32>>)> {
        let (decoder, _) = books.first()?.source.as_ref()?;
        let mut sources = Vec::with_capacity(books.len());
        for book in books {
            let (d, ids) = book.source.as_ref()?;
            if !(Arc::ptr_eq(d, decoder) || d.same_dictionary(decoder)) {
                return None;
            }
            sources.push(ids);
        }
        // Segment id → new code: a table indexed by id when the ids are not much sparser
        // than the codes (a segment column's parts), else a hash map.
        let book_codes: usize = sources.iter().map(|ids| ids.len()).sum();
        let span = sources
            .iter()
            .flat_map(|ids| ids.iter().max())
            .max()
            .map_or(0, |m| *m as usize + 1);
        let mut codes = FirstUse::new(span, span <= book_codes.saturating_mul(8).max(1 << 16));
        let remaps = sources
            .iter()
            .map(|ids| ids.iter().map(|&id| codes.code_of(id)).collect())
            .collect();
        Some((CodeBook::lazy(decoder.clone(), codes.into_used()), remaps))
    }

    /// A book of the codes `used` (each a code of this book): code `i` of the new book stands
    /// for `used[i]`'s value. Values already decoded are copied; a lazy book's others stay
    /// undecoded. Rows that keep few of a large book's codes (a top-k's) take a book of their
    /// own, so reading their values makes a slot per kept code, not per code of the old book.
    pub fn subset(&self, used: &[u32]) -> CodeBook {
        let Some((decoder, ids)) = &self.source else {
            return CodeBook::from_values(used.iter().map(|&c| self.get(c).clone()).collect());
        };
        let values = match self.values.get() {
            Some(slots) => OnceLock::from(
                used.iter()
                    .map(|&c| match slots.get(c as usize).and_then(OnceLock::get) {
                        Some(v) => OnceLock::from(v.clone()),
                        None => OnceLock::new(),
                    })
                    .collect::<Vec<_>>(),
            ),
            None => OnceLock::new(),
        };
        CodeBook {
            values,
            codes: used.len(),
            source: Some((
                decoder.clone(),
                used.iter()
                    .map(|&c| ids.get(c as usize).copied().unwrap_or(0))
                    .collect(),
            )),
        }
    }

    /// Every value, in code order (decoding those not read yet).
    pub fn iter(&self) -> impl Iterator<Item = &Value> {
        (0..self.codes as u32).map(|c| self.get(c))
    }
}

/// Ids numbered in the order they are first seen: the codes of a book of the ids some rows
/// use. Through a slot per id below `span` when the caller finds the ids dense enough, else
/// through a hash map; an id at or past `span` in a dense numbering gets a code of its own
/// each time.
pub(crate) struct FirstUse {
    slots: Vec<u32>,
    map: Option<hashbrown::HashMap<u32, u32>>,
    used: Vec<u32>,
}

impl FirstUse {
    pub(crate) fn new(span: usize, dense: bool) -> FirstUse {
        FirstUse {
            slots: if dense {
                vec![u32::MAX; span]
            } else {
                Vec::new()
            },
            map: (!dense).then(hashbrown::HashMap::new),
            used: Vec::new(),
        }
    }

    /// The code of `id`: a new one the first time it is seen.
    pub(crate) fn code_of(&mut self, id: u32) -> u32 {
        let slot = match &mut self.map {
            Some(map) => map.entry(id).or_insert(u32::MAX),
            None => match self.slots.get_mut(id as usize) {
                Some(slot) => slot,
                None => {
                    self.used.push(id);
                    return (self.used.len() - 1) as u32;
                }
            },
        };
        if *slot == u32::MAX {
            *slot = self.used.len() as u32;
            self.used.push(id);
        }
        *slot
    }

    /// The ids seen, by code.
    pub(crate) fn into_used(self) -> Vec<u32> {
        self.used
    }
}

/// A segment's STRING dictionary of `values` (in dictionary order), for tests of books that
/// read one.
#[cfg(test)]
pub(crate) fn text_dictionary(values: &[&str]) -> segments::dictionary::Dictionary {
    let bytes =
        segments::dictionary::var::VarDictionary::encode(values.iter().map(|v| v.as_bytes()))
            .unwrap();
    segments::dictionary::Dictionary::from_bytes(
        segments::format::Bytes::from_vec(bytes),
        DataType::String,
    )
    .unwrap()
}

impl std::ops::Index<usize> for CodeBook {
    type Output = Value;
    fn index(&self, code: usize) -> &Value {
        self.get(code as u32)
    }
}

impl std::fmt::Debug for CodeBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeBook")
            .field("codes", &self.codes)
            .field("lazy", &self.source.is_some())
            .finish()
    }
}

impl PartialEq for CodeBook {
    fn eq(&self, other: &CodeBook) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Serialize for CodeBook {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for CodeBook {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CodeBook, D::Error> {
        Vec::<Value>::deserialize(d).map(CodeBook::from_values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_like_a_vector_and_serialize_as_one() {
        let book = CodeBook::from_values(vec![Value::String("a".into()), Value::Int(2)]);
        assert_eq!(book[1], Value::Int(2));
        assert_eq!(book.len(), 2);
        assert!(book.is_decoded());
        let json = serde_json::to_string(&book).unwrap();
        let back: CodeBook = serde_json::from_str(&json).unwrap();
        assert_eq!(back, book);
    }

    fn dictionary(values: &[&str]) -> segments::dictionary::Dictionary {
        text_dictionary(values)
    }

    /// Books of one dictionary (a segment column read in parts) merge by segment id, nothing
    /// decoded; books of another dictionary, or decoded ones, do not merge that way.
    #[test]
    fn books_of_one_dictionary_merge_without_decoding() {
        let dict = dictionary(&["a", "b", "c", "d"]);
        let one = CodeBook::lazy(Arc::new(dict.decoder()), vec![2, 0]);
        let two = CodeBook::lazy(Arc::new(dict.clone().decoder()), vec![0, 3, 2]);
        let (merged, remaps) = CodeBook::merge_lazy(&[&one, &two]).unwrap();
        assert!(!merged.is_decoded());
        // Merged unread: neither book made its slots.
        assert!(one.values.get().is_none() && two.values.get().is_none());
        assert_eq!((merged.len(), one.len()), (3, 2));
        assert_eq!(remaps, vec![vec![0, 1], vec![1, 2, 0]]);
        let texts: Vec<Value> = merged.iter().cloned().collect();
        let s = |x: &str| Value::String(x.into());
        assert_eq!(texts, vec![s("c"), s("a"), s("d")]);
        // Codes of each book still read their values through the remap.
        assert_eq!(merged[remaps[1][1] as usize], two[1]);
        let other = CodeBook::lazy(
            Arc::new(dictionary(&["a", "b", "c", "d"]).decoder()),
            vec![1],
        );
        assert!(CodeBook::merge_lazy(&[&one, &other]).is_none());
        let decoded = CodeBook::from_values(vec![s("a")]);
        assert!(CodeBook::merge_lazy(&[&one, &decoded]).is_none());
    }
}
