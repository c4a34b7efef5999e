//! [`TableConfig`]: the top-level table config document, its parsing (bare or wrapped in
//! `{"OFFLINE": …}`), Pinot's output shape, and the lookups other crates need.

use super::coerce;
use super::error::TableConfigError;
use super::field_config::FieldConfig;
use super::indexing::IndexingConfig;
use super::ingestion::{BatchIngestionConfig, IngestionConfig, StreamIngestionConfig};
use super::metadata::TableCustomConfig;
use super::quota::QuotaConfig;
use super::routing::RoutingConfig;
use super::segments_config::SegmentsConfig;
use super::stream::StreamConfig;
use super::table_type::{TableType, raw_table_name};
use super::tenants::TenantConfig;
use super::tier::TierConfig;
use super::unrecognized::unrecognized_properties;
use super::upsert::{DedupConfig, UpsertConfig};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value as Json};

/// A table config. Fields are declared in the order Pinot writes them; `tableName` always
/// carries the type suffix.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TableConfig {
    /// `<raw>_OFFLINE` / `<raw>_REALTIME`.
    pub table_name: String,
    pub table_type: TableType,
    pub segments_config: SegmentsConfig,
    pub tenants: TenantConfig,
    pub table_index_config: IndexingConfig,
    /// Always written; an absent `metadata` reads as `{"customConfigs": {}}`.
    pub metadata: TableCustomConfig,
    /// `{"storage": "10G", "maxQueriesPerSecond": "100.0"}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quota: Option<QuotaConfig>,
    /// Opaque (`{"taskTypeConfigsMap": {…}}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing: Option<RoutingConfig>,
    /// Opaque query settings (timeouts, expression overrides).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<Json>,
    /// Opaque, keyed by `OFFLINE`/`CONSUMING`/`COMPLETED`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_assignment_config_map: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field_config_list: Option<Vec<FieldConfig>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upsert_config: Option<UpsertConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dedup_config: Option<DedupConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dimension_table_config: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ingestion_config: Option<IngestionConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier_configs: Option<Vec<TierConfig>>,
    /// Always written.
    pub is_dim_table: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tuner_configs: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_partitions_map: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment_assignment_config_map: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_samplers: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_materialized_view: Option<bool>,
    #[serde(skip_serializing_if = "coerce::is_empty_str")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "coerce::is_empty_list")]
    pub tags: Option<Vec<String>>,
}

/// The input shape: everything optional, so missing mandatory keys get Pinot's messages.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TableConfigJson {
    #[serde(default, deserialize_with = "coerce::opt_string")]
    table_name: Option<String>,
    #[serde(default, deserialize_with = "coerce::opt_string")]
    table_type: Option<String>,
    #[serde(default)]
    segments_config: Option<SegmentsConfig>,
    #[serde(default)]
    tenants: Option<TenantConfig>,
    #[serde(default)]
    table_index_config: Option<IndexingConfig>,
    #[serde(default)]
    metadata: Option<TableCustomConfig>,
    #[serde(default)]
    quota: Option<QuotaConfig>,
    #[serde(default)]
    task: Option<Json>,
    #[serde(default)]
    routing: Option<RoutingConfig>,
    #[serde(default)]
    query: Option<Json>,
    #[serde(default)]
    instance_assignment_config_map: Option<Json>,
    #[serde(default)]
    field_config_list: Option<Vec<FieldConfig>>,
    #[serde(default)]
    upsert_config: Option<UpsertConfig>,
    #[serde(default)]
    dedup_config: Option<DedupConfig>,
    #[serde(default)]
    dimension_table_config: Option<Json>,
    #[serde(default)]
    ingestion_config: Option<IngestionConfig>,
    #[serde(default)]
    tier_configs: Option<Vec<TierConfig>>,
    #[serde(default, deserialize_with = "coerce::bool_or_false")]
    is_dim_table: bool,
    #[serde(default)]
    tuner_configs: Option<Json>,
    #[serde(default)]
    instance_partitions_map: Option<Json>,
    #[serde(default)]
    segment_assignment_config_map: Option<Json>,
    #[serde(default)]
    table_samplers: Option<Json>,
    #[serde(default, deserialize_with = "coerce::opt_bool")]
    is_materialized_view: Option<bool>,
    #[serde(default, deserialize_with = "coerce::opt_string")]
    description: Option<String>,
    #[serde(default, deserialize_with = "coerce::opt_string_list")]
    tags: Option<Vec<String>>,
}

