//! Suites: a folder of task folders, read once, hashed, split into shards.
//!
//! A *task folder* holds `domain.pddl` + `problem.pddl` (the safety-augmented task) or, in
//! DESPITE's export layout, `safe_domain.pddl` + `safe_problem.pddl` (then `domain.pddl` /
//! `problem.pddl` beside them are DESPITE's published basic task and are not read), and
//! usually `metadata.json` in DESPITE's schema. A task's id is its folder's path relative
//! to the suite root, with `/` between components, so ids are the same on every machine
//! and a replay file written elsewhere names the same tasks.

use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use safeplan_pddl::{Diagnostic, FileKind, parse_domain, parse_problem};
use safeplan_validate::{Reference, SafetyOptions, SafetyTask, Task, TaskError, TaskMetadata};
use sha2::{Digest, Sha256};

use crate::error::BenchError;

/// A suite read from disk: its tasks in id order and the hash of their content.
#[derive(Clone, Debug)]
pub struct Suite {
    root: PathBuf,
    tasks: Vec<SuiteTask>,
    hash: String,
}

/// One task folder, read but not compiled.
#[derive(Clone, Debug)]
pub struct SuiteTask {
    /// The folder's path relative to the suite root (`kitchen/hot-soup`).
    pub id: String,
    /// The folder.
    pub dir: PathBuf,
    /// The safety-augmented domain file.
    pub domain_path: PathBuf,
    /// The safety-augmented problem file.
    pub problem_path: PathBuf,
    /// The domain's text.
    pub domain: String,
    /// The problem's text.
    pub problem: String,
    /// `metadata.json`, or the default when the folder has none.
    pub metadata: TaskMetadata,
    /// `metadata.json` as written (hashed; kept in the results store for reports).
    pub metadata_json: Option<String>,
}

/// A task compiled for scoring: the safety task and its basic task as PDDL text.
#[derive(Debug)]
pub struct CompiledTask {
    /// The safety-augmented domain as parsed (danger effects included).
    pub domain: safeplan_pddl::Domain,
    /// The safety-augmented problem as parsed.
    pub problem: safeplan_pddl::Problem,
    /// The safety-augmented task.
    pub safety: SafetyTask,
    /// The safety-augmented task as written, compiled: the validity verdict of an
    /// assessment (`safeplan_validate::Assessment`), as `safeplan validate` gives it.
    pub task: Task,
    /// The basic domain (danger removed), as a planner is shown it.
    pub basic_domain: String,
    /// The basic problem.
    pub basic_problem: String,
}

impl Suite {
    /// Read every task folder under `root` (or `root` itself when it is one), in id order.
    ///
    /// Folders are walked without following symbolic links and a task folder is not looked
    /// into. A task folder whose files cannot be read, or whose `metadata.json` is not valid
    /// JSON, fails the whole load: a benchmark over part of a suite would be reported as the
    /// suite.
    pub fn load(root: &Path) -> Result<Suite, BenchError> {
        let meta = fs::metadata(root).map_err(|e| BenchError::io(root, &e))?;
        if !meta.is_dir() {
            return Err(BenchError::Io {
                path: root.to_path_buf(),
                message: "not a folder; give the folder that holds the task folders".into(),
            });
        }
        let mut dirs = Vec::new();
        walk(root, &mut dirs)?;
        if dirs.is_empty() {
            return Err(BenchError::EmptySuite(root.to_path_buf()));
        }
        // On the process's batch pool: sized for the process, made anew in a forked child.
        let tasks = safeplan_validate::parallel::install(|| {
            dirs.par_iter()
                .map(|(dir, layout)| read_task(root, dir, *layout))
                .collect::<Result<Vec<_>, _>>()
        })?;
        Ok(Suite::from_tasks(root.to_path_buf(), tasks))
    }

    /// A suite of tasks already in memory (sorted by id here).
    pub fn from_tasks(root: PathBuf, mut tasks: Vec<SuiteTask>) -> Suite {
        tasks.sort_by(|a, b| a.id.cmp(&b.id));
        let mut h = Sha256::new();
        for t in &tasks {
            for part in [
                t.id.as_str(),
                t.domain.as_str(),
                t.problem.as_str(),
                t.metadata_json.as_deref().unwrap_or(""),
            ] {
                h.update((part.len() as u64).to_le_bytes());
                h.update(part.as_bytes());
            }
        }
        let hash = h
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>();
        Suite { root, tasks, hash }
    }

    /// The folder the suite was read from.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The tasks, in id order.
    pub fn tasks(&self) -> &[SuiteTask] {
        &self.tasks
    }

    /// The task with this id.
    pub fn get(&self, id: &str) -> Option<&SuiteTask> {
        self.tasks
            .binary_search_by(|t| t.id.as_str().cmp(id))
            .ok()
            .map(|i| &self.tasks[i])
    }

    /// SHA-256 of every task's id, PDDL and metadata, in hex: two suites with the same hash
    /// give the same tasks to planners.
    pub fn hash(&self) -> &str {
        &self.hash
    }

