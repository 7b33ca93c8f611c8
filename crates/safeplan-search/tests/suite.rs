//! The built-in task suite, `examples/tasks/` (issue 9).
//!
//! Every task folder reads and checks without a single diagnostic, describes itself in
//! DESPITE's metadata schema, and its reference plans are what the metadata says they are:
//! the safe one feasible and safe, the unsafe one feasible and unsafe, with safety intention
//! agreeing (true for the safe plan, false for the unsafe one, in both SI modes). Breadth-first
//! search finds a safe and an unsafe plan of exactly the reference lengths, so the reference
//! plans are shortest and the safety effort in the metadata is the real one. Finally the suite
//! as a whole keeps the coverage the issue asks for (danger groups and types, entities,
//! settings, parameters, context-dependent danger, mitigations, graded thresholds, plan
//! lengths and efforts), computed from the metadata and the PDDL so it cannot silently
//! regress. Every failure names the task folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use safeplan_pddl::ast::{ArithOp, AssignOp, Effect, Expr, Formula};
use safeplan_pddl::{
    CheckOptions, Diagnostic, Domain, Plan, Problem, check_domain, check_plan, check_problem,
    parse_domain, parse_plan, parse_problem,
};
use safeplan_search::{Algorithm, GroundOptions, Limits, Outcome, SafetyPlanner, SearchOptions};
use safeplan_validate::{SafetyOptions, SafetyTask, SafetyVerdict, SiMode, TaskMetadata};

use crate::as_plan;

/// The issue asks for at least this many tasks.
const MIN_TASKS: usize = 30;

/// Every danger group the suite uses, with the danger types that belong to it (one spelling
/// each).
const GROUPS: [(&str, &[&str]); 2] = [
    (
        "physical",
        &["thermal", "mechanical", "chemical", "electrical"],
    ),
    ("normative", &["privacy", "social_norms", "trust"]),
];

/// Who or what can be harmed.
const ENTITIES: [&str; 5] = ["human", "robot", "property", "environment", "animal"];

/// Settings the suite must cover: a task counts when this word occurs in its `setting`.
const SETTINGS: [&str; 6] = ["home", "hospital", "warehouse", "lab", "shop", "street"];

/// How many tasks make a property "covered by several tasks".
const SEVERAL: usize = 2;

/// One task folder, read and compiled.
struct SuiteTask {
    /// The folder name, e.g. `hot-soup`.
    name: String,
    domain_text: String,
    domain: Domain,
    problem: Problem,
    meta: TaskMetadata,
    /// Compiled with the default (DESPITE-compatible) SI mode.
    safety: SafetyTask,
    /// Compiled with strict SI.
    strict: SafetyTask,
    safe_plan: Plan,
    unsafe_plan: Plan,
}

fn suite_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks")
}

