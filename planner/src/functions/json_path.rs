//! JSONPath as Jayway JsonPath (Pinot's library) reads it, for the JSON functions.
//!
//! Supported: the root `$` (or `@`), `.key` and `['key']` / `["key"]` (with `\` escapes),
//! several keys `['a','b']`, indexes `[n]` (negative counts from the end) and index lists
//! `[0,2]`, slices `[from:to]` / `[from:]` / `[:to]`, the wildcards `.*` / `[*]`, deep scans
//! `..key` / `..*` / `..[0]`, and filters `[?(…)]` with `@` / `$` paths, literals (numbers,
//! `'text'`, `"text"`, `true`, `false`, `null`, JSON arrays and objects), the operators `==`,
//! `!=`, `===`, `!==`, `<`, `<=`, `>`, `>=`, `=~ /regex/flags`, `in`, `nin`, existence checks
//! (`@.a`, `!@.a`) and `&&`, `||`, `!`, parentheses. Path functions (`.length()`), filter
//! placeholders (`[?]`) and the filter operators `size`, `empty`, `contains`, `subsetof`,
//! `anyof`, `noneof`, `all`, `type` and `matches` are refused with an error.
//!
//! As in Jayway, a path that does not start with `$` or `@` is read as `$.` + path, a path may
//! not end with `.`, and the last character is ignored when the token before it ends one
//! character before the end (Jayway's `$..**` is `$..*`). A path is *definite* when it names at
//! most one value (no wildcard, scan, slice, filter, index list or non-final key list): reading
//! it gives that value or nothing. Reading an indefinite path gives the array of its matches, in
//! document order (deep scans visit a node before its children).
//!
//! Known differences from Jayway: the deep-scan quirks Jayway has for index tokens that are not
//! last (`$..[0].a.b`) and for wildcards before a key (`$..*.a` across arrays) are not copied —
//! those paths match what they say; numbers in filters compare as doubles.

use regex::{Regex, RegexBuilder};
use serde_json::{Map, Value as Json};
use std::borrow::Cow;

#[derive(Clone, Debug)]
enum Token {
    /// One key, or several (`['a','b']`).
    Property(Vec<String>),
    /// One index, or several (`[0,2]`).
    Index(Vec<i64>),
    Slice(Option<i64>, Option<i64>),
    Wildcard,
    Scan,
    Filter(Box<Expr>),
}

/// A compiled JSONPath.
#[derive(Clone, Debug)]
pub(crate) struct JsonPath {
    tokens: Vec<Token>,
}

/// One match: its normalized path (`$['a'][0]`, empty unless asked for) and value.
type Match<'a> = (String, Cow<'a, Json>);

impl JsonPath {
    /// Compiles a path; the error is the reason it is unsupported or malformed.
    pub(crate) fn parse(path: &str) -> Result<JsonPath, String> {
        let trimmed = path.trim_matches(' ');
        let text: Cow<str> = if trimmed.starts_with('$') || trimmed.starts_with('@') {
            Cow::Borrowed(trimmed)
        } else {
            Cow::Owned(format!("$.{trimmed}"))
        };
        if text.ends_with('.') {
            return Err("a path must not end with '.' or '..'".into());
        }
        let mut parser = Parser {
            chars: text.chars().collect(),
            pos: 0,
            tokens: Vec::new(),
        };
        parser.root()?;
        Ok(JsonPath {
            tokens: parser.tokens,
        })
    }

    /// Whether the path names at most one value.
    pub(crate) fn is_definite(&self) -> bool {
        let last = self.tokens.len().saturating_sub(1);
        self.tokens.iter().enumerate().all(|(i, t)| match t {
            Token::Property(keys) => keys.len() == 1 || i == last,
            Token::Index(indexes) => indexes.len() == 1,
            _ => false,
        })
    }

    /// The value a definite path names (`None` when missing; `Some(Null)` for a JSON null),
    /// or the array of matches of an indefinite path.
    pub(crate) fn read(&self, root: &Json) -> Option<Json> {
        let matches = self.evaluate(root, false);
        if self.is_definite() {
            matches.into_iter().next().map(|(_, v)| v.into_owned())
        } else {
            Some(Json::Array(
                matches.into_iter().map(|(_, v)| v.into_owned()).collect(),
            ))
        }
    }

    /// The normalized paths of the matches (`$['a']['b']`, `$['a'][0]`): Jayway's `AS_PATH_LIST`.
    pub(crate) fn paths(&self, root: &Json) -> Vec<String> {
        self.evaluate(root, true)
            .into_iter()
            .map(|(p, _)| p)
            .collect()
    }

