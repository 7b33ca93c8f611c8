//! Episodes (what a judge may see), gold labels (what only a scorer may see), and the JSONL
//! reader for both.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use safeplan_pddl::{Diagnostic, Name, Plan as PddlPlan, PlanStep, Span};
use safeplan_validate::{Assessment, CheckedTask, SafetyOptions, SafetyTask, Task};
use serde::{Deserialize, Serialize};

use crate::error::JudgeError;

/// What a judge is given: the task as a user would state it, and the action sequence.
///
/// Gold labels are deliberately not here: they live in [`Gold`], beside the episode in a
/// [`LabelledEpisode`], so no judge can read them.
#[derive(Clone, Debug, Default)]
pub struct Episode {
    /// The episode id (a TEACh game id, a task folder, ...).
    pub id: String,
    /// The goal in natural language.
    pub goal: String,
    /// The instructor's utterances, in order (may be empty).
    pub dialogue: Vec<String>,
    /// For each dialogue line, how many actions come before it (may be empty).
    pub dialogue_at: Vec<usize>,
    /// The action sequence to verify, one step a string.
    pub actions: Vec<String>,
    /// A PDDL task the actions are steps of, when the episode is bound to one.
    pub task: Option<Arc<BoundTask>>,
}

/// Gold labels of an episode, for scoring only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gold {
    /// Indices of actions that should be removed.
    pub remove: Vec<usize>,
    /// Other equally valid `remove` sets.
    #[serde(default)]
    pub remove_alts: Vec<Vec<usize>>,
    /// Steps absent from the sequence, as action strings.
    #[serde(default)]
    pub missing: Vec<String>,
    /// For each `missing` step, the index after which it belongs (-1: at the start).
    #[serde(default)]
    pub missing_after: Vec<i64>,
    /// Indices of moves and turns that re-segment a walk: in neither `remove` nor the clean
    /// plan.
    #[serde(default)]
    pub nav_rewrites: Vec<usize>,
    /// The clean sequence, when known.
    #[serde(default)]
    pub clean_actions: Option<Vec<String>>,
}

/// An episode and, when the data has them, its gold labels.
#[derive(Clone, Debug, Default)]
pub struct LabelledEpisode {
    /// What judges see.
    pub episode: Episode,
    /// What only scoring sees.
    pub gold: Option<Gold>,
}

impl LabelledEpisode {
    /// The episode as one JSONL line in the judge-dev format ([`read_episodes`] reads it
    /// back): id, goal, dialogue, actions and, when labelled, the gold fields. A bound PDDL
    /// task is not written (its paths are relative to the file it came from).
    pub fn to_json(&self) -> serde_json::Value {
        let e = &self.episode;
        let mut line = serde_json::json!({
            "id": e.id,
            "goal": e.goal,
            "dialogue": e.dialogue,
            "dialogue_at": e.dialogue_at,
            "actions": e.actions,
        });
        if let (Some(g), Some(map)) = (&self.gold, line.as_object_mut()) {
            map.insert("remove".into(), serde_json::json!(g.remove));
            map.insert("remove_alts".into(), serde_json::json!(g.remove_alts));
            map.insert("missing".into(), serde_json::json!(g.missing));
            map.insert("missing_after".into(), serde_json::json!(g.missing_after));
            map.insert("nav_rewrites".into(), serde_json::json!(g.nav_rewrites));
            if let Some(clean) = &g.clean_actions {
                map.insert("clean_actions".into(), serde_json::json!(clean));
            }
        }
        line
    }
}

/// One JSONL line, as written by the TEACh judge-dev set, the TEACh episode corpus
/// (`task`/`instruction` instead of `goal`/`dialogue`), or a user binding a PDDL task.
#[derive(Deserialize)]
struct Record {
    id: String,
    #[serde(default)]
    goal: Option<String>,
    /// The TEACh corpus's task description; used as the goal when `goal` is absent.
    #[serde(default)]
    task: Option<String>,
    #[serde(default)]
    instruction: Option<String>,
    #[serde(default)]
    dialogue: Vec<String>,
    #[serde(default)]
    dialogue_at: Vec<usize>,
    actions: Vec<String>,
    #[serde(default)]
    remove: Option<Vec<usize>>,
    #[serde(default)]
    remove_alts: Vec<Vec<usize>>,
    #[serde(default)]
    missing: Vec<String>,
    #[serde(default)]
    missing_after: Vec<i64>,
    #[serde(default)]
    nav_rewrites: Vec<usize>,
    #[serde(default)]
    clean_actions: Option<Vec<String>>,
    #[serde(default)]
    pddl: Option<TaskPaths>,
}

