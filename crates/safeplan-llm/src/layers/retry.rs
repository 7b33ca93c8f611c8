//! Retry with exponential backoff and full jitter, honouring the provider's delay.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use tracing::{debug, warn};

use crate::LlmProvider;
use crate::error::LlmError;
use crate::types::{ChatRequest, ChatResponse};

/// When and how long to retry.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 = no retry).
    pub max_attempts: u32,
    /// The backoff before the second attempt; it doubles each time.
    pub base: Duration,
    /// No backoff is longer, and a provider's delay longer than this is not waited for: the
    /// error is returned at once. Sleeping an hour because a server said so would stall a
    /// whole benchmark; the caller can decide better.
    pub cap: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 5,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The delay before attempt `attempt + 1` after `error` at attempt `attempt` (1-based),
    /// or `None` to give up. `unit` is a uniform sample in `[0, 1)` (the jitter).
    pub fn delay(&self, attempt: u32, error: &LlmError, unit: f64) -> Option<Duration> {
        if attempt >= self.max_attempts || !error.is_retryable() {
            return None;
        }
        if let Some(asked) = error.retry_after() {
            return (asked <= self.cap).then_some(asked);
        }
        // Full jitter (AWS architecture blog): uniform in [0, min(cap, base * 2^(n-1))].
        let exp = self
            .base
            .checked_mul(2u32.saturating_pow(attempt.saturating_sub(1)))
            .unwrap_or(self.cap)
            .min(self.cap);
        Some(exp.mul_f64(unit.clamp(0.0, 1.0)))
    }
}

/// The retry layer: calls `inner` again after a retryable error ([`LlmError::is_retryable`]:
/// rate limits, timeouts, transport and server errors), with full-jitter exponential backoff
/// or the provider's own delay, as [`RetryPolicy`] says; other errors pass through at once.
pub struct Retry {
    inner: Arc<dyn LlmProvider>,
    policy: RetryPolicy,
    rng: Mutex<fastrand::Rng>,
}

impl Retry {
    /// Retry `inner` under `policy`, with jitter from a randomly seeded generator.
    pub fn new(inner: Arc<dyn LlmProvider>, policy: RetryPolicy) -> Retry {
        Retry::with_rng(inner, policy, fastrand::Rng::new())
    }

    /// The same with a given generator (`fastrand::Rng::with_seed(n)` in tests).
    pub fn with_rng(inner: Arc<dyn LlmProvider>, policy: RetryPolicy, rng: fastrand::Rng) -> Retry {
        Retry {
            inner,
            policy,
            rng: Mutex::new(rng),
        }
    }

    fn unit(&self) -> f64 {
        // A poisoned lock only means another task panicked mid-draw; the state is still fine.
        match self.rng.lock() {
            Ok(mut rng) => rng.f64(),
            Err(poisoned) => poisoned.into_inner().f64(),
        }
    }
}

#[async_trait]
impl LlmProvider for Retry {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn endpoint(&self) -> Option<&str> {
        self.inner.endpoint()
    }

    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut attempt = 1;
        loop {
            match self.inner.chat(req).await {
                Ok(r) => return Ok(r),
                Err(e) => {
                    let Some(delay) = self.policy.delay(attempt, &e, self.unit()) else {
                        if e.is_retryable() {
                            warn!(provider = %self.id(), attempt, kind = e.kind(), "giving up: {e}");
                        }
                        return Err(e);
                    };
                    debug!(
                        provider = %self.id(),
                        attempt,
                        kind = e.kind(),
                        delay_ms = delay.as_millis() as u64,
                        "retrying: {e}"
                    );
                    tokio::time::sleep(delay).await;
                    attempt += 1;
                }
            }
        }
    }
}
