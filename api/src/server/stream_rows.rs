//! Stream messages into typed rows: each message is decoded into a record by the table's
//! message decoder ([`crate::stream::decoder`]: JSON, CSV, Avro, Protobuf); the table's
//! `transformConfigs` and `filterConfig` run over a batch with the query engine, exactly as in
//! file ingestion ([`crate::common::transform`]); fields the schema has and the message lacks
//! are null. A table without transforms or filter takes each message's values typed for its
//! columns ([`MessageDecoder::decode_columns`]: a JSON message's members are read straight into
//! them) with no record in between. A message that does not decode drops its row; so does
//! a value that does not fit its column, unless `ingestionConfig.continueOnError` is set (then
//! that value is null and the row is kept). Dropped rows are counted and logged once per
//! batch — the stream goes on.

use crate::common::transform;
use crate::stream::Message;
use crate::stream::decoder::MessageDecoder;
use crate::stream::decoder::{Cells, Columns};
use segments::builder::collector::{json_to_value, scalar_of_value, typed_cell};
use segments::types::{FieldSpec, Schema, Value};
use segments::{InputFormat, InputSource};
use serde_json::{Map, Value as Json};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// How a real-time table's messages become rows.
pub struct Decoder {
    messages: MessageDecoder,
    /// The schema's columns, for reading messages straight into rows.
    columns: Columns,
    schema: Schema,
    transforms: BTreeMap<String, String>,
    filter: Option<String>,
    /// `continueOnError`: a value that does not fit becomes null instead of dropping the row.
    continue_on_error: bool,
}

/// The rows of a batch and how many messages were dropped.
pub struct Decoded {
    pub rows: Vec<Vec<Value>>,
    pub dropped: usize,
    /// Why the first dropped message was dropped.
    pub first_error: Option<String>,
}

impl Decoder {
    /// A decoder of `messages` into rows of `schema`, with the table config's transforms.
    pub fn new(messages: MessageDecoder, schema: Schema, table_config: &Json) -> Decoder {
        Decoder {
            messages,
            columns: Columns::new(schema.fields.iter().map(|f| (f.name.clone(), f.data_type))),
            schema,
            transforms: transform::transforms(table_config),
            filter: transform::filter_function(table_config),
            continue_on_error: table_config["ingestionConfig"]["continueOnError"]
                .as_bool()
                .unwrap_or(false),
        }
    }

    /// Decodes a batch of messages of stream partition `partition`; `work_dir` is scratch
    /// space for transforms.
    pub fn decode(&self, messages: &[Message], partition: i32, work_dir: &Path) -> Decoded {
        let mut out = Decoded {
            rows: Vec::with_capacity(messages.len()),
            dropped: 0,
            first_error: None,
        };
        if self.transforms.is_empty() && self.filter.is_none() {
            for m in messages {
                let row = self
                    .messages
                    .decode_columns(m, partition, &self.columns)
                    .and_then(|values| self.row(values));
                match row {
                    Ok(row) => out.rows.push(row),
                    Err(e) => out.drop(e),
                }
            }
            return out;
        }
        let mut objects = Vec::with_capacity(messages.len());
        for m in messages {
            match self.messages.decode(m, partition) {
                Ok(o) => objects.push(o),
                Err(e) => out.drop(e),
            }
        }
        // Fields the schema types and no transform writes are checked before the batch is
        // staged, so one bad value does not fail the whole batch.
        let mut checked = Vec::with_capacity(objects.len());
        for o in objects {
            match self.clean(o) {
                Ok(o) => checked.push(o),
                Err(e) => out.drop(e),
            }
        }
        let batches: Vec<&[Map<String, Json>]> = match self.transformed(&checked, work_dir) {
            Ok(rows) => {
                self.keep(rows, &mut out);
                Vec::new()
            }
            // Something else failed (a transform on some row): one row at a time.
            Err(_) => checked.chunks(1).collect(),
        };
        for one in batches {
            match self.transformed(one, work_dir) {
                Ok(rows) => self.keep(rows, &mut out),
                Err(e) => out.drop(e),
            }
        }
        out
    }

    fn keep(&self, rows: Vec<Vec<Value>>, out: &mut Decoded) {
        for row in rows {
            match self.check(row) {
                Ok(row) => out.rows.push(row),
                Err(e) => out.drop(e),
            }
        }
    }

