//! Reports of judge runs: the `metrics.json` that `safeplan judge --out DIR` writes, read as
//! plain data (so this crate does not depend on `safeplan-judge`), with bootstrap intervals
//! over episodes, rendered in the same styles as benchmark reports.

use safeplan_metrics::{BootstrapOptions, Confusion, PrfCounts, PrfRates};

use serde::{Deserialize, Serialize};

use super::ReportOptions;
use super::html::{escape, page};
use super::markdown::prf_cells;

/// `metrics.json` of a judge run, as `safeplan judge` writes it (docs/FORMAT.md). Fields
/// missing from the file take their defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JudgeRunMetrics {
    /// Episodes scored.
    pub episodes: usize,
    /// Micro precision, recall and F1 of flagged original steps, with the counts (flat in
    /// the file).
    #[serde(flatten)]
    pub flagged: PrfCounts,
    /// Inserted steps against gold MISSING steps.
    pub missing: Confusion,
    /// Cumulative share converged by round.
    pub convergence: Vec<ConvergenceRow>,
    /// Per-episode counts.
    pub per_episode: Vec<EpisodeCounts>,
}

/// A point of the convergence curve.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ConvergenceRow {
    /// The round, from 1.
    pub round: usize,
    /// Episodes converged in this round or before.
    pub converged: usize,
    /// `converged` over all episodes.
    pub share: f64,
}

/// One episode's counts in `metrics.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EpisodeCounts {
    /// The episode id.
    pub id: String,
    /// Flagged original steps against the gold `remove` set.
    pub remove: Confusion,
    /// Which gold set counted.
    pub gold_set: usize,
    /// Inserted steps against gold MISSING steps.
    pub missing: Confusion,
    /// Every original step flagged or gold, with its outcome and the judge's reason.
    pub steps: Vec<StepRow>,
}

/// One step of the drill-down, as `metrics.json` has it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StepRow {
    /// 0-based index in the original sequence.
    pub index: usize,
    /// The step's text.
    pub text: String,
    /// `tp`, `fp` or `fn`.
    pub outcome: String,
    /// Why the judge removed it, when it did.
    pub reason: Option<String>,
}

/// One episode of the drill-down: its counts and its steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpisodeDrill {
    /// The episode id.
    pub id: String,
    /// Flagged steps against the gold set that counted.
    pub remove: Confusion,
    /// The flagged or gold steps.
    pub steps: Vec<StepRow>,
}

/// The report of a judge run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeReport {
    /// The title.
    pub title: String,
    /// Where the metrics were read from.
    pub source: String,
    /// How the intervals were computed (over episodes).
    pub bootstrap: BootstrapOptions,
    /// Episodes scored.
    pub episodes: usize,
    /// Micro precision, recall and F1 of flagged steps, with their intervals from
    /// resampling episodes (points when the file has no per-episode counts), and the
    /// counts; flat in JSON.
    #[serde(flatten)]
    pub figures: PrfRates,
    /// Inserted steps against gold MISSING steps (indicative: gold MISSING is sparse).
    pub missing: Confusion,
    /// P/R/F1 of the inserted steps.
    pub missing_prf: safeplan_metrics::Prf,
    /// The convergence curve.
    pub convergence: Vec<ConvergenceRow>,
    /// Per episode, each flagged or gold step with its outcome and reason; episodes with
    /// an error (a false positive or a miss) first, then the rest, each group in file order.
    pub drilldown: Vec<EpisodeDrill>,
}

impl JudgeReport {
    /// The report of a judge run's metrics; `source` names the file in the report.
    pub fn from_metrics(
        metrics: &JudgeRunMetrics,
        source: &str,
        options: &ReportOptions,
    ) -> JudgeReport {
        let boot = &options.bootstrap;
        let counts: Vec<Confusion> = metrics.per_episode.iter().map(|e| e.remove).collect();
        let figures = if counts.is_empty() {
            PrfRates::exact(metrics.flagged)
        } else {
            PrfRates::micro(&counts, boot)
        };
        JudgeReport {
            title: options
                .title
                .clone()
                .unwrap_or_else(|| "safeplan judge run".to_string()),
            source: source.to_string(),
            bootstrap: *boot,
            episodes: metrics.episodes,
            figures,
            missing: metrics.missing,
            missing_prf: metrics.missing.prf(),
            convergence: metrics.convergence.clone(),
            drilldown: drilldown(metrics),
        }
    }
}

