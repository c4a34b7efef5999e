//! End-to-end queries over real segments: build small segments with
//! `build_segment_from_rows`, open them, run SQL through `execute_sql`, and check answers —
//! with indexes, without them, and with dictionaries turned off, which must all agree.

use planner::plan::QueryPlan;
use segments::build_config::BuildConfig;
use segments::builder::build_segment_from_rows;
use segments::segment::ImmutableSegment;
use segments::types::value::decode_hex;
use segments::types::{DataType, FieldSpec, Schema, Value};
use serde_json::{Value as Json, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use tessera_engine::provider::{MemoryTables, TableProvider};
use tessera_engine::{BrokerResponse, execute_plan, execute_sql, plan_sql};

const TEAMS: [&str; 4] = ["BOS", "NYA", "SFN", "LAN"];

fn schema() -> Schema {
    let mut s = Schema {
        schema_name: "stats".into(),
        ..Schema::default()
    };
    s.fields
        .push(FieldSpec::dimension("team", DataType::String));
    s.fields
        .push(FieldSpec::dimension("league", DataType::String));
    s.fields.push(FieldSpec::dimension("year", DataType::Int));
    s.fields
        .push(FieldSpec::dimension("name", DataType::String));
    s.fields.push(FieldSpec {
        single_value_field: false,
        ..FieldSpec::dimension("tags", DataType::String)
    });
    s.fields
        .push(FieldSpec::dimension("flag", DataType::Boolean));
    s.fields.push(FieldSpec::metric("runs", DataType::Int));
    s.fields.push(FieldSpec::metric("avg", DataType::Double));
    s.fields.push(FieldSpec::metric("hits", DataType::Long));
    s
}

/// Row `i` of the data set (deterministic).
fn row(i: usize) -> Vec<Value> {
    let team = TEAMS[i % 4];
    let league = if i.is_multiple_of(3) { "AL" } else { "NL" };
    let year = 2000 + (i % 7) as i32;
    let tags: Vec<Value> = (0..(i % 3) + 1)
        .map(|k| Value::String(format!("t{}", (i + k) % 5)))
        .collect();
    let runs = if i % 11 == 5 {
        Value::Null
    } else {
        Value::Int((i * 7 % 50) as i32)
    };
    vec![
        Value::String(team.into()),
        Value::String(league.into()),
        Value::Int(year),
        Value::String(format!("player{:02}", i)),
        Value::Array(tags),
        Value::Boolean(i % 4 == 1),
        runs,
        Value::Double((i % 10) as f64 / 4.0),
        Value::Long(i as i64 * 1_000_000_000),
    ]
}

const ROWS: usize = 60;

#[derive(Clone, Copy, Debug)]
enum Variant {
    Indexed,
    Plain,
    Raw,
}

fn config(variant: Variant, name: &str) -> BuildConfig {
    let mut c = BuildConfig::new("stats", name);
    c.null_handling = true;
    match variant {
        Variant::Indexed => {
            c.inverted
                .extend(["team".to_string(), "tags".to_string(), "flag".to_string()]);
            c.range
                .extend(["year".to_string(), "avg".to_string(), "hits".to_string()]);
            c.bloom.insert("team".into(), 0.01);
            c.sorted_column = Some("league".into());
            c.no_dictionary
                .extend(["avg".to_string(), "name".to_string()]);
        }
        Variant::Plain => {
            c.no_dictionary
                .extend(["avg".to_string(), "name".to_string()]);
        }
        Variant::Raw => {
            for f in [
                "team", "league", "year", "name", "flag", "runs", "avg", "hits",
            ] {
                c.no_dictionary.insert(f.to_string());
            }
        }
    }
    c
}

struct Table {
    _dir: tempfile::TempDir,
    tables: MemoryTables,
}

/// Two segments: rows 0..40 and 40..60.
fn table(variant: Variant) -> Table {
    let dir = tempfile::tempdir().unwrap();
    let schema = schema();
    let mut segs = Vec::new();
    for (k, range) in [(0, 0..40), (1, 40..ROWS)].into_iter() {
        let cfg = config(variant, &format!("stats_{k}"));
        let rows = range.map(|i| Ok(row(i)));
        let summary = build_segment_from_rows(&schema, &cfg, rows, dir.path()).unwrap();
        segs.push(Arc::new(
            ImmutableSegment::open(&summary.segment_dir).unwrap(),
        ));
    }
    let mut tables = MemoryTables::new();
    tables.add("stats", schema, segs);
    Table { _dir: dir, tables }
}

fn query(t: &Table, sql: &str) -> BrokerResponse {
    execute_sql(sql, None, &t.tables)
}

fn rows_of(r: &BrokerResponse) -> Vec<Vec<Json>> {
    assert!(
        r.exceptions.is_empty(),
        "unexpected exceptions: {:?}",
        r.exceptions
    );
    r.result_table.as_ref().expect("result table").rows.clone()
}

fn columns_of(r: &BrokerResponse) -> (Vec<String>, Vec<String>) {
    let t = r.result_table.as_ref().expect("result table");
    (
        t.data_schema.column_names.clone(),
        t.data_schema.column_data_types.clone(),
    )
}

fn all_variants() -> Vec<(Variant, Table)> {
    [Variant::Indexed, Variant::Plain, Variant::Raw]
        .into_iter()
        .map(|v| (v, table(v)))
        .collect()
}

fn int(v: &Value) -> Option<i64> {
    v.as_i64()
}

#[test]
fn count_star_with_an_indexed_predicate() {
    let expected = (0..ROWS).filter(|i| i % 4 == 0).count() as i64;
    for (v, t) in all_variants() {
        let r = query(&t, "SELECT COUNT(*) FROM stats WHERE team = 'BOS'");
        assert_eq!(rows_of(&r), vec![vec![json!(expected)]], "{v:?}");
        assert_eq!(
            columns_of(&r),
            (vec!["count(*)".to_string()], vec!["LONG".to_string()])
        );
        assert_eq!(r.total_docs, ROWS as u64);
        assert_eq!(r.num_segments_queried, 2);
        assert_eq!(r.num_servers_queried, 1);
        assert_eq!(r.num_docs_scanned, expected as u64);
        if matches!(v, Variant::Indexed) {
            assert_eq!(
                r.num_entries_scanned_in_filter, 0,
                "inverted index, no scan"
            );
            assert_eq!(
                r.num_entries_scanned_post_filter, 0,
                "count from the bitmap"
            );
        } else {
            assert_eq!(r.num_entries_scanned_in_filter, ROWS as u64);
        }
    }
}

#[test]
fn filters_agree_across_index_variants() {
    let queries = [
        "SELECT COUNT(*) FROM stats WHERE year BETWEEN 2002 AND 2004",
        "SELECT COUNT(*) FROM stats WHERE year > 2003 AND team IN ('BOS', 'SFN')",
        "SELECT COUNT(*) FROM stats WHERE league = 'AL' OR avg >= 2.0",
        "SELECT COUNT(*) FROM stats WHERE NOT (team = 'NYA') AND year <> 2001",
        "SELECT COUNT(*) FROM stats WHERE tags = 't3'",
        "SELECT COUNT(*) FROM stats WHERE tags IN ('t1', 't4')",
        "SELECT COUNT(*) FROM stats WHERE tags NOT IN ('t1', 't4')",
        "SELECT COUNT(*) FROM stats WHERE name LIKE 'player1%'",
        "SELECT COUNT(*) FROM stats WHERE REGEXP_LIKE(name, '5$')",
        "SELECT COUNT(*) FROM stats WHERE hits < 25000000000 AND hits >= 3000000000",
        "SELECT COUNT(*) FROM stats WHERE flag",
        "SELECT COUNT(*) FROM stats WHERE runs * 2 > 40",
        "SELECT COUNT(*) FROM stats WHERE avg = 0.5",
        "SELECT COUNT(*) FROM stats WHERE year = 1999",
        "SELECT COUNT(*) FROM stats WHERE team = 'XXX'",
        "SELECT COUNT(*) FROM stats WHERE year > 2002.5",
        // Expressions over one column: per dictionary entry where there is a dictionary, per
        // document in the raw variant — the same documents.
        "SELECT COUNT(*) FROM stats WHERE SUBSTRING(team, 1, 1) IN ('B', 'S')",
        "SELECT COUNT(*) FROM stats WHERE year % 3 = 1 AND team <> 'LAN'",
        "SELECT COUNT(*) FROM stats WHERE runs + 1 > 30 OR UPPER(league) = 'AL'",
    ];
    for sql in queries {
        let answers: Vec<(Variant, Vec<Vec<Json>>)> = all_variants()
            .into_iter()
            .map(|(v, t)| (v, rows_of(&query(&t, sql))))
            .collect();
        for (v, a) in &answers[1..] {
            assert_eq!(
                a, &answers[0].1,
                "{sql}: {v:?} differs from {:?}",
                answers[0].0
            );
        }
        // And skipping every index of the indexed variant changes nothing either.
        let t = table(Variant::Indexed);
        let skip = "SET skipIndexes='team=inverted&tags=inverted&flag=inverted&year=range&avg=range&hits=range&league=sorted'; ";
        assert_eq!(
            rows_of(&query(&t, &format!("{skip}{sql}"))),
            answers[0].1,
            "{sql} with skipIndexes"
        );
    }
    // Spot-check some answers against the rows.
    let t = table(Variant::Indexed);
    let expect = |f: &dyn Fn(usize) -> bool| json!((0..ROWS).filter(|&i| f(i)).count());
    let r = query(
        &t,
        "SELECT COUNT(*) FROM stats WHERE year BETWEEN 2002 AND 2004",
    );
    assert_eq!(rows_of(&r)[0][0], expect(&|i| (2..=4).contains(&(i % 7))));
    let r = query(&t, "SELECT COUNT(*) FROM stats WHERE tags = 't3'");
    assert_eq!(
        rows_of(&r)[0][0],
        expect(&|i| (0..(i % 3) + 1).any(|k| (i + k) % 5 == 3))
    );
    let r = query(&t, "SELECT COUNT(*) FROM stats WHERE year > 2002.5");
    assert_eq!(rows_of(&r)[0][0], expect(&|i| i % 7 >= 3));
    let r = query(
        &t,
        "SELECT COUNT(*) FROM stats WHERE SUBSTRING(team, 1, 1) IN ('B', 'S')",
    );
    assert_eq!(rows_of(&r)[0][0], expect(&|i| i % 4 == 0 || i % 4 == 2));
}

#[test]
fn aggregations_match_a_direct_computation() {
    let runs: Vec<f64> = (0..ROWS)
        .filter_map(|i| int(&row(i)[6]).map(|v| v as f64))
        .collect();
    // Without null handling a null INT metric reads as its default, 0.
    let runs_default: Vec<f64> = (0..ROWS)
        .map(|i| int(&row(i)[6]).unwrap_or(0) as f64)
        .collect();
    let sum: f64 = runs_default.iter().sum();
    let max = runs.iter().cloned().fold(f64::MIN, f64::max);
    for (v, t) in all_variants() {
        let r = query(
            &t,
            "SELECT COUNT(*), SUM(runs), MIN(runs), MAX(runs), AVG(avg), DISTINCTCOUNT(team), MINMAXRANGE(year), SUM(hits) FROM stats",
        );
        let rows = rows_of(&r);
        assert_eq!(rows[0][0], json!(ROWS), "{v:?}");
        assert_eq!(rows[0][1], json!(sum), "{v:?}");
        assert_eq!(rows[0][2], json!(0.0), "{v:?}");
        assert_eq!(rows[0][3], json!(max), "{v:?}");
        let avg: f64 = (0..ROWS).map(|i| (i % 10) as f64 / 4.0).sum::<f64>() / ROWS as f64;
        assert_eq!(rows[0][4], json!(avg), "{v:?}");
        assert_eq!(rows[0][5], json!(4), "{v:?}");
        assert_eq!(rows[0][6], json!(6.0), "{v:?}");
        let (names, types) = columns_of(&r);
        assert_eq!(
            names,
            vec![
                "count(*)",
                "sum(runs)",
                "min(runs)",
                "max(runs)",
                "avg(avg)",
                "distinctcount(team)",
                "minmaxrange(year)",
                "sum(hits)"
            ]
        );
        assert_eq!(
            types,
            vec![
                "LONG", "DOUBLE", "DOUBLE", "DOUBLE", "DOUBLE", "INT", "DOUBLE", "DOUBLE"
            ]
        );
    }
}

#[test]
fn null_handling_skips_nulls() {
    let t = table(Variant::Indexed);
    let non_null: Vec<i64> = (0..ROWS).filter_map(|i| int(&row(i)[6])).collect();
    let r = execute_sql(
        "SELECT COUNT(runs), COUNT(*), MIN(runs), SUM(runs) FROM stats",
        Some("enableNullHandling=true"),
        &t.tables,
    );
    let rows = rows_of(&r);
    assert_eq!(rows[0][0], json!(non_null.len()));
    assert_eq!(rows[0][1], json!(ROWS));
    assert_eq!(rows[0][2], json!(0.0));
    assert_eq!(rows[0][3], json!(non_null.iter().sum::<i64>() as f64));
    assert_eq!(columns_of(&r).0[0], "count(runs)");
    let r = execute_sql(
        "SELECT COUNT(*) FROM stats WHERE runs IS NULL",
        None,
        &t.tables,
    );
    assert_eq!(rows_of(&r)[0][0], json!(ROWS - non_null.len()));
    let r = execute_sql(
        "SET enableNullHandling=true; SELECT COUNT(*) FROM stats WHERE runs <> 0",
        None,
        &t.tables,
    );
    let nonzero = non_null.iter().filter(|&&v| v != 0).count();
    assert_eq!(rows_of(&r)[0][0], json!(nonzero));
    let r = execute_sql(
        "SET enableNullHandling=true; SELECT name, runs FROM stats WHERE runs IS NULL ORDER BY name LIMIT 2",
        None,
        &t.tables,
    );
    assert_eq!(
        rows_of(&r),
        vec![
            vec![json!("player05"), Json::Null],
            vec![json!("player16"), Json::Null]
        ]
    );
    let r = execute_sql(
        "SELECT SUM(runs) FROM stats WHERE runs IS NULL",
        Some("enableNullHandling=true"),
        &t.tables,
    );
    assert_eq!(rows_of(&r)[0][0], Json::Null);
}

#[test]
fn group_by_order_by_having_limit() {
    let mut expected: BTreeMap<&str, (i64, f64)> = BTreeMap::new();
    for i in 0..ROWS {
        let e = expected.entry(TEAMS[i % 4]).or_default();
        e.0 += 1;
        e.1 += int(&row(i)[6]).unwrap_or(0) as f64;
    }
    for (v, t) in all_variants() {
        let r = query(
            &t,
            "SELECT team, COUNT(*), SUM(runs) AS total FROM stats GROUP BY team ORDER BY total DESC, team LIMIT 3",
        );
        let rows = rows_of(&r);
        let mut want: Vec<(&str, (i64, f64))> = expected.iter().map(|(k, v)| (*k, *v)).collect();
        want.sort_by(|a, b| b.1.1.total_cmp(&a.1.1).then(a.0.cmp(b.0)));
        let want: Vec<Vec<Json>> = want
            .iter()
            .take(3)
            .map(|(k, (c, s))| vec![json!(k), json!(c), json!(s)])
            .collect();
        assert_eq!(rows, want, "{v:?}");
        assert_eq!(columns_of(&r).0, vec!["team", "count(*)", "total"]);
        assert_eq!(columns_of(&r).1, vec!["STRING", "LONG", "DOUBLE"]);

        let r = query(
            &t,
            "SELECT team, league, COUNT(*) FROM stats GROUP BY team, league HAVING COUNT(*) > 6 ORDER BY 1, 2",
        );
        let mut counts: BTreeMap<(&str, &str), i64> = BTreeMap::new();
        for i in 0..ROWS {
            *counts
                .entry((TEAMS[i % 4], if i.is_multiple_of(3) { "AL" } else { "NL" }))
                .or_default() += 1;
        }
        let want: Vec<Vec<Json>> = counts
            .iter()
            .filter(|(_, c)| **c > 6)
            .map(|((t, l), c)| vec![json!(t), json!(l), json!(c)])
            .collect();
        assert_eq!(rows_of(&r), want, "{v:?}");

        // Multi-value group keys: one group per value.
        let r = query(
            &t,
            "SELECT tags, COUNT(*) FROM stats GROUP BY tags ORDER BY tags LIMIT 100",
        );
        let mut tag_counts: BTreeMap<String, i64> = BTreeMap::new();
        for i in 0..ROWS {
            for k in 0..(i % 3) + 1 {
                *tag_counts.entry(format!("t{}", (i + k) % 5)).or_default() += 1;
            }
        }
        let want: Vec<Vec<Json>> = tag_counts
            .iter()
            .map(|(t, c)| vec![json!(t), json!(c)])
            .collect();
        assert_eq!(rows_of(&r), want, "{v:?}");

        // Post-aggregation expression and an expression key.
        let r = query(
            &t,
            "SELECT year % 2, SUM(runs) / COUNT(*) FROM stats GROUP BY year % 2 ORDER BY year % 2",
        );
        assert_eq!(rows_of(&r).len(), 2, "{v:?}");
        assert_eq!(
            columns_of(&r).0,
            vec!["mod(year,'2')", "divide(sum(runs),count(*))"]
        );
    }
}

#[test]
fn selection_order_limit_offset_and_distinct() {
    for (v, t) in all_variants() {
        let r = query(
            &t,
            "SELECT name, year, tags FROM stats WHERE team = 'NYA' ORDER BY year DESC, name LIMIT 2 OFFSET 1",
        );
        let mut want: Vec<usize> = (0..ROWS).filter(|i| i % 4 == 1).collect();
        want.sort_by(|a, b| (b % 7).cmp(&(a % 7)).then(a.cmp(b)));
        let want: Vec<Vec<Json>> = want
            .iter()
            .skip(1)
            .take(2)
            .map(|&i| {
                let r = row(i);
                vec![r[3].to_json(), r[2].to_json(), r[4].to_json()]
            })
            .collect();
        assert_eq!(rows_of(&r), want, "{v:?}");
        assert_eq!(columns_of(&r).1, vec!["STRING", "INT", "STRING_ARRAY"]);

        // No ORDER BY: the first rows in segment/document order, default limit 10.
        let r = query(&t, "SELECT * FROM stats");
        assert_eq!(rows_of(&r).len(), 10, "{v:?}");
        assert_eq!(
            columns_of(&r).0,
            vec![
                "avg", "flag", "hits", "league", "name", "runs", "tags", "team", "year"
            ]
        );

        let r = query(&t, "SELECT DISTINCT team FROM stats ORDER BY team");
        assert_eq!(
            rows_of(&r),
            vec![
                vec![json!("BOS")],
                vec![json!("LAN")],
                vec![json!("NYA")],
                vec![json!("SFN")]
            ],
            "{v:?}"
        );
        let r = query(
            &t,
            "SELECT DISTINCT league, flag FROM stats ORDER BY league DESC, flag LIMIT 3",
        );
        assert_eq!(
            rows_of(&r),
            vec![
                vec![json!("NL"), json!(false)],
                vec![json!("NL"), json!(true)],
                vec![json!("AL"), json!(false)]
            ],
            "{v:?}"
        );
        let r = query(&t, "SELECT COUNT(DISTINCT team) FROM stats");
        assert_eq!(rows_of(&r), vec![vec![json!(4)]]);
        assert_eq!(columns_of(&r).0, vec!["distinctcount(team)"]);
        let r = query(
            &t,
            "SELECT UPPER(name), runs + 1 FROM stats WHERE name = 'player07'",
        );
        assert_eq!(
            rows_of(&r),
            vec![vec![json!("PLAYER07"), json!(50.0)]],
            "{v:?}"
        );
    }
}

#[test]
fn filtered_aggregates_percentiles_and_mode() {
    for (v, t) in all_variants() {
        let r = query(
            &t,
            "SELECT SUM(runs) FILTER (WHERE team = 'BOS'), COUNT(*) FILTER (WHERE year >= 2005), PERCENTILE(year, 50), PERCENTILE90(year), MODE(year), BOOL_OR(flag), BOOL_AND(flag) FROM stats",
        );
        let rows = rows_of(&r);
        let bos: f64 = (0..ROWS)
            .filter(|i| i % 4 == 0)
            .map(|i| int(&row(i)[6]).unwrap_or(0) as f64)
            .sum();
        assert_eq!(rows[0][0], json!(bos), "{v:?}");
        assert_eq!(
            rows[0][1],
            json!((0..ROWS).filter(|i| i % 7 >= 5).count()),
            "{v:?}"
        );
        let mut years: Vec<f64> = (0..ROWS).map(|i| 2000.0 + (i % 7) as f64).collect();
        years.sort_by(f64::total_cmp);
        assert_eq!(rows[0][2], json!(years[ROWS / 2]), "{v:?}");
        assert_eq!(rows[0][3], json!(years[ROWS * 90 / 100]), "{v:?}");
        assert_eq!(rows[0][4], json!(2000.0), "{v:?}");
        assert_eq!(rows[0][5], json!(true));
        assert_eq!(rows[0][6], json!(false));
        let (names, types) = columns_of(&r);
        assert_eq!(names[0], "sum(runs) FILTER(WHERE team = 'BOS')");
        assert_eq!(names[2], "percentile(year, 50.0)");
        assert_eq!(names[3], "percentile90(year)");
        assert_eq!(types[5], "BOOLEAN");
    }
}

#[test]
fn smart_tdigest_is_exact_below_its_threshold_and_a_digest_past_it() {
    let mut years: Vec<f64> = (0..ROWS).map(|i| 2000.0 + (i % 7) as f64).collect();
    years.sort_by(f64::total_cmp);
    for (v, t) in all_variants() {
        for engine in ["", "SET useMultistageEngine=true; "] {
            let r = query(
                &t,
                &format!(
                    "{engine}SELECT PERCENTILESMARTTDIGEST(year, 50), percentile_smart_tdigest(year, 100), \
                     PERCENTILESMARTTDIGEST(year, 50, 'threshold=10; compression=50'), \
                     PERCENTILESMARTTDIGEST(year, 50, 'threshold=0'), \
                     PERCENTILESMARTTDIGEST(year, 50) FILTER (WHERE year > 3000) FROM stats"
                ),
            );
            let rows = rows_of(&r);
            // Below the threshold: Pinot's exact rule, values[size * p / 100].
            assert_eq!(rows[0][0], json!(years[ROWS / 2]), "{v:?} {engine}");
            assert_eq!(rows[0][1], json!(years[ROWS - 1]), "{v:?} {engine}");
            // Past a threshold of 10 values: the t-digest's estimate of the median.
            let estimate = rows[0][2].as_f64().unwrap();
            assert!(
                (2002.0..=2004.0).contains(&estimate),
                "{v:?} {engine}: {estimate}"
            );
            // A non-positive threshold never converts.
            assert_eq!(rows[0][3], json!(years[ROWS / 2]), "{v:?} {engine}");
            // No values: Pinot's sentinel.
            assert_eq!(rows[0][4], json!("-Infinity"), "{v:?} {engine}");
            if engine.is_empty() {
                let (names, types) = columns_of(&r);
                assert_eq!(names[0], "percentilesmarttdigest(year, 50.0)");
                assert!(types.iter().all(|t| t == "DOUBLE"), "{types:?}");
            }
        }
        for (bad, why) in [
            (
                "PERCENTILESMARTTDIGEST(year, 50, 'depth=3')",
                "Invalid parameter key: depth",
            ),
            (
                "PERCENTILESMARTTDIGEST(year, 50, 'threshold')",
                "Invalid parameter: threshold",
            ),
            (
                "PERCENTILESMARTTDIGEST(year, 120)",
                "invalid percentile: 120",
            ),
        ] {
            let r = query(&t, &format!("SELECT {bad} FROM stats"));
            assert!(
                r.exceptions.iter().any(|e| e.message.contains(why)),
                "{bad}: {:?}",
                r.exceptions
            );
        }
    }
}

/// Reads `MergingDigest` verbose bytes (as another t-digest reader would): (min, max,
/// compression, centroids as (weight, mean)).
fn merging_digest(hex: &str) -> (f64, f64, f64, Vec<(f64, f64)>) {
    let bytes = decode_hex(hex).expect("hex");
    let f = |at: usize| f64::from_be_bytes(bytes[at..at + 8].try_into().unwrap());
    assert_eq!(
        i32::from_be_bytes(bytes[0..4].try_into().unwrap()),
        1,
        "verbose encoding"
    );
    let n = i32::from_be_bytes(bytes[28..32].try_into().unwrap()) as usize;
    assert_eq!(bytes.len(), 32 + 16 * n);
    let centroids = (0..n).map(|i| (f(32 + 16 * i), f(40 + 16 * i))).collect();
    (f(4), f(12), f(20), centroids)
}

#[test]
fn raw_tdigest_is_the_merging_digest_pinot_returns() {
    for (v, t) in all_variants() {
        for engine in ["", "SET useMultistageEngine=true; "] {
            let r = query(
                &t,
                &format!(
                    "{engine}SELECT PERCENTILERAWTDIGEST(year, 50), percentile_raw_tdigest(year, 90, 200) \
                     FROM stats"
                ),
            );
            let rows = rows_of(&r);
            for (cell, compression) in [(&rows[0][0], 100.0), (&rows[0][1], 200.0)] {
                let (min, max, c, centroids) = merging_digest(cell.as_str().unwrap());
                assert_eq!(
                    (min, max, c),
                    (2000.0, 2006.0, compression),
                    "{v:?} {engine}"
                );
                let weight: f64 = centroids.iter().map(|(w, _)| w).sum();
                assert_eq!(weight, ROWS as f64, "{v:?} {engine}");
                assert!(centroids.windows(2).all(|w| w[0].1 <= w[1].1));
            }
            if engine.is_empty() {
                let (names, types) = columns_of(&r);
                assert_eq!(names[0], "percentilerawtdigest(year, 50.0)");
                assert_eq!(types, ["STRING", "STRING"]);
            }
        }
    }
}

#[test]
fn raw_qdigest_is_the_quantile_digest_pinot_returns() {
    for (v, t) in all_variants() {
        for engine in ["", "SET useMultistageEngine=true; "] {
            let r = query(
                &t,
                &format!(
                    "{engine}SELECT PERCENTILERAWEST(year, 50), percentile_raw_est(year, 90) FROM stats"
                ),
            );
            let rows = rows_of(&r);
            for cell in &rows[0] {
                let bytes = decode_hex(cell.as_str().unwrap()).expect("hex");
                let f = |at: usize| f64::from_be_bytes(bytes[at..at + 8].try_into().unwrap());
                let l = |at: usize| i64::from_be_bytes(bytes[at..at + 8].try_into().unwrap());
                // Max error, no decay, then the smallest and largest value.
                assert_eq!(
                    (f(0), f(8), l(24), l(32)),
                    (0.05, 0.0, 2000, 2006),
                    "{v:?} {engine}"
                );
                let nodes = i32::from_be_bytes(bytes[40..44].try_into().unwrap()) as usize;
                assert_eq!(bytes.len(), 44 + 18 * nodes);
                let weight: f64 = (0..nodes).map(|i| f(44 + 18 * i + 10)).sum();
                assert_eq!(weight, ROWS as f64, "{v:?} {engine}");
            }
            if engine.is_empty() {
                let (names, types) = columns_of(&r);
                assert_eq!(names[0], "percentilerawest(year, 50.0)");
                assert_eq!(types, ["STRING", "STRING"]);
            }
        }
    }
}

#[test]
fn literal_queries_and_errors() {
    let t = table(Variant::Plain);
    let r = query(&t, "SELECT 1, 'a' AS x");
    assert_eq!(rows_of(&r), vec![vec![json!(1), json!("a")]]);
    assert_eq!(
        columns_of(&r),
        (
            vec!["1".to_string(), "x".to_string()],
            vec!["INT".to_string(), "STRING".to_string()]
        )
    );

    let r = query(&t, "SELECT COUNT(*) FROM nope");
    assert_eq!(r.exceptions[0].error_code, 190);
    assert!(r.result_table.is_none());
    let r = query(&t, "SELECT nope FROM stats");
    assert_eq!(r.exceptions[0].error_code, 710);
    assert_eq!(
        r.exceptions[0].message,
        "UnknownColumnError: Unknown columnName 'nope' found in the query"
    );
    let r = query(&t, "SELEC 1");
    assert_eq!(r.exceptions[0].error_code, 150);
    let r = query(
        &t,
        "SELECT a.team FROM stats a JOIN stats b ON a.team = b.team",
    );
    assert_eq!(r.exceptions[0].error_code, 150);
    assert!(r.exceptions[0].message.contains("multi-stage query engine"));
    // The multi-stage engine answers in-process too, with Calcite's column names.
    let r = query(
        &t,
        "SET useMultistageEngine=true; SELECT COUNT(*) FROM stats",
    );
    assert!(r.exceptions.is_empty(), "{:?}", r.exceptions);
    let table = r.result_table.as_ref().unwrap();
    assert_eq!(table.data_schema.column_names, vec!["EXPR$0".to_string()]);
    let v1 = query(&t, "SELECT COUNT(*) FROM stats");
    assert_eq!(table.rows, v1.result_table.as_ref().unwrap().rows);
    let r = execute_sql(
        "SELECT COUNT(*) FROM stats",
        Some("timeoutMs=abc"),
        &t.tables,
    );
    assert!(!r.exceptions.is_empty());
    let json = serde_json::to_value(query(&t, "SELECT COUNT(*) FROM stats")).unwrap();
    assert_eq!(json["tablesQueried"], json!(["stats"]));
    assert_eq!(
        json.as_object().unwrap().keys().next().unwrap(),
        "resultTable"
    );
}

#[test]
fn explain_shows_index_choices() {
    let t = table(Variant::Indexed);
    let r = query(
        &t,
        "EXPLAIN PLAN FOR SELECT team, year FROM stats WHERE team = 'BOS' AND year > 2003 AND name = 'player10'",
    );
    let rows = rows_of(&r);
    let ops: Vec<String> = rows
        .iter()
        .map(|r| r[0].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ops[0], "BROKER_REDUCE(limit:10)");
    assert_eq!(ops[1], "COMBINE_SELECT");
    assert!(
        ops[2].starts_with("PLAN_START(numSegmentsForThisPlan:"),
        "{ops:?}"
    );
    assert!(
        ops.iter().any(|o| o.starts_with(
            "FILTER_INVERTED_INDEX(indexLookUp:inverted_index,operator:EQ,predicate:team = 'BOS')"
        )),
        "{ops:?}"
    );
    assert!(
        ops.iter().any(|o| o.starts_with(
            "FILTER_RANGE_INDEX(indexLookUp:range_index,operator:RANGE,predicate:year > '2003')"
        )),
        "{ops:?}"
    );
    assert!(
        ops.iter()
            .any(|o| o.starts_with("FILTER_FULL_SCAN(operator:EQ,predicate:name = 'player10')")),
        "{ops:?}"
    );
    assert_eq!(
        columns_of(&r).0,
        vec!["Operator", "Operator_Id", "Parent_Id"]
    );
    assert_eq!(rows[0][2], json!(-1));
    assert_eq!(rows[1][2], json!(0));
    let r = query(&t, "EXPLAIN PLAN FOR SELECT COUNT(*) FROM stats");
    let ops: Vec<String> = rows_of(&r)
        .iter()
        .map(|r| r[0].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        ops,
        vec![
            "BROKER_REDUCE(limit:10)",
            "COMBINE_AGGREGATE",
            "PLAN_START(numSegmentsForThisPlan:2)",
            "AGGREGATE_METADATA"
        ]
    );
}

#[test]
fn segment_pruning_by_min_max_and_bloom() {
    let t = table(Variant::Indexed);
    let r = query(&t, "SELECT COUNT(*) FROM stats WHERE hits > 45000000000");
    assert_eq!(r.num_segments_pruned_by_server, 1);
    assert_eq!(r.num_segments_processed, 1);
    assert_eq!(
        rows_of(&r)[0][0],
        json!(
            (0..ROWS)
                .filter(|&i| i as i64 * 1_000_000_000 > 45_000_000_000)
                .count()
        )
    );
    let r = query(&t, "SELECT COUNT(*) FROM stats WHERE team = 'ZZZ'");
    assert_eq!(r.num_segments_processed, 0);
    assert_eq!(rows_of(&r)[0][0], json!(0));
}

#[test]
fn timeouts_become_error_250() {
    let t = table(Variant::Plain);
    let (mut plan, _) = plan_sql(
        "SELECT COUNT(*) FROM stats WHERE name LIKE '%x%'",
        None,
        &t.tables,
    )
    .unwrap();
    let QueryPlan::SingleStage(p) = &mut plan else {
        panic!("not single-stage")
    };
    Arc::make_mut(&mut p.server).options.timeout_ms = 0;
    let r = execute_plan(&plan, &t.tables);
    assert_eq!(r.exceptions[0].error_code, 250, "{:?}", r.exceptions);
    assert!(r.exceptions[0].message.starts_with("ExecutionTimeoutError"));
    assert!(r.result_table.is_none());
    let r = execute_sql("SELECT COUNT(*) FROM stats", Some("timeoutMs=0"), &t.tables);
    assert_eq!(r.exceptions[0].error_code, 700);
}

#[test]
fn sketches_sum_precision_and_group_limits() {
    for (v, t) in all_variants() {
        let r = query(
            &t,
            "SELECT DISTINCTCOUNTHLL(team), PERCENTILEEST(year, 50), PERCENTILETDIGEST(year, 50), SUMPRECISION(avg), DISTINCTCOUNTHLL(tags) FROM stats",
        );
        let rows = rows_of(&r);
        assert_eq!(rows[0][0], json!(4), "{v:?}");
        let median = 2000 + 3;
        assert!(
            (median - 1..=median + 1).contains(&rows[0][1].as_i64().unwrap()),
            "{v:?}: {:?}",
            rows[0][1]
        );
        assert!(
            (2002.0..=2004.0).contains(&rows[0][2].as_f64().unwrap()),
            "{v:?}: {:?}",
            rows[0][2]
        );
        let total: f64 = (0..ROWS).map(|i| (i % 10) as f64 / 4.0).sum();
        assert_eq!(
            rows[0][3].as_str().unwrap().parse::<f64>().unwrap(),
            total,
            "{v:?}"
        );
        assert_eq!(rows[0][4], json!(5), "{v:?}");
        assert_eq!(
            columns_of(&r).1,
            vec!["LONG", "LONG", "DOUBLE", "BIG_DECIMAL", "LONG"]
        );
        assert_eq!(columns_of(&r).0[1], "percentileest(year, 50.0)");

        let r = query(
            &t,
            "SET numGroupsLimit=3; SELECT name, COUNT(*) FROM stats GROUP BY name LIMIT 100",
        );
        assert!(r.num_groups_limit_reached, "{v:?}");
        assert!(r.partial_result);
        assert_eq!(rows_of(&r).len(), 3, "{v:?}");
    }
}

#[test]
fn missing_columns_and_virtual_columns() {
    // Plain: documents keep input order (the indexed variant sorts by `league`).
    let t = table(Variant::Plain);
    let mut schema = schema();
    schema
        .fields
        .push(FieldSpec::metric("extra", DataType::Int));
    let mut tables = MemoryTables::new();
    tables.add("stats", schema, t.tables.segments("stats"));
    let r = execute_sql(
        "SELECT SUM(extra), COUNT(*) FROM stats WHERE extra = 0",
        None,
        &tables,
    );
    assert_eq!(rows_of(&r), vec![vec![json!(0.0), json!(ROWS)]]);
    let r = execute_sql(
        "SELECT $docId, $segmentName, name FROM stats WHERE $docId < 2 ORDER BY $segmentName, $docId",
        None,
        &tables,
    );
    assert_eq!(
        rows_of(&r),
        vec![
            vec![json!(0), json!("stats_0"), json!("player00")],
            vec![json!(1), json!("stats_0"), json!("player01")],
            vec![json!(0), json!("stats_1"), json!("player40")],
            vec![json!(1), json!("stats_1"), json!("player41")],
        ]
    );
}

/// A segment large enough to be split into doc-range parts (4 × `MIN_PART_DOCS`): the same
/// queries in a pool of one thread (one part) and of four (four parts) give the same answers
/// and stats. Values are multiples of 1/4, so sums are exact in any order.
#[test]
fn split_scans_answer_as_one_part() {
    use tessera_engine::server::segment::MIN_PART_DOCS;
    let docs = 4 * MIN_PART_DOCS as usize + 123;
    let dir = tempfile::tempdir().unwrap();
    let mut schema = Schema {
        schema_name: "big".into(),
        ..Schema::default()
    };
    schema.fields.push(FieldSpec::dimension("k", DataType::Int));
    schema
        .fields
        .push(FieldSpec::dimension("g", DataType::String));
    schema.fields.push(FieldSpec::metric("v", DataType::Double));
    schema.fields.push(FieldSpec::metric("w", DataType::Long));
    schema.fields.push(FieldSpec::dimension("o", DataType::Int));
    let mut cfg = BuildConfig::new("big", "big_0");
    cfg.inverted.insert("g".into());
    cfg.range.insert("k".into());
    cfg.no_dictionary.insert("w".into());
    cfg.sorted_column = Some("o".into());
    let row = |i: usize| {
        let h = (i as u64).wrapping_mul(2_654_435_761) >> 7;
        vec![
            Value::Int((h % 1000) as i32),
            Value::String(format!("g{}", h % 7)),
            Value::Double((h % 4001) as f64 * 0.25),
            Value::Long((i % 977) as i64 - 300),
            Value::Int((i / 5) as i32),
        ]
    };
    let rows = (0..docs).map(|i| Ok(row(i)));
    let summary = build_segment_from_rows(&schema, &cfg, rows, dir.path()).unwrap();
    let seg = Arc::new(ImmutableSegment::open(&summary.segment_dir).unwrap());
    let mut tables = MemoryTables::new();
    tables.add("big", schema, vec![seg]);
    let run = |threads: usize, sql: &str| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| execute_sql(sql, None, &tables))
    };
    // Values of the sorted column spread over every part (a set of ids, each a doc range):
    // dense enough to be set as bits, and a few.
    let many: Vec<String> = (0..docs / 5).step_by(3).map(|o| o.to_string()).collect();
    let by_sorted_set = format!(
        "SELECT g, SUM(v), COUNT(*) FROM big WHERE o IN ({}) AND k < 700 GROUP BY g ORDER BY g",
        many.join(",")
    );
    let few_values = [2, docs / 10, docs / 5 - 1];
    let few = format!(
        "SELECT COUNT(*), SUM(w) FROM big WHERE o IN ({}, {}, {})",
        few_values[0], few_values[1], few_values[2]
    );
    let count_many = format!(
        "SELECT COUNT(*) FROM big WHERE o IN ({}) AND k < 700",
        many.join(",")
    );
    // Past `MANY_SORTED_IDS` ids of the sorted column and nothing to scan: the parts split the
    // ids' doc ranges.
    let most: Vec<String> = (0..docs / 5)
        .filter(|o| o % 7 != 0)
        .map(|o| o.to_string())
        .collect();
    assert!(most.len() > 4096);
    let count_most = format!(
        "SELECT COUNT(*), SUM(w) FROM big WHERE o IN ({})",
        most.join(",")
    );
    // An index (range on k, inverted on g) and a scan (w, raw) in one filter: the parts share
    // the index's answer and split the scan.
    let indexed_and_scanned = "SELECT COUNT(*) FROM big WHERE k BETWEEN 100 AND 400 \
                               AND g IN ('g2', 'g5') AND w > 0";
    // Counted from the rows themselves.
    let (mut few_count, mut few_sum, mut many_count) = (0i64, 0i64, 0i64);
    let mut indexed_count = 0i64;
    let (mut most_count, mut most_sum) = (0i64, 0i64);
    for r in (0..docs).map(row) {
        let (Value::Int(k), Value::Long(w), Value::Int(o)) = (&r[0], &r[3], &r[4]) else {
            unreachable!()
        };
        if few_values.contains(&(*o as usize)) {
            few_count += 1;
            few_sum += w;
        }
        if o % 3 == 0 && *k < 700 {
            many_count += 1;
        }
        if o % 7 != 0 && (*o as usize) < docs / 5 {
            most_count += 1;
            most_sum += w;
        }
        let Value::String(g) = &r[1] else {
            unreachable!()
        };
        if (100..=400).contains(k) && (g == "g2" || g == "g5") && *w > 0 {
            indexed_count += 1;
        }
    }
    for threads in [1, 4] {
        assert_eq!(
            rows_of(&run(threads, &few)),
            vec![vec![json!(few_count), json!(few_sum as f64)]],
            "{few}"
        );
        assert_eq!(
            rows_of(&run(threads, &count_many)),
            vec![vec![json!(many_count)]],
            "{threads} threads"
        );
        assert_eq!(
            rows_of(&run(threads, &count_most)),
            vec![vec![json!(most_count), json!(most_sum as f64)]],
            "{threads} threads"
        );
        assert_eq!(
            rows_of(&run(threads, indexed_and_scanned)),
            vec![vec![json!(indexed_count)]],
            "{threads} threads"
        );
    }
    for sql in [
        by_sorted_set.as_str(),
        few.as_str(),
        "SELECT k, SUM(v), COUNT(*), MAX(w) FROM big GROUP BY k ORDER BY SUM(v) DESC, k LIMIT 20",
        "SELECT g, AVG(v), MIN(w) FROM big WHERE k < 500 GROUP BY g ORDER BY g",
        "SELECT SUM(v), COUNT(*) FILTER (WHERE g = 'g3'), MAX(w) FROM big WHERE g <> 'g1'",
        "SELECT k, v, w FROM big WHERE g IN ('g2', 'g5') ORDER BY v DESC, w, k LIMIT 15",
        "SELECT DISTINCTCOUNT(k), PERCENTILE(v, 90) FROM big",
    ] {
        let one = run(1, sql);
        let four = run(4, sql);
        assert_eq!(rows_of(&one), rows_of(&four), "{sql}");
        assert!(!rows_of(&one).is_empty(), "{sql}");
        assert_eq!(one.num_docs_scanned, four.num_docs_scanned, "{sql}");
        assert_eq!(
            one.num_entries_scanned_post_filter, four.num_entries_scanned_post_filter,
            "{sql}"
        );
        assert_eq!(
            one.num_entries_scanned_in_filter, four.num_entries_scanned_in_filter,
            "{sql}"
        );
    }
}

