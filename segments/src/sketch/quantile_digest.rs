//! [`QuantileDigest`]: a q-digest (Shrivastava et al.) over 64-bit integers for `PERCENTILEEST`,
//! the structure behind Pinot's Airlift `QuantileDigest`, with its maximum rank error
//! (0.05 by default) and its answer: a LONG.
//!
//! Values live in a complete binary tree over the 2^64 integers (level 0 holds single values,
//! level 64 the root). Adding a value counts it at its leaf, so the digest is exact while it
//! is small. Compression folds a node and its sibling into their parent while the three counts
//! stay within `⌊n · maxError / 64⌋`; every level then misplaces at most that many values, so a
//! quantile's rank is off by at most `maxError · n`. A digest compresses itself every
//! `3 · 64 / maxError` additions, so its size does not grow with `n`.
//!
//! A quantile walks the nodes in post order (by range end, smaller ranges first) until the
//! counts exceed `q · n` and answers that node's upper bound, clamped to the observed min and
//! max — Airlift's rule, so `q = 0` is the minimum and `q = 1` the maximum.

use super::codec::{Reader, Writer};
use super::error::SketchError;
use std::collections::BTreeMap;

/// Pinot's maximum rank error for `PERCENTILEEST`.
pub const DEFAULT_MAX_ERROR: f64 = 0.05;
const LEVELS: usize = 65;
const MAGIC: &[u8; 4] = b"TQDG";
const NAME: &str = "quantile digest";

/// A q-digest over `i64` values.
#[derive(Clone, Debug)]
pub struct QuantileDigest {
    max_error: f64,
    /// Per level, node prefix → count.
    levels: Vec<BTreeMap<u64, u64>>,
    count: u64,
    min: i64,
    max: i64,
    /// Values added since the last compression (not part of the summary's identity).
    pending: usize,
}

impl PartialEq for QuantileDigest {
    fn eq(&self, other: &Self) -> bool {
        self.max_error == other.max_error
            && self.levels == other.levels
            && self.count == other.count
            && (self.count == 0 || (self.min, self.max) == (other.min, other.max))
    }
}

impl Default for QuantileDigest {
    fn default() -> Self {
        QuantileDigest {
            max_error: DEFAULT_MAX_ERROR,
            levels: vec![BTreeMap::new(); LEVELS],
            count: 0,
            min: i64::MAX,
            max: i64::MIN,
            pending: 0,
        }
    }
}

/// Appends the trie of `nodes` ((level, prefix, count), all inside one subtree) in post order
/// as (flags, level, bits, weight); returns whether it appended anything.
fn post_order(nodes: &mut [(usize, u64, u64)], out: &mut Vec<(u8, u8, u64, f64)>) -> bool {
    let Some(&first) = nodes.first() else {
        return false;
    };
    // A node's ancestor prefix at `level` (at or above its own).
    let above = |n: &(usize, u64, u64), level: usize| match level {
        64.. => 0,
        _ => n.1 >> (level - n.0),
    };
    // The lowest level where every node meets: the subtree's root.
    let mut level = nodes.iter().map(|n| n.0).max().unwrap_or(0);
    while level < 64
        && nodes
            .iter()
            .any(|n| above(n, level) != above(&first, level))
    {
        level += 1;
    }
    let prefix = above(&first, level);
    let own: u64 = nodes.iter().filter(|n| n.0 == level).map(|n| n.2).sum();
    let below = partition_by(nodes, |n| n.0 != level);
    let (below, _) = nodes.split_at_mut(below);
    let mut flags = 0u8;
    if level > 0 {
        let left = partition_by(below, |n| above(n, level - 1) & 1 == 0);
        let (left, right) = below.split_at_mut(left);
        if post_order(left, out) {
            flags |= 1;
        }
        if post_order(right, out) {
            flags |= 2;
        }
    }
    let bits = if level >= 64 { 0 } else { prefix << level };
    out.push((flags, level as u8, bits, own as f64));
    true
}

/// Moves the items for which `keep` holds to the front; returns how many there are.
fn partition_by<T>(items: &mut [T], keep: impl Fn(&T) -> bool) -> usize {
    let mut front = 0;
    for i in 0..items.len() {
        if keep(&items[i]) {
            items.swap(front, i);
            front += 1;
        }
    }
    front
}

