//! `tessera bench`: time queries over segment directories in-process, the way a user
//! measures their own data and config (index and star-tree effects, peer comparisons).
//!
//! Each query runs once to warm up, then `--runs` times; the table reports median and minimum
//! wall time, result rows and docs scanned. `--compare-options K=V` runs every query a second
//! time with those options (e.g. `useStarTree=false` or `skipIndexes=...`) and prints the
//! speed-up. `--stdin` turns the command into a timing server for scripts: each input line is
//! one SQL statement, run once, answered with one JSON line `{"ms":..,"rows":..,"error":..}`.
//! Threads follow rayon's `RAYON_NUM_THREADS` (set it to 1 for single-thread figures).

use crate::cli::query::open_table;
use clap::Args;
use engine::{BrokerResponse, MemoryTables, execute_sql};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct BenchArgs {
    /// A segment directory; repeat for several segments of one table.
    #[arg(long = "segment", required = true)]
    pub segments: Vec<PathBuf>,
    /// The table's schema (optional: segments carry their column types).
    #[arg(long)]
    pub schema: Option<PathBuf>,
    /// A query to time; repeat for several.
    #[arg(long = "query")]
    pub queries: Vec<String>,
    /// Timed runs per query (after one warm-up run).
    #[arg(long, default_value_t = 7)]
    pub runs: usize,
    /// Query options for every run (`k=v;k2=v2`).
    #[arg(long = "query-options")]
    pub query_options: Option<String>,
    /// Also run every query with these options and report the ratio (`useStarTree=false`).
    #[arg(long = "compare-options")]
    pub compare_options: Option<String>,
    /// Read one SQL statement per stdin line, run it once, print one JSON line per statement.
    #[arg(long)]
    pub stdin: bool,
}

/// One timed query: median and minimum milliseconds plus what the last run returned.
struct Timing {
    median_ms: f64,
    min_ms: f64,
    response: BrokerResponse,
}

fn time_once(sql: &str, options: Option<&str>, tables: &MemoryTables) -> (f64, BrokerResponse) {
    let start = Instant::now();
    let response = execute_sql(sql, options, tables);
    (start.elapsed().as_secs_f64() * 1000.0, response)
}

fn time_query(
    sql: &str,
    options: Option<&str>,
    tables: &MemoryTables,
    runs: usize,
) -> Result<Timing, String> {
    let (_, warm) = time_once(sql, options, tables);
    if let Some(e) = warm.exceptions.first() {
        return Err(format!(
            "query failed: {sql}: [{}] {}",
            e.error_code, e.message
        ));
    }
    let mut times = Vec::with_capacity(runs.max(1));
    let mut response = warm;
    for _ in 0..runs.max(1) {
        let (ms, r) = time_once(sql, options, tables);
        times.push(ms);
        response = r;
    }
    times.sort_by(f64::total_cmp);
    Ok(Timing {
        median_ms: times[times.len() / 2],
        min_ms: times[0],
        response,
    })
}

fn merge_options(base: Option<&str>, extra: &str) -> String {
    match base {
        Some(b) if !b.trim().is_empty() => format!("{b};{extra}"),
        _ => extra.to_string(),
    }
}

fn serve_stdin(tables: &MemoryTables, options: Option<&str>) -> Result<(), String> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let sql = line.map_err(|e| format!("cannot read stdin: {e}"))?;
        if sql.trim().is_empty() {
            continue;
        }
        let (ms, r) = time_once(&sql, options, tables);
        let answer = serde_json::json!({
            "ms": ms,
            "rows": r.result_table.as_ref().map(|t| t.rows.clone()),
            "numDocsScanned": r.num_docs_scanned,
            "error": r.exceptions.first().map(|e| format!("[{}] {}", e.error_code, e.message)),
        });
        writeln!(out, "{answer}")
            .and_then(|_| out.flush())
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Runs the command.
pub fn run(args: BenchArgs) -> Result<(), String> {
    let (table, tables) = open_table(&args.segments, args.schema.as_deref())?;
    let options = args.query_options.as_deref();
    if args.stdin {
        return serve_stdin(&tables, options);
    }
    if args.queries.is_empty() {
        return Err("give at least one --query (or --stdin)".into());
    }
    println!(
        "table {table}: {} segment(s), {} runs per query, threads {}",
        args.segments.len(),
        args.runs,
        rayon::current_num_threads()
    );
    for sql in &args.queries {
        let t = time_query(sql, options, &tables, args.runs)?;
        println!("\n{sql}");
        println!(
            "  median {:.3} ms  min {:.3} ms  rows {}  docs scanned {}  entries scanned in filter {}",
            t.median_ms,
            t.min_ms,
            t.response.num_rows_result_set,
            t.response.num_docs_scanned,
            t.response.num_entries_scanned_in_filter
        );
        if let Some(cmp) = &args.compare_options {
            let alt = merge_options(options, cmp);
            let c = time_query(sql, Some(&alt), &tables, args.runs)?;
            let same = c.response.result_table == t.response.result_table;
            println!(
                "  with {cmp}: median {:.3} ms  min {:.3} ms  docs scanned {}  → {:.1}x {}",
                c.median_ms,
                c.min_ms,
                c.response.num_docs_scanned,
                c.median_ms / t.median_ms.max(1e-9),
                if same {
                    "(same answer)"
                } else {
                    "(ANSWERS DIFFER)"
                }
            );
        }
    }
    Ok(())
}
