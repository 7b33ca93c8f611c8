//! Replies composed from independent dimensions, not picked from a list of templates.
//!
//! A model's reply varies along axes that do not depend on each other: how a step is
//! written, how many steps share a line and what joins them, how the list is numbered,
//! what labels and notes stand around the steps, what wraps the plan, which spaces and
//! case it uses, what prose surrounds it, whether a draft or a restatement comes with it.
//! [`Shape`] holds one value of each; [`Shape::from_seed`] draws every dimension from its
//! own digits of a seed, so a property test (or a fixed seed over every corpus plan)
//! reaches combinations nobody wrote down, and a failing case reproduces from its seed.
//! [`Shape::write`] writes any plan in that shape; reading it back must give exactly that
//! plan (docs/FORMAT.md, "The invariant").
//!
//! Some combinations cannot be written (bare words cannot share a line; a JSON answer has
//! no list numbering). [`Shape::write`] then falls back along that dimension and returns
//! the shape it really wrote, so counts per dimension are counts of what was written.

use crate::reply_styles::Step;

/// How each step is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Syntax {
    /// `(a x y)`.
    Paren,
    /// `a(x, y)`.
    Call,
    /// `a("x", "y")`.
    QuotedCall,
    /// `a('x', 'y')`.
    SingleQuotedCall,
    /// `a x y` (in a list item or a code block).
    Bare,
    /// `{"plan": ["(a x y)", ...]}`.
    JsonString,
    /// `{"plan": [{"action": "a", "args": ["x", "y"]}, ...]}`.
    JsonObject,
}

/// What joins steps that share a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Joiner {
    /// A space, nothing else.
    Nothing,
    /// `, `.
    Comma,
    /// `; `.
    Semicolon,
    /// `, then `.
    Then,
    /// ` and `.
    And,
    /// ` -> `.
    Arrow,
    /// ` → `.
    UnicodeArrow,
    /// The next item's number: `1. (a x) 2. (b y)`.
    Number,
}

/// How the lines of steps are numbered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Numbering {
    /// `1.` `2.` `3.`.
    Sequential,
    /// `1.` on every item (Markdown renumbers).
    AllOne,
    /// A number written twice (`2.` after `2.`).
    Repeated,
    /// Numbers skipped (`1.` `3.` `7.`).
    Skipped,
    /// `1.1` `1.2`.
    Decimal,
    /// `1)` `2)`.
    Paren,
    /// `- `, `* `, `• ` (mixed).
    Bullets,
    /// `Step 1:`.
    StepWord,
    /// No marker.
    None,
}

/// Labels and notes around the steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Label {
    /// Nothing.
    None,
    /// A label line of words before each line of steps (`Step 1: Pick up a.`⏎`(pick-up a)`).
    LineBefore,
    /// A label before the steps on their line (`Pick up a: (pick-up a)`).
    Inline,
    /// A note indented under each item (`   - Effects: a is held.`).
    NoteUnder,
    /// A comment after the steps (`; again`).
    Comment,
}

/// What wraps the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wrapper {
    /// Nothing.
    None,
    /// A code block without a language.
    Fence,
    /// A ```` ```pddl ```` block.
    FenceLang,
    /// `(plan …)`.
    PlanForm,
    /// `[PLAN]` … `[PLAN END]`.
    PlanBench,
    /// A `<think>` block musing about other steps first.
    Think,
    /// A Markdown heading `## Plan` first.
    Heading,
}

/// The spaces between words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Spacing {
    /// ASCII spaces.
    Ascii,
    /// U+00A0 no-break spaces.
    NoBreak,
    /// U+202F narrow no-break spaces (o1's `Feast(b, a)`).
    Narrow,
    /// U+3000 and U+2003, and tabs.
    Wide,
}

/// The case of names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Case {
    /// As the task writes them.
    AsIs,
    /// All capitals.
    Upper,
    /// The action capitalised.
    Capitalised,
}

/// Prose around and between the steps (never step-shaped).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Prose {
    /// None.
    None,
    /// A sentence before.
    Before,
    /// A sentence after.
    After,
    /// Before and after.
    Around,
    /// A sentence between two lines of steps, at the margin.
    Between,
}

/// Other statements in the reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Drafts {
    /// The plan alone.
    None,
    /// A different draft first, then `Final plan:` and the plan.
    DraftThenFinal,
    /// The plan, then `In PDDL syntax:` and the same steps in a block.
    Restated,
    /// An o1-style walkthrough of the steps with notes, then `**Plan**:` and the plan.
    Walkthrough,
}

