//! The grammar's input and error types and its token-level primitives.
//!
//! [`Tokens`] is a nom [`Input`] over the token list. It carries a shared [`Ctx`] that records
//! the furthest token any alternative failed at (what Calcite reports as "Encountered …", since
//! `opt`/`alt` would otherwise discard it), the current nesting depth (so hostile input cannot
//! overflow the stack) and the positions where a parenthesised subquery already failed (so
//! `((((…` backtracking stays linear).

use std::cell::{Cell, RefCell};
use std::collections::HashSet;

use nom::error::{ErrorKind, ParseError as NomParseError};
use nom::{IResult, Input, Needed};

use super::lexical::{Token, TokenKind};

/// How deeply expressions and queries may nest before the parser gives up (each parenthesis or
/// `CASE` level costs one or two).
pub(crate) const MAX_DEPTH: usize = 128;

/// Parse state shared by every [`Tokens`] value of one parse.
#[derive(Debug, Default)]
pub(crate) struct Ctx {
    /// Smallest index at which no alternative matched, as "furthest token reached".
    furthest: Cell<usize>,
    depth: Cell<usize>,
    failed_subqueries: RefCell<HashSet<usize>>,
}

impl Ctx {
    /// Index of the furthest token any parser failed at.
    pub fn furthest(&self) -> usize {
        self.furthest.get()
    }
}

/// The token stream being parsed: a window of the token list plus the shared [`Ctx`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tokens<'a> {
    toks: &'a [Token<'a>],
    /// Index of `toks[0]` in the whole token list.
    offset: usize,
    ctx: &'a Ctx,
}

impl<'a> Tokens<'a> {
    /// The stream over a whole token list (which ends with an `Eof` token).
    pub fn new(toks: &'a [Token<'a>], ctx: &'a Ctx) -> Self {
        Tokens {
            toks,
            offset: 0,
            ctx,
        }
    }

    /// Index of the next token in the whole token list.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The next token (`None` only for an exhausted window, never at the top level).
    pub fn peek(&self) -> Option<&'a Token<'a>> {
        self.toks.first()
    }

    /// The token `n` positions ahead.
    pub fn peek_nth(&self, n: usize) -> Option<&'a Token<'a>> {
        self.toks.get(n)
    }

    /// The stream after the next `n` tokens.
    pub fn advance(&self, n: usize) -> Self {
        self.take_from(n)
    }

    fn note_failure(&self) {
        if self.offset > self.ctx.furthest.get() {
            self.ctx.furthest.set(self.offset);
        }
    }
}

impl<'a> Input for Tokens<'a> {
    type Item = &'a Token<'a>;
    type Iter = std::slice::Iter<'a, Token<'a>>;
    type IterIndices = std::iter::Enumerate<std::slice::Iter<'a, Token<'a>>>;

    fn input_len(&self) -> usize {
        self.toks.len()
    }

    fn take(&self, index: usize) -> Self {
        let n = index.min(self.toks.len());
        Tokens {
            toks: &self.toks[..n],
            ..*self
        }
    }

    fn take_from(&self, index: usize) -> Self {
        let n = index.min(self.toks.len());
        Tokens {
            toks: &self.toks[n..],
            offset: self.offset + n,
            ctx: self.ctx,
        }
    }

    fn take_split(&self, index: usize) -> (Self, Self) {
        (self.take_from(index), self.take(index))
    }

    fn position<P>(&self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool,
    {
        self.toks.iter().position(predicate)
    }

    fn iter_elements(&self) -> Self::Iter {
        self.toks.iter()
    }

    fn iter_indices(&self) -> Self::IterIndices {
        self.toks.iter().enumerate()
    }

    fn slice_index(&self, count: usize) -> Result<usize, Needed> {
        if self.toks.len() >= count {
            Ok(count)
        } else {
            Err(Needed::new(count - self.toks.len()))
        }
    }
}

/// A grammar error: the token index it happened at and, for errors that are not plain "this
/// token was unexpected" (numbers out of range, nesting too deep), a message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PError {
    pub pos: usize,
    pub message: Option<String>,
}

impl<'a> NomParseError<Tokens<'a>> for PError {
    fn from_error_kind(input: Tokens<'a>, _kind: ErrorKind) -> Self {
        input.note_failure();
        PError {
            pos: input.offset,
            message: None,
        }
    }

    fn append(_input: Tokens<'a>, _kind: ErrorKind, other: Self) -> Self {
        other
    }

    fn or(self, other: Self) -> Self {
        match (&self.message, &other.message) {
            (Some(_), None) => self,
            (None, Some(_)) => other,
            _ if self.pos > other.pos => self,
            _ => other,
        }
    }
}

/// Result of every grammar rule.
pub(crate) type PResult<'a, O> = IResult<Tokens<'a>, O, PError>;

/// A recoverable "unexpected token here" error at `i`.
pub(crate) fn fail<'a, O>(i: Tokens<'a>) -> PResult<'a, O> {
    Err(nom::Err::Error(PError::from_error_kind(i, ErrorKind::Tag)))
}

/// An unrecoverable error with its own message, reported as is.
pub(crate) fn failure<'a, O>(i: Tokens<'a>, message: impl Into<String>) -> PResult<'a, O> {
    Err(nom::Err::Failure(PError {
        pos: i.offset,
        message: Some(message.into()),
    }))
}

