//! Layers: each wraps an `Arc<dyn LlmProvider>` and is one itself, so they stack in any
//! order. [`crate::Stack`] stacks them in the order the benchmark uses.

pub mod cache;
pub mod limit;
pub mod record;
pub mod retry;
pub mod timeout;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::types::ChatRequest;

/// The digest of a request to a provider: SHA-256 (hex) over canonical JSON of
/// `{"v": 1, "provider": ID, "request": REQUEST}`. The request includes the sample id and
/// every option, and never a header or key. Object keys are sorted (serde_json's map is a
/// BTreeMap), so the digest is stable across runs, platforms and field order.
pub fn request_digest(provider: &str, req: &ChatRequest) -> String {
    let canonical = canonical_request(provider, req);
    let mut hasher = Sha256::new();
    hasher.update(canonical.to_string().as_bytes());
    let digest = hasher.finalize();
    let mut hex = String::with_capacity(64);
    for b in digest {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

/// The normalised form of a request that the digest, the cache and the cassette use.
pub(crate) fn canonical_request(provider: &str, req: &ChatRequest) -> Value {
    // A request that cannot be serialised cannot happen (plain data), but never panic.
    let request = serde_json::to_value(req).unwrap_or(Value::Null);
    json!({"v": 1, "provider": provider, "request": request})
}
