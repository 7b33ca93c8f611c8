//! The round trip of one `validate_plan` call through `safeplan mcp` over stdio, as an
//! agent sees it: JSON-RPC out, the server's parse + compile + validate + DESPITE verdicts,
//! JSON-RPC back (rmcp's client on this side).
//!
//! ```text
//! cargo build --release -p safeplan-cli
//! cargo run --release -p safeplan-benches --bin mcp_roundtrip -- target/release/safeplan [CALLS]
//! ```
//!
//! The task is DESPITE's `neiss_11125` (safety-augmented files, its reference safe plan of 5
//! steps) from the shared data. Prints the median, fastest and slowest call of CALLS (2,000
//! by default) after 100 warm-up calls, in milliseconds.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::Instant;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::json;

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let binary = args
        .next()
        .ok_or("usage: mcp_roundtrip SAFEPLAN_BINARY [CALLS]")?;
    let calls: usize = args
        .next()
        .map_or(Ok(2000), |n| n.parse())
        .map_err(|e| format!("CALLS: {e}"))?;
    let dir = safeplan_benches::data_dir()?.join("despite-demo/neiss_11125");
    let read = |f: &str| {
        std::fs::read_to_string(dir.join(f)).map_err(|e| format!("{}: {e}", dir.join(f).display()))
    };
    let meta: serde_json::Value =
        serde_json::from_str(&read("metadata.json")?).map_err(|e| format!("metadata.json: {e}"))?;
    let plan = meta["reference_feasible_plans"]["safe"]
        .as_str()
        .ok_or("metadata.json has no reference safe plan")?
        .to_string();
    let arguments = json!({"domain": read("safe_domain.pddl")?, "problem": read("safe_problem.pddl")?, "plan": plan});
    let serde_json::Value::Object(arguments) = arguments else {
        return Err("arguments are an object".into());
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let mut command = tokio::process::Command::new(&binary);
        command.arg("mcp");
        let transport = TokioChildProcess::new(command).map_err(|e| e.to_string())?;
        let client = ().serve(transport).await.map_err(|e| e.to_string())?;
        let mut times = Vec::with_capacity(calls);
        for i in 0..calls + 100 {
            let request =
                CallToolRequestParams::new("validate_plan").with_arguments(arguments.clone());
            let start = Instant::now();
            let result = client.call_tool(request).await.map_err(|e| e.to_string())?;
            let elapsed = start.elapsed().as_secs_f64() * 1e3;
            let safe = result
                .structured_content
                .as_ref()
                .and_then(|s| s["safe"].as_bool());
            if safe != Some(true) {
                return Err(format!("unexpected answer: {result:?}"));
            }
            if i >= 100 {
                times.push(elapsed);
            }
        }
        client.cancel().await.map_err(|e| e.to_string())?;
        times.sort_by(f64::total_cmp);
        println!(
            "validate_plan round trip over stdio, {calls} calls: median {:.3} ms, fastest {:.3} ms, slowest {:.3} ms",
            times[times.len() / 2],
            times[0],
            times[times.len() - 1]
        );
        Ok(())
    })
}
