//! Regular-expression functions (Pinot's `regexp/*Functions` and `StringFunctions.regexp*`), on
//! the `regex` crate: Java syntax without backreferences or look-around (those patterns are
//! errors).
//!
//! * `regexpExtract(s, re[, group[, default]])`: the group of the first match, else `default`
//!   (`""` when not given).
//! * `regexpReplace(s, re, with[, start[, occurrence[, flag]]])`: replaces every match from
//!   character `start` on (or only the `occurrence`-th, 0-based, inserted literally as Java's
//!   `StringBuffer.replace` does); `$n` in `with` refers to group `n`, `\x` is a literal `x`;
//!   flag `i` ignores case.
//! * `regexpLike(s, re[, match])`: whether `re` is found in `s`, case-sensitive unless the match
//!   parameter is `i` (`c` or `''` keep case; anything else is an error).
//! * `like(s, pattern)`: SQL LIKE (`%`, `_`, `\` escapes) ignoring case, translated as Pinot's
//!   `likeToRegexpLike` (a pattern starting or ending with `%` is not anchored at that end —
//!   even an escaped one: `'50\%'` means "starts with `50\`", as in Pinot).
//! * `regexpCount(s, re)`: the number of non-overlapping matches; `regexpSubstr(s, re)`: the
//!   first match, NULL when none.
//! * `regexpExtractVar`, `regexpReplaceVar`, `regexpLikeVar`, `likeVar`: Pinot's names for the
//!   same functions when the pattern is a column rather than a literal.
//!
//! Compiled patterns are cached per thread (a few dozen), so a per-row call compiles once.

use super::coerce::{int, text};
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use regex::{Regex, RegexBuilder};
use segments::types::{DataType, Value};
use std::cell::RefCell;
use std::collections::HashMap;

use Param::{Number as N, Text as T};

/// The regular-expression functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new(
        "regexpExtract",
        Arity::Range(2, 4),
        &[T, T, N, T],
        S,
        regexp_extract,
    ),
    FunctionDef::new(
        "regexpExtractVar",
        Arity::Range(2, 4),
        &[T, T, N, T],
        S,
        regexp_extract,
    ),
    FunctionDef::new(
        "regexpReplace",
        Arity::Range(3, 6),
        &[T, T, T, N, N, T],
        S,
        regexp_replace,
    ),
    FunctionDef::new(
        "regexpReplaceVar",
        Arity::Range(3, 6),
        &[T, T, T, N, N, T],
        S,
        regexp_replace,
    ),
    FunctionDef::new("regexpLike", Arity::Range(2, 3), &[T], B, regexp_like),
    FunctionDef::new("regexpLikeVar", Arity::Range(2, 3), &[T], B, regexp_like),
    FunctionDef::new("like", Arity::Exact(2), &[T], B, like),
    FunctionDef::new("likeVar", Arity::Exact(2), &[T], B, like),
    FunctionDef::new(
        "regexpCount",
        Arity::Exact(2),
        &[T],
        Returns::Fixed(DataType::Int),
        regexp_count,
    ),
    FunctionDef::new("regexpSubstr", Arity::Exact(2), &[T], S, regexp_substr),
];

const S: Returns = Returns::Fixed(DataType::String);
const B: Returns = Returns::Fixed(DataType::Boolean);

/// How many compiled patterns each thread keeps.
const CACHE_SIZE: usize = 64;

/// The compiled `pattern` (cached per thread).
fn compiled(pattern: &str, ignore_case: bool) -> Result<Regex, FunctionError> {
    thread_local! {
        static CACHE: RefCell<HashMap<(String, bool), Regex>> = RefCell::new(HashMap::new());
    }
    CACHE.with(|cache| {
        let key = (pattern.to_string(), ignore_case);
        if let Some(re) = cache.borrow().get(&key) {
            return Ok(re.clone());
        }
        let re = RegexBuilder::new(pattern)
            .case_insensitive(ignore_case)
            .size_limit(1 << 22)
            .build()
            .map_err(|e| FunctionError::InvalidRegex {
                pattern: pattern.to_string(),
                reason: e
                    .to_string()
                    .lines()
                    .last()
                    .unwrap_or("invalid")
                    .trim()
                    .to_string(),
            })?;
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHE_SIZE {
            cache.clear();
        }
        cache.insert(key, re.clone());
        Ok(re)
    })
}

