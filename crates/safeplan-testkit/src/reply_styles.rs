//! Replies written by construction: a known plan, mutated the way models err, written in
//! the styles models answer in. Reading such a reply back must give exactly the plan that
//! was written ("reading never changes the plan the model wrote", docs/FORMAT.md), so the
//! reply reader is tested against a truth that no reading rule produced.
//!
//! [`Style`] lists the styles (numbered lists with blank lines and comments, bullets, bold
//! calls, an o1-style walkthrough with sub-bullets followed by a summary, JSON strings and
//! objects, calls, bare words in a code block, `(plan ...)`, PlanBench's `[PLAN]` section,
//! a `<think>` block before the answer, prose around a block, the plan stated twice);
//! [`Mutation`] the errors (a step repeated, dropped or swapped, a hallucinated object or
//! action, a wrong arity). Every choice a style makes (which sentence, where a comment goes)
//! comes from a seed, so a failure reproduces.

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

    fn paren(&self) -> String {
        let mut s = format!("({}", self.action);
        for a in &self.args {
            s.push(' ');
            s.push_str(a);
        }
        s.push(')');
        s
    }

    fn call(&self, upper: bool) -> String {
        let name = if upper {
            capitalise(&self.action)
        } else {
            self.action.clone()
        };
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| {
                if upper {
                    a.to_ascii_uppercase()
                } else {
                    a.clone()
                }
            })
            .collect();
        format!("{name}({})", args.join(", "))
    }

    fn bare(&self) -> String {
        let mut s = self.action.clone();
        for a in &self.args {
            s.push(' ');
            s.push_str(a);
        }
        s
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
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

/// How a reply states a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Style {
    /// `1. (a x)` per line after a sentence.
    Numbered,
    /// Numbered with a blank line between items.
    NumberedBlankLines,
    /// Numbered, each step followed by a comment (`; again`, `— frees x`).
    NumberedComments,
    /// `- (a x)`.
    Bulleted,
    /// `- a x`: bare words in a bulleted list.
    BulletedBare,
    /// `1. **A(X, Y)**`: calls in bold, capitalised.
    BoldCalls,
    /// An o1-style walkthrough: `1. **A(x, y)**:` with sub-bullets of preconditions and
    /// effects, then a `**Plan**:` summary list.
    Walkthrough,
    /// `{"plan": ["(a x)", ...]}` in a JSON block.
    JsonStrings,
    /// `{"plan": [{"action": "a", "args": ["x"]}, ...]}`.
    JsonObjects,
    /// `a(x, y)` per line.
    Calls,
    /// Bare words in a code block.
    FenceBare,
    /// `(plan (a x) ...)`.
    PlanWrapper,
    /// `[PLAN]` … `[PLAN END]`.
    PlanBench,
    /// A `<think>` block musing about other steps, then a numbered answer.
    ThinkThenAnswer,
    /// Prose, a `pddl` code block, more prose quoting a fact.
    ProseAround,
    /// A numbered list, then "In PDDL syntax:" and the same steps in a block.
    StatedTwice,
}

impl Style {
    /// Every style.
    pub const ALL: [Style; 16] = [
        Style::Numbered,
        Style::NumberedBlankLines,
        Style::NumberedComments,
        Style::Bulleted,
        Style::BulletedBare,
        Style::BoldCalls,
        Style::Walkthrough,
        Style::JsonStrings,
        Style::JsonObjects,
        Style::Calls,
        Style::FenceBare,
        Style::PlanWrapper,
        Style::PlanBench,
        Style::ThinkThenAnswer,
        Style::ProseAround,
        Style::StatedTwice,
    ];

