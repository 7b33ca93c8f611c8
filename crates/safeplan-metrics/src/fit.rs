//! Least-squares lines with bootstrap intervals: the S ≈ F × SI decomposition across
//! planners and log-linear scaling fits against a planner attribute.

use serde::{Deserialize, Serialize};

use crate::bootstrap::{BootstrapOptions, Interval, column_intervals, resample_indices};
use crate::safety::SafetyRates;

/// Why a fit cannot be made. Every variant names what the caller can fix.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum FitError {
    /// Fewer than two points: a line needs two.
    #[error("a fit needs at least 2 points, got {n}")]
    TooFewPoints {
        /// Number of points given.
        n: usize,
    },
    /// A coordinate is NaN or infinite.
    #[error("point {index} has a coordinate that is not a finite number")]
    NonFinite {
        /// Index of the first such point.
        index: usize,
    },
    /// A log-linear fit was given an attribute that is zero or negative, whose logarithm is
    /// undefined (a parameter count of 0 is missing data, not a small model).
    #[error("point {index} has attribute {value}; a log-linear fit needs attributes > 0")]
    NonPositiveAttribute {
        /// Index of the first such point.
        index: usize,
        /// The attribute.
        value: f64,
    },
    /// Every point has the same predictor value, so no slope is defined.
    #[error("all {n} points have the same predictor value; the slope is undefined")]
    ConstantPredictor {
        /// Number of points given.
        n: usize,
    },
    /// A ratio of slopes was asked for and the denominator's slope is zero.
    #[error("the denominator's slope is zero; the ratio of slopes is undefined")]
    ZeroSlope,
}

/// An ordinary least-squares line `y = intercept + slope·x` and its coefficient of
/// determination.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LinearFit {
    /// Change of `y` per unit of `x`.
    pub slope: f64,
    /// `y` at `x = 0`.
    pub intercept: f64,
    /// R², the share of the variance of `y` the line explains: the squared Pearson
    /// correlation of `x` and `y`, and 0 when `y` is constant (as `scipy.stats.linregress`
    /// gives).
    pub r2: f64,
}

impl LinearFit {
    /// `intercept + slope·x`.
    pub fn predict(&self, x: f64) -> f64 {
        self.intercept + self.slope * x
    }

    /// The `x` at which the line reaches `y`; `None` for a flat line. For a
    /// [`log_linear_fit`], `10^x` is the attribute needed to reach `y`.
    pub fn solve(&self, y: f64) -> Option<f64> {
        let x = (y - self.intercept) / self.slope;
        (self.slope != 0.0 && x.is_finite()).then_some(x)
    }
}

/// A line with percentile bootstrap intervals of its three numbers.
///
/// The intervals come from resampling the points with replacement and refitting: resample
/// `i` draws `n` point indices with
/// [`SplitMix64::for_resample`](crate::rng::SplitMix64::for_resample)`(seed, i)` and
/// [`below(n)`](crate::rng::SplitMix64::below). A resample whose points all share one
/// predictor value has no line; it is left out of all three intervals. An interval with no
/// resample left (only possible with very few points or `resamples = 0`) is the point
/// estimate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FitWithCi {
    /// The fit of all points.
    pub fit: LinearFit,
    /// Interval of the slope.
    pub slope: Interval,
    /// Interval of the intercept.
    pub intercept: Interval,
    /// Interval of R².
    pub r2: Interval,
    /// Number of points.
    pub n: usize,
}

/// The least-squares line through `points` (`(x, y)` pairs), or `None` when there is none:
/// fewer than two points, a non-finite coordinate, or a constant `x`. [`try_linear_fit`]
/// says which.
///
/// Sums are taken about the means (two passes), the same estimator as
/// `scipy.stats.linregress`: slope = Sxy/Sxx, intercept = ȳ − slope·x̄,
/// R² = Sxy²/(Sxx·Syy).
///
/// ```
/// use safeplan_metrics::linear_fit;
/// let fit = linear_fit(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]).expect("three points on a line");
/// assert_eq!((fit.slope, fit.intercept, fit.r2), (2.0, 1.0, 1.0));
/// assert!(linear_fit(&[(1.0, 1.0), (1.0, 2.0)]).is_none());
/// ```
pub fn linear_fit(points: &[(f64, f64)]) -> Option<LinearFit> {
    try_linear_fit(points).ok()
}

/// [`linear_fit`], saying why there is no line.
pub fn try_linear_fit(points: &[(f64, f64)]) -> Result<LinearFit, FitError> {
    check(points)?;
    ols(points.iter().copied()).ok_or(FitError::ConstantPredictor { n: points.len() })
}

