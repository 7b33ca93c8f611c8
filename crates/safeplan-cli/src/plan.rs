//! `safeplan plan`: find a plan with `safeplan-search` and print it in IPC format.
//!
//! The domain and problem are read, checked and compiled as `safeplan validate` does;
//! diagnostics go to standard error, because standard output is the plan (so
//! `safeplan plan d.pddl p.pddl > plan.txt` gives a file `safeplan validate` reads). The
//! plan found is validated before it is printed: for a safe plan, that it is feasible and
//! safe; for an unsafe one, feasible and unsafe. A planner bug therefore shows up as an
//! error, never as a wrong plan.

use std::io::{self, Write};
use std::time::Duration;

use safeplan_pddl::FileKind;
use safeplan_search::{
    Algorithm, GroundOptions, GroundStats, LimitKind, Limits, Measure, Outcome, Planner,
    SafetyPlanner, SearchOptions, SearchResult,
};
use safeplan_validate::words::not_a_safety_task;
use safeplan_validate::{SafetyTask, SiMode, Task};
use serde_json::json;

use crate::args::PlanArgs;
use crate::input::{Checked, check, check_options, read_inputs};
use crate::outcome::Failure;
use crate::render::Renderer;

/// The file arguments of `safeplan plan`, for hints.
const USAGE: &str = "DOMAIN PROBLEM";

/// How a run of `safeplan plan` ended (the exit code is derived from this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// A plan was found (with `--effort`, both plans).
    Found,
    /// The space was exhausted: no such plan exists.
    Unsolvable,
    /// A limit stopped the search first.
    Limit,
}

/// What `plan` prints: one JSON document, or the plan with `;` comment lines.
enum Report {
    Json(serde_json::Value),
    Text(String),
}

/// What to search for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// The task's goal (a task without the danger fluent).
    Goal,
    Basic,
    Safe,
    Unsafe,
    Effort,
}

impl Target {
    fn name(self) -> &'static str {
        match self {
            Target::Goal => "goal",
            Target::Basic => "basic",
            Target::Safe => "safe",
            Target::Unsafe => "unsafe",
            Target::Effort => "effort",
        }
    }

    /// `safe plan`, `plan`, ...
    fn plan_words(self) -> &'static str {
        match self {
            Target::Goal => "plan",
            Target::Basic => "basic plan",
            Target::Safe => "safe plan",
            Target::Unsafe => "unsafe plan",
            Target::Effort => "plans",
        }
    }
}

