//! fio's log files, as fio 3.33 writes them. Averaged logs (`write_bw_log`, `write_iops_log`,
//! `write_lat_log` with `log_avg_msec`): one line per window and direction,
//! `TIME_MS, VALUE, DDIR, 0, 0` — the window's end in milliseconds from the job's start (from
//! the Unix epoch with `log_unix_epoch=1`), the value (bandwidth in KiB/s, IOs per second, or
//! mean latency in ns), 0 for reads, 1 for writes and 2 for trims, then block size and priority, both 0 in
//! averaged logs; `log_offset=1` adds an offset column (0) before the priority. A window
//! without IO in a direction gets 0 for bandwidth and IOPS and no latency line, as in fio.
//! `write_lat_log` writes fio's three latency logs: `lat` (total), `clat` (completion) and
//! `slat` (submission; empty for synchronous engines, as fio leaves it).
//! Histogram logs (`write_hist_log` with `log_hist_msec`): `TIME_MS, DDIR, BS, C0, ..., C1855`,
//! the window's latency counts in fio's 1856 bins (`FIO_IO_U_PLAT_NR`), which
//! `fiologparser_hist.py` reads. Files are `PREFIX_bw.N.log` (N the clone's number in the
//! run), or one `PREFIX_bw.log` for every clone with `per_job_logs=0`.

use iofit_model::job::{JobSpec, RwMode};
use iofit_stats::result::{IntervalSample, RunResult};
use iofit_stats::{fio_bins, Ddir};
use std::fmt::Write;
use std::path::PathBuf;

/// Which log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind {
    Bandwidth,
    Iops,
    Latency,
    /// fio's `clat` and `slat` logs, written with `write_lat_log` beside the `lat` log.
    CompletionLatency,
    SubmissionLatency,
    /// fio's `clat_hist` log.
    Histogram,
}

impl LogKind {
    /// fio's file-name part: `PREFIX_bw.N.log`.
    pub fn suffix(self) -> &'static str {
        match self {
            LogKind::Bandwidth => "bw",
            LogKind::Iops => "iops",
            LogKind::Latency => "lat",
            LogKind::CompletionLatency => "clat",
            LogKind::SubmissionLatency => "slat",
            LogKind::Histogram => "clat_hist",
        }
    }
}

/// How the lines are written: fio's `log_offset` and `log_unix_epoch`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogStyle {
    pub with_offset: bool,
    /// Added to every time: the job's start in ms since the epoch, or 0.
    pub time_base_ms: u64,
    /// The block size written in histogram lines.
    pub block_size: u64,
    /// fio `log_prio=1`: the priority column in fio's `0x%04x` form (0x0000 in averaged lines).
    pub with_prio: bool,
}

/// The log text for one clone's series; `wanted[ddir]` says which directions ([`Ddir`]: read,
/// write, trim) the job does.
pub fn render(series: &[IntervalSample], kind: LogKind, wanted: [bool; 3]) -> String {
    render_with(series, kind, wanted, &LogStyle::default())
}

/// The directions a job's logs have lines for (fio's `td_read`/`td_write`/`td_trim`): a
/// trim job's "writes" are its trims, and trimwrite does both.
pub fn directions_of(rw: RwMode) -> [bool; 3] {
    let trims = rw.has_trims();
    let writes = rw.has_writes() && (!trims || rw.is_trimwrite());
    [rw.has_reads(), writes, trims]
}

/// As [`render`], in `style`.
pub fn render_with(
    series: &[IntervalSample],
    kind: LogKind,
    wanted: [bool; 3],
    style: &LogStyle,
) -> String {
    let mut out = String::new();
    for sample in series {
        let seconds = sample.interval_ms.max(1) as f64 / 1000.0;
        let end_ms = style.time_base_ms + sample.start_ms + sample.interval_ms;
        for direction in Ddir::ALL {
            if !wanted[direction.index()] {
                continue;
            }
            let (ios, bytes) = sample.of(direction);
            let ddir = direction.index() as u8;
            // A job of several directions keeps its latency per direction (fio's line per
            // direction); otherwise the interval's own numbers are the one direction's.
            let own = sample
                .by_direction
                .as_ref()
                .and_then(|d| d.get(direction.index()));
            let (latency_ns, clat_ns, slat_ns) = own.map_or(
                (
                    sample.latency_mean_ns,
                    sample.clat_mean_ns,
                    sample.slat_mean_ns,
                ),
                |d| (d.latency_mean_ns, d.clat_mean_ns, d.slat_mean_ns),
            );
            let value = match kind {
                LogKind::Histogram => {
                    let bins = own.map_or(&sample.latency_bins, |d| &d.latency_bins);
                    histogram_line(&mut out, end_ms, ddir, style.block_size, bins);
                    continue;
                }
                LogKind::Bandwidth => (bytes as f64 / 1024.0 / seconds).round() as u64,
                LogKind::Iops => (ios as f64 / seconds).round() as u64,
                LogKind::Latency | LogKind::CompletionLatency | LogKind::SubmissionLatency
                    if ios == 0 =>
                {
                    continue
                }
                LogKind::Latency => latency_ns.round() as u64,
                LogKind::CompletionLatency => clat_ns.round() as u64,
                // Synchronous engines have no submission latency: fio's slat log is empty.
                LogKind::SubmissionLatency if slat_ns == 0.0 => continue,
                LogKind::SubmissionLatency => slat_ns.round() as u64,
            };
            let offset = if style.with_offset { "0, " } else { "" };
            let prio = if style.with_prio { "0x0000" } else { "0" };
            let _ = writeln!(out, "{end_ms}, {value}, {ddir}, 0, {offset}{prio}");
        }
    }
    out
}

