//! The state-tracking judge for TEACh-style action sequences.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use safeplan_metrics::Confusion;

use crate::episode::{Episode, Gold, LabelledEpisode};
use crate::error::JudgeError;
use crate::plan::{Critique, CritiqueKind, Plan};
use crate::priors::Priors;
use crate::refine::{Judge, Judgement};
use crate::score::score_flags;
use crate::teach::{GoalWords, TeachAction, TeachVerb, idle_motion, name_words, parse_teach};

/// A deterministic judge that replays a TEACh-style sequence against a small model of the
/// household — what the agent holds, where each object was put, what is switched on or
/// open — and flags steps whose effect is undone or never used:
///
/// - **placed, then picked up again** with only motion between: both steps undo each other;
/// - **placed twice without a pick-up** (or placed, then poured): the object was still in
///   hand, so the first placement contradicts the rest of the sequence;
/// - **an irrelevant pick-and-place**: an object the goal does not name, picked up and put
///   somewhere the goal does not name, with only motion between, neither it nor that
///   receptacle used again — judged only when the goal names something the episode
///   handles (a goal such as "Prepare breakfast." names nothing, so nothing is irrelevant);
/// - **a goal object left in the wrong place**: a placing goal ("Place the watch on the
///   coffee table") names the object and, after it, a receptacle of the episode, and the
///   object's last placement is elsewhere; the placement is removed and a placement on the
///   named receptacle is proposed as a concrete MISSING step;
/// - **a repeated switch**: switching on what this sequence already switched on (or off
///   what it switched off), opening what it opened, closing what it closed; opening and
///   closing with nothing taken or put between;
/// - **a filling poured away**: an object filled by the appliance it stood on (a mug on a
///   coffee machine switched on) and then poured into a sink or bathtub, and the pick-up
///   that served only that pour;
/// - **idle motion**: zero moves, whole-turn rotations, adjacent turns that cancel.
///
/// The initial state is unknown, so a first switch, opening or closing is never flagged.
/// Rules are general: they read only the structure of the sequence and the words of the
/// goal and dialogue, never object or episode lists.
///
/// Each rule can be switched off ([`StateRules`]), so that an evaluation can choose the
/// rules on training episodes and score them on held-out ones ([`StateJudge::fit`], used by
/// [`crate::cv`]); [`StateJudge::default`] runs them all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateJudge {
    /// The rules applied.
    pub rules: StateRules,
    /// What real play does with each object class, for [`StateRule::UnseenUse`].
    pub priors: Arc<Priors>,
}

impl Default for StateJudge {
    /// The default rules ([`StateRules::default`]), with the priors shipped with the crate
    /// ([`Priors::teach`]).
    fn default() -> Self {
        StateJudge {
            rules: StateRules::default(),
            priors: Priors::teach(),
        }
    }
}

/// One rule of the [`StateJudge`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StateRule {
    /// A placement undone by a pick-up of the same object with only motion between.
    UndonePlacement,
    /// A placement followed by another use of the object without a pick-up.
    StillInHand,
    /// A filling poured into a drain, and the pick-up that served only that pour.
    PouredAway,
    /// Switching on (off) what this sequence already switched on (off).
    RepeatedSwitch,
    /// Opening (closing) what was already opened (closed), or opening and closing with
    /// nothing taken out or put in.
    IdleOpenClose,
    /// An object the goal does not name, picked up, put down and never used.
    IrrelevantObject,
    /// A goal object whose last placement is not the receptacle the goal names.
    MisplacedGoalObject,
    /// Zero moves, whole turns, adjacent turns that cancel.
    IdleMotion,
    /// A put or pour of one object while another is in hand, never put down, and the first
    /// never picked up: one hand cannot hold both (real play never does this: 0 of 17,291
    /// puts), so the pick-up of the other is a substituted step; the pick-up of the object
    /// put is proposed as MISSING.
    WrongObject,
    /// A verb that real play never uses on the object's class (learned [`Priors`]): a
    /// substituted step; when the class's usual use is known (a put on a house plant is a
    /// pour into it), that step is proposed as MISSING.
    UnseenUse,
}

