//! Pinot's schema JSON (`Schema.java`, `FieldSpec.java`): dimension, metric and date-time
//! field specs, read leniently and written back the way Pinot writes them (`fieldType` added,
//! only non-default attributes emitted).

use super::column_type::ColumnType;
use super::data_type::DataType;
use super::value::Value;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use std::collections::BTreeMap;

/// The child spec naming a MAP's key type (`ComplexFieldSpec.KEY_FIELD`).
pub const MAP_KEY: &str = "key";
/// The child spec naming a MAP's value type (`ComplexFieldSpec.VALUE_FIELD`).
pub const MAP_VALUE: &str = "value";

/// What role a column plays in the schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FieldType {
    Dimension,
    Metric,
    Time,
    DateTime,
    Complex,
}

/// One column of a schema.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldSpec {
    pub name: String,
    pub data_type: DataType,
    /// Filled from the list the spec appears in; written on output as Pinot does.
    #[serde(default = "dimension")]
    pub field_type: FieldType,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub single_value_field: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub not_null: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u32>,
    /// As written in the JSON (number, string or bool); see [`FieldSpec::default_null`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_null_value: Option<Json>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform_function: Option<String>,
    /// Date-time specs: `1:MILLISECONDS:EPOCH`, `EPOCH|MILLISECONDS|1`, `SIMPLE_DATE_FORMAT|…`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Date-time specs: `1:DAYS`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularity: Option<String>,
    /// Complex specs (`complexFieldSpecs`): the parts of the type — for a MAP, `key` and
    /// `value`, whose data types are the map's key and value types.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub child_field_specs: BTreeMap<String, FieldSpec>,
}

