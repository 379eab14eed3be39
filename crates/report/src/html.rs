//! One self-contained HTML report: inline CSS, inline SVG charts, no scripts and nothing fetched
//! from the network, so it opens offline and can be mailed as one file.
//!
//! Build it from whatever a command has, in order; the same content renders as Markdown and CSV:
//!
//! ```
//! use iofit_report::html::HtmlReport;
//! use iofit_report::chart::{LimitBar, LimitScope};
//!
//! let report = HtmlReport::new("DS13 with 4 x P30")
//!     .section("Design", "Four P30 disks striped, host caching None.")
//!     .limits(&[
//!         LimitBar::new("VM uncached IOPS", 25_600.0, "IOPS", false).scope(LimitScope::Vm),
//!         LimitBar::new("4 x P30 IOPS", 20_000.0, "IOPS", true).scope(LimitScope::Disk),
//!     ]);
//! let html = report.render();
//! assert!(html.starts_with("<!DOCTYPE html>"));
//! assert!(html.contains("20,000 IOPS — binding"));
//! assert!(!html.contains("<script"));
//! assert!(report.render_markdown().contains("| 4 x P30 IOPS | 20,000 | IOPS | binding |"));
//! ```

use crate::chart::{self, LimitBar, PairedBar, Series};
use crate::compare::{Comparison, Metric, Verdict};
use iofit_model::requirements::{Percentiles, Requirements};
use iofit_model::units::group_thousands;
use iofit_predict::{LimitStatus, Prediction};
use iofit_stats::{Ddir, DirectionResult, IntervalSample, JobResult, RunResult};
use std::fmt::Write as _;

pub use crate::document::{Block, Document, Table};
pub use crate::markup::escape;

/// The format-neutral [`Document`] under its first name (it began as the HTML report).
pub type HtmlReport = Document;

impl Document {
    /// The whole report as one HTML document.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(64 * 1024);
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n\
             <h1>{title}</h1>\n<p class=\"byline\">iofit report</p>\n",
            title = escape(&self.title)
        );
        for block in &self.blocks {
            match block {
                Block::Text { heading, body } => render_text_block(&mut out, heading, body),
                Block::Run(run) => render_run(&mut out, run),
                Block::Comparison(comparison) => render_comparison(&mut out, comparison),
                Block::Limits { title, bars } => render_limits(&mut out, title, bars),
                Block::Requirements(requirements) => render_requirements(&mut out, requirements),
                Block::Prediction(prediction) => render_prediction(&mut out, prediction),
                Block::Table(table) => render_table(&mut out, table),
                Block::Summary(summary) => summary.render_html(&mut out),
                Block::Chart {
                    title,
                    x_label,
                    y_label,
                    series,
                    bands,
                } => {
                    let _ = writeln!(out, "<h2>{}</h2>", escape(title));
                    out.push_str(&crate::chart::line_chart_banded(
                        title, x_label, y_label, series, bands,
                    ));
                    out.push('\n');
                }
            }
        }
        let sortable = self
            .blocks
            .iter()
            .any(|b| matches!(b, Block::Table(t) if t.sortable));
        if sortable {
            out.push_str(SORT_SCRIPT);
        }
        out.push_str("</main>\n</body>\n</html>\n");
        out
    }
}

/// Sorts a `table.sortable` by the column whose header is clicked (again: the other way).
/// Inline and small: the report stays one file that loads nothing.
const SORT_SCRIPT: &str = "<script>\
document.querySelectorAll('table.sortable th').forEach(function(th,i){\
th.tabIndex=0;th.title='sort by this column';\
th.addEventListener('click',function(){\
var body=th.closest('table').tBodies[0],rows=[].slice.call(body.rows);\
var dir=th.dataset.dir==='up'?-1:1;th.dataset.dir=dir===1?'up':'down';\
function key(r){var t=r.cells[i]?r.cells[i].textContent.trim():'';\
var n=parseFloat(t.replace(/^[^0-9.-]+/,'').replace(/,/g,''));return isNaN(n)?t:n;}\
rows.sort(function(a,b){var x=key(a),y=key(b);\
return (typeof x==='number'&&typeof y==='number'?x-y:String(x).localeCompare(String(y)))*dir;});\
rows.forEach(function(r){body.appendChild(r);});});});\
</script>\n";

