//! Result column names, Pinot v1 style.
//!
//! Expressions are named by the parser's naming rules ([`crate::sql::naming`], the AST's
//! `Display`: `plus(a,'5')`, `datetrunc('DAY',ts)`). An aggregation that is a whole select
//! item is named the way its Pinot function names itself (`AggregationFunction
//! #getResultColumnName`), plus ` FILTER(WHERE …)` when filtered:
//! `count(*)` (also for `COUNT(col)` unless null handling is on), `sum(runs)`,
//! `percentile95(x)` for the legacy form and `percentile(x, 95.0)` for the two-argument form,
//! `covarpop(x,y)`, `firstwithtime(x,ts,'LONG')`.

use crate::plan::aggregate::{
    AggregateFunction, DEFAULT_TDIGEST_COMPRESSION, canonical_name, parse_aggregate_name,
};
use crate::sql::ast::Expr;
use crate::sql::naming::filter_name;
use segments::types::java_text::java_double_text;

/// The v1 result column name of an (already rewritten) AST expression.
pub fn v1_name(e: &Expr) -> String {
    e.to_string()
}

/// The result column name of an aggregation call.
pub fn aggregate_name(e: &Expr, function: &AggregateFunction, null_handling: bool) -> String {
    let Expr::Function {
        name, args, filter, ..
    } = e
    else {
        return v1_name(e);
    };
    let canonical = canonical_name(name);
    let Some((base, legacy, mv)) = parse_aggregate_name(&canonical) else {
        return v1_name(e);
    };
    let mv_suffix = if mv { "mv" } else { "" };
    let arg = args.first().map_or_else(|| "*".to_string(), v1_name);
    let head = match function {
        AggregateFunction::Count if !mv && (arg == "*" || !null_handling) => "count(*)".to_string(),
        AggregateFunction::Percentile { percentile }
        | AggregateFunction::PercentileEst { percentile, .. }
        | AggregateFunction::PercentileTDigest { percentile, .. }
        | AggregateFunction::PercentileSmartTDigest { percentile, .. }
        | AggregateFunction::PercentileKll { percentile, .. } => match legacy {
            Some(_) => format!("{base}{}{mv_suffix}({arg})", *percentile as i64),
            None => {
                let extra = match function {
                    AggregateFunction::PercentileTDigest { compression, .. }
                        if *compression != DEFAULT_TDIGEST_COMPRESSION =>
                    {
                        format!(", {}", java_double_text(*compression))
                    }
                    _ => String::new(),
                };
                format!(
                    "{base}{mv_suffix}({arg}, {}{extra})",
                    java_double_text(*percentile)
                )
            }
        },
        // Two-input functions name both (Pinot's CovarianceAggregationFunction and the
        // `…ValueWithTimeAggregationFunction`s, which add the value type).
        AggregateFunction::Covariance { .. } if args.len() == 2 => {
            format!("{base}({arg},{})", v1_name(&args[1]))
        }
        AggregateFunction::WithTime { element, .. } if args.len() >= 2 => {
            format!("{base}({arg},{},'{}')", v1_name(&args[1]), element.name())
        }
        _ => format!("{base}{mv_suffix}({arg})"),
    };
    match filter {
        Some(f) => format!("{head} FILTER(WHERE {})", filter_name(f)),
        None => head,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::ast::{BinaryOp, Literal};

    #[test]
    fn names_like_pinot_v1() {
        assert_eq!(
            v1_name(&Expr::function("COUNT", vec![Expr::Star])),
            "count(*)"
        );
        assert_eq!(
            v1_name(&Expr::binary(
                BinaryOp::Add,
                Expr::column("a"),
                Expr::Literal(Literal::Long(5))
            )),
            "plus(a,'5')"
        );
        let sum = Expr::function("SUM", vec![Expr::column("runs")]);
        assert_eq!(
            aggregate_name(&sum, &AggregateFunction::Sum, false),
            "sum(runs)"
        );
        let count = Expr::function("count", vec![Expr::column("runs")]);
        assert_eq!(
            aggregate_name(&count, &AggregateFunction::Count, false),
            "count(*)"
        );
        assert_eq!(
            aggregate_name(&count, &AggregateFunction::Count, true),
            "count(runs)"
        );
        let p95 = Expr::function("PERCENTILE95", vec![Expr::column("x")]);
        assert_eq!(
            aggregate_name(
                &p95,
                &AggregateFunction::Percentile { percentile: 95.0 },
                false
            ),
            "percentile95(x)"
        );
        let p = Expr::function(
            "percentile",
            vec![Expr::column("x"), Expr::Literal(Literal::Long(95))],
        );
        assert_eq!(
            aggregate_name(
                &p,
                &AggregateFunction::Percentile { percentile: 95.0 },
                false
            ),
            "percentile(x, 95.0)"
        );
        let b = Expr::function("BOOL_AND", vec![Expr::column("f")]);
        assert_eq!(
            aggregate_name(&b, &AggregateFunction::BoolAnd, false),
            "booland(f)"
        );
        let filtered = Expr::Function {
            name: "SUM".into(),
            args: vec![Expr::column("x")],
            distinct: false,
            filter: Some(Box::new(Expr::binary(
                BinaryOp::Gt,
                Expr::column("y"),
                Expr::Literal(Literal::Long(1)),
            ))),
            over: None,
        };
        assert_eq!(
            aggregate_name(&filtered, &AggregateFunction::Sum, false),
            "sum(x) FILTER(WHERE y > '1')"
        );
    }
}
