//! The shared vocabulary at the bottom of the crate graph: data types, values, schema,
//! table config, error codes and calendar arithmetic (Pinot's `pinot-spi`).

pub mod column_type;
pub mod data_type;
pub mod decimal;
pub mod error_code;
pub mod java_text;
pub mod map;
pub mod schema;
pub mod table_config;
pub mod time;
pub mod value;

pub use column_type::ColumnType;
pub use data_type::{DataType, StoredType};
pub use error_code::ErrorCode;
pub use schema::{FieldSpec, FieldType, Schema};
pub use table_config::{
    ParsedTableConfig, TableConfig, TableConfigError, TableType, raw_table_name,
    unrecognized_properties,
};
pub use value::Value;

/// A document (row) number within one segment.
pub type DocId = u32;
/// A value's rank in a column's sorted dictionary.
pub type DictId = u32;
