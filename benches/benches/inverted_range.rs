//! Index lookups on 1M docs: inverted-index bitmaps for a low-cardinality value (~14% of docs)
//! and a high-cardinality value (~5 docs), the sorted index's doc range, and range-index matches of
//! narrow (0.05%) and wide (50%) dict-id ranges.
//!
//! Run: `cargo bench -p tessera-benches --bench inverted_range`

use criterion::{Criterion, criterion_group, criterion_main};
use segments::index::{Inverted, Range, Sorted};
use segments::types::Value;
use std::hint::black_box;
use std::ops::Bound;
use tessera_benches::fixture;

fn bench(c: &mut Criterion) {
    let f = fixture(1_000_000);
    let mut g = c.benchmark_group("index");
    let mode = f.segment.column("mode").expect("mode");
    let inv = mode.index::<Inverted>().expect("inverted index on mode");
    let air = mode
        .dictionary()
        .and_then(|d| d.index_of(&Value::String("AIR".into())))
        .expect("AIR");
    g.bench_function("inverted/doc_ids/card=7/sel=14%", |b| {
        b.iter(|| black_box(inv.doc_ids(air).len()))
    });
    let part = f.segment.column("part").expect("part");
    let pinv = part.index::<Inverted>().expect("inverted index on part");
    g.bench_function("inverted/doc_ids/card=200k/sel=5docs", |b| {
        b.iter(|| black_box(pinv.doc_ids(1234).len()))
    });
    let id = f.segment.column("id").expect("id");
    let sorted = id.index::<Sorted>().expect("sorted index on id");
    g.bench_function("sorted/doc_range", |b| {
        b.iter(|| black_box(sorted.doc_range(black_box(500_000))))
    });
    let range = part.index::<Range>().expect("range index on part");
    let dict = part.dictionary().expect("part dictionary");
    for (label, lo, hi) in [("sel=0.05%", 100_000, 100_100), ("sel=50%", 0, 100_000)] {
        let ids = dict.id_range(
            Bound::Included(&Value::Int(lo)),
            Bound::Included(&Value::Int(hi)),
        );
        g.bench_function(format!("range/matching/{label}"), |b| {
            b.iter(|| {
                // Exact docs plus the boundary buckets' partial ones (the engine confirms
                // those from the forward index; the query benches time that part).
                let m = range.matching(ids.clone());
                black_box(m.exact.len() + m.partial.len())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
