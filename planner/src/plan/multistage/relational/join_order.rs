//! Join order: which inputs of a block's inner joins are joined first, and which side of each
//! join is which, by estimated rows.
//!
//! The cost of an order is the rows its joins produce (Cout: every produced row is hashed,
//! sent and probed once more above). Up to [`EXHAUSTIVE_INPUTS`] inputs every bushy tree is
//! weighed (dynamic programming over subsets, as DuckDB's DPhyp and Calcite's
//! `MultiJoinOptimizeBushyRule`); beyond, pairs are merged greedily, the pair with the
//! fewest output rows first (GOO). Only connected inputs are joined while any connection
//! remains (no cross product while an equi-join is possible). A join's larger estimated input
//! is its left side (probed) and the smaller its right (built and, when it can, the source of
//! the key filter on the larger side's leaf). The rows of a set of inputs do not depend on the
//! order that joins them: their product, divided once per joined pair of inputs by the larger
//! distinct count of each key pair (at most by the larger input of the pair).

use crate::plan::multistage::estimate::join_rows;
use std::collections::BTreeSet;

/// How many inputs are ordered exhaustively.
pub const EXHAUSTIVE_INPUTS: usize = 10;

/// A join tree over the inputs `0..n`.
#[derive(Clone, Debug, PartialEq)]
pub enum JoinTree {
    Input(usize),
    /// Left (the larger estimate), right.
    Join(Box<JoinTree>, Box<JoinTree>),
}

impl JoinTree {
    /// The inputs in the order their columns come out (left to right).
    #[cfg(test)]
    pub fn inputs(&self, out: &mut Vec<usize>) {
        match self {
            JoinTree::Input(i) => out.push(*i),
            JoinTree::Join(l, r) => {
                l.inputs(out);
                r.inputs(out);
            }
        }
    }
}

/// An equality between a column of input `a` and one of input `b`, with the distinct counts
/// of each side's column.
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    pub a: usize,
    pub b: usize,
    pub distinct_a: f64,
    pub distinct_b: f64,
}

/// The estimated joins of `rows.len()` inputs.
struct Graph {
    rows: Vec<f64>,
    /// Per pair of inputs joined by equalities: the pair and its divisor.
    pairs: Vec<(usize, usize, f64)>,
}

impl Graph {
    fn new(rows: &[f64], edges: &[Edge]) -> Graph {
        // Per pair of inputs, the distinct counts of each key pair between them.
        type PairKeys = ((usize, usize), Vec<(f64, f64)>);
        let mut keys: Vec<PairKeys> = Vec::new();
        for e in edges {
            let (pair, d) = if e.a < e.b {
                ((e.a, e.b), (e.distinct_a, e.distinct_b))
            } else {
                ((e.b, e.a), (e.distinct_b, e.distinct_a))
            };
            match keys.iter_mut().find(|(p, _)| *p == pair) {
                Some((_, ds)) => ds.push(d),
                None => keys.push((pair, vec![d])),
            }
        }
        let pairs = keys
            .into_iter()
            .map(|((a, b), ds)| {
                let (ra, rb) = (rows[a].max(1.0), rows[b].max(1.0));
                // The divisor of this pair: what the join of the two alone divides by.
                let divisor = ra * rb / join_rows(ra, rb, &ds).max(1.0);
                (a, b, divisor.max(1.0))
            })
            .collect();
        Graph {
            rows: rows.to_vec(),
            pairs,
        }
    }

    /// Estimated rows of the join of the inputs in `set` (a bit per input).
    fn rows(&self, set: u64) -> f64 {
        let mut r: f64 = (0..self.rows.len())
            .filter(|i| set & (1 << i) != 0)
            .map(|i| self.rows[i])
            .product();
        for &(a, b, d) in &self.pairs {
            if set & (1 << a) != 0 && set & (1 << b) != 0 {
                r /= d;
            }
        }
        r.max(if r > 0.0 { 1.0 } else { 0.0 })
    }

    /// Whether an equality joins an input of `x` with one of `y`.
    fn connected(&self, x: u64, y: u64) -> bool {
        self.pairs.iter().any(|&(a, b, _)| {
            (x & (1 << a) != 0 && y & (1 << b) != 0) || (x & (1 << b) != 0 && y & (1 << a) != 0)
        })
    }

