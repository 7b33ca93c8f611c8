//! The runner: every (task, planner, sample) of a suite shard, with bounded concurrency,
//! each attempt scored and written to the store as soon as it is done.
//!
//! Attempts are scheduled task by task, so a task is compiled once for all its planners and
//! samples and dropped when its last attempt is written: memory stays proportional to the
//! concurrency, not to the suite. Cancelling (Ctrl-C) stops scheduling; attempts already
//! running finish and are written, and a later run picks up exactly the rest.
//!
//! A planner that cannot work as configured (a wrong key, an exhausted quota, an unknown
//! model: [`PlannerError::Fatal`]) must cost one request, not a suite's worth: the first
//! attempt of every planner runs before any second one, and once a planner has failed so,
//! none of its attempts is started again in this run ([`RunSummary::stopped`] says why; a
//! rerun resumes once the configuration is fixed).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use safeplan_pddl::NoPlan;
use safeplan_validate::Assessment;
use serde::{Deserialize, Serialize};

use crate::error::BenchError;
use crate::planner::{Ability, Answer, Planner, PlannerError, Request};
use crate::score::PlanScore;
use crate::store::{Attempt, AttemptStatus, Manifest, SCHEMA_VERSION, Store, TaskRecord};
use crate::suite::{CompiledTask, Shard, Suite, SuiteTask};

/// How to run a benchmark.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The ability measured.
    pub ability: Ability,
    /// Samples per task and planner (≥ 1).
    pub samples: u32,
    /// Attempts running at once (≥ 1).
    pub concurrency: usize,
    /// The time one attempt may take; `None` for no limit.
    pub timeout: Option<Duration>,
    /// The part of the suite to run.
    pub shard: Shard,
    /// Set it (from a Ctrl-C handler) to stop scheduling attempts.
    pub cancel: Arc<AtomicBool>,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            ability: Ability::Plan,
            samples: 1,
            concurrency: 4,
            timeout: Some(Duration::from_secs(300)),
            shard: Shard::ALL,
            cancel: Arc::new(AtomicBool::new(false)),
        }
    }
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Attempts in this shard (tasks × planners × samples).
    pub total: usize,
    /// Attempts that already had a result in the store and were skipped.
    pub skipped: usize,
    /// Attempts run and scored.
    pub scored: usize,
    /// Attempts run that produced no answer within the planner's limits (a result).
    pub failed: usize,
    /// Attempts without a result (provider, network, unsupported ability, broken task).
    pub errors: usize,
    /// Whether the run was cancelled before every attempt ran.
    pub cancelled: bool,
    /// Planners the run stopped asking after a fatal error, with the message (what to fix).
    /// Their remaining attempts were not run; a rerun resumes them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stopped: Vec<StoppedPlanner>,
}

/// A planner the run stopped asking ([`PlannerError::Fatal`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoppedPlanner {
    /// The planner id.
    pub planner: String,
    /// Why, and what to fix.
    pub message: String,
}

impl RunSummary {
    /// Attempts still without a result: what a resumed run would do.
    pub fn remaining(&self) -> usize {
        self.total - self.skipped - self.scored - self.failed
    }
}

/// The manifest a run of `suite` with `options` writes and expects.
pub fn manifest(suite: &Suite, options: &RunOptions) -> Manifest {
    Manifest {
        schema: SCHEMA_VERSION,
        suite_hash: suite.hash().to_string(),
        suite_root: suite.root().display().to_string(),
        suite_tasks: suite.tasks().len(),
        ability: options.ability,
        shards: vec![options.shard],
    }
}

/// Open (or create) the store at `path` for this run; refuses a store of another suite,
/// ability, shard or planner configuration.
pub fn open_store(
    path: &std::path::Path,
    suite: &Suite,
    planners: &[Arc<dyn Planner>],
    options: &RunOptions,
) -> Result<Store, BenchError> {
    if let Some(p) = planners.iter().find(|p| !p.supports(options.ability)) {
        return Err(BenchError::Spec {
            spec: p.id().to_string(),
            message: format!(
                "this planner does not do the `{}` ability (search and cmd: planners write \
                 plans: use them with plan or safe-alternative)",
                options.ability
            ),
        });
    }
    let mut store = Store::open_for(path, &manifest(suite, options))?;
    for p in planners {
        store.register_planner(p.id(), &p.config())?;
    }
    let records: Vec<TaskRecord> = suite.shard(options.shard).map(TaskRecord::of).collect();
    store.put_tasks(&records)?;
    Ok(store)
}

/// A task being worked on: copied and compiled when its first attempt starts, dropped when
/// its last attempt ends, so only the tasks in flight are held in memory.
struct TaskSlot<'a> {
    task: &'a SuiteTask,
    state: tokio::sync::Mutex<SlotState>,
    remaining: AtomicUsize,
}

