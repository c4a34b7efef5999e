//! `TEXT_MATCH` evaluated: the planned [`TextQuery`] analyzed with the column's analyzer
//! ([`segments::index::text::Analyzer`]) into a [`CompiledText`], then answered from the text
//! index's posting lists — phrases confirmed on the candidate documents' own text — or, for a
//! column without a text index, tested on each value's tokens.
//!
//! Clauses are required, optional or prohibited as Lucene's classic `QueryParser` decides
//! (default operator OR, or AND with `useANDForMultiTermQueries` / `defaultOperator=AND`); a
//! clause whose text is all stop words is dropped; a query of prohibited clauses only matches
//! nothing. Prefix, wildcard, regular-expression, fuzzy and range clauses test whole terms.

use crate::error::EngineError;
use planner::plan::error::PlanError;
use planner::plan::text_match::{Clause, Conj, Modifier, TextMatch, TextQuery, invalid};
use regex::{Regex, RegexBuilder};
use roaring::RoaringBitmap;
use segments::index::TextIndexReader;
use segments::index::text::analyzer::Token;
use segments::index::text::{Analyzer, TextIndexConfig};

/// The values of candidate documents (to confirm phrases on), by document.
pub type DocTexts<'a> =
    dyn FnMut(&RoaringBitmap) -> Result<Vec<(u32, Vec<String>)>, EngineError> + 'a;

/// A query ready to run against one column.
#[derive(Debug)]
pub struct CompiledText {
    root: Option<Node>,
    analyzer: Analyzer,
}

#[derive(Debug)]
enum Node {
    Boolean {
        must: Vec<Node>,
        should: Vec<Node>,
        must_not: Vec<Node>,
    },
    Term(String),
    /// Any term passing the test.
    Terms(TermTest),
    /// Parts (terms, or any term passing a test) at consecutive positions, in order: a query
    /// of terms and prefixes or wildcards under `enablePrefixSuffixMatchingInPhraseQueries`.
    Span(Vec<Node>),
    /// Terms at relative positions, within `slop` moves.
    Phrase {
        terms: Vec<(String, u32)>,
        slop: u32,
    },
    Everything,
    Nothing,
}

#[derive(Debug)]
enum TermTest {
    Prefix(String),
    /// A regular expression over whole terms.
    Pattern(Regex),
    /// A wildcard, as a regular expression over whole terms.
    Wildcard(Regex),
    Fuzzy {
        chars: Vec<char>,
        max_edits: u32,
    },
    Range {
        lower: Option<String>,
        upper: Option<String>,
        include_lower: bool,
        include_upper: bool,
    },
}

impl TermTest {
    fn passes(&self, term: &str) -> bool {
        match self {
            TermTest::Prefix(p) => term.starts_with(p.as_str()),
            TermTest::Pattern(re) | TermTest::Wildcard(re) => re.is_match(term),
            TermTest::Fuzzy { chars, max_edits } => {
                let t: Vec<char> = term.chars().collect();
                edit_distance(chars, &t, *max_edits) <= *max_edits
            }
            TermTest::Range {
                lower,
                upper,
                include_lower,
                include_upper,
            } => {
                let above = lower.as_ref().is_none_or(|l| {
                    let o = term.as_bytes().cmp(l.as_bytes());
                    o.is_gt() || (*include_lower && o.is_eq())
                });
                let below = upper.as_ref().is_none_or(|u| {
                    let o = term.as_bytes().cmp(u.as_bytes());
                    o.is_lt() || (*include_upper && o.is_eq())
                });
                above && below
            }
        }
    }
}

/// Damerau-Levenshtein distance (adjacent transpositions count one edit, as Lucene's fuzzy
/// automata), stopping early past `max`.
fn edit_distance(a: &[char], b: &[char], max: u32) -> u32 {
    if a.len().abs_diff(b.len()) as u32 > max {
        return max + 1;
    }
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0u32; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i as u32;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j as u32;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = u32::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m]
}

