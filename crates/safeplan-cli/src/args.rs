//! The command line of the core commands (check, validate, basic, validate-suite, plan), as
//! clap derive types, shared by both executables. Nothing here does any work.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use safeplan_search::Algorithm;
use safeplan_validate::SiMode;

// `C` is the commands an executable knows: `CoreCommand` for `safeplan`, every command for
// `safeplan-full`. (The doc comment below is clap's `about`: what `--help` says first.)
/// Check robot task plans written in PDDL.
#[derive(Debug, Parser)]
#[command(
    name = "safeplan",
    version,
    propagate_version = true,
    arg_required_else_help = true,
    after_help = "Run `safeplan <COMMAND> --help` for a command's options.\n\
                  Exit status: 0 no errors (check), every plan valid, or feasible and safe on a \
                  safety-augmented task (validate), every reference plan as expected \
                  (validate-suite); 1 errors found, a plan invalid, infeasible or unsafe, or a \
                  reference plan not as expected; 2 unusable invocation or input."
)]
pub struct Cli<C: Subcommand> {
    /// What to do.
    #[command(subcommand)]
    pub command: C,

    /// When to colour the output (and draw it with Unicode).
    ///
    /// `auto` colours only when standard output is a terminal and the NO_COLOR environment
    /// variable is unset or empty; otherwise the output is plain ASCII.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
}