const STYLE: &str = "\
body{margin:0;background:#fafafa;color:#1a1a1a;font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif}\
main{max-width:1120px;margin:0 auto;padding:24px 32px 48px}\
h1{font-size:26px;margin:0 0 2px}h2{font-size:20px;margin:32px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}\
h3{font-size:16px;margin:20px 0 6px}h4{font-size:14px;margin:14px 0 4px}.byline{color:#666;margin:0 0 16px}\
table{border-collapse:collapse;margin:8px 0 16px;background:#fff;font-variant-numeric:tabular-nums}\
caption{text-align:left;font-weight:600;padding:4px 0}\
th,td{border:1px solid #d8d8d8;padding:4px 10px;text-align:left;vertical-align:top}\
th{background:#f0f0f0}table.sortable th{cursor:pointer}table.sortable th::after{content:' \\2195';color:#999}td.num{text-align:right;white-space:nowrap}\
tr.fail td{background:#fde8e1}td.pass{color:#00734f;font-weight:600}td.fail{color:#b23c00;font-weight:700}\
.verdict{display:inline-block;padding:6px 14px;border-radius:4px;font-weight:700;color:#fff;margin:6px 0}\
.verdict.pass{background:#00875f}.verdict.fail{background:#c0471a}\
ul.advice li{margin:4px 0}.note{color:#555;font-size:13px}\
svg.chart{display:block;max-width:100%;height:auto;background:#fff;border:1px solid #e2e2e2;margin:8px 0 16px}\
svg .chart-title{font-size:14px;font-weight:600;fill:#1a1a1a}svg .chart-note{font-size:13px;fill:#666}\
svg .tick{font-size:11px;fill:#444}svg .axis-label{font-size:12px;fill:#333}\
svg .legend{font-size:12px;fill:#333}svg .grid{stroke:#e6e6e6;stroke-width:1}\
svg .axis{stroke:#888;stroke-width:1}svg .bar-label{font-size:12px;fill:#222}\
svg .bar-value{font-size:12px;fill:#222}svg .binding{font-weight:700;fill:#b23c00}\
svg .required-line{stroke:#333;stroke-width:1.5;stroke-dasharray:5 4}\
p,li,dd,dt,h1,h2,h3,h4{overflow-wrap:anywhere}td,th,caption{overflow-wrap:break-word}\
.answer{background:#fff;border:2px solid #0072B2;border-radius:6px;padding:8px 16px 12px;margin:12px 0 20px}\
.answer h2{margin:4px 0 8px;border:0;padding:0}.answer h3{margin:4px 0;font-size:14px;color:#555;text-transform:uppercase;letter-spacing:.04em}\
.answer-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(230px,1fr));gap:10px 18px}\
.answer .cell{min-width:0}.answer p{margin:2px 0}.answer .big{font-size:18px;font-weight:700}\
.answer dl{margin:0;display:grid;grid-template-columns:auto 1fr;gap:2px 8px}.answer dt{font-weight:600}.answer dd{margin:0}\
.answer ol.next{margin:4px 0;padding-left:22px}\
.cache-toggle input{margin:0 2px 0 0}.cache-toggle label{margin-right:10px;font-size:13px}\
.when-warm{display:none}#cache-warm:checked~.when-warm{display:block}#cache-warm:checked~.when-cold{display:none}\
.scroll{overflow-x:auto;max-width:100%}\
@media (max-width:600px){main{padding:12px 10px 32px}h1{font-size:21px}th,td{padding:3px 5px}}\
";

fn render_text_block(out: &mut String, heading: &str, body: &str) {
    let _ = writeln!(out, "<h2>{}</h2>", escape(heading));
    for paragraph in body.split("\n\n").filter(|p| !p.trim().is_empty()) {
        let _ = writeln!(out, "<p>{}</p>", escape(paragraph.trim()));
    }
}

