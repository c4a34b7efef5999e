//! The text analyzer of a text index and of the queries over it — Lucene's `StandardAnalyzer`
//! as Pinot configures it: words per Unicode's word boundaries (UAX #29: `don't`, `u.s.a`,
//! `3.14` and `_zz_` stay whole; `-`, `/`, `@`, `+` split; each ideograph is a word), at most
//! 255 characters a token (longer words are cut into pieces), lowercased unless the index is
//! case-sensitive, and stop words removed, each leaving a hole in the positions (so
//! `"learned a lot"` needs one word between `learned` and `lot`).

use super::config::TextIndexConfig;
use std::collections::BTreeSet;
use unicode_segmentation::UnicodeSegmentation;

/// Longest token; a longer word is cut into tokens of this many characters.
const MAX_TOKEN_CHARS: usize = 255;

/// A token and its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub text: String,
    pub position: u32,
}

/// Turns text into tokens for one column.
#[derive(Clone, Debug)]
pub struct Analyzer {
    lowercase: bool,
    stop_words: BTreeSet<String>,
}

impl Analyzer {
    pub fn new(config: &TextIndexConfig) -> Analyzer {
        Analyzer {
            lowercase: !config.case_sensitive,
            stop_words: config.stop_words(),
        }
    }

    /// A multi-term query's text (prefix, wildcard, regex, fuzzy, range) as the index holds
    /// terms: lowercased unless case-sensitive; no stop words removed.
    pub fn normalize(&self, text: &str) -> String {
        if self.lowercase {
            text.to_lowercase()
        } else {
            text.to_string()
        }
    }

    /// A case-sensitive index matches stop words by exact case (`the`, not `The`).
    fn is_stop_word(&self, token: &str) -> bool {
        self.stop_words.contains(token)
    }

    /// The tokens of `text`, positions counted from `first` (a multi-value cell's values
    /// continue one another); returns the position after the last.
    pub fn tokens_into(&self, text: &str, first: u32, out: &mut Vec<Token>) -> u32 {
        let mut position = first;
        for word in text.unicode_words() {
            let chars: Vec<char> = word.chars().collect();
            for piece in chars.chunks(MAX_TOKEN_CHARS) {
                let piece: String = piece.iter().collect();
                let token = self.normalize(&piece);
                if !self.is_stop_word(&token) {
                    out.push(Token {
                        text: token,
                        position,
                    });
                }
                position += 1;
            }
        }
        position
    }

    /// The tokens of one text.
    pub fn tokens(&self, text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        self.tokens_into(text, 0, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        Analyzer::new(&TextIndexConfig::default())
            .tokens(text)
            .into_iter()
            .map(|t| t.text)
            .collect()
    }

    #[test]
    fn tokens_as_lucene_standard_analyzer() {
        assert_eq!(words("distributed-systems"), ["distributed", "systems"]);
        assert_eq!(words("C++ C# .NET"), ["c", "c", "net"]);
        assert_eq!(words("3.14 2024-01-15"), ["3.14", "2024", "01", "15"]);
        assert_eq!(words("U.S.A. don't _zz_"), ["u.s.a", "don't", "_zz_"]);
        assert_eq!(words("foo@bar.com"), ["foo", "bar.com"]);
        assert_eq!(
            words("GET /administrator/ HTTP/1.1 200 4263 -"),
            ["get", "administrator", "http", "1.1", "200", "4263"]
        );
        assert_eq!(words("café ÜBER Straße"), ["café", "über", "straße"]);
        assert_eq!(words("中文"), ["中", "文"]);
        assert_eq!(words("Those and these thanks than then"), ["thanks"]);
        let long = "x".repeat(260);
        assert_eq!(
            words(&long).iter().map(String::len).collect::<Vec<_>>(),
            [255, 5]
        );
    }

    #[test]
    fn stop_words_leave_holes_and_follow_the_config() {
        let a = Analyzer::new(&TextIndexConfig::default());
        let t = a.tokens("learned a lot");
        assert_eq!((t[0].position, t[1].position), (0, 2));
        let custom = TextIndexConfig {
            stop_words_include: ["coordinator".to_string()].into(),
            stop_words_exclude: ["it".to_string(), "those".to_string()].into(),
            ..TextIndexConfig::default()
        };
        let a = Analyzer::new(&custom);
        assert_eq!(
            a.tokens("IT coordinator those")
                .iter()
                .map(|t| t.text.as_str())
                .collect::<Vec<_>>(),
            ["it", "those"]
        );
        let cs = Analyzer::new(&TextIndexConfig {
            case_sensitive: true,
            ..TextIndexConfig::default()
        });
        assert_eq!(
            cs.tokens("Java the The IT")
                .iter()
                .map(|t| t.text.as_str())
                .collect::<Vec<_>>(),
            ["Java", "The", "IT"]
        );
    }
}
