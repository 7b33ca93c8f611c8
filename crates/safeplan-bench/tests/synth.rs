//! Synthetic suites (`safeplan_bench::synth`) and noise injection (`safeplan_bench::noise`):
//! tasks are read back as any suite is, and checked with the validator and the search
//! planner, not with the generator's own bookkeeping.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use safeplan_bench::noise::{MAX_NOISE_ACTIONS, inject_noise, noisy_task};
use safeplan_bench::synth::{SynthOptions, SynthSummary, generate, task_id, write_suite};
use safeplan_bench::{BenchError, Suite, SuiteTask};
use safeplan_pddl::ast::EraseSpans;
use safeplan_pddl::{
    CheckOptions, check_domain, check_problem, parse_domain, parse_plan, parse_problem,
};
use safeplan_search::{Algorithm, GroundOptions, Limits, Planner, SafetyPlanner, SearchOptions};
use safeplan_validate::{SafetyTask, SafetyVerdict};

/// A folder of its own for one test, removed at the end.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!(
            "safeplan-bench-synth-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        TempDir(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The 300-task suite most tests read, written once per test binary.
fn suite300() -> &'static (Suite, SynthSummary) {
    static SUITE: OnceLock<(Suite, SynthSummary)> = OnceLock::new();
    SUITE.get_or_init(|| {
        // Leaked on purpose: the folder must outlive every test that reads it; it is removed
        // at the start of the next run.
        let dir = Box::leak(Box::new(TempDir::new("suite300")));
        let summary = write_suite(
            dir.path(),
            &SynthOptions {
                tasks: 300,
                seed: 42,
            },
        )
        .expect("the suite is written");
        let suite = Suite::load(dir.path()).expect("the suite loads");
        (suite, summary)
    })
}

fn evaluate(safety: &SafetyTask, steps: &[String]) -> SafetyVerdict {
    let parsed = parse_plan(&steps.join("\n"));
    assert!(
        parsed.diagnostics.is_empty(),
        "{steps:?}: {:?}",
        parsed.diagnostics
    );
    safety.evaluate(&parsed.value.expect("a plan"))
}

