//! Human-readable run results laid out as fio 3.x prints them, so fio users (and scripts that
//! read fio's normal output) find every fact where they expect it: the header (one line per
//! job with rw, bs, ioengine and iodepth, the version, `Starting N processes`), then per job
//! IOPS, bandwidth (binary and decimal units), IO moved and runtime; submission, completion and
//! total latency with the unit in brackets; the percentiles the job asked for; per-interval
//! bandwidth and IOPS spread; fio's latency ranges (`lat (usec): 250=...%`); CPU and page
//! faults; IO depth, submit and complete distributions; issued IOs; the latency target line;
//! per reporting group the aggregate; and `Disk stats`. iofit adds, after fio's lines, which
//! engine really ran, the seed, and whether the job was interrupted or failed.

use crate::fio_common::interval_rates;
use crate::fio_common::{
    depth_shares, directions, latency_range_shares, percentile_list, FioOutput, BATCH_LABELS,
    DEPTH_LABELS,
};
use crate::fio_json::{ctime_utc, rate_stats};
use iofit_model::job::{BlockSizeSpec, JobSpec, Reporting, UnifiedRw};
use iofit_stats::{fio_bins, Ddir, DirectionResult, JobResult, LatencySummary, RunResult};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Renders every job, then one "Run status" block per reporting group, then `Disk stats`.
pub fn render(run: &RunResult) -> String {
    render_with(run, &FioOutput::default())
}

/// As [`render`], with each job's reporting options (percentile lists, unified reporting,
/// significant figures).
pub fn render_with(run: &RunResult, output: &FioOutput) -> String {
    let mut out = String::new();
    let mut group_bw: BTreeMap<u32, [f64; 3]> = BTreeMap::new();
    for job in &run.jobs {
        let entry = group_bw.entry(job.group_id).or_default();
        entry[0] += job.read.bandwidth_bytes_per_second;
        entry[1] += job.write.bandwidth_bytes_per_second;
        entry[2] += job.trim.bandwidth_bytes_per_second;
    }
    for (index, job) in run.jobs.iter().enumerate() {
        let bw = group_bw.get(&job.group_id).copied().unwrap_or_default();
        render_job(&mut out, job, run.timestamp_s.get(), bw, &output.job(index));
        out.push('\n');
    }
    for (group, _) in group_bw {
        let members: Vec<(usize, &JobResult)> = run
            .jobs
            .iter()
            .enumerate()
            .filter(|(_, j)| j.group_id == group)
            .collect();
        let reporting = members
            .first()
            .map(|(i, _)| output.job(*i))
            .unwrap_or_default();
        let jobs: Vec<&JobResult> = members.into_iter().map(|(_, j)| j).collect();
        render_group(&mut out, group, &jobs, &reporting);
    }
    render_disks(&mut out, run);
    out
}

/// fio's lines before a run: one per job (`name: (g=0): rw=..., bs=(R) ..., ioengine=...,
/// iodepth=N`, then `...` for its further clones), the version, and `Starting N processes`.
pub fn header(jobs: &[JobSpec], version: &str) -> String {
    let mut out = String::new();
    for job in jobs {
        let [read, write, trim] = job.stated_block_sizes.map_or_else(
            || {
                let (read, write) = bs_ranges(&job.block_size);
                [read, write, write]
            },
            |stated| stated.map(|(low, high)| (low.as_u64(), high.as_u64())),
        );
        let range = |(low, high): (u64, u64)| format!("{}-{}", size4(low), size4(high));
        let _ = writeln!(
            out,
            "{}: (g={}): rw={}, bs=(R) {}, (W) {}, (T) {}, ioengine={}, iodepth={}",
            job.name,
            job.group_id,
            job.rw.fio_name(),
            range(read),
            range(write),
            range(trim),
            job.engine.fio_name(),
            job.iodepth
        );
        if job.numjobs > 1 {
            out.push_str("...\n");
        }
    }
    let clones: u32 = jobs.iter().map(|j| j.numjobs).sum();
    let _ = writeln!(out, "iofit-{version}");
    let _ = writeln!(
        out,
        "Starting {clones} {}",
        if clones == 1 { "process" } else { "processes" }
    );
    out
}

