//! The loop itself: stopping rules, provenance through removals and insertions, errors that
//! keep earlier rounds, scoring with gold alternatives, and the episode reader.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use safeplan_judge::score::{convergence_curve, score_episode};
use safeplan_judge::{
    ApplyCritiques, Critique, Episode, Gold, Judge, JudgeError, Judgement, Origin, Plan,
    RefineOptions, Refiner, Reviser, Revision, StopReason, apply_critiques, read_episodes,
};

use crate::common::block_on;

/// A judge that answers from a function of (round, plan texts).
struct Scripted<F>(F, AtomicUsize);

#[async_trait]
impl<F: Fn(usize, &[&str]) -> Result<Vec<Critique>, JudgeError> + Send + Sync> Judge
    for Scripted<F>
{
    fn name(&self) -> String {
        "scripted".into()
    }
    async fn critique(&self, _: &Episode, plan: &Plan) -> Result<Judgement, JudgeError> {
        let round = self.1.fetch_add(1, Ordering::SeqCst) + 1;
        (self.0)(round, &plan.texts()).map(Judgement::from)
    }
}

fn scripted<F: Fn(usize, &[&str]) -> Result<Vec<Critique>, JudgeError> + Send + Sync + 'static>(
    f: F,
) -> Arc<dyn Judge> {
    Arc::new(Scripted(f, AtomicUsize::new(0)))
}

fn episode(actions: &[&str]) -> Episode {
    Episode {
        id: "e".into(),
        goal: "g".into(),
        actions: actions.iter().map(|s| s.to_string()).collect(),
        ..Episode::default()
    }
}

fn refine(
    judge: Arc<dyn Judge>,
    reviser: Arc<dyn Reviser>,
    actions: &[&str],
) -> safeplan_judge::Refinement {
    block_on(Refiner::new(judge, reviser, RefineOptions::default()).refine(&episode(actions)))
}

#[test]
fn provenance_survives_removals_and_insertions_across_rounds() {
    // Round 1: drop "b" (index 1) and insert "x" before "d" (index 3).
    // Round 2: the plan is a c x d; drop "x" (index 2, an inserted step) and "a" (index 0).
    // Round 3: satisfied. Flagged originals: a (0) and b (1); nothing inserted survives.
    let judge = scripted(|round, plan| {
        Ok(match round {
            1 => vec![
                Critique::remove(1, "b"),
                Critique::missing(Some(3), "x", vec!["x".into()]),
            ],
            2 => {
                assert_eq!(plan, ["a", "c", "x", "d"]);
                vec![Critique::remove(2, "x"), Critique::remove(0, "a")]
            }
            _ => vec![],
        })
    });
    let r = refine(judge, Arc::new(ApplyCritiques), &["a", "b", "c", "d"]);
    assert_eq!(r.stop, StopReason::Converged);
    assert_eq!(r.converged_at, Some(3));
    assert_eq!(r.final_plan.texts(), ["c", "d"]);
    assert_eq!(r.final_plan.original_indices(), [2, 3]);
    assert_eq!(r.flagged(), [0, 1]);
    assert!(r.missing().is_empty());
    assert_eq!(r.rounds[1].plan.steps[2].origin, Origin::Inserted(1));
}

#[test]
fn the_loop_stops_at_max_rounds_on_oscillation_and_on_no_change() {
    // Always one more thing to remove: five rounds, then stop with the last revision.
    let judge = scripted(|_, plan| {
        Ok(if plan.is_empty() {
            vec![]
        } else {
            vec![Critique::remove(0, "x")]
        })
    });
    let r = refine(
        judge,
        Arc::new(ApplyCritiques),
        &["1", "2", "3", "4", "5", "6", "7"],
    );
    assert_eq!(
        (r.stop, r.rounds.len(), r.converged_at),
        (StopReason::MaxRounds, 5, None)
    );
    assert_eq!(r.final_plan.texts(), ["6", "7"]);

    // Remove then re-insert the same text: the plan repeats the original.
    let judge = scripted(|round, _| {
        Ok(if round % 2 == 1 {
            vec![Critique::remove(1, "drop b")]
        } else {
            vec![Critique::missing(Some(1), "add b", vec!["b".into()])]
        })
    });
    let r = refine(judge, Arc::new(ApplyCritiques), &["a", "b"]);
    assert_eq!((r.stop, r.rounds.len()), (StopReason::Oscillation, 2));
    // The inserted "b" is not the original step 1: provenance tells them apart.
    assert_eq!(r.flagged(), [1]);

    // A critique the reviser cannot apply leaves the plan as it was.
    let judge = scripted(|_, _| Ok(vec![Critique::missing(None, "something", vec![])]));
    let r = refine(judge, Arc::new(ApplyCritiques), &["a"]);
    assert_eq!((r.stop, r.rounds.len()), (StopReason::NoChange, 1));
    let notes = &r.rounds[0].revision.as_ref().expect("revised").notes;
    assert!(
        notes[0].contains("MISSING without concrete steps"),
        "{notes:?}"
    );
}