/// An inline attempt (segments one after another on the calling thread) answers what the
/// pool answers; one out of budget says so, and the query run again without a budget answers
/// the same.
#[test]
fn inline_attempts_answer_as_the_pool_does() {
    use std::time::Duration;
    use tessera_engine::QueryContext;
    use tessera_engine::server::execute_server;
    for (variant, t) in all_variants() {
        for sql in [
            "SELECT team, SUM(runs), COUNT(*) FROM stats GROUP BY team ORDER BY team",
            "SELECT name, year FROM stats WHERE league = 'AL' ORDER BY year DESC, name LIMIT 7",
            "SELECT COUNT(*) FROM stats WHERE name LIKE 'player1%'",
            "SELECT DISTINCTCOUNT(year), MAX(avg) FROM stats WHERE year >= 2002",
        ] {
            let Ok((QueryPlan::SingleStage(p), _)) = plan_sql(sql, None, &t.tables) else {
                panic!("{sql}: not a single-stage plan");
            };
            let segments = t.tables.segments(&p.server.table);
            assert_eq!(segments.len(), 2);
            let new_ctx = || QueryContext::new(p.server.options.clone());
            let pooled = execute_server(&p.server, &segments, &new_ctx());
            assert!(pooled.exceptions.is_empty(), "{variant:?} {sql}");
            let roomy = new_ctx().inline(Duration::from_secs(600));
            let inline = execute_server(&p.server, &segments, &roomy);
            assert!(!roomy.over_budget(), "{variant:?} {sql}");
            assert_eq!(inline, pooled, "{variant:?} {sql}");
            let spent = new_ctx().inline(Duration::ZERO);
            execute_server(&p.server, &segments, &spent);
            assert!(spent.over_budget(), "{variant:?} {sql}");
            let again = execute_server(&p.server, &segments, &spent.unbounded());
            assert_eq!(again, pooled, "{variant:?} {sql}");
        }
    }
}

