//! Cross-validation: a judge's figure on episodes its settings were not chosen on.
//!
//! A judge with settings (which [`StateRule`](crate::StateRule)s to apply, later priors or
//! thresholds) scores well on the episodes the settings were chosen on and worse on
//! others; a figure measured on the former says little. [`cross_validate`] splits the
//! labelled episodes into `k` folds **by game** — the part of the id before the first `_`,
//! so the noisy variants of one TEACh game never straddle a training and a test fold —
//! fits the judge on the other folds, runs the whole loop on the held-out one, and pools
//! the held-out counts. A judge without settings (`rule`, an LLM) is "fitted" by returning
//! itself, and its cross-validated figure is simply its figure, fold by fold.
//!
//! Intervals are percentile bootstraps over **games** (a cluster bootstrap): resampling
//! episodes would treat the variants of one game as independent evidence.
//!
//! What cross-validation cannot undo: a rule *written* while reading every labelled
//! episode has seen the test folds too. Reports say so (the house rule in docs/JUDGE.md).

use std::collections::BTreeMap;
use std::sync::Arc;

use safeplan_metrics::{BootstrapOptions, Confusion, PrfRates};
use serde::{Deserialize, Serialize};

use crate::episode::LabelledEpisode;
use crate::error::JudgeError;
use crate::refine::{Judge, RefineOptions, Refiner, Reviser};
use crate::score::{EpisodeScore, score_episode};

/// The game an episode belongs to: its id up to the first `_` (TEACh ids are
/// `<game hash>_<variant>`), or the whole id.
pub fn game_of(id: &str) -> &str {
    id.split_once('_').map_or(id, |(game, _)| game)
}

/// How a cross-validation is run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CvOptions {
    /// Number of folds (at least 2, at most the number of labelled games).
    pub folds: usize,
    /// Seed of the fold assignment.
    pub seed: u64,
    /// The intervals' bootstrap (resamples games).
    pub bootstrap: BootstrapOptions,
}

impl Default for CvOptions {
    fn default() -> Self {
        CvOptions {
            folds: 5,
            seed: 0,
            bootstrap: BootstrapOptions::default(),
        }
    }
}

/// The fold of each episode (`0..folds`), by game: games are ordered by a hash of the
/// seed and the game, and each goes to the fold with the fewest episodes so far (the
/// lowest such fold on a tie). Deterministic for a seed, and balanced in episodes.
pub fn assign_folds(ids: &[&str], folds: usize, seed: u64) -> Result<Vec<usize>, JudgeError> {
    let mut games: BTreeMap<&str, usize> = BTreeMap::new();
    for id in ids {
        *games.entry(game_of(id)).or_default() += 1;
    }
    if folds < 2 || folds > games.len() {
        return Err(JudgeError::Folds {
            folds,
            games: games.len(),
        });
    }
    let mut order: Vec<(&str, usize)> = games.into_iter().collect();
    order.sort_by_key(|(game, _)| (fnv1a(seed, game), *game));
    let mut size = vec![0usize; folds];
    let mut fold_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (game, n) in order {
        let k = (0..folds).min_by_key(|&k| (size[k], k)).unwrap_or(0);
        size[k] += n;
        fold_of.insert(game, k);
    }
    Ok(ids
        .iter()
        .map(|id| fold_of.get(game_of(id)).copied().unwrap_or(0))
        .collect())
}

/// FNV-1a over the seed's bytes and the text: stable across platforms and releases,
/// unlike the standard library's hasher.
fn fnv1a(seed: u64, text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.to_le_bytes().iter().chain(text.as_bytes()) {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A judge fitted on training episodes, and its settings in words (for the report).
pub struct Fitted {
    /// The judge to run on the held-out fold.
    pub judge: Arc<dyn Judge>,
    /// What was chosen, e.g. the rules kept; empty for a judge without settings.
    pub settings: String,
}

/// Micro precision, recall and F1 of a set of counts, with the counts: the metrics crate's
/// one record of them.
pub type Figures = safeplan_metrics::PrfCounts;

/// One held-out fold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FoldResult {
    /// The fold (0-based).
    pub fold: usize,
    /// Games held out.
    pub games: usize,
    /// Labelled episodes held out.
    pub episodes: usize,
    /// The settings fitted on the other folds.
    pub settings: String,
    /// The held-out figures.
    pub figures: Figures,
}

/// An episode's held-out score and its fold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldOut {
    /// The fold it was held out in.
    pub fold: usize,
    /// Its score by the judge fitted on the other folds.
    pub score: EpisodeScore,
}

