//! `WHERE` (and `FILTER (WHERE …)`) to a [`FilterExpr`]: AND/OR/NOT stay a tree, comparisons
//! of an expression with constants become typed [`Predicate`]s an index can answer, and
//! anything else becomes a per-row boolean expression.

use super::expr::{ExprBinder, Mode};
use super::literal::{Fitted, FittedBound, fit_bound, fit_literal};
use crate::plan::aggregate::canonical_name;
use crate::plan::error::PlanError;
use crate::plan::eval::truth;
use crate::plan::expr::{CmpOp, Expr};
use crate::plan::filter::{FilterExpr, Predicate, PredicateOp, RangeBound};
use crate::sql::ast::{self, BinaryOp, UnaryOp};
use segments::types::{DataType, Value};

/// Binds a boolean AST expression as a filter.
pub fn bind_filter(b: &mut ExprBinder<'_>, e: &ast::Expr) -> Result<FilterExpr, PlanError> {
    match e {
        ast::Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => Ok(FilterExpr::and(vec![
            bind_filter(b, left)?,
            bind_filter(b, right)?,
        ])),
        ast::Expr::Binary {
            op: BinaryOp::Or,
            left,
            right,
        } => Ok(FilterExpr::or(vec![
            bind_filter(b, left)?,
            bind_filter(b, right)?,
        ])),
        ast::Expr::Unary {
            op: UnaryOp::Not,
            expr,
        } => Ok(FilterExpr::negate(bind_filter(b, expr)?)),
        ast::Expr::Binary { op, left, right } if comparison(*op).is_some() => {
            let cmp = comparison(*op).unwrap_or(CmpOp::Eq);
            let l = b.bind(left, Mode::Row)?;
            let r = b.bind(right, Mode::Row)?;
            match (l.is_constant(), r.is_constant()) {
                (false, true) => comparison_predicate(l, cmp, &r),
                (true, false) => comparison_predicate(r, cmp.flip(), &l),
                _ => generic(Expr::Compare {
                    op: cmp,
                    left: Box::new(l),
                    right: Box::new(r),
                }),
            }
        }
        ast::Expr::InList {
            expr,
            list,
            negated,
        } => {
            let lhs = b.bind(expr, Mode::Row)?;
            let items: Vec<Expr> = list
                .iter()
                .map(|x| b.bind(x, Mode::Row))
                .collect::<Result<_, _>>()?;
            if lhs.is_constant() || !items.iter().all(|i| i.as_literal().is_some()) {
                return generic(Expr::InList {
                    expr: Box::new(lhs),
                    list: items,
                    negated: *negated,
                });
            }
            let (name, t) = lhs_type(&lhs);
            let mut values: Vec<Value> = Vec::new();
            for item in &items {
                if let Some(v) = item.as_literal()
                    && let Fitted::Exact(v) = fit_literal(&name, t, v)?
                    && !values.contains(&v)
                {
                    values.push(v);
                }
            }
            let f = if values.is_empty() {
                FilterExpr::Constant(false)
            } else {
                predicate(lhs, PredicateOp::In(values))
            };
            Ok(if *negated { FilterExpr::negate(f) } else { f })
        }
        ast::Expr::Between {
            expr,
            low,
            high,
            negated,
        } => {
            let lhs = b.bind(expr, Mode::Row)?;
            let lo = b.bind(low, Mode::Row)?;
            let hi = b.bind(high, Mode::Row)?;
            let f = match (lhs.is_constant(), lo.as_literal(), hi.as_literal()) {
                (false, Some(l), Some(h)) => {
                    range_predicate(lhs, Some((l, true)), Some((h, true)))?
                }
                _ => generic(Expr::Between {
                    expr: Box::new(lhs),
                    low: Box::new(lo),
                    high: Box::new(hi),
                    negated: false,
                })?,
            };
            Ok(if *negated { FilterExpr::negate(f) } else { f })
        }
        ast::Expr::Like {
            expr,
            pattern,
            negated,
            escape,
        } => {
            let bound = b.bind(e, Mode::Row)?;
            let Expr::Like {
                expr: lhs,
                pattern: p,
                ..
            } = &bound
            else {
                return generic(bound);
            };
            let _ = (expr, pattern);
            match (lhs.is_constant(), p.as_literal()) {
                (false, Some(Value::String(pat))) => {
                    let esc = escape.as_deref().and_then(|s| s.chars().next());
                    let f = predicate(
                        (**lhs).clone(),
                        PredicateOp::Like {
                            pattern: pat.clone(),
                            escape: esc,
                        },
                    );
                    Ok(if *negated { FilterExpr::negate(f) } else { f })
                }
                _ => generic(bound),
            }
        }
        ast::Expr::IsNull { expr, negated } => {
            let lhs = b.bind(expr, Mode::Row)?;
            if lhs.is_constant() {
                return generic(Expr::IsNull {
                    expr: Box::new(lhs),
                    negated: *negated,
                });
            }
            Ok(predicate(
                lhs,
                if *negated {
                    PredicateOp::IsNotNull
                } else {
                    PredicateOp::IsNull
                },
            ))
        }
        ast::Expr::Function { name, args, .. } if is_match_function(name) => {
            match_function(b, &canonical_name(name), args)
        }
        _ => {
            let bound = b.bind(e, Mode::Row)?;
            if let Expr::Column(c) = &bound
                && c.column_type.data_type == DataType::Boolean
            {
                return Ok(predicate(bound, PredicateOp::Eq(Value::Boolean(true))));
            }
            generic(bound)
        }
    }
}

