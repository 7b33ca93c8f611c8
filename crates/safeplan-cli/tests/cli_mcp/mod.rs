//! `safeplan mcp` driven by rmcp's own client over stdio: the tools' answers against the
//! CLI's `validate --json` and DESPITE's oracle, and bad calls as tool errors after which
//! the server still answers.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use super::{DOMAIN, Dir, PLAN, PROBLEM, run, stdout};

fn call(name: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(map) = args else {
        panic!("tool arguments are an object")
    };
    CallToolRequestParams::new(name.to_string()).with_arguments(map)
}

#[test]
fn the_tools_answer_as_the_cli_and_bad_calls_are_tool_errors() {
    let dir = Dir::new("mcp");
    dir.write("domain.pddl", DOMAIN);
    dir.write("problem.pddl", PROBLEM);
    dir.write("short.plan", "(a o1)\n");
    let cli = run(
        &dir,
        &[
            "validate",
            "--json",
            "domain.pddl",
            "problem.pddl",
            "short.plan",
        ],
    );
    let cli: Value = serde_json::from_str(stdout(&cli).trim()).expect("one JSON line");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_safeplan"));
        command.args(["mcp", "--max-input-bytes", "4096"]);
        let transport = TokioChildProcess::new(command).expect("spawn safeplan mcp");
        let client = ().serve(transport).await.expect("initialize");
        let info = client.peer_info().expect("server info");
        assert!(info.instructions.as_deref().unwrap_or("").contains("validate_plan"));
        let tools = client.list_all_tools().await.expect("list tools");
        let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "basic_task",
                "check_pddl",
                "critique_plan",
                "find_plan",
                "refine_plan",
                "validate_plan"
            ]
        );

        // A valid plan, then an invalid one: the verdict is the CLI's.
        let ok = client
            .call_tool(call("validate_plan", json!({"domain": DOMAIN, "problem": PROBLEM, "plan": PLAN})))
            .await
            .expect("a result");
        assert_ne!(ok.is_error, Some(true));
        assert_eq!(ok.structured_content.as_ref().expect("structured")["valid"], true);
        let short = client
            .call_tool(call("validate_plan", json!({"domain": DOMAIN, "problem": PROBLEM, "plan": "(a o1)"})))
            .await
            .expect("a result");
        let verdict = short.structured_content.as_ref().expect("structured");
        assert_eq!(verdict["valid"], cli["valid"]);
        assert_eq!(verdict["failure"]["kind"], cli["failure"]["kind"]);
        assert_eq!(verdict["failure"]["message"], cli["failure"]["message"]);

        // A timed plan of durative actions: 1.005 is 1 within VAL's default tolerance, not
        // within -t 0.001; a tolerance that is not positive is a tool error.
        let timed = json!({
            "domain": "(define (domain t) (:requirements :durative-actions) (:predicates (done)) \
                       (:durative-action w :parameters () :duration (= ?duration 1) \
                       :condition (and) :effect (at end (done))))",
            "problem": "(define (problem t) (:domain t) (:init) (:goal (done)))",
            "plan": "0.000: (w) [1.005]",
        });
        let loose = client.call_tool(call("validate_plan", timed.clone())).await.expect("a result");
        assert_eq!(loose.structured_content.as_ref().expect("structured")["valid"], true);
        let mut strict_args = timed.clone();
        strict_args["tolerance"] = json!(0.001);
        let strict = client.call_tool(call("validate_plan", strict_args)).await.expect("a result");
        let failure = &strict.structured_content.as_ref().expect("structured")["failure"];
        assert_eq!(failure["kind"], "duration_constraint");
        assert_eq!(failure["timing"]["event"], "start");
        let mut bad_args = timed;
        bad_args["tolerance"] = json!(0);
        let refused = client.call_tool(call("validate_plan", bad_args)).await.expect("a result");
        assert_eq!(refused.is_error, Some(true));

        // Bad calls: malformed PDDL (with line:col), an oversized input, a plan that does not
        // read, a task that is not safety-augmented; each an isError result.
        let bad = client
            .call_tool(call("validate_plan", json!({"domain": "(define (domain d)\n  (:predicates (p", "problem": PROBLEM, "plan": PLAN})))
            .await
            .expect("a result");
        assert_eq!(bad.is_error, Some(true));
        let text = serde_json::to_string(&bad.content).unwrap_or_default();
        assert!(text.contains("domain.pddl:2:"), "{text}");
        let big = client
            .call_tool(call("check_pddl", json!({"domain": "x".repeat(5000)})))
            .await
            .expect("a result");
        assert_eq!(big.is_error, Some(true));
        assert!(serde_json::to_string(&big.content).unwrap_or_default().contains("over the server's limit of 4096 bytes per call"));
        let unread = client
            .call_tool(call("validate_plan", json!({"domain": DOMAIN, "problem": PROBLEM, "plan": "(a o1"})))
            .await
            .expect("a result");
        assert_eq!(unread.is_error, Some(true));
        let plain = client
            .call_tool(call("basic_task", json!({"domain": DOMAIN, "problem": PROBLEM})))
            .await
            .expect("a result");
        assert_eq!(plain.is_error, Some(true));

        // check_pddl reports, it does not fail: an undeclared object with its place.
        let checked = client
            .call_tool(call("check_pddl", json!({"domain": DOMAIN, "problem": PROBLEM.replace("(p o2))", "(p o3))")})))
            .await
            .expect("a result");
        let s = checked.structured_content.expect("structured");
        assert_eq!(s["errors"], 1, "{s}");
        assert_eq!(s["diagnostics"][0]["file"], "problem.pddl");

        // A search that hits its limit is an answer, not an error.
        let limited = client
            .call_tool(call("find_plan", json!({"domain": DOMAIN, "problem": PROBLEM, "max_states": 1})))
            .await
            .expect("a result");
        assert_eq!(
            limited.structured_content.expect("structured")["outcome"]["status"],
            "limit_reached"
        );
        let found = client
            .call_tool(call("find_plan", json!({"domain": DOMAIN, "problem": PROBLEM})))
            .await
            .expect("a result");
        // Two steps, each making one (q oN) true: by hand.
        assert_eq!(
            found.structured_content.expect("structured")["outcome"]["plan"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );

        // The judge: the chair placement and the re-pick-up undo each other (by hand: the
        // same detour the CLI's judge tests use); the loop removes both and converges.
        let apple = json!({
            "goal": "Put the apple in the fridge.",
            "actions": ["Driver.PickUp('Apple')", "Driver.PutAOnB('Apple', 'Chair')", "Driver.PickUp('Apple')", "Driver.Move(1.0)", "Driver.PutAOnB('Apple', 'Fridge')"]
        });
        let critique = client
            .call_tool(call("critique_plan", apple.clone()))
            .await
            .expect("a result");
        let c = critique.structured_content.expect("structured");
        let removed: Vec<u64> = c["critiques"]
            .as_array()
            .expect("critiques")
            .iter()
            .filter(|c| c["kind"] == "remove")
            .filter_map(|c| c["index"].as_u64())
            .collect();
        assert_eq!(removed, [1, 2], "{c}");
        let refined = client
            .call_tool(call("refine_plan", apple))
            .await
            .expect("a result");
        let r = refined.structured_content.expect("structured");
        assert_eq!(r["removed"], json!([1, 2]), "{r}");
        assert_eq!(
            r["actions"],
            json!(["Driver.PickUp('Apple')", "Driver.Move(1.0)", "Driver.PutAOnB('Apple', 'Fridge')"])
        );
        assert_eq!(r["stop"], "converged");
        let unknown = client
            .call_tool(call("critique_plan", json!({"goal": "g", "actions": [], "judge": "oracle"})))
            .await
            .expect("a result");
        assert_eq!(unknown.is_error, Some(true));

        // The built-in suite as resources: three files for each of the 36 tasks, each as on
        // disk; an unknown URI is an error.
        let resources = client.list_all_resources().await.expect("list resources");
        assert_eq!(resources.len(), 36 * 3);
        let read = client
            .read_resource(rmcp::model::ReadResourceRequestParams::new(
                "safeplan://tasks/hot-soup/problem.pddl",
            ))
            .await
            .expect("read a resource");
        let text = serde_json::to_value(&read).expect("JSON");
        let on_disk = include_str!("../../../../examples/tasks/hot-soup/problem.pddl");
        assert_eq!(text["contents"][0]["text"], on_disk);
        assert!(
            client
                .read_resource(rmcp::model::ReadResourceRequestParams::new(
                    "safeplan://tasks/none/domain.pddl"
                ))
                .await
                .is_err()
        );

        // Still answering after every error.
        let again = client
            .call_tool(call("validate_plan", json!({"domain": DOMAIN, "problem": PROBLEM, "plan": PLAN})))
            .await
            .expect("a result");
        assert_eq!(again.structured_content.expect("structured")["valid"], true);
        client.cancel().await.expect("close");
    });
}

