//! Combining hosts: the combined result of a job is one merged HDR histogram per direction (so
//! its percentiles are those of one histogram that saw every IO, not an average of per-host
//! percentiles), IOs and bytes summed, and the per-second series summed over intervals aligned
//! to the common start.

use iofit_stats::{DirectionStats, IntervalSample, JobResult, RunResult};

/// One host's finished result with its raw counters, and how many whole intervals after the
/// earliest host it started (0 when the barrier held to within an interval).
pub struct HostPart<'a> {
    pub result: &'a RunResult,
    pub stats: &'a [(DirectionStats, DirectionStats)],
    pub shift_intervals: usize,
}

/// The combined run: job `i` merges job `i` of every host. Jobs that a host lacks (a host that
/// stopped before finishing them) are combined from the hosts that have them.
pub fn combine(parts: &[HostPart<'_>]) -> (RunResult, Vec<(DirectionStats, DirectionStats)>) {
    let job_count = parts.iter().map(|p| p.result.jobs.len()).max().unwrap_or(0);
    let mut jobs = Vec::with_capacity(job_count);
    let mut stats = Vec::with_capacity(job_count);
    for index in 0..job_count {
        let members: Vec<&HostPart<'_>> = parts
            .iter()
            .filter(|p| index < p.result.jobs.len() && index < p.stats.len())
            .collect();
        let (job, raw) = combine_job(index, &members);
        jobs.push(job);
        stats.push(raw);
    }
    let first = parts.first().map(|p| p.result.clone()).unwrap_or_default();
    let result = RunResult {
        tool: first.tool,
        version: first.version,
        timestamp_s: parts
            .iter()
            .map(|p| p.result.timestamp_s)
            .min()
            .unwrap_or(0),
        hostname: "All clients".to_string(),
        jobs,
    };
    (result, stats)
}

fn combine_job(
    index: usize,
    members: &[&HostPart<'_>],
) -> (JobResult, (DirectionStats, DirectionStats)) {
    let mut read = DirectionStats::default();
    let mut write = DirectionStats::default();
    let mut read_runtime_ns = 0;
    let mut write_runtime_ns = 0;
    let mut series_parts = Vec::with_capacity(members.len());
    let mut job = members
        .first()
        .map(|m| m.result.jobs[index].clone())
        .unwrap_or_default();
    job.clones = 0;
    job.syncs = 0;
    job.context_switches = 0;
    job.error = None;
    job.interrupted = false;
    let mut usr = 0.0;
    let mut sys = 0.0;
    for member in members {
        let host_job = &member.result.jobs[index];
        let (r, w) = &member.stats[index];
        read.merge(r);
        write.merge(w);
        // Hosts run at the same time: the combined window is the longest host window.
        read_runtime_ns = read_runtime_ns.max(host_job.read.runtime_ns);
        write_runtime_ns = write_runtime_ns.max(host_job.write.runtime_ns);
        job.clones += host_job.clones;
        job.syncs += host_job.syncs;
        job.context_switches += host_job.context_switches;
        job.interrupted |= host_job.interrupted;
        usr += host_job.usr_cpu_pct;
        sys += host_job.sys_cpu_pct;
        if let Some(error) = &host_job.error {
            let text = format!("{}: {error}", member.result.hostname);
            job.error = Some(match job.error.take() {
                Some(previous) => format!("{previous}; {text}"),
                None => text,
            });
        }
        series_parts.push((member.shift_intervals, host_job.series.as_slice()));
    }
    if !members.is_empty() {
        job.usr_cpu_pct = usr / members.len() as f64;
        job.sys_cpu_pct = sys / members.len() as f64;
    }
    job.read = read.to_result(read_runtime_ns);
    job.write = write.to_result(write_runtime_ns);
    job.series = sum_series(&series_parts);
    (job, (read, write))
}

/// Sums interval series aligned by index: part `(shift, series)` contributes its sample `k` to
/// interval `k + shift`. IOs and bytes add; the mean latency is weighted by IOs; the p99 of an
/// interval is the largest host p99 (an upper bound: intervals carry no histograms).
pub fn sum_series(parts: &[(usize, &[IntervalSample])]) -> Vec<IntervalSample> {
    let len = parts
        .iter()
        .map(|(shift, s)| shift + s.len())
        .max()
        .unwrap_or(0);
    let interval_ms = parts
        .iter()
        .find_map(|(_, s)| s.first().map(|x| x.interval_ms))
        .unwrap_or(1000);
    let mut out: Vec<IntervalSample> = (0..len)
        .map(|i| IntervalSample {
            start_ms: i as u64 * interval_ms,
            interval_ms,
            ..IntervalSample::default()
        })
        .collect();
    let mut latency_sum = vec![0.0f64; len];
    for (shift, series) in parts {
        for (k, sample) in series.iter().enumerate() {
            let slot = &mut out[shift + k];
            slot.read_ios += sample.read_ios;
            slot.read_bytes += sample.read_bytes;
            slot.write_ios += sample.write_ios;
            slot.write_bytes += sample.write_bytes;
            slot.latency_p99_ns = slot.latency_p99_ns.max(sample.latency_p99_ns);
            latency_sum[shift + k] +=
                sample.latency_mean_ns * (sample.read_ios + sample.write_ios) as f64;
        }
    }
    for (slot, sum) in out.iter_mut().zip(latency_sum) {
        let ios = slot.read_ios + slot.write_ios;
        slot.latency_mean_ns = if ios == 0 { 0.0 } else { sum / ios as f64 };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_stats::LatencyHistogram;

    fn sample(i: u64, ios: u64, mean: f64) -> IntervalSample {
        IntervalSample {
            start_ms: i * 1000,
            interval_ms: 1000,
            read_ios: ios,
            read_bytes: ios * 4096,
            latency_mean_ns: mean,
            latency_p99_ns: mean as u64 * 2,
            ..Default::default()
        }
    }

    #[test]
    fn combined_series_is_the_sum_of_aligned_intervals() {
        let a = vec![
            sample(0, 100, 1000.0),
            sample(1, 200, 1000.0),
            sample(2, 300, 1000.0),
        ];
        let b = vec![sample(0, 10, 4000.0), sample(1, 20, 4000.0)];
        // b started one interval after a.
        let sum = sum_series(&[(0, &a), (1, &b)]);
        assert_eq!(sum.len(), 3);
        assert_eq!(
            sum.iter().map(|s| s.read_ios).collect::<Vec<_>>(),
            vec![100, 210, 320]
        );
        assert_eq!(sum[1].read_bytes, 210 * 4096);
        assert_eq!(sum[2].start_ms, 2000);
        // IO-weighted mean: (200 x 1000 + 10 x 4000) / 210.
        assert!((sum[1].latency_mean_ns - 240_000.0 / 210.0).abs() < 1e-9);
        assert_eq!(sum[1].latency_p99_ns, 8000);
        // Per-host totals add up to the combined total.
        let total: u64 = sum.iter().map(|s| s.read_ios).sum();
        assert_eq!(total, 600 + 30);
    }

    /// A host's raw stats: `n` reads of 4 KiB at the given latencies.
    fn host(latencies: &[u64]) -> (RunResult, Vec<(DirectionStats, DirectionStats)>) {
        let mut read = DirectionStats::default();
        for &ns in latencies {
            read.ios += 1;
            read.io_bytes += 4096;
            read.submission.record(ns / 10);
            read.completion.record(ns);
            read.total.record(ns);
        }
        let job = JobResult {
            name: "j".into(),
            clones: 1,
            read: read.to_result(1_000_000_000),
            series: vec![sample(0, latencies.len() as u64, 1.0)],
            ..Default::default()
        };
        let result = RunResult {
            hostname: "h".into(),
            jobs: vec![job],
            ..Default::default()
        };
        (result, vec![(read, DirectionStats::default())])
    }

    #[test]
    fn combined_percentiles_equal_one_histogram_that_saw_every_io() {
        // Three hosts with very different latencies: a fast, a medium and a slow one.
        let fast: Vec<u64> = (0..10_000).map(|i| 50_000 + i * 3).collect();
        let medium: Vec<u64> = (0..5_000).map(|i| 400_000 + i * 41).collect();
        let slow: Vec<u64> = (0..1_000).map(|i| 9_000_000 + i * 997).collect();
        let hosts = [host(&fast), host(&medium), host(&slow)];
        let parts: Vec<HostPart<'_>> = hosts
            .iter()
            .map(|(r, s)| HostPart {
                result: r,
                stats: s,
                shift_intervals: 0,
            })
            .collect();
        let (combined, _) = combine(&parts);
        let mut all = LatencyHistogram::new();
        for ns in fast.iter().chain(&medium).chain(&slow) {
            all.record(*ns);
        }
        let got = &combined.jobs[0].read.completion_latency;
        let want = all.summary();
        assert_eq!(got.percentiles_ns, want.percentiles_ns);
        assert_eq!(
            (got.count, got.min_ns, got.max_ns),
            (want.count, want.min_ns, want.max_ns)
        );
        assert!((got.mean_ns - want.mean_ns).abs() < 1e-6);
        // Not the average of per-host p99s (what the wrong method would give).
        let averaged: u64 = hosts
            .iter()
            .map(|(r, _)| {
                r.jobs[0]
                    .read
                    .completion_latency
                    .percentile_ns(99.0)
                    .unwrap()
            })
            .sum::<u64>()
            / 3;
        assert_ne!(got.percentile_ns(99.0), Some(averaged));
        // Per-host sums equal the combined totals.
        assert_eq!(combined.jobs[0].read.ios, 16_000);
        assert_eq!(combined.jobs[0].read.io_bytes, 16_000 * 4096);
        assert_eq!(combined.jobs[0].clones, 3);
        assert_eq!(combined.jobs[0].series[0].read_ios, 16_000);
    }
}
