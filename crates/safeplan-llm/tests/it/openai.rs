//! OpenAI Chat Completions: golden requests and documented responses.

use std::time::Duration;

use safeplan_llm::adapter::{HeaderValue, openai};
use safeplan_llm::{
    ChatRequest, FinishReason, LlmError, Message, ProviderKind, ResponseFormat, Usage,
};
use serde_json::json;

use crate::common::{config, fixture, headers};

#[test]
fn golden_request_with_every_option() {
    let cfg = config(
        ProviderKind::OpenAi,
        "gpt-4o-mini",
        "https://api.openai.com/v1",
        Some("sk-test"),
    );
    let req = ChatRequest {
        system: Some("You are a planner.".into()),
        messages: vec![
            Message::user("Plan."),
            Message::assistant("(a)"),
            Message::user("Again."),
        ],
        temperature: Some(0.0),
        max_output_tokens: Some(256),
        seed: Some(7),
        stop: vec!["END".into()],
        response_format: ResponseFormat::JsonObject,
        sample_id: Some("s1".into()),
    };
    let http = openai::build(&cfg, &req).unwrap();
    assert_eq!(http.url, "https://api.openai.com/v1/chat/completions");
    assert_eq!(
        http.header("content-type").unwrap().wire(),
        "application/json"
    );
    assert_eq!(
        http.header("authorization").unwrap().wire(),
        "Bearer sk-test"
    );
    // Written from the API reference: sample_id is ours and is never sent.
    assert_eq!(
        http.body,
        json!({
            "model": "gpt-4o-mini",
            "messages": [
                {"role": "system", "content": "You are a planner."},
                {"role": "user", "content": "Plan."},
                {"role": "assistant", "content": "(a)"},
                {"role": "user", "content": "Again."}
            ],
            "temperature": 0.0,
            "max_completion_tokens": 256,
            "seed": 7,
            "stop": ["END"],
            "response_format": {"type": "json_object"}
        })
    );
}

#[test]
fn minimal_request_has_only_model_and_messages() {
    let cfg = config(
        ProviderKind::OpenAi,
        "gpt-4o-mini",
        "https://api.openai.com/v1",
        Some("k"),
    );
    let http = openai::build(&cfg, &ChatRequest::user("hi")).unwrap();
    assert_eq!(
        http.body,
        json!({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]})
    );
}

#[test]
fn json_schema_format() {
    let cfg = config(
        ProviderKind::OpenAi,
        "gpt-4o-mini",
        "https://api.openai.com/v1",
        Some("k"),
    );
    let schema = json!({"type": "object", "properties": {"plan": {"type": "array", "items": {"type": "string"}}}, "required": ["plan"], "additionalProperties": false});
    let req = ChatRequest::user("hi").with_response_format(ResponseFormat::JsonSchema {
        name: "plan".into(),
        schema: schema.clone(),
        strict: true,
    });
    let http = openai::build(&cfg, &req).unwrap();
    assert_eq!(
        http.body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "plan", "schema": schema, "strict": true}})
    );
}

#[test]
fn reasoning_models_get_no_temperature() {
    for model in ["o1", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini"] {
        let cfg = config(
            ProviderKind::OpenAi,
            model,
            "https://api.openai.com/v1",
            Some("k"),
        );
        let http = openai::build(&cfg, &ChatRequest::user("hi").with_temperature(0.0)).unwrap();
        assert!(http.body.get("temperature").is_none(), "{model}");
    }
    for model in [
        "gpt-4o-mini",
        "gpt-4.1",
        "gpt-5-chat-latest",
        "omni-moderation",
    ] {
        let cfg = config(
            ProviderKind::OpenAi,
            model,
            "https://api.openai.com/v1",
            Some("k"),
        );
        let http = openai::build(&cfg, &ChatRequest::user("hi").with_temperature(0.0)).unwrap();
        assert_eq!(http.body["temperature"], json!(0.0), "{model}");
    }
    // An explicit setting wins over the name rule.
    let mut cfg = config(
        ProviderKind::OpenAi,
        "o3",
        "https://api.openai.com/v1",
        Some("k"),
    );
    cfg.send_temperature = Some(true);
    let http = openai::build(&cfg, &ChatRequest::user("hi").with_temperature(0.5)).unwrap();
    assert_eq!(http.body["temperature"], json!(0.5));
}

