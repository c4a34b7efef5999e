//! The broker's plan cache: a query's [`QueryPlan`] by its normalised text, so a repeated
//! query skips parsing and binding (most of the broker's own time for an index-answered query).
//!
//! The key is the SQL with whitespace runs outside quotes collapsed and a trailing `;` dropped,
//! plus the request's options. A plan depends on the catalog (schemas, which tables exist,
//! dimension tables), so each entry remembers the catalog generation it was planned against
//! ([`BrokerCatalog::generation`](super::catalog::BrokerCatalog::generation)); a changed
//! catalog makes every older entry a miss. Plans that call a clock function (`now()`, `ago()`)
//! are not cached, nor failed plans. The cache holds at most [`CAPACITY`] plans and starts
//! over when full: simple, and a working set larger than that is not a repeated-query load.
//!
//! An entry also keeps what running its plan taught the broker ([`InlineHint`]): after a
//! server found it over its inline budget, servers are asked to run it on their pools at once
//! for a while.

use super::request::QueryRequest;
use crate::transport::Ask;
use engine::server::result::ServerResult;
use planner::plan::QueryPlan;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// A plan and what running it taught the broker.
#[derive(Clone, Debug)]
pub struct Planned {
    pub plan: Arc<QueryPlan>,
    /// Whether servers should try it inline first, shared by every run of the cached plan.
    pub inline: Arc<InlineHint>,
}

impl Planned {
    /// A plan not run yet: servers try it inline first.
    pub fn new(plan: Arc<QueryPlan>) -> Planned {
        Planned {
            plan,
            inline: Arc::default(),
        }
    }

    /// How servers are asked to run it.
    pub fn ask(&self, trace: bool) -> Ask {
        Ask {
            trace,
            inline: self.inline.take_inline(),
        }
    }

    /// Learns from the servers' answers to a run asked as `ask`.
    pub fn learn<'r>(&self, ask: Ask, results: impl IntoIterator<Item = &'r ServerResult>) {
        if ask.inline {
            self.inline
                .learn(results.into_iter().any(|r| r.over_budget));
        }
    }
}

/// Whether servers should try a plan inline first ([`ServerQuery::inline`]). A run past a
/// server's budget sends the plan's next runs to the pools — 16 of them, twice as many after
/// each further run past it, at most 1,024 — and then it is tried inline again; a run that fits
/// starts over. One slow run (a cold segment's first page faults, a thread descheduled under
/// load) so costs a cheap plan a few runs on the pool, and a plan that never fits wastes an
/// attempt once in up to a thousand runs.
///
/// [`ServerQuery::inline`]: crate::transport::ServerQuery::inline
#[derive(Debug, Default)]
pub struct InlineHint {
    /// Runs still to send to the pools.
    skip: AtomicU32,
    /// Runs to skip after the next run past the budget (0: none was).
    backoff: AtomicU32,
}

/// Runs sent to the pools after the first run past the budget.
const FIRST_BACKOFF: u32 = 16;
/// Most runs sent to the pools between two attempts.
const MAX_BACKOFF: u32 = 1024;

impl InlineHint {
    /// Whether this run should be tried inline (counting down the runs to skip).
    pub fn take_inline(&self) -> bool {
        self.skip
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_err()
    }

    /// Takes in how an inline attempt went.
    pub fn learn(&self, over_budget: bool) {
        if over_budget {
            let backoff =
                (self.backoff.load(Ordering::Relaxed) * 2).clamp(FIRST_BACKOFF, MAX_BACKOFF);
            self.backoff.store(backoff, Ordering::Relaxed);
            self.skip.store(backoff, Ordering::Relaxed);
        } else {
            self.backoff.store(0, Ordering::Relaxed);
        }
    }
}

/// Most plans kept.
pub const CAPACITY: usize = 1024;

/// Plans by normalised query.
#[derive(Default)]
pub struct PlanCache {
    entries: Mutex<HashMap<String, (u64, Planned)>>,
}

impl PlanCache {
    /// The plan of `key` made against catalog `generation`, if cached.
    pub fn get(&self, key: &str, generation: u64) -> Option<Planned> {
        let entries = self.entries.lock().ok()?;
        let (g, plan) = entries.get(key)?;
        (*g == generation).then(|| plan.clone())
    }

    /// Keeps `plan` for `key`.
    pub fn put(&self, key: String, generation: u64, plan: Planned) {
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= CAPACITY && !entries.contains_key(&key) {
                entries.clear();
            }
            entries.insert(key, (generation, plan));
        }
    }

    /// Number of plans kept.
    pub fn len(&self) -> usize {
        self.entries.lock().map_or(0, |e| e.len())
    }

    /// Whether no plan is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The cache key of `query`, or `None` when its plan must not be reused (it calls a clock
/// function).
pub fn key(query: &QueryRequest) -> Option<String> {
    let mut key = normalise(&query.sql);
    if calls_clock(&key) {
        return None;
    }
    for (k, v) in &query.options {
        key.push('\0');
        key.push_str(k);
        key.push('=');
        key.push_str(v);
    }
    Some(key)
}

