//! Ollama's native chat API (`POST {origin}/api/chat`, `stream: false`).

use serde_json::{Map, Value, json};

use super::{
    HttpRequest, ResponseHeaders, classify_status, count, json_body, missing, retry_after,
    text_message,
};
use crate::error::LlmError;
use crate::spec::ProviderConfig;
use crate::types::{ChatRequest, ChatResponse, FinishReason, Origin, ResponseFormat, Role, Usage};

/// Build the request: one non-streamed reply; sampling options under `options`
/// (`temperature`, `seed`, `num_predict`, `stop`), `format` `"json"` or a JSON schema.
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
    let mut options = Map::new();
    if let Some(t) = req.temperature {
        options.insert("temperature".into(), json!(t));
    }
    if let Some(seed) = req.seed {
        options.insert("seed".into(), json!(seed));
    }
    if let Some(max) = req.max_output_tokens {
        options.insert("num_predict".into(), json!(max));
    }
    if !req.stop.is_empty() {
        options.insert("stop".into(), json!(req.stop));
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(cfg.model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(false));
    match &req.response_format {
        ResponseFormat::Text => {}
        ResponseFormat::JsonObject => {
            body.insert("format".into(), json!("json"));
        }
        ResponseFormat::JsonSchema { schema, .. } => {
            body.insert("format".into(), schema.clone());
        }
    }
    if !options.is_empty() {
        body.insert("options".into(), Value::Object(options));
    }
    Ok(HttpRequest::json(
        format!("{}/api/chat", cfg.base_url),
        None,
        body,
    ))
}

/// Parse a response: `message.content`, `done_reason`, `prompt_eval_count`, `eval_count`;
/// errors are `{"error": "..."}`.
pub fn parse(
    status: u16,
    headers: &ResponseHeaders,
    body: &[u8],
) -> Result<ChatResponse, LlmError> {
    if !(200..300).contains(&status) {
        let message = serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| text_message(body));
        let message = if status == 404 && message.contains("not found") {
            format!("{message} (pull it first: `ollama pull MODEL`)")
        } else {
            message
        };
        return Err(classify_status(status, message, retry_after(headers)));
    }
    let v = json_body(body)?;
    let text = v
        .pointer("/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| missing("message.content", body))?
        .to_owned();
    let finish_reason = match v.get("done_reason").and_then(Value::as_str) {
        Some("stop") => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some(other) => FinishReason::Other(other.to_owned()),
        None => FinishReason::Unknown,
    };
    Ok(ChatResponse {
        text,
        finish_reason,
        usage: Usage {
            input_tokens: count(v.get("prompt_eval_count")),
            output_tokens: count(v.get("eval_count")),
            cached_tokens: 0,
            reasoning_tokens: 0,
        },
        latency_ms: 0,
        request_id: None,
        model: v.get("model").and_then(Value::as_str).map(str::to_owned),
        origin: Origin::Network,
    })
}
