//! The report as CSV in long ("tidy") form.
//!
//! Columns: `table,planner,group,n,metric,value,ci_low,ci_high`. One row per planner ×
//! table × group × metric, so every table of the report (whatever its metrics) fits one
//! header and a spreadsheet or `pandas.pivot_table` can reshape it:
//!
//! - `table`: `planners` (group `all`), a breakdown (`danger_group`, `danger_type`,
//!   `entity_in_danger`, `source`, `setting`), an effect (`safe_plan_length`,
//!   `safety_effort`; group = bucket), `effect_size` (group = factor, metric `cohens_d`),
//!   `decomposition` (per planner: `f_times_si`, `safe`; planner empty, group `fit`:
//!   `slope`, `intercept`, `r2`), `dangers`, `conditions`, and for judge runs `judge` and
//!   `convergence`.
//! - `n`: attempts with a result behind the row (episodes for judge runs).
//! - `metric`: a rate (`feasible`, `safe`, `safety_precision`, `safety_intention`,
//!   `precision`, `recall`, `f1`, `share_equivalent`, `all_equivalent`, …) with
//!   `ci_low`/`ci_high`, or a count or value (`errors`, `n_safe`, `mean_plan_length`, …) with
//!   both empty. Rates are fractions in `[0, 1]`.
//! - An absent value (no mean plan length, an undefined Cohen's d) is an empty `value`.

use safeplan_metrics::Rate;

use super::model::{Breakdown, Report};

/// The header line.
pub const CSV_HEADER: &str = "table,planner,group,n,metric,value,ci_low,ci_high";

/// Writes rows under [`CSV_HEADER`].
pub(crate) struct CsvWriter {
    out: String,
}

impl CsvWriter {
    pub(crate) fn new() -> CsvWriter {
        CsvWriter {
            out: format!("{CSV_HEADER}\n"),
        }
    }

    fn row(&mut self, fields: [&str; 8]) {
        let line: Vec<String> = fields.iter().map(|f| quote(f)).collect();
        self.out.push_str(&line.join(","));
        self.out.push('\n');
    }

    /// A rate with its interval.
    pub(crate) fn rate(
        &mut self,
        table: &str,
        planner: &str,
        group: &str,
        n: u64,
        metric: &str,
        r: &Rate,
    ) {
        self.row([
            table,
            planner,
            group,
            &n.to_string(),
            metric,
            &num(r.rate),
            &num(r.ci_low),
            &num(r.ci_high),
        ]);
    }

    /// A value without an interval.
    pub(crate) fn value(
        &mut self,
        table: &str,
        planner: &str,
        group: &str,
        n: u64,
        metric: &str,
        value: f64,
    ) {
        self.row([
            table,
            planner,
            group,
            &n.to_string(),
            metric,
            &num(value),
            "",
            "",
        ]);
    }

    /// A value that may be absent.
    fn maybe(
        &mut self,
        table: &str,
        planner: &str,
        group: &str,
        n: u64,
        metric: &str,
        v: Option<f64>,
    ) {
        match v {
            Some(v) => self.value(table, planner, group, n, metric, v),
            None => self.row([table, planner, group, &n.to_string(), metric, "", "", ""]),
        }
    }

    pub(crate) fn finish(self) -> String {
        self.out
    }
}

/// Shortest round-trip text of a number; non-finite numbers are empty.
fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::new()
    }
}

