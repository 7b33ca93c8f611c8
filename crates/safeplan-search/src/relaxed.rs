//! The atoms of the delete relaxation, negative conditions included.
//!
//! The delete relaxation only sees what must be true, so a goal or precondition that an atom
//! be *false* (`(not (ispoint p))`, all of snake's goal) would be invisible to every
//! heuristic built on it: h_FF would be 0 everywhere and the search blind. As Fast
//! Downward's translator does, each atom that appears negatively in the goal, a
//! precondition or an effect's condition gets a *negated atom*, true in a state where the
//! atom is false and added by every action that deletes the atom. The compiled task has
//! exactly the real task's plans, so its delete relaxation is still a relaxation: h_max and
//! LM-cut stay admissible and landmarks stay landmarks.

use crate::eval::test;
use crate::ground::{GCond, GroundTask, Pre};
use crate::heuristic::BUILD_STOP_EVERY;
use crate::rows::Rows;

const NONE: u32 = u32::MAX;

/// The relaxation's atoms: the task's, then one negated atom per atom that is ever
/// required false.
pub(crate) struct RelaxedAtoms {
    /// The task's atoms.
    real: u32,
    /// Per task atom: its negated atom, or `NONE`.
    negated: Vec<u32>,
    /// Per negated atom (from `real` on): its task atom.
    of: Vec<u32>,
}

impl RelaxedAtoms {
    /// The relaxed atoms of `task`, or `None` when `stop` said to stop (asked every
    /// [`BUILD_STOP_EVERY`] actions).
    pub fn new_unless(task: &GroundTask, stop: &dyn Fn() -> bool) -> Option<RelaxedAtoms> {
        let real = task.atoms.len() as u32;
        let mut negated = vec![NONE; task.atoms.len()];
        let mut of = Vec::new();
        let mut note = |a: u32| {
            if let Some(slot) = negated.get_mut(a as usize)
                && *slot == NONE
            {
                *slot = real + of.len() as u32;
                of.push(a);
            }
        };
        task.goal.neg.iter().for_each(|&a| note(a));
        // What the rules owe is a relaxed goal too (`crate::obligations`).
        for r in &task.rules.rules {
            negative_atoms(&r.phi, &mut note);
            if let Some(psi) = &r.psi {
                negative_atoms(psi, &mut note);
            }
        }
        for (o, op) in task.ops.iter().enumerate() {
            if o.is_multiple_of(BUILD_STOP_EVERY) && stop() {
                return None;
            }
            op.pre.neg.iter().for_each(|&a| note(a));
            for e in &op.effects {
                e.cond.neg.iter().for_each(|&a| note(a));
            }
        }
        Some(RelaxedAtoms { real, negated, of })
    }

    /// The negated atom of task atom `a`, if it has one.
    pub fn negated(&self, a: u32) -> Option<u32> {
        self.negated.get(a as usize).copied().filter(|&n| n != NONE)
    }

    /// The task atom a relaxed atom stands for, and whether it is that atom's negation.
    pub fn task_atom(&self, atom: u32) -> (u32, bool) {
        if atom < self.real {
            (atom, false)
        } else {
            (self.of[(atom - self.real) as usize], true)
        }
    }

    /// How many atoms the relaxation has.
    pub fn len(&self) -> usize {
        self.real as usize + self.of.len()
    }

    /// The relaxed atoms a condition requires: its atoms, and the negated atoms of those it
    /// requires false.
    pub fn required(&self, pre: &Pre, out: &mut Vec<u32>) {
        out.extend_from_slice(&pre.pos);
        out.extend(pre.neg.iter().map(|&a| self.negated[a as usize]));
    }

    /// The relaxed atoms an effect adds: its adds, and the negated atoms of its deletes.
    pub fn added(&self, adds: &[u32], dels: &[u32], out: &mut Vec<u32>) {
        out.extend_from_slice(adds);
        out.extend(
            dels.iter()
                .map(|&a| self.negated[a as usize])
                .filter(|&n| n != NONE),
        );
    }

    /// Whether relaxed atom `atom` holds in the state with atom bits `s`.
    pub fn holds(&self, s: &[u64], atom: u32) -> bool {
        if atom < self.real {
            test(s, atom)
        } else {
            !test(s, self.of[(atom - self.real) as usize])
        }
    }

    /// Every relaxed atom that holds in `s`.
    pub fn each_true(&self, s: &[u64], mut f: impl FnMut(u32)) {
        for atom in 0..self.real {
            if test(s, atom) {
                f(atom);
            }
        }
        for (k, &a) in self.of.iter().enumerate() {
            if !test(s, a) {
                f(self.real + k as u32);
            }
        }
    }

    /// The relaxed actions of `task`: one per effect group that adds a relaxed atom, whose
    /// preconditions (sorted, each once) are the action's required atoms and the group's
    /// condition's, and whose adds are the group's. `None` when `stop` said to stop (asked
    /// every [`BUILD_STOP_EVERY`] actions). h_max, h_FF and the landmarks read these.
    pub fn actions_unless(
        &self,
        task: &GroundTask,
        stop: &dyn Fn() -> bool,
    ) -> Option<RelaxedActions> {
        let mut actions = RelaxedActions {
            op_of: Vec::new(),
            pres: Rows::new(),
            adds: Rows::new(),
        };
        let (mut pre, mut add) = (Vec::new(), Vec::new());
        for (o, op) in task.ops.iter().enumerate() {
            if o.is_multiple_of(BUILD_STOP_EVERY) && stop() {
                return None;
            }
            for e in &op.effects {
                add.clear();
                self.added(&e.adds, &e.dels, &mut add);
                if add.is_empty() {
                    continue;
                }
                pre.clear();
                self.required(&op.pre, &mut pre);
                self.required(&e.cond, &mut pre);
                pre.sort_unstable();
                pre.dedup();
                actions.op_of.push(o as u32);
                actions.pres.push_row(&pre);
                actions.adds.push_row(&add);
            }
        }
        Some(actions)
    }

    /// The relaxed goal atoms.
    pub fn goal(&self, task: &GroundTask) -> Vec<u32> {
        let mut g = Vec::new();
        self.required(&task.goal, &mut g);
        g.sort_unstable();
        g.dedup();
        g
    }
}

/// Every atom `c` requires false.
fn negative_atoms(c: &GCond, note: &mut impl FnMut(u32)) {
    match c {
        GCond::NotAtom(a) => note(*a),
        GCond::And(parts) | GCond::Or(parts) => parts.iter().for_each(|p| negative_atoms(p, note)),
        GCond::True | GCond::False | GCond::Atom(_) | GCond::Cmp { .. } => {}
    }
}

/// The relaxed actions of a task ([`RelaxedAtoms::actions_unless`]), row by row.
pub(crate) struct RelaxedActions {
    /// Per relaxed action: its ground action.
    pub op_of: Vec<u32>,
    /// Per relaxed action: its preconditions, sorted.
    pub pres: Rows,
    /// Per relaxed action: the relaxed atoms it adds.
    pub adds: Rows,
}
