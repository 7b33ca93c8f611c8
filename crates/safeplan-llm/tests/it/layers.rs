//! The layers: retry, timeout, limits, cache, record/replay, usage; over loopback HTTP or a
//! scripted provider.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use safeplan_llm::layers::cache::Cache;
use safeplan_llm::layers::limit::Limit;
use safeplan_llm::layers::record::{Record, Replay};
use safeplan_llm::layers::retry::Retry;
use safeplan_llm::layers::timeout::Timeout;
use safeplan_llm::{
    CacheConfig, CassetteConfig, CassetteMode, ChatRequest, ChatResponse, FinishReason, Limits,
    LlmError, LlmProvider, Origin, Price, PriceTable, RetryPolicy, Stack, Usage, request_digest,
};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::common::{TempDir, fixture};
use crate::executor::{openai_at, openai_ok};

fn fast_retry(max_attempts: u32) -> RetryPolicy {
    RetryPolicy {
        max_attempts,
        base: Duration::from_millis(1),
        cap: Duration::from_secs(5),
    }
}

fn retry(inner: Arc<dyn LlmProvider>, policy: RetryPolicy) -> Arc<dyn LlmProvider> {
    Arc::new(Retry::with_rng(inner, policy, fastrand::Rng::with_seed(7)))
}

async fn requests(server: &MockServer) -> usize {
    server.received_requests().await.unwrap().len()
}

fn rate_limited(retry_after: &str) -> ResponseTemplate {
    ResponseTemplate::new(429)
        .set_body_raw(fixture("openai/error_rate_limit.json"), "application/json")
        .insert_header("retry-after", retry_after)
}

#[tokio::test]
async fn retries_a_429_after_its_retry_after() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(rate_limited("1"))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(openai_ok())
        .with_priority(2)
        .mount(&server)
        .await;
    let p = retry(openai_at(&server, None), fast_retry(3));
    let start = Instant::now();
    let r = p.chat(&ChatRequest::user("hi")).await.unwrap();
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "waited {:?}",
        start.elapsed()
    );
    assert_eq!(r.finish_reason, FinishReason::Stop);
    assert_eq!(requests(&server).await, 2);
}

#[tokio::test]
async fn a_retry_after_beyond_the_cap_is_returned_not_slept() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(rate_limited("3600"))
        .mount(&server)
        .await;
    let policy = RetryPolicy {
        cap: Duration::from_secs(1),
        ..fast_retry(5)
    };
    let start = Instant::now();
    let e = retry(openai_at(&server, None), policy)
        .chat(&ChatRequest::user("hi"))
        .await
        .unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(1));
    assert_eq!(e.retry_after(), Some(Duration::from_secs(3600)));
    assert_eq!(requests(&server).await, 1);
}

#[tokio::test]
async fn a_500_then_success() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(500)
                .set_body_raw(fixture("openai/error_server.json"), "application/json"),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(openai_ok())
        .with_priority(2)
        .mount(&server)
        .await;
    let r = retry(openai_at(&server, None), fast_retry(3))
        .chat(&ChatRequest::user("hi"))
        .await
        .unwrap();
    assert_eq!(r.usage.output_tokens, 46);
    assert_eq!(requests(&server).await, 2);
}

#[tokio::test]
async fn gives_up_after_max_attempts() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    let e = retry(openai_at(&server, None), fast_retry(3))
        .chat(&ChatRequest::user("hi"))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::Server { status: 503, .. }), "{e:?}");
    assert_eq!(requests(&server).await, 3);
}

#[tokio::test]
async fn a_401_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_raw(
            fixture("openai/error_invalid_api_key.json"),
            "application/json",
        ))
        .mount(&server)
        .await;
    let e = retry(openai_at(&server, Some("bad")), fast_retry(5))
        .chat(&ChatRequest::user("hi"))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::Auth { status: 401, .. }), "{e:?}");
    assert_eq!(requests(&server).await, 1);
}

