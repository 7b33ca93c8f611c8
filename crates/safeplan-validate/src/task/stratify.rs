//! Stratification of derived predicates (axioms): which rules must be evaluated before
//! which, so that negation reads only completed lower strata.

use safeplan_pddl::{Domain, Span};

use super::TaskError;
use super::compiled::{Cond, Pred, PredKind, Rule};

/// Assign strata so that a rule only reads derived predicates of lower strata negatively
/// and of its own or lower strata positively (the usual stratification of axioms).
pub(super) fn stratify(
    rules: &mut [Rule],
    preds: &[Pred],
    domain: &Domain,
) -> Result<usize, TaskError> {
    if rules.is_empty() {
        return Ok(0);
    }
    let mut level = vec![0usize; preds.len()];
    let limit = rules.len() + 1;
    loop {
        let mut changed = false;
        for r in rules.iter() {
            let mut need = level[r.head as usize];
            deps(&r.body, true, &mut |pred, positive| {
                if preds[pred as usize].kind == PredKind::Derived {
                    let want = level[pred as usize] + usize::from(!positive);
                    need = need.max(want);
                }
            });
            if need > level[r.head as usize] {
                if need > limit {
                    let name = preds[r.head as usize].sym.name.to_string();
                    let span = domain
                        .derived
                        .iter()
                        .find(|d| d.head.name.matches(&name))
                        .map_or(Span::default(), |d| d.head.span);
                    return Err(TaskError::Unstratifiable {
                        predicate: name,
                        span,
                    });
                }
                level[r.head as usize] = need;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for r in rules.iter_mut() {
        r.stratum = level[r.head as usize];
    }
    Ok(rules.iter().map(|r| r.stratum).max().unwrap_or(0) + 1)
}

/// Call `f(pred, positive)` for every atom in `c`, with its polarity: negation and the
/// antecedent of an implication flip it. Quantifiers keep it (both are monotone in their
/// body), so a rule may read its own stratum under `forall`.
fn deps(c: &Cond, positive: bool, f: &mut impl FnMut(u32, bool)) {
    match c {
        Cond::True | Cond::Eq(..) | Cond::Compare(..) => {}
        Cond::Atom(a) => f(a.pred, positive),
        Cond::Not(inner, _) => deps(inner, !positive, f),
        Cond::And(parts) | Cond::Or(parts, _) => parts.iter().for_each(|p| deps(p, positive, f)),
        Cond::Imply(a, b) => {
            deps(a, !positive, f);
            deps(b, positive, f);
        }
        Cond::Quant { body, .. } => deps(body, positive, f),
    }
}
