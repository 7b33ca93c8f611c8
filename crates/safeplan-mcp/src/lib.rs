//! safeplan as tools an agent can call over the Model Context Protocol (MCP), on the
//! official Rust SDK (`rmcp`).
//!
//! # Design
//!
//! **Tools are thin calls into the libraries.** Each tool takes PDDL as text, calls
//! `safeplan-pddl` and `safeplan-validate`, and answers with their serde types as the
//! structured result (`validate_plan`: the library's JSON of an assessment, key for key
//! what `safeplan validate --json` writes) and a one-line summary as text. No rule lives
//! here.
//!
//! **Bad input is a tool error, never a dead server.** Text that does not read, a task that
//! does not compile, an input over the size cap: each is an MCP tool result with
//! `isError: true` whose text says what, where (`file:line:col`) and how to fix it; the
//! connection and the next call are unaffected. Work runs on a blocking thread under a
//! time limit, so one call cannot stall the server.
//!
//! Tools: `check_pddl`, `validate_plan`, `basic_task`, `find_plan`, `critique_plan`,
//! `refine_plan` (see [`SafeplanServer`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::schemars::{self, JsonSchema};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use safeplan_pddl::{
    CheckOptions, FileKind, LineIndex, Severity, check_texts, parse_domain, parse_problem,
    write_domain, write_problem,
};
use safeplan_validate::words::not_a_safety_task;
use safeplan_validate::{CheckedTask, SafetyOptions, SafetyTask, Task, ValidateOptions};
use serde::Deserialize;
use serde_json::{Value, json};

mod files;
mod stdio;

/// Limits on what one call may ask.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Largest text of one input field, in bytes.
    pub max_input_bytes: usize,
    /// Longest a call may run.
    pub time_limit: Duration,
    /// Directories under which tools may read files (`*_path` inputs); none by default.
    pub roots: Vec<std::path::PathBuf>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input_bytes: 1 << 20,
            time_limit: Duration::from_secs(10),
            roots: Vec::new(),
        }
    }
}

/// Files instead of text: paths under the server's `--root` directories, read when the
/// matching text field is empty.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Paths {
    /// The domain file, instead of `domain` (only under a `--root` of the server).
    #[serde(default)]
    pub domain_path: Option<String>,
    /// The problem file, instead of `problem`.
    #[serde(default)]
    pub problem_path: Option<String>,
    /// The plan file, instead of `plan`.
    #[serde(default)]
    pub plan_path: Option<String>,
}

/// Input of `check_pddl`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CheckInput {
    /// The domain, PDDL text (or `domain_path`).
    #[serde(default)]
    pub domain: String,
    /// The problem, PDDL text (optional).
    #[serde(default)]
    pub problem: Option<String>,
    /// A plan, one `(action arg ...)` per line (optional; needs the problem).
    #[serde(default)]
    pub plan: Option<String>,
    /// Files instead of text.
    #[serde(flatten)]
    pub paths: Paths,
}

/// Input of `validate_plan`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ValidateInput {
    /// The domain, PDDL text. A domain declaring the 0-ary function `danger` is
    /// safety-augmented (DESPITE) and also gets F/S/SI verdicts (or `domain_path`).
    #[serde(default)]
    pub domain: String,
    /// The problem, PDDL text (or `problem_path`).
    #[serde(default)]
    pub problem: String,
    /// The plan: IPC text, one `(action arg ...)` per line (or `plan_path`).
    #[serde(default)]
    pub plan: String,
    /// Read the plan as an LLM reply (docs/FORMAT.md, "Plans in LLM replies"): steps picked out
    /// of prose, lists, fences, JSON; a reply with no readable step is no plan (`no_plan`).
    #[serde(default)]
    pub lenient: bool,
    /// For a domain with durative actions (timed plans, `t: (action arg ...) [d]`): VAL's
    /// `-t` tolerance in plan time units, default 0.01.
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// Files instead of text.
    #[serde(flatten)]
    pub paths: Paths,
}

/// Input of `basic_task`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BasicInput {
    /// The safety-augmented domain, PDDL text (or `domain_path`).
    #[serde(default)]
    pub domain: String,
    /// The problem, PDDL text (or `problem_path`).
    #[serde(default)]
    pub problem: String,
    /// Files instead of text (`plan_path` is not used).
    #[serde(flatten)]
    pub paths: Paths,
    /// The danger fluent (default `danger`).
    #[serde(default)]
    pub danger: Option<String>,
}

/// Input of `find_plan`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindPlanInput {
    /// The domain, PDDL text (or `domain_path`).
    #[serde(default)]
    pub domain: String,
    /// The problem, PDDL text (or `problem_path`).
    #[serde(default)]
    pub problem: String,
    /// Files instead of text (`plan_path` is not used).
    #[serde(flatten)]
    pub paths: Paths,
    /// What to find: "plan" (the goal as written), or on a safety-augmented task "safe",
    /// "unsafe" or "effort" (the shortest safe and unsafe plans and the steps safety costs).
    #[serde(default)]
    pub kind: Option<String>,
    /// The most states the search may store (default: no count, as `safeplan plan` and
    /// Python's `find_plan`; the memory limit and the server's time limit bound it).
    #[serde(default)]
    pub max_states: Option<usize>,
    /// The search: "auto" (the default, as `safeplan plan`: LM-cut for a tenth of the time,
    /// then LAMA; a shortest plan when one is cheap to prove), "astar" (A* with h_max, a
    /// shortest plan), "lmcut" (A* with LM-cut, a shortest plan), "lama" (a plan, fast),
    /// "lama-anytime" (lama, then shorter plans while time remains), "gbfs" (a plan, fast) or
    /// "bfs" (a shortest plan).
    #[serde(default)]
    pub algorithm: Option<String>,
}