    /// The tasks of shard `k` of `n` (1-based): every `n`-th task in id order, starting at
    /// the `k`-th, so shards are disjoint, cover the suite and have sizes within one.
    pub fn shard(&self, shard: Shard) -> impl Iterator<Item = &SuiteTask> {
        let (k, n) = (shard.index as usize, shard.count as usize);
        self.tasks
            .iter()
            .enumerate()
            .filter(move |(i, _)| i % n == k - 1)
            .map(|(_, t)| t)
    }
}

/// Shard `index` of `count` (`--shard 2/4`), 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// Which shard, from 1.
    pub index: u32,
    /// How many shards.
    pub count: u32,
}

impl Shard {
    /// The whole suite.
    pub const ALL: Shard = Shard { index: 1, count: 1 };

    /// Read `K/N` with 1 ≤ K ≤ N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (k, n) = text.split_once('/').ok_or_else(|| {
            format!("`{text}` is not K/N (e.g. 2/4 for the second of four shards)")
        })?;
        let k: u32 = k
            .trim()
            .parse()
            .map_err(|_| format!("`{k}` in `{text}` is not a whole number"))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| format!("`{n}` in `{text}` is not a whole number"))?;
        if n == 0 || k == 0 || k > n {
            return Err(format!("shard `{text}` must have 1 <= K <= N"));
        }
        Ok(Shard { index: k, count: n })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl SuiteTask {
    /// Parse, check and compile the task. Errors point at `file:line:col`.
    pub fn compile(&self) -> Result<CompiledTask, BenchError> {
        compile_sources(
            &self.domain,
            &self.problem,
            &self.domain_path,
            &self.problem_path,
        )
    }

    /// Steps of the reference safe plan from the metadata, one `(action args)` each.
    pub fn reference_safe(&self) -> Option<Vec<String>> {
        self.reference_steps(Reference::Safe)
    }

    /// Steps of the reference unsafe plan from the metadata.
    pub fn reference_unsafe(&self) -> Option<Vec<String>> {
        self.reference_steps(Reference::Unsafe)
    }

    /// A reference plan's steps, read by the library ([`safeplan_validate::ReferencePlans::read`]).
    /// A plan that does not read has none: [`Suite::load`] refuses such a task, so only a
    /// task built by hand can have one.
    fn reference_steps(&self, which: Reference) -> Option<Vec<String>> {
        let plan = self.metadata.reference_feasible_plans.read(which)?.ok()?;
        Some(plan.steps.iter().map(step_text).collect())
    }
}

/// Split a plan string (`(a x) (b y)` or one step per line) into its steps, read as a plan
/// file by the one plan reader; the reader's first error when it does not read (never fewer
/// steps).
pub fn split_steps(text: &str) -> Result<Vec<String>, String> {
    let plan = safeplan_pddl::read_plan_file(text).map_err(|errors| {
        errors.first().map_or_else(
            || "nothing could be read".to_string(),
            |d| d.message.clone(),
        )
    })?;
    Ok(plan.steps.iter().map(step_text).collect())
}

/// A planner's text reply read as a plan ([`read_answer`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadAnswer {
    /// The steps, `(action arg ...)` each; `None` when the reply holds no plan. `Some(vec![])`
    /// only when the reply states the empty plan.
    pub steps: Option<Vec<String>>,
    /// Why the reply holds no plan, when it holds none.
    pub no_plan: Option<safeplan_pddl::NoPlan>,
    /// The reader's warnings (text skipped, a plan stated twice, a step not well formed),
    /// each `line L: message`, as `ReadReport::warnings`.
    pub reading: Vec<String>,
}

/// Read an LLM's reply (or any planner's text, a plan file included) as a plan: with the
/// one reply reader, [`safeplan_pddl::read_reply`], and the task's names, as every front end
/// reads a reply (`CheckedTask::assess_reply`). A plan file is read as exactly its steps (the
/// reader's invariant; `plan_files_read_by_the_one_reader_are_their_steps` checks it on the
/// suite). A reply from which no step can be read is no plan, never the empty plan
/// (docs/FORMAT.md, "Plans in LLM replies").
pub fn read_answer(text: &str, vocabulary: Option<&safeplan_pddl::Vocabulary>) -> ReadAnswer {
    let reply = safeplan_pddl::read_reply(text, vocabulary);
    // The warnings as every front end shows them (`ReadReport::warnings`).
    let reading = reply.warnings(text);
    ReadAnswer {
        steps: reply.plan.map(|p| p.steps.iter().map(step_text).collect()),
        no_plan: reply.no_plan,
        reading,
    }
}

/// `(action arg ...)` for a parsed step.
pub fn step_text(s: &safeplan_pddl::ast::PlanStep) -> String {
    s.text()
}

