//! The provider-neutral request and response: plain `serde` data.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message of the conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (the benchmark's prompt).
    User,
    /// The model (an earlier reply, for multi-turn prompts).
    Assistant,
}

/// One message of the conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text.
    pub content: String,
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Message {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }

    /// An assistant (model) message.
    pub fn assistant(content: impl Into<String>) -> Message {
        Message {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// The shape the reply must have.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum ResponseFormat {
    /// Free text (the default).
    #[default]
    Text,
    /// Any JSON object (OpenAI `json_object`, Gemini `application/json`, Ollama `"json"`).
    JsonObject,
    /// JSON that matches a JSON Schema.
    JsonSchema {
        /// A name for the schema (OpenAI requires one; others ignore it).
        name: String,
        /// The JSON Schema.
        schema: Value,
        /// Whether the provider must follow the schema exactly (OpenAI `strict`).
        strict: bool,
    },
}

impl ResponseFormat {
    /// Whether this is [`ResponseFormat::Text`] (used to leave it out of serialised requests).
    pub fn is_text(&self) -> bool {
        matches!(self, ResponseFormat::Text)
    }
}

/// A chat request, the same for every provider.
///
/// Options a backend does not support are left out of its request, never rejected, except
/// where leaving them out would change the meaning silently (see each adapter).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// The conversation, oldest first; usually one user message.
    pub messages: Vec<Message>,
    /// Sampling temperature; `None` is the provider's default. `Some(0.0)` makes the request
    /// deterministic for the response cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens to generate (including reasoning tokens where the provider counts them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// A sampling seed, where the provider supports one (best effort on every provider).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// Text, JSON mode or a JSON schema.
    #[serde(default, skip_serializing_if = "ResponseFormat::is_text")]
    pub response_format: ResponseFormat,
    /// Which sample this is when the same prompt is asked several times at a temperature
    /// above zero. Never sent to the provider: it only makes each sample its own cache and
    /// cassette entry (and makes such requests cacheable at all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_id: Option<String>,
}

impl ChatRequest {
    /// A request with one user message and every option at its default.
    pub fn user(prompt: impl Into<String>) -> ChatRequest {
        ChatRequest {
            messages: vec![Message::user(prompt)],
            ..ChatRequest::default()
        }
    }

    /// Set the system prompt.
    pub fn with_system(mut self, system: impl Into<String>) -> ChatRequest {
        self.system = Some(system.into());
        self
    }

    /// Set the temperature.
    pub fn with_temperature(mut self, temperature: f64) -> ChatRequest {
        self.temperature = Some(temperature);
        self
    }

    /// Set the output token limit.
    pub fn with_max_output_tokens(mut self, max: u32) -> ChatRequest {
        self.max_output_tokens = Some(max);
        self
    }

    /// Set the seed.
    pub fn with_seed(mut self, seed: u64) -> ChatRequest {
        self.seed = Some(seed);
        self
    }

    /// Set the response format.
    pub fn with_response_format(mut self, format: ResponseFormat) -> ChatRequest {
        self.response_format = format;
        self
    }

    /// Set the sample id.
    pub fn with_sample_id(mut self, sample_id: impl Into<String>) -> ChatRequest {
        self.sample_id = Some(sample_id.into());
        self
    }

    /// Whether the same request must give the same answer, so a stored answer may stand in
    /// for a new one: temperature exactly 0, or an explicit sample id.
    pub fn is_deterministic(&self) -> bool {
        self.temperature == Some(0.0) || self.sample_id.is_some()
    }

    /// A rough count of the input tokens (UTF-8 bytes / 4), for rate limiting before the
    /// provider has said how many there were.
    pub fn estimated_input_tokens(&self) -> u64 {
        let chars: usize = self.system.as_ref().map_or(0, String::len)
            + self.messages.iter().map(|m| m.content.len()).sum::<usize>();
        (chars as u64).div_ceil(4)
    }
}

/// Why the model stopped, in one vocabulary for every provider. A reply that ended on
/// [`FinishReason::Length`] may be cut mid-plan: callers that parse replies should say so.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural end or a stop sequence.
    Stop,
    /// The output token limit.
    Length,
    /// The provider's content filter (only seen on partial replies; a filtered reply without
    /// text is [`LlmError::ContentFiltered`](crate::LlmError::ContentFiltered)).
    ContentFilter,
    /// Anything else, as the provider spelled it.
    Other(String),
    /// The provider did not say.
    Unknown,
}

/// Token counts of one call.
///
/// `output_tokens` includes `reasoning_tokens` (both OpenAI and Gemini bill reasoning as
/// output; Gemini reports them apart, so its adapter adds them). `input_tokens` includes
/// `cached_tokens`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens, reasoning included.
    pub output_tokens: u64,
    /// Prompt tokens served from the provider's prompt cache.
    pub cached_tokens: u64,
    /// Reasoning ("thinking") tokens.
    pub reasoning_tokens: u64,
}

impl Usage {
    /// Input plus output tokens.
    pub fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }

    /// Add another call's counts.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cached_tokens = self.cached_tokens.saturating_add(other.cached_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(other.reasoning_tokens);
    }
}

/// Where a response came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The provider, over the network.
    #[default]
    Network,
    /// The response cache.
    Cache,
    /// A cassette being replayed.
    Replay,
}

/// A chat response, the same for every provider.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The reply text (reasoning summaries left out).
    pub text: String,
    /// Why the model stopped.
    pub finish_reason: FinishReason,
    /// Token counts.
    pub usage: Usage,
    /// Wall time of the HTTP exchange, in milliseconds (the original one for cached and
    /// replayed responses).
    pub latency_ms: u64,
    /// The provider's id of this response or request (`x-request-id`, `id`, `responseId`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The model that answered, as the provider named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Where this response came from.
    #[serde(default)]
    pub origin: Origin,
}
