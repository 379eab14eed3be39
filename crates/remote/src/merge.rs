//! Combining hosts: the combined result of a job is one merged HDR histogram per direction (so
//! its percentiles are those of one histogram that saw every IO, not an average of per-host
//! percentiles), IOs and bytes summed, and the per-second series summed over intervals aligned
//! to the common start.

use iofit_model::units::{Millis, Nanos, UnixSeconds};
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
    let mut combiner = Combiner::default();
    for part in parts {
        combiner.add(part.result, part.stats, part.shift_intervals);
    }
    combiner.finish()
}

/// Per job: merged raw counters, the longest window, summed series and the other totals.
#[derive(Default)]
struct JobAccumulator {
    job: JobResult,
    read: DirectionStats,
    write: DirectionStats,
    trim: DirectionStats,
    read_runtime_ns: u64,
    write_runtime_ns: u64,
    trim_runtime_ns: u64,
    usr_cpu_pct_sum: f64,
    sys_cpu_pct_sum: f64,
    hosts: usize,
    series: Vec<IntervalSample>,
    /// Per interval: sum of mean latency x IOs (for the IO-weighted mean).
    latency_weighted_ns: Vec<f64>,
}

/// Merges hosts one at a time as their results arrive, so the controller holds one set of
/// histograms per job however many hosts there are (memory does not grow with hosts).
#[derive(Default)]
pub struct Combiner {
    jobs: Vec<JobAccumulator>,
    tool: String,
    version: String,
    timestamp_s: Option<u64>,
}

impl Combiner {
    /// Adds one host's result and raw counters (job `i` of `stats` belongs to job `i`).
    pub fn add(
        &mut self,
        result: &RunResult,
        stats: &[(DirectionStats, DirectionStats)],
        shift: usize,
    ) {
        if self.tool.is_empty() {
            self.tool.clone_from(&result.tool);
            self.version.clone_from(&result.version);
        }
        self.timestamp_s = Some(self.timestamp_s.map_or(result.timestamp_s.get(), |t| {
            t.min(result.timestamp_s.get())
        }));
        for (index, (host_job, (r, w))) in result.jobs.iter().zip(stats).enumerate() {
            if index == self.jobs.len() {
                let mut job = host_job.clone();
                job.clones = 0;
                job.syncs = 0;
                job.context_switches = 0;
                job.error = None;
                job.interrupted = false;
                job.series = Vec::new();
                job.trim = Default::default();
                self.jobs.push(JobAccumulator {
                    job,
                    ..Default::default()
                });
            }
            let acc = &mut self.jobs[index];
            acc.read.merge(r);
            acc.write.merge(w);
            // Hosts run at the same time: the combined window is the longest host window.
            acc.read_runtime_ns = acc.read_runtime_ns.max(host_job.read.runtime_ns.get());
            acc.write_runtime_ns = acc.write_runtime_ns.max(host_job.write.runtime_ns.get());
            acc.trim_runtime_ns = acc.trim_runtime_ns.max(host_job.trim.runtime_ns.get());
            acc.job.clones += host_job.clones;
            acc.job.syncs += host_job.syncs;
            acc.job.context_switches += host_job.context_switches;
            acc.job.interrupted |= host_job.interrupted;
            acc.usr_cpu_pct_sum += host_job.usr_cpu_pct;
            acc.sys_cpu_pct_sum += host_job.sys_cpu_pct;
            acc.hosts += 1;
            if let Some(error) = &host_job.error {
                let text = format!("{}: {error}", result.hostname);
                acc.job.error = Some(match acc.job.error.take() {
                    Some(previous) => format!("{previous}; {text}"),
                    None => text,
                });
            }
            add_series(
                &mut acc.series,
                &mut acc.latency_weighted_ns,
                shift,
                &host_job.series,
            );
        }
    }

    /// Adds the trim counters of the host just added (job `i` of `trims` belongs to job `i`).
    pub fn add_trims(&mut self, trims: &[DirectionStats]) {
        for (acc, trim) in self.jobs.iter_mut().zip(trims) {
            acc.trim.merge(trim);
        }
    }

    /// The combined result and the merged raw counters per job.
    pub fn finish(self) -> (RunResult, Vec<(DirectionStats, DirectionStats)>) {
        let mut jobs = Vec::with_capacity(self.jobs.len());
        let mut stats = Vec::with_capacity(self.jobs.len());
        for mut acc in self.jobs {
            if acc.hosts > 0 {
                acc.job.usr_cpu_pct = acc.usr_cpu_pct_sum / acc.hosts as f64;
                acc.job.sys_cpu_pct = acc.sys_cpu_pct_sum / acc.hosts as f64;
            }
            acc.job.read = acc.read.to_result(acc.read_runtime_ns);
            acc.job.write = acc.write.to_result(acc.write_runtime_ns);
            acc.job.trim = acc.trim.to_result(acc.trim_runtime_ns);
            finish_series(&mut acc.series, &acc.latency_weighted_ns);
            acc.job.series = acc.series;
            jobs.push(acc.job);
            stats.push((acc.read, acc.write));
        }
        let result = RunResult {
            disk_util: Default::default(),
            tool: self.tool,
            version: self.version,
            timestamp_s: UnixSeconds(self.timestamp_s.unwrap_or(0)),
            hostname: "All clients".to_string(),
            jobs,
        };
        (result, stats)
    }
}

