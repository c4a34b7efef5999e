//! Pinot's two CLP transform functions over a CLP-encoded column group, and the parts of the CLP
//! library (y-scope/clp) they run on.
//!
//! Pinot's CLP record extractor (`pinot-plugins/pinot-input-format/pinot-clp-log/…/
//! CLPLogRecordExtractor.java`) stores a log field `F` as three ordinary columns: `F_logtype`
//! (STRING: the static text, with the byte `0x11` where an integer variable was, `0x12` where a
//! dictionary variable was and `0x13` where a float variable was), `F_dictionaryVars` (STRING MV:
//! the dictionary variables, in order) and `F_encodedVars` (LONG MV: the encoded integers and
//! floats, in order). The logtype holds the UTF-8 bytes of the static text one character per
//! byte (ISO-8859-1), as clp-ffi-java's `EncodedMessage.getLogTypeAsString` makes it.
//!
//! * `clpDecode(F_logtype, F_dictionaryVars, F_encodedVars[, defaultValue])` → STRING
//!   (`pinot-core/…/transform/function/CLPDecodeTransformFunction.java`): the original text. A
//!   NULL logtype gives NULL; a message that cannot be decoded (fewer variables than
//!   placeholders, a corrupt encoded float, a NULL dictionary variable) gives `defaultValue`,
//!   by default the text `null` (Pinot's `DEFAULT_DIMENSION_NULL_VALUE_OF_STRING`); a NULL
//!   literal default gives NULL. A NULL variables array counts as an empty one.
//! * `clpEncodedVarsMatch(F_logtype, F_encodedVars, 'wildcardQuery', subqueryIndex)` → BOOLEAN
//!   (`ClpEncodedVarsMatchTransformFunction.java`), the building block `clpMatch` (Pinot's
//!   `ClpRewriter`) emits: the query is split into subqueries as clp-ffi-java's
//!   `EightByteClpWildcardQueryEncoder.encode` does; subquery `subqueryIndex` must have wildcard
//!   queries for encoded variables. A row matches when, walking its logtype's integer and float
//!   placeholders in order, each of those wildcard queries matches a later variable of its type
//!   than the one before (clp's `wildcard_match_encoded_vars`). The query and index must be
//!   literals; a bad one is an error when the query is planned.
//!
//! Sources (clp-ffi-java 0.4.7, which Pinot pins, builds clp at commit `2b884bd`):
//! `components/core/src/ffi/encoding_methods.{hpp,inc}` (float and integer encoding,
//! `decode_message`, `wildcard_match_encoded_vars`), `ffi/search/{query_methods,
//! CompositeWildcardToken,WildcardToken,QueryWildcard,ExactVariableToken,Subquery}.cpp` (the
//! subquery generator; its README explains the interpretations), `ir/parsing.cpp` (delimiters,
//! `get_bounds_of_next_var`), `string_utils.cpp` (`clean_up_wildcard_search_string`,
//! `wildcard_match_unsafe_case_sensitive`); clp-ffi-java `Java_MessageDecoder.cpp`,
//! `Java_EightByteClpWildcardQueryEncoder.cpp`, `AbstractClpEncodedSubquery.java`.
//!
//! What is exact and what is not:
//!
//! * The float layout, decoding, the subquery generator (tokenizing, every interpretation of
//!   `*`/`?`, the order of generation, deduplication — including clp's quirk that a token whose
//!   wildcards have all been tried keeps its last tokenization while the next token advances)
//!   and the wildcard matcher are ports of clp's code and give its answers.
//! * A `\` in a logtype is copied as it is: clp's `ffi::decode_message` (the one clp-ffi-java
//!   calls) has no escape character, and its encoder refuses messages that contain a
//!   placeholder byte instead of escaping them. (clp's IR streams escape with `\`; CLP columns do
//!   not.)
//! * Text conversions follow Java: the logtype and the query are read as ISO-8859-1 (a
//!   character above U+00FF becomes `?`), the decoded bytes as UTF-8 with U+FFFD for invalid
//!   sequences.
//! * Pinot zeroes a whole block of `clpEncodedVarsMatch` results when one row has fewer encoded
//!   variables than placeholders or a corrupt float; here only that row is false. A NULL
//!   logtype or variables array is false (Pinot's native code treats a missing array as "no
//!   match").
//! * Pinot requires column names for the column arguments; any expression of the right kind is
//!   accepted here. Pinot fails with an index-out-of-bounds error when `subqueryIndex` equals the
//!   number of subqueries; here that is the same clear error as any other index out of range.
//! * A query with more than [`MAX_INTERPRETATIONS`] interpretations to try is refused (Pinot
//!   would enumerate them all).

use super::coerce::{int, text};
use super::def::{ArgType, Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::types::{DataType, Value};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

const DECODE: &str = "clpDecode";
const MATCH: &str = "clpEncodedVarsMatch";

/// The logtype placeholder of an integer variable.
const INTEGER_VAR: u8 = 0x11;
/// The logtype placeholder of a dictionary variable.
const DICTIONARY_VAR: u8 = 0x12;
/// The logtype placeholder of a float variable.
const FLOAT_VAR: u8 = 0x13;

/// The most interpretations of a wildcard query the subquery generator tries.
pub(crate) const MAX_INTERPRETATIONS: usize = 100_000;

/// The CLP functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new(
        DECODE,
        Arity::Range(3, 4),
        &[Param::Text, Param::Array, Param::NumberArray, Param::Text],
        Returns::Infer(decode_type),
        clp_decode,
    )
    .handles_nulls(),
    FunctionDef::new(
        MATCH,
        Arity::Exact(4),
        &[Param::Text, Param::NumberArray, Param::Text, Param::Number],
        Returns::Infer(match_type),
        clp_encoded_vars_match,
    )
    .handles_nulls(),
];

fn needs_literal(
    function: &'static str,
    args: &[ArgType],
    position: usize,
) -> Result<(), FunctionError> {
    match args.get(position) {
        Some(arg) if arg.literal.is_none() => Err(FunctionError::NeedsLiteral {
            function,
            position: position + 1,
        }),
        _ => Ok(()),
    }
}

fn decode_type(args: &[ArgType]) -> Result<DataType, FunctionError> {
    needs_literal(DECODE, args, 3)?;
    Ok(DataType::String)
}

/// The query and index must be literals, and the subquery must exist and have wildcard queries
/// for encoded variables (checked here, when the query is planned, as Pinot's `init`).
fn match_type(args: &[ArgType]) -> Result<DataType, FunctionError> {
    needs_literal(MATCH, args, 2)?;
    needs_literal(MATCH, args, 3)?;
    let (Some(query), Some(index)) = (args[2].literal, args[3].literal) else {
        return Err(FunctionError::NeedsLiteral {
            function: MATCH,
            position: 3,
        });
    };
    let index = subquery_index(query, index).map_err(|e| match e {
        FunctionError::InvalidArgument { value, reason, .. } => FunctionError::InvalidLiteral {
            function: MATCH,
            value,
            reason,
        },
        other => other,
    })?;
    compiled(&text(query), index)
        .map_err(|reason| FunctionError::invalid_literal(MATCH, text(query), reason))?;
    Ok(DataType::Boolean)
}

// ------------------------------------------------------------------------------------------
// The kernels.

/// `clpDecode(logtype, dictionaryVars, encodedVars[, defaultValue])`.
fn clp_decode(args: &[Value]) -> Result<Value, FunctionError> {
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    if !matches!(args[1], Value::Array(_) | Value::Null) {
        return Err(FunctionError::invalid(
            DECODE,
            &args[1],
            "not a multi-value",
        ));
    }
    let logtype = latin1(&text(&args[0]));
    let encoded = longs(DECODE, &args[2])?;
    let decoded = dictionary_vars(&args[1])
        .and_then(|dictionary| decode_message(&logtype, &dictionary, &encoded));
    Ok(match decoded {
        Ok(bytes) => Value::String(String::from_utf8_lossy(&bytes).into_owned()),
        Err(_) => match args.get(3) {
            None => Value::String("null".into()),
            Some(Value::Null) => Value::Null,
            Some(default) => Value::String(text(default).into_owned()),
        },
    })
}

