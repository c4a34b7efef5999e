//! The nom 8 grammar for Pinot's SQL dialect: statement lists with `SET`, `EXPLAIN PLAN FOR`,
//! queries (see [`query`]) and expressions (see [`expressions`]), over the tokens of
//! [`lexical`]. One function per grammar rule, the rule in its doc comment.
//!
//! Like Pinot's `CalciteSqlParser`, the text is trimmed, one terminating `;` is dropped and a
//! trailing legacy `OPTION(k=v, …)` is cut off before parsing; error positions refer to that
//! trimmed text.

mod expressions;
mod hints;
mod lexical;
mod query;
mod tokens;

use nom::Parser;
use nom::combinator::opt;

use self::expressions::{expr, number_literal};
use self::lexical::{Token, TokenKind, eof_line_col, line_col, tokenize};
use self::query::{query, statement_end};
use self::tokens::{Ctx, PError, PResult, Tokens, fail, identifier, keyword, punct, token_if};
use super::ast::{Expr, Literal, Query, Statement};
use super::error::ParseError;

/// One parsed statement of a statement list.
enum RawStatement {
    /// `SET key = value`.
    Set(String, String),
    /// A query, possibly under `EXPLAIN PLAN FOR`, with the token index it starts at.
    Query {
        explain: bool,
        query: Query,
        pos: usize,
    },
}

/// Parses a statement list: `SET k = v;` statements, exactly one query (optionally under
/// `EXPLAIN PLAN FOR`), `;` separators, and a trailing legacy `OPTION(k=v, …)`.
///
/// Options: `SET` statements in order (a later `SET` of the same key, compared
/// case-insensitively, replaces the earlier one), then `OPTION` entries whose key was not set
/// (Pinot's `putIfAbsent`).
pub fn parse_statement(sql: &str) -> Result<Statement, ParseError> {
    let text = java_trim(sql);
    let text = text.strip_suffix(';').unwrap_or(text);
    let (text, legacy_options) = split_legacy_option(text)?;
    let tokens = tokenize(text)?;
    let statements = run_grammar(text, &tokens, statement_list)?;

    let mut set_options: Vec<(String, String)> = Vec::new();
    let mut executable: Option<(bool, Query)> = None;
    for statement in statements {
        match statement {
            RawStatement::Set(key, value) => {
                match set_options
                    .iter_mut()
                    .find(|(k, _)| k.eq_ignore_ascii_case(&key))
                {
                    Some(entry) => *entry = (key, value),
                    None => set_options.push((key, value)),
                }
            }
            RawStatement::Query {
                explain,
                query,
                pos,
            } => {
                if executable.is_some() {
                    let (line, column) = token_line_col(text, &tokens, pos);
                    return Err(ParseError {
                        message: "SqlNode with executable statement already exist with type: DQL"
                            .to_string(),
                        line,
                        column,
                    });
                }
                executable = Some((explain, query));
            }
        }
    }
    for (key, value) in legacy_options {
        if !set_options
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case(&key))
        {
            set_options.push((key, value));
        }
    }
    let Some((explain, query)) = executable else {
        return Err(ParseError {
            message: "SqlNode with executable statement not found!".to_string(),
            line: 1,
            column: 1,
        });
    };
    Ok(Statement {
        set_options,
        explain,
        query,
    })
}

/// Parses one standalone expression (e.g. `a + 1`, `count(*)`).
pub fn parse_expr(sql: &str) -> Result<Expr, ParseError> {
    let text = java_trim(sql);
    let tokens = tokenize(text)?;
    run_grammar(text, &tokens, |i| {
        let (i, (e, _)) = (expr, eof).parse(i)?;
        Ok((i, e))
    })
}

/// Nesting (parentheses plus open `CASE`s) up to which the grammar runs on the caller's stack;
/// deeper text is parsed on a helper thread with [`DEEP_STACK_BYTES`] of stack. Each level
/// costs up to ~80 KB of stack in debug builds (much less optimised).
const INLINE_NESTING: usize = 4;
/// Stack for parsing deeply nested text: room for [`tokens::MAX_DEPTH`] levels in debug builds.
const DEEP_STACK_BYTES: usize = 32 << 20;