/// Scans over spans of many read runs, starting off a multiple of 8 (a sorted column's range),
/// over dense candidates (read whole and intersected) and sparse ones (read document by
/// document): dictionary columns with range and set lookups, and the same columns raw (no
/// dictionary), integer and floating. Every count and sum is the rows' own.
#[test]
fn scans_agree_with_the_rows() {
    const N: usize = 20_011;
    let x = |i: usize| (i * 7919 % 101) as i32;
    let s = |i: usize| format!("v{}", i % 13);
    let k = |i: usize| (i / 3) as i32;
    let y = |i: usize| (i * 31 % 197) as f64 / 4.0;
    let mut schema = Schema {
        schema_name: "scans".into(),
        ..Schema::default()
    };
    for (name, dt) in [
        ("k", DataType::Int),
        ("x", DataType::Int),
        ("s", DataType::String),
        ("y", DataType::Double),
    ] {
        schema.fields.push(FieldSpec::dimension(name, dt));
    }
    let dir = tempfile::tempdir().unwrap();
    let mut segs = Vec::new();
    for (name, layout) in [
        ("scans_0", "plain"),
        ("scans_1", "inverted"),
        ("scans_2", "raw"),
    ] {
        let mut cfg = BuildConfig::new("scans", name);
        cfg.sorted_column = Some("k".into());
        match layout {
            "inverted" => {
                cfg.inverted.insert("s".into());
            }
            "raw" => {
                cfg.no_dictionary.extend(["x".to_string(), "y".to_string()]);
            }
            _ => {}
        }
        let rows = (0..N).map(|i| {
            Ok(vec![
                Value::Int(k(i)),
                Value::Int(x(i)),
                Value::String(s(i)),
                Value::Double(y(i)),
            ])
        });
        let summary =
            build_segment_from_rows(&schema, &cfg, rows, dir.path().join(name).as_path()).unwrap();
        let one = ImmutableSegment::open(&summary.segment_dir).unwrap();
        segs.push(Arc::new(one));
    }
    // One table per segment: dictionaries, an inverted index on `s`, raw `x` and `y`.
    for (t, seg) in ["plain", "inverted", "raw"].into_iter().zip(segs) {
        let mut tables_one = MemoryTables::new();
        tables_one.add("scans", schema.clone(), vec![seg]);
        let cases: [(&str, &dyn Fn(usize) -> bool); 8] = [
            ("x > 50", &|i| x(i) > 50),
            ("x IN (1, 5, 99, 100)", &|i| [1, 5, 99, 100].contains(&x(i))),
            ("x > 50 AND x <> 77 AND s <> 'v4'", &|i| {
                x(i) > 50 && x(i) != 77 && s(i) != "v4"
            }),
            ("s = 'v3' AND x < 20", &|i| s(i) == "v3" && x(i) < 20),
            ("k BETWEEN 7 AND 5000 AND x >= 33", &|i| {
                (7..=5000).contains(&k(i)) && x(i) >= 33
            }),
            ("k > 6601 AND x IN (0, 50)", &|i| {
                k(i) > 6601 && [0, 50].contains(&x(i))
            }),
            ("y > 12.5", &|i| y(i) > 12.5),
            ("y BETWEEN 3.0 AND 40.25 AND x > 10", &|i| {
                (3.0..=40.25).contains(&y(i)) && x(i) > 10
            }),
        ];
        for (filter, accept) in cases {
            // SUM(k) depends on which documents matched, not only on how many.
            let sql = format!("SELECT COUNT(*), SUM(k) FROM scans WHERE {filter}");
            let r = execute_sql(&sql, None, &tables_one);
            let count = (0..N).filter(|&i| accept(i)).count();
            let sum: i64 = (0..N).filter(|&i| accept(i)).map(|i| k(i) as i64).sum();
            let want = vec![vec![json!(count), json!(sum as f64)]];
            assert_eq!(rows_of(&r), want, "{t}: {sql}");
        }
    }
}

