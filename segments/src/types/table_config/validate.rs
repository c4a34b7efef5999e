//! Checking a [`TableConfig`] against its [`Schema`], in the order and words of Pinot's
//! `TableConfigUtils.validate`: table name, `segmentsConfig` (time column, dimension table,
//! push type, retention), ingestion (transforms, stream placement), stream configs of REALTIME
//! tables, tiers, indexes and field configs (every named column exists and suits its index,
//! star-trees, timestamp index, sorted and partition columns), then upsert and dedup.
//!
//! The first problem found is returned; a config that passes is one Pinot would accept.

use super::config::TableConfig;
use super::error::TableConfigError;
use super::field_config::{EncodingType, IndexType};
use super::period::parse_period_millis;
use super::segments_config::TimeUnit;
use super::table_type::TableType;
use crate::types::data_type::{DataType, StoredType};
use crate::types::schema::{FieldType, Schema};
use std::collections::HashSet;

/// What validation needs to know about a column: a schema field, or a column derived by a
/// timestamp index (`$ts$DAY`, a single-value TIMESTAMP).
#[derive(Clone, Copy, Debug)]
struct Column {
    data_type: DataType,
    single_value: bool,
    field_type: FieldType,
}

impl TableConfig {
    /// Validates this config against its schema; `Ok` means Pinot would accept it.
    pub fn validate(&self, schema: &Schema) -> Result<(), TableConfigError> {
        self.validate_table_name()?;
        self.validate_segments_config(schema)?;
        self.validate_ingestion(schema)?;
        if self.table_type == TableType::Realtime {
            self.stream_configs()?;
        }
        self.validate_tiers()?;
        self.validate_field_configs(schema)?;
        self.validate_index_columns(schema)?;
        self.validate_star_trees(schema)?;
        self.validate_timestamp_sorted_and_partition(schema)?;
        self.validate_upsert_and_dedup(schema)
    }

    /// A schema column, or a timestamp-index derived column of this table.
    fn column(&self, schema: &Schema, name: &str) -> Option<Column> {
        if let Some(f) = schema.field(name) {
            return Some(Column {
                data_type: f.data_type,
                single_value: f.single_value_field,
                field_type: f.field_type,
            });
        }
        let derived = self.field_configs().iter().any(|f| {
            f.timestamp_granularities()
                .iter()
                .any(|g| g.derived_column(&f.name) == name)
        });
        derived.then_some(Column {
            data_type: DataType::Timestamp,
            single_value: true,
            field_type: FieldType::DateTime,
        })
    }

    fn validate_table_name(&self) -> Result<(), TableConfigError> {
        let name = &self.table_name;
        if name.contains("__") {
            return Err(TableConfigError::DoubleUnderscoreInName);
        }
        if name.matches('.').count() > 1 {
            return Err(TableConfigError::TableNameDots(name.clone()));
        }
        if name.chars().any(char::is_whitespace) {
            return Err(TableConfigError::TableNameWhitespace(name.clone()));
        }
        let given = name.strip_suffix(self.table_type.suffix()).unwrap_or(name);
        if TableType::of_table_name(given) == Some(self.table_type.other()) {
            return Err(TableConfigError::TableNameTypeSuffix {
                name: given.to_string(),
                table_type: self.table_type.name().to_string(),
            });
        }
        Ok(())
    }