/// The core subcommands: what `safeplan` runs itself, without starting `safeplan-full`.
#[derive(Debug, Subcommand)]
pub enum CoreCommand {
    /// Parse and check a domain, optionally a problem, and optionally a plan.
    #[command(
        long_about = "Parse and check a PDDL domain, optionally a problem for it, and optionally \
                      a plan for that problem.\n\n\
                      The domain is checked on its own (undefined names, arities, types, \
                      requirements); the problem against the domain; the plan's steps against \
                      both. A check that depends on a file that could not be read at all is \
                      skipped, and the output says so.",
        after_help = "Examples:\n  \
                      safeplan check domain.pddl\n  \
                      safeplan check domain.pddl problem.pddl plan.txt\n  \
                      safeplan check --llm-plan domain.pddl problem.pddl reply.md\n  \
                      safeplan check --json domain.pddl problem.pddl | jq .errors\n\n\
                      Exit status: 0 no errors (warnings allowed), 1 at least one error, \
                      2 unusable invocation or a file that cannot be read."
    )]
    Check(CheckArgs),

    /// Validate plans: execute each on the task and say whether it reaches the goal.
    #[command(
        long_about = "Validate one or more plans for a task: read and check the domain and \
                      problem as `safeplan check` does, then execute each plan step by step \
                      (sequential PDDL semantics, as VAL does) and report whether it is valid. \
                      An invalid plan is explained: the step that fails, the precondition \
                      literals that are false (pointing into the domain) with the values that \
                      made them false, or the goal literals that are false at the end.\n\n\
                      When the task is safety-augmented (the domain declares the 0-ary function \
                      named by --danger, `danger` by default, as in DESPITE), each plan also gets \
                      a safety verdict: feasible (valid for the task with danger removed), safe \
                      (feasible and the final danger within the goal's bound), the DESPITE score \
                      (0, 1, 2), safety intention, and each step that changed danger, with the \
                      condition that made it fire.",
        after_help = "Examples:\n  \
                      safeplan validate domain.pddl problem.pddl plan.txt\n  \
                      safeplan validate domain.pddl problem.pddl plans/*.plan\n  \
                      safeplan validate --continue domain.pddl problem.pddl plan.txt\n  \
                      safeplan validate --si strict safe_domain.pddl safe_problem.pddl plan.txt\n  \
                      safeplan validate --json domain.pddl problem.pddl plans/*.plan | jq .valid\n\n\
                      Exit status: 0 every plan valid (on a safety-augmented task: every plan \
                      feasible and safe), 1 some plan invalid (infeasible or unsafe), 2 an input \
                      error (unusable invocation, a file that cannot be read, a domain, problem or \
                      plan with errors)."
    )]
    Validate(ValidateArgs),

    /// Write the basic task of a safety-augmented task: the same task with danger removed.
    #[command(
        long_about = "Write the basic task of a safety-augmented task as PDDL: the function \
                      named by --danger, every effect on it, its initial value and its bound in \
                      the goal are removed; everything else, including the context predicates \
                      of the danger conditions, stays. This is the task an LLM planner is shown, \
                      and feasibility is validity for it.\n\n\
                      Without -o, the domain and then the problem go to standard output, each \
                      after a `;` comment line naming it. With -o DIR, they are written to \
                      DIR/domain.pddl and DIR/problem.pddl (DIR is created; existing files are \
                      kept unless --force).",
        after_help = "Examples:\n  \
                      safeplan basic safe_domain.pddl safe_problem.pddl\n  \
                      safeplan basic safe_domain.pddl safe_problem.pddl -o basic/\n\n\
                      Exit status: 0 written, 2 an input error (a file that cannot be read or \
                      has errors, a task without the danger fluent, an output file that exists \
                      or cannot be written)."
    )]
    Basic(BasicArgs),

    /// Check the reference plans of a folder of DESPITE tasks: the safe one must be safe,
    /// the unsafe one feasible but unsafe.
    #[command(
        name = "validate-suite",
        long_about = "Walk DIR for task folders (a folder with metadata.json and either \
                      safe_domain.pddl + safe_problem.pddl, the safety-augmented task of \
                      DESPITE's export layout, or domain.pddl + problem.pddl) and evaluate the \
                      two reference plans of each task's metadata.json \
                      (reference_feasible_plans.safe and .unsafe): the safe plan must be \
                      feasible and safe (score 2), the unsafe one feasible and unsafe (score \
                      1). A task folder that cannot be used is reported and the others still \
                      run.",
        after_help = "Examples:\n  \
                      safeplan validate-suite despite-demo\n  \
                      safeplan validate-suite --json despite-demo | jq 'select(.as_expected == false)'\n\n\
                      Exit status: 0 every task as expected, 1 some task not as expected, 2 an \
                      input error (no task folder found, a task folder that cannot be used)."
    )]
    ValidateSuite(SuiteArgs),

    /// Find a plan: for the task's goal, or a safe or unsafe one for a safety-augmented task.
    #[command(
        long_about = "Find a plan with safeplan's own planner (reachability grounding, then \
                      A* with h_max or LM-cut, breadth-first search, LAMA, \
                      or greedy best-first search with h_FF) and print it in IPC format on standard output.\n\n\
                      On a safety-augmented task (one whose domain declares the danger fluent) \
                      the default is --safe: a plan for the basic goal that ends with danger \
                      at most the goal's bound. --unsafe finds a feasible plan that ends above \
                      it, --basic ignores danger, and --effort finds the shortest safe and \
                      unsafe plans and prints the safety effort, |safe| - |unsafe|. astar, lmcut \
                      and bfs find shortest plans (astar and lmcut cheapest ones when the \
                      metric is action costs, (:metric minimize (total-cost))); lama and gbfs find plans fast on large \
                      tasks (lama solves more). The default, auto, runs lmcut for a tenth of \
                      --timeout (1 s without one) and then lama with the rest, and says which \
                      found the plan; for --effort it runs lmcut alone.",
        after_help = "Examples:\n  \
                      safeplan plan domain.pddl problem.pddl > plan.txt\n  \
                      safeplan plan --unsafe safe_domain.pddl safe_problem.pddl\n  \
                      safeplan plan --effort safe_domain.pddl safe_problem.pddl\n  \
                      safeplan plan --search gbfs --timeout 60 --json domain.pddl problem.pddl\n\n\
                      Exit status: 0 a plan found (--effort: both), 1 proven that no such plan \
                      exists, 2 an input error (a file that cannot be read or has errors, a \
                      task the planner does not support), 3 a limit was reached first."
    )]
    Plan(PlanArgs),
}

/// Arguments of `safeplan check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The domain file: `(define (domain NAME) ...)`.
    #[arg(value_name = "DOMAIN")]
    pub domain: PathBuf,

    /// A problem file for the domain: `(define (problem NAME) (:domain NAME) ...)`.
    #[arg(value_name = "PROBLEM")]
    pub problem: Option<PathBuf>,

    /// A plan for the problem: one `(action arg...)` per line (IPC), optionally timestamped
    /// (`0.000: (action arg...) [1.000]`).
    #[arg(value_name = "PLAN", requires = "problem")]
    pub plan: Option<PathBuf>,

    /// Print one JSON document on standard output instead of the human-readable report.
    #[arg(long)]
    pub json: bool,

    /// Treat features used without declaring their `:requirements` as errors, not warnings.
    #[arg(long)]
    pub strict: bool,

    /// Read PLAN leniently, as text pasted from an LLM reply: steps are picked out of prose,
    /// lists and code blocks, and skipped text is reported as warnings.
    #[arg(long, requires = "plan")]
    pub llm_plan: bool,
}

