//! [`StarTree`]: one stored tree — nodes, per-record dimension ids and pair values — its
//! encoding, and [`StarTree::matching`], the traversal a query runs.
//!
//! Node `0` is the root; a node's children are contiguous, ordered by dimension id with the
//! star child (id [`STAR`]) last. A node covers the records `[start, end)`; a node of more
//! than one record also points at one aggregated record that folds its whole range.
//!
//! Traversal, per node at depth `d` (children split on dimension `d`): with a filter on `d`,
//! visit the accepted non-star children; if `d` is grouped, visit every non-star child;
//! otherwise take the star child (all values, pre-aggregated) or, without one, every child.
//! When no dimension at or below `d` is filtered or grouped, the node's aggregated record
//! answers for the whole subtree. A leaf's records are checked against the filters of the
//! dimensions below it.
//!
//! Encoding (little-endian): `u32` dimension count, pair count, node count, record count; the
//! nodes (7 × `u32` each); per dimension one `u32` id per record; per pair its values
//! ([`PairValues::encode`]).

use super::values::PairValues;
use crate::format::bytes::ByteReader;
use crate::types::table_config::FunctionColumnPair;

/// The dictionary id of a star (aggregated over all values) dimension in a record.
pub const STAR: u32 = u32::MAX;

/// No aggregated record / no child.
pub const NONE: u32 = u32::MAX;

/// One node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// The node's id of its parent's split dimension ([`STAR`] for star nodes and the root).
    pub value: u32,
    pub start: u32,
    pub end: u32,
    pub first_child: u32,
    pub num_children: u32,
    /// The record folding `[start, end)`, or [`NONE`] (single-record nodes).
    pub aggregated: u32,
    /// Depth: the node's children split on dimension `depth`.
    pub depth: u32,
}

impl Node {
    fn is_leaf(&self) -> bool {
        self.num_children == 0
    }
}

/// A contiguous run of records to fold; `check` when the records must still be tested
/// against the filters of the dimensions from `check_from` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordRange {
    pub start: u32,
    pub end: u32,
    pub check_from: Option<u32>,
}

/// What a query asks of a tree, per dimension in split order.
#[derive(Clone, Debug, Default)]
pub struct TreeQuery {
    /// Accepted ids per dimension (`None`: unconstrained), as a membership table.
    pub filters: Vec<Option<Vec<bool>>>,
    /// Whether the dimension is a group-by key.
    pub grouped: Vec<bool>,
}

impl TreeQuery {
    fn constrained(&self, d: usize) -> bool {
        self.filters[d].is_some() || self.grouped[d]
    }

    fn accepts(&self, d: usize, id: u32) -> bool {
        match &self.filters[d] {
            Some(bits) => bits.get(id as usize).copied().unwrap_or(false),
            None => true,
        }
    }
}

/// A stored star-tree.
#[derive(Clone, Debug, PartialEq)]
pub struct StarTree {
    pub nodes: Vec<Node>,
    /// Per dimension (split order), the id of each record.
    pub dims: Vec<Vec<u32>>,
    /// Per pair, the values of each record.
    pub values: Vec<PairValues>,
}

impl StarTree {
    /// Number of records.
    pub fn num_records(&self) -> u32 {
        self.dims
            .first()
            .map_or_else(|| self.values.first().map_or(0, |v| v.len()), Vec::len) as u32
    }

    /// The records answering `query`, in traversal order.
    pub fn matching(&self, query: &TreeQuery) -> Vec<RecordRange> {
        let n = self.dims.len();
        // constrained_below[d]: some dimension ≥ d is filtered or grouped.
        let mut constrained_below = vec![false; n + 1];
        for d in (0..n).rev() {
            constrained_below[d] = constrained_below[d + 1] || query.constrained(d);
        }
        let mut out = Vec::new();
        let mut stack = vec![0u32];
        while let Some(i) = stack.pop() {
            let node = self.nodes[i as usize];
            let d = node.depth as usize;
            if !constrained_below[d.min(n)] && node.aggregated != NONE {
                out.push(RecordRange {
                    start: node.aggregated,
                    end: node.aggregated + 1,
                    check_from: None,
                });
                continue;
            }
            if node.is_leaf() || d >= n {
                let needs_check = (d..n).any(|k| query.filters[k].is_some());
                out.push(RecordRange {
                    start: node.start,
                    end: node.end,
                    check_from: needs_check.then_some(d as u32),
                });
                continue;
            }
            let children = &self.nodes
                [node.first_child as usize..(node.first_child + node.num_children) as usize];
            let star = children.last().filter(|c| c.value == STAR);
            let picked: Vec<u32> = if query.constrained(d) {
                (0..children.len())
                    .filter(|&k| children[k].value != STAR && query.accepts(d, children[k].value))
                    .map(|k| node.first_child + k as u32)
                    .collect()
            } else if star.is_some() {
                vec![node.first_child + node.num_children - 1]
            } else {
                (0..node.num_children)
                    .map(|k| node.first_child + k)
                    .collect()
            };
            // Push in reverse so records come out in ascending dimension order.
            stack.extend(picked.into_iter().rev());
        }
        out
    }