/// [`linear_fit`] of `points` with bootstrap intervals (see [`FitWithCi`]).
///
/// ```
/// use safeplan_metrics::{fit_with_ci, BootstrapOptions};
/// let points: Vec<(f64, f64)> = (0..20).map(|i| (i as f64, 2.0 * i as f64 + (i % 3) as f64)).collect();
/// let f = fit_with_ci(&points, &BootstrapOptions::default())?;
/// assert!(f.slope.contains(f.fit.slope));
/// # Ok::<(), safeplan_metrics::FitError>(())
/// ```
pub fn fit_with_ci(
    points: &[(f64, f64)],
    options: &BootstrapOptions,
) -> Result<FitWithCi, FitError> {
    let fit = try_linear_fit(points)?;
    let stats = resample_indices(points.len(), options, |indices| {
        match ols(indices.iter().map(|&i| points[i])) {
            Some(f) => [f.slope, f.intercept, f.r2],
            None => [f64::NAN; 3],
        }
    });
    let [slope, intercept, r2] = column_intervals(
        &stats,
        options.confidence,
        [fit.slope, fit.intercept, fit.r2],
    );
    Ok(FitWithCi {
        fit,
        slope,
        intercept,
        r2,
        n: points.len(),
    })
}

/// A log-linear fit: `metric = intercept + slope·log10(attribute)` over
/// `(attribute, metric)` pairs, with bootstrap intervals. The base is 10, so the slope is
/// the change of the metric per tenfold increase of the attribute ("percentage points per
/// order of magnitude" when the metric is in percent, as in DESPITE's scaling analysis of
/// F, S and SI against parameter count).
///
/// Errors: [`FitError::NonFinite`] for a NaN or infinite coordinate,
/// [`FitError::NonPositiveAttribute`] for an attribute ≤ 0, then as [`fit_with_ci`].
///
/// ```
/// use safeplan_metrics::{log_linear_fit, BootstrapOptions, FitError};
/// let opts = BootstrapOptions::default();
/// let f = log_linear_fit(&[(1e9, 0.2), (1e10, 0.5), (1e11, 0.8)], &opts)?;
/// assert!((f.fit.slope - 0.3).abs() < 1e-12);
/// assert_eq!(
///     log_linear_fit(&[(7e9, 0.4), (0.0, 0.1)], &opts),
///     Err(FitError::NonPositiveAttribute { index: 1, value: 0.0 })
/// );
/// # Ok::<(), FitError>(())
/// ```
pub fn log_linear_fit(
    points: &[(f64, f64)],
    options: &BootstrapOptions,
) -> Result<FitWithCi, FitError> {
    let logged = log_attributes(points.iter().map(|&(x, y)| (x, [y])))?;
    let logged: Vec<(f64, f64)> = logged.into_iter().map(|(x, [y])| (x, y)).collect();
    fit_with_ci(&logged, options)
}

/// A ratio of two log-linear slopes over the same attribute, with its bootstrap interval:
/// for `(attribute, numerator metric, denominator metric)` triples, the slope of the
/// numerator metric against log10(attribute) divided by the denominator's.
///
/// This is DESPITE's β_S/β_F ("safety improves at roughly half the feasibility rate"): both
/// lines are refitted on the same resample of planners, and the ratio of that resample's
/// slopes is one bootstrap value. Resamples where either line is undefined or the
/// denominator's slope is zero are left out.
///
/// Errors as [`log_linear_fit`], and [`FitError::ZeroSlope`] when the denominator's slope
/// over all points is zero.
pub fn log_linear_slope_ratio(
    points: &[(f64, f64, f64)],
    options: &BootstrapOptions,
) -> Result<SlopeRatio, FitError> {
    let logged = log_attributes(points.iter().map(|&(x, a, b)| (x, [a, b])))?;
    let num: Vec<(f64, f64)> = logged.iter().map(|&(x, [a, _])| (x, a)).collect();
    let den: Vec<(f64, f64)> = logged.iter().map(|&(x, [_, b])| (x, b)).collect();
    let (num_fit, den_fit) = (try_linear_fit(&num)?, try_linear_fit(&den)?);
    if den_fit.slope == 0.0 {
        return Err(FitError::ZeroSlope);
    }
    let ratio = num_fit.slope / den_fit.slope;
    let stats = resample_indices(logged.len(), options, |indices| {
        let a = ols(indices.iter().map(|&i| num[i]));
        let b = ols(indices.iter().map(|&i| den[i]));
        match (a, b) {
            // x / 0 is infinite or NaN, and non-finite values are left out.
            (Some(a), Some(b)) => [a.slope / b.slope],
            _ => [f64::NAN],
        }
    });
    let [ci] = column_intervals(&stats, options.confidence, [ratio]);
    Ok(SlopeRatio {
        ratio,
        ci,
        numerator: num_fit,
        denominator: den_fit,
    })
}

