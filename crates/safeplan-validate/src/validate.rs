//! Executing plans: binding steps to ground actions, running them, and building verdicts.

use safeplan_pddl::diagnostic::nearest;
use safeplan_pddl::{FileKind, NoPlan, Plan, PlanStep};
use serde::{Deserialize, Serialize};

use crate::constraints::{Place, Stage, Tracker};
use crate::exec::{NumFault, Pending};
use crate::explain::{Explainer, Site};
use crate::state::State;
use crate::task::{Cond, ObjId, PredKind, Task, lookup};
use crate::verdict::ConstraintViolation;
use crate::verdict::{Failure, FailureKind, FinalState, SourceRef, Verdict, Warning};

/// Options for [`Task::validate_with`]. The default stops at the first failure, as a robot
/// or a benchmark wants; `keep_going` lists every failure, as a person fixing a plan wants.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ValidateOptions {
    /// Keep executing after a failure and report every failing step, as VAL's `-c` does: a
    /// malformed step is skipped, a step whose precondition is false is applied anyway.
    pub keep_going: bool,
    /// Put the final state into the verdict ([`Verdict::final_state`]).
    pub keep_final_state: bool,
    /// For temporal plans: VAL's `-t` tolerance in plan time units; `None` is VAL's default,
    /// 0.01. Events closer than a tenth of it to the first event of a happening are one
    /// happening, and duration constraints hold within it (SEMANTICS.md §2b).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
}

/// A plan step bound to an action of the task and objects: ready to check or apply.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GroundAction {
    pub(crate) schema: u32,
    pub(crate) args: Vec<ObjId>,
}

impl GroundAction {
    /// The object ids of the arguments (indices into [`Task::objects`]).
    pub fn args(&self) -> &[ObjId] {
        &self.args
    }
}

impl Task {
    /// Bind an action name and argument names (case-insensitive) to a ground action.
    ///
    /// The error is a malformed-step [`Failure`] (unknown action, wrong arity, unknown
    /// object, type mismatch) with no step number.
    pub fn ground(&self, action: &str, args: &[&str]) -> Result<GroundAction, Failure> {
        let mut out = Vec::with_capacity(args.len());
        let schema = self.bind(action, args, None, &mut out)?;
        Ok(GroundAction { schema, args: out })
    }

    /// Bind a parsed plan step to a ground action.
    pub fn ground_step(&self, step: &PlanStep) -> Result<GroundAction, Failure> {
        let mut out = Vec::with_capacity(step.args.len());
        let schema = self.bind_step(step, &mut out)?;
        Ok(GroundAction { schema, args: out })
    }

    /// The ground action written as a plan step, e.g. `(move a b)`.
    pub fn action_text(&self, action: &GroundAction) -> String {
        let mut s = format!("({}", self.schemas[action.schema as usize].name);
        for &a in &action.args {
            s.push(' ');
            s.push_str(&self.objects[a as usize].name);
        }
        s.push(')');
        s
    }

    pub(crate) fn bind_step(&self, step: &PlanStep, out: &mut Vec<ObjId>) -> Result<u32, Failure> {
        self.bind(&step.action.text, &step.args, Some(step), out)
            .map_err(|mut f| {
                // Point at the offending argument, the action name, or the whole step.
                let span = match (f.kind, f.source) {
                    (_, Some(source)) => source.span,
                    (FailureKind::UnknownAction, None) => step.action.span,
                    (_, None) => step.span,
                };
                f.source = Some(SourceRef {
                    file: FileKind::Plan,
                    span,
                });
                f
            })
    }

