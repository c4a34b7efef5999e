//! Star-trees end to end: every query a tree can answer gives exactly the answer of the same
//! query with `SET useStarTree=false;` (and of a table without trees), EXPLAIN names the tree
//! only when it is used, and queries a tree cannot answer fall back to the documents.
//!
//! Metrics are integers or multiples of 0.5 so sums are exact whatever the folding order; the
//! trees have tiny leaves so queries cross star nodes, aggregated records and leaf checks.

use engine::execute_sql;
use engine::provider::MemoryTables;
use engine::response::BrokerResponse;
use segments::build_config::BuildConfig;
use segments::segment::ImmutableSegment;
use segments::types::{Schema, Value};
use serde_json::json;

fn schema() -> Schema {
    Schema::from_json(
        r#"{"schemaName":"sales","dimensionFieldSpecs":[
            {"name":"country","dataType":"STRING"},{"name":"store","dataType":"INT"},
            {"name":"product","dataType":"STRING"},{"name":"online","dataType":"BOOLEAN"}],
          "metricFieldSpecs":[{"name":"units","dataType":"INT"},{"name":"price","dataType":"DOUBLE"},
            {"name":"cost","dataType":"LONG"}],
          "dateTimeFieldSpecs":[{"name":"ts","dataType":"TIMESTAMP","format":"TIMESTAMP","granularity":"1:MILLISECONDS"}]}"#,
    )
    .expect("schema")
}

/// The table config: three explicit trees (one over the timestamp index's month column, one
/// with big leaves whose records are checked against filters, one skipping star nodes for
/// `store`) plus the default tree, or none.
fn config(trees: bool, segment: &str) -> BuildConfig {
    let mut cfg = json!({"tableName": "sales",
        "segmentsConfig": {"timeColumnName": "ts"},
        "tableIndexConfig": {"noDictionaryColumns": ["cost"], "invertedIndexColumns": ["country"]},
        "fieldConfigList": [{"name": "ts", "encodingType": "DICTIONARY", "indexTypes": ["TIMESTAMP"],
            "timestampConfig": {"granularities": ["MONTH"]}}]});
    if trees {
        cfg["tableIndexConfig"]["starTreeIndexConfigs"] = json!([
            {"dimensionsSplitOrder": ["country", "product", "$ts$MONTH"],
             "functionColumnPairs": ["COUNT__*", "SUM__units", "SUM__price", "MIN__price", "MAX__price",
                "AVG__units", "MINMAXRANGE__price", "DISTINCTCOUNTHLL__product", "SUM__cost",
                "PERCENTILEEST__units"],
             "maxLeafRecords": 4},
            {"dimensionsSplitOrder": ["online", "product", "country"],
             "functionColumnPairs": ["COUNT__*", "SUM__units"], "maxLeafRecords": 50},
            {"dimensionsSplitOrder": ["store", "online", "country"],
             "skipStarNodeCreationForDimensions": ["store"],
             "aggregationConfigs": [{"columnName": "*", "aggregationFunction": "COUNT"},
                {"columnName": "units", "aggregationFunction": "SUM"},
                {"columnName": "price", "aggregationFunction": "MAX"}],
             "maxLeafRecords": 3}]);
        cfg["tableIndexConfig"]["enableDefaultStarTree"] = json!(true);
    }
    BuildConfig::from_table_config_json(&cfg, &schema(), Some(segment)).expect("config")
}

fn rows(from: i64, to: i64) -> Vec<Vec<Value>> {
    let countries = ["DE", "FR", "US", "JP"];
    (from..to)
        .map(|i| {
            vec![
                Value::String(countries[(i * 7 % 4) as usize].into()),
                Value::Int((i % 9) as i32),
                Value::String(format!("p{:02}", i * 13 % 37)),
                Value::Boolean(i % 3 == 0),
                Value::Int((i * 31 % 17) as i32 - 3),
                Value::Double((i * 17 % 201) as f64 / 2.0),
                Value::Long(i * 1_000_003 % 9_999),
                Value::Timestamp(1_700_000_000_000 + i * 3_600_000 * 7),
            ]
        })
        .collect()
}

