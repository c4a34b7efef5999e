//! The multi-stage engine (v2) through the broker over HTTP, on a one-server cluster and on a
//! two-server cluster (the second server a separate role joined to the same controller, so its
//! stage traffic crosses HTTP): single-table aggregations, joins of every common kind, `IN`
//! subqueries, window functions and set operations, each checked against answers computed
//! here from the generated rows; the join stage of the two-server cluster must run on both
//! servers with the rows split between them.

use api::cluster::{self, Cluster, Roles, StartOptions};
use api::common::archive;
use api::http::multipart;
use segments::types::{Schema, Value as Cell};
use segments::{BuildConfig, build_segment_from_rows};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

const ORDERS: i32 = 300;
const CUSTOMERS: i32 = 40;
const REGIONS: [&str; 4] = ["east", "north", "south", "west"];
const STATUSES: [&str; 3] = ["F", "O", "P"];

fn customer(i: i32) -> (i32, String, &'static str) {
    (i, format!("c{i}"), REGIONS[(i % 4) as usize])
}

/// `(o_id, o_cust, o_amount, o_status)`; customers 40..49 do not exist.
fn order(i: i32) -> (i32, i32, f64, &'static str) {
    (i, i % 50, f64::from(i) * 1.5, STATUSES[(i % 3) as usize])
}

async fn call(method: &str, url: &str, body: Option<Vec<u8>>, ct: Option<&str>) -> (u16, Value) {
    let client = api::http::http_client();
    let mut req = match method {
        "GET" => client.get(url),
        "POST" => client.post(url),
        other => panic!("method {other}"),
    };
    if let Some(b) = body {
        req = req.body(b).content_type(ct.unwrap_or("application/json"));
    }
    let mut res = req.await.unwrap();
    let text = res.body_string().await.unwrap();
    (
        res.status().into(),
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn test_logging() -> api::logging::LoggingHandle {
    static LOGGING: std::sync::OnceLock<api::logging::LoggingHandle> = std::sync::OnceLock::new();
    LOGGING
        .get_or_init(|| api::logging::init_for_tests().unwrap())
        .clone()
}

async fn start(dir: &Path, roles: &str, controller: Option<&str>) -> Cluster {
    let mut opts = StartOptions::ephemeral(dir.to_path_buf());
    opts.logging = Some(test_logging());
    opts.roles = Roles::parse(roles).unwrap();
    opts.controller_url = controller.map(str::to_string);
    cluster::start(opts).await.unwrap()
}

fn schema_json(name: &str) -> Value {
    match name {
        "customers" => json!({
            "schemaName": "customers",
            "dimensionFieldSpecs": [
                {"name": "c_id", "dataType": "INT"},
                {"name": "c_name", "dataType": "STRING"},
                {"name": "c_region", "dataType": "STRING"}
            ],
            "primaryKeyColumns": ["c_id"]
        }),
        // Tables that hold no rows: `returns` has no segment, `refunds` one empty segment.
        "returns" | "refunds" => json!({
            "schemaName": name,
            "dimensionFieldSpecs": [{"name": "r_order", "dataType": "INT"}],
            "metricFieldSpecs": [{"name": "r_amount", "dataType": "DOUBLE"}]
        }),
        _ => json!({
            "schemaName": "orders",
            "dimensionFieldSpecs": [
                {"name": "o_id", "dataType": "INT"},
                {"name": "o_cust", "dataType": "INT"},
                {"name": "o_status", "dataType": "STRING"}
            ],
            "metricFieldSpecs": [{"name": "o_amount", "dataType": "DOUBLE"}]
        }),
    }
}

fn table_json(name: &str) -> Value {
    json!({
        "tableName": name,
        "tableType": "OFFLINE",
        "segmentsConfig": {"replication": "1"},
        "tenants": {"broker": "DefaultTenant", "server": "DefaultTenant"},
        "tableIndexConfig": {"loadMode": "MMAP", "invertedIndexColumns": match name {
            "orders" => vec!["o_status"],
            "customers" => vec!["c_region"],
            _ => vec![],
        }},
        // Customers are a dimension table: every server hosts all of it, and lookup joins read it.
        "isDimTable": name == "customers"
    })
}

/// Creates the tables and uploads their segments: customers in 2, orders in 3, refunds in one
/// without rows, returns in none.
async fn load(controller: &str, dir: &Path) {
    for t in ["customers", "orders", "returns", "refunds"] {
        let (s, b) = call(
            "POST",
            &format!("{controller}/schemas"),
            Some(schema_json(t).to_string().into_bytes()),
            None,
        )
        .await;
        assert_eq!(s, 200, "{b}");
        let (s, b) = call(
            "POST",
            &format!("{controller}/tables"),
            Some(table_json(t).to_string().into_bytes()),
            None,
        )
        .await;
        assert_eq!(s, 200, "{b}");
    }
    let mut segments: Vec<(&str, String, Vec<Vec<Cell>>)> = Vec::new();
    for part in 0..2 {
        let rows = (0..CUSTOMERS)
            .filter(|i| i % 2 == part)
            .map(|i| {
                let (id, name, region) = customer(i);
                vec![
                    Cell::Int(id),
                    Cell::String(name),
                    Cell::String(region.into()),
                ]
            })
            .collect();
        segments.push(("customers", format!("customers_{part}"), rows));
    }
    for part in 0..3 {
        let rows = (0..ORDERS)
            .filter(|i| i % 3 == part)
            .map(|i| {
                let (id, cust, amount, status) = order(i);
                vec![
                    Cell::Int(id),
                    Cell::Int(cust),
                    Cell::String(status.into()),
                    Cell::Double(amount),
                ]
            })
            .collect();
        segments.push(("orders", format!("orders_{part}"), rows));
    }
    segments.push(("refunds", "refunds_0".into(), Vec::new()));
    for (table, name, rows) in segments {
        let schema = Schema::from_json(&schema_json(table).to_string()).unwrap();
        let config =
            BuildConfig::from_table_config_json(&table_json(table), &schema, Some(&name)).unwrap();
        build_segment_from_rows(&schema, &config, rows.into_iter().map(Ok), dir).unwrap();
        let bytes = archive::pack(&dir.join(&name)).unwrap();
        let (ct, body) = multipart::encode_file(&name, &format!("{name}.tar.gz"), &bytes);
        let (s, b) = call(
            "POST",
            &format!("{controller}/segments?tableName={table}"),
            Some(body),
            Some(&ct),
        )
        .await;
        assert_eq!(s, 200, "{b}");
    }
}

async fn v2(broker: &str, sql: &str) -> Value {
    let body = json!({"sql": sql, "queryOptions": "useMultistageEngine=true"});
    let (status, b) = call(
        "POST",
        &format!("{broker}/query/sql"),
        Some(body.to_string().into_bytes()),
        None,
    )
    .await;
    assert_eq!(status, 200, "{b}");
    b
}

fn rows(b: &Value) -> &Vec<Value> {
    assert!(
        b["exceptions"].as_array().is_none_or(|e| e.is_empty()),
        "exceptions: {b}"
    );
    b["resultTable"]["rows"].as_array().expect("rows")
}

async fn wait_loaded(broker: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let b = v2(broker, "SELECT COUNT(*) FROM orders").await;
        let c = v2(broker, "SELECT COUNT(*) FROM customers").await;
        if b["resultTable"]["rows"][0][0] == ORDERS && c["resultTable"]["rows"][0][0] == CUSTOMERS {
            return;
        }
        assert!(Instant::now() < deadline, "tables not loaded: {b} {c}");
        async_std::task::sleep(Duration::from_millis(100)).await;
    }
}

/// Every node of type `kind` in a stageStats tree.
fn nodes<'v>(tree: &'v Value, kind: &str) -> Vec<&'v Value> {
    let mut out = Vec::new();
    if tree["type"] == kind {
        out.push(tree);
    }
    for c in tree["children"].as_array().into_iter().flatten() {
        out.extend(nodes(c, kind));
    }
    out
}