impl StateRule {
    /// Every rule, in a fixed order.
    pub const ALL: [StateRule; 10] = [
        StateRule::UndonePlacement,
        StateRule::StillInHand,
        StateRule::PouredAway,
        StateRule::RepeatedSwitch,
        StateRule::IdleOpenClose,
        StateRule::IrrelevantObject,
        StateRule::MisplacedGoalObject,
        StateRule::IdleMotion,
        StateRule::UnseenUse,
        StateRule::WrongObject,
    ];

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// A set of [`StateRule`]s; every rule by default. Serialised as the list of its rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "Vec<StateRule>", from = "Vec<StateRule>")]
pub struct StateRules(u16);

impl Default for StateRules {
    /// Every rule but the two that flag human habits ([`StateRules::habits`]).
    fn default() -> Self {
        StateRules::all()
            .without(StateRule::IdleMotion)
            .without(StateRule::IdleOpenClose)
    }
}

impl StateRules {
    /// Every rule.
    pub fn all() -> StateRules {
        StateRule::ALL.into_iter().collect()
    }

    /// The rules whose pattern real players produce routinely, so that a flag of theirs
    /// says little about noise: a whole-turn rotation or turns that cancel (looking around;
    /// 1,534 flags in the 2,196 unlabelled games) and an open and close with nothing taken
    /// (searching; 1,438 flags). Off by default; `state:all` turns them on.
    pub fn habits() -> StateRules {
        StateRules::none()
            .with(StateRule::IdleMotion)
            .with(StateRule::IdleOpenClose)
    }

    /// No rule.
    pub fn none() -> StateRules {
        StateRules(0)
    }

    /// Whether `rule` is in the set.
    pub fn contains(self, rule: StateRule) -> bool {
        self.0 & rule.bit() != 0
    }

    /// The set with `rule` added.
    pub fn with(self, rule: StateRule) -> StateRules {
        StateRules(self.0 | rule.bit())
    }

    /// The set with `rule` taken out.
    pub fn without(self, rule: StateRule) -> StateRules {
        StateRules(self.0 & !rule.bit())
    }

    /// The rules of the set, in [`StateRule::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = StateRule> {
        StateRule::ALL
            .into_iter()
            .filter(move |r| self.contains(*r))
    }

    /// Every subset of all rules (2¹⁰ sets), the empty set first.
    pub fn every_subset() -> impl Iterator<Item = StateRules> {
        (0..1u16 << StateRule::ALL.len()).map(StateRules)
    }

    /// Every subset of this set, the empty set first.
    pub fn subsets(self) -> impl Iterator<Item = StateRules> {
        StateRules::every_subset().filter(move |s| s.0 & !self.0 == 0)
    }

    /// Parse a comma-separated list of rule names (`undone-placement,idle-motion`), or
    /// `all`, or `default`.
    pub fn parse(list: &str) -> Result<StateRules, String> {
        match list.trim() {
            "all" => return Ok(StateRules::all()),
            "default" => return Ok(StateRules::default()),
            _ => {}
        }
        list.split(',')
            .map(|name| {
                serde_json::from_value::<StateRule>(serde_json::Value::String(
                    name.trim().to_string(),
                ))
                .map_err(|_| {
                    let known: Vec<String> = StateRule::ALL
                        .iter()
                        .filter_map(|r| serde_json::to_value(r).ok())
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect();
                    format!(
                        "unknown state rule `{}`: use all, default or a comma-separated list of {}",
                        name.trim(),
                        known.join(", ")
                    )
                })
            })
            .collect()
    }
}

impl FromIterator<StateRule> for StateRules {
    fn from_iter<I: IntoIterator<Item = StateRule>>(iter: I) -> Self {
        iter.into_iter().fold(StateRules::none(), StateRules::with)
    }
}

