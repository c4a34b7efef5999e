//! Lexical analysis: SQL text to tokens (Calcite's lexical rules as Pinot configures them).
//!
//! Whitespace and comments (`-- …`, `// …`, `/* … */`) are skipped; a hint (`/*+ … */`) is
//! kept on the token that follows it ([`Token::hint`]), for the grammar to read where Calcite
//! allows one (after `SELECT`) and ignore elsewhere; words,
//! `"quoted"` and `` `quoted` `` identifiers, `'strings'` (with `''` escapes), numbers and
//! operators become [`Token`]s. The token list always ends with one [`TokenKind::Eof`] token, so
//! the grammar can always point at "the next token" when it reports an error.

use std::borrow::Cow;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_until, take_while, take_while1};
use nom::character::complete::{char as chr, digit0, digit1, one_of};
use nom::combinator::{opt, recognize};
use nom::{IResult, Parser};

use super::super::error::ParseError;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// An unquoted word: a keyword or an identifier.
    Word,
    /// A `"double"` or `` `back` `` quoted identifier (`value` is unescaped).
    QuotedIdent,
    /// A `'string'` literal (`value` is unescaped).
    String,
    /// A numeric literal.
    Number,
    /// An operator or punctuation mark.
    Punct,
    /// The end of the input.
    Eof,
}

/// One token with its text as written and its byte offset in the source.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token<'a> {
    pub kind: TokenKind,
    /// The raw text (quotes included).
    pub text: &'a str,
    /// The value: unescaped for quoted identifiers and strings, the text otherwise.
    pub value: Cow<'a, str>,
    /// Byte offset of the first character.
    pub offset: usize,
    /// The body of a `/*+ … */` hint written just before this token.
    pub hint: Option<&'a str>,
}

impl Token<'_> {
    /// Whether this is the unquoted word `kw` (ASCII case-insensitive).
    pub fn is_keyword(&self, kw: &str) -> bool {
        self.kind == TokenKind::Word && self.text.eq_ignore_ascii_case(kw)
    }

    /// Whether this is the punctuation `p`.
    pub fn is_punct(&self, p: &str) -> bool {
        self.kind == TokenKind::Punct && self.text == p
    }
}

/// Multi-character operators first so the longest match wins.
const PUNCTS: [&str; 23] = [
    "<>", "!=", "<=", ">=", "||", "::", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",", ".",
    ";", "[", "]", "?", "^",
];

/// 1-based (line, column) of a byte offset, counting as Calcite does with tab size 1:
/// `\n`, `\r` and `\r\n` end a line, every other character is one column.
pub(crate) fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let (mut line, mut col) = (1, 1);
    let mut prev_cr = false;
    for (i, c) in src.char_indices() {
        if i >= offset {
            break;
        }
        match c {
            '\n' if prev_cr => {}
            '\n' | '\r' => {
                line += 1;
                col = 1;
            }
            _ => col += 1,
        }
        prev_cr = c == '\r';
    }
    (line, col)
}

/// Position Calcite reports for the end of input: the last character of the text (1, 1 when empty).
pub(crate) fn eof_line_col(src: &str) -> (usize, usize) {
    match src.char_indices().last() {
        Some((i, _)) => line_col(src, i),
        None => (1, 1),
    }
}

fn lexical_error(src: &str, offset: usize, encountered: &str, after: &str) -> ParseError {
    let (line, column) = if offset >= src.len() {
        eof_line_col(src)
    } else {
        line_col(src, offset)
    };
    ParseError {
        message: format!(
            "Lexical error at line {line}, column {column}.  Encountered: {encountered}after : \"{after}\""
        ),
        line,
        column,
    }
}

fn is_word_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// word := (letter | '_' | '$') (letter | digit | '_' | '$')*
fn word(i: &str) -> IResult<&str, &str> {
    recognize((
        take_while1(|c: char| is_word_start(c)),
        take_while(is_word_char),
    ))
    .parse(i)
}

/// number := digits ['.' digits?] [exponent] | '.' digits [exponent];
/// exponent := ('e'|'E') ['+'|'-'] digits
fn number(i: &str) -> IResult<&str, &str> {
    let exponent = (one_of("eE"), opt(one_of("+-")), digit1);
    recognize((
        alt((
            recognize((digit1, opt((chr('.'), digit0)))),
            recognize((chr('.'), digit1)),
        )),
        opt(exponent),
    ))
    .parse(i)
}

/// punct := one of [`PUNCTS`] (longest first)
fn punct(i: &str) -> IResult<&str, &str> {
    for p in PUNCTS {
        if let Ok(r) = tag::<&str, &str, nom::error::Error<&str>>(p).parse(i) {
            return Ok(r);
        }
    }
    Err(nom::Err::Error(nom::error::Error::new(
        i,
        nom::error::ErrorKind::OneOf,
    )))
}

