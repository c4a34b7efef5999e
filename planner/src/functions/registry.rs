//! The name index over all catalog areas: canonical names (Pinot's `FunctionRegistry`
//! canonicalisation) to [`FunctionDef`]s.

use super::def::FunctionDef;
use super::{
    arithmetic, arrays, bitwise, bytes, clp, comparison, conditional, datetime, datetime_convert,
    datetime_mv, dimension_lookup, geo, geohash, hash, internal, ip, json, map, regexp, sketch,
    strings, tuple_sketch, url, uuid, vector,
};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Every area's table, in catalog order.
const AREAS: &[&[FunctionDef]] = &[
    arithmetic::FUNCTIONS,
    comparison::FUNCTIONS,
    conditional::FUNCTIONS,
    strings::FUNCTIONS,
    regexp::FUNCTIONS,
    datetime::FUNCTIONS,
    datetime_convert::FUNCTIONS,
    datetime_mv::FUNCTIONS,
    json::FUNCTIONS,
    map::FUNCTIONS,
    arrays::FUNCTIONS,
    bytes::FUNCTIONS,
    hash::FUNCTIONS,
    uuid::FUNCTIONS,
    url::FUNCTIONS,
    ip::FUNCTIONS,
    bitwise::FUNCTIONS,
    vector::FUNCTIONS,
    geo::FUNCTIONS,
    geohash::FUNCTIONS,
    sketch::FUNCTIONS,
    tuple_sketch::FUNCTIONS,
    clp::FUNCTIONS,
    dimension_lookup::FUNCTIONS,
    internal::FUNCTIONS,
];

/// Pinot's canonical function name: `_` removed, lower-cased (`DATE_TRUNC` → `datetrunc`).
pub fn canonical_name(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Every function of the catalog.
pub fn all() -> impl Iterator<Item = &'static FunctionDef> {
    AREAS.iter().flat_map(|area| area.iter())
}

/// The function a name (any spelling of its name or an alias) refers to.
pub fn lookup(name: &str) -> Option<&'static FunctionDef> {
    // Bound calls carry the canonical name already: found without respelling it (per row).
    let index = index();
    index
        .get(name)
        .or_else(|| index.get(&canonical_name(name)))
        .copied()
}

/// Whether a function always gives the same result for the same arguments (`now` and `ago`
/// do not); the binder folds constant calls only for deterministic functions.
pub fn is_deterministic(def: &FunctionDef) -> bool {
    def.is_deterministic()
}

fn index() -> &'static HashMap<String, &'static FunctionDef> {
    static INDEX: OnceLock<HashMap<String, &'static FunctionDef>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = HashMap::new();
        for def in all() {
            for name in std::iter::once(def.name()).chain(def.aliases().iter().copied()) {
                index.entry(canonical_name(name)).or_insert(def);
            }
        }
        index
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonicalisation_matches_pinot() {
        assert_eq!(canonical_name("DATE_TRUNC"), "datetrunc");
        assert_eq!(canonical_name("dateTrunc"), "datetrunc");
        assert_eq!(canonical_name("json_extract_scalar"), "jsonextractscalar");
    }

    #[test]
    fn every_name_is_claimed_once() {
        let mut seen: HashMap<String, &str> = HashMap::new();
        for def in all() {
            for name in std::iter::once(def.name()).chain(def.aliases().iter().copied()) {
                if let Some(other) = seen.insert(canonical_name(name), def.name()) {
                    assert_eq!(
                        other,
                        def.name(),
                        "'{name}' is claimed by '{other}' and '{}'",
                        def.name()
                    );
                }
            }
        }
    }

    #[test]
    fn lookup_finds_names_and_aliases() {
        for (alias, name) in [
            ("ADD", "plus"),
            ("sub", "minus"),
            ("MULT", "times"),
            ("div", "divide"),
            ("log", "ln"),
            ("pow", "power"),
            ("date_trunc", "dateTrunc"),
            ("dow", "dayOfWeek"),
            ("doy", "dayOfYear"),
            ("month_of_year", "month"),
            ("week_of_year", "week"),
            ("day_of_month", "day"),
            ("date_add", "timestampAdd"),
            ("DATEDIFF", "timestampDiff"),
            ("starts_with", "startsWith"),
            ("regexp_replace", "regexpReplace"),
            ("cardinality", "arrayLength"),
        ] {
            assert_eq!(lookup(alias).map(FunctionDef::name), Some(name), "{alias}");
        }
        assert!(lookup("noSuchFunction").is_none());
    }

    #[test]
    fn only_clock_random_dimension_and_identity_functions_are_nondeterministic() {
        let nondeterministic: Vec<String> = all()
            .filter(|d| !is_deterministic(d))
            .map(|d| canonical_name(d.name()))
            .collect();
        // `lookUp` reads the dimension rows of the process it runs in: never folded where bound;
        // the internal functions read the running query's identity.
        let allowed = [
            "now",
            "ago",
            "agomv",
            "rand",
            "uuidv4",
            "uuidv7",
            "sleep",
            "lookup",
            "reqid",
            "cid",
            "brokerid",
            "starttime",
            "endtime",
            "queryengine",
            "stageid",
            "workerid",
        ];
        for name in &nondeterministic {
            assert!(
                allowed.contains(&name.as_str()),
                "{name} is nondeterministic"
            );
        }
        for name in ["now", "ago", "rand"] {
            assert!(nondeterministic.iter().any(|n| n == name), "{name} folds");
        }
    }
}