    /// `x` joined with `y`, the larger estimate on the left (ties: the earlier input).
    fn join(&self, x: (u64, JoinTree), y: (u64, JoinTree)) -> JoinTree {
        let (rx, ry) = (self.rows(x.0), self.rows(y.0));
        let x_first = rx > ry || (rx == ry && x.0.trailing_zeros() < y.0.trailing_zeros());
        if x_first {
            JoinTree::Join(Box::new(x.1), Box::new(y.1))
        } else {
            JoinTree::Join(Box::new(y.1), Box::new(x.1))
        }
    }
}

/// The cheapest join tree of inputs estimated at `rows` joined by `edges`.
pub fn best_order(rows: &[f64], edges: &[Edge]) -> JoinTree {
    let n = rows.len();
    if n <= 1 {
        return JoinTree::Input(0);
    }
    let g = Graph::new(rows, edges);
    if n <= EXHAUSTIVE_INPUTS {
        // Connected splits first; a graph in pieces needs cross products somewhere.
        exhaustive(&g, false).unwrap_or_else(|| {
            exhaustive(&g, true).expect("every split allowed always finds a tree")
        })
    } else {
        greedy(&g)
    }
}

/// Left-deep in `FROM` order, except that an input joined to the ones before it by an
/// equality comes before one that is not. `links` are the conjuncts over several inputs: the
/// inputs each reads, and whether it is an equality.
pub fn from_order(n: usize, links: &[(&BTreeSet<usize>, bool)]) -> JoinTree {
    let mut tree = JoinTree::Input(0);
    let mut joined: BTreeSet<usize> = BTreeSet::from([0]);
    while joined.len() < n {
        let waiting: Vec<usize> = (0..n).filter(|i| !joined.contains(i)).collect();
        let connected = |j: usize| {
            links.iter().any(|(inputs, equality)| {
                *equality
                    && inputs.contains(&j)
                    && inputs.iter().all(|i| *i == j || joined.contains(i))
            })
        };
        let next = waiting
            .iter()
            .copied()
            .find(|j| connected(*j))
            .unwrap_or(waiting[0]);
        joined.insert(next);
        tree = JoinTree::Join(Box::new(tree), Box::new(JoinTree::Input(next)));
    }
    tree
}

/// Dynamic programming over every subset: the cheapest tree of each from its cheapest halves.
fn exhaustive(g: &Graph, cross: bool) -> Option<JoinTree> {
    let n = g.rows.len();
    let full: u64 = (1 << n) - 1;
    // Per subset: cost and the split that gives it (0: a single input).
    let mut best: Vec<Option<(f64, u64)>> = vec![None; 1 << n];
    for i in 0..n {
        best[1 << i] = Some((0.0, 0));
    }
    for set in 1..=full {
        if set.count_ones() < 2 {
            continue;
        }
        let low = set & set.wrapping_neg();
        let mut chosen: Option<(f64, u64)> = None;
        // Every split once: the half holding the lowest input enumerated.
        let mut sub = (set - 1) & set;
        while sub > 0 {
            if sub & low != 0 {
                let rest = set & !sub;
                if let (Some((cl, _)), Some((cr, _))) = (best[sub as usize], best[rest as usize])
                    && (cross || g.connected(sub, rest))
                {
                    let cost = cl + cr + g.rows(set);
                    if chosen.is_none_or(|(c, _)| cost < c) {
                        chosen = Some((cost, sub));
                    }
                }
            }
            sub = (sub - 1) & set;
        }
        best[set as usize] = chosen;
    }
    best[full as usize]?;
    Some(tree(g, &best, full))
}

fn tree(g: &Graph, best: &[Option<(f64, u64)>], set: u64) -> JoinTree {
    match best[set as usize] {
        Some((_, split)) if split != 0 => {
            let rest = set & !split;
            g.join((split, tree(g, best, split)), (rest, tree(g, best, rest)))
        }
        _ => JoinTree::Input(set.trailing_zeros() as usize),
    }
}

