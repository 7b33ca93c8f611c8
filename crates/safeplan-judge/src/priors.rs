//! What real play does with each kind of object: counts learned from unlabelled TEACh
//! games, for what a rule cannot know.
//!
//! A rule can tell that a placement was undone; it cannot tell that nobody ever puts a pot
//! *on* a house plant (they pour it into one). [`Priors`] count, for each object class
//! (the name without its instance number: `Tomato2` → `Tomato`), how often real players
//! used it with each verb as the object (`PickUp('Mug')`) and as the target
//! (`PutAOnB(_, 'Sink')`). They are learned from sequences only — no labels — by
//! `safeplan priors EPISODES --out FILE`, and the state judge ships with the counts of the
//! 2,196 unlabelled games of `teach/episodes.jsonl.gz` (`data/teach-priors.json`, which a
//! test re-learns from the corpus and compares).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use crate::teach::{TeachAction, TeachVerb, parse_teach};

/// How many uses of a class in a role make "never with this verb" evidence, not chance.
pub const MIN_EVIDENCE: u64 = 10;

/// Verb counts of one object class, by role.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Uses {
    /// Times the class was the first argument, by verb.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub object: BTreeMap<String, u64>,
    /// Times the class was the second argument (where something is put or poured), by verb.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub target: BTreeMap<String, u64>,
}

/// Counts of how real play uses each object class (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Priors {
    /// Sequences counted.
    pub episodes: usize,
    /// Steps counted (every step, motion included).
    pub actions: usize,
    /// Each class's uses.
    pub classes: BTreeMap<String, Uses>,
}

/// The class of an object name: the name without trailing digits (`Tomato2` → `Tomato`).
pub fn object_class(name: &str) -> &str {
    let class = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if class.is_empty() { name } else { class }
}

/// The verb's name in the counts: the TEACh spelling of the canonical verb.
pub fn verb_name(verb: &TeachVerb) -> &str {
    match verb {
        TeachVerb::Move => "Move",
        TeachVerb::Turn => "Turn",
        TeachVerb::PickUp => "PickUp",
        TeachVerb::Put => "PutAOnB",
        TeachVerb::Pour => "PourFromAIntoB",
        TeachVerb::ToggleOn => "ToggleOn",
        TeachVerb::ToggleOff => "ToggleOff",
        TeachVerb::Open => "Open",
        TeachVerb::Close => "Close",
        TeachVerb::Slice => "Slice",
        TeachVerb::Other(v) => v,
    }
}

/// The shipped counts, learned from `teach/episodes.jsonl.gz`.
const TEACH_PRIORS: &str = include_str!("../data/teach-priors.json");

impl Priors {
    /// Count the uses in `sequences` (steps that do not parse as TEACh steps are counted
    /// as steps and otherwise ignored).
    pub fn learn<'a, I, S>(sequences: I) -> Priors
    where
        I: IntoIterator<Item = &'a [S]>,
        S: AsRef<str> + 'a,
    {
        let mut priors = Priors::default();
        for sequence in sequences {
            priors.episodes += 1;
            for step in sequence {
                priors.actions += 1;
                let Some(a) = parse_teach(step.as_ref()) else {
                    continue;
                };
                if a.is_motion() {
                    continue;
                }
                let verb = verb_name(&a.verb).to_string();
                if let Some(x) = a.object() {
                    let uses = priors
                        .classes
                        .entry(object_class(x).to_string())
                        .or_default();
                    *uses.object.entry(verb.clone()).or_default() += 1;
                }
                if let Some(t) = a.target() {
                    let uses = priors
                        .classes
                        .entry(object_class(t).to_string())
                        .or_default();
                    *uses.target.entry(verb).or_default() += 1;
                }
            }
        }
        priors
    }

    /// The counts shipped with the crate (learned from the 2,196 unlabelled TEACh games),
    /// parsed once.
    pub fn teach() -> Arc<Priors> {
        static SHIPPED: OnceLock<Arc<Priors>> = OnceLock::new();
        SHIPPED
            .get_or_init(|| Arc::new(serde_json::from_str(TEACH_PRIORS).unwrap_or_default()))
            .clone()
    }

    /// Times `class` was the target of `verb`, and of any verb.
    pub fn as_target(&self, class: &str, verb: &str) -> (u64, u64) {
        self.classes.get(class).map_or((0, 0), |u| {
            (
                u.target.get(verb).copied().unwrap_or(0),
                u.target.values().sum(),
            )
        })
    }

