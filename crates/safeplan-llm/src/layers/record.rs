//! Record and replay: a cassette file of request/response pairs, so a run can be repeated
//! without a network, a key or a cost.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tracing::debug;

use super::{canonical_request, request_digest};
use crate::LlmProvider;
use crate::error::LlmError;
use crate::types::{ChatRequest, ChatResponse, Origin};

/// One line of a cassette (JSON Lines).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CassetteEntry {
    /// [`request_digest`] of the request.
    pub digest: String,
    /// The normalised request: `{"v", "provider", "request"}`, no headers, no key.
    pub request: Value,
    /// The response.
    pub response: ChatResponse,
}

/// The record layer: passes every call to `inner` and appends each success to the
/// cassette, one JSON line per call, flushed at once (a crashed run keeps what it got).
pub struct Record {
    inner: Arc<dyn LlmProvider>,
    file: Mutex<File>,
    path: PathBuf,
}

impl Record {
    /// Record `inner`'s responses into `path` (created, or appended to).
    pub fn open(inner: Arc<dyn LlmProvider>, path: &Path) -> Result<Record, LlmError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| {
                LlmError::config(
                    format!(
                        "cannot open the cassette {} for recording: {e}",
                        path.display()
                    ),
                    "check that the directory exists and is writable",
                )
            })?;
        Ok(Record {
            inner,
            file: Mutex::new(file),
            path: path.to_owned(),
        })
    }
}

#[async_trait]
impl LlmProvider for Record {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn endpoint(&self) -> Option<&str> {
        self.inner.endpoint()
    }

    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let response = self.inner.chat(req).await?;
        let entry = CassetteEntry {
            digest: request_digest(self.id(), req),
            request: canonical_request(self.id(), req),
            response: ChatResponse {
                origin: Origin::Network,
                ..response.clone()
            },
        };
        let mut line = serde_json::to_string(&entry).map_err(|e| LlmError::Storage {
            message: format!("cannot encode a cassette entry: {e}"),
        })?;
        line.push('\n');
        // One short write of a whole line; holding a std mutex across it is fine.
        let mut file = self.file.lock().map_err(|_| LlmError::Storage {
            message: "the cassette lock is poisoned".to_owned(),
        })?;
        file.write_all(line.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| LlmError::Storage {
                message: format!("cannot write the cassette {}: {e}", self.path.display()),
            })?;
        debug!(provider = %self.id(), digest = %entry.digest, "recorded");
        Ok(response)
    }
}

/// The replay provider: answers from a cassette and never touches the network. A request
/// the cassette does not hold is [`LlmError::ReplayMiss`], never a silent network call.
#[derive(Debug)]
pub struct Replay {
    id: String,
    path: PathBuf,
    entries: HashMap<String, ChatResponse>,
}

impl Replay {
    /// Load the cassette at `path` and answer as provider `id` (the id the requests were
    /// recorded under, e.g. `openai:gpt-4o-mini`). When a request was recorded twice, the
    /// later response wins.
    pub fn open(id: impl Into<String>, path: &Path) -> Result<Replay, LlmError> {
        let file = File::open(path).map_err(|e| {
            LlmError::config(
                format!(
                    "cannot open the cassette {} for replay: {e}",
                    path.display()
                ),
                "record one first with --record PATH",
            )
        })?;
        let mut entries = HashMap::new();
        for (n, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| LlmError::Storage {
                message: format!("cannot read the cassette {}: {e}", path.display()),
            })?;
            if line.trim().is_empty() {
                continue;
            }
            let entry: CassetteEntry = serde_json::from_str(&line).map_err(|e| {
                LlmError::config(
                    format!("cassette {} line {}: {e}", path.display(), n + 1),
                    "the cassette is damaged; record it again",
                )
            })?;
            entries.insert(entry.digest, entry.response);
        }
        Ok(Replay {
            id: id.into(),
            path: path.to_owned(),
            entries,
        })
    }

    /// How many distinct requests the cassette holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the cassette is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[async_trait]
impl LlmProvider for Replay {
    fn id(&self) -> &str {
        &self.id
    }

    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let digest = request_digest(&self.id, req);
        match self.entries.get(&digest) {
            Some(r) => Ok(ChatResponse {
                origin: Origin::Replay,
                ..r.clone()
            }),
            None => Err(LlmError::ReplayMiss {
                cassette: self.path.clone(),
                provider: self.id.clone(),
                digest,
            }),
        }
    }
}
