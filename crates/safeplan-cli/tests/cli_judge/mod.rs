//! `safeplan judge`: the loop from the command line, its files, its table and its errors.

use super::{Dir, code, run, stderr, stdout};

const SOUP_DOMAIN: &str = include_str!("../../../../examples/tasks/hot-soup/domain.pddl");
const SOUP_PROBLEM: &str = include_str!("../../../../examples/tasks/hot-soup/problem.pddl");

/// Two hand-labelled TEACh-style episodes. In the first, the wrong placement on the chair
/// and the pick-up after it are the noise; in the second, the bowl detour is.
const EPISODES: &str = concat!(
    r#"{"id": "apple", "goal": "Put the apple in the fridge.", "actions": ["Driver.PickUp('Apple')", "Driver.PutAOnB('Apple', 'Chair')", "Driver.PickUp('Apple')", "Driver.Move(1.0)", "Driver.PutAOnB('Apple', 'Fridge')"], "remove": [1, 2], "remove_alts": [[0, 1]]}"#,
    "\n",
    r#"{"id": "plant", "goal": "Water the plant with the cup.", "actions": ["Driver.PickUp('Bowl')", "Driver.PutAOnB('Bowl', 'Shelf')", "Driver.PickUp('Cup')", "Driver.PourFromAIntoB('Cup', 'HousePlant')"], "remove": [0, 1]}"#,
    "\n",
);

fn read_lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .expect("written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn state_judge_writes_refined_transcript_and_metrics() {
    let dir = Dir::new("judge-state");
    dir.write("eps.jsonl", EPISODES);
    let out = run(
        &dir,
        &["judge", "eps.jsonl", "--judge", "state", "--out", "out"],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("| 2 | 1.000 | 1.000 | 1.000 | 4 | 0 | 0 |"),
        "{text}"
    );
    assert!(
        text.contains("converged by round:  1: 0.0%  2: 100.0%"),
        "{text}"
    );

    let refined = read_lines(&dir.path().join("out/refined.jsonl"));
    let apple = refined
        .iter()
        .find(|r| r["id"] == "apple")
        .expect("apple refined");
    assert_eq!(apple["flagged"], serde_json::json!([1, 2]));
    assert_eq!(apple["converged_at"], 2);
    assert_eq!(
        apple["steps"][2],
        serde_json::json!({"text": "Driver.PutAOnB('Apple', 'Fridge')", "original": 4})
    );

    let transcript = read_lines(&dir.path().join("out/transcript.jsonl"));
    assert_eq!(transcript.len(), 4, "two rounds per episode");
    let metrics: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out/metrics.json")).expect("metrics written"),
    )
    .expect("metrics parse");
    assert_eq!(
        (
            metrics["tp"].as_u64(),
            metrics["fp"].as_u64(),
            metrics["fn"].as_u64()
        ),
        (Some(4), Some(0), Some(0))
    );
    assert_eq!(metrics["f1"], 1.0);
}