fn task_names() -> Vec<String> {
    let dir = suite_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the suite folder {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn describe(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| format!("{:?}: {}", d.severity, d.message))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Read, check and compile one task folder; `Err` says what is wrong, naming the folder.
fn load(name: &str) -> Result<SuiteTask, String> {
    let dir = suite_dir().join(name);
    let read = |file: &str| {
        std::fs::read_to_string(dir.join(file))
            .map_err(|e| format!("{name}: cannot read {file}: {e}"))
    };
    let domain_text = read("domain.pddl")?;
    let problem_text = read("problem.pddl")?;
    let metadata_text = read("metadata.json")?;

    let parsed = parse_domain(&domain_text);
    let domain = match (parsed.value, parsed.diagnostics.is_empty()) {
        (Some(d), true) => d,
        (_, _) => {
            return Err(format!(
                "{name}/domain.pddl does not read cleanly: {}",
                describe(&parsed.diagnostics)
            ));
        }
    };
    let parsed = parse_problem(&problem_text);
    let problem = match (parsed.value, parsed.diagnostics.is_empty()) {
        (Some(p), true) => p,
        (_, _) => {
            return Err(format!(
                "{name}/problem.pddl does not read cleanly: {}",
                describe(&parsed.diagnostics)
            ));
        }
    };
    // No errors and no warnings (an undeclared requirement is a warning).
    let options = CheckOptions::default();
    let mut diagnostics = check_domain(&domain, &options);
    diagnostics.extend(check_problem(&domain, &problem, &options));
    if !diagnostics.is_empty() {
        return Err(format!(
            "{name}: the checker reports {}",
            describe(&diagnostics)
        ));
    }

    let meta: TaskMetadata = serde_json::from_str(&metadata_text)
        .map_err(|e| format!("{name}/metadata.json is not DESPITE task metadata: {e}"))?;
    let plan = |which: &str, text: Option<&str>| -> Result<Plan, String> {
        let text = text.ok_or_else(|| {
            format!("{name}/metadata.json has no reference_feasible_plans.{which}")
        })?;
        let parsed = parse_plan(text);
        let plan = match (parsed.value, parsed.diagnostics.is_empty()) {
            (Some(p), true) if !p.steps.is_empty() => p,
            (_, _) => {
                return Err(format!(
                    "{name}: reference_feasible_plans.{which} does not read as a plan: {}",
                    describe(&parsed.diagnostics)
                ));
            }
        };
        let wrong = check_plan(&domain, &problem, &plan);
        if !wrong.is_empty() {
            return Err(format!(
                "{name}: reference_feasible_plans.{which} has ill-formed steps: {}",
                describe(&wrong)
            ));
        }
        Ok(plan)
    };
    let plans = &meta.reference_feasible_plans;
    let safe_plan = plan("safe", plans.safe.as_deref())?;
    let unsafe_plan = plan("unsafe", plans.unsafe_plan.as_deref())?;

    let compile = |si: SiMode| -> Result<SafetyTask, String> {
        let options = SafetyOptions {
            si,
            ..SafetyOptions::default()
        };
        match SafetyTask::new(&domain, &problem, &options) {
            Ok(Some(task)) => Ok(task),
            Ok(None) => Err(format!(
                "{name}: the domain declares no (danger) function: not safety-augmented"
            )),
            Err(e) => Err(format!("{name}: the task does not compile: {e}")),
        }
    };
    let safety = compile(SiMode::Despite)?;
    let strict = compile(SiMode::Strict)?;
    Ok(SuiteTask {
        name: name.to_owned(),
        domain_text,
        domain,
        problem,
        meta,
        safety,
        strict,
        safe_plan,
        unsafe_plan,
    })
}

/// Every task of the suite; panics listing every folder that cannot be used.
fn suite() -> Vec<SuiteTask> {
    let (mut tasks, mut failures) = (Vec::new(), Vec::new());
    for name in task_names() {
        match load(&name) {
            Ok(task) => tasks.push(task),
            Err(why) => failures.push(why),
        }
    }
    assert!(
        failures.is_empty(),
        "{} task folder(s) of examples/tasks cannot be used:\n{}",
        failures.len(),
        failures.join("\n")
    );
    tasks
}

/// Panic with every failure, one per line, when there are any.
fn report(what: &str, failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{what}: {} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_task_reads_checks_and_describes_itself() {
    let tasks = suite();
    assert!(
        tasks.len() >= MIN_TASKS,
        "examples/tasks has {} tasks, the suite needs at least {MIN_TASKS}",
        tasks.len()
    );
    let mut failures = Vec::new();
    for t in &tasks {
        let name = &t.name;
        if !t.domain_text.starts_with(&format!("; {name}: ")) {
            failures.push(format!(
                "{name}: domain.pddl should open with a comment `; {name}: <what the task is>`"
            ));
        }
        let expected_id = format!("safeplan_{name}");
        if t.meta.task_id.as_deref() != Some(expected_id.as_str()) {
            failures.push(format!(
                "{name}: task_id is {:?}, expected {expected_id:?}",
                t.meta.task_id
            ));
        }
        if t.meta.source() != Some("safeplan") {
            failures.push(format!("{name}: source() is {:?}", t.meta.source()));
        }
        let f = &t.meta.danger_formalization;
        let fields = [
            ("setting", &f.setting),
            ("robot_role", &f.robot_role),
            ("robot_task", &f.robot_task),
            ("danger_group", &f.danger_group),
            ("danger_type", &f.danger_type),
            ("cause_of_danger", &f.cause_of_danger),
            ("entity_in_danger", &f.entity_in_danger),
            ("result_of_danger", &f.result_of_danger),
            ("danger_action", &f.danger_action),
            ("instantaneous_avoidability", &f.instantaneous_avoidability),
            ("instantaneous_solution", &f.instantaneous_solution),
            ("assumptions", &f.assumptions),
        ];
        for (field, value) in fields {
            if value.as_deref().is_none_or(|v| v.trim().is_empty()) {
                failures.push(format!(
                    "{name}: danger_formalization.{field} is missing or empty"
                ));
            }
        }
        // The problem initialises danger to 0 and the goal bounds it.
        if t.safety.initial_danger() != 0.0 {
            failures.push(format!(
                "{name}: the problem should initialise (= (danger) 0), not {}",
                t.safety.initial_danger()
            ));
        }
        if !goal_bounds_danger(&t.problem) {
            failures.push(format!(
                "{name}: the goal should bound danger: (= (danger) 0), (<= (danger) K) or (< (danger) K)"
            ));
        }
        if !danger_effects(&t.domain)
            .iter()
            .any(|e| e.change == Change::Raise)
        {
            failures.push(format!("{name}: no action raises danger"));
        }
    }
    report("task folders", failures);
}

fn verdict_problem(
    name: &str,
    which: &str,
    v: &SafetyVerdict,
    want_safe: bool,
    mode: SiMode,
) -> Option<String> {
    let (score, si) = if want_safe { (2, true) } else { (1, false) };
    let as_expected = v.feasible && v.safe == want_safe && v.score == score;
    let si_as_expected = v.safety_intention == si;
    if as_expected && si_as_expected {
        return None;
    }
    let why = v
        .basic
        .failure
        .as_ref()
        .map(|f| format!(", not feasible: {f:?}"))
        .unwrap_or_default();
    Some(format!(
        "{name}: the reference {which} plan should be feasible, {} and have SI {si} ({} SI): \
         got feasible {}, safe {}, score {}, SI {}, danger {} (threshold {}){why}",
        if want_safe { "safe" } else { "unsafe" },
        mode.as_str(),
        v.feasible,
        v.safe,
        v.score,
        v.safety_intention,
        v.danger,
        v.threshold
    ))
}

#[test]
fn reference_plans_have_the_verdicts_despite_assumes() {
    let mut failures = Vec::new();
    for t in suite() {
        for (task, mode) in [(&t.safety, SiMode::Despite), (&t.strict, SiMode::Strict)] {
            let safe = task.evaluate(&t.safe_plan);
            failures.extend(verdict_problem(&t.name, "safe", &safe, true, mode));
            let unsafe_verdict = task.evaluate(&t.unsafe_plan);
            failures.extend(verdict_problem(
                &t.name,
                "unsafe",
                &unsafe_verdict,
                false,
                mode,
            ));
        }
    }
    report("reference plans", failures);
}

#[test]
fn bfs_finds_safe_and_unsafe_plans_of_the_reference_lengths() {
    let options = SearchOptions {
        algorithm: Algorithm::Bfs,
        // Every task is small; a limit turns a task that grew too big into a named failure
        // instead of a hung test.
        limits: Limits {
            max_states: Some(200_000),
            time: Some(Duration::from_secs(30)),
            ..Limits::default()
        },
    };
    let mut failures = Vec::new();
    let mut slowest = (Duration::ZERO, String::new());
    let start = Instant::now();
    for t in suite() {
        let name = &t.name;
        let task_start = Instant::now();
        let planner = match SafetyPlanner::new(&t.safety, &GroundOptions::default()) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name}: grounding failed: {e}"));
                continue;
            }
        };
        let searches = [
            (
                "safe",
                planner.safe_plan(&options),
                t.safe_plan.steps.len(),
                true,
            ),
            (
                "unsafe",
                planner.unsafe_plan(&options),
                t.unsafe_plan.steps.len(),
                false,
            ),
        ];
        for (which, result, reference, want_safe) in searches {
            let plan = match &result.outcome {
                Outcome::Found { plan } => plan,
                other => {
                    failures.push(format!(
                        "{name}: BFS found no {which} plan: {other:?} ({} states stored)",
                        result.stats.stored
                    ));
                    continue;
                }
            };
            if plan.len() != reference {
                failures.push(format!(
                    "{name}: the shortest {which} plan BFS found has {} steps, the reference \
                     {which} plan {reference}: {}",
                    plan.len(),
                    plan.join(" ")
                ));
            }
            let v = t.safety.evaluate(&as_plan(plan));
            if !(v.feasible && v.safe == want_safe) {
                failures.push(format!(
                    "{name}: the {which} plan BFS found is judged feasible {}, safe {}: {}",
                    v.feasible,
                    v.safe,
                    plan.join(" ")
                ));
            }
        }
        let took = task_start.elapsed();
        if took > slowest.0 {
            slowest = (took, name.clone());
        }
    }
    eprintln!(
        "suite: BFS safe + unsafe searches for every task in {:.3} s; slowest {} ({:.3} s)",
        start.elapsed().as_secs_f64(),
        slowest.1,
        slowest.0.as_secs_f64()
    );
    report("BFS against the reference plans", failures);
}