/// (smallest, largest) IO size of reads and of writes.
fn bs_ranges(spec: &BlockSizeSpec) -> ((u64, u64), (u64, u64)) {
    match spec {
        BlockSizeSpec::Fixed(sizes) => (
            (sizes.read.as_u64(), sizes.read.as_u64()),
            (sizes.write.as_u64(), sizes.write.as_u64()),
        ),
        BlockSizeSpec::Split { read, write } => {
            let range = |shares: &[iofit_model::job::BlockSizeShare]| {
                let sizes = shares.iter().map(|s| s.size.as_u64());
                (sizes.clone().min().unwrap_or(0), sizes.max().unwrap_or(0))
            };
            (range(read), range(write))
        }
    }
}

fn render_job(
    out: &mut String,
    job: &JobResult,
    timestamp_s: u64,
    group_bw: [f64; 3],
    reporting: &Reporting,
) {
    let err = if job.error.is_some() { 1 } else { 0 };
    let _ = writeln!(
        out,
        "{}: (groupid={}, jobs={}): err={:2}: pid={}: {}",
        job.name,
        job.group_id,
        job.clones,
        err,
        job.fio.pid,
        ctime_utc(timestamp_s)
    );
    for (label, d) in directions(job, reporting.unified_rw_reporting) {
        if d.ios == 0 {
            continue;
        }
        let (ddir, bw) = match label {
            "read" => (Some(Ddir::Read), group_bw[0]),
            "write" => (Some(Ddir::Write), group_bw[1]),
            _ => (None, group_bw.iter().sum()),
        };
        render_direction(out, label, &d, job, ddir, bw, reporting);
    }
    if job.trim.ios > 0 && reporting.unified_rw_reporting != UnifiedRw::Mixed {
        let trim = Some(Ddir::Trim);
        render_direction(out, "trim", &job.trim, job, trim, group_bw[2], reporting);
    }
    render_latency_ranges(out, job);
    render_sync(out, job, reporting);
    let _ = writeln!(
        out,
        "  cpu          : usr={:.2}%, sys={:.2}%, ctx={}, majf={}, minf={}",
        job.usr_cpu_pct,
        job.sys_cpu_pct,
        job.context_switches,
        job.fio.major_faults,
        job.fio.minor_faults
    );
    render_depths(out, job);
    render_iofit_lines(out, job);
}

