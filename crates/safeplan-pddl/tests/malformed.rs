//! Malformed inputs of our own: each gives a located error, never a panic.
//!
//! Files live in `tests/malformed/`: `d-*.pddl` are broken domains (checked alone), `p-*.pddl`
//! broken problems (checked against the valid `domain.pddl` there). The first line of each
//! says which diagnostic must come first and where: `; expect: CODE LINE:COL`, worked out by
//! hand from the file. Hostile inputs too large to commit are generated here.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use safeplan_pddl::{
    CheckOptions, Code, Diagnostic, LineIndex, check_domain, check_problem, parse_domain,
    parse_domain_bytes, parse_plan, parse_problem, parser::MAX_DEPTH,
};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/malformed")
}

/// Parse and check one malformed file the way `safeplan check` would.
fn diagnose(path: &Path) -> (String, Vec<Diagnostic>) {
    let src = std::fs::read_to_string(path).expect("read");
    let options = CheckOptions::default();
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let diags = if name.starts_with("d-") {
        let parsed = parse_domain(&src);
        let mut diags = parsed.diagnostics;
        if let Some(d) = &parsed.value {
            diags.extend(check_domain(d, &options));
        }
        diags
    } else {
        let domain =
            parse_domain(&std::fs::read_to_string(dir().join("domain.pddl")).expect("domain"));
        assert!(domain.diagnostics.is_empty(), "{:#?}", domain.diagnostics);
        let domain = domain.value.expect("domain");
        assert!(check_domain(&domain, &options).is_empty());
        let parsed = parse_problem(&src);
        let mut diags = parsed.diagnostics;
        if let Some(p) = &parsed.value {
            diags.extend(check_problem(&domain, p, &options));
        }
        diags
    };
    (src, diags)
}

fn render(src: &str, diags: &[Diagnostic]) -> String {
    let index = LineIndex::new(src);
    let mut out = String::new();
    for d in diags {
        let at = index.line_col(src, d.span.start);
        let _ = writeln!(
            out,
            "{}:{} {:?}[{}] {}",
            at.line, at.col, d.severity, d.code, d.message
        );
        for l in &d.labels {
            let _ = writeln!(out, "    label ({:?}): {}", l.file, l.message);
        }
        if let Some(h) = &d.help {
            let _ = writeln!(out, "    help: {h}");
        }
    }
    out
}

#[test]
fn every_malformed_file_gets_its_expected_first_error() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("malformed dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("d-") || n.starts_with("p-"))
        })
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the malformed corpus went missing");
    let mut report = String::new();
    for path in &files {
        let (src, diags) = diagnose(path);
        let expect = src
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("; expect: "))
            .unwrap_or_else(|| panic!("{}: no `; expect:` line", path.display()));
        let first = diags
            .iter()
            .find(|d| d.is_error())
            .unwrap_or_else(|| panic!("{}: no error in {diags:#?}", path.display()));
        let at = LineIndex::new(&src).line_col(&src, first.span.start);
        let got = format!("{} {}:{}", first.code, at.line, at.col);
        assert_eq!(got, expect, "{}:\n{}", path.display(), render(&src, &diags));
        assert!(
            first.help.is_some(),
            "{}: an error without a fix: {first:#?}",
            path.display()
        );
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let _ = write!(report, "== {name}\n{}", render(&src, &diags));
    }
    insta::assert_snapshot!("malformed_diagnostics", report);
}

#[test]
fn a_hundred_thousand_open_parens_are_an_error_not_a_stack_overflow() {
    let n = 100_000;
    let src = format!("{}{}", "(".repeat(n), ")".repeat(n));
    let parsed = parse_domain(&src);
    assert!(parsed.value.is_none());
    let first = &parsed.diagnostics[0];
    assert_eq!((first.code, first.span.start), (Code::UnexpectedToken, 1));

    // Unbalanced: only opening parentheses. Two errors: no `define`, and the file ends with
    // every list open.
    let parsed = parse_domain(&"(".repeat(n));
    let codes: Vec<Code> = parsed.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::UnexpectedToken, Code::UnclosedParen]);
    assert!(
        parsed.diagnostics[1]
            .message
            .contains("100000 `(` are still open"),
        "{}",
        parsed.diagnostics[1].message
    );
}

