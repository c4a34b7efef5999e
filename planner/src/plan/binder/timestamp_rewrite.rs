//! The timestamp index's query rewrite (Pinot's `RequestUtils.applyTimestampIndex`): an
//! expression `dateTrunc('<GRANULARITY>', col)` — two arguments, or three with
//! `'MILLISECONDS'` — whose granularity is one of the timestamp index's (`MILLISECOND` …
//! `YEAR`, any case, singular) reads the derived column `$col$GRANULARITY` instead of computing
//! the truncation, wherever it appears in a server plan: select list, filter (so the derived
//! column's range index answers it), group-by keys, aggregation arguments and their
//! `FILTER (WHERE …)`s.
//!
//! Pinot's broker rewrites when the table config declares the index. Here the broker does not
//! know which segments carry the derived column (a segment built before the index was
//! configured does not), so the server applies [`rewrite_for_segment`] per segment with the
//! columns that segment has; the other segments compute `dateTrunc`. Both give the same values
//! (the derived column stores exactly `dateTrunc`'s LONG result, see
//! `segments::timestamp_index`), and the broker's result names and types come from the
//! original expressions, so answers are identical with and without the index.

use crate::plan::aggregate::AggregateCall;
use crate::plan::expr::{ColumnRef, Expr};
use crate::plan::filter::FilterExpr;
use crate::plan::query_plan::{ServerQueryKind, ServerQueryPlan};
use segments::timestamp_index::TimestampGranularity;
use segments::types::ColumnType;
use segments::types::{DataType, Value};

/// `plan` with every rewritable `dateTrunc` replaced by its derived column, for a segment
/// that has the columns `has_column` accepts (it should accept only single-value LONG
/// columns); `None` if nothing was rewritten.
pub fn rewrite_for_segment(
    plan: &ServerQueryPlan,
    has_column: &dyn Fn(&str) -> bool,
) -> Option<ServerQueryPlan> {
    if !plan_mentions_date_trunc(plan) {
        return None;
    }
    let mut out = plan.clone();
    let mut r = Rewriter {
        has_column,
        changed: false,
    };
    if let Some(f) = &mut out.filter {
        r.filter(f);
    }
    match &mut out.kind {
        ServerQueryKind::Selection { exprs, .. } | ServerQueryKind::Distinct { exprs, .. } => {
            exprs.iter_mut().for_each(|e| r.expr(e));
        }
        ServerQueryKind::Aggregation { aggregates } => r.aggregates(aggregates),
        ServerQueryKind::GroupBy { keys, aggregates } => {
            keys.iter_mut().for_each(|e| r.expr(e));
            r.aggregates(aggregates);
        }
    }
    r.changed.then_some(out)
}

/// The derived column that `expr` may read instead, if it is a rewritable `dateTrunc`.
pub fn derived_column_of(expr: &Expr) -> Option<String> {
    let Expr::Call { name, args, .. } = expr else {
        return None;
    };
    if name != "datetrunc" {
        return None;
    }
    fn text(e: &Expr) -> Option<&str> {
        match e.as_literal() {
            Some(Value::String(s)) => Some(s.as_str()),
            _ => None,
        }
    }
    let millis_input = match args.len() {
        2 => true,
        3 => text(&args[2]).is_some_and(|u| u.trim().eq_ignore_ascii_case("MILLISECONDS")),
        _ => false,
    };
    let Expr::Column(column) = args.get(1)? else {
        return None;
    };
    // Pinot upper-cases the unit and requires an exact granularity name (`DAY`, not `DAYS`).
    let unit = text(&args[0])?.to_ascii_uppercase();
    let granularity = TimestampGranularity::parse(&unit).filter(|g| g.name() == unit)?;
    (millis_input && column.column_type.single_value && !column.name.starts_with('$'))
        .then(|| granularity.derived_column(&column.name))
}

/// Cheap pre-check so plans without `dateTrunc` are never cloned.
fn plan_mentions_date_trunc(plan: &ServerQueryPlan) -> bool {
    let mut found = false;
    let mut look = |e: &Expr| {
        e.visit(&mut |x| {
            found |= matches!(x, Expr::Call { name, .. } if name == "datetrunc");
        })
    };
    if let Some(f) = &plan.filter {
        visit_filter(f, &mut look);
    }
    let aggs = |aggregates: &[AggregateCall], look: &mut dyn FnMut(&Expr)| {
        for a in aggregates {
            a.args().for_each(&mut *look);
            if let Some(f) = &a.filter {
                visit_filter(f, look);
            }
        }
    };
    match &plan.kind {
        ServerQueryKind::Selection { exprs, .. } | ServerQueryKind::Distinct { exprs, .. } => {
            exprs.iter().for_each(&mut look)
        }
        ServerQueryKind::Aggregation { aggregates } => aggs(aggregates, &mut look),
        ServerQueryKind::GroupBy { keys, aggregates } => {
            keys.iter().for_each(&mut look);
            aggs(aggregates, &mut look);
        }
    }
    found
}