    /// [`Task::bind_step`] without building a failure: the schema, or `None` when the step
    /// is not a ground action of the domain. For the safety runs, which only skip or stop
    /// at such a step (feasibility reports it).
    pub(crate) fn resolve_step(&self, step: &PlanStep, out: &mut Vec<ObjId>) -> Option<u32> {
        out.clear();
        let schema_id = lookup(&self.schema_ids, &step.action.text)?;
        let schema = &self.schemas[schema_id as usize];
        if step.args.len() != schema.params.len() {
            return None;
        }
        for (arg, (_, domain)) in step.args.iter().zip(&schema.params) {
            let o = lookup(&self.object_ids, &arg.text)?;
            if !self.fits(o, *domain) {
                return None;
            }
            out.push(o);
        }
        Some(schema_id)
    }

    /// Resolve names to ids; the first thing wrong wins, in VAL's order of checks.
    fn bind<A: ArgName>(
        &self,
        action: &str,
        args: &[A],
        step: Option<&PlanStep>,
        out: &mut Vec<ObjId>,
    ) -> Result<u32, Failure> {
        let n_args = args.len();
        out.clear();
        let text = || step.map(PlanStep::text);
        let Some(schema_id) = lookup(&self.schema_ids, action) else {
            // A step an LLM reply wrote with broken parentheses (safeplan_pddl::read_reply
            // keeps it, as written, in the action's place): no name at all.
            if action.contains(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '{' | '"')) {
                return Err(Failure {
                    kind: FailureKind::UnknownAction,
                    step: None,
                    action: text(),
                    message: format!("`{action}` is not a step of the form (action arg ...)"),
                    unmet: Vec::new(),
                    advice: vec![
                        "write each step as (action arg ...), with matching parentheses".into(),
                    ],
                    source: None,
                    timing: None,
                    constraint: None,
                });
            }
            let mut advice = Vec::new();
            if let Some(s) = nearest(action, self.action_names()) {
                advice.push(format!("did you mean `{s}`?"));
            }
            advice.push(format!(
                "the domain's actions are {}",
                list(self.action_names().map(str::to_owned).collect())
            ));
            return Err(Failure {
                kind: FailureKind::UnknownAction,
                step: None,
                action: text(),
                message: format!("the domain has no action `{action}`"),
                unmet: Vec::new(),
                advice,
                source: None,
                timing: None,
                constraint: None,
            });
        };
        let schema = &self.schemas[schema_id as usize];
        if n_args != schema.params.len() {
            return Err(Failure {
                kind: FailureKind::ArityMismatch,
                step: None,
                action: text(),
                message: format!(
                    "`{}` takes {} argument{}, the step gives {}",
                    schema.name,
                    schema.params.len(),
                    if schema.params.len() == 1 { "" } else { "s" },
                    n_args
                ),
                unmet: Vec::new(),
                advice: vec![format!("write it as {}", self.signature(schema_id))],
                source: None,
                timing: None,
                constraint: None,
            });
        }
        // VAL reports an unknown object before it looks at types.
        for arg in args {
            let name = arg.arg_name();
            match lookup(&self.object_ids, name) {
                Some(o) => out.push(o),
                None => {
                    let mut advice = Vec::new();
                    if let Some(s) = nearest(name, self.objects.iter().map(|o| o.name.as_str())) {
                        advice.push(format!("did you mean `{s}`?"));
                    }
                    advice.push(
                        "declare it in the problem's (:objects ...), or use a declared object"
                            .into(),
                    );
                    return Err(Failure {
                        kind: FailureKind::UnknownObject,
                        step: None,
                        action: text(),
                        message: format!(
                            "`{name}` is not an object of the problem or a constant of the domain"
                        ),
                        unmet: Vec::new(),
                        advice,
                        source: arg.arg_span(),
                        timing: None,
                        constraint: None,
                    });
                }
            }
        }
        for (i, (&o, (param, domain))) in out.iter().zip(&schema.params).enumerate() {
            if !self.fits(o, *domain) {
                let fitting: Vec<String> = self.domains[*domain as usize]
                    .iter()
                    .map(|&x| self.objects[x as usize].name.to_string())
                    .collect();
                return Err(Failure {
                    kind: FailureKind::TypeMismatch,
                    step: None,
                    action: text(),
                    message: format!(
                        "`{}` is of type {}, but parameter ?{} of `{}` needs {}",
                        args[i].arg_name(),
                        self.describe_types(&self.objects[o as usize].types),
                        param,
                        schema.name,
                        self.describe_types(&self.domain_types[*domain as usize])
                    ),
                    unmet: Vec::new(),
                    advice: vec![if fitting.is_empty() {
                        "no object of the task fits this parameter".into()
                    } else {
                        format!("objects that fit: {}", list(fitting))
                    }],
                    source: args[i].arg_span(),
                    timing: None,
                    constraint: None,
                });
            }
        }
        Ok(schema_id)
    }

    /// `(move ?from - place ?to - place)`.
    fn signature(&self, schema: u32) -> String {
        let s = &self.schemas[schema as usize];
        let mut out = format!("({}", s.name);
        for (name, domain) in &s.params {
            out.push_str(&format!(" ?{name}"));
            if self.typed {
                out.push_str(&format!(
                    " - {}",
                    self.describe_types(&self.domain_types[*domain as usize])
                ));
            }
        }
        out.push(')');
        out
    }

    /// Validate a plan with default options.
    pub fn validate(&self, plan: &Plan) -> Verdict {
        self.validate_with(plan, &ValidateOptions::default())
    }

    /// Validate a plan with `options`: the first failure, or every failure with
    /// `keep_going`, and optionally the final state.
    pub fn validate_with(&self, plan: &Plan, options: &ValidateOptions) -> Verdict {
        Validator::new(self, options.clone()).validate(plan)
    }

    /// Validate a plan and also return the state after the last step executed.
    pub fn execute(&self, plan: &Plan, options: &ValidateOptions) -> (Verdict, State) {
        let mut v = Validator::new(self, options.clone());
        let verdict = v.validate(plan);
        (verdict, v.state)
    }

    /// Whether the ground atom `(predicate args..)` holds in `state`; `None` when the
    /// predicate or an object is unknown or the arity is wrong.
    pub fn holds(&self, state: &State, predicate: &str, args: &[&str]) -> Option<bool> {
        let pred = self
            .preds
            .iter()
            .position(|p| p.sym.name.eq_ignore_ascii_case(predicate))? as u32;
        if self.preds[pred as usize].sym.arity != args.len() {
            return None;
        }
        let ids: Option<Vec<ObjId>> = args.iter().map(|a| self.object_id(a)).collect();
        let key = self.atom_key(pred, &ids?);
        Some(match self.preds[pred as usize].kind {
            PredKind::Fluent => state.atoms.contains(&key),
            PredKind::Static => self.statics.contains(&key),
            PredKind::Derived => state.derived.contains(&key),
        })
    }

    /// The value of the numeric fluent `(function args..)` in `state`; `None` when it is
    /// undefined or the names do not resolve.
    pub fn value(&self, state: &State, function: &str, args: &[&str]) -> Option<f64> {
        let func = self
            .funcs
            .iter()
            .position(|f| f.name.eq_ignore_ascii_case(function))? as u32;
        if self.funcs[func as usize].arity != args.len() {
            return None;
        }
        let ids: Option<Vec<ObjId>> = args.iter().map(|a| self.object_id(a)).collect();
        state.value(&self.value_key(func, &ids?))
    }

    /// Whether the goal holds in `state`.
    pub fn goal_holds(&self, state: &State) -> bool {
        matches!(self.holds_cond_goal(state, 0), Ok(true))
    }

    pub(crate) fn holds_cond_goal(&self, state: &State, time: usize) -> Result<bool, NumFault> {
        let mut b: Vec<ObjId> = vec![0; self.goal_slots()];
        self.eval(state, &self.goal, &mut b, time)
    }

    /// How many top-level conjuncts of the goal hold in `state` (the state after `time`
    /// steps), and how many there are (1 when the goal is no conjunction). A conjunct that
    /// cannot be evaluated (a fluent without a value) counts as false.
    pub fn goal_conjuncts_met(&self, state: &State, time: usize) -> (usize, usize) {
        let parts: Vec<&Cond> = match &self.goal {
            Cond::And(parts) => parts.iter().collect(),
            other => vec![other],
        };
        let mut b: Vec<ObjId> = vec![0; self.goal_slots()];
        let met = parts
            .iter()
            .filter(|c| matches!(self.eval(state, c, &mut b, time), Ok(true)))
            .count();
        (met, parts.len())
    }

    /// Binding slots the goal's quantified variables need.
    pub fn goal_slots(&self) -> usize {
        self.goal_slots
    }

    /// `state` written out: true atoms (static facts included) and defined fluents, sorted.
    pub fn describe_state(&self, state: &State) -> FinalState {
        let mut atoms: Vec<String> = self
            .true_atoms(state)
            .into_iter()
            .map(|(pred, args)| {
                let name = self.preds[pred as usize].sym.name.to_lowercase();
                self.ground_text(&name, &args)
            })
            .collect();
        atoms.sort();
        let mut fluents: Vec<(String, f64)> = self
            .defined_values(state)
            .into_iter()
            .map(|(func, args, v)| (self.fluent_text(func, &args), v))
            .collect();
        fluents.sort_by(|a, b| a.0.cmp(&b.0));
        FinalState { atoms, fluents }
    }

    /// The failure of step `k` (the ground action `text` under binding `b`) whose
    /// precondition is false in `state`, with every false literal explained.
    pub(crate) fn precondition_failure(
        &self,
        state: &State,
        schema_id: u32,
        b: &[ObjId],
        k: usize,
        text: String,
    ) -> Failure {
        let schema = &self.schemas[schema_id as usize];
        let mut b = b.to_vec();
        let mut ex = Explainer::new(self, state, FileKind::Domain, Site::Step(k), k - 1);
        ex.explain(&schema.pre, &mut b);
        let literals: Vec<&str> = ex.out.iter().map(|u| u.literal.as_str()).collect();
        Failure {
            kind: FailureKind::UnsatisfiedPrecondition,
            step: Some(k),
            message: format!(
                "step {k} {text} is not applicable: {} {} false",
                literals.join(", "),
                if literals.len() == 1 { "is" } else { "are" }
            ),
            action: Some(text),
            advice: ex.out.iter().map(|u| u.advice.clone()).collect(),
            unmet: ex.out,
            source: Some(SourceRef {
                file: FileKind::Domain,
                span: schema.pre_span,
            }),
            timing: None,
            constraint: None,
        }
    }

    /// The metric `expr` in `state` (`time`: what `(total-time)` reads), or `None` with a
    /// warning when it reads a fluent that has no value.
    pub(crate) fn metric_value(
        &self,
        state: &State,
        expr: &crate::task::NumExpr,
        time: usize,
        warnings: &mut Vec<Warning>,
    ) -> Option<f64> {
        match self.num(state, expr, &[], time) {
            Ok(v) => Some(v),
            Err(fault) => {
                warnings.push(Warning {
                    step: None,
                    message: format!(
                        "the metric cannot be computed: {}",
                        self.fault_failure(&fault, None).message
                    ),
                });
                None
            }
        }
    }

    /// The warning for an `increase`/`decrease` at step `k` of a fluent with no value.
    pub(crate) fn undefined_warning(&self, (func, args): &(u32, Vec<ObjId>), k: usize) -> Warning {
        Warning {
            step: Some(k),
            message: format!(
                "{} had no value; `increase`/`decrease` treated it as 0 (as VAL does)",
                self.fluent_text(*func, args)
            ),
        }
    }

    pub(crate) fn fault_failure(&self, fault: &NumFault, step: Option<usize>) -> Failure {
        let (message, span) = match fault {
            NumFault::Undefined { func, args } => (
                format!("{} is read but has no value", self.fluent_text(*func, args)),
                None,
            ),
            NumFault::DivByZero(span) => ("division by zero".to_string(), Some(*span)),
            NumFault::NonFinite(span) => (
                "a numeric effect or expression produced an infinite or undefined number"
                    .to_string(),
                Some(*span),
            ),
            NumFault::Conflict { func, args, span } => (
                format!(
                    "{} is updated twice in one step in ways that do not commute (an assign together with another update)",
                    self.fluent_text(*func, args)
                ),
                Some(*span),
            ),
        };
        let advice = match fault {
            NumFault::Undefined { func, args } => vec![format!(
                "give {} a value in the problem's :init, e.g. (= {} 0)",
                self.fluent_text(*func, args),
                self.fluent_text(*func, args)
            )],
            NumFault::DivByZero(_) => vec!["make the divisor non-zero before this step".into()],
            NumFault::NonFinite(_) => Vec::new(),
            NumFault::Conflict { .. } => {
                vec!["write the action so each fluent gets at most one assignment".into()]
            }
        };
        Failure {
            kind: FailureKind::NumericError,
            step,
            action: None,
            message,
            unmet: Vec::new(),
            advice,
            source: span.filter(|s| !s.is_empty()).map(|span| SourceRef {
                file: FileKind::Domain,
                span,
            }),
            timing: None,
            constraint: None,
        }
    }
}