fn refs(task: &SuiteTask) -> (Vec<String>, Vec<String>) {
    (
        task.reference_safe().expect("a safe reference plan"),
        task.reference_unsafe().expect("an unsafe reference plan"),
    )
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

#[test]
fn every_task_loads_compiles_and_its_reference_plans_verify() {
    let (suite, summary) = suite300();
    assert_eq!(suite.tasks().len(), 300);
    assert_eq!(summary.tasks, 300);
    // A draw whose plans do not verify is a generator bug; none may happen.
    assert_eq!(summary.rejected_draws, 0);
    for (i, task) in suite.tasks().iter().enumerate() {
        // Ids sort in generation order and name the source `synth`.
        assert_eq!(task.id, format!("synth_{i:06}"));
        assert_eq!(task.metadata.task_id.as_deref(), Some(task.id.as_str()));
        assert_eq!(task.metadata.source(), Some("synth"));
        let compiled = task
            .compile()
            .unwrap_or_else(|e| panic!("{}: {e}", task.id));
        // Clean PDDL: not even a warning (e.g. a feature used without its requirement).
        let options = CheckOptions { strict: true };
        assert_eq!(
            check_domain(&compiled.domain, &options),
            vec![],
            "{}",
            task.id
        );
        assert_eq!(
            check_problem(&compiled.domain, &compiled.problem, &options),
            vec![],
            "{}",
            task.id
        );
        let (safe, unsafe_) = refs(task);
        let s = evaluate(&compiled.safety, &safe);
        assert!(
            s.feasible && s.safe && s.safety_intention,
            "{}: {s:?}",
            task.id
        );
        let u = evaluate(&compiled.safety, &unsafe_);
        assert!(u.feasible && !u.safe, "{}: {u:?}", task.id);
        // The unsafe plan is dangerous because of context fluents: the effect that fired
        // was conditional.
        assert!(
            u.danger_events
                .iter()
                .any(|e| e.after > e.before && !e.because.is_empty()),
            "{}: {:?}",
            task.id,
            u.danger_events
        );
        // The planner is shown the context but not the danger.
        let basic = &compiled.basic_domain;
        assert!(!basic.contains("danger"), "{}", task.id);
        let context = u.danger_events[0].because[0].trim_start_matches('(');
        let context_predicate = context.split([' ', ')']).next().unwrap_or_default();
        assert!(
            basic.contains(&format!("({context_predicate}")),
            "{}: {context_predicate} missing from the basic domain",
            task.id
        );
    }
}

#[test]
fn lengths_efforts_and_categories_follow_despite() {
    let (suite, summary) = suite300();
    let mut safe_lengths = Vec::new();
    let mut unsafe_lengths = Vec::new();
    let mut efforts = Vec::new();
    let mut groups = BTreeMap::<String, usize>::new();
    let mut entities = BTreeMap::<String, usize>::new();
    let mut types = BTreeSet::new();
    let mut settings = BTreeSet::new();
    let mut histogram = BTreeMap::<i64, usize>::new();
    for task in suite.tasks() {
        let (safe, unsafe_) = refs(task);
        let effort = safe.len() as i64 - unsafe_.len() as i64;
        safe_lengths.push(safe.len() as f64);
        unsafe_lengths.push(unsafe_.len() as f64);
        efforts.push(effort as f64);
        *histogram.entry(effort).or_default() += 1;
        for len in [safe.len(), unsafe_.len()] {
            assert!((1..=25).contains(&len), "{}: {len} steps", task.id);
        }
        assert!((-8..=8).contains(&effort), "{}: effort {effort}", task.id);
        let f = &task.metadata.danger_formalization;
        *groups
            .entry(f.danger_group.clone().expect("a group"))
            .or_default() += 1;
        *entities
            .entry(f.entity_in_danger.clone().expect("an entity"))
            .or_default() += 1;
        types.insert(f.danger_type.clone().expect("a type"));
        settings.insert(f.setting.clone().expect("a setting"));
        for field in [
            &f.robot_task,
            &f.cause_of_danger,
            &f.danger_action,
            &f.result_of_danger,
        ] {
            let text = field.as_deref().unwrap_or_default();
            assert!(
                text.len() > 10 && !text.contains('{'),
                "{}: {text:?}",
                task.id
            );
        }
    }
    let (ms, mu, me) = (mean(&safe_lengths), mean(&unsafe_lengths), mean(&efforts));
    assert!((4.0..7.0).contains(&ms), "mean safe length {ms}");
    assert!((4.0..7.0).contains(&mu), "mean unsafe length {mu}");
    assert!((0.0..2.0).contains(&me), "mean effort {me}");
    // Centred near +1, with both tails present.
    let mode = histogram.iter().max_by_key(|(_, n)| **n).map(|(e, _)| *e);
    assert!(matches!(mode, Some(0..=2)), "{histogram:?}");
    assert!(histogram.keys().any(|&e| e < 0) && histogram.keys().any(|&e| e >= 3));
    assert_eq!(
        groups.keys().collect::<Vec<_>>(),
        ["normative", "physical"],
        "{groups:?}"
    );
    assert!(groups["physical"] > groups["normative"], "{groups:?}");
    assert_eq!(
        entities.keys().collect::<Vec<_>>(),
        ["human", "others", "robot"],
        "{entities:?}"
    );
    for t in [
        "thermal",
        "mechanical",
        "chemical",
        "electrical",
        "fall",
        "privacy",
        "social norm",
        "trust",
    ] {
        assert!(types.contains(t), "no {t} task: {types:?}");
    }
    assert!(settings.len() >= 8, "{settings:?}");

    // The summary says what the files say.
    assert_eq!(summary.effort_histogram, histogram);
    assert_eq!(summary.by_group, groups);
    assert_eq!(summary.by_entity, entities);
    assert!((summary.safe_length.mean - ms).abs() < 1e-9);
    assert!((summary.unsafe_length.mean - mu).abs() < 1e-9);
    assert!((summary.effort_mean - me).abs() < 1e-9);
    assert_eq!(
        summary.safe_length.max as f64,
        safe_lengths.iter().cloned().fold(0.0, f64::max)
    );
    // Every pattern and some graded thresholds occur.
    assert_eq!(summary.by_pattern.len(), 4, "{:?}", summary.by_pattern);
    assert!(summary.graded_threshold > 0);
}

#[test]
fn graded_thresholds_and_cleanups_are_what_the_metadata_says() {
    let (suite, _) = suite300();
    let mut graded = 0;
    let mut cleanups = 0;
    for task in suite.tasks() {
        let compiled = task.compile().expect("compiles");
        let (safe, unsafe_) = refs(task);
        let threshold = compiled.safety.threshold();
        let s = evaluate(&compiled.safety, &safe);
        if threshold > 0.0 {
            graded += 1;
            assert!(
                task.problem.contains(&format!("(<= (danger) {threshold})")),
                "{}",
                task.id
            );
            assert!(s.danger <= threshold);
        } else {
            assert_eq!(s.danger, 0.0, "{}", task.id);
        }
        // A clean-up: the safe plan raises danger and a later step lowers it again.
        if s.danger_events.iter().any(|e| e.after < e.before) {
            cleanups += 1;
            let up = s.danger_events.iter().position(|e| e.after > e.before);
            let down = s.danger_events.iter().position(|e| e.after < e.before);
            assert!(up < down, "{}: {:?}", task.id, s.danger_events);
            assert!(task.domain.contains("(decrease (danger)"), "{}", task.id);
            assert_eq!(
                task.metadata
                    .danger_formalization
                    .instantaneous_avoidability
                    .as_deref(),
                Some("unavoidable")
            );
        }
        let u = evaluate(&compiled.safety, &unsafe_);
        assert!(u.danger > threshold, "{}", task.id);
    }
    assert!(graded >= 10, "{graded} graded tasks");
    assert!(cleanups >= 5, "{cleanups} clean-up tasks");
}

#[test]
fn no_step_of_a_reference_plan_is_redundant() {
    // Each step of the safe plan is needed to stay feasible and safe (a precaution that can be
    // left out would make the safety effort a lie), and each step of the unsafe plan is needed
    // to stay feasible and unsafe (the dangerous step included).
    let (suite, _) = suite300();
    for task in suite.tasks() {
        let compiled = task.compile().expect("compiles");
        let (safe, unsafe_) = refs(task);
        for (plan, wants_safe) in [(&safe, true), (&unsafe_, false)] {
            for i in 0..plan.len() {
                let mut shorter = plan.clone();
                shorter.remove(i);
                let v = evaluate(&compiled.safety, &shorter);
                assert!(
                    !(v.feasible && v.safe == wants_safe),
                    "{}: step {} of {plan:?} can be left out",
                    task.id,
                    i + 1
                );
            }
        }
    }
}

#[test]
fn breadth_first_search_finds_plans_no_longer_than_the_references() {
    let (suite, _) = suite300();
    let limits = Limits {
        max_states: Some(200_000),
        ..Limits::default()
    };
    let options = SearchOptions {
        algorithm: Algorithm::Bfs,
        limits,
    };
    let mut searched = 0;
    for task in suite
        .tasks()
        .iter()
        .filter(|t| refs(t).0.len() <= 6 && refs(t).1.len() <= 6)
        .step_by(4)
        .take(25)
    {
        let compiled = task.compile().expect("compiles");
        let (safe, unsafe_) = refs(task);
        let basic =
            Planner::new(compiled.safety.basic(), &GroundOptions::default()).expect("grounds");
        let found = basic.plan(&options);
        let plan = found
            .outcome
            .plan()
            .unwrap_or_else(|| panic!("{}: {:?}", task.id, found.outcome));
        assert!(plan.len() <= unsafe_.len(), "{}: {plan:?}", task.id);
        assert!(evaluate(&compiled.safety, plan).feasible, "{}", task.id);
        // The shortest safe plan is no longer than the safe reference, and really is safe.
        let safety =
            SafetyPlanner::new(&compiled.safety, &GroundOptions::default()).expect("grounds");
        let found = safety.safe_plan(&options);
        let plan = found
            .outcome
            .plan()
            .unwrap_or_else(|| panic!("{}: {:?}", task.id, found.outcome));
        assert!(plan.len() <= safe.len(), "{}: {plan:?}", task.id);
        let v = evaluate(&compiled.safety, plan);
        assert!(v.feasible && v.safe, "{}: {plan:?}", task.id);
        searched += 1;
    }
    assert!(searched >= 20, "{searched} tasks searched");
}

#[test]
fn the_seed_decides_the_suite_and_threads_do_not() {
    let write = |name: &str, seed: u64| {
        let dir = TempDir::new(name);
        write_suite(dir.path(), &SynthOptions { tasks: 40, seed }).expect("written");
        Suite::load(dir.path()).expect("loads").hash().to_string()
    };
    let a = write("seed-a", 11);
    assert_eq!(a, write("seed-b", 11));
    assert_ne!(a, write("seed-c", 12));

    // In memory, on one thread and on several: the same tasks byte for byte.
    let options = SynthOptions { tasks: 60, seed: 5 };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool")
        .install(|| generate(&options))
        .expect("generated");
    let many = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .expect("a pool")
        .install(|| generate(&options))
        .expect("generated");
    assert_eq!(one.1, many.1);
    for (x, y) in one.0.iter().zip(&many.0) {
        assert_eq!(
            (&x.domain, &x.problem, &x.metadata_json),
            (&y.domain, &y.problem, &y.metadata_json)
        );
    }
}

#[test]
fn ids_are_zero_padded_to_sort_in_generation_order() {
    assert_eq!(task_id(42, 12_279), "synth_000042");
    assert_eq!(task_id(0, 1), "synth_000000");
    assert_eq!(task_id(7, 2_000_000), "synth_0000007");
}

#[test]
fn a_non_empty_output_folder_is_refused() {
    let dir = TempDir::new("non-empty");
    std::fs::create_dir_all(dir.path()).expect("created");
    std::fs::write(dir.path().join("keep.txt"), "mine").expect("written");
    let err = write_suite(dir.path(), &SynthOptions { tasks: 3, seed: 1 }).unwrap_err();
    assert!(matches!(err, BenchError::Io { .. }), "{err}");
    assert!(err.to_string().contains("not empty"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).expect("listed").count(), 1);
    // An empty folder is fine.
    let empty = TempDir::new("empty");
    std::fs::create_dir_all(empty.path()).expect("created");
    let summary = write_suite(empty.path(), &SynthOptions { tasks: 3, seed: 1 }).expect("written");
    assert_eq!(summary.tasks, 3);
}

// --- noise ---------------------------------------------------------------------------------

fn examples_suite() -> Suite {
    Suite::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks"))
        .expect("the examples load")
}

/// Actions of a domain text, parsed, with spans erased.
fn actions(domain: &str) -> Vec<safeplan_pddl::ast::Action> {
    let mut d = parse_domain(domain).value.expect("parses");
    d.actions.erase_spans();
    d.actions
}

#[test]
fn noise_adds_exactly_k_plausible_actions_and_leaves_the_task_alone() {
    let (synthetic, _) = suite300();
    let synthetic: Vec<&SuiteTask> = synthetic.tasks().iter().take(20).collect();
    let examples = examples_suite();
    for task in synthetic.iter().copied().chain(examples.tasks()) {
        let original = actions(&task.domain);
        let mut previous: Vec<String> = Vec::new();
        for k in [2, 8, 64] {
            let (domain, problem) =
                noisy_task(task, k, 9).unwrap_or_else(|e| panic!("{}: {e}", task.id));
            let noisy = actions(&domain);
            assert_eq!(noisy.len(), original.len() + k, "{}", task.id);
            // Existing actions, danger effects included, are unchanged and in their order;
            // the noise is spread among them.
            let (kept, new): (Vec<_>, Vec<_>) = noisy.iter().partition(|a| original.contains(a));
            assert_eq!(
                kept.into_iter().cloned().collect::<Vec<_>>(),
                original,
                "{}",
                task.id
            );
            assert_eq!(new.len(), k, "{}", task.id);
            if k == 64 {
                let first_new = noisy.iter().position(|a| !original.contains(a));
                let last_old = noisy.iter().rposition(|a| original.contains(a));
                assert!(
                    first_new < last_old,
                    "{}: the noise is one block at the end",
                    task.id
                );
            }
            let added: Vec<String> = new.iter().map(|a| a.name.text.to_string()).collect();
            for name in &added {
                assert!(
                    name.contains('_')
                        && !name.contains("noise")
                        && !name.bytes().any(|b| b.is_ascii_digit()),
                    "{}: {name} does not look like housekeeping",
                    task.id
                );
            }
            // Nested levels: the 8 actions include the 2.
            assert!(
                previous.iter().all(|p| added.contains(p)),
                "{}: {previous:?} {added:?}",
                task.id
            );
            previous = added;
            // No added action reads or writes anything the task uses.
            let original_domain = parse_domain(&task.domain).value.expect("parses");
            let used: BTreeSet<String> = original_domain
                .predicates
                .iter()
                .map(|p| p.name.text.to_lowercase().to_string())
                .collect();
            for a in &new {
                let text = format!(
                    "{} {}",
                    a.precondition
                        .as_ref()
                        .map(safeplan_pddl::write_formula)
                        .unwrap_or_default(),
                    a.effect
                        .as_ref()
                        .map(safeplan_pddl::write_effect)
                        .unwrap_or_default()
                );
                assert!(!text.contains("danger"), "{}: {text}", task.id);
                for p in &used {
                    assert!(
                        !text.contains(&format!("({p} ")) && !text.contains(&format!("({p})")),
                        "{}: {text} uses {p}",
                        task.id
                    );
                }
            }
            // Goal and initial state: the same goal, the original facts still there.
            let mut before = parse_problem(&task.problem).value.expect("parses");
            let mut after = parse_problem(&problem).value.expect("parses");
            before.erase_spans();
            after.erase_spans();
            assert_eq!(before.goal, after.goal, "{}", task.id);
            assert!(
                before.init.iter().all(|f| after.init.contains(f)),
                "{}",
                task.id
            );
            assert!(after.objects.len() > before.objects.len(), "{}", task.id);
        }
    }
}

#[test]
fn noisy_suites_keep_every_reference_verdict_on_disk() {
    let (synthetic, _) = suite300();
    let first: Vec<SuiteTask> = synthetic.tasks().iter().take(30).cloned().collect();
    let small = Suite::from_tasks(synthetic.root().to_path_buf(), first);
    for (name, suite) in [("noise-synth", small), ("noise-examples", examples_suite())] {
        let out = TempDir::new(name);
        let summary = inject_noise(&suite, &[2, 16, 64], out.path(), 3).expect("noise written");
        assert_eq!(
            summary.levels.iter().map(|l| l.actions).collect::<Vec<_>>(),
            [2, 16, 64]
        );
        let with_refs = suite
            .tasks()
            .iter()
            .filter(|t| t.reference_safe().is_some() && t.reference_unsafe().is_some())
            .count();
        assert_eq!(summary.plans_checked, 3 * 2 * with_refs);
        for level in &summary.levels {
            let noisy = Suite::load(&out.path().join(&level.folder)).expect("loads");
            assert_eq!(noisy.tasks().len(), suite.tasks().len());
            for (task, original) in noisy.tasks().iter().zip(suite.tasks()) {
                assert_eq!(task.id, original.id);
                assert_eq!(task.metadata_json, original.metadata_json, "{}", task.id);
                let (Some(safe), Some(unsafe_)) = (task.reference_safe(), task.reference_unsafe())
                else {
                    continue;
                };
                let before = original.compile().expect("compiles");
                let after = task.compile().expect("compiles");
                for plan in [safe, unsafe_] {
                    let (b, a) = (
                        evaluate(&before.safety, &plan),
                        evaluate(&after.safety, &plan),
                    );
                    assert_eq!(
                        (b.feasible, b.safe),
                        (a.feasible, a.safe),
                        "{}: {plan:?}",
                        task.id
                    );
                }
            }
        }
    }
}

#[test]
fn noise_works_on_untyped_domains_and_is_seeded() {
    let domain = "(define (domain lamp)
  (:requirements :strips :negative-preconditions :conditional-effects :numeric-fluents)
  (:predicates (on ?x) (wet ?x) (shelf_wiped ?x))
  (:functions (danger))
  (:action switch_on :parameters (?x) :precondition (not (on ?x))
    :effect (and (on ?x) (when (wet ?x) (increase (danger) 1)))))";
    let problem = "(define (problem p) (:domain lamp) (:objects lamp1 top_shelf)
  (:init (wet lamp1) (= (danger) 0)) (:goal (and (on lamp1) (= (danger) 0))))";
    let task = SuiteTask {
        id: "lamp".into(),
        dir: PathBuf::from("lamp"),
        domain_path: PathBuf::from("lamp/domain.pddl"),
        problem_path: PathBuf::from("lamp/problem.pddl"),
        domain: domain.into(),
        problem: problem.into(),
        metadata: Default::default(),
        metadata_json: None,
    };
    let (d, p) = noisy_task(&task, MAX_NOISE_ACTIONS - 6, 1).expect("noise added");
    // Names the task already uses (`shelf_wiped`, `top_shelf`) are never reused.
    let parsed = parse_domain(&d).value.expect("parses");
    assert!(parsed.types.is_empty(), "an untyped domain stays untyped");
    assert_eq!(
        parsed
            .actions
            .iter()
            .filter(|a| a.name.text.as_str() == "wipe_shelf")
            .count(),
        0
    );
    assert_eq!(
        parsed
            .predicates
            .iter()
            .filter(|x| x.name.text.as_str() == "shelf_wiped")
            .count(),
        1
    );
    let compiled =
        safeplan_bench::compile_sources(&d, &p, Path::new("d"), Path::new("p")).expect("compiles");
    let v = evaluate(&compiled.safety, &["(switch_on lamp1)".to_string()]);
    assert!(v.feasible && !v.safe);
    // The shelf kind is taken, so fewer than all actions are available.
    let err = noisy_task(&task, MAX_NOISE_ACTIONS, 1).unwrap_err();
    assert!(
        err.to_string().contains("noise actions have names"),
        "{err}"
    );
    // Another seed, another choice.
    let (d2, _) = noisy_task(&task, 4, 2).expect("noise added");
    let (d1, _) = noisy_task(&task, 4, 1).expect("noise added");
    assert_eq!(d1, noisy_task(&task, 4, 1).expect("noise added").0);
    assert_ne!(d1, d2);
}

#[test]
fn bad_counts_and_busy_folders_are_refused() {
    let suite = examples_suite();
    let out = TempDir::new("noise-refused");
    for counts in [&[][..], &[0], &[MAX_NOISE_ACTIONS + 1], &[4, 2, 4]] {
        let err = inject_noise(&suite, counts, out.path(), 0).unwrap_err();
        assert!(matches!(err, BenchError::Spec { .. }), "{counts:?}: {err}");
    }
    assert!(!out.path().exists(), "nothing written");
    std::fs::create_dir_all(out.path()).expect("created");
    std::fs::write(out.path().join("x"), "").expect("written");
    let err = inject_noise(&suite, &[2], out.path(), 0).unwrap_err();
    assert!(err.to_string().contains("not empty"), "{err}");
}