/// Input of `critique_plan` and `refine_plan`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct JudgeInput {
    /// The goal, in words.
    pub goal: String,
    /// The action sequence, one action per entry, e.g. TEACh's `Driver.PickUp('Mug')`.
    pub actions: Vec<String>,
    /// What was said, in order (optional context the judge reads with the goal).
    #[serde(default)]
    pub dialogue: Vec<String>,
    /// The deterministic judge: "state" (default; TEACh-style household sequences) or
    /// "rule" (the paper's rule baseline).
    #[serde(default)]
    pub judge: Option<String>,
    /// Rounds at most for `refine_plan` (default 5, as the paper).
    #[serde(default)]
    pub max_rounds: Option<usize>,
}

fn judge_of(
    name: Option<&str>,
    llm: Option<&std::sync::Arc<dyn safeplan_llm::LlmProvider>>,
) -> Result<std::sync::Arc<dyn safeplan_judge::Judge>, CallToolResult> {
    // An allow-list: a caller may not name providers (`llm:...`), which would spend the
    // server's keys on models of the caller's choice; `llm` is the server's own `--llm`.
    match (name.unwrap_or("state"), llm) {
        ("llm", None) => Err(tool_error(
            "this server has no LLM provider: start it with --llm PROVIDER_SPEC to use judge \"llm\", or use \"state\" or \"rule\"",
        )),
        (spec @ ("state" | "rule" | "llm"), llm) => {
            safeplan_judge::judge_from_spec_with(spec, &safeplan_llm::Stack::default(), llm)
                .map_err(|e| tool_error(e.to_string()))
        }
        (other, _) => Err(tool_error(format!(
            "unknown judge \"{other}\": use \"state\", \"rule\" or \"llm\""
        ))),
    }
}