fn pattern(re: &str) -> Result<Regex, EngineError> {
    RegexBuilder::new(&format!("^(?:{re})$"))
        .size_limit(1 << 22)
        .build()
        .map_err(|e| {
            EngineError::Plan(PlanError::Validation(format!(
                "invalid regular expression '{re}' in TEXT_MATCH: {}",
                e.to_string().lines().last().unwrap_or("invalid").trim()
            )))
        })
}

/// A wildcard (`*` any run, `?` one character) as a regular expression.
fn wildcard(w: &str) -> String {
    let mut out = String::new();
    for c in w.chars() {
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            c => out.push_str(&regex::escape(&c.to_string())),
        }
    }
    out
}

impl CompiledText {
    /// `m` for a column whose index (if any) has `config`.
    pub fn new(m: &TextMatch, config: &TextIndexConfig) -> Result<CompiledText, EngineError> {
        let analyzer = Analyzer::new(config);
        // Options given replace the index's own operator and prefix/suffix matching (as Pinot).
        let (default_and, spans, allow_leading) = match &m.options {
            Some(o) => (
                o.default_and.unwrap_or(false),
                false,
                o.allow_leading_wildcard,
            ),
            None => {
                let spans = config.enable_prefix_suffix_matching_in_phrase_queries;
                (config.use_and_for_multi_term_queries, spans, spans)
            }
        };
        let c = Compiler {
            analyzer: &analyzer,
            default_and,
            allow_leading,
            m,
        };
        let root = match (&m.query, spans) {
            (TextQuery::Boolean(clauses), true) => c.span(clauses)?,
            _ => None,
        };
        let root = match root {
            Some(span) => Some(span),
            None => c.compile(&m.query)?,
        };
        Ok(CompiledText { root, analyzer })
    }

    /// Whether a document with these values (a multi-value cell's follow one another) matches.
    pub fn matches_values<'a>(&self, values: impl IntoIterator<Item = &'a str>) -> bool {
        let mut tokens = Vec::new();
        let mut position = 0;
        for v in values {
            position = self.analyzer.tokens_into(v, position, &mut tokens);
        }
        self.root
            .as_ref()
            .is_some_and(|n| n.matches_tokens(&tokens))
    }

    /// The documents (of `total_docs`) matching, from `index`; `texts` gives the values of
    /// candidate documents, to confirm phrases on.
    pub fn docs(
        &self,
        index: &TextIndexReader,
        total_docs: u32,
        texts: &mut DocTexts<'_>,
    ) -> Result<RoaringBitmap, EngineError> {
        match &self.root {
            None => Ok(RoaringBitmap::new()),
            Some(n) => n.docs(self, index, total_docs, texts),
        }
    }
}

/// What compiling a query needs.
struct Compiler<'a> {
    analyzer: &'a Analyzer,
    default_and: bool,
    allow_leading: bool,
    m: &'a TextMatch,
}

#[derive(Clone, Copy, PartialEq)]
enum Occur {
    Must,
    Should,
    MustNot,
}