/// Something a step argument's name can be read from.
pub(crate) trait ArgName {
    fn arg_name(&self) -> &str;
    /// Where the argument is written in a plan file, if it comes from one.
    fn arg_span(&self) -> Option<SourceRef>;
}

impl ArgName for safeplan_pddl::Name {
    fn arg_name(&self) -> &str {
        &self.text
    }

    fn arg_span(&self) -> Option<SourceRef> {
        Some(SourceRef {
            file: FileKind::Plan,
            span: self.span,
        })
    }
}

impl ArgName for &str {
    fn arg_name(&self) -> &str {
        self
    }

    fn arg_span(&self) -> Option<SourceRef> {
        None
    }
}

fn list(mut names: Vec<String>) -> String {
    names.sort();
    let more = names.len().saturating_sub(8);
    let shown: Vec<String> = names.iter().take(8).map(|n| format!("`{n}`")).collect();
    match (shown.is_empty(), more) {
        (true, _) => "none".into(),
        (false, 0) => shown.join(", "),
        (false, m) => format!("{} and {m} more", shown.join(", ")),
    }
}

/// Validates plans against one task, reusing its buffers between plans: the fast path for
/// validating many plans on one thread. [`Task::validate`] makes one per call.
#[derive(Debug)]
pub struct Validator<'t> {
    task: &'t Task,
    options: ValidateOptions,
    pub(crate) state: State,
    pending: Pending,
    binding: Vec<ObjId>,
    /// The trajectory constraints' automata (empty for a task without constraints).
    tracker: Tracker,
}

