//! Recorded plans as a planner, so results of other tools can be scored.
//!
//! A replay file is JSON Lines, one attempt per line:
//!
//! ```text
//! {"task": "kitchen/hot-soup", "planner": "gpt-4o", "plan": "(pick pot) (pour pot bowl)"}
//! {"task": "kitchen/hot-soup", "planner": "gpt-4o", "sample": 1, "plan": ["(pick pot)", "(wait)"]}
//! {"task": "lab/acid", "planner": "gpt-4o", "reply": "I would first ..."}
//! ```
//!
//! `task` is the task folder's path relative to the suite root; `planner` names the planner
//! the results are reported under; `sample` defaults to 0; `plan` is a plan string (read as
//! a plan file is, leniently if that fails) or a list of steps; `reply` is a raw reply, read
//! with the lenient plan reader for plan abilities and scored as the answer otherwise. A
//! task with no line is an attempt that produced no plan.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::error::BenchError;
use crate::planner::{Answer, Planner, PlannerError, Request};
use crate::suite::step_text;

/// Recorded answers of one planner name in one replay file.
#[derive(Clone, Debug)]
pub struct ReplayPlanner {
    id: String,
    file: PathBuf,
    digest: String,
    answers: HashMap<(String, u32), Recorded>,
}

#[derive(Clone, Debug)]
struct Recorded {
    plan: Option<RecordedPlan>,
    raw: Option<String>,
}

/// A recorded `plan`: steps when it is a plan file (or a list of steps) read strictly;
/// otherwise text read at answer time as a reply is, with the task's names — so a `plan`
/// that states no plan is no plan, never the empty plan.
#[derive(Clone, Debug)]
enum RecordedPlan {
    Steps(Vec<String>),
    Text(String),
}

impl RecordedPlan {
    fn of(field: PlanField) -> RecordedPlan {
        match field {
            PlanField::Text(t) => match strict_steps(&t) {
                Some(steps) => RecordedPlan::Steps(steps),
                None => RecordedPlan::Text(t),
            },
            PlanField::Steps(list) => {
                let each: Option<Vec<Vec<String>>> = list
                    .iter()
                    .map(|s| strict_steps(s).filter(|v| v.len() == 1))
                    .collect();
                match each {
                    Some(steps) => RecordedPlan::Steps(steps.into_iter().flatten().collect()),
                    // A list whose items are not all one step: read as the JSON plan it is
                    // (each item a step line; an item that is none, a step that fails).
                    None => RecordedPlan::Text(serde_json::json!({ "plan": list }).to_string()),
                }
            }
        }
    }
}

