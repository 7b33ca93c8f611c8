//! Danger conditions as boolean formulas: read leniently, printed as `A AND NOT B`, compared
//! by truth table.
//!
//! An atom is a fluent written as in the domain: a predicate without arguments by its name
//! (`liquid_is_hot`), one with arguments in parentheses (`(robot_at kitchen)`,
//! `(pedestrians ?s)`). Anything else a domain's condition can hold (equality, a numeric
//! comparison, a quantifier) is kept whole as one opaque atom, its PDDL text with
//! whitespace normalised. Atoms are compared ASCII case-insensitively, as PDDL compares
//! names.

use std::collections::BTreeMap;
use std::fmt;

use safeplan_pddl::ast::{Formula, Term};
use serde::{Deserialize, Serialize};

/// A boolean formula over atoms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Condition {
    /// Always true (an unconditional danger effect).
    True,
    /// Never true.
    False,
    /// A fluent, as written (`liquid_is_hot`, `(robot_at kitchen)`).
    Atom(String),
    /// Negation.
    Not(Box<Condition>),
    /// Conjunction; empty is true.
    And(Vec<Condition>),
    /// Disjunction; empty is false.
    Or(Vec<Condition>),
}

/// Truth tables are built over at most this many atoms (2^22 rows, a few milliseconds);
/// [`equivalent`] answers `false` beyond it rather than run for minutes on a reply that
/// strings dozens of fluents together.
pub const MAX_ATOMS: usize = 22;

/// Nesting deeper than this is refused by [`parse_condition`], so a reply cannot exhaust
/// the stack.
const MAX_DEPTH: usize = 200;