/// An aggregate inside a window's `ORDER BY` is the block's aggregate (the window ranks the
/// groups), as in Calcite: every walk over the query sees window specs (`sql::tree`).
#[test]
fn aggregates_inside_a_window_spec_group_the_block() {
    let t = table(Variant::Plain);
    let v2 = "SET useMultistageEngine=true; ";
    let r = query(
        &t,
        &format!("{v2}SELECT RANK() OVER (ORDER BY SUM(runs)) FROM stats"),
    );
    assert_eq!(rows_of(&r), vec![vec![json!(1)]]);
    let r = query(
        &t,
        &format!(
            "{v2}SELECT team, RANK() OVER (ORDER BY COUNT(*) DESC, team) FROM stats \
             GROUP BY team ORDER BY team"
        ),
    );
    assert_eq!(
        rows_of(&r),
        vec![
            vec![json!("BOS"), json!(1)],
            vec![json!("LAN"), json!(2)],
            vec![json!("NYA"), json!(3)],
            vec![json!("SFN"), json!(4)],
        ]
    );
}

/// A float compared within a relative tolerance (sums in another order round differently).
fn close(actual: &Json, expected: f64) -> bool {
    actual
        .as_f64()
        .is_some_and(|a| (a - expected).abs() <= 1e-9 * expected.abs().max(1.0))
}

