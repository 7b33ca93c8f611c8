//! What the hard constraints still owe in a state, as goals of the delete relaxation.
//!
//! The rules are kept by the search (`crate::rules`): a step that breaks one is not taken,
//! and a state is a goal only when nothing is owed. A heuristic that sees only the task's
//! goal is blind to what is owed: on LEXICON's logistics, with a dozen `sometime`s that send
//! the packages on a tour, h_FF is 0 once the packages are home and the search has nothing
//! to follow. The PDDL3 planners that compile the rules into the task (Baier & McIlraith's
//! automata, HPLAN-P, MIPS-XXL) have the same cure built in: an automaton that has not
//! accepted is a goal of the relaxation. Here the automata are state words, so the goals are
//! read off them, state by state:
//!
//! - `sometime φ` and `within t φ` not yet met, and `at end φ`: φ;
//! - `sometime-after φ ψ` and `always-within t φ ψ` pending (φ seen, ψ not since): ψ;
//! - `sometime-after φ ψ` not pending and `sometime-before φ ψ` not yet met, when φ is
//!   false now and must hold later (its atoms are all in the goal, or all in one conjunction
//!   owed already): ψ. Then φ holds at some later state, so ψ holds at or after it (after),
//!   or between now and then (before: ψ has not held yet).
//!
//! The third rule is found once per search (which items imply which φ) and applied for at
//! most [`DERIVATION_ROUNDS`] rounds per state, on tasks of at most [`MAX_DERIVING_RULES`]
//! rules; past either bound less is owed, which only weakens the estimate.
//!
//! Each item owed is a real requirement on every continuation of the plan, so adding it to
//! the relaxed goal keeps h_max a lower bound (A* stays optimal), and an item the relaxation
//! cannot reach proves a dead end. A condition becomes a disjunction of conjunctions of
//! relaxed atoms (its disjunctive normal form; a negative literal is its negated atom,
//! `crate::relaxed`); a numeric comparison is dropped, which only makes the item easier, and
//! marks the form *inexact*, so that it never stands for φ in the third rule. A form that
//! would have more than [`MAX_DISJUNCTS`] disjuncts is dropped whole (owed: nothing).

use safeplan_pddl::ast::ConstraintOp;

use crate::eval::Layout;
use crate::ground::{GCond, GroundTask};
use crate::relaxed::RelaxedAtoms;

/// The most disjuncts a condition's normal form may have; past it the item is dropped.
const MAX_DISJUNCTS: usize = 64;

/// The rules' phase words (`crate::rules`): met for good, and φ seen with ψ owed.
const KEPT: u64 = 4;
const PENDING: u64 = 3;
const PHASE: u64 = 0xff;

/// A condition as the relaxation reads it: one of the conjunctions (sorted relaxed atoms)
/// must hold. No disjunct: unreachable (`false`); one empty disjunct: holds everywhere.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Dnf {
    pub disjuncts: Vec<Vec<u32>>,
    /// Nothing of the condition was dropped: the form holds exactly when the condition does
    /// (as far as its atoms go).
    exact: bool,
}

impl Dnf {
    fn anything() -> Dnf {
        Dnf {
            disjuncts: vec![Vec::new()],
            exact: false,
        }
    }

    fn of(c: &GCond, relaxed: &RelaxedAtoms) -> Dnf {
        let atom = |a: u32| Dnf {
            disjuncts: vec![vec![a]],
            exact: true,
        };
        match c {
            GCond::True => Dnf {
                disjuncts: vec![Vec::new()],
                exact: true,
            },
            GCond::False => Dnf {
                disjuncts: Vec::new(),
                exact: true,
            },
            GCond::Atom(a) => atom(*a),
            GCond::NotAtom(a) => relaxed.negated(*a).map_or_else(Dnf::anything, atom),
            GCond::Cmp { .. } => Dnf::anything(),
            GCond::Or(parts) => {
                let mut out = Dnf {
                    disjuncts: Vec::new(),
                    exact: true,
                };
                for p in parts {
                    let d = Dnf::of(p, relaxed);
                    out.exact &= d.exact;
                    out.disjuncts.extend(d.disjuncts);
                    if out.disjuncts.len() > MAX_DISJUNCTS {
                        return Dnf::anything();
                    }
                }
                out.disjuncts.sort();
                out.disjuncts.dedup();
                out
            }
            GCond::And(parts) => {
                let mut out = Dnf {
                    disjuncts: vec![Vec::new()],
                    exact: true,
                };
                for p in parts {
                    let d = Dnf::of(p, relaxed);
                    if out.disjuncts.len() * d.disjuncts.len() > MAX_DISJUNCTS {
                        return Dnf::anything();
                    }
                    out.exact &= d.exact;
                    let mut product = Vec::with_capacity(out.disjuncts.len() * d.disjuncts.len());
                    for a in &out.disjuncts {
                        for b in &d.disjuncts {
                            let mut c: Vec<u32> = a.iter().chain(b).copied().collect();
                            c.sort_unstable();
                            c.dedup();
                            product.push(c);
                        }
                    }
                    out.disjuncts = product;
                }
                out.disjuncts.sort();
                out.disjuncts.dedup();
                out
            }
        }
    }

