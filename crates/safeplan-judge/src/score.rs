//! Scoring a loop's output against gold labels: micro P/R/F1 over original indices and the
//! convergence curve, as the plan verification paper reports them.

use safeplan_metrics::{Confusion, PrfCounts};
use serde::{Deserialize, Serialize};

use crate::episode::Gold;
use crate::plan::CritiqueKind;
use crate::refine::Refinement;
use crate::teach::{name_words, parse_teach};

/// One episode's detection counts: what the loop flagged and inserted against the gold
/// labels. Counts, not ratios, so episodes add up into micro-averaged precision and recall.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpisodeScore {
    /// The episode id.
    pub id: String,
    /// Flagged original indices against the gold `remove` set (or the `remove_alts`
    /// alternative that scores best).
    pub remove: Confusion,
    /// Which gold set was used: 0 for `remove`, k for `remove_alts[k - 1]`.
    pub gold_set: usize,
    /// Inserted steps against the gold `missing` steps, matched loosely (same verb and
    /// first argument for TEACh steps, the same text otherwise).
    pub missing: Confusion,
    /// The drill-down: every original step that was flagged or is gold REMOVE (in the
    /// gold set that counted), in order, with its outcome and the judge's reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepOutcome>,
}

/// What became of one original step that was flagged or should have been.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepOutcome {
    /// Its 0-based index in the original sequence.
    pub index: usize,
    /// Its text.
    pub text: String,
    /// `tp` (flagged, gold), `fp` (flagged, not gold) or `fn` (gold, not flagged).
    pub outcome: Outcome,
    /// The reason of the REMOVE critique that dropped it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A step's detection outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Flagged and gold.
    Tp,
    /// Flagged, not gold.
    Fp,
    /// Gold, not flagged.
    Fn,
}

/// The reason each original step was removed for: the REMOVE critique of the round that
/// dropped it, found through the steps' provenance.
fn removal_reasons(refinement: &Refinement) -> std::collections::BTreeMap<usize, String> {
    let mut out = std::collections::BTreeMap::new();
    for round in &refinement.rounds {
        for c in &round.judgement.critiques {
            if c.kind != CritiqueKind::Remove {
                continue;
            }
            if let Some(i) = c
                .index
                .and_then(|k| round.plan.steps.get(k))
                .and_then(|s| s.original())
            {
                out.entry(i).or_insert_with(|| c.reason.clone());
            }
        }
    }
    out
}

/// Score one refinement. Gold alternatives are accepted: of `remove` and each of
/// `remove_alts`, the one giving the most true positives, then the fewest errors, counts
/// (`remove` wins ties).
pub fn score_episode(refinement: &Refinement, gold: &Gold) -> EpisodeScore {
    let flagged = refinement.flagged();
    let (remove, gold_set) = score_flags(&flagged, gold);
    let counted: &[usize] = match gold_set {
        0 => &gold.remove,
        k => gold
            .remove_alts
            .get(k - 1)
            .map_or(&gold.remove, Vec::as_slice),
    };
    let reasons = removal_reasons(refinement);
    let text = |i: usize| {
        refinement
            .rounds
            .first()
            .and_then(|r| r.plan.steps.get(i))
            .map(|s| s.text.clone())
            .unwrap_or_default()
    };
    let mut indices: Vec<usize> = flagged.iter().chain(counted).copied().collect();
    indices.sort_unstable();
    indices.dedup();
    let steps = indices
        .into_iter()
        .map(|i| StepOutcome {
            index: i,
            text: text(i),
            outcome: match (flagged.contains(&i), counted.contains(&i)) {
                (true, true) => Outcome::Tp,
                (true, false) => Outcome::Fp,
                _ => Outcome::Fn,
            },
            reason: reasons.get(&i).cloned(),
        })
        .collect();
    let inserted: Vec<String> = refinement
        .missing()
        .iter()
        .map(|s| loose_key(&s.text))
        .collect();
    let wanted: Vec<String> = gold.missing.iter().map(|s| loose_key(s)).collect();
    EpisodeScore {
        id: refinement.id.clone(),
        remove,
        gold_set,
        missing: multiset_confusion(&inserted, &wanted),
        steps,
    }
}

