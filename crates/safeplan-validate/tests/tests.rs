//! The one integration-test binary of safeplan-validate: each module is a family of tests.

mod abandon;
mod constraints;
mod constraints_differential;
mod corpus;
mod danger_facts;
mod differential;
mod pddl3;
mod pddl3_temporal;
mod printer;
mod reference_ipc;
mod replies;
mod reply_faithful;
mod safety;
mod scale;
mod semantics;
mod shield;
mod temporal;
mod temporal_differential;
mod temporal_ipc;

pub use safeplan_testkit::{data_dir, r#gen, reference};