    /// Times `class` was the object of `verb`, and of any verb.
    pub fn as_object(&self, class: &str, verb: &str) -> (u64, u64) {
        self.classes.get(class).map_or((0, 0), |u| {
            (
                u.object.get(verb).copied().unwrap_or(0),
                u.object.values().sum(),
            )
        })
    }

    /// Whether real players switch on objects of this name's class (at least
    /// [`MIN_EVIDENCE`] times): an appliance, which acts on what is put on it.
    pub fn is_appliance(&self, name: &str) -> bool {
        self.as_object(object_class(name), "ToggleOn").0 >= MIN_EVIDENCE
    }

    /// Why real play says `action` is not what the player meant, if it does: a verb never
    /// used on a class that real players used at least [`MIN_EVIDENCE`] times in that role
    /// with other verbs. Also the step the player probably meant, when one verb with the
    /// same arguments is the class's usual use in that role (a put on a house plant is a
    /// pour into it).
    pub fn unseen_use(&self, action: &TeachAction, text: &str) -> Option<(String, Option<String>)> {
        let verb = verb_name(&action.verb);
        if action.is_motion() || matches!(action.verb, TeachVerb::Other(_)) {
            return None;
        }
        if let Some(t) = action.target() {
            let class = object_class(t);
            let (seen, total) = self.as_target(class, verb);
            if seen == 0 && total >= MIN_EVIDENCE {
                let meant = match action.verb {
                    TeachVerb::Put => Some(("PourFromAIntoB", "PutAOnB")),
                    TeachVerb::Pour => Some(("PutAOnB", "PourFromAIntoB")),
                    _ => None,
                }
                .filter(|(other, _)| self.as_target(class, other).0 >= MIN_EVIDENCE)
                .map(|(other, this)| text.replacen(this, other, 1))
                .filter(|fixed| fixed != text);
                let why = format!(
                    "in {} real games nobody uses {verb} on {class} ({total} other uses): this step is not what the player meant",
                    self.episodes
                );
                return Some((why, meant));
            }
        }
        let x = action.object()?;
        let class = object_class(x);
        let (seen, total) = self.as_object(class, verb);
        (seen == 0 && total >= MIN_EVIDENCE).then(|| {
            (
                format!(
                    "in {} real games nobody uses {verb} on {class} ({total} other uses): this step is not what the player meant",
                    self.episodes
                ),
                None,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_drop_instance_numbers_only() {
        assert_eq!(object_class("Tomato2"), "Tomato");
        assert_eq!(object_class("Mug"), "Mug");
        assert_eq!(object_class("42"), "42");
    }

    #[test]
    fn a_put_on_what_is_only_ever_poured_into_is_a_substituted_pour() {
        let plays: Vec<Vec<String>> = (0..12)
            .map(|_| {
                vec![
                    "Driver.PickUp('Cup')".to_string(),
                    "Driver.PourFromAIntoB('Cup', 'HousePlant')".to_string(),
                    "Driver.PutAOnB('Cup', 'Shelf2')".to_string(),
                ]
            })
            .collect();
        let priors = Priors::learn(plays.iter().map(Vec::as_slice));
        assert_eq!(priors.episodes, 12);
        assert_eq!(priors.as_target("HousePlant", "PourFromAIntoB"), (12, 12));
        assert_eq!(priors.as_target("Shelf", "PutAOnB"), (12, 12));
        let text = "Driver.PutAOnB('Pot', 'HousePlant')";
        let step = parse_teach(text).expect("a step");
        let (_, meant) = priors.unseen_use(&step, text).expect("never seen");
        assert_eq!(
            meant.as_deref(),
            Some("Driver.PourFromAIntoB('Pot', 'HousePlant')")
        );
        // Seen uses, and classes with too little evidence, are not flagged.
        let seen = "Driver.PutAOnB('Pot', 'Shelf')";
        assert!(
            priors
                .unseen_use(&parse_teach(seen).expect("a step"), seen)
                .is_none()
        );
        let rare = "Driver.PutAOnB('Pot', 'Sofa')";
        assert!(
            priors
                .unseen_use(&parse_teach(rare).expect("a step"), rare)
                .is_none()
        );
    }
}
