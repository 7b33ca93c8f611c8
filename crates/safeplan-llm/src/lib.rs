//! LLM providers for safeplan: OpenAI, Gemini, Ollama and any OpenAI-compatible server,
//! behind one object-safe trait, with the retry, rate-limit, timeout, cache and
//! record/replay layers a long benchmark needs.
//!
//! A benchmark of 12,000 tasks × many models lives or dies on this layer: one 429 handled
//! badly loses a night of results; one key printed in a log is a leak. So the crate is built
//! the way the clients people trust are.
//!
//! # Design
//!
//! **Adapters are pure.** Each backend ([`adapter::openai`], [`adapter::gemini`],
//! [`adapter::ollama`]) is a function pair: `build(&ProviderConfig, &ChatRequest) ->
//! HttpRequest` and `parse(status, headers, body) -> Result<ChatResponse, LlmError>`. They do
//! no I/O, so every byte a backend sends and every answer (and error body) it understands is
//! tested with the provider's documented JSON, without a network. Error mapping lives there
//! too, because only the provider's body says whether a 429 is a rate limit (wait and
//! retry) or an exhausted quota (stop).
//!
//! **HTTP lives in one place.** [`HttpClient`] (reqwest over rustls with ring, on tokio)
//! sends an [`adapter::HttpRequest`] and reads the whole body; [`HttpProvider`] joins it to
//! an adapter. Transport failures become [`LlmError::Timeout`] or [`LlmError::Transport`];
//! a body that is cut short or not JSON becomes [`LlmError::Malformed`], never a panic.
//!
//! **Behaviour is layers.** [`layers::retry::Retry`], [`layers::limit::Limit`],
//! [`layers::timeout::Timeout`], [`layers::cache::Cache`], [`layers::record::Record`] (and
//! the network-free [`layers::record::Replay`]) and [`UsageTracker`] each wrap an
//! `Arc<dyn LlmProvider>` and are one, so a caller stacks what it needs. [`Stack`] stacks
//! them in the order the CLI and the benchmark use, outermost first:
//!
//! ```text
//! UsageTracker → Cache → Retry → Limit → Timeout → Record → HttpProvider   (or Replay)
//! ```
//!
//! A cache hit costs no rate budget and no retry; a retry waits outside the concurrency
//! slot and takes a fresh one; the timeout bounds each attempt; the cassette records what
//! the provider actually said.
//!
//! # Invariants
//!
//! - An API key is an [`ApiKey`]: no `Display`, no `Serialize`, `Debug` prints `ApiKey(***)`.
//!   It goes into a header and nowhere else (Gemini's key in `x-goog-api-key`, never the
//!   URL); header values are marked sensitive; error messages are scrubbed of it. The cache
//!   and the cassette store the normalised request (no headers) and the response.
//! - Auth, invalid-request, quota, content-filter and malformed-response errors are never
//!   retried; rate limits, timeouts, transport and server errors are, with full-jitter
//!   exponential backoff, or after the provider's own delay when it gives one (capped).
//! - Only deterministic requests (temperature 0, or an explicit sample id) are cached.
//! - Replay never touches the network: an unseen request is [`LlmError::ReplayMiss`].
//! - The library never prints and installs no tracing subscriber; it logs through `tracing`.
//!
//! # Example
//!
//! ```no_run
//! use std::time::Duration;
//! use safeplan_llm::{ChatRequest, LlmProvider, ProviderSpec, Stack};
//!
//! # async fn run() -> Result<(), safeplan_llm::LlmError> {
//! let spec: ProviderSpec = "openai-compatible:http://127.0.0.1:8000/v1#qwen".parse()?;
//! let stack = Stack {
//!     timeout: Some(Duration::from_secs(60)),
//!     cache: Some(safeplan_llm::CacheConfig { path: "llm-cache.sqlite".into(), bypass: false }),
//!     ..Stack::default()
//! };
//! let built = stack.build_from_env(&spec)?;
//! let reply = built.provider.chat(&ChatRequest::user("Say hi").with_temperature(0.0)).await?;
//! println!("{} ({} tokens)", reply.text, reply.usage.total());
//! println!("{:?}", built.usage.totals());
//! # Ok(()) }
//! ```

#![deny(missing_docs)]
// An `LlmError` carries the provider's message; it is only built on the failure path.
#![allow(clippy::result_large_err)]

pub mod adapter;
mod error;
mod http;
mod key;
pub mod layers;
pub mod prompt;
mod spec;
mod types;
mod usage;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

pub use error::LlmError;
pub use http::{HttpClient, HttpOptions, HttpProvider, MAX_BODY_BYTES, RawResponse};
pub use key::ApiKey;
pub use layers::limit::Limits;
pub use layers::request_digest;
pub use layers::retry::RetryPolicy;
pub use spec::{
    GEMINI_DEFAULT_BASE, OLLAMA_DEFAULT_BASE, OPENAI_DEFAULT_BASE, ProviderConfig, ProviderKind,
    ProviderSpec,
};
pub use types::{
    ChatRequest, ChatResponse, FinishReason, Message, Origin, ResponseFormat, Role, Usage,
};
pub use usage::{Price, PriceTable, UsageTotals, UsageTracker};

/// A chat model behind some API. Object-safe: use it as `Arc<dyn LlmProvider>`.
#[async_trait]
pub trait LlmProvider: Send + Sync {
    /// The provider id, its spec string (`openai:gpt-4o-mini`). Layers report their inner
    /// provider's.
    fn id(&self) -> &str;

