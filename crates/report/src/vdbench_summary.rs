//! A vdbench-style summary: per run a "Starting RD=..." header, one line per reporting interval
//! and an `avg_F-L` line over the measured intervals, so the NetApp seed's advice "grep avg from
//! the summary" works on iofit's output. Also the latency-versus-IOPS table of an
//! `iorate=curve` run with its knee.
//!
//! Columns follow vdbench's summary: i/o rate (IO/s), MB/sec counted as 1024**2 bytes (as
//! vdbench does), bytes per IO, read %, response time in ms. Per-interval samples carry a mean and
//! a p99 latency; the avg line comes from the run's full histograms (read and write response
//! times, max, standard deviation). Queue depth is Little's law: rate x response time.

use iofit_stats::{IntervalSample, JobResult};
use std::fmt::Write;

/// What the header of one run says.
#[derive(Clone, Debug, PartialEq)]
pub struct RunHeader {
    pub rd: String,
    /// "threads=25 xfersize=8k", empty when the run has no for-loops.
    pub for_label: String,
    /// "Uncontrolled MAX", "5000", "curve 50% of max (26172)".
    pub iorate_label: String,
    pub elapsed_s: f64,
    pub warmup_s: f64,
    pub interval_s: f64,
    /// Unix time at which the measured window started (for the time-of-day column).
    pub start_unix_s: f64,
}

/// One summary line's numbers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryLine {
    pub iops: f64,
    pub mib_per_s: f64,
    pub bytes_per_io: f64,
    pub read_pct: f64,
    pub resp_ms: f64,
    pub resp_p99_ms: f64,
    pub queue_depth: f64,
}

impl SummaryLine {
    /// The line of one interval sample.
    pub fn from_interval(sample: &IntervalSample) -> SummaryLine {
        let seconds = (sample.interval_ms as f64 / 1000.0).max(f64::MIN_POSITIVE);
        let ios = (sample.read_ios + sample.write_ios) as f64;
        let bytes = (sample.read_bytes + sample.write_bytes) as f64;
        let iops = ios / seconds;
        let resp_ms = sample.latency_mean_ns / 1e6;
        SummaryLine {
            iops,
            mib_per_s: bytes / seconds / 1_048_576.0,
            bytes_per_io: if ios > 0.0 { bytes / ios } else { 0.0 },
            read_pct: if ios > 0.0 {
                sample.read_ios as f64 * 100.0 / ios
            } else {
                0.0
            },
            resp_ms,
            resp_p99_ms: sample.latency_p99_ns as f64 / 1e6,
            queue_depth: iops * resp_ms / 1000.0,
        }
    }
}

/// The avg line's extra facts, from the full histograms of the measured window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AvgLine {
    pub line: SummaryLine,
    pub read_resp_ms: f64,
    pub write_resp_ms: f64,
    pub resp_max_ms: f64,
    pub resp_stddev_ms: f64,
}

