//! PDDL for safeplan: read domains, problems and plans, check them, and write them back.
//!
//! This crate is the syntax layer of safeplan. It turns text into a typed AST
//! ([`ast::Domain`], [`ast::Problem`], [`ast::Plan`]) and says, precisely and kindly, what is
//! wrong with text that is not quite PDDL. It does no I/O and no async: callers hand it
//! strings (or bytes) and get values back, so a robot can link it with nothing else.
//!
//! # Design
//!
//! Reading happens in two layers, as in most robust PDDL tools. The lexer cuts the
//! text into parentheses and atoms with byte spans (using `nom`); the parser builds the typed
//! AST from that token stream by recursive descent. Parsing never fails outright: every entry
//! point returns a [`Parsed`] with whatever could be read plus [`Diagnostic`]s, each pointing at
//! a byte span. After an error the parser skips to the `)` that closes the broken construct
//! and carries on, so one typo gives one message, not a cascade. Nesting is bounded
//! ([`parser::MAX_DEPTH`]), so no input overflows the stack, and nothing here panics on any
//! input.
//!
//! Names keep their original spelling and span (messages quote what the user wrote); PDDL
//! is case-insensitive, so comparisons go through [`ast::Name::matches`] and
//! [`ast::Name::key`].
//!
//! The [checker](check) is a separate pass over a parsed domain, problem and plan: undefined
//! names, arities, types, duplicates and undeclared requirements, each with the nearest
//! declared name as a suggestion. Plans come in three dialects ([`plan`]): IPC sequential
//! files, timestamped files, and a lenient extractor for LLM replies. The [writer](mod@write)
//! prints any AST back as PDDL that parses to the same AST.
//!
//! # Map
//!
//! - [`parse_domain`], [`parse_problem`], [`parse_plan`], [`extract_plan`] (and the `_bytes`
//!   forms, [`decode`]): text in, [`Parsed`] out.
//! - [`read_plan_text`]: the one front door for a plan's text, a plan file read strictly or
//!   an LLM reply read by [`read_reply`]; [`PlanRead::into_stated`] is what a validation is
//!   given (the plan, why a reply has none, or a plan file's errors).
//! - [`ast`]: the typed tree; [`span`]: byte spans and line/column lookup.
//! - [`diagnostic`]: [`Diagnostic`], [`Code`], [`Severity`], [`FileKind`]: what the parser
//!   and checker say, as plain `serde` data a CLI or an editor renders.
//! - [`check`]: name, arity, type and requirement checks across domain, problem and plan.
//! - [`requirements`]: `:requirements` flags and the features they allow.
//! - [`parser`]: the recursive-descent parser behind the entry points.
//! - [`mod@write`]: PDDL out.
//!
//! # Example
//!
//! ```
//! use safeplan_pddl::{parse_domain, parse_problem, check_problem, CheckOptions};
//!
//! let domain = parse_domain("(define (domain d) (:requirements :negative-preconditions) \
//!     (:predicates (p ?x)) \
//!     (:action a :parameters (?x) :precondition (p ?x) :effect (not (p ?x))))");
//! let problem = parse_problem("(define (problem q) (:domain d) (:objects o) \
//!     (:init (p o)) (:goal (not (p o))))");
//! assert!(domain.diagnostics.is_empty() && problem.diagnostics.is_empty());
//! let (domain, problem) = (domain.value.unwrap(), problem.value.unwrap());
//! assert!(check_problem(&domain, &problem, &CheckOptions::default()).is_empty());
//! ```

#![deny(missing_docs)]

pub mod ast;
pub mod check;
pub mod diagnostic;
pub(crate) mod lexer;
pub mod parser;
pub mod plan;
mod plan_text;
pub mod reply;
pub mod requirements;
pub mod span;
pub mod write;

pub use ast::{Domain, Name, Plan, PlanStep, Problem};
pub use check::{
    CheckOptions, TaskIndex, check_domain, check_plan, check_problem, check_texts, preference_names,
};
pub use diagnostic::{Code, Diagnostic, FileKind, Severity, has_errors};
pub use plan::parse_plan;
pub use plan_text::{
    PlanRead, PlanReading, StatedPlan, StepError, read_plan_file, read_plan_text, read_step,
};
pub use reply::{
    NoPlan, ReadReport, ReadStep, Reply, Vocabulary, extract_plan, read_reply, without_reasoning,
};
pub use span::{LineCol, LineIndex, Span};
pub use write::{
    write_domain, write_effect, write_formula, write_plan, write_problem, write_step, write_steps,
};

use serde::{Deserialize, Serialize};

/// What a parser could read, and what it has to say about the input.
///
/// `value` is `None` only when nothing usable was found (an empty file, or text that does not
/// start like the expected kind of file); otherwise it holds everything that could be read,
/// even when `diagnostics` has errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Parsed<T> {
    /// What was read.
    pub value: Option<T>,
    /// Errors and warnings, in source order of discovery.
    pub diagnostics: Vec<Diagnostic>,
}

impl<T> Parsed<T> {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        has_errors(&self.diagnostics)
    }
}

/// Check that `bytes` are UTF-8 and addressable with 32-bit spans, and view them as text.
///
/// The error is a diagnostic pointing at the first bad byte, ready to render.
pub fn decode(bytes: &[u8], file: FileKind) -> Result<&str, Diagnostic> {
    if bytes.len() >= u32::MAX as usize {
        return Err(Diagnostic::error(
            Code::InputTooLarge,
            file,
            Span::new(0, 0),
            format!(
                "the file is {} bytes; safeplan reads files under 4 GiB",
                bytes.len()
            ),
        )
        .with_help("split the file, or generate a smaller task"));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to() as u32;
        let len = e.error_len().unwrap_or(1) as u32;
        Diagnostic::error(
            Code::InvalidUtf8,
            file,
            Span::new(at, at + len),
            format!("the file is not UTF-8 text: byte {at} (0x{:02x}) is invalid", bytes[at as usize]),
        )
        .with_help("PDDL files are plain text; re-save it as UTF-8 (or ASCII), or check that this is the right file")
    })
}

/// Parse a domain from text.
pub fn parse_domain(src: &str) -> Parsed<Domain> {
    run_parser(src, FileKind::Domain, |p| p.domain())
}

/// Parse a problem from text.
pub fn parse_problem(src: &str) -> Parsed<Problem> {
    run_parser(src, FileKind::Problem, |p| p.problem())
}

/// Parse a domain from bytes that may not be UTF-8 (reported as a diagnostic).
pub fn parse_domain_bytes(bytes: &[u8]) -> Parsed<Domain> {
    match decode(bytes, FileKind::Domain) {
        Ok(src) => parse_domain(src),
        Err(d) => Parsed {
            value: None,
            diagnostics: vec![d],
        },
    }
}

/// Parse a problem from bytes that may not be UTF-8 (reported as a diagnostic).
pub fn parse_problem_bytes(bytes: &[u8]) -> Parsed<Problem> {
    match decode(bytes, FileKind::Problem) {
        Ok(src) => parse_problem(src),
        Err(d) => Parsed {
            value: None,
            diagnostics: vec![d],
        },
    }
}

fn run_parser<'s, T>(
    src: &'s str,
    file: FileKind,
    f: impl FnOnce(&mut parser::Parser<'s>) -> Option<T>,
) -> Parsed<T> {
    if let Err(d) = decode(src.as_bytes(), file) {
        return Parsed {
            value: None,
            diagnostics: vec![d],
        };
    }
    let mut p = parser::Parser::new(src, file);
    let value = f(&mut p);
    Parsed {
        value,
        diagnostics: p.diagnostics,
    }
}
