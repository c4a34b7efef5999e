//! Star-tree construction from an open segment.
//!
//! 1. **Base records**: every document's dimension ids (split order) are hashed to a record
//!    (packed into one `u64` when the cardinalities allow); each pair folds the document's
//!    value into its record. Memory: the unique records plus one block of documents.
//! 2. **Sort** the records by their ids, dimension by dimension.
//! 3. **Split** recursively: a node with more than `maxLeafRecords` records splits on the next
//!    dimension into one child per id; unless the dimension skips star nodes (or has a single
//!    child), a star child gets the node's records with that dimension set to [`STAR`],
//!    re-sorted by the remaining dimensions and merged, appended as new records.
//! 4. **Aggregate**: every node of more than one record gets one record folding its range.

use super::StarTreeSpec;
use super::tree::{NONE, Node, STAR, StarTree};
use super::values::{DocInput, PairValues, reads_hashes};
use crate::error::SegmentError;
use crate::forward::ForwardIndex;
use crate::segment::{ColumnReader, ImmutableSegment};
use crate::sketch::hash_value;
use crate::types::table_config::StarTreeFunction;
use std::collections::HashMap;

const BLOCK: u32 = 4096;

fn config_err(msg: String) -> SegmentError {
    SegmentError::Config(msg)
}

