//! Lane-split per-group sums for few, hot groups.
//!
//! With a handful of groups, consecutive rows keep hitting the same group, and every
//! `sum[g] += x` waits for the previous add to that group (a store → load → add chain).
//! [`LaneSums`] keeps [`LANES`] partial sums per group (the fused group-by splits its row
//! counts the same way when they have few buckets); row `i` of a block adds to lane
//! `i % LANES`, so rows in flight rarely share a state. A group's total folds its lanes in a
//! fixed order, which makes results deterministic (though a floating sum may differ from a
//! row-order sum in its last bits).

/// Partial states per group.
pub const LANES: usize = 8;

/// Per-group `f64` sums, [`LANES`] partial sums each.
#[derive(Clone, Debug, Default)]
pub struct LaneSums {
    sums: Vec<f64>,
}

impl LaneSums {
    /// Sums for `groups` groups (slots `0..groups`), all zero.
    pub fn new(groups: usize) -> LaneSums {
        LaneSums {
            sums: vec![0.0; groups * LANES],
        }
    }

    /// Adds `values[i]` to group `slots[i]`. Every slot must be `< groups`.
    #[inline]
    pub fn add(&mut self, slots: &[u32], values: &[f64]) {
        let values = &values[..slots.len()];
        self.add_with(slots, |i| values[i]);
    }

    /// Adds `value(i)` to group `slots[i]` for every row `i` of the block (fusing a gather
    /// into the adds). Every slot must be `< groups`.
    #[inline(always)]
    pub fn add_with(&mut self, slots: &[u32], value: impl Fn(usize) -> f64) {
        let sums = &mut self.sums;
        let mut sc = slots.chunks_exact(LANES);
        let mut i = 0;
        for s in &mut sc {
            for j in 0..LANES {
                sums[s[j] as usize * LANES + j] += value(i + j);
            }
            i += LANES;
        }
        for (j, &s) in sc.remainder().iter().enumerate() {
            sums[s as usize * LANES + j] += value(i + j);
        }
    }

    /// Adds `other`'s partial sums (the same number of groups) to these, lane by lane.
    pub fn absorb(&mut self, other: &LaneSums) {
        for (a, b) in self.sums.iter_mut().zip(&other.sums) {
            *a += b;
        }
    }

    /// The total of group `g`: its lanes folded pairwise in a fixed order.
    pub fn total(&self, g: usize) -> f64 {
        fold(&self.sums[g * LANES..(g + 1) * LANES], |a, b| a + b)
    }
}

/// Pairwise fold of a power-of-two number of lanes: `((l0+l1)+(l2+l3))+…`.
fn fold(lanes: &[f64], op: impl Fn(f64, f64) -> f64 + Copy) -> f64 {
    if lanes.len() == 1 {
        return lanes[0];
    }
    let (a, b) = lanes.split_at(lanes.len() / 2);
    op(fold(a, op), fold(b, op))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_fold_to_group_sums() {
        let slots: Vec<u32> = (0..103u32).map(|i| (i * 7 + i / 5) % 3).collect();
        let values: Vec<f64> = (0..103).map(|i| i as f64 * 0.5).collect();
        let mut sums = LaneSums::new(3);
        // Two calls: the lane of a row restarts at each call.
        sums.add(&slots[..50], &values[..50]);
        sums.add(&slots[50..], &values[50..]);
        for g in 0..3u32 {
            let rows = || slots.iter().zip(&values).filter(|(s, _)| **s == g);
            assert_eq!(sums.total(g as usize), rows().map(|(_, v)| v).sum::<f64>());
        }
    }
}