    /// The one conjunction an exact form is, if it is one.
    fn conjunction(&self) -> Option<&[u32]> {
        match (self.exact, self.disjuncts.as_slice()) {
            (true, [c]) => Some(c),
            _ => None,
        }
    }
}

/// One rule's conditions in relaxed form.
struct Owing {
    op: ConstraintOp,
    phi: Dnf,
    psi: Dnf,
    /// For a `sometime-after` or `sometime-before` whose φ is one exact conjunction: when ψ
    /// is owed because φ must hold later (the module's third rule).
    derive: Option<Derive>,
}

/// When φ of a rule must hold later: found once, read per state.
struct Derive {
    /// φ's atoms are all in the goal.
    in_goal: bool,
    /// The items (as [`Obligations::form`] numbers them) whose one conjunction holds all of
    /// φ's atoms: φ holds whenever they do.
    implied_by: Vec<u32>,
}

/// The task's rules as relaxed goals, read off a state's automata words.
pub(crate) struct Obligations {
    /// The first word of the automata in a state.
    base: usize,
    rules: Vec<Owing>,
    /// Some rule can be owed by the third rule (found once, not per state).
    deriving: bool,
}

/// The third rule is applied only on tasks with at most this many rules: finding which
/// items imply which φ compares every pair once, at the start of the search.
const MAX_DERIVING_RULES: usize = 256;

/// How many rounds of the third rule a state gets: each round can make a ψ owed that makes
/// another φ needed. Stopping early owes less, which keeps every estimate a lower bound.
const DERIVATION_ROUNDS: usize = 8;

/// `a ⊆ b` of sorted sets.
fn subset(a: &[u32], b: &[u32]) -> bool {
    let mut rest = b.iter();
    a.iter().all(|x| rest.by_ref().any(|y| y == x))
}

/// Item numbers: rule `i`'s φ and ψ.
fn phi(i: usize) -> u32 {
    (2 * i) as u32
}

fn psi(i: usize) -> u32 {
    (2 * i + 1) as u32
}

impl Obligations {
    /// The rules of `task` over the relaxed atoms `relaxed`; `None` when it has none.
    pub fn new(task: &GroundTask, relaxed: &RelaxedAtoms) -> Option<Obligations> {
        if task.rules.is_empty() {
            return None;
        }
        let mut rules: Vec<Owing> = task
            .rules
            .rules
            .iter()
            .map(|r| Owing {
                op: r.op,
                phi: Dnf::of(&r.phi, relaxed),
                psi: r
                    .psi
                    .as_ref()
                    .map_or_else(Dnf::anything, |c| Dnf::of(c, relaxed)),
                derive: None,
            })
            .collect();
        if rules.len() <= MAX_DERIVING_RULES {
            let goal = relaxed.goal(task);
            // What each rule can owe, as one conjunction: φ of the rules that owe φ, ψ of
            // the rules that owe ψ.
            let owable: Vec<(u32, &[u32])> = rules
                .iter()
                .enumerate()
                .flat_map(|(i, r)| {
                    let item = match r.op {
                        ConstraintOp::Sometime | ConstraintOp::Within | ConstraintOp::AtEnd => {
                            Some((phi(i), &r.phi))
                        }
                        ConstraintOp::SometimeAfter
                        | ConstraintOp::SometimeBefore
                        | ConstraintOp::AlwaysWithin => Some((psi(i), &r.psi)),
                        _ => None,
                    };
                    item.and_then(|(k, form)| form.conjunction().map(|c| (k, c)))
                })
                .collect();
            let derives: Vec<Option<Derive>> = rules
                .iter()
                .map(|r| {
                    let deriving = matches!(
                        r.op,
                        ConstraintOp::SometimeAfter | ConstraintOp::SometimeBefore
                    );
                    let c = r.phi.conjunction().filter(|c| deriving && !c.is_empty())?;
                    Some(Derive {
                        in_goal: subset(c, &goal),
                        implied_by: owable
                            .iter()
                            .filter(|(_, o)| subset(c, o))
                            .map(|&(k, _)| k)
                            .collect(),
                    })
                })
                .collect();
            for (r, d) in rules.iter_mut().zip(derives) {
                r.derive = d;
            }
        }
        Some(Obligations {
            base: Layout::new(task).rules,
            deriving: rules.iter().any(|r| r.derive.is_some()),
            rules,
        })
    }