/// A parsed config with the unknown keys Pinot would report for it.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedTableConfig {
    pub config: TableConfig,
    /// `"/tableIndexConfig/fooBar" → value`; the body of `unrecognizedProperties`.
    pub unrecognized_properties: Map<String, Json>,
}

/// Drops JSON nulls from an opaque value (Pinot's `NON_NULL` inclusion).
fn present(value: Option<Json>) -> Option<Json> {
    value.filter(|v| !v.is_null())
}

/// If `obj` is a config wrapped as `{"OFFLINE": {...}}`, its type and the inner config.
fn unwrap_wrapped(
    obj: Map<String, Json>,
) -> Result<(Map<String, Json>, Option<TableType>), TableConfigError> {
    let wrapped = !obj.contains_key("tableName")
        && !obj.is_empty()
        && obj
            .iter()
            .all(|(k, v)| TableType::parse(k).is_some() && v.is_object());
    if !wrapped {
        return Ok((obj, None));
    }
    if obj.len() > 1 {
        return Err(TableConfigError::AmbiguousWrapper);
    }
    let Some((key, Json::Object(inner))) = obj.into_iter().next() else {
        return Err(TableConfigError::AmbiguousWrapper);
    };
    Ok((inner, TableType::parse(&key)))
}

impl TableConfig {
    /// A config with only the mandatory parts: `{"tableName", "tableType", "segmentsConfig": {},
    /// "tenants": {}, "tableIndexConfig": {}}` with Pinot's defaults.
    pub fn new(name: &str, table_type: TableType) -> TableConfig {
        TableConfig {
            table_name: table_type.table_name_with_type(name),
            table_type,
            segments_config: SegmentsConfig::default(),
            tenants: TenantConfig::default(),
            table_index_config: IndexingConfig::default(),
            metadata: TableCustomConfig::default(),
            quota: None,
            task: None,
            routing: None,
            query: None,
            instance_assignment_config_map: None,
            field_config_list: None,
            upsert_config: None,
            dedup_config: None,
            dimension_table_config: None,
            ingestion_config: None,
            tier_configs: None,
            is_dim_table: false,
            tuner_configs: None,
            instance_partitions_map: None,
            segment_assignment_config_map: None,
            table_samplers: None,
            is_materialized_view: None,
            description: None,
            tags: None,
        }
    }

    /// Parses config JSON text (bare or wrapped) and reports unknown keys.
    pub fn parse(text: &str) -> Result<ParsedTableConfig, TableConfigError> {
        let value: Json = serde_json::from_str(text)?;
        TableConfig::parse_value(value)
    }

    /// [`TableConfig::parse`] for an already-parsed JSON value.
    pub fn parse_value(value: Json) -> Result<ParsedTableConfig, TableConfigError> {
        let obj = match value {
            Json::Object(m) => m,
            other => return Err(TableConfigError::NotAnObject(coerce::kind(&other))),
        };
        let (inner, wrapper) = unwrap_wrapped(obj)?;
        let inner = Json::Object(inner);
        let config = TableConfig::from_object(inner.clone(), wrapper)?;
        let unrecognized_properties = unrecognized_properties(&inner, &config.to_json());
        Ok(ParsedTableConfig {
            config,
            unrecognized_properties,
        })
    }

    /// Parses config JSON text, ignoring unknown keys.
    pub fn from_json(text: &str) -> Result<TableConfig, TableConfigError> {
        TableConfig::parse(text).map(|p| p.config)
    }

    /// Parses a config JSON value (bare or wrapped), ignoring unknown keys.
    pub fn from_value(value: Json) -> Result<TableConfig, TableConfigError> {
        let obj = match value {
            Json::Object(m) => m,
            other => return Err(TableConfigError::NotAnObject(coerce::kind(&other))),
        };
        let (inner, wrapper) = unwrap_wrapped(obj)?;
        TableConfig::from_object(Json::Object(inner), wrapper)
    }

    /// Parses the wrapped form holding one or both types (`GET /tables/{name}`'s shape),
    /// OFFLINE first; a bare config gives a single element.
    pub fn list_from_value(value: Json) -> Result<Vec<TableConfig>, TableConfigError> {
        match value {
            Json::Object(m)
                if m.len() > 1
                    && m.iter()
                        .all(|(k, v)| TableType::parse(k).is_some() && v.is_object()) =>
            {
                let mut out = Vec::new();
                for t in TableType::ALL {
                    if let Some((_, v)) = m.iter().find(|(k, _)| TableType::parse(k) == Some(t)) {
                        out.push(TableConfig::from_object(v.clone(), Some(t))?);
                    }
                }
                if out.len() != m.len() {
                    return Err(TableConfigError::AmbiguousWrapper);
                }
                Ok(out)
            }
            other => Ok(vec![TableConfig::from_value(other)?]),
        }
    }

