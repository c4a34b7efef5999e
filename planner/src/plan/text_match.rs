//! `TEXT_MATCH(column, 'query')`: the query read once, at planning, into a typed [`TextQuery`] —
//! Lucene's classic query syntax, as Pinot's text index parses it.
//!
//! Clauses are separated by whitespace and joined by the default operator `OR` unless `AND`
//! (`&&`), `OR` (`||`), `+` (required), `-`, `!` or `NOT` (prohibited) say otherwise, with
//! Lucene's own rules for mixing them (`a AND b OR c` requires `a` and `b`). A clause is a term
//! (`java`; text the analyzer splits, like `a-b`, is its tokens ORed), a phrase (`"big data"`,
//! `"big data"~2`), a prefix (`jav*`), a wildcard (`j?va*`), a regular expression (`/ja.a/`), a
//! fuzzy term (`jave~`, `jave~1`), a range (`[a TO m]`, `{a TO m}`), a group (`(a OR b)`), any of
//! them after `field:` (the column's own name; another field matches nothing) and a `^boost`
//! (ignored: no scores). Terms stay as written here; the engine analyzes them as the column's
//! documents were (`segments::index::text`).

use super::error::PlanError;
use serde::{Deserialize, Serialize};

/// A `TEXT_MATCH` query: the text as written and what it means.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextMatch {
    /// The column, for error messages.
    pub column: String,
    pub text: String,
    pub query: TextQuery,
    /// The third argument as written, if given.
    pub options_text: Option<String>,
    pub options: Option<TextMatchOptions>,
}

/// What joins a clause to the one before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Conj {
    None,
    And,
    Or,
}

/// A clause's `+` (required) or `-`/`!`/`NOT` (prohibited).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Modifier {
    None,
    Required,
    Prohibited,
}

/// One clause of a [`TextQuery::Boolean`], as written: whether it is required, optional or
/// prohibited depends on the default operator too, and on which clauses the analyzer keeps
/// (a clause of stop words is dropped), so it is decided where the query runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clause {
    pub conj: Conj,
    pub modifier: Modifier,
    pub query: TextQuery,
}

/// TEXT_MATCH's third argument (`'parser=CLASSIC,defaultOperator=AND,allowLeadingWildcard=true'`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TextMatchOptions {
    /// `defaultOperator=AND` (`None`: the index's `useANDForMultiTermQueries`).
    pub default_and: Option<bool>,
    pub allow_leading_wildcard: bool,
}

/// A parsed query over one text column.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TextQuery {
    /// Clauses combined as Lucene's `BooleanQuery`: every required one and no prohibited one;
    /// without required ones, at least one optional one; only prohibited ones match nothing.
    Boolean(Vec<Clause>),
    /// Text the analyzer turns into tokens: one token is a term, several are ORed.
    Term(String),
    /// Tokens at consecutive positions, or within `slop` moves of them.
    Phrase { text: String, slop: u32 },
    /// Terms starting with this (lowercased at execution).
    Prefix(String),
    /// `*` any run, `?` one character, over whole terms. One starting with `*` or `?` needs
    /// `allowLeadingWildcard` (or an index with `enablePrefixSuffixMatchingInPhraseQueries`).
    Wildcard(String),
    /// A regular expression over whole terms.
    Regexp(String),
    /// Terms within `max_edits` (Damerau-)Levenshtein edits.
    Fuzzy { term: String, max_edits: u32 },
    /// Terms in a range (byte order); `None` is open (`*`).
    Range {
        lower: Option<String>,
        upper: Option<String>,
        include_lower: bool,
        include_upper: bool,
    },
    /// A clause on another field.
    Nothing,
    /// `*:*`.
    Everything,
}