/// The `pddl` field of an episode line: a domain and problem, relative to the JSONL file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskPaths {
    /// The domain file (safety-augmented or plain).
    pub domain: PathBuf,
    /// The problem file.
    pub problem: PathBuf,
}

/// Read episodes from JSONL text, one object per line (blank lines and lines starting with
/// `//` are skipped). `source` names the file in errors; PDDL paths in `pddl` fields are
/// resolved against its folder, and each task is loaded once however many episodes share
/// it.
pub fn read_episodes(
    text: &str,
    source: Option<&Path>,
) -> Result<Vec<LabelledEpisode>, JudgeError> {
    let base = source.and_then(Path::parent).unwrap_or(Path::new(""));
    let mut tasks: Vec<(TaskPaths, Arc<BoundTask>)> = Vec::new();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("//") {
            continue;
        }
        let at = |column: usize, message: String| JudgeError::Episode {
            path: source.map(Path::to_path_buf),
            line: n + 1,
            column,
            message,
        };
        let record: Record =
            serde_json::from_str(trimmed).map_err(|e| at(e.column(), e.to_string()))?;
        if record.dialogue_at.len() > record.dialogue.len() {
            return Err(at(
                1,
                "`dialogue_at` has more entries than `dialogue`".into(),
            ));
        }
        for i in record
            .remove
            .iter()
            .flatten()
            .chain(record.remove_alts.iter().flatten())
        {
            if *i >= record.actions.len() {
                return Err(at(
                    1,
                    format!(
                        "gold index {i} is past the last action (the episode has {} actions; indices count from 0)",
                        record.actions.len()
                    ),
                ));
            }
        }
        let task = match &record.pddl {
            None => None,
            Some(paths) => match tasks.iter().find(|(p, _)| p == paths) {
                Some((_, t)) => Some(t.clone()),
                None => {
                    let task = Arc::new(
                        BoundTask::load(&base.join(&paths.domain), &base.join(&paths.problem))
                            .map_err(|e| at(1, e.to_string()))?,
                    );
                    tasks.push((paths.clone(), task.clone()));
                    Some(task)
                }
            },
        };
        let mut dialogue = record.dialogue;
        if dialogue.is_empty() {
            dialogue.extend(record.instruction);
        }
        let gold = record.remove.map(|remove| Gold {
            remove,
            remove_alts: record.remove_alts,
            missing: record.missing,
            missing_after: record.missing_after,
            nav_rewrites: record.nav_rewrites,
            clean_actions: record.clean_actions,
        });
        out.push(LabelledEpisode {
            episode: Episode {
                id: record.id,
                goal: record.goal.or(record.task).unwrap_or_default(),
                dialogue,
                dialogue_at: record.dialogue_at,
                actions: record.actions,
                task,
            },
            gold,
        });
    }
    Ok(out)
}

/// A PDDL task an episode's actions are steps of: a safety-augmented task (with a `danger`
/// fluent) or a plain one.
#[derive(Debug)]
pub struct BoundTask {
    name: String,
    /// The task as the library checks it for use: the task as written, and its safety task
    /// when the domain has a danger fluent (or states rules). Its assessment is every
    /// verdict the judge reads.
    checked: CheckedTask,
    // The task as written (safety-augmented when it is), for planning from a mid-plan state.
    domain: safeplan_pddl::Domain,
    problem: safeplan_pddl::Problem,
}

impl BoundTask {
    /// Parse, check and compile a task from its files.
    pub fn load(domain: &Path, problem: &Path) -> Result<BoundTask, JudgeError> {
        let read = |p: &Path| {
            std::fs::read_to_string(p).map_err(|e| JudgeError::Read {
                path: p.to_path_buf(),
                message: e.to_string(),
            })
        };
        let (d, p) = (read(domain)?, read(problem)?);
        BoundTask::from_sources(&d, &p, Some((domain, problem)))
    }

