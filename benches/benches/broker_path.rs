//! The broker path's fixed cost for the anchor queries of `benches/peer/compare.py`, step by
//! step, without the segment work: parse + plan (`plan_sql`), the plan cache's key, encoding
//! the server query and decoding the server's answer (MessagePack, as brokers and servers in
//! separate processes exchange them, against JSON), reduce (`reduce_response`) and writing the
//! response JSON. A regression in any of them shows here as a number before it shows as a
//! slower query.
//!
//! The server answers are made once, by running each query's server plan over a 200k-row
//! bench segment (`tessera_benches::fixture`).
//!
//! Run: `cargo bench -p tessera-benches --bench broker_path`

use api::broker::plan_cache;
use api::broker::request::QueryRequest;
use api::transport::{ServerQuery, wire};
use criterion::{Criterion, criterion_group, criterion_main};
use engine::server::execute_server;
use engine::server::result::ServerResult;
use engine::{MemoryTables, QueryContext, plan_sql, reduce_response};
use planner::plan::QueryPlan;
use std::hint::black_box;
use std::sync::Arc;
use tessera_benches::{fixture, schema};

/// compare.py's anchors, on the bench segment's columns.
const ANCHORS: [(&str, &str); 6] = [
    (
        "a_count_eq",
        "SELECT COUNT(*) FROM bench WHERE mode = 'AIR'",
    ),
    (
        "b_q1",
        "SELECT mode, qty, SUM(qty), SUM(price), AVG(price), COUNT(*) FROM bench \
         WHERE part <= 150000 GROUP BY mode, qty ORDER BY mode, qty",
    ),
    (
        "c1_sorted_range",
        "SELECT COUNT(*), SUM(price) FROM bench WHERE id BETWEEN 30000 AND 31000",
    ),
    (
        "c2_range",
        "SELECT COUNT(*), SUM(price) FROM bench WHERE part BETWEEN 100000 AND 100100",
    ),
    (
        "d_topn",
        "SELECT id, qty, price FROM bench ORDER BY price DESC LIMIT 10",
    ),
    (
        "e_groupby_hi",
        "SELECT part, SUM(price) AS s FROM bench GROUP BY part ORDER BY s DESC LIMIT 5",
    ),
];

fn bench(c: &mut Criterion) {
    let f = fixture(200_000);
    let segment = Arc::new(f.segment);
    let mut tables = MemoryTables::new();
    tables.add("bench", schema(), vec![segment.clone()]);
    let mut g = c.benchmark_group("broker_path");
    g.sample_size(30);
    for (name, sql) in ANCHORS {
        let Ok((QueryPlan::SingleStage(plan), _)) = plan_sql(sql, None, &tables) else {
            panic!("{sql}: not a single-stage plan");
        };
        let ctx = QueryContext::new(plan.server.options.clone());
        let result = execute_server(&plan.server, std::slice::from_ref(&segment), &ctx);
        assert!(
            result.exceptions.is_empty(),
            "{sql}: {:?}",
            result.exceptions
        );
        let query = ServerQuery {
            table_name_with_type: "bench_OFFLINE".into(),
            segments: vec!["bench_0".into()],
            segment_crcs: vec![1],
            segment_incarnations: Vec::new(),
            plan: plan.server.clone(),
            trace: false,
            inline: true,
        };
        let request = QueryRequest {
            sql: sql.into(),
            trace: false,
            options: Vec::new(),
        };
        g.bench_function(format!("{name}/parse+plan"), |b| {
            b.iter(|| black_box(plan_sql(sql, None, &tables).is_ok()))
        });
        g.bench_function(format!("{name}/plan_cache_key"), |b| {
            b.iter(|| black_box(plan_cache::key(&request)))
        });
        g.bench_function(format!("{name}/server_query/msgpack"), |b| {
            b.iter(|| {
                let bytes = wire::encode(&query).unwrap();
                black_box(wire::decode::<ServerQuery>(&bytes).unwrap())
            })
        });
        g.bench_function(format!("{name}/server_query/json"), |b| {
            b.iter(|| {
                let text = serde_json::to_string(&query).unwrap();
                black_box(serde_json::from_str::<ServerQuery>(&text).unwrap())
            })
        });
        g.bench_function(format!("{name}/server_result/msgpack"), |b| {
            b.iter(|| {
                let bytes = wire::encode(&result).unwrap();
                black_box(wire::decode::<ServerResult>(&bytes).unwrap())
            })
        });
        g.bench_function(format!("{name}/server_result/json"), |b| {
            b.iter(|| {
                let text = serde_json::to_string(&result).unwrap();
                black_box(serde_json::from_str::<ServerResult>(&text).unwrap())
            })
        });
        g.bench_function(format!("{name}/reduce+serialise"), |b| {
            b.iter(|| {
                let response = reduce_response(&plan, vec![result.clone()]);
                black_box(serde_json::to_vec(&response).unwrap())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