impl TextMatch {
    /// Reads `query` (and the options, if given) for `TEXT_MATCH` over `column`.
    pub fn parse(column: &str, text: &str, options: Option<&str>) -> Result<TextMatch, PlanError> {
        let parsed_options = options.map(parse_options).transpose()?.flatten();
        let tokens = lex(text).map_err(|e| invalid(column, text, &e))?;
        let mut p = Parser {
            tokens,
            at: 0,
            column,
        };
        let query = p.query().map_err(|e| invalid(column, text, &e))?;
        if p.at < p.tokens.len() {
            return Err(invalid(
                column,
                text,
                &format!("unexpected {:?}", p.tokens[p.at]),
            ));
        }
        Ok(TextMatch {
            column: column.to_string(),
            text: text.to_string(),
            query,
            options_text: options.map(str::to_string),
            options: parsed_options,
        })
    }
}

/// `k=v` pairs split on `,` (a pair without both sides is ignored, as in Pinot); `None` when no
/// pair remains. `parser` may be `CLASSIC` or `STANDARD` (the same syntax here; an unknown name
/// is CLASSIC, as in Pinot); Pinot's `MATCH`, `MATCHPHRASE` and `COMPLEX` parsers are refused.
fn parse_options(text: &str) -> Result<Option<TextMatchOptions>, PlanError> {
    let mut out = TextMatchOptions::default();
    let mut any = false;
    for pair in text.split(',') {
        let parts: Vec<&str> = pair.trim().split('=').collect();
        let [key, value] = parts[..] else { continue };
        let (key, value) = (key.trim(), value.trim());
        if key.is_empty() || value.is_empty() {
            continue;
        }
        any = true;
        match key.to_ascii_lowercase().as_str() {
            "parser" => {
                let parser = value.to_ascii_uppercase();
                if matches!(parser.as_str(), "MATCH" | "MATCHPHRASE" | "COMPLEX") {
                    return Err(PlanError::Validation(format!(
                        "TEXT_MATCH parser={parser} is not supported; use CLASSIC or STANDARD"
                    )));
                }
            }
            "defaultoperator" => out.default_and = Some(value == "AND"),
            "allowleadingwildcard" => out.allow_leading_wildcard = value == "true",
            _ => {}
        }
    }
    Ok(any.then_some(out))
}

/// Pinot's error for a query its parser refuses.
pub fn invalid(column: &str, text: &str, reason: &str) -> PlanError {
    PlanError::Validation(format!(
        "Caught exception while searching the text index for column:{column} search query:{text}: Cannot parse '{text}': {reason}"
    ))
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// A term as written (escapes resolved) and whether it holds an unescaped `*` or `?`.
    Word {
        text: String,
        wild: bool,
    },
    Quoted(String),
    Regex(String),
    And,
    Or,
    Not,
    Plus,
    Minus,
    Open,
    Close,
    Colon,
    /// `~` and the number after it, if any.
    Tilde(Option<f64>),
    Caret(f64),
    RangeOpen {
        inclusive: bool,
    },
    RangeClose {
        inclusive: bool,
    },
    To,
}

fn is_special(c: char) -> bool {
    matches!(
        c,
        '+' | '-' | '!' | '(' | ')' | ':' | '^' | '[' | ']' | '"' | '{' | '}' | '~' | '\\' | '/'
    ) || c.is_whitespace()
}

