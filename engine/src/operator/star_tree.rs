//! Aggregation and GROUP BY answered from a star-tree instead of the documents.
//!
//! [`choose`] picks the first tree of the segment that can answer the query exactly, as
//! Pinot decides it (`StarTreeUtils`): query option `useStarTree` not false; every aggregate
//! maps to a pair of the tree (`COUNT(*)`/`COUNT(col)` → `COUNT__*`, `SUM(col)` → `SUM__col`, …,
//! sketch sizes at their defaults) with a plain column argument and no `FILTER`; every group
//! key is a tree dimension; the filter is an AND of per-dimension parts, each a predicate
//! (not `REGEXP_LIKE`, `TEXT_MATCH`, `JSON_MATCH`, `IS [NOT] NULL`), an OR or NOT over one
//! dimension's predicates; with null handling on, no involved column has nulls.
//!
//! [`execute`] turns the filter into accepted dictionary ids per dimension, walks the tree
//! ([`StarTree::matching`]) and folds the pre-aggregated records into the same
//! [`AggState`]s a scan produces, so the broker cannot tell the two apart.

use super::SegmentOutput;
use super::filter::id_set::IdSet;
use super::filter::value_test::positive_form;
use crate::aggregate::AggState;
use crate::context::QueryContext;
use crate::error::EngineError;
use crate::server::result::IntermediateData;
use crate::sketch::{DEFAULT_COMPRESSION, DEFAULT_LOG2M};
use planner::plan::{
    AggregateCall, AggregateFunction, Expr, FilterExpr, PredicateOp, ServerQueryKind,
    ServerQueryPlan,
};
use segments::segment::ImmutableSegment;
use segments::startree::values::PairValues;
use segments::startree::{StarTree, StarTreeInfo, TreeQuery};
use segments::types::table_config::StarTreeFunction;
use std::collections::HashMap;

/// Key spaces up to this many keys use a dense slot table.
const DENSE_KEYS: u128 = 1 << 16;

/// A tree chosen for a query on one segment.
pub struct StarTreeChoice<'s> {
    /// The tree's position in the segment (`startree:<index>`).
    pub index: usize,
    pub info: &'s StarTreeInfo,
    pub tree: &'s StarTree,
    /// Per aggregate, the pair that answers it.
    pairs: Vec<usize>,
    /// Per group key, its dimension.
    key_dims: Vec<usize>,
    /// Per group key, the dimension's cardinality (keys pack into one `u128`).
    key_cards: Vec<u32>,
    filter: Option<&'s FilterExpr>,
}

/// The pair function an aggregate needs, if a star-tree can answer it.
fn pair_function(call: &AggregateCall) -> Option<(StarTreeFunction, &str)> {
    if call.filter.is_some() || call.multi_value {
        return None;
    }
    let column = match &call.arg {
        None => None,
        Some(Expr::Column(c)) => Some(c.name.as_str()),
        Some(_) => return None,
    };
    let f = match call.function {
        AggregateFunction::Count => return Some((StarTreeFunction::Count, "*")),
        AggregateFunction::Sum => StarTreeFunction::Sum,
        AggregateFunction::Min => StarTreeFunction::Min,
        AggregateFunction::Max => StarTreeFunction::Max,
        AggregateFunction::Avg => StarTreeFunction::Avg,
        AggregateFunction::MinMaxRange => StarTreeFunction::MinMaxRange,
        AggregateFunction::DistinctCountHll { log2m } if log2m == DEFAULT_LOG2M => {
            StarTreeFunction::DistinctCountHll
        }
        AggregateFunction::PercentileEst { .. } => StarTreeFunction::PercentileEst,
        AggregateFunction::PercentileTDigest { compression, .. }
            if compression == DEFAULT_COMPRESSION =>
        {
            StarTreeFunction::PercentileTDigest
        }
        _ => return None,
    };
    Some((f, column?))
}

/// Columns of a filter that fits a star-tree (an AND of single-dimension parts), or `None`.
fn filter_columns<'f>(f: &'f FilterExpr, out: &mut Vec<&'f str>) -> Option<()> {
    match f {
        FilterExpr::And(children) => children.iter().try_for_each(|c| filter_columns(c, out)),
        FilterExpr::Constant(true) => Some(()),
        other => {
            out.push(single_dimension(other)?);
            Some(())
        }
    }
}

