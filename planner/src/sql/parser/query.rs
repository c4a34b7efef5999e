//! Query grammar: `WITH`, set operations, `SELECT` blocks, `FROM` items and joins, `ORDER BY`
//! and the `LIMIT`/`OFFSET`/`FETCH` forms.

use nom::Parser;
use nom::combinator::opt;
use nom::multi::separated_list1;
use nom::sequence::preceded;

use super::expressions::{MAX_CHAIN, expr, expr_list, order_by_clause, string_value};
use super::lexical::TokenKind;
use super::tokens::{
    PError, PResult, Tokens, any_keyword, fail, failure, identifier, keyword, memo_failure, nested,
    punct, token_if, unsigned_integer,
};
use crate::sql::ast::*;

/// Whether the tokens after any run of `(` start a query (`SELECT` or `WITH`): decides whether
/// a parenthesis is tried as a subquery first.
fn query_starts_after_parens(i: &Tokens<'_>) -> bool {
    let mut n = 0;
    while i.peek_nth(n).is_some_and(|t| t.is_punct("(")) {
        n += 1;
    }
    n > 0
        && i.peek_nth(n).is_some_and(|t| {
            t.is_keyword("SELECT") || t.is_keyword("WITH") || t.is_keyword("VALUES")
        })
}

/// A parenthesis that looks like a subquery, parsed as one: `Ok(None)` when it is not one (the
/// caller tries its other alternatives), failures (too deep, bad numbers) passed on.
pub(crate) fn try_subquery<'a>(
    i: Tokens<'a>,
) -> Result<Option<(Tokens<'a>, Query)>, nom::Err<PError>> {
    if !query_starts_after_parens(&i) {
        return Ok(None);
    }
    match subquery_in_parens(i) {
        Ok(r) => Ok(Some(r)),
        Err(nom::Err::Error(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// subquery_in_parens := '(' query ')'
pub(crate) fn subquery_in_parens(i: Tokens<'_>) -> PResult<'_, Query> {
    memo_failure(i, |i| {
        let (rest, (_, q, _)) = (punct("("), query, punct(")")).parse(i)?;
        Ok((rest, q))
    })
}

/// query := [WITH cte (',' cte)*] query_body [order_by_clause] [limit_clause]
pub(crate) fn query(i: Tokens<'_>) -> PResult<'_, Query> {
    nested(i, |i| {
        let (rest, ctes) =
            opt(preceded(keyword("WITH"), separated_list1(punct(","), cte))).parse(i)?;
        let (rest, body) = query_body(rest)?;
        let (rest, order_by) = opt(order_by_clause).parse(rest)?;
        let (rest, limits) = opt(limit_clause).parse(rest)?;
        let (limit, offset) = limits.unwrap_or_default();
        let body = attach_order_limit(body, order_by.unwrap_or_default(), limit, offset);
        let q = match ctes {
            Some(ctes) => Query::With {
                ctes,
                body: Box::new(body),
            },
            None => body,
        };
        Ok((rest, q))
    })
}

/// `ORDER BY`/`LIMIT` of a plain `SELECT` go into the select (as Pinot merges Calcite's
/// `SqlOrderBy`); anything else (set operations, a select that already has its own) is wrapped
/// in [`Query::Ordered`].
fn attach_order_limit(
    body: Query,
    order_by: Vec<OrderByExpr>,
    limit: Option<u64>,
    offset: Option<u64>,
) -> Query {
    if order_by.is_empty() && limit.is_none() && offset.is_none() {
        return body;
    }
    match body {
        Query::Select(mut s)
            if s.order_by.is_empty() && s.limit.is_none() && s.offset.is_none() =>
        {
            s.order_by = order_by;
            s.limit = limit;
            s.offset = offset;
            Query::Select(s)
        }
        other => Query::Ordered {
            query: Box::new(other),
            order_by,
            limit,
            offset,
        },
    }
}

/// cte := identifier AS subquery_in_parens
fn cte(i: Tokens<'_>) -> PResult<'_, (String, Query)> {
    let (rest, (name, _, q)) = (identifier, keyword("AS"), subquery_in_parens).parse(i)?;
    Ok((rest, (name, q)))
}

/// Parses `operand (op [ALL | DISTINCT] operand)*` into a left-deep set-operation tree.
fn set_op_chain<'a>(
    i: Tokens<'a>,
    operand: fn(Tokens<'a>) -> PResult<'a, Query>,
    op: fn(Tokens<'a>) -> PResult<'a, SetOperator>,
) -> PResult<'a, Query> {
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
                format!("Query has too many set operations (more than {MAX_CHAIN})"),
            );
        }
        let (rest, quantifier) = opt(any_keyword(&["ALL", "DISTINCT"])).parse(rest)?;
        let (rest, right) = operand(rest)?;
        left = Query::SetOp {
            op: o,
            all: quantifier.is_some_and(|t| t.is_keyword("ALL")),
            left: Box::new(left),
            right: Box::new(right),
        };
        i = rest;
    }
}

/// query_body := query_term ((UNION | EXCEPT | MINUS) [ALL | DISTINCT] query_term)*
fn query_body(i: Tokens<'_>) -> PResult<'_, Query> {
    set_op_chain(i, query_term, |i| {
        let (rest, t) = token_if(i, |t| {
            t.is_keyword("UNION") || t.is_keyword("EXCEPT") || t.is_keyword("MINUS")
        })?;
        let op = if t.is_keyword("UNION") {
            SetOperator::Union
        } else {
            SetOperator::Except
        };
        Ok((rest, op))
    })
}

/// query_term := query_primary (INTERSECT [ALL | DISTINCT] query_primary)*
fn query_term(i: Tokens<'_>) -> PResult<'_, Query> {
    set_op_chain(i, query_primary, |i| {
        keyword("INTERSECT")(i).map(|(i, _)| (i, SetOperator::Intersect))
    })
}

/// query_primary := select_core | values | subquery_in_parens
fn query_primary(i: Tokens<'_>) -> PResult<'_, Query> {
    if i.peek().is_some_and(|t| t.is_punct("(")) {
        return subquery_in_parens(i);
    }
    if let Ok((rest, _)) = keyword("VALUES")(i) {
        let row = |i| {
            let (rest, (_, values, _)) = (punct("("), expr_list, punct(")")).parse(i)?;
            Ok((rest, values))
        };
        let (rest, rows) = separated_list1(punct(","), row).parse(rest)?;
        return Ok((rest, Query::Values(rows)));
    }
    let (rest, s) = select_core(i)?;
    Ok((rest, Query::Select(Box::new(s))))
}

/// select_core := SELECT [ALL | DISTINCT] select_item (',' select_item)* [FROM from_clause]
///   [WHERE expr] [GROUP BY expr_list] [HAVING expr]
fn select_core(i: Tokens<'_>) -> PResult<'_, Select> {
    let (rest, _) = keyword("SELECT")(i)?;
    let hints = match rest.peek().and_then(|t| t.hint) {
        Some(body) => match super::hints::parse_hints(body) {
            Ok(h) => h,
            Err(message) => return failure(rest, message),
        },
        None => Vec::new(),
    };
    let (rest, quantifier) = opt(any_keyword(&["ALL", "DISTINCT"])).parse(rest)?;
    let (rest, projection) = separated_list1(punct(","), select_item).parse(rest)?;
    let (rest, from) = opt(preceded(keyword("FROM"), from_clause)).parse(rest)?;
    let (rest, selection) = opt(preceded(keyword("WHERE"), expr)).parse(rest)?;
    let (rest, group_by) =
        opt(preceded((keyword("GROUP"), keyword("BY")), expr_list)).parse(rest)?;
    let (rest, having) = opt(preceded(keyword("HAVING"), expr)).parse(rest)?;
    let select = Select {
        distinct: quantifier.is_some_and(|t| t.is_keyword("DISTINCT")),
        projection,
        from,
        selection,
        group_by: group_by.unwrap_or_default(),
        having,
        hints,
        ..Select::default()
    };
    Ok((rest, select))
}

/// select_item := '*' | qualified_wildcard | expr [alias]
fn select_item(i: Tokens<'_>) -> PResult<'_, SelectItem> {
    if let Ok((rest, _)) = punct("*")(i) {
        return Ok((rest, SelectItem::Wildcard));
    }
    if let Ok((rest, q)) = qualified_wildcard(i) {
        return Ok((rest, SelectItem::QualifiedWildcard(q)));
    }
    let (rest, e) = expr(i)?;
    let (rest, alias) = opt(alias).parse(rest)?;
    Ok((rest, SelectItem::Expr { expr: e, alias }))
}

/// qualified_wildcard := identifier ('.' identifier)* '.' '*'
fn qualified_wildcard(i: Tokens<'_>) -> PResult<'_, String> {
    let mut parts = Vec::new();
    let mut rest = i;
    loop {
        let (r, name) = identifier(rest)?;
        let (r, _) = punct(".")(r)?;
        parts.push(name);
        if let Ok((r, _)) = punct("*")(r) {
            return Ok((r, parts.join(".")));
        }
        rest = r;
    }
}

/// alias := AS (identifier | string) | identifier
fn alias(i: Tokens<'_>) -> PResult<'_, String> {
    if let Ok((rest, _)) = keyword("AS")(i) {
        if let Ok(r) = string_value(rest) {
            return Ok(r);
        }
        return identifier(rest);
    }
    identifier(i)
}

/// from_clause := table_ref (',' table_ref)* — commas are cross joins.
fn from_clause(i: Tokens<'_>) -> PResult<'_, TableRef> {
    let (mut i, mut left) = table_ref(i)?;
    let mut count = 1;
    while let Ok((rest, _)) = punct(",")(i) {
        count += 1;
        if count > MAX_CHAIN {
            return failure(
                i,
                format!("Query has too many joins (more than {MAX_CHAIN})"),
            );
        }
        let (rest, right) = table_ref(rest)?;
        left = TableRef::Join {
            left: Box::new(left),
            right: Box::new(right),
            kind: JoinKind::Cross,
            on: None,
            using: vec![],
            natural: false,
            match_condition: None,
        };
        i = rest;
    }
    Ok((i, left))
}

/// table_ref := table_primary join_clause*
fn table_ref(i: Tokens<'_>) -> PResult<'_, TableRef> {
    let (mut i, mut left) = table_primary(i)?;
    let mut count = 1;
    loop {
        let (rest, (kind, right, on, using, natural, match_condition)) = match join_clause(i) {
            Ok(r) => r,
            Err(nom::Err::Error(_)) if !starts_join(&i) => return Ok((i, left)),
            Err(e) => return Err(e),
        };
        count += 1;
        if count > MAX_CHAIN {
            return failure(
                i,
                format!("Query has too many joins (more than {MAX_CHAIN})"),
            );
        }
        left = TableRef::Join {
            left: Box::new(left),
            right: Box::new(right),
            kind,
            on,
            using,
            natural,
            match_condition,
        };
        i = rest;
    }
}

/// Whether the next token begins a join clause (then a failure inside it is an error).
fn starts_join(i: &Tokens<'_>) -> bool {
    i.peek().is_some_and(|t| {
        [
            "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "ASOF", "NATURAL",
        ]
        .iter()
        .any(|k| t.is_keyword(k))
    })
}

type JoinParts = (
    JoinKind,
    TableRef,
    Option<Expr>,
    Vec<String>,
    bool,
    Option<Box<Expr>>,
);

/// join_clause := CROSS JOIN table_primary
///   | [LEFT] ASOF JOIN table_primary MATCH_CONDITION '(' expr ')' ON expr
///   | [INNER | LEFT [OUTER] | RIGHT [OUTER] | FULL [OUTER]] JOIN table_primary [join_condition]
///   | NATURAL [INNER | LEFT [OUTER] | RIGHT [OUTER] | FULL [OUTER]] JOIN table_primary
fn join_clause(i: Tokens<'_>) -> PResult<'_, JoinParts> {
    if let Ok((rest, _)) = (keyword("CROSS"), keyword("JOIN")).parse(i) {
        let (rest, right) = table_primary(rest)?;
        return Ok((rest, (JoinKind::Cross, right, None, vec![], false, None)));
    }
    if let Ok((rest, _)) = keyword("NATURAL")(i) {
        let (rest, (kind, right, on, using, _, _)) = join_clause(rest)?;
        if on.is_some()
            || !using.is_empty()
            || !matches!(
                kind,
                JoinKind::Inner | JoinKind::Left | JoinKind::Right | JoinKind::Full
            )
        {
            return failure(
                rest,
                "Cannot specify condition (NATURAL keyword, or USING clause) for NATURAL join"
                    .to_string(),
            );
        }
        return Ok((rest, (kind, right, None, vec![], true, None)));
    }
    if let Ok((rest, left)) = (opt(keyword("LEFT")), keyword("ASOF"), keyword("JOIN"))
        .parse(i)
        .map(|(r, (left, _, _))| (r, left.is_some()))
    {
        return asof_join(rest, left);
    }
    let (rest, kind) = opt(any_keyword(&["INNER", "LEFT", "RIGHT", "FULL"])).parse(i)?;
    let kind = match kind {
        None => JoinKind::Inner,
        Some(t) if t.is_keyword("INNER") => JoinKind::Inner,
        Some(t) if t.is_keyword("LEFT") => JoinKind::Left,
        Some(t) if t.is_keyword("RIGHT") => JoinKind::Right,
        Some(_) => JoinKind::Full,
    };
    let (rest, _) = if kind == JoinKind::Inner {
        (rest, None)
    } else {
        opt(keyword("OUTER")).parse(rest)?
    };
    let (rest, _) = keyword("JOIN")(rest)?;
    let (rest, right) = table_primary(rest)?;
    let (rest, on) = opt(preceded(keyword("ON"), expr)).parse(rest)?;
    let (rest, using) = match keyword("USING")(rest) {
        Ok((r, _)) if on.is_none() => {
            let columns = separated_list1(punct(","), identifier);
            let (r, (_, cols, _)) = (punct("("), columns, punct(")")).parse(r)?;
            (r, cols)
        }
        _ => (rest, vec![]),
    };
    Ok((rest, (kind, right, on, using, false, None)))
}

/// The rest of `[LEFT] ASOF JOIN`: both the match condition and `ON` are required (Calcite's
/// grammar, which Pinot uses, has no ASOF join without them).
fn asof_join(i: Tokens<'_>, left: bool) -> PResult<'_, JoinParts> {
    let (rest, right) = table_primary(i)?;
    let (rest, _) = match keyword("MATCH_CONDITION")(rest) {
        Ok(r) => r,
        Err(_) => return failure(rest, "ASOF JOIN needs MATCH_CONDITION(...)".to_string()),
    };
    let (rest, (_, condition, _)) = (punct("("), expr, punct(")")).parse(rest)?;
    let (rest, on) = match preceded(keyword("ON"), expr).parse(rest) {
        Ok(r) => r,
        Err(_) => return failure(rest, "ASOF JOIN needs an ON condition".to_string()),
    };
    let kind = if left {
        JoinKind::LeftAsof
    } else {
        JoinKind::Asof
    };
    Ok((
        rest,
        (
            kind,
            right,
            Some(on),
            vec![],
            false,
            Some(Box::new(condition)),
        ),
    ))
}

/// table_primary := [LATERAL] subquery_in_parens [alias] | '(' table_ref ')' | table_name [alias]
fn table_primary(i: Tokens<'_>) -> PResult<'_, TableRef> {
    let (i, lateral) = match keyword("LATERAL")(i) {
        Ok((rest, _)) => (rest, true),
        Err(_) => (i, false),
    };
    if let Some((rest, q)) = try_subquery(i)? {
        let (rest, alias) = opt(alias).parse(rest)?;
        let (rest, columns) = match alias {
            Some(_) => {
                let names = separated_list1(punct(","), identifier);
                let (rest, columns) = opt((punct("("), names, punct(")"))).parse(rest)?;
                (rest, columns.map(|(_, c, _)| c).unwrap_or_default())
            }
            None => (rest, Vec::new()),
        };
        let t = TableRef::Subquery {
            query: Box::new(q),
            alias,
            columns,
            lateral,
        };
        return Ok((rest, t));
    }
    if lateral {
        return failure(i, "LATERAL must be followed by a subquery".to_string());
    }
    if let Ok((rest, _)) = punct("(")(i) {
        return nested(rest, |rest| {
            let (rest, (t, _)) = (table_ref, punct(")")).parse(rest)?;
            Ok((rest, t))
        });
    }
    let (rest, name) = table_name(i)?;
    let (rest, alias) = opt(alias).parse(rest)?;
    Ok((rest, TableRef::Table { name, alias }))
}

/// table_name := identifier ('.' identifier)*
fn table_name(i: Tokens<'_>) -> PResult<'_, String> {
    let (rest, parts) = separated_list1(punct("."), identifier).parse(i)?;
    Ok((rest, parts.join(".")))
}

/// limit_clause := LIMIT n ',' n | LIMIT n [OFFSET n [ROW | ROWS]]
///   | OFFSET n [ROW | ROWS] [fetch_clause | LIMIT n] | fetch_clause
/// — returns (limit, offset).
fn limit_clause(i: Tokens<'_>) -> PResult<'_, (Option<u64>, Option<u64>)> {
    if let Ok((rest, _)) = keyword("LIMIT")(i) {
        let (rest, first) = unsigned_integer(rest)?;
        if let Ok((rest, _)) = punct(",")(rest) {
            let (rest, count) = unsigned_integer(rest)?;
            return Ok((rest, (Some(count), Some(first))));
        }
        let (rest, offset) = opt(offset_clause).parse(rest)?;
        return Ok((rest, (Some(first), offset)));
    }
    if let Ok((rest, offset)) = offset_clause(i) {
        if let Ok((rest, n)) = fetch_clause(rest) {
            return Ok((rest, (Some(n), Some(offset))));
        }
        let (rest, limit) = opt(preceded(keyword("LIMIT"), unsigned_integer)).parse(rest)?;
        return Ok((rest, (limit, Some(offset))));
    }
    let (rest, n) = fetch_clause(i)?;
    Ok((rest, (Some(n), None)))
}

/// offset_clause := OFFSET n [ROW | ROWS]
fn offset_clause(i: Tokens<'_>) -> PResult<'_, u64> {
    let (rest, (_, n)) = (keyword("OFFSET"), unsigned_integer).parse(i)?;
    let (rest, _) = opt(any_keyword(&["ROW", "ROWS"])).parse(rest)?;
    Ok((rest, n))
}

/// fetch_clause := FETCH (FIRST | NEXT) [n] (ROW | ROWS) ONLY
fn fetch_clause(i: Tokens<'_>) -> PResult<'_, u64> {
    let (rest, _) = keyword("FETCH")(i)?;
    let (rest, _) = token_if(rest, |t| t.is_keyword("FIRST") || t.is_keyword("NEXT"))?;
    let (rest, n) = opt(unsigned_integer).parse(rest)?;
    let (rest, _) = token_if(rest, |t| t.is_keyword("ROW") || t.is_keyword("ROWS"))?;
    let (rest, _) = keyword("ONLY")(rest)?;
    Ok((rest, n.unwrap_or(1)))
}

/// Rejects a token stream that is not at a statement boundary (`;` or the end).
pub(crate) fn statement_end(i: Tokens<'_>) -> PResult<'_, ()> {
    match i.peek() {
        Some(t) if t.kind == TokenKind::Eof || t.is_punct(";") => Ok((i, ())),
        _ => fail(i),
    }
}

#[cfg(test)]
mod tests {
    use crate::sql::ast::*;
    use crate::sql::parse_statement;

    fn q(sql: &str) -> Query {
        parse_statement(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .query
    }

    fn s(sql: &str) -> Select {
        match q(sql) {
            Query::Select(s) => *s,
            other => panic!("not a select: {other:?}"),
        }
    }

    fn table(name: &str, alias: Option<&str>) -> TableRef {
        TableRef::Table {
            name: name.into(),
            alias: alias.map(Into::into),
        }
    }

    fn item(e: Expr, alias: Option<&str>) -> SelectItem {
        SelectItem::Expr {
            expr: e,
            alias: alias.map(Into::into),
        }
    }

    #[test]
    fn select_list_forms() {
        let sel = s("SELECT *, t.*, a, b AS x, c y, d AS \"Z z\", e AS 'lit', count(*) FROM t");
        assert_eq!(
            sel.projection,
            vec![
                SelectItem::Wildcard,
                SelectItem::QualifiedWildcard("t".into()),
                item(Expr::column("a"), None),
                item(Expr::column("b"), Some("x")),
                item(Expr::column("c"), Some("y")),
                item(Expr::column("d"), Some("Z z")),
                item(Expr::column("e"), Some("lit")),
                item(Expr::function("count", vec![Expr::Star]), None),
            ]
        );
        assert!(!sel.distinct);
        assert!(s("SELECT DISTINCT a, b FROM t").distinct);
        assert!(!s("SELECT ALL a FROM t").distinct);
        assert_eq!(s("SELECT 1").from, None);
        assert!(parse_statement("SELECT a AS FROM t").is_err());
        assert!(parse_statement("SELECT a, FROM t").is_err());
        assert!(parse_statement("SELECT FROM").is_err());
    }

    #[test]
    fn clauses() {
        let sel = s(
            "SELECT a, sum(b) FROM db.t AS x WHERE c = 1 GROUP BY 1, a, lower(d) \
                     HAVING sum(b) > 10 ORDER BY 2 DESC NULLS FIRST, a ASC, e NULLS LAST",
        );
        assert_eq!(sel.from, Some(table("db.t", Some("x"))));
        assert!(sel.selection.is_some());
        assert_eq!(
            sel.group_by,
            vec![
                Expr::Literal(Literal::Long(1)),
                Expr::column("a"),
                Expr::function("lower", vec![Expr::column("d")])
            ]
        );
        assert!(sel.having.is_some());
        let dirs: Vec<(bool, Option<bool>)> = sel
            .order_by
            .iter()
            .map(|o| (o.asc, o.nulls_first))
            .collect();
        assert_eq!(
            dirs,
            vec![(false, Some(true)), (true, None), (true, Some(false))]
        );
        assert_eq!(s("SELECT a FROM t x").from, Some(table("t", Some("x"))));
        assert!(parse_statement("SELECT a FROM t WHERE").is_err());
        assert!(parse_statement("SELECT a FROM t GROUP a").is_err());
    }

    #[test]
    fn limit_forms() {
        let lo = |sql: &str| {
            let sel = s(sql);
            (sel.limit, sel.offset)
        };
        assert_eq!(lo("SELECT a FROM t"), (None, None));
        assert_eq!(lo("SELECT a FROM t LIMIT 10"), (Some(10), None));
        assert_eq!(lo("SELECT a FROM t LIMIT 10 OFFSET 5"), (Some(10), Some(5)));
        assert_eq!(lo("SELECT a FROM t LIMIT 5, 10"), (Some(10), Some(5)));
        assert_eq!(lo("SELECT a FROM t OFFSET 5 ROWS"), (None, Some(5)));
        assert_eq!(
            lo("SELECT a FROM t ORDER BY a OFFSET 5 ROWS FETCH NEXT 10 ROWS ONLY"),
            (Some(10), Some(5))
        );
        assert_eq!(lo("SELECT a FROM t FETCH FIRST ROW ONLY"), (Some(1), None));
        assert_eq!(lo("SELECT a FROM t OFFSET 2 LIMIT 3"), (Some(3), Some(2)));
        assert!(parse_statement("SELECT a FROM t LIMIT -1").is_err());
        assert!(parse_statement("SELECT a FROM t LIMIT 1.5").is_err());
        assert!(parse_statement("SELECT a FROM t LIMIT 1 LIMIT 2").is_err());
    }

    #[test]
    fn joins() {
        let sel = s(
            "SELECT * FROM a JOIN b ON a.k = b.k LEFT JOIN c USING (k, j) \
                     RIGHT OUTER JOIN d ON true FULL JOIN e ON false CROSS JOIN f, g",
        );
        let mut kinds = Vec::new();
        let mut cur = sel.from.expect("from");
        while let TableRef::Join {
            left, kind, using, ..
        } = cur
        {
            kinds.push((kind, using));
            cur = *left;
        }
        assert_eq!(cur, table("a", None));
        kinds.reverse();
        assert_eq!(
            kinds,
            vec![
                (JoinKind::Inner, vec![]),
                (JoinKind::Left, vec!["k".to_string(), "j".to_string()]),
                (JoinKind::Right, vec![]),
                (JoinKind::Full, vec![]),
                (JoinKind::Cross, vec![]),
                (JoinKind::Cross, vec![]),
            ]
        );
        let sel = s("SELECT * FROM (SELECT a FROM t) AS sub JOIN (u JOIN v ON u.x = v.x) ON 1 = 1");
        let Some(TableRef::Join { left, right, .. }) = sel.from else {
            panic!()
        };
        assert!(matches!(*left, TableRef::Subquery { alias: Some(ref a), .. } if a == "sub"));
        assert!(matches!(
            *right,
            TableRef::Join {
                kind: JoinKind::Inner,
                ..
            }
        ));
        let sel = s("SELECT * FROM (SELECT a FROM t) sub");
        assert!(matches!(
            sel.from,
            Some(TableRef::Subquery { alias: Some(_), .. })
        ));
        assert!(parse_statement("SELECT * FROM a JOIN ON x").is_err());
        assert!(parse_statement("SELECT * FROM a LEFT b").is_err());
    }

    #[test]
    fn set_operations() {
        let query = q(
            "SELECT a FROM t UNION ALL SELECT a FROM u INTERSECT SELECT a FROM v \
                       EXCEPT SELECT a FROM w",
        );
        let Query::SetOp {
            op: SetOperator::Except,
            all: false,
            left,
            ..
        } = query
        else {
            panic!("{query:?}")
        };
        let Query::SetOp {
            op: SetOperator::Union,
            all: true,
            right,
            ..
        } = *left
        else {
            panic!()
        };
        assert!(matches!(
            *right,
            Query::SetOp {
                op: SetOperator::Intersect,
                ..
            }
        ));

        let query = q("SELECT a FROM t UNION SELECT a FROM u ORDER BY a LIMIT 5");
        let Query::Ordered {
            query,
            order_by,
            limit: Some(5),
            offset: None,
        } = query
        else {
            panic!()
        };
        assert_eq!(order_by.len(), 1);
        assert!(matches!(
            *query,
            Query::SetOp {
                op: SetOperator::Union,
                all: false,
                ..
            }
        ));

        // A parenthesised select takes the outer ORDER BY/LIMIT when it has none itself.
        let sel = s("(SELECT a FROM t) ORDER BY a LIMIT 3");
        assert_eq!(sel.limit, Some(3));
        let query = q("(SELECT a FROM t LIMIT 10) LIMIT 3");
        assert!(matches!(query, Query::Ordered { limit: Some(3), .. }));
        let query = q("(SELECT a FROM t) UNION (SELECT b FROM u ORDER BY b LIMIT 1)");
        assert!(matches!(query, Query::SetOp { .. }));
    }

    #[test]
    fn with_ctes() {
        let query = q("WITH x AS (SELECT a FROM t), y AS (SELECT * FROM x) \
                       SELECT * FROM y ORDER BY a LIMIT 2");
        let Query::With { ctes, body } = query else {
            panic!()
        };
        let names: Vec<&str> = ctes.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, vec!["x", "y"]);
        let Query::Select(sel) = *body else { panic!() };
        assert_eq!(sel.limit, Some(2));
        assert!(parse_statement("WITH x AS SELECT 1 SELECT 2").is_err());
    }

    #[test]
    fn subqueries_in_where() {
        let sel = s(
            "SELECT a FROM t WHERE a IN (SELECT b FROM u WHERE u.c = t.c) \
                     AND EXISTS (SELECT 1 FROM v) AND a > (SELECT avg(a) FROM t)",
        );
        let text = format!("{:?}", sel.selection);
        assert!(text.contains("InSubquery"));
        assert!(text.contains("Exists"));
        assert!(text.contains("ScalarSubquery"));
    }

    #[test]
    fn keywords_are_case_insensitive() {
        assert_eq!(
            s("select A from T where B = 1 group by A order by A desc limit 1"),
            s("SELECT A FROM T WHERE B = 1 GROUP BY A ORDER BY A DESC LIMIT 1")
        );
    }
}
