//! Whole-config tests: Pinot's own example configs (`testdata/configs/`) parse unchanged,
//! round-trip and validate against their schemas; every validation message is produced by a
//! config that should produce it; and write → read → write is a fixed point for generated
//! configs (proptest).

use super::unrecognized::leaves;
use super::*;
use crate::types::Schema;
use proptest::prelude::*;
use serde_json::{Map, Value as Json, json};
use std::error::Error as _;

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/configs")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn schema(name: &str) -> Schema {
    Schema::from_json(&fixture(name)).unwrap()
}

/// Parses `text`, checks nothing is unrecognized, that every input leaf survives (except the
/// listed paths, whose values Pinot also rewrites), and that writing is a fixed point.
fn round_trip(text: &str, rewritten: &[&str]) -> TableConfig {
    let parsed = TableConfig::parse(text).unwrap();
    assert!(
        parsed.unrecognized_properties.is_empty(),
        "{:?}",
        parsed.unrecognized_properties
    );
    let input: Json = serde_json::from_str(text).unwrap();
    let input = match input.get("OFFLINE").or(input.get("REALTIME")) {
        Some(inner) => inner.clone(),
        None => input,
    };
    let output = parsed.config.to_json();
    for (path, value) in leaves(&input) {
        if !rewritten.contains(&path.as_str()) {
            assert_eq!(output.pointer(&path), Some(value), "{path}");
        }
    }
    let again = TableConfig::parse_value(output.clone()).unwrap();
    assert!(again.unrecognized_properties.is_empty());
    assert_eq!(again.config, parsed.config);
    assert_eq!(
        again.config.to_json_string(),
        parsed.config.to_json_string()
    );
    parsed.config
}

#[test]
fn airline_stats_offline_example() {
    let c = round_trip(
        &fixture("airlineStats_offline_table_config.json"),
        &["/tableName"],
    );
    assert_eq!(c.table_name, "airlineStats_OFFLINE");
    assert_eq!(c.raw_table_name(), "airlineStats");
    let st = &c.table_index_config.star_trees()[0];
    assert_eq!(st.effective_max_leaf_records(), 10);
    let pairs = st.function_column_pairs().unwrap();
    assert_eq!(
        pairs.iter().map(|p| p.to_column_name()).collect::<Vec<_>>(),
        ["count__*", "max__ArrDelay"]
    );
    assert_eq!(c.tiers().len(), 2);
    assert!(c.column_indexes("ArrTimeBlk").inverted);
    assert_eq!(c.column_indexes("ts").timestamp.len(), 3);
    let out = c.to_json();
    assert_eq!(out["fieldConfigList"][0]["indexType"], "TIMESTAMP");
    assert_eq!(out["tableIndexConfig"]["rangeIndexVersion"], 2);
    assert_eq!(out["ingestionConfig"]["segmentTimeValueCheck"], true);
    assert_eq!(out["isDimTable"], false);
    c.validate(&schema("airlineStats_schema.json")).unwrap();
}

#[test]
fn baseball_stats_offline_example() {
    let c = round_trip(
        &fixture("baseballStats_offline_table_config.json"),
        &["/tableName"],
    );
    assert_eq!(c.table_index_config.load_mode(), LoadMode::Heap);
    assert_eq!(c.time_column(), None);
    c.validate(&schema("baseballStats_schema.json")).unwrap();
}

#[test]
fn airline_stats_realtime_example() {
    let c = round_trip(
        &fixture("airlineStats_realtime_table_config.json"),
        &["/tableName"],
    );
    let streams = c.stream_configs().unwrap();
    assert_eq!(streams[0].topic_name(), "flights-realtime");
    assert_eq!(streams[0].flush_threshold_rows(), 50_000);
    assert_eq!(c.segments_config.retention_millis(), Some(5 * 86_400_000));
    assert!(c.routing.as_ref().unwrap().has_pruner("time"));
    // The realtime example shares the batch example's columns (`ts`, `DaysSinceEpoch`).
    c.validate(&schema("airlineStats_schema.json")).unwrap();
}