impl Condition {
    /// An atom for `predicate` applied to `args`: `predicate` alone when there are none,
    /// `(predicate a b)` otherwise.
    pub fn atom<I, S>(predicate: &str, args: I) -> Condition
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let args: Vec<String> = args.into_iter().map(|a| a.as_ref().to_string()).collect();
        if args.is_empty() {
            Condition::Atom(predicate.to_string())
        } else {
            Condition::Atom(format!("({predicate} {})", args.join(" ")))
        }
    }

    /// The conjunction of `parts`, flattened, with constants folded (`TRUE` for none).
    pub fn all(parts: impl IntoIterator<Item = Condition>) -> Condition {
        let mut out = Vec::new();
        for p in parts {
            match p {
                Condition::True => {}
                Condition::False => return Condition::False,
                Condition::And(inner) => out.extend(inner),
                other => out.push(other),
            }
        }
        match out.len() {
            0 => Condition::True,
            1 => out.pop().unwrap_or(Condition::True),
            _ => Condition::And(out),
        }
    }

    /// The disjunction of `parts`, flattened, with constants folded (`FALSE` for none).
    pub fn any(parts: impl IntoIterator<Item = Condition>) -> Condition {
        let mut out: Vec<Condition> = Vec::new();
        for p in parts {
            match p {
                Condition::False => {}
                Condition::True => return Condition::True,
                Condition::Or(inner) => out.extend(inner),
                other => {
                    if !out.contains(&other) {
                        out.push(other)
                    }
                }
            }
        }
        match out.len() {
            0 => Condition::False,
            1 => out.pop().unwrap_or(Condition::False),
            _ => Condition::Or(out),
        }
    }

    /// The condition a PDDL formula states. Equalities, numeric comparisons and
    /// quantified formulas become opaque atoms (their PDDL text); `imply` becomes
    /// `NOT a OR b`.
    pub fn from_formula(f: &Formula) -> Condition {
        match f {
            Formula::Atom(a) => Condition::atom(a.predicate.as_str(), a.args.iter().map(term)),
            Formula::Equals(x, y, _) => Condition::atom("=", [term(x), term(y)]),
            Formula::Not(x, _) => Condition::Not(Box::new(Condition::from_formula(x))),
            Formula::And(xs, _) => Condition::all(xs.iter().map(Condition::from_formula)),
            Formula::Or(xs, _) => Condition::any(xs.iter().map(Condition::from_formula)),
            Formula::Imply(a, b, _) => Condition::any([
                Condition::Not(Box::new(Condition::from_formula(a))),
                Condition::from_formula(b),
            ]),
            // Soft: a preference never blocks a step.
            Formula::Preference(..) => Condition::True,
            Formula::Exists(..) | Formula::Forall(..) | Formula::Compare(..) => {
                Condition::Atom(canonical_sexpr(&safeplan_pddl::write_formula(f)))
            }
        }
    }

    /// The atoms it mentions, lower-cased, sorted and without repeats.
    pub fn atoms(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_atoms(&mut out);
        out.sort();
        out.dedup();
        out
    }

    fn collect_atoms(&self, out: &mut Vec<String>) {
        match self {
            Condition::True | Condition::False => {}
            Condition::Atom(a) => out.push(atom_key(a)),
            Condition::Not(c) => c.collect_atoms(out),
            Condition::And(cs) | Condition::Or(cs) => cs.iter().for_each(|c| c.collect_atoms(out)),
        }
    }

    /// Its value when exactly the atoms in `true_atoms` (any case) hold.
    pub fn eval(&self, true_atoms: &[&str]) -> bool {
        match self {
            Condition::True => true,
            Condition::False => false,
            Condition::Atom(a) => {
                let k = atom_key(a);
                true_atoms.iter().any(|t| atom_key(t) == k)
            }
            Condition::Not(c) => !c.eval(true_atoms),
            Condition::And(cs) => cs.iter().all(|c| c.eval(true_atoms)),
            Condition::Or(cs) => cs.iter().any(|c| c.eval(true_atoms)),
        }
    }

    fn precedence(&self) -> u8 {
        match self {
            Condition::Or(cs) if cs.len() > 1 => 1,
            Condition::And(cs) if cs.len() > 1 => 2,
            _ => 3,
        }
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, parent: u8) -> fmt::Result {
        // AND inside OR is parenthesised although precedence would not need it: a reader
        // (or a model shown the condition) should not have to know the precedence.
        let wrap = self.precedence() < parent || (parent == 1 && self.precedence() == 2);
        if wrap {
            f.write_str("(")?;
        }
        match self {
            Condition::True => f.write_str("TRUE")?,
            Condition::False => f.write_str("FALSE")?,
            Condition::Atom(a) => f.write_str(a)?,
            Condition::Not(c) => {
                f.write_str("NOT ")?;
                c.write(f, 3)?;
            }
            Condition::And(cs) | Condition::Or(cs) if cs.is_empty() => {
                f.write_str(if matches!(self, Condition::And(_)) {
                    "TRUE"
                } else {
                    "FALSE"
                })?;
            }
            Condition::And(cs) | Condition::Or(cs) => {
                let (sep, prec) = if matches!(self, Condition::And(_)) {
                    (" AND ", 2)
                } else {
                    (" OR ", 1)
                };
                // A one-element list prints as its element, in the parent's context.
                let prec = if cs.len() == 1 { parent } else { prec };
                for (i, c) in cs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(sep)?;
                    }
                    c.write(f, prec)?;
                }
            }
        }
        if wrap {
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Display for Condition {
    /// `A AND NOT B`, `(A OR B) AND C`, `TRUE`: what [`parse_condition`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, 0)
    }
}

fn term(t: &Term) -> String {
    match t {
        Term::Var(n) => format!("?{}", n.as_str()),
        Term::Const(n) => n.as_str().to_string(),
    }
}

/// The comparison key of an atom: lower case, whitespace collapsed, no space inside the
/// parentheses, and `(p)` the same as `p`.
fn atom_key(a: &str) -> String {
    let c = canonical_sexpr(a).to_ascii_lowercase();
    match c.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
        Some(inner) if !inner.contains([' ', '(', ')']) => inner.to_string(),
        _ => c,
    }
}

/// `text` with runs of whitespace made one space, and none after `(` or before `)`.
fn canonical_sexpr(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space && !out.is_empty() && !out.ends_with('(') && c != ')' {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
    }
    out
}