impl From<Vec<StateRule>> for StateRules {
    fn from(rules: Vec<StateRule>) -> Self {
        rules.into_iter().collect()
    }
}

impl From<StateRules> for Vec<StateRule> {
    fn from(rules: StateRules) -> Self {
        rules.iter().collect()
    }
}

#[async_trait]
impl Judge for StateJudge {
    fn name(&self) -> String {
        "state".into()
    }

    async fn critique(&self, episode: &Episode, plan: &Plan) -> Result<Judgement, JudgeError> {
        Ok(self.critiques(&goal_words(episode), &plan.texts()).into())
    }
}

/// What the judge reads of an episode besides its actions: the goal and the dialogue.
fn goal_words(episode: &Episode) -> GoalWords {
    let mut context = episode.goal.clone();
    for line in &episode.dialogue {
        context.push(' ');
        context.push_str(line);
    }
    GoalWords::new(&context)
}

#[derive(Clone, Debug)]
enum Last {
    Picked(usize),
    Placed { at: usize, on: String },
    Released,
}

impl StateJudge {
    /// A judge applying only `rules`.
    pub fn with_rules(rules: StateRules) -> StateJudge {
        StateJudge {
            rules,
            ..StateJudge::default()
        }
    }

    /// The judge (with these priors) whose rules flag the gold REMOVE labels of `training`
    /// best: of every subset of this judge's rules, the one with the highest micro F1 over the episodes' original
    /// actions, then the highest precision, then the most rules (a rule that never fires
    /// on the training episodes is kept: it was written from principle, not from them).
    /// Episodes without gold labels are ignored.
    ///
    /// A subset is scored on one judgement per episode, not a whole loop: the judge
    /// reports to a fixpoint, so a loop with REMOVE applied flags the same steps. This is
    /// what cross-validation ([`crate::cv`]) fits on the training folds.
    pub fn fit(&self, training: &[&LabelledEpisode]) -> StateJudge {
        let labelled: Vec<(GoalWords, Vec<&str>, &Gold)> = training
            .iter()
            .filter_map(|l| {
                let gold = l.gold.as_ref()?;
                let actions = l.episode.actions.iter().map(String::as_str).collect();
                Some((goal_words(&l.episode), actions, gold))
            })
            .collect();
        let score = |rules: StateRules| {
            let judge = StateJudge {
                rules,
                priors: self.priors.clone(),
            };
            let total: Confusion = labelled
                .iter()
                .map(|(goal, actions, gold)| {
                    let flagged: Vec<usize> = judge
                        .critiques(goal, actions)
                        .into_iter()
                        .filter(|c| c.kind == CritiqueKind::Remove)
                        .filter_map(|c| c.index)
                        .collect();
                    score_flags(&flagged, gold).0
                })
                .sum();
            (total.f1(), total.precision(), rules.iter().count())
        };
        let mut best = (self.rules, score(self.rules));
        for rules in self.rules.subsets() {
            let s = score(rules);
            if s.0 > best.1.0
                || (s.0 == best.1.0 && (s.1 > best.1.1 || (s.1 == best.1.1 && s.2 > best.1.2)))
            {
                best = (rules, s);
            }
        }
        StateJudge {
            rules: best.0,
            priors: self.priors.clone(),
        }
    }

    /// The critiques of `actions` for a goal with every rule, habits included
    /// (synchronous).
    pub fn judge(goal: &GoalWords, actions: &[&str]) -> Vec<Critique> {
        StateJudge::with_rules(StateRules::all()).critiques(goal, actions)
    }