/// Reads one pair's input column a block at a time.
enum PairReader<'s> {
    Ones,
    /// Dictionary column: per-id numbers or hashes, computed once.
    DictNumbers(&'s crate::forward::DictIds, Vec<f64>),
    DictHashes(&'s crate::forward::DictIds, Vec<Option<u32>>),
    RawNumbers(crate::forward::RawCursor<'s>),
    RawHashes(crate::forward::RawCursor<'s>),
}

impl<'s> PairReader<'s> {
    fn new(col: &'s ColumnReader, function: StarTreeFunction) -> Result<Self, SegmentError> {
        let numeric = col.data_type().is_numeric();
        let hashes = reads_hashes(function);
        if !col.is_single_value() {
            return Err(config_err(format!(
                "star-tree function {} needs a single-value column, '{}' is multi-value",
                function,
                col.name()
            )));
        }
        if !hashes && !numeric {
            return Err(config_err(format!(
                "star-tree function {} needs a numeric column, '{}' is {}",
                function,
                col.name(),
                col.data_type()
            )));
        }
        Ok(match (col.forward(), col.dictionary()) {
            (ForwardIndex::Dict(f), Some(d)) if hashes => {
                PairReader::DictHashes(f, (0..d.len()).map(|i| hash_value(&d.value(i))).collect())
            }
            (ForwardIndex::Dict(f), Some(d)) => {
                PairReader::DictNumbers(f, (0..d.len()).map(|i| d.f64_at(i)).collect())
            }
            (ForwardIndex::Raw(r), _) if hashes => PairReader::RawHashes(r.cursor()),
            (ForwardIndex::Raw(r), _) => PairReader::RawNumbers(r.cursor()),
            _ => {
                return Err(config_err(format!(
                    "column '{}' cannot feed a star-tree",
                    col.name()
                )));
            }
        })
    }

    /// Fills the buffers for docs `start..start + n`.
    fn read(
        &mut self,
        start: u32,
        n: usize,
        ids: &mut [u32],
        nums: &mut Vec<f64>,
        hashes: &mut Vec<Option<u32>>,
    ) {
        nums.clear();
        hashes.clear();
        match self {
            PairReader::Ones => {}
            PairReader::DictNumbers(f, table) => {
                f.read_range(start, &mut ids[..n]);
                nums.extend(ids[..n].iter().map(|&i| table[i as usize]));
            }
            PairReader::DictHashes(f, table) => {
                f.read_range(start, &mut ids[..n]);
                hashes.extend(ids[..n].iter().map(|&i| table[i as usize]));
            }
            PairReader::RawNumbers(c) => {
                nums.resize(n, 0.0);
                c.read_f64_range(start, nums);
            }
            PairReader::RawHashes(c) => {
                hashes.extend((start..start + n as u32).map(|d| hash_value(&c.value(d))));
            }
        }
    }
}

/// Unique dimension tuple → record.
enum RecordKeys {
    /// Mixed-radix packed ids (`Σ idₖ·strideₖ`).
    Packed(Vec<u64>, HashMap<u64, u32>),
    Wide(HashMap<Vec<u32>, u32>),
}

/// Builds the tree `spec` describes over `segment`'s documents.
pub fn build_star_tree(
    segment: &ImmutableSegment,
    spec: &StarTreeSpec,
) -> Result<StarTree, SegmentError> {
    let dims: Vec<&crate::forward::DictIds> = spec
        .dimensions
        .iter()
        .map(|d| {
            let col = segment.column(d).ok_or_else(|| {
                config_err(format!(
                    "Failed to find dimension column: {d} specified in star-tree index config in schema"
                ))
            })?;
            match (col.forward(), col.dictionary()) {
                (ForwardIndex::Dict(f), Some(_)) => Ok(f),
                (ForwardIndex::DictMv(_), _) => Err(config_err(format!(
                    "Cannot create star-tree index on multi-value dimension column: {d}"
                ))),
                _ => Err(config_err(format!(
                    "Cannot create star-tree index on dimension column: {d} without dictionary"
                ))),
            }
        })
        .collect::<Result<_, _>>()?;
    let mut readers = spec
        .function_column_pairs
        .iter()
        .map(|p| {
            if p.is_star() {
                return Ok(PairReader::Ones);
            }
            let col = segment.column(&p.column).ok_or_else(|| {
                config_err(format!(
                    "Failed to find column: {} specified in star-tree index config in schema",
                    p.column
                ))
            })?;
            PairReader::new(col, p.function)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let cards: Vec<u64> = spec
        .dimensions
        .iter()
        .filter_map(|d| segment.column(d))
        .map(|c| c.metadata().cardinality.max(1) as u64)
        .collect();
    let mut strides = Vec::with_capacity(cards.len());
    let mut product: Option<u64> = Some(1);
    for c in &cards {
        strides.push(product.unwrap_or(0));
        product = product.and_then(|p| p.checked_mul(*c));
    }
    let mut keys = match product {
        Some(_) => RecordKeys::Packed(strides, HashMap::new()),
        None => RecordKeys::Wide(HashMap::new()),
    };

    // 1. Base records.
    let nd = dims.len();
    let mut rec_dims: Vec<Vec<u32>> = vec![Vec::new(); nd];
    let mut values: Vec<PairValues> = spec
        .function_column_pairs
        .iter()
        .map(|p| PairValues::new(p.function))
        .collect();
    let total = segment.total_docs();
    let mut ids: Vec<Vec<u32>> = vec![vec![0; BLOCK as usize]; nd];
    let mut scratch = vec![0u32; BLOCK as usize];
    let (mut nums, mut hashes) = (Vec::new(), Vec::new());
    let mut recs: Vec<u32> = Vec::with_capacity(BLOCK as usize);
    let mut start = 0u32;
    while start < total {
        let n = (total - start).min(BLOCK) as usize;
        for (d, f) in dims.iter().enumerate() {
            f.read_range(start, &mut ids[d][..n]);
        }
        recs.clear();
        let mut tuple = vec![0u32; nd];
        #[allow(clippy::needless_range_loop)] // `i` indexes every dimension's block
        for i in 0..n {
            let next = rec_dims.first().map_or(values[0].len(), Vec::len) as u32;
            let r = match &mut keys {
                RecordKeys::Packed(strides, map) => {
                    let key = (0..nd).map(|d| ids[d][i] as u64 * strides[d]).sum();
                    *map.entry(key).or_insert(next)
                }
                RecordKeys::Wide(map) => {
                    (0..nd).for_each(|d| tuple[d] = ids[d][i]);
                    match map.get(&tuple) {
                        Some(&r) => r,
                        None => {
                            map.insert(tuple.clone(), next);
                            next
                        }
                    }
                }
            };
            if r == next {
                (0..nd).for_each(|d| rec_dims[d].push(ids[d][i]));
                values.iter_mut().for_each(PairValues::push_empty);
            }
            recs.push(r);
        }
        for (p, reader) in readers.iter_mut().enumerate() {
            reader.read(start, n, &mut scratch, &mut nums, &mut hashes);
            let input = match reader {
                PairReader::Ones => DocInput::Ones,
                _ if reads_hashes(spec.function_column_pairs[p].function) => {
                    DocInput::Hashes(&hashes)
                }
                _ => DocInput::Numbers(&nums),
            };
            for (i, &r) in recs.iter().enumerate() {
                values[p].add_doc(r as usize, input, i);
            }
        }
        start += n as u32;
    }
    drop(keys);

    // 2. Sort.
    let count = rec_dims.first().map_or(0, Vec::len);
    let mut perm: Vec<u32> = (0..count as u32).collect();
    perm.sort_unstable_by(|&a, &b| cmp_dims(&rec_dims, 0, a, b));
    let mut builder = TreeBuilder {
        tree: StarTree {
            dims: rec_dims
                .iter()
                .map(|d| perm.iter().map(|&i| d[i as usize]).collect())
                .collect(),
            values: values.iter().map(|v| v.permuted(&perm)).collect(),
            nodes: vec![Node {
                value: STAR,
                start: 0,
                end: count as u32,
                first_child: 0,
                num_children: 0,
                aggregated: NONE,
                depth: 0,
            }],
        },
        skip_star: spec
            .dimensions
            .iter()
            .map(|d| spec.skip_star_node_creation.contains(d))
            .collect(),
        max_leaf: spec.max_leaf_records.max(1),
    };
    // 3 + 4. Split and aggregate.
    builder.split(0)?;
    Ok(builder.tree)
}

/// Records `a` and `b` compared by their ids of dimensions `from..`.
fn cmp_dims(dims: &[Vec<u32>], from: usize, a: u32, b: u32) -> std::cmp::Ordering {
    dims[from..]
        .iter()
        .map(|d| d[a as usize].cmp(&d[b as usize]))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

/// A tree being split: its records grow as star and aggregated records are appended.
struct TreeBuilder {
    tree: StarTree,
    skip_star: Vec<bool>,
    max_leaf: u32,
}

impl TreeBuilder {
    fn split(&mut self, node: usize) -> Result<(), SegmentError> {
        let Node {
            start, end, depth, ..
        } = self.tree.nodes[node];
        let d = depth as usize;
        if self.tree.num_records() as u64 + (end - start) as u64 + 1 >= NONE as u64 {
            return Err(config_err(
                "star-tree has too many records (2^32 - 1)".into(),
            ));
        }
        // The aggregated record of this node (leaves too: a query that constrains nothing
        // below a leaf reads one record instead of up to `maxLeafRecords`).
        if end - start > 1 {
            let agg = self.tree.num_records();
            self.push_record(start, |k| k >= d);
            for r in start + 1..end {
                self.merge_record(agg, r);
            }
            self.tree.nodes[node].aggregated = agg;
        }
        let dims = &self.tree.dims;
        if end - start <= self.max_leaf || d >= dims.len() {
            return Ok(());
        }
        // Children: runs of equal ids of dimension d (records are sorted by d.. here).
        let mut children: Vec<Node> = Vec::new();
        let mut r = start;
        while r < end {
            let id = dims[d][r as usize];
            let mut e = r + 1;
            while e < end && dims[d][e as usize] == id {
                e += 1;
            }
            children.push(child(id, r, e, depth + 1));
            r = e;
        }
        if !self.skip_star[d] && children.len() > 1 {
            let (s, e) = self.star_records(start, end, d);
            children.push(child(STAR, s, e, depth + 1));
        }
        let first = self.tree.nodes.len() as u32;
        let count = children.len() as u32;
        self.tree.nodes.extend(children);
        let n = &mut self.tree.nodes[node];
        n.first_child = first;
        n.num_children = count;
        for c in first..first + count {
            self.split(c as usize)?;
        }
        Ok(())
    }

    /// Appends a copy of record `r` with the dimensions `star` picks set to STAR.
    fn push_record(&mut self, r: u32, star: impl Fn(usize) -> bool) {
        for (k, d) in self.tree.dims.iter_mut().enumerate() {
            d.push(if star(k) { STAR } else { d[r as usize] });
        }
        for v in &mut self.tree.values {
            v.push_copy(r as usize);
        }
    }

    fn merge_record(&mut self, into: u32, r: u32) {
        for v in &mut self.tree.values {
            v.merge_within(into as usize, r as usize);
        }
    }

    /// Appends the star records of `[start, end)` for dimension `d`; returns their range.
    fn star_records(&mut self, start: u32, end: u32, d: usize) -> (u32, u32) {
        let dims = &self.tree.dims;
        let mut order: Vec<u32> = (start..end).collect();
        order.sort_by(|&a, &b| cmp_dims(dims, d + 1, a, b));
        // Whether each record (in `order`) starts a new star record.
        let starts: Vec<bool> = order
            .iter()
            .enumerate()
            .map(|(k, &r)| k == 0 || cmp_dims(dims, d + 1, order[k - 1], r).is_ne())
            .collect();
        let first = self.tree.num_records();
        for (&r, new) in order.iter().zip(starts) {
            if new {
                self.push_record(r, |k| k == d);
            } else {
                let into = self.tree.num_records() - 1;
                self.merge_record(into, r);
            }
        }
        (first, self.tree.num_records())
    }
}

fn child(value: u32, start: u32, end: u32, depth: u32) -> Node {
    Node {
        value,
        start,
        end,
        first_child: 0,
        num_children: 0,
        aggregated: NONE,
        depth,
    }
}
