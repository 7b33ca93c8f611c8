//! The one integration-test binary of safeplan-pddl: each module is a family of tests.

mod check;
mod constraints;
mod corpus;
mod malformed;
mod plan;
mod replies;
mod roundtrip;

pub use safeplan_testkit::data_dir;