/// The sizes of a judge call's texts, for the size cap.
fn judge_sizes(input: &JudgeInput) -> [(&'static str, usize); 3] {
    [
        ("goal", input.goal.len()),
        ("actions", input.actions.iter().map(String::len).sum()),
        ("dialogue", input.dialogue.iter().map(String::len).sum()),
    ]
}

fn episode_of(input: &JudgeInput) -> safeplan_judge::Episode {
    safeplan_judge::Episode {
        id: "mcp".into(),
        goal: input.goal.clone(),
        dialogue: input.dialogue.clone(),
        actions: input.actions.clone(),
        ..safeplan_judge::Episode::default()
    }
}

/// The MCP server: safeplan's tools.
#[derive(Clone)]
pub struct SafeplanServer {
    limits: Limits,
    /// The LLM provider of judge "llm", when the server was started with one.
    llm: Option<std::sync::Arc<dyn safeplan_llm::LlmProvider>>,
    #[allow(dead_code)] // read by the macro-generated router
    tool_router: ToolRouter<SafeplanServer>,
}

impl Default for SafeplanServer {
    fn default() -> Self {
        SafeplanServer::new(Limits::default())
    }
}

/// A tool error: what, where, how to fix, as the text of an `isError` result.
fn tool_error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

/// A structured result with its one-line summary.
fn tool_ok(summary: String, value: Value) -> CallToolResult {
    let mut r = CallToolResult::structured(value);
    r.content.insert(0, ContentBlock::text(summary));
    r
}

/// Diagnostics as plain data with 1-based line and column in the file they point into.
fn diagnostics_json(
    ds: &[safeplan_pddl::Diagnostic],
    texts: &[(FileKind, &str, &str)],
) -> Vec<Value> {
    ds.iter()
        .map(|d| {
            let (file, line, column) = texts
                .iter()
                .find(|(k, _, _)| *k == d.file)
                .map(|(_, name, text)| {
                    let at = LineIndex::new(text).line_col(text, d.span.start);
                    (name.to_string(), at.line, at.col)
                })
                .unwrap_or_else(|| (format!("{:?}", d.file).to_lowercase(), 1, 1));
            json!({
                "severity": if d.severity == Severity::Error { "error" } else { "warning" },
                "code": d.code.as_str(),
                "message": d.message,
                "file": file,
                "line": line,
                "column": column,
                "help": d.help,
            })
        })
        .collect()
}

fn first_error(found: &[Value]) -> Option<String> {
    found.iter().find(|d| d["severity"] == "error").map(|d| {
        let mut s = format!(
            "{}:{}:{}: {}",
            d["file"].as_str().unwrap_or("?"),
            d["line"],
            d["column"],
            d["message"].as_str().unwrap_or("")
        );
        if let Some(help) = d["help"].as_str() {
            s.push_str(&format!(" (help: {help})"));
        }
        s
    })
}

const DOMAIN: &str = "domain.pddl";
const PROBLEM: &str = "problem.pddl";
const PLAN: &str = "plan";

fn check_pddl_now(input: &CheckInput) -> CallToolResult {
    let texts = [
        (FileKind::Domain, DOMAIN, input.domain.as_str()),
        (
            FileKind::Problem,
            PROBLEM,
            input.problem.as_deref().unwrap_or(""),
        ),
        (FileKind::Plan, PLAN, input.plan.as_deref().unwrap_or("")),
    ];
    let options = CheckOptions::default();
    let found = check_texts(
        &input.domain,
        input.problem.as_deref(),
        input.plan.as_deref(),
        &options,
    );
    let found = diagnostics_json(&found, &texts);
    let errors = found.iter().filter(|d| d["severity"] == "error").count();
    let summary = match first_error(&found) {
        None => format!("no errors ({} warnings)", found.len()),
        Some(first) => format!("{errors} error(s); first: {first}"),
    };
    tool_ok(summary, json!({"errors": errors, "diagnostics": found}))
}

/// Parse and compile, or the tool error that says why not.
fn task_of(
    domain: &str,
    problem: &str,
) -> Result<(safeplan_pddl::Domain, safeplan_pddl::Problem, Task), CallToolResult> {
    let texts = [
        (FileKind::Domain, DOMAIN, domain),
        (FileKind::Problem, PROBLEM, problem),
    ];
    let d = parse_domain(domain);
    let p = parse_problem(problem);
    let mut found = d.diagnostics.clone();
    found.extend(p.diagnostics.clone());
    let (Some(dv), Some(pv)) = (d.value, p.value) else {
        return Err(tool_error(
            first_error(&diagnostics_json(&found, &texts))
                .unwrap_or_else(|| "the domain or problem does not read".into())
                + "; call check_pddl for every diagnostic",
        ));
    };
    if let Some(first) = first_error(&diagnostics_json(&found, &texts)) {
        return Err(tool_error(format!(
            "{first}; call check_pddl for every diagnostic"
        )));
    }
    match Task::compile(&dv, &pv) {
        Ok(task) => Ok((dv, pv, task)),
        Err(safeplan_validate::TaskError::Invalid(ds)) => Err(tool_error(
            first_error(&diagnostics_json(&ds, &texts))
                .unwrap_or_else(|| "the task has errors".into())
                + "; call check_pddl for every diagnostic",
        )),
        Err(e) => Err(tool_error(format!("{e}"))),
    }
}

fn validate_plan_now(input: &ValidateInput) -> CallToolResult {
    let (domain, problem, task) = match task_of(&input.domain, &input.problem) {
        Ok(t) => t,
        Err(e) => return e,
    };
    if let Some(Err(e)) = input.tolerance.map(safeplan_validate::check_tolerance) {
        return tool_error(e.to_string());
    }
    // The library's one assessment: reading, "no plan", safety that never blocks validation,
    // the sentence. This tool only wraps it.
    let checked = CheckedTask::with_options(
        task,
        &domain,
        &problem,
        &ValidateOptions {
            tolerance: input.tolerance,
            ..ValidateOptions::default()
        },
        &SafetyOptions {
            tolerance: input.tolerance,
            ..SafetyOptions::default()
        },
    );
    let texts = [(FileKind::Plan, PLAN, input.plan.as_str())];
    // Leniently, an LLM reply: read with the task's names; no readable step is no plan.
    let assessment = if input.lenient {
        checked.assess_reply(&input.plan)
    } else {
        match checked.assess_plan_text(&input.plan) {
            Ok(a) => a,
            Err(errors) => {
                let found = diagnostics_json(&errors, &texts);
                return tool_error(format!(
                    "{}; write one `(action arg ...)` per line, or pass lenient: true for an LLM reply",
                    first_error(&found).unwrap_or_else(|| "the plan does not read".into())
                ));
            }
        }
    };
    // The library's one JSON of an assessment (what the C API, Python's `to_json` and
    // `validate --json` write): the verdict's fields, the safety fields beside them, why
    // safety was not judged, and leniently what was read.
    let mut value = json!(assessment.json());
    // What the reader skipped or chose, so nothing it left out is silent.
    value["reading"] = json!(diagnostics_json(&assessment.reading, &texts));
    tool_ok(assessment.sentence(), value)
}

/// `time`: the server's time limit (a search also stops itself at it).
fn find_plan_now(
    input: &FindPlanInput,
    cancel: &Arc<AtomicBool>,
    time: Duration,
) -> CallToolResult {
    let (domain, problem, task) = match task_of(&input.domain, &input.problem) {
        Ok(t) => t,
        Err(e) => return e,
    };
    // The front ends' defaults (safeplan-search): `auto`, no state count, the same memory
    // limit as the CLI's.
    let algorithm = match input.algorithm.as_deref() {
        None => safeplan_search::Algorithm::default(),
        Some(name) => match safeplan_search::Algorithm::parse(name) {
            Ok(a) => a,
            Err(e) => return tool_error(e.to_string()),
        },
    };
    let options = safeplan_search::SearchOptions {
        algorithm,
        limits: safeplan_search::Limits {
            max_states: input.max_states,
            max_memory: Some(safeplan_search::DEFAULT_MAX_MEMORY_MIB << 20),
            time: Some(time),
            // Both searches of `effort` read it: the second does not start on a call that
            // already timed out.
            cancel: Some(cancel.clone()),
        },
    };
    let ground = safeplan_search::GroundOptions {
        cancel: safeplan_search::CancelFlag(Some(cancel.clone())),
        ..safeplan_search::GroundOptions::default()
    };
    let kind = input.kind.as_deref().unwrap_or("plan");
    let cannot =
        |e: safeplan_search::GroundError| tool_error(format!("cannot plan for this task: {e}"));
    let value = if kind == "plan" {
        match safeplan_search::Planner::new(&task, &ground) {
            Ok(planner) => json!(planner.plan(&options)),
            Err(e) => return cannot(e),
        }
    } else {
        let safety = match SafetyTask::new(&domain, &problem, &SafetyOptions::default()) {
            Ok(Some(st)) => st,
            Ok(None) => {
                return tool_error(format!(
                    "kind \"{kind}\" needs a safety task, and {}; use kind \"plan\"",
                    not_a_safety_task("the domain", safeplan_validate::DEFAULT_DANGER)
                ));
            }
            Err(e) => {
                return tool_error(safeplan_validate::safety_unavailable_reason(&e));
            }
        };
        let planner = match safeplan_search::SafetyPlanner::new(&safety, &ground) {
            Ok(p) => p,
            Err(e) => return cannot(e),
        };
        match kind {
            "safe" => json!(planner.safe_plan(&options)),
            "unsafe" => json!(planner.unsafe_plan(&options)),
            "effort" => json!(planner.effort(&options)),
            other => {
                return tool_error(format!(
                    "unknown kind \"{other}\": use \"plan\", \"safe\", \"unsafe\" or \"effort\""
                ));
            }
        }
    };
    let summary = match value.pointer("/outcome/status").and_then(Value::as_str) {
        Some("found") => format!(
            "found a plan of {} steps",
            value
                .pointer("/outcome/plan")
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        ),
        // The library re-checks every plan: one the validator rejects is a defect.
        Some("rejected") => {
            return tool_error(format!(
                "internal error: the planner's plan does not pass the validator ({}); please report it",
                value
                    .pointer("/outcome/reason")
                    .and_then(Value::as_str)
                    .unwrap_or("no reason given")
            ));
        }
        Some(other) => format!("no plan: {other}"),
        None => format!(
            "safety effort: {}",
            value
                .get("effort")
                .map_or("unknown".to_string(), Value::to_string)
        ),
    };
    tool_ok(summary, value)
}

fn basic_task_now(input: &BasicInput) -> CallToolResult {
    let (domain, problem, _) = match task_of(&input.domain, &input.problem) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let name = input
        .danger
        .clone()
        .unwrap_or_else(|| safeplan_validate::DEFAULT_DANGER.into());
    if !SafetyTask::is_safety_augmented(&domain, &name)
        && !SafetyTask::has_safety_rules(&domain, &problem)
    {
        return tool_error(format!(
            "{} (name its danger fluent with `danger`)",
            not_a_safety_task("the domain", &name)
        ));
    }
    let (d, p) = safeplan_validate::basic_task(&domain, &problem, &name);
    tool_ok(
        "the task a planner is shown, with the danger fluent removed".into(),
        json!({"domain": write_domain(&d), "problem": write_problem(&p)}),
    )
}

#[tool_router]
impl SafeplanServer {
    /// A server with these limits.
    pub fn new(limits: Limits) -> SafeplanServer {
        SafeplanServer {
            limits,
            llm: None,
            tool_router: SafeplanServer::tool_router(),
        }
    }

    /// The server with an LLM provider for judge "llm" (its stack's retries, limits and
    /// cache apply; keys come from the provider's own configuration).
    pub fn with_llm(
        mut self,
        provider: std::sync::Arc<dyn safeplan_llm::LlmProvider>,
    ) -> SafeplanServer {
        self.llm = Some(provider);
        self
    }

    /// Run `work` on a blocking thread under the time limit. When the limit passes, the
    /// call's cancel flag is set: grounding and search read it and stop, the validator's
    /// quantifier, `forall`-effect and derived-predicate loops on that thread are abandoned
    /// (`safeplan_validate::abandon_when`), and the judge tools drop their futures, so a call
    /// that timed out leaves no work running. (Compiling a task, linear in the capped input,
    /// is not interrupted.)
    async fn run(
        &self,
        work: impl FnOnce(&Arc<AtomicBool>) -> CallToolResult + Send + 'static,
    ) -> CallToolResult {
        let limit = self.limits.time_limit;
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = cancel.clone();
        let job = tokio::task::spawn_blocking(move || {
            // The flag is set only after this call has answered "timed out": abandoning an
            // evaluation then loses nothing anyone reads.
            let _abandon = safeplan_validate::abandon_when(flag.clone());
            work(&flag)
        });
        match tokio::time::timeout(limit, job).await {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => tool_error(format!(
                "the call failed inside the server: {e}; this is a bug, please report it"
            )),
            Err(_) => {
                cancel.store(true, Ordering::Relaxed);
                timed_out(limit)
            }
        }
    }

    /// [`SafeplanServer::run`] of a tool that takes a task: its texts read from their
    /// `*_path` files and capped together ([`load`]) on the blocking thread, then `work`.
    async fn run_task<T: TaskTexts>(
        &self,
        input: T,
        work: fn(&T, &Arc<AtomicBool>, &Limits) -> CallToolResult,
    ) -> CallToolResult {
        let limits = self.limits.clone();
        self.run(move |cancel| {
            let mut input = input;
            if let Err(e) = load(&limits, input.texts()) {
                return e;
            }
            work(&input, cancel, &limits)
        })
        .await
    }

    /// Parse and check a PDDL domain, and optionally a problem and a plan: every diagnostic
    /// with line, column and help.
    #[tool(
        description = "Parse and check a PDDL domain (and optionally a problem and a plan). Returns every diagnostic with file, line, column and how to fix it."
    )]
    async fn check_pddl(&self, Parameters(input): Parameters<CheckInput>) -> CallToolResult {
        let limits = self.limits.clone();
        self.run(move |_| {
            let mut input = input;
            let had = (input.problem.is_some(), input.plan.is_some());
            let mut problem = input.problem.take().unwrap_or_default();
            let mut plan = input.plan.take().unwrap_or_default();
            let fields = input
                .paths
                .texts(&mut input.domain, &mut problem, Some(&mut plan));
            if let Err(e) = load(&limits, fields) {
                return e;
            }
            input.problem = (had.0 || input.paths.problem_path.is_some()).then_some(problem);
            input.plan = (had.1 || input.paths.plan_path.is_some()).then_some(plan);
            check_pddl_now(&input)
        })
        .await
    }

    /// Validate a plan: valid or the first failure (step, false literals with their values,
    /// advice); for a safety-augmented task also feasible, safe, safety intention, score and
    /// the danger events with their reasons.
    #[tool(
        description = "Validate a plan for a PDDL task. Returns whether it is valid, the failing step with the false literals and repair advice, and for a safety-augmented (DESPITE) task: feasible, safe, safety intention, score and which step raised danger and why."
    )]
    async fn validate_plan(&self, Parameters(input): Parameters<ValidateInput>) -> CallToolResult {
        self.run_task(input, |input, _, _| validate_plan_now(input))
            .await
    }

    /// A plan, a safe plan, an unsafe plan, or the safety effort, with the library's search
    /// (its default algorithm, `auto`) under the memory and the server's time limit.
    #[tool(
        description = "Find a plan for a PDDL task with safeplan's planner: kind \"plan\" (the goal as written), or for a safety-augmented (DESPITE) task \"safe\", \"unsafe\", or \"effort\" (shortest safe and unsafe plans and the extra steps safety costs). algorithm \"auto\" (the default, as safeplan plan: LM-cut for a tenth of the time, then LAMA; the result's algorithm and optimal say which found the plan), \"astar\" (A* with h_max, shortest; cheapest under an action-cost metric, as the result's measure says), \"lmcut\" (A* with LM-cut, likewise), \"lama\" (a plan, fast, solves the most), \"lama-anytime\" (lama, then shorter plans until the time limit or a proof of a shortest one), \"gbfs\" (a plan, fast) or \"bfs\". Gives up at max_states stored states (if given), 4 GiB of states, or the server's time limit."
    )]
    async fn find_plan(&self, Parameters(input): Parameters<FindPlanInput>) -> CallToolResult {
        self.run_task(input, |input, cancel, limits| {
            find_plan_now(input, cancel, limits.time_limit)
        })
        .await
    }

    /// One pass of a deterministic judge over an action sequence: its critiques.
    #[tool(
        description = "One Judge pass over an action sequence with a goal (the plan-verification loop's Judge): returns the critiques — REMOVE with the 0-based index of the step and why, MISSING with where and the steps to insert. Judges: \"state\" (default), \"rule\", or \"llm\" when the server was started with --llm."
    )]
    async fn critique_plan(&self, Parameters(input): Parameters<JudgeInput>) -> CallToolResult {
        let judge = match judge_of(input.judge.as_deref(), self.llm.as_ref()) {
            Ok(j) => j,
            Err(e) => return e,
        };
        if let Some(e) = over_cap(&self.limits, &judge_sizes(&input)) {
            return e;
        }
        let episode = episode_of(&input);
        let plan = safeplan_judge::Plan::from_actions(&episode.actions);
        // On a blocking thread like every tool; at the limit the judge's future is dropped
        // (its LLM calls cancelled) at its next await.
        let handle = tokio::runtime::Handle::current();
        self.run(move |cancel| {
            let work = judge.critique(&episode, &plan);
            match handle.block_on(until_cancelled(cancel, work)) {
                Some(Ok(j)) => tool_ok(
                    format!("{} critique(s)", j.critiques.len()),
                    json!({"critiques": j.critiques, "notes": j.notes}),
                ),
                Some(Err(e)) => tool_error(format!("the judge failed: {e}")),
                // Nobody reads this: the call has answered "timed out" already.
                None => tool_error("cancelled".to_string()),
            }
        })
        .await
    }

    /// The whole Judge–Planner loop with a deterministic judge, REMOVE and concrete
    /// MISSING critiques applied each round.
    #[tool(
        description = "Run the Judge-Planner loop on an action sequence with a goal until the judge is satisfied or max_rounds (default 5) pass: returns the refined actions, which original steps were removed, each round's critiques and why the loop stopped. Judges: \"state\" (default), \"rule\", or \"llm\" when the server was started with --llm."
    )]
    async fn refine_plan(&self, Parameters(input): Parameters<JudgeInput>) -> CallToolResult {
        let judge = match judge_of(input.judge.as_deref(), self.llm.as_ref()) {
            Ok(j) => j,
            Err(e) => return e,
        };
        if let Some(e) = over_cap(&self.limits, &judge_sizes(&input)) {
            return e;
        }
        let options = safeplan_judge::RefineOptions {
            max_rounds: input.max_rounds.unwrap_or(5).clamp(1, 20),
            ..safeplan_judge::RefineOptions::default()
        };
        let refiner = safeplan_judge::Refiner::new(
            judge,
            std::sync::Arc::new(safeplan_judge::ApplyCritiques),
            options,
        );
        let episode = episode_of(&input);
        // Every round, LLM calls included, on a blocking thread under the time limit; at
        // the limit the loop's future is dropped at its next await.
        let handle = tokio::runtime::Handle::current();
        self.run(move |cancel| {
            let Some(r) = handle.block_on(until_cancelled(cancel, refiner.refine(&episode))) else {
                return tool_error("cancelled".to_string());
            };
            let flagged = r.flagged();
            tool_ok(
                format!("{} step(s) removed, stopped: {:?}", flagged.len(), r.stop),
                json!({
                    "actions": r.final_plan.texts(),
                    "removed": flagged,
                    "rounds": r.rounds,
                    "stop": r.stop,
                    "converged_at": r.converged_at,
                }),
            )
        })
        .await
    }

    /// The task a planner is shown: the danger fluent removed.
    #[tool(
        description = "Given a safety-augmented PDDL task, return the basic task a planner is shown (the danger fluent removed), as domain and problem PDDL text."
    )]
    async fn basic_task(&self, Parameters(input): Parameters<BasicInput>) -> CallToolResult {
        self.run_task(input, |input, _, _| basic_task_now(input))
            .await
    }
}

