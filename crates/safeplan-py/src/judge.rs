//! The Judge–Planner loop for Python: episodes, critiques and refinements as objects over
//! `safeplan-judge`'s types, and judges and revisers that are Python callables.
//!
//! A Python judge is `judge(episode, plan) -> list[Critique]` (plan: the current steps as
//! strings); a Python reviser is `reviser(episode, plan, critiques, round) -> list[str] |
//! str`, whose answer goes through the library's `check_revision`, exactly as an LLM
//! reviser's reply does — so a reviser written in Python cannot drop or rewrite a step no
//! critique named, and provenance is kept without the reviser knowing about it.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use safeplan_judge::{
    BoundTask, Critique as RustCritique, CritiqueKind, Episode as RustEpisode, Gold, Judge,
    JudgeError, Judgement, LabelledEpisode, Origin, Plan as JudgePlan, RefineOptions,
    Refinement as RustRefinement, Refiner, Reviser, Revision, Round as RustRound, Step as RustStep,
    check_revision,
};
use safeplan_llm::{LlmProvider, Stack};

use crate::aio::{Callback, Fatal, block_on, callable_name, describe, runtime};
use crate::chat::PyChat;
use crate::{EpisodeError, SpecError, to_python};

/// A judge-crate error as the Python exception a caller can act on.
pub(crate) fn judge_error(e: JudgeError) -> PyErr {
    match e {
        JudgeError::Spec { .. } => SpecError::new_err(e.to_string()),
        JudgeError::Llm(inner) => crate::llm_error(&inner),
        JudgeError::Read { .. } => PyOSError::new_err(e.to_string()),
        JudgeError::Episode { .. } | JudgeError::Task { .. } => {
            EpisodeError::new_err(e.to_string())
        }
        other => crate::SafeplanError::new_err(other.to_string()),
    }
}

/// One episode: the action sequence to verify, what a judge may read beside it (goal,
/// dialogue, a bound PDDL task), and gold labels when the file has them (read only by
/// `judge_metrics`).
#[pyclass(frozen, module = "safeplan")]
#[derive(Clone)]
pub(crate) struct Episode {
    pub(crate) inner: LabelledEpisode,
}

impl Episode {
    /// The episode as a judge or reviser is given it: without its gold labels.
    fn shown(episode: &RustEpisode) -> Episode {
        Episode {
            inner: LabelledEpisode {
                episode: episode.clone(),
                gold: None,
            },
        }
    }
}

#[pymethods]
impl Episode {
    /// An episode may hold a compiled task bound to it, and gold labels: it does not pickle.
    fn __reduce__(&self) -> PyResult<()> {
        Err(crate::processes::not_picklable(
            "Episode",
            "send its episodes file's path (or the JSON line) and read it with \
             safeplan.load_episodes / read_episodes in the receiving process",
        ))
    }

    /// An episode of your own: `actions` are the steps to verify; `domain` and `problem`
    /// (paths) bind it to a PDDL task, for the `symbolic` judge and reviser.
    #[new]
    #[pyo3(signature = (id, actions, *, goal="", dialogue=Vec::new(), domain=None, problem=None))]
    fn new(
        id: String,
        actions: Vec<String>,
        goal: &str,
        dialogue: Vec<String>,
        domain: Option<PathBuf>,
        problem: Option<PathBuf>,
    ) -> PyResult<Episode> {
        let task = match (domain, problem) {
            (None, None) => None,
            (Some(d), Some(p)) => Some(Arc::new(BoundTask::load(&d, &p).map_err(judge_error)?)),
            _ => {
                return Err(PyValueError::new_err(
                    "give both domain and problem (paths), or neither",
                ));
            }
        };
        Ok(Episode {
            inner: LabelledEpisode {
                episode: RustEpisode {
                    id,
                    goal: goal.to_string(),
                    dialogue,
                    dialogue_at: Vec::new(),
                    actions,
                    task,
                },
                gold: None,
            },
        })
    }

    /// The episode id.
    #[getter]
    fn id(&self) -> &str {
        &self.inner.episode.id
    }