    /// The constructor checks of Pinot's `TableConfig`, in Pinot's order.
    fn from_object(
        value: Json,
        wrapper: Option<TableType>,
    ) -> Result<TableConfig, TableConfigError> {
        let j: TableConfigJson = serde_json::from_value(value)?;
        let name = j
            .table_name
            .ok_or(TableConfigError::MissingKey("tableName"))?;
        if name.contains("__") {
            return Err(TableConfigError::DoubleUnderscoreInName);
        }
        let type_text = j
            .table_type
            .or_else(|| wrapper.map(|w| w.name().to_string()))
            .ok_or(TableConfigError::MissingKey("tableType"))?;
        let segments_config = j
            .segments_config
            .ok_or(TableConfigError::MissingKey("segmentsConfig"))?;
        let tenants = j.tenants.ok_or(TableConfigError::MissingKey("tenants"))?;
        let table_index_config = j
            .table_index_config
            .ok_or(TableConfigError::MissingKey("tableIndexConfig"))?;
        let table_type = TableType::parse(&type_text)
            .ok_or_else(|| TableConfigError::InvalidTableType(type_text.to_uppercase()))?;
        if let Some(w) = wrapper.filter(|w| *w != table_type) {
            return Err(TableConfigError::WrapperTypeMismatch {
                wrapper: w.name().to_string(),
                inner: table_type.name().to_string(),
            });
        }
        Ok(TableConfig {
            table_name: table_type.table_name_with_type(&name),
            table_type,
            segments_config,
            tenants,
            table_index_config,
            metadata: j.metadata.unwrap_or_default(),
            quota: j.quota,
            task: present(j.task),
            routing: j.routing,
            query: present(j.query),
            instance_assignment_config_map: present(j.instance_assignment_config_map),
            field_config_list: j.field_config_list,
            upsert_config: j.upsert_config,
            dedup_config: j.dedup_config,
            dimension_table_config: present(j.dimension_table_config),
            ingestion_config: j.ingestion_config,
            tier_configs: j.tier_configs,
            is_dim_table: j.is_dim_table,
            tuner_configs: present(j.tuner_configs),
            instance_partitions_map: present(j.instance_partitions_map),
            segment_assignment_config_map: present(j.segment_assignment_config_map),
            table_samplers: present(j.table_samplers),
            is_materialized_view: j.is_materialized_view,
            description: j.description,
            tags: j.tags,
        })
    }

    /// Pinot's JSON for this config (nulls omitted, primitives always present).
    pub fn to_json(&self) -> Json {
        serde_json::to_value(self).unwrap_or(Json::Null)
    }

    /// Compact JSON text.
    pub fn to_json_string(&self) -> String {
        self.to_json().to_string()
    }

    /// Pretty JSON text (two-space indent, as Pinot's pretty printer).
    pub fn to_pretty_json_string(&self) -> String {
        serde_json::to_string_pretty(&self.to_json()).unwrap_or_default()
    }

    /// `{"OFFLINE": {...}}` / `{"REALTIME": {...}}`.
    pub fn to_wrapped_json(&self) -> Json {
        TableConfig::wrap(std::slice::from_ref(self))
    }

    /// The wrapped form of several configs (one per type, as `GET /tables/{name}` returns
    /// them), OFFLINE first.
    pub fn wrap(configs: &[TableConfig]) -> Json {
        let mut out = Map::new();
        for t in TableType::ALL {
            for c in configs.iter().filter(|c| c.table_type == t) {
                out.insert(t.name().to_string(), c.to_json());
            }
        }
        Json::Object(out)
    }

    /// The name without type suffix (`airlineStats`).
    pub fn raw_table_name(&self) -> &str {
        raw_table_name(&self.table_name)
    }

    /// The typed name (`airlineStats_OFFLINE`).
    pub fn table_name_with_type(&self) -> &str {
        &self.table_name
    }

    /// `segmentsConfig.timeColumnName`, when set and non-empty.
    pub fn time_column(&self) -> Option<&str> {
        self.segments_config
            .time_column_name
            .as_deref()
            .filter(|c| !c.is_empty())
    }

