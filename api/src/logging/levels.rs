//! The logger tree: names, the registry of known loggers and the levels in force.
//!
//! # Names
//!
//! Loggers are named like module paths, segments joined by `::` (`tessera::broker::query`).
//! Operators may also write `.` as the separator (`tessera.broker.query`, as Pinot users are
//! used to); both spellings are normalised to the `::` form by [`canonical_name`], which is the
//! form every API returns.
//!
//! Rust's `log` targets are module paths of the *crate* that logged (`tessera_api::broker::query`).
//! They are presented under the product's logger tree: a first segment `tessera_api` becomes
//! `tessera` (the api crate's modules are the roles: `tessera::broker`, `tessera::controller`,
//! `tessera::server`, `tessera::common`), any other `tessera_<crate>` becomes
//! `tessera::<crate>` (`tessera_engine::scan` → `tessera::engine::scan`), the binary crate
//! `tessera` stays `tessera`, and third-party targets keep their own path (`tide::log::middleware`).
//! The same mapping is applied to names given by operators, so `tessera_api::broker` and
//! `tessera::broker` are the same logger.
//!
//! # Levels
//!
//! `root` always has a level (the default). Any other logger may have its own level; a logger
//! without one inherits from its nearest ancestor that has one (longest prefix on `::`
//! boundaries), and finally from `root`.
//!
//! # Known loggers
//!
//! The registry of known names is `root`, `tessera`, every name that was given a level and every
//! name that was seen logging. Only known names can be read; a level may be set on a known name
//! or on any ancestor or descendant of a known name other than `root` (as Pinot does), which then
//! becomes known.

use log::LevelFilter;
use std::collections::{BTreeMap, BTreeSet};

/// Name of the root logger.
pub const ROOT: &str = "root";

/// The product's top logger, known from the start (Pinot's `org.apache.pinot`).
pub const PRODUCT: &str = "tessera";

/// Normalises a logger name or Rust target: splits on `::` and `.`, maps crate names to the
/// product tree (see the module docs) and joins with `::`. `root` (exactly) stays `root`.
/// `None` for names with empty segments (`""`, `a..b`, `::a`, `a::`), a stray `:`, a `/` or
/// whitespace.
pub fn canonical_name(name: &str) -> Option<String> {
    if name == ROOT {
        return Some(ROOT.to_string());
    }
    if name.is_empty() || name.chars().any(char::is_whitespace) {
        return None;
    }
    let mut segments: Vec<&str> = Vec::new();
    for part in name.split("::") {
        for segment in part.split('.') {
            if segment.is_empty() || segment.contains([':', '/']) {
                return None;
            }
            segments.push(segment);
        }
    }
    let mut out = String::with_capacity(name.len() + 8);
    match segments[0] {
        "tessera_api" | "tessera" => out.push_str(PRODUCT),
        first => match first.strip_prefix("tessera_") {
            Some(krate) => {
                out.push_str(PRODUCT);
                out.push_str("::");
                out.push_str(krate);
            }
            None => out.push_str(first),
        },
    }
    for segment in &segments[1..] {
        out.push_str("::");
        out.push_str(segment);
    }
    Some(out)
}

/// Parses a level the way Pinot (log4j's `Level.valueOf`) does: trimmed, case-insensitive,
/// `OFF ERROR WARN INFO DEBUG TRACE`, plus log4j's `FATAL` (→ ERROR) and `ALL` (→ TRACE).
pub fn parse_level(text: &str) -> Option<LevelFilter> {
    let level = match text.trim().to_ascii_uppercase().as_str() {
        "OFF" => LevelFilter::Off,
        "FATAL" | "ERROR" => LevelFilter::Error,
        "WARN" => LevelFilter::Warn,
        "INFO" => LevelFilter::Info,
        "DEBUG" => LevelFilter::Debug,
        "TRACE" | "ALL" => LevelFilter::Trace,
        _ => return None,
    };
    Some(level)
}

/// True if `a` equals `b` or one is a `::`-boundary prefix of the other.
fn related(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long.strip_prefix(short)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
}

/// The levels in force and the known logger names. All names are canonical.
#[derive(Clone, Debug)]
pub struct LevelTable {
    root: LevelFilter,
    own: BTreeMap<String, LevelFilter>,
    known: BTreeSet<String>,
}

impl LevelTable {
    /// A table where everything logs at `root` and only `root` and `tessera` are known.
    pub fn new(root: LevelFilter) -> LevelTable {
        LevelTable {
            root,
            own: BTreeMap::new(),
            known: BTreeSet::from([PRODUCT.to_string()]),
        }
    }

    /// The level that applies to `name`: its own, else its nearest ancestor's, else root's.
    pub fn effective(&self, name: &str) -> LevelFilter {
        if name == ROOT {
            return self.root;
        }
        let mut prefix = name;
        loop {
            if let Some(level) = self.own.get(prefix) {
                return *level;
            }
            match prefix.rfind("::") {
                Some(cut) => prefix = &prefix[..cut],
                None => return self.root,
            }
        }
    }