fn visit_filter(f: &FilterExpr, look: &mut dyn FnMut(&Expr)) {
    match f {
        FilterExpr::And(v) | FilterExpr::Or(v) => v.iter().for_each(|c| visit_filter(c, look)),
        FilterExpr::Not(c) => visit_filter(c, look),
        FilterExpr::Predicate(p) => look(&p.lhs),
        FilterExpr::Expr(e) => look(e),
        FilterExpr::Constant(_) => {}
    }
}

struct Rewriter<'a> {
    has_column: &'a dyn Fn(&str) -> bool,
    changed: bool,
}

impl Rewriter<'_> {
    fn aggregates(&mut self, aggregates: &mut [AggregateCall]) {
        for a in aggregates {
            for arg in a.args_mut() {
                self.expr(arg);
            }
            if let Some(f) = &mut a.filter {
                self.filter(f);
            }
        }
    }

    fn filter(&mut self, f: &mut FilterExpr) {
        match f {
            FilterExpr::And(v) | FilterExpr::Or(v) => v.iter_mut().for_each(|c| self.filter(c)),
            FilterExpr::Not(c) => self.filter(c),
            FilterExpr::Predicate(p) => self.expr(&mut p.lhs),
            FilterExpr::Expr(e) => self.expr(e),
            FilterExpr::Constant(_) => {}
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        if let Some(derived) = derived_column_of(e).filter(|d| (self.has_column)(d)) {
            *e = Expr::Column(ColumnRef {
                name: derived,
                column_type: ColumnType::sv(DataType::Long),
            });
            self.changed = true;
            return;
        }
        for child in e.children_mut() {
            self.expr(child);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::catalog::MemoryCatalog;
    use crate::plan::query_plan::{ExecutionOptions, QueryPlan};
    use segments::types::{FieldSpec, Schema};

    fn server_plan(sql: &str) -> ServerQueryPlan {
        let mut schema = Schema::default();
        schema
            .fields
            .push(FieldSpec::dimension("ts", DataType::Timestamp));
        schema
            .fields
            .push(FieldSpec::dimension("l", DataType::Long));
        schema.fields.push(FieldSpec::metric("m", DataType::Int));
        let mut catalog = MemoryCatalog::new();
        catalog.add("t", schema);
        let stmt = crate::sql::parse_statement(sql).expect("parses");
        match super::super::bind_statement(&stmt, &catalog, &ExecutionOptions::default()) {
            Ok(QueryPlan::SingleStage(p)) => std::sync::Arc::unwrap_or_clone(p.server),
            other => panic!("not single-stage: {other:?}"),
        }
    }

    fn all_derived(name: &str) -> bool {
        name.starts_with('$')
    }

    fn text(plan: &ServerQueryPlan) -> String {
        format!("{:?} {:?}", plan.filter, plan.kind)
    }

    #[test]
    fn rewrites_filters_group_by_select_and_aggregates() {
        let p = server_plan(
            "SELECT DATETRUNC('day', ts), MAX(DATETRUNC('MONTH', ts)) FILTER (WHERE dateTrunc('YEAR', ts) > 0), COUNT(*) \
             FROM t WHERE DATE_TRUNC('WEEK', ts) >= 1000 AND m > 1 GROUP BY DATETRUNC('day', ts)",
        );
        let r = rewrite_for_segment(&p, &all_derived).expect("rewritten");
        let s = text(&r);
        for derived in ["$ts$DAY", "$ts$MONTH", "$ts$YEAR", "$ts$WEEK"] {
            assert!(s.contains(derived), "{derived} missing in {s}");
        }
        assert!(!s.contains(r#"Call { name: "datetrunc""#), "{s}");
        let ServerQueryKind::GroupBy { keys, aggregates } = &r.kind else {
            panic!("not a group-by")
        };
        assert_eq!(keys[0].to_string(), "$ts$DAY");
        assert_eq!(keys[0].column_type(), ColumnType::sv(DataType::Long));
        // Result names stay those of the query.
        assert_eq!(
            aggregates[0].name,
            "max(datetrunc('MONTH',ts)) FILTER(WHERE datetrunc('YEAR',ts) > '0')"
        );
        let Some(FilterExpr::And(parts)) = &r.filter else {
            panic!("filter")
        };
        assert!(
            matches!(&parts[0], FilterExpr::Predicate(p) if p.lhs.to_string() == "$ts$WEEK"),
            "{parts:?}"
        );
    }

    #[test]
    fn rewrites_only_what_the_segment_has() {
        let p = server_plan(
            "SELECT ts, DATETRUNC('DAY', ts), DATETRUNC('HOUR', ts), DATETRUNC('DAY', l) FROM t",
        );
        let r = rewrite_for_segment(&p, &|c| c == "$ts$DAY").expect("rewritten");
        let ServerQueryKind::Selection { exprs, .. } = &r.kind else {
            panic!()
        };
        let shown: Vec<String> = exprs.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            shown,
            [
                "ts",
                "$ts$DAY",
                "datetrunc('HOUR',ts)",
                "datetrunc('DAY',l)"
            ]
        );
        assert!(rewrite_for_segment(&p, &|_| false).is_none());
        assert!(rewrite_for_segment(&server_plan("SELECT ts FROM t"), &all_derived).is_none());
    }

    #[test]
    fn only_pinots_shapes_are_rewritten() {
        let rewritten = |sql: &str| {
            let p = server_plan(sql);
            rewrite_for_segment(&p, &all_derived).is_some()
        };
        assert!(rewritten(
            "SELECT COUNT(*) FROM t WHERE dateTrunc('DAY', ts, 'MILLISECONDS') = 0"
        ));
        assert!(rewritten(
            "SELECT COUNT(*) FROM t WHERE dateTrunc('DAY', ts, 'milliseconds') = 0"
        ));
        // Other input units, time zones, plural units, non-column arguments: computed.
        assert!(!rewritten(
            "SELECT COUNT(*) FROM t WHERE dateTrunc('DAY', ts, 'SECONDS') = 0"
        ));
        assert!(!rewritten(
            "SELECT COUNT(*) FROM t WHERE dateTrunc('DAY', ts, 'MILLISECONDS', '+01:00') = 0"
        ));
        assert!(!rewritten(
            "SELECT COUNT(*) FROM t WHERE dateTrunc('DAYS', ts) = 0"
        ));
        assert!(!rewritten(
            "SELECT COUNT(*) FROM t WHERE dateTrunc('DAY', ts + 1) = 0"
        ));
        // Nested inside another expression: the inner call is rewritten.
        assert!(rewritten(
            "SELECT COUNT(*) FROM t WHERE dateTrunc('DAY', ts) + 1 > 5 OR m IN (1, 2)"
        ));
    }

    /// The value the `dateTrunc` scalar function computes.
    fn date_trunc(unit: &str, ms: i64) -> Value {
        crate::functions::lookup("dateTrunc")
            .expect("dateTrunc")
            .eval(&[Value::String(unit.into()), Value::Timestamp(ms)])
            .expect("evaluates")
    }

    const ALL: [TimestampGranularity; 9] = [
        TimestampGranularity::Millisecond,
        TimestampGranularity::Second,
        TimestampGranularity::Minute,
        TimestampGranularity::Hour,
        TimestampGranularity::Day,
        TimestampGranularity::Week,
        TimestampGranularity::Month,
        TimestampGranularity::Quarter,
        TimestampGranularity::Year,
    ];

    #[test]
    fn derived_values_match_date_trunc_at_edges() {
        use segments::timestamp_index::{DerivedColumn, truncate};
        use segments::types::time::{DateTime, MILLIS_PER_DAY};
        let edge = |y, m, d| {
            DateTime {
                year: y,
                month: m,
                day: d,
                hour: 0,
                minute: 0,
                second: 0,
                millis: 0,
            }
            .to_millis()
        };
        let mut times = vec![
            0,
            -1,
            1,
            i64::MIN,
            i64::MAX,
            -MILLIS_PER_DAY,
            -MILLIS_PER_DAY - 1,
        ];
        for (y, m, d) in [
            (1969, 1, 1),
            (1900, 3, 1),
            (2000, 2, 29),
            (2024, 4, 1),
            (2024, 12, 31),
            (1600, 1, 1),
            (-44, 3, 15),
        ] {
            let t = edge(y, m, d);
            times.extend([t - 1, t, t + 1]);
        }
        for g in ALL {
            for &t in &times {
                assert_eq!(
                    Value::Long(truncate(g, t)),
                    date_trunc(g.name(), t),
                    "{g:?} {t}"
                );
                assert_eq!(
                    DerivedColumn::new("ts", g).derive(&Value::Timestamp(t)),
                    date_trunc(g.name(), t)
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn derived_values_match_date_trunc(ms in proptest::num::i64::ANY, small in -10_000_000_000_000i64..10_000_000_000_000, g in 0usize..9) {
            let g = ALL[g];
            for t in [ms, small] {
                proptest::prop_assert_eq!(
                    Value::Long(segments::timestamp_index::truncate(g, t)),
                    date_trunc(g.name(), t)
                );
            }
        }
    }
}
