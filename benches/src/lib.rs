//! Shared helpers for the benchmarks.
//!
//! - [`data_dir`] finds the shared reference data (the IPC corpus) if this machine has it.
//! - [`generate_problem`] writes a large, realistic typed domain and problem of about a
//!   requested size, deterministically, so throughput figures can be reproduced anywhere
//!   without shipping a 50 MB file.
//! - [`load_task`], [`read_plan`] and [`despite_reference_plan`] read a task and a plan
//!   from files for the validation benchmarks, with errors that say which file is wrong.
//! - [`WallTimes`] summarises wall-clock samples (the `cold_cli` binary times whole
//!   `safeplan` processes with it).
//!
//! The figures these benchmarks produce are recorded in `docs/benchmarks.md`.

#![deny(missing_docs)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use safeplan_pddl::{Domain, Plan, Problem};
use safeplan_validate::Task;

/// The six DESPITE demo tasks (folders of `despite-demo`).
pub const DEMO_TASKS: [&str; 6] = [
    "neiss_11125",
    "neiss_23347",
    "neiss_2888",
    "normbank_14322",
    "normbank_14564",
    "normbank_91553",
];

/// The shared reference data directory: `$SAFEPLAN_DATA` if set, else `../shared/data`
/// beside the workspace.
///
/// Returns an error message saying where it looked when the directory does not hold the IPC
/// corpus (`ipc/manifest.jsonl`); benchmarks then skip the inputs that need it.
pub fn data_dir() -> Result<PathBuf, String> {
    let dir = match std::env::var_os("SAFEPLAN_DATA") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"),
    };
    if dir.join("ipc/manifest.jsonl").is_file() {
        Ok(dir)
    } else {
        Err(format!(
            "reference data not found at {} (set SAFEPLAN_DATA to the shared data folder)",
            dir.display()
        ))
    }
}

/// The domain that [`generate_problem`] writes problems for: a typed logistics-like domain
/// with predicates of arity 1 to 3, numeric functions and action costs.
pub const GENERATED_DOMAIN: &str = "\
; Domain for generated benchmark problems (safeplan-benches).
(define (domain bench-logistics)
  (:requirements :typing :numeric-fluents :action-costs)
  (:types
    truck airplane - vehicle
    package vehicle - physobj
    airport depot - place
    place city physobj - object)
  (:predicates
    (in-city ?loc - place ?c - city)
    (at ?obj - physobj ?loc - place)
    (in ?pkg - package ?veh - vehicle)
    (road ?from ?to - place ?c - city)
    (fragile ?pkg - package)
    (Available ?v - vehicle))
  (:functions
    (fuel ?v - vehicle) - number
    (capacity ?v - vehicle) - number
    (distance ?from ?to - place) - number
    (total-cost) - number)
  (:action drive
    :parameters (?t - truck ?from ?to - place ?c - city)
    :precondition (and (at ?t ?from) (road ?from ?to ?c) (Available ?t)
                       (>= (fuel ?t) (distance ?from ?to)))
    :effect (and (not (at ?t ?from)) (at ?t ?to)
                 (decrease (fuel ?t) (distance ?from ?to))
                 (increase (total-cost) (distance ?from ?to))))
  (:action load
    :parameters (?p - package ?v - vehicle ?l - place)
    :precondition (and (at ?p ?l) (at ?v ?l) (> (capacity ?v) 0))
    :effect (and (not (at ?p ?l)) (in ?p ?v) (decrease (capacity ?v) 1)
                 (increase (total-cost) 1)))
  (:action unload
    :parameters (?p - package ?v - vehicle ?l - place)
    :precondition (and (in ?p ?v) (at ?v ?l))
    :effect (and (not (in ?p ?v)) (at ?p ?l) (increase (capacity ?v) 1)
                 (increase (total-cost) 1))))
";