/// The deepest nesting of parentheses and `CASE … END` in the token list: what bounds the
/// grammar's recursion.
fn nesting(tokens: &[Token<'_>]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for t in tokens {
        if t.is_punct("(") || t.is_keyword("CASE") {
            depth += 1;
            max = max.max(depth);
        } else if t.is_punct(")") || t.is_keyword("END") {
            depth = depth.saturating_sub(1);
        }
    }
    max
}

/// Runs `grammar` over the tokens and turns a failure into a [`ParseError`]; deeply nested
/// input is parsed on a scoped thread with a large stack so it cannot overflow the caller's.
fn run_grammar<O: Send>(
    text: &str,
    tokens: &[Token<'_>],
    grammar: impl for<'a> Fn(Tokens<'a>) -> PResult<'a, O> + Send + Sync,
) -> Result<O, ParseError> {
    let run = move || {
        let ctx = Ctx::default();
        match grammar(Tokens::new(tokens, &ctx)) {
            Ok((_, out)) => Ok(out),
            Err(e) => Err(grammar_error(text, tokens, &ctx, e)),
        }
    };
    if nesting(tokens) <= INLINE_NESTING {
        return run();
    }
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("sql-parser".to_string())
            .stack_size(DEEP_STACK_BYTES)
            .spawn_scoped(scope, run);
        let failed = |why: String| ParseError {
            message: format!("Cannot parse deeply nested query: {why}"),
            line: 1,
            column: 1,
        };
        match spawned {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|_| Err(failed("parser thread failed".to_string()))),
            Err(e) => Err(failed(e.to_string())),
        }
    })
}

/// Java's `String.trim()`: strips characters up to and including `' '` at both ends.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// `key = value` pairs from a legacy `OPTION(...)`.
type OptionPairs = Vec<(String, String)>;

/// Cuts a trailing `OPTION(k1=v1, k2=v2)` off the text (Pinot's
/// `\s*option\s*\(([^\)]+)\)\s*\Z`, case-insensitive) and splits it into pairs.
fn split_legacy_option(text: &str) -> Result<(&str, OptionPairs), ParseError> {
    let trimmed = text.trim_end();
    let Some(without_close) = trimmed.strip_suffix(')') else {
        return Ok((text, vec![]));
    };
    let Some(open) = without_close.rfind('(') else {
        return Ok((text, vec![]));
    };
    let body = &without_close[open + 1..];
    if body.is_empty() || body.contains(')') {
        return Ok((text, vec![]));
    }
    let before = without_close[..open].trim_end();
    let Some(kw_start) = before.len().checked_sub("option".len()) else {
        return Ok((text, vec![]));
    };
    let (Some(head), Some(word)) = (before.get(..kw_start), before.get(kw_start..)) else {
        return Ok((text, vec![]));
    };
    let at_word_start = head
        .chars()
        .next_back()
        .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '$'));
    if !word.eq_ignore_ascii_case("option") || !at_word_start {
        return Ok((text, vec![]));
    }
    let mut pairs = Vec::new();
    for part in body.split(',') {
        let fields: Vec<&str> = part.split('=').collect();
        // Java's `split("=")` drops trailing empty fields.
        let fields: Vec<&str> = match fields.iter().rposition(|f| !f.is_empty()) {
            Some(last) => fields[..=last].to_vec(),
            None => vec![],
        };
        if fields.len() != 2 {
            let (line, column) = line_col(text, kw_start);
            return Err(ParseError {
                message: "OPTION statement requires two parts separated by '='".to_string(),
                line,
                column,
            });
        }
        pairs.push((fields[0].trim().to_string(), fields[1].trim().to_string()));
    }
    Ok((head.trim_end(), pairs))
}

