//! SQL `LIKE` patterns: `%` matches any run of characters, `_` exactly one, an optional escape
//! character makes the next `%`/`_`/escape literal. Matching is case-sensitive, as in Pinot.
//!
//! A [`LikePattern`] is compiled once and matched many times (once per dictionary entry in a
//! filter, once per row in an expression). A pattern of literals and `%` only — the common
//! kind, TPC-H's `'%special%requests%'` — is matched on the text's bytes with one SIMD substring
//! finder per literal (`memchr::memmem`), built with the pattern; a needle that is valid UTF-8
//! can only match a valid UTF-8 text at a character boundary, so no decoding is needed.

use memchr::memmem::Finder;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    /// Boxed: a finder is a few hundred bytes.
    Literal(Box<Literal>),
    One,
    Any,
}

/// A literal run of the pattern and its substring finder.
#[derive(Clone, Debug)]
struct Literal {
    text: String,
    finder: Finder<'static>,
}

impl Literal {
    fn new(text: String) -> Literal {
        let finder = Finder::new(text.as_bytes()).into_owned();
        Literal { text, finder }
    }
}

impl PartialEq for Literal {
    fn eq(&self, other: &Literal) -> bool {
        self.text == other.text
    }
}

impl Eq for Literal {}

/// A compiled `LIKE` pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LikePattern {
    tokens: Vec<Token>,
    /// Whether the pattern has a `_` (matched by characters, not bytes).
    has_one: bool,
}

impl LikePattern {
    /// Compiles `pattern`; a trailing lone escape character is taken literally.
    pub fn new(pattern: &str, escape: Option<char>) -> LikePattern {
        let mut tokens: Vec<Token> = Vec::new();
        // The literal being read; it becomes a token (and gets its finder) where it ends.
        let mut text = String::new();
        let end_literal = |tokens: &mut Vec<Token>, text: &mut String| {
            if !text.is_empty() {
                let literal = Literal::new(std::mem::take(text));
                tokens.push(Token::Literal(Box::new(literal)));
            }
        };
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            if Some(c) == escape {
                text.push(chars.next().unwrap_or(c));
            } else if c == '%' {
                end_literal(&mut tokens, &mut text);
                if tokens.last() != Some(&Token::Any) {
                    tokens.push(Token::Any);
                }
            } else if c == '_' {
                end_literal(&mut tokens, &mut text);
                tokens.push(Token::One);
            } else {
                text.push(c);
            }
        }
        end_literal(&mut tokens, &mut text);
        let has_one = tokens.contains(&Token::One);
        LikePattern { tokens, has_one }
    }

    /// Whether `text` matches the whole pattern.
    pub fn matches(&self, text: &str) -> bool {
        if self.has_one {
            match_tokens(&self.tokens, text)
        } else {
            self.match_literals(text.as_bytes())
        }
    }

    /// Whether UTF-8 text given as bytes (a dictionary entry) matches; bytes that are not UTF-8
    /// are read lossily where the pattern needs characters.
    pub fn matches_utf8(&self, bytes: &[u8]) -> bool {
        if self.has_one {
            match_tokens(&self.tokens, &String::from_utf8_lossy(bytes))
        } else {
            self.match_literals(bytes)
        }
    }

    /// The literal prefix before the first wildcard (for dictionary range narrowing).
    pub fn literal_prefix(&self) -> &str {
        match self.tokens.first() {
            Some(Token::Literal(l)) => &l.text,
            _ => "",
        }
    }

    /// True when the pattern has no wildcard (an equality in disguise).
    pub fn is_exact(&self) -> bool {
        self.tokens.iter().all(|t| matches!(t, Token::Literal(_)))
    }
}

impl LikePattern {
    /// A pattern of literals and `%` only: each literal after a `%` at its first occurrence
    /// from where the previous one ended (taking the leftmost never loses a match: what follows
    /// can only have more room), the last one at the very end.
    fn match_literals(&self, text: &[u8]) -> bool {
        let mut rest = text;
        let mut anchored = true;
        for (i, token) in self.tokens.iter().enumerate() {
            match token {
                Token::Any => anchored = false,
                Token::Literal(literal) => {
                    let s = literal.text.as_bytes();
                    if !anchored && i + 1 == self.tokens.len() {
                        return rest.ends_with(s);
                    }
                    let at = if anchored {
                        rest.starts_with(s).then_some(0)
                    } else {
                        literal.finder.find(rest)
                    };
                    match at {
                        Some(p) => rest = &rest[p + s.len()..],
                        None => return false,
                    }
                    anchored = true;
                }
                Token::One => {
                    return match_tokens(&self.tokens[i..], &String::from_utf8_lossy(rest));
                }
            }
        }
        !anchored || rest.is_empty()
    }
}

fn match_tokens(tokens: &[Token], text: &str) -> bool {
    match tokens.split_first() {
        None => text.is_empty(),
        Some((Token::Literal(l), rest)) => text
            .strip_prefix(l.text.as_str())
            .is_some_and(|t| match_tokens(rest, t)),
        Some((Token::One, rest)) => {
            let mut it = text.chars();
            it.next().is_some() && match_tokens(rest, it.as_str())
        }
        Some((Token::Any, rest)) => {
            if rest.is_empty() {
                return true;
            }
            // Next literal anchors the search; try each position it occurs at.
            let mut positions: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            positions.push(text.len());
            if let Some(Token::Literal(lit)) = rest.first() {
                positions.retain(|&i| text[i..].starts_with(lit.text.as_str()));
            }
            positions
                .into_iter()
                .any(|i| match_tokens(rest, &text[i..]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn m(p: &str, t: &str) -> bool {
        LikePattern::new(p, None).matches(t)
    }

    #[test]
    fn wildcards() {
        assert!(m("a%", "abc"));
        assert!(m("%c", "abc"));
        assert!(m("%b%", "abc"));
        assert!(!m("%d%", "abc"));
        assert!(m("a_c", "abc"));
        assert!(!m("a_c", "abbc"));
        assert!(m("%", ""));
        assert!(!m("_", ""));
        assert!(m("a%b%c", "aXbYbZc"));
        assert!(!m("ABC", "abc"));
        assert!(m("é_", "éa"));
    }

    #[test]
    fn escapes_and_prefix() {
        let p = LikePattern::new("100!%%", Some('!'));
        assert!(p.matches("100% sure"));
        assert!(!p.matches("1000"));
        assert_eq!(p.literal_prefix(), "100%");
        assert!(LikePattern::new("abc", None).is_exact());
        assert!(!LikePattern::new("a_c", None).is_exact());
    }

    proptest! {
        /// Patterns of literals and `%` take the leftmost-occurrence path; it agrees with the
        /// general backtracking matcher.
        #[test]
        fn literal_and_any_patterns_match_as_backtracking_does(p in "[ab%]{0,7}", t in "[ab]{0,9}") {
            let pattern = LikePattern::new(&p, None);
            prop_assert_eq!(pattern.matches(&t), match_tokens(&pattern.tokens, &t), "{} on {}", p, t);
        }

        #[test]
        fn literal_patterns_match_only_themselves(s in "[a-z]{0,8}", t in "[a-z]{0,8}") {
            prop_assert_eq!(m(&s, &t), s == t);
            let contains = format!("%{s}%");
            prop_assert_eq!(m(&contains, &t), t.contains(&s));
        }
    }
}
