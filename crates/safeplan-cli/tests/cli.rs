//! End-to-end tests of the `safeplan` binary: exit codes, human and JSON output.
//!
//! Each test writes its PDDL files into its own directory under the system temp dir and runs
//! the built binary there, so paths in the output are short and stable (`domain.pddl`).

#[path = "cli_architecture/mod.rs"]
mod cli_architecture;
#[path = "cli_llm/mod.rs"]
mod cli_llm;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

#[path = "cli_plan/mod.rs"]
mod cli_plan;

#[path = "cli_judge/mod.rs"]
mod cli_judge;

#[path = "cli_manifest/mod.rs"]
mod cli_manifest;

#[path = "cli_mcp/mod.rs"]
mod cli_mcp;

#[path = "cli_bench/mod.rs"]
mod cli_bench;

#[path = "cli_corpus/mod.rs"]
mod cli_corpus;
#[path = "cli_readme/mod.rs"]
mod cli_readme;
#[path = "cli_report/mod.rs"]
mod cli_report;
#[path = "cli_safety/mod.rs"]
mod cli_safety;
#[path = "cli_synth/mod.rs"]
mod cli_synth;
#[path = "cli_validate/mod.rs"]
mod cli_validate;

const DOMAIN: &str = "\
(define (domain d)
  (:requirements :strips)
  (:predicates (p ?x) (q ?x))
  (:action a
    :parameters (?x)
    :precondition (p ?x)
    :effect (and (q ?x) (not (p ?x)))))
";

const PROBLEM: &str = "\
(define (problem t)
  (:domain d)
  (:objects o1 o2)
  (:init (p o1) (p o2))
  (:goal (and (q o1) (q o2))))
";

const PLAN: &str = "(a o1)\n(a o2)\n";

/// A fresh directory for one test, removed when the test ends.
struct Dir(PathBuf);

