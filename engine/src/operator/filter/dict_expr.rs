//! A filter on an expression over one dictionary-encoded column (`substring(c_phone, 1, 2) IN
//! (…)`, `year(o_orderdate) = 1995`), evaluated once per dictionary entry instead of once per
//! document: the entries whose value passes become an id lookup, and documents are scanned on
//! their ids like a plain column predicate. Pinot evaluates such filters per document
//! (`ExpressionFilterOperator`); per entry is never more work when the dictionary has no more
//! entries than the segment has documents, and far less for the usual low-cardinality columns
//! (dates, codes). Computed once per segment at planning, so a filter run in doc-range parts
//! shares it.

use super::id_set::{self, IdLookup, IdSet};
use super::value_test::ValueTest;
use crate::block::{Block, ColumnData, Projected};
use crate::context::QueryContext;
use crate::operator::transform::evaluate;
use crate::per_entry;
use planner::plan::Expr;
use segments::dictionary::Dictionary;
use segments::forward::ForwardIndex;
use segments::segment::{ColumnReader, ImmutableSegment};
use segments::types::{DataType, Value};

/// Dictionary entries evaluated at once (bounds the decoded values held).
const ENTRIES_PER_BLOCK: u32 = 1 << 14;

/// The column `expr` reads and the ids of its dictionary whose value passes `test`, when the
/// expression is deterministic ([`per_entry::single_source`]: `rand()` per entry would give
/// every document of an entry the same draw) and reads one single-value dictionary column of
/// no more entries than the segment
/// has documents, and no document of it is NULL where NULL matters (a NULL document reads its
/// dictionary's default value, which per entry would not be told apart). `None` otherwise, or
/// when an entry's evaluation fails (the per-document path then reports it for the documents
/// that have it).
pub fn ids_passing<'s>(
    expr: &Expr,
    test: &ValueTest,
    segment: &'s ImmutableSegment,
    ctx: &QueryContext,
) -> Option<(&'s ColumnReader, IdLookup)> {
    let per_entry::Source::Column(column) = per_entry::single_source(expr)? else {
        return None;
    };
    let reader = segment.column(&column)?;
    let (ForwardIndex::Dict(_), Some(dict)) = (reader.forward(), reader.dictionary()) else {
        return None;
    };
    if !reader.metadata().single_value
        || dict.len() > segment.total_docs()
        || (ctx.options.enable_null_handling && reader.nulls().is_some_and(|n| !n.is_empty()))
    {
        return None;
    }
    let lookup = match by_text_view(expr, test, dict, ctx) {
        Some(ids) => IdSet::Ids(ids).lookup(dict.len()),
        None => IdLookup::Bits(by_evaluation(expr, &column, test, dict, ctx)?),
    };
    Some((reader, lookup))
}

/// Whether each entry of `dict` (the values of `column`) passes `test` after `expr`, evaluated
/// a block of entries at a time.
fn by_evaluation(
    expr: &Expr,
    column: &str,
    test: &ValueTest,
    dict: &Dictionary,
    ctx: &QueryContext,
) -> Option<Vec<bool>> {
    let mut bits = vec![false; dict.len() as usize];
    let mut start = 0;
    while start < dict.len() {
        ctx.check().ok()?;
        let end = (start + ENTRIES_PER_BLOCK).min(dict.len());
        let ids: Vec<u32> = (start..end).collect();
        let values = Projected::values(dict.data_type(), dict.values(&ids));
        let block = Block {
            docs: ids,
            columns: vec![(column.to_string(), values)],
        };
        let out = evaluate(expr, &block).ok()?;
        for i in 0..block.docs.len() {
            bits[start as usize + i] = !out.is_null(i)
                && match &out.data {
                    ColumnData::Values(v) => test.test(&v[i]),
                    _ => test.test(&out.value(i)),
                };
        }
        start = end;
    }
    Some(bits)
}

