//! vdbench's summary: per run a "Starting RD=..." line, one line per reporting interval
//! (warm-up intervals included) and the `avg_F-L`, `std_F-L` and `max_F-L` lines over the
//! measured intervals, so "grep avg from the summary" and scripts that read the columns by
//! position work on iofit's output. Also the latency-versus-IOPS table of an `iorate=curve`
//! run with its knee.
//!
//! Columns and widths are vdbench 5.04's (Report.createHeaders/reportDetail): interval, i/o
//! rate, MB/sec (1024**2 bytes: Report.MB is 1024*1024 unless vdbench runs with decimal
//! units), bytes/io (integer), read pct, resp time, read resp, write resp, resp max, resp
//! stddev (ms), queue depth, then cpu% sys+u and cpu% sys. Every figure, the avg line's
//! included, comes from the interval samples: the avg line sums the measured intervals' IOs,
//! bytes and latency sums (as SdStats adds its intervals), so it cannot disagree with them.
//! Queue depth is the time-weighted IOs in flight (SdStats.qdepth: rlentime / elapsed), which
//! is rate x response time.

use iofit_model::units::{Iops, Millis, Nanos, Seconds, UnixSeconds};
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
    pub elapsed_s: Seconds,
    pub warmup_s: Seconds,
    pub interval_s: Seconds,
    /// Unix time at which the run (its first interval, warm-up or not) started.
    /// Fractional: the summary rounds it to ms, the flatfile truncates.
    pub start_unix_s: UnixSeconds<f64>,
    /// vdbench's warm-up intervals (at least 1) and all the run's intervals.
    pub warmup_intervals: u64,
    pub total_intervals: u64,
}

impl RunHeader {
    /// The first interval of the average, 1-based (1 when the run has no other).
    pub fn first_measured(&self) -> u64 {
        if self.warmup_intervals >= self.total_intervals {
            1
        } else {
            self.warmup_intervals + 1
        }
    }
}

/// CPU use of the machine over one interval, percent (vdbench's `cpu% sys+u` and `sys`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cpu {
    pub total_pct: f64,
    pub sys_pct: f64,
}

/// The sums one or more intervals add up to (SdStats' counters).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sums {
    seconds: f64,
    read_ios: f64,
    write_ios: f64,
    bytes: f64,
    read_latency_ns: f64,
    latency_ns: f64,
    latency_sq_ns2: f64,
    max_ns: u64,
}

impl Sums {
    fn of(sample: &IntervalSample) -> Sums {
        let read_ios = sample.read_ios as f64;
        let ios = (sample.read_ios + sample.write_ios) as f64;
        Sums {
            seconds: sample.interval_ms.get() as f64 / 1000.0,
            read_ios,
            write_ios: sample.write_ios as f64,
            bytes: (sample.read_bytes + sample.write_bytes).as_f64(),
            read_latency_ns: sample.read_latency_mean_ns.get() * read_ios,
            latency_ns: sample.latency_mean_ns.get() * ios,
            latency_sq_ns2: sample.latency_sum_sq_ns2,
            max_ns: sample.latency_max_ns.get(),
        }
    }

    fn add(&mut self, other: &Sums) {
        self.seconds += other.seconds;
        self.read_ios += other.read_ios;
        self.write_ios += other.write_ios;
        self.bytes += other.bytes;
        self.read_latency_ns += other.read_latency_ns;
        self.latency_ns += other.latency_ns;
        self.latency_sq_ns2 += other.latency_sq_ns2;
        self.max_ns = self.max_ns.max(other.max_ns);
    }
}

/// One summary line's numbers, in vdbench's column order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryLine {
    pub iops: Iops,
    /// Megabytes of 1,048,576 bytes per second (vdbench's MB/sec).
    pub mib_per_s: f64,
    pub bytes_per_io: f64,
    pub read_pct: f64,
    pub resp_ms: Millis,
    pub read_resp_ms: Millis,
    pub write_resp_ms: Millis,
    pub resp_max_ms: Millis,
    pub resp_stddev_ms: Millis,
    pub queue_depth: f64,
    /// None where /proc/stat could not be read.
    pub cpu: Option<Cpu>,
}

impl SummaryLine {
    /// The line of one interval sample.
    pub fn from_interval(sample: &IntervalSample) -> SummaryLine {
        SummaryLine::from_sums(&Sums::of(sample), None)
    }

