//! Syntax-level rewrites Pinot's v1 compiler applies before anything is typed:
//!
//! * column identifiers take the schema's spelling and lose a matching table qualifier;
//! * `*` expands to the table's columns (sorted by name, as Pinot v1 does);
//! * `GROUP BY`/`ORDER BY` ordinals (`ORDER BY 2`) and select-list aliases (in `GROUP BY`,
//!   `ORDER BY`, `HAVING`) become the select expressions they name;
//! * `COUNT(DISTINCT x)` becomes `DISTINCTCOUNT(x)`.
//!
//! Doing these on the AST keeps result column names right: they are printed from the
//! rewritten expressions.

use super::scope::Scope;
use crate::plan::aggregate::canonical_name;
use crate::plan::error::PlanError;
use crate::sql::ast::{Expr, Literal, Select, SelectItem};

/// Spells every resolvable column the schema's way and drops qualifiers naming this table.
/// Unresolvable names stay as written: they may be aliases, else binding reports them.
pub fn canonicalize_columns(select: &mut Select, scope: &Scope<'_>) -> Result<(), PlanError> {
    let mut error = None;
    for e in select.exprs_mut() {
        e.walk_mut(&mut |node| {
            if let Expr::Column { table, name } = node {
                if let Some(q) = table.as_deref()
                    && !scope.qualifier_matches(q)
                {
                    error.get_or_insert_with(|| PlanError::UnknownColumn(format!("{q}.{name}")));
                    return;
                }
                *table = None;
                if let Some(c) = scope.resolve(name) {
                    *name = c.name;
                }
            }
        });
    }
    error.map_or(Ok(()), Err)
}

/// Replaces `*` (and `t.*`) with the table's columns.
pub fn expand_wildcards(select: &mut Select, scope: &Scope<'_>) -> Result<(), PlanError> {
    let mut out = Vec::with_capacity(select.projection.len());
    for item in std::mem::take(&mut select.projection) {
        match item {
            SelectItem::Wildcard => out.extend(star_items(scope)),
            SelectItem::QualifiedWildcard(q) => {
                if !scope.qualifier_matches(&q) {
                    return Err(PlanError::UnknownColumn(format!("{q}.*")));
                }
                out.extend(star_items(scope));
            }
            other => out.push(other),
        }
    }
    select.projection = out;
    Ok(())
}

fn star_items(scope: &Scope<'_>) -> Vec<SelectItem> {
    scope
        .star_columns()
        .into_iter()
        .map(|name| SelectItem::Expr {
            expr: Expr::column(name),
            alias: None,
        })
        .collect()
}

/// The select-list expression at a 1-based ordinal.
fn ordinal(select_exprs: &[Expr], e: &Expr, clause: &str) -> Result<Option<Expr>, PlanError> {
    if let Expr::Literal(Literal::Long(n)) = e {
        let idx = usize::try_from(*n)
            .ok()
            .filter(|i| *i >= 1 && *i <= select_exprs.len());
        return match idx {
            Some(i) => Ok(Some(select_exprs[i - 1].clone())),
            None => Err(PlanError::Compilation(format!(
                "Expected {clause} ordinal value to be between 1 and {}, got {n}",
                select_exprs.len()
            ))),
        };
    }
    Ok(None)
}

/// Resolves ordinals in `GROUP BY`/`ORDER BY` and aliases in `GROUP BY`/`ORDER BY`/`HAVING`.
/// An identifier that is a real column is left alone unless an alias of that name exists
/// (aliases win, as in Pinot's `applyAlias`).
pub fn apply_ordinals_and_aliases(select: &mut Select) -> Result<(), PlanError> {
    let mut select_exprs = Vec::new();
    let mut aliases: Vec<(String, Expr)> = Vec::new();
    for item in &select.projection {
        if let SelectItem::Expr { expr, alias } = item {
            select_exprs.push(expr.clone());
            if let Some(a) = alias {
                let is_self = matches!(expr, Expr::Column { name, .. } if name == a);
                if !is_self {
                    aliases.push((a.clone(), expr.clone()));
                }
            }
        }
    }
    for g in select.group_by.iter_mut() {
        if let Some(e) = ordinal(&select_exprs, g, "GROUP BY")? {
            *g = e;
        }
    }
    for o in select.order_by.iter_mut() {
        if let Some(e) = ordinal(&select_exprs, &o.expr, "ORDER BY")? {
            o.expr = e;
        }
    }
    if aliases.is_empty() {
        return Ok(());
    }
    let mut targets: Vec<&mut Expr> = select.group_by.iter_mut().collect();
    targets.extend(select.having.iter_mut());
    targets.extend(select.order_by.iter_mut().map(|o| &mut o.expr));
    for t in targets {
        replace_aliases(t, &aliases);
    }
    Ok(())
}

