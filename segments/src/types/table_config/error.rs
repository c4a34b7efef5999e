//! Everything that can be wrong with a table config, worded as Pinot words it.
//!
//! Messages are Pinot's own (`TableConfig` constructor checks, `TableConfigUtils.validate*`,
//! `StreamConfig`), because clients match on them; a few Tessera-only checks follow the same
//! style. Every variant is a client error: the controller answers HTTP 400 with the message.

use thiserror::Error;

/// Why a table config was rejected, at parse time or when validated against its schema.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TableConfigError {
    // ---- parsing -------------------------------------------------------------------------
    /// The text is not JSON, or a field has the wrong shape (serde's message).
    #[error("{0}")]
    Json(String),
    #[error("table config must be a JSON object, found {0}")]
    NotAnObject(&'static str),
    /// A mandatory top-level key is absent or null.
    #[error("'{0}' must be configured")]
    MissingKey(&'static str),
    #[error("'tableName' cannot contain double underscore ('__')")]
    DoubleUnderscoreInName,
    #[error("No enum constant org.apache.pinot.spi.config.table.TableType.{0}")]
    InvalidTableType(String),
    /// `{"OFFLINE": {...}, "REALTIME": {...}}` where one config was expected, or the same
    /// type twice.
    #[error("expected one table config, found a wrapper holding several")]
    AmbiguousWrapper,
    /// `{"OFFLINE": {... "tableType": "REALTIME"}}`.
    #[error("table config wrapped under '{wrapper}' has tableType '{inner}'")]
    WrapperTypeMismatch { wrapper: String, inner: String },

    // ---- table name and segmentsConfig -----------------------------------------------------
    #[error("Table name: '{0}' containing more than one '.' is not allowed")]
    TableNameDots(String),
    #[error("Table name: '{0}' containing space is not allowed")]
    TableNameWhitespace(String),
    /// A name like `t_REALTIME` given with `"tableType": "OFFLINE"`.
    #[error("Table name: '{name}' has a type suffix that does not match tableType: {table_type}")]
    TableNameTypeSuffix { name: String, table_type: String },
    #[error("'{key}' must be a number, found: '{value}'")]
    NotANumber { key: &'static str, value: String },
    #[error("'timeColumnName' cannot be null in REALTIME table config")]
    RealtimeWithoutTimeColumn,
    #[error(
        "Cannot find valid fieldSpec for timeColumn: {column} from the table config: {table}, in the schema: {schema}"
    )]
    TimeColumnNotFound {
        column: String,
        table: String,
        schema: String,
    },
    #[error("Table: {table}, invalid push type: {push_type}")]
    InvalidPushType { table: String, push_type: String },
    #[error("Table: {table}, invalid retention time unit: {unit}")]
    InvalidRetentionTimeUnit { table: String, unit: String },

    // ---- dimension tables --------------------------------------------------------------------
    #[error("Dimension table must be of OFFLINE table type.")]
    DimTableNotOffline,
    #[error("Dimension table must have primary key[s]")]
    DimTableWithoutPrimaryKey,
    #[error("Dimension tables must have batch ingestion configuration")]
    DimTableWithoutBatchIngestion,
    #[error("Dimension tables must have segment ingestion type REFRESH")]
    DimTableNotRefresh,

    // ---- ingestion -----------------------------------------------------------------------------
    #[error(
        "Should not use indexingConfig#getStreamConfigs if ingestionConfig#StreamIngestionConfig is provided"
    )]
    StreamConfigsInBothPlaces,
    #[error("Must have at least 1 stream in REALTIME table")]
    NoStreams,
    #[error("Could not find streamConfigs for REALTIME table: {0}")]
    StreamConfigsNotFound(String),
    /// Pinot's message; the cause (e.g. a missing topic) is the error's `source()`.
    #[error("Could not create StreamConfig using the streamConfig map")]
    StreamConfig(#[source] StreamConfigError),
    #[error("columnName/transformFunction cannot be null in TransformConfig {0}")]
    IncompleteTransform(String),
    #[error("Duplicate transform config found for column '{0}'")]
    DuplicateTransform(String),
    #[error(
        "The destination column '{0}' of the transform function must be present in the schema, be consumed as the input of another transform function, or be a source column for aggregations"
    )]
    TransformDestinationNotInSchema(String),
    #[error(
        "Arguments of a transform function '[{arguments}]' cannot contain the destination column '{column}'"
    )]
    TransformReadsItsDestination { arguments: String, column: String },

    // ---- tiers ---------------------------------------------------------------------------------
    #[error("Tier name cannot be blank")]
    BlankTierName,
    #[error("Tier name: {0} already exists in tier configs")]
    DuplicateTier(String),
    #[error("Must provide 'segmentAge' for segmentSelectorType: {selector} in tier: {tier}")]
    TierWithoutSegmentAge { selector: String, tier: String },
    #[error("segmentAge: {age} must be a valid period string (eg. 30d, 24h) in tier: {tier}")]
    InvalidTierSegmentAge { age: String, tier: String },
    #[error("Unsupported segmentSelectorType: {selector} in tier: {tier}")]
    UnsupportedSegmentSelector { selector: String, tier: String },
    #[error("Must provide 'serverTag' for storageType: {storage} in tier: {tier}")]
    TierWithoutServerTag { storage: String, tier: String },
    #[error(
        "serverTag: {tag} must have a valid server tag format (<tenantName>_OFFLINE or <tenantName>_REALTIME) in tier: {tier}"
    )]
    InvalidTierServerTag { tag: String, tier: String },
    #[error("Unsupported storageType: {storage} in tier: {tier}")]
    UnsupportedStorageType { storage: String, tier: String },

    // ---- indexes and field configs ---------------------------------------------------------------
    #[error("Duplicate FieldConfig for column: {0}")]
    DuplicateFieldConfig(String),
    #[error("Failed to find column: {0} in schema")]
    ColumnNotFound(String),
    #[error("FieldConfig encoding type is different from indexingConfig for column: {0}")]
    EncodingConflict(String),
    #[error(
        "Cannot create inverted index on column: {0}, it can only be applied to dictionary encoded columns"
    )]
    InvertedIndexWithoutDictionary(String),
    #[error("Cannot create a range index on non-numeric/no-dictionary column {0}")]
    RangeIndexOnRawNonNumeric(String),
    #[error(
        "Json index can only be created for single value String column. Invalid for column: {0}"
    )]
    JsonIndexOnWrongType(String),
    #[error("Cannot create text index on column: {0}, it can only be applied to string columns")]
    TextIndexOnWrongType(String),
    #[error(
        "Cannot create FST index on column: {0}, it can only be applied to dictionary encoded single value string columns"
    )]
    FstIndexOnWrongType(String),
    #[error(
        "var length dictionary can only be created for columns of type STRING and BYTES. Invalid for column {0}"
    )]
    VarLengthDictionaryOnWrongType(String),
    #[error("Cannot create TIMESTAMP index on column: {0} of stored type other than LONG")]
    TimestampIndexOnWrongType(String),
    #[error("Cannot create TIMESTAMP index on multi-value column: {0}")]
    TimestampIndexOnMultiValue(String),
    #[error("Failed to find sorted column: {0} in schema")]
    SortedColumnNotFound(String),
    #[error("Cannot sort on multi-value column: {0}")]
    SortedColumnMultiValue(String),
    #[error("Failed to find partition column: {0} in schema")]
    PartitionColumnNotFound(String),
    #[error("Cannot partition on multi-value column: {0}")]
    PartitionColumnMultiValue(String),

    // ---- star-tree ---------------------------------------------------------------------------------
    #[error("Failed to find dimension column: {0} specified in star-tree index config in schema")]
    StarTreeDimensionNotFound(String),
    #[error("Cannot create star-tree index on dimension column: {0} without dictionary")]
    StarTreeDimensionWithoutDictionary(String),
    #[error(
        "Can not skip star-node creation for dimensions not in the split order, dimensionsSplitOrder: {split_order}, skipStarNodeCreationForDimensions: {skipped}"
    )]
    StarTreeSkipNotInSplitOrder {
        split_order: String,
        skipped: String,
    },
    #[error("Either 'functionColumnPairs' or 'aggregationConfigs' must be specified, but not both")]
    StarTreeAggregationsUnspecified,
    /// Pinot's message, typo (`bein`) included.
    #[error(
        "Invalid StarTreeIndex config: {0}. Must bein the form <Aggregation function>__<Column name>"
    )]
    InvalidFunctionColumnPair(String),
    #[error("Invalid StarTreeIndex config: {0}")]
    InvalidStarTreeAggregation(String),
    #[error("Duplicate function column pair: {0}")]
    DuplicateFunctionColumnPair(String),
    #[error(
        "Non-COUNT function set the column as '*' in the functionColumnPair: {0}. Please configure an actual column for the function"
    )]
    StarColumnForNonCount(String),
    #[error("Failed to find column: {0} specified in star-tree index config in schema")]
    StarTreeColumnNotFound(String),
    #[error("Star-tree dimension columns must be single-value, but found multi-value column: {0}")]
    StarTreeMultiValueDimension(String),

    // ---- upsert and dedup ----------------------------------------------------------------------------
    #[error("A table can have either Upsert or Dedup enabled, but not both")]
    UpsertAndDedup,
    #[error("Upsert/Dedup table is for realtime table only.")]
    UpsertNotRealtime,
    #[error("Upsert/Dedup table must have primary key columns in the schema")]
    UpsertWithoutPrimaryKey,
    #[error(
        "Upsert/Dedup table must use strict replica-group (i.e. strictReplicaGroup) based routing"
    )]
    UpsertRouting,
    #[error("Upsert/Dedup table cannot use tenant tag override")]
    UpsertTagOverride,
    #[error("The upsert table cannot have star-tree index.")]
    UpsertWithStarTree,
    #[error("The comparison column does not exist on schema")]
    UpsertComparisonColumnNotFound,
    #[error("Invalid delete record column found")]
    UpsertDeleteColumnNotFound,
    #[error("The delete record column must be a single-valued column")]
    UpsertDeleteColumnMultiValue,
    #[error("The delete record column must be of type: String / Boolean / Numeric")]
    UpsertDeleteColumnType,
    #[error("Metrics aggregation and upsert cannot be enabled together")]
    AggregationWithUpsert,
}

