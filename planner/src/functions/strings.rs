//! String functions (Pinot's `StringFunctions`, on Apache Commons `StringUtils` semantics).
//!
//! * Positions and lengths count characters (Unicode scalar values; Java counts UTF-16 units,
//!   which differs only for characters outside the Basic Multilingual Plane).
//! * `substr(s, begin[, end])` is 0-based with an exclusive end (`end` = -1 means "to the end";
//!   negative positions count from the end, as `StringUtils.substring`); `substring(s, pos[,
//!   len])` is SQL's 1-based form.
//! * `concat(a, b[, sep])` joins two strings with an optional separator *third*;
//!   `concat_ws(sep, a, b)` puts it first. `strpos` is 0-based and -1 when absent.
//! * `splitPart(s, delim, i)` splits on the whole delimiter (runs of it count once), takes
//!   part `i` (0-based; negative from the end) and answers the text `"null"` when out of range.
//! * Results longer than 16 Mi characters (`lpad`, `repeat`) are errors rather than
//!   allocations that could exhaust memory.

use super::coerce::{int, int32, text};
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::types::{DataType, Value};

use Param::{Number as N, Text as T};

const S: Returns = Returns::Fixed(DataType::String);
const I: Returns = Returns::Fixed(DataType::Int);
const B: Returns = Returns::Fixed(DataType::Boolean);

/// The largest string a function may build.
const MAX_RESULT_CHARS: u64 = 16 << 20;

/// The string functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new("upper", Arity::Exact(1), &[T], S, upper),
    FunctionDef::new("lower", Arity::Exact(1), &[T], S, lower),
    FunctionDef::new("reverse", Arity::Exact(1), &[T], S, reverse),
    FunctionDef::new("length", Arity::Exact(1), &[T], I, length).with_aliases(&[
        "len",
        "char_length",
        "character_length",
    ]),
    FunctionDef::new("trim", Arity::OneOf(&[1, 3]), &[T], S, trim),
    FunctionDef::new("ltrim", Arity::Exact(1), &[T], S, ltrim),
    FunctionDef::new("rtrim", Arity::Exact(1), &[T], S, rtrim),
    FunctionDef::new("concat", Arity::Range(2, 3), &[T], S, concat),
    FunctionDef::new("concat_ws", Arity::Exact(3), &[T], S, concat_ws),
    FunctionDef::new("substr", Arity::Range(2, 3), &[T, N, N], S, substr),
    FunctionDef::new("substring", Arity::Range(2, 3), &[T, N, N], S, substring),
    FunctionDef::new("leftSubStr", Arity::Exact(2), &[T, N], S, left_sub_str),
    FunctionDef::new("rightSubStr", Arity::Exact(2), &[T, N], S, right_sub_str),
    FunctionDef::new("strpos", Arity::Range(2, 3), &[T, T, N], I, strpos),
    FunctionDef::new("strrpos", Arity::Range(2, 3), &[T, T, N], I, strrpos),
    FunctionDef::new("startsWith", Arity::Exact(2), &[T], B, starts_with),
    FunctionDef::new("endsWith", Arity::Exact(2), &[T], B, ends_with),
    FunctionDef::new("contains", Arity::Exact(2), &[T], B, contains),
    FunctionDef::new("replace", Arity::Exact(3), &[T], S, replace),
    FunctionDef::new("remove", Arity::Exact(2), &[T], S, remove),
    FunctionDef::new("lpad", Arity::Exact(3), &[T, N, T], S, lpad),
    FunctionDef::new("rpad", Arity::Exact(3), &[T, N, T], S, rpad),
    FunctionDef::new("repeat", Arity::Range(2, 3), &[T, Param::Any, N], S, repeat),
    FunctionDef::new("splitPart", Arity::Exact(3), &[T, T, N], S, split_part),
    FunctionDef::new("codepoint", Arity::Exact(1), &[T], I, codepoint),
    FunctionDef::new("chr", Arity::Exact(1), &[N], S, chr),
    FunctionDef::new(
        "hammingDistance",
        Arity::Exact(2),
        &[T],
        I,
        hamming_distance,
    ),
    FunctionDef::new("strcmp", Arity::Exact(2), &[T], I, strcmp),
];

