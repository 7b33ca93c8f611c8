//! Plan files (being written).
use crate::Parsed;
use crate::ast::Plan;
/// Parse an IPC or timestamped plan file.
pub fn parse_plan(_src: &str) -> Parsed<Plan> {
    Parsed {
        value: Some(Plan::default()),
        diagnostics: Vec::new(),
    }
}
/// Extract steps from an LLM reply.
pub fn extract_plan(_src: &str) -> Parsed<Plan> {
    Parsed {
        value: Some(Plan::default()),
        diagnostics: Vec::new(),
    }
}