    /// The critiques of `actions` for a goal with this judge's rules (synchronous; the
    /// [`Judge`] impl calls it).
    ///
    /// The rules are applied to a fixpoint: removing one wasted detour can expose another
    /// (a placement and re-pick-up that had a useless fridge visit between them), and the
    /// judge reports all of them at once, so a loop converges in one revision.
    pub fn critiques(&self, goal: &GoalWords, actions: &[&str]) -> Vec<Critique> {
        let mut kept: Vec<usize> = (0..actions.len()).collect();
        let mut removed: BTreeMap<usize, String> = BTreeMap::new();
        let mut missing: Vec<Critique> = Vec::new();
        loop {
            let sub: Vec<&str> = kept.iter().map(|&i| actions[i]).collect();
            let (flags, more) = self.judge_once(goal, &sub, &kept);
            for mut m in more {
                m.index = m
                    .index
                    .map(|k| kept.get(k).copied().unwrap_or(actions.len()));
                if !missing.contains(&m) {
                    missing.push(m);
                }
            }
            if flags.is_empty() {
                break;
            }
            for (k, why) in flags {
                removed.insert(kept[k], why);
            }
            kept.retain(|i| !removed.contains_key(i));
        }
        let mut out: Vec<Critique> = removed
            .into_iter()
            .map(|(i, why)| Critique::remove(i, why))
            .collect();
        out.extend(missing);
        out
    }

