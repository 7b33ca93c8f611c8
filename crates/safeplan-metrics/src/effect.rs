//! Effect sizes.

/// Cohen's d of two samples: `(mean(a) − mean(b)) / s_pooled`, with the pooled standard
/// deviation `s_pooled = √(((n_a − 1)·s_a² + (n_b − 1)·s_b²) / (n_a + n_b − 2))` and the
/// sample variances `s²` taken with `n − 1` (NumPy's `var(ddof=1)`).
///
/// Positive when `a`'s mean is larger. DESPITE compares, for instance, the plan lengths of
/// the hardest tasks (`a`) with those of the easiest (`b`).
///
/// `None` when it is undefined: either sample empty, fewer than two values in all
/// (`n_a + n_b < 3`), a non-finite value, or a pooled deviation of zero.
///
/// ```
/// use safeplan_metrics::cohens_d;
/// // means 3 and 2, both variances 1 → d = 1
/// assert_eq!(cohens_d(&[2.0, 3.0, 4.0], &[1.0, 2.0, 3.0]), Some(1.0));
/// assert_eq!(cohens_d(&[1.0], &[2.0]), None);
/// ```
pub fn cohens_d(a: &[f64], b: &[f64]) -> Option<f64> {
    let (na, nb) = (a.len(), b.len());
    if na == 0 || nb == 0 || na + nb < 3 {
        return None;
    }
    if a.iter().chain(b).any(|x| !x.is_finite()) {
        return None;
    }
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    let (ma, mb) = (mean(a), mean(b));
    let ss = |xs: &[f64], m: f64| xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>();
    let pooled = ((ss(a, ma) + ss(b, mb)) / (na + nb - 2) as f64).sqrt();
    let d = (ma - mb) / pooled;
    (pooled > 0.0 && d.is_finite()).then_some(d)
}