#[test]
fn nesting_deeper_than_the_limit_is_reported_where_it_crosses_it() {
    // `(and (and (and ...` really recurses in the parser: the limit must catch it.
    let n = 100_000;
    let prefix = "(define (domain d) (:predicates (p)) (:action a :parameters () :precondition ";
    let src = format!("{prefix}{}(p){}))", "(and ".repeat(n), ")".repeat(n));
    let parsed = parse_domain(&src);
    let too_deep: Vec<_> = parsed
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::TooDeep)
        .collect();
    assert_eq!(
        too_deep.len(),
        1,
        "{:#?}",
        &parsed.diagnostics[..parsed.diagnostics.len().min(5)]
    );
    // Depth counts open lists: `define` and `:action` are 2; each `(and` adds one. The list
    // refused is the one that would be level MAX_DEPTH + 1.
    let refused_and = (MAX_DEPTH - 2) as usize;
    assert_eq!(
        too_deep[0].span.start as usize,
        prefix.len() + 5 * refused_and
    );
    // The rest of the file is still read: the action is there.
    assert_eq!(parsed.value.map(|d| d.actions.len()), Some(1));
}

#[test]
fn a_fifty_megabyte_token_is_reported_briefly() {
    let token = "x".repeat(50 * 1024 * 1024);
    let parsed = parse_domain(&token);
    assert!(parsed.value.is_none());
    assert_eq!(parsed.diagnostics.len(), 1);
    let d = &parsed.diagnostics[0];
    assert_eq!(
        (d.code, d.span.start as usize, d.span.end as usize),
        (Code::UnexpectedToken, 0, token.len())
    );
    // The message quotes the token, shortened.
    assert!(d.message.len() < 200, "{}", d.message);

    let plan = parse_plan(&token);
    assert!(plan.has_errors());
}

#[test]
fn binary_bytes_are_a_utf8_error_at_the_first_bad_byte() {
    let mut bytes = b"(define (domain k)\n  (:predicates (p ".to_vec();
    let at = bytes.len();
    bytes.extend_from_slice(&[0xff, 0xfe, 0x00, 0x81]);
    bytes.extend_from_slice(b")))");
    let parsed = parse_domain_bytes(&bytes);
    assert!(parsed.value.is_none());
    assert_eq!(parsed.diagnostics.len(), 1);
    let d = &parsed.diagnostics[0];
    assert_eq!((d.code, d.span.start as usize), (Code::InvalidUtf8, at));
    // Line and column come from the valid prefix: line 2, column 19.
    let prefix = std::str::from_utf8(&bytes[..at]).expect("prefix");
    let lc = LineIndex::new(prefix).line_col(prefix, d.span.start);
    assert_eq!((lc.line, lc.col), (2, 19));

    // Control characters in otherwise valid UTF-8 are not names.
    let parsed = parse_domain("(define (domain k) (:predicates (p\u{1}q)))");
    assert_eq!(
        parsed.diagnostics.first().map(|d| d.code),
        Some(Code::InvalidName)
    );
}

#[test]
fn garbage_never_panics() {
    // A deterministic sweep of awkward fragments, spliced together.
    let fragments = [
        "(",
        ")",
        "(define",
        "(domain",
        "(problem",
        ":action",
        ":parameters",
        "?x",
        "?",
        "-",
        "(either",
        "(and",
        "(not",
        "(=",
        "(increase",
        "(when",
        "(forall (?x)",
        "1.5",
        "-.",
        "1e999",
        ";",
        "\n",
        "é",
        "(at start",
        "(:init",
        "(:goal",
        "(:metric minimize",
        "(total-time)",
        "#t",
        ")))",
        "((",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..2000 {
        let mut src = String::new();
        for _ in 0..(seed % 40) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            src.push_str(fragments[(seed % fragments.len() as u64) as usize]);
            src.push(' ');
        }
        let _ = parse_domain(&src);
        let _ = parse_problem(&src);
        let _ = parse_plan(&src);
        if let Some(d) = parse_domain(&format!("(define (domain x) {src})")).value {
            let _ = check_domain(&d, &CheckOptions::default());
        }
    }
}
