//! The `tessera` binary: one CLI for segment tools, local queries and the server roles.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use tessera_api::cli;

/// mimalloc: freed memory is reused by the next query instead of being handed back to the kernel
/// and faulted in again page by page ([`tessera_api::heap`] sets how long it is kept).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "tessera",
    version,
    about = "Tessera: a real-time OLAP database that speaks Apache Pinot's interface"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build and inspect segments from files.
    #[command(subcommand)]
    Segment(cli::segment::SegmentCommand),
    /// Run a Pinot batch ingestion job spec (build segments from files and push them).
    Ingest(cli::ingest::IngestArgs),
    /// Run SQL locally over segment directories (no server) and print the broker response.
    Query(cli::query::QueryArgs),
    /// Time queries over segment directories (median/min of N runs; option comparisons).
    Bench(cli::bench::BenchArgs),
    /// Run cluster roles (controller, broker, server; all three by default).
    Start(Box<cli::start::StartArgs>),
    /// Start all roles with a sample table and print example commands.
    Quickstart(cli::quickstart::QuickstartArgs),
    /// Cluster administration: export the embedded store's metadata, import it into ZooKeeper.
    #[command(subcommand)]
    Admin(cli::admin::AdminCommand),
}

fn main() -> ExitCode {
    tessera_api::heap::tune();
    // The pool's threads named for what they run (unnamed, each took the name of the thread that
    // first used the pool: an HTTP runtime's or a stage worker's, which misled profiles); its
    // size stays rayon's (the cores, or `RAYON_NUM_THREADS`).
    let _ = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("tessera-pool-{i}"))
        .build_global();
    let result = match Cli::parse().command {
        Command::Segment(cmd) => cli::segment::run(cmd),
        Command::Ingest(args) => cli::ingest::run(args),
        Command::Query(args) => cli::query::run(args),
        Command::Start(args) => cli::start::run(*args),
        Command::Bench(args) => cli::bench::run(args),
        Command::Quickstart(args) => cli::quickstart::run(args),
        Command::Admin(cmd) => cli::admin::run(cmd),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