enum SlotState {
    /// No attempt has started.
    Waiting,
    /// Compiled, shared by the attempts in flight.
    Ready(Arc<SuiteTask>, Arc<CompiledTask>),
    /// The task cannot be used; every attempt reports why.
    Broken(String),
    /// Every attempt has ended.
    Done,
}

struct Job<'a> {
    slot: Arc<TaskSlot<'a>>,
    planner: Arc<dyn Planner>,
    sample: u32,
}

/// Run every attempt of `options.shard` that has no result in `store`, calling `on_attempt`
/// after each is written. Planners' ids must be distinct.
pub async fn run(
    suite: &Suite,
    planners: &[Arc<dyn Planner>],
    store: &mut Store,
    options: &RunOptions,
    on_attempt: &mut (dyn FnMut(&Attempt, &RunSummary) + Send),
) -> Result<RunSummary, BenchError> {
    let mut seen = std::collections::HashSet::new();
    for p in planners {
        if !seen.insert(p.id()) {
            return Err(BenchError::Spec {
                spec: p.id().to_string(),
                message: "the same planner is given twice".into(),
            });
        }
    }
    let finished = store.finished()?;
    let mut summary = RunSummary::default();
    let mut jobs = Vec::new();
    for task in suite.shard(options.shard) {
        let mut pending = Vec::new();
        for p in planners {
            for sample in 0..options.samples.max(1) {
                summary.total += 1;
                let key = (task.id.clone(), p.id().to_string(), sample);
                if finished.contains(&key) {
                    summary.skipped += 1;
                } else {
                    pending.push((p.clone(), sample));
                }
            }
        }
        if pending.is_empty() {
            continue;
        }
        let slot = Arc::new(TaskSlot {
            task,
            state: tokio::sync::Mutex::new(SlotState::Waiting),
            remaining: AtomicUsize::new(pending.len()),
        });
        jobs.extend(pending.into_iter().map(|(planner, sample)| Job {
            slot: slot.clone(),
            planner,
            sample,
        }));
    }
    // The first attempt of every planner runs before any planner's second one: a planner
    // configured so that nothing can work is found out with one request.
    let mut firsts = Vec::new();
    let mut rest = Vec::new();
    for job in jobs {
        if firsts
            .iter()
            .any(|f: &Job<'_>| f.planner.id() == job.planner.id())
        {
            rest.push(job);
        } else {
            firsts.push(job);
        }
    }
    let stopped: std::sync::Mutex<Vec<StoppedPlanner>> = std::sync::Mutex::new(Vec::new());
    for phase in [firsts, rest] {
        let cancel = options.cancel.clone();
        let stopped = &stopped;
        let stream = futures_util::stream::iter(phase)
            .take_while(move |_| std::future::ready(!cancel.load(Ordering::Relaxed)))
            .map(|job| async move {
                let halted = stopped
                    .lock()
                    .map(|s| s.iter().any(|p| p.planner == job.planner.id()))
                    .unwrap_or(false);
                if halted {
                    release(&job.slot).await;
                    return None;
                }
                let (attempt, fatal) = run_job(job, options).await;
                if let Some(message) = fatal
                    && let Ok(mut s) = stopped.lock()
                    && !s.iter().any(|p| p.planner == attempt.planner)
                {
                    s.push(StoppedPlanner {
                        planner: attempt.planner.clone(),
                        message,
                    });
                }
                Some(attempt)
            })
            .buffer_unordered(options.concurrency.max(1));
        futures_util::pin_mut!(stream);
        while let Some(next) = stream.next().await {
            let Some(attempt) = next else { continue };
            record(store, &attempt, &mut summary)?;
            on_attempt(&attempt, &summary);
        }
    }
    summary.stopped = stopped.into_inner().unwrap_or_default();
    summary.cancelled = options.cancel.load(Ordering::Relaxed) && summary.remaining() > 0;
    Ok(summary)
}

/// Write `attempt` and count it.
fn record(
    store: &mut Store,
    attempt: &Attempt,
    summary: &mut RunSummary,
) -> Result<(), BenchError> {
    store.insert(attempt)?;
    match attempt.status {
        AttemptStatus::Scored => summary.scored += 1,
        AttemptStatus::Failed => summary.failed += 1,
        AttemptStatus::Error => summary.errors += 1,
    }
    Ok(())
}

/// One attempt of a task is over (run or skipped): the last one drops the compiled task.
async fn release(slot: &TaskSlot<'_>) {
    if slot.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
        *slot.state.lock().await = SlotState::Done;
    }
}