    /// The goal in natural language.
    #[getter]
    fn goal(&self) -> &str {
        &self.inner.episode.goal
    }

    /// The instructor's utterances.
    #[getter]
    fn dialogue(&self) -> Vec<String> {
        self.inner.episode.dialogue.clone()
    }

    /// The action sequence to verify.
    #[getter]
    fn actions(&self) -> Vec<String> {
        self.inner.episode.actions.clone()
    }

    /// Whether the episode is bound to a PDDL task.
    #[getter]
    fn has_task(&self) -> bool {
        self.inner.episode.task.is_some()
    }

    /// The gold labels as a dict (`remove`, `missing`, ...), or `None`.
    #[getter]
    fn gold(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner.gold)
    }

    fn __repr__(&self) -> String {
        format!(
            "Episode({:?}, {} actions{})",
            self.inner.episode.id,
            self.inner.episode.actions.len(),
            if self.inner.gold.is_some() {
                ", labelled"
            } else {
                ""
            }
        )
    }
}

/// Read episodes from JSON Lines text (as TEACh's judge-dev.jsonl); `source` names the
/// file in errors and is where `pddl` paths are resolved from.
#[pyfunction]
#[pyo3(signature = (text, *, source=None))]
pub(crate) fn read_episodes(text: &str, source: Option<PathBuf>) -> PyResult<Vec<Episode>> {
    let read = safeplan_judge::read_episodes(text, source.as_deref()).map_err(judge_error)?;
    Ok(read.into_iter().map(|inner| Episode { inner }).collect())
}

/// Read an episodes file (JSON Lines, gunzipped when it ends in `.gz`).
#[pyfunction]
pub(crate) fn load_episodes(path: PathBuf) -> PyResult<Vec<Episode>> {
    let read = safeplan_judge::load_episodes(&path).map_err(judge_error)?;
    Ok(read.into_iter().map(|inner| Episode { inner }).collect())
}

/// One critique: REMOVE the step at `index`, or something MISSING before `index`.
#[pyclass(frozen, module = "safeplan")]
#[derive(Clone)]
pub(crate) struct Critique {
    inner: RustCritique,
}

#[pymethods]
impl Critique {
    /// Pickle: the critique as its JSON.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        crate::processes::reduce_json(py, "_critique_from_json", &self.inner)
    }

    /// `kind` is "remove" or "missing"; `index` is the 0-based position in the plan judged
    /// (for MISSING: the position the new steps go before; `None`: not said); `steps` are
    /// the steps a MISSING asks for, when known.
    #[new]
    #[pyo3(signature = (kind, index=None, reason="", steps=Vec::new()))]
    fn new(
        kind: &str,
        index: Option<usize>,
        reason: &str,
        steps: Vec<String>,
    ) -> PyResult<Critique> {
        let kind = match kind.to_ascii_lowercase().trim_start_matches('#') {
            "remove" => CritiqueKind::Remove,
            "missing" => CritiqueKind::Missing,
            other => {
                return Err(PyValueError::new_err(format!(
                    "a critique is \"remove\" or \"missing\", not {other:?}"
                )));
            }
        };
        if kind == CritiqueKind::Remove && index.is_none() {
            return Err(PyValueError::new_err(
                "a REMOVE critique names the step: give its index",
            ));
        }
        Ok(Critique {
            inner: RustCritique {
                kind,
                index,
                reason: reason.to_string(),
                steps,
            },
        })
    }

    /// REMOVE the step at `index`.
    #[staticmethod]
    #[pyo3(signature = (index, reason=""))]
    fn remove(index: usize, reason: &str) -> Critique {
        Critique {
            inner: RustCritique::remove(index, reason),
        }
    }

    /// MISSING steps before position `index` (`None`: not placed).
    #[staticmethod]
    #[pyo3(signature = (index=None, reason="", steps=Vec::new()))]
    fn missing(index: Option<usize>, reason: &str, steps: Vec<String>) -> Critique {
        Critique {
            inner: RustCritique::missing(index, reason, steps),
        }
    }

    /// "remove" or "missing".
    #[getter]
    fn kind(&self) -> &'static str {
        match self.inner.kind {
            CritiqueKind::Remove => "remove",
            CritiqueKind::Missing => "missing",
        }
    }

    /// The position in the plan judged.
    #[getter]
    fn index(&self) -> Option<usize> {
        self.inner.index
    }

    /// Why.
    #[getter]
    fn reason(&self) -> &str {
        &self.inner.reason
    }

    /// The steps a MISSING asks for.
    #[getter]
    fn steps(&self) -> Vec<String> {
        self.inner.steps.clone()
    }

    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Critique>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self) -> String {
        format!(
            "Critique({:?}, index={}, reason={:?})",
            self.kind(),
            self.inner
                .index
                .map_or_else(|| "None".to_string(), |i| i.to_string()),
            self.inner.reason
        )
    }
}

