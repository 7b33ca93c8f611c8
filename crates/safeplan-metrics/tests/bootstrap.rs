//! The quantile definition against NumPy, and the bootstrap of a proportion and of any
//! statistic: exact binomial references, a NumPy simulation, coverage, determinism.

use safeplan_metrics::rng::SplitMix64;
use safeplan_metrics::{
    BootstrapOptions, Interval, Rate, bootstrap, bootstrap_distribution, bootstrap_rate,
    percentile_interval, quantile, rate_from_count,
};

use crate::{assert_close, on_threads};

/// The 37 values of the NumPy reference: `((i·7919) mod 101) / 7` for i in 0..37 (every
/// value is a correctly rounded division, the same in Python and Rust).
fn small_array() -> Vec<f64> {
    (0..37u64)
        .map(|i| ((i * 7919) % 101) as f64 / 7.0)
        .collect()
}

#[test]
fn quantile_is_numpy_linear_bit_for_bit() {
    // import numpy as np
    // x = np.array([((i*7919) % 101)/7.0 for i in range(37)])
    // qs = [0.0, (1-0.95)/2, 0.1, 0.5, 0.9, (1+0.95)/2, 1.0]
    // np.quantile(x, qs, method='linear')
    let qs = [
        0.0,
        (1.0 - 0.95) / 2.0,
        0.1,
        0.5,
        0.9,
        (1.0 + 0.95) / 2.0,
        1.0,
    ];
    let numpy = [
        0.0,
        0.385_714_285_714_286,
        1.542_857_142_857_143,
        7.142_857_142_857_143,
        12.742_857_142_857_142,
        13.9,
        14.285_714_285_714_286,
    ];
    for (q, expected) in qs.into_iter().zip(numpy) {
        let mut x = small_array();
        assert_eq!(quantile(&mut x, q), Some(expected), "q = {q}");
    }
}

#[test]
fn quantile_leaves_out_non_finite_values() {
    // z = x.copy(); z[3] = np.nan; z[10] = np.inf
    // np.quantile(z[np.isfinite(z)], qs)
    let qs = [
        0.0,
        (1.0 - 0.95) / 2.0,
        0.1,
        0.5,
        0.9,
        (1.0 + 0.95) / 2.0,
        1.0,
    ];
    let numpy = [
        0.0,
        0.364_285_714_285_714_6,
        1.885_714_285_714_285_7,
        7.571_428_571_428_571,
        12.828_571_428_571_43,
        13.921_428_571_428_57,
        14.285_714_285_714_286,
    ];
    for (q, expected) in qs.into_iter().zip(numpy) {
        let mut z = small_array();
        z[3] = f64::NAN;
        z[10] = f64::INFINITY;
        assert_eq!(quantile(&mut z, q), Some(expected), "q = {q}");
    }
}

#[test]
fn quantile_undefined_cases() {
    assert_eq!(quantile(&mut [], 0.5), None);
    assert_eq!(quantile(&mut [f64::NAN, f64::NEG_INFINITY], 0.5), None);
    assert_eq!(quantile(&mut [1.0, 2.0], 1.5), None);
    assert_eq!(quantile(&mut [1.0, 2.0], f64::NAN), None);
    assert_eq!(quantile(&mut [4.0], 0.3), Some(4.0));
}

#[test]
fn percentile_interval_of_ten_thousand_resample_values_is_numpy() {
    // A stand-in for 10,000 resample statistics:
    // y = np.array([((i*7919) % 10007)/13.0 for i in range(10000)])
    // np.quantile(y, [(1-0.95)/2, (1+0.95)/2])  →  19.22884615384617, 750.4634615384615
    // np.quantile(y, [(1-0.9)/2, (1+0.9)/2])    →  38.53461538461538, 731.2346153846154
    let y = || -> Vec<f64> {
        (0..10_000u64)
            .map(|i| ((i * 7919) % 10_007) as f64 / 13.0)
            .collect()
    };
    assert_eq!(
        percentile_interval(&mut y(), 0.95),
        Some(Interval {
            low: 19.228_846_153_846_17,
            high: 750.463_461_538_461_5
        })
    );
    assert_eq!(
        percentile_interval(&mut y(), 0.9),
        Some(Interval {
            low: 38.534_615_384_615_38,
            high: 731.234_615_384_615_4
        })
    );
    assert_eq!(percentile_interval(&mut [f64::NAN; 4], 0.95), None);
}