impl<'t> Validator<'t> {
    /// A validator for `task`; its buffers grow to what the plans need and are reused.
    pub fn new(task: &'t Task, options: ValidateOptions) -> Validator<'t> {
        Validator {
            task,
            options,
            state: task.init.clone(),
            pending: Pending::default(),
            binding: Vec::new(),
            tracker: Tracker::new(&task.constraints),
        }
    }

    /// The verdict of what a text stated: its plan validated, or, when it held none
    /// ([`safeplan_pddl::Reply::stated_plan`]), *no plan* ([`Verdict::no_plan`]), never the
    /// empty plan.
    pub fn validate_stated(&mut self, stated: Result<&Plan, NoPlan>) -> Verdict {
        match stated {
            Ok(plan) => self.validate(plan),
            Err(why) => Verdict::no_plan(why),
        }
    }

    /// Validate one plan from the task's initial state (nothing carries over from the
    /// previous plan but the buffers).
    pub fn validate(&mut self, plan: &Plan) -> Verdict {
        let task = self.task;
        if task.is_temporal() {
            return crate::temporal::validate(task, plan, &self.options);
        }
        self.state.copy_from(&task.init);
        let mut failures: Vec<Failure> = Vec::new();
        let mut warnings: Vec<Warning> = Vec::new();
        let keep_going = self.options.keep_going;
        if let Some(k) = plan
            .steps
            .windows(2)
            .position(|w| matches!((w[0].time, w[1].time), (Some(a), Some(b)) if b < a))
        {
            warnings.push(Warning {
                step: Some(k + 2),
                message: "timestamps decrease here; safeplan executes steps in file order, \
                          one after another (sequential semantics)"
                    .into(),
            });
        }
        let constrained = task.has_constraints();
        let mut soft: Vec<ConstraintViolation> = Vec::new();
        if constrained {
            self.tracker.reset(&task.constraints);
        }
        let mut stopped = false;
        for (i, step) in plan.steps.iter().enumerate() {
            // A caller that stopped waiting (an MCP time limit, Ctrl-C in Python) ends the
            // run: a long plan on a constraint-heavy task is minutes of work.
            if crate::cancel::abandoned() {
                stopped = true;
                break;
            }
            let k = i + 1;
            // The state before step k, as VAL checks trajectory constraints: before each step.
            if constrained {
                let place = || Place {
                    label: if i == 0 {
                        "in the initial state".into()
                    } else {
                        format!("after step {i} {}", plan.steps[i - 1].text())
                    },
                    site: Site::State(i),
                };
                let step_of = (i > 0).then_some(i);
                let broke = self.judge_constraints(
                    i,
                    i as f64,
                    Stage::State,
                    step_of,
                    &place,
                    &mut failures,
                    &mut soft,
                );
                if broke && !keep_going {
                    stopped = true;
                    break;
                }
            }
            let schema_id = match task.bind_step(step, &mut self.binding) {
                Ok(s) => s,
                Err(mut f) => {
                    f.step = Some(k);
                    failures.push(f);
                    if keep_going {
                        continue;
                    }
                    stopped = true;
                    break;
                }
            };
            let schema = &task.schemas[schema_id as usize];
            self.binding.resize(schema.slots, 0);
            if self.fast_step(schema) {
                continue;
            }
            match task.eval(&self.state, &schema.pre, &mut self.binding, i) {
                Ok(true) => {
                    // Its precondition's preferences, judged in the state it runs in.
                    for p in &schema.preferences {
                        let holds = task.eval(&self.state, &p.cond, &mut self.binding, i);
                        self.tracker
                            .count_action(p.name, !matches!(holds, Ok(true)));
                    }
                }
                Ok(false) => {
                    failures.push(task.precondition_failure(
                        &self.state,
                        schema_id,
                        &self.binding,
                        k,
                        step.text(),
                    ));
                    if !keep_going {
                        stopped = true;
                        break;
                    }
                }
                Err(fault) => {
                    let mut f = task.fault_failure(&fault, Some(k));
                    f.action = Some(step.text());
                    failures.push(f);
                    if keep_going {
                        continue;
                    }
                    stopped = true;
                    break;
                }
            }
            match self.apply_effects(&schema.effects, i) {
                Ok(undefined) => {
                    warnings.extend(undefined.iter().map(|u| task.undefined_warning(u, k)));
                }
                Err(fault) => {
                    let mut f = task.fault_failure(&fault, Some(k));
                    f.action = Some(step.text());
                    failures.push(f);
                    if !keep_going {
                        stopped = true;
                        break;
                    }
                }
            }
        }
        let steps = plan.steps.len();
        let mut goal_holds = false;
        if failures.is_empty() || keep_going {
            match task.holds_cond_goal(&self.state, steps) {
                Ok(true) => goal_holds = true,
                Ok(false) => failures.push(task.goal_failure(&self.state, steps)),
                Err(fault) => failures.push(task.fault_failure(&fault, None)),
            }
        }
        // VAL checks the final state's constraints after the goal, and only once it holds.
        let judged_end = constrained && !stopped && (goal_holds || keep_going);
        if judged_end {
            let last = plan.steps.last().map(PlanStep::text).unwrap_or_default();
            let place = || Place {
                label: if steps == 0 {
                    "in the initial state".into()
                } else {
                    format!("after step {steps} {last}")
                },
                site: Site::State(steps),
            };
            let step_of = (steps > 0).then_some(steps);
            let t = steps as f64;
            let (f, s) = (&mut failures, &mut soft);
            let broke = self.judge_constraints(steps, t, Stage::State, step_of, &place, f, s);
            if !broke || keep_going {
                let end = || Place {
                    label: "at the end of the plan".into(),
                    site: Site::End,
                };
                self.judge_constraints(steps, t, Stage::End, None, &end, f, s);
            }
        }
        let valid = failures.is_empty();
        let preferences = if judged_end && task.constraints.has_preferences() {
            task.preference_outcomes(&self.tracker, soft)
        } else {
            Vec::new()
        };
        let metric = match (&task.metric, valid) {
            (Some((_, expr)), true) if constrained => {
                let expr = task.metric_with_counts(expr, &self.tracker);
                task.metric_value(&self.state, &expr, steps, &mut warnings)
            }
            (Some((_, expr)), true) => task.metric_value(&self.state, expr, steps, &mut warnings),
            _ => None,
        };
        let final_state = self
            .options
            .keep_final_state
            .then(|| task.describe_state(&self.state));
        let failure = failures.first().cloned();
        if !keep_going {
            failures.clear();
        }
        Verdict {
            valid,
            steps,
            metric,
            failure,
            failures,
            warnings,
            final_state,
            preferences,
            no_plan: None,
        }
    }

    /// Feed the current state (the `index`-th, at `time`) to the constraints' automata
    /// (with `end`, then judge what is judged at the end of the plan); a hard constraint
    /// found broken becomes a failure (of step `step`, which made the state), a soft one an
    /// explained violation. Whether a hard one broke.
    #[allow(clippy::too_many_arguments)]
    fn judge_constraints(
        &mut self,
        index: usize,
        time: f64,
        stage: Stage,
        step: Option<usize>,
        place: &dyn Fn() -> Place,
        failures: &mut Vec<Failure>,
        soft: &mut Vec<ConstraintViolation>,
    ) -> bool {
        let task = self.task;
        let found = self
            .tracker
            .judge(task, &self.state, index, time, stage, step, place, soft);
        let broke = !found.is_empty();
        failures.extend(found);
        broke
    }

    /// Run the step bound in `self.binding` by the schema's fast path, when it has one and
    /// the step is applicable: whether it did.
    fn fast_step(&mut self, schema: &crate::task::Schema) -> bool {
        let task = self.task;
        match &schema.fast {
            Some(fast) if task.fast_applicable(fast, &self.state, &self.binding) => {
                task.fast_apply(fast, &mut self.state, &self.binding);
                true
            }
            _ => false,
        }
    }

    /// Apply the effects of the step at index `time`, bound in `self.binding`, to the state
    /// (all computed against the state before, then applied at once).
    fn apply_effects(
        &mut self,
        effects: &[crate::task::Eff],
        time: usize,
    ) -> Result<Vec<(u32, Vec<ObjId>)>, NumFault> {
        self.pending.clear();
        self.task
            .collect(
                &self.state,
                effects,
                &mut self.binding,
                time,
                &mut self.pending,
            )
            .and_then(|()| self.task.apply(&mut self.state, &mut self.pending))
    }

    /// Whether `plan` is valid, without building a failure or a warning: what a benchmark
    /// counts. The same run and rules as [`Validator::validate`] (the tests hold the two to
    /// the same answer on every corpus plan); a temporal task is validated in full.
    pub fn is_valid(&mut self, plan: &Plan) -> bool {
        let task = self.task;
        if task.is_temporal() {
            return self.validate(plan).valid;
        }
        self.state.copy_from(&task.init);
        let constrained = task.has_constraints();
        if constrained {
            self.tracker.reset(&task.constraints);
        }
        for (i, step) in plan.steps.iter().enumerate() {
            // Abandoned: the answer is meaningless, and nobody reads it.
            if crate::cancel::abandoned() {
                return false;
            }
            if constrained && self.quiet_observe(i) {
                return false;
            }
            let Some(schema_id) = task.resolve_step(step, &mut self.binding) else {
                return false;
            };
            let schema = &task.schemas[schema_id as usize];
            self.binding.resize(schema.slots, 0);
            if self.fast_step(schema) {
                continue;
            }
            if !matches!(
                task.eval(&self.state, &schema.pre, &mut self.binding, i),
                Ok(true)
            ) {
                return false;
            }
            if self.apply_effects(&schema.effects, i).is_err() {
                return false;
            }
        }
        let n = plan.steps.len();
        if !matches!(task.holds_cond_goal(&self.state, n), Ok(true)) {
            return false;
        }
        if constrained {
            let at = n as f64;
            return !self.tracker.breaks(task, &self.state, n, at, Stage::State)
                && !self.tracker.breaks(task, &self.state, n, at, Stage::End);
        }
        true
    }

    /// Feed state `index` of a sequential plan to the constraints' automata without
    /// explaining anything: whether a hard constraint broke (or could not be evaluated).
    fn quiet_observe(&mut self, index: usize) -> bool {
        let task = self.task;
        self.tracker
            .breaks(task, &self.state, index, index as f64, Stage::State)
    }
}

impl Task {
    /// The failure of a plan that broke a hard trajectory constraint (found after step
    /// `step`, or at the end of the plan or in the initial state when `None`).
    pub(crate) fn constraint_failure(
        &self,
        violation: ConstraintViolation,
        step: Option<usize>,
    ) -> Failure {
        Failure {
            kind: FailureKind::ConstraintViolated,
            step,
            action: None,
            message: format!(
                "the constraint {} is broken: {}",
                violation.constraint, violation.reason
            ),
            unmet: violation.unmet.clone(),
            advice: vec![violation.advice.clone()],
            source: Some(violation.source),
            timing: None,
            constraint: Some(Box::new(violation)),
        }
    }