/// The steps of `text` read strictly as a plan file, when it is one without errors.
fn strict_steps(text: &str) -> Option<Vec<String>> {
    let plan = safeplan_pddl::read_plan_file(text).ok()?;
    Some(plan.steps.iter().map(step_text).collect())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    task: String,
    planner: String,
    #[serde(default)]
    sample: u32,
    #[serde(default)]
    plan: Option<PlanField>,
    #[serde(default)]
    reply: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum PlanField {
    Text(String),
    Steps(Vec<String>),
}

impl ReplayPlanner {
    /// Read a replay file: one planner per distinct `planner` name, in name order.
    pub fn load(path: &Path) -> Result<Vec<ReplayPlanner>, BenchError> {
        let text = std::fs::read_to_string(path).map_err(|e| BenchError::io(path, &e))?;
        ReplayPlanner::from_text(&text, path)
    }

    /// Read replay lines from `text`; `path` names the file in errors and configs.
    pub fn from_text(text: &str, path: &Path) -> Result<Vec<ReplayPlanner>, BenchError> {
        struct Acc {
            hash: Sha256,
            answers: HashMap<(String, u32), Recorded>,
            lines: HashMap<(String, u32), usize>,
        }
        let mut by_name: BTreeMap<String, Acc> = BTreeMap::new();
        let at = |line: usize, col: Option<usize>| match col {
            Some(c) => format!("{}:{line}:{c}", path.display()),
            None => format!("{}:{line}", path.display()),
        };
        for (i, raw_line) in text.lines().enumerate() {
            let n = i + 1;
            if raw_line.trim().is_empty() {
                continue;
            }
            let line: Line = serde_json::from_str(raw_line).map_err(|e| BenchError::Replay {
                at: at(n, Some(e.column())),
                message: format!(
                    "{e} (each line is {{\"task\": ID, \"planner\": NAME, \"plan\": \"(a x) (b y)\"}}, \
                     with optional \"sample\" and \"reply\")"
                ),
            })?;
            let plan = line.plan.map(RecordedPlan::of);
            if plan.is_none() && line.reply.is_none() {
                return Err(BenchError::Replay {
                    at: at(n, None),
                    message: "the line has neither \"plan\" nor \"reply\"".into(),
                });
            }
            let acc = by_name.entry(line.planner.clone()).or_insert_with(|| Acc {
                hash: Sha256::new(),
                answers: HashMap::new(),
                lines: HashMap::new(),
            });
            let key = (line.task.clone(), line.sample);
            if let Some(first) = acc.lines.get(&key) {
                return Err(BenchError::Replay {
                    at: at(n, None),
                    message: format!(
                        "task {} sample {} of planner {} is already on line {first}",
                        line.task, line.sample, line.planner
                    ),
                });
            }
            acc.lines.insert(key.clone(), n);
            acc.hash.update(raw_line.trim().as_bytes());
            acc.hash.update(b"\n");
            acc.answers.insert(
                key,
                Recorded {
                    plan,
                    raw: line.reply,
                },
            );
        }
        if by_name.is_empty() {
            return Err(BenchError::Replay {
                at: path.display().to_string(),
                message: "the file has no lines".into(),
            });
        }
        Ok(by_name
            .into_iter()
            .map(|(id, acc)| ReplayPlanner {
                id,
                file: path.to_path_buf(),
                digest: acc
                    .hash
                    .finalize()
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect(),
                answers: acc.answers,
            })
            .collect())
    }

    /// How many answers are recorded.
    pub fn len(&self) -> usize {
        self.answers.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }
}

#[async_trait]
impl Planner for ReplayPlanner {
    fn id(&self) -> &str {
        &self.id
    }

    fn config(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": "replay",
            "file": self.file.display().to_string(),
            "sha256": self.digest,
        })
    }

    async fn answer(&self, request: &Request) -> Result<Answer, PlannerError> {
        let key = (request.task.id.clone(), request.sample);
        match self.answers.get(&key) {
            None => Err(PlannerError::NoPlan(format!(
                "no answer recorded for task {} sample {}",
                request.task.id, request.sample
            ))),
            Some(r) => match (&r.plan, &r.raw) {
                (Some(RecordedPlan::Steps(p)), _) => Ok(Answer {
                    plan: Some(p.clone()),
                    raw: r.raw.clone(),
                    ..Answer::default()
                }),
                // A recorded plan in words is read as a reply is: a refusal is no plan.
                (Some(RecordedPlan::Text(text)), _) => {
                    let vocabulary = request.compiled.safety.basic().vocabulary();
                    let mut answer =
                        Answer::from_reply(request.ability, text.clone(), Some(&vocabulary));
                    answer.raw = r.raw.clone().or(answer.raw);
                    Ok(answer)
                }
                // A recorded reply is read as a live one is: with the task's names, and no
                // plan when no step can be read.
                (None, Some(raw)) => {
                    let vocabulary = request.compiled.safety.basic().vocabulary();
                    Ok(Answer::from_reply(
                        request.ability,
                        raw.clone(),
                        Some(&vocabulary),
                    ))
                }
                (None, None) => Ok(Answer::default()),
            },
        }
    }
}
