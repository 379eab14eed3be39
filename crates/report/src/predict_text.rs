//! Text rendering of an `iofit predict` result: what the design delivers, the one binding
//! limit, every limit with its headroom, then warnings and advice. Readable at a glance:
//! the first three lines answer "how much" and "what caps it".

use iofit_model::units::{group_thousands, Iops, MBps};
use iofit_predict::{LimitCheck, LimitStatus, LimitUnit, Prediction, VolumePrediction};
use std::fmt::Write;

/// Formats a number: two decimals below 10, one below 1,000 (grouped), none above.
pub(crate) fn num(value: f64) -> String {
    if !value.is_finite() {
        return format!("{value}");
    }
    if value.abs() < 10.0 && value.fract().abs() > 1e-9 {
        format!("{value:.2}")
    } else if value.abs() >= 1000.0 {
        group_thousands(value.round())
    } else {
        group_thousands(value)
    }
}

fn size(bytes: iofit_model::Bytes) -> String {
    bytes.readable()
}

fn rw_words(volume: &VolumePrediction) -> String {
    let pattern = if volume.random_pct >= 50.0 {
        "random"
    } else {
        "sequential"
    };
    let sizes = if volume.read_io_size_bytes == volume.write_io_size_bytes {
        size(volume.read_io_size_bytes)
    } else {
        format!(
            "{} reads / {} writes",
            size(volume.read_io_size_bytes),
            size(volume.write_io_size_bytes)
        )
    };
    format!("{}% read, {pattern}, {sizes}", num(volume.read_pct))
}

fn status_word(check: &LimitCheck) -> &'static str {
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

fn with_unit(value: f64, unit: LimitUnit) -> String {
    format!("{}{}", num(value), unit.suffix())
}

/// The limits table, one row per limit.
pub(crate) fn limits_table(out: &mut String, limits: &[LimitCheck], indent: &str) {
    let name_width = limits
        .iter()
        .map(|c| c.scope.len() + c.name.len() + 2)
        .max()
        .unwrap_or(10)
        .min(72);
    let _ = writeln!(
        out,
        "{indent}{:<name_width$}  {:>16}  {:>16}  {:>16}  status",
        "limit", "value", "used", "headroom"
    );
    for check in limits {
        let label = format!("{}: {}", check.scope, check.name);
        let value = check
            .limit
            .map(|v| with_unit(v, check.unit))
            .unwrap_or_else(|| "-".into());
        let headroom = match (check.headroom, check.headroom_pct) {
            _ if check.load_unknown => "unknown".into(),
            (Some(h), Some(p)) => format!("{} ({:.0}%)", num(h), p),
            (Some(h), None) => num(h),
            _ => "-".into(),
        };
        // A load from rates an unpublished limit leaves unknown is unknown, not a number.
        let used = if check.load_unknown {
            "unknown".into()
        } else {
            with_unit(check.used, check.unit)
        };
        let _ = writeln!(
            out,
            "{indent}{label:<name_width$}  {value:>16}  {used:>16}  {headroom:>16}  {}",
            status_word(check)
        );
    }
}

/// "45 s", "30 min", "1 h 53 min".
fn duration_words(seconds: f64) -> String {
    let minutes = (seconds / 60.0).round() as u64;
    if seconds < 90.0 {
        format!("{} s", seconds.round())
    } else if minutes < 60 {
        format!("{minutes} min")
    } else {
        format!("{} h {} min", minutes / 60, minutes % 60)
    }
}

/// Renders a prediction as text.
pub fn render(prediction: &Prediction) -> String {
    let mut out = String::new();
    headline(&mut out, prediction);
    assumption_lines(&mut out, prediction);
    let _ = writeln!(out, "\nvolumes");
    for volume in &prediction.volumes {
        volume_lines(&mut out, volume, prediction);
    }
    let _ = writeln!(out, "\nlimits (headroom at the operating point)");
    limits_table(&mut out, &prediction.limits, "  ");

    for (title, items) in [
        ("violations", prediction.violation_sentences()),
        ("warnings", prediction.warning_sentences()),
        ("advice", prediction.advice_sentences()),
    ] {
        if !items.is_empty() {
            let _ = writeln!(out, "\n{title}");
            for item in items {
                let _ = writeln!(out, "  - {item}");
            }
        }
    }
    out
}

