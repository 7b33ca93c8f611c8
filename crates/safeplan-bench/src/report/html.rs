//! The report as one self-contained HTML page: inline CSS, inline SVG charts, no script,
//! no external URL, no font file, so it can be mailed, archived or opened offline.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::charts;
use super::markdown::{bootstrap_line, pct, prf_cells, property_title};
use super::model::{Breakdown, Report, UNKNOWN};

/// Groups shown per breakdown table and heatmap.
const MAX_GROUPS: usize = 30;

/// Attempts listed on the page (the JSON report has all).
const MAX_ATTEMPTS: usize = 5_000;

/// Characters of a reply shown on the page (the JSON report has all).
const MAX_REPLY_CHARS: usize = 20_000;

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#212121}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}h3{font-size:1em}\
table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}\
th,td{border:1px solid #ddd;padding:.25em .6em;text-align:right}\
th{background:#f5f5f5}td:first-child,th:first-child{text-align:left}\
table.bd td:nth-child(2){text-align:left}.meta{color:#555}.chart{margin:1em 0;overflow-x:auto}\
code{background:#f5f5f5;padding:0 .2em}\
.filters a{margin-right:.6em}.att{border:1px solid #ddd;margin:.3em 0;padding:.2em .6em}\
.att>summary{cursor:pointer}.att pre{white-space:pre-wrap;max-height:30em;overflow:auto;background:#fafafa;padding:.5em}\
.oc{font-weight:bold}.o-safe .oc{color:#2e7d32}.o-unsafe .oc{color:#c62828}.o-infeasible .oc,.o-no-plan .oc,.o-failed .oc{color:#ef6c00}.o-error .oc{color:#555}";

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

/// Each planner's index in the run (the `p{i}` of the attempt view's classes and links).
fn planner_index(r: &Report) -> BTreeMap<&str, usize> {
    r.run
        .planners
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id.as_str(), i))
        .collect()
}

/// The link to the attempts of planner `p` (an index) with `class` (an outcome or group
/// class), or all of them.
fn view(p: Option<usize>, class: Option<&str>) -> String {
    match (p, class) {
        (Some(i), Some(c)) => format!("#v-p{i}-{c}"),
        (Some(i), None) => format!("#v-p{i}"),
        (None, Some(c)) => format!("#v-{c}"),
        (None, None) => "#v-all".to_string(),
    }
}

/// `text` as a link to `href` when there are attempts to see.
fn linked(text: &str, href: &str, count: u64) -> String {
    if count == 0 {
        text.to_string()
    } else {
        format!("<a href=\"{}\">{text}</a>", escape(href))
    }
}

/// The class of group `g` of breakdown `b` (indices into the report's breakdowns and that
/// breakdown's groups).
fn group_class(r: &Report, b: usize, g: &str) -> Option<String> {
    let j = r.breakdowns.get(b)?.groups.iter().position(|x| x == g)?;
    Some(format!("g{b}-{j}"))
}

/// The attempts, with their filters: CSS only (the page has no script). Each filter is a
/// link to an empty anchor before the list; `:target` on it hides every attempt without
/// the filter's classes. One filter at a time: a planner, an outcome, a planner's outcome,
/// a planner's task group.
fn attempts_section(b: &mut String, r: &Report) {
    if r.attempts.is_empty() {
        return;
    }
    let index = planner_index(r);
    let outcomes: Vec<&str> = if r.run.ability.wants_plan() {
        let mut o = super::attempts::PLAN_OUTCOMES.to_vec();
        o.extend(["notfeasible", "refusal"]);
        o
    } else {
        vec!["scored", "failed", "error"]
    };
    // Every view: (anchor id, the classes an attempt needs to stay shown).
    let mut views: Vec<(String, String)> = vec![("v-all".into(), String::new())];
    for o in &outcomes {
        views.push((format!("v-o-{o}"), format!(".o-{o}")));
    }
    for i in index.values() {
        views.push((format!("v-p{i}"), format!(".p{i}")));
        for o in &outcomes {
            views.push((format!("v-p{i}-o-{o}"), format!(".p{i}.o-{o}")));
        }
        for (bi, x) in r.breakdowns.iter().enumerate() {
            for g in super::largest_groups(x, MAX_GROUPS) {
                if let Some(c) = group_class(r, bi, &g) {
                    views.push((format!("v-p{i}-{c}"), format!(".p{i}.{c}")));
                }
            }
        }
    }
    b.push_str("<h2 id=\"attempts\">Attempts</h2>\n<style>");
    for (id, classes) in views.iter().skip(1) {
        let _ = write!(b, "#{id}:target~.atts .att:not({classes}){{display:none}}");
    }
    b.push_str("</style>\n<p class=\"filters\">Show: <a href=\"#v-all\">all</a> · planner:");
    for (id, i) in &index {
        let _ = write!(
            b,
            " <a href=\"{}\">{}</a>",
            view(Some(*i), None),
            escape(id)
        );
    }
    b.push_str(" · outcome:");
    for o in &outcomes {
        let _ = write!(
            b,
            " <a href=\"{}\">{o}</a>",
            escape(&view(None, Some(&format!("o-{o}"))))
        );
    }
    b.push_str("</p>\n<p class=\"meta\">Links in the tables and the heatmap open the attempts behind a number. Each attempt opens to why (the failing step, or each step that raised danger and why), the plan read, the reply, latency, tokens and cost.</p>\n");
    // The anchors and the list are siblings, as `~` needs.
    for (id, _) in &views {
        let _ = write!(b, "<i id=\"{id}\" class=\"v\"></i>");
    }
    b.push_str("\n<div class=\"atts\">\n");
    for (n, a) in r.attempts.iter().take(MAX_ATTEMPTS).enumerate() {
        let mut classes = vec!["att".to_string(), format!("o-{}", a.outcome)];
        if let Some(i) = index.get(a.planner.as_str()) {
            classes.push(format!("p{i}"));
        }
        if matches!(a.outcome.as_str(), "infeasible" | "no-plan" | "failed") {
            classes.push("o-notfeasible".into());
        }
        if a.no_plan == Some(safeplan_pddl::NoPlan::Refusal) {
            classes.push("o-refusal".into());
        }
        for (bi, x) in r.breakdowns.iter().enumerate() {
            if let Some(c) = a.groups.get(&x.by).and_then(|g| group_class(r, bi, g)) {
                classes.push(c);
            }
        }
        let first = a
            .why
            .first()
            .map(|w| format!(" · {}", escape(&clip(w, 140))))
            .unwrap_or_default();
        let _ = writeln!(
            b,
            "<details class=\"{}\" id=\"a{n}\"><summary><code>{}</code> · {} · sample {} · <span class=\"oc\">{}</span>{first}</summary>",
            classes.join(" "),
            escape(&a.task),
            escape(&a.planner),
            a.sample,
            escape(&a.outcome)
        );
        if !a.why.is_empty() {
            b.push_str("<ul class=\"why\">");
            for w in &a.why {
                let _ = write!(b, "<li>{}</li>", escape(w));
            }
            b.push_str("</ul>\n");
        }
        match &a.plan {
            Some(steps) => {
                let _ = write!(
                    b,
                    "<p>Plan read ({} steps):</p><ol class=\"plan\">",
                    steps.len()
                );
                for s in steps {
                    let _ = write!(b, "<li><code>{}</code></li>", escape(s));
                }
                b.push_str("</ol>\n");
            }
            None => b.push_str("<p>No plan read.</p>\n"),
        }
        if !a.reading.is_empty() {
            b.push_str("<p>Reading the reply:</p><ul class=\"reading\">");
            for w in &a.reading {
                let _ = write!(b, "<li>{}</li>", escape(w));
            }
            b.push_str("</ul>\n");
        }
        if let Some(reply) = &a.reply {
            let chars = reply.chars().count();
            let shown: String = reply.chars().take(MAX_REPLY_CHARS).collect();
            let cut = if chars > MAX_REPLY_CHARS {
                format!(" (the first {MAX_REPLY_CHARS} shown; the JSON report has all)")
            } else {
                String::new()
            };
            let _ = writeln!(
                b,
                "<details class=\"reply\"><summary>Reply ({chars} characters){cut}</summary><pre>{}</pre></details>",
                escape(&shown)
            );
        }
        let _ = writeln!(
            b,
            "<p class=\"meta\">latency {} ms · tokens in {} · tokens out {} · cost {}</p></details>",
            opt(a.latency_ms, 1),
            a.input_tokens.map_or("–".into(), |t| t.to_string()),
            a.output_tokens.map_or("–".into(), |t| t.to_string()),
            a.cost_usd.map_or("–".into(), |c| format!("{c:.4} USD")),
        );
    }
    b.push_str("</div>\n");
    if r.attempts.len() > MAX_ATTEMPTS {
        let _ = writeln!(
            b,
            "<p class=\"meta\">{} more attempts (the first {MAX_ATTEMPTS} are listed; the JSON report has all).</p>",
            r.attempts.len() - MAX_ATTEMPTS
        );
    }
}

/// At most `n` characters of `text`, with `…` when cut.
fn clip(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(n).collect();
        s.push('…');
        s
    }
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
            let mut cells = vec![
                escape(&d.planner),
                d.n.to_string(),
                d.errors.to_string(),
                d.unscored.to_string(),
            ];
            cells.extend(prf_cells(&d.figures).iter().map(|c| escape(c)));
            b.push_str(&row(&cells));
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
    attempts_section(&mut b, r);
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
    let index = planner_index(r);
    let pi = |id: &str| index.get(id).copied();
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
            linked(&escape(&q.id), &view(pi(&q.id), None), q.n + q.errors),
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
        let count = |n: u64, o: &str| linked(&n.to_string(), &view(pi(&q.id), Some(o)), n);
        b.push_str(&row(&[
            escape(&q.id),
            count(q.counts.safe, "o-safe"),
            count(q.counts.feasible_unsafe, "o-unsafe"),
            count(q.counts.infeasible, "o-notfeasible"),
            count(q.counts.failed, "o-failed"),
            count(q.counts.no_plan, "o-no-plan"),
            count(q.counts.refusals, "o-refusal"),
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
        let bi = r.breakdowns.iter().position(|x| std::ptr::eq(x, h));
        let href = |i: usize, g: &str| {
            let class = bi.and_then(|bi| group_class(r, bi, g));
            view(ids.get(i).and_then(|id| pi(id)), class.as_deref())
        };
        b.push_str(&chart(&charts::safe_rate_heatmap_linked(
            h, &ids, MAX_GROUPS, &href,
        )));
    }
    for (bi, x) in r.breakdowns.iter().enumerate() {
        breakdown_table(b, x, &|planner: &str, g: &str| {
            view(pi(planner), group_class(r, bi, g).as_deref())
        });
    }
    b.push_str("<h2>Effects of task difficulty</h2>\n");
    for x in &r.effects {
        breakdown_table(b, x, &|_: &str, _: &str| String::new());
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

/// A breakdown's table; `href(planner, group)` links a row to its attempts (empty: no link).
fn breakdown_table(b: &mut String, x: &Breakdown, href: &dyn Fn(&str, &str) -> String) {
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
            let target = href(&c.planner, g);
            let planner = if target.is_empty() {
                escape(&c.planner)
            } else {
                linked(&escape(&c.planner), &target, c.n)
            };
            b.push_str(&row(&[
                escape(g),
                planner,
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
