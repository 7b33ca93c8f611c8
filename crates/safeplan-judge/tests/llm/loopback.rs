//! Loopback: an OpenAI-compatible server serving scripted replies.

use std::time::Duration;

use safeplan_llm::{ProviderSpec, RetryPolicy, Stack};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::*;

/// Answers judge and planner requests (told apart by the system prompt) from two
/// queues of scripted HTTP responses.
struct Scripted {
    judge: Mutex<VecDeque<ResponseTemplate>>,
    planner: Mutex<VecDeque<ResponseTemplate>>,
}

impl Respond for Scripted {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body = String::from_utf8_lossy(&request.body);
        let queue = if body.contains("You are a Judge Agent") {
            &self.judge
        } else {
            &self.planner
        };
        queue
            .lock()
            .expect("the script lock")
            .pop_front()
            .unwrap_or_else(|| {
                ResponseTemplate::new(400).set_body_json(json!({"error": {
                    "message": "the test script has no more replies",
                    "type": "invalid_request_error"}}))
            })
    }
}

/// A Chat Completions reply in OpenAI's wire format.
fn completion(text: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": 1_741_570_283,
        "model": "loopback-model",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text, "refusal": null},
            "logprobs": null,
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 321, "completion_tokens": 45, "total_tokens": 366}
    }))
}

fn server_error() -> ResponseTemplate {
    ResponseTemplate::new(500).set_body_json(json!({"error": {
        "message": "The server had an error while processing your request.",
        "type": "server_error"}}))
}

async fn serve(judge: Vec<ResponseTemplate>, planner: Vec<ResponseTemplate>) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(Scripted {
            judge: Mutex::new(judge.into()),
            planner: Mutex::new(planner.into()),
        })
        .mount(&server)
        .await;
    server
}

/// The provider stack as the CLI builds it, pointed at the loopback server; with a
/// fast retry policy or none.
fn provider(server: &MockServer, retry: bool) -> Arc<dyn LlmProvider> {
    let spec: ProviderSpec = format!("openai-compatible:{}/v1#loopback-model", server.uri())
        .parse()
        .expect("a valid spec");
    let stack = Stack {
        retry: retry.then(|| RetryPolicy {
            max_attempts: 3,
            base: Duration::from_millis(1),
            cap: Duration::from_millis(20),
        }),
        timeout: Some(Duration::from_secs(20)),
        ..Stack::default()
    };
    stack
        .build(&spec, &|_| None)
        .expect("the provider stack")
        .provider
}

fn mug_episode() -> Episode {
    Episode {
        id: "loopback-mug".into(),
        goal: "Put the mug in the sink.".into(),
        dialogue: vec!["Commander.Say('mug in the sink please')".into()],
        actions: MUG.iter().map(|s| s.to_string()).collect(),
        ..Episode::default()
    }
}

#[tokio::test]
async fn a_dropped_step_is_kept_and_a_prose_reply_falls_back() {
    let server = serve(
        vec![
            completion(
                "ACTION: 2. Driver.PickUp('Bowl')\nANNOTATION: #REMOVE: the bowl is not part of the goal\n\n\
                 ACTION: 3. Driver.PutAOnB('Bowl', 'Shelf')\nANNOTATION: #REMOVE: puts the bowl back",
            ),
            completion(
                "The plan reaches the sink, but the mug should be rinsed.\n\n\
                 #MISSING: after step 4: rinse it: Driver.ToggleOn('Faucet') then Driver.ToggleOff('Faucet')",
            ),
            completion("Looks complete now: every action serves the goal."),
        ],
        vec![
            // Drops the bowl steps as asked, and `Driver.Move(1.0)`, which nobody flagged.
            completion("```\n1. Driver.PickUp('Mug')\n2. Driver.Move(2.0)\n3. Driver.PutAOnB('Mug', 'Sink')\n```"),
            // Prose, no steps.
            completion("Sure, I have added the faucet steps at the end of the plan."),
        ],
    )
    .await;
    let p = provider(&server, true);
    let refiner = llm_refiner(p.clone(), p, false, 1);
    let r = refiner.refine(&mug_episode()).await;
    assert_eq!(r.stop, StopReason::Converged, "{:?}", r.error);
    assert_eq!(r.converged_at, Some(3));
    assert_eq!(r.flagged(), [1, 2]);
    assert_eq!(
        texts(&r),
        [
            "Driver.Move(1.0)",
            "Driver.PickUp('Mug')",
            "Driver.Move(2.0)",
            "Driver.PutAOnB('Mug', 'Sink')",
            "Driver.ToggleOn('Faucet')",
            "Driver.ToggleOff('Faucet')"
        ]
    );
    assert_eq!(r.final_plan.steps[4].origin, Origin::Inserted(2));
    let notes = |k: usize| r.rounds[k].revision.as_ref().unwrap().notes.clone();
    assert_eq!(
        notes(0),
        ["step 1 `Driver.Move(1.0)` was dropped without a critique; kept"]
    );
    assert!(
        notes(1)[0].contains("applied deterministically"),
        "{:?}",
        notes(1)
    );
    // Usage comes from the wire: 5 calls of 321 + 45 tokens.
    assert_eq!(r.usage().input_tokens, 5 * 321);
    assert_eq!(r.usage().output_tokens, 5 * 45);
}