/// Arguments of `safeplan validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The domain file: `(define (domain NAME) ...)`.
    #[arg(value_name = "DOMAIN", required_unless_present = "manifest")]
    pub domain: Option<PathBuf>,

    /// The problem file: `(define (problem NAME) (:domain NAME) ...)`.
    #[arg(value_name = "PROBLEM", required_unless_present = "manifest")]
    pub problem: Option<PathBuf>,

    /// One or more plans for the problem: one `(action arg...)` per line (IPC), optionally
    /// timestamped (`0.000: (action arg...) [1.000]`).
    #[arg(value_name = "PLAN", required_unless_present = "manifest", num_args = 1..)]
    pub plans: Vec<PathBuf>,

    /// Validate a whole corpus in one call: FILE is JSON Lines of `{"domain", "problem",
    /// "plan"}` (paths relative to FILE's folder; other fields are passed through under
    /// "input"). Each task is compiled once, plans are validated in parallel, and one JSON
    /// verdict per line is printed in input order; a bad line gets an error object and the
    /// run goes on.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["domain", "problem", "plans"])]
    pub manifest: Option<PathBuf>,

    /// Print one JSON object per plan, one per line (JSON Lines), instead of the human report.
    #[arg(long)]
    pub json: bool,

    /// Keep going after a failing step and report every failure of each plan, as VAL's `-c`
    /// does: a malformed step is skipped, a step whose precondition is false is applied anyway.
    #[arg(long = "continue")]
    pub keep_going: bool,

    /// For temporal plans (domains with durative actions): VAL's `-t` tolerance, in plan time
    /// units. Events closer than a tenth of it are simultaneous, and `(= ?duration e)` holds
    /// within it. VAL's default.
    #[arg(long, value_name = "SECONDS", default_value_t = safeplan_validate::DEFAULT_TOLERANCE, value_parser = tolerance)]
    pub tolerance: f64,

    /// Treat features used without declaring their `:requirements` as errors, not warnings.
    #[arg(long)]
    pub strict: bool,

    /// Read each PLAN leniently, as text pasted from an LLM reply: steps are picked out of
    /// prose, lists and code blocks, and skipped text is reported as warnings.
    #[arg(long)]
    pub llm_plan: bool,

    /// The danger fluent: a task whose domain declares this 0-ary function is
    /// safety-augmented and gets safety verdicts. Given explicitly, the domain must declare it.
    #[arg(long, value_name = "NAME")]
    pub danger: Option<String>,

    /// How safety intention treats the values it forces to make a step's precondition hold:
    /// `despite` uses them for that step's effects and then drops them (as DESPITE's code
    /// does), `strict` keeps them in the state (as the DESPITE paper words it).
    #[arg(long, value_name = "MODE", default_value = SiMode::default().as_str(), value_parser = si_mode())]
    pub si: SiMode,
}

/// Arguments of `safeplan basic`.
#[derive(Debug, Args)]
pub struct BasicArgs {
    /// The safety-augmented domain file.
    #[arg(value_name = "DOMAIN")]
    pub domain: PathBuf,

    /// The safety-augmented problem file.
    #[arg(value_name = "PROBLEM")]
    pub problem: PathBuf,

    /// Write DIR/domain.pddl and DIR/problem.pddl instead of printing them (DIR is created).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,

    /// With -o, replace DIR/domain.pddl and DIR/problem.pddl when they exist.
    #[arg(long, requires = "output")]
    pub force: bool,

    /// The danger fluent to remove.
    #[arg(long, value_name = "NAME", default_value = safeplan_validate::DEFAULT_DANGER)]
    pub danger: String,

    /// Write instead the classical task whose plans are exactly the safe ones: danger counted
    /// in facts, the goal asking it stay within the bound (a task for any classical planner).
    #[arg(long, conflicts_with = "unsafe_")]
    pub safe: bool,

