//! Linear, decomposition and log-linear fits against `scipy.stats.linregress`, their
//! intervals against a NumPy bootstrap, and their errors.
//!
//! The data and the references come from this script (the data printed with `tolist()`
//! and pasted below):
//!
//! ```python
//! import numpy as np
//! from scipy import stats
//! rng = np.random.default_rng(2024)
//! F = np.round(rng.uniform(0.05, 0.99, 23), 3)
//! SI = np.round(rng.uniform(0.35, 0.85, 23), 3)
//! S = np.round(np.clip(F*SI*1.03 - 0.03 + rng.normal(0, 0.02, 23), 0, 1), 3)
//! P = np.array([3e9, 7e9, 8e9, 8e9, 14e9, 30e9, 32e9, 70e9, 70e9, 72e9, 80e9, 80e9,
//!               235e9, 235e9, 405e9, 480e9, 671e9, 671e9]); lp = np.log10(P)
//! Fm = np.round(np.clip(0.268*(lp-9.5) + 0.05 + rng.normal(0, 0.08, 18), 0, 1), 3)
//! SIm = np.round(np.clip(0.045*(lp-9.5) + 0.41 + rng.normal(0, 0.04, 18), 0, 1), 3)
//! Sm = np.round(np.clip(Fm*SIm + rng.normal(0, 0.02, 18), 0, 1), 3)
//!
//! def fit(x, y):
//!     r = stats.linregress(x, y); return r.slope, r.intercept, r.rvalue**2
//! def boot(x, y, B=100000, seed=7):   # resample points, refit, percentile bounds
//!     g = np.random.default_rng(seed); n = len(x)
//!     idx = g.integers(0, n, size=(B, n)); xs, ys = x[idx], y[idx]
//!     mx, my = xs.mean(1, keepdims=True), ys.mean(1, keepdims=True)
//!     sxx = ((xs-mx)**2).sum(1); sxy = ((xs-mx)*(ys-my)).sum(1); syy = ((ys-my)**2).sum(1)
//!     ok = sxx > 0   # a resample with one distinct x has no line: left out
//!     slope = sxy[ok]/sxx[ok]; icpt = my[ok,0] - slope*mx[ok,0]
//!     r2 = sxy[ok]**2/(sxx[ok]*syy[ok])
//!     q = [(1-0.95)/2, (1+0.95)/2]
//!     return [np.quantile(v, q).tolist() for v in (slope, icpt, r2)]
//! fit(F*SI, S); boot(F*SI, S)
//! for y in (Fm, SIm, Sm): fit(lp, y); boot(lp, y)
//! ```
//!
//! A 10,000-resample interval differs from the 100,000-resample reference by Monte Carlo
//! error: over 20 NumPy runs of 10,000 resamples, every bound here had a standard deviation
//! of at most 1.4% of the interval's width, so bounds are compared within 6% of the width.

use safeplan_metrics::{
    BootstrapOptions, DecompositionPoint, FitError, FitWithCi, Interval, LinearFit, SafetyRates,
    Verdicts, decomposition_fit, fit_with_ci, linear_fit, log_linear_fit, log_linear_slope_ratio,
    safety_rates, try_linear_fit,
};

use crate::{assert_close, on_threads};

type TestResult = Result<(), Box<dyn std::error::Error>>;

const F: [f64; 23] = [
    0.685, 0.251, 0.341, 0.801, 0.986, 0.184, 0.124, 0.22, 0.388, 0.209, 0.603, 0.63, 0.149, 0.582,
    0.054, 0.487, 0.967, 0.801, 0.611, 0.356, 0.244, 0.466, 0.311,
];
const SI: [f64; 23] = [
    0.787, 0.457, 0.487, 0.754, 0.484, 0.484, 0.385, 0.584, 0.482, 0.794, 0.493, 0.737, 0.594,
    0.584, 0.832, 0.799, 0.39, 0.473, 0.442, 0.803, 0.627, 0.536, 0.767,
];
const S: [f64; 23] = [
    0.502, 0.104, 0.178, 0.59, 0.439, 0.07, 0.034, 0.097, 0.163, 0.168, 0.302, 0.462, 0.044, 0.319,
    0.028, 0.367, 0.346, 0.345, 0.236, 0.251, 0.119, 0.25, 0.2,
];

