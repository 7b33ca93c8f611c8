//! Parse throughput: how many bytes of PDDL per second `safeplan-pddl` reads.
//!
//! Run with `cargo bench -p safeplan-benches --bench parse`. The figures (median time and
//! MB/s, as divan reports them) go into `docs/benchmarks.md`.
//!
//! Inputs:
//! - `ipc/visitall/problem50.pddl` (453 KB), the largest problem of the IPC corpus, and the
//!   largest IPC domain (`ipc/schedule/domain.pddl`); both are skipped with a message when the
//!   shared data is not on this machine (`$SAFEPLAN_DATA` or `../shared/data`).
//! - a generated ~50 MB typed problem ([`safeplan_benches::generate_problem`]), built once
//!   before timing starts.
//!
//! Only `parse_problem`/`parse_domain` on a `&str` is timed, including their own input check
//! (size limit and UTF-8). Reading the file, generating the problem and dropping the AST are
//! outside the timed closure (divan drops outputs after each sample).

#![allow(missing_docs, clippy::print_stderr)]

use std::path::Path;
use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::BytesCount;

fn main() {
    // Read and generate the inputs before divan prints its table, and say what they are.
    if let Some(src) = IPC_PROBLEM_TEXT.as_deref() {
        eprintln!("{IPC_PROBLEM}: {} bytes", src.len());
    }
    if let Some((rel, src)) = IPC_DOMAIN_TEXT.as_ref() {
        eprintln!("largest IPC domain, {rel}: {} bytes", src.len());
    }
    eprintln!("generated problem: {} bytes", GENERATED.len());
    divan::main();
}

/// Size of the generated problem.
const GENERATED_BYTES: usize = 50_000_000;

/// The IPC problem benchmarked (the largest one), relative to the shared data folder.
const IPC_PROBLEM: &str = "ipc/visitall/problem50.pddl";

/// Read `rel` from the shared data, or say why not (a benchmark skips rather than fails).
fn read_data(rel: &str) -> Option<String> {
    let dir = match safeplan_benches::data_dir() {
        Ok(dir) => dir,
        Err(why) => {
            eprintln!("skipping {rel}: {why}");
            return None;
        }
    };
    match std::fs::read_to_string(dir.join(rel)) {
        Ok(text) => Some(text),
        Err(e) => {
            eprintln!("skipping {rel}: {e}");
            None
        }
    }
}

/// The largest `domain.pddl` of the IPC corpus (relative path), found by size.
fn largest_ipc_domain() -> Option<String> {
    let dir = safeplan_benches::data_dir().ok()?;
    let ipc = dir.join("ipc");
    let mut best: Option<(u64, String)> = None;
    for entry in std::fs::read_dir(&ipc).ok()?.flatten() {
        let path = entry.path().join("domain.pddl");
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        let rel = Path::new("ipc")
            .join(entry.file_name())
            .join("domain.pddl")
            .to_string_lossy()
            .into_owned();
        if best.as_ref().is_none_or(|(size, _)| meta.len() > *size) {
            best = Some((meta.len(), rel));
        }
    }
    best.map(|(_, rel)| rel)
}

static IPC_PROBLEM_TEXT: LazyLock<Option<String>> = LazyLock::new(|| read_data(IPC_PROBLEM));

static IPC_DOMAIN_TEXT: LazyLock<Option<(String, String)>> = LazyLock::new(|| {
    let Some(rel) = largest_ipc_domain() else {
        eprintln!("skipping the largest IPC domain: shared data not found");
        return None;
    };
    read_data(&rel).map(|text| (rel, text))
});

static GENERATED: LazyLock<String> =
    LazyLock::new(|| safeplan_benches::generate_problem(GENERATED_BYTES).1);

/// `parse_problem` on the largest IPC problem (visitall problem50, 453 KB).
#[divan::bench]
fn parse_problem_ipc_visitall_problem50(bencher: Bencher) {
    let Some(src) = IPC_PROBLEM_TEXT.as_deref() else {
        return;
    };
    bencher
        .counter(BytesCount::of_str(src))
        .bench(|| safeplan_pddl::parse_problem(divan::black_box(src)));
}

/// `parse_domain` on the largest IPC domain (by file size).
#[divan::bench]
fn parse_domain_ipc_largest(bencher: Bencher) {
    let Some((_, src)) = IPC_DOMAIN_TEXT.as_ref() else {
        return;
    };
    bencher
        .counter(BytesCount::of_str(src.as_str()))
        .bench(|| safeplan_pddl::parse_domain(divan::black_box(src)));
}

/// `parse_problem` on a generated ~50 MB typed problem. One parse per sample (its AST is a
/// few hundred MB; divan keeps a sample's outputs until the sample ends), ten samples.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn parse_problem_generated_50mb(bencher: Bencher) {
    let src: &str = &GENERATED;
    bencher
        .counter(BytesCount::of_str(src))
        .bench(|| safeplan_pddl::parse_problem(divan::black_box(src)));
}