#[test]
fn upsert_meetup_rsvp_example() {
    let rewritten = [
        "/tableName",
        "/tableIndexConfig/streamConfigs/realtime.segment.flush.threshold.size",
        "/tableIndexConfig/streamConfigs/realtime.segment.flush.threshold.rows",
        "/upsertConfig/enableSnapshot",
        "/upsertConfig/enablePreload",
    ];
    let mut c = round_trip(
        &fixture("upsertMeetupRsvp_realtime_table_config.json"),
        &rewritten,
    );
    let out = c.to_json();
    assert_eq!(out["upsertConfig"]["enableSnapshot"], true);
    assert_eq!(
        out["tableIndexConfig"]["streamConfigs"]["realtime.segment.flush.threshold.rows"],
        "30"
    );
    assert_eq!(out["fieldConfigList"][0]["indexTypes"], json!(["H3"]));
    assert_eq!(c.replication(), 1);
    assert!(c.is_upsert_enabled());
    assert!(c.column_indexes("location").h3);
    c.validate(&schema("upsertMeetupRsvp_schema.json")).unwrap();
    c.convert_from_legacy();
    assert_eq!(
        c.stream_configs().unwrap()[0].topic_name(),
        "upsertMeetupRSVPEvents"
    );
    c.validate(&schema("upsertMeetupRsvp_schema.json")).unwrap();
}

#[test]
fn spec_example_round_trips_exactly() {
    let text = fixture("spec_example_wrapped.json");
    let c = round_trip(&text, &[]);
    let input: Json = serde_json::from_str(&text).unwrap();
    assert_eq!(c.to_wrapped_json(), input);
    c.validate(&schema("airlineStats_schema.json")).unwrap();
}

#[test]
fn unrecognized_properties_are_reported() {
    let mut v: Json =
        serde_json::from_str(&fixture("airlineStats_offline_table_config.json")).unwrap();
    v["tableIndexConfig"]["fooBar"] = json!({"x": [true]});
    v["fieldConfigList"][1]["encodingTypo"] = json!("RAW");
    v["tierConfigs"][0]["ageInDays"] = json!(3);
    v["ingestionConfig"]["transformConfigs"][0]["fn"] = json!("f(x)");
    v["segmentsConfig"]["retentionTimeUnits"] = json!("DAYS");
    v["unknownTopLevel"] = json!("x");
    let parsed = TableConfig::parse(&v.to_string()).unwrap();
    assert_eq!(
        Json::Object(parsed.unrecognized_properties),
        json!({
            "/segmentsConfig/retentionTimeUnits": "DAYS",
            "/fieldConfigList/1/encodingTypo": "RAW",
            "/tableIndexConfig/fooBar/x/0": true,
            "/ingestionConfig/transformConfigs/0/fn": "f(x)",
            "/tierConfigs/0/ageInDays": 3,
            "/unknownTopLevel": "x"
        })
    );
    // Unknown keys are dropped from the written config.
    assert!(
        parsed.config.to_json()["tableIndexConfig"]
            .get("fooBar")
            .is_none()
    );
}

// ---- validation messages ---------------------------------------------------------------------

const SCHEMA: &str = r#"{
  "schemaName": "t",
  "dimensionFieldSpecs": [
    {"name": "d", "dataType": "STRING"}, {"name": "mv", "dataType": "STRING", "singleValueField": false},
    {"name": "i", "dataType": "INT"}, {"name": "raw", "dataType": "STRING"},
    {"name": "j", "dataType": "JSON"}, {"name": "l", "dataType": "LONG"},
    {"name": "mvl", "dataType": "LONG", "singleValueField": false}, {"name": "flag", "dataType": "BOOLEAN"}
  ],
  "metricFieldSpecs": [{"name": "m", "dataType": "LONG"}],
  "dateTimeFieldSpecs": [
    {"name": "days", "dataType": "INT", "format": "1:DAYS:EPOCH", "granularity": "1:DAYS"},
    {"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:TIMESTAMP", "granularity": "1:MILLISECONDS"}
  ]
}"#;

fn offline() -> Json {
    json!({"tableName": "t", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "days", "replication": "1"},
           "tenants": {}, "tableIndexConfig": {"noDictionaryColumns": ["raw"]}})
}