    /// A message's values of typed, untransformed fields that do not fit their column: the
    /// row's error, or (with `continueOnError`) nulls.
    fn clean(&self, mut o: Map<String, Json>) -> Result<Map<String, Json>, String> {
        for f in &self.schema.fields {
            if self.transforms.contains_key(&f.name) {
                continue;
            }
            let Some(v) = o.get(&f.name) else {
                continue;
            };
            let fits = json_to_value(f.data_type, v).and_then(|v| fits(f, &v));
            match fits {
                Ok(()) => {}
                Err(_) if self.continue_on_error => {
                    o.insert(f.name.clone(), Json::Null);
                }
                Err(e) => return Err(format!("column '{}': {e}", f.name)),
            }
        }
        Ok(o)
    }

    /// One message's row from its values in schema order: a cell that is not a value of its
    /// column drops the row (with `continueOnError` it stays null).
    fn row(&self, cells: Cells) -> Result<Vec<Value>, String> {
        if let Some((i, e)) = cells.bad.iter().min_by_key(|(i, _)| *i)
            && !self.continue_on_error
        {
            return Err(format!("column '{}': {e}", self.schema.fields[*i].name));
        }
        self.check(cells.values)
    }

    /// Whether every value fits its column as the builder stores it (with `continueOnError`,
    /// one that does not becomes null); a MAP's entries are typed as the builder types them.
    fn check(&self, mut row: Vec<Value>) -> Result<Vec<Value>, String> {
        for (f, v) in self.schema.fields.iter().zip(row.iter_mut()) {
            let typed = match typed_cell(f, v) {
                Ok(Cow::Owned(typed)) => {
                    *v = typed;
                    Ok(())
                }
                Ok(Cow::Borrowed(_)) => Ok(()),
                Err(e) => Err(e),
            };
            if let Err(e) = typed.and_then(|()| fits(f, v)) {
                if !self.continue_on_error {
                    return Err(format!("column '{}': {e}", f.name));
                }
                *v = Value::Null;
            }
        }
        Ok(row)
    }

    /// The batch through the table's transforms (a JSON-lines file the transform staging reads).
    fn transformed(
        &self,
        objects: &[Map<String, Json>],
        work_dir: &Path,
    ) -> Result<Vec<Vec<Value>>, String> {
        let _ = std::fs::remove_dir_all(work_dir);
        std::fs::create_dir_all(work_dir).map_err(|e| e.to_string())?;
        let path = work_dir.join("batch.json");
        let mut file =
            std::io::BufWriter::new(std::fs::File::create(&path).map_err(|e| e.to_string())?);
        for o in objects {
            serde_json::to_writer(&mut file, o).map_err(|e| e.to_string())?;
            file.write_all(b"\n").map_err(|e| e.to_string())?;
        }
        file.flush().map_err(|e| e.to_string())?;
        drop(file);
        let source = InputSource {
            path,
            format: InputFormat::Json,
            options: Default::default(),
        };
        let staging = work_dir.join("staging");
        let rows = transform::transformed_rows(
            &self.schema,
            &self.transforms,
            self.filter.as_deref(),
            &source,
            &staging,
        );
        let _ = std::fs::remove_dir_all(work_dir);
        rows
    }
}

impl Decoded {
    fn drop(&mut self, why: String) {
        self.dropped += 1;
        self.first_error.get_or_insert(why);
    }
}

