//! `JSON_MATCH` over a JSON index, in both engines, on dictionary-encoded and raw columns, over
//! several segments and a sorted doc order — with the documents and answers of Pinot's own
//! `JsonIndexTest.testSmallIndex` and `JsonMatchQueriesTest`.

use segments::build_config::BuildConfig;
use segments::builder::build_segment_from_rows;
use segments::index::json::JsonIndexConfig;
use segments::segment::ImmutableSegment;
use segments::types::{DataType, FieldSpec, Schema, Value};
use std::sync::Arc;
use tessera_engine::execute_sql;
use tessera_engine::provider::MemoryTables;

const PEOPLE: [&str; 4] = [
    r#"{"name":"adam","age":20,"score":1.25,"addresses":[{"street":"street-00","country":"us"},{"street":"street-01","country":"us"},{"street":"street-02","country":"ca"}],"skills":["english","programming"]}"#,
    r#"{"name":"bob","age":25,"score":1.94,"addresses":[{"street":"street-10","country":"ca"},{"street":"street-11","country":"us"},{"street":"street-12","country":"in"}],"skills":[]}"#,
    r#"{"name":"charles","age":30,"score":0.90,"addresses":[{"street":"street-20","country":"jp"},{"street":"street-21","country":"kr"},{"street":"street-22","country":"cn"}],"skills":["japanese","korean","chinese"]}"#,
    r#"{"name":"david","age":35,"score":0.9999,"addresses":[{"street":"street-30","country":"ca","types":["home","office"]},{"street":"street-31","country":"ca"},{"street":"street-32","country":"ca"}],"skills":null}"#,
];