const PARAMS: [f64; 18] = [
    3e9, 7e9, 8e9, 8e9, 14e9, 30e9, 32e9, 70e9, 70e9, 72e9, 80e9, 80e9, 235e9, 235e9, 405e9, 480e9,
    671e9, 671e9,
];
const F_BY_SIZE: [f64; 18] = [
    0.115, 0.176, 0.169, 0.092, 0.187, 0.47, 0.327, 0.454, 0.464, 0.498, 0.407, 0.377, 0.547,
    0.531, 0.678, 0.65, 0.693, 0.685,
];
const SI_BY_SIZE: [f64; 18] = [
    0.458, 0.404, 0.409, 0.464, 0.435, 0.468, 0.426, 0.471, 0.488, 0.418, 0.445, 0.49, 0.584,
    0.513, 0.502, 0.474, 0.53, 0.415,
];
const S_BY_SIZE: [f64; 18] = [
    0.052, 0.065, 0.059, 0.089, 0.032, 0.22, 0.141, 0.223, 0.194, 0.199, 0.151, 0.182, 0.323,
    0.276, 0.336, 0.312, 0.371, 0.292,
];

fn planners() -> Vec<DecompositionPoint> {
    (0..23)
        .map(|i| DecompositionPoint {
            feasible: F[i],
            safety_intention: SI[i],
            safe: S[i],
        })
        .collect()
}

fn by_size(metric: &[f64; 18]) -> Vec<(f64, f64)> {
    PARAMS.iter().copied().zip(metric.iter().copied()).collect()
}

fn opts(seed: u64) -> BootstrapOptions {
    BootstrapOptions {
        seed,
        ..Default::default()
    }
}

#[track_caller]
fn assert_fit(fit: LinearFit, slope: f64, intercept: f64, r2: f64) {
    assert_close(fit.slope, slope, 1e-12);
    assert_close(fit.intercept, intercept, 1e-12);
    assert_close(fit.r2, r2, 1e-12);
}

#[track_caller]
fn assert_interval(ci: Interval, reference: [f64; 2]) {
    let tol = 0.06 * (reference[1] - reference[0]);
    assert_close(ci.low, reference[0], tol);
    assert_close(ci.high, reference[1], tol);
}

#[test]
fn decomposition_matches_linregress_and_a_numpy_bootstrap() -> TestResult {
    // fit(F*SI, S) = (0.988048815794022, -0.01781226485162324, 0.9899459298057881)
    // boot(F*SI, S) = [[0.9488619848368486, 1.0245536875216215],
    //                  [-0.029791166704290613, -0.004968928931761806],
    //                  [0.9790146421221817, 0.9955672485204489]]
    for seed in [0, 1] {
        let f = decomposition_fit(&planners(), &opts(seed))?;
        assert_eq!(f.n, 23);
        assert_fit(
            f.fit,
            0.988_048_815_794_022,
            -0.017_812_264_851_623_24,
            0.989_945_929_805_788_1,
        );
        assert_interval(f.slope, [0.948_861_984_836_848_6, 1.024_553_687_521_621_5]);
        assert_interval(
            f.intercept,
            [-0.029_791_166_704_290_613, -0.004_968_928_931_761_806],
        );
        assert_interval(f.r2, [0.979_014_642_122_181_7, 0.995_567_248_520_448_9]);
    }
    Ok(())
}

#[test]
fn log_linear_fits_match_linregress_on_log10_and_a_numpy_bootstrap() -> TestResult {
    // fit(lp, Fm)  = (0.26581794063289466, -2.4515021882624346, 0.9293825619231405)
    // boot(lp, Fm) = [[0.23690260855498163, 0.29753833804965557],
    //                 [-2.8068399862084483, -2.124609737133231],
    //                 [0.8322194688229508, 0.9772991754014873]]
    let f = log_linear_fit(&by_size(&F_BY_SIZE), &opts(0))?;
    assert_fit(
        f.fit,
        0.265_817_940_632_894_66,
        -2.451_502_188_262_434_6,
        0.929_382_561_923_140_5,
    );
    assert_interval(
        f.slope,
        [0.236_902_608_554_981_63, 0.297_538_338_049_655_57],
    );
    assert_interval(
        f.intercept,
        [-2.806_839_986_208_448_3, -2.124_609_737_133_231],
    );
    assert_interval(f.r2, [0.832_219_468_822_950_8, 0.977_299_175_401_487_3]);
    // fit(lp, SIm)  = (0.03257252513821054, 0.11474045890248247, 0.2559829447894949)
    // boot(lp, SIm) = [[0.005700561385073424, 0.06554000952819897],
    //                  [-0.23344781557724195, 0.3956665614941383],
    //                  [0.014484797135993259, 0.6699737422768512]]
    let f = log_linear_fit(&by_size(&SI_BY_SIZE), &opts(0))?;
    assert_fit(
        f.fit,
        0.032_572_525_138_210_54,
        0.114_740_458_902_482_47,
        0.255_982_944_789_494_9,
    );
    assert_interval(
        f.slope,
        [0.005_700_561_385_073_424, 0.065_540_009_528_198_97],
    );
    assert_interval(
        f.intercept,
        [-0.233_447_815_577_241_95, 0.395_666_561_494_138_3],
    );
    assert_interval(f.r2, [0.014_484_797_135_993_259, 0.669_973_742_276_851_2]);
    // fit(lp, Sm)  = (0.13803277302326616, -1.2945582130623712, 0.8807789224095536)
    // boot(lp, Sm) = [[0.11692681394287971, 0.16544340301277172],
    //                 [-1.5966546735896385, -1.0677460213357584],
    //                 [0.7730966352293568, 0.9519269322270375]]
    let f = log_linear_fit(&by_size(&S_BY_SIZE), &opts(0))?;
    assert_fit(
        f.fit,
        0.138_032_773_023_266_16,
        -1.294_558_213_062_371_2,
        0.880_778_922_409_553_6,
    );
    assert_interval(
        f.slope,
        [0.116_926_813_942_879_71, 0.165_443_403_012_771_72],
    );
    assert_interval(
        f.intercept,
        [-1.596_654_673_589_638_5, -1.067_746_021_335_758_4],
    );
    assert_interval(f.r2, [0.773_096_635_229_356_8, 0.951_926_932_227_037_5]);
    Ok(())
}

