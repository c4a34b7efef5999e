//! SQL text fuzzing: grammar-aware mutations of the `.slt` queries (and of Pinot's conformance
//! queries when `../shared/conformance` is beside the checkout), each run through
//! [`execute_sql`] on both engines over the `.slt` tables.
//!
//! Every input must come back as a response — a result, or exceptions with one of Pinot's
//! query error codes and a non-empty message — within its deadline, and never as a caught
//! panic (`execute_sql` turns a panic into an "internal error" exception, which this test
//! counts as a failure). The seed and count are fixed so a failure reproduces:
//! `TESSERA_FUZZ_SQL=1000000 TESSERA_FUZZ_SEED=7 cargo test -p tessera-tests --test fuzz_sql
//! --release -- --nocapture` runs a long campaign.

mod support;

use engine::execute_sql;
use std::time::{Duration, Instant};
use support::{Rng, Variant, env_or, slt_dir, tables};

/// Inputs per run in CI.
const DEFAULT_COUNT: usize = 4_000;

/// Pinot's query error codes a response may carry.
const KNOWN_CODES: &[i32] = &[
    100, 150, 160, 180, 190, 200, 210, 230, 235, 240, 245, 250, 305, 400, 410, 425, 427, 429, 450,
    500, 503, 700, 710, 720,
];

/// The queries of every `.slt` file (over the `.slt` tables), and the conformance queries when
/// present (their own tables renamed to `orders`, so mostly rejected: they exercise the parser
/// and binder).
fn corpus() -> (Vec<String>, Vec<String>) {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(slt_dir())
        .expect("tests/slt")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "slt"))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("slt file");
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if line.starts_with("query") || line.starts_with("statement") {
                let sql: Vec<&str> = lines
                    .by_ref()
                    .take_while(|l| !l.starts_with("----") && !l.trim().is_empty())
                    .collect();
                if !sql.is_empty() {
                    out.push(sql.join("\n"));
                }
            }
        }
    }
    let slt = std::mem::take(&mut out);
    let conformance = slt_dir().join("../../../shared/conformance/pinot-queries");
    if let Ok(entries) = std::fs::read_dir(&conformance) {
        for e in entries.flatten() {
            let Ok(text) = std::fs::read_to_string(e.path()) else {
                continue;
            };
            let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue;
            };
            for case in json.as_object().into_iter().flat_map(|o| o.values()) {
                for q in case["queries"].as_array().into_iter().flatten() {
                    if let Some(sql) = q["sql"].as_str() {
                        let mut sql = sql.to_string();
                        while let (Some(a), Some(b)) = (sql.find('{'), sql.find('}')) {
                            if b < a {
                                break;
                            }
                            sql.replace_range(a..=b, "orders");
                        }
                        out.push(sql);
                    }
                }
            }
        }
    }
    (slt, out)
}

/// Splits SQL into rough tokens (words, quoted strings, numbers, single symbols).
fn tokens(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = sql.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c == '\'' || c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += 1;
            }
            i = (i + 1).min(chars.len());
        } else if c.is_alphanumeric() || c == '_' || c == '$' || c == '.' {
            while i < chars.len()
                && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '$' | '.'))
            {
                i += 1;
            }
        } else {
            i += 1;
        }
        out.push(chars[start..i].iter().collect());
    }
    out
}

const SPICE: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP",
    "BY",
    "ORDER",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "JOIN",
    "ON",
    "UNION",
    "ALL",
    "INTERSECT",
    "EXCEPT",
    "WITH",
    "AS",
    "OVER",
    "PARTITION",
    "ROWS",
    "RANGE",
    "BETWEEN",
    "AND",
    "OR",
    "NOT",
    "IN",
    "IS",
    "NULL",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "CAST",
    "DISTINCT",
    "EXISTS",
    "LIKE",
    "(",
    ")",
    ",",
    "*",
    "/",
    "%",
    "+",
    "-",
    "=",
    "<>",
    "<",
    ">=",
    "||",
    "'",
    "''",
    "0",
    "-1",
    "1e308",
    "-9223372036854775808",
    "9223372036854775807",
    "99999999999999999999999",
    "0.0",
    "NaN",
    "'NaN'",
    "''",
    "'%'",
    "'\\'",
    "TRUE",
    "FALSE",
    "COUNT(*)",
    "SUM(",
    "AVG(",
    "PERCENTILE(",
    "DISTINCTCOUNTHLL(",
    "DATETRUNC('DAY',",
    "$docId",
    "ROW_NUMBER()",
    "LAG(",
    "INTERVAL '1' DAY",
    "TIMESTAMP '2020-01-01'",
    "DATE 'x'",
    "😀",
    "\0",
    ";",
    "SET useMultistageEngine=true;",
    "OPTION(timeoutMs=1)",
    "nosuchtable",
    "nosuchcol",
];

