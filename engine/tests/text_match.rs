//! `TEXT_MATCH` over text indexes, in both engines: Pinot's `TextSearchQueriesTest` rows
//! (`skills.txt`, 28 lines, then rows of "software engineering") on a dictionary-encoded column,
//! a raw one, a multi-value one (each line split at ", "), one without a text index (each value
//! analyzed), one with Pinot's custom stop words and one ANDing by default — each query's rows
//! as Pinot's tests expect them.

use segments::build_config::BuildConfig;
use segments::builder::build_segment_from_rows;
use segments::index::text::TextIndexConfig;
use segments::segment::ImmutableSegment;
use segments::types::{DataType, FieldSpec, Schema, Value};
use std::sync::Arc;
use tessera_engine::execute_sql;
use tessera_engine::provider::MemoryTables;

const SKILLS: &str = include_str!("data/skills.txt");
/// Rows after the 28 lines.
const FILLER: usize = 12;

fn schema() -> Schema {
    let mut s = Schema {
        schema_name: "t".into(),
        ..Schema::default()
    };
    s.fields.push(FieldSpec::dimension("id", DataType::Int));
    for c in [
        "skills",
        "skills_raw",
        "skills_plain",
        "skills_stop",
        "skills_and",
    ] {
        s.fields.push(FieldSpec::dimension(c, DataType::String));
    }
    let mut mv = FieldSpec::dimension("skills_mv", DataType::String);
    mv.single_value_field = false;
    s.fields.push(mv);
    s
}

fn table() -> (tempfile::TempDir, MemoryTables) {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<&str> = SKILLS
        .lines()
        .chain(std::iter::repeat_n("software engineering", FILLER))
        .collect();
    let mut c = BuildConfig::new("t", "t_0");
    for col in ["skills", "skills_raw", "skills_mv"] {
        c.text.insert(col.into(), TextIndexConfig::default());
    }
    c.text.insert(
        "skills_stop".into(),
        TextIndexConfig {
            stop_words_include: ["coordinator".to_string()].into(),
            stop_words_exclude: ["it".to_string(), "those".to_string()].into(),
            enable_prefix_suffix_matching_in_phrase_queries: true,
            ..TextIndexConfig::default()
        },
    );
    c.text.insert(
        "skills_and".into(),
        TextIndexConfig {
            use_and_for_multi_term_queries: true,
            ..TextIndexConfig::default()
        },
    );
    c.no_dictionary.insert("skills_raw".into());
    let rows = lines.iter().enumerate().map(|(i, l)| {
        let text = Value::String(l.to_string());
        Ok(vec![
            Value::Int(1000 + i as i32),
            text.clone(),
            text.clone(),
            text.clone(),
            text.clone(),
            text,
            Value::Array(
                l.split(", ")
                    .map(|v| Value::String(v.to_string()))
                    .collect(),
            ),
        ])
    });
    let summary = build_segment_from_rows(&schema(), &c, rows, dir.path()).unwrap();
    let seg = Arc::new(ImmutableSegment::open(&summary.segment_dir).unwrap());
    let mut t = MemoryTables::new();
    t.add("t", schema(), vec![seg]);
    (dir, t)
}

/// The rows (as skills.txt line numbers) a filter keeps, or the error.
fn rows(t: &MemoryTables, filter: &str, multistage: bool) -> Result<Vec<i64>, String> {
    let set = if multistage {
        "SET useMultistageEngine=true; "
    } else {
        ""
    };
    let sql = format!("{set}SELECT id FROM t WHERE {filter} ORDER BY id LIMIT 100000");
    let r = execute_sql(&sql, None, t);
    if let Some(e) = r.exceptions.first() {
        return Err(e.message.clone());
    }
    Ok(r.result_table
        .map(|t| {
            t.rows
                .iter()
                .map(|r| r[0].as_i64().unwrap() - 1000)
                .collect()
        })
        .unwrap_or_default())
}

fn tm(column: &str, query: &str) -> String {
    format!("TEXT_MATCH({column}, '{}')", query.replace('\'', "''"))
}

fn check(t: &MemoryTables, cases: &[(String, Vec<i64>)], failures: &mut Vec<String>) {
    for (filter, want) in cases {
        for multistage in [false, true] {
            match rows(t, filter, multistage) {
                Ok(got) if &got == want => {}
                other => failures.push(format!(
                    "{}: {filter}: got {other:?}, want {want:?}",
                    if multistage { "v2" } else { "v1" }
                )),
            }
        }
    }
}

