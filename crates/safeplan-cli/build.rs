//! Link the `safeplan` executable (and only it) at a fixed address (non-PIE) on Linux.
//!
//! A position-independent executable of this size carries about 20,000 relocations that the
//! dynamic loader applies on every start; `safeplan validate` is started once per plan by
//! robot stacks and benchmark scripts, and those relocations were a fifth of its start-up
//! (docs/benchmarks.md, "Against VAL, per process"). The code is still compiled
//! position-independent, so only the final link changes; libraries and the Python extension
//! are not affected. `safeplan-full`, which runs the HTTP server and the LLM client, keeps
//! PIE and so address-space layout randomisation: its start-up matters less than its
//! hardening.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bin=safeplan=-no-pie");
    }
}