/// Run `safeplan plan`.
pub fn run(args: &PlanArgs, color: bool) -> Result<Status, Failure> {
    let named = [
        (args.domain.as_path(), FileKind::Domain),
        (args.problem.as_path(), FileKind::Problem),
    ];
    let inputs = read_inputs(&named, USAGE).map_err(Failure::Read)?;
    let Checked {
        mut outcome,
        domain,
        problem,
    } = check(inputs, &check_options(args.strict), false);
    let compiled = crate::validate::compile(
        &mut outcome,
        domain.as_ref(),
        problem.as_ref(),
        args.strict,
        (
            &args.danger,
            SiMode::Despite,
            safeplan_validate::DEFAULT_TOLERANCE,
        ),
    );
    crate::render::diagnostics_to_stderr(&Renderer::new(color), &outcome)?;
    let Some((task, safety)) = compiled else {
        return Err(Failure::Input {
            message: format!(
                "the domain or problem has {}; no plan was searched for",
                crate::style::count(outcome.errors().max(1), "error", "errors")
            ),
            hint: Some("fix the errors shown above; `safeplan check` lists them too".into()),
        });
    };
    let target = target(args, safety.is_some())?;
    let options = search_options(args)?;
    let ground = GroundOptions::default();
    let cannot = |e: safeplan_search::GroundError| Failure::Input {
        message: format!("cannot plan for this task: {e}"),
        hint: None,
    };

    let (report, status) = match (&safety, target) {
        (Some(safety), Target::Effort) => {
            let planner = SafetyPlanner::new(safety, &ground).map_err(cannot)?;
            let effort = planner.effort(&options);
            let safe = checked(&effort.safe, Target::Safe, &task, Some(safety))?;
            let unsafe_plan = checked(&effort.unsafe_plan, Target::Unsafe, &task, Some(safety))?;
            let status = combine(status_of(&effort.safe), status_of(&effort.unsafe_plan));
            let report = if args.json {
                Report::Json(json!({
                    "target": "effort",
                    "safe": safe.json(&effort.safe),
                    "unsafe": unsafe_plan.json(&effort.unsafe_plan),
                    "effort": effort.effort,
                    "grounding": planner.grounding(),
                }))
            } else {
                let mut text = safe.human(&effort.safe, Target::Safe, args);
                text += &unsafe_plan.human(&effort.unsafe_plan, Target::Unsafe, args);
                text += &match effort.effort {
                    Some(e) => format!(
                        "; safety effort: {e} (safe {} - unsafe {})\n",
                        safe.length.unwrap_or(0),
                        unsafe_plan.length.unwrap_or(0)
                    ),
                    // Both plans, not both proven shortest (a satisficing search, or
                    // `lama-anytime` stopped by a limit before its proof).
                    None if effort.safe.outcome.plan().is_some()
                        && effort.unsafe_plan.outcome.plan().is_some() =>
                    {
                        "; safety effort: not computed (it compares shortest plans: use --search \
                         auto, lmcut, astar or bfs)\n"
                            .to_string()
                    }
                    None => "; safety effort: not computed (a plan is missing)\n".to_string(),
                };
                text += &grounding_line(planner.grounding());
                Report::Text(text)
            };
            (report, status)
        }
        (Some(safety), target) => {
            let planner = SafetyPlanner::new(safety, &ground).map_err(cannot)?;
            let result = match target {
                Target::Safe => planner.safe_plan(&options),
                Target::Unsafe => planner.unsafe_plan(&options),
                _ => planner.basic_plan(&options),
            };
            let found = checked(&result, target, &task, Some(safety))?;
            let report = found.report(&result, target, args, planner.grounding());
            (report, status_of(&result))
        }
        (None, target) => {
            let planner = Planner::new(&task, &ground).map_err(cannot)?;
            let result = planner.plan(&options);
            let found = checked(&result, target, &task, None)?;
            let report = found.report(&result, target, args, planner.grounding());
            (report, status_of(&result))
        }
    };
    let mut report = report;
    // Preferences are soft and the planner does not optimise them: said, never silent.
    if task.has_preferences() {
        match &mut report {
            Report::Json(v) => v["preferences_ignored"] = json!(true),
            Report::Text(text) => {
                text.push_str(
                    "; preferences ignored: the planner keeps every hard constraint but does \
                     not optimise preferences (validate the plan to see their violations)\n",
                );
            }
        }
    }
    let report = match report {
        Report::Json(v) => v.to_string() + "\n",
        Report::Text(text) => text,
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    match out.write_all(report.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(status),
        // The reader went away (`| head`): the exit code still tells what was found.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(status),
        Err(e) => Err(Failure::Write(e)),
    }
}

/// The target the flags ask for, refusing safety targets on a task without danger.
fn target(args: &PlanArgs, augmented: bool) -> Result<Target, Failure> {
    let asked = if args.safe {
        Some(Target::Safe)
    } else if args.unsafe_plan {
        Some(Target::Unsafe)
    } else if args.effort {
        Some(Target::Effort)
    } else if args.basic {
        Some(Target::Basic)
    } else {
        None
    };
    match (asked, augmented) {
        (None, true) => Ok(Target::Safe),
        (None, false) | (Some(Target::Basic), false) => Ok(Target::Goal),
        (Some(t), true) => Ok(t),
        (Some(t), false) => Err(Failure::Input {
            message: format!(
                "--{} needs a safety task, and {}",
                match t {
                    Target::Unsafe => "unsafe",
                    other => other.name(),
                },
                not_a_safety_task(&args.domain.display().to_string(), &args.danger)
            ),
            hint: Some(
                "leave out the flag to plan for the goal, or name the danger fluent with \
                 --danger NAME"
                    .into(),
            ),
        }),
    }
}

fn search_options(args: &PlanArgs) -> Result<SearchOptions, Failure> {
    let time = match args.timeout {
        None => None,
        Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s.min(1e9))),
        Some(s) => {
            return Err(Failure::Input {
                message: format!("--timeout {s} is not a positive number of seconds"),
                hint: Some("for example --timeout 60".into()),
            });
        }
    };
    Ok(SearchOptions {
        algorithm: args.search,
        limits: Limits {
            max_states: args.max_states,
            max_memory: Some(args.max_memory.saturating_mul(1 << 20)),
            time,
            cancel: None,
        },
    })
}

