//! The engine's constraint automata against the definitions, on random tasks: the random
//! tasks and plans of `gen.rs`, with random trajectory constraints and preferences over the
//! atoms their plans make true, judged by the engine (state by state, `keep_going`) and by
//! the reference (`reference::judge_constraints`: each operator's definition, quantifying
//! over the indices of the plan's states). They must agree on validity, on the operators of
//! the broken hard instances (as a multiset), and on every preference's violation count.
//!
//! 256 cases by default; set `PROPTEST_CASES` to run more or fewer.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use safeplan_pddl::ast::ConstraintOp;
use safeplan_pddl::{CheckOptions, check_problem, parse_domain, parse_plan, parse_problem};
use safeplan_validate::{Task, ValidateOptions};

use crate::r#gen::task;
use crate::reference;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// Draws from a list of random numbers (0 when it runs out: the simplest choice).
struct Picks<'a> {
    data: &'a [u32],
    pos: usize,
}

impl Picks<'_> {
    fn below(&mut self, n: usize) -> usize {
        let v = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v as usize % n.max(1)
    }
}

/// A condition over `pool` (ground atoms as text): an atom, its negation, or a
/// conjunction or disjunction of two such literals; `(and)` is always in the pool.
fn condition(pool: &[String], p: &mut Picks<'_>) -> String {
    let literal = |p: &mut Picks<'_>| {
        let atom = &pool[p.below(pool.len())];
        if p.below(3) == 0 {
            format!("(not {atom})")
        } else {
            atom.clone()
        }
    };
    match p.below(5) {
        0 => format!("(and {} {})", literal(p), literal(p)),
        1 => format!("(or {} {})", literal(p), literal(p)),
        _ => literal(p),
    }
}

/// A time for `within`, `always-within`, `hold-during`, `hold-after`: 0 to 4, sometimes a
/// half (between two states of a sequential plan).
fn time(p: &mut Picks<'_>) -> f64 {
    p.below(5) as f64 + if p.below(4) == 0 { 0.5 } else { 0.0 }
}

/// One to four constraints over `pool`, some of them preferences.
fn constraints(pool: &[String], p: &mut Picks<'_>) -> String {
    let mut parts = Vec::new();
    for i in 0..=p.below(4) {
        let op = ConstraintOp::ALL[p.below(ConstraintOp::ALL.len())];
        let c = |p: &mut Picks<'_>| condition(pool, p);
        let body = match op {
            ConstraintOp::Within | ConstraintOp::HoldAfter => {
                format!("({} {} {})", op.as_str(), time(p), c(p))
            }
            ConstraintOp::SometimeAfter | ConstraintOp::SometimeBefore => {
                format!("({} {} {})", op.as_str(), c(p), c(p))
            }
            ConstraintOp::AlwaysWithin => format!("(always-within {} {} {})", time(p), c(p), c(p)),
            ConstraintOp::HoldDuring => {
                let from = time(p);
                format!("(hold-during {from} {} {})", from + time(p), c(p))
            }
            _ => format!("({} {})", op.as_str(), c(p)),
        };
        parts.push(match p.below(4) {
            0 => format!("(preference pref{} {body})", i % 2),
            _ => body,
        });
    }
    format!("(:constraints (and {}))", parts.join(" "))
}

fn same_judgement(
    domain_text: &str,
    problem_text: &str,
    plans: &[String],
    picks: &[u32],
) -> Result<(), TestCaseError> {
    let domain = parse_domain(domain_text)
        .value
        .expect("generated domains parse");
    let problem = parse_problem(problem_text)
        .value
        .expect("generated problems parse");
    // The atoms the plans make true (and the initial state's): what constraints speak of.
    let parsed: Vec<_> = plans
        .iter()
        .map(|t| parse_plan(t).value.expect("plans read"))
        .collect();
    let mut pool: Vec<String> = vec!["(and)".into()];
    for plan in &parsed {
        if let Some(states) = reference::trajectory_atoms(&domain, &problem, plan) {
            pool.extend(states);
        }
    }
    pool.sort();
    pool.dedup();
    // A step may make an atom of the wrong type true (a parameter of an `either` type
    // overlaps a predicate's): such an atom cannot be written in a problem.
    let cut = problem_text.rfind(')').expect("a problem ends with `)`");
    let well_typed = |atom: &String| {
        let text = format!(
            "{} (:constraints (sometime {atom}))\n)",
            &problem_text[..cut]
        );
        parse_problem(&text).value.is_some_and(|p| {
            check_problem(&domain, &p, &CheckOptions::default())
                .iter()
                .all(|d| !d.is_error())
        })
    };
    pool.retain(|a| well_typed(a));
    let mut p = Picks {
        data: picks,
        pos: 0,
    };
    let section = constraints(&pool, &mut p);
    // The problem with the section before its last `)`.
    let constrained_text = format!("{} {section}\n)", &problem_text[..cut]);
    let constrained = parse_problem(&constrained_text)
        .value
        .expect("the constrained problem parses");
    let task = Task::compile(&domain, &constrained)
        .map_err(|e| TestCaseError::fail(format!("does not compile: {e}\n{constrained_text}")))?;
    let keep_going = ValidateOptions {
        keep_going: true,
        ..ValidateOptions::default()
    };
    for (text, plan) in plans.iter().zip(&parsed) {
        let Some(want) = reference::judge_constraints(&domain, &constrained, plan) else {
            continue;
        };
        let all = task.validate_with(plan, &keep_going);
        let mut broken: Vec<ConstraintOp> = all
            .failures
            .iter()
            .filter_map(|f| f.constraint.as_ref().map(|c| c.operator))
            .collect();
        broken.sort();
        let context = format!("{section}\nplan:\n{text}\nreference: {want:?}\nengine: {all:?}");
        prop_assert_eq!(
            &broken,
            &want.broken,
            "broken operators differ\n{}",
            context
        );
        let valid = want.goal && want.broken.is_empty();
        prop_assert_eq!(
            task.validate(plan).valid,
            valid,
            "validity differs\n{}",
            context
        );
        let counts: std::collections::BTreeMap<String, (usize, usize)> = all
            .preferences
            .iter()
            .map(|o| {
                let name = o.name.clone().unwrap_or_default().to_lowercase();
                (name, (o.instances, o.violated))
            })
            .collect();
        prop_assert_eq!(
            &counts,
            &want.preferences,
            "preferences differ\n{}",
            context
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn constraints_agree_with_their_definitions(
        (domain, problem, plans) in task(),
        picks in vec(any::<u32>(), 64),
    ) {
        same_judgement(&domain, &problem, &plans, &picks)?;
    }
}
