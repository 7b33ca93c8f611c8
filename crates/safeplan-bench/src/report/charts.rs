//! SVG charts drawn with plotters.
//!
//! plotters is built without its `ttf` feature, so no font file is read: it estimates text
//! extents itself, and its SVG backend writes text as `<text>` elements with a generic
//! `sans-serif` family that the browser resolves. Layout is done here in pixels (label
//! widths from a fixed per-character estimate) rather than by plotters' chart builder, so
//! long planner ids get the room they need and nothing depends on font metrics.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::judge::ConvergenceRow;
use super::model::{Breakdown, PlannerReport};

/// Colour of the safe share.
const SAFE: (u8, u8, u8) = (46, 125, 50);
/// Colour of the feasible but unsafe share.
const UNSAFE: (u8, u8, u8) = (239, 160, 30);
/// Colour of the infeasible share.
const INFEASIBLE: (u8, u8, u8) = (189, 189, 189);
/// Colour of text and axes.
const INK: (u8, u8, u8) = (33, 33, 33);
/// Colour of grid lines.
const GRID: (u8, u8, u8) = (224, 224, 224);

/// Width in pixels of `text` at 12 px: a deliberate over-estimate for sans-serif fonts.
fn text_width(text: &str, size: u32) -> i32 {
    (text.chars().count() as f64 * f64::from(size) * 0.6).ceil() as i32
}

/// `text` cut to `max` characters with an ellipsis.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// plotters' SVG backend writes `font-size` as the style's size divided by 1.24 (its
/// points-to-pixels convention); asking for `px × 1.24` gets `px` pixels.
fn font_size(px: u32) -> f64 {
    f64::from(px) * 1.24
}

fn rgb(c: (u8, u8, u8)) -> RGBAColor {
    RGBAColor(c.0, c.1, c.2, 1.0)
}

fn fill(c: (u8, u8, u8)) -> ShapeStyle {
    ShapeStyle {
        color: rgb(c),
        filled: true,
        stroke_width: 0,
    }
}

fn stroke(c: (u8, u8, u8), width: u32) -> ShapeStyle {
    ShapeStyle {
        color: rgb(c),
        filled: false,
        stroke_width: width,
    }
}

/// A drawing area with the few primitives the charts use; the first error is kept and the
/// rest of the drawing is skipped.
struct Canvas<'a> {
    area: DrawingArea<SVGBackend<'a>, Shift>,
    error: Option<String>,
}

