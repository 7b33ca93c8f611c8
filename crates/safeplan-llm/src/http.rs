//! The one place that does HTTP: a reqwest client over rustls (ring), and the provider that
//! joins it to a pure adapter.

use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tracing::{debug, trace};

use crate::LlmProvider;
use crate::adapter::{self, HttpRequest, ResponseHeaders};
use crate::error::LlmError;
use crate::spec::{ProviderConfig, ProviderKind};
use crate::types::{ChatRequest, ChatResponse};

/// Options of the HTTP client.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Limit on establishing a connection.
    pub connect_timeout: Duration,
    /// Limit on a whole exchange, body included. The timeout layer usually sets a tighter
    /// one; this one is the backstop.
    pub request_timeout: Duration,
}

impl Default for HttpOptions {
    fn default() -> HttpOptions {
        HttpOptions {
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(600),
        }
    }
}

/// A raw HTTP response, body read in full.
#[derive(Clone, Debug)]
pub struct RawResponse {
    /// The status code.
    pub status: u16,
    /// The headers.
    pub headers: ResponseHeaders,
    /// The body.
    pub body: Vec<u8>,
    /// Time from sending to the last body byte.
    pub latency: Duration,
}

/// The executor: sends an adapter's [`HttpRequest`] and reads the answer.
///
/// Cloning is cheap and shares the connection pool.
#[derive(Clone, Debug)]
pub struct HttpClient {
    client: reqwest::Client,
}

static CRYPTO: Once = Once::new();

/// The largest response body read (32 MiB).
pub const MAX_BODY_BYTES: usize = 32 << 20;

impl HttpClient {
    /// A client with `options`. Installs ring as the process's rustls crypto provider if
    /// none is installed yet (reqwest is built without one, to keep aws-lc-rs and its cmake
    /// build out).
    pub fn new(options: &HttpOptions) -> Result<HttpClient, LlmError> {
        CRYPTO.call_once(|| {
            // Err means another provider is already installed, which is as good.
            let _ = rustls::crypto::ring::default_provider().install_default();
        });
        let client = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .timeout(options.request_timeout)
            .user_agent(concat!("safeplan-llm/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Config {
                message: format!("cannot build the HTTP client: {}", error_chain(&e)),
                hint: None,
            })?;
        Ok(HttpClient { client })
    }

    /// Send `req` and read the whole response. Only transport failures are errors here;
    /// an HTTP error status is a response for the adapter to parse.
    pub async fn execute(&self, req: &HttpRequest) -> Result<RawResponse, LlmError> {
        let mut builder = self.client.post(&req.url);
        for (name, value) in &req.headers {
            let mut hv = reqwest::header::HeaderValue::from_str(&value.wire()).map_err(|_| {
                LlmError::Config {
                    message: format!("header {name} has a value that cannot be sent"),
                    hint: Some("check the API key for stray characters".to_owned()),
                }
            })?;
            hv.set_sensitive(value.is_secret());
            builder = builder.header(name.as_str(), hv);
        }
        let body = serde_json::to_vec(&req.body).map_err(|e| LlmError::InvalidRequest {
            status: 0,
            message: format!("cannot encode the request body: {e}"),
        })?;
        let start = Instant::now();
        let response = builder.body(body).send().await.map_err(map_reqwest)?;
        let status = response.status().as_u16();
        let headers = ResponseHeaders(
            response
                .headers()
                .iter()
                .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
                .collect(),
        );
        let mut response = response;
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(map_reqwest)? {
            // A chat reply is kilobytes; a server streaming without end must not eat memory.
            if body.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(LlmError::Malformed {
                    message: format!("the response body is larger than {MAX_BODY_BYTES} bytes"),
                    body_prefix: crate::error::body_prefix(&body, 200),
                });
            }
            body.extend_from_slice(&chunk);
        }
        Ok(RawResponse {
            status,
            headers,
            body,
            latency: start.elapsed(),
        })
    }
}

/// Map a reqwest error: timeouts, connection and body failures. The message is the error's
/// chain; reqwest errors name the URL, which never holds a key (keys go in headers).
fn map_reqwest(e: reqwest::Error) -> LlmError {
    let message = error_chain(&e);
    if e.is_timeout() {
        LlmError::Timeout { message }
    } else if e.is_body() || e.is_decode() {
        LlmError::Transport {
            message: format!("the response body was cut off: {message}"),
        }
    } else {
        LlmError::Transport { message }
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// A provider over HTTP: a [`ProviderConfig`], its adapter, and an [`HttpClient`].
#[derive(Clone, Debug)]
pub struct HttpProvider {
    cfg: Arc<ProviderConfig>,
    id: String,
    /// The base URL, when it is not the provider's usual one and the id does not name it.
    endpoint: Option<String>,
    client: HttpClient,
}

impl HttpProvider {
    /// A provider for `cfg` sending through `client`.
    pub fn new(cfg: ProviderConfig, client: HttpClient) -> HttpProvider {
        let usual = match cfg.kind {
            ProviderKind::OpenAi => Some(crate::spec::OPENAI_DEFAULT_BASE),
            ProviderKind::Gemini => Some(crate::spec::GEMINI_DEFAULT_BASE),
            ProviderKind::Ollama => Some(crate::spec::OLLAMA_DEFAULT_BASE),
            // Its id names its URL.
            ProviderKind::OpenAiCompatible => None,
        };
        let endpoint = usual
            .filter(|u| u.trim_end_matches('/') != cfg.base_url)
            .map(|_| cfg.base_url.clone());
        HttpProvider {
            id: cfg.id(),
            endpoint,
            cfg: Arc::new(cfg),
            client,
        }
    }

    /// Its configuration.
    pub fn config(&self) -> &ProviderConfig {
        &self.cfg
    }
}

#[async_trait]
impl LlmProvider for HttpProvider {
    fn id(&self) -> &str {
        &self.id
    }

    fn endpoint(&self) -> Option<&str> {
        self.endpoint.as_deref()
    }

    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let secret = self.cfg.api_key.as_ref().map_or("", |k| k.expose_secret());
        let http = adapter::build(&self.cfg, req)?;
        debug!(provider = %self.id, url = %http.url, "sending chat request");
        trace!(provider = %self.id, headers = ?http.headers, body = %http.body, "request");
        let raw = self
            .client
            .execute(&http)
            .await
            .map_err(|e| e.scrub(secret))?;
        debug!(
            provider = %self.id,
            status = raw.status,
            latency_ms = raw.latency.as_millis() as u64,
            "response"
        );
        if tracing::enabled!(tracing::Level::TRACE) {
            // A server may echo the key in an error body: scrub it before logging.
            let body = String::from_utf8_lossy(&raw.body);
            let body = if secret.is_empty() {
                body.into_owned()
            } else {
                body.replace(secret, "***")
            };
            trace!(provider = %self.id, body = %body, "response body");
        }
        let mut response = adapter::parse(self.cfg.kind, raw.status, &raw.headers, &raw.body)
            .map_err(|e| e.scrub(secret))?;
        response.latency_ms = u64::try_from(raw.latency.as_millis()).unwrap_or(u64::MAX);
        Ok(response)
    }
}