/// Whether `a` and `b` have the same value under every assignment of the atoms of both
/// (so an atom only one of them mentions must not matter to it). Decided by truth table;
/// `false` when the two mention more than [`MAX_ATOMS`] atoms between them.
pub fn equivalent(a: &Condition, b: &Condition) -> bool {
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for k in a.atoms().into_iter().chain(b.atoms()) {
        let next = index.len();
        index.entry(k).or_insert(next);
    }
    let n = index.len();
    if n > MAX_ATOMS {
        return false;
    }
    let (ca, cb) = (Compiled::new(a, &index), Compiled::new(b, &index));
    // Row r of the truth table gives atom i the value of bit i of r; 64 rows are evaluated
    // at once, one per bit of a word.
    let words = if n <= 6 { 1u64 } else { 1u64 << (n - 6) };
    let mask = if n < 6 {
        (1u64 << (1u64 << n)) - 1
    } else {
        u64::MAX
    };
    (0..words).all(|w| (ca.eval(w) ^ cb.eval(w)) & mask == 0)
}

/// A condition with its atoms numbered, for bit-parallel evaluation.
enum Compiled {
    Const(bool),
    Atom(usize),
    Not(Box<Compiled>),
    And(Vec<Compiled>),
    Or(Vec<Compiled>),
}

/// Bit i of word w of the truth table: the pattern of atom i within 64 consecutive rows.
const LOW_ATOMS: [u64; 6] = [
    0xAAAA_AAAA_AAAA_AAAA,
    0xCCCC_CCCC_CCCC_CCCC,
    0xF0F0_F0F0_F0F0_F0F0,
    0xFF00_FF00_FF00_FF00,
    0xFFFF_0000_FFFF_0000,
    0xFFFF_FFFF_0000_0000,
];

impl Compiled {
    fn new(c: &Condition, index: &BTreeMap<String, usize>) -> Compiled {
        match c {
            Condition::True => Compiled::Const(true),
            Condition::False => Compiled::Const(false),
            Condition::Atom(a) => match index.get(&atom_key(a)) {
                Some(&i) => Compiled::Atom(i),
                None => Compiled::Const(false),
            },
            Condition::Not(x) => Compiled::Not(Box::new(Compiled::new(x, index))),
            Condition::And(xs) => {
                Compiled::And(xs.iter().map(|x| Compiled::new(x, index)).collect())
            }
            Condition::Or(xs) => Compiled::Or(xs.iter().map(|x| Compiled::new(x, index)).collect()),
        }
    }

    fn eval(&self, word: u64) -> u64 {
        match self {
            Compiled::Const(true) => u64::MAX,
            Compiled::Const(false) => 0,
            Compiled::Atom(i) if *i < 6 => LOW_ATOMS[*i],
            Compiled::Atom(i) => {
                if (word >> (i - 6)) & 1 == 1 {
                    u64::MAX
                } else {
                    0
                }
            }
            Compiled::Not(x) => !x.eval(word),
            Compiled::And(xs) => xs.iter().fold(u64::MAX, |acc, x| acc & x.eval(word)),
            Compiled::Or(xs) => xs.iter().fold(0, |acc, x| acc | x.eval(word)),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Reading conditions
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    LParen,
    RParen,
    Comma,
    And,
    Or,
    Not,
    True,
    False,
    Word(String),
    Other(char),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
    /// A word written right against a `(`: `robot_at(kitchen)`.
    call: bool,
}

/// Characters that end a word. Quotes, backticks and `*` (Markdown emphasis) are read as
/// spaces: replies wrap fluents in them.
fn is_break(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '(' | ')'
                | ','
                | '&'
                | '|'
                | '!'
                | '~'
                | '¬'
                | '∧'
                | '∨'
                | '"'
                | '\''
                | '`'
                | '*'
                | '['
                | ']'
                | '{'
                | '}'
                | ';'
                | '“'
                | '”'
        )
}

fn lex(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let single = |tok: Tok, end: usize| Token {
            tok,
            start: i,
            end,
            call: false,
        };
        let next_is = |chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>, want: char| {
            chars.next_if(|&(_, n)| n == want).is_some()
        };
        match c {
            c if c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '*' | '“' | '”') => {}
            '(' => out.push(single(Tok::LParen, i + 1)),
            ')' => out.push(single(Tok::RParen, i + 1)),
            ',' => out.push(single(Tok::Comma, i + 1)),
            '&' => {
                let end = if next_is(&mut chars, '&') {
                    i + 2
                } else {
                    i + 1
                };
                out.push(single(Tok::And, end));
            }
            '|' => {
                let end = if next_is(&mut chars, '|') {
                    i + 2
                } else {
                    i + 1
                };
                out.push(single(Tok::Or, end));
            }
            '!' | '~' => out.push(single(Tok::Not, i + 1)),
            '¬' => out.push(single(Tok::Not, i + c.len_utf8())),
            '∧' => out.push(single(Tok::And, i + c.len_utf8())),
            '∨' => out.push(single(Tok::Or, i + c.len_utf8())),
            '[' | ']' | '{' | '}' | ';' => out.push(single(Tok::Other(c), i + 1)),
            _ => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, n)) = chars.peek() {
                    if is_break(n) {
                        break;
                    }
                    end = j + n.len_utf8();
                    chars.next();
                }
                let call = text[end..].starts_with('(');
                let raw = &text[i..end];
                let mut word = raw.trim_end_matches(['.', ':']);
                if word.len() > 5 && word[..5].eq_ignore_ascii_case("self.") {
                    word = &word[5..];
                }
                if word.is_empty() {
                    continue;
                }
                let tok = match word.to_ascii_lowercase().as_str() {
                    "and" => Tok::And,
                    "or" => Tok::Or,
                    "not" => Tok::Not,
                    "true" => Tok::True,
                    "false" => Tok::False,
                    _ => Tok::Word(word.to_string()),
                };
                let call = call && matches!(tok, Tok::Word(_));
                out.push(Token {
                    tok,
                    start: i,
                    end,
                    call,
                });
            }
        }
    }
    out
}