fn fits(f: &FieldSpec, v: &Value) -> Result<(), String> {
    match v {
        Value::Null => Ok(()),
        Value::Array(_) if f.single_value_field => {
            Err(format!("unexpected array '{v}' for a single-value column"))
        }
        Value::Array(items) => items
            .iter()
            .filter(|i| !i.is_null())
            .try_for_each(|i| scalar_of_value(f.data_type, i).map(|_| ())),
        v => scalar_of_value(f.data_type, v).map(|_| ()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::DataType;

    fn messages(payloads: &[&[u8]]) -> Vec<Message> {
        payloads
            .iter()
            .enumerate()
            .map(|(i, p)| Message::new(i as i64, p.to_vec()))
            .collect()
    }

    #[test]
    fn decodes_json_objects_and_drops_what_does_not_fit() {
        let mut schema = Schema {
            schema_name: "t".into(),
            fields: vec![
                FieldSpec::dimension("name", DataType::String),
                FieldSpec::dimension("n", DataType::Int),
            ],
            ..Schema::default()
        };
        schema.fields[1].single_value_field = true;
        let d = Decoder::new(MessageDecoder::json(), schema, &Json::Null);
        let dir = tempfile::tempdir().unwrap();
        let out = d.decode(
            &messages(&[
                br#"{"name":"a","n":1}"#,
                br#"{"name":"b"}"#,
                b"not json",
                br#"[1]"#,
                br#"{"name":"c","n":"x"}"#,
                br#"{"name":"d","n":[1,2]}"#,
            ]),
            0,
            dir.path(),
        );
        assert_eq!(
            out.rows,
            vec![
                vec![Value::String("a".into()), Value::Long(1)],
                vec![Value::String("b".into()), Value::Null],
            ]
        );
        assert_eq!(out.dropped, 4);
        assert!(out.first_error.unwrap().contains("not JSON"));
    }

    /// A consuming segment keeps a MAP as the committed one will: its entries typed as declared.
    #[test]
    fn map_entries_are_typed_as_the_schema_declares() {
        let schema = Schema {
            schema_name: "t".into(),
            fields: vec![FieldSpec::map("m", DataType::Long)],
            ..Schema::default()
        };
        let d = Decoder::new(MessageDecoder::json(), schema, &Json::Null);
        let dir = tempfile::tempdir().unwrap();
        let out = d.decode(
            &messages(&[
                br#"{"m":{"a":"1","b":2.0}}"#,
                br#"{"m":{"a":"x"}}"#,
                br#"{"m":[1]}"#,
            ]),
            0,
            dir.path(),
        );
        assert_eq!(out.rows, vec![vec![Value::Map(r#"{"a":1,"b":2}"#.into())]]);
        assert_eq!(out.dropped, 2);
        assert!(out.first_error.unwrap().contains("MAP entry 'a'"));
    }

    #[test]
    fn continue_on_error_keeps_rows_with_nulls() {
        let schema = Schema::from_json(
            r#"{"schemaName":"t","dimensionFieldSpecs":[{"name":"name","dataType":"STRING"}],
               "metricFieldSpecs":[{"name":"n","dataType":"INT"}]}"#,
        )
        .unwrap();
        let config = serde_json::json!({"ingestionConfig": {"continueOnError": true}});
        let d = Decoder::new(MessageDecoder::json(), schema, &config);
        let dir = tempfile::tempdir().unwrap();
        let out = d.decode(
            &messages(&[br#"{"name":"a","n":"x"}"#, b"nope"]),
            0,
            dir.path(),
        );
        assert_eq!(out.rows, vec![vec![Value::String("a".into()), Value::Null]]);
        assert_eq!(out.dropped, 1);
    }

    #[test]
    fn applies_transforms_with_engine_functions() {
        let schema = Schema::from_json(
            r#"{"schemaName":"t","dimensionFieldSpecs":[{"name":"NAME","dataType":"STRING"}],
               "metricFieldSpecs":[{"name":"n","dataType":"LONG"}]}"#,
        )
        .unwrap();
        let config = serde_json::json!({"ingestionConfig": {"transformConfigs": [
            {"columnName": "NAME", "transformFunction": "upper(name)"}]}});
        let d = Decoder::new(MessageDecoder::json(), schema, &config);
        let dir = tempfile::tempdir().unwrap();
        let out = d.decode(
            &messages(&[br#"{"name":"ann","n":2}"#]),
            0,
            &dir.path().join("w"),
        );
        assert_eq!(
            out.rows,
            vec![vec![Value::String("ANN".into()), Value::Long(2)]]
        );
    }

    #[test]
    fn drops_rows_the_filter_function_is_true_for() {
        let schema = Schema::from_json(
            r#"{"schemaName":"t","dimensionFieldSpecs":[{"name":"name","dataType":"STRING"}],
               "metricFieldSpecs":[{"name":"n","dataType":"LONG"}]}"#,
        )
        .unwrap();
        let config = serde_json::json!({"ingestionConfig": {"filterConfig":
            {"filterFunction": "n > 10 OR name = 'skip'"}}});
        let d = Decoder::new(MessageDecoder::json(), schema, &config);
        let dir = tempfile::tempdir().unwrap();
        let out = d.decode(
            &messages(&[
                br#"{"name":"a","n":1}"#,
                br#"{"name":"b","n":11}"#,
                br#"{"name":"skip","n":2}"#,
                br#"{"name":"c"}"#,
            ]),
            0,
            &dir.path().join("w"),
        );
        let names: Vec<&Value> = out.rows.iter().map(|r| &r[0]).collect();
        // A null `n` makes the filter null, not true: the row stays.
        assert_eq!(
            names,
            vec![&Value::String("a".into()), &Value::String("c".into())]
        );
    }
}
