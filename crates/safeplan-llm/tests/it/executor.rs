//! The executor over loopback HTTP (wiremock): what goes on the wire, what comes back.

use std::sync::Arc;
use std::time::Duration;

use safeplan_llm::{
    ChatRequest, FinishReason, HttpClient, HttpOptions, HttpProvider, LlmError, LlmProvider,
    ProviderKind,
};
use serde_json::{Value, json};
use wiremock::matchers::{body_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::common::{config, fixture};

pub fn provider(
    kind: ProviderKind,
    model: &str,
    base: &str,
    key: Option<&str>,
    options: &HttpOptions,
) -> Arc<dyn LlmProvider> {
    Arc::new(HttpProvider::new(
        config(kind, model, base, key),
        HttpClient::new(options).unwrap(),
    ))
}

pub fn openai_at(server: &MockServer, key: Option<&str>) -> Arc<dyn LlmProvider> {
    provider(
        ProviderKind::OpenAi,
        "gpt-4o-mini",
        &format!("{}/v1", server.uri()),
        key,
        &HttpOptions::default(),
    )
}

pub fn openai_ok() -> ResponseTemplate {
    ResponseTemplate::new(200)
        .set_body_raw(fixture("openai/success.json"), "application/json")
        .insert_header("x-request-id", "req_abc")
}

#[tokio::test]
async fn openai_round_trip() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-test"))
        .and(header("content-type", "application/json"))
        .and(body_json(json!({
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "hi"}],
            "temperature": 0.0
        })))
        .respond_with(openai_ok())
        .expect(1)
        .mount(&server)
        .await;
    let p = openai_at(&server, Some("sk-test"));
    assert_eq!(p.id(), "openai:gpt-4o-mini");
    let r = p
        .chat(&ChatRequest::user("hi").with_temperature(0.0))
        .await
        .unwrap();
    assert_eq!(r.text, "(pick-up robot cup)\n(move robot kitchen table)");
    assert_eq!(r.request_id.as_deref(), Some("req_abc"));
    assert_eq!(r.usage.input_tokens, 1117);
}

#[tokio::test]
async fn gemini_round_trip() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1beta/models/gemini-2.5-flash:generateContent"))
        .and(header("x-goog-api-key", "AIza-test"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(fixture("gemini/success.json"), "application/json"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let p = provider(
        ProviderKind::Gemini,
        "gemini-2.5-flash",
        &server.uri(),
        Some("AIza-test"),
        &HttpOptions::default(),
    );
    let r = p.chat(&ChatRequest::user("hi")).await.unwrap();
    assert_eq!(r.finish_reason, FinishReason::Stop);
    assert_eq!(r.usage.reasoning_tokens, 20);
    let received = server.received_requests().await.unwrap();
    assert!(!received[0].url.as_str().contains("key="));
}

#[tokio::test]
async fn ollama_round_trip() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/chat"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(fixture("ollama/success.json"), "application/json"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let p = provider(
        ProviderKind::Ollama,
        "llama3.2",
        &server.uri(),
        None,
        &HttpOptions::default(),
    );
    let r = p.chat(&ChatRequest::user("hi").with_seed(1)).await.unwrap();
    assert_eq!(r.usage.output_tokens, 298);
    let received = server.received_requests().await.unwrap();
    let body: Value = serde_json::from_slice(&received[0].body).unwrap();
    assert_eq!(body["stream"], json!(false));
    assert!(received[0].headers.get("authorization").is_none());
}

#[tokio::test]
async fn malformed_json_is_malformed() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw("<html><body>Welcome to nginx</body></html>", "text/html"),
        )
        .mount(&server)
        .await;
    let e = openai_at(&server, None)
        .chat(&ChatRequest::user("hi"))
        .await
        .unwrap_err();
    match e {
        LlmError::Malformed {
            message,
            body_prefix,
        } => {
            assert!(message.contains("not valid JSON"), "{message}");
            assert!(body_prefix.contains("Welcome to nginx"));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn truncated_body_is_malformed() {
    let server = MockServer::start().await;
    let full = fixture("openai/success.json");
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(full[..full.len() / 2].to_vec(), "application/json"),
        )
        .mount(&server)
        .await;
    let e = openai_at(&server, None)
        .chat(&ChatRequest::user("hi"))
        .await
        .unwrap_err();
    assert!(
        matches!(e, LlmError::Malformed { ref message, .. } if message.contains("cut short")),
        "{e:?}"
    );
    assert!(!e.is_retryable());
}

#[tokio::test]
async fn client_timeout_is_a_timeout() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(openai_ok().set_delay(Duration::from_millis(800)))
        .mount(&server)
        .await;
    let options = HttpOptions {
        request_timeout: Duration::from_millis(150),
        ..HttpOptions::default()
    };
    let p = provider(
        ProviderKind::OpenAi,
        "gpt-4o-mini",
        &format!("{}/v1", server.uri()),
        None,
        &options,
    );
    let e = p.chat(&ChatRequest::user("hi")).await.unwrap_err();
    assert!(
        matches!(e, LlmError::Timeout { .. }) && e.is_retryable(),
        "{e:?}"
    );
}

#[tokio::test]
async fn refused_connection_is_transport() {
    // Bind a port, then free it: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let p = provider(
        ProviderKind::Ollama,
        "m",
        &format!("http://127.0.0.1:{port}"),
        None,
        &HttpOptions::default(),
    );
    let e = p.chat(&ChatRequest::user("hi")).await.unwrap_err();
    assert!(
        matches!(e, LlmError::Transport { .. }) && e.is_retryable(),
        "{e:?}"
    );
}

#[tokio::test]
async fn an_endless_body_is_cut_off() {
    let server = MockServer::start().await;
    let huge = vec![b' '; safeplan_llm::MAX_BODY_BYTES + 1];
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(huge, "application/json"))
        .mount(&server)
        .await;
    let e = openai_at(&server, None)
        .chat(&ChatRequest::user("hi"))
        .await
        .unwrap_err();
    assert!(
        matches!(e, LlmError::Malformed { ref message, .. } if message.contains("larger than")),
        "{e:?}"
    );
}
