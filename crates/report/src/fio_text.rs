//! Human-readable run results with the facts fio's normal output gives, laid out the same way
//! so fio users find them where they expect: per job IOPS, bandwidth (binary and decimal
//! units, both named), IO moved and runtime; submission, completion and total latency with the
//! unit in brackets; completion-latency percentiles; per-interval bandwidth and IOPS spread;
//! CPU; and per reporting group the aggregate. iofit adds which engine really ran, the seed,
//! and whether the job was interrupted or failed.

use crate::fio_json::{ctime_utc, interval_rates, rate_stats};
use iofit_stats::{DirectionResult, JobResult, LatencySummary, RunResult};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Renders every job, then one "Run status" block per reporting group.
pub fn render(run: &RunResult) -> String {
    let mut out = String::new();
    let mut group_bw: BTreeMap<u32, [f64; 2]> = BTreeMap::new();
    for job in &run.jobs {
        let entry = group_bw.entry(job.group_id).or_default();
        entry[0] += job.read.bandwidth_bytes_per_second;
        entry[1] += job.write.bandwidth_bytes_per_second;
    }
    for job in &run.jobs {
        let bw = group_bw.get(&job.group_id).copied().unwrap_or_default();
        render_job(&mut out, job, run.timestamp_s, bw);
        out.push('\n');
    }
    for (group, _) in group_bw {
        render_group(
            &mut out,
            group,
            run.jobs.iter().filter(|j| j.group_id == group),
        );
    }
    out
}

fn render_job(out: &mut String, job: &JobResult, timestamp_s: u64, group_bw: [f64; 2]) {
    let err = if job.error.is_some() { 1 } else { 0 };
    let _ = writeln!(
        out,
        "{}: (groupid={}, jobs={}): err={:2}: {}",
        job.name,
        job.group_id,
        job.clones,
        err,
        ctime_utc(timestamp_s)
    );
    for (label, d, read, bw) in [
        ("read", &job.read, true, group_bw[0]),
        ("write", &job.write, false, group_bw[1]),
    ] {
        if d.ios == 0 {
            continue;
        }
        render_direction(out, label, d, job, read, bw);
    }
    let _ = writeln!(
        out,
        "  cpu          : usr={:.2}%, sys={:.2}%, ctx={}",
        job.usr_cpu_pct, job.sys_cpu_pct, job.context_switches
    );
    let engine = match (job.engine_requested, job.engine_used) {
        (Some(asked), Some(used)) if asked != used => {
            format!(
                "ran {} (the job asked for {})",
                used.fio_name(),
                asked.fio_name()
            )
        }
        (_, Some(used)) => format!("ran {}", used.fio_name()),
        _ => "unknown".to_string(),
    };
    let _ = writeln!(
        out,
        "  engine       : {engine}, iodepth={}, seed={}{}",
        job.iodepth,
        job.random_seed,
        if job.syncs > 0 {
            format!(", syncs={}", job.syncs)
        } else {
            String::new()
        }
    );
    if job.interrupted {
        let _ = writeln!(
            out,
            "  note         : interrupted (Ctrl-C); the numbers cover what ran before it"
        );
    }
    if let Some(error) = &job.error {
        let _ = writeln!(out, "  error        : {error}");
    }
    if let Some(v) = &job.verify {
        render_verify(out, v);
    }
}

/// The verify line, and the first bad units with file, offset, length, expected and found.
fn render_verify(out: &mut String, v: &iofit_stats::VerifyResult) {
    let _ = writeln!(
        out,
        "  verify       : {}, {} units checked, {} bad",
        v.mode, v.units_checked, v.bad_units
    );
    for e in v.errors.iter().take(10) {
        let _ = writeln!(
            out,
            "  data error   : {} offset {} length {}: {}: expected {}, found {}",
            e.file, e.offset, e.length, e.kind, e.expected, e.found
        );
    }
    if v.bad_units > 10 {
        let _ = writeln!(
            out,
            "  data error   : ... {} more (the JSON lists up to 100)",
            v.bad_units - 10
        );
    }
}

