//! String functions (Pinot's `StringFunctions`, `string/StringFunctions` and `NgramFunctions`,
//! on Apache Commons `StringUtils` semantics).
//!
//! * Positions and lengths count characters (Unicode scalar values; Java counts UTF-16 units,
//!   which differs only for characters outside the Basic Multilingual Plane).
//! * Case and length: `upper`, `lower`, `initcap`, `reverse`, `length/len`,
//!   `charLength/characterLength`, `octetLength` (UTF-8 bytes), `bitLength`, `ascii` (first
//!   character's code, 0 when empty), `codepoint`, `chr`, `isValidASCII`, `normalize(s[, form])`
//!   (NFC by default; NFD, NFKC, NFKD), `toAscii` (BYTES, `?` for non-ASCII) and `fromAscii`.
//! * Trimming and padding: `trim`, `ltrim`, `rtrim`, `lpad`, `rpad`, `repeat`, `space(n)`.
//! * `substr(s, begin[, end])` is 0-based with an exclusive end (`end` = -1 means "to the end";
//!   negative positions count from the end, as `StringUtils.substring`); `substring(s, pos[,
//!   len])` is SQL's 1-based form; `leftSubStr/left`, `rightSubStr/right`, `firstLine`,
//!   `substringIndex(s, delim, n)` (MySQL's SUBSTRING_INDEX), `overlay(s, with, from[, len])`.
//! * `concat(a, b[, sep])` joins two strings with an optional separator *third*;
//!   `concat_ws(sep, a, b)` puts it first. `strpos` is 0-based and -1 when absent.
//! * Splitting follows `StringUtils.splitByWholeSeparator`: runs of the delimiter count once,
//!   leading ones are dropped, trailing ones leave one empty part, an empty delimiter splits on
//!   whitespace; an optional limit makes the last part the rest of the text. `split/stringToArray`
//!   returns the parts (STRING array); `splitPart(s, delim[, limit], i)` takes part `i`
//!   (0-based; negative from the end) and answers the text `"null"` when out of range.
//! * Arrays of derived strings: `prefixes`, `suffixes`, `prefixesWithPrefix`,
//!   `suffixesWithSuffix` (up to `n` of them), `uniqueNgrams/generateUniqueNgrams(s, n)` or
//!   `(s, min, max)` and `uniqueNgramsMV/generateUniqueNgramsMV` over a multi-value argument
//!   (distinct n-grams in first-seen order).
//! * Comparing: `startsWith`, `endsWith`, `contains`, `startsWithCaseInsensitive`,
//!   `endsWithCaseInsensitive`, `strcmp`, `hammingDistance`, `levenshteinDistance`, `soundex`
//!   (Commons Codec's American Soundex; `""` gives `0000`), `difference` (matching Soundex
//!   positions, 0 to 4). `replace`, `remove`, `translate(s, from, to)`.
//! * Results longer than 16 Mi characters (`lpad`, `repeat`, `space`, `prefixes` …) are errors
//!   rather than allocations that could exhaust memory.

use super::coerce::{bytes, int, int32, text};
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::types::{DataType, Value};
use std::borrow::Cow;
use unicode_normalization::UnicodeNormalization;

use Param::{Number as N, Text as T};

const S: Returns = Returns::Fixed(DataType::String);
const I: Returns = Returns::Fixed(DataType::Int);
const B: Returns = Returns::Fixed(DataType::Boolean);
const SA: Returns = Returns::FixedArray(DataType::String);

/// The most cells `levenshteinDistance` computes (the product of the two lengths).
const MAX_EDIT_CELLS: u64 = 1 << 28;

/// The largest string a function may build.
const MAX_RESULT_CHARS: u64 = 16 << 20;