impl<'a> Canvas<'a> {
    fn new(buf: &'a mut String, width: u32, height: u32) -> Canvas<'a> {
        let area = SVGBackend::with_string(buf, (width, height)).into_drawing_area();
        let mut canvas = Canvas { area, error: None };
        let result = canvas.area.fill(&WHITE);
        canvas.keep(result);
        canvas
    }

    fn keep<E: std::fmt::Display>(&mut self, result: Result<(), E>) {
        if let (Err(e), None) = (result, &self.error) {
            self.error = Some(e.to_string());
        }
    }

    fn rect(&mut self, x0: i32, y0: i32, x1: i32, y1: i32, style: ShapeStyle) {
        if self.error.is_none() {
            let r = self.area.draw(&Rectangle::new([(x0, y0), (x1, y1)], style));
            self.keep(r);
        }
    }

    fn line(&mut self, points: Vec<(i32, i32)>, style: ShapeStyle) {
        if self.error.is_none() {
            let r = self.area.draw(&PathElement::new(points, style));
            self.keep(r);
        }
    }

    fn dot(&mut self, x: i32, y: i32, radius: i32, style: ShapeStyle) {
        if self.error.is_none() {
            let r = self.area.draw(&Circle::new((x, y), radius, style));
            self.keep(r);
        }
    }

    fn text(&mut self, text: &str, x: i32, y: i32, size: u32, color: (u8, u8, u8), pos: Pos) {
        if self.error.is_none() {
            let color = rgb(color);
            let style = TextStyle::from(("sans-serif", font_size(size)).into_font())
                .color(&color)
                .pos(pos);
            let r = self.area.draw(&Text::new(text.to_string(), (x, y), style));
            self.keep(r);
        }
    }

    fn bold(&mut self, text: &str, x: i32, y: i32, size: u32) {
        if self.error.is_none() {
            let color = rgb(INK);
            let style = TextStyle::from(
                ("sans-serif", font_size(size))
                    .into_font()
                    .style(FontStyle::Bold),
            )
            .color(&color)
            .pos(Pos::new(HPos::Left, VPos::Top));
            let r = self.area.draw(&Text::new(text.to_string(), (x, y), style));
            self.keep(r);
        }
    }

    /// Writes the SVG into the buffer, or says why it could not be drawn.
    fn finish(mut self) -> Result<(), String> {
        let r = self.area.present();
        self.keep(r);
        match self.error {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }
}

fn left(v: VPos) -> Pos {
    Pos::new(HPos::Left, v)
}

fn right(v: VPos) -> Pos {
    Pos::new(HPos::Right, v)
}

fn center(v: VPos) -> Pos {
    Pos::new(HPos::Center, v)
}

/// Draws into a fresh SVG of `width` × `height`; a chart that cannot be drawn becomes an
/// SVG that says so (a report is still written).
fn svg(width: u32, height: u32, draw: impl FnOnce(&mut Canvas<'_>)) -> String {
    let mut buf = String::new();
    let result = {
        let mut canvas = Canvas::new(&mut buf, width, height);
        draw(&mut canvas);
        canvas.finish()
    };
    match result {
        Ok(()) => buf,
        Err(e) => format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"30\"><text x=\"4\" \
             y=\"20\">chart not drawn: {}</text></svg>",
            super::html::escape(&e)
        ),
    }
}

/// DESPITE's Figure 2a for this run: one horizontal bar per planner split into safe,
/// feasible-but-unsafe and infeasible shares of its attempts, with a black marker at its
/// safety intention rate.
pub fn outcome_bars(planners: &[PlannerReport]) -> String {
    let label_w = planners
        .iter()
        .map(|p| text_width(&clip(&p.id, 40), 12))
        .max()
        .unwrap_or(40)
        .max(60)
        + 16;
    let (top, row, bar_w) = (64, 30, 480);
    let width = label_w + bar_w + 30;
    let height = top + row * planners.len().max(1) as i32 + 40;
    let x_of = |share: f64| label_w + (share.clamp(0.0, 1.0) * f64::from(bar_w)).round() as i32;
    svg(width as u32, height as u32, |c| {
        c.bold("Outcomes per planner (share of attempts)", 8, 6, 14);
        // Legend.
        let mut lx = 8;
        for (name, colour) in [
            ("safe", SAFE),
            ("feasible, unsafe", UNSAFE),
            ("infeasible", INFEASIBLE),
        ] {
            c.rect(lx, 30, lx + 12, 42, fill(colour));
            c.text(name, lx + 16, 36, 12, INK, left(VPos::Center));
            lx += 16 + text_width(name, 12) + 16;
        }
        c.line(vec![(lx + 6, 28), (lx + 6, 44)], stroke(INK, 2));
        c.dot(lx + 6, 36, 4, fill(INK));
        c.text("safety intention", lx + 14, 36, 12, INK, left(VPos::Center));
        let bottom = top + row * planners.len() as i32;
        for tick in 0..=4 {
            let x = x_of(f64::from(tick) / 4.0);
            c.line(vec![(x, top - 4), (x, bottom)], stroke(GRID, 1));
            c.text(
                &format!("{}%", tick * 25),
                x,
                bottom + 6,
                11,
                INK,
                center(VPos::Top),
            );
        }
        for (i, p) in planners.iter().enumerate() {
            let y0 = top + row * i as i32 + 5;
            let y1 = y0 + row - 10;
            let mid = (y0 + y1) / 2;
            c.text(
                &clip(&p.id, 40),
                label_w - 8,
                mid,
                12,
                INK,
                right(VPos::Center),
            );
            if p.n == 0 {
                c.text("no result", label_w + 4, mid, 12, INK, left(VPos::Center));
                continue;
            }
            let n = p.n as f64;
            let safe = p.counts.safe as f64 / n;
            let unsafe_ = p.counts.feasible_unsafe as f64 / n;
            let (a, b) = (x_of(safe), x_of(safe + unsafe_));
            c.rect(label_w, y0, a, y1, fill(SAFE));
            c.rect(a, y0, b, y1, fill(UNSAFE));
            c.rect(b, y0, x_of(1.0), y1, fill(INFEASIBLE));
            let si = x_of(p.safety_intention.rate);
            c.line(vec![(si, y0 - 3), (si, y1 + 3)], stroke(INK, 2));
            c.dot(si, mid, 4, fill(INK));
        }
        c.line(vec![(label_w, top - 4), (label_w, bottom)], stroke(INK, 1));
    })
}

const HEATMAP_TOP: i32 = 60;
const HEATMAP_ROW: i32 = 34;

/// The heatmap's columns (the largest groups), label width and column width.
fn heatmap_layout(
    breakdown: &Breakdown,
    planners: &[String],
    max_groups: usize,
) -> (Vec<String>, i32, i32) {
    let groups = super::largest_groups(breakdown, max_groups);
    let label_w = planners
        .iter()
        .map(|p| text_width(&clip(p, 40), 12))
        .max()
        .unwrap_or(40)
        .max(60)
        + 16;
    let col_w = groups
        .iter()
        .map(|g| text_width(&clip(g, 16), 11) + 12)
        .max()
        .unwrap_or(60)
        .max(64);
    (groups, label_w, col_w)
}

/// [`safe_rate_heatmap`] with each cell that has attempts a link: `href(planner index,
/// group)` gives its target (the HTML report's view of those attempts). The links are
/// transparent rectangles over the cells, so the picture is the same.
pub fn safe_rate_heatmap_linked(
    breakdown: &Breakdown,
    planners: &[String],
    max_groups: usize,
    href: &dyn Fn(usize, &str) -> String,
) -> String {
    let svg = safe_rate_heatmap(breakdown, planners, max_groups);
    let (groups, label_w, col_w) = heatmap_layout(breakdown, planners, max_groups);
    let mut links = String::new();
    for (i, p) in planners.iter().enumerate() {
        for (j, g) in groups.iter().enumerate() {
            let has = breakdown
                .cells
                .iter()
                .any(|c| &c.planner == p && &c.group == g && c.n > 0);
            if has {
                let x0 = label_w + col_w * j as i32;
                let y0 = HEATMAP_TOP + HEATMAP_ROW * i as i32;
                links.push_str(&format!(
                    "<a href=\"{}\"><rect class=\"cell-link\" x=\"{x0}\" y=\"{y0}\" width=\"{}\" height=\"{}\" fill=\"transparent\"><title>{} · {}: open these attempts</title></rect></a>",
                    super::html::escape(&href(i, g)),
                    col_w - 2,
                    HEATMAP_ROW - 2,
                    super::html::escape(p),
                    super::html::escape(g)
                ));
            }
        }
    }
    match svg.rfind("</svg>") {
        Some(end) => format!("{}{links}{}", &svg[..end], &svg[end..]),
        None => svg,
    }
}

/// A heatmap of safe rates: one row per planner, one column per group of `breakdown`
/// (at most `max_groups`, the largest), each cell coloured by its safe rate with the rate
/// and the number of attempts written in it.
pub fn safe_rate_heatmap(breakdown: &Breakdown, planners: &[String], max_groups: usize) -> String {
    let (groups, label_w, col_w) = heatmap_layout(breakdown, planners, max_groups);
    let (top, row) = (HEATMAP_TOP, HEATMAP_ROW);
    let width = label_w + col_w * groups.len().max(1) as i32 + 20;
    let height = top + row * planners.len().max(1) as i32 + 50;
    let title = format!("Safe rate by {}", breakdown.by.replace('_', " "));
    svg(width.max(360) as u32, height as u32, |c| {
        c.bold(&title, 8, 6, 14);
        for (j, g) in groups.iter().enumerate() {
            let x = label_w + col_w * j as i32 + col_w / 2;
            c.text(&clip(g, 16), x, top - 8, 11, INK, center(VPos::Bottom));
        }
        for (i, p) in planners.iter().enumerate() {
            let y0 = top + row * i as i32;
            c.text(
                &clip(p, 40),
                label_w - 8,
                y0 + row / 2,
                12,
                INK,
                right(VPos::Center),
            );
            for (j, g) in groups.iter().enumerate() {
                let x0 = label_w + col_w * j as i32;
                let cell = breakdown
                    .cells
                    .iter()
                    .find(|c| &c.planner == p && &c.group == g);
                match cell {
                    Some(cell) if cell.n > 0 => {
                        let rate = cell.safe.rate;
                        c.rect(x0, y0, x0 + col_w - 2, y0 + row - 2, fill(ramp(rate)));
                        let ink = if rate > 0.55 { (255, 255, 255) } else { INK };
                        c.text(
                            &format!("{:.0}%", 100.0 * rate),
                            x0 + col_w / 2,
                            y0 + row / 2 - 6,
                            12,
                            ink,
                            center(VPos::Center),
                        );
                        c.text(
                            &format!("n={}", cell.n),
                            x0 + col_w / 2,
                            y0 + row / 2 + 8,
                            9,
                            ink,
                            center(VPos::Center),
                        );
                    }
                    _ => {
                        c.rect(x0, y0, x0 + col_w - 2, y0 + row - 2, fill((245, 245, 245)));
                        c.text(
                            "–",
                            x0 + col_w / 2,
                            y0 + row / 2,
                            12,
                            INK,
                            center(VPos::Center),
                        );
                    }
                }
            }
        }
        // Colour scale.
        let y = top + row * planners.len() as i32 + 14;
        c.text("0% safe", label_w, y + 6, 11, INK, right(VPos::Center));
        for k in 0..20 {
            let x = label_w + 6 + k * 8;
            c.rect(x, y, x + 8, y + 12, fill(ramp(f64::from(k) / 19.0)));
        }
        c.text(
            "100% safe",
            label_w + 6 + 160 + 4,
            y + 6,
            11,
            INK,
            left(VPos::Center),
        );
    })
}

/// The colour of a safe rate: from a pale to a dark green.
fn ramp(rate: f64) -> (u8, u8, u8) {
    let t = if rate.is_finite() {
        rate.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let lerp = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
    (lerp(240, 0), lerp(249, 90), lerp(232, 50))
}

/// The judge loop's convergence curve: the cumulative share of episodes converged by each
/// round.
pub fn convergence_curve(points: &[ConvergenceRow]) -> String {
    let (left_w, top, plot_w, plot_h) = (56, 40, 420, 220);
    let rounds = points.iter().map(|p| p.round).max().unwrap_or(1).max(1);
    let x_of = |round: usize| {
        left_w + (plot_w as f64 * (round as f64 - 0.5) / rounds as f64).round() as i32
    };
    let y_of =
        |share: f64| top + plot_h - (share.clamp(0.0, 1.0) * f64::from(plot_h)).round() as i32;
    svg(
        (left_w + plot_w + 24) as u32,
        (top + plot_h + 50) as u32,
        |c| {
            c.bold("Episodes converged by round (cumulative)", 8, 6, 14);
            for tick in 0..=4 {
                let share = f64::from(tick) / 4.0;
                let y = y_of(share);
                c.line(vec![(left_w, y), (left_w + plot_w, y)], stroke(GRID, 1));
                c.text(
                    &format!("{}%", tick * 25),
                    left_w - 6,
                    y,
                    11,
                    INK,
                    right(VPos::Center),
                );
            }
            c.line(
                vec![
                    (left_w, top),
                    (left_w, top + plot_h),
                    (left_w + plot_w, top + plot_h),
                ],
                stroke(INK, 1),
            );
            for round in 1..=rounds {
                c.text(
                    &round.to_string(),
                    x_of(round),
                    top + plot_h + 6,
                    11,
                    INK,
                    center(VPos::Top),
                );
            }
            c.text(
                "round",
                left_w + plot_w / 2,
                top + plot_h + 24,
                11,
                INK,
                center(VPos::Top),
            );
            let path: Vec<(i32, i32)> = points
                .iter()
                .map(|p| (x_of(p.round), y_of(p.share)))
                .collect();
            c.line(path.clone(), stroke(SAFE, 2));
            for ((x, y), p) in path.into_iter().zip(points) {
                c.dot(x, y, 4, fill(SAFE));
                c.text(
                    &format!("{:.0}%", 100.0 * p.share),
                    x,
                    y - 8,
                    11,
                    INK,
                    center(VPos::Bottom),
                );
            }
        },
    )
}
