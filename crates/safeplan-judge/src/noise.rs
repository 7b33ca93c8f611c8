//! Labelled synthetic noise on real games: the four kinds of noise the plan verification
//! paper's authors injected, put into unlabelled human TEACh sequences at known places, so
//! a judge can be measured on games its rules were never written against.
//!
//! Each injected episode is a real game with one piece of noise added and gold labels that
//! say exactly where it is. Precision on such a set counts every flag on a *human* step as
//! false, as the TEACh labels do (they mark only injected noise), so it is a lower bound of
//! what a player would call a wrong flag. The set is generated, never mixed with the gold
//! dev split.
//!
//! - [`NoiseKind::IrrelevantPickUp`]: a pick-up of an object class the game never handles
//!   and the goal never names, put on a receptacle the game never uses, where the hands are
//!   empty.
//! - [`NoiseKind::WrongPlacement`]: right after a pick-up, the object put on a receptacle
//!   (furniture, not an appliance) the game never uses and picked up again (the recovery); like the authors' labels, the
//!   wrong placement and the re-pick-up are gold, the first pick-up and the wrong placement
//!   an accepted alternative.
//! - [`NoiseKind::ExtraMotion`]: two half turns inserted between steps that are not turns.
//! - [`NoiseKind::SubstitutedAction`]: a put replaced by a pour or a pour by a put, where
//!   real play ([`Priors`]) never uses the new verb on the target, or a pick-up of an object
//!   the game then puts or pours replaced by a pick-up of one the game never handles; gold
//!   REMOVE is the substituted step and gold MISSING the original.

use serde::{Deserialize, Serialize};

use safeplan_metrics::rng::SplitMix64;

use crate::episode::{Episode, Gold, LabelledEpisode};
use crate::priors::{MIN_EVIDENCE, Priors, object_class};
use crate::teach::{GoalWords, TeachVerb, parse_teach};

/// A kind of injected noise (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoiseKind {
    /// An irrelevant pick-up and placement.
    IrrelevantPickUp,
    /// A wrong placement followed by a recovery pick-up.
    WrongPlacement,
    /// Extra turns that cancel.
    ExtraMotion,
    /// A put or pour replaced by the other.
    SubstitutedAction,
}

impl NoiseKind {
    /// Every kind.
    pub const ALL: [NoiseKind; 4] = [
        NoiseKind::IrrelevantPickUp,
        NoiseKind::WrongPlacement,
        NoiseKind::ExtraMotion,
        NoiseKind::SubstitutedAction,
    ];

    /// The kind's name, as in ids and JSON.
    pub fn name(self) -> &'static str {
        match self {
            NoiseKind::IrrelevantPickUp => "irrelevant-pick-up",
            NoiseKind::WrongPlacement => "wrong-placement",
            NoiseKind::ExtraMotion => "extra-motion",
            NoiseKind::SubstitutedAction => "substituted-action",
        }
    }
}

/// Classes real players pick up (for the irrelevant object) or put things on (for the wrong
/// receptacle) often enough to be ordinary, in name order. Receptacles are furniture, not
/// appliances: every one of the 20 wrong placements in the dev split's noise is on furniture
/// (a shelf, a table, a chair, the floor), and an appliance acts on what is put on it.
fn common(priors: &Priors, target: bool) -> Vec<&str> {
    priors
        .classes
        .iter()
        .filter(|(c, _)| !(target && priors.is_appliance(c)))
        .filter(|(_, u)| {
            let n = if target {
                u.target.get("PutAOnB")
            } else {
                u.object.get("PickUp")
            };
            n.copied().unwrap_or(0) >= 5 * MIN_EVIDENCE
        })
        .map(|(c, _)| c.as_str())
        .collect()
}

/// Positions `p` (insert before step `p`) where the agent's hands are empty.
fn empty_handed(actions: &[String]) -> Vec<usize> {
    let mut held = false;
    let mut out = Vec::new();
    for (p, a) in actions.iter().enumerate() {
        if !held {
            out.push(p);
        }
        match parse_teach(a).map(|a| a.verb) {
            Some(TeachVerb::PickUp) => held = true,
            Some(TeachVerb::Put) => held = false,
            _ => {}
        }
    }
    if !held {
        out.push(actions.len());
    }
    out
}

fn pick<'a, T>(rng: &mut SplitMix64, items: &'a [T]) -> Option<&'a T> {
    if items.is_empty() {
        None
    } else {
        items.get(rng.below(items.len() as u64) as usize)
    }
}