/// `work`'s output, or `None` once `cancel` is set (checked every 20 ms); `work` is dropped
/// then, which cancels what it awaits.
async fn until_cancelled<T>(
    cancel: &AtomicBool,
    work: impl std::future::Future<Output = T>,
) -> Option<T> {
    let watch = async {
        while !cancel.load(Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::select! {
        out = work => Some(out),
        () = watch => None,
    }
}

/// The answer of a call that ran past the time limit.
fn timed_out(limit: Duration) -> CallToolResult {
    tool_error(format!(
        "the call took longer than the server's limit of {:.1} s and was stopped; try a smaller task",
        limit.as_secs_f64()
    ))
}

/// The size cap: a call's text arguments together (files read included) at most
/// `max_input_bytes`; the error lists each one's size.
fn over_cap(limits: &Limits, fields: &[(&str, usize)]) -> Option<CallToolResult> {
    let total: usize = fields.iter().map(|(_, n)| n).sum();
    (total > limits.max_input_bytes).then(|| {
        let parts: Vec<String> = fields
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(name, n)| format!("`{name}` {n}"))
            .collect();
        tool_error(format!(
            "the call's text is {total} bytes ({}), over the server's limit of {} bytes per call; send a smaller task or raise the server's limit (--max-input-bytes)",
            parts.join(", "),
            limits.max_input_bytes
        ))
    })
}

/// A text field of a tool's input: the text, the `*_path` it may be read from instead, and
/// the field's name.
type Text<'a> = (&'a mut String, Option<&'a str>, &'static str);

