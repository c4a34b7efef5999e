//! A filter on an expression over one dictionary-encoded column (`substring(c_phone, 1, 2) IN
//! (…)`, `year(o_orderdate) = 1995`), evaluated once per dictionary entry instead of once per
//! document: the entries whose value passes become an id lookup, and documents are scanned on
//! their ids like a plain column predicate. Pinot evaluates such filters per document
//! (`ExpressionFilterOperator`); per entry is never more work when the dictionary has no more
//! entries than the segment has documents, and far less for the usual low-cardinality columns
//! (dates, codes). Computed once per segment at planning, so a filter run in doc-range parts
//! shares it.

use super::id_set::IdLookup;
use super::value_test::ValueTest;
use crate::block::{Block, ColumnData, Projected};
use crate::context::QueryContext;
use crate::operator::transform::evaluate;
use planner::plan::Expr;
use segments::forward::ForwardIndex;
use segments::segment::{ColumnReader, ImmutableSegment};

/// Dictionary entries evaluated at once (bounds the decoded values held).
const ENTRIES_PER_BLOCK: u32 = 1 << 14;

/// The column `expr` reads and the ids of its dictionary whose value passes `test`, when the
/// expression reads one single-value dictionary column of no more entries than the segment
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
    let columns = expr.columns();
    let [column] = columns.as_slice() else {
        return None;
    };
    let reader = segment.column(&column.name)?;
    let (ForwardIndex::Dict(_), Some(dict)) = (reader.forward(), reader.dictionary()) else {
        return None;
    };
    if !reader.metadata().single_value
        || dict.len() > segment.total_docs()
        || (ctx.options.enable_null_handling && reader.nulls().is_some_and(|n| !n.is_empty()))
    {
        return None;
    }
    let mut bits = vec![false; dict.len() as usize];
    let mut start = 0;
    while start < dict.len() {
        ctx.check().ok()?;
        let end = (start + ENTRIES_PER_BLOCK).min(dict.len());
        let ids: Vec<u32> = (start..end).collect();
        let values = Projected::values(reader.data_type(), dict.values(&ids));
        let block = Block {
            docs: ids,
            columns: vec![(column.name.clone(), values)],
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
    Some((reader, IdLookup::Bits(bits)))
}