/// `clpEncodedVarsMatch(logtype, encodedVars, wildcardQuery, subqueryIndex)`.
fn clp_encoded_vars_match(args: &[Value]) -> Result<Value, FunctionError> {
    let index = subquery_index(&args[2], &args[3])?;
    let query = text(&args[2]);
    let queries = compiled(&query, index).map_err(|r| FunctionError::invalid(MATCH, &query, r))?;
    if args[0].is_null() || args[1].is_null() {
        return Ok(Value::Boolean(false));
    }
    let encoded = longs(MATCH, &args[1])?;
    let logtype = text(&args[0]);
    let matched = match_encoded_vars(logtype.as_bytes(), &encoded, &queries).unwrap_or(false);
    Ok(Value::Boolean(matched))
}

/// The subquery index argument (the query's NULL is refused here too).
fn subquery_index(query: &Value, index: &Value) -> Result<i64, FunctionError> {
    if query.is_null() || index.is_null() {
        return Err(FunctionError::invalid(
            MATCH,
            "NULL",
            "the wildcard query and the subquery index must not be NULL",
        ));
    }
    int(MATCH, index)
}

/// A multi-value argument's elements as LONGs; NULL is an empty array.
fn longs(function: &'static str, v: &Value) -> Result<Vec<i64>, FunctionError> {
    match v {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::Null => Err(FunctionError::invalid(
                    function,
                    v,
                    "an encoded variable is NULL",
                )),
                other => int(function, other),
            })
            .collect(),
        other => Err(FunctionError::invalid(function, other, "not a multi-value")),
    }
}

/// The dictionary variables' texts (of an array, or NULL: none); a NULL element is a decode
/// failure (Java's flattening of the array fails on it).
fn dictionary_vars(v: &Value) -> Result<Vec<Cow<'_, str>>, String> {
    let Value::Array(items) = v else {
        return Ok(Vec::new());
    };
    items
        .iter()
        .map(|item| match item {
            Value::Null => Err("a dictionary variable is NULL".to_string()),
            other => Ok(text(other)),
        })
        .collect()
}

/// Java's `String.getBytes(ISO_8859_1)`: one byte per character, `?` for those above U+00FF.
fn latin1(s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect()
}

// ------------------------------------------------------------------------------------------
// Variables and their encodings (clp `ir/parsing.cpp`, `ffi/encoding_methods.inc`).

/// The digits field of an eight-byte encoded float.
const FLOAT_DIGITS_MASK: u64 = (1 << 54) - 1;
/// The largest digits value with 16 decimal digits.
const MAX_FLOAT_DIGITS: u64 = 9_999_999_999_999_999;
/// The most decimal digits an encoded float holds.
const MAX_FLOAT_DIGIT_COUNT: usize = 16;

/// Everything except `+-.0-9A-Z\_a-z` delimits tokens (bytes above 0x7F too: `signed char`).
fn is_delim(c: u8) -> bool {
    !(c == b'+' || c == b'-' || c == b'.' || c.is_ascii_alphanumeric() || c == b'\\' || c == b'_')
}

fn is_wildcard(c: u8) -> bool {
    c == b'*' || c == b'?'
}

fn could_be_multi_digit_hex(s: &[u8]) -> bool {
    s.len() >= 2 && s.iter().all(u8::is_ascii_hexdigit)
}

/// The bounds of the next variable at or after `from` (clp's `get_bounds_of_next_var`): a token
/// between delimiters with a decimal digit, or preceded by `=` with a letter, or of two or more
/// hex digits.
fn next_var_bounds(s: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut end = from;
    while end < s.len() {
        let mut begin = end;
        while begin < s.len() && is_delim(s[begin]) {
            begin += 1;
        }
        if begin == s.len() {
            return None;
        }
        let (mut digit, mut alphabet) = (false, false);
        end = begin;
        while end < s.len() {
            let c = s[end];
            if c.is_ascii_digit() {
                digit = true;
            } else if c.is_ascii_alphabetic() {
                alphabet = true;
            } else if is_delim(c) {
                break;
            }
            end += 1;
        }
        if digit
            || (begin > 0 && s[begin - 1] == b'=' && alphabet)
            || could_be_multi_digit_hex(&s[begin..end])
        {
            return Some((begin, end));
        }
    }
    None
}

/// Whether all of `s` is one variable (clp's `ir::is_var`).
fn is_var(s: &[u8]) -> bool {
    next_var_bounds(s, 0) == Some((0, s.len()))
}

/// The eight-byte encoding of a float's parts, from the most significant bit: the sign, one
/// unused bit, 54 bits of digits (the decimal digits without the point, as an integer), 4 bits of
/// the digit count minus 1, 4 bits of the point's position from the right minus 1.
fn encode_float_properties(negative: bool, digits: u64, num_digits: usize, point: usize) -> i64 {
    let mut bits = u64::from(negative) << 55;
    bits |= digits & FLOAT_DIGITS_MASK;
    bits = (bits << 4) | ((num_digits as u64).wrapping_sub(1) & 0xF);
    bits = (bits << 4) | ((point as u64).wrapping_sub(1) & 0xF);
    bits as i64
}

/// `s` as an encoded float (clp's `encode_float_string`): an optional `-`, at most 16 digits and
/// one `.` that is not last; `None` for anything else.
fn encode_float(s: &[u8]) -> Option<i64> {
    let negative = s.first() == Some(&b'-');
    let start = usize::from(negative);
    if s.is_empty() || s.len() > MAX_FLOAT_DIGIT_COUNT + 1 + start {
        return None;
    }
    let (mut digits, mut num_digits, mut point) = (0u64, 0usize, None);
    for (i, &c) in s.iter().enumerate().skip(start) {
        if c.is_ascii_digit() {
            digits = digits * 10 + u64::from(c - b'0');
            num_digits += 1;
        } else if c == b'.' && point.is_none() {
            point = Some(s.len() - 1 - i);
        } else {
            return None;
        }
    }
    match point {
        Some(point) if point > 0 && num_digits > 0 => {
            Some(encode_float_properties(negative, digits, num_digits, point))
        }
        _ => None,
    }
}

/// An encoded float's text (clp's `decode_float_var`): the digits left-padded with zeros to
/// the digit count, the point inserted, the sign in front.
fn decode_float(encoded: i64) -> Result<String, &'static str> {
    let bits = encoded as u64;
    let point = (bits & 0xF) as usize + 1;
    let num_digits = ((bits >> 4) & 0xF) as usize + 1;
    let digits = (bits >> 8) & FLOAT_DIGITS_MASK;
    if digits > MAX_FLOAT_DIGITS {
        return Err("digits in encoded float are larger than max representable value");
    }
    if num_digits < point {
        return Err("invalid decimal-point position in encoded float");
    }
    let digits = if digits == 0 {
        String::new()
    } else {
        digits.to_string()
    };
    if digits.len() > num_digits {
        return Err("encoded number of digits doesn't match encoded digits in encoded float");
    }
    let padded = format!("{digits:0>num_digits$}");
    let split = num_digits - point;
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    Ok(format!("{sign}{}.{}", &padded[..split], &padded[split..]))
}

