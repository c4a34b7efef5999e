//! JSON messages read straight into a table's columns: the object's members are visited in
//! place, a member whose name is a column is read as a value of that column's type into its
//! slot ([`JsonCell`]) and any other is skipped unparsed — no map of the whole record and no
//! `serde_json::Value` of a member is built, and no member name is copied. This is what a
//! consumer does for every message of a table without transforms.

use segments::builder::json_cell::JsonCell;
use segments::types::{DataType, Value};
use serde::de::{DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, Visitor};
use std::collections::HashMap;
use std::fmt;

/// A table's columns by name and type, for placing a message's members.
pub struct Columns {
    names: Vec<String>,
    types: Vec<DataType>,
    index: HashMap<String, usize>,
    /// Whether a column takes a message's key, a header or metadata (`__…`).
    special: bool,
}

/// One message's values in column order, and the cells that are not values of their column
/// (their slots hold null), by slot.
#[derive(Debug, Default, PartialEq)]
pub struct Cells {
    pub values: Vec<Value>,
    pub bad: Vec<(usize, String)>,
}

impl Cells {
    /// `n` null values.
    pub fn nulls(n: usize) -> Cells {
        let mut values = Vec::with_capacity(n);
        // Not `vec![Value::Null; n]`, which clones through `Value`'s match once per slot.
        values.resize_with(n, || Value::Null);
        Cells {
            values,
            bad: Vec::new(),
        }
    }

    /// Places `cell` in slot `i` (a later member of the same name replaces an earlier one).
    pub fn set(&mut self, i: usize, cell: Result<Value, String>) {
        if !self.bad.is_empty() {
            self.bad.retain(|(slot, _)| *slot != i);
        }
        self.values[i] = match cell {
            Ok(v) => v,
            Err(e) => {
                self.bad.push((i, e));
                Value::Null
            }
        };
    }
}

impl Columns {
    /// The columns `(name, type)`, in row order.
    pub fn new(columns: impl IntoIterator<Item = (String, DataType)>) -> Columns {
        let (names, types): (Vec<String>, Vec<DataType>) = columns.into_iter().unzip();
        let index = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        let special = names.iter().any(|n| n.starts_with("__"));
        Columns {
            names,
            types,
            index,
            special,
        }
    }

    /// The type of the column in slot `i`.
    pub fn data_type(&self, i: usize) -> DataType {
        self.types[i]
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
/// does not have is null). An error when the message is not a JSON object.
pub fn columns_of(payload: &[u8], columns: &Columns) -> Result<Cells, String> {
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
    type Value = Cells;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Cells, A::Error> {
        let mut row = Cells::nulls(self.columns.len());
        let mut next = 0;
        while let Some(slot) = map.next_key_seed(KeySeed {
            columns: self.columns,
            guess: next,
        })? {
            match slot {
                Some(i) => {
                    row.set(i, map.next_value_seed(JsonCell(self.columns.types[i]))?);
                    next = i + 1;
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(row)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, _: A) -> Result<Cells, A::Error> {
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

    #[test]
    fn places_members_by_column_and_skips_the_rest() {
        let c = Columns::new([
            ("a".to_string(), DataType::String),
            ("b".to_string(), DataType::Json),
            ("c".to_string(), DataType::Int),
        ]);
        let row = columns_of(
            br#"{"b": [1, {"x": 2}], "zz": {"deep": [1,2,3]}, "a": "t\u00e9xt", "b\"q": 1}"#,
            &c,
        )
        .unwrap();
        assert_eq!(
            row.values,
            vec![
                Value::String("téxt".into()),
                Value::Json(r#"[1,{"x":2}]"#.into()),
                Value::Null
            ]
        );
        assert!(row.bad.is_empty());
        // Repeated members: the last wins, as when a map is built.
        let row = columns_of(br#"{"a": 1, "a": 2}"#, &c).unwrap();
        assert_eq!(row.values[0], Value::Long(2));
        for bad in [&b"[1]"[..], b"1", b"{\"a\": ", b"{} x", b"nope"] {
            assert!(
                columns_of(bad, &c).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    /// A member that is not a value of its column is null with the reason, and the rest of the
    /// message is still read; a later member of the same name replaces it.
    #[test]
    fn a_cell_that_does_not_fit_is_marked_not_fatal() {
        let c = Columns::new([
            ("n".to_string(), DataType::Int),
            ("m".to_string(), DataType::Long),
        ]);
        let row = columns_of(br#"{"n": {"x": 1}, "m": 5}"#, &c).unwrap();
        assert_eq!(row.values, vec![Value::Null, Value::Long(5)]);
        assert_eq!(row.bad.len(), 1);
        assert_eq!(row.bad[0].0, 0);
        assert!(row.bad[0].1.contains("INT"), "{}", row.bad[0].1);
        let row = columns_of(br#"{"n": "x", "n": 3}"#, &c).unwrap();
        assert_eq!(row.values, vec![Value::Long(3), Value::Null]);
        assert!(row.bad.is_empty());
    }
}