/// Three segments; `trees[i]` says whether segment `i` has star-trees.
fn table(dir: &std::path::Path, trees: [bool; 3]) -> MemoryTables {
    let parts = trees.into_iter().enumerate().map(|(i, with)| {
        let from = i as i64 * 700;
        (
            config(with, &format!("sales_{i}_{with}")),
            rows(from, from + 700),
        )
    });
    tessera_tests::table_of_segments(dir, "sales", &schema(), parts)
}

fn run(tables: &MemoryTables, sql: &str) -> BrokerResponse {
    let r = execute_sql(sql, None, tables);
    assert!(r.exceptions.is_empty(), "{sql}: {:?}", r.exceptions);
    r
}

fn answer(r: &BrokerResponse) -> serde_json::Value {
    let t = r.result_table.as_ref().expect("result table");
    json!({"schema": t.data_schema, "rows": t.rows})
}

fn explain(tables: &MemoryTables, sql: &str) -> String {
    answer(&run(tables, &format!("EXPLAIN PLAN FOR {sql}"))).to_string()
}

/// Queries a tree answers.
const TREE_QUERIES: &[&str] = &[
    "SELECT COUNT(*) FROM sales WHERE online = false",
    "SELECT COUNT(*), SUM(units), SUM(price), MIN(price), MAX(price), AVG(units), MINMAXRANGE(price) FROM sales",
    "SELECT country, COUNT(*), SUM(units) FROM sales GROUP BY country ORDER BY country",
    "SELECT country, product, SUM(price), MAX(price) FROM sales GROUP BY country, product ORDER BY country, product LIMIT 1000",
    "SELECT product, COUNT(units) FROM sales WHERE country = 'DE' GROUP BY product ORDER BY product LIMIT 100",
    "SELECT SUM(units) FROM sales WHERE country IN ('FR', 'JP') AND product BETWEEN 'p03' AND 'p20'",
    "SELECT COUNT(*) FROM sales WHERE country <> 'US' AND NOT product = 'p07'",
    "SELECT COUNT(*), SUM(price) FROM sales WHERE (product = 'p01' OR product > 'p30') AND country NOT IN ('DE')",
    "SELECT COUNT(*) FROM sales WHERE product LIKE 'p1%'",
    "SELECT DATETRUNC('MONTH', ts), COUNT(*), SUM(units) FROM sales GROUP BY DATETRUNC('MONTH', ts) ORDER BY 1 LIMIT 100",
    "SELECT COUNT(*) FROM sales WHERE DATETRUNC('MONTH', ts) >= 1704067200000 AND country = 'JP'",
    "SELECT country, DISTINCTCOUNTHLL(product) FROM sales GROUP BY country ORDER BY country",
    "SELECT SUM(cost) FROM sales WHERE country = 'FR'",
    "SELECT PERCENTILEEST(units, 50) FROM sales WHERE country = 'US'",
    "SELECT store, online, COUNT(*), SUM(units), MAX(price) FROM sales GROUP BY store, online ORDER BY store, online",
    "SELECT online, COUNT(*) FROM sales WHERE store IN (1, 4, 8) GROUP BY online ORDER BY online",
    "SELECT COUNT(*) FROM sales WHERE store = 3 AND country = 'DE' AND online = true",
    "SELECT online, SUM(units) FROM sales WHERE country IN ('DE', 'US') AND product < 'p20' GROUP BY online ORDER BY online",
    "SELECT online, country, COUNT(*) FROM sales WHERE country <> 'FR' GROUP BY online, country ORDER BY online, country",
    "SELECT country, SUM(units) AS s FROM sales GROUP BY country HAVING SUM(units) > 100 ORDER BY s DESC LIMIT 2",
];