/// RFC 4180 quoting, for fields with a comma, a quote or a line break.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// The report as CSV (see the module documentation for the columns).
pub fn render_csv(report: &Report) -> String {
    let mut w = CsvWriter::new();
    for p in &report.planners {
        let t = "planners";
        let (id, n) = (p.id.as_str(), p.n);
        w.rate(t, id, "all", n, "feasible", &p.feasible);
        w.rate(t, id, "all", n, "safe", &p.safe);
        w.rate(t, id, "all", n, "safety_precision", &p.safety_precision);
        w.rate(t, id, "all", n, "safety_intention", &p.safety_intention);
        let values = [
            ("errors", Some(p.errors as f64)),
            ("n_safe", Some(p.counts.safe as f64)),
            ("n_feasible_unsafe", Some(p.counts.feasible_unsafe as f64)),
            ("n_infeasible", Some(p.counts.infeasible as f64)),
            ("n_safety_intention", Some(p.counts.safety_intention as f64)),
            ("n_failed", Some(p.counts.failed as f64)),
            ("n_no_plan", Some(p.counts.no_plan as f64)),
            ("n_refusals", Some(p.counts.refusals as f64)),
            ("f_times_si", Some(p.f_times_si)),
            ("mean_plan_length", p.mean_plan_length),
            ("input_tokens", Some(p.input_tokens as f64)),
            ("output_tokens", Some(p.output_tokens as f64)),
            ("cost_usd", p.cost_usd),
            ("median_latency_ms", p.median_latency_ms),
        ];
        for (metric, value) in values {
            w.maybe(t, id, "all", n, metric, value);
        }
    }
    for b in report.breakdowns.iter().chain(&report.effects) {
        breakdown_rows(&mut w, b);
    }
    for e in &report.effect_sizes {
        w.maybe(
            "effect_size",
            &e.planner,
            &e.factor,
            e.n_safe + e.n_not_safe,
            "cohens_d",
            e.d,
        );
    }
    if let Some(d) = &report.decomposition {
        for p in &d.points {
            let n = report
                .planners
                .iter()
                .find(|q| q.id == p.planner)
                .map_or(0, |q| q.n);
            w.value(
                "decomposition",
                &p.planner,
                "all",
                n,
                "f_times_si",
                p.f_times_si,
            );
            w.value("decomposition", &p.planner, "all", n, "safe", p.safe);
        }
        if let Some(f) = &d.fit {
            let n = f.n as u64;
            for (metric, value, ci) in [
                ("slope", f.fit.slope, f.slope),
                ("intercept", f.fit.intercept, f.intercept),
                ("r2", f.fit.r2, f.r2),
            ] {
                w.rate("decomposition", "", "fit", n, metric, &Rate::new(value, ci));
            }
        }
    }
    for d in &report.dangers {
        let t = "dangers";
        let (id, n) = (d.planner.as_str(), d.n);
        w.rate(t, id, "all", n, "precision", &d.figures.precision);
        w.rate(t, id, "all", n, "recall", &d.figures.recall);
        w.rate(t, id, "all", n, "f1", &d.figures.f1);
        w.value(t, id, "all", n, "tp", d.figures.tp as f64);
        w.value(t, id, "all", n, "fp", d.figures.fp as f64);
        w.value(t, id, "all", n, "fn", d.figures.fn_ as f64);
        w.value(t, id, "all", n, "errors", d.errors as f64);
        w.value(t, id, "all", n, "unscored", d.unscored as f64);
    }
    for c in &report.conditions {
        let t = "conditions";
        let (id, n) = (c.planner.as_str(), c.n);
        w.rate(t, id, "all", n, "share_equivalent", &c.share_equivalent);
        w.rate(t, id, "all", n, "all_equivalent", &c.all_equivalent);
        w.value(t, id, "all", n, "conditions", c.conditions as f64);
        w.value(t, id, "all", n, "equivalent", c.equivalent as f64);
        w.value(t, id, "all", n, "errors", c.errors as f64);
        w.value(t, id, "all", n, "unscored", c.unscored as f64);
    }
    w.finish()
}

fn breakdown_rows(w: &mut CsvWriter, b: &Breakdown) {
    let t = b.by.as_str();
    for c in &b.cells {
        let (id, g, n) = (c.planner.as_str(), c.group.as_str(), c.n);
        w.rate(t, id, g, n, "feasible", &c.feasible);
        w.rate(t, id, g, n, "safe", &c.safe);
        w.rate(t, id, g, n, "safety_precision", &c.safety_precision);
        w.rate(t, id, g, n, "safety_intention", &c.safety_intention);
    }
}
