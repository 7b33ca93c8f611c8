//! Every command in README.md runs, with the exit code the README promises.
//!
//! The test reads the README's ```sh blocks. A line is a command; the comment lines above it
//! may say "exit code N" (default 0). `safeplan ...` and `cargo run --release -p safeplan-cli
//! -- ...` run the binary under test; `cargo run -p safeplan-examples --example X`,
//! `cargo test` and `cargo build` are left to `.ci/run`, and this test checks that `.ci/run`
//! runs them. Commands run in a scratch copy of the repository's layout (the examples
//! folder and `../shared` are linked in), so outputs never land in the source tree. LLM
//! commands talk to a loopback server that answers in each provider's documented wire
//! format: the keys in the README are placeholders and nothing leaves the machine.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const README: &str = include_str!("../../../../README.md");
const CI: &str = include_str!("../../../../.ci/run");
const PYTHON_CI: &str = include_str!("../../../../.ci/python.sh");
const CAPI_CI: &str = include_str!("../../../../.ci/capi.sh");
const OPENAI_REPLY: &str = include_str!("../../../safeplan-llm/tests/fixtures/openai/success.json");
const OLLAMA_REPLY: &str = include_str!("../../../safeplan-llm/tests/fixtures/ollama/success.json");

/// One command of the README and the exit code its comment promises.
#[derive(Debug)]
struct Documented {
    line: String,
    exit: i32,
}

fn documented() -> Vec<Documented> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut exit = 0;
    for line in README.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            in_sh = t == "```sh";
            exit = 0;
            continue;
        }
        if !in_sh || t.is_empty() {
            continue;
        }
        if let Some(comment) = t.strip_prefix('#') {
            if let Some(i) = comment.find("exit code ") {
                let n: String = comment[i + 10..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                exit = n.parse().expect("a number after `exit code`");
            }
            continue;
        }
        // A trailing comment explains the command; it is not part of it.
        let command = match t.find("  #") {
            Some(i) => t[..i].trim_end(),
            None => t,
        };
        out.push(Documented {
            line: command.to_string(),
            exit,
        });
        exit = 0;
    }
    out
}

/// Split a command line as a POSIX shell would for the simple forms the README uses:
/// words, double-quoted words, and leading `VAR=value` assignments.
fn split(line: &str) -> (Vec<(String, String)>, Vec<String>) {
    let mut words = Vec::new();
    let mut cur = String::new();
    let (mut quoted, mut any) = (false, false);
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any || !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            c => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        words.push(cur);
    }
    let mut env = Vec::new();
    while let Some(w) = words.first() {
        match w.split_once('=') {
            Some((k, v)) if k.chars().all(|c| c.is_ascii_uppercase() || c == '_') => {
                env.push((k.to_string(), v.to_string()));
                words.remove(0);
            }
            _ => break,
        }
    }
    (env, words)
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_readme_command_runs_as_documented() {
    let Some(data) = safeplan_testkit::data_dir() else {
        return;
    };
    let commands = documented();
    assert!(commands.len() >= 15, "{commands:?}");

    // The layout the README assumes: the repository, with ../shared beside it.
    let root = std::env::temp_dir().join(format!("safeplan-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let work = root.join("repo");
    std::fs::create_dir_all(&work).expect("scratch folder");
    let shared = data.join("..").canonicalize().expect("the shared folder");
    std::os::unix::fs::symlink(&shared, root.join("shared")).expect("link ../shared");
    std::os::unix::fs::symlink(
        repo().join("examples").canonicalize().expect("examples"),
        work.join("examples"),
    )
    .expect("link examples");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let server = runtime.block_on(async {
        let server = MockServer::start().await;
        for (route, body) in [
            ("/v1/chat/completions", OPENAI_REPLY),
            ("/api/chat", OLLAMA_REPLY),
        ] {
            Mock::given(method("POST"))
                .and(path(route))
                .respond_with(ResponseTemplate::new(200).set_body_raw(body, "application/json"))
                .mount(&server)
                .await;
        }
        server
    });

    let mut ran = 0;
    for doc in &commands {
        let (env, words) = split(&doc.line);
        let args: Vec<String> = match words.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            ["safeplan", ..] => words[1..].to_vec(),
            ["cargo", "run", "--release", "-p", "safeplan-cli", "--", ..] => words[6..].to_vec(),
            [
                "cargo",
                "run",
                "-q",
                "-p",
                "safeplan-examples",
                "--example",
                name,
            ] => {
                assert!(
                    CI.contains(name) && CI.contains("--example"),
                    ".ci/run must run the example {name}"
                );
                continue;
            }
            ["pip", "install", "./crates/safeplan-py"] | ["python", "-c", ..] => {
                assert!(
                    CI.contains(".ci/python.sh")
                        && PYTHON_CI.contains("pip install")
                        && PYTHON_CI.contains("./crates/safeplan-py")
                        && PYTHON_CI.contains("import safeplan"),
                    ".ci/run must install the Python package as the README does"
                );
                continue;
            }
            // The C API's CMake package: .ci/capi.sh builds and installs it the same way.
            ["cmake", "-S", "crates/safeplan-capi", ..] | ["cmake", "--build", ..] => {
                assert!(
                    CI.contains(".ci/capi.sh")
                        && CAPI_CI.contains("cmake -S crates/safeplan-capi")
                        && CAPI_CI.contains("cmake --build")
                        && CAPI_CI.contains("cmake --install"),
                    ".ci/run must build and install the C API as the README does"
                );
                continue;
            }
            ["cargo", "test", "--workspace"] => {
                assert!(
                    CI.contains("cargo test --workspace"),
                    ".ci/run must run the tests"
                );
                continue;
            }
            _ => panic!("README command not understood by this test: {}", doc.line),
        };
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_safeplan"));
        cmd.args(&args)
            .current_dir(&work)
            .stdin(Stdio::null())
            .env_remove("OPENAI_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .env_remove("GOOGLE_API_KEY")
            .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
            .env("OLLAMA_HOST", server.uri())
            .env("GEMINI_BASE_URL", server.uri());
        for (k, v) in &env {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("run safeplan");
        assert_eq!(
            out.status.code(),
            Some(doc.exit),
            "README command `{}`\nstdout:\n{}\nstderr:\n{}",
            doc.line,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 12, "only {ran} README commands ran");
    // What the main job promises to write.
    assert!(work.join("bench-out/tasks.html").is_file());
    assert!(work.join("bench-out/tasks.db").is_file());
    let html = std::fs::read_to_string(work.join("bench-out/tasks.html")).expect("the report");
    assert!(
        html.matches("<svg").count() >= 2,
        "the HTML report has its charts"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn readme_commands_are_read_as_written() {
    let (env, words) = split(r#"KEY=v safeplan bench "cmd:a {domain} 'x y'" --out o.db"#);
    assert_eq!(env, [("KEY".to_string(), "v".to_string())]);
    assert_eq!(
        words,
        ["safeplan", "bench", "cmd:a {domain} 'x y'", "--out", "o.db"]
    );
    let docs = documented();
    assert!(
        docs.iter()
            .any(|d| d.exit == 1 && d.line.contains("unsafe.plan"))
    );
    assert!(
        docs.iter()
            .any(|d| d.line.contains("bench examples/tasks") && d.exit == 0)
    );
    let _ = Path::new(".");
}