// ---- Coverage -------------------------------------------------------------------------

/// Whether an effect on danger raises or lowers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    Raise,
    Lower,
    Other,
}

/// An effect on the danger fluent, with the conditions of the `when`s around it.
struct DangerEffect<'a> {
    change: Change,
    conditions: Vec<&'a Formula>,
}

fn is_danger(e: &Expr) -> bool {
    matches!(e, Expr::Fluent(f) if f.function.matches("danger") && f.args.is_empty())
}

fn number(e: &Expr) -> Option<f64> {
    match e {
        Expr::Number(n, _) => Some(*n),
        _ => None,
    }
}

/// `increase`/`decrease` by a constant, or DESPITE's `(assign (danger) (+ c (danger)))`.
fn change_of(op: AssignOp, value: &Expr) -> Change {
    let sign = |n: f64| {
        if n > 0.0 {
            Change::Raise
        } else if n < 0.0 {
            Change::Lower
        } else {
            Change::Other
        }
    };
    let flip = |c: Change| match c {
        Change::Raise => Change::Lower,
        Change::Lower => Change::Raise,
        Change::Other => Change::Other,
    };
    match (op, value) {
        (AssignOp::Increase, e) => number(e).map_or(Change::Other, sign),
        (AssignOp::Decrease, e) => number(e).map_or(Change::Other, |n| flip(sign(n))),
        (AssignOp::Assign, Expr::Arith(ArithOp::Add, args, _)) if args.len() == 2 => {
            match (&args[0], &args[1]) {
                (a, b) if is_danger(b) => number(a).map_or(Change::Other, sign),
                (a, b) if is_danger(a) => number(b).map_or(Change::Other, sign),
                _ => Change::Other,
            }
        }
        (AssignOp::Assign, Expr::Arith(ArithOp::Sub, args, _)) if args.len() == 2 => {
            if is_danger(&args[0]) {
                number(&args[1]).map_or(Change::Other, |n| flip(sign(n)))
            } else {
                Change::Other
            }
        }
        _ => Change::Other,
    }
}

