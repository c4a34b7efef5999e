//! [`TextIndexConfig`]: the options of a column's text index that change answers — the
//! analyzer's stop words and case, and the default operator — read from
//! `fieldConfigList[].indexes.text` or the legacy `indexTypes: ["TEXT"]` with `properties`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Pinot's default stop words: Lucene's English set plus `than` and `those`.
pub const DEFAULT_STOP_WORDS: [&str; 35] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "than", "there",
    "these", "they", "this", "to", "was", "will", "with", "those",
];

/// One column's text index options (Pinot's `TextIndexConfig`; the Lucene storage options are
/// accepted and have no meaning here).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TextIndexConfig {
    /// Stop words added to the default set.
    pub stop_words_include: BTreeSet<String>,
    /// Stop words taken out of the default set.
    pub stop_words_exclude: BTreeSet<String>,
    /// Terms keep their case (and stop words match case).
    pub case_sensitive: bool,
    /// A query's clauses and a term's tokens are ANDed instead of ORed.
    pub use_and_for_multi_term_queries: bool,
    /// A query of terms, prefixes and wildcards only (at least one of the latter two) matches
    /// them as adjacent words in order, and may start with a wildcard (`*ealtime stream*`).
    pub enable_prefix_suffix_matching_in_phrase_queries: bool,
}

impl TextIndexConfig {
    /// Reads `indexes.text` (JSON form) — `stopWordsInclude`/`stopWordsExclude` lists,
    /// `caseSensitive`, `useANDForMultiTermQueries`, `enablePrefixSuffixMatchingInPhraseQueries`
    /// (booleans or their text).
    pub fn from_json(json: &serde_json::Value) -> Result<TextIndexConfig, String> {
        let mut c = TextIndexConfig::default();
        let Some(map) = json.as_object() else {
            return Ok(c);
        };
        let flag = |key: &str| -> Result<bool, String> {
            match map.get(key) {
                None | Some(serde_json::Value::Null) => Ok(false),
                Some(serde_json::Value::Bool(b)) => Ok(*b),
                Some(serde_json::Value::String(s)) => Ok(s.eq_ignore_ascii_case("true")),
                Some(other) => Err(format!(
                    "text index option '{key}' must be a boolean, found {other}"
                )),
            }
        };
        let words = |key: &str| -> Result<BTreeSet<String>, String> {
            match map.get(key) {
                None | Some(serde_json::Value::Null) => Ok(BTreeSet::new()),
                Some(serde_json::Value::Array(items)) => items
                    .iter()
                    .map(|i| {
                        i.as_str()
                            .map(|s| s.trim().to_string())
                            .ok_or_else(|| format!("text index option '{key}' must list strings"))
                    })
                    .collect(),
                Some(serde_json::Value::String(s)) => Ok(split_words(s)),
                Some(other) => Err(format!(
                    "text index option '{key}' must list strings, found {other}"
                )),
            }
        };
        c.stop_words_include = words("stopWordsInclude")?;
        c.stop_words_exclude = words("stopWordsExclude")?;
        c.case_sensitive = flag("caseSensitive")?;
        c.use_and_for_multi_term_queries = flag("useANDForMultiTermQueries")?;
        c.enable_prefix_suffix_matching_in_phrase_queries =
            flag("enablePrefixSuffixMatchingInPhraseQueries")?;
        Ok(c)
    }

    /// Reads the legacy `fieldConfigList[].properties` keys (`stopWordInclude`,
    /// `stopWordExclude` as comma-separated text, `useANDForMultiTermTextIndexQueries`,
    /// `enablePrefixSuffixMatchingInPhraseQueries`).
    pub fn from_properties(props: &serde_json::Value) -> TextIndexConfig {
        let text = |key: &str| {
            props
                .get(key)
                .and_then(serde_json::Value::as_str)
                .unwrap_or("")
        };
        TextIndexConfig {
            stop_words_include: split_words(text("stopWordInclude")),
            stop_words_exclude: split_words(text("stopWordExclude")),
            case_sensitive: false,
            use_and_for_multi_term_queries: text("useANDForMultiTermTextIndexQueries")
                .eq_ignore_ascii_case("true"),
            enable_prefix_suffix_matching_in_phrase_queries: text(
                "enablePrefixSuffixMatchingInPhraseQueries",
            )
            .eq_ignore_ascii_case("true"),
        }
    }

    /// The stop words in force.
    pub fn stop_words(&self) -> BTreeSet<String> {
        DEFAULT_STOP_WORDS
            .iter()
            .map(|w| w.to_string())
            .chain(self.stop_words_include.iter().cloned())
            .filter(|w| !self.stop_words_exclude.contains(w))
            .collect()
    }
}

fn split_words(s: &str) -> BTreeSet<String> {
    s.split(',')
        .map(|w| w.trim().to_string())
        .filter(|w| !w.is_empty())
        .collect()
}
