//! Build-throughput probe (ignored by default; needs a release build and an input file):
//!
//! ```text
//! TESSERA_BUILD_CSV=lineitem.csv TESSERA_BUILD_SCHEMA=schema.json TESSERA_BUILD_TABLE=table.json \
//!   cargo test --release -p tessera-segments --test build_speed -- --ignored --nocapture
//! ```
//!
//! Prints rows/s for pass 1 (parse + intern + spill) and the whole build. The criterion bench
//! `segment_build` is the tracked measurement; this is for quick local profiling.

use segments::types::Schema;
use segments::{BuildConfig, ImmutableSegment, InputFormat, InputSource, build_segment};
use std::path::PathBuf;
use tessera_segments as segments;

#[test]
#[ignore = "needs TESSERA_BUILD_CSV and a release build"]
fn build_throughput() {
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("set {k}"));
    let schema =
        Schema::from_json(&std::fs::read_to_string(var("TESSERA_BUILD_SCHEMA")).unwrap()).unwrap();
    let table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(var("TESSERA_BUILD_TABLE")).unwrap())
            .unwrap();
    let config = BuildConfig::from_table_config_json(&table, &schema, Some("speed")).unwrap();
    let path = PathBuf::from(var("TESSERA_BUILD_CSV"));
    let format = InputFormat::from_path(&path).unwrap();
    let out = tempfile::tempdir().unwrap();
    let s = build_segment(
        &schema,
        &config,
        &InputSource {
            path,
            format,
            options: Default::default(),
        },
        out.path(),
        &mut |_| {},
    )
    .unwrap();
    let rows = s.total_docs as f64;
    println!(
        "{} rows, {} columns, {} bytes: pass 1 {:.2} s ({:.0} rows/s), total {:.2} s ({:.0} rows/s)",
        s.total_docs,
        s.columns,
        s.size_bytes,
        s.read_seconds,
        rows / s.read_seconds,
        s.seconds,
        rows / s.seconds
    );
    let t = std::time::Instant::now();
    let seg = ImmutableSegment::open(&s.segment_dir).unwrap();
    println!("open {:.3} s", t.elapsed().as_secs_f64());
    for c in seg.columns() {
        let m = c.metadata();
        println!(
            "  {:<16} card {:>8} bits {:>2} bytes {:>10}",
            m.name,
            m.cardinality,
            m.bits_per_element,
            m.size_bytes()
        );
    }
}

#[test]
#[ignore = "timing probe; run with --release"]
fn bitpacked_read_range_speed() {
    use segments::format::Bytes;
    use segments::forward::{BitPackedForward, bitpacked};
    let n = 1 << 22;
    for bits in [1u8, 3, 7, 8, 12, 16, 20, 25, 32] {
        let max = if bits == 32 {
            u32::MAX
        } else {
            (1u32 << bits) - 1
        };
        let vals: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761) & max)
            .collect();
        let f =
            BitPackedForward::from_bytes(Bytes::from_vec(bitpacked::pack(&vals, bits))).unwrap();
        let mut out = vec![0u32; 1024];
        let mut sum = 0u64;
        let t = std::time::Instant::now();
        for _ in 0..4 {
            for start in (0..n as u32).step_by(1024) {
                f.read_range(start, &mut out);
                sum += out[7] as u64;
            }
        }
        let ns = t.elapsed().as_nanos() as f64 / (4 * n) as f64;
        println!("bits {bits:>2}: {ns:.2} ns/value (checksum {sum})");
    }
}
