//! Plans as models get them wrong: a known plan ([`Step`]s), mutated the way models err
//! ([`Mutation`]: a step repeated, dropped or swapped, a hallucinated object or action, a
//! wrong arity), to be written as a reply by [`crate::reply_gen`]. Reading such a reply
//! back must give exactly the mutated plan ("reading never changes the plan the model
//! wrote", docs/FORMAT.md), so the reply reader is tested against a truth that no reading
//! rule produced. Every choice comes from a seed, so a failure reproduces.

/// A plan step: an action name and its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The action.
    pub action: String,
    /// The arguments.
    pub args: Vec<String>,
}

impl Step {
    /// A step from `(action arg ...)` text.
    pub fn parse(text: &str) -> Option<Step> {
        let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
        let mut words = inner.split_whitespace().map(str::to_owned);
        Some(Step {
            action: words.next()?,
            args: words.collect(),
        })
    }

    /// `(action arg ...)`, lowercase: the form two readings are compared in (PDDL names
    /// are case-insensitive).
    pub fn key(&self) -> String {
        let mut s = format!("({}", self.action);
        for a in &self.args {
            s.push(' ');
            s.push_str(a);
        }
        s.push(')');
        s.to_ascii_lowercase()
    }
}

/// What a task names: enough to make a hallucinated name that is not the task's.
#[derive(Clone, Debug, Default)]
pub struct TaskNames {
    /// The task's actions (lowercase).
    pub actions: Vec<String>,
    /// The task's objects and constants (lowercase).
    pub objects: Vec<String>,
}

impl TaskNames {
    fn fresh(&self, base: &str, taken: &[String]) -> String {
        let mut name = base.to_string();
        let mut k = 2;
        while taken.iter().any(|t| t.eq_ignore_ascii_case(&name))
            || self.actions.iter().any(|t| t.eq_ignore_ascii_case(&name))
            || self.objects.iter().any(|t| t.eq_ignore_ascii_case(&name))
        {
            name = format!("{base}{k}");
            k += 1;
        }
        name
    }
}

/// How a model errs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mutation {
    /// The plan as it is.
    None,
    /// A step written twice in a row.
    Repeat,
    /// A step left out.
    Drop,
    /// An argument replaced by an object the task lacks (`table`, `floor`).
    HallucinatedObject,
    /// A step's action replaced by one the task lacks.
    HallucinatedAction,
    /// A step with one argument too many (or, with none to spare, one too few).
    WrongArity,
    /// Two neighbouring steps in the other order.
    Swap,
}

impl Mutation {
    /// Every mutation.
    pub const ALL: [Mutation; 7] = [
        Mutation::None,
        Mutation::Repeat,
        Mutation::Drop,
        Mutation::HallucinatedObject,
        Mutation::HallucinatedAction,
        Mutation::WrongArity,
        Mutation::Swap,
    ];

    /// Its name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Mutation::None => "none",
            Mutation::Repeat => "repeat",
            Mutation::Drop => "drop",
            Mutation::HallucinatedObject => "hallucinated object",
            Mutation::HallucinatedAction => "hallucinated action",
            Mutation::WrongArity => "wrong arity",
            Mutation::Swap => "swap",
        }
    }

    /// `steps` mutated at a position chosen by `seed`; `None` when the mutation does not
    /// apply (a swap in a one-step plan, a hallucinated object in a plan without arguments)
    /// or would leave no step.
    pub fn apply(self, steps: &[Step], names: &TaskNames, seed: u64) -> Option<Vec<Step>> {
        if steps.is_empty() {
            return None;
        }
        let mut out = steps.to_vec();
        let at = (seed % steps.len() as u64) as usize;
        match self {
            Mutation::None => {}
            Mutation::Repeat => out.insert(at, steps[at].clone()),
            Mutation::Drop => {
                out.remove(at);
            }
            Mutation::HallucinatedObject => {
                let with_args: Vec<usize> = (0..steps.len())
                    .filter(|&i| !steps[i].args.is_empty())
                    .collect();
                let i = *with_args.get((seed % with_args.len().max(1) as u64) as usize)?;
                let k = (seed / 7 % out[i].args.len() as u64) as usize;
                let base = ["table", "floor", "robot", "box9"][(seed / 3 % 4) as usize];
                out[i].args[k] = names.fresh(base, &[]);
            }
            Mutation::HallucinatedAction => {
                let base =
                    ["teleport", "pickup-carefully", "wait", "grasp"][(seed / 3 % 4) as usize];
                out[at].action = names.fresh(base, &[]);
            }
            Mutation::WrongArity => {
                let step = &mut out[at];
                if step.args.len() >= 2 && seed.is_multiple_of(2) {
                    step.args.pop();
                } else {
                    let extra = step
                        .args
                        .first()
                        .cloned()
                        .or_else(|| names.objects.first().cloned())
                        .unwrap_or_else(|| "x".into());
                    step.args.push(extra);
                }
            }
            Mutation::Swap => {
                if steps.len() < 2 {
                    return None;
                }
                let i = at.min(steps.len() - 2);
                out.swap(i, i + 1);
            }
        }
        (!out.is_empty()).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Vec<Step> {
        ["(pick-up a)", "(stack a b)"]
            .iter()
            .filter_map(|s| Step::parse(s))
            .collect()
    }

    #[test]
    fn mutations_change_what_they_say() {
        let names = TaskNames {
            actions: vec!["pick-up".into(), "stack".into()],
            objects: vec!["a".into(), "b".into(), "table".into()],
        };
        let keys = |m: Mutation, seed| {
            m.apply(&plan(), &names, seed)
                .map(|p| p.iter().map(Step::key).collect::<Vec<_>>())
        };
        assert_eq!(
            keys(Mutation::Repeat, 1),
            Some(vec![
                "(pick-up a)".into(),
                "(stack a b)".into(),
                "(stack a b)".into()
            ])
        );
        assert_eq!(keys(Mutation::Drop, 0), Some(vec!["(stack a b)".into()]));
        assert_eq!(
            keys(Mutation::Swap, 0),
            Some(vec!["(stack a b)".into(), "(pick-up a)".into()])
        );
        // `table` is an object of this task: the hallucinated one is another name.
        assert_eq!(
            keys(Mutation::HallucinatedObject, 0),
            Some(vec!["(pick-up table2)".into(), "(stack a b)".into()])
        );
    }
}
