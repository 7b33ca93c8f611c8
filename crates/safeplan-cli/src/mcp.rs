//! `safeplan mcp`: the MCP server of `safeplan-mcp` on standard input and output.

use clap::Args;
use safeplan_mcp::{Limits, SafeplanServer};

use crate::judge::input;
use crate::outcome::Failure;

/// Arguments of `safeplan mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Largest PDDL or plan text one tool call may send, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20)]
    pub max_input_bytes: usize,

    /// Longest one tool call may run, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub time_limit: f64,

    /// Serve streamable HTTP on this address (path /mcp) instead of stdio, e.g.
    /// 127.0.0.1:8765. Any address that is not loopback needs SAFEPLAN_MCP_TOKEN, the bearer
    /// token every request must then carry (it is checked on loopback too when set).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,

    /// A directory under which tools may read files given as `domain_path`, `problem_path`
    /// or `plan_path` (repeatable; none by default: tools then take text only).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<std::path::PathBuf>,

    /// An LLM provider for the judge "llm" of critique_plan and refine_plan, e.g.
    /// openai:gpt-4o-mini (keys from the environment, as for `safeplan llm ask`).
    #[arg(long, value_name = "PROVIDER_SPEC")]
    pub llm: Option<String>,

    /// LLM cache and cassette for the judge "llm" (--cache, --record, --replay).
    #[command(flatten)]
    pub replay: crate::llm::ReplayArgs,
}

/// Serve until the client closes the connection.
pub fn run(args: &McpArgs) -> Result<(), Failure> {
    let time_limit = std::time::Duration::try_from_secs_f64(args.time_limit)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            input(
                format!(
                    "--time-limit {} is not a usable number of seconds",
                    args.time_limit
                ),
                "write e.g. --time-limit 10",
            )
        })?;
    // Canonical roots, so that a path is compared with what it resolves to (links and `..`
    // followed), never with how it is spelled.
    let roots = args
        .roots
        .iter()
        .map(|r| {
            r.canonicalize().ok().filter(|c| c.is_dir()).ok_or_else(|| {
                input(
                    format!("--root {} is not a directory", r.display()),
                    "give an existing directory the tools may read files from",
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let server = SafeplanServer::new(Limits {
        max_input_bytes: args.max_input_bytes,
        time_limit,
        roots,
    });
    let server = match &args.llm {
        None => server,
        Some(spec) => {
            let hint =
                "write e.g. --llm openai:gpt-4o-mini or --llm ollama:llama3.2 (see docs/LLM.md)";
            let parsed: safeplan_llm::ProviderSpec = spec
                .parse()
                .map_err(|e: safeplan_llm::LlmError| input(e.to_string(), hint))?;
            let built = args
                .replay
                .stack()
                .build_from_env(&parsed)
                .map_err(|e| input(e.to_string(), hint))?;
            server.with_llm(built.provider)
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            input(
                format!("cannot start the async runtime: {e}"),
                "this is a bug; please report it",
            )
        })?;
    match args.http {
        None => runtime
            .block_on(safeplan_mcp::serve_stdio(server))
            .map_err(|e| {
                input(
                    e,
                    "the client must speak MCP over this process's standard input and output",
                )
            }),
        Some(addr) => {
            // The token comes from the environment, never the command line (where other
            // users' `ps` would show it), and is never printed.
            let token = std::env::var("SAFEPLAN_MCP_TOKEN")
                .ok()
                .filter(|t| !t.is_empty());
            runtime
                .block_on(safeplan_mcp::serve_http(server, addr, token))
                .map_err(|e| {
                    input(
                        e,
                        "serve on 127.0.0.1:PORT, or set SAFEPLAN_MCP_TOKEN for other addresses",
                    )
                })
        }
    }
}