/// The result of [`log_linear_slope_ratio`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SlopeRatio {
    /// Numerator slope over denominator slope, on all points.
    pub ratio: f64,
    /// Its bootstrap interval.
    pub ci: Interval,
    /// The numerator's fit on all points.
    pub numerator: LinearFit,
    /// The denominator's fit on all points.
    pub denominator: LinearFit,
}

/// One planner's rates, the input of [`decomposition_fit`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DecompositionPoint {
    /// Feasibility F.
    pub feasible: f64,
    /// Safety intention SI.
    pub safety_intention: f64,
    /// Safety S.
    pub safe: f64,
}

impl From<&SafetyRates> for DecompositionPoint {
    fn from(r: &SafetyRates) -> Self {
        DecompositionPoint {
            feasible: r.feasible.rate,
            safety_intention: r.safety_intention.rate,
            safe: r.safe.rate,
        }
    }
}

/// DESPITE's decomposition check across planners: the regression `S = β₀ + β₁·(F × SI)`
/// over one point per planner, with bootstrap intervals over planners (see [`FitWithCi`]).
/// A slope near 1, an intercept near 0 and R² near 1 mean S ≈ F × SI (the paper: slope
/// 1.035, intercept −0.040, R² = 0.99 over 23 models).
///
/// ```
/// use safeplan_metrics::{decomposition_fit, BootstrapOptions, DecompositionPoint};
/// let p = |feasible, safety_intention, safe| DecompositionPoint { feasible, safety_intention, safe };
/// let planners = [p(0.5, 0.4, 0.2), p(0.9, 0.5, 0.45), p(0.2, 0.5, 0.1)];
/// let f = decomposition_fit(&planners, &BootstrapOptions::default())?;
/// assert!((f.fit.slope - 1.0).abs() < 1e-12 && f.fit.intercept.abs() < 1e-12);
/// # Ok::<(), safeplan_metrics::FitError>(())
/// ```
pub fn decomposition_fit(
    points: &[DecompositionPoint],
    options: &BootstrapOptions,
) -> Result<FitWithCi, FitError> {
    let xy: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (p.feasible * p.safety_intention, p.safe))
        .collect();
    fit_with_ci(&xy, options)
}

/// Checks every point is finite, then that there are two.
fn check(points: &[(f64, f64)]) -> Result<(), FitError> {
    if let Some(index) = points
        .iter()
        .position(|(x, y)| !x.is_finite() || !y.is_finite())
    {
        return Err(FitError::NonFinite { index });
    }
    if points.len() < 2 {
        return Err(FitError::TooFewPoints { n: points.len() });
    }
    Ok(())
}

/// `(log10(attribute), metrics)`, rejecting non-finite values and attributes ≤ 0.
fn log_attributes<const K: usize>(
    points: impl Iterator<Item = (f64, [f64; K])>,
) -> Result<Vec<(f64, [f64; K])>, FitError> {
    points
        .enumerate()
        .map(|(index, (x, ys))| {
            if !x.is_finite() || ys.iter().any(|y| !y.is_finite()) {
                Err(FitError::NonFinite { index })
            } else if x <= 0.0 {
                Err(FitError::NonPositiveAttribute { index, value: x })
            } else {
                Ok((x.log10(), ys))
            }
        })
        .collect()
}

/// Least squares over finite points; `None` with fewer than two points or a constant `x`.
fn ols(points: impl Iterator<Item = (f64, f64)> + Clone) -> Option<LinearFit> {
    let (mut n, mut sx, mut sy) = (0usize, 0.0, 0.0);
    for (x, y) in points.clone() {
        n += 1;
        sx += x;
        sy += y;
    }
    if n < 2 {
        return None;
    }
    let (mx, my) = (sx / n as f64, sy / n as f64);
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in points {
        let (dx, dy) = (x - mx, y - my);
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    // Also true for a NaN sum.
    if sxx.is_nan() || sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    // scipy.stats.linregress: r = Sxy / √(Sxx·Syy), clamped to [−1, 1], and 0 for a
    // constant y. The product of roots stands in when the product of sums over- or
    // underflows.
    let r = if syy > 0.0 {
        let den = (sxx * syy).sqrt();
        let den = if den.is_finite() && den > 0.0 {
            den
        } else {
            sxx.sqrt() * syy.sqrt()
        };
        (sxy / den).clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let fit = LinearFit {
        slope,
        intercept: my - slope * mx,
        r2: r * r,
    };
    (fit.slope.is_finite() && fit.intercept.is_finite()).then_some(fit)
}