    /// The most verbose level any logger can log at (what `log::set_max_level` should be).
    pub fn max_level(&self) -> LevelFilter {
        self.own.values().copied().fold(self.root, Ord::max)
    }

    /// True if `name` is `root` or in the registry.
    pub fn is_known(&self, name: &str) -> bool {
        name == ROOT || self.known.contains(name)
    }

    /// Adds a name seen logging; returns whether it was new.
    pub fn note_seen(&mut self, name: &str) -> bool {
        if self.is_known(name) {
            return false;
        }
        self.known.insert(name.to_string())
    }

    /// Known names: `root` first, then the rest in order.
    pub fn names(&self) -> Vec<String> {
        std::iter::once(ROOT.to_string())
            .chain(self.known.iter().cloned())
            .collect()
    }

    /// Gives `name` its own level (or sets root's). Accepted when `name` is known or is an
    /// ancestor/descendant of a known name other than root; the name then becomes known.
    /// Returns false (and changes nothing) otherwise.
    pub fn set(&mut self, name: &str, level: LevelFilter) -> bool {
        if name == ROOT {
            self.root = level;
            return true;
        }
        if !self.known.iter().any(|known| related(known, name)) {
            return false;
        }
        self.known.insert(name.to_string());
        self.own.insert(name.to_string(), level);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rust_targets_map_to_the_product_tree() {
        let cases = [
            ("tessera_api::broker::query", "tessera::broker::query"),
            ("tessera_engine::scan", "tessera::engine::scan"),
            ("tessera_segments", "tessera::segments"),
            ("tessera", "tessera"),
            ("tessera.broker.query", "tessera::broker::query"),
            ("tide::log::middleware", "tide::log::middleware"),
            ("org.apache.pinot", "org::apache::pinot"),
            ("root", "root"),
        ];
        for (input, expected) in cases {
            assert_eq!(canonical_name(input).as_deref(), Some(expected), "{input}");
        }
        for bad in ["", "a..b", "::a", "a::", "a b", "a:::b", "a:b", "a/b"] {
            assert_eq!(canonical_name(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn levels_parse_like_log4j() {
        assert_eq!(parse_level(" debug "), Some(LevelFilter::Debug));
        assert_eq!(parse_level("Fatal"), Some(LevelFilter::Error));
        assert_eq!(parse_level("ALL"), Some(LevelFilter::Trace));
        assert_eq!(parse_level("off"), Some(LevelFilter::Off));
        assert_eq!(parse_level("verbose"), None);
        assert_eq!(parse_level(""), None);
    }

    #[test]
    fn longest_prefix_wins_and_max_follows() {
        let mut table = LevelTable::new(LevelFilter::Info);
        assert!(table.set("tessera::broker", LevelFilter::Debug));
        assert!(table.set("tessera::broker::routing", LevelFilter::Warn));
        assert_eq!(
            table.effective("tessera::broker::query"),
            LevelFilter::Debug
        );
        assert_eq!(
            table.effective("tessera::broker::routing::x"),
            LevelFilter::Warn
        );
        assert_eq!(table.effective("tessera::brokerage"), LevelFilter::Info);
        assert_eq!(table.effective("tessera::server"), LevelFilter::Info);
        assert_eq!(table.max_level(), LevelFilter::Debug);
        assert!(table.set("tessera::broker", LevelFilter::Info));
        assert_eq!(table.max_level(), LevelFilter::Info);
        assert!(table.set(ROOT, LevelFilter::Trace));
        assert_eq!(table.max_level(), LevelFilter::Trace);
        assert_eq!(table.effective("anything"), LevelFilter::Trace);
    }

    #[test]
    fn only_relatives_of_known_loggers_can_be_set() {
        let mut table = LevelTable::new(LevelFilter::Info);
        assert!(!table.set("foo::bar", LevelFilter::Debug));
        assert!(!table.is_known("foo::bar"));
        assert!(table.note_seen("foo::bar::baz"));
        assert!(
            table.set("foo", LevelFilter::Debug),
            "ancestor of a seen logger"
        );
        assert!(
            table.set("foo::bar::baz::qux", LevelFilter::Debug),
            "descendant"
        );
        assert!(!table.set("foox", LevelFilter::Debug), "not on a boundary");
        assert_eq!(
            table.names(),
            [
                "root",
                "foo",
                "foo::bar::baz",
                "foo::bar::baz::qux",
                "tessera"
            ]
        );
    }

    proptest! {
        /// Canonical names are fixed points, and the effective level of a name never depends on
        /// loggers that are not its ancestors.
        #[test]
        fn canonical_is_idempotent(segments in proptest::collection::vec("[a-z_]{1,6}", 1..5)) {
            let name = segments.join(".");
            let once = canonical_name(&name).expect("valid name");
            prop_assume!(once != ROOT);
            prop_assert_eq!(canonical_name(&once), Some(once.clone()));
            let mut table = LevelTable::new(LevelFilter::Warn);
            table.note_seen(&once);
            let child = format!("{once}::child");
            prop_assert!(table.set(&child, LevelFilter::Trace));
            prop_assert_eq!(table.effective(&once), LevelFilter::Warn);
        }
    }
}