/// Flagged original indices against the gold REMOVE labels: the confusion and which gold
/// set counted (0 for `remove`, k for `remove_alts[k - 1]`). Of `remove` and each
/// alternative, the one giving the most true positives, then the fewest errors, counts
/// (`remove` wins ties).
pub fn score_flags(flagged: &[usize], gold: &Gold) -> (Confusion, usize) {
    let mut best = (
        Confusion::from_sets(flagged.iter().copied(), gold.remove.iter().copied()),
        0,
    );
    for (k, alt) in gold.remove_alts.iter().enumerate() {
        let c = Confusion::from_sets(flagged.iter().copied(), alt.iter().copied());
        let better = (c.tp, std::cmp::Reverse(c.fp + c.fn_))
            > (best.0.tp, std::cmp::Reverse(best.0.fp + best.0.fn_));
        if better {
            best = (c, k + 1);
        }
    }
    best
}

/// The loose identity of a step: verb and first object for TEACh steps, else the text.
fn loose_key(text: &str) -> String {
    match parse_teach(text) {
        Some(a) => format!(
            "{:?} {}",
            a.verb,
            a.object()
                .map(|o| name_words(o).join(" "))
                .unwrap_or_default()
        ),
        None => text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase(),
    }
}

fn multiset_confusion(predicted: &[String], gold: &[String]) -> Confusion {
    let mut left: Vec<&String> = gold.iter().collect();
    let mut tp = 0;
    for p in predicted {
        if let Some(k) = left.iter().position(|g| *g == p) {
            left.swap_remove(k);
            tp += 1;
        }
    }
    Confusion {
        tp,
        fp: predicted.len() as u64 - tp,
        fn_: left.len() as u64,
    }
}

/// A point of the convergence curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConvergencePoint {
    /// The round (1-based).
    pub round: usize,
    /// Episodes whose judge raised nothing in this round or an earlier one.
    pub converged: usize,
    /// `converged` over all episodes.
    pub share: f64,
}

/// The cumulative share of episodes converged by each round 1..=max_rounds.
pub fn convergence_curve(refinements: &[Refinement], max_rounds: usize) -> Vec<ConvergencePoint> {
    let n = refinements.len();
    (1..=max_rounds)
        .map(|round| {
            let converged = refinements
                .iter()
                .filter(|r| r.converged_at.is_some_and(|k| k <= round))
                .count();
            ConvergencePoint {
                round,
                converged,
                share: if n == 0 {
                    0.0
                } else {
                    converged as f64 / n as f64
                },
            }
        })
        .collect()
}

/// The figures of a judged dataset, as `metrics.json` holds them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeMetrics {
    /// Episodes scored (those with gold labels).
    pub episodes: usize,
    /// Micro precision, recall and F1 of flagged original steps, with the counts (written
    /// flat: `precision`, `recall`, `f1`, `tp`, `fp`, `fn`).
    #[serde(flatten)]
    pub flagged: PrfCounts,
    /// Inserted steps against gold `missing` (indicative only: gold MISSING is sparse).
    pub missing: Confusion,
    /// Cumulative share converged by round, over all refined episodes.
    pub convergence: Vec<ConvergencePoint>,
    /// Per-episode counts.
    pub per_episode: Vec<EpisodeScore>,
}

/// Score every refinement that has gold labels (`gold[i]` belongs to `refinements[i]`).
pub fn judge_metrics(
    refinements: &[Refinement],
    gold: &[Option<Gold>],
    max_rounds: usize,
) -> JudgeMetrics {
    let per_episode: Vec<EpisodeScore> = refinements
        .iter()
        .zip(gold)
        .filter_map(|(r, g)| g.as_ref().map(|g| score_episode(r, g)))
        .collect();
    let remove: Confusion = per_episode.iter().map(|s| s.remove).sum();
    let missing: Confusion = per_episode.iter().map(|s| s.missing).sum();
    JudgeMetrics {
        episodes: per_episode.len(),
        flagged: remove.into(),
        missing,
        convergence: convergence_curve(refinements, max_rounds),
        per_episode,
    }
}