fn string(s: impl Into<String>) -> Result<Value, FunctionError> {
    Ok(Value::String(s.into()))
}

fn int_result(i: i64) -> Result<Value, FunctionError> {
    Ok(Value::Int(i32::try_from(i).unwrap_or(i32::MAX)))
}

fn check_size(function: &'static str, size: u64) -> Result<(), FunctionError> {
    if size > MAX_RESULT_CHARS {
        Err(FunctionError::ResultTooLarge { function, size })
    } else {
        Ok(())
    }
}

fn upper(args: &[Value]) -> Result<Value, FunctionError> {
    string(text(&args[0]).to_uppercase())
}

fn lower(args: &[Value]) -> Result<Value, FunctionError> {
    string(text(&args[0]).to_lowercase())
}

fn reverse(args: &[Value]) -> Result<Value, FunctionError> {
    string(text(&args[0]).chars().rev().collect::<String>())
}

fn length(args: &[Value]) -> Result<Value, FunctionError> {
    int_result(text(&args[0]).chars().count() as i64)
}

/// `trim(s)`: Java's `String.trim` (characters up to U+0020 at both ends);
/// `trim(BOTH|LEADING|TRAILING, chars, s)`: SQL's TRIM of any of `chars`.
fn trim(args: &[Value]) -> Result<Value, FunctionError> {
    if args.len() == 1 {
        return string(text(&args[0]).trim_matches(|c: char| c <= ' '));
    }
    let (end, chars, value) = (text(&args[0]), text(&args[1]), text(&args[2]));
    let set = |c: char| chars.contains(c);
    let trimmed = match end.as_ref() {
        "BOTH" => value.trim_matches(set),
        "LEADING" => value.trim_start_matches(set),
        "TRAILING" => value.trim_end_matches(set),
        _ => &value,
    };
    string(trimmed)
}

/// Java regex `\s`: space, tab, newline, vertical tab, form feed, carriage return.
fn is_java_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r')
}

fn ltrim(args: &[Value]) -> Result<Value, FunctionError> {
    string(text(&args[0]).trim_start_matches(is_java_space))
}

fn rtrim(args: &[Value]) -> Result<Value, FunctionError> {
    string(text(&args[0]).trim_end_matches(is_java_space))
}

fn concat(args: &[Value]) -> Result<Value, FunctionError> {
    let sep = args.get(2).map(text).unwrap_or_default();
    string(format!("{}{}{}", text(&args[0]), sep, text(&args[1])))
}

fn concat_ws(args: &[Value]) -> Result<Value, FunctionError> {
    string(format!(
        "{}{}{}",
        text(&args[1]),
        text(&args[0]),
        text(&args[2])
    ))
}

/// `StringUtils.substring(s, start, end)` on character positions.
fn char_substring(s: &str, start: i64, end: Option<i64>) -> String {
    let len = s.chars().count() as i64;
    let mut start = if start < 0 {
        len.saturating_add(start)
    } else {
        start
    };
    let mut end = match end {
        Some(e) if e < 0 => len.saturating_add(e),
        Some(e) => e.min(len),
        None => len,
    };
    if start > end {
        return String::new();
    }
    start = start.max(0);
    end = end.max(0);
    s.chars()
        .skip(start as usize)
        .take((end - start) as usize)
        .collect()
}

fn substr(args: &[Value]) -> Result<Value, FunctionError> {
    let s = text(&args[0]);
    let begin = int("substr", &args[1])?;
    let end = match args.get(2) {
        Some(e) => Some(int("substr", e)?).filter(|e| *e != -1),
        None => None,
    };
    string(char_substring(&s, begin, end))
}