fn lex(text: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let number = |i: &mut usize| -> Option<f64> {
        let start = *i;
        while *i < chars.len() && (chars[*i].is_ascii_digit() || chars[*i] == '.') {
            *i += 1;
        }
        chars[start..*i].iter().collect::<String>().parse().ok()
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            '(' | ')' | ':' | '+' | '-' | '!' | '[' | ']' | '{' | '}' => {
                i += 1;
                out.push(match c {
                    '(' => Tok::Open,
                    ')' => Tok::Close,
                    ':' => Tok::Colon,
                    '+' => Tok::Plus,
                    '-' => Tok::Minus,
                    '!' => Tok::Not,
                    '[' => Tok::RangeOpen { inclusive: true },
                    '{' => Tok::RangeOpen { inclusive: false },
                    ']' => Tok::RangeClose { inclusive: true },
                    _ => Tok::RangeClose { inclusive: false },
                });
            }
            '&' if chars.get(i + 1) == Some(&'&') => {
                i += 2;
                out.push(Tok::And);
            }
            '|' if chars.get(i + 1) == Some(&'|') => {
                i += 2;
                out.push(Tok::Or);
            }
            '~' => {
                i += 1;
                out.push(Tok::Tilde(number(&mut i)));
            }
            '^' => {
                i += 1;
                let boost = number(&mut i).ok_or("a number must follow '^'")?;
                out.push(Tok::Caret(boost));
            }
            '"' | '/' => {
                let close = c;
                i += 1;
                let mut s = String::new();
                loop {
                    match chars.get(i) {
                        None => {
                            return Err(format!(
                                "missing closing {}",
                                if close == '"' { "quote" } else { "'/'" }
                            ));
                        }
                        Some('\\') if i + 1 < chars.len() => {
                            if close == '/' {
                                s.push('\\');
                            }
                            s.push(chars[i + 1]);
                            i += 2;
                        }
                        Some(&ch) if ch == close => {
                            i += 1;
                            break;
                        }
                        Some(&ch) => {
                            s.push(ch);
                            i += 1;
                        }
                    }
                }
                out.push(if close == '"' {
                    Tok::Quoted(s)
                } else {
                    Tok::Regex(s)
                });
            }
            _ => {
                let mut s = String::new();
                let mut wild = false;
                while i < chars.len() {
                    let ch = chars[i];
                    if ch == '\\' {
                        let next = chars.get(i + 1).ok_or("a character must follow '\\'")?;
                        s.push(*next);
                        i += 2;
                        continue;
                    }
                    // `-` and `+` continue a term (`a-b`, `c++`); other specials end it.
                    if is_special(ch) && !(ch == '-' || ch == '+')
                        || (ch == '&' && chars.get(i + 1) == Some(&'&'))
                        || (ch == '|' && chars.get(i + 1) == Some(&'|'))
                    {
                        break;
                    }
                    wild |= ch == '*' || ch == '?';
                    s.push(ch);
                    i += 1;
                }
                out.push(match s.as_str() {
                    "AND" if !wild => Tok::And,
                    "OR" if !wild => Tok::Or,
                    "NOT" if !wild => Tok::Not,
                    "TO" if !wild => Tok::To,
                    _ => Tok::Word { text: s, wild },
                });
            }
        }
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: Vec<Tok>,
    at: usize,
    column: &'a str,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn starts_clause(&self) -> bool {
        matches!(
            self.peek(),
            Some(
                Tok::Word { .. }
                    | Tok::Quoted(_)
                    | Tok::Regex(_)
                    | Tok::Open
                    | Tok::RangeOpen { .. }
                    | Tok::Plus
                    | Tok::Minus
                    | Tok::Not
                    | Tok::And
                    | Tok::Or
            )
        )
    }

    /// `Modifiers Clause (Conjunction Modifiers Clause)*`; one clause without a modifier is
    /// that clause's query.
    fn query(&mut self) -> Result<TextQuery, String> {
        let mut clauses: Vec<Clause> = Vec::new();
        while self.starts_clause() {
            let conj = if clauses.is_empty() {
                Conj::None
            } else {
                match self.peek() {
                    Some(Tok::And) => {
                        self.at += 1;
                        Conj::And
                    }
                    Some(Tok::Or) => {
                        self.at += 1;
                        Conj::Or
                    }
                    _ => Conj::None,
                }
            };
            let modifier = match self.peek() {
                Some(Tok::Plus) => {
                    self.at += 1;
                    Modifier::Required
                }
                Some(Tok::Minus | Tok::Not) => {
                    self.at += 1;
                    Modifier::Prohibited
                }
                _ => Modifier::None,
            };
            let query = self.clause()?;
            clauses.push(Clause {
                conj,
                modifier,
                query,
            });
        }
        match clauses.len() {
            0 => Err("empty query".to_string()),
            1 if clauses[0].modifier == Modifier::None => {
                Ok(clauses.pop().map(|c| c.query).unwrap_or(TextQuery::Nothing))
            }
            _ => Ok(TextQuery::Boolean(clauses)),
        }
    }

    /// `[field:] (term | "(" query ")") [^boost]`.
    fn clause(&mut self) -> Result<TextQuery, String> {
        let mut other_field = false;
        if let (Some(Tok::Word { text, .. }), Some(Tok::Colon)) =
            (self.tokens.get(self.at), self.tokens.get(self.at + 1))
        {
            if text == "*"
                && let Some(Tok::Word { text, .. }) = self.tokens.get(self.at + 2)
                && text == "*"
            {
                self.at += 3;
                return Ok(TextQuery::Everything);
            }
            other_field = text != self.column;
            self.at += 2;
        }
        let q = match self.peek() {
            Some(Tok::Open) => {
                self.at += 1;
                let q = self.query()?;
                if self.next() != Some(Tok::Close) {
                    return Err("missing ')'".to_string());
                }
                q
            }
            _ => self.term()?,
        };
        if let Some(Tok::Caret(_)) = self.peek() {
            self.at += 1;
        }
        Ok(if other_field { TextQuery::Nothing } else { q })
    }

    fn term(&mut self) -> Result<TextQuery, String> {
        let q = match self.next() {
            Some(Tok::Word { text, wild }) => match self.peek() {
                Some(Tok::Tilde(edits)) if !wild => {
                    let edits = *edits;
                    self.at += 1;
                    // Lucene's `FuzzyQuery.floatToEdits`: `~` alone is 2 edits, `~n` n (at
                    // most 2), `~0` none; a fraction is a similarity, `(1 - s) * length` edits.
                    let max_edits = match edits {
                        None => 2,
                        Some(e) if e >= 1.0 => (e as u32).min(2),
                        Some(0.0) => 0,
                        Some(e) => (((1.0 - e) * text.chars().count() as f64) as u32).min(2),
                    };
                    TextQuery::Fuzzy {
                        term: text,
                        max_edits,
                    }
                }
                _ if !wild => TextQuery::Term(text),
                // A leading `*` or `?` stays a wildcard: whether it is allowed depends on the
                // index's options, known where the query runs.
                _ if !text.starts_with(['*', '?'])
                    && text.ends_with('*')
                    && !text[..text.len() - 1].contains(['*', '?']) =>
                {
                    TextQuery::Prefix(text[..text.len() - 1].to_string())
                }
                _ => TextQuery::Wildcard(text),
            },
            Some(Tok::Quoted(text)) => {
                let slop = match self.peek() {
                    Some(Tok::Tilde(s)) => {
                        let s = s.unwrap_or(0.0) as u32;
                        self.at += 1;
                        s
                    }
                    _ => 0,
                };
                TextQuery::Phrase { text, slop }
            }
            Some(Tok::Regex(re)) => TextQuery::Regexp(re),
            Some(Tok::RangeOpen { inclusive }) => {
                let bound = |t: Option<Tok>| match t {
                    Some(Tok::Word { text, .. }) if text == "*" => Ok(None),
                    Some(Tok::Word { text, .. } | Tok::Quoted(text)) => Ok(Some(text)),
                    other => Err(format!("a range bound expected, found {other:?}")),
                };
                let lower = bound(self.next())?;
                if self.next() != Some(Tok::To) {
                    return Err("'TO' expected in a range".to_string());
                }
                let upper = bound(self.next())?;
                let include_upper = match self.next() {
                    Some(Tok::RangeClose { inclusive }) => inclusive,
                    _ => return Err("a range must end with ']' or '}'".to_string()),
                };
                TextQuery::Range {
                    lower,
                    upper,
                    include_lower: inclusive,
                    include_upper,
                }
            }
            other => return Err(format!("a term expected, found {other:?}")),
        };
        Ok(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TextQuery::*;

    fn q(s: &str) -> TextQuery {
        TextMatch::parse("skills", s, None).unwrap().query
    }

    fn t(s: &str) -> TextQuery {
        Term(s.to_string())
    }

    fn c(conj: Conj, modifier: Modifier, query: TextQuery) -> Clause {
        Clause {
            conj,
            modifier,
            query,
        }
    }

    #[test]
    fn terms_phrases_and_operators() {
        use Conj::{And, Or};
        use Modifier::{None as M, Prohibited, Required};
        assert_eq!(q("java"), t("java"));
        assert_eq!(
            q("java python"),
            Boolean(vec![
                c(Conj::None, M, t("java")),
                c(Conj::None, M, t("python"))
            ])
        );
        assert_eq!(
            q("java AND python"),
            Boolean(vec![c(Conj::None, M, t("java")), c(And, M, t("python"))])
        );
        assert_eq!(q("java && python"), q("java AND python"));
        assert_eq!(q("java || python"), q("java OR python"));
        assert_eq!(
            q("+java -python"),
            Boolean(vec![
                c(Conj::None, Required, t("java")),
                c(Conj::None, Prohibited, t("python"))
            ])
        );
        assert_eq!(q("java NOT python"), q("java -python"));
        assert_eq!(q("java ! python"), q("java -python"));
        assert_eq!(
            q(r#""distributed systems" AND (Java OR C++)"#),
            Boolean(vec![
                c(
                    Conj::None,
                    M,
                    Phrase {
                        text: "distributed systems".into(),
                        slop: 0
                    }
                ),
                c(
                    And,
                    M,
                    Boolean(vec![c(Conj::None, M, t("Java")), c(Or, M, t("C++"))])
                ),
            ])
        );
        assert_eq!(
            q(r#""a b"~2"#),
            Phrase {
                text: "a b".into(),
                slop: 2
            }
        );
        assert_eq!(q("a-b"), t("a-b"));
        assert_eq!(q(r"a\:b"), t("a:b"));
        assert_eq!(q("java^2"), t("java"));
    }

    #[test]
    fn multi_term_forms() {
        assert_eq!(q("jav*"), Prefix("jav".into()));
        assert_eq!(q("j?va*"), Wildcard("j?va*".into()));
        assert_eq!(q("/ja.a/"), Regexp("ja.a".into()));
        assert_eq!(
            q("jave~"),
            Fuzzy {
                term: "jave".into(),
                max_edits: 2
            }
        );
        assert_eq!(
            q("jave~1"),
            Fuzzy {
                term: "jave".into(),
                max_edits: 1
            }
        );
        assert_eq!(
            q("[a TO m}"),
            Range {
                lower: Some("a".into()),
                upper: Some("m".into()),
                include_lower: true,
                include_upper: false
            }
        );
        assert_eq!(q("skills:java"), t("java"));
        assert_eq!(q("other:java"), Nothing);
        assert_eq!(q("*:*"), Everything);
        assert_eq!(q("*ava"), Wildcard("*ava".into()));
        assert_eq!(q("*"), Wildcard("*".into()));
        let allowed = TextMatch::parse(
            "c",
            "*ava",
            Some("parser=CLASSIC,allowLeadingWildcard=true"),
        )
        .unwrap();
        assert!(allowed.options.unwrap().allow_leading_wildcard);
        let and = TextMatch::parse(
            "c",
            "a b",
            Some("parser=CLASSIC,invalidOption,DefaultOperator=AND"),
        )
        .unwrap();
        assert_eq!(and.options.unwrap().default_and, Some(true));
        assert!(
            TextMatch::parse("c", "a", Some("=CLASSIC,parser="))
                .unwrap()
                .options
                .is_none()
        );
        assert!(TextMatch::parse("c", "a", Some("parser=MATCH")).is_err());
    }

    #[test]
    fn errors() {
        for bad in ["", "(java", "\"java", "java AND", "[a TO", "/ab"] {
            let e = TextMatch::parse("c", bad, None).unwrap_err().to_string();
            assert!(
                e.starts_with(
                    "Caught exception while searching the text index for column:c search query:"
                ),
                "{bad}: {e}"
            );
        }
    }
}