/// What a Python judge returned, as critiques: a list of `Critique`s or of dicts with the
/// same fields.
fn critiques_from(out: &Bound<'_, PyAny>) -> PyResult<Vec<RustCritique>> {
    if out.is_none() {
        return Ok(Vec::new());
    }
    let mut critiques = Vec::new();
    for item in out.try_iter().map_err(|_| {
        PyValueError::new_err("a judge returns a list of safeplan.Critique (empty: satisfied)")
    })? {
        let item = item?;
        if let Ok(c) = item.cast::<Critique>() {
            critiques.push(c.get().inner.clone());
        } else {
            let get = |key: &str| item.get_item(key).ok().filter(|v| !v.is_none());
            let kind: String = get("kind")
                .ok_or_else(|| {
                    PyValueError::new_err(
                        "a critique is a safeplan.Critique or a dict with \"kind\" (\"remove\" or \"missing\")",
                    )
                })?
                .extract()?;
            let index = get("index").map(|v| v.extract()).transpose()?;
            let reason: String = get("reason")
                .map(|v| v.extract())
                .transpose()?
                .unwrap_or_default();
            let steps: Vec<String> = get("steps")
                .map(|v| v.extract())
                .transpose()?
                .unwrap_or_default();
            critiques.push(Critique::new(&kind, index, &reason, steps)?.inner);
        }
    }
    Ok(critiques)
}

/// A step of a refined plan and where it came from.
#[pyclass(frozen, get_all, module = "safeplan")]
pub(crate) struct Step {
    /// The action as written.
    text: String,
    /// Its 0-based index in the original sequence, `None` if a reviser inserted it.
    original: Option<usize>,
    /// The round that inserted it, `None` for an original step.
    inserted_in: Option<usize>,
}

#[pymethods]
impl Step {
    /// Pickle: the fields, as JSON.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        crate::processes::reduce_json(
            py,
            "_step_from_json",
            &(&self.text, self.original, self.inserted_in),
        )
    }

    fn __repr__(&self) -> String {
        match (self.original, self.inserted_in) {
            (Some(i), _) => format!("Step({:?}, original={i})", self.text),
            (_, Some(r)) => format!("Step({:?}, inserted_in={r})", self.text),
            _ => format!("Step({:?})", self.text),
        }
    }
}

fn step(s: &RustStep) -> Step {
    let (original, inserted_in) = match s.origin {
        Origin::Original(i) => (Some(i), None),
        Origin::Inserted(r) => (None, Some(r)),
    };
    Step {
        text: s.text.clone(),
        original,
        inserted_in,
    }
}

fn texts(plan: &JudgePlan) -> Vec<String> {
    plan.steps.iter().map(|s| s.text.clone()).collect()
}

/// One round of the loop: the plan judged, the critiques, and the revision made of them.
#[pyclass(frozen, module = "safeplan")]
pub(crate) struct Round {
    inner: RustRound,
}