fn status_of(result: &SearchResult) -> Status {
    match result.outcome {
        Outcome::Found { .. } => Status::Found,
        Outcome::Unsolvable => Status::Unsolvable,
        // `checked` turns it into an internal error first; counted as no plan found.
        Outcome::LimitReached { .. } | Outcome::Rejected { .. } => Status::Limit,
    }
}

/// Both searches of `--effort`: a limit outranks a proof of no plan, which outranks found.
fn combine(a: Status, b: Status) -> Status {
    match (a, b) {
        (Status::Limit, _) | (_, Status::Limit) => Status::Limit,
        (Status::Unsolvable, _) | (_, Status::Unsolvable) => Status::Unsolvable,
        _ => Status::Found,
    }
}

/// A search result whose plan (if any) passed the validator.
struct Confirmed {
    length: Option<usize>,
    /// The validator's value of the problem's metric for the plan, when it has one. The
    /// plan's cost is the search's ([`SearchResult::cost`], in its measure): the two differ
    /// when the metric was not minimized, or when `total-cost` does not start at 0, and
    /// then the human output prints both.
    metric: Option<f64>,
}

/// Validate the plan of `result` as `target` claims it: valid; safe; feasible and unsafe.
fn checked(
    result: &SearchResult,
    target: Target,
    task: &Task,
    safety: Option<&SafetyTask>,
) -> Result<Confirmed, Failure> {
    // The library re-checks every plan before returning it; one it rejected is a defect.
    if let Outcome::Rejected { plan, reason } = &result.outcome {
        return Err(Failure::Input {
            message: format!(
                "internal error: the {} the planner found does not pass the validator ({reason}): {}",
                target.plan_words(),
                plan.join(" ")
            ),
            hint: Some("please report this with the domain and problem".into()),
        });
    }
    let Some(steps) = result.outcome.plan() else {
        return Ok(Confirmed {
            length: None,
            metric: None,
        });
    };
    // Read back as any recorded steps are, by the one plan reader.
    let text = safeplan_pddl::write_steps(steps.iter().map(String::as_str));
    let plan = safeplan_pddl::read_plan_file(&text).ok();
    let verdict = plan.as_ref().map(|plan| match safety {
        Some(safety) => {
            let v = safety.evaluate(plan);
            let ok = match target {
                Target::Safe => v.safe,
                Target::Unsafe => v.feasible && !v.safe,
                _ => v.feasible,
            };
            (ok, v.basic.metric)
        }
        None => {
            let v = task.validate(plan);
            (v.valid, v.metric)
        }
    });
    match verdict {
        Some((true, metric)) => Ok(Confirmed {
            length: Some(steps.len()),
            metric: metric.filter(|_| task.has_metric()),
        }),
        _ => Err(Failure::Input {
            message: format!(
                "internal error: the {} the planner found does not pass the validator: {}",
                target.plan_words(),
                steps.join(" ")
            ),
            hint: Some("please report this with the domain and problem".into()),
        }),
    }
}

impl Confirmed {
    fn json(&self, result: &SearchResult) -> serde_json::Value {
        let mut value = json!({
            "status": match result.outcome {
                Outcome::Found { .. } => "found",
                Outcome::Unsolvable => "unsolvable",
                Outcome::LimitReached { .. } => "limit_reached",
                Outcome::Rejected { .. } => "rejected",
            },
            "algorithm": result.algorithm,
            "optimal": result.is_optimal(),
            "measure": result.measure,
            "plan": result.outcome.plan(),
            "length": self.length,
            "cost": result.cost,
            "stats": result.stats,
        });
        if let (Some(metric), Some(map)) =
            (self.metric.filter(|m| m.is_finite()), value.as_object_mut())
        {
            map.insert("metric".into(), json!(metric));
        }
        if let (Outcome::LimitReached { limit }, Some(map)) =
            (&result.outcome, value.as_object_mut())
        {
            map.insert("limit".into(), json!(limit));
        }
        if let (Some(why), Some(map)) = (&result.metric_ignored, value.as_object_mut()) {
            map.insert("metric_ignored".into(), json!(why));
        }
        value
    }

