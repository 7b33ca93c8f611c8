//! Concurrency and rate limits: at most N calls in flight, R requests and T tokens per
//! minute.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::{Mutex, Semaphore};
use tokio::time::Instant;
use tracing::debug;

use crate::LlmProvider;
use crate::error::LlmError;
use crate::types::{ChatRequest, ChatResponse};

/// The limits; `None` is no limit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Calls in flight at once.
    pub max_concurrent: Option<usize>,
    /// Requests started in any 60-second window.
    pub requests_per_minute: Option<u32>,
    /// Tokens (input + output) in any 60-second window. Before a call its tokens are
    /// estimated (prompt bytes / 4 plus the output limit); after it, the provider's
    /// count replaces the estimate.
    pub tokens_per_minute: Option<u64>,
}

const WINDOW: Duration = Duration::from_secs(60);

#[derive(Debug)]
struct Entry {
    id: u64,
    at: Instant,
    tokens: u64,
}

#[derive(Debug, Default)]
struct Window {
    next_id: u64,
    entries: VecDeque<Entry>,
}

/// The limit layer: holds each call until it fits the concurrency slots and the per-minute
/// request and token budgets of [`Limits`], so a long benchmark stays under the provider's
/// quotas instead of living on 429s.
pub struct Limit {
    inner: Arc<dyn LlmProvider>,
    limits: Limits,
    slots: Option<Semaphore>,
    window: Mutex<Window>,
}

impl Limit {
    /// Wrap `inner` so that its calls respect `limits`.
    pub fn new(inner: Arc<dyn LlmProvider>, limits: Limits) -> Limit {
        Limit {
            inner,
            slots: limits.max_concurrent.map(|n| Semaphore::new(n.max(1))),
            limits,
            window: Mutex::new(Window::default()),
        }
    }

    /// Wait until a call of `estimate` tokens fits the per-minute budgets; return its entry.
    async fn admit(&self, estimate: u64) -> Option<u64> {
        if self.limits.requests_per_minute.is_none() && self.limits.tokens_per_minute.is_none() {
            return None;
        }
        loop {
            let wait = {
                let mut w = self.window.lock().await;
                let now = Instant::now();
                while w
                    .entries
                    .front()
                    .is_some_and(|e| now.duration_since(e.at) >= WINDOW)
                {
                    w.entries.pop_front();
                }
                let requests_ok = self
                    .limits
                    .requests_per_minute
                    .is_none_or(|rpm| w.entries.len() < rpm.max(1) as usize);
                let used: u64 = w.entries.iter().map(|e| e.tokens).sum();
                // A call bigger than the whole budget still runs, alone in its window.
                let tokens_ok = self
                    .limits
                    .tokens_per_minute
                    .is_none_or(|tpm| w.entries.is_empty() || used.saturating_add(estimate) <= tpm);
                if requests_ok && tokens_ok {
                    let id = w.next_id;
                    w.next_id += 1;
                    w.entries.push_back(Entry {
                        id,
                        at: now,
                        tokens: estimate,
                    });
                    return Some(id);
                }
                // The oldest entry leaves the window first; try again then.
                w.entries.front().map_or(Duration::from_millis(10), |e| {
                    WINDOW.saturating_sub(now.duration_since(e.at))
                })
            };
            debug!(provider = %self.inner.id(), wait_ms = wait.as_millis() as u64, "rate limit: waiting");
            tokio::time::sleep(wait).await;
        }
    }

    async fn settle(&self, id: Option<u64>, tokens: u64) {
        if let Some(id) = id {
            let mut w = self.window.lock().await;
            if let Some(e) = w.entries.iter_mut().find(|e| e.id == id) {
                e.tokens = tokens;
            }
        }
    }
}

#[async_trait]
impl LlmProvider for Limit {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn endpoint(&self) -> Option<&str> {
        self.inner.endpoint()
    }

    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let _permit = match &self.slots {
            Some(s) => Some(s.acquire().await.map_err(|_| LlmError::Config {
                message: "the concurrency limiter was closed".to_owned(),
                hint: None,
            })?),
            None => None,
        };
        let estimate = req
            .estimated_input_tokens()
            .saturating_add(u64::from(req.max_output_tokens.unwrap_or(0)));
        let entry = self.admit(estimate).await;
        let result = self.inner.chat(req).await;
        if let Ok(r) = &result {
            self.settle(entry, r.usage.total()).await;
        }
        result
    }
}