impl AvgLine {
    /// Averages over a job result (all clones merged): IOs / measured seconds, total latency.
    pub fn from_job(job: &JobResult) -> AvgLine {
        let runtime_ns = job.read.runtime_ns.max(job.write.runtime_ns);
        let seconds = (runtime_ns as f64 / 1e9).max(f64::MIN_POSITIVE);
        let ios = (job.read.ios + job.write.ios) as f64;
        let bytes = (job.read.io_bytes + job.write.io_bytes) as f64;
        let read_lat = &job.read.total_latency;
        let write_lat = &job.write.total_latency;
        let count = (read_lat.count + write_lat.count) as f64;
        let mean_ns = if count > 0.0 {
            (read_lat.mean_ns * read_lat.count as f64 + write_lat.mean_ns * write_lat.count as f64)
                / count
        } else {
            0.0
        };
        // Pooled standard deviation of the two directions around the overall mean.
        let stddev_ns = if count > 0.0 {
            let part = |l: &iofit_stats::LatencySummary| {
                l.count as f64 * (l.stdev_ns.powi(2) + (l.mean_ns - mean_ns).powi(2))
            };
            ((part(read_lat) + part(write_lat)) / count).sqrt()
        } else {
            0.0
        };
        let p99 = |l: &iofit_stats::LatencySummary| l.percentile_ns(99.0).unwrap_or(l.max_ns);
        let iops = ios / seconds;
        let resp_ms = mean_ns / 1e6;
        AvgLine {
            line: SummaryLine {
                iops,
                mib_per_s: bytes / seconds / 1_048_576.0,
                bytes_per_io: if ios > 0.0 { bytes / ios } else { 0.0 },
                read_pct: if ios > 0.0 {
                    job.read.ios as f64 * 100.0 / ios
                } else {
                    0.0
                },
                resp_ms,
                resp_p99_ms: p99(read_lat).max(p99(write_lat)) as f64 / 1e6,
                queue_depth: iops * resp_ms / 1000.0,
            },
            read_resp_ms: read_lat.mean_ns / 1e6,
            write_resp_ms: write_lat.mean_ns / 1e6,
            resp_max_ms: read_lat.max_ns.max(write_lat.max_ns) as f64 / 1e6,
            resp_stddev_ms: stddev_ns / 1e6,
        }
    }
}

/// `HH:MM:SS.mmm` (UTC) of a Unix time.
pub fn time_of_day(unix_s: f64) -> String {
    let millis = (unix_s.max(0.0) * 1000.0).round() as u64;
    let day_ms = millis % 86_400_000;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        day_ms / 3_600_000,
        day_ms / 60_000 % 60,
        day_ms / 1000 % 60,
        day_ms % 1000
    )
}

const HEADER_1: &str =
    "              interval        i/o   MB/sec   bytes   read     resp     resp    queue";
const HEADER_2: &str =
    "                             rate  1024**2     i/o    pct     time      p99    depth";

fn line_text(out: &mut String, time: &str, label: &str, l: &SummaryLine) {
    let _ = write!(
        out,
        "{time:<12} {label:>9} {:>10.2} {:>8.2} {:>7.0} {:>6.2} {:>8.3} {:>8.3} {:>8.1}",
        l.iops, l.mib_per_s, l.bytes_per_io, l.read_pct, l.resp_ms, l.resp_p99_ms, l.queue_depth
    );
}

/// The series with every sample shorter than 1 ms folded into the one before: the engine's
/// last sample can hold the IOs that completed at the deadline in a 0 ms interval, and a rate
/// over 0 ms is not a number to print.
pub fn fold_short_intervals(series: &[IntervalSample]) -> Vec<IntervalSample> {
    let mut out: Vec<IntervalSample> = Vec::with_capacity(series.len());
    for sample in series {
        match out.last_mut() {
            Some(prev) if sample.interval_ms == 0 => {
                let (a, b) = (
                    (prev.read_ios + prev.write_ios) as f64,
                    (sample.read_ios + sample.write_ios) as f64,
                );
                if a + b > 0.0 {
                    prev.latency_mean_ns =
                        (prev.latency_mean_ns * a + sample.latency_mean_ns * b) / (a + b);
                }
                prev.latency_p99_ns = prev.latency_p99_ns.max(sample.latency_p99_ns);
                prev.read_ios += sample.read_ios;
                prev.read_bytes += sample.read_bytes;
                prev.write_ios += sample.write_ios;
                prev.write_bytes += sample.write_bytes;
            }
            _ => out.push(sample.clone()),
        }
    }
    out
}