#[test]
fn slope_ratio_matches_a_numpy_bootstrap() -> TestResult {
    // Both lines refitted on the same resample of models:
    // g = np.random.default_rng(9); idx = g.integers(0, 18, size=(100000, 18))
    // def slopes(y):
    //     xs, ys = lp[idx], y[idx]; mx, my = xs.mean(1, keepdims=True), ys.mean(1, keepdims=True)
    //     return ((xs-mx)*(ys-my)).sum(1) / ((xs-mx)**2).sum(1)
    // ratio = slopes(Sm)/slopes(Fm); ratio = ratio[np.isfinite(ratio)]
    // linregress(lp, Sm).slope / linregress(lp, Fm).slope = 0.5192756090676928
    // np.quantile(ratio, [(1-0.95)/2, (1+0.95)/2]) = [0.44388147215633955, 0.6105446064768029]
    // (bounds of 10,000-resample runs vary by at most 0.8% of the width)
    let points: Vec<(f64, f64, f64)> = (0..18)
        .map(|i| (PARAMS[i], S_BY_SIZE[i], F_BY_SIZE[i]))
        .collect();
    let r = log_linear_slope_ratio(&points, &opts(0))?;
    assert_close(r.ratio, 0.519_275_609_067_692_8, 1e-12);
    assert_interval(r.ci, [0.443_881_472_156_339_55, 0.610_544_606_476_802_9]);
    assert_close(r.numerator.slope, 0.138_032_773_023_266_16, 1e-12);
    assert_close(r.denominator.slope, 0.265_817_940_632_894_66, 1e-12);
    Ok(())
}

#[test]
fn decomposition_points_from_safety_rates() {
    // 4 attempts: F = 3/4, S = 1/2, SI = 1/2.
    let v = |feasible, safe, safety_intention| Verdicts {
        feasible,
        safe,
        safety_intention,
    };
    let rates: SafetyRates = safety_rates(
        &[
            v(true, true, true),
            v(true, true, false),
            v(true, false, true),
            v(false, false, false),
        ],
        &opts(0),
    );
    assert_eq!(
        DecompositionPoint::from(&rates),
        DecompositionPoint {
            feasible: 0.75,
            safety_intention: 0.5,
            safe: 0.5
        }
    );
}

#[test]
fn points_on_a_line() -> TestResult {
    // y = 2x + 1 exactly: every resample with two distinct x recovers the line (up to
    // rounding), so the intervals are points.
    let points: Vec<(f64, f64)> = (0..10)
        .map(|i| (f64::from(i), 2.0 * f64::from(i) + 1.0))
        .collect();
    let f = fit_with_ci(&points, &opts(0))?;
    assert_eq!(
        f.fit,
        LinearFit {
            slope: 2.0,
            intercept: 1.0,
            r2: 1.0
        }
    );
    assert_close(f.slope.low, 2.0, 1e-12);
    assert_close(f.slope.high, 2.0, 1e-12);
    assert_close(f.intercept.low, 1.0, 1e-12);
    assert_close(f.intercept.high, 1.0, 1e-12);
    assert_close(f.r2.low, 1.0, 1e-12);
    // By hand: predict(3) = 7; solve(7) = 3.
    assert_eq!(f.fit.predict(3.0), 7.0);
    assert_eq!(f.fit.solve(7.0), Some(3.0));
    assert_eq!(
        LinearFit {
            slope: 0.0,
            intercept: 1.0,
            r2: 0.0
        }
        .solve(2.0),
        None
    );
    Ok(())
}