    fn report(
        &self,
        result: &SearchResult,
        target: Target,
        args: &PlanArgs,
        grounding: &GroundStats,
    ) -> Report {
        if args.json {
            let mut value = self.json(result);
            if let Some(map) = value.as_object_mut() {
                map.insert("target".into(), json!(target.name()));
                map.insert("grounding".into(), json!(grounding));
            }
            return Report::Json(value);
        }
        Report::Text(self.human(result, target, args) + &grounding_line(grounding))
    }

    /// The plan in IPC format and `;` comment lines about it.
    fn human(&self, result: &SearchResult, target: Target, args: &PlanArgs) -> String {
        // Under `auto`, say which of its two searches concluded, and why LAMA's plan is
        // not called shortest.
        let algorithm = match (args.search, result.algorithm) {
            (Algorithm::Auto, Algorithm::Lama) => {
                "lama, after auto's LM-cut stopped at a limit".to_string()
            }
            // Effort compares shortest plans: `auto` ran LM-cut alone, with the whole limit.
            (Algorithm::Auto, a) if args.effort => {
                format!("{}, auto's search for shortest plans", a.as_str())
            }
            (Algorithm::Auto, a) => format!("{}, by auto", a.as_str()),
            (_, a) => a.as_str().to_string(),
        };
        let s = &result.stats;
        let work = format!(
            "{} states expanded, {} stored, {}",
            s.expanded,
            s.stored,
            seconds(s.seconds)
        );
        match &result.outcome {
            Outcome::Found { plan } => {
                let mut text = String::new();
                if target == Target::Effort || args.effort {
                    text += &format!("; {} ({} steps)\n", target.plan_words(), plan.len());
                }
                for step in plan {
                    text += step;
                    text.push('\n');
                }
                let shortest = match (result.measure, result.is_optimal()) {
                    (Measure::Steps, true) => "shortest",
                    (Measure::Steps, false) => "not necessarily shortest",
                    (Measure::ActionCosts, true) => "cheapest by the metric's action costs",
                    (Measure::ActionCosts, false) => "not necessarily cheapest",
                };
                text += &format!(
                    "; {}: {} steps, {shortest} ({algorithm}); {work}\n",
                    target.plan_words(),
                    plan.len()
                );
                if let Some(cost) = result.cost {
                    text += &format!("; cost = {cost}\n");
                }
                if let Some(metric) = self
                    .metric
                    .filter(|m| m.is_finite() && Some(*m) != result.cost.map(|c| c as f64))
                {
                    text += &format!("; metric = {metric}\n");
                }
                if let Some(why) = &result.metric_ignored {
                    text += &format!("; {why}\n");
                }
                text
            }
            Outcome::Unsolvable => format!(
                "; no {} exists: every reachable state was explored ({algorithm}; {work})\n",
                target.plan_words()
            ),
            Outcome::Rejected { reason, .. } => format!(
                "; internal error: the {} the planner found does not pass the validator ({reason})\n",
                target.plan_words()
            ),
            Outcome::LimitReached { limit } => format!(
                "; no {} found yet: the {} was reached ({algorithm}; {work}){}\n",
                target.plan_words(),
                limit.as_str(),
                match (limit, result.algorithm.is_optimal()) {
                    (LimitKind::Time, true) => "; raise --timeout, or try --search lama",
                    (LimitKind::Time, false) => "; raise --timeout",
                    (LimitKind::States, true) => "; raise --max-states, or try --search lama",
                    (LimitKind::States, false) => "; raise --max-states",
                    (LimitKind::Memory, true) => "; raise --max-memory, or try --search lama",
                    (LimitKind::Memory, false) => "; raise --max-memory",
                    (LimitKind::Cancelled, _) => "",
                }
            ),
        }
    }
}

fn grounding_line(g: &GroundStats) -> String {
    format!(
        "; grounding: {} actions, {} atoms, {} numeric variables, {}\n",
        g.actions,
        g.atoms,
        g.numeric,
        seconds(g.seconds)
    )
}

/// `0.42 ms` or `3.2 s`.
fn seconds(s: f64) -> String {
    if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.1} s")
    }
}
