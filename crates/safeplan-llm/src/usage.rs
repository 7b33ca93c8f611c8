//! Usage and cost accounting.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::LlmProvider;
use crate::error::LlmError;
use crate::types::{ChatRequest, ChatResponse, Origin, Usage};

/// A model's prices, in US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Input (prompt) tokens.
    pub input_per_mtok: f64,
    /// Output tokens, reasoning included.
    pub output_per_mtok: f64,
    /// Input tokens served from the provider's prompt cache; the input price when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_per_mtok: Option<f64>,
}

impl Price {
    /// The cost of `usage` at this price.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let cached = usage.cached_tokens.min(usage.input_tokens);
        let fresh = usage.input_tokens - cached;
        (fresh as f64 * self.input_per_mtok
            + cached as f64 * self.cached_input_per_mtok.unwrap_or(self.input_per_mtok)
            + usage.output_tokens as f64 * self.output_per_mtok)
            / 1_000_000.0
    }
}

/// Prices by model name, as JSON `{"gpt-4o-mini": {"input_per_mtok": 0.15, ...}}`.
///
/// No prices are built in: they change, and a wrong price is worse than none.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PriceTable(pub BTreeMap<String, Price>);

impl PriceTable {
    /// Read a table from JSON text.
    pub fn from_json(text: &str) -> Result<PriceTable, LlmError> {
        serde_json::from_str(text).map_err(|e| {
            LlmError::config(
                format!("the price table is not valid: {e}"),
                r#"write {"MODEL": {"input_per_mtok": 0.15, "output_per_mtok": 0.6}}"#,
            )
        })
    }

    /// The price of `model`, if listed.
    pub fn get(&self, model: &str) -> Option<&Price> {
        self.0.get(model)
    }

    /// The cost of `usage` on `model`, if it is priced.
    pub fn cost(&self, model: &str, usage: &Usage) -> Option<f64> {
        self.get(model).map(|p| p.cost(usage))
    }
}

/// Running totals of a [`UsageTracker`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageTotals {
    /// Calls made.
    pub requests: u64,
    /// Calls answered by the provider.
    pub network: u64,
    /// Calls answered by the response cache.
    pub cache_hits: u64,
    /// Calls answered by a cassette.
    pub replayed: u64,
    /// Calls that failed.
    pub errors: u64,
    /// Tokens of the calls answered by the provider (cached and replayed ones cost nothing).
    pub usage: Usage,
    /// Their cost, when the model is priced.
    pub cost_usd: Option<f64>,
}

/// The accounting layer: counts calls, tokens and cost, and passes everything through.
pub struct UsageTracker {
    inner: Arc<dyn LlmProvider>,
    model: String,
    prices: PriceTable,
    totals: Mutex<UsageTotals>,
}

impl UsageTracker {
    /// Track `inner`, which serves `model`, pricing it from `prices`.
    pub fn new(
        inner: Arc<dyn LlmProvider>,
        model: impl Into<String>,
        prices: PriceTable,
    ) -> UsageTracker {
        UsageTracker {
            inner,
            model: model.into(),
            prices,
            totals: Mutex::new(UsageTotals::default()),
        }
    }

    /// The cost of one response, if its model is priced (by the configured model name,
    /// then by the name the provider reported).
    pub fn cost_of(&self, response: &ChatResponse) -> Option<f64> {
        self.prices.cost(&self.model, &response.usage).or_else(|| {
            response
                .model
                .as_deref()
                .and_then(|m| self.prices.cost(m, &response.usage))
        })
    }

    /// The totals so far.
    pub fn totals(&self) -> UsageTotals {
        match self.totals.lock() {
            Ok(t) => t.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

#[async_trait]
impl LlmProvider for UsageTracker {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn endpoint(&self) -> Option<&str> {
        self.inner.endpoint()
    }

    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let result = self.inner.chat(req).await;
        let cost = result.as_ref().ok().and_then(|r| self.cost_of(r));
        let mut t = match self.totals.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        t.requests += 1;
        match &result {
            Err(_) => t.errors += 1,
            Ok(r) => match r.origin {
                Origin::Cache => t.cache_hits += 1,
                Origin::Replay => t.replayed += 1,
                Origin::Network => {
                    t.network += 1;
                    t.usage.add(&r.usage);
                    if let Some(c) = cost {
                        t.cost_usd = Some(t.cost_usd.unwrap_or(0.0) + c);
                    }
                }
            },
        }
        drop(t);
        result
    }
}
