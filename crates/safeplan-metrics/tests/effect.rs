//! Cohen's d against NumPy and by hand.

use safeplan_metrics::cohens_d;

use crate::assert_close;

/// Cohen's d with the pooled standard deviation, as computed for the references:
/// import numpy as np
/// def d(a, b):
///     a = np.asarray(a, float); b = np.asarray(b, float); na, nb = len(a), len(b)
///     return (a.mean() - b.mean()) / np.sqrt(((na-1)*a.var(ddof=1) + (nb-1)*b.var(ddof=1))
///                                            / (na + nb - 2))
#[test]
fn matches_numpy_pooled_formula() {
    // d([5,7,9,6,8,12,10], [3,4,6,5,2,4]) = 2.0515423967448223
    let Some(d1) = cohens_d(
        &[5.0, 7.0, 9.0, 6.0, 8.0, 12.0, 10.0],
        &[3.0, 4.0, 6.0, 5.0, 2.0, 4.0],
    ) else {
        panic!("defined")
    };
    assert_close(d1, 2.051_542_396_744_822_3, 1e-13);
    // d([1.5, 2.25, 3.0], [4.0, 4.5, 6.5, 7.0, 3.5]) = -2.121810199320371
    let Some(d2) = cohens_d(&[1.5, 2.25, 3.0], &[4.0, 4.5, 6.5, 7.0, 3.5]) else {
        panic!("defined")
    };
    assert_close(d2, -2.121_810_199_320_371, 1e-13);
}

#[test]
fn by_hand() {
    // a: mean 3, squares about the mean 1+0+1 = 2; b: mean 2, also 2;
    // pooled = √((2 + 2)/(3 + 3 − 2)) = 1; d = (3 − 2)/1 = 1.
    assert_eq!(cohens_d(&[2.0, 3.0, 4.0], &[1.0, 2.0, 3.0]), Some(1.0));
    // One value in a contributes no variance but the pooled formula is still defined:
    // b = [1, 3, 5]: mean 3, squares 4+0+4 = 8; pooled = √((0 + 8)/(1 + 3 − 2)) = 2;
    // d = (2 − 3)/2 = −0.5. (NumPy's var(ddof=1) of one value is NaN, and 0·NaN makes the
    // naive formula NaN; the sum of squares is 0.)
    assert_eq!(cohens_d(&[2.0], &[1.0, 3.0, 5.0]), Some(-0.5));
}

#[test]
fn undefined_cases_are_none() {
    assert_eq!(cohens_d(&[], &[1.0, 2.0]), None);
    assert_eq!(cohens_d(&[1.0, 2.0], &[]), None);
    assert_eq!(cohens_d(&[1.0], &[2.0]), None);
    // Zero pooled deviation.
    assert_eq!(cohens_d(&[4.0, 4.0], &[4.0, 4.0, 4.0]), None);
    assert_eq!(cohens_d(&[4.0, 4.0], &[5.0, 5.0]), None);
    assert_eq!(cohens_d(&[1.0, f64::NAN], &[1.0, 2.0]), None);
    assert_eq!(cohens_d(&[1.0, 2.0], &[f64::INFINITY, 2.0]), None);
}
