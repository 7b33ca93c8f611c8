//! The API key: a secret that can be used but never shown.

use std::fmt;

/// An API key for a provider.
///
/// It has no `Display` and no `Serialize`, and its `Debug` prints `ApiKey(***)`, so no log
/// line, error message, cache row or cassette entry can carry it by accident. The only way
/// to read it is [`ApiKey::expose_secret`], which the adapters call when they put it into a
/// request header, and which is easy to grep for in a review.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wrap a key. Surrounding whitespace (a trailing newline from a file) is trimmed.
    pub fn new(key: impl Into<String>) -> ApiKey {
        let key: String = key.into();
        ApiKey(key.trim().to_owned())
    }

    /// The key itself, for the one place that must send it.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }

    /// Whether the key is empty (an environment variable set to "").
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}
