//! Table config handling on `POST /tables` and `PUT /tables/{t}`, over the shared typed model
//! ([`TableConfig`](segments::types::TableConfig)): parse (unknown keys reported as
//! `unrecognizedProperties`), validate against the table's schema with Pinot's messages, and
//! store Pinot's canonical JSON; and the readers of a stored config (tenant tags, replication).

use crate::http::ApiError;
use segments::types::{Schema, TableConfig, TableConfigError};
use serde_json::{Map, Value as Json};

/// A parsed table config.
#[derive(Clone, Debug)]
pub struct Checked {
    pub config: TableConfig,
    /// Unknown keys, `"/path/to/key" → value`.
    pub unrecognized: Map<String, Json>,
}

impl Checked {
    /// Raw table name (`foo`).
    pub fn raw_name(&self) -> &str {
        self.config.raw_table_name()
    }
    /// `<raw>_<TYPE>`.
    pub fn name_with_type(&self) -> &str {
        self.config.table_name_with_type()
    }
    /// The canonical JSON that is stored and served.
    pub fn json(&self) -> Json {
        self.config.to_json()
    }
}

fn bad(e: TableConfigError) -> ApiError {
    ApiError::new(e.http_status(), e.to_string())
}

/// Parses a config (bare or `{"OFFLINE": {...}}`). Errors are 400s naming the field.
pub fn parse(text: &str) -> Result<Checked, ApiError> {
    let parsed = TableConfig::parse(text).map_err(bad)?;
    Ok(Checked {
        config: parsed.config,
        unrecognized: parsed.unrecognized_properties,
    })
}

/// Pinot's schema-dependent checks.
pub fn validate(checked: &Checked, schema: &Schema) -> Result<(), ApiError> {
    checked.config.validate(schema).map_err(bad)
}

/// How many servers host each segment of a stored config JSON: `segmentsConfig.replication`
/// (1 when unreadable), or every server of the tenant for a dimension table (`isDimTable`), as
/// Pinot replicates those so that each server can look rows up locally.
pub fn replication(config: &Json) -> usize {
    TableConfig::from_value(config.clone())
        .map(|c| {
            if c.is_dim_table {
                usize::MAX
            } else {
                c.replication() as usize
            }
        })
        .unwrap_or(1)
        .max(1)
}

/// The typed config of a stored table config JSON (None when unreadable).
pub fn parse_config(config: &Json) -> Option<TableConfig> {
    TableConfig::from_value(config.clone()).ok()
}

/// The server tag of a stored table config (`DefaultTenant_OFFLINE` when unreadable).
pub fn server_tag(config: &Json) -> String {
    parse_config(config)
        .map(|c| c.tenants.server_tag(c.table_type))
        .unwrap_or_else(|| "DefaultTenant_OFFLINE".to_string())
}

/// The broker tag of a stored table config.
pub fn broker_tag(config: &Json) -> String {
    parse_config(config)
        .map(|c| c.tenants.broker_tag())
        .unwrap_or_else(|| "DefaultTenant_BROKER".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"{"tableName":"t","tableType":"offline","segmentsConfig":{"replication":"2","timeColumnName":"ts"},"tenants":{},"tableIndexConfig":{"invertedIndexColumns":["a"],"fooBar":1}}"#;

    fn schema() -> Schema {
        Schema::from_json(r#"{"schemaName":"t","dimensionFieldSpecs":[{"name":"a","dataType":"STRING"}],"dateTimeFieldSpecs":[{"name":"ts","dataType":"LONG","format":"1:MILLISECONDS:EPOCH","granularity":"1:MILLISECONDS"}]}"#).unwrap()
    }

    #[test]
    fn parses_normalises_and_reports_unknown_keys() {
        let c = parse(BASE).unwrap();
        assert_eq!((c.raw_name(), c.name_with_type()), ("t", "t_OFFLINE"));
        assert_eq!(c.unrecognized["/tableIndexConfig/fooBar"], 1);
        assert_eq!(c.json()["tableType"], "OFFLINE");
        assert_eq!(replication(&c.json()), 2);
        validate(&c, &schema()).unwrap();
    }

    #[test]
    fn errors_name_the_field() {
        let no_segments = BASE.replace(
            r#""segmentsConfig":{"replication":"2","timeColumnName":"ts"},"#,
            "",
        );
        assert_eq!(
            parse(&no_segments).unwrap_err().message,
            "'segmentsConfig' must be configured"
        );
        assert_eq!(parse("[1").unwrap_err().status, 400);
        let bad_col = BASE.replace(r#"["a"]"#, r#"["zz"]"#);
        let e = validate(&parse(&bad_col).unwrap(), &schema()).unwrap_err();
        assert_eq!(e.status, 400);
        assert!(e.message.contains("zz"), "{}", e.message);
    }
}