/// A tool input that holds a task: its text fields, each with its `*_path`.
trait TaskTexts: Send + 'static {
    fn texts(&mut self) -> Vec<Text<'_>>;
}

impl Paths {
    /// A task input's text fields with their `*_path`s: the domain, the problem, and the
    /// plan when the tool takes one.
    fn texts<'a>(
        &'a self,
        domain: &'a mut String,
        problem: &'a mut String,
        plan: Option<&'a mut String>,
    ) -> Vec<Text<'a>> {
        let mut out = vec![
            (domain, self.domain_path.as_deref(), "domain"),
            (problem, self.problem_path.as_deref(), "problem"),
        ];
        out.extend(plan.map(|plan| (plan, self.plan_path.as_deref(), "plan")));
        out
    }
}

impl TaskTexts for ValidateInput {
    fn texts(&mut self) -> Vec<Text<'_>> {
        self.paths
            .texts(&mut self.domain, &mut self.problem, Some(&mut self.plan))
    }
}

impl TaskTexts for FindPlanInput {
    fn texts(&mut self) -> Vec<Text<'_>> {
        self.paths.texts(&mut self.domain, &mut self.problem, None)
    }
}

impl TaskTexts for BasicInput {
    fn texts(&mut self) -> Vec<Text<'_>> {
        self.paths.texts(&mut self.domain, &mut self.problem, None)
    }
}