fn dimension() -> FieldType {
    FieldType::Dimension
}
fn yes() -> bool {
    true
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_false(b: &bool) -> bool {
    !*b
}

impl FieldSpec {
    /// A single-value dimension with no options.
    pub fn dimension(name: &str, data_type: DataType) -> FieldSpec {
        FieldSpec {
            name: name.to_string(),
            data_type,
            field_type: FieldType::Dimension,
            single_value_field: true,
            not_null: false,
            max_length: None,
            default_null_value: None,
            transform_function: None,
            format: None,
            granularity: None,
            child_field_specs: BTreeMap::new(),
        }
    }

    /// A MAP column (a `complexFieldSpecs` entry) from STRING keys to `value_type` values.
    pub fn map(name: &str, value_type: DataType) -> FieldSpec {
        let child = |part: &str, t: DataType| (part.to_string(), FieldSpec::dimension(part, t));
        FieldSpec {
            field_type: FieldType::Complex,
            child_field_specs: BTreeMap::from([
                child(MAP_KEY, DataType::String),
                child(MAP_VALUE, value_type),
            ]),
            ..FieldSpec::dimension(name, DataType::Map)
        }
    }

    /// The type of the values this column gives a plan.
    pub fn column_type(&self) -> ColumnType {
        ColumnType {
            data_type: self.data_type,
            single_value: self.single_value_field,
            map_value: self.map_value_type(),
        }
    }

    /// A dimension whose values have type `ty` (a MAP keeps its value type).
    pub fn of_type(name: &str, ty: ColumnType) -> FieldSpec {
        match ty.map_value {
            Some(value) if ty.data_type == DataType::Map => FieldSpec::map(name, value),
            _ => FieldSpec {
                single_value_field: ty.single_value,
                ..FieldSpec::dimension(name, ty.data_type)
            },
        }
    }

    /// A MAP column's value type (its `value` child's data type).
    pub fn map_value_type(&self) -> Option<DataType> {
        (self.data_type == DataType::Map)
            .then(|| self.child_field_specs.get(MAP_VALUE).map(|v| v.data_type))
            .flatten()
    }

    /// Checks a complex spec as Pinot's `ComplexFieldSpec` does: MAP is the one complex type
    /// Tessera stores, declared only among `complexFieldSpecs`, with a `key` and a `value` child
    /// of single-value primitive types.
    fn validate_complex(&self) -> Result<(), String> {
        let complex = self.field_type == FieldType::Complex;
        if complex != (self.data_type == DataType::Map) {
            return Err(if complex {
                format!(
                    "ComplexFieldSpec dataType must be STRUCT, MAP, LIST, or OPEN_STRUCT (got {}) for column '{}'",
                    self.data_type, self.name
                )
            } else {
                format!(
                    "MAP column '{}' must be declared in 'complexFieldSpecs'",
                    self.name
                )
            });
        }
        if !complex {
            return Ok(());
        }
        for part in [MAP_KEY, MAP_VALUE] {
            let Some(child) = self.child_field_specs.get(part) else {
                return Err(format!(
                    "Missing '{part}' in the 'childFieldSpec' of MAP column '{}'",
                    self.name
                ));
            };
            if child.data_type == DataType::Map || !child.single_value_field {
                return Err(format!(
                    "The '{part}' of MAP column '{}' must be a single-value primitive type, not {}",
                    self.name, child.data_type
                ));
            }
        }
        Ok(())
    }

    /// A metric column.
    pub fn metric(name: &str, data_type: DataType) -> FieldSpec {
        FieldSpec {
            field_type: FieldType::Metric,
            ..FieldSpec::dimension(name, data_type)
        }
    }

    /// The value stored for a null cell: `defaultNullValue` if given and valid for the type,
    /// else Pinot's type default (dimensions: INT MIN etc.; metrics: 0).
    pub fn default_null(&self) -> Value {
        let declared = self.default_null_value.as_ref().and_then(|j| {
            let text = match j {
                Json::String(s) => s.clone(),
                Json::Bool(b) => b.to_string(),
                other => other.to_string(),
            };
            Value::parse(self.data_type, &text).ok()
        });
        declared.unwrap_or_else(|| {
            Value::default_null(self.data_type, self.field_type == FieldType::Metric)
        })
    }

    /// Checks that a declared `defaultNullValue` parses as the column's type.
    pub fn validate_default_null(&self) -> Result<(), String> {
        if let Some(j) = &self.default_null_value {
            let text = match j {
                Json::String(s) => s.clone(),
                Json::Bool(b) => b.to_string(),
                other => other.to_string(),
            };
            Value::parse(self.data_type, &text).map_err(|e| {
                format!("Invalid default null value for column '{}': {e}", self.name)
            })?;
        }
        Ok(())
    }
}

/// A table schema.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Schema {
    pub schema_name: String,
    pub enable_column_based_null_handling: bool,
    /// All field specs in declaration order: dimensions, metrics, date-times.
    pub fields: Vec<FieldSpec>,
    pub primary_key_columns: Vec<String>,
    /// Keys of the JSON the schema model does not know, with their values (reported, kept).
    pub unrecognized: Map<String, Json>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SchemaJson {
    #[serde(default)]
    schema_name: Option<String>,
    #[serde(default)]
    enable_column_based_null_handling: bool,
    #[serde(default)]
    dimension_field_specs: Vec<FieldSpec>,
    #[serde(default)]
    metric_field_specs: Vec<FieldSpec>,
    #[serde(default)]
    date_time_field_specs: Vec<FieldSpec>,
    #[serde(default)]
    complex_field_specs: Vec<FieldSpec>,
    #[serde(default)]
    time_field_spec: Option<Json>,
    #[serde(default)]
    primary_key_columns: Vec<String>,
    #[serde(flatten)]
    rest: Map<String, Json>,
}

/// A schema parse error; when a field spec has a missing or unknown `dataType`, a message
/// naming the column and the type instead of serde's position-only text.
fn describe_field_spec_error(text: &str, e: serde_json::Error) -> String {
    let lists = [
        "dimensionFieldSpecs",
        "metricFieldSpecs",
        "dateTimeFieldSpecs",
        "complexFieldSpecs",
    ];
    let doc: Option<Json> = serde_json::from_str(text).ok();
    let specs = doc
        .iter()
        .flat_map(|d| {
            lists.iter().filter_map(move |l| {
                let complex = *l == "complexFieldSpecs";
                Some(d.get(l)?.as_array()?.iter().map(move |s| (complex, s)))
            })
        })
        .flatten();
    for (complex, spec) in specs {
        let column = spec.get("name").and_then(Json::as_str).unwrap_or_default();
        // A complex spec's type is MAP; the other lists hold primitive types.
        let allowed = DataType::ALL
            .into_iter()
            .filter(|d| (*d == DataType::Map) == complex);
        match spec.get("dataType") {
            None | Some(Json::Null) => return format!("missing dataType for column '{column}'"),
            Some(Json::String(t)) if allowed.clone().any(|d| d.name() == t) => {}
            Some(t) => {
                let shown = t.as_str().map_or_else(|| t.to_string(), str::to_string);
                let expected: Vec<&str> = allowed.map(|d| d.name()).collect();
                return format!(
                    "invalid dataType '{shown}' for column '{column}' (expected one of {})",
                    expected.join(", ")
                );
            }
        }
    }
    e.to_string()
}

impl Schema {
    /// Parses Pinot schema JSON. Errors are messages fit for a 400 response.
    pub fn from_json(text: &str) -> Result<Schema, String> {
        let raw: SchemaJson =
            serde_json::from_str(text).map_err(|e| describe_field_spec_error(text, e))?;
        let mut fields = Vec::new();
        for (list, ft) in [
            (raw.dimension_field_specs, FieldType::Dimension),
            (raw.metric_field_specs, FieldType::Metric),
            (raw.date_time_field_specs, FieldType::DateTime),
            (raw.complex_field_specs, FieldType::Complex),
        ] {
            for mut f in list {
                f.field_type = ft;
                fields.push(f);
            }
        }
        let mut unrecognized = Map::new();
        for (k, v) in raw.rest {
            if !matches!(k.as_str(), "description" | "tags") {
                unrecognized.insert(k, v);
            }
        }
        if let Some(t) = raw.time_field_spec {
            unrecognized.insert("timeFieldSpec".into(), t);
        }
        Ok(Schema {
            schema_name: raw.schema_name.unwrap_or_default(),
            enable_column_based_null_handling: raw.enable_column_based_null_handling,
            fields,
            primary_key_columns: raw.primary_key_columns,
            unrecognized,
        })
    }

    /// Pinot's JSON shape (`Schema#toJsonObject`).
    pub fn to_json(&self) -> Json {
        let mut out = Map::new();
        out.insert("schemaName".into(), Json::String(self.schema_name.clone()));
        out.insert(
            "enableColumnBasedNullHandling".into(),
            Json::Bool(self.enable_column_based_null_handling),
        );
        for (key, ft) in [
            ("dimensionFieldSpecs", FieldType::Dimension),
            ("metricFieldSpecs", FieldType::Metric),
            ("dateTimeFieldSpecs", FieldType::DateTime),
            ("complexFieldSpecs", FieldType::Complex),
        ] {
            let list: Vec<Json> = self
                .fields
                .iter()
                .filter(|f| f.field_type == ft)
                .map(|f| serde_json::to_value(f).unwrap_or(Json::Null))
                .collect();
            if !list.is_empty() {
                out.insert(key.into(), Json::Array(list));
            }
        }
        if !self.primary_key_columns.is_empty() {
            out.insert(
                "primaryKeyColumns".into(),
                serde_json::to_value(&self.primary_key_columns).unwrap_or(Json::Null),
            );
        }
        Json::Object(out)
    }

    /// The field spec of a column, by exact name.
    pub fn field(&self, name: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Column names in declaration order.
    pub fn column_names(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|f| f.name.as_str())
    }

    /// Schema-level checks: a name, no duplicate columns, known types, valid defaults,
    /// date-time specs with a format, primary keys that exist.
    pub fn validate(&self) -> Result<(), String> {
        if self.schema_name.trim().is_empty() {
            return Err("'schemaName' should not be null or empty".into());
        }
        if self.schema_name.contains("__") {
            return Err(format!(
                "Schema name: {} cannot contain double underscore ('__')",
                self.schema_name
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for f in &self.fields {
            if f.name.is_empty() {
                return Err("Field name should not be null or empty".into());
            }
            if !seen.insert(f.name.as_str()) {
                return Err(format!("Duplicate column: {} in schema", f.name));
            }
            f.validate_default_null()?;
            f.validate_complex()?;
            if f.field_type == FieldType::DateTime && f.format.is_none() {
                return Err(format!(
                    "Invalid format for DateTimeFieldSpec: {}: format must be set",
                    f.name
                ));
            }
            if f.field_type == FieldType::Metric && !f.single_value_field {
                return Err(format!("Metric column: {} must be single-valued", f.name));
            }
        }
        for pk in &self.primary_key_columns {
            if self.field(pk).is_none() {
                return Err(format!("Primary key column: {pk} is not in the schema"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UPSERT: &str = r#"{
      "schemaName": "upsertMeetupRsvp",
      "enableColumnBasedNullHandling": true,
      "dimensionFieldSpecs": [
        {"name": "event_id", "dataType": "STRING"},
        {"name": "tags", "dataType": "STRING", "singleValueField": false},
        {"name": "group_id", "dataType": "LONG", "defaultNullValue": -1}
      ],
      "metricFieldSpecs": [{"name": "rsvp_count", "dataType": "INT"}],
      "dateTimeFieldSpecs": [
        {"name": "mtime", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:TIMESTAMP", "granularity": "1:MILLISECONDS"}
      ],
      "primaryKeyColumns": ["event_id"]
    }"#;

    #[test]
    fn parses_and_writes_pinot_shape() {
        let s = Schema::from_json(UPSERT).unwrap();
        s.validate().unwrap();
        assert_eq!(s.fields.len(), 5);
        assert_eq!(s.field("rsvp_count").unwrap().field_type, FieldType::Metric);
        assert_eq!(s.field("group_id").unwrap().default_null(), Value::Long(-1));
        assert_eq!(
            s.field("event_id").unwrap().default_null(),
            Value::String("null".into())
        );
        let out = s.to_json();
        assert_eq!(out["dimensionFieldSpecs"][1]["singleValueField"], false);
        assert_eq!(out["dimensionFieldSpecs"][0]["fieldType"], "DIMENSION");
        assert!(
            out["dimensionFieldSpecs"][0]
                .get("singleValueField")
                .is_none()
        );
        let again = Schema::from_json(&out.to_string()).unwrap();
        assert_eq!(again, s);
    }

    #[test]
    fn rejects_bad_schemas() {
        assert_eq!(
            Schema::from_json(r#"{"schemaName":"x","dimensionFieldSpecs":[{"name":"a","dataType":"VARCHAR"}]}"#),
            Err("invalid dataType 'VARCHAR' for column 'a' (expected one of INT, LONG, FLOAT, DOUBLE, BIG_DECIMAL, BOOLEAN, TIMESTAMP, STRING, JSON, BYTES)".to_string())
        );
        assert_eq!(
            Schema::from_json(r#"{"schemaName":"x","metricFieldSpecs":[{"name":"m"}]}"#),
            Err("missing dataType for column 'm'".to_string())
        );
        let dup = Schema::from_json(r#"{"schemaName":"x","dimensionFieldSpecs":[{"name":"a","dataType":"INT"}],"metricFieldSpecs":[{"name":"a","dataType":"INT"}]}"#).unwrap();
        assert_eq!(dup.validate().unwrap_err(), "Duplicate column: a in schema");
        let bad_default = Schema::from_json(r#"{"schemaName":"x","dimensionFieldSpecs":[{"name":"a","dataType":"INT","defaultNullValue":"zz"}]}"#).unwrap();
        assert!(bad_default.validate().is_err());
    }

    #[test]
    fn map_columns_are_complex_specs() {
        let text = r#"{"schemaName":"x","complexFieldSpecs":[{"name":"m","dataType":"MAP",
            "fieldType":"COMPLEX","childFieldSpecs":{"key":{"name":"key","dataType":"STRING"},
            "value":{"name":"value","dataType":"LONG"}}}]}"#;
        let s = Schema::from_json(text).unwrap();
        s.validate().unwrap();
        assert_eq!(s.fields, vec![FieldSpec::map("m", DataType::Long)]);
        assert_eq!(s.fields[0].column_type(), ColumnType::map(DataType::Long));
        let out = s.to_json();
        assert_eq!(out["complexFieldSpecs"][0]["fieldType"], "COMPLEX");
        assert_eq!(
            out["complexFieldSpecs"][0]["childFieldSpecs"]["value"]["dataType"],
            "LONG"
        );
        assert_eq!(Schema::from_json(&out.to_string()).unwrap(), s);

        let invalid = |text: &str| Schema::from_json(text).and_then(|s| s.validate());
        assert_eq!(
            invalid(r#"{"schemaName":"x","complexFieldSpecs":[{"name":"m","dataType":"STRUCT"}]}"#),
            Err("invalid dataType 'STRUCT' for column 'm' (expected one of MAP)".to_string())
        );
        let no_value = r#"{"schemaName":"x","complexFieldSpecs":[{"name":"m","dataType":"MAP",
            "childFieldSpecs":{"key":{"name":"key","dataType":"STRING"}}}]}"#;
        assert!(invalid(no_value).unwrap_err().contains("Missing 'value'"));
        let as_dimension =
            r#"{"schemaName":"x","dimensionFieldSpecs":[{"name":"m","dataType":"MAP"}]}"#;
        assert!(
            invalid(as_dimension)
                .unwrap_err()
                .contains("complexFieldSpecs")
        );
        let nested = r#"{"schemaName":"x","complexFieldSpecs":[{"name":"m","dataType":"MAP",
            "childFieldSpecs":{"key":{"name":"key","dataType":"STRING"},
            "value":{"name":"value","dataType":"MAP"}}}]}"#;
        assert!(
            invalid(nested)
                .unwrap_err()
                .contains("single-value primitive")
        );
    }
}