#[test]
fn compatible_server_without_key_gets_no_authorization_and_both_limits() {
    let cfg = config(
        ProviderKind::OpenAiCompatible,
        "qwen",
        "http://127.0.0.1:8000/v1",
        None,
    );
    let http = openai::build(&cfg, &ChatRequest::user("hi").with_max_output_tokens(64)).unwrap();
    assert_eq!(http.url, "http://127.0.0.1:8000/v1/chat/completions");
    assert!(http.header("authorization").is_none());
    assert_eq!(http.body["max_completion_tokens"], json!(64));
    assert_eq!(http.body["max_tokens"], json!(64));
}

#[test]
fn debug_of_a_request_hides_the_key() {
    let cfg = config(
        ProviderKind::OpenAi,
        "gpt-4o-mini",
        "https://api.openai.com/v1",
        Some("sk-very-secret"),
    );
    let http = openai::build(&cfg, &ChatRequest::user("hi")).unwrap();
    let shown = format!("{http:?} {cfg:?}");
    assert!(!shown.contains("sk-very-secret"), "{shown}");
    assert!(shown.contains("Bearer ***"));
    assert!(matches!(
        http.header("authorization"),
        Some(HeaderValue::Bearer(_))
    ));
}

#[test]
fn parses_a_documented_completion() {
    let r = openai::parse(
        200,
        &headers(&[("x-request-id", "req_123")]),
        &fixture("openai/success.json"),
    )
    .unwrap();
    assert_eq!(r.text, "(pick-up robot cup)\n(move robot kitchen table)");
    assert_eq!(r.finish_reason, FinishReason::Stop);
    assert_eq!(
        r.usage,
        Usage {
            input_tokens: 1117,
            output_tokens: 46,
            cached_tokens: 1024,
            reasoning_tokens: 10
        }
    );
    assert_eq!(r.request_id.as_deref(), Some("req_123"));
    assert_eq!(r.model.as_deref(), Some("gpt-4o-mini-2024-07-18"));
}

#[test]
fn request_id_falls_back_to_the_completion_id() {
    let r = openai::parse(200, &headers(&[]), &fixture("openai/success.json")).unwrap();
    assert_eq!(
        r.request_id.as_deref(),
        Some("chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG")
    );
}

#[test]
fn length_finish() {
    let r = openai::parse(200, &headers(&[]), &fixture("openai/length.json")).unwrap();
    assert_eq!(r.finish_reason, FinishReason::Length);
    assert_eq!(r.text, "(move robot");
    assert_eq!(r.usage.cached_tokens, 0);
}

