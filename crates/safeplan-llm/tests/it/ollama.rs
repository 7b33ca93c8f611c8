//! Ollama /api/chat: golden requests and documented responses.

use safeplan_llm::adapter::ollama;
use safeplan_llm::{ChatRequest, FinishReason, LlmError, ProviderKind, ResponseFormat, Usage};
use serde_json::json;

use crate::common::{config, fixture, headers};

#[test]
fn golden_request_with_every_option() {
    let cfg = config(
        ProviderKind::Ollama,
        "llama3.2",
        "http://localhost:11434",
        None,
    );
    let req = ChatRequest::user("Plan.")
        .with_system("You are a planner.")
        .with_temperature(0.0)
        .with_seed(42)
        .with_max_output_tokens(128)
        .with_response_format(ResponseFormat::JsonObject);
    let req = ChatRequest {
        stop: vec!["END".into()],
        ..req
    };
    let http = ollama::build(&cfg, &req).unwrap();
    assert_eq!(http.url, "http://localhost:11434/api/chat");
    assert!(http.header("authorization").is_none());
    assert_eq!(
        http.body,
        json!({
            "model": "llama3.2",
            "messages": [
                {"role": "system", "content": "You are a planner."},
                {"role": "user", "content": "Plan."}
            ],
            "stream": false,
            "format": "json",
            "options": {"temperature": 0.0, "seed": 42, "num_predict": 128, "stop": ["END"]}
        })
    );
}

#[test]
fn schema_format_and_minimal_request() {
    let cfg = config(
        ProviderKind::Ollama,
        "llama3.2",
        "http://localhost:11434",
        None,
    );
    let http = ollama::build(&cfg, &ChatRequest::user("hi")).unwrap();
    assert_eq!(
        http.body,
        json!({"model": "llama3.2", "messages": [{"role": "user", "content": "hi"}], "stream": false})
    );
    let schema =
        json!({"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]});
    let req = ChatRequest::user("hi").with_response_format(ResponseFormat::JsonSchema {
        name: "x".into(),
        schema: schema.clone(),
        strict: false,
    });
    assert_eq!(ollama::build(&cfg, &req).unwrap().body["format"], schema);
}

#[test]
fn parses_a_documented_response() {
    let r = ollama::parse(200, &headers(&[]), &fixture("ollama/success.json")).unwrap();
    assert_eq!(r.text, "(pick-up robot cup)");
    assert_eq!(r.finish_reason, FinishReason::Stop);
    assert_eq!(
        r.usage,
        Usage {
            input_tokens: 26,
            output_tokens: 298,
            ..Usage::default()
        }
    );
    assert_eq!(r.model.as_deref(), Some("llama3.2"));
    let r = ollama::parse(200, &headers(&[]), &fixture("ollama/length.json")).unwrap();
    assert_eq!(r.finish_reason, FinishReason::Length);
}

#[test]
fn model_not_found() {
    let e = ollama::parse(404, &headers(&[]), &fixture("ollama/error_not_found.json")).unwrap_err();
    match e {
        LlmError::UnknownModel {
            status: 404,
            message,
        } => {
            assert!(
                message.contains("model 'llama9' not found") && message.contains("ollama pull"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    let e = ollama::parse(
        500,
        &headers(&[]),
        br#"{"error":"llama runner process has terminated"}"#,
    )
    .unwrap_err();
    assert!(e.is_retryable());
}