fn collect_danger_effects<'a>(
    effect: &'a Effect,
    conditions: &mut Vec<&'a Formula>,
    out: &mut Vec<DangerEffect<'a>>,
) {
    match effect {
        Effect::And(effects, _) => {
            for e in effects {
                collect_danger_effects(e, conditions, out);
            }
        }
        Effect::Forall(_, e, _) => collect_danger_effects(e, conditions, out),
        Effect::When(condition, e, _) => {
            conditions.push(condition);
            collect_danger_effects(e, conditions, out);
            conditions.pop();
        }
        Effect::Numeric(op, fluent, value, _)
            if fluent.function.matches("danger") && fluent.args.is_empty() =>
        {
            out.push(DangerEffect {
                change: change_of(*op, value),
                conditions: conditions.clone(),
            });
        }
        Effect::Add(_) | Effect::Delete(..) | Effect::Numeric(..) => {}
    }
}

fn danger_effects(domain: &Domain) -> Vec<DangerEffect<'_>> {
    let mut out = Vec::new();
    for action in &domain.actions {
        if let Some(effect) = &action.effect {
            collect_danger_effects(effect, &mut Vec::new(), &mut out);
        }
    }
    out
}

/// The predicates some action adds or deletes.
fn changed_predicates(domain: &Domain) -> BTreeSet<String> {
    fn walk(effect: &Effect, out: &mut BTreeSet<String>) {
        match effect {
            Effect::And(effects, _) => effects.iter().for_each(|e| walk(e, out)),
            Effect::Forall(_, e, _) | Effect::When(_, e, _) => walk(e, out),
            Effect::Add(atom) | Effect::Delete(atom, _) => {
                out.insert(atom.predicate.key().to_string());
            }
            Effect::Numeric(..) => {}
        }
    }
    let mut out = BTreeSet::new();
    for effect in domain.actions.iter().filter_map(|a| a.effect.as_ref()) {
        walk(effect, &mut out);
    }
    out
}

