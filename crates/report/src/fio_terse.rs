//! fio's terse output, version 3 (`--output-format=terse`, `--minimal`): one `;`-separated
//! line per job, still read by many scripts. Fields, as fio 3.33 writes them: `3;VERSION;
//! jobname;groupid;error`, then for reads and for writes: KiB moved, bandwidth KiB/s, IOPS,
//! runtime ms, submission latency (min;max;mean;stdev in µs), completion latency, 20
//! `P%=VALUE` completion-latency percentiles (µs, padded with `0%=0`), total latency, bandwidth
//! (min;max;share of the group;mean;stdev KiB/s); then CPU (usr%;sys%;ctx;majf;minf), 7 IO
//! depth shares, 10 µs latency shares (ns ranges folded into the first, as fio does), 12 ms
//! latency shares, and per measured disk its nine `disk_util` fields.

use crate::fio_common::interval_rates;
use crate::fio_common::{depth_shares, latency_range_shares, percentile_list, FioOutput};
use crate::fio_json::rate_stats;
use iofit_model::job::Reporting;
use iofit_stats::{Ddir, DirectionResult, JobResult, LatencySummary, RunResult};
use std::collections::BTreeMap;
use std::fmt::Write;

/// fio keeps at most this many percentiles, and terse always prints this many fields.
const PERCENTILE_FIELDS: usize = 20;

/// One line per job.
pub fn render(run: &RunResult, output: &FioOutput) -> String {
    let mut group_bw: BTreeMap<u32, [f64; 2]> = BTreeMap::new();
    for job in &run.jobs {
        let entry = group_bw.entry(job.group_id).or_default();
        entry[0] += job.read.bandwidth_bytes_per_second;
        entry[1] += job.write.bandwidth_bytes_per_second;
    }
    let mut out = String::new();
    for (index, job) in run.jobs.iter().enumerate() {
        let group = group_bw.get(&job.group_id).copied().unwrap_or_default();
        let reporting = output.job(index);
        let _ = write!(
            out,
            "3;iofit-{};{};{};{}",
            run.version,
            job.name,
            job.group_id,
            u8::from(job.error.is_some())
        );
        for (d, read, agg) in [(&job.read, true, group[0]), (&job.write, false, group[1])] {
            direction(&mut out, d, job, read, agg, &reporting);
        }
        tail(&mut out, job, run);
        if job.fio.continue_on_error {
            // fio appends the error count and first errno for a job with continue_on_error.
            let _ = write!(out, ";{};{}", job.fio.total_err, job.fio.first_error);
        }
        out.push('\n');
    }
    out
}

fn direction(
    out: &mut String,
    d: &DirectionResult,
    job: &JobResult,
    read: bool,
    group_bw: f64,
    reporting: &Reporting,
) {
    let _ = write!(
        out,
        ";{};{};{};{}",
        d.io_bytes.as_u64() >> 10,
        (d.bandwidth_bytes_per_second / 1024.0).round() as u64,
        d.iops.get().round() as u64,
        d.runtime_ns.get() / 1_000_000
    );
    latency(out, &d.submission_latency);
    latency(out, &d.completion_latency);
    let summary = if reporting.lat_percentiles && !reporting.clat_percentiles {
        &d.total_latency
    } else {
        &d.completion_latency
    };
    let list = if summary.count > 0 && (reporting.clat_percentiles || reporting.lat_percentiles) {
        percentile_list(reporting)
    } else {
        Vec::new()
    };
    for index in 0..PERCENTILE_FIELDS {
        match list.get(index) {
            Some(&p) => {
                let _ = write!(out, ";{p:.6}%={}", summary.percentile_or_bins_ns(p) / 1000);
            }
            None => out.push_str(";0%=0"),
        }
    }
    latency(out, &d.total_latency);
    let (bw, _) = if d.ios > 0 {
        let ddir = if read { Ddir::Read } else { Ddir::Write };
        interval_rates(&job.series, ddir)
    } else {
        (Vec::new(), Vec::new())
    };
    let (min, max, mean, dev, samples) = rate_stats(&bw);
    let share = if samples > 0 && group_bw > 0.0 {
        (mean * 100.0 / (group_bw / 1024.0)).min(100.0)
    } else {
        0.0
    };
    let _ = write!(
        out,
        ";{};{};{share:.6}%;{mean:.6};{dev:.6}",
        min.round() as u64,
        max.round() as u64
    );
}

/// min;max;mean;stdev in µs, zeros when nothing was measured (fio's `calc_lat` false).
fn latency(out: &mut String, s: &LatencySummary) {
    if s.count == 0 {
        out.push_str(";0;0;0.000000;0.000000");
        return;
    }
    let _ = write!(
        out,
        ";{};{};{:.6};{:.6}",
        s.min_ns.get() / 1000,
        s.max_ns.get() / 1000,
        s.mean_ns.get() / 1000.0,
        s.stdev_ns.get() / 1000.0
    );
}

/// CPU, IO depths, µs and ms latency shares, disks.
fn tail(out: &mut String, job: &JobResult, run: &RunResult) {
    let _ = write!(
        out,
        ";{:.6}%;{:.6}%;{};{};{}",
        job.usr_cpu_pct,
        job.sys_cpu_pct,
        job.context_switches,
        job.fio.major_faults,
        job.fio.minor_faults
    );
    let [depths, _, _] = depth_shares(job);
    for share in depths {
        let _ = write!(out, ";{share:.1}%");
    }
    let ranges = latency_range_shares(job);
    let mut micro: Vec<f64> = ranges[10..20].to_vec();
    micro[0] += ranges[..10].iter().sum::<f64>();
    for share in micro.iter().chain(&ranges[20..]) {
        let _ = write!(out, ";{share:.2}%");
    }
    for d in &run.disk_util {
        let _ = write!(
            out,
            ";{};{};{};{};{};{};{};{};{:.2}%",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_where_fio_puts_them() {
        let run = crate::fio_json::tests::sample_run();
        let text = render(&run, &FioOutput::default());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        let fields: Vec<&str> = lines[0].split(';').collect();
        // 5 + 2 x 41 + 5 CPU + 7 depths + 10 µs + 12 ms = 121, as fio 3.33 without disks.
        assert_eq!(fields.len(), 121);
        assert_eq!(&fields[..5], ["3", "iofit-0.1.0", "reader1", "0", "0"]);
        // Reads: 30030 IOs of 4 KiB = 120120 KiB at 10010 IOPS over 3000 ms.
        assert_eq!(&fields[5..9], ["120120", "40040", "10010", "3000"]);
        assert!(fields[17].starts_with("1.000000%="));
        assert_eq!(fields[36], "0%=0");
        // The write side of a read-only job is all zeros.
        assert_eq!(&fields[46..50], ["0", "0", "0", "0"]);
        assert_eq!(fields[87], "3.500000%");
        // Every IO was issued at depth 1 in the sample (no depth counts: all zero).
        let shares: f64 = fields[92..99]
            .iter()
            .map(|f| f.trim_end_matches('%').parse::<f64>().unwrap())
            .sum();
        assert!(shares == 0.0 || (shares - 100.0).abs() < 0.5);
        let latency: f64 = fields[99..121]
            .iter()
            .map(|f| f.trim_end_matches('%').parse::<f64>().unwrap())
            .sum();
        assert!((latency - 100.0).abs() < 0.1, "{latency}");
    }
}
