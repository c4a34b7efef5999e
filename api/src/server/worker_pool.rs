//! The threads multi-stage workers run on: a cached pool, as Pinot's query runner uses.
//!
//! A stage worker blocks on its mailboxes until its producers send, so a worker must start at
//! once, never wait for a free thread: a job goes to an idle thread when there is one and to a
//! new thread otherwise. A thread idle for [`KEEP_ALIVE`] ends. Reusing threads keeps each one's
//! allocator heap warm: a query's column vectors land in memory the previous query freed on the
//! same thread, instead of pages the kernel must map and zero again (a fifth of a TPC-H join's
//! time when every worker had a thread of its own).

use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// How long an idle thread waits for a job before it ends.
pub const KEEP_ALIVE: Duration = Duration::from_secs(60);

type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// Threads waiting for a job.
    idle: usize,
    /// Threads alive.
    threads: usize,
}

struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
    keep_alive: Duration,
    name: String,
}

/// A pool that runs every job at once, on an idle thread or a new one.
#[derive(Clone)]
pub struct WorkerPool {
    shared: Arc<Shared>,
}

impl WorkerPool {
    /// A pool whose threads are named `<name>-<n>` and end after `keep_alive` idle.
    pub fn new(name: &str, keep_alive: Duration) -> WorkerPool {
        WorkerPool {
            shared: Arc::new(Shared {
                queue: Mutex::new(Queue::default()),
                wake: Condvar::new(),
                keep_alive,
                name: name.to_string(),
            }),
        }
    }

    /// Runs `job` now: hands it to an idle thread, or starts a thread for it.
    pub fn execute(&self, job: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
        let mut q = self
            .shared
            .queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        q.jobs.push_back(Box::new(job));
        if q.idle >= q.jobs.len() {
            self.shared.wake.notify_one();
            return Ok(());
        }
        let shared = self.shared.clone();
        let started = std::thread::Builder::new()
            .name(format!("{}-{}", self.shared.name, q.threads))
            .spawn(move || work(&shared));
        match started {
            Ok(_) => {
                q.threads += 1;
                Ok(())
            }
            Err(e) => {
                q.jobs.pop_back();
                Err(e)
            }
        }
    }

    /// Threads alive (running a job or idle).
    pub fn threads(&self) -> usize {
        self.shared
            .queue
            .lock()
            .map(|q| q.threads)
            .unwrap_or_default()
    }
}

/// A pool thread: runs jobs until none came for the keep-alive time.
fn work(shared: &Shared) {
    let mut q = shared
        .queue
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    loop {
        if let Some(job) = q.jobs.pop_front() {
            drop(q);
            if catch_unwind(AssertUnwindSafe(job)).is_err() {
                log::error!("a stage worker panicked");
            }
            q = shared
                .queue
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            continue;
        }
        q.idle += 1;
        let (back, timeout) = shared
            .wake
            .wait_timeout(q, shared.keep_alive)
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        q = back;
        q.idle -= 1;
        if timeout.timed_out() && q.jobs.is_empty() {
            q.threads -= 1;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Instant;

    /// Runs `n` jobs that each wait (up to 10 s) until all `n` have started; true for each job
    /// that saw all of them.
    fn all_at_once(pool: &WorkerPool, n: usize) -> Vec<bool> {
        let started = Arc::new((Mutex::new(0usize), Condvar::new()));
        let (tx, rx) = mpsc::channel();
        for _ in 0..n {
            let (started, tx) = (started.clone(), tx.clone());
            pool.execute(move || {
                let (count, cv) = &*started;
                let mut c = count.lock().unwrap();
                *c += 1;
                cv.notify_all();
                let (c, _) = cv
                    .wait_timeout_while(c, Duration::from_secs(10), |c| *c < n)
                    .unwrap();
                tx.send(*c == n).unwrap();
            })
            .unwrap();
        }
        (0..n)
            .map(|_| rx.recv_timeout(Duration::from_secs(20)).unwrap())
            .collect()
    }

    #[test]
    fn jobs_that_wait_on_each_other_all_run_and_threads_are_reused() {
        let pool = WorkerPool::new("t", Duration::from_secs(5));
        for _round in 0..3 {
            assert_eq!(all_at_once(&pool, 8), vec![true; 8]);
            // Each thread goes back to waiting once its job returned.
            let deadline = Instant::now() + Duration::from_secs(5);
            while pool.shared.queue.lock().unwrap().idle < 8 {
                assert!(Instant::now() < deadline, "threads never went idle");
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        // Three rounds of eight ran on the same eight threads, not on 24.
        assert_eq!(pool.threads(), 8);
    }

    #[test]
    fn idle_threads_end_and_a_panicking_job_does_not_stop_the_pool() {
        let pool = WorkerPool::new("t", Duration::from_millis(50));
        pool.execute(|| panic!("boom")).unwrap();
        let (tx, rx) = mpsc::channel();
        pool.execute(move || tx.send(7).unwrap()).unwrap();
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), 7);
        let deadline = Instant::now() + Duration::from_secs(5);
        while pool.threads() > 0 {
            assert!(Instant::now() < deadline, "idle threads never ended");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
