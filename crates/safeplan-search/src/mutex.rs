//! Mutex groups: sets of atoms of which at most one is true in any reachable state, found
//! as Fast Downward's translator finds its invariants (Helmert 2009, "Concise finite-domain
//! representations for PDDL planning tasks"), checked on the ground actions.
//!
//! A *candidate* is a set of predicates, each with at most one *counted* argument position:
//! `{(clear ?y), (on ?x ?y) counting ?x}` says "for each `?y`, at most one of `clear ?y`
//! and `on _ ?y` is true". An atom of a candidate belongs to the *instance* named by its
//! arguments without the counted one. A candidate is an invariant when
//!
//! 1. no instance has two atoms true in the initial state, and
//! 2. every action that makes an atom of an instance true (one not already required true)
//!    makes no other atom of that instance true and deletes one of it that it requires
//!    true (so the instance's count cannot rise), as the balance check of Helmert's
//!    algorithm does.
//!
//! By induction on plans, an instance of an invariant never has two atoms true. An action
//! that breaks 2. only because the atom it deletes is of a predicate not in the candidate
//! suggests a larger candidate with that predicate added (Helmert's refinement): that is
//! how `{(handempty)}` grows into `{(handempty), (holding ?x) counting ?x}`.
//!
//! The check runs on ground actions, not on schemas: no unification, and what grounding
//! dropped (unreachable actions, static facts) is already gone. Conditional effects are
//! taken as they may fire: every effect that may add an atom counts as an add, and a delete
//! balances it only if it is unconditional or in the same effect (the same `when`). An instance's
//! arguments keep their order across predicates, so invariants that permute arguments
//! between predicates are not found: fewer mutexes, never a wrong one.
//!
//! The landmarks' reasonable orders (`crate::reasonable`) read these, as Fast Downward's
//! read its translator's mutex groups.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ground::GroundTask;
use crate::heuristic::Pace;

/// How many candidates are checked at most: each is one pass over the actions adding its
/// predicates. Fast Downward bounds its search the same way (by time).
const MOST_CANDIDATES: usize = 1_000;

/// The most predicates in one invariant.
const MOST_PARTS: usize = 4;

/// One predicate of a candidate, with the argument position it counts (or none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Part {
    pred: u32,
    counted: Option<u8>,
}

/// The mutex groups of a task: each atom's groups, by number.
pub(crate) struct Mutexes {
    /// Per atom: the groups it is in, sorted.
    groups: Vec<Vec<u32>>,
}

/// What checking a candidate concluded.
enum Check {
    Invariant,
    /// Not an invariant; these larger candidates may be.
    Refine(Vec<Vec<Part>>),
    Rejected,
}

struct Finder<'t> {
    task: &'t GroundTask,
    /// Per predicate: its arity (`None` for a predicate with no atom).
    arity: Vec<Option<usize>>,
    /// Per predicate: (action, effect) pairs whose effect adds an atom of it.
    adders: Vec<Vec<(u32, u32)>>,
    /// Per predicate: its atoms true initially.
    initially: Vec<Vec<u32>>,
    pace: Pace,
}

impl Part {
    /// The instance atom `a` belongs to under this part: its arguments without the counted
    /// one.
    fn key(&self, task: &GroundTask, a: u32) -> Vec<u32> {
        let args = &task.atoms[a as usize].1;
        args.iter()
            .enumerate()
            .filter(|&(i, _)| Some(i) != self.counted.map(usize::from))
            .map(|(_, &o)| o)
            .collect()
    }
}

/// The part of `candidate` for atom `a`'s predicate, if any (a candidate has each predicate
/// once).
fn part_of(candidate: &[Part], task: &GroundTask, a: u32) -> Option<Part> {
    let pred = task.atoms[a as usize].0;
    candidate.iter().copied().find(|p| p.pred == pred)
}