    /// One pass of the rules over `actions`, whose step `i` is step `pos[i]` of the plan
    /// judged (for the step numbers in reasons). REMOVE flags by index into `actions`, and
    /// MISSING critiques indexed likewise.
    fn judge_once(
        &self,
        goal: &GoalWords,
        actions: &[&str],
        pos: &[usize],
    ) -> (BTreeMap<usize, String>, Vec<Critique>) {
        let parsed: Vec<Option<TeachAction>> = actions.iter().map(|a| parse_teach(a)).collect();
        let mut flags: BTreeMap<usize, String> = BTreeMap::new();
        let rules = self.rules;
        let mut flag = |rule: StateRule, i: usize, why: String| {
            if rules.contains(rule) {
                flags.entry(i).or_insert(why);
            }
        };
        let only_motion = |from: usize, to: usize| {
            parsed[from + 1..to]
                .iter()
                .all(|a| a.as_ref().is_some_and(TeachAction::is_motion))
        };
        let mut last: HashMap<&str, Last> = HashMap::new();
        let mut held: Option<&str> = None;
        let mut switched: HashMap<&str, (bool, usize)> = HashMap::new();
        let mut opened: HashMap<&str, (bool, usize)> = HashMap::new();
        let mut filled: HashMap<&str, usize> = HashMap::new();

        let mut missing = Vec::new();
        for (i, action) in parsed.iter().enumerate() {
            let Some(a) = action else { continue };
            let Some(x) = a.object() else { continue };
            match a.verb {
                TeachVerb::PickUp => {
                    // An appliance acts on what is put on it (toasts, fills, heats) even
                    // when this sequence never switches it on: it may be on already.
                    if let Some(Last::Placed { at, on }) = last.get(x)
                        && only_motion(*at, i)
                        && !self.priors.is_appliance(on)
                    {
                        let why = format!(
                            "{x} is put on {on} at step {} and picked up again at step {} with only moves between: the two undo each other",
                            pos[*at] + 1,
                            pos[i] + 1
                        );
                        flag(StateRule::UndonePlacement, *at, why.clone());
                        flag(StateRule::UndonePlacement, i, why);
                    }
                    held = Some(x);
                    last.insert(x, Last::Picked(i));
                }
                TeachVerb::Put | TeachVerb::Pour => {
                    if let Some(y) = held
                        && y != x
                        && !matches!(last.get(x), Some(Last::Placed { .. }))
                        && let Some(Last::Picked(p)) = last.get(y)
                        && rules.contains(StateRule::WrongObject)
                    {
                        flag(
                            StateRule::WrongObject,
                            *p,
                            format!(
                                "{y} is picked up here but {x} is what step {} uses, and nothing puts {y} down: one hand cannot hold both",
                                pos[i] + 1
                            ),
                        );
                        missing.push(Critique::missing(
                            Some(*p),
                            format!("{x} has to be picked up before step {}", pos[i] + 1),
                            vec![actions[*p].replacen(y, x, 1)],
                        ));
                    }
                    if held != Some(x)
                        && let Some(Last::Placed { at, on }) = last.get(x)
                    {
                        flag(
                            StateRule::StillInHand,
                            *at,
                            format!(
                                "{x} is still in hand at step {} (used there without a pick-up), so putting it on {on} here contradicts the rest of the plan",
                                pos[i] + 1
                            ),
                        );
                    }
                    let target = a.target().unwrap_or_default();
                    if a.verb == TeachVerb::Pour {
                        if let Some(k) = filled.remove(x)
                            && is_drain(target)
                        {
                            flag(
                                StateRule::PouredAway,
                                i,
                                format!(
                                    "pouring {x} into {target} throws away what step {} filled it with",
                                    pos[k] + 1
                                ),
                            );
                            let used_later = parsed[i + 1..].iter().flatten().any(|b| b.names(x));
                            if let Some(Last::Picked(p)) = last.get(x)
                                && !used_later
                                && only_motion(*p, i)
                            {
                                flag(
                                    StateRule::PouredAway,
                                    *p,
                                    format!(
                                        "{x} is picked up only to be poured out at step {}",
                                        pos[i] + 1
                                    ),
                                );
                            }
                        }
                        last.insert(x, Last::Released);
                    } else {
                        last.insert(
                            x,
                            Last::Placed {
                                at: i,
                                on: target.to_string(),
                            },
                        );
                    }
                    held = None;
                }
                TeachVerb::ToggleOn | TeachVerb::ToggleOff => {
                    let on = a.verb == TeachVerb::ToggleOn;
                    if let Some((state, k)) = switched.get(x)
                        && *state == on
                    {
                        let word = if on { "on" } else { "off" };
                        flag(
                            StateRule::RepeatedSwitch,
                            i,
                            format!("{x} was already switched {word} at step {}", pos[*k] + 1),
                        );
                    } else {
                        switched.insert(x, (on, i));
                    }
                    if on {
                        for (obj, l) in &last {
                            if matches!(l, Last::Placed { on, .. } if on == x) {
                                filled.insert(obj, i);
                            }
                        }
                    }
                }
                TeachVerb::Open | TeachVerb::Close => {
                    let open = a.verb == TeachVerb::Open;
                    match opened.get(x) {
                        Some((state, k)) if *state == open => {
                            let word = if open { "opened" } else { "closed" };
                            flag(
                                StateRule::IdleOpenClose,
                                i,
                                format!("{x} was already {word} at step {}", pos[*k] + 1),
                            );
                        }
                        Some((true, k)) if !open && only_motion(*k, i) => {
                            let why = format!(
                                "{x} is opened at step {} and closed at step {} with nothing taken out or put in",
                                pos[*k] + 1,
                                pos[i] + 1
                            );
                            flag(StateRule::IdleOpenClose, *k, why.clone());
                            flag(StateRule::IdleOpenClose, i, why);
                            opened.insert(x, (open, i));
                        }
                        _ => {
                            opened.insert(x, (open, i));
                        }
                    }
                }
                _ => {}
            }
        }

        if self.rules.contains(StateRule::UnseenUse) {
            for (i, a) in parsed.iter().enumerate() {
                let Some(a) = a else { continue };
                if flags.contains_key(&i) {
                    continue;
                }
                if let Some((why, meant)) = self.priors.unseen_use(a, actions[i]) {
                    if let Some(step) = meant {
                        missing.push(Critique::missing(
                            Some(i),
                            format!("step {} was meant as {step}", pos[i] + 1),
                            vec![step],
                        ));
                    }
                    flags.insert(i, why);
                }
            }
        }
        irrelevant_and_misplaced(
            goal,
            &parsed,
            actions,
            pos,
            self.rules,
            &mut flags,
            &mut missing,
        );
        if self.rules.contains(StateRule::IdleMotion) {
            for (i, why) in idle_motion(&parsed) {
                flags.entry(i).or_insert(why);
            }
        }
        (flags, missing)
    }
}

