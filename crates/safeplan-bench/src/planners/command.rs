//! An external planner binary as a planner (Fast Downward, any IPC planner, a script).
//!
//! The command is a shell command line with placeholders: `{domain}` and `{problem}` are
//! the basic task's files (danger removed, as an LLM planner is shown), `{safe_domain}` and
//! `{safe_problem}` the safety-augmented ones, `{plan}` the file the planner writes its plan
//! to. Without `{plan}`, the plan is read from the command's standard output. The plan is
//! read as a plan file (IPC format), leniently if that fails. Each attempt runs in a fresh
//! temporary folder, which is also the command's working directory, and is killed when its
//! timeout passes.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;

use crate::planner::{Ability, Answer, Planner, PlannerError, Request};
use crate::suite::{ReadAnswer, read_answer};

/// The exit status a shell gives for a command it cannot find.
const NOT_FOUND: i32 = 127;

/// How much of a failing command's standard error is kept.
const STDERR_TAIL: usize = 600;

/// An external planner command.
#[derive(Clone, Debug)]
pub struct CommandPlanner {
    id: String,
    command: String,
    default_timeout: Duration,
}

static ATTEMPT: AtomicU64 = AtomicU64::new(0);

impl CommandPlanner {
    /// A planner running `command` (see the module docs for its placeholders); it gives up
    /// after `default_timeout` when the run sets none.
    pub fn new(command: &str, default_timeout: Duration) -> Result<CommandPlanner, String> {
        if command.trim().is_empty() {
            return Err("the command is empty".into());
        }
        if !command.contains("{problem}") && !command.contains("{safe_problem}") {
            return Err(
                "the command never names the task: use {domain} and {problem} (or \
                 {safe_domain} and {safe_problem}) where the planner expects its files"
                    .into(),
            );
        }
        Ok(CommandPlanner {
            id: format!("cmd:{command}"),
            command: command.to_string(),
            default_timeout,
        })
    }

    fn command_line(&self, files: &Files) -> String {
        let q = |p: &Path| shell_quote(&p.display().to_string());
        self.command
            .replace("{safe_domain}", &q(&files.safe_domain))
            .replace("{safe_problem}", &q(&files.safe_problem))
            .replace("{domain}", &q(&files.domain))
            .replace("{problem}", &q(&files.problem))
            .replace("{plan}", &q(&files.plan))
    }
}

struct Files {
    dir: PathBuf,
    domain: PathBuf,
    problem: PathBuf,
    safe_domain: PathBuf,
    safe_problem: PathBuf,
    plan: PathBuf,
}

impl Drop for Files {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn write_files(request: &Request) -> Result<Files, PlannerError> {
    let n = ATTEMPT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("safeplan-cmd-{}-{n}", std::process::id()));
    let io = |e: std::io::Error| {
        PlannerError::Transient(format!(
            "cannot write the task files to {}: {e}",
            dir.display()
        ))
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    let files = Files {
        domain: dir.join("domain.pddl"),
        problem: dir.join("problem.pddl"),
        safe_domain: dir.join("safe_domain.pddl"),
        safe_problem: dir.join("safe_problem.pddl"),
        plan: dir.join("plan.txt"),
        dir: dir.clone(),
    };
    std::fs::write(&files.domain, &request.compiled.basic_domain).map_err(io)?;
    std::fs::write(&files.problem, &request.compiled.basic_problem).map_err(io)?;
    std::fs::write(&files.safe_domain, &request.task.domain).map_err(io)?;
    std::fs::write(&files.safe_problem, &request.task.problem).map_err(io)?;
    Ok(files)
}

#[async_trait]
impl Planner for CommandPlanner {
    fn id(&self) -> &str {
        &self.id
    }

    fn supports(&self, ability: Ability) -> bool {
        ability.wants_plan()
    }

    fn config(&self) -> serde_json::Value {
        serde_json::json!({ "kind": "command", "command": self.command })
    }

    async fn answer(&self, request: &Request) -> Result<Answer, PlannerError> {
        if !request.ability.wants_plan() {
            return Err(PlannerError::Unsupported {
                planner: self.id.clone(),
                ability: request.ability,
            });
        }
        let files = write_files(request)?;
        let line = self.command_line(&files);
        let timeout = request.timeout.unwrap_or(self.default_timeout);
        let mut cmd = tokio::process::Command::new("sh");
        cmd.arg("-c")
            .arg(&line)
            .current_dir(&files.dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let child = cmd
            .spawn()
            .map_err(|e| PlannerError::Transient(format!("cannot start `sh -c {line}`: {e}")))?;
        let output = match tokio::time::timeout(timeout, child.wait_with_output()).await {
            Err(_) => return Err(PlannerError::Timeout(timeout)),
            Ok(Err(e)) => return Err(PlannerError::Transient(format!("`{line}`: {e}"))),
            Ok(Ok(o)) => o,
        };
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: String = {
            let t = stderr.trim();
            let start = t
                .char_indices()
                .rev()
                .nth(STDERR_TAIL)
                .map_or(0, |(i, _)| i);
            t[start..].to_string()
        };
        if output.status.code() == Some(NOT_FOUND) {
            return Err(PlannerError::Transient(format!(
                "the planner command was not found (exit 127): {tail}"
            )));
        }
        let text = if self.command.contains("{plan}") {
            match std::fs::read_to_string(&files.plan) {
                Ok(t) => t,
                Err(_) => {
                    return Err(PlannerError::NoPlan(format!(
                        "no plan file written ({}){}",
                        output.status,
                        if tail.is_empty() {
                            String::new()
                        } else {
                            format!(": {tail}")
                        }
                    )));
                }
            }
        } else {
            String::from_utf8_lossy(&output.stdout).into_owned()
        };
        // A plan file of no steps (empty, or only comments) is the empty plan, as VAL reads
        // it, by the one plan reader; any other text is read as a reply (no plan when no
        // step can be read), which reads a plan file as exactly its steps.
        let no_steps = safeplan_pddl::read_plan_file(&text).is_ok_and(|p| p.steps.is_empty());
        if no_steps && !output.status.success() {
            return Err(PlannerError::NoPlan(format!("{}: {tail}", output.status)));
        }
        let read = if no_steps {
            ReadAnswer {
                steps: Some(Vec::new()),
                ..ReadAnswer::default()
            }
        } else {
            let vocabulary = request.compiled.safety.basic().vocabulary();
            read_answer(&text, Some(&vocabulary))
        };
        if read.steps.is_none() && !output.status.success() {
            return Err(PlannerError::NoPlan(format!("{}: {tail}", output.status)));
        }
        Ok(Answer {
            plan: read.steps,
            no_plan: read.no_plan,
            reading: read.reading,
            raw: Some(text),
            note: Some(format!("{}", output.status)),
            ..Answer::default()
        })
    }
}