/// What the design delivers, bursts to and at most does, and what binds it.
fn headline(out: &mut String, prediction: &Prediction) {
    // A design that cannot be built says so before any number it would deliver.
    if !prediction.violations.is_empty() {
        let _ = writeln!(
            out,
            "IMPOSSIBLE DESIGN: {} (the numbers below are what it would deliver if it could be built)",
            prediction.violation_sentences().join("; ")
        );
    }
    let _ = writeln!(
        out,
        "iofit predict: {} ({})",
        prediction.vm,
        prediction.tables.join(", ")
    );
    let verdict = if !prediction.violations.is_empty() {
        "  (cannot be built)"
    } else {
        match prediction.meets_requirements {
            Some(true) => "  (meets the requirements)",
            Some(false) => "  (DOES NOT meet the requirements)",
            None => "",
        }
    };
    // An unpublished limit has unknown room: rates that run into it are unknown, never
    // the number the published limits alone would give.
    let unpublished = prediction.unpublished_limits().join(", ");
    if prediction.delivered_known() {
        let _ = writeln!(
            out,
            "delivers:  {} IOPS, {} MB/s{verdict}",
            num(prediction.total_iops.get()),
            num(prediction.total_throughput_mb_s.get()),
        );
    } else {
        let _ = writeln!(
            out,
            "delivers:  unknown ({unpublished}: not published){verdict}",
        );
    }
    if let Some(burst) = &prediction.burst {
        let _ = writeln!(
            out,
            "burst:     {} IOPS, {} MB/s for {} from full credits (VM and disk credit bursting, \
             capped by {}), then the figures above",
            num(burst.total_iops.get()),
            num(burst.total_throughput_mb_s.get()),
            duration_words(burst.credit_seconds.get()),
            burst.binding
        );
    }
    if prediction.meets_requirements.is_some() && !prediction.max_known() {
        let _ = writeln!(
            out,
            "maximum:   unknown when every volume runs flat out ({unpublished}: not published)"
        );
    } else if prediction.meets_requirements.is_some()
        && prediction.max_total_iops.get() > prediction.total_iops.get() * (1.0 + 1e-9)
    {
        // With targets, the most every volume can do at once; shown when it exceeds the
        // targets (flat out, one volume may take shared room another's target leaves).
        let _ = writeln!(
            out,
            "maximum:   {} IOPS, {} MB/s when every volume runs flat out",
            num(prediction.max_total_iops.get()),
            num(prediction.max_total_throughput_mb_s.get())
        );
    }
    match &prediction.binding {
        Some(binding) => {
            let _ = writeln!(out, "binding:   {}", binding.words);
        }
        None => {
            let _ = writeln!(out, "binding:   none known (every rate limit unpublished)");
        }
    }
}

/// The units and the latencies and cache hits the prediction assumes.
fn assumption_lines(out: &mut String, prediction: &Prediction) {
    let _ = writeln!(out, "units:     {}", prediction.mb_convention_note);
    let assumptions = &prediction.assumptions;
    let _ = writeln!(
        out,
        "assumed:   {} ms per IO on Premium SSD, Premium SSD v2 and Ultra disks ({})",
        num(assumptions.service_latency_ms.get()),
        assumptions.service_latency_source
    );
    // The Standard HDD and Standard SSD assumptions only where a volume uses that kind.
    let uses = |kind| prediction.volumes.iter().any(|v| v.disk_kind == kind);
    if uses(iofit_model::catalog::DiskKind::StandardHdd) {
        let _ = writeln!(
            out,
            "           {} ms reads, {} ms writes on Standard HDD ({})",
            num(assumptions.hdd_read_latency_ms.get()),
            num(assumptions.hdd_write_latency_ms.get()),
            assumptions.hdd_latency_source
        );
    }
    if uses(iofit_model::catalog::DiskKind::StandardSsd) {
        let _ = writeln!(
            out,
            "           {} ms per IO on Standard SSD ({})",
            num(assumptions.standard_ssd_latency_ms.get()),
            assumptions.standard_ssd_latency_source
        );
    }
    if prediction.volumes.iter().any(|v| v.caching.is_cached()) {
        let _ = writeln!(
            out,
            "           the warm host cache serves {}% of reads on cached disks",
            num(assumptions.cache_hit_pct)
        );
    }
}

