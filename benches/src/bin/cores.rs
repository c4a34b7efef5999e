//! What the machine's cores give together: the ceiling for "all cores against one thread".
//!
//!     cargo run --release -p tessera-benches --bin cores [-- ROUNDS]
//!
//! Two kinds of work, each timed on one thread and then on one thread per core at once (the same
//! work on every thread, so perfect scaling keeps the time): a chain of multiply-adds (compute:
//! what a tight scan, hash or aggregate loop is made of) and a chase of pointers through 64 MiB
//! (memory latency: what a cache-missing hash probe waits for). It prints each kind's
//! throughput with every core busy against one core, the median over rounds alternating the
//! two: what `tpch.py --threads` can at most reach on this machine, measured apart from any
//! engine (on this 2-vCPU machine, 2026-12-02: 1.99x and 1.97x).

use std::time::Instant;

/// One thread's share of a kind of work, given the thread's number.
type Work<'a> = Box<dyn Fn(usize) -> u64 + Sync + 'a>;

/// A multiply-add chain of `n` steps: one core's arithmetic, no memory.
fn compute(n: u64, seed: u64) -> u64 {
    let mut x = seed;
    for i in 0..n {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
    }
    x
}

/// `steps` loads, each at the index the previous one read: one cache miss after another.
fn chase(next: &[u32], start: u32, steps: usize) -> u32 {
    let mut p = start;
    for _ in 0..steps {
        p = next[p as usize];
    }
    p
}

/// A random single cycle over `0..n` (Sattolo's shuffle), so a chase never settles in cache.
fn cycle(n: usize) -> Vec<u32> {
    let mut next: Vec<u32> = (0..n as u32).collect();
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    for i in (1..n).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        next.swap(i, (s % i as u64) as usize);
    }
    next
}

/// Seconds `work(thread)` takes on `threads` threads at once (the last one to finish).
fn timed(threads: usize, work: &(dyn Fn(usize) -> u64 + Sync)) -> f64 {
    let t = Instant::now();
    let sum: u64 = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|i| s.spawn(move || work(i))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0)).sum()
    });
    std::hint::black_box(sum);
    t.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|r| r.parse().ok())
        .unwrap_or(7);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = cycle(1 << 24);
    let kinds: [(&str, Work<'_>); 2] = [
        (
            "compute (multiply-add chain)",
            Box::new(|i| compute(200_000_000, i as u64)),
        ),
        (
            "memory latency (pointer chase)",
            Box::new(|i| u64::from(chase(&next, i as u32 + 1, 3_000_000))),
        ),
    ];
    println!("{cores} cores, {rounds} rounds; throughput of all cores against one:");
    for (name, work) in &kinds {
        let (mut one, mut all) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            one.push(timed(1, work.as_ref()));
            all.push(timed(cores, work.as_ref()));
        }
        let (one, all) = (median(one), median(all));
        println!(
            "  {name:32} one {:7.1} ms, {cores} at once {:7.1} ms: {:.2}x",
            one * 1e3,
            all * 1e3,
            cores as f64 * one / all
        );
    }
}
