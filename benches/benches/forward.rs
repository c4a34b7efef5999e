//! Forward-index decode: bit-packed dict ids read in 10 000-doc blocks (the engine's hot path) at
//! 3, 18 and 20 bits per value, gathered reads of scattered docs, and raw zstd-chunked doubles.
//!
//! Run: `cargo bench -p tessera-benches --bench forward`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use segments::forward::ForwardIndex;
use std::hint::black_box;
use tessera_benches::{Rng, fixture};

const ROWS: u32 = 1_000_000;
const BLOCK: usize = 10_000;

fn bench(c: &mut Criterion) {
    let f = fixture(ROWS);
    let mut g = c.benchmark_group("forward");
    g.throughput(Throughput::Elements(ROWS as u64));
    for col in ["mode", "part", "price"] {
        let reader = f.segment.column(col).expect("column");
        let ForwardIndex::Dict(fwd) = reader.forward() else {
            panic!("{col} is dictionary-encoded")
        };
        g.bench_function(
            BenchmarkId::new(
                "read_range",
                match fwd.packed() {
                    Some(p) => format!("{col}/bits={}", p.bits()),
                    None => format!("{col}/sorted"),
                },
            ),
            |b| {
                let mut out = vec![0u32; BLOCK];
                b.iter(|| {
                    let mut acc = 0u64;
                    let mut start = 0;
                    while start < ROWS {
                        let n = BLOCK.min((ROWS - start) as usize);
                        fwd.read_range(start, &mut out[..n]);
                        acc += out[n - 1] as u64;
                        start += n as u32;
                    }
                    black_box(acc)
                })
            },
        );
    }
    let reader = f.segment.column("part").expect("part");
    let ForwardIndex::Dict(fwd) = reader.forward() else {
        panic!("part is dictionary-encoded")
    };
    let mut rng = Rng(3);
    let mut docs: Vec<u32> = (0..BLOCK).map(|_| rng.below(ROWS as u64) as u32).collect();
    docs.sort_unstable();
    g.throughput(Throughput::Elements(BLOCK as u64));
    g.bench_function("read_docs/part/sparse", |b| {
        let mut out = vec![0u32; BLOCK];
        b.iter(|| {
            fwd.read_docs(&docs, &mut out);
            black_box(out[BLOCK - 1])
        })
    });
    let raw = f.segment.column("price_raw").expect("price_raw");
    if let ForwardIndex::Raw(raw) = raw.forward() {
        g.throughput(Throughput::Elements(ROWS as u64));
        g.bench_function("raw_f64_range/price_raw", |b| {
            let mut out = vec![0f64; BLOCK];
            b.iter(|| {
                let mut cursor = raw.cursor();
                let mut acc = 0.0;
                let mut start = 0;
                while start < ROWS {
                    let n = BLOCK.min((ROWS - start) as usize);
                    cursor.read_f64_range(start, &mut out[..n]);
                    acc += out[n - 1];
                    start += n as u32;
                }
                black_box(acc)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