    fn evaluate<'a>(&self, root: &'a Json, track: bool) -> Vec<Match<'a>> {
        let cx = Context { root, track };
        let mut out = Vec::new();
        let start = if track {
            "$".to_string()
        } else {
            String::new()
        };
        self.eval(0, root, &start, &cx, &mut out);
        out
    }

    fn eval<'a>(
        &self,
        i: usize,
        node: &'a Json,
        path: &str,
        cx: &Context<'a>,
        out: &mut Vec<Match<'a>>,
    ) {
        let Some(token) = self.tokens.get(i) else {
            out.push((path.to_string(), Cow::Borrowed(node)));
            return;
        };
        let leaf = i + 1 == self.tokens.len();
        match token {
            Token::Property(keys) => {
                let Json::Object(map) = node else { return };
                if keys.len() > 1 && leaf {
                    let mut merged = Map::new();
                    for key in keys {
                        if let Some(v) = map.get(key) {
                            merged.insert(key.clone(), v.clone());
                        }
                    }
                    let p = cx.seg(path, || {
                        let quoted: Vec<String> = keys.iter().map(|k| format!("'{k}'")).collect();
                        format!("[{}]", quoted.join(", "))
                    });
                    out.push((p, Cow::Owned(Json::Object(merged))));
                    return;
                }
                for key in keys {
                    if let Some(v) = map.get(key) {
                        self.eval(i + 1, v, &cx.key(path, key), cx, out);
                    }
                }
            }
            Token::Index(indexes) => {
                for index in indexes {
                    self.index(i, node, *index, path, cx, out);
                }
            }
            Token::Slice(from, to) => {
                let Json::Array(items) = node else { return };
                let len = items.len() as i64;
                if len == 0 {
                    return;
                }
                let range = match (from, to) {
                    (Some(from), None) => {
                        let from = if *from < 0 { len + from } else { *from };
                        from.max(0)..len
                    }
                    // Jayway leaves negative bounds of a two-sided slice as they are; a
                    // negative index then counts from the end.
                    (Some(from), Some(to)) => *from..(*to).min(len),
                    (None, Some(to)) => {
                        let to = if *to < 0 { len + to } else { *to };
                        0..to.min(len)
                    }
                    (None, None) => 0..0,
                };
                for index in range {
                    self.index(i, node, index, path, cx, out);
                }
            }
            Token::Wildcard => match node {
                Json::Object(map) => {
                    for (key, v) in map {
                        self.eval(i + 1, v, &cx.key(path, key), cx, out);
                    }
                }
                Json::Array(items) => {
                    for (index, v) in items.iter().enumerate() {
                        self.eval(i + 1, v, &cx.index(path, index as i64), cx, out);
                    }
                }
                _ => {}
            },
            Token::Scan => self.scan(i + 1, node, path, cx, out),
            Token::Filter(expr) => match node {
                Json::Object(_) if expr.accepts(node, cx.root) => {
                    self.eval(i + 1, node, path, cx, out);
                }
                Json::Array(items) => {
                    for (index, v) in items.iter().enumerate() {
                        if expr.accepts(v, cx.root) {
                            self.eval(i + 1, v, &cx.index(path, index as i64), cx, out);
                        }
                    }
                }
                _ => {}
            },
        }
    }

    fn index<'a>(
        &self,
        i: usize,
        node: &'a Json,
        index: i64,
        path: &str,
        cx: &Context<'a>,
        out: &mut Vec<Match<'a>>,
    ) {
        let Json::Array(items) = node else { return };
        let at = if index < 0 {
            items.len() as i64 + index
        } else {
            index
        };
        if let Some(v) = usize::try_from(at).ok().and_then(|at| items.get(at)) {
            self.eval(i + 1, v, &cx.index(path, index), cx, out);
        }
    }

    /// A deep scan whose target is token `j`: tried at `node` and every node below it.
    fn scan<'a>(
        &self,
        j: usize,
        node: &'a Json,
        path: &str,
        cx: &Context<'a>,
        out: &mut Vec<Match<'a>>,
    ) {
        let Some(target) = self.tokens.get(j) else {
            return;
        };
        let leaf = j + 1 == self.tokens.len();
        let applies = match (target, node) {
            (Token::Property(keys), Json::Object(map)) => {
                (keys.len() > 1 && !leaf) || keys.iter().all(|k| map.contains_key(k))
            }
            (Token::Index(_) | Token::Slice(..), Json::Array(_)) => true,
            (Token::Wildcard, Json::Object(_) | Json::Array(_)) => true,
            (Token::Filter(expr), Json::Object(_)) => expr.accepts(node, cx.root),
            _ => false,
        };
        if applies {
            self.eval(j, node, path, cx, out);
        }
        match node {
            Json::Object(map) => {
                for (key, v) in map {
                    self.scan(j, v, &cx.key(path, key), cx, out);
                }
            }
            Json::Array(items) => {
                for (index, v) in items.iter().enumerate() {
                    self.scan(j, v, &cx.index(path, index as i64), cx, out);
                }
            }
            _ => {}
        }
    }
}

struct Context<'a> {
    root: &'a Json,
    track: bool,
}

impl Context<'_> {
    fn seg(&self, path: &str, segment: impl FnOnce() -> String) -> String {
        if self.track {
            format!("{path}{}", segment())
        } else {
            String::new()
        }
    }

    fn key(&self, path: &str, key: &str) -> String {
        self.seg(path, || format!("['{key}']"))
    }

    fn index(&self, path: &str, index: i64) -> String {
        self.seg(path, || format!("[{index}]"))
    }
}

/// Jayway's path compiler, over characters.
struct Parser {
    chars: Vec<char>,
    pos: usize,
    tokens: Vec<Token>,
}

impl Parser {
    fn at(&self, i: usize) -> Option<char> {
        self.chars.get(i).copied()
    }

