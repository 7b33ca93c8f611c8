//! The report as Markdown tables: what a person reads in a terminal, and what `safeplan
//! bench` prints at the end of a run.

use std::fmt::Write;

use safeplan_metrics::{BootstrapOptions, Interval, PrfRates, Rate};

use super::model::{Breakdown, Report};

/// Groups shown per breakdown table; the rest are in the JSON and CSV reports.
pub(crate) const MAX_GROUPS: usize = 12;

/// The cells of micro precision, recall and F1 and their counts, in that order (`62.5%
/// [45.0, 78.1]` each, then tp, fp, fn): every report's P/R/F1 columns.
pub(crate) fn prf_cells(f: &PrfRates) -> [String; 6] {
    [
        pct(&f.precision),
        pct(&f.recall),
        pct(&f.f1),
        f.tp.to_string(),
        f.fp.to_string(),
        f.fn_.to_string(),
    ]
}

/// `62.5% [45.0, 78.1]`.
pub(crate) fn pct(r: &Rate) -> String {
    format!(
        "{:.1}% [{:.1}, {:.1}]",
        100.0 * r.rate,
        100.0 * r.ci_low,
        100.0 * r.ci_high
    )
}

/// `1.023 [0.912, 1.104]`.
fn num_ci(x: f64, ci: &Interval) -> String {
    format!("{x:.3} [{:.3}, {:.3}]", ci.low, ci.high)
}

/// How the intervals were computed, in one line.
pub(crate) fn bootstrap_line(b: &BootstrapOptions) -> String {
    format!(
        "intervals: {}% percentile bootstrap, {} resamples, seed {}",
        fmt_confidence(b.confidence),
        b.resamples,
        b.seed
    )
}

fn fmt_confidence(c: f64) -> String {
    let p = 100.0 * c;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0}")
    } else {
        format!("{p}")
    }
}

/// Text safe inside a table cell: no pipe, no line break.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "–".to_string(), |x| format!("{x:.digits$}"))
}

/// A heading for a breakdown's property.
pub(crate) fn property_title(by: &str) -> &str {
    match by {
        "danger_group" => "danger group",
        "danger_type" => "danger type",
        "entity_in_danger" => "entity in danger",
        "source" => "source dataset",
        "setting" => "setting",
        "safe_plan_length" => "reference safe-plan length (steps)",
        "safety_effort" => "safety effort (safe minus unsafe reference plan steps)",
        other => other,
    }
}

/// The report as Markdown.
pub fn render_markdown(r: &Report) -> String {
    let mut s = String::new();
    let run = &r.run;
    let _ = writeln!(s, "# {}\n", r.title);
    let _ = writeln!(
        s,
        "suite `{}` ({} tasks in the store of {} in the suite, read from {}) · ability `{}` · \
         shards {} · {} planners · {} attempts  \n{}; rates in %.\n",
        run.suite_hash,
        run.tasks,
        run.suite_tasks,
        cell(&run.suite_root),
        run.ability,
        run.shards.join(", "),
        run.planners.len(),
        run.attempts,
        bootstrap_line(&r.bootstrap)
    );
    if run.ability.wants_plan() {
        plan_sections(&mut s, r);
    }
    if !r.dangers.is_empty() {
        s.push_str("## Dangerous actions named (identify-dangers), micro-averaged\n\n");
        s.push_str(
            "| planner | n | errors | unscored | precision | recall | F1 | tp | fp | fn |\n",
        );
        s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for d in &r.dangers {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                cell(&d.planner),
                d.n,
                d.errors,
                d.unscored,
                prf_cells(&d.figures).join(" | ")
            );
        }
        s.push('\n');
    }
    if !r.conditions.is_empty() {
        s.push_str("## Danger conditions stated (infer-conditions)\n\n");
        s.push_str(
            "| planner | n | errors | unscored | conditions | equivalent | share equivalent | \
             all equivalent |\n",
        );
        s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for c in &r.conditions {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                cell(&c.planner),
                c.n,
                c.errors,
                c.unscored,
                c.conditions,
                c.equivalent,
                pct(&c.share_equivalent),
                pct(&c.all_equivalent)
            );
        }
        s.push('\n');
    }
    attempts_not_safe(&mut s, r);
    if !run.planners.is_empty() {
        s.push_str("## Planner configurations\n\n");
        for p in &run.planners {
            let _ = writeln!(s, "- `{}`: `{}`", cell(&p.id), cell(&p.config.to_string()));
        }
    }
    s
}

/// Attempts listed in Markdown: the first ones that are not safe (plan abilities) or not
/// scored (the others).
const TOP_ATTEMPTS: usize = 20;

/// The first attempts that are not safe, with why: the Markdown's view of the attempts (the
/// HTML page lists them all, the JSON has them all).
fn attempts_not_safe(s: &mut String, r: &Report) {
    let wanted = |o: &str| {
        if r.run.ability.wants_plan() {
            o != "safe"
        } else {
            o != "scored"
        }
    };
    let shown: Vec<_> = r.attempts.iter().filter(|a| wanted(&a.outcome)).collect();
    if shown.is_empty() {
        return;
    }
    let what = if r.run.ability.wants_plan() {
        "not safe"
    } else {
        "not scored"
    };
    let _ = writeln!(
        s,
        "## Attempts {what} (the first {} of {})\n",
        shown.len().min(TOP_ATTEMPTS),
        shown.len()
    );
    s.push_str("| task | planner | sample | outcome | why |\n|---|---|---:|---|---|\n");
    for a in shown.iter().take(TOP_ATTEMPTS) {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            cell(&a.task),
            cell(&a.planner),
            a.sample,
            a.outcome,
            cell(&a.why.join("; "))
        );
    }
    s.push('\n');
}

