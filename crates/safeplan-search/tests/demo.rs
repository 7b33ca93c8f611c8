//! The six DESPITE demo tasks: safe and unsafe plans of the reference lengths, validated.

use safeplan_search::{Algorithm, GroundOptions, SafetyPlanner, SearchOptions};
use safeplan_validate::{SafetyOptions, SafetyTask, TaskMetadata};

use crate::{as_plan, data_dir, domain, found, problem};

struct Demo {
    name: String,
    safety: SafetyTask,
    safe_len: usize,
    unsafe_len: usize,
}

fn demos() -> Vec<Demo> {
    let Some(data) = data_dir() else {
        return Vec::new();
    };
    let dir = data.join("despite-demo");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("metadata.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 6, "six demo tasks in {}", dir.display());
    names
        .into_iter()
        .map(|name| {
            let read = |f: &str| std::fs::read_to_string(dir.join(&name).join(f)).unwrap();
            let meta: TaskMetadata = serde_json::from_str(&read("metadata.json")).unwrap();
            let count = |plan: &Option<String>| {
                let text = plan.as_deref().expect("a reference plan");
                safeplan_pddl::parse_plan(text).value.unwrap().steps.len()
            };
            let safety = SafetyTask::new(
                &domain(&read("safe_domain.pddl")),
                &problem(&read("safe_problem.pddl")),
                &SafetyOptions::default(),
            )
            .unwrap()
            .expect("safety-augmented");
            Demo {
                safe_len: count(&meta.reference_feasible_plans.safe),
                unsafe_len: count(&meta.reference_feasible_plans.unsafe_plan),
                name,
                safety,
            }
        })
        .collect()
}

fn check(algorithm: Algorithm) {
    let options = SearchOptions {
        algorithm,
        ..Default::default()
    };
    for demo in demos() {
        let planner = SafetyPlanner::new(&demo.safety, &GroundOptions::default()).unwrap();
        assert!(
            planner.danger_is_monotone(),
            "{}: danger only rises",
            demo.name
        );
        let effort = planner.effort(&options);
        let safe = found(&effort.safe.outcome);
        let unsafe_plan = found(&effort.unsafe_plan.outcome);
        let safe_verdict = demo.safety.evaluate(&as_plan(safe));
        assert!(
            safe_verdict.feasible && safe_verdict.safe,
            "{}: {safe:?} is safe",
            demo.name
        );
        let unsafe_verdict = demo.safety.evaluate(&as_plan(unsafe_plan));
        assert!(
            unsafe_verdict.feasible && !unsafe_verdict.safe,
            "{}: {unsafe_plan:?} is feasible and unsafe",
            demo.name
        );
        // Effort compares shortest plans: `auto` searches them with LM-cut alone.
        if algorithm.for_shortest().is_optimal() {
            assert_eq!(safe.len(), demo.safe_len, "{}: safe {safe:?}", demo.name);
            assert_eq!(
                unsafe_plan.len(),
                demo.unsafe_len,
                "{}: unsafe {unsafe_plan:?}",
                demo.name
            );
            assert_eq!(
                effort.effort,
                Some(demo.safe_len as i64 - demo.unsafe_len as i64),
                "{}",
                demo.name
            );
        }
        // The basic plan is feasible and no longer than either.
        let basic = planner.basic_plan(&options);
        let claims_shortest = basic.algorithm.is_optimal();
        let basic = found(&basic.outcome);
        assert!(
            demo.safety.evaluate(&as_plan(basic)).feasible,
            "{}",
            demo.name
        );
        if claims_shortest {
            assert!(
                basic.len() <= demo.safe_len.min(demo.unsafe_len),
                "{}",
                demo.name
            );
        }
    }
}

#[test]
fn bfs_finds_reference_lengths() {
    check(Algorithm::Bfs);
}

#[test]
fn astar_finds_reference_lengths() {
    check(Algorithm::Astar);
}

#[test]
fn gbfs_finds_valid_safe_and_unsafe_plans() {
    check(Algorithm::Gbfs);
}

#[test]
fn astar_with_lmcut_finds_reference_lengths() {
    check(Algorithm::Lmcut);
}

#[test]
fn auto_finds_reference_lengths() {
    check(Algorithm::Auto);
}

#[test]
fn lama_finds_valid_safe_and_unsafe_plans() {
    check(Algorithm::Lama);
}
