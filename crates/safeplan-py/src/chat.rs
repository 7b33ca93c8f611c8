//! A chat model that is a Python callable, so that the library's LLM judge and reviser —
//! their prompts, reply parsing and revision checks — can ask any model a Python harness
//! already reaches (an inspect_ai model, a local pipeline) instead of the Rust provider
//! layer.
//!
//! `chat(request: dict) -> str | dict`, plain or `async def`. The request is the
//! provider-neutral [`ChatRequest`] in its serde form (`system`, `messages` of `role` and
//! `content`, `temperature`, `max_output_tokens`, `response_format` when JSON is asked
//! for). The answer is the reply text, or a dict with `text` and, optionally,
//! `input_tokens`, `output_tokens` and `finish_reason` (`"length"` marks a reply cut off
//! at the token limit). An exception it raises is [`LlmError::External`]: not retried here
//! (the callable keeps its own retry policy), so the episode ends with the error.

use std::time::Instant;

use async_trait::async_trait;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use safeplan_llm::{ChatRequest, ChatResponse, FinishReason, LlmError, LlmProvider, Origin, Usage};

use crate::aio::{Callback, describe};
use crate::to_python;

/// A provider whose every call is a call of a Python callable.
pub(crate) struct PyChat {
    /// `python:NAME`.
    pub id: String,
    /// The callable and how its awaitables run.
    pub callback: Callback,
}

/// The reply a `chat` callable returned, before timing is added.
struct Reply {
    text: String,
    usage: Usage,
    finish_reason: FinishReason,
}

fn reply_from(out: &Bound<'_, PyAny>) -> PyResult<Reply> {
    if let Ok(text) = out.cast::<PyString>() {
        return Ok(Reply {
            text: text.extract()?,
            usage: Usage::default(),
            finish_reason: FinishReason::Stop,
        });
    }
    let shape = || {
        PyTypeError::new_err(
            "a chat function returns the reply text, or a dict with \"text\" (and optionally \
             \"input_tokens\", \"output_tokens\", \"finish_reason\")",
        )
    };
    let dict = out.cast::<PyDict>().map_err(|_| shape())?;
    let text: String = dict
        .get_item("text")?
        .ok_or_else(shape)?
        .extract()
        .map_err(|_| shape())?;
    let count = |key: &str| -> PyResult<u64> {
        match dict.get_item(key)? {
            Some(v) if !v.is_none() => v.extract().map_err(|_| {
                PyTypeError::new_err(format!("\"{key}\" is a count of tokens: an int ≥ 0"))
            }),
            _ => Ok(0),
        }
    };
    let finish_reason = match dict.get_item("finish_reason")? {
        Some(v) if !v.is_none() => match v.extract::<String>()?.as_str() {
            "stop" => FinishReason::Stop,
            "length" | "max_tokens" | "model_length" => FinishReason::Length,
            "content_filter" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_string()),
        },
        _ => FinishReason::Stop,
    };
    Ok(Reply {
        text,
        usage: Usage {
            input_tokens: count("input_tokens")?,
            output_tokens: count("output_tokens")?,
            ..Usage::default()
        },
        finish_reason,
    })
}

#[async_trait]
impl LlmProvider for PyChat {
    fn id(&self) -> &str {
        &self.id
    }

    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        let reply = self
            .callback
            .call(|py| PyTuple::new(py, [to_python(py, req)?]), reply_from)
            .await
            .map_err(|e| LlmError::External {
                provider: self.id.clone(),
                message: describe(&e),
            })?;
        Ok(ChatResponse {
            text: reply.text,
            finish_reason: reply.finish_reason,
            usage: reply.usage,
            latency_ms: started.elapsed().as_millis() as u64,
            request_id: None,
            model: None,
            origin: Origin::Network,
        })
    }
}
