//! Helpers shared by the segment integration tests: reading a column back as values.

#![allow(dead_code)]

use segments::forward::ForwardIndex;
use segments::segment::ColumnReader;
use segments::types::{DocId, Value};
use tessera_segments as segments;

/// The value of `doc` as stored (dictionary lookups / raw decode; MV as `Value::Array`).
pub fn read_value(col: &ColumnReader, doc: DocId) -> Value {
    match col.forward() {
        ForwardIndex::Dict(f) => col.dictionary().unwrap().value(f.get(doc)),
        ForwardIndex::DictMv(f) => {
            let mut ids = Vec::new();
            f.read(doc, &mut ids);
            let d = col.dictionary().unwrap();
            Value::Array(ids.into_iter().map(|i| d.value(i)).collect())
        }
        ForwardIndex::Raw(r) => r.cursor().value(doc),
    }
}

/// All values of a column, in doc order.
pub fn read_column(col: &ColumnReader, docs: u32) -> Vec<Value> {
    (0..docs).map(|d| read_value(col, d)).collect()
}
