//! Balanced replica placement: each segment goes to `replication` distinct servers, the least
//! loaded first (ties broken by id, so placement is deterministic).

use std::collections::BTreeMap;

/// Picks up to `replication` servers for a new segment, adding to `current` (servers that
/// already host it are kept). `load` counts segments per server and is updated.
pub fn place(
    replication: usize,
    current: &[String],
    servers: &[String],
    load: &mut BTreeMap<String, usize>,
) -> Vec<String> {
    let mut chosen: Vec<String> = current
        .iter()
        .filter(|s| servers.contains(s))
        .cloned()
        .collect();
    while chosen.len() < replication {
        let next = servers
            .iter()
            .filter(|s| !chosen.contains(s))
            .min_by_key(|s| (load.get(*s).copied().unwrap_or(0), (*s).clone()));
        match next {
            Some(s) => {
                *load.entry(s.clone()).or_insert(0) += 1;
                chosen.push(s.clone());
            }
            None => break,
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn spreads_segments_evenly() {
        let servers: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let mut load = BTreeMap::new();
        let mut placed = Vec::new();
        for _ in 0..6 {
            placed.push(place(2, &[], &servers, &mut load));
        }
        assert!(placed.iter().all(|p| p.len() == 2 && p[0] != p[1]));
        assert_eq!(load.values().copied().collect::<Vec<_>>(), vec![4, 4, 4]);
        // More replicas than servers: every server once.
        assert_eq!(place(5, &[], &servers, &mut load).len(), 3);
        // Servers that already host the segment are kept; a gone server is replaced.
        let again = place(2, &["b".into(), "gone".into()], &servers, &mut load);
        assert_eq!(again[0], "b");
        assert_eq!(again.len(), 2);
    }

    proptest! {
        #[test]
        fn load_never_differs_by_more_than_one(n in 1usize..6, r in 1usize..4, segs in 0usize..40) {
            let servers: Vec<String> = (0..n).map(|i| format!("s{i}")).collect();
            let mut load = BTreeMap::new();
            for _ in 0..segs {
                let p = place(r, &[], &servers, &mut load);
                prop_assert_eq!(p.len(), r.min(n));
            }
            let max = load.values().max().copied().unwrap_or(0);
            let min = if load.len() < n { 0 } else { load.values().min().copied().unwrap_or(0) };
            prop_assert!(max - min <= 1);
        }
    }
}
