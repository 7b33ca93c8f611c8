//! PDDL3 trajectory constraints and preferences, compiled (SEMANTICS.md §2c): the rules as
//! written, and their instances once every `forall` around them is expanded, as VAL does.
//!
//! This is data the [`Task`](super::Task) holds and the compiler writes; the automata that
//! check a plan's states against it are the tracker in `crate::constraints`. A `forall`
//! written *around* a preference makes one preference instance per binding; a `forall`
//! *inside* one makes a single instance that is broken when any of its parts is (VAL's
//! counting, and the PDDL3 paper's).

use compact_str::CompactString;
use safeplan_pddl::FileKind;
use safeplan_pddl::ast::{Constraint, ConstraintOp, Modal};

use crate::verdict::SourceRef;

use super::TaskError;
use super::compiled::{Cond, ObjId, QVar};
use super::compiler::{Compiler, Scope};

/// The most constraint instances a task may expand into (each `forall` multiplies them);
/// past it the task is refused rather than slowing every step down.
pub const MAX_CONSTRAINT_INSTANCES: usize = 1_000_000;

/// A task's trajectory constraints and preferences, compiled and expanded.
#[derive(Clone, Debug, Default)]
pub(crate) struct Constraints {
    /// One per operator written in the source.
    pub rules: Vec<Rule>,
    /// One per binding of the `forall`s around a rule.
    pub instances: Vec<Instance>,
    /// The bindings of the instances, back to back (`rules[i.rule].vars` objects each).
    pub args: Vec<ObjId>,
    /// What is counted: a hard instance, or one instance of a preference.
    pub groups: Vec<Strength>,
    /// The preference names, as first written; a [`Strength::Soft`] name indexes here.
    pub preferences: Vec<CompactString>,
    /// Binding slots the conditions need (the `forall` variables, then quantifiers).
    pub slots: usize,
    /// Whether an action's precondition holds a preference (counted per execution, by
    /// [`Tracker::count_action`]).
    pub action_preferences: bool,
}

/// One operator applied to its compiled conditions.
#[derive(Clone, Debug)]
pub(crate) struct Rule {
    pub op: ConstraintOp,
    /// The first condition (the trigger of the two-condition operators).
    pub phi: Cond,
    /// The second condition of `sometime-after`, `sometime-before`, `always-within`.
    pub psi: Option<Cond>,
    /// The times written: the deadline of `within` / `always-within`, the start of
    /// `hold-after`, both ends of `hold-during`.
    pub times: [f64; 2],
    /// The `forall` variables around it, in slots `0..vars.len()`.
    pub vars: Vec<QVar>,
    /// Where it is written.
    pub source: SourceRef,
}

/// One ground instance of a rule.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Instance {
    pub rule: u32,
    /// Start of its binding in [`Constraints::args`].
    pub args: u32,
    /// Its counting group in [`Constraints::groups`].
    pub group: u32,
}

/// Whether breaking a group makes the plan invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Strength {
    Hard,
    /// A preference instance; the name's index in [`Constraints::preferences`], or `None`
    /// when it has none.
    Soft(Option<u32>),
}

impl Constraints {
    /// Whether the task has any constraint or preference at all.
    pub fn is_empty(&self) -> bool {
        self.instances.is_empty() && self.rules.is_empty() && !self.action_preferences
    }

    /// Whether the task has hard constraints.
    pub fn has_hard(&self) -> bool {
        self.groups.contains(&Strength::Hard)
    }

    /// Whether the task has preferences (of which the metric may read the counts).
    pub fn has_preferences(&self) -> bool {
        !self.preferences.is_empty()
            || self.action_preferences
            || self.groups.iter().any(|g| *g != Strength::Hard)
    }

    pub(crate) fn binding(&self, i: &Instance) -> &[ObjId] {
        let n = self.rules[i.rule as usize].vars.len();
        let start = i.args as usize;
        &self.args[start..start + n]
    }
}

/// The compiled shape of a constraint tree, before its `forall`s are expanded.
enum Shape {
    And(Vec<Shape>),
    Forall(Vec<QVar>, Box<Shape>),
    Preference(Option<u32>, Box<Shape>),
    Rule(u32),
}

