//! The generator and its binomial sampler, against SciPy's binomial distribution.

use safeplan_metrics::rng::{Binomial, BinomialTables, SplitMix64};

use crate::assert_close;

/// Pearson's χ² of observed counts against expected probabilities (which sum to 1).
fn chi_square(observed: &[u64], probabilities: &[f64]) -> f64 {
    let total: u64 = observed.iter().sum();
    observed
        .iter()
        .zip(probabilities)
        .map(|(&o, &p)| {
            let e = p * total as f64;
            (o as f64 - e) * (o as f64 - e) / e
        })
        .sum()
}

#[test]
fn same_seed_same_stream_and_resample_streams_differ() {
    let mut a = SplitMix64::new(99);
    let mut b = SplitMix64::new(99);
    for _ in 0..100 {
        assert_eq!(a.next_u64(), b.next_u64());
    }
    let first: Vec<u64> = (0..1000)
        .map(|i| SplitMix64::for_resample(5, i).next_u64())
        .collect();
    let mut distinct = first.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), first.len());
    assert_ne!(
        SplitMix64::for_resample(5, 0).next_u64(),
        SplitMix64::for_resample(6, 0).next_u64()
    );
}

#[test]
fn reference_outputs_of_splitmix64() {
    // SplitMix64 seeded with 0 (Vigna's splitmix64.c); the same numbers from Python:
    //   M = 2**64 - 1; s = 0
    //   def nxt():
    //       global s; s = (s + 0x9E3779B97F4A7C15) & M; z = s
    //       z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    //       z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    //       return z ^ (z >> 31)
    //   [hex(nxt()) for _ in range(3)]
    let mut r = SplitMix64::new(0);
    assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
    assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    assert_eq!(r.next_u64(), 0x06c4_5d18_8009_454f);
}

#[test]
fn below_is_uniform() {
    // 7 cells, 70,000 draws: χ² with 6 degrees of freedom; scipy.stats.chi2.ppf(0.999, 6)
    // = 22.457744484825323.
    let mut rng = SplitMix64::new(3);
    let mut counts = [0u64; 7];
    for _ in 0..70_000 {
        counts[rng.below(7) as usize] += 1;
    }
    assert!(chi_square(&counts, &[1.0 / 7.0; 7]) < 22.457_744_484_825_323);
    assert_eq!(rng.below(0), 0);
    assert_eq!(rng.below(1), 0);
}

#[test]
fn next_f64_is_in_the_unit_interval_with_mean_one_half() {
    let mut rng = SplitMix64::new(8);
    let n = 100_000;
    let mut sum = 0.0;
    for _ in 0..n {
        let x = rng.next_f64();
        assert!((0.0..1.0).contains(&x));
        sum += x;
    }
    // Standard error of the mean of U(0,1): √(1/12/n) ≈ 0.00091.
    assert_close(sum / n as f64, 0.5, 0.005);
}

/// 100,000 draws of Bin(n, p), binned 0..=last with everything above `last` in one bin,
/// against SciPy's pmf; `chi2_999` is `scipy.stats.chi2.ppf(0.999, bins − 1)`.
/// `tables`: draw with [`SplitMix64::binomial_with`] and tables rather than `binomial`.
fn check_binomial(n: u64, p: f64, pmf: &[f64], chi2_999: f64, seed: u64, tables: bool) {
    let draws = 100_000;
    let last = pmf.len() - 1;
    let mut probs = pmf.to_vec();
    probs.push(1.0 - pmf.iter().sum::<f64>());
    let mut counts = vec![0u64; last + 2];
    let mut rng = SplitMix64::new(seed);
    let prepared = Binomial::new(p);
    let tables = if tables { BinomialTables::new(n) } else { None };
    for _ in 0..draws {
        let k = rng.binomial_with(n, &prepared, tables.as_ref());
        assert!(k <= n);
        counts[(k as usize).min(last + 1)] += 1;
    }
    let chi2 = chi_square(&counts, &probs);
    assert!(chi2 < chi2_999, "χ² = {chi2} for Bin({n}, {p}): {counts:?}");
}