/// Reads a quoted run starting at `i` (which begins with `quote`); a doubled quote is an escaped
/// quote. Returns the rest and the unescaped value, or `None` when the closing quote is missing.
fn quoted(i: &str, quote: char) -> Option<(&str, Cow<'_, str>)> {
    let body = i.strip_prefix(quote)?;
    let mut value: Option<String> = None;
    let mut start = 0;
    let mut iter = body.char_indices().peekable();
    while let Some((idx, c)) = iter.next() {
        if c != quote {
            continue;
        }
        if let Some(&(next_idx, next)) = iter.peek()
            && next == quote
        {
            let v = value.get_or_insert_with(String::new);
            v.push_str(&body[start..idx]);
            v.push(quote);
            start = next_idx + next.len_utf8();
            iter.next();
            continue;
        }
        let rest = &body[idx + c.len_utf8()..];
        let value = match value {
            Some(mut v) => {
                v.push_str(&body[start..idx]);
                Cow::Owned(v)
            }
            None => Cow::Borrowed(&body[..idx]),
        };
        return Some((rest, value));
    }
    None
}

/// `UESCAPE 'c'` after a Unicode string literal: the rest and the escape character.
fn uescape(i: &str) -> Option<(&str, char)> {
    let t = i.trim_start();
    let keyword = t.get(..7)?;
    if !keyword.eq_ignore_ascii_case("UESCAPE") {
        return None;
    }
    let (rest, body) = quoted(t[7..].trim_start(), '\'')?;
    let mut chars = body.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if !c.is_ascii_hexdigit() && !"+'\" \t\n".contains(c) => Some((rest, c)),
        _ => None,
    }
}

/// The text of `U&'…'`: `<e>XXXX` (four hex digits) and `<e>+XXXXXX` (six) are code points,
/// `<e><e>` the escape character itself, as Calcite reads them.
fn unicode_unescape(body: &str, escape: char) -> Result<String, String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c != escape {
            out.push(c);
            continue;
        }
        if chars.peek().is_some_and(|(_, n)| *n == escape) {
            chars.next();
            out.push(escape);
            continue;
        }
        let six = chars.peek().is_some_and(|(_, n)| *n == '+');
        if six {
            chars.next();
        }
        let digits: String = (0..if six { 6 } else { 4 })
            .map_while(|_| {
                chars
                    .next_if(|(_, d)| d.is_ascii_hexdigit())
                    .map(|(_, d)| d)
            })
            .collect();
        let wanted = if six { 6 } else { 4 };
        let point = (digits.len() == wanted)
            .then(|| u32::from_str_radix(&digits, 16).ok())
            .flatten()
            .and_then(char::from_u32)
            .ok_or_else(|| {
                format!(
                    "Unicode escape sequence starting at character {} is not exactly {} hex digits",
                    at + 1,
                    if six { "six" } else { "four" }
                )
            })?;
        out.push(point);
    }
    Ok(out)
}

/// Skips whitespace and comments, returning the rest and the body of the last hint skipped.
/// `Err(offset)` for an unterminated block comment.
fn skip_trivia<'a>(src: &str, mut i: &'a str) -> Result<(&'a str, Option<&'a str>), usize> {
    let mut hint = None;
    loop {
        let trimmed = i.trim_start();
        if trimmed.len() != i.len() {
            i = trimmed;
            continue;
        }
        if i.starts_with("--") || i.starts_with("//") {
            i = match i.find(['\n', '\r']) {
                Some(n) => &i[n..],
                None => "",
            };
            continue;
        }
        if let Some(body) = i.strip_prefix("/*") {
            let end: IResult<&str, &str> = take_until("*/").parse(body);
            match end {
                Ok((rest, comment)) => {
                    if let Some(h) = comment.strip_prefix('+') {
                        hint = Some(h.trim());
                    }
                    i = &rest[2..];
                    continue;
                }
                Err(_) => return Err(src.len() - i.len()),
            }
        }
        return Ok((i, hint));
    }
}