#[pymethods]
impl Round {
    /// Pickle: the round as its JSON.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        crate::processes::reduce_json(py, "_round_from_json", &self.inner)
    }

    /// 1-based round number.
    #[getter]
    fn round(&self) -> usize {
        self.inner.round
    }

    /// The plan the judge saw.
    #[getter]
    fn plan(&self) -> Vec<String> {
        texts(&self.inner.plan)
    }

    /// The judge's critiques (empty: satisfied).
    #[getter]
    fn critiques(&self) -> Vec<Critique> {
        self.inner
            .judgement
            .critiques
            .iter()
            .map(|c| Critique { inner: c.clone() })
            .collect()
    }

    /// The judge's notes (tags it could not bind, ...).
    #[getter]
    fn judge_notes(&self) -> Vec<String> {
        self.inner.judgement.notes.clone()
    }

    /// An LLM judge's reply as it came.
    #[getter]
    fn judge_reply(&self) -> Option<String> {
        self.inner.judgement.raw.clone()
    }

    /// The revised plan, `None` when the round ended the loop.
    #[getter]
    fn revised(&self) -> Option<Vec<String>> {
        self.inner.revision.as_ref().map(|r| texts(&r.plan))
    }

    /// What the reviser noted (steps it kept although the reply dropped them, ...).
    #[getter]
    fn reviser_notes(&self) -> Vec<String> {
        self.inner
            .revision
            .as_ref()
            .map(|r| r.notes.clone())
            .unwrap_or_default()
    }

    /// An LLM reviser's reply as it came.
    #[getter]
    fn reviser_reply(&self) -> Option<String> {
        self.inner.revision.as_ref().and_then(|r| r.raw.clone())
    }

    fn __repr__(&self) -> String {
        format!(
            "Round({}, {} steps, {} critiques)",
            self.inner.round,
            self.inner.plan.len(),
            self.inner.judgement.critiques.len()
        )
    }
}

/// What the loop did to one episode: every round, the final plan with provenance, why it
/// stopped.
#[pyclass(frozen, module = "safeplan")]
pub(crate) struct Refinement {
    inner: RustRefinement,
    judge: String,
}

#[pymethods]
impl Refinement {
    /// Pickle: the refinement and the judge's name, as JSON.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        crate::processes::reduce_json(py, "_refinement_from_json", &(&self.inner, &self.judge))
    }

    /// The episode id.
    #[getter]
    fn id(&self) -> &str {
        &self.inner.id
    }

    /// The judge's name.
    #[getter]
    fn judge(&self) -> &str {
        &self.judge
    }

    /// Steps the episode started with.
    #[getter]
    fn original_len(&self) -> usize {
        self.inner.original_len
    }

    /// The final plan's steps, as strings.
    #[getter]
    fn final_plan(&self) -> Vec<String> {
        texts(&self.inner.final_plan)
    }

    /// The final plan's steps with provenance.
    #[getter]
    fn steps(&self) -> Vec<Step> {
        self.inner.final_plan.steps.iter().map(step).collect()
    }

    /// Every round, in order.
    #[getter]
    fn rounds(&self) -> Vec<Round> {
        self.inner
            .rounds
            .iter()
            .map(|r| Round { inner: r.clone() })
            .collect()
    }

    /// The round whose judge raised nothing, if any.
    #[getter]
    fn converged_at(&self) -> Option<usize> {
        self.inner.converged_at
    }

    /// Why the loop stopped: "converged", "max_rounds", "oscillation", "no_change" or
    /// "error".
    #[getter]
    fn stop(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner.stop)
    }

    /// The judge's or reviser's error when `stop == "error"`; earlier rounds are kept.
    #[getter]
    fn error(&self) -> Option<String> {
        self.inner.error.clone()
    }

    /// The original indices the loop removed (what precision and recall are computed on).
    #[getter]
    fn flagged(&self) -> Vec<usize> {
        self.inner.flagged()
    }

    /// The steps revisers inserted.
    #[getter]
    fn missing(&self) -> Vec<Step> {
        self.inner.missing().into_iter().map(step).collect()
    }

    /// Tokens spent by LLM judges and revisers, as a dict.
    #[getter]
    fn usage(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(py, &self.inner.usage())
    }

    /// The line `safeplan judge` writes to refined.jsonl, as a dict.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(
            py,
            &safeplan_judge::transcript::RefinedLine::new(&self.inner),
        )
    }

    /// The lines `safeplan judge` writes to transcript.jsonl for this episode, as dicts
    /// (one per round: plan, critiques, replies, revision, usage).
    fn transcript(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python(
            py,
            &safeplan_judge::transcript::transcript_lines(&self.inner, &self.judge),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "Refinement({:?}, {} rounds, stop={:?}, flagged={:?})",
            self.inner.id,
            self.inner.rounds.len(),
            self.inner.stop,
            self.inner.flagged()
        )
    }
}

