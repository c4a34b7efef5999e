//! Dictionary lookups: value → dict id (binary search) and dict id → value, on a low-cardinality
//! STRING dictionary (7 values), a 200 000-entry INT dictionary and a ~1M-entry DOUBLE dictionary;
//! then 1M TPC-H-comment-like strings stored both ways a var dictionary can be: `plain` (offsets
//! into raw bytes, what dictionaries under 1 MiB use) and `blocks` (front-coded zstd blocks of 64,
//! what large ones use) — `index_of`, `value` at random ids (a block decode each) and `value` in id
//! order (one decode per 64 ids, the cached block serving the rest).
//!
//! Run: `cargo bench -p tessera-benches --bench dictionary`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use segments::dictionary::{Dictionary, VarDictionary};
use segments::format::Bytes;
use segments::types::{DataType, Value};
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
    comments(&mut g);
    g.finish();
}

/// 1M distinct sorted strings of 3–7 words from a TPC-H-sized vocabulary.
fn comment_values() -> Vec<String> {
    const WORDS: [&str; 24] = [
        "furiously",
        "carefully",
        "quickly",
        "slyly",
        "blithely",
        "ironic",
        "final",
        "regular",
        "express",
        "pending",
        "special",
        "bold",
        "requests",
        "deposits",
        "packages",
        "accounts",
        "theodolites",
        "foxes",
        "pinto",
        "beans",
        "instructions",
        "dependencies",
        "nag",
        "sleep",
    ];
    let mut rng = Rng(11);
    let mut v: Vec<String> = (0..1_100_000)
        .map(|_| {
            let n = 3 + rng.below(5) as usize;
            let words: Vec<&str> = (0..n).map(|_| WORDS[rng.below(24) as usize]).collect();
            words.join(" ")
        })
        .collect();
    v.sort();
    v.dedup();
    v.truncate(1_000_000);
    v
}

fn comments(g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let vals = comment_values();
    let probe = Value::String(vals[vals.len() / 3].clone());
    let mut rng = Rng(7);
    let ids: Vec<u32> = (0..1024)
        .map(|_| rng.below(vals.len() as u64) as u32)
        .collect();
    for (name, block_len) in [("plain", None), ("blocks", Some(64))] {
        let bytes =
            VarDictionary::encode_with(vals.iter().map(|s| s.as_bytes()), block_len).unwrap();
        let size = bytes.len();
        let dict = Dictionary::from_bytes(Bytes::from_vec(bytes), DataType::String).unwrap();
        let label = |op: &str| BenchmarkId::new(op, format!("comment-{name}/{size}B"));
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(label("index_of"), &probe, |b, v| {
            b.iter(|| black_box(dict.index_of(black_box(v))))
        });
        g.throughput(Throughput::Elements(ids.len() as u64));
        g.bench_with_input(label("value_random"), &ids, |b, ids| {
            b.iter(|| ids.iter().map(|&id| dict.bytes_at(id).len()).sum::<usize>())
        });
        g.bench_with_input(label("value_in_order"), &ids, |b, ids| {
            b.iter(|| {
                (ids[0]..ids[0] + ids.len() as u32)
                    .map(|id| dict.bytes_at(id.min(dict.len() - 1)).len())
                    .sum::<usize>()
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
