//! Percentile bootstrap: options, intervals, rates, the quantile definition and the generic
//! resampling engine.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::rng::{Binomial, BinomialTables, SplitMix64};

/// How a bootstrap is run.
///
/// ```
/// use safeplan_metrics::BootstrapOptions;
/// let opts = BootstrapOptions { seed: 42, ..BootstrapOptions::default() };
/// assert_eq!((opts.resamples, opts.confidence), (10_000, 0.95));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BootstrapOptions {
    /// Number of resamples; 10,000 by default, as in DESPITE. With 0 every interval collapses
    /// to its point estimate.
    pub resamples: usize,
    /// Coverage of the interval, 0.95 by default. Values outside `[0, 1]` are clamped into
    /// it; a NaN counts as the default 0.95.
    pub confidence: f64,
    /// Seed of every resample's generator ([`SplitMix64::for_resample`]); 0 by default.
    pub seed: u64,
}

impl Default for BootstrapOptions {
    fn default() -> Self {
        BootstrapOptions {
            resamples: 10_000,
            confidence: 0.95,
            seed: 0,
        }
    }
}

impl BootstrapOptions {
    /// The lower and upper quantile levels of the interval: `(1 − c)/2` and `(1 + c)/2` for
    /// the (sanitised) confidence `c`. For 0.95 these are `0.025000000000000022` and `0.975`
    /// in `f64`, the values a NumPy reference must be given to match bit for bit.
    pub fn tails(&self) -> (f64, f64) {
        let c = if self.confidence.is_nan() {
            0.95
        } else {
            self.confidence.clamp(0.0, 1.0)
        };
        ((1.0 - c) / 2.0, (1.0 + c) / 2.0)
    }
}

/// A closed interval `[low, high]`, here a bootstrap confidence interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

impl Interval {
    /// The interval `[x, x]`.
    pub const fn point(x: f64) -> Self {
        Interval { low: x, high: x }
    }

    /// Whether `low <= x <= high`.
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }

    /// `high − low`.
    pub fn width(&self) -> f64 {
        self.high - self.low
    }
}

/// A proportion with its bootstrap confidence interval. Serialises as
/// `{"rate": …, "ci_low": …, "ci_high": …}`, the shape reports emit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// The point estimate.
    pub rate: f64,
    /// Lower bound of the confidence interval.
    pub ci_low: f64,
    /// Upper bound of the confidence interval.
    pub ci_high: f64,
}

impl Rate {
    /// A rate whose interval is just the point: `[x, x]`.
    pub const fn exact(x: f64) -> Self {
        Rate {
            rate: x,
            ci_low: x,
            ci_high: x,
        }
    }

    /// The interval as an [`Interval`].
    pub const fn interval(&self) -> Interval {
        Interval {
            low: self.ci_low,
            high: self.ci_high,
        }
    }

    /// A rate from its point estimate and interval.
    pub const fn new(rate: f64, ci: Interval) -> Self {
        Rate {
            rate,
            ci_low: ci.low,
            ci_high: ci.high,
        }
    }
}

/// The `q`-quantile of the finite values of `values`, by NumPy's default definition
/// (`np.quantile(x, q, method="linear")`, Hyndman and Fan's type 7).
///
/// With the `m` finite values sorted as `x[0] <= … <= x[m−1]`, let `h = (m − 1)·q`,
/// `j = ⌊h⌋` and `g = h − j`; the quantile is `x[j] + (x[j+1] − x[j])·g`, computed as
/// `x[j+1] − (x[j+1] − x[j])·(1 − g)` when `g >= 0.5` (NumPy's `_lerp`, which keeps the
/// result monotone in `q`), and `x[j]` when `j = m − 1`.
///
/// Runs in linear time by selection: `values` is reordered (finite values first, then
/// partially sorted), not sorted. `None` when no value is finite or `q` is not in `[0, 1]`.
///
/// ```
/// use safeplan_metrics::quantile;
/// // np.quantile([4, 1, 3, 2], 0.25) = 1.75: h = 3·0.25 = 0.75 between 1 and 2.
/// assert_eq!(quantile(&mut [4.0, 1.0, 3.0, 2.0], 0.25), Some(1.75));
/// assert_eq!(quantile(&mut [f64::NAN], 0.5), None);
/// ```
pub fn quantile(values: &mut [f64], q: f64) -> Option<f64> {
    let finite = partition_finite(values);
    quantile_finite(finite, q)
}

