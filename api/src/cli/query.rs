//! `tessera query --segment DIR [--segment DIR …] [--schema S.json] "SQL"`: run SQL over
//! segment directories in-process (no server) and print the broker response JSON.
//!
//! The segments form one table, named by their `segment.table.name`; its schema is
//! `--schema` or, without it, derived from the segments' column metadata.

use clap::Args;
use engine::execute_sql;
use engine::provider::MemoryTables;
use segments::segment::ImmutableSegment;
use segments::types::{FieldSpec, Schema};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Args)]
#[command(
    after_help = "Exit status: 0 when the response has no exceptions, 1 when it has any (the JSON \
response is printed either way, as Pinot answers HTTP 200 with `exceptions`), 1 with a message on stderr \
when the segments or schema cannot be read."
)]
pub struct QueryArgs {
    /// A segment directory; repeat for several segments of one table.
    #[arg(long = "segment", required = true)]
    pub segments: Vec<PathBuf>,
    /// The table's schema (optional: segments carry their column types).
    #[arg(long)]
    pub schema: Option<PathBuf>,
    /// Request-level query options, Pinot's `queryOptions` string (`k1=v1;k2=v2`); `SET`
    /// statements in the SQL win.
    #[arg(long = "query-options")]
    pub query_options: Option<String>,
    /// Print compact JSON instead of pretty-printed.
    #[arg(long)]
    pub compact: bool,
    /// The SQL statement (leading `SET k=v;` statements allowed).
    pub sql: String,
}

/// The schema the segments describe: every column with its type, role and arity.
pub fn schema_from_segment(table: &str, segment: &ImmutableSegment) -> Schema {
    let fields = segment
        .metadata()
        .columns
        .iter()
        .map(|c| {
            let mut f = FieldSpec::dimension(&c.name, c.data_type);
            f.field_type = c.field_type;
            f.single_value_field = c.single_value;
            f
        })
        .collect();
    Schema {
        schema_name: table.to_string(),
        fields,
        ..Schema::default()
    }
}

/// Opens the segments of one table and builds its provider: `(table name, tables)`.
pub fn open_table(
    dirs: &[PathBuf],
    schema_path: Option<&Path>,
) -> Result<(String, MemoryTables), String> {
    let mut segments = Vec::with_capacity(dirs.len());
    for d in dirs {
        let s = ImmutableSegment::open(d)
            .map_err(|e| format!("cannot open segment '{}': {e}", d.display()))?;
        segments.push(Arc::new(s));
    }
    let Some(first) = segments.first() else {
        return Err("at least one --segment is required".into());
    };
    let table = first.metadata().table_name.clone();
    if let Some(other) = segments.iter().find(|s| s.metadata().table_name != table) {
        return Err(format!(
            "segments belong to different tables: '{table}' and '{}' (segment '{}')",
            other.metadata().table_name,
            other.name()
        ));
    }
    let schema = match schema_path {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("cannot read schema '{}': {e}", p.display()))?;
            Schema::from_json(&text)
                .map_err(|e| format!("invalid schema '{}': {e}", p.display()))?
        }
        None => schema_from_segment(&table, first),
    };
    let mut tables = MemoryTables::new();
    tables.add(table.clone(), schema, segments);
    Ok((table, tables))
}

/// Runs the command.
pub fn run(args: QueryArgs) -> Result<(), String> {
    let (_, tables) = open_table(&args.segments, args.schema.as_deref())?;
    let response = execute_sql(&args.sql, args.query_options.as_deref(), &tables);
    let text = if args.compact {
        serde_json::to_string(&response).map_err(|e| e.to_string())?
    } else {
        response.to_json_pretty()
    };
    println!("{text}");
    match response.exceptions.len() {
        0 => Ok(()),
        n => Err(format!(
            "the query failed with {n} exception(s), first: {}",
            response.exceptions[0].message
        )),
    }
}