    /// Where requests go when the id does not say: an `OPENAI_BASE_URL` that sends
    /// `openai:gpt-4o-mini` to another server. Part of the response cache's key, so replies
    /// of one server are never served for another. `None` (the default) for the provider's
    /// usual endpoint, or when the id names it (`openai-compatible:URL#MODEL`). Layers report
    /// their inner provider's.
    fn endpoint(&self) -> Option<&str> {
        None
    }

    /// Send one chat request and wait for the whole reply.
    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError>;
}

/// Where the response cache lives.
#[derive(Clone, Debug, PartialEq)]
pub struct CacheConfig {
    /// The SQLite file (created if missing).
    pub path: PathBuf,
    /// Skip lookups, still store fresh responses.
    pub bypass: bool,
}

/// Whether a cassette is written or read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CassetteMode {
    /// Call the provider and append each exchange.
    Record,
    /// Answer from the cassette only; no network, no key needed.
    Replay,
}

/// A cassette and its mode.
#[derive(Clone, Debug, PartialEq)]
pub struct CassetteConfig {
    /// Record or replay.
    pub mode: CassetteMode,
    /// The JSON Lines file.
    pub path: PathBuf,
}

impl CassetteConfig {
    /// The cassette a front end's `record` or `replay` file asks for (`record` wins; front
    /// ends refuse both at once), or none.
    pub fn from_paths(record: Option<&Path>, replay: Option<&Path>) -> Option<CassetteConfig> {
        match (record, replay) {
            (Some(path), _) => Some(CassetteConfig {
                mode: CassetteMode::Record,
                path: path.to_path_buf(),
            }),
            (None, Some(path)) => Some(CassetteConfig {
                mode: CassetteMode::Replay,
                path: path.to_path_buf(),
            }),
            (None, None) => None,
        }
    }
}

/// The standard layer stack, as the CLI and the benchmark build it. `None` leaves a layer
/// out.
#[derive(Clone, Debug)]
pub struct Stack {
    /// Retry policy (default: 5 attempts, 0.5 s base, 60 s cap).
    pub retry: Option<RetryPolicy>,
    /// Concurrency and per-minute limits (default: none).
    pub limits: Limits,
    /// Limit on each attempt (default: 120 s).
    pub timeout: Option<Duration>,
    /// The response cache (default: none).
    pub cache: Option<CacheConfig>,
    /// Record or replay (default: none).
    pub cassette: Option<CassetteConfig>,
    /// Prices for cost accounting (default: empty).
    pub prices: PriceTable,
    /// HTTP client options.
    pub http: HttpOptions,
}

impl Default for Stack {
    fn default() -> Stack {
        Stack {
            retry: Some(RetryPolicy::default()),
            limits: Limits::default(),
            timeout: Some(Duration::from_secs(120)),
            cache: None,
            cassette: None,
            prices: PriceTable::default(),
            http: HttpOptions::default(),
        }
    }
}

/// A built stack: the provider to call, and its usage tracker (the same object, typed).
#[derive(Clone)]
pub struct Built {
    /// The outermost layer.
    pub provider: Arc<dyn LlmProvider>,
    /// The accounting layer, for totals and per-response cost.
    pub usage: Arc<UsageTracker>,
}

impl Stack {
    /// The default layers with a response cache and a cassette, as `--cache`, `--record` and
    /// `--replay` ask for them (the CLI's and the Python binding's LLM options).
    pub fn with_files(cache: Option<&Path>, record: Option<&Path>, replay: Option<&Path>) -> Stack {
        Stack {
            cache: cache.map(|path| CacheConfig {
                path: path.to_path_buf(),
                bypass: false,
            }),
            cassette: CassetteConfig::from_paths(record, replay),
            ..Stack::default()
        }
    }

    /// Build the stack for `spec`, reading keys and base URLs from the process environment.
    pub fn build_from_env(&self, spec: &ProviderSpec) -> Result<Built, LlmError> {
        self.build(spec, &|name| std::env::var(name).ok())
    }

    /// Build the stack for `spec` with `env` as the environment. In replay mode no key is
    /// needed and no HTTP client is made.
    pub fn build(
        &self,
        spec: &ProviderSpec,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Built, LlmError> {
        let base: Arc<dyn LlmProvider> = match &self.cassette {
            Some(CassetteConfig {
                mode: CassetteMode::Replay,
                path,
            }) => Arc::new(layers::record::Replay::open(spec.to_string(), path)?),
            _ => {
                let cfg = spec.resolve(env)?;
                Arc::new(HttpProvider::new(cfg, HttpClient::new(&self.http)?))
            }
        };
        self.build_on(base, &spec.model)
    }

    /// Stack the layers on any provider (one of your own, or a test double); `model` names
    /// it in the price table.
    pub fn build_on(&self, base: Arc<dyn LlmProvider>, model: &str) -> Result<Built, LlmError> {
        let mut p = base;
        if let Some(CassetteConfig {
            mode: CassetteMode::Record,
            path,
        }) = &self.cassette
        {
            p = Arc::new(layers::record::Record::open(p, path)?);
        }
        if let Some(after) = self.timeout {
            p = Arc::new(layers::timeout::Timeout::new(p, after));
        }
        if self.limits != Limits::default() {
            p = Arc::new(layers::limit::Limit::new(p, self.limits.clone()));
        }
        if let Some(policy) = &self.retry {
            p = Arc::new(layers::retry::Retry::new(p, policy.clone()));
        }
        if let Some(cache) = &self.cache {
            p = Arc::new(layers::cache::Cache::open(p, &cache.path, cache.bypass)?);
        }
        let usage = Arc::new(UsageTracker::new(p, model, self.prices.clone()));
        Ok(Built {
            provider: usage.clone(),
            usage,
        })
    }
}
