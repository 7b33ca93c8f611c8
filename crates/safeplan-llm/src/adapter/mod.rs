//! Pure adapters: each backend is a function pair, [`build`] a request and [`parse`] a
//! response. No I/O happens here, so every byte a backend sends and every answer it
//! understands is tested without a network.

pub mod gemini;
pub mod ollama;
pub mod openai;

use std::fmt;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::error::{LlmError, body_prefix};
use crate::key::ApiKey;
use crate::spec::{ProviderConfig, ProviderKind};
use crate::types::{ChatRequest, ChatResponse};

/// A header value: plain text, or a secret that `Debug` hides.
#[derive(Clone, PartialEq)]
pub enum HeaderValue {
    /// A value that may be shown.
    Plain(String),
    /// `Bearer KEY` (OpenAI's `Authorization`).
    Bearer(ApiKey),
    /// The bare key (Gemini's `x-goog-api-key`).
    Key(ApiKey),
}

impl HeaderValue {
    /// The value to put on the wire.
    pub fn wire(&self) -> String {
        match self {
            HeaderValue::Plain(v) => v.clone(),
            HeaderValue::Bearer(key) => format!("Bearer {}", key.expose_secret()),
            HeaderValue::Key(key) => key.expose_secret().to_owned(),
        }
    }

    /// Whether the value is a secret.
    pub fn is_secret(&self) -> bool {
        !matches!(self, HeaderValue::Plain(_))
    }
}

impl fmt::Debug for HeaderValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderValue::Plain(v) => write!(f, "{v:?}"),
            HeaderValue::Bearer(_) => f.write_str("\"Bearer ***\""),
            HeaderValue::Key(_) => f.write_str("\"***\""),
        }
    }
}

/// An HTTP request as an adapter builds it. Always a `POST` of a JSON body.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpRequest {
    /// The full URL.
    pub url: String,
    /// Headers, lowercase names.
    pub headers: Vec<(String, HeaderValue)>,
    /// The JSON body.
    pub body: Value,
}

impl HttpRequest {
    /// A JSON `POST` to `url`, with `auth` (the header that carries the key) when there is
    /// one: the shape every backend sends.
    pub(crate) fn json(
        url: String,
        auth: Option<(&str, HeaderValue)>,
        body: serde_json::Map<String, Value>,
    ) -> HttpRequest {
        let mut headers = vec![(
            "content-type".to_owned(),
            HeaderValue::Plain("application/json".to_owned()),
        )];
        headers.extend(auth.map(|(name, value)| (name.to_owned(), value)));
        HttpRequest {
            url,
            headers,
            body: Value::Object(body),
        }
    }

