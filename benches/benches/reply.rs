//! Reading LLM replies in linear time: `read_reply` on 2 MB replies of shapes that made
//! the old reader quadratic (a statement per line, `[PLAN END]` over and over, unclosed
//! JSON, nested wrappers, one very long line) and of ordinary ones.
//!
//! Run with `cargo bench -p safeplan-benches --bench reply`. The figures (median time per
//! 2 MB reply) go into `docs/benchmarks.md`, "Reading in linear time". Each reply is built
//! once, before timing; only `read_reply` with a small task's names is timed.

#![allow(missing_docs, clippy::print_stderr)]

use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::BytesCount;
use safeplan_pddl::{Vocabulary, read_reply};

fn main() {
    divan::main();
}

/// The size of every reply.
const SIZE: usize = 2_000_000;

/// `unit` repeated up to [`SIZE`] bytes.
fn repeated(unit: &str) -> String {
    unit.repeat(SIZE / unit.len().max(1))
}

static VOCABULARY: LazyLock<Vocabulary> = LazyLock::new(|| {
    Vocabulary::new(["pick-up", "stack"], ["on", "holding"], ["a", "b"])
        .with_arities([("pick-up", 1), ("stack", 2)])
});

/// The shapes, by name.
const SHAPES: &[(&str, &str)] = &[
    ("numbered steps", "1. (pick-up a)\n"),
    ("all-1 list", "1. (stack a b)\n"),
    ("plan end markers", "[PLAN END]\n"),
    ("plan sections", "[PLAN]\n[PLAN END]\n"),
    ("open parentheses", "("),
    ("open braces", "{"),
    ("unclosed JSON strings", "{\"plan\": \"x "),
    ("JSON answers", "{\"plan\": [\"(pick-up a)\"]}\n"),
    ("nested plan forms", "(plan "),
    ("think tags", "<think>"),
    ("closing think tags", "</think>"),
    ("fences", "```\n"),
    ("calls cut off", "a("),
    ("steps on one line", "(pick-up a) 2. (stack a b) "),
    ("labels", "Step 1: Pick up a.\n(pick-up a)\n"),
    ("announcing lines", "Plan:\n(pick-up a)\n"),
    ("prose with steps", "Then we (stack a b) again.\n"),
    ("bare words", "- pick up the block\n"),
    ("prose", "The robot should be careful with the block. "),
];

static REPLIES: LazyLock<Vec<(&'static str, String)>> = LazyLock::new(|| {
    SHAPES
        .iter()
        .map(|&(name, unit)| (name, repeated(unit)))
        .collect()
});

#[divan::bench(args = SHAPES.iter().map(|s| s.0), sample_count = 5, sample_size = 1)]
fn read_2mb_reply(bencher: Bencher, shape: &str) {
    let text = &REPLIES
        .iter()
        .find(|(n, _)| *n == shape)
        .expect("a shape")
        .1;
    bencher
        .counter(BytesCount::of_str(text))
        .bench(|| read_reply(divan::black_box(text), Some(&VOCABULARY)));
}