#[test]
fn an_error_ends_the_loop_and_keeps_the_rounds_before_it() {
    let judge = scripted(|round, _| match round {
        1 => Ok(vec![Critique::remove(0, "x")]),
        _ => Err(JudgeError::Reply {
            provider: "test".into(),
            message: "empty reply".into(),
        }),
    });
    let r = refine(judge, Arc::new(ApplyCritiques), &["a", "b"]);
    assert_eq!(r.stop, StopReason::Error);
    assert_eq!(r.rounds.len(), 1);
    assert_eq!(r.final_plan.texts(), ["b"]);
    assert!(
        r.error
            .as_deref()
            .is_some_and(|e| e.contains("round 2") && e.contains("empty reply"))
    );
}

#[test]
fn refine_all_returns_results_in_input_order_and_reports_each() {
    let judge = scripted(|_, plan| {
        Ok(if plan.len() > 1 {
            vec![Critique::remove(0, "x")]
        } else {
            vec![]
        })
    });
    let refiner = Refiner::new(
        judge,
        Arc::new(ApplyCritiques),
        RefineOptions {
            max_rounds: 20,
            concurrency: 3,
        },
    );
    let episodes: Vec<Episode> = (0..10)
        .map(|i| Episode {
            id: format!("e{i}"),
            actions: (0..=i).map(|k| k.to_string()).collect(),
            ..Episode::default()
        })
        .collect();
    let mut seen = Vec::new();
    let out = block_on(refiner.refine_all(&episodes, |i, _| seen.push(i)));
    seen.sort();
    assert_eq!(seen, (0..10).collect::<Vec<_>>());
    assert_eq!(
        out.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        episodes.iter().map(|e| e.id.as_str()).collect::<Vec<_>>()
    );
    assert!(out.iter().all(|r| r.final_plan.len() == 1));
}

#[test]
fn apply_critiques_inserts_before_the_judged_position_whatever_is_removed() {
    let plan = Plan::from_actions(&["a", "b", "c"]);
    let rev = apply_critiques(
        &plan,
        &[
            Critique::remove(1, ""),
            Critique::missing(Some(1), "", vec!["x".into(), "y".into()]),
            Critique::missing(None, "", vec!["z".into()]),
            Critique::remove(7, "out of range"),
        ],
        4,
    );
    assert_eq!(rev.plan.texts(), ["a", "x", "y", "c", "z"]);
    assert_eq!(rev.plan.steps[1].origin, Origin::Inserted(4));
    assert_eq!(rev.notes.len(), 1);
}

#[test]
fn scoring_accepts_the_best_gold_alternative_and_the_curve_is_cumulative() {
    let judge = scripted(|round, _| {
        Ok(if round == 1 {
            vec![Critique::remove(1, ""), Critique::remove(2, "")]
        } else {
            vec![]
        })
    });
    let r = refine(judge, Arc::new(ApplyCritiques), &["a", "b", "c", "d"]);
    let gold = Gold {
        remove: vec![2, 3],
        remove_alts: vec![vec![1, 2]],
        ..Gold::default()
    };
    let s = score_episode(&r, &gold);
    assert_eq!(
        (s.remove.tp, s.remove.fp, s.remove.fn_, s.gold_set),
        (2, 0, 0, 1)
    );
    let primary_only = Gold {
        remove_alts: vec![],
        ..gold
    };
    let s = score_episode(&r, &primary_only);
    assert_eq!((s.remove.tp, s.remove.fp, s.remove.fn_), (1, 1, 1));

    let curve = convergence_curve(&[r.clone(), r], 3);
    assert_eq!(
        curve.iter().map(|p| p.share).collect::<Vec<_>>(),
        [0.0, 1.0, 1.0]
    );
}

