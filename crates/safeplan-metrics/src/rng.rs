//! The random numbers behind every bootstrap: a generator of our own, so that a seed gives
//! the same resamples on every platform, at every thread count and with every version of
//! every dependency.
//!
//! Resample `i` of a bootstrap seeded with `s` draws from [`SplitMix64::for_resample`]`(s, i)`
//! and from nothing else, so resamples can be computed in any order, on any thread, and the
//! result is the same. Changing this module changes every confidence interval the crate
//! prints for a given seed; treat its output as part of the crate's compatibility promise.

/// The SplitMix64 increment, 2⁶⁴ divided by the golden ratio, made odd.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function (a bijection of `u64`; Stafford's "Mix13" variant).
const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Steele, Lea and Flood's SplitMix64 (2014): a 64-bit state advanced by a constant and
/// hashed on output. It passes BigCrush, costs a few nanoseconds per number and is fully
/// specified by the three lines of its source, which is why it is used here rather than a
/// dependency whose stream might change between versions.
///
/// ```
/// use safeplan_metrics::rng::SplitMix64;
/// let mut a = SplitMix64::new(7);
/// let mut b = SplitMix64::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// let x = a.next_f64();
/// assert!((0.0..1.0).contains(&x));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose first output is `mix64(seed + γ)`.
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The generator of resample `index` of a bootstrap seeded with `seed`: its state is
    /// `mix64(mix64(seed) ^ mix64((index + 1)·γ))`. Distinct indices give distinct states
    /// (every step is a bijection), and hashing keeps the streams of neighbouring indices
    /// apart (SplitMix64 streams started `γ` apart would be the same stream shifted by one).
    pub const fn for_resample(seed: u64, index: u64) -> Self {
        SplitMix64::new(mix64(
            mix64(seed) ^ mix64(index.wrapping_add(1).wrapping_mul(GAMMA)),
        ))
    }

    /// The next 64 random bits.
    pub const fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix64(self.state)
    }

    /// A uniform number in `[0, 1)`: the top 53 bits of [`next_u64`](Self::next_u64) times
    /// 2⁻⁵³, so every multiple of 2⁻⁵³ in the range is equally likely.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform integer in `0..n` (Lemire's multiply-and-reject, without bias); `0` when
    /// `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // The rejection threshold 2⁶⁴ mod n is computed only when a draw lands in the
        // short first interval, so most draws cost one multiplication.
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }

    /// A draw from the binomial distribution with `trials` trials of success probability
    /// `p`: the number of heads in `trials` tosses of a `p`-coin, in time proportional to its
    /// standard deviation rather than to `trials`.
    ///
    /// The method is inversion searched outward from the mode (Kemp's "chop-down from the
    /// mode"): one uniform `u` is drawn, the probabilities of `mode, mode−1, mode+1, mode−2,
    /// …` are subtracted from it in turn, and the value whose probability takes `u` below
    /// zero is returned. Any fixed visiting order makes inversion exact, so the draw follows
    /// the binomial distribution up to floating-point rounding of the probabilities (the
    /// mode's probability comes from Loader's saddle-point formula, accurate at any number
    /// of trials; the others from the ratio of neighbouring probabilities). The expected
    /// number of steps is about 1.6·√(trials·p·(1−p)), so a draw for 10,000 attempts takes
    /// well under a microsecond; the search stops where the probabilities underflow, about
    /// 38 standard deviations out.
    ///
    /// `p` is clamped to `[0, 1]`; a NaN `p` counts as 0. `p = 0` and `p = 1` return 0 and
    /// `trials` without drawing.
    ///
    /// ```
    /// use safeplan_metrics::rng::SplitMix64;
    /// let mut rng = SplitMix64::new(1);
    /// let heads = rng.binomial(1_000, 0.25);
    /// assert!(heads <= 1_000);
    /// assert_eq!(rng.binomial(9, 1.0), 9);
    /// assert_eq!(rng.binomial(9, 0.0), 0);
    /// ```
    pub fn binomial(&mut self, trials: u64, p: f64) -> u64 {
        if trials == 0 || p.is_nan() || p <= 0.0 {
            return 0;
        }
        if p >= 1.0 {
            return trials;
        }
        if p > 0.5 {
            return trials - self.binomial_low(trials, 1.0 - p);
        }
        self.binomial_low(trials, p)
    }

    /// [`binomial`](Self::binomial) for `0 < p <= 0.5`, `trials >= 1`.
    fn binomial_low(&mut self, trials: u64, p: f64) -> u64 {
        let n = trials as f64;
        let q = 1.0 - p;
        let mode = (((n + 1.0) * p).floor() as u64).min(trials);
        let pmf_mode = binomial_pmf(mode, trials, p);
        let down = q / p; // pmf(k−1) = pmf(k) · k / (n−k+1) · q/p
        let up = p / q; // pmf(k+1) = pmf(k) · (n−k) / (k+1) · p/q

        let mut u = self.next_f64() - pmf_mode;
        if u < 0.0 {
            return mode;
        }
        let (mut lo, mut p_lo) = (mode, pmf_mode);
        let (mut hi, mut p_hi) = (mode, pmf_mode);
        // Past the mode the probabilities only shrink: once a side is exhausted or has
        // underflowed to zero (about 38 standard deviations out), nothing is left there.
        while (lo > 0 && p_lo > 0.0) || (hi < trials && p_hi > 0.0) {
            if lo > 0 && p_lo > 0.0 {
                p_lo *= lo as f64 / (trials - lo + 1) as f64 * down;
                lo -= 1;
                u -= p_lo;
                if u < 0.0 {
                    return lo;
                }
            }
            if hi < trials && p_hi > 0.0 {
                p_hi *= (trials - hi) as f64 / (hi + 1) as f64 * up;
                hi += 1;
                u -= p_hi;
                if u < 0.0 {
                    return hi;
                }
            }
        }
        // Only reachable when rounding left the probabilities summing to a hair under one
        // and `u` fell in that hair: the mode is the least biased answer.
        mode
    }
}