struct PyJudge {
    name: String,
    callback: Callback,
}

#[async_trait]
impl Judge for PyJudge {
    fn name(&self) -> String {
        self.name.clone()
    }

    async fn critique(
        &self,
        episode: &RustEpisode,
        plan: &JudgePlan,
    ) -> Result<Judgement, JudgeError> {
        let episode = Episode::shown(episode);
        let steps = texts(plan);
        let len = steps.len();
        let critiques = self
            .callback
            .call(
                |py| {
                    PyTuple::new(
                        py,
                        [
                            episode.into_pyobject(py)?.into_any(),
                            PyList::new(py, steps)?.into_any(),
                        ],
                    )
                },
                critiques_from,
            )
            .await
            .map_err(|e| JudgeError::External {
                name: self.name.clone(),
                message: describe(&e),
            })?;
        if let Some(c) = critiques
            .iter()
            .find(|c| c.kind == CritiqueKind::Remove && c.index.is_none_or(|i| i >= len))
        {
            return Err(JudgeError::External {
                name: self.name.clone(),
                message: format!(
                    "REMOVE of step {:?}, but the plan has {len} steps (indices count from 0)",
                    c.index
                ),
            });
        }
        Ok(Judgement::from(critiques))
    }
}

struct PyReviser {
    name: String,
    callback: Callback,
}

#[async_trait]
impl Reviser for PyReviser {
    fn name(&self) -> String {
        self.name.clone()
    }

    async fn revise(
        &self,
        episode: &RustEpisode,
        plan: &JudgePlan,
        critiques: &[RustCritique],
        round: usize,
    ) -> Result<Revision, JudgeError> {
        let episode = Episode::shown(episode);
        let steps = texts(plan);
        let given: Vec<Critique> = critiques
            .iter()
            .map(|c| Critique { inner: c.clone() })
            .collect();
        let reply = self
            .callback
            .call(
                |py| {
                    PyTuple::new(
                        py,
                        [
                            episode.into_pyobject(py)?.into_any(),
                            PyList::new(py, steps)?.into_any(),
                            PyList::new(py, given)?.into_any(),
                            round.into_pyobject(py)?.into_any(),
                        ],
                    )
                },
                |out| {
                    if let Ok(s) = out.cast::<PyString>() {
                        return s.extract::<String>();
                    }
                    let steps: Vec<String> = out.extract().map_err(|_| {
                        PyValueError::new_err(
                            "a reviser returns the revised plan: a list of step strings, or text",
                        )
                    })?;
                    Ok(steps.join("\n"))
                },
            )
            .await
            .map_err(|e| JudgeError::External {
                name: self.name.clone(),
                message: describe(&e),
            })?;
        // As an LLM reviser's reply: aligned with the plan, unflagged steps kept, REMOVEs
        // enforced, provenance kept.
        Ok(check_revision(&reply, plan, critiques, round, true))
    }
}

/// The LLM layers of a run: a response cache and a cassette, as the CLI's flags give them.
pub(crate) fn llm_stack(
    cache: Option<PathBuf>,
    record: Option<PathBuf>,
    replay: Option<PathBuf>,
) -> PyResult<Stack> {
    if record.is_some() && replay.is_some() {
        return Err(PyValueError::new_err(
            "record and replay exclude each other: record a cassette once, then replay it",
        ));
    }
    Ok(Stack::with_files(
        cache.as_deref(),
        record.as_deref(),
        replay.as_deref(),
    ))
}