fn mutate(rng: &mut Rng, base: &str) -> String {
    let mut t = tokens(base);
    for _ in 0..rng.below(3) {
        let n = t.len();
        match rng.below(10) {
            0 if n > 0 => {
                t.remove(rng.below(n));
            }
            1 if n > 0 => {
                let i = rng.below(n);
                let dup = t[i].clone();
                t.insert(i, dup);
            }
            2 if n > 1 => {
                let (a, b) = (rng.below(n), rng.below(n));
                t.swap(a, b);
            }
            3 | 4 => {
                let i = rng.below(n + 1);
                t.insert(i, rng.pick(SPICE).to_string());
            }
            5 if n > 0 => {
                let i = rng.below(n);
                t[i] = rng.pick(SPICE).to_string();
            }
            6 => t.truncate(rng.below(n + 1)),
            7 => {
                let depth = 1 + rng.below(40);
                t.insert(0, "SELECT * FROM (".repeat(depth));
                t.push(")".repeat(depth));
            }
            8 => {
                let i = rng.below(n + 1);
                let deep = format!(
                    "{}1{}",
                    "(".repeat(rng.below(300)),
                    ")".repeat(rng.below(300))
                );
                t.insert(i, deep);
            }
            _ => {
                let other = rng.pick(SPICE).to_string();
                t.push(other);
            }
        }
    }
    t.join(" ")
}

#[test]
fn mutated_sql_never_panics_or_hangs() {
    let count: usize = env_or("TESSERA_FUZZ_SQL", DEFAULT_COUNT);
    let seed: u64 = env_or("TESSERA_FUZZ_SEED", 0x5EED_7E55_E2A0);
    let (slt, conformance) = corpus();
    assert!(slt.len() > 100, "corpus too small: {}", slt.len());
    let tables = tables(Variant::Indexed);
    let mut rng = Rng(seed | 1);
    let (mut answered, mut rejected) = (0usize, 0usize);
    let mut failures = Vec::new();
    for i in 0..count {
        let base = if conformance.is_empty() || rng.below(4) > 0 {
            rng.pick(&slt)
        } else {
            rng.pick(&conformance)
        };
        let sql = mutate(&mut rng, base);
        let options = if i % 2 == 0 {
            "timeoutMs=2000"
        } else {
            "timeoutMs=2000;useMultistageEngine=true"
        };
        let started = Instant::now();
        let r = execute_sql(&sql, Some(options), tables);
        let took = started.elapsed();
        let bad = if took > Duration::from_secs(10) {
            Some(format!("took {took:?}"))
        } else if let Some(e) = r
            .exceptions
            .iter()
            .find(|e| e.message.contains("internal error") || e.message.is_empty())
        {
            Some(format!("[{}] {}", e.error_code, e.message))
        } else if let Some(e) = r
            .exceptions
            .iter()
            .find(|e| !KNOWN_CODES.contains(&e.error_code))
        {
            Some(format!("unknown code [{}] {}", e.error_code, e.message))
        } else if r.exceptions.is_empty() && r.result_table.is_none() {
            Some("neither a result nor an exception".into())
        } else {
            None
        };
        match bad {
            Some(why) => failures.push(format!("#{i} ({options}) {sql:?}: {why}")),
            None if r.exceptions.is_empty() => answered += 1,
            None => rejected += 1,
        }
    }
    println!(
        "fuzz_sql: {count} inputs (seed {seed}): {answered} answered, {rejected} rejected with Pinot errors, {} failures",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {count} inputs failed:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