/// Order-preserving map of `i64` onto `u64` (flip the sign bit).
fn key(value: i64) -> u64 {
    (value as u64) ^ (1 << 63)
}

fn value(key: u64) -> i64 {
    (key ^ (1 << 63)) as i64
}

/// The largest leaf key under node `prefix` at `level`.
fn upper_bound(level: usize, prefix: u64) -> u64 {
    let hi = ((prefix as u128 + 1) << level) - 1;
    hi.min(u64::MAX as u128) as u64
}

impl QuantileDigest {
    /// An empty digest with the given maximum rank error (exclusive 0, up to 1).
    pub fn new(max_error: f64) -> Result<QuantileDigest, SketchError> {
        if !(max_error > 0.0 && max_error <= 1.0) {
            return Err(SketchError::InvalidParameter {
                sketch: NAME,
                value: max_error.to_string(),
                reason: "max error must be in (0, 1]",
            });
        }
        Ok(QuantileDigest {
            max_error,
            ..QuantileDigest::default()
        })
    }

    pub fn max_error(&self) -> f64 {
        self.max_error
    }

    /// The number of values added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The number of tree nodes kept (a measure of the digest's size).
    pub fn node_count(&self) -> usize {
        self.levels.iter().map(BTreeMap::len).sum()
    }

    pub fn add(&mut self, value: i64) {
        self.add_weighted(value, 1);
    }

    /// Adds a value `weight` times.
    pub fn add_weighted(&mut self, value: i64, weight: u64) {
        if weight == 0 {
            return;
        }
        *self.levels[0].entry(key(value)).or_insert(0) += weight;
        self.count = self.count.saturating_add(weight);
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        self.maybe_compress();
    }

    /// Adds every value `other` has seen (keeping this digest's max error).
    pub fn merge(&mut self, other: &QuantileDigest) {
        if other.count == 0 {
            return;
        }
        for (mine, theirs) in self.levels.iter_mut().zip(&other.levels) {
            for (prefix, count) in theirs {
                let slot = mine.entry(*prefix).or_insert(0);
                *slot = slot.saturating_add(*count);
            }
        }
        self.count = self.count.saturating_add(other.count);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.compress();
    }

    /// Compresses once per `3 · 64 / maxError` additions, which bounds the node count by
    /// about twice that at an amortised cost independent of `n`.
    fn maybe_compress(&mut self) {
        self.pending += 1;
        if self.pending as f64 >= 3.0 * 64.0 / self.max_error {
            self.compress();
        }
    }

    /// Folds light nodes into their parents (see the module docs).
    pub fn compress(&mut self) {
        self.pending = 0;
        let bound = (self.count as f64 * self.max_error / 64.0).floor() as u64;
        if bound == 0 {
            return;
        }
        for level in 0..LEVELS - 1 {
            let prefixes: Vec<u64> = self.levels[level].keys().copied().collect();
            for prefix in prefixes {
                let Some(&count) = self.levels[level].get(&prefix) else {
                    continue;
                };
                let sibling = self.levels[level].get(&(prefix ^ 1)).copied().unwrap_or(0);
                let parent = prefix >> 1;
                let parent_count = self.levels[level + 1].get(&parent).copied().unwrap_or(0);
                let total = count.saturating_add(sibling).saturating_add(parent_count);
                if total <= bound {
                    self.levels[level].remove(&prefix);
                    self.levels[level].remove(&(prefix ^ 1));
                    self.levels[level + 1].insert(parent, total);
                }
            }
        }
    }