/// The percentile bootstrap interval from resample statistics: the quantiles at the
/// [`tails`](BootstrapOptions::tails) of `confidence`, by the definition of [`quantile`].
/// Non-finite statistics are resamples where the statistic is undefined; they are left out
/// and the quantiles are taken over the rest. `None` when no statistic is finite.
///
/// `statistics` is reordered.
pub fn percentile_interval(statistics: &mut [f64], confidence: f64) -> Option<Interval> {
    let (lo, hi) = BootstrapOptions {
        confidence,
        ..BootstrapOptions::default()
    }
    .tails();
    let finite = partition_finite(statistics);
    Some(Interval {
        low: quantile_finite(finite, lo)?,
        high: quantile_finite(finite, hi)?,
    })
}

/// Moves the finite values of `values` to its front, in order, and returns that prefix.
fn partition_finite(values: &mut [f64]) -> &mut [f64] {
    let mut kept = 0;
    for i in 0..values.len() {
        if values[i].is_finite() {
            values.swap(kept, i);
            kept += 1;
        }
    }
    &mut values[..kept]
}

/// [`quantile`] over values known to be finite.
fn quantile_finite(values: &mut [f64], q: f64) -> Option<f64> {
    if values.is_empty() || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let h = (values.len() - 1) as f64 * q;
    let j = (h.floor() as usize).min(values.len() - 1);
    let g = h - j as f64;
    let (_, &mut a, above) = values.select_nth_unstable_by(j, f64::total_cmp);
    // After selection everything right of `j` is >= x[j]; the next order statistic is the
    // least of them.
    let b = above.iter().copied().min_by(f64::total_cmp).unwrap_or(a);
    let diff = b - a;
    Some(if g >= 0.5 {
        b - diff * (1.0 - g)
    } else {
        a + diff * g
    })
}

/// The resample statistics of a bootstrap of `data`: for resample `i` in
/// `0..options.resamples`, `data.len()` items drawn with replacement by
/// [`SplitMix64::for_resample`]`(seed, i)` (each index by [`SplitMix64::below`]), passed to
/// `statistic`, in resample order. Empty when `data` is empty.
///
/// Resamples run in parallel on the process-aware pool (`safeplan_pool`: sized for the
/// process, made anew in a forked child); each depends only on the seed and its
/// index, so the result does not depend on the number of threads. Each rayon job reuses one
/// buffer of `data.len()` references, so the cost is the statistic's own plus one draw per
/// item.
pub fn bootstrap_distribution<T, S>(
    data: &[T],
    statistic: S,
    options: &BootstrapOptions,
) -> Vec<f64>
where
    T: Sync,
    S: Fn(&[&T]) -> f64 + Sync,
{
    if data.is_empty() {
        return Vec::new();
    }
    let n = data.len();
    let seed = options.seed;
    // On the process-aware pool: rayon's global one hangs in a forked child.
    safeplan_pool::install(|| {
        (0..options.resamples)
            .into_par_iter()
            .with_min_len(MIN_RESAMPLES_PER_JOB)
            .map_init(
                || Vec::with_capacity(n),
                |buf: &mut Vec<&T>, i| {
                    let mut rng = SplitMix64::for_resample(seed, i as u64);
                    buf.clear();
                    buf.extend((0..n).map(|_| &data[rng.below(n as u64) as usize]));
                    statistic(buf)
                },
            )
            .collect()
    })
}

/// A percentile bootstrap confidence interval for any statistic of a sample: the
/// [`percentile_interval`] of [`bootstrap_distribution`]. The statistic may return a
/// non-finite value to say it is undefined on a resample; such resamples are left out.
/// `None` when `data` is empty, `options.resamples` is 0 or no resample gave a finite value.
///
/// ```
/// use safeplan_metrics::{bootstrap, BootstrapOptions};
/// let lengths = [3.0, 5.0, 4.0, 8.0, 5.0, 6.0];
/// let mean = |s: &[&f64]| s.iter().copied().sum::<f64>() / s.len() as f64;
/// let opts = BootstrapOptions { resamples: 2_000, ..Default::default() };
/// let ci = bootstrap(&lengths, mean, &opts).expect("a non-empty sample");
/// assert!(ci.contains(31.0 / 6.0));
/// ```
pub fn bootstrap<T, S>(data: &[T], statistic: S, options: &BootstrapOptions) -> Option<Interval>
where
    T: Sync,
    S: Fn(&[&T]) -> f64 + Sync,
{
    let mut stats = bootstrap_distribution(data, statistic, options);
    percentile_interval(&mut stats, options.confidence)
}