fn close(a: &Value, b: f64) -> bool {
    a.as_f64()
        .is_some_and(|a| (a - b).abs() < 1e-6 * b.abs().max(1.0))
}

/// The queries both clusters must answer, checked against the generated rows.
/// `maxRowsInJoin`: past it a join fails with Pinot's error (245), or with
/// `joinOverflowMode=BREAK` stops there and the answer says it is partial.
/// `aggOptions`: grouping above the leaf answers what grouping in it does; `num_groups_limit` (and
/// the query's `numGroupsLimit`) keeps that many groups and says so.
async fn check_agg_hints(broker: &str) {
    let grouped = "SELECT o_status, COUNT(*), SUM(o_amount) FROM orders WHERE o_id >= 10 GROUP BY o_status ORDER BY o_status";
    let skip = grouped.replacen(
        "SELECT",
        "SELECT /*+ aggOptions(is_skip_leaf_stage_group_by='true') */",
        1,
    );
    let (plain, skipped) = (v2(broker, grouped).await, v2(broker, &skip).await);
    assert_eq!(rows(&skipped), rows(&plain), "{skipped}");
    let leaf_of = |plan: &Value| -> String {
        rows(plan)
            .iter()
            .filter_map(|r| r[0].as_str())
            .find(|l| l.contains("LEAF(table:orders"))
            .unwrap_or_default()
            .to_string()
    };
    let plan = v2(broker, &format!("EXPLAIN PLAN FOR {grouped}")).await;
    assert!(leaf_of(&plan).contains("GROUP_BY"), "{plan}");
    let plan = v2(broker, &format!("EXPLAIN PLAN FOR {skip}")).await;
    assert!(leaf_of(&plan).contains("SELECT"), "{plan}");
    assert_eq!(plain["numGroupsLimitReached"], false, "{plain}");

    for sql in [
        grouped.replacen(
            "SELECT",
            "SELECT /*+ aggOptions(num_groups_limit='2') */",
            1,
        ),
        format!("SET numGroupsLimit=2; {grouped}"),
        skip.replacen("'true'", "'true', num_groups_limit='2'", 1),
    ] {
        let b = v2(broker, &sql).await;
        assert_eq!(rows(&b).len(), 2, "{sql}: {b}");
        assert_eq!(b["numGroupsLimitReached"], true, "{sql}: {b}");
        assert_eq!(b["partialResult"], true, "{sql}: {b}");
    }
    // Over a join the groups are hash-split over the join's workers, each keeping its limit (as
    // in Pinot): one group per worker, on at most two workers, leaves some of the four regions out.
    let sql = "SELECT /*+ aggOptions(num_groups_limit='1') */ c.c_region, COUNT(*) FROM orders o JOIN customers c ON o.o_cust = c.c_id GROUP BY c.c_region";
    let b = v2(broker, sql).await;
    assert!(rows(&b).len() <= 2, "{b}");
    assert_eq!(b["numGroupsLimitReached"], true, "{b}");
}