fn substring(args: &[Value]) -> Result<Value, FunctionError> {
    let s = text(&args[0]);
    let begin = int("substring", &args[1])?.saturating_sub(1);
    let end = match args.get(2) {
        Some(len) => Some(begin.saturating_add(int("substring", len)?)),
        None => None,
    };
    string(char_substring(&s, begin, end))
}

fn left_sub_str(args: &[Value]) -> Result<Value, FunctionError> {
    let n = int("leftSubStr", &args[1])?;
    string(
        text(&args[0])
            .chars()
            .take(n.max(0) as usize)
            .collect::<String>(),
    )
}

fn right_sub_str(args: &[Value]) -> Result<Value, FunctionError> {
    let s = text(&args[0]);
    let n = int("rightSubStr", &args[1])?.max(0) as usize;
    let len = s.chars().count();
    string(s.chars().skip(len.saturating_sub(n)).collect::<String>())
}

/// Character position of the first match of `needle` at or after character `from`.
fn index_of(chars: &[char], needle: &[char], from: usize) -> Option<usize> {
    if needle.is_empty() {
        return (from <= chars.len()).then_some(from);
    }
    (from..=chars.len().checked_sub(needle.len())?).find(|&i| chars[i..].starts_with(needle))
}

/// Character position of the last match of `needle` starting at or before `from`.
fn last_index_of(chars: &[char], needle: &[char], from: usize) -> Option<usize> {
    let last_start = chars.len().checked_sub(needle.len())?.min(from);
    (0..=last_start)
        .rev()
        .find(|&i| chars[i..].starts_with(needle))
}

/// `strpos(s, find)`: `StringUtils.indexOf`; `strpos(s, find, n)`: the n-th (1-based)
/// occurrence, overlapping ones counted (`StringUtils.ordinalIndexOf`).
fn strpos(args: &[Value]) -> Result<Value, FunctionError> {
    let chars: Vec<char> = text(&args[0]).chars().collect();
    let needle: Vec<char> = text(&args[1]).chars().collect();
    let instance = match args.get(2) {
        Some(n) => int("strpos", n)?,
        None => 1,
    };
    if instance <= 0 {
        return int_result(-1);
    }
    if needle.is_empty() {
        return int_result(0);
    }
    let mut found = None;
    let mut from = 0;
    for _ in 0..instance {
        match index_of(&chars, &needle, from) {
            Some(i) => {
                found = Some(i);
                from = i + 1;
            }
            None => return int_result(-1),
        }
    }
    int_result(found.map_or(-1, |i| i as i64))
}

/// `strrpos(s, find)`: `StringUtils.lastIndexOf`; `strrpos(s, find, start)`: the last match
/// starting at or before `start` (`StringUtils.lastIndexOf(s, find, start)`).
fn strrpos(args: &[Value]) -> Result<Value, FunctionError> {
    let chars: Vec<char> = text(&args[0]).chars().collect();
    let needle: Vec<char> = text(&args[1]).chars().collect();
    let from = match args.get(2) {
        Some(n) => int("strrpos", n)?,
        None => chars.len() as i64,
    };
    if from < 0 {
        return int_result(-1);
    }
    let found = last_index_of(&chars, &needle, from.min(chars.len() as i64) as usize);
    int_result(found.map_or(-1, |i| i as i64))
}

fn starts_with(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Boolean(
        text(&args[0]).starts_with(text(&args[1]).as_ref()),
    ))
}

fn ends_with(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Boolean(
        text(&args[0]).ends_with(text(&args[1]).as_ref()),
    ))
}

fn contains(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Boolean(
        text(&args[0]).contains(text(&args[1]).as_ref()),
    ))
}

fn replace(args: &[Value]) -> Result<Value, FunctionError> {
    let (s, find, with) = (text(&args[0]), text(&args[1]), text(&args[2]));
    if find.is_empty() {
        return string(s);
    }
    let matches = s.matches(find.as_ref()).count() as u64;
    let size = s.len() as u64 + matches.saturating_mul(with.len() as u64);
    check_size("replace", size)?;
    string(s.replace(find.as_ref(), &with))
}

