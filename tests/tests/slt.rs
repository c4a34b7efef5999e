//! The `.slt` suite (`tests/slt/*.slt`): SQL behaviour as data.
//!
//! Every file runs twice, against the tables of `tests/slt/data/` built with every index kind
//! (`indexed.json`: sorted, inverted, range, bloom, raw columns, timestamp index, star-trees) and
//! with none (`plain.json`), so the same expected answers must come out of both paths. Values are rendered one way for both the
//! expected answers (computed by DuckDB in `gen/make_slt.py`) and Tessera: integers as-is, floats
//! rounded to 4 decimals with trailing zeros dropped, NULL as `NULL`, empty strings as `(empty)`.

mod support;

use engine::execute_sql;
use engine::provider::MemoryTables;
use sqllogictest::{DBOutput, DefaultColumnType, Runner};
use support::{Variant, render, slt_dir, tables};

/// A query answered with exceptions, as the runner sees it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct QueryFailed(String);

struct Tessera {
    tables: &'static MemoryTables,
}

impl sqllogictest::DB for Tessera {
    type Error = QueryFailed;
    type ColumnType = DefaultColumnType;

    fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, QueryFailed> {
        let response = execute_sql(sql, None, self.tables);
        if let Some(e) = response.exceptions.first() {
            return Err(QueryFailed(format!("[{}] {}", e.error_code, e.message)));
        }
        let Some(table) = response.result_table else {
            return Ok(DBOutput::StatementComplete(0));
        };
        Ok(DBOutput::Rows {
            types: vec![DefaultColumnType::Any; table.data_schema.column_names.len()],
            rows: table
                .rows
                .iter()
                .map(|r| r.iter().map(render).collect())
                .collect(),
        })
    }

    fn engine_name(&self) -> &str {
        "tessera"
    }
}

fn run_file(name: &str) {
    let path = slt_dir().join(format!("{name}.slt"));
    let mut failures = Vec::new();
    for variant in [Variant::Indexed, Variant::Plain] {
        let tables = tables(variant);
        let mut runner = Runner::new(move || async move { Ok(Tessera { tables }) });
        if let Err(e) = runner.run_file(&path) {
            failures.push(format!("{variant:?}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

macro_rules! slt_files {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { run_file(stringify!($name)); })*

        /// Every .slt file on disk has a test above.
        #[test]
        fn every_slt_file_is_listed() {
            let listed = [$(stringify!($name)),*];
            for entry in std::fs::read_dir(slt_dir()).expect("tests/slt") {
                let path = entry.expect("entry").path();
                if path.extension().is_some_and(|e| e == "slt") {
                    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
                    assert!(listed.contains(&stem.as_str()), "{stem}.slt has no test in tests/tests/slt.rs");
                }
            }
        }
    };
}

slt_files!(
    filter,
    aggregate,
    groupby,
    order_limit,
    functions,
    nulls,
    errors,
    timestamp_index,
    random,
    v2_aggregate,
    v2_join,
    v2_subquery,
    v2_setop,
    v2_window,
    v2_random
);