    fn validate_segments_config(&self, schema: &Schema) -> Result<(), TableConfigError> {
        let s = &self.segments_config;
        for (key, value) in [
            ("replication", &s.replication),
            ("replicasPerPartition", &s.replicas_per_partition),
        ] {
            if let Some(v) = value
                .as_deref()
                .filter(|v| v.trim().parse::<u32>().is_err())
            {
                return Err(TableConfigError::NotANumber {
                    key,
                    value: v.to_string(),
                });
            }
        }
        if self.table_type == TableType::Realtime && s.time_column_name.is_none() {
            return Err(TableConfigError::RealtimeWithoutTimeColumn);
        }
        if let Some(time_column) = &s.time_column_name {
            let is_time = self
                .column(schema, time_column)
                .is_some_and(|c| matches!(c.field_type, FieldType::Time | FieldType::DateTime));
            if !is_time {
                return Err(TableConfigError::TimeColumnNotFound {
                    column: time_column.clone(),
                    table: self.table_name.clone(),
                    schema: schema.schema_name.clone(),
                });
            }
        }
        if self.is_dim_table {
            if self.table_type != TableType::Offline {
                return Err(TableConfigError::DimTableNotOffline);
            }
            if schema.primary_key_columns.is_empty() {
                return Err(TableConfigError::DimTableWithoutPrimaryKey);
            }
        }
        if let Some(push_type) = self.batch_ingestion_type().filter(|t| !t.is_empty()) {
            let known = ["APPEND", "REFRESH"]
                .iter()
                .any(|k| k.eq_ignore_ascii_case(push_type));
            if self.table_type == TableType::Offline && !known {
                return Err(TableConfigError::InvalidPushType {
                    table: self.table_name.clone(),
                    push_type: push_type.to_string(),
                });
            }
        }
        if let Some(unit) = s.retention_time_unit.as_deref().filter(|u| !u.is_empty()) {
            let upper = unit.to_ascii_uppercase();
            // `TimeUnit.valueOf`: constant names only, no `daysSinceEpoch` aliases.
            if TimeUnit::parse(&upper).is_none_or(|u| u.name() != upper) {
                return Err(TableConfigError::InvalidRetentionTimeUnit {
                    table: self.table_name.clone(),
                    unit: unit.to_string(),
                });
            }
        }
        Ok(())
    }

    fn validate_ingestion(&self, schema: &Schema) -> Result<(), TableConfigError> {
        let Some(ingestion) = &self.ingestion_config else {
            return Ok(());
        };
        if self.is_dim_table {
            let batch = ingestion
                .batch_ingestion_config
                .as_ref()
                .ok_or(TableConfigError::DimTableWithoutBatchIngestion)?;
            let refresh = batch
                .segment_ingestion_type
                .as_deref()
                .is_some_and(|t| t.eq_ignore_ascii_case("REFRESH"));
            if !refresh {
                return Err(TableConfigError::DimTableNotRefresh);
            }
        }
        if let Some(stream) = &ingestion.stream_ingestion_config {
            if self
                .table_index_config
                .stream_configs
                .as_ref()
                .is_some_and(|m| !m.is_empty())
            {
                return Err(TableConfigError::StreamConfigsInBothPlaces);
            }
            if stream.stream_config_maps.as_ref().is_none_or(Vec::is_empty) {
                return Err(TableConfigError::NoStreams);
            }
        }
        let aggregation_sources: HashSet<String> = ingestion
            .aggregation_configs
            .iter()
            .flatten()
            .filter_map(|a| a.aggregation_function.as_deref())
            .filter_map(|f| super::ingestion::expression_arguments(f).into_iter().next())
            .collect();
        let transforms = ingestion.transforms();
        let transform_inputs: HashSet<String> =
            transforms.iter().flat_map(|t| t.arguments()).collect();
        let mut seen = HashSet::new();
        for t in transforms {
            let (Some(column), Some(_)) = (&t.column_name, &t.transform_function) else {
                return Err(TableConfigError::IncompleteTransform(
                    serde_json::to_string(t).unwrap_or_default(),
                ));
            };
            if !seen.insert(column.as_str()) {
                return Err(TableConfigError::DuplicateTransform(column.clone()));
            }
            let known = schema.field(column).is_some()
                || aggregation_sources.contains(column)
                || transform_inputs.contains(column);
            if !known {
                return Err(TableConfigError::TransformDestinationNotInSchema(
                    column.clone(),
                ));
            }
            let arguments = t.arguments();
            if arguments.contains(column) {
                return Err(TableConfigError::TransformReadsItsDestination {
                    arguments: arguments.join(", "),
                    column: column.clone(),
                });
            }
        }
        Ok(())
    }