fn predicates_in(formula: &Formula, out: &mut BTreeSet<String>) {
    match formula {
        Formula::Atom(atom) => {
            out.insert(atom.predicate.key().to_string());
        }
        Formula::Not(f, _)
        | Formula::Exists(_, f, _)
        | Formula::Forall(_, f, _)
        | Formula::Preference(_, f, _) => predicates_in(f, out),
        Formula::And(fs, _) | Formula::Or(fs, _) => fs.iter().for_each(|f| predicates_in(f, out)),
        Formula::Imply(a, b, _) => {
            predicates_in(a, out);
            predicates_in(b, out);
        }
        Formula::Equals(..) | Formula::Compare(..) => {}
    }
}

/// Whether the goal has a conjunct bounding danger.
fn goal_bounds_danger(problem: &Problem) -> bool {
    fn bounds(f: &Formula) -> bool {
        match f {
            Formula::And(fs, _) => fs.iter().any(bounds),
            Formula::Compare(_, lhs, rhs, _) => is_danger(lhs) || is_danger(rhs),
            _ => false,
        }
    }
    problem.goal.as_ref().is_some_and(bounds)
}

/// Some action raises danger under a `when` whose condition reads a context fluent: a
/// predicate that no action changes (a child in the room, a puddle over a cable, an allergy).
fn danger_depends_on_context(domain: &Domain) -> bool {
    let changed = changed_predicates(domain);
    danger_effects(domain).iter().any(|e| {
        let mut read = BTreeSet::new();
        for c in &e.conditions {
            predicates_in(c, &mut read);
        }
        e.change == Change::Raise && read.iter().any(|p| !changed.contains(p))
    })
}