#[test]
fn tails_of_the_confidence_level() {
    let tails = |confidence| {
        BootstrapOptions {
            confidence,
            ..Default::default()
        }
        .tails()
    };
    assert_eq!(tails(0.95), ((1.0 - 0.95) / 2.0, 0.975));
    assert_eq!(tails(f64::NAN), tails(0.95));
    assert_eq!(tails(2.0), (0.0, 1.0));
    assert_eq!(tails(-1.0), (0.5, 0.5));
}

fn opts(seed: u64) -> BootstrapOptions {
    BootstrapOptions {
        seed,
        ..Default::default()
    }
}

fn flags(n: usize, k: usize) -> Vec<bool> {
    (0..n).map(|i| i < k).collect()
}

#[test]
fn proportion_interval_is_the_binomial_quantiles() {
    // The bootstrap distribution of a proportion k/n is Binomial(n, k/n)/n exactly, so with
    // 10,000 resamples the percentile bounds land on its 2.5% and 97.5% quantiles. These
    // cases were chosen so that the counts of resamples on either side of each bound are at
    // least 6.8 standard errors from the cutoff (the match is not luck of the seed):
    // from scipy import stats
    // stats.binom.ppf([(1-0.95)/2, (1+0.95)/2], n, k/n)
    //   n=27, k=13 → [8, 18];  n=17, k=8 → [4, 12];  n=18, k=11 → [7, 15]
    for (n, k, lo, hi) in [(27, 13, 8, 18), (17, 8, 4, 12), (18, 11, 7, 15)] {
        for seed in [0, 1, 2] {
            let r = bootstrap_rate(&flags(n, k), &opts(seed));
            assert_eq!(r.rate, k as f64 / n as f64);
            assert_eq!(
                (r.ci_low, r.ci_high),
                (lo as f64 / n as f64, hi as f64 / n as f64),
                "n = {n}, k = {k}, seed = {seed}"
            );
        }
    }
}

#[test]
fn degenerate_and_empty_samples() {
    let o = opts(4);
    assert_eq!(bootstrap_rate(&[true; 50], &o), Rate::exact(1.0));
    assert_eq!(bootstrap_rate(&[false; 50], &o), Rate::exact(0.0));
    assert_eq!(bootstrap_rate(&[], &o), Rate::exact(0.0));
    let none = BootstrapOptions {
        resamples: 0,
        ..Default::default()
    };
    assert_eq!(bootstrap_rate(&flags(10, 3), &none), Rate::exact(0.3));
    // k > n is capped.
    assert_eq!(rate_from_count(12, 10, &o), Rate::exact(1.0));
}

#[test]
fn interval_contains_the_rate_and_narrows_with_n() {
    let mut widths = Vec::new();
    for n in [40, 400, 4000] {
        let r = bootstrap_rate(&flags(n, n * 3 / 10), &opts(1));
        assert!(r.ci_low <= r.rate && r.rate <= r.ci_high, "{r:?}");
        widths.push(r.ci_high - r.ci_low);
    }
    // Width ∝ 1/√n: each tenfold n should shrink it about √10 ≈ 3.16 times
    // (2·1.96·√(0.3·0.7/n) = 0.284, 0.0898, 0.0284).
    assert!(
        widths[0] > 2.5 * widths[1] && widths[1] > 2.5 * widths[2],
        "{widths:?}"
    );
    assert_close(widths[2], 0.0284, 0.003);
}

#[test]
fn coverage_is_about_95_percent() {
    // 1,000 samples of 100 Bernoulli(0.3) flags, each with its own 2,000-resample interval.
    // Because resampled proportions are Binomial(100, k/100)/100, the coverage the method
    // should have is computable exactly:
    // from scipy import stats
    // n, p = 100, 0.3
    // sum(stats.binom.pmf(k, n, p) for k in range(n + 1)
    //     if stats.binom.ppf(0.025, n, k/n) <= n*p <= stats.binom.ppf(0.975, n, k/n))
    //   = 0.950180170875468
    // The simulated coverage has a standard error of √(0.95·0.05/1000) ≈ 0.007.
    let mut data_rng = SplitMix64::new(2024);
    let o = BootstrapOptions {
        resamples: 2_000,
        seed: 11,
        ..Default::default()
    };
    let trials = 1_000;
    let covered = (0..trials)
        .filter(|_| {
            let sample: Vec<bool> = (0..100).map(|_| data_rng.next_f64() < 0.3).collect();
            let r = bootstrap_rate(&sample, &o);
            r.ci_low <= 0.3 && 0.3 <= r.ci_high
        })
        .count();
    assert_close(covered as f64 / trials as f64, 0.950, 0.025);
}