fn render_direction(
    out: &mut String,
    label: &str,
    d: &DirectionResult,
    job: &JobResult,
    read: bool,
    group_bw: f64,
) {
    let _ = writeln!(
        out,
        "  {label}: IOPS={}, BW={} ({})({}/{}msec)",
        count(d.iops),
        binary_rate(d.bandwidth_bytes_per_second),
        decimal_rate(d.bandwidth_bytes_per_second),
        binary_size(d.io_bytes as f64),
        d.runtime_ns / 1_000_000
    );
    for (name, summary) in [
        (" slat", &d.submission_latency),
        (" clat", &d.completion_latency),
        ("  lat", &d.total_latency),
    ] {
        if summary.count == 0 {
            continue;
        }
        let (unit, div) = latency_unit(summary.min_ns as f64);
        let _ = writeln!(
            out,
            "   {name} ({unit}): min={}, max={}, avg={:.2}, stdev={:.2}",
            plain(summary.min_ns as f64 / div),
            plain(summary.max_ns as f64 / div),
            summary.mean_ns / div,
            summary.stdev_ns / div
        );
    }
    render_percentiles(out, &d.completion_latency);
    let (bw, iops) = interval_rates(&job.series, read);
    if !bw.is_empty() {
        let (min, max, mean, dev, samples) = rate_stats(&bw);
        let per = if group_bw > 0.0 {
            d.bandwidth_bytes_per_second * 100.0 / group_bw
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            "   bw (  KiB/s): min={:.0}, max={:.0}, per={per:.2}%, avg={mean:.2}, stdev={dev:.2}, samples={}",
            min,
            max,
            samples
        );
        let (min, max, mean, dev, samples) = rate_stats(&iops);
        let _ = writeln!(
            out,
            "   iops        : min={:.0}, max={:.0}, avg={mean:.2}, stdev={dev:.2}, samples={}",
            min, max, samples
        );
    }
}

fn render_percentiles(out: &mut String, summary: &LatencySummary) {
    if summary.count == 0 || summary.percentiles_ns.is_empty() {
        return;
    }
    let top = summary
        .percentiles_ns
        .iter()
        .map(|(_, v)| *v)
        .max()
        .unwrap_or(0) as f64;
    let (unit, div) = if top < 100_000.0 {
        ("nsec", 1.0)
    } else if top < 100_000_000.0 {
        ("usec", 1_000.0)
    } else {
        ("msec", 1_000_000.0)
    };
    let _ = writeln!(out, "    clat percentiles ({unit}):");
    for row in summary.percentiles_ns.chunks(4) {
        let cells: Vec<String> = row
            .iter()
            .map(|(p, v)| format!("{p:5.2}th=[{:5.0}]", *v as f64 / div))
            .collect();
        let _ = writeln!(out, "     | {},", cells.join(", "));
    }
    // fio ends the block without a trailing comma.
    if out.ends_with(",\n") {
        out.truncate(out.len() - 2);
        out.push('\n');
    }
}