/// Rows a join hashed on its key are grouped, and joined again, on that key where they are (no
/// second exchange), with one worker per server or several: the answers are whole.
async fn check_colocated(broker: &str) {
    let per_customer = |c: i32| {
        (0..ORDERS)
            .map(order)
            .filter(|o| o.1 == c)
            .collect::<Vec<_>>()
    };
    let grouped = "SELECT o.o_cust, COUNT(*), SUM(o.o_amount) FROM orders o JOIN customers c ON o.o_cust = c.c_id GROUP BY o.o_cust ORDER BY o.o_cust";
    let joined_again = "SELECT c.c_id, COUNT(*) FROM orders o JOIN customers c ON o.o_cust = c.c_id JOIN orders o2 ON o2.o_cust = c.c_id GROUP BY c.c_id ORDER BY c.c_id";
    for set in ["", "SET stageParallelism = 2; "] {
        let b = v2(broker, &format!("{set}{grouped}")).await;
        let got = rows(&b);
        assert_eq!(got.len(), CUSTOMERS as usize, "{b}");
        for (row, c) in got.iter().zip(0..) {
            let mine = per_customer(c);
            assert_eq!(row[0], c, "{b}");
            assert_eq!(row[1], mine.len(), "{b}");
            assert!(close(&row[2], mine.iter().map(|o| o.2).sum()), "{row}");
        }
        let b = v2(broker, &format!("{set}{joined_again}")).await;
        let got = rows(&b);
        assert_eq!(got.len(), CUSTOMERS as usize, "{b}");
        for (row, c) in got.iter().zip(0..) {
            assert_eq!(row[0], c, "{b}");
            assert_eq!(row[1], per_customer(c).len().pow(2), "{b}");
        }
    }
    // One stage above the leaves in each: the join, the second join and the aggregate.
    for (sql, leaves) in [(grouped, 2), (joined_again, 3)] {
        let e = v2(broker, &format!("EXPLAIN PLAN FOR {sql}")).await;
        let text = e["resultTable"]["rows"].to_string();
        assert_eq!(text.matches("[stage ").count(), 2 + leaves, "{text}");
    }
}

async fn check_join_limits(broker: &str) {
    let join = "SELECT COUNT(*) FROM orders o JOIN customers c ON o.o_cust = c.c_id";
    let b = v2(broker, &format!("SET maxRowsInJoin=10; {join}")).await;
    let e = &b["exceptions"][0];
    assert_eq!(e["errorCode"], 245, "{b}");
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.contains("reached number of rows limit: 10")),
        "{b}"
    );
    let b = v2(
        broker,
        // One join worker per server: each keeps at most 10 rows.
        &format!(
            "SET maxRowsInJoin=10; SET joinOverflowMode='BREAK'; SET stageParallelism=1; {join}"
        ),
    )
    .await;
    let n = rows(&b)[0][0].as_u64().unwrap_or(u64::MAX);
    assert!(n <= 20, "{b}");
    assert_eq!(b["maxRowsInJoinReached"], true, "{b}");
    assert_eq!(b["partialResult"], true, "{b}");
    let b = v2(broker, join).await;
    assert_eq!(b["maxRowsInJoinReached"], false, "{b}");
    assert_eq!(b["partialResult"], false, "{b}");
    assert_eq!(b["maxRowsInWindowReached"], false, "{b}");

    // A window past maxRowsInWindow: Pinot's error, or (BREAK, here by hint) its first rows.
    let window = "SELECT o_id, ROW_NUMBER() OVER (ORDER BY o_id) FROM orders";
    let b = v2(broker, &format!("SET maxRowsInWindow=7; {window}")).await;
    let e = &b["exceptions"][0];
    assert_eq!(e["errorCode"], 245, "{b}");
    assert!(
        e["message"].as_str().is_some_and(|m| m.contains(
            "Cannot build in memory window cache for WINDOW operator, reach number of rows limit: 7"
        )),
        "{b}"
    );
    let hinted = window.replacen(
        "SELECT",
        "SELECT /*+ windowOptions(max_rows_in_window='7', window_overflow_mode='BREAK') */",
        1,
    );
    let b = v2(broker, &hinted).await;
    assert_eq!(rows(&b).len(), 7, "{b}");
    assert_eq!(b["maxRowsInWindowReached"], true, "{b}");
    assert_eq!(b["partialResult"], true, "{b}");
}