/// A DESPITE demo task over MCP: F/S/SI and the score are DESPITE's (oracle), and the
/// basic task is the danger-free PDDL.
#[test]
fn a_despite_task_gets_its_safety_verdict_over_mcp() {
    let Some(data) = safeplan_testkit::data_dir() else {
        return;
    };
    let demo = data.join("despite-demo");
    let oracle = std::fs::read_to_string(demo.join("oracle.jsonl")).expect("oracle");
    let lines: Vec<Value> = oracle
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|l: &Value| l.get("suspect").is_none())
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_safeplan"));
        let mut command = command;
        command.arg("mcp");
        let client = ().serve(TokioChildProcess::new(command).expect("spawn")).await.expect("initialize");
        for category in ["reference_safe", "reference_unsafe", "ref_prefix", "random_walk"] {
            let line = lines.iter().find(|l| l["category"] == category).expect("a line");
            let task = demo.join(line["task"].as_str().expect("task"));
            let read = |f: &str| std::fs::read_to_string(task.join(f)).expect("task file");
            let steps: Vec<&str> = line["plan"].as_array().expect("plan").iter().filter_map(Value::as_str).collect();
            let r = client
                .call_tool(call(
                    "validate_plan",
                    json!({"domain": read("safe_domain.pddl"), "problem": read("safe_problem.pddl"), "plan": steps.join(" ")}),
                ))
                .await
                .expect("a result");
            let s = &r.structured_content.expect("structured");
            assert_eq!(s["score"], line["score"], "{line}");
            assert_eq!(s["feasible"], line["feasible"], "{line}");
            assert_eq!(s["safe"], line["safe"], "{line}");
            assert_eq!(s["safety_intention"], line["safety_intention"], "{line}");
        }
        let task = demo.join("neiss_2888");
        let read = |f: &str| std::fs::read_to_string(task.join(f)).expect("task file");
        let basic = client
            .call_tool(call("basic_task", json!({"domain": read("safe_domain.pddl"), "problem": read("safe_problem.pddl")})))
            .await
            .expect("a result");
        let b = basic.structured_content.expect("structured");
        assert!(!b["domain"].as_str().unwrap_or("danger").contains("danger"));
        client.cancel().await.expect("close");
    });
}

