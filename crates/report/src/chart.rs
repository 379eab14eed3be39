//! Inline SVG charts for the HTML report: lines over time, a latency percentile curve, limit bars
//! with the binding limit marked, and required-vs-measured bars.
//!
//! Every function returns one `<svg>` element as a string: no scripts, no external fonts or
//! images, so the report stays one self-contained file that renders offline. Every text that
//! reaches the SVG is escaped.

use crate::markup::escape;
use std::fmt::Write as _;

pub use iofit_verdict::{limit_bars_from_prediction, LimitBar, LimitScope};

/// A named line of (x, y) points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// A colour kept for this series in every chart of a report (one job and direction, one
    /// colour); `None`: the palette's by position.
    pub colour: Option<&'static str>,
    /// Drawn dashed (a p99 beside its mean, in the mean's colour).
    pub dashed: bool,
}

impl Series {
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            name: name.into(),
            points,
            colour: None,
            dashed: false,
        }
    }

    /// The same colour in every chart: `index` into the palette.
    pub fn coloured(mut self, index: usize) -> Self {
        self.colour = Some(PALETTE[index % PALETTE.len()]);
        self
    }

    pub fn dashed(mut self) -> Self {
        self.dashed = true;
        self
    }

    fn colour_at(&self, index: usize) -> &'static str {
        self.colour.unwrap_or(PALETTE[index % PALETTE.len()])
    }
}

/// A span of the x axis shaded behind the lines (e.g. the intervals in which a workload was
/// over a design's limit), named in the legend.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    pub from_x: f64,
    pub to_x: f64,
    pub name: String,
    pub colour: &'static str,
}

/// Light fills for [`Band`]s: a red for the planned design, an amber for a cheaper one.
pub const BAND_RED: &str = "#F4B6A6";
pub const BAND_AMBER: &str = "#F8DE9E";

/// Colours chosen to stay apart for the common colour-vision deficiencies (Okabe-Ito).
pub const PALETTE: [&str; 7] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000",
];
const PASS_COLOUR: &str = "#009E73";
const FAIL_COLOUR: &str = "#D55E00";
const REQUIRED_COLOUR: &str = "#999999";
const BINDING_COLOUR: &str = "#D55E00";
const LIMIT_COLOUR: &str = "#56B4E9";
/// What a design uses of a limit: darker than the limit's bar, readable over the binding one.
const USED_COLOUR: &str = "#1F3A5F";

const WIDTH: f64 = 960.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 34.0;
const PLOT_HEIGHT: f64 = 220.0;
const BOTTOM: f64 = 46.0;

/// Ticks at 1, 2 or 5 x 10^n covering `[low, high]`, about `count` of them.
pub fn nice_ticks(low: f64, high: f64, count: usize) -> Vec<f64> {
    if !(low.is_finite() && high.is_finite()) || high <= low || count == 0 {
        return vec![low];
    }
    let raw = (high - low) / count as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|factor| factor * magnitude)
        .find(|step| *step >= raw)
        .unwrap_or(10.0 * magnitude);
    let first = (low / step).floor() * step;
    let mut ticks = Vec::new();
    let mut value = first;
    while value <= high + step * 1e-9 {
        ticks.push(if value.abs() < step * 1e-9 {
            0.0
        } else {
            value
        });
        value += step;
    }
    if ticks.last().is_some_and(|last| *last < high) {
        ticks.push(value);
    }
    ticks
}

/// A tick label without needless decimals: 20000 -> "20k", 0.25 -> "0.25".
pub fn tick_label(value: f64) -> String {
    let abs = value.abs();
    if abs >= 1e6 {
        trim_number(value / 1e6) + "M"
    } else if abs >= 1e4 {
        trim_number(value / 1e3) + "k"
    } else {
        trim_number(value)
    }
}

fn trim_number(value: f64) -> String {
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// About how wide a character of the 14 px bold chart title is.
const TITLE_CHAR_PX: f64 = 8.6;

fn svg_open(out: &mut String, height: f64, title: &str) {
    // A title longer than the chart is shown shortened; the whole is the SVG's title.
    let room = ((WIDTH - LEFT - RIGHT) / TITLE_CHAR_PX) as usize;
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 {WIDTH} {height}\" \
         width=\"{WIDTH}\" height=\"{height}\" role=\"img\" aria-label=\"{title}\">\
         <title>{title}</title>\
         <text x=\"{LEFT}\" y=\"20\" class=\"chart-title\">{shown}</text>",
        title = escape(title),
        shown = escape(&shorten(title, room))
    );
}