    /// Its name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Style::Numbered => "numbered",
            Style::NumberedBlankLines => "numbered, blank lines",
            Style::NumberedComments => "numbered, comments",
            Style::Bulleted => "bulleted",
            Style::BulletedBare => "bulleted bare words",
            Style::BoldCalls => "bold calls",
            Style::Walkthrough => "walkthrough + summary",
            Style::JsonStrings => "JSON strings",
            Style::JsonObjects => "JSON objects",
            Style::Calls => "function calls",
            Style::FenceBare => "bare words in a fence",
            Style::PlanWrapper => "(plan ...)",
            Style::PlanBench => "[PLAN] … [PLAN END]",
            Style::ThinkThenAnswer => "<think> then answer",
            Style::ProseAround => "prose around a block",
            Style::StatedTwice => "stated twice",
        }
    }

    /// The reply stating `steps` in this style; `seed` picks the wording.
    pub fn write(self, steps: &[Step], seed: u64) -> String {
        let pick = |options: &[&'static str], k: u64| {
            options[((seed / k) % options.len() as u64) as usize]
        };
        let intro = pick(
            &[
                "Here is the plan:",
                "Sure! The following plan achieves the goal:",
                "To reach the goal, the robot can do the following.",
            ],
            1,
        );
        let outro = pick(
            &[
                "This plan reaches the goal.",
                "Each step's preconditions hold when it is taken.",
                "Let me know if you need anything else!",
            ],
            5,
        );
        let numbered = |f: &dyn Fn(&Step) -> String, sep: &str| {
            steps
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{}. {}", i + 1, f(s)))
                .collect::<Vec<_>>()
                .join(sep)
        };
        let lines =
            |f: &dyn Fn(&Step) -> String| steps.iter().map(f).collect::<Vec<_>>().join("\n");
        match self {
            Style::Numbered => format!("{intro}\n{}\n\n{outro}", numbered(&Step::paren, "\n")),
            Style::NumberedBlankLines => {
                format!("{intro}\n\n{}\n\n{outro}", numbered(&Step::paren, "\n\n"))
            }
            Style::NumberedComments => {
                let comment = |s: &Step| {
                    let note = match seed % 3 {
                        0 => format!(" ; {}", s.action),
                        1 => " ; again".to_string(),
                        _ => format!(
                            " — this uses {}",
                            s.args.first().map_or("nothing", String::as_str)
                        ),
                    };
                    format!("{}{note}", s.paren())
                };
                format!("{intro}\n{}", numbered(&comment, "\n"))
            }
            Style::Bulleted => format!(
                "{intro}\n{}\n\n{outro}",
                lines(&|s| format!("- {}", s.paren()))
            ),
            Style::BulletedBare => format!("{intro}\n{}", lines(&|s| format!("- {}", s.bare()))),
            Style::BoldCalls => format!(
                "{intro}\n\n{}\n\n{outro}",
                numbered(&|s| format!("**{}**", s.call(true)), "\n")
            ),
            Style::Walkthrough => {
                let walk = steps
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        let first = s.args.first().map_or("the robot".to_string(), |a| a.to_string());
                        format!(
                            "{}. **{}**:\n   - Preconditions: {first} is where it must be, and the hand is free.\n   - Effects: ({} {first}) holds afterwards.\n   - Note: {}",
                            i + 1,
                            s.call(false),
                            s.action,
                            pick(&["this is safe.", "nothing else changes.", "see above."], 11)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n\n");
                format!(
                    "Let me work through the plan step by step.\n\n{walk}\n\n**Plan**:\n{}",
                    numbered(&|s| s.call(false), "\n")
                )
            }
            Style::JsonStrings => {
                let items: Vec<String> = steps
                    .iter()
                    .map(|s| serde_json_string(&s.paren()))
                    .collect();
                format!(
                    "{intro}\n```json\n{{\"plan\": [{}]}}\n```",
                    items.join(", ")
                )
            }
            Style::JsonObjects => {
                let items: Vec<String> = steps
                    .iter()
                    .map(|s| {
                        let args: Vec<String> =
                            s.args.iter().map(|a| serde_json_string(a)).collect();
                        format!(
                            "{{\"action\": {}, \"args\": [{}]}}",
                            serde_json_string(&s.action),
                            args.join(", ")
                        )
                    })
                    .collect();
                format!("{intro}\n{{\"plan\": [\n  {}\n]}}", items.join(",\n  "))
            }
            Style::Calls => format!("Plan:\n{}", lines(&|s| s.call(false))),
            Style::FenceBare => format!("{intro}\n```\n{}\n```\n{outro}", lines(&Step::bare)),
            Style::PlanWrapper => format!(
                "In PDDL syntax:\n\n(plan\n{}\n)\n",
                lines(&|s| format!("    {}", s.paren()))
            ),
            Style::PlanBench => format!("[PLAN]\n{}\n[PLAN END]\n", lines(&Step::paren)),
            Style::ThinkThenAnswer => {
                let musing: Vec<String> = steps.iter().rev().take(3).map(Step::paren).collect();
                format!(
                    "<think>\nMaybe {} first? Or:\n{}\nNo, that fails.\n</think>\n\n{}",
                    musing.first().cloned().unwrap_or_default(),
                    musing.join("\n"),
                    numbered(&Step::paren, "\n")
                )
            }
            Style::ProseAround => format!(
                "{intro}\n\n```pddl\n{}\n```\n\nInitially (clear {}) holds, so the first step is possible. {outro}",
                lines(&Step::paren),
                steps[0].args.first().map_or("x", String::as_str)
            ),
            Style::StatedTwice => format!(
                "{intro}\n\n{}\n\nIn PDDL syntax:\n\n```\n{}\n```",
                numbered(&Step::paren, "\n"),
                lines(&Step::paren)
            ),
        }
    }
}

/// `s` as a JSON string literal.
fn serde_json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
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

    #[test]
    fn every_style_names_every_step() {
        for style in Style::ALL {
            let text = style.write(&plan(), 4);
            for step in plan() {
                assert!(
                    text.to_ascii_lowercase().contains(&step.action),
                    "{}: {text}",
                    style.name()
                );
            }
        }
    }
}