    /// Replication as Pinot computes it (`TableConfig#getReplication`): REALTIME tables use
    /// `replicasPerPartition` when set. Unset or unparsable values count as 1 (validation
    /// rejects unparsable ones).
    pub fn replication(&self) -> u32 {
        let s = &self.segments_config;
        let text = match self.table_type {
            TableType::Realtime => s
                .replicas_per_partition
                .as_deref()
                .or(s.replication.as_deref()),
            TableType::Offline => s.replication.as_deref(),
        };
        text.and_then(|t| t.trim().parse().ok()).unwrap_or(1)
    }

    /// All field configs (empty when none).
    pub fn field_configs(&self) -> &[FieldConfig] {
        self.field_config_list.as_deref().unwrap_or_default()
    }

    /// The field config of one column.
    pub fn field_config(&self, column: &str) -> Option<&FieldConfig> {
        self.field_configs().iter().find(|f| f.name == column)
    }

    /// All tier configs (empty when none).
    pub fn tiers(&self) -> &[TierConfig] {
        self.tier_configs.as_deref().unwrap_or_default()
    }

    /// Whether upsert is configured with a mode other than `NONE`.
    pub fn is_upsert_enabled(&self) -> bool {
        self.upsert_config
            .as_ref()
            .is_some_and(UpsertConfig::enabled)
    }

    /// Whether `dedupConfig.dedupEnabled` is true.
    pub fn is_dedup_enabled(&self) -> bool {
        self.dedup_config.as_ref().is_some_and(|d| d.dedup_enabled)
    }

    /// The batch ingestion type (`APPEND`/`REFRESH`): from `ingestionConfig` first, else the
    /// legacy `segmentsConfig.segmentPushType`.
    pub fn batch_ingestion_type(&self) -> Option<&str> {
        self.ingestion_config
            .as_ref()
            .and_then(|i| i.batch_ingestion_config.as_ref())
            .and_then(|b| b.segment_ingestion_type.as_deref())
            .or(self.segments_config.segment_push_type.as_deref())
    }

    /// The batch push frequency (`HOURLY`/`DAILY`): from `ingestionConfig` first, else the
    /// legacy `segmentsConfig.segmentPushFrequency`.
    pub fn batch_ingestion_frequency(&self) -> Option<&str> {
        self.ingestion_config
            .as_ref()
            .and_then(|i| i.batch_ingestion_config.as_ref())
            .and_then(|b| b.segment_ingestion_frequency.as_deref())
            .or(self.segments_config.segment_push_frequency.as_deref())
    }

    /// The stream config maps: `ingestionConfig.streamIngestionConfig.streamConfigMaps`, else
    /// the legacy `tableIndexConfig.streamConfigs` (empty when neither is set).
    pub fn stream_config_maps(&self) -> Vec<&Map<String, Json>> {
        let from_ingestion = self
            .ingestion_config
            .as_ref()
            .and_then(|i| i.stream_ingestion_config.as_ref());
        match from_ingestion {
            Some(s) => s.stream_config_maps.iter().flatten().collect(),
            None => self.table_index_config.stream_configs.iter().collect(),
        }
    }

