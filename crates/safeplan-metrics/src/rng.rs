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
        self.binomial_with(trials, &Binomial::new(p), None)
    }

    /// [`binomial`](Self::binomial) with `p` prepared once and, when `tables` cover
    /// `trials`, the mode's probability and the search's reciprocals read from them instead
    /// of computed: the same distribution (the same draws but for rounding in the last
    /// bits of a probability), several times faster, for the many draws of a bootstrap.
    ///
    /// ```
    /// use safeplan_metrics::rng::{Binomial, BinomialTables, SplitMix64};
    /// let p = Binomial::new(0.3);
    /// let tables = BinomialTables::new(1_000);
    /// let mut rng = SplitMix64::new(4);
    /// let draws: Vec<u64> = (0..5).map(|_| rng.binomial_with(1_000, &p, tables.as_ref())).collect();
    /// assert!(draws.iter().all(|&k| k <= 1_000));
    /// ```
    pub fn binomial_with(
        &mut self,
        trials: u64,
        p: &Binomial,
        tables: Option<&BinomialTables>,
    ) -> u64 {
        if trials == 0 {
            return 0;
        }
        match p.kind {
            Kind::Zero => 0,
            Kind::One => trials,
            Kind::Interior { flip } => {
                let x = match tables.filter(|t| trials < t.len()) {
                    Some(t) => self.binomial_low(
                        trials,
                        p,
                        |k| t.recip[k as usize],
                        |mode| {
                            let (n, k) = (trials as usize, mode as usize);
                            (t.ln_fact[n] - t.ln_fact[k] - t.ln_fact[n - k]
                                + mode as f64 * p.ln_p
                                + (trials - mode) as f64 * p.ln_q)
                                .exp()
                        },
                    ),
                    None => self.binomial_low(
                        trials,
                        p,
                        |k| 1.0 / k as f64,
                        |mode| binomial_pmf(mode, trials, p.p),
                    ),
                };
                if flip { trials - x } else { x }
            }
        }
    }

    /// Inversion from the mode for `0 < p <= 0.5`, `trials >= 1`, given `1/k` and the
    /// probability of the mode.
    #[inline(always)]
    fn binomial_low(
        &mut self,
        trials: u64,
        p: &Binomial,
        recip: impl Fn(u64) -> f64,
        pmf_at: impl FnOnce(u64) -> f64,
    ) -> u64 {
        let mode = (((trials as f64 + 1.0) * p.p).floor() as u64).min(trials);
        let pmf_mode = pmf_at(mode);
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
                // pmf(k−1) = pmf(k) · k/(n−k+1) · q/p
                p_lo *= lo as f64 * recip(trials - lo + 1) * p.down;
                lo -= 1;
                u -= p_lo;
                if u < 0.0 {
                    return lo;
                }
            }
            if hi < trials && p_hi > 0.0 {
                // pmf(k+1) = pmf(k) · (n−k)/(k+1) · p/q
                p_hi *= (trials - hi) as f64 * recip(hi + 1) * p.up;
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

/// A success probability prepared for repeated binomial draws
/// ([`SplitMix64::binomial_with`]).
#[derive(Clone, Copy, Debug)]
pub struct Binomial {
    kind: Kind,
    /// The probability on the low side of ½ (`p` or `1 − p`).
    p: f64,
    ln_p: f64,
    ln_q: f64,
    /// q/p and p/q: the ratio of neighbouring probabilities, less the binomial factor.
    down: f64,
    up: f64,
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Zero,
    One,
    /// `flip`: the draw is made for `1 − p` and subtracted from the trials.
    Interior {
        flip: bool,
    },
}

impl Binomial {
    /// Clamps `p` into `[0, 1]` (NaN counts as 0) and prepares it.
    pub fn new(p: f64) -> Self {
        let (kind, low) = if p.is_nan() || p <= 0.0 {
            (Kind::Zero, 0.5)
        } else if p >= 1.0 {
            (Kind::One, 0.5)
        } else if p > 0.5 {
            (Kind::Interior { flip: true }, 1.0 - p)
        } else {
            (Kind::Interior { flip: false }, p)
        };
        let q = 1.0 - low;
        Binomial {
            kind,
            p: low,
            ln_p: low.ln(),
            ln_q: (-low).ln_1p(),
            down: q / low,
            up: low / q,
        }
    }
}

/// ln(k!) and 1/k for `k` up to a bound, shared by the binomial draws of one bootstrap
/// ([`SplitMix64::binomial_with`]).
#[derive(Clone, Debug)]
pub struct BinomialTables {
    ln_fact: Vec<f64>,
    recip: Vec<f64>,
}

impl BinomialTables {
    /// Tables are built only up to this many trials (16 MiB); beyond, draws compute.
    pub const MAX_TRIALS: u64 = 1 << 20;

    /// Tables covering `0..=max_trials`, or `None` past [`Self::MAX_TRIALS`].
    ///
    /// ln(k!) = ln √(2π) + (k + ½)·ln k − k + (Stirling's error term, by its series),
    /// each entry computed on its own (no running sum to accumulate rounding). Building
    /// them costs about as much as a few hundred draws.
    pub fn new(max_trials: u64) -> Option<Self> {
        if max_trials > Self::MAX_TRIALS {
            return None;
        }
        let half_ln_2pi = 0.5 * (2.0 * std::f64::consts::PI).ln();
        let ln_fact = (0..=max_trials)
            .map(|k| match LN_FACTORIAL.get(k as usize) {
                Some(&v) => v,
                None => {
                    let x = k as f64;
                    half_ln_2pi + (x + 0.5) * x.ln() - x + stirling_error(k)
                }
            })
            .collect();
        let recip = (0..=max_trials)
            .map(|k| if k == 0 { 0.0 } else { 1.0 / k as f64 })
            .collect();
        Some(BinomialTables { ln_fact, recip })
    }

    /// One more than the largest number of trials covered.
    fn len(&self) -> u64 {
        self.ln_fact.len() as u64
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
