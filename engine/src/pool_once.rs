//! [`PoolOnce`]: a value computed once by the first of several rayon tasks that asks for it,
//! while the others that ask help the pool instead of blocking their thread.
//!
//! A segment filtered in parallel parts shares its index answers (a range index's union of
//! buckets) between the parts, computed by the first part that wants one. That computation is
//! itself parallel (the union is cut into groups on the pool), and its second group waits in
//! the computing thread's queue. A `OnceLock` would park the other part's pool thread until
//! the answer is there, so no thread is free to take that group and the union runs on one
//! core while the other waits (TPC-H Q5, Q7 and Q12 spent 2–5 ms of a query so). Here a
//! waiting pool thread runs the pool's pending work, that group among it, until the value is
//! set.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// A value computed at most once at a time, by the first caller of [`PoolOnce::get_or_compute`].
#[derive(Default)]
pub struct PoolOnce<T> {
    value: OnceLock<T>,
    /// Some caller is computing the value (or has).
    claimed: AtomicBool,
}

/// Gives the claim back when the computation unwinds without setting the value, so a waiter
/// computes it instead of waiting for ever.
struct Claim<'a, T> {
    once: &'a PoolOnce<T>,
}

impl<T> Drop for Claim<'_, T> {
    fn drop(&mut self) {
        if self.once.value.get().is_none() {
            self.once.claimed.store(false, Ordering::Release);
        }
    }
}

impl<T> PoolOnce<T> {
    pub fn new() -> PoolOnce<T> {
        PoolOnce {
            value: OnceLock::new(),
            claimed: AtomicBool::new(false),
        }
    }

    /// The value, if it has been computed.
    pub fn get(&self) -> Option<&T> {
        self.value.get()
    }

    /// The value, computed by `f` if no caller has claimed it yet; else, once the claimant
    /// sets it, with this thread running the pool's pending work (on a pool thread) or
    /// yielding (elsewhere) meanwhile.
    pub fn get_or_compute(&self, f: impl FnOnce() -> T) -> &T {
        let mut f = Some(f);
        loop {
            if let Some(v) = self.value.get() {
                return v;
            }
            if !self.claimed.swap(true, Ordering::AcqRel) {
                let _claim = Claim { once: self };
                let compute = f.take().expect("a caller claims the value at most once");
                return self.value.get_or_init(compute);
            }
            match rayon::yield_now() {
                Some(rayon::Yield::Executed) => {}
                _ => std::thread::yield_now(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;
    use std::sync::atomic::AtomicUsize;

    /// Two tasks on a two-thread pool ask for a value whose computation is itself a parallel
    /// pair of tasks: it is computed once, and the waiting task's thread runs one of the pair
    /// (with a blocking once cell it could not: the pair would run on one thread).
    #[test]
    fn a_waiter_runs_the_computations_own_pool_work() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let once = PoolOnce::new();
        let computed = AtomicUsize::new(0);
        let threads: Vec<Vec<usize>> = pool.install(|| {
            (0..2)
                .into_par_iter()
                .map(|_| {
                    once.get_or_compute(|| {
                        computed.fetch_add(1, Ordering::SeqCst);
                        // Each half waits (up to ten seconds) until both have started: if the
                        // waiter's thread blocked, one thread would run both halves in turn.
                        let started = AtomicUsize::new(0);
                        (0..2)
                            .into_par_iter()
                            .map(|_| {
                                started.fetch_add(1, Ordering::SeqCst);
                                let since = std::time::Instant::now();
                                while started.load(Ordering::SeqCst) < 2
                                    && since.elapsed().as_secs() < 10
                                {
                                    std::hint::spin_loop();
                                }
                                rayon::current_thread_index().unwrap()
                            })
                            .collect::<Vec<usize>>()
                    })
                    .clone()
                })
                .collect()
        });
        assert_eq!(computed.load(Ordering::SeqCst), 1);
        assert_eq!(threads[0], threads[1]);
        let mut ran_on = threads[0].clone();
        ran_on.sort();
        assert_eq!(ran_on, vec![0, 1]);
    }

    /// A computation that panics gives its claim back: the next caller computes the value.
    #[test]
    fn a_computation_that_unwinds_leaves_the_value_to_the_next_caller() {
        let once = PoolOnce::new();
        let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            once.get_or_compute(|| -> u32 { panic!("no answer") });
        }));
        assert!(failed.is_err());
        assert_eq!(once.get(), None);
        assert_eq!(*once.get_or_compute(|| 7), 7);
        assert_eq!(*once.get_or_compute(|| 8), 7);
    }
}
