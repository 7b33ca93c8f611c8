//! The top level of a file: the `(define (domain|problem ...))` header, its sections in
//! order, and what each section holds (requirements, actions, declarations, `:init`,
//! `:metric`).

use compact_str::CompactString;

use crate::ast::*;
use crate::diagnostic::{Code, nearest};
use crate::lexer::{Tok, Token};
use crate::requirements::Requirement;
use crate::span::Span;

use super::{DOMAIN_SECTIONS, GoalPart, PROBLEM_SECTIONS, Parser, looks_numeric, truncate};

impl<'a> Parser<'a> {
    /// `(define (KIND NAME)`: returns the define `(` span and the name.
    pub(super) fn header(&mut self, kind: &str) -> Option<(Span, Name)> {
        let t = self.peek();
        if t.kind == Tok::Eof {
            self.error(
                Code::UnexpectedEof,
                t.span,
                format!("the file is empty: expected `(define ({kind} NAME) ...)`"),
            )
            .help = Some(format!(
                "check that this is the {kind} file; it holds no PDDL, only whitespace or comments"
            ));
            return None;
        }
        let define = self.open(&format!("`(define ({kind} NAME) ...)`"))?;
        if !self.eat_word("define") {
            let t = self.peek();
            self.unexpected(
                t,
                &format!("`define` (a {kind} file starts with `(define ({kind} NAME)`)"),
            );
            self.skip_rest_of_list();
            return None;
        }
        let inner = self.open(&format!("`({kind} NAME)`"));
        if inner.is_none() {
            self.skip_rest_of_list();
            return None;
        }
        let kw = self.peek();
        if !self.eat_word(kind) {
            let other = if kind == "domain" {
                "problem"
            } else {
                "domain"
            };
            if kw.kind == Tok::Atom && self.text(kw.span).eq_ignore_ascii_case(other) {
                self.error(
                    Code::UnexpectedToken,
                    kw.span,
                    format!("expected a {kind} file, but this file defines a {other}"),
                )
                .help = Some(
                    "check the order of the file arguments: domain first, then problem".into(),
                );
            } else {
                self.unexpected(kw, &format!("`{kind}`"));
            }
            self.skip_rest_of_list();
            self.skip_rest_of_list();
            return None;
        }
        let name = self.name(&format!("the {kind} name"));
        self.close(format_args!("`({kind} NAME)`"));
        let name = name.unwrap_or_else(|| Name::new("", kw.span));
        Some((define, name))
    }

