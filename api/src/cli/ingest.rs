//! `tessera ingest --job-spec job.yaml [--values k=v …]`: runs a Pinot batch ingestion job spec
//! (see [`crate::ingest_job`]) and prints each built and pushed segment, then a summary.

use crate::ingest_job::{JobEvent, JobSpec, run as run_job};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct IngestArgs {
    /// Pinot `SegmentGenerationJobSpec` YAML file.
    #[arg(long = "job-spec", alias = "jobSpecFile")]
    pub job_spec: PathBuf,
    /// Template values substituted for `${key}` in the spec (Pinot's `-values`).
    #[arg(long = "values", value_name = "KEY=VALUE", num_args = 1..)]
    pub values: Vec<String>,
}

/// Runs the job.
pub fn run(args: IngestArgs) -> Result<(), String> {
    let text = std::fs::read_to_string(&args.job_spec)
        .map_err(|e| format!("cannot read '{}': {e}", args.job_spec.display()))?;
    let values = args
        .values
        .iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| format!("--values takes KEY=VALUE, not '{kv}'"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let spec =
        JobSpec::parse(&text, &values).map_err(|e| format!("{}: {e}", args.job_spec.display()))?;
    let started = Instant::now();
    // On a terminal, one bar over every segment to build and push; the per-segment lines print
    // above it. Otherwise (a log, a pipe) just the lines.
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} {elapsed}")
        {
            bar.set_style(style);
        }
        bar
    });
    let steps = u64::from(spec.job_type.creates()) + u64::from(spec.job_type.push().is_some());
    let say = |line: String| match &bar {
        Some(b) => b.println(line),
        None => eprintln!("{line}"),
    };
    let summary = run_job(&spec, &|event| match event {
        JobEvent::Inputs(n) => {
            if let Some(b) = &bar {
                b.set_length(n as u64 * steps);
                b.set_message("segments built and pushed");
            }
            say(format!("{n} input file(s)"));
        }
        JobEvent::Built(b) => {
            say(format!(
                "built {} from {}: {} rows in {:.2} s",
                b.name,
                b.input.display(),
                b.rows,
                b.seconds
            ));
            if let Some(bar) = &bar {
                bar.inc(1);
            }
        }
        JobEvent::Pushed(p) => {
            say(format!("pushed {}", p.display()));
            if let Some(bar) = &bar {
                bar.inc(1);
            }
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let summary = summary.map_err(|e| e.to_string())?;
    let rows: u64 = summary.built.iter().map(|b| u64::from(b.rows)).sum();
    println!(
        "{:?}: built {} segment(s) ({rows} rows), pushed {}, in {:.2} s",
        spec.job_type,
        summary.built.len(),
        summary.pushed.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
