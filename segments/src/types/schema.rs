//! Pinot's schema JSON (`Schema.java`, `FieldSpec.java`): dimension, metric and date-time
//! field specs, read leniently and written back the way Pinot writes them (`fieldType` added,
//! only non-default attributes emitted).

use super::data_type::DataType;
use super::value::Value;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

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
        }
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
    ];
    let doc: Option<Json> = serde_json::from_str(text).ok();
    let specs = doc
        .iter()
        .flat_map(|d| lists.iter().filter_map(move |l| d.get(l)?.as_array()))
        .flatten();
    for spec in specs {
        let column = spec.get("name").and_then(Json::as_str).unwrap_or_default();
        match spec.get("dataType") {
            None | Some(Json::Null) => return format!("missing dataType for column '{column}'"),
            Some(Json::String(t)) if DataType::ALL.iter().any(|d| d.name() == t) => {}
            Some(t) => {
                let shown = t.as_str().map_or_else(|| t.to_string(), str::to_string);
                let expected: Vec<&str> = DataType::ALL.iter().map(|d| d.name()).collect();
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
        ] {
            for mut f in list {
                f.field_type = ft;
                fields.push(f);
            }
        }
        let mut unrecognized = Map::new();
        for (k, v) in raw.rest {
            if !matches!(k.as_str(), "description" | "tags" | "complexFieldSpecs") {
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
}
