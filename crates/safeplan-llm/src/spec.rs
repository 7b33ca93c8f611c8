//! Provider spec strings (`openai:gpt-4o-mini`) and their resolution against the environment.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::LlmError;
use crate::key::ApiKey;

/// The default OpenAI base URL (with `/v1`, as `OPENAI_BASE_URL` is spelled).
pub const OPENAI_DEFAULT_BASE: &str = "https://api.openai.com/v1";
/// The default Gemini origin; the client appends `/v1beta/models/...`.
pub const GEMINI_DEFAULT_BASE: &str = "https://generativelanguage.googleapis.com";
/// The default Ollama origin.
pub const OLLAMA_DEFAULT_BASE: &str = "http://localhost:11434";

/// Which wire protocol a provider speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    /// OpenAI's Chat Completions at api.openai.com (or `OPENAI_BASE_URL`); a key is required.
    OpenAi,
    /// Any server speaking OpenAI Chat Completions (vLLM, llama.cpp, mistral.rs, Ollama's
    /// `/v1`); a key is optional.
    OpenAiCompatible,
    /// Google Gemini `generateContent` (v1beta).
    Gemini,
    /// Ollama's native `/api/chat`.
    Ollama,
}

impl ProviderKind {
    /// The environment variables a spec of this kind reads its key from, in order (none for
    /// Ollama).
    pub fn key_variables(self) -> &'static [&'static str] {
        match self {
            ProviderKind::OpenAi => &["OPENAI_API_KEY"],
            ProviderKind::OpenAiCompatible => &["OPENAI_COMPATIBLE_API_KEY"],
            ProviderKind::Gemini => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            ProviderKind::Ollama => &[],
        }
    }

    /// The environment variable that moves its endpoint, if any (`openai-compatible` names
    /// its URL in the spec).
    pub fn base_variable(self) -> Option<&'static str> {
        match self {
            ProviderKind::OpenAi => Some("OPENAI_BASE_URL"),
            ProviderKind::OpenAiCompatible => None,
            ProviderKind::Gemini => Some("GEMINI_BASE_URL"),
            ProviderKind::Ollama => Some("OLLAMA_HOST"),
        }
    }

    /// The kind a provider id (`openai:gpt-4o-mini`, `openai-compatible:URL#MODEL`) names.
    pub fn of_id(id: &str) -> Option<ProviderKind> {
        let prefix = id.split_once(':').map_or(id, |(p, _)| p);
        [
            ProviderKind::OpenAi,
            ProviderKind::OpenAiCompatible,
            ProviderKind::Gemini,
            ProviderKind::Ollama,
        ]
        .into_iter()
        .find(|k| k.prefix() == prefix)
    }

    /// How to fix `error` for a spec of this kind, naming the variables it reads: what a run
    /// that stops on a [fatal](LlmError::is_fatal) error says.
    pub fn fix_for(self, error: &LlmError) -> String {
        let key = match self.key_variables() {
            [] => "it sends no key".to_string(),
            [one] => format!("this spec reads its key from {one}"),
            [first, rest @ ..] => {
                format!(
                    "this spec reads its key from {first} (or {})",
                    rest.join(", ")
                )
            }
        };
        let base = match self.base_variable() {
            Some(v) => format!("its endpoint from {v}"),
            None => "its endpoint from the spec's URL".to_string(),
        };
        let what = match error {
            LlmError::Auth { .. } => "check the key and its permissions",
            LlmError::QuotaExhausted { .. } => "add credit or raise the quota or budget",
            LlmError::UnknownModel { .. } => "check the model's name (the server does not have it)",
            LlmError::Malformed { .. } | LlmError::InvalidRequest { .. } => {
                "check the endpoint: it does not answer as this protocol's chat API"
            }
            _ => "fix the configuration",
        };
        format!("{what}; {key}, {base}")
    }
}

impl ProviderKind {
    /// The spec prefix (`openai`, `openai-compatible`, `gemini`, `ollama`).
    pub fn prefix(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "openai",
            ProviderKind::OpenAiCompatible => "openai-compatible",
            ProviderKind::Gemini => "gemini",
            ProviderKind::Ollama => "ollama",
        }
    }
}