    fn from_sums(sums: &Sums, cpu: Option<Cpu>) -> SummaryLine {
        let seconds = sums.seconds.max(f64::MIN_POSITIVE);
        let ios = sums.read_ios + sums.write_ios;
        let per_io = |value: f64, count: f64| if count > 0.0 { value / count } else { 0.0 };
        let iops = ios / seconds;
        let resp_ms = per_io(sums.latency_ns, ios) / 1e6;
        // SdStats.resptime_std: the sample deviation from the sums, (n Σx² - (Σx)²) / n(n-1).
        let resp_stddev_ms = if ios > 1.0 {
            let variance = (ios * sums.latency_sq_ns2 - sums.latency_ns * sums.latency_ns)
                / (ios * (ios - 1.0));
            variance.max(0.0).sqrt() / 1e6
        } else {
            0.0
        };
        SummaryLine {
            iops: Iops(iops),
            mib_per_s: sums.bytes / seconds / 1_048_576.0,
            // vdbench divides in integers (SdStats.bytes is a long).
            bytes_per_io: per_io(sums.bytes, ios).floor(),
            read_pct: per_io(sums.read_ios * 100.0, ios),
            resp_ms: Millis(resp_ms),
            read_resp_ms: Millis(per_io(sums.read_latency_ns, sums.read_ios) / 1e6),
            write_resp_ms: Millis(
                per_io(sums.latency_ns - sums.read_latency_ns, sums.write_ios) / 1e6,
            ),
            resp_max_ms: Millis(sums.max_ns as f64 / 1e6),
            resp_stddev_ms: Millis(resp_stddev_ms),
            queue_depth: iops * resp_ms / 1000.0,
            cpu,
        }
    }

    fn columns(&self) -> [f64; 12] {
        let cpu = self.cpu.unwrap_or_default();
        [
            self.iops.get(),
            self.mib_per_s,
            self.bytes_per_io,
            self.read_pct,
            self.resp_ms.get(),
            self.read_resp_ms.get(),
            self.write_resp_ms.get(),
            self.resp_max_ms.get(),
            self.resp_stddev_ms.get(),
            self.queue_depth,
            cpu.total_pct,
            cpu.sys_pct,
        ]
    }

    fn from_columns(values: [f64; 12], with_cpu: bool) -> SummaryLine {
        SummaryLine {
            iops: Iops(values[0]),
            mib_per_s: values[1],
            bytes_per_io: values[2],
            read_pct: values[3],
            resp_ms: Millis(values[4]),
            read_resp_ms: Millis(values[5]),
            write_resp_ms: Millis(values[6]),
            resp_max_ms: Millis(values[7]),
            resp_stddev_ms: Millis(values[8]),
            queue_depth: values[9],
            cpu: with_cpu.then_some(Cpu {
                total_pct: values[10],
                sys_pct: values[11],
            }),
        }
    }
}

/// The measured intervals together: `avg_F-L` (their sums), `std_F-L` and `max_F-L` (the
/// standard deviation and the largest value of each column over the intervals).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AvgLine {
    pub line: SummaryLine,
    pub std: SummaryLine,
    pub max: SummaryLine,
    /// The first and last interval averaged, 1-based.
    pub first: u64,
    pub last: u64,
}

impl AvgLine {
    /// `avg_F-L` as a label.
    pub fn label(&self) -> String {
        format!("avg_{}-{}", self.first, self.last)
    }

    /// The measured intervals of `series` (numbered from 1) with their CPU (`cpu[i]` is
    /// interval i+1's, when sampled).
    pub fn from_intervals(
        header: &RunHeader,
        series: &[IntervalSample],
        cpu: &[Option<Cpu>],
    ) -> AvgLine {
        let series = run_intervals(header, series);
        let first = header.first_measured();
        let measured: Vec<(usize, &IntervalSample)> = series
            .iter()
            .enumerate()
            .filter(|(i, _)| *i as u64 + 1 >= first)
            .collect();
        let mut sums = Sums::default();
        let mut lines = Vec::with_capacity(measured.len());
        for (i, sample) in &measured {
            let one = Sums::of(sample);
            sums.add(&one);
            lines.push(SummaryLine::from_sums(&one, cpu.get(*i).copied().flatten()));
        }
        let cpus: Vec<Cpu> = lines.iter().filter_map(|l| l.cpu).collect();
        let cpu = (!cpus.is_empty()).then(|| Cpu {
            total_pct: cpus.iter().map(|c| c.total_pct).sum::<f64>() / cpus.len() as f64,
            sys_pct: cpus.iter().map(|c| c.sys_pct).sum::<f64>() / cpus.len() as f64,
        });
        let columns: Vec<[f64; 12]> = lines.iter().map(SummaryLine::columns).collect();
        let n = columns.len() as f64;
        let per_column = |f: &dyn Fn(usize) -> f64| std::array::from_fn::<f64, 12, _>(f);
        let mean = per_column(&|c| columns.iter().map(|v| v[c]).sum::<f64>() / n.max(1.0));
        let std = per_column(&|c| {
            if n < 2.0 {
                return 0.0;
            }
            let ss: f64 = columns.iter().map(|v| (v[c] - mean[c]).powi(2)).sum();
            (ss / (n - 1.0)).sqrt()
        });
        let max = per_column(&|c| columns.iter().map(|v| v[c]).fold(0.0, f64::max));
        AvgLine {
            line: SummaryLine::from_sums(&sums, cpu),
            std: SummaryLine::from_columns(std, cpu.is_some()),
            max: SummaryLine::from_columns(max, cpu.is_some()),
            first,
            last: measured.last().map(|(i, _)| *i as u64 + 1).unwrap_or(first),
        }
    }

