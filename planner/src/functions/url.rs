//! URL functions, as Pinot's `UrlFunctions` and the URL pair of its `StringFunctions`:
//!
//! * parts of a URL: `urlProtocol`, `urlDomain`, `urlDomainWithoutWWW`, `urlTopLevelDomain`,
//!   `urlFirstSignificantSubdomain`, `cutToFirstSignificantSubdomain`,
//!   `cutToFirstSignificantSubdomainWithWWW`, `urlPort` (INT, -1 when absent or invalid),
//!   `urlPath`, `urlPathWithQuery`, `urlQueryString`, `urlFragment`,
//!   `urlQueryStringAndFragment`, `urlNetloc`, `extractURLParameter`;
//! * arrays (STRING multi-values): `extractURLParameters`, `extractURLParameterNames`,
//!   `urlHierarchy`, `urlPathHierarchy`;
//! * rewritten URLs (an unparsable URL comes back unchanged): `cutWWW`, `cutQueryString`,
//!   `cutFragment`, `cutQueryStringAndFragment`, `cutURLParameter`, `cutURLParameters`;
//! * form encoding: `urlEncode`, `urlEncodeFormComponent`, `encodeUrl` (Java's `URLEncoder`),
//!   `urlDecode`, `urlDecodeFormComponent` (NULL for malformed `%` escapes) and `decodeUrl`
//!   (an error for them).
//!
//! Pinot parses with `java.net.URI` (RFC 2396 with Java's deviations) and answers NULL, `''`,
//! `-1`, an empty array or the unchanged input for what that parser refuses, so this file
//! carries a faithful port of that parser ([`Uri::parse`]): its character classes, its
//! server-versus-registry authority rule (`http://my_host/` has no host), its component
//! decoding (`%XX` runs as UTF-8, invalid sequences as U+FFFD) and its seven-part constructor
//! ([`rebuild`]) that re-quotes the decoded parts — so `cutQueryString` of
//! `http://h/%41?q` is `http://h/A`, as in Pinot.

use super::coerce::text;
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::types::{DataType, Value};

const S: Returns = Returns::Fixed(DataType::String);
const SA: Returns = Returns::FixedArray(DataType::String);
const T: &[Param] = &[Param::Text];

const fn text_fn(
    name: &'static str,
    kernel: fn(&[Value]) -> Result<Value, FunctionError>,
) -> FunctionDef {
    FunctionDef::new(name, Arity::Exact(1), T, S, kernel)
}

/// The functions of this area.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    text_fn("urlProtocol", url_protocol),
    text_fn("urlDomain", url_domain),
    text_fn("urlDomainWithoutWWW", url_domain_without_www),
    text_fn("urlTopLevelDomain", url_top_level_domain),
    text_fn(
        "urlFirstSignificantSubdomain",
        url_first_significant_subdomain,
    ),
    text_fn(
        "cutToFirstSignificantSubdomain",
        cut_to_first_significant_subdomain,
    ),
    text_fn(
        "cutToFirstSignificantSubdomainWithWWW",
        cut_to_first_significant_subdomain_with_www,
    ),
    FunctionDef::new(
        "urlPort",
        Arity::Exact(1),
        T,
        Returns::Fixed(DataType::Int),
        url_port,
    ),
    text_fn("urlPath", url_path),
    text_fn("urlPathWithQuery", url_path_with_query),
    text_fn("urlQueryString", url_query_string),
    text_fn("urlFragment", url_fragment),
    text_fn("urlQueryStringAndFragment", url_query_string_and_fragment),
    text_fn("urlNetloc", url_netloc),
    FunctionDef::new(
        "extractURLParameter",
        Arity::Exact(2),
        &[Param::Text, Param::Text],
        S,
        extract_url_parameter,
    ),
    FunctionDef::new(
        "extractURLParameters",
        Arity::Exact(1),
        T,
        SA,
        extract_url_parameters,
    ),
    FunctionDef::new(
        "extractURLParameterNames",
        Arity::Exact(1),
        T,
        SA,
        extract_url_parameter_names,
    ),
    FunctionDef::new("urlHierarchy", Arity::Exact(1), T, SA, url_hierarchy),
    FunctionDef::new(
        "urlPathHierarchy",
        Arity::Exact(1),
        T,
        SA,
        url_path_hierarchy,
    ),
    text_fn("cutWWW", cut_www),
    text_fn("cutQueryString", cut_query_string),
    text_fn("cutFragment", cut_fragment),
    text_fn("cutQueryStringAndFragment", cut_query_string_and_fragment),
    FunctionDef::new(
        "cutURLParameter",
        Arity::Exact(2),
        &[Param::Text, Param::Text],
        S,
        cut_url_parameter,
    ),
    FunctionDef::new(
        "cutURLParameters",
        Arity::Exact(2),
        &[Param::Text, Param::Array],
        S,
        cut_url_parameters,
    ),
    text_fn("urlEncode", url_encode),
    text_fn("urlDecode", url_decode),
    text_fn("urlEncodeFormComponent", url_encode),
    text_fn("urlDecodeFormComponent", url_decode_form_component),
    text_fn("encodeUrl", url_encode),
    text_fn("decodeUrl", decode_url),
];

// ---------------------------------------------------------------------------------------------
// Kernels

/// A string result, or NULL.
fn string_or_null(s: Option<impl Into<String>>) -> Value {
    s.map_or(Value::Null, |s| Value::String(s.into()))
}

fn strings(items: impl IntoIterator<Item = String>) -> Value {
    Value::Array(items.into_iter().map(Value::String).collect())
}

/// The host of a URL that parses (`URI.create(url).getHost()`).
fn host_of(args: &[Value]) -> Option<String> {
    let url = text(&args[0]);
    Uri::parse(&url, false).ok()?.host.map(str::to_string)
}

/// The dot-separated labels of a host, as Java's `host.split("\\.")`.
fn labels(host: &str) -> Vec<&str> {
    java_split(host, '.')
}

/// Whether the last label is one of the generic top-level domains Pinot treats as "short".
fn generic_tld(parts: &[&str]) -> bool {
    matches!(parts.last(), Some(&("com" | "net" | "org" | "co")))
}

fn url_protocol(args: &[Value]) -> Result<Value, FunctionError> {
    let url = text(&args[0]);
    Ok(string_or_null(
        Uri::parse(&url, false).ok().and_then(|u| u.scheme),
    ))
}

fn url_domain(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(string_or_null(host_of(args)))
}

fn url_domain_without_www(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(string_or_null(host_of(args).map(
        |h| match h.strip_prefix("www.") {
            Some(rest) => rest.to_string(),
            None => h,
        },
    )))
}

fn url_top_level_domain(args: &[Value]) -> Result<Value, FunctionError> {
    let host = host_of(args);
    Ok(string_or_null(
        host.as_deref().and_then(|h| labels(h).last().copied()),
    ))
}

fn url_first_significant_subdomain(args: &[Value]) -> Result<Value, FunctionError> {
    let host = host_of(args);
    let found = host.as_deref().and_then(|h| {
        let parts = labels(h);
        let n = parts.len();
        if n <= 2 {
            return parts.first().copied();
        }
        let back = if generic_tld(&parts) { 2 } else { 3 };
        parts.get(n - back).copied()
    });
    Ok(string_or_null(found))
}

