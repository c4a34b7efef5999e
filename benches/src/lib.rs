//! Seeded fixtures shared by the criterion benches in `benches/benches/`.
//!
//! [`fixture`] builds one segment of `rows` rows into a temporary directory with columns that
//! span the cardinalities the benches are labelled by:
//!
//! | column | type | values | indexes |
//! |---|---|---|---|
//! | `id` | LONG | 0..rows, sorted | sorted |
//! | `mode` | STRING | 7 values | inverted |
//! | `part` | INT | 200 000 distinct (uniform) | inverted, range |
//! | `qty` | INT | 1..=50 | range |
//! | `price` | DOUBLE | ~rows distinct | — |
//! | `price_raw` | DOUBLE | same as `price`, no dictionary | — |

use segments::SegmentError;
use segments::build_config::BuildConfig;
use segments::builder::build_segment_from_rows;
use segments::segment::ImmutableSegment;
use segments::types::{DataType, FieldSpec, Schema, Value};

/// A segment built for a bench and the directory that keeps it alive.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub segment: ImmutableSegment,
}

/// SplitMix64: a tiny seeded generator so every run measures the same data.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

pub const MODES: [&str; 7] = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"];

/// The bench schema (see the module table).
pub fn schema() -> Schema {
    Schema {
        schema_name: "bench".into(),
        fields: vec![
            FieldSpec::dimension("id", DataType::Long),
            FieldSpec::dimension("mode", DataType::String),
            FieldSpec::dimension("part", DataType::Int),
            FieldSpec::metric("qty", DataType::Int),
            FieldSpec::metric("price", DataType::Double),
            FieldSpec::metric("price_raw", DataType::Double),
        ],
        ..Schema::default()
    }
}

/// The build config: which indexes each column gets.
pub fn build_config() -> BuildConfig {
    let mut c = BuildConfig::new("bench", "bench_0");
    c.sorted_column = Some("id".into());
    c.inverted = ["mode", "part"].iter().map(|s| s.to_string()).collect();
    c.range = ["part", "qty"].iter().map(|s| s.to_string()).collect();
    c.no_dictionary = ["price_raw"].iter().map(|s| s.to_string()).collect();
    c
}

/// Seeded rows in schema order.
pub fn rows(rows: u32) -> impl Iterator<Item = Result<Vec<Value>, SegmentError>> {
    let mut rng = Rng(42);
    (0..rows).map(move |i| {
        let price = (rng.below(10_000_000) as f64) / 100.0;
        Ok(vec![
            Value::Long(i as i64),
            Value::String(MODES[rng.below(7) as usize].into()),
            Value::Int(rng.below(200_000) as i32),
            Value::Int(1 + rng.below(50) as i32),
            Value::Double(price),
            Value::Double(price),
        ])
    })
}

/// Builds and opens the bench segment.
pub fn fixture(n: u32) -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir for bench segment");
    build_segment_from_rows(&schema(), &build_config(), rows(n), dir.path())
        .expect("bench segment builds");
    let segment = ImmutableSegment::open(&dir.path().join("bench_0")).expect("bench segment opens");
    Fixture { dir, segment }
}