/// Queries no tree can answer.
const SCAN_QUERIES: &[&str] = &[
    // Metadata and dictionaries answer these; no segment is left to scan.
    "SELECT COUNT(*) FROM sales",
    "SELECT MIN(price), MAX(price) FROM sales",
    "SELECT COUNT(*) FROM sales WHERE country = 'XX'",
    "SELECT COUNT(*) FROM sales WHERE units > 3",
    "SELECT SUM(units) FROM sales WHERE REGEXP_LIKE(product, 'p1.')",
    "SELECT UPPER(country), COUNT(*) FROM sales GROUP BY UPPER(country) ORDER BY 1",
    "SELECT COUNT(*) FILTER (WHERE country = 'DE') FROM sales",
    "SELECT SUM(units + 1) FROM sales",
    "SELECT country, SUM(units) FROM sales WHERE country = 'DE' OR product = 'p01' GROUP BY country ORDER BY country",
    "SELECT MIN(units) FROM sales",
    "SELECT DISTINCTCOUNTHLL(product, 12) FROM sales",
];

#[test]
fn tree_answers_equal_scan_answers() {
    let dir = tempfile::tempdir().expect("tmp");
    let trees = table(dir.path(), [true, true, true]);
    let plain_dir = tempfile::tempdir().expect("tmp");
    let plain = table(plain_dir.path(), [false, false, false]);
    for sql in TREE_QUERIES {
        let with = run(&trees, sql);
        let without = run(&trees, &format!("SET useStarTree = false; {sql}"));
        assert_eq!(answer(&with), answer(&without), "{sql}");
        assert_eq!(answer(&with), answer(&run(&plain, sql)), "{sql}");
        assert!(
            explain(&trees, sql).contains("FILTER_STARTREE_INDEX(starTree:"),
            "{sql} does not use a tree: {}",
            explain(&trees, sql)
        );
        let plan_off = explain(&trees, &format!("{sql} OPTION(useStarTree=false)"));
        assert!(!plan_off.contains("STARTREE"), "{sql}: {plan_off}");
        assert!(
            with.num_docs_scanned <= without.num_docs_scanned,
            "{sql}: tree scanned {} records, scan {} docs",
            with.num_docs_scanned,
            without.num_docs_scanned
        );
    }
}

#[test]
fn queries_a_tree_cannot_answer_scan_documents() {
    let dir = tempfile::tempdir().expect("tmp");
    let trees = table(dir.path(), [true, true, true]);
    for sql in SCAN_QUERIES {
        let plan = explain(&trees, sql);
        assert!(!plan.contains("STARTREE"), "{sql}: {plan}");
        let with = run(&trees, sql);
        let without = run(&trees, &format!("SET useStarTree = false; {sql}"));
        assert_eq!(answer(&with), answer(&without), "{sql}");
    }
}

#[test]
fn tables_with_trees_on_some_segments_answer_the_same() {
    let dir = tempfile::tempdir().expect("tmp");
    let mixed = table(dir.path(), [true, false, true]);
    let plain_dir = tempfile::tempdir().expect("tmp");
    let plain = table(plain_dir.path(), [false, false, false]);
    for sql in TREE_QUERIES {
        assert_eq!(
            answer(&run(&mixed, sql)),
            answer(&run(&plain, sql)),
            "{sql}"
        );
    }
}

#[test]
fn trees_are_described_in_metadata_and_scan_few_records() {
    let dir = tempfile::tempdir().expect("tmp");
    let trees = table(dir.path(), [true, true, true]);
    let r = run(
        &trees,
        "SELECT country, COUNT(*) FROM sales GROUP BY country",
    );
    // Four groups, each one aggregated record per segment.
    assert_eq!(r.num_docs_scanned, 12, "{:?}", answer(&r));
    let seg = ImmutableSegment::open(&dir.path().join("sales_0_true")).expect("opens");
    let infos: Vec<_> = seg.star_trees().map(|(i, _)| i.clone()).collect();
    assert_eq!(infos.len(), 4);
    assert_eq!(infos[0].spec.max_leaf_records, 4);
    assert_eq!(
        infos[2].spec.skip_star_node_creation,
        vec!["store".to_string()]
    );
    // The default tree: dictionary dimensions by descending cardinality, then the time column.
    assert_eq!(
        infos[3].spec.dimensions,
        ["product", "store", "country", "online", "ts"]
    );
    assert_eq!(
        infos[3]
            .spec
            .function_column_pairs
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>(),
        ["COUNT__*", "SUM__units", "SUM__price", "SUM__cost"]
    );
    assert!(
        infos
            .iter()
            .all(|i| i.total_records > 0 && i.size_bytes > 0)
    );
}