    /// Averages over a whole job result (all clones merged) when no interval series is at
    /// hand: IOs / measured seconds, the full histograms' latencies.
    pub fn from_job(job: &JobResult) -> AvgLine {
        let runtime_ns = job.read.runtime_ns.max(job.write.runtime_ns).get();
        let read = &job.read.total_latency;
        let write = &job.write.total_latency;
        let square_sum = |l: &iofit_stats::LatencySummary| {
            let n = l.count as f64;
            // stdev_ns is the sample deviation: Σx² = (n-1)s² + n·mean².
            (n - 1.0).max(0.0) * l.stdev_ns.get().powi(2) + n * l.mean_ns.get().powi(2)
        };
        let sums = Sums {
            seconds: runtime_ns as f64 / 1e9,
            read_ios: job.read.ios as f64,
            write_ios: job.write.ios as f64,
            bytes: (job.read.io_bytes + job.write.io_bytes).as_f64(),
            read_latency_ns: read.mean_ns.get() * read.count as f64,
            latency_ns: read.mean_ns.get() * read.count as f64
                + write.mean_ns.get() * write.count as f64,
            latency_sq_ns2: square_sum(read) + square_sum(write),
            max_ns: read.max_ns.max(write.max_ns).get(),
        };
        AvgLine {
            line: SummaryLine::from_sums(&sums, None),
            first: 1,
            last: 1,
            ..AvgLine::default()
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

/// `MMM dd, yyyy` (UTC) of a Unix time, as vdbench dates its column headers.
pub fn date_of(unix_s: f64) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let days = (unix_s.max(0.0) / 86_400.0).floor() as i64 + 719_468;
    let era = days.div_euclid(146_097);
    let doe = days - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{} {:02}, {year}", MONTHS[(month - 1) as usize], day)
}

/// vdbench's two header lines (Report.createHeaders), the first dated.
pub fn headers(unix_s: f64) -> String {
    let h1 = format!(
        "{:>10} {:>10} {:>8} {:>7} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>5} {:>5} {:>5}",
        "interval",
        "i/o",
        "MB/sec",
        "bytes",
        "read",
        "resp",
        "read",
        "write",
        "resp",
        "resp",
        "queue",
        "cpu%",
        "cpu%"
    );
    let h2 = format!(
        "{:>10} {:>10} {:>8} {:>7} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>5} {:>5} {:>5}",
        "",
        "rate",
        "1024**2",
        "i/o",
        "pct",
        "time",
        "resp",
        "resp",
        "max",
        "stddev",
        "depth",
        "sys+u",
        "sys"
    );
    format!("{}{h1}\n{:12}{h2}\n", date_of(unix_s), "")
}

/// One line: time of day, then vdbench's `%10s %10.2f %8.2f %7d %6.2f %8.3f %8.3f %8.3f
/// %8.3f %8.3f %5.1f %5.1f %5.1f`.
pub fn line_text(time: &str, label: &str, l: &SummaryLine) -> String {
    let mut out = format!(
        "{time}{label:>10} {:>10.2} {:>8.2} {:>7.0} {:>6.2} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>5.1}",
        l.iops.get(),
        l.mib_per_s,
        l.bytes_per_io,
        l.read_pct,
        l.resp_ms.get(),
        l.read_resp_ms.get(),
        l.write_resp_ms.get(),
        l.resp_max_ms.get(),
        l.resp_stddev_ms.get(),
        l.queue_depth
    );
    if let Some(cpu) = l.cpu {
        let _ = write!(out, " {:>5.1} {:>5.1}", cpu.total_pct, cpu.sys_pct);
    }
    out
}

/// The run's intervals as vdbench reports them: samples shorter than 1 ms folded into the
/// one before (IOs completing at the deadline in a 0 ms interval), and nothing after the
/// run's last interval (the IOs that drain after the deadline make no interval of their own).
pub fn run_intervals(header: &RunHeader, series: &[IntervalSample]) -> Vec<IntervalSample> {
    let mut folded = fold_short_intervals(series);
    folded.truncate(header.total_intervals.max(1) as usize);
    folded
}

/// The series with every sample shorter than 1 ms folded into the one before: the engine's
/// last sample can hold the IOs that completed at the deadline in a 0 ms interval, and a rate
/// over 0 ms is not a number to print.
pub fn fold_short_intervals(series: &[IntervalSample]) -> Vec<IntervalSample> {
    let mut out: Vec<IntervalSample> = Vec::with_capacity(series.len());
    for sample in series {
        match out.last_mut() {
            Some(prev) if sample.interval_ms.get() == 0 => {
                let (a, b) = (
                    (prev.read_ios + prev.write_ios) as f64,
                    (sample.read_ios + sample.write_ios) as f64,
                );
                if a + b > 0.0 {
                    prev.latency_mean_ns = Nanos(
                        (prev.latency_mean_ns.get() * a + sample.latency_mean_ns.get() * b)
                            / (a + b),
                    );
                }
                let (ra, rb) = (prev.read_ios as f64, sample.read_ios as f64);
                if ra + rb > 0.0 {
                    prev.read_latency_mean_ns = Nanos(
                        (prev.read_latency_mean_ns.get() * ra
                            + sample.read_latency_mean_ns.get() * rb)
                            / (ra + rb),
                    );
                }
                prev.latency_p99_ns = prev.latency_p99_ns.max(sample.latency_p99_ns);
                prev.latency_max_ns = prev.latency_max_ns.max(sample.latency_max_ns);
                prev.latency_sum_sq_ns2 += sample.latency_sum_sq_ns2;
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

/// The "Starting RD=..." line (RD_entry.display_run).
pub fn starting_line(header: &RunHeader, simulate: bool) -> String {
    let elapsed = if header.warmup_s.get() > 0.0 {
        format!(
            "elapsed={} warmup={}",
            trim_float(header.elapsed_s.get()),
            trim_float(header.warmup_s.get())
        )
    } else {
        format!("elapsed={}", trim_float(header.elapsed_s.get()))
    };
    let for_part = if header.for_label.is_empty() {
        String::new()
    } else {
        format!(" For loops: {}", header.for_label)
    };
    format!(
        "{}RD={}; I/O rate: {}; {elapsed};{for_part}",
        if simulate { "Simulating " } else { "Starting " },
        header.rd,
        header.iorate_label
    )
}

/// Renders one run: the Starting line, the headers, every interval (warm-up ones too) and
/// the `avg_F-L`, `std_F-L`, `max_F-L` lines; returns the text and the averages.
pub fn render_run(
    header: &RunHeader,
    series: &[IntervalSample],
    cpu: &[Option<Cpu>],
) -> (String, AvgLine) {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{} {}\n",
        time_of_day(header.start_unix_s.get()),
        starting_line(header, false)
    );
    out.push_str(&headers(header.start_unix_s.get()));
    let series = run_intervals(header, series);
    for (index, sample) in series.iter().enumerate() {
        let time = time_of_day(
            header.start_unix_s.get()
                + (sample.start_ms + sample.interval_ms).get() as f64 / 1000.0,
        );
        let mut line = SummaryLine::from_interval(sample);
        line.cpu = cpu.get(index).copied().flatten();
        out.push_str(&line_text(&time, &(index + 1).to_string(), &line));
        out.push('\n');
    }
    let avg = AvgLine::from_intervals(header, &series, cpu);
    let end_time = time_of_day(
        header.start_unix_s.get()
            + series
                .last()
                .map(|s| (s.start_ms + s.interval_ms).get() as f64 / 1000.0)
                .unwrap_or(0.0),
    );
    let range = format!("{}-{}", avg.first, avg.last);
    for (name, line) in [("avg", &avg.line), ("std", &avg.std), ("max", &avg.max)] {
        out.push_str(&line_text(&end_time, &format!("{name}_{range}"), line));
        out.push('\n');
    }
    (out, avg)
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
    pub target_iops: Option<Iops>,
    pub iops: Iops,
    pub resp_ms: Millis,
}

/// The latency-versus-IOPS table of a curve run, with the knee marked.
pub fn render_curve(rd: &str, points: &[CurvePoint], knee: Option<usize>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Curve for RD={rd}: response time against IO rate");
    let _ = writeln!(out, "  point     target IO/s   measured IO/s   resp ms");
    for (index, p) in points.iter().enumerate() {
        let target = p
            .target_iops
            .map(|t| format!("{:.0}", t.get()))
            .unwrap_or_else(|| "max".to_string());
        let mark = if Some(index) == knee { "  <- knee" } else { "" };
        let _ = writeln!(
            out,
            "  {:<8} {:>12} {:>15.1} {:>9.3}{mark}",
            p.label,
            target,
            p.iops.get(),
            p.resp_ms.get()
        );
    }
    match knee.and_then(|k| points.get(k)) {
        Some(p) => {
            let _ = writeln!(
                out,
                "knee: {} ({:.0} IO/s at {:.3} ms): beyond it latency grows faster than IO rate",
                p.label,
                p.iops.get(),
                p.resp_ms.get()
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

    fn header(warmup_intervals: u64, total_intervals: u64) -> RunHeader {
        RunHeader {
            rd: "r".into(),
            for_label: String::new(),
            iorate_label: "Uncontrolled MAX".into(),
            elapsed_s: Seconds((total_intervals - warmup_intervals) as f64),
            warmup_s: Seconds(warmup_intervals as f64),
            interval_s: Seconds(1.0),
            start_unix_s: UnixSeconds(3600.0 * 13.0 + 0.5),
            warmup_intervals,
            total_intervals,
        }
    }

    /// One second with `read_ios` reads at `read_ns` each and `write_ios` writes at
    /// `write_ns` each (every IO of a direction the same latency: exact sums).
    fn sample(
        start_ms: u64,
        read_ios: u64,
        write_ios: u64,
        read_ns: f64,
        write_ns: f64,
    ) -> IntervalSample {
        let ios = (read_ios + write_ios) as f64;
        let sum = read_ns * read_ios as f64 + write_ns * write_ios as f64;
        IntervalSample {
            start_ms: iofit_model::units::Millis(start_ms),
            interval_ms: iofit_model::units::Millis(1000),
            read_ios,
            read_bytes: iofit_model::Bytes(read_ios * 8192),
            write_ios,
            write_bytes: iofit_model::Bytes(write_ios * 8192),
            latency_mean_ns: iofit_model::units::Nanos(if ios > 0.0 { sum / ios } else { 0.0 }),
            read_latency_mean_ns: iofit_model::units::Nanos(read_ns),
            latency_max_ns: iofit_model::units::Nanos(read_ns.max(write_ns) as u64),
            latency_sum_sq_ns2: read_ns * read_ns * read_ios as f64
                + write_ns * write_ns * write_ios as f64,
            ..Default::default()
        }
    }

    #[test]
    fn a_zero_length_last_sample_is_folded_and_a_tail_after_the_run_dropped() {
        let mut short = sample(2000, 10, 0, 3000.0, 0.0);
        short.interval_ms = iofit_model::units::Millis(0);
        let series = [
            sample(0, 100, 0, 1000.0, 0.0),
            sample(1000, 90, 0, 1000.0, 0.0),
            short,
            // IOs drained after a 3-interval run: no 4th interval.
            sample(3000, 5, 0, 1000.0, 0.0),
        ];
        let folded = fold_short_intervals(&series);
        assert_eq!(folded.len(), 3);
        assert_eq!(folded[1].read_ios, 100);
        assert!((folded[1].latency_mean_ns.get() - 1200.0).abs() < 1e-9);
        let run = run_intervals(&header(1, 2), &series);
        assert_eq!(
            run.len(),
            2,
            "the tail after the run's two intervals is not an interval"
        );
        let (text, avg) = render_run(&header(1, 2), &series, &[]);
        assert_eq!((avg.first, avg.last), (2, 2));
        assert!(text.contains("avg_2-2"), "{text}");
        assert!(!text.contains("inf") && !text.contains("NaN"), "{text}");
    }

    #[test]
    fn warmup_intervals_are_printed_and_left_out_of_the_average() {
        // 2 warm-up intervals at 1,000 IO/s, then 3 measured ones at 500, 600, 700 IO/s.
        let series = vec![
            sample(0, 1000, 0, 5_000_000.0, 0.0),
            sample(1000, 1000, 0, 5_000_000.0, 0.0),
            sample(2000, 300, 200, 1_000_000.0, 3_000_000.0),
            sample(3000, 300, 300, 1_000_000.0, 3_000_000.0),
            sample(4000, 400, 300, 1_000_000.0, 3_000_000.0),
        ];
        let cpu = vec![
            Some(Cpu {
                total_pct: 50.0,
                sys_pct: 10.0
            });
            5
        ];
        let (text, avg) = render_run(&header(2, 5), &series, &cpu);
        let lines: Vec<&str> = text.lines().collect();
        for n in 1..=5 {
            assert!(
                lines
                    .iter()
                    .any(|l| l.get(12..22) == Some(&format!("{n:>10}")[..])),
                "interval {n} printed:\n{text}"
            );
        }
        assert_eq!(avg.label(), "avg_3-5");
        // Sums of the measured intervals: 1,800 IOs over 3 s, 1,000 of them reads.
        assert!((avg.line.iops.get() - 600.0).abs() < 1e-9);
        assert!((avg.line.read_pct - 1000.0 * 100.0 / 1800.0).abs() < 1e-9);
        assert!((avg.line.read_resp_ms.get() - 1.0).abs() < 1e-9);
        assert!((avg.line.write_resp_ms.get() - 3.0).abs() < 1e-9);
        assert!((avg.line.resp_max_ms.get() - 3.0).abs() < 1e-9);
        // MB/sec in 1,048,576-byte units: 1,800 x 8 KiB over 3 s.
        assert!((avg.line.mib_per_s - 1800.0 * 8192.0 / 3.0 / 1_048_576.0).abs() < 1e-9);
        // The per-interval lines and the avg line agree: the mean of the three rates.
        assert!((avg.max.iops.get() - 700.0).abs() < 1e-9);
        assert!((avg.std.iops.get() - 100.0).abs() < 1e-9);
        // vdbench's sample deviation of 1,000 IOs at 1 ms and 800 at 3 ms.
        let (n, sum, sq): (f64, f64, f64) = (1800.0, 1000.0 + 800.0 * 3.0, 1000.0 + 800.0 * 9.0);
        let expected = ((n * sq - sum * sum) / (n * (n - 1.0))).sqrt();
        assert!((avg.line.resp_stddev_ms.get() - expected).abs() < 1e-6);
        let avg_line = lines.iter().find(|l| l.contains("avg_3-5")).unwrap();
        let columns: Vec<&str> = avg_line[12..].split_whitespace().collect();
        assert_eq!(columns.len(), 13, "{avg_line}");
        assert_eq!(columns[1], "600.00");
        assert_eq!(columns[3], "8192");
        assert_eq!(columns[11], "50.0");
        assert!(text.contains("std_3-5") && text.contains("max_3-5"));
        assert!(text.contains("Starting RD=r; I/O rate: Uncontrolled MAX; elapsed=3 warmup=2;"));
    }

    #[test]
    fn headers_are_vdbenchs() {
        let text = headers(0.0);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("Jan 01, 1970  interval        i/o   MB/sec   bytes   read     resp     read    write     resp     resp queue  cpu%  cpu%"), "{text}");
        assert!(lines[1].starts_with("                             rate  1024**2     i/o    pct     time     resp     resp      max   stddev depth sys+u   sys"), "{text}");
        // Each title ends where its column's numbers end (vdbench's right-aligned fields).
        let rate_end = lines[0].find("i/o").unwrap() + 3;
        assert_eq!(lines[1].find("rate").unwrap() + 4, rate_end);
        assert_eq!(date_of(1_795_737_600.0), "Nov 27, 2026");
    }

    #[test]
    fn curve_table_marks_the_knee() {
        let points = vec![
            CurvePoint {
                label: "max".into(),
                target_iops: None,
                iops: Iops(10_000.0),
                resp_ms: Millis(4.0),
            },
            CurvePoint {
                label: "50%".into(),
                target_iops: Some(Iops(5000.0)),
                iops: Iops(5000.0),
                resp_ms: Millis(0.5),
            },
            CurvePoint {
                label: "90%".into(),
                target_iops: Some(Iops(9000.0)),
                iops: Iops(9000.0),
                resp_ms: Millis(1.0),
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