/// A parsed provider spec: `openai:MODEL`, `gemini:MODEL`, `ollama:MODEL` or
/// `openai-compatible:BASE_URL#MODEL`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderSpec {
    /// The protocol.
    pub kind: ProviderKind,
    /// The model name, as the provider spells it (may contain `:`, as Ollama tags do).
    pub model: String,
    /// The base URL given in the spec (only `openai-compatible` has one).
    pub base_url: Option<String>,
}

const SPEC_FORMS: &str = "use openai:MODEL, gemini:MODEL, ollama:MODEL or \
                          openai-compatible:BASE_URL#MODEL (e.g. \
                          openai-compatible:http://127.0.0.1:8000/v1#my-model)";

impl FromStr for ProviderSpec {
    type Err = LlmError;

    fn from_str(spec: &str) -> Result<ProviderSpec, LlmError> {
        let bad = |message: String| LlmError::config(message, SPEC_FORMS);
        let spec = spec.trim();
        let Some((prefix, rest)) = spec.split_once(':') else {
            return Err(bad(format!(
                "provider spec {spec:?} has no `:` between the provider and the model"
            )));
        };
        let kind = match prefix {
            "openai" => ProviderKind::OpenAi,
            "openai-compatible" => ProviderKind::OpenAiCompatible,
            "gemini" => ProviderKind::Gemini,
            "ollama" => ProviderKind::Ollama,
            other => return Err(bad(format!("unknown provider {other:?} in spec {spec:?}"))),
        };
        let (base_url, model) = if kind == ProviderKind::OpenAiCompatible {
            let Some((url, model)) = rest.split_once('#') else {
                return Err(LlmError::config(
                    format!("provider spec {spec:?} has no `#` between the base URL and the model"),
                    "write openai-compatible:BASE_URL#MODEL, e.g. \
                     openai-compatible:http://127.0.0.1:8000/v1#my-model",
                ));
            };
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(LlmError::config(
                    format!("base URL {url:?} in spec {spec:?} is not an http(s) URL"),
                    "write the URL with its scheme and /v1, e.g. http://127.0.0.1:8000/v1",
                ));
            }
            reject_userinfo(url)?;
            (Some(url.trim_end_matches('/').to_owned()), model)
        } else {
            (None, rest)
        };
        if model.is_empty() {
            return Err(bad(format!("provider spec {spec:?} names no model")));
        }
        Ok(ProviderSpec {
            kind,
            model: model.to_owned(),
            base_url,
        })
    }
}

impl fmt::Display for ProviderSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.base_url {
            Some(url) => write!(f, "{}:{url}#{}", self.kind.prefix(), self.model),
            None => write!(f, "{}:{}", self.kind.prefix(), self.model),
        }
    }
}

/// Everything a backend needs to talk to a provider.
///
/// Its `Debug` shows the key as `ApiKey(***)`.
#[derive(Clone, Debug)]
pub struct ProviderConfig {
    /// The protocol.
    pub kind: ProviderKind,
    /// The model.
    pub model: String,
    /// The base URL without a trailing `/`: with `/v1` for OpenAI, the origin for Gemini and
    /// Ollama.
    pub base_url: String,
    /// The key, when the provider needs one.
    pub api_key: Option<ApiKey>,
    /// Whether to send `temperature`; `None` decides by model name (OpenAI's reasoning
    /// models reject it).
    pub send_temperature: Option<bool>,
}

impl ProviderConfig {
    /// The provider id: the spec string (`openai:gpt-4o-mini`). It names the provider in
    /// logs, cache keys and cassettes.
    pub fn id(&self) -> String {
        match self.kind {
            ProviderKind::OpenAiCompatible => {
                format!("{}:{}#{}", self.kind.prefix(), self.base_url, self.model)
            }
            _ => format!("{}:{}", self.kind.prefix(), self.model),
        }
    }
}

impl ProviderSpec {
    /// Resolve the spec against the environment of this process.
    pub fn resolve_from_env(&self) -> Result<ProviderConfig, LlmError> {
        self.resolve(&|name| std::env::var(name).ok())
    }