#[test]
fn the_reader_takes_both_teach_formats_and_points_at_bad_lines() {
    let text = concat!(
        r#"{"id": "a", "goal": "g", "actions": ["x", "y"], "remove": [1], "clean_actions": ["x"]}"#,
        "\n",
        "\n",
        r#"{"id": "b", "split": "train", "task": "Make coffee.", "instruction": "hi", "actions": ["z"]}"#,
        "\n",
    );
    let eps = read_episodes(text, None).expect("reads");
    assert_eq!(eps.len(), 2);
    assert_eq!(
        eps[0].gold.as_ref().map(|g| g.remove.clone()),
        Some(vec![1])
    );
    assert_eq!(
        (
            eps[1].episode.goal.as_str(),
            eps[1].episode.dialogue.as_slice()
        ),
        ("Make coffee.", &["hi".to_string()][..])
    );
    assert!(eps[1].gold.is_none());

    let bad = "{\"id\": \"a\", \"actions\": [\"x\"]}\n{\"id\": \"b\", \"actions\": 3}\n";
    let e = read_episodes(bad, Some(std::path::Path::new("eps.jsonl"))).expect_err("line 2 is bad");
    let msg = e.to_string();
    assert!(msg.starts_with("eps.jsonl:2:"), "{msg}");
    let out_of_range = "{\"id\": \"a\", \"actions\": [\"x\"], \"remove\": [4]}\n";
    let msg = read_episodes(out_of_range, None)
        .expect_err("index 4 of 1")
        .to_string();
    assert!(msg.contains("past the last action"), "{msg}");
    let missing_task = "{\"id\": \"a\", \"actions\": [], \"pddl\": {\"domain\": \"nope.pddl\", \"problem\": \"nope.pddl\"}}\n";
    let msg = read_episodes(missing_task, None)
        .expect_err("no such file")
        .to_string();
    assert!(msg.contains("nope.pddl"), "{msg}");
}

proptest::proptest! {
    /// Whatever the critiques, a revision keeps the surviving original steps in order, each
    /// once, and every other step is marked as inserted in this round.
    #[test]
    fn revisions_keep_provenance(n in 0usize..12, cs in proptest::collection::vec((0usize..14, proptest::bool::ANY, 0usize..3), 0..8)) {
        let actions: Vec<String> = (0..n).map(|i| format!("s{i}")).collect();
        let plan = Plan::from_actions(&actions);
        let critiques: Vec<Critique> = cs.iter().map(|&(i, remove, k)| if remove {
            Critique::remove(i, "")
        } else {
            Critique::missing(Some(i), "", (0..k).map(|j| format!("new{j}")).collect())
        }).collect();
        let rev = apply_critiques(&plan, &critiques, 2);
        let originals = rev.plan.original_indices();
        proptest::prop_assert!(originals.windows(2).all(|w| w[0] < w[1]));
        for s in &rev.plan.steps {
            match s.origin {
                Origin::Original(i) => proptest::prop_assert_eq!(&s.text, &actions[i]),
                Origin::Inserted(r) => proptest::prop_assert_eq!(r, 2),
            }
        }
        let removed: std::collections::BTreeSet<usize> = cs.iter().filter(|c| c.1 && c.0 < n).map(|c| c.0).collect();
        proptest::prop_assert_eq!(rev.plan.dropped_originals(n), removed.into_iter().collect::<Vec<_>>());
    }
}

#[allow(dead_code)]
fn _object_safe(_: &dyn Judge, _: &dyn Reviser, _: Revision) {}

#[test]
fn a_judge_that_cannot_work_is_called_once_not_once_per_episode() {
    // A wrong key: every call fails the same way. Ten episodes, concurrency 4: one call.
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let judge = scripted(move |_, _| {
        counted.fetch_add(1, Ordering::SeqCst);
        Err(JudgeError::Llm(safeplan_llm::LlmError::Auth {
            status: 401,
            message: "invalid api key".into(),
        }))
    });
    let episodes: Vec<Episode> = (0..10)
        .map(|i| Episode {
            id: format!("e{i}"),
            ..episode(&["a", "b"])
        })
        .collect();
    let options = RefineOptions {
        concurrency: 4,
        ..RefineOptions::default()
    };
    let refiner = Refiner::new(judge, Arc::new(ApplyCritiques), options);
    let done = block_on(refiner.refine_all(&episodes, |_, _| {}));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(done.len(), 1);
    assert!(done[0].fatal && done[0].stop == StopReason::Error);
    // A transient error is no reason to stop: every episode is tried.
    let judge = scripted(|_, _| {
        Err(JudgeError::Llm(safeplan_llm::LlmError::Server {
            status: 503,
            retry_after: None,
            message: "overloaded".into(),
        }))
    });
    let refiner = Refiner::new(judge, Arc::new(ApplyCritiques), RefineOptions::default());
    let done = block_on(refiner.refine_all(&episodes, |_, _| {}));
    assert_eq!(done.len(), 10);
    assert!(done.iter().all(|r| !r.fatal));
}