#[test]
fn binomial_matches_scipy_pmf() {
    // from scipy import stats; import numpy as np
    // stats.binom.pmf(np.arange(13), 20, 0.3)  (k = 0..12; k >= 13 pooled in one bin)
    let pmf_20_03 = [
        0.000_797_922_662_976_117_1,
        0.006_839_337_111_223_872,
        0.027_845_872_524_268_643,
        0.071_603_672_205_262_1,
        0.130_420_974_373_870_4,
        0.178_863_050_569_879_64,
        0.191_638_982_753_442_54,
        0.164_261_985_217_236_6,
        0.114_396_739_704_861_08,
        0.065_369_565_545_634_99,
        0.030_817_080_900_085_03,
        0.012_006_654_896_137_012,
        0.003_859_281_930_901_185,
    ];
    // 14 bins: stats.chi2.ppf(0.999, 13) = 34.52817897487089
    check_binomial(20, 0.3, &pmf_20_03, 34.528_178_974_870_89, 1, false);
    check_binomial(20, 0.3, &pmf_20_03, 34.528_178_974_870_89, 5, true);

    // p > 1/2 goes through the symmetry n − Bin(n, 1 − p).
    // stats.binom.pmf(np.arange(31), 30, 0.8)[:30] (k = 0..29; k = 30 is the pooled bin)
    let pmf_30_08 = [
        1.073_741_823_999_993_9e-21,
        1.288_490_188_799_993_4e-19,
        7.473_243_095_039_962e-18,
        2.790_010_755_481_589_3e-16,
        7.533_029_039_800_291e-15,
        1.566_870_040_278_462_6e-13,
        2.611_450_067_130_769_3e-12,
        3.581_417_234_922_192_4e-11,
        4.118_629_820_160_524e-10,
        4.027_104_713_045_848e-9,
        3.382_767_958_958_509_5e-8,
        2.460_194_879_242_556_4e-7,
        1.558_123_423_520_287_6e-6,
        8.629_606_653_343_113e-6,
        4.191_523_231_623_799e-5,
        0.000_178_838_324_549_282_3,
        0.000_670_643_717_059_810_1,
        0.002_209_179_303_255_845_7,
        0.006_382_073_542_739_097,
        0.016_123_133_160_604_045,
        0.035_470_892_953_328_906,
        0.067_563_605_625_388_38,
        0.110_558_627_386_999_36,
        0.153_820_698_973_216_24,
        0.179_457_482_135_419_18,
        0.172_279_182_850_002_32,
        0.132_522_448_346_155_79,
        0.078_531_821_242_166_48,
        0.033_656_494_818_071_32,
        0.009_284_550_294_640_372,
    ];
    // Pool the bins with tiny expectations (k < 18) into the first kept one so that every
    // expected count is at least 5: keep k = 17..=29 plus k = 30, i.e. 14 bins again.
    let mut pooled = vec![pmf_30_08[..18].iter().sum::<f64>()];
    pooled.extend_from_slice(&pmf_30_08[18..]);
    pooled.push(1.0 - pooled.iter().sum::<f64>());
    let tables = BinomialTables::new(30);
    for (seed, tables) in [(2, None), (6, tables.as_ref())] {
        let mut rng = SplitMix64::new(seed);
        let p = Binomial::new(0.8);
        let mut counts = vec![0u64; pooled.len()];
        for _ in 0..100_000 {
            let k = rng.binomial_with(30, &p, tables) as usize;
            counts[k.saturating_sub(17).min(pooled.len() - 1)] += 1;
        }
        let chi2 = chi_square(&counts, &pooled);
        assert!(chi2 < 34.528_178_974_870_89, "χ² = {chi2}: {counts:?}");
    }
}

#[test]
fn tables_give_the_same_draws() {
    // Both ways compute the same probabilities up to rounding, so from the same generator
    // state they return the same value unless a uniform lands within ~1e-12 of a cumulative
    // probability: not once in these 200,000 draws.
    let tables = BinomialTables::new(12_279);
    for (n, p) in [(12_279u64, 0.37), (614, 0.6), (40, 0.05), (12_279, 0.999)] {
        let prepared = Binomial::new(p);
        let mut a = SplitMix64::new(n);
        let mut b = SplitMix64::new(n);
        for _ in 0..50_000 {
            assert_eq!(
                a.binomial(n, p),
                b.binomial_with(n, &prepared, tables.as_ref())
            );
        }
    }
    // Beyond the tables' range draws compute (no panic, same answer).
    let small = BinomialTables::new(10);
    let mut a = SplitMix64::new(1);
    let mut b = SplitMix64::new(1);
    assert_eq!(
        a.binomial(500, 0.4),
        b.binomial_with(500, &Binomial::new(0.4), small.as_ref())
    );
    assert!(BinomialTables::new(BinomialTables::MAX_TRIALS + 1).is_none());
}

#[test]
fn binomial_moments_at_benchmark_scale() {
    // Bin(n, p) has mean np and variance np(1 − p) (by hand). 20,000 draws: the sample mean
    // has standard error √(np(1−p)/20000) and the sample variance a relative standard error
    // of about √(2/20000) = 1%.
    for (n, p, seed) in [
        (12_279u64, 0.37, 1u64),
        (12_279, 0.999, 2),
        (1_000_000, 0.01, 3),
        (5, 0.5, 4),
    ] {
        let draws = 20_000;
        let mut rng = SplitMix64::new(seed);
        let xs: Vec<f64> = (0..draws).map(|_| rng.binomial(n, p) as f64).collect();
        let mean = xs.iter().sum::<f64>() / draws as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (draws - 1) as f64;
        let (m, v) = (n as f64 * p, n as f64 * p * (1.0 - p));
        assert_close(mean, m, 5.0 * (v / draws as f64).sqrt());
        assert_close(var / v, 1.0, 0.05);
    }
}

#[test]
fn binomial_edge_cases() {
    let mut rng = SplitMix64::new(0);
    assert_eq!(rng.binomial(0, 0.5), 0);
    assert_eq!(rng.binomial(10, 0.0), 0);
    assert_eq!(rng.binomial(10, -1.0), 0);
    assert_eq!(rng.binomial(10, f64::NAN), 0);
    assert_eq!(rng.binomial(10, 1.0), 10);
    assert_eq!(rng.binomial(10, 7.0), 10);
    // 2⁶⁴ − 1 trials of p = 10⁻¹⁸: mean ≈ 18.4, sd ≈ 4.3; it terminates and stays near.
    assert!(rng.binomial(u64::MAX, 1e-18) < 60);
    assert!(rng.binomial(1, 0.5) <= 1);
}
