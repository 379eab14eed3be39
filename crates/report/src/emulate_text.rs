//! `iofit emulate`'s text and HTML: the design's caps before the run, the summary of every
//! limit after it, and the report with each limit charted beside its cap over time.

use crate::chart::Series;
use crate::document::Table;
use crate::html::HtmlReport;
use iofit_model::emulation::{DesignLimits, Outcome, Second};

/// What is emulated: the VM's shared caps and each volume's, with bursts and notes.
pub fn header(limits: &DesignLimits) -> String {
    let mut text = format!("emulating {} (limits x {})\n", limits.vm.name, limits.scale);
    let cap = |v: Option<f64>| v.map_or("not published".into(), |v| format!("{v:.1}"));
    // Google Cloud's shared caps are per disk type and per direction, not the VM's total.
    if limits.groups.is_empty() || limits.vm.uncached_iops.is_some() {
        text.push_str(&format!(
            "  VM uncached: {} IOPS, {} MB/s (shared by all volumes)\n",
            cap(limits.vm.uncached_iops.map(|v| v.get())),
            cap(limits.vm.uncached_throughput_mb_s.map(|v| v.get()))
        ));
    }
    for group in &limits.groups {
        let labels: Vec<&str> = group
            .volumes
            .iter()
            .filter_map(|i| limits.volumes.get(*i).map(|v| v.label.as_str()))
            .collect();
        text.push_str(&format!(
            "  {}: read {:.0} IOPS, {:.1} MB/s; write {:.0} IOPS, {:.1} MB/s (shared by {})\n",
            group.name,
            group.read_iops.get(),
            group.read_mb_s.get(),
            group.write_iops.get(),
            group.write_mb_s.get(),
            labels.join(", ")
        ));
    }
    if let (Some(i), Some(m)) = (
        limits.vm.burst_uncached_iops.map(|v| v.get()),
        limits.vm.burst_uncached_throughput_mb_s.map(|v| v.get()),
    ) {
        text.push_str(&format!(
            "  VM burst: {i:.0} IOPS / {m:.1} MB/s while its credits last (VM-level bursting)\n"
        ));
    }
    for volume in &limits.volumes {
        let burst = match (
            volume.burst_iops.map(|v| v.get()),
            volume.burst_throughput_mb_s.map(|v| v.get()),
        ) {
            (Some(i), Some(m)) => format!(", burst {i:.0} IOPS / {m:.0} MB/s while credits last"),
            _ => String::new(),
        };
        text.push_str(&format!(
            "  {}: {}: {:.0} IOPS, {:.1} MB/s{burst}\n",
            volume.label,
            volume.design,
            volume.iops.get(),
            volume.throughput_mb_s.get()
        ));
    }
    for note in &limits.notes {
        text.push_str(&format!("  note: {note}\n"));
    }
    text
}

/// The table of every limit, the binding one, how the command ended and the cleanup.
pub fn summary(outcome: &Outcome) -> String {
    let mut text = String::from(
        "\nlimit                           cap    mean used     peak   mean %  median %  time at >=95%\n",
    );
    for row in &outcome.limits {
        text.push_str(&format!(
            "{:<24} {:>10.1} {:>12.1} {:>8.1} {:>7.1}% {:>8.1}% {:>13.0}%\n",
            row.limit,
            row.cap,
            row.mean_used,
            row.peak_used,
            row.mean_consumed_pct,
            row.median_consumed_pct,
            row.at_limit_pct_of_time
        ));
    }
    match &outcome.binding {
        Some(limit) => text.push_str(&format!("binding: {limit}\n")),
        None => text
            .push_str("binding: none (no limit was used at 50 % or more in the median second)\n"),
    }
    let status = match (outcome.exit_code, outcome.signal) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        _ => "unknown".into(),
    };
    text.push_str(&format!(
        "command: {status}{}\n",
        if outcome.interrupted {
            " (interrupted)"
        } else {
            ""
        }
    ));
    if let Some(burst) = outcome.burst_seconds.map(|s| s.get()) {
        text.push_str(&format!(
            "burst: {burst} of {} s with a cap above its baseline (credit bursting, as predict's \
             burst figure; --no-burst for the sustained limits)\n",
            outcome.seconds.len()
        ));
    }
    for note in &outcome.notes {
        text.push_str(&format!("note: {note}\n"));
    }
    text.push_str(if outcome.cleaned_up {
        "cleanup: every cgroup, mount, loop device and image made was removed\n"
    } else {
        "cleanup: INCOMPLETE (see notes); run `iofit emulate --cleanup`\n"
    });
    text
}

/// The rehearsal as one HTML document: the summary as a table, one chart per limit over time.
pub fn html(limits: &DesignLimits, outcome: &Outcome) -> HtmlReport {
    let mut table = Table::new(
        "Every limit over the whole command",
        &[
            "limit",
            "cap",
            "mean used",
            "peak",
            "mean %",
            "median %",
            "time at >= 95 %",
        ],
    );
    for row in &outcome.limits {
        table = table.row(vec![
            row.limit.clone(),
            format!("{:.1}", row.cap),
            format!("{:.1}", row.mean_used),
            format!("{:.1}", row.peak_used),
            format!("{:.1} %", row.mean_consumed_pct),
            format!("{:.1} %", row.median_consumed_pct),
            format!("{:.0} %", row.at_limit_pct_of_time),
        ]);
    }
    let binding = outcome.binding.as_deref().unwrap_or("none");
    let mut html = HtmlReport::new(format!("iofit emulate: {}", limits.vm.name))
        .section(
            "Design and outcome",
            format!(
                "{}\n\nbinding: {binding}",
                header(limits).replace('\n', "\n\n")
            ),
        )
        .table(table);
    let over_time = |value: &dyn Fn(&Second) -> f64| -> Vec<(f64, f64)> {
        outcome
            .seconds
            .iter()
            .map(|s| (s.t_s.get(), value(s)))
            .collect()
    };
    for (i, volume) in limits.volumes.iter().enumerate() {
        html = html
            .chart(
                format!("{}: IOPS beside its cap", volume.label),
                "seconds",
                "IO/s (Azure IO units)",
                vec![
                    Series::new("used", over_time(&|s| s.volumes[i].iops())),
                    Series::new("cap", over_time(&|s| s.volumes[i].cap_iops.get())),
                ],
            )
            .chart(
                format!("{}: MB/s beside its cap", volume.label),
                "seconds",
                "MB/s (10^6 B/s)",
                vec![
                    Series::new("used", over_time(&|s| s.volumes[i].mb_s())),
                    Series::new("cap", over_time(&|s| s.volumes[i].cap_mb_s.get())),
                ],
            );
    }
    if let Some(cap) = limits.vm.uncached_iops {
        html = html.chart(
            "VM uncached IOPS beside its cap",
            "seconds",
            "IO/s",
            vec![
                Series::new("used", over_time(&|s| s.vm_iops.get())),
                Series::new("cap", over_time(&|_| cap.get())),
            ],
        );
    }
    let notes = outcome
        .notes
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n\n");
    if !notes.is_empty() {
        html = html.section("What the emulation cannot reproduce", notes);
    }
    html
}
