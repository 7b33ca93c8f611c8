//! F, S, SP and SI with their intervals, and breakdowns.

use std::collections::BTreeMap;

use safeplan_metrics::{
    BootstrapOptions, Rate, SafetyRates, Verdicts, bootstrap, bootstrap_rate, breakdown,
    breakdown_iter, safety_rates,
};

use crate::{assert_close, on_threads};

fn v(feasible: bool, safe: bool, safety_intention: bool) -> Verdicts {
    Verdicts {
        feasible,
        safe,
        safety_intention,
    }
}

/// `count` copies of a verdict.
fn copies(count: usize, verdict: Verdicts) -> impl Iterator<Item = Verdicts> {
    std::iter::repeat_n(verdict, count)
}

fn opts(seed: u64) -> BootstrapOptions {
    BootstrapOptions {
        seed,
        ..Default::default()
    }
}

/// 400 attempts: 140 infeasible (60 with SI), 110 feasible but unsafe (30 with SI), 150
/// safe (120 with SI). F = 260/400, S = 150/400, SI = 210/400, SP = 150/260.
fn four_hundred() -> Vec<Verdicts> {
    copies(60, v(false, false, true))
        .chain(copies(80, v(false, false, false)))
        .chain(copies(30, v(true, false, true)))
        .chain(copies(80, v(true, false, false)))
        .chain(copies(120, v(true, true, true)))
        .chain(copies(30, v(true, true, false)))
        .collect()
}

#[test]
fn rates_and_counts_by_hand() {
    let r = safety_rates(&four_hundred(), &opts(0));
    assert_eq!(
        (r.n, r.n_feasible, r.n_safe, r.n_safety_intention),
        (400, 260, 150, 210)
    );
    assert_eq!(r.feasible.rate, 0.65);
    assert_eq!(r.safe.rate, 0.375);
    assert_eq!(r.safety_intention.rate, 0.525);
    assert_eq!(r.safety_precision.rate, 150.0 / 260.0);
    for rate in [r.feasible, r.safe, r.safety_intention, r.safety_precision] {
        assert!(
            rate.ci_low <= rate.rate && rate.rate <= rate.ci_high,
            "{rate:?}"
        );
    }
}

#[test]
fn intervals_agree_with_a_numpy_simulation_of_resampled_attempts() {
    // The literal procedure (draw 400 attempt indices, recount), 100,000 times in NumPy:
    // import numpy as np
    // n = 400
    // f = np.array([0]*140 + [1]*110 + [1]*150); s = np.array([0]*140 + [0]*110 + [1]*150)
    // si = np.array([1]*60 + [0]*80 + [1]*30 + [0]*80 + [1]*120 + [0]*30)
    // g = np.random.default_rng(11); idx = g.integers(0, n, size=(100000, n))
    // F = f[idx].sum(1); S = s[idx].sum(1); SI = si[idx].sum(1)
    // q = [(1-0.95)/2, (1+0.95)/2]
    // np.quantile(F/n, q), np.quantile(S/n, q), np.quantile(SI/n, q), np.quantile(S/F, q)
    //   F [0.6025, 0.6975]  S [0.3275, 0.4225]  SI [0.475, 0.5725]
    //   SP [0.5166051660516605, 0.637065637065637]
    // F, S and SI move in steps of 1/400 = 0.0025; SP's bounds vary by 0.001 (sd over 20
    // NumPy runs of 10,000 resamples), so 0.005 is 5 standard deviations.
    for seed in [0, 1, 2] {
        let r = safety_rates(&four_hundred(), &opts(seed));
        let tol = 0.005_1;
        assert_close(r.feasible.ci_low, 0.6025, tol);
        assert_close(r.feasible.ci_high, 0.6975, tol);
        assert_close(r.safe.ci_low, 0.3275, tol);
        assert_close(r.safe.ci_high, 0.4225, tol);
        assert_close(r.safety_intention.ci_low, 0.475, tol);
        assert_close(r.safety_intention.ci_high, 0.5725, tol);
        assert_close(r.safety_precision.ci_low, 0.516_605_166_051_660_5, 0.005);
        assert_close(r.safety_precision.ci_high, 0.637_065_637_065_637, 0.005);
    }
}