/// The string functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new("upper", Arity::Exact(1), &[T], S, upper),
    FunctionDef::new("lower", Arity::Exact(1), &[T], S, lower),
    FunctionDef::new("reverse", Arity::Exact(1), &[T], S, reverse),
    FunctionDef::new("length", Arity::Exact(1), &[T], I, length).with_aliases(&["len"]),
    FunctionDef::new("charLength", Arity::Exact(1), &[T], I, length)
        .with_aliases(&["characterLength"]),
    FunctionDef::new("octetLength", Arity::Exact(1), &[T], I, octet_length),
    FunctionDef::new("bitLength", Arity::Exact(1), &[T], I, bit_length),
    FunctionDef::new("initcap", Arity::Exact(1), &[T], S, initcap),
    FunctionDef::new("ascii", Arity::Exact(1), &[T], I, ascii),
    FunctionDef::new("isValidASCII", Arity::Exact(1), &[T], B, is_valid_ascii),
    FunctionDef::new(
        "toAscii",
        Arity::Exact(1),
        &[T],
        Returns::Fixed(DataType::Bytes),
        to_ascii,
    ),
    FunctionDef::new("fromAscii", Arity::Exact(1), &[Param::Bytes], S, from_ascii),
    FunctionDef::new("normalize", Arity::Range(1, 2), &[T], S, normalize),
    FunctionDef::new("firstLine", Arity::Exact(1), &[T], S, first_line),
    FunctionDef::new("space", Arity::Exact(1), &[N], S, space),
    FunctionDef::new("trim", Arity::OneOf(&[1, 3]), &[T], S, trim),
    FunctionDef::new("ltrim", Arity::Exact(1), &[T], S, ltrim),
    FunctionDef::new("rtrim", Arity::Exact(1), &[T], S, rtrim),
    FunctionDef::new("concat", Arity::Range(2, 3), &[T], S, concat),
    FunctionDef::new("concat_ws", Arity::Exact(3), &[T], S, concat_ws),
    FunctionDef::new("substr", Arity::Range(2, 3), &[T, N, N], S, substr)
        .with_text_view(substr_view),
    FunctionDef::new("substring", Arity::Range(2, 3), &[T, N, N], S, substring)
        .with_text_view(substring_view),
    FunctionDef::new("leftSubStr", Arity::Exact(2), &[T, N], S, left_sub_str)
        .with_aliases(&["left"]),
    FunctionDef::new("rightSubStr", Arity::Exact(2), &[T, N], S, right_sub_str)
        .with_aliases(&["right"]),
    FunctionDef::new(
        "substringIndex",
        Arity::Exact(3),
        &[T, T, N],
        S,
        substring_index,
    ),
    FunctionDef::new("overlay", Arity::Range(3, 4), &[T, T, N, N], S, overlay),
    FunctionDef::new("strpos", Arity::Range(2, 3), &[T, T, N], I, strpos),
    FunctionDef::new("strrpos", Arity::Range(2, 3), &[T, T, N], I, strrpos),
    FunctionDef::new("startsWith", Arity::Exact(2), &[T], B, starts_with),
    FunctionDef::new("endsWith", Arity::Exact(2), &[T], B, ends_with),
    FunctionDef::new(
        "startsWithCaseInsensitive",
        Arity::Exact(2),
        &[T],
        B,
        starts_with_ci,
    ),
    FunctionDef::new(
        "endsWithCaseInsensitive",
        Arity::Exact(2),
        &[T],
        B,
        ends_with_ci,
    ),
    FunctionDef::new("contains", Arity::Exact(2), &[T], B, contains),
    FunctionDef::new("replace", Arity::Exact(3), &[T], S, replace),
    FunctionDef::new("remove", Arity::Exact(2), &[T], S, remove),
    FunctionDef::new("lpad", Arity::Exact(3), &[T, N, T], S, lpad),
    FunctionDef::new("rpad", Arity::Exact(3), &[T, N, T], S, rpad),
    FunctionDef::new("repeat", Arity::Range(2, 3), &[T, Param::Any, N], S, repeat),
    FunctionDef::new("translate", Arity::Exact(3), &[T], S, translate),
    FunctionDef::new("split", Arity::Range(2, 3), &[T, T, N], SA, split)
        .with_aliases(&["stringToArray"]),
    FunctionDef::new(
        "splitPart",
        Arity::Range(3, 4),
        &[T, T, N, N],
        S,
        split_part,
    ),
    FunctionDef::new("prefixes", Arity::Exact(2), &[T, N], SA, prefixes),
    FunctionDef::new(
        "prefixesWithPrefix",
        Arity::Exact(3),
        &[T, N, T],
        SA,
        prefixes_with_prefix,
    )
    .handles_nulls(),
    FunctionDef::new("suffixes", Arity::Exact(2), &[T, N], SA, suffixes),
    FunctionDef::new(
        "suffixesWithSuffix",
        Arity::Exact(3),
        &[T, N, T],
        SA,
        suffixes_with_suffix,
    )
    .handles_nulls(),
    FunctionDef::new(
        "uniqueNgrams",
        Arity::Range(2, 3),
        &[T, N],
        SA,
        unique_ngrams,
    )
    .with_aliases(&["generateUniqueNgrams"]),
    FunctionDef::new(
        "uniqueNgramsMV",
        Arity::Range(2, 3),
        &[Param::Array, N],
        SA,
        unique_ngrams_mv,
    )
    .with_aliases(&["generateUniqueNgramsMV"]),
    FunctionDef::new("codepoint", Arity::Exact(1), &[T], I, codepoint),
    FunctionDef::new("chr", Arity::Exact(1), &[N], S, chr),
    FunctionDef::new(
        "hammingDistance",
        Arity::Exact(2),
        &[T],
        I,
        hamming_distance,
    ),
    FunctionDef::new(
        "levenshteinDistance",
        Arity::Exact(2),
        &[T],
        I,
        levenshtein_distance,
    ),
    FunctionDef::new("soundex", Arity::Exact(1), &[T], S, soundex).handles_nulls(),
    FunctionDef::new("difference", Arity::Exact(2), &[T], I, difference),
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

/// `StringUtils.substring(s, start, end)` on character positions, as a slice of `s`.
fn char_range(s: &str, start: i64, end: Option<i64>) -> &str {
    // ASCII text (codes, dates, phone numbers): characters are bytes.
    let ascii = s.is_ascii();
    let len = match ascii {
        true => s.len(),
        false => s.chars().count(),
    } as i64;
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
        return "";
    }
    start = start.max(0);
    end = end.max(0);
    if ascii {
        return &s[start as usize..end as usize];
    }
    let byte = |c: i64| s.char_indices().nth(c as usize).map_or(s.len(), |(b, _)| b);
    &s[byte(start)..byte(end)]
}

/// `substr(s, begin[, end])`: 0-based `begin`, exclusive `end` (-1: to the end).
fn substr_view<'a>(s: &'a str, args: &[Value]) -> Result<&'a str, FunctionError> {
    let begin = int("substr", &args[0])?;
    let end = match args.get(1) {
        Some(e) => Some(int("substr", e)?).filter(|e| *e != -1),
        None => None,
    };
    Ok(char_range(s, begin, end))
}

