//! `tessera segment create|inspect`.

use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum SegmentCommand {
    /// Build a segment from a CSV or JSON-lines file.
    Create(CreateArgs),
    /// Print a segment's metadata and per-column statistics.
    Inspect(InspectArgs),
}

#[derive(Args)]
pub struct CreateArgs {
    #[arg(long)]
    pub schema: PathBuf,
    #[arg(long = "table-config")]
    pub table_config: PathBuf,
    #[arg(long)]
    pub input: PathBuf,
    #[arg(long = "input-format", value_parser = ["csv", "json"])]
    pub input_format: Option<String>,
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long = "segment-name")]
    pub segment_name: Option<String>,
}

#[derive(Args)]
pub struct InspectArgs {
    pub segment_dir: PathBuf,
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: SegmentCommand) -> Result<(), String> {
    match cmd {
        SegmentCommand::Create(_) | SegmentCommand::Inspect(_) => {
            Err("segment commands are being built".into())
        }
    }
}
