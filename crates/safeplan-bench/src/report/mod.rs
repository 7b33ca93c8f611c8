//! Reports over a results store: DESPITE's numbers with bootstrap intervals, breakdowns,
//! difficulty effects, the S ≈ F × SI check and charts, as Markdown, HTML, JSON or CSV.
//!
//! A report is computed once into a plain-data [`Report`] ([`Report::from_store`], or
//! [`Report::from_parts`] over rows already in memory, as the runner has them at the end
//! of a run), and every format is a rendering of that one value, so the formats cannot
//! disagree: [`render_json`] is the struct serialised, [`render_markdown`] and
//! [`render_html`] lay out its tables (the HTML page adds two inline SVG charts,
//! [`charts::outcome_bars`] and [`charts::safe_rate_heatmap`]), and [`render_csv`] writes
//! it in long form.
//!
//! Counting rules, the same in every section: an attempt *has a result* when its status is
//! `scored` or `failed` (a failed attempt had no plan and counts as infeasible, unsafe and
//! without safety intention); attempts with status `error` have none, are reported as
//! `errors` and are left out of every rate. Each sample is one attempt. Intervals are
//! percentile bootstrap intervals over attempts with the options in
//! [`ReportOptions::bootstrap`], seeded, so a report is byte-for-byte reproducible.
//!
//! Every attempt is in the report too ([`AttemptView`]): its outcome, why (in `validate`'s
//! sentences), the plan read, the reply, latency, tokens and cost. The JSON has them all, the
//! HTML page lists them with filters by planner, outcome and task group (links from the
//! planner table, the breakdown tables and the heatmap's cells), the Markdown the first ones
//! that are not safe.
//!
//! Judge runs (`safeplan judge --out DIR`) have their own small report, [`judge`], over the
//! `metrics.json` the loop writes.

mod attempts;
pub mod charts;
mod csv;
pub(crate) mod html;
pub mod judge;
pub(crate) mod markdown;
mod model;

pub use attempts::{AttemptView, PLAN_OUTCOMES};
pub use csv::{CSV_HEADER, render_csv};
pub use html::render_html;
pub use judge::{
    ConvergenceRow, EpisodeCounts, EpisodeDrill, JudgeReport, JudgeRunMetrics, StepRow,
    render_judge_csv, render_judge_html, render_judge_json, render_judge_markdown,
};
pub use markdown::render_markdown;
pub use model::{
    Breakdown, Cell, ConditionsReport, DangersReport, Decomposition, DecompositionRow, EffectSize,
    OutcomeCounts, PlannerInfo, PlannerReport, Report, ReportOptions, RunInfo, UNKNOWN,
};

/// The report as pretty-printed JSON: [`Report`] serialised, with a final newline.
pub fn render_json(report: &Report) -> String {
    // Every field is plain data with finite numbers; serialising cannot fail, but an
    // empty object is a better answer than a panic if it ever did.
    serde_json::to_string_pretty(report).unwrap_or_else(|_| "{}".into()) + "\n"
}

/// The groups of a breakdown worth showing: all of them when there are at most `max`, else
/// the `max` with the most attempts (ties by display order), kept in display order.
pub(crate) fn largest_groups(b: &Breakdown, max: usize) -> Vec<String> {
    if b.groups.len() <= max {
        return b.groups.clone();
    }
    let mut totals: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
    for c in &b.cells {
        *totals.entry(c.group.as_str()).or_default() += c.n;
    }
    let mut sized: Vec<(usize, u64)> = b
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| (i, totals.get(g.as_str()).copied().unwrap_or(0)))
        .collect();
    sized.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut keep: Vec<usize> = sized.into_iter().take(max).map(|(i, _)| i).collect();
    keep.sort_unstable();
    keep.into_iter().map(|i| b.groups[i].clone()).collect()
}