fn add_series(
    out: &mut Vec<IntervalSample>,
    weighted: &mut Vec<f64>,
    shift: usize,
    series: &[IntervalSample],
) {
    let interval_ms = series.first().map(|s| s.interval_ms.get()).unwrap_or(1000);
    while out.len() < shift + series.len() {
        let i = out.len() as u64;
        out.push(IntervalSample {
            start_ms: Millis(i * interval_ms),
            interval_ms: Millis(interval_ms),
            ..IntervalSample::default()
        });
        weighted.push(0.0);
    }
    for (k, sample) in series.iter().enumerate() {
        let slot = &mut out[shift + k];
        slot.read_ios += sample.read_ios;
        slot.read_bytes += sample.read_bytes;
        slot.write_ios += sample.write_ios;
        slot.write_bytes += sample.write_bytes;
        slot.trim_ios += sample.trim_ios;
        slot.trim_bytes += sample.trim_bytes;
        slot.latency_p99_ns = slot.latency_p99_ns.max(sample.latency_p99_ns);
        slot.latency_max_ns = slot.latency_max_ns.max(sample.latency_max_ns);
        slot.latency_sum_sq_ns2 += sample.latency_sum_sq_ns2;
        // A sum until `finish_series` divides it by the merged reads.
        slot.read_latency_mean_ns += sample.read_latency_mean_ns * sample.read_ios as f64;
        let ios = sample.read_ios + sample.write_ios + sample.trim_ios;
        weighted[shift + k] += sample.latency_mean_ns.get() * ios as f64;
    }
}

fn finish_series(out: &mut [IntervalSample], weighted: &[f64]) {
    for (slot, sum) in out.iter_mut().zip(weighted) {
        let ios = slot.read_ios + slot.write_ios + slot.trim_ios;
        slot.latency_mean_ns = Nanos(if ios == 0 { 0.0 } else { sum / ios as f64 });
        slot.read_latency_mean_ns = if slot.read_ios == 0 {
            Nanos(0.0)
        } else {
            Nanos(slot.read_latency_mean_ns.get() / slot.read_ios as f64)
        };
    }
}

/// Sums interval series aligned by index: part `(shift, series)` contributes its sample `k` to
/// interval `k + shift`. IOs and bytes add; the mean latency is weighted by IOs; the p99 of an
/// interval is the largest host p99 (an upper bound: intervals carry no histograms).
pub fn sum_series(parts: &[(usize, &[IntervalSample])]) -> Vec<IntervalSample> {
    let mut out = Vec::new();
    let mut weighted = Vec::new();
    for (shift, series) in parts {
        add_series(&mut out, &mut weighted, *shift, series);
    }
    finish_series(&mut out, &weighted);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_stats::LatencyHistogram;

    fn sample(i: u64, ios: u64, mean: f64) -> IntervalSample {
        IntervalSample {
            start_ms: iofit_model::units::Millis(i * 1000),
            interval_ms: iofit_model::units::Millis(1000),
            read_ios: ios,
            read_bytes: iofit_model::Bytes(ios * 4096),
            latency_mean_ns: iofit_model::units::Nanos(mean),
            latency_p99_ns: iofit_model::units::Nanos(mean as u64 * 2),
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
        assert_eq!(sum[1].read_bytes, iofit_model::Bytes(210 * 4096));
        assert_eq!(sum[2].start_ms.get(), 2000);
        // IO-weighted mean: (200 x 1000 + 10 x 4000) / 210.
        assert!((sum[1].latency_mean_ns.get() - 240_000.0 / 210.0).abs() < 1e-9);
        assert_eq!(sum[1].latency_p99_ns.get(), 8000);
        // Per-host totals add up to the combined total.
        let total: u64 = sum.iter().map(|s| s.read_ios).sum();
        assert_eq!(total, 600 + 30);
    }

    #[test]
    fn trims_of_every_host_add_up() {
        let trims = |n: u64, ns: u64| {
            let mut t = DirectionStats::default();
            for _ in 0..n {
                t.ios += 1;
                t.io_bytes += iofit_model::Bytes(16384);
                t.completion.record(ns);
                t.total.record(ns);
            }
            t
        };
        let mut combiner = Combiner::default();
        for (n, ns) in [(10, 1_000), (30, 9_000)] {
            let (mut result, stats) = host(&[]);
            result.jobs[0].trim = trims(n, ns).to_result(1_000_000_000);
            combiner.add(&result, &stats, 0);
            combiner.add_trims(&[trims(n, ns)]);
        }
        let (run, _) = combiner.finish();
        let trim = &run.jobs[0].trim;
        assert_eq!(
            (trim.ios, trim.io_bytes),
            (40, iofit_model::Bytes(40 * 16384))
        );
        assert_eq!(trim.completion_latency.count, 40);
        assert!((trim.total_latency.mean_ns.get() - 7_000.0).abs() < 100.0);
        // A host without trim counters (an older worker) adds none: not its first host's block.
        let mut combiner = Combiner::default();
        let (mut result, stats) = host(&[]);
        result.jobs[0].trim = trims(5, 1_000).to_result(1_000_000_000);
        combiner.add(&result, &stats, 0);
        assert_eq!(combiner.finish().0.jobs[0].trim.ios, 0);
    }

    /// A host's raw stats: `n` reads of 4 KiB at the given latencies.
    fn host(latencies: &[u64]) -> (RunResult, Vec<(DirectionStats, DirectionStats)>) {
        let mut read = DirectionStats::default();
        for &ns in latencies {
            read.ios += 1;
            read.io_bytes += iofit_model::Bytes(4096);
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
        assert!((got.mean_ns.get() - want.mean_ns.get()).abs() < 1e-6);
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
        assert_eq!(
            combined.jobs[0].read.io_bytes,
            iofit_model::Bytes(16_000 * 4096)
        );
        assert_eq!(combined.jobs[0].clones, 3);
        assert_eq!(combined.jobs[0].series[0].read_ios, 16_000);
    }
}