/// The registrable part of a host: the last two labels under a generic top-level domain,
/// else the last three; hosts of at most two labels whole.
fn first_significant(host: &str) -> Option<(String, Vec<&str>, bool)> {
    let parts = labels(host);
    let n = parts.len();
    if n <= 2 {
        return Some((host.to_string(), parts, false));
    }
    let generic = generic_tld(&parts);
    let keep = if generic { 2 } else { 3 };
    Some((parts[n - keep..].join("."), parts, generic))
}

fn cut_to_first_significant_subdomain(args: &[Value]) -> Result<Value, FunctionError> {
    let host = host_of(args);
    Ok(string_or_null(
        host.as_deref()
            .and_then(first_significant)
            .map(|(cut, _, _)| cut),
    ))
}

fn cut_to_first_significant_subdomain_with_www(args: &[Value]) -> Result<Value, FunctionError> {
    let host = host_of(args);
    let found = host
        .as_deref()
        .and_then(first_significant)
        .map(|(cut, parts, generic)| {
            let whole = if generic { 3 } else { 4 };
            if parts.len() > 2 && parts[0] == "www" && parts.len() == whole {
                format!("www.{cut}")
            } else {
                cut
            }
        });
    Ok(string_or_null(found))
}

fn url_port(args: &[Value]) -> Result<Value, FunctionError> {
    let url = text(&args[0]);
    Ok(Value::Int(Uri::parse(&url, false).map_or(-1, |u| u.port)))
}

/// A URL with both a scheme and a host (`urlPath`, `urlPathWithQuery`, `urlHierarchy`).
fn with_scheme_and_host(url: &str) -> Option<Uri<'_>> {
    Uri::parse(url, false)
        .ok()
        .filter(|u| u.scheme.is_some() && u.host.is_some())
}

fn url_path(args: &[Value]) -> Result<Value, FunctionError> {
    let url = text(&args[0]);
    Ok(string_or_null(
        with_scheme_and_host(&url).and_then(|u| u.path.map(decode)),
    ))
}

fn url_path_with_query(args: &[Value]) -> Result<Value, FunctionError> {
    // Despite its name, Pinot answers the raw path (`getRawPath`), without the query.
    let url = text(&args[0]);
    Ok(string_or_null(
        with_scheme_and_host(&url).and_then(|u| u.path),
    ))
}

fn url_query_string(args: &[Value]) -> Result<Value, FunctionError> {
    let url = text(&args[0]);
    Ok(string_or_null(
        Uri::parse(&url, false).ok().and_then(|u| u.query),
    ))
}

fn url_fragment(args: &[Value]) -> Result<Value, FunctionError> {
    let url = text(&args[0]);
    Ok(string_or_null(
        Uri::parse(&url, false)
            .ok()
            .and_then(|u| u.fragment.map(decode)),
    ))
}

fn url_query_string_and_fragment(args: &[Value]) -> Result<Value, FunctionError> {
    let url = text(&args[0]);
    let Ok(uri) = Uri::parse(&url, false) else {
        return Ok(Value::Null);
    };
    let (query, fragment) = (uri.query.map(decode), uri.fragment.map(decode));
    if query.is_none() && fragment.is_none() {
        return Ok(Value::Null);
    }
    let mut out = query.unwrap_or_default();
    if let Some(fragment) = fragment {
        if !out.is_empty() {
            out.push('#');
        }
        out.push_str(&fragment);
    }
    Ok(Value::String(out))
}

fn url_netloc(args: &[Value]) -> Result<Value, FunctionError> {
    let url = text(&args[0]);
    let Ok(uri) = Uri::parse(&url, false) else {
        return Ok(Value::Null);
    };
    let mut out = String::new();
    if let Some(user) = uri.user_info.map(decode).filter(|u| !u.is_empty()) {
        out.push_str(&user);
        out.push('@');
    }
    if let Some(host) = uri.host {
        out.push_str(host);
    }
    if uri.port != -1 {
        out.push(':');
        out.push_str(&uri.port.to_string());
    }
    Ok(Value::String(out))
}

/// The decoded query of a URL that parses.
fn decoded_query(url: &str) -> Option<String> {
    Uri::parse(url, false).ok()?.query.map(decode)
}

fn extract_url_parameter(args: &[Value]) -> Result<Value, FunctionError> {
    let (url, name) = (text(&args[0]), text(&args[1]));
    let value = decoded_query(&url).and_then(|query| {
        java_split(&query, '&').into_iter().find_map(|param| {
            let mut pair = param.splitn(2, '=');
            (pair.next() == Some(&*name)).then(|| pair.next().unwrap_or("").to_string())
        })
    });
    Ok(Value::String(value.unwrap_or_default()))
}

fn extract_url_parameters(args: &[Value]) -> Result<Value, FunctionError> {
    let query = decoded_query(&text(&args[0]));
    Ok(strings(
        query
            .iter()
            .flat_map(|q| java_split(q, '&'))
            .map(str::to_string),
    ))
}

fn extract_url_parameter_names(args: &[Value]) -> Result<Value, FunctionError> {
    let query = decoded_query(&text(&args[0]));
    Ok(strings(query.iter().flat_map(|q| java_split(q, '&')).map(
        |param| param.split('=').next().unwrap_or("").to_string(),
    )))
}

fn url_hierarchy(args: &[Value]) -> Result<Value, FunctionError> {
    let url = text(&args[0]);
    let Some(uri) = with_scheme_and_host(&url) else {
        return Ok(strings([]));
    };
    let base = format!("{}://{}", uri.scheme.unwrap_or(""), uri.host.unwrap_or(""));
    let path = uri.path.map(decode).unwrap_or_default();
    if path.is_empty() {
        return Ok(strings([base]));
    }
    let parts = java_split(&path, '/');
    // Pinot fills an array sized by the path's parts, the base first: a path of only slashes
    // has no parts, and its out-of-bounds write yields the empty array.
    if parts.is_empty() {
        return Ok(strings([]));
    }
    let mut current = base.clone();
    let mut out = vec![base];
    for part in &parts[1..] {
        current.push('/');
        current.push_str(part);
        out.push(current.clone());
    }
    Ok(strings(out))
}

fn url_path_hierarchy(args: &[Value]) -> Result<Value, FunctionError> {
    let url = text(&args[0]);
    let path = Uri::parse(&url, false)
        .ok()
        .and_then(|u| u.path.map(decode));
    let Some(path) = path.filter(|p| !p.is_empty()) else {
        return Ok(strings([]));
    };
    let parts = java_split(&path, '/');
    let mut current = String::new();
    let mut out = Vec::with_capacity(parts.len().saturating_sub(1));
    for part in parts.iter().skip(1) {
        current.push('/');
        current.push_str(part);
        out.push(current.clone());
    }
    Ok(strings(out))
}

/// Rebuilds a URL from its decoded parts with `edit` applied, as Pinot's `cut…` functions do
/// with Java's seven-part `URI` constructor; the input unchanged when either step fails.
fn rewrite(url: &str, edit: impl FnOnce(&mut Parts)) -> String {
    let Ok(uri) = Uri::parse(url, false) else {
        return url.to_string();
    };
    let mut parts = Parts::of(&uri);
    edit(&mut parts);
    rebuild(&parts).unwrap_or_else(|_| url.to_string())
}