fn comparison(op: BinaryOp) -> Option<CmpOp> {
    Some(match op {
        BinaryOp::Eq => CmpOp::Eq,
        BinaryOp::NotEq => CmpOp::NotEq,
        BinaryOp::Lt => CmpOp::Lt,
        BinaryOp::LtEq => CmpOp::LtEq,
        BinaryOp::Gt => CmpOp::Gt,
        BinaryOp::GtEq => CmpOp::GtEq,
        _ => return None,
    })
}

fn predicate(lhs: Expr, op: PredicateOp) -> FilterExpr {
    FilterExpr::Predicate(Predicate { lhs, op })
}

/// A boolean expression that is not an indexable predicate (constants are folded).
fn generic(e: Expr) -> Result<FilterExpr, PlanError> {
    let e = super::expr::fold(e);
    if let Some(v) = e.as_literal() {
        return Ok(FilterExpr::Constant(truth(v) == Some(true)));
    }
    Ok(FilterExpr::Expr(e))
}

fn lhs_type(lhs: &Expr) -> (String, DataType) {
    (lhs.to_string(), lhs.column_type().data_type)
}

/// `lhs op constant`.
fn comparison_predicate(lhs: Expr, op: CmpOp, rhs: &Expr) -> Result<FilterExpr, PlanError> {
    let Some(v) = rhs.as_literal() else {
        return generic(Expr::Compare {
            op,
            left: Box::new(lhs),
            right: Box::new(rhs.clone()),
        });
    };
    if v.is_null() {
        // A comparison with NULL is never true.
        return Ok(FilterExpr::Constant(false));
    }
    let (name, t) = lhs_type(&lhs);
    match op {
        CmpOp::Eq | CmpOp::NotEq => {
            let f = match fit_literal(&name, t, v)? {
                Fitted::Exact(v) => predicate(lhs, PredicateOp::Eq(v)),
                Fitted::Unrepresentable => FilterExpr::Constant(false),
            };
            Ok(if op == CmpOp::NotEq {
                FilterExpr::negate(f)
            } else {
                f
            })
        }
        CmpOp::Gt => range_predicate(lhs, Some((v, false)), None),
        CmpOp::GtEq => range_predicate(lhs, Some((v, true)), None),
        CmpOp::Lt => range_predicate(lhs, None, Some((v, false))),
        CmpOp::LtEq => range_predicate(lhs, None, Some((v, true))),
    }
}

