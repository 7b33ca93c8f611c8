//! Reading and checking what every command takes: the files named on the command line, read
//! as bytes ([`read_inputs`]), decoded, parsed and checked against each other ([`check`]),
//! and plan files read strictly or as an LLM reply ([`load_plan`], through the library's one
//! reader, [`read_plan_text`]). The
//! result is plain data ([`Checked`], an [`Outcome`] with every diagnostic filed under the
//! file it points into) that the commands go on with and the printers print.

use std::path::{Path, PathBuf};

use safeplan_pddl::{
    CheckOptions, Diagnostic, Domain, FileKind, LineIndex, NoPlan, Plan, Problem, Vocabulary,
    ast::InitEntry, check_domain, check_plan, check_problem, decode, parse_domain, parse_problem,
    read_plan_text,
};
pub use safeplan_pddl::{PlanRead, PlanReading};

use crate::outcome::{FileResult, Outcome, ReadError};
use crate::style::count;

/// A file that was read, still as bytes.
#[derive(Debug)]
pub struct Input {
    path: PathBuf,
    kind: FileKind,
    bytes: Vec<u8>,
}

/// Read one file named on the command line.
pub fn read_input(path: &Path, kind: FileKind, usage: &'static str) -> Result<Input, ReadError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Input {
            path: path.to_path_buf(),
            kind,
            bytes,
        }),
        Err(error) => Err(ReadError {
            path: path.to_path_buf(),
            error,
            usage,
        }),
    }
}

/// Read every file named on the command line; report all that cannot be read, not just the
/// first.
pub fn read_inputs(
    named: &[(&Path, FileKind)],
    usage: &'static str,
) -> Result<Vec<Input>, Vec<ReadError>> {
    let mut inputs = Vec::new();
    let mut failures = Vec::new();
    for &(path, kind) in named {
        match read_input(path, kind, usage) {
            Ok(input) => inputs.push(input),
            Err(e) => failures.push(e),
        }
    }
    if failures.is_empty() {
        Ok(inputs)
    } else {
        Err(failures)
    }
}

/// A file decoded to text, with the diagnostics found so far.
struct Loaded {
    path: String,
    kind: FileKind,
    /// The text; for a file that is not UTF-8, a lossy copy (only for display).
    text: String,
    /// Whether `text` is the file as read, so it may be parsed.
    decoded: bool,
    diagnostics: Vec<Diagnostic>,
    summary: Option<String>,
    skipped: Option<String>,
}

impl Loaded {
    fn new(input: Input) -> Loaded {
        let decode_error = decode(&input.bytes, input.kind).err();
        let text = match String::from_utf8(input.bytes) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        Loaded {
            path: input.path.display().to_string(),
            kind: input.kind,
            text,
            decoded: decode_error.is_none(),
            diagnostics: decode_error.into_iter().collect(),
            summary: None,
            skipped: None,
        }
    }

    /// The file as checked, with its text made safe to print.
    fn finish(self) -> FileResult {
        let text = printable(self.text);
        FileResult {
            index: LineIndex::new(&text),
            text,
            path: self.path,
            kind: self.kind,
            diagnostics: self.diagnostics,
            summary: self.summary,
            skipped: self.skipped,
        }
    }
}

/// The checker's options for `--strict` (or not).
pub fn check_options(strict: bool) -> CheckOptions {
    // Written so that options added to the library later keep their defaults here.
    #[allow(clippy::needless_update)]
    CheckOptions {
        strict,
        ..CheckOptions::default()
    }
}

/// What [`check`] found, and the parsed domain and problem for commands that go on to use
/// them.
#[derive(Debug)]
pub struct Checked {
    /// The files and their diagnostics.
    pub outcome: Outcome,
    /// The domain, when it could be parsed (possibly with errors).
    pub domain: Option<Domain>,
    /// The problem, when it could be parsed (possibly with errors).
    pub problem: Option<Problem>,
}

