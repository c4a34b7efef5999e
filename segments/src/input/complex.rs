//! Pinot's `ingestionConfig.complexTypeConfig`: nested records flattened into columns, chosen
//! arrays unnested into one row per element, the other arrays of records kept as JSON text, and
//! column-name prefixes renamed — applied to each input record (as JSON) before its cells reach
//! the columns.
//!
//! * Flattening: a record field `t1` holding `{"a": 1, "b": {"c": 2}}` also gives the fields
//!   `t1.a` and `t1.b.c` (the original stays, so a JSON column `t1` still takes the whole map).
//! * `fieldsToUnnest` (`["items"]`, or `["t1.array"]` for a flattened path; parents before
//!   children): a record whose field is a non-empty array becomes one record per element, the
//!   element's fields flattened under the array's name (`items.sku`), a primitive element as the
//!   field itself.
//! * `collectionNotUnnestedToJson` (`NON_PRIMITIVE`, the default, `ALL`, `NONE`): which arrays
//!   that are not unnested become their JSON text (arrays of primitives stay multi-values).
//! * `prefixesToRename` (`{"t1.": ""}`): a field starting with a prefix is renamed; a rename
//!   onto an existing or empty name is an error.
//! * `delimiter` joins the names (default `.`).

use crate::types::table_config::{CollectionNotUnnestedToJson, ComplexTypeConfig};
use serde_json::{Map, Value as Json};

type Record = Map<String, Json>;

/// A table's `complexTypeConfig`, ready to apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComplexTypes {
    /// Sorted, so a parent array is unnested before its children.
    fields_to_unnest: Vec<String>,
    delimiter: String,
    to_json: CollectionNotUnnestedToJson,
    /// Prefix → replacement.
    prefixes_to_rename: Vec<(String, String)>,
}

fn is_complex(v: &Json) -> bool {
    matches!(v, Json::Object(_) | Json::Array(_))
}

impl From<&ComplexTypeConfig> for ComplexTypes {
    fn from(c: &ComplexTypeConfig) -> ComplexTypes {
        let mut fields_to_unnest = c.fields_to_unnest.clone().unwrap_or_default();
        fields_to_unnest.sort();
        ComplexTypes {
            fields_to_unnest,
            delimiter: c
                .delimiter
                .clone()
                .filter(|d| !d.is_empty())
                .unwrap_or_else(|| ".".into()),
            to_json: c.collection_not_unnested_to_json.unwrap_or_default(),
            prefixes_to_rename: c
                .prefixes_to_rename
                .iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }
}

impl ComplexTypes {
    /// The `ingestionConfig.complexTypeConfig` of a table config (`None` without one); why it
    /// is invalid.
    pub fn from_table_config(config: &Json) -> Result<Option<ComplexTypes>, String> {
        let c = &config["ingestionConfig"]["complexTypeConfig"];
        if c.is_null() {
            return Ok(None);
        }
        let c: ComplexTypeConfig = serde_json::from_value(c.clone())
            .map_err(|e| format!("Invalid ingestionConfig.complexTypeConfig: {e}"))?;
        Ok(Some(ComplexTypes::from(&c)))
    }

    /// The records `row` becomes (one, or one per unnested element).
    pub fn transform(&self, mut row: Record) -> Result<Vec<Record>, String> {
        let columns: Vec<String> = row.keys().cloned().collect();
        self.flatten(&mut row, columns, None);
        let mut rows = vec![row];
        for field in &self.fields_to_unnest {
            rows = rows
                .into_iter()
                .flat_map(|r| self.unnest(r, field))
                .collect();
        }
        if !self.prefixes_to_rename.is_empty() {
            for r in &mut rows {
                self.rename(r)?;
            }
        }
        Ok(rows)
    }

    fn join(&self, left: &str, right: &str) -> String {
        format!("{left}{}{right}", self.delimiter)
    }

    fn to_json(&self, items: &[Json]) -> bool {
        match self.to_json {
            CollectionNotUnnestedToJson::All => true,
            CollectionNotUnnestedToJson::None => false,
            CollectionNotUnnestedToJson::NonPrimitive => items.first().is_some_and(is_complex),
        }
    }

    /// Flattens the maps among `fields` of `map` into `field.key` fields. `map` is a top-level
    /// record (`path` `None`) or an element of the unnested array at `path` (names relative to
    /// the element; the unnest adds `path`); either way an array is unnested, or turned into
    /// JSON text, by its full path.
    fn flatten(&self, map: &mut Record, fields: Vec<String>, path: Option<&str>) {
        for field in fields {
            let full = path.map_or_else(|| field.clone(), |p| self.join(p, &field));
            match map.get_mut(&field) {
                Some(Json::Object(inner)) => {
                    let inner = inner.clone();
                    let mut nested = Vec::new();
                    for (k, v) in inner {
                        let name = self.join(&field, &k);
                        if is_complex(&v) {
                            nested.push(name.clone());
                        }
                        map.insert(name, v);
                    }
                    self.flatten(map, nested, path);
                }
                Some(Json::Array(items)) => {
                    if self.fields_to_unnest.contains(&full) {
                        for item in items.iter_mut() {
                            if let Json::Object(m) = item {
                                let keys = m.keys().cloned().collect();
                                self.flatten(m, keys, Some(&full));
                            }
                        }
                    } else if self.to_json(items) {
                        let text = Json::Array(std::mem::take(items)).to_string();
                        map.insert(field, Json::String(text));
                    }
                }
                _ => {}
            }
        }
    }

