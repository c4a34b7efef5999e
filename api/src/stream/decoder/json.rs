//! JSON messages read straight into a table's columns: the object's members are visited in
//! place, a member whose name is a column is parsed into that column's slot and any other is
//! skipped unparsed — no map of the whole record is built, and no member name is copied. This is
//! what a consumer does for every message of a table without transforms (most of its time was
//! building and dropping per-message maps).

use serde::de::{DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, Visitor};
use serde_json::Value as Json;
use std::collections::HashMap;
use std::fmt;

/// A table's columns by name, for placing a message's members.
pub struct Columns {
    names: Vec<String>,
    index: HashMap<String, usize>,
    /// Whether a column takes a message's key, a header or metadata (`__…`).
    special: bool,
}

impl Columns {
    /// The columns `names`, in row order.
    pub fn new(names: impl IntoIterator<Item = String>) -> Columns {
        let names: Vec<String> = names.into_iter().collect();
        let index = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        let special = names.iter().any(|n| n.starts_with("__"));
        Columns {
            names,
            index,
            special,
        }
    }

    /// The column names, in row order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether a column takes a message's key, a header or metadata.
    pub fn has_special(&self) -> bool {
        self.special
    }

    /// Number of columns.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there is no column.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The slot of column `name`; `guess` is tried first (members usually come in column
    /// order, so the slot after the last one found).
    fn slot(&self, name: &str, guess: usize) -> Option<usize> {
        match self.names.get(guess) {
            Some(n) if n == name => Some(guess),
            _ => self.index.get(name).copied(),
        }
    }

    /// The slot of column `name`, if it is one.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }
}

/// The values of a JSON object message for `columns`, in column order (a column the object
/// does not have is null).
pub fn columns_of(payload: &[u8], columns: &Columns) -> Result<Vec<Json>, String> {
    let mut de = serde_json::Deserializer::from_slice(payload);
    let row = de
        .deserialize_any(RowVisitor { columns })
        .map_err(|e| match e.classify() {
            serde_json::error::Category::Data => format!("message is not a JSON object: {e}"),
            _ => format!("message is not JSON: {e}"),
        })?;
    de.end().map_err(|e| format!("message is not JSON: {e}"))?;
    Ok(row)
}

struct RowVisitor<'c> {
    columns: &'c Columns,
}

impl<'de> Visitor<'de> for RowVisitor<'_> {
    type Value = Vec<Json>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<Json>, A::Error> {
        let mut row = vec![Json::Null; self.columns.len()];
        let mut next = 0;
        while let Some(slot) = map.next_key_seed(KeySeed {
            columns: self.columns,
            guess: next,
        })? {
            match slot {
                Some(i) => {
                    row[i] = map.next_value()?;
                    next = i + 1;
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(row)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, _: A) -> Result<Vec<Json>, A::Error> {
        Err(A::Error::custom("an array"))
    }
}

/// A member name, resolved to its column's slot without copying it.
struct KeySeed<'c> {
    columns: &'c Columns,
    guess: usize,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Option<usize>, E> {
        Ok(self.columns.slot(name, self.guess))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn places_members_by_column_and_skips_the_rest() {
        let c = Columns::new(["a", "b", "c"].map(String::from));
        let row = columns_of(
            br#"{"b": [1, {"x": 2}], "zz": {"deep": [1,2,3]}, "a": "t\u00e9xt", "b\"q": 1}"#,
            &c,
        )
        .unwrap();
        assert_eq!(row, vec![json!("téxt"), json!([1, {"x": 2}]), Json::Null]);
        // Repeated members: the last wins, as when a map is built.
        let row = columns_of(br#"{"a": 1, "a": 2}"#, &c).unwrap();
        assert_eq!(row[0], json!(2));
        for bad in [&b"[1]"[..], b"1", b"{\"a\": ", b"{} x", b"nope"] {
            assert!(
                columns_of(bad, &c).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