impl Finder<'_> {
    fn key_len(&self, part: Part) -> Option<usize> {
        let arity = self.arity[part.pred as usize]?;
        Some(arity - usize::from(part.counted.is_some()))
    }

    /// Check `candidate` (sorted, each predicate once, all key lengths equal). `None` when
    /// `stop` said to stop.
    fn check(&mut self, candidate: &[Part], stop: &dyn Fn() -> bool) -> Option<Check> {
        let task = self.task;
        // 1. At most one atom of each instance initially.
        let mut seen: FxHashSet<Vec<u32>> = FxHashSet::default();
        for part in candidate {
            for &a in &self.initially[part.pred as usize] {
                if !seen.insert(part.key(task, a)) {
                    return Some(Check::Rejected);
                }
            }
        }
        // 2. Every add balanced.
        let mut refinements: Vec<Vec<Part>> = Vec::new();
        for part in candidate {
            for &(o, e) in &self.adders[part.pred as usize] {
                let op = &task.ops[o as usize];
                let effect = &op.effects[e as usize];
                // The work per add reads every effect of the action.
                if self
                    .pace
                    .stop_after(effect.adds.len() * (op.effects.len() + 1), stop)
                {
                    return None;
                }
                for &x in &effect.adds {
                    if task.atoms[x as usize].0 != part.pred {
                        continue;
                    }
                    let required = |a: u32| op.pre.pos.contains(&a) || effect.cond.pos.contains(&a);
                    if required(x) {
                        // Already true: the count does not change.
                        continue;
                    }
                    let key = part.key(task, x);
                    let in_instance =
                        |a: u32| part_of(candidate, task, a).is_some_and(|p| p.key(task, a) == key);
                    // No other atom of the instance made true by this action.
                    let other_adds = op
                        .effects
                        .iter()
                        .flat_map(|f| &f.adds)
                        .any(|&y| y != x && !required(y) && in_instance(y));
                    if other_adds {
                        return Some(Check::Rejected);
                    }
                    // A delete that surely fires, of an atom required true that nothing
                    // adds back.
                    let balancing: Vec<u32> = op
                        .effects
                        .iter()
                        .enumerate()
                        .filter(|&(i, f)| i == e as usize || f.is_unconditional())
                        .flat_map(|(_, f)| f.dels.iter().copied())
                        .filter(|&d| required(d) && !op.effects.iter().any(|f| f.adds.contains(&d)))
                        .collect();
                    if balancing.iter().any(|&d| in_instance(d)) {
                        continue;
                    }
                    // Unbalanced: a larger candidate may be balanced here.
                    if candidate.len() < MOST_PARTS {
                        for &d in &balancing {
                            let pred = task.atoms[d as usize].0;
                            if candidate.iter().any(|p| p.pred == pred) {
                                continue;
                            }
                            let arity = task.atoms[d as usize].1.len();
                            let counted = std::iter::once(None)
                                .chain((0..arity.min(u8::MAX as usize)).map(|i| Some(i as u8)));
                            for counted in counted {
                                let new = Part { pred, counted };
                                if new.key(task, d) == key {
                                    let mut refined = candidate.to_vec();
                                    refined.push(new);
                                    refined.sort_unstable();
                                    refinements.push(refined);
                                }
                            }
                        }
                    }
                    return Some(if refinements.is_empty() {
                        Check::Rejected
                    } else {
                        Check::Refine(refinements)
                    });
                }
            }
        }
        Some(Check::Invariant)
    }
}

impl Mutexes {
    /// The mutex groups of `task`. `None` when `stop` said to stop.
    pub fn new_unless(task: &GroundTask, stop: &dyn Fn() -> bool) -> Option<Mutexes> {
        let preds = task
            .atoms
            .iter()
            .map(|(p, _)| *p as usize + 1)
            .max()
            .unwrap_or(0);
        let mut arity = vec![None; preds];
        for (p, args) in &task.atoms {
            arity[*p as usize] = Some(args.len());
        }
        let mut adders = vec![Vec::new(); preds];
        for (o, op) in task.ops.iter().enumerate() {
            for (e, effect) in op.effects.iter().enumerate() {
                let mut added: Vec<u32> = effect
                    .adds
                    .iter()
                    .map(|&a| task.atoms[a as usize].0)
                    .collect();
                added.sort_unstable();
                added.dedup();
                for p in added {
                    adders[p as usize].push((o as u32, e as u32));
                }
            }
        }
        let mut initially = vec![Vec::new(); preds];
        for &a in &task.init {
            initially[task.atoms[a as usize].0 as usize].push(a);
        }
        let mut finder = Finder {
            task,
            arity,
            adders,
            initially,
            pace: Pace::default(),
        };
        // Every predicate with each choice of counted position, as Helmert's initial
        // candidates.
        let mut queue: std::collections::VecDeque<Vec<Part>> = std::collections::VecDeque::new();
        for pred in 0..preds {
            let Some(n) = finder.arity[pred] else {
                continue;
            };
            queue.push_back(vec![Part {
                pred: pred as u32,
                counted: None,
            }]);
            for i in 0..n.min(u8::MAX as usize) {
                queue.push_back(vec![Part {
                    pred: pred as u32,
                    counted: Some(i as u8),
                }]);
            }
        }
        let mut tried: FxHashSet<Vec<Part>> = queue.iter().cloned().collect();
        let mut invariants: Vec<Vec<Part>> = Vec::new();
        let mut checked = 0;
        while let Some(candidate) = queue.pop_front() {
            if checked == MOST_CANDIDATES {
                break;
            }
            checked += 1;
            let lens: Vec<Option<usize>> = candidate.iter().map(|&p| finder.key_len(p)).collect();
            if lens.iter().any(|l| *l != lens[0]) {
                continue;
            }
            match finder.check(&candidate, stop)? {
                Check::Invariant => invariants.push(candidate),
                Check::Refine(more) => {
                    for c in more {
                        if tried.insert(c.clone()) {
                            queue.push_back(c);
                        }
                    }
                }
                Check::Rejected => {}
            }
        }
        // An instance of an invariant is a group: number them, atom by atom.
        let mut groups = vec![Vec::new(); task.atoms.len()];
        let mut numbers: FxHashMap<(u32, Vec<u32>), u32> = FxHashMap::default();
        for (i, invariant) in invariants.iter().enumerate() {
            for (a, (pred, _)) in task.atoms.iter().enumerate() {
                if let Some(part) = invariant.iter().find(|p| p.pred == *pred) {
                    let next = numbers.len() as u32;
                    let id = *numbers
                        .entry((i as u32, part.key(task, a as u32)))
                        .or_insert(next);
                    groups[a].push(id);
                }
            }
            if stop() {
                return None;
            }
        }
        for g in &mut groups {
            g.sort_unstable();
            g.dedup();
        }
        Some(Mutexes { groups })
    }

