//! Helpers shared by the tests.

use std::path::{Path, PathBuf};

use safeplan_llm::adapter::ResponseHeaders;
use safeplan_llm::{ApiKey, ProviderConfig, ProviderKind};

/// A fixture file's bytes.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Headers from pairs.
pub fn headers(pairs: &[(&str, &str)]) -> ResponseHeaders {
    ResponseHeaders(
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
    )
}

/// A config for `kind` at `base` with an optional key.
pub fn config(kind: ProviderKind, model: &str, base: &str, key: Option<&str>) -> ProviderConfig {
    ProviderConfig {
        kind,
        model: model.to_owned(),
        base_url: base.to_owned(),
        api_key: key.map(ApiKey::new),
        send_temperature: None,
    }
}

/// A fresh directory for one test, removed at the end.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let path =
            std::env::temp_dir().join(format!("safeplan-llm-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
