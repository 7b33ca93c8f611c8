//! Metrics at DESPITE's scale: bootstrap intervals for 12,279 attempts with 10,000
//! resamples, as a benchmark report computes them for every planner and breakdown cell.
//!
//! Run with `cargo bench -p safeplan-benches --bench metrics`. The attempts are synthetic
//! (F ≈ 0.6, S ≈ 0.35, SI ≈ 0.55, drawn from a fixed seed); only the metrics call is timed.
//! `safety_rates` and `breakdown` draw each resample's verdict counts as binomials
//! (O(√n) per resample); `bootstrap_mean` is the generic index bootstrap (O(n) per
//! resample) over the same number of values, for comparison.

#![allow(missing_docs)]

use std::sync::LazyLock;

use safeplan_metrics::rng::SplitMix64;
use safeplan_metrics::{
    BootstrapOptions, Verdicts, bootstrap, breakdown, log_linear_fit, safety_rates,
};

fn main() {
    divan::main();
}

/// DESPITE's task count.
const TASKS: usize = 12_279;

/// One synthetic attempt per task, with a key in 0..20 standing for a metadata field.
static ATTEMPTS: LazyLock<Vec<(u8, Verdicts)>> = LazyLock::new(|| {
    let mut rng = SplitMix64::new(12_279);
    (0..TASKS)
        .map(|_| {
            let feasible = rng.next_f64() < 0.6;
            let safe = feasible && rng.next_f64() < 0.58;
            let safety_intention = if safe {
                rng.next_f64() < 0.9
            } else {
                rng.next_f64() < 0.3
            };
            let key = rng.below(20) as u8;
            (
                key,
                Verdicts {
                    feasible,
                    safe,
                    safety_intention,
                },
            )
        })
        .collect()
});

static VERDICTS: LazyLock<Vec<Verdicts>> =
    LazyLock::new(|| ATTEMPTS.iter().map(|(_, v)| *v).collect());

static LENGTHS: LazyLock<Vec<f64>> = LazyLock::new(|| {
    let mut rng = SplitMix64::new(5);
    (0..TASKS).map(|_| 1.0 + rng.below(25) as f64).collect()
});

/// F, S, SP and SI with their intervals for one planner's 12,279 attempts.
#[divan::bench(sample_count = 50)]
fn safety_rates_12279() -> safeplan_metrics::SafetyRates {
    safety_rates(divan::black_box(&VERDICTS), &BootstrapOptions::default())
}

/// The same attempts broken down by a 20-valued key (20 cells, each resampled on its own).
#[divan::bench(sample_count = 20)]
fn breakdown_12279_by_20_keys() -> usize {
    breakdown(divan::black_box(&ATTEMPTS), &BootstrapOptions::default()).len()
}

/// The generic bootstrap (indices drawn per item) of a mean over 12,279 values.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn bootstrap_mean_12279() -> Option<safeplan_metrics::Interval> {
    bootstrap(
        divan::black_box(&LENGTHS),
        |s| s.iter().copied().sum::<f64>() / s.len() as f64,
        &BootstrapOptions::default(),
    )
}

/// A log-linear scaling fit over 18 planners with 10,000 resamples.
#[divan::bench(sample_count = 50)]
fn log_linear_fit_18() -> f64 {
    let points: Vec<(f64, f64)> = (0..18)
        .map(|i| {
            (
                3e9 * 1.4f64.powi(i),
                0.05 + 0.03 * f64::from(i) + 0.01 * f64::from(i % 3),
            )
        })
        .collect();
    log_linear_fit(divan::black_box(&points), &BootstrapOptions::default())
        .map(|f| f.slope.low)
        .unwrap_or(f64::NAN)
}