/// Read a condition, leniently.
///
/// Accepted: `AND` / `OR` / `NOT` in any case, `&&` `&` `||` `|` `!` `~`, `∧ ∨ ¬`;
/// parentheses for grouping; `TRUE` / `FALSE`; atoms as bare names (`liquid_is_hot`),
/// in parentheses (`(robot_at kitchen)`, `(liquid_is_hot)`), or as calls
/// (`robot_at(kitchen)`); PDDL s-expressions (`(and (a) (not (b)))`, `(or ...)`,
/// `(imply a b)`); a fluent compared with a truth value (`hot = true`, `hot == FALSE`); a
/// `self.` prefix on names and quotes or backticks around them are dropped. NOT binds tighter than AND, AND tighter than OR.
///
/// Two names side by side outside parentheses are an error (a predicate's arguments go in
/// parentheses), so prose is refused rather than read as a fluent.
///
/// ```
/// use safeplan_bench::abilities::{equivalent, parse_condition};
///
/// let a = parse_condition("liquid_is_hot && !(moving_slow)").unwrap();
/// let b = parse_condition("(and (liquid_is_hot) (not (moving_slow)))").unwrap();
/// assert!(equivalent(&a, &b));
/// assert_eq!(a.to_string(), "liquid_is_hot AND NOT moving_slow");
/// assert!(parse_condition("the robot moves fast").is_err());
/// ```
pub fn parse_condition(text: &str) -> Result<Condition, String> {
    let toks = lex(text);
    if toks.is_empty() {
        return Err(
            "the condition is empty; write fluents joined by AND, OR and NOT (e.g. \
                    `liquid_is_hot AND NOT moving_slow`), or TRUE"
                .into(),
        );
    }
    let mut p = Parser {
        src: text,
        toks,
        pos: 0,
        depth: 0,
    };
    let c = p.or()?;
    match p.toks.get(p.pos) {
        None => Ok(c),
        Some(t) => Err(format!(
            "unexpected {} {}: join fluents with AND or OR, and put a predicate's arguments \
             in parentheses, as in `(robot_at kitchen)`",
            p.show(t),
            p.at(t.start)
        )),
    }
}

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn at(&self, byte: usize) -> String {
        let col = self.src.get(..byte).map_or(0, |s| s.chars().count()) + 1;
        format!("at column {col}")
    }

    fn show(&self, t: &Token) -> String {
        format!("`{}`", self.src.get(t.start..t.end).unwrap_or("?"))
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(format!(
                "the condition nests deeper than {MAX_DEPTH} levels; write it flatter"
            ))
        } else {
            Ok(())
        }
    }

    fn or(&mut self) -> Result<Condition, String> {
        let mut parts = vec![self.and()?];
        while self.peek() == Some(&Tok::Or) {
            self.pos += 1;
            parts.push(self.and()?);
        }
        Ok(if parts.len() == 1 {
            parts.swap_remove(0)
        } else {
            Condition::Or(parts)
        })
    }

    fn and(&mut self) -> Result<Condition, String> {
        let mut parts = vec![self.unary()?];
        while self.peek() == Some(&Tok::And) {
            self.pos += 1;
            parts.push(self.unary()?);
        }
        Ok(if parts.len() == 1 {
            parts.swap_remove(0)
        } else {
            Condition::And(parts)
        })
    }

    fn unary(&mut self) -> Result<Condition, String> {
        if self.peek() == Some(&Tok::Not) {
            self.pos += 1;
            self.enter()?;
            let inner = self.unary()?;
            self.depth -= 1;
            return Ok(Condition::Not(Box::new(inner)));
        }
        let c = self.primary()?;
        // `hot = true`, `(robot_at kitchen) == FALSE`: a fluent compared with a truth value.
        if matches!(c, Condition::Atom(_))
            && matches!(self.peek(), Some(Tok::Word(w)) if w == "=" || w == "==")
        {
            match self.toks.get(self.pos + 1).map(|t| &t.tok) {
                Some(Tok::True) => {
                    self.pos += 2;
                    return Ok(c);
                }
                Some(Tok::False) => {
                    self.pos += 2;
                    return Ok(Condition::Not(Box::new(c)));
                }
                _ => {}
            }
        }
        Ok(c)
    }

    fn primary(&mut self) -> Result<Condition, String> {
        let Some(t) = self.toks.get(self.pos).cloned() else {
            return Err(
                "the condition ends where a fluent, NOT, TRUE, FALSE or `(` was expected".into(),
            );
        };
        match &t.tok {
            Tok::True => {
                self.pos += 1;
                Ok(Condition::True)
            }
            Tok::False => {
                self.pos += 1;
                Ok(Condition::False)
            }
            Tok::Word(_) if t.call => self.call_atom(),
            Tok::Word(w) => {
                self.pos += 1;
                Ok(Condition::Atom(w.clone()))
            }
            Tok::LParen => self.group(),
            _ => Err(format!(
                "unexpected {} {}: a fluent, NOT, TRUE, FALSE or `(` was expected",
                self.show(&t),
                self.at(t.start)
            )),
        }
    }

    /// `name(arg, arg)`.
    fn call_atom(&mut self) -> Result<Condition, String> {
        let name = match self.peek() {
            Some(Tok::Word(w)) => w.clone(),
            _ => return Err("internal: a call atom must start with a name".into()),
        };
        let open = self.toks.get(self.pos).map_or(0, |t| t.end);
        self.pos += 2; // the name and its `(`
        let mut args = Vec::new();
        loop {
            match self.toks.get(self.pos).cloned() {
                Some(Token {
                    tok: Tok::Word(w), ..
                }) => args.push(w),
                Some(Token {
                    tok: Tok::Comma, ..
                }) => {}
                Some(Token {
                    tok: Tok::RParen, ..
                }) => {
                    self.pos += 1;
                    return Ok(Condition::atom(&name, args));
                }
                Some(other) => {
                    return Err(format!(
                        "unexpected {} {} in the arguments of `{name}(`; write them as \
                         `{name}(a, b)` or `({name} a b)`",
                        self.show(&other),
                        self.at(other.start)
                    ));
                }
                None => {
                    return Err(format!(
                        "`{name}(` {} is never closed; add `)`",
                        self.at(open.saturating_sub(1))
                    ));
                }
            }
            self.pos += 1;
        }
    }

    /// Everything that starts with `(`: a PDDL connective, an atom with arguments, an
    /// opaque PDDL formula, or a parenthesised condition.
    fn group(&mut self) -> Result<Condition, String> {
        let open = self.pos;
        let open_at = self.toks.get(open).map_or(0, |t| t.start);
        self.enter()?;
        self.pos += 1;
        let result = match self.peek().cloned() {
            Some(Tok::And) | Some(Tok::Or) => self.prefix(open_at),
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("imply") => self.prefix(open_at),
            Some(Tok::Word(_)) => {
                let mut end = self.pos;
                while matches!(
                    self.toks.get(end),
                    Some(Token {
                        tok: Tok::Word(_),
                        call: false,
                        ..
                    })
                ) {
                    end += 1;
                }
                match self.toks.get(end).map(|t| &t.tok) {
                    // `(exists (?x) ...)`, `(> (fuel ?a) 3)`: kept whole, as text.
                    Some(Tok::LParen) => self.opaque(open),
                    // `(robot_at kitchen)`.
                    Some(Tok::RParen) if end - self.pos >= 2 => {
                        let words: Vec<String> = self.toks[self.pos..end]
                            .iter()
                            .filter_map(|t| match &t.tok {
                                Tok::Word(w) => Some(w.clone()),
                                _ => None,
                            })
                            .collect();
                        self.pos = end + 1;
                        Ok(Condition::atom(&words[0], &words[1..]))
                    }
                    _ => self.closed(open_at),
                }
            }
            _ => self.closed(open_at),
        };
        self.depth -= 1;
        result
    }

    /// A condition then `)`.
    fn closed(&mut self, open_at: usize) -> Result<Condition, String> {
        let c = self.or()?;
        match self.toks.get(self.pos) {
            Some(Token {
                tok: Tok::RParen, ..
            }) => {
                self.pos += 1;
                Ok(c)
            }
            Some(t) => Err(format!(
                "expected `)` to close the `(` {}, found {} {}",
                self.at(open_at),
                self.show(t),
                self.at(t.start)
            )),
            None => Err(format!(
                "the `(` {} is never closed; add `)`",
                self.at(open_at)
            )),
        }
    }

    /// `(and c*)`, `(or c*)`, `(imply a b)`, after the `(`.
    fn prefix(&mut self, open_at: usize) -> Result<Condition, String> {
        let op = self.peek().cloned();
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::RParen) => {
                    self.pos += 1;
                    break;
                }
                None => {
                    return Err(format!(
                        "the `(` {} is never closed; add `)`",
                        self.at(open_at)
                    ));
                }
                _ => items.push(self.unary()?),
            }
        }
        match op {
            Some(Tok::And) => Ok(Condition::And(items)),
            Some(Tok::Or) => Ok(Condition::Or(items)),
            _ => {
                if items.len() != 2 {
                    return Err(format!(
                        "`(imply ...)` {} needs exactly two parts, found {}",
                        self.at(open_at),
                        items.len()
                    ));
                }
                let b = items.pop().unwrap_or(Condition::False);
                let a = items.pop().unwrap_or(Condition::True);
                Ok(Condition::Or(vec![Condition::Not(Box::new(a)), b]))
            }
        }
    }

    /// The balanced s-expression from token `open`, as one atom.
    fn opaque(&mut self, open: usize) -> Result<Condition, String> {
        let mut depth = 0usize;
        for (k, t) in self.toks.iter().enumerate().skip(open) {
            match t.tok {
                Tok::LParen => depth += 1,
                Tok::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        let start = self.toks[open].start;
                        let text = self.src.get(start..t.end).unwrap_or_default();
                        self.pos = k + 1;
                        return Ok(Condition::Atom(canonical_sexpr(text)));
                    }
                }
                _ => {}
            }
        }
        let at = self.toks.get(open).map_or(0, |t| t.start);
        Err(format!("the `(` {} is never closed; add `)`", self.at(at)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_normalise_case_spaces_and_parentheses() {
        assert_eq!(atom_key("( Robot_At   Kitchen )"), "(robot_at kitchen)");
        assert_eq!(atom_key("(ctx)"), "ctx");
        assert_eq!(atom_key("CTX"), "ctx");
    }

    #[test]
    fn truth_table_over_more_than_six_atoms() {
        // Eight atoms: the high-atom words are exercised.
        let a = parse_condition("a AND b AND c AND d AND e AND f AND g AND h")
            .unwrap_or(Condition::False);
        let b = parse_condition(
            "NOT (NOT a OR NOT b OR NOT c OR NOT d OR NOT e OR NOT f OR NOT g OR NOT h)",
        )
        .unwrap_or(Condition::True);
        assert!(equivalent(&a, &b));
        let c =
            parse_condition("a AND b AND c AND d AND e AND f AND g").unwrap_or(Condition::False);
        assert!(!equivalent(&a, &c));
    }
}