fn regexp_extract(args: &[Value]) -> Result<Value, FunctionError> {
    let s = text(&args[0]);
    let re = compiled(&text(&args[1]), false)?;
    let group = match args.get(2) {
        Some(g) => int("regexpExtract", g)?,
        None => 0,
    };
    if group < 0 {
        return Err(FunctionError::invalid(
            "regexpExtract",
            group,
            "negative group",
        ));
    }
    let default = || {
        args.get(3).map_or(Value::String(String::new()), |d| {
            Value::String(text(d).into_owned())
        })
    };
    Ok(match re.captures(&s) {
        Some(caps) if (group as usize) < caps.len() => match caps.get(group as usize) {
            Some(m) => Value::String(m.as_str().to_string()),
            None => Value::Null,
        },
        _ => default(),
    })
}

/// A piece of a Java replacement string.
enum Piece {
    Literal(String),
    Group(usize),
}

/// Parses Java's `Matcher.appendReplacement` syntax: `$n` (the longest group number that
/// exists), `${name}` is not supported, `\x` is a literal `x`.
fn parse_replacement(with: &str, groups: usize) -> Result<Vec<Piece>, FunctionError> {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut chars = with.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped) => literal.push(escaped),
                None => {
                    return Err(FunctionError::invalid(
                        "regexpReplace",
                        with,
                        "character to be escaped is missing",
                    ));
                }
            },
            '$' => {
                let mut number: Option<usize> = None;
                while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                    let next = number.unwrap_or(0) * 10 + d as usize;
                    if number.is_some() && next >= groups {
                        break;
                    }
                    number = Some(next);
                    chars.next();
                }
                match number {
                    Some(n) if n < groups => {
                        pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                        pieces.push(Piece::Group(n));
                    }
                    Some(n) => {
                        return Err(FunctionError::invalid(
                            "regexpReplace",
                            with,
                            format!("no group {n}"),
                        ));
                    }
                    None => {
                        return Err(FunctionError::invalid(
                            "regexpReplace",
                            with,
                            "illegal group reference",
                        ));
                    }
                }
            }
            other => literal.push(other),
        }
    }
    pieces.push(Piece::Literal(literal));
    Ok(pieces)
}

fn regexp_replace(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "regexpReplace";
    let s = text(&args[0]);
    let ignore_case = args.get(5).is_some_and(|flag| text(flag) == "i");
    let re = compiled(&text(&args[1]), ignore_case)?;
    let with = text(&args[2]);
    let start = match args.get(3) {
        Some(v) => int(F, v)?,
        None => 0,
    };
    let occurrence = match args.get(4) {
        Some(v) => int(F, v)?,
        None => -1,
    };
    let char_count = s.chars().count() as i64;
    if start < 0 || start > char_count {
        return Err(FunctionError::invalid(F, start, "match start out of range"));
    }
    let offset = s
        .char_indices()
        .nth(start as usize)
        .map_or(s.len(), |(i, _)| i);
    let (prefix, region) = s.split_at(offset);
    let mut out = String::with_capacity(s.len());
    out.push_str(prefix);
    if occurrence >= 0 {
        match re.find_iter(region).nth(occurrence as usize) {
            Some(m) => {
                out.push_str(&region[..m.start()]);
                out.push_str(&with);
                out.push_str(&region[m.end()..]);
            }
            None => out.push_str(region),
        }
        return Ok(Value::String(out));
    }
    let pieces = parse_replacement(&with, re.captures_len())?;
    let mut last = 0;
    for caps in re.captures_iter(region) {
        let Some(whole) = caps.get(0) else { continue };
        out.push_str(&region[last..whole.start()]);
        for piece in &pieces {
            match piece {
                Piece::Literal(l) => out.push_str(l),
                Piece::Group(g) => out.push_str(caps.get(*g).map_or("", |m| m.as_str())),
            }
        }
        last = whole.end();
        if out.len() > 16 << 20 {
            return Err(FunctionError::ResultTooLarge {
                function: F,
                size: out.len() as u64,
            });
        }
    }
    out.push_str(&region[last..]);
    Ok(Value::String(out))
}

