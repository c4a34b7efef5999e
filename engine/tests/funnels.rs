//! Pinot's funnel functions in both engines, over the data of Pinot's own tests
//! (`WindowFunnelTest`, `FunnelCountTest`) with the answers those tests expect.

use segments::build_config::BuildConfig;
use segments::builder::build_segment_from_rows;
use segments::segment::ImmutableSegment;
use segments::types::{DataType, FieldSpec, Schema, Value};
use serde_json::{Value as Json, json};
use std::sync::Arc;
use tessera_engine::execute_sql;
use tessera_engine::provider::MemoryTables;

fn segment(
    dir: &std::path::Path,
    schema: &Schema,
    name: &str,
    rows: Vec<Vec<Value>>,
) -> Arc<ImmutableSegment> {
    let c = BuildConfig::new(&schema.schema_name, name);
    let summary = build_segment_from_rows(schema, &c, rows.into_iter().map(Ok), dir).unwrap();
    Arc::new(ImmutableSegment::open(&summary.segment_dir).unwrap())
}

/// `WindowFunnelTest`'s clicks: ten segments, each with four users (`user<i><r>`).
fn clicks(dir: &std::path::Path, tables: &mut MemoryTables) {
    let mut schema = Schema {
        schema_name: "clicks".into(),
        ..Schema::default()
    };
    schema
        .fields
        .push(FieldSpec::dimension("url", DataType::String));
    schema
        .fields
        .push(FieldSpec::dimension("timestampCol", DataType::Timestamp));
    schema
        .fields
        .push(FieldSpec::dimension("userId", DataType::String));
    let users: [&[(i64, &str)]; 4] = [
        &[
            (1000, "/product/search"),
            (1010, "/cart/add"),
            (1020, "/checkout/start"),
            (1025, "/cart/add"),
            (1030, "/checkout/confirmation"),
        ],
        &[
            (2010, "/checkout/start"),
            (2010, "/cart/add"),
            (2000, "/product/search"),
        ],
        &[
            (1000, "/product/search"),
            (1010, "/cart/add"),
            (1015, "/cart/add"),
            (1020, "/checkout/start"),
            (11030, "/checkout/confirmation"),
        ],
        &[
            (2020, "/checkout/start"),
            (12010, "/cart/add"),
            (12050, "/product/search"),
        ],
    ];
    let segments = (0..10)
        .map(|r| {
            let rows = users
                .iter()
                .enumerate()
                .flat_map(|(i, clicks)| {
                    clicks.iter().map(move |(at, url)| {
                        vec![
                            Value::String(url.to_string()),
                            Value::Timestamp(*at),
                            Value::String(format!("user{i}{r}")),
                        ]
                    })
                })
                .collect();
            segment(dir, &schema, &format!("clicks_{r}"), rows)
        })
        .collect();
    tables.add("clicks", schema, segments);
}

/// `FunnelCountTest`'s actions: twelve users over two segments.
fn actions(dir: &std::path::Path, tables: &mut MemoryTables) {
    let mut schema = Schema {
        schema_name: "actions".into(),
        ..Schema::default()
    };
    schema
        .fields
        .push(FieldSpec::dimension("user_id", DataType::Int));
    schema
        .fields
        .push(FieldSpec::dimension("action", DataType::String));
    schema
        .fields
        .push(FieldSpec::dimension("category", DataType::String));
    let steps = ["view", "cart", "checkout", "purchase"];
    let user = |id: i32, reached: usize, categories: &[&str]| -> Vec<Vec<Value>> {
        (0..reached)
            .map(|s| {
                vec![
                    Value::Int(id),
                    Value::String(steps[s].into()),
                    Value::String(categories[s.min(categories.len() - 1)].into()),
                ]
            })
            .collect()
    };
    let first = [
        user(1, 4, &["electronics"]),
        user(2, 4, &["clothing"]),
        user(3, 3, &["electronics", "electronics", "clothing"]),
        user(4, 2, &["clothing"]),
        user(5, 2, &["home"]),
        user(6, 1, &["electronics"]),
    ]
    .concat();
    let second = [
        user(7, 4, &["clothing"]),
        user(8, 3, &["electronics"]),
        user(9, 3, &["home", "home", "electronics"]),
        user(10, 2, &["electronics"]),
        user(11, 2, &["clothing"]),
        user(12, 1, &["home"]),
    ]
    .concat();
    let segments = vec![
        segment(dir, &schema, "actions_0", first),
        segment(dir, &schema, "actions_1", second),
    ];
    tables.add("actions", schema, segments);
}

fn tables() -> (tempfile::TempDir, MemoryTables) {
    let dir = tempfile::tempdir().unwrap();
    let mut t = MemoryTables::new();
    clicks(dir.path(), &mut t);
    actions(dir.path(), &mut t);
    (dir, t)
}

/// The rows of `sql` in the single-stage engine, checked equal in the multi-stage one.
fn rows(t: &MemoryTables, sql: &str) -> Vec<Vec<Json>> {
    let run = |sql: &str| {
        let r = execute_sql(sql, None, t);
        assert!(r.exceptions.is_empty(), "{sql}: {:?}", r.exceptions);
        r.result_table.expect("a result table").rows
    };
    let v1 = run(sql);
    let v2 = run(&format!("SET useMultistageEngine=true; {sql}"));
    assert_eq!(v1, v2, "the engines disagree on {sql}");
    v1
}

