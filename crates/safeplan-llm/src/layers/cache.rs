//! A response cache in SQLite, for deterministic requests only.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};
use tracing::{debug, warn};

use super::request_digest;
use crate::LlmProvider;
use crate::error::LlmError;
use crate::types::{ChatRequest, ChatResponse, Origin};

/// The cache layer.
///
/// - Only deterministic requests ([`ChatRequest::is_deterministic`]: temperature 0 or a
///   sample id) are looked up or stored; others always go to the provider.
/// - The key is [`request_digest`] (provider id, model, every request option, sample id;
///   and the endpoint when the id does not name it, [`LlmProvider::endpoint`]).
///   A row holds the key, the provider id and the response JSON: never a key or header.
/// - `bypass` skips the lookup but still stores the fresh response, so a bypassed run
///   refreshes the cache.
/// - Only successes are stored.
/// - SQLite calls are short and run on tokio's blocking pool (`spawn_blocking`), one at a
///   time behind a mutex, so they never stall the async workers.
/// - A cache that fails while running (disk full) is logged and skipped: the call still
///   reaches the provider, as the cache is an optimisation.
pub struct Cache {
    inner: Arc<dyn LlmProvider>,
    conn: Arc<Mutex<Connection>>,
    path: PathBuf,
    bypass: bool,
}

impl Cache {
    /// Open (or create) the cache at `path` in front of `inner`.
    pub fn open(inner: Arc<dyn LlmProvider>, path: &Path, bypass: bool) -> Result<Cache, LlmError> {
        let fail = |e: rusqlite::Error| {
            LlmError::config(
                format!("cannot open the response cache {}: {e}", path.display()),
                "check that the directory exists and is writable, or pass --no-cache",
            )
        };
        let conn = Connection::open(path).map_err(fail)?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA busy_timeout = 5000;
             CREATE TABLE IF NOT EXISTS responses (
                 key TEXT PRIMARY KEY,
                 provider TEXT NOT NULL,
                 response TEXT NOT NULL,
                 created_at INTEGER NOT NULL DEFAULT (unixepoch())
             );",
        )
        .map_err(fail)?;
        Ok(Cache {
            inner,
            conn: Arc::new(Mutex::new(conn)),
            path: path.to_owned(),
            bypass,
        })
    }

    /// The cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn with_conn<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, LlmError> {
        let conn = Arc::clone(&self.conn);
        tokio::task::spawn_blocking(move || {
            let guard = conn.lock().map_err(|_| LlmError::Storage {
                message: "the cache connection lock is poisoned".to_owned(),
            })?;
            f(&guard).map_err(|e| LlmError::Storage {
                message: format!("response cache: {e}"),
            })
        })
        .await
        .map_err(|e| LlmError::Storage {
            message: format!("response cache task failed: {e}"),
        })?
    }

    async fn lookup(&self, key: String) -> Result<Option<ChatResponse>, LlmError> {
        let json: Option<String> = self
            .with_conn(move |c| {
                c.query_row(
                    "SELECT response FROM responses WHERE key = ?1",
                    params![key],
                    |r| r.get(0),
                )
                .optional()
            })
            .await?;
        match json {
            None => Ok(None),
            Some(j) => serde_json::from_str(&j)
                .map(Some)
                .map_err(|e| LlmError::Storage {
                    message: format!("a cached response cannot be read: {e}"),
                }),
        }
    }

    async fn store(&self, key: String, response: &ChatResponse) -> Result<(), LlmError> {
        let mut stored = response.clone();
        stored.origin = Origin::Network;
        let json = serde_json::to_string(&stored).map_err(|e| LlmError::Storage {
            message: format!("cannot encode a response: {e}"),
        })?;
        let provider = self.inner.id().to_owned();
        self.with_conn(move |c| {
            c.execute(
                "INSERT OR REPLACE INTO responses (key, provider, response) VALUES (?1, ?2, ?3)",
                params![key, provider, json],
            )
            .map(|_| ())
        })
        .await
    }
}

#[async_trait]
impl LlmProvider for Cache {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn endpoint(&self) -> Option<&str> {
        self.inner.endpoint()
    }

    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        if !req.is_deterministic() {
            return self.inner.chat(req).await;
        }
        // The endpoint, when the id does not name it, keys the entry too: a reply cached
        // from one server is never served for another.
        let key = match self.inner.endpoint() {
            Some(endpoint) => request_digest(&format!("{}@{endpoint}", self.inner.id()), req),
            None => request_digest(self.inner.id(), req),
        };
        if !self.bypass {
            match self.lookup(key.clone()).await {
                Ok(Some(mut hit)) => {
                    debug!(provider = %self.id(), digest = %key, "cache hit");
                    hit.origin = Origin::Cache;
                    return Ok(hit);
                }
                Ok(None) => debug!(provider = %self.id(), digest = %key, "cache miss"),
                Err(e) => warn!(provider = %self.id(), "cache lookup skipped: {e}"),
            }
        }
        let response = self.inner.chat(req).await?;
        if response.origin == Origin::Network
            && let Err(e) = self.store(key, &response).await
        {
            warn!(provider = %self.id(), "cache store skipped: {e}");
        }
        Ok(response)
    }
}