fn empty_chart(title: &str, message: &str) -> String {
    let mut out = String::new();
    svg_open(&mut out, 80.0, title);
    let _ = write!(
        out,
        "<text x=\"{LEFT}\" y=\"55\" class=\"chart-note\">{}</text></svg>",
        escape(message)
    );
    out
}

/// How a y axis maps values to pixels.
#[derive(Clone, Copy)]
struct Axis {
    low: f64,
    high: f64,
    log: bool,
}

impl Axis {
    fn position(self, value: f64, pixels_low: f64, pixels_high: f64) -> f64 {
        let (value, low, high) = if self.log {
            (
                value.max(self.low).log10(),
                self.low.log10(),
                self.high.log10(),
            )
        } else {
            (value, self.low, self.high)
        };
        let fraction = if high > low {
            (value - low) / (high - low)
        } else {
            0.5
        };
        pixels_low + fraction * (pixels_high - pixels_low)
    }

    fn ticks(self) -> Vec<f64> {
        if self.log {
            let mut ticks = Vec::new();
            let mut decade = 10f64.powf(self.low.log10().floor());
            while decade <= self.high * 1.0001 {
                if decade >= self.low * 0.9999 {
                    ticks.push(decade);
                }
                decade *= 10.0;
            }
            ticks
        } else {
            nice_ticks(self.low, self.high, 5)
        }
    }
}

/// A y axis for `values`: from zero, or logarithmic (by decades) when they span more than two
/// orders of magnitude, as latency tails do.
fn y_axis(values: impl Iterator<Item = f64>, allow_log: bool) -> Axis {
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    for value in values.filter(|v| v.is_finite()) {
        low = low.min(value);
        high = high.max(value);
    }
    if !high.is_finite() {
        return Axis {
            low: 0.0,
            high: 1.0,
            log: false,
        };
    }
    if allow_log && low > 0.0 && high / low > 100.0 {
        return Axis {
            low: 10f64.powf(low.log10().floor()),
            high: 10f64.powf(high.log10().ceil()),
            log: true,
        };
    }
    let high = if high <= 0.0 { 1.0 } else { high };
    let ticks = nice_ticks(0.0, high, 5);
    Axis {
        low: 0.0,
        high: *ticks.last().unwrap_or(&high),
        log: false,
    }
}

/// Legend entries laid out in rows that fit the chart's width: entry indices per row.
fn legend_rows(names: &[&str]) -> Vec<Vec<usize>> {
    let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
    let mut x = LEFT;
    for (index, name) in names.iter().enumerate() {
        let chars = name.chars().count() as f64;
        let row = rows.last_mut().expect("one row at least");
        if !row.is_empty() && x + 16.0 + chars * 7.0 > WIDTH - RIGHT {
            rows.push(Vec::new());
            x = LEFT;
        }
        rows.last_mut().expect("one row at least").push(index);
        x += 28.0 + chars * 7.0;
    }
    rows
}

/// Height the legend adds below the plot: one 22 px row, 18 px per extra row (many or long
/// series names wrap instead of running off the chart).
fn legend_height(names: &[&str]) -> f64 {
    // Every line is named, even a chart's only one: the legend says which job and direction.
    if !names.is_empty() {
        22.0 + 18.0 * (legend_rows(names).len() - 1) as f64
    } else {
        0.0
    }
}

/// Draws the legend; `y` is the baseline of its first row. A dashed series shows a dashed
/// swatch, so mean and p99 stay apart in the legend as in the plot.
fn legend(out: &mut String, names: &[&str], colours: &[&str], dashed: &[bool], y: f64) {
    for (row_index, row) in legend_rows(names).iter().enumerate() {
        let y = y + 18.0 * row_index as f64;
        let mut x = LEFT;
        for &index in row {
            let name = names[index];
            let colour = colours[index];
            if dashed.get(index).copied().unwrap_or(false) {
                let _ = write!(
                    out,
                    "<line x1=\"{x}\" y1=\"{y0}\" x2=\"{}\" y2=\"{y0}\" stroke=\"{colour}\" \
                     stroke-width=\"3\" stroke-dasharray=\"4 2\"/>",
                    x + 12.0,
                    y0 = y - 4.0
                );
            } else {
                let _ = write!(
                    out,
                    "<rect x=\"{x}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{colour}\"/>",
                    y - 10.0
                );
            }
            let _ = write!(
                out,
                "<text x=\"{}\" y=\"{}\" class=\"legend\">{}</text>",
                x + 16.0,
                y,
                escape(name)
            );
            x += 28.0 + name.chars().count() as f64 * 7.0;
        }
    }
}