fn render_group<'a>(out: &mut String, group: u32, jobs: impl Iterator<Item = &'a JobResult>) {
    let jobs: Vec<&JobResult> = jobs.collect();
    let _ = writeln!(out, "Run status group {group} (all jobs):");
    for (label, pick) in [
        (
            "READ",
            (|j: &JobResult| j.read.clone()) as fn(&JobResult) -> DirectionResult,
        ),
        ("WRITE", |j: &JobResult| j.write.clone()),
    ] {
        let dirs: Vec<DirectionResult> =
            jobs.iter().map(|j| pick(j)).filter(|d| d.ios > 0).collect();
        if dirs.is_empty() {
            continue;
        }
        let total_bw: f64 = dirs.iter().map(|d| d.bandwidth_bytes_per_second).sum();
        let min_bw = dirs
            .iter()
            .map(|d| d.bandwidth_bytes_per_second)
            .fold(f64::INFINITY, f64::min);
        let max_bw = dirs
            .iter()
            .map(|d| d.bandwidth_bytes_per_second)
            .fold(0.0, f64::max);
        let io: u64 = dirs.iter().map(|d| d.io_bytes).sum();
        let run_min = dirs
            .iter()
            .map(|d| d.runtime_ns / 1_000_000)
            .min()
            .unwrap_or(0);
        let run_max = dirs
            .iter()
            .map(|d| d.runtime_ns / 1_000_000)
            .max()
            .unwrap_or(0);
        let _ = writeln!(
            out,
            "{label:>7}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={run_min}-{run_max}msec",
            binary_rate(total_bw),
            decimal_rate(total_bw),
            binary_rate(min_bw),
            binary_rate(max_bw),
            decimal_rate(min_bw),
            decimal_rate(max_bw),
            binary_size(io as f64),
            decimal_size(io as f64),
        );
    }
}

/// The unit fio would pick for a latency line, from its minimum.
fn latency_unit(min_ns: f64) -> (&'static str, f64) {
    if min_ns < 10_000.0 {
        ("nsec", 1.0)
    } else if min_ns < 10_000_000.0 {
        ("usec", 1_000.0)
    } else {
        ("msec", 1_000_000.0)
    }
}

fn plain(value: f64) -> String {
    format!("{}", value.round() as u64)
}

/// Three significant digits with k/M/G above 9999, as fio prints IOPS: 9876, 12.5k, 256k.
pub fn count(value: f64) -> String {
    if value < 10_000.0 {
        return format!("{value:.0}");
    }
    let mut scaled = value;
    let mut unit = 0;
    let units = ["", "k", "M", "G", "T"];
    while scaled >= 1000.0 && unit < units.len() - 1 {
        scaled /= 1000.0;
        unit += 1;
    }
    format!("{}{}", three_digits(scaled), units[unit])
}

fn three_digits(value: f64) -> String {
    if value < 10.0 {
        format!("{value:.2}")
    } else if value < 100.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.0}")
    }
}

fn scaled(value: f64, step: f64, units: &[&str]) -> String {
    let mut v = value;
    let mut unit = 0;
    while v >= step && unit < units.len() - 1 {
        v /= step;
        unit += 1;
    }
    format!("{}{}", three_digits(v), units[unit])
}

/// Bytes per second in powers of 1024: `48.8MiB/s`.
pub fn binary_rate(bytes_per_second: f64) -> String {
    scaled(
        bytes_per_second,
        1024.0,
        &["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"],
    )
}

/// Bytes per second in powers of 1000 (MB = 10^6 bytes): `51.2MB/s`.
pub fn decimal_rate(bytes_per_second: f64) -> String {
    scaled(
        bytes_per_second,
        1000.0,
        &["B/s", "kB/s", "MB/s", "GB/s", "TB/s"],
    )
}

pub fn binary_size(bytes: f64) -> String {
    scaled(bytes, 1024.0, &["B", "KiB", "MiB", "GiB", "TiB"])
}

pub fn decimal_size(bytes: f64) -> String {
    scaled(bytes, 1000.0, &["B", "kB", "MB", "GB", "TB"])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_like_fio() {
        assert_eq!(count(256_000.0), "256k");
        assert_eq!(count(12_500.0), "12.5k");
        assert_eq!(count(9_876.0), "9876");
        assert_eq!(count(1_234_567.0), "1.23M");
        assert_eq!(binary_rate(1_048_576_000.0), "1000MiB/s");
        assert_eq!(decimal_rate(1_048_576_000.0), "1.05GB/s");
        assert_eq!(binary_rate(12_500.0 * 4096.0), "48.8MiB/s");
        assert_eq!(binary_size(1024.0 * 1024.0), "1.00MiB");
    }

    #[test]
    fn snapshot() {
        let run = crate::fio_json::tests::sample_run();
        insta::assert_snapshot!(render(&run));
    }
}