fn replace_aliases(e: &mut Expr, aliases: &[(String, Expr)]) {
    if let Expr::Column { table: None, name } = e {
        if let Some((_, target)) = aliases.iter().find(|(a, _)| a == name) {
            *e = target.clone();
        }
        return;
    }
    for c in e.children_mut() {
        replace_aliases(c, aliases);
    }
}

/// `COUNT(DISTINCT x)` → `DISTINCTCOUNT(x)` everywhere in the block.
pub fn rewrite_count_distinct(select: &mut Select) {
    for e in select.exprs_mut() {
        e.walk_mut(&mut |node| {
            if let Expr::Function { name, distinct, .. } = node
                && *distinct
                && canonical_name(name) == "count"
            {
                *name = "distinctcount".into();
                *distinct = false;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::catalog::TableInfo;
    use crate::sql::ast::{OrderByExpr, TableRef};
    use segments::types::{DataType, FieldSpec, Schema};

    fn info() -> TableInfo {
        let mut schema = Schema::default();
        schema
            .fields
            .push(FieldSpec::dimension("teamID", DataType::String));
        schema.fields.push(FieldSpec::metric("runs", DataType::Int));
        TableInfo::new("baseballStats", schema)
    }

    fn item(expr: Expr, alias: Option<&str>) -> SelectItem {
        SelectItem::Expr {
            expr,
            alias: alias.map(String::from),
        }
    }

    #[test]
    fn canonicalizes_and_expands() {
        let info = info();
        let scope = Scope {
            table: Some(&info),
            catalog: None,
            alias: None,
        };
        let mut s = Select {
            projection: vec![
                SelectItem::Wildcard,
                item(
                    Expr::Column {
                        table: Some("baseballstats".into()),
                        name: "TEAMID".into(),
                    },
                    None,
                ),
            ],
            from: Some(TableRef::Table {
                name: "baseballStats".into(),
                alias: None,
            }),
            ..Select::default()
        };
        canonicalize_columns(&mut s, &scope).unwrap();
        expand_wildcards(&mut s, &scope).unwrap();
        let names: Vec<String> = s
            .projection
            .iter()
            .map(|i| match i {
                SelectItem::Expr {
                    expr: Expr::Column { name, table: None },
                    ..
                } => name.clone(),
                _ => "?".into(),
            })
            .collect();
        assert_eq!(names, vec!["runs", "teamID", "teamID"]);
        let mut bad = Select {
            projection: vec![item(
                Expr::Column {
                    table: Some("other".into()),
                    name: "runs".into(),
                },
                None,
            )],
            ..Select::default()
        };
        assert!(matches!(
            canonicalize_columns(&mut bad, &scope),
            Err(PlanError::UnknownColumn(_))
        ));
    }

    #[test]
    fn ordinals_aliases_and_count_distinct() {
        let sum = Expr::function("SUM", vec![Expr::column("runs")]);
        let mut s = Select {
            projection: vec![
                item(Expr::column("teamID"), None),
                item(sum.clone(), Some("total")),
            ],
            group_by: vec![Expr::Literal(Literal::Long(1))],
            having: Some(Expr::binary(
                crate::sql::ast::BinaryOp::Gt,
                Expr::column("total"),
                Expr::Literal(Literal::Long(10)),
            )),
            order_by: vec![OrderByExpr {
                expr: Expr::Literal(Literal::Long(2)),
                asc: false,
                nulls_first: None,
            }],
            ..Select::default()
        };
        apply_ordinals_and_aliases(&mut s).unwrap();
        assert_eq!(s.group_by[0], Expr::column("teamID"));
        assert_eq!(s.order_by[0].expr, sum);
        match s.having.as_ref().unwrap() {
            Expr::Binary { left, .. } => assert_eq!(**left, sum),
            other => panic!("unexpected {other:?}"),
        }
        s.group_by = vec![Expr::Literal(Literal::Long(3))];
        assert!(matches!(
            apply_ordinals_and_aliases(&mut s),
            Err(PlanError::Compilation(_))
        ));

        let mut c = Select {
            projection: vec![item(
                Expr::Function {
                    name: "COUNT".into(),
                    args: vec![Expr::column("teamID")],
                    distinct: true,
                    filter: None,
                    over: None,
                },
                None,
            )],
            ..Select::default()
        };
        rewrite_count_distinct(&mut c);
        assert!(
            matches!(&c.projection[0], SelectItem::Expr { expr: Expr::Function { name, distinct: false, .. }, .. } if name == "distinctcount")
        );
    }
}