/// Greedy operator ordering: merge the two trees whose join yields fewest rows, connected
/// pairs first, until one is left.
fn greedy(g: &Graph) -> JoinTree {
    let n = g.rows.len().min(64);
    let mut trees: Vec<(u64, JoinTree)> = (0..n).map(|i| (1u64 << i, JoinTree::Input(i))).collect();
    while trees.len() > 1 {
        let mut pick: Option<(bool, f64, usize, usize)> = None;
        for i in 0..trees.len() {
            for j in i + 1..trees.len() {
                let (x, y) = (trees[i].0, trees[j].0);
                let connected = g.connected(x, y);
                let rows = g.rows(x | y);
                let better = match pick {
                    None => true,
                    Some((c, r, _, _)) => (connected && !c) || (connected == c && rows < r),
                };
                if better {
                    pick = Some((connected, rows, i, j));
                }
            }
        }
        let Some((_, _, i, j)) = pick else { break };
        let y = trees.remove(j);
        let x = trees.remove(i);
        let set = x.0 | y.0;
        let joined = g.join(x, y);
        trees.insert(i, (set, joined));
    }
    trees.pop().map_or(JoinTree::Input(0), |(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(a: usize, b: usize, da: f64, db: f64) -> Edge {
        Edge {
            a,
            b,
            distinct_a: da,
            distinct_b: db,
        }
    }

    fn leaves(t: &JoinTree) -> Vec<usize> {
        let mut v = Vec::new();
        t.inputs(&mut v);
        v
    }

    /// TPC-H Q3's shape: customer (filtered), orders (filtered), lineitem (filtered).
    #[test]
    fn the_selective_dimension_joins_first_and_the_fact_table_probes() {
        let rows = [30_000.0, 730_000.0, 3_200_000.0];
        let edges = [
            edge(0, 1, 30_000.0, 100_000.0),
            edge(1, 2, 730_000.0, 1_500_000.0),
        ];
        let t = best_order(&rows, &edges);
        // lineitem ⋈ (orders ⋈ customer): the fact table on the left, probing.
        assert_eq!(leaves(&t), vec![2, 1, 0]);
    }

    #[test]
    fn no_cross_product_while_inputs_connect_and_one_when_they_do_not() {
        // 0 - 2 - 1: 0 and 1 are tiny but unconnected.
        let rows = [5.0, 5.0, 1e6];
        let edges = [edge(0, 2, 5.0, 1e6), edge(1, 2, 5.0, 1e6)];
        let t = best_order(&rows, &edges);
        match &t {
            JoinTree::Join(l, r) => {
                assert!(
                    matches!(**r, JoinTree::Input(0) | JoinTree::Input(1)),
                    "{t:?}"
                );
                assert!(matches!(**l, JoinTree::Join(..)), "{t:?}");
            }
            other => panic!("{other:?}"),
        }
        let apart = best_order(&[3.0, 4.0], &[]);
        assert_eq!(leaves(&apart), vec![1, 0]);
    }

    #[test]
    fn greedy_orders_what_is_too_many_for_the_exhaustive_search() {
        // A chain of twelve: every input joins the next.
        let rows: Vec<f64> = (0..12).map(|i| 1000.0 * (i + 1) as f64).collect();
        let edges: Vec<Edge> = (0..11)
            .map(|i| edge(i, i + 1, rows[i], rows[i + 1]))
            .collect();
        let mut seen = leaves(&best_order(&rows, &edges));
        seen.sort();
        assert_eq!(seen, (0..12).collect::<Vec<_>>());
    }

    #[test]
    fn exhaustive_and_greedy_agree_on_a_star() {
        let rows = [6e6, 25.0, 10_000.0, 200_000.0];
        let edges = [
            edge(0, 1, 25.0, 25.0),
            edge(0, 2, 10_000.0, 10_000.0),
            edge(0, 3, 200_000.0, 200_000.0),
        ];
        let g = Graph::new(&rows, &edges);
        let (a, b) = (exhaustive(&g, false).unwrap(), greedy(&g));
        let cost = |t: &JoinTree| -> f64 {
            fn walk(g: &Graph, t: &JoinTree, total: &mut f64) -> u64 {
                match t {
                    JoinTree::Input(i) => 1 << i,
                    JoinTree::Join(l, r) => {
                        let s = walk(g, l, total) | walk(g, r, total);
                        *total += g.rows(s);
                        s
                    }
                }
            }
            let mut total = 0.0;
            walk(&g, t, &mut total);
            total
        };
        assert!(cost(&a) <= cost(&b));
        assert_eq!(leaves(&a)[0], 0, "the fact table probes: {a:?}");
    }
}