fn drilldown(metrics: &JudgeRunMetrics) -> Vec<EpisodeDrill> {
    let mut rows: Vec<EpisodeDrill> = metrics
        .per_episode
        .iter()
        .filter(|e| !e.steps.is_empty())
        .map(|e| EpisodeDrill {
            id: e.id.clone(),
            remove: e.remove,
            steps: e.steps.clone(),
        })
        .collect();
    // Stable: errors first, file order kept within each group.
    rows.sort_by_key(|e| e.remove.fp + e.remove.fn_ == 0);
    rows
}

/// The drill-down as Markdown: one table per episode.
fn drilldown_markdown(r: &JudgeReport) -> String {
    if r.drilldown.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "## Per episode\n\nEach step the judge flagged or the gold labels mark (REMOVE), with \
         its outcome: tp (flagged, gold), fp (flagged, not gold), fn (gold, missed).\n\n",
    );
    for e in &r.drilldown {
        s.push_str(&format!(
            "### {} (tp {}, fp {}, fn {})\n\n| step | action | outcome | judge's reason |\n|---:|---|---|---|\n",
            e.id, e.remove.tp, e.remove.fp, e.remove.fn_
        ));
        for st in &e.steps {
            s.push_str(&format!(
                "| {} | `{}` | {} | {} |\n",
                st.index + 1,
                st.text.replace('|', "\\|").replace('`', "'"),
                st.outcome,
                st.reason.as_deref().unwrap_or("").replace('|', "\\|")
            ));
        }
        s.push('\n');
    }
    s
}

/// The drill-down as HTML tables.
fn drilldown_html(r: &JudgeReport) -> String {
    if r.drilldown.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "<h2>Per episode</h2>\n<p>Each step the judge flagged or the gold labels mark          (REMOVE): tp (flagged, gold), fp (flagged, not gold), fn (gold, missed).</p>\n",
    );
    for e in &r.drilldown {
        s.push_str(&format!(
            "<h3>{} (tp {}, fp {}, fn {})</h3>\n<table><tr><th>step</th><th>action</th><th>outcome</th><th>judge's reason</th></tr>\n",
            escape(&e.id),
            e.remove.tp,
            e.remove.fp,
            e.remove.fn_
        ));
        for st in &e.steps {
            s.push_str(&format!(
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>\n",
                st.index + 1,
                escape(&st.text),
                escape(&st.outcome),
                escape(st.reason.as_deref().unwrap_or(""))
            ));
        }
        s.push_str("</table>\n");
    }
    s
}

/// The judge report as Markdown: the P/R/F1 table and the convergence table.
pub fn render_judge_markdown(r: &JudgeReport) -> String {
    let mut s = format!("# {}\n\n", r.title);
    s.push_str(&format!(
        "metrics from {} · {} episodes scored · {}\n\n",
        r.source,
        r.episodes,
        super::markdown::bootstrap_line(&r.bootstrap)
    ));
    s.push_str("## Flagged steps (REMOVE), micro-averaged\n\n");
    s.push_str("| episodes | precision | recall | F1 | tp | fp | fn |\n");
    s.push_str("|---:|---:|---:|---:|---:|---:|---:|\n");
    s.push_str(&format!(
        "| {} | {} |\n\n",
        r.episodes,
        prf_cells(&r.figures).join(" | ")
    ));
    s.push_str(&format!(
        "Inserted steps against gold MISSING (indicative): tp {} fp {} fn {} · precision {:.1}% \
         recall {:.1}% F1 {:.1}%\n\n",
        r.missing.tp,
        r.missing.fp,
        r.missing.fn_,
        100.0 * r.missing_prf.precision,
        100.0 * r.missing_prf.recall,
        100.0 * r.missing_prf.f1
    ));
    s.push_str("## Convergence\n\n| round | converged | cumulative share |\n|---:|---:|---:|\n");
    for p in &r.convergence {
        s.push_str(&format!(
            "| {} | {} | {:.1}% |\n",
            p.round,
            p.converged,
            100.0 * p.share
        ));
    }
    s.push('\n');
    s.push_str(&drilldown_markdown(r));
    s
}

