//! Dictionary lookups: value → dict id (binary search) and dict id → value, on a low-cardinality
//! STRING dictionary (7 values), a 200 000-entry INT dictionary and a ~1M-entry DOUBLE dictionary.
//!
//! Run: `cargo bench -p tessera-benches --bench dictionary`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use segments::types::Value;
use std::hint::black_box;
use tessera_benches::{Rng, fixture};

fn bench(c: &mut Criterion) {
    let f = fixture(1_000_000);
    let mut g = c.benchmark_group("dictionary");
    for (col, probe) in [
        ("mode", Value::String("RAIL".into())),
        ("part", Value::Int(123_456)),
        ("price", Value::Double(54_321.0)),
    ] {
        let dict = f
            .segment
            .column(col)
            .and_then(|c| c.dictionary())
            .expect("dictionary");
        let card = dict.len();
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(
            BenchmarkId::new("index_of", format!("{col}/card={card}")),
            &probe,
            |b, v| b.iter(|| black_box(dict.index_of(black_box(v)))),
        );
        let mut rng = Rng(7);
        let ids: Vec<u32> = (0..1024).map(|_| rng.below(card as u64) as u32).collect();
        g.throughput(Throughput::Elements(ids.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("f64_at", format!("{col}/card={card}")),
            &ids,
            |b, ids| {
                b.iter(|| {
                    ids.iter()
                        .map(|&id| {
                            if col == "mode" {
                                dict.bytes_at(id).len() as f64
                            } else {
                                dict.f64_at(id)
                            }
                        })
                        .sum::<f64>()
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