fn realtime() -> Json {
    json!({"tableName": "t", "tableType": "REALTIME", "segmentsConfig": {"timeColumnName": "days"},
           "tenants": {}, "tableIndexConfig": {"noDictionaryColumns": ["raw"]},
           "ingestionConfig": {"streamIngestionConfig": {"streamConfigMaps": [
               {"streamType": "kafka", "stream.kafka.topic.name": "t", "stream.kafka.decoder.class.name": "d"}]}}})
}

fn upsert() -> Json {
    merge(
        realtime(),
        json!({"upsertConfig": {"mode": "FULL"},
                             "routing": {"instanceSelectorType": "strictReplicaGroup"}}),
    )
}

/// RFC 7396 merge patch: objects merge recursively, `null` removes a key.
fn merge(mut base: Json, patch: Json) -> Json {
    match (&mut base, patch) {
        (Json::Object(b), Json::Object(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    b.remove(&k);
                } else {
                    let merged = merge(b.remove(&k).unwrap_or(Json::Null), v);
                    b.insert(k, merged);
                }
            }
            base
        }
        (_, patch) => patch,
    }
}

fn test_schema(primary_keys: bool) -> Schema {
    let mut s = Schema::from_json(SCHEMA).unwrap();
    if primary_keys {
        s.primary_key_columns = vec!["d".into()];
    }
    s
}

fn validate(config: Json, primary_keys: bool) -> Result<(), TableConfigError> {
    TableConfig::from_value(config)?.validate(&test_schema(primary_keys))
}

#[test]
fn base_configs_are_valid() {
    validate(offline(), false).unwrap();
    validate(realtime(), false).unwrap();
    validate(upsert(), true).unwrap();
    let derived_dimension = merge(
        offline(),
        json!({
            "fieldConfigList": [{"name": "ts", "encodingType": "DICTIONARY",
                                 "timestampConfig": {"granularities": ["DAY"]}}],
            "tableIndexConfig": {"starTreeIndexConfigs": [
                {"dimensionsSplitOrder": ["$ts$DAY", "d"], "functionColumnPairs": ["SUM__m"]}]}
        }),
    );
    validate(derived_dimension, false).unwrap();
}

