//! `safeplan validate --manifest FILE`: a whole corpus in one call.
//!
//! Harnesses that validate thousands of plans (PlanBench-style LLM evaluations, the IPC
//! corpus) pay for a process, a parse and a compile per plan when they call a validator
//! once per plan. Here each line of a JSON Lines manifest names a domain, a problem and a
//! plan; lines are grouped by (domain, problem), each task is read, checked and compiled
//! once, the groups run in parallel, and the verdicts come out one per line, in input
//! order, each exactly the line `safeplan validate --json` prints for that plan, with
//! `line` (1-based, in the manifest) and the line's other fields under `input`.
//!
//! A line that cannot be used — not JSON, a field missing, a file that cannot be read, a
//! task with errors — gets an object with `line` and `error` (what, where, how to fix) and
//! the run goes on; the exit code says whether any line was such.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use safeplan_pddl::FileKind;
use safeplan_validate::{ValidateOptions, Validator};
use serde_json::{Map, Value};

use crate::args::ValidateArgs;
use crate::input::{Checked, PlanReading, check, check_options, read_inputs};
use crate::outcome::{Failure, PlanResult, Tally};
use crate::validate::{Status, USAGE, compile, validate_one};

/// One usable manifest line: where it is and what it names.
struct Entry {
    /// 1-based line number in the manifest.
    line: usize,
    /// The plan, resolved against the manifest's folder.
    plan: PathBuf,
    /// The line's fields other than domain, problem and plan.
    input: Map<String, Value>,
}

/// What became of one line: its JSON and how it counts.
struct LineOut {
    line: usize,
    json: Value,
    result: Option<PlanResult>,
}

/// Read the manifest, validate every line, print one JSON line per manifest line.
pub fn run(manifest: &Path, args: &ValidateArgs) -> Result<Status, Failure> {
    let text = std::fs::read_to_string(manifest).map_err(|e| Failure::Input {
        message: format!("cannot read the manifest {}: {e}", manifest.display()),
        hint: Some(
            "give --manifest a JSON Lines file of {\"domain\", \"problem\", \"plan\"}".into(),
        ),
    })?;
    let base = manifest.parent().unwrap_or(Path::new(""));
    let mut outs: Vec<LineOut> = Vec::new();
    // Groups in order of first appearance, so the work is split the same way every run.
    let mut groups: Vec<((PathBuf, PathBuf), Vec<Entry>)> = Vec::new();
    let mut group_of: BTreeMap<(PathBuf, PathBuf), usize> = BTreeMap::new();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        if raw.trim().is_empty() {
            continue;
        }
        match parse_line(raw) {
            Ok(Named {
                domain,
                problem,
                plan,
                rest: input,
            }) => {
                let key = (base.join(domain), base.join(problem));
                let g = *group_of.entry(key.clone()).or_insert_with(|| {
                    groups.push((key, Vec::new()));
                    groups.len() - 1
                });
                groups[g].1.push(Entry {
                    line,
                    plan: base.join(plan),
                    input,
                });
            }
            Err((column, message)) => outs.push(LineOut {
                line,
                json: error_json(
                    line,
                    format!("{}:{line}:{column}: {message}", manifest.display()),
                    "each line is an object with string fields \"domain\", \"problem\" and \"plan\" (paths relative to the manifest)",
                ),
                result: None,
            }),
        }
    }
    let options = ValidateOptions {
        keep_going: args.keep_going,
        tolerance: Some(args.tolerance),
        ..ValidateOptions::default()
    };
    let validated: Vec<Vec<LineOut>> = groups
        .par_iter()
        .map(|((domain, problem), entries)| {
            validate_group(domain, problem, entries, args, &options)
        })
        .collect();
    outs.extend(validated.into_iter().flatten());
    outs.sort_by_key(|o| o.line);

    let mut tally = Tally::default();
    let stdout = std::io::stdout();
    let mut sink = crate::validate::Sink::new(std::io::BufWriter::new(stdout.lock()));
    let mut bad_lines = 0;
    for o in &outs {
        match &o.result {
            Some(r) => tally.add(r),
            None => bad_lines += 1,
        }
        let mut text = serde_json::to_vec(&o.json).map_err(|e| Failure::Write(e.into()))?;
        text.push(b'\n');
        sink.write(&text).map_err(Failure::Write)?;
    }
    Ok(if tally.not_validated > 0 || bad_lines > 0 {
        Status::InputErrors
    } else if tally.failing > 0 {
        Status::Invalid
    } else {
        Status::Valid
    })
}