/// Decode and read one plan file on its own (no checks against a domain): the file with
/// its reading diagnostics, the plan when one could be read, and why there is none when an
/// LLM reply holds none.
pub fn load_plan(input: Input, reading: PlanReading<'_>) -> (FileResult, PlanRead) {
    let mut file = Loaded::new(input);
    let mut read = PlanRead::default();
    if file.decoded {
        read = read_plan_text(&file.text, reading);
        file.diagnostics.append(&mut read.diagnostics);
    }
    (file.finish(), read)
}

/// Parse and check what was read.
pub fn check(inputs: Vec<Input>, options: &CheckOptions, llm_plan: bool) -> Checked {
    let mut files: Vec<Loaded> = inputs.into_iter().map(Loaded::new).collect();
    // Diagnostics from the checker, tagged with the file whose check produced them; they are
    // filed under the file they point into at the end.
    let mut found: Vec<(usize, Diagnostic)> = Vec::new();

    let mut domain: Option<Domain> = None;
    let mut problem: Option<Problem> = None;
    let mut plan: Option<Plan> = None;
    let mut no_plan: Option<NoPlan> = None;
    let mut plan_files = Vec::new();
    for (i, file) in files.iter_mut().enumerate() {
        if !file.decoded {
            continue;
        }
        match file.kind {
            FileKind::Domain => {
                let parsed = parse_domain(&file.text);
                found.extend(parsed.diagnostics.into_iter().map(|d| (i, d)));
                domain = parsed.value;
            }
            FileKind::Problem => {
                let parsed = parse_problem(&file.text);
                found.extend(parsed.diagnostics.into_iter().map(|d| (i, d)));
                problem = parsed.value;
            }
            // Read once the domain and problem are: a reply is read with their names.
            FileKind::Plan => plan_files.push(i),
        }
    }
    let vocabulary = match (&domain, llm_plan) {
        (Some(d), true) => Some(Vocabulary::of(d, problem.as_ref())),
        _ => None,
    };
    let reading = if llm_plan {
        PlanReading::Reply(vocabulary.as_ref())
    } else {
        PlanReading::Strict
    };
    for i in plan_files {
        let read = read_plan_text(&files[i].text, reading);
        found.extend(read.diagnostics.into_iter().map(|d| (i, d)));
        plan = read.plan;
        no_plan = read.no_plan;
    }

    let kinds: Vec<FileKind> = files.iter().map(|f| f.kind).collect();
    let index_of = |kind| kinds.iter().position(|&k| k == kind);
    let (di, pi, li) = (
        index_of(FileKind::Domain),
        index_of(FileKind::Problem),
        index_of(FileKind::Plan),
    );
    let mut skipped: Vec<(usize, String)> = Vec::new();
    if let (Some(i), Some(d)) = (di, &domain) {
        found.extend(check_domain(d, options).into_iter().map(|x| (i, x)));
    }
    if let (Some(i), Some(p)) = (pi, &problem) {
        match &domain {
            Some(d) => found.extend(check_problem(d, p, options).into_iter().map(|x| (i, x))),
            None => skipped.push((i, "not checked: the domain could not be parsed".into())),
        }
    }
    if let (Some(i), Some(l)) = (li, &plan) {
        match (&domain, &problem) {
            (Some(d), Some(p)) => found.extend(check_plan(d, p, l).into_iter().map(|x| (i, x))),
            (None, _) => skipped.push((i, "not checked: the domain could not be parsed".into())),
            (_, None) => skipped.push((i, "not checked: the problem could not be parsed".into())),
        }
    }

    // File each diagnostic under the file it points into (a problem check may point into the
    // domain); a diagnostic about a file that was not given stays with the file checked.
    for (owner, d) in found {
        let target = index_of(d.file).unwrap_or(owner);
        files[target].diagnostics.push(d);
    }
    for (i, why) in skipped {
        files[i].skipped = Some(why);
    }
    if let (Some(i), Some(d)) = (di, &domain) {
        files[i].summary = Some(domain_summary(d));
    }
    if let (Some(i), Some(p)) = (pi, &problem) {
        files[i].summary = Some(problem_summary(p));
    }
    if let (Some(i), Some(l)) = (li, &plan) {
        files[i].summary = Some(plan_summary(l));
    }
    if let (Some(i), Some(why)) = (li, no_plan) {
        files[i].summary = Some(format!("no plan: {}", why.message()));
    }

    let files = files.into_iter().map(Loaded::finish).collect();
    Checked {
        outcome: Outcome {
            files,
            safety_unavailable: None,
        },
        domain,
        problem,
    }
}