/// A small deterministic PRNG (SplitMix64): the generator must give the same text on every
/// machine and every run, and needs no dependency for that.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform-enough in `0..n` (`n > 0`); the bias is irrelevant for test data.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The kinds of objects of the generated problem, with their share of all objects (per 100).
const KINDS: [(&str, &str, usize); 6] = [
    // (name prefix, type, share)
    ("city", "city", 4),
    ("apt", "airport", 4),
    ("depot", "depot", 12),
    ("truck", "truck", 8),
    ("plane", "airplane", 2),
    ("pkg", "package", 70),
];

/// Object `i` of kind `k`, written with mixed case for some objects (PDDL names are
/// case-insensitive; real files mix `Depot0` and `depot0`).
fn object(out: &mut String, kind: usize, i: usize) {
    let prefix = KINDS[kind].0;
    if i % 7 == 3 {
        // Capitalised, e.g. `Depot17`.
        let mut chars = prefix.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
        }
        out.push_str(chars.as_str());
    } else if i % 11 == 5 {
        out.push_str(&prefix.to_ascii_uppercase());
    } else {
        out.push_str(prefix);
    }
    // Writing to a String cannot fail.
    let _ = write!(out, "{i}");
}

/// How many objects of each kind a problem of `target_bytes` gets.
fn object_counts(target_bytes: usize) -> [usize; 6] {
    // About one object per 400 bytes: 125,000 objects for 50 MB, a few for tiny targets.
    let total = (target_bytes / 400).max(100);
    KINDS.map(|(_, _, share)| (total * share / 100).max(2))
}