/// Lines over a shared x axis (seconds), e.g. IOPS per interval of each job.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    line_chart_with(title, x_label, y_label, series, &[], false)
}

/// Like [`line_chart`], with `bands` shaded behind the lines and named in the legend.
pub fn line_chart_banded(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    bands: &[Band],
) -> String {
    line_chart_with(title, x_label, y_label, series, bands, false)
}

/// Like [`line_chart`], but the y axis turns logarithmic when values span more than two decades
/// (latency: a p99 line far above the mean).
pub fn line_chart_log_capable(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> String {
    line_chart_with(title, x_label, y_label, series, &[], true)
}

fn line_chart_with(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    bands: &[Band],
    allow_log: bool,
) -> String {
    let points = || series.iter().flat_map(|s| s.points.iter());
    if points().next().is_none() {
        return empty_chart(title, "no per-interval samples in these results");
    }
    let x_low = points().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let x_high = points().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let x_high = if x_high > x_low { x_high } else { x_low + 1.0 };
    let x_axis = Axis {
        low: x_low,
        high: x_high,
        log: false,
    };
    let y = y_axis(points().map(|p| p.1), allow_log);
    let mut names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    let mut colours: Vec<&str> = series
        .iter()
        .enumerate()
        .map(|(i, s)| s.colour_at(i))
        .collect();
    for band in bands {
        if !names.contains(&band.name.as_str()) {
            names.push(&band.name);
            colours.push(band.colour);
        }
    }
    let height = TOP + PLOT_HEIGHT + BOTTOM + legend_height(&names);
    let plot_bottom = TOP + PLOT_HEIGHT;
    let mut out = String::new();
    svg_open(&mut out, height, title);
    shade_bands(&mut out, x_axis, bands);
    frame(
        &mut out,
        x_axis,
        y,
        x_label,
        y_label,
        &nice_ticks(x_low, x_high, 6),
        tick_label,
    );
    for (index, line) in series.iter().enumerate() {
        let colour = line.colour_at(index);
        let pixels: Vec<(f64, f64)> = line
            .points
            .iter()
            .map(|&point| pixel(x_axis, y, plot_bottom, point))
            .collect();
        stroke_series(&mut out, &pixels, colour, line.dashed);
        // A one-point series draws no visible line: mark the point.
        if let [only] = pixels[..] {
            dot(&mut out, only, 3.0, colour);
        }
    }
    hover_points(&mut out, series, x_label, y_label, |point| {
        pixel(x_axis, y, plot_bottom, point)
    });
    if !names.is_empty() {
        let mut dashed: Vec<bool> = series.iter().map(|s| s.dashed).collect();
        dashed.resize(names.len(), false);
        legend(
            &mut out,
            &names,
            &colours,
            &dashed,
            TOP + PLOT_HEIGHT + BOTTOM + 14.0,
        );
    }
    out.push_str("</svg>");
    out
}

/// Most points a chart gives hover values for: beyond, the file would grow for little use.
const HOVER_POINTS_MAX: usize = 2_000;

/// An invisible target on every point whose tooltip says the series, x and y: hovering a line
/// shows its values without any script.
fn hover_points(
    out: &mut String,
    series: &[Series],
    x_label: &str,
    y_label: &str,
    place: impl Fn((f64, f64)) -> (f64, f64),
) {
    let total: usize = series.iter().map(|s| s.points.len()).sum();
    if total > HOVER_POINTS_MAX {
        return;
    }
    out.push_str("<g class=\"hover\">");
    for line in series {
        for &point in &line.points {
            let (px, py) = place(point);
            let _ = write!(
                out,
                "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"5\" fill=\"transparent\">\
                 <title>{}: {} {}, {} {}</title></circle>",
                escape(&line.name),
                escape(x_label),
                trim_number(point.0),
                escape(&value_text(point.1)),
                escape(y_label)
            );
        }
    }
    out.push_str("</g>");
}

/// A measured value to 3 significant digits at least, thousands grouped.
fn value_text(value: f64) -> String {
    if value.abs() >= 100.0 {
        iofit_model::units::group_thousands(value)
    } else {
        trim_number(value)
    }
}

/// The bands as full-height rectangles behind the plot, clipped to the x axis.
fn shade_bands(out: &mut String, x_axis: Axis, bands: &[Band]) {
    for band in bands {
        let from = band.from_x.max(x_axis.low);
        let to = band.to_x.min(x_axis.high);
        if to.partial_cmp(&from) != Some(std::cmp::Ordering::Greater) {
            continue;
        }
        let x0 = x_axis.position(from, LEFT, WIDTH - RIGHT);
        let x1 = x_axis.position(to, LEFT, WIDTH - RIGHT);
        let _ = write!(
            out,
            "<rect x=\"{x0:.1}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{PLOT_HEIGHT}\" \
             fill=\"{}\"><title>{}</title></rect>",
            (x1 - x0).max(1.0),
            band.colour,
            escape(&band.name)
        );
    }
}

/// Axes, grid and labels around the plot area.
/// Where a data point `(x, value)` lands on the plot, in pixels.
fn pixel(x_axis: Axis, y: Axis, plot_bottom: f64, (x, value): (f64, f64)) -> (f64, f64) {
    (
        x_axis.position(x, LEFT, WIDTH - RIGHT),
        y.position(value, plot_bottom, TOP),
    )
}

/// One series as a stroked line through its points (pixels).
fn stroke_series(out: &mut String, pixels: &[(f64, f64)], colour: &str, dashed: bool) {
    let mut path = String::new();
    for (px, py) in pixels {
        let _ = write!(
            path,
            "{}{px:.1},{py:.1}",
            if path.is_empty() { "M" } else { " L" }
        );
    }
    let _ = write!(
        out,
        "<path d=\"{path}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{}/>",
        if dashed {
            " stroke-dasharray=\"6 4\""
        } else {
            ""
        }
    );
}

/// A round marker on one point (pixels).
fn dot(out: &mut String, (px, py): (f64, f64), radius: f64, colour: &str) {
    let _ = write!(
        out,
        "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"{radius}\" fill=\"{colour}\"/>"
    );
}

fn frame(
    out: &mut String,
    x_axis: Axis,
    y: Axis,
    x_label: &str,
    y_label: &str,
    x_ticks: &[f64],
    x_tick_label: fn(f64) -> String,
) {
    let plot_bottom = TOP + PLOT_HEIGHT;
    for tick in y.ticks() {
        let py = y.position(tick, plot_bottom, TOP);
        let _ = write!(
            out,
            "<line x1=\"{LEFT}\" y1=\"{py:.1}\" x2=\"{}\" y2=\"{py:.1}\" class=\"grid\"/>\
             <text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{}</text>",
            WIDTH - RIGHT,
            LEFT - 6.0,
            py + 4.0,
            escape(&tick_label(tick))
        );
    }
    for tick in x_ticks {
        if *tick < x_axis.low - 1e-9 || *tick > x_axis.high + 1e-9 {
            continue;
        }
        let px = x_axis.position(*tick, LEFT, WIDTH - RIGHT);
        let _ = write!(
            out,
            "<line x1=\"{px:.1}\" y1=\"{plot_bottom}\" x2=\"{px:.1}\" y2=\"{}\" class=\"axis\"/>\
             <text x=\"{px:.1}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>",
            plot_bottom + 5.0,
            plot_bottom + 18.0,
            escape(&x_tick_label(*tick))
        );
    }
    let _ = write!(
        out,
        "<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{plot_bottom}\" class=\"axis\"/>\
         <line x1=\"{LEFT}\" y1=\"{plot_bottom}\" x2=\"{}\" y2=\"{plot_bottom}\" class=\"axis\"/>\
         <text x=\"{:.1}\" y=\"{}\" class=\"axis-label\" text-anchor=\"middle\">{}</text>\
         <text x=\"14\" y=\"{:.1}\" class=\"axis-label\" text-anchor=\"middle\" \
         transform=\"rotate(-90 14 {:.1})\">{}</text>",
        WIDTH - RIGHT,
        (LEFT + WIDTH - RIGHT) / 2.0,
        plot_bottom + 36.0,
        escape(x_label),
        TOP + PLOT_HEIGHT / 2.0,
        TOP + PLOT_HEIGHT / 2.0,
        escape(y_label)
    );
}

/// fio's percentile plots stretch the tail: x = -log10(1 - p/100), so 90 -> 1, 99 -> 2,
/// 99.9 -> 3. p = 100 has no place on that axis and is left out.
fn percentile_position(percentile: f64) -> Option<f64> {
    (0.0..100.0)
        .contains(&percentile)
        .then(|| -(1.0 - percentile / 100.0).log10())
}

/// The latency percentile curve: one line per (job, direction), latency (ms) against
/// percentile on fio's stretched tail axis; the y axis turns logarithmic when latencies span more
/// than two decades.
pub fn percentile_chart(title: &str, curves: &[Series]) -> String {
    let mapped: Vec<Series> = curves
        .iter()
        .map(|curve| Series {
            colour: curve.colour,
            dashed: curve.dashed,
            name: curve.name.clone(),
            points: curve
                .points
                .iter()
                .filter_map(|(p, value)| percentile_position(*p).map(|x| (x, *value)))
                .collect(),
        })
        .filter(|curve| !curve.points.is_empty())
        .collect();
    if mapped.is_empty() {
        return empty_chart(title, "no latency percentiles in these results");
    }
    let points = || mapped.iter().flat_map(|s| s.points.iter());
    let x_high = points().map(|p| p.0).fold(0.0, f64::max).max(2.0).ceil();
    let x_axis = Axis {
        low: 0.0,
        high: x_high,
        log: false,
    };
    let y = y_axis(points().map(|p| p.1), true);
    let names: Vec<&str> = mapped.iter().map(|s| s.name.as_str()).collect();
    let height = TOP + PLOT_HEIGHT + BOTTOM + legend_height(&names);
    let plot_bottom = TOP + PLOT_HEIGHT;
    let mut out = String::new();
    svg_open(&mut out, height, title);
    // Ticks at 0, 90, 99, 99.9 ... placed where the stretched axis puts them.
    let mut ticks: Vec<f64> = (0..=x_high as i32).map(f64::from).collect();
    // The median, where the stretched axis puts it (-log10(0.5)).
    ticks.insert(1, -(0.5f64).log10());
    frame(
        &mut out,
        x_axis,
        y,
        "percentile",
        "latency (ms)",
        &ticks,
        |position| {
            if position == 0.0 {
                "0".to_string()
            } else {
                trim_number(100.0 - 100.0 * 10f64.powf(-position))
            }
        },
    );
    for (index, curve) in mapped.iter().enumerate() {
        let colour = curve.colour_at(index);
        let pixels: Vec<(f64, f64)> = curve
            .points
            .iter()
            .map(|&point| pixel(x_axis, y, plot_bottom, point))
            .collect();
        // Every measured percentile is a point of its own: mark each.
        for &point in &pixels {
            dot(&mut out, point, 2.5, colour);
        }
        stroke_series(&mut out, &pixels, colour, curve.dashed);
    }
    if !mapped.is_empty() {
        let colours: Vec<&str> = mapped
            .iter()
            .enumerate()
            .map(|(i, s)| s.colour_at(i))
            .collect();
        let dashed: Vec<bool> = mapped.iter().map(|s| s.dashed).collect();
        legend(
            &mut out,
            &names,
            &colours,
            &dashed,
            TOP + PLOT_HEIGHT + BOTTOM + 14.0,
        );
    }
    out.push_str("</svg>");
    out
}

const BAR_ROW: f64 = 26.0;
const BAR_LEFT: f64 = 230.0;
const MAX_BAR_LEFT: f64 = 420.0;
const LABEL_CHAR_PX: f64 = 6.8;
/// Bold text against regular, in the report's sans-serif at 12 px.
const BOLD_WIDTH: f64 = 1.12;

/// `text` cut to `max_chars` characters, the last one an ellipsis, when longer.
fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars || max_chars < 2 {
        text.to_string()
    } else {
        let mut short: String = text.chars().take(max_chars - 1).collect();
        short.push('…');
        short
    }
}
const BAR_RIGHT: f64 = 150.0;
/// Room right of the longest limit bar for its label ("12,906.5 of 15,000 IOPS used — binding").
const LIMIT_BAR_RIGHT: f64 = 290.0;