/// Runs `f` one nesting level deeper, failing beyond [`MAX_DEPTH`].
pub(crate) fn nested<'a, O>(
    i: Tokens<'a>,
    f: impl FnOnce(Tokens<'a>) -> PResult<'a, O>,
) -> PResult<'a, O> {
    let depth = i.ctx.depth.get();
    if depth >= MAX_DEPTH {
        return failure(
            i,
            format!("Query is nested too deeply (more than {MAX_DEPTH} levels)"),
        );
    }
    i.ctx.depth.set(depth + 1);
    let result = f(i);
    i.ctx.depth.set(depth);
    result
}

/// Runs `f` unless it already failed at this position (memoised failure).
pub(crate) fn memo_failure<'a, O>(
    i: Tokens<'a>,
    f: impl FnOnce(Tokens<'a>) -> PResult<'a, O>,
) -> PResult<'a, O> {
    if i.ctx.failed_subqueries.borrow().contains(&i.offset) {
        return fail(i);
    }
    let result = f(i);
    if let Err(nom::Err::Error(_)) = &result {
        i.ctx.failed_subqueries.borrow_mut().insert(i.offset);
    }
    result
}

/// Matches the next token with `pred`.
pub(crate) fn token_if<'a>(
    i: Tokens<'a>,
    pred: impl Fn(&Token<'a>) -> bool,
) -> PResult<'a, &'a Token<'a>> {
    match i.peek() {
        Some(t) if pred(t) => Ok((i.advance(1), t)),
        _ => fail(i),
    }
}

/// keyword(kw) := the unquoted word `kw`, any case
pub(crate) fn keyword<'a>(kw: &'static str) -> impl Fn(Tokens<'a>) -> PResult<'a, ()> {
    move |i| token_if(i, |t| t.is_keyword(kw)).map(|(i, _)| (i, ()))
}

/// punct(p) := the operator or punctuation `p`
pub(crate) fn punct<'a>(p: &'static str) -> impl Fn(Tokens<'a>) -> PResult<'a, ()> {
    move |i| token_if(i, |t| t.is_punct(p)).map(|(i, _)| (i, ()))
}

/// Whether the next tokens are the keywords `kws` in order (no consumption).
pub(crate) fn peek_keywords(i: &Tokens<'_>, kws: &[&str]) -> bool {
    kws.iter()
        .enumerate()
        .all(|(n, kw)| i.peek_nth(n).is_some_and(|t| t.is_keyword(kw)))
}

/// Words that can never be identifiers: what the grammar needs to stay unambiguous. Everything
/// else (`date`, `timestamp`, `value`, `year`, `filter`, `over`, …) is usable as a name.
const RESERVED: [&str; 53] = [
    "ALL",
    "AND",
    "AS",
    "ASC",
    "ASOF",
    "BETWEEN",
    "BY",
    "CASE",
    "CAST",
    "CROSS",
    "DESC",
    "DISTINCT",
    "ELSE",
    "END",
    "EXCEPT",
    "EXISTS",
    "EXPLAIN",
    "FALSE",
    "FETCH",
    "FROM",
    "FULL",
    "GROUP",
    "HAVING",
    "IN",
    "INNER",
    "INTERSECT",
    "IS",
    "JOIN",
    "LEFT",
    "MATCH_CONDITION",
    "LIKE",
    "LIMIT",
    "MINUS",
    "NATURAL",
    "NOT",
    "NULL",
    "OFFSET",
    "ON",
    "OR",
    "ORDER",
    "OUTER",
    "RIGHT",
    "SELECT",
    "SET",
    "THEN",
    "TRUE",
    "UNION",
    "USING",
    "WHEN",
    "WHERE",
    "WITH",
    "LATERAL",
    "WINDOW",
];

/// Whether `word` is a reserved keyword.
pub(crate) fn is_reserved(word: &str) -> bool {
    RESERVED.iter().any(|r| r.eq_ignore_ascii_case(word))
}

/// identifier := non-reserved word | quoted identifier
pub(crate) fn identifier(i: Tokens<'_>) -> PResult<'_, String> {
    token_if(i, |t| match t.kind {
        TokenKind::Word => !is_reserved(t.text),
        TokenKind::QuotedIdent => true,
        _ => false,
    })
    .map(|(i, t)| (i, t.value.to_string()))
}

/// Parses an unsigned integer literal token into `u64`.
pub(crate) fn unsigned_integer(i: Tokens<'_>) -> PResult<'_, u64> {
    let (rest, t) = token_if(i, |t| t.kind == TokenKind::Number)?;
    match t.text.parse::<u64>() {
        Ok(n) => Ok((rest, n)),
        Err(_) if t.text.bytes().all(|b| b.is_ascii_digit()) => {
            failure(i, format!("Numeric literal '{}' out of range", t.text))
        }
        Err(_) => fail(i),
    }
}

/// any_keyword(kws) := one of the unquoted words `kws`, any case
pub(crate) fn any_keyword<'a>(
    kws: &'static [&'static str],
) -> impl Fn(Tokens<'a>) -> PResult<'a, &'a Token<'a>> {
    move |i| token_if(i, |t| kws.iter().any(|k| t.is_keyword(k)))
}
