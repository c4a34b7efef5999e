//! What several test files share: the `.slt` suite's tables (`tests/slt/data/`), built once per
//! layout (`slt.rs`, `fuzz_sql.rs`), and the seeded generator of the fuzz tests.

pub mod answers;
pub mod queries;

use engine::provider::MemoryTables;
use segments::build_config::BuildConfig;
use segments::builder::build_segment;
use segments::input::{InputFormat, InputSource};
use segments::segment::ImmutableSegment;
use segments::types::Schema;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The `tests/slt` directory.
#[allow(dead_code)]
pub fn slt_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("slt")
}

/// The two physical layouts every file runs against.
#[derive(Clone, Copy, Debug)]
#[allow(dead_code)] // each test file uses the layouts it needs
pub enum Variant {
    Indexed,
    Plain,
}

impl Variant {
    fn config_file(self) -> &'static str {
        match self {
            Variant::Indexed => "indexed.json",
            Variant::Plain => "plain.json",
        }
    }
}

struct Tables {
    _dir: tempfile::TempDir,
    tables: MemoryTables,
    /// `lookUp`'s view of the dimension tables (registered while this lives).
    _dimensions: Arc<dyn planner::functions::DimensionTables>,
}

/// One table of `tests/slt/data`, its segments built into a directory.
#[allow(dead_code)]
pub struct BuiltTable {
    pub name: String,
    pub schema_json: String,
    pub config: serde_json::Value,
    /// Segment names, each a directory under the build directory.
    pub segments: Vec<String>,
}

/// Builds every table of `tests/slt/data` in `variant`'s layout into `out`: one segment per
/// CSV part, named `<table>_<i>`.
#[allow(dead_code)]
pub fn build_slt_tables(variant: Variant, out: &Path) -> Vec<BuiltTable> {
    let mut entries: Vec<_> = std::fs::read_dir(slt_dir().join("data"))
        .expect("tests/slt/data")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_dir())
        .collect();
    entries.sort();
    let mut built = Vec::new();
    for table_dir in entries {
        let name = table_dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("table name")
            .to_string();
        let schema_json =
            std::fs::read_to_string(table_dir.join("schema.json")).expect("schema.json");
        let schema = Schema::from_json(&schema_json).expect("valid schema");
        let config: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(table_dir.join(variant.config_file())).expect("table config"),
        )
        .expect("config json");
        let mut parts: Vec<_> = std::fs::read_dir(&table_dir)
            .expect("table dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "csv"))
            .collect();
        parts.sort();
        let mut segments = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let segment_name = format!("{name}_{i}");
            let build = BuildConfig::from_table_config_json(&config, &schema, Some(&segment_name))
                .expect("build config");
            let input = InputSource {
                path: part.clone(),
                format: InputFormat::Csv,
                options: Default::default(),
            };
            build_segment(&schema, &build, &input, out, &mut |_| {}).expect("segment builds");
            segments.push(segment_name);
        }
        built.push(BuiltTable {
            name,
            schema_json,
            config,
            segments,
        });
    }
    built
}

fn build_tables(variant: Variant) -> Tables {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut tables = MemoryTables::new();
    for t in build_slt_tables(variant, dir.path()) {
        let schema = Schema::from_json(&t.schema_json).expect("valid schema");
        let segments = t
            .segments
            .iter()
            .map(|s| Arc::new(ImmutableSegment::open(&dir.path().join(s)).expect("segment opens")))
            .collect();
        tables.add(&t.name, schema, segments);
        if t.config["isDimTable"] == true {
            tables.set_dim_table(&t.name);
        }
    }
    let dimensions: Arc<dyn planner::functions::DimensionTables> =
        Arc::new(engine::dimension::SegmentDimensions::new(tables.clone()));
    planner::functions::register_dimensions(&dimensions);
    Tables {
        _dir: dir,
        tables,
        _dimensions: dimensions,
    }
}

/// Renders a result cell the way `gen/make_slt.py` renders DuckDB's: integers as-is, floats
/// rounded to 4 decimals with trailing zeros dropped, NULL as `NULL`, empty strings as
/// `(empty)`.
#[allow(dead_code)]
pub fn render(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "NULL".into(),
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.to_string(),
            (_, Some(u)) => u.to_string(),
            _ => render_float(n.as_f64().unwrap_or(f64::NAN)),
        },
        serde_json::Value::String(s) if s.is_empty() => "(empty)".into(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn render_float(f: f64) -> String {
    let s = format!("{f:.4}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" || s.is_empty() {
        "0".into()
    } else {
        s
    }
}

/// The tables of `variant`, built on first use.
#[allow(dead_code)]
pub fn tables(variant: Variant) -> &'static MemoryTables {
    static INDEXED: OnceLock<Tables> = OnceLock::new();
    static PLAIN: OnceLock<Tables> = OnceLock::new();
    let cell = match variant {
        Variant::Indexed => &INDEXED,
        Variant::Plain => &PLAIN,
    };
    &cell.get_or_init(|| build_tables(variant)).tables
}

/// A number from the environment variable `name` (a campaign's count or seed), else `default`.
#[allow(dead_code)]
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// xorshift64*: small, seeded, reproducible (the fuzz tests' inputs).
pub struct Rng(pub u64);

#[allow(dead_code)] // each test file uses what it needs
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