/// Pinot's match parameter: `i`/`I` ignores case, `c`/`C` or nothing keeps it.
fn ignores_case(parameter: &str) -> Result<bool, FunctionError> {
    match parameter {
        "" | "c" | "C" => Ok(false),
        "i" | "I" => Ok(true),
        other => Err(FunctionError::invalid(
            "regexpLike",
            other,
            "match parameter must be 'i' (ignore case) or 'c' (case-sensitive)",
        )),
    }
}

fn regexp_like(args: &[Value]) -> Result<Value, FunctionError> {
    let ignore_case = match args.get(2) {
        Some(parameter) => ignores_case(&text(parameter))?,
        None => false,
    };
    let re = compiled(&text(&args[1]), ignore_case)?;
    Ok(Value::Boolean(re.is_match(&text(&args[0]))))
}

/// Characters Pinot escapes when it turns a LIKE pattern into a regular expression.
const LIKE_METACHARACTERS: &str = "^$.{}[]()*+?|<>-&/";

/// SQL LIKE as a regular expression, the way Pinot's `likeToRegexpLike` builds it: `%` is any
/// run, `_` one character, a backslash before `%` or `_` makes it literal; the pattern is
/// anchored at each end that is not `%`. Pinot's Java pattern text is then read token by token
/// so that each escaped or plain character becomes a literal of the `regex` crate.
pub(crate) fn like_to_regex(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let (mut start, mut end) = (0, chars.len());
    let (mut prefix, mut suffix) = ("^", "$");
    match chars.as_slice() {
        [] => return "^$".to_string(),
        ['%'] => return String::new(),
        [_] => {}
        [first, .., last] => {
            if *first == '%' {
                match chars.iter().position(|c| *c != '%') {
                    Some(i) => start = i,
                    None => return String::new(),
                }
                prefix = "";
            }
            if *last == '%' {
                end = chars.iter().rposition(|c| *c != '%').map_or(0, |i| i + 1);
                suffix = "";
            }
        }
    }
    let mut java = String::from(prefix);
    let mut after_backslash = false;
    for &c in chars.get(start..end).unwrap_or_default() {
        match c {
            '_' if !after_backslash => java.push('.'),
            '%' if !after_backslash => java.push_str(".*"),
            '_' | '%' => java.push(c),
            _ => {
                if after_backslash || LIKE_METACHARACTERS.contains(c) {
                    java.push('\\');
                }
                java.push(c);
            }
        }
        after_backslash = c == '\\';
    }
    if after_backslash {
        java.push('\\');
    }
    java.push_str(suffix);
    // Java's `\x` is a literal `x`; the unescaped operators keep their meaning.
    let mut regex = String::with_capacity(java.len());
    let mut tokens = java.chars();
    while let Some(c) = tokens.next() {
        match c {
            '\\' => {
                if let Some(escaped) = tokens.next() {
                    regex.push_str(&regex::escape(escaped.encode_utf8(&mut [0; 4])));
                }
            }
            c if LIKE_METACHARACTERS.contains(c) => regex.push(c),
            c => regex.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
        }
    }
    regex
}

fn like(args: &[Value]) -> Result<Value, FunctionError> {
    let re = compiled(&like_to_regex(&text(&args[1])), true)?;
    Ok(Value::Boolean(re.is_match(&text(&args[0]))))
}

fn regexp_count(args: &[Value]) -> Result<Value, FunctionError> {
    let re = compiled(&text(&args[1]), false)?;
    let count = re.find_iter(&text(&args[0])).count();
    Ok(Value::Int(i32::try_from(count).unwrap_or(i32::MAX)))
}

