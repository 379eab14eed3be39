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

use crate::chart::{self, LimitBar, Series};
use crate::compare::{Comparison, Verdict};
use crate::run_series::{job_groups, percentile_curve, time_series_of, SeriesColours};
use crate::tables::{
    job_rows, limits_by_unit, observed_tables, paired_bars, prediction_bars,
    prediction_limits_table, prediction_volumes_table, sizing_table,
};
use iofit_model::requirements::Requirements;
use iofit_model::units::group_thousands;
use iofit_predict::Prediction;
use iofit_stats::RunResult;
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

fn render_run(out: &mut String, run: &RunResult) {
    out.push_str("<h2>Benchmark results</h2>\n");
    let mut facts = Vec::new();
    if !run.tool.is_empty() {
        facts.push(format!("{} {}", run.tool, run.version).trim().to_string());
    }
    if !run.hostname.is_empty() {
        facts.push(format!("host {}", run.hostname));
    }
    if run.timestamp_s.get() > 0 {
        facts.push(format!(
            "started {} UTC",
            crate::fio_json::ctime_utc(run.timestamp_s.get())
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
            prediction.assumptions.service_latency_ms.get()
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
        prediction.assumptions.service_latency_ms.get(),
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
    use crate::run_series::mixed_run;

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
