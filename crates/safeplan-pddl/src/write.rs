//! PDDL writer (being written).
use crate::ast::{Domain, Plan, Problem};
/// Print a domain.
pub fn write_domain(_d: &Domain) -> String {
    String::new()
}
/// Print a problem.
pub fn write_problem(_p: &Problem) -> String {
    String::new()
}
/// Print a plan.
pub fn write_plan(_p: &Plan) -> String {
    String::new()
}