/// Inject one piece of noise of `kind` into `episode` (its actions are taken as clean), or
/// `None` when the game has no place for it (no pick-up to misplace, no put or pour to
/// substitute). Deterministic for a seed; the id gets `~kind` appended.
pub fn inject(
    episode: &Episode,
    kind: NoiseKind,
    priors: &Priors,
    seed: u64,
) -> Option<LabelledEpisode> {
    let mut rng = SplitMix64::new(seed);
    let actions = &episode.actions;
    let handled: Vec<String> = actions
        .iter()
        .filter_map(|a| parse_teach(a))
        .flat_map(|a| a.objects)
        .map(|o| object_class(&o).to_string())
        .collect();
    let mut context = episode.goal.clone();
    for line in &episode.dialogue {
        context.push(' ');
        context.push_str(line);
    }
    let goal = GoalWords::new(&context);
    let unused = |classes: Vec<&str>| -> Vec<String> {
        classes
            .into_iter()
            .filter(|c| !handled.iter().any(|h| h == c) && !goal.mentions(c))
            .map(String::from)
            .collect()
    };
    let mut noisy = actions.clone();
    let mut gold = Gold::default();
    match kind {
        NoiseKind::IrrelevantPickUp => {
            let object = pick(&mut rng, &unused(common(priors, false)))?.clone();
            let on = pick(&mut rng, &unused(common(priors, true)))?.clone();
            let p = *pick(&mut rng, &empty_handed(actions))?;
            noisy.splice(
                p..p,
                [
                    format!("Driver.PickUp('{object}')"),
                    format!("Driver.PutAOnB('{object}', '{on}')"),
                ],
            );
            gold.remove = vec![p, p + 1];
        }
        NoiseKind::WrongPlacement => {
            let pickups: Vec<(usize, String)> = actions
                .iter()
                .enumerate()
                .filter_map(|(i, a)| {
                    let a = parse_teach(a)?;
                    let object = a.object()?.to_string();
                    (a.verb == TeachVerb::PickUp).then_some((i, object))
                })
                .collect();
            let (i, object) = pick(&mut rng, &pickups)?.clone();
            let on = pick(&mut rng, &unused(common(priors, true)))?.clone();
            noisy.splice(
                i + 1..i + 1,
                [
                    format!("Driver.PutAOnB('{object}', '{on}')"),
                    format!("Driver.PickUp('{object}')"),
                ],
            );
            gold.remove = vec![i + 1, i + 2];
            gold.remove_alts = vec![vec![i, i + 1]];
        }
        NoiseKind::ExtraMotion => {
            let is_turn = |k: usize| {
                actions
                    .get(k)
                    .and_then(|a| parse_teach(a))
                    .is_some_and(|a| a.verb == TeachVerb::Turn)
            };
            let places: Vec<usize> = (1..actions.len())
                .filter(|&p| !is_turn(p - 1) && !is_turn(p))
                .collect();
            let p = *pick(&mut rng, &places)?;
            noisy.splice(
                p..p,
                [
                    "Driver.TurnLeft(180.0)".to_string(),
                    "Driver.TurnLeft(180.0)".to_string(),
                ],
            );
            gold.remove = vec![p, p + 1];
        }
        NoiseKind::SubstitutedAction => {
            let swaps: Vec<(usize, String)> = actions
                .iter()
                .enumerate()
                .filter_map(|(i, text)| {
                    let a = parse_teach(text)?;
                    let (from, to) = match a.verb {
                        TeachVerb::Put => ("PutAOnB", "PourFromAIntoB"),
                        TeachVerb::Pour => ("PourFromAIntoB", "PutAOnB"),
                        _ => return None,
                    };
                    let class = object_class(a.target()?);
                    let (seen, total) = priors.as_target(class, to);
                    (seen == 0 && total >= MIN_EVIDENCE && text.contains(from))
                        .then(|| (i, text.replacen(from, to, 1)))
                })
                .collect();
            // Or a pick-up of the wrong object: one the game never handles, in place of
            // an object the game then puts or pours.
            let stranger = pick(&mut rng, &unused(common(priors, false))).cloned();
            let mut swaps = swaps;
            for (i, text) in actions.iter().enumerate() {
                let Some(a) = parse_teach(text).filter(|a| a.verb == TeachVerb::PickUp) else {
                    continue;
                };
                let (Some(x), Some(y)) = (a.object(), stranger.as_deref()) else {
                    continue;
                };
                let next = actions[i + 1..]
                    .iter()
                    .filter_map(|t| parse_teach(t))
                    .find(|b| {
                        matches!(b.verb, TeachVerb::PickUp | TeachVerb::Put | TeachVerb::Pour)
                    });
                if next.is_some_and(|b| b.verb != TeachVerb::PickUp && b.object() == Some(x)) {
                    swaps.push((i, text.replacen(x, y, 1)));
                }
            }
            let (i, swapped) = pick(&mut rng, &swaps)?.clone();
            gold.missing = vec![actions[i].clone()];
            gold.missing_after = vec![i as i64 - 1];
            noisy[i] = swapped;
            gold.remove = vec![i];
        }
    }
    gold.clean_actions = Some(actions.clone());
    // Dialogue lines keep their place among the steps: after an insertion of k steps at p,
    // a line that came before step p or later now comes k steps later.
    let inserted = noisy.len() - actions.len();
    let at = gold.remove.first().copied().unwrap_or(0);
    let dialogue_at = episode
        .dialogue_at
        .iter()
        .map(|&d| if d >= at { d + inserted } else { d })
        .collect();
    Some(LabelledEpisode {
        episode: Episode {
            id: format!("{}~{}", episode.id, kind.name()),
            actions: noisy,
            dialogue_at,
            ..episode.clone()
        },
        gold: Some(gold),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> Episode {
        Episode {
            id: "g_1".into(),
            goal: "Put the mug in the sink.".into(),
            actions: vec![
                "Driver.Move(1.0)".into(),
                "Driver.PickUp('Mug')".into(),
                "Driver.TurnLeft(90.0)".into(),
                "Driver.PutAOnB('Mug', 'Sink')".into(),
            ],
            ..Episode::default()
        }
    }

    fn priors() -> Priors {
        let plays: Vec<Vec<String>> = (0..60)
            .map(|_| {
                vec![
                    "Driver.PickUp('Apple')".into(),
                    "Driver.PutAOnB('Apple', 'Shelf')".into(),
                    "Driver.PickUp('Mug')".into(),
                    "Driver.PutAOnB('Mug', 'Sink')".into(),
                ]
            })
            .collect();
        Priors::learn(plays.iter().map(Vec::as_slice))
    }

    #[test]
    fn each_kind_lands_where_its_labels_say() {
        let p = priors();
        let g = game();
        let irr = inject(&g, NoiseKind::IrrelevantPickUp, &p, 1).expect("a place");
        let gold = irr.gold.as_ref().expect("gold");
        let at = gold.remove[0];
        assert_eq!(irr.episode.actions[at], "Driver.PickUp('Apple')");
        assert_eq!(
            irr.episode.actions[at + 1],
            "Driver.PutAOnB('Apple', 'Shelf')"
        );
        // Only where the hands are empty: before the pick-up of the mug or after its put.
        assert!(at <= 1 || at == 4, "{at}");

        let wrong = inject(&g, NoiseKind::WrongPlacement, &p, 1).expect("a pick-up");
        assert_eq!(
            &wrong.episode.actions[2..4],
            ["Driver.PutAOnB('Mug', 'Shelf')", "Driver.PickUp('Mug')"]
        );
        assert_eq!(
            wrong.gold.as_ref().map(|g| g.remove.clone()),
            Some(vec![2, 3])
        );

        let turns = inject(&g, NoiseKind::ExtraMotion, &p, 1).expect("a gap");
        let at = turns.gold.as_ref().expect("gold").remove[0];
        assert_eq!(at, 1, "the only gap between two steps that are not turns");
        // Sink is a put target and never a pour target in these plays: put -> pour; or the
        // pick-up of the mug becomes a pick-up of an apple, which the game never handles.
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..16 {
            let sub = inject(&g, NoiseKind::SubstitutedAction, &p, seed).expect("a swap");
            let gold = sub.gold.as_ref().expect("gold");
            let i = gold.remove[0];
            assert_eq!(gold.missing, vec![g.actions[i].clone()]);
            let swapped = sub.episode.actions[i].clone();
            assert!(
                (i, swapped.as_str()) == (3, "Driver.PourFromAIntoB('Mug', 'Sink')")
                    || (i, swapped.as_str()) == (1, "Driver.PickUp('Apple')"),
                "{i} {swapped}"
            );
            seen.insert(i);
        }
        assert_eq!(seen.len(), 2, "both substitutions occur");

        // Written as a JSONL line and read back, nothing is lost.
        let line = wrong.to_json().to_string();
        let back = crate::read_episodes(&line, None).expect("a valid line");
        assert_eq!(back[0].episode.id, "g_1~wrong-placement");
        assert_eq!(back[0].episode.actions, wrong.episode.actions);
        assert_eq!(back[0].gold, wrong.gold);
    }
}
