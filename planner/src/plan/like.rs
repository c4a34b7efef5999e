//! SQL `LIKE` patterns: `%` matches any run of characters, `_` exactly one, an optional escape
//! character makes the next `%`/`_`/escape literal. Matching is case-sensitive, as in Pinot.
//!
//! A [`LikePattern`] is compiled once and matched many times (once per dictionary entry in a
//! filter, once per row in an expression).

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Token {
    Literal(String),
    One,
    Any,
}

/// A compiled `LIKE` pattern.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LikePattern {
    tokens: Vec<Token>,
}

impl LikePattern {
    /// Compiles `pattern`; a trailing lone escape character is taken literally.
    pub fn new(pattern: &str, escape: Option<char>) -> LikePattern {
        let mut tokens: Vec<Token> = Vec::new();
        let mut chars = pattern.chars();
        let push_char = |tokens: &mut Vec<Token>, c: char| match tokens.last_mut() {
            Some(Token::Literal(s)) => s.push(c),
            _ => tokens.push(Token::Literal(c.to_string())),
        };
        while let Some(c) = chars.next() {
            if Some(c) == escape {
                match chars.next() {
                    Some(n) => push_char(&mut tokens, n),
                    None => push_char(&mut tokens, c),
                }
            } else if c == '%' {
                if tokens.last() != Some(&Token::Any) {
                    tokens.push(Token::Any);
                }
            } else if c == '_' {
                tokens.push(Token::One);
            } else {
                push_char(&mut tokens, c);
            }
        }
        LikePattern { tokens }
    }

    /// Whether `text` matches the whole pattern.
    pub fn matches(&self, text: &str) -> bool {
        if self.tokens.contains(&Token::One) {
            match_tokens(&self.tokens, text)
        } else {
            match_literals(&self.tokens, text)
        }
    }

    /// The literal prefix before the first wildcard (for dictionary range narrowing).
    pub fn literal_prefix(&self) -> &str {
        match self.tokens.first() {
            Some(Token::Literal(s)) => s,
            _ => "",
        }
    }

    /// True when the pattern has no wildcard (an equality in disguise).
    pub fn is_exact(&self) -> bool {
        self.tokens.iter().all(|t| matches!(t, Token::Literal(_)))
    }
}

/// A pattern of literals and `%` only (TPC-H's `'%special%requests%'`): each literal after a
/// `%` at its first occurrence from where the previous one ended (taking the leftmost never
/// loses a match: what follows can only have more room), the last one at the very end.
fn match_literals(tokens: &[Token], text: &str) -> bool {
    let mut rest = text;
    let mut anchored = true;
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::Any => anchored = false,
            Token::Literal(s) => {
                if !anchored && i + 1 == tokens.len() {
                    return rest.ends_with(s.as_str());
                }
                let at = if anchored {
                    rest.starts_with(s.as_str()).then_some(0)
                } else {
                    rest.find(s.as_str())
                };
                match at {
                    Some(p) => rest = &rest[p + s.len()..],
                    None => return false,
                }
                anchored = true;
            }
            Token::One => return match_tokens(&tokens[i..], rest),
        }
    }
    !anchored || rest.is_empty()
}

fn match_tokens(tokens: &[Token], text: &str) -> bool {
    match tokens.split_first() {
        None => text.is_empty(),
        Some((Token::Literal(s), rest)) => text
            .strip_prefix(s.as_str())
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
                positions.retain(|&i| text[i..].starts_with(lit.as_str()));
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