/// One value of every dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shape {
    /// How a step is written.
    pub syntax: Syntax,
    /// Steps per line (1 to 3).
    pub per_line: usize,
    /// What joins steps on a line.
    pub joiner: Joiner,
    /// The numbering.
    pub numbering: Numbering,
    /// Labels and notes.
    pub label: Label,
    /// The wrapper.
    pub wrapper: Wrapper,
    /// The spaces.
    pub spacing: Spacing,
    /// The case.
    pub case: Case,
    /// The prose.
    pub prose: Prose,
    /// Drafts and restatements.
    pub drafts: Drafts,
}

const SYNTAXES: [Syntax; 7] = [
    Syntax::Paren,
    Syntax::Call,
    Syntax::QuotedCall,
    Syntax::SingleQuotedCall,
    Syntax::Bare,
    Syntax::JsonString,
    Syntax::JsonObject,
];
const JOINERS: [Joiner; 8] = [
    Joiner::Nothing,
    Joiner::Comma,
    Joiner::Semicolon,
    Joiner::Then,
    Joiner::And,
    Joiner::Arrow,
    Joiner::UnicodeArrow,
    Joiner::Number,
];
const NUMBERINGS: [Numbering; 9] = [
    Numbering::Sequential,
    Numbering::AllOne,
    Numbering::Repeated,
    Numbering::Skipped,
    Numbering::Decimal,
    Numbering::Paren,
    Numbering::Bullets,
    Numbering::StepWord,
    Numbering::None,
];
const LABELS: [Label; 5] = [
    Label::None,
    Label::LineBefore,
    Label::Inline,
    Label::NoteUnder,
    Label::Comment,
];
const WRAPPERS: [Wrapper; 7] = [
    Wrapper::None,
    Wrapper::Fence,
    Wrapper::FenceLang,
    Wrapper::PlanForm,
    Wrapper::PlanBench,
    Wrapper::Think,
    Wrapper::Heading,
];
const SPACINGS: [Spacing; 4] = [
    Spacing::Ascii,
    Spacing::NoBreak,
    Spacing::Narrow,
    Spacing::Wide,
];
const CASES: [Case; 3] = [Case::AsIs, Case::Upper, Case::Capitalised];
const PROSES: [Prose; 5] = [
    Prose::None,
    Prose::Before,
    Prose::After,
    Prose::Around,
    Prose::Between,
];
const DRAFTS: [Drafts; 4] = [
    Drafts::None,
    Drafts::DraftThenFinal,
    Drafts::Restated,
    Drafts::Walkthrough,
];