/// The fields of a usable line.
struct Named {
    domain: String,
    problem: String,
    plan: String,
    /// Every other field.
    rest: Map<String, Value>,
}

/// The domain, problem and plan of a line and its other fields, or where and why it is
/// not usable (a 1-based column and a message).
fn parse_line(raw: &str) -> Result<Named, (usize, String)> {
    let value: Value = serde_json::from_str(raw)
        .map_err(|e| (e.column().max(1), format!("not a JSON object: {e}")))?;
    let Value::Object(mut fields) = value else {
        return Err((1, "not a JSON object".into()));
    };
    let mut take = |name: &str| match fields.remove(name) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err((
            1,
            format!("\"{name}\" must be a path (a string), not {other}"),
        )),
        None => Err((1, format!("no \"{name}\" field"))),
    };
    let domain = take("domain")?;
    let problem = take("problem")?;
    let plan = take("plan")?;
    Ok(Named {
        domain,
        problem,
        plan,
        rest: fields,
    })
}

fn error_json(line: usize, message: String, hint: &str) -> Value {
    serde_json::json!({"line": line, "error": {"message": message, "hint": hint}})
}

/// The same error line for every entry of a task that cannot be used.
fn all_failed(entries: &[Entry], message: &str, hint: &str) -> Vec<LineOut> {
    entries
        .iter()
        .map(|e| LineOut {
            line: e.line,
            json: error_json(e.line, message.to_string(), hint),
            result: None,
        })
        .collect()
}

/// Read, check and compile one task, then validate its plans; the JSON of each line.
fn validate_group(
    domain: &Path,
    problem: &Path,
    entries: &[Entry],
    args: &ValidateArgs,
    options: &ValidateOptions,
) -> Vec<LineOut> {
    let named = [(domain, FileKind::Domain), (problem, FileKind::Problem)];
    let inputs = match read_inputs(&named, USAGE) {
        Ok(inputs) => inputs,
        Err(errors) => {
            let message = errors
                .iter()
                .map(|e| format!("cannot read {}: {}", e.path.display(), e.reason()))
                .collect::<Vec<_>>()
                .join("; ");
            return all_failed(
                entries,
                &message,
                "fix the path (relative to the manifest's folder) or the file's permissions",
            );
        }
    };
    let Checked {
        mut outcome,
        domain: d,
        problem: p,
    } = check(inputs, &check_options(args.strict), false);
    let danger = args
        .danger
        .as_deref()
        .unwrap_or(safeplan_validate::DEFAULT_DANGER);
    let compiled = compile(
        &mut outcome,
        d.as_ref(),
        p.as_ref(),
        args.strict,
        (danger, args.si, args.tolerance),
    );
    if let Some(why) = compiled
        .as_ref()
        .and_then(|(task, _)| task.unsupported_option(options))
    {
        return all_failed(
            entries,
            why,
            "leave out --continue: each plan's first failure is reported",
        );
    }
    let mut validator = compiled
        .as_ref()
        .map(|(task, _)| Validator::new(task, options.clone()));
    let safety = compiled.as_ref().and_then(|(_, s)| s.as_ref());
    let vocabulary = compiled
        .as_ref()
        .filter(|_| args.llm_plan)
        .map(|(task, _)| task.vocabulary());
    let reading = if args.llm_plan {
        PlanReading::Reply(vocabulary.as_ref())
    } else {
        PlanReading::Strict
    };
    entries
        .iter()
        .map(|e| {
            let result = match validator.as_mut() {
                Some(v) => validate_one(
                    &e.plan,
                    v,
                    safety,
                    outcome.safety_unavailable.clone(),
                    reading,
                ),
                None => PlanResult::NoTask {
                    path: e.plan.display().to_string(),
                },
            };
            let mut text = Vec::new();
            let json = match crate::report::write_plan_line(&outcome, &result, &mut text)
                .ok()
                .and_then(|()| serde_json::from_slice::<Value>(&text).ok())
            {
                Some(Value::Object(mut fields)) => {
                    let mut out = Map::new();
                    out.insert("line".into(), Value::from(e.line));
                    out.append(&mut fields);
                    if !e.input.is_empty() {
                        out.insert("input".into(), Value::Object(e.input.clone()));
                    }
                    Value::Object(out)
                }
                _ => error_json(
                    e.line,
                    "the verdict could not be encoded".into(),
                    "this is a bug; please report it",
                ),
            };
            LineOut {
                line: e.line,
                json,
                result: Some(result),
            }
        })
        .collect()
}
