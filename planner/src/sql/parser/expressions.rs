//! Expression grammar: precedence levels, predicates, literals, function calls (with `DISTINCT`,
//! `FILTER`, `OVER`), `CASE`, `CAST`, subquery expressions and window specifications.
//!
//! Precedence, loosest first: `OR` < `AND` < `NOT` < comparison/`IS`/`IN`/`BETWEEN`/`LIKE` <
//! `||` < `+ -` < `* / %` < unary `- +` < `::` cast < primary.

use nom::Parser;
use nom::combinator::opt;
use nom::multi::{separated_list0, separated_list1};
use nom::sequence::preceded;

use super::lexical::TokenKind;
use super::query::{subquery_in_parens, try_subquery};
use super::tokens::{
    MAX_DEPTH, PResult, Tokens, any_keyword, fail, failure, identifier, is_reserved, keyword,
    nested, peek_keywords, punct, token_if, unsigned_integer,
};
use crate::sql::ast::*;

/// Most operands one left-associative chain (`a AND b AND …`) may have; each one nests the tree
/// one level deeper.
pub(crate) const MAX_CHAIN: usize = 1000;

/// expr := or_expr
pub(crate) fn expr(i: Tokens<'_>) -> PResult<'_, Expr> {
    nested(i, or_expr)
}

/// expr_list := expr (',' expr)*
pub(crate) fn expr_list(i: Tokens<'_>) -> PResult<'_, Vec<Expr>> {
    separated_list1(punct(","), expr).parse(i)
}

/// Parses `operand (op operand)*` into a left-deep tree.
fn left_assoc<'a>(
    i: Tokens<'a>,
    operand: fn(Tokens<'a>) -> PResult<'a, Expr>,
    op: fn(Tokens<'a>) -> PResult<'a, BinaryOp>,
) -> PResult<'a, Expr> {
    let (mut i, mut left) = operand(i)?;
    let mut count = 1;
    loop {
        let (rest, o) = match op(i) {
            Ok(r) => r,
            Err(nom::Err::Error(_)) => return Ok((i, left)),
            Err(e) => return Err(e),
        };
        count += 1;
        if count > MAX_CHAIN {
            return failure(
                i,
                format!("Expression has too many operands (more than {MAX_CHAIN})"),
            );
        }
        let (rest, right) = operand(rest)?;
        left = Expr::binary(o, left, right);
        i = rest;
    }
}

/// or_expr := and_expr (OR and_expr)*
fn or_expr(i: Tokens<'_>) -> PResult<'_, Expr> {
    left_assoc(i, and_expr, |i| {
        keyword("OR")(i).map(|(i, _)| (i, BinaryOp::Or))
    })
}

/// and_expr := not_expr (AND not_expr)*
fn and_expr(i: Tokens<'_>) -> PResult<'_, Expr> {
    left_assoc(i, not_expr, |i| {
        keyword("AND")(i).map(|(i, _)| (i, BinaryOp::And))
    })
}

/// not_expr := NOT* predicate
fn not_expr(i: Tokens<'_>) -> PResult<'_, Expr> {
    let mut nots = 0;
    let mut i = i;
    while let Ok((rest, _)) = keyword("NOT")(i) {
        nots += 1;
        if nots > MAX_DEPTH {
            return failure(i, format!("Too many NOT operators (more than {MAX_DEPTH})"));
        }
        i = rest;
    }
    let (i, mut e) = predicate(i)?;
    for _ in 0..nots {
        e = match e {
            Expr::Exists {
                query,
                negated: false,
            } => Expr::Exists {
                query,
                negated: true,
            },
            other => Expr::Unary {
                op: UnaryOp::Not,
                expr: Box::new(other),
            },
        };
    }
    Ok((i, e))
}

/// comparison_op := '=' | '<>' | '!=' | '<' | '<=' | '>' | '>='
fn comparison_op(i: Tokens<'_>) -> PResult<'_, BinaryOp> {
    let (rest, t) = token_if(i, |t| t.kind == TokenKind::Punct)?;
    let op = match t.text {
        "=" => BinaryOp::Eq,
        "<>" | "!=" => BinaryOp::NotEq,
        "<" => BinaryOp::Lt,
        "<=" => BinaryOp::LtEq,
        ">" => BinaryOp::Gt,
        ">=" => BinaryOp::GtEq,
        _ => return fail(i),
    };
    Ok((rest, op))
}

/// predicate := concat_expr predicate_suffix*
fn predicate(i: Tokens<'_>) -> PResult<'_, Expr> {
    let (mut i, mut e) = concat_expr(i)?;
    let mut count = 1;
    loop {
        let (rest, next) = predicate_suffix(i, e)?;
        match next {
            Suffix::Done(expr) => return Ok((rest, expr)),
            Suffix::More(expr) => {
                count += 1;
                if count > MAX_CHAIN {
                    return failure(
                        i,
                        format!("Expression has too many operands (more than {MAX_CHAIN})"),
                    );
                }
                e = expr;
                i = rest;
            }
        }
    }
}

/// Outcome of trying one predicate suffix on an operand.
enum Suffix {
    /// No suffix follows; the operand is returned unchanged.
    Done(Expr),
    /// A suffix was applied.
    More(Expr),
}

/// predicate_suffix := comparison_op concat_expr
///   | IS [NOT] NULL | IS [NOT] (TRUE | FALSE) | IS [NOT] DISTINCT FROM concat_expr
///   | [NOT] IN in_rhs | [NOT] BETWEEN concat_expr AND concat_expr
///   | [NOT] LIKE concat_expr [ESCAPE string]
fn predicate_suffix(i: Tokens<'_>, left: Expr) -> PResult<'_, Suffix> {
    let boxed = |e: Expr| Box::new(e);
    if let Ok((rest, op)) = comparison_op(i) {
        let (rest, right) = concat_expr(rest)?;
        return Ok((rest, Suffix::More(Expr::binary(op, left, right))));
    }
    if let Ok((rest, _)) = keyword("IS")(i) {
        let (rest, negated) = opt(keyword("NOT")).parse(rest)?;
        let negated = negated.is_some();
        if let Ok((rest, _)) = keyword("NULL")(rest) {
            let e = Expr::IsNull {
                expr: boxed(left),
                negated,
            };
            return Ok((rest, Suffix::More(e)));
        }
        if let Ok((rest, t)) = any_keyword(&["TRUE", "FALSE"])(rest) {
            // `x IS TRUE` is `x IS NOT DISTINCT FROM TRUE` (both false for NULL).
            let e = Expr::IsDistinctFrom {
                left: boxed(left),
                right: boxed(Expr::Literal(Literal::Bool(t.is_keyword("TRUE")))),
                negated: !negated,
            };
            return Ok((rest, Suffix::More(e)));
        }
        let (rest, _) = (keyword("DISTINCT"), keyword("FROM")).parse(rest)?;
        let (rest, right) = concat_expr(rest)?;
        let e = Expr::IsDistinctFrom {
            left: boxed(left),
            right: boxed(right),
            negated,
        };
        return Ok((rest, Suffix::More(e)));
    }
    let (after_not, negated) = match keyword("NOT")(i) {
        Ok((rest, _))
            if rest.peek().is_some_and(|t| {
                t.is_keyword("IN") || t.is_keyword("BETWEEN") || t.is_keyword("LIKE")
            }) =>
        {
            (rest, true)
        }
        _ => (i, false),
    };
    if let Ok((rest, _)) = keyword("IN")(after_not) {
        let (rest, e) = in_rhs(rest, left, negated)?;
        return Ok((rest, Suffix::More(e)));
    }
    if let Ok((rest, _)) = keyword("BETWEEN")(after_not) {
        let (rest, low) = concat_expr(rest)?;
        let (rest, _) = keyword("AND")(rest)?;
        let (rest, high) = concat_expr(rest)?;
        let e = Expr::Between {
            expr: boxed(left),
            low: boxed(low),
            high: boxed(high),
            negated,
        };
        return Ok((rest, Suffix::More(e)));
    }
    if let Ok((rest, _)) = keyword("LIKE")(after_not) {
        let (rest, pattern) = concat_expr(rest)?;
        let (rest, escape) = opt(preceded(keyword("ESCAPE"), string_value)).parse(rest)?;
        let e = Expr::Like {
            expr: boxed(left),
            pattern: boxed(pattern),
            negated,
            escape,
        };
        return Ok((rest, Suffix::More(e)));
    }
    Ok((i, Suffix::Done(left)))
}

/// in_rhs := subquery_in_parens | '(' expr_list ')'
fn in_rhs(i: Tokens<'_>, left: Expr, negated: bool) -> PResult<'_, Expr> {
    if let Some((rest, q)) = try_subquery(i)? {
        let e = Expr::InSubquery {
            expr: Box::new(left),
            query: Box::new(q),
            negated,
        };
        return Ok((rest, e));
    }
    let (rest, _) = punct("(")(i)?;
    let (rest, list) = expr_list(rest)?;
    let (rest, _) = punct(")")(rest)?;
    let e = Expr::InList {
        expr: Box::new(left),
        list,
        negated,
    };
    Ok((rest, e))
}

/// concat_expr := additive ('||' additive)*
fn concat_expr(i: Tokens<'_>) -> PResult<'_, Expr> {
    left_assoc(i, additive, |i| {
        punct("||")(i).map(|(i, _)| (i, BinaryOp::Concat))
    })
}

/// additive := multiplicative (('+' | '-') multiplicative)*
fn additive(i: Tokens<'_>) -> PResult<'_, Expr> {
    left_assoc(i, multiplicative, |i| {
        let (rest, t) = token_if(i, |t| t.is_punct("+") || t.is_punct("-"))?;
        Ok((
            rest,
            if t.text == "+" {
                BinaryOp::Add
            } else {
                BinaryOp::Sub
            },
        ))
    })
}

/// multiplicative := unary (('*' | '/' | '%') unary)*
fn multiplicative(i: Tokens<'_>) -> PResult<'_, Expr> {
    left_assoc(i, unary, |i| {
        let (rest, t) = token_if(i, |t| t.is_punct("*") || t.is_punct("/") || t.is_punct("%"))?;
        let op = match t.text {
            "*" => BinaryOp::Mul,
            "/" => BinaryOp::Div,
            _ => BinaryOp::Mod,
        };
        Ok((rest, op))
    })
}

/// unary := ('-' | '+')* postfix — a sign on a numeric literal folds into the literal.
fn unary(i: Tokens<'_>) -> PResult<'_, Expr> {
    let mut signs = Vec::new();
    let mut i = i;
    while let Ok((rest, t)) = token_if(i, |t| t.is_punct("-") || t.is_punct("+")) {
        if signs.len() >= MAX_DEPTH {
            return failure(i, format!("Too many signs (more than {MAX_DEPTH})"));
        }
        signs.push(t.text == "-");
        i = rest;
    }
    let (i, mut e) = postfix(i)?;
    for negative in signs.into_iter().rev() {
        e = apply_sign(negative, e);
    }
    Ok((i, e))
}

/// `-literal` is a negative literal (as Calcite folds it); other operands get a unary node.
fn apply_sign(negative: bool, e: Expr) -> Expr {
    match (negative, e) {
        (true, Expr::Literal(Literal::Long(n))) => match n.checked_neg() {
            Some(m) => Expr::Literal(Literal::Long(m)),
            None => Expr::Literal(Literal::Decimal(n.unsigned_abs().to_string())),
        },
        (true, Expr::Literal(Literal::Double(d))) => Expr::Literal(Literal::Double(-d)),
        (true, Expr::Literal(Literal::Decimal(s))) => {
            if s == "9223372036854775808" {
                Expr::Literal(Literal::Long(i64::MIN))
            } else if let Some(positive) = s.strip_prefix('-') {
                Expr::Literal(Literal::Decimal(positive.to_string()))
            } else {
                Expr::Literal(Literal::Decimal(format!("-{s}")))
            }
        }
        (false, e @ Expr::Literal(Literal::Long(_) | Literal::Double(_) | Literal::Decimal(_))) => {
            e
        }
        (negative, e) => Expr::Unary {
            op: if negative {
                UnaryOp::Neg
            } else {
                UnaryOp::Plus
            },
            expr: Box::new(e),
        },
    }
}

/// postfix := primary ('::' data_type | '[' expr ']')* — a subscript is Calcite's `ITEM`
/// operator, the `item` function (`mapColumn['key']`).
fn postfix(i: Tokens<'_>) -> PResult<'_, Expr> {
    let (mut i, mut e) = primary(i)?;
    let mut suffixes = 0;
    loop {
        let cast = punct("::")(i);
        let subscript = punct("[")(i);
        if cast.is_err() && subscript.is_err() {
            return Ok((i, e));
        }
        suffixes += 1;
        if suffixes > MAX_DEPTH {
            return failure(
                i,
                format!("Too many casts or subscripts (more than {MAX_DEPTH})"),
            );
        }
        if let Ok((rest, _)) = cast {
            let (rest, data_type) = data_type(rest)?;
            e = Expr::Cast {
                expr: Box::new(e),
                data_type,
            };
            i = rest;
        } else if let Ok((rest, _)) = subscript {
            let (rest, key) = expr(rest)?;
            let (rest, _) = punct("]")(rest)?;
            e = Expr::function("item", vec![e, key]);
            i = rest;
        }
    }
}

/// primary := number | string | TRUE | FALSE | NULL | typed_literal | interval
///   | case_expr | cast_expr | exists_expr | paren_expr | function_call | column_ref
fn primary(i: Tokens<'_>) -> PResult<'_, Expr> {
    let Some(t) = i.peek() else { return fail(i) };
    let next = i.peek_nth(1);
    let next_is_string = next.is_some_and(|n| n.kind == TokenKind::String);
    let next_is_paren = next.is_some_and(|n| n.is_punct("("));
    match t.kind {
        TokenKind::Number => Ok((i.advance(1), Expr::Literal(number_literal(t.text)))),
        TokenKind::String => Ok((
            i.advance(1),
            Expr::Literal(Literal::String(t.value.to_string())),
        )),
        TokenKind::Punct if t.text == "(" => paren_expr(i),
        TokenKind::QuotedIdent if next_is_paren => function_call(i),
        TokenKind::QuotedIdent => column_ref(i),
        TokenKind::Word => {
            let w = t.text;
            let kw = |k: &str| w.eq_ignore_ascii_case(k);
            if kw("TRUE") || kw("FALSE") {
                Ok((i.advance(1), Expr::Literal(Literal::Bool(kw("TRUE")))))
            } else if kw("NULL") {
                Ok((i.advance(1), Expr::Literal(Literal::Null)))
            } else if kw("CASE") {
                case_expr(i)
            } else if kw("CAST") {
                cast_expr(i)
            } else if kw("EXISTS") {
                exists_expr(i)
            } else if kw("ARRAY") && next.is_some_and(|n| n.is_punct("[")) {
                array_value(i)
            } else if next_is_string && (kw("DATE") || kw("TIME") || kw("TIMESTAMP")) {
                typed_literal(i)
            } else if kw("INTERVAL")
                && next.is_some_and(|n| {
                    matches!(n.kind, TokenKind::String | TokenKind::Number) || n.is_punct("-")
                })
            {
                interval(i)
            } else if next_is_paren && (!is_reserved(w) || kw("LEFT") || kw("RIGHT")) {
                function_call(i)
            } else if !is_reserved(w) && NILADIC.iter().any(|n| kw(n)) {
                Ok((i.advance(1), Expr::function(w, vec![])))
            } else {
                column_ref(i)
            }
        }
        _ => fail(i),
    }
}

/// array_value := ARRAY '[' (expr (',' expr)*)? ']' — the `array` function of its elements.
fn array_value(i: Tokens<'_>) -> PResult<'_, Expr> {
    let (rest, _) = keyword("ARRAY")(i)?;
    let (rest, _) = punct("[")(rest)?;
    let (rest, items) = separated_list0(punct(","), expr).parse(rest)?;
    let (rest, _) = punct("]")(rest)?;
    Ok((rest, Expr::function("array", items)))
}

/// Functions Calcite allows without parentheses.
const NILADIC: [&str; 5] = [
    "CURRENT_DATE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "LOCALTIME",
    "LOCALTIMESTAMP",
];

/// The literal for a numeric token: `Long` when it is an integer that fits, `Decimal` for larger
/// integers and for numbers beyond `f64` (`1e999`), `Double` otherwise.
pub(crate) fn number_literal(text: &str) -> Literal {
    if text.bytes().all(|b| b.is_ascii_digit()) {
        match text.parse::<i64>() {
            Ok(n) => Literal::Long(n),
            Err(_) => Literal::Decimal(text.to_string()),
        }
    } else {
        match text.parse::<f64>() {
            Ok(d) if d.is_finite() => Literal::Double(d),
            _ => Literal::Decimal(text.to_string()),
        }
    }
}

/// string_value := string literal token (its unescaped value)
pub(crate) fn string_value(i: Tokens<'_>) -> PResult<'_, String> {
    token_if(i, |t| t.kind == TokenKind::String).map(|(i, t)| (i, t.value.to_string()))
}

/// column_ref := identifier ('.' identifier)*
fn column_ref(i: Tokens<'_>) -> PResult<'_, Expr> {
    let (i, mut parts) = separated_list1(punct("."), identifier).parse(i)?;
    let name = parts.pop().unwrap_or_default();
    let table = if parts.is_empty() {
        None
    } else {
        Some(parts.join("."))
    };
    Ok((i, Expr::Column { table, name }))
}

/// typed_literal := (DATE | TIME | TIMESTAMP) string
fn typed_literal(i: Tokens<'_>) -> PResult<'_, Expr> {
    let (rest, t) = token_if(i, |t| t.kind == TokenKind::Word)?;
    let kind = if t.is_keyword("DATE") {
        TypedLiteral::Date
    } else if t.is_keyword("TIME") {
        TypedLiteral::Time
    } else {
        TypedLiteral::Timestamp
    };
    let (rest, value) = string_value(rest)?;
    Ok((rest, Expr::Literal(Literal::Typed { kind, value })))
}

/// Units an `INTERVAL` literal may carry.
const INTERVAL_UNITS: [&str; 11] = [
    "YEAR",
    "QUARTER",
    "MONTH",
    "WEEK",
    "DAY",
    "HOUR",
    "MINUTE",
    "SECOND",
    "MILLISECOND",
    "MICROSECOND",
    "NANOSECOND",
];

/// interval_unit := YEAR | QUARTER | MONTH | WEEK | DAY | HOUR | MINUTE | SECOND | … ['S']
///   ['(' n [',' n] ')']
fn interval_unit(i: Tokens<'_>) -> PResult<'_, String> {
    let (rest, t) = token_if(i, |t| {
        t.kind == TokenKind::Word
            && INTERVAL_UNITS.iter().any(|u| {
                t.text.eq_ignore_ascii_case(u)
                    || (t.text.len() == u.len() + 1
                        && t.text[..u.len()].eq_ignore_ascii_case(u)
                        && t.text[u.len()..].eq_ignore_ascii_case("S"))
            })
    })?;
    let (rest, _) = opt((
        punct("("),
        unsigned_integer,
        opt((punct(","), unsigned_integer)),
        punct(")"),
    ))
    .parse(rest)?;
    Ok((rest, t.text.to_ascii_uppercase()))
}

/// interval := INTERVAL ['-'] (string | number) interval_unit [TO interval_unit]
fn interval(i: Tokens<'_>) -> PResult<'_, Expr> {
    let (rest, _) = keyword("INTERVAL")(i)?;
    let (rest, minus) = opt(punct("-")).parse(rest)?;
    let (rest, t) = token_if(rest, |t| {
        matches!(t.kind, TokenKind::String | TokenKind::Number)
    })?;
    let (rest, unit) = interval_unit(rest)?;
    let (rest, to) = opt(preceded(keyword("TO"), interval_unit)).parse(rest)?;
    let value = if minus.is_some() {
        format!("-{}", t.value)
    } else {
        t.value.to_string()
    };
    let unit = match to {
        Some(to) => format!("{unit} TO {to}"),
        None => unit,
    };
    Ok((rest, Expr::Interval { value, unit }))
}

/// case_expr := CASE [expr] (WHEN expr THEN expr)+ [ELSE expr] END
fn case_expr(i: Tokens<'_>) -> PResult<'_, Expr> {
    let (rest, _) = keyword("CASE")(i)?;
    let (rest, operand) = if rest.peek().is_some_and(|t| t.is_keyword("WHEN")) {
        (rest, None)
    } else {
        let (rest, e) = expr(rest)?;
        (rest, Some(Box::new(e)))
    };
    let mut branches = Vec::new();
    let mut rest = rest;
    while let Ok((r, _)) = keyword("WHEN")(rest) {
        let (r, when) = expr(r)?;
        let (r, _) = keyword("THEN")(r)?;
        let (r, then) = expr(r)?;
        branches.push((when, then));
        rest = r;
    }
    if branches.is_empty() {
        return fail(rest);
    }
    let (rest, else_result) = opt(preceded(keyword("ELSE"), expr)).parse(rest)?;
    let (rest, _) = keyword("END")(rest)?;
    let e = Expr::Case {
        operand,
        branches,
        else_result: else_result.map(Box::new),
    };
    Ok((rest, e))
}

/// cast_expr := CAST '(' expr AS data_type ')'
fn cast_expr(i: Tokens<'_>) -> PResult<'_, Expr> {
    let (rest, (_, _, e, _, data_type, _)) = (
        keyword("CAST"),
        punct("("),
        expr,
        keyword("AS"),
        data_type,
        punct(")"),
    )
        .parse(i)?;
    let e = Expr::Cast {
        expr: Box::new(e),
        data_type,
    };
    Ok((rest, e))
}

/// data_type := type_word [PRECISION | VARYING] ['(' n [',' n] ')'] [ARRAY]
/// — returned upper-cased, e.g. `DECIMAL(15,2)`, `DOUBLE PRECISION`.
pub(crate) fn data_type(i: Tokens<'_>) -> PResult<'_, String> {
    let (rest, t) = token_if(i, |t| t.kind == TokenKind::Word && !is_reserved(t.text))?;
    let mut name = t.text.to_ascii_uppercase();
    let mut rest = rest;
    let second = match name.as_str() {
        "DOUBLE" => Some("PRECISION"),
        "CHARACTER" | "CHAR" => Some("VARYING"),
        _ => None,
    };
    if let Some(second) = second
        && let Ok((r, _)) = keyword(second)(rest)
    {
        name.push(' ');
        name.push_str(second);
        rest = r;
    }
    let (rest, params) = opt((
        punct("("),
        unsigned_integer,
        opt(preceded(punct(","), unsigned_integer)),
        punct(")"),
    ))
    .parse(rest)?;
    if let Some((_, p, s, _)) = params {
        match s {
            Some(s) => name.push_str(&format!("({p},{s})")),
            None => name.push_str(&format!("({p})")),
        }
    }
    let (rest, array) = opt(keyword("ARRAY")).parse(rest)?;
    if array.is_some() {
        name.push_str(" ARRAY");
    }
    Ok((rest, name))
}

/// exists_expr := EXISTS subquery_in_parens
fn exists_expr(i: Tokens<'_>) -> PResult<'_, Expr> {
    let (rest, _) = keyword("EXISTS")(i)?;
    let (rest, q) = subquery_in_parens(rest)?;
    let e = Expr::Exists {
        query: Box::new(q),
        negated: false,
    };
    Ok((rest, e))
}

/// paren_expr := subquery_in_parens | '(' expr ')'
fn paren_expr(i: Tokens<'_>) -> PResult<'_, Expr> {
    if let Some((rest, q)) = try_subquery(i)? {
        return Ok((rest, Expr::ScalarSubquery(Box::new(q))));
    }
    let (rest, (_, e, _)) = (punct("("), expr, punct(")")).parse(i)?;
    Ok((rest, e))
}

/// function_call := name '(' function_args ')' [filter_clause] [over_clause]
fn function_call(i: Tokens<'_>) -> PResult<'_, Expr> {
    let (rest, name_tok) = token_if(i, |t| {
        matches!(t.kind, TokenKind::Word | TokenKind::QuotedIdent)
    })?;
    let name = name_tok.value.to_string();
    let (rest, _) = punct("(")(rest)?;
    let special = if name_tok.kind == TokenKind::Word {
        special_form_args(rest, &name)
    } else {
        None
    };
    let (rest, (distinct, args)) = match special {
        Some(r) => r,
        None => function_args(rest)?,
    };
    let (rest, _) = punct(")")(rest)?;
    let (rest, filter) = opt(filter_clause).parse(rest)?;
    let (rest, nulls) = opt(null_treatment).parse(rest)?;
    let (rest, mut over) = opt(over_clause).parse(rest)?;
    if let (Some(ignore), Some(w)) = (nulls, over.as_mut()) {
        w.ignore_nulls = ignore;
    }
    let e = Expr::Function {
        name,
        args,
        distinct,
        filter: filter.map(Box::new),
        over,
    };
    Ok((rest, e))
}

/// function_args := [DISTINCT | ALL] ['*' | expr_list]
fn function_args(i: Tokens<'_>) -> PResult<'_, (bool, Vec<Expr>)> {
    let (rest, quantifier) = opt(any_keyword(&["DISTINCT", "ALL"])).parse(i)?;
    let distinct = quantifier.is_some_and(|t| t.is_keyword("DISTINCT"));
    if let Ok((r, _)) = punct("*")(rest)
        && r.peek().is_some_and(|t| t.is_punct(")"))
    {
        return Ok((r, (distinct, vec![Expr::Star])));
    }
    if rest.peek().is_some_and(|t| t.is_punct(")")) && quantifier.is_none() {
        return Ok((rest, (false, vec![])));
    }
    let (rest, args) = expr_list(rest)?;
    Ok((rest, (distinct, args)))
}

type SpecialArgs<'a> = (Tokens<'a>, (bool, Vec<Expr>));

/// The SQL-standard call syntaxes, tried before the plain argument list:
/// `EXTRACT(unit FROM expr)`, `SUBSTRING(expr FROM expr [FOR expr])`,
/// `POSITION(concat_expr IN concat_expr)`, `TRIM([BOTH|LEADING|TRAILING] [expr] FROM expr)`.
fn special_form_args<'a>(i: Tokens<'a>, name: &str) -> Option<SpecialArgs<'a>> {
    let upper = name.to_ascii_uppercase();
    let parsed = match upper.as_str() {
        "EXTRACT" => extract_args(i),
        "SUBSTRING" => substring_args(i),
        "POSITION" => position_args(i),
        "TRIM" => trim_args(i),
        "TIMESTAMPADD" | "TIMESTAMPDIFF" | "DATEADD" | "DATEDIFF" => time_unit_args(i),
        _ => return None,
    };
    parsed.ok().map(|(rest, args)| (rest, (false, args)))
}

/// extract_args := word FROM expr
fn extract_args(i: Tokens<'_>) -> PResult<'_, Vec<Expr>> {
    let (rest, unit) = token_if(i, |t| t.kind == TokenKind::Word && !is_reserved(t.text))?;
    let (rest, _) = keyword("FROM")(rest)?;
    let (rest, e) = expr(rest)?;
    let unit = Expr::Literal(Literal::String(unit.text.to_ascii_uppercase()));
    Ok((rest, vec![unit, e]))
}

/// The time units Calcite reads as a keyword in `TIMESTAMPADD(unit, n, ts)` (`SQL_TSI_…` too).
const TIME_UNITS: &[&str] = &[
    "NANOSECOND",
    "MICROSECOND",
    "MILLISECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
];

/// time_unit_args := unit ',' expr_list — `TIMESTAMPADD(DAY, 3, ts)`: an unquoted unit is the
/// unit's name, not a column (the quoted `'DAY'` takes the plain argument list).
fn time_unit_args(i: Tokens<'_>) -> PResult<'_, Vec<Expr>> {
    let (rest, unit) = token_if(i, |t| {
        t.kind == TokenKind::Word && {
            let upper = t.text.to_ascii_uppercase();
            TIME_UNITS.contains(&upper.strip_prefix("SQL_TSI_").unwrap_or(&upper))
        }
    })?;
    let (rest, _) = punct(",")(rest)?;
    let (rest, mut args) = expr_list(rest)?;
    let upper = unit.text.to_ascii_uppercase();
    let unit = upper.strip_prefix("SQL_TSI_").unwrap_or(&upper).to_string();
    args.insert(0, Expr::Literal(Literal::String(unit)));
    Ok((rest, args))
}

/// substring_args := expr FROM expr [FOR expr]
fn substring_args(i: Tokens<'_>) -> PResult<'_, Vec<Expr>> {
    let (rest, (s, _, start)) = (expr, keyword("FROM"), expr).parse(i)?;
    let (rest, len) = opt(preceded(keyword("FOR"), expr)).parse(rest)?;
    let mut args = vec![s, start];
    args.extend(len);
    Ok((rest, args))
}

/// position_args := concat_expr IN concat_expr
fn position_args(i: Tokens<'_>) -> PResult<'_, Vec<Expr>> {
    let (rest, (needle, _, haystack)) = (concat_expr, keyword("IN"), concat_expr).parse(i)?;
    Ok((rest, vec![needle, haystack]))
}

/// trim_args := [BOTH | LEADING | TRAILING] [expr] FROM expr
fn trim_args(i: Tokens<'_>) -> PResult<'_, Vec<Expr>> {
    let (rest, flag) = opt(any_keyword(&["BOTH", "LEADING", "TRAILING"])).parse(i)?;
    let (rest, chars) = if rest.peek().is_some_and(|t| t.is_keyword("FROM")) {
        (rest, Expr::Literal(Literal::String(" ".to_string())))
    } else {
        expr(rest)?
    };
    let (rest, _) = keyword("FROM")(rest)?;
    let (rest, target) = expr(rest)?;
    let flag = flag.map_or("BOTH".to_string(), |t| t.text.to_ascii_uppercase());
    Ok((
        rest,
        vec![Expr::Literal(Literal::String(flag)), chars, target],
    ))
}

/// filter_clause := FILTER '(' WHERE expr ')'
fn filter_clause(i: Tokens<'_>) -> PResult<'_, Expr> {
    let (rest, (_, _, _, e, _)) = (
        keyword("FILTER"),
        punct("("),
        keyword("WHERE"),
        expr,
        punct(")"),
    )
        .parse(i)?;
    Ok((rest, e))
}

/// null_treatment := (IGNORE | RESPECT) NULLS — true for IGNORE.
fn null_treatment(i: Tokens<'_>) -> PResult<'_, bool> {
    let (rest, t) = any_keyword(&["IGNORE", "RESPECT"]).parse(i)?;
    let (rest, _) = keyword("NULLS")(rest)?;
    Ok((rest, t.is_keyword("IGNORE")))
}

/// over_clause := OVER window_spec
fn over_clause(i: Tokens<'_>) -> PResult<'_, WindowSpec> {
    preceded(keyword("OVER"), window_spec).parse(i)
}

/// window_spec := '(' [PARTITION BY expr_list] [ORDER BY order_list] [window_frame] ')'
fn window_spec(i: Tokens<'_>) -> PResult<'_, WindowSpec> {
    let (rest, _) = punct("(")(i)?;
    let (rest, partition_by) =
        opt(preceded((keyword("PARTITION"), keyword("BY")), expr_list)).parse(rest)?;
    let (rest, order_by) = opt(order_by_clause).parse(rest)?;
    let (rest, frame) = opt(window_frame).parse(rest)?;
    let (rest, _) = punct(")")(rest)?;
    let spec = WindowSpec {
        partition_by: partition_by.unwrap_or_default(),
        order_by: order_by.unwrap_or_default(),
        frame,
        ignore_nulls: false,
    };
    Ok((rest, spec))
}

/// window_frame := (ROWS | RANGE) (BETWEEN frame_bound AND frame_bound | frame_bound)
///                 [EXCLUDE (CURRENT ROW | GROUP | TIES | NO OTHERS)]
fn window_frame(i: Tokens<'_>) -> PResult<'_, WindowFrame> {
    let (rest, mut frame) = frame_extent(i)?;
    let Ok((rest, _)) = keyword("EXCLUDE")(rest) else {
        return Ok((rest, frame));
    };
    let (rest, exclude) = if let Ok((r, _)) = (keyword("CURRENT"), keyword("ROW")).parse(rest) {
        (r, FrameExclude::CurrentRow)
    } else if let Ok((r, _)) = keyword("GROUP")(rest) {
        (r, FrameExclude::Group)
    } else if let Ok((r, _)) = keyword("TIES")(rest) {
        (r, FrameExclude::Ties)
    } else {
        let (r, _) = (keyword("NO"), keyword("OTHERS")).parse(rest)?;
        (r, FrameExclude::NoOthers)
    };
    frame.exclude = exclude;
    Ok((rest, frame))
}

fn frame_extent(i: Tokens<'_>) -> PResult<'_, WindowFrame> {
    let (rest, t) = token_if(i, |t| t.is_keyword("ROWS") || t.is_keyword("RANGE"))?;
    let units = if t.is_keyword("ROWS") {
        FrameUnits::Rows
    } else {
        FrameUnits::Range
    };
    if let Ok((rest, _)) = keyword("BETWEEN")(rest) {
        let (rest, (start, _, end)) = (frame_bound, keyword("AND"), frame_bound).parse(rest)?;
        let frame = WindowFrame {
            units,
            start,
            end,
            exclude: FrameExclude::NoOthers,
        };
        return Ok((rest, frame));
    }
    let (rest, start) = frame_bound(rest)?;
    let frame = WindowFrame {
        units,
        start,
        end: FrameBound::CurrentRow,
        exclude: FrameExclude::NoOthers,
    };
    Ok((rest, frame))
}

/// frame_bound := UNBOUNDED (PRECEDING | FOLLOWING) | CURRENT ROW | n (PRECEDING | FOLLOWING)
fn frame_bound(i: Tokens<'_>) -> PResult<'_, FrameBound> {
    if let Ok((rest, _)) = keyword("UNBOUNDED")(i) {
        if let Ok((rest, _)) = keyword("PRECEDING")(rest) {
            return Ok((rest, FrameBound::UnboundedPreceding));
        }
        let (rest, _) = keyword("FOLLOWING")(rest)?;
        return Ok((rest, FrameBound::UnboundedFollowing));
    }
    if let Ok((rest, _)) = (keyword("CURRENT"), keyword("ROW")).parse(i) {
        return Ok((rest, FrameBound::CurrentRow));
    }
    let (rest, n) = unsigned_integer(i)?;
    if let Ok((rest, _)) = keyword("PRECEDING")(rest) {
        return Ok((rest, FrameBound::Preceding(n)));
    }
    let (rest, _) = keyword("FOLLOWING")(rest)?;
    Ok((rest, FrameBound::Following(n)))
}

/// order_by_clause := ORDER BY order_item (',' order_item)*
pub(crate) fn order_by_clause(i: Tokens<'_>) -> PResult<'_, Vec<OrderByExpr>> {
    preceded(
        (keyword("ORDER"), keyword("BY")),
        separated_list1(punct(","), order_item),
    )
    .parse(i)
}

/// order_item := expr [ASC | DESC] [NULLS (FIRST | LAST)]
fn order_item(i: Tokens<'_>) -> PResult<'_, OrderByExpr> {
    let (rest, e) = expr(i)?;
    let (rest, dir) = opt(any_keyword(&["ASC", "DESC"])).parse(rest)?;
    let asc = !dir.is_some_and(|t| t.is_keyword("DESC"));
    let (rest, nulls_first) = if peek_keywords(&rest, &["NULLS", "FIRST"]) {
        (rest.advance(2), Some(true))
    } else if peek_keywords(&rest, &["NULLS", "LAST"]) {
        (rest.advance(2), Some(false))
    } else {
        (rest, None)
    };
    let item = OrderByExpr {
        expr: e,
        asc,
        nulls_first,
    };
    Ok((rest, item))
}

#[cfg(test)]
mod tests {
    use crate::sql::ast::*;
    use crate::sql::parse_expr;

    fn e(sql: &str) -> Expr {
        parse_expr(sql).unwrap_or_else(|err| panic!("{sql}: {err}"))
    }

    fn col(name: &str) -> Expr {
        Expr::column(name)
    }

    fn long(n: i64) -> Expr {
        Expr::Literal(Literal::Long(n))
    }

    fn bin(op: BinaryOp, l: Expr, r: Expr) -> Expr {
        Expr::binary(op, l, r)
    }

    fn not(x: Expr) -> Expr {
        Expr::Unary {
            op: UnaryOp::Not,
            expr: Box::new(x),
        }
    }

    #[test]
    fn arithmetic_precedence_and_associativity() {
        use BinaryOp::*;
        assert_eq!(
            e("a + b * c - d / e % f"),
            bin(
                Sub,
                bin(Add, col("a"), bin(Mul, col("b"), col("c"))),
                bin(Mod, bin(Div, col("d"), col("e")), col("f"))
            )
        );
        assert_eq!(
            e("(a + b) * c"),
            bin(Mul, bin(Add, col("a"), col("b")), col("c"))
        );
        assert_eq!(
            e("a - b - c"),
            bin(Sub, bin(Sub, col("a"), col("b")), col("c"))
        );
        assert_eq!(
            e("a || b + c"),
            bin(Concat, col("a"), bin(Add, col("b"), col("c")))
        );
    }

    #[test]
    fn boolean_precedence() {
        use BinaryOp::*;
        assert_eq!(
            e("a = 1 OR b = 2 AND NOT c = 3"),
            bin(
                Or,
                bin(Eq, col("a"), long(1)),
                bin(
                    And,
                    bin(Eq, col("b"), long(2)),
                    not(bin(Eq, col("c"), long(3)))
                )
            )
        );
        assert_eq!(e("NOT a AND b"), bin(And, not(col("a")), col("b")));
        assert_eq!(e("NOT NOT a"), not(not(col("a"))));
        assert_eq!(
            e("a || 'x' = b"),
            bin(
                Eq,
                bin(Concat, col("a"), Expr::Literal(Literal::String("x".into()))),
                col("b")
            )
        );
    }

    #[test]
    fn every_comparison_operator() {
        use BinaryOp::*;
        for (text, op) in [
            ("=", Eq),
            ("<>", NotEq),
            ("!=", NotEq),
            ("<", Lt),
            ("<=", LtEq),
            (">", Gt),
            (">=", GtEq),
        ] {
            assert_eq!(
                e(&format!("a {text} 1")),
                bin(op, col("a"), long(1)),
                "{text}"
            );
        }
    }

    #[test]
    fn predicates() {
        let b = Box::new;
        assert_eq!(
            e("a NOT IN (1, 2)"),
            Expr::InList {
                expr: b(col("a")),
                list: vec![long(1), long(2)],
                negated: true
            }
        );
        assert_eq!(
            e("a BETWEEN 1 AND 2 + 3"),
            Expr::Between {
                expr: b(col("a")),
                low: b(long(1)),
                high: b(bin(BinaryOp::Add, long(2), long(3))),
                negated: false
            }
        );
        assert_eq!(
            e("a NOT BETWEEN 1 AND 2 AND b"),
            bin(
                BinaryOp::And,
                Expr::Between {
                    expr: b(col("a")),
                    low: b(long(1)),
                    high: b(long(2)),
                    negated: true
                },
                col("b")
            )
        );
        assert_eq!(
            e("a NOT LIKE 'x%' ESCAPE '!'"),
            Expr::Like {
                expr: b(col("a")),
                pattern: b(Expr::Literal(Literal::String("x%".into()))),
                negated: true,
                escape: Some("!".into())
            }
        );
        assert_eq!(
            e("a IS NULL"),
            Expr::IsNull {
                expr: b(col("a")),
                negated: false
            }
        );
        assert_eq!(
            e("a IS NOT NULL"),
            Expr::IsNull {
                expr: b(col("a")),
                negated: true
            }
        );
        assert_eq!(
            e("a IS NOT DISTINCT FROM b"),
            Expr::IsDistinctFrom {
                left: b(col("a")),
                right: b(col("b")),
                negated: true
            }
        );
        assert_eq!(
            e("REGEXP_LIKE(a, '^x')"),
            Expr::function(
                "REGEXP_LIKE",
                vec![col("a"), Expr::Literal(Literal::String("^x".into()))]
            )
        );
        assert_eq!(
            e("a IS NOT TRUE"),
            Expr::IsDistinctFrom {
                left: b(col("a")),
                right: b(Expr::Literal(Literal::Bool(true))),
                negated: false
            }
        );
        assert!(matches!(
            e("a IS FALSE"),
            Expr::IsDistinctFrom { negated: true, .. }
        ));
        assert!(parse_expr("a IS 1").is_err());
        assert!(parse_expr("a NOT b").is_err());
    }

    #[test]
    fn subquery_expressions() {
        let Expr::InSubquery {
            negated: true,
            query,
            ..
        } = e("a NOT IN (SELECT b FROM u)")
        else {
            panic!()
        };
        assert!(matches!(*query, Query::Select(_)));
        assert!(matches!(
            e("NOT EXISTS (SELECT 1)"),
            Expr::Exists { negated: true, .. }
        ));
        assert!(matches!(
            e("EXISTS (SELECT 1)"),
            Expr::Exists { negated: false, .. }
        ));
        assert!(matches!(
            e("(SELECT max(b) FROM u)"),
            Expr::ScalarSubquery(_)
        ));
        assert!(matches!(
            e("a > (SELECT avg(b) FROM u) + 1"),
            Expr::Binary {
                op: BinaryOp::Gt,
                ..
            }
        ));
        // A parenthesised expression that merely starts with a subquery.
        assert!(matches!(
            e("((SELECT 1) + 1)"),
            Expr::Binary {
                op: BinaryOp::Add,
                ..
            }
        ));
        assert!(matches!(e("a IN ((1), 2)"), Expr::InList { .. }));
    }

    #[test]
    fn literals() {
        let lit = |l: Literal| Expr::Literal(l);
        assert_eq!(e("42"), long(42));
        assert_eq!(e("-42"), long(-42));
        assert_eq!(e("- -42"), long(42));
        assert_eq!(e("+7"), long(7));
        assert_eq!(e("-9223372036854775808"), long(i64::MIN));
        assert_eq!(
            e("9223372036854775808"),
            lit(Literal::Decimal("9223372036854775808".into()))
        );
        assert_eq!(
            e("123456789012345678901234"),
            lit(Literal::Decimal("123456789012345678901234".into()))
        );
        assert_eq!(e("1.5"), lit(Literal::Double(1.5)));
        assert_eq!(e("-.5e2"), lit(Literal::Double(-50.0)));
        assert_eq!(e("1E3"), lit(Literal::Double(1000.0)));
        assert_eq!(e("1e999"), lit(Literal::Decimal("1e999".into())));
        assert_eq!(e("-1e999"), lit(Literal::Decimal("-1e999".into())));
        assert_eq!(e("'it''s'"), lit(Literal::String("it's".into())));
        assert_eq!(e("TRUE"), lit(Literal::Bool(true)));
        assert_eq!(e("false"), lit(Literal::Bool(false)));
        assert_eq!(e("null"), lit(Literal::Null));
        assert_eq!(
            e("DATE '1998-09-02'"),
            lit(Literal::Typed {
                kind: TypedLiteral::Date,
                value: "1998-09-02".into()
            })
        );
        assert_eq!(
            e("timestamp '2020-01-01 00:00:00'"),
            lit(Literal::Typed {
                kind: TypedLiteral::Timestamp,
                value: "2020-01-01 00:00:00".into()
            })
        );
        assert_eq!(
            e("INTERVAL '1-2' YEAR TO MONTH"),
            Expr::Interval {
                value: "1-2".into(),
                unit: "YEAR TO MONTH".into()
            }
        );
        assert_eq!(
            e("interval 3 days"),
            Expr::Interval {
                value: "3".into(),
                unit: "DAYS".into()
            }
        );
        assert_eq!(
            e("-a"),
            Expr::Unary {
                op: UnaryOp::Neg,
                expr: Box::new(col("a"))
            }
        );
    }

    #[test]
    fn identifiers_quoting_and_keywords() {
        assert_eq!(e("\"select\""), col("select"));
        assert_eq!(e("`my col`"), col("my col"));
        assert_eq!(e("\"a\"\"b\""), col("a\"b"));
        assert_eq!(
            e("t.\"Col\""),
            Expr::Column {
                table: Some("t".into()),
                name: "Col".into()
            }
        );
        assert_eq!(
            e("db.t.c"),
            Expr::Column {
                table: Some("db.t".into()),
                name: "c".into()
            }
        );
        for word in [
            "date",
            "timestamp",
            "value",
            "year",
            "month",
            "day",
            "hour",
            "minute",
            "second",
            "filter",
            "over",
            "rows",
            "time",
            "interval",
            "$docId",
        ] {
            assert_eq!(e(word), col(word), "{word}");
        }
        assert_eq!(e("year(ts)"), Expr::function("year", vec![col("ts")]));
        assert_eq!(
            e("LEFT(s, 2)"),
            Expr::function("LEFT", vec![col("s"), long(2)])
        );
        assert_eq!(
            e("current_timestamp"),
            Expr::function("current_timestamp", vec![])
        );
        assert_eq!(e("\"myFunc\"(a)"), Expr::function("myFunc", vec![col("a")]));
        for reserved in [
            "select", "from", "where", "and", "order", "limit", "join", "on",
        ] {
            assert!(parse_expr(reserved).is_err(), "{reserved}");
        }
        assert_eq!(
            e("a /* comment */ + -- line\n b"),
            bin(BinaryOp::Add, col("a"), col("b"))
        );
    }

    #[test]
    fn function_calls() {
        assert_eq!(e("count(*)"), Expr::function("count", vec![Expr::Star]));
        assert_eq!(
            e("ARRAY[1, a]"),
            Expr::function("array", vec![Expr::Literal(Literal::Long(1)), col("a")])
        );
        assert_eq!(e("array[]"), Expr::function("array", vec![]));
        assert_eq!(e("now()"), Expr::function("now", vec![]));
        assert_eq!(
            e("count(DISTINCT a, b)"),
            Expr::Function {
                name: "count".into(),
                args: vec![col("a"), col("b")],
                distinct: true,
                filter: None,
                over: None
            }
        );
        assert_eq!(e("sum(ALL a)"), Expr::function("sum", vec![col("a")]));
        assert_eq!(
            e("sum(a) FILTER (WHERE b > 1)"),
            Expr::Function {
                name: "sum".into(),
                args: vec![col("a")],
                distinct: false,
                filter: Some(Box::new(bin(BinaryOp::Gt, col("b"), long(1)))),
                over: None
            }
        );
        assert!(parse_expr("count(*, a)").is_err());
        assert!(parse_expr("f(a,)").is_err());
    }

    #[test]
    fn window_functions() {
        let Expr::Function { over: Some(w), .. } =
            e("sum(x) OVER (PARTITION BY a, b ORDER BY c DESC NULLS LAST \
             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING)")
        else {
            panic!()
        };
        assert_eq!(w.partition_by, vec![col("a"), col("b")]);
        assert_eq!(
            w.order_by,
            vec![OrderByExpr {
                expr: col("c"),
                asc: false,
                nulls_first: Some(false)
            }]
        );
        assert_eq!(
            w.frame,
            Some(WindowFrame {
                units: FrameUnits::Rows,
                start: FrameBound::UnboundedPreceding,
                end: FrameBound::Following(1),
                exclude: FrameExclude::NoOthers,
            })
        );
        let Expr::Function { over: Some(w), .. } = e("row_number() OVER ()") else {
            panic!()
        };
        assert_eq!(w, WindowSpec::default());
        let Expr::Function { over: Some(w), .. } = e("avg(x) OVER (ORDER BY t RANGE 3 PRECEDING)")
        else {
            panic!()
        };
        assert_eq!(
            w.frame,
            Some(WindowFrame {
                units: FrameUnits::Range,
                start: FrameBound::Preceding(3),
                end: FrameBound::CurrentRow,
                exclude: FrameExclude::NoOthers,
            })
        );
        let Expr::Function { over: Some(w), .. } = e(
            "last_value(x) IGNORE NULLS OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES)",
        ) else {
            panic!()
        };
        assert!(w.ignore_nulls);
        assert_eq!(w.frame.map(|f| f.exclude), Some(FrameExclude::Ties));
    }

    #[test]
    fn case_and_cast() {
        let b = Box::new;
        assert_eq!(
            e("CASE WHEN a > 1 THEN 'x' WHEN a > 0 THEN 'y' ELSE 'z' END"),
            Expr::Case {
                operand: None,
                branches: vec![
                    (
                        bin(BinaryOp::Gt, col("a"), long(1)),
                        Expr::Literal(Literal::String("x".into()))
                    ),
                    (
                        bin(BinaryOp::Gt, col("a"), long(0)),
                        Expr::Literal(Literal::String("y".into()))
                    ),
                ],
                else_result: Some(b(Expr::Literal(Literal::String("z".into()))))
            }
        );
        assert_eq!(
            e("CASE a WHEN 1 THEN 2 END"),
            Expr::Case {
                operand: Some(b(col("a"))),
                branches: vec![(long(1), long(2))],
                else_result: None
            }
        );
        assert!(parse_expr("CASE END").is_err());
        assert!(parse_expr("CASE WHEN a THEN b").is_err());
        let cast = |x: Expr, t: &str| Expr::Cast {
            expr: b(x),
            data_type: t.into(),
        };
        assert_eq!(e("CAST(a AS bigint)"), cast(col("a"), "BIGINT"));
        assert_eq!(
            e("CAST(a AS DECIMAL(15, 2))"),
            cast(col("a"), "DECIMAL(15,2)")
        );
        assert_eq!(e("cast(a as varchar(10))"), cast(col("a"), "VARCHAR(10)"));
        assert_eq!(
            e("CAST(a AS double precision)"),
            cast(col("a"), "DOUBLE PRECISION")
        );
        assert_eq!(e("CAST(a AS INT ARRAY)"), cast(col("a"), "INT ARRAY"));
        assert_eq!(e("a::long"), cast(col("a"), "LONG"));
        assert_eq!(
            e("-a::int"),
            Expr::Unary {
                op: UnaryOp::Neg,
                expr: b(cast(col("a"), "INT"))
            }
        );
        assert!(parse_expr("CAST(a)").is_err());
    }

    #[test]
    fn standard_call_syntaxes() {
        let s = |v: &str| Expr::Literal(Literal::String(v.into()));
        assert_eq!(
            e("TIMESTAMPADD(DAY, 3, ts)"),
            Expr::function("TIMESTAMPADD", vec![s("DAY"), long(3), col("ts")])
        );
        assert_eq!(
            e("timestampdiff(sql_tsi_hour, a, b)"),
            Expr::function("timestampdiff", vec![s("HOUR"), col("a"), col("b")])
        );
        assert_eq!(
            e("timestampAdd(days, 3, ts)"),
            Expr::function("timestampAdd", vec![col("days"), long(3), col("ts")])
        );
        assert_eq!(
            e("EXTRACT(year FROM ts)"),
            Expr::function("EXTRACT", vec![s("YEAR"), col("ts")])
        );
        assert_eq!(
            e("substring(c_phone from 1 for 2)"),
            Expr::function("substring", vec![col("c_phone"), long(1), long(2)])
        );
        assert_eq!(
            e("substring(a, 1)"),
            Expr::function("substring", vec![col("a"), long(1)])
        );
        assert_eq!(
            e("POSITION('x' IN a)"),
            Expr::function("POSITION", vec![s("x"), col("a")])
        );
        assert_eq!(
            e("TRIM(LEADING 'x' FROM a)"),
            Expr::function("TRIM", vec![s("LEADING"), s("x"), col("a")])
        );
        assert_eq!(e("trim(a)"), Expr::function("trim", vec![col("a")]));
    }
}