impl Compiler<'_> {
    /// Analyzes and resolves a query; `None` when nothing of it is left (stop words only).
    fn compile(&self, q: &TextQuery) -> Result<Option<Node>, EngineError> {
        let a = self.analyzer;
        Ok(match q {
            TextQuery::Term(text) => {
                let tokens = a.tokens(text);
                match tokens.len() {
                    0 => None,
                    1 => tokens.into_iter().next().map(|t| Node::Term(t.text)),
                    _ => {
                        let terms = tokens.into_iter().map(|t| Node::Term(t.text)).collect();
                        Some(if self.default_and {
                            Node::Boolean {
                                must: terms,
                                should: Vec::new(),
                                must_not: Vec::new(),
                            }
                        } else {
                            Node::Boolean {
                                must: Vec::new(),
                                should: terms,
                                must_not: Vec::new(),
                            }
                        })
                    }
                }
            }
            TextQuery::Phrase { text, slop } => {
                let tokens = a.tokens(text);
                match tokens.len() {
                    0 => None,
                    1 => tokens.into_iter().next().map(|t| Node::Term(t.text)),
                    _ => {
                        let first = tokens[0].position;
                        Some(Node::Phrase {
                            terms: tokens
                                .into_iter()
                                .map(|t| (t.text, t.position - first))
                                .collect(),
                            slop: *slop,
                        })
                    }
                }
            }
            TextQuery::Prefix(p) => Some(Node::Terms(TermTest::Prefix(a.normalize(p)))),
            TextQuery::Wildcard(w) => {
                if w.starts_with(['*', '?']) && !self.allow_leading {
                    return Err(EngineError::Plan(invalid(
                        &self.m.column,
                        &self.m.text,
                        "'*' or '?' not allowed as first character in WildcardQuery",
                    )));
                }
                Some(Node::Terms(TermTest::Wildcard(pattern(&wildcard(
                    &a.normalize(w),
                ))?)))
            }
            TextQuery::Regexp(re) => {
                Some(Node::Terms(TermTest::Pattern(pattern(&a.normalize(re))?)))
            }
            TextQuery::Fuzzy { term, max_edits } => {
                let t = a.normalize(term);
                Some(if *max_edits == 0 {
                    Node::Term(t)
                } else {
                    Node::Terms(TermTest::Fuzzy {
                        chars: t.chars().collect(),
                        max_edits: *max_edits,
                    })
                })
            }
            TextQuery::Range {
                lower,
                upper,
                include_lower,
                include_upper,
            } => Some(Node::Terms(TermTest::Range {
                lower: lower.as_deref().map(|l| a.normalize(l)),
                upper: upper.as_deref().map(|u| a.normalize(u)),
                include_lower: *include_lower,
                include_upper: *include_upper,
            })),
            TextQuery::Nothing => Some(Node::Nothing),
            TextQuery::Everything => Some(Node::Everything),
            TextQuery::Boolean(clauses) => self.boolean(clauses)?,
        })
    }

    /// Pinot's `enablePrefixSuffixMatchingInPhraseQueries` rewrite of a top-level query whose
    /// clauses are all single terms, prefixes or wildcards, at least one of the latter two: the
    /// clauses as adjacent words in order, whatever their `AND`/`OR`/`NOT`. `None`: the query
    /// is not of that shape.
    fn span(&self, clauses: &[Clause]) -> Result<Option<Node>, EngineError> {
        let mut parts = Vec::new();
        let mut multi_term = false;
        for c in clauses {
            match self.compile(&c.query)? {
                None => {}
                Some(n @ Node::Term(_)) => parts.push(n),
                Some(n @ Node::Terms(TermTest::Prefix(_) | TermTest::Wildcard(_))) => {
                    multi_term = true;
                    parts.push(n);
                }
                Some(_) => return Ok(None),
            }
        }
        Ok(multi_term.then_some(Node::Span(parts)))
    }

    /// Lucene's `QueryParserBase.addClause`, clause by clause: an `AND` makes the clause before
    /// it required (unless prohibited); under the AND operator an `OR` makes it optional; a
    /// dropped clause still has that effect on the one before.
    fn boolean(&self, clauses: &[Clause]) -> Result<Option<Node>, EngineError> {
        let default_and = self.default_and;
        let mut kept: Vec<(Occur, Node)> = Vec::new();
        for c in clauses {
            if let Some(last) = kept.last_mut()
                && last.0 != Occur::MustNot
            {
                if c.conj == Conj::And {
                    last.0 = Occur::Must;
                } else if default_and && c.conj == Conj::Or {
                    last.0 = Occur::Should;
                }
            }
            let Some(node) = self.compile(&c.query)? else {
                continue;
            };
            let prohibited = c.modifier == Modifier::Prohibited;
            let required = if default_and {
                !prohibited && c.conj != Conj::Or
            } else {
                c.modifier == Modifier::Required || (c.conj == Conj::And && !prohibited)
            };
            kept.push((
                if prohibited {
                    Occur::MustNot
                } else if required {
                    Occur::Must
                } else {
                    Occur::Should
                },
                node,
            ));
        }
        if kept.is_empty() {
            return Ok(None);
        }
        let (mut must, mut should, mut must_not) = (Vec::new(), Vec::new(), Vec::new());
        for (o, n) in kept {
            match o {
                Occur::Must => must.push(n),
                Occur::Should => should.push(n),
                Occur::MustNot => must_not.push(n),
            }
        }
        Ok(Some(Node::Boolean {
            must,
            should,
            must_not,
        }))
    }
}