/// The binomial probability of `k` successes in `n` trials, by Loader's saddle-point
/// formula ("Fast and accurate computation of binomial probabilities", 2000; R's
/// `dbinom_raw`): accurate to a few ulps at any `n`, where the naive
/// `exp(ln n! − ln k! − ln (n−k)! + …)` loses digits to cancellation.
fn binomial_pmf(k: u64, trials: u64, p: f64) -> f64 {
    let q = 1.0 - p;
    if k == 0 {
        return (trials as f64 * (-p).ln_1p()).exp();
    }
    if k == trials {
        return (trials as f64 * p.ln()).exp();
    }
    let (n, x) = (trials as f64, k as f64);
    let lc = stirling_error(trials)
        - stirling_error(k)
        - stirling_error(trials - k)
        - deviance_term(x, n * p)
        - deviance_term(n - x, n * q);
    let lf = (2.0 * std::f64::consts::PI).ln() + x.ln() + (-x / n).ln_1p();
    (lc - 0.5 * lf).exp()
}

/// `ln(k!) − ln(√(2πk)·(k/e)^k)`, the error of Stirling's formula: from the table below 16,
/// from its asymptotic series above (the first omitted term is below 10⁻¹⁴ at k = 16).
fn stirling_error(k: u64) -> f64 {
    let x = k as f64;
    if let Some(&ln_fact) = LN_FACTORIAL.get(k as usize) {
        if k == 0 {
            return 0.0;
        }
        return ln_fact - (x + 0.5) * x.ln() + x - 0.5 * (2.0 * std::f64::consts::PI).ln();
    }
    let x2 = x * x;
    (1.0 / 12.0
        - (1.0 / 360.0 - (1.0 / 1260.0 - (1.0 / 1680.0 - 1.0 / (1188.0 * x2)) / x2) / x2) / x2)
        / x
}

/// `x·ln(x/m) + m − x`, the deviance term of Loader's formula, by a series when `x` is
/// close to `m` (where the direct form cancels).
fn deviance_term(x: f64, m: f64) -> f64 {
    if (x - m).abs() < 0.1 * (x + m) {
        let mut v = (x - m) / (x + m);
        let mut s = (x - m) * v;
        let mut ej = 2.0 * x * v;
        v *= v;
        for j in 1..1000 {
            ej *= v;
            let next = s + ej / f64::from(2 * j + 1);
            if next == s {
                return next;
            }
            s = next;
        }
        return s;
    }
    x * (x / m).ln() + m - x
}

/// ln(k!) for k < 16, from Python's `math.log(math.factorial(k))`.
const LN_FACTORIAL: [f64; 16] = [
    0.0,
    0.0,
    std::f64::consts::LN_2,
    1.791_759_469_228_055,
    3.178_053_830_347_945_8,
    4.787_491_742_782_046,
    6.579_251_212_010_101,
    8.525_161_361_065_415,
    10.604_602_902_745_25,
    12.801_827_480_081_469,
    15.104_412_573_075_516,
    17.502_307_845_873_887,
    19.987_214_495_661_885,
    22.552_163_853_123_425,
    25.191_221_182_738_68,
    27.899_271_383_840_89,
];