/// The rules that need the whole sequence: irrelevant pick-and-place, and a goal object
/// whose last placement is not where the goal wants it.
fn irrelevant_and_misplaced(
    goal: &GoalWords,
    parsed: &[Option<TeachAction>],
    actions: &[&str],
    pos: &[usize],
    rules: StateRules,
    flags: &mut BTreeMap<usize, String>,
    missing: &mut Vec<Critique>,
) {
    // The goal is specific enough to tell what is irrelevant only when it names something
    // the episode handles; "Prepare breakfast." names nothing, and every object may serve it.
    let specific = parsed
        .iter()
        .flatten()
        .flat_map(|a| a.objects.iter())
        .any(|o| goal.mentions(o));
    // The receptacle a placing goal names: the episode object it matches with most words.
    let receptacle = parsed
        .iter()
        .flatten()
        .flat_map(|a| a.objects.iter())
        .filter(|o| {
            goal.asks_to_place()
                && goal.match_len(o) == name_words(o).len()
                && goal.match_len(o) > 0
        })
        .max_by_key(|o| goal.match_len(o))
        .cloned();
    for (j, action) in parsed.iter().enumerate() {
        let Some(a) = action else { continue };
        if a.verb != TeachVerb::Put || flags.contains_key(&j) {
            continue;
        }
        let (Some(x), Some(on)) = (a.object(), a.target()) else {
            continue;
        };
        // Used later (the object, or the receptacle it now sits in or on): not idle.
        if parsed[j + 1..]
            .iter()
            .flatten()
            .any(|b| b.names(x) || b.names(on))
            || goal.mentions(on)
        {
            continue;
        }
        if !goal.mentions(x) && specific {
            if !rules.contains(StateRule::IrrelevantObject) {
                continue;
            }
            // Irrelevant: picked up right before (only motion between), put down, never used.
            let pick = parsed[..j]
                .iter()
                .rposition(|b| b.as_ref().is_some_and(|b| b.names(x)));
            if let Some(p) = pick
                && parsed[p]
                    .as_ref()
                    .is_some_and(|b| b.verb == TeachVerb::PickUp)
                && !flags.contains_key(&p)
                && parsed[p + 1..j]
                    .iter()
                    .all(|b| b.as_ref().is_some_and(TeachAction::is_motion))
            {
                let why = format!(
                    "{x} is not part of the goal: picked up at step {} and put on {on} at step {}, it is never used",
                    pos[p] + 1,
                    pos[j] + 1
                );
                flags.insert(p, why.clone());
                flags.insert(j, why);
            }
        } else if let Some(r) = receptacle.as_deref()
            && r != x
            && r != on
            && goal.mentions(x)
            && goal.position(x) < goal.position(r)
            && rules.contains(StateRule::MisplacedGoalObject)
        {
            flags.insert(
                j,
                format!("the goal wants {x} on {r}, but this leaves it on {on} for good"),
            );
            let fixed = actions[j].replacen(&format!("'{on}'"), &format!("'{r}'"), 1);
            let fixed = if fixed == actions[j] {
                actions[j].replacen(on, r, 1)
            } else {
                fixed
            };
            missing.push(Critique::missing(
                Some(j),
                format!("{x} still has to be put on {r}"),
                vec![fixed],
            ));
        }
    }
}

/// Whether pouring into `name` throws the contents away: a sink or a bathtub (AI2-THOR's
/// drains; TEACh pours into them to empty a container).
fn is_drain(name: &str) -> bool {
    name_words(name)
        .iter()
        .any(|w| w == "sink" || w == "bathtub" || w == "drain")
}