#[test]
fn pinot_text_search_answers_on_every_kind_of_column() {
    let (_dir, t) = table();
    let every_column: &[(&str, &[i64])] = &[
        (r#""Distributed systems""#, &[5, 9, 10, 12, 17, 20]),
        (r#""query processing""#, &[14, 20]),
        (
            r#""Machine learning""#,
            &[3, 4, 5, 6, 7, 10, 11, 16, 19, 20],
        ),
        (r#""Machine learning" AND "Tensor flow""#, &[4, 7, 16]),
        ("Java", &[0, 3, 4, 5, 6, 8, 10, 12, 14, 17, 18, 19]),
        ("Java AND C++", &[3, 5, 6, 8, 14, 17, 18, 19]),
        (r#""Java C++""#, &[3, 5, 8, 14]),
        (r#""Machine learning" AND "gpu processing""#, &[16]),
        (r#""Machine learning" AND gpu"#, &[11, 16]),
        (r#""Machine learning" AND gpu AND python"#, &[11, 16]),
        ("apache", &[13, 14, 15, 17, 19, 20]),
        (r#""distributed systems" AND apache"#, &[17, 20]),
        ("database", &[7, 9, 11, 12, 15, 21]),
        (r#""database engine""#, &[12, 21]),
        (r#""publish subscribe""#, &[17, 18]),
        (r#""accounts banking insurance""#, &[0]),
        ("accounts AND banking AND insurance", &[0, 1, 2]),
        (r#""distributed systems" AND Java AND C++"#, &[5, 17]),
        (
            r#"("distributed systems" AND apache) OR (Java AND C++)"#,
            &[3, 5, 6, 8, 14, 17, 18, 19, 20],
        ),
        (
            r#"("distributed systems" AND apache) AND (Java AND C++)"#,
            &[17],
        ),
        (
            r#"("apache spark" OR "query processing") AND "machine learning""#,
            &[20],
        ),
        ("a and or in the are", &[]),
        (r#""learned a lot""#, &[23]),
        (r#""indexing and transaction processing""#, &[7, 9, 11]),
        (r#""docker image building and distribution""#, &[12, 20]),
        (
            r#""distributed query engines for analytics and data warehouses""#,
            &[5, 15],
        ),
        (r#""worked in NGO""#, &[0]),
    ];
    let mut cases = Vec::new();
    for col in ["skills", "skills_raw", "skills_mv", "skills_plain"] {
        for (q, want) in every_column {
            cases.push((tm(col, q), want.to_vec()));
        }
    }
    let syntax: &[(&str, &[i64])] = &[
        ("java c++", &[0, 3, 4, 5, 6, 7, 8, 10, 12, 14, 17, 18, 19]),
        (
            "java || python",
            &[0, 3, 4, 5, 6, 7, 8, 10, 11, 12, 14, 16, 17, 18, 19, 24],
        ),
        ("+java -python", &[0, 3, 4, 5, 8, 10, 12, 14, 17, 18]),
        ("java !python", &[0, 3, 4, 5, 8, 10, 12, 14, 17, 18]),
        ("NOT java", &[]),
        ("(java OR python) AND spark", &[5, 8, 10, 16, 19, 14]),
        ("java OR python AND spark", &[16, 19]),
        ("spark AND java OR python", &[5, 8, 10, 14, 19]),
        (
            r#""learning machine"~2"#,
            &[3, 4, 5, 6, 7, 10, 11, 16, 19, 20],
        ),
        (r#""learned lot"~1"#, &[23]),
        (r#""learned lot""#, &[]),
        (r#""Java, C++""#, &[3, 5, 8, 14]),
        ("stream*", &[10, 15, 18, 19]),
        ("str?am*", &[10, 15, 18, 19]),
        ("stre*ing", &[10, 19]),
        ("/.*exception/", &[22]),
        ("/jav[a-z]/", &[0, 3, 4, 5, 6, 8, 10, 12, 14, 17, 18, 19]),
        ("javva~", &[0, 3, 4, 5, 6, 8, 10, 12, 14, 17, 18, 19]),
        ("spark~0", &[5, 8, 10, 13, 14, 16, 19]),
        ("*:*", &(0..28 + FILLER as i64).collect::<Vec<_>>()),
        ("skills:java", &[0, 3, 4, 5, 6, 8, 10, 12, 14, 17, 18, 19]),
        ("other:java", &[]),
        ("{apache TO banking}", &[8, 20]),
        (r"multi\-threading", &[6, 8, 10, 13, 14, 17, 18, 19, 21]),
    ];
    for (q, want) in syntax {
        let mut want = want.to_vec();
        want.sort_unstable();
        cases.push((tm("skills", q), want));
    }
    cases.extend([
        // Pinot's custom stop words: `it` kept, `coordinator` dropped; lowercase `or` is a term.
        (tm("skills_stop", r#""IT support" or "IT manager""#), vec![24, 25]),
        (tm("skills_stop", r#""IT""#), vec![24, 25, 26, 27]),
        (tm("skills_stop", "coordinator"), vec![]),
        (tm("skills", r#""IT support" or "IT manager""#), vec![24, 25, 26]),
        (tm("skills", r#""IT""#), vec![]),
        (tm("skills", "supporting"), vec![27]),
        // Pinot's prefix/suffix phrase rewrite (that column's `enablePrefixSuffixMatching…`):
        // terms and wildcards as adjacent words in order, a leading wildcard allowed.
        (tm("skills_stop", "*ealtime streaming system*"), vec![10, 19]),
        (tm("skills_stop", "*ava realtime streaming system*"), vec![10]),
        (
            tm("skills_stop", "*ava realtime streaming system* AND *chine learn*"),
            vec![10],
        ),
        (
            tm("skills_stop", "*ava realtime streaming system* AND *chine learner*"),
            vec![],
        ),
        (tm("skills_stop", "stream*"), vec![10, 15, 18, 19]),
        // Options replace the index's rewrite.
        (
            "TEXT_MATCH(skills_stop, '*ava realtime streaming system*', 'parser=CLASSIC,allowLeadingWildcard=true,defaultOperator=AND')".into(),
            vec![10, 19],
        ),
        (
            "TEXT_MATCH(skills, '*ava* AND *stream* AND *learn*', 'parser=CLASSIC,allowLeadingWildcard=true')".into(),
            vec![10, 19],
        ),
        // ANDed by default.
        (tm("skills_and", r#""distributed systems" Java C++"#), vec![5, 17]),
        (tm("skills_and", r#""distributed systems" AND (Java C++)"#), vec![5, 17]),
        (tm("skills", r#""distributed systems" AND (Java C++)"#), vec![5, 10, 12, 17]),
        (tm("skills_and", "distributed-systems"), vec![5, 9, 10, 12, 17, 19, 20]),
        // The options argument overrides the index's operator.
        (
            "TEXT_MATCH(skills, '\"distributed systems\" Java C++', 'parser=CLASSIC,defaultOperator=AND')".into(),
            vec![5, 17],
        ),
        (
            "TEXT_MATCH(skills, '*ava* AND *stream*', 'parser=CLASSIC,allowLeadingWildcard=true')".into(),
            vec![10, 18, 19],
        ),
        // With other predicates and negation outside the query.
        (format!("id >= 1010 AND {}", tm("skills", r#""Distributed systems""#)), vec![10, 12, 17, 20]),
        (format!("id = 1017 OR {}", tm("skills", r#""Distributed systems""#)), vec![5, 9, 10, 12, 17, 20]),
        (format!("NOT {}", tm("skills", "software")), (0..28).collect()),
        (
            format!("{} OR {}", tm("skills", "apache"), tm("skills", r#""Distributed systems""#)),
            vec![5, 9, 10, 12, 13, 14, 15, 17, 19, 20],
        ),
    ]);
    let mut failures = Vec::new();
    check(&t, &cases, &mut failures);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn errors_and_explain() {
    let (_dir, t) = table();
    for multistage in [false, true] {
        let err = rows(&t, &tm("skills", "(java"), multistage).unwrap_err();
        assert!(
            err.contains("Caught exception while searching the text index for column:skills search query:(java"),
            "{err}"
        );
        let err = rows(&t, &tm("skills", "*ava"), multistage).unwrap_err();
        assert!(
            err.contains("'*' or '?' not allowed as first character in WildcardQuery"),
            "{err}"
        );
    }
    let r = execute_sql(
        "EXPLAIN PLAN FOR SELECT id FROM t WHERE TEXT_MATCH(skills, 'swimming')",
        None,
        &t,
    );
    let plan = serde_json::to_string(&r.result_table).unwrap();
    assert!(
        plan.contains("FILTER_TEXT_INDEX(indexLookUp:text_index,operator:TEXT_MATCH,predicate:text_match(skills,'swimming'))"),
        "{plan}"
    );
}