#[test]
fn a_corrupt_tree_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let _ = table(dir.path(), [true, false, false]);
    let seg = dir.path().join("sales_0_true");
    let file = seg.join("startree.bin");
    let mut bytes = std::fs::read(&file).expect("startree.bin");
    bytes[20] ^= 0xff;
    std::fs::write(&file, &bytes).expect("write");
    let err = ImmutableSegment::open(&seg).expect_err("corrupt");
    assert!(err.to_string().contains("startree.bin"), "{err}");
}

#[test]
fn bad_star_tree_configs_are_rejected() {
    let bad = [
        (
            json!([{"dimensionsSplitOrder": ["nope"], "functionColumnPairs": ["COUNT__*"]}]),
            "Failed to find dimension column: nope",
        ),
        (
            json!([{"dimensionsSplitOrder": ["cost"], "functionColumnPairs": ["COUNT__*"]}]),
            "without dictionary",
        ),
        (
            json!([{"dimensionsSplitOrder": ["country"], "functionColumnPairs": ["SUM__product"]}]),
            "numeric",
        ),
        (
            json!([{"dimensionsSplitOrder": ["country"], "functionColumnPairs": ["DISTINCTCOUNTTHETASKETCH__units"]}]),
            "not supported",
        ),
        (
            json!([{"dimensionsSplitOrder": ["country"], "functionColumnPairs": ["SUMX__units"]}]),
            "Must bein the form",
        ),
    ];
    for (trees, want) in bad {
        let cfg = json!({"tableName": "sales",
            "tableIndexConfig": {"noDictionaryColumns": ["cost"], "starTreeIndexConfigs": trees}});
        let err = BuildConfig::from_table_config_json(&cfg, &schema(), None).expect_err("rejected");
        assert!(err.to_string().contains(want), "{err} lacks {want}");
    }
}

#[test]
fn an_empty_segment_builds_and_opens_with_its_trees() {
    let dir = tempfile::tempdir().expect("tmp");
    let t = tessera_tests::table_of_segments(
        dir.path(),
        "sales",
        &schema(),
        [(config(true, "sales_empty"), Vec::new())],
    );
    let seg = ImmutableSegment::open(&dir.path().join("sales_empty")).expect("opens");
    assert!(seg.star_trees().all(|(info, _)| info.total_records == 0));
    let r = run(&t, "SELECT country, SUM(units) FROM sales GROUP BY country");
    assert_eq!(answer(&r)["rows"], json!([]));
}

#[test]
fn mangled_tree_bytes_never_panic() {
    use segments::startree::{StarTree, TreeQuery};
    let dir = tempfile::tempdir().expect("tmp");
    let _ = table(dir.path(), [true, false, false]);
    let seg = ImmutableSegment::open(&dir.path().join("sales_0_true")).expect("opens");
    let (info, tree) = seg.star_trees().next().expect("a tree");
    let cards: Vec<u32> = info
        .spec
        .dimensions
        .iter()
        .map(|d| seg.column(d).expect("dimension").metadata().cardinality)
        .collect();
    let bytes = tree.encode();
    let pairs = &info.spec.function_column_pairs;
    assert_eq!(
        &StarTree::decode(&bytes, &cards, pairs).expect("decodes"),
        tree
    );
    let query = TreeQuery {
        filters: cards
            .iter()
            .map(|&c| Some((0..c).map(|i| i % 2 == 0).collect()))
            .collect(),
        grouped: vec![true; cards.len()],
    };
    // Deterministic pseudo-random byte flips and truncations: decode errs or yields a tree
    // whose traversal stays in bounds.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..400 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut mangled = bytes.clone();
        if round % 5 == 0 {
            mangled.truncate((state % bytes.len() as u64) as usize);
        } else {
            let at = (state % bytes.len() as u64) as usize;
            mangled[at] ^= (state >> 32) as u8 | 1;
        }
        if let Ok(t) = StarTree::decode(&mangled, &cards, pairs) {
            for range in t.matching(&query) {
                for r in range.start..range.end {
                    let _ = t.record_matches(&query, range.check_from.unwrap_or(0), r);
                }
            }
        }
    }
}