#[tokio::test]
async fn exhausted_quota_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .set_body_raw(
                    fixture("openai/error_insufficient_quota.json"),
                    "application/json",
                )
                .insert_header("retry-after", "1"),
        )
        .mount(&server)
        .await;
    let e = retry(openai_at(&server, None), fast_retry(5))
        .chat(&ChatRequest::user("hi"))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::QuotaExhausted { .. }), "{e:?}");
    assert_eq!(requests(&server).await, 1);
}

#[tokio::test]
async fn a_hang_beyond_the_timeout() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(openai_ok().set_delay(Duration::from_millis(600)))
        .mount(&server)
        .await;
    let p: Arc<dyn LlmProvider> = Arc::new(Timeout::new(
        openai_at(&server, None),
        Duration::from_millis(100),
    ));
    let start = Instant::now();
    let e = p.chat(&ChatRequest::user("hi")).await.unwrap_err();
    assert!(start.elapsed() < Duration::from_millis(550));
    assert!(
        matches!(e, LlmError::Timeout { .. }) && e.is_retryable(),
        "{e:?}"
    );
}

#[test]
fn backoff_is_full_jitter_capped_and_skips_what_must_not_be_retried() {
    let p = RetryPolicy {
        max_attempts: 6,
        base: Duration::from_millis(100),
        cap: Duration::from_secs(1),
    };
    let server = LlmError::Server {
        status: 500,
        retry_after: None,
        message: String::new(),
    };
    assert_eq!(p.delay(1, &server, 0.5), Some(Duration::from_millis(50)));
    assert_eq!(p.delay(3, &server, 1.0), Some(Duration::from_millis(400)));
    assert_eq!(p.delay(5, &server, 1.0), Some(Duration::from_secs(1)));
    assert_eq!(p.delay(6, &server, 0.5), None);
    let asked = LlmError::RateLimited {
        retry_after: Some(Duration::from_millis(700)),
        message: String::new(),
    };
    assert_eq!(p.delay(1, &asked, 0.0), Some(Duration::from_millis(700)));
    for e in [
        LlmError::Auth {
            status: 401,
            message: String::new(),
        },
        LlmError::InvalidRequest {
            status: 400,
            message: String::new(),
        },
        LlmError::QuotaExhausted {
            message: String::new(),
        },
        LlmError::ContentFiltered {
            message: String::new(),
        },
    ] {
        assert_eq!(p.delay(1, &e, 0.5), None, "{e:?}");
    }
}

/// A provider that answers from a script and counts calls.
pub struct Scripted {
    pub calls: AtomicUsize,
    script: Mutex<VecDeque<Result<ChatResponse, LlmError>>>,
}

pub fn reply(text: &str, usage: Usage) -> ChatResponse {
    ChatResponse {
        text: text.into(),
        finish_reason: FinishReason::Stop,
        usage,
        latency_ms: 3,
        request_id: None,
        model: None,
        origin: Origin::Network,
    }
}

impl Scripted {
    pub fn new(script: Vec<Result<ChatResponse, LlmError>>) -> Arc<Scripted> {
        Arc::new(Scripted {
            calls: AtomicUsize::new(0),
            script: Mutex::new(script.into()),
        })
    }

