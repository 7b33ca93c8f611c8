//! `safeplan synth` and `safeplan inject-noise`: files written, summaries, refusals and exit
//! codes. What the suites contain is checked by the validator through `validate-suite`.

use super::{Dir, code, run, stderr, stdout};

fn folders(path: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(path)
        .expect("listed")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn synth_writes_a_suite_that_validate_suite_accepts() {
    let dir = Dir::new("synth-suite");
    let out = run(
        &dir,
        &["synth", "--tasks", "12", "--seed", "4", "--out", "suite"],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("wrote 12 tasks to suite (seed 4)\n"),
        "{text}"
    );
    assert!(text.contains("safety effort       mean "), "{text}");
    let names = folders(&dir.path().join("suite"));
    assert_eq!(names.len(), 12);
    assert_eq!(names[0], "synth_000000");
    assert_eq!(names[11], "synth_000011");
    for file in ["domain.pddl", "problem.pddl", "metadata.json"] {
        assert!(
            dir.path().join("suite/synth_000007").join(file).is_file(),
            "{file}"
        );
    }
    // Every reference plan is what the metadata says: safe ones safe, unsafe ones unsafe.
    let check = run(&dir, &["validate-suite", "suite"]);
    assert_eq!(code(&check), 0, "{}{}", stdout(&check), stderr(&check));
    assert!(
        stdout(&check).contains("12 tasks: 12 as expected"),
        "{}",
        stdout(&check)
    );
}

#[test]
fn synth_json_summary_and_refusals() {
    let dir = Dir::new("synth-json");
    let out = run(&dir, &["synth", "--tasks", "30", "--out", "s", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(summary["tasks"], 30);
    assert_eq!(summary["seed"], 0);
    assert_eq!(summary["rejected_draws"], 0);
    let histogram = summary["effort_histogram"]
        .as_object()
        .expect("a histogram");
    assert_eq!(
        histogram.values().filter_map(|v| v.as_u64()).sum::<u64>(),
        30
    );

    // The folder is not empty now: refused, nothing changed.
    let again = run(&dir, &["synth", "--tasks", "2", "--out", "s"]);
    assert_eq!(code(&again), 2);
    assert!(stderr(&again).contains("not empty"), "{}", stderr(&again));
    assert_eq!(folders(&dir.path().join("s")).len(), 30);
    // No tasks, or no --tasks at all: unusable.
    assert_eq!(
        code(&run(&dir, &["synth", "--tasks", "0", "--out", "t"])),
        2
    );
    assert_eq!(code(&run(&dir, &["synth", "--out", "t"])), 2);
    assert!(!dir.path().join("t").exists());
}

#[test]
fn inject_noise_writes_one_folder_per_level_and_keeps_verdicts() {
    let dir = Dir::new("noise");
    assert_eq!(
        code(&run(&dir, &["synth", "--tasks", "6", "--out", "suite"])),
        0
    );
    let out = run(
        &dir,
        &[
            "inject-noise",
            "suite",
            "--actions",
            "2,16",
            "--out",
            "noisy",
            "--seed",
            "3",
        ],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("wrote 2 noise levels of 6 tasks to noisy (seed 3)\n"),
        "{text}"
    );
    assert!(
        text.contains("actions-16/  6 tasks, 16 irrelevant actions each"),
        "{text}"
    );
    assert!(text.contains("24 reference plans checked"), "{text}");
    assert_eq!(
        folders(&dir.path().join("noisy")),
        ["actions-16", "actions-2"]
    );
    let domain =
        std::fs::read_to_string(dir.path().join("noisy/actions-16/synth_000002/domain.pddl"))
            .expect("written");
    let original = std::fs::read_to_string(dir.path().join("suite/synth_000002/domain.pddl"))
        .expect("written");
    assert_eq!(
        domain.matches("(:action ").count(),
        original.matches("(:action ").count() + 16
    );
    let check = run(&dir, &["validate-suite", "noisy/actions-16"]);
    assert_eq!(code(&check), 0, "{}{}", stdout(&check), stderr(&check));

    let json = run(
        &dir,
        &[
            "inject-noise",
            "suite",
            "--actions",
            "4",
            "--out",
            "n4",
            "--json",
        ],
    );
    assert_eq!(code(&json), 0, "{}", stderr(&json));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("JSON");
    assert_eq!(summary["levels"][0]["folder"], "actions-4");
    assert_eq!(summary["plans_checked"], 12);
}

#[test]
fn inject_noise_refuses_what_it_cannot_do() {
    let dir = Dir::new("noise-refused");
    assert_eq!(
        code(&run(&dir, &["synth", "--tasks", "2", "--out", "suite"])),
        0
    );
    // Counts out of range or unreadable, a missing suite, a busy output folder: exit 2.
    for args in [
        &["inject-noise", "suite", "--actions", "0", "--out", "n"][..],
        &["inject-noise", "suite", "--actions", "2,x", "--out", "n"],
        &["inject-noise", "suite", "--actions", "1000", "--out", "n"],
        &["inject-noise", "suite", "--actions", "2,2", "--out", "n"],
        &["inject-noise", "suite", "--out", "n"],
        &["inject-noise", "missing", "--actions", "2", "--out", "n"],
        &["inject-noise", "suite", "--actions", "2", "--out", "suite"],
    ] {
        let out = run(&dir, args);
        assert_eq!(code(&out), 2, "{args:?}: {}{}", stdout(&out), stderr(&out));
        assert!(!stderr(&out).is_empty(), "{args:?}");
    }
    assert!(!dir.path().join("n").exists());
    let busy = run(
        &dir,
        &["inject-noise", "suite", "--actions", "2", "--out", "suite"],
    );
    assert!(stderr(&busy).contains("not empty"), "{}", stderr(&busy));
}