#[test]
fn every_validation_message() {
    let tier = |patch: Json| {
        let base = json!({"name": "cold", "segmentSelectorType": "time", "segmentAge": "30d",
                          "storageType": "pinot_server", "serverTag": "cold_OFFLINE"});
        merge(offline(), json!({"tierConfigs": [merge(base, patch)]}))
    };
    let star = |patch: Json| {
        let base = json!({"dimensionsSplitOrder": ["d", "i"], "functionColumnPairs": ["COUNT__*", "SUM__m"]});
        merge(
            offline(),
            json!({"tableIndexConfig": {"starTreeIndexConfigs": [merge(base, patch)]}}),
        )
    };
    let index = |patch: Json| merge(offline(), json!({"tableIndexConfig": patch}));
    let fields = |list: Json| merge(offline(), json!({"fieldConfigList": list}));
    let transforms = |list: Json| {
        merge(
            offline(),
            json!({"ingestionConfig": {"transformConfigs": list}}),
        )
    };
    let kafka = |m: Json| {
        merge(
            realtime(),
            json!({"ingestionConfig": {"streamIngestionConfig": {"streamConfigMaps": [m]}}}),
        )
    };
    let cases: Vec<(Json, bool, &str)> = vec![
        // table name and segmentsConfig
        (
            merge(offline(), json!({"tableName": "a.b.c"})),
            false,
            "Table name: 'a.b.c_OFFLINE' containing more than one '.' is not allowed",
        ),
        (
            merge(offline(), json!({"tableName": "a b"})),
            false,
            "Table name: 'a b_OFFLINE' containing space is not allowed",
        ),
        (
            merge(offline(), json!({"tableName": "t_REALTIME"})),
            false,
            "Table name: 't_REALTIME' has a type suffix that does not match tableType: OFFLINE",
        ),
        (
            merge(offline(), json!({"segmentsConfig": {"replication": "two"}})),
            false,
            "'replication' must be a number, found: 'two'",
        ),
        (
            merge(
                realtime(),
                json!({"segmentsConfig": {"replicasPerPartition": "-1"}}),
            ),
            false,
            "'replicasPerPartition' must be a number, found: '-1'",
        ),
        (
            merge(
                realtime(),
                json!({"segmentsConfig": {"timeColumnName": null}}),
            ),
            false,
            "'timeColumnName' cannot be null in REALTIME table config",
        ),
        (
            merge(
                offline(),
                json!({"segmentsConfig": {"timeColumnName": "d"}}),
            ),
            false,
            "Cannot find valid fieldSpec for timeColumn: d from the table config: t_OFFLINE, in the schema: t",
        ),
        (
            merge(
                offline(),
                json!({"segmentsConfig": {"timeColumnName": "nope"}}),
            ),
            false,
            "Cannot find valid fieldSpec for timeColumn: nope from the table config: t_OFFLINE, in the schema: t",
        ),
        (
            merge(realtime(), json!({"isDimTable": true})),
            true,
            "Dimension table must be of OFFLINE table type.",
        ),
        (
            merge(offline(), json!({"isDimTable": true})),
            false,
            "Dimension table must have primary key[s]",
        ),
        (
            merge(
                offline(),
                json!({"isDimTable": true, "ingestionConfig": {}}),
            ),
            true,
            "Dimension tables must have batch ingestion configuration",
        ),
        (
            merge(
                offline(),
                json!({"isDimTable": true,
                                 "ingestionConfig": {"batchIngestionConfig": {"segmentIngestionType": "APPEND"}}}),
            ),
            true,
            "Dimension tables must have segment ingestion type REFRESH",
        ),
        (
            merge(
                offline(),
                json!({"segmentsConfig": {"segmentPushType": "UPSERT"}}),
            ),
            false,
            "Table: t_OFFLINE, invalid push type: UPSERT",
        ),
        (
            merge(
                offline(),
                json!({"segmentsConfig": {"retentionTimeUnit": "WEEKS"}}),
            ),
            false,
            "Table: t_OFFLINE, invalid retention time unit: WEEKS",
        ),
        // ingestion
        (
            transforms(json!([{"columnName": "x"}])),
            false,
            r#"columnName/transformFunction cannot be null in TransformConfig {"columnName":"x"}"#,
        ),
        (
            transforms(
                json!([{"columnName": "ts", "transformFunction": "fromEpochDays(days)"},
                           {"columnName": "ts", "transformFunction": "now()"}]),
            ),
            false,
            "Duplicate transform config found for column 'ts'",
        ),
        (
            transforms(json!([{"columnName": "nope", "transformFunction": "upper(d)"}])),
            false,
            "The destination column 'nope' of the transform function must be present in the schema, be consumed as the input of another transform function, or be a source column for aggregations",
        ),
        (
            transforms(json!([{"columnName": "i", "transformFunction": "plus(i, l)"}])),
            false,
            "Arguments of a transform function '[i, l]' cannot contain the destination column 'i'",
        ),
        (
            merge(
                realtime(),
                json!({"tableIndexConfig": {"streamConfigs": {"streamType": "kafka"}}}),
            ),
            false,
            "Should not use indexingConfig#getStreamConfigs if ingestionConfig#StreamIngestionConfig is provided",
        ),
        (
            merge(
                realtime(),
                json!({"ingestionConfig": {"streamIngestionConfig": {"streamConfigMaps": []}}}),
            ),
            false,
            "Must have at least 1 stream in REALTIME table",
        ),
        (
            merge(realtime(), json!({"ingestionConfig": null})),
            false,
            "Could not find streamConfigs for REALTIME table: t_REALTIME",
        ),
        (
            kafka(json!({"stream.kafka.topic.name": "t"})),
            false,
            "Could not create StreamConfig using the streamConfig map",
        ),
        // tiers
        (
            tier(json!({"name": ""})),
            false,
            "Tier name cannot be blank",
        ),
        (
            merge(
                offline(),
                json!({"tierConfigs": [
            {"name": "a", "segmentSelectorType": "fixed", "storageType": "pinot_server", "serverTag": "x_OFFLINE"},
            {"name": "a", "segmentSelectorType": "fixed", "storageType": "pinot_server", "serverTag": "x_OFFLINE"}]}),
            ),
            false,
            "Tier name: a already exists in tier configs",
        ),
        (
            tier(json!({"segmentAge": null})),
            false,
            "Must provide 'segmentAge' for segmentSelectorType: time in tier: cold",
        ),
        (
            tier(json!({"segmentAge": "30 days"})),
            false,
            "segmentAge: 30 days must be a valid period string (eg. 30d, 24h) in tier: cold",
        ),
        (
            tier(json!({"segmentSelectorType": "size"})),
            false,
            "Unsupported segmentSelectorType: size in tier: cold",
        ),
        (
            tier(json!({"storageType": "s3"})),
            false,
            "Unsupported storageType: s3 in tier: cold",
        ),
        (
            tier(json!({"serverTag": null})),
            false,
            "Must provide 'serverTag' for storageType: pinot_server in tier: cold",
        ),
        (
            tier(json!({"serverTag": "cold"})),
            false,
            "serverTag: cold must have a valid server tag format (<tenantName>_OFFLINE or <tenantName>_REALTIME) in tier: cold",
        ),
        // field configs and index lists
        (
            fields(json!([{"name": "d"}, {"name": "d"}])),
            false,
            "Duplicate FieldConfig for column: d",
        ),
        (
            fields(json!([{"name": "nope"}])),
            false,
            "Failed to find column: nope in schema",
        ),
        (
            fields(json!([{"name": "raw", "encodingType": "DICTIONARY"}])),
            false,
            "FieldConfig encoding type is different from indexingConfig for column: raw",
        ),
        (
            index(json!({"invertedIndexColumns": ["nope"]})),
            false,
            "Failed to find column: nope in schema",
        ),
        (
            index(json!({"rangeIndexColumns": ["nope"]})),
            false,
            "Failed to find column: nope in schema",
        ),
        (
            index(json!({"bloomFilterConfigs": {"nope": {"fpp": 0.01}}})),
            false,
            "Failed to find column: nope in schema",
        ),
        (
            index(json!({"noDictionaryColumns": ["raw", "nope"]})),
            false,
            "Failed to find column: nope in schema",
        ),
        (
            index(json!({"jsonIndexColumns": ["nope"]})),
            false,
            "Failed to find column: nope in schema",
        ),
        (
            index(json!({"invertedIndexColumns": ["raw"]})),
            false,
            "Cannot create inverted index on column: raw, it can only be applied to dictionary encoded columns",
        ),
        (
            fields(json!([{"name": "d", "encodingType": "RAW", "indexTypes": ["INVERTED"]}])),
            false,
            "Cannot create inverted index on column: d, it can only be applied to dictionary encoded columns",
        ),
        (
            index(json!({"rangeIndexColumns": ["raw"]})),
            false,
            "Cannot create a range index on non-numeric/no-dictionary column raw",
        ),
        (
            index(json!({"jsonIndexColumns": ["i"]})),
            false,
            "Json index can only be created for single value String column. Invalid for column: i",
        ),
        (
            fields(json!([{"name": "mv", "encodingType": "RAW", "indexTypes": ["JSON"]}])),
            false,
            "Json index can only be created for single value String column. Invalid for column: mv",
        ),
        (
            fields(json!([{"name": "i", "encodingType": "RAW", "indexTypes": ["TEXT"]}])),
            false,
            "Cannot create text index on column: i, it can only be applied to string columns",
        ),
        (
            fields(json!([{"name": "d", "encodingType": "RAW", "indexTypes": ["FST"]}])),
            false,
            "Cannot create FST index on column: d, it can only be applied to dictionary encoded single value string columns",
        ),
        (
            index(json!({"varLengthDictionaryColumns": ["i"]})),
            false,
            "var length dictionary can only be created for columns of type STRING and BYTES. Invalid for column i",
        ),
        // star-tree
        (
            star(json!({"dimensionsSplitOrder": ["nope"]})),
            false,
            "Failed to find dimension column: nope specified in star-tree index config in schema",
        ),
        (
            star(json!({"dimensionsSplitOrder": ["raw"]})),
            false,
            "Cannot create star-tree index on dimension column: raw without dictionary",
        ),
        (
            star(json!({"skipStarNodeCreationForDimensions": ["l"]})),
            false,
            "Can not skip star-node creation for dimensions not in the split order, dimensionsSplitOrder: [d, i], skipStarNodeCreationForDimensions: [l]",
        ),
        (
            star(
                json!({"aggregationConfigs": [{"columnName": "m", "aggregationFunction": "SUM"}]}),
            ),
            false,
            "Either 'functionColumnPairs' or 'aggregationConfigs' must be specified, but not both",
        ),
        (
            star(json!({"functionColumnPairs": ["MAX_m"]})),
            false,
            "Invalid StarTreeIndex config: MAX_m. Must bein the form <Aggregation function>__<Column name>",
        ),
        (
            star(json!({"functionColumnPairs": ["MEDIAN__m"]})),
            false,
            "Invalid StarTreeIndex config: MEDIAN__m. Must bein the form <Aggregation function>__<Column name>",
        ),
        (
            star(json!({"functionColumnPairs": ["SUM__m", "SUM__m"]})),
            false,
            "Duplicate function column pair: SUM__m",
        ),
        (
            star(json!({"functionColumnPairs": ["SUM__*"]})),
            false,
            "Non-COUNT function set the column as '*' in the functionColumnPair: SUM__*. Please configure an actual column for the function",
        ),
        (
            star(json!({"functionColumnPairs": ["SUM__nope"]})),
            false,
            "Failed to find column: nope specified in star-tree index config in schema",
        ),
        (
            star(json!({"dimensionsSplitOrder": ["mv"]})),
            false,
            "Star-tree dimension columns must be single-value, but found multi-value column: mv",
        ),
        // timestamp, sorted, partition
        (
            fields(json!([{"name": "i", "timestampConfig": {"granularities": ["DAY"]}}])),
            false,
            "Cannot create TIMESTAMP index on column: i of stored type other than LONG",
        ),
        (
            fields(json!([{"name": "mvl", "timestampConfig": {"granularities": ["DAY"]}}])),
            false,
            "Cannot create TIMESTAMP index on multi-value column: mvl",
        ),
        (
            index(json!({"sortedColumn": ["nope"]})),
            false,
            "Failed to find sorted column: nope in schema",
        ),
        (
            index(json!({"sortedColumn": ["mv"]})),
            false,
            "Cannot sort on multi-value column: mv",
        ),
        (
            index(
                json!({"segmentPartitionConfig": {"columnPartitionMap": {"nope": {"functionName": "Murmur", "numPartitions": 2}}}}),
            ),
            false,
            "Failed to find partition column: nope in schema",
        ),
        (
            index(
                json!({"segmentPartitionConfig": {"columnPartitionMap": {"mv": {"functionName": "Murmur", "numPartitions": 2}}}}),
            ),
            false,
            "Cannot partition on multi-value column: mv",
        ),
        // upsert and dedup
        (
            merge(upsert(), json!({"dedupConfig": {"dedupEnabled": true}})),
            true,
            "A table can have either Upsert or Dedup enabled, but not both",
        ),
        (
            merge(offline(), json!({"upsertConfig": {"mode": "FULL"}})),
            true,
            "Upsert/Dedup table is for realtime table only.",
        ),
        (
            upsert(),
            false,
            "Upsert/Dedup table must have primary key columns in the schema",
        ),
        (
            merge(realtime(), json!({"dedupConfig": {"dedupEnabled": true}})),
            true,
            "Upsert/Dedup table must use strict replica-group (i.e. strictReplicaGroup) based routing",
        ),
        (
            merge(
                upsert(),
                json!({"tenants": {"tagOverrideConfig": {"realtimeConsuming": "x_REALTIME"}}}),
            ),
            true,
            "Upsert/Dedup table cannot use tenant tag override",
        ),
        (
            merge(
                upsert(),
                json!({"tableIndexConfig": {"enableDefaultStarTree": true}}),
            ),
            true,
            "The upsert table cannot have star-tree index.",
        ),
        (
            merge(
                upsert(),
                json!({"upsertConfig": {"comparisonColumns": ["nope"]}}),
            ),
            true,
            "The comparison column does not exist on schema",
        ),
        (
            merge(
                upsert(),
                json!({"upsertConfig": {"deleteRecordColumn": "nope"}}),
            ),
            true,
            "Invalid delete record column found",
        ),
        (
            merge(
                upsert(),
                json!({"upsertConfig": {"deleteRecordColumn": "mv"}}),
            ),
            true,
            "The delete record column must be a single-valued column",
        ),
        (
            merge(
                upsert(),
                json!({"upsertConfig": {"deleteRecordColumn": "j"}}),
            ),
            true,
            "The delete record column must be of type: String / Boolean / Numeric",
        ),
        (
            merge(
                upsert(),
                json!({"tableIndexConfig": {"aggregateMetrics": true}}),
            ),
            true,
            "Metrics aggregation and upsert cannot be enabled together",
        ),
    ];
    for (config, primary_keys, expected) in cases {
        let got = validate(config.clone(), primary_keys).map_err(|e| e.to_string());
        assert_eq!(got, Err(expected.to_string()), "config: {config}");
    }
}

