//! OpenAI Chat Completions (`POST {base}/chat/completions`), and every server that speaks it.

use serde_json::{Map, Value, json};

use super::{
    HeaderValue, HttpRequest, ResponseHeaders, classify_status, count, json_body, missing,
    retry_after, text_message,
};
use crate::error::LlmError;
use crate::spec::{ProviderConfig, ProviderKind};
use crate::types::{ChatRequest, ChatResponse, FinishReason, Origin, ResponseFormat, Role, Usage};

/// Whether `model` accepts a `temperature` other than the default. OpenAI's reasoning
/// models (o1, o3, o4-mini, the gpt-5 family except its chat variant) reject it with a 400.
pub fn accepts_temperature(model: &str) -> bool {
    let m = model.rsplit('/').next().unwrap_or(model);
    let reasoning = ["o1", "o3", "o4"]
        .iter()
        .any(|p| m == *p || m.starts_with(&format!("{p}-")))
        || (m.starts_with("gpt-5") && !m.contains("chat"));
    !reasoning
}

/// Build the request. `max_completion_tokens` carries the output limit; towards an
/// `openai-compatible` server, `max_tokens` is sent too, because older servers only read
/// that one (OpenAI itself deprecated it and rejects it for reasoning models).
pub fn build(cfg: &ProviderConfig, req: &ChatRequest) -> Result<HttpRequest, LlmError> {
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    if let Some(system) = &req.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    for m in &req.messages {
        let role = match m.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        messages.push(json!({"role": role, "content": m.content}));
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(cfg.model));
    body.insert("messages".into(), Value::Array(messages));
    let send_temperature = cfg.send_temperature.unwrap_or_else(|| {
        cfg.kind == ProviderKind::OpenAiCompatible || accepts_temperature(&cfg.model)
    });
    if let (Some(t), true) = (req.temperature, send_temperature) {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(max) = req.max_output_tokens {
        body.insert("max_completion_tokens".into(), json!(max));
        if cfg.kind == ProviderKind::OpenAiCompatible {
            body.insert("max_tokens".into(), json!(max));
        }
    }
    if let Some(seed) = req.seed {
        body.insert("seed".into(), json!(seed));
    }
    if !req.stop.is_empty() {
        body.insert("stop".into(), json!(req.stop));
    }
    match &req.response_format {
        ResponseFormat::Text => {}
        ResponseFormat::JsonObject => {
            body.insert("response_format".into(), json!({"type": "json_object"}));
        }
        ResponseFormat::JsonSchema {
            name,
            schema,
            strict,
        } => {
            body.insert(
                "response_format".into(),
                json!({"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": strict}}),
            );
        }
    }
    Ok(HttpRequest::json(
        format!("{}/chat/completions", cfg.base_url),
        cfg.api_key
            .as_ref()
            .map(|key| ("authorization", HeaderValue::Bearer(key.clone()))),
        body,
    ))
}

/// Parse a response: a completion on 2xx, else the error body
/// `{"error": {"message", "type", "code"}}`.
pub fn parse(
    status: u16,
    headers: &ResponseHeaders,
    body: &[u8],
) -> Result<ChatResponse, LlmError> {
    if !(200..300).contains(&status) {
        return Err(parse_error(status, headers, body));
    }
    let v = json_body(body)?;
    let choice = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| missing("choices[0]", body))?;
    let finish = choice.get("finish_reason").and_then(Value::as_str);
    let message = choice
        .get("message")
        .ok_or_else(|| missing("choices[0].message", body))?;
    let text = message.get("content").and_then(Value::as_str);
    let refusal = message.get("refusal").and_then(Value::as_str);
    if text.is_none_or(str::is_empty) {
        if finish == Some("content_filter") {
            return Err(LlmError::ContentFiltered {
                message: "finish_reason content_filter".to_owned(),
            });
        }
        if let Some(refusal) = refusal {
            return Err(LlmError::ContentFiltered {
                message: format!("refusal: {refusal}"),
            });
        }
    }
    let text = match text {
        Some(t) => t.to_owned(),
        None => return Err(missing("choices[0].message.content", body)),
    };
    let finish_reason = match finish {
        Some("stop") => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some("content_filter") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
        None => FinishReason::Unknown,
    };
    let u = v.get("usage");
    let usage = Usage {
        input_tokens: count(u.and_then(|u| u.get("prompt_tokens"))),
        output_tokens: count(u.and_then(|u| u.get("completion_tokens"))),
        cached_tokens: count(u.and_then(|u| u.pointer("/prompt_tokens_details/cached_tokens"))),
        reasoning_tokens: count(
            u.and_then(|u| u.pointer("/completion_tokens_details/reasoning_tokens")),
        ),
    };
    let request_id = headers
        .get("x-request-id")
        .map(str::to_owned)
        .or_else(|| v.get("id").and_then(Value::as_str).map(str::to_owned));
    Ok(ChatResponse {
        text,
        finish_reason,
        usage,
        latency_ms: 0,
        request_id,
        model: v.get("model").and_then(Value::as_str).map(str::to_owned),
        origin: Origin::Network,
    })
}

fn parse_error(status: u16, headers: &ResponseHeaders, body: &[u8]) -> LlmError {
    let v: Option<Value> = serde_json::from_slice(body).ok();
    let err = v.as_ref().and_then(|v| v.get("error"));
    // Most servers send an object; some OpenAI-compatible ones send a bare string.
    let message = match err {
        Some(Value::String(s)) => s.clone(),
        Some(e) => e
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| text_message(body), str::to_owned),
        None => text_message(body),
    };
    let code = err.and_then(|e| e.get("code")).and_then(Value::as_str);
    let kind = err.and_then(|e| e.get("type")).and_then(Value::as_str);
    let is = |name: &str| code == Some(name) || kind == Some(name);
    if is("insufficient_quota") {
        return LlmError::QuotaExhausted { message };
    }
    if is("invalid_api_key") && status == 400 {
        return LlmError::Auth { status, message };
    }
    if is("model_not_found") {
        return LlmError::UnknownModel { status, message };
    }
    // Azure OpenAI reports a filtered prompt as a 400 with code `content_filter`.
    if is("content_filter") {
        return LlmError::ContentFiltered { message };
    }
    classify_status(status, message, retry_after(headers))
}