impl Dir {
    fn new(test: &str) -> Dir {
        let path =
            std::env::temp_dir().join(format!("safeplan-cli-test-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create the test directory");
        Dir(path)
    }

    fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> &Dir {
        std::fs::write(self.0.join(name), contents).expect("write a test file");
        self
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn command(dir: &Dir, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_safeplan"));
    cmd.args(args)
        .current_dir(dir.path())
        .env_remove("NO_COLOR")
        .stdin(Stdio::null());
    cmd
}

fn run(dir: &Dir, args: &[&str]) -> Output {
    command(dir, args).output().expect("run safeplan")
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("safeplan exited normally")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON document")
}

// --- exit code 0 ---------------------------------------------------------------------------

#[test]
fn clean_domain_and_problem_exit_0_with_one_line_per_file() {
    let dir = Dir::new("clean");
    dir.write("domain.pddl", DOMAIN)
        .write("problem.pddl", PROBLEM);
    let out = run(&dir, &["check", "domain.pddl", "problem.pddl"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(
        stdout(&out),
        "ok  domain.pddl (domain d: 1 action, 2 predicates)\n\
         ok  problem.pddl (problem t for domain d: 2 objects, 2 init facts)\n"
    );
    assert_eq!(stderr(&out), "");
}

#[test]
fn clean_task_with_a_plan_exits_0_with_every_option() {
    let dir = Dir::new("clean-plan");
    dir.write("domain.pddl", DOMAIN)
        .write("problem.pddl", PROBLEM)
        .write("plan.txt", PLAN);
    for extra in [
        &[][..],
        &["--strict"],
        &["--llm-plan"],
        &["--color", "never"],
    ] {
        let mut args = vec!["check", "domain.pddl", "problem.pddl", "plan.txt"];
        args.extend_from_slice(extra);
        let out = run(&dir, &args);
        assert_eq!(code(&out), 0, "{args:?}: {}{}", stdout(&out), stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("ok  domain.pddl ("), "{text}");
        assert!(text.contains("ok  problem.pddl ("), "{text}");
        assert!(text.contains("ok  plan.txt (plan: "), "{text}");
    }
}

// --- exit code 1 ---------------------------------------------------------------------------

#[test]
fn syntax_errors_exit_1() {
    let dir = Dir::new("syntax");
    dir.write(
        "unclosed.pddl",
        "(define (domain d)\n  (:predicates (p ?x))\n",
    )
    .write(
        "section.pddl",
        "(define (domain d)\n  (:predicates (p ?x))\n  (:bogus x))\n",
    );
    let out = run(&dir, &["check", "unclosed.pddl"]);
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains("safeplan::unclosed-paren"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).ends_with("\n1 error\n"), "{}", stdout(&out));

    let out = run(&dir, &["check", "section.pddl"]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    assert!(text.contains("safeplan::unknown-section"), "{text}");
    assert!(text.contains("[section.pddl:3:4]"), "{text}");
    assert!(text.contains("help: "), "{text}");
    // The file with an error gets no `ok` line.
    assert!(!text.contains("ok  section.pddl"), "{text}");
}

#[test]
fn an_error_in_the_problem_leaves_the_domain_ok() {
    let dir = Dir::new("problem-error");
    dir.write("domain.pddl", DOMAIN)
        .write("problem.pddl", PROBLEM.replace("(:goal", "(:gaol"));
    let out = run(&dir, &["check", "domain.pddl", "problem.pddl"]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    assert!(text.contains("[problem.pddl:5:4]"), "{text}");
    assert!(text.contains("\nok  domain.pddl (domain d: "), "{text}");
    assert!(!text.contains("ok  problem.pddl"), "{text}");
}

#[test]
fn non_utf8_is_a_diagnostic_and_exits_1() {
    let dir = Dir::new("utf8");
    dir.write(
        "latin1.pddl",
        b"(define (domain d)\n  (:predicates (caf\xe9 ?x)))\n",
    );
    let out = run(&dir, &["check", "latin1.pddl"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("safeplan::invalid-utf8"), "{text}");
    assert!(text.contains("[latin1.pddl:2:20]"), "{text}");

    let out = run(&dir, &["check", "--json", "latin1.pddl"]);
    assert_eq!(code(&out), 1);
    let d = &json(&out)["files"][0]["diagnostics"][0];
    assert_eq!(d["code"], "invalid-utf8");
    assert_eq!((d["line"].as_u64(), d["col"].as_u64()), (Some(2), Some(20)));
}

#[test]
fn a_broken_domain_skips_the_checks_that_need_it_and_says_so() {
    let dir = Dir::new("skip");
    dir.write("domain.pddl", "")
        .write("problem.pddl", PROBLEM)
        .write("plan.txt", PLAN);
    let out = run(&dir, &["check", "domain.pddl", "problem.pddl", "plan.txt"]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    assert!(
        text.contains("skip  problem.pddl (not checked: the domain could not be parsed)"),
        "{text}"
    );
    assert!(text.contains("skip  plan.txt (not checked: "), "{text}");

    let out = run(&dir, &["check", "--json", "domain.pddl", "problem.pddl"]);
    let report = json(&out);
    assert_eq!(report["ok"], false);
    assert_eq!(
        report["files"][1]["skipped"],
        "not checked: the domain could not be parsed"
    );
    assert!(report["files"][0].get("skipped").is_none());
}

// --- exit code 2 ---------------------------------------------------------------------------

#[test]
fn unreadable_files_exit_2_with_a_hint() {
    let dir = Dir::new("missing");
    dir.write("domain.pddl", DOMAIN);
    std::fs::create_dir_all(dir.path().join("sub")).expect("mkdir");

    let out = run(&dir, &["check", "domain.pddl", "missing.pddl"]);
    assert_eq!(code(&out), 2);
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert!(
        err.starts_with("error: cannot read missing.pddl: No such file or directory\n"),
        "{err}"
    );
    assert!(err.contains("hint: "), "{err}");

    let out = run(&dir, &["check", "sub", "--json"]);
    assert_eq!(code(&out), 2);
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).starts_with("error: cannot read sub: "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    let dir = Dir::new("usage");
    dir.write("domain.pddl", DOMAIN);
    for args in [
        &["check", "--frobnicate", "domain.pddl"][..],
        &["check"],
        &[],
        &["lint", "domain.pddl"],
        &["check", "--color", "sometimes", "domain.pddl"],
        &["check", "--llm-plan", "domain.pddl"],
        &["check", "a", "b", "c", "d"],
    ] {
        let out = run(&dir, args);
        assert_eq!(code(&out), 2, "{args:?}");
        assert_eq!(stdout(&out), "", "{args:?}");
        assert!(!stderr(&out).is_empty(), "{args:?}");
    }
    for (args, wanted) in [
        (&["--help"][..], "check"),
        (&["check", "--help"], "--llm-plan"),
        (&["help", "check"], "--strict"),
        (&["--version"], env!("CARGO_PKG_VERSION")),
    ] {
        let out = run(&dir, args);
        assert_eq!(code(&out), 0, "{args:?}");
        assert!(stdout(&out).contains(wanted), "{args:?}: {}", stdout(&out));
    }
}

// --- JSON ----------------------------------------------------------------------------------

#[test]
fn json_report_has_the_schema_and_exact_positions() {
    let dir = Dir::new("json");
    // `é` is two bytes: `:bogus` starts at byte 26 of line 2 but at character (column) 26.
    dir.write(
        "domain.pddl",
        "(define (domain d)\n  (:predicates (pé ?x)) (:bogus x)\n  (:action a :parameters (?x)\n    :precondition (pé ?x) :effect (not (pé ?x)))\n",
    );
    // A problem that fits this domain, so every error is in the domain.
    dir.write(
        "problem.pddl",
        "(define (problem t) (:domain d) (:objects o1) (:init (pé o1)) (:goal (pé o1)))\n",
    );
    let out = run(&dir, &["check", "--json", "domain.pddl", "problem.pddl"]);
    assert_eq!(code(&out), 1);
    let report = json(&out);

    assert_eq!(report["errors"], 2);
    assert_eq!(report["warnings"], 0);
    assert_eq!(report["ok"], false);
    let files = report["files"].as_array().expect("files is an array");
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["path"], "domain.pddl");
    assert_eq!(files[0]["kind"], "domain");
    assert_eq!(files[1]["path"], "problem.pddl");
    assert_eq!(files[1]["kind"], "problem");
    assert_eq!(files[1]["diagnostics"], Value::Array(Vec::new()));

    let diags = files[0]["diagnostics"].as_array().expect("an array");
    assert_eq!(diags.len(), 2, "{diags:?}");
    let section = &diags[0];
    assert_eq!(section["severity"], "error");
    assert_eq!(section["code"], "unknown-section");
    assert_eq!(section["message"], "unknown section `:bogus`");
    assert_eq!(section["line"], 2);
    assert_eq!(section["col"], 26);
    assert_eq!(section["end_line"], 2);
    assert_eq!(section["end_col"], 32);
    assert_eq!(section["labels"], Value::Array(Vec::new()));
    assert!(section["help"].is_string());
    assert!(section.get("step").is_none());

    // The file ends inside `(define`: the error is at the end of the last line, and its label
    // points back at the open paren.
    let eof = &diags[1];
    assert_eq!(eof["code"], "unclosed-paren");
    assert_eq!(
        (eof["line"].as_u64(), eof["col"].as_u64()),
        (Some(4), Some(49))
    );
    let label = &eof["labels"][0];
    assert_eq!(label["path"], "domain.pddl");
    assert_eq!(
        (label["line"].as_u64(), label["col"].as_u64()),
        (Some(1), Some(1))
    );
    assert!(label["message"].is_string());

    // Keys come in the documented order, and the document is the same every time.
    let text = stdout(&out);
    let order = |keys: &[&str]| {
        let at: Vec<usize> = keys
            .iter()
            .map(|k| text.find(&format!("\"{k}\":")).expect(k))
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{keys:?} in\n{text}");
    };
    order(&["files", "path", "kind", "diagnostics"]);
    order(&[
        "severity", "code", "message", "line", "col", "end_line", "end_col", "labels", "help",
    ]);
    let tail = &text[text.rfind("\"errors\"").expect("errors")..];
    assert!(tail.find("\"warnings\"") < tail.find("\"ok\""), "{tail}");
    assert_eq!(
        text,
        stdout(&run(
            &dir,
            &["check", "--json", "domain.pddl", "problem.pddl"]
        ))
    );
}

#[test]
fn json_clean_run_is_ok() {
    let dir = Dir::new("json-clean");
    dir.write("domain.pddl", DOMAIN)
        .write("problem.pddl", PROBLEM);
    let out = run(&dir, &["check", "--json", "domain.pddl", "problem.pddl"]);
    assert_eq!(code(&out), 0);
    let report = json(&out);
    assert_eq!(report["ok"], true);
    assert_eq!(report["errors"], 0);
    assert_eq!(report["files"][0]["diagnostics"], Value::Array(Vec::new()));
}

// --- rendering -----------------------------------------------------------------------------

#[test]
fn plain_rendering_of_a_parse_error() {
    let dir = Dir::new("snapshot");
    dir.write(
        "domain.pddl",
        "(define (domain d)\n  (:predicates (p ?x))\n  (:action a\n    :parameters (?x)\n    :effect (p ?x))\n",
    );
    let out = run(&dir, &["check", "--color", "never", "domain.pddl"]);
    assert_eq!(code(&out), 1);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn colour_follows_the_flag_and_the_terminal() {
    let dir = Dir::new("colour");
    dir.write("domain.pddl", "(define (domain d) (:bogus))\n");
    let always = stdout(&run(&dir, &["check", "--color", "always", "domain.pddl"]));
    assert!(always.contains('\x1b'), "{always}");
    assert!(
        always.contains('─'),
        "unicode drawing with colour: {always}"
    );
    for args in [
        &["check", "--color", "never", "domain.pddl"][..],
        // `auto` into a pipe: no colour.
        &["check", "domain.pddl"],
        &["--color", "never", "check", "domain.pddl"],
    ] {
        let plain = stdout(&run(&dir, args));
        assert!(plain.is_ascii(), "{args:?}: {plain}");
        assert!(plain.contains("safeplan::unknown-section"), "{plain}");
    }
}

#[test]
fn a_closed_pipe_does_not_panic() {
    let dir = Dir::new("pipe");
    // Thousands of diagnostics: far more output than a pipe buffers.
    let mut domain = String::from("(define (domain d)\n");
    for _ in 0..3000 {
        domain.push_str("  (:bogus x)\n");
    }
    domain.push_str(")\n");
    dir.write("domain.pddl", &domain);
    for extra in [None, Some("--json")] {
        let mut cmd = command(&dir, &["check", "domain.pddl"]);
        cmd.args(extra);
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn safeplan");
        // Read nothing and hang up, as `| head -0` would.
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("wait for safeplan");
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(code(&out), 1, "{extra:?}: {err}");
    }
}
