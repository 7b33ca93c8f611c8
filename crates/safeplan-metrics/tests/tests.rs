//! The metrics crate's integration tests, one binary. Every expected value comes from an
//! independent source: a hand computation written beside it, or NumPy 2.4 / SciPy 1.17 with
//! the Python that produced it in a comment. Bootstrap intervals cannot be matched bit for
//! bit by another implementation, so they are checked against exact distributions where one
//! is known (a resampled proportion is Binomial(n, p̂)/n), against NumPy simulations within
//! Monte Carlo tolerance, and by their properties.

mod bootstrap;
mod confusion;
mod effect;
mod fit;
mod props;
mod rng;
mod safety;

/// Asserts `|actual − expected| <= tol`, naming both.
#[track_caller]
fn assert_close(actual: f64, expected: f64, tol: f64) {
    assert!(
        (actual - expected).abs() <= tol,
        "expected {expected} ± {tol}, got {actual}"
    );
}

/// Runs `f` on a rayon pool of `threads` threads.
fn on_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(f),
        Err(e) => panic!("cannot build a rayon pool of {threads} threads: {e}"),
    }
}