    pub fn always(text: &str) -> Arc<Scripted> {
        Scripted::new(
            (0..100)
                .map(|i| {
                    Ok(reply(
                        &format!("{text} {i}"),
                        Usage {
                            input_tokens: 10,
                            output_tokens: 5,
                            ..Usage::default()
                        },
                    ))
                })
                .collect(),
        )
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl LlmProvider for Scripted {
    fn id(&self) -> &str {
        "scripted:m"
    }

    async fn chat(&self, _req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.script.lock().unwrap().pop_front().unwrap_or_else(|| {
            Err(LlmError::Server {
                status: 500,
                retry_after: None,
                message: "script ended".into(),
            })
        })
    }
}

#[tokio::test]
async fn cache_hit_without_a_network_call() {
    let dir = TempDir::new("cache-hit");
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(openai_ok())
        .expect(1)
        .mount(&server)
        .await;
    let cache = Cache::open(openai_at(&server, None), &dir.join("c.sqlite"), false).unwrap();
    let req = ChatRequest::user("hi").with_temperature(0.0);
    let first = cache.chat(&req).await.unwrap();
    assert_eq!(first.origin, Origin::Network);
    let second = cache.chat(&req).await.unwrap();
    assert_eq!(second.origin, Origin::Cache);
    assert_eq!(second.text, first.text);
    assert_eq!(second.usage, first.usage);
    // A fresh connection to the same file still hits: the cache is on disk.
    drop(cache);
    let again = Cache::open(openai_at(&server, None), &dir.join("c.sqlite"), false).unwrap();
    assert_eq!(again.chat(&req).await.unwrap().origin, Origin::Cache);
    server.verify().await;
}

#[tokio::test]
async fn only_deterministic_requests_are_cached() {
    let dir = TempDir::new("cache-det");
    let inner = Scripted::always("r");
    let cache = Cache::open(inner.clone(), &dir.join("c.sqlite"), false).unwrap();
    let warm = ChatRequest::user("hi").with_temperature(0.7);
    cache.chat(&warm).await.unwrap();
    cache.chat(&warm).await.unwrap();
    assert_eq!(
        inner.calls(),
        2,
        "temperature 0.7 without a sample id is not cached"
    );
    let default_t = ChatRequest::user("hi");
    cache.chat(&default_t).await.unwrap();
    cache.chat(&default_t).await.unwrap();
    assert_eq!(
        inner.calls(),
        4,
        "the provider's default temperature is not cached"
    );
    let s1 = warm.clone().with_sample_id("1");
    let s2 = warm.clone().with_sample_id("2");
    let a = cache.chat(&s1).await.unwrap();
    let b = cache.chat(&s2).await.unwrap();
    assert_eq!(inner.calls(), 6);
    assert_ne!(a.text, b.text);
    assert_eq!(cache.chat(&s1).await.unwrap().text, a.text);
    assert_eq!(cache.chat(&s2).await.unwrap().text, b.text);
    assert_eq!(inner.calls(), 6, "each sample id is its own entry");
}

#[tokio::test]
async fn bypass_skips_lookups_but_refreshes() {
    let dir = TempDir::new("cache-bypass");
    let inner = Scripted::always("r");
    let req = ChatRequest::user("hi").with_temperature(0.0);
    let first = Cache::open(inner.clone(), &dir.join("c.sqlite"), false)
        .unwrap()
        .chat(&req)
        .await
        .unwrap();
    let bypass = Cache::open(inner.clone(), &dir.join("c.sqlite"), true).unwrap();
    let fresh = bypass.chat(&req).await.unwrap();
    assert_eq!(fresh.origin, Origin::Network);
    assert_ne!(fresh.text, first.text);
    assert_eq!(inner.calls(), 2);
    let cached = Cache::open(inner.clone(), &dir.join("c.sqlite"), false)
        .unwrap()
        .chat(&req)
        .await
        .unwrap();
    assert_eq!((cached.origin, cached.text), (Origin::Cache, fresh.text));
}

#[tokio::test]
async fn errors_are_not_cached() {
    let dir = TempDir::new("cache-err");
    let inner = Scripted::new(vec![
        Err(LlmError::InvalidRequest {
            status: 400,
            message: "no".into(),
        }),
        Ok(reply("yes", Usage::default())),
    ]);
    let cache = Cache::open(inner.clone(), &dir.join("c.sqlite"), false).unwrap();
    let req = ChatRequest::user("hi").with_temperature(0.0);
    assert!(cache.chat(&req).await.is_err());
    assert_eq!(cache.chat(&req).await.unwrap().text, "yes");
}

#[test]
fn the_digest_is_stable_and_covers_every_option() {
    let req = ChatRequest::user("hi").with_temperature(0.0);
    // A fixed value: SHA-256 of the canonical JSON, independent of process and platform.
    let canonical = r#"{"provider":"openai:gpt-4o-mini","request":{"messages":[{"content":"hi","role":"user"}],"temperature":0.0},"v":1}"#;
    use sha2_check::hex_sha256;
    assert_eq!(
        request_digest("openai:gpt-4o-mini", &req),
        hex_sha256(canonical)
    );
    assert_ne!(
        request_digest("openai:gpt-4o", &req),
        request_digest("openai:gpt-4o-mini", &req)
    );
    assert_ne!(
        request_digest("openai:m", &req.clone().with_seed(1)),
        request_digest("openai:m", &req)
    );
    assert_ne!(
        request_digest("openai:m", &req.clone().with_sample_id("a")),
        request_digest("openai:m", &req)
    );
    assert_ne!(
        request_digest("openai:m", &req.clone().with_system("s")),
        request_digest("openai:m", &req)
    );
}

/// An independent SHA-256 (the FIPS 180-4 algorithm, written out) so the digest test does
/// not check the crate's hashing against itself.
mod sha2_check {
    pub fn hex_sha256(text: &str) -> String {
        const K: [u32; 64] = [
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
            0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
            0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
            0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
            0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
            0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
            0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
            0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
            0xc67178f2,
        ];
        let mut h: [u32; 8] = [
            0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
            0x5be0cd19,
        ];
        let mut msg = text.as_bytes().to_vec();
        let bits = (msg.len() as u64) * 8;
        msg.push(0x80);
        while msg.len() % 64 != 56 {
            msg.push(0);
        }
        msg.extend_from_slice(&bits.to_be_bytes());
        for chunk in msg.chunks(64) {
            let mut w = [0u32; 64];
            for i in 0..16 {
                w[i] = u32::from_be_bytes([
                    chunk[4 * i],
                    chunk[4 * i + 1],
                    chunk[4 * i + 2],
                    chunk[4 * i + 3],
                ]);
            }
            for i in 16..64 {
                let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
                let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
                w[i] = w[i - 16]
                    .wrapping_add(s0)
                    .wrapping_add(w[i - 7])
                    .wrapping_add(s1);
            }
            let mut v = h;
            for i in 0..64 {
                let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
                let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
                let t1 = v[7]
                    .wrapping_add(s1)
                    .wrapping_add(ch)
                    .wrapping_add(K[i])
                    .wrapping_add(w[i]);
                let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
                let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
                let t2 = s0.wrapping_add(maj);
                v = [
                    t1.wrapping_add(t2),
                    v[0],
                    v[1],
                    v[2],
                    v[3].wrapping_add(t1),
                    v[4],
                    v[5],
                    v[6],
                ];
            }
            for (a, b) in h.iter_mut().zip(v) {
                *a = a.wrapping_add(b);
            }
        }
        h.iter().map(|x| format!("{x:08x}")).collect()
    }

    #[test]
    fn known_answer() {
        assert_eq!(
            hex_sha256("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}

#[tokio::test]
async fn record_then_replay_and_a_replay_miss() {
    let dir = TempDir::new("cassette");
    let cassette = dir.join("run.jsonl");
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(openai_ok())
        .expect(2)
        .mount(&server)
        .await;
    let rec = Record::open(openai_at(&server, Some("sk-x")), &cassette).unwrap();
    let a = ChatRequest::user("a").with_temperature(0.0);
    let b = ChatRequest::user("b")
        .with_temperature(0.9)
        .with_sample_id("3");
    let ra = rec.chat(&a).await.unwrap();
    rec.chat(&b).await.unwrap();
    drop(rec);
    server.verify().await;
    drop(server);

    let lines = std::fs::read_to_string(&cassette).unwrap();
    assert_eq!(lines.lines().count(), 2);
    let first: serde_json::Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert_eq!(first["request"]["provider"], "openai:gpt-4o-mini");
    assert_eq!(first["request"]["request"]["messages"][0]["content"], "a");
    assert_eq!(first["digest"], request_digest("openai:gpt-4o-mini", &a));

    // The server is gone: replay must not need it.
    let replay = Replay::open("openai:gpt-4o-mini", &cassette).unwrap();
    assert_eq!(replay.len(), 2);
    let r = replay.chat(&a).await.unwrap();
    assert_eq!((r.origin, r.text), (Origin::Replay, ra.text));
    assert_eq!(replay.chat(&b).await.unwrap().origin, Origin::Replay);

    let unseen = ChatRequest::user("c").with_temperature(0.0);
    match replay.chat(&unseen).await.unwrap_err() {
        e @ LlmError::ReplayMiss { .. } => {
            let shown = e.to_string();
            assert!(shown.contains("run.jsonl"), "{shown}");
            assert!(
                shown.contains(&request_digest("openai:gpt-4o-mini", &unseen)),
                "{shown}"
            );
            assert!(!e.is_retryable());
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        Replay::open("openai:gpt-4o-mini", &dir.join("missing.jsonl")),
        Err(LlmError::Config { .. })
    ));
}

#[tokio::test(start_paused = true)]
async fn requests_per_minute_are_enforced() {
    let inner = Scripted::always("r");
    let limit = Limit::new(
        inner.clone(),
        Limits {
            requests_per_minute: Some(2),
            ..Limits::default()
        },
    );
    let start = tokio::time::Instant::now();
    for _ in 0..3 {
        limit.chat(&ChatRequest::user("hi")).await.unwrap();
    }
    // The third request waits for the first to leave the 60-second window.
    assert!(
        start.elapsed() >= Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
    assert!(start.elapsed() < Duration::from_secs(61));
    assert_eq!(inner.calls(), 3);
}

#[tokio::test(start_paused = true)]
async fn tokens_per_minute_are_enforced_with_actual_counts() {
    let inner = Scripted::always("r"); // each reply reports 15 tokens
    let limit = Limit::new(
        inner.clone(),
        Limits {
            tokens_per_minute: Some(40),
            ..Limits::default()
        },
    );
    let start = tokio::time::Instant::now();
    // Estimated at 1 + 20 = 21 tokens each before the call, settled at 15 after.
    let req = ChatRequest::user("hi").with_max_output_tokens(20);
    limit.chat(&req).await.unwrap();
    limit.chat(&req).await.unwrap();
    assert_eq!(start.elapsed(), Duration::ZERO);
    limit.chat(&req).await.unwrap(); // 15 + 15 + 21 > 40: waits
    assert!(start.elapsed() >= Duration::from_secs(60));
}

#[tokio::test]
async fn concurrency_is_limited() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(openai_ok().set_delay(Duration::from_millis(200)))
        .mount(&server)
        .await;
    let limit = Arc::new(Limit::new(
        openai_at(&server, None),
        Limits {
            max_concurrent: Some(1),
            ..Limits::default()
        },
    ));
    let start = Instant::now();
    let req = ChatRequest::user("hi");
    let (a, b) = tokio::join!(limit.chat(&req), limit.chat(&req));
    a.unwrap();
    b.unwrap();
    assert!(
        start.elapsed() >= Duration::from_millis(400),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn the_stack_accounts_usage_and_cost() {
    let dir = TempDir::new("stack");
    let inner = Scripted::new(vec![
        Err(LlmError::Server {
            status: 503,
            retry_after: None,
            message: "busy".into(),
        }),
        Ok(reply(
            "ok",
            Usage {
                input_tokens: 1_000_000,
                output_tokens: 500_000,
                cached_tokens: 200_000,
                reasoning_tokens: 0,
            },
        )),
    ]);
    let mut prices = PriceTable::default();
    prices.0.insert(
        "m".into(),
        Price {
            input_per_mtok: 1.0,
            output_per_mtok: 4.0,
            cached_input_per_mtok: Some(0.5),
        },
    );
    let stack = Stack {
        retry: Some(fast_retry(3)),
        limits: Limits {
            max_concurrent: Some(4),
            requests_per_minute: Some(100),
            tokens_per_minute: None,
        },
        timeout: Some(Duration::from_secs(5)),
        cache: Some(CacheConfig {
            path: dir.join("c.sqlite"),
            bypass: false,
        }),
        cassette: Some(CassetteConfig {
            mode: CassetteMode::Record,
            path: dir.join("c.jsonl"),
        }),
        prices,
        ..Stack::default()
    };
    let built = stack.build_on(inner.clone(), "m").unwrap();
    let req = ChatRequest::user("hi").with_temperature(0.0);
    let r = built.provider.chat(&req).await.unwrap();
    // 0.8M fresh × $1 + 0.2M cached × $0.5 + 0.5M out × $4 = 0.8 + 0.1 + 2.0
    let cost = built.usage.cost_of(&r).unwrap();
    assert!((cost - 2.9).abs() < 1e-9, "{cost}");
    assert_eq!(
        built.provider.chat(&req).await.unwrap().origin,
        Origin::Cache
    );
    assert_eq!(inner.calls(), 2);
    let t = built.usage.totals();
    assert_eq!(
        (t.requests, t.network, t.cache_hits, t.errors),
        (2, 1, 1, 0)
    );
    assert_eq!(t.usage.input_tokens, 1_000_000);
    assert!((t.cost_usd.unwrap() - 2.9).abs() < 1e-9);
    assert_eq!(
        std::fs::read_to_string(dir.join("c.jsonl"))
            .unwrap()
            .lines()
            .count(),
        1
    );
}

#[test]
fn price_tables_read_from_json() {
    let t = PriceTable::from_json(
        r#"{"gpt-4o-mini": {"input_per_mtok": 0.15, "output_per_mtok": 0.6}}"#,
    )
    .unwrap();
    let u = Usage {
        input_tokens: 2_000_000,
        output_tokens: 1_000_000,
        ..Usage::default()
    };
    assert!((t.cost("gpt-4o-mini", &u).unwrap() - 0.9).abs() < 1e-9);
    assert_eq!(t.cost("other", &u), None);
    assert!(matches!(
        PriceTable::from_json("[1]"),
        Err(LlmError::Config { .. })
    ));
}

#[tokio::test]
async fn the_cache_keeps_two_endpoints_of_one_spec_apart() {
    // `openai:gpt-4o-mini` sent to two servers (OPENAI_BASE_URL moved): a reply cached from
    // the first is never served for the second.
    let dir = TempDir::new("cache-endpoints");
    let (a, b) = (MockServer::start().await, MockServer::start().await);
    for s in [&a, &b] {
        Mock::given(method("POST"))
            .respond_with(openai_ok())
            .expect(1)
            .mount(s)
            .await;
    }
    let req = ChatRequest::user("hi").with_temperature(0.0);
    let first = Cache::open(openai_at(&a, None), &dir.join("c.sqlite"), false).unwrap();
    assert_eq!(first.chat(&req).await.unwrap().origin, Origin::Network);
    assert_eq!(first.chat(&req).await.unwrap().origin, Origin::Cache);
    let second = Cache::open(openai_at(&b, None), &dir.join("c.sqlite"), false).unwrap();
    assert_eq!(second.chat(&req).await.unwrap().origin, Origin::Network);
    a.verify().await;
    b.verify().await;
}

#[tokio::test]
async fn a_cache_hit_keeps_the_latency_of_the_call_that_made_it() {
    let dir = TempDir::new("cache-latency");
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(openai_ok().set_delay(std::time::Duration::from_millis(150)))
        .mount(&server)
        .await;
    let cache = Cache::open(openai_at(&server, None), &dir.join("c.sqlite"), false).unwrap();
    let req = ChatRequest::user("hi").with_temperature(0.0);
    let first = cache.chat(&req).await.unwrap();
    assert!(first.latency_ms >= 150, "{}", first.latency_ms);
    let hit = cache.chat(&req).await.unwrap();
    assert_eq!(hit.origin, Origin::Cache);
    assert_eq!(hit.latency_ms, first.latency_ms);
}