#[test]
fn stream_errors_carry_their_cause() {
    let config = merge(
        realtime(),
        json!({"ingestionConfig": {"streamIngestionConfig": {"streamConfigMaps": [
        {"streamType": "kafka", "stream.kafka.topic.name": "t"}]}}}),
    );
    let err = validate(config, false).unwrap_err();
    assert_eq!(
        err.source().map(|s| s.to_string()).as_deref(),
        Some("Must specify decoder class name stream.kafka.decoder.class.name")
    );
}

#[test]
fn parse_time_checks_of_sub_configs() {
    let bad = |patch: Json| {
        TableConfig::from_value(merge(offline(), patch))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        bad(json!({"fieldConfigList": [{"encodingType": "RAW"}]})),
        "'name' must be configured"
    );
    assert_eq!(
        bad(json!({"tierConfigs": [{"name": "a", "storageType": "pinot_server"}]})),
        "Must provide non-null 'segmentSelectorType' in tierConfig"
    );
    assert_eq!(
        bad(
            json!({"tableIndexConfig": {"starTreeIndexConfigs": [{"functionColumnPairs": ["COUNT__*"]}]}})
        ),
        "'dimensionsSplitOrder' must be configured"
    );
    assert!(bad(json!({"tableIndexConfig": {"rangeIndexVersion": "two"}})).contains("'two'"));
    assert!(bad(json!({"upsertConfig": {"mode": "SOMETIMES"}})).contains("SOMETIMES"));
}

