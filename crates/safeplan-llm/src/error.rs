//! What can go wrong, one variant per thing a caller does differently.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

/// An error from a provider or a layer.
///
/// Messages come from the provider (its own `error.message`) or from this crate; none ever
/// holds an API key or a request header (the executor also scrubs the key from provider
/// messages, in case a server echoes it).
#[derive(Clone, Debug, Error, PartialEq)]
pub enum LlmError {
    /// The key is missing, wrong or lacks permission (HTTP 401/403). Not retried: fix the key.
    #[error("authentication failed (HTTP {status}): {message}")]
    Auth {
        /// The HTTP status.
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// Too many requests for now (HTTP 429). Retried, after `retry_after` when the provider
    /// said how long to wait.
    #[error("rate limited{}: {message}", fmt_after(*retry_after))]
    RateLimited {
        /// How long the provider asked us to wait (`Retry-After`, Gemini `retryDelay`).
        retry_after: Option<Duration>,
        /// The provider's message.
        message: String,
    },
    /// The account's quota or credit is used up (OpenAI `insufficient_quota`, a Gemini per-day
    /// quota). Not retried: waiting minutes will not help.
    #[error("quota exhausted: {message}")]
    QuotaExhausted {
        /// The provider's message.
        message: String,
    },
    /// The server does not have the model asked for (OpenAI `model_not_found`, a 404 naming
    /// the model, LiteLLM's "Invalid model name"). Not retried, and fatal: no request to this
    /// model can succeed.
    #[error("unknown model (HTTP {status}): {message}")]
    UnknownModel {
        /// The HTTP status.
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// The provider rejected the request (HTTP 400/404/422: context too long, bad parameter,
    /// a path the server does not serve). Not retried: the same request fails the same way.
    #[error("invalid request (HTTP {status}): {message}")]
    InvalidRequest {
        /// The HTTP status (0 when this crate rejected it before sending).
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// The provider's safety filter blocked the prompt or the reply. Not retried.
    #[error("content filtered: {message}")]
    ContentFiltered {
        /// The provider's reason (finish reason, block reason, refusal).
        message: String,
    },
    /// No answer in time (the HTTP client's or the timeout layer's limit). Retried.
    #[error("timed out: {message}")]
    Timeout {
        /// What timed out.
        message: String,
    },
    /// The connection failed or broke (DNS, refused, reset, body cut off). Retried.
    #[error("transport error: {message}")]
    Transport {
        /// What failed.
        message: String,
    },
    /// The provider failed (HTTP 5xx, 529 overloaded, 408, 409). Retried.
    #[error("server error (HTTP {status}){}: {message}", fmt_after(*retry_after))]
    Server {
        /// The HTTP status.
        status: u16,
        /// How long the provider asked us to wait, if it did.
        retry_after: Option<Duration>,
        /// The provider's message.
        message: String,
    },
    /// The response could not be understood: not JSON, cut short, or missing the reply.
    /// Not retried: a server that answers garbage (a proxy's HTML page, a wrong base URL)
    /// tends to keep doing so.
    #[error("malformed response: {message}{}", fmt_prefix(body_prefix))]
    Malformed {
        /// What was wrong.
        message: String,
        /// The first bytes of the body (never headers), for diagnosis.
        body_prefix: String,
    },
    /// Replay mode met a request the cassette does not hold.
    #[error(
        "replay miss: cassette {} has no response for request {digest} (provider {provider}); \
         record it first (--record) or check that the request is the one recorded",
        cassette.display()
    )]
    ReplayMiss {
        /// The cassette file.
        cassette: PathBuf,
        /// The provider id of the request.
        provider: String,
        /// The request's digest (the same as its cache key).
        digest: String,
    },
    /// The configuration cannot work: a bad provider spec, a missing key, a cache or cassette
    /// that cannot be opened. `hint` says how to fix it.
    #[error("{message}")]
    Config {
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: Option<String>,
    },
    /// Reading or writing the cache or cassette failed while running.
    #[error("storage error: {message}")]
    Storage {
        /// What failed.
        message: String,
    },
    /// A provider the caller wrote (a Python `chat` function, say) failed with an error of
    /// its own. Neither retried nor fatal: such a provider keeps its own retry policy, and
    /// one failed call says nothing about the next.
    #[error("{provider} failed: {message}")]
    External {
        /// The provider's id.
        provider: String,
        /// What it said.
        message: String,
    },
}

fn fmt_after(after: Option<Duration>) -> String {
    match after {
        Some(d) => format!(" (retry after {:.1}s)", d.as_secs_f64()),
        None => String::new(),
    }
}

fn fmt_prefix(prefix: &str) -> String {
    if prefix.is_empty() {
        String::new()
    } else {
        format!(" (body starts: {prefix:?})")
    }
}

impl LlmError {
    /// Whether trying the same request again later may succeed: rate limits, timeouts,
    /// transport and server errors. Auth, quota, invalid requests, filtered content,
    /// malformed responses, replay misses and configuration errors are not retryable.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            LlmError::RateLimited { .. }
                | LlmError::Timeout { .. }
                | LlmError::Transport { .. }
                | LlmError::Server { .. }
        )
    }

    /// Whether no other request of the same configuration can succeed either, so a run should
    /// stop asking this provider after the first such reply: a wrong or unauthorised key, an
    /// exhausted quota, a model the server does not have, an endpoint that is no chat API (a
    /// 404/405 on the request's path, or an answer that is not the protocol), a
    /// configuration error. Every fatal error is also not retryable.
    pub fn is_fatal(&self) -> bool {
        match self {
            LlmError::Auth { .. }
            | LlmError::QuotaExhausted { .. }
            | LlmError::UnknownModel { .. }
            | LlmError::Malformed { .. }
            | LlmError::Config { .. } => true,
            LlmError::InvalidRequest { status, .. } => matches!(status, 404 | 405),
            _ => false,
        }
    }

    /// The delay the provider asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::RateLimited { retry_after, .. } | LlmError::Server { retry_after, .. } => {
                *retry_after
            }
            _ => None,
        }
    }

    /// A short machine-readable name of the variant (`"rate_limited"`), for logs and counts.
    pub fn kind(&self) -> &'static str {
        match self {
            LlmError::Auth { .. } => "auth",
            LlmError::RateLimited { .. } => "rate_limited",
            LlmError::QuotaExhausted { .. } => "quota_exhausted",
            LlmError::UnknownModel { .. } => "unknown_model",
            LlmError::InvalidRequest { .. } => "invalid_request",
            LlmError::ContentFiltered { .. } => "content_filtered",
            LlmError::Timeout { .. } => "timeout",
            LlmError::Transport { .. } => "transport",
            LlmError::Server { .. } => "server",
            LlmError::Malformed { .. } => "malformed",
            LlmError::ReplayMiss { .. } => "replay_miss",
            LlmError::Config { .. } => "config",
            LlmError::Storage { .. } => "storage",
            LlmError::External { .. } => "external",
        }
    }

    /// A configuration error with a hint.
    pub fn config(message: impl Into<String>, hint: impl Into<String>) -> LlmError {
        LlmError::Config {
            message: message.into(),
            hint: Some(hint.into()),
        }
    }

    /// Replace every occurrence of `secret` in the messages by `***`. The executor calls it
    /// on every error it returns, in case a server echoes the key in its error message.
    pub(crate) fn scrub(self, secret: &str) -> LlmError {
        if secret.is_empty() {
            return self;
        }
        let s = |m: String| {
            if m.contains(secret) {
                m.replace(secret, "***")
            } else {
                m
            }
        };
        match self {
            LlmError::Auth { status, message } => LlmError::Auth {
                status,
                message: s(message),
            },
            LlmError::RateLimited {
                retry_after,
                message,
            } => LlmError::RateLimited {
                retry_after,
                message: s(message),
            },
            LlmError::QuotaExhausted { message } => LlmError::QuotaExhausted {
                message: s(message),
            },
            LlmError::UnknownModel { status, message } => LlmError::UnknownModel {
                status,
                message: s(message),
            },
            LlmError::InvalidRequest { status, message } => LlmError::InvalidRequest {
                status,
                message: s(message),
            },
            LlmError::ContentFiltered { message } => LlmError::ContentFiltered {
                message: s(message),
            },
            LlmError::Timeout { message } => LlmError::Timeout {
                message: s(message),
            },
            LlmError::Transport { message } => LlmError::Transport {
                message: s(message),
            },
            LlmError::Server {
                status,
                retry_after,
                message,
            } => LlmError::Server {
                status,
                retry_after,
                message: s(message),
            },
            LlmError::Malformed {
                message,
                body_prefix,
            } => LlmError::Malformed {
                message: s(message),
                body_prefix: s(body_prefix),
            },
            other => other,
        }
    }
}

/// The first `max` characters of a body, for [`LlmError::Malformed`].
pub(crate) fn body_prefix(body: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(body);
    let mut out: String = text.chars().take(max).collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}