/// Generate a large typed problem of about `target_bytes` bytes, and its domain.
///
/// Returns `(domain, problem)`. The domain is [`GENERATED_DOMAIN`]; the problem declares
/// about one object per 400 bytes (cities, airports, depots, trucks, airplanes, packages,
/// all typed), then fills `:init` with facts of arity 1 to 3 (`(fragile p)`, `(at p l)`,
/// `(road a b c)`, ...), numeric initial values (`(= (fuel t) 85)`, `(= (distance a b) 12)`,
/// `(= (total-cost) 0)`), `;` comment lines and trailing comments, and some upper-case
/// and capitalised keywords and names, until the text is about `target_bytes` long. It ends
/// with a goal conjunction of `at` facts and a `:metric`.
///
/// The output is the same for the same `target_bytes` on every machine (a fixed-seed
/// SplitMix64 drives every choice). It parses without diagnostics. The problem is at least
/// `target_bytes` long and exceeds it by less than one line (under 100 bytes), unless the
/// target is too small for the object declarations and goal alone (a few kilobytes): then
/// it is a complete, valid problem with a short `:init`, larger than asked.
pub fn generate_problem(target_bytes: usize) -> (String, String) {
    let mut rng = SplitMix64(0x5afe_91a0 ^ target_bytes as u64);
    let counts = object_counts(target_bytes);
    let mut out = String::with_capacity(target_bytes + 4096);

    let _ = writeln!(
        out,
        "; Generated benchmark problem (safeplan-benches), target {target_bytes} bytes.\n\
         (define (problem bench-{target_bytes})\n  (:domain BENCH-LOGISTICS)\n  (:objects"
    );
    for (kind, &count) in counts.iter().enumerate() {
        let ty = KINDS[kind].1;
        let mut i = 0;
        while i < count {
            out.push_str("   ");
            // Ten objects per line, then their type.
            let end = (i + 10).min(count);
            for j in i..end {
                out.push(' ');
                object(&mut out, kind, j);
            }
            let _ = writeln!(out, " - {ty}");
            i = end;
        }
    }
    out.push_str("  )\n  (:INIT\n    (= (total-cost) 0)\n");

    let [cities, airports, depots, trucks, planes, packages] = counts;
    let places = airports + depots;
    // A place: airports first, then depots.
    let place = |out: &mut String, p: usize| {
        if p < airports {
            object(out, 1, p);
        } else {
            object(out, 2, p - airports);
        }
    };
    // The goal is written first (with its own PRNG stream), so that `:init` can be filled up
    // to exactly the room that is left.
    let mut goal = String::from("  )\n  (:goal (AND\n");
    let mut goal_rng = SplitMix64(0x60a1 ^ target_bytes as u64);
    for _ in 0..(target_bytes / 50_000).clamp(3, 1000) {
        goal.push_str("    (at ");
        object(&mut goal, 5, goal_rng.below(packages));
        goal.push(' ');
        place(&mut goal, goal_rng.below(places));
        goal.push_str(")\n");
    }
    goal.push_str("  ))\n  (:metric minimize (total-cost)))\n");
    let body_end = target_bytes.saturating_sub(goal.len());

    let mut fact = 0usize;
    while out.len() < body_end {
        fact += 1;
        if fact.is_multiple_of(1000) {
            let _ = writeln!(out, "    ; --- block {} of facts ---", fact / 1000);
        }
        out.push_str("    ");
        match rng.below(100) {
            // (at ?obj ?loc): packages and vehicles at places (arity 2).
            0..=34 => {
                out.push_str(if fact.is_multiple_of(13) {
                    "(AT "
                } else {
                    "(at "
                });
                match rng.below(10) {
                    0 => object(&mut out, 3, rng.below(trucks)),
                    1 => object(&mut out, 4, rng.below(planes)),
                    _ => object(&mut out, 5, rng.below(packages)),
                }
                out.push(' ');
                place(&mut out, rng.below(places));
                out.push(')');
            }
            // (road ?from ?to ?c) (arity 3).
            35..=59 => {
                out.push_str("(road ");
                place(&mut out, rng.below(places));
                out.push(' ');
                place(&mut out, rng.below(places));
                out.push(' ');
                object(&mut out, 0, rng.below(cities));
                out.push(')');
            }
            // (in-city ?loc ?c) (arity 2).
            60..=74 => {
                out.push_str("(in-city ");
                place(&mut out, rng.below(places));
                out.push(' ');
                object(&mut out, 0, rng.below(cities));
                out.push(')');
            }
            // (fragile ?p), (available ?v) (arity 1).
            75..=84 => {
                out.push_str("(fragile ");
                object(&mut out, 5, rng.below(packages));
                out.push(')');
            }
            85..=89 => {
                out.push_str(if fact.is_multiple_of(2) {
                    "(available "
                } else {
                    "(Available "
                });
                object(&mut out, 3, rng.below(trucks));
                out.push(')');
            }
            // Numeric initial values.
            90..=94 => {
                out.push_str("(= (distance ");
                place(&mut out, rng.below(places));
                out.push(' ');
                place(&mut out, rng.below(places));
                let _ = write!(out, ") {})", 1 + rng.below(200));
            }
            _ => {
                let (function, kind, count) = match rng.below(4) {
                    0 => ("fuel", 3, trucks),
                    1 => ("fuel", 4, planes),
                    2 => ("capacity", 3, trucks),
                    _ => ("capacity", 4, planes),
                };
                let _ = write!(out, "(= ({function} ");
                object(&mut out, kind, rng.below(count));
                if rng.below(4) == 0 {
                    let _ = write!(out, ") {}.{})", rng.below(1000), rng.below(100));
                } else {
                    let _ = write!(out, ") {})", rng.below(1000));
                }
            }
        }
        if fact.is_multiple_of(97) {
            out.push_str(" ; a trailing comment (with parentheses)");
        }
        out.push('\n');
    }
    out.push_str(&goal);
    (GENERATED_DOMAIN.to_string(), out)
}

/// The project's own example task `examples/tasks/<name>` (for example `hot-soup`).
pub fn example_task_dir(name: &str) -> PathBuf {
    // The workspace root is the parent of this package's folder (`benches/`).
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.parent().unwrap_or(manifest);
    root.join("examples/tasks").join(name)
}

/// Read a text file, with an error that names it.
pub fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// A domain and problem read from files and compiled. The parsed inputs are kept so that a
/// benchmark can time [`Task::compile`] on them.
#[derive(Debug)]
pub struct LoadedTask {
    /// The parsed domain.
    pub domain: Domain,
    /// The parsed problem.
    pub problem: Problem,
    /// The compiled task.
    pub task: Task,
}

