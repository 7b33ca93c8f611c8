//! Google Gemini `generateContent` (v1beta):
//! `POST {origin}/v1beta/models/{model}:generateContent` with the key in `x-goog-api-key`
//! (a header, never the `?key=` query parameter, so URLs in logs carry no key).

use serde_json::{Map, Value, json};

use super::{
    HeaderValue, HttpRequest, ResponseHeaders, classify_status, count, json_body, missing,
    parse_proto_duration, retry_after, text_message,
};
use crate::error::LlmError;
use crate::spec::ProviderConfig;
use crate::types::{ChatRequest, ChatResponse, FinishReason, Origin, ResponseFormat, Role, Usage};

/// Finish reasons that mean the safety system cut the reply.
const FILTERED: &[&str] = &[
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
];

/// Build the request. The model goes into the URL path, so it is checked to be a plain
/// name; a `models/` prefix is accepted. Gemini's `seed` is an int32: a larger seed is an
/// invalid request rather than a silently different one.
pub fn build(cfg: &ProviderConfig, req: &ChatRequest) -> Result<HttpRequest, LlmError> {
    let model = cfg.model.strip_prefix("models/").unwrap_or(&cfg.model);
    if model.is_empty()
        || !model
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(LlmError::InvalidRequest {
            status: 0,
            message: format!(
                "Gemini model name {model:?} may hold only letters, digits, `-`, `_` and `.`"
            ),
        });
    }
    let contents: Vec<Value> = req
        .messages
        .iter()
        .map(|m| {
            let role = match m.role {
                Role::User => "user",
                Role::Assistant => "model",
            };
            json!({"role": role, "parts": [{"text": m.content}]})
        })
        .collect();
    let mut config = Map::new();
    if let Some(t) = req.temperature {
        config.insert("temperature".into(), json!(t));
    }
    if let Some(max) = req.max_output_tokens {
        config.insert("maxOutputTokens".into(), json!(max));
    }
    if let Some(seed) = req.seed {
        let seed = i32::try_from(seed).map_err(|_| LlmError::InvalidRequest {
            status: 0,
            message: format!("Gemini takes a 32-bit seed; {seed} is too large"),
        })?;
        config.insert("seed".into(), json!(seed));
    }
    if !req.stop.is_empty() {
        config.insert("stopSequences".into(), json!(req.stop));
    }
    match &req.response_format {
        ResponseFormat::Text => {}
        ResponseFormat::JsonObject => {
            config.insert("responseMimeType".into(), json!("application/json"));
        }
        ResponseFormat::JsonSchema { schema, .. } => {
            config.insert("responseMimeType".into(), json!("application/json"));
            // `responseJsonSchema` takes JSON Schema as written; `responseSchema` would
            // need Google's OpenAPI subset.
            config.insert("responseJsonSchema".into(), schema.clone());
        }
    }
    let mut body = Map::new();
    body.insert("contents".into(), Value::Array(contents));
    if let Some(system) = &req.system {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": system}]}),
        );
    }
    if !config.is_empty() {
        body.insert("generationConfig".into(), Value::Object(config));
    }
    Ok(HttpRequest::json(
        format!("{}/v1beta/models/{model}:generateContent", cfg.base_url),
        cfg.api_key
            .as_ref()
            .map(|key| ("x-goog-api-key", HeaderValue::Key(key.clone()))),
        body,
    ))
}