/// (line, column) of the token at `pos`, the end-of-input position for `Eof`.
fn token_line_col(src: &str, tokens: &[Token<'_>], pos: usize) -> (usize, usize) {
    match tokens.get(pos) {
        Some(t) if t.kind != TokenKind::Eof => line_col(src, t.offset),
        _ => eof_line_col(src),
    }
}

/// Turns a grammar failure into Calcite's message: the failure's own message if it has one,
/// otherwise `Encountered "<token>" at line L, column C.` for the furthest token reached.
fn grammar_error(src: &str, tokens: &[Token<'_>], ctx: &Ctx, err: nom::Err<PError>) -> ParseError {
    let err = match err {
        nom::Err::Error(e) | nom::Err::Failure(e) => Some(e),
        nom::Err::Incomplete(_) => None,
    };
    if let Some(PError {
        pos,
        message: Some(message),
    }) = err
    {
        let (line, column) = token_line_col(src, tokens, pos);
        return ParseError {
            message,
            line,
            column,
        };
    }
    let pos = err.map_or(0, |e| e.pos).max(ctx.furthest());
    let (line, column) = token_line_col(src, tokens, pos);
    let shown = match tokens.get(pos) {
        Some(t) if t.kind != TokenKind::Eof => t.text,
        _ => "<EOF>",
    };
    ParseError {
        message: format!("Encountered \"{shown}\" at line {line}, column {column}."),
        line,
        column,
    }
}

/// eof := end of input
fn eof(i: Tokens<'_>) -> PResult<'_, ()> {
    token_if(i, |t| t.kind == TokenKind::Eof).map(|(i, _)| (i, ()))
}

/// statement_list := statement (';' [statement])* EOF
fn statement_list(i: Tokens<'_>) -> PResult<'_, Vec<RawStatement>> {
    let (mut i, first) = statement(i)?;
    let mut statements = vec![first];
    while let Ok((rest, _)) = punct(";")(i) {
        i = rest;
        if let Ok((rest, s)) = statement(i) {
            statements.push(s);
            i = rest;
        } else if !i
            .peek()
            .is_some_and(|t| t.is_punct(";") || t.kind == TokenKind::Eof)
        {
            // Let the failing statement report where it went wrong.
            statement(i)?;
        }
    }
    let (i, _) = eof(i)?;
    Ok((i, statements))
}

/// statement := set_statement | explain_statement | query
fn statement(i: Tokens<'_>) -> PResult<'_, RawStatement> {
    if i.peek().is_some_and(|t| t.is_keyword("SET")) {
        let (rest, (key, value)) = set_statement(i)?;
        let (rest, _) = statement_end(rest)?;
        return Ok((rest, RawStatement::Set(key, value)));
    }
    let pos = i.offset();
    let (rest, explain) = opt(explain_prefix).parse(i)?;
    let (rest, query) = query(rest)?;
    let (rest, _) = statement_end(rest)?;
    let raw = RawStatement::Query {
        explain: explain.is_some(),
        query,
        pos,
    };
    Ok((rest, raw))
}

/// set_statement := SET identifier '=' set_value
fn set_statement(i: Tokens<'_>) -> PResult<'_, (String, String)> {
    let (rest, (_, key, _, value)) =
        (keyword("SET"), identifier, punct("="), set_value).parse(i)?;
    Ok((rest, (key, value)))
}

/// set_value := ['-' | '+'] number | string | word | quoted identifier
fn set_value(i: Tokens<'_>) -> PResult<'_, String> {
    let (rest, sign) = opt(|i| token_if(i, |t| t.is_punct("-") || t.is_punct("+"))).parse(i)?;
    if let Ok((rest, t)) = token_if(rest, |t| t.kind == TokenKind::Number) {
        let value = match (sign, number_literal(t.text)) {
            (Some(s), _) if s.text == "-" => format!("-{}", t.text),
            (_, Literal::Long(n)) => n.to_string(),
            _ => t.text.to_string(),
        };
        return Ok((rest, value));
    }
    if sign.is_some() {
        return fail(rest);
    }
    let (rest, t) = token_if(i, |t| {
        matches!(
            t.kind,
            TokenKind::String | TokenKind::Word | TokenKind::QuotedIdent
        )
    })?;
    let value = match t.kind {
        TokenKind::Word if t.is_keyword("TRUE") || t.is_keyword("FALSE") => {
            t.text.to_ascii_lowercase()
        }
        _ => t.value.to_string(),
    };
    Ok((rest, value))
}

/// explain_prefix := EXPLAIN [IMPLEMENTATION] PLAN explain_option* FOR
/// explain_option := INCLUDING | EXCLUDING | ALL | ATTRIBUTES | WITH | WITHOUT | IMPLEMENTATION
///   | TYPE | AS | JSON | XML | DOT | TEXT
fn explain_prefix(i: Tokens<'_>) -> PResult<'_, ()> {
    const OPTIONS: [&str; 13] = [
        "INCLUDING",
        "EXCLUDING",
        "ALL",
        "ATTRIBUTES",
        "WITH",
        "WITHOUT",
        "IMPLEMENTATION",
        "TYPE",
        "AS",
        "JSON",
        "XML",
        "DOT",
        "TEXT",
    ];
    let (rest, _) = keyword("EXPLAIN")(i)?;
    let (rest, _) = opt(keyword("IMPLEMENTATION")).parse(rest)?;
    let (mut rest, _) = keyword("PLAN")(rest)?;
    while let Ok((r, _)) = token_if(rest, |t| OPTIONS.iter().any(|o| t.is_keyword(o))) {
        rest = r;
    }
    let (rest, _) = keyword("FOR")(rest)?;
    Ok((rest, ()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::ast::{BinaryOp, JoinKind, Select, SelectItem, TableRef};
    use proptest::prelude::*;

    fn select(q: &Query) -> &Select {
        match q {
            Query::Select(s) => s,
            other => panic!("not a select: {other:?}"),
        }
    }

    fn err(sql: &str) -> ParseError {
        parse_statement(sql).expect_err(sql)
    }

    fn opts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn set_statements_become_options() {
        let st = parse_statement(
            "SET useMultistageEngine=true; SET timeoutMs = 1000;\nSET name = 'it''s'; \
             SET neg = -5; SET ident = someValue; SET dbl = 1.50; SELECT * FROM t",
        )
        .unwrap();
        assert_eq!(
            st.set_options,
            opts(&[
                ("useMultistageEngine", "true"),
                ("timeoutMs", "1000"),
                ("name", "it's"),
                ("neg", "-5"),
                ("ident", "someValue"),
                ("dbl", "1.50"),
            ])
        );
        assert!(!st.explain);
        assert_eq!(select(&st.query).projection, vec![SelectItem::Wildcard]);
    }

    #[test]
    fn set_after_the_query_and_repeated_keys() {
        let st = parse_statement("SELECT 1; SET a = 1; SET A = 2;").unwrap();
        assert_eq!(st.set_options, opts(&[("A", "2")]));
    }

    #[test]
    fn legacy_option_merges_without_overriding_set() {
        let st = parse_statement(
            "SET timeoutMs = 5; SELECT a FROM t option ( timeoutMs = 9 , skipUpsert=true ) ;",
        )
        .unwrap();
        assert_eq!(
            st.set_options,
            opts(&[("timeoutMs", "5"), ("skipUpsert", "true")])
        );
        let st = parse_statement("SELECT a FROM t OPTION(x=1) OPTION(y=2)").unwrap_err();
        assert!(st.message.starts_with("Encountered"), "{st}");
        let e = err("SELECT a FROM t OPTION(x)");
        assert_eq!(
            e.message,
            "OPTION statement requires two parts separated by '='"
        );
        let e = err("SELECT a FROM t OPTION(x=1=2)");
        assert_eq!(
            e.message,
            "OPTION statement requires two parts separated by '='"
        );
        // Multi-byte text right before the parenthesis.
        assert!(parse_statement("SELECT a FROM t WHERE x = 'ງ' AND f(ງ)").is_ok());
        assert!(parse_statement("SELECT 1 FROM ວວວວວວ(x=1)").is_err());
        // Only a trailing OPTION counts, and only as a whole word.
        assert!(parse_statement("SELECT myoption(a) FROM t").is_ok());
        assert!(parse_statement("SELECT a FROM t WHERE b = 'option(x=1)'").is_ok());
    }

    #[test]
    fn executable_statement_count() {
        let e = err("SELECT 1; SELECT 2");
        assert_eq!(
            e.message,
            "SqlNode with executable statement already exist with type: DQL"
        );
        assert_eq!((e.line, e.column), (1, 11));
        assert_eq!(
            err("SET a = 1;").message,
            "SqlNode with executable statement not found!"
        );
        assert_eq!(
            err("SET a = 1; SET b = 2").message,
            "SqlNode with executable statement not found!"
        );
        assert_eq!(
            err("").message,
            "Encountered \"<EOF>\" at line 1, column 1."
        );
        assert!(parse_statement("SELECT 1;;").is_ok());
        assert!(parse_statement(";SELECT 1").is_err());
    }

    #[test]
    fn explain_plan_for() {
        let st = parse_statement("EXPLAIN PLAN FOR SELECT a FROM t").unwrap();
        assert!(st.explain);
        assert_eq!(
            select(&st.query).from,
            Some(TableRef::Table {
                name: "t".into(),
                alias: None
            })
        );
        let st = parse_statement("explain plan without implementation for select 1").unwrap();
        assert!(st.explain);
        assert!(parse_statement("EXPLAIN SELECT 1").is_err());
    }

    #[test]
    fn error_positions_follow_calcite() {
        let e = err("SELECT FROM t");
        assert_eq!(e.message, "Encountered \"FROM\" at line 1, column 8.");
        assert_eq!(e.code(), segments::types::ErrorCode::SqlParsing);
        let e = err("SELECT a,\n  b\nFROM t\nWHERE x >\n  GROUP BY a");
        assert_eq!(e.message, "Encountered \"GROUP\" at line 5, column 3.");
        assert_eq!((e.line, e.column), (5, 3));
        let e = err("SELECT * FROM");
        assert_eq!(e.message, "Encountered \"<EOF>\" at line 1, column 13.");
        let e = err("SELECT * FROM t LIMIT x");
        assert_eq!(e.message, "Encountered \"x\" at line 1, column 23.");
        let e = err("SELECT a b c FROM t");
        assert_eq!(e.message, "Encountered \"c\" at line 1, column 12.");
        // Leading whitespace is trimmed before parsing, as Pinot does.
        let e = err("\n\n   SELECT FROM t");
        assert_eq!((e.line, e.column), (1, 8));
        // Lexical errors come through unchanged.
        let e = err("SELECT 'abc");
        assert!(
            e.message.starts_with("Lexical error at line 1, column 11."),
            "{e}"
        );
        let e = err("SELECT * FROM t LIMIT 99999999999999999999999");
        assert_eq!(
            e.message,
            "Numeric literal '99999999999999999999999' out of range"
        );
        assert_eq!(e.to_string(), e.message);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("SELECT {}1{} FROM t", "(".repeat(5000), ")".repeat(5000));
        let e = err(&deep);
        assert!(e.message.contains("nested too deeply"), "{e}");
        let ok = format!("SELECT {}1{} FROM t", "(".repeat(40), ")".repeat(40));
        assert!(parse_statement(&ok).is_ok());
        let deep_query = format!(
            "SELECT * FROM {}SELECT 1{} x",
            "(".repeat(400),
            ")".repeat(400)
        );
        assert!(parse_statement(&deep_query).is_err());
        let nots = format!("SELECT * FROM t WHERE {} a", "NOT ".repeat(10_000));
        assert!(parse_statement(&nots).is_err());
        let long_or = format!("SELECT * FROM t WHERE {}", vec!["a = 1"; 900].join(" OR "));
        assert!(parse_statement(&long_or).is_ok());
        let too_long = format!("SELECT * FROM t WHERE {}", vec!["a"; 5000].join(" + "));
        assert!(parse_statement(&too_long).is_err());
    }

    /// Parses (and names and serialises) `sql` on a thread with `stack` bytes of stack;
    /// `None` if that thread died.
    fn parse_on_small_stack(sql: String, stack: usize) -> Option<bool> {
        std::thread::Builder::new()
            .stack_size(stack)
            .spawn(move || {
                let st = parse_statement(&sql);
                if let Ok(st) = &st {
                    let _ = serde_json::to_string(st);
                    if let Query::Select(s) = &st.query {
                        for item in &s.projection {
                            if let SelectItem::Expr { expr, .. } = item {
                                let _ = expr.to_string();
                            }
                        }
                    }
                }
                st.is_ok()
            })
            .ok()?
            .join()
            .ok()
    }

    /// Each recursive construct nested to `d` levels.
    fn nested_constructs(d: usize) -> Vec<String> {
        vec![
            format!("SELECT {} 1 {} FROM t", "(SELECT ".repeat(d), ")".repeat(d)),
            format!("SELECT {}1{} FROM t", "f(".repeat(2 * d), ")".repeat(2 * d)),
            format!(
                "SELECT {}1{} FROM t",
                "CASE WHEN ".repeat(2 * d),
                " THEN 1 END".repeat(2 * d)
            ),
            format!(
                "SELECT * FROM t WHERE {}1{}",
                "a IN (SELECT b FROM u WHERE ".repeat(d),
                ")".repeat(d)
            ),
            format!("SELECT * FROM {}t{}", "(".repeat(2 * d), ")".repeat(2 * d)),
        ]
    }

    #[test]
    fn deepest_nesting_runs_on_a_one_megabyte_thread() {
        let limit = tokens::MAX_DEPTH / 2;
        for sql in nested_constructs(limit - 4) {
            assert_eq!(
                parse_on_small_stack(sql.clone(), 1 << 20),
                Some(true),
                "{sql}"
            );
        }
        for sql in nested_constructs(limit + 2) {
            let e = parse_statement(&sql).unwrap_err();
            assert!(e.message.contains("nested too deeply"), "{e}");
        }
        // Shallow queries stay on the caller's thread.
        let shallow = "SELECT sum(a * (1 - b)) FROM t WHERE c IN (SELECT d FROM u)";
        assert!(nesting(&tokenize(shallow).unwrap()) <= INLINE_NESTING);
        assert_eq!(
            parse_on_small_stack(shallow.to_string(), 512 << 10),
            Some(true)
        );
    }

    #[test]
    fn tpch_q1() {
        let sql = "select
                l_returnflag, l_linestatus,
                sum(l_quantity) as sum_qty,
                sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
                avg(l_discount) as avg_disc,
                count(*) as count_order
            from lineitem
            where l_shipdate <= date '1998-12-01' - interval '90' day (3)
            group by l_returnflag, l_linestatus
            order by l_returnflag, l_linestatus;";
        let st = parse_statement(sql).unwrap();
        let s = select(&st.query);
        assert_eq!(s.projection.len(), 6);
        assert_eq!(s.group_by.len(), 2);
        assert_eq!(s.order_by.len(), 2);
        let Some(Expr::Binary {
            op: BinaryOp::LtEq,
            right,
            ..
        }) = &s.selection
        else {
            panic!("{:?}", s.selection)
        };
        assert_eq!(right.to_string(), "minus('1998-12-01','90')");
    }

    #[test]
    fn tpch_q3_and_q5_joins() {
        let q3 = "select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue,
                o_orderdate, o_shippriority
            from customer, orders, lineitem
            where c_mktsegment = 'BUILDING' and c_custkey = o_custkey
              and l_orderkey = o_orderkey and o_orderdate < date '1995-03-15'
              and l_shipdate > date '1995-03-15'
            group by l_orderkey, o_orderdate, o_shippriority
            order by revenue desc, o_orderdate
            limit 10";
        let s = parse_statement(q3).unwrap();
        let s = select(&s.query);
        assert!(matches!(
            s.from,
            Some(TableRef::Join {
                kind: JoinKind::Cross,
                ..
            })
        ));
        assert_eq!(s.limit, Some(10));
        let q5 = "select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue
            from customer c
              join orders o on c.c_custkey = o.o_custkey
              join lineitem l on l.l_orderkey = o.o_orderkey
              join supplier s on l.l_suppkey = s.s_suppkey and c.c_nationkey = s.s_nationkey
              inner join nation n on s.s_nationkey = n.n_nationkey
              left outer join region r using (r_regionkey)
            where r.r_name = 'ASIA' and o.o_orderdate >= date '1994-01-01'
              and o.o_orderdate < date '1994-01-01' + interval '1' year
            group by n_name order by revenue desc";
        let s = parse_statement(q5).unwrap();
        let s = select(&s.query);
        let Some(TableRef::Join {
            kind, using, left, ..
        }) = &s.from
        else {
            panic!("{:?}", s.from)
        };
        assert_eq!(*kind, JoinKind::Left);
        assert_eq!(using, &vec!["r_regionkey".to_string()]);
        assert!(matches!(
            **left,
            TableRef::Join {
                kind: JoinKind::Inner,
                ..
            }
        ));
    }

    #[test]
    fn parse_expr_requires_the_whole_input() {
        assert!(parse_expr("a + 1").is_ok());
        let e = parse_expr("a + 1 b").unwrap_err();
        assert_eq!(e.message, "Encountered \"b\" at line 1, column 7.");
    }

    /// Words, operators and literals the grammar knows, for token-soup inputs.
    const SOUP: &[&str] = &[
        "SELECT",
        "FROM",
        "WHERE",
        "GROUP",
        "BY",
        "ORDER",
        "LIMIT",
        "OFFSET",
        "HAVING",
        "AS",
        "JOIN",
        "LEFT",
        "ON",
        "USING",
        "UNION",
        "ALL",
        "WITH",
        "IN",
        "NOT",
        "AND",
        "OR",
        "IS",
        "NULL",
        "BETWEEN",
        "LIKE",
        "CASE",
        "WHEN",
        "THEN",
        "ELSE",
        "END",
        "CAST",
        "EXISTS",
        "DISTINCT",
        "FILTER",
        "OVER",
        "PARTITION",
        "ROWS",
        "DATE",
        "INTERVAL",
        "DAY",
        "SET",
        "EXPLAIN",
        "PLAN",
        "FOR",
        "OPTION",
        "count",
        "a",
        "t",
        "x",
        "1",
        "2.5",
        "'s'",
        "\"q\"",
        "(",
        ")",
        ",",
        ".",
        ";",
        "*",
        "+",
        "-",
        "/",
        "%",
        "=",
        "<>",
        "<",
        ">=",
        "||",
        "::",
        "[",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn arbitrary_text_never_panics(s in "\\PC{0,80}") {
            let _ = parse_statement(&s);
            let _ = parse_expr(&s);
        }

        #[test]
        fn token_soup_never_panics(words in proptest::collection::vec(0..SOUP.len(), 0..40)) {
            let sql: Vec<&str> = words.iter().map(|&n| SOUP[n]).collect();
            let sql = sql.join(" ");
            if let Ok(st) = parse_statement(&sql) {
                // Whatever parses must also name and serialise.
                let _ = format!("{:?}", st);
                let json = serde_json::to_string(&st).unwrap();
                let _: Statement = serde_json::from_str(&json).unwrap();
            }
            let _ = parse_expr(&sql);
        }

        #[test]
        fn queries_with_a_broken_tail_report_a_position(
            cut in 1usize..120,
        ) {
            let sql = "SELECT a, sum(b) AS s FROM t JOIN u ON t.k = u.k WHERE c IN (1, 2) \
                       AND d BETWEEN 1 AND 5 GROUP BY a HAVING sum(b) > 1 ORDER BY s DESC LIMIT 3";
            let cut = cut.min(sql.len());
            if let Err(e) = parse_statement(&sql[..cut]) {
                prop_assert!(e.line == 1 && e.column >= 1 && e.column <= cut.max(1));
            }
        }
    }
}
