//! Gemini generateContent: golden requests and documented responses.

use std::time::Duration;

use safeplan_llm::adapter::gemini;
use safeplan_llm::{
    ChatRequest, FinishReason, LlmError, Message, ProviderKind, ResponseFormat, Usage,
};
use serde_json::json;

use crate::common::{config, fixture, headers};

const BASE: &str = "https://generativelanguage.googleapis.com";

#[test]
fn golden_request_with_every_option() {
    let cfg = config(
        ProviderKind::Gemini,
        "gemini-2.5-flash",
        BASE,
        Some("AIza-test"),
    );
    let schema = json!({"type": "object", "properties": {"plan": {"type": "string"}}});
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
        response_format: ResponseFormat::JsonSchema {
            name: "p".into(),
            schema: schema.clone(),
            strict: true,
        },
        sample_id: None,
    };
    let http = gemini::build(&cfg, &req).unwrap();
    assert_eq!(
        http.url,
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    );
    assert_eq!(http.header("x-goog-api-key").unwrap().wire(), "AIza-test");
    assert!(http.header("authorization").is_none());
    assert!(!http.url.contains("key="));
    assert_eq!(
        http.body,
        json!({
            "contents": [
                {"role": "user", "parts": [{"text": "Plan."}]},
                {"role": "model", "parts": [{"text": "(a)"}]},
                {"role": "user", "parts": [{"text": "Again."}]}
            ],
            "systemInstruction": {"parts": [{"text": "You are a planner."}]},
            "generationConfig": {
                "temperature": 0.0,
                "maxOutputTokens": 256,
                "seed": 7,
                "stopSequences": ["END"],
                "responseMimeType": "application/json",
                "responseJsonSchema": schema
            }
        })
    );
}

#[test]
fn minimal_request_and_json_mode() {
    let cfg = config(
        ProviderKind::Gemini,
        "models/gemini-2.5-pro",
        BASE,
        Some("k"),
    );
    let http = gemini::build(&cfg, &ChatRequest::user("hi")).unwrap();
    assert_eq!(
        http.url,
        format!("{BASE}/v1beta/models/gemini-2.5-pro:generateContent")
    );
    assert_eq!(
        http.body,
        json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
    );
    let http = gemini::build(
        &cfg,
        &ChatRequest::user("hi").with_response_format(ResponseFormat::JsonObject),
    )
    .unwrap();
    assert_eq!(
        http.body["generationConfig"],
        json!({"responseMimeType": "application/json"})
    );
}

#[test]
fn bad_model_names_and_seeds_are_rejected_before_sending() {
    let cfg = config(ProviderKind::Gemini, "../x?key=1", BASE, Some("k"));
    assert!(matches!(
        gemini::build(&cfg, &ChatRequest::user("hi")),
        Err(LlmError::InvalidRequest { status: 0, .. })
    ));
    let cfg = config(ProviderKind::Gemini, "gemini-2.5-flash", BASE, Some("k"));
    let req = ChatRequest::user("hi").with_seed(u64::from(u32::MAX));
    assert!(matches!(
        gemini::build(&cfg, &req),
        Err(LlmError::InvalidRequest { .. })
    ));
}

#[test]
fn parses_a_documented_response_without_thoughts() {
    let r = gemini::parse(200, &headers(&[]), &fixture("gemini/success.json")).unwrap();
    assert_eq!(r.text, "(pick-up robot cup)\n(move robot kitchen table)");
    assert_eq!(r.finish_reason, FinishReason::Stop);
    // Output = candidates (12) + thoughts (20).
    assert_eq!(
        r.usage,
        Usage {
            input_tokens: 8,
            output_tokens: 32,
            cached_tokens: 4,
            reasoning_tokens: 20
        }
    );
    assert_eq!(r.request_id.as_deref(), Some("mAitaLmkHPPlz7IPvtfUqQ4"));
    assert_eq!(r.model.as_deref(), Some("gemini-2.5-flash"));
}

#[test]
fn candidates_without_parts_are_clear_errors() {
    let e = gemini::parse(
        200,
        &headers(&[]),
        &fixture("gemini/max_tokens_no_parts.json"),
    )
    .unwrap_err();
    match e {
        LlmError::Malformed { message, .. } => {
            assert!(message.contains("without content parts"), "{message}");
            assert!(
                message.contains("MAX_TOKENS") && message.contains("raise max output tokens"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    let e = gemini::parse(200, &headers(&[]), &fixture("gemini/safety.json")).unwrap_err();
    assert_eq!(
        e,
        LlmError::ContentFiltered {
            message: "finishReason SAFETY".into()
        }
    );
    let e = gemini::parse(200, &headers(&[]), &fixture("gemini/prompt_blocked.json")).unwrap_err();
    assert_eq!(
        e,
        LlmError::ContentFiltered {
            message: "prompt blocked: SAFETY".into()
        }
    );
}

#[test]
fn error_bodies_map_to_variants() {
    let e = gemini::parse(
        429,
        &headers(&[]),
        &fixture("gemini/error_rate_limited.json"),
    )
    .unwrap_err();
    assert!(matches!(e, LlmError::RateLimited { .. }), "{e:?}");
    assert_eq!(e.retry_after(), Some(Duration::from_secs(37)));

    let e = gemini::parse(429, &headers(&[]), &fixture("gemini/error_per_day.json")).unwrap_err();
    assert!(
        matches!(e, LlmError::QuotaExhausted { .. }) && !e.is_retryable(),
        "{e:?}"
    );

    let e = gemini::parse(
        400,
        &headers(&[]),
        &fixture("gemini/error_api_key_invalid.json"),
    )
    .unwrap_err();
    assert!(matches!(e, LlmError::Auth { status: 400, .. }), "{e:?}");

    let e = gemini::parse(
        400,
        &headers(&[]),
        &fixture("gemini/error_invalid_argument.json"),
    )
    .unwrap_err();
    assert!(
        matches!(e, LlmError::InvalidRequest { status: 400, ref message } if message.contains("contents is not specified")),
        "{e:?}"
    );

    let e = gemini::parse(404, &headers(&[]), &fixture("gemini/error_not_found.json")).unwrap_err();
    assert!(
        matches!(e, LlmError::UnknownModel { status: 404, .. }) && e.is_fatal(),
        "{e:?}"
    );

    let e = gemini::parse(
        503,
        &headers(&[]),
        &fixture("gemini/error_unavailable.json"),
    )
    .unwrap_err();
    assert!(
        matches!(e, LlmError::Server { status: 503, .. }) && e.is_retryable(),
        "{e:?}"
    );

    let e = gemini::parse(
        403,
        &headers(&[]),
        br#"{"error":{"code":403,"message":"Permission denied","status":"PERMISSION_DENIED"}}"#,
    )
    .unwrap_err();
    assert!(matches!(e, LlmError::Auth { status: 403, .. }));
}

#[test]
fn fractional_retry_delay() {
    let body = br#"{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]}}"#;
    let e = gemini::parse(429, &headers(&[]), body).unwrap_err();
    assert_eq!(e.retry_after(), Some(Duration::from_millis(1500)));
}