/// A range predicate with bounds fitted to the lhs type.
fn range_predicate(
    lhs: Expr,
    lower: Option<(&Value, bool)>,
    upper: Option<(&Value, bool)>,
) -> Result<FilterExpr, PlanError> {
    let (name, t) = lhs_type(&lhs);
    let mut fitted: [Option<RangeBound>; 2] = [None, None];
    for (slot, bound, is_lower) in [(0, lower, true), (1, upper, false)] {
        if let Some((v, inclusive)) = bound {
            match fit_bound(&name, t, v, inclusive, is_lower)? {
                FittedBound::Bound(b) => fitted[slot] = Some(b),
                FittedBound::Unbounded => {}
                FittedBound::Empty => return Ok(FilterExpr::Constant(false)),
            }
        }
    }
    let [lower, upper] = fitted;
    if let (Some(l), Some(u)) = (&lower, &upper) {
        let ord = l.value.total_cmp(&u.value);
        if ord == std::cmp::Ordering::Greater
            || (ord == std::cmp::Ordering::Equal && !(l.inclusive && u.inclusive))
        {
            return Ok(FilterExpr::Constant(false));
        }
    }
    if lower.is_none() && upper.is_none() {
        return Ok(predicate(lhs, PredicateOp::IsNotNull));
    }
    Ok(predicate(lhs, PredicateOp::Range { lower, upper }))
}

fn is_match_function(name: &str) -> bool {
    matches!(
        canonical_name(name).as_str(),
        "regexplike" | "textmatch" | "jsonmatch"
    )
}

/// `REGEXP_LIKE(x, 'pat'[, 'i'])`, `TEXT_MATCH(x, 'q')`, `JSON_MATCH(x, 'f')`.
fn match_function(
    b: &mut ExprBinder<'_>,
    canonical: &str,
    args: &[ast::Expr],
) -> Result<FilterExpr, PlanError> {
    if args.len() < 2 || args.len() > 3 || (canonical == "jsonmatch" && args.len() != 2) {
        return Err(PlanError::Validation(format!(
            "wrong number of arguments for {canonical}: {}",
            args.len()
        )));
    }
    let lhs = b.bind(&args[0], Mode::Row)?;
    let text = |b: &mut ExprBinder<'_>, e: &ast::Expr| -> Result<String, PlanError> {
        match b.bind(e, Mode::Row)?.as_literal() {
            Some(Value::String(s)) => Ok(s.clone()),
            _ => Err(PlanError::Validation(format!(
                "{canonical} expects a string literal argument"
            ))),
        }
    };
    let arg = text(b, &args[1])?;
    let op = match canonical {
        "regexplike" => {
            let case_insensitive = match args.get(2) {
                Some(flag) => text(b, flag)?.eq_ignore_ascii_case("i"),
                None => false,
            };
            PredicateOp::RegexpLike {
                pattern: arg,
                case_insensitive,
            }
        }
        "textmatch" => {
            let options = match args.get(2) {
                Some(o) => Some(text(b, o)?),
                None => None,
            };
            let column = match &lhs {
                Expr::Column(c) => c.name.clone(),
                _ => String::new(),
            };
            PredicateOp::TextMatch(Box::new(crate::plan::text_match::TextMatch::parse(
                &column,
                &arg,
                options.as_deref(),
            )?))
        }
        _ => PredicateOp::JsonMatch(Box::new(crate::plan::json_match::JsonMatch::parse(&arg)?)),
    };
    Ok(predicate(lhs, op))
}

#[cfg(test)]
mod tests {
    use super::super::scope::Scope;
    use super::*;
    use crate::plan::catalog::TableInfo;
    use crate::sql::ast::Literal;
    use segments::types::{FieldSpec, Schema};

    fn info() -> TableInfo {
        let mut schema = Schema::default();
        schema
            .fields
            .push(FieldSpec::dimension("s", DataType::String));
        schema.fields.push(FieldSpec::metric("x", DataType::Int));
        schema
            .fields
            .push(FieldSpec::dimension("flag", DataType::Boolean));
        TableInfo::new("t", schema)
    }

    fn bind(e: &ast::Expr) -> FilterExpr {
        let info = info();
        let scope = Scope {
            table: Some(&info),
            catalog: None,
            alias: None,
        };
        let mut b = ExprBinder::new(&scope);
        bind_filter(&mut b, e).unwrap()
    }

