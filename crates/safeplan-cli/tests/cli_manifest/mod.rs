//! `safeplan validate --manifest`: a corpus in one call, against VAL's verdicts and against
//! the per-file `validate --json`.

use serde_json::Value;

use super::{DOMAIN, Dir, PLAN, PROBLEM, code, run, stderr, stdout};

fn lines(out: &std::process::Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// Every pair of the IPC corpus in one call: each verdict agrees with VAL's (the manifest's
/// own `valid`, passed through under `input`), in input order; and a sample of lines equals
/// what `safeplan validate DOMAIN PROBLEM PLAN --json` prints for that plan alone.
#[test]
fn the_whole_ipc_manifest_agrees_with_val_and_with_per_file_validation() {
    let Some(data) = safeplan_testkit::data_dir() else {
        return;
    };
    let dir = Dir::new("manifest-ipc");
    let manifest = data.join("ipc/manifest.jsonl");
    let out = run(
        &dir,
        &[
            "validate",
            "--json",
            "--manifest",
            manifest.to_str().expect("a UTF-8 path"),
        ],
    );
    // Some plans are invalid (the corpus's mutations): exit 1, and no line is an error.
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let got = lines(&out);
    let expected: Vec<Value> = std::fs::read_to_string(&manifest)
        .expect("the manifest")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a manifest line"))
        .collect();
    assert_eq!(got.len(), expected.len());
    for (k, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(g["line"], k + 1, "{g}");
        assert!(g.get("error").is_none(), "{g}");
        assert_eq!(g["valid"], e["valid"], "line {}: {g}", k + 1);
        assert_eq!(g["input"]["val_message"], e["val_message"]);
    }
    for k in (0..expected.len()).step_by(53) {
        let e = &expected[k];
        let path = |f: &str| {
            data.join("ipc")
                .join(e[f].as_str().expect("a path"))
                .to_str()
                .expect("a UTF-8 path")
                .to_string()
        };
        let (d, p, plan) = (path("domain"), path("problem"), path("plan"));
        let alone = run(&dir, &["validate", "--json", &d, &p, &plan]);
        let mut alone: Value = serde_json::from_str(stdout(&alone).trim()).expect("one line");
        let mut g = got[k].clone();
        for v in [&mut alone, &mut g] {
            if let Some(m) = v.as_object_mut() {
                m.remove("line");
                m.remove("input");
                m.remove("plan");
            }
        }
        assert_eq!(g, alone, "line {}", k + 1);
    }
}

/// Paths are relative to the manifest's folder, not the working directory; extra fields
/// come back under `input`; bad lines get an error object with the line and column and do
/// not stop the run; output keeps input order; the exit code is 2 when a line was bad.
#[test]
fn bad_lines_get_errors_of_their_own_and_the_rest_is_validated_in_order() {
    let dir = Dir::new("manifest-bad");
    std::fs::create_dir_all(dir.path().join("corpus/t")).expect("a folder");
    let w = |p: &str, t: &str| std::fs::write(dir.path().join(p), t).expect("written");
    w("corpus/t/domain.pddl", DOMAIN);
    w("corpus/t/problem.pddl", PROBLEM);
    w("corpus/t/good.plan", PLAN);
    w("corpus/t/short.plan", "(a o1)\n");
    w(
        "corpus/t/broken.pddl",
        "(define (domain d)\n  (:predicates (p ?x)\n",
    );
    let line = |plan: &str, extra: &str| {
        format!(
            r#"{{"domain": "t/domain.pddl", "problem": "t/problem.pddl", "plan": "{plan}"{extra}}}"#
        )
    };
    let manifest = [
        line("t/good.plan", r#", "id": "first""#),
        "{not json".to_string(),
        r#"{"domain": "t/domain.pddl", "problem": "t/problem.pddl"}"#.to_string(),
        String::new(),
        r#"{"domain": "t/missing.pddl", "problem": "t/problem.pddl", "plan": "t/good.plan"}"#
            .to_string(),
        r#"{"domain": "t/broken.pddl", "problem": "t/problem.pddl", "plan": "t/good.plan"}"#
            .to_string(),
        line("t/short.plan", r#", "id": "last""#),
    ]
    .join("\n");
    w("corpus/manifest.jsonl", &manifest);
    let out = run(&dir, &["validate", "--manifest", "corpus/manifest.jsonl"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let got = lines(&out);
    let numbers: Vec<u64> = got.iter().filter_map(|l| l["line"].as_u64()).collect();
    assert_eq!(numbers, vec![1, 2, 3, 5, 6, 7]);
    assert_eq!(
        (got[0]["valid"].as_bool(), got[0]["input"]["id"].as_str()),
        (Some(true), Some("first"))
    );
    let message = |k: usize| {
        got[k]["error"]["message"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    assert!(
        message(1).starts_with("corpus/manifest.jsonl:2:"),
        "{}",
        message(1)
    );
    assert!(message(2).contains("no \"plan\" field"), "{}", message(2));
    assert!(
        message(3).contains("cannot read corpus/t/missing.pddl"),
        "{}",
        message(3)
    );
    // A task with errors: the plan line says so, with the file's diagnostics and where.
    let task_error = got[4]["error"].to_string();
    assert!(
        task_error.contains("broken.pddl") && task_error.contains("\"line\""),
        "{task_error}"
    );
    assert_eq!(got[5]["valid"], false);
    assert_eq!(got[5]["failure"]["kind"], "unsatisfied_goal", "{}", got[5]);
    assert_eq!(got[5]["input"]["id"], "last");
}