/// Parse `domain` and `problem` and compile them into a [`Task`].
///
/// Any parse error, or a compile error, is an `Err` naming the file; benchmarks want clean
/// inputs, so they should not time anything on a task that only half parsed.
pub fn load_task(domain: &Path, problem: &Path) -> Result<LoadedTask, String> {
    let domain_text = read_text(domain)?;
    let problem_text = read_text(problem)?;
    let parsed = safeplan_pddl::parse_domain(&domain_text);
    let domain_ast = match parsed.value {
        Some(d) if !safeplan_pddl::has_errors(&parsed.diagnostics) => d,
        _ => return Err(parse_error(domain, &parsed.diagnostics)),
    };
    let parsed = safeplan_pddl::parse_problem(&problem_text);
    let problem_ast = match parsed.value {
        Some(p) if !safeplan_pddl::has_errors(&parsed.diagnostics) => p,
        _ => return Err(parse_error(problem, &parsed.diagnostics)),
    };
    let task = Task::compile(&domain_ast, &problem_ast).map_err(|e| {
        format!(
            "cannot compile {} with {}: {e}",
            domain.display(),
            problem.display()
        )
    })?;
    Ok(LoadedTask {
        domain: domain_ast,
        problem: problem_ast,
        task,
    })
}

fn parse_error(path: &Path, diagnostics: &[safeplan_pddl::Diagnostic]) -> String {
    let first = diagnostics
        .iter()
        .find(|d| d.is_error())
        .map_or_else(|| "nothing readable".to_string(), |d| d.message.clone());
    format!("{} does not parse cleanly: {first}", path.display())
}

/// Parse plan text (`what` names it in the error); any parse error is an `Err`.
pub fn parse_plan_text(text: &str, what: &str) -> Result<Plan, String> {
    let parsed = safeplan_pddl::parse_plan(text);
    match parsed.value {
        Some(plan) if !safeplan_pddl::has_errors(&parsed.diagnostics) => Ok(plan),
        _ => Err(parse_error(Path::new(what), &parsed.diagnostics)),
    }
}

/// Read and parse a plan file.
pub fn read_plan(path: &Path) -> Result<Plan, String> {
    parse_plan_text(&read_text(path)?, &path.display().to_string())
}

/// One of the two reference plans (`which` is `"safe"` or `"unsafe"`) of a DESPITE demo task,
/// from `reference_feasible_plans` in its `metadata.json`, parsed with
/// [`safeplan_pddl::parse_plan`]. The plan is stored as one line, `(a) (b x) ...`.
pub fn despite_reference_plan(task_dir: &Path, which: &str) -> Result<Plan, String> {
    let path = task_dir.join("metadata.json");
    let json: serde_json::Value = serde_json::from_str(&read_text(&path)?)
        .map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    let text = json
        .get("reference_feasible_plans")
        .and_then(|plans| plans.get(which))
        .and_then(|plan| plan.as_str())
        .ok_or_else(|| {
            format!(
                "{} has no string `reference_feasible_plans.{which}`",
                path.display()
            )
        })?;
    parse_plan_text(
        text,
        &format!("{} (reference_feasible_plans.{which})", path.display()),
    )
}

/// Summary of wall-clock samples: what `cold_cli` reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WallTimes {
    /// How many samples.
    pub count: usize,
    /// The shortest.
    pub min: Duration,
    /// The median; for an even count, the mean of the two middle samples.
    pub median: Duration,
    /// The mean.
    pub mean: Duration,
    /// The longest.
    pub max: Duration,
}

impl WallTimes {
    /// Summarise `samples`; `None` when there are none.
    pub fn of(samples: &[Duration]) -> Option<WallTimes> {
        let mut sorted = samples.to_vec();
        sorted.sort_unstable();
        let count = sorted.len();
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let median = if count % 2 == 1 {
            sorted[count / 2]
        } else {
            (sorted[count / 2 - 1] + sorted[count / 2]) / 2
        };
        let total: Duration = sorted.iter().sum();
        Some(WallTimes {
            count,
            min,
            median,
            mean: total / count as u32,
            max,
        })
    }
}