/// fio's `IO depths`, `submit`, `complete`, `issued rwts` and `latency` lines.
fn render_depths(out: &mut String, job: &JobResult) {
    let [depth, submit, complete] = depth_shares(job);
    let line = |labels: &[&str], shares: &[f64]| {
        labels
            .iter()
            .zip(shares)
            .map(|(l, s)| format!("{l}={s:.1}%"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(out, "  IO depths    : {}", line(&DEPTH_LABELS, &depth));
    let _ = writeln!(out, "     submit    : {}", line(&BATCH_LABELS, &submit));
    let _ = writeln!(out, "     complete  : {}", line(&BATCH_LABELS, &complete));
    let _ = writeln!(
        out,
        "     issued rwts: total={},{},{},0 short=0,0,0,0 dropped=0,0,0,0",
        job.read.ios, job.write.ios, job.trim.ios
    );
    if job.fio.continue_on_error {
        let first = job.fio.first_error;
        let _ = writeln!(
            out,
            "     errors    : total={}, first_error={first}/<{}>",
            job.fio.total_err,
            strerror(first)
        );
    }
    let (target_us, window_us, percentile, depth) = match &job.fio.latency_target {
        // fio prints the target in ns and the window in us.
        Some(t) => (
            t.target_us.get() * 1000,
            t.window_us.get(),
            t.percentile,
            t.depth,
        ),
        None => (0, 0, 100.0, job.iodepth),
    };
    let depth = job.latency_depth_found.unwrap_or(depth);
    let _ = writeln!(
        out,
        "     latency   : target={target_us}, window={window_us}, percentile={percentile:.2}%, depth={depth}"
    );
}

/// iofit's own lines, after fio's: the engine that ran, the seed, interruption and error.
fn render_iofit_lines(out: &mut String, job: &JobResult) {
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

/// fio's `lat (usec)   : 250=12.5%, ...` lines: every non-empty range, five a line.
fn render_latency_ranges(out: &mut String, job: &JobResult) {
    let shares = latency_range_shares(job);
    for (unit, range) in [("nsec", 0..10), ("usec", 10..20), ("msec", 20..32)] {
        let cells: Vec<String> = range
            .clone()
            .zip(fio_bins::RANGE_LABELS.iter())
            .filter(|(i, _)| shares[*i] > 0.0)
            .map(|(i, label)| format!("{label}={:.2}%", shares[i]))
            .collect();
        for line in cells.chunks(5) {
            let _ = writeln!(out, "  lat ({unit})   : {}", line.join(", "));
        }
    }
}

fn render_direction(
    out: &mut String,
    label: &str,
    d: &DirectionResult,
    job: &JobResult,
    ddir: Option<Ddir>,
    group_bw: f64,
    reporting: &Reporting,
) {
    let digits = reporting.significant_figures as usize;
    let _ = writeln!(
        out,
        "  {label}: IOPS={}, BW={} ({})({}/{}msec)",
        num2str(d.iops.get().round() as u64, digits, 1000, ""),
        num2str(
            d.bandwidth_bytes_per_second.round() as u64,
            digits,
            1024,
            "B/s"
        ),
        num2str(
            d.bandwidth_bytes_per_second.round() as u64,
            digits,
            1000,
            "B/s"
        ),
        num2str(d.io_bytes.as_u64(), digits, 1024, "B"),
        d.runtime_ns.get() / 1_000_000
    );
    for (name, summary) in [
        (" slat", &d.submission_latency),
        (" clat", &d.completion_latency),
        ("  lat", &d.total_latency),
    ] {
        if summary.count == 0 {
            continue;
        }
        let (unit, div) = latency_unit(summary);
        let _ = writeln!(
            out,
            // fio's stat.c: avg=%5.02f, stdev=%5.02f.
            "   {name} ({unit}): min={}, max={}, avg={:5.2}, stdev={:5.2}",
            plain(summary.min_ns.as_f64().get() / div),
            plain(summary.max_ns.as_f64().get() / div),
            summary.mean_ns.get() / div,
            summary.stdev_ns.get() / div
        );
    }
    let list = percentile_list(reporting);
    for (on, name, summary) in [
        (reporting.slat_percentiles, "slat", &d.submission_latency),
        (reporting.clat_percentiles, "clat", &d.completion_latency),
        (reporting.lat_percentiles, "lat", &d.total_latency),
    ] {
        if on {
            render_percentiles(out, name, summary, &list);
        }
    }
    let (bw, iops) = match ddir {
        Some(ddir) => interval_rates(&job.series, ddir),
        None => crate::fio_common::mixed_rates(&job.series),
    };
    if !bw.is_empty() {
        let (min, max, mean, dev, samples) = rate_stats(&bw);
        let per = if group_bw > 0.0 {
            d.bandwidth_bytes_per_second * 100.0 / group_bw
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            // fio's stat.c: min=%5llu, max=%5llu, per=%3.2f%%, avg=%5.02f, stdev=%5.02f.
            "   bw (  KiB/s): min={:5.0}, max={:5.0}, per={per:3.2}%, avg={mean:5.2}, stdev={dev:5.2}, samples={}",
            min,
            max,
            samples
        );
        let (min, max, mean, dev, samples) = rate_stats(&iops);
        let _ = writeln!(
            out,
            "   iops        : min={:5.0}, max={:5.0}, avg={mean:5.2}, stdev={dev:5.2}, samples={}",
            min, max, samples
        );
    }
}

/// fio's sync lines: the fsync/fdatasync latencies of `fsync=`/`fdatasync=`, when there were
/// any (fio's stat.c prints them after the latency ranges).
fn render_sync(out: &mut String, job: &JobResult, reporting: &Reporting) {
    let summary = &job.sync_latency;
    if summary.count == 0 {
        return;
    }
    let _ = writeln!(out, "  fsync/fdatasync/sync_file_range:");
    let (unit, div) = latency_unit(summary);
    let _ = writeln!(
        out,
        "    sync ({unit}): min={}, max={}, avg={:5.2}, stdev={:5.2}",
        plain(summary.min_ns.as_f64().get() / div),
        plain(summary.max_ns.as_f64().get() / div),
        summary.mean_ns.get() / div,
        summary.stdev_ns.get() / div
    );
    render_percentiles(out, "sync", summary, &percentile_list(reporting));
}

fn render_percentiles(out: &mut String, name: &str, summary: &LatencySummary, list: &[f64]) {
    if summary.count == 0 || list.is_empty() {
        return;
    }
    let values: Vec<(f64, u64)> = list
        .iter()
        .map(|&p| (p, summary.percentile_or_bins_ns(p)))
        .collect();
    // fio's `show_clat_percentiles`: scaled by the smallest and largest value shown.
    let min = values.iter().map(|(_, v)| *v).min().unwrap_or(0);
    let max = values.iter().map(|(_, v)| *v).max().unwrap_or(0);
    let (unit, div) = if min > 2_000_000 && max > 99_999_999 {
        ("msec", 1_000_000.0)
    } else if min > 2_000 && max > 99_999 {
        ("usec", 1_000.0)
    } else {
        ("nsec", 1.0)
    };
    let _ = writeln!(out, "    {name} percentiles ({unit}):");
    // fio prints as many decimals as the most precise percentile needs, in precision + 3.
    let precision = list.iter().map(|&p| decimals(p)).max().unwrap_or(0);
    for row in values.chunks(4) {
        let cells: Vec<String> = row
            .iter()
            // fio rounds each value up per step of 1000 (`(v + 999) / 1000`).
            .map(|(p, v)| {
                let width = precision + 3;
                format!("{p:width$.precision$}th=[{:5}]", v.div_ceil(div as u64))
            })
            .collect();
        let _ = writeln!(out, "     | {},", cells.join(", "));
    }
    // fio ends the block without a trailing comma.
    if out.ends_with(",\n") {
        out.truncate(out.len() - 2);
        out.push('\n');
    }
}

fn render_group(out: &mut String, group: u32, jobs: &[&JobResult], reporting: &Reporting) {
    let _ = writeln!(out, "Run status group {group} (all jobs):");
    let digits = reporting.significant_figures as usize;
    let unified = reporting.unified_rw_reporting;
    let mut labels = Vec::new();
    if unified != UnifiedRw::Mixed {
        labels.extend(["read", "write", "trim"]);
    }
    if unified != UnifiedRw::None {
        labels.push("mixed");
    }
    for label in labels {
        let dirs: Vec<DirectionResult> = jobs
            .iter()
            .flat_map(|j| {
                let mut all = directions(j, unified);
                all.push(("trim", j.trim.clone()));
                all
            })
            .filter(|(l, d)| *l == label && d.ios > 0)
            .map(|(_, d)| d)
            .collect();
        if dirs.is_empty() {
            continue;
        }
        let rates: Vec<u64> = dirs
            .iter()
            .map(|d| d.bandwidth_bytes_per_second.round() as u64)
            .collect();
        let total_bw: u64 = rates.iter().sum();
        let min_bw = rates.iter().copied().min().unwrap_or(0);
        let max_bw = rates.iter().copied().max().unwrap_or(0);
        let io: u64 = dirs.iter().map(|d| d.io_bytes.as_u64()).sum();
        let run_min = dirs
            .iter()
            .map(|d| d.runtime_ns.get() / 1_000_000)
            .min()
            .unwrap_or(0);
        let run_max = dirs
            .iter()
            .map(|d| d.runtime_ns.get() / 1_000_000)
            .max()
            .unwrap_or(0);
        let rate = |v: u64, base: u64| num2str(v, digits, base, "B/s");
        let _ = writeln!(
            out,
            "{:>7}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={run_min}-{run_max}msec",
            label.to_uppercase(),
            rate(total_bw, 1024),
            rate(total_bw, 1000),
            rate(min_bw, 1024),
            rate(max_bw, 1024),
            rate(min_bw, 1000),
            rate(max_bw, 1000),
            num2str(io, digits, 1024, "B"),
            num2str(io, digits, 1000, "B"),
        );
    }
}

/// fio's `Disk stats (read/write):` block, when the run measured any disk.
fn render_disks(out: &mut String, run: &RunResult) {
    if run.disk_util.is_empty() {
        return;
    }
    out.push_str("\nDisk stats (read/write):\n");
    for d in &run.disk_util {
        let _ = writeln!(
            out,
            "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:.2}%",
            d.name,
            d.read_ios,
            d.write_ios,
            d.read_merges,
            d.write_merges,
            d.read_ticks,
            d.write_ticks,
            d.in_queue,
            d.util
        );
    }
}

/// Decimals `percentile` needs to be written exactly (at most 6, fio's JSON precision).
fn decimals(percentile: f64) -> usize {
    (0..6)
        .find(|&d| {
            let scaled = percentile * 10f64.powi(d as i32);
            (scaled - scaled.round()).abs() < 1e-6
        })
        .unwrap_or(6)
}

/// The unit fio picks for a latency line (`display_lat`: msec, else usec, when minimum,
/// maximum and deviation are all large enough).
fn latency_unit(s: &LatencySummary) -> (&'static str, f64) {
    let (min_ns, max_ns, stdev_ns) = (s.min_ns.get(), s.max_ns.get(), s.stdev_ns.get());
    if min_ns > 2_000_000 && max_ns > 99_999_999 && stdev_ns > 1_000_000.0 {
        ("msec", 1_000_000.0)
    } else if min_ns > 2_000 && max_ns > 99_999 && stdev_ns > 1_000.0 {
        ("usec", 1_000.0)
    } else {
        ("nsec", 1.0)
    }
}

fn plain(value: f64) -> String {
    format!("{}", value.round() as u64)
}

/// fio's `num2str`: `num` divided by `base` (1000 or 1024) until it has at most `max_digits`
/// digits, then as many decimals of the remainder as still fit in `max_digits` characters
/// (fio's `significant_figures`), with the unit prefix (k/M/G, or Ki/Mi/Gi for 1024).
pub fn num2str(num: u64, max_digits: usize, base: u64, unit: &str) -> String {
    const SI: [&str; 6] = ["", "k", "M", "G", "T", "P"];
    const IEC: [&str; 6] = ["", "Ki", "Mi", "Gi", "Ti", "Pi"];
    let prefixes = if base == 1024 { IEC } else { SI };
    let max_digits = max_digits.max(1);
    let (mut value, mut index, mut modulo) = (num, 0, None);
    while index < prefixes.len() - 1 && value.to_string().len() > max_digits {
        modulo = Some(value % base);
        value /= base;
        index += 1;
    }
    let Some(modulo) = modulo else {
        return format!("{value}{}{unit}", prefixes[index]);
    };
    let decimals = max_digits as i64 - value.to_string().len() as i64 - 1;
    if decimals <= 0 {
        let carry = u64::from(modulo * 2 >= base);
        return format!("{}{}{unit}", value + carry, prefixes[index]);
    }
    let fraction = format!("{:.*}", decimals as usize, modulo as f64 / base as f64);
    if let Some(digits) = fraction.strip_prefix("0.") {
        format!("{value}.{digits}{}{unit}", prefixes[index])
    } else {
        // The remainder rounded up to a whole unit.
        format!(
            "{}.{}{}{unit}",
            value + 1,
            "0".repeat(decimals as usize),
            prefixes[index]
        )
    }
}

/// fio's byte sizes in the header: `4096B`, `64.0KiB`, `1024KiB`.
fn size4(bytes: u64) -> String {
    num2str(bytes, 4, 1024, "B")
}

/// IOPS as fio prints them at its default 4 significant figures: 9876, 12.5k, 256k.
pub fn count(value: f64) -> String {
    num2str(value.round() as u64, 4, 1000, "")
}

/// Bytes per second in powers of 1024: `48.8MiB/s`.
pub fn binary_rate(bytes_per_second: f64) -> String {
    num2str(bytes_per_second.round() as u64, 4, 1024, "B/s")
}

/// Bytes per second in powers of 1000 (MB = 10^6 bytes): `51.2MB/s`.
pub fn decimal_rate(bytes_per_second: f64) -> String {
    num2str(bytes_per_second.round() as u64, 4, 1000, "B/s")
}

pub fn binary_size(bytes: f64) -> String {
    num2str(bytes.round() as u64, 4, 1024, "B")
}

pub fn decimal_size(bytes: f64) -> String {
    num2str(bytes.round() as u64, 4, 1000, "B")
}

/// The C library's text for an errno, as fio prints it with strerror ("Success" for 0).
fn strerror(errno: i32) -> String {
    if errno == 0 {
        return "Success".into();
    }
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    // Rust appends " (os error N)"; fio prints strerror's text alone.
    match text.rfind(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_like_fio() {
        // fio 3.33's num2str at 4 significant figures, as its output shows them.
        assert_eq!(count(256_000.0), "256k");
        assert_eq!(count(12_500.0), "12.5k");
        assert_eq!(count(9_876.0), "9876");
        assert_eq!(count(1_234_567.0), "1235k");
        assert_eq!(binary_rate(1_048_576_000.0), "1000MiB/s");
        assert_eq!(decimal_rate(1_048_576_000.0), "1049MB/s");
        assert_eq!(binary_rate(12_500.0 * 4096.0), "48.8MiB/s");
        assert_eq!(binary_size(1024.0 * 1024.0), "1024KiB");
        assert_eq!(size4(4096), "4096B");
        assert_eq!(size4(65536), "64.0KiB");
        assert_eq!(size4(128 * 1024), "128KiB");
        assert_eq!(size4(1 << 20), "1024KiB");
        assert_eq!(num2str(1_234_567, 6, 1000, ""), "1234.6k");
        assert_eq!(num2str(999_999, 4, 1000, ""), "1000k");
    }

    #[test]
    fn snapshot() {
        let run = crate::fio_json::tests::sample_run();
        insta::assert_snapshot!(render(&run));
    }
}