/// Parse a response: the first candidate's text parts (thought summaries left out),
/// `finishReason`, `usageMetadata`, `responseId`; errors are Google RPC statuses.
pub fn parse(
    status: u16,
    headers: &ResponseHeaders,
    body: &[u8],
) -> Result<ChatResponse, LlmError> {
    if !(200..300).contains(&status) {
        return Err(parse_error(status, headers, body));
    }
    let v = json_body(body)?;
    let candidate = v
        .get("candidates")
        .and_then(Value::as_array)
        .and_then(|c| c.first());
    let Some(candidate) = candidate else {
        if let Some(reason) = v
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
        {
            return Err(LlmError::ContentFiltered {
                message: format!("prompt blocked: {reason}"),
            });
        }
        return Err(missing("candidates[0]", body));
    };
    let finish = candidate.get("finishReason").and_then(Value::as_str);
    let parts = candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .filter(|p| !p.is_empty());
    let Some(parts) = parts else {
        if let Some(reason) = finish.filter(|r| FILTERED.contains(r)) {
            return Err(LlmError::ContentFiltered {
                message: format!("finishReason {reason}"),
            });
        }
        let hint = if finish == Some("MAX_TOKENS") {
            " (the output limit was used up before any text, e.g. by thinking: raise max output tokens)"
        } else {
            ""
        };
        return Err(LlmError::Malformed {
            message: format!(
                "Gemini returned a candidate without content parts (finishReason {}){hint}",
                finish.unwrap_or("missing")
            ),
            body_prefix: super::text_message(body),
        });
    };
    let text: String = parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    let finish_reason = match finish {
        Some("STOP") => FinishReason::Stop,
        Some("MAX_TOKENS") => FinishReason::Length,
        Some(r) if FILTERED.contains(&r) => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
        None => FinishReason::Unknown,
    };
    let u = v.get("usageMetadata");
    let thoughts = count(u.and_then(|u| u.get("thoughtsTokenCount")));
    let usage = Usage {
        input_tokens: count(u.and_then(|u| u.get("promptTokenCount"))),
        // Gemini counts thinking apart from the candidates; both are billed as output.
        output_tokens: count(u.and_then(|u| u.get("candidatesTokenCount")))
            .saturating_add(thoughts),
        cached_tokens: count(u.and_then(|u| u.get("cachedContentTokenCount"))),
        reasoning_tokens: thoughts,
    };
    Ok(ChatResponse {
        text,
        finish_reason,
        usage,
        latency_ms: 0,
        request_id: v
            .get("responseId")
            .and_then(Value::as_str)
            .map(str::to_owned),
        model: v
            .get("modelVersion")
            .and_then(Value::as_str)
            .map(str::to_owned),
        origin: Origin::Network,
    })
}

fn parse_error(status: u16, headers: &ResponseHeaders, body: &[u8]) -> LlmError {
    let v: Option<Value> = serde_json::from_slice(body).ok();
    let err = v.as_ref().and_then(|v| v.get("error"));
    let message = err
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .map_or_else(|| text_message(body), str::to_owned);
    let rpc_status = err.and_then(|e| e.get("status")).and_then(Value::as_str);
    let details: &[Value] = err
        .and_then(|e| e.get("details"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let of_type = |suffix: &'static str| {
        details.iter().filter(move |d| {
            d.get("@type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.ends_with(suffix))
        })
    };
    // A bad key is a 400 INVALID_ARGUMENT with ErrorInfo reason API_KEY_INVALID.
    if of_type("google.rpc.ErrorInfo")
        .any(|d| d.get("reason").and_then(Value::as_str) == Some("API_KEY_INVALID"))
    {
        return LlmError::Auth { status, message };
    }
    if status == 429 || rpc_status == Some("RESOURCE_EXHAUSTED") {
        // A per-day quota will not come back in seconds, whatever retryDelay says.
        let per_day = of_type("google.rpc.QuotaFailure").any(|d| {
            d.get("violations")
                .and_then(Value::as_array)
                .is_some_and(|vs| {
                    vs.iter().any(|v| {
                        v.get("quotaId")
                            .and_then(Value::as_str)
                            .is_some_and(|id| id.contains("PerDay"))
                    })
                })
        });
        if per_day {
            return LlmError::QuotaExhausted { message };
        }
        let delay = of_type("google.rpc.RetryInfo")
            .find_map(|d| d.get("retryDelay").and_then(Value::as_str))
            .and_then(parse_proto_duration)
            .or_else(|| retry_after(headers));
        return LlmError::RateLimited {
            retry_after: delay,
            message,
        };
    }
    classify_status(status, message, retry_after(headers))
}