/// The passing ids when `expr` is a text function whose result is a slice of its first
/// argument — the column — and whose other arguments are non-NULL literals
/// (`substring(c_phone, 1, 2)`), and `test` is a text test (`=`, `IN`, `LIKE`): each entry's
/// slice is tested on the dictionary's bytes, no value built for the entry or its result.
fn by_text_view(
    expr: &Expr,
    test: &ValueTest,
    dict: &Dictionary,
    ctx: &QueryContext,
) -> Option<Vec<u32>> {
    let Expr::Call { name, args, .. } = expr else {
        return None;
    };
    let view = planner::functions::lookup(name)?.text_view()?;
    let (Expr::Column(_), rest) = args.split_first()? else {
        return None;
    };
    let rest: Vec<Value> = rest
        .iter()
        .map(|a| a.as_literal().filter(|v| !v.is_null()).cloned())
        .collect::<Option<_>>()?;
    // The literals are taken (a bad one fails every entry alike: the per-document path
    // reports it), and the test reads text.
    if dict.data_type() != DataType::String || view("", &rest).is_err() {
        return None;
    }
    test.test_text(b"")?;
    fn entry_view<F: for<'b> Fn(&'b [u8]) -> Option<&'b [u8]> + Sync>(f: F) -> F {
        f
    }
    let slice = entry_view(|bytes| {
        let text = std::str::from_utf8(bytes).ok()?;
        view(text, &rest).ok().map(str::as_bytes)
    });
    id_set::entries_passing(dict, test, Some(&slice), ctx).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::plan::expr::ColumnRef;
    use planner::plan::{ColumnType, ExecutionOptions, PredicateOp};
    use segments::build_config::BuildConfig;
    use segments::builder::build_segment_from_rows;
    use segments::types::{FieldSpec, Schema};

    /// Tests of a text slice on the dictionary's bytes pass the entries that evaluating the
    /// function on each entry passes: ASCII and non-ASCII text, every kind of text test.
    #[test]
    fn text_views_pass_what_evaluation_passes() {
        let dir = tempfile::tempdir().unwrap();
        let schema = Schema {
            schema_name: "t".into(),
            fields: vec![FieldSpec::dimension("c", DataType::String)],
            ..Schema::default()
        };
        let prefixes = ["13", "31", "é1", "1é", "ab", "1"];
        let texts: Vec<String> = (0..3000)
            .map(|i| format!("{}-{:03}-{}", prefixes[i % prefixes.len()], i % 997, i % 7))
            .collect();
        let built = build_segment_from_rows(
            &schema,
            &BuildConfig::new("t", "t_0"),
            texts.iter().map(|t| Ok(vec![Value::String(t.clone())])),
            dir.path(),
        )
        .unwrap();
        let segment = ImmutableSegment::open(&built.segment_dir).unwrap();
        let dict = segment.column("c").unwrap().dictionary().unwrap();
        let ctx = QueryContext::new(ExecutionOptions::default());
        let column = Expr::Column(ColumnRef {
            name: "c".into(),
            column_type: ColumnType::sv(DataType::String),
        });
        let call = |name: &str, args: &[i32]| Expr::Call {
            name: name.into(),
            args: std::iter::once(column.clone())
                .chain(args.iter().map(|a| Expr::literal(Value::Int(*a))))
                .collect(),
            return_type: ColumnType::sv(DataType::String),
        };
        let s = |t: &str| Value::String(t.into());
        let tests = [
            PredicateOp::In(vec![s("13"), s("é1"), s("1é")]),
            PredicateOp::Eq(s("31")),
            PredicateOp::Like {
                pattern: "%1%".into(),
                escape: None,
            },
        ];
        let mut checked = 0;
        for expr in [
            call("substring", &[1, 2]),
            call("substring", &[2, 2]),
            call("substring", &[-2]),
            call("substr", &[0, 2]),
            call("substr", &[1, -1]),
        ] {
            for op in &tests {
                let test = ValueTest::new(op).unwrap();
                let by_view = by_text_view(&expr, &test, dict, &ctx).expect("a text view");
                let bits = by_evaluation(&expr, "c", &test, dict, &ctx).unwrap();
                let want: Vec<u32> = (0..dict.len()).filter(|&i| bits[i as usize]).collect();
                assert_eq!(by_view, want, "{expr} {op:?}");
                checked += want.len();
            }
        }
        assert!(checked > 0);
        // A call whose value changes per call is never evaluated per entry.
        let random = Expr::Call {
            name: "concat".into(),
            args: vec![
                column.clone(),
                Expr::Call {
                    name: "rand".into(),
                    args: vec![],
                    return_type: ColumnType::sv(DataType::Double),
                },
            ],
            return_type: ColumnType::sv(DataType::String),
        };
        let test = ValueTest::new(&tests[1]).unwrap();
        assert!(ids_passing(&random, &test, &segment, &ctx).is_none());
        assert!(ids_passing(&call("substring", &[1, 2]), &test, &segment, &ctx).is_some());
    }
}