    fn validate_tiers(&self) -> Result<(), TableConfigError> {
        let mut names = HashSet::new();
        for tier in self.tiers() {
            let name = &tier.name;
            if name.is_empty() {
                return Err(TableConfigError::BlankTierName);
            }
            if !names.insert(name.as_str()) {
                return Err(TableConfigError::DuplicateTier(name.clone()));
            }
            let selector = &tier.segment_selector_type;
            if selector.eq_ignore_ascii_case("time") {
                let age = tier.segment_age.as_ref().ok_or_else(|| {
                    TableConfigError::TierWithoutSegmentAge {
                        selector: selector.clone(),
                        tier: name.clone(),
                    }
                })?;
                if parse_period_millis(age).is_none() {
                    return Err(TableConfigError::InvalidTierSegmentAge {
                        age: age.clone(),
                        tier: name.clone(),
                    });
                }
            } else if !selector.eq_ignore_ascii_case("fixed") {
                return Err(TableConfigError::UnsupportedSegmentSelector {
                    selector: selector.clone(),
                    tier: name.clone(),
                });
            }
            let storage = &tier.storage_type;
            if !storage.eq_ignore_ascii_case("pinot_server") {
                return Err(TableConfigError::UnsupportedStorageType {
                    storage: storage.clone(),
                    tier: name.clone(),
                });
            }
            let tag =
                tier.server_tag
                    .as_ref()
                    .ok_or_else(|| TableConfigError::TierWithoutServerTag {
                        storage: storage.clone(),
                        tier: name.clone(),
                    })?;
            if TableType::of_table_name(tag).is_none() {
                return Err(TableConfigError::InvalidTierServerTag {
                    tag: tag.clone(),
                    tier: name.clone(),
                });
            }
        }
        Ok(())
    }

    fn validate_field_configs(&self, schema: &Schema) -> Result<(), TableConfigError> {
        let mut seen = HashSet::new();
        for f in self.field_configs() {
            if !seen.insert(f.name.as_str()) {
                return Err(TableConfigError::DuplicateFieldConfig(f.name.clone()));
            }
            if self.column(schema, &f.name).is_none() {
                return Err(TableConfigError::ColumnNotFound(f.name.clone()));
            }
        }
        for f in self.field_configs() {
            if f.encoding_type == Some(EncodingType::Dictionary)
                && self.table_index_config.is_no_dictionary(&f.name)
            {
                return Err(TableConfigError::EncodingConflict(f.name.clone()));
            }
        }
        Ok(())
    }