#[test]
fn statistics_distinct_exact_and_list_aggregates_in_both_engines() {
    let avgs: Vec<f64> = (0..ROWS).map(|i| (i % 10) as f64 / 4.0).collect();
    let n = avgs.len() as f64;
    let mean = avgs.iter().sum::<f64>() / n;
    let m2: f64 = avgs.iter().map(|x| (x - mean) * (x - mean)).sum();
    let distinct: Vec<f64> = (0..10).map(|k| k as f64 / 4.0).collect();
    let hits: Vec<i64> = (0..ROWS as i64).map(|i| i * 1_000_000_000).collect();
    let mut bins = [0.0; 5];
    for x in &avgs {
        bins[((x / 0.5).floor() as usize).min(4)] += 1.0;
    }
    for (v, t) in all_variants() {
        for engine in ["", "SET useMultistageEngine=true; "] {
            let at = format!("{v:?} {engine}");
            let r = query(
                &t,
                &format!(
                    "{engine}SELECT VAR_POP(avg), VARSAMP(avg), STDDEV_POP(avg), stdDevSamp(avg), \
                     DISTINCTSUM(avg), DISTINCTAVG(avg), SUMLONG(hits), MINLONG(hits), MAXLONG(hits), \
                     HISTOGRAM(avg, 0, 2.5, 5), HISTOGRAM(avg, ARRAY[0, 1, 2.25]) FROM stats"
                ),
            );
            let rows = rows_of(&r);
            let row = &rows[0];
            assert!(close(&row[0], m2 / n), "{at}: {row:?}");
            assert!(close(&row[1], m2 / (n - 1.0)), "{at}: {row:?}");
            assert!(close(&row[2], (m2 / n).sqrt()), "{at}: {row:?}");
            assert!(close(&row[3], (m2 / (n - 1.0)).sqrt()), "{at}: {row:?}");
            assert!(close(&row[4], distinct.iter().sum()), "{at}: {row:?}");
            assert!(
                close(&row[5], distinct.iter().sum::<f64>() / 10.0),
                "{at}: {row:?}"
            );
            assert_eq!(row[6], json!(hits.iter().sum::<i64>()), "{at}");
            assert_eq!(row[7], json!(0), "{at}");
            assert_eq!(row[8], json!(59_000_000_000i64), "{at}");
            assert_eq!(row[9], json!(bins), "{at}");
            // [0, 1): 0, 0.25, 0.5, 0.75; [1, 2.25]: the rest, the last edge inclusive.
            assert_eq!(row[10], json!([24.0, 36.0]), "{at}");
            let (_, types) = columns_of(&r);
            assert_eq!(types[6], "LONG", "{at}");
            assert_eq!(types[9], "DOUBLE_ARRAY", "{at}");

            // Per group: any value of a group's key is the key; distinct lists.
            let r = query(
                &t,
                &format!(
                    "{engine}SELECT team, ANY_VALUE(team), ARRAYAGG(year, 'INT', true), \
                     LISTAGG(league, '|', true), SUM(DISTINCT avg), AVG(DISTINCT avg) \
                     FROM stats GROUP BY team ORDER BY team"
                ),
            );
            let rows = rows_of(&r);
            assert_eq!(rows.len(), 4, "{at}");
            for row in &rows {
                let team = row[0].as_str().unwrap();
                assert_eq!(row[1], row[0], "{at}");
                let k = TEAMS.iter().position(|x| *x == team).unwrap();
                let mut years: Vec<i64> = row[2]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|y| y.as_i64().unwrap())
                    .collect();
                years.sort();
                let mut expected: Vec<i64> = (0..ROWS)
                    .filter(|i| i % 4 == k)
                    .map(|i| 2000 + (i % 7) as i64)
                    .collect();
                expected.sort();
                expected.dedup();
                assert_eq!(years, expected, "{at} {team}");
                let mut leagues: Vec<&str> = row[3].as_str().unwrap().split('|').collect();
                leagues.sort();
                assert_eq!(leagues, vec!["AL", "NL"], "{at} {team}");
                let group: Vec<f64> = {
                    let mut d: Vec<f64> = (0..ROWS)
                        .filter(|i| i % 4 == k)
                        .map(|i| (i % 10) as f64 / 4.0)
                        .collect();
                    d.sort_by(f64::total_cmp);
                    d.dedup();
                    d
                };
                assert!(close(&row[4], group.iter().sum()), "{at} {row:?}");
                assert!(
                    close(&row[5], group.iter().sum::<f64>() / group.len() as f64),
                    "{at} {row:?}"
                );
            }
        }
    }
}

#[test]
fn exact_long_sums_refuse_to_overflow() {
    let t = table(Variant::Plain);
    let r = query(&t, "SELECT SUMLONG(hits * 1000000000) FROM stats");
    let text = format!("{:?}", r.exceptions);
    assert!(
        text.contains("overflow") || r.result_table.is_none(),
        "an overflowing exact sum answered: {:?}",
        r.result_table
    );
}

