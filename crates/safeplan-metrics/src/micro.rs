//! Micro precision, recall and F1 with bootstrap intervals over the items the counts come
//! from: the one computation behind every such figure a report prints (a judge run, its
//! cross-validation, a planner's `identify-dangers` table).
//!
//! The unit resampled is the *item* (an episode, an attempt, a game), not the single
//! decision: decisions within one item are not independent, so resampling them one by one
//! would give intervals too narrow. A resample draws items with replacement, sums their
//! counts and divides once, as the point estimate does. A resample on which a ratio is
//! undefined (nothing flagged for precision, nothing to find for recall, neither for F1) is
//! left out, as every undefined statistic in this crate is; the point estimate keeps the
//! crate's zero for an undefined ratio.

use serde::{Deserialize, Serialize};

use crate::bootstrap::{BootstrapOptions, Rate, column_intervals, resample_indices};
use crate::confusion::{Confusion, PrfCounts};

/// Micro precision, recall and F1, each with its bootstrap interval, and the counts they
/// come from. Serialized flat: `precision`, `recall`, `f1` (each `{rate, ci_low,
/// ci_high}`), `tp`, `fp`, `fn`.
///
/// ```
/// use safeplan_metrics::{BootstrapOptions, Confusion, PrfRates};
/// let episodes = [
///     Confusion { tp: 2, fp: 1, fn_: 0 },
///     Confusion { tp: 1, fp: 0, fn_: 3 },
///     Confusion { tp: 0, fp: 0, fn_: 0 },
/// ];
/// let r = PrfRates::micro(&episodes, &BootstrapOptions::default());
/// assert_eq!((r.precision.rate, r.recall.rate, r.tp), (0.75, 0.5, 3));
/// assert!(r.f1.ci_low <= r.f1.rate && r.f1.rate <= r.f1.ci_high);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PrfRates {
    /// Micro precision, tp / (tp + fp).
    pub precision: Rate,
    /// Micro recall, tp / (tp + fn).
    pub recall: Rate,
    /// Micro F1, 2·tp / (2·tp + fp + fn).
    pub f1: Rate,
    /// True positives, summed.
    pub tp: u64,
    /// False positives, summed.
    pub fp: u64,
    /// False negatives, summed.
    #[serde(rename = "fn")]
    pub fn_: u64,
}

impl PrfRates {
    /// The micro figures of `items` summed, with percentile bootstrap intervals from
    /// resampling the items (one resampling for all three, so they come from the same
    /// draws). With no items, or no resample on which a ratio is defined, its interval is the
    /// point.
    pub fn micro(items: &[Confusion], options: &BootstrapOptions) -> PrfRates {
        let total: Confusion = items.iter().copied().sum();
        let point = [total.precision(), total.recall(), total.f1()];
        let stats = if items.is_empty() {
            Vec::new()
        } else {
            resample_indices::<3, _>(items.len(), options, |drawn| {
                let c: Confusion = drawn.iter().map(|&i| items[i]).sum();
                let defined = |den: u64, x: f64| if den == 0 { f64::NAN } else { x };
                [
                    defined(c.tp + c.fp, c.precision()),
                    defined(c.tp + c.fn_, c.recall()),
                    defined(c.tp + c.fp + c.fn_, c.f1()),
                ]
            })
        };
        let [p, r, f] = column_intervals(&stats, options.confidence, point);
        PrfRates {
            precision: Rate::new(point[0], p),
            recall: Rate::new(point[1], r),
            f1: Rate::new(point[2], f),
            tp: total.tp,
            fp: total.fp,
            fn_: total.fn_,
        }
    }

    /// Figures known only as points (a file that kept no per-item counts): each interval
    /// is the point.
    pub fn exact(figures: PrfCounts) -> PrfRates {
        PrfRates {
            precision: Rate::exact(figures.precision),
            recall: Rate::exact(figures.recall),
            f1: Rate::exact(figures.f1),
            tp: figures.tp,
            fp: figures.fp,
            fn_: figures.fn_,
        }
    }

    /// The summed counts.
    pub fn counts(&self) -> Confusion {
        Confusion {
            tp: self.tp,
            fp: self.fp,
            fn_: self.fn_,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bootstrap::bootstrap;

    /// The joint resampling gives, column by column, what three separate bootstraps of the
    /// same statistic give: the same seed draws the same items.
    #[test]
    fn each_interval_is_the_bootstrap_of_its_own_ratio() {
        let items: Vec<Confusion> = (0..40u64)
            .map(|i| Confusion {
                tp: i % 3,
                fp: (i * 7) % 2,
                fn_: (i * 5) % 4,
            })
            .collect();
        let opts = BootstrapOptions {
            resamples: 2_000,
            seed: 11,
            ..Default::default()
        };
        let r = PrfRates::micro(&items, &opts);
        let sum = |s: &[&Confusion]| s.iter().copied().copied().sum::<Confusion>();
        let p = bootstrap(&items, |s| sum(s).precision(), &opts).unwrap();
        let f = bootstrap(&items, |s| sum(s).f1(), &opts).unwrap();
        assert_eq!((r.precision.ci_low, r.precision.ci_high), (p.low, p.high));
        assert_eq!((r.f1.ci_low, r.f1.ci_high), (f.low, f.high));
    }

    /// Resamples where nothing was flagged are left out of precision's interval rather than
    /// counted as 0: with one item flagging 1 of 1 correctly and nine flagging nothing,
    /// every resample that flags anything has precision 1.
    #[test]
    fn an_undefined_resample_is_left_out_not_zero() {
        let mut items = vec![Confusion::default(); 9];
        items.push(Confusion {
            tp: 1,
            fp: 0,
            fn_: 0,
        });
        let r = PrfRates::micro(&items, &BootstrapOptions::default());
        assert_eq!(r.precision.rate, 1.0);
        assert_eq!((r.precision.ci_low, r.precision.ci_high), (1.0, 1.0));
    }

    #[test]
    fn no_items_give_zero_points_with_point_intervals() {
        let r = PrfRates::micro(&[], &BootstrapOptions::default());
        assert_eq!(r, PrfRates::default());
    }
}