fn cut_www(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::String(rewrite(&text(&args[0]), |p| {
        if let Some(rest) = p.host.as_deref().and_then(|h| h.strip_prefix("www.")) {
            p.host = Some(rest.to_string());
        }
    })))
}

fn cut_query_string(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::String(rewrite(&text(&args[0]), |p| p.query = None)))
}

fn cut_fragment(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::String(rewrite(&text(&args[0]), |p| {
        p.fragment = None
    })))
}

fn cut_query_string_and_fragment(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::String(rewrite(&text(&args[0]), |p| {
        p.query = None;
        p.fragment = None;
    })))
}

/// Pinot's `cutURLParameter`: drops the query parameters whose form-decoded name is `name`
/// (`None` matches none, yet the URL is still rebuilt).
fn cut_parameter(url: &str, name: Option<&str>) -> String {
    let Ok(uri) = Uri::parse(url, false) else {
        return url.to_string();
    };
    let Some(query) = uri.query.map(decode).filter(|q| !q.is_empty()) else {
        return url.to_string();
    };
    let mut kept = String::new();
    for param in java_split(&query, '&') {
        let key = param.split('=').next().unwrap_or("");
        let Ok(decoded) = form_decode(key) else {
            return url.to_string();
        };
        if Some(decoded.as_str()) != name {
            if !kept.is_empty() {
                kept.push('&');
            }
            kept.push_str(param);
        }
    }
    let mut parts = Parts::of(&uri);
    parts.query = (!kept.is_empty()).then_some(kept);
    rebuild(&parts).unwrap_or_else(|_| url.to_string())
}

fn cut_url_parameter(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::String(cut_parameter(
        &text(&args[0]),
        Some(&text(&args[1])),
    )))
}

fn cut_url_parameters(args: &[Value]) -> Result<Value, FunctionError> {
    let Value::Array(names) = &args[1] else {
        return Err(FunctionError::invalid(
            "cutURLParameters",
            &args[1],
            "not a multi-value",
        ));
    };
    let mut url = text(&args[0]).into_owned();
    for name in names {
        let name = (!name.is_null()).then(|| text(name));
        url = cut_parameter(&url, name.as_deref());
    }
    Ok(Value::String(url))
}

fn url_encode(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::String(form_encode(&text(&args[0]))))
}

fn url_decode(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(string_or_null(form_decode(&text(&args[0])).ok()))
}

fn url_decode_form_component(args: &[Value]) -> Result<Value, FunctionError> {
    let input = text(&args[0]).replace('+', "%20");
    Ok(string_or_null(form_decode(&input).ok()))
}

fn decode_url(args: &[Value]) -> Result<Value, FunctionError> {
    let input = text(&args[0]);
    form_decode(&input)
        .map(Value::String)
        .map_err(|reason| FunctionError::invalid("decodeUrl", &input, reason))
}

// ---------------------------------------------------------------------------------------------
// Java's String.split and form encoding (URLEncoder / URLDecoder with UTF-8)

/// `s.split(sep)` as Java does it: trailing empty strings dropped, but `""` gives `[""]`.
fn java_split(s: &str, sep: char) -> Vec<&str> {
    if s.is_empty() {
        return vec![""];
    }
    let mut parts: Vec<&str> = s.split(sep).collect();
    while parts.last() == Some(&"") {
        parts.pop();
    }
    parts
}

const HEX_DIGITS: &[u8; 16] = b"0123456789ABCDEF";

fn push_escape(out: &mut String, byte: u8) {
    out.push('%');
    out.push(HEX_DIGITS[usize::from(byte >> 4)] as char);
    out.push(HEX_DIGITS[usize::from(byte & 15)] as char);
}

/// `URLEncoder.encode(s, UTF_8)`: letters, digits and `.-*_` kept, space as `+`, every other
/// character as its UTF-8 bytes in `%XX` form.
fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' | '*' | '_' => out.push(c),
            ' ' => out.push('+'),
            _ => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    push_escape(&mut out, b);
                }
            }
        }
    }
    out
}

/// One `%XX` pair's value as Java's `Integer.parseInt(pair, 16)` reads it (a sign is allowed;
/// a negative value is refused).
fn escape_value(pair: &[u8]) -> Option<u8> {
    let digit = |b: u8| (b as char).to_digit(16);
    match pair {
        [b'+', d] => digit(*d).map(|v| v as u8),
        [b'-', d] => digit(*d).filter(|v| *v == 0).map(|_| 0),
        [h, l] => Some((digit(*h)? * 16 + digit(*l)?) as u8),
        _ => None,
    }
}

/// `URLDecoder.decode(s, UTF_8)`: `+` as space, runs of `%XX` as UTF-8 (invalid sequences as
/// U+FFFD); a malformed or incomplete escape is an error.
fn form_decode(s: &str) -> Result<String, &'static str> {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => {
                out.push(' ');
                i += 1;
            }
            b'%' => {
                let mut run = Vec::new();
                while i + 2 < bytes.len() && bytes[i] == b'%' {
                    let value = escape_value(&bytes[i + 1..i + 3])
                        .ok_or("illegal hex characters in escape (%) pattern")?;
                    run.push(value);
                    i += 3;
                }
                if i < bytes.len() && bytes[i] == b'%' {
                    return Err("incomplete trailing escape (%) pattern");
                }
                out.push_str(&String::from_utf8_lossy(&run));
            }
            _ => {
                let len = s[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&s[i..i + len]);
                i += len;
            }
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// java.net.URI

/// A set of ASCII characters (bit `c` for character `c`), plus whether `%XX` escapes and
/// visible non-ASCII characters are allowed too (Java's `L_ESCAPED`).
#[derive(Clone, Copy)]
struct Class {
    ascii: u128,
    escaped: bool,
}

const fn chars(set: &[u8]) -> u128 {
    let mut mask = 0u128;
    let mut i = 0;
    while i < set.len() {
        mask |= 1 << set[i];
        i += 1;
    }
    mask
}

const fn range(lo: u8, hi: u8) -> u128 {
    let mut mask = 0u128;
    let mut c = lo;
    while c <= hi {
        mask |= 1 << c;
        c += 1;
    }
    mask
}

const fn plain(ascii: u128) -> Class {
    Class {
        ascii,
        escaped: false,
    }
}

const fn escaped(ascii: u128) -> Class {
    Class {
        ascii,
        escaped: true,
    }
}

const DIGIT: u128 = range(b'0', b'9');
const ALPHA: u128 = range(b'a', b'z') | range(b'A', b'Z');
const ALPHANUM: u128 = DIGIT | ALPHA;
const HEX: u128 = DIGIT | range(b'a', b'f') | range(b'A', b'F');
const UNRESERVED: u128 = ALPHANUM | chars(b"-_.!~*'()");
const RESERVED: u128 = chars(b";/?:@&=+$,[]");
const USERINFO_CHARS: u128 = UNRESERVED | chars(b";:&=+$,");
const SERVER_CHARS: u128 = USERINFO_CHARS | ALPHANUM | chars(b"-.:@[]");