/// Renders one run: header, interval lines and the avg line (`avg_F-L`, F and L the first and
/// last measured interval numbers, as vdbench labels them).
pub fn render_run(header: &RunHeader, series: &[IntervalSample], avg: &AvgLine) -> String {
    let mut out = String::new();
    let for_part = if header.for_label.is_empty() {
        String::new()
    } else {
        format!(" For loops: {}", header.for_label)
    };
    let _ = writeln!(
        out,
        "Starting RD={}; I/O rate: {}; elapsed={}; warmup={}.{}",
        header.rd,
        header.iorate_label,
        trim_float(header.elapsed_s),
        trim_float(header.warmup_s),
        for_part
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "{HEADER_1}");
    let _ = writeln!(out, "{HEADER_2}");
    // Warmup intervals are not in the series; number the measured ones after them, as vdbench.
    let interval_s = header.interval_s.max(f64::MIN_POSITIVE);
    let first = (header.warmup_s / interval_s).round() as usize + 1;
    let series = fold_short_intervals(series);
    for (index, sample) in series.iter().enumerate() {
        let time = time_of_day(header.start_unix_s + sample.start_ms as f64 / 1000.0);
        line_text(
            &mut out,
            &time,
            &(first + index).to_string(),
            &SummaryLine::from_interval(sample),
        );
        out.push('\n');
    }
    let last = first + series.len().saturating_sub(1);
    let end_time = time_of_day(
        header.start_unix_s
            + series
                .last()
                .map(|s| (s.start_ms + s.interval_ms) as f64 / 1000.0)
                .unwrap_or(0.0),
    );
    line_text(
        &mut out,
        &end_time,
        &format!("avg_{first}-{last}"),
        &avg.line,
    );
    let _ = writeln!(
        out,
        "  read resp {:.3} ms, write resp {:.3} ms, resp max {:.3} ms, resp stddev {:.3} ms",
        avg.read_resp_ms, avg.write_resp_ms, avg.resp_max_ms, avg.resp_stddev_ms
    );
    out
}

fn trim_float(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value}")
    }
}

/// One measured point of an `iorate=curve` run.
#[derive(Clone, Debug, PartialEq)]
pub struct CurvePoint {
    /// "max" or the percentage of the measured max that was asked for.
    pub label: String,
    pub target_iops: Option<f64>,
    pub iops: f64,
    pub resp_ms: f64,
}

