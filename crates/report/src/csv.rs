//! CSV renderings (RFC 4180 quoting): a comparison as one row per metric for
//! `iofit compare --format csv`, and a whole report as long-format records
//! `section,subject,metric,value,unit` that a spreadsheet or pandas can pivot.

use crate::compare::{Comparison, Rule};
use crate::document::{Block, Document};
use iofit_stats::RunResult;

/// Quotes a field when it holds a comma, quote, line break or edge space.
pub fn field(text: &str) -> String {
    let needs_quotes =
        text.contains([',', '"', '\n', '\r']) || text.starts_with(' ') || text.ends_with(' ');
    if needs_quotes {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// A number as CSV carries it: plain digits, no grouping, at most 6 decimals, trailing zeros cut.
pub fn number(value: f64) -> String {
    if !value.is_finite() {
        return String::new();
    }
    let text = format!("{value:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

fn line(out: &mut String, fields: &[String]) {
    let quoted: Vec<String> = fields.iter().map(|f| field(f)).collect();
    out.push_str(&quoted.join(","));
    out.push_str("\r\n");
}

fn optional(value: Option<f64>) -> String {
    value.map(number).unwrap_or_default()
}

/// One row per metric. IO size is in bytes here (the text table prints KiB).
pub fn render_comparison(comparison: &Comparison) -> String {
    let mut out = String::new();
    line(
        &mut out,
        &[
            "volume",
            "role",
            "metric",
            "unit",
            "rule",
            "tolerance",
            "required",
            "measured",
            "verdict",
            "margin",
            "margin_unit",
            "note",
        ]
        .map(String::from),
    );
    for check in &comparison.checks {
        let (rule, tolerance, margin_unit) = match check.rule {
            Rule::AtLeast => ("at_least", None, "percent"),
            Rule::AtMost => ("at_most", None, "percent"),
            Rule::WithinPct { tolerance } => ("within_percent", Some(tolerance), "percent"),
            Rule::WithinPoints { tolerance } => ("within_points", Some(tolerance), "points"),
        };
        let unit = if check.unit == "KiB" {
            "bytes".to_string()
        } else {
            check.unit.clone()
        };
        line(
            &mut out,
            &[
                comparison.volume.clone(),
                comparison.role.name().to_string(),
                check.metric.label().to_string(),
                unit,
                rule.to_string(),
                optional(tolerance),
                optional(check.required),
                optional(check.measured),
                match check.verdict {
                    crate::compare::Verdict::Pass => "pass",
                    crate::compare::Verdict::Fail => "fail",
                    crate::compare::Verdict::NotChecked => "not_checked",
                }
                .to_string(),
                optional(check.margin),
                margin_unit.to_string(),
                check.note.clone().unwrap_or_default(),
            ],
        );
    }
    out
}

fn record(out: &mut String, section: &str, subject: &str, metric: &str, value: String, unit: &str) {
    line(
        out,
        &[
            section.to_string(),
            subject.to_string(),
            metric.to_string(),
            value,
            unit.to_string(),
        ],
    );
}

fn run_records(out: &mut String, run: &RunResult) {
    for job in &run.jobs {
        for (name, direction) in [("read", &job.read), ("write", &job.write)] {
            if direction.ios == 0 {
                continue;
            }
            let subject = format!("{} {name}", job.name);
            record(
                out,
                "run",
                &subject,
                "ios",
                direction.ios.to_string(),
                "IOs",
            );
            record(
                out,
                "run",
                &subject,
                "iops",
                number(direction.iops.get()),
                "IOPS",
            );
            record(
                out,
                "run",
                &subject,
                "throughput",
                number(direction.bandwidth_bytes_per_second / 1e6),
                "MB/s",
            );
            record(
                out,
                "run",
                &subject,
                crate::format_keys::CSV_RUNTIME,
                number(direction.runtime_ns.get() as f64 / 1e9),
                "s",
            );
            let summary = if direction.total_latency.percentiles_ns.is_empty() {
                &direction.completion_latency
            } else {
                &direction.total_latency
            };
            if direction.total_latency.mean_ns.get() > 0.0 {
                record(
                    out,
                    "run",
                    &subject,
                    "latency avg",
                    number(direction.total_latency.mean_ns.get() / 1e6),
                    "ms",
                );
            }
            for (p, ns) in &summary.percentiles_ns {
                record(
                    out,
                    "run",
                    &subject,
                    &format!("latency p{}", number(*p)),
                    number(*ns as f64 / 1e6),
                    "ms",
                );
            }
        }
        for sample in crate::run_series::full_intervals(&job.series) {
            let seconds = sample.interval_ms.get().max(1) as f64 / 1e3;
            let at = format!(
                "{} t={}s",
                job.name,
                number(sample.start_ms.get() as f64 / 1e3)
            );
            record(
                out,
                "series",
                &at,
                "iops",
                number(sample.ios() as f64 / seconds),
                "IOPS",
            );
            record(
                out,
                "series",
                &at,
                "latency avg",
                number(sample.latency_mean_ns.get() / 1e6),
                "ms",
            );
            record(
                out,
                "series",
                &at,
                "latency p99",
                number(sample.latency_p99_ns.get() as f64 / 1e6),
                "ms",
            );
        }
    }
}

impl Document {
    /// The document as CSV.
    pub fn render_csv(&self) -> String {
        render_report(self)
    }
}

/// A whole report as long-format records.
pub fn render_report(report: &Document) -> String {
    let mut out = String::new();
    line(
        &mut out,
        &["section", "subject", "metric", "value", "unit"].map(String::from),
    );
    for block in &report.blocks {
        match block {
            // Prose has no numbers to tabulate.
            Block::Text { .. } => {}
            Block::Summary(summary) => summary_records(&mut out, summary),
            Block::Run(run) => run_records(&mut out, run),
            Block::Comparison(comparison) => comparison_records(&mut out, comparison),
            Block::Limits { title, bars } => limit_records(&mut out, title, bars),
            Block::Requirements(requirements) => requirement_records(&mut out, requirements),
            Block::Prediction(prediction) => prediction_records(&mut out, prediction),
            Block::Table(table) => table_records(&mut out, table),
            Block::Chart {
                title,
                x_label,
                y_label,
                series,
                ..
            } => chart_records(&mut out, title, x_label, y_label, series),
        }
    }
    out
}

/// A summary's monthly cost, part by part.
fn summary_records(out: &mut String, summary: &crate::summary::Summary) {
    let cost = summary.cost.as_ref();
    for (metric, value) in [
        ("total", cost.and_then(|c| c.total_usd_month)),
        ("VM", cost.and_then(|c| c.vm_usd_month)),
        ("disks", cost.and_then(|c| c.disks_usd_month)),
        ("disk operations", cost.and_then(|c| c.operations_usd_month)),
    ] {
        if let Some(value) = value {
            record(
                out,
                "summary",
                "monthly cost",
                metric,
                format!("{value:.2}"),
                "USD/month",
            );
        }
    }
}

/// A comparison's checks: required, measured, verdict and margin per metric.
fn comparison_records(out: &mut String, comparison: &Comparison) {
    for check in &comparison.checks {
        let subject = format!("{} {}", comparison.volume, check.metric.label());
        let unit = if check.unit == "KiB" {
            "bytes"
        } else {
            &check.unit
        };
        record(
            out,
            "compare",
            &subject,
            "required",
            optional(check.required),
            unit,
        );
        record(
            out,
            "compare",
            &subject,
            "measured",
            optional(check.measured),
            unit,
        );
        record(
            out,
            "compare",
            &subject,
            "verdict",
            check.verdict.word().to_ascii_lowercase(),
            "",
        );
        if let Some(margin) = check.margin {
            let unit = if matches!(check.rule, Rule::WithinPoints { .. }) {
                "points"
            } else {
                "%"
            };
            record(out, "compare", &subject, "margin", number(margin), unit);
        }
    }
}

/// A limits chart's bars, and which binds.
fn limit_records(out: &mut String, title: &str, bars: &[iofit_verdict::LimitBar]) {
    for bar in bars {
        record(
            out,
            title,
            &bar.name,
            if bar.scope == crate::chart::LimitScope::Requirement {
                "requirement"
            } else {
                "limit"
            },
            number(bar.value),
            &bar.unit,
        );
        if bar.binding {
            record(out, title, &bar.name, "binding", "yes".into(), "");
        }
    }
}

/// Each volume's sizing target.
fn requirement_records(out: &mut String, requirements: &iofit_model::requirements::Requirements) {
    for volume in &requirements.volumes {
        let s = &volume.sizing;
        let subject = volume.label.as_str();
        record(
            out,
            "requirements",
            subject,
            "iops",
            number(s.iops.get()),
            "IOPS",
        );
        record(
            out,
            "requirements",
            subject,
            "throughput",
            number(s.throughput_mb_s.get()),
            "MB/s",
        );
        if let Some(latency) = s.latency_ms {
            record(
                out,
                "requirements",
                subject,
                "latency",
                number(latency.get()),
                "ms",
            );
        }
        record(
            out,
            "requirements",
            subject,
            "io size",
            s.io_size_bytes.as_u64().to_string(),
            "bytes",
        );
        record(
            out,
            "requirements",
            subject,
            "read",
            number(s.read_pct),
            "%",
        );
        record(
            out,
            "requirements",
            subject,
            "random",
            number(s.random_pct),
            "%",
        );
        if let Some(capacity) = s.capacity_gib {
            record(
                out,
                "requirements",
                subject,
                "capacity",
                number(capacity.get()),
                "GiB",
            );
        }
        if let Some(depth) = s.queue_depth {
            record(
                out,
                "requirements",
                subject,
                "queue depth",
                number(depth),
                "IOs",
            );
        }
    }
}

/// Each volume's predicted rates and latency, and each limit's use.
fn prediction_records(out: &mut String, prediction: &iofit_predict::Prediction) {
    for volume in &prediction.volumes {
        let subject = volume.label.as_str();
        // A rate that runs into an unpublished limit is unknown, not a number.
        let rate = |value: f64| {
            if volume.rates_known() || volume.target_iops.is_some() {
                number(value)
            } else {
                "unknown".to_string()
            }
        };
        record(
            out,
            "prediction",
            subject,
            "iops",
            rate(volume.iops.get()),
            "IOPS",
        );
        record(
            out,
            "prediction",
            subject,
            "throughput",
            rate(volume.throughput_mb_s.get()),
            "MB/s",
        );
        record(
            out,
            "prediction",
            subject,
            "latency",
            number(volume.latency_ms.get()),
            "ms",
        );
    }
    for check in &prediction.limits {
        let unit = check.unit.suffix().trim();
        if let Some(limit) = check.limit {
            record(
                out,
                "prediction limit",
                &check.name,
                "limit",
                number(limit),
                unit,
            );
        }
        record(
            out,
            "prediction limit",
            &check.name,
            "used",
            if check.load_unknown {
                "unknown".to_string()
            } else {
                number(check.used)
            },
            unit,
        );
        record(
            out,
            "prediction limit",
            &check.name,
            "status",
            format!("{:?}", check.status).to_ascii_lowercase(),
            "",
        );
    }
}

/// A table's cells, the first column naming the row.
fn table_records(out: &mut String, table: &crate::document::Table) {
    for row in &table.rows {
        let subject = row.first().cloned().unwrap_or_default();
        for (header, value) in table.headers.iter().zip(row).skip(1) {
            record(out, &table.caption, &subject, header, value.clone(), "");
        }
    }
}

/// A chart's points, one record per point.
fn chart_records(
    out: &mut String,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[crate::chart::Series],
) {
    for line in series {
        for (x, y) in &line.points {
            record(
                out,
                title,
                &line.name,
                &format!("{y_label} at {x_label} {x}"),
                format!("{y}"),
                "",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_follows_rfc_4180() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        assert_eq!(number(16000.0), "16000");
        assert_eq!(number(3.25), "3.25");
        assert_eq!(number(1.0 / 3.0), "0.333333");
    }
}