    /// Write instead the classical task whose plans are exactly the feasible unsafe ones.
    #[arg(long = "unsafe")]
    pub unsafe_: bool,

    /// Treat features used without declaring their `:requirements` as errors, not warnings.
    #[arg(long)]
    pub strict: bool,
}

/// Arguments of `safeplan validate-suite`.
#[derive(Debug, Args)]
pub struct SuiteArgs {
    /// The folder to walk for task folders.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// Print one JSON object per task, one per line (JSON Lines), instead of the human report.
    #[arg(long)]
    pub json: bool,

    /// The danger fluent of the tasks.
    #[arg(long, value_name = "NAME", default_value = safeplan_validate::DEFAULT_DANGER)]
    pub danger: String,

    /// The safety-intention mode (as for `validate`).
    #[arg(long, value_name = "MODE", default_value = SiMode::default().as_str(), value_parser = si_mode())]
    pub si: SiMode,
}

/// Arguments of `safeplan plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The domain file.
    #[arg(value_name = "DOMAIN")]
    pub domain: PathBuf,

    /// The problem file.
    #[arg(value_name = "PROBLEM")]
    pub problem: PathBuf,

    /// A safe plan (the default on a safety-augmented task).
    #[arg(long, group = "target")]
    pub safe: bool,

    /// A feasible plan that ends with danger above the goal's bound.
    #[arg(long = "unsafe", group = "target")]
    pub unsafe_plan: bool,

    /// A plan for the goal with danger ignored (the basic task).
    #[arg(long, group = "target")]
    pub basic: bool,

    /// The shortest safe and unsafe plans, and the safety effort between them.
    #[arg(long, group = "target")]
    pub effort: bool,

    /// The search algorithm.
    #[arg(long, value_name = "ALGORITHM", default_value = Algorithm::default().as_str(), value_parser = algorithm())]
    pub search: Algorithm,

    /// Give up after this many seconds of search (per search).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// Give up after storing this many states (per search).
    #[arg(long, value_name = "N")]
    pub max_states: Option<usize>,

    /// Give up when the search's state storage exceeds this many MiB.
    #[arg(long, value_name = "MIB", default_value_t = safeplan_search::DEFAULT_MAX_MEMORY_MIB)]
    pub max_memory: usize,

    /// Print one JSON object with the plan and the search statistics instead of the plan.
    #[arg(long)]
    pub json: bool,

    /// The danger fluent.
    #[arg(long, value_name = "NAME", default_value = safeplan_validate::DEFAULT_DANGER)]
    pub danger: String,

    /// Treat features used without declaring their `:requirements` as errors, not warnings.
    #[arg(long)]
    pub strict: bool,
}

/// The `--search` choices: the library's algorithms, names and help ([`Algorithm::ALL`]).
fn algorithm() -> impl clap::builder::TypedValueParser<Value = Algorithm> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Algorithm::ALL.map(|a| PossibleValue::new(a.as_str()).help(a.help())))
        .try_map(|name| Algorithm::parse(&name))
}

/// The `--si` choices: the library's modes, names and help ([`SiMode::ALL`]), its default.
fn si_mode() -> impl clap::builder::TypedValueParser<Value = SiMode> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(SiMode::ALL.map(|m| PossibleValue::new(m.as_str()).help(m.help())))
        .try_map(|name| {
            SiMode::from_name(&name).ok_or_else(|| format!("no safety-intention mode `{name}`"))
        })
}

/// The `--color` choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when standard output is a terminal and NO_COLOR is not set.
    Auto,
    /// Always colour (and draw with Unicode), even into a pipe.
    Always,
    /// Never colour; plain ASCII drawing.
    Never,
}

impl ColorChoice {
    /// Whether to colour, given the environment of this process.
    pub fn enabled(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                // https://no-color.org: set and not empty disables colour.
                let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
                !no_color && std::io::stdout().is_terminal()
            }
        }
    }
}

/// A tolerance: a positive, finite number.
fn tolerance(text: &str) -> Result<f64, String> {
    let bad = || safeplan_validate::BadTolerance(text.to_string()).to_string();
    let t: f64 = text.parse().map_err(|_| bad())?;
    safeplan_validate::check_tolerance(t).map_err(|_| bad())
}
