//! Segment reload = rebuild: `POST /segments/{t}/reload` re-creates every segment of the table
//! from its own rows with the table's *current* config and schema (new or dropped indexes, new
//! columns filled with their default null values, dropped columns removed), then stores it
//! like a refresh, so every replica swaps in the same rebuilt copy. Rows are read back through
//! the query engine ([`crate::common::transform::select_rows`]). Only the schema's columns are read
//! back: the timestamp index's derived `$ts$DAY` … columns are recomputed by the build from the
//! current `fieldConfigList` (added, changed or dropped with it). Star-trees follow the current
//! `starTreeIndexConfigs` / `enableDefaultStarTree` only with `enableDynamicStarTreeCreation`;
//! otherwise the segment keeps the trees it was built with.

use crate::common::archive;
use crate::common::transform::segment_rows;
use segments::types::Schema;
use segments::{BuildConfig, build_segment_from_rows};
use serde_json::Value as Json;
use std::path::Path;
use std::sync::Arc;

/// Rebuilds the segment in `archive_bytes` for `schema` + `config`; returns the new archive.
/// Blocking; run on rayon.
pub fn rebuild_archive(
    archive_bytes: &[u8],
    schema: &Schema,
    config: &Json,
    work: &Path,
) -> Result<Vec<u8>, String> {
    let old = archive::unpack(archive_bytes, &work.join("old")).map_err(|e| e.to_string())?;
    let segment = Arc::new(archive::open(&old.dir).map_err(|e| e.to_string())?);
    let old_trees: Vec<_> = segment
        .metadata()
        .star_trees
        .iter()
        .map(|t| t.spec.clone())
        .collect();
    let rows = segment_rows(schema, segment, None)?;
    let mut build =
        BuildConfig::from_table_config_json(config, schema, Some(&old.facts.segment_name))
            .map_err(|e| e.to_string())?;
    if !build.dynamic_star_trees {
        // Without `enableDynamicStarTreeCreation` a reload keeps the trees the segment has
        // (those whose columns still exist).
        let full = build.build_schema(schema).map_err(|e| e.to_string())?;
        build.default_star_tree = false;
        build.star_trees = old_trees
            .into_iter()
            .filter(|spec| spec.columns().all(|c| full.field(c).is_some()))
            .collect();
    }
    let out = work.join("new");
    build_segment_from_rows(schema, &build, rows.into_iter().map(Ok), &out)
        .map_err(|e| e.to_string())?;
    archive::pack(&out.join(&old.facts.segment_name)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::index::IndexKind;
    use serde_json::json;

    #[test]
    fn rebuild_applies_new_indexes_and_columns() {
        let dir = tempfile::tempdir().unwrap();
        let built = archive::tests_support::build(dir.path(), "s0", 20);
        let bytes = archive::pack(&built).unwrap();
        let schema = Schema::from_json(
            r#"{"schemaName":"t","dimensionFieldSpecs":[{"name":"id","dataType":"INT"},{"name":"city","dataType":"STRING"},{"name":"added","dataType":"LONG","defaultNullValue":7}]}"#,
        )
        .unwrap();
        let config = json!({"tableName": "t", "tableType": "OFFLINE", "segmentsConfig": {}, "tenants": {},
            "tableIndexConfig": {"invertedIndexColumns": ["city"]}});
        let out = rebuild_archive(&bytes, &schema, &config, &dir.path().join("work")).unwrap();
        let seg = archive::unpack(&out, &dir.path().join("check")).unwrap();
        let seg = archive::open(&seg.dir).unwrap();
        assert_eq!(seg.total_docs(), 20);
        assert!(
            seg.column("city")
                .unwrap()
                .metadata()
                .has_index(IndexKind::Inverted)
        );
        assert!(seg.column("added").is_some());
    }

    #[test]
    fn star_trees_change_on_reload_only_when_dynamic() {
        let dir = tempfile::tempdir().unwrap();
        let built = archive::tests_support::build(dir.path(), "s0", 40);
        let schema = Schema::from_json(
            r#"{"schemaName":"t","dimensionFieldSpecs":[{"name":"id","dataType":"INT"},{"name":"city","dataType":"STRING"}]}"#,
        )
        .unwrap();
        let config = |trees: serde_json::Value, dynamic: bool| {
            json!({"tableName": "t", "tableType": "OFFLINE", "segmentsConfig": {}, "tenants": {},
                "tableIndexConfig": {"starTreeIndexConfigs": trees,
                    "enableDynamicStarTreeCreation": dynamic}})
        };
        let dims = |bytes: &[u8], round: &str| -> Vec<Vec<String>> {
            let seg = archive::unpack(bytes, &dir.path().join(format!("check_{round}"))).unwrap();
            let seg = archive::open(&seg.dir).unwrap();
            seg.star_trees()
                .map(|(i, _)| i.spec.dimensions.clone())
                .collect()
        };
        let city = json!([{"dimensionsSplitOrder": ["city"], "functionColumnPairs": ["COUNT__*"]}]);
        let both =
            json!([{"dimensionsSplitOrder": ["city", "id"], "functionColumnPairs": ["COUNT__*"]}]);
        let mut bytes = archive::pack(&built).unwrap();
        let work = |n: &str| dir.path().join(format!("work_{n}"));
        // Without dynamic creation a reload neither adds nor changes trees.
        bytes = rebuild_archive(&bytes, &schema, &config(city.clone(), false), &work("a")).unwrap();
        assert!(dims(&bytes, "a").is_empty());
        bytes = rebuild_archive(&bytes, &schema, &config(city, true), &work("b")).unwrap();
        assert_eq!(dims(&bytes, "b"), [["city"]]);
        bytes = rebuild_archive(&bytes, &schema, &config(both.clone(), false), &work("c")).unwrap();
        assert_eq!(dims(&bytes, "c"), [["city"]]);
        bytes = rebuild_archive(&bytes, &schema, &config(both, true), &work("d")).unwrap();
        assert_eq!(dims(&bytes, "d"), [["city", "id"]]);
        bytes = rebuild_archive(&bytes, &schema, &config(json!([]), true), &work("e")).unwrap();
        assert!(dims(&bytes, "e").is_empty());
    }

    #[test]
    fn rebuild_recomputes_timestamp_index_columns_per_config() {
        use segments::timestamp_index::{TimestampGranularity, truncate};
        use segments::types::Value;
        let dir = tempfile::tempdir().unwrap();
        let schema = Schema::from_json(
            r#"{"schemaName":"t","dimensionFieldSpecs":[{"name":"id","dataType":"INT"}],
              "dateTimeFieldSpecs":[{"name":"ts","dataType":"TIMESTAMP","format":"TIMESTAMP","granularity":"1:MILLISECONDS"}]}"#,
        )
        .unwrap();
        let config = |granularities: serde_json::Value| {
            json!({"tableName": "t", "tableType": "OFFLINE", "segmentsConfig": {}, "tenants": {},
                "tableIndexConfig": {}, "fieldConfigList": [{"name": "ts", "indexTypes": ["TIMESTAMP"],
                    "timestampConfig": {"granularities": granularities}}]})
        };
        let times: Vec<i64> = (0..30).map(|i| -5_000_000_000 + i * 987_654_321).collect();
        let rows = times
            .iter()
            .enumerate()
            .map(|(i, t)| Ok(vec![Value::Int(i as i32), Value::Timestamp(*t)]));
        let build =
            BuildConfig::from_table_config_json(&config(json!(["DAY"])), &schema, Some("s0"))
                .unwrap();
        build_segment_from_rows(&schema, &build, rows, dir.path()).unwrap();
        let mut bytes = archive::pack(&dir.path().join("s0")).unwrap();
        // Reload with other granularities: DAY is dropped, MONTH and WEEK are computed from ts.
        for (round, granularities) in [json!(["MONTH", "WEEK"]), json!([])]
            .into_iter()
            .enumerate()
        {
            let work = dir.path().join(format!("work{round}"));
            bytes =
                rebuild_archive(&bytes, &schema, &config(granularities.clone()), &work).unwrap();
            let seg = archive::unpack(&bytes, &dir.path().join(format!("check{round}"))).unwrap();
            let seg = archive::open(&seg.dir).unwrap();
            let names: Vec<&str> = seg.columns().map(|c| c.name()).collect();
            let want: Vec<String> = ["id", "ts"]
                .iter()
                .map(|s| s.to_string())
                .chain(granularities.as_array().unwrap().iter().map(|g| {
                    TimestampGranularity::parse(g.as_str().unwrap())
                        .unwrap()
                        .derived_column("ts")
                }))
                .collect();
            let mut sorted_want = want.clone();
            sorted_want.sort();
            let mut sorted_names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
            sorted_names.sort();
            assert_eq!(sorted_names, sorted_want);
            for g in [TimestampGranularity::Month, TimestampGranularity::Week] {
                let Some(c) = seg.column(&g.derived_column("ts")) else {
                    continue;
                };
                assert!(c.metadata().has_index(IndexKind::Range));
                let dict = c.dictionary().unwrap();
                let segments::forward::ForwardIndex::Dict(f) = c.forward() else {
                    panic!("dictionary-encoded")
                };
                let ids = seg.column("id").unwrap();
                let id_dict = ids.dictionary().unwrap();
                let segments::forward::ForwardIndex::Dict(id_f) = ids.forward() else {
                    panic!("dictionary-encoded")
                };
                for doc in 0..seg.total_docs() {
                    let id = id_dict.value(id_f.get(doc)).as_i64().unwrap() as usize;
                    assert_eq!(dict.value(f.get(doc)), Value::Long(truncate(g, times[id])));
                }
            }
        }
    }
}
