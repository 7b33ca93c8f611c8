//! `safeplan mcp`: the MCP server of `safeplan-mcp` on standard input and output.

use clap::Args;
use safeplan_mcp::{Limits, SafeplanServer};

use crate::check::Failure;
use crate::judge::input;

/// Arguments of `safeplan mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Largest PDDL or plan text one tool call may send, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20)]
    pub max_input_bytes: usize,

    /// Longest one tool call may run, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub time_limit: f64,
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
    let server = SafeplanServer::new(Limits {
        max_input_bytes: args.max_input_bytes,
        time_limit,
    });
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
    runtime
        .block_on(safeplan_mcp::serve_stdio(server))
        .map_err(|e| {
            input(
                e,
                "the client must speak MCP over this process's standard input and output",
            )
        })
}