    /// One record per element of the non-empty array `record[column]` (the record itself
    /// otherwise).
    fn unnest(&self, mut record: Record, column: &str) -> Vec<Record> {
        match record.get(column) {
            Some(Json::Array(items)) if !items.is_empty() => {}
            _ => return vec![record],
        }
        let Some(Json::Array(items)) = record.remove(column) else {
            return vec![record];
        };
        items
            .into_iter()
            .map(|item| {
                let mut copy = record.clone();
                match item {
                    Json::Object(m) => {
                        for (k, v) in m {
                            copy.insert(self.join(column, &k), v);
                        }
                    }
                    other => {
                        copy.insert(column.to_string(), other);
                    }
                }
                copy
            })
            .collect()
    }

    fn rename(&self, record: &mut Record) -> Result<(), String> {
        let fields: Vec<String> = record.keys().cloned().collect();
        for field in fields {
            let renamed = self.prefixes_to_rename.iter().find_map(|(prefix, to)| {
                let rest = field.strip_prefix(prefix.as_str())?;
                Some(format!("{to}{rest}"))
            });
            let Some(renamed) = renamed else { continue };
            let value = record.remove(&field).unwrap_or(Json::Null);
            if renamed.is_empty() || record.get(&renamed).is_some_and(|v| !v.is_null()) {
                return Err(format!(
                    "Name conflict after attempting to rename field {field} to {renamed}"
                ));
            }
            record.insert(renamed, value);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(c: Json) -> ComplexTypes {
        ComplexTypes::from_table_config(&json!({"ingestionConfig": {"complexTypeConfig": c}}))
            .unwrap()
            .unwrap()
    }

    fn record(v: Json) -> Record {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn flattens_nested_maps_and_keeps_the_original() {
        let rows = config(json!({}))
            .transform(record(
                json!({"id": 1, "t1": {"a": "x", "b": {"c": 2}}, "tags": ["p", "q"]}),
            ))
            .unwrap();
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!(r["t1.a"], json!("x"));
        assert_eq!(r["t1.b.c"], json!(2));
        assert_eq!(r["t1"], json!({"a": "x", "b": {"c": 2}}));
        // Arrays of primitives stay multi-values.
        assert_eq!(r["tags"], json!(["p", "q"]));
    }

    #[test]
    fn unnests_arrays_into_rows_and_turns_the_rest_into_json() {
        let c = config(json!({"fieldsToUnnest": ["items"]}));
        let rows = c
            .transform(record(json!({
                "order": 7,
                "items": [{"sku": "a", "dims": {"w": 1}}, {"sku": "b", "dims": {"w": 2}}],
                "notes": [{"by": "x"}]
            })))
            .unwrap();
        assert_eq!(rows.len(), 2);
        for (r, (sku, w)) in rows.iter().zip([("a", 1), ("b", 2)]) {
            assert_eq!(r["order"], json!(7));
            assert_eq!(r["items.sku"], json!(sku));
            assert_eq!(r["items.dims.w"], json!(w));
            assert!(!r.contains_key("items"));
            assert_eq!(r["notes"], json!(r#"[{"by":"x"}]"#));
        }
        // Empty or missing arrays keep the record as it is.
        let rows = c
            .transform(record(json!({"order": 8, "items": []})))
            .unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0]["items"], json!([]));
        // A nested unnest path, parents first whatever the config's order.
        let c = config(json!({"fieldsToUnnest": ["a_b", "a"], "delimiter": "_"}));
        let rows = c
            .transform(record(
                json!({"a": [{"b": [{"c": 1}, {"c": 2}]}, {"b": [{"c": 3}]}]}),
            ))
            .unwrap();
        let cs: Vec<&Json> = rows.iter().map(|r| &r["a_b_c"]).collect();
        assert_eq!(cs, [&json!(1), &json!(2), &json!(3)]);
        // Primitive elements become the field itself.
        let rows = config(json!({"fieldsToUnnest": ["n"]}))
            .transform(record(json!({"n": [1, 2]})))
            .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1]["n"], json!(2));
    }

    #[test]
    fn collection_modes_and_renames() {
        let all = config(json!({"collectionNotUnnestedToJson": "ALL"}));
        let r = &all.transform(record(json!({"tags": ["p"]}))).unwrap()[0];
        assert_eq!(r["tags"], json!(r#"["p"]"#));
        let none = config(json!({"collectionNotUnnestedToJson": "NONE"}));
        let r = &none.transform(record(json!({"x": [{"a": 1}]}))).unwrap()[0];
        assert_eq!(r["x"], json!([{"a": 1}]));

        let c = config(json!({"prefixesToRename": {"t1.": ""}}));
        let r = &c.transform(record(json!({"t1": {"a": 1}}))).unwrap()[0];
        assert_eq!(r["a"], json!(1));
        let err = c
            .transform(record(json!({"t1": {"a": 1}, "a": 2})))
            .unwrap_err();
        assert!(err.contains("Name conflict"), "{err}");

        for bad in [
            json!({"fieldsToUnnest": "items"}),
            json!({"collectionNotUnnestedToJson": "SOME"}),
            json!({"prefixesToRename": {"a": 1}}),
        ] {
            let cfg = json!({"ingestionConfig": {"complexTypeConfig": bad}});
            assert!(ComplexTypes::from_table_config(&cfg).is_err(), "{cfg}");
        }
        assert_eq!(ComplexTypes::from_table_config(&json!({})), Ok(None));
    }
}