/// `sql` with each whitespace run outside quotes ('…', "…", `…`) made one space, and without
/// surrounding whitespace or a trailing `;`.
fn normalise(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut quote: Option<char> = None;
    let mut space = false;
    for c in sql.trim().trim_end_matches(';').trim_end().chars() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == q {
                    quote = None;
                }
            }
            None if c.is_whitespace() => space = true,
            None => {
                if space {
                    out.push(' ');
                    space = false;
                }
                if matches!(c, '\'' | '"' | '`') {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
}

/// Whether the text names a nondeterministic function as a call (`now()`, `ago ('P1D')`,
/// `REQ_ID('x')`), in any spelling the registry resolves (case and `_` ignored).
fn calls_clock(sql: &str) -> bool {
    /// The nondeterministic functions' canonical names and aliases (read from the registry
    /// once).
    static CLOCK: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
        planner::functions::all()
            .filter(|d| !planner::functions::is_deterministic(d))
            .flat_map(|d| std::iter::once(d.name()).chain(d.aliases().iter().copied()))
            .map(planner::functions::canonical_name)
            .collect()
    });
    let lower = planner::functions::canonical_name(sql);
    CLOCK.iter().any(|name| {
        lower.match_indices(name.as_str()).any(|(at, _)| {
            let before = lower[..at].chars().next_back();
            let after = lower[at + name.len()..].trim_start();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && after.starts_with('(')
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(sql: &str, options: &[(&str, &str)]) -> QueryRequest {
        QueryRequest {
            sql: sql.into(),
            trace: false,
            options: options
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn keys_ignore_spacing_but_not_quoted_text_or_options() {
        let k = |sql: &str| key(&request(sql, &[])).unwrap();
        assert_eq!(
            k("SELECT  a,\n\tb FROM t WHERE c = 'x' ;"),
            k("SELECT a, b FROM t WHERE c = 'x'")
        );
        assert_ne!(
            k("SELECT a FROM t WHERE c = 'x  y'"),
            k("SELECT a FROM t WHERE c = 'x y'")
        );
        assert_ne!(k("SELECT \"a  b\" FROM t"), k("SELECT \"a b\" FROM t"));
        assert_ne!(
            key(&request("SELECT a FROM t", &[("timeoutMs", "10")])),
            key(&request("SELECT a FROM t", &[("timeoutMs", "20")]))
        );
    }

    #[test]
    fn clock_calls_are_not_cached() {
        assert!(key(&request("SELECT now() FROM t", &[])).is_none());
        assert!(key(&request("SELECT a FROM t WHERE ts > AGO ('PT1H')", &[])).is_none());
        assert!(key(&request("SELECT snow, agony FROM t", &[])).is_some());
        assert!(key(&request("SELECT nowhere FROM t", &[])).is_some());
        assert!(key(&request("SELECT REQ_ID(a) FROM t", &[])).is_none());
        assert!(key(&request("SELECT stageid('x') FROM t", &[])).is_none());
    }

    #[test]
    fn entries_of_an_older_catalog_miss_and_the_cache_is_bounded() {
        let c = PlanCache::default();
        let plan = Planned::new(Arc::new(QueryPlan::Literal(planner::plan::LiteralPlan {
            columns: Vec::new(),
            explain: false,
            identity_columns: Vec::new(),
        })));
        c.put("q".into(), 1, plan.clone());
        assert!(c.get("q", 1).is_some());
        assert!(c.get("q", 2).is_none());
        assert!(c.get("other", 1).is_none());
        for i in 0..CAPACITY + 10 {
            c.put(format!("q{i}"), 1, plan.clone());
        }
        assert!(c.len() <= CAPACITY);
    }

    #[test]
    fn a_plan_over_a_servers_budget_is_asked_to_run_on_the_pool() {
        let c = PlanCache::default();
        let plan = Planned::new(Arc::new(QueryPlan::Literal(planner::plan::LiteralPlan {
            columns: Vec::new(),
            explain: false,
            identity_columns: Vec::new(),
        })));
        c.put("q".into(), 1, plan.clone());
        let answer = |over_budget| ServerResult {
            data: engine::server::result::IntermediateData::Aggregates(Vec::new()),
            stats: Default::default(),
            num_groups_limit_reached: false,
            exceptions: Vec::new(),
            trace: None,
            over_budget,
        };
        // Runs until the next inline attempt, each answered as `over` says.
        let pooled_runs = |over: bool| {
            let mut pooled = 0;
            loop {
                let ask = c.get("q", 1).unwrap().ask(false);
                if ask.inline {
                    plan.learn(ask, [&answer(false), &answer(over)]);
                    return pooled;
                }
                plan.learn(ask, [&answer(false)]);
                pooled += 1;
            }
        };
        assert_eq!(
            plan.ask(true),
            Ask {
                trace: true,
                inline: true
            }
        );
        plan.learn(plan.ask(false), [&answer(false)]);
        assert_eq!(pooled_runs(false), 0);
        // Past the budget: 16 runs on the pools, twice as many after each further miss, at
        // most 1,024; a fit starts over.
        plan.learn(plan.ask(false), [&answer(false), &answer(true)]);
        let misses: Vec<usize> = (0..8).map(|_| pooled_runs(true)).collect();
        assert_eq!(misses, [16, 32, 64, 128, 256, 512, 1024, 1024]);
        assert_eq!(pooled_runs(false), 1024);
        assert_eq!(pooled_runs(false), 0);
        // A run on the pools teaches nothing, even from an answer that says over budget.
        plan.learn(
            Ask {
                trace: false,
                inline: false,
            },
            [&answer(true)],
        );
        assert_eq!(pooled_runs(false), 0);
    }
}