const URIC: Class = escaped(RESERVED | UNRESERVED);
const PATH: Class = escaped(UNRESERVED | chars(b":@&=+$,;/"));
const USERINFO: Class = escaped(USERINFO_CHARS);
const REG_NAME: Class = escaped(UNRESERVED | chars(b"$,;:@&=+"));
const SERVER: Class = escaped(SERVER_CHARS);
const SERVER_PERCENT: Class = escaped(SERVER_CHARS | chars(b"%"));
const SCHEME: Class = plain(ALPHA | DIGIT | chars(b"+-."));
const SCOPE_ID: Class = plain(ALPHANUM | chars(b"_."));

impl Class {
    fn has(self, c: char) -> bool {
        c != '\0' && (c as u32) < 128 && self.ascii & (1u128 << (c as u32)) != 0
    }
}

/// Java's `Character.isSpaceChar` (Unicode Zs, Zl, Zp) or `Character.isISOControl`.
fn space_or_control(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | ' ' | '\u{a0}' | '\u{1680}'
        | '\u{2000}'..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
}

/// The input refused by Java's parser (`URISyntaxException` or a stray runtime exception).
#[derive(Debug)]
struct Invalid;

type Parsed<T> = Result<T, Invalid>;

/// The components of a URI as `java.net.URI` parses them, raw (still escaped).
#[derive(Debug, Default, PartialEq)]
struct Uri<'a> {
    scheme: Option<&'a str>,
    user_info: Option<&'a str>,
    /// Set only for a server-based authority; an IPv6 literal keeps its brackets.
    host: Option<&'a str>,
    /// -1 when absent.
    port: i32,
    /// `None` for an opaque URI (`mailto:x@y`).
    path: Option<&'a str>,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

/// The parser over one input; positions are byte offsets (every delimiter is ASCII).
struct Parser<'a> {
    input: &'a str,
    require_server: bool,
    uri: Uri<'a>,
}

impl<'a> Uri<'a> {
    /// `new URI(input)` (`require_server` false) or the re-parse of the seven-part
    /// constructor, which insists on a server-based authority.
    fn parse(input: &'a str, require_server: bool) -> Parsed<Uri<'a>> {
        let mut parser = Parser {
            input,
            require_server,
            uri: Uri {
                port: -1,
                ..Uri::default()
            },
        };
        parser.parse()?;
        Ok(parser.uri)
    }
}

impl<'a> Parser<'a> {
    fn byte(&self, p: usize) -> Option<u8> {
        self.input.as_bytes().get(p).copied()
    }

    fn at(&self, p: usize, end: usize, c: u8) -> bool {
        p < end && self.byte(p) == Some(c)
    }

    fn slice(&self, from: usize, to: usize) -> Parsed<&'a str> {
        self.input.get(from..to).ok_or(Invalid)
    }

    /// The first position in `[start, end)` holding one of `stop`, else `end`.
    fn find(&self, start: usize, end: usize, stop: &[u8]) -> usize {
        (start..end)
            .find(|&p| self.byte(p).is_some_and(|b| stop.contains(&b)))
            .unwrap_or(end)
    }

    /// As [`Parser::find`], but `None` when one of `err` comes first.
    fn find_unless(&self, start: usize, end: usize, err: &[u8], stop: &[u8]) -> Option<usize> {
        for p in start..end {
            let b = self.byte(p)?;
            if err.contains(&b) {
                return None;
            }
            if stop.contains(&b) {
                return Some(p);
            }
        }
        Some(end)
    }

    /// The end of the run of `class` characters from `start` (a malformed `%` escape in a
    /// class that allows escapes is an error, as in Java).
    fn scan(&self, start: usize, end: usize, class: Class) -> Parsed<usize> {
        let mut p = start;
        while p < end {
            let Some(c) = self.input.get(p..).and_then(|s| s.chars().next()) else {
                break;
            };
            if class.has(c) {
                p += 1;
                continue;
            }
            if class.escaped {
                if c == '%' {
                    let hex = |i: usize| {
                        self.byte(i)
                            .is_some_and(|b| (b as char).is_ascii_hexdigit())
                    };
                    if p + 3 <= end && hex(p + 1) && hex(p + 2) {
                        p += 3;
                        continue;
                    }
                    return Err(Invalid);
                }
                if c as u32 > 128 && !space_or_control(c) {
                    p += c.len_utf8();
                    continue;
                }
            }
            break;
        }
        Ok(p)
    }

    fn check(&self, start: usize, end: usize, class: Class) -> Parsed<()> {
        if self.scan(start, end, class)? < end {
            Err(Invalid)
        } else {
            Ok(())
        }
    }

    fn parse(&mut self) -> Parsed<()> {
        let n = self.input.len();
        let mut p = match self.find_unless(0, n, b"/?#", b":") {
            Some(colon) if self.at(colon, n, b':') => {
                if colon == 0 {
                    return Err(Invalid);
                }
                self.check(0, 1, plain(ALPHA))?;
                self.check(1, colon, SCHEME)?;
                self.uri.scheme = Some(self.slice(0, colon)?);
                let p = colon + 1;
                if self.at(p, n, b'/') {
                    self.hierarchical(p, n)?
                } else {
                    // Opaque: a non-empty scheme-specific part.
                    let q = self.find(p, n, b"#");
                    if q <= p {
                        return Err(Invalid);
                    }
                    self.check(p, q, URIC)?;
                    q
                }
            }
            _ => self.hierarchical(0, n)?,
        };
        if self.at(p, n, b'#') {
            self.check(p + 1, n, URIC)?;
            self.uri.fragment = Some(self.slice(p + 1, n)?);
            p = n;
        }
        if p < n { Err(Invalid) } else { Ok(()) }
    }

    fn hierarchical(&mut self, start: usize, n: usize) -> Parsed<usize> {
        let mut p = start;
        if self.at(p, n, b'/') && self.at(p + 1, n, b'/') {
            p += 2;
            let q = self.find(p, n, b"/?#");
            if q > p {
                p = self.authority(p, q)?;
            } else if q >= n {
                // "scheme://" with nothing after: an authority is expected.
                return Err(Invalid);
            }
        }
        let q = self.find(p, n, b"?#");
        self.check(p, q, PATH)?;
        self.uri.path = Some(self.slice(p, q)?);
        p = q;
        if self.at(p, n, b'?') {
            p += 1;
            let q = self.find(p, n, b"#");
            self.check(p, q, URIC)?;
            self.uri.query = Some(self.slice(p, q)?);
            p = q;
        }
        Ok(p)
    }

    /// A server-based authority (`user@host:port`) when it parses as one, else a
    /// registry-based one (no host) when its characters allow, else an error.
    fn authority(&mut self, p: usize, n: usize) -> Parsed<usize> {
        // Java's test "contains a ']'" holds for any authority not starting with ']'.
        let server_class = if self.find(p, n, b"]") > p {
            SERVER_PERCENT
        } else {
            SERVER
        };
        let server_chars = self.scan(p, n, server_class)? == n;
        let reg_chars = self.scan(p, n, REG_NAME)? == n;
        if server_chars {
            if let Ok(q) = self.server(p, n)
                && q == n
            {
                return Ok(n);
            }
            self.uri.user_info = None;
            self.uri.host = None;
            self.uri.port = -1;
            if self.require_server {
                return Err(Invalid);
            }
        }
        if reg_chars { Ok(n) } else { Err(Invalid) }
    }