#[test]
fn two_argument_aggregates_in_both_engines() {
    let xs: Vec<f64> = (0..ROWS).map(|i| (i % 10) as f64 / 4.0).collect();
    let ys: Vec<f64> = (0..ROWS).map(|i| i as f64 * 1e9).collect();
    let n = ROWS as f64;
    let (sx, sy) = (xs.iter().sum::<f64>(), ys.iter().sum::<f64>());
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| x * y).sum();
    let pop = sxy / n - sx * sy / (n * n);
    let samp = sxy / (n - 1.0) - sx * sy / (n * (n - 1.0));
    for (v, t) in all_variants() {
        for engine in ["", "SET useMultistageEngine=true; "] {
            let at = format!("{v:?} {engine}");
            let r = query(
                &t,
                &format!(
                    "{engine}SELECT COVAR_POP(avg, hits), COVARSAMP(avg, hits), \
                     FIRSTWITHTIME(name, hits, 'STRING'), LASTWITHTIME(year, hits, 'INT'), \
                     EXPRMIN(name, hits), EXPRMAX(name, hits) FROM stats"
                ),
            );
            let rows = rows_of(&r);
            let row = &rows[0];
            assert!(close(&row[0], pop), "{at}: {row:?} vs {pop}");
            assert!(close(&row[1], samp), "{at}: {row:?} vs {samp}");
            assert_eq!(row[2], json!("player00"), "{at}");
            assert_eq!(row[3], json!(2003), "{at}");
            assert_eq!(row[4], json!("player00"), "{at}");
            assert_eq!(row[5], json!("player59"), "{at}");
            let (names, types) = columns_of(&r);
            assert_eq!(types[2..4], ["STRING", "INT"], "{at}");
            if engine.is_empty() {
                // Pinot's v1 names of two-input aggregates name both inputs.
                assert_eq!(
                    names[..4],
                    [
                        "covarpop(avg,hits)",
                        "covarsamp(avg,hits)",
                        "firstwithtime(name,hits,'STRING')",
                        "lastwithtime(year,hits,'INT')"
                    ],
                    "{at}"
                );
            }
            // Per group, and a window over the groups' rows.
            let r = query(
                &t,
                &format!(
                    "{engine}SELECT team, LASTWITHTIME(name, hits, 'STRING') FROM stats \
                     GROUP BY team ORDER BY team"
                ),
            );
            let last: Vec<Json> = rows_of(&r).iter().map(|r| r[1].clone()).collect();
            // BOS: rows 0, 4, …, 56; LAN 3…59; NYA 1…57; SFN 2…58.
            assert_eq!(
                last,
                vec![
                    json!("player56"),
                    json!("player59"),
                    json!("player57"),
                    json!("player58")
                ],
                "{at}"
            );
        }
    }
    let t = table(Variant::Plain);
    let r = query(&t, "SELECT FIRSTWITHTIME(name, hits) FROM stats");
    assert!(!r.exceptions.is_empty(), "a missing data type is an error");
    let r = query(&t, "SELECT FIRSTWITHTIME(name, hits, 'MAP') FROM stats");
    assert!(!r.exceptions.is_empty(), "an unknown data type is an error");
    let r = query(&t, "SELECT COVARPOP(avg, team) FROM stats");
    assert!(!r.exceptions.is_empty(), "a text measure is an error");
}

#[test]
fn integer_arithmetic_is_exact_and_overflow_is_an_error_in_v2() {
    let t = table(Variant::Plain);
    let v2 = "SET useMultistageEngine=true; ";
    // 2^53 + 1 does not survive a double.
    let r = query(
        &t,
        &format!(
            "{v2}SELECT 9007199254740993 + hits, hits - 9007199254740993 FROM stats WHERE hits = 0"
        ),
    );
    assert_eq!(
        rows_of(&r)[0],
        vec![json!(9007199254740993i64), json!(-9007199254740993i64)]
    );
    let r = query(
        &t,
        &format!("{v2}SELECT hits * 9223372036 FROM stats WHERE hits > 0"),
    );
    let text = format!("{:?}", r.exceptions);
    assert!(text.contains("long overflow"), "{text}");
    let r = query(&t, &format!("{v2}SELECT 2147483647 + year FROM stats"));
    let text = format!("{:?}", r.exceptions);
    assert!(text.contains("integer overflow"), "{text}");
    // Integer sums and products stay integers in v2; exact past 2^53 over columns too.
    let r = query(
        &t,
        &format!(
            "{v2}SELECT year * 2 - 1, hits + 9007199254740993 FROM stats WHERE hits = 1000000000"
        ),
    );
    assert_eq!(
        rows_of(&r)[0],
        vec![json!(4001), json!(9007200254740993i64)]
    );
    let (_, types) = columns_of(&r);
    assert_eq!(types, vec!["INT", "LONG"]);
    // `%` of integers is an integer too (as mod()), Java's remainder; by zero an error.
    let r = query(
        &t,
        &format!(
            "{v2}SELECT year % 7, -year % 7, (hits + 9007199254740993) % 10, MOD(year, 7) \
             FROM stats WHERE hits = 1000000000"
        ),
    );
    assert_eq!(
        rows_of(&r)[0],
        vec![json!(6), json!(-6), json!(3), json!(6)]
    );
    assert_eq!(columns_of(&r).1, vec!["INT", "INT", "LONG", "INT"]);
    let r = query(&t, &format!("{v2}SELECT year % (year - year) FROM stats"));
    let text = format!("{:?}", r.exceptions);
    assert!(text.contains("division by zero"), "{text}");
}

#[test]
fn join_and_aggregate_hints_act_and_keep_answers() {
    let t = table(Variant::Indexed);
    let v2 = "SET useMultistageEngine=true; ";
    let count = |sql: &str| -> Json {
        let r = query(&t, &format!("{v2}{sql}"));
        rows_of(&r)[0][0].clone()
    };
    // 4 teams of 15 rows: 4 × 15² pairs.
    for hint in [
        "",
        "/*+ joinOptions(right_distribution_type='broadcast') */",
        "/*+ joinOptions(left_distribution_type='broadcast', right_distribution_type='local') */",
        "/*+ joinOptions(join_strategy='dynamic_broadcast') */",
        "/*+ joinOptions(join_strategy='hash', is_colocated_by_join_keys='false') */",
    ] {
        assert_eq!(
            count(&format!(
                "SELECT {hint} COUNT(*) FROM stats a JOIN stats b ON a.team = b.team"
            )),
            json!(900),
            "{hint}"
        );
        // LEFT JOIN: every left row at least once.
        if !hint.contains("left_distribution_type") {
            assert_eq!(
                count(&format!(
                    "SELECT {hint} COUNT(*) FROM stats a LEFT JOIN stats b \
                     ON a.team = b.team AND b.year = 2000"
                )),
                json!(count(
                    "SELECT COUNT(*) FROM stats a LEFT JOIN stats b ON a.team = b.team AND b.year = 2000"
                )),
                "{hint}"
            );
        }
        // A semi join from IN (subquery).
        assert_eq!(
            count(&format!(
                "SELECT {hint} COUNT(*) FROM stats WHERE team IN \
                 (SELECT team FROM stats WHERE year = 2000 AND league = 'AL')"
            )),
            count(
                "SELECT COUNT(*) FROM stats WHERE team IN \
                 (SELECT team FROM stats WHERE year = 2000 AND league = 'AL')"
            ),
            "{hint}"
        );
    }
    // A broadcast left side would repeat unmatched left rows: refused, as are both sides.
    for bad in [
        "SELECT /*+ joinOptions(left_distribution_type='broadcast') */ COUNT(*) FROM stats a LEFT JOIN stats b ON a.team = b.team",
        "SELECT /*+ joinOptions(right_distribution_type='broadcast') */ COUNT(*) FROM stats a FULL JOIN stats b ON a.team = b.team",
        "SELECT /*+ joinOptions(left_distribution_type='broadcast', right_distribution_type='broadcast') */ COUNT(*) FROM stats a JOIN stats b ON a.team = b.team",
        "SELECT /*+ joinOptions(right_distribution_type='sideways') */ COUNT(*) FROM stats a JOIN stats b ON a.team = b.team",
        "SELECT /*+ aggOptions(error_on_num_groups_limit='maybe') */ team FROM stats GROUP BY team",
    ] {
        let r = query(&t, &format!("{v2}{bad}"));
        assert!(!r.exceptions.is_empty(), "{bad} answered");
    }
    // Reaching numGroupsLimit fails the query when asked to, in both engines.
    let r = query(
        &t,
        &format!(
            "{v2}SET numGroupsLimit=2; SELECT /*+ aggOptions(error_on_num_groups_limit='true') */ \
             team, COUNT(*) FROM stats GROUP BY team"
        ),
    );
    let text = format!("{:?}", r.exceptions);
    assert!(text.contains("NUM_GROUPS_LIMIT has been reached"), "{text}");
    for engine in ["", v2] {
        let r = query(
            &t,
            &format!(
                "{engine}SET numGroupsLimit=2; SET errorOnNumGroupsLimit=true; \
                 SELECT team, COUNT(*) FROM stats GROUP BY team"
            ),
        );
        let text = format!("{:?}", r.exceptions);
        assert!(text.contains("NUM_GROUPS_LIMIT"), "{engine}: {text}");
        let r = query(
            &t,
            &format!(
                "{engine}SET numGroupsLimit=2; SELECT team, COUNT(*) FROM stats GROUP BY team"
            ),
        );
        assert!(
            r.exceptions.is_empty() && r.num_groups_limit_reached,
            "{engine}"
        );
    }
}

#[test]
fn calcite_surface_natural_joins_unicode_literals_and_messages() {
    let t = table(Variant::Plain);
    let v2 = "SET useMultistageEngine=true; ";
    let r = query(
        &t,
        &format!(
            "{v2}SELECT COUNT(*) FROM (SELECT team, year FROM stats) a \
             NATURAL JOIN (SELECT team, league FROM stats) b"
        ),
    );
    assert_eq!(rows_of(&r)[0][0], json!(900), "joined on team alone");
    let r = query(
        &t,
        &format!(
            "{v2}SELECT COUNT(*) FROM (SELECT team, year FROM stats) a \
             NATURAL LEFT JOIN (SELECT team, year FROM stats WHERE year = 2000) b"
        ),
    );
    // On (team, year): rows of year 2000 meet their team's 2000 rows, the others once.
    let year_2000: Vec<usize> = (0..ROWS).filter(|i| i % 7 == 0).collect();
    let matched: usize = year_2000
        .iter()
        .map(|i| year_2000.iter().filter(|j| *j % 4 == *i % 4).count())
        .sum();
    assert_eq!(rows_of(&r)[0][0], json!(matched + ROWS - year_2000.len()));
    let r = query(
        &t,
        &format!("{v2}SELECT * FROM stats a NATURAL JOIN stats b ON a.team = b.team"),
    );
    assert!(!r.exceptions.is_empty(), "NATURAL with ON is refused");

    let r = query(
        &t,
        &format!("{v2}SELECT U&'\\0041\\+01F600' FROM stats LIMIT 1"),
    );
    assert_eq!(rows_of(&r)[0][0], json!("A\u{1F600}"));

    let r = query(&t, &format!("{v2}SELECT team, COUNT(*) FROM stats"));
    let text = format!("{:?}", r.exceptions);
    assert!(
        text.contains("Expression 'team' is not being grouped"),
        "{text}"
    );
    assert_eq!(r.exceptions[0].error_code, 700);
    let r = query(&t, &format!("{v2}SELECT SUM(flag) FROM stats"));
    let text = format!("{:?}", r.exceptions);
    assert!(
        text.contains("Cannot apply 'SUM' to arguments of type 'SUM(<BOOLEAN>)'"),
        "{text}"
    );
}