impl TableConfigError {
    /// The HTTP status the controller answers with (always 400: the client sent a bad config).
    pub fn http_status(&self) -> u16 {
        400
    }
}

impl From<serde_json::Error> for TableConfigError {
    fn from(e: serde_json::Error) -> Self {
        TableConfigError::Json(e.to_string())
    }
}

/// Why a stream config map cannot become a stream (`StreamConfig.java` constructor checks).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum StreamConfigError {
    #[error("streamType cannot be null")]
    MissingStreamType,
    #[error("Stream topic name {0} cannot be null")]
    MissingTopic(String),
    #[error("Must specify decoder class name {0}")]
    MissingDecoder(String),
    #[error(
        "Realtime tables with HLC consumer (consumer.type=highlevel) is no longer supported in Apache Pinot"
    )]
    HighLevelConsumer,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn messages_are_pinots() {
        assert_eq!(
            TableConfigError::MissingKey("tableName").to_string(),
            "'tableName' must be configured"
        );
        assert_eq!(
            TableConfigError::InvalidFunctionColumnPair("MAX_x".into()).to_string(),
            "Invalid StarTreeIndex config: MAX_x. Must bein the form <Aggregation function>__<Column name>"
        );
        let e = TableConfigError::StreamConfig(StreamConfigError::MissingTopic(
            "stream.kafka.topic.name".into(),
        ));
        assert_eq!(
            e.to_string(),
            "Could not create StreamConfig using the streamConfig map"
        );
        assert_eq!(
            e.source().map(|s| s.to_string()).as_deref(),
            Some("Stream topic name stream.kafka.topic.name cannot be null")
        );
        assert_eq!(e.http_status(), 400);
    }
}