    /// How many items there can be: [`Obligations::form`] reads `0..item_count()`.
    pub fn item_count(&self) -> u32 {
        2 * self.rules.len() as u32
    }

    /// Whether [`Obligations::owed`] can ever return item `k`: φ of a `sometime`, `within`
    /// or `at end`; ψ of a `sometime-after` or `always-within`, and of a `sometime-before`
    /// whose ψ can be derived. The others (`always`, ψ of a `sometime`, ...) never are.
    pub fn can_owe(&self, k: u32) -> bool {
        let r = &self.rules[(k / 2) as usize];
        if k.is_multiple_of(2) {
            matches!(
                r.op,
                ConstraintOp::Sometime | ConstraintOp::Within | ConstraintOp::AtEnd
            )
        } else {
            match r.op {
                ConstraintOp::SometimeAfter | ConstraintOp::AlwaysWithin => true,
                ConstraintOp::SometimeBefore => r.derive.is_some(),
                _ => false,
            }
        }
    }

    /// The form owed as item `k` of [`Obligations::owed`].
    pub fn form(&self, k: u32) -> &Dnf {
        let r = &self.rules[(k / 2) as usize];
        if k.is_multiple_of(2) { &r.phi } else { &r.psi }
    }

    /// What is owed in the state `s` (the whole packed state), as items for
    /// [`Obligations::form`], into `out`.
    pub fn owed(&self, s: &[u64], relaxed: &RelaxedAtoms, out: &mut Vec<u32>) {
        out.clear();
        let phase = |i: usize| s[self.base + i] & PHASE;
        for (i, r) in self.rules.iter().enumerate() {
            match r.op {
                ConstraintOp::Sometime | ConstraintOp::Within if phase(i) != KEPT => {
                    out.push(phi(i))
                }
                ConstraintOp::AtEnd => out.push(phi(i)),
                ConstraintOp::SometimeAfter | ConstraintOp::AlwaysWithin if phase(i) == PENDING => {
                    out.push(psi(i))
                }
                _ => {}
            }
        }
        if !self.deriving {
            return;
        }
        // The third rule: an item owed can make φ of another rule needed, for a few rounds.
        let mut marked = vec![false; 2 * self.rules.len()];
        out.iter().for_each(|&k| marked[k as usize] = true);
        for _ in 0..DERIVATION_ROUNDS {
            let mut changed = false;
            for (i, r) in self.rules.iter().enumerate() {
                let Some(d) = &r.derive else {
                    continue;
                };
                let open = match r.op {
                    ConstraintOp::SometimeAfter => phase(i) != PENDING,
                    _ => phase(i) != KEPT,
                };
                if !open || marked[psi(i) as usize] {
                    continue;
                }
                let Some(c) = r.phi.conjunction() else {
                    continue;
                };
                if c.iter().all(|&a| relaxed.holds(s, a)) {
                    continue;
                }
                if d.in_goal || d.implied_by.iter().any(|&k| marked[k as usize]) {
                    out.push(psi(i));
                    marked[psi(i) as usize] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// How many items owed in `s` no disjunct of which holds now.
    pub fn unmet(&self, s: &[u64], owed: &[u32], relaxed: &RelaxedAtoms) -> u32 {
        owed.iter()
            .filter(|&&k| {
                !self
                    .form(k)
                    .disjuncts
                    .iter()
                    .any(|c| c.iter().all(|&a| relaxed.holds(s, a)))
            })
            .count() as u32
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use safeplan_pddl::{parse_domain, parse_plan, parse_problem};
    use safeplan_validate::{Task, ValidateOptions, Validator};

    use crate::eval::{Layout, Scratch, apply};
    use crate::heuristic::{Heuristic, INFINITE, Relaxation};
    use crate::landmarks::Landmarks;
    use crate::lmcut::LmCut;
    use crate::rules::RuleMode;
    use crate::testing::{ground, initial_observed};

    /// Two corridors from `l0`: `l1 l2 l3` and `s1 s2 s3 s4`, moves both ways; `x` is
    /// linked to nothing.
    const DOMAIN: &str = "(define (domain corridors) (:requirements :strips :constraints)
        (:predicates (at ?l) (link ?a ?b))
        (:action move :parameters (?a ?b) :precondition (and (at ?a) (link ?a ?b))
            :effect (and (at ?b) (not (at ?a)))))";

    fn problem(start: &str, goal: &str, rules: &str) -> String {
        let links: String = [("l0", "l1"), ("l1", "l2"), ("l2", "l3")]
            .into_iter()
            .chain([("l0", "s1"), ("s1", "s2"), ("s2", "s3"), ("s3", "s4")])
            .map(|(a, b)| format!("(link {a} {b}) (link {b} {a}) "))
            .collect();
        format!(
            "(define (problem p) (:domain corridors)
               (:objects l0 l1 l2 l3 s1 s2 s3 s4 x)
               (:init (at {start}) {links})
               (:goal {goal}) (:constraints (and {rules})))"
        )
    }

    /// h_FF, h_max, the landmark count and LM-cut of the initial state (observed, as the
    /// search starts), without and with the rules counted.
    fn estimates(start: &str, goal: &str, rules: &str) -> [[u32; 4]; 2] {
        let task = ground(DOMAIN, &problem(start, goal, rules));
        let s = initial_observed(&task).expect("the initial state keeps the rules");
        [false, true].map(|keep| {
            let mut ff = Heuristic::new(&task, Relaxation::Ff);
            let mut max = Heuristic::new(&task, Relaxation::Max);
            let mut lm = Landmarks::new(&task);
            if keep {
                ff.keep_rules(&task);
                max.keep_rules(&task);
                lm.keep_rules(&task);
            }
            let mut lmcut = LmCut::new_unless(&task, keep, &|| false).expect("not stopped");
            let mut accepted = Vec::new();
            lm.advance(&vec![0; lm.words()], &s, &mut accepted);
            [
                ff.evaluate(&s),
                max.evaluate(&s),
                lm.value(&accepted, &s),
                lmcut.evaluate(&s),
            ]
        })
    }

    /// `sometime` not yet met is a goal: home already, but `l3` is owed. Without the rules
    /// every estimate is 0 (the search blind); with them the relaxed plan walks to `l3`,
    /// and LM-cut cuts each of its three moves.
    #[test]
    fn sometime_not_met_is_owed() {
        let [without, with] = estimates("l0", "(at l0)", "(sometime (at l3))");
        assert_eq!(without, [0, 0, 0, 0]);
        assert_eq!(with, [3, 3, 1, 3]);
    }

    /// A disjunction owed is reached by its cheapest disjunct (LM-cut: one cut, the moves
    /// into `s1` and into `l3`, after which `s1` is free).
    #[test]
    fn a_disjunction_owed_costs_its_cheapest_disjunct() {
        let [_, with] = estimates("l0", "(at l0)", "(sometime (or (at l3) (at s1)))");
        assert_eq!(with, [1, 1, 1, 1]);
    }

    /// `sometime-before φ ψ` with φ in the goal: ψ must come first, so it is owed. The
    /// relaxed plan walks both corridors (3 + 4); h_max is the longer (4); the landmarks
    /// are `l1`, `l2`, `l3`, and ψ owed counts as one more; LM-cut cuts all seven moves.
    #[test]
    fn sometime_before_a_goal_owes_its_condition() {
        let [without, with] = estimates("l0", "(at l3)", "(sometime-before (at l3) (at s4))");
        assert_eq!(without, [3, 3, 3, 3]);
        assert_eq!(with, [7, 4, 4, 7]);
    }

    /// `sometime-after φ ψ` with φ owed by a `sometime`: ψ is owed too.
    #[test]
    fn sometime_after_an_owed_condition_owes_its_consequence() {
        let [_, with] = estimates(
            "l0",
            "(at l0)",
            "(sometime (at l2)) (sometime-after (at l2) (at s2))",
        );
        assert_eq!(with, [4, 2, 2, 4]);
    }

    /// Pending: φ holds in the initial state and ψ has not since, so ψ is owed; from `l1`
    /// the relaxed plan goes home and on to `s1` (2 steps, one shared with the goal).
    #[test]
    fn sometime_after_pending_owes_its_consequence() {
        let [without, with] = estimates("l1", "(at l0)", "(sometime-after (at l1) (at s1))");
        assert_eq!(without, [1, 1, 1, 1]);
        assert_eq!(with, [2, 2, 2, 2]);
    }

    /// A `sometime-after` whose φ no plan has to reach owes nothing: a plan may stay away
    /// from `l3` (the derivation must not make the estimate inadmissible).
    #[test]
    fn sometime_after_a_condition_nobody_needs_owes_nothing() {
        let [_, with] = estimates("l0", "(at l0)", "(sometime-after (at l3) (at s4))");
        assert_eq!(with, [0, 0, 0, 0]);
    }

    /// What is owed and unreachable in the relaxation is a dead end.
    #[test]
    fn an_unreachable_item_owed_is_a_dead_end() {
        let [without, with] = estimates("l0", "(at l0)", "(sometime (at x))");
        assert_eq!(without, [0, 0, 0, 0]);
        assert_eq!([with[0], with[1], with[3]], [INFINITE, INFINITE, INFINITE]);
    }

    /// A literal over five 0-ary atoms, a condition of one or two of them.
    fn condition() -> impl Strategy<Value = String> {
        let literal = (0..5usize, prop::bool::weighted(0.7)).prop_map(|(a, positive)| {
            if positive {
                format!("(q{a})")
            } else {
                format!("(not (q{a}))")
            }
        });
        prop_oneof![
            3 => literal.clone(),
            1 => (literal.clone(), literal.clone()).prop_map(|(a, b)| format!("(and {a} {b})")),
            1 => (literal.clone(), literal).prop_map(|(a, b)| format!("(or {a} {b})")),
        ]
    }

    /// A random task over five atoms whose rules are drawn from the operators that owe.
    fn owing_task() -> impl Strategy<Value = (String, String)> {
        let rule = prop_oneof![
            condition().prop_map(|c| format!("(sometime {c})")),
            (0..5u32, condition()).prop_map(|(t, c)| format!("(within {t} {c})")),
            (condition(), condition()).prop_map(|(a, b)| format!("(sometime-after {a} {b})")),
            (condition(), condition()).prop_map(|(a, b)| format!("(sometime-before {a} {b})")),
            (0..4u32, condition(), condition())
                .prop_map(|(t, a, b)| format!("(always-within {t} {a} {b})")),
            condition().prop_map(|c| format!("(at end {c})")),
            condition().prop_map(|c| format!("(always {c})")),
        ];
        let action = (
            prop::collection::vec(0..5usize, 0..=2),
            prop::collection::vec(0..5usize, 1..=2),
            prop::collection::vec(0..5usize, 0..=2),
        );
        (
            prop::collection::vec(action, 3..=6),
            prop::collection::vec(0..5usize, 0..=3),
            prop::collection::vec(0..5usize, 0..=2),
            prop::collection::vec(rule, 1..=3),
        )
            .prop_map(|(actions, init, goal, rules)| {
                let mut d = String::from(
                    "(define (domain prop) (:requirements :adl :constraints)
                       (:predicates (q0) (q1) (q2) (q3) (q4))",
                );
                for (i, (pre, adds, dels)) in actions.into_iter().enumerate() {
                    let pre: Vec<String> = pre.iter().map(|a| format!("(q{a})")).collect();
                    let mut eff: Vec<String> = adds.iter().map(|a| format!("(q{a})")).collect();
                    eff.extend(
                        dels.iter()
                            .filter(|x| !adds.contains(x))
                            .map(|x| format!("(not (q{x}))")),
                    );
                    d += &format!(
                        " (:action a{i} :parameters () :precondition (and {}) :effect (and {}))",
                        pre.join(" "),
                        eff.join(" ")
                    );
                }
                d += ")";
                let atoms =
                    |v: Vec<usize>| -> String { v.iter().map(|a| format!("(q{a}) ")).collect() };
                let p = format!(
                    "(define (problem p) (:domain prop) (:init {}) (:goal (and {}))
                       (:constraints (and {})))",
                    atoms(init),
                    atoms(goal),
                    rules.join(" ")
                );
                (d, p)
            })
    }

    /// A shortest plan of at most `depth` steps that the validator accepts (rules kept).
    fn shortest(domain: &str, problem: &str, depth: usize) -> Option<Vec<String>> {
        let d = parse_domain(domain).value.expect("parses");
        let p = parse_problem(problem).value.expect("parses");
        let task = Task::compile(&d, &p).expect("compiles");
        let names: Vec<String> = task
            .schemas()
            .iter()
            .map(|s| format!("({})", s.name))
            .collect();
        let mut validator = Validator::new(&task, ValidateOptions::default());
        let mut layer: Vec<Vec<&str>> = vec![Vec::new()];
        for _ in 0..=depth {
            let mut valid = |steps: &&Vec<&str>| {
                let plan = parse_plan(&steps.join("\n")).value.unwrap_or_default();
                validator.is_valid(&plan)
            };
            if let Some(plan) = layer.iter().find(&mut valid) {
                return Some(plan.iter().map(|s| s.to_string()).collect());
            }
            layer = layer
                .iter()
                .flat_map(|p| {
                    names.iter().map(move |a| {
                        let mut q = p.clone();
                        q.push(a.as_str());
                        q
                    })
                })
                .collect();
        }
        None
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 600,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// What the rules owe is owed by every plan: in every state along a shortest plan
        /// that keeps the rules (found by trying every sequence up to 4 steps; from its
        /// `k`-th state, automata and clock included, no completion is shorter than its
        /// last `n - k` steps), h_max and LM-cut with the items owed there stay at most
        /// `n - k`, LM-cut is at least h_max, and no estimate calls the state a dead end.
        #[test]
        fn what_is_owed_keeps_h_max_admissible((domain, problem) in owing_task()) {
            let task = ground(&domain, &problem);
            let Some(mut s) = initial_observed(&task) else {
                return Ok(());
            };
            let Some(plan) = shortest(&domain, &problem, 4) else {
                return Ok(());
            };
            let n = plan.len();
            let mut max = Heuristic::new(&task, Relaxation::Max);
            max.keep_rules(&task);
            let mut ff = Heuristic::new(&task, Relaxation::Ff);
            ff.keep_rules(&task);
            let mut lmcut = LmCut::new(&task);
            let layout = Layout::new(&task);
            let (mut next, mut scratch) = (Vec::new(), Scratch::default());
            for k in 0..=n {
                let left = n - k;
                let h = max.evaluate(&s);
                prop_assert!(h as usize <= left, "h_max {h} > {left} after {k} steps\n{domain}\n{problem}");
                prop_assert_ne!(ff.evaluate(&s), INFINITE, "after {} steps\n{}\n{}", k, domain, problem);
                let cut = lmcut.evaluate(&s);
                prop_assert!(cut as usize <= left, "LM-cut {cut} > {left} after {k} steps\n{domain}\n{problem}");
                prop_assert!(h <= cut, "h_max {h} > LM-cut {cut} after {k} steps\n{domain}\n{problem}");
                let Some(step) = plan.get(k) else {
                    break;
                };
                let o = (0..task.ops.len())
                    .find(|&o| task.action_text(o) == *step)
                    .expect("every step of a valid plan is a reachable ground action");
                prop_assert!(apply(&task, &task.ops[o], &s, layout, &mut next, &mut scratch));
                prop_assert!(task.rules.step(RuleMode::Keep, &mut next, layout, k as u64 + 1, task.slack));
                std::mem::swap(&mut s, &mut next);
            }
        }
    }
}