#[test]
fn internal_functions_read_the_query_identity_in_both_engines() {
    let t = table(Variant::Indexed);
    // Literal arguments: folded on the broker in either engine (stage and worker -1).
    for (prefix, engine) in [("", "SSE"), ("SET useMultistageEngine=true; ", "MSE")] {
        let r = query(
            &t,
            &format!(
                "{prefix}SELECT reqId('x'), cid('x'), brokerId('x'), queryEngine('x'), \
                 stageId('x'), workerId('x'), endTime('x') - startTime('x'), \
                 reqId(CAST(NULL AS VARCHAR)) FROM stats LIMIT 1"
            ),
        );
        let rows = rows_of(&r);
        let (_, types) = columns_of(&r);
        assert_eq!(
            &types[..6],
            ["LONG", "STRING", "STRING", "STRING", "INT", "INT"],
            "{engine}"
        );
        let request_id: i64 = r.request_id.parse().unwrap();
        assert_eq!(rows[0][0], json!(request_id), "{engine}");
        assert_eq!(rows[0][1], json!(r.request_id), "{engine}");
        assert_eq!(rows[0][2], json!("unknown"), "{engine}");
        assert_eq!(rows[0][3], json!(engine));
        assert_eq!((&rows[0][4], &rows[0][5]), (&json!(-1), &json!(-1)));
        // The default timeout, 10 s (v1 subtracts as DOUBLE).
        assert_eq!(rows[0][6].as_f64(), Some(10_000.0), "{engine}");
        assert_eq!(rows[0][7], Json::Null, "{engine}");
    }
    // Column arguments run where the rows are: a multi-stage worker answers its own stage and
    // worker, NULL arguments give NULL.
    let r = query(
        &t,
        "SET useMultistageEngine=true; SELECT stageId(team), workerId(team), queryEngine(team), \
         reqId(CAST(runs AS VARCHAR)) IS NULL, runs IS NULL FROM stats",
    );
    let rows = rows_of(&r);
    assert_eq!(rows.len(), ROWS);
    for row in &rows {
        assert!(row[0].as_i64().unwrap() >= 1, "{row:?}");
        assert!(row[1].as_i64().unwrap() >= 0, "{row:?}");
        assert_eq!(row[2], json!("MSE"));
        assert_eq!(row[3], row[4]);
    }
    let r = query(
        &t,
        "SELECT stageId(team), queryEngine(team), cid(team) FROM stats LIMIT 1",
    );
    assert_eq!(
        rows_of(&r)[0],
        vec![json!(-1), json!("SSE"), json!(r.request_id)]
    );
    // A query without a table names its column by the value, as other constants.
    let r = query(&t, "SELECT reqId('a'), queryEngine('a') AS e");
    let (names, types) = columns_of(&r);
    assert_eq!(names, [r.request_id.clone(), "e".to_string()]);
    assert_eq!(types, ["LONG", "STRING"]);
    assert_eq!(rows_of(&r)[0][1], json!("SSE"));
    // Each run its own identity.
    let again = query(&t, "SELECT reqId('a'), queryEngine('a') AS e");
    assert_ne!(rows_of(&again)[0][0], rows_of(&r)[0][0]);
}

#[test]
fn st_union_aggregates_geometries_in_both_engines() {
    let t = table(Variant::Indexed);
    for prefix in ["", "SET useMultistageEngine=true; "] {
        // Two overlapping squares, alternating by row, in every group: one 7-unit polygon.
        let r = query(
            &t,
            &format!(
                "{prefix}SELECT team, ST_Area(STUnion(CASE WHEN MOD(year, 2) = 0 \
                 THEN ST_GeomFromText('POLYGON((0 0, 0 2, 2 2, 2 0, 0 0))') \
                 ELSE ST_GeomFromText('POLYGON((1 1, 1 3, 3 3, 3 1, 1 1))') END)), \
                 ST_GeometryType(STUnion(ST_GeomFromText('POLYGON((0 0, 0 2, 2 2, 2 0, 0 0))'))) \
                 FROM stats GROUP BY team ORDER BY team"
            ),
        );
        let rows = rows_of(&r);
        assert_eq!(rows.len(), 4, "{prefix}");
        for row in &rows {
            assert_eq!(row[1].as_f64(), Some(7.0), "{prefix}{row:?}");
            assert_eq!(row[2], json!("Polygon"), "{prefix}{row:?}");
        }
        // Points: each distinct year once, whatever the segments and workers.
        let r = query(
            &t,
            &format!("{prefix}SELECT ST_AsText(STUnion(ST_Point(year, 0))) FROM stats"),
        );
        let text = rows_of(&r)[0][0].as_str().unwrap().to_string();
        assert!(text.starts_with("MULTIPOINT"), "{prefix}{text}");
        let mut xs: Vec<String> = text
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| s.len() == 4)
            .map(str::to_string)
            .collect();
        xs.sort();
        let years: Vec<String> = (2000..2007).map(|y| y.to_string()).collect();
        assert_eq!(xs, years, "{prefix}{text}");
        // The result is BYTES (hex); no rows: Pinot's empty point, or NULL with null handling.
        let r = query(
            &t,
            &format!(
                "{prefix}SELECT STUnion(ST_Point(year, 0)), ST_AsText(STUnion(ST_Point(year, 0))) \
                 FROM stats WHERE year > 3000"
            ),
        );
        assert_eq!(columns_of(&r).1[0], "BYTES", "{prefix}");
        assert_eq!(rows_of(&r)[0][1], json!("POINT EMPTY"), "{prefix}");
        let r = query(
            &t,
            &format!(
                "{prefix}SET enableNullHandling=true; SELECT STUnion(ST_Point(year, 0)) \
                 FROM stats WHERE year > 3000"
            ),
        );
        assert_eq!(rows_of(&r)[0][0], Json::Null, "{prefix}");
        // Bytes that are no geometry: an error, not an answer.
        let r = query(&t, &format!("{prefix}SELECT STUnion(hits) FROM stats"));
        assert!(!r.exceptions.is_empty(), "{prefix}");
    }
}

#[test]
fn numbers_become_text_and_narrow_as_java_does_in_both_engines() {
    let t = table(Variant::Indexed);
    for prefix in ["", "SET useMultistageEngine=true; "] {
        let r = query(
            &t,
            &format!(
                "{prefix}SELECT CAST(hits * 10.0 AS VARCHAR), CAST(avg / 1000 AS VARCHAR), \
                 CAST(CAST(avg AS FLOAT) AS VARCHAR), CAST(runs * 1.5 AS VARCHAR) \
                 FROM stats WHERE name = 'player02'"
            ),
        );
        // Row 2: hits 2e9, avg 0.5, runs 14 (Double.toString / Float.toString of each).
        assert_eq!(
            rows_of(&r)[0],
            vec![
                json!("2.0E10"),
                json!("5.0E-4"),
                json!("0.5"),
                json!("21.0")
            ],
            "{prefix}"
        );
        // Java's narrowing of infinities: the type's bounds, no error.
        let r = query(
            &t,
            &format!(
                "{prefix}SELECT CAST(avg / 0 AS INT), CAST(-avg / 0 AS BIGINT), \
                 CAST(CAST(-avg / 0 AS FLOAT) AS INT) FROM stats WHERE name = 'player02'"
            ),
        );
        assert_eq!(
            rows_of(&r)[0],
            vec![json!(i32::MAX), json!(i64::MIN), json!(i32::MIN)],
            "{prefix}"
        );
    }
}

#[test]
fn timestamp_add_and_diff_take_an_unquoted_unit_in_both_engines() {
    let t = table(Variant::Indexed);
    for prefix in ["", "SET useMultistageEngine=true; "] {
        let r = query(
            &t,
            &format!(
                "{prefix}SELECT TIMESTAMPDIFF(DAY, hits, TIMESTAMPADD(DAY, 3, hits)), \
                 timestampdiff(sql_tsi_hour, 0, 7200000), TIMESTAMPADD('MINUTE', 1, 0) \
                 FROM stats WHERE name = 'player02'"
            ),
        );
        assert_eq!(
            rows_of(&r)[0],
            vec![json!(3), json!(2), json!(60_000)],
            "{prefix}"
        );
    }
}

#[test]
fn set_operations_widen_numbers_to_the_least_restrictive_type() {
    let t = table(Variant::Indexed);
    let v2 = "SET useMultistageEngine=true; ";
    // Row 3: runs 21 (INT), hits 3e9 (LONG, past INT), avg 0.75 (DOUBLE).
    let r = query(
        &t,
        &format!(
            "{v2}SELECT runs FROM stats WHERE name = 'player03' \
             UNION ALL SELECT hits FROM stats WHERE name = 'player03'"
        ),
    );
    assert_eq!(columns_of(&r).1, ["LONG"]);
    let mut rows = rows_of(&r);
    rows.sort_by_key(|r| r[0].as_i64());
    assert_eq!(rows, [vec![json!(21)], vec![json!(3_000_000_000i64)]]);
    let r = query(
        &t,
        &format!(
            "{v2}SELECT avg FROM stats WHERE name = 'player03' \
             UNION SELECT runs FROM stats WHERE name = 'player03' \
             EXCEPT SELECT CAST(0.75 AS DOUBLE) FROM stats WHERE name = 'player03'"
        ),
    );
    assert_eq!(columns_of(&r).1, ["DOUBLE"]);
    assert_eq!(rows_of(&r), [vec![json!(21.0)]]);
}

#[test]
fn named_time_zones_follow_the_tz_database_in_both_engines() {
    let t = table(Variant::Indexed);
    for prefix in ["", "SET useMultistageEngine=true; "] {
        // hits of row 2: 2e9 ms = 1970-01-24T03:33:20Z.
        let r = query(
            &t,
            &format!(
                "{prefix}SELECT toDateTime(hits, 'yyyy-MM-dd HH:mm', 'America/Los_Angeles'), \
                 hour(hits, 'Asia/Kolkata'), \
                 dateTrunc('DAY', hits, 'MILLISECONDS', 'America/Los_Angeles') \
                 FROM stats WHERE name = 'player02'"
            ),
        );
        assert_eq!(
            rows_of(&r)[0],
            vec![json!("1970-01-23 19:33"), json!(9), json!(1_929_600_000i64)],
            "{prefix}"
        );
        let r = query(
            &t,
            &format!("{prefix}SELECT hour(hits, 'Mars/Olympus') FROM stats LIMIT 1"),
        );
        assert!(
            r.exceptions
                .first()
                .is_some_and(|e| e.message.contains("unknown time zone 'Mars/Olympus'")),
            "{prefix}{:?}",
            r.exceptions
        );
    }
}

