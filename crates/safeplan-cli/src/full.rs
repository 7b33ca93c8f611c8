//! `safeplan-full`: every command of safeplan, including those that need the LLM, judge,
//! benchmark and MCP crates. `safeplan` runs the core commands itself and hands every other
//! command line to this executable (see `main.rs`); run it directly as you would `safeplan`.
//! The program is the library's [`safeplan_cli::run`].

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(safeplan_cli::run(std::env::args_os()))
}