/// What [`cross_validate`] measured (`cv.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CrossValidation {
    /// The judge's name.
    pub judge: String,
    /// How it was run.
    pub options: CvOptions,
    /// Labelled episodes and games used.
    pub episodes: usize,
    /// Distinct games.
    pub games: usize,
    /// Each fold's figures.
    pub folds: Vec<FoldResult>,
    /// Every held-out episode pooled.
    pub pooled: PrfRates,
    /// Each episode's held-out score, in input order.
    pub per_episode: Vec<HeldOut>,
}

/// Cross-validate a judge over the labelled episodes (those without gold are left out):
/// for each fold, `fit` sees only the other folds' episodes, and the loop of its judge
/// and `reviser` runs on the held-out fold. `refine` gives the loop's rounds and
/// concurrency.
pub async fn cross_validate<F>(
    episodes: &[LabelledEpisode],
    fit: F,
    reviser: Arc<dyn Reviser>,
    refine: RefineOptions,
    options: CvOptions,
) -> Result<CrossValidation, JudgeError>
where
    F: Fn(&[&LabelledEpisode]) -> Fitted,
{
    let labelled: Vec<&LabelledEpisode> = episodes.iter().filter(|l| l.gold.is_some()).collect();
    let ids: Vec<&str> = labelled.iter().map(|l| l.episode.id.as_str()).collect();
    let fold_of = assign_folds(&ids, options.folds, options.seed)?;
    let mut per_episode: Vec<Option<HeldOut>> = vec![None; labelled.len()];
    let mut folds = Vec::with_capacity(options.folds);
    let mut judge_name = String::new();
    for fold in 0..options.folds {
        let training: Vec<&LabelledEpisode> = labelled
            .iter()
            .zip(&fold_of)
            .filter(|(_, k)| **k != fold)
            .map(|(l, _)| *l)
            .collect();
        let held: Vec<usize> = (0..labelled.len())
            .filter(|&i| fold_of[i] == fold)
            .collect();
        let fitted = fit(&training);
        judge_name = fitted.judge.name();
        let refiner = Refiner::new(fitted.judge, reviser.clone(), refine.clone());
        let test: Vec<_> = held.iter().map(|&i| labelled[i].episode.clone()).collect();
        let refined = refiner.refine_all(&test, |_, _| {}).await;
        let mut total = Confusion::default();
        let mut games: Vec<&str> = Vec::new();
        for (&i, r) in held.iter().zip(&refined) {
            let Some(gold) = labelled[i].gold.as_ref() else {
                continue;
            };
            let score = score_episode(r, gold);
            total += score.remove;
            games.push(game_of(&labelled[i].episode.id));
            per_episode[i] = Some(HeldOut { fold, score });
        }
        games.sort_unstable();
        games.dedup();
        folds.push(FoldResult {
            fold,
            games: games.len(),
            episodes: held.len(),
            settings: fitted.settings,
            figures: total.into(),
        });
    }
    let per_episode: Vec<HeldOut> = per_episode.into_iter().flatten().collect();
    let mut by_game: BTreeMap<&str, Confusion> = BTreeMap::new();
    for h in &per_episode {
        *by_game.entry(game_of(&h.score.id)).or_default() += h.score.remove;
    }
    let clusters: Vec<Confusion> = by_game.values().copied().collect();
    let pooled = PrfRates::micro(&clusters, &options.bootstrap);
    Ok(CrossValidation {
        judge: judge_name,
        options,
        episodes: per_episode.len(),
        games: clusters.len(),
        folds,
        pooled,
        per_episode,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_never_straddle_folds_and_folds_balance() {
        let ids = [
            "a_1", "a_2", "a_3", "b_1", "c_1", "c_2", "d_1", "e_1", "e_2", "f",
        ];
        let folds = assign_folds(&ids, 3, 7).expect("6 games, 3 folds");
        for (i, x) in ids.iter().enumerate() {
            for (j, y) in ids.iter().enumerate() {
                if game_of(x) == game_of(y) {
                    assert_eq!(folds[i], folds[j], "{x} and {y}");
                }
            }
        }
        let mut size = [0; 3];
        for k in &folds {
            size[*k] += 1;
        }
        // 10 episodes in games of 3,1,2,1,2,1: a greedy fill leaves at most a game's size apart.
        assert!(size.iter().max().unwrap_or(&0) - size.iter().min().unwrap_or(&0) <= 3);
        assert_eq!(folds, assign_folds(&ids, 3, 7).expect("same again"));
    }

    #[test]
    fn too_few_games_or_folds_is_an_error() {
        assert!(matches!(
            assign_folds(&["a_1", "a_2"], 2, 0),
            Err(JudgeError::Folds { folds: 2, games: 1 })
        ));
        assert!(matches!(
            assign_folds(&["a_1", "b_1"], 1, 0),
            Err(JudgeError::Folds { folds: 1, games: 2 })
        ));
    }
}