#[test]
fn content_filter_and_refusal() {
    let e = openai::parse(200, &headers(&[]), &fixture("openai/content_filter.json")).unwrap_err();
    assert!(matches!(e, LlmError::ContentFiltered { .. }), "{e:?}");
    let e = openai::parse(200, &headers(&[]), &fixture("openai/refusal.json")).unwrap_err();
    match e {
        LlmError::ContentFiltered { message } => assert!(message.contains("cannot assist")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn error_bodies_map_to_variants() {
    let e = openai::parse(
        429,
        &headers(&[]),
        &fixture("openai/error_insufficient_quota.json"),
    )
    .unwrap_err();
    assert!(matches!(e, LlmError::QuotaExhausted { .. }), "{e:?}");
    assert!(!e.is_retryable());

    let e = openai::parse(
        429,
        &headers(&[("retry-after", "20")]),
        &fixture("openai/error_rate_limit.json"),
    )
    .unwrap_err();
    assert_eq!(e.retry_after(), Some(Duration::from_secs(20)));
    assert!(
        matches!(e, LlmError::RateLimited { .. }) && e.is_retryable(),
        "{e:?}"
    );

    let e = openai::parse(
        429,
        &headers(&[("retry-after-ms", "1500"), ("retry-after", "2")]),
        &fixture("openai/error_rate_limit.json"),
    )
    .unwrap_err();
    assert_eq!(e.retry_after(), Some(Duration::from_millis(1500)));

    let e = openai::parse(
        401,
        &headers(&[]),
        &fixture("openai/error_invalid_api_key.json"),
    )
    .unwrap_err();
    assert!(
        matches!(e, LlmError::Auth { status: 401, .. }) && !e.is_retryable(),
        "{e:?}"
    );

    let e = openai::parse(
        400,
        &headers(&[]),
        &fixture("openai/error_context_length.json"),
    )
    .unwrap_err();
    match &e {
        LlmError::InvalidRequest {
            status: 400,
            message,
        } => {
            assert!(message.contains("maximum context length"))
        }
        other => panic!("{other:?}"),
    }
    assert!(!e.is_retryable());

    for status in [500, 502, 503, 529] {
        let e =
            openai::parse(status, &headers(&[]), &fixture("openai/error_server.json")).unwrap_err();
        assert!(
            matches!(e, LlmError::Server { .. }) && e.is_retryable(),
            "{status}: {e:?}"
        );
    }
    let e = openai::parse(404, &headers(&[]), br#"{"error": "model 'x' not found"}"#).unwrap_err();
    assert_eq!(
        e,
        LlmError::UnknownModel {
            status: 404,
            message: "model 'x' not found".into()
        }
    );
    let e = openai::parse(502, &headers(&[]), b"<html>Bad Gateway</html>").unwrap_err();
    assert!(
        matches!(e, LlmError::Server { status: 502, ref message, .. } if message.contains("Bad Gateway"))
    );
}

#[test]
fn malformed_success_bodies() {
    let e = openai::parse(200, &headers(&[]), b"{\"id\":\"x\",\"choices\":[{\"mess").unwrap_err();
    match e {
        LlmError::Malformed {
            message,
            body_prefix,
        } => {
            assert!(message.contains("cut short"), "{message}");
            assert!(body_prefix.starts_with("{\"id\""));
        }
        other => panic!("{other:?}"),
    }
    let e = openai::parse(200, &headers(&[]), br#"{"id":"x","choices":[]}"#).unwrap_err();
    assert!(matches!(e, LlmError::Malformed { .. }));
    let e = openai::parse(200, &headers(&[]), b"").unwrap_err();
    assert!(matches!(e, LlmError::Malformed { ref message, .. } if message == "empty body"));
}

#[test]
fn what_no_retry_can_fix_is_fatal() {
    // OpenAI's unknown model; LiteLLM's; a 404 naming the model; a 404 on a wrong path.
    let openai_unknown = br#"{"error":{"message":"The model `gpt-5o` does not exist","type":"invalid_request_error","code":"model_not_found"}}"#;
    let e = openai::parse(404, &headers(&[]), openai_unknown).unwrap_err();
    assert!(
        matches!(e, LlmError::UnknownModel { status: 404, .. }),
        "{e:?}"
    );
    let litellm = br#"{"error":{"message":"Invalid model name passed in model=gpt-5o. Call `/v1/models` to view available models for your key.","type":"invalid_request_error","param":"model","code":"400"}}"#;
    let e = openai::parse(400, &headers(&[]), litellm).unwrap_err();
    assert!(
        matches!(e, LlmError::UnknownModel { status: 400, .. }),
        "{e:?}"
    );
    let wrong_path = b"<html><body>404 Not Found</body></html>";
    let e = openai::parse(404, &headers(&[]), wrong_path).unwrap_err();
    assert!(
        matches!(e, LlmError::InvalidRequest { status: 404, .. }),
        "{e:?}"
    );
    assert!(e.is_fatal());
    // LiteLLM's exhausted budget is a quota, not a bad request.
    let budget = br#"{"error":{"message":"Budget has been exceeded! Current cost: 1.2, Max budget: 1.0","type":"budget_exceeded","code":"400"}}"#;
    let e = openai::parse(400, &headers(&[]), budget).unwrap_err();
    assert!(matches!(e, LlmError::QuotaExhausted { .. }), "{e:?}");
    // Fatal: auth, quota, unknown model, garbage, configuration. Not fatal: a rate limit, a
    // server error, a context that is too long.
    let fatal = |e: LlmError| e.is_fatal();
    assert!(fatal(LlmError::Auth {
        status: 401,
        message: String::new()
    }));
    assert!(fatal(LlmError::QuotaExhausted {
        message: String::new()
    }));
    assert!(!fatal(LlmError::RateLimited {
        retry_after: None,
        message: String::new()
    }));
    assert!(!fatal(LlmError::Server {
        status: 503,
        retry_after: None,
        message: String::new()
    }));
    assert!(!fatal(LlmError::InvalidRequest {
        status: 400,
        message: "context too long".into()
    }));
}