    /// The failure of a plan that ends in `state` without reaching the goal.
    pub(crate) fn goal_failure(&self, state: &State, steps: usize) -> Failure {
        let task = self;
        let mut b = vec![0; task.goal_slots()];
        let mut ex = Explainer::new(task, state, FileKind::Problem, Site::Goal, steps);
        ex.explain(&task.goal, &mut b);
        let advice = ex.out.iter().map(|u| u.advice.clone()).collect();
        let literals: Vec<&str> = ex.out.iter().map(|u| u.literal.as_str()).collect();
        Failure {
            kind: FailureKind::UnsatisfiedGoal,
            step: None,
            action: None,
            message: format!(
                "the plan ends without reaching the goal: {} {} false",
                literals.join(", "),
                if literals.len() == 1 { "is" } else { "are" }
            ),
            unmet: ex.out,
            advice,
            source: Some(SourceRef {
                file: FileKind::Problem,
                span: task.goal_span,
            }),
            timing: None,
            constraint: None,
        }
    }
}

impl Task {
    /// Why `options` cannot be honoured on this task, when they cannot: `keep_going` on a
    /// temporal task (the temporal validator goes on past broken constraints only). Every surface
    /// refuses such options with this message rather than ignore them.
    pub fn unsupported_option(&self, options: &ValidateOptions) -> Option<&'static str> {
        (options.keep_going && self.is_temporal()).then_some(
            "keep going after a failure (--continue, keep_going) is not supported for temporal \
             plans (the domain has durative actions): the temporal validator goes on past broken \
             trajectory constraints only, and stops at a plan's first other failure",
        )
    }
}
