//! The key never leaks: run the whole stack with a sentinel key, capture every output, grep.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use safeplan_llm::{
    CacheConfig, CassetteConfig, CassetteMode, ChatRequest, Limits, LlmError, ProviderSpec,
    RetryPolicy, Stack,
};
use wiremock::matchers::{body_string_contains, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::common::{TempDir, fixture};
use crate::executor::openai_ok;

const SENTINEL: &str = "sk-SENTINEL-7f3a9c1e5b2d4a6f0e8d";

/// A tracing writer into a shared buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_key_appears_in_no_log_cache_cassette_or_debug_output() {
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = MockServer::start().await;
    // A server that echoes the key in its error, as OpenAI's 401 does (masked there; whole here).
    Mock::given(method("POST"))
        .and(body_string_contains("leak?"))
        .respond_with(ResponseTemplate::new(401).set_body_json(serde_json::json!({
            "error": {"message": format!("Incorrect API key provided: {SENTINEL}."), "type": "invalid_request_error", "code": "invalid_api_key"}
        })))
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(500)
                .set_body_raw(fixture("openai/error_server.json"), "application/json"),
        )
        .up_to_n_times(1)
        .with_priority(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header(
            "authorization",
            format!("Bearer {SENTINEL}").as_str(),
        ))
        .respond_with(openai_ok())
        .with_priority(3)
        .mount(&server)
        .await;

    let dir = TempDir::new("sentinel");
    let stack = Stack {
        retry: Some(RetryPolicy {
            max_attempts: 3,
            base: Duration::from_millis(1),
            cap: Duration::from_secs(1),
        }),
        limits: Limits {
            max_concurrent: Some(2),
            requests_per_minute: Some(600),
            tokens_per_minute: Some(10_000_000),
        },
        timeout: Some(Duration::from_secs(10)),
        cache: Some(CacheConfig {
            path: dir.join("cache.sqlite"),
            bypass: false,
        }),
        cassette: Some(CassetteConfig {
            mode: CassetteMode::Record,
            path: dir.join("cassette.jsonl"),
        }),
        ..Stack::default()
    };
    let base = format!("{}/v1", server.uri());
    let env = |name: &str| match name {
        "OPENAI_API_KEY" => Some(SENTINEL.to_owned()),
        "OPENAI_BASE_URL" => Some(base.clone()),
        _ => None,
    };
    let spec: ProviderSpec = "openai:gpt-4o-mini".parse().unwrap();
    let built = stack.build(&spec, &env).unwrap();

    let req = ChatRequest::user("Plan the task.")
        .with_temperature(0.0)
        .with_system("You plan.");
    let first = built.provider.chat(&req).await.unwrap(); // 500, retried, then 200 (recorded, cached)
    let second = built.provider.chat(&req).await.unwrap(); // cache hit
    let err = built
        .provider
        .chat(&ChatRequest::user("leak?").with_temperature(0.0))
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Auth { .. }), "{err:?}");

    // The key really was in play: the server saw it, so a leak had every chance to happen.
    let seen = server.received_requests().await.unwrap();
    assert!(seen.iter().any(
        |r| r.headers.get("authorization").and_then(|v| v.to_str().ok())
            == Some(&format!("Bearer {SENTINEL}"))
    ));

    let resolved = spec.resolve(&env).unwrap();
    let http = safeplan_llm::adapter::build(&resolved, &req).unwrap();
    let mut shown = vec![
        format!("{spec:?}"),
        format!("{resolved:?}"),
        format!("{http:?}"),
        format!("{stack:?}"),
        format!("{first:?} {second:?}"),
        format!("{err:?}"),
        err.to_string(),
        format!("{:?}", built.usage.totals()),
    ];
    let log_text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(log_text.contains("TRACE"), "trace-level logs were captured");
    assert!(log_text.contains("retrying"), "the retry was logged");
    assert!(log_text.contains("cache hit"), "the cache hit was logged");
    assert!(
        log_text.contains("authorization"),
        "the request headers were logged (redacted)"
    );
    assert!(
        log_text.contains("Incorrect API key provided"),
        "the error body was logged (scrubbed)"
    );
    shown.push(log_text);
    for (i, text) in shown.iter().enumerate() {
        assert!(
            !text.contains(SENTINEL),
            "output {i} leaks the key:\n{text}"
        );
        assert!(
            !text.contains("SENTINEL"),
            "output {i} leaks part of the key:\n{text}"
        );
    }
    // Every file the run wrote (the cache and its WAL, the cassette), as bytes.
    let mut files = 0;
    for entry in std::fs::read_dir(&dir.0).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        files += 1;
        assert!(
            !bytes
                .windows(SENTINEL.len())
                .any(|w| w == SENTINEL.as_bytes()),
            "{} holds the key",
            path.display()
        );
        assert!(
            !bytes.windows(8).any(|w| w == b"SENTINEL"),
            "{} holds part of the key",
            path.display()
        );
    }
    assert!(files >= 2, "the cache and the cassette were written");
    let cassette = std::fs::read_to_string(dir.join("cassette.jsonl")).unwrap();
    assert!(
        cassette.contains("Plan the task."),
        "the cassette holds the request"
    );
}

#[tokio::test]
async fn the_gemini_key_appears_in_no_log_cache_or_cassette() {
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1beta/models/gemini-2.5-flash:generateContent"))
        .and(header("x-goog-api-key", SENTINEL))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(fixture("gemini/success.json"), "application/json"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let dir = TempDir::new("sentinel-gemini");
    let stack = Stack {
        cache: Some(CacheConfig {
            path: dir.join("cache.sqlite"),
            bypass: false,
        }),
        cassette: Some(CassetteConfig {
            mode: CassetteMode::Record,
            path: dir.join("cassette.jsonl"),
        }),
        ..Stack::default()
    };
    let origin = server.uri();
    let env = |name: &str| match name {
        "GEMINI_API_KEY" => Some(SENTINEL.to_owned()),
        "GEMINI_BASE_URL" => Some(origin.clone()),
        _ => None,
    };
    let spec: ProviderSpec = "gemini:gemini-2.5-flash".parse().unwrap();
    let built = stack.build(&spec, &env).unwrap();
    let req = ChatRequest::user("Plan.").with_temperature(0.0);
    built.provider.chat(&req).await.unwrap();
    built.provider.chat(&req).await.unwrap(); // from the cache
    server.verify().await;

    let log_text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(
        log_text.contains("x-goog-api-key"),
        "headers were logged, redacted"
    );
    assert!(!log_text.contains("SENTINEL"), "{log_text}");
    assert!(!log_text.contains("key="), "the key is never in a URL");
    for entry in std::fs::read_dir(&dir.0).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            !bytes.windows(8).any(|w| w == b"SENTINEL"),
            "{} holds the key",
            path.display()
        );
    }
}