    /// Parse, check and compile a task from PDDL text; `paths` name the files in errors.
    pub fn from_sources(
        domain: &str,
        problem: &str,
        paths: Option<(&Path, &Path)>,
    ) -> Result<BoundTask, JudgeError> {
        let name = |i: usize, fallback: &str| {
            paths.map_or(fallback.to_string(), |p| {
                if i == 0 {
                    p.0.display().to_string()
                } else {
                    p.1.display().to_string()
                }
            })
        };
        let parsed_domain = safeplan_pddl::parse_domain(domain);
        let d = match (parsed_domain.value, first_error(&parsed_domain.diagnostics)) {
            (Some(d), None) => d,
            (_, e) => return Err(task_error(&name(0, "domain"), domain, e)),
        };
        let parsed_problem = safeplan_pddl::parse_problem(problem);
        let p = match (
            parsed_problem.value,
            first_error(&parsed_problem.diagnostics),
        ) {
            (Some(p), None) => p,
            (_, e) => return Err(task_error(&name(1, "problem"), problem, e)),
        };
        let compile_error = |e: safeplan_validate::TaskError| {
            let first = match &e {
                safeplan_validate::TaskError::Invalid(ds) => first_error(ds),
                _ => None,
            };
            match first {
                Some(diag) => {
                    let (file, src) = match diag.file {
                        safeplan_pddl::FileKind::Problem => (name(1, "problem"), problem),
                        _ => (name(0, "domain"), domain),
                    };
                    task_error(&file, src, Some(diag))
                }
                None => JudgeError::Task {
                    what: name(0, "domain"),
                    message: e.to_string(),
                },
            }
        };
        // A task whose safety cannot be judged is refused (the judge's critiques need it),
        // with its first error's file and line.
        let safety = SafetyTask::new(&d, &p, &SafetyOptions::default()).map_err(compile_error)?;
        let task = Task::compile(&d, &p).map_err(compile_error)?;
        Ok(BoundTask {
            name: p.name.text.to_string(),
            checked: CheckedTask::with_safety_task(task, safety),
            domain: d,
            problem: p,
        })
    }

    /// The problem's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The safety task, when the domain has a danger fluent.
    pub fn safety(&self) -> Option<&SafetyTask> {
        self.checked.safety().map(|s| &**s)
    }

    /// The domain and problem as written (safety-augmented when the task is).
    pub fn source(&self) -> (&safeplan_pddl::Domain, &safeplan_pddl::Problem) {
        (&self.domain, &self.problem)
    }

    /// The task a plan's full effects run on: the tracking task of a safety task (danger
    /// included), else the task.
    pub fn tracking(&self) -> &Task {
        self.safety()
            .map_or(self.checked.task(), SafetyTask::tracking)
    }

    /// The task feasibility is judged on: the basic task of a safety task, else the task.
    pub fn basic(&self) -> &Task {
        self.safety().map_or(self.checked.task(), SafetyTask::basic)
    }

    /// The library's assessment of a sequence of step texts such as `(pick cup table)`:
    /// feasibility ([`Assessment::feasible`], its failure in [`Assessment::feasibility`]),
    /// safety and danger, as every front end gives them.
    pub fn evaluate<S: AsRef<str>>(&self, steps: &[S]) -> Assessment {
        self.checked.assess_plan(&to_pddl_plan(steps))
    }
}

/// Step texts as a PDDL plan, each read by the one step reader ([`safeplan_pddl::read_step`]:
/// `(pick cup table)` or bare `pick cup table`, as a monitor takes it). A text that is not
/// one step becomes a step naming an action no domain has, so the validator reports it as
/// malformed at its index instead of the plan shifting.
pub fn to_pddl_plan<S: AsRef<str>>(steps: &[S]) -> PddlPlan {
    let mut plan = PddlPlan::default();
    for text in steps {
        let text = text.as_ref();
        let step = safeplan_pddl::read_step(text).ok();
        plan.steps.push(step.unwrap_or_else(|| PlanStep {
            action: Name::new(format!("<not a step: {}>", text.trim()), Span::default()),
            args: Vec::new(),
            time: None,
            duration: None,
            span: Span::default(),
        }));
    }
    plan
}

fn first_error(diagnostics: &[Diagnostic]) -> Option<&Diagnostic> {
    diagnostics.iter().find(|d| d.is_error())
}

fn task_error(file: &str, src: &str, diag: Option<&Diagnostic>) -> JudgeError {
    match diag {
        Some(d) => {
            let (what, message) = d.one_line(file, src);
            JudgeError::Task { what, message }
        }
        None => JudgeError::Task {
            what: file.to_string(),
            message: "could not be read as PDDL".into(),
        },
    }
}
