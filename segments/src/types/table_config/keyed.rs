//! [`Keyed`]: a JSON object of typed values that keeps its keys in input order, as Jackson's
//! `LinkedHashMap` does (`bloomFilterConfigs`, `columnPartitionMap`).

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::marker::PhantomData;

/// An insertion-ordered map from column (or other) names to typed values.
#[derive(Clone, Debug, PartialEq)]
pub struct Keyed<V>(pub Vec<(String, V)>);

impl<V> Default for Keyed<V> {
    fn default() -> Self {
        Keyed(Vec::new())
    }
}

impl<V> Keyed<V> {
    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }

    /// Entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Inserts or replaces (keeping the original position, like `LinkedHashMap#put`).
    pub fn insert(&mut self, key: String, value: V) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<V: Serialize> Serialize for Keyed<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Keyed<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyedVisitor<V>(PhantomData<V>);

        impl<'de, V: Deserialize<'de>> Visitor<'de> for KeyedVisitor<V> {
            type Value = Keyed<V>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Keyed<V>, A::Error> {
                let mut out = Keyed::default();
                while let Some((k, v)) = access.next_entry::<String, V>()? {
                    out.insert(k, v);
                }
                Ok(out)
            }
        }

        d.deserialize_map(KeyedVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_order_and_replaces_in_place() {
        let k: Keyed<i32> = serde_json::from_str(r#"{"z": 1, "a": 2, "z": 3}"#).unwrap();
        assert_eq!(k.keys().collect::<Vec<_>>(), vec!["z", "a"]);
        assert_eq!(k.get("z"), Some(&3));
        assert_eq!(serde_json::to_value(&k).unwrap(), json!({"z": 3, "a": 2}));
        assert!(serde_json::from_value::<Keyed<i32>>(json!([1])).is_err());
    }
}