    fn lit(v: i64) -> ast::Expr {
        ast::Expr::Literal(Literal::Long(v))
    }

    fn pred_op(f: &FilterExpr) -> &PredicateOp {
        match f {
            FilterExpr::Predicate(p) => &p.op,
            other => panic!("not a predicate: {other:?}"),
        }
    }

    #[test]
    fn comparisons_become_typed_predicates() {
        let f = bind(&ast::Expr::binary(
            BinaryOp::Eq,
            ast::Expr::column("s"),
            lit(5),
        ));
        assert_eq!(pred_op(&f), &PredicateOp::Eq(Value::String("5".into())));
        let f = bind(&ast::Expr::binary(
            BinaryOp::Lt,
            lit(5),
            ast::Expr::column("x"),
        ));
        assert_eq!(
            pred_op(&f),
            &PredicateOp::Range {
                lower: Some(RangeBound::exclusive(Value::Int(5))),
                upper: None
            }
        );
        let f = bind(&ast::Expr::binary(
            BinaryOp::Eq,
            ast::Expr::column("x"),
            ast::Expr::Literal(Literal::Double(5.5)),
        ));
        assert_eq!(f, FilterExpr::Constant(false));
        let f = bind(&ast::Expr::binary(
            BinaryOp::NotEq,
            ast::Expr::column("x"),
            lit(3),
        ));
        assert_eq!(pred_op(&f), &PredicateOp::NotEq(Value::Int(3)));
        let f = bind(&ast::Expr::binary(
            BinaryOp::Eq,
            ast::Expr::column("x"),
            ast::Expr::column("x"),
        ));
        assert!(matches!(f, FilterExpr::Expr(_)));
        let f = bind(&ast::Expr::column("flag"));
        assert_eq!(pred_op(&f), &PredicateOp::Eq(Value::Boolean(true)));
        let f = bind(&ast::Expr::binary(BinaryOp::Eq, lit(1), lit(1)));
        assert_eq!(f, FilterExpr::Constant(true));
    }

    #[test]
    fn in_between_like_null_and_match_functions() {
        let f = bind(&ast::Expr::InList {
            expr: Box::new(ast::Expr::column("x")),
            list: vec![
                lit(1),
                lit(2),
                lit(2),
                ast::Expr::Literal(Literal::Double(2.5)),
            ],
            negated: true,
        });
        assert_eq!(
            pred_op(&f),
            &PredicateOp::NotIn(vec![Value::Int(1), Value::Int(2)])
        );
        let f = bind(&ast::Expr::Between {
            expr: Box::new(ast::Expr::column("x")),
            low: Box::new(lit(10)),
            high: Box::new(lit(1)),
            negated: false,
        });
        assert_eq!(f, FilterExpr::Constant(false));
        let f = bind(&ast::Expr::Like {
            expr: Box::new(ast::Expr::column("s")),
            pattern: Box::new(ast::Expr::Literal(Literal::String("a%".into()))),
            negated: true,
            escape: None,
        });
        assert!(matches!(f, FilterExpr::Not(_)));
        let f = bind(&ast::Expr::IsNull {
            expr: Box::new(ast::Expr::column("s")),
            negated: true,
        });
        assert_eq!(pred_op(&f), &PredicateOp::IsNotNull);
        let f = bind(&ast::Expr::function(
            "REGEXP_LIKE",
            vec![
                ast::Expr::column("s"),
                ast::Expr::Literal(Literal::String("^a.*".into())),
            ],
        ));
        assert_eq!(
            pred_op(&f),
            &PredicateOp::RegexpLike {
                pattern: "^a.*".into(),
                case_insensitive: false
            }
        );
        let f = bind(&ast::Expr::binary(
            BinaryOp::And,
            ast::Expr::binary(BinaryOp::Gt, ast::Expr::column("x"), lit(1)),
            ast::Expr::binary(
                BinaryOp::Or,
                ast::Expr::column("flag"),
                ast::Expr::Literal(Literal::Bool(false)),
            ),
        ));
        assert!(matches!(f, FilterExpr::And(ref v) if v.len() == 2));
    }
}
