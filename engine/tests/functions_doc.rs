//! `docs/functions.md`: every function name Pinot registers (`docs/pinot-registry.tsv`, from
//! `tools/pinot_registry.py`) with what Tessera does with it — generated here from the catalog
//! itself, so the table cannot drift from the code.
//!
//! A name is supported when the scalar catalog (`planner::functions::lookup`) or the aggregate
//! catalog (`parse_aggregate_name`) knows it, or — for SQL syntax, filter predicates and window
//! functions — when a sample query using it answers in the engines the table claims. Refused
//! names must really be refused. `UPDATE_FUNCTIONS_DOC=1 cargo test -p tessera-engine --test
//! functions_doc` (or `tools/functions_doc.sh`) rewrites the file; otherwise the test fails
//! when the file differs from what the code says.

use planner::functions::{canonical_name, lookup};
use planner::plan::aggregate::parse_aggregate_name;
use segments::types::{DataType, FieldSpec, Schema};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use tessera_engine::execute_sql;
use tessera_engine::provider::MemoryTables;

/// One row of the registry.
struct Entry {
    kind: String,
    family: String,
    name: String,
    aliases: Vec<String>,
}

fn repo_file(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
}

fn registry() -> Vec<Entry> {
    let text = std::fs::read_to_string(repo_file("docs/pinot-registry.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Entry {
                kind: f[0].to_string(),
                family: f[1].to_string(),
                name: f[2].to_string(),
                aliases: f[3]
                    .split(',')
                    .filter(|a| !a.is_empty())
                    .map(str::to_string)
                    .collect(),
            }
        })
        .collect()
}

/// Names written as SQL syntax or used as filter predicates, with how they are written and a
/// query that must answer in both engines.
const SYNTAX: &[(&str, &str, &str)] = &[
    ("cast", "CAST(x AS type)", "SELECT CAST(i AS LONG) FROM t"),
    (
        "case",
        "CASE WHEN … THEN … ELSE … END",
        "SELECT CASE WHEN i > 1 THEN 'a' ELSE 'b' END FROM t",
    ),
    ("in", "x IN (…)", "SELECT COUNT(*) FROM t WHERE i IN (1, 2)"),
    (
        "notin",
        "x NOT IN (…)",
        "SELECT COUNT(*) FROM t WHERE i NOT IN (1, 2)",
    ),
    (
        "istrue",
        "x IS TRUE",
        "SELECT COUNT(*) FROM t WHERE b IS TRUE",
    ),
    (
        "isfalse",
        "x IS FALSE",
        "SELECT COUNT(*) FROM t WHERE b IS FALSE",
    ),
    (
        "isnottrue",
        "x IS NOT TRUE",
        "SELECT COUNT(*) FROM t WHERE b IS NOT TRUE",
    ),
    (
        "isnotfalse",
        "x IS NOT FALSE",
        "SELECT COUNT(*) FROM t WHERE b IS NOT FALSE",
    ),
    (
        "extract",
        "EXTRACT(unit FROM x)",
        "SELECT EXTRACT(YEAR FROM ts) FROM t",
    ),
    (
        "textmatch",
        "TEXT_MATCH(col, 'query') in WHERE",
        "SELECT COUNT(*) FROM t WHERE TEXT_MATCH(s, 'a')",
    ),
    (
        "jsonmatch",
        "JSON_MATCH(col, 'filter') in WHERE",
        "SELECT COUNT(*) FROM t WHERE JSON_MATCH(j, '\"$.a\" = 1')",
    ),
];

/// Names Tessera refuses on purpose, with the reason.
const REFUSED: &[(&str, &str)] = &[
    (
        "groovy",
        "Groovy scripts are not run (Pinot disables them by default); use SQL expressions",
    ),
    ("fasthll", "deprecated in Pinot; use DISTINCTCOUNTHLL"),
    (
        "scalar",
        "a placeholder in Pinot's transform registry with no implementation (its own registry test skips it)",
    ),
    (
        "pinotparentaggexprmin",
        "internal to Pinot's planning of EXPRMIN; Tessera runs EXPRMIN as one aggregate",
    ),
    (
        "pinotparentaggexprmax",
        "internal to Pinot's planning of EXPRMAX; Tessera runs EXPRMAX as one aggregate",
    ),
    (
        "pinotchildaggexprmin",
        "internal to Pinot's planning of EXPRMIN; Tessera runs EXPRMIN as one aggregate",
    ),
    (
        "pinotchildaggexprmax",
        "internal to Pinot's planning of EXPRMAX; Tessera runs EXPRMAX as one aggregate",
    ),
    (
        "fourthmoment",
        "Pinot's own intermediate of SKEWNESS and KURTOSIS, which Pinot refuses as a query's \
         aggregate (\"Fourth moment cannot be used as aggregation function directly\")",
    ),
    (
        "timeseriesaggregate",
        "belongs to Pinot's time-series engine (PromQL/M3QL), not to SQL",
    ),
    (
        "timeseriesbucket",
        "belongs to Pinot's time-series engine (PromQL/M3QL), not to SQL",
    ),
];

/// The table sample queries run against: one row-less table of every type they need.
fn tables() -> MemoryTables {
    let mut schema = Schema {
        schema_name: "t".into(),
        ..Schema::default()
    };
    for (name, t) in [
        ("i", DataType::Int),
        ("x", DataType::Double),
        ("s", DataType::String),
        ("b", DataType::Boolean),
        ("ts", DataType::Timestamp),
        ("j", DataType::Json),
    ] {
        schema.fields.push(FieldSpec::dimension(name, t));
    }
    let mut tables = MemoryTables::new();
    tables.add("t", schema, Vec::new());
    tables
}

