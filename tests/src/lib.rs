//! Cross-crate tests live in `tests/tests/`; this library holds what several of them share.

use engine::provider::MemoryTables;
use segments::build_config::BuildConfig;
use segments::builder::build_segment_from_rows;
use segments::segment::ImmutableSegment;
use segments::types::{Schema, Value};
use std::path::Path;
use std::sync::Arc;

/// Builds one segment per `(config, rows)` into `dir` (named by each config) and serves them,
/// opened from disk, as table `table`.
pub fn table_of_segments(
    dir: &Path,
    table: &str,
    schema: &Schema,
    parts: impl IntoIterator<Item = (BuildConfig, Vec<Vec<Value>>)>,
) -> MemoryTables {
    let segments = parts
        .into_iter()
        .map(|(config, rows)| {
            build_segment_from_rows(schema, &config, rows.into_iter().map(Ok), dir)
                .expect("segment builds");
            let segment = ImmutableSegment::open(&dir.join(&config.segment_name));
            Arc::new(segment.expect("segment opens"))
        })
        .collect();
    let mut tables = MemoryTables::new();
    tables.add(table, schema.clone(), segments);
    tables
}