/// One histogram line: time, direction, block size, then the count of every fio bin.
fn histogram_line(out: &mut String, end_ms: u64, ddir: u8, bs: u64, bins: &[(u64, u64)]) {
    let mut counts = vec![0u64; fio_bins::PLAT_NR as usize];
    for &(value, count) in bins {
        counts[fio_bins::index_of(value) as usize] += count;
    }
    let _ = write!(out, "{end_ms}, {ddir}, {bs}");
    for count in counts {
        let _ = write!(out, ", {count}");
    }
    out.push('\n');
}

/// Every log file of a run: (path, text). `job_index[i]` is the definition of `run.jobs[i]`,
/// each result one clone (jobfile refuses logs with group_reporting). With `per_job_logs=0` the
/// clones of a prefix share one file, in clone order.
pub fn log_files(run: &RunResult, job_index: &[usize], jobs: &[JobSpec]) -> Vec<(PathBuf, String)> {
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for (number, (result, &index)) in run.jobs.iter().zip(job_index).enumerate() {
        let Some(job) = jobs.get(index) else { continue };
        let logs = &job.logs;
        let style = LogStyle {
            with_offset: logs.with_offset,
            time_base_ms: if logs.unix_epoch {
                result.fio.start_epoch_ms
            } else {
                0
            },
            block_size: job.block_size.max_size().as_u64(),
            with_prio: logs.with_prio,
        };
        for (prefix, kind) in [
            (&logs.bw_prefix, LogKind::Bandwidth),
            (&logs.iops_prefix, LogKind::Iops),
            (&logs.lat_prefix, LogKind::Latency),
            (&logs.lat_prefix, LogKind::CompletionLatency),
            (&logs.lat_prefix, LogKind::SubmissionLatency),
            (&logs.hist_prefix, LogKind::Histogram),
        ] {
            let Some(prefix) = prefix else { continue };
            if logs.per_io && kind != LogKind::Histogram {
                // One line per IO: the engine wrote these as the IOs completed.
                continue;
            }
            let name = if logs.shared_file {
                format!("{prefix}_{}.log", kind.suffix())
            } else {
                format!("{prefix}_{}.{}.log", kind.suffix(), number + 1)
            };
            let text = render_with(&result.series, kind, directions_of(job.rw), &style);
            let path = PathBuf::from(name);
            match files.iter_mut().find(|(p, _)| *p == path) {
                Some((_, existing)) => existing.push_str(&text),
                None => files.push((path, text)),
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    const READS: [bool; 3] = [true, false, false];

    fn sample(
        start_ms: u64,
        read_ios: u64,
        write_ios: u64,
        latency_mean_ns: f64,
    ) -> IntervalSample {
        IntervalSample {
            clat_mean_ns: Default::default(),
            slat_mean_ns: Default::default(),
            latency_bins: vec![(1_000, read_ios + write_ios)],
            by_direction: None,
            start_ms,
            interval_ms: 250,
            read_ios,
            read_bytes: read_ios * 4096,
            write_ios,
            write_bytes: write_ios * 4096,
            trim_ios: 0,
            trim_bytes: 0,
            latency_mean_ns,
            latency_p99_ns: 0,
            ..Default::default()
        }
    }

    #[test]
    fn lines_are_fios_columns() {
        let series = [sample(0, 1000, 0, 81.4), sample(250, 0, 0, 0.0)];
        // 1000 IOs of 4 KiB in 250 ms: 16,000 KiB/s and 4,000 IOPS.
        assert_eq!(
            render(&series, LogKind::Bandwidth, READS),
            "250, 16000, 0, 0, 0\n500, 0, 0, 0, 0\n"
        );
        assert_eq!(
            render(&series, LogKind::Iops, READS),
            "250, 4000, 0, 0, 0\n500, 0, 0, 0, 0\n"
        );
        assert_eq!(
            render(&series, LogKind::Latency, READS),
            "250, 81, 0, 0, 0\n"
        );
        // log_offset=1 adds fio's offset column; log_unix_epoch moves every time.
        let style = LogStyle {
            with_offset: true,
            time_base_ms: 1_795_000_000_000,
            block_size: 4096,
            with_prio: false,
        };
        assert_eq!(
            render_with(&series[..1], LogKind::Iops, READS, &style),
            "1795000000250, 4000, 0, 0, 0, 0\n"
        );
        // Histogram lines: time, direction, block size, then fio's 1856 bins; the window's
        // 1000 IOs at 1 µs sit in the bin of 1000 ns.
        let hist = render_with(&series[..1], LogKind::Histogram, READS, &style);
        let fields: Vec<u64> = hist
            .trim()
            .split(", ")
            .map(|f| f.parse().unwrap())
            .collect();
        assert_eq!(fields.len(), 3 + 1856);
        assert_eq!(&fields[..3], [1_795_000_000_250, 0, 4096]);
        assert_eq!(fields[3 + fio_bins::index_of(1_000) as usize], 1000);
        assert_eq!(fields[3..].iter().sum::<u64>(), 1000);
        let mixed = [sample(0, 10, 30, 5.0)];
        assert_eq!(
            render(&mixed, LogKind::Iops, [true, true, false]),
            "250, 40, 0, 0, 0\n250, 120, 1, 0, 0\n"
        );
    }
}