/// Run the loop over `episodes` (see `safeplan.refine`, which passes `submit`).
#[pyfunction]
#[pyo3(signature = (episodes, judge, reviser, *, submit, max_rounds=5, concurrency=8, cache=None, record=None, replay=None, on_result=None, chat=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _refine(
    py: Python<'_>,
    episodes: Vec<Bound<'_, Episode>>,
    judge: &Bound<'_, PyAny>,
    reviser: &Bound<'_, PyAny>,
    submit: Py<PyAny>,
    max_rounds: usize,
    concurrency: usize,
    cache: Option<PathBuf>,
    record: Option<PathBuf>,
    replay: Option<PathBuf>,
    on_result: Option<Py<PyAny>>,
    chat: Option<Py<PyAny>>,
) -> PyResult<Vec<Refinement>> {
    if max_rounds == 0 || concurrency == 0 {
        return Err(PyValueError::new_err(
            "max_rounds and concurrency must be at least 1 (the paper uses 5 rounds)",
        ));
    }
    let replaying = replay.is_some();
    let stack = llm_stack(cache, record, replay)?;
    let fatal = Fatal::default();
    // With `chat`, the specs `llm` and `llm-json` (judge) and `llm` (reviser) are the
    // library's LLM roles asking that callable.
    let chat: Option<Arc<dyn LlmProvider>> = match chat {
        None => None,
        Some(_) if replaying => {
            return Err(PyValueError::new_err(
                "chat and replay exclude each other: a replayed run answers from the cassette \
                 without calling any model; give replay with an llm:PROVIDER spec, or chat alone",
            ));
        }
        Some(f) => {
            let f = f.bind(py);
            if !f.is_callable() {
                return Err(pyo3::exceptions::PyTypeError::new_err(
                    "chat is a callable: chat(request: dict) -> str | dict, plain or async def",
                ));
            }
            let id = callable_name(f);
            let base = Arc::new(PyChat {
                id: id.clone(),
                callback: Callback {
                    callable: f.clone().unbind(),
                    submit: submit.clone_ref(py),
                    fatal: fatal.clone(),
                },
            });
            // The callable keeps its own retries and time limits; the response cache and a
            // cassette being recorded still apply, keyed by `python:NAME` (the function's
            // `__name__`: one name per model).
            let layers = Stack {
                retry: None,
                timeout: None,
                ..stack.clone()
            };
            Some(
                layers
                    .build_on(base, &id)
                    .map_err(|e| crate::llm_error(&e))?
                    .provider,
            )
        }
    };
    let judge_spec = judge.cast::<PyString>().ok().map(|s| s.to_string());
    let reviser_spec = reviser.cast::<PyString>().ok().map(|s| s.to_string());
    let judge: Arc<dyn Judge> = if let Some(spec) = &judge_spec {
        safeplan_judge::judge_from_spec_with(spec, &stack, chat.as_ref()).map_err(judge_error)?
    } else if judge.is_callable() {
        Arc::new(PyJudge {
            name: callable_name(judge),
            callback: Callback {
                callable: judge.clone().unbind(),
                submit: submit.clone_ref(py),
                fatal: fatal.clone(),
            },
        })
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "a judge is a spec ({}) or a callable",
            safeplan_judge::JUDGE_SPECS
        )));
    };
    let reviser: Arc<dyn Reviser> = if let Some(spec) = &reviser_spec {
        safeplan_judge::reviser_from_spec_with(spec, &stack, chat.as_ref()).map_err(judge_error)?
    } else if reviser.is_callable() {
        Arc::new(PyReviser {
            name: callable_name(reviser),
            callback: Callback {
                callable: reviser.clone().unbind(),
                submit,
                fatal: fatal.clone(),
            },
        })
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "a reviser is a spec ({}) or a callable",
            safeplan_judge::REVISER_SPECS
        )));
    };
    // The specs that ask `chat` (a bare `llm`, also inside an ensemble) hold a clone of it.
    if chat.as_ref().is_some_and(|c| Arc::strong_count(c) == 1) {
        return Err(PyValueError::new_err(
            "chat is given, but neither the judge (\"llm\" or \"llm-json\") nor the reviser \
             (\"llm\") asks it: name one of them so",
        ));
    }
    let name = judge.name();
    let refiner = Refiner::new(
        judge,
        reviser,
        RefineOptions {
            max_rounds,
            concurrency,
        },
    );
    let plain: Vec<RustEpisode> = episodes
        .iter()
        .map(|e| e.get().inner.episode.clone())
        .collect();
    let runtime = runtime(1)?;
    // The caller's callback runs as each episode ends, so an interrupted run has handed
    // over what it finished; its first error stops further calls and is raised at the end.
    let mut callback_error: Option<PyErr> = None;
    let refined = block_on(py, &runtime, &fatal, || {
        refiner.refine_all(&plain, |_, r| {
            let (Some(f), None) = (&on_result, &callback_error) else {
                return;
            };
            if fatal.is_set() {
                return;
            }
            let result = Python::attach(|py| {
                let object = Refinement {
                    inner: r.clone(),
                    judge: name.clone(),
                };
                f.call1(py, (object,)).map(drop)
            });
            if let Err(e) = result {
                callback_error = Some(e);
            }
        })
    })?;
    if let Some(e) = callback_error {
        return Err(e);
    }
    Ok(refined
        .into_iter()
        .map(|inner| Refinement {
            inner,
            judge: name.clone(),
        })
        .collect())
}