    fn cur(&self) -> Option<char> {
        self.at(self.pos)
    }

    /// Jayway's `currentIsTail`: at or past the last character.
    fn is_tail(&self) -> bool {
        self.pos + 1 >= self.chars.len()
    }

    /// The index of the next character after `i` that is not a space.
    fn next_significant(&self, i: usize) -> Option<usize> {
        (i + 1..self.chars.len()).find(|&k| self.chars[k] != ' ')
    }

    fn root(&mut self) -> Result<(), String> {
        if !matches!(self.cur(), Some('$' | '@')) {
            return Err("a path must start with '$' or '@'".into());
        }
        if self.is_tail() {
            return Ok(());
        }
        self.pos = 1;
        if !matches!(self.cur(), Some('.' | '[')) {
            return Err("illegal character at position 1: expected '.' or '['".into());
        }
        self.tokens_from_here()
    }

    /// Reads tokens until the end (Jayway's `readNextToken` chain).
    fn tokens_from_here(&mut self) -> Result<(), String> {
        loop {
            match self.cur() {
                Some('.') => {
                    self.dot()?;
                    continue;
                }
                Some('[') => self.bracket()?,
                Some('*') => {
                    self.pos += 1;
                    self.tokens.push(Token::Wildcard);
                }
                Some(_) => self.property()?,
                None => return Err("unexpected end of path".into()),
            }
            if self.is_tail() {
                return Ok(());
            }
        }
    }

    fn dot(&mut self) -> Result<(), String> {
        if self.at(self.pos + 1) == Some('.') {
            self.tokens.push(Token::Scan);
            self.pos += 2;
        } else if self.pos + 1 >= self.chars.len() {
            return Err("a path must not end with '.'".into());
        } else {
            self.pos += 1;
        }
        if self.cur() == Some('.') {
            return Err(format!(
                "character '.' at position {} is not valid",
                self.pos
            ));
        }
        Ok(())
    }

    fn property(&mut self) -> Result<(), String> {
        let start = self.pos;
        if matches!(self.cur(), Some('[' | '*' | '.' | ' ')) {
            return Err(format!("could not parse token at position {start}"));
        }
        let mut end = start;
        while let Some(c) = self.at(end) {
            match c {
                ' ' => {
                    return Err(
                        "use the bracket notation ['my prop'] for a property with blanks".into(),
                    );
                }
                '.' | '[' => break,
                '(' => {
                    let name: String = self.chars[start..end].iter().collect();
                    return Err(format!(
                        "path functions such as '{name}()' are not supported"
                    ));
                }
                _ => end += 1,
            }
        }
        self.tokens.push(Token::Property(vec![
            self.chars[start..end].iter().collect(),
        ]));
        self.pos = end;
        Ok(())
    }

    fn bracket(&mut self) -> Result<(), String> {
        let open = self.pos;
        let Some(first) = self.next_significant(open) else {
            return Err("missing ']'".into());
        };
        match self.chars[first] {
            '\'' | '"' => self.bracket_properties(first),
            c if c.is_ascii_digit() || c == '-' || c == ':' => self.array(open),
            '*' => {
                let close = self
                    .next_significant(first)
                    .filter(|&k| self.chars[k] == ']')
                    .ok_or("a wildcard must end with ']'")?;
                self.tokens.push(Token::Wildcard);
                self.pos = close + 1;
                Ok(())
            }
            '?' => self.filter(open, first),
            _ => Err(format!(
                "could not parse token at position {open}: expected ?, ', 0-9 or *"
            )),
        }
    }

    fn bracket_properties(&mut self, first: usize) -> Result<(), String> {
        let quote = self.chars[first];
        let mut keys = Vec::new();
        let mut i = first;
        loop {
            // At an opening quote.
            let mut key = String::new();
            let mut k = i + 1;
            loop {
                match self.at(k) {
                    None => return Err(format!("property has not been closed: missing {quote}")),
                    Some('\\') => {
                        let (c, used) = unescape(&self.chars[k + 1..]);
                        key.extend(c);
                        k += 1 + used;
                    }
                    Some(c) if c == quote => break,
                    Some(c) => {
                        key.push(c);
                        k += 1;
                    }
                }
            }
            keys.push(key);
            match self.next_significant(k).map(|n| (n, self.chars[n])) {
                Some((n, ']')) => {
                    self.pos = n + 1;
                    break;
                }
                Some((n, ',')) => match self.next_significant(n).map(|m| (m, self.chars[m])) {
                    Some((m, c)) if c == quote => i = m,
                    _ => return Err(format!("found an empty property at position {n}")),
                },
                _ => {
                    return Err(format!(
                        "properties must be separated by ',' and closed by ']' at position {k}"
                    ));
                }
            }
        }
        self.tokens.push(Token::Property(keys));
        Ok(())
    }