/// Splits `src` into tokens, ending with an [`TokenKind::Eof`] token.
pub(crate) fn tokenize(src: &str) -> Result<Vec<Token<'_>>, ParseError> {
    let mut tokens = Vec::new();
    let mut i = src;
    loop {
        let (after, hint) =
            skip_trivia(src, i).map_err(|_| lexical_error(src, src.len(), "<EOF> ", ""))?;
        i = after;
        let offset = src.len() - i.len();
        let Some(first) = i.chars().next() else {
            tokens.push(Token {
                kind: TokenKind::Eof,
                text: "",
                value: Cow::Borrowed(""),
                offset,
                hint,
            });
            return Ok(tokens);
        };
        let (rest, kind, value) = match first {
            'U' | 'u' if i[1..].starts_with("&'") => {
                let Some((rest, body)) = quoted(&i[2..], '\'') else {
                    let after: String = i.chars().take(64).collect();
                    return Err(lexical_error(src, src.len(), "<EOF> ", &after));
                };
                // An optional `UESCAPE 'c'` names the escape character (`\` by default).
                let (rest, escape) = match uescape(rest) {
                    Some((rest, c)) => (rest, c),
                    None => (rest, '\\'),
                };
                let value = unicode_unescape(&body, escape).map_err(|message| ParseError {
                    message,
                    ..lexical_error(src, offset, "", "")
                })?;
                (rest, TokenKind::String, Cow::Owned(value))
            }
            '\'' | '"' | '`' => {
                let Some((rest, value)) = quoted(i, first) else {
                    let after: String = i.chars().take(64).collect();
                    return Err(lexical_error(src, src.len(), "<EOF> ", &after));
                };
                let kind = if first == '\'' {
                    TokenKind::String
                } else {
                    TokenKind::QuotedIdent
                };
                (rest, kind, value)
            }
            c if c.is_ascii_digit() || (c == '.' && number(i).is_ok()) => match number(i) {
                Ok((rest, n)) => (rest, TokenKind::Number, Cow::Borrowed(n)),
                Err(_) => {
                    return Err(lexical_error(
                        src,
                        offset,
                        &format!("\"{c}\" ({}), ", c as u32),
                        "",
                    ));
                }
            },
            c if is_word_start(c) => match word(i) {
                Ok((rest, w)) => (rest, TokenKind::Word, Cow::Borrowed(w)),
                Err(_) => {
                    return Err(lexical_error(
                        src,
                        offset,
                        &format!("\"{c}\" ({}), ", c as u32),
                        "",
                    ));
                }
            },
            c => match punct(i) {
                Ok((rest, p)) => (rest, TokenKind::Punct, Cow::Borrowed(p)),
                Err(_) => {
                    let encountered = format!("\"{c}\" ({}), ", c as u32);
                    return Err(lexical_error(src, offset, &encountered, ""));
                }
            },
        };
        let text = &i[..i.len() - rest.len()];
        tokens.push(Token {
            kind,
            text,
            value,
            offset,
            hint,
        });
        i = rest;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(TokenKind, String)> {
        tokenize(src)
            .unwrap()
            .into_iter()
            .map(|t| (t.kind, t.value.into_owned()))
            .collect()
    }

    #[test]
    fn words_numbers_and_operators() {
        use TokenKind::*;
        assert_eq!(
            kinds("SELECT a1,$docId FROM t WHERE x>=1.5e3 AND y<>.5"),
            vec![
                (Word, "SELECT".into()),
                (Word, "a1".into()),
                (Punct, ",".into()),
                (Word, "$docId".into()),
                (Word, "FROM".into()),
                (Word, "t".into()),
                (Word, "WHERE".into()),
                (Word, "x".into()),
                (Punct, ">=".into()),
                (Number, "1.5e3".into()),
                (Word, "AND".into()),
                (Word, "y".into()),
                (Punct, "<>".into()),
                (Number, ".5".into()),
                (Eof, "".into()),
            ]
        );
    }

    #[test]
    fn quoting_and_escapes() {
        use TokenKind::*;
        assert_eq!(
            kinds(r#"'it''s' "a ""b""" `c``d` ''"#),
            vec![
                (String, "it's".into()),
                (QuotedIdent, "a \"b\"".into()),
                (QuotedIdent, "c`d".into()),
                (String, "".into()),
                (Eof, "".into()),
            ]
        );
    }

    #[test]
    fn unicode_string_literals() {
        let s = |src: &str| kinds(src)[0].clone();
        assert_eq!(s("U&'\\0041BC'"), (TokenKind::String, "ABC".into()));
        assert_eq!(
            s("u&'caf\\00e9 \\\\'"),
            (TokenKind::String, "café \\".into())
        );
        assert_eq!(s("U&'\\+01F600'"), (TokenKind::String, "\u{1F600}".into()));
        assert_eq!(
            s("U&'!0041!!' UESCAPE '!'"),
            (TokenKind::String, "A!".into())
        );
        assert!(tokenize("U&'\\00G1'").is_err());
        assert!(tokenize("U&'\\0041").is_err());
        // `U` alone is still a word.
        assert_eq!(s("U + 1").0, TokenKind::Word);
    }

    #[test]
    fn comments_are_skipped() {
        use TokenKind::*;
        assert_eq!(
            kinds("a -- line\n/* block\n */ b // other\n/*+ hint */c"),
            vec![
                (Word, "a".into()),
                (Word, "b".into()),
                (Word, "c".into()),
                (Eof, "".into()),
            ]
        );
    }

    #[test]
    fn positions_follow_calcite() {
        let src = "SELECT\n  a,\r\n\tb";
        let toks = tokenize(src).unwrap();
        let b = &toks[3];
        assert_eq!(b.text, "b");
        assert_eq!(line_col(src, b.offset), (3, 2));
        assert_eq!(eof_line_col(src), (3, 2));
        assert_eq!(eof_line_col(""), (1, 1));
    }

    #[test]
    fn lexical_errors() {
        let e = tokenize("SELECT 'abc").unwrap_err();
        assert_eq!(
            e.message,
            "Lexical error at line 1, column 11.  Encountered: <EOF> after : \"'abc\""
        );
        let e = tokenize("SELECT a # b").unwrap_err();
        assert_eq!(
            e.message,
            "Lexical error at line 1, column 10.  Encountered: \"#\" (35), after : \"\""
        );
        assert_eq!((e.line, e.column), (1, 10));
        assert!(tokenize("a /* open").is_err());
        assert!(tokenize("\"unterminated").is_err());
    }
}
