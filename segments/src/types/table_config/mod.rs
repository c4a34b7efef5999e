//! Pinot's table config (`pinot-spi/.../config/table/*`): the JSON document that creates a
//! table, its round trip in Pinot's exact output shape, unknown-key reporting, and validation
//! against the table's [`Schema`](crate::types::Schema).
//!
//! # Reading and writing
//!
//! [`TableConfig::parse`] accepts the bare config or the wrapped form returned by
//! `GET /tables/{name}` (`{"OFFLINE": {...}}`), normalises `tableName` to its typed form
//! (`raw` → `raw_OFFLINE`) and reads `tableType` case-insensitively. Like Jackson in Pinot it
//! coerces scalars (`"replication": 1` is the string `"1"`, `"enableSnapshot": "true"` the
//! boolean), and it ignores unknown keys but reports them as `unrecognizedProperties`
//! (`"/tableIndexConfig/fooBar" → value`, see [`unrecognized_properties`]).
//!
//! [`TableConfig::to_json`] writes what Pinot's `BaseJsonConfig` writes: keys in Pinot's order
//! (`tableName, tableType, segmentsConfig, tenants, tableIndexConfig, metadata, …`), unset
//! values omitted, Java primitives always present with their defaults
//! (`"rangeIndexVersion": 2`, `"aggregateMetrics": false`, `"isDimTable": false`). Writing and
//! re-reading is a fixed point.
//!
//! Sub-objects Tessera uses are typed; open-ended ones (task, instance assignment,
//! `indexes`, `tierOverwrites`, complex-type config) are kept as JSON. The stream/batch
//! ingestion, upsert, dedup and routing objects type what Tessera reads and carry the rest
//! in an `extra` map, so newer Pinot knobs survive a round trip.
//!
//! ```
//! use tessera_segments::types::{TableConfig, TableType};
//! let parsed = TableConfig::parse(r#"{"tableName": "t", "tableType": "offline",
//!     "segmentsConfig": {"replication": 1}, "tenants": {}, "tableIndexConfig": {"fooBar": 1}}"#)
//!     .unwrap();
//! assert_eq!(parsed.config.table_name_with_type(), "t_OFFLINE");
//! assert_eq!(parsed.config.table_type, TableType::Offline);
//! assert_eq!(parsed.unrecognized_properties["/tableIndexConfig/fooBar"], 1);
//! assert_eq!(parsed.config.to_json()["tableIndexConfig"]["rangeIndexVersion"], 2);
//! ```
//!
//! # Validating
//!
//! [`TableConfig::validate`] runs Pinot's checks against the schema and fails with Pinot's
//! message ([`TableConfigError`]). [`TableConfig::column_indexes`] resolves, per column, the
//! indexes asked for in any of Pinot's three config styles.

mod coerce;
mod column_indexes;
mod config;
mod data_size;
mod error;
mod field_config;
mod indexing;
mod ingestion;
mod keyed;
mod metadata;
mod period;
mod quota;
mod routing;
mod segments_config;
mod star_tree;
mod stream;
mod table_type;
mod tenants;
mod tier;
mod unrecognized;
mod upsert;
mod validate;

#[cfg(test)]
mod fixtures;

pub use column_indexes::ColumnIndexes;
pub use config::{ParsedTableConfig, TableConfig};
pub use data_size::{data_size_bytes, format_data_size};
pub use error::{StreamConfigError, TableConfigError};
pub use field_config::{
    CompressionCodec, EncodingType, FieldConfig, IndexType, TimestampConfig, TimestampGranularity,
};
pub use indexing::{
    BloomFilterConfig, ColumnPartitionConfig, DEFAULT_BLOOM_FILTER_FPP,
    DEFAULT_NO_DICTIONARY_SIZE_RATIO_THRESHOLD, DEFAULT_RANGE_INDEX_VERSION, IndexingConfig,
    LoadMode, SegmentPartitionConfig,
};
pub use ingestion::{
    AggregationConfig, BatchIngestionConfig, CollectionNotUnnestedToJson, ComplexTypeConfig,
    FilterConfig, IngestionConfig, StreamIngestionConfig, TransformConfig, expression_arguments,
};
pub use keyed::Keyed;
pub use metadata::TableCustomConfig;
pub use period::parse_period_millis;
pub use quota::QuotaConfig;
pub use routing::RoutingConfig;
pub use segments_config::{SegmentsConfig, TimeUnit};
pub use star_tree::{
    DEFAULT_MAX_LEAF_RECORDS, FunctionColumnPair, StarTreeAggregationConfig, StarTreeFunction,
    StarTreeIndexConfig,
};
pub use stream::{
    DEFAULT_CONSUMER_FACTORY_CLASS, DEFAULT_FLUSH_THRESHOLD_ROWS,
    DEFAULT_FLUSH_THRESHOLD_SEGMENT_SIZE_BYTES, DEFAULT_FLUSH_THRESHOLD_TIME_MILLIS, StreamConfig,
};
pub use table_type::{TableType, raw_table_name};
pub use tenants::{DEFAULT_TENANT, TenantConfig};
pub use tier::TierConfig;
pub use unrecognized::unrecognized_properties;
pub use upsert::{ConsistencyMode, DedupConfig, UpsertConfig, UpsertMode};
