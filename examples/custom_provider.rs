//! Plug a model of your own into safeplan: implement [`LlmProvider`] (one `chat` method,
//! no HTTP required), then let [`Stack::build_on`] wrap it in the same retry, timeout and
//! usage-accounting layers the CLI and the benchmark put around OpenAI or Ollama.
//!
//! The "model" here is a toy: canned, deterministic replies, and a busy signal on its first
//! call so that the retry layer has something to do. No network, no keys.
//!
//! `cargo run -q -p safeplan-examples --example custom_provider`

#![allow(clippy::print_stdout)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use safeplan_llm::{
    ChatRequest, ChatResponse, FinishReason, LlmError, LlmProvider, Origin, Stack, Usage,
};

/// A local model that knows two plans by heart.
#[derive(Default)]
struct CannedModel {
    calls: AtomicU32,
}

#[async_trait]
impl LlmProvider for CannedModel {
    fn id(&self) -> &str {
        "canned:toy-1" // how reports and transcripts name this provider
    }

    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        // Map your backend's failures onto `LlmError`: the variant decides whether the retry
        // layer tries again (rate limits, timeouts, server errors) or gives up (auth, quota).
        if self.calls.fetch_add(1, Ordering::SeqCst) == 0 {
            let retry_after = Some(Duration::from_millis(20));
            return Err(LlmError::RateLimited {
                retry_after,
                message: "warming up".into(),
            });
        }
        let prompt: String = req.messages.iter().map(|m| m.content.as_str()).collect();
        let text = if prompt.contains("soup") {
            "(pick-up soup stove)\n(move stove table)\n(put-down soup table)"
        } else {
            "(wait)"
        };
        let words = |s: &str| s.split_whitespace().count() as u64; // the toy's "tokens"
        Ok(ChatResponse {
            text: text.to_string(),
            finish_reason: FinishReason::Stop,
            usage: Usage {
                input_tokens: words(&prompt),
                output_tokens: words(text),
                ..Usage::default()
            },
            latency_ms: 0,
            request_id: None,
            model: Some("toy-1".into()),
            origin: Origin::Network,
        })
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = Arc::new(CannedModel::default());
    // The standard layers (retry with backoff, a timeout per attempt, usage tracking) on our
    // provider; "toy-1" is the name a price table would know it by.
    let built = Stack::default().build_on(model.clone(), "toy-1")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;

    for prompt in ["Plan: carry the soup to the table.", "Plan: tidy the hall."] {
        let req = ChatRequest::user(prompt).with_temperature(0.0);
        let reply = runtime.block_on(built.provider.chat(&req))?;
        println!("{} > {prompt}\n{}\n", built.provider.id(), reply.text);
    }
    // The tracker counts what the caller saw; the model counts what it was asked.
    let (totals, calls) = (built.usage.totals(), model.calls.load(Ordering::SeqCst));
    let (tokens_in, tokens_out) = (totals.usage.input_tokens, totals.usage.output_tokens);
    println!(
        "usage: {} requests, {} errors, {tokens_in} tokens in, {tokens_out} out",
        totals.requests, totals.errors
    );
    println!("the model was called {calls} times: the retry layer absorbed its busy signal");
    Ok(())
}
