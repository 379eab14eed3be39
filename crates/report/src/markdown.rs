//! Markdown renderings: a comparison for `iofit compare --format markdown`, and a whole
//! [`Document`] as GitHub-flavoured Markdown tables (charts stay in the HTML; Markdown gets
//! their numbers as tables).

use crate::compare::Comparison;
use crate::document::{Block, Document, Table};
use crate::tables::{
    job_rows, limits_by_unit, observed_tables, prediction_limits_table, prediction_volumes_table,
    sizing_table,
};
use iofit_model::units::group_thousands;
use iofit_stats::RunResult;
use std::fmt::Write as _;

/// A table cell: pipes escaped, line breaks flattened, empty cells kept visible.
fn cell(text: &str) -> String {
    // `<` and `>` would start inline HTML in most Markdown renderers.
    let flat = text
        .replace('\n', " ")
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    if flat.trim().is_empty() {
        " ".to_string()
    } else {
        flat
    }
}

fn table(out: &mut String, table: &Table) {
    if !table.caption.is_empty() {
        let _ = writeln!(out, "**{}**\n", table.caption.replace('\n', " "));
    }
    let header: Vec<String> = table.headers.iter().map(|h| cell(h)).collect();
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let _ = writeln!(
        out,
        "|{}|",
        table
            .headers
            .iter()
            .map(|_| "---")
            .collect::<Vec<_>>()
            .join("|")
    );
    for row in &table.rows {
        let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
}

/// The comparison as Markdown: verdict, table, advice.
pub fn render_comparison(comparison: &Comparison) -> String {
    let mut out = String::new();
    comparison_body(&mut out, comparison, "##");
    out
}

fn comparison_body(out: &mut String, comparison: &Comparison, level: &str) {
    let _ = writeln!(
        out,
        "{level} Required vs measured: volume {} ({})\n",
        comparison.volume.replace('\n', " "),
        comparison.role.name()
    );
    let _ = writeln!(
        out,
        "Results: `{}` · requirements: `{}`\n",
        comparison.results_source.replace('`', "'"),
        comparison.requirements_source.replace('`', "'")
    );
    if let Some(design) = &comparison.design {
        let _ = writeln!(out, "Design: {}\n", design.replace('\n', " "));
    }
    let failed: Vec<&str> = comparison
        .failed_metrics()
        .iter()
        .map(|m| m.label())
        .collect();
    if comparison.passed {
        out.push_str("**Verdict: PASS** (every requirement met)\n\n");
    } else {
        let _ = writeln!(out, "**Verdict: FAIL** ({})\n", failed.join(", "));
    }
    let mut rows = Table::new(
        "",
        &[
            "metric", "unit", "required", "measured", "verdict", "margin", "note",
        ],
    );
    for check in &comparison.checks {
        rows.rows.push(vec![
            check.metric.label().to_string(),
            check.unit.clone(),
            check.required_text(),
            check.measured_text(),
            check.verdict.word().to_string(),
            check.margin_text(),
            check.note.clone().unwrap_or_default(),
        ]);
    }
    table(out, &rows);
    if !comparison.warnings.is_empty() {
        out.push_str("Warnings:\n\n");
        for warning in &comparison.warnings {
            let _ = writeln!(out, "- {}", warning.to_string().replace('\n', " "));
        }
        out.push('\n');
    }
    if !comparison.advice.is_empty() {
        out.push_str("Advice:\n\n");
        for advice in &comparison.advice {
            let _ = writeln!(out, "- {}", advice.message.replace('\n', " "));
        }
        out.push('\n');
    }
}

fn run_body(out: &mut String, run: &RunResult) {
    out.push_str("## Benchmark results\n\n");
    if !run.tool.is_empty() {
        let _ = writeln!(out, "Tool: {} {}\n", run.tool, run.version);
    }
    table(out, &job_rows(run));
    // The percentile curve of the HTML report, as numbers.
    let mut percentiles = Table::new(
        "Latency percentiles (ms)",
        &["job", "direction", "p50", "p90", "p99", "p99.9", "p99.99"],
    );
    for job in &run.jobs {
        for (name, direction) in [("read", &job.read), ("write", &job.write)] {
            if direction.ios == 0 {
                continue;
            }
            let summary = if direction.total_latency.percentiles_ns.is_empty() {
                &direction.completion_latency
            } else {
                &direction.total_latency
            };
            if summary.percentiles_ns.is_empty() {
                continue;
            }
            let mut row = vec![job.name.clone(), name.to_string()];
            for p in [50.0, 90.0, 99.0, 99.9, 99.99] {
                row.push(
                    summary
                        .percentile_ns(p)
                        .map(|ns| format!("{:.3}", ns as f64 / 1e6))
                        .unwrap_or_else(|| "-".to_string()),
                );
            }
            percentiles.rows.push(row);
        }
    }
    if !percentiles.rows.is_empty() {
        table(out, &percentiles);
    }
}

impl Document {
    /// The document as Markdown.
    pub fn render_markdown(&self) -> String {
        render_report(self)
    }
}

/// A whole report as Markdown.
pub fn render_report(report: &Document) -> String {
    let mut out = format!("# {}\n\n", report.title.replace('\n', " "));
    for block in &report.blocks {
        match block {
            Block::Text { heading, body } => {
                let _ = writeln!(
                    out,
                    "## {}\n\n{}\n",
                    heading.replace('\n', " "),
                    body.trim()
                );
            }
            Block::Run(run) => run_body(&mut out, run),
            Block::Comparison(comparison) => comparison_body(&mut out, comparison, "##"),
            Block::Limits { title, bars } => {
                let _ = writeln!(out, "## {}\n", title.replace('\n', " "));
                let mut rows = Table::new("", &["limit", "value", "unit", "binds"]);
                for (_, group) in limits_by_unit(bars) {
                    for bar in group {
                        rows.rows.push(vec![
                            bar.name.clone(),
                            group_thousands(bar.value),
                            bar.unit.clone(),
                            bar.role_text().to_string(),
                        ]);
                    }
                }
                table(&mut out, &rows);
            }
            Block::Requirements(requirements) => {
                out.push_str("## Requirements\n\n");
                if !requirements.source.is_empty() {
                    let _ = writeln!(out, "Source: {}\n", requirements.source);
                }
                table(&mut out, &sizing_table(requirements));
                for observed in observed_tables(requirements) {
                    table(&mut out, &observed);
                }
            }
            Block::Prediction(prediction) => {
                let _ = writeln!(out, "## Prediction: {}\n", prediction.vm);
                if let Some(line) = crate::summary::binding_line(prediction) {
                    let _ = writeln!(out, "**Binding limit: {}** ({})\n", line.name, line.detail);
                }
                table(&mut out, &prediction_volumes_table(prediction));
                table(&mut out, &prediction_limits_table(prediction));
                for (heading, items) in [
                    ("Violations", prediction.violation_sentences()),
                    ("Warnings", prediction.warning_sentences()),
                    ("Advice", prediction.advice_sentences()),
                ] {
                    if !items.is_empty() {
                        let _ = writeln!(out, "{heading}:\n");
                        for item in items {
                            let _ = writeln!(out, "- {}", item.replace('\n', " "));
                        }
                        out.push('\n');
                    }
                }
            }
            Block::Table(t) => table(&mut out, t),
            Block::Summary(summary) => out.push_str(&summary.render_markdown()),
            // The chart's numbers are in the CSV form; Markdown names it.
            Block::Chart { title, .. } => {
                let _ = writeln!(out, "## {title}\n\n(chart in the HTML report)\n");
            }
        }
    }
    out
}
