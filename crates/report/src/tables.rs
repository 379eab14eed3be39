//! The format-neutral tables and bars of a report's content (jobs, requirements, predictions,
//! comparisons), drawn the same way by the HTML, Markdown and CSV renderings.

use crate::chart::{self, LimitBar, PairedBar};
use crate::compare::{Comparison, Metric, Verdict};
use crate::document::Table;
use iofit_model::requirements::{Percentiles, Requirements};
use iofit_model::units::group_thousands;
use iofit_predict::{LimitStatus, Prediction};
use iofit_stats::{DirectionResult, JobResult, RunResult};

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
                group_thousands(direction.iops.get()),
                format!("{:.1}", direction.bandwidth_bytes_per_second / 1e6),
                direction_mean_ms(direction)
                    .map(|ms| format!("{ms:.3}"))
                    .unwrap_or_else(|| "-".into()),
                direction_p99_ms(direction)
                    .map(|ms| format!("{ms:.3}"))
                    .unwrap_or_else(|| "-".into()),
                format!("{:.1}", direction.runtime_ns.get() as f64 / 1e9),
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
    let (total, completion, submission) = (
        direction.total_latency.mean_ns,
        direction.completion_latency.mean_ns,
        direction.submission_latency.mean_ns,
    );
    if total.get() > 0.0 {
        Some(total.get() / 1e6)
    } else if completion.get() > 0.0 {
        Some((completion + submission).get() / 1e6)
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
            group_thousands(s.iops.get()),
            group_thousands(s.throughput_mb_s.get()),
            optional(s.latency_ms.map(|ms| ms.get()), 3),
            group_thousands(s.io_size_bytes.as_f64() / 1024.0),
            format!("{:.1}", s.read_pct),
            format!("{:.1}", s.random_pct),
            optional(s.capacity_gib.map(|gib| gib.get()), 0),
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
            known(known_now, volume.iops.get()),
            known(known_now, volume.throughput_mb_s.get()),
            format!("{:.3}", volume.latency_ms.get()),
            known(volume.rates_known(), volume.max_iops.get()),
            known(volume.rates_known(), volume.max_throughput_mb_s.get()),
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