fn regexp_substr(args: &[Value]) -> Result<Value, FunctionError> {
    let re = compiled(&text(&args[1]), false)?;
    Ok(re
        .find(&text(&args[0]))
        .map_or(Value::Null, |m| Value::String(m.as_str().to_string())))
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Value {
        lookup(name).unwrap().eval(args).unwrap()
    }

    fn s(text: &str) -> Value {
        Value::String(text.into())
    }

    #[test]
    fn extract() {
        // Conformance suite: regexpExtract(stringCol, '([\w]+).*').
        assert_eq!(
            call("regexpExtract", &[s("lyons"), s(r"([\w]+).*")]),
            s("lyons")
        );
        assert_eq!(
            call(
                "regexp_extract",
                &[s("foo123bar"), s(r"(\d+)"), Value::Int(1)]
            ),
            s("123")
        );
        assert_eq!(
            call("regexpExtract", &[s("foo"), s(r"(\d+)"), Value::Int(1)]),
            s("")
        );
        assert_eq!(
            call(
                "regexpExtract",
                &[s("foo"), s(r"(\d+)"), Value::Int(1), s("none")]
            ),
            s("none")
        );
        assert_eq!(
            call("regexpExtract", &[s("ab"), s(r"(a)|(x)"), Value::Int(2)]),
            Value::Null
        );
        assert_eq!(
            call(
                "regexpExtract",
                &[s("ab"), s(r"(a)"), Value::Int(5), s("d")]
            ),
            s("d")
        );
        let bad = lookup("regexpExtract")
            .unwrap()
            .eval(&[s("a"), s("(")])
            .unwrap_err();
        assert!(matches!(bad, FunctionError::InvalidRegex { .. }));
        assert!(
            lookup("regexpExtract")
                .unwrap()
                .eval(&[s("a"), s(r"(a)\1")])
                .is_err()
        );
    }

    #[test]
    fn replace() {
        // Conformance suite: regexp_Replace(strCol, 'e.*o', 'le').
        for (input, want) in [
            ("HELLO", "HELLO"),
            ("Hello", "Hle"),
            (" hello ", " hle "),
            ("", ""),
        ] {
            assert_eq!(
                call("regexp_replace", &[s(input), s("e.*o"), s("le")]),
                s(want)
            );
        }
        assert_eq!(
            call("regexpReplace", &[s("a1b22"), s(r"(\d+)"), s("<$1>")]),
            s("a<1>b<22>")
        );
        assert_eq!(
            call("regexpReplace", &[s("a1b2"), s(r"\d"), s(r"\$")]),
            s("a$b$")
        );
        assert_eq!(
            call(
                "regexpReplace",
                &[s("a1b2c3"), s(r"\d"), s("#"), Value::Int(2)]
            ),
            s("a1b#c#")
        );
        assert_eq!(
            call(
                "regexpReplace",
                &[s("a1b2c3"), s(r"\d"), s("#"), Value::Int(0), Value::Int(1)]
            ),
            s("a1b#c3")
        );
        assert_eq!(
            call(
                "regexpReplace",
                &[
                    s("ABC"),
                    s("b"),
                    s("x"),
                    Value::Int(0),
                    Value::Int(-1),
                    s("i")
                ]
            ),
            s("AxC")
        );
        assert!(
            lookup("regexpReplace")
                .unwrap()
                .eval(&[s("a"), s("a"), s("$9")])
                .is_err()
        );
        assert!(
            lookup("regexpReplace")
                .unwrap()
                .eval(&[s("a"), s("a"), s("x"), Value::Int(5)])
                .is_err()
        );
    }

    #[test]
    fn like_and_regexp_like() {
        assert_eq!(
            call("regexpLike", &[s("lyons"), s(".*")]),
            Value::Boolean(true)
        );
        // Case-sensitive unless the match parameter says `i` (Pinot since 1.4).
        assert_eq!(
            call("regexp_like", &[s("Hello"), s("^h")]),
            Value::Boolean(false)
        );
        assert_eq!(
            call("regexp_like", &[s("Hello"), s("^h"), s("i")]),
            Value::Boolean(true)
        );
        assert_eq!(
            call("regexpLike", &[s("Hello"), s("^h"), s("C")]),
            Value::Boolean(false)
        );
        assert!(
            lookup("regexpLike")
                .unwrap()
                .eval(&[s("a"), s("a"), s("x")])
                .is_err()
        );
        assert_eq!(
            call("regexpLikeVar", &[s("rudvalis"), s("rud.*")]),
            Value::Boolean(true)
        );
        assert_eq!(
            call("regexpLikeVar", &[s("rudvalis"), s("ruD.*"), s("I")]),
            Value::Boolean(true)
        );
        assert_eq!(
            call("regexpLikeVar", &[s("onan"), s("^x")]),
            Value::Boolean(false)
        );
        assert_eq!(call("like", &[s("hello"), s("h%o")]), Value::Boolean(true));
        assert_eq!(call("like", &[s("HELLO"), s("h%o")]), Value::Boolean(true));
        assert_eq!(
            call("like", &[s("hello"), s("h_llo")]),
            Value::Boolean(true)
        );
        assert_eq!(
            call("like", &[s("hello"), s("h_lo")]),
            Value::Boolean(false)
        );
        assert_eq!(call("like", &[s("a.c"), s("a.c")]), Value::Boolean(true));
        assert_eq!(call("like", &[s("abc"), s("a.c")]), Value::Boolean(false));
        assert_eq!(
            call("like", &[s("50%x"), s(r"50\%x")]),
            Value::Boolean(true)
        );
        assert_eq!(
            call("like", &[s("500x"), s(r"50\%x")]),
            Value::Boolean(false)
        );
        // Pinot strips a trailing `%` even when escaped: `50\%` is "starts with 50\".
        assert_eq!(call("like", &[s("50%"), s(r"50\%")]), Value::Boolean(false));
        assert_eq!(
            call("like", &[s(r"50\0"), s(r"50\%")]),
            Value::Boolean(true)
        );
        assert_eq!(call("like", &[s("a<b>"), s("a<b>")]), Value::Boolean(true));
        assert_eq!(call("like", &[s("xa(b"), s("%a(b")]), Value::Boolean(true));
        assert_eq!(call("likeVar", &[s("ab"), s("%")]), Value::Boolean(true));
        assert_eq!(call("likeVar", &[s(""), s("")]), Value::Boolean(true));
        assert_eq!(call("likeVar", &[s("a"), s("")]), Value::Boolean(false));
        assert_eq!(call("like", &[Value::Null, s("%")]), Value::Null);
    }

    #[test]
    fn like_translates_as_pinot() {
        // RegexpPatternConverterUtilsTest: leading/trailing % drop the anchors.
        assert_eq!(like_to_regex("%"), "");
        assert_eq!(like_to_regex("%%%"), "");
        assert_eq!(like_to_regex(""), "^$");
        assert_eq!(like_to_regex("%abc%"), "abc");
        assert_eq!(like_to_regex("abc%"), "^abc");
        assert_eq!(like_to_regex("%a_c"), "a.c$");
        assert_eq!(like_to_regex("a.b"), r"^a\.b$");
        assert_eq!(like_to_regex(r"a\_b"), r"^a_b$");
    }

    #[test]
    fn var_variants_count_and_substr() {
        assert_eq!(
            call(
                "regexpExtractVar",
                &[s("foo123bar"), s(r"(\d+)"), Value::Int(1)]
            ),
            s("123")
        );
        assert_eq!(
            call(
                "regexpExtractVar",
                &[s("foo"), s(r"\d"), Value::Int(0), s("x")]
            ),
            s("x")
        );
        assert_eq!(
            call("regexpReplaceVar", &[s("a1b22"), s(r"(\d+)"), s("<$1>")]),
            s("a<1>b<22>")
        );
        assert!(
            lookup("regexpReplaceVar")
                .unwrap()
                .eval(&[s("a"), s("("), s("x")])
                .is_err()
        );
        // StringFunctionsTest.testRegexpCount / testRegexpSubstr.
        for (input, re, want) in [
            ("hello world hello", "hello", 2),
            ("aaa", "a", 3),
            ("abc", "x", 0),
            ("", "a", 0),
            ("aaaa", "aa", 2),
            ("abc123def456", r"\d+", 2),
        ] {
            assert_eq!(call("regexp_count", &[s(input), s(re)]), Value::Int(want));
        }
        assert_eq!(
            call("regexpSubstr", &[s("hello world"), s(r"w\w+")]),
            s("world")
        );
        assert_eq!(
            call("regexp_substr", &[s("Hello World"), s("[A-Z][a-z]+")]),
            s("Hello")
        );
        assert_eq!(call("regexpSubstr", &[s("hello"), s(r"\d+")]), Value::Null);
        assert!(
            lookup("regexpCount")
                .unwrap()
                .eval(&[s("a"), s("[")])
                .is_err()
        );
    }
}