pub fn domain_summary(d: &Domain) -> String {
    let mut parts = vec![count(d.actions.len(), "action", "actions")];
    if !d.durative_actions.is_empty() {
        parts.push(count(
            d.durative_actions.len(),
            "durative action",
            "durative actions",
        ));
    }
    parts.push(count(d.predicates.len(), "predicate", "predicates"));
    if !d.functions.is_empty() {
        parts.push(count(d.functions.len(), "function", "functions"));
    }
    format!("domain {}: {}", d.name.as_str(), parts.join(", "))
}

pub fn problem_summary(p: &Problem) -> String {
    let facts = p
        .init
        .iter()
        .filter(|e| matches!(e, InitEntry::Atom(_)))
        .count();
    let values = p
        .init
        .iter()
        .filter(|e| matches!(e, InitEntry::Assign(..)))
        .count();
    let mut parts = vec![
        count(p.objects.len(), "object", "objects"),
        count(facts, "init fact", "init facts"),
    ];
    if values > 0 {
        parts.push(count(values, "numeric value", "numeric values"));
    }
    format!(
        "problem {} for domain {}: {}",
        p.name.as_str(),
        p.domain.as_str(),
        parts.join(", ")
    )
}

fn plan_summary(l: &Plan) -> String {
    let mut s = format!("plan: {}", count(l.steps.len(), "step", "steps"));
    if let Some(cost) = l.cost {
        s.push_str(&format!(", cost {cost}"));
    }
    s
}

/// `text` with characters that would act on a terminal (C0/C1 controls other than tab, line
/// feed and carriage return; DEL; bidirectional overrides) replaced by visible characters of
/// the same UTF-8 length, so every byte offset and column stays valid.
fn printable(text: String) -> String {
    fn unsafe_char(c: char) -> bool {
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    }
    // Nearly every file is plain text: a byte scan finds that without decoding characters.
    // Only a byte that may start an unsafe character sends us the slow way. The scan folds
    // whole chunks without an early exit, which the compiler turns into vector compares
    // (`any` stops at each byte and is not vectorised: 5 instructions a byte).
    // (`&` and `|`, not `&&` and `||`: no branch per byte.)
    let may_be_unsafe = |b: u8| {
        ((b < 0x20) & (b != b'\t') & (b != b'\n') & (b != b'\r')) | (b == 0x7f) | (b >= 0xc2)
    };
    let plain = text
        .as_bytes()
        .chunks(64)
        .all(|chunk| !chunk.iter().fold(false, |seen, &b| seen | may_be_unsafe(b)));
    if plain || !text.chars().any(unsafe_char) {
        return text;
    }
    text.chars()
        .map(|c| {
            if !unsafe_char(c) {
                c
            } else {
                match c.len_utf8() {
                    1 => '?',
                    2 => '¿',
                    _ => '\u{fffd}',
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_keeps_offsets() {
        let text = "a\u{1b}[31mb\u{85}c\u{202e}d\te\n".to_string();
        let out = printable(text.clone());
        assert_eq!(out.len(), text.len());
        assert_eq!(out.chars().count(), text.chars().count());
        assert_eq!(out, "a?[31mb¿c\u{fffd}d\te\n");
        // The byte scan goes a chunk at a time: a control character in a later chunk, or
        // in the short last one, is still found.
        for at in [63, 64, 100, 129] {
            let mut text = "(at robot kitchen)\n".repeat(7);
            text.insert(at, '\u{7}');
            let out = printable(text.clone());
            assert_eq!(out.len(), text.len());
            assert_eq!(out.find('?'), Some(at), "a bell at byte {at}");
        }
        let plain = "(at robot kitchen)\n\t; é\r\n".repeat(9);
        assert_eq!(printable(plain.clone()), plain);
    }
}