/// One volume: its disks, rates, what limits it, its queue and its target.
fn volume_lines(out: &mut String, volume: &VolumePrediction, prediction: &Prediction) {
    let stripe = volume
        .stripe_size_bytes
        .map(|s| format!(", stripe {}", size(s)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "  {}: {} x {} ({}), caching {}{stripe}; {}; {} outstanding IOs",
        volume.label,
        volume.disk_count,
        volume.disk_sku,
        volume.disk_table,
        volume.caching,
        rw_words(volume),
        volume.queue.outstanding_ios
    );
    if volume.rates_known() || volume.target_iops.is_some() {
        let _ = writeln!(
            out,
            "    {} IOPS ({} read, {} write; {} from cache, {} to disks), {} MB/s, latency {} ms",
            num(volume.iops.get()),
            num(volume.read_iops.get()),
            num(volume.write_iops.get()),
            num(volume.cache_read_iops.get()),
            num(volume.disk_iops.get()),
            num(volume.throughput_mb_s.get()),
            num(volume.latency_ms.get())
        );
    } else {
        let _ = writeln!(
            out,
            "    IOPS and MB/s unknown: {} not published",
            volume.unpublished_limits.join(", ")
        );
    }
    if !volume.rates_known() && volume.target_iops.is_some() {
        let _ = writeln!(
            out,
            "    not checked: {} not published",
            volume.unpublished_limits.join(", ")
        );
    }
    let _ = writeln!(out, "    limited by: {}", volume.binding);
    if let Some(effect) = &volume.io_size_effect {
        let _ = writeln!(out, "    io size: {effect}");
    }
    if volume.disk_ios_per_read > 1.0 || volume.disk_ios_per_write > 1.0 {
        let _ = writeln!(
            out,
            "    each IO spans stripe units: {} disk IOs per read, {} per write",
            num(volume.disk_ios_per_read),
            num(volume.disk_ios_per_write)
        );
    }
    let queue = &volume.queue;
    let _ = writeln!(
        out,
        "    queue depth: {} busy of {} members; {} keeps all busy, {} reaches the disks' limits{}",
        queue.busy_members,
        queue.stripe_members,
        queue.depth_to_keep_members_busy,
        queue.depth_to_reach_disk_limits,
        match (queue.depth_for_target, volume.target_iops) {
            (Some(depth), Some(_)) => format!(
                "; Little's law: the target at {} ms = {depth} IOs in flight",
                num(volume
                    .target_latency_ms
                    .unwrap_or(prediction.assumptions.service_latency_ms)
                    .get())
            ),
            _ => String::new(),
        }
    );
    if let Some(meets) = volume.meets_target {
        // A target given as IOPS only still asks IOPS x IO size of MB/s: say so.
        let target_iops = volume.target_iops.map_or(0.0, Iops::get);
        let given_mb_s = volume.target_throughput_mb_s.map_or(0.0, MBps::get);
        let mean_size = volume.read_pct / 100.0 * volume.read_io_size_bytes.as_f64()
            + (1.0 - volume.read_pct / 100.0) * volume.write_io_size_bytes.as_f64();
        let derived_mb_s = target_iops * mean_size / prediction.assumptions.mb.bytes_per_mb();
        // (The planner may round the IO size up by a byte to meet a given MB/s.)
        let mb_text = if derived_mb_s > given_mb_s * 1.001 {
            format!("{} MB/s derived (IOPS x IO size)", num(derived_mb_s))
        } else {
            format!("{} MB/s", num(given_mb_s))
        };
        let _ = writeln!(
            out,
            "    target: {} IOPS, {mb_text}{}: {}",
            num(target_iops),
            volume
                .target_latency_ms
                .map(|l| format!(", <= {} ms", num(l.get())))
                .unwrap_or_default(),
            if meets { "met" } else { "NOT met" }
        );
    }
}

/// Which jobs of a job file each volume carries (`iofit predict --job`), and the rate limits
/// the job file itself sets. `loads` and the prediction's volumes are in the same order.
pub fn job_lines(loads: &[iofit_model::job::TargetLoad], prediction: &Prediction) -> String {
    let mut out = String::from("\nJob file\n");
    for (load, volume) in loads.iter().zip(&prediction.volumes) {
        let w = &load.workload;
        let sizes = match (w.read_pct > 0.0, w.read_pct < 100.0) {
            (true, true) => format!(
                "{} reads / {} writes",
                w.read_io_size.readable(),
                w.write_io_size.readable()
            ),
            (true, false) => format!("{} reads", w.read_io_size.readable()),
            _ => format!("{} writes", w.write_io_size.readable()),
        };
        let _ = writeln!(
            out,
            "  {} <- {} ({}): {:.0}% reads, {:.0}% random, {sizes}, {} threads x QD {}",
            volume.label,
            load.place.display(),
            load.jobs.join(", "),
            w.read_pct,
            w.random_pct,
            w.threads,
            w.queue_depth,
        );
        if let (Some(cap), false) = (load.rate_iops_cap, volume.rates_known()) {
            let _ = writeln!(
                out,
                "    rate_iops x numjobs caps this volume at {} IOPS; what the design delivers is \
                 unknown ({} not published)",
                group_thousands(cap),
                volume.unpublished_limits.join(", ")
            );
        } else if let Some(cap) = load.rate_iops_cap {
            let _ = writeln!(
                out,
                "    rate_iops x numjobs caps this volume at {} IOPS: the job gets {} IOPS (the design's {} or the cap, the lower)",
                group_thousands(cap),
                group_thousands(cap.min(volume.max_iops.get())),
                group_thousands(volume.max_iops.get()),
            );
        }
        if let Some(cap) = load.rate_bytes_per_second_cap {
            let _ = writeln!(
                out,
                "    rate x numjobs caps this volume at {:.1} MiB/s whatever the design delivers",
                cap / (1024.0 * 1024.0)
            );
        }
    }
    out
}