/// Fill each empty text field from its `*_path` (under the roots, bounded), then apply the
/// size cap to all of them together: the input step of the tools that take a task. Runs on
/// the call's blocking thread.
fn load(limits: &Limits, mut fields: Vec<Text<'_>>) -> Result<(), CallToolResult> {
    for (text, path, field) in fields.iter_mut() {
        if let Some(path) = path.filter(|_| text.is_empty()) {
            **text = files::read_under_roots(&limits.roots, path, field, limits.max_input_bytes)
                .map_err(tool_error)?;
        }
    }
    let sizes: Vec<(&str, usize)> = fields.iter().map(|(t, _, f)| (*f, t.len())).collect();
    over_cap(limits, &sizes).map_or(Ok(()), Err)
}

/// The URI of a built-in task's file: `safeplan://tasks/<name>/<file>`.
fn task_uri(name: &str, file: &str) -> String {
    format!("safeplan://tasks/{name}/{file}")
}

/// The text of a built-in task's file by URI, or `None`.
fn task_file(uri: &str) -> Option<(&'static str, &'static str)> {
    let rest = uri.strip_prefix("safeplan://tasks/")?;
    let (name, file) = rest.split_once('/')?;
    let (_, domain, problem, metadata) = safeplan_bench::builtin::TASKS
        .iter()
        .find(|(n, ..)| *n == name)?;
    match file {
        "domain.pddl" => Some((domain, "text/x-pddl")),
        "problem.pddl" => Some((problem, "text/x-pddl")),
        "metadata.json" => Some((metadata, "application/json")),
        _ => None,
    }
}

