//! Differential test: seeded random queries over the `.slt` suite's `orders` table, each run on
//! both engines (single-stage and multi-stage) over both physical layouts (indexed: sorted
//! column, inverted, range and bloom indexes, a raw column, a star-tree; plain: dictionaries
//! only). The four answers must be the same rows — the layouts change how a query is answered,
//! never what it answers, and a Pinot user switching engines must not see other results.
//!
//! The queries ([`support::queries`]) come from filters (comparisons, ranges, `IN`, `LIKE`, null
//! tests, expressions, `AND`/`OR`/`NOT`), aggregations with and without groups, `HAVING` and
//! `FILTER`, selections, top-k and `DISTINCT`; multi-stage forms (joins, subqueries, derived
//! tables, CTEs, `UNION`, windows) are compared with their single-stage equivalents.
//!
//! `TESSERA_ENGINES_AGREE=100000 TESSERA_FUZZ_SEED=7 cargo test -p tessera-tests --test
//! engines_agree --release -- --nocapture` runs a long campaign.

mod support;

use support::answers::{Cell, answer, assert_none_differ, same_rows, show};
use support::queries::{multistage_pair, query};
use support::{Rng, Variant, env_or};

/// Queries per run in CI.
const DEFAULT_COUNT: usize = 1_500;

#[test]
fn both_engines_on_both_layouts_give_the_same_rows() {
    let count: usize = env_or("TESSERA_ENGINES_AGREE", DEFAULT_COUNT);
    let seed: u64 = env_or("TESSERA_FUZZ_SEED", 0xD1FF_E4E7_0001);
    let mut rng = Rng(seed | 1);
    let runs = [
        ("v1 indexed", "", Variant::Indexed),
        ("v1 plain", "", Variant::Plain),
        ("v2 indexed", "useMultistageEngine=true", Variant::Indexed),
        ("v2 plain", "useMultistageEngine=true", Variant::Plain),
    ];
    let (mut agreed, mut rejected) = (0usize, 0usize);
    let (mut failures, mut rejections) = (Vec::new(), Vec::new());
    for i in 0..count {
        let (sql, ordered) = query(&mut rng);
        let nulls = *rng.pick(&["enableNullHandling=true", "enableNullHandling=false"]);
        let answers: Vec<_> = runs
            .iter()
            .map(|(name, engine, variant)| {
                let options = format!("timeoutMs=5000;{nulls};{engine}");
                (*name, answer(&sql, options.trim_end_matches(';'), *variant))
            })
            .collect();
        let (first, first_answer) = &answers[0];
        let mut bad = None;
        for (name, a) in &answers[1..] {
            let differs = match (first_answer, a) {
                (Ok(x), Ok(y)) => !same_rows(x, y, ordered),
                (Err(_), Err(_)) => false,
                _ => true,
            };
            if differs {
                bad = Some(format!(
                    "{first}: {}\n    {name}: {}",
                    show(first_answer),
                    show(a)
                ));
                break;
            }
        }
        match bad {
            Some(why) => failures.push(format!("#{i} ({nulls}) {sql}\n    {why}")),
            None if first_answer.is_ok() => agreed += 1,
            None => {
                rejected += 1;
                if let (Err(e), true) = (first_answer, rejections.len() < 5) {
                    rejections.push(format!("  {sql}: {e}"));
                }
            }
        }
    }
    println!(
        "engines_agree: {count} queries (seed {seed}): {agreed} answered alike, {rejected} rejected by all, {} differ",
        failures.len()
    );
    println!("rejected, for example:\n{}", rejections.join("\n"));
    assert_none_differ(&failures, count, "queries");
    // The generator makes valid queries: if most were rejected, the check would check nothing.
    assert!(
        agreed * 10 >= count * 9,
        "only {agreed} of {count} queries were answered"
    );
}

#[test]
fn multistage_forms_answer_as_their_single_stage_equivalents() {
    let count: usize = env_or("TESSERA_ENGINES_AGREE", DEFAULT_COUNT / 2);
    let seed: u64 = env_or("TESSERA_FUZZ_SEED", 0xD1FF_E4E7_0002);
    let mut rng = Rng(seed | 1);
    let (mut agreed, mut failures) = (0usize, Vec::new());
    for i in 0..count {
        let nulls = *rng.pick(&["enableNullHandling=true", "enableNullHandling=false"]);
        let v1 = format!("timeoutMs=5000;{nulls}");
        let v2 = format!("{v1};useMultistageEngine=true");
        let customers = |q: &str| -> String {
            let sql = format!("SELECT customer FROM customers WHERE {q} LIMIT 1000");
            match answer(&sql, &v1, Variant::Indexed) {
                Ok(rows) if !rows.is_empty() => rows
                    .iter()
                    .map(|r| match r.first() {
                        Some(Cell::Text(t)) => format!("'{t}'"),
                        other => format!("'{other:?}'"),
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                _ => "'no such customer'".into(),
            }
        };
        let (multi, single, ordered) =
            multistage_pair(&mut rng, nulls.ends_with("true"), &customers);
        let expected = answer(&single, &v1, Variant::Indexed);
        let mut bad = None;
        if let Err(e) = &expected {
            bad = Some(format!("the single-stage form fails: {e}\n    {single}"));
        }
        for variant in [Variant::Indexed, Variant::Plain] {
            let got = answer(&multi, &v2, variant);
            let differs = match (&expected, &got) {
                (Ok(x), Ok(y)) => !same_rows(x, y, ordered),
                _ => true,
            };
            if differs && bad.is_none() {
                bad = Some(format!(
                    "v2 {variant:?}: {}\n    v1 {single}: {}",
                    show(&got),
                    show(&expected)
                ));
            }
        }
        match bad {
            Some(why) => failures.push(format!("#{i} ({nulls}) {multi}\n    {why}")),
            None => agreed += 1,
        }
    }
    println!(
        "multistage forms: {count} pairs (seed {seed}): {agreed} agreed, {} differ",
        failures.len()
    );
    assert_none_differ(&failures, count, "pairs");
}