fn render_table(out: &mut String, table: &Table) {
    // Wide tables scroll inside their own box on a narrow screen instead of widening the page.
    out.push_str(if table.sortable {
        "<div class=\"scroll\"><table class=\"sortable\">"
    } else {
        "<div class=\"scroll\"><table>"
    });
    if !table.caption.is_empty() {
        let _ = write!(out, "<caption>{}</caption>", escape(&table.caption));
    }
    out.push_str("<thead><tr>");
    for header in &table.headers {
        let _ = write!(out, "<th>{}</th>", escape(header));
    }
    out.push_str("</tr></thead><tbody>\n");
    for row in &table.rows {
        out.push_str("<tr>");
        for cell in row {
            let class = if looks_numeric(cell) {
                " class=\"num\""
            } else {
                ""
            };
            let _ = write!(out, "<td{class}>{}</td>", escape(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

fn looks_numeric(cell: &str) -> bool {
    let trimmed = cell
        .trim()
        .trim_start_matches(['<', '>', '=', ' ', '+', '-']);
    !trimmed.is_empty()
        && trimmed.starts_with(|c: char| c.is_ascii_digit())
        && trimmed
            .chars()
            .all(|c| c.is_ascii_digit() || ",.% ±x/".contains(c) || c.is_alphabetic())
        && trimmed.chars().filter(|c| c.is_alphabetic()).count() <= 4
}

/// The rows of the jobs table: one per job and direction that did IO.
pub(crate) fn job_rows(run: &RunResult) -> Table {
    let mut table = Table::new(
        "",
        &[
            "job",
            "group",
            "rw",
            "engine",
            "iodepth x clones",
            "direction",
            "IOs",
            "IOPS",
            "MB/s",
            "lat avg ms",
            "lat p99 ms",
            "runtime s",
        ],
    );
    for job in &run.jobs {
        for (name, direction) in [("read", &job.read), ("write", &job.write)] {
            if direction.ios == 0 {
                continue;
            }
            table.rows.push(vec![
                job.name.clone(),
                job.group_id.to_string(),
                job.rw
                    .map(|rw| format!("{rw:?}").to_ascii_lowercase())
                    .unwrap_or_else(|| "-".into()),
                engine_text(job),
                format!("{} x {}", job.iodepth, job.clones),
                name.to_string(),
                group_thousands(direction.ios as f64),
                group_thousands(direction.iops),
                format!("{:.1}", direction.bandwidth_bytes_per_second / 1e6),
                direction_mean_ms(direction)
                    .map(|ms| format!("{ms:.3}"))
                    .unwrap_or_else(|| "-".into()),
                direction_p99_ms(direction)
                    .map(|ms| format!("{ms:.3}"))
                    .unwrap_or_else(|| "-".into()),
                format!("{:.1}", direction.runtime_ns as f64 / 1e9),
            ]);
        }
    }
    table
}

fn engine_text(job: &JobResult) -> String {
    match (job.engine_requested, job.engine_used) {
        (Some(asked), Some(used)) if asked != used => {
            format!("{} (ran {})", asked.fio_name(), used.fio_name())
        }
        (_, Some(used)) => used.fio_name().to_string(),
        (Some(asked), None) => asked.fio_name().to_string(),
        (None, None) => "-".to_string(),
    }
}

fn direction_mean_ms(direction: &DirectionResult) -> Option<f64> {
    if direction.total_latency.mean_ns > 0.0 {
        Some(direction.total_latency.mean_ns / 1e6)
    } else if direction.completion_latency.mean_ns > 0.0 {
        Some((direction.completion_latency.mean_ns + direction.submission_latency.mean_ns) / 1e6)
    } else {
        None
    }
}

fn direction_p99_ms(direction: &DirectionResult) -> Option<f64> {
    direction
        .total_latency
        .percentile_ns(99.0)
        .or_else(|| direction.completion_latency.percentile_ns(99.0))
        .map(|ns| ns as f64 / 1e6)
}

/// The percentile curve of a direction: total latency where the results have its percentiles,
/// else completion latency (fio's default).
fn percentile_curve(direction: &DirectionResult) -> Vec<(f64, f64)> {
    let summary = if direction.total_latency.percentiles_ns.is_empty() {
        &direction.completion_latency
    } else {
        &direction.total_latency
    };
    summary
        .percentiles_ns
        .iter()
        .map(|(p, ns)| (*p, *ns as f64 / 1e6))
        .collect()
}

/// The samples worth drawing: a run's last interval is often a sliver (a few ms, or 0 ms when
/// the run stops just after a boundary), and a rate over a sliver is noise. Samples shorter than
/// half the longest interval are left out.
pub(crate) fn full_intervals(series: &[IntervalSample]) -> impl Iterator<Item = &IntervalSample> {
    let longest = series.iter().map(|s| s.interval_ms).max().unwrap_or(0);
    series
        .iter()
        .filter(move |s| s.interval_ms > 0 && s.interval_ms * 2 >= longest)
}

/// Per-interval IOPS, MB/s, mean and p99 latency of every job, x in seconds at interval end.
pub(crate) struct TimeSeries {
    pub iops: Vec<Series>,
    pub throughput_mb_s: Vec<Series>,
    pub latency_ms: Vec<Series>,
}

#[cfg(test)]
pub(crate) fn time_series(run: &RunResult) -> TimeSeries {
    let jobs: Vec<&JobResult> = run.jobs.iter().collect();
    time_series_of(&jobs, &SeriesColours::of(run))
}

/// The directions a job did IO in, in words: "reads", "writes", "reads and writes".
fn directions_words(job: &JobResult) -> String {
    let mut words = Vec::new();
    for (ios, word) in [
        (job.read.ios, "reads"),
        (job.write.ios, "writes"),
        (job.trim.ios, "trims"),
    ] {
        if ios > 0 {
            words.push(word);
        }
    }
    match words.len() {
        0 => "no IO".into(),
        1 => words[0].to_string(),
        _ => format!(
            "{} and {}",
            words[..words.len() - 1].join(", "),
            words[words.len() - 1]
        ),
    }
}

/// [`time_series`] of some of a run's jobs, coloured as in every chart of the run.
fn time_series_of(jobs: &[&JobResult], colours: &SeriesColours) -> TimeSeries {
    let mut series = TimeSeries {
        iops: Vec::new(),
        throughput_mb_s: Vec::new(),
        latency_ms: Vec::new(),
    };
    for job in jobs {
        let samples: Vec<&IntervalSample> = full_intervals(&job.series).collect();
        if samples.is_empty() {
            continue;
        }
        let at = |sample: &IntervalSample| (sample.start_ms + sample.interval_ms) as f64 / 1e3;
        let seconds = |sample: &IntervalSample| (sample.interval_ms.max(1)) as f64 / 1e3;
        // Directions apart: a mixed job's directions meet different limits.
        for (direction, ddir) in [
            ("read", Ddir::Read),
            ("write", Ddir::Write),
            ("trim", Ddir::Trim),
        ] {
            let Some(colour) = colours.index(&job.name, direction) else {
                continue;
            };
            let ios = |s: &IntervalSample| s.of(ddir).0;
            let bytes = |s: &IntervalSample| s.of(ddir).1;
            let name = format!("{} {direction}", job.name);
            series.iops.push(
                Series::new(
                    name.clone(),
                    samples
                        .iter()
                        .map(|s| (at(s), ios(s) as f64 / seconds(s)))
                        .collect(),
                )
                .coloured(colour),
            );
            series.throughput_mb_s.push(
                Series::new(
                    name,
                    samples
                        .iter()
                        .map(|s| (at(s), bytes(s) as f64 / seconds(s) / 1e6))
                        .collect(),
                )
                .coloured(colour),
            );
        }
        // Interval latency (fio's lat) covers every direction of the job: the legend says
        // which it did. Mean and p99 each have a colour of their own (p99 dashed too).
        let with_ios = || samples.iter().filter(|s| s.ios() > 0);
        let words = directions_words(job);
        let (mean_colour, p99_colour) = colours.latency(&job.name);
        series.latency_ms.push(
            Series::new(
                format!("{} mean lat ({words})", job.name),
                with_ios()
                    .map(|s| (at(s), s.latency_mean_ns / 1e6))
                    .collect(),
            )
            .coloured(mean_colour),
        );
        series.latency_ms.push(
            Series::new(
                format!("{} p99 lat ({words})", job.name),
                with_ios()
                    .map(|s| (at(s), s.latency_p99_ns as f64 / 1e6))
                    .collect(),
            )
            .coloured(p99_colour)
            .dashed(),
        );
    }
    series
}

/// One colour per (job, direction) for every chart of a run: its position among the
/// directions that did IO, in job order, reads first.
struct SeriesColours(Vec<(String, &'static str)>);

impl SeriesColours {
    fn of(run: &RunResult) -> SeriesColours {
        let mut keys = Vec::new();
        for job in &run.jobs {
            if job.read.ios > 0 {
                keys.push((job.name.clone(), "read"));
            }
            if job.write.ios > 0 {
                keys.push((job.name.clone(), "write"));
            }
            if job.trim.ios > 0 {
                keys.push((job.name.clone(), "trim"));
            }
        }
        SeriesColours(keys)
    }

    fn index(&self, job: &str, direction: &str) -> Option<usize> {
        self.0.iter().position(|(j, d)| j == job && *d == direction)
    }

    /// The mean and p99 latency colours of a job: the mean in the colour of the job's first
    /// direction, the p99 in a palette colour no direction uses (when the palette has one).
    fn latency(&self, job: &str) -> (usize, usize) {
        let first = ["read", "write", "trim"]
            .iter()
            .find_map(|d| self.index(job, d))
            .unwrap_or(0);
        let jobs: Vec<&str> = self.0.iter().fold(Vec::new(), |mut names, (j, _)| {
            if !names.contains(&j.as_str()) {
                names.push(j.as_str());
            }
            names
        });
        let job_index = jobs.iter().position(|j| *j == job).unwrap_or(0);
        (first, self.0.len() + job_index)
    }
}

fn render_run(out: &mut String, run: &RunResult) {
    out.push_str("<h2>Benchmark results</h2>\n");
    let mut facts = Vec::new();
    if !run.tool.is_empty() {
        facts.push(format!("{} {}", run.tool, run.version).trim().to_string());
    }
    if !run.hostname.is_empty() {
        facts.push(format!("host {}", run.hostname));
    }
    if run.timestamp_s > 0 {
        facts.push(format!(
            "started {} UTC",
            crate::fio_json::ctime_utc(run.timestamp_s)
        ));
    }
    facts.push(format!("{} job result(s)", run.jobs.len()));
    let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(&facts.join(" · ")));
    render_table(out, &job_rows(run));
    for job in &run.jobs {
        if let Some(error) = &job.error {
            let _ = writeln!(
                out,
                "<p class=\"note\">job {} stopped on an error: {}</p>",
                escape(&job.name),
                escape(error)
            );
        }
        if job.interrupted {
            let _ = writeln!(
                out,
                "<p class=\"note\">job {} was interrupted; its numbers cover what completed.</p>",
                escape(&job.name)
            );
        }
    }
    over_time(out, run);
    let colours = SeriesColours::of(run);
    let mut curves = Vec::new();
    for job in &run.jobs {
        for (name, direction) in [("read", &job.read), ("write", &job.write)] {
            if let (true, Some(colour)) = (direction.ios > 0, colours.index(&job.name, name)) {
                curves.push(
                    Series::new(format!("{} {name}", job.name), percentile_curve(direction))
                        .coloured(colour),
                );
            }
        }
    }
    out.push_str("<h3>Latency percentiles</h3>\n");
    out.push_str(&chart::percentile_chart("Latency by percentile", &curves));
}

/// The jobs of a run by group, in order: groups run one after another (fio's stonewall), and
/// each group's clock starts at its own zero, so each gets charts of its own.
fn job_groups(run: &RunResult) -> Vec<(u32, Vec<&JobResult>)> {
    let mut groups: Vec<(u32, Vec<&JobResult>)> = Vec::new();
    for job in &run.jobs {
        match groups.iter_mut().find(|(id, _)| *id == job.group_id) {
            Some((_, jobs)) => jobs.push(job),
            None => groups.push((job.group_id, vec![job])),
        }
    }
    groups
}

/// IOPS, MB/s and latency per interval: one set of charts per group of jobs.
fn over_time(out: &mut String, run: &RunResult) {
    out.push_str("<h3>Over time</h3>\n");
    let colours = SeriesColours::of(run);
    let groups = job_groups(run);
    let mut drawn = false;
    for (id, jobs) in &groups {
        let series = time_series_of(jobs, &colours);
        if series.iops.is_empty() {
            continue;
        }
        drawn = true;
        let suffix = if groups.len() > 1 {
            let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
            let _ = writeln!(
                out,
                "<h4>Group {id}: {} (groups run one after another; time from the group's own \
                 start)</h4>",
                escape(&names.join(", "))
            );
            format!(", group {id}")
        } else {
            String::new()
        };
        out.push_str(&chart::line_chart(
            &format!("IOPS per interval{suffix}"),
            "time (s)",
            "IOPS",
            &series.iops,
        ));
        out.push_str(&chart::line_chart(
            &format!("Throughput per interval{suffix}"),
            "time (s)",
            "MB/s",
            &series.throughput_mb_s,
        ));
        out.push_str(&chart::line_chart_log_capable(
            &format!("Latency per interval, mean and p99 (fio's lat){suffix}"),
            "time (s)",
            "latency (ms)",
            &series.latency_ms,
        ));
    }
    if !drawn {
        // fio's JSON has no time series (fio writes it to separate log files); iofit's has.
        out.push_str(
            "<p class=\"note\">These results hold no per-interval samples, so there is no chart \
             over time (fio's JSON output has none; iofit run's has one per second).</p>\n",
        );
    }
}

/// The bars of the required-vs-measured chart: every judged metric.
pub(crate) fn paired_bars(comparison: &Comparison) -> Vec<PairedBar> {
    comparison
        .checks
        .iter()
        .filter(|check| check.verdict != Verdict::NotChecked)
        .filter_map(|check| {
            let (required, measured) = (check.required?, check.measured?);
            let unit = if check.metric == Metric::Iops {
                String::new()
            } else {
                format!(" {}", check.unit)
            };
            Some(PairedBar {
                label: check.metric.label().to_string(),
                required,
                measured,
                required_text: format!("{}{unit}", check.required_text()),
                measured_text: format!("{}{unit}", check.measured_text()),
                pass: check.verdict == Verdict::Pass,
            })
        })
        .map(|mut bar| {
            if bar.label == "IOPS" {
                bar.required_text.push_str(" IOPS");
                bar.measured_text.push_str(" IOPS");
            }
            bar
        })
        .collect()
}

fn render_comparison(out: &mut String, comparison: &Comparison) {
    let _ = writeln!(
        out,
        "<h2>Required vs measured: volume {} ({})</h2>",
        escape(&comparison.volume),
        comparison.role.name()
    );
    let failed = comparison.failed_metrics();
    if comparison.passed {
        out.push_str("<div class=\"verdict pass\">PASS: every requirement met</div>\n");
    } else {
        let names: Vec<&str> = failed.iter().map(|m| m.label()).collect();
        let _ = writeln!(
            out,
            "<div class=\"verdict fail\">FAIL: {}</div>",
            escape(&names.join(", "))
        );
    }
    let _ = writeln!(
        out,
        "<p class=\"note\">results: {} · requirements: {}</p>",
        escape(&comparison.results_source),
        escape(&comparison.requirements_source)
    );
    if let Some(design) = &comparison.design {
        let _ = writeln!(out, "<p class=\"note\">design: {}</p>", escape(design));
    }
    out.push_str(
        "<div class=\"scroll\"><table><thead><tr><th>metric</th><th>unit</th><th>required</th><th>measured</th>\
         <th>verdict</th><th>margin</th><th>note</th></tr></thead><tbody>\n",
    );
    for check in &comparison.checks {
        let (row_class, verdict_class) = match check.verdict {
            Verdict::Fail => (" class=\"fail\"", "fail"),
            Verdict::Pass => ("", "pass"),
            Verdict::NotChecked => ("", ""),
        };
        let _ = writeln!(
            out,
            "<tr{row_class}><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"{verdict_class}\">{}</td><td class=\"num\">{}</td><td class=\"note\">{}</td></tr>",
            escape(check.metric.label()),
            escape(&check.unit),
            escape(&check.required_text()),
            escape(&check.measured_text()),
            check.verdict.word(),
            escape(&check.margin_text()),
            escape(check.note.as_deref().unwrap_or(""))
        );
    }
    out.push_str("</tbody></table></div>\n");
    out.push_str(&chart::required_vs_measured_chart(
        "Required vs measured (each metric on its own scale)",
        &paired_bars(comparison),
    ));
    let warnings: Vec<String> = comparison
        .warnings
        .iter()
        .map(ToString::to_string)
        .collect();
    render_list(out, "Warnings", &warnings);
    if !comparison.advice.is_empty() {
        out.push_str("<h3>Advice</h3>\n<ul class=\"advice\">\n");
        for advice in &comparison.advice {
            let _ = writeln!(out, "<li>{}</li>", escape(&advice.message));
        }
        out.push_str("</ul>\n");
    }
}

/// Limits grouped by unit, in the order units first appear.
pub(crate) fn limits_by_unit(bars: &[LimitBar]) -> Vec<(String, Vec<LimitBar>)> {
    let mut groups: Vec<(String, Vec<LimitBar>)> = Vec::new();
    for bar in bars {
        match groups.iter_mut().find(|(unit, _)| *unit == bar.unit) {
            Some((_, group)) => group.push(bar.clone()),
            None => groups.push((bar.unit.clone(), vec![bar.clone()])),
        }
    }
    groups
}

fn render_limits(out: &mut String, title: &str, bars: &[LimitBar]) {
    let _ = writeln!(out, "<h2>{}</h2>", escape(title));
    if bars.is_empty() {
        out.push_str("<p class=\"note\">no limits given</p>\n");
        return;
    }
    for (unit, group) in limits_by_unit(bars) {
        // A bar of scope Requirement is drawn as the dashed "required" line, not as a limit.
        let requirement = group
            .iter()
            .find(|bar| bar.scope == chart::LimitScope::Requirement)
            .map(|bar| bar.value);
        let limits: Vec<LimitBar> = group
            .iter()
            .filter(|bar| bar.scope != chart::LimitScope::Requirement)
            .cloned()
            .collect();
        out.push_str(&chart::limit_chart(
            &format!("{title}: {unit}"),
            &limits,
            requirement,
        ));
    }
    let mut table = Table::new("", &["limit", "value", "unit", "binds"]);
    for bar in bars {
        table.rows.push(vec![
            bar.name.clone(),
            group_thousands(bar.value),
            bar.unit.clone(),
            bar.role_text().to_string(),
        ]);
    }
    render_table(out, &table);
}

pub(crate) fn percentiles_cells(value: Option<Percentiles>, digits: usize) -> [String; 3] {
    match value {
        Some(p) => [
            format!("{:.digits$}", p.p50),
            format!("{:.digits$}", p.p90),
            format!("{:.digits$}", p.p99),
        ],
        None => ["-".into(), "-".into(), "-".into()],
    }
}

/// The sizing targets of every volume, one row each.
pub(crate) fn sizing_table(requirements: &Requirements) -> Table {
    let mut table = Table::new(
        "Sizing targets (what a design must meet)",
        &[
            "volume",
            "role",
            "IOPS",
            "MB/s",
            "latency ms",
            "IO size KiB",
            "read %",
            "random %",
            "capacity GiB",
            "queue depth",
        ],
    );
    let optional = |value: Option<f64>, digits: usize| {
        value
            .map(|v| format!("{v:.digits$}"))
            .unwrap_or_else(|| "-".to_string())
    };
    for volume in &requirements.volumes {
        let s = &volume.sizing;
        table.rows.push(vec![
            volume.label.clone(),
            volume.role.name().to_string(),
            group_thousands(s.iops),
            group_thousands(s.throughput_mb_s),
            optional(s.latency_ms, 3),
            group_thousands(s.io_size_bytes as f64 / 1024.0),
            format!("{:.1}", s.read_pct),
            format!("{:.1}", s.random_pct),
            optional(s.capacity_gib, 0),
            optional(s.queue_depth, 1),
        ]);
    }
    table
}

/// What was observed per volume, each metric at p50/p90/p99.
pub(crate) fn observed_tables(requirements: &Requirements) -> Vec<Table> {
    let mut tables = Vec::new();
    for volume in &requirements.volumes {
        let Some(observed) = &volume.observed else {
            continue;
        };
        let mut table = Table::new(
            format!(
                "Observed on volume {} ({} samples)",
                volume.label, observed.samples
            ),
            &["metric", "p50", "p90", "p99"],
        );
        let mut add = |name: &str, value: Option<Percentiles>, digits: usize| {
            let mut row = vec![name.to_string()];
            row.extend(percentiles_cells(value, digits));
            table.rows.push(row);
        };
        add("IOPS", Some(observed.iops), 1);
        add("read %", Some(observed.read_pct), 1);
        add(
            if observed.random_pct_estimated {
                "random % (estimate)"
            } else {
                "random %"
            },
            observed.random_pct,
            1,
        );
        add(
            "IO size KiB",
            Some(observed.io_size_bytes.scaled(1.0 / 1024.0)),
            1,
        );
        add("throughput MB/s", Some(observed.throughput_mb_s), 1);
        add("latency ms", observed.latency_ms, 3);
        add("queue depth", observed.queue_depth, 2);
        tables.push(table);
    }
    tables
}

/// What each volume of a prediction delivers.
pub(crate) fn prediction_volumes_table(prediction: &Prediction) -> Table {
    let mut table = Table::new(
        format!("What {} delivers, per volume", prediction.vm),
        &[
            "volume",
            "disks",
            "caching",
            "IOPS",
            "MB/s",
            "latency ms",
            "max IOPS",
            "max MB/s",
            "meets target",
            "first of its limits to bind",
        ],
    );
    // A rate that runs into an unpublished limit is unknown, never the published limits' figure.
    let known = |is_known: bool, value: f64| {
        if is_known {
            group_thousands(value)
        } else {
            "unknown".to_string()
        }
    };
    for volume in &prediction.volumes {
        let known_now = volume.rates_known() || volume.target_iops.is_some();
        table.rows.push(vec![
            volume.label.clone(),
            format!("{} x {}", volume.disk_count, volume.disk_sku),
            volume.caching.to_string(),
            known(known_now, volume.iops),
            known(known_now, volume.throughput_mb_s),
            format!("{:.3}", volume.latency_ms),
            known(volume.rates_known(), volume.max_iops),
            known(volume.rates_known(), volume.max_throughput_mb_s),
            match volume.meets_target {
                Some(true) => "yes",
                Some(false) => "NO",
                None => "-",
            }
            .to_string(),
            crate::summary::volume_binding_text(prediction, &volume.label),
        ]);
    }
    table
}

fn status_word(check: &iofit_predict::LimitCheck) -> &'static str {
    match check.status {
        // Published, but the load on it is unknown: no verdict.
        LimitStatus::Unknown if !check.unpublished() => "unknown",
        LimitStatus::Ok => "ok",
        LimitStatus::Binding => "BINDING",
        LimitStatus::AtLimit => "at limit",
        LimitStatus::Over => "OVER",
        LimitStatus::Unknown => "unknown (not published)",
        LimitStatus::Burst => "info",
    }
}

/// Every limit the prediction checked, with what the design uses of it.
pub(crate) fn prediction_limits_table(prediction: &Prediction) -> Table {
    let mut table = Table::new(
        "Every limit checked",
        &[
            "limit",
            "scope",
            "limit value",
            "used",
            "headroom",
            "status",
            "source",
        ],
    );
    let binding = crate::summary::binding_label(prediction);
    for check in &prediction.limits {
        let suffix = check.unit.suffix();
        table.rows.push(vec![
            check.name.clone(),
            check.scope.clone(),
            check
                .limit
                .map(|limit| format!("{}{suffix}", group_thousands(limit)))
                .unwrap_or_else(|| "-".to_string()),
            // A load from rates an unpublished limit leaves unknown is unknown, not a number.
            if check.load_unknown {
                "unknown".to_string()
            } else {
                format!("{}{suffix}", group_thousands(check.used))
            },
            match check.headroom_pct {
                _ if check.load_unknown => "unknown".to_string(),
                Some(pct) => crate::summary::percent(pct),
                None => "-".to_string(),
            },
            if check.kind == iofit_predict::LimitKind::QueueDepth {
                "the workload's depth (not a limit)".to_string()
            } else if check.load_unknown {
                // With its load unknown the limit has no verdict, binding or not.
                status_word(check).to_string()
            } else if crate::summary::limit_label(check) == binding {
                "BINDING".to_string()
            } else if check.status == LimitStatus::Binding {
                "ok".to_string()
            } else {
                status_word(check).to_string()
            },
            check.source.clone(),
        ]);
    }
    table
}

fn render_list(out: &mut String, heading: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "<h3>{}</h3>\n<ul>", escape(heading));
    for item in items {
        let _ = writeln!(out, "<li>{}</li>", escape(item));
    }
    out.push_str("</ul>\n");
}

/// The prediction's rate limits as bars: the published ones only (the queue depth the tool
/// chose at an assumed service time is not where the design throttles), the binding one as
/// every section names it ([`crate::summary::binding_check`]).
pub(crate) fn prediction_bars(prediction: &Prediction) -> Vec<LimitBar> {
    let binding = crate::summary::binding_label(prediction);
    chart::limit_bars_from_prediction(prediction)
        .into_iter()
        .filter(|bar| {
            prediction
                .limits
                .iter()
                .filter(|check| crate::summary::limit_label(check) == bar.name)
                .all(crate::summary::can_bind)
        })
        .map(|mut bar| {
            // With its load unknown a limit gets no verdict, binding or not.
            let load_unknown = prediction
                .limits
                .iter()
                .any(|check| crate::summary::limit_label(check) == bar.name && check.load_unknown);
            bar.binding = bar.name == binding && !load_unknown;
            bar
        })
        .collect()
}

/// The binding limit in one sentence, and when the prediction itself named the queue depth,
/// why that is not the limit.
fn binding_paragraph(out: &mut String, prediction: &Prediction) {
    match crate::summary::binding_line(prediction) {
        Some(line) => {
            let _ = writeln!(
                out,
                "<p><strong>Binding limit: {}</strong> ({})</p>",
                escape(&line.name),
                escape(&line.detail)
            );
        }
        None => out.push_str("<p><strong>No published limit binds.</strong></p>\n"),
    }
    if let Some(binding) = prediction
        .binding
        .as_ref()
        .filter(|b| b.kind == iofit_predict::LimitKind::QueueDepth)
    {
        let _ = writeln!(
            out,
            "<p class=\"note\">{}: the depth is the workload's own (chosen for an assumed \
             service time of {} ms), not a limit of the VM or the disks; more outstanding IOs \
             reach the limits above.</p>",
            escape(&crate::summary::limit_label_of_binding(binding)),
            prediction.assumptions.service_latency_ms
        );
    }
}

fn render_prediction(out: &mut String, prediction: &Prediction) {
    let _ = writeln!(out, "<h2>Prediction: {}</h2>", escape(&prediction.vm));
    binding_paragraph(out, prediction);
    let _ = writeln!(
        out,
        "<p class=\"note\">tables: {} · service latency {} ms ({}) · cache hits {}% · {}</p>",
        escape(&prediction.tables.join(", ")),
        prediction.assumptions.service_latency_ms,
        escape(&prediction.assumptions.service_latency_source),
        prediction.assumptions.cache_hit_pct,
        escape(&prediction.mb_convention_note)
    );
    render_table(out, &prediction_volumes_table(prediction));
    let bars = prediction_bars(prediction);
    for (unit, group) in limits_by_unit(&bars) {
        out.push_str(&chart::limit_chart(
            &format!("Rate limits of the design: {unit}"),
            &group,
            None,
        ));
    }
    render_table(out, &prediction_limits_table(prediction));
    render_list(out, "Violations", &prediction.violation_sentences());
    render_list(out, "Warnings", &prediction.warning_sentences());
    render_list(out, "Advice", &prediction.advice_sentences());
}

fn render_requirements(out: &mut String, requirements: &Requirements) {
    out.push_str("<h2>Requirements</h2>\n");
    let mut facts = Vec::new();
    if !requirements.source.is_empty() {
        facts.push(format!("source: {}", requirements.source));
    }
    if (requirements.growth_factor - 1.0).abs() > 1e-12 {
        facts.push(format!(
            "growth factor {} already applied",
            requirements.growth_factor
        ));
    }
    if !facts.is_empty() {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(&facts.join(" · ")));
    }
    render_table(out, &sizing_table(requirements));
    for table in observed_tables(requirements) {
        render_table(out, &table);
    }
    for volume in &requirements.volumes {
        if volume.derivation.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "<h3>How the numbers of {} were derived</h3>\n<ul>",
            escape(&volume.label)
        );
        for line in &volume.derivation {
            let _ = writeln!(out, "<li>{}</li>", escape(line));
        }
        out.push_str("</ul>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mixed job and a write-only job, two one-second intervals each.
    fn mixed_run() -> RunResult {
        let sample = |start_ms: u64, read_ios: u64, write_ios: u64| IntervalSample {
            start_ms,
            interval_ms: 1000,
            read_ios,
            read_bytes: read_ios * 8192,
            write_ios,
            write_bytes: write_ios * 8192,
            latency_mean_ns: 500_000.0,
            latency_p99_ns: 2_000_000,
            ..Default::default()
        };
        let job = |name: &str, read_ios: u64, write_ios: u64| JobResult {
            name: name.into(),
            read: DirectionResult {
                ios: 2 * read_ios,
                ..Default::default()
            },
            write: DirectionResult {
                ios: 2 * write_ios,
                ..Default::default()
            },
            series: vec![
                sample(0, read_ios, write_ios),
                sample(1000, read_ios, write_ios),
            ],
            ..Default::default()
        };
        RunResult {
            tool: "iofit".into(),
            timestamp_s: 1_795_398_650,
            jobs: vec![job("data", 800, 200), job("log", 0, 300)],
            ..Default::default()
        }
    }

    #[test]
    fn a_trim_job_has_its_own_series() {
        let mut run = mixed_run();
        let trims = IntervalSample {
            interval_ms: 1000,
            trim_ios: 50,
            trim_bytes: 50 * 65536,
            latency_mean_ns: 3_000_000.0,
            ..Default::default()
        };
        run.jobs.push(JobResult {
            name: "discard".into(),
            trim: DirectionResult {
                ios: 50,
                ..Default::default()
            },
            series: vec![trims],
            ..Default::default()
        });
        let series = time_series(&run);
        let trim = series
            .iops
            .iter()
            .find(|s| s.name == "discard trim")
            .unwrap();
        assert_eq!(trim.points, vec![(1.0, 50.0)]);
        assert_eq!(trim.colour, Some(chart::PALETTE[3]));
        let mb = &series.throughput_mb_s[3];
        assert!((mb.points[0].1 - 50.0 * 65536.0 / 1e6).abs() < 1e-9);
        assert!(series
            .latency_ms
            .iter()
            .any(|s| s.name.starts_with("discard mean")));
    }

    #[test]
    fn reads_and_writes_apart_one_colour_each_across_charts() {
        let series = time_series(&mixed_run());
        let names: Vec<&str> = series.iops.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["data read", "data write", "log write"]);
        // 800 reads a second: IOPS and MB/s (x 8,192 B) of the read direction alone.
        assert_eq!(series.iops[0].points, vec![(1.0, 800.0), (2.0, 800.0)]);
        assert!((series.throughput_mb_s[0].points[0].1 - 800.0 * 8192.0 / 1e6).abs() < 1e-9);
        let colours: Vec<_> = series.iops.iter().map(|s| s.colour).collect();
        let mb_colours: Vec<_> = series.throughput_mb_s.iter().map(|s| s.colour).collect();
        assert_eq!(colours, mb_colours);
        assert_eq!(colours[0], Some(chart::PALETTE[0]));
        assert_eq!(colours[2], Some(chart::PALETTE[2]));
        // The write-only log's latency is named for its writes; its mean is in the colour of
        // its only direction, its p99 in a colour of its own and dashed.
        let find = |name: &str| series.latency_ms.iter().find(|s| s.name == name).unwrap();
        let log_mean = find("log mean lat (writes)");
        let log_p99 = find("log p99 lat (writes)");
        assert_eq!(log_mean.colour, colours[2]);
        assert!(log_p99.dashed && log_p99.colour != log_mean.colour);
        assert!(!colours.contains(&log_p99.colour));
        let data_p99 = find("data p99 lat (reads and writes)");
        assert_ne!(data_p99.colour, log_p99.colour);
    }

    #[test]
    fn a_run_says_when_it_started_in_words() {
        let mut out = String::new();
        render_run(&mut out, &mixed_run());
        assert!(out.contains("started Mon Nov 23 "), "{out}");
        assert!(!out.contains("Unix time"), "{out}");
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;"
        );
    }

    #[test]
    fn hostile_titles_stay_text() {
        let html = HtmlReport::new("<img src=x onerror=alert(1)>")
            .section("a</h2><script>", "body <b>")
            .render();
        assert!(!html.contains("<img"));
        assert!(!html.contains("<script>"));
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
        assert!(html.contains("body &lt;b&gt;"));
    }

    #[test]
    fn self_contained() {
        let html = HtmlReport::new("t").section("s", "b").render();
        for forbidden in ["<script", "<link", "@import", "http://", "https://", "url("] {
            // The SVG namespace is an identifier, not a fetch; it is the only URL allowed.
            let count = html.matches(forbidden).count();
            let allowed = if forbidden == "http://" {
                html.matches("http://www.w3.org/2000/svg").count()
            } else {
                0
            };
            assert_eq!(count, allowed, "{forbidden} in report");
        }
    }
}