/// `substring(s, pos[, len])`: SQL's 1-based position and length.
fn substring_view<'a>(s: &'a str, args: &[Value]) -> Result<&'a str, FunctionError> {
    let begin = int("substring", &args[0])?.saturating_sub(1);
    let end = match args.get(1) {
        Some(len) => Some(begin.saturating_add(int("substring", len)?)),
        None => None,
    };
    Ok(char_range(s, begin, end))
}

fn substr(args: &[Value]) -> Result<Value, FunctionError> {
    string(substr_view(&text(&args[0]), &args[1..])?.to_string())
}

fn substring(args: &[Value]) -> Result<Value, FunctionError> {
    string(substring_view(&text(&args[0]), &args[1..])?.to_string())
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

/// Java's `Character.isWhitespace`: Unicode spaces except the no-break ones, plus the ASCII
/// controls \t \n \u{B} \u{C} \r and \u{1C}..\u{1F}.
fn is_java_whitespace(c: char) -> bool {
    matches!(c, '\u{1C}'..='\u{1F}')
        || (c.is_whitespace() && !matches!(c, '\u{85}' | '\u{A0}' | '\u{2007}' | '\u{202F}'))
}

/// `StringUtils.splitByWholeSeparator(s, delimiter, max)`: parts between whole delimiters; runs
/// of the delimiter count once, leading ones are dropped and trailing ones leave one empty
/// part. An empty delimiter splits on whitespace (no empty parts). With `max` > 0 the `max`-th
/// part is the rest of the text.
fn split_whole(s: &str, delimiter: &str, max: i64) -> Vec<String> {
    let limited = |count: usize| max > 0 && count as i64 + 1 >= max;
    let mut parts = Vec::new();
    if s.is_empty() {
        return parts;
    }
    if delimiter.is_empty() {
        let mut rest = s.trim_start_matches(is_java_whitespace);
        while !rest.is_empty() {
            if limited(parts.len()) {
                parts.push(rest.to_string());
                break;
            }
            let end = rest.find(is_java_whitespace).unwrap_or(rest.len());
            parts.push(rest[..end].to_string());
            rest = rest[end..].trim_start_matches(is_java_whitespace);
        }
        return parts;
    }
    let mut begin = 0;
    loop {
        match s[begin..].find(delimiter) {
            Some(0) => begin += delimiter.len(),
            Some(_) if limited(parts.len()) => {
                parts.push(s[begin..].to_string());
                break;
            }
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

fn string_array(items: impl IntoIterator<Item = String>) -> Result<Value, FunctionError> {
    Ok(Value::Array(items.into_iter().map(Value::String).collect()))
}

fn split(args: &[Value]) -> Result<Value, FunctionError> {
    let limit = match args.get(2) {
        Some(n) => int("split", n)?,
        None => 0,
    };
    string_array(split_whole(&text(&args[0]), &text(&args[1]), limit))
}

/// `splitPart(s, delim, index)` or `splitPart(s, delim, limit, index)`.
fn split_part(args: &[Value]) -> Result<Value, FunctionError> {
    let (limit, index) = match args.len() {
        4 => (int("splitPart", &args[2])?, int("splitPart", &args[3])?),
        _ => (0, int("splitPart", &args[2])?),
    };
    let parts = split_whole(&text(&args[0]), &text(&args[1]), limit);
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

fn octet_length(args: &[Value]) -> Result<Value, FunctionError> {
    int_result(text(&args[0]).len() as i64)
}

fn bit_length(args: &[Value]) -> Result<Value, FunctionError> {
    int_result((text(&args[0]).len() as i64).saturating_mul(8))
}

/// Java's `Character.toUpperCase(char)`: a character whose upper case is several (`ß`) stays.
fn upper_char(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// Java's `Character.toLowerCase(char)`.
fn lower_char(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// Upper-cases the first character of each whitespace-delimited word, lower-cases the rest.
fn initcap(args: &[Value]) -> Result<Value, FunctionError> {
    let mut out = String::new();
    let mut word_start = true;
    for c in text(&args[0]).chars() {
        if is_java_whitespace(c) {
            out.push(c);
            word_start = true;
        } else if word_start {
            out.push(upper_char(c));
            word_start = false;
        } else {
            out.push(lower_char(c));
        }
    }
    string(out)
}

/// The first UTF-16 unit of the text (Java's `charAt(0)`), 0 for empty text.
fn ascii(args: &[Value]) -> Result<Value, FunctionError> {
    let first = text(&args[0])
        .chars()
        .next()
        .map_or(0, |c| c.encode_utf16(&mut [0; 2])[0]);
    Ok(Value::Int(i32::from(first)))
}

fn is_valid_ascii(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Boolean(text(&args[0]).is_ascii()))
}

/// `getBytes(US_ASCII)`: one byte per character, `?` for those outside ASCII.
fn to_ascii(args: &[Value]) -> Result<Value, FunctionError> {
    let encoded = text(&args[0])
        .chars()
        .map(|c| if c.is_ascii() { c as u8 } else { b'?' })
        .collect();
    Ok(Value::Bytes(encoded))
}

/// `new String(bytes, US_ASCII)`: bytes above 127 decode to U+FFFD.
fn from_ascii(args: &[Value]) -> Result<Value, FunctionError> {
    let decoded = bytes("fromAscii", &args[0])?
        .iter()
        .map(|b| {
            if b.is_ascii() {
                char::from(*b)
            } else {
                char::REPLACEMENT_CHARACTER
            }
        })
        .collect::<String>();
    string(decoded)
}

fn normalize(args: &[Value]) -> Result<Value, FunctionError> {
    let s = text(&args[0]);
    let form = args.get(1).map_or(Cow::Borrowed("NFC"), text);
    let normalized: String = match form.as_ref() {
        "NFC" => s.nfc().collect(),
        "NFD" => s.nfd().collect(),
        "NFKC" => s.nfkc().collect(),
        "NFKD" => s.nfkd().collect(),
        other => {
            return Err(FunctionError::invalid(
                "normalize",
                other,
                "not a normalization form (NFC, NFD, NFKC, NFKD)",
            ));
        }
    };
    string(normalized)
}

fn first_line(args: &[Value]) -> Result<Value, FunctionError> {
    let s = text(&args[0]);
    let end = s.find(['\n', '\r']).unwrap_or(s.len());
    string(&s[..end])
}

fn space(args: &[Value]) -> Result<Value, FunctionError> {
    let n = int("space", &args[0])?;
    if n <= 0 {
        return string("");
    }
    check_size("space", n as u64)?;
    string(" ".repeat(n as usize))
}

/// MySQL's `SUBSTRING_INDEX`: the text before the `count`-th delimiter (after the `-count`-th
/// from the end when negative; occurrences may overlap, as `StringUtils.ordinalIndexOf`), the
/// whole text when there are fewer, `""` for a zero count or an empty delimiter.
fn substring_index(args: &[Value]) -> Result<Value, FunctionError> {
    let (s, delimiter) = (text(&args[0]), text(&args[1]));
    let count = int("substringIndex", &args[2])?;
    if count == 0 || delimiter.is_empty() {
        return string("");
    }
    let chars: Vec<char> = s.chars().collect();
    let needle: Vec<char> = delimiter.chars().collect();
    let mut found = None;
    if count > 0 {
        let mut from = 0;
        for _ in 0..count {
            found = index_of(&chars, &needle, from);
            match found {
                Some(i) => from = i + 1,
                None => break,
            }
        }
        return string(match found {
            Some(i) => chars[..i].iter().collect::<String>(),
            None => s.into_owned(),
        });
    }
    // `StringUtils.lastOrdinalIndexOf`: each search ends before the previous match's start.
    let mut end = chars.len();
    for _ in 0..count.unsigned_abs() {
        found = end
            .checked_sub(1)
            .and_then(|from| last_index_of(&chars, &needle, from));
        match found {
            Some(i) => end = i,
            None => break,
        }
    }
    string(match found {
        Some(i) => chars[i + needle.len()..].iter().collect::<String>(),
        None => s.into_owned(),
    })
}

/// SQL's `OVERLAY(s PLACING with FROM start [FOR length])`: `length` characters from the
/// 1-based `start` (both clamped to the text) replaced by `with`; `length` defaults to the
/// length of `with`.
fn overlay(args: &[Value]) -> Result<Value, FunctionError> {
    let (s, with) = (text(&args[0]), text(&args[1]));
    let start = int("overlay", &args[2])?;
    let length = match args.get(3) {
        Some(l) => int("overlay", l)?,
        None => with.chars().count() as i64,
    };
    let chars: Vec<char> = s.chars().collect();
    let len = chars.len() as i64;
    let from = start.saturating_sub(1).clamp(0, len) as usize;
    let to = (from as i64).saturating_add(length.max(0)).min(len) as usize;
    let mut out: String = chars[..from].iter().collect();
    out.push_str(&with);
    out.extend(&chars[to..]);
    string(out)
}

/// Java's `regionMatches(ignoreCase = true)` on one character.
fn chars_equal_ignore_case(a: char, b: char) -> bool {
    a == b || {
        let (ua, ub) = (upper_char(a), upper_char(b));
        ua == ub || lower_char(ua) == lower_char(ub)
    }
}

fn starts_with_ci(args: &[Value]) -> Result<Value, FunctionError> {
    let (s, prefix) = (text(&args[0]), text(&args[1]));
    let matches = s.chars().count() >= prefix.chars().count()
        && s.chars()
            .zip(prefix.chars())
            .all(|(a, b)| chars_equal_ignore_case(a, b));
    Ok(Value::Boolean(matches))
}

fn ends_with_ci(args: &[Value]) -> Result<Value, FunctionError> {
    let (s, suffix) = (text(&args[0]), text(&args[1]));
    let matches = s.chars().count() >= suffix.chars().count()
        && s.chars()
            .rev()
            .zip(suffix.chars().rev())
            .all(|(a, b)| chars_equal_ignore_case(a, b));
    Ok(Value::Boolean(matches))
}

/// SQL's `TRANSLATE(s, from, to)`: each character found in `from` becomes the character at the
/// same position of `to`, or is dropped when `to` is shorter.
fn translate(args: &[Value]) -> Result<Value, FunctionError> {
    let (s, from, to) = (text(&args[0]), text(&args[1]), text(&args[2]));
    let to: Vec<char> = to.chars().collect();
    let translated: String = s
        .chars()
        .filter_map(|c| match from.chars().position(|f| f == c) {
            Some(i) => to.get(i).copied(),
            None => Some(c),
        })
        .collect();
    string(translated)
}

/// How many prefixes or suffixes `prefixes(s, n)` makes: `min(n, length)`; a negative `n` is
/// an error (Java's negative array size).
fn affix_count(function: &'static str, chars: &[char], n: &Value) -> Result<usize, FunctionError> {
    let n = int(function, n)?;
    if n < 0 {
        return Err(FunctionError::invalid(function, n, "negative length"));
    }
    let count = (n as u64).min(chars.len() as u64);
    check_size(function, count.saturating_mul(count) / 2)?;
    Ok(count as usize)
}

/// The first `n` prefixes (`prefix` = true) or suffixes, shortest first, wrapped in `before`
/// and `after`.
fn affixes(
    function: &'static str,
    args: &[Value],
    prefix: bool,
    mark: Option<&Value>,
) -> Result<Value, FunctionError> {
    if args[0].is_null() || args[1].is_null() {
        return Ok(Value::Null);
    }
    let chars: Vec<char> = text(&args[0]).chars().collect();
    let count = affix_count(function, &chars, &args[1])?;
    let mark = mark.filter(|m| !m.is_null()).map(text).unwrap_or_default();
    string_array((1..=count).map(|k| {
        let piece: String = if prefix {
            chars[..k].iter().collect()
        } else {
            chars[chars.len() - k..].iter().collect()
        };
        if prefix {
            format!("{mark}{piece}")
        } else {
            format!("{piece}{mark}")
        }
    }))
}

fn prefixes(args: &[Value]) -> Result<Value, FunctionError> {
    affixes("prefixes", args, true, None)
}

fn suffixes(args: &[Value]) -> Result<Value, FunctionError> {
    affixes("suffixes", args, false, None)
}

/// `prefixesWithPrefix(s, n, prefix)`: a NULL `prefix` means none.
fn prefixes_with_prefix(args: &[Value]) -> Result<Value, FunctionError> {
    affixes("prefixesWithPrefix", args, true, args.get(2))
}

fn suffixes_with_suffix(args: &[Value]) -> Result<Value, FunctionError> {
    affixes("suffixesWithSuffix", args, false, args.get(2))
}

/// Adds the distinct n-grams of `chars` with lengths `min..=max` to `grams` (first-seen order).
fn add_ngrams(
    function: &'static str,
    chars: &[char],
    min: i64,
    max: i64,
    grams: &mut Vec<String>,
    seen: &mut std::collections::HashSet<String>,
) -> Result<(), FunctionError> {
    let mut n = min;
    while n <= max && n <= chars.len() as i64 {
        if n < 0 {
            return Err(FunctionError::invalid(
                function,
                n,
                "negative n-gram length",
            ));
        }
        if n > 0 {
            for window in chars.windows(n as usize) {
                let gram: String = window.iter().collect();
                if seen.insert(gram.clone()) {
                    grams.push(gram);
                }
            }
            let size: u64 = grams.iter().map(|g| g.len() as u64).sum();
            check_size(function, size)?;
        }
        n += 1;
    }
    Ok(())
}

/// `uniqueNgrams(s, n)`: distinct n-grams of exactly `n` characters; `uniqueNgrams(s, min,
/// max)`: of `min` to `max` characters.
fn unique_ngrams(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "uniqueNgrams";
    let chars: Vec<char> = text(&args[0]).chars().collect();
    let (min, max) = match args.get(2) {
        Some(max) => (int(F, &args[1])?, int(F, max)?),
        None => {
            let n = int(F, &args[1])?;
            if n == 0 || n > chars.len() as i64 {
                return string_array(Vec::new());
            }
            (n, n)
        }
    };
    let (mut grams, mut seen) = (Vec::new(), Default::default());
    add_ngrams(F, &chars, min, max, &mut grams, &mut seen)?;
    string_array(grams)
}

/// `uniqueNgramsMV(values, n)` or `(values, min, max)`: the distinct n-grams of all the
/// (non-NULL) values of a multi-value argument.
fn unique_ngrams_mv(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "uniqueNgramsMV";
    let Value::Array(items) = &args[0] else {
        return Err(FunctionError::invalid(F, &args[0], "not a multi-value"));
    };
    let (min, max) = match args.get(2) {
        Some(max) => (int(F, &args[1])?, int(F, max)?),
        None => {
            let n = int(F, &args[1])?;
            if n <= 0 {
                return string_array(Vec::new());
            }
            (n, n)
        }
    };
    let (mut grams, mut seen) = (Vec::new(), Default::default());
    for item in items.iter().filter(|v| !v.is_null()) {
        let chars: Vec<char> = text(item).chars().collect();
        if min > chars.len() as i64 {
            continue;
        }
        add_ngrams(F, &chars, min, max, &mut grams, &mut seen)?;
    }
    string_array(grams)
}

/// The fewest single-character insertions, deletions and substitutions turning one text into
/// the other.
fn levenshtein_distance(args: &[Value]) -> Result<Value, FunctionError> {
    let a: Vec<char> = text(&args[0]).chars().collect();
    let b: Vec<char> = text(&args[1]).chars().collect();
    if (a.len() as u64).saturating_mul(b.len() as u64) > MAX_EDIT_CELLS {
        return Err(FunctionError::invalid(
            "levenshteinDistance",
            &args[0],
            "texts too long to compare",
        ));
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(x != y);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    int_result(previous[b.len()] as i64)
}

/// Commons Codec's American Soundex code (letter + 3 digits) of the text's letters; `""` is
/// `0000`, text without letters has the empty code, a non-English letter is an error.
fn soundex_code(s: &str) -> Result<String, FunctionError> {
    const DIGITS: &[u8; 26] = b"01230120022455012623010202";
    if s.is_empty() {
        return Ok("0000".into());
    }
    let letters: Vec<char> = s
        .chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_uppercase)
        .collect();
    let digit = |c: char| -> Result<u8, FunctionError> {
        match c {
            'A'..='Z' => Ok(DIGITS[(c as u8 - b'A') as usize]),
            _ => Err(FunctionError::invalid(
                "soundex",
                c,
                "letter has no Soundex code",
            )),
        }
    };
    let Some(&first) = letters.first() else {
        return Ok(String::new());
    };
    let mut code = vec![first];
    let mut last = digit(first)?;
    for &c in &letters[1..] {
        if code.len() == 4 {
            break;
        }
        if c == 'H' || c == 'W' {
            continue;
        }
        let d = digit(c)?;
        if d != b'0' && d != last {
            code.push(char::from(d));
        }
        last = d;
    }
    code.resize(4, '0');
    Ok(code.into_iter().collect())
}

fn soundex(args: &[Value]) -> Result<Value, FunctionError> {
    match &args[0] {
        Value::Null => Ok(Value::Null),
        v => string(soundex_code(&text(v))?),
    }
}

/// How many of the 4 Soundex positions agree.
fn difference(args: &[Value]) -> Result<Value, FunctionError> {
    let a: Vec<char> = soundex_code(&text(&args[0]))?.chars().collect();
    let b: Vec<char> = soundex_code(&text(&args[1]))?.chars().collect();
    if a.len() < 4 || b.len() < 4 {
        return Err(FunctionError::invalid(
            "difference",
            if a.len() < 4 { &args[0] } else { &args[1] },
            "no letters to encode",
        ));
    }
    int_result(a.iter().zip(&b).filter(|(x, y)| x == y).count() as i64)
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

    proptest::proptest! {
        /// ASCII text is cut on bytes: the same cut as the character path makes of the same
        /// text with every character shifted out of ASCII.
        #[test]
        fn ascii_substrings_equal_character_substrings(
            text in "[ -~]{0,12}",
            start in -15i64..15,
            end in proptest::option::of(-15i64..15),
        ) {
            let shift = |t: &str, by: i32| -> String {
                t.chars().map(|c| char::from_u32((c as i32 + by) as u32).unwrap()).collect()
            };
            let by_bytes = char_range(&text, start, end);
            let wide = shift(&text, 0x100);
            let by_chars = char_range(&wide, start, end);
            proptest::prop_assert_eq!(by_bytes, shift(by_chars, -0x100));
        }
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

    fn strings(items: &[&str]) -> Value {
        Value::Array(items.iter().map(|t| s(t)).collect())
    }

    fn err(name: &str, args: &[Value]) -> FunctionError {
        lookup(name).unwrap().eval(args).unwrap_err()
    }

    #[test]
    fn split_part_follows_pinot_tests() {
        // StringFunctionsTest.splitPartTestCases: (input, delim, index, limit, want, want with limit).
        let dotted = "org.apache.pinot.common.function";
        for (input, delim, index, limit, want, want_limited) in [
            (dotted, ".", 1, 0, "apache", "apache"),
            (dotted, ".", 1, 1, "apache", "null"),
            (dotted, ".", 1, 2, "apache", "apache.pinot.common.function"),
            (dotted, ".", 5, 6, "null", "null"),
            ("+++++", "+", 0, 100, "", ""),
            ("+++++", "+", 1, 100, "null", "null"),
            (
                "+++++org++apache++",
                "",
                0,
                100,
                "+++++org++apache++",
                "+++++org++apache++",
            ),
            (dotted, ".", -2, 0, "common", "common"),
            (dotted, ".", -1, 1, "function", dotted),
            (dotted, ".", -2, 2, "common", "org"),
            (dotted, ".", -3, 4, "pinot", "apache"),
            ("org++apache++", "+", 2, 100, "", ""),
            ("org++apache++", "+", -1, 100, "", ""),
            ("org++apache++", "+", -3, 100, "org", "org"),
            ("++abc++", "+", -2, 100, "abc", "abc"),
            ("::org::apache::", "::", 2, 100, "", ""),
            ("::::org::::apache", "::", -2, 100, "org", "org"),
            ("", ".", -1, 100, "null", "null"),
            ("hello", "", -1, 100, "hello", "hello"),
            (".", ".", 0, 100, "", ""),
            ("org.apache.pinot", ".", i32::MIN, 100, "null", "null"),
        ] {
            let args = [s(input), s(delim), Value::Int(index)];
            assert_eq!(call("splitPart", &args), s(want), "{input} {index}");
            let args = [s(input), s(delim), Value::Int(limit), Value::Int(index)];
            assert_eq!(
                call("split_part", &args),
                s(want_limited),
                "{input} {index} {limit}"
            );
        }
    }

    #[test]
    fn split_into_arrays() {
        assert_eq!(
            call("split", &[s("a.b..c."), s(".")]),
            strings(&["a", "b", "c", ""])
        );
        assert_eq!(
            call("stringToArray", &[s("a.b.c"), s("."), Value::Int(2)]),
            strings(&["a", "b.c"])
        );
        assert_eq!(call("split", &[s(" a  b "), s("")]), strings(&["a", "b"]));
        assert_eq!(
            call("split", &[s("a b  c"), s(""), Value::Int(2)]),
            strings(&["a", "b  c"])
        );
        assert_eq!(call("split", &[s(""), s(",")]), strings(&[]));
        assert_eq!(call("split", &[Value::Null, s(",")]), Value::Null);
        assert_eq!(
            lookup("split")
                .unwrap()
                .resolve_column(&[
                    super::super::ArgType::of(DataType::String),
                    super::super::ArgType::of(DataType::String)
                ])
                .unwrap(),
            segments::types::ColumnType::mv(DataType::String)
        );
    }

    #[test]
    fn lengths_and_codes() {
        assert_eq!(call("charLength", &[s("héllo")]), Value::Int(5));
        assert_eq!(call("character_length", &[s("ab")]), Value::Int(2));
        assert_eq!(call("octetLength", &[s("héllo")]), Value::Int(6));
        assert_eq!(call("octet_length", &[s("")]), Value::Int(0));
        assert_eq!(call("bitLength", &[s("héllo")]), Value::Int(48));
        for (input, want) in [
            ("A", 65),
            ("a", 97),
            ("0", 48),
            ("hello", 104),
            (" ", 32),
            ("", 0),
        ] {
            assert_eq!(call("ascii", &[s(input)]), Value::Int(want));
        }
        assert_eq!(call("ascii", &[s("😀")]), Value::Int(0xD83D));
        for (input, want) in [
            ("hello", true),
            ("Hello World 123!@#", true),
            ("", true),
            ("héllo", false),
            ("日本語", false),
        ] {
            assert_eq!(call("isValidASCII", &[s(input)]), Value::Boolean(want));
        }
        assert_eq!(call("toAscii", &[s("hé")]), Value::Bytes(vec![b'h', b'?']));
        assert_eq!(
            call("fromAscii", &[Value::Bytes(vec![b'h', 0xff])]),
            s("h\u{FFFD}")
        );
        assert_eq!(call("fromAscii", &[s("6869")]), s("hi"));
        assert!(lookup("fromAscii").unwrap().eval(&[s("zz")]).is_err());
        assert_eq!(call("space", &[Value::Int(3)]), s("   "));
        assert_eq!(call("space", &[Value::Int(-3)]), s(""));
        assert!(matches!(
            err("space", &[Value::Long(1 << 40)]),
            FunctionError::ResultTooLarge { .. }
        ));
    }

    #[test]
    fn case_and_unicode() {
        // StringFunctionsTest.initcapTestCases.
        for (input, want) in [
            ("hello world", "Hello World"),
            ("HeLLo WoRLd", "Hello World"),
            ("hello   world   test", "Hello   World   Test"),
            (" hello world ", " Hello World "),
            ("hello-world", "Hello-world"),
            ("123hello world", "123hello World"),
            ("hello\tworld", "Hello\tWorld"),
            ("hello\rworld", "Hello\rWorld"),
            ("", ""),
            ("SQL is AWESOME", "Sql Is Awesome"),
            ("café résumé", "Café Résumé"),
            ("one,two,three", "One,two,three"),
        ] {
            assert_eq!(call("initcap", &[s(input)]), s(want), "{input}");
        }
        assert_eq!(call("normalize", &[s("e\u{301}")]), s("\u{e9}"));
        assert_eq!(call("normalize", &[s("\u{e9}"), s("NFD")]), s("e\u{301}"));
        assert_eq!(call("normalize", &[s("\u{fb01}"), s("NFKC")]), s("fi"));
        assert!(
            lookup("normalize")
                .unwrap()
                .eval(&[s("a"), s("nfc")])
                .is_err()
        );
        assert_eq!(
            call("startsWithCaseInsensitive", &[s("Hello"), s("hE")]),
            Value::Boolean(true)
        );
        assert_eq!(
            call("startsWithCaseInsensitive", &[s("He"), s("hello")]),
            Value::Boolean(false)
        );
        assert_eq!(
            call("endsWithCaseInsensitive", &[s("Hello"), s("LLO")]),
            Value::Boolean(true)
        );
        assert_eq!(
            call("endsWithCaseInsensitive", &[s("Hello"), s("xLO")]),
            Value::Boolean(false)
        );
    }

    #[test]
    fn pieces_of_text() {
        // StringFunctionsTest.testSubstringIndex.
        for (input, delim, count, want) in [
            ("a.b.c.d", ".", 1, "a"),
            ("a.b.c.d", ".", 2, "a.b"),
            ("a.b.c.d", ".", 10, "a.b.c.d"),
            ("a.b.c.d", ".", -1, "d"),
            ("a.b.c.d", ".", -3, "b.c.d"),
            ("a.b.c.d", ".", -10, "a.b.c.d"),
            ("a.b.c", ".", 0, ""),
            ("a.b.c", "", 1, ""),
            ("abc", ".", -1, "abc"),
            ("a::b::c", "::", 1, "a"),
            ("a::b::c", "::", -1, "c"),
        ] {
            assert_eq!(
                call("substring_index", &[s(input), s(delim), Value::Int(count)]),
                s(want),
                "{input} {count}"
            );
        }
        for (input, want) in [
            ("hello\nworld", "hello"),
            ("", ""),
            ("\nstart", ""),
            ("hello\r\nworld", "hello"),
            ("a\rb\nc", "a"),
        ] {
            assert_eq!(call("firstLine", &[s(input)]), s(want));
        }
        let overlay = |args: &[Value]| call("overlay", args);
        assert_eq!(
            overlay(&[s("hello world"), s("there"), Value::Int(7)]),
            s("hello there")
        );
        assert_eq!(
            overlay(&[s("abcdef"), s("XY"), Value::Int(3), Value::Int(0)]),
            s("abXYcdef")
        );
        assert_eq!(
            overlay(&[s("abcdef"), s("XY"), Value::Int(3), Value::Int(4)]),
            s("abXY")
        );
        assert_eq!(
            overlay(&[s("abc"), s("X"), Value::Int(-5), Value::Int(1)]),
            s("Xbc")
        );
        assert_eq!(overlay(&[s("abc"), s("X"), Value::Int(10)]), s("abcX"));
        assert_eq!(
            call("translate", &[s("hello"), s("aeiou"), s("AEIOU")]),
            s("hEllO")
        );
        assert_eq!(call("translate", &[s("abc"), s("abc"), s("xy")]), s("xy"));
        assert_eq!(
            call("translate", &[s("abcdef"), s("ace"), s("XY")]),
            s("XbYdf")
        );
        assert_eq!(call("left", &[s("hello"), Value::Int(2)]), s("he"));
        assert_eq!(call("right", &[s("hello"), Value::Int(2)]), s("lo"));
    }

    #[test]
    fn prefixes_suffixes_and_ngrams() {
        // StringFunctionsTest.prefixAndSuffixTestCases.
        let n = Value::Int;
        assert_eq!(
            call("prefixes", &[s("abcde"), n(3)]),
            strings(&["a", "ab", "abc"])
        );
        assert_eq!(
            call("suffixes", &[s("abcde"), n(3)]),
            strings(&["e", "de", "cde"])
        );
        assert_eq!(
            call("prefixesWithPrefix", &[s("abcde"), n(3), s("^")]),
            strings(&["^a", "^ab", "^abc"])
        );
        assert_eq!(
            call("suffixesWithSuffix", &[s("abcde"), n(9), s("$")]),
            strings(&["e$", "de$", "cde$", "bcde$", "abcde$"])
        );
        assert_eq!(call("prefixes", &[s("abcde"), n(0)]), strings(&[]));
        assert_eq!(call("suffixes", &[s(""), n(9)]), strings(&[]));
        assert_eq!(
            call("prefixesWithPrefix", &[s("ab"), n(5), Value::Null]),
            strings(&["a", "ab"])
        );
        assert_eq!(
            call("suffixesWithSuffix", &[Value::Null, n(5), s("$")]),
            Value::Null
        );
        assert!(lookup("prefixes").unwrap().eval(&[s("ab"), n(-1)]).is_err());
        assert_eq!(
            call("uniqueNgrams", &[s("abab"), n(2)]),
            strings(&["ab", "ba"])
        );
        assert_eq!(call("generateUniqueNgrams", &[s("ab"), n(3)]), strings(&[]));
        assert_eq!(
            call("uniqueNgrams", &[s("aab"), n(0), n(2)]),
            strings(&["a", "b", "aa", "ab"])
        );
        assert!(
            lookup("uniqueNgrams")
                .unwrap()
                .eval(&[s("ab"), n(-1)])
                .is_err()
        );
        let mv = Value::Array(vec![s("abc"), Value::Null, s("bcd"), s("x")]);
        assert_eq!(
            call("uniqueNgramsMV", &[mv.clone(), n(2)]),
            strings(&["ab", "bc", "cd"])
        );
        assert_eq!(
            call("generateUniqueNgramsMV", &[mv.clone(), n(1), n(2)]),
            strings(&["a", "b", "c", "ab", "bc", "d", "cd", "x"])
        );
        assert_eq!(call("uniqueNgramsMV", &[mv, n(0)]), strings(&[]));
        assert!(
            lookup("uniqueNgramsMV")
                .unwrap()
                .eval(&[s("abc"), n(2)])
                .is_err()
        );
    }

    #[test]
    fn distances_and_soundex() {
        // StringFunctionsTest.levenshteinDistanceTestCases.
        for (a, b, want) in [
            ("", "", 0),
            ("a", "", 1),
            ("kitten", "sitting", 3),
            ("saturday", "sunday", 3),
            ("intention", "execution", 5),
            ("algorithm", "altruistic", 6),
            ("programming", "grammar", 6),
            ("WORLD", "world", 5),
        ] {
            assert_eq!(
                call("levenshteinDistance", &[s(a), s(b)]),
                Value::Int(want),
                "{a} {b}"
            );
        }
        for (input, want) in [
            ("Robert", "R163"),
            ("Rupert", "R163"),
            ("Ashcraft", "A261"),
            ("", "0000"),
            ("Tymczak", "T522"),
            ("Pfister", "P236"),
            ("123", ""),
        ] {
            assert_eq!(call("soundex", &[s(input)]), s(want), "{input}");
        }
        assert_eq!(call("soundex", &[Value::Null]), Value::Null);
        assert!(lookup("soundex").unwrap().eval(&[s("José")]).is_err());
        for (a, b, want) in [
            ("Robert", "Rupert", 4),
            ("Smith", "Johnson", 1),
            ("Ann", "Ann", 4),
            ("", "", 4),
            ("Robert", "", 0),
        ] {
            assert_eq!(
                call("difference", &[s(a), s(b)]),
                Value::Int(want),
                "{a} {b}"
            );
        }
        assert!(
            lookup("difference")
                .unwrap()
                .eval(&[s("123"), s("a")])
                .is_err()
        );
        assert_eq!(call("difference", &[s("a"), Value::Null]), Value::Null);
    }
}