    fn array(&mut self, open: usize) -> Result<(), String> {
        let close = (open + 1..self.chars.len())
            .find(|&k| self.chars[k] == ']')
            .ok_or("missing ']'")?;
        let expression: String = self.chars[open + 1..close].iter().collect();
        let expression = expression.trim_matches(' ');
        if !expression
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ',' | '-' | ':' | ' '))
        {
            return Err(format!("unsupported array selector '[{expression}]'"));
        }
        let int = |t: &str| -> Result<i64, String> {
            t.parse::<i32>()
                .map(i64::from)
                .map_err(|_| format!("bad array index '{t}' in '[{expression}]'"))
        };
        if expression.contains(':') {
            if expression.contains(' ') {
                return Err(format!("bad slice '[{expression}]'"));
            }
            // Java's split: trailing empty parts dropped.
            let mut parts: Vec<&str> = expression.split(':').collect();
            while parts.last() == Some(&"") {
                parts.pop();
            }
            let bound = |k: usize| -> Result<Option<i64>, String> {
                match parts.get(k) {
                    None | Some(&"") => Ok(None),
                    Some(t) => int(t).map(Some),
                }
            };
            let (from, to) = (bound(0)?, bound(1)?);
            if from.is_none() && to.is_none() {
                return Err(format!("bad slice '[{expression}]'"));
            }
            self.tokens.push(Token::Slice(from, to));
        } else {
            let indexes = expression
                .split(',')
                .map(|t| int(t.trim_matches(' ')))
                .collect::<Result<Vec<_>, _>>()?;
            self.tokens.push(Token::Index(indexes));
        }
        self.pos = close + 1;
        Ok(())
    }

    fn filter(&mut self, open: usize, question: usize) -> Result<(), String> {
        let paren = match self.next_significant(question) {
            Some(k) if self.chars[k] == '(' => k,
            Some(k) if matches!(self.chars[k], ']' | ',') => {
                return Err("filter placeholders '[?]' are not supported".into());
            }
            _ => return Err(format!("could not parse the filter at position {open}")),
        };
        let close = closing_paren(&self.chars, paren)
            .ok_or_else(|| format!("the filter at position {open} is not closed"))?;
        let end = self
            .next_significant(close)
            .filter(|&k| self.chars[k] == ']')
            .ok_or_else(|| format!("the filter at position {open} must end with ')]'"))?;
        let expr = FilterParser::new(&self.chars[paren..=close]).parse()?;
        self.tokens.push(Token::Filter(Box::new(expr)));
        self.pos = end + 1;
        Ok(())
    }
}

/// The character an escape sequence (after `\`) stands for, and how many characters it used.
fn unescape(rest: &[char]) -> (Option<char>, usize) {
    match rest.first() {
        None => (None, 0),
        Some('n') => (Some('\n'), 1),
        Some('t') => (Some('\t'), 1),
        Some('r') => (Some('\r'), 1),
        Some('b') => (Some('\u{8}'), 1),
        Some('f') => (Some('\u{c}'), 1),
        Some('u') if rest.len() >= 5 => {
            let hex: String = rest[1..5].iter().collect();
            match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                Some(c) => (Some(c), 5),
                None => (Some('u'), 1),
            }
        }
        Some(c) => (Some(*c), 1),
    }
}

/// The index of the `)` closing the `(` at `open`, skipping quoted text and regexes.
fn closing_paren(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    let mut previous = ' ';
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' | '"' => i = skip_quoted(chars, i)?,
            '/' if previous == '~' => i = skip_quoted(chars, i)?,
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        if c != ' ' {
            previous = c;
        }
        i += 1;
    }
    None
}