fn remove(args: &[Value]) -> Result<Value, FunctionError> {
    let (s, find) = (text(&args[0]), text(&args[1]));
    if find.is_empty() {
        return string(s);
    }
    string(s.replace(find.as_ref(), ""))
}

/// `StringUtils.leftPad/rightPad(s, size, pad)`: pads with `pad` repeated (a space when
/// empty) up to `size` characters.
fn pad(function: &'static str, args: &[Value], left: bool) -> Result<Value, FunctionError> {
    let s = text(&args[0]);
    let size = int(function, &args[1])?;
    let pad = text(&args[2]);
    let pad: Vec<char> = if pad.is_empty() {
        vec![' ']
    } else {
        pad.chars().collect()
    };
    let len = s.chars().count() as i64;
    if size <= len {
        return string(s);
    }
    check_size(function, size as u64)?;
    let filler: String = pad.iter().cycle().take((size - len) as usize).collect();
    string(if left {
        format!("{filler}{s}")
    } else {
        format!("{s}{filler}")
    })
}

fn lpad(args: &[Value]) -> Result<Value, FunctionError> {
    pad("lpad", args, true)
}

fn rpad(args: &[Value]) -> Result<Value, FunctionError> {
    pad("rpad", args, false)
}

/// `repeat(s, times)` or `repeat(s, separator, times)`.
fn repeat(args: &[Value]) -> Result<Value, FunctionError> {
    let s = text(&args[0]);
    let (sep, times) = match args.len() {
        3 => (text(&args[1]), int("repeat", &args[2])?),
        _ => (Default::default(), int("repeat", &args[1])?),
    };
    if times <= 0 || (s.is_empty() && sep.is_empty()) {
        return string("");
    }
    let size = (s.len() as u64 + sep.len() as u64).saturating_mul(times as u64);
    check_size("repeat", size)?;
    string(vec![s.as_ref(); times as usize].join(&sep))
}

/// `StringUtils.splitByWholeSeparator`: whole-delimiter split dropping empty parts between
/// adjacent delimiters (whitespace runs when the delimiter is empty).
fn split_whole(s: &str, delimiter: &str) -> Vec<String> {
    if s.is_empty() {
        return Vec::new();
    }
    if delimiter.is_empty() {
        return s.split_whitespace().map(str::to_string).collect();
    }
    let mut parts = Vec::new();
    let mut begin = 0;
    while begin < s.len() {
        match s[begin..].find(delimiter) {
            Some(0) => begin += delimiter.len(),
            Some(at) => {
                parts.push(s[begin..begin + at].to_string());
                begin += at + delimiter.len();
            }
            None => {
                parts.push(s[begin..].to_string());
                break;
            }
        }
    }
    parts
}

fn split_part(args: &[Value]) -> Result<Value, FunctionError> {
    let parts = split_whole(&text(&args[0]), &text(&args[1]));
    let index = int("splitPart", &args[2])?;
    let len = parts.len() as i64;
    let at = if index < 0 { len + index } else { index };
    match usize::try_from(at).ok().and_then(|i| parts.get(i)) {
        Some(part) => string(part.as_str()),
        None => string("null"),
    }
}

fn codepoint(args: &[Value]) -> Result<Value, FunctionError> {
    match text(&args[0]).chars().next() {
        Some(c) => Ok(Value::Int(c as i32)),
        None => Err(FunctionError::invalid("codepoint", "", "empty string")),
    }
}

fn chr(args: &[Value]) -> Result<Value, FunctionError> {
    let cp = int32("chr", &args[0])?;
    u32::try_from(cp)
        .ok()
        .and_then(char::from_u32)
        .map(|c| Value::String(c.to_string()))
        .ok_or_else(|| FunctionError::invalid("chr", cp, "not a unicode code point"))
}