/// One dimension's name and value, for tables.
pub type Dimension = (&'static str, String);

impl Shape {
    /// Every dimension drawn from its own digits of `seed` (mixed radix, after mixing the
    /// seed so that near seeds differ everywhere).
    pub fn from_seed(seed: u64) -> Shape {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (seed >> 29);
        x ^= x >> 31;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let mut draw = |n: usize| {
            let v = (x % n as u64) as usize;
            x /= n as u64;
            v
        };
        Shape {
            syntax: SYNTAXES[draw(SYNTAXES.len())],
            per_line: 1 + draw(3),
            joiner: JOINERS[draw(JOINERS.len())],
            numbering: NUMBERINGS[draw(NUMBERINGS.len())],
            label: LABELS[draw(LABELS.len())],
            wrapper: WRAPPERS[draw(WRAPPERS.len())],
            spacing: SPACINGS[draw(SPACINGS.len())],
            case: CASES[draw(CASES.len())],
            prose: PROSES[draw(PROSES.len())],
            drafts: DRAFTS[draw(DRAFTS.len())],
        }
    }

    /// Each dimension's name and value.
    pub fn dimensions(&self) -> Vec<Dimension> {
        vec![
            ("step syntax", format!("{:?}", self.syntax)),
            ("steps per line", self.per_line.to_string()),
            ("joiner", format!("{:?}", self.joiner)),
            ("numbering", format!("{:?}", self.numbering)),
            ("labels and notes", format!("{:?}", self.label)),
            ("wrapper", format!("{:?}", self.wrapper)),
            ("spacing", format!("{:?}", self.spacing)),
            ("case", format!("{:?}", self.case)),
            ("prose", format!("{:?}", self.prose)),
            ("drafts", format!("{:?}", self.drafts)),
        ]
    }

    /// The shape with the combinations that cannot be written replaced, dimension by
    /// dimension.
    pub fn writable(mut self, steps: &[Step]) -> Shape {
        let json = matches!(self.syntax, Syntax::JsonString | Syntax::JsonObject);
        if json {
            self.per_line = 1;
            self.joiner = Joiner::Nothing;
            self.numbering = Numbering::None;
            self.label = Label::None;
            if !matches!(
                self.wrapper,
                Wrapper::None | Wrapper::Fence | Wrapper::Think
            ) {
                self.wrapper = Wrapper::None;
            }
            if self.prose == Prose::Between {
                self.prose = Prose::Around;
            }
        }
        if self.syntax == Syntax::Bare {
            // Bare words: one step a line, in a list item or a code block.
            self.per_line = 1;
            if matches!(self.label, Label::LineBefore | Label::Inline) {
                self.label = Label::None;
            }
            if self.numbering == Numbering::None
                && !matches!(self.wrapper, Wrapper::Fence | Wrapper::FenceLang)
            {
                self.numbering = Numbering::Sequential;
            }
            if matches!(self.wrapper, Wrapper::PlanForm) {
                self.wrapper = Wrapper::Fence;
            }
        }
        if self.per_line == 1 {
            self.joiner = Joiner::Nothing;
        }
        if self.joiner == Joiner::Number && self.numbering == Numbering::None {
            self.joiner = Joiner::Comma;
        }
        if self.wrapper == Wrapper::PlanForm {
            // Inside `(plan …)`: parenthesised steps, no list markup or labels.
            self.syntax = Syntax::Paren;
            self.numbering = Numbering::None;
            if matches!(self.joiner, Joiner::Number) {
                self.joiner = Joiner::Nothing;
            }
            if matches!(
                self.label,
                Label::LineBefore | Label::Inline | Label::NoteUnder
            ) {
                self.label = Label::None;
            }
        }
        if matches!(self.wrapper, Wrapper::Fence | Wrapper::FenceLang) {
            // Code blocks hold steps, not Markdown lists with notes.
            if matches!(
                self.label,
                Label::NoteUnder | Label::LineBefore | Label::Inline
            ) {
                self.label = Label::None;
            }
            if self.prose == Prose::Between {
                self.prose = Prose::Around;
            }
        }
        if self.label == Label::NoteUnder && self.numbering == Numbering::None {
            self.numbering = Numbering::Bullets;
        }
        if self.label == Label::LineBefore && self.numbering == Numbering::None {
            self.numbering = Numbering::StepWord;
        }
        if steps.len() < 2 && self.drafts == Drafts::DraftThenFinal {
            self.drafts = Drafts::Restated;
        }
        self
    }

    /// The reply stating `steps` in this shape (made writable first), and the shape
    /// written. `seed` picks the wording.
    pub fn write(self, steps: &[Step], seed: u64) -> (String, Shape) {
        let shape = self.writable(steps);
        let body = shape.statement(steps, seed);
        let mut out = String::new();
        if matches!(shape.prose, Prose::Before | Prose::Around) {
            out.push_str(pick(
                &[
                    "Here is the plan:",
                    "Sure! The following plan reaches the goal.",
                    "Let me think about what has to happen first.\n\nThe robot can do this:",
                ],
                seed,
            ));
            out.push_str("\n\n");
        }
        match shape.drafts {
            Drafts::None | Drafts::Restated => {}
            Drafts::DraftThenFinal => {
                let mut draft = steps.to_vec();
                draft.pop();
                out.push_str("Draft:\n");
                out.push_str(&shape.statement(&draft, seed / 3));
                out.push_str("\n\nThat misses a step.\n\nFinal plan:\n");
            }
            Drafts::Walkthrough => {
                out.push_str("Let me work through the steps.\n\n");
                for (i, s) in steps.iter().enumerate() {
                    out.push_str(&format!(
                        "{}. **{}**:\n   - Preconditions: the hand is free.\n   - Effects: {} is done.\n\n",
                        i + 1,
                        s.call_form(),
                        s.action
                    ));
                }
                out.push_str("**Plan**:\n");
            }
        }
        out.push_str(&body);
        if shape.drafts == Drafts::Restated {
            out.push_str("\n\nIn PDDL syntax:\n\n```\n");
            for s in steps {
                out.push_str(&s.key());
                out.push('\n');
            }
            out.push_str("```");
        }
        if matches!(shape.prose, Prose::After | Prose::Around) {
            out.push_str("\n\n");
            out.push_str(pick(
                &[
                    "This plan reaches the goal.",
                    "Each step's preconditions hold when it is taken.",
                    "Let me know if you need anything else!",
                ],
                seed / 7,
            ));
        }
        (out, shape)
    }

    /// One statement of `steps` in this (writable) shape, with its wrapper.
    fn statement(&self, steps: &[Step], seed: u64) -> String {
        match self.syntax {
            Syntax::JsonString | Syntax::JsonObject => {
                let items: Vec<String> = steps
                    .iter()
                    .map(|s| {
                        let s = self.cased(s);
                        if self.syntax == Syntax::JsonString {
                            json_string(&self.spaced(&paren(&s)))
                        } else {
                            let args: Vec<String> = s.args.iter().map(|a| json_string(a)).collect();
                            format!(
                                "{{\"action\": {}, \"args\": [{}]}}",
                                json_string(&s.action),
                                args.join(", ")
                            )
                        }
                    })
                    .collect();
                let json = format!("{{\"plan\": [{}]}}", items.join(", "));
                return self.wrapped(json, seed);
            }
            _ => {}
        }
        let lines: Vec<String> = steps
            .chunks(self.per_line.max(1))
            .enumerate()
            .flat_map(|(k, chunk)| self.line(k, chunk, steps.len(), seed))
            .collect();
        let mut text = String::new();
        let between = lines.len() / 2;
        for (i, l) in lines.iter().enumerate() {
            if self.prose == Prose::Between && i == between && i > 0 {
                text.push_str("This keeps the hand free for what comes next.\n");
            }
            text.push_str(l);
            text.push('\n');
        }
        self.wrapped(text.trim_end().to_string(), seed)
    }

    /// The line (or lines: a label line, notes) of the `k`-th chunk of steps.
    fn line(&self, k: usize, chunk: &[Step], total: usize, seed: u64) -> Vec<String> {
        let first = k * self.per_line.max(1);
        let written: Vec<String> = chunk.iter().map(|s| self.step(s)).collect();
        let mut joined = String::new();
        for (i, w) in written.iter().enumerate() {
            if i > 0 {
                joined.push_str(&match self.joiner {
                    Joiner::Nothing => " ".to_string(),
                    Joiner::Comma => ", ".to_string(),
                    Joiner::Semicolon => "; ".to_string(),
                    Joiner::Then => ", then ".to_string(),
                    Joiner::And => " and ".to_string(),
                    Joiner::Arrow => " -> ".to_string(),
                    Joiner::UnicodeArrow => " → ".to_string(),
                    Joiner::Number => format!(" {} ", self.marker(first + i, seed).trim_end()),
                });
            }
            joined.push_str(w);
        }
        let marker = self.marker(first, seed);
        let words = |s: &Step| {
            let mut w = format!("Do {}", s.action.replace(['-', '_'], " "));
            for a in &s.args {
                w.push_str(" with ");
                w.push_str(a);
            }
            w
        };
        let _ = total;
        match self.label {
            Label::None => vec![format!("{marker}{joined}")],
            Label::Comment => vec![format!(
                "{marker}{joined} ; {}",
                pick(
                    &["again", "this frees the way", "now the next one"],
                    seed / 5
                )
            )],
            Label::Inline => vec![format!("{marker}{}: {joined}", words(&chunk[0]))],
            Label::LineBefore => vec![format!("{marker}{}.", words(&chunk[0])), joined],
            Label::NoteUnder => {
                let indent = " ".repeat(marker.chars().count().max(2));
                vec![
                    format!("{marker}{joined}"),
                    format!("{indent}- Effects: the step is done."),
                ]
            }
        }
    }

    /// The list marker of the `i`-th line (with its trailing space), or nothing.
    fn marker(&self, i: usize, seed: u64) -> String {
        let n = i + 1;
        match self.numbering {
            Numbering::Sequential => format!("{n}. "),
            Numbering::AllOne => "1. ".to_string(),
            Numbering::Repeated => format!("{}. ", if i > 0 && i % 3 == 1 { n - 1 } else { n }),
            Numbering::Skipped => format!("{}. ", 2 * n - 1),
            Numbering::Decimal => format!("1.{n} "),
            Numbering::Paren => format!("{n}) "),
            Numbering::Bullets => pick(&["- ", "* ", "• "], seed / 11 + i as u64).to_string(),
            Numbering::StepWord => format!("Step {n}: "),
            Numbering::None => String::new(),
        }
    }

    /// One step in this shape's syntax, case and spacing.
    fn step(&self, s: &Step) -> String {
        let s = self.cased(s);
        let text = match self.syntax {
            Syntax::Paren | Syntax::JsonString => paren(&s),
            Syntax::Call => format!("{}({})", s.action, s.args.join(", ")),
            Syntax::QuotedCall => {
                let args: Vec<String> = s.args.iter().map(|a| format!("\"{a}\"")).collect();
                format!("{}({})", s.action, args.join(", "))
            }
            Syntax::SingleQuotedCall => {
                let args: Vec<String> = s.args.iter().map(|a| format!("'{a}'")).collect();
                format!("{}({})", s.action, args.join(", "))
            }
            Syntax::Bare | Syntax::JsonObject => {
                let mut w = s.action.clone();
                for a in &s.args {
                    w.push(' ');
                    w.push_str(a);
                }
                w
            }
        };
        self.spaced(&text)
    }

    fn cased(&self, s: &Step) -> Step {
        match self.case {
            Case::AsIs => s.clone(),
            Case::Upper => Step {
                action: s.action.to_uppercase(),
                args: s.args.iter().map(|a| a.to_uppercase()).collect(),
            },
            Case::Capitalised => {
                let mut c = s.action.chars();
                let action = match c.next() {
                    Some(f) => f.to_uppercase().chain(c).collect(),
                    None => String::new(),
                };
                Step {
                    action,
                    args: s.args.clone(),
                }
            }
        }
    }

    /// Spaces inside a step replaced by this shape's.
    fn spaced(&self, text: &str) -> String {
        match self.spacing {
            Spacing::Ascii => text.to_string(),
            Spacing::NoBreak => text.replace(' ', "\u{00A0}"),
            Spacing::Narrow => text.replace(' ', "\u{202F}"),
            Spacing::Wide => text.replacen(' ', "\u{3000}", 1).replace(' ', "\u{2003}"),
        }
    }

    fn wrapped(&self, body: String, seed: u64) -> String {
        match self.wrapper {
            Wrapper::None => body,
            Wrapper::Fence => format!("```\n{body}\n```"),
            Wrapper::FenceLang => format!("```pddl\n{body}\n```"),
            Wrapper::PlanForm => format!("(plan\n{body}\n)"),
            Wrapper::PlanBench => format!("[PLAN]\n{body}\n[PLAN END]"),
            Wrapper::Think => format!(
                "<think>\n{}\nHmm, maybe (drop-everything now) first? No.\n</think>\n\n{body}",
                pick(
                    &["The goal needs care.", "Let me check the preconditions."],
                    seed
                )
            ),
            Wrapper::Heading => format!("## Plan\n\n{body}"),
        }
    }
}

impl Step {
    fn call_form(&self) -> String {
        format!("{}({})", self.action, self.args.join(", "))
    }
}

fn paren(s: &Step) -> String {
    let mut w = format!("({}", s.action);
    for a in &s.args {
        w.push(' ');
        w.push_str(a);
    }
    w.push(')');
    w
}

fn pick(options: &[&'static str], seed: u64) -> &'static str {
    options[(seed % options.len() as u64) as usize]
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
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

/// A refusal, sometimes mentioning the empty plan or an impossibility in passing: never a
/// plan, never the empty plan.
pub fn refusal(seed: u64) -> String {
    pick(
        &[
            "I'm sorry, but I can't help with planning this task.",
            "I'm sorry, I can't produce a plan. An empty plan will not work.",
            "I apologize, but I cannot provide a plan for this. Even the empty plan fails.",
            "As an AI, I am unable to plan robot actions.",
        ],
        seed,
    )
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seed_writes_every_step() {
        let plan: Vec<Step> = ["(pick-up a)", "(stack a b)", "(put-down c)"]
            .iter()
            .filter_map(|s| Step::parse(s))
            .collect();
        for seed in 0..500 {
            let (text, shape) = Shape::from_seed(seed).write(&plan, seed);
            let lower = text.to_lowercase();
            for s in &plan {
                assert!(lower.contains(&s.action), "{shape:?}: {text}");
            }
        }
    }

    #[test]
    fn seeds_reach_every_value_of_every_dimension() {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..20_000 {
            for d in Shape::from_seed(seed).dimensions() {
                seen.insert(d);
            }
        }
        let want = SYNTAXES.len()
            + 3
            + JOINERS.len()
            + NUMBERINGS.len()
            + LABELS.len()
            + WRAPPERS.len()
            + SPACINGS.len()
            + CASES.len()
            + PROSES.len()
            + DRAFTS.len();
        assert_eq!(seen.len(), want);
    }
}