    /// Columns named by the `tableIndexConfig` lists exist and suit their index; field
    /// configs' index types suit their columns.
    fn validate_index_columns(&self, schema: &Schema) -> Result<(), TableConfigError> {
        let ic = &self.table_index_config;
        let list = |l: &Option<Vec<String>>| -> Vec<String> {
            l.iter()
                .flatten()
                .filter(|c| !c.is_empty())
                .cloned()
                .collect()
        };
        let keys = |m: &Option<serde_json::Map<String, serde_json::Value>>| -> Vec<String> {
            m.iter().flat_map(|m| m.keys().cloned()).collect()
        };
        let bloom: Vec<String> = ic
            .bloom_filter_column_names()
            .into_iter()
            .map(String::from)
            .collect();
        let json_columns = if ic.json_index_configs.is_some() {
            keys(&ic.json_index_configs)
        } else {
            list(&ic.json_index_columns)
        };
        let named: Vec<String> = [
            list(&ic.no_dictionary_columns),
            keys(&ic.no_dictionary_config),
            bloom,
            list(&ic.inverted_index_columns),
            list(&ic.on_heap_dictionary_columns),
            list(&ic.range_index_columns),
            list(&ic.var_length_dictionary_columns),
            json_columns.clone(),
            list(&ic.h3_index_columns),
            list(&ic.vector_index_columns),
        ]
        .concat();
        for c in &named {
            if self.column(schema, c).is_none() {
                return Err(TableConfigError::ColumnNotFound(c.clone()));
            }
        }
        // Every column is known from here on; `col` cannot miss.
        let col = |name: &str| self.column(schema, name);
        let stored = |name: &str| col(name).map(|c| c.data_type.stored());
        for c in list(&ic.inverted_index_columns) {
            if !self.has_dictionary(&c) {
                return Err(TableConfigError::InvertedIndexWithoutDictionary(c));
            }
        }
        for c in list(&ic.range_index_columns) {
            let numeric = col(&c).is_some_and(|c| is_numeric_storage(c.data_type.stored()));
            if !numeric && !self.has_dictionary(&c) {
                return Err(TableConfigError::RangeIndexOnRawNonNumeric(c));
            }
        }
        for c in list(&ic.var_length_dictionary_columns) {
            if !matches!(stored(&c), Some(StoredType::String | StoredType::Bytes)) {
                return Err(TableConfigError::VarLengthDictionaryOnWrongType(c));
            }
        }
        let json_fields = self
            .field_configs()
            .iter()
            .filter(|f| f.index_types.contains(&IndexType::Json) || f.index_enabled("json"))
            .map(|f| f.name.clone());
        for c in json_columns.into_iter().chain(json_fields) {
            let ok = col(&c)
                .is_some_and(|c| c.single_value && c.data_type.stored() == StoredType::String);
            if !ok {
                return Err(TableConfigError::JsonIndexOnWrongType(c));
            }
        }
        for f in self.field_configs() {
            let Some(c) = col(&f.name) else { continue };
            let is_string = c.data_type.stored() == StoredType::String;
            for t in &f.index_types {
                match t {
                    IndexType::Inverted if !self.has_dictionary(&f.name) => {
                        return Err(TableConfigError::InvertedIndexWithoutDictionary(
                            f.name.clone(),
                        ));
                    }
                    IndexType::Text if !is_string => {
                        return Err(TableConfigError::TextIndexOnWrongType(f.name.clone()));
                    }
                    IndexType::Fst | IndexType::Ifst
                        if !(self.has_dictionary(&f.name) && c.single_value && is_string) =>
                    {
                        return Err(TableConfigError::FstIndexOnWrongType(f.name.clone()));
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn validate_star_trees(&self, schema: &Schema) -> Result<(), TableConfigError> {
        for st in self.table_index_config.star_trees() {
            for d in &st.dimensions_split_order {
                if self.column(schema, d).is_none() {
                    return Err(TableConfigError::StarTreeDimensionNotFound(d.clone()));
                }
                if !self.has_dictionary(d) {
                    return Err(TableConfigError::StarTreeDimensionWithoutDictionary(
                        d.clone(),
                    ));
                }
            }
            let skipped = st.skipped_dimensions();
            if !skipped
                .iter()
                .all(|s| st.dimensions_split_order.contains(s))
            {
                return Err(TableConfigError::StarTreeSkipNotInSplitOrder {
                    split_order: java_list(&st.dimensions_split_order),
                    skipped: java_list(skipped),
                });
            }
            let pairs = st.function_column_pairs()?;
            let aggregated = pairs.iter().filter(|p| !p.is_star()).map(|p| &p.column);
            for c in st.dimensions_split_order.iter().chain(aggregated) {
                if self.column(schema, c).is_none() {
                    return Err(TableConfigError::StarTreeColumnNotFound(c.clone()));
                }
            }
            for d in &st.dimensions_split_order {
                if self.column(schema, d).is_some_and(|c| !c.single_value) {
                    return Err(TableConfigError::StarTreeMultiValueDimension(d.clone()));
                }
            }
        }
        Ok(())
    }

    fn validate_timestamp_sorted_and_partition(
        &self,
        schema: &Schema,
    ) -> Result<(), TableConfigError> {
        for f in self
            .field_configs()
            .iter()
            .filter(|f| f.timestamp_config.is_some())
        {
            let c = schema
                .field(&f.name)
                .ok_or_else(|| TableConfigError::ColumnNotFound(f.name.clone()))?;
            if c.data_type.stored() != StoredType::Long {
                return Err(TableConfigError::TimestampIndexOnWrongType(f.name.clone()));
            }
            if !c.single_value_field {
                return Err(TableConfigError::TimestampIndexOnMultiValue(f.name.clone()));
            }
        }
        for c in self
            .table_index_config
            .sorted_column
            .iter()
            .flatten()
            .filter(|c| !c.is_empty())
        {
            let spec = self
                .column(schema, c)
                .ok_or_else(|| TableConfigError::SortedColumnNotFound(c.clone()))?;
            if !spec.single_value {
                return Err(TableConfigError::SortedColumnMultiValue(c.clone()));
            }
        }
        let partitions = self.table_index_config.segment_partition_config.iter();
        for c in partitions.flat_map(|p| p.column_partition_map.keys()) {
            let spec = self
                .column(schema, c)
                .ok_or_else(|| TableConfigError::PartitionColumnNotFound(c.to_string()))?;
            if !spec.single_value {
                return Err(TableConfigError::PartitionColumnMultiValue(c.to_string()));
            }
        }
        Ok(())
    }

    fn validate_upsert_and_dedup(&self, schema: &Schema) -> Result<(), TableConfigError> {
        let upsert = self.is_upsert_enabled();
        let dedup = self.is_dedup_enabled();
        if !upsert && !dedup {
            return Ok(());
        }
        if upsert && dedup {
            return Err(TableConfigError::UpsertAndDedup);
        }
        if self.table_type != TableType::Realtime {
            return Err(TableConfigError::UpsertNotRealtime);
        }
        if schema.primary_key_columns.is_empty() {
            return Err(TableConfigError::UpsertWithoutPrimaryKey);
        }
        if !self
            .routing
            .as_ref()
            .is_some_and(|r| r.is_strict_replica_group())
        {
            return Err(TableConfigError::UpsertRouting);
        }
        if self
            .tenants
            .tag_override_config
            .as_ref()
            .is_some_and(|t| !t.is_null())
        {
            return Err(TableConfigError::UpsertTagOverride);
        }
        let Some(u) = self.upsert_config.as_ref().filter(|_| upsert) else {
            return Ok(());
        };
        let ic = &self.table_index_config;
        if !ic.star_trees().is_empty() || ic.enable_default_star_tree {
            return Err(TableConfigError::UpsertWithStarTree);
        }
        for c in u.comparison_columns.iter().flatten() {
            if schema.field(c).is_none() {
                return Err(TableConfigError::UpsertComparisonColumnNotFound);
            }
        }
        if let Some(c) = &u.delete_record_column {
            let spec = schema
                .field(c)
                .ok_or(TableConfigError::UpsertDeleteColumnNotFound)?;
            if !spec.single_value_field {
                return Err(TableConfigError::UpsertDeleteColumnMultiValue);
            }
            if matches!(
                spec.data_type,
                DataType::Json | DataType::Bytes | DataType::Timestamp | DataType::Map
            ) {
                return Err(TableConfigError::UpsertDeleteColumnType);
            }
        }
        let aggregating = ic.aggregate_metrics
            || self.ingestion_config.as_ref().is_some_and(|i| {
                i.aggregation_configs
                    .as_ref()
                    .is_some_and(|a| !a.is_empty())
            });
        if aggregating {
            return Err(TableConfigError::AggregationWithUpsert);
        }
        Ok(())
    }
}

fn is_numeric_storage(stored: StoredType) -> bool {
    matches!(
        stored,
        StoredType::Int
            | StoredType::Long
            | StoredType::Float
            | StoredType::Double
            | StoredType::BigDecimal
    )
}

/// A list as Java's `List#toString` prints it: `[a, b]`.
fn java_list(items: &[String]) -> String {
    format!("[{}]", items.join(", "))
}
