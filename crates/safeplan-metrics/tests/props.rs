//! Properties over random inputs.

use proptest::prelude::*;
use safeplan_metrics::{BootstrapOptions, Verdicts, breakdown, linear_fit, quantile, safety_rates};

/// Hyndman and Fan's type 7 written the obvious way: sort, then interpolate between
/// x[⌊h⌋] and x[⌊h⌋+1] at h = (m − 1)·q.
fn sorted_type7(values: &[f64], q: f64) -> f64 {
    let mut x = values.to_vec();
    x.sort_by(f64::total_cmp);
    let h = (x.len() - 1) as f64 * q;
    let j = h.floor() as usize;
    match x.get(j + 1) {
        Some(&next) => x[j] + (h - j as f64) * (next - x[j]),
        None => x[j],
    }
}

fn verdicts() -> impl Strategy<Value = Verdicts> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(feasible, safe, safety_intention)| {
        Verdicts {
            feasible,
            safe,
            safety_intention,
        }
    })
}

proptest! {
    #[test]
    fn selection_quantile_equals_sort_quantile(
        values in proptest::collection::vec(-1e6f64..1e6, 1..200),
        q in 0.0f64..=1.0,
    ) {
        let mut v = values.clone();
        let got = quantile(&mut v, q);
        let want = sorted_type7(&values, q);
        prop_assert!(got.is_some());
        let got = got.unwrap_or(f64::NAN);
        // NumPy's lerp form and the plain one differ by rounding only.
        prop_assert!((got - want).abs() <= 1e-9 * (1.0 + want.abs()), "{got} vs {want}");
    }

    #[test]
    fn rates_are_consistent(
        attempts in proptest::collection::vec(verdicts(), 0..300),
        seed in any::<u64>(),
    ) {
        let o = BootstrapOptions { resamples: 300, seed, ..Default::default() };
        let r = safety_rates(&attempts, &o);
        prop_assert_eq!(r.n, attempts.len() as u64);
        prop_assert!(r.n_safe <= r.n_feasible && r.n_feasible <= r.n);
        prop_assert!(r.n_safety_intention <= r.n);
        for rate in [r.feasible, r.safe, r.safety_intention, r.safety_precision] {
            prop_assert!(0.0 <= rate.ci_low && rate.ci_low <= rate.ci_high && rate.ci_high <= 1.0,
                "{:?}", rate);
        }
        // A proportion's bootstrap distribution has its median at the proportion, so the
        // point lies inside any central interval.
        for rate in [r.feasible, r.safe, r.safety_intention] {
            prop_assert!(rate.ci_low <= rate.rate && rate.rate <= rate.ci_high, "{:?}", rate);
        }
        prop_assert!(r.safe.rate <= r.feasible.rate);
    }

    #[test]
    fn breakdown_partitions_the_attempts(
        rows in proptest::collection::vec((0u8..5, verdicts()), 0..200),
    ) {
        let o = BootstrapOptions { resamples: 50, ..Default::default() };
        let by = breakdown(&rows, &o);
        let attempts: Vec<Verdicts> = rows.iter().map(|(_, v)| *v).collect();
        let all = safety_rates(&attempts, &o);
        prop_assert_eq!(by.values().map(|r| r.n).sum::<u64>(), all.n);
        prop_assert_eq!(by.values().map(|r| r.n_feasible).sum::<u64>(), all.n_feasible);
        prop_assert_eq!(by.values().map(|r| r.n_safe).sum::<u64>(), all.n_safe);
    }

    #[test]
    fn exact_lines_are_recovered(
        slope in -100.0f64..100.0,
        intercept in -100.0f64..100.0,
        xs in proptest::collection::btree_set(-1000i32..1000, 2..40),
    ) {
        let points: Vec<(f64, f64)> = xs
            .iter()
            .map(|&x| (f64::from(x), intercept + slope * f64::from(x)))
            .collect();
        let fit = linear_fit(&points);
        prop_assert!(fit.is_some());
        let fit = fit.unwrap_or_default();
        prop_assert!((fit.slope - slope).abs() <= 1e-9 * (1.0 + slope.abs()));
        prop_assert!((fit.intercept - intercept).abs() <= 1e-7 * (1.0 + intercept.abs() + slope.abs()));
        if slope.abs() > 1e-6 {
            prop_assert!((fit.r2 - 1.0).abs() <= 1e-9);
        }
    }
}