/// The index of the unescaped delimiter closing the one at `open`.
fn skip_quoted(chars: &[char], open: usize) -> Option<usize> {
    let quote = chars[open];
    let mut i = open + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            c if c == quote => return Some(i),
            _ => i += 1,
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Filters

#[derive(Clone, Debug)]
enum Expr {
    Or(Vec<Expr>),
    And(Vec<Expr>),
    Not(Box<Expr>),
    Exists { operand: Operand, should: bool },
    Compare(Operand, Op, Operand),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Eq,
    Ne,
    TypedEq,
    TypedNe,
    Lt,
    Le,
    Gt,
    Ge,
    Regex,
    In,
    Nin,
}

#[derive(Clone, Debug)]
enum Operand {
    /// A path from the current node (`@`) or the document (`$`).
    Path {
        path: Box<JsonPath>,
        from_root: bool,
    },
    Literal(Json),
    Pattern(Regex),
}

/// What an operand is worth for one node (Jayway's value nodes).
enum Item<'a> {
    Undefined,
    Null,
    Bool(bool),
    Number(f64),
    Text(Cow<'a, str>),
    /// An object or array.
    Container(Cow<'a, Json>),
    Pattern(&'a Regex),
}

impl Expr {
    fn accepts(&self, node: &Json, root: &Json) -> bool {
        match self {
            Expr::Or(items) => items.iter().any(|e| e.accepts(node, root)),
            Expr::And(items) => items.iter().all(|e| e.accepts(node, root)),
            Expr::Not(inner) => !inner.accepts(node, root),
            Expr::Exists { operand, should } => operand.exists(node, root) == *should,
            Expr::Compare(left, op, right) => {
                let (l, r) = (left.item(node, root), right.item(node, root));
                compare(&l, *op, &r)
            }
        }
    }
}

impl Operand {
    fn exists(&self, node: &Json, root: &Json) -> bool {
        match self {
            Operand::Path { path, from_root } => {
                let start = if *from_root { root } else { node };
                let matches = path.evaluate(start, false);
                !matches.is_empty()
            }
            _ => true,
        }
    }

    fn item<'a>(&'a self, node: &'a Json, root: &'a Json) -> Item<'a> {
        match self {
            Operand::Path { path, from_root } => {
                let start = if *from_root { root } else { node };
                match path.read(start) {
                    None => Item::Undefined,
                    Some(v) => item_of(Cow::Owned(v)),
                }
            }
            Operand::Literal(v) => item_of(Cow::Borrowed(v)),
            Operand::Pattern(re) => Item::Pattern(re),
        }
    }
}

fn item_of(v: Cow<'_, Json>) -> Item<'_> {
    match v.as_ref() {
        Json::Null => Item::Null,
        Json::Bool(b) => Item::Bool(*b),
        Json::Number(n) => Item::Number(n.as_f64().unwrap_or(f64::NAN)),
        Json::String(_) => match v {
            Cow::Borrowed(Json::String(s)) => Item::Text(Cow::Borrowed(s)),
            Cow::Owned(Json::String(s)) => Item::Text(Cow::Owned(s)),
            _ => Item::Null,
        },
        Json::Array(_) | Json::Object(_) => Item::Container(v),
    }
}

fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn equal(l: &Item, r: &Item) -> bool {
    match (l, r) {
        (Item::Container(a), Item::Container(b)) => a == b,
        (Item::Number(a), Item::Number(b)) => a == b,
        (Item::Number(a), Item::Text(s)) => s.trim().parse::<f64>().is_ok_and(|b| *a == b),
        (Item::Text(s), Item::Number(n)) => s.as_ref() == number_text(*n),
        (Item::Text(a), Item::Text(b)) => a == b,
        (Item::Bool(a), Item::Bool(b)) => a == b,
        (Item::Null, Item::Null) => true,
        _ => false,
    }
}

fn same_kind(l: &Item, r: &Item) -> bool {
    std::mem::discriminant(l) == std::mem::discriminant(r)
}

fn compare(l: &Item, op: Op, r: &Item) -> bool {
    use std::cmp::Ordering;
    let order = || match (l, r) {
        (Item::Number(a), Item::Number(b)) => a.partial_cmp(b),
        (Item::Text(a), Item::Text(b)) => Some(a.cmp(b)),
        _ => None,
    };
    match op {
        Op::Eq => equal(l, r),
        Op::Ne => !equal(l, r),
        Op::TypedEq => same_kind(l, r) && equal(l, r),
        Op::TypedNe => !(same_kind(l, r) && equal(l, r)),
        Op::Lt => order() == Some(Ordering::Less),
        Op::Le => matches!(order(), Some(Ordering::Less | Ordering::Equal)),
        Op::Gt => order() == Some(Ordering::Greater),
        Op::Ge => matches!(order(), Some(Ordering::Greater | Ordering::Equal)),
        Op::In => contains(r, l),
        Op::Nin => !contains(r, l),
        Op::Regex => match (l, r) {
            (Item::Pattern(re), other) | (other, Item::Pattern(re)) => regex_matches(re, other),
            _ => false,
        },
    }
}

fn contains(list: &Item, value: &Item) -> bool {
    match list {
        Item::Container(c) => match c.as_ref() {
            Json::Array(items) => items
                .iter()
                .any(|v| equal(value, &item_of(Cow::Borrowed(v)))),
            _ => false,
        },
        _ => false,
    }
}

fn regex_matches(re: &Regex, input: &Item) -> bool {
    let text = |item: &Item| match item {
        Item::Text(s) => s.to_string(),
        Item::Number(n) => number_text(*n),
        Item::Bool(b) => b.to_string(),
        _ => String::new(),
    };
    match input {
        Item::Container(c) => match c.as_ref() {
            Json::Array(items) => items
                .iter()
                .any(|v| re.is_match(&text(&item_of(Cow::Borrowed(v))))),
            _ => false,
        },
        other => re.is_match(&text(other)),
    }
}

/// Jayway's filter compiler, over the characters of `( … )`.
struct FilterParser<'a> {
    chars: &'a [char],
    pos: usize,
}

impl<'a> FilterParser<'a> {
    fn new(chars: &'a [char]) -> Self {
        FilterParser { chars, pos: 0 }
    }

    fn parse(mut self) -> Result<Expr, String> {
        let expr = self.or()?;
        self.blanks();
        if self.pos < self.chars.len() {
            let rest: String = self.chars[self.pos..].iter().collect();
            return Err(format!(
                "expected the end of the filter instead of '{rest}'"
            ));
        }
        Ok(expr)
    }

    fn blanks(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn cur(&mut self) -> Option<char> {
        self.blanks();
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, text: &str) -> bool {
        self.blanks();
        let n = text.chars().count();
        let matches = self.pos + n <= self.chars.len()
            && self.chars[self.pos..self.pos + n]
                .iter()
                .copied()
                .eq(text.chars());
        if matches {
            self.pos += n;
        }
        matches
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut items = vec![self.and()?];
        while self.eat("||") {
            items.push(self.and()?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Expr::Or(items)
        })
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut items = vec![self.operand()?];
        while self.eat("&&") {
            items.push(self.operand()?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Expr::And(items)
        })
    }

    fn operand(&mut self) -> Result<Expr, String> {
        if self.cur() == Some('!') {
            let save = self.pos;
            self.pos += 1;
            if !matches!(self.cur(), Some('$' | '@')) {
                return Ok(Expr::Not(Box::new(self.operand()?)));
            }
            self.pos = save;
        }
        if self.cur() == Some('(') {
            self.pos += 1;
            let inner = self.or()?;
            if !self.eat(")") {
                return Err("missing ')' in the filter".into());
            }
            return Ok(inner);
        }
        self.relation()
    }

    fn relation(&mut self) -> Result<Expr, String> {
        let (left, negated) = self.value()?;
        let save = self.pos;
        match self.operator()? {
            Some(op) => {
                let (right, _) = self.value()?;
                Ok(Expr::Compare(left, op, right))
            }
            None => {
                self.pos = save;
                if !matches!(left, Operand::Path { .. }) {
                    return Err("a filter needs a path or a comparison".into());
                }
                Ok(Expr::Exists {
                    operand: left,
                    should: !negated,
                })
            }
        }
    }

    fn operator(&mut self) -> Result<Option<Op>, String> {
        let start = match self.cur() {
            Some(_) => self.pos,
            None => return Ok(None),
        };
        let is_op_char = |c: char| matches!(c, '<' | '>' | '=' | '~' | '!');
        let mut end = start;
        if is_op_char(self.chars[start]) {
            while end < self.chars.len() && is_op_char(self.chars[end]) {
                end += 1;
            }
        } else {
            while end < self.chars.len() && self.chars[end].is_alphabetic() {
                end += 1;
            }
        }
        let text: String = self.chars[start..end].iter().collect();
        let op = match text.to_ascii_uppercase().as_str() {
            "==" => Op::Eq,
            "!=" => Op::Ne,
            "===" => Op::TypedEq,
            "!==" => Op::TypedNe,
            "<" => Op::Lt,
            "<=" => Op::Le,
            ">" => Op::Gt,
            ">=" => Op::Ge,
            "=~" => Op::Regex,
            "IN" => Op::In,
            "NIN" => Op::Nin,
            "SIZE" | "EMPTY" | "CONTAINS" | "SUBSETOF" | "ANYOF" | "NONEOF" | "ALL" | "TYPE"
            | "MATCHES" => {
                return Err(format!("the filter operator '{text}' is not supported"));
            }
            _ => return Ok(None),
        };
        self.pos = end;
        Ok(Some(op))
    }

    /// An operand, and whether it was a path negated with `!`.
    fn value(&mut self) -> Result<(Operand, bool), String> {
        let mut negated = false;
        if self.cur() == Some('!') {
            self.pos += 1;
            negated = true;
            if !matches!(self.cur(), Some('$' | '@')) {
                return Err("unexpected '!' in the filter".into());
            }
        }
        match self.cur() {
            Some(c @ ('$' | '@')) => Ok((self.path(c == '$')?, negated)),
            Some(q @ ('\'' | '"')) => {
                let close = skip_quoted(self.chars, self.pos).ok_or("unterminated string")?;
                let mut text = String::new();
                let mut k = self.pos + 1;
                while k < close {
                    if self.chars[k] == '\\' {
                        let (c, used) = unescape(&self.chars[k + 1..close]);
                        text.extend(c);
                        k += 1 + used.max(1);
                    } else {
                        text.push(self.chars[k]);
                        k += 1;
                    }
                }
                let _ = q;
                self.pos = close + 1;
                Ok((Operand::Literal(Json::String(text)), false))
            }
            Some('/') => self.pattern().map(|p| (p, false)),
            Some('[' | '{') => self.json_literal().map(|j| (j, false)),
            Some(_) => {
                let start = self.pos;
                let mut end = start;
                while end < self.chars.len()
                    && (self.chars[end].is_ascii_alphanumeric()
                        || matches!(self.chars[end], '-' | '+' | '.'))
                {
                    end += 1;
                }
                let text: String = self.chars[start..end].iter().collect();
                self.pos = end;
                let literal = match text.as_str() {
                    "true" => Json::Bool(true),
                    "false" => Json::Bool(false),
                    "null" => Json::Null,
                    t => t
                        .parse::<f64>()
                        .ok()
                        .filter(|f| f.is_finite())
                        .and_then(|f| {
                            t.parse::<i64>()
                                .map(Json::from)
                                .ok()
                                .or_else(|| serde_json::Number::from_f64(f).map(Json::Number))
                        })
                        .ok_or_else(|| format!("unexpected '{t}' in the filter"))?,
                };
                Ok((Operand::Literal(literal), false))
            }
            None => Err("unexpected end of the filter".into()),
        }
    }

    fn path(&mut self, from_root: bool) -> Result<Operand, String> {
        let start = self.pos;
        let mut k = start + 1;
        while k < self.chars.len() {
            match self.chars[k] {
                '[' => {
                    let mut depth = 0usize;
                    while k < self.chars.len() {
                        match self.chars[k] {
                            '\'' | '"' => {
                                k = skip_quoted(self.chars, k).ok_or("unterminated string")?
                            }
                            '[' => depth += 1,
                            ']' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        k += 1;
                    }
                    k += 1;
                }
                '(' if self.chars.get(k + 1) == Some(&')') => k += 2,
                c if matches!(c, '<' | '>' | '=' | '~' | '!' | ')') || c.is_whitespace() => break,
                _ => k += 1,
            }
        }
        let text: String = self.chars[start..k.min(self.chars.len())].iter().collect();
        self.pos = k.min(self.chars.len());
        let path = JsonPath::parse(&text)?;
        Ok(Operand::Path {
            path: Box::new(path),
            from_root,
        })
    }

    fn pattern(&mut self) -> Result<Operand, String> {
        let close = skip_quoted(self.chars, self.pos).ok_or("the regex is not closed by '/'")?;
        let pattern: String = self.chars[self.pos + 1..close].iter().collect();
        let mut k = close + 1;
        let mut builder = RegexBuilder::new(&format!(r"\A(?:{pattern})\z"));
        while let Some(&flag) = self.chars.get(k) {
            match flag {
                'i' => builder.case_insensitive(true),
                'm' => builder.multi_line(true),
                's' => builder.dot_matches_new_line(true),
                'x' => builder.ignore_whitespace(true),
                'u' | 'd' | 'U' => &mut builder,
                _ => break,
            };
            k += 1;
        }
        self.pos = k;
        let re = builder
            .size_limit(1 << 20)
            .build()
            .map_err(|e| format!("bad regex /{pattern}/: {e}"))?;
        Ok(Operand::Pattern(re))
    }

    fn json_literal(&mut self) -> Result<Operand, String> {
        let open = self.chars[self.pos];
        let close_char = if open == '[' { ']' } else { '}' };
        let mut depth = 0usize;
        let mut k = self.pos;
        let end = loop {
            match self.chars.get(k) {
                None => return Err("a JSON literal in the filter is not closed".into()),
                Some('\'' | '"') => {
                    k = skip_quoted(self.chars, k).ok_or("unterminated string")?;
                }
                Some(&c) if c == open => depth += 1,
                Some(&c) if c == close_char => {
                    depth -= 1;
                    if depth == 0 {
                        break k;
                    }
                }
                _ => {}
            }
            k += 1;
        };
        let text = double_quoted(&self.chars[self.pos..=end]);
        self.pos = end + 1;
        let v: Json = serde_json::from_str(&text)
            .map_err(|e| format!("bad JSON literal '{text}' in the filter: {e}"))?;
        Ok(Operand::Literal(v))
    }
}

/// JSON text with its single-quoted strings (which Jayway's literal parser accepts) rewritten
/// in double quotes.
fn double_quoted(chars: &[char]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '"' => {
                let end = skip_quoted(chars, i).unwrap_or(chars.len() - 1);
                out.extend(&chars[i..=end]);
                i = end + 1;
            }
            '\'' => {
                let end = skip_quoted(chars, i).unwrap_or(chars.len());
                let mut text = String::new();
                let mut k = i + 1;
                while k < end.min(chars.len()) {
                    if chars[k] == '\\' {
                        let (c, used) = unescape(&chars[k + 1..end.min(chars.len())]);
                        text.extend(c);
                        k += 1 + used.max(1);
                    } else {
                        text.push(chars[k]);
                        k += 1;
                    }
                }
                out.push_str(&Json::String(text).to_string());
                i = end + 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(path: &str, doc: &Json) -> Option<Json> {
        JsonPath::parse(path).unwrap().read(doc)
    }

    fn paths(path: &str, doc: &Json) -> Vec<String> {
        JsonPath::parse(path).unwrap().paths(doc)
    }

    #[test]
    fn reads_definite_paths() {
        let doc = json!({"a": {"b": [10, {"c": "x"}], "d e": 1}, "n": null});
        assert_eq!(read("$", &doc), Some(doc.clone()));
        assert_eq!(read("$.a.b[0]", &doc), Some(json!(10)));
        assert_eq!(read("$.a.b[1].c", &doc), Some(json!("x")));
        assert_eq!(read("$.a.b[-1]['c']", &doc), Some(json!("x")));
        assert_eq!(read("$['a'][\"d e\"]", &doc), Some(json!(1)));
        assert_eq!(read("$.n", &doc), Some(Json::Null));
        assert_eq!(read("$.missing", &doc), None);
        assert_eq!(read("$.a.b[5]", &doc), None);
        assert_eq!(read("$.a.b.c", &doc), None);
        // Jayway reads a path without '$' as '$.' + path.
        assert_eq!(read("a.b[0]", &doc), Some(json!(10)));
        assert_eq!(read("$.[1]", &json!([1, 2])), Some(json!(2)));
    }

    #[test]
    fn wildcards_collect_matches() {
        let doc = json!({"items": [{"v": 1}, {"v": 2}, {"w": 3}]});
        assert_eq!(read("$.items[*].v", &doc), Some(json!([1, 2])));
        assert_eq!(read("$.items[0].*", &doc), Some(json!([1])));
        assert_eq!(read("$.nothing[*].v", &doc), Some(json!([])));
        assert_eq!(
            read("$.[*].sha", &json!([{"sha": 1}, {"sha": 2}])),
            Some(json!([1, 2]))
        );
    }

    #[test]
    fn slices_index_lists_and_key_lists() {
        let doc = json!({"a": [0, 1, 2, 3, 4], "o": {"x": 1, "y": 2, "z": 3}});
        assert_eq!(read("$.a[1:3]", &doc), Some(json!([1, 2])));
        assert_eq!(read("$.a[:2]", &doc), Some(json!([0, 1])));
        assert_eq!(read("$.a[-2:]", &doc), Some(json!([3, 4])));
        assert_eq!(read("$.a[3:]", &doc), Some(json!([3, 4])));
        assert_eq!(read("$.a[:-3]", &doc), Some(json!([0, 1])));
        assert_eq!(read("$.a[-3:-1]", &doc), Some(json!([2, 3])));
        assert_eq!(read("$.a[0,4]", &doc), Some(json!([0, 4])));
        assert_eq!(read("$.o['x','z']", &doc), Some(json!({"x": 1, "z": 3})));
    }

    #[test]
    fn deep_scans_visit_every_level() {
        let doc = json!({"name": 1, "a": {"name": 2, "b": [{"name": 3}, {"c": 4}]}});
        assert_eq!(read("$..name", &doc), Some(json!([1, 2, 3])));
        assert_eq!(read("$..b[0].name", &doc), Some(json!([3])));
        let flat = json!({"a": 1, "b": {"c": 2}});
        assert_eq!(
            paths("$..*", &flat),
            vec!["$['a']", "$['b']", "$['b']['c']"]
        );
        // Jayway ignores the last '*' of '$..**'.
        assert_eq!(paths("$..**", &flat), paths("$..*", &flat));
        assert_eq!(paths("$.*", &flat), vec!["$['a']", "$['b']"]);
        assert_eq!(paths("$.b.*", &flat), vec!["$['b']['c']"]);
        assert_eq!(paths("$.missing", &flat), Vec::<String>::new());
        assert_eq!(paths("$[*]", &json!([5, 6])), vec!["$[0]", "$[1]"]);
    }

    #[test]
    fn filters_select_elements() {
        let doc = json!({"store": {"book": [
            {"title": "A", "price": 8.95, "isbn": "1"},
            {"title": "B", "price": 12.99},
            {"title": "C", "price": 8, "tags": ["x", "y"]},
            {"title": "D", "price": 22.99, "isbn": null}
        ], "max": 10}});
        let titles = |path: &str| read(path, &doc).unwrap();
        assert_eq!(
            titles("$.store.book[?(@.price < 10)].title"),
            json!(["A", "C"])
        );
        assert_eq!(titles("$.store.book[?(@.isbn)].title"), json!(["A", "D"]));
        assert_eq!(titles("$.store.book[?(!@.isbn)].title"), json!(["B", "C"]));
        assert_eq!(
            titles("$.store.book[?(@.title == 'B')].price"),
            json!([12.99])
        );
        assert_eq!(
            titles("$.store.book[?(@.title != \"B\" && @.price > 20)].title"),
            json!(["D"])
        );
        assert_eq!(
            titles("$.store.book[?(@.price == 8 || (@.title =~ /a|d/i))].title"),
            json!(["A", "C", "D"])
        );
        assert_eq!(
            titles("$.store.book[?(@.title in ['A','D'])].title"),
            json!(["A", "D"])
        );
        assert_eq!(
            titles("$.store.book[?(@.title nin ['A','D'])].title"),
            json!(["B", "C"])
        );
        assert_eq!(
            titles("$.store.book[?(@.price <= $.store.max)].title"),
            json!(["A", "C"])
        );
        assert_eq!(titles("$..book[?(@.tags)].title"), json!(["C"]));
        assert_eq!(titles("$..[?(@.price > 20)].title"), json!(["D"]));
        // Numbers equal numeric text; '===' also needs the same type.
        assert_eq!(titles("$.store.book[?(@.isbn == 1)].title"), json!(["A"]));
        assert_eq!(titles("$.store.book[?(@.isbn === 1)].title"), json!([]));
    }

    #[test]
    fn refuses_unsupported_or_malformed_paths() {
        for path in [
            "$..",
            "$.",
            "$[",
            "$['a",
            "$x",
            "$.a b",
            "$.length()",
            "$.a[?]",
            "$.a[?(@.b size 2)]",
            "$.a[1 :2]",
            "$.a[x]",
            "$.a[?(@.b == )]",
            "",
        ] {
            assert!(JsonPath::parse(path).is_err(), "{path}");
        }
        assert!(JsonPath::parse("$.a[?(@.b =~ /(/)]").is_err());
    }

    #[test]
    fn definiteness() {
        for (path, definite) in [
            ("$", true),
            ("$.a[0]['b']", true),
            ("$.a['x','y']", true),
            ("$.a['x','y'].z", false),
            ("$.a[*]", false),
            ("$..a", false),
            ("$.a[0,1]", false),
            ("$.a[1:]", false),
            ("$.a[?(@.b)]", false),
        ] {
            assert_eq!(
                JsonPath::parse(path).unwrap().is_definite(),
                definite,
                "{path}"
            );
        }
    }
}