#[test]
fn the_rule_baseline_and_an_ensemble_run_too() {
    let dir = Dir::new("judge-rule");
    dir.write("eps.jsonl", EPISODES);
    // The rule judge flags the unnamed pick-up of the bowl and its placement, and misses the
    // apple's detour: tp 2, fn 2.
    let out = run(
        &dir,
        &[
            "judge",
            "eps.jsonl",
            "--judge",
            "rule",
            "--out",
            "o",
            "--json",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let m: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("--json prints metrics");
    assert_eq!(
        (m["tp"].as_u64(), m["fn"].as_u64()),
        (Some(2), Some(2)),
        "{m}"
    );
    let out = run(
        &dir,
        &[
            "judge",
            "eps.jsonl",
            "--judge",
            "ensemble:intersection:state,rule",
            "--out",
            "o",
            "--json",
        ],
    );
    let m: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("--json prints metrics");
    assert_eq!(
        (m["tp"].as_u64(), m["fp"].as_u64()),
        (Some(2), Some(0)),
        "{m}"
    );
}

#[test]
fn symbolic_judge_repairs_an_unsafe_plan_of_a_bound_task() {
    let dir = Dir::new("judge-symbolic");
    dir.write("domain.pddl", SOUP_DOMAIN).write("problem.pddl", SOUP_PROBLEM).write(
        "eps.jsonl",
        // Hand-checked on hot-soup: carrying the soup fast with the child in the room is
        // dangerous; the repair slows down first.
        r#"{"id": "soup", "goal": "Serve the soup.", "actions": ["(pick-up soup stove)", "(move stove table)", "(put-down soup table)"], "pddl": {"domain": "domain.pddl", "problem": "problem.pddl"}}"#,
    );
    let out = run(
        &dir,
        &["judge", "eps.jsonl", "--judge", "symbolic", "--out", "o"],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let refined = read_lines(&dir.path().join("o/refined.jsonl"));
    let texts: Vec<&str> = refined[0]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter_map(|s| s["text"].as_str())
        .collect();
    assert!(texts.contains(&"(slow-down)"), "{texts:?}");
    assert_eq!(refined[0]["stop"], "converged");
    let plan = texts.join("\n");
    dir.write("fixed.plan", plan);
    let check = run(
        &dir,
        &["validate", "domain.pddl", "problem.pddl", "fixed.plan"],
    );
    assert_eq!(
        code(&check),
        0,
        "the repaired plan is feasible and safe: {}",
        stdout(&check)
    );
}

#[test]
fn bad_input_exits_2_and_says_where() {
    let dir = Dir::new("judge-bad");
    dir.write(
        "eps.jsonl",
        "{\"id\": \"a\", \"actions\": [\"x\"]}\n{\"id\": 3}\n",
    );
    let out = run(&dir, &["judge", "eps.jsonl", "--out", "o"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("eps.jsonl:2:"), "{}", stderr(&out));
    let out = run(&dir, &["judge", "eps.jsonl", "--judge", "psychic"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("unknown judge `psychic`"),
        "{}",
        stderr(&out)
    );
    let out = run(&dir, &["judge", "missing.jsonl"]);
    assert_eq!(code(&out), 2);
    // A symbolic judge on an episode without a task: that episode errors, exit 1.
    dir.write("plain.jsonl", "{\"id\": \"a\", \"actions\": [\"x\"]}\n");
    let out = run(
        &dir,
        &["judge", "plain.jsonl", "--judge", "symbolic", "--out", "o"],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("needs a PDDL task"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_teach_dev_split_from_the_readme_command() {
    let Some(data) = safeplan_testkit::data_dir() else {
        return;
    };
    let dir = Dir::new("judge-dev");
    let episodes = data.join("teach/judge-dev.jsonl");
    let path = episodes.to_str().expect("a UTF-8 path");
    let out = run(
        &dir,
        &["judge", path, "--judge", "state", "--out", "o", "--json"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let m: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("metrics");
    assert!(m["f1"].as_f64().is_some_and(|f| f >= 0.9), "{m}");
}

/// `--cv`: the two hand-labelled episodes are two games, so two folds hold one each; the
/// pooled held-out counts of the rule judge (which has no settings) are its whole-file
/// counts, and a fold count the games cannot fill is refused with exit 2.
#[test]
fn cross_validation_pools_held_out_folds_and_refuses_impossible_splits() {
    let dir = Dir::new("judge-cv");
    dir.write("eps.jsonl", EPISODES);
    let whole = run(
        &dir,
        &[
            "judge",
            "eps.jsonl",
            "--judge",
            "rule",
            "--out",
            "w",
            "--json",
        ],
    );
    assert_eq!(code(&whole), 0, "{}", stderr(&whole));
    let whole: serde_json::Value = serde_json::from_str(&stdout(&whole)).expect("metrics");
    let out = run(
        &dir,
        &[
            "judge",
            "eps.jsonl",
            "--judge",
            "rule",
            "--cv",
            "2",
            "--out",
            "cv",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("pooled (held-out)"),
        "{}",
        stdout(&out)
    );
    let cv: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("cv/cv.json")).expect("cv.json"),
    )
    .expect("JSON");
    for key in ["tp", "fp", "fn"] {
        assert_eq!(cv["pooled"][key], whole[key], "{key}: {cv}");
    }
    assert_eq!(cv["folds"].as_array().map(Vec::len), Some(2));
    let out = run(&dir, &["judge", "eps.jsonl", "--cv", "3", "--out", "cv"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("cannot split 2 labelled games into 3 folds"),
        "{}",
        stderr(&out)
    );
}

/// The priors shipped with the state judge are exactly what `safeplan priors` learns from
/// the unlabelled corpus (the documented command reproduces them).
#[test]
fn the_shipped_priors_are_relearned_from_the_corpus() {
    let Some(data) = safeplan_testkit::data_dir() else {
        return;
    };
    let dir = Dir::new("judge-priors");
    let corpus = data.join("teach/episodes.jsonl.gz");
    let out = run(
        &dir,
        &[
            "priors",
            corpus.to_str().expect("a UTF-8 path"),
            "--out",
            "priors.json",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let learned: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("priors.json")).expect("written"),
    )
    .expect("JSON");
    let shipped: serde_json::Value = serde_json::from_str(include_str!(
        "../../../safeplan-judge/data/teach-priors.json"
    ))
    .expect("JSON");
    assert_eq!(learned, shipped);
    assert_eq!(learned["episodes"], 2196);
    // Nobody puts anything on a house plant; players pour into it.
    assert!(learned["classes"]["HousePlant"]["target"]["PutAOnB"].is_null());
    assert!(learned["classes"]["HousePlant"]["target"]["PourFromAIntoB"].as_u64() >= Some(10));
}

/// The synthetic noise set (`safeplan teach-noise`): each of the paper's four kinds of noise,
/// injected into real unlabelled games at known places, is flagged at its place by the
/// state judge. Where it is not, the game gives the judge no ground (a goal that names
/// nothing the game handles: nothing can be called irrelevant), so the bar is per kind.
#[test]
fn injected_noise_of_each_kind_is_flagged_where_it_was_put() {
    let Some(data) = safeplan_testkit::data_dir() else {
        return;
    };
    let dir = Dir::new("judge-noise");
    let corpus = data.join("teach/episodes.jsonl.gz");
    let out = run(
        &dir,
        &[
            "teach-noise",
            corpus.to_str().expect("a UTF-8 path"),
            "--out",
            "synth.jsonl",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let lines = read_lines(&dir.path().join("synth.jsonl"));
    // 100 games, up to four kinds each (not every game has a put or pour to substitute).
    assert!(lines.len() > 300, "{}", lines.len());
    for l in &lines {
        // Labels point at the injected steps, and the clean sequence is the game itself.
        let clean = l["clean_actions"].as_array().expect("clean actions");
        let actions = l["actions"].as_array().expect("actions");
        let removed: Vec<usize> = l["remove"]
            .as_array()
            .expect("remove")
            .iter()
            .filter_map(serde_json::Value::as_u64)
            .map(|i| i as usize)
            .collect();
        let kept: Vec<&serde_json::Value> = actions
            .iter()
            .enumerate()
            .filter(|(i, _)| !removed.contains(i))
            .map(|(_, a)| a)
            .collect();
        let substituted = l["id"]
            .as_str()
            .is_some_and(|id| id.ends_with("~substituted-action"));
        if !substituted {
            assert_eq!(kept, clean.iter().collect::<Vec<_>>(), "{}", l["id"]);
        }
    }
    // With every rule, each kind is found where it was put; with the default rules, the
    // idle turns are not (human players turn around as often: JUDGE.md, habits) and the
    // other three kinds are.
    for (judge, idle_turns_found) in [("state:all", true), ("state", false)] {
        let out = run(
            &dir,
            &[
                "judge",
                "synth.jsonl",
                "--judge",
                judge,
                "--out",
                "o",
                "--json",
            ],
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let m: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("metrics");
        for kind in [
            "irrelevant-pick-up",
            "wrong-placement",
            "extra-motion",
            "substituted-action",
        ] {
            let (mut tp, mut fn_) = (0, 0);
            for e in m["per_episode"].as_array().expect("episodes") {
                if e["id"]
                    .as_str()
                    .is_some_and(|id| id.ends_with(&format!("~{kind}")))
                {
                    tp += e["remove"]["tp"].as_u64().unwrap_or(0);
                    fn_ += e["remove"]["fn"].as_u64().unwrap_or(0);
                }
            }
            if kind == "extra-motion" && !idle_turns_found {
                assert_eq!(tp, 0, "{judge}: {kind}");
                continue;
            }
            assert!(tp > 50, "{judge}: {kind}: only {tp} injected steps found");
            assert!(
                fn_ * 50 <= tp + fn_,
                "{judge}: {kind}: {fn_} of {} injected steps missed",
                tp + fn_
            );
        }
    }
}

/// An LLM judge's run recorded against a loopback OpenAI-compatible server replays with the
/// server gone and no key, to the same refined plans; with `--cache`, a second run asks the
/// server nothing.
#[test]
fn an_llm_judge_run_records_replays_and_caches() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    let dir = Dir::new("judge-llm-cassette");
    dir.write("eps.jsonl", EPISODES);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    // An OpenAI-compatible server that gives the same reply to every request. The judge flags
    // the chair placement of the apple episode and nothing else (for the plant episode step 2
    // is the bowl's placement).
    let reply =
        "ACTION: 2. Driver.PutAOnB('Apple', 'Chair')\nANNOTATION: #REMOVE: the wrong place\n";
    let answering = || {
        let server = runtime.block_on(MockServer::start());
        let body = serde_json::json!({
            "id": "c1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        });
        runtime.block_on(
            Mock::given(method("POST"))
                .and(path("/v1/chat/completions"))
                .respond_with(ResponseTemplate::new(200).set_body_json(body))
                .mount(&server),
        );
        server
    };
    let server = answering();
    let spec = format!("llm:openai-compatible:{}/v1#m", server.uri());
    let judge = |extra: &[&str], out: &str| {
        let mut args = vec![
            "judge",
            "eps.jsonl",
            "--judge",
            &spec,
            "--max-rounds",
            "2",
            "--out",
            out,
        ];
        args.extend_from_slice(extra);
        run(&dir, &args)
    };
    let recorded = judge(&["--record", "cassette.jsonl"], "rec");
    assert_eq!(code(&recorded), 0, "{}", stderr(&recorded));
    let asked = runtime
        .block_on(server.received_requests())
        .map(|r| r.len())
        .unwrap_or(0);
    assert!(asked >= 2, "{asked}");

    // Replay: the same spec, but nothing answers any more.
    drop(server);
    let replayed = judge(&["--replay", "cassette.jsonl"], "rep");
    assert_eq!(code(&replayed), 0, "{}", stderr(&replayed));
    // Episodes are written as they finish: compare them sorted.
    let read = |d: &str| {
        let text = std::fs::read_to_string(dir.path().join(d).join("refined.jsonl"))
            .expect("refined.jsonl");
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        lines.sort();
        lines
    };
    assert_eq!(read("rec"), read("rep"));
    // The reply's #REMOVE of step 2 each round: the chair placement, then the re-pick-up.
    assert!(
        read("rec")
            .iter()
            .any(|l| l.contains("\"id\":\"apple\"") && l.contains("\"flagged\":[1,2]")),
        "{:?}",
        read("rec")
    );

    // The cache: a first run fills it from a new server; a second run is answered from the
    // cache alone (the server sees no new request).
    let server = answering();
    let spec = format!("llm:openai-compatible:{}/v1#m", server.uri());
    let cached = |out: &str| {
        run(
            &dir,
            &[
                "judge",
                "eps.jsonl",
                "--judge",
                &spec,
                "--max-rounds",
                "2",
                "--cache",
                "cache.db",
                "--out",
                out,
            ],
        )
    };
    let first = cached("c1");
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let before = runtime
        .block_on(server.received_requests())
        .map(|r| r.len())
        .unwrap_or(0);
    let second = cached("c2");
    assert_eq!(code(&second), 0, "{}", stderr(&second));
    let after = runtime
        .block_on(server.received_requests())
        .map(|r| r.len())
        .unwrap_or(0);
    assert_eq!(before, after, "the second run asked the server");
    assert_eq!(read("c1"), read("c2"));
}