#[test]
fn hand_computed_fit_of_three_points() {
    // (0,0), (1,2), (2,1): x̄ = 1, ȳ = 1; Sxx = 2, Sxy = (−1)(−1) + 0 + (1)(0) = 1,
    // Syy = 1 + 1 + 0 = 2; slope = 1/2, intercept = 1 − 1/2 = 1/2, R² = 1/(2·2) = 1/4.
    assert_eq!(
        linear_fit(&[(0.0, 0.0), (1.0, 2.0), (2.0, 1.0)]),
        Some(LinearFit {
            slope: 0.5,
            intercept: 0.5,
            r2: 0.25
        })
    );
    // A constant y: slope 0 and R² = 0 (scipy.stats.linregress gives rvalue 0).
    assert_eq!(
        linear_fit(&[(0.0, 3.0), (1.0, 3.0)]),
        Some(LinearFit {
            slope: 0.0,
            intercept: 3.0,
            r2: 0.0
        })
    );
}

#[test]
fn two_points_keep_only_the_resamples_that_have_a_line() -> TestResult {
    // Half the resamples of two points repeat one point and have no line; the other half
    // are the two points again, so the interval is the fit itself.
    let f = fit_with_ci(&[(1.0, 1.0), (3.0, 2.0)], &opts(0))?;
    assert_eq!(f.slope, Interval::point(0.5));
    assert_eq!(f.intercept, Interval::point(0.5));
    Ok(())
}

#[test]
fn errors_say_what_to_fix() {
    let o = opts(0);
    assert_eq!(
        log_linear_fit(&[(7e9, 0.4), (0.0, 0.1), (-1.0, 0.2)], &o),
        Err(FitError::NonPositiveAttribute {
            index: 1,
            value: 0.0
        })
    );
    assert_eq!(
        log_linear_fit(&[(7e9, 0.4), (-3e9, 0.2)], &o),
        Err(FitError::NonPositiveAttribute {
            index: 1,
            value: -3e9
        })
    );
    assert_eq!(
        log_linear_fit(&[(7e9, 0.4), (f64::NAN, 0.2)], &o),
        Err(FitError::NonFinite { index: 1 })
    );
    assert_eq!(
        fit_with_ci(&[(1.0, 0.4), (2.0, f64::INFINITY)], &o),
        Err(FitError::NonFinite { index: 1 })
    );
    assert_eq!(fit_with_ci(&[], &o), Err(FitError::TooFewPoints { n: 0 }));
    assert_eq!(
        log_linear_fit(&[(1e9, 0.5)], &o),
        Err(FitError::TooFewPoints { n: 1 })
    );
    assert_eq!(
        fit_with_ci(&[(2.0, 0.1), (2.0, 0.3), (2.0, 0.2)], &o),
        Err(FitError::ConstantPredictor { n: 3 })
    );
    assert_eq!(
        try_linear_fit(&[(2.0, 0.1), (2.0, 0.3)]),
        Err(FitError::ConstantPredictor { n: 2 })
    );
    assert_eq!(linear_fit(&[(2.0, 0.1), (2.0, 0.3)]), None);
    assert_eq!(linear_fit(&[(2.0, 0.1)]), None);
    assert_eq!(linear_fit(&[(f64::NAN, 0.1), (1.0, 0.2)]), None);
    // A flat denominator has no ratio.
    assert_eq!(
        log_linear_slope_ratio(&[(1e9, 0.1, 0.5), (1e10, 0.2, 0.5), (1e11, 0.4, 0.5)], &o),
        Err(FitError::ZeroSlope)
    );
    // Messages name the point.
    assert_eq!(
        FitError::NonPositiveAttribute {
            index: 4,
            value: 0.0
        }
        .to_string(),
        "point 4 has attribute 0; a log-linear fit needs attributes > 0"
    );
}

#[test]
fn no_resamples_give_point_intervals() -> TestResult {
    let o = BootstrapOptions {
        resamples: 0,
        ..Default::default()
    };
    let f = decomposition_fit(&planners(), &o)?;
    assert_eq!(f.slope, Interval::point(f.fit.slope));
    assert_eq!(f.r2, Interval::point(f.fit.r2));
    Ok(())
}

#[test]
fn deterministic_on_any_pool() -> TestResult {
    let points = by_size(&S_BY_SIZE);
    let one = on_threads(1, || log_linear_fit(&points, &opts(77)))?;
    let three = on_threads(3, || log_linear_fit(&points, &opts(77)))?;
    assert_eq!(one, three);
    Ok(())
}

#[test]
fn serialises_as_plain_data() -> TestResult {
    let f = decomposition_fit(&planners(), &opts(0))?;
    let json = serde_json::to_value(f)?;
    assert!(json["fit"]["slope"].is_f64());
    assert!(json["slope"]["low"].is_f64() && json["r2"]["high"].is_f64());
    let back: FitWithCi = serde_json::from_value(json)?;
    assert_eq!(back, f);
    Ok(())
}
