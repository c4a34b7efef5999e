//! The JSON index (Pinot's `json_index`): for a column of JSON documents, which documents hold
//! a value at a path — the index `JSON_MATCH` filters with.
//!
//! * [`config`] — [`JsonIndexConfig`], Pinot's options and defaults;
//! * [`flatten`] — a document as flat records (`.a..b → value`), one per array element (and
//!   per combination of sibling arrays), as Pinot's `JsonUtils.flatten`;
//! * [`writer`] — posting lists of flattened ids per `key` and `key\0value`, and each flattened
//!   id's document;
//! * [`reader`] — the stored index and its lookups. Evaluating a `JSON_MATCH` filter over them
//!   is the engine's (`engine::operator::filter::json_match`).

pub mod config;
pub mod flatten;
pub mod reader;
pub mod writer;

pub use config::JsonIndexConfig;
pub use reader::JsonIndexReader;
pub use writer::JsonIndexWriter;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Bytes;

    #[test]
    fn postings_per_key_and_value_map_to_documents() {
        let mut w = JsonIndexWriter::new(&JsonIndexConfig::default());
        let docs = [
            r#"{"name":"adam","addresses":[{"street":"a","number":1},{"street":"b","number":2}]}"#,
            "null",
            r#"{"name":"bob","addresses":[{"street":"b","number":1}]}"#,
        ];
        for (d, text) in docs.iter().enumerate() {
            w.add_text(d as u32, text).unwrap();
        }
        let r = JsonIndexReader::from_bytes(Bytes::from_vec(w.finish().unwrap()), 3).unwrap();
        assert_eq!(r.flattened_len(), 3);
        let docs = |b: Option<std::sync::Arc<roaring::RoaringBitmap>>| {
            r.docs_of(&b.map(|b| (*b).clone()).unwrap_or_default())
                .iter()
                .collect::<Vec<_>>()
        };
        assert_eq!(docs(r.key_value(".name", "adam")), [0]);
        assert_eq!(docs(r.key_value(".addresses..street", "b")), [0, 2]);
        assert_eq!(docs(r.key(".addresses..number")), [0, 2]);
        assert_eq!(
            docs(r.key_value(".addresses..street", "c")),
            Vec::<u32>::new()
        );
        assert_eq!(docs(r.key(".addresses")), Vec::<u32>::new());
        // One array element: street b and number 1 only in bob's record.
        let both = &*r.key_value(".addresses..street", "b").unwrap()
            & &*r.key_value(".addresses..number", "1").unwrap();
        assert_eq!(r.docs_of(&both).iter().collect::<Vec<_>>(), [2]);
        let values: Vec<String> = r
            .values_of(".addresses..street")
            .map(|id| r.value(".addresses..street", id))
            .collect();
        assert_eq!(values, ["a", "b"]);
        // `.name` and `.name\0…` do not run into `.names`.
        assert_eq!(r.values_of(".nam").len(), 0);
        assert!(JsonIndexReader::from_bytes(Bytes::from_vec(vec![1, 0, 0]), 3).is_err());
    }
}