    /// The estimated `q`-quantile (`q` clamped to `[0, 1]`); `None` when empty.
    pub fn quantile(&self, q: f64) -> Option<i64> {
        if self.count == 0 {
            return None;
        }
        let q = if q.is_nan() { 0.5 } else { q.clamp(0.0, 1.0) };
        let mut nodes: Vec<(u64, usize, u64)> = self
            .levels
            .iter()
            .enumerate()
            .flat_map(|(level, nodes)| {
                nodes
                    .iter()
                    .map(move |(prefix, count)| (upper_bound(level, *prefix), level, *count))
            })
            .collect();
        nodes.sort_unstable();
        let target = q * self.count as f64;
        let mut sum = 0u64;
        for (hi, _, count) in nodes {
            sum = sum.saturating_add(count);
            if sum as f64 > target {
                return Some(value(hi).clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }

    /// The digest as Pinot's `QuantileDigest.toBytes` writes it (Airlift's q-digest), what
    /// `PERCENTILERAWEST` returns hex-encoded: max error, alpha (0: no decay), landmark (0),
    /// min, max, the node count, then the tree in post order (left, right, node), each node as
    /// flags (1: has a left child, 2: a right one), level, bits (the value with its sign bit
    /// flipped, bits below the level zero) and weight. The tree is the binary trie of this
    /// digest's nodes, with a weightless node where two subtrees meet.
    pub fn to_pinot_bytes(&self) -> Vec<u8> {
        let mut nodes: Vec<(usize, u64, u64)> = self
            .levels
            .iter()
            .enumerate()
            .flat_map(|(level, m)| m.iter().map(move |(p, c)| (level, *p, *c)))
            .collect();
        let mut tree = Vec::with_capacity(nodes.len() * 2);
        post_order(&mut nodes, &mut tree);
        let mut out = Vec::with_capacity(44 + tree.len() * 18);
        out.extend_from_slice(&self.max_error.to_be_bytes());
        out.extend_from_slice(&0f64.to_be_bytes());
        out.extend_from_slice(&0i64.to_be_bytes());
        out.extend_from_slice(&self.min.to_be_bytes());
        out.extend_from_slice(&self.max.to_be_bytes());
        out.extend_from_slice(&(tree.len() as i32).to_be_bytes());
        for (flags, level, bits, weight) in tree {
            out.push(flags);
            out.push(level);
            out.extend_from_slice(&bits.to_be_bytes());
            out.extend_from_slice(&weight.to_be_bytes());
        }
        out
    }

    /// `TQDG`, version, max error, count, min, max, node count, then (level, prefix, count).
    pub fn to_bytes(&self) -> Vec<u8> {
        let nodes = self.node_count();
        let mut w = Writer::new(MAGIC, 36 + nodes * 17);
        w.f64(self.max_error)
            .u64(self.count)
            .i64(self.min)
            .i64(self.max)
            .u32(nodes as u32);
        for (level, nodes) in self.levels.iter().enumerate() {
            for (prefix, count) in nodes {
                w.u8(level as u8).u64(*prefix).u64(*count);
            }
        }
        w.finish()
    }

    /// Decodes [`QuantileDigest::to_bytes`] output, rejecting anything else.
    pub fn from_bytes(bytes: &[u8]) -> Result<QuantileDigest, SketchError> {
        let corrupt = |reason: &str| SketchError::corrupt(NAME, reason);
        let mut r = Reader::new(NAME, MAGIC, bytes)?;
        let max_error = r.f64()?;
        let mut digest =
            QuantileDigest::new(max_error).map_err(|_| corrupt("max error out of range"))?;
        let (count, min, max) = (r.u64()?, r.i64()?, r.i64()?);
        let nodes = r.u32()? as usize;
        if r.remaining() != nodes.saturating_mul(17) {
            return Err(corrupt("node count does not match the payload"));
        }
        let mut sum = 0u64;
        for _ in 0..nodes {
            let (level, prefix, node_count) = (r.u8()? as usize, r.u64()?, r.u64()?);
            let in_range = match level {
                0 => true,
                1..=63 => prefix >> (64 - level) == 0,
                64 => prefix == 0,
                _ => false,
            };
            if !in_range || node_count == 0 {
                return Err(corrupt("node outside the tree or empty"));
            }
            if digest.levels[level].insert(prefix, node_count).is_some() {
                return Err(corrupt("duplicate node"));
            }
            sum = sum
                .checked_add(node_count)
                .ok_or_else(|| corrupt("counts overflow"))?;
        }
        r.finish()?;
        if sum != count || (count > 0 && min > max) {
            return Err(corrupt("counts or bounds inconsistent"));
        }
        if count > 0 {
            digest.min = min;
            digest.max = max;
        }
        digest.count = count;
        Ok(digest)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_data::SplitMix;
    use super::*;

    fn digest_of(values: &[i64]) -> QuantileDigest {
        let mut d = QuantileDigest::default();
        values.iter().for_each(|v| d.add(*v));
        d
    }

    /// Airlift's exact answer: the smallest value whose count of values at or below exceeds `q·n`.
    fn exact(sorted: &[i64], q: f64) -> i64 {
        let target = q * sorted.len() as f64;
        let i = (0..sorted.len())
            .find(|i| (*i + 1) as f64 > target)
            .unwrap_or(sorted.len() - 1);
        sorted[i]
    }

    /// The rank interval (as fractions) of `x` in `sorted`.
    fn rank_error(sorted: &[i64], x: i64, q: f64) -> f64 {
        let n = sorted.len() as f64;
        let below = sorted.partition_point(|v| *v < x) as f64 / n;
        let at_or_below = sorted.partition_point(|v| *v <= x) as f64 / n;
        if q < below {
            below - q
        } else if q > at_or_below {
            q - at_or_below
        } else {
            0.0
        }
    }

    fn skewed(seed: u64, n: usize) -> Vec<i64> {
        let mut rng = SplitMix::new(seed);
        (0..n)
            .map(|_| (rng.exponential() * 1e6) as i64 - 200_000)
            .collect()
    }

    #[test]
    fn small_inputs_are_exact() {
        let values: Vec<i64> = (0..1_000).map(|i| (i * 7919) % 1_000 - 500).collect();
        let digest = digest_of(&values);
        let mut sorted = values.clone();
        sorted.sort();
        for q in [0.0, 0.1, 0.25, 0.5, 0.75, 0.99, 1.0] {
            assert_eq!(digest.quantile(q), Some(exact(&sorted, q)), "q {q}");
        }
        assert_eq!(digest_of(&[1, 2, 3, 4]).quantile(0.5), Some(3));
        assert_eq!(
            digest_of(&[i64::MIN, i64::MAX]).quantile(0.0),
            Some(i64::MIN)
        );
        assert_eq!(
            digest_of(&[i64::MIN, i64::MAX]).quantile(1.0),
            Some(i64::MAX)
        );
        assert_eq!(QuantileDigest::default().quantile(0.5), None);
    }

    #[test]
    fn large_inputs_stay_within_the_error_bound_and_small() {
        for seed in [1, 2] {
            let values = skewed(seed, 60_000);
            let mut digest = digest_of(&values);
            // At most one compression period of leaves on top of a compressed digest, which the
            // q-digest analysis bounds by 3 · 64 / maxError nodes.
            let limit = (3.0 * 64.0 / DEFAULT_MAX_ERROR) as usize;
            assert!(
                digest.node_count() <= 2 * limit,
                "{} nodes",
                digest.node_count()
            );
            digest.compress();
            assert!(
                digest.node_count() <= limit,
                "{} nodes after compressing",
                digest.node_count()
            );
            let mut sorted = values.clone();
            sorted.sort();
            for q in [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99] {
                let estimate = digest.quantile(q).unwrap();
                let error = rank_error(&sorted, estimate, q);
                assert!(
                    error <= DEFAULT_MAX_ERROR,
                    "seed {seed}, q {q}: {estimate} off by {error}"
                );
            }
        }
    }

    #[test]
    fn merge_stays_within_the_error_bound() {
        let values = skewed(5, 60_000);
        let mut merged = QuantileDigest::default();
        for chunk in values.chunks(6_000) {
            merged.merge(&digest_of(chunk));
        }
        assert_eq!(merged.count(), 60_000);
        let mut sorted = values.clone();
        sorted.sort();
        for q in [0.05, 0.5, 0.95] {
            let estimate = merged.quantile(q).unwrap();
            assert!(
                rank_error(&sorted, estimate, q) <= DEFAULT_MAX_ERROR,
                "q {q}: {estimate}"
            );
        }
        // Merging small digests is still exact.
        let (mut a, b) = (digest_of(&[5, 1, 9]), digest_of(&[3, 7]));
        a.merge(&b);
        assert_eq!(a.quantile(0.5), Some(5));
        assert_eq!(a.quantile(0.0), Some(1));
    }

    #[test]
    fn bytes_round_trip_and_garbage_is_rejected() {
        let digest = digest_of(&skewed(3, 20_000));
        let bytes = digest.to_bytes();
        assert_eq!(QuantileDigest::from_bytes(&bytes).unwrap(), digest);
        assert_eq!(
            QuantileDigest::from_bytes(&QuantileDigest::default().to_bytes()).unwrap(),
            QuantileDigest::default()
        );
        assert!(QuantileDigest::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let mut wrong_count = bytes.clone();
        wrong_count[13..21].copy_from_slice(&7u64.to_le_bytes());
        assert!(QuantileDigest::from_bytes(&wrong_count).is_err());
        let mut bad_level = bytes.clone();
        bad_level[41] = 65;
        assert!(QuantileDigest::from_bytes(&bad_level).is_err());
        let mut rng = SplitMix::new(13);
        for len in 0..300 {
            let garbage: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            assert!(QuantileDigest::from_bytes(&garbage).is_err());
        }
        assert!(QuantileDigest::new(0.0).is_err());
        assert!(QuantileDigest::new(f64::NAN).is_err());
    }

    /// Reads Pinot's `QuantileDigest` bytes as its `fromBytes` does (a stack of subtrees) and
    /// answers a quantile as its `getQuantile` does (post order, the first node whose running
    /// weight passes `q` of the total, its upper bound capped at the maximum).
    fn airlift_quantile(bytes: &[u8], q: f64) -> Option<i64> {
        struct Node {
            level: u32,
            bits: u64,
            weight: f64,
            left: Option<Box<Node>>,
            right: Option<Box<Node>>,
        }
        let f64_at = |at: usize| f64::from_be_bytes(bytes[at..at + 8].try_into().unwrap());
        let i64_at = |at: usize| i64::from_be_bytes(bytes[at..at + 8].try_into().unwrap());
        let max = i64_at(32);
        let n = i32::from_be_bytes(bytes[40..44].try_into().unwrap()) as usize;
        assert_eq!(bytes.len(), 44 + 18 * n);
        let mut stack: Vec<Node> = Vec::new();
        for i in 0..n {
            let at = 44 + 18 * i;
            let (flags, level) = (bytes[at], bytes[at + 1] as u32);
            let mut node = Node {
                level,
                bits: i64_at(at + 2) as u64,
                weight: f64_at(at + 10),
                left: None,
                right: None,
            };
            if flags & 2 != 0 {
                node.right = Some(Box::new(stack.pop().expect("a right child")));
            }
            if flags & 1 != 0 {
                node.left = Some(Box::new(stack.pop().expect("a left child")));
            }
            for child in [&node.left, &node.right].into_iter().flatten() {
                assert!(child.level < node.level, "a child below its parent");
                let shift = node.level;
                let same = shift >= 64 || child.bits >> shift == node.bits >> shift;
                assert!(same, "a child inside its parent's range");
            }
            stack.push(node);
        }
        if n == 0 {
            return None;
        }
        assert_eq!(stack.len(), 1, "one root");
        fn walk(node: &Node, out: &mut Vec<(f64, u64)>) {
            for child in [&node.left, &node.right].into_iter().flatten() {
                walk(child, out);
            }
            let upper = match node.level {
                0 => node.bits,
                64.. => u64::MAX,
                l => node.bits | (u64::MAX >> (64 - l)),
            };
            out.push((node.weight, upper));
        }
        let mut order = Vec::new();
        walk(&stack[0], &mut order);
        let total: f64 = order.iter().map(|(w, _)| w).sum();
        let mut sum = 0.0;
        for (w, upper) in order {
            sum += w;
            if sum > q * total {
                return Some(((upper ^ (1 << 63)) as i64).min(max));
            }
        }
        Some(max)
    }

    #[test]
    fn pinots_bytes_hold_the_same_tree_and_answer_the_same_quantiles() {
        for values in [skewed(5, 20_000), (-50..50).collect(), vec![7], Vec::new()] {
            let digest = digest_of(&values);
            let bytes = digest.to_pinot_bytes();
            assert_eq!(f64::from_be_bytes(bytes[0..8].try_into().unwrap()), 0.05);
            for q in [0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 1.0] {
                let airlift = airlift_quantile(&bytes, q);
                let ours = digest.quantile(q);
                match (airlift, ours) {
                    (Some(a), Some(o)) => assert_eq!(a.max(digest.min), o, "q {q}"),
                    (a, o) => assert_eq!(a, o, "q {q}"),
                }
            }
        }
    }
}