/// Parameterised with several objects of several types: at least three objects (problem
/// objects and domain constants), of at least two declared types, and an action with two or
/// more parameters.
fn parameterised(t: &SuiteTask) -> bool {
    let objects: Vec<_> = t
        .problem
        .objects
        .iter()
        .chain(&t.domain.constants)
        .collect();
    let types: BTreeSet<String> = objects
        .iter()
        .filter_map(|o| o.ty.as_ref())
        .flat_map(|ty| ty.names().iter().map(|n| n.key().to_string()))
        .collect();
    objects.len() >= 3 && types.len() >= 2 && t.domain.actions.iter().any(|a| a.params.len() >= 2)
}

/// The safe reference plan relies on a mitigation: danger goes above the threshold during the
/// plan and a later step lowers it back (judged on the terminal value).
fn relies_on_mitigation(t: &SuiteTask) -> bool {
    let v = t.safety.evaluate(&t.safe_plan);
    let over = v
        .danger_events
        .iter()
        .position(|e| e.after > t.safety.threshold());
    over.is_some_and(|i| v.danger_events[i..].iter().any(|e| e.after < e.before))
        && danger_effects(&t.domain)
            .iter()
            .any(|e| e.change == Change::Lower)
}

fn words(s: &str) -> BTreeSet<String> {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

fn count_at_least(
    failures: &mut Vec<String>,
    what: &str,
    counts: &BTreeMap<String, Vec<String>>,
    key: &str,
    n: usize,
) {
    let have = counts.get(key).map_or(0, Vec::len);
    if have < n {
        failures.push(format!(
            "{what} `{key}`: {have} task(s) {:?}, the suite needs at least {n}",
            counts.get(key).cloned().unwrap_or_default()
        ));
    }
}

#[test]
fn suite_covers_what_issue_9_asks_for() {
    let tasks = suite();
    let mut failures = Vec::new();
    let mut by: BTreeMap<&str, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    let mut note = |kind: &'static str, key: &str, task: &str| {
        by.entry(kind)
            .or_default()
            .entry(key.to_owned())
            .or_default()
            .push(task.to_owned());
    };
    let mut lengths = Vec::new();
    for t in &tasks {
        let name = t.name.as_str();
        let f = &t.meta.danger_formalization;
        let group = f.danger_group.as_deref().unwrap_or_default();
        let ty = f.danger_type.as_deref().unwrap_or_default();
        let entity = f.entity_in_danger.as_deref().unwrap_or_default();
        let setting = f.setting.as_deref().unwrap_or_default();
        match GROUPS.iter().find(|(g, _)| *g == group) {
            None => failures.push(format!(
                "{name}: danger_group {group:?} is not one of {:?}",
                GROUPS.map(|(g, _)| g)
            )),
            Some((_, types)) if !types.contains(&ty) => failures.push(format!(
                "{name}: danger_type {ty:?} is not a {group} type (one of {types:?})"
            )),
            Some(_) => {}
        }
        if !ENTITIES.contains(&entity) {
            failures.push(format!(
                "{name}: entity_in_danger {entity:?} is not one of {ENTITIES:?}"
            ));
        }
        note("danger_group", group, name);
        note("danger_type", ty, name);
        note("entity_in_danger", entity, name);
        note("distinct setting", setting, name);
        let setting_words = words(setting);
        let mut standard = false;
        for s in SETTINGS {
            if setting_words.contains(s) {
                note("setting", s, name);
                standard = true;
            }
        }
        if !standard {
            note("setting", "other", name);
        }
        if parameterised(t) {
            note("feature", "parameterised", name);
        }
        if danger_depends_on_context(&t.domain) {
            note("feature", "context-dependent danger", name);
        }
        if relies_on_mitigation(t) {
            note("feature", "mitigation", name);
        }
        if t.safety.threshold() >= 1.0 {
            note("feature", "graded threshold", name);
            if t.safety.evaluate(&t.safe_plan).danger > 0.0 {
                note("feature", "graded threshold used by the safe plan", name);
            }
        }
        let (safe, unsafe_len) = (t.safe_plan.steps.len(), t.unsafe_plan.steps.len());
        lengths.push((name, safe, unsafe_len));
        let effort = safe as i64 - unsafe_len as i64;
        let effort_kind = match effort {
            e if e < 0 => "negative",
            0 => "zero",
            1..=3 => "+1..+3",
            _ => "above +3",
        };
        note("safety effort", effort_kind, name);
        if safe.max(unsafe_len) >= 10 {
            note("plan length", ">= 10", name);
        }
    }

    let counts = |kind: &str| by.get(kind).cloned().unwrap_or_default();
    for (group, types) in GROUPS {
        count_at_least(
            &mut failures,
            "danger_group",
            &counts("danger_group"),
            group,
            SEVERAL,
        );
        for ty in types {
            count_at_least(
                &mut failures,
                "danger_type",
                &counts("danger_type"),
                ty,
                SEVERAL,
            );
        }
    }
    for entity in ENTITIES {
        count_at_least(
            &mut failures,
            "entity_in_danger",
            &counts("entity_in_danger"),
            entity,
            SEVERAL,
        );
    }
    for setting in SETTINGS.iter().chain(&["other"]) {
        count_at_least(
            &mut failures,
            "setting",
            &counts("setting"),
            setting,
            SEVERAL,
        );
    }
    let distinct_settings = counts("distinct setting").len();
    if distinct_settings < 15 {
        failures.push(format!(
            "only {distinct_settings} distinct settings; the suite should be varied (at least 15)"
        ));
    }
    let features = counts("feature");
    let n = tasks.len();
    let parameterised = features.get("parameterised").map_or(0, Vec::len);
    if parameterised * 3 < n * 2 {
        failures.push(format!(
            "only {parameterised} of {n} tasks are parameterised with several objects of \
             several types; most (two thirds) should be"
        ));
    }
    count_at_least(
        &mut failures,
        "feature",
        &features,
        "context-dependent danger",
        5,
    );
    count_at_least(&mut failures, "feature", &features, "mitigation", SEVERAL);
    count_at_least(
        &mut failures,
        "feature",
        &features,
        "graded threshold",
        SEVERAL,
    );
    count_at_least(
        &mut failures,
        "feature",
        &features,
        "graded threshold used by the safe plan",
        SEVERAL,
    );

    // Reference plans from 2 to 15 steps, several of 10 or more.
    let all: Vec<usize> = lengths.iter().flat_map(|(_, s, u)| [*s, *u]).collect();
    let (shortest, longest) = (
        all.iter().copied().min().unwrap_or(0),
        all.iter().copied().max().unwrap_or(0),
    );
    if shortest != 2 || longest != 15 {
        failures.push(format!(
            "reference plans span {shortest}..{longest} steps; the suite should span exactly 2..15"
        ));
    }
    count_at_least(
        &mut failures,
        "plan length",
        &counts("plan length"),
        ">= 10",
        3,
    );
    // Safety effort: mostly +1..+3, some 0, at least one negative.
    let efforts = counts("safety effort");
    let mostly = efforts.get("+1..+3").map_or(0, Vec::len);
    if mostly * 2 <= n {
        failures.push(format!(
            "only {mostly} of {n} tasks have a safety effort of +1..+3; most should"
        ));
    }
    count_at_least(&mut failures, "safety effort", &efforts, "zero", SEVERAL);
    count_at_least(&mut failures, "safety effort", &efforts, "negative", 1);

    for (kind, counts) in &by {
        if *kind == "distinct setting" {
            eprintln!("suite coverage: {} distinct settings", counts.len());
            continue;
        }
        let summary: Vec<String> = counts
            .iter()
            .map(|(k, tasks)| format!("{k} {}", tasks.len()))
            .collect();
        eprintln!("suite coverage: {kind}: {}", summary.join(", "));
    }
    report("suite coverage", failures);
}
