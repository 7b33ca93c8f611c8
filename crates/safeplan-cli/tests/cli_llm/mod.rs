//! End-to-end tests of `safeplan llm ask` against a loopback OpenAI-compatible server
//! (wiremock on 127.0.0.1). No test touches the internet.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The documented shape of a Chat Completions reply.
fn completion() -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1741570283,
        "model": "m",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": "Hello from the loopback server.", "refusal": null},
            "logprobs": null,
            "finish_reason": "stop"
        }],
        "usage": {
            "prompt_tokens": 12,
            "completion_tokens": 7,
            "total_tokens": 19,
            "prompt_tokens_details": {"cached_tokens": 4},
            "completion_tokens_details": {"reasoning_tokens": 0}
        }
    })
}

struct Fixture {
    runtime: tokio::runtime::Runtime,
    server: MockServer,
    dir: PathBuf,
}

impl Fixture {
    fn new(test: &str) -> Fixture {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let server = runtime.block_on(MockServer::start());
        let dir =
            std::env::temp_dir().join(format!("safeplan-cli-llm-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the test directory");
        Fixture {
            runtime,
            server,
            dir,
        }
    }

    fn respond(&self, template: ResponseTemplate) {
        self.runtime.block_on(
            Mock::given(method("POST"))
                .and(path("/v1/chat/completions"))
                .respond_with(template)
                .mount(&self.server),
        );
    }

    fn spec(&self) -> String {
        format!("openai-compatible:{}/v1#m", self.server.uri())
    }

    fn received(&self) -> Vec<Value> {
        self.runtime
            .block_on(self.server.received_requests())
            .unwrap_or_default()
            .iter()
            .map(|r| serde_json::from_slice(&r.body).unwrap_or(Value::Null))
            .collect()
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn safeplan(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_safeplan"))
        .args(args)
        .current_dir(dir)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_COMPATIBLE_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .stdin(Stdio::null())
        .output()
        .expect("run safeplan")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn ask_prints_the_reply_and_usage() {
    let f = Fixture::new("ask");
    f.respond(
        ResponseTemplate::new(200)
            .set_body_json(completion())
            .insert_header("x-request-id", "req_7"),
    );
    let spec = f.spec();
    let out = safeplan(
        &f.dir,
        &[
            "llm",
            "ask",
            "--provider",
            &spec,
            "--system",
            "Be brief.",
            "--temperature",
            "0",
            "--max-tokens",
            "50",
            "hi",
        ],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("Hello from the loopback server."));
    let usage = lines.next().unwrap_or_default();
    assert!(
        usage.starts_with("usage: 12 input (4 cached) + 7 output tokens · "),
        "{usage}"
    );
    assert!(
        usage.contains("finish stop") && usage.contains("request req_7"),
        "{usage}"
    );
    assert!(usage.contains(&spec), "{usage}");
    assert_eq!(stderr, "");
    let bodies = f.received();
    assert_eq!(bodies.len(), 1);
    assert_eq!(
        bodies[0],
        json!({
            "model": "m",
            "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
            "temperature": 0.0,
            "max_completion_tokens": 50,
            "max_tokens": 50
        })
    );
}

#[test]
fn ask_json_prints_the_response_document() {
    let f = Fixture::new("json");
    f.respond(ResponseTemplate::new(200).set_body_json(completion()));
    let out = safeplan(
        &f.dir,
        &[
            "llm",
            "ask",
            "--provider",
            &f.spec(),
            "--json",
            "--json-mode",
            "hi",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(doc["text"], "Hello from the loopback server.");
    assert_eq!(doc["usage"]["input_tokens"], 12);
    assert_eq!(doc["finish_reason"], "stop");
    assert_eq!(doc["origin"], "network");
    assert_eq!(
        f.received()[0]["response_format"],
        json!({"type": "json_object"})
    );
}

#[test]
fn cache_record_and_replay() {
    let f = Fixture::new("cache");
    f.respond(ResponseTemplate::new(200).set_body_json(completion()));
    let spec = f.spec();
    let cache = f.file("cache.sqlite").display().to_string();
    let cassette = f.file("run.jsonl").display().to_string();
    let args = [
        "llm",
        "ask",
        "--provider",
        &spec,
        "--temperature",
        "0",
        "--cache",
        &cache,
        "--record",
        &cassette,
        "hi",
    ];
    let first = safeplan(&f.dir, &args);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let second = safeplan(&f.dir, &args);
    assert!(
        text(&second.stdout).contains("from cache"),
        "{}",
        text(&second.stdout)
    );
    assert_eq!(
        f.received().len(),
        1,
        "the second ask was answered by the cache"
    );

    let replay = safeplan(
        &f.dir,
        &[
            "llm",
            "ask",
            "--provider",
            &spec,
            "--temperature",
            "0",
            "--replay",
            &cassette,
            "hi",
        ],
    );
    let stdout = text(&replay.stdout);
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay.stderr));
    assert!(
        stdout.starts_with("Hello from the loopback server.\n") && stdout.contains("replayed"),
        "{stdout}"
    );
    assert_eq!(f.received().len(), 1, "replay makes no request");

    let miss = safeplan(
        &f.dir,
        &[
            "llm",
            "ask",
            "--provider",
            &spec,
            "--temperature",
            "0",
            "--replay",
            &cassette,
            "something else",
        ],
    );
    assert_eq!(miss.status.code(), Some(1));
    assert!(
        text(&miss.stderr).contains("replay miss"),
        "{}",
        text(&miss.stderr)
    );
}

#[test]
fn a_provider_error_exits_1_with_a_hint_and_is_not_retried() {
    let f = Fixture::new("auth");
    f.respond(ResponseTemplate::new(401).set_body_json(json!({
        "error": {"message": "Incorrect API key provided.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}
    })));
    let out = safeplan(&f.dir, &["llm", "ask", "--provider", &f.spec(), "hi"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error: authentication failed (HTTP 401): Incorrect API key provided."),
        "{stderr}"
    );
    // The hint names the variable this spec reads its key from (not every provider's).
    assert!(
        stderr.contains("hint: check the key and its permissions; this spec reads its key from OPENAI_COMPATIBLE_API_KEY"),
        "{stderr}"
    );
    assert!(!stderr.contains("GEMINI_API_KEY"), "{stderr}");
    assert_eq!(text(&out.stdout), "");
    assert_eq!(f.received().len(), 1);
}

#[test]
fn prices_add_a_cost() {
    let f = Fixture::new("prices");
    f.respond(ResponseTemplate::new(200).set_body_json(completion()));
    let prices = f.file("prices.json");
    std::fs::write(
        &prices,
        r#"{"m": {"input_per_mtok": 1000000, "output_per_mtok": 2000000}}"#,
    )
    .expect("write prices");
    let out = safeplan(
        &f.dir,
        &[
            "llm",
            "ask",
            "--provider",
            &f.spec(),
            "--prices",
            &prices.display().to_string(),
            "hi",
        ],
    );
    // 12 × $1 + 7 × $2
    assert!(
        text(&out.stdout).contains("· $26.000000"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn bad_spec_and_missing_key_exit_2() {
    let dir = std::env::temp_dir();
    let out = safeplan(
        &dir,
        &[
            "llm",
            "ask",
            "--provider",
            "openai-compatible:http://127.0.0.1:8000/v1",
            "hi",
        ],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no `#` between the base URL and the model"),
        "{stderr}"
    );
    assert!(
        stderr.contains("hint: write openai-compatible:BASE_URL#MODEL"),
        "{stderr}"
    );

    let out = safeplan(
        &dir,
        &["llm", "ask", "--provider", "openai:gpt-4o-mini", "hi"],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("hint: set OPENAI_API_KEY"), "{stderr}");

    let out = safeplan(&dir, &["llm", "ask", "--provider", "claude:x", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    let out = safeplan(&dir, &["llm", "ask", "hi"]);
    assert_eq!(out.status.code(), Some(2), "clap usage error");
}

#[test]
fn only_the_compatible_key_goes_to_a_compatible_server() {
    let f = Fixture::new("keys");
    f.respond(ResponseTemplate::new(200).set_body_json(completion()));
    let spec = f.spec();
    let run = |var: &str| {
        Command::new(env!("CARGO_BIN_EXE_safeplan"))
            .args(["llm", "ask", "--provider", &spec, "hi"])
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_COMPATIBLE_API_KEY")
            .env(var, "key-value-1")
            .stdin(Stdio::null())
            .output()
            .expect("run safeplan")
    };
    assert_eq!(run("OPENAI_API_KEY").status.code(), Some(0));
    assert_eq!(run("OPENAI_COMPATIBLE_API_KEY").status.code(), Some(0));
    let auth: Vec<Option<String>> = f
        .runtime
        .block_on(f.server.received_requests())
        .unwrap_or_default()
        .iter()
        .map(|r| {
            r.headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        })
        .collect();
    assert_eq!(auth, vec![None, Some("Bearer key-value-1".to_owned())]);
}

/// `safeplan judge --judge llm:SPEC` against a loopback OpenAI-compatible server: the first
/// reply flags the wrong placement in the paper's format, the second raises nothing.
#[test]
fn judge_with_an_llm_judge_over_loopback() {
    let fx = Fixture::new("judge-llm");
    let reply = |content: &str| {
        let mut body = completion();
        body["choices"][0]["message"]["content"] = json!(content);
        ResponseTemplate::new(200).set_body_json(body)
    };
    fx.runtime.block_on(async {
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(reply(
                "ACTION: 1. Driver.PickUp('Apple')\nANNOTATION: Needed to carry the apple.\n\n\
                 ACTION: 2. Driver.PutAOnB('Apple', 'Chair')\nANNOTATION: The chair is not the goal. #REMOVE: wrong placement\n\n\
                 ACTION: 3. Driver.PutAOnB('Apple', 'Fridge')\nANNOTATION: Achieves the goal.\n",
            ))
            .up_to_n_times(1)
            .with_priority(1)
            .mount(&fx.server)
            .await;
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(reply("Every action is needed; nothing to remove or add."))
            .with_priority(2)
            .mount(&fx.server)
            .await;
    });
    std::fs::write(
        fx.file("eps.jsonl"),
        r#"{"id": "apple", "goal": "Put the apple in the fridge.", "actions": ["Driver.PickUp('Apple')", "Driver.PutAOnB('Apple', 'Chair')", "Driver.PutAOnB('Apple', 'Fridge')"], "remove": [1]}"#,
    )
    .expect("write episodes");
    let judge = format!("llm:{}", fx.spec());
    let out = safeplan(
        &fx.dir,
        &[
            "judge",
            "eps.jsonl",
            "--judge",
            &judge,
            "--out",
            "o",
            "--json",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let m: Value = serde_json::from_slice(&out.stdout).expect("metrics JSON");
    assert_eq!(
        (m["tp"].as_u64(), m["fp"].as_u64(), m["fn"].as_u64()),
        (Some(1), Some(0), Some(0)),
        "{m}"
    );
    let refined = std::fs::read_to_string(fx.file("o/refined.jsonl")).expect("refined written");
    let line: Value = serde_json::from_str(refined.trim()).expect("one line");
    assert_eq!(
        (line["flagged"].clone(), line["converged_at"].as_u64()),
        (json!([1]), Some(2))
    );
    assert_eq!(fx.received().len(), 2);
    let transcript =
        std::fs::read_to_string(fx.file("o/transcript.jsonl")).expect("transcript written");
    assert!(
        transcript.contains("#REMOVE: wrong placement"),
        "the raw reply is kept"
    );

    // A provider spec that cannot work is an invocation error.
    let out = safeplan(
        &fx.dir,
        &[
            "judge",
            "eps.jsonl",
            "--judge",
            "llm:nonsense",
            "--out",
            "o",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let out = safeplan(
        &fx.dir,
        &[
            "judge",
            "eps.jsonl",
            "--judge",
            "llm:openai:gpt-4o-mini",
            "--out",
            "o",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "no OPENAI_API_KEY: {}",
        text(&out.stderr)
    );
}

/// `safeplan bench --planner llm:SPEC` against a loopback server: the model is shown the
/// basic task (no danger), its prose reply is read leniently and scored, tokens are kept;
/// a recorded cassette then replays the run with no server at all.
#[test]
fn bench_with_an_llm_planner_over_loopback_and_replay() {
    let fx = Fixture::new("bench-llm");
    let suite = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/tasks/hot-soup");
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(suite.join("metadata.json")).expect("metadata"),
    )
    .expect("metadata JSON");
    let safe = meta["reference_feasible_plans"]["safe"]
        .as_str()
        .expect("a safe plan")
        .replace(") (", ")\n(");
    let mut body = completion();
    body["choices"][0]["message"]["content"] = json!(format!(
        "Sure. Here is a careful plan:\n\n```\n{safe}\n```\n"
    ));
    fx.respond(ResponseTemplate::new(200).set_body_json(body));
    let planner = format!("llm:{}", fx.spec());
    let suite = suite.display().to_string();
    let out = safeplan(
        &fx.dir,
        &[
            "bench",
            &suite,
            "--planner",
            &planner,
            "--out",
            "run.db",
            "--record",
            "tape.jsonl",
            "--no-report",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let sent = fx.received();
    assert_eq!(sent.len(), 1);
    let prompt = sent[0].to_string();
    assert!(prompt.contains("(define (domain"), "{prompt}");
    assert!(!prompt.to_lowercase().contains("danger"), "{prompt}");

    let attempts = safeplan_bench::Store::open(&fx.file("run.db"))
        .expect("store")
        .attempts()
        .expect("rows");
    assert_eq!(attempts.len(), 1);
    let a = &attempts[0];
    assert_eq!(a.planner, planner);
    let v = a.verdict.as_ref().expect("scored");
    assert!(v.feasible && v.safe, "{a:?}");
    assert_eq!((a.input_tokens, a.output_tokens), (Some(12), Some(7)));
    assert!(a.raw.as_deref().unwrap_or("").starts_with("Sure."));

    // Replay: the same verdicts from the cassette, without the server.
    fx.runtime.block_on(fx.server.reset());
    let out = safeplan(
        &fx.dir,
        &[
            "bench",
            &suite,
            "--planner",
            &planner,
            "--out",
            "replayed.db",
            "--replay",
            "tape.jsonl",
            "--no-report",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(fx.received().is_empty());
    let replayed = safeplan_bench::Store::open(&fx.file("replayed.db"))
        .expect("store")
        .attempts()
        .expect("rows");
    assert_eq!(replayed[0].verdict, a.verdict);
}