#[test]
fn using_and_natural_joins_show_each_joined_column_once() {
    let t = table(Variant::Plain);
    let v2 = "SET useMultistageEngine=true; ";
    let a = "(SELECT team, year FROM stats WHERE year = 2000) a";
    let b = "(SELECT team, league FROM stats WHERE year = 2001) b";
    // `*`: the joined column once, first, then each side's others.
    for join in [
        format!("{a} JOIN {b} USING (team)"),
        format!("{a} NATURAL JOIN {b}"),
    ] {
        let r = query(&t, &format!("{v2}SELECT * FROM {join} LIMIT 1"));
        assert_eq!(columns_of(&r).0, ["team", "year", "league"], "{join}");
        // The bare name is the joined column; the qualified ones still reach each side.
        let r = query(
            &t,
            &format!(
                "{v2}SELECT team, a.team, b.team, COUNT(*) FROM {join} GROUP BY team, a.team, b.team ORDER BY team"
            ),
        );
        let rows = rows_of(&r);
        assert_eq!(rows.len(), 4, "{join}");
        assert!(rows.iter().all(|r| r[0] == r[1] && r[1] == r[2]), "{join}");
    }
    // A FULL join's joined column is the side that is not NULL.
    let r = query(
        &t,
        &format!(
            "{v2}SELECT COUNT(*), COUNT(team) FROM \
             (SELECT team FROM stats WHERE team = 'BOS') a FULL JOIN \
             (SELECT team FROM stats WHERE team = 'NYA') b USING (team)"
        ),
    );
    let rows = rows_of(&r);
    assert_eq!(rows[0][0], rows[0][1]);
}

#[test]
fn having_without_group_by_makes_one_group_in_v2() {
    let t = table(Variant::Plain);
    let v2 = "SET useMultistageEngine=true; ";
    let r = query(&t, &format!("{v2}SELECT 1 AS one FROM stats HAVING 1 > 2"));
    assert!(rows_of(&r).is_empty());
    let r = query(&t, &format!("{v2}SELECT 1 AS one FROM stats HAVING 1 < 2"));
    assert_eq!(rows_of(&r), [vec![json!(1)]]);
    let r = query(&t, &format!("{v2}SELECT team FROM stats HAVING 1 < 2"));
    assert!(!r.exceptions.is_empty());
}

#[test]
fn correlated_scalar_count_reads_zero_for_an_empty_group() {
    let t = table(Variant::Plain);
    let v2 = "SET useMultistageEngine=true; ";
    // Per team, how many rows of the same team have year 2000 — teams are i % 4, years i % 7,
    // and every team has rows of 2000; a team named nowhere else counts 0, not NULL.
    let r = query(
        &t,
        &format!(
            "{v2}SELECT a.team, (SELECT COUNT(*) FROM stats b WHERE b.team = a.team AND b.year = 2000) \
             FROM (SELECT DISTINCT team FROM stats) a ORDER BY a.team"
        ),
    );
    let count = |team: usize| (0..ROWS).filter(|i| i % 4 == team && i % 7 == 0).count();
    let expected: Vec<Vec<Json>> = [("BOS", 0), ("LAN", 3), ("NYA", 1), ("SFN", 2)]
        .iter()
        .map(|(n, k)| vec![json!(n), json!(count(*k))])
        .collect();
    assert_eq!(rows_of(&r), expected);
    let r = query(
        &t,
        &format!(
            "{v2}SELECT a.team, (SELECT COUNT(*) FROM stats b WHERE b.team = a.team AND b.year = 1999) \
             FROM (SELECT DISTINCT team FROM stats) a ORDER BY a.team"
        ),
    );
    assert!(rows_of(&r).iter().all(|row| row[1] == json!(0)), "{r:?}");
}

/// A column whose values arrive roughly in order (a time column): its zone map lets scans skip
/// the runs of documents a window cannot match and accept unread those it must, dictionary ids
/// and raw integers alike — with the answers of reading every document.
#[test]
fn zone_maps_skip_what_cannot_match() {
    const N: usize = 100_003;
    // Ten units a row, up to 96 early or late: no run of it is sorted, every 8,192-row zone
    // spans ~82,000 units.
    let t = |i: usize| (i * 10 + i * 7919 % 97) as i64;
    let v = |i: usize| (i % 7) as i64;
    let mut schema = Schema {
        schema_name: "events".into(),
        ..Schema::default()
    };
    schema
        .fields
        .push(FieldSpec::dimension("t", DataType::Long));
    schema.fields.push(FieldSpec::metric("v", DataType::Long));
    let dir = tempfile::tempdir().unwrap();
    for layout in ["dictionary", "raw"] {
        let mut cfg = BuildConfig::new("events", &format!("events_{layout}"));
        if layout == "raw" {
            cfg.no_dictionary.insert("t".into());
        }
        let rows = (0..N).map(|i| Ok(vec![Value::Long(t(i)), Value::Long(v(i))]));
        let out = dir.path().join(layout);
        let summary = build_segment_from_rows(&schema, &cfg, rows, out.as_path()).unwrap();
        let segment = ImmutableSegment::open(&summary.segment_dir).unwrap();
        assert!(!segment.column("t").unwrap().metadata().sorted, "{layout}");
        let mut tables = MemoryTables::new();
        tables.add("events", schema.clone(), vec![Arc::new(segment)]);
        // (filter, accepts row i, most entries the scan may read)
        type Case<'a> = (&'a str, &'a dyn Fn(usize) -> bool, u64);
        let zone = 8192u64;
        let cases: [Case<'_>; 12] = [
            // One window inside a zone, one across a zone border: the zones around them.
            (
                "t BETWEEN 500000 AND 501000",
                &|i| (500_000..=501_000).contains(&t(i)),
                2 * zone,
            ),
            (
                "t >= 81000 AND t < 83000",
                &|i| (81_000..83_000).contains(&t(i)),
                2 * zone,
            ),
            // Most zones wholly inside the range: only the zone at its edge is read.
            ("t > 123456", &|i| t(i) > 123_456, 2 * zone),
            ("t <= 700000", &|i| t(i) <= 700_000, 2 * zone),
            ("t = 330077", &|i| t(i) == 330_077, 2 * zone),
            (
                "t IN (40, 999999, 5000000)",
                &|i| [40, 999_999, 5_000_000].contains(&t(i)),
                3 * zone,
            ),
            // Nothing can match: nothing is read.
            ("t > 2000000", &|i| t(i) > 2_000_000, 0),
            (
                "t NOT BETWEEN 100 AND 999000",
                &|i| !(100..=999_000).contains(&t(i)),
                N as u64,
            ),
            (
                "t BETWEEN 10000 AND 20000 OR t > 990000",
                &|i| (10_000..=20_000).contains(&t(i)) || t(i) > 990_000,
                4 * zone,
            ),
            // After another predicate left a seventh of the documents: sparse candidates,
            // settled a block at a time.
            (
                "v = 3 AND t BETWEEN 500000 AND 501000",
                &|i| v(i) == 3 && (500_000..=501_000).contains(&t(i)),
                2 * N as u64,
            ),
            (
                "v = 3 AND t > 123456",
                &|i| v(i) == 3 && t(i) > 123_456,
                2 * N as u64,
            ),
            (
                "v = 3 AND t < 60000",
                &|i| v(i) == 3 && t(i) < 60_000,
                2 * N as u64,
            ),
        ];
        for (filter, accept, most_read) in cases {
            let sql = format!("SELECT COUNT(*), SUM(v) FROM events WHERE {filter}");
            let r = execute_sql(&sql, None, &tables);
            let count = (0..N).filter(|&i| accept(i)).count();
            let sum: i64 = (0..N).filter(|&i| accept(i)).map(v).sum();
            assert_eq!(
                rows_of(&r),
                vec![vec![json!(count), json!(sum as f64)]],
                "{layout}: {sql}"
            );
            assert!(
                r.num_entries_scanned_in_filter <= most_read,
                "{layout}: {sql} read {} entries",
                r.num_entries_scanned_in_filter
            );
        }
    }
}

/// A segment of 40,000 rows: `k` sorted (four rows a key), `d` = row % 100 with a range index
/// (buckets of eleven values, so `d >= 55` is answered exactly, nothing to confirm).
fn keyed_table() -> Table {
    let dir = tempfile::tempdir().unwrap();
    let mut schema = Schema {
        schema_name: "keyed".into(),
        ..Schema::default()
    };
    schema
        .fields
        .push(FieldSpec::dimension("k", DataType::Long));
    schema.fields.push(FieldSpec::dimension("d", DataType::Int));
    let mut cfg = BuildConfig::new("keyed", "keyed_0");
    cfg.sorted_column = Some("k".into());
    cfg.range.insert("d".to_string());
    let rows = (0..40_000).map(|i| Ok(vec![Value::Long(i / 4), Value::Int((i % 100) as i32)]));
    let summary = build_segment_from_rows(&schema, &cfg, rows, dir.path()).unwrap();
    let mut tables = MemoryTables::new();
    tables.add(
        "keyed",
        schema,
        vec![Arc::new(
            ImmutableSegment::open(&summary.segment_dir).unwrap(),
        )],
    );
    Table { _dir: dir, tables }
}

#[test]
fn a_range_index_meeting_few_candidates_scans_them_instead() {
    let t = keyed_table();
    let count = |keep: &dyn Fn(i64, i64) -> bool| {
        (0..40_000i64).filter(|&i| keep(i / 4, i % 100)).count() as i64
    };
    // Listed first, the range still runs after the key list, whose 20 documents are fewer
    // than a tenth of what the range holds: their ids are read, the index is not asked.
    let keys = [3i64, 500, 2000, 7777, 9999];
    let r = query(
        &t,
        "SELECT COUNT(*) FROM keyed WHERE d >= 55 AND k IN (3, 500, 2000, 7777, 9999)",
    );
    let expected = count(&|k, d| d >= 55 && keys.contains(&k));
    assert_eq!(rows_of(&r), vec![vec![json!(expected)]]);
    assert_eq!(r.num_entries_scanned_in_filter, 20);
    // Most documents left by the sorted range: the range index answers, nothing is scanned.
    let r = query(&t, "SELECT COUNT(*) FROM keyed WHERE d >= 55 AND k < 9000");
    let expected = count(&|k, d| d >= 55 && k < 9000);
    assert_eq!(rows_of(&r), vec![vec![json!(expected)]]);
    assert_eq!(r.num_entries_scanned_in_filter, 0);
}