    /// The stream configs of a REALTIME table, checked as Pinot's `StreamConfig` does.
    pub fn stream_configs(&self) -> Result<Vec<StreamConfig<'_>>, TableConfigError> {
        let maps = self.stream_config_maps();
        if maps.is_empty() && self.stream_ingestion_config().is_none() {
            return Err(TableConfigError::StreamConfigsNotFound(
                self.table_name.clone(),
            ));
        }
        maps.into_iter()
            .map(|m| StreamConfig::new(m).map_err(TableConfigError::StreamConfig))
            .collect()
    }

    fn stream_ingestion_config(&self) -> Option<&StreamIngestionConfig> {
        self.ingestion_config
            .as_ref()?
            .stream_ingestion_config
            .as_ref()
    }

    /// Moves legacy settings to their current homes, as Pinot's controller does before storing
    /// a config (`TableConfigUtils#convertFromLegacyTableConfig`): `segmentPushType`/
    /// `segmentPushFrequency` into `ingestionConfig.batchIngestionConfig`, and
    /// `tableIndexConfig.streamConfigs` into `ingestionConfig.streamIngestionConfig`.
    pub fn convert_from_legacy(&mut self) {
        let push_type = self.segments_config.segment_push_type.take();
        let push_frequency = self.segments_config.segment_push_frequency.take();
        let stream_configs = self.table_index_config.stream_configs.take();
        let mut batch = self
            .ingestion_config
            .as_mut()
            .and_then(|i| i.batch_ingestion_config.take());
        match batch.as_mut() {
            None if push_type.is_some() || push_frequency.is_some() => {
                batch = Some(BatchIngestionConfig {
                    segment_ingestion_type: push_type,
                    segment_ingestion_frequency: push_frequency,
                    ..BatchIngestionConfig::default()
                });
            }
            Some(b) => {
                if b.segment_ingestion_type.is_none() {
                    b.segment_ingestion_type = push_type;
                }
                if b.segment_ingestion_frequency.is_none() {
                    b.segment_ingestion_frequency = push_frequency;
                }
            }
            None => {}
        }
        let mut stream = self
            .ingestion_config
            .as_mut()
            .and_then(|i| i.stream_ingestion_config.take());
        if stream.is_none() {
            stream = stream_configs
                .filter(|m| !m.is_empty())
                .map(|m| StreamIngestionConfig {
                    stream_config_maps: Some(vec![m]),
                    ..StreamIngestionConfig::default()
                });
        }
        match self.ingestion_config.as_mut() {
            Some(i) => {
                i.batch_ingestion_config = batch;
                i.stream_ingestion_config = stream;
            }
            None if batch.is_some() || stream.is_some() => {
                self.ingestion_config = Some(IngestionConfig {
                    batch_ingestion_config: batch,
                    stream_ingestion_config: stream,
                    ..IngestionConfig::default()
                });
            }
            None => {}
        }
    }
}