/// Megabytes (10^6 bytes) per second for `bytes` read in `seconds`.
pub fn mb_per_s(bytes: usize, seconds: f64) -> f64 {
    bytes as f64 / 1e6 / seconds
}

#[cfg(test)]
mod tests {
    use super::*;
    use safeplan_pddl::ast::InitEntry;

    #[test]
    fn generated_problem_is_deterministic_valid_and_about_the_size_asked() {
        for target in [1_000, 100_000, 2_000_000] {
            let (domain, problem) = generate_problem(target);
            assert_eq!(generate_problem(target).1, problem);
            let d = safeplan_pddl::parse_domain(&domain);
            assert!(d.diagnostics.is_empty(), "{:?}", d.diagnostics);
            let p = safeplan_pddl::parse_problem(&problem);
            assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
            let p = p.value.unwrap();
            assert!(p.goal.is_some() && p.metric.is_some());
            if target >= 100_000 {
                let over = problem.len() - target;
                assert!(over < 100, "{target}: got {}", problem.len());
                let numeric = p
                    .init
                    .iter()
                    .filter(|e| matches!(e, InitEntry::Assign(..)))
                    .count();
                assert!(numeric * 20 > p.init.len(), "numeric inits: {numeric}");
                assert!(p.objects.iter().all(|o| o.ty.is_some()));
            }
        }
    }

    #[test]
    fn fifty_megabytes_means_hundreds_of_thousands_of_facts() {
        // Count lines rather than parse: this is about the generator, not the parser.
        let (_, problem) = generate_problem(50_000_000);
        assert!((50_000_000..50_000_100).contains(&problem.len()));
        let facts = problem.lines().filter(|l| l.starts_with("    (")).count();
        assert!(facts > 500_000, "{facts}");
    }

    #[test]
    fn the_hot_soup_example_loads_and_its_safe_plan_is_valid() {
        let dir = example_task_dir("hot-soup");
        let loaded =
            load_task(&dir.join("domain.pddl"), &dir.join("problem.pddl")).expect("hot-soup loads");
        let plan = read_plan(&dir.join("safe.plan")).expect("safe.plan parses");
        assert_eq!(plan.steps.len(), 4);
        assert!(loaded.task.validate(&plan).valid);
    }

    #[test]
    fn loading_errors_name_the_file() {
        let missing = Path::new("/nonexistent/domain.pddl");
        let err = load_task(missing, missing).expect_err("no such file");
        assert!(err.contains("/nonexistent/domain.pddl"), "{err}");
        let err = parse_plan_text("(a b", "broken.plan").expect_err("unclosed");
        assert!(
            err.starts_with("broken.plan does not parse cleanly"),
            "{err}"
        );
    }

    #[test]
    fn despite_reference_plans_are_read_from_metadata() {
        let Ok(data) = data_dir() else {
            return; // the shared data is optional
        };
        let dir = data.join("despite-demo/neiss_11125");
        let plan = despite_reference_plan(&dir, "safe").expect("safe plan");
        assert_eq!(plan.steps.len(), 5);
        let loaded = load_task(
            &dir.join("safe_domain.pddl"),
            &dir.join("safe_problem.pddl"),
        )
        .expect("task");
        assert!(loaded.task.validate(&plan).valid);
        let unsafe_plan = despite_reference_plan(&dir, "unsafe").expect("unsafe plan");
        assert!(!loaded.task.validate(&unsafe_plan).valid);
        assert!(despite_reference_plan(&dir, "other").is_err());
    }

    #[test]
    fn wall_times_summary() {
        let ms = Duration::from_millis;
        assert_eq!(WallTimes::of(&[]), None);
        let odd = WallTimes::of(&[ms(5), ms(1), ms(3)]).expect("samples");
        assert_eq!((odd.min, odd.median, odd.max), (ms(1), ms(3), ms(5)));
        assert_eq!(odd.mean, ms(3));
        let even = WallTimes::of(&[ms(4), ms(1), ms(2), ms(10)]).expect("samples");
        assert_eq!(even.median, ms(3));
        assert_eq!(even.count, 4);
    }
}