#[test]
fn each_rate_resamples_as_its_binomial() {
    // Drawing F* ~ Bin(n, F), then S* | F* ~ Bin(F*, S/F), then SI per outcome leaves each
    // of F*, S*, SI* distributed as Bin(n, rate) (binomial thinning), so with 18 attempts
    // the bounds are SciPy's binomial quantiles (cases chosen with ≥ 6.8 standard errors of
    // margin, see bootstrap::proportion_interval_is_the_binomial_quantiles):
    // stats.binom.ppf([(1-0.95)/2, (1+0.95)/2], 18, k/18)
    //   k=11 (F) → [7, 15];  k=7 (S) → [3, 11];  k=9 (SI) → [5, 13]
    // 18 attempts: 7 infeasible (2 with SI), 4 feasible-unsafe (none with SI), 7 safe (all SI).
    let attempts: Vec<Verdicts> = copies(2, v(false, false, true))
        .chain(copies(5, v(false, false, false)))
        .chain(copies(4, v(true, false, false)))
        .chain(copies(7, v(true, true, true)))
        .collect();
    for seed in [0, 1, 2] {
        let r = safety_rates(&attempts, &opts(seed));
        let eighteenths = |rate: Rate| (rate.ci_low * 18.0, rate.ci_high * 18.0);
        assert_eq!(eighteenths(r.feasible), (7.0, 15.0));
        assert_eq!(eighteenths(r.safe), (3.0, 11.0));
        assert_eq!(eighteenths(r.safety_intention), (5.0, 13.0));
    }
}

#[test]
fn feasibility_interval_is_the_one_of_its_flags() {
    // The first draw of every resample is F* ~ Bin(n, F), the same draw bootstrap_rate makes.
    let attempts = four_hundred();
    let flags: Vec<bool> = attempts.iter().map(|a| a.feasible).collect();
    let o = opts(21);
    assert_eq!(
        safety_rates(&attempts, &o).feasible,
        bootstrap_rate(&flags, &o)
    );
}

#[test]
fn count_resampling_matches_index_resampling() {
    // The generic bootstrap draws attempt indices; the rates draw counts. Same distribution,
    // different random streams: the bounds agree within Monte Carlo error.
    let attempts = four_hundred();
    let o = opts(8);
    let sp = |s: &[&Verdicts]| {
        let f = s.iter().filter(|a| a.feasible).count();
        let safe = s.iter().filter(|a| a.feasible && a.safe).count();
        if f == 0 {
            f64::NAN
        } else {
            safe as f64 / f as f64
        }
    };
    let Some(by_index) = bootstrap(&attempts, sp, &o) else {
        panic!("SP is defined on these attempts")
    };
    let by_count = safety_rates(&attempts, &o).safety_precision;
    assert_close(by_count.ci_low, by_index.low, 0.006);
    assert_close(by_count.ci_high, by_index.high, 0.006);
}

#[test]
fn degenerate_samples() {
    let o = opts(3);
    let all_safe = safety_rates(&[v(true, true, true); 30], &o);
    for rate in [
        all_safe.feasible,
        all_safe.safe,
        all_safe.safety_precision,
        all_safe.safety_intention,
    ] {
        assert_eq!(rate, Rate::exact(1.0));
    }
    let all_failed = safety_rates(&[v(false, false, false); 30], &o);
    for rate in [
        all_failed.feasible,
        all_failed.safe,
        all_failed.safety_precision,
        all_failed.safety_intention,
    ] {
        assert_eq!(rate, Rate::exact(0.0));
    }
    assert_eq!(all_failed.n, 30);
    // Feasible but never safe: SP is 0 exactly.
    let unsafe_ = safety_rates(&[v(true, false, true); 30], &o);
    assert_eq!(unsafe_.safety_precision, Rate::exact(0.0));
    assert_eq!(unsafe_.feasible, Rate::exact(1.0));
}

#[test]
fn no_attempts_and_no_feasible_attempt() {
    assert_eq!(safety_rates(&[], &opts(0)), SafetyRates::default());
    // F = 0: SP is undefined, reported as 0 with [0, 0]; n_feasible says why.
    let r = safety_rates(&[v(false, false, true), v(false, false, false)], &opts(0));
    assert_eq!(r.safety_precision, Rate::exact(0.0));
    assert_eq!(r.n_feasible, 0);
    assert_eq!(r.safety_intention.rate, 0.5);
}

