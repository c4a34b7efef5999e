//! Filter and group-by kernels measured through the engine on one 1M-row segment (see
//! `tessera_benches::fixture`): an inverted-index count, a range-index count, a scan filter with
//! indexes skipped, a low-cardinality group-by (7 groups), a high-cardinality group-by (200k
//! groups) and a top-10 ORDER BY.
//!
//! Run: `cargo bench -p tessera-benches --bench query`

use criterion::{Criterion, criterion_group, criterion_main};
use engine::{MemoryTables, execute_sql};
use std::hint::black_box;
use std::sync::Arc;
use tessera_benches::{fixture, schema};

const QUERIES: [(&str, &str); 7] = [
    (
        "filter/inverted/count/sel=14%",
        "SELECT COUNT(*) FROM bench WHERE mode = 'AIR'",
    ),
    (
        "filter/range/sum/sel=0.05%",
        "SELECT COUNT(*), SUM(price) FROM bench WHERE part BETWEEN 100000 AND 100100",
    ),
    (
        "filter/sorted/sum/sel=1%",
        "SELECT COUNT(*), SUM(price) FROM bench WHERE id BETWEEN 300000 AND 310000",
    ),
    (
        "filter/scan/count/sel=50%",
        "SET skipIndexes='qty=range'; SELECT COUNT(*) FROM bench WHERE qty > 25",
    ),
    (
        "group_by/card=7/sum+avg",
        "SELECT mode, SUM(price), AVG(qty), COUNT(*) FROM bench GROUP BY mode",
    ),
    (
        "group_by/card=200k/top5",
        "SELECT part, SUM(price) AS s FROM bench GROUP BY part ORDER BY s DESC LIMIT 5",
    ),
    (
        "select/order_by/top10",
        "SELECT id, price FROM bench ORDER BY price DESC LIMIT 10",
    ),
];

fn bench(c: &mut Criterion) {
    let f = fixture(1_000_000);
    let mut tables = MemoryTables::new();
    let segment = Arc::new(f.segment);
    tables.add("bench", schema(), vec![segment]);
    let mut g = c.benchmark_group("query");
    g.sample_size(20);
    for (label, sql) in QUERIES {
        let r = execute_sql(sql, None, &tables);
        assert!(r.exceptions.is_empty(), "{sql}: {:?}", r.exceptions);
        g.bench_function(label, |b| {
            b.iter(|| black_box(execute_sql(sql, None, &tables).num_rows_result_set))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