/// Horizontal bars of one unit's limits; the binding one is drawn in a warning colour and
/// labelled "binding". `requirement`, when given, is drawn as a dashed line across the bars.
pub fn limit_chart(title: &str, bars: &[LimitBar], requirement: Option<f64>) -> String {
    if bars.is_empty() {
        return empty_chart(title, "no limits given");
    }
    let unit = bars[0].unit.as_str();
    let high = bars
        .iter()
        .map(|bar| bar.value)
        .chain(requirement)
        .fold(0.0, f64::max);
    let axis = Axis {
        low: 0.0,
        high: if high > 0.0 { high } else { 1.0 },
        log: false,
    };
    let right_edge = WIDTH - LIMIT_BAR_RIGHT;
    // Room for the longest name (about 7 px a character at 12 px), within bounds; longer names
    // are shortened with an ellipsis and keep their full text as a tooltip.
    // The binding label is bold, about a tenth wider: measured so that it is not cut off at
    // the left edge.
    let widest_px = bars
        .iter()
        .map(|bar| {
            let per_char = if bar.binding {
                LABEL_CHAR_PX * BOLD_WIDTH
            } else {
                LABEL_CHAR_PX
            };
            bar.name.chars().count() as f64 * per_char
        })
        .fold(0.0, f64::max);
    // Names too long for the left column go on a line of their own above their bar, whole:
    // a cut name ("data: queue depth: 15 outstanding IOs / 1 ms (Little...") hides the fact.
    let stacked = widest_px + 16.0 > MAX_BAR_LEFT;
    let (bar_left, row, label_drop) = if stacked {
        (LEFT, BAR_ROW + 16.0, 16.0)
    } else {
        (
            (widest_px + 16.0).clamp(BAR_LEFT, MAX_BAR_LEFT),
            BAR_ROW,
            0.0,
        )
    };
    let max_chars = |bar: &LimitBar| {
        let per_char = if bar.binding {
            LABEL_CHAR_PX * BOLD_WIDTH
        } else {
            LABEL_CHAR_PX
        };
        let room = if stacked {
            WIDTH - RIGHT - LEFT
        } else {
            bar_left - 16.0
        };
        (room / per_char) as usize
    };
    let height = TOP + bars.len() as f64 * row + if requirement.is_some() { 30.0 } else { 8.0 };
    let mut out = String::new();
    svg_open(&mut out, height, title);
    for (index, bar) in bars.iter().enumerate() {
        let label_y = TOP + index as f64 * row + 12.0;
        let y = TOP + index as f64 * row + label_drop;
        let width = axis.position(bar.value.max(0.0), 0.0, right_edge - bar_left);
        let colour = if bar.binding {
            BINDING_COLOUR
        } else {
            LIMIT_COLOUR
        };
        let amount = match bar.used {
            Some(used) => format!(
                "{} of {} {unit} used",
                tick_label_exact(used),
                tick_label_exact(bar.value)
            ),
            None => format!("{} {unit}", tick_label_exact(bar.value)),
        };
        let label = if bar.binding {
            format!("{amount} — binding")
        } else {
            amount
        };
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"bar-label{}\" text-anchor=\"{}\">{}<title>{}</title></text>\
             <rect x=\"{bar_left:.1}\" y=\"{:.1}\" width=\"{width:.1}\" height=\"{:.1}\" fill=\"{colour}\"{}/>\
             <text x=\"{:.1}\" y=\"{:.1}\" class=\"bar-value{}\">{}</text>",
            if stacked { bar_left } else { bar_left - 8.0 },
            if stacked { label_y } else { y + 16.0 },
            if bar.binding { " binding" } else { "" },
            if stacked { "start" } else { "end" },
            escape(&shorten(&bar.name, max_chars(bar))),
            escape(&bar.name),
            y + 4.0,
            BAR_ROW - 8.0,
            if bar.binding {
                " stroke=\"#000\" stroke-width=\"1.5\""
            } else {
                ""
            },
            bar_left + width + 6.0,
            y + 16.0,
            if bar.binding { " binding" } else { "" },
            escape(&label)
        );
        // What the design uses, drawn darker inside the limit's bar.
        if let Some(used) = bar.used.filter(|u| *u > 0.0) {
            let used_width =
                axis.position(used.min(bar.value).max(0.0), 0.0, right_edge - bar_left);
            let _ = write!(
                out,
                "<rect x=\"{bar_left:.1}\" y=\"{:.1}\" width=\"{used_width:.1}\" height=\"{:.1}\" \
                 fill=\"{USED_COLOUR}\" fill-opacity=\"0.75\"><title>used {}</title></rect>",
                y + 8.0,
                BAR_ROW - 16.0,
                escape(&tick_label_exact(used))
            );
        }
    }
    if let Some(required) = requirement {
        let x = bar_left + axis.position(required, 0.0, right_edge - bar_left);
        let bottom = TOP + bars.len() as f64 * row;
        let _ = write!(
            out,
            "<line x1=\"{x:.1}\" y1=\"{}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\" class=\"required-line\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"middle\">required {} {unit}</text>",
            TOP - 4.0,
            bottom + 16.0,
            escape(&tick_label_exact(required))
        );
    }
    out.push_str("</svg>");
    out
}

