//! Segment build throughput: 200 000 seeded rows (6 columns: sorted, inverted, range and raw
//! columns) into a fresh directory per iteration. The TPC-H sf=1 CSV comparison against DuckDB is
//! `benches/peer/build_vs_duckdb.py`.
//!
//! Run: `cargo bench -p tessera-benches --bench segment_build`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use segments::builder::build_segment_from_rows;
use tessera_benches::{build_config, rows, schema};

const ROWS: u32 = 200_000;

fn bench(c: &mut Criterion) {
    let schema = schema();
    let config = build_config();
    let mut g = c.benchmark_group("segment_build");
    g.throughput(Throughput::Elements(ROWS as u64));
    g.sample_size(10);
    g.bench_function("rows=200k/cols=6", |b| {
        b.iter(|| {
            let dir = tempfile::tempdir().expect("temp dir");
            build_segment_from_rows(&schema, &config, rows(ROWS), dir.path()).expect("build");
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