const S4: &str = "url = '/product/search', url = '/cart/add', url = '/checkout/start', \
                  url = '/checkout/confirmation'";
const S3: &str = "url = '/product/search', url = '/checkout/start', url = '/checkout/confirmation'";

/// The answer of each user group (`user<i>…`, ten users each), in user order.
fn per_user(t: &MemoryTables, call: &str) -> Vec<Json> {
    let sql =
        format!("SELECT userId, {call} FROM clicks GROUP BY userId ORDER BY userId LIMIT 100");
    let rows = rows(t, &sql);
    assert_eq!(rows.len(), 40, "{sql}");
    let answers: Vec<Json> = rows.iter().map(|r| r[1].clone()).collect();
    for (i, chunk) in answers.chunks(10).enumerate() {
        assert!(
            chunk.iter().all(|a| a == &chunk[0]),
            "user group {i}: {chunk:?}"
        );
    }
    answers.chunks(10).map(|c| c[0].clone()).collect()
}

#[test]
fn window_funnels_answer_as_pinots_tests_expect() {
    let (_dir, t) = tables();
    let max_step = |extra: &str, steps: &str, n: usize| {
        per_user(
            &t,
            &format!("funnelMaxStep(timestampCol, '1000', {n}, {steps}{extra})"),
        )
    };
    assert_eq!(
        max_step("", S4, 4),
        json!([4, 3, 3, 1]).as_array().unwrap().clone()
    );
    for (mode, want) in [
        ("'strict_order'", json!([3, 3, 2, 1])),
        ("'strict_deduplication'", json!([4, 3, 2, 1])),
        ("'strict_increase'", json!([4, 2, 3, 1])),
    ] {
        assert_eq!(
            max_step(&format!(", {mode}"), S4, 4),
            want.as_array().unwrap().clone(),
            "{mode}"
        );
    }
    for (extra, want) in [
        (", 'strict_order', 'keep_all'", json!([1, 1, 1, 1])),
        (", 'strict_order'", json!([3, 2, 2, 1])),
        (
            ", 'mode=strict_order, keep_all', 'maxStepDuration=10'",
            json!([1, 1, 1, 1]),
        ),
        (
            ", 'mode=strict_order', 'maxStepDuration=10'",
            json!([1, 2, 1, 1]),
        ),
    ] {
        assert_eq!(
            max_step(extra, S3, 3),
            want.as_array().unwrap().clone(),
            "{extra}"
        );
    }
    assert_eq!(
        rows(
            &t,
            &format!("SELECT funnelMaxStep(timestampCol, '1000', 4, {S4}) FROM clicks")
        ),
        vec![vec![json!(4)]]
    );
    // FUNNELMATCHSTEP: ones up to the furthest step reached.
    assert_eq!(
        per_user(
            &t,
            &format!("funnel_match_step(timestampCol, '1000', 4, {S4}, 'strict_order')")
        ),
        vec![
            json!([1, 1, 1, 0]),
            json!([1, 1, 1, 0]),
            json!([1, 1, 0, 0]),
            json!([1, 0, 0, 0])
        ]
    );
    assert_eq!(
        per_user(
            &t,
            &format!("FUNNELCOMPLETECOUNT(timestampCol, '1000', 4, {S4})")
        ),
        json!([1, 0, 0, 0]).as_array().unwrap().clone()
    );
    let stats = per_user(
        &t,
        &format!(
            "funnelStepDurationStats(timestampCol, '1000', 4, {S4}, \
             'durationFunctions=count,avg,min,median,percentile95,max')"
        ),
    );
    let ten = [1.0, 10.0, 10.0, 10.0, 10.0, 10.0];
    let mut first = [ten, ten, ten].concat();
    first.extend([1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(stats[0], json!(first));
    let mut reached3 = vec![0.0; 24];
    for i in [0, 6, 12] {
        reached3[i] = 1.0;
    }
    assert_eq!(stats[1], json!(reached3));
    assert_eq!(stats[2], json!(reached3));
    let mut reached1 = vec![0.0; 24];
    reached1[0] = 1.0;
    assert_eq!(stats[3], json!(reached1));
}

#[test]
fn funnel_events_report_the_fields_of_each_completed_funnel() {
    let (_dir, t) = tables();
    let sql = format!(
        "SELECT userId, funnelEventsFunctionEval(timestampCol, '1000', 4, {S4}, 3, timestampCol, \
         userId, url) FROM clicks GROUP BY userId ORDER BY userId LIMIT 100"
    );
    let rows = rows(&t, &sql);
    assert_eq!(rows.len(), 40);
    for row in &rows {
        let user = row[0].as_str().unwrap();
        let want = if user.starts_with("user0") {
            json!([
                "1, 12",
                "1000",
                user,
                "/product/search",
                "1010",
                user,
                "/cart/add",
                "1020",
                user,
                "/checkout/start",
                "1030",
                user,
                "/checkout/confirmation"
            ])
        } else {
            json!(["0"])
        };
        assert_eq!(row[1], want, "{user}");
    }
    let r = execute_sql(
        "SELECT funnelEventsFunctionEval(timestampCol, '1000', 1, url = 'a', 1, url, 'depth=2') FROM clicks",
        None,
        &t,
    );
    assert!(
        r.exceptions
            .iter()
            .any(|e| e.message.contains("Unrecognized arguments: DEPTH=2")),
        "{:?}",
        r.exceptions
    );
}

#[test]
fn window_funnel_calls_are_checked_as_pinot_checks_them() {
    let (_dir, t) = tables();
    for (call, why) in [
        (
            "funnelMaxStep(timestampCol, '1000', 4)",
            "FUNNEL_AGG_FUNC expects >= 4 arguments, got: 3",
        ),
        (
            "funnelMaxStep(timestampCol, '1000', 4, url = 'a', url = 'b')",
            "FUNNEL_AGG_FUNC expects >= 7 arguments, got: 5",
        ),
        (
            "funnelMaxStep(timestampCol, '0', 1, url = 'a')",
            "Window size must be > 0",
        ),
        (
            "funnelMaxStep(timestampCol, '10', 1, url = 'a', 'sideways')",
            "Unrecognized extra argument for funnel function: SIDEWAYS",
        ),
        (
            "funnelMaxStep(timestampCol, '10', 1, url = 'a', 'maxStepDuration=0')",
            "MaxStepDuration must be > 0",
        ),
        (
            "funnelStepDurationStats(timestampCol, '10', 1, url = 'a')",
            "Duration functions must be provided",
        ),
        (
            "funnelStepDurationStats(timestampCol, '10', 1, url = 'a', 'durationFunctions=p50')",
            "Unsupported duration function: P50",
        ),
    ] {
        for engine in ["", "SET useMultistageEngine=true; "] {
            let r = execute_sql(&format!("{engine}SELECT {call} FROM clicks"), None, &t);
            assert!(
                r.exceptions.iter().any(|e| e.message.contains(why)),
                "{engine}{call}: {:?}",
                r.exceptions
            );
        }
    }
}

#[test]
fn funnel_count_counts_keys_through_each_step() {
    let (_dir, t) = tables();
    let steps = "STEPS(action = 'view', action = 'cart', action = 'checkout', action = 'purchase')";
    for settings in [
        "",
        ", SETTINGS('bitmap')",
        ", SETTINGS('set')",
        ", SETTINGS('theta_sketch', 'nominalEntries=4096')",
    ] {
        let call = format!("FUNNEL_COUNT({steps}, CORRELATE_BY(user_id){settings})");
        assert_eq!(
            rows(&t, &format!("SELECT {call} FROM actions")),
            vec![vec![json!([12, 10, 6, 3])]],
            "{settings}"
        );
        assert_eq!(
            rows(
                &t,
                &format!(
                    "SELECT category, {call} FROM actions GROUP BY category ORDER BY category"
                )
            ),
            vec![
                vec![json!("clothing"), json!([4, 4, 2, 2])],
                vec![json!("electronics"), json!([5, 4, 2, 1])],
                vec![json!("home"), json!([3, 2, 0, 0])],
            ]
        );
        assert_eq!(
            rows(
                &t,
                &format!("SELECT {call} FROM actions WHERE user_id <= 7")
            ),
            vec![vec![json!([7, 6, 4, 3])]]
        );
        assert_eq!(
            rows(
                &t,
                &format!("SELECT {call} FROM actions WHERE user_id > 100")
            ),
            vec![vec![json!([0, 0, 0, 0])]]
        );
    }
    // Two correlation columns: a user's steps in different categories are different keys.
    let two = format!("FUNNELCOUNT({steps}, CORRELATE_BY(user_id, category))");
    assert_eq!(
        rows(&t, &format!("SELECT {two} FROM actions")),
        vec![vec![json!([12, 10, 4, 3])]]
    );
    assert_eq!(
        rows(&t, &format!("SELECT {two} FROM actions WHERE user_id >= 7")),
        vec![vec![json!([6, 5, 2, 1])]]
    );
    for (call, why) in [
        (
            "FUNNELCOUNT(STEPS(action = 'view'), CORRELATEDBY(user_id))",
            "Invalid FUNNELCOUNT options: correlatedby(user_id)",
        ),
        (
            "FUNNELCOUNT(STEPS(action = 'view'))",
            "FUNNELCOUNT requires correlateby",
        ),
        (
            "FUNNELCOUNT(CORRELATE_BY(user_id))",
            "FUNNELCOUNT requires steps",
        ),
        (
            "FUNNELCOUNT(STEPS(action = 'view'), CORRELATE_BY(user_id), SETTINGS('fast'))",
            "Invalid FUNNELCOUNT SETTINGS: fast",
        ),
    ] {
        let r = execute_sql(&format!("SELECT {call} FROM actions"), None, &t);
        assert!(
            r.exceptions.iter().any(|e| e.message.contains(why)),
            "{call}: {:?}",
            r.exceptions
        );
    }
}