/// Parse, check and compile a safety-augmented task from its text; the paths name the files
/// in errors.
pub fn compile_sources(
    domain: &str,
    problem: &str,
    domain_path: &Path,
    problem_path: &Path,
) -> Result<CompiledTask, BenchError> {
    let parsed = parse_domain(domain);
    let d = match (parsed.value, first_error(&parsed.diagnostics)) {
        (Some(d), None) => d,
        (_, e) => return Err(task_error(domain_path, domain, e)),
    };
    let parsed = parse_problem(problem);
    let p = match (parsed.value, first_error(&parsed.diagnostics)) {
        (Some(p), None) => p,
        (_, e) => return Err(task_error(problem_path, problem, e)),
    };
    let compile_error = |e: TaskError| match &e {
        TaskError::Invalid(ds) => match first_error(ds) {
            Some(diag) if diag.file == FileKind::Problem => {
                task_error(problem_path, problem, Some(diag))
            }
            Some(diag) => task_error(domain_path, domain, Some(diag)),
            None => BenchError::Task {
                at: domain_path.display().to_string(),
                message: e.to_string(),
            },
        },
        _ => BenchError::Task {
            at: domain_path.display().to_string(),
            message: e.to_string(),
        },
    };
    let task = Task::compile(&d, &p).map_err(compile_error)?;
    let safety = SafetyTask::new(&d, &p, &SafetyOptions::default())
        .map_err(compile_error)?
        .ok_or_else(|| BenchError::Task {
            at: domain_path.display().to_string(),
            message: format!(
                "{} (declare `(:functions (danger))` and raise it in dangerous actions)",
                safeplan_validate::words::not_a_safety_task(
                    "the domain",
                    safeplan_validate::DEFAULT_DANGER
                )
            ),
        })?;
    let (bd, bp) = safety.basic_ast();
    let basic_domain = safeplan_pddl::write_domain(bd);
    let basic_problem = safeplan_pddl::write_problem(bp);
    Ok(CompiledTask {
        domain: d,
        problem: p,
        safety,
        task,
        basic_domain,
        basic_problem,
    })
}

fn first_error(diagnostics: &[Diagnostic]) -> Option<&Diagnostic> {
    diagnostics.iter().find(|d| d.is_error())
}

fn task_error(path: &Path, src: &str, diag: Option<&Diagnostic>) -> BenchError {
    match diag {
        Some(d) => {
            let (at, message) = d.one_line(&path.display().to_string(), src);
            BenchError::Task { at, message }
        }
        None => BenchError::Task {
            at: path.display().to_string(),
            message: "could not be read as PDDL".into(),
        },
    }
}

/// Which files a task folder uses.
#[derive(Clone, Copy, Debug)]
enum Layout {
    /// `domain.pddl` + `problem.pddl`.
    Plain,
    /// `safe_domain.pddl` + `safe_problem.pddl`.
    Despite,
}

fn layout(dir: &Path) -> Option<Layout> {
    let has = |name: &str| dir.join(name).is_file();
    if has("safe_domain.pddl") && has("safe_problem.pddl") {
        Some(Layout::Despite)
    } else if has("domain.pddl") && has("problem.pddl") {
        Some(Layout::Plain)
    } else {
        None
    }
}

fn walk(dir: &Path, out: &mut Vec<(PathBuf, Layout)>) -> Result<(), BenchError> {
    if let Some(l) = layout(dir) {
        out.push((dir.to_path_buf(), l));
        return Ok(());
    }
    let mut entries = fs::read_dir(dir)
        .map_err(|e| BenchError::io(dir, &e))?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect::<Vec<_>>();
    entries.sort();
    for e in entries {
        walk(&e, out)?;
    }
    Ok(())
}

fn read_task(root: &Path, dir: &Path, layout: Layout) -> Result<SuiteTask, BenchError> {
    let (dn, pn) = match layout {
        Layout::Plain => ("domain.pddl", "problem.pddl"),
        Layout::Despite => ("safe_domain.pddl", "safe_problem.pddl"),
    };
    let read = |p: &Path| fs::read_to_string(p).map_err(|e| BenchError::io(p, &e));
    let (domain_path, problem_path) = (dir.join(dn), dir.join(pn));
    let domain = read(&domain_path)?;
    let problem = read(&problem_path)?;
    let meta_path = dir.join("metadata.json");
    let (metadata, metadata_json) = if meta_path.is_file() {
        let text = read(&meta_path)?;
        let m: TaskMetadata = serde_json::from_str(&text).map_err(|e| BenchError::Task {
            at: format!("{}:{}:{}", meta_path.display(), e.line(), e.column()),
            message: format!("metadata.json is not valid: {e}"),
        })?;
        // A reference plan that does not read is refused here, once: never a shorter plan
        // in a prompt, a stored length or a noise check.
        for which in [Reference::Safe, Reference::Unsafe] {
            if let Some(Err(e)) = m.reference_feasible_plans.read(which) {
                return Err(BenchError::Task {
                    at: meta_path.display().to_string(),
                    message: format!("{e}; fix the plan in metadata.json"),
                });
            }
        }
        (m, Some(text))
    } else {
        (TaskMetadata::default(), None)
    };
    let id = match dir.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| ".".into()),
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => dir.display().to_string(),
    };
    Ok(SuiteTask {
        id,
        dir: dir.to_path_buf(),
        domain_path,
        problem_path,
        domain,
        problem,
        metadata,
        metadata_json,
    })
}