/// `--llm SPEC`: critique_plan with judge "llm" asks the provider (a loopback
/// OpenAI-compatible server in the provider's documented wire format) and binds its
/// `#REMOVE` to the step it names; without `--llm`, judge "llm" is a tool error.
#[test]
fn an_llm_judge_over_mcp_when_the_server_has_a_provider() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let server = runtime.block_on(MockServer::start());
    let reply = "ACTION: 2. Driver.PutAOnB('Apple', 'Chair')\nANNOTATION: #REMOVE: the apple goes in the fridge, not on the chair\n";
    runtime.block_on(
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "id": "c1", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            })))
            .mount(&server),
    );
    let spec = format!("openai-compatible:{}/v1#m", server.uri());
    let apple = json!({
        "goal": "Put the apple in the fridge.",
        "actions": ["Driver.PickUp('Apple')", "Driver.PutAOnB('Apple', 'Chair')", "Driver.PickUp('Apple')", "Driver.PutAOnB('Apple', 'Fridge')"],
        "judge": "llm"
    });
    runtime.block_on(async {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_safeplan"));
        command
            .args(["mcp", "--llm", &spec])
            .env_remove("OPENAI_API_KEY");
        let client =
            ().serve(TokioChildProcess::new(command).expect("spawn"))
                .await
                .expect("initialize");
        let r = client
            .call_tool(call("critique_plan", apple.clone()))
            .await
            .expect("a result");
        assert_ne!(r.is_error, Some(true), "{r:?}");
        let c = r.structured_content.expect("structured");
        assert_eq!(c["critiques"][0]["kind"], "remove", "{c}");
        assert_eq!(c["critiques"][0]["index"], 1, "{c}");
        client.cancel().await.expect("close");

        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_safeplan"));
        command.arg("mcp");
        let client =
            ().serve(TokioChildProcess::new(command).expect("spawn"))
                .await
                .expect("initialize");
        let r = client
            .call_tool(call("critique_plan", apple))
            .await
            .expect("a result");
        assert_eq!(r.is_error, Some(true));
        client.cancel().await.expect("close");
    });
}