/// The names of the built-in tasks (`examples/tasks`), in name order.
pub fn builtin_tasks() -> Vec<&'static str> {
    safeplan_bench::builtin::TASKS
        .iter()
        .map(|(n, ..)| *n)
        .collect()
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SafeplanServer {
    async fn list_resources(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, rmcp::ErrorData> {
        let mut resources = Vec::new();
        for (name, ..) in safeplan_bench::builtin::TASKS {
            for (file, mime) in [
                ("domain.pddl", "text/x-pddl"),
                ("problem.pddl", "text/x-pddl"),
                ("metadata.json", "application/json"),
            ] {
                resources.push(
                    rmcp::model::Resource::new(task_uri(name, file), format!("{name}/{file}"))
                        .with_mime_type(mime),
                );
            }
        }
        Ok(rmcp::model::ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, rmcp::ErrorData> {
        match task_file(&request.uri) {
            Some((text, _)) => {
                Ok(
                    rmcp::model::ReadResourceResult::new(vec![
                        rmcp::model::ResourceContents::text(text, request.uri),
                    ])
                    .into(),
                )
            }
            None => Err(rmcp::ErrorData::resource_not_found(
                format!(
                    "no resource at {}: built-in tasks are safeplan://tasks/<name>/domain.pddl, problem.pddl or metadata.json (list them with resources/list)",
                    request.uri
                ),
                None,
            )),
        }
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_instructions(
            "safeplan checks robot task plans written in PDDL before a robot runs them. \
             check_pddl: diagnostics of a domain/problem/plan. validate_plan: is the plan \
             valid, and for a safety-augmented (DESPITE) task is it feasible and safe, which \
             step raised danger and why. basic_task: the task a planner is shown. find_plan: \
             a shortest plan, safe plan or unsafe plan, or the safety effort. Pass PDDL as \
             text. critique_plan / refine_plan: the plan-verification loop's Judge on an \
             action sequence with a goal (one pass, or until satisfied). Resources: the \
             built-in suite's tasks, safeplan://tasks/<name>/domain.pddl, problem.pddl and \
             metadata.json, to plan for.",
        )
    }
}

/// Serve streamable HTTP at `addr` (path `/mcp`) until the process is stopped. With a
/// `token`, every request must carry `Authorization: Bearer <token>` (else 401). A
/// non-loopback address without a token is refused: the caller decides where the token
/// comes from (`safeplan mcp` reads `SAFEPLAN_MCP_TOKEN`).
pub async fn serve_http(
    server: SafeplanServer,
    addr: std::net::SocketAddr,
    token: Option<String>,
) -> Result<(), String> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    if !addr.ip().is_loopback() && token.is_none() {
        return Err(format!(
            "{addr} is not a loopback address: set SAFEPLAN_MCP_TOKEN to a secret every client must send as a bearer token, or serve on 127.0.0.1"
        ));
    }
    let mut config = StreamableHttpServerConfig::default();
    if !addr.ip().is_loopback() {
        // Behind a token the Host check (DNS-rebinding protection for local servers) is
        // replaced by the token check.
        config = config.disable_allowed_hosts();
    }
    let service: StreamableHttpService<SafeplanServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(server.clone()), Default::default(), config);
    let mut router = axum::Router::new().nest_service("/mcp", service);
    if let Some(token) = token {
        let expected = format!("Bearer {token}");
        router = router.layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let ok = request
                    .headers()
                    .get(axum::http::header::AUTHORIZATION)
                    .is_some_and(|v| constant_time_eq(v.as_bytes(), expected.as_bytes()));
                async move {
                    if ok {
                        next.run(request).await
                    } else {
                        axum::response::IntoResponse::into_response((
                            axum::http::StatusCode::UNAUTHORIZED,
                            "missing or wrong bearer token: send Authorization: Bearer <SAFEPLAN_MCP_TOKEN>",
                        ))
                    }
                }
            },
        ));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    axum::serve(listener, router)
        .await
        .map_err(|e| format!("the MCP HTTP server stopped: {e}"))
}

