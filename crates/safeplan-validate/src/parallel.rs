//! The thread pool of batch calls: [`safeplan_pool`], shared with the metrics so that every
//! parallel call of the house follows one rule (sized for the process, made anew in a
//! forked child).

pub use safeplan_pool::{install, threads};
