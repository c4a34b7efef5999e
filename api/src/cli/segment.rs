//! `tessera segment create|inspect`: build a segment from a CSV / JSON-lines file with a Pinot
//! schema and table config, and print a segment's metadata and per-column statistics.
//!
//! The work is in `segments` (`build_segment`, `ImmutableSegment::open`, `inspect`); this file
//! only reads the argument files, shows progress and formats messages.

use clap::{Args, Subcommand};
use segments::inspect::{inspect_json, inspect_table};
use segments::segment::ImmutableSegment;
use segments::types::Schema;
use segments::{BuildConfig, InputFormat, InputSource, build_segment};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

#[derive(Subcommand)]
pub enum SegmentCommand {
    /// Build a segment from a CSV or JSON-lines file.
    Create(CreateArgs),
    /// Print a segment's metadata and per-column statistics.
    Inspect(InspectArgs),
}

#[derive(Args)]
pub struct CreateArgs {
    /// Pinot schema JSON file.
    #[arg(long)]
    pub schema: PathBuf,
    /// Pinot table config JSON file (plain or `{"OFFLINE": {...}}`).
    #[arg(long = "table-config")]
    pub table_config: PathBuf,
    /// Input file: CSV with a header row, JSON lines (either also `.gz` or `.zst`), Parquet,
    /// Avro or ORC.
    #[arg(long)]
    pub input: PathBuf,
    /// Input format (Pinot's `inputFormat` names: csv, json, parquet, avro, orc); inferred from
    /// the input's extension when omitted (`orders.csv.gz` is CSV).
    #[arg(long = "input-format", value_parser = parse_input_format)]
    pub input_format: Option<InputFormat>,
    /// CSV field delimiter: one character, or `\t` for tab (default `,`).
    #[arg(long)]
    pub delimiter: Option<String>,
    /// What separates the values of a multi-value CSV cell (default `;`).
    #[arg(long = "multi-value-delimiter")]
    pub multi_value_delimiter: Option<String>,
    /// The column names of a CSV file without a header row, `delimiter`-separated.
    #[arg(long)]
    pub header: Option<String>,
    /// Directory to create the segment directory in.
    #[arg(long)]
    pub out: PathBuf,
    /// Segment name (default `<rawTable>_0`).
    #[arg(long = "segment-name")]
    pub segment_name: Option<String>,
}

#[derive(Args)]
pub struct InspectArgs {
    /// A segment directory.
    pub segment_dir: PathBuf,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: SegmentCommand) -> Result<(), String> {
    match cmd {
        SegmentCommand::Create(args) => create(args),
        SegmentCommand::Inspect(args) => inspect(args),
    }
}

fn read_text(path: &Path, what: &str) -> Result<String, String> {
    std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {what} '{}': {e}", path.display()))
}

fn create(args: CreateArgs) -> Result<(), String> {
    let schema = Schema::from_json(&read_text(&args.schema, "schema")?)
        .and_then(|s| s.validate().map(|_| s))
        .map_err(|e| format!("invalid schema '{}': {e}", args.schema.display()))?;
    let table: serde_json::Value =
        serde_json::from_str(&read_text(&args.table_config, "table config")?).map_err(|e| {
            format!(
                "invalid table config '{}': {e}",
                args.table_config.display()
            )
        })?;
    let config = BuildConfig::from_table_config_json(&table, &schema, args.segment_name.as_deref())
        .map_err(|e| {
            format!(
                "invalid table config '{}': {e}",
                args.table_config.display()
            )
        })?;
    let format = match args.input_format {
        Some(f) => f,
        None => InputFormat::from_path(&args.input).ok_or_else(|| {
            format!(
                "cannot infer the input format of '{}'; pass --input-format csv|json|parquet|avro|orc",
                args.input.display()
            )
        })?,
    };
    let mut options = segments::input::InputOptions::default();
    if let Some(d) = &args.delimiter {
        options.delimiter = segments::input::InputOptions::parse_delimiter(d)
            .ok_or_else(|| format!("--delimiter takes one character (or \\t), not '{d}'"))?;
    }
    if let Some(d) = &args.multi_value_delimiter {
        options.multi_value_delimiter = segments::input::InputOptions::parse_delimiter(d)
            .ok_or_else(|| format!("--multi-value-delimiter takes one character, not '{d}'"))?;
    }
    options.header = args.header.clone();
    options.complex =
        segments::input::complex::ComplexTypes::from_table_config(&table).map_err(|e| {
            format!(
                "invalid table config '{}': {e}",
                args.table_config.display()
            )
        })?;
    let input = InputSource {
        path: args.input.clone(),
        format,
        options,
    };

    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{spinner} {human_pos} rows read ({per_sec}) {elapsed}",
        ) {
            bar.set_style(style);
        }
        bar
    });
    let result = build_segment(&schema, &config, &input, &args.out, &mut |rows| {
        if let Some(b) = &bar {
            b.set_position(rows);
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let s = result.map_err(|e| e.to_string())?;
    println!(
        "created segment {} at {}: {} rows, {} columns, {} bytes in {:.2} s (reading the input {:.2} s)",
        s.segment_name,
        s.segment_dir.display(),
        s.total_docs,
        s.columns,
        s.size_bytes,
        s.seconds,
        s.read_seconds
    );
    Ok(())
}

fn inspect(args: InspectArgs) -> Result<(), String> {
    let seg = ImmutableSegment::open(&args.segment_dir).map_err(|e| e.to_string())?;
    let text = if args.json {
        let mut t = serde_json::to_string_pretty(&inspect_json(&seg)).map_err(|e| e.to_string())?;
        t.push('\n');
        t
    } else {
        inspect_table(&seg)
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        // A closed pipe (`| head`) is not an error.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write output: {e}"))
        }
        _ => Ok(()),
    }
}

/// `--input-format`: one of Pinot's `inputFormat` names.
fn parse_input_format(name: &str) -> Result<InputFormat, String> {
    InputFormat::parse(name)
        .ok_or_else(|| format!("unknown input format '{name}' (csv, json, parquet, avro or orc)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Create {
        #[command(flatten)]
        args: CreateArgs,
    }

    fn parse(format: &str) -> Result<Option<InputFormat>, String> {
        let argv = [
            "create",
            "--schema",
            "s.json",
            "--table-config",
            "t.json",
            "--input",
            "rows",
        ];
        Create::try_parse_from(
            argv.into_iter()
                .chain(["--out", "out", "--input-format", format]),
        )
        .map(|c| c.args.input_format)
        .map_err(|e| e.to_string())
    }

    #[test]
    fn input_format_takes_every_pinot_name() {
        for (name, format) in [
            ("csv", InputFormat::Csv),
            ("json", InputFormat::Json),
            ("parquet", InputFormat::Parquet),
            ("avro", InputFormat::Avro),
            ("orc", InputFormat::Orc),
            ("ORC", InputFormat::Orc),
        ] {
            assert_eq!(parse(name), Ok(Some(format)), "{name}");
        }
        let refused = parse("xml").unwrap_err();
        assert!(refused.contains("unknown input format 'xml'"), "{refused}");
    }
}
