//! `tessera query --segment DIR … "SQL"`: run SQL over segment directories in-process.

use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct QueryArgs {
    /// A segment directory; repeat for several segments of one table.
    #[arg(long = "segment", required = true)]
    pub segments: Vec<PathBuf>,
    /// The table's schema (optional: segments carry their column types).
    #[arg(long)]
    pub schema: Option<PathBuf>,
    /// The SQL statement (leading `SET k=v;` statements allowed).
    pub sql: String,
}

pub fn run(_args: QueryArgs) -> Result<(), String> {
    Err("query is being built".into())
}
