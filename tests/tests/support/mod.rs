//! What several test files share: the `.slt` suite's tables (`tests/slt/data/`), built once per
//! layout (`slt.rs`, `fuzz_sql.rs`), and the seeded generator of the fuzz tests.

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
}

fn build_tables(variant: Variant) -> Tables {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut tables = MemoryTables::new();
    let mut entries: Vec<_> = std::fs::read_dir(slt_dir().join("data"))
        .expect("tests/slt/data")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_dir())
        .collect();
    entries.sort();
    for table_dir in entries {
        let name = table_dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("table name")
            .to_string();
        let schema_text =
            std::fs::read_to_string(table_dir.join("schema.json")).expect("schema.json");
        let schema = Schema::from_json(&schema_text).expect("valid schema");
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
            };
            build_segment(&schema, &build, &input, dir.path(), &mut |_| {})
                .expect("segment builds");
            let segment =
                ImmutableSegment::open(&dir.path().join(&segment_name)).expect("segment opens");
            segments.push(Arc::new(segment));
        }
        tables.add(name, schema, segments);
    }
    Tables { _dir: dir, tables }
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