/// `s` as an encoded integer (clp's `encode_integer_string`): a 64-bit decimal integer without
/// `+`, zero padding or `-0`.
fn encode_integer(s: &[u8]) -> Option<i64> {
    match s {
        [] => return None,
        [b'-', rest @ ..] if !matches!(rest.first(), Some(b'1'..=b'9')) => return None,
        [b'-', ..] => {}
        [first, rest @ ..] if !first.is_ascii_digit() || (*first == b'0' && !rest.is_empty()) => {
            return None;
        }
        _ => {}
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

/// The placeholder clp's encoder gives a variable's text.
fn exact_placeholder(s: &[u8]) -> u8 {
    if encode_float(s).is_some() {
        FLOAT_VAR
    } else if encode_integer(s).is_some() {
        INTEGER_VAR
    } else {
        DICTIONARY_VAR
    }
}

/// clp's `ffi::decode_message`: the logtype's bytes with each placeholder replaced by its
/// variable. Bytes other than placeholders, `\` included, are copied as they are.
fn decode_message(
    logtype: &[u8],
    dictionary: &[Cow<'_, str>],
    encoded: &[i64],
) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(logtype.len() + 16 * encoded.len());
    let (mut next_dictionary, mut next_encoded) = (dictionary.iter(), encoded.iter());
    let too_few_encoded = || {
        "there are fewer encoded variables than encoded variable placeholders in the logtype"
            .to_string()
    };
    for &c in logtype {
        match c {
            INTEGER_VAR => {
                let v = next_encoded.next().ok_or_else(too_few_encoded)?;
                out.extend_from_slice(v.to_string().as_bytes());
            }
            FLOAT_VAR => {
                let v = next_encoded.next().ok_or_else(too_few_encoded)?;
                out.extend_from_slice(decode_float(*v)?.as_bytes());
            }
            DICTIONARY_VAR => {
                let v = next_dictionary.next().ok_or_else(|| {
                    "there are fewer dictionary variables than dictionary variable placeholders \
                     in the logtype"
                        .to_string()
                })?;
                out.extend_from_slice(v.as_bytes());
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

// ------------------------------------------------------------------------------------------
// Wildcard matching (clp `string_utils.cpp`).

/// clp's `clean_up_wildcard_search_string`: runs of `*` become one, escapes are kept only
/// before a wildcard or `\`, a dangling `\` is dropped.
fn clean_up_wildcard_query(query: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(query.len());
    let mut escaped = false;
    let mut i = 0;
    while i < query.len() {
        let c = query[i];
        if escaped {
            escaped = false;
            if is_wildcard(c) || c == b'\\' {
                out.push(b'\\');
            }
            out.push(c);
            i += 1;
        } else if c == b'*' {
            out.push(c);
            while i < query.len() && query[i] == b'*' {
                i += 1;
            }
        } else {
            if c == b'\\' {
                escaped = true;
            } else {
                out.push(c);
            }
            i += 1;
        }
    }
    out
}

/// clp's `wildcard_match_unsafe_case_sensitive`: whether `tame` matches `wild` (`*` any run,
/// `?` any byte, `\` escapes), for a cleaned-up `wild`. Its quirk is kept: after the first
/// escape, a `?` only matches itself.
fn wildcard_match(tame: &[u8], wild: &[u8]) -> bool {
    if wild.is_empty() {
        return tame.is_empty();
    }
    if tame.is_empty() {
        return wild == b"*";
    }
    // Moves `t` to the next byte of tame equal to wild[w] (`?` matches where `t` is), and
    // bookmarks it.
    let advance = |t: &mut usize, bookmark: &mut usize, w: &mut usize| -> bool {
        let Some(&first) = wild.get(*w) else {
            return false;
        };
        if first != b'?' {
            let mut target = first;
            if target == b'\\' {
                *w += 1;
                let Some(&escaped) = wild.get(*w) else {
                    return false;
                };
                target = escaped;
            }
            loop {
                match tame.get(*t) {
                    None => return false,
                    Some(&c) if c == target => break,
                    Some(_) => *t += 1,
                }
            }
        }
        *bookmark = *t;
        true
    };
    let (mut t, mut w) = (0usize, 0usize);
    let (mut tame_bookmark, mut wild_bookmark) = (0usize, None::<usize>);
    let mut escaped = false;
    loop {
        let Some(&c) = wild.get(w) else {
            return false;
        };
        if c == b'*' {
            w += 1;
            if w == wild.len() {
                return true;
            }
            wild_bookmark = Some(w);
            if !advance(&mut t, &mut tame_bookmark, &mut w) {
                return false;
            }
        } else {
            let mut c = c;
            if c == b'\\' {
                escaped = true;
                w += 1;
                let Some(&e) = wild.get(w) else {
                    return false;
                };
                c = e;
            }
            let Some(&tc) = tame.get(t) else {
                return false;
            };
            if !((!escaped && c == b'?') || tc == c) {
                let Some(bookmark) = wild_bookmark else {
                    return false;
                };
                w = bookmark;
                t = tame_bookmark + 1;
                if !advance(&mut t, &mut tame_bookmark, &mut w) {
                    return false;
                }
            }
        }
        t += 1;
        w += 1;
        if t >= tame.len() {
            return w == wild.len() || (wild.get(w) == Some(&b'*') && w + 1 == wild.len());
        }
        if w == wild.len() {
            let Some(bookmark) = wild_bookmark else {
                return false;
            };
            w = bookmark;
            t = tame_bookmark + 1;
            if !advance(&mut t, &mut tame_bookmark, &mut w) {
                return false;
            }
        }
    }
}

// ------------------------------------------------------------------------------------------
// The wildcard query encoder (clp `ffi/search/*`): a query's subqueries.

/// What a wildcard token is taken for in one interpretation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum TokenKind {
    StaticText,
    Integer,
    Float,
    Dictionary,
}

/// A variable of one subquery, by its bounds in the cleaned query: an exact variable, or a
/// wildcard token with the kind it is taken for (never static text).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum QueryVar {
    Exact {
        begin: usize,
        end: usize,
    },
    Wildcard {
        begin: usize,
        end: usize,
        kind: TokenKind,
    },
}

/// One interpretation of a wildcard query: a logtype query and its variables.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Subquery {
    logtype: Vec<u8>,
    vars: Vec<QueryVar>,
}

/// A wildcard in a composite token: index 0 of its interpretations is "may match delimiters",
/// index 1 (absent for a `*` at either end of the token) "matches no delimiter".
struct QueryWildcard {
    star: bool,
    pos: usize,
    interpretations: usize,
    current: usize,
}

impl QueryWildcard {
    fn matches_delimiters(&self) -> bool {
        self.current == 0
    }

    /// The next interpretation; false (back at the first) after the last.
    fn advance(&mut self) -> bool {
        self.current += 1;
        if self.current < self.interpretations {
            return true;
        }
        self.current = 0;
        false
    }
}

/// clp's `WildcardToken`: a token with a wildcard and the kinds it could be, in clp's order.
struct WildcardToken {
    begin: usize,
    end: usize,
    prefix_star: bool,
    suffix_star: bool,
    kinds: Vec<TokenKind>,
    current: usize,
}

impl WildcardToken {
    fn new(q: &[u8], begin: usize, end: usize) -> WildcardToken {
        let token = &q[begin..end];
        let mut kinds = Vec::with_capacity(4);
        if could_be_number(token, false) {
            kinds.push(TokenKind::Integer);
        }
        if could_be_number(token, true) {
            kinds.push(TokenKind::Float);
        }
        if could_be_static_text(q, begin, end) {
            kinds.push(TokenKind::StaticText);
        }
        kinds.push(TokenKind::Dictionary);
        WildcardToken {
            begin,
            end,
            prefix_star: token.first() == Some(&b'*'),
            suffix_star: token.last() == Some(&b'*'),
            kinds,
            current: 0,
        }
    }

    fn kind(&self) -> TokenKind {
        self.kinds[self.current]
    }

    fn advance(&mut self) -> bool {
        self.current += 1;
        if self.current < self.kinds.len() {
            return true;
        }
        self.current = 0;
        false
    }

    /// Appends the token to the logtype query (a suffix `*` is left to the next token or the
    /// caller); true when it is a variable.
    fn add_to_logtype(&self, q: &[u8], logtype: &mut Vec<u8>) -> bool {
        let placeholder = match self.kind() {
            TokenKind::StaticText => {
                let end = if self.suffix_star {
                    self.end - 1
                } else {
                    self.end
                };
                logtype.extend_from_slice(&q[self.begin..end]);
                return false;
            }
            TokenKind::Integer => INTEGER_VAR,
            TokenKind::Float => FLOAT_VAR,
            TokenKind::Dictionary => DICTIONARY_VAR,
        };
        if self.prefix_star {
            logtype.push(b'*');
        }
        logtype.push(placeholder);
        true
    }
}

/// clp's `could_be_int_var` / `could_be_float_var`: only digits (at most 19, or 16 for a
/// float), wildcards, one `-` and (for a float) one `.`.
fn could_be_number(token: &[u8], float: bool) -> bool {
    let max_digits = if float { MAX_FLOAT_DIGIT_COUNT } else { 19 };
    let (mut points, mut minus, mut digits) = (0, 0, 0);
    for &c in token {
        match c {
            b'.' if float => points += 1,
            b'-' => minus += 1,
            b'0'..=b'9' => digits += 1,
            b'*' | b'?' => {}
            _ => return false,
        }
        if points > 1 || minus > 1 || digits > max_digits {
            return false;
        }
    }
    true
}

/// clp's `could_be_static_text`: no unescaped digit, and not `=?…letter…`.
fn could_be_static_text(q: &[u8], begin: usize, end: usize) -> bool {
    let (mut escaped, mut alphabet) = (false, false);
    for &c in &q[begin..end] {
        if escaped {
            escaped = false;
        } else if c == b'\\' {
            escaped = true;
        } else if c.is_ascii_digit() {
            return false;
        } else if c.is_ascii_alphabetic() {
            alphabet = true;
        }
    }
    !(begin > 0 && q[begin - 1] == b'=' && q.get(begin) == Some(&b'?') && alphabet)
}

/// A part of a composite token under its current wildcard interpretation.
enum Piece {
    Exact { begin: usize, end: usize },
    Wildcard(WildcardToken),
}

/// clp's `CompositeWildcardToken`: a token (between delimiters that are not wildcards) with a
/// wildcard, split into pieces by the wildcards taken to match delimiters.
struct CompositeToken {
    begin: usize,
    end: usize,
    wildcards: Vec<QueryWildcard>,
    pieces: Vec<Piece>,
}

impl CompositeToken {
    fn new(q: &[u8], begin: usize, end: usize) -> Result<CompositeToken, String> {
        let mut wildcards = Vec::new();
        let mut escaped = false;
        for (pos, &c) in q.iter().enumerate().take(end).skip(begin) {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if is_wildcard(c) {
                let star = c == b'*';
                let boundary = pos == begin || pos == end - 1;
                wildcards.push(QueryWildcard {
                    star,
                    pos,
                    interpretations: if star && boundary { 1 } else { 2 },
                    current: 0,
                });
            }
        }
        if wildcards.is_empty() {
            return Err("a wildcard token without a wildcard".into());
        }
        let mut token = CompositeToken {
            begin,
            end,
            wildcards,
            pieces: Vec::new(),
        };
        token.tokenize(q);
        Ok(token)
    }

    /// Splits the token at each wildcard taken to match delimiters; a `*` stays attached to
    /// both sides (clp's `tokenize_into_wildcard_variable_tokens`).
    fn tokenize(&mut self, q: &[u8]) {
        self.pieces.clear();
        let mut last: Option<&QueryWildcard> = None;
        let mut wildcard_in_piece = false;
        for w in &self.wildcards {
            if !w.matches_delimiters() {
                wildcard_in_piece = true;
                continue;
            }
            if w.pos == self.begin {
                last = Some(w);
                continue;
            }
            let piece_begin = match last {
                None => self.begin,
                Some(l) if l.star => {
                    wildcard_in_piece = true;
                    l.pos
                }
                Some(l) => l.pos + 1,
            };
            let piece_end = if w.star {
                wildcard_in_piece = true;
                w.pos + 1
            } else {
                w.pos
            };
            push_piece(
                &mut self.pieces,
                q,
                piece_begin,
                piece_end,
                wildcard_in_piece,
            );
            last = Some(w);
            wildcard_in_piece = false;
        }
        match last {
            None => self
                .pieces
                .push(Piece::Wildcard(WildcardToken::new(q, self.begin, self.end))),
            Some(l) if l.pos + 1 < self.end => {
                let piece_begin = if l.star {
                    wildcard_in_piece = true;
                    l.pos
                } else {
                    l.pos + 1
                };
                push_piece(
                    &mut self.pieces,
                    q,
                    piece_begin,
                    self.end,
                    wildcard_in_piece,
                );
            }
            Some(_) => {}
        }
    }

    /// The next interpretation: first of the pieces' kinds, then of the wildcards (like a
    /// counter, least significant first); false when all are back at the first. As in clp, the
    /// pieces are then left as the last tokenization made them.
    fn advance(&mut self, q: &[u8]) -> bool {
        for piece in &mut self.pieces {
            if let Piece::Wildcard(w) = piece
                && w.advance()
            {
                return true;
            }
        }
        if self.wildcards.iter_mut().any(QueryWildcard::advance) {
            self.tokenize(q);
            return true;
        }
        false
    }

    /// Appends the token to the logtype query and its variables (clp's `add_to_query`).
    fn add_to_query(&self, q: &[u8], logtype: &mut Vec<u8>, vars: &mut Vec<QueryVar>) {
        let mut constant_begin = self.begin;
        for piece in &self.pieces {
            let (begin, end) = match piece {
                Piece::Exact { begin, end } => (*begin, *end),
                Piece::Wildcard(w) => (w.begin, w.end),
            };
            if begin > constant_begin {
                logtype.extend_from_slice(&q[constant_begin..begin]);
            }
            match piece {
                Piece::Exact { begin, end } => {
                    logtype.push(exact_placeholder(&q[*begin..*end]));
                    vars.push(QueryVar::Exact {
                        begin: *begin,
                        end: *end,
                    });
                }
                Piece::Wildcard(w) => {
                    if w.add_to_logtype(q, logtype) {
                        vars.push(QueryVar::Wildcard {
                            begin: w.begin,
                            end: w.end,
                            kind: w.kind(),
                        });
                    }
                }
            }
            constant_begin = end;
        }
        if let Some(Piece::Wildcard(w)) = self.pieces.last()
            && w.suffix_star
        {
            logtype.push(b'*');
        }
        if constant_begin < self.end {
            logtype.extend_from_slice(&q[constant_begin..self.end]);
        }
    }
}

/// clp's `try_add_wildcard_variable`: a piece with a wildcard, or a variable without one.
fn push_piece(pieces: &mut Vec<Piece>, q: &[u8], begin: usize, end: usize, wildcard: bool) {
    if wildcard {
        pieces.push(Piece::Wildcard(WildcardToken::new(q, begin, end)));
    } else if is_var(&q[begin..end]) {
        pieces.push(Piece::Exact { begin, end });
    }
}

/// A token of the query: an exact variable, or a token with wildcards.
enum Token {
    Exact { begin: usize, end: usize },
    Composite(CompositeToken),
}

/// clp's `tokenize_query`: exact variables (as the encoder finds them) and tokens with a
/// wildcard (longer than a lone wildcard).
fn tokenize_query(q: &[u8]) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut end = 0;
    loop {
        let mut wildcard = false;
        let Some(begin) = find_wildcard_or_non_delimiter(q, end, &mut wildcard) else {
            break;
        };
        let (mut digit, mut alphabet) = (false, false);
        end = find_delimiter(q, begin, &mut alphabet, &mut digit, &mut wildcard);
        if end <= begin {
            // Not reachable (a token has at least one byte); kept so a bad input cannot loop.
            end = begin + 1;
            continue;
        }
        if wildcard {
            if end - begin > 1 {
                tokens.push(Token::Composite(CompositeToken::new(q, begin, end)?));
            }
        } else if digit
            || (begin > 0 && q[begin - 1] == b'=' && alphabet)
            || could_be_multi_digit_hex(&q[begin..end])
        {
            tokens.push(Token::Exact { begin, end });
        }
    }
    Ok(tokens)
}

/// The end of the token at `pos`: the next delimiter that is not a wildcard (an escaped
/// delimiter ends it before its `\`).
fn find_delimiter(
    q: &[u8],
    mut pos: usize,
    alphabet: &mut bool,
    digit: &mut bool,
    wildcard: &mut bool,
) -> usize {
    let mut escaped = false;
    while pos < q.len() {
        let c = q[pos];
        if escaped {
            escaped = false;
            if is_delim(c) {
                return pos - 1;
            }
        } else if c == b'\\' {
            escaped = true;
        } else if is_wildcard(c) {
            *wildcard = true;
        } else if is_delim(c) {
            return pos;
        }
        if c.is_ascii_digit() {
            *digit = true;
        } else if c.is_ascii_alphabetic() {
            *alphabet = true;
        }
        pos += 1;
    }
    pos
}

/// The start of the next token at or after `pos`: a wildcard, a non-delimiter, or the `\` of
/// an escaped non-delimiter.
fn find_wildcard_or_non_delimiter(q: &[u8], mut pos: usize, wildcard: &mut bool) -> Option<usize> {
    let mut escaped = false;
    while pos < q.len() {
        let c = q[pos];
        if escaped {
            escaped = false;
            if !is_delim(c) {
                return Some(pos - 1);
            }
        } else if c == b'\\' {
            escaped = true;
        } else if is_wildcard(c) {
            *wildcard = true;
            return Some(pos);
        } else if !is_delim(c) {
            return Some(pos);
        }
        pos += 1;
    }
    None
}

/// clp's `generate_subqueries` over a cleaned-up query, stopping once `wanted` distinct
/// subqueries are found (their order does not depend on the ones after).
fn subqueries(q: &[u8], wanted: usize) -> Result<Vec<Subquery>, String> {
    if q.is_empty() {
        return Err("the wildcard query cannot be empty".into());
    }
    let mut tokens = tokenize_query(q)?;
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    for _ in 0..MAX_INTERPRETATIONS {
        let mut logtype = Vec::with_capacity(q.len());
        let mut vars = Vec::new();
        let mut constant_begin = 0;
        for token in &tokens {
            let (begin, end) = match token {
                Token::Exact { begin, end } => (*begin, *end),
                Token::Composite(c) => (c.begin, c.end),
            };
            logtype.extend_from_slice(&q[constant_begin..begin]);
            match token {
                Token::Exact { begin, end } => {
                    logtype.push(exact_placeholder(&q[*begin..*end]));
                    vars.push(QueryVar::Exact {
                        begin: *begin,
                        end: *end,
                    });
                }
                Token::Composite(c) => c.add_to_query(q, &mut logtype, &mut vars),
            }
            constant_begin = end;
        }
        logtype.extend_from_slice(&q[constant_begin..]);
        let subquery = Subquery { logtype, vars };
        if seen.insert(subquery.clone()) {
            found.push(subquery);
            if found.len() >= wanted {
                return Ok(found);
            }
        }
        let mut advanced = false;
        for token in &mut tokens {
            if let Token::Composite(c) = token
                && c.advance(q)
            {
                advanced = true;
                break;
            }
        }
        if !advanced {
            return Ok(found);
        }
    }
    Err(format!(
        "the wildcard query has more than {MAX_INTERPRETATIONS} interpretations"
    ))
}

/// A wildcard query for an encoded variable: its placeholder and its pattern.
#[derive(Debug, PartialEq)]
struct VarQuery {
    placeholder: u8,
    pattern: Vec<u8>,
}

/// The encoded-variable wildcard queries of subquery `index` of `query`, as Pinot's `init`
/// takes them from `EightByteClpWildcardQueryEncoder.encode`.
fn compile(query: &str, index: i64) -> Result<Vec<VarQuery>, String> {
    let q = clean_up_wildcard_query(&latin1(query));
    let Ok(wanted) = usize::try_from(index) else {
        return Err(format!("invalid subquery index {index}"));
    };
    let all = subqueries(&q, wanted.saturating_add(1))?;
    let Some(subquery) = all.get(wanted) else {
        return Err(format!(
            "invalid subquery index {index}: the wildcard query has {} subqueries",
            all.len()
        ));
    };
    let queries: Vec<VarQuery> = subquery
        .vars
        .iter()
        .filter_map(|v| match v {
            QueryVar::Wildcard { begin, end, kind } => {
                let placeholder = match kind {
                    TokenKind::Integer => INTEGER_VAR,
                    TokenKind::Float => FLOAT_VAR,
                    _ => return None,
                };
                Some(VarQuery {
                    placeholder,
                    pattern: q[*begin..*end].to_vec(),
                })
            }
            QueryVar::Exact { .. } => None,
        })
        .collect();
    if queries.is_empty() {
        return Err(format!(
            "subquery {index} doesn't contain any wildcard queries for encoded variables"
        ));
    }
    Ok(queries)
}

/// How many compiled queries each thread keeps.
const CACHE_SIZE: usize = 16;

/// [`compile`], cached per thread (the function runs per row with one query).
fn compiled(query: &str, index: i64) -> Result<Rc<Vec<VarQuery>>, String> {
    type Entry = (String, i64, Rc<Vec<VarQuery>>);
    thread_local! {
        static CACHE: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
    }
    CACHE.with(|cache| {
        if let Some((_, _, q)) = cache
            .borrow()
            .iter()
            .find(|(text, i, _)| *i == index && text == query)
        {
            return Ok(Rc::clone(q));
        }
        let compiled = Rc::new(compile(query, index)?);
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHE_SIZE {
            cache.remove(0);
        }
        cache.push((query.to_string(), index, Rc::clone(&compiled)));
        Ok(compiled)
    })
}

/// clp's `wildcard_match_encoded_vars`: walking the logtype's integer and float placeholders in
/// order, each query must match a later variable of its type than the query before it. An
/// error when the logtype has more placeholders than there are encoded variables or a float is
/// corrupt.
fn match_encoded_vars(
    logtype: &[u8],
    encoded: &[i64],
    queries: &[VarQuery],
) -> Result<bool, &'static str> {
    let mut next = 0;
    let mut vars = encoded.iter();
    for &c in logtype {
        if c != INTEGER_VAR && c != FLOAT_VAR {
            continue;
        }
        let var = *vars
            .next()
            .ok_or("there are fewer encoded variables than encoded variable placeholders")?;
        let Some(query) = queries.get(next) else {
            break;
        };
        if query.placeholder == c {
            let text = if c == FLOAT_VAR {
                decode_float(var)?
            } else {
                var.to_string()
            };
            if wildcard_match(text.as_bytes(), &query.pattern) {
                next += 1;
                if next == queries.len() {
                    break;
                }
            }
        }
    }
    Ok(next == queries.len())
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Result<Value, FunctionError> {
        lookup(name).unwrap().eval(args)
    }

    fn s(text: &str) -> Value {
        Value::String(text.into())
    }

    fn strings(items: &[&str]) -> Value {
        Value::Array(items.iter().map(|t| s(t)).collect())
    }

    fn longs_of(items: &[i64]) -> Value {
        Value::Array(items.iter().map(|v| Value::Long(*v)).collect())
    }

    /// clp's `ffi::encode_message` as Pinot's extractor stores it: the logtype as ISO-8859-1
    /// text, the dictionary variables, the encoded variables.
    fn encode_message(message: &str) -> (Value, Value, Value) {
        let m = message.as_bytes();
        assert!(!m.iter().any(|&c| (INTEGER_VAR..=FLOAT_VAR).contains(&c)));
        let (mut logtype, mut dictionary, mut encoded) = (Vec::new(), Vec::new(), Vec::new());
        let (mut constant_begin, mut end) = (0, 0);
        while let Some((begin, var_end)) = next_var_bounds(m, end) {
            end = var_end;
            logtype.extend_from_slice(&m[constant_begin..begin]);
            constant_begin = end;
            let var = &m[begin..end];
            if let Some(v) = encode_float(var) {
                logtype.push(FLOAT_VAR);
                encoded.push(Value::Long(v));
            } else if let Some(v) = encode_integer(var) {
                logtype.push(INTEGER_VAR);
                encoded.push(Value::Long(v));
            } else {
                logtype.push(DICTIONARY_VAR);
                dictionary.push(s(std::str::from_utf8(var).unwrap()));
            }
        }
        logtype.extend_from_slice(&m[constant_begin..]);
        let logtype: String = logtype.iter().map(|&b| char::from(b)).collect();
        (s(&logtype), Value::Array(dictionary), Value::Array(encoded))
    }

    fn decode(args: &[Value]) -> Value {
        call("clpDecode", args).unwrap()
    }

    fn matches(logtype: &Value, encoded: &Value, query: &str, index: i64) -> bool {
        let args = [
            logtype.clone(),
            encoded.clone(),
            s(query),
            Value::Long(index),
        ];
        match call("clp_encoded_vars_match", &args).unwrap() {
            Value::Boolean(b) => b,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn decodes_integer_float_and_dictionary_variables() {
        let logtype = s(
            "INFO Task \u{12} assigned to container: [ContainerID:\u{12}], \
             operation took \u{13} seconds. \u{11} tasks remaining.",
        );
        let dictionary = strings(&["task_12", "container_15"]);
        assert_eq!(encode_float(b"0.335"), Some(0x14F32));
        let encoded = longs_of(&[0x14F32, 8]);
        assert_eq!(
            decode(&[logtype, dictionary, encoded]),
            s(
                "INFO Task task_12 assigned to container: [ContainerID:container_15], \
               operation took 0.335 seconds. 8 tasks remaining."
            )
        );
        assert_eq!(
            decode(&[s("\u{11}/\u{11}"), strings(&[]), longs_of(&[i64::MIN, -7])]),
            s("-9223372036854775808/-7")
        );
    }

    #[test]
    fn backslashes_and_non_ascii_text_are_copied_as_clp_ffi_decodes_them() {
        // No escape character in clp's `ffi::decode_message`: a `\` before a placeholder or at
        // the end stays.
        assert_eq!(
            decode(&[s("a\\\u{11} b\\\\ c\\"), strings(&[]), longs_of(&[5])]),
            s("a\\5 b\\\\ c\\")
        );
        // The logtype is UTF-8 bytes as ISO-8859-1 characters; dictionary variables are text.
        let (logtype, dictionary, encoded) = encode_message("héllo wörld 12 ünïcode_1");
        assert_eq!(logtype, s("hÃ©llo wÃ¶rld \u{11} Ã¼nÃ¯\u{12}"));
        assert_eq!(dictionary, strings(&["code_1"]));
        assert_eq!(
            decode(&[logtype, dictionary, encoded]),
            s("héllo wörld 12 ünïcode_1")
        );
        assert_eq!(
            decode(&[s("x\u{12}y"), strings(&["日本_1"]), longs_of(&[])]),
            s("x日本_1y")
        );
        // A character above U+00FF in a logtype becomes `?`; a lone high byte U+FFFD.
        assert_eq!(
            decode(&[s("日 é"), strings(&[]), longs_of(&[])]),
            s("? \u{fffd}")
        );
    }

    #[test]
    fn floats_round_trip_through_the_encoding() {
        for text in [
            "0.335",
            "-1.5",
            "123.0000",
            "0.0",
            "-0.5",
            ".1",
            "-.5",
            "-00.00",
            "1.000",
            "0.005",
            "-25.519686",
            "-25.5196868642755",
            "999999999999999.9",
            "-999999999999999.9",
            ".9999999999999999",
            "-.9999999999999999",
        ] {
            let encoded = encode_float(text.as_bytes()).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(decode_float(encoded).as_deref(), Ok(text), "{text}");
            let decoded = decode(&[s("\u{13}"), strings(&[]), longs_of(&[encoded])]);
            assert_eq!(decoded, s(text));
        }
        // The layout: sign, unused bit, 54 bits of digits, digit count - 1, point position - 1.
        assert_eq!(
            encode_float(b"-1.5"),
            Some(((1u64 << 63) | (15 << 8) | 0x10) as i64)
        );
        assert_eq!(
            encode_float(b"123.0000"),
            Some((1_230_000 << 8) | (6 << 4) | 3)
        );
        // What clp does not encode as a float.
        for text in [
            "",
            "a",
            "-",
            "+",
            "-a",
            "--",
            ".",
            "1.",
            " 1.0",
            "1.0 ",
            "+1.0",
            "1.0f",
            "1.0.0",
            "12",
            "1.2345678901234567",
        ] {
            assert_eq!(encode_float(text.as_bytes()), None, "{text:?}");
        }
        // The unused bit is ignored; digits that do not fit, or a point past them, are errors.
        assert_eq!(
            decode_float(encode_float(b"2.5").unwrap() | (1 << 62)),
            Ok("2.5".into())
        );
        assert!(decode_float(encode_float_properties(false, 123, 2, 1)).is_err());
        assert!(decode_float(encode_float_properties(false, 1, 2, 3)).is_err());
        assert!(decode_float(((MAX_FLOAT_DIGITS + 1) << 8) as i64 | 0xF0).is_err());
        assert!(decode_float(encode_float_properties(false, MAX_FLOAT_DIGITS, 16, 16)).is_ok());
    }

    #[test]
    fn integers_are_encoded_as_clp_does() {
        assert_eq!(encode_integer(b"0"), Some(0));
        assert_eq!(encode_integer(b"-12"), Some(-12));
        assert_eq!(encode_integer(b"9223372036854775807"), Some(i64::MAX));
        for text in [
            "",
            "-",
            "-0",
            "01",
            "+1",
            "1a",
            "9223372036854775808",
            "-01",
        ] {
            assert_eq!(encode_integer(text.as_bytes()), None, "{text:?}");
        }
    }

    #[test]
    fn messages_round_trip_as_in_clp_tests() {
        // clp `tests/test-encoding_methods.cpp` ("Encoding messages") and Pinot's
        // `ClpTransformFunctionsTest` message.
        let message = format!(
            "here is a string with a small int 4938 and a medium int {} and a very large int {} \
             and a small float 0.1 and a medium float -25.519686 and a weird float \
             -25.5196868642755 and a string with numbers -00.00 and another string with numbers \
             bin/python2.7.3",
            i32::MAX,
            i64::MAX
        );
        for message in [
            message.as_str(),
            "Started job_123 on node-987: 4 cores, 8 threads and 51.4% memory used.",
            "Static text, dictVar1, 123, 456.7, dictVar2, 987, 654.3",
            "null",
            "",
            "key=value id=abc 0xff deadbeef",
        ] {
            let (logtype, dictionary, encoded) = encode_message(message);
            assert_eq!(decode(&[logtype, dictionary, encoded]), s(message));
        }
        let (logtype, dictionary, encoded) = encode_message(
            "Started job_123 on node-987: 4 cores, 8 threads and 51.4% memory used.",
        );
        assert_eq!(
            logtype,
            s("Started \u{12} on \u{12}: \u{11} cores, \u{11} threads and \u{13}% memory used.")
        );
        assert_eq!(dictionary, strings(&["job_123", "node-987"]));
        assert_eq!(encoded, longs_of(&[4, 8, encode_float(b"51.4").unwrap()]));
    }

    #[test]
    fn undecodable_rows_give_the_default_value() {
        let logtype = s("a \u{11} b \u{12} c \u{13}");
        let full = [
            logtype.clone(),
            strings(&["x1"]),
            longs_of(&[1, encode_float(b"2.5").unwrap()]),
        ];
        assert_eq!(decode(&full), s("a 1 b x1 c 2.5"));
        let too_few_encoded = [logtype.clone(), strings(&["x1"]), longs_of(&[1])];
        assert_eq!(decode(&too_few_encoded), s("null"));
        let too_few_dictionary = [logtype.clone(), strings(&[]), full[2].clone()];
        assert_eq!(decode(&too_few_dictionary), s("null"));
        let mut with_default = too_few_dictionary.to_vec();
        with_default.push(s("default"));
        assert_eq!(decode(&with_default), s("default"));
        with_default[3] = Value::Null;
        assert_eq!(decode(&with_default), Value::Null);
        let corrupt_float = [logtype.clone(), strings(&["x1"]), longs_of(&[1, 0x7F])];
        assert_eq!(decode(&corrupt_float), s("null"));
        // A NULL element of the dictionary variables fails Java's flattening: the default.
        let null_var = Value::Array(vec![Value::Null]);
        assert_eq!(decode(&[s("plain"), null_var, longs_of(&[])]), s("null"));
        // NULL arrays are empty; a NULL logtype is NULL.
        assert_eq!(decode(&[s("plain"), Value::Null, Value::Null]), s("plain"));
        assert_eq!(
            decode(&[logtype.clone(), Value::Null, Value::Null]),
            s("null")
        );
        assert_eq!(
            decode(&[Value::Null, strings(&["x1"]), full[2].clone()]),
            Value::Null
        );
        // Encoded variables that are not numbers are an error, not a default.
        let bad = [logtype, strings(&["x1"]), strings(&["one"])];
        assert!(call("clpDecode", &bad).is_err());
        assert!(call("clpDecode", &[s("x"), s("y"), longs_of(&[])]).is_err());
        assert!(call("clpDecode", &[s("x"), strings(&[]), s("1")]).is_err());
    }

    #[test]
    fn decode_types_and_arguments() {
        let f = lookup("CLP_DECODE").unwrap();
        let array = ArgType::mv(DataType::String);
        let longs = ArgType::mv(DataType::Long);
        let logtype = ArgType::of(DataType::String);
        assert_eq!(
            f.resolve(&[logtype, array, longs]).unwrap(),
            DataType::String
        );
        let default = s("d");
        let literal = ArgType::literal(&default);
        assert_eq!(
            f.resolve(&[logtype, array, longs, literal]).unwrap(),
            DataType::String
        );
        assert!(matches!(
            f.resolve(&[logtype, array, longs, logtype]),
            Err(FunctionError::NeedsLiteral { position: 4, .. })
        ));
        assert!(matches!(
            f.resolve(&[logtype, logtype, longs]),
            Err(FunctionError::ArgumentType { position: 2, .. })
        ));
        assert!(f.resolve(&[logtype, array]).is_err());
    }

    /// One subquery in the notation of clp's test: the logtype with `\i`, `\f`, `\d` for the
    /// placeholders, and the variables as `E`xact or `W`ildcard with the placeholder's letter.
    fn notation(q: &[u8], subquery: &Subquery) -> (String, Vec<String>) {
        let mut logtype = String::new();
        for &c in &subquery.logtype {
            match c {
                INTEGER_VAR => logtype.push_str("\\i"),
                FLOAT_VAR => logtype.push_str("\\f"),
                DICTIONARY_VAR => logtype.push_str("\\d"),
                other => logtype.push(char::from(other)),
            }
        }
        let letter = |p: u8| match p {
            INTEGER_VAR => 'I',
            FLOAT_VAR => 'F',
            _ => 'D',
        };
        let vars = subquery
            .vars
            .iter()
            .map(|v| match v {
                QueryVar::Exact { begin, end } => {
                    format!("E{}", letter(exact_placeholder(&q[*begin..*end])))
                }
                QueryVar::Wildcard { kind, .. } => format!(
                    "W{}",
                    match kind {
                        TokenKind::Integer => 'I',
                        TokenKind::Float => 'F',
                        _ => 'D',
                    }
                ),
            })
            .collect();
        (logtype, vars)
    }

    fn all_subqueries(query: &str) -> Vec<(String, Vec<String>)> {
        let q = clean_up_wildcard_query(&latin1(query));
        subqueries(&q, usize::MAX)
            .unwrap()
            .iter()
            .map(|sq| notation(&q, sq))
            .collect()
    }

    #[test]
    fn subqueries_of_clp_test_query() {
        // clp `tests/test-query_methods.cpp`, section "*abc*123?456?": 42 subqueries (the
        // test checks the set, not the order).
        let expected: &[(&str, &[&str])] = &[
            ("*abc*\\i?\\i?", &["WI", "EI"]),
            ("*abc*\\f?\\i?", &["WF", "EI"]),
            ("*abc*\\d?\\i?", &["WD", "EI"]),
            ("*\\d*\\i?\\i?", &["WD", "WI", "EI"]),
            ("*\\d*\\f?\\i?", &["WD", "WF", "EI"]),
            ("*\\d*\\d?\\i?", &["WD", "WD", "EI"]),
            ("*\\d?\\i?", &["WD", "EI"]),
            ("*abc*\\i?", &["WI"]),
            ("*abc*\\f?", &["WF"]),
            ("*abc*\\d?", &["WD"]),
            ("*\\d*\\i?", &["WD", "WI"]),
            ("*\\d*\\f?", &["WD", "WF"]),
            ("*\\d*\\d?", &["WD", "WD"]),
            ("*\\d?", &["WD"]),
            ("*abc*\\i?\\i", &["WI", "WI"]),
            ("*abc*\\f?\\i", &["WF", "WI"]),
            ("*abc*\\d?\\i", &["WD", "WI"]),
            ("*abc*\\i?\\f", &["WI", "WF"]),
            ("*abc*\\f?\\f", &["WF", "WF"]),
            ("*abc*\\d?\\f", &["WD", "WF"]),
            ("*abc*\\i?\\d", &["WI", "WD"]),
            ("*abc*\\f?\\d", &["WF", "WD"]),
            ("*abc*\\d?\\d", &["WD", "WD"]),
            ("*\\d*\\i?\\i", &["WD", "WI", "WI"]),
            ("*\\d*\\f?\\i", &["WD", "WF", "WI"]),
            ("*\\d*\\d?\\i", &["WD", "WD", "WI"]),
            ("*\\d*\\i?\\f", &["WD", "WI", "WF"]),
            ("*\\d*\\f?\\f", &["WD", "WF", "WF"]),
            ("*\\d*\\d?\\f", &["WD", "WD", "WF"]),
            ("*\\d*\\i?\\d", &["WD", "WI", "WD"]),
            ("*\\d*\\f?\\d", &["WD", "WF", "WD"]),
            ("*\\d*\\d?\\d", &["WD", "WD", "WD"]),
            ("*\\d?\\i", &["WD", "WI"]),
            ("*\\d?\\f", &["WD", "WF"]),
            ("*\\d?\\d", &["WD", "WD"]),
            ("*abc*\\i", &["WI"]),
            ("*abc*\\f", &["WF"]),
            ("*abc*\\d", &["WD"]),
            ("*\\d*\\i", &["WD", "WI"]),
            ("*\\d*\\f", &["WD", "WF"]),
            ("*\\d*\\d", &["WD", "WD"]),
            ("*\\d", &["WD"]),
        ];
        let mut expected: Vec<(String, Vec<String>)> = expected
            .iter()
            .map(|(l, v)| (l.to_string(), v.iter().map(|x| x.to_string()).collect()))
            .collect();
        let mut got = all_subqueries("*abc*123?456?");
        assert_eq!(got.len(), 42);
        // Generation order: the first wildcard token's kinds count fastest.
        assert_eq!(got[0], expected[0]);
        assert_eq!(got[1].0, "*\\d*\\i?\\i?");
        got.sort();
        expected.sort();
        assert_eq!(got, expected);
    }

    #[test]
    fn subqueries_of_simple_queries() {
        let one = |l: &str, v: &[&str]| (l.to_string(), v.iter().map(|x| x.to_string()).collect());
        // clp's "*" case; a query without wildcards is one exact subquery.
        assert_eq!(all_subqueries("*"), vec![one("*", &[])]);
        assert_eq!(all_subqueries("**"), vec![one("*", &[])]);
        assert_eq!(
            all_subqueries(" var123 456 0.5 "),
            vec![one(" \\d \\i \\f ", &["ED", "EI", "EF"])]
        );
        // Pinot's ClpRewriterTest and ClpTransformFunctionsTest: integer, float, dictionary.
        assert_eq!(
            all_subqueries("*123*"),
            vec![
                one("*\\i*", &["WI"]),
                one("*\\f*", &["WF"]),
                one("*\\d*", &["WD"])
            ]
        );
        assert_eq!(
            all_subqueries("* INFO container *"),
            vec![one("* INFO container *", &[])]
        );
        // clp's README example, "*task* took 0.3*": the four interpretations it lists.
        let readme = all_subqueries("*task* took 0.3*");
        for (l, v) in [
            ("*\\d* took \\f*", &["WD", "WF"][..]),
            ("*\\d* took \\d*", &["WD", "WD"]),
            ("*task* took \\f*", &["WF"]),
            ("*task* took \\d*", &["WD"]),
        ] {
            assert!(readme.contains(&one(l, v)), "{l:?} in {readme:?}");
        }
        assert_eq!(readme.len(), 4, "{readme:?}");
        // Escaped wildcards are text; an empty query is an error.
        assert_eq!(all_subqueries("a\\*b"), vec![one("a\\*b", &[])]);
        let empty = clean_up_wildcard_query(b"\\");
        assert!(subqueries(&empty, usize::MAX).is_err());
    }

    #[test]
    fn subqueries_in_clps_order_with_its_quirk() {
        // "5?.?": one token, its wildcards counted after its pieces' kinds (hand-traced from
        // clp's code; "\\i?.?" comes again with ".?" as static text and is dropped).
        let got = all_subqueries("5?.?");
        let logtypes: Vec<&str> = got.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(
            logtypes,
            ["\\i?.?", "\\f?", "\\d?", "\\i?\\f", "\\i?\\d", "\\f", "\\d"]
        );
        // Two tokens: when the first has tried all its wildcards it keeps its last
        // tokenization while the second advances (clp does not re-tokenize it), so the first
        // token's first tokenization ("*\\i?\\i") never meets the second's wildcard token:
        // 15 subqueries, not 24.
        let got = all_subqueries("*1?2 3?");
        let logtypes: Vec<&str> = got.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(
            logtypes[..7],
            [
                "*\\i?\\i \\i?",
                "*\\f?\\i \\i?",
                "*\\d?\\i \\i?",
                "*\\i \\i?",
                "*\\f \\i?",
                "*\\d \\i?",
                "*\\i \\i"
            ]
        );
        assert_eq!(got[6].1, ["WI", "WI"]);
        assert_eq!(got.len(), 15);
        assert!(!logtypes.contains(&"*\\i?\\i \\i"));
    }

    #[test]
    fn wildcard_matching_as_clp() {
        for (tame, wild, expected) in [
            ("123", "1*3", true),
            ("123", "*123*", true),
            ("51.4", "*51*", true),
            ("123", "1?3", true),
            ("123", "1?", false),
            ("123", "*", true),
            ("", "*", true),
            ("", "", true),
            ("1", "", false),
            ("abcabd", "*abd", true),
            ("abcab", "*abd", false),
            ("aXbXc", "a*b*c", true),
            ("ab", "a*b*c", false),
            ("a*b", "a\\*b", true),
            ("axb", "a\\*b", false),
            ("456.7", "4*7", true),
            ("-25.5", "-*.5", true),
            ("9", "?", true),
            ("98", "?", false),
        ] {
            assert_eq!(
                wildcard_match(tame.as_bytes(), wild.as_bytes()),
                expected,
                "{tame:?} ~ {wild:?}"
            );
        }
    }

    #[test]
    fn encoded_variables_match_in_order_as_clp_tests() {
        // clp `tests/test-encoding_methods.cpp`, "wildcard_match_encoded_vars".
        let (logtype, _, encoded) =
            encode_message("Static text, dictVar1, 123, 456.7, dictVar2, 987, 654.3");
        let Value::Array(vars) = &encoded else {
            unreachable!()
        };
        let vars: Vec<i64> = vars.iter().map(|v| v.as_i64().unwrap()).collect();
        let logtype = text(&logtype).into_owned();
        let q = |list: &[(u8, &str)]| -> Vec<VarQuery> {
            list.iter()
                .map(|(p, t)| VarQuery {
                    placeholder: *p,
                    pattern: t.as_bytes().to_vec(),
                })
                .collect()
        };
        let run = |queries: &[VarQuery]| match_encoded_vars(logtype.as_bytes(), &vars, queries);
        let (i, f) = (INTEGER_VAR, FLOAT_VAR);
        assert_eq!(run(&q(&[(i, "*123*"), (i, "9*7")])), Ok(true));
        let four = [(i, "*123*"), (f, "4*7"), (i, "9*7"), (f, "*654.3*")];
        assert_eq!(run(&q(&four)), Ok(true));
        let mut five = four.to_vec();
        five.push((i, "*123*"));
        assert_eq!(run(&q(&five)), Ok(false));
        // Order matters; the type must agree.
        assert_eq!(run(&q(&[(i, "9*7"), (i, "*123*")])), Ok(false));
        assert_eq!(run(&q(&[(f, "1*3")])), Ok(false));
        assert_eq!(run(&q(&[(f, "4*7")])), Ok(true));
        // Too few encoded variables is an error (a row that does not match).
        assert!(match_encoded_vars(b"\x11 \x11", &[1], &q(&[(i, "2")])).is_err());
    }

    #[test]
    fn match_function_on_queries() {
        // Pinot's ClpTransformFunctionsTest: "*51*" is integer, float, dictionary; only the
        // float subquery matches "51.4".
        let message = "Started job_123 on node-987: 4 cores, 8 threads and 51.4% memory used.";
        let (logtype, _, encoded) = encode_message(message);
        assert!(!matches(&logtype, &encoded, "*51*", 0));
        assert!(matches(&logtype, &encoded, "*51*", 1));
        let err = call(
            "clpEncodedVarsMatch",
            &[logtype.clone(), encoded.clone(), s("*51*"), Value::Long(2)],
        )
        .unwrap_err();
        assert!(err.to_string().contains("wildcard queries"), "{err}");
        assert!(matches(&logtype, &encoded, "*8*", 0));
        assert!(!matches(&logtype, &encoded, "*9*", 0));
        assert!(matches(&logtype, &encoded, "*.4*", 0));
        assert!(!matches(&logtype, &encoded, "5?.?", 1));
        assert!(matches(&logtype, &encoded, "5?.?", 5));
        // Pinot's "null" row (no variables) and NULL inputs never match.
        let (null_logtype, _, null_encoded) = encode_message("null");
        assert!(!matches(&null_logtype, &null_encoded, "*51*", 1));
        assert!(!matches(&Value::Null, &encoded, "*51*", 1));
        assert!(!matches(&logtype, &Value::Null, "*51*", 1));
        // A corrupt row is false, not an error.
        assert!(!matches(&s("\u{11}\u{11}"), &longs_of(&[4]), "*8*", 0));
        // Two encoded-variable queries in one subquery, in order.
        let (logtype, _, encoded) = encode_message("took 12 ms and 3.5 s");
        let q = "took 1? ms and 3.* s";
        let all = all_subqueries(q);
        let both = all
            .iter()
            .position(|(_, v)| v == &["WI".to_string(), "WF".to_string()])
            .unwrap();
        assert!(matches(&logtype, &encoded, q, both as i64));
        let (swapped, _, swapped_vars) = encode_message("took 3.5 ms and 12 s");
        assert!(!matches(&swapped, &swapped_vars, q, both as i64));
    }

    #[test]
    fn bad_match_arguments_are_clear_errors() {
        let f = lookup("clpEncodedVarsMatch").unwrap();
        let logtype = ArgType::of(DataType::String);
        let encoded = ArgType::mv(DataType::Long);
        let (query, index) = (s("*51*"), Value::Int(1));
        let ok = [
            logtype,
            encoded,
            ArgType::literal(&query),
            ArgType::literal(&index),
        ];
        assert_eq!(f.resolve(&ok).unwrap(), DataType::Boolean);
        let not_literal = [logtype, encoded, logtype, ArgType::literal(&index)];
        assert!(matches!(
            f.resolve(&not_literal),
            Err(FunctionError::NeedsLiteral { position: 3, .. })
        ));
        let not_literal = [logtype, encoded, ArgType::literal(&query), logtype];
        assert!(matches!(
            f.resolve(&not_literal),
            Err(FunctionError::NeedsLiteral { position: 4, .. })
        ));
        for (query, index, reason) in [
            (
                "*51*",
                3,
                "invalid subquery index 3: the wildcard query has 3 subqueries",
            ),
            ("*51*", -1, "invalid subquery index -1"),
            (
                "*51*",
                2,
                "doesn't contain any wildcard queries for encoded variables",
            ),
            ("INFO 123", 0, "doesn't contain any wildcard queries"),
            ("", 0, "the wildcard query cannot be empty"),
        ] {
            let (query, index) = (s(query), Value::Long(index));
            let args = [
                logtype,
                encoded,
                ArgType::literal(&query),
                ArgType::literal(&index),
            ];
            let err = f.resolve(&args).unwrap_err();
            assert!(
                matches!(err, FunctionError::InvalidLiteral { .. }),
                "{err:?}"
            );
            assert!(err.to_string().contains(reason), "{err}");
            let row = [s("\u{11}"), longs_of(&[1]), query.clone(), index.clone()];
            let err = f.eval(&row).unwrap_err();
            assert!(err.to_string().contains(reason), "{err}");
        }
        let null = Value::Null;
        let args = [
            logtype,
            encoded,
            ArgType::literal(&null),
            ArgType::literal(&index),
        ];
        assert!(f.resolve(&args).is_err());
        assert!(
            f.eval(&[s("x"), longs_of(&[]), s("*1*"), s("one")])
                .is_err()
        );
        assert!(f.eval(&[s("x"), s("1"), s("*1*"), Value::Int(0)]).is_err());
        // Too many interpretations is refused, not enumerated.
        let huge = "*1?".repeat(12) + "*";
        let err = f.eval(&[s("x"), longs_of(&[]), s(&huge), Value::Long(1 << 40)]);
        assert!(err.unwrap_err().to_string().contains("interpretations"));
    }

    #[test]
    fn query_text_is_read_as_iso_8859_1() {
        // A character above U+00FF is `?` (a wildcard), as Java's getBytes(ISO_8859_1).
        assert_eq!(all_subqueries("1日"), all_subqueries("1?"));
        assert_eq!(latin1("aé日"), vec![b'a', 0xE9, b'?']);
    }
}