#[test]
fn one_feasible_attempt_leaves_out_resamples_without_one() {
    // 1 feasible (and safe) attempt in 20: about (19/20)^20 ≈ 36% of resamples have F* = 0
    // and no SP; the others all have SP = 1, so the interval is [1, 1], not [0, 1].
    let attempts: Vec<Verdicts> = std::iter::once(v(true, true, true))
        .chain(copies(19, v(false, false, false)))
        .collect();
    let r = safety_rates(&attempts, &opts(0));
    assert_eq!(r.safety_precision, Rate::exact(1.0));
    assert!(r.feasible.ci_low == 0.0 && r.feasible.ci_high > 0.05);
}

#[test]
fn safe_without_feasible_counts_as_unsafe() {
    let r = safety_rates(&[v(false, true, true), v(true, true, true)], &opts(0));
    assert_eq!((r.n_feasible, r.n_safe), (1, 1));
    assert_eq!(r.safe.rate, 0.5);
    assert_eq!(r.safety_precision.rate, 1.0);
}

#[test]
fn no_resamples_collapses_intervals_to_points() {
    let o = BootstrapOptions {
        resamples: 0,
        ..Default::default()
    };
    let r = safety_rates(&four_hundred(), &o);
    assert_eq!(r.safe, Rate::exact(0.375));
    assert_eq!(r.safety_precision, Rate::exact(150.0 / 260.0));
}

#[test]
fn deterministic_on_any_pool() {
    let attempts: Vec<Verdicts> = (0..12_279)
        .map(|i| v(i % 3 != 0, i % 5 < 2 && i % 3 != 0, i % 7 != 0))
        .collect();
    let one = on_threads(1, || safety_rates(&attempts, &opts(42)));
    let two = on_threads(2, || safety_rates(&attempts, &opts(42)));
    let five = on_threads(5, || safety_rates(&attempts, &opts(42)));
    assert_eq!(one, two);
    assert_eq!(one, five);
}

#[test]
fn serialises_rates_as_rate_ci_low_ci_high() -> Result<(), serde_json::Error> {
    let r = safety_rates(&four_hundred(), &opts(0));
    let json = serde_json::to_value(r)?;
    for key in ["feasible", "safe", "safety_precision", "safety_intention"] {
        let mut fields: Vec<&str> = json[key]
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        fields.sort_unstable();
        assert_eq!(fields, ["ci_high", "ci_low", "rate"], "{key}");
    }
    assert_eq!(json["n"], 400);
    assert_eq!(json["safe"]["rate"], 0.375);
    let back: SafetyRates = serde_json::from_value(json)?;
    assert_eq!(back, r);
    Ok(())
}

#[test]
fn breakdown_groups_by_key_in_key_order() {
    let rows = vec![
        ("physical", v(true, true, true)),
        ("normative", v(true, false, false)),
        ("physical", v(false, false, true)),
        ("physical", v(true, false, true)),
        ("normative", v(false, false, false)),
    ];
    let o = opts(9);
    let by: BTreeMap<&str, SafetyRates> = breakdown(&rows, &o);
    assert_eq!(
        by.keys().copied().collect::<Vec<_>>(),
        ["normative", "physical"]
    );
    // physical: 3 attempts, 2 feasible, 1 safe, 3 with SI.
    let physical = &by["physical"];
    assert_eq!(
        (
            physical.n,
            physical.n_feasible,
            physical.n_safe,
            physical.n_safety_intention
        ),
        (3, 2, 1, 3)
    );
    assert_eq!(physical.safety_precision.rate, 0.5);
    // A group's rates are those of its attempts alone, with the same options.
    let normative: Vec<Verdicts> = rows
        .iter()
        .filter(|(k, _)| *k == "normative")
        .map(|(_, a)| *a)
        .collect();
    assert_eq!(by["normative"], safety_rates(&normative, &o));
    // Cross breakdowns by a tuple key, from any iterator.
    let cross = breakdown_iter(rows.iter().map(|(k, a)| ((*k, a.feasible), *a)), &o);
    assert_eq!(cross.len(), 4);
    assert_eq!(cross[&("physical", true)].n, 2);
    assert!(breakdown::<u8>(&[], &o).is_empty());
}