    /// A header's value by (lowercase) name.
    pub fn header(&self, name: &str) -> Option<&HeaderValue> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// The response headers an adapter may read (`retry-after`, `x-request-id`, ...), names
/// lowercased so lookups do not depend on how a server spells them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResponseHeaders(pub Vec<(String, String)>);

impl ResponseHeaders {
    /// A header's value by (lowercase) name.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Build the HTTP request for `req` on the backend of `cfg`.
pub fn build(cfg: &ProviderConfig, req: &ChatRequest) -> Result<HttpRequest, LlmError> {
    match cfg.kind {
        ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => openai::build(cfg, req),
        ProviderKind::Gemini => gemini::build(cfg, req),
        ProviderKind::Ollama => ollama::build(cfg, req),
    }
}

/// Parse an HTTP response of the backend of `kind`. `latency_ms` is left at 0 for the
/// executor to fill in.
pub fn parse(
    kind: ProviderKind,
    status: u16,
    headers: &ResponseHeaders,
    body: &[u8],
) -> Result<ChatResponse, LlmError> {
    match kind {
        ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => {
            openai::parse(status, headers, body)
        }
        ProviderKind::Gemini => gemini::parse(status, headers, body),
        ProviderKind::Ollama => ollama::parse(status, headers, body),
    }
}

/// How many body characters a [`LlmError::Malformed`] keeps.
const PREFIX_CHARS: usize = 200;

/// Parse a body as JSON, or say it is malformed.
pub(crate) fn json_body(body: &[u8]) -> Result<Value, LlmError> {
    serde_json::from_slice(body).map_err(|e| LlmError::Malformed {
        message: if body.is_empty() {
            "empty body".to_owned()
        } else if e.is_eof() {
            format!("the JSON body is cut short ({e})")
        } else {
            format!("the body is not valid JSON ({e})")
        },
        body_prefix: body_prefix(body, PREFIX_CHARS),
    })
}

/// A [`LlmError::Malformed`] for a JSON body that lacks what a reply must have.
pub(crate) fn missing(what: &str, body: &[u8]) -> LlmError {
    LlmError::Malformed {
        message: format!("the response has no {what}"),
        body_prefix: body_prefix(body, PREFIX_CHARS),
    }
}

/// The provider's message for an error body that is not JSON (a proxy's HTML page).
pub(crate) fn text_message(body: &[u8]) -> String {
    let prefix = body_prefix(body, PREFIX_CHARS);
    if prefix.is_empty() {
        "(empty body)".to_owned()
    } else {
        prefix
    }
}

/// Map an error status to its variant, once the provider-specific cases (quota, content
/// filter, bad key reported as 400) have been taken out. The wording of the message
/// decides two cases every server words alike: an unknown model (404 naming the model;
/// LiteLLM's 400 "Invalid model name"; Ollama's "model ... not found") and an exhausted
/// quota or budget (OpenAI's "exceeded your current quota", LiteLLM's "Budget has been
/// exceeded"), which no wait will cure.
pub(crate) fn classify_status(
    status: u16,
    message: String,
    retry_after: Option<Duration>,
) -> LlmError {
    let lower = message.to_ascii_lowercase();
    let names_model = lower.contains("model");
    if (400..500).contains(&status)
        && (lower.contains("exceeded your current quota")
            || lower.contains("insufficient_quota")
            || lower.contains("budget has been exceeded")
            || lower.contains("budget exceeded"))
    {
        return LlmError::QuotaExhausted { message };
    }
    if (status == 404 && names_model)
        || (matches!(status, 400 | 422)
            && (lower.contains("invalid model")
                || lower.contains("model_not_found")
                || lower.contains("unknown model")
                || (names_model
                    && (lower.contains("not found") || lower.contains("does not exist")))))
    {
        return LlmError::UnknownModel { status, message };
    }
    match status {
        401 | 403 => LlmError::Auth { status, message },
        429 => LlmError::RateLimited {
            retry_after,
            message,
        },
        // 408 Request Timeout and 409 Conflict are transient; the OpenAI SDKs retry them.
        408 => LlmError::Timeout { message },
        409 | 500..=599 => LlmError::Server {
            status,
            retry_after,
            message,
        },
        _ => LlmError::InvalidRequest { status, message },
    }
}

/// The delay asked by `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date).
pub fn retry_after(headers: &ResponseHeaders) -> Option<Duration> {
    if let Some(d) = headers
        .get("retry-after-ms")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .and_then(|ms| Duration::try_from_secs_f64(ms / 1000.0).ok())
    {
        return Some(d);
    }
    parse_retry_after(headers.get("retry-after")?, SystemTime::now())
}

/// Parse a `Retry-After` value, seconds (`"20"`, `"1.5"`) or an HTTP date, relative to `now`.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        // `try_`: a negative, NaN or absurdly large value is no delay rather than a panic.
        return Duration::try_from_secs_f64(secs).ok();
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Parse a protobuf `Duration` in JSON form, as Gemini's `retryDelay` is: `"37s"`, `"1.5s"`.
pub fn parse_proto_duration(value: &str) -> Option<Duration> {
    let secs: f64 = value.trim().strip_suffix('s')?.parse().ok()?;
    Duration::try_from_secs_f64(secs).ok()
}

/// A JSON value as a `u64` count (0 when absent or not a count).
pub(crate) fn count(v: Option<&Value>) -> u64 {
    v.and_then(Value::as_u64).unwrap_or(0)
}