fn hamming_distance(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = (text(&args[0]), text(&args[1]));
    if a.chars().count() != b.chars().count() {
        return int_result(-1);
    }
    int_result(a.chars().zip(b.chars()).filter(|(x, y)| x != y).count() as i64)
}

/// Java's `String.compareTo`: the difference of the first differing characters, else of the
/// lengths.
fn strcmp(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = (text(&args[0]), text(&args[1]));
    for (x, y) in a.chars().zip(b.chars()) {
        if x != y {
            return int_result(x as i64 - y as i64);
        }
    }
    int_result(a.chars().count() as i64 - b.chars().count() as i64)
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
    fn case_length_trim() {
        assert_eq!(call("upper", &[s("wiTH Mixed")]), s("WITH MIXED"));
        assert_eq!(call("lower", &[s("HELLO")]), s("hello"));
        assert_eq!(call("length", &[s(" hello ")]), Value::Int(7));
        assert_eq!(call("length", &[s("héllo")]), Value::Int(5));
        assert_eq!(call("trim", &[s(" \t hello \n")]), s("hello"));
        assert_eq!(call("ltrim", &[s("  a ")]), s("a "));
        assert_eq!(call("rtrim", &[s("  a ")]), s("  a"));
        assert_eq!(call("trim", &[s("LEADING"), s("xy"), s("xyaxy")]), s("axy"));
        assert_eq!(call("trim", &[s("BOTH"), s("x"), s("xax")]), s("a"));
        assert_eq!(call("reverse", &[s("world hello")]), s("olleh dlrow"));
        assert_eq!(call("upper", &[Value::Int(5)]), s("5"));
        assert!(lookup("trim").unwrap().eval(&[s("a"), s("b")]).is_err());
    }

    #[test]
    fn concat_forms() {
        assert_eq!(call("concat", &[s("a"), s("b")]), s("ab"));
        assert_eq!(
            call("concat", &[s("b"), Value::Boolean(false), s("-")]),
            s("b-false")
        );
        assert_eq!(call("concat_ws", &[s(","), s("a"), s("b")]), s("a,b"));
        assert_eq!(call("concat", &[s("a"), Value::Null]), Value::Null);
    }

    #[test]
    fn substrings_follow_pinot() {
        // Conformance suite: substr(strCol, 0), substring(strCol, 1), substr(strCol, 3).
        assert_eq!(call("substr", &[s("Hello"), Value::Int(0)]), s("Hello"));
        assert_eq!(call("substring", &[s("Hello"), Value::Int(1)]), s("Hello"));
        assert_eq!(
            call("substr", &[s("hello world"), Value::Int(3)]),
            s("lo world")
        );
        assert_eq!(call("substr", &[s(" "), Value::Int(3)]), s(""));
        assert_eq!(call("substr", &[s("rudvalis"), Value::Int(5)]), s("lis"));
        assert_eq!(
            call("substr", &[s("hello"), Value::Int(1), Value::Int(3)]),
            s("el")
        );
        assert_eq!(
            call("substr", &[s("hello"), Value::Int(1), Value::Int(-1)]),
            s("ello")
        );
        assert_eq!(call("substr", &[s("hello"), Value::Int(-3)]), s("llo"));
        assert_eq!(
            call("substr", &[s("hello"), Value::Int(3), Value::Int(1)]),
            s("")
        );
        assert_eq!(
            call("substring", &[s("hello"), Value::Int(2), Value::Int(3)]),
            s("ell")
        );
        assert_eq!(
            call("substring", &[s("hello"), Value::Int(4), Value::Int(100)]),
            s("lo")
        );
        assert_eq!(call("leftSubStr", &[s("hello"), Value::Int(2)]), s("he"));
        assert_eq!(call("rightSubStr", &[s("hello"), Value::Int(2)]), s("lo"));
        assert_eq!(call("rightSubStr", &[s("hello"), Value::Int(-2)]), s(""));
    }

    #[test]
    fn searching() {
        // Conformance suite: strpos(strCol, 'hello').
        for (input, want) in [
            ("Hello", -1),
            ("hello", 0),
            ("hello world", 0),
            ("world hello", 6),
            ("", -1),
        ] {
            assert_eq!(
                call("strpos", &[s(input), s("hello")]),
                Value::Int(want),
                "{input}"
            );
        }
        assert_eq!(
            call("strpos", &[s("aaa"), s("aa"), Value::Int(2)]),
            Value::Int(1)
        );
        assert_eq!(
            call("strpos", &[s("abab"), s("ab"), Value::Int(3)]),
            Value::Int(-1)
        );
        assert_eq!(call("strrpos", &[s("abab"), s("ab")]), Value::Int(2));
        assert_eq!(
            call("strrpos", &[s("abab"), s("ab"), Value::Int(1)]),
            Value::Int(0)
        );
        assert_eq!(
            call("starts_with", &[s("Hello"), s("Hello")]),
            Value::Boolean(true)
        );
        assert_eq!(
            call("ends_with", &[s("world hello"), s("ello")]),
            Value::Boolean(true)
        );
        assert_eq!(call("contains", &[s("abc"), s("bc")]), Value::Boolean(true));
        assert_eq!(
            call("hammingDistance", &[s("abc"), s("abd")]),
            Value::Int(1)
        );
        assert_eq!(
            call("hammingDistance", &[s("abc"), s("ab")]),
            Value::Int(-1)
        );
        assert_eq!(call("strcmp", &[s("a"), s("c")]), Value::Int(-2));
        assert_eq!(call("strcmp", &[s("ab"), s("a")]), Value::Int(1));
    }

    #[test]
    fn building() {
        assert_eq!(call("replace", &[s("aXbX"), s("X"), s("-")]), s("a-b-"));
        assert_eq!(call("replace", &[s("ab"), s(""), s("-")]), s("ab"));
        assert_eq!(call("remove", &[s("aXbX"), s("X")]), s("ab"));
        assert_eq!(call("lpad", &[s("5"), Value::Int(3), s("0")]), s("005"));
        assert_eq!(call("rpad", &[s("ab"), Value::Int(5), s("xy")]), s("abxyx"));
        assert_eq!(call("lpad", &[s("abc"), Value::Int(2), s("0")]), s("abc"));
        assert!(
            lookup("lpad")
                .unwrap()
                .eval(&[s("a"), Value::Int(i32::MAX), s("0")])
                .is_err()
        );
        assert_eq!(call("repeat", &[s("ab"), Value::Int(3)]), s("ababab"));
        assert_eq!(
            call("repeat", &[s("ab"), s(","), Value::Int(2)]),
            s("ab,ab")
        );
        assert_eq!(call("repeat", &[s("ab"), Value::Int(-1)]), s(""));
        assert_eq!(call("repeat", &[s(""), Value::Long(i64::MAX)]), s(""));
        assert!(
            lookup("repeat")
                .unwrap()
                .eval(&[s("ab"), Value::Long(i64::MAX)])
                .is_err()
        );
        assert_eq!(call("chr", &[Value::Int(65)]), s("A"));
        assert!(lookup("chr").unwrap().eval(&[Value::Int(0xD800)]).is_err());
        assert_eq!(call("codepoint", &[s("A")]), Value::Int(65));
        assert!(lookup("codepoint").unwrap().eval(&[s("")]).is_err());
    }

    #[test]
    fn split_part_uses_whole_separators() {
        let parts = |t: &str, d: &str, i: i32| call("splitPart", &[s(t), s(d), Value::Int(i)]);
        assert_eq!(parts("a.b.c", ".", 1), s("b"));
        assert_eq!(parts("a..b", ".", 1), s("b"));
        assert_eq!(parts("a-!-b", "-!-", 1), s("b"));
        assert_eq!(parts("a.b.c", ".", -1), s("c"));
        assert_eq!(parts("a.b.c", ".", 3), s("null"));
        assert_eq!(parts("a b  c", "", 2), s("c"));
    }
}