#[test]
fn same_seed_same_interval_on_any_pool() {
    let sample: Vec<bool> = (0..12_279).map(|i| i % 7 < 3).collect();
    let one = on_threads(1, || bootstrap_rate(&sample, &opts(5)));
    let three = on_threads(3, || bootstrap_rate(&sample, &opts(5)));
    assert_eq!(one, three);
    let other_seed = on_threads(2, || bootstrap_rate(&sample, &opts(6)));
    assert_ne!(one, other_seed);
}

/// Thirty plan lengths for the generic bootstrap.
const LENGTHS: [f64; 30] = [
    4.0, 7.0, 3.0, 9.0, 5.0, 6.0, 12.0, 5.0, 4.0, 8.0, 6.0, 7.0, 3.0, 10.0, 5.0, 6.0, 4.0, 9.0,
    7.0, 5.0, 11.0, 6.0, 4.0, 5.0, 8.0, 6.0, 7.0, 5.0, 3.0, 6.0,
];

fn mean(s: &[&f64]) -> f64 {
    s.iter().copied().sum::<f64>() / s.len() as f64
}

#[test]
fn generic_bootstrap_of_a_mean_agrees_with_numpy() {
    // A 100,000-resample NumPy reference of the same procedure:
    // import numpy as np
    // x = np.array(LENGTHS); g = np.random.default_rng(12)
    // idx = g.integers(0, 30, size=(100000, 30))
    // np.quantile(x[idx].mean(1), [(1-0.95)/2, (1+0.95)/2])
    //   → [5.433333333333334, 7.033333333333333]
    // Our 10,000 resamples differ by Monte Carlo error: over 20 NumPy runs of 10,000
    // resamples the bounds have standard deviations of 0.017 and 0.011; 0.07 is 4 of the larger.
    for seed in [0, 1] {
        let ci = bootstrap(&LENGTHS, mean, &opts(seed));
        let Some(ci) = ci else {
            panic!("a non-empty sample has an interval")
        };
        assert_close(ci.low, 5.433_333_333_333_334, 0.07);
        assert_close(ci.high, 7.033_333_333_333_333, 0.07);
        assert!(ci.contains(6.2));
    }
}

#[test]
fn generic_bootstrap_is_deterministic_and_keeps_resample_order() {
    let a = on_threads(1, || bootstrap_distribution(&LENGTHS, mean, &opts(3)));
    let b = on_threads(4, || bootstrap_distribution(&LENGTHS, mean, &opts(3)));
    assert_eq!(a.len(), 10_000);
    assert_eq!(a, b);
    // Resample i is drawn from for_resample(seed, i) by below(n), one index per item.
    let mut rng = SplitMix64::for_resample(3, 17);
    let expected = (0..30)
        .map(|_| LENGTHS[rng.below(30) as usize])
        .sum::<f64>()
        / 30.0;
    assert_eq!(a[17], expected);
}

#[test]
fn generic_bootstrap_undefined_cases() {
    let empty: [f64; 0] = [];
    assert_eq!(bootstrap(&empty, mean, &opts(0)), None);
    assert_eq!(bootstrap(&LENGTHS, |_| f64::NAN, &opts(0)), None);
    let none = BootstrapOptions {
        resamples: 0,
        ..Default::default()
    };
    assert_eq!(bootstrap(&LENGTHS, mean, &none), None);
    // A statistic undefined on some resamples: those are left out, not counted.
    let ci = bootstrap(
        &LENGTHS,
        |s| {
            let m = mean(s);
            if m > 6.2 { f64::NAN } else { m }
        },
        &opts(0),
    );
    let Some(ci) = ci else {
        panic!("about half the resamples are defined")
    };
    assert!(ci.high <= 6.2);
}