fn plan_sections(s: &mut String, r: &Report) {
    s.push_str("## Planners\n\n");
    if r.planners.is_empty() {
        s.push_str("No attempt in the store.\n\n");
        return;
    }
    s.push_str("| planner | n | errors | F | S | SP | SI | F×SI |\n");
    s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for p in &r.planners {
        if p.n == 0 {
            // Rates of nothing are no rates: say so instead of 0.0% [0.0, 0.0].
            let _ = writeln!(
                s,
                "| {} | 0 | {} | no attempt has a result{} | – | – | – | – |",
                cell(&p.id),
                p.errors,
                if p.errors > 0 {
                    " (every one failed with an error; see the run's messages)"
                } else {
                    ""
                }
            );
            continue;
        }
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {:.1}% |",
            cell(&p.id),
            p.n,
            p.errors,
            pct(&p.feasible),
            pct(&p.safe),
            pct(&p.safety_precision),
            pct(&p.safety_intention),
            100.0 * p.f_times_si
        );
    }
    s.push_str(
        "\nF feasible, S safe, SP safety precision (S/F), SI safety intention; n attempts with a \
         result, errors attempts without one (not in n).\n\n",
    );
    s.push_str(
        "| planner | safe | feasible, unsafe | infeasible | of which failed | of which no plan \
         | of which refusals | mean plan length | tokens in | tokens out | cost (USD) \
         | median latency (ms) |\n",
    );
    s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for p in &r.planners {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&p.id),
            p.counts.safe,
            p.counts.feasible_unsafe,
            p.counts.infeasible,
            p.counts.failed,
            p.counts.no_plan,
            p.counts.refusals,
            opt(p.mean_plan_length, 1),
            p.input_tokens,
            p.output_tokens,
            opt(p.cost_usd, 4),
            opt(p.median_latency_ms, 1)
        );
    }
    s.push('\n');

    s.push_str("## Breakdowns\n\n");
    for b in &r.breakdowns {
        breakdown_table(s, b);
    }
    s.push_str("## Effects of task difficulty\n\n");
    for b in &r.effects {
        breakdown_table(s, b);
    }
    if !r.effect_sizes.is_empty() {
        s.push_str(
            "Cohen's d of the task property between attempts not safe and safe ones (positive: \
             the tasks a planner failed were longer / needed more effort):\n\n",
        );
        s.push_str("| planner | safe-plan length | safety effort |\n|---|---:|---:|\n");
        for id in r.planners.iter().map(|p| &p.id) {
            let d = |factor: &str| {
                r.effect_sizes
                    .iter()
                    .find(|e| &e.planner == id && e.factor == factor)
                    .and_then(|e| e.d)
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                cell(id),
                opt(d("safe_plan_length"), 2),
                opt(d("safety_effort"), 2)
            );
        }
        s.push('\n');
    }
    if let Some(d) = &r.decomposition {
        s.push_str("## S vs F × SI across planners\n\n");
        s.push_str("| planner | F × SI | S |\n|---|---:|---:|\n");
        for p in &d.points {
            let _ = writeln!(
                s,
                "| {} | {:.1}% | {:.1}% |",
                cell(&p.planner),
                100.0 * p.f_times_si,
                100.0 * p.safe
            );
        }
        s.push('\n');
        if let Some(f) = &d.fit {
            let _ = writeln!(
                s,
                "S = intercept + slope · (F × SI) over {} planners: slope {}, intercept {}, R² {} \
                 (DESPITE: slope 1.035, intercept −0.040, R² 0.99).\n",
                f.n,
                num_ci(f.fit.slope, &f.slope),
                num_ci(f.fit.intercept, &f.intercept),
                num_ci(f.fit.r2, &f.r2)
            );
        }
        if let Some(note) = &d.note {
            let _ = writeln!(s, "No fit: {note}.\n");
        }
    }
}

fn breakdown_table(s: &mut String, b: &Breakdown) {
    let _ = writeln!(s, "### By {}\n", property_title(&b.by));
    let groups = super::largest_groups(b, MAX_GROUPS);
    if groups.is_empty() {
        s.push_str("No attempt.\n\n");
        return;
    }
    s.push_str("| group | planner | n | F | S | SI |\n|---|---|---:|---:|---:|---:|\n");
    for g in &groups {
        for c in b.cells.iter().filter(|c| &c.group == g) {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                cell(g),
                cell(&c.planner),
                c.n,
                pct(&c.feasible),
                pct(&c.safe),
                pct(&c.safety_intention)
            );
        }
    }
    if b.groups.len() > groups.len() {
        let _ = writeln!(
            s,
            "\n{} more groups (the {} largest are shown; `--format csv` or `json` has all).",
            b.groups.len() - groups.len(),
            groups.len()
        );
    }
    s.push('\n');
}
