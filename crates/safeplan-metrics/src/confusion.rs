//! Confusion counts and the precision, recall and F1 derived from them.

use std::collections::BTreeSet;
use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

/// True positives, false positives and false negatives of a binary decision made over many
/// items (actions flagged by a judge, dangerous actions named by a model, ...).
///
/// True negatives are not kept: none of the metrics here reads them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confusion {
    /// Items predicted positive that are positive.
    pub tp: u64,
    /// Items predicted positive that are negative.
    pub fp: u64,
    /// Positive items not predicted.
    #[serde(rename = "fn")]
    pub fn_: u64,
}

impl Confusion {
    /// Counts from a predicted set and a gold set of item keys.
    ///
    /// ```
    /// use safeplan_metrics::Confusion;
    /// let c = Confusion::from_sets([1, 2, 5], [2, 5, 7, 9]);
    /// assert_eq!((c.tp, c.fp, c.fn_), (2, 1, 2));
    /// ```
    pub fn from_sets<T: Ord>(
        predicted: impl IntoIterator<Item = T>,
        gold: impl IntoIterator<Item = T>,
    ) -> Self {
        let predicted: BTreeSet<T> = predicted.into_iter().collect();
        let gold: BTreeSet<T> = gold.into_iter().collect();
        let tp = predicted.intersection(&gold).count() as u64;
        Confusion {
            tp,
            fp: predicted.len() as u64 - tp,
            fn_: gold.len() as u64 - tp,
        }
    }

    /// tp / (tp + fp); `0.0` when nothing was predicted.
    pub fn precision(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }

    /// tp / (tp + fn); `0.0` when there was nothing to find.
    pub fn recall(&self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }

    /// The harmonic mean of precision and recall, 2·tp / (2·tp + fp + fn); `0.0` when both
    /// are zero.
    pub fn f1(&self) -> f64 {
        ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn_)
    }

    /// Precision, recall and F1 of these counts together. On a sum of confusions this is
    /// the micro average ([`micro_prf`]).
    ///
    /// ```
    /// use safeplan_metrics::{Confusion, Prf};
    /// let c = Confusion { tp: 3, fp: 1, fn_: 3 };
    /// assert_eq!(c.prf(), Prf { precision: 0.75, recall: 0.5, f1: 0.6 });
    /// ```
    pub fn prf(&self) -> Prf {
        Prf {
            precision: self.precision(),
            recall: self.recall(),
            f1: self.f1(),
        }
    }
}

/// Precision, recall and F1, as one value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Prf {
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub f1: f64,
}

/// Precision, recall and F1 with the counts they come from: the one record every report of a
/// binary decision writes (a judge's `metrics.json`, its cross-validation folds, the bench
/// report's judge section). Serialized flat: `precision`, `recall`, `f1`, `tp`, `fp`, `fn`.
///
/// ```
/// use safeplan_metrics::{Confusion, PrfCounts};
/// let r = PrfCounts::from(Confusion { tp: 3, fp: 1, fn_: 3 });
/// assert_eq!((r.precision, r.recall, r.f1, r.tp), (0.75, 0.5, 0.6, 3));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PrfCounts {
    /// Precision (micro, when the counts are a sum).
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub f1: f64,
    /// True positives.
    pub tp: u64,
    /// False positives.
    pub fp: u64,
    /// False negatives.
    #[serde(rename = "fn")]
    pub fn_: u64,
}

impl From<Confusion> for PrfCounts {
    fn from(c: Confusion) -> Self {
        PrfCounts {
            precision: c.precision(),
            recall: c.recall(),
            f1: c.f1(),
            tp: c.tp,
            fp: c.fp,
            fn_: c.fn_,
        }
    }
}

impl PrfCounts {
    /// The counts.
    pub fn counts(&self) -> Confusion {
        Confusion {
            tp: self.tp,
            fp: self.fp,
            fn_: self.fn_,
        }
    }
}

/// The micro average over items (episodes, tasks, …): add the counts, then divide once.
/// Items with more decisions weigh more. This is what the plan-verification paper reports.
/// All zeros for no items.
pub fn micro_prf(items: &[Confusion]) -> Prf {
    items.iter().copied().sum::<Confusion>().prf()
}

/// The macro average over items: each of precision, recall and F1 computed per item, then
/// averaged, every item weighing the same (scikit-learn's `average="macro"` with
/// `zero_division=0`: an item's undefined ratio counts as 0). F1 is the mean of the items'
/// F1, not the harmonic mean of the macro precision and recall. All zeros for no items.
///
/// ```
/// use safeplan_metrics::{macro_prf, Confusion};
/// let items = [Confusion { tp: 1, fp: 0, fn_: 0 }, Confusion { tp: 0, fp: 1, fn_: 1 }];
/// let m = macro_prf(&items);
/// assert_eq!((m.precision, m.recall, m.f1), (0.5, 0.5, 0.5));
/// ```
pub fn macro_prf(items: &[Confusion]) -> Prf {
    if items.is_empty() {
        return Prf::default();
    }
    let n = items.len() as f64;
    let mean = |f: fn(&Confusion) -> f64| items.iter().map(f).sum::<f64>() / n;
    Prf {
        precision: mean(Confusion::precision),
        recall: mean(Confusion::recall),
        f1: mean(Confusion::f1),
    }
}

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

impl Add for Confusion {
    type Output = Confusion;
    fn add(self, rhs: Confusion) -> Confusion {
        Confusion {
            tp: self.tp + rhs.tp,
            fp: self.fp + rhs.fp,
            fn_: self.fn_ + rhs.fn_,
        }
    }
}

impl AddAssign for Confusion {
    fn add_assign(&mut self, rhs: Confusion) {
        *self = *self + rhs;
    }
}

impl std::iter::Sum for Confusion {
    fn sum<I: Iterator<Item = Confusion>>(iter: I) -> Confusion {
        iter.fold(Confusion::default(), Add::add)
    }
}