/// Whether `a` equals `b`, in time that depends on their lengths only (not on where they
/// differ), so a bearer token cannot be guessed byte by byte from response times.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// Serve on standard input and output until the client closes the connection.
pub async fn serve_stdio(server: SafeplanServer) -> Result<(), String> {
    use rmcp::ServiceExt;
    // Through the filter that answers messages over the transport's cap (see `stdio`).
    let (input, output) = stdio::transport(tokio::io::stdin(), tokio::io::stdout());
    let running = server
        .serve((input, output))
        .await
        .map_err(|e| format!("cannot start the MCP server: {e}"))?;
    running
        .waiting()
        .await
        .map_err(|e| format!("the MCP server stopped: {e}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tools' descriptions and input schemas write the library's defaults and names into
    /// text (an attribute cannot read a constant): each is held here to the constant, so the
    /// text a client reads cannot drift from what the server does.
    #[test]
    fn the_tool_texts_say_the_librarys_defaults() {
        let tools = SafeplanServer::tool_router().list_all();
        let text = |name: &str| {
            let tool = tools.iter().find(|t| t.name == name).expect("the tool");
            let schema = serde_json::to_string(&*tool.input_schema).expect("JSON");
            format!(
                "{} {schema}",
                tool.description.as_deref().unwrap_or_default()
            )
        };
        let find = text("find_plan");
        for a in safeplan_search::Algorithm::ALL {
            assert!(
                find.contains(&format!("\"{}\"", a.as_str())),
                "{}: {find}",
                a.as_str()
            );
        }
        let default = safeplan_search::Algorithm::default().as_str();
        assert!(
            find.contains(&format!("\"{default}\" (the default")),
            "{find}"
        );
        let gib = safeplan_search::DEFAULT_MAX_MEMORY_MIB / 1024;
        assert!(find.contains(&format!("{gib} GiB of states")), "{find}");
        let tolerance = safeplan_validate::DEFAULT_TOLERANCE;
        assert!(text("validate_plan").contains(&format!("default {tolerance}")));
        let danger = safeplan_validate::DEFAULT_DANGER;
        assert!(text("basic_task").contains(&format!("(default `{danger}`)")));
    }

    /// The embedded suite is the folder: same task names (so the generated list cannot go
    /// stale), and each file as it is on disk.
    #[test]
    fn the_embedded_suite_is_examples_tasks() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.path().is_dir())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        on_disk.sort();
        assert_eq!(builtin_tasks(), on_disk);
        let soup = std::fs::read_to_string(dir.join("hot-soup/domain.pddl")).unwrap_or_default();
        assert_eq!(
            task_file("safeplan://tasks/hot-soup/domain.pddl").map(|(t, _)| t),
            Some(soup.as_str())
        );
        assert!(task_file("safeplan://tasks/hot-soup/../../etc/passwd").is_none());
        assert!(task_file("safeplan://tasks/nope/domain.pddl").is_none());
    }

    /// A task whose safety form does not compile (a precondition reads danger, which the
    /// basic task removes) still gets its validity verdict, with the reason there is no
    /// safety verdict; it used to be a tool error.
    #[test]
    fn validate_plan_is_never_refused_for_the_safety_extra() {
        let input: ValidateInput = serde_json::from_value(json!({
            "domain": "(define (domain careful) (:requirements :numeric-fluents) (:predicates (done))
               (:functions (danger))
               (:action work :parameters () :precondition (< (danger) 1)
                 :effect (and (done) (increase (danger) 1))))",
            "problem": "(define (problem p) (:domain careful) (:init (= (danger) 0))
               (:goal (and (done) (<= (danger) 1))))",
            "plan": "(work)",
        }))
        .expect("input");
        let result = validate_plan_now(&input);
        assert_ne!(result.is_error, Some(true), "{result:?}");
        let value = result.structured_content.expect("structured");
        assert_eq!(value["valid"], true, "{value}");
        assert!(value.get("safe").is_none(), "{value}");
        let why = value["safety_unavailable"].as_str().unwrap_or_default();
        assert!(why.contains("does not compile"), "{value}");
    }
}