    /// Reads the sections of a `define`, dispatching on the keyword. Returns the close span.
    pub(super) fn sections(
        &mut self,
        known: &[&str],
        mut handle: impl FnMut(&mut Self, &str, Span, Token) -> bool,
    ) -> Span {
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Close => {
                    self.bump();
                    self.leave();
                    return t.span;
                }
                Tok::Eof => {
                    self.report_eof(t.span, 0, None);
                    self.leave();
                    return t.span;
                }
                Tok::Atom => {
                    self.unexpected(t, "a section such as `(:action ...)` or the final `)`");
                    self.bump();
                }
                Tok::Open => {
                    let Some(open) = self.open("a section") else {
                        continue;
                    };
                    let kw = self.peek();
                    let word = if kw.kind == Tok::Atom {
                        self.text(kw.span).to_ascii_lowercase()
                    } else {
                        String::new()
                    };
                    if known.contains(&word.as_str()) {
                        self.bump();
                        if !handle(self, &word, open, kw) {
                            // The handler did not consume the section's `)`.
                            self.skip_rest_of_list();
                        }
                    } else {
                        let d = self.error(
                            Code::UnknownSection,
                            if kw.kind == Tok::Atom { kw.span } else { open },
                            format!(
                                "unknown section {}",
                                if kw.kind == Tok::Atom {
                                    format!("`{}`", truncate(self.text(kw.span), 40))
                                } else {
                                    "without a keyword".into()
                                }
                            ),
                        );
                        let suggestion = nearest(&word, known.iter().copied());
                        d.help = Some(match suggestion {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => format!("sections here are {}", known.join(", ")),
                        });
                        self.skip_rest_of_list();
                    }
                }
            }
        }
    }

    pub(super) fn requirements(&mut self) -> Vec<RequirementDecl> {
        let mut out = Vec::new();
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Atom => {
                    self.bump();
                    let text = self.text(t.span);
                    let requirement = Requirement::parse(text);
                    if requirement.is_none() {
                        let names = Requirement::ALL.iter().map(|r| r.as_str());
                        let d = self.error(
                            Code::UnknownRequirement,
                            t.span,
                            format!("unknown requirement `{}`", truncate(text, 40)),
                        );
                        d.severity = crate::diagnostic::Severity::Warning;
                        let with_colon = if text.starts_with(':') {
                            text.to_string()
                        } else {
                            format!(":{text}")
                        };
                        d.help =
                            nearest(&with_colon, names).map(|s| format!("did you mean `{s}`?"));
                    }
                    out.push(RequirementDecl {
                        requirement,
                        name: Name::new(CompactString::from(text), t.span),
                    });
                }
                Tok::Open => {
                    self.unexpected(t, "a requirement such as `:typing`");
                    self.skip_element();
                }
                Tok::Close | Tok::Eof => {
                    self.close("`(:requirements ...)`");
                    return out;
                }
            }
        }
    }

    pub(super) fn action(&mut self, open: Span) -> Option<Action> {
        let name = self.name("the action name");
        let mut params = Vec::new();
        let mut precondition = None;
        let mut effect = None;
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Close | Tok::Eof => break,
                Tok::Atom => {
                    self.bump();
                    let word = self.text(t.span).to_ascii_lowercase();
                    match word.as_str() {
                        ":parameters" => {
                            params = self.var_list("`:parameters`").unwrap_or_default()
                        }
                        ":precondition" => precondition = self.formula(),
                        ":effect" => effect = self.effect(),
                        _ => {
                            let d = self.error(
                                Code::UnexpectedToken,
                                t.span,
                                format!(
                                    "expected `:parameters`, `:precondition` or `:effect`, found `{}`",
                                    truncate(self.text(t.span), 40)
                                ),
                            );
                            d.help = nearest(&word, [":parameters", ":precondition", ":effect"])
                                .map(|s| format!("did you mean `{s}`?"));
                            if matches!(self.peek().kind, Tok::Open) {
                                self.skip_element();
                            }
                        }
                    }
                }
                Tok::Open => {
                    self.unexpected(t, "`:parameters`, `:precondition` or `:effect`");
                    self.skip_element();
                }
            }
        }
        let close = self.close("`(:action ...)`");
        Some(Action {
            name: name?,
            params,
            precondition,
            effect,
            span: open.to(close),
        })
    }

    pub(super) fn predicate_decls(&mut self) -> Vec<PredicateDecl> {
        let mut out = Vec::new();
        while self.peek().kind == Tok::Open {
            if let Some(p) = self.predicate_decl() {
                out.push(p);
            }
        }
        if self.peek().kind == Tok::Atom {
            let t = self.peek();
            self.unexpected(t, "a predicate declaration such as `(at ?x - object)`");
        }
        out
    }

    pub(super) fn predicate_decl(&mut self) -> Option<PredicateDecl> {
        let open = self.open("a predicate declaration")?;
        let name = self.name("a predicate");
        let params = self.typed_list(true, "variable");
        let close = self.close("the predicate declaration");
        Some(PredicateDecl {
            name: name?,
            params,
            span: open.to(close),
        })
    }

    pub(super) fn function_decls(&mut self) -> Vec<FunctionDecl> {
        let mut out: Vec<FunctionDecl> = Vec::new();
        let mut untyped_from = 0;
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Open => {
                    if let Some(p) = self.predicate_decl() {
                        out.push(FunctionDecl {
                            name: p.name,
                            params: p.params,
                            ty: FunctionType::Unspecified,
                            span: p.span,
                        });
                    }
                }
                Tok::Atom if self.text(t.span) == "-" => {
                    self.bump();
                    let ty = self.type_expr();
                    let ty = match ty {
                        Some(Type::Named(n)) if n.matches("number") => FunctionType::Number(n.span),
                        Some(Type::Named(n)) if n.matches("integer") => {
                            FunctionType::Integer(n.span)
                        }
                        Some(other) => FunctionType::Object(other),
                        None => FunctionType::Unspecified,
                    };
                    for f in &mut out[untyped_from..] {
                        f.ty = ty.clone();
                    }
                    untyped_from = out.len();
                }
                Tok::Atom => {
                    self.unexpected(
                        t,
                        "a function declaration such as `(fuel ?a)` or `- number`",
                    );
                    self.bump();
                }
                Tok::Close | Tok::Eof => return out,
            }
        }
    }

    pub(super) fn derived(&mut self, open: Span) -> Option<Derived> {
        let head = self.predicate_decl();
        let body = self.formula();
        let close = self.close("`(:derived ...)`: it takes a head and one condition");
        Some(Derived {
            head: head?,
            body: body?,
            span: open.to(close),
        })
    }

    pub fn domain(&mut self) -> Option<Domain> {
        let (define, name) = self.header("domain")?;
        let mut domain = Domain {
            name,
            requirements: Vec::new(),
            types: Vec::new(),
            constants: Vec::new(),
            predicates: Vec::new(),
            functions: Vec::new(),
            actions: Vec::new(),
            derived: Vec::new(),
            durative_actions: Vec::new(),
            constraints: None,
            span: define,
        };
        let mut seen: Vec<(String, Span)> = Vec::new();
        let close = self.sections(DOMAIN_SECTIONS, |p, word, open, kw| {
            let repeatable = matches!(word, ":action" | ":derived" | ":durative-action");
            if !repeatable {
                if let Some((_, first)) = seen.iter().find(|(w, _)| w == word) {
                    let first = *first;
                    let file = p.file;
                    p.error(
                        Code::DuplicateSection,
                        kw.span,
                        format!("`{word}` appears twice"),
                    )
                    .labels
                    .push(crate::diagnostic::Label {
                        file,
                        span: first,
                        message: "first given here".into(),
                    });
                    if let Some(d) = p.diagnostics.last_mut() {
                        d.help = Some("merge the two sections into one".into());
                    }
                }
                seen.push((word.to_string(), kw.span));
            }
            match word {
                ":requirements" => {
                    let r = p.requirements();
                    domain.requirements.extend(r);
                    true
                }
                ":types" => {
                    let t = p.typed_list(false, "type");
                    domain.types.extend(t);
                    p.close("`(:types ...)`");
                    true
                }
                ":constants" => {
                    let c = p.typed_list(false, "constant");
                    domain.constants.extend(c);
                    p.close("`(:constants ...)`");
                    true
                }
                ":predicates" => {
                    let ps = p.predicate_decls();
                    domain.predicates.extend(ps);
                    p.close("`(:predicates ...)`");
                    true
                }
                ":functions" => {
                    let fs = p.function_decls();
                    domain.functions.extend(fs);
                    p.close("`(:functions ...)`");
                    true
                }
                ":action" => {
                    if let Some(a) = p.action(open) {
                        domain.actions.push(a);
                    }
                    true
                }
                ":derived" => {
                    if let Some(d) = p.derived(open) {
                        domain.derived.push(d);
                    }
                    true
                }
                ":durative-action" => {
                    if let Some(a) = p.durative_action(open) {
                        domain.durative_actions.push(a);
                    }
                    true
                }
                _ => {
                    // `:constraints`, the one section left.
                    domain.constraints = p.constraints_section(open, kw);
                    true
                }
            }
        });
        domain.span = define.to(close);
        self.trailing("domain");
        Some(domain)
    }

    pub fn problem(&mut self) -> Option<Problem> {
        let (define, name) = self.header("problem")?;
        let mut problem = Problem {
            name,
            domain: Name::new("", define),
            requirements: Vec::new(),
            objects: Vec::new(),
            init: Vec::new(),
            goal: None,
            metric: None,
            constraints: None,
            goal_preferences: None,
            span: define,
        };
        let mut has_domain = false;
        let mut seen: Vec<(String, Span)> = Vec::new();
        let close = self.sections(PROBLEM_SECTIONS, |p, word, open, kw| {
            if let Some((_, first)) = seen.iter().find(|(w, _)| w == word) {
                let first = *first;
                let file = p.file;
                p.error(
                    Code::DuplicateSection,
                    kw.span,
                    format!("`{word}` appears twice"),
                )
                .labels
                .push(crate::diagnostic::Label {
                    file,
                    span: first,
                    message: "first given here".into(),
                });
            }
            seen.push((word.to_string(), kw.span));
            match word {
                ":domain" => {
                    if let Some(n) = p.name("the domain name") {
                        problem.domain = n;
                        has_domain = true;
                    }
                    p.close("`(:domain NAME)`");
                    true
                }
                ":requirements" => {
                    let r = p.requirements();
                    problem.requirements.extend(r);
                    true
                }
                ":objects" => {
                    let o = p.typed_list(false, "object");
                    problem.objects.extend(o);
                    p.close("`(:objects ...)`");
                    true
                }
                ":init" => {
                    p.init(&mut problem.init);
                    p.close("`(:init ...)`");
                    true
                }
                ":goal" => {
                    let mut prefs = Vec::new();
                    let part = p.goal_part(&mut prefs);
                    let close = p.close(
                        "`(:goal ...)`: the goal is one condition; wrap several in `(and ...)`",
                    );
                    let span = open.to(close);
                    problem.goal = match part {
                        GoalPart::Hard(f) => Some(f),
                        // Only preferences: the hard goal is the empty conjunction.
                        GoalPart::Soft => Some(Formula::And(Vec::new(), span)),
                        GoalPart::Failed => None,
                    };
                    problem.goal_preferences = match prefs.len() {
                        0 => None,
                        1 => prefs.pop(),
                        _ => Some(Constraint::And(prefs, span)),
                    };
                    true
                }
                ":metric" => {
                    problem.metric = p.metric(open);
                    true
                }
                _ => {
                    // `:constraints`, the one section left.
                    problem.constraints = p.constraints_section(open, kw);
                    true
                }
            }
        });
        problem.span = define.to(close);
        if !has_domain && !self.eof_reported {
            self.error(
                Code::MissingSection,
                problem.name.span,
                "the problem does not say which domain it belongs to",
            )
            .help = Some("add `(:domain NAME)` after `(problem ...)`".into());
        }
        if problem.goal.is_none() && !seen.iter().any(|(w, _)| w == ":goal") && !self.eof_reported {
            self.error(
                Code::MissingSection,
                problem.name.span,
                "the problem has no `:goal`",
            )
            .help = Some("add `(:goal (and ...))` with the facts the plan must reach".into());
        }
        self.trailing("problem");
        Some(problem)
    }

    pub(super) fn init(&mut self, out: &mut Vec<InitEntry>) {
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Close | Tok::Eof => return,
                Tok::Atom => {
                    self.unexpected(t, "a fact in parentheses such as `(at truck1 depot)`");
                    self.bump();
                }
                Tok::Open => {
                    if let Some(e) = self.init_entry() {
                        out.push(e);
                    }
                }
            }
        }
    }

    pub(super) fn init_entry(&mut self) -> Option<InitEntry> {
        let open = self.open("a fact")?;
        let head = self.peek();
        if head.kind != Tok::Atom {
            self.unexpected(head, "a predicate name, `=` or `not`");
            self.skip_rest_of_list();
            return None;
        }
        self.bump();
        let word = self.text(head.span);
        if word == "=" {
            let target = self.fluent_term();
            let value_tok = self.peek();
            let value = if value_tok.kind == Tok::Atom && looks_numeric(self.text(value_tok.span)) {
                self.bump();
                self.number(value_tok)
            } else {
                self.unexpected(value_tok, "a number (initial values are plain numbers)");
                None
            };
            let close = self.close("`(= ...)`");
            return Some(InitEntry::Assign(target?, value?, open.to(close)));
        }
        if word.eq_ignore_ascii_case("not") {
            let atom = self.atom_formula("the negated fact");
            let close = self.close("`(not ...)`");
            return Some(InitEntry::Not(atom?, open.to(close)));
        }
        let next = self.peek();
        if word.eq_ignore_ascii_case("at") && self.is_number_token(next) {
            self.error(
                Code::Unsupported,
                open,
                "timed initial literals (`(at TIME fact)`) are not supported",
            )
            .help = Some("remove the timed literal; safeplan validates sequential plans".into());
            self.skip_rest_of_list();
            return None;
        }
        if word.starts_with([':', '?']) {
            self.unexpected(head, "a predicate name");
            self.skip_rest_of_list();
            return None;
        }
        let predicate = self.name_from(head, "a predicate");
        let args = self.terms(false);
        let close = self.close(format_args!("the fact `({word} ...)`"));
        Some(InitEntry::Atom(Atom {
            predicate,
            args,
            span: open.to(close),
        }))
    }

    pub(super) fn metric(&mut self, open: Span) -> Option<Metric> {
        let t = self.peek();
        let optimization = if self.eat_word("minimize") {
            Some(Optimization::Minimize)
        } else if self.eat_word("maximize") {
            Some(Optimization::Maximize)
        } else {
            self.unexpected(t, "`minimize` or `maximize`");
            None
        };
        let expr = self.expr();
        let close = self.close("`(:metric ...)`");
        Some(Metric {
            optimization: optimization?,
            expr: expr?,
            span: open.to(close),
        })
    }

    // ----- trajectory constraints and preferences (PDDL3) ---------------------------------

    /// Anything after the closing `)` of the `define`.
    pub(super) fn trailing(&mut self, kind: &str) {
        let t = self.peek();
        match t.kind {
            Tok::Eof => {}
            Tok::Close => {
                self.error(
                    Code::UnexpectedCloseParen,
                    t.span,
                    format!("this `)` closes nothing: the {kind} already ended"),
                )
                .help = Some("remove it, or look for a `)` that closed a list too early".into());
            }
            _ => {
                self.error(
                    Code::UnexpectedToken,
                    t.span,
                    format!("unexpected text after the end of the {kind}"),
                )
                .help = Some(format!(
                    "a file holds one `(define ...)`; move this {kind} text inside it or remove it"
                ));
            }
        }
    }
}