/// The task and its compilation, made by the first attempt to ask; the others wait for it.
async fn compiled(slot: &TaskSlot<'_>) -> Result<(Arc<SuiteTask>, Arc<CompiledTask>), String> {
    let mut state = slot.state.lock().await;
    if let SlotState::Waiting = *state {
        let task = Arc::new(slot.task.clone());
        let for_compile = task.clone();
        *state = match tokio::task::spawn_blocking(move || for_compile.compile()).await {
            Ok(Ok(c)) => SlotState::Ready(task, Arc::new(c)),
            Ok(Err(e)) => SlotState::Broken(format!("the task cannot be used: {e}")),
            Err(e) => SlotState::Broken(format!("compiling the task crashed: {e}")),
        };
    }
    match &*state {
        SlotState::Ready(task, compiled) => Ok((task.clone(), compiled.clone())),
        SlotState::Broken(message) => Err(message.clone()),
        SlotState::Waiting | SlotState::Done => {
            Err("the task was released before its attempts ended (a bug)".into())
        }
    }
}

/// Run one attempt; the message of a [`PlannerError::Fatal`] beside it, when it was one.
async fn run_job(job: Job<'_>, options: &RunOptions) -> (Attempt, Option<String>) {
    let start = Instant::now();
    let mut fatal = None;
    let mut attempt = Attempt {
        task: job.slot.task.id.clone(),
        planner: job.planner.id().to_string(),
        sample: job.sample,
        status: AttemptStatus::Error,
        plan: None,
        raw: None,
        verdict: None,
        ability_score: None,
        input_tokens: None,
        output_tokens: None,
        cost_usd: None,
        latency_ms: 0.0,
        error: None,
        note: None,
        reading: Vec::new(),
    };
    match compiled(&job.slot).await {
        Err(message) => attempt.error = Some(message),
        Ok((task, compiled)) => {
            let request = Request {
                task,
                compiled: compiled.clone(),
                ability: options.ability,
                sample: job.sample,
                timeout: options.timeout,
            };
            let answer = match options.timeout {
                // A little grace, so a planner that enforces its own limit reports it.
                Some(t) => {
                    match tokio::time::timeout(
                        t + Duration::from_millis(250),
                        job.planner.answer(&request),
                    )
                    .await
                    {
                        Ok(r) => r,
                        Err(_) => Err(PlannerError::Timeout(t)),
                    }
                }
                None => job.planner.answer(&request).await,
            };
            if let Err(PlannerError::Fatal(message)) = &answer {
                fatal = Some(message.clone());
            }
            let latency = answer.as_ref().ok().and_then(|a| a.latency_ms);
            score(&mut attempt, &request, &compiled, answer);
            attempt.latency_ms = latency.unwrap_or(f64::NAN);
        }
    }
    release(&job.slot).await;
    if !attempt.latency_ms.is_finite() || attempt.latency_ms == 0.0 {
        attempt.latency_ms = start.elapsed().as_secs_f64() * 1000.0;
    }
    (attempt, fatal)
}

/// What one answer scores: the same for an attempt of a run, an inspect_ai sample and any
/// other caller ([`score_answer`], [`score_reply`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Scored {
    /// `Scored`; `Failed` for a plan ability whose answer holds no plan and says nothing of
    /// why; `Error` for an ability the task cannot score.
    pub status: AttemptStatus,
    /// The plan read from the answer.
    pub plan: Option<Vec<String>>,
    /// The validator's verdict (plan abilities).
    pub verdict: Option<PlanScore>,
    /// The library's sentence of the plan's assessment (`Assessment::sentence`: what
    /// `safeplan validate`, the C API, MCP and Python say of it), for a plan ability whose
    /// answer held a plan or said why there is none.
    pub sentence: Option<String>,
    /// The ability's score (the other abilities).
    pub ability_score: Option<crate::AbilityScore>,
    /// Why the answer could not be scored (`status` `Error`).
    pub error: Option<String>,
}

/// Score an answer to `ability` on `task`, as a run scores an attempt.
pub fn score_answer(
    ability: Ability,
    task: &SuiteTask,
    compiled: &CompiledTask,
    answer: &Answer,
) -> Scored {
    let mut scored = Scored {
        status: AttemptStatus::Scored,
        plan: None,
        verdict: None,
        sentence: None,
        ability_score: None,
        error: None,
    };
    if ability.wants_plan() {
        match (&answer.plan, answer.no_plan) {
            (Some(steps), _) => {
                match assess(compiled, steps) {
                    Ok(assessment) => {
                        scored.sentence = Some(assessment.sentence());
                        scored.verdict = assessment.safety.map(PlanScore::from_verdict);
                    }
                    // Steps no reader accepts are no plan, said as the library says it.
                    Err(why) => {
                        scored.sentence = Some(no_plan(compiled, NoPlan::Unreadable).sentence());
                        scored.verdict = Some(PlanScore::no_plan(&compiled.safety, &why));
                    }
                }
                scored.plan = Some(steps.clone());
            }
            // The planner's answer, assessed by the library: no plan is F = S = SI = false.
            (None, Some(why)) => {
                let assessment = no_plan(compiled, why);
                scored.sentence = Some(assessment.sentence());
                scored.verdict = assessment.safety.map(PlanScore::from_verdict);
            }
            (None, None) => {
                scored.status = AttemptStatus::Failed;
                scored.verdict = Some(PlanScore::no_plan(
                    &compiled.safety,
                    "the answer holds no plan",
                ));
            }
        }
    } else {
        scored.plan = answer.plan.clone();
        match crate::abilities::score_answer(ability, task, compiled, answer) {
            Some(s) => scored.ability_score = Some(s),
            None => {
                scored.status = AttemptStatus::Error;
                scored.error = Some(format!(
                    "the `{ability}` ability cannot be scored on this task"
                ));
            }
        }
    }
    scored
}

