//! Checker (being written).
use crate::ast::{Domain, Plan, Problem};
use crate::diagnostic::Diagnostic;
/// Options.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// strict
    pub strict: bool,
}
/// Index.
pub struct TaskIndex;
/// Check a domain.
pub fn check_domain(_d: &Domain, _o: &CheckOptions) -> Vec<Diagnostic> {
    Vec::new()
}
/// Check a problem.
pub fn check_problem(_d: &Domain, _p: &Problem, _o: &CheckOptions) -> Vec<Diagnostic> {
    Vec::new()
}
/// Check a plan.
pub fn check_plan(_d: &Domain, _p: &Problem, _plan: &Plan) -> Vec<Diagnostic> {
    Vec::new()
}