/// EXPLAIN under v2: the stage tree, each leaf with its filter written as a predicate.
async fn check_explain(broker: &str) {
    let b = v2(
        broker,
        "EXPLAIN PLAN FOR SELECT COUNT(*) FROM orders o JOIN customers c ON o.o_cust = c.c_id WHERE c.c_region = 'east'",
    )
    .await;
    let lines: Vec<String> = rows(&b)
        .iter()
        .map(|r| r[0].as_str().unwrap_or_default().to_string())
        .collect();
    let leaf = lines
        .iter()
        .find(|l| l.contains("LEAF(table:customers"))
        .unwrap_or_else(|| panic!("no customers leaf in {lines:?}"));
    assert!(leaf.contains("c_region") && leaf.contains("east"), "{leaf}");
    assert!(
        !leaf.contains("ColumnRef"),
        "filter printed as a debug dump: {leaf}"
    );
    assert!(lines.iter().any(|l| l.contains("JOIN")), "{lines:?}");
}

/// `joinOptions(join_strategy='lookup')`: the right side is broadcast and the left side moves to
/// one worker as it is (EXPLAIN shows both exchanges); the answer is the hash join's.
async fn check_lookup_join(broker: &str) {
    let sql = "SELECT c.c_region, COUNT(*), SUM(o.o_amount) FROM orders o LEFT JOIN customers c ON o.o_cust = c.c_id GROUP BY c.c_region ORDER BY c.c_region";
    let hashed = v2(broker, sql).await;
    let hinted_sql = sql.replacen(
        "SELECT",
        "SELECT /*+ joinOptions(join_strategy='lookup') */",
        1,
    );
    let looked_up = v2(broker, &hinted_sql).await;
    assert_eq!(rows(&looked_up), rows(&hashed), "{looked_up}");
    let plan = v2(broker, &format!("EXPLAIN PLAN FOR {hinted_sql}")).await;
    let lines: Vec<String> = rows(&plan)
        .iter()
        .map(|r| r[0].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(lines.iter().any(|l| l.contains("BROADCAST")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("RANDOM")), "{lines:?}");
    let plan = v2(broker, &format!("EXPLAIN PLAN FOR {sql}")).await;
    assert!(
        !rows(&plan)
            .iter()
            .any(|r| r[0].as_str().unwrap_or_default().contains("BROADCAST")),
        "{plan}"
    );
    // Orders are not a dimension table: a lookup of them is refused, as Pinot refuses it.
    let swapped = "SELECT /*+ joinOptions(join_strategy='lookup') */ COUNT(*) FROM customers c JOIN orders o ON o.o_cust = c.c_id";
    let refused = v2(broker, swapped).await;
    assert_eq!(refused["exceptions"][0]["errorCode"], 720, "{refused}");
    assert!(
        refused["exceptions"][0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("Failed to find dimension table for name: orders_OFFLINE"),
        "{refused}"
    );
}

/// A runtime key filter: the customers of one region reach the orders leaf before it scans, so
/// it reads only their orders (on two servers, every join worker's keys reach every leaf worker).
async fn check_key_filter(broker: &str) {
    let sql = "SELECT COUNT(*), SUM(o.o_amount) FROM orders o JOIN customers c ON o.o_cust = c.c_id WHERE c.c_region = 'east'";
    let plan = v2(broker, &format!("EXPLAIN PLAN FOR {sql}")).await;
    assert!(
        rows(&plan).iter().any(|r| r[0]
            .as_str()
            .is_some_and(|l| l.contains("LEAF(table:orders") && l.contains("keys:o_cust"))),
        "{plan}"
    );
    let east: Vec<(i32, i32, f64, &str)> = (0..ORDERS)
        .map(order)
        .filter(|o| o.1 < CUSTOMERS && customer(o.1).2 == "east")
        .collect();
    let b = v2(broker, &format!("SET trace=true; {sql}")).await;
    assert_eq!(rows(&b)[0][0], east.len(), "{b}");
    assert!(
        close(&rows(&b)[0][1], east.iter().map(|o| o.2).sum()),
        "{b}"
    );
    let orders_leaf: u64 = nodes(&b["stageStats"], "LEAF")
        .iter()
        .filter(|l| l["table"] == "orders")
        .map(|l| l["emittedRows"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(orders_leaf, east.len() as u64, "{b}");
    // No matching key: the leaf reads nothing, the join answers no row.
    let none = v2(
        broker,
        "SELECT COUNT(*) FROM orders o JOIN customers c ON o.o_cust = c.c_id WHERE c.c_region = 'nowhere'",
    )
    .await;
    assert_eq!(rows(&none)[0][0], 0, "{none}");
}

/// A join whose other side holds no rows (no segment, or only an empty one) answers: an inner
/// join nothing, a left join its left rows with NULLs.
async fn check_empty_side(broker: &str) {
    for empty in ["returns", "refunds"] {
        let b = v2(
            broker,
            &format!("SELECT COUNT(*) FROM orders o JOIN {empty} r ON o.o_id = r.r_order"),
        )
        .await;
        assert_eq!(rows(&b), &vec![json!([0])], "{empty}: {b}");
        let b = v2(
            broker,
            &format!(
                "SELECT COUNT(*), COUNT(r.r_amount) FROM orders o LEFT JOIN {empty} r ON o.o_id = r.r_order"
            ),
        )
        .await;
        assert_eq!(rows(&b), &vec![json!([ORDERS, 0])], "{empty}: {b}");
        let b = v2(
            broker,
            &format!(
                "SELECT o.o_id, r.r_amount FROM {empty} r RIGHT JOIN orders o ON o.o_id = r.r_order ORDER BY o.o_id LIMIT 2"
            ),
        )
        .await;
        assert_eq!(
            rows(&b),
            &vec![json!([0, null]), json!([1, null])],
            "{empty}: {b}"
        );
        let b = v2(
            broker,
            &format!("SELECT COUNT(*) FROM orders WHERE o_id IN (SELECT r_order FROM {empty})"),
        )
        .await;
        assert_eq!(rows(&b), &vec![json!([0])], "{empty}: {b}");
    }
}

async fn check_answers(broker: &str) {
    check_empty_side(broker).await;
    check_key_filter(broker).await;
    check_join_limits(broker).await;
    check_agg_hints(broker).await;
    check_explain(broker).await;
    check_lookup_join(broker).await;
    check_colocated(broker).await;
    // Single-table aggregation: Calcite names and types.
    let b = v2(broker, "SELECT COUNT(*) FROM orders").await;
    assert_eq!(rows(&b), &vec![json!([ORDERS])]);
    assert_eq!(
        b["resultTable"]["dataSchema"]["columnNames"],
        json!(["EXPR$0"])
    );
    assert_eq!(
        b["resultTable"]["dataSchema"]["columnDataTypes"],
        json!(["LONG"])
    );

    let b = v2(
        broker,
        "SELECT o_status, COUNT(*) AS n, SUM(o_amount) AS total FROM orders GROUP BY o_status ORDER BY o_status",
    )
    .await;
    let got = rows(&b);
    assert_eq!(got.len(), 3, "{b}");
    for (row, status) in got.iter().zip(STATUSES) {
        let mine: Vec<_> = (0..ORDERS).map(order).filter(|o| o.3 == status).collect();
        assert_eq!(row[0], status);
        assert_eq!(row[1], mine.len());
        assert!(close(&row[2], mine.iter().map(|o| o.2).sum()), "{row}");
    }

    // Inner join, grouped.
    let b = v2(
        broker,
        "SELECT c.c_region, COUNT(*), SUM(o.o_amount) FROM orders o JOIN customers c ON o.o_cust = c.c_id GROUP BY c.c_region ORDER BY c.c_region",
    )
    .await;
    let mut expected: BTreeMap<&str, (usize, f64)> = BTreeMap::new();
    for o in (0..ORDERS).map(order).filter(|o| o.1 < CUSTOMERS) {
        let e = expected.entry(customer(o.1).2).or_default();
        e.0 += 1;
        e.1 += o.2;
    }
    let got = rows(&b);
    assert_eq!(got.len(), expected.len(), "{b}");
    for (row, (region, (n, sum))) in got.iter().zip(&expected) {
        assert_eq!(row[0], *region);
        assert_eq!(row[1], *n);
        assert!(close(&row[2], *sum), "{row}");
    }

    // Left join: orders without a customer.
    let b = v2(
        broker,
        "SELECT COUNT(*) FROM orders o LEFT JOIN customers c ON o.o_cust = c.c_id WHERE c.c_id IS NULL",
    )
    .await;
    let orphans = (0..ORDERS).map(order).filter(|o| o.1 >= CUSTOMERS).count();
    assert_eq!(rows(&b), &vec![json!([orphans])]);

    // IN subquery (a semi join).
    let b = v2(
        broker,
        "SELECT COUNT(*) FROM orders WHERE o_cust IN (SELECT c_id FROM customers WHERE c_region = 'east')",
    )
    .await;
    let east = (0..ORDERS)
        .map(order)
        .filter(|o| o.1 < CUSTOMERS && customer(o.1).2 == "east")
        .count();
    assert_eq!(rows(&b), &vec![json!([east])]);

    // Window function.
    let b = v2(
        broker,
        "SELECT o_id, ROW_NUMBER() OVER (PARTITION BY o_status ORDER BY o_id) AS rn FROM orders WHERE o_id < 9 ORDER BY o_id",
    )
    .await;
    let expected: Vec<Value> = (0..9).map(|i| json!([i, i / 3 + 1])).collect();
    assert_eq!(rows(&b), &expected);

    // Set operation.
    let b = v2(
        broker,
        "SELECT c_region FROM customers UNION SELECT o_status FROM orders ORDER BY 1",
    )
    .await;
    let mut expected: Vec<&str> = REGIONS.iter().chain(STATUSES.iter()).copied().collect();
    expected.sort();
    assert_eq!(
        rows(&b),
        &expected.iter().map(|r| json!([r])).collect::<Vec<_>>()
    );

    // An unknown table is Pinot's 190, not a failure of the engine.
    let b = v2(
        broker,
        "SELECT COUNT(*) FROM nosuch o JOIN customers c ON o.x = c.c_id",
    )
    .await;
    assert_eq!(b["exceptions"][0]["errorCode"], 190, "{b}");
}

/// Pinot's internal functions read the query's identity: the broker's request id and instance,
/// the client's `clientQueryId`, and where a row is evaluated (a leaf stage's worker in v2).
async fn check_identity(broker: &str) {
    for (options, engine) in [
        ("useMultistageEngine=true;clientQueryId=q-7", "MSE"),
        ("clientQueryId=q-7", "SSE"),
    ] {
        let body = json!({
            "sql": "SELECT reqId(o_status), cid('x'), brokerId('x'), queryEngine(o_status),                     stageId(o_status), stageId('x') FROM orders LIMIT 3",
            "queryOptions": options,
        });
        let (status, b) = call(
            "POST",
            &format!("{broker}/query/sql"),
            Some(body.to_string().into_bytes()),
            None,
        )
        .await;
        assert_eq!(status, 200, "{b}");
        let request_id: i64 = b["requestId"].as_str().unwrap().parse().unwrap();
        for row in rows(&b) {
            assert_eq!(row[0], json!(request_id), "{engine}: {b}");
            assert_eq!(row[1], json!("q-7"), "{engine}: {b}");
            assert_eq!(row[2], b["brokerId"], "{engine}: {b}");
            assert_eq!(row[3], json!(engine), "{b}");
            let stage = row[4].as_i64().unwrap();
            assert!(
                if engine == "MSE" {
                    stage >= 1
                } else {
                    stage == -1
                },
                "{b}"
            );
            assert_eq!(row[5], json!(-1), "{engine}: {b}");
        }
    }
}

#[async_std::test]
async fn v2_on_one_server() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(&dir.path().join("a"), "controller,broker,server", None).await;
    let (ctl, broker) = (
        c.controller_url.clone().unwrap(),
        c.broker_url.clone().unwrap(),
    );
    load(&ctl, &dir.path().join("segs")).await;
    wait_loaded(&broker).await;
    // On one server a broadcast saves nothing: even a side of a few rows is hashed.
    let e = v2(
        &broker,
        "EXPLAIN PLAN FOR SELECT COUNT(*) FROM orders o JOIN customers c ON o.o_cust = c.c_id WHERE c.c_region = 'east'",
    )
    .await;
    let text = e["resultTable"]["rows"].to_string();
    assert!(
        text.contains("HASH") && !text.contains("BROADCAST"),
        "{text}"
    );
    check_answers(&broker).await;
    check_identity(&broker).await;
    // A leading SET and Pinot's multi-stage endpoint select the same engine.
    let (s, b) = call(
        "POST",
        &format!("{broker}/query"),
        Some(
            json!({"sql": "SELECT COUNT(*) FROM orders"})
                .to_string()
                .into_bytes(),
        ),
        None,
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(
        b["resultTable"]["dataSchema"]["columnNames"],
        json!(["EXPR$0"]),
        "{b}"
    );
    let (_, b) = call(
        "POST",
        &format!("{broker}/query/sql"),
        Some(
            json!({"sql": "SET useMultistageEngine=true; SELECT COUNT(*) FROM orders"})
                .to_string()
                .into_bytes(),
        ),
        None,
    )
    .await;
    assert_eq!(
        b["resultTable"]["dataSchema"]["columnNames"],
        json!(["EXPR$0"]),
        "{b}"
    );
    c.stop().await;
}

/// Sum of a metric family on one role.
async fn metric(base: &str, name: &str) -> f64 {
    let (_, text) = call("GET", &format!("{base}/metrics"), None, None).await;
    text.as_str()
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(name))
        .filter_map(|l| l.rsplit_once(' ').and_then(|(_, v)| v.parse::<f64>().ok()))
        .sum()
}

#[async_std::test]
async fn v2_on_two_servers_splits_the_join() {
    let dir = tempfile::tempdir().unwrap();
    let a = start(&dir.path().join("a"), "controller,broker,server", None).await;
    let ctl = a.controller_url.clone().unwrap();
    let broker = a.broker_url.clone().unwrap();
    let b = start(&dir.path().join("b"), "server", Some(&ctl)).await;
    let (server_a, server_b) = (a.server_url.clone().unwrap(), b.server_url.clone().unwrap());
    // Both servers registered before the tables, so segments spread over both.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, i) = call("GET", &format!("{ctl}/instances"), None, None).await;
        let servers = i["instances"].as_array().map_or(0, |l| {
            l.iter()
                .filter(|n| n.as_str().is_some_and(|n| n.starts_with("Server_")))
                .count()
        });
        if servers == 2 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "second server did not register: {i}"
        );
        async_std::task::sleep(Duration::from_millis(50)).await;
    }
    load(&ctl, &dir.path().join("segs")).await;
    wait_loaded(&broker).await;
    // A dimension table's segments are on every server (orders', replication 1, on one each).
    let (_, view) = call(
        "GET",
        &format!("{ctl}/tables/customers/externalview"),
        None,
        None,
    )
    .await;
    let held = view["OFFLINE"]
        .as_object()
        .expect("customers external view");
    assert_eq!(held.len(), 2, "{view}");
    assert!(
        held.values()
            .all(|servers| servers.as_object().map_or(0, |s| s.len()) == 2),
        "{view}"
    );
    let (_, view) = call(
        "GET",
        &format!("{ctl}/tables/orders/externalview"),
        None,
        None,
    )
    .await;
    assert!(
        view["OFFLINE"]
            .as_object()
            .expect("orders external view")
            .values()
            .all(|servers| servers.as_object().map_or(0, |s| s.len()) == 1),
        "{view}"
    );
    let before = (
        metric(&server_a, "tessera_stage_rows_received").await,
        metric(&server_b, "tessera_stage_rows_received").await,
    );
    // The controller sums the segments' statistics for the brokers' optimizer: whichever way
    // the FROM lists them, orders (the larger) is the side the key filter reads.
    let (_, catalog) = call("GET", &format!("{ctl}/tessera/catalog"), None, None).await;
    assert_eq!(catalog["statistics"]["orders"]["rows"], ORDERS, "{catalog}");
    assert_eq!(
        catalog["statistics"]["customers"]["rows"], CUSTOMERS,
        "{catalog}"
    );
    for from in ["orders o JOIN customers c", "customers c JOIN orders o"] {
        let e = v2(
            &broker,
            &format!("EXPLAIN PLAN FOR SELECT c.c_region, COUNT(*) FROM {from} ON o.o_cust = c.c_id GROUP BY c.c_region"),
        )
        .await;
        let text = e["resultTable"]["rows"].to_string();
        assert!(text.contains("keys:o_cust from stage"), "{from}: {text}");
        // EXPLAIN shows the estimates: the customers leaf's rows come out of its statistics
        // (the orders leaf's are narrowed by the key filter: the customers' ids are a share
        // of the orders' customer ids).
        assert!(
            text.contains(&format!("~{CUSTOMERS} rows")),
            "{from}: {text}"
        );
    }
    // Two workers per server for each stage above the leaves (Pinot's `stageParallelism`).
    let r = v2(
        &broker,
        "SET stageParallelism = 2; SELECT c.c_region, COUNT(*) FROM orders o JOIN customers c ON o.o_cust = c.c_id GROUP BY c.c_region",
    )
    .await;
    assert_eq!(rows(&r).len(), REGIONS.len(), "{r}");
    assert_eq!(r["numServersQueried"], 2, "{r}");
    // Each leaf's scan is counted once, though every stage above runs on four workers; the
    // larger side (orders) reads only the orders whose customer exists (the key filter the
    // smaller side publishes).
    let orphans = (0..ORDERS).map(order).filter(|o| o.1 >= CUSTOMERS).count() as i32;
    assert_eq!(r["numDocsScanned"], ORDERS - orphans + CUSTOMERS, "{r}");
    // stageStats: the root's rows; the join stage's send, merged over its two workers, over the
    // hash join; both leaves, each read once per segment-holding server.
    let stats = &r["stageStats"];
    assert_eq!(stats["emittedRows"], REGIONS.len(), "{stats}");
    let sends = nodes(stats, "MAILBOX_SEND");
    let join_send = sends
        .iter()
        .find(|n| {
            n["children"][0]["type"] == "AGGREGATE" || n["children"][0]["type"] == "HASH_JOIN"
        })
        .unwrap_or_else(|| panic!("no join stage in {stats}"));
    assert_eq!(join_send["parallelism"], 4, "{stats}");
    assert_eq!(nodes(stats, "HASH_JOIN").len(), 1, "{stats}");
    let leaves = nodes(stats, "LEAF");
    let scanned: u64 = leaves
        .iter()
        .map(|l| l["emittedRows"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(scanned, (ORDERS - orphans + CUSTOMERS) as u64, "{stats}");
    // The join's inputs are hash-split over both servers' join workers. A worker
    // counts its rows when it ends, which may be just after the answer: wait for both.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let after = (
            metric(&server_a, "tessera_stage_rows_received").await,
            metric(&server_b, "tessera_stage_rows_received").await,
        );
        let (got_a, got_b) = (after.0 - before.0, after.1 - before.1);
        if got_a > 0.0 && got_b > 0.0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "rows received: a {got_a}, b {got_b}"
        );
        async_std::task::sleep(Duration::from_millis(50)).await;
    }
    // Over two servers a small side is broadcast and the large one stays where it was read:
    // the customers of one region (about 10 rows, each sent to both join workers) against the
    // orders (300, which hashing would move too). Both customer sides, unfiltered, are hashed.
    let small = "SELECT COUNT(*), SUM(o.o_amount) FROM orders o JOIN customers c ON o.o_cust = c.c_id WHERE c.c_region = 'east'";
    let text = |b: &Value| b["resultTable"]["rows"].to_string();
    let e = v2(&broker, &format!("EXPLAIN PLAN FOR {small}")).await;
    assert!(
        text(&e).contains("BROADCAST") && text(&e).contains("RANDOM"),
        "{}",
        text(&e)
    );
    let e = v2(
        &broker,
        "EXPLAIN PLAN FOR SELECT COUNT(*) FROM orders o JOIN customers c ON o.o_cust = c.c_id",
    )
    .await;
    assert!(!text(&e).contains("BROADCAST"), "{}", text(&e));
    let east: Vec<_> = (0..ORDERS)
        .map(order)
        .filter(|o| o.1 < CUSTOMERS && customer(o.1).2 == "east")
        .collect();
    let r = v2(&broker, small).await;
    assert_eq!(rows(&r)[0][0], east.len(), "{r}");
    assert!(
        close(&rows(&r)[0][1], east.iter().map(|o| o.2).sum()),
        "{r}"
    );
    // A single table's grouping joined on its keys is grouped on every worker: its leaf
    // hashes the partial groups to the join's workers (no stage gathers them to one worker),
    // and the answer is the same.
    let grouped = "SELECT c.c_region, COUNT(*), SUM(t.n) FROM customers c JOIN \
                   (SELECT o_cust, COUNT(*) AS n FROM orders GROUP BY o_cust HAVING MIN(o_amount) > 30) t \
                   ON t.o_cust = c.c_id GROUP BY c.c_region ORDER BY c.c_region";
    let e = v2(&broker, &format!("EXPLAIN PLAN FOR {grouped}")).await;
    assert!(!text(&e).contains("singleton: true"), "{}", text(&e));
    let mut want: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    for c in 0..CUSTOMERS {
        let mine: Vec<_> = (0..ORDERS).map(order).filter(|o| o.1 == c).collect();
        if mine.iter().map(|o| o.2).fold(f64::INFINITY, f64::min) > 30.0 {
            let region = want.entry(customer(c).2).or_default();
            region.0 += 1;
            region.1 += mine.len() as i64;
        }
    }
    let r = v2(&broker, grouped).await;
    let got: Vec<(String, i64, i64)> = rows(&r)
        .iter()
        .map(|row| {
            let n = |v: &Value| v.as_i64().unwrap_or(-1);
            (
                row[0].as_str().unwrap_or_default().to_string(),
                n(&row[1]),
                n(&row[2]),
            )
        })
        .collect();
    let want: Vec<(String, i64, i64)> = want
        .into_iter()
        .map(|(region, (customers, orders))| (region.to_string(), customers, orders))
        .collect();
    assert_eq!(got, want, "{r}");
    check_answers(&broker).await;
    b.stop().await;
    a.stop().await;
}