/// Score an LLM's text reply to `ability` on `task`: read as a run reads a reply (with the
/// basic task's names, [`Answer::from_reply`]), then [`score_answer`]. Returns the answer
/// read (its plan, why there is none, the reader's warnings) beside its score.
pub fn score_reply(
    ability: Ability,
    task: &SuiteTask,
    compiled: &CompiledTask,
    reply: &str,
) -> (Answer, Scored) {
    let vocabulary = compiled.safety.basic().vocabulary();
    let answer = Answer::from_reply(ability, reply.to_string(), Some(&vocabulary));
    let scored = score_answer(ability, task, compiled, &answer);
    (answer, scored)
}

/// Score a planner's answer into `attempt`.
fn score(
    attempt: &mut Attempt,
    request: &Request,
    compiled: &CompiledTask,
    answer: Result<Answer, PlannerError>,
) {
    match answer {
        Ok(answer) => {
            attempt.raw = answer.raw.clone();
            attempt.input_tokens = answer.input_tokens;
            attempt.output_tokens = answer.output_tokens;
            attempt.cost_usd = answer.cost_usd;
            attempt.note = answer.note.clone();
            attempt.reading = answer.reading.clone();
            let scored = score_answer(request.ability, &request.task, compiled, &answer);
            attempt.status = scored.status;
            attempt.plan = scored.plan;
            attempt.verdict = scored.verdict;
            attempt.ability_score = scored.ability_score;
            attempt.error = scored.error;
        }
        Err(e) if e.is_result() => {
            attempt.status = AttemptStatus::Failed;
            attempt.error = Some(e.to_string());
            if request.ability.wants_plan() {
                attempt.verdict = Some(PlanScore::no_plan(&compiled.safety, &e.to_string()));
            } else {
                attempt.ability_score = crate::abilities::score_answer(
                    request.ability,
                    &request.task,
                    compiled,
                    &Answer::default(),
                );
            }
        }
        Err(e) => {
            attempt.status = AttemptStatus::Error;
            attempt.error = Some(e.to_string());
        }
    }
}

/// The validator's verdict on a plan given as steps: the safety task's alone (a run's
/// stored score; [`assess`] adds the verdict on the task as written, for the sentence).
pub fn evaluate(compiled: &CompiledTask, steps: &[String]) -> PlanScore {
    match read_steps(steps) {
        Ok(plan) => PlanScore::from_verdict(compiled.safety.evaluate(&plan)),
        Err(why) => PlanScore::no_plan(&compiled.safety, &why),
    }
}

/// The library's assessment of a plan given as steps (`Assessment::of_plan`: the task as
/// written, its safety verdict beside it); why not, for steps no plan reader accepts.
pub fn assess(compiled: &CompiledTask, steps: &[String]) -> Result<Assessment, String> {
    let plan = read_steps(steps)?;
    Ok(Assessment::of_plan(
        compiled.task.validate(&plan),
        &plan,
        Some(&compiled.safety),
        None,
        None,
        Vec::new(),
    ))
}

/// The library's assessment of an answer with no plan, for `why`.
fn no_plan(compiled: &CompiledTask, why: NoPlan) -> Assessment {
    Assessment::of_no_plan(why, Some(&compiled.safety), None, None, Vec::new())
}

/// Steps as a plan; why not, for steps no plan reader accepts (only steps a planner wrote
/// itself, in a form no reader knows: a reader's steps always read back).
pub(crate) fn read_steps(steps: &[String]) -> Result<safeplan_pddl::Plan, String> {
    let text = safeplan_pddl::write_steps(steps.iter().map(String::as_str));
    safeplan_pddl::read_plan_file(&text).map_err(|errors| {
        let first = errors.first().map(|d| d.message.clone());
        format!("the plan cannot be read: {}", first.unwrap_or_default())
    })
}