    /// Resolve the spec with `env` as the environment (tests pass a map, so they never
    /// change the process's environment).
    ///
    /// Keys: `OPENAI_API_KEY` (required for `openai`), `OPENAI_COMPATIBLE_API_KEY` (sent if
    /// set for `openai-compatible`; never `OPENAI_API_KEY`, so an OpenAI key does not go to
    /// another server),
    /// `GEMINI_API_KEY`, else `GOOGLE_API_KEY` (required for `gemini`). Base URLs:
    /// `OPENAI_BASE_URL` (with `/v1`; for `openai` only: `openai-compatible` names its URL),
    /// `GEMINI_BASE_URL` and `OLLAMA_HOST` (origins). An empty variable counts as unset.
    pub fn resolve(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ProviderConfig, LlmError> {
        let var = |name: &str| {
            env(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let (base_url, api_key) = match self.kind {
            ProviderKind::OpenAi => {
                let key = var("OPENAI_API_KEY").ok_or_else(|| {
                    LlmError::config(
                        format!("{self} needs an API key and OPENAI_API_KEY is not set"),
                        "set OPENAI_API_KEY",
                    )
                })?;
                let base = var("OPENAI_BASE_URL").unwrap_or_else(|| OPENAI_DEFAULT_BASE.to_owned());
                http_url("OPENAI_BASE_URL", &base)?;
                (base, Some(ApiKey::new(key)))
            }
            ProviderKind::OpenAiCompatible => {
                let base = self.base_url.clone().unwrap_or_default();
                // Not OPENAI_API_KEY: an OpenAI key must not go to whatever server a spec
                // names. A server that wants a key gets its own variable.
                (base, var("OPENAI_COMPATIBLE_API_KEY").map(ApiKey::new))
            }
            ProviderKind::Gemini => {
                let key = var("GEMINI_API_KEY")
                    .or_else(|| var("GOOGLE_API_KEY"))
                    .ok_or_else(|| {
                        LlmError::config(
                            format!("{self} needs an API key and neither GEMINI_API_KEY nor GOOGLE_API_KEY is set"),
                            "set GEMINI_API_KEY",
                        )
                    })?;
                let base = var("GEMINI_BASE_URL").unwrap_or_else(|| GEMINI_DEFAULT_BASE.to_owned());
                http_url("GEMINI_BASE_URL", &base)?;
                (base, Some(ApiKey::new(key)))
            }
            ProviderKind::Ollama => {
                let base = var("OLLAMA_HOST").unwrap_or_else(|| OLLAMA_DEFAULT_BASE.to_owned());
                (ollama_origin(&base), None)
            }
        };
        reject_userinfo(&base_url)?;
        Ok(ProviderConfig {
            kind: self.kind,
            model: self.model.clone(),
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key,
            send_temperature: None,
        })
    }
}

/// A base URL from `variable` must name its scheme: `127.0.0.1:4000/v1` would fail at every
/// request as a network error, retried; refuse it before the first.
fn http_url(variable: &str, url: &str) -> Result<(), LlmError> {
    if url.starts_with("http://") || url.starts_with("https://") {
        return Ok(());
    }
    Err(LlmError::config(
        format!("{variable}={url:?} is not an http(s) URL"),
        format!("write it with its scheme, e.g. {variable}=http://{url}"),
    ))
}

/// A base URL with `user:password@` would put a secret into the provider id, logs, cache
/// keys and cassettes: refuse it.
fn reject_userinfo(url: &str) -> Result<(), LlmError> {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = after_scheme.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return Err(LlmError::config(
            "a base URL holds credentials (`user:password@`), which would end up in logs",
            "remove them from the URL and put the key in the provider's key variable",
        ));
    }
    Ok(())
}

/// `OLLAMA_HOST` is often written without a scheme (`127.0.0.1:11434`, as `ollama serve`
/// reads it); the client needs one.
fn ollama_origin(host: &str) -> String {
    if host.starts_with("http://") || host.starts_with("https://") {
        host.to_owned()
    } else {
        format!("http://{host}")
    }
}