/// A value with thousands separators, for bar labels where rounding to "20k" would hide facts.
fn tick_label_exact(value: f64) -> String {
    iofit_model::units::group_thousands(value)
}

/// One metric for the required-vs-measured chart.
#[derive(Clone, Debug, PartialEq)]
pub struct PairedBar {
    pub label: String,
    pub required: f64,
    pub measured: f64,
    /// Printed next to each bar ("16,000 IOPS").
    pub required_text: String,
    pub measured_text: String,
    pub pass: bool,
}

/// Required (grey) and measured (green when it passes, orange when it fails) per metric. Each
/// metric is scaled to its own larger value, since IOPS, MB/s and ms share no axis.
pub fn required_vs_measured_chart(title: &str, bars: &[PairedBar]) -> String {
    if bars.is_empty() {
        return empty_chart(title, "nothing to compare");
    }
    let row = 2.0 * BAR_ROW + 10.0;
    let height = TOP + bars.len() as f64 * row + 4.0;
    let span = WIDTH - BAR_RIGHT - BAR_LEFT;
    let mut out = String::new();
    svg_open(&mut out, height, title);
    for (index, bar) in bars.iter().enumerate() {
        let y = TOP + index as f64 * row;
        let high = bar.required.max(bar.measured);
        let scale = |value: f64| {
            if high > 0.0 {
                (value.max(0.0) / high) * span
            } else {
                0.0
            }
        };
        let measured_colour = if bar.pass { PASS_COLOUR } else { FAIL_COLOUR };
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{:.1}\" class=\"bar-label\" text-anchor=\"end\">{}</text>\
             <text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">required</text>\
             <rect x=\"{BAR_LEFT}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{REQUIRED_COLOUR}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" class=\"bar-value\">{}</text>\
             <text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">measured</text>\
             <rect x=\"{BAR_LEFT}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{measured_colour}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" class=\"bar-value\">{}{}</text>",
            BAR_LEFT - 78.0,
            y + 30.0,
            escape(&bar.label),
            BAR_LEFT - 8.0,
            y + 16.0,
            y + 4.0,
            scale(bar.required),
            BAR_ROW - 8.0,
            BAR_LEFT + scale(bar.required) + 6.0,
            y + 16.0,
            escape(&bar.required_text),
            BAR_LEFT - 8.0,
            y + 16.0 + BAR_ROW,
            y + 4.0 + BAR_ROW,
            scale(bar.measured),
            BAR_ROW - 8.0,
            BAR_LEFT + scale(bar.measured) + 6.0,
            y + 16.0 + BAR_ROW,
            escape(&bar.measured_text),
            if bar.pass { "" } else { " ✗" }
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_legend_wraps_inside_the_chart() {
        let series: Vec<Series> = (0..8)
            .map(|i| {
                Series::new(
                    format!("max combined IOPS: RandomWrites_8K@/tmp/volume-{i}"),
                    vec![(0.5, 1.0), (1.0, 2.0)],
                )
            })
            .collect();
        let svg = line_chart("IOPS per interval", "time (s)", "IOPS", &series);
        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        let rows = legend_rows(&names).len();
        assert!(rows >= 4, "{rows} rows");
        let height = TOP + PLOT_HEIGHT + BOTTOM + 22.0 + 18.0 * (rows - 1) as f64;
        assert!(svg.contains(&format!("height=\"{height}\"")), "{svg}");
        // Every legend label starts inside the chart and every name is drawn once.
        for part in svg.split("class=\"legend\">").skip(1) {
            assert!(names.iter().any(|n| part.starts_with(&escape(n))));
        }
        for chunk in svg.split("<text x=\"").skip(1) {
            if !chunk.contains("class=\"legend\"")
                || chunk.find("class=\"legend\"") > chunk.find('>')
            {
                continue;
            }
            let x: f64 = chunk.split('"').next().unwrap().parse().unwrap();
            let name = chunk.split('>').nth(1).unwrap().trim_end_matches("</text");
            let end = x + name.chars().count() as f64 * 7.0;
            assert!(
                end <= WIDTH - RIGHT + 1.0,
                "legend text '{name}' runs to x {end}"
            );
        }
    }

    #[test]
    fn ticks_are_round_numbers() {
        assert_eq!(
            nice_ticks(0.0, 100.0, 5),
            vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        assert_eq!(nice_ticks(0.0, 17.0, 5), vec![0.0, 5.0, 10.0, 15.0, 20.0]);
        assert_eq!(tick_label(20000.0), "20k");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(2_500_000.0), "2.5M");
    }

    #[test]
    fn percentile_axis_stretches_the_tail_like_fio() {
        assert!((percentile_position(90.0).unwrap() - 1.0).abs() < 1e-9);
        assert!((percentile_position(99.0).unwrap() - 2.0).abs() < 1e-9);
        assert!((percentile_position(99.9).unwrap() - 3.0).abs() < 1e-9);
        assert_eq!(percentile_position(100.0), None);
    }

    #[test]
    fn binding_limit_is_marked_and_text_escaped() {
        let svg = limit_chart(
            "limits <IOPS>",
            &[
                LimitBar::new("VM uncached", 3200.0, "IOPS", true).scope(LimitScope::Vm),
                LimitBar::new("1 x P30 & co", 5000.0, "IOPS", false).scope(LimitScope::Disk),
            ],
            Some(4000.0),
        );
        assert!(svg.contains("limits &lt;IOPS&gt;"));
        assert!(svg.contains("1 x P30 &amp; co"));
        assert!(svg.contains("3,200 IOPS — binding"));
        assert!(svg.contains("required 4,000 IOPS"));
        assert_eq!(svg.matches(BINDING_COLOUR).count(), 1);
        assert!(!svg.contains("<script"));
    }

    #[test]
    fn log_axis_for_wide_latency_ranges() {
        let axis = y_axis([0.05, 120.0].into_iter(), true);
        assert!(axis.log);
        assert_eq!((axis.low, axis.high), (0.01, 1000.0));
        assert_eq!(axis.ticks(), vec![0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]);
        let axis = y_axis([0.5, 2.0].into_iter(), true);
        assert!(!axis.log);
    }

    #[test]
    fn a_one_point_series_is_marked_and_percentiles_are_dotted() {
        let one = Series::new("a", vec![(1.0, 5.0)]);
        let svg = line_chart("IOPS", "s", "IOPS", std::slice::from_ref(&one));
        // One marker, and one hover target with the point's values.
        assert_eq!(svg.matches("<circle").count(), 2, "{svg}");
        assert!(svg.contains("<title>a: s 1, 5 IOPS</title>"), "{svg}");
        assert!(svg.contains(" r=\"3\" "), "{svg}");
        assert!(svg.contains("<path d=\"M"), "{svg}");
        let two = Series::new("a", vec![(1.0, 5.0), (2.0, 6.0)]);
        let svg = line_chart("IOPS", "s", "IOPS", &[two]);
        assert_eq!(svg.matches(" r=\"3\" ").count(), 0, "{svg}");
        assert_eq!(svg.matches("fill=\"transparent\"").count(), 2, "{svg}");
        assert!(svg.contains(" L"), "{svg}");
        let curve = Series::new("read", vec![(50.0, 0.2), (99.0, 1.5), (99.9, 4.0)]);
        let svg = percentile_chart("p", &[curve]);
        assert_eq!(svg.matches(" r=\"2.5\" ").count(), 3, "{svg}");
    }

    #[test]
    fn empty_inputs_say_so() {
        assert!(line_chart("IOPS", "s", "IOPS", &[]).contains("no per-interval samples"));
        assert!(percentile_chart("p", &[]).contains("no latency percentiles"));
    }
}