/// Precision, recall and F1 of the flagged steps against the episodes' gold labels, the
/// MISSING counts and the convergence curve — `metrics.json` of `safeplan judge`, as a
/// dict. `refinements[i]` must be the refinement of `episodes[i]`.
#[pyfunction]
#[pyo3(signature = (episodes, refinements, *, max_rounds=5))]
pub(crate) fn judge_metrics(
    py: Python<'_>,
    episodes: Vec<Bound<'_, Episode>>,
    refinements: Vec<Bound<'_, Refinement>>,
    max_rounds: usize,
) -> PyResult<Py<PyAny>> {
    if episodes.len() != refinements.len() {
        return Err(PyValueError::new_err(format!(
            "{} episodes but {} refinements: give the refinements refine() returned for these episodes",
            episodes.len(),
            refinements.len()
        )));
    }
    let mut refined = Vec::with_capacity(refinements.len());
    let mut gold: Vec<Option<Gold>> = Vec::with_capacity(episodes.len());
    for (e, r) in episodes.iter().zip(&refinements) {
        let (e, r) = (e.get(), &r.get().inner);
        if r.id != e.inner.episode.id {
            return Err(PyValueError::new_err(format!(
                "refinement `{}` is paired with episode `{}`: keep the order refine() returned",
                r.id, e.inner.episode.id
            )));
        }
        refined.push(r.clone());
        gold.push(e.inner.gold.clone());
    }
    to_python(
        py,
        &safeplan_judge::score::judge_metrics(&refined, &gold, max_rounds),
    )
}

/// A `Critique` from its pickled JSON.
#[pyfunction]
pub(crate) fn _critique_from_json(json: &str) -> PyResult<Critique> {
    Ok(Critique {
        inner: crate::processes::from_json(json)?,
    })
}

/// A `Step` from its pickled JSON.
#[pyfunction]
pub(crate) fn _step_from_json(json: &str) -> PyResult<Step> {
    let (text, original, inserted_in) = crate::processes::from_json(json)?;
    Ok(Step {
        text,
        original,
        inserted_in,
    })
}

/// A `Round` from its pickled JSON.
#[pyfunction]
pub(crate) fn _round_from_json(json: &str) -> PyResult<Round> {
    Ok(Round {
        inner: crate::processes::from_json(json)?,
    })
}

/// A `Refinement` from its pickled JSON.
#[pyfunction]
pub(crate) fn _refinement_from_json(json: &str) -> PyResult<Refinement> {
    let (inner, judge) = crate::processes::from_json(json)?;
    Ok(Refinement { inner, judge })
}