    fn server(&mut self, start: usize, n: usize) -> Parsed<usize> {
        let mut p = start;
        if let Some(q) = self.find_unless(p, n, b"/?#", b"@")
            && self.at(q, n, b'@')
        {
            self.check(p, q, USERINFO)?;
            self.uri.user_info = Some(self.slice(p, q)?);
            p = q + 1;
        }
        if self.at(p, n, b'[') {
            p += 1;
            match self.find_unless(p, n, b"/?#", b"]") {
                Some(q) if q > p && self.at(q, n, b']') => {
                    let r = self.find(p, q, b"%");
                    if r > p {
                        self.ipv6_reference(p, r)?;
                        if r + 1 == q {
                            return Err(Invalid);
                        }
                        if r < q {
                            self.check(r + 1, q, SCOPE_ID)?;
                        }
                    } else {
                        self.ipv6_reference(p, q)?;
                    }
                    self.uri.host = Some(self.slice(p - 1, q + 1)?);
                    p = q + 1;
                }
                _ => return Err(Invalid),
            }
        } else {
            p = match self.ipv4_host(p, n) {
                Some(q) if q > p => q,
                _ => self.hostname(p, n)?,
            };
        }
        if self.at(p, n, b':') {
            p += 1;
            let q = self.find(p, n, b"/");
            if q > p {
                self.check(p, q, plain(DIGIT))?;
                self.uri.port = self.slice(p, q)?.parse().map_err(|_| Invalid)?;
                p = q;
            }
        }
        if p < n { Err(Invalid) } else { Ok(p) }
    }

    /// One decimal byte (at most 255) from `start`; `start` itself when there is none.
    fn scan_byte(&self, start: usize, n: usize) -> Parsed<usize> {
        let q = self.scan(start, n, plain(DIGIT))?;
        if q <= start {
            return Ok(q);
        }
        match self.slice(start, q)?.parse::<u32>() {
            Ok(v) if v <= 255 => Ok(q),
            Ok(_) => Ok(start),
            Err(_) => Err(Invalid),
        }
    }

    /// A dotted-quad IPv4 address from `start`: `None` when no digits or dots start there (or,
    /// `strict`, when they do not run to `n`), an error when they do not form one.
    fn scan_ipv4(&self, start: usize, n: usize, strict: bool) -> Parsed<Option<usize>> {
        let m = self.scan(start, n, plain(DIGIT | chars(b".")))?;
        if m <= start || (strict && m != n) {
            return Ok(None);
        }
        let mut p = start;
        for i in 0..4 {
            if i > 0 {
                if !self.at(p, m, b'.') {
                    return Err(Invalid);
                }
                p += 1;
            }
            let q = self.scan_byte(p, m)?;
            if q <= p {
                return Err(Invalid);
            }
            p = q;
        }
        if p < m { Err(Invalid) } else { Ok(Some(p)) }
    }

    /// An IPv4 host (followed by nothing or a port), its end; `None` to try a hostname.
    fn ipv4_host(&mut self, start: usize, n: usize) -> Option<usize> {
        let p = self.scan_ipv4(start, n, false).ok()??;
        if p < n && self.byte(p) != Some(b':') {
            return None;
        }
        self.uri.host = self.input.get(start..p);
        Some(p)
    }

    fn hostname(&mut self, start: usize, n: usize) -> Parsed<usize> {
        let mut p = start;
        let mut last_label = None;
        loop {
            let q = self.scan(p, n, plain(ALPHANUM))?;
            if q <= p {
                break;
            }
            last_label = Some(p);
            p = q;
            let q = self.scan(p, n, plain(ALPHANUM | chars(b"-")))?;
            if q > p {
                if self.byte(q - 1) == Some(b'-') {
                    return Err(Invalid);
                }
                p = q;
            }
            if !self.at(p, n, b'.') {
                break;
            }
            p += 1;
            if p >= n {
                break;
            }
        }
        if p < n && !self.at(p, n, b':') {
            return Err(Invalid);
        }
        let label = last_label.ok_or(Invalid)?;
        // The rightmost label of a qualified name starts with a letter.
        if label > start && !self.byte(label).is_some_and(|b| b.is_ascii_alphabetic()) {
            return Err(Invalid);
        }
        self.uri.host = Some(self.slice(start, p)?);
        Ok(p)
    }

    /// Validates the IPv6 literal in `[start, n)` (Java's `parseIPv6Reference`).
    fn ipv6_reference(&self, start: usize, n: usize) -> Parsed<()> {
        let mut bytes = 0;
        let mut compressed = false;
        let mut p = start;
        match self.hex_seq(p, n, &mut bytes)? {
            Some(q) => {
                p = q;
                if self.at(p, n, b':') && self.at(p + 1, n, b':') {
                    compressed = true;
                    p = self.hex_post(p + 2, n, &mut bytes)?;
                } else if self.at(p, n, b':') {
                    p = self.take_ipv4(p + 1, n)?;
                    bytes += 4;
                }
            }
            None => {
                if self.at(p, n, b':') && self.at(p + 1, n, b':') {
                    compressed = true;
                    p = self.hex_post(p + 2, n, &mut bytes)?;
                }
            }
        }
        let valid =
            p >= n && bytes <= 16 && (compressed || bytes == 16) && !(compressed && bytes == 16);
        if valid { Ok(()) } else { Err(Invalid) }
    }

    fn hex_post(&self, start: usize, n: usize, bytes: &mut usize) -> Parsed<usize> {
        if start == n {
            return Ok(start);
        }
        match self.hex_seq(start, n, bytes)? {
            Some(q) if self.at(q, n, b':') => {
                let p = self.take_ipv4(q + 1, n)?;
                *bytes += 4;
                Ok(p)
            }
            Some(q) => Ok(q),
            None => {
                let p = self.take_ipv4(start, n)?;
                *bytes += 4;
                Ok(p)
            }
        }
    }

    /// Colon-separated groups of 1–4 hex digits, stopping before `::` or an embedded IPv4
    /// address; `None` when none starts here.
    fn hex_seq(&self, start: usize, n: usize, bytes: &mut usize) -> Parsed<Option<usize>> {
        let hex = plain(HEX);
        let q = self.scan(start, n, hex)?;
        if q <= start || self.at(q, n, b'.') {
            return Ok(None);
        }
        if q > start + 4 {
            return Err(Invalid);
        }
        *bytes += 2;
        let mut p = q;
        while p < n {
            if !self.at(p, n, b':') || self.at(p + 1, n, b':') {
                break;
            }
            let q = self.scan(p + 1, n, hex)?;
            if q <= p + 1 {
                return Err(Invalid);
            }
            if self.at(q, n, b'.') {
                break;
            }
            if q > p + 5 {
                return Err(Invalid);
            }
            *bytes += 2;
            p = q;
        }
        Ok(Some(p))
    }

    fn take_ipv4(&self, start: usize, n: usize) -> Parsed<usize> {
        match self.scan_ipv4(start, n, true)? {
            Some(p) if p > start => Ok(p),
            _ => Err(Invalid),
        }
    }
}

/// `URI.decode`: runs of `%XX` escapes as UTF-8 (invalid sequences as U+FFFD).
fn decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut run = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        let escape = match bytes.get(i..i + 3) {
            Some([b'%', h, l]) => hex(*h).zip(hex(*l)).map(|(h, l)| (h * 16 + l) as u8),
            _ => None,
        };
        match escape {
            Some(b) => {
                run.push(b);
                i += 3;
            }
            _ => {
                if !run.is_empty() {
                    out.push_str(&String::from_utf8_lossy(&run));
                    run.clear();
                }
                let len = s[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&s[i..i + len]);
                i += len;
            }
        }
    }
    out.push_str(&String::from_utf8_lossy(&run));
    out
}