/// Whether the tokens hold `parts` at consecutive positions, in order.
fn span_in(tokens: &[Token], parts: &[Node]) -> bool {
    let at = |position: u32, part: &Node| {
        tokens.iter().any(|t| {
            t.position == position
                && match part {
                    Node::Term(term) => &t.text == term,
                    Node::Terms(test) => test.passes(&t.text),
                    _ => false,
                }
        })
    };
    tokens.iter().any(|start| {
        parts
            .iter()
            .enumerate()
            .all(|(i, p)| at(start.position + i as u32, p))
    })
}

/// Whether the tokens hold `terms` at their relative positions, within `slop` moves: one
/// position per term whose offsets (position minus the term's place in the phrase) span at
/// most `slop` — 0 for an exact phrase, 2 for two words swapped.
fn phrase_in(tokens: &[Token], terms: &[(String, u32)], slop: u32) -> bool {
    let positions: Vec<Vec<i64>> = terms
        .iter()
        .map(|(t, _)| {
            tokens
                .iter()
                .filter(|k| &k.text == t)
                .map(|k| i64::from(k.position))
                .collect()
        })
        .collect();
    if positions.iter().any(Vec::is_empty) {
        return false;
    }
    let slop = i64::from(slop);
    // Try each place of the first term as the anchor of the offsets' window.
    for &p0 in &positions[0] {
        let anchor = p0 - i64::from(terms[0].1);
        for low in anchor - slop..=anchor {
            let high = low + slop;
            let mut used: Vec<i64> = Vec::with_capacity(terms.len());
            let fits = terms.iter().zip(&positions).all(|((_, rel), ps)| {
                let found = ps.iter().find(|&&p| {
                    let offset = p - i64::from(*rel);
                    offset >= low && offset <= high && !used.contains(&p)
                });
                match found {
                    Some(&p) => {
                        used.push(p);
                        true
                    }
                    None => false,
                }
            });
            if fits {
                return true;
            }
        }
    }
    false
}

impl Node {
    fn matches_tokens(&self, tokens: &[Token]) -> bool {
        match self {
            Node::Term(t) => tokens.iter().any(|k| &k.text == t),
            Node::Terms(test) => tokens.iter().any(|k| test.passes(&k.text)),
            Node::Phrase { terms, slop } => phrase_in(tokens, terms, *slop),
            Node::Span(parts) => span_in(tokens, parts),
            Node::Everything => true,
            Node::Nothing => false,
            Node::Boolean {
                must,
                should,
                must_not,
            } => {
                if must_not.iter().any(|n| n.matches_tokens(tokens)) {
                    return false;
                }
                if !must.is_empty() {
                    must.iter().all(|n| n.matches_tokens(tokens))
                } else {
                    should.iter().any(|n| n.matches_tokens(tokens))
                }
            }
        }
    }

    fn docs(
        &self,
        c: &CompiledText,
        index: &TextIndexReader,
        total_docs: u32,
        texts: &mut DocTexts<'_>,
    ) -> Result<RoaringBitmap, EngineError> {
        Ok(match self {
            Node::Term(t) => index.docs(t).map(|b| (*b).clone()).unwrap_or_default(),
            Node::Terms(test) => {
                let ids = match test {
                    TermTest::Prefix(p) => index.ids_with_prefix(p),
                    _ => 0..index.len(),
                };
                let mut out = RoaringBitmap::new();
                for id in ids {
                    if test.passes(&index.term(id)) {
                        out |= &*index.posting(id);
                    }
                }
                out
            }
            Node::Phrase { terms, slop } => {
                let candidates =
                    all_of(terms.iter().map(|(t, _)| {
                        Ok(index.docs(t).map(|b| (*b).clone()).unwrap_or_default())
                    }))?;
                confirmed(c, &candidates, texts, |tokens| {
                    phrase_in(tokens, terms, *slop)
                })?
            }
            Node::Span(parts) => {
                let candidates = all_of(parts.iter().map(|p| p.docs(c, index, total_docs, texts)))?;
                confirmed(c, &candidates, texts, |tokens| span_in(tokens, parts))?
            }
            Node::Everything => {
                let mut all = RoaringBitmap::new();
                all.insert_range(0..total_docs);
                all
            }
            Node::Nothing => RoaringBitmap::new(),
            Node::Boolean {
                must,
                should,
                must_not,
            } => {
                let mut out = if !must.is_empty() {
                    all_of(must.iter().map(|n| n.docs(c, index, total_docs, texts)))?
                } else {
                    let mut any = RoaringBitmap::new();
                    for n in should {
                        any |= n.docs(c, index, total_docs, texts)?;
                    }
                    any
                };
                for n in must_not {
                    if out.is_empty() {
                        break;
                    }
                    out -= n.docs(c, index, total_docs, texts)?;
                }
                out
            }
        })
    }
}