/// The judge report as one self-contained HTML page with the convergence chart.
pub fn render_judge_html(r: &JudgeReport) -> String {
    let mut body = format!(
        "<p class=\"meta\">metrics from {} · {} episodes scored · {}</p>\n",
        escape(&r.source),
        r.episodes,
        escape(&super::markdown::bootstrap_line(&r.bootstrap))
    );
    body.push_str("<h2>Flagged steps (REMOVE), micro-averaged</h2>\n<table><tr><th>episodes</th><th>precision</th><th>recall</th><th>F1</th><th>tp</th><th>fp</th><th>fn</th></tr>\n");
    body.push_str(&format!(
        "<tr><td>{}</td>{}</tr></table>\n",
        r.episodes,
        prf_cells(&r.figures)
            .iter()
            .map(|c| format!("<td>{}</td>", escape(c)))
            .collect::<String>()
    ));
    body.push_str(&format!(
        "<p>Inserted steps against gold MISSING (indicative): tp {} fp {} fn {}</p>\n",
        r.missing.tp, r.missing.fp, r.missing.fn_
    ));
    body.push_str("<h2>Convergence</h2>\n");
    body.push_str(&super::html::chart(&super::charts::convergence_curve(
        &r.convergence,
    )));
    body.push_str("<table><tr><th>round</th><th>converged</th><th>cumulative share</th></tr>\n");
    for p in &r.convergence {
        body.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{:.1}%</td></tr>\n",
            p.round,
            p.converged,
            100.0 * p.share
        ));
    }
    body.push_str("</table>\n");
    body.push_str(&drilldown_html(r));
    page(&r.title, &body)
}

/// The judge report as JSON (this struct serialised, pretty-printed).
pub fn render_judge_json(r: &JudgeReport) -> String {
    serde_json::to_string_pretty(r).unwrap_or_else(|_| "{}".into()) + "\n"
}

/// The judge report as CSV, in the columns of [`super::render_csv`]: table `judge` (group
/// `remove` and `missing`; metrics precision, recall, f1, tp, fp, fn) and table
/// `convergence` (group = round; metrics converged and share).
pub fn render_judge_csv(r: &JudgeReport) -> String {
    let mut w = super::csv::CsvWriter::new();
    let j = "judge";
    let n = r.episodes as u64;
    w.rate(j, "", "remove", n, "precision", &r.figures.precision);
    w.rate(j, "", "remove", n, "recall", &r.figures.recall);
    w.rate(j, "", "remove", n, "f1", &r.figures.f1);
    w.value(j, "", "remove", n, "tp", r.figures.tp as f64);
    w.value(j, "", "remove", n, "fp", r.figures.fp as f64);
    w.value(j, "", "remove", n, "fn", r.figures.fn_ as f64);
    w.value(j, "", "missing", n, "precision", r.missing_prf.precision);
    w.value(j, "", "missing", n, "recall", r.missing_prf.recall);
    w.value(j, "", "missing", n, "f1", r.missing_prf.f1);
    w.value(j, "", "missing", n, "tp", r.missing.tp as f64);
    w.value(j, "", "missing", n, "fp", r.missing.fp as f64);
    w.value(j, "", "missing", n, "fn", r.missing.fn_ as f64);
    for p in &r.convergence {
        let round = p.round.to_string();
        w.value(
            "convergence",
            "",
            &round,
            n,
            "converged",
            p.converged as f64,
        );
        w.value("convergence", "", &round, n, "share", p.share);
    }
    w.finish()
}