impl Compiler<'_> {
    /// Compile the domain's `:constraints`, the problem's goal preferences and its
    /// `:constraints`, and expand their `forall`s.
    pub(crate) fn constraints(&mut self) -> Result<Constraints, TaskError> {
        let mut out = Constraints::default();
        let mut scope = Scope::default();
        let mut shapes = Vec::new();
        let sources = [
            (self.domain.constraints.as_ref(), FileKind::Domain),
            (self.problem.goal_preferences.as_ref(), FileKind::Problem),
            (self.problem.constraints.as_ref(), FileKind::Problem),
        ];
        for (c, file) in sources {
            if let Some(c) = c {
                shapes.push(self.constraint_shape(c, &mut scope, file, &mut out)?);
            }
        }
        out.slots = scope.max;
        let mut binding = vec![0; scope.max];
        for shape in &shapes {
            self.expand(shape, &mut binding, None, &mut out)?;
        }
        Ok(out)
    }

    fn constraint_shape(
        &mut self,
        c: &Constraint,
        scope: &mut Scope,
        file: FileKind,
        out: &mut Constraints,
    ) -> Result<Shape, TaskError> {
        Ok(match c {
            Constraint::And(parts, _) => Shape::And(
                parts
                    .iter()
                    .map(|p| self.constraint_shape(p, scope, file, out))
                    .collect::<Result<_, _>>()?,
            ),
            Constraint::Forall(vars, body, _) => {
                let depth = scope.vars.len();
                let qvars = self.quantified(vars, scope);
                let body = self.constraint_shape(body, scope, file, out);
                scope.vars.truncate(depth);
                Shape::Forall(qvars, Box::new(body?))
            }
            Constraint::Preference(name, body, _) => {
                let id = name.as_ref().map(|n| {
                    match out.preferences.iter().position(|p| n.matches(p)) {
                        Some(i) => i as u32,
                        None => {
                            out.preferences.push(n.text.clone());
                            (out.preferences.len() - 1) as u32
                        }
                    }
                });
                Shape::Preference(id, Box::new(self.constraint_shape(body, scope, file, out)?))
            }
            Constraint::Modal(m, span) => {
                let conditions = m.conditions();
                let phi = self.cond(conditions[0], scope, file)?;
                let psi = match conditions.get(1) {
                    Some(f) => Some(self.cond(f, scope, file)?),
                    None => None,
                };
                let times = match &**m {
                    Modal::Within(t, _) | Modal::HoldAfter(t, _) | Modal::AlwaysWithin(t, ..) => {
                        [*t, 0.0]
                    }
                    Modal::HoldDuring(a, b, _) => [*a, *b],
                    _ => [0.0, 0.0],
                };
                // The `forall` variables around the rule, in slots `0..n`.
                let vars = scope
                    .vars
                    .iter()
                    .map(|(name, slot, domain)| QVar {
                        slot: *slot,
                        name: name.clone(),
                        domain: *domain,
                    })
                    .collect();
                out.rules.push(Rule {
                    op: m.op(),
                    phi,
                    psi,
                    times,
                    vars,
                    source: SourceRef { file, span: *span },
                });
                Shape::Rule((out.rules.len() - 1) as u32)
            }
        })
    }

    fn expand(
        &self,
        shape: &Shape,
        binding: &mut Vec<ObjId>,
        group: Option<u32>,
        out: &mut Constraints,
    ) -> Result<(), TaskError> {
        match shape {
            Shape::And(parts) => {
                for p in parts {
                    self.expand(p, binding, group, out)?;
                }
            }
            Shape::Forall(vars, body) => self.expand_forall(vars, body, binding, group, out)?,
            Shape::Preference(name, body) => {
                // A preference inside a preference is refused by the parser; a hand-built
                // one counts with the outer one.
                let g = match group {
                    Some(g) => g,
                    None => {
                        out.groups.push(Strength::Soft(*name));
                        (out.groups.len() - 1) as u32
                    }
                };
                self.expand(body, binding, Some(g), out)?;
            }
            Shape::Rule(r) => {
                if out.instances.len() >= MAX_CONSTRAINT_INSTANCES {
                    return Err(TaskError::TooManyConstraints {
                        limit: MAX_CONSTRAINT_INSTANCES,
                        span: out.rules[*r as usize].source.span,
                        file: out.rules[*r as usize].source.file,
                    });
                }
                let g = match group {
                    Some(g) => g,
                    None => {
                        out.groups.push(Strength::Hard);
                        (out.groups.len() - 1) as u32
                    }
                };
                let n = out.rules[*r as usize].vars.len();
                let args = out.args.len() as u32;
                out.args.extend_from_slice(&binding[..n]);
                out.instances.push(Instance {
                    rule: *r,
                    args,
                    group: g,
                });
            }
        }
        Ok(())
    }

    fn expand_forall(
        &self,
        vars: &[QVar],
        body: &Shape,
        binding: &mut Vec<ObjId>,
        group: Option<u32>,
        out: &mut Constraints,
    ) -> Result<(), TaskError> {
        let Some((first, rest)) = vars.split_first() else {
            return self.expand(body, binding, group, out);
        };
        for &o in &self.domains[first.domain as usize] {
            binding[first.slot as usize] = o;
            self.expand_forall(rest, body, binding, group, out)?;
        }
        Ok(())
    }
}