/// `URI.quote`: characters outside `class` as `%XX` (ASCII) or UTF-8 `%XX` runs (non-ASCII
/// space and control characters); other non-ASCII characters as they are.
fn quote(s: &str, class: Class) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() {
            if class.has(c) {
                out.push(c);
            } else {
                push_escape(&mut out, c as u8);
            }
        } else if class.escaped && space_or_control(c) {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                push_escape(&mut out, b);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The decoded components handed to Java's seven-part `URI` constructor.
struct Parts {
    scheme: Option<String>,
    user_info: Option<String>,
    host: Option<String>,
    port: i32,
    path: Option<String>,
    query: Option<String>,
    fragment: Option<String>,
}

impl Parts {
    fn of(uri: &Uri) -> Parts {
        Parts {
            scheme: uri.scheme.map(str::to_string),
            user_info: uri.user_info.map(decode),
            host: uri.host.map(str::to_string),
            port: uri.port,
            path: uri.path.map(decode),
            query: uri.query.map(decode),
            fragment: uri.fragment.map(decode),
        }
    }
}

/// `new URI(scheme, userInfo, host, port, path, query, fragment).toString()`: the parts
/// re-quoted and joined (an authority only with a host), then parsed again requiring a
/// server-based authority.
fn rebuild(parts: &Parts) -> Parsed<String> {
    let mut s = String::new();
    if let Some(scheme) = &parts.scheme {
        s.push_str(scheme);
        s.push(':');
    }
    if let Some(host) = &parts.host {
        s.push_str("//");
        if let Some(user) = &parts.user_info {
            s.push_str(&quote(user, USERINFO));
            s.push('@');
        }
        let brackets = host.contains(':') && !host.starts_with('[') && !host.ends_with(']');
        if brackets {
            s.push('[');
        }
        s.push_str(host);
        if brackets {
            s.push(']');
        }
        if parts.port != -1 {
            s.push(':');
            s.push_str(&parts.port.to_string());
        }
    }
    if let Some(path) = &parts.path {
        s.push_str(&quote(path, PATH));
    }
    if let Some(query) = &parts.query {
        s.push('?');
        s.push_str(&quote(query, URIC));
    }
    if let Some(fragment) = &parts.fragment {
        s.push('#');
        s.push_str(&quote(fragment, URIC));
    }
    // "Relative path in absolute URI".
    if parts.scheme.is_some()
        && parts
            .path
            .as_deref()
            .is_some_and(|p| !p.is_empty() && !p.starts_with('/'))
    {
        return Err(Invalid);
    }
    Uri::parse(&s, true)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Result<Value, FunctionError> {
        lookup(name).unwrap().eval(args)
    }

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    /// The one-argument function on `input`, as an optional string.
    fn one(name: &str, input: &str) -> Option<String> {
        match call(name, &[s(input)]).unwrap() {
            Value::String(v) => Some(v),
            Value::Null => None,
            other => panic!("{name}({input}) gave {other:?}"),
        }
    }

    fn array(name: &str, args: &[Value]) -> Vec<String> {
        match call(name, args).unwrap() {
            Value::Array(items) => items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => s,
                    other => panic!("{other:?}"),
                })
                .collect(),
            other => panic!("{name} gave {other:?}"),
        }
    }

    const INVALID: &[&str] = &["invalid_url", "http://", "https://", ""];

    #[test]
    fn java_uri_parser() {
        let u = Uri::parse("https://user:pw@Example.com:8080/a/b%20c?x=1&y#frag", false).unwrap();
        assert_eq!(u.scheme, Some("https"));
        assert_eq!(u.user_info, Some("user:pw"));
        assert_eq!(u.host, Some("Example.com"));
        assert_eq!(u.port, 8080);
        assert_eq!(u.path, Some("/a/b%20c"));
        assert_eq!(u.query, Some("x=1&y"));
        assert_eq!(u.fragment, Some("frag"));
        // Opaque: no path, no host.
        let u = Uri::parse("mailto:name@email.com", false).unwrap();
        assert_eq!((u.scheme, u.path, u.host), (Some("mailto"), None, None));
        // Registry-based authorities have no host.
        for url in [
            "http://my_host.com/x",
            "https://example.com:invalid",
            "http://1.2.3.4.5/",
            "http://a-.com:-1/",
        ] {
            let u = Uri::parse(url, false).unwrap();
            assert_eq!((u.host, u.port), (None, -1), "{url}");
        }
        assert_eq!(
            Uri::parse("http://10.0.0.1:99/", false).unwrap().host,
            Some("10.0.0.1")
        );
        assert_eq!(
            Uri::parse("http://[::1%eth0]:80/", false).unwrap().host,
            Some("[::1%eth0]")
        );
        assert_eq!(
            Uri::parse("http://[::ffff:1.2.3.4]/", false).unwrap().host,
            Some("[::ffff:1.2.3.4]")
        );
        for bad in [
            "http://",
            "a b",
            "http://h/a b",
            "1http://x",
            ":x",
            "http://h/%zz",
            "http://[::1/",
            "http://[1:2:3:4:5:6:7:8:9]/",
            "http://[1::2::3]/",
            "http://[12345::]/",
            "x:",
            "http://a^b/",
        ] {
            assert!(Uri::parse(bad, false).is_err(), "{bad}");
        }
        assert_eq!(decode("a%C3%A9%20b%FF"), "aé b\u{fffd}");
        assert_eq!(quote("/a b%é\u{a0}?", PATH), "/a%20b%25é%C2%A0%3F");
    }

    #[test]
    fn protocol_domain_and_subdomains() {
        for (url, protocol) in [
            ("http://example.com", "http"),
            ("ftp://example.com", "ftp"),
            ("mailto:name@email.com", "mailto"),
            ("tel:1234567890", "tel"),
            ("magnet:?xt=urn:btih:1234567890", "magnet"),
        ] {
            assert_eq!(one("urlProtocol", url).as_deref(), Some(protocol));
        }
        assert_eq!(one("urlProtocol", "invalid_url"), None);
        for (url, domain, without_www, tld, first, cut, cut_www) in [
            (
                "https://example.com",
                "example.com",
                "example.com",
                "com",
                "example",
                "example.com",
                "example.com",
            ),
            (
                "https://www.example.com",
                "www.example.com",
                "example.com",
                "com",
                "example",
                "example.com",
                "www.example.com",
            ),
            (
                "https://news.example.com",
                "news.example.com",
                "news.example.com",
                "com",
                "example",
                "example.com",
                "example.com",
            ),
            (
                "https://news.example.com.cn",
                "news.example.com.cn",
                "news.example.com.cn",
                "cn",
                "example",
                "example.com.cn",
                "example.com.cn",
            ),
            (
                "https://sub.example.co.uk",
                "sub.example.co.uk",
                "sub.example.co.uk",
                "uk",
                "example",
                "example.co.uk",
                "example.co.uk",
            ),
            (
                "https://www.example.co.uk",
                "www.example.co.uk",
                "example.co.uk",
                "uk",
                "example",
                "example.co.uk",
                "www.example.co.uk",
            ),
            (
                "https://www.sub.example.com",
                "www.sub.example.com",
                "sub.example.com",
                "com",
                "example",
                "example.com",
                "example.com",
            ),
            (
                "https://example.travel",
                "example.travel",
                "example.travel",
                "travel",
                "example",
                "example.travel",
                "example.travel",
            ),
        ] {
            assert_eq!(one("urlDomain", url).as_deref(), Some(domain), "{url}");
            assert_eq!(
                one("urlDomainWithoutWWW", url).as_deref(),
                Some(without_www),
                "{url}"
            );
            assert_eq!(one("urlTopLevelDomain", url).as_deref(), Some(tld), "{url}");
            assert_eq!(
                one("urlFirstSignificantSubdomain", url).as_deref(),
                Some(first),
                "{url}"
            );
            assert_eq!(
                one("cutToFirstSignificantSubdomain", url).as_deref(),
                Some(cut),
                "{url}"
            );
            assert_eq!(
                one("cutToFirstSignificantSubdomainWithWWW", url).as_deref(),
                Some(cut_www),
                "{url}"
            );
        }
        for name in [
            "urlDomain",
            "urlDomainWithoutWWW",
            "urlTopLevelDomain",
            "urlFirstSignificantSubdomain",
            "cutToFirstSignificantSubdomain",
            "cutToFirstSignificantSubdomainWithWWW",
        ] {
            for url in INVALID
                .iter()
                .chain(&["www.cn", "cn", "http://my_host.com/"])
            {
                assert_eq!(one(name, url), None, "{name}({url})");
            }
            assert_eq!(call(name, &[Value::Null]).unwrap(), Value::Null);
        }
    }

    #[test]
    fn port_path_query_fragment() {
        for (url, port) in [
            ("https://example.com:8080", 8080),
            ("http://example.com:80", 80),
            ("https://example.com", -1),
            ("https://example.com:invalid", -1),
            ("invalid_url", -1),
            ("http://", -1),
            ("", -1),
        ] {
            assert_eq!(
                call("urlPort", &[s(url)]).unwrap(),
                Value::Int(port),
                "{url}"
            );
        }
        for (url, path) in [
            ("https://example.com/path", Some("/path")),
            ("https://example.com/", Some("/")),
            ("https://example.com", Some("")),
            (
                "https://example.com/path/to/resource?query=param",
                Some("/path/to/resource"),
            ),
            (
                "https://example.com/path/to/resource#fragment",
                Some("/path/to/resource"),
            ),
            ("https://example.com/a%20b", Some("/a b")),
            ("/relative/path", None),
        ] {
            assert_eq!(one("urlPath", url).as_deref(), path, "{url}");
        }
        assert_eq!(
            one("urlPathWithQuery", "https://example.com/path?query=value").as_deref(),
            Some("/path")
        );
        assert_eq!(
            one("urlPathWithQuery", "https://example.com/?query=value").as_deref(),
            Some("/")
        );
        assert_eq!(
            one("urlPathWithQuery", "https://example.com/a%20b").as_deref(),
            Some("/a%20b")
        );
        assert_eq!(
            one(
                "urlQueryString",
                "https://example.com/path?param1=value1&param2=value2"
            )
            .as_deref(),
            Some("param1=value1&param2=value2")
        );
        assert_eq!(
            one(
                "urlQueryString",
                "https://example.com/path?param=value#fragment"
            )
            .as_deref(),
            Some("param=value")
        );
        assert_eq!(one("urlQueryString", "https://example.com/path"), None);
        assert_eq!(
            one("urlFragment", "https://example.com/#top").as_deref(),
            Some("top")
        );
        assert_eq!(one("urlFragment", "https://example.com/path"), None);
        for (url, out) in [
            (
                "https://example.com/path?query=value#fragment",
                Some("query=value#fragment"),
            ),
            ("https://example.com/path?param=value", Some("param=value")),
            ("https://example.com/path#fragment", Some("fragment")),
            ("https://example.com/path", None),
        ] {
            assert_eq!(
                one("urlQueryStringAndFragment", url).as_deref(),
                out,
                "{url}"
            );
        }
        for name in [
            "urlPath",
            "urlPathWithQuery",
            "urlQueryString",
            "urlFragment",
            "urlQueryStringAndFragment",
        ] {
            for url in INVALID {
                assert_eq!(one(name, url), None, "{name}({url})");
            }
        }
        for (url, out) in [
            (
                "https://user@example.com:8080/path",
                Some("user@example.com:8080"),
            ),
            (
                "https://user:pass@example.com:8080/path",
                Some("user:pass@example.com:8080"),
            ),
            ("https://example.com/path", Some("example.com")),
            ("random", Some("")),
            ("", Some("")),
            ("http://", None),
        ] {
            assert_eq!(one("urlNetloc", url).as_deref(), out, "{url}");
        }
    }

    #[test]
    fn parameters() {
        let url = |u: &str, n: &str| call("extractURLParameter", &[s(u), s(n)]).unwrap();
        for (u, n, out) in [
            ("https://example.com/path?param=value", "param", "value"),
            (
                "https://example.com/path?param1=value1&param2=value2",
                "param2",
                "value2",
            ),
            (
                "https://example.com/path?param=value#fragment",
                "param",
                "value",
            ),
            (
                "https://example.com/path?param=value&param=",
                "param",
                "value",
            ),
            ("https://example.com/path?param=value&param2", "param2", ""),
            ("https://example.com/path?param=value&param2", "param3", ""),
            ("https://example.com/path", "param", ""),
            ("https://example.com/path?", "param", ""),
            ("https://example.com/path?param=value&param2=value2", "", ""),
            ("https://example.com/path?a=x%3Dy", "a", "x=y"),
            ("invalid url", "a", ""),
        ] {
            assert_eq!(url(u, n), s(out), "{u} {n}");
        }
        assert_eq!(
            call("extractURLParameter", &[s("http://h/?a=1"), Value::Null]).unwrap(),
            Value::Null
        );
        let both = "https://example.com/path?param1=value1&param2=value2";
        assert_eq!(
            array("extractURLParameters", &[s(both)]),
            ["param1=value1", "param2=value2"]
        );
        assert_eq!(
            array("extractURLParameterNames", &[s(both)]),
            ["param1", "param2"]
        );
        assert_eq!(
            array("extractURLParameterNames", &[s("http://h/?a&=b&c=d=e&&")]),
            ["a", "", "c"]
        );
        assert_eq!(
            array("extractURLParameters", &[s("https://example.com/path?")]),
            [""]
        );
        for u in ["https://example.com/path", "invalid_url", "http://", ""] {
            assert!(array("extractURLParameters", &[s(u)]).is_empty(), "{u}");
            assert!(array("extractURLParameterNames", &[s(u)]).is_empty(), "{u}");
        }
    }

    #[test]
    fn hierarchies() {
        assert_eq!(
            array("urlHierarchy", &[s("https://example.com/path/to")]),
            [
                "https://example.com",
                "https://example.com/path",
                "https://example.com/path/to"
            ]
        );
        assert_eq!(
            array("urlHierarchy", &[s("https://user@example.com:80")]),
            ["https://example.com"]
        );
        assert_eq!(
            array("urlHierarchy", &[s("https://example.com/a/")]),
            ["https://example.com", "https://example.com/a"]
        );
        // Pinot's out-of-bounds write for a root path ends in the empty array.
        assert!(array("urlHierarchy", &[s("https://example.com/")]).is_empty());
        for u in INVALID {
            assert!(array("urlHierarchy", &[s(u)]).is_empty(), "{u}");
        }
        assert_eq!(
            array(
                "urlPathHierarchy",
                &[s("https://example.com/path/to/resource")]
            ),
            ["/path", "/path/to", "/path/to/resource"]
        );
        assert_eq!(array("urlPathHierarchy", &[s("relative/path")]), ["/path"]);
        for u in [
            "https://example.com/",
            "https://example.com",
            "invalid_url",
            "mailto:a@b",
        ] {
            assert!(array("urlPathHierarchy", &[s(u)]).is_empty(), "{u}");
        }
    }

    #[test]
    fn cutting() {
        for (url, www, query, fragment, both) in [
            (
                "https://www.example.com",
                "https://example.com",
                "https://www.example.com",
                "https://www.example.com",
                "https://www.example.com",
            ),
            (
                "https://www.sub.example.com/p?q=1#f",
                "https://sub.example.com/p?q=1#f",
                "https://www.sub.example.com/p#f",
                "https://www.sub.example.com/p?q=1",
                "https://www.sub.example.com/p",
            ),
            (
                "https://example.com/path?param1=value1&param2=value2",
                "https://example.com/path?param1=value1&param2=value2",
                "https://example.com/path",
                "https://example.com/path?param1=value1&param2=value2",
                "https://example.com/path",
            ),
            (
                "https://example.com/#top",
                "https://example.com/#top",
                "https://example.com/#top",
                "https://example.com/",
                "https://example.com/",
            ),
            // Rebuilt from the decoded parts: escapes of safe characters disappear.
            (
                "http://h/%41%20?q=%26#x",
                "http://h/A%20?q=&#x",
                "http://h/A%20#x",
                "http://h/A%20?q=&",
                "http://h/A%20",
            ),
            // A registry authority is dropped by the rebuild.
            (
                "http://my_host/p?q",
                "http:/p?q",
                "http:/p",
                "http:/p?q",
                "http:/p",
            ),
        ] {
            assert_eq!(one("cutWWW", url).as_deref(), Some(www), "{url}");
            assert_eq!(one("cutQueryString", url).as_deref(), Some(query), "{url}");
            assert_eq!(one("cutFragment", url).as_deref(), Some(fragment), "{url}");
            assert_eq!(
                one("cutQueryStringAndFragment", url).as_deref(),
                Some(both),
                "{url}"
            );
        }
        for name in [
            "cutWWW",
            "cutQueryString",
            "cutFragment",
            "cutQueryStringAndFragment",
        ] {
            for url in INVALID
                .iter()
                .chain(&["mailto:name@email.com", "magnet:?xt=1"])
            {
                assert_eq!(one(name, url).as_deref(), Some(*url), "{name}({url})");
            }
        }
        let cut = |u: &str, n: &str| call("cutURLParameter", &[s(u), s(n)]).unwrap();
        for (u, n, out) in [
            (
                "https://example.com/path?param1=value1&param2=value2",
                "param1",
                "https://example.com/path?param2=value2",
            ),
            (
                "https://example.com/path?param=value",
                "param",
                "https://example.com/path",
            ),
            (
                "https://example.com/path?param1=value1&param2=value2&param4&param3=value3#fragment",
                "param4",
                "https://example.com/path?param1=value1&param2=value2&param3=value3#fragment",
            ),
            (
                "https://example.com/path?a%20b=1&c=2",
                "a b",
                "https://example.com/path?c=2",
            ),
            (
                "https://example.com/path?param=value",
                "",
                "https://example.com/path?param=value",
            ),
            ("https://example.com", "param", "https://example.com"),
            ("invalid_url", "param", "invalid_url"),
            ("https://", "param", "https://"),
        ] {
            assert_eq!(cut(u, n), s(out), "{u} {n}");
        }
        let names = |ns: &[&str]| Value::Array(ns.iter().map(|n| s(n)).collect());
        let many =
            "https://example.com/path?param1=value1&param2=value2&param4&param3=value3#fragment";
        assert_eq!(
            call("cutURLParameters", &[s(many), names(&["param2", "param3"])]).unwrap(),
            s("https://example.com/path?param1=value1&param4#fragment")
        );
        assert_eq!(
            call("cutURLParameters", &[s(many), names(&[])]).unwrap(),
            s(many)
        );
        assert_eq!(
            call("cutURLParameters", &[s(""), names(&["param"])]).unwrap(),
            s("")
        );
        assert!(call("cutURLParameters", &[s(many), s("param2")]).is_err());
        assert_eq!(
            call("cutURLParameters", &[Value::Null, names(&["a"])]).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn form_encoding() {
        for name in ["urlEncode", "urlEncodeFormComponent", "encodeUrl"] {
            for (input, out) in [
                (
                    "https://example.com/path to resource",
                    "https%3A%2F%2Fexample.com%2Fpath+to+resource",
                ),
                (
                    "https://example.com/path?query=value#fragment",
                    "https%3A%2F%2Fexample.com%2Fpath%3Fquery%3Dvalue%23fragment",
                ),
                (
                    "key1=value 1&key2=value@!$2&key3=value%3",
                    "key1%3Dvalue+1%26key2%3Dvalue%40%21%242%26key3%3Dvalue%253",
                ),
                ("a.b-c*d_e~é", "a.b-c*d_e%7E%C3%A9"),
                ("", ""),
            ] {
                assert_eq!(one(name, input).as_deref(), Some(out), "{name}({input})");
            }
        }
        for name in ["urlDecode", "urlDecodeFormComponent", "decodeUrl"] {
            for (input, out) in [
                (
                    "https%3A%2F%2Fexample.com%2Fpath%20to%20resource",
                    "https://example.com/path to resource",
                ),
                (
                    "https%3A%2F%2Fexample.com%2Fpath+to+resource",
                    "https://example.com/path to resource",
                ),
                (
                    "key1%3Dvalue+1%26key2%3Dvalue%40%21%242%26key3%3Dvalue%253",
                    "key1=value 1&key2=value@!$2&key3=value%3",
                ),
                ("%C3%A9%FF", "é\u{fffd}"),
                ("random_path", "random_path"),
                ("", ""),
            ] {
                assert_eq!(one(name, input).as_deref(), Some(out), "{name}({input})");
            }
        }
        // Java's Integer.parseInt accepts a sign in an escape.
        assert_eq!(one("urlDecode", "%+41%-0").as_deref(), Some("\u{4}1\u{0}"));
        assert_eq!(one("urlDecodeFormComponent", "%+41"), None);
        for bad in ["%", "%4", "%zz", "a%-1", "%4é"] {
            assert_eq!(one("urlDecode", bad), None, "{bad}");
            assert!(call("decodeUrl", &[s(bad)]).is_err(), "{bad}");
        }
        assert_eq!(call("urlEncode", &[Value::Null]).unwrap(), Value::Null);
        assert_eq!(call("decodeUrl", &[Value::Null]).unwrap(), Value::Null);
    }
}
