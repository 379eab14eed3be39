//! The seed's requirements checklist as text: per volume each metric at p50/p90/p99 beside the
//! number a design is sized for (`iofit profile` prints it whole, `iofit demo` its tables).

use iofit_model::requirements::BYTES_NOT_MEASURED;
use iofit_model::requirements::{ObservedMetrics, Percentiles, Requirements, VolumeRequirements};

/// The metric lines of one volume: observed percentiles beside the sized number.
fn metric_rows(volume: &VolumeRequirements, o: &ObservedMetrics) -> String {
    let s = &volume.sizing;
    let mut out = String::new();
    let kib = |p: Percentiles| p.scaled(1.0 / 1024.0);
    out.push_str(&row(
        "IOPS",
        Some(o.iops),
        Some(format!("{:.2}", s.iops.get())),
    ));
    out.push_str(&row(
        if o.read_pct_estimated {
            "read % (estimated)"
        } else {
            "read %"
        },
        Some(o.read_pct),
        Some(format!("{:.2}", s.read_pct)),
    ));
    // Write and sequential shares are the complements of the overall read and random
    // shares; their percentiles are not the complements' percentiles, so none are shown.
    out.push_str(&row(
        "write % (100 - read %)",
        None,
        Some(format!("{:.2}", 100.0 - s.read_pct)),
    ));
    out.push_str(&row(
        "random % (estimated)",
        o.random_pct,
        Some(format!("{:.2}", s.random_pct)),
    ));
    out.push_str(&row(
        "sequential % (estimated)",
        None,
        Some(format!("{:.2}", 100.0 - s.random_pct)),
    ));
    // A capture without byte counters has no measured IO size or throughput: say so.
    let bytes_measured = !volume
        .derivation
        .iter()
        .any(|line| line.starts_with(BYTES_NOT_MEASURED));
    out.push_str(&row(
        "IO size KiB",
        Some(kib(o.io_size_bytes)).filter(|_| bytes_measured),
        Some(format!(
            "{:.2}{}",
            s.io_size_bytes.as_f64() / 1024.0,
            if bytes_measured { "" } else { " (assumed)" }
        )),
    ));
    out.push_str(&row(
        "throughput MB/s",
        Some(o.throughput_mb_s).filter(|_| bytes_measured),
        Some(if bytes_measured {
            format!("{:.2}", s.throughput_mb_s.get())
        } else {
            "unknown".to_string()
        }),
    ));
    out.push_str(&row(
        "latency ms",
        o.latency_ms,
        Some(
            s.latency_ms
                .map_or("-".into(), |l| format!("{:.3}", l.get())),
        ),
    ));
    out.push_str(&row(
        "queue depth",
        o.queue_depth,
        s.queue_depth.map(|q| format!("{q:.2}")),
    ));
    out
}

fn row(metric: &str, values: Option<Percentiles>, sized: Option<String>) -> String {
    let cell = |v: f64| format!("{v:>11.2}");
    match values {
        Some(p) => format!(
            "  {metric:<24}{}{}{}{:>12}\n",
            cell(p.p50),
            cell(p.p90),
            cell(p.p99),
            sized.unwrap_or_default()
        ),
        None => format!(
            "  {metric:<24}{:>11}{:>11}{:>11}{:>12}\n",
            "-",
            "-",
            "-",
            sized.unwrap_or_default()
        ),
    }
}

/// The readable checklist under `title`: per volume each metric at p50/p90/p99 and the sized
/// number. `full` adds each volume's sample counts and how every sized number was derived, and
/// the host's CPU and memory; without it, the metric tables alone.
pub fn render(requirements: &Requirements, title: &str, full: bool) -> String {
    let mut out = format!("{title}\n");
    for volume in &requirements.volumes {
        out.push_str(&format!(
            "\nvolume '{}' (role {}, devices {})\n",
            volume.label,
            volume.role.name(),
            volume.devices.join(", ")
        ));
        out.push_str(&format!(
            "  {:<24}{:>11}{:>11}{:>11}{:>12}\n",
            "metric", "p50", "p90", "p99", "sized"
        ));
        let Some(o) = &volume.observed else { continue };
        out.push_str(&metric_rows(volume, o));
        if !full {
            continue;
        }
        out.push_str(&format!(
            "  {} samples; max IOPS {:.2}; throughput MB/s avg {:.2}, max {:.2}{}\n",
            o.samples,
            o.iops_max,
            o.throughput_mb_s_avg,
            o.throughput_mb_s_max,
            match (o.latency_ms_min, o.latency_ms_avg) {
                (Some(min), Some(avg)) => format!("; latency ms min {min:.3}, avg {avg:.3}"),
                _ => String::new(),
            }
        ));
        out.push_str("  how the sized numbers were derived:\n");
        for line in &volume.derivation {
            out.push_str(&format!("    - {line}\n"));
        }
    }
    if !full {
        return out;
    }
    let host = &requirements.host;
    out.push_str("\nhost\n");
    out.push_str(&format!(
        "  {:<24}{:>11}{:>11}{:>11}{:>12}\n",
        "metric", "p50", "p90", "p99", "average"
    ));
    out.push_str(&row(
        "CPU %",
        host.cpu_pct,
        host.cpu_pct_avg.map(|a| format!("{a:.2}")),
    ));
    out.push_str(&row(
        "memory %",
        host.memory_pct,
        host.memory_pct_avg.map(|a| format!("{a:.2}")),
    ));
    if host.cpu_pct.is_none() || host.memory_pct.is_none() {
        out.push_str(
            "  (a dash: the capture has no such counter; iostat has CPU but no memory, sar needs \
             -u/-r, PerfMon needs Processor and Memory counters)\n",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_model::units::{Iops, Millis};
    use iofit_model::SizingTarget;

    /// The sized column prints plain numbers with two (latency: three) decimals: the unit
    /// types' own Display (`12,000 IOPS`) must not reach the table.
    #[test]
    fn sized_column_is_plain_numbers() {
        let observed = ObservedMetrics {
            samples: 10,
            iops: Percentiles {
                p50: 9000.0,
                p90: 10_000.0,
                p99: 11_000.0,
            },
            ..Default::default()
        };
        let requirements = Requirements {
            volumes: vec![VolumeRequirements {
                label: "data".into(),
                sizing: SizingTarget {
                    iops: Iops(12_000.0),
                    latency_ms: Some(Millis(1.5)),
                    ..Default::default()
                },
                observed: Some(observed),
                ..Default::default()
            }],
            ..Default::default()
        };
        let text = render(&requirements, "checklist", false);
        let iops_row = text
            .lines()
            .find(|l| l.trim_start().starts_with("IOPS"))
            .unwrap();
        assert!(iops_row.ends_with("    12000.00"), "{text}");
        assert!(!text.contains("12,000"), "{text}");
        let latency_row = text
            .lines()
            .find(|l| l.trim_start().starts_with("latency ms"))
            .unwrap();
        assert!(latency_row.ends_with("       1.500"), "{text}");
    }
}