#[tokio::test]
async fn a_server_error_is_retried_by_the_stack() {
    let server = serve(
        vec![server_error(), completion("All actions are needed.")],
        vec![],
    )
    .await;
    let p = provider(&server, true);
    let r = llm_refiner(p.clone(), p, false, 1)
        .refine(&mug_episode())
        .await;
    assert_eq!(r.stop, StopReason::Converged, "{:?}", r.error);
    assert_eq!(r.converged_at, Some(1));
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn an_error_after_retries_ends_the_loop_with_earlier_rounds_kept() {
    let server = serve(
        vec![
            completion("2. Driver.PickUp('Bowl') #REMOVE: irrelevant"),
            server_error(),
        ],
        vec![completion(
            "```\nDriver.Move(1.0)\nDriver.PutAOnB('Bowl', 'Shelf')\nDriver.PickUp('Mug')\nDriver.Move(2.0)\nDriver.PutAOnB('Mug', 'Sink')\n```",
        )],
    )
    .await;
    let p = provider(&server, false);
    let r = llm_refiner(p.clone(), p, false, 1)
        .refine(&mug_episode())
        .await;
    assert_eq!(r.stop, StopReason::Error);
    assert_eq!(r.rounds.len(), 1);
    assert_eq!(r.flagged(), [1]);
    let error = r.error.unwrap();
    assert!(error.starts_with("round 2, judge llm:"), "{error}");
}

#[tokio::test]
async fn invalid_json_in_json_mode_ends_the_loop_with_earlier_rounds_kept() {
    let server = serve(
        vec![
            completion(
                "```json\n{\"steps\": [{\"index\": 2, \"action\": \"Driver.PickUp('Bowl')\", \"verdict\": \"remove\", \"reason\": \"irrelevant\"},\
                 {\"index\": 3, \"action\": \"Driver.PutAOnB('Bowl', 'Shelf')\", \"verdict\": \"remove\", \"reason\": \"puts it back\"}], \"missing\": []}\n```",
            ),
            completion("{\"steps\": [{\"index\": 1, \"action\": \"Driver.Move(1.0)\", \"verdict\": "),
        ],
        vec![completion(
            "1. Driver.Move(1.0)\n2. Driver.PickUp('Mug')\n3. Driver.Move(2.0)\n4. Driver.PutAOnB('Mug', 'Sink')",
        )],
    )
    .await;
    let p = provider(&server, true);
    let r = llm_refiner(p.clone(), p, true, 1)
        .refine(&mug_episode())
        .await;
    assert_eq!(r.stop, StopReason::Error);
    assert_eq!(r.rounds.len(), 1);
    assert_eq!(r.flagged(), [1, 2]);
    assert_eq!(r.final_plan.original_indices(), [0, 3, 4, 5]);
    let error = r.error.unwrap();
    assert!(
        error.contains("unusable reply from openai-compatible:"),
        "{error}"
    );
    // The judge asked for JSON through the schema mode; the request was sent once (a
    // malformed reply is not retried).
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 3);
    let first: serde_json::Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(first["response_format"]["type"], "json_schema");
}
