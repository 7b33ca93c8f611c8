//! A time limit on each call.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::LlmProvider;
use crate::error::LlmError;
use crate::types::{ChatRequest, ChatResponse};

/// The timeout layer: a call that takes longer than `after` is dropped and becomes
/// [`LlmError::Timeout`] (retryable). Below the retry layer, it limits each attempt.
pub struct Timeout {
    inner: Arc<dyn LlmProvider>,
    after: Duration,
}

impl Timeout {
    /// Limit `inner`'s calls to `after`.
    pub fn new(inner: Arc<dyn LlmProvider>, after: Duration) -> Timeout {
        Timeout { inner, after }
    }
}

#[async_trait]
impl LlmProvider for Timeout {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn endpoint(&self) -> Option<&str> {
        self.inner.endpoint()
    }

    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        match tokio::time::timeout(self.after, self.inner.chat(req)).await {
            Ok(result) => result,
            Err(_) => Err(LlmError::Timeout {
                message: format!("no response within {:.1}s", self.after.as_secs_f64()),
            }),
        }
    }
}
