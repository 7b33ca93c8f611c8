//! The thread pool of safeplan's batch calls (`Task::validate_batch`, the reply rewards,
//! the metrics' bootstrap resamples): sized for the process, and made anew in a forked
//! child. One crate, so that every library that runs work in parallel shares one rule.
//!
//! Batch calls are made from processes that other tools start: Python's `multiprocessing`
//! and PyTorch's DataLoader fork workers (Linux's default), and Ray and job runners give each
//! worker a share of the cores. Rayon's global pool is neither: a forked child inherits the
//! pool but not its threads, so its next batch call waits forever, and every worker's pool
//! takes every core. This module's pool remembers the process it was made in and is made
//! again in another one (the old one is forgotten: its threads do not exist there, and
//! nothing of it may be touched). Its size is, in order: `RAYON_NUM_THREADS`;
//! `OMP_NUM_THREADS` (what Ray sets to a task's or actor's `num_cpus`, as do many job
//! runners); the CPUs the process may run on (its affinity mask and cgroup quota, as
//! `std::thread::available_parallelism` reads them). With one thread, batch calls run on the
//! calling thread.

use std::sync::{Arc, Mutex};

struct Pool {
    pid: u32,
    /// `None`: one thread, no pool.
    pool: Option<Arc<rayon::ThreadPool>>,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

/// The number of threads batch calls use in this process (see the module documentation).
pub fn threads() -> usize {
    let env = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
    };
    env("RAYON_NUM_THREADS")
        .or_else(|| env("OMP_NUM_THREADS"))
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn current() -> Option<Arc<rayon::ThreadPool>> {
    let pid = std::process::id();
    let mut slot = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = slot.as_ref()
        && p.pid == pid
    {
        return p.pool.clone();
    }
    // Another process (a fork) or the first call: a pool made elsewhere is forgotten, never
    // dropped (dropping it would signal threads that do not exist in this process).
    if let Some(old) = slot.take() {
        std::mem::forget(old);
    }
    let n = threads();
    let pool = (n > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("safeplan-batch-{i}"))
                .build()
                .ok()
                .map(Arc::new)
        })
        .flatten();
    *slot = Some(Pool {
        pid,
        pool: pool.clone(),
    });
    pool
}

/// Run `f` on the batch pool of this process, so the parallel iterators inside it use that
/// pool; on the calling thread when the process has one thread for batches.
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match current() {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_is_made_once_per_process() {
        let a = install(rayon::current_num_threads);
        let b = install(rayon::current_num_threads);
        assert_eq!(a, b);
        assert!(a >= 1);
    }
}