/// The latency-versus-IOPS table of a curve run, with the knee marked.
pub fn render_curve(rd: &str, points: &[CurvePoint], knee: Option<usize>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Curve for RD={rd}: response time against IO rate");
    let _ = writeln!(out, "  point     target IO/s   measured IO/s   resp ms");
    for (index, p) in points.iter().enumerate() {
        let target = p
            .target_iops
            .map(|t| format!("{t:.0}"))
            .unwrap_or_else(|| "max".to_string());
        let mark = if Some(index) == knee { "  <- knee" } else { "" };
        let _ = writeln!(
            out,
            "  {:<8} {:>12} {:>15.1} {:>9.3}{mark}",
            p.label, target, p.iops, p.resp_ms
        );
    }
    match knee.and_then(|k| points.get(k)) {
        Some(p) => {
            let _ = writeln!(
                out,
                "knee: {} ({:.0} IO/s at {:.3} ms): beyond it latency grows faster than IO rate",
                p.label, p.iops, p.resp_ms
            );
        }
        None => {
            let _ = writeln!(out, "knee: not found (response time is flat over the measured rates, or fewer than three points)");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_stats::{DirectionResult, LatencySummary};

    #[test]
    fn a_zero_length_last_sample_is_folded_into_the_one_before() {
        let mut tail = sample(2000, 10, 0, 3000.0);
        tail.interval_ms = 0;
        let series = [sample(0, 100, 0, 1000.0), sample(1000, 90, 0, 1000.0), tail];
        let folded = fold_short_intervals(&series);
        assert_eq!(folded.len(), 2);
        assert_eq!(folded[1].read_ios, 100);
        assert_eq!(folded[1].read_bytes, 100 * 8192);
        assert!((folded[1].latency_mean_ns - 1200.0).abs() < 1e-9);
        // IOs are kept: the folded series holds every IO of the original.
        let ios = |s: &[IntervalSample]| s.iter().map(|x| x.read_ios).sum::<u64>();
        assert_eq!(ios(&folded), ios(&series));
        let header = RunHeader {
            rd: "r".into(),
            iorate_label: "max".into(),
            elapsed_s: 2.0,
            warmup_s: 0.0,
            interval_s: 1.0,
            for_label: String::new(),
            start_unix_s: 0.0,
        };
        let text = render_run(&header, &series, &AvgLine::default());
        assert!(
            !text.contains("inf") && text.lines().all(|l| l.len() < 200),
            "{text}"
        );
    }

    fn sample(start_ms: u64, read_ios: u64, write_ios: u64, mean_ns: f64) -> IntervalSample {
        IntervalSample {
            clat_mean_ns: Default::default(),
            slat_mean_ns: Default::default(),
            latency_bins: Default::default(),
            by_direction: None,
            start_ms,
            interval_ms: 1000,
            read_ios,
            read_bytes: read_ios * 8192,
            write_ios,
            write_bytes: write_ios * 8192,
            trim_ios: 0,
            trim_bytes: 0,
            latency_mean_ns: mean_ns,
            latency_p99_ns: (mean_ns * 3.0) as u64,
        }
    }

    #[test]
    fn run_summary_has_intervals_and_avg() {
        let header = RunHeader {
            rd: "RndMix".into(),
            for_label: "threads=25".into(),
            iorate_label: "Uncontrolled MAX".into(),
            elapsed_s: 3.0,
            warmup_s: 1.0,
            interval_s: 1.0,
            start_unix_s: 3600.0 * 13.0 + 0.5,
        };
        let series = vec![
            sample(0, 500, 500, 2_000_000.0),
            sample(1000, 600, 400, 2_500_000.0),
        ];
        let direction = |ios: u64, mean_ns: f64| DirectionResult {
            ios,
            io_bytes: ios * 8192,
            runtime_ns: 2_000_000_000,
            total_latency: LatencySummary {
                fio_ranges: Default::default(),
                count: ios,
                min_ns: 100_000,
                max_ns: 9_000_000,
                mean_ns,
                stdev_ns: 500_000.0,
                percentiles_ns: vec![(99.0, 6_000_000)],
                fio_bins: Vec::new(),
            },
            ..Default::default()
        };
        let job = JobResult {
            read: direction(1100, 2_000_000.0),
            write: direction(900, 2_500_000.0),
            ..Default::default()
        };
        let avg = AvgLine::from_job(&job);
        assert!((avg.line.iops - 1000.0).abs() < 1e-9);
        assert!((avg.line.read_pct - 55.0).abs() < 1e-9);
        assert!((avg.line.resp_ms - 2.225).abs() < 1e-9);
        let text = render_run(&header, &series, &avg);
        insta::assert_snapshot!(text);
        let avg_lines: Vec<&str> = text.lines().filter(|l| l.contains("avg")).collect();
        assert_eq!(avg_lines.len(), 1);
        assert!(avg_lines[0].contains("avg_2-3"));
    }

    #[test]
    fn curve_table_marks_the_knee() {
        let points = vec![
            CurvePoint {
                label: "max".into(),
                target_iops: None,
                iops: 10_000.0,
                resp_ms: 4.0,
            },
            CurvePoint {
                label: "50%".into(),
                target_iops: Some(5000.0),
                iops: 5000.0,
                resp_ms: 0.5,
            },
            CurvePoint {
                label: "90%".into(),
                target_iops: Some(9000.0),
                iops: 9000.0,
                resp_ms: 1.0,
            },
        ];
        let text = render_curve("RndRead", &points, Some(2));
        assert!(text.contains("90%"));
        assert!(text
            .lines()
            .any(|l| l.contains("90%") && l.ends_with("<- knee")));
        assert!(text.contains("knee: 90% (9000 IO/s at 1.000 ms)"));
    }
}