// ---- write → read → write is a fixed point -------------------------------------------------------

fn name() -> impl Strategy<Value = String> {
    "[a-zA-Z][a-zA-Z0-9]{0,6}"
}

fn scalar() -> impl Strategy<Value = Json> {
    prop_oneof![
        any::<bool>().prop_map(Json::Bool),
        any::<i32>().prop_map(|i| json!(i)),
        "[a-z0-9 ._]{0,8}".prop_map(Json::String),
    ]
}

fn maybe<T: std::fmt::Debug + Clone>(
    s: impl Strategy<Value = T>,
) -> impl Strategy<Value = Option<T>> {
    proptest::option::of(s)
}

fn config_json() -> impl Strategy<Value = Json> {
    let indexing = (
        maybe(proptest::collection::vec(name(), 0..3)),
        maybe(proptest::collection::vec(name(), 0..2)),
        maybe(1..4i32),
        any::<bool>(),
        maybe(prop_oneof![Just("MMAP"), Just("HEAP")]),
        maybe(proptest::collection::vec(
            (
                proptest::collection::vec(name(), 1..3),
                proptest::collection::vec(name(), 0..2),
                0..50i32,
            ),
            0..2,
        )),
        // Short decimals: serde_json without `float_roundtrip` may misparse long ones by an ulp.
        maybe(proptest::collection::btree_map(
            name(),
            (1..1000u32).prop_map(|k| f64::from(k) / 1000.0),
            0..2,
        )),
    );
    let fields = maybe(proptest::collection::vec(
        (
            name(),
            maybe(prop_oneof![Just("RAW"), Just("DICTIONARY")]),
            proptest::collection::vec(
                prop_oneof![
                    Just("INVERTED"),
                    Just("RANGE"),
                    Just("TEXT"),
                    Just("TIMESTAMP")
                ],
                0..2,
            ),
            maybe(proptest::collection::btree_map(name(), scalar(), 0..2)),
        ),
        0..3,
    ));
    (
        name(),
        prop_oneof![Just("OFFLINE"), Just("realtime")],
        maybe(0..5u32),
        maybe(name()),
        indexing,
        fields,
        maybe(proptest::collection::btree_map(name(), scalar(), 0..3)),
        any::<bool>(),
        maybe(proptest::collection::vec((name(), name()), 0..3)),
        maybe("[1-9][0-9]{0,3}(\\.[0-9]{1,2})?[KMGTkmgt]?[Bb]?"),
    )
        .prop_map(|(table, ty, replication, time, ix, fields, custom, dim, transforms, quota)| {
            let mut c = json!({"tableName": table, "tableType": ty, "segmentsConfig": {}, "tenants": {},
                               "tableIndexConfig": {}, "isDimTable": dim});
            if let Some(r) = replication {
                c["segmentsConfig"]["replication"] = json!(r);
            }
            if let Some(t) = time {
                c["segmentsConfig"]["timeColumnName"] = json!(t);
            }
            let (inverted, sorted, range_version, agg, load, stars, blooms) = ix;
            let t = &mut c["tableIndexConfig"];
            if let Some(v) = inverted { t["invertedIndexColumns"] = json!(v); }
            if let Some(v) = sorted { t["sortedColumn"] = json!(v); }
            if let Some(v) = range_version { t["rangeIndexVersion"] = json!(v); }
            t["aggregateMetrics"] = json!(agg);
            if let Some(v) = load { t["loadMode"] = json!(v); }
            if let Some(v) = stars {
                t["starTreeIndexConfigs"] = Json::Array(v.into_iter().map(|(dims, pairs, leaf)| json!({
                    "dimensionsSplitOrder": dims,
                    "functionColumnPairs": pairs.iter().map(|p| format!("SUM__{p}")).collect::<Vec<_>>(),
                    "maxLeafRecords": leaf})).collect());
            }
            if let Some(v) = blooms {
                t["bloomFilterConfigs"] = Json::Object(v.into_iter().map(|(k, f)| (k, json!({"fpp": f}))).collect());
            }
            if let Some(v) = fields {
                c["fieldConfigList"] = Json::Array(v.into_iter().map(|(n, enc, types, props)| {
                    let mut f = json!({"name": n, "indexTypes": types});
                    if let Some(e) = enc { f["encodingType"] = json!(e); }
                    if let Some(p) = props { f["properties"] = Json::Object(p.into_iter().collect()); }
                    f
                }).collect());
            }
            if let Some(m) = custom {
                c["metadata"] = json!({"customConfigs": Json::Object(m.into_iter().collect::<Map<_, _>>())});
            }
            if let Some(v) = transforms {
                c["ingestionConfig"] = json!({"transformConfigs": v.into_iter().map(|(col, arg)| json!(
                    {"columnName": col, "transformFunction": format!("upper({arg})")})).collect::<Vec<_>>()});
            }
            if let Some(q) = quota {
                c["quota"] = json!({"storage": q});
            }
            c
        })
}

proptest! {
    #[test]
    fn write_read_write_is_a_fixed_point(input in config_json()) {
        let parsed = TableConfig::parse_value(input).unwrap();
        prop_assert!(parsed.unrecognized_properties.is_empty(), "{:?}", parsed.unrecognized_properties);
        let first = parsed.config.to_json_string();
        let again = TableConfig::parse(&first).unwrap();
        prop_assert!(again.unrecognized_properties.is_empty());
        prop_assert_eq!(&again.config, &parsed.config);
        prop_assert_eq!(again.config.to_json_string(), first);
    }
}