/// The one column a filter part constrains, if it is a supported predicate, or an OR / NOT
/// of such over one column.
fn single_dimension(f: &FilterExpr) -> Option<&str> {
    match f {
        FilterExpr::Predicate(p) => {
            let supported = matches!(
                p.op,
                PredicateOp::Eq(_)
                    | PredicateOp::NotEq(_)
                    | PredicateOp::In(_)
                    | PredicateOp::NotIn(_)
                    | PredicateOp::Range { .. }
                    | PredicateOp::Like { .. }
            );
            match (&p.lhs, supported) {
                (Expr::Column(c), true) => Some(c.name.as_str()),
                _ => None,
            }
        }
        FilterExpr::Or(children) => {
            let first = single_dimension(children.first()?)?;
            children[1..]
                .iter()
                .all(|c| single_dimension(c) == Some(first))
                .then_some(first)
        }
        FilterExpr::Not(child) => single_dimension(child),
        _ => None,
    }
}

/// The first tree of `segment` that answers `plan` exactly, if any.
pub fn choose<'s>(
    plan: &'s ServerQueryPlan,
    segment: &'s ImmutableSegment,
    ctx: &QueryContext,
) -> Option<StarTreeChoice<'s>> {
    if !ctx.options.use_star_tree {
        return None;
    }
    let (keys, aggregates): (&[Expr], &[AggregateCall]) = match &plan.kind {
        ServerQueryKind::Aggregation { aggregates } => (&[], aggregates),
        ServerQueryKind::GroupBy { keys, aggregates } => (keys, aggregates),
        _ => return None,
    };
    let needed: Vec<(StarTreeFunction, &str)> = aggregates
        .iter()
        .map(pair_function)
        .collect::<Option<_>>()?;
    let key_columns: Vec<&str> = keys
        .iter()
        .map(|k| match k {
            Expr::Column(c) => Some(c.name.as_str()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let mut filtered = Vec::new();
    if let Some(f) = &plan.filter {
        filter_columns(f, &mut filtered)?;
    }
    if ctx.null_handling() {
        // Every aggregated column counts, `COUNT(col)`'s too: its pair is `COUNT__*`, which
        // counts the docs whose `col` is null as well.
        let aggregated = aggregates.iter().filter_map(|call| match &call.arg {
            Some(Expr::Column(c)) => Some(c.name.as_str()),
            _ => None,
        });
        let involved = key_columns
            .iter()
            .copied()
            .chain(filtered.iter().copied())
            .chain(aggregated);
        for c in involved {
            if segment
                .column(c)
                .is_some_and(|r| r.nulls().is_some_and(|n| !n.is_empty()))
            {
                return None;
            }
        }
    }
    // Group keys pack into one u128: no tree serves keys whose space does not fit.
    let key_cards: Vec<u32> = key_columns
        .iter()
        .map(|c| {
            segment
                .column(c)
                .map_or(1, |r| r.metadata().cardinality.max(1))
        })
        .collect();
    key_cards
        .iter()
        .try_fold(1u128, |p, &c| p.checked_mul(c as u128))?;
    segment
        .star_trees()
        .enumerate()
        .find_map(|(index, (info, tree))| {
            let dims = &info.spec.dimensions;
            let dim = |c: &str| dims.iter().position(|d| d == c);
            if !filtered.iter().all(|c| dim(c).is_some()) {
                return None;
            }
            Some(StarTreeChoice {
                key_cards: key_cards.clone(),
                index,
                info,
                tree,
                pairs: needed
                    .iter()
                    .map(|(f, c)| info.spec.pair_index(*f, c))
                    .collect::<Option<_>>()?,
                key_dims: key_columns.iter().map(|c| dim(c)).collect::<Option<_>>()?,
                filter: plan.filter.as_ref(),
            })
        })
}

/// Accepted ids per dimension for an eligible filter part, folded into `out`.
fn dimension_ids(
    f: &FilterExpr,
    choice: &StarTreeChoice<'_>,
    segment: &ImmutableSegment,
    out: &mut [Option<Vec<bool>>],
    ctx: &QueryContext,
) -> Result<(), EngineError> {
    match f {
        FilterExpr::And(children) => {
            for c in children {
                dimension_ids(c, choice, segment, out, ctx)?;
            }
            Ok(())
        }
        FilterExpr::Constant(true) => Ok(()),
        other => {
            let column = single_dimension(other).unwrap_or_default();
            let d = choice
                .info
                .spec
                .dimensions
                .iter()
                .position(|x| x == column)
                .ok_or_else(|| EngineError::execution(format!("'{column}' is no dimension")))?;
            let dict = segment
                .column(column)
                .and_then(|c| c.dictionary())
                .ok_or_else(|| EngineError::execution(format!("'{column}' has no dictionary")))?;
            let bits = accepted(other, dict, ctx)?;
            out[d] = Some(match out[d].take() {
                Some(prev) => prev.iter().zip(&bits).map(|(a, b)| *a && *b).collect(),
                None => bits,
            });
            Ok(())
        }
    }
}

/// The ids of `dict` a single-dimension filter part accepts.
fn accepted(
    f: &FilterExpr,
    dict: &segments::dictionary::Dictionary,
    ctx: &QueryContext,
) -> Result<Vec<bool>, EngineError> {
    let n = dict.len() as usize;
    Ok(match f {
        FilterExpr::Predicate(p) => {
            let (positive, negated) = positive_form(&p.op);
            let positive = &*positive;
            let mut bits = vec![negated; n];
            for id in IdSet::for_predicate(positive, dict, ctx)?.iter() {
                if let Some(b) = bits.get_mut(id as usize) {
                    *b = !negated;
                }
            }
            bits
        }
        FilterExpr::Or(children) => {
            let mut bits = vec![false; n];
            for c in children {
                for (b, x) in bits.iter_mut().zip(accepted(c, dict, ctx)?) {
                    *b |= x;
                }
            }
            bits
        }
        FilterExpr::Not(child) => accepted(child, dict, ctx)?
            .into_iter()
            .map(|b| !b)
            .collect(),
        _ => return Err(EngineError::execution("unsupported star-tree filter")),
    })
}

/// One aggregate's per-group accumulation over tree records: typed columns for the numeric
/// pairs (a tight loop per range), states for sketches. A group exists only once a record
/// folded into it, so every group's value is defined.
enum Folder {
    Count(Vec<i64>),
    Sum(Vec<f64>),
    Min(Vec<f64>),
    Max(Vec<f64>),
    Avg(Vec<f64>, Vec<i64>),
    MinMax(Vec<f64>, Vec<f64>),
    States(Vec<AggState>, AggregateFunction),
}

impl Folder {
    fn new(values: &PairValues, function: &AggregateFunction) -> Folder {
        match values {
            PairValues::Count(_) => Folder::Count(Vec::new()),
            PairValues::Sum(_) => Folder::Sum(Vec::new()),
            PairValues::Min(_) => Folder::Min(Vec::new()),
            PairValues::Max(_) => Folder::Max(Vec::new()),
            PairValues::Avg(..) => Folder::Avg(Vec::new(), Vec::new()),
            PairValues::MinMaxRange(..) => Folder::MinMax(Vec::new(), Vec::new()),
            _ => Folder::States(Vec::new(), function.clone()),
        }
    }

    /// Makes room for `n` groups.
    fn grow(&mut self, n: usize) {
        match self {
            Folder::Count(v) => v.resize(n, 0),
            Folder::Sum(v) => v.resize(n, 0.0),
            Folder::Min(v) => v.resize(n, f64::INFINITY),
            Folder::Max(v) => v.resize(n, f64::NEG_INFINITY),
            Folder::Avg(s, c) => {
                s.resize(n, 0.0);
                c.resize(n, 0);
            }
            Folder::MinMax(lo, hi) => {
                lo.resize(n, f64::INFINITY);
                hi.resize(n, f64::NEG_INFINITY);
            }
            Folder::States(v, f) => v.resize_with(n, || AggState::empty(f)),
        }
    }

    /// Folds the records of `hits` (record, group) in order.
    fn fold(&mut self, values: &PairValues, hits: &[(u32, u32)]) {
        let each = |f: &mut dyn FnMut(usize, usize)| {
            hits.iter().for_each(|&(r, g)| f(r as usize, g as usize))
        };
        match (self, values) {
            (Folder::Count(acc), PairValues::Count(v)) => each(&mut |r, g| acc[g] += v[r]),
            (Folder::Sum(acc), PairValues::Sum(v)) => each(&mut |r, g| acc[g] += v[r]),
            (Folder::Min(acc), PairValues::Min(v)) => each(&mut |r, g| acc[g] = acc[g].min(v[r])),
            (Folder::Max(acc), PairValues::Max(v)) => each(&mut |r, g| acc[g] = acc[g].max(v[r])),
            (Folder::Avg(sum, count), PairValues::Avg(s, c)) => each(&mut |r, g| {
                sum[g] += s[r];
                count[g] += c[r];
            }),
            (Folder::MinMax(lo, hi), PairValues::MinMaxRange(l, h)) => each(&mut |r, g| {
                lo[g] = lo[g].min(l[r]);
                hi[g] = hi[g].max(h[r]);
            }),
            (Folder::States(states, _), values) => {
                each(&mut |r, g| match (&mut states[g], values) {
                    (AggState::Hll(h), PairValues::Hll(v)) => h.merge(&v[r]),
                    (AggState::QDigest(q), PairValues::QDigest(v)) => q.merge(&v[r]),
                    (AggState::TDigest(t), PairValues::TDigest(v)) => t.merge(&v[r]),
                    _ => {}
                })
            }
            _ => {}
        }
    }

    /// The state of group `g` (which has records).
    fn state(&self, g: usize) -> AggState {
        match self {
            Folder::Count(v) => AggState::Count(v[g]),
            Folder::Sum(v) => AggState::Sum(Some(v[g])),
            Folder::Min(v) => AggState::Min(Some(v[g])),
            Folder::Max(v) => AggState::Max(Some(v[g])),
            Folder::Avg(s, c) => AggState::Avg {
                sum: s[g],
                count: c[g],
            },
            Folder::MinMax(lo, hi) => AggState::MinMax(Some((lo[g], hi[g]))),
            Folder::States(v, _) => v[g].clone(),
        }
    }
}

/// Runs an aggregation or GROUP BY over the chosen tree.
pub fn execute(
    choice: &StarTreeChoice<'_>,
    plan: &ServerQueryPlan,
    segment: &ImmutableSegment,
    ctx: &QueryContext,
) -> Result<SegmentOutput, EngineError> {
    let tree = choice.tree;
    let nd = choice.info.spec.dimensions.len();
    let mut query = TreeQuery {
        filters: vec![None; nd],
        grouped: vec![false; nd],
    };
    if let Some(f) = choice.filter {
        dimension_ids(f, choice, segment, &mut query.filters, ctx)?;
    }
    choice
        .key_dims
        .iter()
        .for_each(|&d| query.grouped[d] = true);
    let aggregates = match &plan.kind {
        ServerQueryKind::Aggregation { aggregates } => aggregates,
        ServerQueryKind::GroupBy { aggregates, .. } => aggregates,
        _ => return Err(EngineError::execution("star-tree runs aggregations only")),
    };
    let mut folders: Vec<Folder> = aggregates
        .iter()
        .zip(&choice.pairs)
        .map(|(a, &p)| Folder::new(&tree.values[p], &a.function))
        .collect();
    let mut records = 0u64;
    let mut limit_reached = false;
    let grouped = !choice.key_dims.is_empty();
    // Group keys pack into one number (mixed radix over the key cardinalities); small key
    // spaces map to slots through a dense table.
    let mut strides = Vec::with_capacity(choice.key_cards.len());
    let mut space: u128 = 1;
    for &c in &choice.key_cards {
        strides.push(space);
        space = space.saturating_mul(c as u128);
    }
    let mut dense: Vec<u32> = if grouped && space <= DENSE_KEYS {
        vec![u32::MAX; space as usize]
    } else {
        Vec::new()
    };
    let mut sparse: HashMap<u128, u32> = HashMap::new();
    let mut keys: Vec<u128> = Vec::new();
    if !grouped {
        keys.push(0);
        folders.iter_mut().for_each(|f| f.grow(1));
    }
    let limit = plan.options.num_groups_limit;
    let mut hits: Vec<(u32, u32)> = Vec::new();
    for range in tree.matching(&query) {
        ctx.check()?;
        hits.clear();
        for r in range.start..range.end {
            if let Some(from) = range.check_from
                && !tree.record_matches(&query, from, r)
            {
                continue;
            }
            let slot = if grouped {
                let mut key: u128 = 0;
                for ((&d, &card), stride) in
                    choice.key_dims.iter().zip(&choice.key_cards).zip(&strides)
                {
                    let id = tree.dims[d][r as usize];
                    if id >= card {
                        // A grouped dimension is never a star in a well-formed tree.
                        return Err(EngineError::execution("corrupt star-tree record"));
                    }
                    key += id as u128 * stride;
                }
                let existing = match dense.get(key as usize) {
                    Some(&s) if !dense.is_empty() => s,
                    _ => sparse.get(&key).copied().unwrap_or(u32::MAX),
                };
                if existing != u32::MAX {
                    existing
                } else if keys.len() >= limit {
                    limit_reached = true;
                    continue;
                } else {
                    let slot = keys.len() as u32;
                    if dense.is_empty() {
                        sparse.insert(key, slot);
                    } else {
                        dense[key as usize] = slot;
                    }
                    keys.push(key);
                    slot
                }
            } else {
                0
            };
            hits.push((r, slot));
        }
        records += hits.len() as u64;
        for (folder, &p) in folders.iter_mut().zip(&choice.pairs) {
            folder.grow(keys.len());
            folder.fold(&tree.values[p], &hits);
        }
    }
    let states_of = |g: usize| -> Vec<AggState> { folders.iter().map(|f| f.state(g)).collect() };
    let data = if grouped {
        let dicts: Vec<_> = choice
            .key_dims
            .iter()
            .map(|&d| {
                segment
                    .column(&choice.info.spec.dimensions[d])
                    .and_then(|c| c.dictionary())
                    .ok_or_else(|| EngineError::execution("star-tree dimension has no dictionary"))
            })
            .collect::<Result<_, _>>()?;
        IntermediateData::Groups(
            keys.iter()
                .enumerate()
                .map(|(g, &key)| {
                    let values = dicts
                        .iter()
                        .zip(&choice.key_cards)
                        .zip(&strides)
                        .map(|((d, &card), stride)| d.value(((key / stride) % card as u128) as u32))
                        .collect();
                    Ok((values, states_of(g)))
                })
                .collect::<Result<_, EngineError>>()?,
        )
    } else if records == 0 {
        IntermediateData::Aggregates(
            aggregates
                .iter()
                .map(|a| AggState::empty(&a.function))
                .collect(),
        )
    } else {
        IntermediateData::Aggregates(states_of(0))
    };
    let width = (choice.pairs.len() + choice.key_dims.len()) as u64;
    Ok(SegmentOutput {
        data,
        docs_scanned: records,
        entries_scanned_post_filter: records * width,
        groups_limit_reached: limit_reached,
    })
}

/// The EXPLAIN filter row naming the tree (`FILTER_STARTREE_INDEX`, Pinot's operator name).
pub fn explain_filter(choice: &StarTreeChoice<'_>) -> String {
    format!(
        "FILTER_STARTREE_INDEX(starTree:{}, dimensions:{}, pairs:{})",
        choice.index,
        choice.info.spec.dimensions.join(","),
        choice
            .info
            .spec
            .function_column_pairs
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// The columns the tree reads for the query (PROJECT in EXPLAIN): key dimensions, then the
/// pairs' star-tree column names (`count__*`, `sum__m`).
pub fn explain_columns(choice: &StarTreeChoice<'_>) -> Vec<String> {
    let spec = &choice.info.spec;
    let mut out: Vec<String> = choice
        .key_dims
        .iter()
        .map(|&d| spec.dimensions[d].clone())
        .collect();
    for &p in &choice.pairs {
        let name = spec.function_column_pairs[p].to_column_name();
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}