/// `JsonMatchQueriesTest`'s records by id (`None`: a NULL document).
const VALUES: [Option<&str>; 29] = [
    None,
    Some("1"),
    Some(r#""foo""#),
    Some("true"),
    Some("[1,2,3]"),
    Some(r#"[1,"foo",true]"#),
    Some(r#"[1,["foo",true]]"#),
    Some(r#"[{"key":1},{"key":"foo"}]"#),
    Some(r#"{"key":null}"#),
    Some(r#"{"key":1}"#),
    Some(r#"{"key":"foo"}"#),
    Some(r#"{"key":true}"#),
    Some(r#"{"key":[1,["foo",true]]}"#),
    Some(r#"{"key":[1,["foo",[true]]],"key2":[2,["bar",false]]}"#),
    Some("{}"),
    Some(r#"{"cities":["New York"]}"#),
    Some(r#"{"cities":["Washington","New York"]}"#),
    Some(r#"{"cities":["New York","Washington"]}"#),
    Some(r#"{"cities":["Washington"]}"#),
    Some(r#"{"cities":["San Francisco"]}"#),
    Some(r#"{"cities":["San Francisco","Miami","Washington"]}"#),
    Some(r#"{"cities":[]}"#),
    Some(r#"{"cities":[""]}"#),
    Some(r#"{"cities":["Washington","Washington"]}"#),
    Some(r#"{"country":"USA"}"#),
    Some(r#"{"country":"Canada"}"#),
    Some(r#"{"country":"Mexico"}"#),
    Some(r#"{"country":""}"#),
    Some(r#"{"country":null}"#),
];

fn schema() -> Schema {
    let mut s = Schema {
        schema_name: "t".into(),
        ..Schema::default()
    };
    s.fields.push(FieldSpec::dimension("id", DataType::Int));
    s.fields.push(FieldSpec::dimension("rank", DataType::Int));
    s.fields.push(FieldSpec::dimension("doc", DataType::Json));
    s.fields
        .push(FieldSpec::dimension("plain", DataType::String));
    s
}

/// Table `t` of `docs` (id = position) in two segments, built per `variant`.
fn table(
    docs: &[Option<&str>],
    variant: &str,
    config: &JsonIndexConfig,
) -> (tempfile::TempDir, MemoryTables) {
    let dir = tempfile::tempdir().unwrap();
    let mut segs = Vec::new();
    let half = docs.len().div_ceil(2);
    for (k, part) in docs.chunks(half).enumerate() {
        let mut c = BuildConfig::new("t", &format!("t_{k}"));
        c.json.insert("doc".into(), config.clone());
        match variant {
            "raw" => {
                c.no_dictionary.insert("doc".into());
            }
            // Stored in reverse: the index must follow the sorted doc order.
            "sorted" => c.sorted_column = Some("rank".into()),
            _ => {}
        }
        let rows = part.iter().enumerate().map(|(i, d)| {
            let id = (k * half + i) as i32;
            Ok(vec![
                Value::Int(id),
                Value::Int(-id),
                d.map_or(Value::Null, |d| Value::Json(d.to_string())),
                Value::String(d.unwrap_or("null").to_string()),
            ])
        });
        let summary = build_segment_from_rows(&schema(), &c, rows, dir.path()).unwrap();
        segs.push(Arc::new(
            ImmutableSegment::open(&summary.segment_dir).unwrap(),
        ));
    }
    let mut t = MemoryTables::new();
    t.add("t", schema(), segs);
    (dir, t)
}

/// The ids `JSON_MATCH(doc, filter)` keeps, per engine, or the first error.
fn ids(t: &MemoryTables, filter: &str, multistage: bool) -> Result<Vec<i64>, String> {
    let set = if multistage {
        "SET useMultistageEngine=true; "
    } else {
        ""
    };
    let sql = format!(
        "{set}SELECT id FROM t WHERE JSON_MATCH(doc, '{}') ORDER BY id LIMIT 1000",
        filter.replace('\'', "''")
    );
    let r = execute_sql(&sql, None, t);
    if let Some(e) = r.exceptions.first() {
        return Err(e.message.clone());
    }
    Ok(r.result_table
        .map(|t| t.rows.iter().map(|row| row[0].as_i64().unwrap()).collect())
        .unwrap_or_default())
}

fn check(docs: &[Option<&str>], config: &JsonIndexConfig, cases: &[(&str, &[i64])]) {
    let mut failures = Vec::new();
    for variant in ["dict", "raw", "sorted"] {
        let (_dir, t) = table(docs, variant, config);
        for (filter, want) in cases {
            for multistage in [false, true] {
                match ids(&t, filter, multistage) {
                    Ok(got) if got == *want => {}
                    other => failures.push(format!(
                        "{variant} {}: {filter}: got {other:?}, want {want:?}",
                        if multistage { "v2" } else { "v1" }
                    )),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn pinot_small_index_answers() {
    let docs: Vec<Option<&str>> = PEOPLE.iter().map(|d| Some(*d)).collect();
    let none: &[i64] = &[];
    check(
        &docs,
        &JsonIndexConfig::default(),
        &[
            ("name='bob'", &[1]),
            (r#""addresses[*].street" = 'street-21'"#, &[2]),
            (r#"REGEXP_LIKE("addresses[*].street", 'street-2.*')"#, &[2]),
            (r#""age" > 25"#, &[2, 3]),
            (r#""age" >= 25"#, &[1, 2, 3]),
            (r#""age" < 25"#, &[0]),
            (r#""age" <= 25"#, &[0, 1]),
            (r#""name" > 'adam'"#, &[1, 2, 3]),
            (r#""name" > 'a'"#, &[0, 1, 2, 3]),
            (r#""score" > 1"#, &[0, 1]),
            (r#""score" > 1.0"#, &[0, 1]),
            (r#""score" > 0.99"#, &[0, 1, 3]),
            (r#"REGEXP_LIKE("score", '[0-1]\.[6-9].*')"#, &[1, 2, 3]),
            (
                r#""addresses[*].street" NOT IN ('street-10', 'street-22')"#,
                &[0, 1, 2, 3],
            ),
            (r#""addresses[*].country" != 'ca'"#, &[0, 1, 2]),
            (r#""skills[*]" NOT IN ('english', 'japanese')"#, &[0, 2]),
            (r#""addresses[0].country" IN ('ca', 'us')"#, &[0, 1, 3]),
            (r#""addresses[0].country" NOT IN ('ca', 'us')"#, &[2]),
            (r#""addresses[*].types[1]" = 'office'"#, &[3]),
            (r#""addresses[0].types[0]" = 'home'"#, &[3]),
            (r#""addresses[1].types[*]" = 'home'"#, none),
            (r#""addresses[*].types[*]" IS NULL"#, &[0, 1, 2]),
            (r#""addresses[*].types[*]" IS NOT NULL"#, &[3]),
            (r#""addresses[1].types[*]" IS NOT NULL"#, none),
            ("abc IS NULL", &[0, 1, 2, 3]),
            (r#""skills[*]" IS NOT NULL"#, &[0, 2]),
            (
                r#""addresses[*].country" = 'ca' AND "skills[*]" IS NOT NULL"#,
                &[0],
            ),
            (
                r#""addresses[*].country" = 'us' OR "skills[*]" IS NOT NULL"#,
                &[0, 1, 2],
            ),
            (
                r#""addresses[0].street" = 'street-00' AND "addresses[0].country" != 'ca'"#,
                &[0],
            ),
            (
                r#""age" = '20' AND "addresses[*].country" NOT IN ('us')"#,
                &[0],
            ),
            (
                r#""age" = '20' AND "addresses[*].country" NOT IN ('us', 'ca')"#,
                none,
            ),
            (
                r#""addresses[*].street" = 'street-21' AND "addresses[*].country" != 'kr'"#,
                none,
            ),
            (
                r#""addresses[*].street" = 'street-21' AND "addresses[*].country" != 'us'"#,
                &[2],
            ),
            (
                r#""addresses[*].street" = 'street-30' AND "addresses[*].country" NOT IN ('us', 'kr')"#,
                &[3],
            ),
            (
                r#"REGEXP_LIKE("addresses[*].street", 'street-0.*') AND "addresses[*].country" NOT IN ('us', 'ca')"#,
                none,
            ),
            (
                r#"REGEXP_LIKE("addresses[*].street", 'street-3.*') AND "addresses[*].country" != 'us'"#,
                &[3],
            ),
            (
                r#""addresses[*].street" = 'street-21' AND "skills[*]" != 'japanese'"#,
                &[2],
            ),
        ],
    );
}

#[test]
fn pinot_json_match_queries_answers() {
    let none: &[i64] = &[];
    let cases: Vec<(&str, &[i64])> = vec![
        (r#""$"=1"#, &[1]),
        (r#""$"='foo'"#, &[2]),
        (r#""$"=true"#, &[3]),
        (r#""$" IN (1, 'foo')"#, &[1, 2]),
        (r#""$" IS NOT NULL"#, &[1, 2, 3]),
        (r#""$[0]"=1"#, &[4, 5, 6]),
        (r#""$[*]"=2"#, &[4]),
        (r#""$[*]"='foo'"#, &[5]),
        (r#""$[2]"=true"#, &[5]),
        (r#""$[*][*]"=true"#, &[6]),
        (r#""$[*][0]"='foo'"#, &[6]),
        (r#""$[1][*]"=true"#, &[6]),
        (r#""$[1][0]"='foo'"#, &[6]),
        (r#""$[*][*]"=1"#, none),
        (r#""$[*].key"=1"#, &[7]),
        (r#""$[1].key"='foo'"#, &[7]),
        (r#""$[*].foo"=1"#, none),
        (r#""$.key"=1"#, &[9]),
        (r#""$.key"='foo'"#, &[10]),
        (r#""$.key"=true"#, &[11]),
        (r#""$.key" IN (1, 'foo')"#, &[9, 10]),
        (r#""$.key" IS NOT NULL"#, &[9, 10, 11]),
        (r#""$.key[0]"=1"#, &[12, 13]),
        (r#""$.key[*][0]"='foo'"#, &[12, 13]),
        (r#""$.key[1][*]"=true"#, &[12]),
        (r#""$.key[1][1][0]"=true"#, &[13]),
        ("key=1", &[9]),
        ("key='foo'", &[10]),
        ("key IN (1, 'foo')", &[9, 10]),
        ("key IS NOT NULL", &[9, 10, 11]),
        (r#""key[0]"=1"#, &[12, 13]),
        (r#""key[1][1][0]"=true"#, &[13]),
        (r#""$.key[*][*][*]"=true AND "$.key2[1][0]"='bar'"#, &[13]),
        (r#""$.key[0]"=1 AND "$.key2[0]"=2"#, &[13]),
        (
            r#""$.cities[0]" != 'Seattle'"#,
            &[15, 16, 17, 18, 19, 20, 22, 23],
        ),
        (
            r#""$.cities[*]" NOT IN ('Seattle', 'Boston')"#,
            &[15, 16, 17, 18, 19, 20, 22, 23],
        ),
        (r#""$.cities[0]" != 'Washington'"#, &[15, 17, 19, 20, 22]),
        (r#""$.cities[1]" != 'Washington'"#, &[16, 20]),
        (
            r#""$.cities[*]" != 'Washington'"#,
            &[15, 16, 17, 19, 20, 22],
        ),
        (
            r#""$.cities[0]" NOT IN ('Washington', 'New York')"#,
            &[19, 20, 22],
        ),
        (r#""$.cities[1]" NOT IN ('Washington', 'New York')"#, &[20]),
        (
            r#""$.cities[*]" NOT IN ('Washington', 'New York')"#,
            &[19, 20, 22],
        ),
        (r#""$.country" != 'USA'"#, &[25, 26, 27]),
        (r#""$.country" != 'Brazil'"#, &[24, 25, 26, 27]),
        (r#""$.country" NOT IN ('USA', 'Canada')"#, &[26, 27]),
        (r#"REGEXP_LIKE("$.country", 'Brazil|Panama')"#, none),
        (r#"REGEXP_LIKE("$.country", 'USA|Canada')"#, &[24, 25]),
        (r#"REGEXP_LIKE("$.country", '[MC][ea].*')"#, &[25, 26]),
        (r#"REGEXP_LIKE("$.country", 'US.*')"#, &[24]),
        (r#""$.country" < 'Romania'"#, &[25, 26, 27]),
        // LIKE is Pinot's LIKE expression matched whole, case-insensitively.
        (r#""$.country" LIKE 'usa'"#, &[24]),
    ];
    check(&VALUES, &JsonIndexConfig::default(), &cases);
    let apart = JsonIndexConfig {
        disable_cross_array_unnest: true,
        ..JsonIndexConfig::default()
    };
    check(
        &VALUES,
        &apart,
        &[
            (r#""$.key[*][*][*]"=true AND "$.key2[1][0]"='bar'"#, none),
            (r#""$.key[0]"=1 AND "$.key2[0]"=2"#, none),
            (r#""$.key[0]"=1"#, &[12, 13]),
        ],
    );
}

#[test]
fn errors_and_the_rest_of_the_query() {
    let docs: Vec<Option<&str>> = PEOPLE.iter().map(|d| Some(*d)).collect();
    let (_dir, t) = table(&docs, "dict", &JsonIndexConfig::default());
    for multistage in [false, true] {
        let set = if multistage {
            "SET useMultistageEngine=true; "
        } else {
            ""
        };
        let run = |sql: &str| execute_sql(&format!("{set}{sql}"), None, &t);
        let r = run("SELECT COUNT(*) FROM t WHERE JSON_MATCH(plain, '\"$.name\" = ''bob''')");
        assert_eq!(
            r.exceptions.first().map(|e| (
                e.error_code,
                e.message
                    .contains("Cannot apply JSON_MATCH on column: plain without json index")
            )),
            Some((200, true)),
            "{:?}",
            r.exceptions
        );
        for (bad, message) in [
            ("\"$.name\" = ", "Invalid json match filter: \"$.name\" = "),
            (
                "\"$.a\" IS NULL AND \"$.b\" = 1",
                "Exclusive predicate: $.a IS NULL cannot be nested",
            ),
            ("\"$.a[\" = 1", "Missing right bracket in key: .a["),
        ] {
            let r = run(&format!(
                "SELECT COUNT(*) FROM t WHERE JSON_MATCH(doc, '{}')",
                bad.replace('\'', "''")
            ));
            assert_eq!(
                r.exceptions
                    .first()
                    .map(|e| (e.error_code, e.message.contains(message))),
                Some((700, true)),
                "{bad}: {:?}",
                r.exceptions
            );
        }
        // A value that is no number under a numeric range fails, as in Pinot.
        let r = run("SELECT COUNT(*) FROM t WHERE JSON_MATCH(doc, '\"$.name\" > 5')");
        assert!(
            r.exceptions.first().is_some_and(|e| e.message
                == "QueryExecutionError: Cannot convert value: 'adam' to type: DOUBLE"
                || e.message
                    == "QueryExecutionError: Cannot convert value: 'charles' to type: DOUBLE"),
            "{:?}",
            r.exceptions
        );
        // NOT outside the filter string, with other predicates and an aggregate.
        let r = run(
            "SELECT COUNT(*), SUM(id) FROM t WHERE NOT JSON_MATCH(doc, '\"$.age\" >= 30') AND id >= 0",
        );
        assert!(r.exceptions.is_empty(), "{:?}", r.exceptions);
        let row = &r.result_table.unwrap().rows[0];
        assert_eq!((row[0].as_i64(), row[1].as_f64()), (Some(2), Some(1.0)));
    }
    let r = execute_sql(
        "EXPLAIN PLAN FOR SELECT id FROM t WHERE JSON_MATCH(doc, 'name=''bob''')",
        None,
        &t,
    );
    let plan = serde_json::to_string(&r.result_table).unwrap();
    assert!(
        plan.contains("FILTER_JSON_INDEX(indexLookUp:json_index,operator:JSON_MATCH,predicate:json_match(doc,'name='bob''))"),
        "{plan}"
    );
}