impl<'de> Deserialize<'de> for TableConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        TableConfig::from_value(Json::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn minimal() -> Json {
        json!({"tableName": "t", "tableType": "offline", "segmentsConfig": {}, "tenants": {},
               "tableIndexConfig": {}})
    }

    #[test]
    fn minimal_config_is_written_with_pinot_defaults() {
        let c = TableConfig::from_value(minimal()).unwrap();
        assert_eq!(c, TableConfig::new("t", TableType::Offline));
        let out = c.to_json_string();
        assert_eq!(
            out,
            r#"{"tableName":"t_OFFLINE","tableType":"OFFLINE","segmentsConfig":{"minimizeDataMovement":false},"tenants":{},"tableIndexConfig":{"rangeIndexVersion":2,"autoGeneratedInvertedIndex":false,"createInvertedIndexDuringSegmentGeneration":false,"enableDefaultStarTree":false,"enableDynamicStarTreeCreation":false,"aggregateMetrics":false,"nullHandlingEnabled":false,"optimizeDictionary":false,"optimizeDictionaryForMetrics":false,"noDictionarySizeRatioThreshold":0.85},"metadata":{"customConfigs":{}},"isDimTable":false}"#
        );
        assert_eq!(c.raw_table_name(), "t");
        assert_eq!(c.table_name_with_type(), "t_OFFLINE");
        assert_eq!(c.to_wrapped_json()["OFFLINE"]["tableName"], "t_OFFLINE");
    }

    #[test]
    fn required_keys_in_pinot_order() {
        for (key, message) in [
            ("tableName", "'tableName' must be configured"),
            ("tableType", "'tableType' must be configured"),
            ("segmentsConfig", "'segmentsConfig' must be configured"),
            ("tenants", "'tenants' must be configured"),
            ("tableIndexConfig", "'tableIndexConfig' must be configured"),
        ] {
            let mut v = minimal();
            v.as_object_mut().map(|o| o.remove(key));
            assert_eq!(TableConfig::from_value(v).unwrap_err().to_string(), message);
            let mut null = minimal();
            null[key] = Json::Null;
            assert_eq!(
                TableConfig::from_value(null).unwrap_err().to_string(),
                message
            );
        }
        let mut dunder = minimal();
        dunder["tableName"] = json!("a__b");
        assert_eq!(
            TableConfig::from_value(dunder).unwrap_err().to_string(),
            "'tableName' cannot contain double underscore ('__')"
        );
        let mut bad_type = minimal();
        bad_type["tableType"] = json!("hybrid");
        assert_eq!(
            TableConfig::from_value(bad_type).unwrap_err().to_string(),
            "No enum constant org.apache.pinot.spi.config.table.TableType.HYBRID"
        );
        assert!(matches!(
            TableConfig::from_value(json!([1])),
            Err(TableConfigError::NotAnObject(_))
        ));
        assert!(matches!(
            TableConfig::from_json("{"),
            Err(TableConfigError::Json(_))
        ));
    }

    #[test]
    fn wrapped_forms() {
        let wrapped = json!({"REALTIME": {"tableName": "t_REALTIME", "segmentsConfig": {},
                                          "tenants": {}, "tableIndexConfig": {}}});
        let c = TableConfig::from_value(wrapped).unwrap();
        assert_eq!(
            (c.table_type, c.table_name.as_str()),
            (TableType::Realtime, "t_REALTIME")
        );
        let mismatch = json!({"OFFLINE": minimal_with_type("REALTIME")});
        assert_eq!(
            TableConfig::from_value(mismatch).unwrap_err(),
            TableConfigError::WrapperTypeMismatch {
                wrapper: "OFFLINE".into(),
                inner: "REALTIME".into()
            }
        );
        let both = json!({"REALTIME": minimal_with_type("REALTIME"), "OFFLINE": minimal()});
        assert_eq!(
            TableConfig::from_value(both.clone()).unwrap_err(),
            TableConfigError::AmbiguousWrapper
        );
        let list = TableConfig::list_from_value(both).unwrap();
        assert_eq!(
            list.iter().map(|c| c.table_type).collect::<Vec<_>>(),
            TableType::ALL.to_vec()
        );
        let rewrapped = TableConfig::wrap(&list);
        assert_eq!(
            rewrapped.as_object().unwrap().keys().collect::<Vec<_>>(),
            vec!["OFFLINE", "REALTIME"]
        );
        assert_eq!(TableConfig::list_from_value(minimal()).unwrap().len(), 1);
    }

    fn minimal_with_type(t: &str) -> Json {
        let mut v = minimal();
        v["tableType"] = json!(t);
        v
    }

    #[test]
    fn unknown_keys_are_reported_with_paths() {
        let mut v = minimal();
        v["fooBar"] = json!(1);
        v["tableIndexConfig"]["invertedIndexColumnz"] = json!(["a"]);
        v["segmentsConfig"]["replication"] = json!(3);
        v["quota"] = Json::Null;
        let parsed = TableConfig::parse_value(v).unwrap();
        assert_eq!(
            Json::Object(parsed.unrecognized_properties),
            json!({"/fooBar": 1, "/tableIndexConfig/invertedIndexColumnz/0": "a", "/quota": null})
        );
        assert_eq!(
            parsed.config.segments_config.replication.as_deref(),
            Some("3")
        );
    }

    #[test]
    fn replication_and_streams() {
        let mut c = TableConfig::new("t", TableType::Realtime);
        c.segments_config.replication = Some("2".into());
        c.segments_config.replicas_per_partition = Some("3".into());
        assert_eq!(c.replication(), 3);
        assert_eq!(
            c.stream_configs().unwrap_err(),
            TableConfigError::StreamConfigsNotFound("t_REALTIME".into())
        );
        c.table_index_config.stream_configs = json!({"streamType": "kafka"}).as_object().cloned();
        assert!(matches!(
            c.stream_configs(),
            Err(TableConfigError::StreamConfig(_))
        ));
    }

    #[test]
    fn legacy_settings_move_into_ingestion_config() {
        let mut c = TableConfig::new("t", TableType::Realtime);
        c.segments_config.segment_push_type = Some("APPEND".into());
        c.table_index_config.stream_configs = json!({"streamType": "kafka"}).as_object().cloned();
        c.convert_from_legacy();
        assert_eq!(c.segments_config.segment_push_type, None);
        assert_eq!(c.table_index_config.stream_configs, None);
        assert_eq!(c.batch_ingestion_type(), Some("APPEND"));
        let out = c.to_json();
        assert_eq!(
            out["ingestionConfig"],
            json!({"batchIngestionConfig": {"segmentIngestionType": "APPEND"},
                   "streamIngestionConfig": {"streamConfigMaps": [{"streamType": "kafka"}]},
                   "continueOnError": false, "rowTimeValueCheck": false, "segmentTimeValueCheck": true})
        );
        let mut plain = TableConfig::new("t", TableType::Offline);
        plain.convert_from_legacy();
        assert_eq!(plain, TableConfig::new("t", TableType::Offline));
    }

    #[test]
    fn serde_deserialize_goes_through_the_same_checks() {
        let c: TableConfig = serde_json::from_value(minimal()).unwrap();
        assert_eq!(c.table_name, "t_OFFLINE");
        let err =
            serde_json::from_value::<TableConfig>(json!({"tableType": "OFFLINE"})).unwrap_err();
        assert_eq!(err.to_string(), "'tableName' must be configured");
    }
}
