//! Metrics for safeplan: the numbers the papers report, as pure functions over plain data.
//!
//! Both papers this project implements end in a table of rates. The plan-verification paper
//! scores a Judge by micro-averaged precision, recall and F1 over individual actions; DESPITE
//! scores planners by feasibility, safety, safety precision and safety intention rates with
//! bootstrap confidence intervals, fits log-linear scaling lines against parameter count,
//! checks the decomposition S ≈ F × SI across models and sizes task factors with Cohen's d.
//! This crate computes those numbers and nothing else: it reads no files, runs no planners
//! and keeps no state, so a result store, a report and a test can all recompute a figure
//! from the same plain data and get the same answer.
//!
//! # Design
//!
//! - **Counts first, ratios last.** [`Confusion`] keeps integer counts; micro averages add
//!   counts and divide once, so merging shards or episodes never averages averages.
//!   [`safety_rates`] likewise reduces attempts to counts of each combination of verdicts
//!   before anything else.
//! - **Undefined ratios are zero**, as in scikit-learn's `zero_division=0`: precision with
//!   nothing flagged, recall with nothing to find and F1 when both are zero are all `0.0`,
//!   never `NaN`, so a report never prints `NaN` and a JSON file always parses. The same
//!   holds for the rates of no attempts and for SP with no feasible attempt: `0` with the
//!   interval `[0, 0]`, the counts beside it saying why. Where a value has no honest zero
//!   (a fit through one point, Cohen's d of constant samples) the function returns
//!   `None` or a [`FitError`] instead.
//! - **One bootstrap, precisely defined.** Every interval is a percentile bootstrap
//!   interval: `B` resamples (10,000 by default, DESPITE's number) of the data drawn with
//!   replacement, the statistic recomputed on each, and the interval read off their values
//!   at the quantile levels `(1 − c)/2` and `(1 + c)/2` by NumPy's default quantile
//!   definition ([`quantile`]: `method="linear"`, Hyndman and Fan's type 7). A resample on
//!   which the statistic is undefined (SP with no feasible attempt, a line through one
//!   distinct `x`) is left out rather than counted as zero.
//! - **Deterministic at any thread count.** Resamples run in parallel with rayon, and
//!   resample `i` draws only from its own generator, [`rng::SplitMix64::for_resample`]`(seed,
//!   i)`: a generator of our own, so the same seed gives the same intervals on one thread or
//!   sixteen, on any platform, whatever version of a random-number crate is in the lock file.
//! - **Cheap enough to call everywhere.** A benchmark report calls the bootstrap for every
//!   planner and every cell of every breakdown, over up to 12,279 tasks. Rates of yes/no
//!   verdicts depend only on how many of each kind a resample drew, so those resamples draw
//!   the counts directly (binomials, in O(√n), with exactly the distribution of counting
//!   `n` draws) instead of `n` indices; the generic [`bootstrap()`] over any statistic draws
//!   indices into one reused buffer per rayon job.
//!
//! # Map
//!
//! - [`Confusion`], [`Prf`], [`micro_prf`], [`macro_prf`]: detection quality;
//!   [`PrfRates`]: micro precision, recall and F1 with intervals from resampling items.
//! - [`BootstrapOptions`], [`Interval`], [`Rate`], [`bootstrap()`], [`bootstrap_distribution`],
//!   [`bootstrap_rate`], [`rate_from_count`], [`percentile_interval`], [`quantile`]: the
//!   bootstrap and its quantiles.
//! - [`Verdicts`], [`SafetyRates`], [`safety_rates`], [`breakdown`], [`breakdown_iter`]:
//!   DESPITE's F, S, SP and SI.
//! - [`cohens_d`]: effect size.
//! - [`LinearFit`], [`FitWithCi`], [`linear_fit`], [`fit_with_ci`], [`log_linear_fit`],
//!   [`log_linear_slope_ratio`], [`decomposition_fit`]: regressions across planners.
//! - [`rng`]: the generator and its binomial sampler.
//!
//! # Example
//!
//! ```
//! use safeplan_metrics::{safety_rates, BootstrapOptions, Verdicts};
//! let attempts: Vec<Verdicts> = (0..1_000)
//!     .map(|i| Verdicts { feasible: i % 2 == 0, safe: i % 4 == 0, safety_intention: i % 5 != 0 })
//!     .collect();
//! let r = safety_rates(&attempts, &BootstrapOptions { seed: 7, ..Default::default() });
//! assert_eq!((r.feasible.rate, r.safe.rate, r.safety_precision.rate), (0.5, 0.25, 0.5));
//! assert!(r.safe.ci_low < 0.25 && 0.25 < r.safe.ci_high);
//! let json = serde_json::to_value(r.safe).expect("plain data");
//! assert!(json.get("ci_low").is_some());
//! ```

#![deny(missing_docs)]

mod bootstrap;
mod confusion;
mod effect;
mod fit;
mod micro;
pub mod rng;
mod safety;

pub use bootstrap::{
    BootstrapOptions, Interval, Rate, bootstrap, bootstrap_distribution, bootstrap_rate,
    percentile_interval, quantile, rate_from_count,
};
pub use confusion::{Confusion, Prf, PrfCounts, macro_prf, micro_prf};
pub use effect::cohens_d;
pub use fit::{
    DecompositionPoint, FitError, FitWithCi, LinearFit, SlopeRatio, decomposition_fit, fit_with_ci,
    linear_fit, log_linear_fit, log_linear_slope_ratio, try_linear_fit,
};
pub use micro::PrfRates;
pub use safety::{SafetyRates, Verdicts, breakdown, breakdown_iter, safety_rates};