/// The documents in every one of `sets`, stopping at the first empty intersection.
fn all_of(
    sets: impl Iterator<Item = Result<RoaringBitmap, EngineError>>,
) -> Result<RoaringBitmap, EngineError> {
    let mut acc: Option<RoaringBitmap> = None;
    for set in sets {
        let next = match acc {
            None => set?,
            Some(a) => a & set?,
        };
        if next.is_empty() {
            return Ok(next);
        }
        acc = Some(next);
    }
    Ok(acc.unwrap_or_default())
}

/// The `candidates` whose own text, analyzed again, passes `test` (phrases and spans: the index
/// keeps no positions).
fn confirmed(
    c: &CompiledText,
    candidates: &RoaringBitmap,
    texts: &mut DocTexts<'_>,
    test: impl Fn(&[Token]) -> bool,
) -> Result<RoaringBitmap, EngineError> {
    let mut out = RoaringBitmap::new();
    if candidates.is_empty() {
        return Ok(out);
    }
    for (doc, values) in texts(candidates)? {
        let mut tokens = Vec::new();
        let mut position = 0;
        for v in &values {
            position = c.analyzer.tokens_into(v, position, &mut tokens);
        }
        if test(&tokens) {
            out.insert(doc);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(query: &str, text: &str) -> bool {
        let m = TextMatch::parse("c", query, None).unwrap();
        CompiledText::new(&m, &TextIndexConfig::default())
            .unwrap()
            .matches_values([text])
    }

    #[test]
    fn lucene_semantics_on_one_document() {
        let doc = "Distributed systems, Java, C++, Go, Machine learning, spark";
        assert!(matches("java", doc));
        assert!(matches("python java", doc));
        assert!(!matches("python AND java", doc));
        assert!(matches("\"machine learning\"", doc));
        assert!(!matches("\"learning machine\"", doc));
        assert!(matches("\"learning machine\"~2", doc));
        assert!(!matches("\"learning machine\"~1", doc));
        assert!(matches("mach*", doc));
        assert!(matches("/sp.rk/", doc));
        assert!(matches("sprak~", doc));
        assert!(!matches("sprak~0", doc));
        assert!(!matches("NOT python", doc));
        assert!(matches("java -python", doc));
        assert!(!matches("java -spark", doc));
        assert!(matches("python OR java AND spark", "java spark"));
        assert!(!matches("java OR python AND spark", "java"));
        assert!(!matches("a and or in the are", doc));
        assert!(matches("\"learned a lot\"", "Foo learned a lot of things"));
        assert!(!matches("\"learned lot\"", "Foo learned a lot of things"));
        assert!(matches("\"learned lot\"~1", "Foo learned a lot of things"));
        assert!(matches("[g TO j]", doc));
        assert!(matches("*:*", "x"));
        assert!(!matches("other:java", doc));
    }

    #[test]
    fn edits() {
        let d = |a: &str, b: &str| {
            edit_distance(
                &a.chars().collect::<Vec<_>>(),
                &b.chars().collect::<Vec<_>>(),
                5,
            )
        };
        assert_eq!(d("javva", "java"), 1);
        assert_eq!(d("sprak", "spark"), 1);
        assert_eq!(d("kitten", "sitting"), 3);
    }
}