    /// Whether atoms `a` and `b` are never true together: distinct and in one group.
    pub fn mutex(&self, a: u32, b: u32) -> bool {
        if a == b {
            return false;
        }
        let (Some(ga), Some(gb)) = (self.groups.get(a as usize), self.groups.get(b as usize))
        else {
            return false;
        };
        let (mut i, mut j) = (0, 0);
        while i < ga.len() && j < gb.len() {
            match ga[i].cmp(&gb[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::test;
    use crate::testing::{BLOCKS, atom, ground_named, reachable_avoiding};

    /// Blocksworld's invariants, as Fast Downward's translator finds them: the hand holds
    /// one block or is empty; a block is on the table, on one block or held; a block is
    /// clear or has one block on it. Atoms of no common invariant are not mutex. Computed
    /// by hand.
    #[test]
    fn blocksworld_has_its_three_invariants() {
        let (task, names) = ground_named(
            BLOCKS,
            "(define (problem p) (:domain blocks) (:objects a b c)
               (:init (ontable a) (ontable b) (on c a) (clear b) (clear c) (handempty))
               (:goal (and (on a b) (on b c))))",
        );
        let m = Mutexes::new_unless(&task, &|| false).unwrap();
        let at = |t: &str| atom(&task, &names, t);
        let mutex = |x: &str, y: &str| m.mutex(at(x), at(y));
        assert!(mutex("handempty", "holding a"));
        assert!(mutex("holding a", "holding b"));
        assert!(mutex("ontable a", "on a b"));
        assert!(mutex("holding a", "on a c"));
        assert!(mutex("on a b", "on a c"));
        assert!(mutex("clear b", "on a b"));
        assert!(mutex("on a b", "on c b"));
        assert!(!mutex("on a b", "on b c"));
        assert!(!mutex("clear a", "clear b"));
        assert!(!mutex("ontable a", "ontable b"));
        assert!(!mutex("holding a", "clear b"));
    }

    /// A random task over a binary, a unary and a nullary predicate on three constants,
    /// whose actions often move something (require and delete one atom, add another of the
    /// same predicate sharing an argument), so that invariants exist, and whose other
    /// literals and conditional effects are random, so that many candidates fail.
    fn moving_task() -> impl proptest::strategy::Strategy<Value = (String, String)> {
        use proptest::prelude::*;
        // An argument: a constant, or the action's parameter ?x or ?y.
        let arg = prop_oneof![Just("o0"), Just("o1"), Just("o2"), Just("?x"), Just("?y")];
        let atom = prop_oneof![
            3 => (arg.clone(), arg.clone()).prop_map(|(a, b)| format!("(at {a} {b})")),
            2 => arg.clone().prop_map(|a| format!("(h {a})")),
            1 => Just("(f)".to_string()),
        ];
        let moving = prop_oneof![
            (arg.clone(), arg.clone(), arg.clone())
                .prop_map(|(a, b, c)| (format!("(at {a} {b})"), format!("(at {a} {c})"))),
            (arg.clone(), arg.clone())
                .prop_map(|(a, b)| (format!("(at {a} {b})"), format!("(h {a})"))),
            (arg.clone(), arg.clone())
                .prop_map(|(a, b)| (format!("(h {a})"), format!("(at {a} {b})"))),
            arg.clone()
                .prop_map(|a| ("(f)".to_string(), format!("(h {a})"))),
            arg.clone()
                .prop_map(|a| (format!("(h {a})"), "(f)".to_string())),
        ];
        // A conditional effect: `(when c (a))` or `(when c (not a))`.
        let when =
            (atom.clone(), atom.clone(), prop::bool::ANY).prop_map(|(c, a, add)| match add {
                true => format!("(when {c} {a})"),
                false => format!("(when {c} (not {a}))"),
            });
        let action = (
            prop::option::weighted(0.8, moving),
            prop::collection::vec((atom.clone(), prop::bool::weighted(0.8)), 0..=2),
            prop::option::weighted(0.2, atom.clone()),
            prop::option::weighted(0.4, atom.clone()),
            prop::option::weighted(0.3, when),
        );
        let constant = prop_oneof![Just("o0"), Just("o1"), Just("o2")];
        let fact = prop_oneof![
            3 => (constant.clone(), constant.clone()).prop_map(|(a, b)| format!("(at {a} {b})")),
            2 => constant.prop_map(|a| format!("(h {a})")),
            1 => Just("(f)".to_string()),
        ];
        (
            prop::collection::vec(action, 2..=6),
            prop::collection::vec(fact, 1..=4),
        )
            .prop_map(|(actions, init)| {
                let mut d = String::from(
                    "(define (domain moving) (:requirements :adl) (:constants o0 o1 o2)
                       (:predicates (at ?a ?b) (h ?a) (f))",
                );
                for (i, (moving, pre, adds, dels, when)) in actions.into_iter().enumerate() {
                    let mut pres: Vec<String> = Vec::new();
                    let mut effs: Vec<String> = Vec::new();
                    if let Some((from, to)) = moving {
                        pres.push(from.clone());
                        effs.push(format!("(not {from})"));
                        effs.push(to);
                    }
                    for (a, positive) in pre {
                        pres.push(if positive { a } else { format!("(not {a})") });
                    }
                    effs.extend(adds);
                    effs.extend(dels.into_iter().map(|a| format!("(not {a})")));
                    effs.extend(when);
                    if effs.is_empty() {
                        effs.push("(f)".into());
                    }
                    d += &format!(
                        " (:action a{i} :parameters (?x ?y) :precondition (and {}) :effect (and {}))",
                        pres.join(" "),
                        effs.join(" ")
                    );
                }
                d += ")";
                let p = format!(
                    "(define (problem q) (:domain moving) (:init {}) (:goal (f)))",
                    init.join(" ")
                );
                (d, p)
            })
    }

    /// Every reachable state of a [`moving_task`], and its mutex pairs.
    fn mutex_pairs_and_states(
        (domain, problem): &(String, String),
    ) -> (Vec<(u32, u32)>, Vec<Vec<u64>>) {
        let (task, _) = ground_named(domain, problem);
        let m = Mutexes::new_unless(&task, &|| false).unwrap();
        let n = task.atoms.len() as u32;
        let pairs = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .filter(|&(a, b)| m.mutex(a, b))
            .collect();
        (pairs, reachable_avoiding(&task, &|_| false))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 1000,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// No two atoms found mutex are true together in any reachable state: checked by
        /// exhaustive search.
        #[test]
        fn no_reachable_state_has_two_mutex_atoms(case in moving_task()) {
            let (pairs, states) = mutex_pairs_and_states(&case);
            for s in &states {
                for &(a, b) in &pairs {
                    proptest::prop_assert!(
                        !(test(s, a) && test(s, b)),
                        "atoms {a} and {b} are mutex and true together"
                    );
                }
            }
        }
    }

    /// The property test above is not vacuous: about one task in seven has mutex pairs (the
    /// others' random literals break every candidate), so its 1,000 cases check more than a
    /// hundred tasks with mutexes.
    #[test]
    fn the_random_tasks_have_mutexes() {
        let with = crate::testing::samples(moving_task(), 300)
            .iter()
            .filter(|case| !mutex_pairs_and_states(case).0.is_empty())
            .count();
        assert!(with >= 30, "{with} of 300 tasks have a mutex pair");
    }
}