/// Whether `sql` answers without an exception in the single-stage (`false`) or multi-stage
/// engine.
fn answers(tables: &MemoryTables, sql: &str, multi_stage: bool) -> bool {
    let sql = if multi_stage {
        format!("SET useMultistageEngine=true; {sql}")
    } else {
        sql.to_string()
    };
    let r = execute_sql(&sql, None, tables);
    r.exceptions.is_empty()
}

/// What Tessera does with one registry name: (supported, status text).
fn status(e: &Entry, tables: &MemoryTables) -> (bool, String) {
    let names: Vec<String> = std::iter::once(&e.name)
        .chain(&e.aliases)
        .map(|n| canonical_name(n))
        .collect();
    if let Some(reason) = names
        .iter()
        .find_map(|n| REFUSED.iter().find(|(r, _)| r == n).map(|(_, why)| *why))
    {
        return (false, format!("refused: {reason}"));
    }
    if e.kind == "window" {
        let (call, needs_arg) = match names[0].as_str() {
            "ntile" => ("NTILE(2)".to_string(), false),
            "lag" | "lead" | "firstvalue" | "lastvalue" => (format!("{}(i)", e.name), true),
            "rownumber" | "rank" | "denserank" => (format!("{}()", e.name), false),
            "booland" | "boolor" => (format!("{}(b)", e.name), true),
            _ => (format!("{}(i)", e.name), true),
        };
        let _ = needs_arg;
        let sql = format!("SELECT {call} OVER (ORDER BY i) FROM t");
        let v2 = answers(tables, &sql, true);
        return if v2 {
            (true, "v2 (window)".to_string())
        } else {
            (false, "missing".to_string())
        };
    }
    if let Some((_, how, sql)) = names
        .iter()
        .find_map(|n| SYNTAX.iter().find(|(s, _, _)| s == n))
    {
        let engines: Vec<&str> = [(false, "v1"), (true, "v2")]
            .into_iter()
            .filter(|(m, _)| answers(tables, sql, *m))
            .map(|(_, e)| e)
            .collect();
        return if engines.is_empty() {
            (false, "missing".to_string())
        } else {
            (true, format!("{} (syntax: `{how}`)", engines.join(", ")))
        };
    }
    let known = match e.kind.as_str() {
        "aggregate" => names.iter().any(|n| parse_aggregate_name(n).is_some()),
        _ => names.iter().any(|n| lookup(n).is_some()),
    };
    if known {
        (true, "v1, v2".to_string())
    } else {
        (false, "missing".to_string())
    }
}

fn render() -> String {
    let tables = tables();
    let entries = registry();
    let mut by_kind: BTreeMap<&str, Vec<(&Entry, bool, String)>> = BTreeMap::new();
    for e in &entries {
        let (ok, text) = status(e, &tables);
        by_kind
            .entry(e.kind.as_str())
            .or_default()
            .push((e, ok, text));
    }
    let supported = by_kind.values().flatten().filter(|(_, ok, _)| *ok).count();
    let mut out = String::new();
    out.push_str("# Pinot's function registry in Tessera\n\n");
    out.push_str(
        "Generated by `engine/tests/functions_doc.rs` from Tessera's catalogs and \
         `docs/pinot-registry.tsv` (every name Apache Pinot registers: `@ScalarFunction`s, \
         `TransformFunctionType`, `AggregationFunctionType`, the multi-stage window functions). \
         Do not edit by hand: run `tools/functions_doc.sh`.\n\n",
    );
    out.push_str(
        "Status: `v1, v2` — both engines (the single-stage engine has no window functions, as \
         in Pinot); `syntax` — written as SQL rather than called by name; `refused` — on \
         purpose, with the reason; `missing` — not built yet.\n\n",
    );
    let _ = writeln!(
        out,
        "**{supported} of {} names supported.**\n",
        entries.len()
    );
    out.push_str("| kind | supported | total |\n| --- | ---: | ---: |\n");
    for (kind, rows) in &by_kind {
        let ok = rows.iter().filter(|(_, ok, _)| *ok).count();
        let _ = writeln!(out, "| {kind} | {ok} | {} |", rows.len());
    }
    for (kind, rows) in &by_kind {
        let _ = writeln!(out, "\n## {kind}\n");
        out.push_str("| family | name | aliases | status |\n| --- | --- | --- | --- |\n");
        for (e, _, text) in rows {
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} |",
                e.family,
                e.name,
                e.aliases
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                text
            );
        }
    }
    out
}

#[test]
fn functions_doc_is_current() {
    let path = repo_file("docs/functions.md");
    let fresh = render();
    if std::env::var_os("UPDATE_FUNCTIONS_DOC").is_some() {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == fresh,
        "docs/functions.md is stale: run tools/functions_doc.sh and commit the result"
    );
}

#[test]
fn refused_names_are_refused_and_syntax_names_are_not_functions() {
    for (name, _) in REFUSED {
        assert!(
            lookup(name).is_none(),
            "{name} is refused yet in the scalar catalog"
        );
        assert!(
            parse_aggregate_name(name).is_none(),
            "{name} is refused yet an aggregate"
        );
    }
    let tables = tables();
    for (name, _, sql) in SYNTAX {
        assert!(
            answers(&tables, sql, false) || answers(&tables, sql, true),
            "the sample of {name} answers in neither engine: {sql}"
        );
    }
}
