//! fio's averaged log files (`write_bw_log`, `write_iops_log`, `write_lat_log` with
//! `log_avg_msec`), as fio 3.33 writes them: one line per window and direction,
//! `TIME_MS, VALUE, DDIR, 0, 0` — the window's end in milliseconds from the job's start, the
//! value (bandwidth in KiB/s, IOs per second, or mean latency in ns), 0 for reads and 1 for
//! writes, then block size and priority, both 0 in averaged logs. A window without IO in a
//! direction gets 0 for bandwidth and IOPS and no latency line, as in fio.

use iofit_stats::result::IntervalSample;
use std::fmt::Write;

/// Which log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind {
    Bandwidth,
    Iops,
    Latency,
}

impl LogKind {
    /// fio's file-name part: `PREFIX_bw.N.log`.
    pub fn suffix(self) -> &'static str {
        match self {
            LogKind::Bandwidth => "bw",
            LogKind::Iops => "iops",
            LogKind::Latency => "lat",
        }
    }
}

/// The log text for one clone's series; `reads`/`writes` say which directions the job does.
pub fn render(series: &[IntervalSample], kind: LogKind, reads: bool, writes: bool) -> String {
    let mut out = String::new();
    for sample in series {
        let seconds = sample.interval_ms.max(1) as f64 / 1000.0;
        let end_ms = sample.start_ms + sample.interval_ms;
        for (ddir, wanted, ios, bytes) in [
            (0, reads, sample.read_ios, sample.read_bytes),
            (1, writes, sample.write_ios, sample.write_bytes),
        ] {
            if !wanted {
                continue;
            }
            let value = match kind {
                LogKind::Bandwidth => (bytes as f64 / 1024.0 / seconds).round() as u64,
                LogKind::Iops => (ios as f64 / seconds).round() as u64,
                LogKind::Latency if ios == 0 => continue,
                LogKind::Latency => sample.latency_mean_ns.round() as u64,
            };
            let _ = writeln!(out, "{end_ms}, {value}, {ddir}, 0, 0");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(
        start_ms: u64,
        read_ios: u64,
        write_ios: u64,
        latency_mean_ns: f64,
    ) -> IntervalSample {
        IntervalSample {
            start_ms,
            interval_ms: 250,
            read_ios,
            read_bytes: read_ios * 4096,
            write_ios,
            write_bytes: write_ios * 4096,
            latency_mean_ns,
            latency_p99_ns: 0,
        }
    }

    #[test]
    fn lines_are_fios_columns() {
        let series = [sample(0, 1000, 0, 81.4), sample(250, 0, 0, 0.0)];
        // 1000 IOs of 4 KiB in 250 ms: 16,000 KiB/s and 4,000 IOPS.
        assert_eq!(
            render(&series, LogKind::Bandwidth, true, false),
            "250, 16000, 0, 0, 0\n500, 0, 0, 0, 0\n"
        );
        assert_eq!(
            render(&series, LogKind::Iops, true, false),
            "250, 4000, 0, 0, 0\n500, 0, 0, 0, 0\n"
        );
        assert_eq!(
            render(&series, LogKind::Latency, true, false),
            "250, 81, 0, 0, 0\n"
        );
        let mixed = [sample(0, 10, 30, 5.0)];
        assert_eq!(
            render(&mixed, LogKind::Iops, true, true),
            "250, 40, 0, 0, 0\n250, 120, 1, 0, 0\n"
        );
    }
}