    /// Whether record `r` passes the filters of dimensions `from..`.
    pub fn record_matches(&self, query: &TreeQuery, from: u32, r: u32) -> bool {
        (from as usize..self.dims.len()).all(|d| query.accepts(d, self.dims[d][r as usize]))
    }

    /// The encoding (see the module docs).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let u32s = |out: &mut Vec<u8>, xs: &[u32]| {
            xs.iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes()))
        };
        u32s(
            &mut out,
            &[
                self.dims.len() as u32,
                self.values.len() as u32,
                self.nodes.len() as u32,
                self.num_records(),
            ],
        );
        for n in &self.nodes {
            u32s(
                &mut out,
                &[
                    n.value,
                    n.start,
                    n.end,
                    n.first_child,
                    n.num_children,
                    n.aggregated,
                    n.depth,
                ],
            );
        }
        for d in &self.dims {
            u32s(&mut out, d);
        }
        for v in &self.values {
            v.encode(&mut out);
        }
        out
    }

    /// Decodes a tree of `pairs` over `num_dims` dimensions whose ids must be below
    /// `cardinalities` (or [`STAR`]); every node and id is checked.
    pub fn decode(
        bytes: &[u8],
        cardinalities: &[u32],
        pairs: &[FunctionColumnPair],
    ) -> Result<StarTree, String> {
        let mut r = ByteReader::new(bytes);
        let (nd, np, nn, nr) = (r.u32()?, r.u32()?, r.u32()?, r.u32()?);
        if nd as usize != cardinalities.len() || np as usize != pairs.len() {
            return Err(format!(
                "tree has {nd} dimensions and {np} pairs, metadata says {} and {}",
                cardinalities.len(),
                pairs.len()
            ));
        }
        if nn == 0 || (nn as usize).saturating_mul(28) > r.remaining() {
            return Err(format!("invalid node count {nn}"));
        }
        let mut nodes = Vec::with_capacity(nn as usize);
        for _ in 0..nn {
            let n = Node {
                value: r.u32()?,
                start: r.u32()?,
                end: r.u32()?,
                first_child: r.u32()?,
                num_children: r.u32()?,
                aggregated: r.u32()?,
                depth: r.u32()?,
            };
            let children_ok = n.num_children == 0
                || (n.first_child > 0 && n.first_child as u64 + n.num_children as u64 <= nn as u64);
            if n.start > n.end
                || n.end > nr
                || !children_ok
                || n.depth > nd
                || (n.aggregated != NONE && n.aggregated >= nr)
            {
                return Err(format!("invalid node {}", nodes.len()));
            }
            nodes.push(n);
        }
        // A tree: every node but the root is the child of exactly one node, one level
        // deeper and after it, so a traversal visits each node at most once.
        let mut parent_of = vec![u32::MAX; nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            if n.num_children > 0 && (n.first_child as usize) <= i {
                return Err(format!("node {i} points back at node {}", n.first_child));
            }
            for c in n.first_child..n.first_child + n.num_children {
                let child = &nodes[c as usize];
                if parent_of[c as usize] != u32::MAX || child.depth != n.depth + 1 {
                    return Err(format!("node {c} is not a child of node {i} alone"));
                }
                parent_of[c as usize] = i as u32;
            }
        }
        if nodes[0].depth != 0 || parent_of[1..].contains(&u32::MAX) {
            return Err("nodes do not form one tree".into());
        }
        if (nr as usize).saturating_mul(4 * nd as usize) > r.remaining() {
            return Err(format!("{nr} records do not fit the entry"));
        }
        let mut dims = Vec::with_capacity(nd as usize);
        for (d, &card) in cardinalities.iter().enumerate() {
            let ids = (0..nr).map(|_| r.u32()).collect::<Result<Vec<_>, _>>()?;
            if let Some(bad) = ids.iter().find(|&&id| id != STAR && id >= card) {
                return Err(format!(
                    "dimension {d} id {bad} is not below the cardinality {card}"
                ));
            }
            dims.push(ids);
        }
        let values = pairs
            .iter()
            .map(|p| PairValues::decode(p.function, &mut r, nr as usize))
            .collect::<Result<Vec<_>, _>>()?;
        if r.remaining() != 0 {
            return Err(format!("{} trailing bytes", r.remaining()));
        }
        Ok(StarTree {
            nodes,
            dims,
            values,
        })
    }
}