/// Fewest resamples a rayon job takes: enough that splitting costs little next to the work.
const MIN_RESAMPLES_PER_JOB: usize = 64;

/// The engine of the index bootstraps: for each resample, `n` indices drawn with replacement
/// into a reused buffer, mapped to `K` statistics.
pub(crate) fn resample_indices<const K: usize, F>(
    n: usize,
    options: &BootstrapOptions,
    f: F,
) -> Vec<[f64; K]>
where
    F: Fn(&[usize]) -> [f64; K] + Sync,
{
    let seed = options.seed;
    safeplan_pool::install(|| {
        (0..options.resamples)
            .into_par_iter()
            .with_min_len(MIN_RESAMPLES_PER_JOB)
            .map_init(
                || Vec::with_capacity(n),
                |buf: &mut Vec<usize>, i| {
                    let mut rng = SplitMix64::for_resample(seed, i as u64);
                    buf.clear();
                    buf.extend((0..n).map(|_| rng.below(n as u64) as usize));
                    f(buf)
                },
            )
            .collect()
    })
}

/// The engine of the count bootstraps: each resample computed from its own generator alone.
pub(crate) fn resample_with<const K: usize, F>(options: &BootstrapOptions, f: F) -> Vec<[f64; K]>
where
    F: Fn(&mut SplitMix64) -> [f64; K] + Sync,
{
    let seed = options.seed;
    safeplan_pool::install(|| {
        (0..options.resamples)
            .into_par_iter()
            .with_min_len(MIN_RESAMPLES_PER_JOB)
            .map(|i| f(&mut SplitMix64::for_resample(seed, i as u64)))
            .collect()
    })
}

/// Percentile intervals of each of the `K` columns of resample statistics; a column with no
/// finite value gets the point `fallback[k]`.
pub(crate) fn column_intervals<const K: usize>(
    stats: &[[f64; K]],
    confidence: f64,
    fallback: [f64; K],
) -> [Interval; K] {
    let mut column = Vec::with_capacity(stats.len());
    std::array::from_fn(|k| {
        column.clear();
        column.extend(stats.iter().map(|row| row[k]));
        percentile_interval(&mut column, confidence).unwrap_or(Interval::point(fallback[k]))
    })
}

/// A proportion of `true`s with its percentile bootstrap interval.
///
/// The rate is `k/n` for `k` trues among `n`. Because the proportion of a resample depends
/// only on how many trues it drew, resample `i` draws that number directly, as one
/// binomial draw Bin(n, k/n) from its generator ([`SplitMix64::binomial_with`]): the
/// number of trues among `n` items drawn with replacement has exactly this distribution,
/// and the draw costs O(√n) instead of O(n). All-true and all-false samples give `[1, 1]` and `[0, 0]`; an
/// empty sample gives the rate 0 with the interval `[0, 0]` (undefined ratios are zero).
///
/// ```
/// use safeplan_metrics::{bootstrap_rate, BootstrapOptions};
/// let flags: Vec<bool> = (0..200).map(|i| i % 4 == 0).collect();
/// let r = bootstrap_rate(&flags, &BootstrapOptions::default());
/// assert_eq!(r.rate, 0.25);
/// assert!(r.ci_low < 0.25 && 0.25 < r.ci_high);
/// ```
pub fn bootstrap_rate(flags: &[bool], options: &BootstrapOptions) -> Rate {
    let k = flags.iter().filter(|&&f| f).count() as u64;
    rate_from_count(k, flags.len() as u64, options)
}

/// [`bootstrap_rate`] from the counts alone: `k` successes among `n` (`k` is capped at
/// `n`).
pub fn rate_from_count(k: u64, n: u64, options: &BootstrapOptions) -> Rate {
    if n == 0 {
        return Rate::exact(0.0);
    }
    let k = k.min(n);
    let nf = n as f64;
    let p = k as f64 / nf;
    let prepared = Binomial::new(p);
    let tables = BinomialTables::new(n);
    let stats = resample_with(options, |rng| {
        [rng.binomial_with(n, &prepared, tables.as_ref()) as f64 / nf]
    });
    let [ci] = column_intervals(&stats, options.confidence, [p]);
    Rate::new(p, ci)
}
