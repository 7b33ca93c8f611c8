//! The report as one self-contained HTML page: inline CSS, inline SVG charts, no script,
//! no external URL, no font file, so it can be mailed, archived or opened offline.

use std::fmt::Write;

use super::charts;
use super::markdown::{bootstrap_line, pct, property_title};
use super::model::{Breakdown, Report, UNKNOWN};

/// Groups shown per breakdown table and heatmap.
const MAX_GROUPS: usize = 30;

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#212121}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}h3{font-size:1em}\
table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}\
th,td{border:1px solid #ddd;padding:.25em .6em;text-align:right}\
th{background:#f5f5f5}td:first-child,th:first-child{text-align:left}\
table.bd td:nth-child(2){text-align:left}.meta{color:#555}.chart{margin:1em 0;overflow-x:auto}\
code{background:#f5f5f5;padding:0 .2em}";

/// Text as HTML (also valid inside attribute values and SVG).
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A whole page around `body`.
pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{t}</title>\n\
         <style>{STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n{body}</body>\n</html>\n",
        t = escape(title)
    )
}

/// An SVG chart inside the page. The `xmlns` attribute is dropped: HTML5 puts inline
/// `<svg>` in the SVG namespace by itself, and the page then names no URL at all.
pub(crate) fn chart(svg: &str) -> String {
    format!(
        "<div class=\"chart\">{}</div>\n",
        svg.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1)
    )
}

fn row(cells: &[String]) -> String {
    let mut s = String::from("<tr>");
    for c in cells {
        let _ = write!(s, "<td>{c}</td>");
    }
    s.push_str("</tr>\n");
    s
}

fn header(cells: &[&str]) -> String {
    let mut s = String::from("<table>\n<tr>");
    for c in cells {
        let _ = write!(s, "<th>{}</th>", escape(c));
    }
    s.push_str("</tr>\n");
    s
}

fn p(r: &safeplan_metrics::Rate) -> String {
    escape(&pct(r))
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "–".to_string(), |x| format!("{x:.digits$}"))
}

/// The breakdown the heatmap shows: danger type when the tasks have one, else danger
/// group, else the first.
fn heatmap_breakdown(r: &Report) -> Option<&Breakdown> {
    let known = |b: &&Breakdown| b.groups.iter().any(|g| g != UNKNOWN);
    r.breakdowns
        .iter()
        .filter(known)
        .find(|b| b.by == "danger_type")
        .or_else(|| {
            r.breakdowns
                .iter()
                .filter(known)
                .find(|b| b.by == "danger_group")
        })
        .or_else(|| r.breakdowns.first())
}

/// The report as one self-contained HTML page.
pub fn render_html(r: &Report) -> String {
    let mut b = String::new();
    let run = &r.run;
    let _ = writeln!(
        b,
        "<p class=\"meta\">suite <code>{}</code> ({} tasks in the store of {} in the suite, read \
         from {}) · ability <code>{}</code> · shards {} · {} planners · {} attempts<br>{}</p>",
        escape(&run.suite_hash),
        run.tasks,
        run.suite_tasks,
        escape(&run.suite_root),
        run.ability,
        escape(&run.shards.join(", ")),
        run.planners.len(),
        run.attempts,
        escape(&bootstrap_line(&r.bootstrap))
    );
    if run.ability.wants_plan() {
        plan_sections(&mut b, r);
    }
    if !r.dangers.is_empty() {
        b.push_str("<h2>Dangerous actions named (identify-dangers), micro-averaged</h2>\n");
        b.push_str(&header(&[
            "planner",
            "n",
            "errors",
            "unscored",
            "precision",
            "recall",
            "F1",
            "tp",
            "fp",
            "fn",
        ]));
        for d in &r.dangers {
            b.push_str(&row(&[
                escape(&d.planner),
                d.n.to_string(),
                d.errors.to_string(),
                d.unscored.to_string(),
                p(&d.precision),
                p(&d.recall),
                p(&d.f1),
                d.tp.to_string(),
                d.fp.to_string(),
                d.fn_.to_string(),
            ]));
        }
        b.push_str("</table>\n");
    }
    if !r.conditions.is_empty() {
        b.push_str("<h2>Danger conditions stated (infer-conditions)</h2>\n");
        b.push_str(&header(&[
            "planner",
            "n",
            "errors",
            "unscored",
            "conditions",
            "equivalent",
            "share equivalent",
            "all equivalent",
        ]));
        for c in &r.conditions {
            b.push_str(&row(&[
                escape(&c.planner),
                c.n.to_string(),
                c.errors.to_string(),
                c.unscored.to_string(),
                c.conditions.to_string(),
                c.equivalent.to_string(),
                p(&c.share_equivalent),
                p(&c.all_equivalent),
            ]));
        }
        b.push_str("</table>\n");
    }
    if !run.planners.is_empty() {
        b.push_str("<h2>Planner configurations</h2>\n<ul>\n");
        for p in &run.planners {
            let _ = writeln!(
                b,
                "<li><code>{}</code>: <code>{}</code></li>",
                escape(&p.id),
                escape(&p.config.to_string())
            );
        }
        b.push_str("</ul>\n");
    }
    page(&r.title, &b)
}

fn plan_sections(b: &mut String, r: &Report) {
    b.push_str("<h2>Planners</h2>\n");
    if r.planners.is_empty() {
        b.push_str("<p>No attempt in the store.</p>\n");
        return;
    }
    b.push_str(&chart(&charts::outcome_bars(&r.planners)));
    b.push_str(&header(&[
        "planner", "n", "errors", "F", "S", "SP", "SI", "F×SI",
    ]));
    for q in &r.planners {
        if q.n == 0 {
            // Rates of nothing are no rates: say so instead of 0.0% [0.0, 0.0].
            b.push_str(&row(&[
                escape(&q.id),
                "0".into(),
                q.errors.to_string(),
                "no attempt has a result".into(),
                "–".into(),
                "–".into(),
                "–".into(),
                "–".into(),
            ]));
            continue;
        }
        b.push_str(&row(&[
            escape(&q.id),
            q.n.to_string(),
            q.errors.to_string(),
            p(&q.feasible),
            p(&q.safe),
            p(&q.safety_precision),
            p(&q.safety_intention),
            format!("{:.1}%", 100.0 * q.f_times_si),
        ]));
    }
    b.push_str("</table>\n<p class=\"meta\">F feasible, S safe, SP safety precision (S/F), SI safety intention; n attempts with a result, errors attempts without one (not in n).</p>\n");
    b.push_str(&header(&[
        "planner",
        "safe",
        "feasible, unsafe",
        "infeasible",
        "of which failed",
        "of which no plan in the reply",
        "of which refusals",
        "mean plan length",
        "tokens in",
        "tokens out",
        "cost (USD)",
        "median latency (ms)",
    ]));
    for q in &r.planners {
        b.push_str(&row(&[
            escape(&q.id),
            q.counts.safe.to_string(),
            q.counts.feasible_unsafe.to_string(),
            q.counts.infeasible.to_string(),
            q.counts.failed.to_string(),
            q.counts.no_plan.to_string(),
            q.counts.refusals.to_string(),
            opt(q.mean_plan_length, 1),
            q.input_tokens.to_string(),
            q.output_tokens.to_string(),
            opt(q.cost_usd, 4),
            opt(q.median_latency_ms, 1),
        ]));
    }
    b.push_str("</table>\n<h2>Breakdowns</h2>\n");
    if let Some(h) = heatmap_breakdown(r) {
        let ids: Vec<String> = r.planners.iter().map(|q| q.id.clone()).collect();
        b.push_str(&chart(&charts::safe_rate_heatmap(h, &ids, MAX_GROUPS)));
    }
    for x in &r.breakdowns {
        breakdown_table(b, x);
    }
    b.push_str("<h2>Effects of task difficulty</h2>\n");
    for x in &r.effects {
        breakdown_table(b, x);
    }
    if !r.effect_sizes.is_empty() {
        b.push_str("<p>Cohen's d of the task property between attempts not safe and safe ones (positive: the tasks a planner failed were longer / needed more effort).</p>\n");
        b.push_str(&header(&["planner", "safe-plan length", "safety effort"]));
        for q in &r.planners {
            let d = |factor: &str| {
                r.effect_sizes
                    .iter()
                    .find(|e| e.planner == q.id && e.factor == factor)
                    .and_then(|e| e.d)
            };
            b.push_str(&row(&[
                escape(&q.id),
                opt(d("safe_plan_length"), 2),
                opt(d("safety_effort"), 2),
            ]));
        }
        b.push_str("</table>\n");
    }
    if let Some(d) = &r.decomposition {
        b.push_str("<h2>S vs F × SI across planners</h2>\n");
        b.push_str(&header(&["planner", "F × SI", "S"]));
        for q in &d.points {
            b.push_str(&row(&[
                escape(&q.planner),
                format!("{:.1}%", 100.0 * q.f_times_si),
                format!("{:.1}%", 100.0 * q.safe),
            ]));
        }
        b.push_str("</table>\n");
        if let Some(f) = &d.fit {
            let _ = writeln!(
                b,
                "<p>S = intercept + slope · (F × SI) over {} planners: slope {:.3} [{:.3}, {:.3}], \
                 intercept {:.3} [{:.3}, {:.3}], R² {:.3} [{:.3}, {:.3}] (DESPITE: slope 1.035, \
                 intercept −0.040, R² 0.99).</p>",
                f.n,
                f.fit.slope,
                f.slope.low,
                f.slope.high,
                f.fit.intercept,
                f.intercept.low,
                f.intercept.high,
                f.fit.r2,
                f.r2.low,
                f.r2.high
            );
        }
        if let Some(note) = &d.note {
            let _ = writeln!(b, "<p>No fit: {}.</p>", escape(note));
        }
    }
}

fn breakdown_table(b: &mut String, x: &Breakdown) {
    let _ = writeln!(b, "<h3>By {}</h3>", escape(property_title(&x.by)));
    let groups = super::largest_groups(x, MAX_GROUPS);
    if groups.is_empty() {
        b.push_str("<p>No attempt.</p>\n");
        return;
    }
    b.push_str(
        &header(&["group", "planner", "n", "F", "S", "SI"]).replacen(
            "<table>",
            "<table class=\"bd\">",
            1,
        ),
    );
    for g in &groups {
        for c in x.cells.iter().filter(|c| &c.group == g) {
            b.push_str(&row(&[
                escape(g),
                escape(&c.planner),
                c.n.to_string(),
                p(&c.feasible),
                p(&c.safe),
                p(&c.safety_intention),
            ]));
        }
    }
    b.push_str("</table>\n");
    if x.groups.len() > groups.len() {
        let _ = writeln!(
            b,
            "<p class=\"meta\">{} more groups (the {} largest are shown; the JSON and CSV reports have all).</p>",
            x.groups.len() - groups.len(),
            groups.len()
        );
    }
}
